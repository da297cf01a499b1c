"""Linear systems of tensors: `linalg.solve`, `solve_ex`, `solve_triangular`, `lstsq`,
`pinv`, `matrix_rank`, and `torch.cholesky_solve`, `cholesky_inverse`,
`triangular_solve`, `pinverse`.

Each solve is the registry's `np.linalg.solve` (or `np.linalg.pinv`) recorded as one
node of PyTorch's name (`ops.composite` around the Tensor code that puts its operands in
place: a vector right-hand side as a column, X A = B as A^T X^T = B^T, the triangle of
a triangular A). Shapes and dtypes are checked first, with PyTorch's messages; a
singular matrix raises PyTorch's LinAlgError naming the batch element. None of this
holds calculus.
"""

import warnings

import numpy as np

from . import ops
from .decompositions import _matrices, return_type, svdvals, eigvalsh
from .linalg_functions import LinAlgError, _first_zero_pivot
from .tensor import Tensor

__all__ = [
    "solve", "solve_ex", "solve_triangular", "lstsq", "pinv", "pinverse", "matrix_rank", "cholesky_solve",
    "cholesky_inverse", "triangular_solve",
]

_SOLVE_EX = return_type("linalg_solve_ex", ("result", "info"))
_LSTSQ = return_type("linalg_lstsq", ("solution", "residuals", "rank", "singular_values"))
_TRIANGULAR_SOLVE = return_type("triangular_solve", ("solution", "cloned_coefficient"))


def _is_vector_rhs(A, B):
    """PyTorch's rule: B is a vector (or batch of vectors) when it is 1-D, or has one dim
    less than A and A's batch shape and size."""
    b, a = B._data.shape, A._data.shape
    return len(b) == 1 or (len(b) == len(a) - 1 and b == a[:-1])


def _singular_elements(A):
    """Per matrix of A, the 1-based position of the first zero pivot of its LU (0: none)."""
    flat = A._data.reshape((-1,) + A._data.shape[-2:])
    return np.array([_first_zero_pivot(a) for a in flat], np.int32).reshape(A._data.shape[:-2])


def _singular(name, A):
    info = _singular_elements(A).reshape(-1)
    i = int(np.flatnonzero(info)[0])
    batch = f"(Batch element {i}): " if A._data.ndim > 2 else ""
    return LinAlgError(f"{name}: {batch}The solver failed because the input matrix is singular.")


def _solved(A, B):
    """`np.linalg.solve(A, B)` recorded, B a (batch of) matrices: a B with one dim fewer
    than A is first broadcast to A's batch (NumPy 1 reads such a B as a batch of vectors,
    NumPy 2 as a matrix)."""
    if B._data.ndim == A._data.ndim - 1:
        batch = np.broadcast_shapes(A._data.shape[:-2], B._data.shape[:-2])
        B = B.expand(batch + B._data.shape[-2:])
    return ops.apply(np.linalg.solve, A, B, name="LinalgSolveExBackward0")


def _solve_matrix(A, B, left):
    """X with A X = B (left) or X A = B, B a (batch of) matrices."""
    if left:
        return _solved(A, B)
    return _solved(A.mT, B.mT).mT


def _solve(A, B, left):
    if _is_vector_rhs(A, B):
        return _solve_matrix(A, B.unsqueeze(-1), left).squeeze(-1)
    return _solve_matrix(A, B, left)


def _check_solve(A, B, left):
    _matrices("linalg.solve", A, square=True)
    if A._data.dtype != B._data.dtype:
        raise RuntimeError(
            f"linalg.solve: Expected A and B to have the same dtype, but found A of type {A.dtype.kind_name} and B of "
            f"type {B.dtype.kind_name} instead"
        )
    n = A._data.shape[-1]
    vector = _is_vector_rhs(A, B)
    rows, cols = (B._data.shape[-1], 1) if vector else B._data.shape[-2:]
    if (rows if left else cols) != n:
        equation = "AX = B" if left else "XA = B"
        raise RuntimeError(
            f"linalg.solve: Incompatible shapes of A and B for the equation {equation} ({n}x{n} and {rows}x{cols})"
        )


def solve(A, B, *, left=True):
    """X with A X = B (left=True) or X A = B, batched and broadcast over leading dims;
    B may be a vector (LinalgSolveExBackward0)."""
    _check_solve(A, B, left)
    try:
        return ops.composite("LinalgSolveExBackward0", _solve, A, B, left, _edges=(0, 1))
    except np.linalg.LinAlgError:
        raise _singular("torch.linalg.solve", A) from None


def solve_ex(A, B, *, left=True, check_errors=False):
    """`(result, info)`: `solve(A, B)` and, per matrix, 0, or the position of the first
    zero pivot of a singular one (whose result is then nan, where PyTorch's holds what
    its LU left); check_errors=True raises for a singular matrix instead."""
    _check_solve(A, B, left)
    try:
        return _SOLVE_EX(solve(A, B, left=left), Tensor._make(np.zeros(A._data.shape[:-2], np.int32)))
    except LinAlgError:
        if check_errors:
            raise
    info = _singular_elements(A)
    vector = _is_vector_rhs(A, B)
    shape = np.broadcast_shapes(A._data.shape[:-2], B._data.shape[:-1 if vector else -2])
    out = np.full(shape + B._data.shape[-1 if vector else -2:], np.nan, A._data.dtype)
    return _SOLVE_EX(Tensor._make(out), Tensor._make(info))


def _triangle(A, upper, unitriangular):
    T = A.triu() if upper else A.tril()
    if unitriangular:
        eye = Tensor._make(np.eye(A._data.shape[-1], dtype=A._data.dtype))
        T = (T.triu(1) if upper else T.tril(-1)) + eye
    return T


def solve_triangular(A, B, *, upper, left=True, unitriangular=False):
    """X with T X = B (left) or X T = B, T the upper or lower triangle of A (ones on the
    diagonal with unitriangular) (LinalgSolveTriangularBackward0); A's gradient lies on
    that triangle."""
    _matrices("linalg.solve_triangular", A, square=True)
    if B._data.ndim < 2:
        raise RuntimeError("linalg.solve_triangular: The input tensor B must have at least 2 dimensions.")

    def solved(a, b):
        return _solve_matrix(_triangle(a, upper, unitriangular), b, left)

    try:
        return ops.composite("LinalgSolveTriangularBackward0", solved, A, B)
    except np.linalg.LinAlgError:
        raise _singular("linalg.solve_triangular", A) from None


def triangular_solve(b, A, upper=True, transpose=False, unitriangular=False):
    """`torch.triangular_solve` (deprecated in PyTorch, with its warning): X with
    op(T) X = b, op the transpose with transpose=True, and a copy of A
    (TriangularSolveBackward0)."""
    warnings.warn(
        "torch.triangular_solve is deprecated in favor of torch.linalg.solve_triangularand will be removed in a "
        "future PyTorch release.\ntorch.linalg.solve_triangular has its arguments reversed and does not return a "
        "copy of one of the inputs.\nX = torch.triangular_solve(B, A).solution\nshould be replaced with\n"
        "X = torch.linalg.solve_triangular(A, B).", UserWarning, stacklevel=2,
    )

    def solved(bb, a):
        t = _triangle(a, upper, unitriangular)
        return _solve_matrix(t.mT if transpose else t, bb, True)

    solution = ops.composite("TriangularSolveBackward0", solved, b, A)
    copy = ops.composite("TriangularSolveBackward0", lambda a: a.clone(), A)
    return _TRIANGULAR_SOLVE(solution, copy)


def _cholesky_product(L, upper):
    return L.mT @ L if upper else L @ L.mT


def cholesky_solve(B, L, upper=False):
    """X with (L L^T) X = B, L a Cholesky factor (upper: L^T L) (CholeskySolveBackward0).
    As PyTorch's, the gradient of L is that of the full product (not restricted to its
    triangle), and the value uses all of L, which PyTorch reads one triangle of."""
    if B._data.ndim < 2:
        raise RuntimeError(f"b should have at least 2 dimensions, but has {B._data.ndim} dimensions instead")
    if L._data.ndim < 2:
        raise RuntimeError(f"u should have at least 2 dimensions, but has {L._data.ndim} dimensions instead")
    return ops.composite(
        "CholeskySolveBackward0",
        lambda b, l: _solved(_cholesky_product(l, upper), b), B, L,
    )


def cholesky_inverse(L, upper=False):
    """inv(L L^T) (upper: inv(L^T L)) (CholeskyInverseBackward0); as `cholesky_solve`,
    all of L counts."""
    _matrices("cholesky_inverse", L, square=True)
    return ops.composite(
        "CholeskyInverseBackward0",
        lambda l: ops.apply(np.linalg.inv, _cholesky_product(l, upper), name="LinalgInvExBackward0"), L,
    )


def _tolerances(A, atol, rtol, dims):
    """PyTorch's (atol, rtol): rtol eps * max(m, n) when neither is given, 0 when only
    atol is."""
    eps = np.finfo(A._data.dtype).eps
    if rtol is None:
        rtol = eps * max(dims) if atol is None or _value(atol) <= 0 else 0.0
    return (0.0 if atol is None else _value(atol)), _value(rtol)


def _value(x):
    return x._data if isinstance(x, Tensor) else x


def _relative_cutoff(s, atol, rtol):
    """The rcond np.linalg.pinv takes (relative to the largest singular value) for the
    cutoff max(atol, rtol * largest)."""
    largest = s[..., 0] if s.shape[-1] else np.zeros(s.shape[:-1])
    with np.errstate(divide="ignore", invalid="ignore"):
        cutoff = np.maximum(atol, rtol * largest)
        return np.where(largest > 0, cutoff / np.where(largest > 0, largest, 1.0), 0.0)


def pinv(A, *, atol=None, rtol=None, hermitian=False):
    """The pseudo-inverse of each matrix, singular values at most max(atol, rtol * the
    largest) treated as zero (LinalgPinvBackward0). hermitian=True gives the same value
    for a symmetric A; the gradient is always the general one (PyTorch's too)."""
    if A._data.ndim < 2 or A._data.dtype.kind not in "fc":
        raise RuntimeError(
            f"linalg.pinv({A.dtype.kind_name}{{{list(A._data.shape)}}}): expected a tensor with 2 or more dimensions "
            "of float, double, cfloat or cdouble types"
        )
    atol, rtol = _tolerances(A, atol, rtol, A._data.shape[-2:])
    s = np.linalg.svd(A._data, compute_uv=False)
    rcond = _relative_cutoff(s, atol, rtol)
    return ops.apply(np.linalg.pinv, A, name="LinalgPinvBackward0", rcond=rcond)


def pinverse(input, rcond=1e-15):
    """`torch.pinverse`: `pinv` with rtol=rcond."""
    return pinv(input, rtol=rcond)


def matrix_rank(A, *, atol=None, rtol=None, hermitian=False, tol=None):
    """The number of singular values (|eigenvalues| with hermitian) above max(atol,
    rtol * the largest), per matrix, int64 (no gradient)."""
    _matrices("linalg.matrix_rank", A)
    if tol is not None:
        atol, rtol = tol, 0.0
    atol, rtol = _tolerances(A, atol, rtol, A._data.shape[-2:])
    if hermitian:
        s = np.abs(eigvalsh(A.detach())._data)
        s = -np.sort(-s, axis=-1)
    else:
        s = svdvals(A.detach())._data
    largest = s[..., :1] if s.shape[-1] else np.zeros(s.shape[:-1] + (1,))
    cutoff = np.maximum(atol, rtol * largest)
    return Tensor._make(np.sum(s > cutoff, axis=-1).astype(np.int64))


def lstsq(A, B, rcond=None, *, driver=None):
    """The least-squares (minimum-norm) solution X of A X = B per matrix
    (LinalgLstsqBackward0), with the other fields as PyTorch's CPU drivers fill them:
    'gelsy' (default): rank only; 'gelsd' and 'gelss': rank, singular values and, for
    tall matrices of full rank, the squared residuals; 'gels': neither."""
    _matrices("torch.linalg.lstsq", A)
    if driver not in (None, "gelsy", "gelsd", "gelss", "gels"):
        raise RuntimeError(
            f"torch.linalg.lstsq: parameter `driver` should be one of (gels, gelsy, gelsd, gelss), but got {driver}"
        )
    driver = driver or "gelsy"
    vector = B._data.ndim == A._data.ndim - 1
    if (B._data.shape[-1] if vector else B._data.shape[-2]) != A._data.shape[-2]:
        raise RuntimeError("torch.linalg.lstsq: input.size(-2) should match other.size(-2)")
    m, n = A._data.shape[-2:]
    rtol = np.finfo(A._data.dtype).eps * max(m, n) if rcond is None or rcond < 0 else rcond
    columns = B.unsqueeze(-1) if vector else B

    def columns_solved(a, b):
        return ops.apply(np.linalg.pinv, a, name="LinalgPinvBackward0", rcond=rtol) @ b

    def solved(a, b):
        x = columns_solved(a, b)
        return x.squeeze(-1) if vector else x

    solution = ops.composite("LinalgLstsqBackward0", solved, A, columns)
    empty = Tensor._make(np.zeros((0,), A._data.dtype))
    # gelsy's residuals: empty, yet from the node, as PyTorch's
    none = ops.composite("LinalgLstsqBackward0", lambda a, b: a.reshape(-1)[:0] + b.reshape(-1)[:0], A, columns)
    rank = Tensor._make(np.zeros((0,), np.int64)) if driver == "gels" else matrix_rank(A, atol=0.0, rtol=rtol)
    values = svdvals(A.detach()) if driver in ("gelsd", "gelss") else empty
    residuals = none
    if driver != "gelsy" and m > n and bool(np.all(matrix_rank(A, atol=0.0, rtol=rtol)._data == n)):
        residuals = ops.composite(
            "LinalgLstsqBackward0", lambda a, b: ((a @ columns_solved(a, b) - b) ** 2).sum(-2), A, columns,
        )
    return _LSTSQ(solution, residuals, rank, values)
