"""Elementwise tensor functions beyond the arithmetic operators: clamp and its one-sided
forms, maximum, minimum, where, the floating functions (exp, log1p, reciprocal, rsqrt,
log2, asin, erf, ...) that give an integer tensor the default float dtype, as PyTorch
does, square, isnan and isfinite, the rounding divisions (floor_divide, remainder,
div with rounding_mode) and the in-place forms exp_, sin_, log_, floor_, abs_, relu_, tanh_,
sqrt_, sigmoid_.

Each is a `torch.X(input, ...)` function that `Tensor` also binds as a method. None
holds calculus: every op is one registry primitive (`np.clip`, `np.maximum`,
`np.where`, `np.log1p`, ...) recorded through `ops` under PyTorch's node name.
"""

import operator

import numpy as np

from .complex_refusals import refuse_complex
from ..rules import activations
from . import binary_ops, dtypes, ops
from .dtypes import c_name
from .errstate import loud, quiet
from .meta_arrays import MetaArray, check_devices
from .graph import node_class
from .rule_nodes import ConstantGradNode, NoDerivativeNode

__all__ = [
    "clamp", "clip", "clamp_min", "clamp_max", "clamp_", "maximum", "minimum", "where",
    "exp", "expm1", "log", "log1p", "sqrt", "sin", "cos", "tanh", "sigmoid",
    "sign", "floor", "ceil", "trunc", "round", "atan2", "lerp", "isclose", "allclose", "PointwiseOps",
    "reciprocal", "rsqrt", "log2", "log10", "exp2", "asin", "acos", "atan", "sinh", "cosh", "erf", "erfc",
    "arcsin", "arccos", "arctan", "square", "tan", "asinh", "acosh", "atanh", "arcsinh", "arccosh", "arctanh", "isnan", "isfinite", "isinf", "floor_divide", "remainder", "div",
    "true_divide",
]

_NO_BOUND = "torch.clamp: At least one of 'min' or 'max' must not be None"


# --- floating functions ------------------------------------------------------------------


def _floating(name, primitive, node=None, compute=None, real=False):
    """`torch.<name>(input)` for a function whose result is floating: an integer or bool
    tensor is read as the default float dtype first (it cannot require grad); `real`: a
    complex one is refused (complex_refusals.py)."""

    def function(input):
        if real:
            refuse_complex(name, input)
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
reciprocal = _floating("reciprocal", np.reciprocal, "ReciprocalBackward0")
rsqrt = _floating("rsqrt", activations.rsqrt, "RsqrtBackward0")
log2 = _floating("log2", np.log2, "Log2Backward0")
log10 = _floating("log10", np.log10, "Log10Backward0")
exp2 = _floating("exp2", np.exp2, "Exp2Backward0")
asin = arcsin = _floating("asin", np.arcsin, "AsinBackward0")
acos = arccos = _floating("acos", np.arccos, "AcosBackward0")
atan = arctan = _floating("atan", np.arctan, "AtanBackward0")
sinh = _floating("sinh", np.sinh, "SinhBackward0")
cosh = _floating("cosh", np.cosh, "CoshBackward0")
tan = _floating("tan", np.tan, "TanBackward0")
asinh = arcsinh = _floating("asinh", np.arcsinh, "AsinhBackward0")
acosh = arccosh = _floating("acosh", np.arccosh, "AcoshBackward0")
atanh = arctanh = _floating("atanh", np.arctanh, "AtanhBackward0")
erf = _floating("erf", activations.erf, "ErfBackward0", real=True)
erfc = _floating("erfc", activations.erfc, "ErfcBackward0", real=True)


def frac(input):
    """The fractional part `input - trunc(input)` of each element, with its sign
    (FracBackward0, which passes the gradient through); floating tensors only, as in
    PyTorch."""
    if input._data.dtype.kind != "f":
        raise NotImplementedError(f'"frac_cpu" not implemented for \'{input.dtype.kind_name}\'')
    return ops.unary(activations.frac, input, "FracBackward0", False)


def square(input):
    """`input ** 2` (PowBackward0, as PyTorch records it); an integer tensor stays integer."""
    return binary_ops.binary(operator.pow, input, 2, "PowBackward0")


def _test(name, primitive):
    def function(input):
        return ops.Tensor._make(np.asarray(primitive(input._data)))

    function.__name__ = name
    function.__doc__ = f"np.{primitive.__name__} of each element: a bool tensor, never tracked."
    return function


isnan, isfinite, isinf = _test("isnan", np.isnan), _test("isfinite", np.isfinite), _test("isinf", np.isinf)


# --- rounding divisions --------------------------------------------------------------------


def _operands(input, other, kernel):
    """The operands of a rounding division and their promoted dtype, with PyTorch's errors:
    a bool dtype (its CPU kernel `kernel` has none), an integer division by zero."""
    a, b = binary_ops.operand(input), binary_ops.operand(other)
    if a is NotImplemented or b is NotImplemented:
        raise TypeError(f"unsupported operand types: {type(input).__name__} and {type(other).__name__}")
    x, y = binary_ops.value_of(a), binary_ops.value_of(b)
    dt = dtypes.result_type(x, y)
    if dt.kind in "bc":
        raise NotImplementedError(f"\"{kernel}_cpu\" not implemented for '{dtypes.of(dt).kind_name}'")
    x, y = dtypes.integer_operand(x, dt), dtypes.integer_operand(y, dt)
    if dt.kind in "iub" and np.any(np.asarray(y) == 0):
        raise RuntimeError("ZeroDivisionError")
    with np.errstate(over="ignore"):  # a number the dtype cannot hold is inf in it, as in PyTorch
        return a, b, np.asarray(x, dtype=dt), np.asarray(y, dtype=dt), dt


def _divided(input, other, compute, kernel):
    a, b, x, y, dt = _operands(input, other, kernel)
    try:
        shape = np.broadcast_shapes(x.shape, y.shape)
    except ValueError:
        ops._raise_broadcast_error(operator.truediv, x, y)
        raise
    token = quiet()
    try:
        ans = np.asarray(compute(x, y), dtype=dt).reshape(shape)
    finally:
        loud(token)
    return a, b, ans


def floor_divide(input, other):
    """`input // other`, rounded toward minus infinity (Python's rule). PyTorch has no
    derivative for it: tracked, the result's node is `NotImplemented`, whose backward
    raises."""
    return floor_divided(input, other, "floor_divide")


def floor_divided(input, other, op):
    """`floor_divide(input, other)` whose node's backward names the op `op` (PyTorch's
    `floor_divide_` for the in-place form)."""
    a, b, ans = _divided(input, other, np.floor_divide, "div_floor")
    return ops.without_derivative(ans, (a, b), node_class("NotImplemented", NoDerivativeNode), op)


def _floordiv(input, other):
    """`input // other`: NotImplemented for an operand no binary op takes (Python's TypeError)."""
    return floor_divide(input, other) if binary_ops.is_operand(other) else NotImplemented


def _rfloordiv(input, other):
    return floor_divide(other, input) if binary_ops.is_operand(other) else NotImplemented


def remainder(input, other):
    """`input % other` with the sign of `other` (Python's rule): RemainderBackward1 for
    two tensors, RemainderBackward0 for a number divisor. The gradient of `input` is 1,
    of `other` -floor(input / other). A number divided by a tensor has no derivative in
    PyTorch (`NotImplemented` node). A zero has the sign of `input`, as PyTorch's (C's
    fmod then the divisor added), where NumPy gives it the divisor's."""
    if not _is_tensor(input):
        a, b, ans = _divided(input, other, np.remainder, "remainder")
        _signed_zeros(ans, binary_ops.value_of(a))
        return ops.without_derivative(ans, (a, b), node_class("NotImplemented", NoDerivativeNode), "remainder")
    _operands(input, other, "remainder")  # a bool dtype, the integer division by zero
    name = "RemainderBackward1" if _is_tensor(other) else "RemainderBackward0"
    # input's gradient is g itself: the node saves something only for other's gradient,
    # and otherwise can run backward again, as PyTorch's
    out = binary_ops.binary(operator.mod, input, other, name, saves=_is_tensor(other) and other._requires_grad)
    _signed_zeros(out._data, input._data)
    return out


def _signed_zeros(ans, dividend):
    """Give the zeros of the floating remainder `ans` (written in place) the sign of their
    `dividend` (an array or number broadcast to ans's shape)."""
    if ans.dtype.kind == "f" and type(ans) is np.ndarray:
        zeros = ans == 0
        if zeros.any():
            ans[zeros] = np.copysign(0, np.broadcast_to(dividend, ans.shape))[zeros].astype(ans.dtype)


def _mod(input, other):
    """`input % other`: NotImplemented for an operand no binary op takes (Python's TypeError)."""
    return remainder(input, other) if binary_ops.is_operand(other) else NotImplemented


def _rmod(input, other):
    return remainder(other, input) if binary_ops.is_operand(other) else NotImplemented


def _truncated(x, y):
    if x.dtype.kind in "iu":
        q = np.floor_divide(x, y)
        return q + ((q < 0) & (q * y != x))
    return np.trunc(np.true_divide(x, y))


def div(input, other, *, rounding_mode=None):
    """`input / other`; with rounding_mode 'trunc' (toward zero) or 'floor' (toward minus
    infinity) the quotient is rounded, keeps an integer dtype, and has zero gradient
    (DivBackward2, as is PyTorch's node for any rounding_mode given, None too)."""
    if rounding_mode is None:
        return binary_ops.binary(operator.truediv, input, other, "DivBackward2", floating=True)
    if rounding_mode not in ("trunc", "floor"):
        raise RuntimeError(
            f"div expected rounding_mode to be one of None, 'trunc', or 'floor' but found '{rounding_mode}'"
        )
    a, b, ans = _divided(input, other, np.floor_divide if rounding_mode == "floor" else _truncated,
                         "div_" + rounding_mode)
    return ops.without_derivative(ans, (a, b), node_class("DivBackward2", ConstantGradNode))


def _div_method(input, other, *, rounding_mode=_NO_BOUND):
    if rounding_mode is _NO_BOUND:
        return input / other
    return div(input, other, rounding_mode=rounding_mode)


def true_divide(input, other):
    """`input / other` (DivBackward0)."""
    return binary_ops.binary(operator.truediv, input, other, "DivBackward0", floating=True)


# --- in place ------------------------------------------------------------------------------


def in_place_method(name, function):
    def method(self, *args, **kwargs):
        return self._rewrite(lambda t: function(t, *args, **kwargs), *args)

    method.__name__ = name
    method.__doc__ = f"`{function.__name__}` in place; returns self."
    return method


# --- clamp -------------------------------------------------------------------------------


def _is_tensor(x):
    return isinstance(x, ops.Tensor)


def _clamp(input, lo, hi, name):
    """np.clip(input, lo, hi) as one node called `name`; the result dtype is PyTorch's
    promotion of input and the bounds (an integer tensor with a float bound gives float32).
    The gradient passes to `input` where it lies within the bounds, ends included (where
    min > max every entry is max; the gradient there follows np.clip's rule)."""
    x = input._data
    refuse_complex("clamp", input)
    refuse_complex("clamp_min_bound", lo)
    refuse_complex("clamp_max_bound", hi)
    bounds = [b._data if _is_tensor(b) else b for b in (lo, hi) if b is not None]
    dt = dtypes.result_type(x, *bounds)
    if dt == x.dtype and not any(_is_tensor(b) for b in (lo, hi)):  # the common case: number bounds
        out = ops.unary(np.clip, input, name, consts=(dtypes.as_weak_number(lo, x), dtypes.as_weak_number(hi, x)))
    else:
        out = ops.apply(np.clip, input, lo, hi, name=name, dtype=dt, out_dtype=dt)
    if dt.kind == "f":  # PyTorch keeps an element equal to a bound: -0.0 clamped at 0.0 stays -0.0
        data, x = out._data, np.broadcast_to(x, out._data.shape)
        zeros = (data == 0) & (x == 0)
        if zeros.any():
            data[zeros] = x[zeros]
    return out


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
        refuse_complex(name, input, other)
        return binary_ops.binary(primitive, input, other, node)

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
    a, b = binary_ops.operand(input), binary_ops.operand(other)
    xa, xb = binary_ops.value_of(a), binary_ops.value_of(b)
    if any(type(x) is MetaArray for x in (cond, xa, xb)):  # the condition's device counts too
        check_devices([t for t in (condition, a, b) if _is_tensor(t)])
    if not np.shape(cond) == np.shape(xa) == np.shape(xb):  # PyTorch's error where they do not broadcast
        ops.check_broadcast(cond, xa)
        ops.check_broadcast(cond, xb)
        ops.check_broadcast(xa, xb)
    dt = dtypes.result_type(binary_ops.value_of(a), binary_ops.value_of(b))
    return ops.apply(np.where, cond, a, b, name="WhereBackward0", dtype=dt, out_dtype=dt, edge_args=(1, 2))


def where_method(input, condition, other):
    """`input.where(condition, other)`: `where(condition, input, other)`."""
    return where(condition, input, other)


# --- rounding, atan2, lerp, closeness ----------------------------------------------------

def _rounding(primitive, name):
    def method(input):
        refuse_complex(primitive.__name__, input)
        if input._data.dtype.kind in "iu":  # an integer is its own floor, ceil and trunc, in its dtype (NumPy 1 gives floats)
            return ops.Tensor._make(input._data.copy())
        return ops.piecewise_constant(primitive, input, name)

    method.__name__ = primitive.__name__
    method.__doc__ = f"np.{primitive.__name__} of each element; its gradient is zero ({name})."
    return method


floor, ceil, trunc = (_rounding(np.floor, "FloorBackward0"), _rounding(np.ceil, "CeilBackward0"),
                      _rounding(np.trunc, "TruncBackward0"))


def sign(input):
    """-1, 0 or 1 by the sign of each element, and 0 for nan (PyTorch's (0 < x) - (x < 0),
    where NumPy gives nan); its gradient is zero (SignBackward0). A bool stays itself."""
    if input._data.dtype == np.bool_:
        return ops.leaf(input._data.copy())
    refuse_complex("sign", input)
    out = ops.piecewise_constant(np.sign, input, "SignBackward0")
    if out._data.dtype.kind == "f":
        out._data[np.isnan(out._data)] = 0
    return out


def round(input, *, decimals=None):  # noqa: A001 - PyTorch's name
    """Each element rounded half to even to `decimals` places; gradient zero
    (RoundBackward0, RoundBackward1 where decimals is given, 0 too, as PyTorch's)."""
    refuse_complex("round", input)
    if decimals is not None:
        return ops.piecewise_constant(np.round, input, "RoundBackward1", decimals)
    return ops.piecewise_constant(np.round, input, "RoundBackward0")


def _atan2(name, method):
    """`name(input, other)`, the angle of (other, input) elementwise (Atan2Backward0):
    both Tensors, else PyTorch's TypeError, whose positions count from 1 after self for
    the method (`method`)."""

    def atan2(input, other):
        for position, (label, value) in enumerate((("input", input), ("other", other)), start=1 - method):
            if not isinstance(value, ops.Tensor):
                raise TypeError(
                    f"{name}(): argument '{label}' (position {position}) must be Tensor, not {type(value).__name__}"
                )
        refuse_complex("atan2", input, other)
        return binary_ops.binary(activations.atan2, input, other, "Atan2Backward0", floating=True)

    atan2.__name__ = name
    return atan2


atan2, arctan2 = _atan2("atan2", False), _atan2("arctan2", False)


def _lerp(start, end, weight):
    """start + w (end - start); for a number weight in [0.5, 2], PyTorch's other form
    end - (end - start) (1 - w): exact at w = 1, and inf where start is (its gradients
    exact too, as 1 - w is there)."""
    if _is_tensor(weight):
        return start + weight * (end - start)
    # a number weight: the node keeps only the number (LerpBackward0 saves no tensor)
    if 0.5 <= weight <= 2:
        return end - binary_ops.binary(operator.mul, end - start, 1 - weight, "MulBackward0", saves=False)
    return start + binary_ops.binary(operator.mul, end - start, weight, "MulBackward0", saves=False)


def lerp(input, end, weight):
    """`input + weight * (end - input)` (`end - (end - input) * (1 - weight)` for a
    number weight in [0.5, 2], as PyTorch computes it): one node, LerpBackward0 for a number weight and
    LerpBackward1 for a tensor one. `end` is a tensor (PyTorch's TypeError otherwise)."""
    if not (_is_tensor(input) and _is_tensor(end) and (_is_tensor(weight) or isinstance(weight, (int, float)))):
        got = ", ".join("Tensor" if _is_tensor(a) else type(a).__name__ for a in (input, end, weight))
        raise TypeError(
            f"lerp() received an invalid combination of arguments - got ({got}), but expected one of:\n"
            " * (Tensor input, Tensor end, Tensor weight, *, Tensor out = None)\n"
            " * (Tensor input, Tensor end, Number weight, *, Tensor out = None)\n"
        )
    if input._data.dtype != end._data.dtype:
        raise RuntimeError(
            f"expected dtype {c_name(input._data.dtype)} for `end` but got dtype {c_name(end._data.dtype)}"
        )
    if input.is_meta or end.is_meta or _is_tensor(weight) and weight.is_meta:  # PyTorch's order of operands
        check_devices([t for t in (input, end, weight) if _is_tensor(t)])
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
    atan2, arctan2 = _atan2("atan2", True), _atan2("arctan2", True)
    lerp, isclose, allclose = lerp, isclose, allclose
    reciprocal, rsqrt, log2, log10, exp2 = reciprocal, rsqrt, log2, log10, exp2
    asin = arcsin = asin
    acos = arccos = acos
    atan = arctan = atan
    sinh, cosh, erf, erfc, square = sinh, cosh, erf, erfc, square
    tan = tan
    asinh = arcsinh = asinh
    acosh = arccosh = acosh
    atanh = arctanh = atanh
    frac = frac
    isnan, isfinite, isinf = isnan, isfinite, isinf
    floor_divide, remainder, true_divide = floor_divide, remainder, true_divide
    div = divide = _div_method
    __floordiv__, __rfloordiv__ = _floordiv, _rfloordiv
    __mod__, __rmod__ = _mod, _rmod
    exp_ = in_place_method("exp_", exp)
    frac_ = in_place_method("frac_", frac)
    sqrt_ = in_place_method("sqrt_", sqrt)
    tanh_ = in_place_method("tanh_", tanh)
    sigmoid_ = in_place_method("sigmoid_", sigmoid)
    abs_ = in_place_method("abs_", lambda t: t.abs())
    relu_ = in_place_method("relu_", lambda t: t.relu())
    sin_, cos_, log_, log1p_, expm1_ = (in_place_method(n + "_", f) for n, f in zip(("sin", "cos", "log", "log1p", "expm1"), (sin, cos, log, log1p, expm1)))
    log2_, log10_, exp2_ = in_place_method("log2_", log2), in_place_method("log10_", log10), in_place_method("exp2_", exp2)
    reciprocal_, rsqrt_, square_ = in_place_method("reciprocal_", reciprocal), in_place_method("rsqrt_", rsqrt), in_place_method("square_", square)
    asin_ = arcsin_ = in_place_method("asin_", asin)
    acos_ = arccos_ = in_place_method("acos_", acos)
    atan_ = arctan_ = in_place_method("atan_", atan)
    sinh_, cosh_, erf_, erfc_ = in_place_method("sinh_", sinh), in_place_method("cosh_", cosh), in_place_method("erf_", erf), in_place_method("erfc_", erfc)
    tan_ = in_place_method("tan_", tan)
    asinh_ = arcsinh_ = in_place_method("asinh_", asinh)
    acosh_ = arccosh_ = in_place_method("acosh_", acosh)
    atanh_ = arctanh_ = in_place_method("atanh_", atanh)
    sign_, floor_, ceil_, trunc_ = in_place_method("sign_", sign), in_place_method("floor_", floor), in_place_method("ceil_", ceil), in_place_method("trunc_", trunc)
    round_ = in_place_method("round_", round)
    clamp_min_, clamp_max_ = in_place_method("clamp_min_", clamp_min), in_place_method("clamp_max_", clamp_max)
    clip_ = clamp_
