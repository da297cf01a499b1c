"""Piecewise and gated activations of `torch.nn.functional`: hardswish, hardsigmoid,
threshold, softshrink, hardshrink, prelu, glu and softmin, each written as Tensor code
and recorded as one node with PyTorch's name (`ops.composite`), so that its gradients,
first and higher, come from the rules of `where`, products and sums.

The branches are chosen on the input's values as PyTorch's kernels choose them, so the
gradient at a breakpoint is PyTorch's (hardswish's is 0 at -3 and 1 at 3)."""

import numpy as np

from ..tensor import ops
from ..tensor.dtypes import dim_axis
from ..tensor.functions import where
from ..tensor.tensor import Tensor

__all__ = ["hardswish", "hardsigmoid", "threshold", "softshrink", "hardshrink", "prelu", "glu", "softmin"]


def _floating(input, name):
    if input._data.dtype.kind not in "fc":
        raise NotImplementedError(f"\"{name}\" not implemented for '{input.dtype.kind_name}'")


def _recorded(name, fn, input, inplace, *args):
    """`fn(input, *args)` as one node `name`; `inplace` writes it into `input`."""
    if inplace:
        return input._rewrite(lambda t: ops.composite(name, fn, t, *args))
    return ops.composite(name, fn, input, *args)


def _hardswish(x):
    v = x._data
    return where(v <= -3, 0.0, where(v < 3, x * (x + 3) / 6, x))


def hardswish(input, inplace=False):
    """0 for x <= -3, x (x + 3) / 6 strictly between, x from 3 on (HardswishBackward0)."""
    _floating(input, "hardswish_cpu")
    return _recorded("HardswishBackward0", _hardswish, input, inplace)


def _hardsigmoid(x):
    v = x._data
    inside = (v > -3) & (v < 3)
    return where(inside, x / 6 + 0.5, where(v <= -3, 0.0, 1.0))


def hardsigmoid(input, inplace=False):
    """0 for x <= -3, x / 6 + 1/2 strictly between, 1 for x >= 3 (HardsigmoidBackward0;
    gradient 1/6 strictly inside only)."""
    _floating(input, "hardsigmoid_cpu")
    return _recorded("HardsigmoidBackward0", _hardsigmoid, input, inplace)


def _threshold(x, threshold, value):
    return where(x._data > threshold, x, value)


def threshold(input, threshold, value, inplace=False):
    """x where x > threshold, else `value` (ThresholdBackward0; in place ThresholdBackward1)."""
    return _recorded("ThresholdBackward1" if inplace else "ThresholdBackward0", _threshold, input, inplace, threshold,
                     value)


def _softshrink(x, lambd):
    v = x._data
    return where(v > lambd, x - lambd, where(v < -lambd, x + lambd, 0.0))


def softshrink(input, lambd=0.5):
    """x - lambd above lambd, x + lambd below -lambd, else 0 (SoftshrinkBackward0)."""
    _floating(input, "softshrink_cpu")
    if lambd < 0:
        largest = np.finfo(input._data.dtype).max
        raise RuntimeError(f"lambda must be in range [0, {largest:g}] for input dtype {input.dtype.kind_name}, but "
                           f"found {lambd:g}")
    return ops.composite("SoftshrinkBackward0", _softshrink, input, lambd)


def _hardshrink(x, lambd):
    v = x._data
    return where((v > lambd) | (v < -lambd), x, 0.0)


def hardshrink(input, lambd=0.5):
    """x where |x| > lambd, else 0 (HardshrinkBackward0)."""
    _floating(input, "hardshrink_cpu")
    return ops.composite("HardshrinkBackward0", _hardshrink, input, lambd)


def _prelu(x, weight):
    if x.dim() >= 2 and weight._data.size > 1:
        weight = weight.reshape((-1,) + (1,) * (x.dim() - 2))
    elif weight._data.size == 1:
        weight = weight.reshape(())
    return where(x._data > 0, x, weight * x)


def prelu(input, weight):
    """x where x > 0, else weight * x, one weight or one per channel (dim 1)
    (PreluKernelBackward0)."""
    if not isinstance(weight, Tensor):
        raise TypeError(f"prelu(): argument 'weight' (position 2) must be Tensor, not {type(weight).__name__}")
    if weight.dim() > 1:
        raise RuntimeError(f"prelu: Expected `weight` to be a scalar or 1D tensor, but got: ndim = {weight.dim()}")
    if weight._data.dtype != input._data.dtype:
        raise RuntimeError(f"prelu: Type promoting not supported. Got {input.dtype.kind_name} and "
                           f"{weight.dtype.kind_name}")
    count = weight._data.size
    if count != 1:
        if input.dim() == 0:
            raise RuntimeError("Not allow zero-dim input tensor.")
        channels = input._data.shape[1] if input.dim() >= 2 else 1
        if count != channels:
            raise RuntimeError(
                "Mismatch of parameter numbers and input channel size. Found parameter numbers = "
                f"{count} and channel size = {channels}."
            )
    return ops.composite("PreluKernelBackward0", _prelu, input, weight)


def _glu(x, axis):
    a, b = x.chunk(2, axis)
    return a * b.sigmoid()


def glu(input, dim=-1):
    """a * sigmoid(b), a and b the two halves of `input` along `dim` (GluBackward0)."""
    if input.dim() == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    axis = dim_axis(dim, input.dim()) % input.dim()
    size = input._data.shape[axis]
    if size % 2:
        raise RuntimeError(f"Halving dimension must be even, but dimension {axis} is size {size}")
    return ops.composite("GluBackward0", _glu, input, axis)


def softmin(input, dim=None, _stacklevel=3, dtype=None):
    """softmax(-input, dim) (SoftmaxBackward0)."""
    from .functional import softmax

    if dtype is not None:
        input = input.to(dtype)
    return softmax(-input, dim)
