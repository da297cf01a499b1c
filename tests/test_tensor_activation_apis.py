"""CELU, SELU, Mish, Softsign, Tanhshrink (modules and functions), torch.diag,
Tensor.masked_fill_ and autograd.function.once_differentiable, as in PyTorch: values
against closed forms, gradients and second derivatives (create_graph) against closed
forms and central differences in float64, PyTorch's node names and errors; compared
with PyTorch itself where it is installed."""

import numpy as np
import pytest

import srcgrad as torch
from srcgrad.autograd.function import once_differentiable

F = torch.nn.functional
_F64 = torch.float64
# away from 0, where ELU's second derivative is a one-sided choice
XS = np.array([-30.0, -2.5, -1.0, -0.3, 0.4, 1.0, 3.0, 25.0])
_ALPHA, _SCALE = 1.6732632423543772848170429916717, 1.0507009873554804934193349852946


def _softplus(v):
    return np.logaddexp(0, v)


CASES = {  # name: (function, closed form, node name)
    "celu": (F.celu, lambda v: np.where(v > 0, v, np.expm1(v)), "CeluBackward0"),
    "celu2": (lambda x: F.celu(x, alpha=2.0), lambda v: np.where(v > 0, v, 2 * np.expm1(v / 2)), "CeluBackward0"),
    "selu": (F.selu, lambda v: _SCALE * np.where(v > 0, v, _ALPHA * np.expm1(v)), "EluBackward0"),
    "mish": (F.mish, lambda v: v * np.tanh(_softplus(v)), "MishBackward0"),
    "softsign": (F.softsign, lambda v: v / (1 + np.abs(v)), "DivBackward0"),
    "tanhshrink": (F.tanhshrink, lambda v: v - np.tanh(v), "SubBackward0"),
}


def _derivative(f, v, eps=1e-5):
    return (f(v + eps) - f(v - eps)) / (2 * eps)


@pytest.mark.parametrize("name", sorted(CASES))
def test_values_gradients_and_second_derivatives(name):
    fn, closed, node = CASES[name]
    x = torch.tensor(XS, dtype=_F64, requires_grad=True)
    y = fn(x)
    assert y.grad_fn.name() == node and y.dtype == _F64 and y.shape == (8,)
    np.testing.assert_allclose(y.detach().numpy(), closed(XS), rtol=1e-14, atol=1e-300)
    (g,) = torch.autograd.grad(y.sum(), x, create_graph=True)
    (h,) = torch.autograd.grad(g.sum(), x)
    np.testing.assert_allclose(g.detach().numpy(), _derivative(closed, XS), rtol=1e-8, atol=1e-9)
    np.testing.assert_allclose(h.numpy(), _derivative(lambda v: _derivative(closed, v, 1e-4), XS, 1e-4),
                               rtol=1e-5, atol=1e-6)
    assert np.array_equal(x.detach().numpy(), XS)


def test_closed_form_derivatives():
    x = torch.tensor([-1.5, 0.5], dtype=_F64, requires_grad=True)
    (g,) = torch.autograd.grad(F.softsign(x).sum(), x, create_graph=True)
    (h,) = torch.autograd.grad(g.sum(), x)
    v = np.array([-1.5, 0.5])
    np.testing.assert_allclose(g.detach().numpy(), 1 / (1 + np.abs(v)) ** 2, rtol=1e-15)
    np.testing.assert_allclose(h.numpy(), -2 * np.sign(v) / (1 + np.abs(v)) ** 3, rtol=1e-15)
    (g,) = torch.autograd.grad(F.celu(x, 2.0).sum(), x)
    np.testing.assert_allclose(g.numpy(), [np.exp(-0.75), 1.0], rtol=1e-15)


def test_modules_and_in_place_forms():
    assert [repr(m) for m in (torch.nn.CELU(), torch.nn.CELU(2.0, True), torch.nn.SELU(), torch.nn.Mish(),
                              torch.nn.Softsign(), torch.nn.Tanhshrink())] == [
        "CELU(alpha=1.0)", "CELU(alpha=2.0, inplace=True)", "SELU()", "Mish()", "Softsign()", "Tanhshrink()"]
    for module, fn in [(torch.nn.CELU(0.5), lambda x: F.celu(x, 0.5)), (torch.nn.SELU(), F.selu),
                       (torch.nn.Mish(), F.mish), (torch.nn.Softsign(), F.softsign), (torch.nn.Tanhshrink(), F.tanhshrink)]:
        x = torch.tensor(XS, dtype=_F64)
        assert np.array_equal(module(x).numpy(), fn(x).numpy())
    x = torch.tensor([-1.0, 2.0], dtype=_F64, requires_grad=True)
    y = x * 1
    out = torch.nn.SELU(inplace=True)(y)
    assert out is y and y.grad_fn.name() == "EluBackward1"  # the in-place overload, as PyTorch
    (g,) = torch.autograd.grad(y.sum(), x)
    np.testing.assert_allclose(g.numpy(), [_SCALE * _ALPHA * np.exp(-1.0), _SCALE], rtol=1e-15)
    with pytest.raises(RuntimeError, match="alpha cannot be 0 for CELU"):
        F.celu(x, 0.0)


def test_diag():
    v = torch.tensor([1.0, 2.0, 3.0], dtype=_F64, requires_grad=True)
    m = torch.tensor(np.arange(1.0, 10.0).reshape(3, 3), dtype=_F64, requires_grad=True)
    d = torch.diag(v, -1)
    assert d.shape == (4, 4) and d.grad_fn.name() == "DiagEmbedBackward0"
    assert np.array_equal(d.detach().numpy(), np.diag([1.0, 2.0, 3.0], -1))
    (g,) = torch.autograd.grad((d * d).sum(), v, create_graph=True)
    assert g.grad_fn.name() == "DiagonalBackward0" and g.tolist() == [2.0, 4.0, 6.0]
    (h,) = torch.autograd.grad((g * g).sum(), v)
    assert h.tolist() == [8.0, 16.0, 24.0]
    e = m.diag(1)
    assert e.tolist() == [2.0, 6.0] and e.grad_fn.name() == "DiagonalBackward0_copy"
    (g,) = torch.autograd.grad((e * e).sum(), m, create_graph=True)
    assert g.grad_fn.name() == "DiagonalBackwardBackward0"
    assert np.array_equal(g.detach().numpy(), [[0, 4, 0], [0, 0, 12], [0, 0, 0]])
    (h,) = torch.autograd.grad((g * g).sum(), m)
    assert np.array_equal(h.numpy(), [[0, 16, 0], [0, 0, 48], [0, 0, 0]])
    with torch.no_grad():
        e.add_(1)  # a copy: the matrix keeps its values
    assert m.detach().numpy()[0, 1] == 2.0
    assert torch.diag(torch.tensor([1, 2])).dtype == torch.int64
    for bad, dims in [(torch.tensor(1.0), 0), (torch.ones(2, 2, 2), 3)]:
        with pytest.raises(RuntimeError, match=f"diag\\(\\): Supports 1D or 2D tensors. Got {dims}D"):
            torch.diag(bad)


def test_masked_fill_in_place():
    x = torch.tensor(np.arange(6.0).reshape(2, 3) - 2, dtype=_F64, requires_grad=True)
    y = x * 1
    mask = torch.tensor([True, False, True])
    assert y.masked_fill_(mask, 5.0) is y
    assert y.grad_fn.name() == "MaskedFillBackward0"
    assert np.array_equal(y.detach().numpy(), [[5, -1, 5], [5, 2, 5]])
    (g,) = torch.autograd.grad((y * y * x).sum(), x, create_graph=True)
    (h,) = torch.autograd.grad(g.sum(), x)
    xv = np.arange(6.0).reshape(2, 3) - 2
    keep = np.array([0.0, 1.0, 0.0])
    np.testing.assert_array_equal(g.detach().numpy(), 3 * xv**2 * keep + 25 * (1 - keep))
    np.testing.assert_array_equal(h.numpy(), 6 * xv * keep)
    z = torch.zeros(2, 3, dtype=torch.int64)
    z.masked_fill_(z == 0, 7)
    assert z.tolist() == [[7, 7, 7], [7, 7, 7]] and z.dtype == torch.int64
    with pytest.raises(RuntimeError, match=r"size of tensor a \(2\) must match the size of tensor b \(3\) at non-singleton dimension 0"):
        x.detach().clone().masked_fill_(torch.ones(3, 3).bool(), 1.0)
    with pytest.raises(RuntimeError, match=r"output with shape \[2, 3\] doesn't match the broadcast shape \[2, 2, 3\]"):
        x.detach().clone().masked_fill_(torch.ones(2, 2, 3).bool(), 1.0)
    with pytest.raises(RuntimeError, match="masked_fill_ only supports boolean masks, but got mask with dtype long int"):
        x.detach().clone().masked_fill_(torch.tensor([1, 0, 1]), 1.0)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
        x.masked_fill_(mask, 1.0)


class _Square(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return a * a

    @staticmethod
    @once_differentiable
    def backward(ctx, g):
        (a,) = ctx.saved_tensors
        assert not torch.is_grad_enabled()
        return 2 * a * g


def test_once_differentiable():
    x = torch.tensor([1.0, 2.0], dtype=_F64, requires_grad=True)
    (g,) = torch.autograd.grad(_Square.apply(x).sum(), x, create_graph=True)
    assert g.tolist() == [2.0, 4.0] and g.grad_fn is None  # the incoming gradient needs no grad
    (g,) = torch.autograd.grad((_Square.apply(x) ** 2).sum(), x, create_graph=True)
    assert g.tolist() == [4.0, 32.0] and g.requires_grad and g.grad_fn.name() == "Error"
    with pytest.raises(RuntimeError, match="trying to differentiate twice a function that was marked with @once_differentiable"):
        g.sum().backward()
    assert _Square.backward.__name__ == "backward"


def _second_order(lib, name):
    x = lib.tensor(XS, dtype=lib.float64, requires_grad=True)
    y = getattr(lib.nn.functional, name)(x)
    (g,) = lib.autograd.grad((y * y).sum(), x, create_graph=True)
    (h,) = lib.autograd.grad(g.sum(), x)
    return type(y.grad_fn).__name__, [y.detach().numpy(), g.detach().numpy(), h.numpy()]


@pytest.mark.parametrize("name", ["celu", "selu", "mish", "softsign", "tanhshrink"])
def test_against_pytorch(name):
    real = pytest.importorskip("torch")
    mine, theirs = _second_order(torch, name), _second_order(real, name)
    assert mine[0] == theirs[0]
    for a, b in zip(mine[1], theirs[1]):
        np.testing.assert_allclose(a, b, rtol=1e-13, atol=1e-300)


def test_masked_fill_with_a_value_tensor_that_requires_grad_gives_it_the_filled_entries_gradient():
    """PyTorch's MaskedFillBackward1: the value gets the sum of the gradient where the mask
    is True (it was read as a number, and got no gradient); a value of another dtype keeps
    its own for its gradient; a value of one or more dims is refused."""
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    v = torch.tensor(5.0, requires_grad=True)
    mask = torch.tensor([True, False, True])
    y = x.masked_fill(mask, v)
    assert y.grad_fn.name() == "MaskedFillBackward1" and y.tolist() == [5.0, 2.0, 5.0]
    (y * torch.tensor([1.0, 2.0, 3.0])).sum().backward()
    assert x.grad.tolist() == [0.0, 2.0, 0.0] and v.grad.item() == 4.0
    wide = torch.tensor(5.0, dtype=torch.float64, requires_grad=True)
    y = torch.tensor([1.0, 2.0, 3.0], requires_grad=True).masked_fill(mask, wide)
    assert y.dtype == torch.float32
    y.sum().backward()
    assert wide.grad.dtype == torch.float64 and wide.grad.item() == 2.0
    z = x * 1
    z.masked_fill_(mask, v)
    z.sum().backward()
    assert z.grad_fn.name() == "MaskedFillBackward1" and v.grad.item() == 6.0
    with pytest.raises(RuntimeError, match=r"^masked_fill_ only supports a 0-dimensional value tensor, but got "
                                           r"tensor with 1 dimension\(s\).$"):
        x.masked_fill(mask, torch.tensor([1.0, 2.0, 3.0], requires_grad=True))


@pytest.mark.parametrize("alpha", [1.0, 1.5])
def test_elu_second_derivative_at_zero_takes_the_branch_of_its_first(alpha):
    """elu's derivative is alpha * exp(x) for x <= 0 (PyTorch's convention at 0); its own
    derivative there is alpha too. The rule's exp(minimum(x, 0)) split the tie: alpha / 2."""
    x = torch.tensor([-1.0, 0.0, 0.5], dtype=torch.float64, requires_grad=True)
    g, = torch.autograd.grad(torch.nn.functional.elu(x, alpha=alpha).sum(), x, create_graph=True)
    h, = torch.autograd.grad(g.sum(), x)
    np.testing.assert_allclose(g.tolist(), [alpha * np.exp(-1.0), alpha, 1.0], rtol=1e-15)
    np.testing.assert_allclose(h.tolist(), [alpha * np.exp(-1.0), alpha, 0.0], rtol=1e-15)
