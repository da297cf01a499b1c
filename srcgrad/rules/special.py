"""The functions of scipy.special that likelihoods and losses call: expit, log_expit,
logit, erf, erfc, erfinv, ndtr, log_ndtr, ndtri, gamma, gammaln, digamma (psi),
polygamma, betaln, xlogy, xlog1py, entr, logsumexp (with weights `b`), softmax and
log_softmax.

SciPy is not a dependency of srcgrad, and importing it is slow: this module is imported
(and its rules registered) by `registry.lookup` the first time it misses a function
while scipy.special is loaded, and by the catalog. Each rule is one expression of NumPy
and scipy.special functions that have rules themselves, so derivatives of every order
exist (polygamma(n, x) has polygamma(n + 1, x)).
"""

import numpy as np
import scipy.special as sps

from ..runtime import unbroadcast, unreduce
from .registry import defjvp, defvjp, discrete, elementwise, supports

_SQRT_PI = float(np.sqrt(np.pi))
_SQRT_2PI = float(np.sqrt(2.0 * np.pi))


@elementwise(sps.expit, name="Expit")
def expit_d(ans, x):
    return ans * (1.0 - ans)


if hasattr(sps, "log_expit"):  # SciPy 1.8

    @elementwise(sps.log_expit, name="LogExpit")
    def log_expit_d(ans, x):
        return sps.expit(-x)


@elementwise(sps.logit, name="Logit")
def logit_d(ans, x):
    return 1.0 / (x * (1.0 - x))


@elementwise(sps.erf, name="Erf")
def erf_d(ans, x):
    return 2.0 / _SQRT_PI * np.exp(-x * x)


@elementwise(sps.erfc, name="Erfc")
def erfc_d(ans, x):
    return -2.0 / _SQRT_PI * np.exp(-x * x)


@elementwise(sps.erfinv, name="Erfinv")
def erfinv_d(ans, x):
    return 0.5 * _SQRT_PI * np.exp(ans * ans)


@elementwise(sps.ndtr, name="Ndtr")
def ndtr_d(ans, x):
    return np.exp(-0.5 * x * x) / _SQRT_2PI


@elementwise(sps.log_ndtr, name="LogNdtr")
def log_ndtr_d(ans, x):
    return np.exp(-0.5 * x * x - ans) / _SQRT_2PI


@elementwise(sps.ndtri, name="Ndtri")
def ndtri_d(ans, x):
    return _SQRT_2PI * np.exp(0.5 * ans * ans)


@elementwise(sps.gamma, name="Gamma")
def gamma_d(ans, x):
    return ans * sps.psi(x)


@elementwise(sps.gammaln, name="Gammaln")
def gammaln_d(ans, x):
    return sps.psi(x)


@elementwise(sps.psi, name="Digamma")  # sps.digamma is the same ufunc
def psi_d(ans, x):
    return sps.polygamma(1, x)


@defvjp(sps.polygamma, "x", name="Polygamma")
def polygamma_vjp(g, ans, n, x):
    return unbroadcast(g * sps.polygamma(n + 1, x), x)


@defjvp(sps.polygamma, "x")
def polygamma_jvp(t, ans, n, x):
    return t * sps.polygamma(n + 1, x)


discrete(sps.polygamma, "n")


@elementwise(sps.betaln, "a", name="Betaln")
def betaln_da(ans, a, b):
    return sps.psi(a) - sps.psi(a + b)


@elementwise(sps.betaln, "b")
def betaln_db(ans, a, b):
    return sps.psi(b) - sps.psi(a + b)


@elementwise(sps.xlogy, "x", name="Xlogy")
def xlogy_dx(ans, x, y):
    return np.log(y)


@elementwise(sps.xlogy, "y")
def xlogy_dy(ans, x, y):
    return x / y


@elementwise(sps.xlog1py, "x", name="Xlog1py")
def xlog1py_dx(ans, x, y):
    return np.log1p(y)


@elementwise(sps.xlog1py, "y")
def xlog1py_dy(ans, x, y):
    return x / (1.0 + y)


@elementwise(sps.entr, name="Entr")
def entr_d(ans, x):
    return -np.log(x) - 1.0


# logsumexp(a, b=w) = log(sum(w * exp(a))): the gradient of `a` is w * exp(a - ans), that
# of `b` exp(a - ans), with ans brought back to a's shape (`unreduce`). Where the sum is 0
# (a slice of only -inf, as np.logaddexp.reduce in reductions.py) `a` gets no gradient.


@defvjp(sps.logsumexp, "a", name="Logsumexp")
def logsumexp_vjp_a(g, ans, a, axis=None, b=None, keepdims=False, return_sign=False):
    return unbroadcast(unreduce(g, a, axis, keepdims) * (1.0 if b is None else b)
                       * np.exp(a - unreduce(np.where(ans == -np.inf, 0.0, ans), a, axis, keepdims)), a)


@defvjp(sps.logsumexp, "b")
def logsumexp_vjp_b(g, ans, a, axis=None, b=None, keepdims=False, return_sign=False):
    return unbroadcast(unreduce(g, a, axis, keepdims) * np.exp(a - unreduce(ans, a, axis, keepdims)), b)


@defjvp(sps.logsumexp, "a")
def logsumexp_jvp_a(t, ans, a, axis=None, b=None, keepdims=False, return_sign=False):
    return np.sum(t * (1.0 if b is None else b) * np.exp(a - unreduce(np.where(ans == -np.inf, 0.0, ans), a, axis, keepdims)),
                  axis=axis, keepdims=keepdims)


@defjvp(sps.logsumexp, "b")
def logsumexp_jvp_b(t, ans, a, axis=None, b=None, keepdims=False, return_sign=False):
    return np.sum(t * np.exp(a - unreduce(ans, a, axis, keepdims)), axis=axis, keepdims=keepdims)


supports(sps.logsumexp, "return_sign", (False,), "the sign is a constant: compute the logarithm of the absolute "
         "sum with np.log(np.abs(np.sum(b * np.exp(a))))")


@defvjp(sps.softmax, "x", name="Softmax")
def softmax_vjp(g, ans, x, axis=None):
    return ans * (g - np.sum(g * ans, axis=axis, keepdims=True))


@defjvp(sps.softmax, "x")
def softmax_jvp(t, ans, x, axis=None):
    return ans * (t - np.sum(t * ans, axis=axis, keepdims=True))


@defvjp(sps.log_softmax, "x", name="LogSoftmax")
def log_softmax_vjp(g, ans, x, axis=None):
    return g - np.exp(ans) * np.sum(g, axis=axis, keepdims=True)


@defjvp(sps.log_softmax, "x")
def log_softmax_jvp(t, ans, x, axis=None):
    return t - np.sum(np.exp(ans) * t, axis=axis, keepdims=True)
