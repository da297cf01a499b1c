"""`grad_fn.next_functions` as PyTorch 2.13 prints it for ops with a Python number: the
tensor's edge first (`2 + x`, `2 * x` are recorded as `x + 2`, `x * 2`, the number a
`(None, 0)` input), and no edge at all for the number of `x ** 2`, `2 - x`, `2 ** x`
(PyTorch's Scalar overloads); AccumulateGrad's `name()`; the op names of version errors
(PowBackward2: Pow2). Gradients are unchanged."""

import pytest

import srcgrad as torch


def _names(fn):
    return [None if f is None else type(f).__name__ for f, _ in fn.next_functions]


@pytest.mark.parametrize("expr, node, names", [
    (lambda x: x + 2, "AddBackward0", ["AccumulateGrad", None]),
    (lambda x: 2 + x, "AddBackward0", ["AccumulateGrad", None]),
    (lambda x: x * 2, "MulBackward0", ["AccumulateGrad", None]),
    (lambda x: 2 * x, "MulBackward0", ["AccumulateGrad", None]),
    (lambda x: 2 - x, "RsubBackward1", ["AccumulateGrad"]),
    (lambda x: x ** 2, "PowBackward0", ["AccumulateGrad"]),
    (lambda x: x.square(), "PowBackward0", ["AccumulateGrad"]),
    (lambda x: 2 ** x, "PowBackward2", ["AccumulateGrad"]),
    (lambda x: x ** torch.tensor([1.0, 2.0]), "PowBackward1", ["AccumulateGrad", None]),
])
def test_edges_of_ops_with_a_number(expr, node, names):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = expr(x)
    assert type(y.grad_fn).__name__ == node and _names(y.grad_fn) == names
    assert y.grad_fn.next_functions[0][0].variable is x


@pytest.mark.parametrize("expr, grad", [
    (lambda x: 2 - x, "tensor([-1., -1.])"),
    (lambda x: 3 + x, "tensor([1., 1.])"),
    (lambda x: 3 * x, "tensor([3., 3.])"),
    (lambda x: x ** 2, "tensor([2., 4.])"),
    (lambda x: 2 ** x, "tensor([1.3863, 2.7726])"),
    (lambda x: (2 - x) * (x ** 3), "tensor([ 2., -8.])"),
])
def test_gradients_through_them(expr, grad):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    expr(x).sum().backward()
    assert repr(x.grad) == grad


def test_a_number_operand_node_names_its_saved_input_in_a_version_error():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x * 1
    z = 2 ** y
    z.mul_(1)  # PowBackward2 reads its result
    with pytest.raises(RuntimeError, match=r"\[srcgrad.FloatTensor \[2\]\], which is output 0 of Pow2, is at version 1"):
        z.sum().backward()
    m = (x * 1).max()
    m.mul_(1)
    with pytest.raises(RuntimeError, match=r"\[srcgrad.FloatTensor \[\]\], which is output 0 of Max1, is at version 1"):
        m.backward()
    w = x * 1
    v = w ** 2
    w.add_(1)
    with pytest.raises(RuntimeError, match=r"\[srcgrad.FloatTensor \[2\]\], which is output 0 of Add, is at version 1"):
        v.sum().backward()


def test_accumulate_grad_name():
    x = torch.tensor([1.0], requires_grad=True)
    acc = (x * 2).grad_fn.next_functions[0][0]
    assert acc.name() == "srcgrad::autograd::AccumulateGrad" and acc.next_functions == () and acc.variable is x
