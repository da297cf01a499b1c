"""Searching and counting: bucketize, searchsorted, histc, histogram, bincount, isin and
unique_consecutive.

Their results are integers, counts or positions: NumPy computes them (np.searchsorted,
np.bincount, ...) and none is tracked, as in PyTorch, except where PyTorch records a node
whose backward it does not implement (bincount with weights, histogram with a weight,
unique_consecutive of a tensor that requires grad): the shim records that node too, and
its backward raises PyTorch's error. Checks and messages are PyTorch's.
"""

import numpy as np

from .complex_refusals import refuse_complex
from . import ops
from .dtypes import dim_axis
from .graph import node_class
from .ranges import linspace_values
from .rule_nodes import NoDerivativeNode, UndifferentiatedNode

__all__ = ["bucketize", "searchsorted", "histc", "histogram", "bincount", "isin", "unique_consecutive", "BinningOps"]


def _array(x):
    return x._data if isinstance(x, ops.Tensor) else np.asarray(x)


def _untracked(array):
    return ops.Tensor._make(np.asarray(array))


def _without_derivative(ans, args, name, op):
    return ops.without_derivative(ans, args, node_class(name, NoDerivativeNode), op)


def bucketize(input, boundaries, *, out_int32=False, right=False):
    """The index of the bucket of each element among the sorted 1-d `boundaries`: the
    first boundary >= x (right: > x); int64 (int32 with out_int32)."""
    if boundaries._data.ndim != 1:
        raise RuntimeError(f"boundaries tensor must be 1 dimension, but got dim({boundaries._data.ndim})")
    refuse_complex("searchsorted", input, boundaries)
    out = np.searchsorted(boundaries._data, _array(input), side="right" if right else "left")
    return _untracked(np.asarray(out, np.int32 if out_int32 else np.int64))


def searchsorted(sorted_sequence, values, *, out_int32=False, right=False, side=None, sorter=None):
    """Where each of `values` would go in `sorted_sequence` (1-d, or one sorted row per
    leading index of values) to keep it sorted: before equal entries, or after them with
    right=True or side='right'; `sorter` sorts an unsorted sequence."""
    if side is not None:
        if side not in ("left", "right"):
            raise RuntimeError(f"torch.searchsorted(): side can only be 'left' or 'right' but got {side}")
        if right and side == "left":
            raise RuntimeError(
                "torch.searchsorted(): side and right can't be set to opposites, got side of left while right was True"
            )
        right = side == "right"
    refuse_complex("searchsorted", sorted_sequence, values)
    seq, vals = sorted_sequence._data, _array(values)
    if sorter is not None:
        seq = np.take_along_axis(seq, sorter._data, -1)
    how = "right" if right else "left"
    if seq.ndim == 1:
        out = np.searchsorted(seq, vals, side=how)
    else:
        if seq.shape[:-1] != vals.shape[:-1]:
            raise RuntimeError(
                "torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 dimensions of boundaries "
                f"tensor and input value tensor must match, but we got boundaries tensor {list(seq.shape)} and input "
                f"value tensor {list(vals.shape)}"
            )
        rows, lines = seq.reshape(-1, seq.shape[-1]), vals.reshape(-1, vals.shape[-1])
        out = np.stack([np.searchsorted(r, v, side=how) for r, v in zip(rows, lines)]).reshape(vals.shape)
    if vals.dtype.kind == "f":  # nan compares false with every entry: PyTorch's search ends past the last
        out = np.where(np.isnan(vals), seq.shape[-1], out)
    return _untracked(np.asarray(out, np.int32 if out_int32 else np.int64))


def histc(input, bins=100, min=0, max=0):  # noqa: A002 - PyTorch's names
    """The counts of the elements in `bins` equal bins from min to max (the data's range
    when both are 0; widened by 1 each way where it is one value); elements outside are
    left out, max falls in the last bin. Of input's float dtype, never tracked."""
    x = input._data
    if float(min) == float(max):  # PyTorch finds the range with aminmax first
        refuse_complex("aminmax", input)
    if x.dtype.kind != "f":
        raise NotImplementedError(f"\"histogram_cpu\" not implemented for '{input.dtype.kind_name}'")
    if bins <= 0:
        raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {bins} for dimension 0")
    low, high = float(min), float(max)
    if low == high and x.size:
        low, high = float(np.min(x)), float(np.max(x))
    if low == high:
        low, high = low - 1, high + 1
    if not (np.isfinite(low) and np.isfinite(high)):
        raise RuntimeError(f"torch.histc: range of [{low:g}, {high:g}] is not finite")
    if low > high:
        raise RuntimeError("torch.histc: max must be larger than min")
    flat = x.reshape(-1)
    inside = flat[(flat >= low) & (flat <= high)].astype(np.float64)
    place = np.minimum(((inside - low) * bins / (high - low)).astype(np.int64), bins - 1)
    return _untracked(np.bincount(place, minlength=bins).astype(x.dtype))


class _Histogram(tuple):
    """`(hist, bin_edges)`, printed as PyTorch's `torch.return_types.histogram`."""

    def __new__(cls, hist, bin_edges):
        return tuple.__new__(cls, (hist, bin_edges))

    hist = property(lambda self: self[0])
    bin_edges = property(lambda self: self[1])

    def __repr__(self):
        return f"srcgrad.return_types.histogram(\nhist={self[0]!r},\nbin_edges={self[1]!r})"


def histogram(input, bins=100, *, range=None, weight=None, density=False):  # noqa: A002 - PyTorch's names
    """`(hist, bin_edges)`: the (weighted) counts of the elements in `bins` equal bins over
    `range` (default the data's; half a unit each way where it is one value) or between the
    given edges, the last bin closed; with density, normalized to integrate to 1."""
    x = input._data
    if x.dtype.kind != "f":
        raise NotImplementedError(f"\"histogram_cpu\" not implemented for '{input.dtype.kind_name}'")
    w = None if weight is None else weight._data.reshape(-1)
    if isinstance(bins, ops.Tensor):
        edges = bins._data.astype(x.dtype)
    else:
        if bins <= 0:
            raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {bins} for dimension 0")
        low, high = (float(np.min(x)), float(np.max(x))) if range is None and x.size else (
            (0.0, 0.0) if range is None else map(float, range))
        if low == high:
            low, high = low - 0.5, high + 0.5
        if low > high:
            raise RuntimeError(f"torch.histogram(): min should not exceed max, but got min {low} max {high}")
        edges = linspace_values(low, high, bins + 1, x.dtype)
    hist, _ = np.histogram(x.reshape(-1), bins=edges.astype(np.float64), weights=w, density=density)
    hist = hist.astype(x.dtype)
    tracked = [t for t in (input, weight) if t is not None]
    return _Histogram(_without_derivative(hist, tracked, "NotImplemented", "histogram"),
                      _without_derivative(edges, tracked, "NotImplemented", "histogram"))


def bincount(input, weights=None, minlength=0):
    """The count (or the sum of `weights`) of each value 0, 1, ... of a 1-d tensor of
    non-negative integers, at least `minlength` long: int64, or the weights' float dtype
    (float64 for integer weights)."""
    x = input._data
    if x.dtype.kind not in "iub":
        raise NotImplementedError(f"\"bincount_cpu\" not implemented for '{input.dtype.kind_name}'")
    if x.ndim != 1 or (x.size and x.min() < 0):
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if minlength < 0:
        raise RuntimeError("minlength should be >= 0")
    if weights is None:
        return _untracked(np.bincount(x, minlength=minlength).astype(np.int64))
    w = weights._data
    if w.ndim != 1 or w.shape[0] != x.shape[0]:
        raise RuntimeError("weights should be 1-d and have the same length as input")
    dt = w.dtype if w.dtype.kind == "f" and w.dtype != np.float16 else np.dtype(np.float64)
    ans = np.bincount(x, weights=w.astype(np.float64), minlength=minlength).astype(dt)
    return _without_derivative(ans, (input, weights), "NotImplemented", "bincount")


def isin(elements, test_elements, *, assume_unique=False, invert=False):
    """True where the element is one of `test_elements` (either may be a number); with
    invert, where it is not."""
    out = np.isin(_array(elements), _array(test_elements), invert=invert)
    return _untracked(out)


def unique_consecutive(input, return_inverse=False, return_counts=False, dim=None):
    """The tensor with each run of equal consecutive elements (slices along `dim`; of the
    flattened tensor without dim) kept once; with return_inverse, where each element went;
    with return_counts, each run's length. nan equals nothing, as in PyTorch."""
    x = input._data
    if dim is None:
        lines, axis = x.reshape(-1), None
        starts = np.r_[True, lines[1:] != lines[:-1]] if lines.size else np.zeros(0, bool)
        kept = lines[starts]
        inverse_shape = x.shape
    else:
        axis = dim_axis(dim, x.ndim) % max(x.ndim, 1)
        moved = np.moveaxis(x, axis, 0).reshape(x.shape[axis], -1)
        starts = np.r_[True, np.any(moved[1:] != moved[:-1], axis=1)] if moved.shape[0] else np.zeros(0, bool)
        kept = np.compress(starts, x, axis=axis)
        inverse_shape = (x.shape[axis],)
    inverse = (np.cumsum(starts) - 1).reshape(inverse_shape)
    counts = np.diff(np.r_[np.flatnonzero(starts), starts.size])
    values = ops.without_derivative(kept, (input,), node_class("UniqueConsecutiveBackward0", UndifferentiatedNode),
                                    "unique_consecutive")
    out = (values,)
    if return_inverse:
        out += (_untracked(inverse.astype(np.int64)),)
    if return_counts:
        out += (_untracked(counts.astype(np.int64)),)
    return out[0] if len(out) == 1 else out


class BinningOps:
    """The Tensor methods of this module (PyTorch's Tensor has no bucketize, searchsorted
    or isin)."""

    __slots__ = ()
    histc, histogram, bincount, unique_consecutive = histc, histogram, bincount, unique_consecutive
