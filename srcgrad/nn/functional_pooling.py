"""Pooling of `torch.nn.functional` beyond max_pool2d and avg_pool2d (which are in
functional_convolution.py): max_pool1d and avg_pool1d, which PyTorch runs as the 2-D
pool of the input unsqueezed at dim -2 (UnsqueezeBackward0, MaxPool2DWithIndicesBackward0
or AvgPool2DBackward0, SqueezeBackward1), and the adaptive pools.

An adaptive pool's output entry i along a dim of input size L reads the window
[floor(i L / out), ceil((i + 1) L / out)), as PyTorch's kernels do. Its average is
`A_h @ x @ A_w^T` with A's rows the windows' averaging weights
(AdaptiveAvgPool2DBackward0; in 3-D the depth dim's A too, AdaptiveAvgPool3DBackward0); its maximum picks each window's largest entry (the first
of ties, a nan if any) by a gather (AdaptiveMaxPool2DBackward0), so the gradients, first
and higher, come from the rules of matmul and indexing."""

import numpy as np

from ..tensor import ops
from ..tensor.tensor import Tensor
from .functional_convolution import _batched, _gather_flat, avg_pool2d, max_pool2d

__all__ = ["max_pool1d", "avg_pool1d", "adaptive_avg_pool1d", "adaptive_avg_pool2d", "adaptive_avg_pool3d",
           "adaptive_max_pool1d", "adaptive_max_pool2d"]


def _single(value, name):
    if isinstance(value, int):
        return value
    value = tuple(value)
    if len(value) != 1:
        raise RuntimeError(f"{name} must be a single integer value or a list of 1 value, but got {list(value)}")
    return value[0]


def _check_1d_input(input, name):
    if input.dim() not in (2, 3):
        raise RuntimeError(f"Expected 2 to 3 dimensions, but got {input.dim()}-dimensional tensor for argument #1 "
                           f"'self' (while checking arguments for {name})")


def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    """max_pool2d of the input unsqueezed at dim -2 with a (1, kernel_size) window, squeezed
    back; `return_indices` adds each maximum's position along the last dim."""
    if input.dim() not in (2, 3):
        raise RuntimeError("max_pool1d: Expected 2D or 3D (batch mode) tensor with optional 0 dim batch size for "
                           f"input, but got:{list(input._data.shape)}")
    kernel = _single(kernel_size, "max_pool1d() kernel_size")
    stride = kernel if stride is None or (not isinstance(stride, int) and len(stride) == 0) else _single(
        stride, "max_pool1d() stride")
    padding, dilation = _single(padding, "max_pool1d() padding"), _single(dilation, "max_pool1d() dilation")
    if input._data.dtype.kind not in "fc":
        raise NotImplementedError(f"\"max_pool1d_impl\" not implemented for '{input.dtype.kind_name}'")
    if kernel <= 0:
        raise RuntimeError(f"max_pool1d() kernel_size must be greater than zero, but got {kernel}")
    if stride <= 0:
        raise RuntimeError(f"max_pool1d() stride must be greater than zero, but got {stride}")
    if padding < 0:
        raise RuntimeError(f"max_pool1d() padding must be non-negative, but got {padding}")
    if padding > kernel // 2:
        raise RuntimeError(f"max_pool1d() padding should be at most half of kernel size, but got padding={padding} "
                           f"and kernel_size={kernel}")
    if dilation <= 0:
        raise RuntimeError(f"max_pool1d() dilation must be greater than zero, but got {dilation}")
    room = input._data.shape[-1] + 2 * padding - dilation * (kernel - 1) - 1
    out = (-(-room // stride) if ceil_mode else room // stride) + 1
    if ceil_mode and (out - 1) * stride >= input._data.shape[-1] + padding:
        out -= 1
    if out <= 0:
        raise RuntimeError(f"max_pool1d() Invalid computed output size: {out}")
    pooled = max_pool2d(input.unsqueeze(-2), (1, kernel), (1, stride), (0, padding), (1, dilation), ceil_mode,
                        return_indices)
    if return_indices:
        return pooled[0].squeeze(-2), pooled[1].squeeze(-2)
    return pooled.squeeze(-2)


def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
    """avg_pool2d of the input unsqueezed at dim -2 with a (1, kernel_size) window."""
    _check_1d_input(input, "avg_pool1d")
    kernel = _single(kernel_size, "avg_pool1d() kernel_size")
    stride = kernel if stride is None or (not isinstance(stride, int) and len(stride) == 0) else _single(
        stride, "avg_pool1d() stride")
    padding = _single(padding, "avg_pool1d() padding")
    return avg_pool2d(input.unsqueeze(-2), (1, kernel), (1, stride), (0, padding), ceil_mode,
                      count_include_pad).squeeze(-2)


# --- adaptive pools -------------------------------------------------------------------------


def _windows_of(size, out):
    """The [start, end) of each of `out` adaptive windows over `size` entries."""
    i = np.arange(out)
    return (i * size) // out, -((-(i + 1) * size) // out)


def _averaging(size, out, dtype):
    """(out, size): row i holds 1 / len over window i, 0 elsewhere."""
    start, end = _windows_of(size, out)
    j = np.arange(size)
    inside = (j >= start[:, None]) & (j < end[:, None])
    return (inside / (end - start)[:, None]).astype(dtype)


def _output_size(output_size, sizes, name):
    dims = len(sizes)
    if isinstance(output_size, int) or output_size is None:
        output_size = (output_size,) * dims
    output_size = tuple(output_size)
    if len(output_size) == 1 and dims == 2:
        output_size = output_size * 2
    if len(output_size) != dims:
        if dims == 1:
            raise RuntimeError(f"{name}() argument 'output_size' should contain one int (got {len(output_size)})")
        if dims == 3:
            raise RuntimeError(f"{name}: output_size must be 3")
        raise RuntimeError(f"{name}(): internal error: output_size.size() must be 2")
    return tuple(sizes[d] if s is None else int(s) for d, s in enumerate(output_size))


def _check_adaptive_input(input, dims, name):
    if input.dim() not in (dims + 1, dims + 2):
        if dims == 1:
            raise RuntimeError(f"Expected 2 to 3 dimensions, but got {input.dim()}-dimensional tensor for argument #1 "
                               f"'self' (while checking arguments for {name})")
        colon = ":" if "max" in name else ""
        raise RuntimeError(f"{name}(): Expected {dims + 1}D or {dims + 2}D tensor, but got{colon} "
                           f"{list(input._data.shape)}")
    shape = input._data.shape
    kernel = f"adaptive_{'avg' if 'avg' in name else 'max'}_pool{max(dims, 2)}d"  # 1-D runs as 2-D
    for d in range(1 if dims == 3 else input.dim() - 2, input.dim()):  # PyTorch's checks
        if shape[d] == 0:
            raise RuntimeError(f"{kernel if 'avg' in name else name}(): Expected input to have "
                               f"non-zero size for non-batch dimensions, but input has sizes {list(shape)} with "
                               f"dimension {d} being empty")
    if input._data.dtype.kind not in "fc":
        raise NotImplementedError(f"\"{kernel}{'_cpu' if dims == 3 else ''}\" not implemented for "
                                  f"'{input.dtype.kind_name}'")


def _adaptive_average(x, *averaging):
    """x's last len(averaging) dims each multiplied by its averaging matrix (out, size):
    A_h @ x @ A_w^T in 2-D, the depth dim of 3-D moved last and back."""
    dims = len(averaging)
    y = Tensor._make(averaging[-2]) @ x @ Tensor._make(averaging[-1].T)
    if dims == 3:
        y = (y.movedim(-3, -1) @ Tensor._make(averaging[0].T)).movedim(-1, -3)
    return y


def _adaptive_avg_pool(x, outs):
    """The adaptive average of the last len(outs) (2 or 3) dims of x."""
    dims = len(outs)
    if any(s < 0 for s in outs):
        shown = ", ".join(str(s) for s in outs[:2]) + "".join(f",{s}" for s in outs[2:])  # PyTorch's spacing
        raise RuntimeError(f"adaptive_avg_pool{dims}d: elements of output_size must be greater than or equal to 0 but "
                           f"received {{{shown}}}")
    if outs == (1,) * dims:
        return x.mean(tuple(range(-dims, 0)), keepdim=True)  # PyTorch's shortcut (MeanBackward1)
    dtype = x._data.dtype
    averaging = [_averaging(size, out, dtype) for size, out in zip(x._data.shape[-dims:], outs)]
    return ops.composite(f"AdaptiveAvgPool{dims}DBackward0", _adaptive_average, x, *averaging)


def adaptive_avg_pool1d(input, output_size):
    """The mean of each of `output_size` windows along the last dim."""
    _check_adaptive_input(input, 1, "adaptive_avg_pool1d")
    (out,) = _output_size(output_size, input._data.shape[-1:], "adaptive_avg_pool1d")
    return _adaptive_avg_pool(input.unsqueeze(-2), (1, out)).squeeze(-2)


def _check_default_sizes(input, output_size):
    """PyTorch's Python wrapper of the 2-D and 3-D adaptive pools, which reads an
    output_size sequence against the input's last dims."""
    if not isinstance(output_size, int) and output_size is not None and input.dim() <= len(tuple(output_size)):
        raise ValueError(f"Input dimension should be at least {len(tuple(output_size)) + 1}")


def adaptive_avg_pool2d(input, output_size):
    """The mean of each window of an output_size[0] x output_size[1] grid over the last two
    dims (None keeps that dim's size)."""
    _check_default_sizes(input, output_size)
    _check_adaptive_input(input, 2, "adaptive_avg_pool2d")
    return _adaptive_avg_pool(input, _output_size(output_size, input._data.shape[-2:], "adaptive_avg_pool2d"))


def adaptive_avg_pool3d(input, output_size):
    """adaptive_avg_pool2d over the last three dims (N, C, D, H, W) or (C, D, H, W)
    (AdaptiveAvgPool3DBackward0)."""
    _check_default_sizes(input, output_size)
    _check_adaptive_input(input, 3, "adaptive_avg_pool3d")
    return _adaptive_avg_pool(input, _output_size(output_size, input._data.shape[-3:], "adaptive_avg_pool3d"))


def _adaptive_argmax(values, outs):
    """The flat index h * W + w of each window's maximum in (N, C, H, W) `values`: the
    first of ties, the last nan where there are nans (as PyTorch's kernel)."""
    n, c, h, w = values.shape
    flat = np.empty((n, c) + tuple(outs), dtype=np.int64)
    rows, columns = _windows_of(h, outs[0]), _windows_of(w, outs[1])
    for i in range(outs[0]):
        for j in range(outs[1]):
            r0, r1, c0, c1 = rows[0][i], rows[1][i], columns[0][j], columns[1][j]
            window = values[:, :, r0:r1, c0:c1].reshape(n, c, -1)
            nan = np.isnan(window)
            last_nan = window.shape[-1] - 1 - np.argmax(nan[..., ::-1], axis=-1)
            best = np.where(nan.any(-1), last_nan, np.argmax(window, axis=-1))
            width = c1 - c0
            flat[:, :, i, j] = (r0 + best // width) * w + c0 + best % width
    return flat


def _adaptive_max_pool(input, outs, return_indices, name):
    for s in outs:
        if s < 0:
            shape = list(input._data.shape[:-2]) + list(outs)
            raise RuntimeError(f"Trying to create tensor with negative dimension {s}: {shape}")
    batched = input.dim() == 4
    x = input if batched else input.unsqueeze(0)
    flat = _adaptive_argmax(x._data, outs)
    out = ops.composite("AdaptiveMaxPool2DBackward0", _batched, _gather_flat, input, flat, 2, _edges=(1,))
    indices = Tensor._make(flat if batched else flat[0])
    return (out, indices) if return_indices else out


def adaptive_max_pool1d(input, output_size, return_indices=False):
    """The largest entry of each of `output_size` windows along the last dim (with its
    position along that dim for `return_indices`)."""
    _check_adaptive_input(input, 1, "adaptive_max_pool1d")
    (out,) = _output_size(output_size, input._data.shape[-1:], "adaptive_max_pool1d")
    pooled = _adaptive_max_pool(input.unsqueeze(-2), (1, out), return_indices, "adaptive_max_pool1d")
    if return_indices:
        return pooled[0].squeeze(-2), pooled[1].squeeze(-2)
    return pooled.squeeze(-2)


def adaptive_max_pool2d(input, output_size, return_indices=False):
    """The largest entry of each window of an output_size grid over the last two dims
    (with its flat index h * W + w for `return_indices`)."""
    _check_default_sizes(input, output_size)
    _check_adaptive_input(input, 2, "adaptive_max_pool2d")
    outs = _output_size(output_size, input._data.shape[-2:], "adaptive_max_pool2d")
    return _adaptive_max_pool(input, outs, return_indices, "adaptive_max_pool2d")
