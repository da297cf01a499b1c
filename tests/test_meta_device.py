"""Tensors on the meta device: shapes, dtypes and graph nodes without data, PyTorch's
reprs and errors (stored text from PyTorch 2.13), factories and the default-device
context, modules moved there and back, and a comparison with PyTorch by script."""

import copy

import numpy as np
import pytest

import srcgrad as torch


def M(*size, **kwargs):
    return torch.empty(*size, device="meta", **kwargs)


@pytest.mark.parametrize("make, text", [
    (lambda: M(3, 4), "tensor(..., device='meta', size=(3, 4))"),
    (lambda: M(3, 4, dtype=torch.float64), "tensor(..., device='meta', size=(3, 4), dtype=srcgrad.float64)"),
    (lambda: M(3, dtype=torch.int64), "tensor(..., device='meta', size=(3,), dtype=srcgrad.int64)"),
    (lambda: M(()), "tensor(..., device='meta', size=())"),
    (lambda: M(0), "tensor(..., device='meta', size=(0,))"),
    (lambda: M(3, 4, requires_grad=True), "tensor(..., device='meta', size=(3, 4), requires_grad=True)"),
    (lambda: (M(3, 4, requires_grad=True) * M(4)).sum(), "tensor(..., device='meta', size=(), grad_fn=<SumBackward0>)"),
    (lambda: M(300, 300, dtype=torch.float64, requires_grad=True) * 2,
     "tensor(..., device='meta', size=(300, 300), dtype=srcgrad.float64,\n       grad_fn=<MulBackward0>)"),
    (lambda: M(3, 4) == 1, "tensor(..., device='meta', size=(3, 4), dtype=srcgrad.bool)"),
    (lambda: torch.ones(2, requires_grad=True).to("meta"), "tensor(..., device='meta', size=(2,), grad_fn=<ToCopyBackward0>)"),
])
def test_reprs_are_pytorchs(make, text):
    t = make()
    assert repr(t) == str(t) == text
    assert t.is_meta and repr(t.device) == "device(type='meta')" and str(t.device) == "meta"


@pytest.mark.parametrize("make, shape, dtype", [
    (lambda: M(3, 4) + M(4), (3, 4), torch.float32),
    (lambda: M(2, 3) * M(4, 1, 1), (4, 2, 3), torch.float32),
    (lambda: M(3, dtype=torch.int64) / 2, (3,), torch.float32),
    (lambda: M(3, 4) + M(4, dtype=torch.float64), (3, 4), torch.float64),
    (lambda: M(7, 1, 3, 4) @ M(2, 4, 5), (7, 2, 3, 5), torch.float32),
    (lambda: M(3, 4).sum(1), (3,), torch.float32),
    (lambda: M(3, 4).mean(0, keepdim=True), (1, 4), torch.float32),
    (lambda: M(3, dtype=torch.bool).sum(), (), torch.int64),
    (lambda: M(3, 4).max(1).indices, (3,), torch.int64),
    (lambda: M(3, 4).t().reshape(-1, 6), (2, 6), torch.float32),
    (lambda: torch.cat([M(3, 4), M(2, 4)]), (5, 4), torch.float32),
    (lambda: M(3, 4).softmax(1), (3, 4), torch.float32),
    (lambda: torch.nn.functional.conv2d(M(1, 2, 5, 5), M(3, 2, 3, 3)), (1, 3, 3, 3), torch.float32),
    (lambda: M(10**6, 10**6) @ M(10**6, 10**6), (10**6, 10**6), torch.float32),
    (lambda: (M(10**6, 10**6).exp() + M(10**6)).mean(1, keepdim=True), (10**6, 1), torch.float32),
    (lambda: M(10**6, 10**6).softmax(1).t().reshape(-1), (10**12,), torch.float32),
])
def test_ops_give_meta_results_of_pytorchs_shape_and_dtype(make, shape, dtype):
    t = make()
    assert t.is_meta and tuple(t.shape) == shape and t.dtype == dtype


@pytest.mark.parametrize("action, error, message", [
    (lambda: M(3, 4).item(), RuntimeError, "a Tensor with 12 elements cannot be converted to Scalar"),
    (lambda: M(()).item(), RuntimeError, "Tensor.item() cannot be called on meta tensors"),
    (lambda: float(M(())), RuntimeError, "Tensor.item() cannot be called on meta tensors"),
    (lambda: bool(M(1)), RuntimeError, "Tensor.item() cannot be called on meta tensors"),
    (lambda: M(2).tolist(), NotImplementedError, "Cannot copy out of meta tensor; no data!"),
    (lambda: M(2).cpu(), NotImplementedError, "Cannot copy out of meta tensor; no data!"),
    (lambda: M(2).to("cpu"), NotImplementedError, "Cannot copy out of meta tensor; no data!"),
    (lambda: torch.ones(2).copy_(M(2)), NotImplementedError, "Cannot copy out of meta tensor; no data!"),
    (lambda: M(2).numpy(), TypeError,
     "can't convert meta device type tensor to numpy. Use Tensor.cpu() to copy the tensor to host memory first."),
    (lambda: f"{M(()):.2f}", TypeError, "unsupported format string passed to Tensor.__format__"),
    (lambda: M(3, 4) + torch.ones(3, 4), RuntimeError, "Tensor on device cpu is not on the expected device meta!"),
    (lambda: torch.ones(3) + M(()), RuntimeError, "Tensor on device meta is not on the expected device cpu!"),
    (lambda: M(3, 4) + M(5), RuntimeError,
     "Attempting to broadcast a dimension of length 5 at -1! Mismatching argument at index 1 had srcgrad.Size([5]); "
     "but expected shape should be broadcastable to [3, 4]"),
    (lambda: M(3, 1) + M(2, 5), RuntimeError,
     "Attempting to broadcast a dimension of length 2 at -2! Mismatching argument at index 1 had srcgrad.Size([2, 5]); "
     "but expected shape should be broadcastable to [3, 5]"),
    (lambda: M(3, 4).view(5), RuntimeError, "shape '[5]' is invalid for input of size 12"),
    (lambda: M(3, 4).nonzero(), NotImplementedError, "The register_meta function for torch.nonzero() raises"),
    (lambda: (M(3, 4, requires_grad=True) * 2).backward(torch.ones(3, 4)), RuntimeError,
     "invalid gradient at index 0 - expected device meta but got cpu"),
])
def test_errors_are_pytorchs(action, error, message):
    with pytest.raises(error) as raised:
        action()
    assert str(raised.value).startswith(message)


def test_a_cpu_scalar_goes_with_meta_tensors():
    assert (torch.tensor(2.0) * M(3, 4)).is_meta


def test_backward_gives_meta_gradients():
    a, b = M(3, 4, requires_grad=True), M(4, 2, requires_grad=True)
    (a @ b).relu().mean().backward()
    assert a.grad.is_meta and b.grad.is_meta and a.grad.shape == (3, 4) and b.grad.shape == (4, 2)
    (g,) = torch.autograd.grad((a * 3).sum(), a)
    assert g.is_meta and g.shape == (3, 4)


def test_factories_and_the_default_device():
    assert torch.get_default_device() == torch.device("cpu")
    made = [torch.zeros(2, device="meta"), torch.full((2,), 3.0, device="meta"), torch.arange(5, device="meta"),
            torch.randn(2, device="meta"), torch.tensor([1, 2], device="meta"), torch.zeros_like(M(3)),
            M(3).new_zeros(2), torch.eye(2, device=torch.device("meta"))]
    assert all(t.is_meta for t in made)
    assert [t.dtype for t in made] == [torch.float32] * 2 + [torch.int64, torch.float32, torch.int64] + [torch.float32] * 3
    assert not torch.ones_like(M(3), device="cpu").is_meta
    with torch.device("meta") as dev:
        assert dev == torch.device("meta") and torch.get_default_device() == dev
        assert torch.ones(2).is_meta and torch.tensor([1.0]).is_meta and not torch.ones(2, device="cpu").is_meta
    assert not torch.ones(1).is_meta and torch.get_default_device() == torch.device("cpu")
    torch.set_default_device("meta")
    try:
        assert torch.ones(2).is_meta
    finally:
        torch.set_default_device(None)
    assert not torch.ones(1).is_meta


def test_in_place_writes_into_meta_tensors_change_nothing():
    t = M(3, 4)
    for result in (t.fill_(2), t.zero_(), t.uniform_(), t.add_(1), t.copy_(torch.ones(3, 4))):
        assert result is t and t.is_meta
    t[0] = 1.0
    assert t.is_meta and t.shape == (3, 4)


def test_deepcopy_keeps_the_meta_device():
    t = M(3, 4, requires_grad=True)
    copied = copy.deepcopy(t)
    assert copied.is_meta and copied.requires_grad and copied.is_leaf


def test_modules_move_to_meta_and_get_storage_back_with_to_empty():
    nn = torch.nn

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(3, 2)
            self.norm = nn.BatchNorm1d(2)

        def forward(self, x):
            return self.norm(self.fc(x))

    with torch.device("meta"):
        net = Net()
    assert all(p.is_meta for p in net.parameters()) and net.norm.running_mean.is_meta
    assert repr(net.fc.weight) == "Parameter containing:\ntensor(..., device='meta', size=(2, 3), requires_grad=True)"
    out = net(M(4, 3))
    assert out.is_meta and out.shape == (4, 2)
    weight = net.fc.weight
    assert net.to_empty(device="cpu") is net and net.fc.weight is weight and not weight.is_meta
    net.fc.reset_parameters()
    assert np.all(np.abs(net.fc.weight.detach().numpy()) <= 1 / np.sqrt(3))
    assert net(torch.ones(4, 3)).shape == (4, 2)
    assert nn.Linear(2, 3, device="meta").weight.is_meta
    moved = nn.Linear(2, 3).to("meta")
    assert moved.weight.is_meta and moved.bias.is_meta
    with pytest.raises(RuntimeError, match="Tensor on device meta is not on the expected device cpu!"):
        moved(torch.ones(4, 2))


def test_against_pytorch():
    torch_ = pytest.importorskip("torch")
    for lib in (torch, torch_):
        x = lib.empty(3, 4, device="meta", requires_grad=True)
        y = (x.t() @ lib.empty(3, 5, device="meta")).tanh().sum(0)
        assert tuple(y.shape) == (5,)
    pairs = [
        (lambda T: T.empty(3, 4, device="meta", dtype=T.float64) * 2),
        (lambda T: T.empty(3, 4, device="meta", requires_grad=True).exp().mean()),
        (lambda T: T.empty(2, 3, device="meta", dtype=T.int64) + 1.5),
        (lambda T: T.empty(2, 3, device="meta").sum(1, keepdim=True)),
        (lambda T: T.nn.Linear(3, 2).to("meta").weight),
        (lambda T: T.ones(2, requires_grad=True).to("meta")),
    ]
    for make in pairs:
        ours, theirs = repr(make(torch)), repr(make(torch_))
        assert ours == theirs.replace("torch.", "srcgrad.")
