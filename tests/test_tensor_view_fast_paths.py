"""The view ops' fast path (`ops.view_op`) gives what the general code gives.

- `expand`'s repeating view is the array `np.broadcast_to` gives (shape, strides,
  memory, values, read-only), whichever way it is made;
- `x[i:j]`, `x[:]`, `x[i]`, `t()`, `view`, `reshape`, `unsqueeze` and `expand` give
  views whose nodes, gradients and in-place behaviour are PyTorch's: a write into the
  base is seen by every view, a write into a view by the base, and a node that saved a
  view refuses backward after it.
"""

import itertools

import numpy as np
import pytest

import srcgrad as torch
from srcgrad.tensor.shaping import _expand_view


def _input(shape, contiguous, writeable):
    size = int(np.prod(shape))
    x = np.arange(1.0, 2 * size + 2, dtype=np.float32)[1:][: 2 * size : 2 if not contiguous else 1]
    x = (x if not contiguous else x[:size]).reshape(shape)
    x.flags.writeable = writeable
    return x


@pytest.mark.parametrize("contiguous", [True, False])
@pytest.mark.parametrize("writeable", [True, False])
@pytest.mark.parametrize("shape, target", [
    ((3,), (2, 3)), ((1,), (4,)), ((1, 1), (1, 4)), ((2, 1), (3, 2, 5)), ((), (2, 2)), ((1, 3), (2, 1, 3)),
])
def test_expand_view_is_broadcast_to(shape, target, contiguous, writeable):
    x = _input(shape, contiguous, writeable)
    got, want = _expand_view(x, target), np.broadcast_to(x, target)
    assert (got.shape, got.strides, got.dtype) == (want.shape, want.strides, want.dtype)
    assert got.__array_interface__["data"] == want.__array_interface__["data"]
    assert not got.flags.writeable
    np.testing.assert_array_equal(got, want)


def test_expand_of_size_one_dims_only_stays_writable():
    x = np.arange(3.0, dtype=np.float32).reshape(3, 1)
    view = _expand_view(x, (1, 3, 1))
    assert view.flags.writeable and np.may_share_memory(view, x)


CASES = {
    "a[1:]": (lambda a: a[1:], "SliceBackward0"),
    "a[:]": (lambda a: a[:], "AliasBackward0"),
    "a[1]": (lambda a: a[1], "SelectBackward0"),
    "a.view(3, 1)": (lambda a: a.view(3, 1), "ViewBackward0"),
    "a.reshape(1, 3)": (lambda a: a.reshape(1, 3), "ViewBackward0"),
    "a.unsqueeze(-1)": (lambda a: a.unsqueeze(-1), "UnsqueezeBackward0"),
    "a.expand(2, 3)": (lambda a: a.expand(2, 3), "ExpandBackward0"),
    "a.view(1, 3).t()": (lambda a: a.view(1, 3).t(), "TBackward0"),
}


@pytest.mark.parametrize("label", list(CASES))
def test_view_node_and_gradient(label):
    op, name = CASES[label]
    a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    v = op(a)
    assert type(v.grad_fn).__name__ == name and v._base is a
    before = "ViewBackward0" if label.endswith(".t()") else "AccumulateGrad"
    assert [type(f).__name__ for f, _ in v.grad_fn.next_functions] == [before]
    weights = torch.tensor(np.arange(1.0, v.numel() + 1, dtype=np.float32).reshape(v.shape))
    (v * weights).sum().backward()
    # d/da of sum(w * view(a)): each element of a gets the weights of the places it appears in
    expected = np.zeros(3, np.float32)
    positions = op(torch.tensor([0.0, 1.0, 2.0])).numpy().astype(int).reshape(-1)
    np.add.at(expected, positions, weights.numpy().reshape(-1))
    np.testing.assert_array_equal(a.grad.numpy(), expected)


@pytest.mark.parametrize("label, grad_mode", itertools.product([k for k in CASES if k != "a.expand(2, 3)"], [True, False]))
def test_writes_are_seen_through_views(label, grad_mode):
    op, _ = CASES[label]
    base = torch.tensor([1.0, 2.0, 3.0])
    with torch.set_grad_enabled(grad_mode):
        first, second = op(base), op(base)
    base.mul_(10.0)  # a write into the base: both views see it
    np.testing.assert_array_equal(first.numpy(), op(torch.tensor([10.0, 20.0, 30.0])).numpy())
    second.add_(1.0)  # a write into a view: the base and the other view see it
    assert base._version == first._version == second._version == 2
    np.testing.assert_array_equal(first.numpy(), second.numpy())
    assert float(base.sum()) > 60.0


def test_saved_view_refuses_backward_after_a_write_into_its_base():
    a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    b = a * 1.0
    v = b[1:]
    loss = (v * v).sum()  # MulBackward0 saves v
    b.mul_(2.0)
    with pytest.raises(RuntimeError, match=r"which is output 0 of AsStrided, is at version 1; expected version 0"):
        loss.backward()
