"""Higher-order gradients in the Tensor shim: backward and autograd.grad with
create_graph=True give gradients that record their own graph (graph_backward.py), checked
against closed forms, central differences in float64, and the values, node names and
Nones PyTorch 2.13 gives for the same programs."""

import warnings

import numpy as np
import pytest

import srcgrad as torch

_F64 = torch.float64


def _t(values, requires_grad=True):
    return torch.tensor(values, dtype=_F64, requires_grad=requires_grad)


def test_third_derivative_of_a_cube():
    x = torch.tensor(2.0, requires_grad=True)
    (dy,) = torch.autograd.grad(x ** 3, x, create_graph=True)
    assert repr(dy) == "tensor(12., grad_fn=<MulBackward0>)"
    (d2y,) = torch.autograd.grad(dy, x, create_graph=True)
    assert d2y.item() == 12.0
    (d3y,) = torch.autograd.grad(d2y, x)
    assert d3y.item() == 6.0 and d3y.grad_fn is None and d3y.dtype == torch.float32


@pytest.mark.parametrize("name, first, second", [
    ("sin", np.cos, lambda v: -np.sin(v)),
    ("exp", np.exp, np.exp),
    ("log", lambda v: 1 / v, lambda v: -1 / v**2),
    ("sqrt", lambda v: 0.5 / np.sqrt(v), lambda v: -0.25 * v**-1.5),
    ("tanh", lambda v: 1 - np.tanh(v) ** 2, lambda v: -2 * np.tanh(v) * (1 - np.tanh(v) ** 2)),
    ("sigmoid", lambda v: np.exp(-v) / (1 + np.exp(-v)) ** 2,
     lambda v: (np.exp(-2 * v) - np.exp(-v)) / (1 + np.exp(-v)) ** 3),
    ("reciprocal", lambda v: -1 / v**2, lambda v: 2 / v**3),
])
def test_second_derivatives_of_elementwise_functions(name, first, second):
    v = np.array([0.5, 1.5, 2.5])
    x = _t(v)
    (g,) = torch.autograd.grad(getattr(torch, name)(x).sum(), x, create_graph=True)
    np.testing.assert_allclose(g.detach().numpy(), first(v), rtol=1e-12)
    (h,) = torch.autograd.grad(g.sum(), x)
    np.testing.assert_allclose(h.numpy(), second(v), rtol=1e-10)
    assert h.dtype == _F64


def test_hessian_vector_product_through_matmul():
    A = torch.tensor([[2.0, 1.0], [1.0, 3.0]], dtype=_F64)
    w = _t([1.0, -1.0])
    loss = (w @ A @ w) / 2 + (w ** 4).sum()
    (g,) = torch.autograd.grad(loss, w, create_graph=True)
    np.testing.assert_allclose(g.detach().numpy(), [5.0, -6.0])
    v = torch.tensor([1.0, 0.5], dtype=_F64)
    (hv,) = torch.autograd.grad(g @ v, w)
    hessian = np.array([[2.0, 1.0], [1.0, 3.0]]) + np.diag(12 * np.array([1.0, -1.0]) ** 2)
    np.testing.assert_allclose(hv.numpy(), hessian @ [1.0, 0.5])


def _gradient_penalty(W1, b1, W2, X):
    """The penalty on the input gradient's norm of a tanh network; its gradients."""
    w1, c1, w2 = _t(W1), _t(b1), _t(W2)
    x = _t(X)
    out = torch.tanh(x @ w1.t() + c1) @ w2.t()
    (gx,) = torch.autograd.grad(out.sum(), x, create_graph=True)
    penalty = ((gx.norm(dim=1) - 1) ** 2).mean()
    penalty.backward()
    return penalty.item(), w1.grad.numpy(), c1.grad.numpy(), w2.grad.numpy()


def test_gradient_penalty_against_central_differences():
    rng = np.random.default_rng(0)
    W1, b1, W2, X = rng.standard_normal((5, 3)), rng.standard_normal(5), rng.standard_normal((1, 5)), rng.standard_normal((4, 3))
    value, gW1, gb1, gW2 = _gradient_penalty(W1, b1, W2, X)
    for arrays, grad, at in ((W1, gW1, 0), (b1, gb1, 1), (W2, gW2, 2)):
        numerical = np.zeros_like(arrays)
        for i in np.ndindex(arrays.shape):
            args = [W1, b1, W2, X]
            up, down = arrays.copy(), arrays.copy()
            up[i] += 1e-6
            down[i] -= 1e-6
            args[at] = up
            f_up = _gradient_penalty(*args)[0]
            args[at] = down
            f_down = _gradient_penalty(*args)[0]
            numerical[i] = (f_up - f_down) / 2e-6
        np.testing.assert_allclose(grad, numerical, rtol=1e-6, atol=1e-8)
    assert value > 0


def _residual(weights, T):
    """A PINN-style residual u'' + u of two nn.Linear layers; its gradients."""
    lin, lin2 = torch.nn.Linear(1, 4).double(), torch.nn.Linear(4, 1).double()
    with torch.no_grad():
        for p, v in zip([lin.weight, lin.bias, lin2.weight, lin2.bias], weights):
            p.copy_(torch.tensor(v, dtype=_F64))
    t = _t(T)
    u = lin2(torch.tanh(lin(t)))
    (du,) = torch.autograd.grad(u, t, torch.ones_like(u), create_graph=True)
    (d2u,) = torch.autograd.grad(du, t, torch.ones_like(du), create_graph=True)
    res = ((d2u + u) ** 2).mean()
    res.backward()
    return res.item(), [p.grad.numpy() for p in (lin.weight, lin.bias, lin2.weight, lin2.bias)]


def test_second_derivative_of_a_network_through_linear_layers_against_central_differences():
    # nn.Linear records one composite node (AddmmBackward0): its inner graph is lifted
    # into the new one, whose own backward then reaches the layers' parameters
    rng = np.random.default_rng(1)
    weights = [rng.standard_normal((4, 1)), rng.standard_normal(4), rng.standard_normal((1, 4)), rng.standard_normal(1)]
    T = np.array([[0.1], [0.7], [1.3]])
    value, grads = _residual(weights, T)
    for k, w in enumerate(weights):
        numerical = np.zeros_like(w)
        for i in np.ndindex(w.shape):
            up = [v.copy() for v in weights]
            down = [v.copy() for v in weights]
            up[k][i] += 1e-6
            down[k][i] -= 1e-6
            numerical[i] = (_residual(up, T)[0] - _residual(down, T)[0]) / 2e-6
        np.testing.assert_allclose(grads[k], numerical, rtol=1e-6, atol=1e-8)
    assert value > 0


def test_gradients_that_do_not_depend_on_an_input_have_no_edge_to_it():
    # as in PyTorch: x + y's gradient is the seed (a leaf); d(x * y)/dx = y has no edge to x
    x, y = _t([1.0, 2.0]), _t([3.0, 4.0])
    gx, gy = torch.autograd.grad((x + y).sum(), [x, y], create_graph=True)
    assert not gx.requires_grad and not gy.requires_grad
    gx, gy = torch.autograd.grad((x * y).sum(), [x, y], create_graph=True)
    assert torch.autograd.grad(gx.sum(), [x, y], allow_unused=True)[0] is None
    assert torch.autograd.grad(gx.sum(), [x, y], allow_unused=True)[1].tolist() == [1.0, 1.0]


def test_backward_with_create_graph_leaves_a_grad_with_a_graph():
    x = torch.tensor(1.5, requires_grad=True)
    with pytest.warns(UserWarning, match="reference cycle between the parameter and its gradient"):
        (x ** 4).backward(create_graph=True)
    assert repr(x.grad) == "tensor(13.5000, grad_fn=<CopyBackwards>)"
    g = x.grad
    x.grad = None
    g.backward()
    assert x.grad.item() == 27.0  # 12 x**2


def test_float32_gradients_keep_their_dtype():
    x = torch.tensor([0.5, 1.0], requires_grad=True)
    (g,) = torch.autograd.grad(torch.tanh(x).sum(), x, create_graph=True)
    (h,) = torch.autograd.grad(g.sum(), x)
    assert g.dtype == h.dtype == torch.float32
    t = np.tanh(np.array([0.5, 1.0]))
    np.testing.assert_allclose(h.numpy(), -2 * t * (1 - t**2), rtol=1e-6)


def test_functional_hessian():
    x = torch.tensor([1.0, 2.0])
    assert torch.autograd.functional.hessian(lambda v: (v**3).sum(), x).tolist() == [[6.0, 0.0], [0.0, 12.0]]
    a = torch.tensor([1.0, 2.0, 3.0])
    (haa, hab), (hba, hbb) = torch.autograd.functional.hessian(lambda p, q: (p * q).sum(), (a, a))
    assert haa.tolist() == hbb.tolist() == np.zeros((3, 3)).tolist()
    assert hab.tolist() == hba.tolist() == np.eye(3).tolist()
    with pytest.raises(RuntimeError, match="should contain a single element"):
        torch.autograd.functional.hessian(lambda v: v**3, x)


def _cube_and_square(a):
    return np.sum(a ** 3), np.sum(a ** 2)


def test_nodes_without_a_registry_rule_refuse_before_anything_changes():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    w = torch.tensor([3.0], requires_grad=True)
    w.grad = torch.ones(1)
    y = torch.compile(_cube_and_square)(x * 1.0)[0] * w.sum()  # a node of several outputs
    with pytest.warns(UserWarning, match="reference cycle"), \
            pytest.raises(NotImplementedError, match="_cube_and_squareBackward"):
        (y + (w * w).sum()).backward(create_graph=True)
    assert x.grad is None and w.grad.tolist() == [1.0]


def test_a_custom_function_records_its_backward():
    # as in PyTorch: its backward is Tensor code, run with grad mode on
    class Square(torch.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            ctx.save_for_backward(a)
            return a * a

        @staticmethod
        def backward(ctx, g):
            (a,) = ctx.saved_tensors
            return 2 * a * g

    x = _t([1.0, -2.0])
    (g,) = torch.autograd.grad((Square.apply(x) * x).sum(), x, create_graph=True)
    assert g.tolist() == [3.0, 12.0]  # 3 x**2
    (h,) = torch.autograd.grad(g.sum(), x)
    assert h.tolist() == [6.0, -12.0]  # 6 x


def test_against_pytorch_where_installed():
    real = pytest.importorskip("torch")

    def program(lib):
        x = lib.tensor([[0.5, 1.5], [0.7, 0.2]], dtype=lib.float64, requires_grad=True)
        w = lib.tensor([[0.3, -0.4], [1.2, 0.6]], dtype=lib.float64, requires_grad=True)
        rows = []
        for y in (lib.sin(x) * w, x / w, w / x, x @ w, x.sum(0) * w[0], lib.softmax(x, 1) * w, x ** w, x.t() * w):
            gx, gw = lib.autograd.grad(y.sum(), [x, w], create_graph=True, allow_unused=True)
            names = [type(g.grad_fn).__name__ if g is not None and g.grad_fn is not None else None for g in (gx, gw)]
            h = lib.autograd.grad((gx * gx).sum() + (gw * gw).sum(), [x, w], allow_unused=True)
            rows.append((names, [None if v is None else np.round(v.detach().numpy(), 10).tolist() for v in h]))
        return rows

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert program(torch) == program(real)


def test_a_backward_the_compiler_cannot_differentiate_again_refuses_before_anything_changes():
    # the fifth pass through tanh(x) ** 2 differentiates the pullback of a pullback of a
    # comprehension (Mul's backward fills missing cotangents), whose list the pass before
    # changes in place, which reverse mode refuses: the pass refuses, naming the node, and
    # leaves .grad as it was
    x = _t([0.3, -0.7])
    w = _t([3.0])
    g = (torch.tanh(x) ** 2).sum() * w.sum()
    for _ in range(4):
        (g,) = torch.autograd.grad(g.sum(), x, create_graph=True)
    w.grad = torch.ones(1, dtype=_F64)
    with pytest.raises(NotImplementedError, match="MulBackward0"):
        (g.sum() + (w * w).sum()).backward()
    assert x.grad is None and w.grad.tolist() == [1.0]


def test_third_and_fourth_passes_through_cumprod():
    # the backward of cumprod's second gradient runs the reverse rules of cumprod's adjoint
    # helper, differentiated again by reverse mode: values as PyTorch 2.13 gives them
    x = _t([[1.0, 2.0], [3.0, 4.0]])
    w = _t([3.0])
    (g,) = torch.autograd.grad(x.cumprod(1).sum() * w.sum(), x, create_graph=True)
    assert g.tolist() == [[9.0, 3.0], [15.0, 9.0]]  # w (1 + b, a) per row (a, b)
    (h,) = torch.autograd.grad((g * g).sum(), x, create_graph=True)
    assert h.tolist() == [[18.0, 54.0], [54.0, 90.0]]  # 2 w^2 (a, 1 + b) per row
    (k,) = torch.autograd.grad((h * h).sum(), x, create_graph=True)
    np.testing.assert_allclose(k.detach().numpy(), [[648.0, 1944.0], [1944.0, 3240.0]], rtol=1e-13)  # 8 w^4 (a, 1 + b)
    (k.sum() + (w * w).sum()).backward()
    np.testing.assert_allclose(x.grad.numpy(), np.full((2, 2), 648.0), rtol=1e-13)
    np.testing.assert_allclose(w.grad.numpy(), [10374.0], rtol=1e-13)  # 4 sum(k) / w + 2 w


# (x, second derivative along linspace(-1, 1, 6) of sum(cumprod(x) ** 2), gradient of the
# squared gradient of sum(cumprod(m, 1) * sin(m)), m = x as 2 x 3), as PyTorch 2.13 gives them
_CUMPROD_SECOND = [
    ([0.5, 0.0, 2.0, -1.5, 0.7, 1.3], [-2.0, -7.75887, 0.0, 0.0, 0.0, 0.0],
     [6.090314923943, 5.158323618789, 0.070019315124, -20.882421702668, 18.313839904851, 12.688915988878]),
    ([0.5, 0.0, 2.0, 0.0, 0.7, 1.3], [-2.0, -1.5, 0.0, 0.0, 0.0, 0.0],
     [6.090314923943, 5.158323618789, 0.070019315124, 5.311161319184, 6.458990540992, 2.437596428451]),
    ([0.0, 0.8, 2.0, -1.5, 0.7, 0.0], [-25.5648, 0.0, 0.0, 0.0, 0.0, 0.0],
     [8.115043022563, 12.551197477254, 0.249955509772, -2.406045111785, 4.186422661521, 0.0]),
]


@pytest.mark.parametrize("values, along, squared", _CUMPROD_SECOND)
def test_second_derivatives_through_cumprod_with_zeros(values, along, squared):
    """create_graph through cumprod's backward, where x holds zeros: the gradient's own
    backward runs the written reverse rules of cumprod's adjoint helper (no division by x)."""
    x = _t(values)
    v = torch.tensor(np.linspace(-1.0, 1.0, 6), dtype=_F64)
    (g,) = torch.autograd.grad((torch.cumprod(x, 0) ** 2).sum(), x, create_graph=True)
    (h,) = torch.autograd.grad((g * v).sum(), x, create_graph=True)
    assert h.grad_fn is not None and h.dtype == _F64 and h.shape == (6,)
    np.testing.assert_allclose(h.detach().numpy(), along, rtol=1e-10, atol=1e-12)
    m = x.reshape(2, 3)
    (g2,) = torch.autograd.grad((m.cumprod(1) * m.sin()).sum(), x, create_graph=True)
    (h2,) = torch.autograd.grad((g2 * g2).sum(), x)
    np.testing.assert_allclose(h2.numpy(), squared, rtol=1e-10, atol=1e-12)

    def gradient(xs):
        xt = _t(xs)
        (gt,) = torch.autograd.grad((torch.cumprod(xt, 0) ** 2).sum(), xt)
        return gt.numpy()

    eps = 1e-6
    numeric = sum(vk * (gradient(np.add(values, eps * e)) - gradient(np.subtract(values, eps * e))) / (2 * eps)
                  for vk, e in zip(np.linspace(-1.0, 1.0, 6), np.eye(6)))
    np.testing.assert_allclose(h.detach().numpy(), numeric, rtol=1e-6, atol=1e-6)


_NAMED = {  # the node of the first gradient, as PyTorch 2.13 names it (None: a leaf)
    "sin": "MulBackward0", "log": "DivBackward0", "tanh": "TanhBackwardBackward0", "sigmoid": "SigmoidBackwardBackward0",
    "atan": "DivBackward0", "exp2": "MulBackward1", "tan": "MulBackward0", "atanh": "DivBackward0",
    "relu": "ThresholdBackwardBackward0",
}


@pytest.mark.parametrize("name", sorted(_NAMED))
def test_gradient_nodes_are_named_as_pytorch_names_them(name):
    z = _t([0.3, 0.6])
    (g,) = torch.autograd.grad(getattr(torch, name)(z).sum(), z, create_graph=True)
    assert type(g.grad_fn).__name__ == _NAMED[name]


def test_gradients_of_selections_have_no_edge_to_their_inputs():
    # g * (x > y) is piecewise constant in x and y: PyTorch's gradient is a leaf
    z = _t([[0.3, -0.6], [0.2, 0.1]])
    for y in (z.amax(1), torch.maximum(z, z.detach() * 0.5), z.clamp(0.0, 0.25)):
        (g,) = torch.autograd.grad((y * 1.5).sum(), z, create_graph=True)
        assert g.grad_fn is None and not g.requires_grad


def test_tan_and_inverse_hyperbolic_functions():
    v = np.array([0.3, 0.6])
    for name, first, second in (
        ("tan", lambda a: 1 / np.cos(a) ** 2, lambda a: 2 * np.tan(a) / np.cos(a) ** 2),
        ("asinh", lambda a: 1 / np.sqrt(a**2 + 1), lambda a: -a / (a**2 + 1) ** 1.5),
        ("atanh", lambda a: 1 / (1 - a**2), lambda a: 2 * a / (1 - a**2) ** 2),
    ):
        x = _t(v)
        y = getattr(torch, name)(x)
        assert type(y.grad_fn).__name__ == name.capitalize() + "Backward0"
        (g,) = torch.autograd.grad(y.sum(), x, create_graph=True)
        (h,) = torch.autograd.grad(g.sum(), x)
        np.testing.assert_allclose(g.detach().numpy(), first(v), rtol=1e-12)
        np.testing.assert_allclose(h.numpy(), second(v), rtol=1e-10)
    x = _t([1.3, 2.6])
    (g,) = torch.autograd.grad(torch.acosh(x).sum(), x)
    np.testing.assert_allclose(g.numpy(), 1 / np.sqrt(np.array([1.3, 2.6]) ** 2 - 1), rtol=1e-12)
    w = torch.tensor([0.3, 0.6])
    w.tan_()
    assert w.dtype == torch.float32 and np.allclose(w.numpy(), np.tan([0.3, 0.6]))


def _written(x):
    y = x * 1.5
    y[1] = x[0] * x[1].exp()  # CopySlices over CopyBackwards
    return (y ** 3).sum()


def _multiplied_in_place(x):
    y = x * 1.5
    v = y[:, ::2]  # a view of the base before the write: AsStridedBackward0 after it
    y[:, 1:].mul_(x[:, :2] ** 2)  # CopySlices over MulBackward0, which reads the view's old values
    return (y ** 2).sum() + (v ** 3).sum()


def _put_at_rows(x):
    y = x * 1.5
    y[torch.tensor([0, 1]), 1] = x[1, :2] ** 2  # IndexPutBackward0: an index of an array and a number
    return (y ** 3).sum()


def _gradient(f, a):
    x = _t(a)
    (g,) = torch.autograd.grad(f(x), x)
    return g.numpy()


@pytest.mark.parametrize("name, f", [
    ("cat", lambda x: (torch.cat([x * x, x[:1]]) ** 2).sum()),
    ("stack", lambda x: (torch.stack([x, x * x]) ** 3).sum()),
    ("repeat", lambda x: (x.repeat(2, 1) ** 3).sum()),
    ("std", lambda x: x.std(1).sum() * x.sum()),
    ("mse_loss", lambda x: torch.nn.functional.mse_loss(x * x, x.flip(0)) ** 2),
    ("gather", lambda x: (x.gather(1, torch.tensor([[0, 2, 2], [1, 0, 1]])) ** 3).sum()),
    ("index_select", lambda x: (x.index_select(1, torch.tensor([2, 0, 2])) ** 3).sum()),
    ("binary_cross_entropy", lambda x: torch.nn.functional.binary_cross_entropy(
        torch.sigmoid(x), torch.sigmoid(x.flip(0) * 0.5))),
    # their backward writes g on a diagonal of zeros (refused before the helper had rules)
    # writes into views (refused before): the region's gradient through the write's node
    ("setitem", _written),
    ("mul_ into a slice", _multiplied_in_place),
    ("index_put", _put_at_rows),  # crashed building the gradient's node (the index as an input)
    ("trace", lambda x: x.trace() ** 3 * x.sum()),
    ("diagonal", lambda x: (x.diagonal(1) ** 3).sum() * x.sum()),
])
def test_second_derivatives_through_helpers_of_the_rules(name, f):
    # their backward calls helpers with forward rules only: reverse mode reads their source
    a = np.array([[0.3, 0.8, -0.5], [0.6, -0.2, 0.9]])
    weights = np.array([[1.0, -2.0, 0.5], [0.3, 0.7, -1.1]])
    x = _t(a)
    (g,) = torch.autograd.grad(f(x), x, create_graph=True)
    np.testing.assert_allclose(g.detach().numpy(), _gradient(f, a), rtol=1e-12)
    (h,) = torch.autograd.grad((g * torch.tensor(weights, dtype=_F64)).sum(), x)
    numerical = np.zeros_like(a)
    for i in np.ndindex(a.shape):
        up, down = a.copy(), a.copy()
        up[i] += 1e-6
        down[i] -= 1e-6
        numerical[i] = np.sum((_gradient(f, up) - _gradient(f, down)) * weights) / 2e-6
    np.testing.assert_allclose(h.numpy(), numerical, rtol=1e-6, atol=1e-8)


def test_a_custom_function_that_saves_its_output_is_differentiated_through_it():
    # as in PyTorch, the saved output reads back as the node's output under create_graph:
    # g * exp(x) is differentiated through exp(x) too (the second derivative was
    # exp(x) * (1 + x) - the gradient's own dependence missed - instead of exp(x) * (2 + x))
    class Exp(torch.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            r = a.exp()
            ctx.save_for_backward(r)
            return r

        @staticmethod
        def backward(ctx, g):
            (r,) = ctx.saved_tensors
            return g * r

    v = np.array([0.3, -1.2, 0.8])
    x = _t(v)
    (g,) = torch.autograd.grad((Exp.apply(x) * x).sum(), x, create_graph=True)
    np.testing.assert_allclose(g.detach().numpy(), np.exp(v) * (1 + v), rtol=1e-12)
    (h,) = torch.autograd.grad(g.sum(), x)
    np.testing.assert_allclose(h.numpy(), np.exp(v) * (2 + v), rtol=1e-12)
    (g1,) = torch.autograd.grad(Exp.apply(x).sum(), x)  # without create_graph: the saved value
    np.testing.assert_allclose(g1.numpy(), np.exp(v), rtol=1e-12)


def test_a_gradient_of_another_dtype_that_requires_grad_joins_the_graph():
    # grad_outputs of float32 for a float64 output: cast, and the cast recorded (the
    # gradient with respect to it was None: "appears to not have been used")
    x = _t([0.5, 2.0])
    v = torch.tensor([1.0, 3.0], requires_grad=True)
    (g,) = torch.autograd.grad(x ** 3, x, grad_outputs=v, create_graph=True)
    assert g.dtype == _F64 and g.tolist() == [0.75, 36.0]  # 3 x**2 v
    gx, gv = torch.autograd.grad(g.sum(), [x, v])
    assert gx.tolist() == [3.0, 36.0] and gv.tolist() == [0.75, 12.0] and gv.dtype == torch.float32


def test_materialize_grads_and_only_inputs():
    x, w = _t([1.0, 2.0]), _t([3.0])
    gx, gw = torch.autograd.grad((x ** 2).sum(), [x, w], create_graph=True, materialize_grads=True)
    assert gx.tolist() == [2.0, 4.0] and gw.tolist() == [0.0] and gw.requires_grad
    with pytest.raises(ValueError, match="allow_unused"):
        torch.autograd.grad((x ** 2).sum(), [x, w], materialize_grads=True, allow_unused=False)
    with pytest.warns(FutureWarning, match="only_inputs argument is deprecated"):
        (g,) = torch.autograd.grad((x ** 2).sum(), x, only_inputs=False)
    assert g.tolist() == [2.0, 4.0]
    with pytest.raises(RuntimeError, match="grad can be implicitly created only for scalar outputs"):
        torch.autograd.grad((x ** 2).sum(), x, is_grads_batched=True)  # batched grad_outputs are needed


def test_functional_jacobian_hessian_and_vjp_with_create_graph():
    v = np.array([0.4, -0.7])
    x = _t(v)
    hess = torch.autograd.functional.hessian(lambda a: (a ** 3).sum() * a[0], x, create_graph=True)
    # f = a0 * (a0**3 + a1**3): H = [[12 a0**2, 3 a1**2], [3 a1**2, 6 a0 a1]]
    a0, a1 = v
    np.testing.assert_allclose(hess.detach().numpy(), [[12 * a0**2, 3 * a1**2], [3 * a1**2, 6 * a0 * a1]], rtol=1e-12)
    (g,) = torch.autograd.grad(hess.sum(), x)
    np.testing.assert_allclose(g.numpy(), [24 * a0 + 6 * a1, 12 * a1 + 6 * a0], rtol=1e-12)
    y = _t([1.5, 0.5])
    jx, jy = torch.autograd.functional.jacobian(lambda a, b: a * b.exp(), (x, y), create_graph=True)
    np.testing.assert_allclose(jy.detach().numpy(), np.diag(v * np.exp([1.5, 0.5])), rtol=1e-12)
    gx, gy = torch.autograd.grad((jx * jy).sum(), [x, y])  # sum of a exp(2 b)
    np.testing.assert_allclose(gx.numpy(), np.exp([3.0, 1.0]), rtol=1e-12)
    np.testing.assert_allclose(gy.numpy(), 2 * v * np.exp([3.0, 1.0]), rtol=1e-12)
    out, product = torch.autograd.functional.vjp(lambda a: a.sin() * a, x, torch.ones(2, dtype=_F64), create_graph=True)
    assert out.requires_grad and product.requires_grad
    (g,) = torch.autograd.grad(product.sum(), x)
    np.testing.assert_allclose(g.numpy(), 2 * np.cos(v) - v * np.sin(v), rtol=1e-12)
    assert x.grad is None


def test_a_gradient_that_reads_an_ops_result_reaches_the_ops_node():
    # as PyTorch's: exp's gradient g * exp(x) reads the result h through h's node, so the
    # gradient of a gradient with respect to h counts that path (it was 2h, the path
    # through the result missed: d/dh of 2h * h is 4h)
    v = np.array([0.5, 1.0])
    x = _t(v)
    h = x.exp()
    (g,) = torch.autograd.grad((h * h).sum(), x, create_graph=True)
    np.testing.assert_allclose(g.detach().numpy(), 2 * np.exp(2 * v), rtol=1e-12)
    (gh,) = torch.autograd.grad(g.sum(), h, retain_graph=True)
    np.testing.assert_allclose(gh.numpy(), 4 * np.exp(v), rtol=1e-12)
    (gx,) = torch.autograd.grad(g.sum(), x)
    np.testing.assert_allclose(gx.numpy(), 4 * np.exp(2 * v), rtol=1e-12)


def test_fourth_derivative_of_tanh():
    v = np.array([0.3, -0.8])
    x = _t(v)
    g = torch.tanh(x)
    for _ in range(4):
        (g,) = torch.autograd.grad(g.sum(), x, create_graph=True)
    t = np.tanh(v)
    np.testing.assert_allclose(g.detach().numpy(), 8 * t * (1 - t**2) * (2 - 3 * t**2), rtol=1e-10)


def test_hooks_run_in_a_pass_that_records_a_graph():
    # as in PyTorch: a hook gets the gradient with its graph, what it returns keeps its
    # graph, and it runs again in the next pass through its tensor
    x = _t([1.0, 2.0])
    x.register_hook(lambda g: g * 2)
    (g,) = torch.autograd.grad((x ** 3).sum(), x, create_graph=True)
    assert g.tolist() == [6.0, 24.0] and g.requires_grad  # 2 * 3 x**2
    assert torch.autograd.grad(g.sum(), x)[0].tolist() == [24.0, 48.0]  # 2 * 12 x
    # a hook on an intermediate: the second pass reaches it through exp's result too
    v = np.array([0.5, 1.0])
    x = _t(v)
    h = x.exp()
    h.register_hook(lambda grad: grad * x)
    (g,) = torch.autograd.grad((h * x).sum(), x, create_graph=True)
    np.testing.assert_allclose(g.detach().numpy(), np.exp(v) * (1 + v**2), rtol=1e-12)
    (gg,) = torch.autograd.grad(g.sum(), x)
    # the second pass: (1 + x**2) reaches h, hooked: * x; through exp: * e**x; and 2 x e**x directly
    np.testing.assert_allclose(gg.numpy(), np.exp(v) * ((1 + v**2) * v + 2 * v), rtol=1e-12)


def test_retain_grad_in_a_pass_that_records_a_graph():
    x = _t([0.5, 1.0])
    h = x.sin()
    h.retain_grad()
    with pytest.warns(UserWarning, match="reference cycle"):
        (h ** 3).sum().backward(create_graph=True)
    first = h.grad
    assert type(first.grad_fn).__name__ == "CloneBackward0"
    np.testing.assert_allclose(first.detach().numpy(), 3 * np.sin([0.5, 1.0]) ** 2, rtol=1e-12)
    (h ** 3).sum().backward()
    # as PyTorch's retain_grad, out of place: the gradient read before stays as it was
    np.testing.assert_allclose(first.detach().numpy(), 3 * np.sin([0.5, 1.0]) ** 2, rtol=1e-12)
    np.testing.assert_allclose(h.grad.detach().numpy(), 6 * np.sin([0.5, 1.0]) ** 2, rtol=1e-12)


def test_functional_jvp_hvp_and_vhp():
    # f(a, b) = sum(exp(a b)) + sum(a**3): H = [[b**2 e + 6a, (1 + a b) e], [(1 + a b) e, a**2 e]] per element
    a, b = np.array([0.3, -0.5]), np.array([0.8, 0.4])
    va, vb = np.array([1.0, 2.0]), np.array([-1.0, 0.5])
    e = np.exp(a * b)
    f = lambda p, q: (p * q).exp().sum() + (p ** 3).sum()  # noqa: E731
    x, y = _t(a, False), _t(b, False)
    v = (_t(va, False), _t(vb, False))
    want = ((b**2 * e + 6 * a) * va + (1 + a * b) * e * vb, (1 + a * b) * e * va + a**2 * e * vb)
    for product in (torch.autograd.functional.hvp, torch.autograd.functional.vhp):
        out, (ha, hb) = product(f, (x, y), v)
        assert not out.requires_grad and out.item() == pytest.approx(e.sum() + (a**3).sum(), rel=1e-12)
        np.testing.assert_allclose(ha.numpy(), want[0], rtol=1e-12)
        np.testing.assert_allclose(hb.numpy(), want[1], rtol=1e-12)
    out, (ja, jb) = torch.autograd.functional.jvp(lambda p, q: (p * q.exp(), p.sum() * 0 + 1), (x, y), v)
    np.testing.assert_allclose(ja.numpy(), np.exp(b) * va + a * np.exp(b) * vb, rtol=1e-12)
    assert jb.tolist() == 0.0  # an output that depends on no input
    x = _t(a)
    out, jv = torch.autograd.functional.jvp(lambda p: p.sin() * p, x, _t(va, False), create_graph=True)
    (g,) = torch.autograd.grad(jv.sum(), x)  # d/da of (cos a a + sin a) va
    np.testing.assert_allclose(g.numpy(), (2 * np.cos(a) - a * np.sin(a)) * va, rtol=1e-12)


@pytest.mark.parametrize("f, name", [
    (lambda a: (a.view(4) ** 3).sum(), "ViewBackward0"),
    (lambda a: (a.permute(1, 0).contiguous().view(-1) ** 3).sum(), "PermuteBackward0"),
    (lambda a: (a.cumsum(0) ** 3).sum(), "FlipBackward0"),
    (lambda a: a.std(0, unbiased=False).sum(), "MulBackward0"),
    (lambda a: (a.float() ** 3).sum(), "ToCopyBackward0"),
])
def test_gradient_nodes_of_views_casts_scans_and_deviations_are_named_as_pytorch_names_them(f, name):
    z = _t([[0.3, 0.6], [0.2, 0.5]])
    (g,) = torch.autograd.grad(f(z), z, create_graph=True)
    assert type(g.grad_fn).__name__ == name


def test_gradient_penalty_through_hardtanh_gives_zero_gradients_to_its_input():
    """PyTorch's gradient of hardtanh (HardtanhBackwardBackward0) has an edge to the
    input that carries zeros: a penalty on that gradient gives the input and the bias
    before hardtanh zero gradients, not None (they were None)."""
    x = _t([[-2.0, 0.3], [0.5, 1.5]])
    w = _t([[1.0, -2.0], [0.5, 1.0]])
    b = _t([0.25, -0.5])
    y = torch.nn.functional.hardtanh(x @ w.T + b)
    (gx,) = torch.autograd.grad((y * torch.tensor([1.0, 3.0], dtype=_F64)).sum(), x, create_graph=True)
    assert gx.grad_fn.name() == "MmBackward0"
    penalty = (gx ** 2).sum()
    penalty.backward()
    pre = x.detach().numpy() @ w.detach().numpy().T + b.detach().numpy()
    mask = ((pre > -1) & (pre < 1)) * np.array([1.0, 3.0])
    np.testing.assert_allclose(gx.detach().numpy(), mask @ w.detach().numpy())
    assert x.grad is not None and b.grad is not None
    assert np.array_equal(x.grad.numpy(), np.zeros((2, 2))) and np.array_equal(b.grad.numpy(), np.zeros(2))
    np.testing.assert_allclose(w.grad.numpy(), 2 * mask.T @ (mask @ w.detach().numpy()))


def test_hardtanh_gradient_node_has_an_edge_to_the_input():
    x = _t([-2.0, -1.0, -0.5, 0.3, 1.0, 2.0])
    (g,) = torch.autograd.grad(torch.nn.functional.hardtanh(x).sum(), x, create_graph=True)
    assert g.grad_fn.name() == "HardtanhBackwardBackward0"
    assert np.array_equal(g.detach().numpy(), [0.0, 0.0, 1.0, 1.0, 0.0, 0.0])
    (h,) = torch.autograd.grad((g * g).sum(), x)
    assert h.dtype == _F64 and np.array_equal(h.numpy(), np.zeros(6))
    relu6 = torch.nn.ReLU6()(x * 4)
    (g6,) = torch.autograd.grad(relu6.sum(), x, create_graph=True)
    (h6,) = torch.autograd.grad(g6.sum(), x)
    assert np.array_equal(g6.detach().numpy(), [0.0, 0.0, 0.0, 4.0, 4.0, 0.0]) and np.array_equal(h6.numpy(), np.zeros(6))


def test_a_write_into_a_value_a_recorded_gradient_reads_is_refused():
    """A gradient recorded with create_graph reads the values its op saved: a later
    in-place write into one makes the next pass raise PyTorch's version error (it used
    the written values: -4 sin(4 x) where the answer is -4 sin(2 x))."""
    x = _t([0.3, -1.2, 2.0])
    y = x * 2
    (g,) = torch.autograd.grad(y.sin().sum(), x, create_graph=True)
    (h,) = torch.autograd.grad(g.sum(), x, retain_graph=True)
    np.testing.assert_allclose(h.numpy(), -4 * np.sin(2 * np.array([0.3, -1.2, 2.0])), rtol=1e-15)
    with torch.no_grad():
        y.mul_(2)
    with pytest.raises(RuntimeError, match=r"\[srcgrad.DoubleTensor \[3\]\], which is output 0 of Mul, is at version 1; "
                                           "expected version 0 instead"):
        torch.autograd.grad(g.sum(), x)


def test_third_and_fourth_derivatives_through_tanh_squared():
    """The backward of `tanh(x) ** 2`'s gradient fills missing cotangents in a comprehension
    (`_or_zeros`), whose generated pullback is differentiated again at the third order.
    Values as PyTorch 2.13 gives them (float64), and the closed form of d3/dx3 tanh^2."""
    x = _t([0.3, -0.7])
    v = torch.tensor([1.0, 0.5], dtype=_F64)
    _, hv = torch.autograd.functional.hvp(lambda x: (torch.tanh(x) ** 2).sum(), x, v, create_graph=True)
    (third_v,) = torch.autograd.grad(hv.sum(), x)
    assert np.allclose(third_v.numpy(), [-3.72248582, 1.38749171], rtol=1e-8)
    (g,) = torch.autograd.grad((torch.tanh(x) ** 2).sum(), x, create_graph=True)
    (g2,) = torch.autograd.grad(g.sum(), x, create_graph=True)
    (g3,) = torch.autograd.grad(g2.sum(), x, create_graph=True)
    (g4,) = torch.autograd.grad(g3.sum(), x)
    t = np.tanh(np.array([0.3, -0.7]))
    s = 1 - t ** 2  # d/dx tanh^2 = 2 t s; d2 = 2 s^2 - 4 t^2 s; d3 = -16 t s^2 + 8 t^3 s
    assert np.allclose(g3.detach().numpy(), -16 * t * s ** 2 + 8 * t ** 3 * s, rtol=1e-12)
    assert np.allclose(g4.numpy(), [-6.11370393, 7.50352909], rtol=1e-8)
    assert g4.dtype == _F64 and g4.shape == (2,)
