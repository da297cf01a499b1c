"""More elementwise tensor functions: the two-operand logaddexp, logaddexp2, hypot,
xlogy, fmod, copysign, heaviside, nextafter, float_power, addcmul and addcdiv, and the
one-operand nan_to_num, sinc, logit, lgamma, digamma, polygamma, mvlgamma, erfinv, i0,
sgn, fix, deg2rad and rad2deg, with their in-place forms.

Each is a `torch.X(input, ...)` function that `Tensor` also binds as a method. None
holds calculus: each op is one registry primitive (`np.logaddexp`, `np.fmod`,
`special_arrays.erfinv`, ...) recorded through `ops` under PyTorch's node name, or
(addcmul, addcdiv) Tensor code recorded as one node.
"""

import math
import operator

import numpy as np

from .complex_refusals import refuse_complex
from ..rules import activations, bessel_arrays, special_arrays
from . import binary_ops, dtypes, ops
from .graph import node_class
from .pointwise import in_place_method
from .rule_nodes import ConstantGradNode, NoDerivativeNode

__all__ = [
    "logaddexp", "logaddexp2", "hypot", "xlogy", "fmod", "copysign", "heaviside", "float_power", "addcmul", "addcdiv",
    "nan_to_num", "sinc", "logit", "lgamma", "digamma", "polygamma", "erfinv", "i0", "sgn", "fix", "nextafter",
    "deg2rad", "rad2deg", "mvlgamma", "PointwiseMoreOps",
]


def _is_tensor(x):
    return isinstance(x, ops.Tensor)


def _require_tensors(name, **operands):
    """PyTorch's TypeError for an operand that is no Tensor; positions count from 1, from
    input for the function and from the first operand after self for the method."""
    for position, (label, value) in enumerate(operands.items(), start=1):
        if not _is_tensor(value):
            raise TypeError(f"{name}(): argument '{label}' (position {position}) must be Tensor, not {type(value).__name__}")


def _floating_pair(name, primitive, node, kinds="fc"):
    """`name(input, other)` of two tensors, computed in their promoted dtype, whose kind
    must be among `kinds` (PyTorch has no integer kernel, hypot none for complex)."""

    def function(input, other):
        _require_tensors(name, input=input, other=other)
        promoted = dtypes.result_type(input._data, other._data)
        if promoted.kind == "c" and primitive is np.logaddexp:
            raise NotImplementedError(
                "logaddexp of complex tensors is not supported by srcgrad's Tensor shim: compute it as "
                "(input.exp() + other.exp()).log(), or on real tensors")
        if promoted.kind not in kinds:
            kind = input.dtype.kind_name if input._data.dtype == promoted else other.dtype.kind_name
            raise NotImplementedError(f'"{name}_cpu" not implemented for \'{kind}\'')
        return binary_ops.binary(primitive, input, other, node)

    def method(self, other):
        _require_tensors(name, other=other)
        return function(self, other)

    function.__name__ = method.__name__ = name
    function.__doc__ = method.__doc__ = f"np.{primitive.__name__} of each pair of elements (broadcast), {node}."
    return function, method


logaddexp, _logaddexp_method = _floating_pair("logaddexp", np.logaddexp, "LogaddexpBackward0")
logaddexp2, _logaddexp2_method = _floating_pair("logaddexp2", np.logaddexp2, "Logaddexp2Backward0", "f")
hypot, _hypot_method = _floating_pair("hypot", activations.hypot, "HypotBackward0", "f")  # nan gradient at the origin


def _require_tensor_or_number(name, input, other):
    """PyTorch's TypeError for `name(input, other)` whose overloads take (Tensor, Tensor) and
    (Tensor, Number) only."""
    if not _is_tensor(input) or not (_is_tensor(other) or binary_ops.is_operand(other)):
        raise TypeError(
            f"{name}() received an invalid combination of arguments - got ({type(input).__name__}, "
            f"{type(other).__name__}), but expected one of:\n * (Tensor input, Tensor other, *, Tensor out = None)\n"
            " * (Tensor input, Number other, *, Tensor out = None)\n")


def _number_or_tensor(name, primitive, nodes, floating):
    """`name(input, other)` where other may be a Python number: `nodes[0]` names the node
    of two tensors, `nodes[1]` that of a number `other` (PyTorch's Scalar overload, an
    edge for the tensor only)."""

    def function(input, other):
        _require_tensor_or_number(name, input, other)
        refuse_complex(name, input, other)
        node = nodes[0] if _is_tensor(other) else nodes[1]
        return binary_ops.binary(primitive, input, other, node, floating=floating)

    function.__name__ = name
    function.__doc__ = f"np.{primitive.__name__} of each pair of elements (broadcast): {nodes[0]}, {nodes[1]} for a number."
    return function


copysign = _number_or_tensor("copysign", np.copysign, ("CopysignBackward0", "CopysignBackward1"), True)
_fmod = _number_or_tensor("fmod", np.fmod, ("FmodBackward1", "FmodBackward0"), False)


def fmod(input, other):
    """`input` modulo `other` with the sign of `input` (C's fmod): FmodBackward1 for two
    tensors, FmodBackward0 for a number other; the gradient of input is 1, of other
    -trunc(input / other). Integer division by zero raises, as in PyTorch."""
    _require_tensor_or_number("fmod", input, other)
    y = binary_ops.value_of(binary_ops.operand(other))
    kind = dtypes.result_type(input._data, y).kind
    if kind == "b":
        raise NotImplementedError("\"fmod_cpu\" not implemented for 'Bool'")
    if kind in "iu" and np.any(np.asarray(y) == 0):
        raise RuntimeError("ZeroDivisionError")
    return _fmod(input, other)


def xlogy(input, other):
    """input * log(other), 0 where input is 0 (unless other is nan): XlogyBackward0 for
    two tensors, XlogyBackward1 for a number input, XlogyBackward2 for a number other."""
    if not _is_tensor(input) and not _is_tensor(other):
        raise TypeError(
            "xlogy() received an invalid combination of arguments - got "
            f"({type(input).__name__}, {type(other).__name__}), but expected one of:\n"
            " * (Tensor input, Tensor other, *, Tensor out = None)\n"
            " * (Number self, Tensor other, *, Tensor out = None)\n"
            " * (Tensor input, Number other, *, Tensor out = None)\n"
        )
    refuse_complex("xlogy", input, other)
    name = "XlogyBackward0" if _is_tensor(input) and _is_tensor(other) else (
        "XlogyBackward1" if _is_tensor(other) else "XlogyBackward2")
    return binary_ops.binary(special_arrays.xlogy, input, other, name, floating=True)


def heaviside(input, values):
    """0 where input < 0, 1 where input > 0, `values` where input is 0. Both tensors of
    one dtype; PyTorch has no derivative (`NotImplemented` node, whose backward raises)."""
    _require_tensors("heaviside", input=input, values=values)
    return stepped(input, values, "heaviside")


def stepped(input, values, op):
    """`heaviside(input, values)` of two tensors, whose node's backward names the op `op`
    (PyTorch's `heaviside_` for the in-place form); complex tensors are refused."""
    if input._data.dtype.kind == "c" or values._data.dtype.kind == "c":
        raise RuntimeError("heaviside is not yet implemented for complex tensors.")
    if input._data.dtype != values._data.dtype:
        raise RuntimeError("heaviside is not yet implemented for tensors with different dtypes.")
    ops.check_broadcast(input._data, values._data)
    ans = np.heaviside(input._data, values._data).astype(input._data.dtype, copy=False)
    return ops.without_derivative(ans, (input, values), node_class("NotImplemented", NoDerivativeNode), op)


def nextafter(input, other):
    """The next floating-point value after each element of `input` towards `other`, in the
    operands' promoted (floating) dtype (NextafterBackward0). As PyTorch's, the gradient
    is input's own (the step is read as a constant), and zero for `other`."""
    _require_tensors("nextafter", input=input, other=other)
    promoted = dtypes.result_type(input._data, other._data)
    if promoted.kind != "f":
        kind = input.dtype.kind_name if input._data.dtype == promoted else other.dtype.kind_name
        raise NotImplementedError(f'"nextafter_cpu" not implemented for \'{kind}\'')
    ops.check_broadcast(input._data, other._data)
    shape = np.broadcast_shapes(input._data.shape, other._data.shape)
    if input._data.dtype != promoted:
        input = input.to(dtypes.as_dtype(promoted))
    if input._data.shape != shape:
        input = input.expand(shape)
    target = other._data.astype(promoted, copy=False)
    if input._requires_grad:  # the identity's node and gradient, the value nextafter's
        return ops.unary(np.positive, input, "NextafterBackward0", compute=lambda v: np.nextafter(v, target))
    ans = np.nextafter(input._data, target)
    return ops.without_derivative(ans, (input, other), node_class("NextafterBackward0", ConstantGradNode))


def float_power(input, exponent):
    """`input ** exponent` computed in float64 (complex128 for complex operands), as
    PyTorch's float_power: PowBackward0 for a number exponent, PowBackward1 for two
    tensors, PowBackward2 for a number base."""
    if not _is_tensor(input) and not _is_tensor(exponent):
        raise TypeError("float_power() received an invalid combination of arguments")
    complex_ = any(_is_tensor(t) and t._data.dtype.kind == "c" or isinstance(t, complex) for t in (input, exponent))
    wide = dtypes.complex128 if complex_ else dtypes.float64
    base = input.to(wide) if _is_tensor(input) else input
    power = exponent.to(wide) if _is_tensor(exponent) else exponent
    if not _is_tensor(base):
        return power.__rpow__(base)
    return base ** power


def _addc(name, node, primitive):
    def combine(input, tensor1, tensor2, value):
        # as PyTorch's kernel: every operand in the common dtype, then input + value * t1 op t2
        common = dtypes.of(dtypes.result_type(input._data, tensor1._data, tensor2._data))
        tensor1, tensor2 = tensor1.to(common), tensor2.to(common)
        return input + primitive(tensor1 if value == 1 else tensor1 * value, tensor2)

    def function(input, tensor1, tensor2, *, value=1):
        _require_tensors(name, input=input, tensor1=tensor1, tensor2=tensor2)
        if primitive is operator.truediv and all(t._data.dtype.kind in "iub" for t in (tensor1, tensor2)):
            raise RuntimeError(
                "Integer division with addcdiv is no longer supported, and in a future  release addcdiv will perform "
                "a true division of tensor1 and tensor2. The historic addcdiv behavior can be implemented as "
                "(input + value * torch.trunc(tensor1 / tensor2)).to(input.dtype) for integer inputs and as "
                "(input + value * tensor1 / tensor2) for float inputs. The future addcdiv behavior is just the "
                "latter implementation: (input + value * tensor1 / tensor2), for all dtypes."
            )
        return ops.composite(node, combine, input, tensor1, tensor2, value)

    function.__name__ = name
    function.__doc__ = f"input + value * (tensor1 {'*' if primitive is operator.mul else '/'} tensor2), one {node}."
    return function


addcmul = _addc("addcmul", "AddcmulBackward0", operator.mul)
addcdiv = _addc("addcdiv", "AddcdivBackward0", operator.truediv)


# --- one operand ---------------------------------------------------------------------------


def as_floating(input):
    """`input` (a Tensor; PyTorch's TypeError for another value), an integer or bool one
    read as the default float dtype (it cannot require grad)."""
    if not isinstance(input, ops.Tensor):
        raise TypeError(f"argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    if input._data.dtype.kind not in "fc":
        return ops.Tensor._make(input._data.astype(dtypes.DEFAULT_FLOAT.numpy))
    return input


def nan_to_num(input, nan=0.0, posinf=None, neginf=None):
    """nan, inf and -inf replaced by `nan`, `posinf` and `neginf` (by default the dtype's
    largest and smallest finite values) (NanToNumBackward0: the gradient passes where
    the element was finite)."""
    if input._data.dtype.kind not in "fc":
        return ops.Tensor._make(input._data.copy())
    return ops.apply(np.nan_to_num, input, name="NanToNumBackward0", nan=nan, posinf=posinf, neginf=neginf)


def sinc(input):
    """sin(pi x) / (pi x), 1 at 0 (SincBackward0)."""
    return ops.unary(np.sinc, as_floating(input), "SincBackward0")


def logit(input, eps=None):
    """log(z / (1 - z)), z = input clamped to [eps, 1 - eps] when eps is given
    (LogitBackward0; the gradient is 0 outside that range, nan outside [0, 1] without eps)."""
    if eps is not None and (isinstance(eps, bool) or not isinstance(eps, (int, float))):
        raise TypeError(f"logit(): argument 'eps' (position 2) must be float, not {type(eps).__name__}")
    refuse_complex("logit", input)
    return ops.unary(special_arrays.logit, as_floating(input), "LogitBackward0", consts=(eps,))


def floating_unary(name, primitive, node):
    """The function `name(input)`: the elementwise `primitive` of `input` read as floating
    (`as_floating`), recorded as `node`."""

    def function(input):
        refuse_complex(name, input)
        return ops.unary(primitive, as_floating(input), node)

    function.__name__ = name
    function.__doc__ = f"{name} of each element ({node}); an integer tensor is read as float32."
    return function


lgamma = floating_unary("lgamma", special_arrays.lgamma, "LgammaBackward0")
digamma = floating_unary("digamma", special_arrays.digamma, "DigammaBackward0")
erfinv = floating_unary("erfinv", special_arrays.erfinv, "ErfinvBackward0")
i0 = floating_unary("i0", bessel_arrays.i0, "I0Backward0")


def _angle_unit(name, primitive, node, factor):
    def function(input):
        refuse_complex(name, input)
        x = as_floating(input)
        scale = x._data.dtype.type(factor)  # PyTorch multiplies by the factor rounded to the dtype
        return ops.unary(primitive, x, node, compute=lambda v: v * scale)

    function.__name__ = name
    function.__doc__ = f"Each angle converted: times {factor!r} ({node}); an integer tensor is read as float32."
    return function


deg2rad = _angle_unit("deg2rad", np.deg2rad, "Deg2RadBackward0", math.pi / 180.0)
rad2deg = _angle_unit("rad2deg", np.rad2deg, "Rad2DegBackward0", 180.0 / math.pi)


def sgn(input):
    """The sign of each element of a real tensor: -1, 0 or 1, 0 for nan; zero gradient
    (SgnBackward0). Integers keep their dtype."""
    if input._data.dtype == np.bool_:
        return ops.Tensor._make(input._data.copy())
    out = ops.piecewise_constant(np.sign, input, "SgnBackward0")
    if out._data.dtype.kind == "f":
        out._data[np.isnan(out._data)] = 0
    return out


def fix(input):
    """`trunc` under its other name (TruncBackward0)."""
    return input.trunc()


def polygamma(n, input):
    """The n-th derivative of digamma at each element (PolygammaBackward0)."""
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)):
        raise TypeError(f"polygamma(): argument 'n' (position 1) must be int, not {type(n).__name__}")
    if n < 0:
        raise RuntimeError("polygamma(n, x) does not support negative n.")
    refuse_complex(("digamma", "trigamma")[n] if n < 2 else "polygamma", input)
    return ops.apply(special_arrays.polygamma, int(n), as_floating(input), name="PolygammaBackward0", edge_args=(1,))


def _polygamma_method(self, n):
    return polygamma(n, self)


def multivariate_log_gamma(input, p, op="mvlgamma", position=2):
    """The multivariate log-gamma function of dimension p (MvlgammaBackward0), under the
    name `op` PyTorch's errors give (mvlgamma, special_multigammaln)."""
    if isinstance(p, bool) or not isinstance(p, (int, np.integer)):
        raise TypeError(f"{op}(): argument 'p' (position {position}) must be int, not {type(p).__name__}")
    if p < 1:
        raise RuntimeError("p has to be greater than or equal to 1")
    refuse_complex("mvlgamma", input)
    return ops.apply(special_arrays.mvlgamma, as_floating(input), int(p), name="MvlgammaBackward0", edge_args=(0,))


def mvlgamma(input, p):
    """torch.mvlgamma: special.multigammaln's other name."""
    return multivariate_log_gamma(input, p)


def _mvlgamma_method(self, p):
    return multivariate_log_gamma(self, p, position=1)


class PointwiseMoreOps:
    """The Tensor methods of this module."""

    __slots__ = ()
    logaddexp, logaddexp2, hypot = _logaddexp_method, _logaddexp2_method, _hypot_method
    xlogy, fmod, copysign, heaviside, float_power = xlogy, fmod, copysign, heaviside, float_power
    addcmul, addcdiv = addcmul, addcdiv
    nan_to_num, sinc, logit, lgamma, digamma, erfinv = nan_to_num, sinc, logit, lgamma, digamma, erfinv
    polygamma = _polygamma_method
    hypot_, xlogy_, fmod_, copysign_ = (in_place_method(n + "_", f) for n, f in
                                        (("hypot", hypot), ("xlogy", xlogy), ("fmod", fmod), ("copysign", copysign)))
    addcmul_, addcdiv_, nan_to_num_ = in_place_method("addcmul_", addcmul), in_place_method("addcdiv_", addcdiv), in_place_method(
        "nan_to_num_", nan_to_num)
    sinc_, logit_, lgamma_, digamma_, erfinv_ = (in_place_method(n + "_", f) for n, f in (
        ("sinc", sinc), ("logit", logit), ("lgamma", lgamma), ("digamma", digamma), ("erfinv", erfinv)))
    polygamma_ = in_place_method("polygamma_", _polygamma_method)
    mvlgamma, mvlgamma_ = _mvlgamma_method, in_place_method("mvlgamma_", _mvlgamma_method)
    i0, sgn, fix, nextafter, deg2rad, rad2deg = i0, sgn, fix, nextafter, deg2rad, rad2deg
    i0_, sgn_, fix_, nextafter_, deg2rad_, rad2deg_ = (in_place_method(n + "_", f) for n, f in (
        ("i0", i0), ("sgn", sgn), ("fix", fix), ("nextafter", nextafter), ("deg2rad", deg2rad), ("rad2deg", rad2deg)))
    float_power_ = in_place_method("float_power_", float_power)
