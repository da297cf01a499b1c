"""srcgrad.func.jvp and jacfwd in forward mode (func/forward.py), and the reverse passes
they take where forward mode cannot answer: values against closed forms, central
differences and jacrev in float64; which path ran."""

import numpy as np
import pytest

import srcgrad as torch
import srcgrad.func as func
import srcgrad.func.forward as forward

X = np.array([0.3, 0.7, 1.1])
V = np.array([1.0, -2.0, 0.5])
Y = np.array([[0.5, 1.5, -0.5], [1.0, 0.2, 0.3]])


@pytest.fixture
def paths(monkeypatch):
    """Which path each transform call took: 'forward' or 'reverse'."""
    taken = []
    runs = forward.dual_runs

    def counted(*args, **kwargs):
        try:
            found = runs(*args, **kwargs)
        except forward.Unavailable:
            taken.append("reverse")
            raise
        taken.append("forward")
        return found

    monkeypatch.setattr(forward, "dual_runs", counted)
    return taken


def _f(x, y):
    return torch.log_softmax(y * x.sin(), dim=1) + (x ** 3).sum()


def test_jvp_runs_forward_mode(paths):
    x, y = torch.tensor(X), torch.tensor(Y)
    v, w = torch.tensor(V), torch.tensor(Y[::-1].copy())
    out, product = func.jvp(_f, (x, y), (v, w))
    assert paths == ["forward"]
    eps = 1e-6
    expected = (_f(torch.tensor(X + eps * V), torch.tensor(Y + eps * Y[::-1])).numpy()
                - _f(torch.tensor(X - eps * V), torch.tensor(Y - eps * Y[::-1])).numpy()) / (2 * eps)
    np.testing.assert_allclose(product.numpy(), expected, rtol=1e-6, atol=1e-8)
    np.testing.assert_array_equal(out.numpy(), _f(x, y).numpy())
    assert product.dtype == torch.float64 and not product.requires_grad and not out.requires_grad
    np.testing.assert_array_equal(x.numpy(), X)  # inputs not mutated


def test_jvp_tangent_dtype_and_pytree(paths):
    out, product, aux = func.jvp(lambda d: ({"s": d["a"] * d["b"][0]}, d["a"] * 2),
                                 ({"a": torch.tensor(X), "b": torch.tensor(Y)},),
                                 ({"a": torch.ones(3), "b": torch.zeros(2, 3)},), has_aux=True)
    assert paths == ["forward"]
    assert product["s"].dtype == torch.float64  # a float32 tangent of a float64 primal: the output's dtype
    np.testing.assert_allclose(product["s"].numpy(), Y[0], rtol=1e-15)
    np.testing.assert_allclose(aux.numpy(), 2 * X, rtol=1e-15)


def test_jacfwd_runs_forward_mode_and_matches_jacrev(paths):
    x, y = torch.tensor(X), torch.tensor(Y)
    jx, jy = func.jacfwd(_f, argnums=(0, 1))(x, y)
    assert paths == ["forward"]
    rx, ry = func.jacrev(_f, argnums=(0, 1))(x, y)
    assert jx.shape == (2, 3, 3) and jy.shape == (2, 3, 2, 3)
    np.testing.assert_allclose(jx.numpy(), rx.numpy(), rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(jy.numpy(), ry.numpy(), rtol=1e-12, atol=1e-14)


def test_jacfwd_closed_form(paths):
    jac = func.jacfwd(lambda z: z.exp() * z.sum())(torch.tensor(X))
    expected = np.diag(np.exp(X)) * X.sum() + np.exp(X)[:, None]
    np.testing.assert_allclose(jac.numpy(), expected, rtol=1e-14)
    assert paths == ["forward"] and jac.dtype == torch.float64


def test_in_place_write_runs_forward_mode(paths):
    _, product = func.jvp(lambda z: z.clone().mul_(2).sin(), (torch.tensor(X),), (torch.tensor(V),))
    np.testing.assert_allclose(product.numpy(), 2 * np.cos(2 * X) * V, rtol=1e-15)
    assert paths == ["forward"]


def test_output_independent_of_input_gets_zeros(paths):
    _, product = func.jvp(lambda z: torch.ones(2, dtype=torch.float64), (torch.tensor(X),), (torch.tensor(V),))
    assert product.tolist() == [0.0, 0.0] and paths == ["forward"]


@pytest.mark.parametrize("case", ["hessian", "jvp_of_grad", "in_place", "grad_of_jvp", "jacrev_of_jacfwd"])
def test_reverse_passes_where_forward_mode_cannot(paths, case):
    x, v = torch.tensor(X), torch.tensor(V)
    cube = lambda z: (z ** 3).sum()  # noqa: E731
    if case == "hessian":
        got, expected = func.hessian(cube)(x).numpy(), np.diag(6 * X)
    elif case == "jvp_of_grad":
        got, expected = func.jvp(func.grad(cube), (x,), (v,))[1].numpy(), 6 * X * V
    elif case == "in_place":  # into a view: refused in forward mode
        scale = np.array([2.0, 1.0, 1.0])
        got = func.jvp(lambda z: (lambda e: (e[:1].mul_(2), e.sin())[1])(z * 1), (x,), (v,))[1].numpy()
        expected = np.cos(scale * X) * scale * V
    elif case == "grad_of_jvp":  # the product must record a graph to x
        got, expected = func.grad(lambda z: func.jvp(cube, (z,), (v,))[1])(x).numpy(), 6 * X * V
    else:
        got = func.jacrev(func.jacfwd(lambda z: (z ** 3)))(x).numpy()
        expected = np.zeros((3, 3, 3))
        expected[np.arange(3), np.arange(3), np.arange(3)] = 6 * X
    np.testing.assert_allclose(got, expected, rtol=1e-13)
    assert "reverse" in paths


def test_reverse_transform_refuses_dual_inputs():
    with torch.autograd.forward_ad.dual_level():
        d = torch.autograd.forward_ad.make_dual(torch.tensor(X), torch.tensor(V))
        with pytest.raises(NotImplementedError, match="reverse-mode transform"):
            func.grad(lambda z: z.sum())(d)
        with pytest.raises(NotImplementedError, match="autograd.functional"):
            torch.autograd.functional.jacobian(lambda z: z * 2, d)
        # a dual level already entered: func.jvp takes the reverse passes
        np.testing.assert_allclose(func.jvp(torch.sin, (torch.tensor(X),), (torch.tensor(V),))[1].numpy(),
                                   np.cos(X) * V, rtol=1e-15)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_against_torch_func(dtype):
    real = pytest.importorskip("torch")

    def f(T, x, y):
        return (T.nn.functional.softmax(y * x, dim=1) @ x).tanh() + T.cat([x, y[0]]).sum()

    x, y, v = (torch.tensor(a, dtype=getattr(torch, dtype)) for a in (X, Y, V))
    rx, ry, rv = (real.tensor(a, dtype=getattr(real, dtype)) for a in (X, Y, V))
    tol = dict(rtol=1e-12, atol=1e-14) if dtype == "float64" else dict(rtol=1e-5, atol=1e-6)
    mine = func.jvp(lambda a: f(torch, a, y), (x,), (v,))[1]
    theirs = real.func.jvp(lambda a: f(real, a, ry), (rx,), (rv,))[1]
    assert str(mine.dtype).split(".")[1] == str(theirs.dtype).split(".")[1]
    np.testing.assert_allclose(mine.numpy(), theirs.numpy(), **tol)
    mine = func.jacfwd(lambda a, b: f(torch, a, b), argnums=(0, 1))(x, y)
    theirs = real.func.jacfwd(lambda a, b: f(real, a, b), argnums=(0, 1))(rx, ry)
    for m, t in zip(mine, theirs):
        assert m.shape == tuple(t.shape)
        np.testing.assert_allclose(m.numpy(), t.numpy(), **tol)
