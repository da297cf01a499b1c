"""Sliding blocks of `torch.nn.functional`: unfold (im2col), fold (col2im) and the
transposed convolutions conv_transpose1d and conv_transpose2d, recorded as one node with
PyTorch's name (Im2ColBackward0, Col2ImBackward0, ConvolutionBackward0).

unfold reads each window by one advanced index of the input (functional_convolution's
window index); fold adds each block entry into its output position with scatter_add (the
entries that fall in the padding are multiplied by zero first); a transposed convolution
is the weight's transpose applied to every input position (a matmul per group) folded
into the output. Their gradients, first and higher, come from the rules of indexing,
scatter_add and matmul."""

import math

import numpy as np

from ..tensor import ops
from ..tensor.tensor import Tensor
from .functional_convolution import _c_name, _tuple, _window_index, _windows

__all__ = ["unfold", "fold", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d"]


def _pair(value, name):
    return _tuple(value, 2, name)


def _shown(values):
    return "(" + ", ".join(str(v) for v in values) + ")"


def _blocks(sizes, kernel, dilation, padding, stride):
    return [(sizes[d] + 2 * padding[d] - dilation[d] * (kernel[d] - 1) - 1) // stride[d] + 1 for d in range(2)]


def _check_block_arguments(kernel, dilation, padding, stride):
    if any(k <= 0 for k in kernel):
        raise RuntimeError(f"kernel size should be greater than zero, but got kernel_height: {kernel[0]} "
                           f"kernel_width: {kernel[1]}")
    if any(s <= 0 for s in stride):
        raise RuntimeError(f"stride should be greater than zero, but got stride_height: {stride[0]} stride_width: "
                           f"{stride[1]}")
    if any(d <= 0 for d in dilation):
        raise RuntimeError(f"dilation should be greater than zero, but got dilation_height: {dilation[0]} "
                           f"dilation_width: {dilation[1]}")
    if any(p < 0 for p in padding):
        raise RuntimeError(f"padding should be non-negative, but got pad_height: {padding[0]} pad_width: "
                           f"{padding[1]}")


def _im2col(x, index, inside, kernel, outs):
    if x.dim() == 3:
        return _im2col(x.unsqueeze(0), index, inside, kernel, outs).squeeze(0)
    n, c = x._data.shape[:2]
    patches = _windows(x, index)
    if not inside.all():
        patches = patches * Tensor._make(inside.astype(x._data.dtype))
    patches = patches.permute(0, 1, 4, 5, 2, 3)  # (N, C, kh, kw, oh, ow)
    return patches.reshape(n, c * kernel[0] * kernel[1], outs[0] * outs[1])


def unfold(input, kernel_size, dilation=1, padding=0, stride=1):
    """(N, C, H, W) (or (C, H, W)) -> (N, C kh kw, L): column l holds the l-th window
    (row-major over the output grid), its rows channel-major then kernel row-major."""
    if input.dim() < 3:  # PyTorch's own index error
        raise IndexError(f"Dimension out of range (expected to be in range of [{-input.dim()}, {input.dim() - 1}], "
                         f"but got {input.dim()})")
    if input.dim() != 3 and input.dim() != 4:
        raise RuntimeError("Expected 3D or 4D (batch mode) tensor with possibly 0 batch size and other non-zero "
                           f"dimensions for input, but got: {list(input._data.shape)}")
    kernel, dilation = _pair(kernel_size, "kernel_size"), _pair(dilation, "dilation")
    padding, stride = _pair(padding, "padding"), _pair(stride, "stride")
    _check_block_arguments(kernel, dilation, padding, stride)
    if input._data.dtype.kind not in "fc":
        raise NotImplementedError(f"\"im2col_out_cpu\" not implemented for '{input.dtype.kind_name}'")
    sizes = input._data.shape[-2:]
    outs = _blocks(sizes, kernel, dilation, padding, stride)
    if min(outs) < 1:
        raise RuntimeError(f"Given input with spatial size {_shown(sizes)}, kernel_size={_shown(kernel)}, "
                           f"dilation={_shown(dilation)}, padding={_shown(padding)}, calculated shape of the array "
                           f"of sliding blocks as {_shown(outs)}, but its components must be at least one.")
    index, inside = _window_index(sizes, kernel, stride, padding, dilation, outs)
    return ops.composite("Im2ColBackward0", _im2col, input, index, inside, kernel, outs, _saves=False)


def _col2im_targets(sizes, kernel, stride, padding, dilation, outs):
    """For each (kernel..., block...) entry: its flat output position (clipped) and
    whether it lies inside the output."""
    index, inside = _window_index(sizes, kernel, stride, padding, dilation, outs)
    dims = len(sizes)
    flat = np.zeros(inside.shape, dtype=np.int64)
    for d in range(dims):
        flat = flat + index[d] * math.prod(sizes[d + 1:])
    order = tuple(range(dims, 2 * dims)) + tuple(range(dims))  # (K.., O..), as the columns are laid out
    return np.transpose(flat, order).reshape(-1), np.transpose(inside, order).reshape(-1)


def _col2im(cols, sizes, targets, inside):
    """cols (N, C, K*L) added into (N, C, *sizes) at `targets`."""
    n, c = cols._data.shape[:2]
    if not inside.all():
        cols = cols * Tensor._make(inside.astype(cols._data.dtype))
    index = Tensor._make(np.broadcast_to(targets, (n, c, targets.size)))
    out = Tensor._make(np.zeros((n, c, math.prod(sizes)), dtype=cols._data.dtype))
    return out.scatter_add(2, index, cols).reshape(n, c, *sizes)


def _fold(x, sizes, targets, inside, taps):
    if x.dim() == 2:
        return _fold(x.unsqueeze(0), sizes, targets, inside, taps).squeeze(0)
    n, rows, blocks = x._data.shape
    return _col2im(x.reshape(n, rows // taps, taps * blocks), sizes, targets, inside)


def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):
    """The adjoint of unfold: (N, C kh kw, L) (or (C kh kw, L)) -> (N, C, *output_size),
    each block's entries added into the window they came from (overlaps summed)."""
    if input.dim() not in (2, 3) or 0 in input._data.shape[-2:]:
        raise RuntimeError("Expected 2D or 3D (batch mode) tensor for input with possibly 0 batch size and non-zero "
                           f"dimensions for input, but got: {list(input._data.shape)}")
    sizes, kernel = _pair(output_size, "output_size"), _pair(kernel_size, "kernel_size")
    dilation, padding, stride = _pair(dilation, "dilation"), _pair(padding, "padding"), _pair(stride, "stride")
    _check_block_arguments(kernel, dilation, padding, stride)
    if input._data.dtype.kind not in "fc":
        raise NotImplementedError(f"\"col2im_out_cpu\" not implemented for '{input.dtype.kind_name}'")
    rows, blocks = input._data.shape[-2:]
    taps = kernel[0] * kernel[1]
    if rows % taps:
        raise RuntimeError(f"Expected size of input's dimension 1 to be divisible by the product of kernel_size, but "
                           f"got input.size(1)={rows} and kernel_size={_shown(kernel)}.")
    outs = _blocks(sizes, kernel, dilation, padding, stride)
    if min(outs) < 1:
        raise RuntimeError(f"Given output_size={_shown(sizes)}, kernel_size={_shown(kernel)}, dilation="
                           f"{_shown(dilation)}, padding={_shown(padding)}, stride={_shown(stride)}, calculated shape "
                           f"of the array of sliding blocks as {_shown(outs)}, but its components must be at least one.")
    if outs[0] * outs[1] != blocks:
        raise RuntimeError(f"Given output_size={_shown(sizes)}, kernel_size={_shown(kernel)}, dilation="
                           f"{_shown(dilation)}, padding={_shown(padding)}, stride={_shown(stride)}, expected size of "
                           f"input's dimension 2 to match the calculated number of sliding blocks {outs[0]} * {outs[1]}"
                           f" = {outs[0] * outs[1]}, but got input.size(2)={blocks}.")
    targets, inside = _col2im_targets(sizes, kernel, stride, padding, dilation, outs)
    return ops.composite("Col2ImBackward0", _fold, input, sizes, targets, inside, taps, _saves=False)


# --- transposed convolution ---------------------------------------------------------------


def _transposed(x, weight, bias, groups, sizes, targets, inside, dims):
    n, c_in = x._data.shape[:2]
    per_group_out = weight._data.shape[1]
    taps = math.prod(weight._data.shape[2:])
    positions = math.prod(x._data.shape[2:])
    rows = x.reshape(n, groups, c_in // groups, positions)
    kernels = weight.reshape(groups, c_in // groups, per_group_out * taps).transpose(1, 2)
    cols = (kernels @ rows).reshape(n, groups * per_group_out, taps * positions)
    y = _col2im(cols, sizes, targets, inside)
    return y if bias is None else y + bias.reshape((-1,) + (1,) * dims)


def _conv_transpose(input, weight, bias, stride, padding, output_padding, groups, dilation, dims):
    name = f"conv_transpose{dims}d"
    if input.dim() not in (dims + 1, dims + 2):
        raise RuntimeError(f"Expected {dims + 1}D (unbatched) or {dims + 2}D (batched) input to {name}, but got input "
                           f"of size: {list(input._data.shape)}")
    if weight.dim() != dims + 2:
        raise RuntimeError(f"weight should have {dims + 2} dimensions for {name}, but got {weight.dim()}")
    stride, padding = _tuple(stride, dims, "stride"), _tuple(padding, dims, "padding")
    output_padding, dilation = _tuple(output_padding, dims, "output_padding"), _tuple(dilation, dims, "dilation")
    if bias is not None and bias._data.dtype != input._data.dtype:
        raise RuntimeError(f"Input type ({_c_name(input)}) and bias type ({_c_name(bias)}) should be the same")
    if weight._data.dtype != input._data.dtype:
        raise RuntimeError(f"expected scalar type {input.dtype.kind_name} but found {weight.dtype.kind_name}")
    if any(s <= 0 for s in stride):
        raise RuntimeError("non-positive stride is not supported")
    if any(p < 0 for p in padding):
        raise RuntimeError("negative padding is not supported")
    if any(p < 0 for p in output_padding):
        raise RuntimeError("negative output_padding is not supported")
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    if any(output_padding[d] >= stride[d] and output_padding[d] >= dilation[d] for d in range(dims)):
        labels = ("depth", "height", "width")[-dims:]
        shown = " ".join(f"output_padding_{a}: {v}" for a, v in zip(labels, output_padding))
        shown += " " + " ".join(f"stride_{a}: {v}" for a, v in zip(labels, stride))
        shown += " " + " ".join(f"dilation_{a}: {v}" for a, v in zip(labels, dilation))
        raise RuntimeError(f"output padding must be smaller than either stride or dilation, but got {shown}")
    batched = input.dim() == dims + 2
    x = input if batched else input.unsqueeze(0)
    c_in = x._data.shape[1]
    if weight._data.shape[0] != c_in:
        raise RuntimeError(f"Given transposed=1, weight of size {list(weight._data.shape)}, expected input"
                           f"{list(x._data.shape)} to have {weight._data.shape[0]} channels, but got {c_in} channels "
                           "instead")
    if c_in % groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be divisible by {groups} at dimension 0, but got "
                           f"weight of size {list(weight._data.shape)} instead")
    out_channels = weight._data.shape[1] * groups
    if bias is not None and tuple(bias._data.shape) != (out_channels,):
        raise RuntimeError(f"Given transposed=1, weight of size {list(weight._data.shape)}, expected bias to be "
                           f"1-dimensional with {out_channels} elements, but got bias of size "
                           f"{list(bias._data.shape)} instead")
    kernel = weight._data.shape[2:]
    ins = x._data.shape[2:]
    sizes = [(ins[d] - 1) * stride[d] - 2 * padding[d] + dilation[d] * (kernel[d] - 1) + output_padding[d] + 1
             for d in range(dims)]
    if min(sizes) < 1:
        lead = "1 x " if dims == 1 else ""  # PyTorch runs a 1-D one as 2-D
        raise RuntimeError(f"Given input size per channel: ({lead}{' x '.join(map(str, ins))}). Calculated output size "
                           f"per channel: ({lead}{' x '.join(map(str, sizes))}). Output size is too small")
    targets, inside = _col2im_targets(sizes, kernel, stride, padding, dilation, list(ins))
    y = ops.composite("ConvolutionBackward0", _transposed, x, weight, bias, groups, sizes, targets, inside, dims)
    return y if batched else y.squeeze(0)


def conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    """The adjoint of conv1d: (N, C_in, L) with weight (C_in, C_out / groups, k) ->
    (N, C_out, (L - 1) stride - 2 padding + dilation (k - 1) + output_padding + 1)."""
    return _conv_transpose(input, weight, bias, stride, padding, output_padding, groups, dilation, 1)


def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    """The adjoint of conv2d: (N, C_in, H, W) with weight (C_in, C_out / groups, kh, kw)."""
    return _conv_transpose(input, weight, bias, stride, padding, output_padding, groups, dilation, 2)


def conv_transpose3d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    """The adjoint of conv3d: (N, C_in, D, H, W) with weight (C_in, C_out / groups, kd, kh, kw)."""
    return _conv_transpose(input, weight, bias, stride, padding, output_padding, groups, dilation, 3)
