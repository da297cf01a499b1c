"""PyTorch's fmax, fmin, ldexp and frexp as primitives of arrays, with their rules.

`fmax`/`fmin` are NumPy's NaN-ignoring maximum and minimum, but differentiated as
PyTorch does: a tie sends the whole gradient to `x` (np.fmax's own rule in
`elementwise.py` splits it), and a NaN operand loses (both NaN: `x` wins); only
fmax's forward rule sends a tie's tangent to `y`, as PyTorch's does.
`ldexp(x, e)` is x * 2 ** e in the operands' dtype (e need not be an integer).
`frexp_mantissa(x)` is np.frexp's mantissa, whose derivative is 2 ** -exponent
(1 at 0, infinities and NaN, where the exponent is 0), written as mantissa / x so
that every order of derivative exists (the next one is 0). `np.frexp` and `math.frexp`
themselves (the pair of mantissa and integer exponent, read by the compiler) share that
derivative for the mantissa; the exponent is piecewise constant.
"""

import math

import numpy as np

from ..runtime import unbroadcast, zeros_like_grad
from .registry import defjvp, defvjp, elementwise

__all__ = ["fmax", "fmin", "ldexp", "frexp_mantissa"]

_LN2 = math.log(2.0)


def fmax(x, y):
    """np.fmax (x when both are NaN-free and tied)."""
    return np.fmax(x, y)


def fmin(x, y):
    """np.fmin (x when both are NaN-free and tied)."""
    return np.fmin(x, y)


def ldexp(x, e):
    """x * 2 ** e."""
    return x * np.exp2(e)


def frexp_mantissa(x):
    """The mantissa of np.frexp, in [0.5, 1) in magnitude (x itself at 0, inf and NaN)."""
    return np.frexp(x)[0]


def _x_wins(x, y, order):
    """1.0 where `x` is the answer of fmax (order np.greater_equal) or fmin
    (np.less_equal) for PyTorch's gradient, else 0.0, in x's dtype."""
    wins = order(x, y) | np.isnan(y)
    return np.asarray(wins).astype(np.result_type(x, y, np.float32), copy=False)


def _register_nan_ignoring(primal, order, name):
    """The rules of fmax (order np.greater_equal) or fmin (np.less_equal): x's share
    is `_x_wins`, y's the rest."""

    @elementwise(primal, "x", name=name)
    def x_share(ans, x, y):
        return _x_wins(x, y, order)

    @elementwise(primal, "y")
    def y_share(ans, x, y):
        return 1.0 - _x_wins(x, y, order)


_register_nan_ignoring(fmax, np.greater_equal, "Fmax")
_register_nan_ignoring(fmin, np.less_equal, "Fmin")


# PyTorch's forward rule of fmax gives a tie to y (its reverse rule to x): the same here
@defjvp(fmax, "x")
def fmax_jvp_x(t, ans, x, y):
    return t * _x_wins(x, y, np.greater)


@defjvp(fmax, "y")
def fmax_jvp_y(t, ans, x, y):
    return t * (1.0 - _x_wins(x, y, np.greater))


@elementwise(ldexp, "x", name="Ldexp")
def ldexp_dx(ans, x, e):
    return np.exp2(e)


@elementwise(ldexp, "e")
def ldexp_de(ans, x, e):
    return ans * _LN2


@elementwise(frexp_mantissa, "x", name="Frexp")
def frexp_mantissa_dx(ans, x):
    scaled = np.isfinite(x) & (x != 0)
    return np.where(scaled, ans / np.where(scaled, x, 1.0), 1.0)


@defvjp(np.frexp, "x", name="Frexp")
def frexp_vjp(g, ans, x):
    return zeros_like_grad(x) if g[0] is None else unbroadcast(g[0] * frexp_mantissa_dx(ans[0], x), x)


@defjvp(np.frexp, "x")
def frexp_jvp(t, ans, x):
    return t * frexp_mantissa_dx(ans[0], x), zeros_like_grad(ans[1])


@defvjp(math.frexp, "x", name="Frexp")
def math_frexp_vjp(g, ans, x):
    return 0.0 if g[0] is None else float(g[0] * frexp_mantissa_dx(ans[0], x))


@defjvp(math.frexp, "x")
def math_frexp_jvp(t, ans, x):
    return float(t * frexp_mantissa_dx(ans[0], x)), 0.0
