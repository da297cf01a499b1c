"""hardswish, hardsigmoid, threshold, softshrink, hardshrink, prelu, glu and softmin
(functions and modules), as in PyTorch: values against closed forms, gradients and
second derivatives against central differences in float64, PyTorch's node names,
breakpoint gradients, reprs and errors; compared with PyTorch itself where installed."""

import re

import numpy as np
import pytest

import srcgrad as torch
from tensor_checks import check_against_differences, check_second_against_differences

F, nn = torch.nn.functional, torch.nn
# no entry at a breakpoint (-3, 3, +-0.5, 0.1), where differences straddle the kink
XS = np.array([-4.5, -2.5, -1.2, -0.3, 0.2, 0.45, 0.7, 1.7, 2.9, 3.5])


def raises(exc, message):
    return pytest.raises(exc, match="^" + re.escape(message) + "$")


def _relu6(v):
    return np.clip(v, 0, 6)


CASES = {  # name: (function, closed form, node name)
    "hardswish": (F.hardswish, lambda v: v * _relu6(v + 3) / 6, "HardswishBackward0"),
    "hardsigmoid": (F.hardsigmoid, lambda v: _relu6(v + 3) / 6, "HardsigmoidBackward0"),
    "threshold": (lambda x: F.threshold(x, 0.1, 20.0), lambda v: np.where(v > 0.1, v, 20.0), "ThresholdBackward0"),
    "softshrink": (F.softshrink, lambda v: np.where(v > 0.5, v - 0.5, np.where(v < -0.5, v + 0.5, 0)),
                   "SoftshrinkBackward0"),
    "hardshrink": (lambda x: F.hardshrink(x, 1.0), lambda v: np.where(np.abs(v) > 1.0, v, 0), "HardshrinkBackward0"),
    "softmin": (lambda x: F.softmin(x, 0), lambda v: np.exp(-v) / np.exp(-v).sum(), "SoftmaxBackward0"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_values_node_names_gradients_and_second_derivatives(name):
    fn, closed, node = CASES[name]
    x = torch.tensor(XS, requires_grad=True)
    y = fn(x)
    assert y.grad_fn.name() == node and y.dtype == torch.float64 and y.shape == (10,)
    np.testing.assert_allclose(y.detach().numpy(), closed(XS), rtol=1e-14, atol=1e-300)
    check_against_differences(fn, [XS.copy()])
    check_second_against_differences(fn, [XS.copy()])
    assert fn(torch.tensor(XS, dtype=torch.float32)).dtype == torch.float32
    assert np.array_equal(x.detach().numpy(), XS)


def test_gradients_at_the_breakpoints_are_pytorchs():
    """PyTorch's kernels: hardswish's gradient is 0 at -3 and 1 at 3, hardsigmoid's 1/6
    strictly inside (-3, 3) only (PyTorch's is 1/6 rounded to float32), softshrink's and
    hardshrink's 0 at +-lambd, threshold's 0 at the threshold."""
    x = torch.tensor([-3.0, 3.0, -0.5, 0.5, 0.1], dtype=torch.float64, requires_grad=True)
    grads = []
    for fn in (F.hardswish, F.hardsigmoid, F.softshrink, F.hardshrink, lambda t: F.threshold(t, 0.1, 2.0)):
        (g,) = torch.autograd.grad(fn(x).sum(), x)
        grads.append(g.tolist())
    expected = [[0.0, 1.0, 2 / 6, 4 / 6, 3.2 / 6], [0.0, 0.0, 1 / 6, 1 / 6, 1 / 6], [1.0, 1.0, 0.0, 0.0, 0.0],
                [1.0, 1.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 1.0, 0.0]]
    for got, want in zip(grads, expected):
        assert got == pytest.approx(want, rel=1e-15, abs=0)


def test_prelu_one_weight_or_one_per_channel():
    x = np.random.default_rng(0).standard_normal((4, 3, 2))
    w = np.array([0.25, -0.5, 2.0])
    y = F.prelu(torch.tensor(x), torch.tensor(w))
    assert y.dtype == torch.float64 and y.shape == (4, 3, 2)
    np.testing.assert_allclose(y.numpy(), np.where(x > 0, x, w[:, None] * x), rtol=1e-15)
    check_against_differences(F.prelu, [x, w])
    check_against_differences(F.prelu, [x, np.array([0.1])])
    xt, wt = torch.tensor(x, requires_grad=True), torch.tensor(w, requires_grad=True)
    assert F.prelu(xt, wt).grad_fn.name() == "PreluKernelBackward0"
    with raises(RuntimeError, "Mismatch of parameter numbers and input channel size. Found parameter numbers = 2 "
                              "and channel size = 3."):
        F.prelu(xt, torch.ones(2, dtype=torch.float64))
    with raises(RuntimeError, "prelu: Type promoting not supported. Got Double and Float"):
        F.prelu(xt, torch.ones(1))


def test_glu_halves_along_dim():
    x = np.random.default_rng(1).standard_normal((3, 4, 6))
    y = F.glu(torch.tensor(x))
    np.testing.assert_allclose(y.numpy(), x[..., :3] / (1 + np.exp(-x[..., 3:])), rtol=1e-14)
    assert y.shape == (3, 4, 3) and F.glu(torch.tensor(x, requires_grad=True), 1).grad_fn.name() == "GluBackward0"
    check_against_differences(lambda t: F.glu(t, 1), [x])
    check_second_against_differences(F.glu, [x[:1]])
    with raises(RuntimeError, "Halving dimension must be even, but dimension 1 is size 5"):
        F.glu(torch.ones(3, 5))
    with raises(RuntimeError, "glu does not support scalars because halving size must be even"):
        F.glu(torch.tensor(1.0))


def test_errors():
    with raises(RuntimeError, "lambda must be in range [0, 3.40282e+38] for input dtype Float, but found -1"):
        F.softshrink(torch.ones(2), -1.0)
    with raises(NotImplementedError, "\"hardswish_cpu\" not implemented for 'Long'"):
        F.hardswish(torch.tensor([1, 2]))


def test_inplace_forms_write_into_the_input():
    base = torch.tensor([-4.0, 0.5, 4.0], requires_grad=True)
    x = base * 1
    out = F.hardswish(x, inplace=True)
    assert out is x and x.tolist() == pytest.approx([0.0, 0.5 * 3.5 / 6, 4.0])
    out.sum().backward()
    assert base.grad.tolist() == pytest.approx([0.0, 4 / 6, 1.0])
    t = torch.tensor([0.0, 1.0])
    assert nn.Threshold(0.5, -1.0, inplace=True)(t) is t and t.tolist() == [-1.0, 1.0]


def test_modules_print_and_compute_as_their_functions():
    mods = [nn.Hardswish(), nn.Hardsigmoid(), nn.Threshold(0.1, 20), nn.Threshold(0.1, 2.0, inplace=True),
            nn.Softshrink(), nn.Hardshrink(0.25), nn.GLU(), nn.Softmin(dim=1), nn.PReLU(), nn.PReLU(3, init=0.1)]
    assert [repr(m) for m in mods] == [
        "Hardswish()", "Hardsigmoid()", "Threshold(threshold=0.1, value=20)", "Threshold(threshold=0.1, value=2.0, "
        "inplace=True)", "Softshrink(0.5)", "Hardshrink(0.25)", "GLU(dim=-1)", "Softmin(dim=1)",
        "PReLU(num_parameters=1)", "PReLU(num_parameters=3)"]
    prelu = nn.PReLU(3, init=0.1)
    assert [(n, p.shape, p.dtype) for n, p in prelu.named_parameters()] == [("weight", (3,), torch.float32)]
    assert prelu.weight.tolist() == pytest.approx([0.1] * 3)
    x = torch.tensor(np.linspace(-4, 4, 12, dtype=np.float32).reshape(2, 3, 2))
    np.testing.assert_allclose(prelu(x).detach().numpy(), np.where(x.numpy() > 0, x.numpy(), 0.1 * x.numpy()),
                               rtol=1e-6)
    assert nn.Softmin(1)(x).tolist() == F.softmin(x, 1).tolist() and nn.GLU(1)(torch.ones(2, 4)).shape == (2, 2)
    prelu(x).sum().backward()
    np.testing.assert_allclose(prelu.weight.grad.numpy(), np.minimum(x.numpy(), 0).sum((0, 2)), rtol=1e-6)


def _pytorch_run(lib, name, x, w):
    nnf = lib.nn.functional
    calls = {"hardswish": lambda t: nnf.hardswish(t), "threshold": lambda t: nnf.threshold(t, 0.1, 20.0),
             "softshrink": lambda t: nnf.softshrink(t, 0.3), "hardshrink": lambda t: nnf.hardshrink(t),
             "softmin": lambda t: nnf.softmin(t, 1), "glu": lambda t: nnf.glu(t, 1),
             "prelu": lambda t: nnf.prelu(t, wt)}
    xt = lib.tensor(x, requires_grad=True)
    wt = lib.tensor(w, requires_grad=True)
    y = calls[name](xt)
    grads = lib.autograd.grad((y * y).sum(), [xt, wt], create_graph=True, allow_unused=True)
    total = sum(g.sum() for g in grads if g is not None and g.requires_grad)
    second = lib.autograd.grad(total, [xt, wt], allow_unused=True)
    arrays = [y.detach().numpy()] + [np.zeros(1) if g is None else g.detach().numpy() for g in grads + second]
    return type(y.grad_fn).__name__, arrays


@pytest.mark.parametrize("name", ["hardswish", "threshold", "softshrink", "hardshrink", "softmin", "glu", "prelu"])
def test_against_pytorch(name):
    real = pytest.importorskip("torch")
    x = np.random.default_rng(2).standard_normal((3, 4, 2)) * 3
    x[0, 0] = [-3.0, 3.0]
    w = np.array([0.25, -0.5, 2.0, 0.1])
    mine, theirs = _pytorch_run(torch, name, x, w), _pytorch_run(real, name, x, w)
    assert mine[0] == theirs[0]
    for a, b in zip(mine[1], theirs[1]):
        np.testing.assert_allclose(a, b, rtol=1e-13, atol=1e-15)
