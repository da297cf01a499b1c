"""autograd.grad(is_grads_batched=True) and autograd.backward(inputs=...) as PyTorch's
(values, structure and messages checked against PyTorch 2.13)."""

import re
import warnings

import numpy as np
import pytest

import srcgrad as torch


def raises(message):
    return pytest.raises(RuntimeError, match="^" + re.escape(message) + "$")


def leaves():
    a = torch.tensor([1.0, 2.0], requires_grad=True, dtype=torch.float64)
    b = torch.tensor([3.0, 4.0], requires_grad=True, dtype=torch.float64)
    return a, b


def test_batched_grad_outputs_give_one_gradient_per_entry():
    a, b = leaves()
    seeds = torch.arange(6.0, dtype=torch.float64).reshape(3, 2)
    ga, gb = torch.autograd.grad([a * b, b.exp()], [a, b], [torch.ones(3, 2, dtype=torch.float64), seeds],
                                 is_grads_batched=True)
    np.testing.assert_array_equal(ga.numpy(), [[3.0, 4.0]] * 3)
    np.testing.assert_allclose(gb.numpy(), [[1.0, 2.0]] * 3 + seeds.numpy() * np.exp([3.0, 4.0]), rtol=1e-15)
    (jac,) = torch.autograd.grad(a ** 3, a, torch.eye(2, dtype=torch.float64), is_grads_batched=True)
    np.testing.assert_array_equal(jac.numpy(), np.diag([3.0, 12.0]))  # the Jacobian, row by row
    (scaled,) = torch.autograd.grad((a * b).sum(), [a], torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64),
                                    is_grads_batched=True)
    np.testing.assert_array_equal(scaled.numpy(), [[3.0, 4.0], [6.0, 8.0], [9.0, 12.0]])


def test_batched_unused_inputs_create_graph_and_errors():
    a, b = leaves()
    eye = torch.eye(2, dtype=torch.float64)
    ga, gb = torch.autograd.grad(a * 2, [a, b], eye, is_grads_batched=True, allow_unused=True)
    assert gb is None and ga.shape == (2, 2)
    ga, gb = torch.autograd.grad(a * 2, [a, b], eye, is_grads_batched=True, materialize_grads=True)
    np.testing.assert_array_equal(gb.numpy(), [0.0, 0.0])  # unbatched, as PyTorch gives it
    (hess_rows,) = torch.autograd.grad(a ** 3, a, eye, is_grads_batched=True, create_graph=True)
    assert hess_rows.requires_grad
    (third,) = torch.autograd.grad(hess_rows.sum(), a)
    np.testing.assert_array_equal(third.numpy(), [6.0, 12.0])  # d/da of 3 a^2 summed over rows
    with raises("The differentiated Tensor at index 1 appears to not have been used in the graph. "
                "Set allow_unused=True if this is the desired behavior."):
        torch.autograd.grad(a * 2, [a, b], eye, is_grads_batched=True)
    with raises("grad can be implicitly created only for scalar outputs"):
        torch.autograd.grad(a * 2, a, is_grads_batched=True)
    with raises("If `is_grads_batched=True`, we interpret the first dimension of each grad_output as the batch "
                "dimension. The sizes of the remaining dimensions are expected to match the shape of corresponding "
                "output, but a mismatch was detected: grad_output[0] has a shape of srcgrad.Size([7]) and output[0] "
                "has a shape of srcgrad.Size([2]). If you only want some tensors in `grad_output` to be considered "
                "batched, consider using vmap."):
        torch.autograd.grad(a * 2, a, torch.ones(4, 1, 7, dtype=torch.float64), is_grads_batched=True)


def test_backward_with_inputs_accumulates_into_those_only():
    a, b = leaves()
    torch.autograd.backward((a * b).sum(), inputs=a)
    np.testing.assert_array_equal(a.grad.numpy(), [3.0, 4.0])
    assert b.grad is None
    torch.autograd.backward((a * b).sum(), inputs=[a, b])
    np.testing.assert_array_equal(a.grad.numpy(), [6.0, 8.0])
    np.testing.assert_array_equal(b.grad.numpy(), [1.0, 2.0])
    a.grad = b.grad = None
    torch.autograd.backward((a * 2).sum(), inputs=[a, b])
    assert b.grad is None and a.grad.tolist() == [2.0, 2.0]
    a.grad = None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.autograd.backward((a * a * b).sum(), inputs=[a], create_graph=True)
    assert a.grad.requires_grad
    np.testing.assert_array_equal(a.grad.detach().numpy(), [6.0, 16.0])
    (again,) = torch.autograd.grad(a.grad.sum(), b)
    np.testing.assert_array_equal(again.numpy(), [2.0, 4.0])
    with raises("`inputs` argument to `backward()` cannot be empty."):
        torch.autograd.backward((a * b).sum(), inputs=[])
    with raises("can't retain_grad on Tensor that has requires_grad=False"):
        torch.autograd.backward((a * b).sum(), inputs=[torch.ones(2)])
