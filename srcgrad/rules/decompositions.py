"""numpy.linalg's factorizations: cholesky eigh eigvalsh qr svd svdvals, and the
cofactor matrix (through the SVD) that det's rules use; `symmetric_eigh` and
`symmetric_eigvalsh`, eigh differentiated over symmetric matrices (the Tensor shim's). Inverses, determinants and
solves built on them are in `inverses.py`, norms in `norms.py`; products, and the
conventions these rules follow, in `linalg.py`.

Functions that return several arrays (eigh, qr, svd) take their cotangent as a
sequence with one entry per output, None where an output receives no gradient, and
their forward rules return a tuple.

Functions that read one triangle of their input (cholesky, eigh, eigvalsh, and svd and
pinv with hermitian=True) get the
exact gradient of what they compute: it lives on that triangle, with the off-diagonal
entries carrying the contribution of both symmetric positions. Eigen- and singular-
vector rules assume distinct eigen/singular values. `svd` with `full_matrices=True`
of a non-square matrix and `qr` with `mode="complete"` of a tall matrix have no
unique derivative for the extra columns: their reverse rules raise unless those
outputs get no cotangent; svd's forward rule gives the singular values and the square
factor their tangents and the other factor a `_NoTangent`, which raises when it is used.
"""

import numpy as np

from .reductions import _exclusive_product
from .registry import defjvp, defvjp, numpy2
from .structure import _cotangents
from .linalg import _T


# --- the cofactor matrix (det's derivative, in inverses.py) -------------------------


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


# --- cholesky, eigh, qr -------------------------------------------------------------


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
    "srcgrad differentiates np.linalg.qr(a, mode='complete') of a tall matrix only where Q gets no gradient: Q's "
    "columns beyond a's have no derivative; use mode='reduced' (the same first columns of Q and rows of R)"
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


# --- singular value decomposition ---------------------------------------------------


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


def singular_values_only(g):
    """Whether the cotangent (g_u, g_s, g_vh) of svd's output has none for the singular
    vectors: None, or zeros (those `svd(a).S` leaves in the fields it does not read)."""
    return all(part is None or not np.any(part) for part in (g[0], g[2]))


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


def _symmetrized(x, hermitian):
    """What svd and pinv with hermitian=True read of x (through eigh): its lower triangle,
    mirrored; x itself otherwise."""
    return np.tril(x) + _T(np.tril(x, -1)) if hermitian else x


def _on_lower(g, hermitian):
    """The gradient of x from the gradient `g` of `_symmetrized(x, hermitian)`: on the
    lower triangle, both symmetric positions' shares (the eigh convention), 0 above."""
    return np.tril(g + _T(g), -1) + np.tril(np.triu(g)) if hermitian else g


@defvjp(np.linalg.svd, "x")
def svd_vjp(g, ans, x, full_matrices=True, compute_uv=True, hermitian=False):
    return (_svd_vjp(g, ans, x, full_matrices, compute_uv, False) if hermitian is False
            else _on_lower(_svd_vjp(g, ans, _symmetrized(x, hermitian), full_matrices, compute_uv, False), hermitian))


@defjvp(np.linalg.svd, "x")
def svd_jvp(t, ans, x, full_matrices=True, compute_uv=True, hermitian=False):
    return (_svd_jvp(t, ans, x, full_matrices, compute_uv, False) if hermitian is False
            else _svd_jvp(_symmetrized(t, hermitian), ans, _symmetrized(x, hermitian), full_matrices, compute_uv, False))


@defvjp(numpy2("linalg.svdvals"), "x")
def svdvals_vjp(g, ans, x):
    return _singular_values_vjp(g, x)


@defjvp(numpy2("linalg.svdvals"), "x")
def svdvals_jvp(t, ans, x):
    return _singular_values_jvp(t, x)


# --- eigh over symmetric matrices (the Tensor shim's linalg.eigh) -------------------


def _symmetric_part(x):
    return 0.5 * (x + _T(x))


def symmetric_eigh(x, UPLO="L"):
    """`np.linalg.eigh(x, UPLO)` as a tuple, differentiated as a function of symmetric
    matrices (PyTorch's convention): its gradient is the symmetric matrix G with
    <G, dx> the change along any symmetric dx, where np.linalg.eigh's rule puts the
    same first-order change on the triangle it reads. A tangent counts by its symmetric
    part."""
    w, v = np.linalg.eigh(x, UPLO)
    return w, v


def symmetric_eigvalsh(x, UPLO="L"):
    """`np.linalg.eigvalsh(x, UPLO)`, differentiated as `symmetric_eigh`."""
    return np.linalg.eigvalsh(x, UPLO)


@defvjp(symmetric_eigh, "x", name="LinalgEigh")
def symmetric_eigh_vjp(g, ans, x, UPLO="L"):
    return _symmetric_part(_eigh_vjp(g, ans, UPLO))


@defjvp(symmetric_eigh, "x")
def symmetric_eigh_jvp(t, ans, x, UPLO="L"):
    return _eigh_jvp(_symmetric_part(t), ans, UPLO)


@defvjp(symmetric_eigvalsh, "x", name="LinalgEigh")
def symmetric_eigvalsh_vjp(g, ans, x, UPLO="L"):
    return _symmetric_part(_eigh_vjp((g, None), np.linalg.eigh(x, UPLO), UPLO))


@defjvp(symmetric_eigvalsh, "x")
def symmetric_eigvalsh_jvp(t, ans, x, UPLO="L"):
    return _eigh_jvp(_symmetric_part(t), np.linalg.eigh(x, UPLO), UPLO)[0]
