"""Tensors on PyTorch's 'meta' device: shape, dtype, strides, `requires_grad` and
`grad_fn`, no data. Their array is a `MetaArray` (meta_arrays.py), so every op, rule
and backward pass runs unchanged and gives meta results and meta gradients.

This module holds what is decided per tensor: whether a tensor is meta, a leaf made
there, a copy moved there (`to("meta")`, recorded as ToCopyBackward0), and PyTorch's
errors for what a meta tensor cannot do: give values back (`numpy()`, `.cpu()`,
`.to("cpu")`) or meet a CPU tensor in one op. `item()`, `tolist()`, `bool()`,
`float()` and `int()` are refused by the array itself.
"""

import numpy as np

from . import ops
from .meta_arrays import NO_DATA, MetaArray, as_meta, is_meta_array, meta_array

__all__ = ["is_meta", "meta_leaf", "placed", "moved_to_meta", "refuse_copy_out", "refuse_numpy"]

_NO_NUMPY = "can't convert meta device type tensor to numpy. Use Tensor.cpu() to copy the tensor to host memory first."


def is_meta(t):
    """Whether the Tensor `t` is on the meta device."""
    return is_meta_array(t._data)


def meta_leaf(shape, dtype, requires_grad=False):
    """A new leaf meta tensor of `shape` and `dtype` (a NumPy dtype): what a factory makes
    on the meta device, without allocating."""
    out = ops.Tensor._make(meta_array(shape, dtype))
    if requires_grad:
        out.requires_grad_(True)
    return out


def placed(t):
    """A new leaf `t`, made on the CPU by a factory, as the meta tensor of its shape,
    dtype and `requires_grad` (factories whose values decide nothing of the shape)."""
    return ops.Tensor._make(meta_array(t._data.shape, t._data.dtype), t._requires_grad)


def moved_to_meta(t):
    """`t.to("meta")`: `t` itself when already there; otherwise a meta tensor of its shape
    and dtype, recorded as PyTorch's ToCopyBackward0 when `t` requires grad."""
    if is_meta(t):
        return t
    if not t._requires_grad:
        return ops.Tensor._make(meta_array(t._data.shape, t._data.dtype))
    out = ops.apply(np.positive, t, name="ToCopyBackward0", saves=False)  # the copy's rule: gradient as it is
    out._data = as_meta(out._data)
    return out


def refuse_copy_out(t):
    """PyTorch's error for copying a meta tensor's values to the CPU (`.cpu()`, `.to("cpu")`,
    `cpu_tensor.copy_(meta)`)."""
    if is_meta(t):
        raise NotImplementedError(NO_DATA)


def refuse_numpy(t):
    if is_meta(t):
        raise TypeError(_NO_NUMPY)
