"""The layout of a meta array: the strides and storage offset PyTorch gives the meta
tensor, kept beside the array, whose own strides are all 0 (meta_arrays.py).

A meta array made fresh is laid out contiguously (row-major) from offset 0; a view of
one (transpose, basic indexing, broadcast_to, a reshape that copies nothing, ...) gets
the layout of the same view taken of its `probe`: an ndarray of the meta array's
shape, dtype and layout at a fixed address, which NumPy's view code reads the strides
and address of and never the elements. A result that is no view (arithmetic,
concatenation, advanced indexing, a reshape that must copy) is laid out contiguously.

Invariants: a probe is never read and never leaves this module's callers (only its
strides and address are); the layout is in bytes, as NumPy's, and a layout that is not
recorded is the contiguous one.
"""

import numpy as np

__all__ = ["layout", "set_layout", "probe", "laid_out_as", "contiguous_strides", "dense_like", "unsqueezed"]

_ANCHOR = np.zeros(1, dtype=np.uint8)
_ANCHOR.flags.writeable = False
_ANCHOR_ADDRESS = _ANCHOR.__array_interface__["data"][0]


def contiguous_strides(shape, itemsize):
    """Row-major strides in bytes of `shape` (PyTorch's: a dim of size 0 or 1 counts as 1)."""
    strides, step = [], itemsize
    for n in reversed(shape):
        strides.append(step)
        step *= max(n, 1)
    return tuple(reversed(strides))


def layout(array):
    """`(strides, offset)` of the meta array `array`, both in bytes."""
    found = getattr(array, "_layout", None)
    return found if found is not None else (contiguous_strides(array.shape, array.itemsize), 0)


def set_layout(array, strides, offset):
    """Record the layout of the meta array `array` (strides and offset in bytes)."""
    array._layout = (tuple(int(s) for s in strides), int(offset))
    return array


class _Interface:
    __slots__ = ("__array_interface__",)

    def __init__(self, interface):
        self.__array_interface__ = interface


def probe(array):
    """An ndarray with `array`'s shape, dtype and layout, to take views of and read the
    views' layouts from (module doc); never to be read."""
    strides, offset = layout(array)
    return np.asarray(_Interface({"shape": array.shape, "typestr": array.dtype.str, "descr": array.dtype.descr,
                                  "data": (_ANCHOR_ADDRESS + offset, True), "strides": strides, "version": 3}))


def laid_out_as(meta, probed):
    """`meta` (a meta array, or a tuple or list of them) laid out as `probed`, the same
    view taken of probes; a result that is not an ndarray is left as it is."""
    if isinstance(meta, (tuple, list)) and isinstance(probed, (tuple, list)):
        for m, p in zip(meta, probed):
            laid_out_as(m, p)
        return meta
    if isinstance(probed, np.ndarray) and isinstance(meta, np.ndarray) and probed.shape == meta.shape:
        set_layout(meta, probed.strides, probed.__array_interface__["data"][0] - _ANCHOR_ADDRESS)
    return meta


def _dense(shape, steps):
    """Whether strides `steps` (in elements) lay `shape` out without gaps or overlaps, in
    some order of the dims (PyTorch's is_non_overlapping_and_dense)."""
    expected = 1
    for n, step in sorted(((n, s) for n, s in zip(shape, steps) if n != 1), key=lambda d: d[1]):
        if step != expected:
            return False
        expected *= n
    return True


def dense_like(result, operands):
    """The elementwise result `result` (a fresh meta array) laid out as the first of its
    array operands of its shape when that one is laid out densely (a transpose stays
    transposed, as PyTorch's TensorIterator keeps it) and no dim has size 1; else left
    contiguous."""
    first = next((x for x in operands if isinstance(x, np.ndarray) and x.shape == result.shape and x.ndim), None)
    if first is None or getattr(first, "_layout", None) is None or 1 in result.shape:  # (PyTorch's: contiguous)
        return result
    steps = tuple(s // first.itemsize for s in layout(first)[0])
    if not _dense(result.shape, steps):
        return result
    return set_layout(result, tuple(s * result.itemsize for s in steps), 0)


def unsqueezed(array, dims):
    """The meta array `array` with the strides of its new size-1 dims `dims` set as
    PyTorch's unsqueeze sets them: the extent of the next dim (1 for a last dim)."""
    strides, offset = layout(array)
    strides = list(strides)
    for dim in sorted(dims, reverse=True):
        strides[dim] = array.itemsize if dim == array.ndim - 1 else array.shape[dim + 1] * strides[dim + 1]
    return set_layout(array, strides, offset)
