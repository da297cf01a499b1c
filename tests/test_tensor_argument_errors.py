"""The Tensor shim refuses wrong arguments with PyTorch 2.13's exception types and
messages (tensor-spec.md §0), where it accepted them silently (a float size truncated,
an empty `arange` for a step of the wrong sign, a `retain_grad` that retains nothing)
or let NumPy's error through."""

import numpy as np
import pytest

import srcgrad as torch


@pytest.mark.parametrize("call, error, message", [
    # accepted before: the size truncated to an int
    (lambda: torch.ones(2.5), TypeError, "ones(): argument 'size' (position 1) must be tuple of ints, not float"),
    (lambda: torch.ones(True), TypeError, "ones(): argument 'size' (position 1) must be tuple of ints, not bool"),
    (lambda: torch.randn(2.5), TypeError, "randn(): argument 'size' (position 1) must be tuple of ints, not float"),
    (lambda: torch.ones(2, 2.5), TypeError,
     "ones(): argument 'size' failed to unpack the object at pos 2 with error \"type must be tuple of ints,but got float\""),
    (lambda: torch.zeros((2, 2.5)), TypeError,
     "zeros(): argument 'size' failed to unpack the object at pos 2 with error \"type must be tuple of ints,but got float\""),
    (lambda: torch.full(3, 1.0), TypeError, "full(): argument 'size' (position 1) must be tuple of ints, not int"),
    (lambda: torch.arange(5, 0), RuntimeError, "upper bound and lower bound inconsistent with step sign"),
    (lambda: torch.arange(0, 5, -1), RuntimeError, "upper bound and lower bound inconsistent with step sign"),
    # NumPy's or Python's error before
    (lambda: torch.ones("a"), TypeError, "ones(): argument 'size' (position 1) must be tuple of ints, not str"),
    (lambda: torch.ones(2, -3), RuntimeError, "Trying to create tensor with negative dimension -3: [2, -3]"),
    (lambda: torch.randn(-1), RuntimeError, "Trying to create tensor with negative dimension -1: [-1]"),
    (lambda: torch.zeros((2, -1)), RuntimeError, "zeros: Dimension size must be non-negative."),
    (lambda: torch.eye(-1), RuntimeError, "n must be greater or equal to 0, got -1"),
    (lambda: torch.eye(2, -1), RuntimeError, "m must be greater or equal to 0, got -1"),
    (lambda: torch.eye(2.5), TypeError, "eye(): argument 'n' (position 1) must be int, not float"),
    (lambda: torch.arange(0, 5, 0), RuntimeError, "step must be nonzero"),
    (lambda: torch.linspace(0, 1, -1), RuntimeError, "number of steps must be non-negative"),
    (lambda: torch.randint(5, 2, (2,)), RuntimeError,
     "random_ expects 'from' to be less than 'to', but got from=5 >= to=2"),
    (lambda: torch.tensor([[1.0, 2.0], [1.0]]), ValueError, "expected sequence of length 2 at dim 1 (got 1)"),
    (lambda: torch.tensor([[1.0], ["a"]]), TypeError, "new(): invalid data type 'str'"),
    (lambda: torch.tensor(["a"]), ValueError, "too many dimensions 'str'"),
    (lambda: torch.tensor("a"), TypeError, "new(): invalid data type 'str'"),
    (lambda: torch.tensor(None), RuntimeError, "Could not infer dtype of NoneType"),
])
def test_constructors_refuse_sizes_and_data_as_pytorch_does(call, error, message):
    with pytest.raises(error) as info:
        call()
    assert str(info.value) == message


def test_valid_sizes_still_make_tensors():
    assert torch.ones(np.int64(2), 3).shape == (2, 3)
    assert torch.zeros([2, 0]).shape == (2, 0)
    assert torch.full((2,), 1.5).tolist() == [1.5, 1.5]
    assert torch.arange(0, -5, -1).tolist() == [0, -1, -2, -3, -4]
    assert torch.arange(5, 5).shape == (0,)
    assert torch.eye(0).shape == (0, 0)


@pytest.mark.parametrize("call, error, message", [
    (lambda: torch.ones(3).gather(0, torch.tensor([0.0])), RuntimeError,
     "gather(): Expected dtype int32/int64 for index"),  # named index_select before
    (lambda: torch.ones(3).index_select(0, torch.tensor([0.0])), RuntimeError,
     "index_select(): Expected dtype int32 or int64 for index"),
    (lambda: torch.ones(3).index_select(0, torch.tensor([0], dtype=torch.int16)), RuntimeError,
     "index_select(): Expected dtype int32 or int64 for index"),  # accepted before
    (lambda: torch.ones(3)[torch.tensor([0.5])], IndexError,
     "tensors used as indices must be long, int, byte or bool tensors"),
    (lambda: torch.ones(2, 3).permute(0), RuntimeError,
     "permute(sparse_coo): number of dimensions in the tensor input does not match the length of the desired "
     "ordering of dimensions i.e. input.dim() = 2 is not equal to len(dims) = 1"),
    (lambda: torch.ones(2, 3).permute(0, 0), RuntimeError, "permute(): duplicate dims are not allowed."),
    (lambda: torch.ones(2, 3).permute(0, 2), IndexError,
     "Dimension out of range (expected to be in range of [-2, 1], but got 2)"),
    (lambda: torch.where(torch.ones(2) > 0, torch.ones(3), torch.ones(2)), RuntimeError,
     "The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 0"),
    (lambda: torch.ones(3).masked_fill(torch.tensor([True, False]), 0.0), RuntimeError,
     "The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 0"),
    (lambda: torch.ones(2).type("foo"), ValueError, "invalid type: 'foo'"),
    (lambda: torch.ones(2).requires_grad_(1), TypeError,
     "requires_grad_(): argument 'requires_grad' (position 1) must be bool, not int"),
    (lambda: torch.ones(2, requires_grad=True).sum().backward(gradient="a"), TypeError,
     "gradients can be either Tensors or None, but got str"),
])
def test_tensor_methods_refuse_arguments_as_pytorch_does(call, error, message):
    with pytest.raises(error) as info:
        call()
    assert str(info.value) == message


def test_mse_loss_of_shapes_that_do_not_broadcast():
    with pytest.warns(UserWarning, match="Using a target size"):
        with pytest.raises(RuntimeError) as info:
            torch.nn.MSELoss()(torch.ones(2), torch.ones(3))
    assert str(info.value) == "The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 0"


def test_retain_grad_and_backward_inputs_of_a_tensor_that_does_not_require_grad():
    with pytest.raises(RuntimeError, match="^can't retain_grad on Tensor that has requires_grad=False$"):
        torch.ones(2).retain_grad()  # silently nothing before
    x = torch.ones(2, requires_grad=True)
    other = torch.ones(2)
    with pytest.raises(RuntimeError, match="^can't retain_grad on Tensor that has requires_grad=False$"):
        (x * 2).sum().backward(inputs=[other])
    assert x.grad is None and other.grad is None
    (x * 3).sum().backward(inputs=[x])
    assert x.grad.tolist() == [3.0, 3.0]


@pytest.mark.parametrize("call, error, message", [
    (lambda: torch.nn.Linear(-1, 2), RuntimeError, "Trying to create tensor with negative dimension -1: [2, -1]"),
    (lambda: torch.nn.Linear(2.5, 2), TypeError,
     "empty(): argument 'size' failed to unpack the object at pos 2 with error \"type must be tuple of ints,but got float\""),
    (lambda: torch.tensor([1.0], requires_grad="yes"), TypeError,
     "tensor(): argument 'requires_grad' must be bool, not str"),  # accepted before
])
def test_linear_sizes_and_the_requires_grad_flag_of_tensor(call, error, message):
    with pytest.raises(error) as info:
        call()
    assert str(info.value) == message
