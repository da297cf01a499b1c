"""Layers of `torch.nn.functional` that look rows up or compare and combine two inputs:
embedding, bilinear, cosine_similarity and pairwise_distance, as Tensor code over
indexing, products, sums and norms (one node with PyTorch's name where PyTorch's op is
one: EmbeddingBackward0, NormBackward1)."""

import math

import numpy as np

from ..tensor import ops
from ..tensor.functions import where
from ..tensor.tensor import Tensor

__all__ = ["embedding", "bilinear", "cosine_similarity", "pairwise_distance"]


def _embedding(indices, weight, padding_idx):
    rows = weight[indices]
    if padding_idx is None:
        return rows
    padded = (indices == padding_idx)[..., None]
    return where(padded, rows.detach(), rows)  # the same values; no gradient into the padding row


def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0, scale_grad_by_freq=False, sparse=False):
    """weight[input] (EmbeddingBackward0); the row `padding_idx` gets no gradient."""
    if max_norm is not None or scale_grad_by_freq or sparse:
        raise NotImplementedError("embedding with max_norm, scale_grad_by_freq or sparse is not supported by the shim")
    if input._data.dtype not in (np.int64, np.int32):
        raise RuntimeError(
            "Expected tensor for argument #1 'indices' to have one of the following scalar types: Long, Int; but got "
            f"{input.type()} instead (while checking arguments for embedding)"
        )
    if weight.dim() != 2:
        raise RuntimeError("'weight' must be 2-D")
    rows = weight._data.shape[0]
    if padding_idx is not None:
        if not -rows <= padding_idx < rows:
            raise AssertionError("Padding_idx must be within num_embeddings")
        padding_idx %= rows
    idx = input._data
    if idx.size and (idx.min() < 0 or idx.max() >= rows):
        raise IndexError("index out of range in self")
    indices = Tensor._make(idx.astype(np.int64))
    return ops.composite("EmbeddingBackward0", _embedding, indices, weight, padding_idx, _edges=(1,))


def bilinear(input1, input2, weight, bias=None):
    """y_k = input1 @ weight[k] @ input2 + bias_k over the last dims (leading dims batched),
    as matmul and sum (AddBackward0 with a bias, as PyTorch's)."""
    if input1._data.shape[:-1] != input2._data.shape[:-1]:
        raise RuntimeError(f"bilinear(): input batch dimensions do not match: got {list(input1._data.shape[:-1])} and "
                           f"{list(input2._data.shape[:-1])}")
    out, in1, in2 = weight._data.shape
    if input1._data.shape[-1] != in1:
        raise RuntimeError(f"bilinear(): input1 size does not match weight size: got {input1._data.shape[-1]} but "
                           f"expected {in1}")
    if input2._data.shape[-1] != in2:
        raise RuntimeError(f"bilinear(): input2 size does not match weight size: got {input2._data.shape[-1]} but "
                           f"expected {in2}")
    if len({input1._data.dtype, input2._data.dtype, weight._data.dtype}) > 1:
        names = {"float32": "float", "float64": "double"}
        shown = [names.get(t._data.dtype.name, t._data.dtype.name) for t in (input1, input2, weight)]
        raise RuntimeError(f"All tensors must have the same dtype, got input1: {shown[0]}, input2: {shown[1]}, "
                           f"weight: {shown[2]}")
    batch = input1._data.shape[:-1]
    rows = math.prod(batch)
    left = input1.reshape(rows, in1) @ weight.permute(1, 0, 2).reshape(in1, out * in2)
    y = (left.reshape(rows, out, in2) * input2.reshape(rows, 1, in2)).sum(-1).reshape(*batch, out)
    return y if bias is None else y + bias


def _clamped_norm(x, dim, eps):
    """||x|| along dim, its value clamped below at eps and its gradient the unclamped
    norm's (PyTorch clamps a copy of the norm under no_grad)."""
    norm = x.norm(2, dim, keepdim=True)
    return norm + (norm.clamp_min(eps) - norm).detach()


def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    """sum(x1 / max(||x1||, eps) * x2 / max(||x2||, eps)) along dim, broadcast first
    (SumBackward1)."""
    shape = np.broadcast_shapes(x1._data.shape, x2._data.shape)
    a, b = x1.expand(*shape), x2.expand(*shape)
    return ((a / _clamped_norm(a, dim, eps)) * (b / _clamped_norm(b, dim, eps))).sum(dim)


def _pairwise(x1, x2, p, eps, keepdim):
    dims = max(x1.dim(), x2.dim())
    return (x1 - x2 + eps).norm(p, dims - 1 if dims else 0, keepdim=keepdim)


def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    """||x1 - x2 + eps||_p over the last dim (NormBackward1)."""
    return ops.composite("NormBackward1", _pairwise, x1, x2, p, eps, keepdim)
