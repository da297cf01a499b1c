"""slice_scatter, select_scatter, diagonal_scatter and as_strided_scatter of the Tensor
shim: values and errors stored from PyTorch 2.13, gradients of both inputs against
central differences, then a comparison with PyTorch where it is installed."""

import numpy as np
import pytest

import srcgrad as torch
from conftest import numerical_grad

RNG = np.random.default_rng(7)
X = RNG.normal(size=(3, 4, 5))


def central_gradient(f, x, weights):
    """d sum(f(x) * weights) / dx by central differences."""
    return numerical_grad(lambda v: f(v) * weights, (x,), 0)


def check_both_gradients(op, src_shape, name):
    src = RNG.normal(size=src_shape)
    weights = RNG.normal(size=X.shape)
    x, s = torch.tensor(X, requires_grad=True), torch.tensor(src, requires_grad=True)
    out = op(x, s)
    assert out.grad_fn.name() == name and out.dtype == torch.float64
    (out * torch.tensor(weights)).sum().backward()

    def values(a, b):
        return op(torch.tensor(a), torch.tensor(b)).numpy()

    np.testing.assert_allclose(x.grad.numpy(), central_gradient(lambda v: values(v, src), X, weights), atol=1e-8)
    np.testing.assert_allclose(s.grad.numpy(), central_gradient(lambda v: values(X, v), src, weights), atol=1e-8)
    return out


def test_slice_scatter_values_and_gradients():
    out = check_both_gradients(lambda x, s: torch.slice_scatter(x, s, 2, 0, 5, 2), (3, 4, 3), "SliceScatterBackward0")
    assert np.array_equal(out.detach().numpy()[:, :, 1::2], X[:, :, 1::2])
    check_both_gradients(lambda x, s: x.slice_scatter(s, dim=-2, start=1), (3, 3, 5), "SliceScatterBackward0")
    small = torch.slice_scatter(torch.zeros(3, 4), torch.ones(3, 2), dim=1, start=1, end=4, step=2)
    assert small.tolist() == [[0.0, 1.0, 0.0, 1.0]] * 3


def test_select_and_diagonal_scatter_values_and_gradients():
    check_both_gradients(lambda x, s: torch.select_scatter(x, s, -1, 2), (3, 4), "SelectScatterBackward0")
    check_both_gradients(lambda x, s: torch.diagonal_scatter(x, s, 1, 0, 2), (4, 3), "DiagonalScatterBackward0")
    check_both_gradients(lambda x, s: x.diagonal_scatter(s, -1, 2, 1), (3, 4), "DiagonalScatterBackward0")
    out = torch.diagonal_scatter(torch.zeros(2, 3, 4), torch.arange(6.0).reshape(3, 2), 0, 0, 2)
    assert out.tolist() == [[[0.0, 0.0, 0.0, 0.0], [2.0, 0.0, 0.0, 0.0], [4.0, 0.0, 0.0, 0.0]],
                            [[0.0, 1.0, 0.0, 0.0], [0.0, 3.0, 0.0, 0.0], [0.0, 5.0, 0.0, 0.0]]]


def test_as_strided_scatter_values_and_true_gradients():
    out = torch.as_strided_scatter(torch.zeros(2, 3), torch.tensor([[1.0, 2.0], [3.0, 4.0]]), (2, 2), (1, 2), 1)
    assert out.tolist() == [[0.0, 1.0, 3.0], [2.0, 4.0, 0.0]]
    check_both_gradients(lambda x, s: torch.as_strided_scatter(x, s, (4, 5), (1, 4), 2), (4, 5),
                         "AsStridedScatterBackward0")
    with pytest.raises(RuntimeError, match="^as_strided_scatter: srcgrad supports a contiguous input only"):
        torch.as_strided_scatter(torch.zeros(2, 3).t(), torch.ones(2), (2,), (1,))


def test_errors_and_casts():
    message = r"^expected src to have a size equal to the slice of self. src size = \[3, 3\], slice size = \[3, 2\]$"
    with pytest.raises(RuntimeError, match=message):
        torch.slice_scatter(torch.zeros(3, 4), torch.ones(3, 3), 1, 0, 4, 2)
    with pytest.raises(RuntimeError, match="^slice step must be positive$"):
        torch.slice_scatter(torch.zeros(3, 4), torch.ones(3, 2), 1, 0, 4, 0)
    with pytest.raises(IndexError, match=r"^select\(\): index 3 out of range for tensor of size \[3, 4\] at dimension 0$"):
        torch.select_scatter(torch.zeros(3, 4), torch.ones(4), 0, 3)
    with pytest.raises(RuntimeError, match=r"src size = \[4\], slice size = \[3\]$"):
        torch.diagonal_scatter(torch.zeros(3, 4), torch.ones(4))
    assert torch.slice_scatter(torch.zeros(3, 4), torch.ones(3, 2, dtype=torch.float64), 1, 0, 4, 2).dtype == torch.float32


def test_against_torch():
    real = pytest.importorskip("torch")
    src = RNG.normal(size=(3, 4))
    cases = [("slice_scatter", (RNG.normal(size=(3, 4, 2)), 2, 1, 5, 2)), ("select_scatter", (src, 2, 3)),
             ("diagonal_scatter", (RNG.normal(size=(5, 3)), -1, 1, 0))]
    for name, (s, *args) in cases:
        results = []
        for module in (real, torch):
            x = module.tensor(X, requires_grad=True)
            t = module.tensor(s, requires_grad=True)
            out = getattr(module, name)(x, t, *args)
            (out * module.tensor(X)).sum().backward()
            results.append((out.detach().numpy(), x.grad.numpy(), t.grad.numpy(), out.grad_fn.name()))
        for mine, theirs in zip(results[1], results[0]):
            np.testing.assert_array_equal(mine, theirs)
