"""Indexing of `Tensor`: `x[index]` (a view for a basic index: SelectBackward0,
SliceBackward0, ...; IndexBackward0 for an advanced one) and `x[index] = value`, as a
mixin of the Tensor class.

`x[index] = value` is recorded as PyTorch's copy_to records it: `copy_` or `fill_` into
the view `x[index]` (views.py: x becomes the output of a CopySlices node) or into x
itself for a full index, and one IndexPutBackward0 node for an advanced index; PyTorch's
errors, in PyTorch's order (the value's shape, a leaf that requires grad, a value
overlapping the elements written).
"""

import operator
import re

import numpy as np

from ..rules.scatter import index_put
from . import binary_ops, ops
from .grad_mode import _mode
from .inplace import E11
from .overlap import OVERLAP, dense
from .shaping import ShapeOps, _expanded_shape
from .versions import bump

__all__ = ["IndexingOps"]


def _index(index):
    """A NumPy index from a PyTorch one (tensors become arrays); PyTorch's IndexError for
    a tensor index that holds neither integers nor booleans, and its ValueError for a
    slice stepping backwards (NumPy would reverse)."""
    if isinstance(index, ShapeOps):
        return _index_array(index._data)
    if isinstance(index, tuple):
        return tuple(_index_array(i._data) if isinstance(i, ShapeOps) else _stepped(i) for i in index)
    return _stepped(index)


def _stepped(index):
    if type(index) is slice and index.step is not None and operator.index(index.step) <= 0:
        raise ValueError("slice step cannot be zero" if index.step == 0 else "step must be greater than zero")
    return index


def _index_array(data):
    if data.dtype.kind not in "biu":
        raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
    return data


def _fitted(value, target, advanced):
    """`value` as `x[index] = value` writes it into a part of shape `target`: a tensor's
    leading dims of size 1 dropped (a recorded reshape, as PyTorch drops them all);
    PyTorch's errors where it does not broadcast to the part."""
    if not isinstance(value, ShapeOps):
        return value
    shape = value._data.shape
    lead = 0
    while lead < len(shape) and shape[lead] == 1:
        lead += 1
    if lead:
        value = value.reshape(shape[lead:])
    try:
        fits = np.broadcast_shapes(value._data.shape, target) == tuple(target)
    except ValueError:
        fits = False
    if not fits:
        if advanced:  # index_put's message
            raise RuntimeError(f"shape mismatch: value tensor of shape {list(shape)} cannot be broadcast to indexing "
                               f"result of shape {list(target)}")
        _expanded_shape(value, target)
    return value


def _index_name(index):
    """PyTorch's node for `x[index]`: decided by the last component that does work."""
    parts = index if isinstance(index, tuple) else (index,)
    if any(isinstance(p, (np.ndarray, list)) for p in parts):
        return "IndexBackward0", True
    for p in reversed(parts):
        if p is None:
            return "UnsqueezeBackward0", False
        if isinstance(p, slice) and p != slice(None):
            return "SliceBackward0", False
        if isinstance(p, (int, np.integer)):
            return "SelectBackward0", False
    return "AliasBackward0", False


def _advanced_dim(index, ndim, axis):
    """The dim PyTorch names for an out-of-range entry of an index array that NumPy found
    at `axis` of an `ndim`-dim array: the array's number among the index's arrays (`axis`
    itself when the index has no array there)."""
    parts = index if isinstance(index, tuple) else (index,)
    consuming = sum(1 for p in parts if p is not None and p is not Ellipsis)
    at, arrays = 0, 0
    for p in parts:
        if p is Ellipsis:
            at += ndim - consuming
        elif p is None:
            continue
        else:
            if isinstance(p, (list, np.ndarray)) and np.asarray(p).dtype.kind != "b":
                if at == axis:
                    return arrays
                arrays += 1
            at += 1
    return axis


def _refuse_overlap(array, key, value):
    """PyTorch's error for `x[key] = value` (arrays, both dense) where `value` partly
    overlaps the elements written: for an advanced index, any overlap of the value (but
    a one-element value through one bool mask);
    for a basic one, an overlap other than the same elements (a value that does not fit
    the part is left to the shape's error)."""
    if not np.may_share_memory(array, value):
        return
    if _index_name(key)[1]:
        mask = isinstance(key, np.ndarray) and key.dtype == np.bool_ or (
            isinstance(key, list) and key and all(isinstance(k, bool) for k in key))
        if (mask and np.size(value) == 1) or not (dense(array) and dense(value)):
            return  # masked_fill_ reads its one value first; PyTorch does not judge a sparse layout
    else:
        target = array[None if key is True else key]  # NumPy copies for True; PyTorch's is a view
        lead = 0
        while lead < value.ndim and value.shape[lead] == 1:
            lead += 1
        # one element of one or more dims, of another shape than the part (not 0-d):
        # PyTorch's view of it is 0-d, expanded to the part it overlaps it partly
        single = lead == value.ndim > 0 and target.ndim and value.shape != target.shape
        value = value.reshape(value.shape[lead:])  # PyTorch's view of it
        try:
            fits = np.broadcast_shapes(value.shape, target.shape) == target.shape
        except ValueError:
            fits = False
        if not fits or not np.may_share_memory(target, value):
            return
        spread = np.broadcast_to(value, target.shape)  # what is copied: the same elements is no overlap
        if not single and not (dense(target) and dense(spread)):
            return  # an expanded value, or a strided part: PyTorch does not judge it
        if not single and target.__array_interface__["data"][0] == spread.__array_interface__["data"][0] and all(
            n == 1 or a == b for n, a, b in zip(target.shape, target.strides, spread.strides)
        ):
            return
    raise RuntimeError(OVERLAP)


def _copy_to(target, value):
    """Write the tensor or number `value` into `target`, as PyTorch's `x[index] = value`
    writes into the part `target`: `copy_` of a value of target's shape (CopyBackwards),
    `fill_` of a one-element value (FillBackward3), else `copy_` of the value less its
    leading dims of size 1 (a view), expanded to target's shape."""
    shape = value._data.shape if isinstance(value, ShapeOps) else ()
    if shape == target._data.shape:
        target._overwrite(value, "CopyBackwards")
    elif not shape:
        target._overwrite(value, "FillBackward3")
    else:
        value = _fitted(value, target._data.shape, False)
        if value._data.shape != target._data.shape:
            value = value.expand(target._data.shape)
        target._overwrite(value, "CopyBackwards")


def _index_put(source, key, value):
    """`source` with `value` written at the advanced index `key`: one IndexPutBackward0
    node, with edges for `source` and `value` (none for the index). It keeps no version
    of `value`: as PyTorch's, its backward reads only the value's shape."""
    out = ops.apply(index_put, source, key, value, name="IndexPutBackward0", edge_args=(0, 2))
    out._grad_fn.versions = ()
    return out



def _refuse_index_put_dtype(self, key, value):
    """PyTorch's error for an advanced-index write (index_put_) of a tensor of another
    dtype; a bool mask with a one-element value is masked_fill_, which casts it."""
    if not _index_name(key)[1] or (isinstance(key, np.ndarray) and key.dtype == np.bool_ and value._data.size == 1):
        return
    shape, target = value._data.shape, self._data[key].shape
    try:
        if np.broadcast_shapes(shape[next((i for i, n in enumerate(shape) if n != 1), len(shape)):], target) != target:
            return  # the shape mismatch is reported first
    except ValueError:
        return
    raise RuntimeError(
        f"Index put requires the source and destination dtypes match, got {self.dtype.kind_name} for the "
        f"destination and {value.dtype.kind_name} for the source."
    )


def _in_dimensions(error, index, ndim):
    """NumPy's IndexError for an index out of bounds as PyTorch words it ("dimension",
    not "axis", counted as PyTorch counts the dims of an advanced index)."""
    found = re.match(r"^(index -?\d+ is out of bounds for) axis (\d+)( with size \d+)$", str(error))
    if found is None:
        if str(error).startswith("too many indices for array"):
            return IndexError(_too_many(index, ndim))
        return IndexError(str(error))
    dim = _advanced_dim(_index(index), ndim, int(found.group(2)))
    return IndexError(f"{found.group(1)} dimension {dim}{found.group(3)}")


_ALL = slice(None)

E_ZERO_DIM = (
    "invalid index of a 0-dim tensor. Use `tensor.item()` in Python or `tensor.item<T>()` in C++ "
    "to convert a 0-dim tensor to a number"
)


def _too_many(index, ndim):
    """PyTorch's message for an index with more entries than the tensor has dimensions
    (`loss.data[0]` of old tutorials meets the first)."""
    if ndim == 0 and isinstance(index, (int, np.integer)) and not isinstance(index, (bool, np.bool_)):
        return E_ZERO_DIM if index >= 0 else f"index {index} is out of bounds for dimension 0 with size 0"
    if ndim == 0 and isinstance(index, slice):
        return "slice() cannot be applied to a 0-dim tensor."
    return f"too many indices for tensor of dimension {ndim}"


class IndexingOps:
    """`x[index]` and `x[index] = value` of `Tensor` (a ShapeOps)."""

    __slots__ = ()

    def __getitem__(self, index):
        # An index of integers alone gets a trailing `...`: NumPy then returns a 0-d view,
        # not a copied scalar, so an in-place write into `x[0]` reaches x (as in PyTorch).
        asked = index
        try:
            if type(index) is int:  # the commonest index: x[i]
                key = (index, Ellipsis)
                return ops.view_op(operator.getitem, self, "SelectBackward0", (key,), self._data[key])
            if type(index) is slice and index.step is None:  # x[i:j]: basic indexing, always a view
                return ops.view_op(operator.getitem, self, "AliasBackward0" if index == _ALL else "SliceBackward0",
                                   (index,), self._data[index])
            index = _index(index)
            name, advanced = _index_name(index)
            if isinstance(index, (int, np.integer)):
                index = (index, Ellipsis)
            elif isinstance(index, tuple) and all(isinstance(i, (int, np.integer)) for i in index):
                index = index + (Ellipsis,)
            return ops.apply(operator.getitem, self, index, name=name, saves=advanced, edge_args=(0,))
        except IndexError as e:
            raise _in_dimensions(e, asked, self._data.ndim) from None

    def __setitem__(self, index, value):
        try:
            self._setitem(index, value)
        except IndexError as e:
            raise _in_dimensions(e, index, self._data.ndim) from None

    def _setitem(self, index, value):
        """`self[index] = value`; with grad mode on and self or a value that requires grad,
        recorded as PyTorch records it: a write (`_copy_to`) into the view `self[index]`,
        so that self becomes the output of a CopySlices node, or into self itself when
        the index takes all of it; an advanced index into a float tensor is one
        IndexPutBackward0 node."""
        value = binary_ops.operand(value)
        if _mode.enabled and self._requires_grad and self._grad_fn is None:  # PyTorch's order of checks
            key = _index(index)
            name, advanced = _index_name(key)
            if not advanced:  # copy_to's expand; index_put_ checks the leaf first
                _fitted(value, self._data[key].shape, False)
            raise RuntimeError(E11 if advanced or name == "AliasBackward0" else "a view of " + E11)
        if isinstance(value, ShapeOps):
            _refuse_overlap(self._data, _index(index), value._data)
            if value._data.dtype != self._data.dtype:
                _refuse_index_put_dtype(self, _index(index), value)
        tracked = self._requires_grad or (isinstance(value, ShapeOps) and value._requires_grad)
        if _mode.enabled and tracked:
            key = _index(index)
            name, advanced = _index_name(key)
            if not advanced:
                _copy_to(self if name == "AliasBackward0" else self[index], value)
                return
            if self._data.dtype.kind in "fc":
                self._become(lambda source: _index_put(source, key, _fitted(value, source._data[key].shape, True)))
                return
        data = value._data if isinstance(value, ShapeOps) else value
        if type(data) is np.ndarray and data.ndim and data.size == 1:
            data = data.reshape(())  # PyTorch drops leading size-1 dims; NumPy deprecates reading one as a scalar
        try:
            self._data[_index(index)] = data
        except ValueError:
            if not self._data.flags.writeable and 0 in self._data.strides:  # expanded
                if self._data[_index(index)].size:
                    self._store(data)  # PyTorch's error for it
                bump(self)
                return
            # PyTorch drops a value's leading size-1 dims first (`x[0] = t` with t of shape
            # (1,)), then expands it to the target's shape, with expand's errors.
            shape = np.shape(data)
            lead = next((i for i, n in enumerate(shape) if n != 1), len(shape))
            data = np.reshape(data, shape[lead:])
            if isinstance(value, ShapeOps):
                target = self._data[_index(index)].shape
                if _index_name(_index(index))[1]:  # advanced: index_put's message
                    try:
                        fits = np.broadcast_shapes(data.shape, target) == target
                    except ValueError:
                        fits = False
                    if not fits:
                        raise RuntimeError(
                            f"shape mismatch: value tensor of shape {list(shape)} cannot be broadcast to indexing "
                            f"result of shape {list(target)}"
                        ) from None
                _expanded_shape(type(self)._make(np.asarray(data)), target)
            self._data[_index(index)] = data
        bump(self)
