"""`grad_fn.next_functions` as PyTorch 2.13 prints it for ops with a Python number: the
tensor's edge first (`2 + x`, `2 * x` are recorded as `x + 2`, `x * 2`, the number a
`(None, 0)` input), and no edge at all for the number of `x ** 2`, `2 - x`, `2 ** x`
(PyTorch's Scalar overloads); AccumulateGrad's `name()`; the op names of version errors
(PowBackward2: Pow2); no edges for an index, a condition, a dim, a number weight or a
loss's class weights. Gradients are unchanged."""

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


# --- edges for an op's differentiable tensor inputs only (PyTorch 2.13's next_functions) ---

_X = "x = torch.tensor([[1., -2., 3.]], requires_grad=True)\n"
_XY = "x = torch.tensor([1., -2., 3.], requires_grad=True)\ny = torch.tensor([4., 5., 6.], requires_grad=True)\n"


@pytest.mark.parametrize("code, edges", [
    (_XY + "a = torch.where(x > 0, x, y)", ["AccumulateGrad", "AccumulateGrad"]),
    (_XY + "a = torch.where(x > 0, x, 0.)", ["AccumulateGrad", None]),
    (_X + "a = x.max(1)[0]", ["AccumulateGrad"]),
    (_X + "a = x.sort(1)[0]", ["AccumulateGrad"]),
    (_X + "a = x.gather(1, torch.tensor([[0, 0]]))", ["AccumulateGrad"]),
    (_X + "a = x.index_select(1, torch.tensor([0, 0]))", ["AccumulateGrad"]),
    (_X + "a = x.masked_fill(x > 0, 0.)", ["AccumulateGrad"]),
    (_X + "a = x.unbind(0)[0]", ["AccumulateGrad"]),
    (_XY + "a = torch.lerp(x, y, 0.3)", ["AccumulateGrad", "AccumulateGrad"]),
    (_X + "a = torch.addmm(torch.zeros(3, 3), x.t(), x, beta=0.5, alpha=2)", [None, "TBackward0", "AccumulateGrad"]),
    (_XY + "a = torch.sub(x, y, alpha=0.5)", ["AccumulateGrad", "AccumulateGrad"]),
    (_XY + "a = x.add(y, alpha=2)", ["AccumulateGrad", "AccumulateGrad"]),
    (_XY + "a = x.add(2, alpha=3)", ["AccumulateGrad", None]),
    (_XY + "a = x * 1\na.add_(y, alpha=2)", ["MulBackward0", "AccumulateGrad"]),
    (_X + "w = torch.ones(2, 3, requires_grad=True)\nb = torch.ones(2, requires_grad=True)\na = F.linear(x, w, b)",
     ["AccumulateGrad", "AccumulateGrad", "TBackward0"]),
    (_X + "w = torch.ones(2, 3, requires_grad=True)\na = F.linear(x, w)", ["AccumulateGrad", "TBackward0"]),
    (_X + "a = F.linear(x, torch.ones(2, 3), torch.ones(2))", [None, "AccumulateGrad", None]),
    ("x = torch.tensor([1., -2., 3.], requires_grad=True)\n"
     "a = F.binary_cross_entropy_with_logits(x, torch.tensor([0., 1., 1.]), weight=torch.ones(3), pos_weight=torch.ones(3))",
     ["AccumulateGrad", None]),
    ("x = torch.tensor([0.1, 0.2, 0.3], requires_grad=True)\n"
     "a = F.binary_cross_entropy(x, torch.tensor([0., 1., 1.]), weight=torch.ones(3))", ["AccumulateGrad", None]),
    (_X + "a = F.cross_entropy(x, torch.tensor([0]))", ["LogSoftmaxBackward0"]),
    (_X + "a = F.nll_loss(x, torch.tensor([0]), weight=torch.ones(3))", ["AccumulateGrad"]),
    (_X + "a = x.norm(1)", ["AccumulateGrad"]),
])
def test_edges_of_differentiable_inputs_only(code, edges):
    ns = {"torch": torch, "F": torch.nn.functional}
    exec(code, ns)
    assert [None if f is None else type(f).__name__ for f, _ in ns["a"].grad_fn.next_functions] == edges


@pytest.mark.parametrize("call, argument", [
    ("F.binary_cross_entropy_with_logits(x, t, weight=w)", "'binary_cross_entropy_with_logits' is not differentiable "
     "with respect to argument 'weight'"),
    ("F.binary_cross_entropy_with_logits(x, t, pos_weight=w)", "'binary_cross_entropy_with_logits' is not "
     "differentiable with respect to argument 'pos_weight'"),
    ("F.binary_cross_entropy(x, t, weight=w)", "'binary_cross_entropy' is not differentiable with respect to argument "
     "'weight'"),
    ("F.cross_entropy(x[None], torch.tensor([0]), weight=w)", "'nll_loss_forward' is not differentiable with respect "
     "to argument 'weight'"),
])
def test_a_loss_weight_that_requires_grad_is_refused(call, argument):
    ns = {"torch": torch, "F": torch.nn.functional, "x": torch.tensor([0.1, 0.2, 0.3], requires_grad=True),
          "w": torch.ones(3, requires_grad=True), "t": torch.tensor([0.0, 1.0, 1.0])}
    with pytest.raises(RuntimeError) as info:
        eval(call, ns)
    assert str(info.value) == f"The function {argument}. This input cannot have requires_grad True."


def test_vector_times_matrix_is_one_node_named_as_pytorchs_last():
    """PyTorch 2.13 runs 1-D @ 2-D as `x.unsqueeze(0).mm(W).squeeze_(0)`, three nodes; the
    shim records one, named as PyTorch's last (SqueezeBackward4), whose inputs are the
    operands: the same values, gradients and repr, at a third of the cost."""
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    w = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
    y = x @ w
    assert type(y.grad_fn).__name__ == "SqueezeBackward4"
    assert _names(y.grad_fn) == ["AccumulateGrad", "AccumulateGrad"]
    assert _names(torch.matmul(x.detach(), w).grad_fn) == [None, "AccumulateGrad"]
    y.backward(torch.tensor([1.0, 0.0, -1.0]))
    assert repr(y) == "tensor([ 9., 12., 15.], grad_fn=<SqueezeBackward4>)"
    assert repr(x.grad) == "tensor([-2., -2.])"
    assert repr(w.grad) == "tensor([[ 1.,  0., -1.],\n        [ 2.,  0., -2.]])"


@pytest.mark.parametrize("make, node", [
    (lambda x: x[:, 1], "AddBackward0"),  # not contiguous: matmul, then the bias added in place
    (lambda x: x[0, :2], "ViewBackward0"),  # contiguous: addmm over the input as one row, viewed back
    (lambda x: x.reshape(1, 2, 3)[..., :2], "AddBackward0"),
    (lambda x: x.reshape(1, 3, 2), "ViewBackward0"),
])
def test_linear_of_a_vector_or_batch_with_bias(make, node):
    x = torch.ones(2, 3, requires_grad=True)
    lin = torch.nn.Linear(2, 1)
    assert type(lin(make(x)).grad_fn).__name__ == node
