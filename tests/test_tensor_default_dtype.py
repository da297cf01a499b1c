"""set_default_dtype: the dtype of Python floats in tensors and arithmetic, of creation
functions and parameters, and which dtype a repr leaves out (as PyTorch 2.13)."""

import numpy as np
import pytest

import srcgrad as torch


@pytest.fixture
def float64_default():
    torch.set_default_dtype(torch.float64)
    try:
        yield
    finally:
        torch.set_default_dtype(torch.float32)


def test_float64_default(float64_default):
    assert torch.get_default_dtype() is torch.float64
    assert repr(torch.tensor([1.5, 2.0])) == "tensor([1.5000, 2.0000])"
    assert repr(torch.tensor([1.0], dtype=torch.float32)) == "tensor([1.], dtype=srcgrad.float32)"
    assert repr(torch.tensor([1j, 2])) == "tensor([0.+1.j, 2.+0.j])" and torch.tensor([1j]).dtype == torch.complex128
    assert repr(torch.tensor([1.0 + 1j], dtype=torch.complex64)) == "tensor([1.+1.j], dtype=srcgrad.complex64)"
    assert repr(torch.empty(0, 2)) == "tensor([], size=(0, 2))"
    for made in (torch.zeros(2), torch.ones(2, 1), torch.arange(0.0, 1.0, 0.5), torch.linspace(0, 1, 3), torch.eye(2),
                 torch.full((2,), 1.5), torch.rand(2), torch.randn(2), torch.tensor([1, 2]) * 0.5,
                 torch.tensor([1, 2]) / torch.tensor([2, 4]), torch.tensor([1, 2]).sum() * 1.5, torch.sqrt(torch.tensor([4])),
                 torch.tensor([True]) + 0.5, torch.nn.Linear(2, 1).weight, torch.normal(0.0, 1.0, (2,))):
        assert made.dtype == torch.float64, made
    assert (torch.zeros(2, dtype=torch.float32) + 1.5).dtype == torch.float32  # a number never widens a tensor
    assert torch.arange(3).dtype == torch.int64
    x = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    (x * x).sum().backward()
    assert x.grad.dtype == torch.float64 and x.grad.tolist() == [[2.0, 4.0], [6.0, 8.0]]
    assert np.float64(torch.tensor(0.1).item()) == 0.1  # not rounded through float32


def test_back_to_float32_and_errors():
    torch.set_default_dtype(torch.float16)
    try:
        assert torch.tensor([1.5]).dtype == torch.float16 and repr(torch.tensor([1.5])) == "tensor([1.5000])"
    finally:
        torch.set_default_dtype(torch.float32)
    assert repr(torch.tensor([1.5], dtype=torch.float64)) == "tensor([1.5000], dtype=srcgrad.float64)"
    assert torch.tensor([1.5]).dtype == torch.float32 and torch.tensor([1j]).dtype == torch.complex64
    for bad in (torch.int64, torch.bool, torch.complex64):
        with pytest.raises(TypeError, match="^only floating-point types are supported as the default type$"):
            torch.set_default_dtype(bad)
    with pytest.raises(TypeError, match="^invalid dtype object: only floating-point types are supported as the default"):
        torch.set_default_dtype("float64")
    assert torch.get_default_dtype() is torch.float32
