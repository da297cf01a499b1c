"""Bessel functions of arrays with NumPy alone, as PyTorch computes them: the modified
Bessel functions of the first kind i0, i1 and their exponentially scaled forms i0e, i1e
(Chebyshev expansions on [0, 8] and (8, inf)), and the Bessel functions of the first
kind bessel_j0, bessel_j1 (rational approximations on [0, 5], asymptotic forms past 5).
The coefficients are the Cephes Math Library's, as PyTorch's ATen/native/Math.h holds
them (3-clause BSD). Two of j0's and j1's denominators are Cephes' monic polynomials
(p1evl); PyTorch's port leaves out their leading term, so its bessel_j0 and bessel_j1
are off by up to about 2e-7 (5e-10 relative at x = 3.7), where these equal Cephes'
(SciPy's) to the last bit.

Each primitive computes in float64 and returns the input's float dtype (an integer
input gives float64). Derivatives, each an expression of primitives with rules:
i0' = i1, i0e' = i1e - sign(x) i0e, i1' = i0 - i1 / x and i1e' = i0e - i1e (sign(x)
+ 1 / x) (both 1/2 at 0, as PyTorch's), j0' = -j1 and j1' = j0 - j1 / x (1/2 at 0).
PyTorch's bessel_j0 and bessel_j1 have no derivative; the rules here serve the compiler.
"""

import numpy as np

from .registry import elementwise

__all__ = ["i0", "i0e", "i1", "i1e", "bessel_j0", "bessel_j1"]

_EPS = float(np.finfo(np.float64).eps)

_I0E_SMALL = (
    -4.41534164647933937950E-18, 3.33079451882223809783E-17, -2.43127984654795469359E-16,
    1.71539128555513303061E-15, -1.16853328779934516808E-14, 7.67618549860493561688E-14,
    -4.85644678311192946090E-13, 2.95505266312963983461E-12, -1.72682629144155570723E-11,
    9.67580903537323691224E-11, -5.18979560163526290666E-10, 2.65982372468238665035E-9,
    -1.30002500998624804212E-8, 6.04699502254191894932E-8, -2.67079385394061173391E-7,
    1.11738753912010371815E-6, -4.41673835845875056359E-6, 1.64484480707288970893E-5,
    -5.75419501008210370398E-5, 1.88502885095841655729E-4, -5.76375574538582365885E-4,
    1.63947561694133579842E-3, -4.32430999505057594430E-3, 1.05464603945949983183E-2,
    -2.37374148058994688156E-2, 4.93052842396707084878E-2, -9.49010970480476444210E-2,
    1.71620901522208775349E-1, -3.04682672343198398683E-1, 6.76795274409476084995E-1,
)
_I0E_LARGE = (
    -7.23318048787475395456E-18, -4.83050448594418207126E-18, 4.46562142029675999901E-17,
    3.46122286769746109310E-17, -2.82762398051658348494E-16, -3.42548561967721913462E-16,
    1.77256013305652638360E-15, 3.81168066935262242075E-15, -9.55484669882830764870E-15,
    -4.15056934728722208663E-14, 1.54008621752140982691E-14, 3.85277838274214270114E-13,
    7.18012445138366623367E-13, -1.79417853150680611778E-12, -1.32158118404477131188E-11,
    -3.14991652796324136454E-11, 1.18891471078464383424E-11, 4.94060238822496958910E-10,
    3.39623202570838634515E-9, 2.26666899049817806459E-8, 2.04891858946906374183E-7,
    2.89137052083475648297E-6, 6.88975834691682398426E-5, 3.36911647825569408990E-3,
    8.04490411014108831608E-1,
)
_I1E_SMALL = (
    2.77791411276104639959E-18, -2.11142121435816608115E-17, 1.55363195773620046921E-16,
    -1.10559694773538630805E-15, 7.60068429473540693410E-15, -5.04218550472791168711E-14,
    3.22379336594557470981E-13, -1.98397439776494371520E-12, 1.17361862988909016308E-11,
    -6.66348972350202774223E-11, 3.62559028155211703701E-10, -1.88724975172282928790E-9,
    9.38153738649577178388E-9, -4.44505912879632808065E-8, 2.00329475355213526229E-7,
    -8.56872026469545474066E-7, 3.47025130813767847674E-6, -1.32731636560394358279E-5,
    4.78156510755005422638E-5, -1.61760815825896745588E-4, 5.12285956168575772895E-4,
    -1.51357245063125314899E-3, 4.15642294431288815669E-3, -1.05640848946261981558E-2,
    2.47264490306265168283E-2, -5.29459812080949914269E-2, 1.02643658689847095384E-1,
    -1.76416518357834055153E-1, 2.52587186443633654823E-1,
)
_I1E_LARGE = (
    7.51729631084210481353E-18, 4.41434832307170791151E-18, -4.65030536848935832153E-17,
    -3.20952592199342395980E-17, 2.96262899764595013876E-16, 3.30820231092092828324E-16,
    -1.88035477551078244854E-15, -3.81440307243700780478E-15, 1.04202769841288027642E-14,
    4.27244001671195135429E-14, -2.10154184277266431302E-14, -4.08355111109219731823E-13,
    -7.19855177624590851209E-13, 2.03562854414708950722E-12, 1.41258074366137813316E-11,
    3.25260358301548823856E-11, -1.89749581235054123450E-11, -5.58974346219658380687E-10,
    -3.83538038596423702205E-9, -2.63146884688951950684E-8, -2.51223623787020892529E-7,
    -3.88256480887769039346E-6, -1.10588938762623716291E-4, -9.76109749136146840777E-3,
    7.78576235018280120474E-1,
)
_J0_PP = (
    7.96936729297347051624e-04, 8.28352392107440799803e-02, 1.23953371646414299388e+00,
    5.44725003058768775090e+00, 8.74716500199817011941e+00, 5.30324038235394892183e+00,
    9.99999999999999997821e-01,
)
_J0_PQ = (
    9.24408810558863637013e-04, 8.56288474354474431428e-02, 1.25352743901058953537e+00,
    5.47097740330417105182e+00, 8.76190883237069594232e+00, 5.30605288235394617618e+00,
    1.00000000000000000218e+00,
)
_J0_QP = (
    -1.13663838898469149931e-02, -1.28252718670509318512e+00, -1.95539544257735972385e+01,
    -9.32060152123768231369e+01, -1.77681167980488050595e+02, -1.47077505154951170175e+02,
    -5.14105326766599330220e+01, -6.05014350600728481186e+00,
)
_J0_QQ = (
    6.43178256118178023184e+01, 8.56430025976980587198e+02, 3.88240183605401609683e+03,
    7.24046774195652478189e+03, 5.93072701187316984827e+03, 2.06209331660327847417e+03,
    2.42005740240291393179e+02,
)
_J0_RP = (
    -4.79443220978201773821e+09, 1.95617491946556577543e+12, -2.49248344360967716204e+14,
    9.70862251047306323952e+15,
)
_J0_RQ = (
    4.99563147152651017219e+02, 1.73785401676374683123e+05, 4.84409658339962045305e+07,
    1.11855537045356834862e+10, 2.11277520115489217587e+12, 3.10518229857422583814e+14,
    3.18121955943204943306e+16, 1.71086294081043136091e+18,
)
_J1_PP = (
    7.62125616208173112003e-04, 7.31397056940917570436e-02, 1.12719608129684925192e+00,
    5.11207951146807644818e+00, 8.42404590141772420927e+00, 5.21451598682361504063e+00,
    1.00000000000000000254e+00,
)
_J1_PQ = (
    5.71323128072548699714e-04, 6.88455908754495404082e-02, 1.10514232634061696926e+00,
    5.07386386128601488557e+00, 8.39985554327604159757e+00, 5.20982848682361821619e+00,
    9.99999999999999997461e-01,
)
_J1_QP = (
    5.10862594750176621635e-02, 4.98213872951233449420e+00, 7.58238284132545283818e+01,
    3.66779609360150777800e+02, 7.10856304998926107277e+02, 5.97489612400613639965e+02,
    2.11688757100572135698e+02, 2.52070205858023719784e+01,
)
_J1_QQ = (
    7.42373277035675149943e+01, 1.05644886038262816351e+03, 4.98641058337653607651e+03,
    9.56231892404756170795e+03, 7.99704160447350683650e+03, 2.82619278517639096600e+03,
    3.36093607810698293419e+02,
)
_J1_RP = (
    -8.99971225705559398224e+08, 4.52228297998194034323e+11, -7.27494245221818276015e+13,
    3.68295732863852883286e+15,
)
_J1_RQ = (
    6.20836478118054335476e+02, 2.56987256757748830383e+05, 8.35146791431949253037e+07,
    2.21511595479792499675e+10, 4.74914122079991414898e+12, 7.84369607876235854894e+14,
    8.95222336184627338078e+16, 5.32278620332680085395e+18,
)


def _float_dtype(x):
    dt = np.result_type(x)
    return dt if dt.kind == "f" else np.dtype(np.float64)


def _chbevl(y, coefficients):
    """Cephes' Chebyshev series sum at y, with its recurrence and rounding order."""
    b0, b1, b2 = np.full_like(y, coefficients[0]), np.zeros_like(y), np.zeros_like(y)
    for c in coefficients[1:]:
        b2 = b1
        b1 = b0
        b0 = y * b1 - b2 + c
    return 0.5 * (b0 - b2)


def _polynomial(z, coefficients):
    """sum c_k z^(n - k) by Horner's rule from the highest power (Cephes' polevl)."""
    out = np.zeros_like(z)
    for c in coefficients:
        out = out * z + c
    return out


def _monic(z, coefficients):
    """z^n + sum c_k z^(n - 1 - k): Cephes' p1evl, whose leading coefficient 1 is implied."""
    out = np.ones_like(z)
    for c in coefficients:
        out = out * z + c
    return out


def _scaled(x, small, large, times_x):
    """exp(-|x|) I_n(|x|): the series on [0, 8] (times |x| for n = 1), or on (8, inf)
    over sqrt(|x|)."""
    size = np.abs(np.asarray(x, dtype=np.float64))
    with np.errstate(all="ignore"):
        near = _chbevl(size / 2.0 - 2.0, small)
        near = near * size if times_x else near
        far = _chbevl(32.0 / size - 2.0, large) / np.sqrt(size)
    return size, near, far


def i0e(x):
    """exp(-|x|) I0(x) of each element."""
    size, near, far = _scaled(x, _I0E_SMALL, _I0E_LARGE, False)
    return np.where(size <= 8.0, near, far).astype(_float_dtype(x), copy=False)


def i0(x):
    """The modified Bessel function I0 of each element (inf past about 713)."""
    size, near, far = _scaled(x, _I0E_SMALL, _I0E_LARGE, False)
    with np.errstate(all="ignore"):
        grown = np.exp(size)
        out = np.where(size <= 8.0, grown * near, grown * far)
    return out.astype(_float_dtype(x), copy=False)


def i1e(x):
    """exp(-|x|) I1(x) of each element (odd)."""
    size, near, far = _scaled(x, _I1E_SMALL, _I1E_LARGE, True)
    out = np.where(size <= 8.0, near, far)
    return np.where(np.asarray(x) < 0.0, -out, out).astype(_float_dtype(x), copy=False)


def i1(x):
    """The modified Bessel function I1 of each element (odd)."""
    size = np.abs(np.asarray(x, dtype=np.float64))
    with np.errstate(all="ignore"):
        grown = np.exp(size)
        near = grown * size * _chbevl(size / 2.0 - 2.0, _I1E_SMALL)
        far = (grown * _chbevl(32.0 / size - 2.0, _I1E_LARGE)) / np.sqrt(size)
    out = np.where(size <= 8.0, near, far)
    return np.where(np.asarray(x) < 0.0, -out, out).astype(_float_dtype(x), copy=False)


_QUARTER_PI = 0.785398163397448309615660845819875721
_THREE_QUARTER_PI = 2.356194490192344928846982537459627163
_SQRT_2_OVER_PI = 0.797884560802865355879892119868763737


def bessel_j0(x):
    """The Bessel function J0 of each element (even)."""
    v = np.abs(np.asarray(x, dtype=np.float64))
    square = v * v
    with np.errstate(all="ignore"):
        near = ((square - 5.78318596294678452118e00) * (square - 3.04712623436620863991e01)
                * _polynomial(square, _J0_RP) / _monic(square, _J0_RQ))
        near = np.where(v < 0.00001, 1.0 - square / 4.0, near)
        z = 25.0 / square
        far = ((_polynomial(z, _J0_PP) / _polynomial(z, _J0_PQ) * np.cos(v - _QUARTER_PI)
                - 5.0 / v * (_polynomial(z, _J0_QP) / _monic(z, _J0_QQ)) * np.sin(v - _QUARTER_PI))
               * _SQRT_2_OVER_PI / np.sqrt(v))
    return np.where(v <= 5.0, near, far).astype(_float_dtype(x), copy=False)


def bessel_j1(x):
    """The Bessel function J1 of each element (odd)."""
    signed = np.asarray(x, dtype=np.float64)
    v = np.abs(signed)
    square = v * v
    with np.errstate(all="ignore"):
        near = (_polynomial(square, _J1_RP) / _monic(square, _J1_RQ) * v
                * (square - 1.46819706421238932572e01) * (square - 4.92184563216946036703e01))
        z = 5.0 / v * (5.0 / v)
        far = ((_polynomial(z, _J1_PP) / _polynomial(z, _J1_PQ) * np.cos(v - _THREE_QUARTER_PI)
                - 5.0 / v * (_polynomial(z, _J1_QP) / _monic(z, _J1_QQ)) * np.sin(v - _THREE_QUARTER_PI))
               * _SQRT_2_OVER_PI / np.sqrt(v))
    out = np.where(v <= 5.0, near, far)
    return np.where(signed < 0.0, -out, out).astype(_float_dtype(x), copy=False)


def _away_from_zero(x):
    """x, with the elements within eps of 0 replaced by eps (PyTorch's safe_self)."""
    return np.where(np.abs(x) > _EPS, x, _EPS)


@elementwise(i0, name="I0")
def i0_d(ans, x):
    return i1(x)


@elementwise(i0e, name="I0e")
def i0e_d(ans, x):
    return i1e(x) - np.sign(x) * ans


@elementwise(i1, name="I1")
def i1_d(ans, x):
    safe = _away_from_zero(x)
    return np.where(np.abs(x) > _EPS, i0(safe) - ans / safe, 0.5)


@elementwise(i1e, name="I1e")
def i1e_d(ans, x):
    safe = _away_from_zero(x)
    return np.where(np.abs(x) > _EPS, i0e(safe) - ans * (np.sign(safe) + 1.0 / safe), 0.5)


@elementwise(bessel_j0, name="BesselJ0")
def bessel_j0_d(ans, x):
    return -bessel_j1(x)


@elementwise(bessel_j1, name="BesselJ1")
def bessel_j1_d(ans, x):
    safe = _away_from_zero(x)
    return np.where(np.abs(x) > _EPS, bessel_j0(safe) - ans / safe, 0.5)
