"""Values and gradients where the shim and PyTorch 2.13 disagreed (found by
tests/tensor_fuzz.py). The expected numbers were printed by PyTorch once, or follow by
hand, and are written in, so the file needs no PyTorch.
"""

import numpy as np
import pytest

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


# --- what a node keeps: the tensors whose later in-place change breaks backward ---------

F = torch.nn.functional
VERSION_ERROR = "modified by an inplace operation"

# ops whose node keeps no copy of the input's values (PyTorch saves indices, the
# condition, sizes or the result): changing the input afterwards does not break backward
KEEPS_NO_INPUT = {
    "remainder": (lambda x: x % 2.0, [1.0, 1.0, 1.0]),
    "relu": (lambda x: x.relu(), [1.0, 0.0, 1.0]),
    "where": (lambda x: x.where(x > 0, torch.zeros(())), [1.0, 0.0, 1.0]),
    "masked_fill": (lambda x: x.masked_fill(x > 0, 0.0), [0.0, 1.0, 0.0]),
    "index_select": (lambda x: x.index_select(0, torch.tensor([0, 0])), [2.0, 0.0, 0.0]),
    "sort": (lambda x: x.sort()[0], [1.0, 1.0, 1.0]),
    "topk": (lambda x: x.topk(1)[0], [0.0, 0.0, 1.0]),
    "trace": (lambda x: x.reshape(1, -1).trace(), [1.0, 0.0, 0.0]),
}
# ops whose node keeps the input and not the result: changing the result does not
# break backward
KEEPS_NO_RESULT = {
    "softplus": (lambda x: F.softplus(x), [0.5744, 0.3318, 0.7685]),
    "logsigmoid": (lambda x: F.logsigmoid(x), [0.4256, 0.6682, 0.2315]),
    "clamp": (lambda x: x.clamp(min=-0.5, max=0.5), [1.0, 0.0, 0.0]),
    "clamp_min": (lambda x: x.clamp(min=0), [1.0, 0.0, 1.0]),
    "var": (lambda x: x.var(), [0.0333, -0.9667, 0.9333]),
}


def _leaf():
    return torch.tensor([0.3, -0.7, 1.2], requires_grad=True)


@pytest.mark.parametrize("name", sorted(KEEPS_NO_INPUT))
def test_changing_the_input_after_an_op_that_keeps_none_of_it(name):
    op, grad = KEEPS_NO_INPUT[name]
    x = _leaf()
    y = op(x)
    with torch.no_grad():
        x.mul_(2)  # an optimizer step between two backward passes
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), grad, atol=1e-4)


@pytest.mark.parametrize("name", sorted(KEEPS_NO_RESULT))
def test_changing_the_result_of_an_op_that_does_not_keep_it(name):
    op, grad = KEEPS_NO_RESULT[name]
    x = _leaf()
    y = op(x)
    with torch.no_grad():
        y.mul_(1)
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), grad, atol=1e-4)


def test_relu_keeps_its_result_and_gather_its_input():
    x = _leaf()
    y = x.relu()
    y.sub_(1.0)
    with pytest.raises(RuntimeError, match=VERSION_ERROR + r".*output 0 of Relu"):
        y.sum().backward()
    x = _leaf()
    y = x.gather(0, torch.tensor([0, 1]))
    with torch.no_grad():
        x.mul_(2)
    with pytest.raises(RuntimeError, match=VERSION_ERROR):
        y.sum().backward()


def test_softplus_and_logsigmoid_gradients_at_infinity():
    x = torch.tensor([float("inf"), float("-inf")], requires_grad=True)
    F.softplus(x).sum().backward()
    assert x.grad.tolist() == [1.0, 0.0]
    x = torch.tensor([float("inf"), float("-inf")], requires_grad=True)
    F.logsigmoid(x).sum().backward()
    assert x.grad.tolist() == [0.0, 1.0]
