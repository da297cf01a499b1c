"""slice_scatter, select_scatter, diagonal_scatter and as_strided_scatter: a copy of
`input` with `src` written where the view of that name would read, as PyTorch's.

Each is the registry's `index_put` (rules/scatter.py) recorded under PyTorch's node
name, with an index that reads exactly the view's elements in the view's order: so
input's gradient is the incoming one with those places zeroed and src's the incoming
one read there. `src` must have the view's shape (PyTorch's error otherwise) and is
cast to input's dtype.
"""

import operator

import numpy as np

from ..rules import scatter
from . import ops
from .dtypes import dim_axis
from .strided import _ints, _positions

__all__ = ["slice_scatter", "select_scatter", "diagonal_scatter", "as_strided_scatter", "ViewScatterOps"]


def _written(name, input, src, index):
    """input with `src` at `index` (one node, `name`), after PyTorch's shape check."""
    place = input._data[index]
    if src._data.shape != place.shape:
        raise RuntimeError(
            "expected src to have a size equal to the slice of self. "
            f"src size = {list(src._data.shape)}, slice size = {list(place.shape)}")
    if src._data.dtype != input._data.dtype:
        src = src._convert(input.dtype)
    return ops.apply(scatter.index_put, input, index, src, name=name, edge_args=(0, 2))


def slice_scatter(input, src, dim=0, start=None, end=None, step=1):
    """input with src written at `input[..., start:end:step, ...]` (SliceScatterBackward0)."""
    axis = dim_axis(dim, input._data.ndim) % max(input._data.ndim, 1)
    if step <= 0:
        raise RuntimeError("slice step must be positive")
    return _written("SliceScatterBackward0", input, src, (slice(None),) * axis + (slice(start, end, step),))


def select_scatter(input, src, dim, index):
    """input with src written at `input.select(dim, index)` (SelectScatterBackward0)."""
    shape = input._data.shape
    if not shape:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    axis = dim_axis(dim, len(shape)) % len(shape)
    if not -shape[axis] <= index < shape[axis]:
        raise IndexError(f"select(): index {index} out of range for tensor of size {list(shape)} at dimension {dim}")
    return _written("SelectScatterBackward0", input, src, (slice(None),) * axis + (operator.index(index),))


def diagonal_scatter(input, src, offset=0, dim1=0, dim2=1):
    """input with src written at `input.diagonal(offset, dim1, dim2)` (the other dims in
    order, the diagonal last: DiagonalScatterBackward0)."""
    shape = input._data.shape
    n = len(shape)
    a1, a2 = dim_axis(dim1, n) % max(n, 1), dim_axis(dim2, n) % max(n, 1)
    if a1 == a2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    rows = max(min(shape[a1] + min(offset, 0), shape[a2] - max(offset, 0)), 0)
    step = np.arange(rows)
    others = [k for k in range(n) if k not in (a1, a2)]
    index = [None] * n
    for position, k in enumerate(others):  # a broadcast arange per other dim, the diagonal's last
        index[k] = np.arange(shape[k]).reshape((-1,) + (1,) * (len(others) - position))
    index[a1] = step - min(offset, 0)
    index[a2] = step + max(offset, 0)
    return _written("DiagonalScatterBackward0", input, src, tuple(index))


def as_strided_scatter(input, src, size, stride, storage_offset=None):
    """input with src written at `input.as_strided(size, stride, storage_offset)`, read
    in input's row-major order (AsStridedScatterBackward0); input must be contiguous."""
    size, stride = _ints(size, "size", 3), _ints(stride, "stride", 4)
    if len(size) != len(stride):
        raise RuntimeError("mismatch in length of strides and shape")
    if not input._data.flags.c_contiguous:
        raise RuntimeError("as_strided_scatter: srcgrad supports a contiguous input only; call .contiguous() first")
    offset = 0 if storage_offset is None else operator.index(storage_offset)
    read = _positions(offset, size, stride)
    if read.size and (read.min() < 0 or read.max() >= input._data.size):
        raise RuntimeError(
            f"as_strided_scatter: sizes {list(size)}, strides {list(stride)} and storage offset {offset} "
            f"read outside the {input._data.size} elements of input")
    return _written("AsStridedScatterBackward0", input, src, np.unravel_index(read, input._data.shape))


class ViewScatterOps:
    """The Tensor methods of this module."""

    __slots__ = ()
    slice_scatter, select_scatter, diagonal_scatter = slice_scatter, select_scatter, diagonal_scatter
    as_strided_scatter = as_strided_scatter
