"""Sums and products built up in place in a jvp specialized to one kind of call.

Where the shape and dtype analyses (shapes.py, kinds.py) prove that a fresh array already
has the shape and dtype of the value computed from it, that value is computed into it
(`+=`, `*=`, a ufunc's `out=`) instead of into a new array: no allocation, and one pass
less over memory. Each value is the very same, bit for bit: NumPy computes `a += b` as
`a + b` when `a` has the result's shape and dtype.

Before (float64 arrays, shapes known):      After:
    h_at_W = h @ W                              t1_plus_b = h @ W
    h_at_W_dot = h_dot @ W + h @ W_dot          h_dot = h_dot @ W
    _t1 = h_at_W + x_t_at_U                     h_dot += h @ W_dot
    t1_plus_b = _t1 + b                         t1_plus_b += x_t_at_U
    t1_plus_b_dot = h_at_W_dot + x_dot[t]       t1_plus_b += b
    h = np.tanh(t1_plus_b)                      h_dot += x_dot[t]
    h_dot = t1_plus_b_dot * (1.0 - h * h)       h = np.tanh(t1_plus_b, out=t1_plus_b)
                                                h_dot *= 1.0 - h * h

A value is reused only where nothing else can see it: the left operand of the operator
is an expression (`h_dot @ W`), or a name assigned once, to an arithmetic result or a
ufunc's, in the same block, and read only there (so no alias of it exists). The name
then takes the result's name where that name is neither read nor assigned in between.
"""

import gast
import numpy as np

from .. import runtime
from . import kinds as kinds_module
from . import syntax, traversal
from .kinds import _ARRAYS
from .shapes import _Shapes
from .unbroadcasts import mean_places

_IN_PLACE_OPS = (gast.Add, gast.Sub, gast.Mult, gast.Div)
_SCOPES = (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda, gast.ClassDef, gast.Global, gast.Nonlocal)
_COMMUTATIVE = (gast.Add, gast.Mult)  # bit for bit: IEEE sums and products do not depend on the order


def run(tree, signature, namer):
    """Rewrite the jvp FunctionDef `tree` in place for the call `signature` (not where a
    nested function or a scope declaration could read a local otherwise than by its name)."""
    if any(type(node) in _SCOPES for node in traversal.walk(tree) if node is not tree):
        return
    solved, kinds = _analyses(tree, signature, namer)
    if _drop_broadcasts(tree, _Proof(solved, kinds.analysis()), namer):
        solved, kinds = _analyses(tree, signature, namer)  # the kinds of the tangents passed on as they are
    # `np.mean(t)` of a float array: `mean_of(t)`, the same value without NumPy's Python-level overhead
    kinds_module.fast_means(mean_places(solved.calls, solved.resolve), solved, kinds, namer)
    proof = _Proof(solved, kinds.analysis())
    counts = _Counts(tree, solved.resolve)
    _blocks(tree.body, proof, counts)


def _analyses(tree, signature, namer):
    """The shapes of the jvp `tree`'s values for the call `signature`, and their kinds
    (`kinds.solver`)."""
    solved = _Shapes(signature.shapes, (), namer).solve(tree.body, [])
    return solved, kinds_module.solver(solved, signature)


def _drop_broadcasts(tree, proof, namer):
    """`broadcast_tangent(t, x)` -> `t` where `t` and `x` are arrays of the same shape and
    dtype (it returns `t` itself then). Returns whether one was dropped."""
    helper = kinds_module._helper_name(namer, runtime.broadcast_tangent)
    if helper is None:
        return False
    dropped = []

    def drop(call):
        if (type(call.func) is gast.Name and call.func.id == helper and len(call.args) == 2 and not call.keywords
                and proof.same(*call.args)):
            dropped.append(call)
            return call.args[0]
        return call

    for stmt in tree.body:
        traversal.rewrite(stmt, {gast.Call: drop})
    return bool(dropped)


class _Proof:
    """Whether an expression is an array (of at least one dimension) of the shape and dtype
    of another: the analyses of the code before the rewrite (each name keeps its shape and
    kind: a name renamed takes one of the same shape and kind)."""

    def __init__(self, solved, found):
        self.solved, self.found = solved, found

    def same(self, node, other):
        shape = self.solved.shape(node)
        kind = self.found.kind(node)
        return (kind in _ARRAYS and isinstance(shape, tuple) and shape != () and self.found.kind(other) == kind
                and self.solved.shape(other) == shape)


class _Counts:
    """Reads and assignments of each name in the function (a name assigned once and read
    once can be reused: no other reference to its array exists)."""

    def __init__(self, tree, resolve):
        self.resolve = resolve
        self.reads, self.stores = {}, {}
        for node in traversal.walk(tree):
            if type(node) is gast.Name:
                table = self.reads if type(node.ctx) is gast.Load else self.stores
                table[node.id] = table.get(node.id, 0) + 1

    def is_ufunc_call(self, call):
        """Whether `call` is a ufunc's of one output and no keyword (a fresh array or scalar)."""
        func = self.resolve(call.func)
        return isinstance(func, np.ufunc) and func.nout == 1 and not call.keywords


def _blocks(stmts, proof, counts):
    for stmt in stmts:
        for field in ("body", "orelse"):
            inner = getattr(stmt, field, None)
            if inner and type(stmt) is not gast.FunctionDef:
                _blocks(inner, proof, counts)
    i = 0
    while i < len(stmts):
        i += _rewrite(stmts, i, proof, counts)


def _rewrite(stmts, i, proof, counts):
    """Rewrite `stmts[i]` where it can be; returns how many statements to move on by."""
    stmt = stmts[i]
    if type(stmt) is not gast.Assign or len(stmt.targets) != 1 or type(stmt.targets[0]) is not gast.Name:
        return 1
    target, value = stmt.targets[0].id, stmt.value
    if type(value) is gast.Call:
        _ufunc_into_operand(stmts, i, value, proof, counts)
        return 1
    if type(value) is not gast.BinOp or type(value.op) not in _IN_PLACE_OPS:
        return 1
    for left, right in _orders(value):
        if _mentions(right, target):
            continue
        if type(left) is gast.BinOp and proof.same(left, value):  # a fresh array of no name
            counts.stores[target] = counts.stores.get(target, 0) + 1
            stmts[i:i + 1] = [_assign(target, left, stmt), _augment(target, value.op, right, stmt)]
            return 2
        if type(left) is gast.Name and _takes_name(stmts, i, left.id, target, counts) and proof.same(left, value):
            _rename(stmts, i, left.id, target, counts)
            stmts[i] = _augment(target, value.op, right, stmt)
            return 1
    return 1


def _orders(binop):
    """(left, right) operand pairs the operator can take in place into the left one."""
    yield binop.left, binop.right
    if type(binop.op) in _COMMUTATIVE:
        yield binop.right, binop.left


def _ufunc_into_operand(stmts, i, call, proof, counts):
    """`y = np.tanh(a)` -> `y = np.tanh(a, out=a)` where `a` may be reused."""
    if len(call.args) != 1 or call.keywords or type(call.args[0]) is not gast.Name:
        return
    func = proof.solved.resolve(call.func)
    if not isinstance(func, np.ufunc) or func.nin != 1 or func.nout != 1 or func.signature is not None:
        return
    name = call.args[0].id
    if _fresh_once(stmts, i, name, counts) is not None and proof.same(call.args[0], call):
        call.keywords = [gast.keyword(arg="out", value=syntax.name(name))]


def _fresh_once(stmts, i, name, counts):
    """The index of the statement before `stmts[i]` in the same block that assigns `name` a
    fresh array (an arithmetic result or a ufunc's), where `name` is assigned there (and in
    augmented assignments right after) and read only in `stmts[i]`; else None."""
    if counts.reads.get(name) != 1:
        return None
    stores = 0
    for j in range(i - 1, -1, -1):
        stmt = stmts[j]
        if type(stmt) is gast.AugAssign and type(stmt.target) is gast.Name and stmt.target.id == name:
            stores += 1
            continue
        if type(stmt) is gast.Assign and len(stmt.targets) == 1 and type(stmt.targets[0]) is gast.Name and (
                stmt.targets[0].id == name):
            fresh = type(stmt.value) is gast.BinOp or type(stmt.value) is gast.Call and counts.is_ufunc_call(stmt.value)
            return j if fresh and counts.stores.get(name) == stores + 1 else None
    return None


def _takes_name(stmts, i, name, target, counts):
    """Whether `name` (read once, in `stmts[i]`, assigning `target`) may be renamed `target`
    from its assignment on: `target` is neither read nor assigned in between."""
    start = _fresh_once(stmts, i, name, counts)
    if start is None:
        return False
    between = stmts[start + 1:i]
    return not any(_mentions(s, target) for s in between) and not _stores(stmts[start], target)


def _rename(stmts, i, name, target, counts):
    """Rename `name` to `target` in the statements before `stmts[i]` that assign it."""
    counts.stores[target] = counts.stores.get(target, 0) + counts.stores.pop(name, 0)
    for stmt in stmts[:i]:
        for node in traversal.walk(stmt):
            if type(node) is gast.Name and node.id == name:
                node.id = target


def _mentions(node, name):
    return any(type(n) is gast.Name and n.id == name for n in traversal.walk(node))


def _stores(stmt, name):
    return any(type(n) is gast.Name and n.id == name and type(n.ctx) is not gast.Load for n in traversal.walk(stmt))


def _assign(target, value, like):
    return gast.copy_location(syntax.assign(target, value), like)


def _augment(target, op, value, like):
    return gast.copy_location(syntax.aug_assign(target, op, value), like)
