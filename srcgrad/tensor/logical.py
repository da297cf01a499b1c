"""Logical functions, comparisons as functions, and predicates: logical_and, logical_or,
logical_xor, logical_not; eq, ne, lt, le, gt, ge (and greater, less, greater_equal,
less_equal, not_equal); equal, is_nonzero, signbit, isposinf, isneginf; the bitwise
operators `&`, `|`, `^` of bool and integer tensors.

Every result is a bool tensor (or a Python bool; a bitwise operator's is of PyTorch's
promoted dtype) that is never tracked, as in PyTorch: none has a gradient. A nonzero number (nan included) reads as True. The in-place forms
(logical_and_, logical_or_, logical_xor_, logical_not_) write the result, in self's
dtype, into self's elements and count the write in its version, as PyTorch's: self's
grad_fn and requires_grad stay as they were (the write has no derivative).
"""

import numpy as np

from .complex_refusals import refuse_complex
from . import dtypes, ops
from .inplace import _refuse_expanded
from .versions import bump

__all__ = [
    "logical_and", "logical_or", "logical_xor", "logical_not", "eq", "ne", "lt", "le", "gt", "ge", "greater", "less",
    "greater_equal", "less_equal", "not_equal", "equal", "is_nonzero", "signbit", "isposinf", "isneginf", "LogicalOps",
]


def _bools(array):
    return ops.Tensor._make(np.asarray(array, dtype=np.bool_))


def _logical_pair(name, primitive):
    def function(input, other):
        for position, (label, value) in enumerate((("input", input), ("other", other)), start=1):
            if not isinstance(value, ops.Tensor):
                raise TypeError(f"{name}(): argument '{label}' (position {position}) must be Tensor, not {type(value).__name__}")
        ops.check_broadcast(input._data, other._data)
        return _bools(primitive(input._data, other._data))

    def method(self, other):
        if not isinstance(other, ops.Tensor):
            raise TypeError(f"{name}(): argument 'other' (position 1) must be Tensor, not {type(other).__name__}")
        return function(self, other)

    function.__name__ = method.__name__ = name
    function.__doc__ = method.__doc__ = f"np.{primitive.__name__} of each pair of elements (broadcast), a bool tensor."
    return function, method


logical_and, _logical_and_method = _logical_pair("logical_and", np.logical_and)
logical_or, _logical_or_method = _logical_pair("logical_or", np.logical_or)
logical_xor, _logical_xor_method = _logical_pair("logical_xor", np.logical_xor)


def logical_not(input):
    """True where the element is zero, a bool tensor."""
    return _bools(np.logical_not(input._data))


def _logical_in_place(name, function):
    """The method `name` (`logical_and_`, ...): `function`'s bools written into self."""

    def method(self, *other):
        for value in other:
            if not isinstance(value, ops.Tensor):
                raise TypeError(f"{name}(): argument 'other' (position 1) must be Tensor, not {type(value).__name__}")
        result = function(self, *other)._data
        if result.shape != self._data.shape:
            raise RuntimeError(f"output with shape {list(self._data.shape)} doesn't match the broadcast shape "
                               f"{list(result.shape)}")
        _refuse_expanded(self._data)
        self._data[...] = result
        bump(self)
        return self

    method.__name__ = name
    method.__doc__ = f"`{function.__name__}` written into self, in self's dtype; returns self."
    return method


def _comparison(name, method):
    def function(input, other):
        return getattr(input, method)(other)

    function.__name__ = name
    function.__doc__ = f"`input.{method}(other)`: the elementwise comparison, a bool tensor."
    return function


eq, ne, lt, le, gt, ge = (_comparison(n, n) for n in ("eq", "ne", "lt", "le", "gt", "ge"))
greater, less, greater_equal, less_equal = (_comparison(n, m) for n, m in (
    ("greater", "gt"), ("less", "lt"), ("greater_equal", "ge"), ("less_equal", "le")))
not_equal = _comparison("not_equal", "ne")


def equal(input, other):
    """Whether the tensors have one shape and equal elements (nan is unequal), a bool."""
    return input.equal(other)


def is_nonzero(input):
    """Whether the one element of `input` is nonzero (nan is), a bool; PyTorch's errors
    for none or several elements."""
    return bool(input)


def signbit(input):
    """True where the element's sign bit is set (-0.0 and -nan included)."""
    refuse_complex("signbit", input)
    return _bools(np.signbit(input._data))


def isposinf(input):
    """True where the element is +inf."""
    refuse_complex("isposinf", input)
    x = input._data
    return _bools(np.isposinf(x) if x.dtype.kind == "f" else np.zeros(x.shape, bool))


def isneginf(input):
    """True where the element is -inf."""
    refuse_complex("isneginf", input)
    x = input._data
    return _bools(np.isneginf(x) if x.dtype.kind == "f" else np.zeros(x.shape, bool))


class LogicalOps:
    """The Tensor methods of this module (eq, ne, lt, le, gt, ge and equal are ArithmeticOps')."""

    __slots__ = ()
    logical_and, logical_or, logical_xor = _logical_and_method, _logical_or_method, _logical_xor_method
    logical_not, is_nonzero, signbit, isposinf, isneginf = logical_not, is_nonzero, signbit, isposinf, isneginf
    logical_and_, logical_or_, logical_xor_, logical_not_ = (_logical_in_place(n + "_", f) for n, f in (
        ("logical_and", logical_and), ("logical_or", logical_or), ("logical_xor", logical_xor),
        ("logical_not", logical_not)))

    def greater(self, other):
        return self.gt(other)

    def less(self, other):
        return self.lt(other)

    def greater_equal(self, other):
        return self.ge(other)

    def less_equal(self, other):
        return self.le(other)

    def not_equal(self, other):
        return self.ne(other)
