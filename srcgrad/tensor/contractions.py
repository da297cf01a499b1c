"""Contractions of tensors: tensordot, vdot, addmv, addbmm and chain_matmul.

tensordot is PyTorch's composition (permute, reshape, mm, and a view of the product:
ViewBackward0); vdot is the registry's `np.vdot` (VdotBackward0); addmv and addbmm are
Tensor code recorded as one node (AddmvBackward0, AddbmmBackward0), as addmm is;
chain_matmul multiplies left to right and views the product (ViewBackward0), after
PyTorch's deprecation warning. None holds calculus. Checks and messages are PyTorch's.
"""

import numbers
import warnings

import numpy as np

from . import ops
from .dtypes import dim_axis
from .products import matmul

__all__ = ["tensordot", "vdot", "addmv", "addbmm", "chain_matmul", "ContractionOps"]


def _dim_list(name, dims):
    if isinstance(dims, numbers.Integral):
        raise TypeError(f"tensordot(): argument '{name}' (position 3) must be tuple of ints, not int")
    return [int(d) for d in dims]


def tensordot(a, b, dims=2):
    """The sum over the paired dims `dims` (an int d: a's last d with b's first d; or two
    lists) of the product of `a` and `b`, a's other dims then b's (ViewBackward0)."""
    if isinstance(dims, ops.Tensor):
        dims = int(dims._data) if dims._data.ndim == 0 else dims._data.tolist()
    if isinstance(dims, numbers.Integral):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        dims_a, dims_b = list(range(-dims, 0)), list(range(dims))
    else:
        dims_a, dims_b = _dim_list("dims_self", dims[0]), _dim_list("dims_other", dims[1])
    if len(dims_a) != len(dims_b):
        raise RuntimeError("both dimension lists should have same length")
    if a._data.dtype != b._data.dtype:
        raise RuntimeError("both inputs should have same dtype")
    sa, sb = a._data.shape, b._data.shape
    na, nb = len(sa), len(sb)
    axes_a = [dim_axis(d, na) % max(na, 1) for d in dims_a]
    axes_b = [dim_axis(d, nb) % max(nb, 1) for d in dims_b]
    for da, db, ia, ib in zip(dims_a, dims_b, axes_a, axes_b):
        if sa[ia] != sb[ib]:
            raise RuntimeError(
                f"contracted dimensions need to match, but first has size {sa[ia]} in dim {da} and second has size "
                f"{sb[ib]} in dim {db}"
            )
    free_a = [d for d in range(na) if d not in axes_a]
    free_b = [d for d in range(nb) if d not in axes_b]
    size = int(np.prod([sa[d] for d in axes_a]))
    left = a.permute(free_a + axes_a).reshape(-1, size)
    right = b.permute(axes_b + free_b).reshape(size, -1)
    return (left @ right).view([sa[d] for d in free_a] + [sb[d] for d in free_b])


def vdot(input, other):
    """The dot product of two 1-d tensors of one dtype (VdotBackward0)."""
    x, y = input._data, other._data
    if x.ndim != 1 or y.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {x.ndim}D and {y.ndim}D tensors")
    if x.dtype != y.dtype:
        raise RuntimeError(
            f"dot : expected both vectors to have same dtype, but found {input.dtype.kind_name} and {other.dtype.kind_name}"
        )
    if x.size != y.size:
        raise RuntimeError(
            f"inconsistent tensor size, expected tensor [{x.size}] and src [{y.size}] to have the same number of "
            f"elements, but got {x.size} and {y.size} elements respectively"
        )
    return ops.apply(np.vdot, input, other, name="VdotBackward0")


def _scaled_sum(input, product, beta, alpha):
    product = product if alpha == 1 else product * alpha
    return product + (input if beta == 1 else input * beta)


def _addmv(input, mat, vec, beta, alpha):
    return _scaled_sum(input, matmul(mat, vec), beta, alpha)


def addmv(input, mat, vec, *, beta=1, alpha=1):
    """`beta * input + alpha * (mat @ vec)`, one node (AddmvBackward0)."""
    if input._data.ndim > 1 or mat._data.ndim != 2 or vec._data.ndim != 1:
        raise RuntimeError(
            f"vector + matrix @ vector expected, got {input._data.ndim}, {mat._data.ndim}, {vec._data.ndim}"
        )
    n, m = mat._data.shape
    if vec._data.shape[0] != m or input._data.shape not in ((), (1,), (n,)):
        raise RuntimeError(
            f"size mismatch, got input ({'x'.join(map(str, input._data.shape)) or ''}), mat ({n}x{m}), "
            f"vec ({vec._data.shape[0]})"
        )
    kinds = [t.dtype.kind_name for t in (input, mat, vec)]
    if len(set(kinds)) > 1:
        raise RuntimeError(f"addmv input tensors must have the same dtype, but got {kinds[0]}, {kinds[1]}, and {kinds[2]}")
    kept = tuple(i for i, other in ((1, vec), (2, mat)) if other._requires_grad)
    return ops.composite("AddmvBackward0", _addmv, input, mat, vec, beta, alpha, _saves=kept or False)


def _addbmm(input, batch1, batch2, beta, alpha):
    return _scaled_sum(input, matmul(batch1, batch2).sum(0), beta, alpha)


def addbmm(input, batch1, batch2, *, beta=1, alpha=1):
    """`beta * input + alpha * sum_b(batch1[b] @ batch2[b])`, one node (AddbmmBackward0)."""
    for t in (batch1, batch2):
        if t._data.ndim != 3:
            dim_axis(2, t._data.ndim)  # PyTorch's IndexError for fewer dims
            raise RuntimeError("batch1 must be a 3D tensor")
    (b1, n, k), (b2, k2, m) = batch1._data.shape, batch2._data.shape
    if b1 != b2:
        raise RuntimeError(f"batch1 and batch2 must have same number of batches, got {b1} and {b2}")
    if k != k2:
        raise RuntimeError(f"Incompatible matrix sizes for bmm ({n}x{k} and {k2}x{m})")
    input.expand(n, m)  # PyTorch's error where input does not broadcast to the result
    for other in (batch2, input):
        if other._data.dtype != batch1._data.dtype:
            raise RuntimeError(
                f"mat1 and mat2 must have the same dtype, but got {batch1.dtype.kind_name} and {other.dtype.kind_name}"
            )
    kept = tuple(i for i, other in ((1, batch2), (2, batch1)) if other._requires_grad)
    return ops.composite("AddbmmBackward0", _addbmm, input, batch1, batch2, beta, alpha, _saves=kept or False)


_CHAIN_MATMUL_WARNING = (
    "torch.chain_matmul is deprecated and will be removed in a future PyTorch release. Use torch.linalg.multi_dot "
    "instead, which accepts a list of two or more tensors rather than multiple parameters."
)

_CHAIN_MATMUL_WARNED = False


def chain_matmul(*matrices):
    """The product of the 2-d tensors, left to right, viewed (ViewBackward0; one matrix:
    a copy, CloneBackward0), after PyTorch's deprecation warning."""
    global _CHAIN_MATMUL_WARNED
    if not _CHAIN_MATMUL_WARNED:  # once per process, as PyTorch's
        _CHAIN_MATMUL_WARNED = True
        warnings.warn(_CHAIN_MATMUL_WARNING, UserWarning, stacklevel=2)
    if not matrices:
        raise RuntimeError("chain_matmul(): Expected one or more matrices")
    for t in matrices:
        if t._data.ndim != 2:
            raise RuntimeError(f"Tensor dimension is {t._data.ndim}, expected 2 instead.")
    if len(matrices) == 1:
        return matrices[0].clone()
    for i in range(len(matrices) - 1):
        left, right = matrices[i]._data.shape, matrices[i + 1]._data.shape
        if left[1] != right[0]:
            raise RuntimeError(
                f"multi_dot(): tensors {i} and {i + 1} with shapes {list(left)} and {list(right)} cannot be multiplied"
            )
    product = matrices[0]
    for t in matrices[1:]:
        product = product @ t
    return product.view(product._data.shape)


class ContractionOps:
    """The Tensor methods of this module (PyTorch has no Tensor.tensordot or chain_matmul)."""

    __slots__ = ()
    vdot, addmv, addbmm = vdot, addmv, addbmm

    def addmv_(self, mat, vec, *, beta=1, alpha=1):
        """`addmv` written into self; returns self."""
        return self._rewrite(lambda t: addmv(t, mat, vec, beta=beta, alpha=alpha), mat, vec)

    def addbmm_(self, batch1, batch2, *, beta=1, alpha=1):
        """`addbmm` written into self; returns self."""
        return self._rewrite(lambda t: addbmm(t, batch1, batch2, beta=beta, alpha=alpha), batch1, batch2)
