"""Writes at index positions, out of place and in place: index_add, index_copy,
index_fill, index_put, masked_scatter, put (each with its `_` form), fill_diagonal_ and
scatter_reduce (with scatter_reduce_).

Each is the registry's pure scatter of rules/scatter.py at the positions the op names:
`index_put` (a write: the written places of self get no gradient, the values that of
their places), `added_at` (an accumulation: self gets the whole gradient),
`maximized_at` / `minimized_at` (amax / amin: the gradient split evenly among the
entries equal to the result, as PyTorch's), `filled_diagonal`, and for scatter_reduce's
'prod' a gather of each place's factors, `prod` and a write; recorded as one node of
PyTorch's name (IndexAddBackward0, ...). The `_` forms write the out-of-place result
into self through `InPlaceOps._rewrite`, so they keep the version counters, the views
and PyTorch's error for a leaf that requires grad. Index checks come first, with
PyTorch's texts. None holds calculus.
"""

import math

import numpy as np

from ..rules.scatter import added_at, filled_diagonal, maximized_at, minimized_at
from ..rules.scatter import index_put as written_at
from . import ops
from .dtypes import dim_axis
from .joins import cat
from .scatters import _scatter_places

__all__ = ["IndexedWriteOps"]


def _is_tensor(x):
    return isinstance(x, ops.Tensor)


def _index_places(name, self, dim, index, out_of_bounds=RuntimeError, prefix=""):
    """The index tuple of the slices `index` (1-D or 0-d, int64 or int32) names along
    `dim`, its axis and its flat positions; `out_of_bounds`, `prefix`: PyTorch's error
    type and message start for an index out of range, which differ by op."""
    idx = index._data if _is_tensor(index) else np.asarray(index)
    if idx.dtype not in (np.int64, np.int32):
        raise RuntimeError(f"{name}(): Expected dtype int32/int64 for index")
    if idx.ndim > 1:
        raise IndexError(f"{name}(): Index is supposed to be a vector")
    shape = self._data.shape
    n = max(len(shape), 1)
    axis = dim_axis(dim, n) % n
    size = shape[axis] if shape else 1
    bad = idx[(idx < -size) | (idx >= size)]
    if bad.size:
        raise out_of_bounds(f"{prefix}index {bad.flat[0]} is out of bounds for dimension {axis} with size {size}")
    idx = np.where(idx < 0, idx + size, idx).reshape(-1).astype(np.int64)
    if not shape:
        return (), axis, idx
    return (slice(None),) * axis + (idx,), axis, idx


def _check_source(name, self, axis, idx, source):
    """PyTorch's errors of index_add (name 'index_add') and index_copy for a source of
    another size or dtype."""
    got = list(source._data.shape)
    count = got[axis] if len(got) > axis else 1
    if count != idx.size:
        if name == "index_add":
            raise RuntimeError(
                f"index_add_(): Number of indices ({idx.size}) should be equal to source.size(dim): ({count}), for dim: {axis}"
            )
        raise IndexError(f"index_copy_(): Number of indices ({idx.size}) should be equal to source.size(dim) ({count})")
    want = list(self._data.shape)
    if got[:axis] + got[axis + 1:] != want[:axis] + want[axis + 1:] and want:
        raise RuntimeError(
            "source tensor shape must match self tensor shape, excluding the specified dimension. Got self.shape = "
            f"{want} source.shape = {got}"
        )
    if source._data.dtype != self._data.dtype:
        raise RuntimeError(
            f"{name}_(): self ({self.dtype.kind_name}) and source ({source.dtype.kind_name}) must have the same scalar type"
        )


def index_add(self, dim, index, source, *, alpha=1):
    """A copy of self with `alpha * source` added to the slices `index` names along dim,
    once per time a slice is named (IndexAddBackward0)."""
    places, axis, idx = _index_places("index_add", self, dim, index)
    _check_source("index_add", self, axis, idx, source)

    def add(x, s):
        values = s if alpha == 1 else s * alpha
        return ops.apply(added_at, x, places, values, name="IndexAddBackward0", edge_args=(0, 2))

    return ops.composite("IndexAddBackward0", add, self, source)


def index_copy(self, dim, index, source):
    """A copy of self with source's slices written to those `index` names along dim
    (IndexCopyBackward0)."""
    places, axis, idx = _index_places("index_copy", self, dim, index, IndexError, "index_copy_(): ")
    _check_source("index_copy", self, axis, idx, source)
    return ops.apply(written_at, self, places, source, name="IndexCopyBackward0", edge_args=(0, 2))


def index_fill(self, dim, index, value):
    """A copy of self with the slices `index` names along dim set to `value`, a number
    (IndexFillBackward0) or a 0-d tensor, which gets the gradient of those places
    (IndexFillBackward1)."""
    places, axis, idx = _index_places("index_fill", self, dim, index, IndexError)
    if _is_tensor(value):
        if value._data.ndim:
            raise RuntimeError(
                f"index_fill_ only supports a 0-dimensional value tensor, but got tensor with {value._data.ndim} dimension(s)."
            )
        unique = (slice(None),) * axis + (np.unique(idx),) if self._data.ndim else ()
        value = value if value._data.dtype == self._data.dtype else value.to(self.dtype)
        return ops.apply(written_at, self, unique, value, name="IndexFillBackward1", edge_args=(0, 2))
    return ops.apply(written_at, self, places, np.asarray(value, dtype=self._data.dtype), name="IndexFillBackward0",
                     edge_args=(0,))


def _put_places(self, indices):
    """The index tuple of `indices` (Tensors or None, PyTorch's index_put's indices)."""
    places = []
    for i in indices:
        if i is None:
            places.append(slice(None))
            continue
        data = i._data if _is_tensor(i) else np.asarray(i)
        if data.dtype.kind not in "biu":
            raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
        places.append(data)
    if len(places) > self._data.ndim:
        raise IndexError(f"too many indices for tensor of dimension {self._data.ndim} (got {len(places)})")
    try:
        self._data[tuple(places)]
    except IndexError as e:
        raise IndexError(str(e)) from None
    return tuple(places)


def index_put(self, indices, values, accumulate=False):
    """A copy of self with `values` (broadcast) written at `self[indices]`, or added
    there with accumulate=True, once per time a place is named (IndexPutBackward0)."""
    if not isinstance(indices, (tuple, list)):
        raise TypeError(f"index_put(): argument 'indices' must be tuple of Tensors, not {type(indices).__name__}")
    places = _put_places(self, indices)
    if values._data.dtype != self._data.dtype:
        raise RuntimeError(
            f"Index put requires the source and destination dtypes match, got {self.dtype.kind_name} for the "
            f"destination and {values.dtype.kind_name} for the source."
        )
    target = self._data[places].shape
    try:
        np.broadcast_shapes(values._data.shape, target)
    except ValueError:
        raise RuntimeError(
            f"shape mismatch: value tensor of shape {list(values._data.shape)} cannot be broadcast to indexing result "
            f"of shape {list(target)}"
        ) from None
    primitive = added_at if accumulate else written_at
    return ops.apply(primitive, self, places, values, name="IndexPutBackward0", edge_args=(0, 2))


def masked_scatter(self, mask, source):
    """A copy of self with source's first elements (in order) written where the bool
    `mask` (broadcast to self) holds (MaskedScatterBackward0)."""
    m = mask._data if _is_tensor(mask) else np.asarray(mask)
    if m.dtype != np.bool_:
        raise RuntimeError(f"masked_scatter_ only supports boolean masks, but got mask with dtype {mask.dtype}")
    if source._data.dtype != self._data.dtype:
        raise RuntimeError(
            f"masked_scatter: expected self and source to have same dtypes but got {self.dtype.kind_name} and "
            f"{source.dtype.kind_name}"
        )
    ops.check_broadcast(m, self._data)
    places = np.nonzero(np.broadcast_to(m, self._data.shape))
    count = places[0].size if places else int(np.broadcast_to(m, self._data.shape))
    if count > source._data.size:
        raise RuntimeError("Number of elements of source < number of ones in mask")

    def write(x, s):
        return ops.apply(written_at, x, places, s.reshape(-1)[:count], name="MaskedScatterBackward0", edge_args=(0, 2))

    return ops.composite("MaskedScatterBackward0", write, self, source)


def put(self, index, source, accumulate=False):
    """A copy of self with source's elements written (or added, accumulate=True) at the
    flat positions `index` (negative from the end) (PutBackward0)."""
    idx = index._data if _is_tensor(index) else np.asarray(index)
    if idx.dtype != np.int64:
        raise RuntimeError(f"put_(): Expected a long tensor for index, but got {index.dtype.kind_name}")
    if idx.size != source._data.size:
        raise RuntimeError(
            f"put_(): Expected source and index to have the same number of elements, but got source.numel() = "
            f"{source._data.size}, index.numel() = {idx.size}"
        )
    size = self._data.size
    bad = idx[(idx < -size) | (idx >= size)]
    if bad.size:
        raise IndexError(f"out of range: tried to access index {bad.flat[0]} on a tensor of {size} elements.")
    if source._data.dtype != self._data.dtype:
        raise RuntimeError(
            f"put_(): self and source expected to have the same dtype, but got self.dtype = {self.dtype.kind_name} "
            f"and source.dtype = {source.dtype.kind_name}"
        )
    flat = (np.where(idx < 0, idx + size, idx).reshape(-1),)
    primitive = added_at if accumulate else written_at
    shape = self._data.shape

    def write(x, s):
        out = ops.apply(primitive, x.reshape(-1), flat, s.reshape(-1), name="PutBackward0", edge_args=(0, 2))
        return out.reshape(shape)

    return ops.composite("PutBackward0", write, self, source)


_REDUCTIONS = ("sum", "prod", "mean", "amax", "amin")


def _product_rows(shape, places, include_self):
    """For scatter_reduce's 'prod': the places of self written (one per distinct target)
    and, for each, the positions in cat(self.flatten(), values.flatten(), [1]) of the
    factors of its product: self's own value (with include_self), then the values sent
    there in order, padded with the trailing 1."""
    targets = np.ravel_multi_index(np.broadcast_arrays(*places), shape).reshape(-1) if places else np.zeros(1, int)
    distinct, row_of, counts = np.unique(targets, return_inverse=True, return_counts=True)
    width = (counts.max() if counts.size else 0) + int(include_self)
    one = math.prod(shape) + targets.size
    rows = np.full((distinct.size, width), one, dtype=np.int64)
    order = np.argsort(row_of, kind="stable")
    column = np.arange(targets.size) - np.repeat(np.cumsum(counts) - counts, counts)
    rows[row_of[order], column + int(include_self)] = math.prod(shape) + order
    if include_self:
        rows[:, 0] = distinct
    written = np.unravel_index(distinct, shape) if shape else ()
    return written, rows


def _products_at(x, values, places, include_self):
    """x with the product of the values sent to each place (times x's own value with
    include_self) written there: a gather of the factors, `prod` along each row and a
    write, so that the gradients, first and higher, are those of prod (exact where a
    factor is 0) and of indexing."""
    written, rows = _product_rows(x._data.shape, places, include_self)
    one = ops.Tensor._make(np.ones(1, dtype=x._data.dtype))
    factors = cat([x.reshape(-1), values.reshape(-1), one])[ops.Tensor._make(rows)]
    products = factors.prod(-1) if x._data.ndim else factors.prod()
    return ops.apply(written_at, x, written, products, name="ScatterReduceBackward0", edge_args=(0, 2))


def scatter_reduce(self, dim, index, src, reduce, *, include_self=True):
    """self with src's entries combined into the places `index` names along dim by
    `reduce` ('sum', 'prod', 'mean', 'amax', 'amin'; self's values take part with
    include_self) (ScatterReduceBackward0)."""
    if reduce not in _REDUCTIONS:
        raise RuntimeError(f"reduce argument must be either sum, prod, mean, amax or amin, got {reduce}")
    if src._data.dtype != self._data.dtype:
        raise RuntimeError("scatter_reduce(): Expected self.dtype to be equal to src.dtype")
    places, into_src = _scatter_places("scatter_reduce", self, dim, index, src)
    if reduce == "prod" and not all(np.size(p) for p in places):
        reduce = "sum"  # nothing is sent anywhere: every reduction leaves self as it is
    if reduce == "prod":
        return ops.composite("ScatterReduceBackward0",
                             lambda x, s: _products_at(x, s[into_src] if into_src else s, places, include_self),
                             self, src)
    dt = self._data.dtype
    floating = dt.kind in "fc"
    identity = {"sum": 0, "mean": 0, "amax": -np.inf if floating else np.iinfo(dt).min,
                "amin": np.inf if floating else np.iinfo(dt).max}[reduce]
    primitive = {"sum": added_at, "mean": added_at, "amax": maximized_at, "amin": minimized_at}[reduce]
    counts = None
    if reduce == "mean":
        counts = np.full(self._data.shape, 1 if include_self else 0, np.int64)
        np.add.at(counts, places, 1)
        counts = np.maximum(counts, 1)

    def reduced(x, s):
        start = x if include_self else ops.apply(written_at, x, places, np.asarray(identity, dt),
                                                 name="ScatterReduceBackward0", edge_args=(0,))
        values = s[into_src] if into_src else s
        out = ops.apply(primitive, start, places, values, name="ScatterReduceBackward0", edge_args=(0, 2))
        if counts is None:
            return out
        divisor = ops.Tensor._make(counts.astype(dt) if floating else counts)
        return out / divisor if floating else out.div(divisor, rounding_mode="floor")

    return ops.composite("ScatterReduceBackward0", reduced, self, src)


class IndexedWriteOps:
    """The Tensor methods of this module."""

    __slots__ = ()
    index_add, index_copy, index_fill, index_put = index_add, index_copy, index_fill, index_put
    masked_scatter, put, scatter_reduce = masked_scatter, put, scatter_reduce

    def index_add_(self, dim, index, source, *, alpha=1):
        """`index_add` in place; returns self."""
        return self._rewrite(lambda t: index_add(t, dim, index, source, alpha=alpha), source)

    def index_copy_(self, dim, index, source):
        """`index_copy` in place; returns self."""
        return self._rewrite(lambda t: index_copy(t, dim, index, source), source)

    def index_fill_(self, dim, index, value):
        """`index_fill` in place; returns self."""
        return self._rewrite(lambda t: index_fill(t, dim, index, value), value)

    def index_put_(self, indices, values, accumulate=False):
        """`index_put` in place; returns self."""
        return self._rewrite(lambda t: index_put(t, indices, values, accumulate), values)

    def masked_scatter_(self, mask, source):
        """`masked_scatter` in place; returns self."""
        return self._rewrite(lambda t: masked_scatter(t, mask, source), source)

    def put_(self, index, source, accumulate=False):
        """`put` in place; returns self."""
        return self._rewrite(lambda t: put(t, index, source, accumulate), source)

    def scatter_reduce_(self, dim, index, src, reduce, *, include_self=True):
        """`scatter_reduce` in place; returns self."""
        return self._rewrite(lambda t: scatter_reduce(t, dim, index, src, reduce, include_self=include_self), src)

    def fill_diagonal_(self, fill_value, wrap=False):
        """The main diagonal (of a 2-D tensor, or of one whose dims are all equal) set to
        `fill_value` in place, continuing below the first square block with wrap=True
        (np.fill_diagonal's rule); returns self."""
        shape = self._data.shape
        if len(shape) < 2:
            raise RuntimeError("dimensions must larger than 1")
        if len(shape) > 2 and len(set(shape)) != 1:
            raise RuntimeError("all dimensions of input must be of equal length")
        value = np.asarray(fill_value, dtype=self._data.dtype)
        return self._rewrite(lambda t: ops.apply(filled_diagonal, t, value, name="CopySlices", edge_args=(0,), wrap=wrap))
