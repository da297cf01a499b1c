"""Shapes known for one call signature, and the `unbroadcast` calls they make redundant.

Given the shape of each parameter for one kind of call (`()` for Python and NumPy
scalars, `x.shape` for arrays), infer the shape of every local that a known operation
produces (arithmetic, ufuncs, 2-D matmul, full reductions, `x[t]` with an integer `t`,
`np.zeros((8, 32))`, `math.*`), then replace `unbroadcast(g, x)` in the backward pass
by `g` wherever both shapes are known and equal (and `np.size(x)` by its value). An
adjoint has its primal's shape.

Before (a and b are floats):        After:
    s_bar = unbroadcast(t2_bar, s)      s_bar = t2_bar

Dropping such a call changes no value: `unbroadcast` of a same-shaped gradient only
normalizes its type (a float32 cast, a NumPy scalar made a float), and the gradients
returned to the caller are still normalized. What the backward pass no longer reads,
the tape no longer saves.

The analysis is flow-insensitive: a name's shape is the join of the shapes of all its
assignments (unknown where they differ), computed optimistically to a fixed point, so
loop-carried values are covered. Anything not recognized has an unknown shape.
"""

import dataclasses
import math

import gast
import numpy as np

from .. import runtime
from ..rules import operators
from . import kinds, resolve, syntax
from .kinds import BOTTOM, TOP, join, strict  # the same lattice, over shapes


_MATMUL_ADJOINTS = (operators._matmul_vjp_x, operators._matmul_vjp_y)
_FULL_REDUCTIONS = {
    np.sum, np.mean, np.prod, np.max, np.min, np.amax, np.amin, np.linalg.norm, np.vdot, np.average, runtime.mean_of,
}
_CREATORS = {np.zeros, np.ones, np.empty, np.full}
_LIKE = {np.zeros_like, np.ones_like, np.empty_like, np.copy, np.array, np.asarray, np.conj, abs}
_SCALARS = {np.size, np.ndim, len, float, int, runtime.grad_seed}
# helper(args) -> the shape of which argument it returns
_SHAPE_OF_ARG = {
    runtime.unbroadcast: 1,
    runtime.unreduce: 1,
    runtime.zeros_like_grad: 0,
    operators._matmul_vjp_x: -2,
    operators._matmul_vjp_y: -1,
}


@dataclasses.dataclass(frozen=True)
class Signature:
    """One kind of call: every parameter, and what is known of each.

    `shapes`: name -> shape (parameters and a vjp's seed), where known; `types`:
    parameter name -> dtype for an array, type otherwise, where known.
    """

    params: tuple
    shapes: dict
    types: dict


def drop_unbroadcasts(forward, backward, signature, none_init, namer):
    """Rewrite `forward` and `backward` in place for one call `signature`.

    Returns `kinds.returned_as_is` for the rewritten code: which returned gradients need
    no `unbroadcast`.
    """
    unbroadcast = _helper_name(namer, runtime.unbroadcast)  # None: only np.size to fold
    env = _Shapes(signature.shapes, none_init, namer).solve(forward, backward)
    calls = _Resolver(namer)
    _visit(backward, _Drop(unbroadcast, env, calls, namer))
    unreduce = _helper_name(namer, runtime.unreduce)
    if unreduce is not None:
        returned = {namer.adjoint(p) for p in signature.params}
        _narrow_unreduces(backward, env, unreduce, calls, returned)
        _visit(backward, _Reassociate(env))
    kinds.fold_seeds(forward, env, signature, namer)
    kinds.fast_means(forward, backward, env, signature, namer)
    return kinds.returned_as_is(lambda: env.refresh(forward, backward), signature)


def _visit(stmts, transformer):
    for stmt in _statements(stmts):
        if isinstance(stmt, gast.For):
            stmt.iter = transformer.visit(stmt.iter)
        else:
            transformer.visit(stmt)


def _helper_name(namer, obj):
    for name, bound in namer.helpers.items():
        if bound is obj:
            return name
    return None


def _statements(stmts):
    """The simple statements of `stmts`, nested blocks included, and the `for` headers.

    Pseudo statements (tape markers) are skipped: a restore brings back a value the
    name already had.
    """
    for s in stmts:
        if dataclasses.is_dataclass(s) or not isinstance(s, gast.AST):
            continue
        if isinstance(s, (gast.If, gast.For, gast.While)):
            if isinstance(s, gast.For):
                yield s
            yield from _statements(s.body)
            yield from _statements(s.orelse)
        else:
            yield s


def _pseudo_stores(stmts):
    """Names assigned inside pseudo statements that hold statements (undo blocks, say)."""
    names = set()
    for s in stmts:
        if dataclasses.is_dataclass(s):
            for f in dataclasses.fields(s):
                v = getattr(s, f.name)
                for node in v if isinstance(v, list) else [v]:
                    if isinstance(node, gast.AST):
                        names.update(n.id for n in syntax.walk(node) if isinstance(n, gast.Name) and not isinstance(n.ctx, gast.Load))
                if isinstance(v, list):
                    names |= _pseudo_stores(v)
        elif isinstance(s, (gast.If, gast.For, gast.While)):
            names |= _pseudo_stores(s.body) | _pseudo_stores(s.orelse)
    return names


class _Resolver:
    """What the callee of a generated call is: a helper, or what the user's name means."""

    def __init__(self, namer):
        self.namer = namer

    def __call__(self, func):
        parts = []
        while isinstance(func, gast.Attribute):
            parts.append(func.attr)
            func = func.value
        if not isinstance(func, gast.Name):
            return None
        root = func.id
        if root in self.namer.helpers:
            obj = self.namer.helpers[root]
        elif root in self.namer.locals:
            return None
        else:
            obj = self.namer.scope(root)
            if obj is resolve._MISSING:
                return None
        for part in reversed(parts):
            obj = getattr(obj, part, None)
        return obj


class _Shapes:
    def __init__(self, shapes, none_init, namer):
        self.namer = namer
        self.given = dict(shapes)
        self.none_init = set(none_init)
        self.resolve = _Resolver(namer)

    def solve(self, forward, backward):
        env = self._collect(forward, backward)
        self.env = env
        self._fixed_point()
        return self

    def refresh(self, forward, backward):
        """Collect the definitions of the rewritten code again, keeping the shapes
        found (the rewrites keep every name's shape)."""
        env = self.env
        self._collect(forward, backward)
        self.env = env
        return self

    def _collect(self, forward, backward):
        defs, opaque, ints = [], set(), set()
        for block in (forward, backward):
            for stmt in _statements(block):
                if isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], gast.Name):
                    defs.append((stmt.targets[0].id, stmt.value))
                    stored = [n for n in syntax.walk(stmt.value) if isinstance(n, gast.Name) and not isinstance(n.ctx, gast.Load)]
                    opaque.update(n.id for n in stored)  # walrus and the like
                elif isinstance(stmt, gast.For):
                    target = stmt.target
                    if isinstance(target, gast.Name) and self._is_range(stmt.iter):
                        ints.add(target.id)
                    else:
                        opaque.update(n.id for n in syntax.walk(target) if isinstance(n, gast.Name))
                else:
                    opaque.update(
                        n.id for n in syntax.walk(stmt) if isinstance(n, gast.Name) and not isinstance(n.ctx, gast.Load)
                    )
        opaque |= _pseudo_stores(forward) | _pseudo_stores(backward)
        self.ints = {n for n in ints if n not in {d for d, _ in defs}}
        self.defs, self.opaque = defs, opaque
        env = {name: BOTTOM for name, _ in defs}
        env.update(self.given)
        for name in self.ints:
            env[name] = ()
        for name in opaque | self.none_init:
            env[name] = TOP
        adjoint_names = {name for name, _ in defs if self.namer.is_adjoint(name)} | {
            n for n in self.given if self.namer.is_adjoint(n)
        }
        for adj in adjoint_names:
            primal = self.namer.primal_of(adj)
            env[adj] = join(env.get(adj, BOTTOM), env.get(primal, TOP) if primal else TOP)
        self.adjoint_names = adjoint_names
        return env

    def _fixed_point(self):
        env, defs, adjoint_names = self.env, self.defs, self.adjoint_names
        changed = True
        while changed:
            changed = False
            for name, value in defs:
                if env.get(name) is TOP:
                    continue
                new = join(env[name], self.shape(value))
                if new != env[name]:
                    env[name] = new
                    changed = True
            for adj in adjoint_names:  # an adjoint has its primal's shape
                primal = self.namer.primal_of(adj)
                new = join(env[adj], env.get(primal, TOP) if primal else TOP)
                if new != env[adj]:
                    env[adj] = new
                    changed = True

    def _is_range(self, node):
        return isinstance(node, gast.Call) and self.resolve(node.func) is range

    # -- the shape of an expression ------------------------------------------------

    def shape(self, node):
        method = getattr(self, "_" + type(node).__name__, None)
        return TOP if method is None else method(node)

    def _Constant(self, node):
        v = node.value
        return () if isinstance(v, (int, float, complex)) else TOP

    def _Name(self, node):
        if node.id not in self.env and type(self.namer.helpers.get(node.id)) is np.float64:
            return ()  # a bound constant (the seed)
        return self.env.get(node.id, TOP)

    def _BinOp(self, node):
        left, right = self.shape(node.left), self.shape(node.right)
        if isinstance(node.op, gast.MatMult):
            return strict(_matmul, left, right)
        return strict(_broadcast, left, right)

    def _UnaryOp(self, node):
        return TOP if isinstance(node.op, gast.Not) else self.shape(node.operand)

    def _Compare(self, node):
        if len(node.ops) != 1 or isinstance(node.ops[0], (gast.Is, gast.IsNot, gast.In, gast.NotIn)):
            return TOP
        return strict(_broadcast, self.shape(node.left), self.shape(node.comparators[0]))

    def _Subscript(self, node):
        value, index = self.shape(node.value), node.slice
        integral = (isinstance(index, gast.Constant) and type(index.value) is int) or (
            isinstance(index, gast.Name) and index.id in self.ints
        )
        if not integral:
            return TOP
        return strict(lambda v: v[1:] if v else TOP, value)

    def _Attribute(self, node):
        if node.attr == "T":
            return strict(lambda v: tuple(reversed(v)), self.shape(node.value))
        return TOP

    def _Call(self, node):
        obj = self.resolve(node.func)
        args = node.args
        if obj is None or any(isinstance(a, gast.Starred) for a in args):
            return TOP
        keywords = {k.arg: k.value for k in node.keywords}
        try:
            hash(obj)
        except TypeError:
            return TOP
        if obj in _SHAPE_OF_ARG:
            index = _SHAPE_OF_ARG[obj]
            return self.shape(args[index]) if len(args) > max(index, -index - 1) else TOP
        if obj in (np.dot, np.matmul):  # before the ufuncs: np.matmul is one
            return strict(_matmul, *[self.shape(a) for a in args]) if len(args) == 2 and not keywords else TOP
        if _is_outer(obj) and len(args) == 2 and not keywords:
            return strict(lambda a, b: a + b, *[self.shape(a) for a in args])
        if isinstance(obj, np.ufunc):
            if obj.nout != 1 or len(args) != obj.nin or set(keywords) - {"dtype"}:
                return TOP
            return strict(_broadcast, *[self.shape(a) for a in args])
        if obj in _FULL_REDUCTIONS:
            if len(args) != 1 + (obj is np.vdot) or keywords:
                return TOP
            return strict(lambda *_: (), *[self.shape(a) for a in args])
        if obj in _SCALARS:
            return ()
        if obj in _LIKE:
            return self.shape(args[0]) if len(args) == 1 and not keywords else TOP
        if obj in _CREATORS:
            if not args or set(keywords) - {"dtype"} or len(args) > 1 + (obj is np.full):
                return TOP
            return _literal_shape(args[0])
        if obj is np.where and len(args) == 3 and not keywords:
            return strict(_broadcast, *[self.shape(a) for a in args])
        if _is_math(obj):
            if keywords:
                return TOP
            return strict(lambda *_: (), *[self.shape(a) for a in args])
        return TOP


def _is_outer(obj):
    """Whether `obj` is `np.multiply.outer` (each access makes a new bound method)."""
    return getattr(obj, "__self__", None) is np.multiply and getattr(obj, "__name__", None) == "outer"


def _is_math(obj):
    name = getattr(obj, "__name__", None)
    return name is not None and getattr(math, name, None) is obj


def _literal_shape(node):
    if isinstance(node, gast.Constant) and type(node.value) is int:
        return (node.value,)
    if isinstance(node, gast.Tuple) and all(isinstance(e, gast.Constant) and type(e.value) is int for e in node.elts):
        return tuple(e.value for e in node.elts)
    return TOP


def _broadcast(*shapes):
    try:
        return tuple(np.broadcast_shapes(*shapes))
    except ValueError:
        return TOP


def _matmul(a, b):
    if len(a) == 2 and len(b) == 2 and a[1] == b[0]:
        return (a[0], b[1])
    if len(a) == 1 and len(b) == 2 and a[0] == b[0]:
        return (b[1],)
    if len(a) == 2 and len(b) == 1 and a[1] == b[0]:
        return (a[0],)
    if len(a) == 1 and len(b) == 1 and a[0] == b[0]:
        return ()
    return TOP


_ADD_REDUCE = np.add.reduce


class _Drop(gast.NodeTransformer):
    """`unbroadcast(g, x)` -> `g` (same shapes) or `add_reduce(g, axes)` (the axes that
    broadcasting added in front); 2-D matrix-product adjoints -> `g @ y.T`, `x.T @ g`;
    `np.size(x)` -> its value."""

    def __init__(self, unbroadcast, shapes, resolve, namer):
        self.unbroadcast = unbroadcast
        self.shapes = shapes
        self.resolve = resolve
        self.namer = namer

    def visit_Call(self, node):
        self.generic_visit(node)
        if (
            isinstance(node.func, gast.Name)
            and node.func.id == self.unbroadcast
            and len(node.args) == 2
            and not node.keywords
        ):
            g, x = (self.shapes.shape(a) for a in node.args)
            if isinstance(g, tuple) and g == x:
                return node.args[0]
            if isinstance(g, tuple) and isinstance(x, tuple) and len(g) > len(x) and g[len(g) - len(x):] == x:
                extra = len(g) - len(x)  # sum the leading axes (the type is normalized on return)
                axes = gast.Constant(value=0, kind=None) if extra == 1 else gast.Tuple(
                    [gast.Constant(value=i, kind=None) for i in range(extra)], gast.Load())
                reduce = gast.Name(self.namer.helper("add_reduce", _ADD_REDUCE), gast.Load(), None, None)
                return gast.copy_location(gast.Call(reduce, [node.args[0], axes], []), node)
        elif len(node.args) == 4 and not node.keywords and self.resolve(node.func) in _MATMUL_ADJOINTS:
            g, _, a, b = node.args
            ga, sa, sb = self.shapes.shape(g), self.shapes.shape(a), self.shapes.shape(b)
            if (
                self.resolve(node.func) is operators._matmul_vjp_y
                and all(isinstance(s, tuple) for s in (ga, sa, sb))
                and len(sa) == 1 and len(sb) == 2 and ga == sb[1:] and sa == sb[:1]
            ):  # vector @ matrix: the rule's `x[..., None] * g[..., None, :]`, as one call
                outer = syntax.attr(syntax.name(self.namer.helper("np", np)), "multiply")
                return gast.copy_location(syntax.call(syntax.attr(outer, "outer"), [a, g]), node)
            if not all(isinstance(s, tuple) and len(s) == 2 for s in (ga, sa, sb)):
                return node
            transposed = lambda n: gast.Attribute(n, "T", gast.Load())  # noqa: E731
            if self.resolve(node.func) is operators._matmul_vjp_x and _matmul(ga, tuple(reversed(sb))) == sa:
                return gast.copy_location(gast.BinOp(g, gast.MatMult(), transposed(b)), node)
            if self.resolve(node.func) is operators._matmul_vjp_y and _matmul(tuple(reversed(sa)), ga) == sb:
                return gast.copy_location(gast.BinOp(transposed(a), gast.MatMult(), g), node)
        elif len(node.args) == 1 and not node.keywords and self.resolve(node.func) is np.size:
            shape = self.shapes.shape(node.args[0])
            if isinstance(shape, tuple):  # a known shape has a known size
                return gast.copy_location(gast.Constant(value=math.prod(shape), kind=None), node)
        return node


class _Reassociate(gast.NodeTransformer):
    """`s * (c * a)` -> `(s * c) * a` for a scalar `s` and a number `c`: one pass over
    the array `a` instead of two (the dtype is the same either way)."""

    def __init__(self, shapes):
        self.shapes = shapes

    def visit_BinOp(self, node):
        self.generic_visit(node)
        inner = node.right
        if (
            isinstance(node.op, gast.Mult)
            and isinstance(inner, gast.BinOp)
            and isinstance(inner.op, gast.Mult)
            and isinstance(inner.left, gast.Constant)
            and type(inner.left.value) in (int, float)
            and self.shapes.shape(node.left) == ()
            and self.shapes.shape(inner.right) not in (TOP, BOTTOM, ())
        ):
            scale = gast.BinOp(node.left, gast.Mult(), inner.left)
            return gast.copy_location(gast.BinOp(scale, gast.Mult(), inner.right), node)
        return node


# --- a spread seed that stays a scalar ------------------------------------------------


def _narrow_unreduces(backward, env, unreduce, resolve, returned):
    """`g_bar = unreduce(s, x, None, False)` with a scalar `s` becomes `g_bar = s` when
    only element-wise operations read `g_bar` and what follows from it.

    Before:  t_bar = unreduce(out_bar * 0.25, t, None, False)    After:  t_bar = out_bar * 0.25
             u_bar = -t_bar                                                u_bar = -t_bar
             z_bar = u_bar * y                                             z_bar = u_bar * y

    Sound because broadcasting commutes with element-wise operations: every name then
    holds either its old value or a scalar that broadcasts to it, and the check below
    ensures that only element-wise operations (whose result shapes it recomputes) read
    the scalars, and that no gradient returned to the caller is one of them.
    """
    for k, stmt in enumerate(backward):
        call = stmt.value if isinstance(stmt, gast.Assign) else None
        if not (
            isinstance(call, gast.Call)
            and isinstance(call.func, gast.Name)
            and call.func.id == unreduce
            and len(stmt.targets) == 1
            and isinstance(stmt.targets[0], gast.Name)
            and not call.keywords
            and len(call.args) == 4
            and all(isinstance(a, gast.Constant) for a in call.args[2:])
            and call.args[2].value is None
            and call.args[3].value is False
            and env.shape(call.args[0]) == ()
            and isinstance(env.shape(call.args[1]), tuple)
        ):
            continue
        narrowed = _stays_elementwise(backward[k + 1 :], {stmt.targets[0].id}, env, resolve, returned)
        if narrowed is not None:
            stmt.value = call.args[0]
            env.env.update(narrowed)  # scalars from here on (unknown where also arrays)


def _stays_elementwise(stmts, scalars, env, resolve, returned):
    """The new shapes (name -> () or unknown) if the narrowing is sound, else None."""
    saved = dict(env.env)
    ever, arrays = set(scalars), set()
    try:
        for stmt in stmts:
            for n in scalars:
                env.env[n] = ()
            if not isinstance(stmt, gast.AST):  # a tape marker
                if _marker_names(stmt) & scalars:
                    return None
                continue
            reads = {n.id for n in syntax.walk(stmt) if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load)}
            if isinstance(stmt, (gast.If, gast.For, gast.While)) or not isinstance(stmt, gast.Assign):
                if reads & scalars or _stores(stmt) & scalars or _pseudo_stores([stmt]) & scalars:
                    return None  # a block or another statement touches a scalar
                continue
            target = stmt.targets[0]
            if len(stmt.targets) != 1 or not isinstance(target, gast.Name):
                if reads & scalars:
                    return None
                continue
            if not reads & scalars:
                scalars.discard(target.id)
                arrays.add(target.id)
                continue
            if not _elementwise(stmt.value, scalars, resolve):
                return None
            old, new = saved.get(target.id), env.shape(stmt.value)
            if not isinstance(old, tuple):
                return None
            if new == old:
                scalars.discard(target.id)
                arrays.add(target.id)
            elif new == ():
                scalars.add(target.id)
                ever.add(target.id)
            else:
                return None
        if scalars & returned:
            return None
        return {n: TOP if n in arrays else () for n in ever}
    finally:
        env.env.clear()
        env.env.update(saved)


def _marker_names(marker):
    names = set()
    for f in dataclasses.fields(marker):
        v = getattr(marker, f.name)
        for node in v if isinstance(v, list) else [v]:
            if isinstance(node, str):
                names.add(node)
            elif isinstance(node, (set, frozenset)):
                names |= {n for n in node if isinstance(n, str)}
            elif dataclasses.is_dataclass(node):
                names |= _marker_names(node)
            elif isinstance(node, gast.AST):
                names.update(n.id for n in syntax.walk(node) if isinstance(n, gast.Name))
    return names


def _stores(stmt):
    return {n.id for n in syntax.walk(stmt) if isinstance(n, gast.Name) and not isinstance(n.ctx, gast.Load)}


def _elementwise(node, scalars, resolve):
    """Whether every read of a name in `scalars` under `node` is an operand of
    element-wise operations only (arithmetic but `@`, unary minus, one-output ufuncs)."""
    if isinstance(node, (gast.Name, gast.Constant)):
        return True
    if isinstance(node, gast.BinOp) and not isinstance(node.op, gast.MatMult):
        return _elementwise(node.left, scalars, resolve) and _elementwise(node.right, scalars, resolve)
    if isinstance(node, gast.UnaryOp) and isinstance(node.op, (gast.USub, gast.UAdd)):
        return _elementwise(node.operand, scalars, resolve)
    if isinstance(node, gast.Call) and not node.keywords:
        fn = resolve(node.func)
        if isinstance(fn, np.ufunc) and fn.nout == 1 and len(node.args) == fn.nin:
            return all(_elementwise(a, scalars, resolve) for a in node.args)
    return not any(isinstance(n, gast.Name) and n.id in scalars for n in syntax.walk(node))
