"""Selections and splits: gather, index_select, masked_fill, sort, argsort, topk, split,
chunk, unbind, unique, as Tensor methods (the `SelectionOps` mixin) and functions.

Each is one registry primitive recorded under PyTorch's node name: `np.take_along_axis`
(gather, sort, topk: GatherBackward0, SortBackward0, TopkBackward0), `np.take`
(IndexSelectBackward0), `np.where` (MaskedFillBackward0) and `operator.getitem` (the
pieces of split, chunk and unbind); unique has no derivative in PyTorch
(Unique2Backward0, UniqueDimBackward0: backward raises). Indices are int64 tensors; among ties, sort
(unless stable), topk and kthvalue pick what PyTorch's CPU algorithms pick (tie_orders.py).
"""

import operator

import numpy as np

from .complex_refusals import refuse_complex
from . import dtypes, fill_values, ops
from .tangents import tangent_of
from .views import mark_output
from .dtypes import dim_axis
from .grad_mode import _mode
from .graph import node_class
from .rule_nodes import UndifferentiatedNode
from .tie_orders import sort_order, topk_order

__all__ = ["SelectionOps", "gather", "index_select", "masked_fill", "sort", "argsort", "topk", "split", "chunk", "unbind",
           "named_pair", "unique"]


def _axis(x, dim):
    """NumPy's non-negative axis for `dim` (a negative one counted from the end)."""
    axis = dim_axis(dim, x._data.ndim)
    return 0 if axis is None else axis % x._data.ndim


def _indices(index, op):
    """The index array of `op` ("gather" or "index_select"): int32 or int64, else PyTorch's
    RuntimeError (each op words it its own way)."""
    data = index._data if isinstance(index, ops.Tensor) else np.asarray(index)
    if data.dtype not in (np.int32, np.int64):
        kinds = "int32/int64" if op == "gather" else "int32 or int64"
        raise RuntimeError(f"{op}(): Expected dtype {kinds} for index")
    return data


class _NamedPair(tuple):
    """`(values, indices)` from `max(dim)`, `min(dim)`, `sort` or `topk`; as PyTorch's
    named pairs it prints `srcgrad.return_types.<name>(` then `values=...,` and
    `indices=...)` on lines of their own."""

    def __new__(cls, values, indices):
        return tuple.__new__(cls, (values, indices))

    values = property(lambda self: self[0])
    indices = property(lambda self: self[1])

    def __repr__(self):
        return f"srcgrad.return_types.{type(self).__name__}(\nvalues={self[0]!r},\nindices={self[1]!r})"


def named_pair(name):
    """The pair class PyTorch calls `torch.return_types.<name>`."""
    return type(name, (_NamedPair,), {"__module__": "srcgrad.return_types"})


_SORT, _TOPK = named_pair("sort"), named_pair("topk")


def gather(input, dim, index):
    """`out[i][j] = input[i][index[i][j]]` along `dim` (GatherBackward0)."""
    idx = _indices(index, "gather")
    if idx.ndim != input._data.ndim:
        raise RuntimeError("Index tensor must have the same number of dimensions as input tensor")
    axis = _axis(input, dim)
    n = input._data.shape[axis] if input._data.ndim else 1
    bad = idx[(idx < 0) | (idx >= n)]
    if bad.size:
        raise RuntimeError(f"index {bad.flat[0]} is out of bounds for dimension {axis} with size {n}")
    return ops.apply(np.take_along_axis, input, idx, name="GatherBackward0", axis=axis, edge_args=(0,))


def index_select(input, dim, index):
    """The entries of `input` at the 1-D `index` along `dim` (IndexSelectBackward0)."""
    idx = _indices(index, "index_select")
    if idx.ndim > 1:
        raise IndexError("index_select(): Index is supposed to be a vector")
    axis = _axis(input, dim)
    n = input._data.shape[axis] if input._data.ndim else 1
    bad = idx[(idx < 0) | (idx >= n)]
    if bad.size:  # no negative indices, as PyTorch's kernels (two messages)
        if axis == 0 or input._data.ndim <= 1:
            raise IndexError("index out of range in self")
        raise RuntimeError(f"INDICES element is out of DATA bounds, id={bad.flat[0]} axis_dim={n}")
    if input._data.ndim == 0 and idx.size == 1:  # a 0-d result, as PyTorch's
        return ops.apply(np.take, input, idx.reshape(()), name="IndexSelectBackward0", edge_args=(0,))
    return ops.apply(np.take, input, idx.reshape(-1), name="IndexSelectBackward0", axis=axis, edge_args=(0,))


def masked_fill(input, mask, value, function="masked_fill"):
    """`input` with `value` where the bool `mask` is True (MaskedFillBackward0); the
    filled entries get no gradient, but a 0-d value tensor that requires grad gets their
    sum (MaskedFillBackward1)."""
    m = mask._data if isinstance(mask, ops.Tensor) else np.asarray(mask)
    if m.dtype != np.bool_:
        raise RuntimeError(f"masked_fill_ only supports boolean masks, but got mask with dtype {dtypes.c_name(m.dtype)}")
    if isinstance(value, ops.Tensor):
        if value._data.ndim:
            raise RuntimeError(
                "masked_fill_ only supports a 0-dimensional value tensor, but got tensor with "
                f"{value._data.ndim} dimension(s)."
            )
        if value._requires_grad and _mode.enabled or tangent_of(value) is not None:  # the value gets the
            # gradient of the filled entries (and gives them its forward-AD tangent)
            if m.shape != input._data.shape:
                ops.check_broadcast(m, input._data)
            if function == "masked_fill" and input._data.dtype.kind not in "fc":  # a new integer result
                raise RuntimeError(f"Autograd not support dtype: {dtypes.of(input._data.dtype).kind_name}")
            return ops.apply(np.where, m, value, input, name="MaskedFillBackward1", out_dtype=input._data.dtype,
                             edge_args=(1, 2))
        value = value.item()
    number = fill_values.read_number(value, ops.Tensor)
    if number is None:
        fill_values.refuse_fill_value(value, function, ("mask",))
    fill = np.asarray(fill_values.checked_number(number, input._data.dtype), dtype=input._data.dtype)
    if m.shape != input._data.shape:
        ops.check_broadcast(m, input._data)
    return ops.apply(np.where, m, fill, input, name="MaskedFillBackward0", edge_args=(2,))


def _taken(input, order, axis, name):
    values = ops.apply(np.take_along_axis, input, order, name=name, axis=axis, edge_args=(0,))
    return values, ops.Tensor._make(order.astype(np.int64))


def _scalar_taken(input, name):
    """`_taken` for a 0-d tensor: its one value, a copy (a node called `name` that passes
    the gradient through; freed after a backward, as PyTorch's keeps the indices), and
    index 0."""
    if input._data.dtype.kind in "fc":
        values = ops.apply(np.positive, input, name=name)
    else:
        values = ops.Tensor._make(input._data.copy())
    return values, ops.Tensor._make(np.zeros((), np.int64))


def sort(input, dim=-1, descending=False, stable=False):
    """`(values, indices)` sorted along `dim` (SortBackward0); ties keep their order when
    `stable`, else take PyTorch's CPU order (tie_orders.py), which the gradient follows."""
    refuse_complex("sort", input)
    x = input._data
    if x.ndim == 0:
        return _SORT(*_scalar_taken(input, "SortBackward0"))
    axis = _axis(input, dim)
    order = _order(x, axis, descending)
    if not stable:
        order = sort_order(x, axis, descending, order)
    return _SORT(*_taken(input, order, axis, "SortBackward0"))


def argsort(input, dim=-1, descending=False, stable=False):
    """The indices that sort `input` along `dim` (int64, no graph); ties as in `sort`."""
    refuse_complex("sort", input)
    x = input._data
    if x.ndim == 0:
        return ops.Tensor._make(np.zeros((), np.int64))
    axis = _axis(input, dim)
    order = _order(x, axis, descending)
    return ops.Tensor._make((order if stable else sort_order(x, axis, descending, order)).astype(np.int64))


def _order(x, axis, descending):
    """The stable order of `x` along `axis`: nan is the largest (last ascending, first
    descending), as in PyTorch."""
    if descending and x.dtype.kind == "f" and np.isnan(x).any():
        return np.lexsort((-x, ~np.isnan(x)), axis=axis)
    if descending:
        x = ~x if x.dtype == np.bool_ else -x
    return np.argsort(x, axis=axis, kind="stable")


def topk(input, k, dim=-1, largest=True, sorted=True):
    """`(values, indices)` of the `k` largest (smallest) entries along `dim`
    (TopkBackward0), largest first (smallest first); among ties, the entries PyTorch's
    CPU topk picks (tie_orders.py), which get the gradient."""
    refuse_complex("topk", input)
    x = input._data
    if x.dtype == np.bool_:
        raise RuntimeError("topk does not support bool dtypes on CPU")
    axis = _axis(input, dim)
    n = x.shape[axis] if x.ndim else 1
    if not 0 <= k <= n:
        raise RuntimeError("selected index k out of range")
    if x.ndim == 0 and k == 1:
        return _TOPK(*_scalar_taken(input, "TopkBackward0"))
    order = topk_order(x, axis, k, largest, sorted, _order(x, axis, largest)) if x.ndim else np.zeros((), np.int64)
    return _TOPK(*_taken(input, order, axis, "TopkBackward0"))


def _pieces(input, dim, sizes, name):
    x = input._data
    if x.ndim == 0:
        raise RuntimeError("split expects at least a 1-dimensional tensor")
    axis = _axis(input, dim)
    out, start = [], 0
    for size in sizes:
        key = (slice(None),) * axis + (slice(start, start + size),)
        piece = ops.apply(operator.getitem, input, key, name=name, saves=False, edge_args=(0,))
        mark_output(piece, len(out))
        out.append(piece)
        start += size
    return tuple(out)


def split(input, split_size_or_sections, dim=0):
    """Pieces of `split_size_or_sections` entries along `dim` (the last one shorter),
    or of the listed sizes (SplitBackward0, SplitWithSizesBackward0)."""
    n = input._data.shape[_axis(input, dim)] if input._data.ndim else 0
    if isinstance(split_size_or_sections, (list, tuple)):
        sizes = list(split_size_or_sections)
        if sum(sizes) != n:
            raise RuntimeError(
                f"split_with_sizes expects split_sizes to sum exactly to {n} (input tensor's size at dimension "
                f"{dim}), but got split_sizes={sizes}"
            )
        return _pieces(input, dim, sizes, "SplitWithSizesBackward0")
    size = int(split_size_or_sections)
    if size <= 0:
        raise RuntimeError(f"split_size can only be 0 if dimension size is 0, but got dimension size of {n}")
    return _pieces(input, dim, [min(size, n - s) for s in range(0, n, size)] or [0], "SplitBackward0")


def chunk(input, chunks, dim=0):
    """At most `chunks` pieces along `dim`, each of ceil(size / chunks) entries."""
    if chunks <= 0:
        raise RuntimeError("chunk expects `chunks` to be greater than 0, got: " + str(chunks))
    n = input._data.shape[_axis(input, dim)] if input._data.ndim else 0
    return split(input, max(-(-n // chunks), 1), dim)


def unbind(input, dim=0):
    """The slices of `input` along `dim`, each with that dim removed (UnbindBackward0)."""
    x = input._data
    if x.ndim == 0:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    axis = _axis(input, dim)
    # `...` last: a 1-D tensor's pieces are 0-d views, not copied scalars (writes reach input)
    pieces = []
    for i in range(x.shape[axis]):
        piece = ops.apply(operator.getitem, input, (slice(None),) * axis + (i, Ellipsis), name="UnbindBackward0",
                          saves=False, edge_args=(0,))
        mark_output(piece, i)
        pieces.append(piece)
    return tuple(pieces)


def unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None):
    """The distinct elements of `input`, flattened and sorted (also with `sorted=False`,
    as PyTorch's CPU unique), or its distinct slices along `dim` in lexicographic order;
    nan is never equal to nan. With `return_inverse`, also where each element (slice)
    went (int64, `input`'s shape, or `(input.size(dim),)`); with `return_counts`, how
    often each occurs. The values of a tensor that requires grad require grad through
    Unique2Backward0 (UniqueDimBackward0), whose backward raises, as in PyTorch."""
    refuse_complex("unique", input)
    x = input._data
    if dim is None:
        values, inverse, counts = np.unique(x.reshape(-1), return_inverse=True, return_counts=True, equal_nan=False)
        shape, name, op = x.shape, "Unique2Backward0", "_unique2"
    else:
        if x.ndim == 0:
            raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
        axis = dim_axis(dim, x.ndim) % x.ndim
        values, inverse, counts = np.unique(x, return_inverse=True, return_counts=True, axis=axis, equal_nan=False)
        shape, name, op = (x.shape[axis],), "UniqueDimBackward0", "unique_dim"
    values = ops.without_derivative(values.astype(x.dtype, copy=False), (input,), node_class(name, UndifferentiatedNode), op)
    out = (values,)
    if return_inverse:
        out += (ops.Tensor._make(inverse.astype(np.int64).reshape(shape)),)
    if return_counts:
        out += (ops.Tensor._make(counts.astype(np.int64)),)
    return out[0] if len(out) == 1 else out


class SelectionOps:
    """The Tensor methods of this module."""

    __slots__ = ()
    gather, index_select, masked_fill = gather, index_select, masked_fill
    sort, argsort, topk, split, chunk, unbind = sort, argsort, topk, split, chunk, unbind
    unique = unique
