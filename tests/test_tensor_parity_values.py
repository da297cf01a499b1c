"""Values and gradients where the shim and PyTorch 2.13 disagreed (found by
tests/tensor_fuzz.py). The expected numbers were printed by PyTorch once, or follow by
hand, and are written in, so the file needs no PyTorch.
"""

import numpy as np

import srcgrad as torch


# --- sign: PyTorch's (0 < x) - (x < 0), so nan gives 0 ---------------------------------


def test_sign_of_nan_is_zero():
    x = torch.tensor([float("nan"), -2.0, 0.0, -0.0, 3.0], requires_grad=True)
    y = x.sign()
    assert y.tolist() == [0.0, -1.0, 0.0, 0.0, 1.0]
    assert type(y.grad_fn).__name__ == "SignBackward0"
    assert torch.sign(torch.tensor(float("nan"), dtype=torch.float64)).item() == 0.0


def test_sign_of_ints_and_bools():
    assert torch.tensor([3, -2, 0]).sign().tolist() == [1, -1, 0]
    b = torch.tensor([True, False]).sign()
    assert b.dtype == torch.bool and b.tolist() == [True, False]


# --- c / x is PyTorch's x.reciprocal() * c ------------------------------------------------


def test_number_over_tensor_is_reciprocal_times_number():
    x = torch.tensor([-2.88, 1.5], requires_grad=True)
    y = 2 / x
    assert type(y.grad_fn).__name__ == "MulBackward0"
    assert [type(f).__name__ if f else None for f, _ in y.grad_fn.next_functions] == ["ReciprocalBackward0", None]
    # rounded twice, as PyTorch: 1/x in float32, then times 3
    a = np.linspace(0.1, 10, 101, dtype=np.float32)
    expected = np.reciprocal(a) * np.float32(3)
    np.testing.assert_array_equal((3 / torch.tensor(a)).numpy(), expected)


def test_number_over_tensor_backward_ignores_writes_through_data():
    # the reciprocal's saved result is its own; a write into y.data does not reach it
    x = torch.tensor([-2.88, 1.5], requires_grad=True)
    y = 2 / x
    y.data += 1
    y.log10().sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [-0.3427, -0.1654], atol=1e-4)


def test_number_over_int_and_bool_tensors():
    assert (2 / torch.tensor([2, -4])).tolist() == [1.0, -0.5]
    y = 1 / torch.tensor([True, False])
    assert y.dtype == torch.float32 and y.tolist() == [1.0, float("inf")]
