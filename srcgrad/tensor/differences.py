"""Differences and integrals along a dim: diff, trapezoid (trapz) and
cumulative_trapezoid.

Each is PyTorch's composition of Tensor ops, so its nodes are PyTorch's: diff
subtracts neighbouring slices n times (SubBackward0; bool tensors: logical xor);
trapezoid with a spacing `dx` is (sum - (first + last) / 2) * dx (MulBackward1), with
sample points `x` the sum of dx * (left + right), halved (DivBackward1);
cumulative_trapezoid the running sums of the same terms (CumsumBackward0, DivBackward1).
None holds calculus. Checks and messages are PyTorch's.
"""

import numbers
import operator

import numpy as np

from . import binary_ops, ops
from .dtypes import dim_axis
from .joins import cat

__all__ = ["diff", "trapezoid", "trapz", "cumulative_trapezoid", "DifferenceOps"]


def _neighbour_difference(x, axis):
    length = x._data.shape[axis]
    right, left = x.narrow(axis, min(1, length), max(length - 1, 0)), x.narrow(axis, 0, max(length - 1, 0))
    if x._data.dtype == np.bool_:
        return ops.Tensor._make(np.logical_xor(right._data, left._data))
    return right - left


def _copy(x):
    return x.clone()


def diff(input, n=1, dim=-1, prepend=None, append=None):
    """The n-th forward difference along `dim` (out[i] = x[i + 1] - x[i], n times), after
    joining `prepend` and `append` (tensors of input's dims) to input along that dim."""
    nd = input._data.ndim
    if nd == 0:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    if n < 0:
        raise RuntimeError(f"order must be non-negative but got {n}")
    axis = dim_axis(dim, nd) % nd
    for extra in (prepend, append):
        if extra is not None and extra._data.ndim != nd:
            raise RuntimeError("diff expects prepend or append to be the same dimension as input")
    if prepend is not None or append is not None:
        input = cat([t for t in (prepend, input, append) if t is not None], axis)
    if n == 0:
        return ops.composite("CopyBackwards", _copy, input, _saves=False)
    if input._data.shape[axis] == 0:  # nothing to subtract: PyTorch records no node
        return ops.Tensor._make(input._data.copy())
    out = input
    for _ in range(n):
        out = _neighbour_difference(out, axis)
    return out


def _sample_spacings(y, x, axis, name):
    """x - its left neighbour along `axis`, x viewed to broadcast against y (PyTorch's rule:
    a 1-d x lies along `axis`, a shorter one is padded with leading dims)."""
    if x._data.ndim == 1:
        if x._data.shape[0] != y._data.shape[axis]:
            raise RuntimeError(f"{name}: There must be one `x` value for each sample point")
        shape = [1] * y._data.ndim
        shape[axis] = x._data.shape[0]
        x = x.view(shape)
    elif x._data.ndim < y._data.ndim:
        x = x.view((1,) * (y._data.ndim - x._data.ndim) + x._data.shape)
    length = x._data.shape[axis]
    return x.narrow(axis, 1, length - 1) - x.narrow(axis, 0, length - 1)


def _check_y(name, y, x, dx):
    if x is not None and dx is not None:
        raise TypeError(
            f"{name}() received an invalid combination of arguments - got (Tensor, Tensor, dx={type(dx).__name__}), but "
            f"expected one of:\n * (Tensor y, Tensor x, *, int dim = -1)\n * (Tensor y, *, Number dx = 1, int dim = -1)\n"
        )
    if y._data.dtype == np.bool_ or (x is not None and x._data.dtype == np.bool_):
        raise RuntimeError(f"{name}: received a bool input for `{'y' if y._data.dtype == np.bool_ else 'x'}`, but bool is not supported")


def _axis(y, dim):
    if y._data.ndim == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    return dim_axis(dim, y._data.ndim) % y._data.ndim


def _empty_integral(y, axis):
    from .creation import zeros

    shape = y._data.shape[:axis] + y._data.shape[axis + 1:]
    return zeros(shape, dtype=y.dtype if y._data.dtype.kind == "f" else None)


def trapezoid(y, x=None, *, dx=None, dim=-1):
    """The integral of `y` along `dim` by the trapezoid rule, samples `dx` apart (default
    1) or at the points `x`; no samples integrate to 0."""
    _check_y("trapezoid", y, x, dx)
    axis = _axis(y, dim)
    if y._data.shape[axis] == 0:
        return _empty_integral(y, axis)
    if x is not None:
        spacings = _sample_spacings(y, x, axis, "trapezoid")
        length = y._data.shape[axis]
        pairs = y.narrow(axis, 1, length - 1) + y.narrow(axis, 0, length - 1)
        return binary_ops.binary(operator.truediv, (spacings * pairs).sum(axis), 2.0, "DivBackward1", floating=True)
    dx = 1 if dx is None else dx
    if isinstance(dx, (bool, complex)) or not isinstance(dx, numbers.Real):
        raise RuntimeError("trapezoid: Currently, we only support dx as a real number.")
    ends = binary_ops.binary(operator.mul, y.select(axis, 0) + y.select(axis, -1), 0.5, "MulBackward1", floating=True)
    return binary_ops.binary(operator.mul, y.sum(axis) - ends, float(dx), "MulBackward1", floating=True)


trapz = trapezoid


def cumulative_trapezoid(y, x=None, *, dx=None, dim=-1):
    """The running integrals of `y` along `dim` by the trapezoid rule: entry i integrates
    from the first sample to sample i + 1."""
    _check_y("cumulative_trapezoid", y, x, dx)
    axis = _axis(y, dim)
    length = y._data.shape[axis]
    if length == 0:
        return ops.Tensor._make(np.zeros(y._data.shape, y._data.dtype if y._data.dtype.kind == "f" else np.float32))
    pairs = y.narrow(axis, 1, length - 1) + y.narrow(axis, 0, length - 1)
    if x is not None:
        spacings = _sample_spacings(y, x, axis, "cumulative_trapezoid")
        return binary_ops.binary(operator.truediv, (spacings * pairs).cumsum(axis), 2.0, "DivBackward1", floating=True)
    dx = 1 if dx is None else dx
    return binary_ops.binary(operator.mul, pairs, dx / 2.0, "MulBackward1", floating=True).cumsum(axis)


class DifferenceOps:
    """The Tensor methods of this module (PyTorch's Tensor has diff only)."""

    __slots__ = ()
    diff = diff
