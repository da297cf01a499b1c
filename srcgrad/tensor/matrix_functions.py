"""Functions of matrices: `linalg.matrix_norm`, `linalg.norm`, `linalg.cond`,
`linalg.matrix_power`, `linalg.matrix_exp`, `linalg.multi_dot`, `linalg.vecdot`,
`linalg.diagonal`.

Each is written as PyTorch composes it (a matrix norm is a reduction of |A| or of the
singular values; a power is a chain of matmuls by binary decomposition of the
exponent; multi_dot multiplies in the cheapest order), so the nodes that show are
PyTorch's; `matrix_exp` is the registry's `matrix_exponential.matrix_exp`. None of
this holds calculus.
"""

import numbers

import numpy as np

from ..rules.matrix_exponential import matrix_exp as _matrix_exp
from . import ops
from .decompositions import _matrices, svdvals
from .functions import vector_norm
from .linalg_functions import inverse
from .tensor import Tensor

__all__ = ["matrix_norm", "norm", "cond", "matrix_power", "matrix_exp", "multi_dot", "vecdot", "diagonal"]

_INF = float("inf")


def _dims(A, dim):
    n = A._data.ndim
    d0, d1 = (d % n for d in dim)
    if d0 == d1:
        raise RuntimeError(f"linalg.matrix_norm: dims must be different. Got ({dim[0]}, {dim[1]})")
    return d0, d1


def _singular_values(A, d0, d1):
    return svdvals(A.movedim((d0, d1), (-2, -1)))


def matrix_norm(A, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None):
    """The matrix norm of the matrices over `dim`: 'fro' (LinalgVectorNormBackward0),
    'nuc' (the sum of singular values), inf / -inf (largest / smallest row sum of |A|),
    1 / -1 (column sums), 2 / -2 (largest / smallest singular value)."""
    if dtype is not None:
        A = A.to(dtype)
    _matrices("linalg.matrix_norm", A)
    d0, d1 = _dims(A, dim)
    if ord == "fro":
        return vector_norm(A, 2, (d0, d1), keepdim)
    if ord == "nuc" or ord in (2, -2):
        s = _singular_values(A, d0, d1)
        out = s.sum(-1, keepdim) if ord == "nuc" else s.amax(-1, keepdim) if ord == 2 else s.amin(-1, keepdim)
        return out.unsqueeze(-1).movedim((-2, -1), (d0, d1)) if keepdim else out
    if ord in (_INF, -_INF, 1, -1) and not isinstance(ord, bool):
        summed, kept = (d1, d0) if ord in (_INF, -_INF) else (d0, d1)  # row sums for inf, column sums for 1
        sums = A.abs().sum(summed, keepdim=keepdim)
        pick = sums.amax if ord > 0 else sums.amin
        return pick(kept if keepdim or kept < summed else kept - 1, keepdim=keepdim)
    raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")


def norm(A, ord=None, dim=None, keepdim=False, *, dtype=None):
    """`torch.linalg.norm`: a vector norm or a matrix norm as PyTorch dispatches: a
    matrix norm for two dims given with an ord, or for a 2-D A and an ord with no dim;
    else the vector norm (ord None: 2) over `dim` (None: all elements)."""
    if dtype is not None:
        A = A.to(dtype)
    if dim is not None:
        dims = (dim,) if isinstance(dim, numbers.Integral) else tuple(dim)
        if len(dims) == 2 and ord is not None:
            return matrix_norm(A, ord, dims, keepdim)
        return vector_norm(A, 2 if ord is None else ord, dims[0] if len(dims) == 1 else dims, keepdim)
    if ord is not None:
        if A._data.ndim not in (1, 2):
            raise RuntimeError(
                f"linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. Got {A._data.ndim}D."
            )
        if A._data.ndim == 2:
            return matrix_norm(A, ord, (-2, -1), keepdim)
        if isinstance(ord, str):
            raise RuntimeError(f"linalg.vector_norm: ord must be a number; got '{ord}'")
        return vector_norm(A, ord, None, keepdim)
    return vector_norm(A, 2, tuple(range(A._data.ndim)), True) if keepdim else vector_norm(A, 2)


def cond(A, p=None):
    """The condition number of each matrix: the ratio of its largest and smallest
    singular values (p None or 2; -2 the inverse), else norm(A, p) * norm(inv(A), p)
    for square A, inf where A is singular."""
    _matrices("linalg.cond", A)
    if p in (None, 2, -2):
        def ratio(a):
            s = svdvals(a)
            big, small = s[..., :1], s[..., -1:]
            return (big / small if p != -2 else small / big).squeeze(-1)

        return ops.composite("SqueezeBackward1", ratio, A)
    if p not in ("fro", "nuc", _INF, -_INF, 1, -1):
        raise RuntimeError(f"linalg.cond got an invalid norm type: {p}")
    shape = A._data.shape
    if shape[-1] != shape[-2]:
        raise RuntimeError(
            f"linalg.cond(ord={p}): A must be batches of square matrices, but they are {shape[-2]} by {shape[-1]} matrices"
        )
    try:
        if p == "nuc":
            return matrix_norm(A, p) * matrix_norm(inverse(A), p)
        return ops.composite("NanToNumBackward0", lambda a: matrix_norm(a, p) * matrix_norm(inverse(a), p), A)
    except RuntimeError:  # a singular matrix: PyTorch's inf (for all, a simplification of its per-matrix inf)
        return Tensor._make(np.full(shape[:-2], np.inf, A._data.dtype))


def matrix_power(A, n):
    """A to the integer power n, by PyTorch's binary decomposition of n (MmBackward0 and
    the like); n < 0 raises the inverse to -n; n = 0 gives the identity
    (CopyBackwards, zero gradient)."""
    shape = A._data.shape
    if len(shape) < 2:
        raise RuntimeError("linalg.matrix_power: The input tensor A must have at least 2 dimensions.")
    if shape[-1] != shape[-2]:
        raise RuntimeError(
            f"linalg.matrix_power: A must be batches of square matrices, but they are {shape[-2]} by {shape[-1]} matrices"
        )
    if not isinstance(n, numbers.Integral):
        raise TypeError(f"matrix_power(): argument 'n' must be int, not {type(n).__name__}")
    if n == 0:
        out = A.clone()
        eye = Tensor._make(np.broadcast_to(np.eye(shape[-1], dtype=A._data.dtype), shape))
        return out.copy_(eye)
    if n < 0:
        A, n = inverse(A), -n
        if n == 1:
            return A
    if n == 1:
        return A.clone()
    if n == 2:
        return A @ A
    if n == 3:
        return (A @ A) @ A
    z = result = None
    while n > 0:
        bit, n = n % 2, n // 2
        z = A if z is None else z @ z
        if bit:
            result = z if result is None else result @ z
    return result


def matrix_exp(A):
    """exp of each square matrix (LinalgMatrixExpBackward0)."""
    _matrices("linalg.matrix_exp", A, square=True)
    return ops.apply(_matrix_exp, A, name="LinalgMatrixExpBackward0")


def _chain_order(shapes):
    """split[i][j]: where the cheapest product of matrices i..j splits (matrix chain
    dynamic programme; ties to the leftmost split)."""
    count = len(shapes)
    dims = [shapes[0][0]] + [s[1] for s in shapes]
    cost = [[0] * count for _ in range(count)]
    split = [[0] * count for _ in range(count)]
    for length in range(1, count):
        for i in range(count - length):
            j = i + length
            cost[i][j] = None
            for k in range(i, j):
                c = cost[i][k] + cost[k + 1][j] + dims[i] * dims[k + 1] * dims[j + 1]
                if cost[i][j] is None or c < cost[i][j]:
                    cost[i][j], split[i][j] = c, k
    return split


def _chain(matrices, split, i, j):
    if i == j:
        return matrices[i]
    k = split[i][j]
    return _chain(matrices, split, i, k) @ _chain(matrices, split, k + 1, j)


def multi_dot(tensors):
    """The product of the matrices in `tensors`, multiplied in the cheapest order; the
    first may be a row vector and the last a column vector (1-D) (ViewBackward0)."""
    tensors = list(tensors)
    if len(tensors) < 2:
        raise RuntimeError(f"multi_dot(): expected at least 2 tensors but got {len(tensors)}")
    for i, t in enumerate(tensors):
        ndim = t._data.ndim
        if i == 0 and ndim not in (1, 2):
            raise RuntimeError(f"multi_dot(): the first tensor must be 1D or 2D but got {ndim}D")
        if i == len(tensors) - 1 and i and ndim not in (1, 2):
            raise RuntimeError(f"multi_dot(): the last tensor must be 1D or 2D but got {ndim}D")
        if 0 < i < len(tensors) - 1 and ndim != 2:
            raise RuntimeError(f"multi_dot(): tensor {i} must be 2D but got {ndim}D")
    first_vector, last_vector = tensors[0]._data.ndim == 1, tensors[-1]._data.ndim == 1
    shapes = [t._data.shape for t in tensors]
    shapes[0] = (1,) + shapes[0] if first_vector else shapes[0]
    shapes[-1] = shapes[-1] + (1,) if last_vector else shapes[-1]
    for i in range(len(shapes) - 1):
        if shapes[i][1] != shapes[i + 1][0]:
            raise RuntimeError(
                f"multi_dot(): tensors {i} and {i + 1} with shapes {list(tensors[i]._data.shape)} and "
                f"{list(tensors[i + 1]._data.shape)} cannot be multiplied"
            )
    dtype = tensors[0]._data.dtype
    for i, t in enumerate(tensors[1:], start=1):
        if t._data.dtype != dtype:
            raise RuntimeError(
                f"multi_dot(): all tensors must have be the same dtype but tensor 0 is {tensors[0].dtype.kind_name} "
                f"and tensor {i} is {t.dtype.kind_name}"
            )
    split = _chain_order(shapes)
    out_shape = shapes[0][:1] * (not first_vector) + shapes[-1][1:] * (not last_vector)

    def product(*ts):
        ts = list(ts)
        if first_vector:
            ts[0] = ts[0].unsqueeze(0)
        if last_vector:
            ts[-1] = ts[-1].unsqueeze(-1)
        return _chain(ts, split, 0, len(ts) - 1).reshape(out_shape)

    return ops.composite("ViewBackward0", product, *tensors)


def vecdot(x, y, *, dim=-1):
    """The dot products of x and y (broadcast) along `dim`: sum(conj(x) * y)
    (SumBackward1)."""
    return (x.conj() * y if x._data.dtype.kind == "c" else x * y).sum(dim)


def diagonal(A, *, offset=0, dim1=-2, dim2=-1):
    """`torch.linalg.diagonal`: A.diagonal over the last two dims by default."""
    return A.diagonal(offset, dim1, dim2)
