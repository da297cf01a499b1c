"""numpy.linalg beyond products: inv det slogdet solve lstsq cholesky eigh eigvalsh qr
svd svdvals pinv matrix_power multi_dot norm vector_norm matrix_norm (products live in
`linalg.py`, whose conventions these rules follow).

Functions that return several arrays (slogdet, lstsq, eigh, qr, svd) take their
cotangent as a sequence with one entry per output, None where an output receives no
gradient, and their forward rules return a tuple; `arrays` of multi_dot gets a tuple of
gradients.

Functions that read one triangle of their input (cholesky, eigh, eigvalsh) get the
exact gradient of what they compute: it lives on that triangle, with the off-diagonal
entries carrying the contribution of both symmetric positions. Eigen- and singular-
vector rules assume distinct eigen/singular values. `svd` with `full_matrices=True`
of a non-square matrix and `qr` with `mode="complete"` of a tall matrix have no
unique derivative for the extra columns: their reverse rules raise unless those
outputs get no cotangent; svd's forward rule gives the singular values and the square
factor their tangents and the other factor a tangent that raises when it is used.
`lstsq` differentiates the solution of a full-rank matrix (tall: the least-squares
solution, wide: the minimum-norm one) and the residuals exactly; for a rank-deficient
matrix (rank below min(m, n), rcond included) only its singular values have a
derivative, and the solution's raises NotDifferentiableError.
"""

import string

import numpy as np

from ..errors import NotDifferentiableError
from ..runtime import unbroadcast, unreduce, zeros_like_grad
from .reductions import _exclusive_product, _extremum_share, _float_dtype
from .registry import defjvp, defvjp, nondifferentiable, numpy2
from .structure import _cotangents
from .linalg import _T, _einsum_vjp


# --- inverse, determinants, solve ---------------------------------------------------


@defvjp(np.linalg.inv, "x")
def inv_vjp(g, ans, x):
    return -_T(ans) @ g @ _T(ans)


@defjvp(np.linalg.inv, "x")
def inv_jvp(t, ans, x):
    return -ans @ t @ ans


def _cofactor(x):
    """The cofactor matrix det(x) inv(x)^T, from an SVD so it is exact for singular x."""
    u, s, vh = np.linalg.svd(x)
    sign = np.linalg.det(u) * np.linalg.det(vh)
    others = _exclusive_product(s, -1)
    return np.expand_dims(sign, (-2, -1)) * (u * np.expand_dims(others, -2)) @ vh


def _cofactor_tangent(x, t):
    """The derivative of `_cofactor` at x along t (also its adjoint: the map is symmetric).

    With x = u diag(s) vh, cof(x) = sign u cof(diag(s)) vh for any SVD, and the derivative of
    the cofactor of diag(s) along e = u^T t vh^T is exact with no division: entry (i, j) is
    -e[j, i] prod_{m != i, j} s_m off the diagonal and sum_{k != i} e[k, k] prod_{m != i, k} s_m
    on it. So it is finite at singular x and at repeated singular values alike.
    """
    u, s, vh = np.linalg.svd(x)
    sign = np.linalg.det(u) * np.linalg.det(vh)
    n = s.shape[-1]
    eye = np.eye(n, dtype=bool)
    # pair[..., i, j] = prod_{m != i, j} s_m off the diagonal, 0 on it
    rows = np.where(eye, 1.0, np.expand_dims(s, -2))
    pair = np.where(eye, 0.0, _exclusive_product(rows, -1))
    e = _T(u) @ t @ _T(vh)
    diagonal = np.einsum("...ij,...j->...i", pair, np.diagonal(e, axis1=-2, axis2=-1))
    inner = -_T(e) * pair + np.expand_dims(diagonal, -1) * np.eye(n)
    return np.expand_dims(sign, (-2, -1)) * (u @ inner @ vh)


@defvjp(np.linalg.det, "x")
def det_vjp(g, ans, x):
    return np.expand_dims(g, (-2, -1)) * _cofactor(x)


@defjvp(np.linalg.det, "x")
def det_jvp(t, ans, x):
    return np.sum(_cofactor(x) * t, axis=(-2, -1))


def _slogdet_vjp(g, x):
    if g[1] is None:
        return zeros_like_grad(x)
    return np.expand_dims(g[1], (-2, -1)) * _T(np.linalg.inv(x))


def _slogdet_jvp(t, ans, x):
    return np.zeros_like(ans[0]), np.sum(_T(np.linalg.inv(x)) * t, axis=(-2, -1))


@defvjp(np.linalg.slogdet, "x")
def slogdet_vjp(g, ans, x):
    return _slogdet_vjp(g, x)


@defjvp(np.linalg.slogdet, "x")
def slogdet_jvp(t, ans, x):
    return _slogdet_jvp(t, ans, x)


def _solve_like(a, rhs, b):
    """solve(a, rhs), reading rhs as numpy reads `b`: a vector (stack) only if b is 1-D."""
    if np.ndim(b) == 1:
        return np.linalg.solve(a, rhs[..., None])[..., 0]
    return np.linalg.solve(a, rhs)


def _solve_vjp_a(g, ans, a, b):
    g_b = _solve_like(_T(a), g, b)
    if np.ndim(b) == 1:
        return unbroadcast(-g_b[..., :, None] * ans[..., None, :], a)
    return unbroadcast(-g_b @ _T(ans), a)


def _solve_jvp_a(t, ans, a, b):
    moved = (t @ ans[..., None])[..., 0] if np.ndim(b) == 1 else t @ ans
    return -_solve_like(a, moved, b)


@defvjp(np.linalg.solve, "a")
def solve_vjp_a(g, ans, a, b):
    return _solve_vjp_a(g, ans, a, b)


@defvjp(np.linalg.solve, "b")
def solve_vjp_b(g, ans, a, b):
    return unbroadcast(_solve_like(_T(a), g, b), b)


@defjvp(np.linalg.solve, "a")
def solve_jvp_a(t, ans, a, b):
    return _solve_jvp_a(t, ans, a, b)


@defjvp(np.linalg.solve, "b")
def solve_jvp_b(t, ans, a, b):
    return np.linalg.solve(a, t)


def _lstsq_rank_deficient(rank, a):
    return (
        f"np.linalg.lstsq of a rank-deficient matrix (rank {int(rank)} < min{np.shape(a)}: rcond cut off "
        "singular values): its solution has no derivative there (its singular values have one)"
    )


def _lstsq_parts(ans, a, b):
    """For x = lstsq(a, b)[0] with a of full rank: the pseudo-inverse P of a, x and the
    residual r = b - a x as matrices (one column per right-hand side), and (I - P a).
    Then dx = -P da x + P P^T da^T r + (I - P a) da^T P^T x + P db: the derivative of
    pinv(a) b, exact while the rank stays full (r = 0 for a wide a, I - P a = 0 for a tall one)."""
    x, rank = ans[0], ans[2]
    if rank < min(np.shape(a)):
        raise NotDifferentiableError(_lstsq_rank_deficient(rank, a))
    u, s, vh = np.linalg.svd(a, full_matrices=False)
    p = _T(vh) @ (_T(u) / np.expand_dims(s, -1))
    xm = x[:, None] if np.ndim(b) == 1 else x
    r = (np.asarray(b)[:, None] if np.ndim(b) == 1 else np.asarray(b)) - a @ xm
    return p, xm, r, np.eye(np.shape(a)[1], dtype=np.result_type(p)) - p @ a


def _as_columns(v, b):
    """A cotangent or tangent of x (or of b) as a matrix, one column per right-hand side."""
    return np.asarray(v)[:, None] if np.ndim(b) == 1 else np.asarray(v)


def _has_residuals(ans):
    return np.size(ans[1]) > 0


def _lstsq_vjp_a(g, ans, a, b):
    g_x, g_res, g_s = g[0], g[1], g[3]
    grad = zeros_like_grad(np.asarray(a))
    if g_s is not None:
        grad = grad + _singular_values_vjp(g_s, a)
    if g_x is None and (g_res is None or not _has_residuals(ans)):
        return grad
    p, xm, r, away = _lstsq_parts(ans, a, b)
    if g_x is not None:
        gm = _as_columns(g_x, b)
        grad = grad - _T(p) @ gm @ _T(xm) + r @ _T(gm) @ p @ _T(p) + _T(p) @ xm @ _T(gm) @ away
    if g_res is not None and _has_residuals(ans):
        grad = grad - 2.0 * (r * g_res) @ _T(xm)
    return unbroadcast(grad, a)


def _lstsq_vjp_b(g, ans, a, b):
    g_x, g_res = g[0], g[1]
    if g_x is None and (g_res is None or not _has_residuals(ans)):
        return unbroadcast(zeros_like_grad(np.asarray(b)), b)
    p, xm, r, _ = _lstsq_parts(ans, a, b)
    grad = np.zeros(np.shape(r), dtype=np.result_type(r))
    if g_x is not None:
        grad = grad + _T(p) @ _as_columns(g_x, b)
    if g_res is not None and _has_residuals(ans):
        grad = grad + 2.0 * r * g_res
    return unbroadcast(np.reshape(grad, np.shape(b)), b)


def _lstsq_tangents(ans, b, d_x, d_res, d_s):
    """(x, residuals, rank, s) tangents, shaped like the outputs."""
    if not isinstance(d_x, _NoTangent):
        d_x = np.reshape(d_x, np.shape(ans[0]))
    d_res = np.reshape(d_res, np.shape(ans[1])) if _has_residuals(ans) else np.zeros_like(ans[1])
    return d_x, d_res, 0.0, d_s


def _lstsq_jvp_a(t, ans, a, b):
    d_s = _singular_values_jvp(t, a)
    if ans[2] < min(np.shape(a)):
        return _lstsq_tangents(ans, b, _NoTangent(NotDifferentiableError, _lstsq_rank_deficient(ans[2], a)), 0.0, d_s)
    p, xm, r, away = _lstsq_parts(ans, a, b)
    d_x = -p @ t @ xm + p @ _T(p) @ _T(t) @ r + away @ _T(t) @ _T(p) @ xm
    return _lstsq_tangents(ans, b, d_x, -2.0 * np.sum(r * (t @ xm), axis=0), d_s)


def _lstsq_jvp_b(t, ans, a, b):
    d_s = np.zeros_like(ans[3])
    if ans[2] < min(np.shape(a)):
        return _lstsq_tangents(ans, b, _NoTangent(NotDifferentiableError, _lstsq_rank_deficient(ans[2], a)), 0.0, d_s)
    p, _, r, _ = _lstsq_parts(ans, a, b)
    tm = _as_columns(t, b)
    return _lstsq_tangents(ans, b, p @ tm, 2.0 * np.sum(r * tm, axis=0), d_s)


@defvjp(np.linalg.lstsq, "a")
def lstsq_vjp_a(g, ans, a, b, rcond=None):
    return _lstsq_vjp_a(g, ans, a, b)


@defvjp(np.linalg.lstsq, "b")
def lstsq_vjp_b(g, ans, a, b, rcond=None):
    return _lstsq_vjp_b(g, ans, a, b)


@defjvp(np.linalg.lstsq, "a")
def lstsq_jvp_a(t, ans, a, b, rcond=None):
    return _lstsq_jvp_a(t, ans, a, b)


@defjvp(np.linalg.lstsq, "b")
def lstsq_jvp_b(t, ans, a, b, rcond=None):
    return _lstsq_jvp_b(t, ans, a, b)


# --- factorizations -----------------------------------------------------------------


def _eye_like(x):
    return np.eye(np.shape(x)[-1], dtype=bool)


def _triangle_gradient(grad, lower):
    """A gradient taken over symmetric perturbations, moved onto the one triangle the
    function reads: off-diagonal entries collect both symmetric positions."""
    both = grad + _T(grad)
    half = np.tril(both) if lower else np.triu(both)
    return half - grad * _eye_like(grad)


def _symmetric_from_triangle(t, lower):
    """The symmetric matrix a function reading one triangle of t actually sees."""
    return np.tril(t) + _T(np.tril(t, -1)) if lower else np.triu(t) + _T(np.triu(t, 1))


def _phi(x):
    """Lower triangle with the diagonal halved."""
    return np.tril(x) - 0.5 * x * _eye_like(x)


def _cholesky_vjp(g, ans, upper):
    lower = _T(ans) if upper else ans
    g_lower = _T(g) if upper else g
    inv = np.linalg.inv(lower)
    grad = _T(inv) @ _phi(_T(lower) @ g_lower) @ inv
    return _triangle_gradient(grad, not upper)


def _cholesky_jvp(t, ans, upper):
    lower = _T(ans) if upper else ans
    inv = np.linalg.inv(lower)
    d_lower = lower @ _phi(inv @ _symmetric_from_triangle(t, not upper) @ _T(inv))
    return _T(d_lower) if upper else d_lower


@defvjp(np.linalg.cholesky, "x")
def cholesky_vjp(g, ans, x, *, upper=False):
    return _cholesky_vjp(g, ans, upper)


@defjvp(np.linalg.cholesky, "x")
def cholesky_jvp(t, ans, x, *, upper=False):
    return _cholesky_jvp(t, ans, upper)


def _gap_inverse(w):
    """F[..., i, j] = 1 / (w[j] - w[i]) off the diagonal, 0 on it."""
    gaps = np.expand_dims(w, -2) - np.expand_dims(w, -1)
    diagonal = np.eye(np.shape(w)[-1], dtype=bool)
    return np.where(diagonal, 0.0, 1.0 / np.where(diagonal, 1.0, gaps))


def _eigh_vjp(g, ans, uplo):
    w, v = ans
    g_w, g_v = g
    inner = np.zeros(np.shape(v), dtype=np.result_type(v))
    if g_w is not None:
        inner = inner + np.expand_dims(g_w, -1) * _eye_like(v)
    if g_v is not None:
        inner = inner + _gap_inverse(w) * (_T(v) @ g_v)
    return _triangle_gradient(v @ inner @ _T(v), uplo.upper() == "L")


def _eigh_jvp(t, ans, uplo):
    w, v = ans
    c = _T(v) @ _symmetric_from_triangle(t, uplo.upper() == "L") @ v
    return np.diagonal(c, axis1=-2, axis2=-1), v @ (_gap_inverse(w) * c)


@defvjp(np.linalg.eigh, "x")
def eigh_vjp(g, ans, x, UPLO="L"):
    return _eigh_vjp(g, ans, UPLO)


@defjvp(np.linalg.eigh, "x")
def eigh_jvp(t, ans, x, UPLO="L"):
    return _eigh_jvp(t, ans, UPLO)


@defvjp(np.linalg.eigvalsh, "x")
def eigvalsh_vjp(g, ans, x, UPLO="L"):
    return _eigh_vjp((g, None), np.linalg.eigh(x, UPLO), UPLO)


@defjvp(np.linalg.eigvalsh, "x")
def eigvalsh_jvp(t, ans, x, UPLO="L"):
    return _eigh_jvp(t, np.linalg.eigh(x, UPLO), UPLO)[0]


def _qr_square_vjp(g_q, g_r, q, r):
    """A = QR with R square: [g_Q + Q copyltu(M)] R^-T, M = R g_R^T - g_Q^T Q."""
    m = r @ _T(g_r) - _T(g_q) @ q
    b = g_q + q @ (np.tril(m) + _T(np.tril(m, -1)))
    return _T(np.linalg.solve(r, _T(b)))


def _qr_square_jvp(t, q, r):
    """dR R^-1 is upper triangular and Q^T dQ skew: split C = Q^T dA R^-1 between them."""
    t_r_inv = _T(np.linalg.solve(_T(r), _T(t)))
    c = _T(q) @ t_r_inv
    omega = np.tril(c, -1) - _T(np.tril(c, -1))
    return t_r_inv - q @ (c - omega), (c - omega) @ r


_QR_COMPLETE = (
    "qr(mode='complete') of a tall matrix: Q's extra columns have no derivative; use mode='reduced'"
)


def _qr_parts(g, ans, x, mode):
    """(g_Q, g_R, Q, R) for the reduced factorization, zeros for missing cotangents."""
    m, n = np.shape(x)[-2:]
    if mode == "r":
        q, r = np.linalg.qr(x)
        g_q, g_r = None, g
    else:
        (q, r), (g_q, g_r) = ans, g
    if mode == "complete" and m > n:
        if g_q is not None:
            raise NotImplementedError(_QR_COMPLETE)
        q, r, g_r = q[..., :n], r[..., :n, :], g_r[..., :n, :]
    g_q = np.zeros_like(q) if g_q is None else g_q
    g_r = np.zeros_like(r) if g_r is None else g_r
    return g_q, g_r, q, r


def _qr_vjp(g, ans, x, mode):
    g_q, g_r, q, r = _qr_parts(g, ans, x, mode)
    m, n = np.shape(x)[-2:]
    if m >= n:
        return _qr_square_vjp(g_q, g_r, q, r)
    # wide: A = [X | Y] with X = Q U square and Y = Q V
    g_v = g_r[..., m:]
    g_y = q @ g_v
    g_x = _qr_square_vjp(g_q + x[..., m:] @ _T(g_v), g_r[..., :m], q, r[..., :m])
    return np.concatenate([g_x, g_y], axis=-1)


def _qr_jvp(t, ans, x, mode):
    m, n = np.shape(x)[-2:]
    q, r = np.linalg.qr(x) if mode == "r" else ans
    if mode == "complete" and m > n:
        raise NotImplementedError(_QR_COMPLETE)
    if m >= n:
        d_q, d_r = _qr_square_jvp(t, q, r)
    else:
        d_q, d_u = _qr_square_jvp(t[..., :m], q, r[..., :m])
        d_v = _T(q) @ (t[..., m:] - d_q @ r[..., m:])
        d_r = np.concatenate([d_u, d_v], axis=-1)
    return d_r if mode == "r" else (d_q, d_r)


@defvjp(np.linalg.qr, "x")
def qr_vjp(g, ans, x, mode="reduced"):
    return _qr_vjp(g, ans, x, mode)


@defjvp(np.linalg.qr, "x")
def qr_jvp(t, ans, x, mode="reduced"):
    return _qr_jvp(t, ans, x, mode)


_HERMITIAN = "{}(hermitian=True) reads one triangle through eigh; its derivative is not implemented"
_FULL_SVD = (
    "svd(full_matrices=True) of a non-square matrix: the singular vectors beyond min(m, n) (the extra "
    "columns of u, or rows of vh) have no derivative; use full_matrices=False (s, and the square factor, "
    "are differentiable)"
)


class _NoTangent:
    """The tangent of an output that has no derivative where its siblings have one (the
    extra singular vectors of svd(full_matrices=True), the solution of a rank-deficient
    lstsq). A forward rule returns it in that output's place, so code that uses only the
    other outputs works; any use of this one raises `error(message)`."""

    def __init__(self, error, message):
        self.error, self.message = error, message

    def _refuse(self, *args, **kwargs):
        raise self.error(self.message)

    __array_ufunc__ = __array_function__ = __array__ = __getitem__ = __iter__ = __len__ = _refuse
    __float__ = __int__ = __bool__ = __neg__ = __pos__ = __abs__ = _refuse
    __sub__ = __rsub__ = __mul__ = __rmul__ = __truediv__ = __rtruediv__ = _refuse
    __matmul__ = __rmatmul__ = __pow__ = __rpow__ = _refuse

    def __add__(self, other):  # two parameters' contributions to the same missing tangent
        if isinstance(other, _NoTangent):
            return self
        raise self.error(self.message)

    __radd__ = __add__

    def __getattr__(self, name):
        if name.startswith("__") or name in ("error", "message"):
            raise AttributeError(name)
        raise self.error(self.message)

    def __repr__(self):
        return f"<no tangent: {self.message}>"


def _singular_values_vjp(g, x, hermitian=False):
    _svd_check(hermitian)
    u, _, vh = np.linalg.svd(x, full_matrices=False)
    return (u * np.expand_dims(g, -2)) @ vh


def _singular_values_jvp(t, x, hermitian=False):
    _svd_check(hermitian)
    u, _, vh = np.linalg.svd(x, full_matrices=False)
    return np.sum((_T(u) @ t) * vh, axis=-1)


def _svd_check(hermitian):
    if hermitian:
        raise NotImplementedError(_HERMITIAN.format("svd"))


def _svd_thin(ans, x, full_matrices):
    """The factors (u, s, vh) without the extra singular vectors of full_matrices=True, and
    the position of the output that had them (0 for u, 2 for vh, None)."""
    u, s, vh = ans
    m, n = np.shape(x)[-2:]
    if not full_matrices or m == n:
        return (u, s, vh), None
    return ((u[..., :, :n], s, vh), 0) if m > n else ((u, s, vh[..., :m, :]), 2)


def _svd_vjp(g, ans, x, full_matrices, compute_uv, hermitian):
    if not compute_uv:
        return _singular_values_vjp(g, x, hermitian)
    if g[0] is None and g[2] is None:  # only the singular values are used
        return _singular_values_vjp(g[1], x, hermitian)
    _svd_check(hermitian)
    ans, extra = _svd_thin(ans, x, full_matrices)
    if extra is not None and g[extra] is not None:
        raise NotImplementedError(_FULL_SVD)
    u, s, vh = ans
    g_u, g_s, g_vh = _cotangents(g, ans)
    m, n = np.shape(x)[-2:]
    v, g_v = _T(vh), _T(g_vh)
    f = _gap_inverse(s * s)
    ut_gu = _T(u) @ g_u
    vt_gv = _T(v) @ g_v
    core = (f * (ut_gu - _T(ut_gu))) * np.expand_dims(s, -2)
    core = core + np.expand_dims(g_s, -1) * _eye_like(u[..., :1, :])
    core = core + np.expand_dims(s, -1) * (f * (vt_gv - _T(vt_gv)))
    grad = u @ core @ vh
    if m > n:
        grad = grad + (g_u - u @ ut_gu) / np.expand_dims(s, -2) @ vh
    if n > m:
        grad = grad + u @ ((g_vh - vt_gv.swapaxes(-1, -2) @ vh) / np.expand_dims(s, -1))
    return grad


def _svd_jvp(t, ans, x, full_matrices, compute_uv, hermitian):
    """The tangents of (u, s, vh); for full_matrices=True of a non-square matrix, the
    factor with extra singular vectors gets a `_NoTangent`."""
    if not compute_uv:
        return _singular_values_jvp(t, x, hermitian)
    _svd_check(hermitian)
    (u, s, vh), extra = _svd_thin(ans, x, full_matrices)
    v = _T(vh)
    m, n = np.shape(x)[-2:]
    d_p = _T(u) @ t @ v
    d_s = np.diagonal(d_p, axis1=-2, axis2=-1)
    f = _gap_inverse(s * s)
    dp_s = d_p * np.expand_dims(s, -2)
    s_dp = np.expand_dims(s, -1) * d_p
    d_u = u @ (f * (dp_s + _T(dp_s)))
    d_v = v @ (f * (s_dp + _T(s_dp)))
    if m > n:
        t_v = t @ v
        d_u = d_u + (t_v - u @ (_T(u) @ t_v)) / np.expand_dims(s, -2)
    if n > m:
        tt_u = _T(t) @ u
        d_v = d_v + (tt_u - v @ (vh @ tt_u)) / np.expand_dims(s, -2)
    out = [d_u, d_s, _T(d_v)]
    if extra is not None:
        out[extra] = _NoTangent(NotImplementedError, _FULL_SVD)
    return tuple(out)


@defvjp(np.linalg.svd, "x")
def svd_vjp(g, ans, x, full_matrices=True, compute_uv=True, hermitian=False):
    return _svd_vjp(g, ans, x, full_matrices, compute_uv, hermitian)


@defjvp(np.linalg.svd, "x")
def svd_jvp(t, ans, x, full_matrices=True, compute_uv=True, hermitian=False):
    return _svd_jvp(t, ans, x, full_matrices, compute_uv, hermitian)


@defvjp(numpy2("linalg.svdvals"), "x")
def svdvals_vjp(g, ans, x):
    return _singular_values_vjp(g, x)


@defjvp(numpy2("linalg.svdvals"), "x")
def svdvals_jvp(t, ans, x):
    return _singular_values_jvp(t, x)


def _pinv_projectors(p, a, hermitian):
    """I - A P and I - P A: projections onto the complements of A's range and row space."""
    if hermitian:
        raise NotImplementedError(_HERMITIAN.format("pinv"))
    dtype = np.result_type(p)
    return np.eye(np.shape(a)[-2], dtype=dtype) - a @ p, np.eye(np.shape(a)[-1], dtype=dtype) - p @ a


def _pinv_vjp(g, p, a, hermitian):
    """Transpose of d(A+) = -P dA P + P P^T dA^T (I - A P) + (I - P A) dA^T P^T P."""
    p_t = _T(p)
    left, right = _pinv_projectors(p, a, hermitian)
    return -p_t @ g @ p_t + left @ _T(g) @ p @ p_t + p_t @ p @ _T(g) @ right


def _pinv_jvp(t, p, a, hermitian):
    left, right = _pinv_projectors(p, a, hermitian)
    return -p @ t @ p + p @ _T(p) @ _T(t) @ left + right @ _T(t) @ _T(p) @ p


@defvjp(np.linalg.pinv, "x")
def pinv_vjp(g, ans, x, rcond=None, hermitian=False, *, rtol=None):
    return unbroadcast(_pinv_vjp(g, ans, x, hermitian), x)


@defjvp(np.linalg.pinv, "x")
def pinv_jvp(t, ans, x, rcond=None, hermitian=False, *, rtol=None):
    return _pinv_jvp(t, ans, x, hermitian)


def _powers(b, k):
    """[I, b, b^2, ..., b^k]."""
    out = [np.broadcast_to(np.eye(np.shape(b)[-1], dtype=np.result_type(b)), np.shape(b))]
    for _ in range(k):
        out.append(out[-1] @ b)
    return out


def _matrix_power_vjp(g, x, n):
    if n == 0:
        return zeros_like_grad(x)
    base = x if n > 0 else np.linalg.inv(x)
    k = abs(n)
    powers = _powers(base, k - 1)
    g_base = sum(_T(powers[j]) @ g @ _T(powers[k - 1 - j]) for j in range(k))
    return g_base if n > 0 else -_T(base) @ g_base @ _T(base)


def _matrix_power_jvp(t, x, n):
    if n == 0:
        return np.zeros_like(t)
    base = x if n > 0 else np.linalg.inv(x)
    d_base = t if n > 0 else -base @ t @ base
    k = abs(n)
    powers = _powers(base, k - 1)
    return sum(powers[j] @ d_base @ powers[k - 1 - j] for j in range(k))


@defvjp(np.linalg.matrix_power, "x")
def matrix_power_vjp(g, ans, x, n):
    return _matrix_power_vjp(g, x, n)


@defjvp(np.linalg.matrix_power, "x")
def matrix_power_jvp(t, ans, x, n):
    return _matrix_power_jvp(t, x, n)


def _multi_dot_subscripts(arrays):
    """multi_dot as an einsum, `ab,bc,cd->ad`: a 1-D first operand has no row label, a 1-D
    last one no column label. Its reverse rule is einsum's, whose gradient is a tuple the
    compiler adds entry by entry when it differentiates it again (a Hessian)."""
    letters = string.ascii_letters
    n = len(arrays)
    terms = [letters[i] + letters[i + 1] for i in range(n)]
    first, last = letters[0], letters[n]
    if np.ndim(arrays[0]) == 1:
        terms[0], first = terms[0][1], ""
    if np.ndim(arrays[-1]) == 1:
        terms[-1], last = terms[-1][0], ""
    return ",".join(terms) + "->" + first + last


nondifferentiable(_multi_dot_subscripts)


def _multi_dot_jvp(t, arrays):
    total = 0.0
    for i, tangent in enumerate(t):
        if tangent is not None:
            total = total + np.linalg.multi_dot([*arrays[:i], tangent, *arrays[i + 1 :]])
    return total


@defvjp(np.linalg.multi_dot, "arrays")
def multi_dot_vjp(g, ans, arrays, *, out=None):
    return _einsum_vjp(g, _multi_dot_subscripts(arrays), arrays)


@defjvp(np.linalg.multi_dot, "arrays")
def multi_dot_jvp(t, ans, arrays, *, out=None):
    return _multi_dot_jvp(t, arrays)


# --- norms --------------------------------------------------------------------------


def _vector_norm_d(ans, x, ord, axis, keepdims):
    """d ||x||_ord / dx over `axis` (None: all entries), shaped like x."""
    norm = unreduce(ans, x, axis, keepdims)
    if ord == 0:
        return np.zeros_like(x, dtype=_float_dtype(x))
    if ord == 1:
        return np.sign(x)
    if ord in (np.inf, -np.inf):
        return np.sign(x) * _extremum_share(ans, np.abs(x), axis, keepdims)
    if ord is None or ord == 2:
        return np.where(norm == 0, 0.0, x / np.where(norm == 0, 1.0, norm))
    # 0 at a zero vector, as for ord 2 (not 0/0)
    return np.where(norm == 0, 0.0, np.sign(x) * (np.abs(x) / np.where(norm == 0, 1.0, norm)) ** (ord - 1))


def _matrix_norm_d(ans, x, ord, axes, keepdims):
    """d ||x||_ord / dx for the matrices spanning `axes` (a pair), shaped like x."""
    norm = unreduce(ans, x, axes, keepdims)
    if ord in (None, "fro"):
        return np.where(norm == 0, 0.0, x / np.where(norm == 0, 1.0, norm))
    moved = np.moveaxis(x, axes, (-2, -1))
    if ord in ("nuc", 2, -2):
        u, _, vh = np.linalg.svd(moved, full_matrices=False)
        if ord == "nuc":
            d = u @ vh
        else:
            k = 0 if ord == 2 else np.shape(u)[-1] - 1
            d = u[..., :, k : k + 1] @ vh[..., k : k + 1, :]
    elif ord in (1, -1, np.inf, -np.inf):
        # 1: the largest column sum of |x|; inf: the largest row sum
        summed_axis = -2 if ord in (1, -1) else -1
        sums = np.sum(np.abs(moved), axis=summed_axis, keepdims=True)
        pick = np.max if ord in (1, np.inf) else np.min
        best = pick(sums, axis=-1 if summed_axis == -2 else -2, keepdims=True)
        hit = sums == best
        share = hit / np.sum(hit, axis=-1 if summed_axis == -2 else -2, keepdims=True)
        d = np.sign(moved) * share
    else:
        raise ValueError(f"no derivative for a matrix norm of order {ord!r}")
    return np.moveaxis(d, (-2, -1), axes).astype(_float_dtype(x), copy=False)


def _norm_d(ans, x, ord, axis, keepdims):
    """np.linalg.norm's choice of vector or matrix norm, then its derivative."""
    if axis is None:
        if ord is None or np.ndim(x) == 1:
            return _vector_norm_d(ans, x, ord, axis, keepdims)
        return _matrix_norm_d(ans, x, ord, (0, 1), keepdims)
    if np.ndim(axis) == 0 or len(axis) == 1:
        return _vector_norm_d(ans, x, ord, axis, keepdims)
    return _matrix_norm_d(ans, x, ord, tuple(axis), keepdims)


@defvjp(np.linalg.norm, "x")
def norm_vjp(g, ans, x, ord=None, axis=None, keepdims=False):
    return unreduce(g, x, axis, keepdims) * _norm_d(ans, x, ord, axis, keepdims)


@defjvp(np.linalg.norm, "x")
def norm_jvp(t, ans, x, ord=None, axis=None, keepdims=False):
    return np.sum(t * _norm_d(ans, x, ord, axis, keepdims), axis=axis, keepdims=keepdims)


@defvjp(numpy2("linalg.vector_norm"), "x")
def vector_norm_vjp(g, ans, x, *, axis=None, keepdims=False, ord=2):
    return unreduce(g, x, axis, keepdims) * _vector_norm_d(ans, x, ord, axis, keepdims)


@defjvp(numpy2("linalg.vector_norm"), "x")
def vector_norm_jvp(t, ans, x, *, axis=None, keepdims=False, ord=2):
    return np.sum(t * _vector_norm_d(ans, x, ord, axis, keepdims), axis=axis, keepdims=keepdims)


@defvjp(numpy2("linalg.matrix_norm"), "x")
def matrix_norm_vjp(g, ans, x, *, keepdims=False, ord="fro"):
    return unreduce(g, x, (-2, -1), keepdims) * _matrix_norm_d(ans, x, ord, (-2, -1), keepdims)


@defjvp(numpy2("linalg.matrix_norm"), "x")
def matrix_norm_jvp(t, ans, x, *, keepdims=False, ord="fro"):
    return np.sum(t * _matrix_norm_d(ans, x, ord, (-2, -1), keepdims), axis=(-2, -1), keepdims=keepdims)
