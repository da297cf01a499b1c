"""Matrices built from smaller tensors: block_diag, diag_embed, diagflat, vander (and
linalg.vander), and the index pairs tril_indices and triu_indices.

block_diag and diag_embed (diagflat is diag_embed of the flattened input) are Tensor
code (cat, where) recorded as one node under PyTorch's name, BlockDiagBackward0 and
DiagEmbedBackward0; vander is PyTorch's composition (a cumulative product of the
repeated column, then a flip), so its nodes are those ops'. None holds calculus.
"""

import numpy as np

from . import devices, dtypes, meta, ops
from .dtypes import dim_axis
from .joins import cat

__all__ = ["block_diag", "diag_embed", "diagflat", "vander", "linalg_vander", "tril_indices", "triu_indices",
           "MatrixMakerOps"]


def _zeros(shape, dtype):
    return ops.Tensor._make(np.zeros(shape, dtype))


def _block_diag(*tensors):
    dt = dtypes.result_type(*(t._data for t in tensors))
    width = sum(t._data.shape[1] for t in tensors)
    rows, before = [], 0
    for t in tensors:
        r, c = t._data.shape
        t = t if t._data.dtype == dt else t.to(dtypes.as_dtype(dt))
        rows.append(cat([_zeros((r, before), dt), t, _zeros((r, width - before - c), dt)], 1))
        before += c
    return cat(rows, 0)


def block_diag(*tensors):
    """The tensors (0-d read as (1, 1), 1-d as one row) along the diagonal of a matrix
    of zeros, in their promoted dtype (BlockDiagBackward0)."""
    for i, t in enumerate(tensors):
        if t._data.ndim > 2:
            raise RuntimeError(
                f"torch.block_diag: Input tensors must have 2 or fewer dimensions. Input {i} has {t._data.ndim} dimensions"
            )
    if not tensors:
        return _zeros((1, 0), dtypes.DEFAULT_FLOAT.numpy)
    tensors = [t.reshape(1, -1) if t._data.ndim < 2 else t for t in tensors]
    return ops.composite("BlockDiagBackward0", _block_diag, *tensors, _saves=False)


def _diag_embed(input, offset, dim1, dim2):
    from .pointwise import where

    x = input._data
    m = x.shape[-1] + abs(offset)
    if offset:
        input = cat([input, _zeros(x.shape[:-1] + (abs(offset),), x.dtype)], -1)
    values = input.unsqueeze(-1) if offset >= 0 else input.unsqueeze(-2)  # the row's (column's) entry
    out = where(ops.Tensor._make(np.eye(m, k=offset, dtype=bool)), values, _zeros((), x.dtype))
    return out.movedim((-2, -1), (dim1, dim2))


def diag_embed(input, offset=0, dim1=-2, dim2=-1):
    """A tensor with one more dim whose diagonal `offset` in the plane (dim1, dim2) holds
    the last dim of `input`, zeros elsewhere (DiagEmbedBackward0)."""
    n = input._data.ndim + 1
    a, b = dim_axis(dim1, n) % n, dim_axis(dim2, n) % n
    if a == b:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    return ops.composite("DiagEmbedBackward0", _diag_embed, input, offset, a, b, _saves=False)


def diagflat(input, offset=0):
    """The flattened input on diagonal `offset` of a square matrix (DiagEmbedBackward0)."""
    return diag_embed(input.reshape(-1), offset)


def _powers_dtype(x):
    return np.dtype(np.int64) if x._data.dtype.kind in "biu" else x._data.dtype


def vander(x, N=None, increasing=False):
    """The Vandermonde matrix of a 1-d tensor: columns x^(N-1), ..., x, 1 (increasing:
    1, x, ..., x^(N-1)); integers and bools give int64."""
    if x._data.ndim != 1:
        raise RuntimeError("x must be a one-dimensional tensor.")
    n = x._data.shape[0]
    N = n if N is None else N
    if N < 0:
        raise RuntimeError("N must be non-negative.")
    dt = _powers_dtype(x)
    if N <= 1:
        return ops.Tensor._make(np.ones((n, N), dt))
    x = x if x._data.dtype == dt else x.to(dtypes.as_dtype(dt))
    out = cat([ops.Tensor._make(np.ones((n, 1), dt)), x.unsqueeze(1).expand(n, N - 1)], 1).cumprod(1)
    return out if increasing else out.flip(1)


def linalg_vander(x, *, N=None):
    """`linalg.vander`: the powers 1, x, ..., x^(N-1) of each entry along a new last dim
    (CatBackward0); N defaults to the size of the last dim and must exceed 1."""
    if x._data.dtype == np.bool_:
        raise RuntimeError("linalg.vander supports floating point, complex, and integer tensors, but got Bool")
    shape = x._data.shape
    N = (shape[-1] if shape else 1) if N is None else N
    if N <= 1:
        raise RuntimeError("N must be greater than 1.")
    powers = x.unsqueeze(-1).expand(*shape, N - 1).cumprod(-1)
    return cat([ops.Tensor._make(np.ones(shape + (1,), x._data.dtype)), powers], -1)


def _triangle_indices(name, take, row, col, offset, dtype):
    for label, value in (("row", row), ("col", col)):
        if value < 0:
            raise RuntimeError(f"{label} must be non-negative, got{value}")
    dt = dtypes.as_dtype(dtype)
    if dt.numpy.kind not in "iu":
        raise NotImplementedError(f"\"{name}\" not implemented for '{dt.kind_name}'")
    rows, cols = take(row, offset, col) if row and col else (np.zeros(0, np.int64),) * 2
    return ops.Tensor._make(np.stack([rows, cols]).astype(dt.numpy))


def tril_indices(row, col, offset=0, *, dtype=None, device=None, layout=None):
    """The (row, column) indices of the entries on and below diagonal `offset` of a
    row x col matrix, row by row, as a 2 x N tensor (int64 by default)."""
    if devices.allocated_on(device, "tril_indices", "tril_indices"):
        return meta.placed(tril_indices(row, col, offset, dtype=dtype, device="cpu"))
    return _triangle_indices("tril_indices", np.tril_indices, row, col, offset, dtypes.int64 if dtype is None else dtype)


def triu_indices(row, col, offset=0, *, dtype=None, device=None, layout=None):
    """The indices of the entries on and above diagonal `offset`, as tril_indices."""
    if devices.allocated_on(device, "triu_indices", "triu_indices"):
        return meta.placed(triu_indices(row, col, offset, dtype=dtype, device="cpu"))
    return _triangle_indices("triu_indices", np.triu_indices, row, col, offset, dtypes.int64 if dtype is None else dtype)


class MatrixMakerOps:
    """The Tensor methods of this module."""

    __slots__ = ()
    diag_embed, diagflat = diag_embed, diagflat
