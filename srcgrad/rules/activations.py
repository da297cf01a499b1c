"""Activation functions that are not NumPy functions: sigmoid, relu, softplus,
logsigmoid, gelu, silu, leaky_relu, elu, softmax, log_softmax, their normalizer logsumexp,
atan2 and hypot differentiated as PyTorch does, the error function erf and erfc, rsqrt,
the fractional part frac, and five losses, the logistic loss
`binary_cross_entropy_with_logits`, its form on probabilities `binary_cross_entropy`,
the squared error `mse_loss` and the robust `smooth_l1_loss` and `huber_loss`.
Each primitive is a plain function of arrays (float32 stays float32) that cannot
overflow. The elementwise ones have their local derivative as rule, for both
modes; softmax, log_softmax, logsumexp and the losses (which couple elements) have full
vector-Jacobian and Jacobian-vector products.
"""

import numpy as np

from ..runtime import mean_of, unbroadcast, unreduce
from .registry import defjvp, defvjp, elementwise

__all__ = [
    "sigmoid", "relu", "softplus", "logsigmoid", "softmax", "log_softmax", "logsumexp", "binary_cross_entropy_with_logits",
    "binary_cross_entropy", "mse_loss", "atan2", "hypot", "gelu", "silu", "leaky_relu", "elu", "erf", "erfc", "rsqrt",
    "smooth_l1_loss", "huber_loss", "frac",
]

import math  # noqa: E402

_ERF = np.frompyfunc(math.erf, 1, 1)
_ERFC = np.frompyfunc(math.erfc, 1, 1)
_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)
_SQRT_HALF = math.sqrt(0.5)
_SQRT_TWO_OVER_PI = math.sqrt(2.0 / math.pi)
_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)
_GELU_CUBIC = 0.044715


def sigmoid(x):
    """1 / (1 + exp(-x)); exp overflow for very negative x gives exactly 0."""
    with np.errstate(over="ignore"):
        return expit(x)


# 0-d read-only arrays of the float dtypes, for the Tensor shim's fast forms below: NumPy
# converts a Python number operand to an array at every call
_ONES = {np.dtype(t): np.ones((), t) for t in (np.float16, np.float32, np.float64)}
_ZEROS = {np.dtype(t): np.zeros((), t) for t in (np.float16, np.float32, np.float64)}
for _constant in (*_ONES.values(), *_ZEROS.values()):
    _constant.flags.writeable = False
_where = getattr(np.where, "_implementation", np.where)  # without its __array_function__ dispatch


def expit(x):
    """`sigmoid` for callers that silence floating-point warnings themselves (the
    Tensor shim silences them around every op): 1 / (1 + exp(-x)), in place on the
    temporary when it is an array (the same roundings; 1 as a 0-d array of a float32
    or float64 array's dtype, the value NumPy casts `1.0` to)."""
    one = _ONES.get(x.dtype) if type(x) is np.ndarray and x.ndim else None
    if one is not None:
        e = np.negative(x)
        np.exp(e, out=e)
        np.add(e, one, out=e)
        return np.reciprocal(e, out=e)
    e = np.exp(-x)
    if not isinstance(e, np.ndarray):  # a scalar (of a 0-d array too): 1 of its type, which NumPy 1 would widen
        one = type(e)(1.0)
        return one / (one + e)
    e += 1.0
    return np.reciprocal(e, out=e)


def relu(x):
    """max(x, 0), with zero gradient at 0; x itself where x is not below 0, so -0.0
    and nan pass through (as in PyTorch)."""
    return np.where(x < 0, 0, x)


def relu_of_array(x):
    """`relu(x)` for an ndarray `x` (the Tensor shim's), the same result bit for bit: for
    float16, float32 and float64, with a 0-d zero of x's dtype in place of the Python 0 (the value
    and dtype NumPy converts it to) and np.where without its dispatch."""
    zero = _ZEROS.get(x.dtype)
    if zero is None:
        return relu(x)
    return _where(x < zero, zero, x)


def atan2(x, y):
    """`np.arctan2(x, y)` as PyTorch differentiates it: its derivative is 0 where
    x * x + y * y is 0 (at the origin, or where the squares underflow), not nan as
    `np.arctan2`'s rule (and JAX) give."""
    return np.arctan2(x, y)


def hypot(x, y):
    """`np.hypot(x, y)` as PyTorch differentiates it: x / hypot and y / hypot, nan at the
    origin (0 / 0), where `np.hypot`'s rule gives 0 (a norm's choice)."""
    return np.hypot(x, y)


def _reciprocal_or_zero(d):
    """1 / d, and 0 where that is inf (PyTorch's atan2_backward)."""
    r = np.reciprocal(d)
    return np.where(np.isinf(r), 0.0, r).astype(r.dtype, copy=False)


def softplus(x):
    """log(1 + exp(x)), computed without overflow."""
    return np.logaddexp(0, x)


def logsigmoid(x):
    """log(sigmoid(x)) = min(x, 0) - log1p(exp(-|x|)), without overflow."""
    return np.minimum(x, 0) - np.log1p(np.exp(-np.abs(x)))


def _float_dtype(x):
    dt = np.result_type(x)
    return dt if dt.kind in "fc" else np.dtype(np.float64)


def erf(x):
    """The error function of each element (math.erf, in float64, then the input's float
    dtype): SciPy is not needed."""
    return np.asarray(_ERF(np.asarray(x, dtype=np.float64)), dtype=np.float64).astype(_float_dtype(x))


def erfc(x):
    """1 - erf(x), accurate where erf(x) is near 1 (math.erfc)."""
    return np.asarray(_ERFC(np.asarray(x, dtype=np.float64)), dtype=np.float64).astype(_float_dtype(x))


def rsqrt(x):
    """1 / sqrt(x) of each element."""
    return np.reciprocal(np.sqrt(x))


def frac(x):
    """The fractional part x - trunc(x) of each element, with its sign (PyTorch's frac:
    -0.0 and -3.0 give 0.0, inf gives nan)."""
    return x - np.trunc(x)


def gelu(x, approximate="none"):
    """x * Phi(x), Phi the standard normal distribution function (PyTorch's
    approximate='none'), or its tanh approximation 0.5 x (1 + tanh(sqrt(2/pi) (x +
    0.044715 x^3))) for approximate='tanh'."""
    if approximate == "tanh":
        return 0.5 * x * (1.0 + np.tanh(_SQRT_TWO_OVER_PI * (x + _GELU_CUBIC * x * x * x)))
    return 0.5 * x * (1.0 + erf(x * _SQRT_HALF))  # as PyTorch computes it (cancelling for x << 0)


def silu(x):
    """x * sigmoid(x) (the swish)."""
    return x * sigmoid(x)


def leaky_relu(x, negative_slope=0.01):
    """x where x > 0, else negative_slope * x."""
    return np.where(x > 0, x, x * negative_slope)


def elu(x, alpha=1.0):
    """x where x > 0, else alpha * (exp(x) - 1)."""
    return np.where(x > 0, x, alpha * np.expm1(np.minimum(x, 0)))


def smooth_l1_loss(x, y, reduction="mean", beta=1.0):
    """PyTorch's smooth L1 loss, elementwise 0.5 d^2 / beta where |d| < beta, else |d| -
    0.5 beta (d = x - y), then averaged, summed or kept. beta must be positive here
    (PyTorch's beta = 0 is the L1 loss)."""
    z = np.abs(x - y)
    return _reduce_sum_first(np.where(z < beta, 0.5 * z * z / beta, z - 0.5 * beta), reduction)


def huber_loss(x, y, reduction="mean", delta=1.0):
    """PyTorch's Huber loss, elementwise 0.5 d^2 where |d| < delta, else delta (|d| - 0.5
    delta), then averaged, summed or kept."""
    z = np.abs(x - y)
    return _reduce_sum_first(np.where(z < delta, 0.5 * z * z, delta * (z - 0.5 * delta)), reduction)


def _reduce_sum_first(v, reduction):
    """`_reduce`, whose mean and sum of a narrower float accumulate in float64 (the roundings
    of PyTorch's loss kernels)."""
    if reduction == "none":
        return v
    dtype = np.result_type(v)
    total = np.sum(v, dtype=np.float64) if dtype.kind == "f" else np.sum(v)
    return np.asarray(total / np.size(v) if reduction == "mean" else total).astype(dtype)


def _shift(x, axis):
    """The maximum of `x` along `axis` (keepdims), subtracted so exp cannot overflow; an
    empty `x` has none and is shifted by 0 (its softmax is empty, its logsumexp -inf)."""
    if np.size(x) == 0:
        return np.zeros(np.shape(np.sum(x, axis=axis, keepdims=True)), np.result_type(x))
    return np.max(x, axis=axis, keepdims=True)


def softmax(x, axis=-1):
    """exp(x) / sum(exp(x)) along `axis`, shifted by the maximum so nothing overflows."""
    e = np.exp(x - _shift(x, axis))
    return e / np.sum(e, axis=axis, keepdims=True)


def log_softmax(x, axis=-1):
    """x - log(sum(exp(x))) along `axis`, shifted by the maximum so nothing overflows."""
    shifted = x - _shift(x, axis)
    return shifted - np.log(np.sum(np.exp(shifted), axis=axis, keepdims=True))


def logsumexp(x, axis=None, keepdims=False):
    """log(sum(exp(x))) over `axis` (None: every axis), shifted by the maximum so nothing
    overflows. An infinite maximum is not subtracted (as in PyTorch): all -inf gives
    -inf, and a +inf entry gives inf, not nan; over no entries it is -inf."""
    top = _shift(x, axis)
    top = np.where(np.isinf(top), 0.0, top).astype(top.dtype, copy=False)
    out = np.log(np.sum(np.exp(x - top), axis=axis, keepdims=True)) + top
    return out if keepdims else np.squeeze(out, axis=axis)


def binary_cross_entropy_with_logits(z, y, reduction="mean"):
    """PyTorch's loss of logits `z` against targets `y`, elementwise
    (1 - y) * z - logsigmoid(z), then averaged, summed or kept ('mean', 'sum', 'none')."""
    return _reduce((1 - y) * z - logsigmoid(z), reduction)


def binary_cross_entropy(p, y, reduction="mean"):
    """PyTorch's loss of probabilities `p` against targets `y`, elementwise
    -(y * log(p) + (1 - y) * log(1 - p)) with each log clamped at -100 (so p = 0 or 1
    gives a finite loss), then averaged, summed or kept."""
    with np.errstate(divide="ignore"):
        log_p = np.maximum(np.log(p), -100.0)
        log_q = np.maximum(np.log(1 - p), -100.0)
    return _reduce(-(y * log_p + (1 - y) * log_q), reduction)


def mse_loss(x, y, reduction="mean"):
    """PyTorch's squared error of `x` against `y`, elementwise (x - y) ** 2 (as a
    product), then averaged, summed or kept ('mean', 'sum', 'none')."""
    d = x - y
    return _reduce(d * d, reduction)


def _reduce(v, reduction):
    if reduction == "mean":
        return mean_of(v)
    return np.sum(v) if reduction == "sum" else v


def _count(z, reduction):
    """The number a "mean" loss divides by; 1 for an empty z (its gradient is empty: no
    ZeroDivisionError from `2.0 / 0`)."""
    return max(np.size(z), 1) if reduction == "mean" else 1


@elementwise(sigmoid, name="Sigmoid")
def sigmoid_d(ans, x):
    return ans * (1.0 - ans)


@defvjp(relu, "x", name="Relu")
def relu_vjp(g, ans, x):
    """0 where the result is <= 0, else g: a selection, so a nan or inf g does not leak
    through. PyTorch's threshold_backward, which passes g at a nan x (JAX's relu gives 0
    there). It reads the result, as PyTorch's ReluBackward0 saves it."""
    return np.where(ans <= 0, 0, g)


@defjvp(relu, "x")
def relu_jvp(t, ans, x):
    return np.where(ans <= 0, 0, t)


@defvjp(frac, "x", name="Frac")
def frac_vjp(g, ans, x):
    """g: frac has slope 1 wherever it has one (PyTorch passes g through at the integers too)."""
    return g


@defjvp(frac, "x")
def frac_jvp(t, ans, x):
    return t


@elementwise(atan2, "x", name="Atan2")
def atan2_dx(ans, x, y):
    return y * _reciprocal_or_zero(x * x + y * y)


@elementwise(atan2, "y")
def atan2_dy(ans, x, y):
    return -x * _reciprocal_or_zero(x * x + y * y)


@elementwise(hypot, "x", name="Hypot")
def torch_hypot_dx(ans, x, y):
    return x / ans


@elementwise(hypot, "y")
def torch_hypot_dy(ans, x, y):
    return y / ans


@elementwise(softplus, name="Softplus")
def softplus_d(ans, x):
    """sigmoid(x), from x alone: PyTorch's SoftplusBackward0 saves no result (and
    exp(x - ans) would be nan at x = inf). As exp(min(x, 0)) / (1 + exp(-|x|)), which
    does not round to 0 where exp(-x) overflows (3.8e-44 at x = -100 in float32, as
    PyTorch's exp(x) / (exp(x) + 1))."""
    return np.exp(np.minimum(x, 0)) / (1.0 + np.exp(-np.abs(x)))


@elementwise(logsigmoid, name="LogSigmoid")
def logsigmoid_d(ans, x):
    """sigmoid(-x), from x alone, as PyTorch's LogSigmoidBackward0 (as softplus's: not
    rounded to 0 at x = 100 in float32)."""
    return np.exp(np.minimum(-x, 0)) / (1.0 + np.exp(-np.abs(x)))


# softmax and log_softmax couple the elements along `axis`: the rules are full
# vector-Jacobian / Jacobian-vector products (the Jacobian of softmax is symmetric).


@defvjp(softmax, "x", name="Softmax")
def softmax_vjp(g, ans, x, axis=-1):
    return ans * (g - np.sum(g * ans, axis=axis, keepdims=True))


@defjvp(softmax, "x")
def softmax_jvp(t, ans, x, axis=-1):
    return ans * (t - np.sum(t * ans, axis=axis, keepdims=True))


@defvjp(log_softmax, "x", name="LogSoftmax")
def log_softmax_vjp(g, ans, x, axis=-1):
    return g - np.exp(ans) * np.sum(g, axis=axis, keepdims=True)


@defjvp(log_softmax, "x")
def log_softmax_jvp(t, ans, x, axis=-1):
    return t - np.sum(np.exp(ans) * t, axis=axis, keepdims=True)


# logsumexp: its gradient is softmax(x) along `axis`, exp(x - ans) with ans kept; a slice
# of only -inf passes on none (as np.logaddexp.reduce in reductions.py).


@defvjp(logsumexp, "x", name="Logsumexp")
def logsumexp_vjp(g, ans, x, axis=None, keepdims=False):
    return unreduce(g, x, axis, keepdims) * np.exp(x - unreduce(np.where(ans == -np.inf, 0.0, ans), x, axis, keepdims))


@defjvp(logsumexp, "x")
def logsumexp_jvp(t, ans, x, axis=None, keepdims=False):
    return np.sum(t * np.exp(x - unreduce(np.where(ans == -np.inf, 0.0, ans), x, axis, keepdims)), axis=axis, keepdims=keepdims)


# The loss: PyTorch's backward formula, (sigmoid(z) - y) * g / n.


@defvjp(binary_cross_entropy_with_logits, "z", name="BinaryCrossEntropyWithLogits")
def bce_with_logits_vjp_z(g, ans, z, y, reduction="mean"):
    return unbroadcast((sigmoid(z) - y) * g / _count(z, reduction), z)


@defvjp(binary_cross_entropy_with_logits, "y")
def bce_with_logits_vjp_y(g, ans, z, y, reduction="mean"):
    return unbroadcast(-z * g / _count(z, reduction), y)


@defjvp(binary_cross_entropy_with_logits, "z")
def bce_with_logits_jvp_z(t, ans, z, y, reduction="mean"):
    return _reduce(t * (sigmoid(z) - y), reduction)


@defjvp(binary_cross_entropy_with_logits, "y")
def bce_with_logits_jvp_y(t, ans, z, y, reduction="mean"):
    return _reduce(-t * z, reduction)


# BCE on probabilities: PyTorch's backward formulas. The gradient to p divides by
# p (1 - p) floored at 1e-12, so p = 0 or 1 gives a large finite gradient, not the
# nan of differentiating the clamped logs; the gradient to y is -logit(p).

_BCE_EPSILON = 1e-12


@defvjp(binary_cross_entropy, "p", name="BinaryCrossEntropy")
def bce_vjp_p(g, ans, p, y, reduction="mean"):
    return unbroadcast((p - y) / np.maximum((1 - p) * p, _BCE_EPSILON) * g / _count(p, reduction), p)


@defvjp(binary_cross_entropy, "y")
def bce_vjp_y(g, ans, p, y, reduction="mean"):
    with np.errstate(divide="ignore"):
        return unbroadcast(-np.log(p / (1 - p)) * g / _count(p, reduction), y)


@defjvp(binary_cross_entropy, "p")
def bce_jvp_p(t, ans, p, y, reduction="mean"):
    return _reduce(t * (p - y) / np.maximum((1 - p) * p, _BCE_EPSILON), reduction)


@defjvp(binary_cross_entropy, "y")
def bce_jvp_y(t, ans, p, y, reduction="mean"):
    with np.errstate(divide="ignore"):
        return _reduce(t * -np.log(p / (1 - p)), reduction)


# The squared error: PyTorch's backward formula, (2 / n) * (x - y) * g.


@defvjp(mse_loss, "x", name="MseLoss")
def mse_loss_vjp_x(g, ans, x, y, reduction="mean"):
    d = x - y
    return unbroadcast(d * (2.0 / _count(d, reduction)) * g, x)


@defvjp(mse_loss, "y")
def mse_loss_vjp_y(g, ans, x, y, reduction="mean"):
    d = y - x
    return unbroadcast(d * (2.0 / _count(d, reduction)) * g, y)


@defjvp(mse_loss, "x")
def mse_loss_jvp_x(t, ans, x, y, reduction="mean"):
    return _reduce(2.0 * (x - y) * t, reduction)


@defjvp(mse_loss, "y")
def mse_loss_jvp_y(t, ans, x, y, reduction="mean"):
    return _reduce(2.0 * (y - x) * t, reduction)


# --- gelu, silu, leaky_relu, elu, erf, erfc, rsqrt: local derivatives (PyTorch's at kinks) ---


@elementwise(gelu, name="Gelu")
def gelu_d(ans, x, approximate="none"):
    if approximate == "tanh":
        inner = _SQRT_TWO_OVER_PI * (x + _GELU_CUBIC * x * x * x)
        th = np.tanh(inner)
        return 0.5 * (1.0 + th) + 0.5 * x * (1.0 - th * th) * _SQRT_TWO_OVER_PI * (1.0 + 3.0 * _GELU_CUBIC * x * x)
    return 0.5 * (1.0 + erf(x * _SQRT_HALF)) + x * np.exp(-0.5 * x * x) * _INV_SQRT_2PI


@elementwise(silu, name="Silu")
def silu_d(ans, x):
    s = sigmoid(x)
    return s * (1.0 + x * (1.0 - s))


@elementwise(leaky_relu, name="LeakyRelu")
def leaky_relu_d(ans, x, negative_slope=0.01):
    return np.where(x > 0, 1.0, negative_slope)


@elementwise(elu, name="Elu")
def elu_d(ans, x, alpha=1.0):
    return np.where(x <= 0, alpha * np.exp(np.where(x <= 0, x, 0.0)), 1.0)  # at 0, the branch x <= 0 (its derivative too)


@elementwise(erf, name="Erf")
def erf_d(ans, x):
    return _TWO_OVER_SQRT_PI * np.exp(-x * x)


@elementwise(erfc, name="Erfc")
def erfc_d(ans, x):
    return -_TWO_OVER_SQRT_PI * np.exp(-x * x)


@elementwise(rsqrt, name="Rsqrt")
def rsqrt_d(ans, x):
    return -0.5 * ans * ans * ans


# --- smooth L1 and Huber losses: PyTorch's backward formulas ---------------------------


def _smooth_l1_slope(d, beta):
    return np.where(d < -beta, -1.0, np.where(d > beta, 1.0, d / beta))


def _huber_slope(d, delta):
    return np.clip(d, -delta, delta)


def _pulled_back(slope, g, x, y, reduction, param):
    """The gradient with respect to x (its negative: to y) of a loss of `d = x - y`
    whose derivative is `slope(d, param)`, for the incoming gradient `g`."""
    d = x - y
    return slope(d, param) * (g / _count(d, reduction))


@defvjp(smooth_l1_loss, "x", name="SmoothL1Loss")
def smooth_l1_loss_vjp_x(g, ans, x, y, reduction="mean", beta=1.0):
    return unbroadcast(_pulled_back(_smooth_l1_slope, g, x, y, reduction, beta), x)


@defvjp(smooth_l1_loss, "y")
def smooth_l1_loss_vjp_y(g, ans, x, y, reduction="mean", beta=1.0):
    return unbroadcast(-_pulled_back(_smooth_l1_slope, g, x, y, reduction, beta), y)


@defjvp(smooth_l1_loss, "x")
def smooth_l1_loss_jvp_x(t, ans, x, y, reduction="mean", beta=1.0):
    return _reduce(_smooth_l1_slope(x - y, beta) * t, reduction)


@defjvp(smooth_l1_loss, "y")
def smooth_l1_loss_jvp_y(t, ans, x, y, reduction="mean", beta=1.0):
    return _reduce(-_smooth_l1_slope(x - y, beta) * t, reduction)


@defvjp(huber_loss, "x", name="HuberLoss")
def huber_loss_vjp_x(g, ans, x, y, reduction="mean", delta=1.0):
    return unbroadcast(_pulled_back(_huber_slope, g, x, y, reduction, delta), x)


@defvjp(huber_loss, "y")
def huber_loss_vjp_y(g, ans, x, y, reduction="mean", delta=1.0):
    return unbroadcast(-_pulled_back(_huber_slope, g, x, y, reduction, delta), y)


@defjvp(huber_loss, "x")
def huber_loss_jvp_x(t, ans, x, y, reduction="mean", delta=1.0):
    return _reduce(_huber_slope(x - y, delta) * t, reduction)


@defjvp(huber_loss, "y")
def huber_loss_jvp_y(t, ans, x, y, reduction="mean", delta=1.0):
    return _reduce(-_huber_slope(x - y, delta) * t, reduction)
