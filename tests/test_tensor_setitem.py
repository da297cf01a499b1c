"""Item assignment into a tensor in a graph (`y[index] = v`), recorded as PyTorch records
it: y becomes the output of a CopySlices node (IndexPutBackward0 for an advanced index)
whose backward gives the old values a zero gradient where they were overwritten and `v`
the gradient of the places it was written to (rules/scatter.py's `index_put`). The
expected values are PyTorch 2.13's (tests/test_tensor_torch.py compares the two where
PyTorch is installed), or follow by hand; every gradient is also checked against central
differences of the same NumPy computation."""

import numpy as np
import pytest

import srcgrad as torch


def _numeric(f, x, h=1e-6):
    x = np.asarray(x, dtype=np.float64)
    out = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        e = np.zeros_like(x)
        e[i] = h
        out[i] = (f(x + e) - f(x - e)) / (2 * h)
    return out


def test_slices_of_a_clone_written_with_numbers_and_tensors():
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    w = torch.tensor([0.5, -1.0], requires_grad=True)
    y = x.clone()
    y[0] = 5.0
    y[1:] = w * 2
    assert y.tolist() == [5.0, 1.0, -2.0] and type(y.grad_fn).__name__ == "CopySlices"
    assert repr(y) == "tensor([ 5.,  1., -2.], grad_fn=<CopySlices>)"
    (y * y).sum().backward()
    assert x.grad.tolist() == [0.0, 0.0, 0.0]  # every value of x was overwritten
    assert w.grad.tolist() == [4.0, -8.0]  # d/dw sum((2w)^2) = 8w


def test_a_constant_tensor_written_with_a_tracked_value_joins_the_graph():
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    z = torch.zeros(2, 3)
    z[1] = x
    assert z.requires_grad and not z.is_leaf and type(z.grad_fn).__name__ == "CopySlices"
    (z * z).sum().backward()
    assert x.grad.tolist() == [2.0, 4.0, 6.0]


def test_an_advanced_index_keeps_the_value_written_last():
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    m = x * 1.0
    v = torch.tensor([7.0, 8.0], requires_grad=True)
    m[[0, 0]] = v
    assert m.tolist() == [8.0, 2.0, 3.0] and repr(m).endswith("grad_fn=<IndexPutBackward0>)")
    (m * m).sum().backward()
    assert x.grad.tolist() == [0.0, 4.0, 6.0]
    assert v.grad.tolist() == [16.0, 16.0]  # PyTorch's: each value gets its place's gradient


def test_a_value_with_leading_unit_dims_and_a_wider_dtype():
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    t = x * 1.0
    t[1] = torch.ones(1, 1)
    assert t.tolist() == [1.0, 1.0, 3.0]
    v = torch.ones(3, dtype=torch.float64)
    v[0] = x[0]
    assert v.dtype == torch.float64
    (v * 3.0).sum().backward()
    assert x.grad.dtype == torch.float32 and x.grad.tolist() == [3.0, 0.0, 0.0]


def test_the_gradient_matches_central_differences():
    data = np.array([[0.3, -1.2, 0.8], [1.5, 0.2, -0.4]])
    rows = np.array([1, 0])

    def program(lib, a):
        y = lib.tanh(a) * 2.0
        y[:, 0] = a[:, 2] ** 2
        y[rows, 1] = a[:, 0] * a[:, 1]
        return (y.exp() * y).sum() if lib is torch else np.sum(np.exp(y) * y)

    def numpy_program(a):
        return program(np, a.copy())

    a = torch.tensor(data, dtype=torch.float64, requires_grad=True)
    program(torch, a).backward()
    np.testing.assert_allclose(a.grad.numpy(), _numeric(numpy_program, data), rtol=1e-6, atol=1e-8)


def test_a_shape_mismatch_is_pytorchs_error():
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    r = x * 1.0
    with pytest.raises(RuntimeError, match=r"The expanded size of the tensor \(2\) must match the existing size \(3\)"):
        r[0:2] = torch.ones(3)
    with pytest.raises(RuntimeError, match=r"shape mismatch: value tensor of shape \[3\] cannot be broadcast"):
        r[[0, 1]] = torch.ones(3)


def test_no_grad_records_nothing_and_a_leaf_refuses():
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    with torch.no_grad():
        a = x * 1.0
        a[0] = 3.0
    assert not a.requires_grad and a.grad_fn is None
    with pytest.raises(RuntimeError, match="a view of a leaf Variable that requires grad"):
        x[0] = 1.0


def test_a_write_into_a_tensor_that_views_read_rebases_them():
    """PyTorch's graph and gradient (PyTorch 2.13)."""
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    u = x * 1.0
    first = u[1]
    u[0] = first * 2.0
    assert type(u.grad_fn).__name__ == "CopySlices"
    assert [type(f).__name__ for f, _ in u.grad_fn.next_functions] == ["MulBackward0", "MulBackward0"]
    assert type(first.grad_fn).__name__ == "AsStridedBackward0"
    (u * first).sum().backward()
    assert x.grad.tolist() == [0.0, 15.0, 2.0]


def test_a_saved_input_overwritten_raises_at_backward():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    b = x * 2
    c = b * b  # saves b
    b[0] = 0.0
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        c.sum().backward()
