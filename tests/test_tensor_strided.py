"""as_strided (tensor/strided.py), as PyTorch's: values against NumPy's as_strided over
the input's memory, strides and storage offsets in elements, view semantics (writes
through, version counters, `_base`), gradients against central differences and the
closed form (the output's gradient added at the storage positions it reads, then read
at the input's own), second derivatives, and PyTorch 2.13's errors, written in."""

import re

import numpy as np
import pytest

import srcgrad as torch
from tensor_checks import check_against_differences, check_second_against_differences


def raises(exc, message):
    return pytest.raises(exc, match="^" + re.escape(message) + "$")


def test_values_strides_offset_and_node():
    x = torch.arange(12.0, requires_grad=True)
    y = x.as_strided((2, 3), (1, 2), 3)
    assert y.grad_fn.name() == "AsStridedBackward0" and y.stride() == (1, 2) and y.storage_offset() == 3
    np.testing.assert_array_equal(y.detach().numpy(), [[3, 5, 7], [4, 6, 8]])
    windows = torch.as_strided(x, (10, 3), (1, 1))
    np.testing.assert_array_equal(windows.detach().numpy(),
                                  np.lib.stride_tricks.sliding_window_view(np.arange(12.0), 3))
    assert torch.arange(6).as_strided((2, 2), (1, 2)).tolist() == [[0, 2], [1, 3]]
    assert x.as_strided((), (), 5).item() == 5.0 and x.as_strided((0, 5), (1, 100)).shape == (0, 5)


def test_gradient_adds_at_the_positions_read():
    x = torch.arange(6.0, requires_grad=True)
    y = x.as_strided((3, 3), (1, 1))  # each entry i is read min(i, 2, 5 - i) + 1 times
    (y * torch.arange(9.0).reshape(3, 3)).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [0, 1 + 3, 2 + 4 + 6, 5 + 7, 8, 0])
    check_against_differences(lambda a: a.as_strided((4, 3), (2, 1), 1), [np.linspace(-1, 1, 12)])
    check_second_against_differences(lambda a: a.as_strided((4, 3), (2, 1), 1) ** 3, [np.linspace(-1, 1, 12)])


def test_views_read_their_base_memory():
    base = torch.arange(12.0, requires_grad=True)
    x = base * 1
    # a transposed input: strides count in the memory, not in the input's order
    t = x.reshape(3, 4).t().as_strided((2, 2), (1, 4))
    np.testing.assert_array_equal(t.detach().numpy(), [[0, 4], [1, 5]])
    # entries read outside a sliced input get no gradient
    outside = x[2:].as_strided((2, 2), (1, 1), 0)
    np.testing.assert_array_equal(outside.detach().numpy(), [[0, 1], [1, 2]])
    (g,) = torch.autograd.grad(outside.sum(), base)
    np.testing.assert_array_equal(g.numpy(), [0, 0, 1] + [0] * 9)
    # an expanded input: its entries share memory, the gradient reaches that memory once
    e = torch.arange(3.0, requires_grad=True)
    (g,) = torch.autograd.grad(e.expand(2, 3).as_strided((2,), (1,)).sum(), e)
    np.testing.assert_array_equal(g.numpy(), [1, 1, 0])


def test_writes_go_through_the_view():
    x = torch.arange(6.0)
    y = x.as_strided((2, 2), (1, 1))
    assert y._base is x
    y[0, 1] = 100.0
    assert x.tolist() == [0.0, 100.0, 2.0, 3.0, 4.0, 5.0] and x._version == 1
    leaf = torch.arange(6.0, requires_grad=True)
    z = leaf * 1
    z.as_strided((2, 2), (1, 2)).mul_(2)  # doubles entries 0 to 3
    assert type(z.grad_fn).__name__ == "CopySlices" and z.tolist() == [0.0, 2.0, 4.0, 6.0, 4.0, 5.0]
    (g,) = torch.autograd.grad((z * torch.arange(6.0)).sum(), leaf)
    np.testing.assert_array_equal(g.numpy(), [0, 2, 4, 6, 4, 5])


@pytest.mark.parametrize("call,error,message", [
    (lambda x: x.as_strided((3, 4), (4, 1), 1), RuntimeError,
     "setStorage: sizes [3, 4], strides [4, 1], storage offset 1, and itemsize 4 requiring a storage size of 52 are out "
     "of bounds for storage of size 48"),
    (lambda x: x.as_strided((2, 2), (-1, 1)), RuntimeError,
     "as_strided: Negative strides are not supported at the moment, got strides: [-1, 1]"),
    (lambda x: x.as_strided((2, 2), (1,)), RuntimeError, "mismatch in length of strides and shape"),
    (lambda x: x.as_strided((-1, 2), (1, 1)), RuntimeError,
     "Storage size calculation overflowed with sizes=[-1, 2] and strides=[1, 1]"),
    (lambda x: x.as_strided((2, 2), (1, 1), -1), RuntimeError, "Tensor: invalid storage offset -1"),
    (lambda x: x.as_strided((2,), (1.5,)), TypeError,
     "as_strided(): argument 'stride' (position 2) must be tuple of ints, but found element of type float at pos 0"),
])
def test_errors(call, error, message):
    with raises(error, message):
        call(torch.arange(12, dtype=torch.float32))


def test_against_pytorch():
    real = pytest.importorskip("torch")
    results = []
    for lib in (real, torch):
        leaf = lib.arange(12.0, dtype=lib.float64, requires_grad=True)
        x = leaf * 1
        outs = [x.as_strided((3, 3), (2, 1), 1), x[2:8].as_strided((3, 3), (2, 1), 5),
                x.reshape(2, 2, 3).permute(2, 0, 1).as_strided((2, 2, 2), (3, 1, 6)),
                leaf[:4].expand(3, 4).as_strided((3, 3), (1, 1))]
        total = sum((o * lib.tensor(np.cos(np.arange(o.numel())).reshape(o.shape))).sum() for o in outs)
        (g,) = lib.autograd.grad(total, leaf)
        results.append([o.detach().numpy() for o in outs] + [g.numpy()] + [o.storage_offset() for o in outs])
    for mine, theirs in zip(results[1], results[0]):
        np.testing.assert_allclose(mine, theirs, rtol=1e-13)
