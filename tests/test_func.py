"""srcgrad.func as torch.func: grad, grad_and_value, vjp, jvp, jacrev, jacfwd, hessian,
vmap and functional_call against closed forms, central differences in float64, one
another (forward vs reverse, Hessian symmetry) and PyTorch's results and messages."""

import numpy as np
import pytest

import srcgrad as torch
from srcgrad.func import functional_call, grad, grad_and_value, hessian, jacfwd, jacrev, jvp, vjp, vmap

D = torch.float64


def tensor(values):
    return torch.tensor(np.asarray(values, dtype=np.float64))


def central(fn, x, eps=1e-6):
    """d fn(x) / d x by central differences; fn maps an array to an array."""
    x = np.asarray(x, dtype=np.float64)
    out = np.asarray(fn(x))
    jac = np.zeros(out.shape + x.shape)
    for idx in np.ndindex(x.shape):
        step = np.zeros_like(x)
        step[idx] = eps
        jac[(...,) + idx] = (np.asarray(fn(x + step)) - np.asarray(fn(x - step))) / (2 * eps)
    return jac


X = np.array([0.3, -1.2, 0.7, 2.0])
Y = np.array([1.1, 0.4, -0.5, 0.9])


def f_np(x, y):
    return np.sum(np.sin(x) * np.exp(y)) + np.sum(x * x * y)


def f(x, y):
    return (torch.sin(x) * y.exp()).sum() + (x * x * y).sum()


def test_grad_matches_closed_form_and_differences():
    gx, gy = grad(f, argnums=(0, 1))(tensor(X), tensor(Y))
    np.testing.assert_allclose(gx.numpy(), np.cos(X) * np.exp(Y) + 2 * X * Y, rtol=1e-14)
    np.testing.assert_allclose(gy.numpy(), np.sin(X) * np.exp(Y) + X * X, rtol=1e-14)
    np.testing.assert_allclose(gx.numpy(), central(lambda x: f_np(x, Y), X), rtol=1e-8)
    assert gx.dtype == D and tuple(gx.shape) == (4,) and not gx.requires_grad


def test_grad_and_value_and_aux():
    (g, (value, aux)) = grad_and_value(lambda a: ((a ** 2).sum(), a.sin()), has_aux=True)(tensor(X))
    np.testing.assert_allclose(g.numpy(), 2 * X)
    assert value.item() == pytest.approx(np.sum(X ** 2))
    np.testing.assert_allclose(aux.numpy(), np.sin(X))
    assert not aux.requires_grad and not value.requires_grad
    g, aux = grad(lambda a: ((a ** 2).sum(), {"s": a * 3}), has_aux=True)(tensor(X))
    np.testing.assert_allclose(aux["s"].numpy(), 3 * X)


def test_inputs_are_not_changed():
    x = tensor(X)
    before = x.numpy().copy()
    grad(lambda a: (a ** 3).sum())(x)
    hessian(lambda a: (a ** 3).sum())(x)
    np.testing.assert_array_equal(x.numpy(), before)
    assert x.grad is None and not x.requires_grad


def test_nested_grad_is_the_second_and_third_derivative():
    x = tensor(X)
    second = grad(grad(lambda a: (a ** 4).sum() if a.dim() else a ** 4))(torch.tensor(1.5, dtype=D))
    assert second.item() == pytest.approx(12 * 1.5 ** 2, rel=1e-14)
    third = grad(lambda a: grad(lambda b: grad(lambda c: (c.sin() * c).sum())(b).sum())(a).sum())(x)
    # d3/dx3 of x sin x is -3 sin x - x cos x
    np.testing.assert_allclose(third.numpy(), -3 * np.sin(X) - X * np.cos(X), rtol=1e-13)


def test_hessian_is_symmetric_and_matches_differences():
    y = tensor(Y)
    H = hessian(f)(tensor(X), y)
    expected = np.diag(-np.sin(X) * np.exp(Y) + 2 * Y)
    np.testing.assert_allclose(H.numpy(), expected, rtol=1e-13, atol=1e-15)
    blocks = hessian(f, argnums=(0, 1))(tensor(X), y)
    np.testing.assert_allclose(blocks[0][1].numpy(), blocks[1][0].numpy().T, rtol=1e-14)
    np.testing.assert_allclose(blocks[0][1].numpy(), np.diag(np.cos(X) * np.exp(Y) + 2 * X), rtol=1e-14)
    lse = hessian(lambda a: a.logsumexp(0))(tensor(X))
    p = np.exp(X - np.log(np.sum(np.exp(X))))
    np.testing.assert_allclose(lse.numpy(), np.diag(p) - np.outer(p, p), rtol=1e-12, atol=1e-15)


def test_jvp_equals_jacobian_times_tangent():
    t = np.array([0.5, -0.25, 1.0, 2.0])
    out, tangent = jvp(lambda a: torch.tanh(a) * a.cumsum(0), (tensor(X),), (tensor(t),))
    jac = central(lambda a: np.tanh(a) * np.cumsum(a), X)
    np.testing.assert_allclose(tangent.numpy(), jac @ t, rtol=1e-8)
    np.testing.assert_allclose(out.numpy(), np.tanh(X) * np.cumsum(X))
    value, scalar = jvp(f, (tensor(X), tensor(Y)), (tensor(t), tensor(-t)))
    gx, gy = np.cos(X) * np.exp(Y) + 2 * X * Y, np.sin(X) * np.exp(Y) + X * X
    assert scalar.item() == pytest.approx(gx @ t - gy @ t, rel=1e-13)


def test_vjp_with_pytrees():
    out, pullback = vjp(lambda a, b: {"p": a * b, "q": (a.exp(),)}, tensor(X), tensor(Y))
    u, v = np.array([1.0, 2.0, -1.0, 0.5]), np.array([0.3, 0.2, 0.1, -0.4])
    ga, gb = pullback({"p": tensor(u), "q": (tensor(v),)})
    np.testing.assert_allclose(ga.numpy(), u * Y + v * np.exp(X), rtol=1e-14)
    np.testing.assert_allclose(gb.numpy(), u * X, rtol=1e-14)
    again = pullback({"p": tensor(u), "q": (tensor(v),)})  # the pullback may be called again
    np.testing.assert_array_equal(again[0].numpy(), ga.numpy())
    with pytest.raises(RuntimeError, match=r"Mismatch in shape: grad_output\[0\] has a shape of"):
        vjp(lambda a: a ** 2, tensor(X))[1](torch.ones(2, dtype=D))


def test_jacrev_and_jacfwd_agree_with_differences():
    jr = jacrev(lambda a: torch.outer(a, a).tanh())(tensor(X))
    assert tuple(jr.shape) == (4, 4, 4)
    np.testing.assert_allclose(jr.numpy(), central(lambda a: np.tanh(np.outer(a, a)), X), rtol=1e-7, atol=1e-10)
    jf = jacfwd(lambda a, b: a.sin() @ torch.stack([b, b * 2]).T, argnums=1)(tensor(X), tensor(Y))
    np.testing.assert_allclose(jf.numpy(), np.stack([np.sin(X), 2 * np.sin(X)]), rtol=1e-14)
    tree = jacrev(lambda d: d["u"] * d["v"].sum())({"u": tensor(X), "v": tensor(Y)})
    np.testing.assert_allclose(tree["u"].numpy(), np.eye(4) * Y.sum())
    np.testing.assert_allclose(tree["v"].numpy(), np.outer(X, np.ones(4)))


def test_vmap_of_grad_gives_per_sample_gradients():
    rng = np.random.default_rng(0)
    xs = rng.standard_normal((5, 4))
    per = vmap(grad(f), in_dims=(0, None))(tensor(xs), tensor(Y))
    np.testing.assert_allclose(per.numpy(), np.cos(xs) * np.exp(Y) + 2 * xs * Y, rtol=1e-14)
    jac = vmap(jacrev(lambda a: a.softmax(0)))(tensor(xs))
    p = np.exp(xs) / np.exp(xs).sum(1, keepdims=True)
    np.testing.assert_allclose(jac.numpy(), [np.diag(q) - np.outer(q, q) for q in p], rtol=1e-12, atol=1e-15)
    nested = vmap(vmap(lambda a, b: (a * b).sum()), in_dims=(0, None))(tensor(rng.standard_normal((3, 2, 4))),
                                                                       tensor(rng.standard_normal((2, 4))))
    assert tuple(nested.shape) == (3, 2)


def test_vmap_dims_structures_and_errors():
    a = torch.arange(6.0).view(2, 3)
    np.testing.assert_array_equal(vmap(lambda r: r, out_dims=1)(a).numpy(), a.numpy().T)
    np.testing.assert_array_equal(vmap(lambda r: r * 2, in_dims=-1)(torch.ones(2, 3)).numpy(), np.full((3, 2), 2.0))
    out = vmap(lambda r: {"s": r.sum(), "p": (r * 2,)})(a)
    np.testing.assert_array_equal(out["s"].numpy(), [3.0, 12.0])
    assert vmap(lambda r, k: r * k)(torch.ones(2), k=3).tolist() == [3.0, 3.0]
    assert tuple(vmap(lambda r: (r.sum(), r * 2))(torch.ones(0, 3))[1].shape) == (0, 3)
    with pytest.raises(ValueError, match=r"Expected all tensors to have the same size in the mapped dimension, "
                                         r"got sizes \[2, 3\]"):
        vmap(lambda p, q: p + q)(torch.ones(2), torch.ones(3))
    with pytest.raises(ValueError, match=r"Got in_dim=1 for some input, but that input is a Tensor of "
                                         r"dimensionality 1 so expected in_dim to satisfy -1 <= in_dim < 1."):
        vmap(lambda r: r, in_dims=1)(torch.ones(2))
    with pytest.raises(ValueError, match="We cannot vmap over non-Tensor arguments"):
        vmap(lambda r: r)(3.0)
    with pytest.raises(ValueError, match=r"in_dims is not compatible with the structure of `inputs`. in_dims has "
                                         r"structure TreeSpec\(tuple, None, \[\*,\n  \*\]\) but inputs has "
                                         r"structure TreeSpec\(tuple, None, \[\*\]\)."):
        vmap(lambda r: r, in_dims=(0, 0))(torch.ones(2))
    with pytest.raises(ValueError, match="must only return Tensors, got type <class 'float'>"):
        vmap(lambda r: 3.0)(torch.ones(2))
    with pytest.raises(ValueError, match="can not return a BatchedTensor when out_dim is None"):
        vmap(lambda r: (r, r), out_dims=(0, None))(torch.arange(3.0))
    with pytest.raises(RuntimeError, match="called random operation while in randomness error mode"):
        vmap(lambda r: r + torch.rand(()))(torch.ones(3))
    same = vmap(lambda r: r + torch.rand(()), randomness="same")(torch.zeros(3))
    assert len(set(same.tolist())) == 1
    different = vmap(lambda r: r + torch.rand(()), randomness="different")(torch.zeros(3))
    assert len(set(different.tolist())) == 3
    assert torch.rand(()).item() >= 0.0  # the generator is back after the refused draw


def test_results_keep_the_callers_graph_only():
    x = tensor(X)
    w = torch.tensor(Y, requires_grad=True)
    g = grad(lambda a: (w * a.sin()).sum())(x)
    assert g.requires_grad and type(g.grad_fn).__name__ == "MulBackward0"
    g.sum().backward()
    np.testing.assert_allclose(w.grad.numpy(), np.cos(X), rtol=1e-14)
    xr = tensor(X).requires_grad_()
    g = grad(lambda a: (a ** 3).sum())(xr)
    (gg,) = torch.autograd.grad(g.sum(), xr)
    np.testing.assert_allclose(gg.numpy(), 6 * X, rtol=1e-14)
    with torch.no_grad():
        assert not grad(lambda a: (w * a ** 2).sum())(xr).requires_grad
    assert not grad(lambda a: (a * 2).sum())(torch.tensor(2.0, requires_grad=True)).requires_grad


def test_functional_call_gradients_and_restoration():
    model = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.Tanh(), torch.nn.Linear(3, 1)).double()
    rng = np.random.default_rng(1)
    params = {k: tensor(rng.standard_normal(tuple(v.shape))) for k, v in model.named_parameters()}
    kept = {k: v.detach().numpy().copy() for k, v in model.named_parameters()}
    xb, yb = rng.standard_normal((5, 4)), rng.standard_normal((5, 1))

    def loss(p, a, b):
        return ((functional_call(model, p, (a,)) - b) ** 2).mean()

    def loss_np(w0, b0, w1, b1):
        return np.mean((np.tanh(xb @ w0.T + b0) @ w1.T + b1 - yb) ** 2)

    g = grad(loss)(params, tensor(xb), tensor(yb))
    p = {k: v.numpy() for k, v in params.items()}
    d_w0 = central(lambda w: loss_np(w, p["0.bias"], p["2.weight"], p["2.bias"]), p["0.weight"])
    np.testing.assert_allclose(g["0.weight"].numpy(), d_w0, rtol=1e-7, atol=1e-9)
    per = vmap(grad(loss), in_dims=(None, 0, 0))(params, tensor(xb).unsqueeze(1), tensor(yb).unsqueeze(1))
    np.testing.assert_allclose(per["2.bias"].numpy().mean(0), g["2.bias"].numpy(), rtol=1e-13)
    for k, v in model.named_parameters():
        np.testing.assert_array_equal(v.detach().numpy(), kept[k])
        assert isinstance(v, torch.nn.Parameter)
    with pytest.raises(RuntimeError, match="Error\\(s\\) in reparametrizing for Sequential:\n\tMissing key\\(s\\)"):
        functional_call(model, {"0.weight": params["0.weight"]}, (tensor(xb),), strict=True)


def test_functional_call_ties_weights():
    lin = torch.nn.Linear(2, 2, bias=False).double()

    class Tied(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.a = lin
            self.b = lin

        def forward(self, v):
            return self.b(self.a(v))

    model = Tied()
    two = torch.eye(2, dtype=D) * 2
    assert functional_call(model, {"a.weight": two}, (torch.ones(2, dtype=D),)).tolist() == [4.0, 4.0]
    with pytest.raises(ValueError, match=r"functional_call got multiple values for keys \['a.weight', 'b.weight'\]"):
        functional_call(model, {"a.weight": two, "b.weight": torch.eye(2, dtype=D)}, (torch.ones(2, dtype=D),))


@pytest.mark.parametrize("call, error, message", [
    (lambda: grad(lambda a: a ** 2)(tensor(X)), RuntimeError,
     "Expected f(*args) to return a scalar Tensor, got tensor with 1 dims. Maybe you wanted to use the vjp or "
     "jacrev APIs instead?"),
    (lambda: grad(lambda a: 3)(tensor(X)), RuntimeError, "Expected f(*args) to return a Tensor, got <class 'int'>"),
    (lambda: grad(lambda a: a.sum())(3.0), ValueError, "Thing passed to transform API must be Tensor, got"),
    (lambda: grad(lambda a: a.sum(), argnums=1)(tensor(X)), RuntimeError,
     "Got argnum=1, but only 1 positional inputs"),
    (lambda: grad(lambda a: a.sum(), argnums=())(tensor(X)), RuntimeError, "argnums must be non-empty"),
    (lambda: jacrev(lambda a: a, argnums=(0, 0))(tensor(X)), RuntimeError, "argnums elements must be unique"),
    (lambda: grad(lambda a: a.sum())(torch.tensor([1, 2])), RuntimeError,
     "only Tensors of floating point dtype can require gradients"),
    (lambda: grad(lambda a: a.sum(), has_aux=True)(tensor(X)), RuntimeError,
     "output of function f should be a tuple: (output, aux) if has_aux is True"),
    (lambda: jvp(lambda a: a, tensor(X), (tensor(X),)), RuntimeError, "Expected primals to be a tuple."),
    (lambda: jvp(lambda a: a, (tensor(X),), (torch.ones(2, dtype=D),)), RuntimeError,
     "Tensor is of size [4] while the given forward gradient is of size [2]."),
    (lambda: jacrev(lambda a: a.int())(tensor(X)), RuntimeError,
     "All outputs of f must be floating-point or complex Tensors"),
    (lambda: vmap(lambda a: a)(), ValueError, "got no inputs"),
    (lambda: vmap(lambda a: a, randomness="bogus"), RuntimeError,
     "Only allowed values for randomness are 'error', 'different', or 'same'. Got bogus"),
])
def test_errors_are_pytorchs(call, error, message):
    with pytest.raises(error) as info:
        call()
    assert message in str(info.value)


def test_against_pytorch():
    real = pytest.importorskip("torch")
    from torch import func as real_func

    x, y = real.tensor(X), real.tensor(Y)

    def f_real(a, b):
        return (real.sin(a) * b.exp()).sum() + (a * a * b).sum()

    pairs = [
        (real_func.hessian(f_real, argnums=(0, 1))(x, y), hessian(f, argnums=(0, 1))(tensor(X), tensor(Y))),
        (real_func.vmap(real_func.grad(f_real), in_dims=(0, None))(real.stack([x, y]), y),
         vmap(grad(f), in_dims=(0, None))(torch.stack([tensor(X), tensor(Y)]), tensor(Y))),
        (real_func.jvp(f_real, (x, y), (y, x))[1], jvp(f, (tensor(X), tensor(Y)), (tensor(Y), tensor(X)))[1]),
    ]
    for expected, got in pairs:
        np.testing.assert_allclose(np.asarray(got if not isinstance(got, tuple) else [[b.numpy() for b in r] for r in got]),
                                   np.asarray(expected if not isinstance(expected, tuple)
                                              else [[b.numpy() for b in r] for r in expected]), rtol=1e-13)
