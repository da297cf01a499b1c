"""The values of `arange` and `linspace`, computed as PyTorch's CPU kernels compute them.

NumPy's `arange` and `linspace` round differently, so about a third of the float32
values of `linspace(-pi, pi, 2000)` differed from PyTorch's in the last bit, and with
them every loss a tutorial prints from `sin(x)`. PyTorch's kernels:

* `linspace`: `step = (end - start) / (steps - 1)` in the output dtype; element `i` is
  `fma(step, i, start)` for `i < steps // 2` and `fma(-step, steps - 1 - i, end)` after.
* `arange`: start and step in float64; element `i` is `fma(step, i, start)`, except
  inside the vectorized blocks (pairs of 32-byte vectors, AVX2 width), where element
  `base + j` is `base_value + j * step`, `base_value` being the block's first element
  already rounded to the output dtype.

Invariant: the results are exactly PyTorch's for float32 and float64 on x86 (checked on
random ranges against PyTorch 2.13); fused multiply-adds are emulated exactly enough
with error-free products and sums in float64.
"""

import math

import numpy as np

__all__ = ["arange_values", "linspace_values"]

_VECTOR_BYTES = 32
_SPLITTER = 134217729.0  # 2**27 + 1, Veltkamp's split of a float64 into two 26-bit halves


def _split(x):
    t = _SPLITTER * x
    high = t - (t - x)
    return high, x - high


def _fused_multiply_add(a, b, c):
    """a * b + c with (almost always) a single rounding, elementwise on float64 arrays."""
    product = a * b
    a_high, a_low = _split(a)
    b_high, b_low = _split(b)
    product_error = ((a_high * b_high - product) + a_high * b_low + a_low * b_high) + a_low * b_low
    total = product + c
    back = total - product
    sum_error = (product - (total - back)) + (c - back)
    return total + (product_error + sum_error)


def linspace_values(start, end, steps, dtype):
    """`steps` values from `start` to `end` in NumPy dtype `dtype`, as PyTorch's linspace."""
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    dtype = np.dtype(dtype)
    if dtype.kind not in "fiu" or steps == 0:
        return np.linspace(start, end, steps).astype(dtype)
    if dtype.kind == "f":
        first, last = dtype.type(start), dtype.type(end)
        if steps == 1:
            return np.array([first], dtype=dtype)
        step = dtype.type(dtype.type(last - first) / dtype.type(steps - 1))
    else:  # integer output: the arithmetic is in float64, truncated at the end
        first, last = float(int(start)), float(int(end))
        if steps == 1:
            return np.array([first]).astype(dtype)
        step = (last - first) / (steps - 1)
    i = np.arange(steps, dtype=np.float64)
    step, first, last = np.float64(step), np.float64(first), np.float64(last)
    rising = _fused_multiply_add(np.full(steps, step), i, first)
    falling = _fused_multiply_add(np.full(steps, -step), steps - 1 - i, last)
    return np.where(i < steps // 2, rising, falling).astype(dtype)


def arange_values(start, end, step, dtype):
    """The values of `arange(start, end, step)` in NumPy dtype `dtype`, as PyTorch's arange."""
    dtype = np.dtype(dtype)
    if dtype.kind != "f":
        return np.arange(start, end, step).astype(dtype)
    start, end, step = float(start), float(end), float(step)
    n = max(int(math.ceil((end - start) / step)), 0)
    i = np.arange(n, dtype=np.float64)
    values = _fused_multiply_add(np.full(n, step), i, np.full(n, start)).astype(dtype)
    width = _VECTOR_BYTES // dtype.itemsize
    blocked = (n // (2 * width)) * (2 * width)
    k = np.arange(blocked)
    base = values[k - k % width].astype(np.float64)
    offsets = (k % width).astype(np.float64)
    values[:blocked] = _fused_multiply_add(offsets, np.full(blocked, step), base).astype(dtype)
    return values


def logspace_values(start, end, steps, base, dtype):
    """`steps` powers of `base` from base ** start to base ** end in NumPy dtype `dtype`,
    as PyTorch's logspace: start, end and `end - start` in the (floating) dtype; then
    in float64 `step = (end - start) / (steps - 1)`, the exponent `start + step * i`
    for `i < steps // 2` and `end - step * (steps - 1 - i)` after, and C's pow
    `base ** exponent`, rounded to the dtype (an integer dtype truncates start, end)."""
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    dtype = np.dtype(dtype)
    if dtype.kind not in "fiu" or steps == 0:
        return np.logspace(start, end, steps, base=base).astype(dtype)
    if dtype.kind == "f":  # start, end and their difference rounded to the dtype
        first, last = dtype.type(start), dtype.type(end)
        step = float(dtype.type(last - first)) / max(steps - 1, 1)
        first, last = float(first), float(last)
    else:
        first, last = float(int(start)), float(int(end))
        step = (last - first) / max(steps - 1, 1)
    if steps == 1:  # PyTorch's fill with base ** start, start not rounded
        first = float(start)
    i = np.arange(steps, dtype=np.float64)
    exponent = np.where((i < steps // 2) | (steps == 1), first + step * i, last - step * (steps - 1 - i))
    with np.errstate(over="ignore", invalid="ignore"):  # out of an integer dtype's range, as PyTorch: no warning
        powers = np.array([_pow_or_inf(float(base), e) for e in exponent.tolist()], dtype=np.float64)
        return powers.astype(dtype)


def _pow_or_inf(base, exponent):
    """C's pow (NumPy's vectorized power can differ by one ulp): inf where it overflows."""
    try:
        return math.pow(base, exponent)
    except OverflowError:
        return math.inf
