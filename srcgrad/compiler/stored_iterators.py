"""Lazy iterators stored in a variable: refused where what they read changes before they
are read.

Python runs a generator expression when it is consumed, not where it is written:

    k = 2.0
    g = (v * k for v in x)
    k = 3.0
    return sum(g)          # 3 * sum(x): g reads k when sum runs

srcgrad computes a stored generator expression as a list where it is assigned, and reads
`reversed(a)` and `enumerate(a)` (or `map`/`filter` of `a`) as the entries `a` had there.
That is exact only where nothing the iterator reads changes between the assignment and
the first read of its name. So, between them, this refuses (a change placed where it
takes effect: `k = sum(g)` binds k after `sum(g)` ran, `xs.append(sum(g))` changes xs
after; a `match` capture where it is written):

- a new binding of a name the generator expression reads lazily (all but its first
  iterable, which Python evaluates where it is written);
- an in-place change (an item or attribute store, an augmented assignment, a mutating
  method, `out=`, the name given to a function of the user's) of any name the iterator
  reads, its first iterable included.

The read twice or in a loop is generator_calls.py's refusal. Checks only; the tree is
left as it is.
"""

import builtins
import types

import gast

from . import generator_lists, traversal
from .scope import dotted_parts, lookup_path

_LAZY_CALLS = {builtins.reversed: "reversed", builtins.enumerate: "enumerate", builtins.map: "map",
               builtins.filter: "filter", builtins.iter: "iter"}
_LAZY_NAMES = frozenset(_LAZY_CALLS.values())  # what they are called unless the module rebinds a name


def check(program):
    """Raise a located `SrcGradError` for a stored lazy iterator whose reads change before
    it is read (see the module docstring)."""
    tree = program.tree
    if not any(type(n) is gast.Assign and len(n.targets) == 1 and type(n.targets[0]) is gast.Name and _maybe_lazy(n.value)
               for n in traversal.statements(tree)):
        return  # (a statement walk: cheaper than the walk over every node below, which finds these same assignments)
    local = {a.id for a in tree.args.args + tree.args.kwonlyargs} | set(traversal.names_stored(tree))
    stored = [n for n in traversal.walk(tree) if isinstance(n, gast.Assign) and len(n.targets) == 1
              and isinstance(n.targets[0], gast.Name) and _lazy(n.value, program, local) is not None]
    if not stored:
        return
    nested = {d.name: d for d in traversal.walk(tree) if isinstance(d, gast.FunctionDef) and d is not tree}
    for assign in stored:
        name = assign.targets[0].id
        reads = [n for n in traversal.walk(tree) if isinstance(n, gast.Name) and n.id == name
                 and isinstance(n.ctx, gast.Load) and _position(n) > _end(assign)]
        if not reads:
            continue
        read = min(reads, key=_position)
        lazy, eager = _reads(assign.value, nested)
        for when, node, changed, how in _changes(tree, program, nested):
            if not _end(assign) < when < _position(read):
                continue
            if changed in lazy or (how != "bound" and changed in eager):
                kind = _lazy(assign.value, program, local)
                what = f"changes `{changed}` in place{how}" if how != "bound" else f"binds `{changed}` again"
                raise program.error(
                    node, f"this line {what}, which the {kind} stored in `{name}` (line {program.line(assign)}) "
                    f"reads, before `{name}` is read (line {program.line(read)}; in `{program.name}`): Python runs "
                    f"the {kind} when it is read, so it sees the change, while srcgrad computes it where it is "
                    f"written. Write the {kind} out where it is read, or, to read the values it had where it is "
                    f"written, make it a list there (`{name} = [...]`, `{name} = list(...)`)")


def _maybe_lazy(value):
    """Whether `value` has the form `_lazy` looks into: a generator expression, or a
    call of one of the names of `_LAZY_NAMES`."""
    kind = type(value)
    return kind is gast.GeneratorExp or (kind is gast.Call and type(value.func) is gast.Name
                                         and value.func.id in _LAZY_NAMES)


def _lazy(value, program, local):
    """What kind of lazy iterator the expression `value` makes ("generator expression",
    "`reversed(...)`", ...), or None. `local`: the function's local names."""
    if isinstance(value, gast.GeneratorExp):
        return "generator expression"
    if (isinstance(value, gast.Call) and isinstance(value.func, gast.Name) and value.func.id in _LAZY_NAMES
            and value.func.id not in local):
        obj = lookup_path([value.func.id], program)
        try:
            label = _LAZY_CALLS.get(obj)
        except TypeError:  # unhashable
            return None
        return f"`{label}(...)`" if label else None
    return None


def _reads(value, nested):
    """(names the iterator reads lazily, names it reads where it is made)."""
    if isinstance(value, gast.GeneratorExp):
        first = value.generators[0].iter
        eager = set(traversal.names_read(first))
        own = {n.id for g in value.generators for n in traversal.walk(g.target) if isinstance(n, gast.Name)}
        lazy = set()
        for n in traversal.walk(value):
            if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load) and not _under(n, first):
                lazy.add(n.id)
        for called in list(lazy):  # a nested `def` it calls reads its variables when it runs
            if called in nested:
                d = nested[called]
                own_names = {a.id for a in d.args.args + d.args.kwonlyargs} | set(traversal.names_stored(d.body))
                lazy |= set(traversal.names_read(d.body)) - own_names
        return lazy - own, eager
    return set(), set(traversal.names_read(value))


def _under(node, root):
    return any(n is node for n in traversal.walk(root))


def _changes(tree, program, nested):
    """(when, node, name, how) for each binding (how "bound") or in-place change of a local
    name: `when` is where in the source it takes effect, after what its statement, call or
    walrus evaluates first (`k = sum(g)` binds k after `sum(g)` reads g)."""
    placed = set()  # name stores taking effect elsewhere than where they are written; a comprehension's own
    binders = (gast.Assign, gast.AugAssign, gast.AnnAssign, gast.For, gast.NamedExpr, gast.comprehension)
    for node in traversal.walk(tree):
        if isinstance(node, binders):
            targets = node.targets if isinstance(node, gast.Assign) else [node.target]
            placed |= {id(n) for t in targets for n in traversal.walk(t) if isinstance(n, gast.Name)}
    for node in traversal.walk(tree):
        if isinstance(node, gast.Name) and isinstance(node.ctx, gast.Store) and id(node) not in placed:
            yield _position(node), node, node.id, "bound"  # an `except ... as` name
        elif type(node).__name__ in ("MatchAs", "MatchStar", "MatchMapping"):  # a `match` capture (a string)
            captured = getattr(node, "rest", None) if type(node).__name__ == "MatchMapping" else node.name
            if captured:
                yield _position(node), node, captured, "bound"
        elif isinstance(node, (gast.Assign, gast.AugAssign, gast.AnnAssign)):
            targets = node.targets if isinstance(node, gast.Assign) else [node.target]
            for t in targets:
                for n in traversal.walk(t):
                    if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store):
                        yield _end(node), n, n.id, "bound"
                if isinstance(t, (gast.Subscript, gast.Attribute)) or isinstance(node, gast.AugAssign):
                    root = generator_lists.root(t)
                    if root is not None:
                        yield _end(node), node, root, ""
        elif isinstance(node, gast.NamedExpr):
            yield _end(node), node, node.target.id, "bound"
        elif isinstance(node, gast.For):
            for n in traversal.walk(node.target):
                if isinstance(n, gast.Name):
                    yield _end(node.iter), n, n.id, "bound"
        elif isinstance(node, gast.Call):
            if isinstance(node.func, gast.Attribute) and node.func.attr in generator_lists.MUTATING:
                root = generator_lists.root(node.func.value)
                if root is not None:
                    yield _end(node), node, root, f" (`.{node.func.attr}`)"
            for k in node.keywords:
                if k.arg == "out":
                    for n in traversal.names_read(k.value):
                        yield _end(node), node, n, " (`out=`)"
            if _users_function(node.func, program, nested):
                for a in list(node.args) + [k.value for k in node.keywords]:
                    if isinstance(a, gast.Name):
                        yield _end(node), node, a.id, " (given to a function of yours, which may change it)"
        elif isinstance(node, (gast.Import, gast.ImportFrom, gast.FunctionDef, gast.ClassDef)) and node is not tree:
            names = [node.name] if hasattr(node, "name") else [a.asname or a.name.split(".")[0] for a in node.names]
            for name in names:
                yield _end(node), node, name, "bound"


def _users_function(func, program, nested):
    """Whether `func` names a function of the user's (a nested `def`, or a Python function
    that is not NumPy's), which may change what it is given."""
    parts = dotted_parts(func)
    if parts is None:
        return False
    if len(parts) == 1 and parts[0] in nested:
        return True
    obj = lookup_path(parts, program)
    return isinstance(obj, types.FunctionType) and not (getattr(obj, "__module__", "") or "").startswith("numpy")


def _position(node):
    return getattr(node, "lineno", 0) or 0, getattr(node, "col_offset", 0) or 0


def _end(node):
    return getattr(node, "end_lineno", None) or _position(node)[0], getattr(node, "end_col_offset", 0) or 0
