"""PyTorch's checks of writes whose source shares memory with what they write.

PyTorch judges only tensors whose elements fill a block of memory, each once
(`dense`); for others it cannot tell cheaply and lets the write go ahead. Two dense
tensors overlap fully when they are the same elements in the same order (a write of a
tensor into itself: allowed), partly when their memory blocks meet otherwise.
`refuse_partial_overlap` raises PyTorch's error for the second, as its in-place
arithmetic and `copy_` do, before anything is written.
"""

import numpy as np

OVERLAP = (
    "unsupported operation: some elements of the input tensor and the written-to tensor refer to a single memory "
    "location. Please clone() the tensor before performing the operation."
)


def dense(array):
    """Whether the elements of `array` fill a block of memory, each once (PyTorch's
    is_non_overlapping_and_dense, which its overlap checks need)."""
    expected = array.itemsize
    for stride, n in sorted((abs(st), n) for n, st in zip(array.shape, array.strides) if n != 1):
        if stride != expected:
            return False
        expected *= n
    return True


def _span(array):
    """The memory block [start, end) that the elements of `array` lie in."""
    start = end = array.__array_interface__["data"][0]
    for n, stride in zip(array.shape, array.strides):
        if stride < 0:
            start += (n - 1) * stride
        else:
            end += (n - 1) * stride
    return start, end + array.itemsize


def refuse_partial_overlap(out, src):
    """PyTorch's RuntimeError where writing the array `src` (the operand of an in-place
    op or copy_, before broadcasting) into the array `out` reads elements that the write
    changes: both dense, their memory blocks meet, and they are not the same elements."""
    if out is src or not out.size or not src.size:
        return
    if out.base is None and src.base is None:
        return  # two arrays owning their memory: apart
    if not np.may_share_memory(out, src) or not (dense(out) and dense(src)):
        return
    (a0, a1), (b0, b1) = _span(out), _span(src)
    if a1 <= b0 or b1 <= a0:
        return
    if a0 == b0 and out.shape == src.shape and all(
        n == 1 or s == t for n, s, t in zip(out.shape, out.strides, src.strides)
    ):
        return  # the same elements
    raise RuntimeError(OVERLAP)
