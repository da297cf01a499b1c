"""Tensor.cholesky_solve, cholesky_inverse and triangular_solve: the methods give the
functions' results, which solve their systems, with PyTorch's node names."""

import numpy as np
import pytest

import srcgrad as torch

RNG = np.random.default_rng(5)
_A = RNG.normal(size=(4, 4))
L = np.linalg.cholesky(_A @ _A.T + 4 * np.eye(4))
B = RNG.normal(size=(4, 2))


def test_cholesky_solve_and_inverse_methods():
    b, l_ = torch.tensor(B, requires_grad=True), torch.tensor(L)
    x = b.cholesky_solve(l_)
    assert x.grad_fn.name() == "CholeskySolveBackward0"
    np.testing.assert_allclose(L @ L.T @ x.detach().numpy(), B, atol=1e-12)
    np.testing.assert_array_equal(x.detach().numpy(), torch.cholesky_solve(b, l_).detach().numpy())
    upper = torch.tensor(L.T.copy()).cholesky_inverse(upper=True)
    np.testing.assert_allclose(upper.numpy() @ (L @ L.T), np.eye(4), atol=1e-12)


def test_triangular_solve_method():
    with pytest.warns(UserWarning, match="^torch.triangular_solve is deprecated in favor of torch.linalg.solve_triangular"):
        solution, coefficient = torch.tensor(B).triangular_solve(torch.tensor(L), upper=False)
    np.testing.assert_allclose(L @ solution.numpy(), B, atol=1e-12)
    np.testing.assert_array_equal(coefficient.numpy(), L)
    with pytest.warns(UserWarning):
        solution, _ = torch.tensor(B).triangular_solve(torch.tensor(L), upper=False, transpose=True, unitriangular=True)
    unit = np.tril(L, -1) + np.eye(4)
    np.testing.assert_allclose(unit.T @ solution.numpy(), B, atol=1e-12)
