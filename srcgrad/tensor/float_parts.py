"""Elementwise functions PyTorch adds to NumPy's arithmetic: fmax and fmin (NaN
ignoring), ldexp, frexp, gcd, lcm and positive, with their methods and in-place forms.

fmax, fmin, ldexp and frexp's mantissa are registry primitives (`rules/float_parts.py`)
recorded under PyTorch's node names; gcd and lcm are integral only (never tracked).
"""

import functools

import numpy as np

from .complex_refusals import refuse_complex
from ..rules import float_parts
from . import binary_ops, dtypes, ops
from .bitwise import _integral
from .pointwise import in_place_method
from .pointwise_more import _require_tensors

__all__ = ["fmax", "fmin", "ldexp", "frexp", "gcd", "lcm", "positive", "FloatPartOps"]

@functools.cache
def _frexp_type():
    """torch.return_types.frexp (decompositions.py imports the Tensor class: read late)."""
    from .decompositions import return_type
    return return_type("frexp", ("mantissa", "exponent"))


def _tensor_pair(name, compute):
    """`name(input, other)` of two tensors, PyTorch's TypeError for anything else."""

    def function(input, other):
        _require_tensors(name, input=input, other=other)
        return compute(input, other)

    def method(self, other):
        _require_tensors(name, other=other)
        return compute(self, other)

    function.__name__ = method.__name__ = name
    function.__doc__ = method.__doc__ = compute.__doc__
    return function, method


def _fmax(input, other):
    """The larger of each pair (broadcast), NaN only where both are: FmaxBackward0 (a tie's gradient goes to input)."""
    refuse_complex("fmax", input, other)
    return binary_ops.binary(float_parts.fmax, input, other, "FmaxBackward0")


def _fmin(input, other):
    """The smaller of each pair (broadcast), NaN only where both are: FminBackward0 (a tie's gradient goes to input)."""
    refuse_complex("fmin", input, other)
    return binary_ops.binary(float_parts.fmin, input, other, "FminBackward0")


def _ldexp(input, other):
    """input * 2 ** other in the promoted floating dtype (LdexpBackward0)."""
    return binary_ops.binary(float_parts.ldexp, input, other, "LdexpBackward0", floating=True)


def _integer_pair(name, primitive):
    def compute(input, other):
        dt = dtypes.result_type(input._data, other._data)
        _integral(name, dt)
        if dt.kind == "b":
            raise NotImplementedError(f'"{name}_cpu" not implemented for \'Bool\'')
        ops.check_broadcast(input._data, other._data)
        return ops.Tensor._make(np.asarray(primitive(input._data.astype(dt), other._data.astype(dt))))

    compute.__doc__ = f"np.{primitive.__name__} of each pair of integers (broadcast), in their promoted dtype."
    return compute


fmax, _fmax_method = _tensor_pair("fmax", _fmax)
fmin, _fmin_method = _tensor_pair("fmin", _fmin)
ldexp, _ldexp_method = _tensor_pair("ldexp", _ldexp)
gcd, _gcd_method = _tensor_pair("gcd", _integer_pair("gcd", np.gcd))
lcm, _lcm_method = _tensor_pair("lcm", _integer_pair("lcm", np.lcm))


def frexp(input):
    """`(mantissa, exponent)` with input = mantissa * 2 ** exponent, |mantissa| in
    [0.5, 1) (0, inf and NaN keep themselves, exponent 0); exponent int32. The mantissa
    is tracked (FrexpBackward0)."""
    if input._data.dtype.kind != "f":
        raise RuntimeError("torch.frexp() only supports floating-point dtypes")
    mantissa = ops.apply(float_parts.frexp_mantissa, input, name="FrexpBackward0")
    exponent = ops.Tensor._make(np.asarray(np.frexp(input._data)[1], dtype=np.int32))
    return _frexp_type()(mantissa, exponent)


def positive(input):
    """input itself; refused for bool as PyTorch's unary `+`."""
    if input._data.dtype.kind == "b":
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return input


_ldexp_written = in_place_method("ldexp_", _ldexp_method)


def _ldexp_in_place(self, other):
    """ldexp into self, which must be floating (PyTorch's own message otherwise)."""
    if self._data.dtype.kind not in "fc":
        raise RuntimeError(f"ldexp can't be cast to the desired output type {self.dtype.kind_name}")
    return _ldexp_written(self, other)


_ldexp_in_place.__name__ = "ldexp_"


class FloatPartOps:
    """The Tensor methods of this module."""

    __slots__ = ()
    fmax, fmin, ldexp, gcd, lcm = _fmax_method, _fmin_method, _ldexp_method, _gcd_method, _lcm_method
    frexp, positive = frexp, positive
    ldexp_ = _ldexp_in_place
    gcd_, lcm_ = in_place_method("gcd_", _gcd_method), in_place_method("lcm_", _lcm_method)
