"""Resampling of `torch.nn.functional`: interpolate (nearest, nearest-exact, linear,
bilinear, bicubic, area), upsample, upsample_nearest, upsample_bilinear, pixel_shuffle and
pixel_unshuffle, as Tensor code recorded as one node with PyTorch's name
(UpsampleNearest2DBackward0, UpsampleBilinear2DBackward0, PixelShuffleBackward0, ...).

Source positions are PyTorch's kernels' (UpSample.h): with a scale factor s given (and
not recomputed) an output index reads the input at index / s, else at index * in / out;
nearest takes floor of that (computed in float32, as PyTorch's kernel does; capped at
in - 1), nearest-exact floor((index + 0.5) * scale); linear modes read
(index + 0.5) * scale - 0.5 clamped at 0 (align_corners=False) or index * (in - 1) /
(out - 1) (align_corners=True) and mix its two neighbours; bicubic reads the same
positions, unclamped, and mixes four with PyTorch's cubic convolution weights (A = -0.75),
a neighbour past an edge reading the edge. Each spatial dim is a gather
(nearest) or a matrix of mixing weights applied by matmul (linear), so the gradients,
first and higher, come from those ops' rules."""

import math

import numpy as np

from ..tensor import ops
from ..tensor.tensor import Tensor

__all__ = ["interpolate", "upsample", "upsample_nearest", "upsample_bilinear", "pixel_shuffle", "pixel_unshuffle"]

_NAMES = {"nearest": "UpsampleNearest{}DBackward0", "nearest-exact": "UpsampleNearestExact{}DBackward0",
          "linear": "UpsampleLinear1DBackward0", "bilinear": "UpsampleBilinear2DBackward0",
          "bicubic": "UpsampleBicubic2DBackward0"}

_INTEGER_KERNELS = {  # the kernel PyTorch's NotImplementedError names for an integer input
    ("nearest", 3): "compute_indices_weights_nearest", ("nearest-exact", 3): "compute_indices_weights_nearest",
    ("nearest", 4): "upsample_nearest2d_channels_last", ("nearest-exact", 4): "upsample_nearest2d_channels_last",
    ("linear", 3): "compute_indices_weights_linear", ("bilinear", 4): "upsample_bilinear2d_channels_last",
    ("bicubic", 4): "compute_indices_weights_cubic"}


def _scale(size, out, scale_factor):
    """PyTorch's compute_scales_value: 1 / scale_factor where one is given, else in / out."""
    return 1.0 / scale_factor if scale_factor is not None and scale_factor > 0 else size / out


def _nearest_source(size, out, scale_factor, exact):
    if not exact and out == size:
        return np.arange(out)
    if not exact and out == 2 * size:
        return np.arange(out) >> 1
    scale = np.float32(_scale(size, out, scale_factor))
    index = np.arange(out, dtype=np.float32) + (np.float32(0.5) if exact else np.float32(0.0))
    return np.minimum(np.floor(index * scale).astype(np.int64), size - 1)


def _linear_weights(size, out, scale_factor, align_corners, dtype):
    """(out, size): row i mixes output i's two neighbours with PyTorch's lambdas."""
    if align_corners:
        scale = (size - 1) / (out - 1) if out > 1 else 0.0
        source = scale * np.arange(out)
    else:
        scale = _scale(size, out, scale_factor)
        source = np.maximum(scale * (np.arange(out) + 0.5) - 0.5, 0.0)
    low = source.astype(np.int64)
    high = low + (low < size - 1)
    weight = np.clip(source - low, 0.0, 1.0)
    matrix = np.zeros((out, size))
    np.add.at(matrix, (np.arange(out), low), 1.0 - weight)
    np.add.at(matrix, (np.arange(out), high), weight)
    return matrix.astype(dtype)


_CUBIC_A = -0.75  # PyTorch's (and OpenCV's) bicubic kernel parameter


def _cubic_taps(t):
    """The weights of the four neighbours floor(x) - 1 .. floor(x) + 2 of a source x whose
    fraction is t (PyTorch's get_cubic_upsample_coefficients)."""
    a = _CUBIC_A

    def near(x):  # |x| <= 1
        return ((a + 2) * x - (a + 3)) * x * x + 1

    def far(x):  # 1 < |x| < 2
        return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a

    return [far(t + 1), near(t), near(1 - t), far(2 - t)]


def _cubic_weights(size, out, scale_factor, align_corners, dtype):
    """(out, size): row i mixes the four neighbours of output i's source position (not
    clamped at 0, unlike linear), a neighbour outside the input read at the nearest edge."""
    if align_corners:
        source = ((size - 1) / (out - 1) if out > 1 else 0.0) * np.arange(out)
    else:
        source = _scale(size, out, scale_factor) * (np.arange(out) + 0.5) - 0.5
    low = np.floor(source).astype(np.int64)
    matrix = np.zeros((out, size))
    for k, weight in enumerate(_cubic_taps(source - low)):
        np.add.at(matrix, (np.arange(out), np.clip(low - 1 + k, 0, size - 1)), weight)
    return matrix.astype(dtype)


def _gathered(x, sources):
    """x read at `sources[d]` along each of its last len(sources) dims."""
    dims = len(sources)
    index = []
    for d, source in enumerate(sources):
        shape = [1] * dims
        shape[d] = source.size
        index.append(source.reshape(shape))
    return x[(Ellipsis, *index)]


def _mixed(x, matrices):
    if len(matrices) == 1:
        return x @ Tensor._make(matrices[0].T)
    return Tensor._make(matrices[0]) @ x @ Tensor._make(matrices[1].T)


def _sizes_and_scales(input, size, scale_factor, recompute_scale_factor, mode):
    """Output sizes and the scale factors the kernel reads (None once recomputed), with
    PyTorch's checks."""
    dims = input.dim() - 2
    spatial = list(input._data.shape[2:])
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    if size is not None:
        if isinstance(size, (list, tuple)):
            if len(size) != dims:
                raise ValueError(
                    "Input and output must have the same number of spatial dimensions, but got input with spatial "
                    f"dimensions of {spatial} and output size of {size}. Please provide input tensor in (N, C, d1, "
                    "d2, ...,dK) format and output size in (o1, o2, ...,oK) format.")
            if not all(isinstance(s, (int, np.integer)) for s in size):
                raise TypeError("expected size to be one of int or Tuple[int] or Tuple[int, int] or Tuple[int, int, "
                                f"int], but got size with types {[type(s) for s in size]}")
            outs = [int(s) for s in size]
        else:
            outs = [int(size)] * dims
        scales = [None] * dims
    elif scale_factor is not None:
        if isinstance(scale_factor, (list, tuple)):
            if len(scale_factor) != dims:
                raise ValueError(
                    "Input and scale_factor must have the same number of spatial dimensions, but got input with "
                    f"spatial dimensions of {spatial} and scale_factor of shape {scale_factor}. Please provide input "
                    "tensor in (N, C, d1, d2, ...,dK) format and scale_factor in (s1, s2, ...,sK) format.")
            scales = [float(s) for s in scale_factor]
        else:
            scales = [float(scale_factor)] * dims
        outs = [math.floor(n * s) for n, s in zip(spatial, scales)]
        if recompute_scale_factor or mode == "area":
            scales = [None] * dims
    else:
        raise ValueError("either size or scale_factor should be defined")
    if recompute_scale_factor and size is not None:
        raise ValueError("recompute_scale_factor is not meaningful with an explicit size.")
    if any(o <= 0 for o in outs):
        labels = "HW" if dims == 2 else "W"
        shown_in = ", ".join(f"{a}: {n}" for a, n in zip(labels, spatial))
        shown_out = ", ".join(f"{a}: {n}" for a, n in zip(labels, outs))
        joint = " and output" if dims == 1 else " output"
        raise RuntimeError(f"Input and output sizes should be greater than 0, but got input ({shown_in}){joint} "
                           f"({shown_out})")
    return outs, scales


def _interpolated(x, mode, outs, scales, align_corners):
    spatial = x._data.shape[2:]
    if mode in ("nearest", "nearest-exact"):
        exact = mode == "nearest-exact"
        sources = [_nearest_source(n, o, s, exact) for n, o, s in zip(spatial, outs, scales)]
        return _gathered(x, sources)
    weights = _cubic_weights if mode == "bicubic" else _linear_weights
    matrices = [weights(n, o, s, align_corners, x._data.dtype) for n, o, s in zip(spatial, outs, scales)]
    return _mixed(x, matrices)


def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None,
                recompute_scale_factor=None, antialias=False):
    """Resamples the spatial dims (all but the first two) of a 3-D (nearest, linear, area)
    or 4-D (nearest, bilinear, bicubic, area) input to `size` or by `scale_factor`."""
    if mode in ("nearest", "area", "nearest-exact"):
        if align_corners is not None:
            raise ValueError("align_corners option can only be set with the interpolating modes: linear | bilinear | "
                             "bicubic | trilinear")
    elif align_corners is None:
        align_corners = False
    outs, scales = _sizes_and_scales(input, size, scale_factor, recompute_scale_factor, mode)
    if antialias and not (mode in ("bilinear", "bicubic", "lanczos") and input.dim() == 4):
        raise ValueError("Anti-alias option is restricted to bilinear, bicubic, and lanczos modes and requires a 4-D "
                         "tensor as input")
    dims = input.dim()
    if mode == "area" and dims in (3, 4):
        from .functional_pooling import adaptive_avg_pool1d, adaptive_avg_pool2d

        return adaptive_avg_pool1d(input, outs) if dims == 3 else adaptive_avg_pool2d(input, outs)
    supported = {"nearest": (3, 4), "nearest-exact": (3, 4), "linear": (3,), "bilinear": (4,), "bicubic": (4,)}
    if mode in supported and dims in supported[mode] and not antialias:
        if input._data.dtype.kind not in "fc":
            kernel = _INTEGER_KERNELS[(mode, dims)]
            raise NotImplementedError(f"\"{kernel}\" not implemented for '{input.dtype.kind_name}'")
        name = _NAMES[mode].format(dims - 2)
        return ops.composite(name, _interpolated, input, mode, outs, scales, align_corners)
    wanted = {"linear": 3, "bilinear": 4, "trilinear": 5}
    if mode in wanted and dims in (3, 4, 5) and dims != wanted[mode]:
        raise NotImplementedError(f"Got {dims}D input, but {mode} mode needs {wanted[mode]}D input")
    if mode in ("nearest", "nearest-exact", "linear", "bilinear", "trilinear", "bicubic", "area", "lanczos") and \
            dims in (3, 4, 5) and not (mode == "bicubic" and dims != 4):  # PyTorch has bicubic for 4-D only
        raise NotImplementedError(f"interpolate: mode '{mode}' for a {dims}-D input"
                                  f"{' with antialias' if antialias else ''} is not supported by srcgrad")
    raise NotImplementedError(
        "Input Error: Only 3D, 4D and 5D input Tensors supported"
        f" (got {dims}D) for the modes: nearest | linear | bilinear | bicubic | trilinear | lanczos | area | "
        f"nearest-exact (got {mode})")


def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None):
    """interpolate (PyTorch's deprecated name; it warns)."""
    import warnings

    warnings.warn(f"`nn.functional.upsample` is deprecated. Use `nn.functional.interpolate` instead.",
                  stacklevel=2)
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input, size=None, scale_factor=None):
    import warnings

    warnings.warn("`nn.functional.upsample_nearest` is deprecated. Use `nn.functional.interpolate` instead.",
                  stacklevel=2)
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input, size=None, scale_factor=None):
    import warnings

    warnings.warn("`nn.functional.upsample_bilinear` is deprecated. Use `nn.functional.interpolate` instead.",
                  stacklevel=2)
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)


# --- pixel shuffles -----------------------------------------------------------------------


def _shuffled(x, factor):
    *batch, channels, h, w = x._data.shape
    c = channels // (factor * factor)
    y = x.reshape(*batch, c, factor, factor, h, w)
    n = len(batch)
    y = y.permute(*range(n), n, n + 3, n + 1, n + 4, n + 2)
    return y.reshape(*batch, c, h * factor, w * factor)


def _unshuffled(x, factor):
    *batch, c, h, w = x._data.shape
    y = x.reshape(*batch, c, h // factor, factor, w // factor, factor)
    n = len(batch)
    y = y.permute(*range(n), n, n + 2, n + 4, n + 1, n + 3)
    return y.reshape(*batch, c * factor * factor, h // factor, w // factor)


def pixel_shuffle(input, upscale_factor):
    """(*, C r^2, H, W) -> (*, C, H r, W r): channel c r^2 + i r + j goes to (h r + i, w r + j)."""
    if input.dim() < 3:
        raise RuntimeError(f"pixel_shuffle expects input to have at least 3 dimensions, but got input with "
                           f"{input.dim()} dimension(s)")
    if upscale_factor <= 0:
        raise RuntimeError(f"pixel_shuffle expects a positive upscale_factor, but got {upscale_factor}")
    channels = input._data.shape[-3]
    if channels % (upscale_factor * upscale_factor):
        raise RuntimeError(f"pixel_shuffle expects its input's 'channel' dimension to be divisible by the square of "
                           f"upscale_factor, but input.size(-3)={channels} is not divisible by "
                           f"{upscale_factor * upscale_factor}")
    return ops.composite("PixelShuffleBackward0", _shuffled, input, upscale_factor, _saves=False)


def pixel_unshuffle(input, downscale_factor):
    """The inverse of pixel_shuffle: (*, C, H r, W r) -> (*, C r^2, H, W)."""
    if input.dim() < 3:
        raise RuntimeError(f"pixel_unshuffle expects input to have at least 3 dimensions, but got input with "
                           f"{input.dim()} dimension(s)")
    if downscale_factor <= 0:
        raise RuntimeError(f"pixel_unshuffle expects a positive downscale_factor, but got {downscale_factor}")
    h, w = input._data.shape[-2:]
    if h % downscale_factor:
        raise RuntimeError(f"pixel_unshuffle expects height to be divisible by downscale_factor, but input.size(-2)="
                           f"{h} is not divisible by {downscale_factor}")
    if w % downscale_factor:
        raise RuntimeError(f"pixel_unshuffle expects width to be divisible by downscale_factor, but input.size(-1)="
                           f"{w} is not divisible by {downscale_factor}")
    return ops.composite("PixelUnshuffleBackward0", _unshuffled, input, downscale_factor, _saves=False)
