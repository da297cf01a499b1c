"""Special functions of arrays computed with NumPy and `math` alone (PyTorch's lgamma,
digamma, polygamma, erfinv, logit, xlogy, and the modified Bessel functions i0 and i1; SciPy's are in `special.py`, loaded only
when SciPy is).

Each primitive takes arrays (or numbers) and returns an array of the input's float
dtype (an integer input gives float64), computed in float64. Every derivative is an
expression of primitives that have rules themselves, so derivatives of every order
exist: d lgamma = digamma = polygamma(0, .), d polygamma(n, .) = polygamma(n + 1, .),
d erfinv(x) = sqrt(pi) / 2 * exp(erfinv(x) ** 2), d i0 = i1, d i1(x) = i0(x) - i1(x) / x
(1/2 at 0).

Values where PyTorch defines them: lgamma is inf at the poles (0, -1, -2, ...),
digamma is -inf at 0 (inf at -0) and nan at the negative integers; erfinv is +-inf at +-1 and nan
outside [-1, 1]; xlogy(0, y) is 0 unless y is nan.
"""

import math

import numpy as np

from .gamma import polygamma as _polygamma_of_float
from .registry import defjvp, defvjp, discrete, elementwise

__all__ = ["lgamma", "digamma", "polygamma", "erfinv", "logit", "xlogy", "i0", "i1"]

_SQRT_PI_OVER_2 = math.sqrt(math.pi) / 2.0
_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)


def _float_dtype(x):
    dt = np.result_type(x)
    return dt if dt.kind == "f" else np.dtype(np.float64)


def _each(scalar, x):
    """`scalar` of each element of `x` in float64, as an array of x's float dtype."""
    v = np.asarray(x, dtype=np.float64)
    out = np.array([scalar(e) for e in v.ravel().tolist()], dtype=np.float64).reshape(v.shape)
    return out.astype(_float_dtype(x), copy=False)


def _lgamma_of_float(v):
    try:
        return math.lgamma(v)
    except ValueError:  # a pole: math raises, PyTorch gives inf
        return math.inf


def _digamma_of_float(v):
    if v == 0.0:  # PyTorch's digamma(0.0) is -inf, of -0.0 inf; the negative integers give nan
        return -math.copysign(math.inf, v)
    if math.isinf(v):
        return v if v > 0 else math.nan
    return _polygamma_of_float(0, v)


def lgamma(x):
    """log |gamma(x)| of each element; inf at the poles."""
    return _each(_lgamma_of_float, x)


def digamma(x):
    """d lgamma(x) / dx of each element; -inf at 0, nan at the negative integers."""
    return _each(_digamma_of_float, x)


def _polygamma_at_pole(n, v):
    """PyTorch's polygamma(n, v), n >= 1, at a pole v: +-inf (the sign of (-1)**(n + 1))
    at 0, and at the negative integers for n >= 2 (nan there for n = 1)."""
    if v < 0.0 and n == 1:
        return math.nan
    return math.inf if n % 2 else -math.inf


def polygamma(n, x):
    """The n-th derivative of digamma at each element of `x` (n = 0: digamma)."""
    if n == 0:
        return digamma(x)

    def of_float(v):
        if math.isinf(v):
            return 0.0 if v > 0 else math.nan
        if v <= 0.0 and v == math.floor(v):
            return _polygamma_at_pole(n, v)
        return _polygamma_of_float(n, v)

    return _each(of_float, x)


@elementwise(lgamma, name="Lgamma")
def lgamma_d(ans, x):
    return digamma(x)


@elementwise(digamma, name="Digamma")
def digamma_d(ans, x):
    return polygamma(1, x)


@defvjp(polygamma, "x", name="Polygamma")
def polygamma_vjp(g, ans, n, x):
    return g * polygamma(n + 1, x)


@defjvp(polygamma, "x")
def polygamma_jvp(t, ans, n, x):
    return t * polygamma(n + 1, x)


discrete(polygamma, "n")

# --- erfinv: an initial guess, then Halley steps on erf ---------------------------------------

_ERF = np.frompyfunc(math.erf, 1, 1)
_ERFC = np.frompyfunc(math.erfc, 1, 1)
_CENTRAL = (2.81022636e-08, 3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087, -0.00125372503,
            -0.00417768164, 0.246640727, 1.50140941)
_TAIL = (-0.000200214257, 0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773, -0.0076224613,
         0.00943887047, 1.00167406, 2.83297682)


def _erfinv_guess(y):
    """Giles' single-precision approximation of erfinv(y) for 0 <= y < 1 (relative
    error about 1e-7 for the central branch, a few digits at the far tail)."""
    w = -np.log((1.0 - y) * (1.0 + y))
    central, tail = w - 2.5, np.sqrt(w) - 3.0
    p = np.where(w < 5.0, _CENTRAL[0], _TAIL[0])
    for a, b in zip(_CENTRAL[1:], _TAIL[1:]):
        p = np.where(w < 5.0, a + p * central, b + p * tail)
    return p * y


def _erfinv_of_magnitude(y):
    """erfinv(y) for float64 0 <= y < 1: the guess, then Halley steps x -= u / (1 + x u)
    with u = (erf(x) - y) / erf'(x); the residual is (1 - y) - erfc(x) past 0.5, where
    1 - y is exact and erf(x) - y would cancel."""
    x = _erfinv_guess(y)
    for _ in range(7):  # the far tail (1 - y near 1e-16) needs six from its guess
        erf_x = np.asarray(_ERF(x), dtype=np.float64)
        erfc_x = np.asarray(_ERFC(x), dtype=np.float64)
        residual = np.where(y > 0.5, (1.0 - y) - erfc_x, erf_x - y)
        u = residual / (_TWO_OVER_SQRT_PI * np.exp(-x * x))
        x = x - u / (1.0 + x * u)
    return x


def erfinv(x):
    """The inverse of erf at each element: +-inf at +-1, nan outside [-1, 1]; float64
    accurate to about 1 ulp."""
    y = np.asarray(x, dtype=np.float64)
    size = np.abs(y)
    inside = size < 1.0
    with np.errstate(all="ignore"):
        magnitude = _erfinv_of_magnitude(np.where(inside, size, 0.0))
    out = np.where(inside, magnitude, np.where(size == 1.0, np.inf, np.nan))
    out = np.copysign(out, y)
    return out.astype(_float_dtype(x), copy=False)


@elementwise(erfinv, name="Erfinv")
def erfinv_d(ans, x):
    return _SQRT_PI_OVER_2 * np.exp(ans * ans)


# --- modified Bessel functions of the first kind, orders 0 and 1 ------------------------------

_SERIES_LIMIT = 15.0  # below: the power series (positive terms, 60 of them); above: the integral
_ANGLES = np.linspace(0.0, np.pi, 257)  # half of 512 equally spaced angles around the circle
_ANGLE_WEIGHTS = np.r_[0.5, np.ones(255), 0.5] / 256.0


def _bessel_series(v, order):
    """sum_k (v/2)^(2k + order) / (k! (k + order)!) for an array v with |v| <= 15."""
    q = (v / 2.0) ** 2
    term = (v / 2.0) ** order
    total = term.copy()
    for k in range(1, 60):
        term = term * q / (k * (k + order))
        total = total + term
    return total


def _bessel_integral(v, order):
    """(1/pi) * integral over [0, pi] of exp(v cos t) cos(order t) dt by the trapezoid rule
    on 512 angles (exact to rounding for |v| up to about 800: the integrand is periodic).
    Computed for |v| as exp(|v|) times the integral of exp(-2 |v| sin(t/2)^2) cos(order t),
    whose exponent is exact where the terms count; beyond exp's range through a logarithm,
    so the result overflows only where the function does. Order 1 is odd in v."""
    out = np.empty(v.shape)
    drops = 2.0 * np.sin(_ANGLES / 2.0) ** 2  # 1 - cos t, without the cancellation
    for start in range(0, v.size, 4096):
        size = np.abs(v[start:start + 4096])
        s = (np.exp(-np.multiply.outer(size, drops)) * np.cos(order * _ANGLES)) @ _ANGLE_WEIGHTS
        direct = s * np.exp(np.minimum(size, 700.0))
        out[start:start + 4096] = np.where(size <= 700.0, direct, np.exp(size + np.log(s)))
    return out if order == 0 else np.sign(v) * out


def _bessel(x, order):
    v = np.asarray(x, dtype=np.float64)
    flat = v.ravel()
    out = np.full(flat.shape, np.nan)
    small = np.abs(flat) <= _SERIES_LIMIT
    infinite = np.isinf(flat)
    large = ~small & ~infinite & ~np.isnan(flat)
    with np.errstate(all="ignore"):
        out[small] = _bessel_series(flat[small], order)
        out[large] = _bessel_integral(flat[large], order)
    out[infinite] = np.inf if order == 0 else flat[infinite]
    return out.reshape(v.shape).astype(_float_dtype(x), copy=False)


def i0(x):
    """The modified Bessel function of the first kind of order 0 at each element."""
    return _bessel(x, 0)


def i1(x):
    """The modified Bessel function of the first kind of order 1 at each element (odd)."""
    return _bessel(x, 1)


@elementwise(i0, name="I0")
def i0_d(ans, x):
    return i1(x)


@elementwise(i1, name="I1")
def i1_d(ans, x):
    nonzero = np.where(x == 0, 1.0, x)  # 1/x is read away from 0 only: no 0 * inf at higher orders
    return np.where(x == 0, 0.5, i0(x) - i1(nonzero) / nonzero)


# --- logit and xlogy ----------------------------------------------------------------------------


def logit(x, eps=None):
    """log(z / (1 - z)), z = x clamped to [eps, 1 - eps] when eps is given (PyTorch's
    logit)."""
    z = x if eps is None else np.clip(x, eps, 1.0 - eps)
    return np.log(z / (1.0 - z))


@defvjp(logit, "x", name="Logit")
def logit_vjp(g, ans, x, eps=None):
    return g * _logit_slope(x, eps)


@defjvp(logit, "x")
def logit_jvp(t, ans, x, eps=None):
    return t * _logit_slope(x, eps)


discrete(logit, "eps")


def _logit_slope(x, eps):
    """1 / (x (1 - x)); outside [eps, 1 - eps] 0 (nan outside [0, 1] without eps), as
    PyTorch's logit_backward."""
    if eps is None:
        return np.where((x < 0.0) | (x > 1.0), np.nan, 1.0 / (x * (1.0 - x)))
    return np.where((x < eps) | (x > 1.0 - eps), 0.0, 1.0 / (x * (1.0 - x)))


def xlogy(x, y):
    """x * log(y), and 0 where x is 0 unless y is nan (PyTorch's xlogy), in the floating
    dtype of x and y (a Python number is weak: float32 x with y = 2.5 stays float32)."""
    dtype = np.result_type(x, y)
    dtype = dtype if dtype.kind in "fc" else np.dtype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where((x == 0) & ~np.isnan(y), 0.0 * x, x * np.log(y)).astype(dtype, copy=False)


@elementwise(xlogy, "x", name="Xlogy")
def xlogy_dx(ans, x, y):
    return xlogy(np.sign(np.abs(x)), y)  # log(y) where x is not 0 (1 or 0 of x's dtype)


@elementwise(xlogy, "y")
def xlogy_dy(ans, x, y):
    return x / y
