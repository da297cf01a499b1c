"""`as_strided` (function and Tensor method), as PyTorch's: a view of the input's memory
(its storage: the memory its base owns, read in elements) with the given sizes,
strides and storage offset, all in elements.

Invariants: the result's entry (i_0, ..., i_k) is storage[offset + sum(i_j * stride_j)];
it shares memory with the input (a view of the input's base, AsStridedBackward0) where
the base owns the memory it lies in, else it is a copy. Its gradient is PyTorch's: the
output's gradient added at its storage positions, then read at the input's own
positions (split evenly among input entries that share a position, as in an expanded
input); entries read from storage outside the input get none. It is Tensor code over
indexing, index_add and `where`, so derivatives of any order come from their rules.
"""

import operator

import numpy as np

from . import ops
from .pointwise import where
from .memory_facts import _address, _root
from .views import note_view, view_of
from .grad_mode import _mode
from .meta_arrays import MetaArray, meta_array
from .meta_layouts import layout, set_layout

__all__ = ["as_strided", "StridedOps"]


def _ints(values, name, position):
    values = (values,) if isinstance(values, int) else tuple(values)
    for at, v in enumerate(values):
        if isinstance(v, bool) or not hasattr(v, "__index__"):
            raise TypeError(f"as_strided(): argument '{name}' (position {position}) must be tuple of ints, but found "
                            f"element of type {type(v).__name__} at pos {at}")
    return tuple(operator.index(v) for v in values)


def _storage(data):
    """The memory `data` lies in as a 1-D array of its elements, the storage position of
    `data`'s first element, and whether that array is the memory itself (else a copy of
    `data`, at position 0: the memory is no contiguous array of `data`'s dtype)."""
    root = _root(data)
    if root.dtype != data.dtype or not (root.flags.c_contiguous or root.flags.f_contiguous):
        return np.ascontiguousarray(data).reshape(-1), 0, False
    return root.reshape(-1, order="A"), (_address(data) - _address(root)) // data.itemsize, True  # a view


def _positions(start, shape, steps):
    """The storage position of each entry of a layout (`steps` in elements)."""
    found = np.full(shape, start, dtype=np.int64)
    for axis, (n, step) in enumerate(zip(shape, steps)):
        found += (np.arange(n, dtype=np.int64) * step).reshape((1,) * axis + (-1,) + (1,) * (len(shape) - axis - 1))
    return found


def _strided(x, own, read, storage):
    """Tensor code for the values at storage positions `read`, x's entries lying at `own`."""
    if storage.dtype.kind not in "fc":  # no gradient: the values alone
        return ops.Tensor._make(storage[read])
    flat, own = x.reshape(-1), own.reshape(-1)
    counts = np.bincount(own, minlength=storage.size)
    covered = counts[read] > 0
    if own.size and counts.max() > 1:  # entries sharing memory: their mean, so that each gets its share
        spread = ops.Tensor._make(np.zeros(storage.size, dtype=storage.dtype))
        out = spread.index_add(0, ops.Tensor._make(own), flat / ops.Tensor._make(counts[own].astype(storage.dtype)))
        out = out[ops.Tensor._make(read)]
    else:
        entry = np.zeros(storage.size, dtype=np.int64)
        entry[own] = np.arange(own.size)
        out = flat[ops.Tensor._make(entry[read])] if own.size else ops.Tensor._make(storage[read])
    if covered.all():
        return out
    return where(ops.Tensor._make(covered), out, ops.Tensor._make(storage[read]))


def as_strided(input, size, stride, storage_offset=None):
    """The view of input's storage with sizes `size` and strides `stride` (in elements),
    starting `storage_offset` elements in (input's own offset by default)."""
    size, stride = _ints(size, "size", 1), _ints(stride, "stride", 2)
    if len(size) != len(stride):
        raise RuntimeError("mismatch in length of strides and shape")
    if any(s < 0 for s in stride):
        raise RuntimeError(f"as_strided: Negative strides are not supported at the moment, got strides: {list(stride)}")
    if any(n < 0 for n in size):
        raise RuntimeError(f"Storage size calculation overflowed with sizes={list(size)} and strides={list(stride)}")
    data = input._data
    if type(data) is MetaArray:
        return _meta_strided(input, size, stride, storage_offset)
    storage, own_start, shared = _storage(data)
    offset = own_start if storage_offset is None else operator.index(storage_offset)
    if offset < 0:
        raise RuntimeError(f"Tensor: invalid storage offset {offset}")
    needed = offset + sum((n - 1) * s for n, s in zip(size, stride)) + 1 if all(size) else 0
    if needed > storage.size:
        item = data.itemsize
        raise RuntimeError(f"setStorage: sizes {list(size)}, strides {list(stride)}, storage offset {offset}, and "
                           f"itemsize {item} requiring a storage size of {needed * item} are out of bounds for "
                           f"storage of size {storage.size * item}")
    own = _positions(own_start, data.shape, tuple(s // data.itemsize for s in data.strides))
    read = _positions(offset, size, stride)
    out = ops.composite("AsStridedBackward0", _strided, input, own, read, storage, _saves=False)
    made = view_of(input)
    base = input if made is None else made.base
    if shared and _root(data) is base._data:  # the base owns the memory: the result is its view
        start = offset if all(size) else min(offset, storage.size)
        view = np.ndarray(size, data.dtype, buffer=storage, offset=start * data.itemsize,
                          strides=tuple(s * data.itemsize for s in stride))
        view.flags.writeable = data.flags.writeable
        out._data = view
        note_view(out, input, "AsStridedBackward0")
    return out


def _meta_strided(input, size, stride, storage_offset):
    """`as_strided` of a meta tensor: a meta view laid out by `size`, `stride` and the
    offset (input's own by default), unchecked against the storage, as PyTorch's meta
    kernel does."""
    if input._requires_grad and _mode.enabled:
        raise NotImplementedError("as_strided of a meta tensor that requires grad is not supported by the shim: "
                                  "call it on input.detach(), or on a CPU tensor")
    data = input._data
    offset = layout(data)[1] // data.itemsize if storage_offset is None else operator.index(storage_offset)
    if offset < 0:
        raise RuntimeError(f"Tensor: invalid storage offset {offset}")
    out = ops.Tensor._make(set_layout(meta_array(size, data.dtype), [s * data.itemsize for s in stride],
                                      offset * data.itemsize))
    note_view(out, input, "AsStridedBackward0")
    return out


class StridedOps:
    """The Tensor method of this module."""

    __slots__ = ()
    as_strided = as_strided
