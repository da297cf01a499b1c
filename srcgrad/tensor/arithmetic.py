"""`ArithmeticOps`: the Tensor's arithmetic operators and elementwise comparisons.

Each arithmetic operator is one registry rule recorded as one node with PyTorch's name
(`2 / x` is PyTorch's reciprocal times 2, two nodes), with
PyTorch's type promotion (binary_ops.binary). Comparisons give bool tensors and are never
tracked; since `==` gives a tensor, tensors hash by identity.

`Tensor` is bound by `tensor.py` when it is imported (the class needs this module).
"""

import operator

import numpy as np

from . import binary_ops, dtypes, ops, products
from .tangents import TANGENTS

__all__ = ["ArithmeticOps"]

Tensor = None  # bound by srcgrad.tensor.tensor

# the operators whose untracked calls take a Python float as dtypes.float_operand's 0-d array
_FLOAT_OPERAND_OPS = (operator.add, operator.sub, operator.mul, operator.truediv)


def _binary(primitive, name, saves=True, floating=False, reflected=False):
    """A Tensor method for a binary operator: one rule, one node called `name`.

    It does what `binary_ops.binary` does; the commonest case (a float tensor with a Python
    number or a tensor of its own dtype, computed in that dtype) goes straight to
    `binary_ops.binary_same`.
    """
    general, same = binary_ops.binary, binary_ops.binary_same
    float_operand = dtypes.float_operand if primitive in _FLOAT_OPERAND_OPS else None

    def method(self, other):
        data = self._data
        if data.dtype.kind == "f":
            kind = type(other)
            if kind is Tensor:
                value = other._data
                fast = value.dtype is data.dtype
                other_grad = other._requires_grad
            else:
                value = other
                fast = kind is float or kind is int
                other_grad = False
                if kind is float and float_operand and not self._requires_grad and not TANGENTS:
                    value = float_operand(value, data.dtype)  # untracked: no node keeps the number
            if fast:
                tracked = self._requires_grad or other_grad
                if reflected:
                    return same(primitive, other, self, value, data, name, saves, tracked)
                return same(primitive, self, other, data, value, name, saves, tracked)
        if reflected:
            return general(primitive, other, self, name, saves, floating)
        return general(primitive, self, other, name, saves, floating)

    return method


def _comparison(primitive):
    """A Tensor method for an elementwise comparison: a bool tensor, never tracked."""
    return lambda self, other: binary_ops.compare(primitive, self, other)


def _scaled(other, alpha, dtype):
    """`alpha * other` in `dtype`, the result's (PyTorch scales in it: an integer or
    float32 `other` of a float64 sum is not rounded to float32 first): a node that
    keeps only the number (it can run backward again)."""
    if isinstance(other, Tensor):
        if other._data.dtype != dtype:
            other = other._convert(dtypes.as_dtype(dtype))
        return binary_ops.binary(operator.mul, other, alpha, "MulBackward0", saves=False)
    return other * alpha


def _alpha(a, b, alpha, primitive):
    """The `alpha` of `a + alpha * b` (or `a - alpha * b`) as PyTorch takes it, with its
    errors: a bool operand of `-`, a bool alpha for a result that is no bool, a float
    alpha for integer or bool operands. For bool operands it is a bool."""
    if type(alpha) is int and alpha == 1:
        return alpha
    y = b._data if isinstance(b, Tensor) else b
    if primitive is operator.sub:
        ops.refuse_bool_subtraction(a._data, y)
    kind = np.result_type(a._data, y).kind
    if isinstance(alpha, bool) and kind != "b":
        raise RuntimeError("Boolean alpha only supported for Boolean results.")
    if kind in "biu" and isinstance(alpha, float):
        raise RuntimeError("For integral input tensors, argument alpha must not be a floating point number.")
    return bool(alpha) if kind == "b" else alpha


def scaled_sum(a, b, alpha, primitive):
    """`a + alpha * b` (`primitive` operator.add) or `a - alpha * b` (operator.sub): one
    node, AddBackward0 or SubBackward0 with an edge per tensor operand, which keeps only
    the number, as PyTorch's (so it can run backward again)."""
    name = "AddBackward0" if primitive is operator.add else "SubBackward0"
    dtype = dtypes.result_type(a._data, b._data if isinstance(b, Tensor) else b)
    return ops.composite(name, lambda x, y: primitive(x, _scaled(y, alpha, dtype)), a, b, _saves=False)


# PyTorch's CPU pow multiplies out these exponents of a float tensor (`x ** 3` is x * x * x,
# rounded twice; `x ** -1` is 1 / x), where NumPy's power rounds once: the last bit of a
# cubic fit's values differed.
_MULTIPLIED_POWERS = {
    2: lambda x, _: x * x,
    3: lambda x, _: x * x * x,
    -1: lambda x, _: x.dtype.type(1) / x,
    -2: lambda x, _: x.dtype.type(1) / (x * x),
    0.5: lambda x, _: np.sqrt(x),
    -0.5: lambda x, _: x.dtype.type(1) / np.sqrt(x),
}


class ArithmeticOps:
    """Arithmetic operators (each one registry rule) and comparisons (never tracked)."""

    __slots__ = ()

    __add__ = _binary(operator.add, "AddBackward0", saves=False)
    __radd__ = _binary(operator.add, "AddBackward0", saves=False)  # the tensor first, as PyTorch records it
    __sub__ = _binary(operator.sub, "SubBackward0", saves=False)
    __rsub__ = _binary(operator.sub, "RsubBackward1", saves=False, reflected=True)
    __mul__ = _binary(operator.mul, "MulBackward0")
    __rmul__ = _binary(operator.mul, "MulBackward0")  # the tensor first, as PyTorch records it
    __truediv__ = _binary(operator.truediv, "DivBackward0", floating=True)
    __rpow__ = _binary(operator.pow, "PowBackward2", reflected=True)

    def __pow__(self, other):
        if type(other) in (int, float) and other in _MULTIPLIED_POWERS and self._data.dtype.kind == "f":
            compute = _MULTIPLIED_POWERS[other]
            return binary_ops.binary_same(operator.pow, self, other, self._data, other, "PowBackward0", True,
                                   self._requires_grad, compute=compute)
        name = "PowBackward1" if isinstance(other, Tensor) else "PowBackward0"
        return binary_ops.binary(operator.pow, self, other, name)

    __matmul__ = products.matmul

    def __rtruediv__(self, other):
        """`other / self` for a number `other`: PyTorch's `self.reciprocal() * other`,
        two nodes (MulBackward0 over ReciprocalBackward0), rounded twice as there."""
        return self.reciprocal() * other

    def __rmatmul__(self, other):
        return products.matmul(other, self)

    def __neg__(self):
        if self._data.dtype.kind == "b":
            raise RuntimeError(
                "Negation, the `-` operator, on a bool tensor is not supported. If you are trying to invert a "
                "mask, use the `~` or `logical_not()` operator instead."
            )
        return ops.exact(operator.neg, self, "NegBackward0")

    def __pos__(self):
        return self

    mul, pow, matmul = __mul__, __pow__, __matmul__

    def add(self, other, alpha=1):
        """`self + alpha * other`."""
        alpha = _alpha(self, other, alpha, operator.add)
        if alpha == 1 or not isinstance(other, Tensor):
            return self + (other if alpha == 1 else other * alpha)
        return scaled_sum(self, other, alpha, operator.add)

    def sub(self, other, alpha=1):
        """`self - alpha * other`."""
        alpha = _alpha(self, other, alpha, operator.sub)
        if alpha == 1 or not isinstance(other, Tensor):
            return self - (other if alpha == 1 else other * alpha)
        return scaled_sum(self, other, alpha, operator.sub)
    multiply, subtract, neg = mul, sub, __neg__
    mm, mv, dot = products.mm, products.mv, products.dot

    __lt__ = lt = _comparison(np.less)
    __le__ = le = _comparison(np.less_equal)
    __gt__ = gt = _comparison(np.greater)
    __ge__ = ge = _comparison(np.greater_equal)
    __eq__ = eq = _comparison(np.equal)
    __ne__ = ne = _comparison(np.not_equal)
    # & | ^ ~ << >> are bitwise.py's

    def equal(self, other):
        return self._data.shape == other._data.shape and bool(np.all(self._data == other._data))

    __hash__ = object.__hash__
