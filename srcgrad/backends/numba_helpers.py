"""numba's versions of what generated code calls, and the text numba compiles.

The runtime and rule helpers that generated code calls (`grad_seed`, `unbroadcast`,
`unreduce`, `mean_of`, the matrix-product adjoints) get numba implementations through
`numba.extending.overload`, for the cases they cover; another case fails numba's typing
(the backend then runs Python) or raises `CompiledUnsupported` at run time (that call
runs Python). What numba has no version of is spelled as one of the helpers here:
`np.matmul(a, b)` -> `np_matmul(a, b)`, `np.multiply.outer` -> `np_multiply_outer`, the
`np.add.reduce` that unbroadcasting binds -> `add_reduce` (`numba_spelling`,
`environment`). The array tapes' helpers (`float_tape`, `tape_push`) live here too.
`math`'s functions are spelled as checked ones (`math.sqrt(x)` -> `math_sqrt(x)`): where
Python's raise (a domain or range error: `math.sqrt(-1.0)`), numba's return nan or inf;
the checked ones raise `CompiledUnsupported` there, and the call runs in Python.
Imported only by numba_backend.py, after numba.
"""

import ast
import math

import numba
import numpy as np
from numba.core import types as _nb
from numba.extending import overload

from .. import runtime
from ..rules.operators import _matmul_vjp_x, _matmul_vjp_y, _power_slope_at_zero


class CompiledUnsupported(Exception):
    """Raised inside compiled code for a case the numba helpers do not cover."""


class TapeFull(Exception):
    """Raised inside compiled code when a push finds the tape at its capacity."""


# -- numba versions of the runtime helpers ------------------------------------------

_SCALAR = (_nb.Float, _nb.Integer, _nb.Boolean)


def _is_float_array(t):
    return isinstance(t, _nb.Array) and isinstance(t.dtype, _nb.Float)


@overload(runtime.unbroadcast)
def _unbroadcast(g, x):
    if isinstance(x, _SCALAR):
        if isinstance(g, _SCALAR):
            return lambda g, x: float(g)
        if isinstance(g, _nb.Array):
            return lambda g, x: float(g.sum())
        return None
    if _is_float_array(x):
        if isinstance(g, _nb.Array) and g.ndim == x.ndim:
            same = g.dtype == x.dtype

            def impl(g, x):
                if g.shape != x.shape:
                    raise CompiledUnsupported("unbroadcast over broadcast axes is not compiled")
                return g if same else g.astype(x.dtype)

            return impl
        if isinstance(g, _SCALAR):
            return lambda g, x: np.full(x.shape, g, x.dtype)
    return None


@overload(runtime.owned_gradient)
def _owned_gradient(g):
    if isinstance(g, _SCALAR):
        return lambda g: g
    if isinstance(g, _nb.Array):
        if g.mutable:
            return lambda g: g
        return lambda g: g.copy()
    return None


@numba.njit(cache=False)
def _extent(a):
    """(lowest, highest + 1) byte address of the array `a`'s elements."""
    lo = hi = a.ctypes.data
    for k in range(a.ndim):
        step = (a.shape[k] - 1) * a.strides[k]
        if step < 0:
            lo += step
        else:
            hi += step
    return lo, hi + a.itemsize


@numba.njit(cache=False)
def _overlaps(a, b):
    if a.size == 0 or b.size == 0:
        return False
    a_lo, a_hi = _extent(a)
    b_lo, b_hi = _extent(b)
    return a_lo < b_hi and b_lo < a_hi


@overload(runtime.owned_gradients)
def _owned_gradients(*gs):
    # numbers as they are; an array copied where read-only or where its memory may meet
    # that of an array before it (as runtime.owned_gradients, by address ranges)
    if not all(isinstance(t, _SCALAR) or isinstance(t, _nb.Array) for t in gs):
        return None
    names = [f"g{i}" for i in range(len(gs))]
    lines = ["def impl(*gs):", f"    {', '.join(names)}, = gs"]
    earlier = []
    for i, t in enumerate(gs):
        if not isinstance(t, _nb.Array):
            continue
        if not t.mutable:
            lines.append(f"    g{i} = g{i}.copy()")
        elif earlier:
            shared = " or ".join(f"_overlaps(g{i}, g{j})" for j in earlier)
            lines += [f"    if {shared}:", f"        g{i} = g{i}.copy()"]
        earlier.append(i)
    lines.append(f"    return ({', '.join(names)},)")
    scope = {"_overlaps": _overlaps}
    exec("\n".join(lines), scope)  # noqa: S102 - text made here from the argument count
    return scope["impl"]


@overload(runtime.zeros_like_grad)
def _zeros_like_grad(x):
    if isinstance(x, _SCALAR):
        return lambda x: 0.0
    if _is_float_array(x):
        return lambda x: np.zeros(x.shape, x.dtype)
    if isinstance(x, _nb.Array):
        return lambda x: np.zeros(x.shape, np.float64)
    return None


@overload(runtime.grad_seed)
def _grad_seed(out, name):
    if isinstance(out, _nb.Float):
        return lambda out, name: 1.0
    return None  # arrays, integers: the Python derivative raises the TypeError first


def _is_none(t):
    return t is None or isinstance(t, (_nb.NoneType, _nb.Omitted))


@overload(runtime.unreduce)
def _unreduce(g, x, axis=None, keepdims=False):
    # the gradient of a reduction of all of x: g in every place (other reductions: Python)
    if _is_float_array(x) and isinstance(g, _SCALAR) and _is_none(axis):
        return lambda g, x, axis=None, keepdims=False: np.full(x.shape, g, x.dtype)
    return None


def _matrices(*ts):
    """Whether `ts` are float arrays of one dtype with at most 2 axes (numba's `@`)."""
    return all(_is_float_array(t) and t.ndim <= 2 and t.dtype == ts[0].dtype for t in ts)


def _product_of(g, x, y):
    """What the adjoint of `x @ y` with gradient `g` is compiled for: "vectors" (a
    scalar product), "arrays", or None (Python)."""
    if isinstance(g, _nb.Float) and _matrices(x, y) and x.ndim == 1 and y.ndim == 1:
        return "vectors"
    return "arrays" if isinstance(g, _nb.Array) and _matrices(g, x, y) else None


def _matmul_adjoint(helper, vectors, arrays):
    """Give the matrix-product adjoint `helper(g, ans, x, y)` its numba versions:
    `vectors` for a scalar product, `arrays(x.ndim, y.ndim)` for the others."""

    def typed(g, ans, x, y):
        product = _product_of(g, x, y)
        if product is None:
            return None
        return vectors if product == "vectors" else arrays(x.ndim, y.ndim)

    overload(helper)(typed)


_matmul_adjoint(
    _matmul_vjp_x,
    lambda g, ans, x, y: g * y,
    lambda nx, ny: (lambda g, ans, x, y: g @ y.T) if nx == ny == 2
    else (lambda g, ans, x, y: np.outer(g, y)) if nx == 2 else (lambda g, ans, x, y: y @ g),
)
_matmul_adjoint(
    _matmul_vjp_y,
    lambda g, ans, x, y: g * x,
    lambda nx, ny: (lambda g, ans, x, y: x.T @ g) if nx == 2 else (lambda g, ans, x, y: np.outer(x, g)),
)


@overload(_power_slope_at_zero)
def _power_slope(x, y):
    # numba's float power gives inf for 0.0 ** -0.5, where Python's raises; 0.0 where the rule
    # does not take it, as the Python version
    return lambda x, y: y * x ** (y - 1.0) if x == 0.0 and 0.0 < y < 1.0 else 0.0


@overload(runtime.mean_of)
def _mean_of(a):
    if _is_float_array(a):
        return lambda a: np.mean(a)
    return None


def add_reduce(a, axis):
    """`np.add.reduce(a, axis)`, which the compiled text calls by this name (numba has no
    ufunc methods): over one axis, or over the leading axes that unbroadcasting sums."""
    return np.add.reduce(a, axis)


@numba.extending.register_jitable
def _leading(axis):
    for i in range(len(axis)):
        if axis[i] != i:
            raise CompiledUnsupported("add_reduce over axes other than the leading ones is not compiled")


@overload(add_reduce)
def _add_reduce(a, axis):
    if not _is_float_array(a):
        return None
    if isinstance(axis, _nb.Integer):
        return lambda a, axis: np.sum(a, axis=axis)
    if isinstance(axis, _nb.UniTuple) and isinstance(axis.dtype, _nb.Integer) and axis.count < a.ndim:
        k = axis.count

        def impl(a, axis):
            _leading(axis)
            return np.ascontiguousarray(a).reshape((-1,) + a.shape[k:]).sum(axis=0)

        return impl
    return None


@numba.njit
def np_matmul(a, b):
    # `np.matmul(a, b)` as numba spells it: numba types np.matmul as an elementwise ufunc
    return a @ b


@numba.njit
def np_multiply_outer(a, b):
    # `np.multiply.outer(a, b)` of two vectors (numba has no ufunc methods)
    if a.ndim != 1 or b.ndim != 1:
        raise CompiledUnsupported("np.multiply.outer of arrays with more than one axis is not compiled")
    return np.outer(a, b)


@numba.njit
def float_tape(capacity):
    return np.empty(capacity, np.float64)


@numba.njit
def int_tape(capacity):
    return np.empty(capacity, np.int64)


@numba.njit
def tape_push(tape, top, value):
    if top == tape.shape[0]:
        raise TapeFull()
    tape[top] = value
    return top + 1


def _checked(function):
    """`function` of `math`, compiled, raising CompiledUnsupported where Python's raises: a
    nan from numbers that are not nan (a domain error), an infinity from finite ones (a
    range error, or `math.log(0.0)`)."""
    if function in _TWO_ARGUMENTS:
        @numba.njit
        def checked2(x, y):
            r = function(x, y)
            if (r != r and x == x and y == y) or ((r == math.inf or r == -math.inf) and x - x == 0.0 and y - y == 0.0):
                raise CompiledUnsupported("outside the domain of a math function")
            return r

        return checked2

    @numba.njit
    def checked(x):
        r = function(x)
        if (r != r and x == x) or ((r == math.inf or r == -math.inf) and x - x == 0.0):
            raise CompiledUnsupported("outside the domain of a math function")
        return r

    return checked


_TWO_ARGUMENTS = {math.pow, math.fmod, math.hypot}
# the math functions that raise on some finite numbers, by name -> helper name (sin, cos
# and tan raise only on an infinity, whose nan the check of the result sees)
_CHECKED_MATH = {
    name: f"math_{name}" for name in (
        "sqrt", "exp", "expm1", "log", "log2", "log10", "log1p", "asin", "acos", "sinh", "cosh", "asinh", "acosh",
        "atanh", "gamma", "lgamma", "pow", "fmod", "hypot")
}
_SPELLINGS = {"matmul": "np_matmul", "multiply.outer": "np_multiply_outer"}  # np.<this> -> the helper called
HELPERS = {  # the names the compiled text may call besides the generated code's own
    "float_tape": float_tape, "int_tape": int_tape, "tape_push": tape_push,
    "np_matmul": np_matmul, "np_multiply_outer": np_multiply_outer,
    **{helper: _checked(getattr(math, name)) for name, helper in _CHECKED_MATH.items()},
}


def _numpy_path(node):
    """"multiply.outer" for the expression `np.multiply.outer`; None if not under `np`."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    return ".".join(reversed(parts)) if isinstance(node, ast.Name) and node.id == "np" else None


def numba_spelling(text, float32=False, env=None):
    """`text` with the NumPy calls numba types wrongly (`np.matmul(a, b)`) calling the
    helpers that spell them its way (`np_matmul(a, b)`), the `math` functions that raise
    on some numbers (`math.sqrt`, or `sqrt` imported from math, by the names `env` binds)
    calling their checked versions (`math_sqrt`), and with `float32`, its float
    literals made float32 (`np.float32(0.5)`): in NumPy a literal takes the dtype of the
    array it meets, in numba it is a float64 that widens float32 scalars; the rest as it is."""
    edits = []
    tree = ast.parse(text)
    stored = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)}
    env = {k: v for k, v in (env or {}).items() if k not in stored}  # a local name is not the global's
    for node in ast.walk(tree):
        func = node.func if isinstance(node, ast.Call) else None
        path = _numpy_path(func) if isinstance(func, ast.Attribute) else None
        checked = _checked_name(func, env) if func is not None else None
        if path in _SPELLINGS and func.lineno == func.end_lineno:
            edits.append((func.lineno, func.col_offset, func.end_col_offset, _SPELLINGS[path]))
        elif checked is not None and func.lineno == func.end_lineno and not node.keywords:
            edits.append((func.lineno, func.col_offset, func.end_col_offset, checked))
        elif float32 and isinstance(node, ast.Constant) and type(node.value) is float and node.lineno == node.end_lineno:
            edits.append((node.lineno, node.col_offset, node.end_col_offset, f"np.float32({node.value!r})"))
    if not edits:
        return text
    lines = text.splitlines(True)
    for line, start, end, name in sorted(edits, reverse=True):
        row = lines[line - 1].encode()  # ast's columns count UTF-8 bytes
        lines[line - 1] = (row[:start] + name.encode() + row[end:]).decode()
    return "".join(lines)


def _checked_name(func, env):
    """The checked helper called for the function `func` names, if it is one of math's."""
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and env.get(func.value.id) is math:
        name = func.attr
    elif isinstance(func, ast.Name):
        name = func.id
        if getattr(math, name, None) is not env.get(name, _ABSENT):
            return None
    else:
        return None
    return _CHECKED_MATH.get(name)


_ABSENT = object()


def environment(fn):
    """The names the generated code sees: its module's globals, then its helpers and cells."""
    env = dict(fn.__globals__)
    for name, cell in zip(fn.__code__.co_freevars, fn.__closure__ or ()):
        try:
            env[name] = cell.cell_contents
        except ValueError:  # an empty cell
            pass
    for name, value in env.items():
        if type(value) is _BUILTIN_METHOD and value == np.add.reduce:  # unbroadcasts.py's add_reduce
            env[name] = add_reduce
        elif type(value) is np.ndarray and value.ndim == 0:  # constants.py's: a scalar of its dtype, as a literal
            env[name] = value[()]
    env.update(HELPERS)
    return env


_BUILTIN_METHOD = type(np.add.reduce)
