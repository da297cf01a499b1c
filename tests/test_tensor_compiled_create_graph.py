"""create_graph=True through `@srcgrad.compile` nodes (compiled_graph.py): the gradient
of each argument is the generated vector-Jacobian product, differentiated again at the
next order; checked against the same program written with eager Tensor ops, closed
forms, central differences in float64, and PyTorch where it is installed."""

import numpy as np
import pytest

import srcgrad as torch

_F64 = torch.float64
rng = np.random.default_rng(7)
X = rng.standard_normal((5, 3))
W = rng.standard_normal((4, 3))
B = rng.standard_normal(4)
V = rng.standard_normal((4, 3))


def _layer(x, w, b):
    return np.tanh(x @ w.T + b)


def _loss(w, x):
    return np.sum(np.log(1 + np.exp(x @ w.T)) ** 2)


def _curve(x):
    return np.sin(x) * x ** 3


def _penalty(lib, layer):
    x, w, b = (lib.tensor(a, dtype=lib.float64, requires_grad=True) for a in (X, W, B))
    (gx,) = lib.autograd.grad(layer(x, w, b).sum(), x, create_graph=True)
    p = ((gx.norm(2, dim=1) - 1) ** 2).mean()
    return [gx, p, *lib.autograd.grad(p, [x, w, b])]


def _hvp(lib, loss):
    w, x = lib.tensor(W, dtype=lib.float64, requires_grad=True), lib.tensor(X, dtype=lib.float64)
    (g,) = lib.autograd.grad(loss(w, x), w, create_graph=True)
    return [g, *lib.autograd.grad((g * lib.tensor(V, dtype=lib.float64)).sum(), w)]


def _eager_layer(x, w, b):
    return torch.tanh(x @ w.T + b)


def _eager_loss(w, x):
    return (torch.log(1 + torch.exp(x @ w.T)) ** 2).sum()


def _numbers(tensors):
    return [t.detach().numpy() for t in tensors]


@pytest.mark.parametrize("calls", [1, 2, 3])  # the first call of a kind, the second, later ones
def test_gradient_penalty_through_a_compiled_layer(calls):
    layer = torch.compile(_layer)
    for _ in range(calls):
        got = _penalty(torch, layer)
    want = _penalty(torch, _eager_layer)
    assert [t.shape for t in got] == [(5, 3), (), (5, 3), (4, 3), (4,)]
    assert all(t.dtype == _F64 for t in got) and got[0].requires_grad and got[2].grad_fn is None
    for a, b in zip(_numbers(got), _numbers(want)):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14)
    # the gradient of the penalty with respect to b, by central differences
    def penalty_of(bias):
        z = X @ W.T + bias
        gx = (1 - np.tanh(z) ** 2) @ W
        return np.mean((np.linalg.norm(gx, axis=1) - 1) ** 2)
    eps, fd = 1e-6, np.zeros(4)
    for i in range(4):
        e = np.zeros(4)
        e[i] = eps
        fd[i] = (penalty_of(B + e) - penalty_of(B - e)) / (2 * eps)
    np.testing.assert_allclose(got[4].numpy(), fd, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("calls", [1, 3])
def test_hessian_vector_product_of_a_compiled_loss(calls):
    loss = torch.compile(_loss)
    for _ in range(calls):
        g, hv = _hvp(torch, loss)
    want = _hvp(torch, _eager_loss)
    np.testing.assert_allclose(g.detach().numpy(), want[0].detach().numpy(), rtol=1e-12)
    np.testing.assert_allclose(hv.numpy(), want[1].numpy(), rtol=1e-12, atol=1e-13)
    assert g.grad_fn.name() == "_lossBackwardBackward0"

    def grad_of(w):  # d/dw sum(softplus(x @ w.T) ** 2), by hand
        z = X @ w.T
        s = np.log1p(np.exp(z))
        return (2 * s / (1 + np.exp(-z))).T @ X
    eps = 1e-6
    fd = (grad_of(W + eps * V) - grad_of(W - eps * V)) / (2 * eps)
    np.testing.assert_allclose(g.detach().numpy(), grad_of(W), rtol=1e-12)
    np.testing.assert_allclose(hv.numpy(), fd, rtol=1e-6, atol=1e-8)


def test_third_derivative_of_a_compiled_scalar_function():
    curve = torch.compile(_curve)
    for _ in range(3):
        s = torch.tensor(0.7, dtype=_F64, requires_grad=True)
        (d1,) = torch.autograd.grad(curve(s), s, create_graph=True)
        (d2,) = torch.autograd.grad(d1, s, create_graph=True)
        (d3,) = torch.autograd.grad(d2, s)
        v = 0.7
        assert d1.item() == pytest.approx(np.cos(v) * v**3 + 3 * np.sin(v) * v**2, rel=1e-14)
        assert d2.item() == pytest.approx(-np.sin(v) * v**3 + 6 * np.cos(v) * v**2 + 6 * np.sin(v) * v, rel=1e-13)
        assert d3.item() == pytest.approx(
            -np.cos(v) * v**3 - 9 * np.sin(v) * v**2 + 18 * np.cos(v) * v + 6 * np.sin(v), rel=1e-13)
        assert d3.grad_fn is None and d3.dtype == _F64


def test_constants_and_tensors_without_grad_are_inputs_without_edges():
    @torch.compile
    def scaled(x, k, c, shift):
        return np.sum(np.exp(k * x) * c) + shift

    c_values = np.array([1.0, 2.0, 3.0])
    x = torch.tensor([0.1, -0.2, 0.3], dtype=_F64, requires_grad=True)
    c = torch.tensor(c_values, dtype=_F64)
    for _ in range(3):
        (g,) = torch.autograd.grad(scaled(x, 2.0, c, 1.5), x, create_graph=True)
        (h,) = torch.autograd.grad(g.sum(), x)
        xv = x.detach().numpy()
        np.testing.assert_allclose(g.detach().numpy(), 2 * np.exp(2 * xv) * c_values, rtol=1e-14)
        np.testing.assert_allclose(h.numpy(), 4 * np.exp(2 * xv) * c_values, rtol=1e-14)
    assert np.array_equal(x.detach().numpy(), [0.1, -0.2, 0.3]) and c.grad is None


def test_a_write_into_an_argument_since_the_call_is_refused_by_create_graph_only():
    @torch.compile
    def cubes(x):
        return np.sum(x ** 3)

    for _ in range(3):  # the kind's first call keeps the arrays; later ones saved gradients
        x = torch.tensor([1.0, 2.0], dtype=_F64, requires_grad=True)
        a = x.detach()
        y = cubes(x)
        with torch.no_grad():
            a.mul_(2)
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            torch.autograd.grad(y, x, create_graph=True)
    y = cubes(x)
    (g,) = torch.autograd.grad(y, x, create_graph=True)
    np.testing.assert_allclose(g.detach().numpy(), [12.0, 48.0])


def test_a_compiled_function_returning_a_tuple_is_refused_before_the_pass():
    @torch.compile
    def two(x):
        return np.sin(x), np.cos(x)

    x = torch.tensor([0.5, 1.0], dtype=_F64, requires_grad=True)
    s, c = two(x)
    with pytest.raises(NotImplementedError, match="cannot record a graph through the backward of twoBackward"):
        torch.autograd.grad((s * c).sum(), x, create_graph=True)
    assert x.grad is None
    (g,) = torch.autograd.grad((s * c).sum(), x)  # without create_graph it runs
    np.testing.assert_allclose(g.numpy(), np.cos(2 * np.array([0.5, 1.0])), rtol=1e-14)


def test_against_pytorch():
    real = pytest.importorskip("torch")
    got = _penalty(torch, torch.compile(_layer)) + _hvp(torch, torch.compile(_loss))
    want = _penalty(real, lambda x, w, b: real.tanh(x @ w.T + b)) + _hvp(
        real, lambda w, x: (real.log(1 + real.exp(x @ w.T)) ** 2).sum())
    for a, b in zip(_numbers(got), _numbers(want)):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14)
