"""Losses and activations as in `torch.nn.functional`, written as plain Tensor code.

Each function that PyTorch runs as one kernel is recorded as one node with
PyTorch's name: a registry primitive (`srcgrad.rules.activations`) where there is
one, otherwise `ops.composite`, whose gradient comes from the rules of the
primitives it is made of. `reduction` is 'mean' (default), 'sum' or 'none'.
"""

import numpy as np

from ..rules import activations
from ..tensor import ops
from ..tensor.functions import where
from ..tensor.tensor import Tensor

__all__ = [
    "binary_cross_entropy_with_logits", "binary_cross_entropy", "mse_loss", "l1_loss",
    "cross_entropy", "nll_loss", "relu", "sigmoid", "tanh", "softplus", "logsigmoid",
    "softmax", "log_softmax",
]


def _reduce(loss, reduction):
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    if reduction == "none":
        return loss
    raise ValueError(f"{reduction} is not a valid value for reduction")


def _check_reduction(reduction):
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"{reduction} is not a valid value for reduction")


# --- activations ------------------------------------------------------------------------


def relu(input, inplace=False):
    return Tensor.relu(input)


def sigmoid(input):
    return Tensor.sigmoid(input)


def tanh(input):
    return Tensor.tanh(input)


def _softplus(x, beta, threshold):
    scaled = x if beta == 1 else x * beta
    soft = ops.apply(activations.softplus, scaled)
    soft = soft if beta == 1 else soft / beta
    linear = scaled._data > threshold
    return where(linear, x, soft) if linear.any() else soft


def softplus(input, beta=1.0, threshold=20.0):
    """log(1 + exp(beta * x)) / beta, and x itself where beta * x > threshold (as in
    PyTorch: there the gradient is exactly 1)."""
    if beta == 1 and not (input._data > threshold).any():
        return ops.apply(activations.softplus, input, name="SoftplusBackward0")
    return ops.composite("SoftplusBackward0", _softplus, input, beta, threshold)


def logsigmoid(input):
    return ops.apply(activations.logsigmoid, input, name="LogSigmoidBackward0")


def _softmax_dim(input, dim):
    if dim is not None:
        return dim
    return 0 if input.dim() in (0, 1, 3) else 1


def softmax(input, dim=None, dtype=None):
    if dtype is not None:
        input = input.to(dtype)
    return ops.apply(activations.softmax, input, name="SoftmaxBackward0", axis=_softmax_dim(input, dim))


def log_softmax(input, dim=None, dtype=None):
    if dtype is not None:
        input = input.to(dtype)
    return ops.apply(activations.log_softmax, input, name="LogSoftmaxBackward0", axis=_softmax_dim(input, dim))


# --- losses --------------------------------------------------------------------------


def _weighted_bce_with_logits(z, y, weight, pos_weight, reduction):
    if pos_weight is None:
        loss = ops.apply(activations.binary_cross_entropy_with_logits, z, y, reduction="none")
    else:  # PyTorch's formula: (1 - y) * z - (1 + (pos_weight - 1) * y) * logsigmoid(z)
        loss = (1 - y) * z - ops.apply(activations.logsigmoid, z) * ((pos_weight - 1) * y + 1)
    if weight is not None:
        loss = loss * weight
    return _reduce(loss, reduction)


def binary_cross_entropy_with_logits(
    input, target, weight=None, size_average=None, reduce=None, reduction="mean", pos_weight=None
):
    """Mean (or sum, or elementwise) of `max(z,0) - z*y + log1p(exp(-|z|))`: one node,
    BinaryCrossEntropyWithLogitsBackward0."""
    same = (
        input._data.shape == target._data.shape
        if isinstance(input, Tensor) and isinstance(target, Tensor)
        else target.shape == input.shape
    )
    if not same:
        raise ValueError(f"Target size ({target.shape}) must be the same as input size ({input.shape})")
    name = "BinaryCrossEntropyWithLogitsBackward0"
    if weight is None and pos_weight is None:
        if reduction == "mean":  # the common call: no keyword dict to build per call
            return ops.apply(activations.binary_cross_entropy_with_logits, input, target, name=name)
        _check_reduction(reduction)
        return ops.apply(activations.binary_cross_entropy_with_logits, input, target, name=name, reduction=reduction)
    _check_reduction(reduction)
    return ops.composite(name, _weighted_bce_with_logits, input, target, weight, pos_weight, reduction)


def _bce(p, y, weight, reduction):
    # PyTorch clamps each log at -100 so that p = 0 or 1 gives a finite loss.
    log_p = ops.binary(np.maximum, p.log(), -100.0)
    log_q = ops.binary(np.maximum, (1 - p).log(), -100.0)
    loss = -(y * log_p + (1 - y) * log_q)
    if weight is not None:
        loss = loss * weight
    return _reduce(loss, reduction)


def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None, reduction="mean"):
    """Binary cross entropy of probabilities `input` against `target`."""
    if target.shape != input.shape:
        raise ValueError(
            f"Using a target size ({target.shape}) that is different to the input size "
            f"({input.shape}) is deprecated. Please ensure they have the same size."
        )
    _check_reduction(reduction)
    if np.any((input._data < 0) | (input._data > 1)):
        raise RuntimeError("all elements of input should be between 0 and 1")
    return ops.composite("BinaryCrossEntropyBackward0", _bce, input, target, weight, reduction)


def mse_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """Mean squared error: one node, MseLossBackward0."""
    if reduction == "mean":  # the common call: no keyword dict to build per call
        return ops.apply(activations.mse_loss, input, target, name="MseLossBackward0")
    _check_reduction(reduction)
    return ops.apply(activations.mse_loss, input, target, name="MseLossBackward0", reduction=reduction)


def _l1(x, y, reduction):
    return _reduce((x - y).abs(), reduction)


def l1_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    _check_reduction(reduction)
    return ops.composite("L1LossBackward0", _l1, input, target, reduction)


def _nll(logp, target, weight, ignore_index, reduction):
    idx = target._data
    if logp.dim() == 1:  # a single sample: (C,) with a 0-d target
        logp, idx = logp.unsqueeze(0), idx.reshape(1)
    keep = idx != ignore_index
    rows = np.arange(idx.shape[0])
    if reduction == "mean":
        # Only the kept samples: an ignored one has gradient 0 even where the weights
        # sum to 0 and the loss is 0/0 = nan (PyTorch's values).
        rows, idx, keep = rows[keep], idx[keep], keep[keep]
    safe = np.where(keep, idx, 0)
    picked = logp[rows, safe]
    w = np.where(keep, 1.0, 0.0).astype(logp._data.dtype)
    if weight is not None:
        w = w * weight._data[safe]
    losses = -(picked * Tensor._make(w))
    if reduction == "none":
        return losses if target.dim() else losses.reshape(())
    if reduction == "sum":
        return losses.sum()
    return losses.sum() / Tensor._make(np.asarray(w.sum(), dtype=w.dtype))  # stays float32 on NumPy 1.x too


def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean"):
    """Negative log likelihood of class indices `target` under log-probabilities `input` (N, C)."""
    _check_reduction(reduction)
    return ops.composite("NllLossBackward0", _nll, input, target, weight, ignore_index, reduction)


def _soft_targets(x, target, weight, reduction):
    """-sum_c weight_c * target_c * log_softmax(x)_c per sample (class axis 1, or 0
    for one sample); 'mean' divides their sum by the number of samples times the extra
    dimensions, not by a sum of weights (PyTorch's definition)."""
    axis = 1 if x.dim() > 1 else 0
    terms = log_softmax(x, axis) * target
    if weight is not None:
        terms = terms * weight.reshape((-1,) + (1,) * (x.dim() - axis - 1))
    if reduction == "none":
        return -terms.sum(axis)
    if reduction == "sum":
        return -terms.sum()
    return -terms.sum() / (x._data.size // x._data.shape[axis])


def cross_entropy(
    input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean",
    label_smoothing=0.0,
):
    """log_softmax then nll_loss for class indices (NllLossBackward0); for float
    class probabilities, the mean over samples of -sum(weight * target * log_softmax(input))."""
    _check_reduction(reduction)
    if label_smoothing:
        raise NotImplementedError("cross_entropy: label_smoothing is not supported")
    if target._data.dtype.kind in "iu":
        return nll_loss(log_softmax(input, 1 if input.dim() > 1 else 0), target, weight, None, ignore_index, None, reduction)
    names = {"mean": "DivBackward1", "sum": "NegBackward0", "none": "NegBackward0"}
    return ops.composite(names[reduction], _soft_targets, input, target, weight, reduction)
