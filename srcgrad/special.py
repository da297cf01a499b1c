"""`torch.special` of the Tensor shim: PyTorch's special functions, each recorded under
PyTorch's node name and differentiable where PyTorch's is.

Most are the shim's own functions under their special names (expit is sigmoid, gammaln
lgamma, psi digamma, ...). The rest compute with registry primitives (`rules/
special_arrays.py`, `bessel_arrays.py`, `normal_arrays.py`, NumPy and `math` alone), so
the compiler differentiates them too: erfcx, i0, i0e, i1, i1e, ndtri, log_ndtr, entr,
xlog1py, zeta (in its second argument only, as PyTorch's), multigammaln. ndtr is
PyTorch's composite (1 + erf(x / sqrt 2)) / 2, one MulBackward1 node. bessel_j0 and
bessel_j1 have no derivative in PyTorch: their results never require grad. Integer
tensors are read as the default float dtype.
"""

import numpy as np

from .rules import bessel_arrays, normal_arrays, special_arrays
from .tensor import binary_ops, ops
from .tensor.functions import (
    digamma, erf, erfc, erfinv, exp2, expm1, lgamma, log1p, log_softmax, logit, logsumexp, polygamma, sigmoid, sinc,
    softmax, xlogy,
)
from .tensor.grad_mode import is_grad_enabled
from .tensor.pointwise_more import as_floating, floating_unary, multivariate_log_gamma
from .tensor.graph import node_class
from .tensor.rule_nodes import UndifferentiatedNode
from .tensor.tensor import Tensor

__all__ = [
    "expit", "logit", "erf", "erfc", "erfinv", "erfcx", "exp2", "expm1", "log1p", "logsumexp", "log_softmax",
    "softmax", "gammaln", "digamma", "psi", "polygamma", "multigammaln", "i0", "i0e", "i1", "i1e", "ndtr", "ndtri",
    "log_ndtr", "sinc", "round", "entr", "xlogy", "xlog1py", "zeta", "bessel_j0", "bessel_j1",
]

expit = sigmoid
gammaln = lgamma
psi = digamma

_M_SQRT1_2 = 0.707106781186547524400844362104849039


erfcx = floating_unary("erfcx", normal_arrays.erfcx, "SpecialErfcxBackward0")
log_ndtr = floating_unary("log_ndtr", normal_arrays.log_ndtr, "SpecialLogNdtrBackward0")
ndtri = floating_unary("ndtri", normal_arrays.ndtri, "SpecialNdtriBackward0")
i0 = floating_unary("i0", bessel_arrays.i0, "I0Backward0")
i0e = floating_unary("i0e", bessel_arrays.i0e, "SpecialI0EBackward0")
i1 = floating_unary("i1", bessel_arrays.i1, "SpecialI1Backward0")
i1e = floating_unary("i1e", bessel_arrays.i1e, "SpecialI1EBackward0")
entr = floating_unary("entr", special_arrays.entr, "SpecialEntrBackward0")


def _no_derivative(name, primitive):
    def function(input):
        return Tensor._make(np.asarray(primitive(as_floating(input)._data)))

    function.__name__ = name
    function.__doc__ = f"{name} of each element; no derivative (as PyTorch's), so the result never requires grad."
    return function


bessel_j0 = _no_derivative("bessel_j0", bessel_arrays.bessel_j0)
bessel_j1 = _no_derivative("bessel_j1", bessel_arrays.bessel_j1)


def ndtr(input):
    """The standard normal distribution function, PyTorch's (1 + erf(x / sqrt 2)) * 0.5,
    recorded as one node (MulBackward1, as PyTorch's last operation)."""
    return ops.composite("MulBackward1", lambda x: (1 + erf(x * _M_SQRT1_2)) * 0.5, as_floating(input))


def round(input, *, decimals=0):  # noqa: A001 - PyTorch's name
    """Each element rounded half to even to `decimals` places (RoundBackward1: PyTorch's
    special.round always passes decimals, so integer tensors are refused, as there)."""
    if input._data.dtype.kind not in "fc":
        kernel = "round_vml_cpu" if decimals == 0 else "round_cpu"
        raise NotImplementedError(f'"{kernel}" not implemented for \'{input.dtype.kind_name}\'')
    return ops.piecewise_constant(np.round, input, "RoundBackward1", decimals)


def multigammaln(input, p):
    """The multivariate log-gamma function of dimension p (MvlgammaBackward0; torch.mvlgamma)."""
    return multivariate_log_gamma(input, p, "special_multigammaln")


def _pair(name, op, primitive, node):
    """`name(input, other)` of two tensors or a tensor and a number: nodes `node`0 (two
    tensors), `node`1 (a number input), `node`2 (a number other)."""

    def function(input, other):
        if not isinstance(input, Tensor) and not isinstance(other, Tensor):
            raise TypeError(
                f"{op}() received an invalid combination of arguments - got "
                f"({type(input).__name__}, {type(other).__name__}), but expected one of:\n"
                " * (Tensor input, Tensor other, *, Tensor out = None)\n"
                " * (Number self, Tensor other, *, Tensor out = None)\n"
                " * (Tensor input, Number other, *, Tensor out = None)\n"
            )
        suffix = "0" if isinstance(input, Tensor) and isinstance(other, Tensor) else (
            "1" if isinstance(other, Tensor) else "2")
        return primitive(input, other, node + suffix)

    function.__name__ = name
    return function


def _xlog1py(input, other, node):
    return binary_ops.binary(special_arrays.xlog1py, input, other, node, floating=True)


def _zeta(input, other, node):
    """zeta(x, q): differentiable in q; a result whose x requires grad has PyTorch's node
    that raises at backward (the derivative in x is not implemented)."""
    if isinstance(input, Tensor) and input._requires_grad and is_grad_enabled():
        with_grad = binary_ops.binary(special_arrays.zeta, input.detach(), other, None, floating=True)
        return ops.without_derivative(with_grad._data, (input, other), node_class(node, UndifferentiatedNode), "zeta")
    return binary_ops.binary(special_arrays.zeta, input, other, node, floating=True)


xlog1py = _pair("xlog1py", "special_xlog1py", _xlog1py, "SpecialXlog1PyBackward")
xlog1py.__doc__ = "input * log1p(other), 0 where input is 0 (unless other is nan)."
zeta = _pair("zeta", "special_zeta", _zeta, "SpecialZetaBackward")
zeta.__doc__ = "The Hurwitz zeta function of each pair (broadcast); differentiable in other only."
