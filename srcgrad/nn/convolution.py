"""`srcgrad.nn`'s convolution layers, as in `torch.nn`: Conv1d, Conv2d, Conv3d,
ConvTranspose1d, ConvTranspose2d, ConvTranspose3d, Unfold and Fold (the pools are pooling.py's). A
convolution's weight (out_channels, in_channels / groups, *kernel_size), a transposed
one's (in_channels, out_channels / groups, *kernel_size), and bias (out_channels) start
uniform in +-1/sqrt(fan_in), fan_in = weight.shape[1] * prod(kernel_size), the bound PyTorch's
kaiming_uniform_(a=sqrt(5)) gives; padding_mode other than 'zeros' pads with `F.pad`
first."""

import math

import numpy as np

from ..tensor import creation, devices, dtypes
from ..tensor.grad_mode import no_grad
from ..tensor.tensor import Tensor
from . import functional as F
from .modules import Module, Parameter

__all__ = ["Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d", "Unfold", "Fold"]


def _ntuple(value, n):
    return tuple(value) if isinstance(value, (tuple, list)) else (value,) * n


class _ConvNd(Module):
    _dims = 0
    _transposed = False

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=True,
                 padding_mode="zeros", device=None, dtype=None, output_padding=0):
        devices.allocated_on(device, "empty")
        super().__init__()
        n = self._dims
        if groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels % groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups != 0:
            raise ValueError("out_channels must be divisible by groups")
        if padding_mode not in ("zeros", "reflect", "replicate", "circular"):
            raise ValueError(f"padding_mode must be one of {{'circular', 'reflect', 'replicate', 'zeros'}}, but got "
                             f"padding_mode='{padding_mode}'")
        kernel_size, stride, dilation = _ntuple(kernel_size, n), _ntuple(stride, n), _ntuple(dilation, n)
        if self._transposed and padding_mode != "zeros":
            raise ValueError(f'Only "zeros" padding mode is supported for {type(self).__name__}')
        if self._transposed and isinstance(padding, str):
            raise ValueError(f"padding={padding!r} is not supported for {type(self).__name__}")
        if isinstance(padding, str):
            if padding not in ("valid", "same"):
                raise ValueError(f"Invalid padding string {padding!r}, should be one of {{'valid', 'same'}}")
            if padding == "same" and any(s != 1 for s in stride):
                raise ValueError("padding='same' is not supported for strided convolutions")
        else:
            padding = _ntuple(padding, n)
        self.in_channels, self.out_channels, self.kernel_size = in_channels, out_channels, kernel_size
        self.stride, self.padding, self.dilation, self.groups = stride, padding, dilation, groups
        self.output_padding, self.transposed = _ntuple(output_padding, n), self._transposed
        self.padding_mode = padding_mode
        np_dtype = (dtypes.DEFAULT_FLOAT if dtype is None else dtypes.as_dtype(dtype)).numpy
        if self._transposed:  # (in, out / groups, *kernel), as PyTorch's
            shape = creation.size_argument((in_channels, out_channels // groups, *kernel_size), "empty")
        else:
            shape = creation.size_argument((out_channels, in_channels // groups, *kernel_size), "empty")
        self.weight = Parameter(Tensor._make(np.empty(shape, dtype=np_dtype)))
        if bias:
            self.bias = Parameter(Tensor._make(np.empty((out_channels,), dtype=np_dtype)))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        fan_in = self.weight._data.shape[1] * math.prod(self.kernel_size)
        bound = 1.0 / math.sqrt(fan_in) if fan_in > 0 else 0.0
        with no_grad():
            self.weight.uniform_(-bound, bound)
            if self.bias is not None:
                self.bias.uniform_(-bound, bound)

    def _reversed_padding(self):
        """F.pad's amounts for `padding` (last dim first), as 'same' splits them."""
        amounts = []
        for d in reversed(range(self._dims)):
            if self.padding == "valid":
                low = high = 0
            elif self.padding == "same":
                total = self.dilation[d] * (self.kernel_size[d] - 1)
                low, high = total // 2, total - total // 2
            else:
                low = high = self.padding[d]
            amounts += [low, high]
        return tuple(amounts)

    def forward(self, input):
        conv = (F.conv1d, F.conv2d, F.conv3d)[self._dims - 1]
        if self.padding_mode != "zeros":
            padded = F.pad(input, self._reversed_padding(), mode=self.padding_mode)
            return conv(padded, self.weight, self.bias, self.stride, 0, self.dilation, self.groups)
        return conv(input, self.weight, self.bias, self.stride, self.padding, self.dilation, self.groups)

    def extra_repr(self):
        n = self._dims
        s = f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, stride={self.stride}"
        if self.padding != (0,) * n:
            s += f", padding={self.padding}"
        if self.dilation != (1,) * n:
            s += f", dilation={self.dilation}"
        if self.output_padding != (0,) * n:
            s += f", output_padding={self.output_padding}"
        if self.groups != 1:
            s += f", groups={self.groups}"
        if self.bias is None:
            s += ", bias=False"
        if self.padding_mode != "zeros":
            s += f", padding_mode={self.padding_mode}"
        return s


class Conv1d(_ConvNd):
    """Over (N, C_in, L) or (C_in, L)."""

    _dims = 1


class Conv2d(_ConvNd):
    """Over (N, C_in, H, W) or (C_in, H, W)."""

    _dims = 2


class Conv3d(_ConvNd):
    """Over (N, C_in, D, H, W) or (C_in, D, H, W)."""

    _dims = 3


class _ConvTransposeNd(_ConvNd):
    """The adjoint of the convolution of the same arguments; weight (in_channels,
    out_channels / groups, *kernel_size). forward's `output_size` picks output_padding."""

    _transposed = True

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, output_padding=0, groups=1,
                 bias=True, dilation=1, padding_mode="zeros", device=None, dtype=None):
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation, groups, bias, padding_mode,
                         device, dtype, output_padding)

    def _output_padding(self, input, output_size):
        if output_size is None:
            return self.output_padding
        n = self._dims
        output_size = list(output_size)[-n:]
        spatial = input._data.shape[-n:]
        smallest = [(spatial[d] - 1) * self.stride[d] - 2 * self.padding[d] + self.dilation[d] *
                    (self.kernel_size[d] - 1) + 1 for d in range(n)]
        largest = [smallest[d] + self.stride[d] - 1 for d in range(n)]
        if any(not smallest[d] <= output_size[d] <= largest[d] for d in range(n)):
            raise ValueError(f"requested an output size of {tuple(output_size)}, but valid sizes range from "
                             f"{smallest} to {largest} (for an input of {input.shape[-n:]})")
        return tuple(output_size[d] - smallest[d] for d in range(n))

    def forward(self, input, output_size=None):
        conv = (F.conv_transpose1d, F.conv_transpose2d, F.conv_transpose3d)[self._dims - 1]
        return conv(input, self.weight, self.bias, self.stride, self.padding, self._output_padding(input, output_size),
                    self.groups, self.dilation)


class ConvTranspose1d(_ConvTransposeNd):
    """Over (N, C_in, L) or (C_in, L)."""

    _dims = 1


class ConvTranspose2d(_ConvTransposeNd):
    """Over (N, C_in, H, W) or (C_in, H, W)."""

    _dims = 2


class ConvTranspose3d(_ConvTransposeNd):
    """Over (N, C_in, D, H, W) or (C_in, D, H, W)."""

    _dims = 3


class Unfold(Module):
    def __init__(self, kernel_size, dilation=1, padding=0, stride=1):
        super().__init__()
        self.kernel_size, self.dilation, self.padding, self.stride = kernel_size, dilation, padding, stride

    def forward(self, input):
        return F.unfold(input, self.kernel_size, self.dilation, self.padding, self.stride)

    def extra_repr(self):
        return (f"kernel_size={self.kernel_size}, dilation={self.dilation}, padding={self.padding}, "
                f"stride={self.stride}")


class Fold(Module):
    def __init__(self, output_size, kernel_size, dilation=1, padding=0, stride=1):
        super().__init__()
        self.output_size, self.kernel_size = output_size, kernel_size
        self.dilation, self.padding, self.stride = dilation, padding, stride

    def forward(self, input):
        return F.fold(input, self.output_size, self.kernel_size, self.dilation, self.padding, self.stride)

    def extra_repr(self):
        return (f"output_size={self.output_size}, kernel_size={self.kernel_size}, dilation={self.dilation}, "
                f"padding={self.padding}, stride={self.stride}")
