"""In-place operations on tensors in a graph.

PyTorch detects, by version counters at backward, an in-place write into values a
node saved, and rebases the graphs of views. The shim does both as PyTorch does: the
write is recorded and counted, and backward raises PyTorch's error; a write into a view
or the base of a view gives the base a CopySlices node and the views AsStridedBackward0
nodes (views.py; tests/test_tensor_view_writes.py). An unrecorded write (under
`no_grad`, through `detach()`, by item assignment) is caught at backward by version
counters too. Writes no node reads still work.
"""

import re

import numpy as np
import pytest

import srcgrad as torch

X = np.array([1.0, 2.0, 3.0])


def _x():
    return torch.tensor(X, dtype=torch.float64, requires_grad=True)


def _exp_then_add(x):
    y = x.exp()
    y.add_(1.0)  # exp's backward reads its output
    return y


def _saved_input(x):
    y = x * 2
    z = y * y  # mul keeps y for its backward
    y += 1
    return z


def _base_of_a_view(x):
    y = x * 2
    v = y[:2]
    y.mul_(3)  # v sees the change; its graph would not
    return v * v


def _a_view(x):
    y = x * 2
    v = y[0:2]
    v.mul_(3)  # y sees the change; its graph would not
    return y * y


def _reshaped(x):
    y = x * 2
    w = y.reshape(3, 1)
    y.sub_(x)
    return w


def _sigmoid_then_mul(x):
    y = x.sigmoid()
    y.mul_(2.0)
    return y


@pytest.mark.parametrize("program, node, edges, grad", [
    (_base_of_a_view, "MulBackward0", ("AsStridedBackward0", "AsStridedBackward0"), [72.0, 144.0, 0.0]),
    (_a_view, "MulBackward0", ("CopySlices", "CopySlices"), [72.0, 144.0, 24.0]),
    (_reshaped, "AsStridedBackward0", ("SubBackward0",), [1.0, 1.0, 1.0]),
])
def test_a_write_through_a_view_or_its_base_rebases_the_graphs(program, node, edges, grad):
    """PyTorch's graphs and gradients (PyTorch 2.13)."""
    x = _x()
    out = program(x)
    assert type(out.grad_fn).__name__ == node
    assert tuple(type(f).__name__ for f, _ in out.grad_fn.next_functions) == edges
    out.sum().backward()
    assert x.grad.tolist() == grad


@pytest.mark.parametrize("program, node", [(_exp_then_add, "Exp"), (_saved_input, "Add"), (_sigmoid_then_mul, "Sigmoid")])
def test_a_write_into_saved_values_raises_at_backward(program, node):
    """As in PyTorch: the write is recorded and counted; the node that saved the old
    values refuses to run, with PyTorch's message."""
    x = _x()
    out = program(x)
    with pytest.raises(RuntimeError, match="modified by an inplace operation: .* is at version 1; expected version 0"):
        out.sum().backward()
    assert x.grad is None


def test_writes_no_node_reads_are_recorded():
    x = _x()
    y = x * 2
    y *= 3  # mul's backward reads x, not its output
    y.sum().backward()
    assert x.grad.tolist() == [6.0, 6.0, 6.0]
    x = _x()
    y = torch.nn.functional.softplus(x)  # softplus's backward reads x, not its output
    y.sub_(1.0)
    (y * y).sum().backward()
    s = np.log1p(np.exp(X))
    np.testing.assert_allclose(x.grad.numpy(), 2 * (s - 1.0) / (1.0 + np.exp(-X)))
    x = _x()
    y = x + 1.0  # add keeps nothing
    y.mul_(x)
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 2 * X + 1.0)


def test_no_grad_updates_of_leaves_still_work():
    w = _x()
    (w * w).sum().backward()  # mul kept w's array until this backward
    with torch.no_grad():
        w -= 0.1 * w.grad
        w.grad.zero_()
    np.testing.assert_allclose(w.detach().numpy(), 0.8 * X)


def test_overwrites_of_and_from_graph_tensors_are_recorded():
    """copy_ is CopyBackwards, as in PyTorch (2.13): the old values get no gradient, the
    source the gradient; normal_ of a tensor in a graph is NormalBackward0 (tests/test_generators.py)."""
    x = _x()
    y = x * 2
    y.copy_(torch.zeros(3, dtype=torch.float64))
    assert type(y.grad_fn).__name__ == "CopyBackwards"
    z = torch.zeros(3, dtype=torch.float64)
    z.copy_(x * 2)
    assert [None if f is None else type(f).__name__ for f, _ in z.grad_fn.next_functions] == [None, "MulBackward0"]
    (z * z).sum().backward()
    assert x.grad.tolist() == [8.0, 16.0, 24.0]
    y.normal_()
    assert type(y.grad_fn).__name__ == "NormalBackward0"
    with pytest.raises(RuntimeError, match="leaf Variable"):
        x.copy_(torch.zeros(3, dtype=torch.float64))
    with torch.no_grad():
        x.copy_(torch.zeros(3, dtype=torch.float64))
    assert x.tolist() == [0.0, 0.0, 0.0]


# --- unrecorded writes: version counters ----------------------------------------------

_MODIFIED = (
    "one of the variables needed for gradient computation has been modified by an inplace "
    "operation: [{} is at version {}; expected version 0 instead. Hint: "
)


def _leaf_updated_before_backward(x):
    y = (x * x).sum()  # mul keeps x
    with torch.no_grad():
        x -= 1.0
    return y, "srcgrad.DoubleTensor [3]]", 1


def _output_changed_under_no_grad(x):
    y = x.exp()  # exp's backward reads its output
    with torch.no_grad():
        y += 1.0
        y += 1.0
    return y.sum(), "srcgrad.DoubleTensor [3]], which is output 0 of Exp,", 2


def _written_through_detach(x):
    y = x.exp()
    y.detach().add_(1.0)  # detach() shares the storage and the version counter
    return y.sum(), "srcgrad.DoubleTensor [3]], which is output 0 of Exp,", 1


def _written_through_a_view(x):
    y = x * 2
    z = y * y
    v = y[:2]
    with torch.no_grad():
        v.mul_(3)  # y's counter is v's
    return z.sum(), "srcgrad.DoubleTensor [3]], which is output 0 of Mul,", 1


def _item_assignment(x):
    y = x * 2
    z = y * y
    with torch.no_grad():
        y[0] = 5.0
    return z.sum(), "srcgrad.DoubleTensor [3]], which is output 0 of Mul,", 1


def _zeroed(x):
    y = x.sigmoid()
    with torch.no_grad():
        y.zero_()
    return y.sum(), "srcgrad.DoubleTensor [3]], which is output 0 of Sigmoid,", 1


def _loss_target_changed(x):
    target = torch.tensor([1.0, 0.0, 1.0], dtype=torch.float64)
    loss = torch.nn.functional.binary_cross_entropy_with_logits(x * 2, target)  # one composite node
    target.fill_(0.5)
    return loss, "srcgrad.DoubleTensor [3]]", 1


@pytest.mark.parametrize("program", [
    _leaf_updated_before_backward, _output_changed_under_no_grad, _written_through_detach,
    _written_through_a_view, _item_assignment, _zeroed, _loss_target_changed,
])
def test_backward_refuses_values_changed_after_they_were_saved(program):
    x = _x()
    root, described, version = program(x)
    with pytest.raises(RuntimeError) as info:
        root.backward()
    assert str(info.value).startswith(_MODIFIED.format(described, version))
    assert x.grad is None  # the pass checks before it changes anything
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        root.backward()  # nothing was released either


def test_a_second_backward_after_an_update_is_refused():
    w = _x()
    y = (w * w).sum()
    y.backward(retain_graph=True)
    with torch.no_grad():
        w -= 0.5 * w.grad
    with pytest.raises(RuntimeError, match="is at version 1; expected version 0"):
        y.backward()
    np.testing.assert_allclose(w.grad.numpy(), 2 * X)


def test_versions_count_writes_into_shared_storage_only():
    w = _x()
    assert w._version == 0
    with torch.no_grad():
        w += 1.0  # counted although no node saved w and no view shares it, as in PyTorch
    assert w._version == 1
    y = w * w
    with torch.no_grad():
        w.mul_(2.0)
        w.detach().sub_(1.0)
        w.data.add_(1.0)  # `.data` is not counted, as in PyTorch
    assert w._version == 3
    assert w.detach()._version == 3 and w.data._version == 0
    np.testing.assert_allclose(y.detach().numpy(), (X + 1.0) ** 2)


def test_writes_through_data_and_after_backward_are_not_refused():
    w = _x()
    y = (w * w).sum()
    w.data.sub_(0.0)  # untracked and uncounted: PyTorch computes with the new values too
    y.backward()
    np.testing.assert_allclose(w.grad.numpy(), 2 * X)
    for _ in range(3):  # the usual loop: backward, then the update
        w.grad = None
        loss = (w * w).sum()
        loss.backward()
        with torch.no_grad():
            w -= 0.25 * w.grad
    np.testing.assert_allclose(w.detach().numpy(), X * 0.5 ** 3)


def test_custom_function_saved_tensors_are_checked():
    class Exp(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            r = x.exp()
            ctx.save_for_backward(r)
            return r

        @staticmethod
        def backward(ctx, g):
            (r,) = ctx.saved_tensors
            return r * g

    x = _x()
    y = Exp.apply(x)
    with torch.no_grad():
        y.mul_(3.0)
    with pytest.raises(RuntimeError) as info:
        y.sum().backward()
    assert str(info.value).startswith(_MODIFIED.format("srcgrad.DoubleTensor [3]], which is output 0 of Exp,", 1))
    x = _x()
    y = Exp.apply(x)
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.exp(X))


def test_compiled_nodes_that_keep_their_inputs_are_checked():
    @torch.compile
    def layer(x, w):
        return np.tanh(w @ x)

    x = torch.tensor([1.0, 2.0], dtype=torch.float64)
    for _ in range(3):  # the first call runs the function, the second generates, the third runs the code
        w = torch.tensor([[0.1, 0.2], [0.3, -0.4]], dtype=torch.float64, requires_grad=True)
        out = layer(x, w)
        with torch.no_grad():
            w -= 0.1
        with pytest.raises(RuntimeError, match=r"\[srcgrad.DoubleTensor \[2, 2\]\] is at version 1"):
            out.sum().backward()
    out = layer(x, w)
    out.sum().backward()
    h = np.tanh(w.detach().numpy() @ x.numpy())
    np.testing.assert_allclose(w.grad.numpy(), np.outer(1 - h**2, x.numpy()))


def test_arithmetic_in_place_on_an_expanded_tensor_is_pytorchs_error():
    message = ("unsupported operation: more than one element of the written-to tensor refers to a single memory "
               "location. Please clone() the tensor before performing the operation.")
    for write in (lambda e: e.add_(1), lambda e: e.mul_(2.0), lambda e: e.clamp_(0, 1), lambda e: e.__isub__(1.0)):
        base = torch.ones(3, 1)
        with pytest.raises(RuntimeError, match="^" + re.escape(message) + "$"):
            write(base.expand(3, 2))
        assert base.tolist() == [[1.0], [1.0], [1.0]]  # nothing was written
    cloned = torch.ones(3, 1).expand(3, 2).clone()
    assert cloned.add_(1).tolist() == [[2.0, 2.0]] * 3


VERSION = ("one of the variables needed for gradient computation has been modified by an inplace operation: "
           "[srcgrad.{}], which is output 0 of {}, is at version 1; expected version 0 instead. Hint: enable "
           "anomaly detection to find the operation that failed to compute its gradient, with "
           "srcgrad.autograd.set_detect_anomaly(True, check_nan=False).")


@pytest.mark.parametrize("write, grad", [
    ("y.data.mul_(2)", "tensor([-0.1111, -0.1250])"), ("y.detach().mul_(2)", "tensor([-0.1111, -0.1250])"),
    ("y.mul_(2)", "tensor([-0.2222, -0.2500])"), ("y[0].mul_(2)", "tensor([-0.2222, -0.1250])"),
])
def test_a_quotient_written_in_place_keeps_its_gradient(write, grad):
    """PyTorch's DivBackward0 saves the operands, not the quotient: a write into the
    quotient, recorded or not, raises no error at backward, and the quotient's own
    gradient is unchanged (a recorded write adds its own)."""
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    b = torch.tensor([3.0, 4.0], requires_grad=True)
    y = a / b
    exec(write, {"y": y, "torch": torch})
    y.sum().backward()
    assert repr(b.grad) == grad


def test_a_quotient_keeps_its_dividend_for_the_divisor():
    a = torch.tensor([1.0, 2.0])
    b = torch.tensor([3.0, 4.0], requires_grad=True)
    y = a / b
    a.add_(1)
    with pytest.raises(RuntimeError) as info:
        y.sum().backward()
    assert str(info.value) == VERSION.replace(", which is output 0 of {},", "").format("FloatTensor [2]")


@pytest.mark.parametrize("make, node", [
    (lambda a: a.prod(), "Prod"), (lambda a: a.prod(0), "Prod1"), (lambda a: a.norm(p=1), "LinalgVectorNorm"),
    (lambda a: a.norm(p=float("inf")), "LinalgVectorNorm"), (lambda a: a.norm(p=3), "LinalgVectorNorm"),
])
def test_results_pytorch_saves_are_checked(make, node):
    a = torch.tensor([1.0, -2.0], requires_grad=True)
    y = make(a)
    z = y * 1
    y.unsqueeze_(0)  # a saved output is named with the shape it was saved with
    with pytest.raises(RuntimeError) as info:
        z.backward()
    assert str(info.value) == VERSION.format("FloatTensor []", node)


def test_a_loss_written_in_place_keeps_its_gradient():
    x = torch.tensor([1.5, -0.5], requires_grad=True)
    loss = torch.nn.functional.cross_entropy(x, torch.tensor(0))
    loss.pow_(2)
    loss.backward()
    assert repr(x.grad) == "tensor([-0.0303,  0.0303])"


def test_rounded_division_saves_its_operands():
    """DivBackward2 with a rounding mode: gradient zero, but its operands are saved."""
    a = torch.tensor(-2)
    b = torch.tensor([1.5, 2.5], requires_grad=True)
    y = torch.div(a, b, rounding_mode="floor")
    a.relu_()
    with pytest.raises(RuntimeError) as info:
        y.sum().backward()
    assert str(info.value) == VERSION.replace(", which is output 0 of {},", "").format("LongTensor []")
    z = torch.div(b, 2, rounding_mode="trunc").sum()
    z.backward()
    assert repr(b.grad) == "tensor([0., 0.])"
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        z.backward()


def test_a_saved_input_is_named_with_its_shape_now():
    """A saved input whose shape changed in place since (unsqueeze_, t_) is named with
    its shape now; a saved output with the shape it was saved with (PyTorch 2.13)."""
    w = torch.tensor([[1.0, 2.0, 3.0]], requires_grad=True)
    x = torch.tensor([1.0, 2.0, 3.0])
    y = w * x
    x.unsqueeze_(0)
    x.t_()
    with pytest.raises(RuntimeError) as info:
        y.sum().backward()
    assert str(info.value) == VERSION.replace(", which is output 0 of {},", "").format("FloatTensor [3, 1]").replace(
        "version 1", "version 2")


def test_version_errors_name_what_pytorch_names():
    """The node of a shape changed in place (Unsqueeze1), an integer exponent's own dtype
    (the node keeps it cast), a 0-d running product's saved result."""
    x = torch.tensor(-0.97, requires_grad=True)
    y = x * 1
    z = (y / 4) / y
    y.unsqueeze_(-1)
    with pytest.raises(RuntimeError) as info:
        z.backward()
    assert str(info.value) == VERSION.format("FloatTensor [1]", "Unsqueeze1")
    e = torch.tensor([[3], [-1]])
    p = torch.tensor([[0.5], [0.25]], dtype=torch.float64, requires_grad=True) ** e
    e[None] = 1
    with pytest.raises(RuntimeError) as info:
        p.sum().backward()
    assert str(info.value) == VERSION.replace(", which is output 0 of {},", "").format("LongTensor [2, 1]")
    c = x.cumprod(0)
    c.copy_(x)
    with pytest.raises(RuntimeError) as info:
        c.backward()
    assert str(info.value) == VERSION.format("FloatTensor []", "Cumprod")


def test_what_zero_dim_sort_topk_and_cumprod_keep():
    """PyTorch's SortBackward0 and TopkBackward0 keep the indices (a second backward
    raises E7), CumprodBackward0 its input (a write into it is a version error)."""
    x = torch.tensor(1.5, requires_grad=True)
    for values in (x.topk(1)[0], x.sort()[0]):
        out = values.sum()
        out.backward()
        with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
            out.backward()
    c = x.cumprod(0)
    with torch.no_grad():
        x.add_(1)
    with pytest.raises(RuntimeError) as info:
        c.backward()
    assert str(info.value) == VERSION.replace(", which is output 0 of {},", "").format("FloatTensor []")


def test_a_cat_of_empty_tensors_that_require_grad_is_tracked():
    x = torch.tensor([[0.85]], requires_grad=True)
    empty = x.diagonal(-1)
    joined = torch.cat([empty, empty])
    assert joined.requires_grad and type(joined.grad_fn).__name__ == "CatBackward0" and joined.shape == (0,)
