"""`srcgrad.nn`'s normalization layers, as in `torch.nn`: LayerNorm, BatchNorm1d,
BatchNorm2d, GroupNorm, InstanceNorm1d, InstanceNorm2d, RMSNorm and LocalResponseNorm.
Their weights start at 1 and biases at 0 (PyTorch's reset_parameters); a BatchNorm (and
an InstanceNorm with track_running_stats) keeps the buffers running_mean (0),
running_var (1) and num_batches_tracked (int64 0), updated in training mode by
`F.batch_norm` (`F.instance_norm`)."""

import warnings

import numpy as np

from ..tensor import devices, dtypes
from ..tensor.grad_mode import no_grad
from ..tensor.tensor import Tensor
from . import functional as F
from .modules import Module, Parameter

__all__ = ["LayerNorm", "BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "GroupNorm", "InstanceNorm1d", "InstanceNorm2d",
           "InstanceNorm3d", "RMSNorm", "LocalResponseNorm"]


def _vector(shape, dtype, value):
    np_dtype = (dtypes.DEFAULT_FLOAT if dtype is None else dtypes.as_dtype(dtype)).numpy
    return Tensor._make(np.full(shape, value, dtype=np_dtype))


def _affine_parameters(module, shape, affine, bias, dtype):
    """weight (ones) and bias (zeros) of `shape`, or None where not affine / no bias."""
    if affine:
        module.weight = Parameter(_vector(shape, dtype, 1.0))
        if bias:
            module.bias = Parameter(_vector(shape, dtype, 0.0))
        else:
            module.register_parameter("bias", None)
    else:
        module.register_parameter("weight", None)
        module.register_parameter("bias", None)


def _reset_affine(module):
    with no_grad():
        if module.weight is not None:
            module.weight.fill_(1.0)
        if module.bias is not None:
            module.bias.zero_()


class LayerNorm(Module):
    def __init__(self, normalized_shape, eps=1e-5, elementwise_affine=True, bias=True, device=None, dtype=None):
        devices.allocated_on(device, "empty")
        super().__init__()
        shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
        self.normalized_shape, self.eps, self.elementwise_affine = shape, eps, elementwise_affine
        _affine_parameters(self, shape, elementwise_affine, bias, dtype)

    def reset_parameters(self):
        _reset_affine(self)

    def forward(self, input):
        return F.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return (f"{self.normalized_shape}, eps={self.eps}, elementwise_affine={self.elementwise_affine}, "
                f"bias={self.bias is not None}")


class GroupNorm(Module):
    def __init__(self, num_groups, num_channels, eps=1e-5, affine=True, device=None, dtype=None, *, bias=True):
        devices.allocated_on(device, "empty")
        super().__init__()
        if num_channels % num_groups != 0:
            raise ValueError(f"num_channels ({num_channels}) must be divisible by num_groups ({num_groups})")
        self.num_groups, self.num_channels, self.eps, self.affine = num_groups, num_channels, eps, affine
        _affine_parameters(self, (num_channels,), affine, bias, dtype)

    def reset_parameters(self):
        _reset_affine(self)

    def forward(self, input):
        return F.group_norm(input, self.num_groups, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return (f"{self.num_groups}, {self.num_channels}, eps={self.eps}, affine={self.affine}, "
                f"bias={self.bias is not None}")


class _BatchNorm(Module):
    """Batch statistics in training mode (and where no running statistics are kept),
    the running ones in eval mode; `momentum=None` averages all batches so far."""

    _dims = ()

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True, device=None,
                 dtype=None, *, bias=True):
        devices.allocated_on(device, "empty")
        super().__init__()
        self.num_features, self.eps, self.momentum = num_features, eps, momentum
        self.affine, self.track_running_stats = affine, track_running_stats
        _affine_parameters(self, (num_features,), affine, bias, dtype)
        if track_running_stats:
            self.register_buffer("running_mean", _vector((num_features,), dtype, 0.0))
            self.register_buffer("running_var", _vector((num_features,), dtype, 1.0))
            self.register_buffer("num_batches_tracked", Tensor._make(np.array(0, dtype=np.int64)))
        else:
            for name in ("running_mean", "running_var", "num_batches_tracked"):
                self.register_buffer(name, None)

    def reset_running_stats(self):
        if self.track_running_stats:
            with no_grad():
                self.running_mean.zero_()
                self.running_var.fill_(1.0)
                self.num_batches_tracked.zero_()

    def reset_parameters(self):
        self.reset_running_stats()
        _reset_affine(self)

    def forward(self, input):
        if input.dim() not in self._dims:
            shown = " or ".join(f"{d}D" for d in self._dims)
            raise ValueError(f"expected {shown} input (got {input.dim()}D input)")
        factor = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats and self.num_batches_tracked is not None:
            with no_grad():
                self.num_batches_tracked.add_(1)
            if self.momentum is None:
                factor = 1.0 / float(self.num_batches_tracked.item())
        use_batch = self.training or (self.running_mean is None and self.running_var is None)
        keep = not self.training or self.track_running_stats
        return F.batch_norm(input, self.running_mean if keep else None, self.running_var if keep else None,
                            self.weight, self.bias, use_batch, factor, self.eps)

    def extra_repr(self):
        return (f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, affine={self.affine}, "
                f"bias={self.bias is not None}, track_running_stats={self.track_running_stats}")


class BatchNorm1d(_BatchNorm):
    """Over (N, C) or (N, C, L), per channel C."""

    _dims = (2, 3)


class BatchNorm2d(_BatchNorm):
    """Over (N, C, H, W), per channel C."""

    _dims = (4,)


class BatchNorm3d(_BatchNorm):
    """Over (N, C, D, H, W), per channel C."""

    _dims = (5,)


class _InstanceNorm(_BatchNorm):
    """Per sample and channel over the spatial dims (F.instance_norm); affine and
    track_running_stats off by default. An input without the batch dim is run as a batch
    of one."""

    _unbatched = 0

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=False, track_running_stats=False, device=None,
                 dtype=None, *, bias=True):
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device, dtype, bias=bias)

    def forward(self, input):
        if input.dim() not in self._dims:
            shown = " or ".join(f"{d}D" for d in self._dims)
            raise ValueError(f"expected {shown} input (got {input.dim()}D input)")
        feature_dim = input.dim() - self._unbatched
        size = input._data.shape[feature_dim]
        if size != self.num_features:
            if self.affine:
                raise ValueError(f"expected input's size at dim={feature_dim} to match num_features "
                                 f"({self.num_features}), but got: {size}.")
            warnings.warn(f"input's size at dim={feature_dim} does not match num_features. You can silence this "
                          "warning by not passing in num_features, which is not used because affine=False",
                          stacklevel=2)
        if input.dim() == self._unbatched:
            return self._normalized(input.unsqueeze(0)).squeeze(0)
        return self._normalized(input)

    def _normalized(self, input):
        return F.instance_norm(input, self.running_mean, self.running_var, self.weight, self.bias,
                               self.training or not self.track_running_stats,
                               self.momentum if self.momentum is not None else 0.0, self.eps)


class InstanceNorm1d(_InstanceNorm):
    """Over (N, C, L) or (C, L)."""

    _dims, _unbatched = (2, 3), 2


class InstanceNorm2d(_InstanceNorm):
    """Over (N, C, H, W) or (C, H, W)."""

    _dims, _unbatched = (3, 4), 3


class InstanceNorm3d(_InstanceNorm):
    """Over (N, C, D, H, W) or (C, D, H, W)."""

    _dims, _unbatched = (4, 5), 4


class RMSNorm(Module):
    """x / sqrt(mean(x^2) + eps) over the last dims `normalized_shape`, times weight (ones);
    eps None: the dtype's machine epsilon."""

    def __init__(self, normalized_shape, eps=None, elementwise_affine=True, device=None, dtype=None):
        devices.allocated_on(device, "empty")
        super().__init__()
        shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
        self.normalized_shape, self.eps, self.elementwise_affine = shape, eps, elementwise_affine
        if elementwise_affine:
            self.weight = Parameter(_vector(shape, dtype, 1.0))
        else:
            self.register_parameter("weight", None)

    def reset_parameters(self):
        if self.weight is not None:
            with no_grad():
                self.weight.fill_(1.0)

    def forward(self, x):
        return F.rms_norm(x, self.normalized_shape, self.weight, self.eps)

    def extra_repr(self):
        return f"{self.normalized_shape}, eps={self.eps}, elementwise_affine={self.elementwise_affine}"


class LocalResponseNorm(Module):
    def __init__(self, size, alpha=1e-4, beta=0.75, k=1.0):
        super().__init__()
        self.size, self.alpha, self.beta, self.k = size, alpha, beta, k

    def forward(self, input):
        return F.local_response_norm(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self):
        return f"{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"
