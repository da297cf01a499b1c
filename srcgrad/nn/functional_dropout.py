"""The dropout variants of `torch.nn.functional` beyond dropout (functional.py):
dropout1d, dropout2d, dropout3d (whole channels zeroed), alpha_dropout and
feature_alpha_dropout (SELU's self-normalizing dropout), and rrelu, as PyTorch's kernels
compute them: a mask drawn from srcgrad's generator (so other numbers than PyTorch's
stream, the same distribution) multiplied in (MulBackward0; alpha dropout adds its
affine correction, AddBackward0). Not training, or p = 0: the input itself."""

import math
import warnings

import numpy as np

from ..tensor import ops
from ..tensor.functions import where
from ..tensor.tensor import Tensor

__all__ = ["dropout1d", "dropout2d", "dropout3d", "alpha_dropout", "feature_alpha_dropout", "rrelu"]

_SELU_ALPHA = 1.7580993408473766  # scale * alpha of SELU: the value its negative side saturates at


def _check_p(p):
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def _keep_mask(input, p, feature):
    """1 where kept (probability 1 - p), per element or per (sample, channel) for `feature`."""
    from ..tensor.generators import stream

    shape = input._data.shape
    noise_shape = shape[:2] + (1,) * (len(shape) - 2) if feature else shape
    return (stream().random(noise_shape) < 1.0 - p).astype(input._data.dtype)


def _dropout(input, p, training, inplace, feature, alpha):
    """PyTorch's _dropout_impl."""
    if p == 0 or not training or input._data.size == 0:
        return input
    dtype = input._data.dtype
    if p == 1:
        zero = Tensor._make(np.zeros((), dtype=dtype))
        return input.mul_(zero) if inplace else input * zero
    keep = _keep_mask(input, p, feature)
    if not alpha:
        scale = Tensor._make((keep / (1.0 - p)).astype(dtype))
        return input.mul_(scale) if inplace else input * scale
    a = 1.0 / math.sqrt((_SELU_ALPHA * _SELU_ALPHA * p + 1) * (1 - p))
    shift = Tensor._make(((keep - 1) * (_SELU_ALPHA * a) + _SELU_ALPHA * a * p).astype(dtype))
    scale = Tensor._make((keep * a).astype(dtype))
    if inplace:
        return input.mul_(scale).add_(shift)
    return input * scale + shift


def _channels_dropped(input, p, training, inplace, batched):
    """Whole channels (dim 1) dropped; an unbatched input gets a batch dim of 1 for it."""
    if batched:
        return _dropout(input, p, training, inplace, True, False)
    if inplace:
        return _dropout(input.unsqueeze_(0), p, training, True, True, False).squeeze_(0)
    return _dropout(input.unsqueeze(0), p, training, False, True, False).squeeze(0)


def dropout1d(input, p=0.5, training=True, inplace=False):
    """Zeroes whole channels of (N, C, L) or (C, L), scaling the rest by 1 / (1 - p)."""
    _check_p(p)
    dims = input.dim()
    if dims not in (2, 3):
        raise RuntimeError(f"dropout1d: Expected 2D or 3D input, but received a {dims}D input. Note that dropout1d "
                           "exists to provide channel-wise dropout on inputs with 1 spatial dimension, a channel "
                           "dimension, and an optional batch dimension (i.e. 2D or 3D inputs).")
    return _channels_dropped(input, p, training, inplace, batched=dims == 3)


def dropout2d(input, p=0.5, training=True, inplace=False):
    """Zeroes whole channels (dim 1) of (N, C, H, W); a 3-D input is read as (N, C, L), as
    PyTorch still reads it (with its warning)."""
    _check_p(p)
    dims = input.dim()
    if dims not in (3, 4):
        warnings.warn(f"dropout2d: Received a {dims}-D input to dropout2d, which is deprecated and will result in an "
                      "error in a future release. To retain the behavior and silence this warning, please use dropout "
                      "instead. Note that dropout2d exists to provide channel-wise dropout on inputs with 2 spatial "
                      "dimensions, a channel dimension, and an optional batch dimension (i.e. 3D or 4D inputs).",
                      stacklevel=2)
    if dims == 3:
        warnings.warn("dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D dropout behavior "
                      "is desired - input is interpreted as shape (N, C, L), where C is the channel dim. This behavior "
                      "will change in a future release to interpret the input as one without a batch dimension, i.e. "
                      "shape (C, H, W). To maintain the 1D channel-wise dropout behavior, please switch to using "
                      "dropout1d instead.", stacklevel=2)
    return _dropout(input, p, training, inplace, True, False)


def dropout3d(input, p=0.5, training=True, inplace=False):
    """Zeroes whole channels of (N, C, D, H, W) or (C, D, H, W)."""
    _check_p(p)
    dims = input.dim()
    if dims not in (4, 5):
        warnings.warn(f"dropout3d: Received a {dims}-D input to dropout3d, which is deprecated and will result in an "
                      "error in a future release. To retain the behavior and silence this warning, please use dropout "
                      "instead. Note that dropout3d exists to provide channel-wise dropout on inputs with 3 spatial "
                      "dimensions, a channel dimension, and an optional batch dimension (i.e. 4D or 5D inputs).",
                      stacklevel=2)
    return _channels_dropped(input, p, training, inplace, batched=dims == 5)


def alpha_dropout(input, p=0.5, training=False, inplace=False):
    """Dropped elements set to SELU's saturation value, then an affine map that keeps the
    mean 0 and variance 1 of a standardized input."""
    _check_p(p)
    return _dropout(input, p, training, inplace, False, True)


def feature_alpha_dropout(input, p=0.5, training=False, inplace=False):
    """alpha_dropout of whole channels (dim 1)."""
    _check_p(p)
    return _dropout(input, p, training, inplace, True, True)


def _rrelu(x, slopes):
    return where(x._data > 0, x, x * Tensor._make(slopes))


def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, inplace=False):
    """x where x > 0, else x times a slope drawn uniformly from [lower, upper] per
    element in training, (lower + upper) / 2 otherwise (RreluWithNoiseBackward0)."""
    if lower > upper:
        raise RuntimeError("Lower bound should be less than or equal to the upper bound")
    if input._data.dtype.kind not in "fc":
        raise NotImplementedError(f"\"rrelu_with_noise_out_cpu\" not implemented for '{input.dtype.kind_name}'")
    dtype = input._data.dtype
    if training:
        from ..tensor.generators import stream

        slopes = (lower + (upper - lower) * stream().random(input._data.shape)).astype(dtype)
    else:
        slopes = np.full(input._data.shape, (lower + upper) / 2, dtype=dtype)
    if inplace:
        return input._rewrite(lambda t: ops.composite("RreluWithNoiseBackward1", _rrelu, t, slopes))
    return ops.composite("RreluWithNoiseBackward0", _rrelu, input, slopes)
