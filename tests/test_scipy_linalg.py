"""The rules of scipy.linalg (srcgrad/rules/scipy_linalg.py): solve_triangular, cholesky,
cho_factor, cho_solve, lu_factor, lu_solve, solve, inv, det, expm, sqrtm, logm and norm,
each in grad (against central differences and an analytic answer or NumPy's own
function), jvp (the dot-product test against the gradient), jacobian in both modes and
hessian, with float32 inputs keeping float32 gradients and inputs left unchanged; then
the Gaussian-process and Kalman-filter programs these functions serve. SciPy is optional:
srcgrad registers these rules when a derivative is first built after the program has
imported scipy.linalg.
"""

import copy
import subprocess
import sys

import numpy as np
import pytest

import srcgrad
from conftest import numerical_grad
from program_checks import check_hessian

sla = pytest.importorskip("scipy.linalg")

RNG = np.random.default_rng(7)
N = 4


def _spd(n=N, seed=0):
    a = np.random.default_rng(seed).normal(size=(n, n))
    return a @ a.T + n * np.eye(n)


def _well(n=N, seed=1):
    """A well-conditioned general matrix."""
    return np.random.default_rng(seed).normal(size=(n, n)) + 2 * n ** 0.5 * np.eye(n)


def _tri(lower, seed=2):
    a = np.random.default_rng(seed).normal(size=(N, N)) + 3 * np.eye(N)
    return np.tril(a) if lower else np.triu(a)


def _numerical_jacobian(fn, args, index, eps=1e-6):
    x = np.array(args[index], dtype=np.float64)
    out = np.asarray(fn(*args))
    jac = np.zeros(out.shape + x.shape)
    for k in np.ndindex(x.shape):
        shifted = []
        for step in (eps, -eps):
            moved = x.copy()
            moved[k] += step
            a = list(args)
            a[index] = moved
            shifted.append(np.asarray(fn(*a)))
        jac[(Ellipsis,) + k] = (shifted[0] - shifted[1]) / (2 * eps)
    return jac


def check(fn, args, wrt, expected=None, rtol=1e-6):
    """grad of the arguments `wrt` against differences (and `expected`), jvp against the
    gradient, float32 gradients for float32 inputs, the arguments unchanged."""
    before = copy.deepcopy(args)
    grads = srcgrad.grad(fn, wrt=wrt)(*args)
    for i, g in zip(wrt, grads):
        assert g.dtype == args[i].dtype and g.shape == args[i].shape
        np.testing.assert_allclose(g, numerical_grad(fn, args, i), rtol=rtol, atol=1e-7)
    for g, e in zip(grads, expected or ()):
        np.testing.assert_allclose(g, e, rtol=1e-9, atol=1e-10)
    rng = np.random.default_rng(0)
    tangents = tuple(rng.normal(size=np.shape(a)) if i in wrt else None for i, a in enumerate(args))
    out, out_dot = srcgrad.jvp(fn, args, tangents)
    np.testing.assert_allclose(out, fn(*args), rtol=1e-12)
    np.testing.assert_allclose(out_dot, sum(np.sum(g * tangents[i]) for i, g in zip(wrt, grads)), rtol=1e-8, atol=1e-10)
    for a, b in zip(args, before):
        np.testing.assert_array_equal(a, b)
    singles = [np.asarray(a, np.float32) if i in wrt else a for i, a in enumerate(args)]
    for i, g in zip(wrt, srcgrad.grad(fn, wrt=wrt)(*singles)):
        assert g.dtype == np.float32, (i, g.dtype)
    return grads


def check_jacobian(fn, args, index):
    """jacobian in both modes against differences."""
    numeric = _numerical_jacobian(fn, args, index)
    for mode in ("forward", "reverse"):
        jac = srcgrad.jacobian(fn, wrt=index, mode=mode)(*args)
        np.testing.assert_allclose(jac, numeric, rtol=1e-6, atol=1e-7)


# --- solve_triangular ----------------------------------------------------------------


def tri_solve(a, b, trans, lower, unit):
    x = sla.solve_triangular(a, b, trans=trans, lower=lower, unit_diagonal=unit)
    return np.sum(x * x) + np.sum(np.sin(x))


def tri_solve_matrix(a, b):
    return sla.solve_triangular(a, b, lower=True, trans="T")


@pytest.mark.parametrize("trans", [0, 1, "T", "N", 2])
@pytest.mark.parametrize("lower", [True, False])
@pytest.mark.parametrize("unit", [False, True])
@pytest.mark.parametrize("ncols", [None, 2])
def test_solve_triangular(trans, lower, unit, ncols):
    a = _tri(lower) + 0.3 * RNG.normal(size=(N, N))  # the other triangle is not read
    b = RNG.normal(size=N if ncols is None else (N, ncols))
    args = (a, b, trans, lower, unit)
    ga, gb = check(tri_solve, args, (0, 1))
    # analytic: x = M^-1 b with M the triangle read (its diagonal 1 for unit_diagonal)
    m = np.tril(a, -1 if unit else 0) if lower else np.triu(a, 1 if unit else 0)
    m = m + np.eye(N) if unit else m
    m = m.T if trans in (1, "T", 2) else m
    x = np.linalg.solve(m, b)
    y = np.linalg.solve(m.T, 2 * x + np.cos(x))
    np.testing.assert_allclose(gb, y, rtol=1e-9)
    grad_m = -(np.outer(y, x) if ncols is None else y @ x.T)
    grad_m = grad_m.T if trans in (1, "T", 2) else grad_m
    mask = np.tril(np.ones((N, N)), -1 if unit else 0) if lower else np.triu(np.ones((N, N)), 1 if unit else 0)
    np.testing.assert_allclose(ga, grad_m * mask, rtol=1e-9, atol=1e-12)
    if ncols is None and trans in (0, "T"):
        check_hessian(tri_solve, args, 0)
        check_hessian(tri_solve, args, 1)


def test_solve_triangular_jacobian():
    a, b = _tri(True), RNG.normal(size=(N, 2))
    check_jacobian(tri_solve_matrix, (a, b), 0)
    check_jacobian(tri_solve_matrix, (a, b), 1)




# --- cholesky, cho_factor, cho_solve -------------------------------------------------


def chol_loss(a, lower):
    c = sla.cholesky(a, lower=lower)
    return np.sum(c * c * np.arange(1.0, 1.0 + c.size).reshape(c.shape)) + np.sum(np.log(np.diag(c)))


def chol_lower(a):
    return sla.cholesky(a, lower=True)


def chol_upper(a):
    return sla.cholesky(a)


@pytest.mark.parametrize("lower", [True, False])
def test_cholesky_reads_the_triangle_numpy_reads(lower):
    k = _spd()
    a = k + (np.triu if lower else np.tril)(RNG.normal(size=(N, N)), 1 if lower else -1)  # unread triangle
    (g,) = check(chol_loss, (a, lower), (0,))
    # numpy.linalg.cholesky reads the lower triangle (upper=True: the upper one): the same gradient
    np.testing.assert_allclose(g, srcgrad.grad(_np_chol_loss)(a, not lower), rtol=1e-10, atol=1e-12)
    check_hessian(chol_loss, (a, lower), 0)
    check_jacobian(chol_lower if lower else chol_upper, (a,), 0)


def _np_chol_loss(a, upper):
    c = np.linalg.cholesky(a, upper=upper)
    return np.sum(c * c * np.arange(1.0, 1.0 + c.size).reshape(c.shape)) + np.sum(np.log(np.diag(c)))


def cho_pair(a, b, lower):
    c, low = sla.cho_factor(a, lower=lower)
    x = sla.cho_solve((c, low), b)
    return np.sum(x * x) + np.sum(np.log(np.abs(np.diag(c))))


def cho_factor_whole(a):
    c, low = sla.cho_factor(a)
    return np.sum(c)


def cho_solve_of_cholesky(a, b):
    return sla.cho_solve((sla.cholesky(a, lower=True), True), b)


def cho_solve_of_pair(a, b):
    factor = sla.cho_factor(a)
    return sla.cho_solve(factor, b)


@pytest.mark.parametrize("lower", [True, False])
@pytest.mark.parametrize("ncols", [None, 3])
def test_cho_factor_and_cho_solve(lower, ncols):
    a = _spd()
    b = RNG.normal(size=N if ncols is None else (N, ncols))
    ga, gb = check(cho_pair, (a, b, lower), (0, 1))
    # cho_solve reads the triangle cho_factor wrote: the same as solve with assume_a='pos'
    x = np.linalg.solve(a, b)
    np.testing.assert_allclose(gb, 2 * np.linalg.solve(a, x), rtol=1e-9)
    check_hessian(cho_pair, (a, b, lower), 0)
    check_hessian(cho_pair, (a, b, lower), 1)


def test_cho_solve_jacobians():
    a, b = _spd(), RNG.normal(size=(N, 2))
    for fn in (cho_solve_of_cholesky, cho_solve_of_pair):
        check_jacobian(fn, (a, b), 0)
        check_jacobian(fn, (a, b), 1)


def test_cho_factor_other_triangle_has_no_derivative():
    a = _spd()
    with pytest.raises(NotImplementedError, match="cho_factor"):
        srcgrad.grad(cho_factor_whole)(a)
    _, tangent = srcgrad.jvp(cho_factor_whole, (a,), (np.eye(N),))
    assert np.isnan(tangent)


# --- lu_factor, lu_solve -------------------------------------------------------------


def lu_pair(a, b, trans):
    lu, piv = sla.lu_factor(a)
    x = sla.lu_solve((lu, piv), b, trans=trans)
    return np.sum(x * x) + np.sum(np.log(np.abs(np.diag(lu))))


def lu_whole(a):
    lu, piv = sla.lu_factor(a)
    return lu


def lu_solve_of_pair(a, b):
    return sla.lu_solve(sla.lu_factor(a), b)


@pytest.mark.parametrize("trans", [0, 1, 2])
@pytest.mark.parametrize("ncols", [None, 2])
def test_lu_factor_and_lu_solve(trans, ncols):
    a = RNG.normal(size=(N, N)) + np.eye(N)  # pivoting happens
    b = RNG.normal(size=N if ncols is None else (N, ncols))
    ga, gb = check(lu_pair, (a, b, trans), (0, 1))
    m = a.T if trans in (1, 2) else a
    x = np.linalg.solve(m, b)
    np.testing.assert_allclose(gb, 2 * np.linalg.solve(m.T, x), rtol=1e-9)
    # log|det a| = sum log|diag(U)|: its gradient is inv(a)^T
    log_det = srcgrad.grad(lu_pair)(a, np.zeros_like(b), trans)
    np.testing.assert_allclose(log_det, np.linalg.inv(a).T, rtol=1e-9)
    check_hessian(lu_pair, (a, b, trans), 0)


def test_lu_jacobians():
    a, b = RNG.normal(size=(N, N)) + np.eye(N), RNG.normal(size=(N, 2))
    check_jacobian(lu_whole, (a,), 0)
    check_jacobian(lu_solve_of_pair, (a, b), 0)
    check_jacobian(lu_solve_of_pair, (a, b), 1)


# --- solve, inv, det -----------------------------------------------------------------


def solve_loss(a, b, assume_a, lower, transposed):
    x = sla.solve(a, b, assume_a=assume_a, lower=lower, transposed=transposed)
    return np.sum(x * x) + np.sum(np.sin(x))


def _seen(a, assume_a, lower):
    if assume_a in ("sym", "pos", "her"):
        return np.tril(a) + np.tril(a, -1).T if lower else np.triu(a) + np.triu(a, 1).T
    if assume_a == "diagonal":
        return np.diag(np.diag(a))
    if assume_a in ("upper triangular", "lower triangular"):
        return np.triu(a) if assume_a.startswith("upper") else np.tril(a)
    return a


@pytest.mark.parametrize("assume_a", [None, "gen", "sym", "pos", "her", "diagonal", "lower triangular", "upper triangular"])
@pytest.mark.parametrize("lower", [False, True])
@pytest.mark.parametrize("ncols", [None, 2])
def test_solve(assume_a, lower, ncols):
    a = _spd() + 0.3 * RNG.normal(size=(N, N))  # not symmetric: only what assume_a reads counts
    b = RNG.normal(size=N if ncols is None else (N, ncols))
    transposed = assume_a in (None, "gen") and lower
    ga, gb = check(solve_loss, (a, b, assume_a, lower, transposed), (0, 1))
    # against numpy.linalg.solve of the matrix SciPy sees
    m = _seen(a, assume_a, lower)
    x = np.linalg.solve(m.T if transposed else m, b)
    np.testing.assert_allclose(gb, np.linalg.solve(m if transposed else m.T, 2 * x + np.cos(x)), rtol=1e-9)
    if ncols is None and not lower:
        check_hessian(solve_loss, (a, b, assume_a, lower, transposed), 0)


def solve_matrix(a, b):
    return sla.solve(a, b, assume_a="pos")


def inv_loss(a, assume_a, lower):
    y = sla.inv(a, assume_a=assume_a, lower=lower)
    return np.sum(y * y * np.arange(1.0, 1.0 + y.size).reshape(y.shape))


def inv_matrix(a):
    return sla.inv(a)


def det_loss(a):
    return sla.det(a) ** 2 + sla.det(a)


def det_value(a):
    return sla.det(a)


@pytest.mark.parametrize("assume_a", [None, "gen", "sym", "pos", "upper triangular", "lower triangular"])
@pytest.mark.parametrize("lower", [False, True])
def test_inv(assume_a, lower):
    a = _spd() + 0.3 * RNG.normal(size=(N, N))
    (g,) = check(inv_loss, (a, assume_a, lower), (0,))
    if assume_a in (None, "gen"):
        np.testing.assert_allclose(g, srcgrad.grad(_np_inv_loss)(a), rtol=1e-10)
    check_hessian(inv_loss, (a, assume_a, lower), 0)


def _np_inv_loss(a):
    y = np.linalg.inv(a)
    return np.sum(y * y * np.arange(1.0, 1.0 + y.size).reshape(y.shape))


def test_solve_inv_det_jacobians_and_det_gradient():
    a, b = _spd(), RNG.normal(size=(N, 2))
    check_jacobian(solve_matrix, (a, b), 0)
    check_jacobian(solve_matrix, (a, b), 1)
    check_jacobian(inv_matrix, (_well(),), 0)
    a = _well() / 3  # a determinant near 1: central differences stay accurate
    (g,) = check(det_value, (a,), (0,), expected=[np.linalg.det(a) * np.linalg.inv(a).T])
    check(det_loss, (a,), (0,))
    check_hessian(det_loss, (a,), 0)


# --- expm, sqrtm, logm, norm ----------------------------------------------------------


def expm_loss(a):
    e = sla.expm(a)
    return np.sum(e * np.arange(1.0, 1.0 + e.size).reshape(e.shape))


def expm_matrix(a):
    return sla.expm(a)


def sqrtm_loss(a):
    s = sla.sqrtm(a)
    return np.sum(s * np.arange(1.0, 1.0 + s.size).reshape(s.shape))


def sqrtm_matrix(a):
    return sla.sqrtm(a)


def logm_loss(a):
    s = sla.logm(a)
    return np.sum(s * np.arange(1.0, 1.0 + s.size).reshape(s.shape))


def logm_matrix(a):
    return sla.logm(a)


def test_expm():
    a = 0.5 * RNG.normal(size=(N, N))
    (g,) = check(expm_loss, (a,), (0,))
    # the Fréchet derivative's adjoint, by SciPy's own expm_frechet at A^T
    w = np.arange(1.0, 1.0 + a.size).reshape(a.shape)
    np.testing.assert_allclose(g, sla.expm_frechet(a.T, w, compute_expm=False), rtol=1e-10)
    check_hessian(expm_loss, (a,), 0)
    check_jacobian(expm_matrix, (a,), 0)
    d = np.diag([0.1, -0.4, 0.7, 1.2])  # a diagonal matrix: d exp(d_i) along the diagonal
    np.testing.assert_allclose(srcgrad.grad(expm_loss)(d).diagonal(), np.exp(np.diag(d)) * np.diag(w), rtol=1e-12)


@pytest.mark.filterwarnings("ignore:logm result may be inaccurate")  # SciPy's own logm in float32
@pytest.mark.parametrize("loss, matrix", [(sqrtm_loss, sqrtm_matrix), (logm_loss, logm_matrix)])
def test_sqrtm_and_logm(loss, matrix):
    a = _spd() / N + 0.1 * RNG.normal(size=(N, N))  # eigenvalues off the negative real axis
    check(loss, (a,), (0,), rtol=1e-5)
    check_jacobian(matrix, (a,), 0)
    check_hessian(loss, (a,), 0)
    d = np.diag([0.5, 1.0, 2.0, 3.0])
    w = np.arange(1.0, 1.0 + d.size).reshape(d.shape)
    slope = 0.5 / np.sqrt(np.diag(d)) if loss is sqrtm_loss else 1.0 / np.diag(d)
    np.testing.assert_allclose(srcgrad.grad(loss)(d).diagonal(), slope * np.diag(w), rtol=1e-10)


def norm_loss(a, ord, axis):
    return np.sum(sla.norm(a, ord=ord, axis=axis) ** 2) + np.sum(sla.norm(a, ord=ord, axis=axis))


def _np_norm_loss(a, ord, axis):
    return np.sum(np.linalg.norm(a, ord=ord, axis=axis) ** 2) + np.sum(np.linalg.norm(a, ord=ord, axis=axis))


@pytest.mark.parametrize("ord, axis", [(None, None), ("fro", None), (2, None), ("nuc", None), (1, None),
                                       (None, 0), (3, 1), (np.inf, 1)])
def test_norm_is_numpy_norm(ord, axis):
    a = _well()
    (g,) = check(norm_loss, (a, ord, axis), (0,))
    np.testing.assert_allclose(g, srcgrad.grad(_np_norm_loss)(a, ord, axis), rtol=1e-10)


# --- refusals ---------------------------------------------------------------------------


def overwrite_literal(a, b):
    return np.sum(sla.solve(a, b, overwrite_a=True))


def overwrite_value(a, b, flag):
    return np.sum(sla.solve_triangular(a, b, overwrite_b=flag))


def banded(a, b):
    return np.sum(sla.solve(a, b, assume_a="banded"))


def stacked(a):
    return np.sum(sla.cholesky(a))


def qr_r(a):
    return np.sum(sla.qr(a)[1])


def test_refusals_name_the_argument():
    a, b = _spd(), np.ones(N)
    with pytest.raises(srcgrad.SrcGradError, match="overwrite_a"):
        srcgrad.grad(overwrite_literal)(a, b)
    with pytest.raises(NotImplementedError, match="overwrite_b=False only"):
        srcgrad.grad(overwrite_value)(np.triu(a), b, True)
    with pytest.raises(NotImplementedError, match="assume_a='banded'"):
        srcgrad.grad(banded)(a, b)
    with pytest.raises(NotImplementedError, match="stack"):
        srcgrad.grad(stacked)(np.stack([a, a]))
    with pytest.raises(NotImplementedError, match="overwrite_b=False only"):
        srcgrad.grad(overwrite_value, wrt=1)(np.triu(a), b, True)


def test_a_function_without_rules_is_refused_as_such():
    # not SciPy's batch wrapper "changing an object it does not make"
    with pytest.raises(srcgrad.NotDifferentiableError, match="no derivative rule for scipy.linalg.*qr"):
        srcgrad.grad(qr_r)(_well())


# --- programs --------------------------------------------------------------------------


def gp_nll(K, y):
    L = sla.cholesky(K, lower=True)
    alpha = sla.cho_solve((L, True), y)
    return 0.5 * y @ alpha + np.sum(np.log(np.diag(L)))


def whitened(L, b):
    return np.sum(sla.solve_triangular(L, b, lower=True) ** 2)


def gp_marginal(log_ell, log_sf, x, y):
    """A GP's negative log marginal likelihood as a function of its kernel's hyperparameters."""
    d2 = (x[:, None] - x[None, :]) ** 2
    K = np.exp(2 * log_sf) * np.exp(-0.5 * d2 / np.exp(2 * log_ell)) + 0.1 * np.eye(x.shape[0])
    c, low = sla.cho_factor(K, lower=True)
    alpha = sla.cho_solve((c, low), y)
    return 0.5 * y @ alpha + np.sum(np.log(np.diag(c)))


def kalman_nll(F, Q, R, H, x0, P0, ys):
    """The negative log-likelihood of observations under a linear-Gaussian state space model."""
    x, P, nll = x0, P0, 0.0
    for y in ys:
        x = F @ x
        P = F @ P @ F.T + Q
        S = H @ P @ H.T + R
        L = sla.cholesky(S, lower=True, check_finite=False)
        r = y - H @ x
        w = sla.solve_triangular(L, r, lower=True)
        nll = nll + 0.5 * w @ w + np.sum(np.log(np.diag(L)))
        K = sla.cho_solve((L, True), H @ P).T
        x = x + K @ r
        P = P - K @ H @ P
    return nll


def test_gp_and_whitening():
    K, y = _spd(), RNG.normal(size=N)
    gk, gy = check(gp_nll, (K, y), (0, 1))
    # the usual GP gradient, moved onto the lower triangle cholesky(lower=True) reads
    alpha = np.linalg.solve(K, y)
    full = 0.5 * (np.linalg.inv(K) - np.outer(alpha, alpha))
    np.testing.assert_allclose(gk, np.tril(full + full.T) - np.diag(np.diag(full)), rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(gy, alpha, rtol=1e-10)
    check_hessian(gp_nll, (K, y), 0)
    check_hessian(gp_nll, (K, y), 1, expected=np.linalg.inv(K))
    L = np.linalg.cholesky(K)
    gl, gb = check(whitened, (L, y), (0, 1))
    np.testing.assert_allclose(gb, 2 * np.linalg.solve(L.T, np.linalg.solve(L, y)), rtol=1e-10)
    check_hessian(whitened, (L, y), 1, expected=2 * np.linalg.inv(K))


def test_gp_hyperparameters():
    x = np.linspace(0.0, 2.0, 5)
    y = np.sin(3 * x)
    args = (np.float64(-0.3), np.float64(0.2), x, y)
    g = srcgrad.grad(gp_marginal, wrt=(0, 1))(*args)
    for i in (0, 1):
        np.testing.assert_allclose(g[i], numerical_grad(gp_marginal, args, i), rtol=1e-6)
    h = srcgrad.hessian(gp_marginal, wrt=0)(*args)
    step = 1e-5
    numeric = (srcgrad.grad(gp_marginal)(args[0] + step, *args[1:]) - srcgrad.grad(gp_marginal)(args[0] - step, *args[1:])) / (2 * step)
    np.testing.assert_allclose(h, numeric, rtol=1e-5)


def test_kalman_filter_likelihood():
    F = np.array([[1.0, 0.1], [0.0, 0.95]])
    Q, R, H = 0.05 * np.eye(2), np.array([[0.2]]), np.array([[1.0, 0.0]])
    x0, P0 = np.zeros(2), np.eye(2)
    ys = [np.array([v]) for v in (0.3, 0.1, -0.2, 0.4)]
    args = (F, Q, R, H, x0, P0, ys)
    grads = srcgrad.grad(kalman_nll, wrt=(0, 1, 2))(*args)
    for i, g in zip((0, 1, 2), grads):
        np.testing.assert_allclose(g, numerical_grad(kalman_nll, args, i), rtol=1e-6, atol=1e-8)
    tangents = (RNG.normal(size=(2, 2)), None, RNG.normal(size=(1, 1)), None, None, None, None)
    _, dot = srcgrad.jvp(kalman_nll, args, tangents)
    np.testing.assert_allclose(dot, np.sum(grads[0] * tangents[0]) + np.sum(grads[2] * tangents[2]), rtol=1e-9)
    check_hessian(kalman_nll, args, 2)


def test_importing_srcgrad_leaves_scipy_unloaded():
    code = "import sys, srcgrad, srcgrad.rules; print('scipy' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
