"""A loop or comprehension over `sorted(zip(a, b, ...), key=...)` or
`sorted(enumerate(a), key=...)` (without `key=`, with `reverse=`, under `reversed(...)`)
made a loop over the positions of the entries, ordered by the key.

Before:                                              After:
    for a, b in sorted(zip(x, w), key=lambda p: p[1]):    x_entries = list(x)
        t = t * a + b                                      w_entries = list(w)
                                                           for i in sorted(range(min(len(x_entries), len(w_entries))),
                                                                           key=lambda i: w_entries[i]):
                                                               a, b = (x_entries[i], w_entries[i])
                                                               t = t * a + b

Elsewhere in a statement (`pairs = sorted(zip(keys, values))`, then `for k, v in pairs`),
the list `sorted` makes is written as a comprehension over the same ordered positions:
`pairs = [(keys_entries[position], values_entries[position]) for position in sorted(...)]`.

key_lambdas.py then makes the `sorted(range(...), key=...)` an `order_by` over keys
computed in the function: positions are integers and carry no derivative, and each
entry read by index carries its own (the gradient follows the order). The order is
Python's: the same keys, compared the same way (the tuples themselves without `key=`),
sorted stably, `reverse=` kept. Each sequence is read as `list(a)`, made where Python
makes the sorted list (before the loop): the entries the loop sees are those of the start
(a dict gives its keys), whatever the body does to `a`. In a comprehension the lists are
made before the statement that holds it, which is left as it was where that could differ
from Python (a comprehension under a condition, a lambda, another comprehension, a
`while` test, or reading names its enclosing comprehensions bind). Returns a new tree;
the parse stays as it was.
"""

import builtins

import gast

from . import syntax, traversal
from .statement_parts import expressions, replace
from .naming import Namer
from .scope import dotted_parts, lookup_path

_WRITTEN = ("list", "len", "min", "range")  # the builtins the rewritten code calls by name
_COMPREHENSIONS = (gast.ListComp, gast.SetComp, gast.GeneratorExp, gast.DictComp)
_SCOPES = (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef)


def run(program):
    """`program.tree` with each such loop and comprehension rewritten as above."""
    if not any("sorted" in line for line in program.source_lines):
        return program.tree
    tree = program.tree
    local = set(traversal.names_stored(tree)) | {a.id for a in tree.args.args + tree.args.kwonlyargs}
    defs = {n.name for n in traversal.walk(tree) if isinstance(n, gast.FunctionDef) and n is not tree}
    rewriter = _Rewriter(program, local, defs, None)
    if not any(rewriter.ordering(n) is not None for n in traversal.walk(tree) if isinstance(n, gast.Call)):
        return tree
    tree = syntax.copy(tree)
    rewriter.namer = Namer.for_tree(tree)
    rewriter.namer.taken |= set(program.globals) | set(program.bound)
    rewriter.block(tree.body)
    return tree


class _Rewriter:
    def __init__(self, program, local, defs, namer):
        self.program, self.local, self.defs, self.namer = program, local, defs, namer

    def builtin(self, node, fn):
        """Whether the expression `node` means the builtin `fn`."""
        parts = dotted_parts(node)
        return parts is not None and parts[0] not in self.local and lookup_path(parts, self.program) is fn

    def ordering(self, node):
        """(whether reversed, the `sorted` call, "zip" or "enumerate", its sequences, the
        start of enumerate or None) where `node` is a call this module rewrites; else None."""
        if any(n in self.local or n in self.program.globals for n in _WRITTEN):
            return None  # the code written here would call the user's own
        backwards = False
        if (isinstance(node, gast.Call) and self.builtin(node.func, builtins.reversed) and len(node.args) == 1
                and not node.keywords):
            backwards, node = True, node.args[0]
        if not (isinstance(node, gast.Call) and self.builtin(node.func, builtins.sorted) and len(node.args) == 1
                and all(k.arg in ("key", "reverse") for k in node.keywords)):
            return None
        key = next((k.value for k in node.keywords if k.arg == "key"), None)
        if key is not None and not (_one_parameter(key) or isinstance(key, gast.Name) and key.id in self.defs):
            return None
        if isinstance(key, gast.Lambda) and any(isinstance(n, gast.Name) and n.id == key.args.args[0].id and not
                                                isinstance(n.ctx, gast.Load) for n in traversal.walk(key.body)):
            return None  # its parameter bound again inside it
        made = node.args[0]
        if not isinstance(made, gast.Call) or any(isinstance(a, gast.Starred) for a in made.args):
            return None
        if self.builtin(made.func, builtins.zip) and made.args and not made.keywords:
            return backwards, node, "zip", list(made.args), None
        if self.builtin(made.func, builtins.enumerate) and 1 <= len(made.args) <= 2 and all(
                k.arg == "start" for k in made.keywords) and len(made.args) + len(made.keywords) <= 2:
            start = made.args[1] if len(made.args) == 2 else next((k.value for k in made.keywords), None)
            return backwards, node, "enumerate", made.args[:1], start
        return None

    def block(self, stmts):
        out = []
        for s in stmts:
            if isinstance(s, _SCOPES):
                out.append(s)  # a scope of its own: its names are not the function's
                continue
            for inner in traversal.blocks_in(s):
                self.block(inner)
            pre = []
            if isinstance(s, gast.For) and self.ordering(s.iter) is not None:
                s = self.loop(s, pre)
            if not isinstance(s, gast.While):
                self.comprehensions(s, pre)
                self.listings(s, pre)
            out += pre + [s]
        stmts[:] = out

    def loop(self, s, pre):
        """`for target in sorted(...)`: over the positions, the target assigned first."""
        position = self.namer.fresh("position")
        s.iter, item = self.positions(s.iter, position, pre, s)
        s.body = [syntax.located(syntax.assign(syntax.copy(s.target), item), s)] + s.body
        s.target = syntax.name(position, store=True)
        return s

    def comprehensions(self, s, pre):
        """Rewrite the comprehensions of the statement `s` (not those of its blocks) whose
        first iterable is such a call and that run once where the statement runs."""
        for node, deferred in expressions(s):
            if deferred or not isinstance(node, _COMPREHENSIONS):
                continue
            gen = node.generators[0]
            if gen.is_async or self.ordering(gen.iter) is None:
                continue
            bound = {n.id for g in node.generators for n in traversal.walk(g.target) if isinstance(n, gast.Name)}
            stored = [n.id for n in traversal.walk(node) if isinstance(n, gast.Name) and not isinstance(n.ctx, gast.Load)]
            names = _target_names(gen.target)
            if names is None or any(stored.count(n) > 1 for n in names):
                continue  # rebound inside the comprehension: left as it was
            position = self.namer.fresh("position")
            iterable, item = self.positions(gen.iter, position, pre, s, keep=bound)
            if iterable is None:
                continue
            parts = _parts(gen.target, item)
            if parts is None:
                continue
            gen.iter, gen.target = iterable, syntax.name(position, store=True)
            for field in ("elt", "key", "value"):
                if getattr(node, field, None) is not None:
                    setattr(node, field, _substituted(getattr(node, field), parts))
            gen.ifs = [_substituted(c, parts) for c in gen.ifs]
            for later in node.generators[1:]:
                later.iter = _substituted(later.iter, parts)
                later.ifs = [_substituted(c, parts) for c in later.ifs]

    def listings(self, s, pre):
        """Each other such call of the statement `s` (not of its blocks) that runs once where
        `s` runs (`pairs = sorted(zip(keys, values))`, `list(reversed(sorted(...)))`): the
        list it makes, written as a comprehension over the ordered positions."""
        found, inside = {}, set()
        for node, deferred in expressions(s):  # outer nodes first
            if deferred or not isinstance(node, gast.Call) or id(node) in inside:
                continue
            call = node
            if (self.builtin(node.func, builtins.list) and len(node.args) == 1 and not node.keywords
                    and isinstance(node.args[0], gast.Call) and self.builtin(node.args[0].func, builtins.reversed)):
                call = node.args[0]  # list(reversed(sorted(...))): the list, in the reversed order
            ordering = self.ordering(call)
            if ordering is not None and (call is not node or not ordering[0]):
                position = self.namer.fresh("position")
                iterable, item = self.positions(call, position, pre, s)
                listed = syntax.list_comprehension(item, syntax.name(position, store=True), iterable)
                found[id(node)] = syntax.located(listed, node)
                inside |= {id(n) for n in traversal.walk(node)}
        if found:
            replace(s, found)

    def positions(self, iterable, position, pre, s, keep=()):
        """(`sorted(range(n), key=lambda position: ...)`, under `reversed` where it was, the
        entry at `position`) for the call `iterable`; the lists of its sequences go to
        `pre`. (None, None) where a sequence reads a name in `keep`."""
        backwards, call, how, sequences, start = self.ordering(iterable)
        if any(isinstance(n, gast.Name) and n.id in keep for a in sequences + [start] if a is not None for n in traversal.walk(a)):
            return None, None
        lists = []
        for a in sequences:
            listed = self.namer.fresh(f"{a.id}_entries" if isinstance(a, gast.Name) else "entries")
            made = syntax.copy(a) if isinstance(a, (gast.List, gast.Tuple)) else syntax.call("list", [syntax.copy(a)])
            pre.append(syntax.located(syntax.assign(listed, made), s))
            lists.append(listed)
        if start is not None and not isinstance(start, gast.Constant):
            first = self.namer.fresh("start")
            pre.append(syntax.located(syntax.assign(first, syntax.copy(start)), s))
            start = syntax.name(first)

        def entry(at):
            reads = [syntax.subscript(syntax.name(seq), syntax.name(at)) for seq in lists]
            if how == "enumerate":
                counted = syntax.name(at) if start is None else syntax.add(syntax.name(at), syntax.copy(start))
                reads = [counted] + reads
            return syntax.tuple_(reads)

        lengths = [syntax.call("len", [syntax.name(seq)]) for seq in lists]
        count = lengths[0] if len(lengths) == 1 else syntax.call("min", lengths)
        key = next((k.value for k in call.keywords if k.arg == "key"), None)
        if key is None:
            chosen = entry(position)
        elif isinstance(key, gast.Lambda):
            chosen = _substituted(key.body, {key.args.args[0].id: entry(position)})
        else:  # a function defined in the function
            chosen = syntax.call(key.id, [entry(position)])
        ordered = syntax.call(syntax.copy(call.func), [syntax.call("range", [count])], [
            ("key", syntax.lambda_([position], chosen))] + [
            ("reverse", syntax.copy(k.value)) for k in call.keywords if k.arg == "reverse"])
        if backwards:
            ordered = syntax.call(syntax.copy(iterable.func), [ordered])
        return syntax.located(ordered, iterable), entry(position)


def _one_parameter(node):
    args = node.args if isinstance(node, gast.Lambda) else None
    return (args is not None and len(args.args) == 1 and not (args.posonlyargs or args.vararg or args.kwonlyargs
                                                              or args.kwarg or args.defaults))


def _target_names(target):
    """The names a target of names and tuples of names binds, or None for any other target."""
    if isinstance(target, gast.Name):
        return [target.id]
    if isinstance(target, (gast.Tuple, gast.List)):
        names = [_target_names(t) for t in target.elts]
        return None if any(n is None for n in names) else [n for ns in names for n in ns]
    return None


def _parts(target, item):
    """{name: the expression it stands for} where `target` unpacks the tuple display
    `item`; None where the shapes differ."""
    if isinstance(target, gast.Name):
        return {target.id: item}
    if not (isinstance(target, (gast.Tuple, gast.List)) and isinstance(item, gast.Tuple)
            and len(target.elts) == len(item.elts)):
        return None
    found = {}
    for t, v in zip(target.elts, item.elts):
        more = _parts(t, v)
        if more is None:
            return None
        found.update(more)
    return found


def _substituted(node, parts):
    """A copy of the expression `node`, each read of a name of `parts` replaced by a copy
    of its expression (`p[1]` of a tuple display read as its entry)."""
    if isinstance(node, gast.Name):
        return syntax.copy(parts[node.id]) if isinstance(node.ctx, gast.Load) and node.id in parts else node
    if not isinstance(node, gast.AST):
        return node
    node = syntax.copy(node)
    for field in node._fields:
        value = getattr(node, field)
        if isinstance(value, list):
            setattr(node, field, [_substituted(v, parts) for v in value])
        elif isinstance(value, gast.AST):
            setattr(node, field, _substituted(value, parts))
    if (isinstance(node, gast.Subscript) and isinstance(node.value, gast.Tuple) and isinstance(node.slice, gast.Constant)
            and type(node.slice.value) is int and -len(node.value.elts) <= node.slice.value < len(node.value.elts)):
        return node.value.elts[node.slice.value]
    return node
