"""Convolution, pooling and padding of `torch.nn.functional`: conv1d, conv2d, conv3d,
max_pool2d, max_pool3d, avg_pool2d, avg_pool3d and pad (the N-d code serves every
dimension), as Tensor code over indexing and matmul, recorded as one
node with PyTorch's name (ConvolutionBackward0, MaxPool2DWithIndicesBackward0,
AvgPool2DBackward0, ConstantPadNdBackward0, ...), so their gradients, first and higher,
come from the rules of indexing (a scatter-add), products and sums.

A window's entries are read by one advanced index of the input: for each spatial dim,
position = stride * output + dilation * kernel - padding, clipped into the input; the
entries that fall in the padding are multiplied by zero (or are -inf for max pooling),
so they get no gradient."""

import math

import numpy as np

from ..tensor import ops
from ..tensor.functions import where
from ..tensor.tensor import Tensor

__all__ = ["conv1d", "conv2d", "conv3d", "max_pool2d", "max_pool3d", "avg_pool2d", "avg_pool3d", "pad"]


def _tuple(value, n, name="argument"):
    if isinstance(value, int):
        return (value,) * n
    value = tuple(value)
    if len(value) == 1:
        return value * n
    if len(value) != n:
        raise RuntimeError(f"expected {name} to be a single integer value or a list of {n} values to match the "
                           f"convolution dimensions, but got {name}={list(value)}")
    return value


def _c_name(t):
    """The C type name PyTorch's messages give a dtype: float, double, ..."""
    return {"float32": "float", "float64": "double", "float16": "c10::Half"}.get(t._data.dtype.name, t._data.dtype.name)


def _window_index(sizes, kernel, stride, low, dilation, outs):
    """For spatial sizes `sizes`: the clipped input position of each (output..., kernel...)
    entry along each dim, broadcast to (O1.., K1..), and where it lies inside the input."""
    n = len(sizes)
    index, inside = [], np.ones((1,) * (2 * n), dtype=bool)
    for d in range(n):
        pos = stride[d] * np.arange(outs[d])[:, None] - low[d] + dilation[d] * np.arange(kernel[d])[None, :]
        shape = [1] * (2 * n)
        shape[d], shape[n + d] = outs[d], kernel[d]
        pos = pos.reshape(shape)
        inside = inside & (pos >= 0) & (pos < sizes[d])
        index.append(np.clip(pos, 0, max(sizes[d] - 1, 0)))
    return index, inside


def _windows(x, index):
    """x[:, :, index...]: shape (N, C, O1.., K1..)."""
    return x[(slice(None), slice(None), *index)]


# --- convolution ---------------------------------------------------------------------


def _convolution(x, weight, bias, index, inside, groups, dims):
    n = x._data.shape[0]
    out_channels, per_group = weight._data.shape[:2]
    patches = _windows(x, index)
    if not inside.all():
        patches = patches * Tensor._make(inside.astype(x._data.dtype))
    outs = patches._data.shape[2:2 + dims]
    positions, taps = math.prod(outs), math.prod(weight._data.shape[2:])
    order = (0, 1, *range(3, 3 + dims), 2, *range(3 + dims, 3 + 2 * dims))
    patches = patches.reshape(n, groups, per_group, *patches._data.shape[2:]).permute(*order)
    rows = patches.reshape(n, groups, positions, per_group * taps)
    kernels = weight.reshape(groups, out_channels // groups, per_group * taps).transpose(1, 2)
    y = (rows @ kernels).permute(0, 1, 3, 2).reshape(n, out_channels, *outs)
    return y if bias is None else y + bias.reshape((-1,) + (1,) * dims)


def _padding_amounts(padding, stride, dilation, kernel):
    """The zeros before and after each spatial dim: `padding` on both sides, none for
    'valid', and for 'same' dilation * (k - 1) split with the odd one after."""
    dims = len(kernel)
    if not isinstance(padding, str):
        amounts = _tuple(padding, dims, "padding")
        return amounts, amounts
    if padding == "valid":
        return (0,) * dims, (0,) * dims
    if padding != "same":
        raise ValueError(f"Invalid padding string '{padding}', should be one of {{'valid', 'same'}}")
    if any(s != 1 for s in stride):
        raise ValueError("padding='same' is not supported for strided convolutions")
    total = [dilation[d] * (kernel[d] - 1) for d in range(dims)]
    return tuple(t // 2 for t in total), tuple(t - t // 2 for t in total)


def _conv(input, weight, bias, stride, padding, dilation, groups, dims):
    name = f"conv{dims}d"
    if input.dim() not in (dims + 1, dims + 2):
        raise RuntimeError(f"Expected {dims + 1}D (unbatched) or {dims + 2}D (batched) input to {name}, but got input "
                           f"of size: {list(input._data.shape)}")
    batched = input.dim() == dims + 2
    x = input if batched else input.unsqueeze(0)
    stride, dilation = _tuple(stride, dims, "stride"), _tuple(dilation, dims, "dilation")
    if weight.dim() < 3:
        raise RuntimeError("weight should have at least three dimensions")
    if weight.dim() != dims + 2:  # PyTorch checks the stride against the weight's dims first
        raise RuntimeError(f"expected stride to be a single integer value or a list of {weight.dim() - 2} values to "
                           f"match the convolution dimensions, but got stride={list(stride)}")
    if bias is not None and bias._data.dtype != input._data.dtype:
        raise RuntimeError(f"Input type ({_c_name(input)}) and bias type ({_c_name(bias)}) should be the same")
    if weight._data.dtype != input._data.dtype:
        raise RuntimeError(f"expected scalar type {input.dtype.kind_name} but found {weight.dtype.kind_name}")
    kernel = weight._data.shape[2:]
    low, high = _padding_amounts(padding, stride, dilation, kernel)
    if any(s <= 0 for s in stride):
        raise RuntimeError("non-positive stride is not supported")
    if any(p < 0 for p in low):
        raise RuntimeError("negative padding is not supported")
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    out_channels, per_group = weight._data.shape[:2]
    if out_channels % groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be divisible by {groups} at dimension 0, but got "
                           f"weight of size {list(weight._data.shape)} instead")
    channels = x._data.shape[1]
    if channels != per_group * groups:
        raise RuntimeError(
            f"Given groups={groups}, weight of size {list(weight._data.shape)}, expected input"
            f"{list(x._data.shape)} to have {per_group * groups} channels, but got {channels} channels instead"
        )
    if bias is not None and tuple(bias._data.shape) != (out_channels,):
        raise RuntimeError(f"Given weight of size {list(weight._data.shape)}, expected bias to be 1-dimensional with "
                           f"{out_channels} elements, but got bias of size {list(bias._data.shape)} instead")
    sizes = x._data.shape[2:]
    padded = [sizes[d] + low[d] + high[d] for d in range(dims)]
    spans = [dilation[d] * (kernel[d] - 1) + 1 for d in range(dims)]
    if any(spans[d] > padded[d] for d in range(dims)):
        shown = " x ".join(str(p) for p in padded)
        raise RuntimeError(f"Calculated padded input size per channel: ({shown}). Kernel size: "
                           f"({' x '.join(str(s) for s in spans)}). Kernel size can't be greater than actual input size")
    outs = [(padded[d] - spans[d]) // stride[d] + 1 for d in range(dims)]
    index, inside = _window_index(sizes, kernel, stride, low, dilation, outs)
    y = ops.composite("ConvolutionBackward0", _convolution, x, weight, bias, index, inside, groups, dims)
    return y if batched else y.squeeze(0)


def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """1-D cross-correlation of (N, C_in, L) (or (C_in, L)) with weight (C_out, C_in / groups, k)."""
    return _conv(input, weight, bias, stride, padding, dilation, groups, 1)


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """2-D cross-correlation of (N, C_in, H, W) (or (C_in, H, W)) with weight
    (C_out, C_in / groups, kh, kw)."""
    return _conv(input, weight, bias, stride, padding, dilation, groups, 2)


def conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """3-D cross-correlation of (N, C_in, D, H, W) (or (C_in, D, H, W)) with weight
    (C_out, C_in / groups, kd, kh, kw)."""
    return _conv(input, weight, bias, stride, padding, dilation, groups, 3)


# --- pooling -------------------------------------------------------------------------------

_COUNT_WORDS = {2: "two", 3: "three"}
_STRIDE_LABELS = {2: ("dH", "dW"), 3: ("dT", "dH", "dW")}


def _pool_sizes(sizes, kernel, stride, padding, dilation, ceil_mode):
    """PyTorch's output sizes: floor (or ceil) of (size + 2 pad - span) / stride + 1, the
    last window dropped where it would start in the right padding."""
    outs = []
    for d in range(len(kernel)):
        span = dilation[d] * (kernel[d] - 1) + 1
        room = sizes[d] + 2 * padding[d] - span
        out = (-(-room // stride[d]) if ceil_mode else room // stride[d]) + 1
        if ceil_mode and (out - 1) * stride[d] >= sizes[d] + padding[d]:
            out -= 1
        outs.append(out)
    return outs


def _pool_tuple(value, dims, op, name):
    """A pool's `name` argument as `dims` ints, PyTorch's error where it has another length."""
    if isinstance(value, int):
        return (value,) * dims
    value = tuple(value)
    if len(value) == 1:
        return value * dims
    if len(value) != dims:
        if op == "avg_pool3d":
            must = "must be"  # PyTorch's wording for this one pool
        else:
            must = "must be either" if name == "dilation" else "must either be"
        omitted = " omitted," if name == "stride" else ""
        raise RuntimeError(f"{op}: {name} {must}{omitted} a single int, or a tuple of {_COUNT_WORDS[dims]} ints")
    return value


def _pool_arguments(input, kernel_size, stride, padding, dilation, ceil_mode, dims, op):
    """The kernel, stride, padding, dilation and output sizes of the `dims`-D pool `op`
    over `input`, refused with PyTorch's errors."""
    if input.dim() not in (dims + 1, dims + 2) or 0 in input._data.shape[-dims - 1:]:
        raise RuntimeError(f"non-empty {dims + 1}D or {dims + 2}D (batch mode) tensor expected for input")
    kernel = _pool_tuple(kernel_size, dims, op, "kernel_size")
    if stride is None or (not isinstance(stride, int) and len(stride) == 0):
        stride = kernel
    else:
        stride = _pool_tuple(stride, dims, op, "stride")
    padding = _pool_tuple(padding, dims, op, "padding")
    dilation = _pool_tuple(dilation, dims, op, "dilation")
    if 0 in stride:
        raise RuntimeError("stride should not be zero")
    if any(s < 0 for s in stride):
        shown = " ".join(f"{label}: {s}" for label, s in zip(_STRIDE_LABELS[dims], stride))
        raise RuntimeError(f"stride should be greater than zero, but got {shown}")
    for d in range(dims):
        if padding[d] > (dilation[d] * (kernel[d] - 1) + 1) // 2:
            raise RuntimeError(f"pad should be at most half of effective kernel size, but got pad={padding[d]}, "
                               f"kernel_size={kernel[d]} and dilation={dilation[d]}")
    sizes = input._data.shape[-dims:]
    outs = _pool_sizes(sizes, kernel, stride, padding, dilation, ceil_mode)
    if min(outs) <= 0:
        if op == "avg_pool3d":
            raise RuntimeError(f"input image (T: {sizes[0]} H: {sizes[1]} W: {sizes[2]}) smaller than kernel size "
                               f"(kT: {kernel[0]} kH: {kernel[1]} kW: {kernel[2]})")
        shown = "x".join(str(s) for s in input._data.shape[-dims - 1:])
        raise RuntimeError(f"Given input size: ({shown}). Calculated output size: "
                           f"({'x'.join(str(s) for s in (input._data.shape[-dims - 1], *outs))}). Output size is too small")
    return kernel, stride, padding, dilation, outs


def _batched(pool, input, *args):
    """`pool` of a batched input (N, C, spatial...), or of an unbatched one as a batch of
    one (the same node); the last argument of `pool` is its spatial dims' count."""
    if input.dim() == args[-1] + 2:
        return pool(input, *args)
    return pool(input.unsqueeze(0), *args).squeeze(0)


def _gather_flat(x, flat, dims):
    """The entries of (N, C, spatial...) `x` at the flat spatial positions `flat` (N, C, ...)."""
    n, c = x._data.shape[:2]
    picked = x.reshape(n, c, -1).gather(2, Tensor._make(flat.reshape(n, c, -1)))
    return picked.reshape(flat.shape)


def _max_pool(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices, dims):
    op = f"max_pool{dims}d"
    kernel, stride, padding, dilation, outs = _pool_arguments(input, kernel_size, stride, padding, dilation, ceil_mode,
                                                              dims, op)
    if input._data.dtype == np.bool_:
        raise NotImplementedError(f"\"{op}\" not implemented for 'Bool'")
    batched = input.dim() == dims + 2
    x = _unbatched_as_batch(input, dims)
    sizes = x._data.shape[2:]
    index, inside = _window_index(sizes, kernel, stride, padding, dilation, outs)
    values = np.where(inside, x._data[(slice(None), slice(None), *index)], -np.inf)
    values = values.reshape(values.shape[:2 + dims] + (-1,))
    flat_window = np.ravel_multi_index(tuple(index), sizes) + np.zeros(inside.shape, dtype=np.int64)
    flat_window = flat_window.reshape(*outs, -1)
    nan = np.isnan(values)  # PyTorch's kernel takes a nan over anything, the last one of several
    last_nan = values.shape[-1] - 1 - np.argmax(nan[..., ::-1], axis=-1)
    best = np.where(nan.any(-1), last_nan, np.argmax(values, axis=-1))
    flat = np.take_along_axis(np.broadcast_to(flat_window, values.shape), best[..., None], -1)[..., 0]
    flat = flat.astype(np.int64)
    out = ops.composite(f"MaxPool{dims}DWithIndicesBackward0", _batched, _gather_flat, input, flat, dims, _edges=(1,))
    indices = Tensor._make(flat if batched else flat[0])
    return (out, indices) if return_indices else out


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    """The largest entry of each window (the first where there are ties; a nan if any),
    padding read as -inf (MaxPool2DWithIndicesBackward0); `return_indices` adds its flat index h * W + w."""
    return _max_pool(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices, 2)


def max_pool3d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    """max_pool2d over (N, C, D, H, W) or (C, D, H, W) (MaxPool3DWithIndicesBackward0);
    the flat index is (d * H + h) * W + w."""
    return _max_pool(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices, 3)


def _average(x, index, inside, divisor, dims):
    patches = _windows(x, index) * Tensor._make(inside.astype(x._data.dtype))
    return patches.sum(tuple(range(-dims, 0))) / Tensor._make(divisor.astype(x._data.dtype))


def _avg_pool(input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override, dims):
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    kernel, stride, padding, _, outs = _pool_arguments(input, kernel_size, stride, padding, 1, ceil_mode, dims,
                                                       f"avg_pool{dims}d")
    _check_average_dtype(input, dims)
    sizes = input._data.shape[-dims:]
    index, inside = _window_index(sizes, kernel, stride, padding, (1,) * dims, outs)
    if divisor_override is not None:
        divisor = np.full(outs, divisor_override)
    elif count_include_pad:  # the window clipped to the padded input
        divisor = np.ones((1,) * dims, dtype=np.int64)
        for d in range(dims):
            start = stride[d] * np.arange(outs[d]) - padding[d]
            span = np.minimum(start + kernel[d], sizes[d] + padding[d]) - start
            divisor = divisor * span.reshape([-1 if e == d else 1 for e in range(dims)])
    else:
        divisor = inside.sum(tuple(range(-dims, 0)))
    if input._data.dtype == np.int64:  # PyTorch's integer average: the sum divided, truncated toward zero
        total = (_windows(_unbatched_as_batch(input, dims), index) * Tensor._make(inside.astype(np.int64)))
        total = total._data.sum(tuple(range(-dims, 0)))
        average = np.sign(total) * (np.abs(total) // divisor.astype(np.int64))
        return Tensor._make(average if input.dim() == dims + 2 else average[0])
    return ops.composite(f"AvgPool{dims}DBackward0", _batched, _average, input, index, inside, divisor, dims,
                         _edges=(1,))


def _unbatched_as_batch(input, dims):
    return input if input.dim() == dims + 2 else input.unsqueeze(0)


def _check_average_dtype(input, dims):
    """PyTorch averages floating inputs (not float16 in 3-D) and int64 ones."""
    dtype = input._data.dtype
    if dtype == np.int64 or (dtype.kind in "fc" and not (dims == 3 and dtype == np.float16)):
        return
    kernel = "avg_pool2d" if dims == 2 else "avg_pool3d_out_frame"
    raise NotImplementedError(f"\"{kernel}\" not implemented for '{input.dtype.kind_name}'")


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    """The mean of each window (AvgPool2DBackward0): the sum over its entries inside the
    input, divided by the window's size within the padded input (count_include_pad), the
    number of its entries inside the input, or `divisor_override`."""
    return _avg_pool(input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override, 2)


def avg_pool3d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    """avg_pool2d over (N, C, D, H, W) or (C, D, H, W) (AvgPool3DBackward0)."""
    return _avg_pool(input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override, 3)


# --- padding -------------------------------------------------------------------------------

_PAD_NODES = {"reflect": "ReflectionPad{}DBackward0", "replicate": "ReplicationPad{}DBackward0"}


def _source(n, low, high, mode):
    """For each output position along a dim of size n padded by (low, high): the input
    position it reads and whether it reads one (constant mode's padding does not)."""
    pos = np.arange(-low, n + high)
    if mode == "reflect":
        period = 2 * (n - 1)
        pos = np.abs(pos) % period if period else np.zeros_like(pos)
        pos = np.where(pos >= n, period - pos, pos)
    elif mode == "replicate":
        pos = np.clip(pos, 0, n - 1)
    elif mode == "circular":
        pos = pos % n
    inside = (pos >= 0) & (pos < n)
    return np.clip(pos, 0, max(n - 1, 0)), inside


def _padded(x, pad, mode, value):
    count = len(pad) // 2
    index, inside = [], np.ones((1,) * count, dtype=bool)
    for i in range(count):
        d = x.dim() - 1 - i
        pos, ok = _source(x._data.shape[d], pad[2 * i], pad[2 * i + 1], mode)
        shape = [1] * count
        shape[count - 1 - i] = pos.size
        index.insert(0, pos.reshape(shape))
        inside = inside & ok.reshape(shape)
    out = x[(Ellipsis, *index)]
    return out if inside.all() else where(Tensor._make(inside), out, value)


def pad(input, pad, mode="constant", value=None):
    """Pads the last len(pad) // 2 dims, pad = (left of the last, right of the last, left
    of the one before, ...): with `value` (default 0; negative amounts crop), or by
    reflecting, replicating or wrapping the input."""
    pad = tuple(int(p) for p in pad)
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    if len(pad) // 2 > input.dim():
        raise RuntimeError(f"Padding length should be less than or equal to two times the input dimension but got "
                           f"padding length {len(pad)} and input of dimension {input.dim()}")
    count = len(pad) // 2
    if mode == "constant":
        for i in range(count):
            d = input.dim() - 1 - i
            if input._data.shape[d] + pad[2 * i] + pad[2 * i + 1] < 0:
                raise RuntimeError(f"The input size {input._data.shape[d]}, plus negative padding {pad[2 * i]} and "
                                   f"{pad[2 * i + 1]} resulted in a negative output size, which is invalid. Check "
                                   f"dimension {d} of your input.")
        return ops.composite("ConstantPadNdBackward0", _padded, input, pad, mode, 0.0 if value is None else value)
    if mode not in ("reflect", "replicate", "circular"):
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    if value is not None:
        raise ValueError(f'Padding mode "{mode}" doesn\'t take in value argument')
    if count not in (1, 2, 3) or input.dim() not in (count + 1, count + 2):
        raise NotImplementedError(
            f"Padding size {len(pad)} is not supported for {input.dim()}D input tensor.\n"
            "Supported combinations for non-constant padding:\n"
            "  - 2D or 3D input: padding size = 2 (pads last dimension)\n"
            "  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n"
            "  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)"
        )
    for i in range(count):
        n = input._data.shape[input.dim() - 1 - i]
        low, high = pad[2 * i], pad[2 * i + 1]
        if mode == "reflect" and (low >= n or high >= n):
            raise RuntimeError(f"Argument #4: Padding size should be less than the corresponding input dimension, but "
                               f"got: padding ({low}, {high}) at dimension {input.dim() - 1 - i} of input "
                               f"{list(input._data.shape)}")
    if mode == "circular":
        return _padded(input, pad, mode, 0.0)
    return ops.composite(_PAD_NODES[mode].format(count), _padded, input, pad, mode, 0.0)
