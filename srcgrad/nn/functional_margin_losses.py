"""Margin and embedding losses of `torch.nn.functional`: margin_ranking_loss,
hinge_embedding_loss, cosine_embedding_loss, triplet_margin_loss,
multilabel_soft_margin_loss and multi_margin_loss, written with the operations PyTorch's
kernels use (so their nodes are PyTorch's: ClampMinBackward0, WhereBackward0, ...);
multi_margin_loss, one kernel in PyTorch, is one node (MultiMarginLossBackward0).
`reduction` is 'mean' (default), 'sum' or 'none'; the legacy `size_average` and `reduce`
map onto it as in PyTorch."""

import numpy as np

from ..tensor import ops
from ..tensor.functions import where
from ..tensor.tensor import Tensor
from .functional_layers import pairwise_distance
from .functional_losses import _reduce

__all__ = ["margin_ranking_loss", "hinge_embedding_loss", "cosine_embedding_loss", "triplet_margin_loss",
           "multilabel_soft_margin_loss", "multi_margin_loss"]


def _legacy_reduction(size_average, reduce, reduction):
    """PyTorch's reading of the deprecated size_average and reduce."""
    if size_average is None and reduce is None:
        return reduction
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    return "none" if not reduce else "mean" if size_average else "sum"


def _reduction_enum(reduction):
    """Where PyTorch turns `reduction` into its enum first (its message)."""
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return reduction


def margin_ranking_loss(input1, input2, target, margin=0, size_average=None, reduce=None, reduction="mean"):
    """max(0, -target (input1 - input2) + margin)."""
    reduction = _reduction_enum(_legacy_reduction(size_average, reduce, reduction))
    if input1.dim() != input2.dim() or input1.dim() != target.dim():
        raise RuntimeError(f"margin_ranking_loss : All input tensors should have same dimension but got sizes: "
                           f"input1: {input1.shape}, input2: {input2.shape}, target: {target.shape} ")
    return _reduce((-target * (input1 - input2) + margin).clamp_min(0), reduction)


def hinge_embedding_loss(input, target, margin=1.0, size_average=None, reduce=None, reduction="mean"):
    """input where target is 1, max(0, margin - input) where it is -1 (the sum of both
    terms for other targets, as PyTorch's kernel)."""
    reduction = _reduction_enum(_legacy_reduction(size_average, reduce, reduction))
    margin_clamp = (margin - input).clamp_min(0)
    output_margin = where(target != 1, margin_clamp, 0.0)
    output_self = where(target != -1, input, 0.0)
    return _reduce(output_margin + output_self, reduction)


def cosine_embedding_loss(input1, input2, target, margin=0, size_average=None, reduce=None, reduction="mean"):
    """1 - cos(x1, x2) where target is 1, max(0, cos(x1, x2) - margin) where it is -1;
    cos = <x1, x2> / sqrt((|x1|^2 + 1e-12) (|x2|^2 + 1e-12)) over the last dim."""
    reduction = _reduction_enum(_legacy_reduction(size_average, reduce, reduction))
    dims = target.dim()
    if dims not in (0, 1):
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    if dims == 1 and (input1.dim() != 2 or input2.dim() != 2):
        raise RuntimeError(f"1D target tensor expects 2D input tensors, but found inputs with sizes "
                           f"{list(input1._data.shape)} and {list(input2._data.shape)}.")
    if dims == 0 and (input1.dim() != 1 or input2.dim() != 1):
        raise RuntimeError(f"0D target tensor expects 1D input tensors, but found inputs with sizes "
                           f"{list(input1._data.shape)} and {list(input2._data.shape)}.")
    products = (input1 * input2).sum(dims)
    squares1 = (input1 * input1).sum(dims) + 1e-12
    squares2 = (input2 * input2).sum(dims) + 1e-12
    cos = products / (squares1 * squares2).sqrt()
    positive = where(target == 1, 1 - cos, 0.0)
    negative = where(target == -1, (cos - margin).clamp_min(0), 0.0)
    return _reduce(positive + negative, reduction)


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-6, swap=False, size_average=None,
                        reduce=None, reduction="mean"):
    """max(0, margin + d(anchor, positive) - d(anchor, negative)), d the pairwise
    p-distance (with `swap`, the smaller of d(a, n) and d(p, n))."""
    reduction = _reduction_enum(_legacy_reduction(size_average, reduce, reduction))
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    dims = (anchor.dim(), positive.dim(), negative.dim())
    if len(set(dims)) != 1:
        raise RuntimeError(f"The anchor, positive, and negative tensors are expected to have the same number of "
                           f"dimensions, but got: anchor {dims[0]}D, positive {dims[1]}D, and negative {dims[2]}D "
                           "inputs")
    to_positive = pairwise_distance(anchor, positive, p, eps)
    to_negative = pairwise_distance(anchor, negative, p, eps)
    if swap:
        to_negative = to_negative.minimum(pairwise_distance(positive, negative, p, eps))
    return _reduce((margin + to_positive - to_negative).clamp_min(0), reduction)


def multilabel_soft_margin_loss(input, target, weight=None, size_average=None, reduce=None, reduction="mean"):
    """The mean over classes (the last dim) of -(y log sigmoid(x) + (1 - y) log sigmoid(-x))."""
    from .functional import logsigmoid

    reduction = _legacy_reduction(size_average, reduce, reduction)
    loss = -(target * logsigmoid(input) + (1 - target) * logsigmoid(-input))
    if weight is not None:
        loss = loss * weight
    class_dim = input.dim() - 1
    loss = loss.sum(class_dim) / input._data.shape[class_dim]
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"{reduction} is not valid")
    return _reduce(loss, reduction)


def _multi_margin(input, target, p, margin, weight, reduction):
    classes = input._data.shape[-1] if input.dim() else 1
    x = input.reshape(-1, classes)
    picked = x.gather(-1, Tensor._make(target[..., None]))
    z = (x - picked + margin).clamp_min(0)
    z = z if p == 1 else z * z
    others = Tensor._make((np.arange(classes) != target[..., None]).astype(x._data.dtype))
    if weight is not None:
        z = z * weight[Tensor._make(target)].unsqueeze(-1)
    loss = _reduce((z * others).sum(-1) / classes, reduction)
    return loss.reshape(()) if reduction == "none" and input.dim() < 2 else loss


def multi_margin_loss(input, target, p=1, margin=1.0, weight=None, size_average=None, reduce=None,
                      reduction="mean"):
    """Per sample with class y: the sum over classes j != y of max(0, margin - x[y] +
    x[j])^p (times weight[y]), over the number of classes (MultiMarginLossBackward0)."""
    reduction = _reduction_enum(_legacy_reduction(size_average, reduce, reduction))
    if p != 1 and p != 2:
        raise ValueError("only p == 1 and p == 2 supported")
    if weight is not None and weight.dim() != 1:
        raise ValueError("weight must be one-dimensional")
    dims = input.dim()
    classes = input._data.shape[-1] if dims else 1
    if not (dims <= 1 and target.dim() <= 1 or dims == 2 and target.dim() == 1 and
            target._data.shape[0] == input._data.shape[0]) or (dims and input._data.shape[-1] == 0):
        raise RuntimeError(f"Expected non-empty vector or matrix with optional 0-dim batch size, but got: "
                           f"{list(input._data.shape)}")
    labels = np.asarray(target._data)
    if labels.size and (labels.min() < 0 or labels.max() >= classes):
        raise RuntimeError("target out of range")
    if weight is not None and weight._data.size != classes:
        raise RuntimeError(f"inconsistent weight size, expected {classes} but got {list(weight._data.shape)}")
    labels = labels.reshape(-1).astype(np.int64)
    return ops.composite("MultiMarginLossBackward0", _multi_margin, input, labels, p, margin, weight, reduction)
