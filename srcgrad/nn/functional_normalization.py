"""Normalization of `torch.nn.functional`: layer_norm, batch_norm and group_norm, as
Tensor code over mean, biased variance and rsqrt, recorded as one node with PyTorch's
name (NativeLayerNormBackward0, NativeBatchNormBackward0, NativeGroupNormBackward0);
their gradients, first and higher, come from the rules of those operations.
instance_norm is batch_norm of the input viewed as (1, N C, ...), as PyTorch runs it;
rms_norm and local_response_norm are PyTorch's compositions of elementwise operations.

batch_norm in training mode updates the running statistics in place (not recorded),
with the unbiased variance, as PyTorch does: running = (1 - momentum) * running +
momentum * batch statistic."""

import math

import numpy as np

from ..tensor import ops
from ..tensor.grad_mode import no_grad
from ..tensor.dtypes import Size
from ..tensor.tensor import Tensor

__all__ = ["layer_norm", "batch_norm", "group_norm", "instance_norm", "rms_norm", "local_response_norm"]


def _check_parameter_dtypes(input, *parameters):
    """PyTorch's CPU kernels refuse parameters of another dtype than the input's (only a
    reduced-precision input may have float32 parameters, and the shim has none)."""
    if any(t is not None and t._data.dtype != input._data.dtype for t in parameters):
        if input._data.dtype == np.float32:
            raise RuntimeError("mixed dtype (CPU): expect parameter to have scalar type of Float")
        raise RuntimeError("mixed dtype (CPU): all inputs must share same datatype.")


def _affine(y, weight, bias, shape):
    if weight is not None:
        y = y * weight.reshape(shape)
    if bias is not None:
        y = y + bias.reshape(shape)
    return y


def _normalized(x, axes, eps):
    mean = x.mean(axes, keepdim=True)
    centred = x - mean
    var = (centred * centred).mean(axes, keepdim=True)
    return centred * (var + eps).rsqrt()


def _layer_norm(x, weight, bias, count, eps):
    axes = tuple(range(x.dim() - count, x.dim()))
    return _affine(_normalized(x, axes, eps), weight, bias, x._data.shape[x.dim() - count:])


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    """(x - mean) / sqrt(var + eps) * weight + bias over the last len(normalized_shape)
    dims (biased variance)."""
    normalized_shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
    count = len(normalized_shape)
    if count == 0:
        raise RuntimeError("Expected normalized_shape to be at least 1-dimensional, i.e., containing at least one "
                           "element, but got normalized_shape = []")
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and tuple(t._data.shape) != normalized_shape:
            raise RuntimeError(f"Expected {name} to be of same shape as normalized_shape, but got {name} of shape "
                               f"{list(t._data.shape)} and normalized_shape = {list(normalized_shape)}")
    _check_parameter_dtypes(input, weight, bias)
    shape = input._data.shape
    if len(shape) < count or tuple(shape[len(shape) - count:]) != normalized_shape:
        expected = "[*, " + ", ".join(str(n) for n in normalized_shape) + "]"
        raise RuntimeError(f"Given normalized_shape={list(normalized_shape)}, expected input with shape {expected}, "
                           f"but got input of size{list(shape)}")
    return ops.composite("NativeLayerNormBackward0", _layer_norm, input, weight, bias, count, eps)


def _channel_shape(x):
    return (-1,) + (1,) * (x.dim() - 2)


def _batch_norm_training(x, weight, bias, eps):
    axes = (0,) + tuple(range(2, x.dim()))
    return _affine(_normalized(x, axes, eps), weight, bias, _channel_shape(x))


def _batch_norm_eval(x, mean, var, weight, bias, eps):
    shape = _channel_shape(x)
    y = (x - mean.reshape(shape)) * (var.reshape(shape) + eps).rsqrt()
    return _affine(y, weight, bias, shape)


def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False, momentum=0.1, eps=1e-5):
    """Per channel (dim 1): in training, the batch's mean and biased variance over every
    other dim (and the running statistics updated in place); otherwise the running ones."""
    shape = input._data.shape
    channels = shape[1] if len(shape) > 1 else 0
    for name, t in (("running_mean", running_mean), ("running_var", running_var), ("weight", weight), ("bias", bias)):
        if t is not None and t._data.size != channels:
            raise RuntimeError(f"{name} should contain {channels} elements not {t._data.size}")
    _check_parameter_dtypes(input, weight, bias, running_mean, running_var)
    if training:
        per_channel = math.prod(shape) // channels if channels else 0
        if per_channel <= 1:
            raise ValueError(f"Expected more than 1 value per channel when training, got input size "
                             f"{input.shape}")
        out = ops.composite("NativeBatchNormBackward0", _batch_norm_training, input, weight, bias, eps)
        if running_mean is not None or running_var is not None:
            _update_running(input, running_mean, running_var, momentum, per_channel)
        return out
    if running_mean is None or running_var is None:
        raise RuntimeError(f"{'running_mean' if running_mean is None else 'running_var'} must be defined in evaluation mode")
    return ops.composite("NativeBatchNormBackward0", _batch_norm_eval, input, running_mean, running_var, weight, bias,
                         eps, _edges=(0, 3, 4))


def _update_running(input, running_mean, running_var, momentum, count):
    x = input._data
    axes = (0,) + tuple(range(2, x.ndim))
    mean = x.mean(axes)
    var = x.var(axes) * (count / (count - 1))
    with no_grad():
        if running_mean is not None:
            running_mean.mul_(1 - momentum).add_(Tensor._make(mean.astype(running_mean._data.dtype)) * momentum)
        if running_var is not None:
            running_var.mul_(1 - momentum).add_(Tensor._make(var.astype(running_var._data.dtype)) * momentum)


def _group_norm(x, weight, bias, groups, eps):
    shape = x._data.shape
    grouped = x.reshape(shape[0], groups, -1)
    y = _normalized(grouped, (2,), eps).reshape(shape)
    return _affine(y, weight, bias, _channel_shape(x))


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5):
    """The channels (dim 1) split into `num_groups` groups, each sample's group
    normalized over its channels and the remaining dims; then weight and bias per channel."""
    shape = input._data.shape
    if len(shape) < 2:
        raise RuntimeError(f"Expected at least 2 dimensions for input tensor but received {len(shape)}")
    channels = shape[1]
    if num_groups <= 0 or channels % num_groups:
        raise RuntimeError(f"Expected number of channels in input to be divisible by num_groups, but got input of "
                           f"shape {list(shape)} and num_groups={num_groups}")
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and (t.dim() != 1 or t._data.size != channels):
            raise RuntimeError(f"Expected {name} to be a vector of size equal to the number of channels in input, but "
                               f"got {name} of shape {list(t._data.shape)} and input of shape {list(shape)}")
    _check_parameter_dtypes(input, weight, bias)
    return ops.composite("NativeGroupNormBackward0", _group_norm, input, weight, bias, num_groups, eps)


def _check_spatial_size(shape):
    if math.prod(shape[2:]) == 1:
        raise ValueError(f"Expected more than 1 spatial element when training, got input size {Size(shape)}")


def instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None, use_input_stats=True,
                  momentum=0.1, eps=1e-5):
    """Each sample's channel normalized over its spatial dims (with `use_input_stats`; else
    by the running statistics), then weight and bias per channel; the running statistics,
    given, move toward the batch's mean over the samples."""
    shape = input._data.shape
    if use_input_stats:
        _check_spatial_size(shape)
    n, c = shape[:2]
    folded = input.reshape(1, n * c, *shape[2:])
    repeated = [None if t is None else t.repeat(n) for t in (running_mean, running_var, weight, bias)]
    out = batch_norm(folded, *repeated[:2], *repeated[2:], use_input_stats, momentum, eps)
    with no_grad():
        for running, updated in zip((running_mean, running_var), repeated[:2]):
            if running is not None and use_input_stats:
                running.copy_(updated.reshape(n, c).mean(0))
    return out.reshape(shape)


def rms_norm(input, normalized_shape, weight=None, eps=None):
    """x / sqrt(mean(x^2 over the last len(normalized_shape) dims) + eps) * weight; eps
    defaults to the machine epsilon of the input's dtype."""
    normalized_shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
    count = len(normalized_shape)
    shape = input._data.shape
    if count == 0:
        raise RuntimeError("Expected normalized_shape to be at least 1-dimensional, i.e., containing at least one "
                           "element, but got normalized_shape = []")
    if weight is not None and tuple(weight._data.shape) != normalized_shape:
        raise RuntimeError(f"Expected weight to be of same shape as normalized_shape, but got weight of shape "
                           f"{list(weight._data.shape)} and normalized_shape = {list(normalized_shape)}")
    if len(shape) < count or tuple(shape[len(shape) - count:]) != normalized_shape:
        expected = "[*" + ", ".join(str(n) for n in normalized_shape) + "]"  # PyTorch's spelling
        raise RuntimeError(f"Given normalized_shape={list(normalized_shape)}, expected input with shape {expected}, "
                           f"but got input of size{list(shape)}")
    if eps is None:
        eps = float(np.finfo(input._data.dtype).eps)
    axes = tuple(range(input.dim() - count, input.dim()))
    y = input * (input.pow(2).mean(axes, keepdim=True) + eps).rsqrt()
    return y if weight is None else y * weight


def local_response_norm(input, size, alpha=1e-4, beta=0.75, k=1.0):
    """x / (k + alpha * mean of x^2 over `size` neighbouring channels)^beta, the window
    over channels c - size // 2 .. c + (size - 1) // 2 (zeros beyond the ends)."""
    from .functional_convolution import avg_pool2d, pad

    dims = input.dim()
    if dims < 3:
        raise ValueError(f"Expected 3D or higher dimensionality{' ' * 26}input (got {dims} dimensions)")  # as PyTorch's
    if input._data.size == 0:
        return input
    shape = input._data.shape
    squares = (input * input).reshape(shape[0], 1, shape[1], -1)
    squares = pad(squares, (0, 0, size // 2, (size - 1) // 2))
    div = avg_pool2d(squares, (size, 1), stride=1).squeeze(1).reshape(shape)
    return input / (div * alpha + k).pow(beta)
