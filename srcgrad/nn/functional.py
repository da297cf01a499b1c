"""`torch.nn.functional` for the Tensor shim: here linear, the smooth activations,
softmax, dropout, normalize and one_hot; the rest by concept in functional_losses.py,
functional_pieces.py (piecewise and gated activations), functional_layers.py
(embedding, bilinear, similarities), functional_normalization.py and
functional_convolution.py (convolution, pooling, padding), all importable from here.

Each function that PyTorch runs as one kernel is recorded as one node with
PyTorch's name: a registry primitive (`srcgrad.rules.activations`) where there is
one, otherwise `ops.composite`, whose gradient comes from the rules of the
primitives it is made of.
"""

import math

import numpy as np

from ..rules import activations
from ..tensor import ops
from ..tensor.complex_refusals import refuse_complex
from ..tensor.dtypes import dim_axis
from ..tensor.meta_arrays import meta_array
from ..tensor.functions import where
from ..tensor.products import addmm
from ..tensor.tensor import Tensor

__all__ = [
    "relu", "sigmoid", "tanh", "softplus", "logsigmoid", "softmax", "log_softmax", "linear", "gelu", "silu",
    "leaky_relu", "elu", "dropout", "normalize", "hardtanh", "relu6", "one_hot", "celu", "selu", "mish", "softsign",
    "tanhshrink",
]


# --- layers -----------------------------------------------------------------------------


def _linear(input, weight, bias):
    out = input @ weight.T
    return out if bias is None else out + bias


def linear(input, weight, bias=None):
    """`input @ weight.T + bias`, as PyTorch computes it (its nodes, and its views): with a
    bias, addmm(bias, input, weight.t()) for a 2-D input, and for a contiguous 1-D or
    N-D one of its rows flattened, viewed back (ViewBackward0, a view of the addmm); else
    input @ weight.t() (SqueezeBackward4, MmBackward0, UnsafeViewBackward0), plus the
    bias (AddBackward0)."""
    if not (isinstance(input, Tensor) and isinstance(weight, Tensor)):
        return ops.composite("AddmmBackward0", _linear, input, weight, bias)
    dims = input.dim()
    if dims == 0 or weight.dim() == 0:
        raise RuntimeError(f"both arguments to linear need to be at least 1D, but they are {dims}D and "
                           f"{weight.dim()}D")
    transposed = weight.t()
    if bias is not None and dims == 2:
        return addmm(bias, input, transposed)
    if bias is not None and input._data.flags.c_contiguous:  # (a 2-D input returned above)
        shape = input._data.shape
        rows = addmm(bias, input.reshape(math.prod(shape[:-1]), shape[-1]), transposed)
        return rows.view(*input._data.shape[:-1], weight._data.shape[0])
    out = input @ transposed
    return out if bias is None else out + bias


# --- activations ------------------------------------------------------------------------


def relu(input, inplace=False):
    return Tensor.relu(input)


def sigmoid(input):
    return Tensor.sigmoid(input)


def tanh(input):
    return Tensor.tanh(input)


def _softplus(x, beta, threshold):
    scaled = x if beta == 1 else x * beta
    soft = ops.apply(activations.softplus, scaled)
    soft = soft if beta == 1 else soft / beta
    linear = scaled._data > threshold
    return where(linear, x, soft) if linear.any() else soft


def softplus(input, beta=1.0, threshold=20.0):
    """log(1 + exp(beta * x)) / beta, and x itself where beta * x > threshold (as in
    PyTorch: there the gradient is exactly 1)."""
    refuse_complex("softplus", input)
    if beta == 1 and not (input._data > threshold).any():
        return ops.apply(activations.softplus, input, name="SoftplusBackward0")
    return ops.composite("SoftplusBackward0", _softplus, input, beta, threshold)


def logsigmoid(input):
    return ops.apply(activations.logsigmoid, input, name="LogSigmoidBackward0")


def _in_place_name(name):
    """PyTorch's node of an activation's in-place form where it has its own overload
    (`elu_`: EluBackward1; leaky_relu_, celu_, selu_, threshold_, rrelu_ likewise)."""
    return name[:-1] + "1"


def _activation(primitive, input, name, inplace=False, *, own_in_place=False, **kwargs):
    """One node `name` over `primitive`; `inplace` writes the result into `input`, as the
    node `_in_place_name(name)` with `own_in_place`."""
    if input._data.dtype.kind not in "fc":
        raise NotImplementedError(f"\"{name[:-9]}\" not implemented for '{input.dtype.kind_name}'")
    if inplace:
        written = _in_place_name(name) if own_in_place else name
        return input._rewrite(lambda t: ops.apply(primitive, t, name=written, **kwargs))
    return ops.apply(primitive, input, name=name, **kwargs)


def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    """min_val where x <= min_val, max_val where x >= max_val, else x (nan passes):
    HardtanhBackward0, whose gradient is g strictly between the bounds (and at nan), else 0;
    that gradient's node has an edge to x (a zero gradient), as PyTorch's."""
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    refuse_complex("clamp", input)
    x = input._data
    if x.dtype.kind in "iu":  # never tracked; the bounds truncated to integers
        return Tensor._make(np.clip(x, int(min_val), int(max_val)).astype(x.dtype))
    if x.dtype.kind not in "fc":
        raise NotImplementedError(f"\"hardtanh\" not implemented for '{input.dtype.kind_name}'")
    if inplace:
        return input._rewrite(lambda t: hardtanh(t, min_val, max_val))
    return ops.composite("HardtanhBackward0", _hardtanh, input, min_val, max_val, _compared=(0,))


def _hardtanh(x, low, high):
    return where(x <= low, low, where(x >= high, high, x))


def relu6(input, inplace=False):
    """hardtanh(input, 0, 6) (HardtanhBackward0)."""
    return hardtanh(input, 0.0, 6.0, inplace)


def gelu(input, approximate="none"):
    """x * Phi(x) (GeluBackward0), or its tanh approximation for approximate='tanh'."""
    if approximate not in ("none", "tanh"):
        raise RuntimeError("approximate argument must be either none or tanh.")
    if approximate == "tanh":
        return _activation(activations.gelu, input, "GeluBackward0", approximate="tanh")
    return _activation(activations.gelu, input, "GeluBackward0")


def silu(input, inplace=False):
    """x * sigmoid(x) (SiluBackward0)."""
    return _activation(activations.silu, input, "SiluBackward0", inplace)


def leaky_relu(input, negative_slope=0.01, inplace=False):
    """x, or negative_slope * x where x <= 0 (LeakyReluBackward0; in place LeakyReluBackward1)."""
    return _activation(activations.leaky_relu, input, "LeakyReluBackward0", inplace, own_in_place=True,
                       negative_slope=negative_slope)


def elu(input, alpha=1.0, inplace=False):
    """x, or alpha * (exp(x) - 1) where x <= 0 (EluBackward0; in place EluBackward1)."""
    return _activation(activations.elu, input, "EluBackward0", inplace, own_in_place=True, alpha=alpha)


def _celu(x, alpha):
    return where(x._data > 0, x, ops.apply(activations.elu, x / alpha, alpha=alpha))


def celu(input, alpha=1.0, inplace=False):
    """x where x > 0, else alpha * (exp(x / alpha) - 1) (CeluBackward0; in place
    CeluBackward1); elu for alpha 1."""
    if alpha == 0:
        raise RuntimeError("ZeroDivisionError: alpha cannot be 0 for CELU")
    if input._data.dtype.kind not in "fc":
        raise NotImplementedError(f"\"elu\" not implemented for '{input.dtype.kind_name}'")
    if inplace:
        return input._rewrite(lambda t: _celu_node(t, alpha, "CeluBackward1"))
    return _celu_node(input, alpha, "CeluBackward0")


def _celu_node(input, alpha, name):
    if alpha == 1:
        return ops.apply(activations.elu, input, name=name)
    return ops.composite(name, _celu, input, alpha)


_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def _selu(x):
    return ops.apply(activations.elu, x, alpha=_SELU_ALPHA) * _SELU_SCALE


def selu(input, inplace=False):
    """scale * elu(x, alpha) with PyTorch's two constants (EluBackward0, as PyTorch's; in
    place EluBackward1)."""
    if input._data.dtype.kind not in "fc":
        raise NotImplementedError(f"\"elu\" not implemented for '{input.dtype.kind_name}'")
    if inplace:
        return input._rewrite(lambda t: ops.composite("EluBackward1", _selu, t))
    return ops.composite("EluBackward0", _selu, input)


def _mish(x):
    return x * ops.apply(activations.softplus, x).tanh()


def mish(input, inplace=False):
    """x * tanh(softplus(x)) (MishBackward0)."""
    if input._data.dtype.kind not in "fc":
        raise NotImplementedError(f"\"mish\" not implemented for '{input.dtype.kind_name}'")
    if inplace:
        return input._rewrite(mish)
    return ops.composite("MishBackward0", _mish, input)


def softsign(input):
    """x / (1 + |x|), as PyTorch writes it (DivBackward0)."""
    return input / (input.abs() + 1)


def tanhshrink(input):
    """x - tanh(x), as PyTorch writes it (SubBackward0)."""
    return input - input.tanh()


def dropout(input, p=0.5, training=True, inplace=False):
    """Each element zeroed with probability `p` and the rest scaled by 1 / (1 - p), the
    mask drawn from srcgrad's generator (MulBackward0; a meta mask, drawing nothing, for
    a meta input); the input itself when not training or p is 0."""
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not training or p == 0.0:
        return input
    from ..tensor.generators import stream

    dtype = input._data.dtype
    if input.is_meta:  # no values to draw: a meta mask, the generator left as it is
        mask = meta_array(input._data.shape, dtype)
    elif p == 1.0:
        mask = np.zeros(input._data.shape, dtype)
    else:
        keep = stream().random(input._data.shape) < 1.0 - p
        mask = keep.astype(dtype) * np.asarray(1.0 / (1.0 - p), dtype)
    mask = Tensor._make(mask if input.is_meta else np.asarray(mask, dtype))
    if inplace:
        return input.mul_(mask)
    return input * mask


def normalize(input, p=2.0, dim=1, eps=1e-12, out=None):
    """`input / max(norm_p(input along dim), eps)` (DivBackward0)."""
    denom = input.norm(p, dim, keepdim=True).clamp_min(eps).expand_as(input)
    return input / denom


def _softmax_dim(input, dim, op):
    """The dim `op` (softmax or log_softmax) runs over; a non-floating input raises
    PyTorch's NotImplementedError, which names the kernel (`lastdim` for the last dim);
    complex tensors too."""
    if dim is not None:
        dim_axis(dim, input.dim())  # PyTorch's range check
    else:
        dim = 0 if input.dim() in (0, 1, 3) else 1
    if input._data.dtype.kind != "f":
        shape = input._data.shape
        last = "_lastdim" if not shape or dim % len(shape) == len(shape) - 1 else ""
        raise NotImplementedError(f'"{op}{last}_kernel_impl" not implemented for \'{input.dtype.kind_name}\'')
    return dim


def softmax(input, dim=None, dtype=None):
    if dtype is not None:
        input = input.to(dtype)
    return ops.apply(activations.softmax, input, name="SoftmaxBackward0", axis=_softmax_dim(input, dim, "softmax"))


def log_softmax(input, dim=None, dtype=None):
    if dtype is not None:
        input = input.to(dtype)
    return ops.apply(activations.log_softmax, input, name="LogSoftmaxBackward0",
                     axis=_softmax_dim(input, dim, "log_softmax"))


def one_hot(tensor, num_classes=-1):
    """An int64 tensor of shape `tensor.shape + (num_classes,)` with a 1 at each class
    index (never tracked); `num_classes=-1` takes the largest index plus one."""
    x = tensor._data
    if x.dtype != np.int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    if num_classes == -1:
        if not x.size:
            raise RuntimeError("Can not infer total number of classes from empty tensor.")
        num_classes = int(x.max()) + 1
    if x.size and x.min() < 0:
        raise RuntimeError("Class values must be non-negative.")
    if x.size and x.max() >= num_classes:
        raise RuntimeError("Class values must be smaller than num_classes.")
    return Tensor._make((x[..., None] == np.arange(num_classes)).astype(np.int64))


# --- the rest of torch.nn.functional, by concept ---------------------------------------

from . import (  # noqa: E402
    functional_convolution, functional_layers, functional_losses, functional_normalization, functional_pieces,
    functional_pooling, functional_attention, functional_upsampling,
    functional_folding, functional_margin_losses,
    functional_dropout,
)
from .functional_convolution import *  # noqa: E402,F401,F403
from .functional_layers import *  # noqa: E402,F401,F403
from .functional_losses import *  # noqa: E402,F401,F403
from .functional_normalization import *  # noqa: E402,F401,F403
from .functional_pieces import *  # noqa: E402,F401,F403
from .functional_pooling import *  # noqa: E402,F401,F403
from .functional_attention import *  # noqa: E402,F401,F403
from .functional_upsampling import *  # noqa: E402,F401,F403
from .functional_folding import *  # noqa: E402,F401,F403
from .functional_margin_losses import *  # noqa: E402,F401,F403
from .functional_dropout import *  # noqa: E402,F401,F403

__all__ += [*functional_losses.__all__, *functional_pieces.__all__, *functional_layers.__all__,
            *functional_normalization.__all__, *functional_convolution.__all__,
            *functional_pooling.__all__, *functional_attention.__all__,
            *functional_upsampling.__all__, *functional_folding.__all__,
            *functional_margin_losses.__all__, *functional_dropout.__all__]
