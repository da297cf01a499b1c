"""The `torch.*` forms of `nn.functional` ops (`torch.conv2d`, `torch.dropout`,
`torch.batch_norm`, `torch.kl_div`, ...), with the signatures of PyTorch's top-level
functions where they differ from nn.functional's: `dropout(input, p, train)` positional,
`batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps,
cudnn_enabled)`, `embedding(weight, indices, padding_idx=-1, ...)`, losses taking
`reduction` as an int (1 mean, 2 sum, any other none; omitted: none, as PyTorch 2.13 reads it), in-place forms (`selu_`, `celu_`,
`threshold_`, `rrelu_`, `dropout_`, ...).

Invariants: each maps its arguments onto the nn.functional op and returns what that
returns (values, nodes, errors are its own); `cudnn_enabled` and the like are accepted
and have no effect on the CPU.
"""

import warnings

from . import functional as F
from .functional_dropout import _dropout

__all__ = [
    "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d",
    "dropout", "dropout_", "alpha_dropout", "alpha_dropout_", "feature_dropout", "feature_dropout_",
    "feature_alpha_dropout", "feature_alpha_dropout_", "layer_norm", "group_norm", "batch_norm", "instance_norm",
    "embedding", "bilinear", "pixel_shuffle", "pixel_unshuffle", "cosine_similarity", "pairwise_distance",
    "pdist", "kl_div", "binary_cross_entropy_with_logits", "selu", "selu_", "celu", "celu_", "threshold", "threshold_",
    "prelu", "rrelu", "rrelu_", "hardshrink", "max_pool1d", "max_pool2d", "max_pool3d", "avg_pool1d",
    "adaptive_avg_pool1d", "adaptive_max_pool1d", "constant_pad_nd", "margin_ranking_loss", "hinge_embedding_loss",
    "cosine_embedding_loss", "triplet_margin_loss", "poisson_nll_loss",
]

conv1d, conv2d, conv3d = F.conv1d, F.conv2d, F.conv3d
conv_transpose1d, conv_transpose2d, conv_transpose3d = F.conv_transpose1d, F.conv_transpose2d, F.conv_transpose3d
bilinear, pixel_shuffle, pixel_unshuffle, prelu = F.bilinear, F.pixel_shuffle, F.pixel_unshuffle, F.prelu
cosine_similarity, pairwise_distance, selu, celu, hardshrink = (
    F.cosine_similarity, F.pairwise_distance, F.selu, F.celu, F.hardshrink)
adaptive_avg_pool1d = F.adaptive_avg_pool1d

_REDUCTIONS = {1: "mean", 2: "sum"}  # PyTorch's Reduction enum; any other int reduces nothing, as PyTorch's


def _reduction(reduction, op, position):
    """The nn.functional name of PyTorch's int `reduction`. PyTorch 2.13's top-level
    losses read an omitted reduction as 0 (none), so the defaults here are 0."""
    if not isinstance(reduction, int) or isinstance(reduction, bool):
        raise TypeError(f"{op}(): argument 'reduction' (position {position}) must be int, not "
                        f"{type(reduction).__name__}")
    return _REDUCTIONS.get(reduction, "none")


# --- dropout ----------------------------------------------------------------------------


def _checked_p(p):
    """`p`; PyTorch's top-level dropouts refuse one outside [0, 1] with a RuntimeError."""
    if p < 0.0 or p > 1.0:
        raise RuntimeError(f"dropout probability has to be between 0 and 1, but got {p}")
    return p


def dropout(input, p, train):
    return F.dropout(input, _checked_p(p), train)


def dropout_(input, p, train):
    return F.dropout(input, _checked_p(p), train, inplace=True)


def alpha_dropout(input, p, train):
    return F.alpha_dropout(input, _checked_p(p), train)


def alpha_dropout_(input, p, train):
    return F.alpha_dropout(input, _checked_p(p), train, inplace=True)


def _feature(input, p, train, inplace, alpha):
    """Whole channels (dim 1 of an input of 2 or more dims) dropped."""
    _checked_p(p)
    if input.dim() < 2:
        raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
    return _dropout(input, p, train, inplace, True, alpha)


def feature_dropout(input, p, train):
    return _feature(input, p, train, False, False)


def feature_dropout_(input, p, train):
    return _feature(input, p, train, True, False)


def feature_alpha_dropout(input, p, train):
    return _feature(input, p, train, False, True)


def feature_alpha_dropout_(input, p, train):
    return _feature(input, p, train, True, True)


# --- normalization and embedding ---------------------------------------------------------


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-05, cudnn_enable=True):
    return F.layer_norm(input, normalized_shape, weight, bias, eps)


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-05, cudnn_enabled=True):
    return F.group_norm(input, num_groups, weight, bias, eps)


def batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps, cudnn_enabled):
    return F.batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)


def instance_norm(input, weight, bias, running_mean, running_var, use_input_stats, momentum, eps, cudnn_enabled):
    return F.instance_norm(input, running_mean, running_var, weight, bias, use_input_stats, momentum, eps)


def embedding(weight, indices, padding_idx=-1, scale_grad_by_freq=False, sparse=False):
    """The rows of `weight` at `indices` (weight first, as PyTorch's top-level form); a
    negative `padding_idx` means none."""
    return F.embedding(indices, weight, None if padding_idx < 0 else padding_idx,
                       scale_grad_by_freq=scale_grad_by_freq, sparse=sparse)


# --- activations in place ------------------------------------------------------------------


def selu_(input):
    return F.selu(input, inplace=True)


def celu_(input, alpha=1.0):
    return F.celu(input, alpha, inplace=True)


def threshold(input, threshold, value):
    return F.threshold(input, threshold, value)


def threshold_(input, threshold, value):
    return F.threshold(input, threshold, value, inplace=True)


def _refuse_generator(generator, op):
    if generator is not None:
        raise NotImplementedError(f"{op}(generator=...) is not supported by the shim: it draws from the default "
                                  "generator (seed it with srcgrad.manual_seed)")


def rrelu(input, lower=0.125, upper=1.0 / 3, training=False, generator=None):
    _refuse_generator(generator, "rrelu")
    return F.rrelu(input, lower, upper, training)


def rrelu_(input, lower=0.125, upper=1.0 / 3, training=False, generator=None):
    _refuse_generator(generator, "rrelu_")
    return F.rrelu(input, lower, upper, training, inplace=True)


# --- pooling and padding -------------------------------------------------------------------


def _stride(stride):
    """PyTorch's top-level default stride `()`: the kernel size."""
    return None if stride == () else stride


def max_pool1d(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    return F.max_pool1d(input, kernel_size, _stride(stride), padding, dilation, ceil_mode)


def max_pool2d(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    return F.max_pool2d(input, kernel_size, _stride(stride), padding, dilation, ceil_mode)


def max_pool3d(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    return F.max_pool3d(input, kernel_size, _stride(stride), padding, dilation, ceil_mode)


def avg_pool1d(input, kernel_size, stride=(), padding=0, ceil_mode=False, count_include_pad=True):
    return F.avg_pool1d(input, kernel_size, _stride(stride), padding, ceil_mode, count_include_pad)


def adaptive_max_pool1d(input, output_size):
    """(values, indices), as PyTorch's top-level form always returns both."""
    return F.adaptive_max_pool1d(input, output_size, return_indices=True)


def constant_pad_nd(input, pad, value=0):
    return F.pad(input, pad, value=value)


# --- distances ------------------------------------------------------------------------------


def pdist(input, p=2):
    """The p-norm distances between the rows of the 2-D `input`, pair (i, j) for i < j in
    row-major order (PdistBackward0); p below 1 is refused. At a tie of p=inf the gradient is shared among the
    tied elements (linalg.vector_norm's), where PyTorch's gives each the full sign."""
    from ..linalg import vector_norm
    from ..tensor import ops
    from ..tensor.matrix_makers import triu_indices

    if input.dim() != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {input.dim()}D")
    if input._data.dtype.kind != "f":
        raise RuntimeError("pdist only supports floating-point dtypes")
    if p < 0:
        raise RuntimeError("pdist only supports non-negative p values")
    if p < 1:
        raise NotImplementedError(f"pdist with p={p!r} is not supported by the shim: its norms are for p >= 1 or inf")
    n = input.shape[0]
    rows, cols = triu_indices(n, n, 1)
    return ops.composite("PdistBackward0", lambda x: vector_norm(x[rows] - x[cols], p, dim=1), input)


# --- losses -------------------------------------------------------------------------------


def kl_div(input, target, reduction=0, *, log_target=False):
    """Reduction 1 is the mean over every element (nn.functional's 'mean', without its
    warning that 'batchmean' is meant)."""
    name = _reduction(reduction, "kl_div", 3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return F.kl_div(input, target, reduction=name, log_target=log_target)


def binary_cross_entropy_with_logits(input, target, weight=None, pos_weight=None, reduction=0):
    return F.binary_cross_entropy_with_logits(input, target, weight,
                                              reduction=_reduction(reduction, "binary_cross_entropy_with_logits", 5),
                                              pos_weight=pos_weight)


def margin_ranking_loss(input1, input2, target, margin=0.0, reduction=0):
    return F.margin_ranking_loss(input1, input2, target, margin, reduction=_reduction(reduction, "margin_ranking_loss", 5))


def hinge_embedding_loss(input, target, margin=1.0, reduction=0):
    return F.hinge_embedding_loss(input, target, margin, reduction=_reduction(reduction, "hinge_embedding_loss", 4))


def cosine_embedding_loss(input1, input2, target, margin=0.0, reduction=0):
    return F.cosine_embedding_loss(input1, input2, target, margin,
                                   reduction=_reduction(reduction, "cosine_embedding_loss", 5))


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-06, swap=False, reduction=0):
    return F.triplet_margin_loss(anchor, positive, negative, margin, p, eps, swap,
                                 reduction=_reduction(reduction, "triplet_margin_loss", 8))


def poisson_nll_loss(input, target, log_input, full, eps, reduction):
    return F.poisson_nll_loss(input, target, log_input, full, eps=eps,
                              reduction=_reduction(reduction, "poisson_nll_loss", 6))
