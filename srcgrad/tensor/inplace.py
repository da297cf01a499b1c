"""In-place operations of `Tensor` (`+=`, `*=`, `zero_()`, `fill_()`, `copy_()`, ...).

Invariants: with grad mode on, an in-place op on a leaf that requires grad raises;
on a tensor in a graph it is recorded (the tensor becomes the output of a new node
and keeps its storage, so aliases see the new values); otherwise it writes into
the array directly and records nothing. The result dtype must be castable to the
tensor's own dtype, as in PyTorch.
"""

import operator

import numpy as np

from . import dtypes, ops
from .graph import _mode

__all__ = ["InPlaceOps", "E11"]

_UFUNCS = {operator.add: np.add, operator.sub: np.subtract, operator.mul: np.multiply, operator.truediv: np.true_divide}
_NUMBERS = (float, int)

E11 = "a leaf Variable that requires grad is being used in an in-place operation."


class InPlaceOps:
    """The in-place methods; `Tensor` inherits them."""

    __slots__ = ()

    def _inplace(self, primitive, other, name, floating=False):
        """`self op= other` in place. Tracked when grad mode is on and either side
        requires grad; then self becomes the output of a node named `name`."""
        data = self._data
        if data.dtype.kind == "f" and not (_mode.enabled and self._requires_grad):
            # Untracked, into a float tensor, from a Python number or a tensor of the same
            # dtype and shape: no cast to check, and the ufunc writes straight into place.
            ufunc = _UFUNCS.get(primitive)
            if ufunc is not None:
                if type(other) in _NUMBERS:
                    token = ops.quiet()
                    try:
                        ufunc(data, other, out=data)
                    finally:
                        ops.loud(token)
                    return self
                if isinstance(other, ops.Tensor) and not (_mode.enabled and other._requires_grad):
                    od = other._data
                    if od.dtype is data.dtype and od.shape == data.shape:
                        token = ops.quiet()
                        try:
                            ufunc(data, od, out=data)
                        finally:
                            ops.loud(token)
                        return self
        other = ops.operand(other)
        if other is NotImplemented:
            return NotImplemented
        if _mode.enabled and (self._requires_grad or (isinstance(other, ops.Tensor) and other._requires_grad)):
            if self._requires_grad and self._grad_fn is None:
                raise RuntimeError(E11)
            self._check_cast(other, floating)
            source = type(self)._make(self._data.copy(), self._requires_grad)
            source._grad_fn = self._grad_fn
            out = ops.binary(primitive, source, other, name, floating=floating)
            self._data[...] = out._data
            self._grad_fn = out._grad_fn
            self._requires_grad = True
            return self
        self._check_cast(other, floating)
        data = other._data if isinstance(other, ops.Tensor) else other
        token = ops.quiet()
        try:
            self._data[...] = primitive(self._data, data)
        finally:
            ops.loud(token)
        return self

    def _check_cast(self, other, floating):
        result = dtypes.result_type(self._data, other._data if isinstance(other, ops.Tensor) else other)
        if floating and result.kind not in "fc":
            result = dtypes.DEFAULT_FLOAT.numpy
        mine = self._data.dtype
        if (result.kind in "fc" and mine.kind not in "fc") or (result.kind == "c" and mine.kind != "c") or (
            mine.kind == "b" and result.kind != "b"
        ):
            raise RuntimeError(
                f"result type {dtypes.of(result).kind_name} can't be cast to the desired output "
                f"type {self.dtype.kind_name}"
            )

    def __iadd__(self, other):
        return self._inplace(operator.add, other, "AddBackward0")

    def __isub__(self, other):
        return self._inplace(operator.sub, other, "SubBackward0")

    def __imul__(self, other):
        return self._inplace(operator.mul, other, "MulBackward0")

    def __itruediv__(self, other):
        return self._inplace(operator.truediv, other, "DivBackward0", floating=True)

    def add_(self, other, alpha=1):
        return self._inplace(operator.add, other if alpha == 1 else other * alpha, "AddBackward0")

    def sub_(self, other, alpha=1):
        return self._inplace(operator.sub, other if alpha == 1 else other * alpha, "SubBackward0")

    mul_, div_ = __imul__, __itruediv__

    def zero_(self):
        return self._overwrite(0, "ZeroBackward0")

    def fill_(self, value):
        return self._overwrite(value, "FillBackward2")

    def _overwrite(self, value, name):
        if _mode.enabled and self._requires_grad:
            self._inplace(operator.mul, 0, name)  # the old values get zero gradient
        self._data[...] = value
        return self

    def copy_(self, src):
        if _mode.enabled and self._requires_grad and self._grad_fn is None:
            raise RuntimeError(E11)
        self._data[...] = src._data if isinstance(src, ops.Tensor) else src
        return self

    def normal_(self, mean=0.0, std=1.0):
        from .creation import _rng

        if _mode.enabled and self._requires_grad and self._grad_fn is None:
            raise RuntimeError(E11)
        self._data[...] = _rng().normal(mean, std, self._data.shape)
        return self

    def uniform_(self, a=0.0, b=1.0):
        from .creation import _rng

        if _mode.enabled and self._requires_grad and self._grad_fn is None:
            raise RuntimeError(E11)
        self._data[...] = _rng().uniform(a, b, self._data.shape)
        return self
