"""`collections.defaultdict` and `OrderedDict` made in the function as the plain dicts
they act as.

Before:                                        After:
    d = collections.defaultdict(float)             d = {}
    for k, v in zip(keys, xs):                     for k, v in zip(keys, xs):
        d[k] += v * v                                  if k not in d:
                                                           d[k] = 0.0
                                                       d[k] += v * v
    y = d["a"] * 2.0                               if "a" not in d:
                                                       d["a"] = 0.0
                                                   y = d["a"] * 2.0
    o = collections.OrderedDict()                  o = {}

A dict keeps its keys in the order they were first stored, as an `OrderedDict` does;
a `defaultdict` stores its default at a key it reads that is missing, which
`if key not in d: d[key] = default` does before the statement reading it, in the order
the statement reads them (the target
of `d[k] op= v` first). Rewritten only where that is exact: the name is bound once, to
`defaultdict()`, `defaultdict(f)` of `f` the builtin `float` or `int` or a `lambda`
returning a number constant, or `OrderedDict()`; the function uses it only as `d[key]`
with a key of names and constants, through the methods a dict has alike (`get`, `items`,
`keys`, `values`, `pop`, `setdefault`, `update`, `clear`; `popitem()` without arguments),
as a loop's iterable, after `in`, or passed whole to `len`, `list`, `sorted`, `sum`,
`dict`, `tuple`, `min`, `max`; and a statement reading `d[key]` of a defaultdict is an
assignment, an expression, a `return`, an `if` (its test) or a `for` (its iterable),
reading it where it reads `d` at all, and not under `and`/`or`, `... if ... else ...`, a
comprehension or a `lambda` (where it may not run). Anything else leaves the binding as
it is, refused later as a change in place of a value of an unknown type. Runs on the
parse, before idioms.py; a new tree where it rewrites anything, the same tree otherwise.
"""

import builtins
import collections

import gast

from . import syntax, traversal
from .scope import dotted_parts, lookup_path

_METHODS = frozenset({"get", "items", "keys", "values", "pop", "setdefault", "update", "clear", "popitem"})
_READERS = (builtins.len, builtins.list, builtins.sorted, builtins.sum, builtins.dict, builtins.tuple, builtins.min,
            builtins.max)
_DEFAULTS = {builtins.float: 0.0, builtins.int: 0}
_CONDITIONAL = (gast.BoolOp, gast.IfExp, gast.ListComp, gast.SetComp, gast.DictComp, gast.GeneratorExp, gast.Lambda)
_READING = (gast.Assign, gast.AugAssign, gast.AnnAssign, gast.Expr, gast.Return, gast.If, gast.For)


def run(program):
    """`program.tree` with the dicts described above made plain (the same tree when there are none)."""
    tree = program.tree
    if not any("defaultdict" in line or "OrderedDict" in line for line in program.source_lines):
        return tree
    made = _made(program, tree)
    if not made:
        return tree
    tree = syntax.copy(tree)
    _, stores = traversal.name_counts(tree)
    plain = {}
    for st in traversal.statements(tree):
        if type(st) is gast.Assign and len(st.targets) == 1 and type(st.targets[0]) is gast.Name:
            name = st.targets[0].id
            found = made.get(name)
            if found is not None and stores[name] == 1 and _dict_uses(tree, name, program, found[0]):
                plain[name] = (st, found[1])
    if not plain:
        return program.tree
    for name, (st, default) in plain.items():
        st.value = syntax.located(syntax.dict_([], []), st.value)
        if default is not None:
            _store_defaults(tree, name, default)
    return tree


def _made(program, tree):
    """{name: (kind, default)} for each `name = defaultdict(...)` / `OrderedDict()` this
    pass can make plain (kind "defaultdict" or "ordered"; default the constant a missing
    key gets, None for none)."""
    local = {a.id for a in tree.args.args + tree.args.kwonlyargs} | set(traversal.names_stored(tree))
    found = {}
    for st in traversal.statements(tree):
        if not (type(st) is gast.Assign and len(st.targets) == 1 and type(st.targets[0]) is gast.Name
                and type(st.value) is gast.Call and not st.value.keywords):
            continue
        parts = dotted_parts(st.value.func)
        if parts is None or parts[0] in local:
            continue
        maker, args = lookup_path(parts, program), st.value.args
        if maker is collections.OrderedDict and not args:
            found[st.targets[0].id] = ("ordered", None)
        elif maker is collections.defaultdict and len(args) <= 1:
            default = _default(args[0], program, local) if args else None
            if not args or default is not None:
                found[st.targets[0].id] = ("defaultdict", default)
    return found


def _default(factory, program, local):
    """The number constant the factory `factory` returns, or None where it is another."""
    if type(factory) is gast.Lambda:
        a = factory.args
        if a.args or a.vararg or a.kwarg or a.kwonlyargs or getattr(a, "posonlyargs", None):
            return None
        body = factory.body
        numeric = type(body) is gast.Constant and type(body.value) in (int, float)
        return syntax.const(body.value) if numeric else None
    parts = dotted_parts(factory)
    if parts is None or parts[0] in local:
        return None
    value = _DEFAULTS.get(lookup_path(parts, program))
    return None if value is None else syntax.const(value)


def _dict_uses(tree, name, program, kind):
    """Whether every use of `name` in `tree` is one a plain dict serves alike (see the
    module's docstring)."""
    parents = {}
    for n in traversal.walk(tree):
        for child in gast.iter_child_nodes(n):
            parents[id(child)] = n
    for n in traversal.walk(tree):
        if not (type(n) is gast.Name and n.id == name and type(n.ctx) is gast.Load):
            continue
        parent = parents.get(id(n))
        if type(parent) is gast.Subscript and parent.value is n:
            target = parents.get(id(parent))
            read = type(parent.ctx) is gast.Load or (type(target) is gast.AugAssign and target.target is parent)
            if read and kind == "defaultdict" and not _read_here(parent, parents):
                return False
            continue
        if type(parent) is gast.Attribute and parent.value is n:
            call = parents.get(id(parent))
            if parent.attr not in _METHODS or not (type(call) is gast.Call and call.func is parent):
                return False
            if parent.attr == "popitem" and (call.args or call.keywords):
                return False  # `OrderedDict.popitem(last=False)`
            continue
        if type(parent) is gast.For and parent.iter is n:
            continue
        if type(parent) is gast.Compare and any(c is n for c in parent.comparators) and all(
                type(op) in (gast.In, gast.NotIn) for op in parent.ops):
            continue
        if type(parent) is gast.Call and any(a is n for a in parent.args) and not parent.keywords:
            parts = dotted_parts(parent.func)
            found = lookup_path(parts, program) if parts is not None else None
            if any(found is f for f in _READERS) and len(parent.args) == 1:
                continue
        return False
    return True


def _read_here(subscript, parents):
    """Whether the read `d[key]` can take its default before its statement: its key made of
    names and constants, not under a node where it may not run, in a statement of the kinds
    that evaluate it once (an `if`'s test, a `for`'s iterable)."""
    if not all(type(k) in (gast.Name, gast.Constant, gast.Tuple, gast.Load) for k in traversal.walk(subscript.slice)):
        return False
    node = parents.get(id(subscript))
    while not isinstance(node, gast.stmt):
        if node is None or isinstance(node, _CONDITIONAL) or isinstance(node, gast.NamedExpr):
            return False
        if type(node) is gast.Subscript and isinstance(node.ctx, (gast.Store, gast.Del)):
            return False  # `d[k][j] = v`, `d[d[k]] = v`: a read inside a target
        node = parents.get(id(node))
    if not isinstance(node, _READING):
        return False
    part = node.test if type(node) is gast.If else node.iter if type(node) is gast.For else None
    if part is not None and not any(n is subscript for n in traversal.walk(part)):
        return False
    # the defaults go in before the statement reads anything: it may read `d` only at keys
    name = subscript.value.id
    for n in traversal.walk(node if part is None else part):
        if syntax.is_name(n, name) and type(n.ctx) is gast.Load:
            holder = parents.get(id(n))
            if not (type(holder) is gast.Subscript and holder.value is n):
                return False
    return True


def _store_defaults(tree, name, default):
    """Put `if key not in name: name[key] = default` before each statement reading `name[key]`."""
    for holder in list(traversal.statements(tree)):
        for stmts in traversal.blocks_in(holder):
            out = []
            for st in stmts:
                for key in _keys_read(st, name):
                    missing = syntax.compare(key, gast.NotIn(), syntax.name(name))
                    store = syntax.assign(syntax.subscript(syntax.name(name), syntax.copy(key), store=True),
                                          syntax.copy(default))
                    out.append(syntax.located(syntax.if_(missing, [syntax.located(store, st)]), st))
                out.append(st)
            stmts[:] = out


def _keys_read(st, name):
    """The keys of the reads `name[key]` the statement `st` makes itself (not its blocks),
    in the order it reads them: an augmented assignment's target first."""
    if not isinstance(st, _READING):
        return []
    parts = ([st.target] if type(st) is gast.AugAssign else []) + [
        st.test if type(st) is gast.If else st.iter if type(st) is gast.For else getattr(st, "value", None)]
    keys = []
    for part in parts:
        if part is None:
            continue
        reads = [n for n in traversal.walk(part) if type(n) is gast.Subscript and syntax.is_name(n.value, name)
                 and (type(n.ctx) is gast.Load or n is part)]
        reads.sort(key=lambda n: (getattr(n, "lineno", 0), getattr(n, "col_offset", 0)))
        keys += [syntax.copy(n.slice) for n in reads]
    return keys
