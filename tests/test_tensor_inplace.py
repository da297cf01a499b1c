"""In-place operations on tensors in a graph: a write the graph would see is refused.

PyTorch detects, by version counters at backward, an in-place write into values a
node saved, and rebases the graphs of views. The shim refuses such a write when it
happens (`InPlaceOps._refuse_if_kept`), since backward would otherwise read the
changed values and give a wrong gradient silently. Writes no node reads still work.
"""

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


@pytest.mark.parametrize("program", [_exp_then_add, _saved_input, _base_of_a_view, _a_view, _reshaped, _sigmoid_then_mul])
def test_a_write_the_graph_would_see_is_refused(program):
    with pytest.raises(RuntimeError, match="graph keeps for backward"):
        program(_x())


def test_writes_no_node_reads_are_recorded():
    x = _x()
    y = x * 2
    y *= 3  # mul's backward reads x, not its output
    y.sum().backward()
    assert x.grad.tolist() == [6.0, 6.0, 6.0]
    x = _x()
    y = x.relu()  # relu's backward reads x
    y.sub_(1.0)
    (y * y).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 2 * (X - 1.0))
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


def test_unrecorded_overwrites_of_graph_tensors_are_refused():
    x = _x()
    y = x * 2
    with pytest.raises(NotImplementedError, match="overwrite"):
        y.copy_(torch.zeros(3, dtype=torch.float64))
    with pytest.raises(NotImplementedError, match="overwrite"):
        torch.zeros(3, dtype=torch.float64).copy_(y)
    with pytest.raises(NotImplementedError, match="overwrite"):
        y.normal_()
    with pytest.raises(RuntimeError, match="leaf Variable"):
        x.copy_(torch.zeros(3, dtype=torch.float64))
    with torch.no_grad():
        x.copy_(torch.zeros(3, dtype=torch.float64))
    assert x.tolist() == [0.0, 0.0, 0.0]
