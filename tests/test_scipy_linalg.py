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


