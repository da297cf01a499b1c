"""Tensor.register_hook: what PyTorch 2 gives, value by value (tests/test_tensor_torch.py
compares the printed text with PyTorch itself where it is installed)."""

import re

import numpy as np
import pytest

import srcgrad as torch


def raises(exc, message):
    return pytest.raises(exc, match="^" + re.escape(message) + "$")


def test_a_leaf_hook_changes_what_accumulates_and_what_autograd_grad_returns():
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    handle = x.register_hook(lambda g: g * 2)
    (gx,) = torch.autograd.grad((x * x).sum(), x)
    np.testing.assert_array_equal(gx.numpy(), [4.0, 8.0, 12.0])
    assert x.grad is None  # autograd.grad accumulates nothing
    (x * x).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [4.0, 8.0, 12.0])
    handle.remove()
    handle.remove()  # a second remove does nothing
    (x * x).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [6.0, 12.0, 18.0])
    assert x.grad.dtype == torch.float32


def test_hooks_of_a_non_leaf_run_in_order_before_its_retained_grad_and_its_node():
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    z = x * 3
    seen = []
    z.register_hook(lambda g: seen.append(g.numpy().copy()))
    z.retain_grad()
    z.register_hook(lambda g: g + 1)  # registered after retain_grad, it still runs before
    z.sum().backward()
    np.testing.assert_array_equal(seen[0], [1.0, 1.0, 1.0])
    np.testing.assert_array_equal(z.grad.numpy(), [2.0, 2.0, 2.0])
    np.testing.assert_array_equal(x.grad.numpy(), [6.0, 6.0, 6.0])  # d(3x)/dx times the hooked 2


def test_each_hook_gets_what_the_one_before_returned_and_a_leaf_used_twice_gets_one_call():
    a = torch.ones(2, requires_grad=True)
    calls = []
    a.register_hook(lambda g: calls.append(("first", g.tolist())) or g * 10)
    a.register_hook(lambda g: calls.append(("second", g.tolist())))
    (a * 2).sum().backward()
    assert calls == [("first", [2.0, 2.0]), ("second", [20.0, 20.0])]
    np.testing.assert_array_equal(a.grad.numpy(), [20.0, 20.0])
    c = torch.ones(2, requires_grad=True)
    got = []
    c.register_hook(lambda g: got.append((g.tolist(), g.requires_grad, g.grad_fn)))
    (c * c).sum().backward()
    assert got == [([2.0, 2.0], False, None)]


def test_a_hook_that_writes_its_gradient_in_place_changes_only_what_flows_on():
    d = torch.ones(2, requires_grad=True)
    d.register_hook(lambda g: g.mul_(3))
    (d * 2).sum().backward()
    np.testing.assert_array_equal(d.grad.numpy(), [6.0, 6.0])
    # returning None after writing counts as returning it; the node's saved values are
    # untouched, so a second pass over the retained graph gives the same again
    e = torch.ones(2, requires_grad=True)
    e.register_hook(lambda g: [g.mul_(3), None][1])
    y = e * 2
    y.sum().backward(retain_graph=True)
    y.sum().backward()
    np.testing.assert_array_equal(e.grad.numpy(), [12.0, 12.0])


def test_a_hook_on_a_reduction_output_sees_its_gradient_before_the_node_spreads_it():
    m = torch.ones(2, 2, requires_grad=True)
    y = m.sum(0)
    y.register_hook(lambda g: g * torch.tensor([1.0, 5.0]))
    y.sum().backward()
    np.testing.assert_array_equal(m.grad.numpy(), [[1.0, 5.0], [1.0, 5.0]])


@torch.compile
def _scaled_sum(w, x):
    return np.sum(np.tanh(x * w))


def test_hooks_reach_the_leaves_of_a_compiled_node_and_its_output():
    """The single-node fast path of backward() steps aside for a hook."""
    w = torch.tensor([0.5, -1.0], requires_grad=True)
    x = torch.tensor([2.0, 1.0])
    expected = x.numpy() * (1 - np.tanh(x.numpy() * w.detach().numpy()) ** 2)
    for _ in range(3):  # the first calls run the function itself; later ones the generated code
        w.grad = None
        handle = w.register_hook(lambda g: g * 4)
        _scaled_sum(w, x).backward()
        handle.remove()
        np.testing.assert_allclose(w.grad.numpy(), 4 * expected, rtol=1e-6)
    out = _scaled_sum(w, x)
    out.register_hook(lambda g: g * 0.5)
    w.grad = None
    out.backward()
    np.testing.assert_allclose(w.grad.numpy(), 0.5 * expected, rtol=1e-6)


def test_what_a_hook_may_not_do():
    with raises(RuntimeError, "cannot register a hook on a tensor that doesn't require gradient"):
        torch.ones(2).register_hook(lambda g: g)
    for hook, exc, message in [
        (lambda g: torch.ones(3), RuntimeError, "hook '<lambda>' has changed the size of value"),
        (lambda g: g.double(), RuntimeError,
         "hook '<lambda>' has changed the type of value (was srcgrad.FloatTensor got srcgrad.DoubleTensor)"),
        (lambda g: 5, TypeError, "expected Variable, but hook returned 'int'"),
    ]:
        w = torch.ones(2, requires_grad=True)
        w.register_hook(hook)
        with raises(exc, message):
            (w * 2).sum().backward()
        assert w.grad is None


def test_node_pre_and_post_hooks_see_and_replace_what_pytorch_gives_them():
    a = torch.tensor([1.0, 2.0], requires_grad=True, dtype=torch.float64)
    b = a * 3
    seen = []
    handle = b.grad_fn.register_prehook(lambda go: (go[0] * 10,))
    b.grad_fn.register_hook(lambda gi, go: seen.append((gi, go)))
    b.exp().sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), 30 * np.exp([3.0, 6.0]), rtol=1e-15)
    (grad_inputs, grad_outputs), = seen
    np.testing.assert_allclose(grad_inputs[0].numpy(), 30 * np.exp([3.0, 6.0]), rtol=1e-15)
    np.testing.assert_allclose(grad_outputs[0].numpy(), 10 * np.exp([3.0, 6.0]), rtol=1e-15)  # after the pre-hook
    handle.remove()
    a.grad = None
    c = a * 3
    c.grad_fn.register_hook(lambda gi, go: (gi[0] * 0.5,) + gi[1:])
    c.exp().sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), 1.5 * np.exp([3.0, 6.0]), rtol=1e-15)


def test_node_hooks_run_after_tensor_hooks_and_retained_grads():
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    b = a * 3
    order = []
    b.register_hook(lambda g: order.append("tensor"))
    b.retain_grad()
    b.grad_fn.register_prehook(lambda go: order.append("node pre"))
    b.grad_fn.register_hook(lambda gi, go: order.append("node post"))
    b.register_hook(lambda g: order.append("tensor 2"))
    b.sum().backward()
    assert order == ["tensor", "tensor 2", "node pre", "node post"]


def test_node_hooks_of_an_accumulate_grad_a_factorization_and_a_pass_that_records_a_graph():
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    seen = []
    leaf = (a * 1).grad_fn.next_functions[0][0]
    pre = leaf.register_prehook(lambda go: seen.append(("pre", len(go))))
    post = leaf.register_hook(lambda gi, go: seen.append(("post", gi, len(go))))
    (a * 2).sum().backward()
    assert seen == [("pre", 1), ("post", (), 1)]
    pre.remove()
    post.remove()
    m = torch.tensor([[1.0, 2.0], [0.5, -1.0], [3.0, 1.0]], requires_grad=True)
    q, r = torch.linalg.qr(m)
    shapes = []
    q.grad_fn.register_prehook(lambda go: shapes.append([None if g is None else tuple(g.shape) for g in go]))
    q.sum().backward()
    assert shapes == [[(3, 2), None]]
    x = torch.tensor([1.0, 2.0], requires_grad=True, dtype=torch.float64)
    y = x * x
    y.grad_fn.register_prehook(lambda go: (go[0] * 2,))
    (g,) = torch.autograd.grad(y.sum(), x, create_graph=True)
    np.testing.assert_array_equal(g.detach().numpy(), [4.0, 8.0])
    (gg,) = torch.autograd.grad(g.sum(), x)
    np.testing.assert_array_equal(gg.numpy(), [4.0, 4.0])
    z = x * 3
    z.grad_fn.register_prehook(lambda go: (None,))  # no gradient flows on
    (w,) = torch.autograd.grad(z.sum() + x.sum(), x)
    np.testing.assert_array_equal(w.numpy(), [1.0, 1.0])


def test_node_metadata_is_a_dict_of_its_own():
    a = torch.tensor([1.0], requires_grad=True)
    b, c = a * 2, a * 3
    assert b.grad_fn.metadata == {}
    b.grad_fn.metadata["step"] = 1
    assert b.grad_fn.metadata == {"step": 1} and c.grad_fn.metadata == {}


@pytest.mark.parametrize("register, hook, error, message", [
    ("post", lambda gi, go: (gi[0], gi[0], gi[0]), RuntimeError,
     "hook '<lambda>' has returned an incorrect number of values (got 3, but expected 2)"),
    ("pre", lambda go: (go[0], go[0]), RuntimeError, "hook '<lambda>' has returned an incorrect number of values (got 2, but expected 1)"),
    ("pre", lambda go: go[0], TypeError, "expected tuple, but hook returned 'Tensor'"),
    ("pre", lambda go: [go[0]], TypeError, "expected tuple, but hook returned 'list'"),
    ("post", lambda gi, go: 5, TypeError, "expected tuple, but hook returned 'int'"),
    ("pre", lambda go: (go[0][:1],), RuntimeError, "hook '<lambda>' has changed the size of value"),
    ("pre", lambda go: (5,), TypeError, "expected Variable, but hook returned 'int'"),
])
def test_node_hook_errors_are_pytorchs(register, hook, error, message):
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    b = a * 3
    (b.grad_fn.register_prehook if register == "pre" else b.grad_fn.register_hook)(hook)
    with raises(error, message):
        b.exp().sum().backward()
    assert a.grad is None
