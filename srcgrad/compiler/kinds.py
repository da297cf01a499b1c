"""The kind of value each forward-pass name holds for one call signature, and the seed
of `grad` that it fixes.

Before (the output is a NumPy float64):    After:
    out = np.mean(t)                           out = np.mean(t)
    out_bar = grad_seed(out, 'f')              out_bar = SEED64

`grad_seed` returns 1 in the output's type, and checks that the output is a scalar. When
the analysis proves the output a Python float (seed `1.0`) or a NumPy float64 scalar
(seed `runtime.SEED64`, the very value `grad_seed` would return) of shape `()`, the
seed becomes that constant and the output, no longer read, may go as dead code.

Float32 (and float16) values work alike: the seed of a `np.float32` output is
`runtime.SEED32`, and gradients of float32 arrays are returned as they are where the
analysis proves them float32 arrays of the parameter's shape.

Kinds: FLOAT (a Python float), INT (a Python int), F64 / F32 / F16 (an array of that
native dtype of at least one dimension, or a NumPy scalar of it: shapes.py tells which).
Where NumPy's type promotion differs between versions (NumPy 1.x promotes by the value of
a Python number or NumPy scalar mixed with arrays, NumPy 2 by type: NEP 50), the result
has a kind only where the promotion of the running NumPy gives it for every value the
operands may hold. A 0-d array parameter is of no kind, since NumPy operations on it return scalars while it is an array. The analysis
is flow-insensitive like `shapes.py`'s (a join over all assignments, optimistic to a
fixed point); what it does not recognize has no kind, and then nothing changes.
"""

import math

import gast
import numpy as np

from .. import runtime
from .entries import entry_read
from .traversal import rewrite

FLOAT, INT, F64, F32, F16 = "float", "int", "float64", "float32", "float16"
BOTTOM = "bottom"  # the lattice shared with shapes.py: no assignment seen yet
TOP = None  # unknown
_ARRAYS = (F64, F32, F16)  # NumPy floats (kind names are their dtypes' names)
_NUMBERS = (FLOAT, INT) + _ARRAYS
_SCALAR_KINDS = {np.float64: F64, np.float32: F32, np.float16: F16}
_SEEDS = {F64: ("SEED64", runtime.SEED64), F32: ("SEED32", runtime.SEED32)}  # what grad_seed returns
_REDUCTIONS = {
    np.sum, np.mean, np.prod, np.max, np.min, np.amax, np.amin, np.linalg.norm, np.average, runtime.mean_of,
}
# reductions that also take `axis` (second) and `keepdims` (shapes.py finds their shapes)
AXIS_REDUCTIONS = {np.sum, np.mean, np.prod, np.max, np.min, np.amax, np.amin}
_CREATORS = {np.zeros, np.ones, np.empty}
_MATH_FLOATS = {
    getattr(math, n) for n in (
        "sin cos tan asin acos atan atan2 sinh cosh tanh asinh acosh atanh exp expm1 log log1p log2 "
        "log10 sqrt pow fabs hypot erf erfc gamma lgamma"
    ).split()
}
# NEP 50 (NumPy 2): a Python number takes the dtype of the NumPy value it meets; before,
# a NumPy scalar met with a Python float gives float64
_WEAK_PYTHON_NUMBERS = type(np.float32(1.0) * 1.0) is np.float32 and type(np.float16(1.0) * 2) is np.float16
_LIKE_ARG = {runtime.unbroadcast: 1, runtime.zeros_like_grad: 0}  # the argument whose kind the result has


def fold_seeds(forward, solved, kinds, namer):
    """Replace `x_bar = grad_seed(out, name)` in `forward` (top level) by a constant seed.

    `solved` is the shape analysis of the same code (`shapes._Shapes`), `kinds()` the
    kinds of its definitions (`solver`): the same before and after the fold.
    """
    seed_fn = _helper_name(namer, runtime.grad_seed)
    if seed_fn is None:
        return
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
        kind = kinds().get(out)
        if kind == FLOAT:
            stmt.value = gast.copy_location(gast.Constant(value=1.0, kind=None), value)
        elif kind in _SEEDS:
            stmt.value = gast.copy_location(gast.Name(namer.helper(*_SEEDS[kind]), gast.Load(), None, None), value)


def solver(solved, signature):
    """A function giving the kinds of the definitions of `solved` (a `shapes._Shapes`)
    for the call `signature`, solved at its first call.

    One analysis serves `fold_seeds`, `fast_means` and `returned_as_is`: neither rewrite
    changes a kind (`grad_seed(out)` has the kind of its constant where it folds, and
    `mean_of(t)` that of `np.mean(t)`)."""
    found = []

    def analysis():
        if not found:
            solver = _Kinds(solved, signature)
            solver.solve()
            found.append(solver)
        return found[0]

    def kinds():
        return analysis().env

    kinds.analysis = analysis
    return kinds


def returned_as_is(solved, kinds, signature):
    """A predicate `same(adjoint, param)`: whether `unbroadcast(adjoint, param)` at the
    return provably gives back the adjoint's value unchanged (same type, shape and dtype
    as the parameter's gradient), so the call can go. `solved` is the shape analysis of
    the rewritten code (`shapes._Shapes`, its tape markers not yet lowered), `kinds()`
    the kinds of its definitions (`solver`)."""

    def same(adjoint, param, like=None):
        """`like`: (shape, type) of the value in place of the parameter's (an entry of it:
        entries.py)."""
        kind, shape = kinds().get(adjoint), solved.env.get(adjoint)
        wanted, t = like if like is not None else (signature.shapes.get(param), signature.types.get(param))
        if t is float:
            return kind == FLOAT
        wanted_kind = _param_kind(t, wanted)
        return wanted_kind in _ARRAYS and kind == wanted_kind and shape == wanted and isinstance(shape, tuple)

    return same


def fast_means(places, solved, kinds, namer):
    """`np.mean(t)` -> `mean_of(t)` (the same value, bit for bit, faster) in place, where
    `t` is provably an ndarray of float64, float32 or float16 of at least one dimension.

    `places`: every (statement, None) or (block statement, header field) whose code holds
    an `np.mean` call; nothing else changes. `kinds()`: the kinds of the code (`solver`).
    """
    if not places:
        return
    means = {gast.Call: _FastMeans(solved, kinds(), namer).visit_Call}
    for stmt, field in places:
        if field is None:
            rewrite(stmt, means)
        else:
            setattr(stmt, field, rewrite(getattr(stmt, field), means))


class _FastMeans:
    def __init__(self, solved, kinds, namer):
        self.solved, self.kinds, self.namer = solved, kinds, namer

    def visit_Call(self, node):
        defaults = {"axis": None, "keepdims": False}
        if not (
            len(node.args) == 1
            and not isinstance(node.args[0], gast.Starred)
            and all(
                k.arg in defaults and isinstance(k.value, gast.Constant) and k.value.value is defaults[k.arg]
                for k in node.keywords
            )
            and self.solved.resolve(node.func) is np.mean
        ):
            return node
        arg = node.args[0]  # a name, after ANF
        shape = self.solved.shape(arg)
        if not isinstance(arg, gast.Name) or self.kinds.get(arg.id) not in _ARRAYS or not isinstance(shape, tuple) or not shape:
            return node
        helper = gast.Name(self.namer.helper("mean_of", runtime.mean_of), gast.Load(), None, None)
        return gast.copy_location(gast.Call(helper, [arg], []), node)


def _param_kind(t, shape):
    """The kind of a parameter of type (or array dtype) `t` and `shape`."""
    if isinstance(t, np.dtype):
        if not shape:
            return TOP
        kind = _DTYPE_KINDS.get(t, _ABSENT)
        if kind is _ABSENT:  # `dtype.name` makes a new string at each read
            kind = _DTYPE_KINDS[t] = t.name if t.isnative and t.name in _ARRAYS else TOP
        return kind
    if t is float:
        return FLOAT
    if t is int:
        return INT
    return _SCALAR_KINDS.get(t, TOP) if isinstance(t, type) else TOP


def _helper_name(namer, obj):
    for name, bound in namer.helpers.items():
        if bound is obj:
            return name
    return None


class _Kinds:
    def __init__(self, solved, signature):
        self.solved = solved
        self.resolve = solved.resolve
        self.reads = None  # a list while `solve` evaluates a definition
        self.callees = {}  # name -> what a call of it calls
        self.env = {}
        for name, t in signature.types.items():
            self.env[name] = _param_kind(t, signature.shapes.get(name))

    def solve(self):
        env, defs = self.env, self.solved.defs
        for name, _ in defs:
            if name not in env:
                env[name] = BOTTOM
        for name in self.solved.opaque | self.solved.ints | self.solved.none_init:
            env[name] = TOP
        for name in self.solved.ints:
            env[name] = INT
        least_fixed_point(self, env, defs, self.kind)
        return env

    def kind(self, node):
        cls = type(node)
        if cls is _NAME:  # most nodes: here, without a method call
            name, reads = node.id, self.reads
            if reads is not None:
                reads.append(name)  # by `solve`: what the definition depends on
            found = self.env.get(name, _ABSENT)
            if found is _ABSENT:
                bound = _SCALAR_KINDS.get(type(self.solved.namer.helpers.get(name)))
                if bound is not None:
                    return bound  # a bound constant: the seed, or arithmetic of it
                return TOP
            return found
        try:
            method = _RULES[cls]
        except KeyError:
            method = _RULES[cls] = getattr(_Kinds, "_" + cls.__name__, None)
        return TOP if method is None else method(self, node)

    def _Constant(self, node):
        t = type(node.value)
        return FLOAT if t is float else INT if t is int else TOP

    def _Compare(self, node):
        """A comparison of Python numbers is a bool, an int in arithmetic (`y - (y != 0)`)."""
        kinds = [self.kind(v) for v in [node.left, *node.comparators]]
        return strict(lambda *ks: INT if all(k in (FLOAT, INT) for k in ks) else TOP, *kinds)

    def _BinOp(self, node):
        a, b = self.kind(node.left), self.kind(node.right)
        op = node.op
        if isinstance(op, gast.MatMult):
            return strict(_same_array, a, b)
        if not isinstance(op, _ARITHMETIC):
            return TOP
        if a is BOTTOM or b is BOTTOM:  # `strict`
            return BOTTOM
        if a is TOP or b is TOP:
            return TOP
        if a in _ARRAYS or b in _ARRAYS:
            return self._promote([node.left, node.right], [a, b]) if a in _NUMBERS and b in _NUMBERS else TOP
        if FLOAT in (a, b) and not isinstance(op, gast.Pow):  # (-1.0) ** 0.5 is complex
            return FLOAT
        if isinstance(op, gast.Div):
            return FLOAT  # int / int
        return TOP  # int op int: an int

    def _promote(self, nodes, kinds):
        """The kind of the result of NumPy arithmetic (or a ufunc's loop dtype) on operands
        `nodes` of `kinds` (numbers, at least one a NumPy float): TOP where the running
        NumPy's promotion may give another dtype for some values of the operands."""
        dtypes = {k for k in kinds if k in _ARRAYS}
        if len(dtypes) == 1:
            (dtype,) = dtypes
        elif all(self._is_array(n) for n, k in zip(nodes, kinds) if k in _ARRAYS):
            # arrays of different dtypes: by dtype, in every NumPy version
            dtype = np.result_type(*(np.dtype(k) for k in dtypes)).name
        else:
            return TOP  # NumPy 1.x promotes a NumPy scalar with an array by its value
        if dtype == F64 or _WEAK_PYTHON_NUMBERS:
            return dtype
        pythons = [n for n, k in zip(nodes, kinds) if k in (FLOAT, INT)]
        if not pythons:
            return dtype
        # NumPy 1.x: by the value of each Python number, and only when an array takes part
        if not any(self._is_array(n) for n, k in zip(nodes, kinds) if k in _ARRAYS):
            return TOP
        for n in pythons:
            if not (isinstance(n, gast.Constant) and type(n.value) in (int, float)):
                return TOP
            try:
                if np.result_type(np.empty(1, dtype), n.value) != np.dtype(dtype):
                    return TOP
            except (TypeError, ValueError, OverflowError):
                return TOP
        return dtype

    def _is_array(self, node):
        shape = self.solved.shape(node)
        return isinstance(shape, tuple) and len(shape) > 0

    def _IfExp(self, node):
        return join(self.kind(node.body), self.kind(node.orelse))

    def _UnaryOp(self, node):
        return self.kind(node.operand) if isinstance(node.op, (gast.USub, gast.UAdd)) else TOP

    def _Subscript(self, node):
        if self.solved.entries:
            entry = entry_read(node, self.solved.entries)
            if entry is not None:
                return _param_kind(entry[1], entry[0])
        index = node.slice
        integral = (isinstance(index, gast.Constant) and type(index.value) is int) or (
            isinstance(index, gast.Name) and index.id in self.solved.ints
        )
        if not integral or self.solved.shape(node.value) in (TOP, BOTTOM, ()):
            return TOP
        return strict(lambda v: v if v in _ARRAYS else TOP, self.kind(node.value))

    def _Attribute(self, node):
        if node.attr == "T":
            return self.kind(node.value)
        entry = entry_read(node, self.solved.entries) if self.solved.entries else None
        return TOP if entry is None else _param_kind(entry[1], entry[0])

    def _Call(self, node):
        func = node.func
        if type(func) is gast.Name:  # most callees: helpers by name
            obj = self.callees.get(func.id, _ABSENT)
            if obj is _ABSENT:
                obj = self.callees[func.id] = self.resolve(func)
        else:
            obj = self.resolve(func)
        args = node.args
        if obj in AXIS_REDUCTIONS and (node.keywords or len(args) == 2):
            # over some axes of a float array, shapes known: an array or a NumPy scalar of its dtype
            if not isinstance(self.solved.shape(node), tuple) or not self._is_array(args[0]):
                return TOP
            return strict(lambda k: k if k in _ARRAYS else TOP, self.kind(args[0]))
        if obj is None or node.keywords:
            return TOP
        for a in args:
            if isinstance(a, gast.Starred):
                return TOP
        try:
            hash(obj)
        except TypeError:
            return TOP
        kinds = [self.kind(a) for a in args]
        if obj in _LIKE_ARG and len(args) > _LIKE_ARG[obj]:  # a gradient shaped like an argument
            return strict(lambda k: k if k in _ARRAYS or k == FLOAT else TOP, kinds[_LIKE_ARG[obj]])
        if getattr(obj, "each_row", None) in ("@", "+") and len(args) == 3:  # hoist.py's `a[t] @ b`, `a[t] + c`
            return strict(lambda a, b: a if a == b and a in _ARRAYS else TOP, kinds[0], kinds[1])
        if obj is runtime.in_place and len(args) == 2:
            return self._in_place(args, kinds)
        if obj is runtime.grad_seed and args and type(args[0]) is _NAME and self.solved.env.get(args[0].id) == ():
            return strict(lambda k: k if k == FLOAT or k in _SEEDS else TOP, kinds[0])  # what `fold_seeds` makes it
        owner, method = getattr(obj, "__self__", None), getattr(obj, "__name__", None)
        if owner is np.add and method == "reduce" and len(args) == 2:
            return strict(lambda k: k if k in _ARRAYS else TOP, kinds[0])
        if owner is np.multiply and method == "outer" and len(args) == 2:
            return strict(_same_array, *kinds)
        if obj is runtime.unreduce and self.solved.shape(node) not in (TOP, BOTTOM, ()):
            # np.broadcast_to(g, x.shape)
            return strict(lambda k: k if k in _ARRAYS else F64 if k == FLOAT else TOP, kinds[0])
        if obj is np.where and len(args) == 3 and self.solved.shape(node) not in (TOP, BOTTOM, ()):
            # an array (never a NumPy scalar) of the dtype of the two values' promotion

            def chosen(a, b):
                if a not in _NUMBERS or b not in _NUMBERS or not ({a, b} & set(_ARRAYS)):
                    return TOP
                return self._promote(args[1:], [a, b])

            return strict(chosen, *kinds[1:])
        if obj in (np.dot, np.matmul):  # before the ufuncs: np.matmul is one
            return strict(_same_array, *kinds) if len(args) == 2 else TOP
        if isinstance(obj, np.ufunc):
            if obj.nout != 1 or len(args) != obj.nin:
                return TOP

            def loop(*ks):
                if not all(k in _NUMBERS for k in ks) or set(ks) == {INT}:
                    return TOP
                dtype = self._promote(args, ks) if any(k in _ARRAYS for k in ks) else F64
                return dtype if dtype is not TOP and _ufunc_out(obj, dtype) == np.dtype(dtype) else TOP

            return strict(loop, *kinds)
        if obj in _REDUCTIONS:
            reduced = lambda k: k if k in _ARRAYS else F64 if k == FLOAT else TOP  # noqa: E731
            return strict(reduced, *kinds) if len(args) == 1 else TOP
        if obj in _MATH_FLOATS:
            return strict(lambda *ks: FLOAT if all(k in _NUMBERS for k in ks) else TOP, *kinds)
        if obj is float and len(args) == 1:
            return strict(lambda k: FLOAT if k in _NUMBERS else TOP, *kinds)
        if obj in _CREATORS and len(args) == 1:
            return F64 if self.solved.shape(node) not in (TOP, BOTTOM, ()) else TOP
        return TOP

    def _in_place(self, args, kinds):
        """`in_place(v, t)`: v where t is no array, else an array of t's dtype and shape."""
        if kinds[1] in (FLOAT, INT) or (kinds[1] in _ARRAYS and self.solved.shape(args[1]) == ()):
            return kinds[0]  # a number or a NumPy scalar (shapes.py: of shape ()): rebound
        if kinds[1] in _ARRAYS and self.solved.shape(args[1]) not in (TOP, BOTTOM):
            return strict(lambda v, t: t if v in _NUMBERS else TOP, *kinds)
        return strict(lambda v, t: TOP, *kinds)

    def plain_in_place(self, node):
        """Whether `in_place(v, t)` (the Call `node`) provably returns `v` itself."""
        v, t = node.args
        kt = self.env.get(t.id, TOP) if type(t) is _NAME else TOP
        if kt in (FLOAT, INT) or (kt in _ARRAYS and self.solved.shape(t) == ()):
            return True
        shape = self.solved.shape(t)
        return (kt in _ARRAYS and self.kind(v) == kt and isinstance(shape, tuple) and shape != ()
                and self.solved.shape(v) == shape)


def drop_in_place(stmts, kinds, namer):
    """`x = in_place(v, t)` -> `x = v` in `stmts` (in place, loops and branches too) where
    `kinds()` (`solver`) proves that `t` is no array, or an array of v's dtype and shape:
    the common case (`s += x` on float64 arrays, floats) as fast as before."""
    helper = _helper_name(namer, runtime.in_place)
    if helper is None:
        return
    analysis = kinds.analysis()
    for stmt in _assignments(stmts):
        value = stmt.value
        if (type(value) is gast.Call and type(value.func) is _NAME and value.func.id == helper
                and len(value.args) == 2 and not value.keywords and analysis.plain_in_place(value)):
            stmt.value = value.args[0]


def _assignments(stmts):
    for stmt in stmts:
        if type(stmt) is gast.Assign:
            yield stmt
        for field in ("body", "orelse"):
            yield from _assignments(getattr(stmt, field, ()))


_ABSENT = object()
_DTYPE_KINDS = {}  # dtype -> the kind of an array of it (TOP: none)
_NAME = gast.Name
_ARITHMETIC = (gast.Add, gast.Sub, gast.Mult, gast.Div, gast.Pow, gast.FloorDiv, gast.Mod)
_RULES = {}  # node class -> the `_Kinds` method that gives its kind (None: unknown)
_UFUNC_OUT = {}


def _ufunc_out(ufunc, kind):
    """The output dtype of `ufunc` on inputs of the dtype `kind` (None when it has no such loop)."""
    key = (ufunc, kind)
    if key not in _UFUNC_OUT:
        try:
            _UFUNC_OUT[key] = ufunc.resolve_dtypes((np.dtype(kind),) * ufunc.nin + (None,))[-1]
        except (TypeError, ValueError, AttributeError):  # no such loop
            _UFUNC_OUT[key] = None
    return _UFUNC_OUT[key]


def _same_array(a, b):
    """Products of two NumPy floats (`@`, np.dot, np.multiply.outer): the same dtype only."""
    return a if a == b and a in _ARRAYS else TOP


def strict(fn, *kinds):
    for k in kinds:
        if k is BOTTOM:
            return BOTTOM
    for k in kinds:
        if k is TOP:
            return TOP
    return fn(*kinds)


def least_fixed_point(analysis, env, defs, evaluate, ties=None):
    """Join `evaluate(value)` into `env[name]` for each definition `(name, value)` of
    `defs`: each once in order, then again only when a name it read (what it appended
    to `analysis.reads`) has changed since. That is the least fixed point of evaluating
    them all until none changes, every transfer function being monotone. `ties`: name ->
    the names whose value joins its value too (an adjoint has its primal's shape)."""
    ties = ties or {}
    readers = {}  # name -> the definitions whose last evaluation read it
    pending = range(len(defs))
    while pending:
        again = set()
        for i in pending:
            name, value = defs[i]
            old = env.get(name)
            if old is TOP:
                continue
            analysis.reads = reads = []
            new = join(old, evaluate(value))
            for n in reads:
                found = readers.get(n)
                if found is None:
                    readers[n] = {i}
                else:
                    found.add(i)
            if new == old:
                continue
            env[name] = new
            changed = [name]
            while changed:
                n = changed.pop()
                again.update(readers.get(n, ()))
                for tied in ties.get(n, ()):
                    joined = join(env[tied], env[n])
                    if joined != env[tied]:
                        env[tied] = joined
                        changed.append(tied)
        pending = sorted(again)
    analysis.reads = None


def join(a, b):
    if a is BOTTOM:
        return b
    if b is BOTTOM:
        return a
    return a if a == b else TOP
