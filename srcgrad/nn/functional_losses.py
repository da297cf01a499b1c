"""The losses of `torch.nn.functional`, written as plain Tensor code: each that PyTorch
runs as one kernel is one node with PyTorch's name (a registry primitive of
`srcgrad.rules.activations`, or `ops.composite`); `reduction` is 'mean' (default),
'sum' or 'none'."""

import math
import warnings

import numpy as np

from ..rules import activations
from ..tensor import dtypes, ops
from ..tensor.complex_refusals import refuse_complex
from ..tensor.functions import where
from ..tensor.grad_mode import is_grad_enabled
from ..tensor.graph import node_class
from ..tensor.rule_nodes import RefusedNode
from ..tensor.tensor import Tensor

__all__ = [
    "binary_cross_entropy_with_logits", "binary_cross_entropy", "mse_loss", "l1_loss", "cross_entropy", "nll_loss",
    "smooth_l1_loss", "huber_loss", "kl_div", "poisson_nll_loss", "gaussian_nll_loss",
]


def _log_softmax(input, dim):
    from .functional import log_softmax

    return log_softmax(input, dim)


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


# --- losses --------------------------------------------------------------------------


def _target_dtype(z, y):
    """The dtype of PyTorch's logistic loss: it computes into `(1 - target)` in place,
    so a floating target's dtype wins (a float64 input with a float32 target gives a
    float32 loss); None when that is the promoted dtype anyway."""
    if isinstance(y, Tensor) and isinstance(z, Tensor) and y._data.dtype.kind == "f" and y._data.dtype != z._data.dtype:
        return y._data.dtype
    return None


def _written_into(value, like):
    """`value` in `like`'s dtype: what PyTorch's in-place `like.op_(...)` stores (computed
    in the promoted dtype, rounded to the dtype of the tensor written into)."""
    return value if value._data.dtype == like._data.dtype else value.to(like.dtype)


def _weighted_bce_with_logits(z, y, weight, pos_weight, reduction):
    """PyTorch's formula and its in-place steps: the loss is written into `1 - target`, so
    it keeps the target's dtype whatever the weights' dtypes."""
    if pos_weight is None:
        loss = ops.apply(activations.binary_cross_entropy_with_logits, z, y, reduction="none")
    else:  # (1 - y) * z - (1 + (pos_weight - 1) * y) * logsigmoid(z)
        log_sigmoid = ops.apply(activations.logsigmoid, z)
        loss = (1 - y) * z - _written_into(log_sigmoid * ((pos_weight - 1) * y + 1), log_sigmoid)
    dtype = _target_dtype(z, y)
    if dtype is not None and loss._data.dtype != dtype:
        loss = loss.to(dtypes.of(dtype))
    if weight is not None:
        loss = _written_into(loss * weight, loss)
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
        dtype = _target_dtype(input, target)
        if reduction == "mean":  # the common call: no keyword dict to build per call
            return ops.apply(activations.binary_cross_entropy_with_logits, input, target, name=name, out_dtype=dtype)
        _check_reduction(reduction)
        return ops.apply(
            activations.binary_cross_entropy_with_logits, input, target, name=name, out_dtype=dtype, reduction=reduction
        )
    _check_reduction(reduction)
    _refuse_requires_grad("binary_cross_entropy_with_logits", weight=weight, pos_weight=pos_weight)
    return ops.composite(name, _weighted_bce_with_logits, input, target, weight, pos_weight, reduction,
                         _edges=(0, 1))


def _weighted_bce(p, y, weight, reduction):
    """The loss times `weight`, kept in the loss's dtype (PyTorch's `loss.mul_(weight)`)."""
    loss = ops.apply(activations.binary_cross_entropy, p, y, reduction="none")
    return _reduce(_written_into(loss * weight, loss), reduction)


def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None, reduction="mean"):
    """Binary cross entropy of probabilities `input` against `target`."""
    if target.shape != input.shape:
        raise ValueError(
            f"Using a target size ({target.shape}) that is different to the input size "
            f"({input.shape}) is deprecated. Please ensure they have the same size."
        )
    _check_reduction(reduction)
    if target.dtype is not input.dtype:
        raise RuntimeError(_found_dtype(target, input))
    if not np.all((input._data >= 0) & (input._data <= 1)):  # nan too
        raise RuntimeError("all elements of input should be between 0 and 1")
    name = "BinaryCrossEntropyBackward0"
    if weight is None:
        return ops.apply(activations.binary_cross_entropy, input, target, name=name, reduction=reduction)
    _refuse_requires_grad("binary_cross_entropy", weight=weight)
    return ops.composite(name, _weighted_bce, input, target, weight, reduction, _edges=(0, 1))


def _found_dtype(target, input):
    """PyTorch's message where a loss kernel needs the target in the input's dtype."""
    return f"Found dtype {target.dtype.kind_name} but expected {input.dtype.kind_name}"


def _warn_if_broadcast(input, target):
    """PyTorch's warning when a pointwise loss's target has another shape than its input."""
    if target.shape != input.shape:
        warnings.warn(
            f"Using a target size ({target.shape}) that is different to the input size ({input.shape}). "
            "This will likely lead to incorrect results due to broadcasting. Please ensure they have the same size.",
            stacklevel=3,
        )


def mse_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """Mean squared error: one node, MseLossBackward0."""
    refuse_complex("mse_loss", input, target)
    _warn_if_broadcast(input, target)
    if target.shape != input.shape:
        ops.check_broadcast(input._data, target._data)
    if reduction == "mean":  # the common call: no keyword dict to build per call
        return ops.apply(activations.mse_loss, input, target, name="MseLossBackward0")
    _check_reduction(reduction)
    return ops.apply(activations.mse_loss, input, target, name="MseLossBackward0", reduction=reduction)


def l1_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """Mean absolute error, built as PyTorch builds it: `(input - target).abs()` then
    mean or sum (nodes AbsBackward0, MeanBackward0, SumBackward0)."""
    _warn_if_broadcast(input, target)
    _check_reduction(reduction)
    return _reduce((input - target).abs(), reduction)


def _check_targets(input, target, weight, ignore_index):
    """PyTorch's checks of class-index targets for `input` (C), (N, C) or (N, C, d1, ...),
    with its messages and in its order, so that no mismatch reaches NumPy."""
    shape, tshape = input._data.shape, target._data.shape
    if not shape:
        raise ValueError("Expected 1 or more dimensions (got 0)")
    if len(shape) > 1 and tshape[:1] != shape[:1]:
        batch = tshape[0] if tshape else 0
        raise ValueError(f"Expected input batch_size ({shape[0]}) to match target batch_size ({batch}).")
    if len(shape) <= 2 and len(tshape) > 1:
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    if len(shape) == 4 and len(tshape) != 3:
        raise RuntimeError(
            f"only batches of spatial targets supported (3D tensors) but got targets of dimension: {len(tshape)}"
        )
    if len(shape) == 4 and tshape != shape[:1] + shape[2:]:
        raise RuntimeError(f"size mismatch (got input: {list(shape)} , target: {list(tshape)}")
    if len(shape) > 2 and tshape != shape[:1] + shape[2:]:
        raise RuntimeError(f"Expected target size {list(shape[:1] + shape[2:])}, got {list(tshape)}")
    if target._data.dtype not in (np.int64, np.uint8):
        raise RuntimeError(f"expected target dtype to be Long or Byte, but got {target.dtype.kind_name}")
    if len(shape) > 2 and target._data.dtype != np.int64:
        raise RuntimeError("expected scalar type Long but found Byte")
    if len(shape) == 1 and tshape not in ((), (1,)):
        raise ValueError(f"For 1D input, 1D target must have size 1, but got target size: {tshape[0]}")
    classes = shape[1] if len(shape) > 1 else shape[0]
    if weight is not None and len(shape) > 2 and weight._data.size != classes:
        raise RuntimeError("weight tensor should be defined either for all or no classes")
    if weight is not None and len(shape) <= 2 and weight._data.shape != (classes,):
        raise RuntimeError(
            f"weight tensor should be defined either for all {classes} classes or no classes but got weight "
            f"tensor of shape: {list(weight._data.shape)}"
        )
    if weight is not None and weight._data.dtype != input._data.dtype:
        raise RuntimeError(f"expected scalar type {input.dtype.kind_name} but found {weight.dtype.kind_name}")
    if weight is not None and weight.requires_grad and is_grad_enabled():
        kernel = "nll_loss2d_forward" if len(shape) > 2 else "nll_loss_forward"
        raise RuntimeError(
            f"The function '{kernel}' is not differentiable with respect to argument 'weight'. This input cannot "
            "have requires_grad True."
        )
    idx = target._data
    outside = (idx != ignore_index) & ((idx < 0) | (idx >= classes))
    if outside.any():
        raise IndexError(f"Target {idx[outside].flat[0]} is out of bounds.")


def _nll(logp, target, weight, ignore_index, reduction):
    idx = target._data
    if logp.dim() == 1:  # a single sample: (C,) with a 0-d target
        logp, idx = logp.unsqueeze(0), idx.reshape(1)
    keep = idx != ignore_index
    at = np.indices(idx.shape)  # where each target is: its sample, then d1, ... (class axis 1)
    if reduction == "mean":
        # Only the kept targets: an ignored one has gradient 0 even where the weights
        # sum to 0 and the loss is 0/0 = nan (PyTorch's values).
        at, idx, keep = at[:, keep], idx[keep], keep[keep]
    safe = np.where(keep, idx, 0)
    picked = logp[(at[0], safe, *at[1:])]
    w = np.where(keep, 1.0, 0.0).astype(logp._data.dtype)
    if weight is not None:
        w = w * weight._data.reshape(-1)[safe]
    losses = -(picked * Tensor._make(w))
    if not keep.all():  # an ignored target's loss is +0, also where its log-probability is -inf
        losses = where(Tensor._make(keep), losses, 0.0)
    if reduction == "none":
        return losses if target.dim() else losses.reshape(())
    if reduction == "sum":
        return losses.sum()
    return losses.sum() / Tensor._make(np.asarray(w.sum(), dtype=w.dtype))  # stays float32 on NumPy 1.x too


def _smoothed_nll(logp, target, weight, ignore_index, reduction, smoothing):
    """PyTorch's label smoothing of class-index targets: (1 - smoothing) times the
    nll_loss, plus smoothing / C times the (weighted) sum over classes of -logp, taken
    as zero at ignored targets and, for 'mean', divided like the nll_loss."""
    axis = 1 if logp.dim() > 1 else 0
    classes = logp._data.shape[axis]
    terms = logp if weight is None else logp * weight.reshape((-1,) + (1,) * (logp.dim() - axis - 1))
    idx = target._data
    keep = idx != ignore_index
    dtype = logp._data.dtype
    smooth = -terms.sum(axis) * Tensor._make(keep.astype(dtype))
    if reduction == "none":
        spread = smooth
    elif reduction == "sum":
        spread = smooth.sum()
    else:
        kept = weight._data.reshape(-1)[idx[keep]].sum() if weight is not None else keep.sum()
        spread = smooth.sum() / Tensor._make(np.asarray(kept, dtype=dtype))
    return _nll(logp, target, weight, ignore_index, reduction) * (1 - smoothing) + spread * (smoothing / classes)


def _nll_recorded(logp, target, weight, ignore_index, reduction):
    """`_nll` as PyTorch records it: NllLoss2D beyond (N, C), and where PyTorch reshapes
    the input to 4-D and back ('none' on 3-D, 5-D, ...) a view of its result
    (ViewBackward0, which an in-place op then writes through)."""
    dims = logp.dim()
    name = "NllLossBackward0" if dims <= 2 else "NllLoss2DBackward0"
    out = ops.composite(name, _nll, logp, target, weight, ignore_index, reduction, _edges=(0,))
    if dims > 2 and dims != 4 and reduction == "none":
        return out.view(out._data.shape)
    return out


def _refuse_requires_grad(op, **arguments):
    """PyTorch's error for a tensor that requires grad given to an argument `op` has no
    derivative for (a loss's class or element weights), with grad mode on."""
    for argument, value in arguments.items():
        if isinstance(value, Tensor) and value._requires_grad and is_grad_enabled():
            raise RuntimeError(
                f"The function '{op}' is not differentiable with respect to argument '{argument}'. This input cannot "
                "have requires_grad True."
            )


def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean"):
    """Negative log likelihood of class indices `target` under log-probabilities `input`:
    (C) with a 0-d target, (N, C) with (N), or (N, C, d1, ...) with (N, d1, ...); 'none'
    gives the target's shape, 'mean' divides by the summed weights of the kept targets."""
    _check_reduction(reduction)
    _check_targets(input, target, weight, ignore_index)
    _refuse_requires_grad("nll_loss_forward", weight=weight)
    return _nll_recorded(input, target, weight, ignore_index, reduction)


def _soft_targets(x, target, weight, reduction):
    """-sum_c weight_c * target_c * log_softmax(x)_c per sample (class axis 1, or 0
    for one sample); 'mean' divides their sum by the number of samples times the extra
    dimensions, not by a sum of weights (PyTorch's definition)."""
    axis = 1 if x.dim() > 1 else 0
    terms = _log_softmax(x, axis) * target
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
    """log_softmax over the class axis, then nll_loss, for class indices (any target
    whose shape is not the input's, as in PyTorch); for float class probabilities (the
    input's shape), the mean over samples of -sum(weight * target * log_softmax(input)).
    `label_smoothing` e in (0, 1] mixes in the uniform distribution as PyTorch does: for
    class indices `_smoothed_nll`, for probabilities the target (1 - e) * target + e / C."""
    _check_reduction(reduction)
    if label_smoothing > 1.0:
        raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing}")
    if input._data.shape != target._data.shape:  # PyTorch's test: other shapes are class indices
        _check_targets(input, target, weight, ignore_index)
        _refuse_requires_grad("nll_loss_forward", weight=weight)
        logp = _log_softmax(input, 1 if input.dim() > 1 else 0)
        if label_smoothing > 0.0:
            return ops.composite("AddBackward0", _smoothed_nll, logp, target, weight, ignore_index, reduction,
                                 label_smoothing)
        return _nll_recorded(logp, target, weight, ignore_index, reduction)
    if target._data.dtype.kind != "f":
        raise RuntimeError(
            f"Expected floating point type for target with class probabilities, got {target.dtype.kind_name}"
        )
    if label_smoothing > 0.0:  # PyTorch smooths the probabilities themselves
        target = target * (1 - label_smoothing) + label_smoothing / input._data.shape[1 if input.dim() > 1 else 0]
    # PyTorch's mean over no sample is the sum filled with nan, then negated
    name = "DivBackward1" if reduction == "mean" and input._data.size else "NegBackward0"
    # as PyTorch's graph of it: log_softmax keeps its result, the product the target
    return ops.composite(name, _soft_targets, input, target, weight, reduction, _saves=(1,))


def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction="mean", beta=1.0):
    """0.5 d^2 / beta where |d| < beta, else |d| - 0.5 beta, d = input - target: one node,
    SmoothL1LossBackward0; beta = 0 is l1_loss (as in PyTorch)."""
    _warn_if_broadcast(input, target)
    _check_reduction(reduction)
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    if beta == 0.0:
        return l1_loss(input, target, reduction=reduction)
    return ops.apply(activations.smooth_l1_loss, input, target, name="SmoothL1LossBackward0", reduction=reduction,
                     beta=float(beta))


def huber_loss(input, target, reduction="mean", delta=1.0, weight=None):
    """0.5 d^2 where |d| < delta, else delta (|d| - 0.5 delta), d = input - target: one
    node, HuberLossBackward0."""
    if weight is not None:
        raise NotImplementedError("huber_loss with weight is not supported by the shim")
    _warn_if_broadcast(input, target)
    _check_reduction(reduction)
    if delta <= 0:
        raise RuntimeError("huber_loss does not support non-positive values for delta.")
    if isinstance(target, Tensor) and target.dtype is not input.dtype and target._data.dtype.kind == "f":
        return _mixed_huber_loss(input, target, reduction, float(delta))
    return ops.apply(activations.huber_loss, input, target, name="HuberLossBackward0", reduction=reduction,
                     delta=float(delta))


def _mixed_huber_loss(input, target, reduction, delta):
    """huber_loss of a target of another float dtype, as PyTorch's: computed in the wider
    dtype into the input's; its backward kernel refuses the pair (HuberLossBackward0
    raises "Found dtype ...")."""
    x = input._data
    loss = activations.huber_loss(x, target._data, reduction="none", delta=delta).astype(x.dtype)
    ans = loss if reduction == "none" else loss.sum(dtype=x.dtype) if reduction == "sum" else loss.mean(dtype=x.dtype)
    node = node_class("HuberLossBackward0", RefusedNode)
    return ops.without_derivative(ans, (input, target), node, _found_dtype(target, input))


def kl_div(input, target, size_average=None, reduce=None, reduction="mean", log_target=False):
    """The Kullback-Leibler divergence of `target` from the log-probabilities `input`,
    written as PyTorch writes it: xlogy(target, target) - target * input (or exp(target) *
    (target - input) with log_target), then mean, 'batchmean' (the sum over the batch
    size), sum or none."""
    if reduction not in ("mean", "sum", "none", "batchmean"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    if reduction == "mean":
        warnings.warn(
            "reduction: 'mean' divides the total loss by both the batch size and the support size.'batchmean' "
            "divides only by the batch size, and aligns with the KL div math definition.'mean' will be changed to "
            "behave the same as 'batchmean' in the next major release.",
            stacklevel=2,
        )
    if log_target:
        loss = target.exp() * (target - input)
    else:
        loss = target * where(target == 0, 1.0, target).log() - target * input
    if reduction == "batchmean":
        return loss.sum() / input.size(0) if input.dim() else loss.sum()
    return _reduce(loss, reduction)


def poisson_nll_loss(input, target, log_input=True, full=False, size_average=None, eps=1e-8, reduce=None,
                     reduction="mean"):
    """exp(input) - target input (log_input), else input - target log(input + eps); `full`
    adds Stirling's term target log(target) - target + log(2 pi target) / 2 where target > 1."""
    from .functional_margin_losses import _legacy_reduction

    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    loss = input.exp() - target * input if log_input else input - target * (input + eps).log()
    if full:
        t = target._data
        with np.errstate(divide="ignore", invalid="ignore"):
            stirling = t * np.log(t) - t + 0.5 * np.log(2 * np.pi * t)
        loss = loss + Tensor._make(np.where(t <= 1, 0.0, stirling).astype(t.dtype))
    return _reduce(loss, reduction)


def gaussian_nll_loss(input, target, var, full=False, eps=1e-6, reduction="mean"):
    """(log(max(var, eps)) + (input - target)^2 / max(var, eps)) / 2 (+ log(2 pi) / 2 for
    `full`); the clamp is not differentiated (the gradient passes to var as if
    unclamped), as PyTorch's. A var one dim short of the input, or with one dim of size 1
    where the input's differs, is broadcast."""
    from ..tensor.creation import ones_like
    from ..tensor.grad_mode import no_grad

    if isinstance(var, float):
        if var < 0:
            raise ValueError("var has negative entry/entries")
        var = var * ones_like(input)
    elif (var._data < 0).any():
        raise ValueError("var has negative entry/entries")
    if var.shape != input.shape:
        if input.shape[:-1] == var.shape:
            var = var.unsqueeze(-1)
        elif not (input.dim() == var.dim() and
                  sum(b for a, b in zip(input._data.shape, var._data.shape) if a != b) == 1):
            raise ValueError("var is of incorrect size")
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not valid")
    var = var.clone()
    with no_grad():
        var.clamp_(min=eps)
    loss = 0.5 * (var.log() + (input - target) ** 2 / var)
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    return _reduce(loss, reduction)
