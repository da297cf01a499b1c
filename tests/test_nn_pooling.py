"""max_pool1d, avg_pool1d and the adaptive pools, and their modules, as in PyTorch: values
against direct NumPy loops over PyTorch's windows, gradients against central differences
in float64, indices, PyTorch's node names, reprs and errors; compared with PyTorch itself
where installed."""

import math
import re

import numpy as np
import pytest

import srcgrad as torch
from tensor_checks import check_against_differences

F, nn = torch.nn.functional, torch.nn
RNG = np.random.default_rng(0)


def raises(exc, message):
    return pytest.raises(exc, match="^" + re.escape(message) + "$")


def _adaptive_loops(x, outs, reduce):
    """PyTorch's adaptive windows [floor(i L / o), ceil((i + 1) L / o)) over the last dims."""
    dims = len(outs)
    sizes = x.shape[-dims:]
    y = np.zeros(x.shape[:-dims] + tuple(outs))
    for idx in np.ndindex(*outs):
        window = tuple(slice(math.floor(i * n / o), math.ceil((i + 1) * n / o)) for i, n, o in zip(idx, sizes, outs))
        block = x[(Ellipsis, *window)].reshape(x.shape[:-dims] + (-1,))
        y[(Ellipsis, *idx)] = reduce(block, axis=-1)
    return y


@pytest.mark.parametrize("outs", [(3, 2), (5, 4), (7, 6), (9, 10), (1, 3)])
def test_adaptive_pool2d_against_loops_and_differences(outs):
    x = RNG.standard_normal((2, 3, 7, 6))
    t = torch.tensor(x, requires_grad=True)
    mean, (largest, indices) = F.adaptive_avg_pool2d(t, outs), F.adaptive_max_pool2d(t, outs, return_indices=True)
    assert mean.grad_fn.name() == "AdaptiveAvgPool2DBackward0" and mean.shape == (2, 3) + outs
    assert largest.grad_fn.name() == "AdaptiveMaxPool2DBackward0" and indices.dtype == torch.int64
    np.testing.assert_allclose(mean.detach().numpy(), _adaptive_loops(x, outs, np.mean), rtol=1e-13, atol=1e-14)
    np.testing.assert_array_equal(largest.detach().numpy(), _adaptive_loops(x, outs, np.max))
    flat = x.reshape(2, 3, -1)
    np.testing.assert_array_equal(np.take_along_axis(flat, indices.numpy().reshape(2, 3, -1), -1).reshape(indices.shape),
                                  largest.detach().numpy())
    check_against_differences(lambda a: F.adaptive_avg_pool2d(a, outs), [x[:1]])
    check_against_differences(lambda a: F.adaptive_max_pool2d(a, outs), [x[:1]])


def test_adaptive_pool1d_unbatched_none_and_one():
    x = RNG.standard_normal((2, 3, 9))
    y = F.adaptive_avg_pool1d(torch.tensor(x[0]), 4)
    np.testing.assert_allclose(y.numpy(), _adaptive_loops(x[0], (4,), np.mean), rtol=1e-13)
    y, i = F.adaptive_max_pool1d(torch.tensor(x), 4, return_indices=True)
    np.testing.assert_array_equal(y.numpy(), _adaptive_loops(x, (4,), np.max))
    np.testing.assert_array_equal(np.take_along_axis(x, i.numpy(), -1), y.numpy())
    image = torch.tensor(RNG.standard_normal((3, 5, 4)), requires_grad=True)
    assert F.adaptive_avg_pool2d(image, (None, 2)).shape == (3, 5, 2)
    whole = F.adaptive_avg_pool2d(image, 1)  # PyTorch's shortcut: a mean
    assert whole.grad_fn.name() == "MeanBackward1" and whole.shape == (3, 1, 1)
    np.testing.assert_allclose(whole.detach().numpy()[:, 0, 0], image.detach().numpy().mean((1, 2)), rtol=1e-13)
    check_against_differences(lambda a: F.adaptive_max_pool1d(a, 4), [x[:, :1]])
    check_against_differences(lambda a: F.adaptive_avg_pool1d(a, 12), [x[:1]])


def test_adaptive_max_takes_first_of_ties_and_nan():
    x = np.array([[[1.0, 3.0, 3.0, np.nan, 0.0, 2.0]]])
    y, i = F.adaptive_max_pool1d(torch.tensor(x), 2, return_indices=True)
    np.testing.assert_array_equal(i.numpy(), [[[1, 3]]])
    assert y.numpy()[0, 0, 0] == 3.0 and np.isnan(y.numpy()[0, 0, 1])


def _pool1d_loops(x, kernel, stride, padding, dilation, reduce, fill):
    xp = np.pad(x, ((0, 0), (0, 0), (padding, padding)), constant_values=fill)
    out = (xp.shape[-1] - dilation * (kernel - 1) - 1) // stride + 1
    return np.stack([reduce(xp[..., o * stride:o * stride + dilation * (kernel - 1) + 1:dilation], axis=-1)
                     for o in range(out)], -1)


@pytest.mark.parametrize("kernel,stride,padding,dilation", [(2, 2, 0, 1), (3, 2, 1, 1), (3, 1, 1, 2), (4, 3, 2, 1)])
def test_pool1d_against_loops_and_differences(kernel, stride, padding, dilation):
    x = RNG.standard_normal((2, 3, 9))
    t = torch.tensor(x, requires_grad=True)
    y, i = F.max_pool1d(t, kernel, stride, padding, dilation, return_indices=True)
    assert y.grad_fn.name() == "SqueezeBackward1"
    assert y.grad_fn.next_functions[0][0].name() == "MaxPool2DWithIndicesBackward0"
    np.testing.assert_array_equal(y.detach().numpy(), _pool1d_loops(x, kernel, stride, padding, dilation, np.max, -np.inf))
    np.testing.assert_array_equal(np.take_along_axis(x, i.numpy(), -1), y.detach().numpy())
    mean = F.avg_pool1d(t, kernel, stride, padding)
    assert mean.grad_fn.next_functions[0][0].name() == "AvgPool2DBackward0"
    if dilation == 1:
        np.testing.assert_allclose(mean.detach().numpy(), _pool1d_loops(x, kernel, stride, padding, 1, np.mean, 0.0),
                                   rtol=1e-13)
    check_against_differences(lambda a: F.max_pool1d(a, kernel, stride, padding, dilation), [x[:1]])
    check_against_differences(lambda a: F.avg_pool1d(a, kernel, stride, padding, True, False), [x[:1]])


def test_pool1d_ceil_mode_and_unbatched():
    x = torch.arange(7.0).reshape(1, 7)
    assert F.max_pool1d(x, 2, ceil_mode=True).tolist() == [[1.0, 3.0, 5.0, 6.0]]
    assert F.avg_pool1d(x, 2, ceil_mode=True).tolist() == [[0.5, 2.5, 4.5, 6.0]]
    assert F.avg_pool1d(x, 3, 2, 1, count_include_pad=False).tolist() == [[0.5, 2.0, 4.0, 5.5]]


def test_pool_errors():
    with raises(RuntimeError, "max_pool1d: Expected 2D or 3D (batch mode) tensor with optional 0 dim batch size for "
                              "input, but got:[8]"):
        F.max_pool1d(torch.ones(8), 2)
    with raises(RuntimeError, "max_pool1d() Invalid computed output size: 0"):
        F.max_pool1d(torch.ones(2, 3, 8), 9)
    with raises(RuntimeError, "max_pool1d() padding should be at most half of kernel size, but got padding=2 and "
                              "kernel_size=2"):
        F.max_pool1d(torch.ones(2, 3, 8), 2, 1, 2)
    with raises(RuntimeError, "Given input size: (3x1x8). Calculated output size: (3x1x0). Output size is too small"):
        F.avg_pool1d(torch.ones(2, 3, 8), 9)
    with raises(RuntimeError, "Expected 2 to 3 dimensions, but got 1-dimensional tensor for argument #1 'self' (while "
                              "checking arguments for adaptive_avg_pool1d)"):
        F.adaptive_avg_pool1d(torch.ones(8), 2)
    with raises(RuntimeError, "adaptive_avg_pool1d() argument 'output_size' should contain one int (got 2)"):
        F.adaptive_avg_pool1d(torch.ones(2, 3, 8), (2, 3))
    with raises(ValueError, "Input dimension should be at least 3"):
        F.adaptive_avg_pool2d(torch.ones(8), (2, 3))
    with raises(RuntimeError, "adaptive_max_pool2d(): Expected 3D or 4D tensor, but got: [8]"):
        F.adaptive_max_pool2d(torch.ones(8), 2)
    with raises(RuntimeError, "adaptive_avg_pool2d: elements of output_size must be greater than or equal to 0 but "
                              "received {-1, -1}"):
        F.adaptive_avg_pool2d(torch.ones(2, 3, 4, 4), -1)
    with raises(NotImplementedError, "\"adaptive_avg_pool2d\" not implemented for 'Long'"):
        F.adaptive_avg_pool1d(torch.ones(2, 3, 4, dtype=torch.int64), 2)


def test_pool_modules_print_as_pytorch():
    assert repr(nn.MaxPool1d(3, 2, 1, 2, True, True)) == (
        "MaxPool1d(kernel_size=3, stride=2, padding=1, dilation=2, ceil_mode=True)")
    assert repr(nn.AvgPool1d(3)) == "AvgPool1d(kernel_size=(3,), stride=(3,), padding=(0,))"
    assert repr(nn.AdaptiveAvgPool2d((3, None))) == "AdaptiveAvgPool2d(output_size=(3, None))"
    assert repr(nn.AdaptiveMaxPool1d(2)) == "AdaptiveMaxPool1d(output_size=2)"
    x = torch.randn(2, 3, 6, 5)
    y, i = nn.AdaptiveMaxPool2d(2, return_indices=True)(x)
    assert y.shape == i.shape == (2, 3, 2, 2)
    assert nn.AdaptiveAvgPool1d(3)(x[0]).shape == (3, 6, 3)
    assert nn.MaxPool1d(2)(x[0]).shape == nn.AvgPool1d(2)(x[0]).shape == (3, 6, 2)


def _pytorch_run(lib, x):
    nnf = lib.nn.functional
    xt = lib.tensor(x, requires_grad=True)
    outs = [nnf.max_pool1d(xt[:, :, 0], 3, 2, 1, 2, True), nnf.avg_pool1d(xt[:, :, 1], 3, 2, 1, True, False),
            nnf.adaptive_avg_pool2d(xt, (4, 5)), nnf.adaptive_max_pool2d(xt, (3, 4)),
            nnf.adaptive_avg_pool1d(xt[:, 0], 4), nnf.adaptive_max_pool1d(xt[0], 5, True)[1].double() * xt[0, :, :, :5]]
    names, arrays = [], []
    for y in outs:
        grads = lib.autograd.grad((y * y).sum(), [xt], allow_unused=True)
        arrays += [y.detach().numpy()] + [g.detach().numpy() for g in grads]
        names.append(type(y.grad_fn).__name__ if lib is not torch else y.grad_fn.name())
    return names, arrays


def test_against_pytorch():
    real = pytest.importorskip("torch")
    x = RNG.standard_normal((2, 3, 7, 6))
    mine, theirs = _pytorch_run(torch, x), _pytorch_run(real, x)
    assert mine[0] == theirs[0]
    for a, c in zip(mine[1], theirs[1]):
        np.testing.assert_allclose(a, c, rtol=1e-12, atol=1e-12)
