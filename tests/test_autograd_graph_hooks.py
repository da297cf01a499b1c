"""autograd.graph.register_multi_grad_hook, increment_version and Node, as PyTorch's
(the expected lines were printed by PyTorch 2.13 for the same program)."""

import math

import pytest

import srcgrad as torch
from srcgrad.autograd.graph import Node, increment_version, register_multi_grad_hook


def _shapes(grads):
    return [None if g is None else tuple(g.shape) for g in grads]


def _values(grads):
    return [None if g is None else g.tolist() for g in grads]


@pytest.fixture
def products():
    a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    b = torch.tensor([4.0, 5.0, 6.0], requires_grad=True)
    return a, b, a * b, a * b


def test_all_mode_waits_for_the_gradients_the_pass_computes(products):
    a, b, c, d = products
    seen = []
    handle = register_multi_grad_hook((a, b, c, d), lambda gs: seen.append(_values(gs)))
    c.sum().backward(retain_graph=True)  # d is not in the graph: None, not waited for
    c.sum().backward(inputs=(a,), retain_graph=True)  # b is not needed for the inputs
    (c + d).sum().backward(retain_graph=True)
    assert seen == [
        [[4.0, 5.0, 6.0], [1.0, 2.0, 3.0], [1.0, 1.0, 1.0], None],
        [[4.0, 5.0, 6.0], None, [1.0, 1.0, 1.0], None],
        [[8.0, 10.0, 12.0], [2.0, 4.0, 6.0], [1.0, 1.0, 1.0], [1.0, 1.0, 1.0]],
    ]
    handle.remove()
    (c + d).sum().backward(retain_graph=True)
    assert len(seen) == 3
    assert type(handle).__name__ == "_MultiHandle"


def test_all_mode_in_autograd_grad_and_a_pass_that_records_a_graph(products):
    a, b, c, d = products
    seen = []
    register_multi_grad_hook((c, d), lambda gs: seen.append(_shapes(gs)))
    torch.autograd.grad(c.sum(), (a,), retain_graph=True)
    torch.autograd.grad((c * d).sum(), (a, b), retain_graph=True, create_graph=True)
    assert seen == [[(3,), None], [(3,), (3,)]]


def test_any_mode_calls_once_per_pass_with_the_first_gradient(products):
    a, b, c, d = products
    seen = []
    handle = register_multi_grad_hook((a, b), lambda g: seen.append(g.tolist()), mode="any")
    (c + d).sum().backward(retain_graph=True)
    (c * 2).sum().backward(retain_graph=True)
    assert seen == [[8.0, 10.0, 12.0], [8.0, 10.0, 12.0]]
    handle.remove()
    (c + d).sum().backward(retain_graph=True)
    assert len(seen) == 2
    # "any" leaves out tensors that require no grad; "all" refuses them
    register_multi_grad_hook((a, torch.ones(2)), print, mode="any").remove()
    with pytest.raises(AssertionError, match="^Expected gradient function to be set$"):
        register_multi_grad_hook((a, torch.ones(2)), print)
    with pytest.raises(ValueError, match=r"^Expects mode to be one of \('all', 'any'\) but got x$"):
        register_multi_grad_hook((a,), print, mode="x")


def test_order_among_tensor_hooks_and_return_ignored():
    z = torch.tensor([1.0, 2.0], requires_grad=True)
    w = z * 3
    seen = []
    w.register_hook(lambda g: seen.append("plain w"))
    register_multi_grad_hook((w, z), lambda gs: seen.append(("multi", [g is not None for g in gs])))
    z.register_hook(lambda g: seen.append("plain z"))
    (w * 2).sum().backward()
    assert seen == ["plain w", ("multi", [True, True]), "plain z"]
    q = torch.tensor([1.0, 2.0], requires_grad=True)
    p = q * 2
    register_multi_grad_hook((p,), lambda gs: (gs[0] * 100,))
    p.sum().backward()
    assert q.grad.tolist() == [2.0, 2.0]


def test_a_reentrant_pass_inside_a_pass_counts_apart():
    """A reentrant checkpoint's recomputation runs a pass of its own inside the outer
    one: w's gradient comes from the inner pass, x's from the outer, each pass calls
    the hook with what it computed (PyTorch 2.13 gives the same two calls)."""
    from srcgrad.utils.checkpoint import checkpoint

    x = torch.tensor([0.5, -1.0], requires_grad=True)
    w = torch.tensor([2.0, 3.0], requires_grad=True)
    seen = []
    register_multi_grad_hook((x, w), lambda gs: seen.append(_values(gs)))
    y = checkpoint(lambda t: (t * w).sin(), x, use_reentrant=True)
    y.sum().backward()
    gx = [2.0 * math.cos(1.0), 3.0 * math.cos(-3.0)]
    gw = [0.5 * math.cos(1.0), -1.0 * math.cos(-3.0)]
    assert [g is None for g in seen[0]] == [True, False] and [g is None for g in seen[1]] == [False, True]
    assert seen[0][1] == pytest.approx(gw, rel=1e-6) and seen[1][0] == pytest.approx(gx, rel=1e-6)


VERSION_ERROR = (
    "one of the variables needed for gradient computation has been modified by an inplace operation: "
    "[srcgrad.FloatTensor [3]], which is output 0 of {}, is at version 1; expected version 0 instead. Hint: "
    "enable anomaly detection to find the operation that failed to compute its gradient, with "
    "srcgrad.autograd.set_detect_anomaly(True, check_nan=False)."
)


def test_increment_version_makes_a_saved_value_stale():
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x.exp()
    increment_version(y)
    with pytest.raises(RuntimeError) as err:
        y.sum().backward()
    assert str(err.value) == VERSION_ERROR.format("Exp")
    x2 = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y2 = x2 * 1
    s2 = y2.sin()
    increment_version([y2])
    with pytest.raises(RuntimeError) as err:
        s2.sum().backward()
    assert str(err.value) == VERSION_ERROR.format("Mul")
    base = torch.ones(4)
    view = base[1:]
    increment_version(view)
    assert (base._version, view._version) == (1, 1)


@pytest.mark.parametrize("bad, message", [
    ([1], "increment_version expects each element of the iterable to be a tensor"),
    ("ab", "increment_version expects each element of the iterable to be a tensor"),
    (3, "increment_version expect a Iterable[Tensor] as input"),
])
def test_increment_version_refusals(bad, message):
    with pytest.raises(RuntimeError) as err:
        increment_version(bad)
    assert str(err.value) == message


def test_node_is_the_class_of_every_grad_fn():
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    assert isinstance((a * 2).grad_fn, Node)
    assert isinstance(a.sum().grad_fn, Node)
    assert issubclass(type((a + 1).grad_fn), Node)
    assert not isinstance(a, Node)
    assert isinstance(a._accumulate_grad(), Node)
