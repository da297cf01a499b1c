"""The complex-number functions as PyTorch gives them for real tensors: real, imag,
conj, conj_physical, resolve_conj, resolve_neg, angle, and the predicates is_complex,
is_conj, is_neg, isreal.

The shim's tensors are real (complex dtypes exist, without complex autograd), so: real,
conj, conj_physical, resolve_conj and resolve_neg return the tensor itself, as PyTorch
does for a real tensor; imag raises PyTorch's error; angle is pi where the element is
negative, 0 elsewhere, nan at nan, with zero gradient (AngleBackward0).
"""

import math

import numpy as np

from . import dtypes, ops
from .graph import node_class
from .rule_nodes import ConstantGradNode

__all__ = [
    "real", "imag", "conj", "conj_physical", "resolve_conj", "resolve_neg", "angle", "is_complex", "is_conj", "is_neg",
    "isreal", "ComplexPartOps",
]

_IMAG_OF_REAL = "imag is not implemented for tensors with non-complex dtypes."


def _is_complex_dtype(input):
    return input._data.dtype.kind == "c"


def real(input):
    """The real part: a real tensor itself."""
    if _is_complex_dtype(input):
        return ops.Tensor._make(input._data.real)
    return input


def imag(input):
    """The imaginary part; a real tensor has none (PyTorch's RuntimeError)."""
    if _is_complex_dtype(input):
        return ops.Tensor._make(input._data.imag)
    raise RuntimeError(_IMAG_OF_REAL)


def conj(input):
    """The complex conjugate: a real tensor itself (PyTorch's view of it)."""
    if _is_complex_dtype(input):
        return ops.Tensor._make(np.conj(input._data))
    return input


conj_physical = resolve_conj = resolve_neg = conj


def angle(input):
    """The argument of each element: pi for a negative real, 0 for zero or positive, nan
    for nan; integers give float32; a complex tensor its real dtype. Zero gradient (AngleBackward0)."""
    x = input._data
    if x.dtype.kind not in "fc":
        x = x.astype(dtypes.DEFAULT_FLOAT.numpy)
    if x.dtype.kind == "c":  # the real dtype of its precision, rounded once from double (as PyTorch's)
        ans = np.angle(x.astype(np.complex128)).astype(x.real.dtype)
    else:
        ans = np.where(x < 0, x.dtype.type(math.pi), np.where(np.isnan(x), x, 0)).astype(x.dtype, copy=False)
    return ops.without_derivative(ans, (input,), node_class("AngleBackward0", ConstantGradNode))


def is_complex(input):
    """Whether the tensor's dtype is complex."""
    return _is_complex_dtype(input)


def is_conj(input):
    """Whether the tensor is a lazily conjugated view: never in the shim."""
    return False


def is_neg(input):
    """Whether the tensor is a lazily negated view: never in the shim."""
    return False


def isreal(input):
    """True where the element has no imaginary part (every element of a real tensor)."""
    x = input._data
    return ops.Tensor._make(np.asarray(x.imag == 0) if x.dtype.kind == "c" else np.ones(x.shape, np.bool_))


class ComplexPartOps:
    """The Tensor methods and properties of this module."""

    __slots__ = ()
    conj, conj_physical, resolve_conj, resolve_neg, angle = conj, conj_physical, resolve_conj, resolve_neg, angle
    is_complex, is_conj, is_neg, isreal = is_complex, is_conj, is_neg, isreal

    def conj_physical_(self):
        """The conjugate in place: a real tensor is its own; returns self."""
        if _is_complex_dtype(self):
            self._data[...] = np.conj(self._data)
        return self
    real = property(real, doc="The real part: a real tensor itself.")
    imag = property(imag, doc="The imaginary part; a real tensor has none (PyTorch's RuntimeError).")
