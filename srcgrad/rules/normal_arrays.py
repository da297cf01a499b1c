"""The standard normal distribution's special functions of arrays with NumPy and `math`
alone, as PyTorch computes them: erfcx(x) = exp(x^2) erfc(x), log_ndtr(x) = log Phi(x)
(through erfcx in the left tail, where Phi underflows) and ndtri, the inverse of Phi
(Cephes' rational approximations, coefficients as in PyTorch's ATen/native/Math.h,
3-clause BSD).

Each primitive computes in float64 and returns the input's float dtype (an integer
input gives float64). erfcx multiplies erfc by exp(x^2) taken from the exact square
(x^2 = hi + lo, exp(hi) (1 + lo)) for x >= 0, with a continued fraction past x = 26
where erfc underflows; below 0 it is PyTorch's 2 exp(x^2) - erfcx(-x), with x^2
rounded as PyTorch rounds it. Derivatives, each an expression of primitives with rules: erfcx' = 2 x
erfcx - 2 / sqrt(pi), log_ndtr' = exp(-x^2 / 2 - log_ndtr) / sqrt(2 pi) and ndtri' =
sqrt(2 pi) exp(ndtri^2 / 2), as PyTorch's.
"""

import math

import numpy as np

from .registry import elementwise

__all__ = ["erfcx", "log_ndtr", "ndtri"]

_ERFC = np.frompyfunc(math.erfc, 1, 1)
_INV_SQRT_PI = 0.56418958354775628694807945156
_SQRT_2PI = math.sqrt(2.0 * math.pi)
_SQRT_HALF = 0.707106781186547524400844362104849039  # PyTorch's frac_sqrt_2
_SPLIT = 134217729.0  # 2**27 + 1, Veltkamp's splitting constant

_NDTRI_P0 = (
    -5.99633501014107895267E1, 9.80010754185999661536E1, -5.66762857469070293439E1, 1.39312609387279679503E1,
    -1.23916583867381258016E0,
)
_NDTRI_Q0 = (
    1.00000000000000000000E0, 1.95448858338141759834E0, 4.67627912898881538453E0, 8.63602421390890590575E1,
    -2.25462687854119370527E2, 2.00260212380060660359E2, -8.20372256168333339912E1, 1.59056225126211695515E1,
    -1.18331621121330003142E0,
)
_NDTRI_P1 = (
    4.05544892305962419923E0, 3.15251094599893866154E1, 5.71628192246421288162E1, 4.40805073893200834700E1,
    1.46849561928858024014E1, 2.18663306850790267539E0, -1.40256079171354495875E-1,
    -3.50424626827848203418E-2, -8.57456785154685413611E-4,
)
_NDTRI_Q1 = (
    1.00000000000000000000E0, 1.57799883256466749731E1, 4.53907635128879210584E1, 4.13172038254672030440E1,
    1.50425385692907503408E1, 2.50464946208309415979E0, -1.42182922854787788574E-1,
    -3.80806407691578277194E-2, -9.33259480895457427372E-4,
)
_NDTRI_P2 = (
    3.23774891776946035970E0, 6.91522889068984211695E0, 3.93881025292474443415E0, 1.33303460815807542389E0,
    2.01485389549179081538E-1, 1.23716634817820021358E-2, 3.01581553508235416007E-4,
    2.65806974686737550832E-6, 6.23974539184983293730E-9,
)
_NDTRI_Q2 = (
    1.00000000000000000000E0, 6.02427039364742014255E0, 3.67983563856160859403E0, 1.37702099489081330271E0,
    2.16236993594496635890E-1, 1.34204006088543189037E-2, 3.28014464682127739104E-4,
    2.89247864745380683936E-6, 6.79019408009981274425E-9,
)


def _float_dtype(x):
    dt = np.result_type(x)
    return dt if dt.kind == "f" else np.dtype(np.float64)


def _exp_of_square(v):
    """exp(v * v) without the rounding of v * v: the square split into hi + lo exactly
    (Dekker), then exp(hi) * (1 + lo)."""
    high = v * v
    part = _SPLIT * v
    v_high = part - (part - v)
    v_low = v - v_high
    low = ((v_high * v_high - high) + 2.0 * v_high * v_low) + v_low * v_low
    return np.exp(high) * (1.0 + low)


def _erfcx_continued_fraction(v):
    """erfcx(v) for v >= 26 by Laplace's continued fraction
    1 / sqrt(pi) / (v + 1/2 / (v + 1 / (v + 3/2 / (v + ...)))) (30 levels)."""
    tail = v
    for k in range(30, 0, -1):
        tail = v + (k / 2.0) / tail
    return _INV_SQRT_PI / tail


def _erfcx_of_nonnegative(v):
    with np.errstate(all="ignore"):
        direct = _exp_of_square(np.minimum(v, 26.0)) * np.asarray(_ERFC(np.minimum(v, 26.0)), dtype=np.float64)
        far = _erfcx_continued_fraction(np.maximum(v, 26.0))
    return np.where(v < 26.0, direct, far)


def erfcx(x):
    """exp(x^2) erfc(x) of each element: about 1 / (x sqrt(pi)) for large x, inf below
    -26.7, as PyTorch's."""
    v = np.asarray(x, dtype=np.float64)
    dtype = _float_dtype(x)
    with np.errstate(all="ignore"):
        positive = _erfcx_of_nonnegative(np.abs(v))
        # below 0, PyTorch's 2 exp(x * x) with x * x rounded in the input's dtype
        clamped = np.maximum(v, -26.7).astype(dtype)
        doubled = 2.0 * np.exp((clamped * clamped).astype(np.float64))
        negative = np.where(v < -6.1, doubled, doubled - positive)
        out = np.where(v >= 0.0, positive, np.where(v < -26.7, np.inf, negative))
        out = np.where(np.isnan(v), v, out)
        return out.astype(dtype, copy=False)


def log_ndtr(x):
    """log of the standard normal distribution function at each element:
    log(erfcx(-t) / 2) - t^2 below -1 (t = x / sqrt 2), log1p(-erfc(t) / 2) above."""
    v = np.asarray(x, dtype=np.float64)
    t = v * _SQRT_HALF
    with np.errstate(all="ignore"):
        left = np.log(erfcx(-t) / 2.0) - t * t
        right = np.log1p(-np.asarray(_ERFC(t), dtype=np.float64) / 2.0)
        return np.where(v < -1.0, left, right).astype(_float_dtype(x), copy=False)


def _polynomial(z, coefficients):
    out = np.zeros_like(z)
    for c in coefficients:
        out = out * z + c
    return out


_EXP_MINUS_2 = 0.13533528323661269189


def ndtri(x):
    """The inverse of the standard normal distribution function at each element:
    -inf at 0, inf at 1, nan outside [0, 1] (Cephes' ndtri)."""
    y0 = np.asarray(x, dtype=np.float64)
    upper = y0 > 1.0 - _EXP_MINUS_2
    y = np.where(upper, 1.0 - y0, y0)
    with np.errstate(all="ignore"):
        centred = y - 0.5
        square = centred * centred
        central = (centred + centred * (square * _polynomial(square, _NDTRI_P0) / _polynomial(square, _NDTRI_Q0)))
        central = central * 2.50662827463100050242e0
        root = np.sqrt(-2.0 * np.log(y))
        start = root - np.log(root) / root
        z = 1.0 / root
        near = z * _polynomial(z, _NDTRI_P1) / _polynomial(z, _NDTRI_Q1)
        far = z * _polynomial(z, _NDTRI_P2) / _polynomial(z, _NDTRI_Q2)
        tail = start - np.where(root < 8.0, near, far)
        tail = np.where(upper, tail, -tail)
        out = np.where(y > _EXP_MINUS_2, central, tail)
        out = np.where(y0 == 0.0, -np.inf, np.where(y0 == 1.0, np.inf, out))
        out = np.where((y0 < 0.0) | (y0 > 1.0), np.nan, out)
        return out.astype(_float_dtype(x), copy=False)


@elementwise(erfcx, name="Erfcx")
def erfcx_d(ans, x):
    return 2.0 * x * ans - 2.0 * _INV_SQRT_PI


@elementwise(log_ndtr, name="LogNdtr")
def log_ndtr_d(ans, x):
    return np.exp(-(ans + x * x / 2.0)) / _SQRT_2PI


@elementwise(ndtri, name="Ndtri")
def ndtri_d(ans, x):
    return _SQRT_2PI * np.exp(ans * ans / 2.0)
