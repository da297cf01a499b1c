"""The functions of scipy.linalg that Gaussian-process, Kalman-filter and least-squares
code calls: solve_triangular, cholesky, cho_factor, cho_solve, lu_factor, lu_solve,
solve, inv, det, expm, sqrtm, logm and norm.

SciPy is not a dependency of srcgrad: this module is imported (and its rules registered)
by `registry.lookup` the first time it misses a function while scipy.linalg is loaded,
and by the catalog. Rules are written in terms of functions that have rules themselves
(the SciPy function again, NumPy's linalg), so derivatives of every order exist.

What each function reads of its matrix, and so where its gradient lives: solve_triangular
one triangle (without the diagonal for unit_diagonal=True); cholesky, cho_factor, and
solve and inv with assume_a 'sym', 'her' or 'pos', the triangle `lower` names, the
off-diagonal entries of the gradient carrying both symmetric positions (as for
numpy.linalg.cholesky); solve and inv with assume_a 'upper triangular' or 'lower
triangular' that triangle, solve with 'diagonal' the diagonal; cho_solve the triangle of
its factor. cho_factor's other triangle holds values SciPy does not define: its reverse
rule raises where that triangle gets a cotangent, its forward rule gives it a NaN tangent.
lu_factor's pivots are integers (no derivative); its factor's derivative is exact where the
pivots stay. expm, sqrtm and logm take their derivatives, in both modes, from the function
of the block matrix [[A, E], [0, A]] (transposed for the reverse rule), whose upper right
block is the derivative of f at A along E. overwrite_a/overwrite_b=True is refused (SciPy may
destroy an array the derivative reads); check_finite changes nothing.
"""

import numpy as np
import scipy.linalg as sla

from ..runtime import unreduce
from .decompositions import _cholesky_jvp, _cholesky_vjp, _cofactor, _symmetric_from_triangle, _triangle_gradient
from .inverses import _solve_jvp_a, _solve_like, _solve_vjp_a
from .linalg import _T
from .norms import _norm_d
from .registry import defjvp, defvjp, nondifferentiable, supports

# --- what a function reads of its matrix ---------------------------------------------

_GENERAL = (None, "gen", "general")
_SYMMETRIC = ("sym", "symmetric", "her", "hermitian", "pos", "positive definite")
_TRIANGULAR = ("upper triangular", "lower triangular")


def _overwrites(name, overwrite_a, overwrite_b):
    """Refuse overwrite_a/overwrite_b=True: SciPy may destroy the array, and the derivative reads it."""
    for param, flag in (("overwrite_a", overwrite_a), ("overwrite_b", overwrite_b)):
        if flag:
            raise NotImplementedError(
                f"srcgrad differentiates scipy.linalg.{name} with {param}=False only: with {param}=True SciPy may "
                f"overwrite the array, which the derivative reads; drop {param}"
            )


def _structure(name, assume_a, kinds):
    if assume_a not in kinds:
        raise NotImplementedError(
            f"srcgrad differentiates scipy.linalg.{name} with assume_a one of {', '.join(map(repr, kinds))}, not "
            f"assume_a={assume_a!r}"
        )


def _read(x, assume_a, lower):
    """The matrix that solve and inv with `assume_a` (and `lower`) see of x."""
    if assume_a in _SYMMETRIC:
        return _symmetric_from_triangle(x, lower)
    if assume_a == "diagonal":
        return np.diagonal(x, axis1=-2, axis2=-1)[..., None] * np.eye(np.shape(x)[-1], dtype=bool)
    if assume_a in _TRIANGULAR:
        return np.tril(x) if assume_a == "lower triangular" else np.triu(x)
    return x


def _read_adjoint(grad, assume_a, lower):
    """The gradient of x from the gradient of `_read(x, assume_a, lower)`."""
    if assume_a in _SYMMETRIC:
        return _triangle_gradient(grad, lower)
    return _read(grad, assume_a, lower)


def _triangle(x, lower, unit_diagonal=False):
    """The triangle of x a triangular solve reads: its diagonal too unless unit_diagonal."""
    return np.tril(x, -1 if unit_diagonal else 0) if lower else np.triu(x, 1 if unit_diagonal else 0)


def _outer(y, x, b):
    """y x^T, column by column for a matrix b (one column per right-hand side)."""
    return np.multiply.outer(y, x) if np.ndim(b) == 1 else y @ _T(x)


def _kept(name, overwrite_b, a):
    """a, where overwrite_b is False (see `_overwrites`)."""
    _overwrites(name, False, overwrite_b)
    return a


def _matrix(name, a):
    if np.ndim(a) != 2:
        raise NotImplementedError(
            f"srcgrad differentiates scipy.linalg.{name} of one matrix (2-D), not of a stack of shape {np.shape(a)}; "
            "loop over the stack, or use the numpy.linalg function"
        )


# --- solve_triangular ---------------------------------------------------------------


def _transposed(trans):
    if trans not in (0, 1, 2, "N", "T", "C"):
        raise ValueError(f"scipy.linalg.solve_triangular: trans={trans!r} is not 0, 1, 2, 'N', 'T' or 'C'")
    return trans in (1, 2, "T", "C")


def _solve_triangular_vjp_a(g, ans, a, b, trans, lower, unit_diagonal, overwrite_b):
    _overwrites("solve_triangular", False, overwrite_b)
    _matrix("solve_triangular", a)
    y = sla.solve_triangular(a, g, trans=0 if _transposed(trans) else 1, lower=lower, unit_diagonal=unit_diagonal)
    grad = -_outer(y, ans, b)
    return _triangle(_T(grad) if _transposed(trans) else grad, lower, unit_diagonal)


def _solve_triangular_jvp_a(t, ans, a, trans, lower, unit_diagonal, overwrite_b):
    _overwrites("solve_triangular", False, overwrite_b)
    _matrix("solve_triangular", a)
    moved = _triangle(t, lower, unit_diagonal)
    moved = _T(moved) if _transposed(trans) else moved
    return -sla.solve_triangular(a, moved @ ans, trans=trans, lower=lower, unit_diagonal=unit_diagonal)


@defvjp(sla.solve_triangular, "a", name="SolveTriangular")
def solve_triangular_vjp_a(g, ans, a, b, trans=0, lower=False, unit_diagonal=False, overwrite_b=False,
                           check_finite=True):
    return _solve_triangular_vjp_a(g, ans, a, b, trans, lower, unit_diagonal, overwrite_b)


@defvjp(sla.solve_triangular, "b")
def solve_triangular_vjp_b(g, ans, a, b, trans=0, lower=False, unit_diagonal=False, overwrite_b=False,
                           check_finite=True):
    return sla.solve_triangular(_kept("solve_triangular", overwrite_b, a), g, trans=0 if _transposed(trans) else 1,
                                lower=lower, unit_diagonal=unit_diagonal)


@defjvp(sla.solve_triangular, "a")
def solve_triangular_jvp_a(t, ans, a, b, trans=0, lower=False, unit_diagonal=False, overwrite_b=False,
                           check_finite=True):
    return _solve_triangular_jvp_a(t, ans, a, trans, lower, unit_diagonal, overwrite_b)


@defjvp(sla.solve_triangular, "b")
def solve_triangular_jvp_b(t, ans, a, b, trans=0, lower=False, unit_diagonal=False, overwrite_b=False,
                           check_finite=True):
    return sla.solve_triangular(_kept("solve_triangular", overwrite_b, a), t, trans=trans, lower=lower,
                                unit_diagonal=unit_diagonal)


# --- cholesky, cho_factor, cho_solve ------------------------------------------------


def _cholesky_upper(a, lower, overwrite_a):
    """Whether scipy.linalg.cholesky returns the upper factor (and reads the upper triangle)."""
    _overwrites("cholesky", overwrite_a, False)
    _matrix("cholesky", a)
    return not lower


@defvjp(sla.cholesky, "a", name="Cholesky")
def cholesky_vjp(g, ans, a, lower=False, overwrite_a=False, check_finite=True):
    return _cholesky_vjp(g, ans, _cholesky_upper(a, lower, overwrite_a))


@defjvp(sla.cholesky, "a")
def cholesky_jvp(t, ans, a, lower=False, overwrite_a=False, check_finite=True):
    return _cholesky_jvp(t, ans, _cholesky_upper(a, lower, overwrite_a))


_CHO_FACTOR = (
    "the triangle of scipy.linalg.cho_factor's result that is not the factor holds values SciPy does not define, "
    "which have no derivative; pass the result to cho_solve, or use np.tril/np.triu of it, or scipy.linalg.cholesky"
)


def _cho_factor_vjp(g, ans, a, lower, overwrite_a):
    _overwrites("cho_factor", overwrite_a, False)
    _matrix("cho_factor", a)
    c, g_c = ans[0], g[0]
    if g_c is None:
        return np.zeros_like(a)
    if np.any(g_c - _triangle(g_c, lower) != 0):
        raise NotImplementedError(_CHO_FACTOR)
    return _cholesky_vjp(g_c, _triangle(c, lower), not lower)


def _cho_factor_jvp(t, ans, a, lower, overwrite_a):
    _overwrites("cho_factor", overwrite_a, False)
    _matrix("cho_factor", a)
    d_factor = _cholesky_jvp(t, _triangle(ans[0], lower), not lower)
    undefined = np.triu(np.ones(np.shape(a), dtype=bool), 1) if lower else np.tril(np.ones(np.shape(a), dtype=bool), -1)
    return np.where(undefined, np.nan, d_factor), 0.0


@defvjp(sla.cho_factor, "a", name="ChoFactor")
def cho_factor_vjp(g, ans, a, lower=False, overwrite_a=False, check_finite=True):
    return _cho_factor_vjp(g, ans, a, lower, overwrite_a)


@defjvp(sla.cho_factor, "a")
def cho_factor_jvp(t, ans, a, lower=False, overwrite_a=False, check_finite=True):
    return _cho_factor_jvp(t, ans, a, lower, overwrite_a)


def _cho_solve_vjp_c(g, ans, c_and_lower, b, overwrite_b):
    """x = A^-1 b with A = F F^T (lower) or F^T F (upper), F the triangle of c."""
    _overwrites("cho_solve", False, overwrite_b)
    c, lower = c_and_lower
    _matrix("cho_solve", c)
    factor = _triangle(c, lower)
    grad = -_outer(sla.cho_solve((c, lower), g), ans, b)
    both = grad + _T(grad)
    g_c = np.tril(both @ factor) if lower else np.triu(factor @ both)
    return [g_c, None] if isinstance(c_and_lower, list) else (g_c, None)


def _cho_solve_jvp_c(t, ans, c_and_lower, b, overwrite_b):
    _overwrites("cho_solve", False, overwrite_b)
    c, lower = c_and_lower
    _matrix("cho_solve", c)
    if t[0] is None:
        return np.zeros_like(ans)
    factor, d_factor = _triangle(c, lower), _triangle(t[0], lower)
    d_a = d_factor @ _T(factor) + factor @ _T(d_factor) if lower else _T(d_factor) @ factor + _T(factor) @ d_factor
    return -sla.cho_solve((c, lower), d_a @ ans)


@defvjp(sla.cho_solve, "c_and_lower", name="ChoSolve")
def cho_solve_vjp_c(g, ans, c_and_lower, b, overwrite_b=False, check_finite=True):
    return _cho_solve_vjp_c(g, ans, c_and_lower, b, overwrite_b)


@defvjp(sla.cho_solve, "b")
def cho_solve_vjp_b(g, ans, c_and_lower, b, overwrite_b=False, check_finite=True):
    return sla.cho_solve((_kept("cho_solve", overwrite_b, c_and_lower[0]), c_and_lower[1]), g)


@defjvp(sla.cho_solve, "c_and_lower")
def cho_solve_jvp_c(t, ans, c_and_lower, b, overwrite_b=False, check_finite=True):
    return _cho_solve_jvp_c(t, ans, c_and_lower, b, overwrite_b)


@defjvp(sla.cho_solve, "b")
def cho_solve_jvp_b(t, ans, c_and_lower, b, overwrite_b=False, check_finite=True):
    return sla.cho_solve((_kept("cho_solve", overwrite_b, c_and_lower[0]), c_and_lower[1]), t)


# --- solve, inv, det ----------------------------------------------------------------


def _solve_matrix(a, lower, overwrite_a, overwrite_b, assume_a, transposed):
    """The matrix M that scipy.linalg.solve solves M x = b with."""
    _overwrites("solve", overwrite_a, overwrite_b)
    _structure("solve", assume_a, _GENERAL + _SYMMETRIC + _TRIANGULAR + ("diagonal",))
    _matrix("solve", a)
    read = _read(a, assume_a, lower)
    return _T(read) if transposed else read


def _solve_vjp(g, ans, a, b, lower, overwrite_a, overwrite_b, assume_a, transposed):
    grad = _solve_vjp_a(g, ans, _solve_matrix(a, lower, overwrite_a, overwrite_b, assume_a, transposed), b)
    return _read_adjoint(_T(grad) if transposed else grad, assume_a, lower)


def _solve_jvp(t, ans, a, b, lower, overwrite_a, overwrite_b, assume_a, transposed):
    read = _read(t, assume_a, lower)
    return _solve_jvp_a(_T(read) if transposed else read, ans,
                        _solve_matrix(a, lower, overwrite_a, overwrite_b, assume_a, transposed), b)


@defvjp(sla.solve, "a", name="Solve")
def solve_vjp_a(g, ans, a, b, lower=False, overwrite_a=False, overwrite_b=False, check_finite=True, assume_a=None,
                transposed=False):
    return _solve_vjp(g, ans, a, b, lower, overwrite_a, overwrite_b, assume_a, transposed)


@defvjp(sla.solve, "b")
def solve_vjp_b(g, ans, a, b, lower=False, overwrite_a=False, overwrite_b=False, check_finite=True, assume_a=None,
                transposed=False):
    return _solve_like(_T(_solve_matrix(a, lower, overwrite_a, overwrite_b, assume_a, transposed)), g, b)


@defjvp(sla.solve, "a")
def solve_jvp_a(t, ans, a, b, lower=False, overwrite_a=False, overwrite_b=False, check_finite=True, assume_a=None,
                transposed=False):
    return _solve_jvp(t, ans, a, b, lower, overwrite_a, overwrite_b, assume_a, transposed)


@defjvp(sla.solve, "b")
def solve_jvp_b(t, ans, a, b, lower=False, overwrite_a=False, overwrite_b=False, check_finite=True, assume_a=None,
                transposed=False):
    return _solve_like(_solve_matrix(a, lower, overwrite_a, overwrite_b, assume_a, transposed), t, b)


def _inv_checked(a, overwrite_a, assume_a):
    _overwrites("inv", overwrite_a, False)
    _structure("inv", assume_a, _GENERAL + _SYMMETRIC + _TRIANGULAR)
    return a


@defvjp(sla.inv, "a", name="Inv")
def inv_vjp(g, ans, a, overwrite_a=False, check_finite=True, *, assume_a=None, lower=False):
    return _read_adjoint(-_T(ans) @ g @ _T(_inv_checked(ans, overwrite_a, assume_a)), assume_a, lower)


@defjvp(sla.inv, "a")
def inv_jvp(t, ans, a, overwrite_a=False, check_finite=True, *, assume_a=None, lower=False):
    return -ans @ _read(t, assume_a, lower) @ _inv_checked(ans, overwrite_a, assume_a)


def _det_checked(a, overwrite_a):
    _overwrites("det", overwrite_a, False)
    return a


@defvjp(sla.det, "a", name="Det")
def det_vjp(g, ans, a, overwrite_a=False, check_finite=True):
    return (np.expand_dims(g, (-2, -1)) * _cofactor(_det_checked(a, overwrite_a))).astype(np.result_type(a), copy=False)


@defjvp(sla.det, "a")
def det_jvp(t, ans, a, overwrite_a=False, check_finite=True):
    return np.sum(_cofactor(_det_checked(a, overwrite_a)) * t, axis=(-2, -1))


# --- lu_factor, lu_solve: A = P L U, L unit lower and U upper sharing one array --------


def _row_order(piv):
    """The order of A's rows in L U (P^T A = A[order]) from LAPACK's interchanges."""
    order = np.arange(np.shape(piv)[-1])
    for i, p in enumerate(piv):
        order[i], order[p] = order[p], order[i]
    return order


nondifferentiable(_row_order, _overwrites, _structure, _matrix, _transposed)


def _lu_parts(lu):
    """(L, U) of a combined factor."""
    return np.tril(lu, -1) + np.eye(np.shape(lu)[-1], dtype=np.result_type(lu)), np.triu(lu)


def _lu_factor_vjp(g, ans, a, overwrite_a):
    """dA = P (dL U + L dU): with F = L^-1 P^T dA U^-1, dL = L tril(F, -1) and dU = triu(F) U."""
    _overwrites("lu_factor", overwrite_a, False)
    _matrix("lu_factor", a)
    lu, piv = ans
    if g[0] is None:
        return np.zeros_like(a)
    l, u = _lu_parts(lu)
    inner = np.tril(_T(l) @ g[0], -1) + np.triu(g[0] @ _T(u))
    right = _T(sla.solve_triangular(lu, _T(inner)))  # inner U^-T
    return sla.solve_triangular(lu, right, trans=1, lower=True, unit_diagonal=True)[np.argsort(_row_order(piv))]


def _lu_factor_jvp(t, ans, a, overwrite_a):
    _overwrites("lu_factor", overwrite_a, False)
    _matrix("lu_factor", a)
    lu, piv = ans
    l, u = _lu_parts(lu)
    moved = sla.solve_triangular(lu, np.asarray(t)[_row_order(piv)], lower=True, unit_diagonal=True)
    inner = _T(sla.solve_triangular(lu, _T(moved), trans=1))  # L^-1 P^T dA U^-1
    return l @ np.tril(inner, -1) + np.triu(inner) @ u, np.zeros(np.shape(piv))


@defvjp(sla.lu_factor, "a", name="LuFactor")
def lu_factor_vjp(g, ans, a, overwrite_a=False, check_finite=True):
    return _lu_factor_vjp(g, ans, a, overwrite_a)


@defjvp(sla.lu_factor, "a")
def lu_factor_jvp(t, ans, a, overwrite_a=False, check_finite=True):
    return _lu_factor_jvp(t, ans, a, overwrite_a)


def _lu_solve_vjp_lu(g, ans, lu_and_piv, b, trans, overwrite_b):
    """The gradient of A (as for solve), then of L and U through dA = P (dL U + L dU)."""
    _overwrites("lu_solve", False, overwrite_b)
    lu, piv = lu_and_piv
    grad = -_outer(sla.lu_solve((lu, piv), g, trans=0 if _transposed(trans) else 1), ans, b)
    grad = (_T(grad) if _transposed(trans) else grad)[_row_order(piv)]  # P^T g_A
    l, u = _lu_parts(lu)
    g_lu = np.tril(grad @ _T(u), -1) + np.triu(_T(l) @ grad)
    return [g_lu, None] if isinstance(lu_and_piv, list) else (g_lu, None)


def _lu_solve_jvp_lu(t, ans, lu_and_piv, b, trans, overwrite_b):
    _overwrites("lu_solve", False, overwrite_b)
    lu, piv = lu_and_piv
    if t[0] is None:
        return np.zeros_like(ans)
    l, u = _lu_parts(lu)
    d_a = (np.tril(t[0], -1) @ u + l @ np.triu(t[0]))[np.argsort(_row_order(piv))]
    return -sla.lu_solve((lu, piv), (_T(d_a) if _transposed(trans) else d_a) @ ans, trans=trans)


@defvjp(sla.lu_solve, "lu_and_piv", name="LuSolve")
def lu_solve_vjp_lu(g, ans, lu_and_piv, b, trans=0, overwrite_b=False, check_finite=True):
    return _lu_solve_vjp_lu(g, ans, lu_and_piv, b, trans, overwrite_b)


@defvjp(sla.lu_solve, "b")
def lu_solve_vjp_b(g, ans, lu_and_piv, b, trans=0, overwrite_b=False, check_finite=True):
    return sla.lu_solve((_kept("lu_solve", overwrite_b, lu_and_piv[0]), lu_and_piv[1]), g,
                        trans=0 if _transposed(trans) else 1)


@defjvp(sla.lu_solve, "lu_and_piv")
def lu_solve_jvp_lu(t, ans, lu_and_piv, b, trans=0, overwrite_b=False, check_finite=True):
    return _lu_solve_jvp_lu(t, ans, lu_and_piv, b, trans, overwrite_b)


@defjvp(sla.lu_solve, "b")
def lu_solve_jvp_b(t, ans, lu_and_piv, b, trans=0, overwrite_b=False, check_finite=True):
    return sla.lu_solve((_kept("lu_solve", overwrite_b, lu_and_piv[0]), lu_and_piv[1]), t, trans=trans)


# --- matrix functions: the derivative is the upper right block of f([[A, E], [0, A]]) ---


def _block(a, e):
    """[[a, e], [0, a]]."""
    top = np.concatenate([a, e], axis=-1)
    return np.concatenate([top, np.concatenate([np.zeros_like(e), a], axis=-1)], axis=-2)


def _upper_right(x, like):
    n = np.shape(like)[-1]
    return x[..., :n, n:].astype(np.result_type(like), copy=False)


@defvjp(sla.expm, "A", name="Expm")
def expm_vjp(g, ans, A):
    return _upper_right(sla.expm(_block(_T(A), g)), A)


@defjvp(sla.expm, "A")
def expm_jvp(t, ans, A):
    return _upper_right(sla.expm(_block(A, t)), ans)


def _real(name, ans):
    if np.iscomplexobj(ans):
        raise NotImplementedError(
            f"scipy.linalg.{name} returned a complex matrix (its input has eigenvalues on the negative real axis): "
            "srcgrad differentiates real results only"
        )
    return ans


@defvjp(sla.sqrtm, "A", name="Sqrtm")
def sqrtm_vjp(g, ans, A, disp=True, blocksize=64):
    return _upper_right(sla.sqrtm(_block(_T(A), g)), _real("sqrtm", A))


@defjvp(sla.sqrtm, "A")
def sqrtm_jvp(t, ans, A, disp=True, blocksize=64):
    return _upper_right(sla.sqrtm(_block(A, t)), _real("sqrtm", ans))


@defvjp(sla.logm, "A", name="Logm")
def logm_vjp(g, ans, A, disp=True):
    return _upper_right(sla.logm(_block(_T(A), g)), _real("logm", A))


@defjvp(sla.logm, "A")
def logm_jvp(t, ans, A, disp=True):
    return _upper_right(sla.logm(_block(A, t)), _real("logm", ans))


# --- norm: NumPy's norms (SciPy computes the same ones) -------------------------------


@defvjp(sla.norm, "a", name="Norm")
def norm_vjp(g, ans, a, ord=None, axis=None, keepdims=False, check_finite=True):
    return unreduce(g, a, axis, keepdims) * _norm_d(ans, a, ord, axis, keepdims)


@defjvp(sla.norm, "a")
def norm_jvp(t, ans, a, ord=None, axis=None, keepdims=False, check_finite=True):
    return np.sum(t * _norm_d(ans, a, ord, axis, keepdims), axis=axis, keepdims=keepdims)


_OVERWRITE = "SciPy may overwrite the array with overwrite_{}=True, and the derivative reads it: drop the argument"
for _primal in (sla.cholesky, sla.cho_factor, sla.solve, sla.inv, sla.det, sla.lu_factor):
    supports(_primal, "overwrite_a", (False,), _OVERWRITE.format("a"))
for _primal in (sla.solve_triangular, sla.cho_solve, sla.solve, sla.lu_solve):
    supports(_primal, "overwrite_b", (False,), _OVERWRITE.format("b"))
supports(sla.sqrtm, "disp", (True,), "call scipy.linalg.sqrtm(A) without disp (SciPy deprecates it)")
supports(sla.logm, "disp", (True,), "call scipy.linalg.logm(A) without disp (SciPy deprecates it)")
