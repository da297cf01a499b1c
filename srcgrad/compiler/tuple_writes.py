"""Tuple assignments into an array, spelled as writes one after another that NumPy's
reading of views makes exact: a swap of elements, and of rows.

Before (user code):                     After:
    v[i], v[j] = v[j], v[i]                 v_j = v[j]
                                            v_i = v[i]
                                            v_i_is_view = is_view_of(v_i, v)
                                            v_i_copy = snapshot(v_i)
                                            v[i] = v_j
                                            v_i_now = v[i] if v_i_is_view else v_i_copy
                                            v[j] = v_i_now

Python evaluates the right-hand side first, then assigns the targets from left to
right. A value `v[i]` read from an array that an earlier target writes is the element
itself where `v` is a vector (a number of its own: the swap is a swap), but a view where
it is a row of a matrix: the write `v[j] = ...` then copies the row as it is by then, so
`A[0], A[1] = A[1], A[0]` leaves both rows equal to the old `A[1]`. Which one it is shows
only when the code runs (`is_view_of`), so both are written out: the copy taken when the
right-hand side is evaluated (a new value, which the writes cannot reach) or the part
read again at the write (where a view would have seen the earlier writes). Either way no
name holds a view of `v` across a write, which mutation.py would refuse.

A value is spelled so only where it is `C[index]` with `C` a name that an earlier target
writes into (`C[...] = ...`), `C` is not known to be a list or dict (whose entries are
never views: such swaps stay as written), the index is made of names, constants,
arithmetic and slices, and no target rebinds a name it reads (so it reads the same part
again). The other values are evaluated first into names of their own, in order. Only
targets of names and subscripts, nested where the value is written in the same shape
(`v[0], (v[1], v[2]) = v[2], (v[0], v[1])`, assigned as the flat tuple), no starred ones, no `:=`, in the function's own
body (not in nested functions). Returns a new tree where it rewrites anything, the same
tree otherwise; the helpers are bound in `program.bound` and `program.held`.
"""

import builtins

import gast

from .. import runtime
from . import syntax, traversal
from .naming import content_name
from .respelling import respell_blocks
from .scope import lookup_path

_INDEX_NODES = (gast.Constant, gast.Name, gast.BinOp, gast.UnaryOp, gast.Load, gast.operator, gast.unaryop,
                gast.Slice, gast.Tuple)
_CONTAINER_MAKERS = ("list", "dict", "sorted")  # builtins returning a new list or dict


def run(program):
    """`program.tree` with each tuple assignment that reads a part of an array an earlier
    target writes spelled as above."""
    tree = program.tree
    if not any(_rewritable(s) for s in _own_statements(tree)):
        return tree
    tree = syntax.copy(tree)
    rewriter = _Rewriter(program, tree)
    respell_blocks(tree, rewriter.respell)
    return tree


def _own_statements(node):
    """The statements of the function `node`, at any depth, outside nested functions and classes."""
    for field in ("body", "orelse", "finalbody", "handlers", "cases"):
        for s in getattr(node, field, None) or ():
            if isinstance(s, (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef)):
                continue
            yield s
            yield from _own_statements(s)


def _pairs(target, value):
    """[(target, value), ...] for the names and subscripts of the target `target` and the
    parts of `value` they are assigned, in the order Python assigns them, where `value`
    is written as a tuple or list display of the target's shape (`v[0], (v[1], v[2]) =
    v[2], (v[0], v[1])`: Python evaluates every part, then assigns depth first, left to
    right, as the flat `v[0], v[1], v[2] = v[2], v[0], v[1]` does); None otherwise."""
    if type(target) in (gast.Tuple, gast.List):
        if type(value) not in (gast.Tuple, gast.List) or len(value.elts) != len(target.elts):
            return None
        found = []
        for t, v in zip(target.elts, value.elts):
            more = _pairs(t, v)
            if more is None:
                return None
            found += more
        return found
    if type(target) is gast.Name or (type(target) is gast.Subscript and type(target.value) is gast.Name):
        return [(target, value)]
    return None


def _flat(stmt):
    """`_pairs` of the tuple assignment `stmt` (None for any other statement)."""
    if not (type(stmt) is gast.Assign and len(stmt.targets) == 1 and type(stmt.targets[0]) in (gast.Tuple, gast.List)):
        return None
    return _pairs(stmt.targets[0], stmt.value)


def _rewritable(stmt):
    """Whether `stmt` is `t1, ..., tn = e1, ..., en` (nested alike: `_pairs`) with some
    `ek` a part `C[index]` of a name `C` that an earlier target writes into (a cheap test,
    before `_Rewriter.reread`)."""
    pairs = _flat(stmt)
    if pairs is None:
        return False
    if any(type(n) in (gast.NamedExpr, gast.Starred) for n in traversal.walk(stmt)):
        return False
    written = set()
    for target, value in pairs:
        if type(value) is gast.Subscript and type(value.value) is gast.Name and value.value.id in written:
            return True
        if type(target) is gast.Subscript:
            written.add(target.value.id)
    return False


class _Rewriter:
    """Rewrites the function's blocks in place, binding the helpers once."""

    def __init__(self, program, tree):
        self.program = program
        self.namer = program.helper_namer()
        self.namer.taken |= set(traversal.names_stored(tree)) | {a.id for a in tree.args.args + tree.args.kwonlyargs}
        self.containers = _containers(tree, program)
        self.helpers = {}

    def respell(self, stmt):
        return self.rewritten(stmt) if _rewritable(stmt) else None

    def rewritten(self, stmt):
        """The statements `stmt` is spelled as, or None where no value needs it."""
        pairs = _flat(stmt)
        targets, values = [t for t, _ in pairs], [v for _, v in pairs]
        rebound = {t.id for t in targets if type(t) is gast.Name}
        written, rereads = set(), []
        for target, value in zip(targets, values):
            rereads.append(self.reread(value, written, rebound))
            if type(target) is gast.Subscript:
                written.add(target.value.id)
        if not any(rereads):
            return None
        first, later = [], []
        for k, (value, reread) in enumerate(zip(values, rereads)):
            if reread:
                held = self.fresh(value, "item")
                view, copied = self.namer.fresh(f"{held}_is_view"), self.namer.fresh(f"{held}_copy")
                first += [
                    syntax.assign(syntax.name(held, store=True), value),
                    syntax.assign(syntax.name(view, store=True), syntax.call(
                        self.helper("is_view_of"), [syntax.name(held), syntax.name(value.value.id)])),
                    syntax.assign(syntax.name(copied, store=True), syntax.call(self.helper("snapshot"), [syntax.name(held)])),
                ]
                now = self.namer.fresh(f"{held}_now")
                choice = gast.IfExp(test=syntax.name(view), body=syntax.copy(value), orelse=syntax.name(copied))
                later.append((now, choice))
            elif type(value) is gast.Constant or (type(value) is gast.Name and value.id not in rebound):
                later.append(value)
            else:
                held = self.fresh(value, "value")
                first.append(syntax.assign(syntax.name(held, store=True), value))
                later.append(syntax.name(held))
        out = first
        for target, value in zip(targets, later):
            if isinstance(value, tuple):  # the part read again where it is a view: as it is at this write
                now, choice = value
                out.append(syntax.assign(syntax.name(now, store=True), choice))
                value = syntax.name(now)
            out.append(syntax.assign(syntax.as_store(target), value))
        return out

    def reread(self, value, written, rebound):
        """Whether `value` is read again at its write (module doc)."""
        return (type(value) is gast.Subscript and type(value.value) is gast.Name and value.value.id in written
                and value.value.id not in self.containers and value.value.id not in rebound
                and all(isinstance(n, _INDEX_NODES) for n in traversal.walk(value.slice))
                and not set(traversal.names_read(value.slice)) & rebound)

    def fresh(self, value, fallback):
        return self.namer.fresh(content_name(value) or fallback)

    def helper(self, stem):
        """The name bound to the runtime helper `stem`, the same each time."""
        if stem not in self.helpers:
            fn = getattr(runtime, stem)
            name = self.helpers[stem] = self.namer.helper(stem, fn)
            self.program.bound[name] = self.program.held[name] = fn
        return syntax.name(self.helpers[stem])


def _containers(tree, program):
    """The local names every binding of which makes a new list or dict (a display, a
    comprehension, `list(...)`, `[0.0] * n`): their entries are never views."""
    made, other = set(), set()
    for s in _own_statements(tree):
        for target, value in _bindings(s):
            (made if _new_container(value, program) else other).add(target)
    params = {a.id for a in tree.args.args + tree.args.kwonlyargs + tree.args.posonlyargs}
    return made - other - params


def _bindings(stmt):
    """(name, value) for each name `stmt` itself binds (not the statements inside it);
    value None where it is not a plain `name = value`."""
    if type(stmt) is gast.Assign and len(stmt.targets) == 1 and type(stmt.targets[0]) is gast.Name:
        return [(stmt.targets[0].id, stmt.value)]
    targets = list(getattr(stmt, "targets", None) or ()) + [getattr(stmt, "target", None)]
    targets += [item.optional_vars for item in getattr(stmt, "items", None) or ()]
    return [(n.id, None) for t in targets if t is not None for n in traversal.walk(t)
            if type(n) is gast.Name and type(n.ctx) is gast.Store]


def _new_container(value, program):
    if type(value) in (gast.List, gast.ListComp, gast.Dict, gast.DictComp):
        return True
    if type(value) is gast.BinOp and type(value.op) is gast.Mult:
        return type(value.left) is gast.List or type(value.right) is gast.List
    if type(value) is gast.Call and type(value.func) is gast.Name and value.func.id in _CONTAINER_MAKERS:
        return lookup_path([value.func.id], program) is getattr(builtins, value.func.id)
    return False
