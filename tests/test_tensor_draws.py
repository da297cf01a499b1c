"""Random draws with PyTorch's signatures (tensor/draws.py): shapes, dtypes, grad_fn
names and errors as PyTorch 2.13 gives them, and the draws' distributions."""

import numpy as np
import pytest

import srcgrad as torch


def _meta(t):
    return str(t.dtype), tuple(t.shape), t.requires_grad, type(t.grad_fn).__name__ if t.grad_fn else None


def test_randperm():
    torch.manual_seed(0)
    p = torch.randperm(50)
    assert _meta(p) == ("srcgrad.int64", (50,), False, None) and sorted(p.tolist()) == list(range(50))
    assert _meta(torch.randperm(5, dtype=torch.float32)) == ("srcgrad.float32", (5,), False, None)
    assert torch.randperm(0).tolist() == []
    with pytest.raises(RuntimeError, match=r"^Trying to create tensor with negative dimension -1: \[-1\]$"):
        torch.randperm(-1)


def test_normal_forms_shapes_and_dtypes():
    m, s = torch.zeros(3, requires_grad=True), torch.ones(3, requires_grad=True)
    assert _meta(torch.normal(0.0, 1.0, size=(2, 3))) == ("srcgrad.float32", (2, 3), False, None)
    assert _meta(torch.normal(0.0, 1.0, (2,), dtype=torch.float64)) == ("srcgrad.float64", (2,), False, None)
    assert _meta(torch.normal(0.0, torch.ones(2, 2))) == ("srcgrad.float32", (2, 2), False, None)
    assert _meta(torch.normal(torch.zeros(2, 1), torch.ones(3))) == ("srcgrad.float32", (2, 3), False, None)
    assert _meta(torch.normal(torch.zeros(3), torch.ones(3, dtype=torch.float64)))[0] == "srcgrad.float32"  # mean's dtype
    assert _meta(torch.normal(torch.zeros(3, dtype=torch.float64), torch.ones(3)))[0] == "srcgrad.float64"
    assert _meta(torch.normal(m, 1.0)) == ("srcgrad.float32", (3,), True, "NormalBackward1")
    assert _meta(torch.normal(0.0, s)) == ("srcgrad.float32", (3,), True, "NormalBackward2")
    assert _meta(torch.normal(m, s)) == ("srcgrad.float32", (3,), True, "NormalBackward3")
    torch.normal(m, s).sum().backward()
    assert m.grad.tolist() == [0.0, 0.0, 0.0] and s.grad.tolist() == [0.0, 0.0, 0.0]  # PyTorch's zero gradients
    with torch.no_grad():
        assert not torch.normal(m, s).requires_grad


def test_normal_moments():
    torch.manual_seed(1)
    x = torch.normal(torch.full((20000,), 2.0, dtype=torch.float64), 3.0).numpy()
    assert abs(x.mean() - 2.0) < 0.1 and abs(x.std() - 3.0) < 0.1


@pytest.mark.parametrize("call,kind,message", [
    (lambda: torch.normal(torch.zeros(3), -1.0), RuntimeError, "normal expects std >= 0.0, but found std -1"),
    (lambda: torch.normal(torch.zeros(3), torch.tensor([1.0, -1.0, 1.0])), RuntimeError,
     "normal expects all elements of std >= 0.0"),
    (lambda: torch.normal(torch.zeros(3), torch.ones(2)), RuntimeError,
     "The size of tensor a (3) must match the size of tensor b (2) at non-singleton dimension 0"),
    (lambda: torch.normal(torch.zeros(3, dtype=torch.long), 1.0), NotImplementedError,
     "\"normal_kernel_cpu\" not implemented for 'Long'"),
    (lambda: torch.bernoulli(torch.full((3,), 1.5)), RuntimeError,
     "Expected p_in >= 0 && p_in <= 1 to be true, but got false.  (Could this error message be improved?  If so, "
     "please report an enhancement request to PyTorch.)"),
    (lambda: torch.bernoulli(torch.tensor([0, 1])), NotImplementedError, "\"bernoulli_tensor_cpu_p_\" not implemented for 'Long'"),
    (lambda: torch.multinomial(torch.tensor([0.1, 0.9]), 4), RuntimeError,
     "cannot sample n_sample > prob_dist.size(-1) samples without replacement"),
    (lambda: torch.multinomial(torch.tensor([-0.1, 0.9]), 1), RuntimeError,
     "probability tensor contains either `inf`, `nan` or element < 0"),
    (lambda: torch.multinomial(torch.tensor([0.0, 0.0]), 1), RuntimeError,
     "invalid multinomial distribution (sum of probabilities <= 0)"),
    (lambda: torch.multinomial(torch.tensor([1, 2]), 1), RuntimeError, "multinomial only supports floating-point dtypes for input, got: Long"),
    (lambda: torch.poisson(torch.tensor([-1.0])), RuntimeError, "invalid Poisson rate, expected rate to be non-negative"),
    (lambda: torch.zeros(3).bernoulli_(2.0), RuntimeError, "bernoulli_ expects p to be in [0, 1], but got p=2"),
    (lambda: torch.zeros(3).exponential_(-1.0), RuntimeError, "exponential_ expects lambda > 0.0, but found lambda=-1"),
    (lambda: torch.zeros(3, dtype=torch.long).exponential_(), RuntimeError,
     "Exponential distribution is a continuous probability distribution. dtype must be a floating point but you "
     "specified Long"),
    (lambda: torch.zeros(3).random_(5, 2), RuntimeError, "random_ expects 'from' to be less than 'to', but got from=5 >= to=2"),
])
def test_errors(call, kind, message):
    with pytest.raises(kind) as info:
        call()
    assert str(info.value) == message


def test_bernoulli_poisson_and_their_nodes():
    torch.manual_seed(2)
    b = torch.bernoulli(torch.full((20000,), 0.3, dtype=torch.float64))
    assert b.dtype == torch.float64 and set(b.tolist()) == {0.0, 1.0} and abs(b.mean().item() - 0.3) < 0.02
    x = torch.rand(3, requires_grad=True)
    assert _meta(torch.bernoulli(x)) == ("srcgrad.float32", (3,), True, "BernoulliBackward0")
    assert _meta(torch.bernoulli(x, 0.3)) == ("srcgrad.float32", (3,), True, "NotImplemented")
    torch.bernoulli(x).sum().backward()
    assert x.grad.tolist() == [0.0, 0.0, 0.0]
    p = torch.poisson(torch.full((20000,), 4.0, dtype=torch.float64))
    assert p.dtype == torch.float64 and abs(p.mean().item() - 4.0) < 0.1 and abs(p.var().item() - 4.0) < 0.3
    assert _meta(torch.poisson(x)) == ("srcgrad.float32", (3,), True, "PoissonBackward0")


def test_multinomial():
    torch.manual_seed(3)
    w = torch.tensor([1.0, 3.0, 0.0, 4.0])
    draws = torch.multinomial(w, 40000, replacement=True)
    assert _meta(draws) == ("srcgrad.int64", (40000,), False, None)
    assert np.allclose(np.bincount(draws.numpy(), minlength=4) / 40000, [0.125, 0.375, 0.0, 0.5], atol=0.01)
    rows = torch.multinomial(torch.tensor([[0.1, 0.9], [1.0, 0.0]]), 1)
    assert tuple(rows.shape) == (2, 1) and rows[1].item() == 0
    order = torch.multinomial(torch.tensor([0.5, 0.0, 0.5]), 3)  # without replacement: weight 0 comes last
    assert order[2].item() == 1 and sorted(order.tolist()) == [0, 1, 2]
    firsts = [torch.multinomial(w, 2)[0].item() for _ in range(4000)]
    assert np.allclose(np.bincount(firsts, minlength=4) / 4000, [0.125, 0.375, 0.0, 0.5], atol=0.03)
    assert not torch.multinomial(torch.rand(3, requires_grad=True), 2).requires_grad


def test_in_place_draws():
    torch.manual_seed(4)
    t = torch.zeros(1000)
    assert t.bernoulli_(0.5) is t and set(t.tolist()) == {0.0, 1.0}
    assert set(torch.zeros(1000).random_(0, 3).tolist()) == {0.0, 1.0, 2.0}
    assert set(torch.zeros(1000, dtype=torch.long).random_(3).tolist()) == {0, 1, 2}
    e = torch.zeros(20000, dtype=torch.float64).exponential_(2.0)
    assert e.min().item() >= 0 and abs(e.mean().item() - 0.5) < 0.02
    t.bernoulli_(torch.full((1000,), 0.2, dtype=torch.float64))
    assert abs(t.mean().item() - 0.2) < 0.06
    x, w = torch.ones(3, requires_grad=True), torch.ones(3)
    z = (x * w).sum()
    w.exponential_()  # w is saved by z's node: its backward must see the write
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        z.backward()
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used in an in-place operation."):
        torch.zeros(3, requires_grad=True).bernoulli_(0.5)
