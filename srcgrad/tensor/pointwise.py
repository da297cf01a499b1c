"""Elementwise tensor functions beyond the arithmetic operators: clamp and its one-sided
forms, maximum, minimum, where, and the floating functions (exp, log1p, ...) that give
an integer tensor the default float dtype, as PyTorch does.

Each is a `torch.X(input, ...)` function that `Tensor` also binds as a method. None
holds calculus: every op is one registry primitive (`np.clip`, `np.maximum`,
`np.where`, `np.log1p`, ...) recorded through `ops` under PyTorch's node name.
"""

import operator

import numpy as np

from ..rules import activations
from . import dtypes, ops

__all__ = [
    "clamp", "clip", "clamp_min", "clamp_max", "clamp_", "maximum", "minimum", "where",
    "exp", "expm1", "log", "log1p", "sqrt", "sin", "cos", "tanh", "sigmoid",
    "sign", "floor", "ceil", "trunc", "round", "atan2", "lerp", "isclose", "allclose", "PointwiseOps",
]

_NO_BOUND = "torch.clamp: At least one of 'min' or 'max' must not be None"


# --- floating functions ------------------------------------------------------------------


def _floating(name, primitive, node=None, compute=None):
    """`torch.<name>(input)` for a function whose result is floating: an integer or bool
    tensor is read as the default float dtype first (it cannot require grad)."""

    def function(input):
        if input._data.dtype.kind not in "fc":
            input = ops.Tensor._make(input._data.astype(dtypes.DEFAULT_FLOAT.numpy))
        return ops.unary(primitive, input, node, compute=compute)

    function.__name__ = name
    function.__doc__ = f"`{name}` of each element (an integer tensor is read as float32)."
    return function


exp = _floating("exp", np.exp)
expm1 = _floating("expm1", np.expm1, "Expm1Backward0")
log = _floating("log", np.log)
log1p = _floating("log1p", np.log1p, "Log1PBackward0")
sqrt = _floating("sqrt", np.sqrt)
sin = _floating("sin", np.sin)
cos = _floating("cos", np.cos)
tanh = _floating("tanh", np.tanh)
sigmoid = _floating("sigmoid", activations.sigmoid, "SigmoidBackward0", compute=activations.expit)


# --- clamp -------------------------------------------------------------------------------


def _is_tensor(x):
    return isinstance(x, ops.Tensor)


def _clamp(input, lo, hi, name):
    """np.clip(input, lo, hi) as one node called `name`; the result dtype is PyTorch's
    promotion of input and the bounds (an integer tensor with a float bound gives float32).
    The gradient passes to `input` where it lies within the bounds, ends included (where
    min > max every entry is max; the gradient there follows np.clip's rule)."""
    x = input._data
    bounds = [b._data if _is_tensor(b) else b for b in (lo, hi) if b is not None]
    dt = dtypes.result_type(x, *bounds)
    if dt == x.dtype and not any(_is_tensor(b) for b in (lo, hi)):  # the common case: number bounds
        return ops.unary(np.clip, input, name, consts=(dtypes.as_weak_number(lo, x), dtypes.as_weak_number(hi, x)))
    return ops.apply(np.clip, input, lo, hi, name=name, dtype=dt, out_dtype=dt)


def clamp(input, min=None, max=None):
    """Each element limited to [min, max]: ClampBackward1 for number bounds,
    ClampBackward0 when a bound is a tensor (which then gets gradient too)."""
    if min is None and max is None:
        raise RuntimeError(_NO_BOUND)
    tensors = _is_tensor(min) or _is_tensor(max)
    return _clamp(input, min, max, "ClampBackward0" if tensors else "ClampBackward1")


clip = clamp


def clamp_min(input, min):
    """Each element at least `min` (ClampMinBackward0; ClampMinBackward1 for a tensor bound)."""
    return _clamp(input, min, None, "ClampMinBackward1" if _is_tensor(min) else "ClampMinBackward0")


def clamp_max(input, max):
    """Each element at most `max` (ClampMaxBackward0; ClampMaxBackward1 for a tensor bound)."""
    return _clamp(input, None, max, "ClampMaxBackward1" if _is_tensor(max) else "ClampMaxBackward0")


def clamp_(input, min=None, max=None):
    """`clamp` in place (weight clipping: `p.data.clamp_(-c, c)`); returns input."""
    if min is None and max is None:
        raise RuntimeError(_NO_BOUND)
    return input._rewrite(lambda t: clamp(t, min, max), min, max)


# --- maximum, minimum, where -------------------------------------------------------------


def _binary_tensors(name, primitive, node):
    def function(input, other):
        if not _is_tensor(other):
            raise TypeError(f"{name}(): argument 'other' (position 2) must be Tensor, not {type(other).__name__}")
        return ops.binary(primitive, input, other, node)

    function.__name__ = name
    return function


maximum = _binary_tensors("maximum", np.maximum, "MaximumBackward0")
maximum.__doc__ = "The larger of each pair of elements (broadcast); a tie splits the gradient evenly."
minimum = _binary_tensors("minimum", np.minimum, "MinimumBackward0")
minimum.__doc__ = "The smaller of each pair of elements (broadcast); a tie splits the gradient evenly."


def where(condition, input=None, other=None):
    """Elements of `input` where `condition` holds, else of `other` (np.where's rule);
    `where(condition)` alone gives the indices of the true elements, one tensor per dim."""
    if _is_tensor(condition):
        if condition._data.dtype != np.bool_:
            raise RuntimeError(
                "where expected condition to be a boolean tensor, but got a tensor with dtype "
                f"{condition.dtype.kind_name}"
            )
        cond = condition._data
    else:
        cond = np.asarray(condition)
    if input is None and other is None:
        return tuple(ops.Tensor._make(i.astype(np.int64)) for i in np.nonzero(cond))
    a, b = ops.operand(input), ops.operand(other)
    dt = dtypes.result_type(ops._data(a), ops._data(b))
    return ops.apply(np.where, cond, a, b, name="WhereBackward0", dtype=dt, out_dtype=dt)


def where_method(input, condition, other):
    """`input.where(condition, other)`: `where(condition, input, other)`."""
    return where(condition, input, other)


# --- rounding, atan2, lerp, closeness ----------------------------------------------------

def _rounding(primitive, name):
    def method(input):
        return ops.piecewise_constant(primitive, input, name)

    method.__name__ = primitive.__name__
    method.__doc__ = f"np.{primitive.__name__} of each element; its gradient is zero ({name})."
    return method


sign, floor, ceil, trunc = (_rounding(np.sign, "SignBackward0"), _rounding(np.floor, "FloorBackward0"),
                            _rounding(np.ceil, "CeilBackward0"), _rounding(np.trunc, "TruncBackward0"))


def round(input, *, decimals=0):  # noqa: A001 - PyTorch's name
    """Each element rounded half to even to `decimals` places; gradient zero
    (RoundBackward0, RoundBackward1 with decimals)."""
    if decimals:
        return ops.piecewise_constant(np.round, input, "RoundBackward1", decimals)
    return ops.piecewise_constant(np.round, input, "RoundBackward0")


def atan2(input, other):
    """The angle of (other, input), elementwise (Atan2Backward0)."""
    return ops.binary(activations.atan2, input, other, "Atan2Backward0", floating=True)


def _lerp(start, end, weight):
    if _is_tensor(weight):
        return start + weight * (end - start)
    # a number weight: the node keeps only the number (LerpBackward0 saves no tensor)
    return start + ops.binary(operator.mul, end - start, weight, "MulBackward0", saves=False)


def lerp(input, end, weight):
    """`input + weight * (end - input)`: one node, LerpBackward0 for a number weight and
    LerpBackward1 for a tensor one."""
    if _is_tensor(weight):
        return ops.composite("LerpBackward1", _lerp, input, end, weight)
    return ops.composite("LerpBackward0", _lerp, input, end, weight, _saves=False)


def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """Elementwise |input - other| <= atol + rtol * |other|, a bool tensor (no graph)."""
    a, b = (t._data if _is_tensor(t) else np.asarray(t) for t in (input, other))
    return ops.Tensor._make(np.isclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan))


def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """Whether every element is close (`isclose`), a Python bool."""
    return bool(isclose(input, other, rtol, atol, equal_nan)._data.all())


class PointwiseOps:
    """The Tensor methods of this module."""

    __slots__ = ()
    exp, expm1, log, log1p, sqrt = exp, expm1, log, log1p, sqrt
    sin, cos, tanh, sigmoid = sin, cos, tanh, sigmoid
    clamp = clip = clamp
    clamp_min, clamp_max, clamp_ = clamp_min, clamp_max, clamp_
    maximum, minimum, where = maximum, minimum, where_method
    sign, floor, ceil, trunc, round = sign, floor, ceil, trunc, round
    atan2, arctan2, lerp, isclose, allclose = atan2, atan2, lerp, isclose, allclose
