"""Elementwise NumPy functions: unary and binary ufuncs, `where`, `select`, `clip`, `nan_to_num`.

Most rules are the local derivative `d(ans, *params)`; `elementwise` builds the reverse
rule `g * d` (unbroadcast for binary primals) and the forward rule `t * d` from it.
Derivatives keep the argument's dtype: constants are Python floats (`math.log(2.0)`,
not `np.log(2.0)`), which NumPy treats as weakly typed, so float32 stays float32.

At a kink the rules pick one subgradient and say which: `maximum`/`minimum`/`fmax`/
`fmin` split a tie evenly (infinities too), `abs` has derivative 0 at 0, `hypot` 0 at the origin, `clip` passes the gradient to
`x` when `x` lies inside the bounds, ends included. At nan, PyTorch's choices: `abs` has
derivative 0 (its sgn), and `maximum`/`minimum` pass the whole gradient to both operands. Python's operators and the `math`
module live in `operators.py` and `scalars.py`.
"""

import math

import numpy as np

from ..runtime import unbroadcast, zeros_like_grad
from .registry import defjvp, defvjp, discrete, elementwise

# --- unary ufuncs -------------------------------------------------------------------


@elementwise(np.real_if_close, name="RealIfClose")
def real_if_close_d(ans, a, tol=100):
    """A real array comes back as it is (complex values are refused before any rule)."""
    return 1.0


@elementwise(np.sin)
def sin_d(ans, x):
    return np.cos(x)


@elementwise(np.cos)
def cos_d(ans, x):
    return -np.sin(x)


@elementwise(np.tan)
def tan_d(ans, x):
    return 1.0 + ans * ans


@elementwise(np.arcsin, name="Asin")
def arcsin_d(ans, x):
    return 1.0 / np.sqrt(1.0 - x * x)


@elementwise(np.arccos, name="Acos")
def arccos_d(ans, x):
    return -1.0 / np.sqrt(1.0 - x * x)


@elementwise(np.arctan, name="Atan")
def arctan_d(ans, x):
    return 1.0 / (1.0 + x * x)


@elementwise(np.sinh)
def sinh_d(ans, x):
    return np.cosh(x)


@elementwise(np.cosh)
def cosh_d(ans, x):
    return np.sinh(x)


@elementwise(np.tanh)
def tanh_d(ans, x):
    return 1.0 - ans * ans


@elementwise(np.arcsinh, name="Asinh")
def arcsinh_d(ans, x):
    return 1.0 / np.sqrt(x * x + 1.0)


@elementwise(np.arccosh, name="Acosh")
def arccosh_d(ans, x):
    return 1.0 / np.sqrt(x * x - 1.0)


@elementwise(np.arctanh, name="Atanh")
def arctanh_d(ans, x):
    return 1.0 / (1.0 - x * x)


@elementwise(np.exp)
def exp_d(ans, x):
    return ans


@elementwise(np.exp2)
def exp2_d(ans, x):
    return ans * math.log(2.0)


@elementwise(np.expm1)
def expm1_d(ans, x):
    return ans + 1.0


@elementwise(np.log)
def log_d(ans, x):
    return 1.0 / x


@elementwise(np.log2)
def log2_d(ans, x):
    return 1.0 / (x * math.log(2.0))


@elementwise(np.log10)
def log10_d(ans, x):
    return 1.0 / (x * math.log(10.0))


@elementwise(np.log1p)
def log1p_d(ans, x):
    return 1.0 / (1.0 + x)


@elementwise(np.sqrt)
def sqrt_d(ans, x):
    return 0.5 / ans


@elementwise(np.cbrt)
def cbrt_d(ans, x):
    return 1.0 / (3.0 * ans * ans)


@elementwise(np.square)
def square_d(ans, x):
    return 2.0 * x


@elementwise(np.absolute, name="Abs")
@elementwise(np.fabs, name="Abs")
def abs_d(ans, x):
    return np.where(x == x, np.sign(x), 0)


@elementwise(np.reciprocal)
def reciprocal_d(ans, x):
    return -ans * ans


@elementwise(np.deg2rad)
@elementwise(np.radians)
def deg2rad_d(ans, x):
    return math.pi / 180.0


@elementwise(np.rad2deg)
@elementwise(np.degrees)
def rad2deg_d(ans, x):
    return 180.0 / math.pi


# d/dx sinc(x) = sum over n >= 1 of (-1)**n 2n pi**(2n) x**(2n - 1) / (2n + 1)!: its first six terms
_SINC_D_SERIES = tuple((-1) ** n * 2 * n * math.pi ** (2 * n) / math.factorial(2 * n + 1) for n in range(1, 7))


def _sinc_d(ans, x):
    """d/dx sin(pi x)/(pi x) = (cos(pi x) - sinc(x)) / x. Where |x| < 0.1 that difference
    cancels (at x = 1e-9 both terms round to 1.0, giving 0 for -pi**2 x / 3), so there it is
    the Taylor polynomial -pi**2 x / 3 + pi**4 x**3 / 30 - pi**6 x**5 / 840 + pi**8 x**7 / 45360
    - pi**10 x**9 / 3991680 + pi**12 x**11 / 518918400 (0 at 0), within 1e-16 of it
    relatively; the derivatives of this derivative (Hessians) are the polynomial's there."""
    near = np.abs(x) < 0.1
    safe = np.where(near, 1.0, x)
    xx = x * x
    series = 0.0
    for coefficient in _SINC_D_SERIES[::-1]:  # Horner's scheme in x**2
        series = series * xx + coefficient
    series = series * x
    return np.where(near, series, (np.cos(math.pi * x) - ans) / safe)


@elementwise(np.sinc)
def sinc_d(ans, x):
    return _sinc_d(ans, x)


@defvjp(np.conjugate, "x", name="Conj")
def conjugate_vjp(g, ans, x):
    return np.conjugate(g)


@defjvp(np.conjugate, "x")
def conjugate_jvp(t, ans, x):
    return np.conjugate(t)


@defvjp(np.real, "val")
def real_vjp(g, ans, val):
    return unbroadcast(np.real(g), val)


@defjvp(np.real, "val")
def real_jvp(t, ans, val):
    return np.real(t)


@defvjp(np.nan_to_num, "x")
def nan_to_num_vjp(g, ans, x, copy=True, nan=0.0, posinf=None, neginf=None):
    return unbroadcast(g * np.isfinite(x), x)


@defjvp(np.nan_to_num, "x")
def nan_to_num_jvp(t, ans, x, copy=True, nan=0.0, posinf=None, neginf=None):
    return t * np.isfinite(x)


# --- binary ufuncs ------------------------------------------------------------------


@elementwise(np.maximum, "x")
def maximum_dx(ans, x, y):
    return 0.5 + 0.5 * _order_sign(x, y, 1.0)


@elementwise(np.maximum, "y")
def maximum_dy(ans, x, y):
    return 0.5 - 0.5 * _order_sign(x, y, -1.0)


@elementwise(np.minimum, "x")
def minimum_dx(ans, x, y):
    return 0.5 - 0.5 * _order_sign(x, y, -1.0)


@elementwise(np.minimum, "y")
def minimum_dy(ans, x, y):
    return 0.5 + 0.5 * _order_sign(x, y, 1.0)


def _order_sign(x, y, at_nan):
    """sign(x - y), 0 at a tie of infinities too (where x - y is nan), and `at_nan` where
    an operand is nan. A tie subtracts zeros: inf - inf would warn."""
    tie = x == y
    return np.sign(np.nan_to_num(np.where(tie, 0.0, x) - np.where(tie, 0.0, y), nan=at_nan))


def _nan_ignoring_share(x, y, sign):
    """Share of `x` in fmax (sign=1) or fmin (sign=-1): a NaN operand loses."""
    share = 0.5 + 0.5 * sign * _order_sign(x, y, 0.0)
    return np.where(np.isnan(y), 1.0, np.where(np.isnan(x), 0.0, share))


@elementwise(np.fmax, "x")
def fmax_dx(ans, x, y):
    return _nan_ignoring_share(x, y, 1.0)


@elementwise(np.fmax, "y")
def fmax_dy(ans, x, y):
    return _nan_ignoring_share(y, x, 1.0)


@elementwise(np.fmin, "x")
def fmin_dx(ans, x, y):
    return _nan_ignoring_share(x, y, -1.0)


@elementwise(np.fmin, "y")
def fmin_dy(ans, x, y):
    return _nan_ignoring_share(y, x, -1.0)


@elementwise(np.arctan2, "x", name="Atan2")
def arctan2_dx(ans, x, y):
    return y / (x * x + y * y)


@elementwise(np.arctan2, "y")
def arctan2_dy(ans, x, y):
    return -x / (x * x + y * y)


@elementwise(np.hypot, "x")
def hypot_dx(ans, x, y):
    """0 at the origin (x == 0 there), as np.linalg.norm of a zero vector."""
    return x / np.where(ans == 0, 1.0, ans)


@elementwise(np.hypot, "y")
def hypot_dy(ans, x, y):
    return y / np.where(ans == 0, 1.0, ans)


@elementwise(np.logaddexp, "x")
def logaddexp_dx(ans, x, y):
    """sigmoid(x - y), written with tanh so that it needs neither `ans` nor an exp that
    could overflow: the loss need not be computed for its gradient. Equal arguments share
    it, 1/2 each, infinite ones too: logaddexp(-inf, -inf) (an unreachable state of a
    dynamic program in log space) passes its zero cotangent on as zeros, not nan. Only
    infinite ties are masked: at a finite tie `x - y` stays live, as the second
    derivative (1/4 there) is read through it."""
    return 0.5 * np.tanh(0.5 * np.where((x == y) & np.isinf(x), 0.0, x - y)) + 0.5


@elementwise(np.logaddexp, "y")
def logaddexp_dy(ans, x, y):
    return 0.5 * np.tanh(0.5 * np.where((x == y) & np.isinf(x), 0.0, y - x)) + 0.5


@elementwise(np.logaddexp2, "x")
def logaddexp2_dx(ans, x, y):
    """2 ** x / (2 ** x + 2 ** y) = sigmoid(ln 2 (x - y)), 1/2 each where the arguments are
    equal (as logaddexp); 0.3465... is ln(2) / 2."""
    return 0.5 * np.tanh(0.34657359027997264 * np.where((x == y) & np.isinf(x), 0.0, x - y)) + 0.5


@elementwise(np.logaddexp2, "y")
def logaddexp2_dy(ans, x, y):
    return 0.5 * np.tanh(0.34657359027997264 * np.where((x == y) & np.isinf(x), 0.0, y - x)) + 0.5


@elementwise(np.float_power, "x")
def float_power_dx(ans, x, y):
    """As `operators.pow_dx`: 0 where y == 0, also at x == 0."""
    return y * np.float_power(x, y - (y != 0))


@elementwise(np.float_power, "y")
def float_power_dy(ans, x, y):
    return ans * np.log(np.where(x == 0, 1.0, x))


@defvjp(np.fmod, "x")
def fmod_vjp_x(g, ans, x, y):
    return unbroadcast(g, x)


@defvjp(np.fmod, "y")
def fmod_vjp_y(g, ans, x, y):
    return unbroadcast(-g * np.trunc(x / y), y)


@defjvp(np.fmod, "x")
def fmod_jvp_x(t, ans, x, y):
    return t


@defjvp(np.fmod, "y")
def fmod_jvp_y(t, ans, x, y):
    return -t * np.trunc(x / y)


@elementwise(np.copysign, "x")
def copysign_dx(ans, x, y):
    return np.sign(x) * np.sign(ans)


@defvjp(np.copysign, "y")
def copysign_vjp_y(g, ans, x, y):
    """`y` only chooses the sign: a zero gradient."""
    return zeros_like_grad(y)


@defjvp(np.copysign, "y")
def copysign_jvp_y(t, ans, x, y):
    return 0.0 * t


@defvjp(np.ldexp, "x")
def ldexp_vjp_x(g, ans, x, y):
    return unbroadcast(np.ldexp(g, y), x)


@defjvp(np.ldexp, "x")
def ldexp_jvp_x(t, ans, x, y):
    return np.ldexp(t, y)


@elementwise(np.heaviside, "x2")
def heaviside_dx2(ans, x1, x2):
    """`x2` is the value where `x1` is 0; `x1` itself is piecewise constant (discrete)."""
    return np.equal(x1, 0)


discrete(np.heaviside, "x1")


@defvjp(np.bincount, "weights")
def bincount_vjp_weights(g, ans, x, weights=None, minlength=0):
    """Entry i of `weights` was added into bin x[i]; the bins `x` themselves are discrete."""
    return np.take(g, x)


@defjvp(np.bincount, "weights")
def bincount_jvp_weights(t, ans, x, weights=None, minlength=0):
    return np.bincount(x, t, np.size(ans))


discrete(np.bincount, "x")


# --- selection: where, clip ---------------------------------------------------------


@defvjp(np.where, "x")
def where_vjp_x(g, ans, condition, x=None, y=None):
    return unbroadcast(np.where(condition, g, 0.0), x)


@defvjp(np.where, "y")
def where_vjp_y(g, ans, condition, x=None, y=None):
    return unbroadcast(np.where(condition, 0.0, g), y)


# as PyTorch's WhereBackward0 (and MaskedFillBackward0), which save only the condition
where_vjp_x.reads_only_the_shape_of = where_vjp_y.reads_only_the_shape_of = ("x", "y")


@defjvp(np.where, "x")
def where_jvp_x(t, ans, condition, x=None, y=None):
    return np.where(condition, t, 0.0)


@defjvp(np.where, "y")
def where_jvp_y(t, ans, condition, x=None, y=None):
    return np.where(condition, 0.0, t)


# read as booleans (np.sinc's `where(x, x, eps)`): piecewise constant, as np.extract's condition
discrete(np.where, "condition")


def _select_masks(condlist):
    """For np.select: where each choice is taken (its condition holds and no earlier one
    does), and where the default is."""
    taken, masks = False, []
    for condition in condlist:
        masks.append(np.logical_and(condition, np.logical_not(taken)))
        taken = np.logical_or(taken, condition)
    return masks, np.logical_not(taken)


def _select_vjp_choices(g, condlist, choicelist):
    masks, _ = _select_masks(condlist)
    grads = [unbroadcast(np.where(m, g, 0.0), c) for m, c in zip(masks, choicelist)]
    return grads if isinstance(choicelist, list) else tuple(grads)


def _select_jvp_choices(t, ans, condlist, choicelist):
    zero = np.zeros((), dtype=np.result_type(ans))
    return np.select(condlist, [zero if d is None else d for d in t], zero).astype(np.result_type(ans), copy=False)


@defvjp(np.select, "choicelist")
def select_vjp_choicelist(g, ans, condlist, choicelist, default=0):
    return _select_vjp_choices(g, condlist, choicelist)


@defvjp(np.select, "default")
def select_vjp_default(g, ans, condlist, choicelist, default=0):
    return unbroadcast(np.where(_select_masks(condlist)[1], g, 0.0), default)


@defjvp(np.select, "choicelist")
def select_jvp_choicelist(t, ans, condlist, choicelist, default=0):
    return _select_jvp_choices(t, ans, condlist, choicelist)


@defjvp(np.select, "default")
def select_jvp_default(t, ans, condlist, choicelist, default=0):
    return np.where(_select_masks(condlist)[1], t, np.zeros_like(ans))


def _clip_lower_share(ans, x, lower):
    """1 where the lower bound is the result (x is below it), else 0; in ans's dtype."""
    return ((ans != x) & (ans == lower)).astype(np.result_type(ans))


def _clip_upper_share(ans, x, lower):
    """1 where the upper bound is the result (neither x nor the lower bound is)."""
    upper = (ans != x) & ((ans != lower) if lower is not None else True)
    return np.asarray(upper).astype(np.result_type(ans))


def _bound(a_bound, bound):
    return a_bound if a_bound is not None else bound


def _within(x, lower, upper):
    """lower <= x <= upper (a missing bound holds everywhere); False at nan."""
    inside = x == x
    if lower is not None:
        inside = inside & (x >= lower)
    if upper is not None:
        inside = inside & (x <= upper)
    return inside


@defvjp(np.clip, "x")
def clip_vjp_x(g, ans, x, a_min=None, a_max=None, out=None, *, min=None, max=None):
    """g where x is within the bounds, else 0 (a selection: a nan or inf g does not leak
    through); from x and the bounds, as PyTorch's ClampBackward1 saves no result."""
    return unbroadcast(np.where(_within(x, _bound(a_min, min), _bound(a_max, max)), g, 0), x)


@defvjp(np.clip, "a_min")
def clip_vjp_a_min(g, ans, x, a_min=None, a_max=None, out=None, *, min=None, max=None):
    return unbroadcast(g * _clip_lower_share(ans, x, a_min), a_min)


@defvjp(np.clip, "min")
def clip_vjp_min(g, ans, x, a_min=None, a_max=None, out=None, *, min=None, max=None):
    return unbroadcast(g * _clip_lower_share(ans, x, min), min)


@defvjp(np.clip, "a_max")
def clip_vjp_a_max(g, ans, x, a_min=None, a_max=None, out=None, *, min=None, max=None):
    return unbroadcast(g * _clip_upper_share(ans, x, _bound(a_min, min)), a_max)


@defvjp(np.clip, "max")
def clip_vjp_max(g, ans, x, a_min=None, a_max=None, out=None, *, min=None, max=None):
    return unbroadcast(g * _clip_upper_share(ans, x, _bound(a_min, min)), max)


@defjvp(np.clip, "x")
def clip_jvp_x(t, ans, x, a_min=None, a_max=None, out=None, *, min=None, max=None):
    return np.where(ans == x, t, 0)


@defjvp(np.clip, "a_min")
def clip_jvp_a_min(t, ans, x, a_min=None, a_max=None, out=None, *, min=None, max=None):
    return t * _clip_lower_share(ans, x, a_min)


@defjvp(np.clip, "min")
def clip_jvp_min(t, ans, x, a_min=None, a_max=None, out=None, *, min=None, max=None):
    return t * _clip_lower_share(ans, x, min)


@defjvp(np.clip, "a_max")
def clip_jvp_a_max(t, ans, x, a_min=None, a_max=None, out=None, *, min=None, max=None):
    return t * _clip_upper_share(ans, x, _bound(a_min, min))


@defjvp(np.clip, "max")
def clip_jvp_max(t, ans, x, a_min=None, a_max=None, out=None, *, min=None, max=None):
    return t * _clip_upper_share(ans, x, _bound(a_min, min))