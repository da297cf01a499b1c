"""The kind of value each forward-pass name holds for one call signature, and the seed
of `grad` that it fixes.

Before (the output is a NumPy float64):    After:
    out = np.mean(t)                           out = np.mean(t)
    out_bar = grad_seed(out, 'f')              out_bar = SEED64

`grad_seed` returns 1 in the output's type, and checks that the output is a scalar. When
the analysis proves the output a Python float (seed `1.0`) or a NumPy float64 scalar
(seed `runtime.SEED64`, the very value `grad_seed` would return) of shape `()`, the
seed becomes that constant and the output, no longer read, may go as dead code.

Kinds: FLOAT (a Python float), INT (a Python int), F64 (a float64 array of at least one
dimension, or a `np.float64` scalar: shapes.py tells which). A 0-d array parameter is of
no kind, since NumPy operations on it return scalars while it is an array. The analysis
is flow-insensitive like `shapes.py`'s (a join over all assignments, optimistic to a
fixed point); what it does not recognize has no kind, and then nothing changes.
"""

import math

import gast
import numpy as np

from .. import runtime

FLOAT, INT, F64 = "float", "int", "float64"
BOTTOM = "bottom"  # the lattice shared with shapes.py: no assignment seen yet
TOP = None  # unknown
_NUMBERS = (FLOAT, INT, F64)
_REDUCTIONS = {np.sum, np.mean, np.prod, np.max, np.min, np.amax, np.amin, np.linalg.norm, np.average}
_CREATORS = {np.zeros, np.ones, np.empty}
_MATH_FLOATS = {
    getattr(math, n) for n in (
        "sin cos tan asin acos atan atan2 sinh cosh tanh asinh acosh atanh exp expm1 log log1p log2 "
        "log10 sqrt pow fabs hypot erf erfc gamma lgamma"
    ).split()
}
_F64 = np.dtype(np.float64)
_LIKE_ARG = {runtime.unbroadcast: 1, runtime.zeros_like_grad: 0}  # the argument whose kind the result has


def fold_seeds(forward, solved, signature, namer):
    """Replace `x_bar = grad_seed(out, name)` in `forward` (top level) by a constant seed.

    `solved` is the shape analysis of the same code (`shapes._Shapes`), `signature`
    the call's `shapes.Signature`.
    """
    seed_fn = _helper_name(namer, runtime.grad_seed)
    if seed_fn is None:
        return
    kinds = None
    for stmt in forward:
        value = getattr(stmt, "value", None)
        if not (
            isinstance(stmt, gast.Assign)
            and isinstance(value, gast.Call)
            and isinstance(value.func, gast.Name)
            and value.func.id == seed_fn
            and value.args
            and isinstance(value.args[0], gast.Name)
        ):
            continue
        out = value.args[0].id
        if solved.env.get(out) != ():
            continue
        if kinds is None:
            kinds = _Kinds(solved, signature).solve()
        kind = kinds.get(out)
        if kind == FLOAT:
            stmt.value = gast.copy_location(gast.Constant(value=1.0, kind=None), value)
        elif kind == F64:
            stmt.value = gast.copy_location(gast.Name(namer.helper("SEED64", runtime.SEED64), gast.Load(), None, None), value)


def returned_as_is(solve, signature):
    """A predicate `same(adjoint, param)`: whether `unbroadcast(adjoint, param)` at the
    return provably gives back the adjoint's value unchanged (same type, shape and dtype
    as the parameter's gradient), so the call can go. `solve()` gives the shape analysis
    of the final code (`shapes._Shapes`), run at the first question."""
    found = []

    def same(adjoint, param):
        if not found:
            solved = solve()
            found.append((solved, _Kinds(solved, signature).solve()))
        solved, kinds = found[0]
        kind, shape = kinds.get(adjoint), solved.env.get(adjoint)
        t, wanted = signature.types.get(param), signature.shapes.get(param)
        if t is float:
            return kind == FLOAT
        if t is np.float64 or (t == _F64 and wanted):
            return kind == F64 and shape == wanted and isinstance(shape, tuple)
        return False

    return same


def _helper_name(namer, obj):
    for name, bound in namer.helpers.items():
        if bound is obj:
            return name
    return None


class _Kinds:
    def __init__(self, solved, signature):
        self.solved = solved
        self.resolve = solved.resolve
        self.env = {}
        for name, t in signature.types.items():
            shape = signature.shapes.get(name)
            if t == _F64 and shape:  # an array of at least one dimension
                self.env[name] = F64
            elif t is float:
                self.env[name] = FLOAT
            elif t is int:
                self.env[name] = INT
            elif t is np.float64:
                self.env[name] = F64
            else:
                self.env[name] = TOP

    def solve(self):
        env, defs = self.env, self.solved.defs
        for name, _ in defs:
            if name not in env:
                env[name] = BOTTOM
        for name in self.solved.opaque | self.solved.ints | self.solved.none_init:
            env[name] = TOP
        for name in self.solved.ints:
            env[name] = INT
        changed = True
        while changed:
            changed = False
            for name, value in defs:
                if env.get(name) is TOP:
                    continue
                new = join(env[name], self.kind(value))
                if new != env[name]:
                    env[name], changed = new, True
        return env

    def kind(self, node):
        method = getattr(self, "_" + type(node).__name__, None)
        return TOP if method is None else method(node)

    def _Constant(self, node):
        t = type(node.value)
        return FLOAT if t is float else INT if t is int else TOP

    def _Name(self, node):
        if node.id not in self.env and type(self.solved.namer.helpers.get(node.id)) is np.float64:
            return F64  # a bound constant: the seed, or arithmetic of it
        return self.env.get(node.id, TOP)

    def _BinOp(self, node):
        kinds = [self.kind(node.left), self.kind(node.right)]
        if isinstance(node.op, gast.MatMult):
            return strict(lambda a, b: F64 if a == b == F64 else TOP, *kinds)
        if not isinstance(node.op, (gast.Add, gast.Sub, gast.Mult, gast.Div, gast.Pow, gast.FloorDiv, gast.Mod)):
            return TOP

        def combine(a, b):
            if F64 in (a, b):
                return F64
            if FLOAT in (a, b) and not isinstance(node.op, gast.Pow):  # (-1.0) ** 0.5 is complex
                return FLOAT
            if isinstance(node.op, gast.Div):
                return FLOAT  # int / int
            return TOP  # int op int: an int

        return strict(combine, *kinds)

    def _UnaryOp(self, node):
        return self.kind(node.operand) if isinstance(node.op, (gast.USub, gast.UAdd)) else TOP

    def _Subscript(self, node):
        index = node.slice
        integral = (isinstance(index, gast.Constant) and type(index.value) is int) or (
            isinstance(index, gast.Name) and index.id in self.solved.ints
        )
        if not integral or self.solved.shape(node.value) in (TOP, BOTTOM, ()):
            return TOP
        return strict(lambda v: v if v == F64 else TOP, self.kind(node.value))

    def _Attribute(self, node):
        return self.kind(node.value) if node.attr == "T" else TOP

    def _Call(self, node):
        obj = self.resolve(node.func)
        args = node.args
        if obj is None or node.keywords or any(isinstance(a, gast.Starred) for a in args):
            return TOP
        try:
            hash(obj)
        except TypeError:
            return TOP
        kinds = [self.kind(a) for a in args]
        if obj in _LIKE_ARG and len(args) > _LIKE_ARG[obj]:  # a gradient shaped like an argument
            return strict(lambda k: k if k in (F64, FLOAT) else TOP, kinds[_LIKE_ARG[obj]])
        if getattr(obj, "__self__", None) is np.add and getattr(obj, "__name__", None) == "reduce" and len(args) == 2:
            return strict(lambda k: F64 if k == F64 else TOP, kinds[0])
        if obj is runtime.unreduce and self.solved.shape(node) not in (TOP, BOTTOM, ()):
            return strict(lambda k: F64 if k in (F64, FLOAT) else TOP, kinds[0])  # np.broadcast_to(g, x.shape)
        if isinstance(obj, np.ufunc):
            if obj.nout != 1 or len(args) != obj.nin or _ufunc_out(obj) != _F64:
                return TOP
            return strict(lambda *ks: F64 if all(k in _NUMBERS for k in ks) and set(ks) != {INT} else TOP, *kinds)
        if obj in _REDUCTIONS:
            return strict(lambda k: F64 if k in (F64, FLOAT) else TOP, *kinds) if len(args) == 1 else TOP
        if obj in (np.dot, np.matmul):
            return strict(lambda a, b: F64 if a == b == F64 else TOP, *kinds) if len(args) == 2 else TOP
        if obj in _MATH_FLOATS:
            return strict(lambda *ks: FLOAT if all(k in _NUMBERS for k in ks) else TOP, *kinds)
        if obj is float and len(args) == 1:
            return strict(lambda k: FLOAT if k in _NUMBERS else TOP, *kinds)
        if obj in _CREATORS and len(args) == 1:
            return F64 if self.solved.shape(node) not in (TOP, BOTTOM, ()) else TOP
        return TOP


_UFUNC_OUT = {}


def _ufunc_out(ufunc):
    """The output dtype of `ufunc` on float64 inputs (None when it has no such loop)."""
    if ufunc not in _UFUNC_OUT:
        try:
            _UFUNC_OUT[ufunc] = ufunc.resolve_dtypes((_F64,) * ufunc.nin + (None,))[-1]
        except (TypeError, ValueError, AttributeError):  # no float64 loop
            _UFUNC_OUT[ufunc] = None
    return _UFUNC_OUT[ufunc]


def strict(fn, *kinds):
    if any(k is BOTTOM for k in kinds):
        return BOTTOM
    if any(k is TOP for k in kinds):
        return TOP
    return fn(*kinds)


def join(a, b):
    if a is BOTTOM:
        return b
    if b is BOTTOM:
        return a
    return a if a == b else TOP
