"""`srcgrad.compile` given what PyTorch's `torch.compile` is given: Tensor code runs as
written (same values, same nodes, same gradients as without compile), PyTorch's
keywords and backend names are accepted, and NumPy code keeps srcgrad's meaning."""

import numpy as np
import pytest

import srcgrad as torch
from srcgrad.tensor.compile_front import is_tensor_code, is_tensor_module

F = torch.nn.functional


def _tensor_code(x, w):
    return F.relu(torch.sin(x) * w).sum()


def _numpy_code(x, w):
    return np.sum(np.maximum(np.sin(x) * w, 0.0))


def _methods_only(x):
    return x * 2.0


@pytest.mark.parametrize("options", [{}, {"mode": "reduce-overhead"}, {"fullgraph": True, "dynamic": False},
                                     {"backend": "inductor"}, {"backend": "eager", "options": {"x": 1}}])
def test_tensor_code_runs_as_written(options):
    compiled = torch.compile(_tensor_code, **options)
    assert compiled.__name__ == "_tensor_code"
    x = torch.tensor([0.5, -1.0, 2.0], dtype=torch.float64)
    w = torch.tensor([1.5, 2.0, -0.5], dtype=torch.float64, requires_grad=True)
    y = compiled(x, w)
    assert type(y.grad_fn).__name__ == "SumBackward0"  # the ops' own nodes, not one compiled node
    y.backward()
    s = np.sin([0.5, -1.0, 2.0])
    expected = np.where(s * [1.5, 2.0, -0.5] > 0, s, 0.0)
    np.testing.assert_allclose(w.grad.numpy(), expected, rtol=1e-15)
    assert y.item() == pytest.approx(np.sum(np.maximum(s * [1.5, 2.0, -0.5], 0.0)), rel=1e-15)


def test_decorator_forms():
    @torch.compile(mode="max-autotune")
    def f(x):
        return (x.exp() * torch.cos(x)).sum()

    x = torch.tensor([0.1, 0.2], dtype=torch.float64, requires_grad=True)
    f(x).backward()
    v = np.array([0.1, 0.2])
    np.testing.assert_allclose(x.grad.numpy(), np.exp(v) * (np.cos(v) - np.sin(v)), rtol=1e-15)
    assert torch.compile(_tensor_code, disable=True) is _tensor_code
    assert torch.compile(disable=True)(_numpy_code) is _numpy_code


def test_what_is_tensor_code():
    assert is_tensor_code(_tensor_code)
    assert not is_tensor_code(_numpy_code)
    assert not is_tensor_code(_methods_only)  # reads nothing: srcgrad's compile, which runs it on arrays
    model = torch.nn.Sequential(torch.nn.Linear(2, 3), torch.nn.Tanh())
    assert is_tensor_module(model) and torch.compile(model) is model
    assert not is_tensor_module(_tensor_code)


def test_numpy_code_keeps_the_one_compiled_node():
    compiled = torch.compile(_numpy_code, backend="inductor")
    x = torch.tensor([0.5, -1.0, 2.0], dtype=torch.float64)
    w = torch.tensor([1.5, 2.0, -0.5], dtype=torch.float64, requires_grad=True)
    for _ in range(2):  # the second call runs the generated derivative
        w.grad = None
        y = compiled(x, w)
        assert type(y.grad_fn).__name__ == "_numpy_codeBackward"
        y.backward()
        s = np.sin([0.5, -1.0, 2.0])
        np.testing.assert_allclose(w.grad.numpy(), np.where(s * [1.5, 2.0, -0.5] > 0, s, 0.0), rtol=1e-15)
