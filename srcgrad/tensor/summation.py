"""The sum of all elements of a float tensor in PyTorch's CPU order of additions.

NumPy's pairwise summation and PyTorch's cascade sum round differently, so a loss
printed in full (`print(t, loss.item())` in "Learning PyTorch with Examples") differed
in its last digits for most tensors of eight elements or more. PyTorch's kernel
(SumKernel.cpp, `cascade_sum`) for a contiguous tensor of n elements:

* n >= W, W the elements of a 32-byte vector (8 float32, 4 float64): the first
  `n // W` vectors are summed lane by lane (`row_sum`: four interleaved accumulators over
  groups of four vectors, summed in cascade levels of `2**max(4, ceil(log2(rows)) // 4)`
  rows; the left-over vectors go into the first accumulator; then the four are added in
  order); the tail elements are added one by one from zero, then the W lanes in order.
* n < W: the same `row_sum`, with scalars in place of vectors.

Invariant: `pytorch_sum(x)` equals PyTorch's `x.sum()` bit for bit for C-contiguous
float32 and float64 arrays of up to 32768 elements (checked against PyTorch 2.13);
larger ones are split across threads by PyTorch, and get NumPy's sum here.
"""

import math

import numpy as np

__all__ = ["pytorch_sum"]

_VECTOR_BYTES = 32
_SERIAL_LIMIT = 32768  # PyTorch's grain size: above it the reduction is split across threads
_ILP = 4
_LEVELS = 4


def _cascade(rows):
    """`multi_row_sum`: the sum over axis 0 of `rows` (shape (size, ...)), in levels."""
    size = rows.shape[0]
    power = max(4, (math.ceil(math.log2(size)) if size > 1 else 0) // _LEVELS)
    step, mask = 1 << power, (1 << power) - 1
    acc = np.zeros((_LEVELS,) + rows.shape[1:], rows.dtype)
    i = 0
    while i + step <= size:
        acc[0] = np.add.reduce(rows[i : i + step], axis=0)  # row by row, from the first
        i += step
        for j in range(1, _LEVELS):
            acc[j] += acc[j - 1]
            acc[j - 1] = 0
            if i & (mask << (j * power)):
                break
    for k in range(i, size):
        acc[0] += rows[k]
    for j in range(1, _LEVELS):
        acc[0] += acc[j]
    return acc[0]


def _row_sum(items):
    """`row_sum`: the sum over axis 0 of `items` with four interleaved accumulators."""
    size = items.shape[0]
    groups = size // _ILP
    if groups:
        partial = _cascade(items[: groups * _ILP].reshape((groups, _ILP) + items.shape[1:]))
    else:
        partial = np.zeros((_ILP,) + items.shape[1:], items.dtype)
    for k in range(groups * _ILP, size):
        partial[0] += items[k]
    for k in range(1, _ILP):
        partial[0] += partial[k]
    return partial[0]


# `_row_sum` of fewer than `_ILP` elements adds them one by one from 0, then adds the three
# other accumulators, zeros. NumPy's running sum (`np.add.accumulate`: x0, x0 + x1, ...
# in the array's dtype) starts from x0 instead of 0 + x0, which differs only in the sign of
# a zero while the sum is zero; adding +0 at the end, as `_row_sum` does, makes any zero
# +0 and changes nothing else: the same value, bit for bit, without `_row_sum`'s loops.
_accumulate = np.add.accumulate
_ZEROS = {4: np.float32(0.0), 8: np.float64(0.0)}  # by itemsize: the +0 of the dtype


def pytorch_sum(x):
    """The sum of all elements of the ndarray `x` as PyTorch computes it (NumPy's sum where
    PyTorch's order is not reproduced: other dtypes, non-contiguous or large arrays)."""
    if x.dtype.kind != "f" or x.dtype.itemsize not in (4, 8) or not x.flags.c_contiguous or x.size > _SERIAL_LIMIT:
        return np.add.reduce(x, None)
    flat = x.reshape(-1)
    width = _VECTOR_BYTES // x.dtype.itemsize
    if flat.size < width:
        if 0 < flat.size < _ILP:  # `_row_sum`'s (((0 + x0) + x1) + x2) + 0 + 0 + 0, see _running_sum
            return _accumulate(flat)[-1] + _ZEROS[x.dtype.itemsize]
        return x.dtype.type(_row_sum(flat))
    vectors = flat.size // width
    lanes = _row_sum(flat[: vectors * width].reshape(vectors, width))
    total = x.dtype.type(0)
    for value in flat[vectors * width :]:
        total = total + value
    for value in lanes:
        total = total + value
    return total
