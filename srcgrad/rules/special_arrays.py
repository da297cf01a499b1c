"""Special functions of arrays computed with NumPy and `math` alone (PyTorch's lgamma,
digamma, polygamma, mvlgamma, erfinv, logit, xlogy, xlog1py, entr and zeta; SciPy's are
in `special.py`, loaded only when SciPy is; Bessel functions in `bessel_arrays.py`, the
normal distribution's in `normal_arrays.py`).

Each primitive takes arrays (or numbers) and returns an array of the input's float
dtype (an integer input gives float64), computed in float64. Every derivative is an
expression of primitives that have rules themselves, so derivatives of every order
exist: d lgamma = digamma = polygamma(0, .), d polygamma(n, .) = polygamma(n + 1, .),
d erfinv(x) = sqrt(pi) / 2 * exp(erfinv(x) ** 2).

Values where PyTorch defines them: lgamma is inf at the poles (0, -1, -2, ...),
digamma is -inf at 0 (inf at -0) and nan at the negative integers; erfinv is +-inf at +-1 and nan
outside [-1, 1]; xlogy(0, y) and xlog1py(0, y) are 0 unless y is nan; entr is -inf below 0;
zeta(x, q) is inf at x = 1, nan below, and has a derivative in q only (as PyTorch's).
"""

import math

import numpy as np

from .gamma import polygamma as _polygamma_of_float
from .registry import defjvp, defvjp, discrete, elementwise

__all__ = ["lgamma", "digamma", "polygamma", "mvlgamma", "erfinv", "logit", "xlogy", "xlog1py", "entr", "zeta"]

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
    # log(y), and 0 where x is 0 and y <= 0 (PyTorch's mask; log(y) is finite elsewhere)
    return np.log(np.where((x == 0) & (y <= 0), 1.0, y))


@elementwise(xlogy, "y")
def xlogy_dy(ans, x, y):
    return x / y


# --- xlog1py and entr ---------------------------------------------------------------------------


def xlog1py(x, y):
    """x * log1p(y), and 0 where x is 0 unless y is nan (PyTorch's xlog1py), in the
    floating dtype of x and y."""
    dtype = np.result_type(x, y)
    dtype = dtype if dtype.kind in "fc" else np.dtype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where((x == 0) & ~np.isnan(y), 0.0 * x, x * np.log1p(y)).astype(dtype, copy=False)


@elementwise(xlog1py, "x", name="Xlog1py")
def xlog1py_dx(ans, x, y):
    # log1p(y), and 0 where x is 0 and y <= -1 (PyTorch's mask)
    return np.log1p(np.where((x == 0) & (y <= -1), 0.0, y))


@elementwise(xlog1py, "y")
def xlog1py_dy(ans, x, y):
    return x / (y + 1.0)


def entr(x):
    """-x log(x) of each element: 0 at 0, -inf below 0, nan at nan."""
    v = np.asarray(x)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.where(v > 0, -v * np.log(np.where(v > 0, v, 1.0)), np.where(v == 0, 0.0, -np.inf))
    out = np.where(np.isnan(v), v, out)
    return out.astype(_float_dtype(x), copy=False)


@elementwise(entr, name="Entr")
def entr_d(ans, x):
    return -(1.0 + np.log(x))


# --- mvlgamma -------------------------------------------------------------------------------------


def _mvlgamma_shifts(p):
    """PyTorch's arange(-p / 2 + 1 / 2, 1 / 2, 1 / 2): -(p - 1) / 2, ..., -1 / 2, 0."""
    return [0.5 * (j - (p - 1)) for j in range(p)]


def mvlgamma(x, p):
    """The multivariate log-gamma function of dimension p at each element:
    p (p - 1) / 4 log(pi) + sum of lgamma(x - j / 2), j = 0 .. p - 1 (summed from
    j = p - 1 down, as PyTorch's)."""
    total = None
    for shift in _mvlgamma_shifts(p):
        term = lgamma(np.asarray(x) + shift)
        total = term if total is None else total + term
    return (total + p * (p - 1) * math.log(math.pi) / 4).astype(_float_dtype(x), copy=False)


@defvjp(mvlgamma, "x", name="Mvlgamma")
def mvlgamma_vjp(g, ans, x, p):
    return g * _mvlgamma_slope(x, p)


@defjvp(mvlgamma, "x")
def mvlgamma_jvp(t, ans, x, p):
    return t * _mvlgamma_slope(x, p)


def _mvlgamma_slope(x, p):
    total = None
    for shift in _mvlgamma_shifts(p):
        term = digamma(x + shift)
        total = term if total is None else total + term
    return total


discrete(mvlgamma, "p")


# --- zeta -----------------------------------------------------------------------------------------

_ZETA_A = (12.0, -720.0, 30240.0, -1209600.0, 47900160.0, -1.8924375803183791606e9, 7.47242496e10,
           -2.950130727918164224e12, 1.1646782814350067249e14, -4.5979787224074726105e15,
           1.8152105401943546773e17, -7.1661652561756670113e18)
_MACHEP = 1.11022302462515654042e-16


def _zeta_of_floats(x, q):
    """The Hurwitz zeta function sum over k >= 0 of (k + q)**-x, by Cephes' Euler-Maclaurin
    summation (as PyTorch's)."""
    if x == 1.0:
        return math.inf
    if x < 1.0:
        return math.nan
    if q <= 0.0:
        if q == math.floor(q):
            return math.inf
        if x != math.floor(x):
            return math.nan
    s = q**-x
    a, b, i = q, 0.0, 0
    while i < 9 or a <= 9.0:
        i += 1
        a += 1.0
        b = a**-x
        s += b
        if -_MACHEP * s < b < _MACHEP * s:
            return s
    w = a
    s += b * w / (x - 1.0)
    s -= 0.5 * b
    a, k = 1.0, 0.0
    for coefficient in _ZETA_A:
        a *= x + k
        b /= w
        t = a * b / coefficient
        s = s + t
        if abs(t / s) < _MACHEP:
            return s
        k += 1.0
        a *= x + k
        b /= w
        k += 1.0
    return s


def _zeta_or_nan(x, q):
    if math.isnan(x) or math.isnan(q):
        return math.nan
    try:
        return _zeta_of_floats(x, q)
    except (OverflowError, ZeroDivisionError):
        return math.inf


_ZETA = np.frompyfunc(_zeta_or_nan, 2, 1)


def zeta(x, q):
    """The Hurwitz zeta function zeta(x, q) of each pair of elements (broadcast), in
    their floating dtype."""
    dtype = np.result_type(x, q)
    dtype = dtype if dtype.kind == "f" else np.dtype(np.float64)
    out = _ZETA(np.asarray(x, dtype=np.float64), np.asarray(q, dtype=np.float64))
    return np.asarray(out, dtype=np.float64).astype(dtype, copy=False)


@elementwise(zeta, "q", name="Zeta")
def zeta_dq(ans, x, q):
    return -x * zeta(x + 1.0, q)
