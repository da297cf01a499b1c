"""conv1d, conv2d, max_pool2d, avg_pool2d and pad, and the modules Conv1d, Conv2d,
MaxPool2d, AvgPool2d, as in PyTorch: values against direct NumPy loops and np.pad,
gradients (and second derivatives of the convolution) against central differences in
float64, PyTorch's node names, output shapes, default initialization bounds, reprs and
errors; compared with PyTorch itself where installed."""

import itertools
import re

import numpy as np
import pytest

import srcgrad as torch
from tensor_checks import check_against_differences, check_second_against_differences

F, nn = torch.nn.functional, torch.nn
RNG = np.random.default_rng(0)


def raises(exc, message):
    return pytest.raises(exc, match="^" + re.escape(message) + "$")


def _conv2d_loops(x, w, b, stride, padding, dilation, groups):
    """Cross-correlation by its definition, one output entry at a time."""
    n, c, _, _ = x.shape
    out_channels, per_group, kh, kw = w.shape
    xp = np.pad(x, ((0, 0), (0, 0), (padding[0],) * 2, (padding[1],) * 2))
    oh = (xp.shape[2] - dilation[0] * (kh - 1) - 1) // stride[0] + 1
    ow = (xp.shape[3] - dilation[1] * (kw - 1) - 1) // stride[1] + 1
    y = np.zeros((n, out_channels, oh, ow))
    per_out = out_channels // groups
    for s, o, i, j in itertools.product(range(n), range(out_channels), range(oh), range(ow)):
        g = o // per_out
        for ci, p, q in itertools.product(range(per_group), range(kh), range(kw)):
            y[s, o, i, j] += w[o, ci, p, q] * xp[s, g * per_group + ci, i * stride[0] + p * dilation[0],
                                                j * stride[1] + q * dilation[1]]
    return y if b is None else y + b[:, None, None]


@pytest.mark.parametrize("stride,padding,dilation,groups", [
    ((1, 1), (0, 0), (1, 1), 1), ((2, 1), (1, 2), (1, 2), 2), ((1, 2), (2, 0), (2, 1), 4)])
def test_conv2d_against_loops_and_differences(stride, padding, dilation, groups):
    x, w, b = RNG.standard_normal((2, 4, 6, 5)), RNG.standard_normal((4, 4 // groups, 3, 2)), RNG.standard_normal(4)
    y = F.conv2d(torch.tensor(x, requires_grad=True), torch.tensor(w), torch.tensor(b), stride, padding, dilation,
                 groups)
    expected = _conv2d_loops(x, w, b, stride, padding, dilation, groups)
    assert y.grad_fn.name() == "ConvolutionBackward0" and y.shape == expected.shape and y.dtype == torch.float64
    np.testing.assert_allclose(y.detach().numpy(), expected, rtol=1e-12, atol=1e-13)
    conv = lambda *t: F.conv2d(t[0], t[1], t[2], stride, padding, dilation, groups)  # noqa: E731
    check_against_differences(conv, [x[:1], w, b])


def test_conv_second_derivatives_unbatched_input_and_same_padding():
    x, w, b = RNG.standard_normal((3, 3, 4)), RNG.standard_normal((2, 3, 2, 2)), RNG.standard_normal(2)
    check_second_against_differences(lambda *t: F.conv2d(t[0], t[1], t[2], padding=1) ** 2, [x, w, b])
    y = F.conv2d(torch.tensor(x), torch.tensor(w), padding="same")
    full = _conv2d_loops(x[None], w, None, (1, 1), (1, 1), (1, 1), 1)[0]
    assert y.shape == (2, 3, 4)  # 'same' pads 0 before and 1 after
    np.testing.assert_allclose(y.numpy(), full[:, 1:, 1:], rtol=1e-12, atol=1e-13)
    signal, kernel = RNG.standard_normal((2, 3, 9)), RNG.standard_normal((4, 3, 3))
    y = F.conv1d(torch.tensor(signal), torch.tensor(kernel), stride=2, padding=1, dilation=2)
    expected = _conv2d_loops(signal[:, :, None], kernel[:, :, None], None, (1, 2), (0, 1), (1, 2), 1)[:, :, 0]
    assert y.shape == (2, 4, 4)
    np.testing.assert_allclose(y.numpy(), expected, rtol=1e-12, atol=1e-13)
    check_against_differences(lambda *t: F.conv1d(t[0], t[1], groups=3), [signal, RNG.standard_normal((3, 1, 2))])


def test_conv_errors():
    with raises(RuntimeError, "Given groups=1, weight of size [4, 3, 3, 3], expected input[2, 5, 6, 6] to have 3 "
                              "channels, but got 5 channels instead"):
        F.conv2d(torch.ones(2, 5, 6, 6), torch.ones(4, 3, 3, 3))
    with raises(RuntimeError, "Calculated padded input size per channel: (2 x 2). Kernel size: (3 x 3). Kernel size "
                              "can't be greater than actual input size"):
        F.conv2d(torch.ones(1, 3, 2, 2), torch.ones(4, 3, 3, 3))
    with raises(RuntimeError, "Expected 2D (unbatched) or 3D (batched) input to conv1d, but got input of size: [5]"):
        F.conv1d(torch.ones(5), torch.ones(4, 3, 3))
    with raises(RuntimeError, "expected scalar type Float but found Double"):
        F.conv2d(torch.ones(1, 3, 5, 5), torch.ones(4, 3, 3, 3, dtype=torch.float64))
    with raises(RuntimeError, "Input type (float) and bias type (double) should be the same"):
        F.conv2d(torch.ones(1, 3, 5, 5), torch.ones(4, 3, 3, 3), torch.ones(4, dtype=torch.float64))
    with raises(RuntimeError, "expected stride to be a single integer value or a list of 1 values to match the "
                              "convolution dimensions, but got stride=[1, 1]"):
        F.conv2d(torch.ones(1, 3, 5, 5), torch.ones(4, 3, 3))
    with raises(ValueError, "padding='same' is not supported for strided convolutions"):
        F.conv1d(torch.ones(1, 3, 5), torch.ones(4, 3, 3), stride=2, padding="same")


def test_conv_modules_initialize_print_and_pad():
    torch.manual_seed(0)
    conv = nn.Conv2d(3, 8, 3)
    assert repr(conv) == "Conv2d(3, 8, kernel_size=(3, 3), stride=(1, 1))"
    assert [(n, p.shape, p.dtype) for n, p in conv.named_parameters()] == [
        ("weight", (8, 3, 3, 3), torch.float32), ("bias", (8,), torch.float32)]
    bound = 1 / np.sqrt(27)
    w = conv.weight.detach().numpy()
    assert np.abs(w).max() <= bound and np.abs(w).max() > 0.9 * bound and np.abs(conv.bias.detach().numpy()).max() <= bound
    assert repr(nn.Conv1d(4, 6, 3, stride=2, padding=1, dilation=2, groups=2, bias=False)) == (
        "Conv1d(4, 6, kernel_size=(3,), stride=(2,), padding=(1,), dilation=(2,), groups=2, bias=False)")
    reflect = nn.Conv2d(2, 2, 3, padding="same", padding_mode="reflect")
    assert repr(reflect) == "Conv2d(2, 2, kernel_size=(3, 3), stride=(1, 1), padding=same, padding_mode=reflect)"
    x = RNG.standard_normal((1, 2, 5, 4)).astype(np.float32)
    y = reflect(torch.tensor(x))
    padded = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)), mode="reflect")
    expected = _conv2d_loops(padded, reflect.weight.detach().numpy(), reflect.bias.detach().numpy(), (1, 1), (0, 0),
                             (1, 1), 1)
    assert y.dtype == torch.float32
    np.testing.assert_allclose(y.detach().numpy(), expected, rtol=1e-4, atol=1e-5)
    with raises(ValueError, "in_channels must be divisible by groups"):
        nn.Conv2d(3, 8, 3, groups=2)


def _pool_loops(x, kernel, stride, padding, reduce, fill):
    n, c, h, w = x.shape
    xp = np.pad(x, ((0, 0), (0, 0), (padding,) * 2, (padding,) * 2), constant_values=fill)
    oh, ow = (h + 2 * padding - kernel) // stride + 1, (w + 2 * padding - kernel) // stride + 1
    y = np.zeros((n, c, oh, ow))
    for i, j in itertools.product(range(oh), range(ow)):
        y[:, :, i, j] = reduce(xp[:, :, i * stride:i * stride + kernel, j * stride:j * stride + kernel], axis=(2, 3))
    return y


def test_max_pool2d_values_indices_and_gradient():
    x = RNG.standard_normal((2, 3, 7, 6))
    y, indices = F.max_pool2d(torch.tensor(x, requires_grad=True), 3, 2, 1, return_indices=True)
    assert y.grad_fn.name() == "MaxPool2DWithIndicesBackward0" and y.shape == (2, 3, 4, 3)
    np.testing.assert_array_equal(y.detach().numpy(), _pool_loops(x, 3, 2, 1, np.max, -np.inf))
    assert indices.dtype == torch.int64
    np.testing.assert_array_equal(x.reshape(2, 3, -1)[np.arange(2)[:, None, None], np.arange(3)[None, :, None],
                                                      indices.numpy().reshape(2, 3, -1)], y.detach().numpy().reshape(2, 3, -1))
    check_against_differences(lambda t: F.max_pool2d(t, 2), [x[:1]])
    ties = torch.tensor([[[1.0, 1.0], [0.0, 1.0]]], requires_grad=True)
    F.max_pool2d(ties, 2).sum().backward()
    assert ties.grad.tolist() == [[[1.0, 0.0], [0.0, 0.0]]]  # the first maximum, as PyTorch's kernel
    assert F.max_pool2d(torch.ones(1, 1, 5, 5), 2, ceil_mode=True).shape == (1, 1, 3, 3)
    with raises(RuntimeError, "pad should be at most half of effective kernel size, but got pad=2, kernel_size=3 and "
                              "dilation=1"):
        F.max_pool2d(torch.tensor(x), 3, 1, 2)


def test_avg_pool2d_divisors_and_gradient():
    x = RNG.standard_normal((2, 3, 7, 6))
    y = F.avg_pool2d(torch.tensor(x, requires_grad=True), 3, 2, 1)
    assert y.grad_fn.name() == "AvgPool2DBackward0" and y.shape == (2, 3, 4, 3)
    np.testing.assert_allclose(y.detach().numpy(), _pool_loops(x, 3, 2, 1, np.sum, 0.0) / 9, rtol=1e-13)
    counted = _pool_loops(np.ones_like(x), 3, 2, 1, np.sum, 0.0)
    np.testing.assert_allclose(F.avg_pool2d(torch.tensor(x), 3, 2, 1, count_include_pad=False).numpy(),
                               _pool_loops(x, 3, 2, 1, np.sum, 0.0) / counted, rtol=1e-13)
    np.testing.assert_allclose(F.avg_pool2d(torch.tensor(x), 2, divisor_override=3).numpy(),
                               _pool_loops(x, 2, 2, 0, np.sum, 0.0) / 3, rtol=1e-13)
    check_against_differences(lambda t: F.avg_pool2d(t, 3, 2, 1, ceil_mode=True), [x[:1]])
    assert F.avg_pool2d(torch.ones(3, 5, 5), 2).shape == (3, 2, 2)


def test_pool_modules_print_as_pytorch():
    assert repr(nn.MaxPool2d(2)) == "MaxPool2d(kernel_size=2, stride=2, padding=0, dilation=1, ceil_mode=False)"
    assert repr(nn.AvgPool2d(3, stride=2, padding=1)) == "AvgPool2d(kernel_size=3, stride=2, padding=1)"
    x = torch.tensor(RNG.standard_normal((1, 2, 4, 4)))
    assert nn.MaxPool2d(2)(x).tolist() == F.max_pool2d(x, 2).tolist()
    assert nn.AvgPool2d(2)(x).tolist() == F.avg_pool2d(x, 2).tolist()


@pytest.mark.parametrize("mode,numpy_mode,pad", [
    ("constant", "constant", (1, 2, 0, 3)), ("reflect", "reflect", (2, 1, 1, 2)), ("replicate", "edge", (2, 1, 3, 0)),
    ("circular", "wrap", (1, 2, 2, 1))])
def test_pad_against_numpy(mode, numpy_mode, pad):
    x = RNG.standard_normal((2, 3, 4))
    y = F.pad(torch.tensor(x), pad, mode)
    np.testing.assert_array_equal(y.numpy(), np.pad(x, ((0, 0), pad[2:], pad[:2]), mode=numpy_mode))
    check_against_differences(lambda t: F.pad(t, pad, mode), [x[:1]])
    nodes = {"constant": "ConstantPadNdBackward0", "reflect": "ReflectionPad2DBackward0",
             "replicate": "ReplicationPad2DBackward0", "circular": "IndexBackward0"}
    assert F.pad(torch.tensor(x, requires_grad=True), pad, mode).grad_fn.name() == nodes[mode]


def test_pad_constant_value_cropping_and_errors():
    x = RNG.standard_normal((2, 5))
    np.testing.assert_array_equal(F.pad(torch.tensor(x), (-1, 2), value=1.5).numpy(),
                                  np.pad(x[:, 1:], ((0, 0), (0, 2)), constant_values=1.5))
    with raises(RuntimeError, "Padding length must be divisible by 2"):
        F.pad(torch.tensor(x), (1, 2, 3))
    with raises(RuntimeError, "Argument #4: Padding size should be less than the corresponding input dimension, but "
                              "got: padding (5, 1) at dimension 1 of input [2, 5]"):
        F.pad(torch.tensor(x), (5, 1), "reflect")
    with pytest.raises(NotImplementedError, match="^Padding size 2 is not supported for 1D input tensor."):
        F.pad(torch.ones(5), (1, 1), "reflect")


def _pytorch_run(lib, x, w, b):
    nnf = lib.nn.functional
    xt, wt, bt = (lib.tensor(a, requires_grad=True) for a in (x, w, b))
    outs = [nnf.conv2d(xt, wt, bt, (2, 1), 1, (1, 2), 2), nnf.conv1d(xt[0, :2, 0], wt[:, :, :, 0], bt, 1, "same"),
            nnf.max_pool2d(xt, 3, 2, 1, ceil_mode=True), nnf.avg_pool2d(xt, 3, 2, 1, True, False),
            nnf.pad(xt, (1, 2, 2, 1), "reflect"), nnf.pad(xt, (1, -1), value=2.0)]
    names, arrays = [], []
    for y in outs:
        grads = lib.autograd.grad((y * y).sum(), [xt, wt, bt], create_graph=True, allow_unused=True)
        arrays += [y.detach().numpy()] + [np.zeros(1) if g is None else g.detach().numpy() for g in grads]
        names.append(type(y.grad_fn).__name__)
    return names, arrays


def test_against_pytorch():
    real = pytest.importorskip("torch")
    x, w, b = RNG.standard_normal((2, 4, 7, 6)), RNG.standard_normal((6, 2, 3, 2)), RNG.standard_normal(6)
    mine, theirs = _pytorch_run(torch, x, w, b), _pytorch_run(real, x, w, b)
    assert mine[0] == theirs[0]
    for a, c in zip(mine[1], theirs[1]):
        np.testing.assert_allclose(a, c, rtol=1e-12, atol=1e-12)
