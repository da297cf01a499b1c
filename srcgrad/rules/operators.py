"""Python's arithmetic operators (`+ - * / % ** @`, unary `-`/`+`), keyed on `operator.*`.

NumPy's spellings (`np.add`, `np.multiply`, `np.remainder`, `np.matmul`, ...) share
these rules. Every binary reverse rule unbroadcasts to its parameter. `matmul` handles
1-D operands and broadcast batch dimensions; np.matvec and np.vecmat (NumPy 2.2) are its
matrix-vector forms. Floor division has a zero derivative and
is declared in `nondiff.py`; `divmod` (and np.divmod) pairs it with the remainder, and
`math.modf` (and np.modf) the fractional part with the integral one.
"""

import builtins
import math
import operator

import numpy as np

from ..runtime import unbroadcast, zeros_like_grad
from .registry import defjvp, defvjp, numpy2, elementwise

_ndarray = np.ndarray


@defvjp(operator.add, "x", name="Add")
@defvjp(np.add, "x", name="Add")
def add_vjp_x(g, ans, x, y):
    return unbroadcast(g, x)


@defvjp(operator.add, "y")
@defvjp(np.add, "y")
def add_vjp_y(g, ans, x, y):
    return unbroadcast(g, y)


@defjvp(operator.add, ("x", "y"))
@defjvp(np.add, ("x", "y"))
def add_jvp(t, ans, x, y):
    return t


@defvjp(operator.sub, "x", name="Sub")
@defvjp(np.subtract, "x", name="Sub")
def sub_vjp_x(g, ans, x, y):
    return unbroadcast(g, x)


@defvjp(operator.sub, "y")
@defvjp(np.subtract, "y")
def sub_vjp_y(g, ans, x, y):
    return unbroadcast(-g, y)


@defjvp(operator.sub, "x")
@defjvp(np.subtract, "x")
def sub_jvp_x(t, ans, x, y):
    return t


@defjvp(operator.sub, "y")
@defjvp(np.subtract, "y")
def sub_jvp_y(t, ans, x, y):
    return -t


@elementwise(operator.mul, "x", name="Mul")
@elementwise(np.multiply, "x", name="Mul")
def mul_dx(ans, x, y):
    return y


@elementwise(operator.mul, "y")
@elementwise(np.multiply, "y")
def mul_dy(ans, x, y):
    return x


@defvjp(operator.truediv, "x", name="Div")
@defvjp(np.divide, "x", name="Div")
def div_vjp_x(g, ans, x, y):
    return unbroadcast(g / y, x)


@defvjp(operator.truediv, "y")
@defvjp(np.divide, "y")
def div_vjp_y(g, ans, x, y):
    """-g * (ans / y): rounded as PyTorch's DivBackward0 rounds -g * ((x / y) / y)."""
    return unbroadcast(-g * (ans / y), y)


div_vjp_x.reads_only_the_shape_of = ("x",)  # as PyTorch's DivBackward0 saves no self for it


@defjvp(operator.truediv, "x")
@defjvp(np.divide, "x")
def div_jvp_x(t, ans, x, y):
    return t / y


@defjvp(operator.truediv, "y")
@defjvp(np.divide, "y")
def div_jvp_y(t, ans, x, y):
    return -t * ans / y


@elementwise(operator.pow, "x", name="Pow")
@elementwise(np.power, "x", name="Pow")
def pow_dx(ans, x, y):
    """y * x**(y - 1), and 0 where y == 0 (not 0 * inf at x == 0): the exponent drops to 0 there.
    At a Python float x == 0.0 and 0 < y < 1 it is inf, as np.float64 computes it, where
    Python's `0.0 ** (y - 1)` raises ZeroDivisionError (a literal y outside (0, 1) settles
    the test away: `x ** 2` differentiates to `2 * x`)."""
    return y * x ** (y - (y != 0)) if type(x) is not float or x or type(y) is not float or not 0.0 < y < 1.0 else _power_slope_at_zero(x, y)


def _power_slope_at_zero(x, y):
    """pow_dx at x == 0.0, a Python float, and 0 < y < 1: y * x**(y - 1) in np.float64, a
    float (inf, as the derivatives of math.pow and math.sqrt at 0; its own derivative -inf).
    Linearized code (compiler/linearize.py) computes both branches of a conditional rule,
    so it is also called where pow_dx does not take it: 0.0 there, for any x and y."""
    if type(x) is not float or x or type(y) is not float:
        return 0.0
    with np.errstate(divide="ignore", invalid="ignore"):
        return float(y * np.float64(x) ** (y - 1.0))


@elementwise(operator.pow, "y")
@elementwise(np.power, "y")
def pow_dy(ans, x, y):
    """ans * log(x); at x == 0, 0 where y >= 0, and ans * log(0) (-inf for ans = inf) where
    y < 0, as PyTorch's pow_backward_exponent gives (no warning for log(0))."""
    return np.where((x == 0) & (y < 0), -np.copysign(np.inf, ans), ans * np.log(np.where(x == 0, 1.0, x)))


@defvjp(operator.mod, "x", name="Remainder")
@defvjp(np.remainder, "x", name="Remainder")
def mod_vjp_x(g, ans, x, y):
    return unbroadcast(g, x)


mod_vjp_x.reads_only_the_shape_of = ("x",)  # as PyTorch's RemainderBackward0/1 save no self for it


@defvjp(operator.mod, "y")
@defvjp(np.remainder, "y")
def mod_vjp_y(g, ans, x, y):
    return unbroadcast(-g * np.floor_divide(x, y), y)


@defjvp(operator.mod, "x")
@defjvp(np.remainder, "x")
def mod_jvp_x(t, ans, x, y):
    return t


@defjvp(operator.mod, "y")
@defjvp(np.remainder, "y")
def mod_jvp_y(t, ans, x, y):
    return -t * np.floor_divide(x, y)


# divmod(x, y) and np.divmod: the pair (x // y, x % y). The quotient is piecewise constant
# (zero derivative, also at its jumps); the remainder differentiates like `%`. The
# cotangent is the pair, None for a part that receives no gradient; the tangent is the
# pair with a zero quotient tangent.


def _divmod_vjp(g, x, y, of_y):
    remainder = g[1]
    if remainder is None:
        return zeros_like_grad(y if of_y else x)
    return unbroadcast(-remainder * np.floor_divide(x, y), y) if of_y else unbroadcast(remainder, x)


def _divmod_tangent(ans, remainder):
    return zeros_like_grad(ans[0]), remainder


@defvjp(builtins.divmod, "x", name="Divmod")
@defvjp(np.divmod, "x", name="Divmod")
def divmod_vjp_x(g, ans, x, y):
    return _divmod_vjp(g, x, y, False)


@defvjp(builtins.divmod, "y")
@defvjp(np.divmod, "y")
def divmod_vjp_y(g, ans, x, y):
    return _divmod_vjp(g, x, y, True)


@defjvp(builtins.divmod, "x")
@defjvp(np.divmod, "x")
def divmod_jvp_x(t, ans, x, y):
    return _divmod_tangent(ans, t)


@defjvp(builtins.divmod, "y")
@defjvp(np.divmod, "y")
def divmod_jvp_y(t, ans, x, y):
    return _divmod_tangent(ans, -t * np.floor_divide(x, y))


# math.modf and np.modf: the pair (fractional part, integral part). The integral part is
# piecewise constant (zero derivative); the fractional part's derivative is 1.


@defvjp(math.modf, "x", name="Modf")
@defvjp(np.modf, "x", name="Modf")
def modf_vjp(g, ans, x):
    return zeros_like_grad(x) if g[0] is None else unbroadcast(g[0], x)


@defjvp(math.modf, "x")
@defjvp(np.modf, "x")
def modf_jvp(t, ans, x):
    return t, zeros_like_grad(ans[1])


@defvjp(operator.neg, "x", name="Neg")
@defvjp(np.negative, "x", name="Neg")
def neg_vjp(g, ans, x):
    return -g


@defjvp(operator.neg, "x")
@defjvp(np.negative, "x")
def neg_jvp(t, ans, x):
    return -t


@defvjp(operator.pos, "x", name="Pos")
@defvjp(np.positive, "x", name="Pos")
def pos_vjp(g, ans, x):
    return g


@defjvp(operator.pos, "x")
@defjvp(np.positive, "x")
def pos_jvp(t, ans, x):
    return t


def _one_result(fn):
    """Mark a helper that returns one array (calls.several_results: its tangents add with `+`)."""
    fn.one_result = True
    return fn


@_one_result
def _matmul_vjp_x(g, ans, x, y):
    # `ans` only lends its shape, which g has: the rules pass None, so it is not saved
    if type(x) is _ndarray and type(y) is _ndarray and x.ndim == 2 and y.ndim == 2:
        return unbroadcast(g @ y.T, x)
    x_nd, y_nd = np.ndim(x), np.ndim(y)
    if y_nd == 1:
        g_x = np.expand_dims(g, -1) * y
    elif x_nd == 1:
        g_x = (y @ g[..., None])[..., 0]
    else:
        g_x = g @ np.swapaxes(y, -1, -2)
    return unbroadcast(g_x, x)


@_one_result
def _matmul_vjp_y(g, ans, x, y):
    if type(x) is _ndarray and type(y) is _ndarray and x.ndim == 2 and y.ndim == 2:
        return unbroadcast(x.T @ g, y)
    x_nd, y_nd = np.ndim(x), np.ndim(y)
    if x_nd == 1 and y_nd == 1:
        g_y = g * x
    elif x_nd == 1:
        if type(x) is _ndarray and type(g) is _ndarray:  # np.expand_dims, without its overhead
            g_y = x[..., None] * g[..., None, :]
        else:
            g_y = np.expand_dims(x, -1) * np.expand_dims(g, -2)
    elif y_nd == 1:
        g_y = np.expand_dims(g, -1) * x
    else:
        g_y = np.swapaxes(x, -1, -2) @ g
    return unbroadcast(g_y, y)


@defvjp(operator.matmul, "x", name="Mm")
@defvjp(np.matmul, "x", name="Mm")
@defvjp(numpy2("linalg.matmul"), "x", name="Mm")
def matmul_vjp_x(g, ans, x, y):
    return _matmul_vjp_x(g, None, x, y)


@defvjp(operator.matmul, "y")
@defvjp(np.matmul, "y")
@defvjp(numpy2("linalg.matmul"), "y")
def matmul_vjp_y(g, ans, x, y):
    return _matmul_vjp_y(g, None, x, y)


# Each reads its own operand for its shape only: an in-place write into that operand
# leaves its gradient right (the Tensor shim records no version of it, as PyTorch's
# MmBackward0 saves no such operand).
matmul_vjp_x.reads_only_the_shape_of = ("x",)
matmul_vjp_y.reads_only_the_shape_of = ("y",)


@defjvp(operator.matmul, "x")
@defjvp(np.matmul, "x")
@defjvp(numpy2("linalg.matmul"), "x")
def matmul_jvp_x(t, ans, x, y):
    return t @ y


@defjvp(operator.matmul, "y")
@defjvp(np.matmul, "y")
@defjvp(numpy2("linalg.matmul"), "y")
def matmul_jvp_y(t, ans, x, y):
    return x @ t


# np.matvec(a, v) = a @ v and np.vecmat(v, a) = v @ a over stacks (NumPy 2.2 ufuncs; real
# operands: vecmat's conjugate of v is v itself)


@defvjp(numpy2("matvec"), "x", name="Matvec")
def matvec_vjp_x(g, ans, x, y):
    return unbroadcast(np.expand_dims(g, -1) * np.expand_dims(y, -2), x)


@defvjp(numpy2("matvec"), "y")
def matvec_vjp_y(g, ans, x, y):
    return unbroadcast(np.vecmat(g, x), y)


@defjvp(numpy2("matvec"), "x")
def matvec_jvp_x(t, ans, x, y):
    return np.matvec(t, y)


@defjvp(numpy2("matvec"), "y")
def matvec_jvp_y(t, ans, x, y):
    return np.matvec(x, t)


@defvjp(numpy2("vecmat"), "x", name="Vecmat")
def vecmat_vjp_x(g, ans, x, y):
    return unbroadcast(np.matvec(y, g), x)


@defvjp(numpy2("vecmat"), "y")
def vecmat_vjp_y(g, ans, x, y):
    return unbroadcast(np.expand_dims(x, -1) * np.expand_dims(g, -2), y)


@defjvp(numpy2("vecmat"), "x")
def vecmat_jvp_x(t, ans, x, y):
    return np.vecmat(t, y)


@defjvp(numpy2("vecmat"), "y")
def vecmat_jvp_y(t, ans, x, y):
    return np.vecmat(x, t)
