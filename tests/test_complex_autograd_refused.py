"""The Tensor shim gives no gradient through complex tensors: it refuses to make a tracked
one (PyTorch's complex autograd is not implemented, and the rules' complex gradients are
not PyTorch's: |z*z|'s gradient at 1+2j came back -4.4-0.8j where PyTorch gives 2+4j, and
`x.to(complex64)` or `z.real` dropped the graph silently)."""

import numpy as np
import pytest

import srcgrad as torch
from srcgrad.tensor.dtypes import E_COMPLEX_AUTOGRAD


@pytest.mark.parametrize("make", [
    lambda: torch.tensor(1 + 2j, requires_grad=True),
    lambda: torch.zeros(2, dtype=torch.complex64, requires_grad=True),
    lambda: torch.tensor([1 + 2j]).requires_grad_(),
    lambda: torch.tensor(1.5, requires_grad=True).to(torch.complex64),
    lambda: torch.tensor(1.5, requires_grad=True).type(torch.complex128),
    lambda: torch.tensor(1.5, requires_grad=True) * 1j,
    lambda: torch.tensor([1.5], requires_grad=True) + torch.tensor([1j]),
])
def test_a_tracked_complex_tensor_is_refused(make):
    with pytest.raises(RuntimeError) as err:
        make()
    assert str(err.value) == E_COMPLEX_AUTOGRAD


def test_complex_values_without_grad_and_real_casts_with_grad_still_work():
    x = torch.tensor([1.5, -2.0], requires_grad=True)
    with torch.no_grad():
        z = x.to(torch.complex64) * torch.tensor(1 + 2j)
    assert z.dtype == torch.complex64 and z.tolist() == [1.5 + 3j, -2 - 4j] and not z.requires_grad
    y = x.to(torch.float64)
    assert type(y.grad_fn).__name__ == "ToCopyBackward0"
    (y * y).sum().backward()
    assert x.grad.dtype == torch.float32 and np.array_equal(x.grad.numpy(), np.array([3.0, -4.0], np.float32))
