"""srcgrad.nn modules: registration, traversal, state, printing and gradients, checked
against NumPy formulas (tests/test_tensor_torch.py compares the printed text with
PyTorch itself where it is installed)."""

import collections
import re

import numpy as np
import pytest

import srcgrad as torch

nn = torch.nn


def raises(exc, message):
    return pytest.raises(exc, match="^" + re.escape(message) + "$")


def _set(module, *arrays):
    with torch.no_grad():
        for p, a in zip(module.parameters(), arrays):
            p.copy_(torch.tensor(np.asarray(a, dtype=np.float32)))


def test_linear_computes_x_at_w_transposed_plus_b_and_its_gradients():
    layer = nn.Linear(3, 2)
    W = np.array([[0.5, -1.0, 2.0], [1.5, 0.25, -0.5]], dtype=np.float32)
    b = np.array([0.1, -0.2], dtype=np.float32)
    _set(layer, W, b)
    x = np.arange(12, dtype=np.float32).reshape(4, 3) / 4
    out = layer(torch.tensor(x))
    np.testing.assert_allclose(out.detach().numpy(), x @ W.T + b, rtol=1e-6)
    assert out.dtype == torch.float32 and type(out.grad_fn).__name__ == "AddmmBackward0"
    seed = np.arange(8, dtype=np.float32).reshape(4, 2)
    out.backward(torch.tensor(seed))
    np.testing.assert_allclose(layer.weight.grad.numpy(), seed.T @ x, rtol=1e-6)
    np.testing.assert_allclose(layer.bias.grad.numpy(), seed.sum(0), rtol=1e-6)
    assert type(layer.weight.grad) is torch.Tensor and type(layer.weight) is nn.Parameter
    names = [type(f(t).grad_fn).__name__ for f, t in [(layer, torch.ones(3)), (nn.Linear(3, 2, bias=False), torch.ones(4, 3)),
                                                      (nn.Linear(3, 2, bias=False), torch.ones(3)), (layer, torch.ones(5, 4, 3))]]
    assert names == ["ViewBackward0", "MmBackward0", "SqueezeBackward4", "ViewBackward0"]


def test_default_initialization_is_uniform_within_one_over_sqrt_fan_in():
    torch.manual_seed(3)
    layer = nn.Linear(16, 50)
    w, b = layer.weight.detach().numpy(), layer.bias.detach().numpy()
    assert w.shape == (50, 16) and b.shape == (50,) and w.dtype == np.float32
    assert np.abs(w).max() <= 0.25 and np.abs(b).max() <= 0.25 and np.abs(w).max() > 0.2 and w.std() > 0.1
    assert nn.Linear(2, 2, dtype=torch.float64).weight.dtype == torch.float64


class Polynomial3(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Parameter(torch.tensor(0.1))
        self.b = nn.Parameter(torch.tensor(-0.2))
        self.c = nn.Parameter(torch.tensor(0.3))
        self.d = nn.Parameter(torch.tensor(0.05))
        self.scale = 2.0  # a plain attribute stays one

    def forward(self, x):
        return self.a + self.b * x + self.c * x ** 2 + self.d * x ** 3


def test_a_module_of_ones_own_registers_parameters_in_order_and_trains():
    model = Polynomial3()
    assert [n for n, _ in model.named_parameters()] == ["a", "b", "c", "d"] and model.scale == 2.0
    assert repr(model) == "Polynomial3()" and "scale" not in model._parameters
    x = np.linspace(-3.0, 3.0, 50).astype(np.float32)
    xs, ys = torch.tensor(x), torch.sin(torch.tensor(x))
    loss = nn.MSELoss(reduction="sum")(model(xs), ys)
    loss.backward()
    a, b, c, d = 0.1, -0.2, 0.3, 0.05
    r = (a + b * x + c * x ** 2 + d * x ** 3 - np.sin(x)).astype(np.float64)
    expected = [2 * np.sum(r * x ** k) for k in range(4)]
    np.testing.assert_allclose([p.grad.item() for p in model.parameters()], expected, rtol=1e-4)
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-4)
    losses = []
    for _ in range(30):
        loss = nn.MSELoss(reduction="sum")(model(xs), ys)
        losses.append(loss.item())
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    assert losses[-1] < 0.5 * losses[0] and all(b <= a for a, b in zip(losses, losses[1:]))


def test_sequential_names_indexes_slices_and_chains():
    m = nn.Sequential(nn.Linear(3, 2), nn.Tanh(), nn.Linear(2, 1), nn.Flatten(0, 1))
    assert [n for n, _ in m.named_parameters()] == ["0.weight", "0.bias", "2.weight", "2.bias"]
    assert list(m.state_dict()) == ["0.weight", "0.bias", "2.weight", "2.bias"]
    assert len(m) == 4 and isinstance(m[-1], nn.Flatten) and list(m[1:]._modules) == ["1", "2", "3"]
    named = nn.Sequential(collections.OrderedDict([("hidden", nn.Linear(2, 2)), ("act", nn.ReLU())]))
    assert [n for n, _ in named.named_parameters()] == ["hidden.weight", "hidden.bias"]
    _set(m, [[1.0, 0.0, -1.0], [0.5, 0.5, 0.5]], [0.0, 0.1], [[2.0, -1.0]], [0.3])
    x = np.array([[1.0, 2.0, 3.0], [0.0, -1.0, 0.5]], dtype=np.float32)
    h = np.tanh(x @ np.array([[1.0, 0.0, -1.0], [0.5, 0.5, 0.5]]).T + [0.0, 0.1])
    np.testing.assert_allclose(m(torch.tensor(x)).detach().numpy(), (h @ [[2.0], [-1.0]] + 0.3).ravel(), rtol=1e-6)
    with raises(IndexError, "index 4 is out of range"):
        m[4]


def test_modes_zero_grad_state_dict_and_dtype():
    m = nn.Sequential(nn.Linear(2, 2), nn.ReLU())
    assert m.training and not m.eval().training and not m[0].training and m.train().training
    m(torch.ones(1, 2)).sum().backward()
    m.zero_grad(set_to_none=False)
    assert m[0].weight.grad.tolist() == [[0.0, 0.0], [0.0, 0.0]]
    m.zero_grad()
    assert m[0].weight.grad is None
    state = m.state_dict()
    state["0.bias"][0] = 7.0  # shares memory with the parameter, as PyTorch's does
    assert m[0].bias[0].item() == 7.0 and not state["0.bias"].requires_grad
    other = nn.Sequential(nn.Linear(2, 2), nn.ReLU())
    assert repr(other.load_state_dict(m.state_dict())) == "<All keys matched successfully>"
    assert other[0].bias.tolist() == m[0].bias.tolist() and other[0].bias._data is not m[0].bias._data
    with raises(RuntimeError, 'Error(s) in loading state_dict for Sequential:\n\tMissing key(s) in state_dict: "0.bias". '
                              '\n\tUnexpected key(s) in state_dict: "x". '):
        other.load_state_dict({"0.weight": torch.ones(2, 2), "x": torch.ones(1)})
    assert m.double()[0].weight.dtype == torch.float64 and m(torch.ones(1, 2, dtype=torch.float64)).dtype == torch.float64


def test_what_a_module_refuses():
    layer = nn.Linear(2, 2)
    with raises(TypeError, "cannot assign 'srcgrad.FloatTensor' as parameter 'weight' (srcgrad.nn.Parameter or None expected)"):
        layer.weight = torch.ones(2, 2)
    with raises(AttributeError, "'Linear' object has no attribute 'nothing'"):
        layer.nothing
    with raises(NotImplementedError, 'Module [Module] is missing the required "forward" function'):
        nn.Module()(1)

    class Early(nn.Module):
        def __init__(self):
            self.a = nn.Parameter(torch.ones(1))

    with raises(AttributeError, "cannot assign parameters before Module.__init__() call"):
        Early()


def test_parameter_shares_memory_and_prints_as_pytorch():
    t = torch.ones(2)
    p = nn.Parameter(t)
    t[0] = 5.0
    assert p[0].item() == 5.0 and p.requires_grad and p.is_leaf and isinstance(p, torch.Tensor)
    assert repr(p) == "Parameter containing:\ntensor([5., 1.], requires_grad=True)"
    assert type(p * 2) is torch.Tensor


def test_flatten_merges_the_dims_between_start_and_end():
    z = torch.ones(2, 3, 4, requires_grad=True)
    assert z.flatten().shape == (24,) and z.flatten(1).shape == (2, 12) and z.flatten(0, 1).shape == (6, 4)
    assert z.flatten(1, 1) is z and torch.tensor(2.0).flatten().shape == (1,)
    with raises(RuntimeError, "flatten() has invalid args: start_dim cannot come after end_dim"):
        z.flatten(2, 1)
    with raises(IndexError, "Dimension out of range (expected to be in range of [-3, 2], but got 5)"):
        z.flatten(0, 5)


@torch.compile
def _tanh_layer(W, x):
    return np.sum(np.tanh(x @ W))


class _CompiledLayer(nn.Module):
    def __init__(self):
        super().__init__()
        self.W = nn.Parameter(torch.tensor(np.linspace(-1.0, 1.0, 6).reshape(3, 2).astype(np.float32)))

    def forward(self, x):
        return _tanh_layer(self.W, x)  # the Parameter passed in: it gets its gradient

    @torch.compile
    def reads_its_parameter(self, x):
        return np.sum(np.tanh(x @ self.W))


def test_a_compiled_function_gives_a_parameter_passed_to_it_its_gradient_and_refuses_one_it_reads():
    m = _CompiledLayer()
    x = np.arange(12, dtype=np.float32).reshape(4, 3) / 10
    W = m.W.detach().numpy().copy()
    for _ in range(3):  # the first calls run the function itself, later ones the generated code
        m.zero_grad()
        m(torch.tensor(x)).backward()
        np.testing.assert_allclose(m.W.grad.numpy(), x.T @ (1 - np.tanh(x @ W) ** 2), rtol=1e-5)
        assert type(m.W.grad) is torch.Tensor and m.W.grad.dtype == torch.float32
    with pytest.raises(RuntimeError, match=r"^`reads_its_parameter` \(.*test_nn_modules.py:\d+\) under @srcgrad.compile "
                                           r"computed with a Tensor that requires grad and is not one of its arguments"):
        m.reads_its_parameter(torch.tensor(x))
