"""numpy.linalg's inverses and what is built on them: inv pinv det slogdet (and its
log_abs_det) solve lstsq
tensorsolve matrix_power (factorizations in `decompositions.py`; products, and the conventions
these rules follow, in `linalg.py`).

slogdet and lstsq return several arrays: they take their cotangent as a sequence with
one entry per output, None where an output receives no gradient, and their forward
rules return a tuple.

det's gradient is the cofactor matrix, computed through the SVD so it is exact for a
singular matrix. `lstsq` differentiates the solution of a full-rank matrix (tall: the
least-squares solution, wide: the minimum-norm one) and the residuals exactly; for a
rank-deficient matrix (rank below min(m, n), rcond included) only its singular values
have a derivative, and the solution's raises NotDifferentiableError (its forward rule
gives a `_NoTangent` in its place). pinv(hermitian=True) reads the lower triangle of
its input, mirrored (see `decompositions.py`).
"""

import numpy as np

from ..errors import NotDifferentiableError
from ..runtime import unbroadcast, zeros_like_grad
from .decompositions import _HERMITIAN, _NoTangent, _cofactor, _on_lower, _singular_values_jvp, _singular_values_vjp, _symmetrized
from .registry import defjvp, defvjp
from .linalg import _T


# --- inverse, determinants, solve ---------------------------------------------------


@defvjp(np.linalg.inv, "x")
def inv_vjp(g, ans, x):
    return -_T(ans) @ g @ _T(ans)


@defjvp(np.linalg.inv, "x")
def inv_jvp(t, ans, x):
    return -ans @ t @ ans


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


def log_abs_det(x):
    """log |det x| of a (stack of) square matrices: `np.linalg.slogdet(x)[1]` as one
    array (the Tensor shim's slogdet and logdet), -inf for a singular matrix."""
    return np.linalg.slogdet(x)[1]


@defvjp(log_abs_det, "x", name="LinalgSlogdet")
def log_abs_det_vjp(g, ans, x):
    return np.expand_dims(g, (-2, -1)) * _T(np.linalg.inv(x))


@defjvp(log_abs_det, "x")
def log_abs_det_jvp(t, ans, x):
    return np.sum(_T(np.linalg.inv(x)) * t, axis=(-2, -1))


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


# --- pseudo-inverse, powers ---------------------------------------------------------


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
    return unbroadcast(_pinv_vjp(g, ans, x, False) if hermitian is False
                       else _on_lower(_pinv_vjp(g, ans, _symmetrized(x, hermitian), False), hermitian), x)


@defjvp(np.linalg.pinv, "x")
def pinv_jvp(t, ans, x, rcond=None, hermitian=False, *, rtol=None):
    return (_pinv_jvp(t, ans, x, False) if hermitian is False
            else _pinv_jvp(_symmetrized(t, hermitian), ans, _symmetrized(x, hermitian), False))


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


# --- tensorsolve: the solve of a reshaped to a square matrix --------------------------


def _tensor_matrix(a, b, axes):
    """np.linalg.tensorsolve's `a` with `axes` moved last (as it moves them), the
    permutation that did it, and `a` as the square matrix (b.size, x.size) it solves with."""
    order = list(range(np.ndim(a)))
    for k in axes or ():
        order.remove(k)
        order.append(k)
    moved = np.transpose(a, order)
    return moved, order, np.reshape(moved, (np.size(b), -1))


def _tensorsolve_vjp(g, ans, a, b, axes, of_b):
    """b's gradient solves the transposed system: y = A^-T g; a's is -y x^T, in a's layout."""
    moved, order, matrix = _tensor_matrix(a, b, axes)
    y = np.linalg.solve(_T(matrix), np.ravel(g))
    if of_b:
        return unbroadcast(np.reshape(y, np.shape(b)), b)
    return np.transpose(np.reshape(-np.outer(y, np.ravel(ans)), np.shape(moved)), np.argsort(order))


@defvjp(np.linalg.tensorsolve, "a")
def tensorsolve_vjp_a(g, ans, a, b, axes=None):
    return _tensorsolve_vjp(g, ans, a, b, axes, False)


@defvjp(np.linalg.tensorsolve, "b")
def tensorsolve_vjp_b(g, ans, a, b, axes=None):
    return _tensorsolve_vjp(g, ans, a, b, axes, True)


@defjvp(np.linalg.tensorsolve, "a")
def tensorsolve_jvp_a(t, ans, a, b, axes=None):
    return np.linalg.tensorsolve(a, -np.tensordot(_tensor_matrix(t, b, axes)[0], ans, np.ndim(ans)), axes=axes)


@defjvp(np.linalg.tensorsolve, "b")
def tensorsolve_jvp_b(t, ans, a, b, axes=None):
    return np.linalg.tensorsolve(a, t + np.zeros(np.shape(b), np.result_type(t)), axes=axes)
