"""Bitwise functions of integer and bool tensors: bitwise_and, bitwise_or, bitwise_xor,
bitwise_not, bitwise_left_shift and bitwise_right_shift (also the operators & | ^ ~
<< >>), with their methods; `bitwise_not_` (the binary ops in place, `&=` and kin, are
inplace_aliases.py's).

Operands promote as PyTorch's (a Python int keeps the tensor's dtype); a floating
result dtype is refused with PyTorch's NotImplementedError. Shifts follow PyTorch's
CPU kernel, not C: a shift by the width or more, or by a negative amount, gives 0 to
the left and the sign fill (0 or -1) to the right. Results are never tracked (no
integer tensor requires grad).
"""

import numpy as np

from . import binary_ops, dtypes, ops
from .pointwise import in_place_method

__all__ = [
    "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_not", "bitwise_left_shift", "bitwise_right_shift",
    "BitwiseOps",
]


def _integral(kernel, dtype):
    """Refuse a dtype that is not integral as PyTorch's `<kernel>_cpu` does."""
    if dtype.kind not in "iub":
        raise NotImplementedError(f'"{kernel}_cpu" not implemented for \'{dtypes.as_dtype(dtype).kind_name}\'')


def _shift_left(x, s):
    width = x.dtype.itemsize * 8
    inside = (s >= 0) & (s < width)
    return np.where(inside, np.left_shift(x, np.where(inside, s, 0).astype(x.dtype)), 0).astype(x.dtype)


def _shift_right(x, s):
    width = x.dtype.itemsize * 8
    inside = (s >= 0) & (s < width)
    fill = np.right_shift(x, width - 1) if x.dtype.kind == "i" else np.zeros_like(x)
    return np.where(inside, np.right_shift(x, np.where(inside, s, 0).astype(x.dtype)), fill).astype(x.dtype)


def _binary(name, kernel, compute, bools=True):
    """`name(input, other)`: one operand may be a Python number."""

    def function(input, other):
        a, b = binary_ops.operand(input), binary_ops.operand(other)
        if a is NotImplemented or b is NotImplemented:
            return NotImplemented
        x, y = binary_ops.value_of(a), binary_ops.value_of(b)
        dt = dtypes.result_type(x, y)
        _integral(kernel, dt)
        if dt.kind == "b" and not bools:
            raise NotImplementedError(f'"{kernel}_cpu" not implemented for \'Bool\'')
        ops.check_broadcast(x, y)
        x, y = (np.asarray(dtypes.integer_operand(v, dt), dtype=dt) for v in (x, y))  # an int wraps into dt
        return ops.Tensor._make(np.asarray(compute(x, y)))

    function.__name__ = name
    function.__doc__ = f"Elementwise {name} of two integral operands (broadcast), in their promoted dtype."
    return function


bitwise_and = _binary("bitwise_and", "bitwise_and", np.bitwise_and)
bitwise_or = _binary("bitwise_or", "bitwise_or", np.bitwise_or)
bitwise_xor = _binary("bitwise_xor", "bitwise_xor", np.bitwise_xor)
bitwise_left_shift = _binary("bitwise_left_shift", "lshift", _shift_left, bools=False)
bitwise_right_shift = _binary("bitwise_right_shift", "rshift", _shift_right, bools=False)


def bitwise_not(input):
    """~input of an integral tensor (logical not of a bool one)."""
    _integral("bitwise_not", input._data.dtype)
    return ops.Tensor._make(np.asarray(np.invert(input._data)))


def _invert(self):
    """`~self`: bitwise_not, with the operator's own TypeError for a floating tensor."""
    if self._data.dtype.kind not in "iub":
        raise TypeError("~ (operator.invert) is only implemented on integer and Boolean-type tensors")
    return bitwise_not(self)


def _reflected(function):
    return lambda self, other: function(other, self)


class BitwiseOps:
    """The Tensor methods and operators of this module."""

    __slots__ = ()
    bitwise_and, bitwise_or, bitwise_xor, bitwise_not = bitwise_and, bitwise_or, bitwise_xor, bitwise_not
    bitwise_left_shift, bitwise_right_shift = bitwise_left_shift, bitwise_right_shift
    __and__, __or__, __xor__, __invert__ = bitwise_and, bitwise_or, bitwise_xor, _invert
    __lshift__, __rshift__ = bitwise_left_shift, bitwise_right_shift
    __rand__, __ror__, __rxor__ = _reflected(bitwise_and), _reflected(bitwise_or), _reflected(bitwise_xor)
    __rlshift__, __rrshift__ = _reflected(bitwise_left_shift), _reflected(bitwise_right_shift)
    bitwise_not_ = in_place_method("bitwise_not_", bitwise_not)  # the binary ones in place: inplace_aliases.py
