"""Reads and writes at index tensors: take, take_along_dim, masked_select, scatter and
scatter_add (with their in-place forms scatter_ and scatter_add_).

Each is one registry primitive recorded under PyTorch's node name: `np.take` (TakeBackward0),
`np.take_along_axis`
(GatherBackward0), `operator.getitem` with a bool mask (MaskedSelectBackward0), and
the pure scatters of rules/scatter.py, `index_put` (ScatterBackward0/1: the written
places of input get no gradient, src the gradient of the places it was written to) and
`added_at` (ScatterAddBackward0). Index checks come first, with PyTorch's texts. None
holds calculus.
"""

import operator

import numpy as np

from ..rules.scatter import added_at, index_put
from . import ops
from .dtypes import dim_axis
from .graph import node_class
from .rule_nodes import NoDerivativeNode

__all__ = ["take", "take_along_dim", "masked_select", "scatter", "scatter_add", "ScatterOps"]


def _is_tensor(x):
    return isinstance(x, ops.Tensor)


def take(input, index):
    """The entries of the flattened `input` at the int64 `index` (negative ones count from
    the end), in index's shape (TakeBackward0)."""
    idx = index._data
    if idx.dtype != np.int64:
        raise RuntimeError(f"take(): Expected a long tensor for index, but got {index.dtype.kind_name}")
    size = input._data.size
    bad = idx[(idx < -size) | (idx >= size)]
    if bad.size:
        raise IndexError(f"out of range: tried to access index {bad.flat[0]} on a tensor of {size} elements.")
    return ops.apply(np.take, input, np.where(idx < 0, idx + size, idx), name="TakeBackward0", edge_args=(0,))


def take_along_dim(input, indices, dim=None):
    """The entries of `input` at `indices` along `dim` (input and indices broadcast over
    the other dims); without dim, of the flattened tensor (GatherBackward0)."""
    idx = indices._data
    if idx.dtype != np.int64:
        raise RuntimeError(f"torch.take_along_dim(): dtype of indices should be Long but got {indices.dtype.kind_name}")
    if dim is None:
        input, idx, axis = input.reshape(-1), idx.reshape(-1), 0
    else:
        n = input._data.ndim
        if idx.ndim != n:
            raise RuntimeError("torch.take_along_dim(): input and indices should have the same number of dimensions, "
                               f"but got {n} dimensions for input, and {idx.ndim} dimensions for indices")
        axis = (dim_axis(dim, n) or 0) % max(n, 1)  # a 0-d tensor's dim is its one element
    size = input._data.shape[axis] if input._data.ndim else 1
    bad = idx[(idx < -size) | (idx >= size)]
    if bad.size:
        raise RuntimeError(f"index {bad.flat[0]} is out of bounds for dimension {axis} with size {size}")
    idx = np.where(idx < 0, idx + size, idx)
    if input._data.ndim:
        shape = list(np.broadcast_shapes(input._data.shape[:axis] + (1,) + input._data.shape[axis + 1:],
                                         idx.shape[:axis] + (1,) + idx.shape[axis + 1:]))
        shape[axis] = input._data.shape[axis]
        if tuple(shape) != input._data.shape:
            input = input.expand(shape)
        shape[axis] = idx.shape[axis]
        idx = np.broadcast_to(idx, shape)
    return ops.apply(np.take_along_axis, input, idx, name="GatherBackward0", axis=axis, edge_args=(0,))


def masked_select(input, mask):
    """The entries of `input` where the bool `mask` holds (both broadcast), as a 1-D
    tensor in order (MaskedSelectBackward0)."""
    m = mask._data if _is_tensor(mask) else np.asarray(mask)
    if m.dtype != np.bool_:
        raise RuntimeError("masked_select: expected BoolTensor for mask")
    ops.check_broadcast(m, input._data)
    shape = np.broadcast_shapes(m.shape, input._data.shape)
    if input._data.shape != shape:
        input = input.expand(shape)
    return ops.apply(operator.getitem, input, np.broadcast_to(m, shape), name="MaskedSelectBackward0", edge_args=(0,))


def _scatter_places(name, input, dim, index, src):
    """The index tuple of the places `index` names along `dim` (the other dims: each
    entry's own position), after PyTorch's checks; the index into src too."""
    idx = index._data if _is_tensor(index) else np.asarray(index)
    if idx.dtype not in (np.int32, np.int64):
        raise RuntimeError(f"{name}(): Expected dtype int64 for index")
    shape = input._data.shape
    n = len(shape)
    axis = (dim_axis(dim, n) or 0) % max(n, 1)  # a 0-d tensor's dim is its one element
    if idx.ndim != n and idx.size:  # (PyTorch also takes a 0-d tensor with a 1-d one)
        raise RuntimeError("Index tensor must have the same number of dimensions as self tensor")
    if _is_tensor(src) and src._data.ndim != idx.ndim and idx.size:
        raise RuntimeError("Index tensor must have the same number of dimensions as src tensor")
    for d in range(idx.ndim):
        too_big_self = d != axis and n and idx.shape[d] > shape[d]
        too_big_src = _is_tensor(src) and idx.shape[d] > src._data.shape[d]
        if too_big_self or too_big_src:
            src_text = f" and to be smaller size than src {list(src._data.shape)}" if _is_tensor(src) else ""
            raise RuntimeError(
                f"Expected index {list(idx.shape)} to be no larger than self {list(shape)} apart from dimension "
                f"{axis}{src_text}"
            )
    size = shape[axis] if n else 1
    bad = idx[(idx < 0) | (idx >= size)]  # PyTorch's scatters take no negative index
    if bad.size:
        raise RuntimeError(f"index {bad.flat[0]} is out of bounds for dimension {axis} with size {size}")
    grid = list(np.indices(idx.shape, sparse=True)) if idx.ndim else []
    into_src = tuple(grid)
    if n:
        grid[axis] = idx
        return tuple(grid), into_src
    return (), ()


def scatter(input, dim, index, src=None, value=None, *, reduce=None):
    """A copy of input with src's entries (or the number `value`) written at the places
    `index` names along `dim`: ScatterBackward0 for a tensor src (which gets the gradient
    of the places it wrote), ScatterBackward1 for a number. With reduce ('add',
    'multiply') the values combine, and PyTorch has no derivative."""
    if src is None:
        src = value
    if src is None:
        raise TypeError("scatter() missing 1 required positional argument: 'src' or 'value'")
    places, into_src = _scatter_places("scatter", input, dim, index, src)
    dt = input._data.dtype
    if reduce is not None:
        return _reduced(input, places, src, into_src, reduce)
    if _is_tensor(src):
        if src._data.dtype != dt:
            raise RuntimeError("scatter(): Expected self.dtype to be equal to src.dtype")

        def write(x, s):
            return ops.apply(index_put, x, places, s[into_src] if into_src else s, name="ScatterBackward0",
                             edge_args=(0, 2))

        return ops.composite("ScatterBackward0", write, input, src)
    fill = np.asarray(src, dtype=dt)
    return ops.apply(index_put, input, places, fill, name="ScatterBackward1", edge_args=(0,))


def _reduced(input, places, src, into_src, reduce):
    if reduce not in ("add", "multiply"):
        raise RuntimeError("reduce argument must be either add or multiply.")
    x = input._data.copy()
    values = src._data[into_src] if _is_tensor(src) else np.asarray(src, dtype=x.dtype)
    (np.add if reduce == "add" else np.multiply).at(x, places, values)
    return ops.without_derivative(x, (input, src), node_class("NotImplemented", NoDerivativeNode), "scatter")


def scatter_add(input, dim, index, src):
    """A copy of input with src's entries added at the places `index` names along `dim`,
    once per time a place is named (ScatterAddBackward0: input gets the whole gradient,
    src that of the places it was added to)."""
    if not _is_tensor(src):
        raise TypeError(f"scatter_add(): argument 'src' (position 4) must be Tensor, not {type(src).__name__}")
    places, into_src = _scatter_places("scatter_add", input, dim, index, src)
    if src._data.dtype != input._data.dtype:
        raise RuntimeError("scatter_add(): Expected self.dtype to be equal to src.dtype")

    def add(x, s):
        return ops.apply(added_at, x, places, s[into_src] if into_src else s, name="ScatterAddBackward0",
                         edge_args=(0, 2))

    return ops.composite("ScatterAddBackward0", add, input, src)


class ScatterOps:
    """The Tensor methods of this module."""

    __slots__ = ()
    take, take_along_dim, masked_select, scatter, scatter_add = take, take_along_dim, masked_select, scatter, scatter_add

    def scatter_(self, dim, index, src=None, value=None, *, reduce=None):
        """`scatter` in place; returns self."""
        return self._rewrite(lambda t: scatter(t, dim, index, src, value, reduce=reduce), src)

    def scatter_add_(self, dim, index, src):
        """`scatter_add` in place; returns self."""
        return self._rewrite(lambda t: scatter_add(t, dim, index, src), src)

