"""The 3-D layers (conv3d, conv_transpose3d, max_pool3d, avg_pool3d, adaptive_avg_pool3d,
BatchNorm3d, InstanceNorm3d and their modules), served by the N-d code of the 1-D and 2-D
ones: values against direct NumPy loops over PyTorch's windows, gradients (and second
derivatives of the convolution) against central differences in float64, PyTorch's node
names, indices, reprs and errors (checked in PyTorch 2.13); compared with PyTorch itself
where installed."""

import itertools
import math
import re

import numpy as np
import pytest

import srcgrad as torch
from tensor_checks import check_against_differences, check_second_against_differences

F, nn = torch.nn.functional, torch.nn
RNG = np.random.default_rng(0)


def raises(exc, message):
    return pytest.raises(exc, match="^" + re.escape(message) + "$")


def _conv3d_loops(x, w, b, stride, padding, dilation):
    n, c, *sizes = x.shape
    o, _, *kernel = w.shape
    xp = np.pad(x, [(0, 0), (0, 0)] + [(padding, padding)] * 3)
    outs = [(sizes[d] + 2 * padding - dilation * (kernel[d] - 1) - 1) // stride + 1 for d in range(3)]
    y = np.zeros((n, o, *outs))
    for i, j, k in itertools.product(*map(range, outs)):
        block = xp[:, :, i * stride:i * stride + dilation * (kernel[0] - 1) + 1:dilation,
                   j * stride:j * stride + dilation * (kernel[1] - 1) + 1:dilation,
                   k * stride:k * stride + dilation * (kernel[2] - 1) + 1:dilation]
        y[:, :, i, j, k] = np.einsum("ncdhw,ocdhw->no", block, w) + b
    return y


@pytest.mark.parametrize("stride,padding,dilation", [(1, 0, 1), (2, 1, 1), (1, 2, 2)])
def test_conv3d_against_loops_and_differences(stride, padding, dilation):
    x, w, b = RNG.standard_normal((2, 3, 5, 6, 4)), RNG.standard_normal((4, 3, 2, 3, 2)), RNG.standard_normal(4)
    y = F.conv3d(torch.tensor(x, requires_grad=True), torch.tensor(w), torch.tensor(b), stride, padding, dilation)
    assert y.grad_fn.name() == "ConvolutionBackward0" and y.dtype == torch.float64
    np.testing.assert_allclose(y.detach().numpy(), _conv3d_loops(x, w, b, stride, padding, dilation), rtol=1e-12)
    small = [RNG.standard_normal((1, 2, 3, 4, 3)), RNG.standard_normal((2, 2, 2, 2, 2)), RNG.standard_normal(2)]
    check_against_differences(lambda a, k, c: F.conv3d(a, k, c, stride, padding, dilation), small)
    check_second_against_differences(lambda a, k: F.conv3d(a, k, None, stride, padding, dilation), small[:2])


def test_conv3d_unbatched_same_groups_and_module():
    x = torch.tensor(RNG.standard_normal((4, 3, 5, 4)))
    w = torch.tensor(RNG.standard_normal((6, 2, 3, 1, 2)))
    y = F.conv3d(x, w, padding="same", groups=2)
    assert y.shape == (6, 3, 5, 4)
    halves = [F.conv3d(x[2 * g:2 * g + 2], w[3 * g:3 * g + 3], padding="same") for g in range(2)]
    np.testing.assert_allclose(y.numpy(), torch.cat(halves).numpy(), rtol=1e-12)
    torch.manual_seed(0)
    conv = nn.Conv3d(2, 4, (2, 3, 1), stride=2, padding=1, bias=False)
    assert repr(conv) == "Conv3d(2, 4, kernel_size=(2, 3, 1), stride=(2, 2, 2), padding=(1, 1, 1), bias=False)"
    bound = 1 / math.sqrt(2 * 6)
    assert conv.weight.shape == (4, 2, 2, 3, 1) and np.abs(conv.weight.detach().numpy()).max() <= bound
    reflect = nn.Conv3d(1, 1, 3, padding=1, padding_mode="reflect", dtype=torch.float64)
    a = torch.tensor(RNG.standard_normal((1, 1, 4, 4, 4)))
    np.testing.assert_allclose(reflect(a).detach().numpy(),
                               F.conv3d(F.pad(a, (1,) * 6, mode="reflect"), reflect.weight, reflect.bias).detach().numpy())


def test_conv_transpose3d_is_the_adjoint_of_conv3d():
    x, w = RNG.standard_normal((2, 3, 4, 3, 5)), RNG.standard_normal((3, 2, 2, 3, 2))
    y = F.conv_transpose3d(torch.tensor(x), torch.tensor(w), stride=2, padding=1, output_padding=1)
    assert y.shape == (2, 2, 7, 6, 9) and y.grad_fn is None
    # <conv_transpose(x), z> = <x, conv(z)> with the same weight
    z = RNG.standard_normal(y.shape)
    inner = (y.numpy() * z).sum()
    np.testing.assert_allclose(inner, (x * F.conv3d(torch.tensor(z), torch.tensor(w), stride=2, padding=1).numpy()).sum())
    assert nn.ConvTranspose3d(2, 4, 2, groups=2).weight.shape == (2, 2, 2, 2, 2)
    check_against_differences(lambda a, k: F.conv_transpose3d(a, k, stride=2),
                              [RNG.standard_normal((1, 2, 2, 2, 2)), RNG.standard_normal((2, 1, 2, 2, 2))])


def _pool3d_loops(x, kernel, stride, padding, reduce, fill):
    xp = np.pad(x, [(0, 0)] * (x.ndim - 3) + [(p, p) for p in padding], constant_values=fill)
    outs = [(x.shape[-3 + d] + 2 * padding[d] - kernel[d]) // stride[d] + 1 for d in range(3)]
    y = np.zeros(x.shape[:-3] + tuple(outs))
    for idx in itertools.product(*map(range, outs)):
        window = tuple(slice(i * s, i * s + k) for i, s, k in zip(idx, stride, kernel))
        y[(Ellipsis, *idx)] = reduce(xp[(Ellipsis, *window)].reshape(x.shape[:-3] + (-1,)), axis=-1)
    return y


def test_max_pool3d_values_indices_and_gradient():
    x = RNG.standard_normal((2, 3, 5, 6, 7))
    t = torch.tensor(x, requires_grad=True)
    y, indices = F.max_pool3d(t, (2, 3, 2), (1, 2, 3), (1, 1, 0), return_indices=True)
    assert y.grad_fn.name() == "MaxPool3DWithIndicesBackward0" and indices.dtype == torch.int64
    np.testing.assert_array_equal(y.detach().numpy(), _pool3d_loops(x, (2, 3, 2), (1, 2, 3), (1, 1, 0), np.max, -np.inf))
    # indices are flat over (D, H, W): (d * H + h) * W + w
    flat = x.reshape(2, 3, -1)
    np.testing.assert_array_equal(np.take_along_axis(flat, indices.numpy().reshape(2, 3, -1), -1).reshape(y.shape),
                                  y.detach().numpy())
    check_against_differences(lambda a: F.max_pool3d(a, 2, 1), [RNG.standard_normal((1, 2, 3, 3, 4))])
    unbatched = F.max_pool3d(torch.tensor(x[0]), 2, ceil_mode=True)
    assert unbatched.shape == (3, 3, 3, 4)
    assert repr(nn.MaxPool3d(2)) == "MaxPool3d(kernel_size=2, stride=2, padding=0, dilation=1, ceil_mode=False)"
    with raises(NotImplementedError, "\"max_pool3d\" not implemented for 'Bool'"):
        F.max_pool3d(torch.ones(1, 2, 2, 2, dtype=torch.bool), 2)


@pytest.mark.parametrize("count_include_pad,divisor_override", [(True, None), (False, None), (True, 5)])
def test_avg_pool3d_divisors_and_gradient(count_include_pad, divisor_override):
    x = RNG.standard_normal((2, 2, 4, 5, 3))
    y = F.avg_pool3d(torch.tensor(x, requires_grad=True), 3, 2, 1, False, count_include_pad, divisor_override)
    assert y.grad_fn.name() == "AvgPool3DBackward0" and y.shape == (2, 2, 2, 3, 2)
    sums = _pool3d_loops(x, (3,) * 3, (2,) * 3, (1,) * 3, np.sum, 0.0)
    if divisor_override:
        divisor = divisor_override
    elif count_include_pad:
        divisor = 27.0
    else:
        divisor = _pool3d_loops(np.ones_like(x), (3,) * 3, (2,) * 3, (1,) * 3, np.sum, 0.0)
    np.testing.assert_allclose(y.detach().numpy(), sums / divisor, rtol=1e-12)
    check_against_differences(lambda a: F.avg_pool3d(a, 3, 2, 1, False, count_include_pad, divisor_override),
                              [RNG.standard_normal((1, 1, 4, 3, 3))])


def test_integer_average_pools_truncate_as_pytorchs():
    x = torch.tensor([[[[1, 2], [2, 2]], [[-1, -2], [-2, -3]]]])  # sums 7 and -8
    assert F.avg_pool2d(x, 2).flatten().tolist() == [1, -2] and F.avg_pool2d(x, 2).dtype == torch.int64
    assert F.avg_pool2d(x, 2, divisor_override=3).flatten().tolist() == [2, -2]
    assert F.avg_pool3d(x.unsqueeze(0), (1, 2, 2)).flatten().tolist() == [1, -2]
    with raises(NotImplementedError, "\"avg_pool2d\" not implemented for 'Int'"):
        F.avg_pool2d(x.int(), 2)
    with raises(NotImplementedError, "\"avg_pool2d\" not implemented for 'Bool'"):
        F.avg_pool2d(x.bool(), 2)
    with raises(NotImplementedError, "\"avg_pool3d_out_frame\" not implemented for 'Half'"):
        F.avg_pool3d(x.half(), 1)


@pytest.mark.parametrize("outs", [(3, 2, 4), (5, 6, 7), (7, 8, 9), (1, 1, 2), (None, 3, 1)])
def test_adaptive_avg_pool3d_against_loops_and_differences(outs):
    x = RNG.standard_normal((2, 3, 5, 6, 7))
    y = F.adaptive_avg_pool3d(torch.tensor(x, requires_grad=True), outs)
    sizes = tuple(x.shape[2 + d] if o is None else o for d, o in enumerate(outs))
    assert y.grad_fn.name() == "AdaptiveAvgPool3DBackward0" and y.shape == (2, 3) + sizes
    expected = np.zeros((2, 3) + sizes)
    for idx in np.ndindex(*sizes):
        window = tuple(slice(math.floor(i * n / o), math.ceil((i + 1) * n / o))
                       for i, n, o in zip(idx, x.shape[2:], sizes))
        expected[(Ellipsis, *idx)] = x[(Ellipsis, *window)].mean((-3, -2, -1))
    np.testing.assert_allclose(y.detach().numpy(), expected, rtol=1e-12)
    check_against_differences(lambda a: F.adaptive_avg_pool3d(a, outs), [RNG.standard_normal((1, 2, 3, 4, 3))])


def test_adaptive_avg_pool3d_to_one_is_a_mean_and_module():
    x = torch.tensor(RNG.standard_normal((3, 4, 5, 6)), requires_grad=True)
    y = nn.AdaptiveAvgPool3d(1)(x)
    assert y.grad_fn.name() == "MeanBackward1" and y.shape == (3, 1, 1, 1)
    np.testing.assert_allclose(y.detach().numpy().ravel(), x.detach().numpy().mean((1, 2, 3)))
    assert repr(nn.AdaptiveAvgPool3d((1, None, 2))) == "AdaptiveAvgPool3d(output_size=(1, None, 2))"


def test_batch_and_instance_norm3d():
    x = RNG.standard_normal((2, 3, 3, 4, 2))
    norm = nn.BatchNorm3d(3, dtype=torch.float64)
    y = norm(torch.tensor(x, requires_grad=True))
    mean, var = x.mean((0, 2, 3, 4), keepdims=True), x.var((0, 2, 3, 4), keepdims=True)
    np.testing.assert_allclose(y.detach().numpy(), (x - mean) / np.sqrt(var + 1e-5), rtol=1e-10)
    assert y.grad_fn.name() == "NativeBatchNormBackward0"
    n = x[:, 0].size
    np.testing.assert_allclose(norm.running_var.numpy(), 0.9 + 0.1 * x.var((0, 2, 3, 4)) * n / (n - 1), rtol=1e-12)
    with raises(ValueError, "expected 5D input (got 4D input)"):
        norm(torch.tensor(x[0]))
    instance = nn.InstanceNorm3d(3, affine=True, dtype=torch.float64)
    z = instance(torch.tensor(x[0]))
    per = x[0].reshape(3, -1)
    np.testing.assert_allclose(z.detach().numpy().reshape(3, -1),
                               (per - per.mean(1, keepdims=True)) / np.sqrt(per.var(1, keepdims=True) + 1e-5), rtol=1e-10)
    with raises(ValueError, "expected 4D or 5D input (got 3D input)"):
        instance(torch.tensor(x[0, 0]))
    check_against_differences(lambda a: nn.BatchNorm3d(2, dtype=torch.float64)(a), [RNG.standard_normal((2, 2, 2, 2, 2))])


X5 = torch.zeros(1, 2, 4, 5, 6)


@pytest.mark.parametrize("call,error,message", [
    (lambda: F.max_pool3d(X5[0, 0], 2), RuntimeError, "non-empty 4D or 5D (batch mode) tensor expected for input"),
    (lambda: F.max_pool3d(X5, 2, 0), RuntimeError, "stride should not be zero"),
    (lambda: F.max_pool3d(X5, 2, -1), RuntimeError, "stride should be greater than zero, but got dT: -1 dH: -1 dW: -1"),
    (lambda: F.max_pool2d(X5[0], 2, -1), RuntimeError, "stride should be greater than zero, but got dH: -1 dW: -1"),
    (lambda: F.max_pool3d(X5, 2, padding=2), RuntimeError,
     "pad should be at most half of effective kernel size, but got pad=2, kernel_size=2 and dilation=1"),
    (lambda: F.max_pool3d(X5, 5), RuntimeError,
     "Given input size: (2x4x5x6). Calculated output size: (2x0x1x1). Output size is too small"),
    (lambda: F.avg_pool3d(X5, 5), RuntimeError, "input image (T: 4 H: 5 W: 6) smaller than kernel size (kT: 5 kH: 5 kW: 5)"),
    (lambda: F.max_pool3d(X5, (2, 2)), RuntimeError,
     "max_pool3d: kernel_size must either be a single int, or a tuple of three ints"),
    (lambda: F.max_pool3d(X5, 2, (2, 2)), RuntimeError,
     "max_pool3d: stride must either be omitted, a single int, or a tuple of three ints"),
    (lambda: F.max_pool3d(X5, 2, 2, 0, (1, 1)), RuntimeError,
     "max_pool3d: dilation must be either a single int, or a tuple of three ints"),
    (lambda: F.avg_pool3d(X5, (2, 2)), RuntimeError, "avg_pool3d: kernel_size must be a single int, or a tuple of three ints"),
    (lambda: F.avg_pool3d(X5, 2, (2, 2)), RuntimeError,
     "avg_pool3d: stride must be omitted, a single int, or a tuple of three ints"),
    (lambda: F.avg_pool2d(X5[0], 2, 2, (1, 1, 1)), RuntimeError,
     "avg_pool2d: padding must either be a single int, or a tuple of two ints"),
    (lambda: F.avg_pool3d(X5, 2, divisor_override=0), RuntimeError, "divisor must be not zero"),
    (lambda: F.adaptive_avg_pool3d(X5[0, 0], 2), RuntimeError, "adaptive_avg_pool3d(): Expected 4D or 5D tensor, but got [4, 5, 6]"),
    (lambda: F.adaptive_avg_pool3d(X5, (2, 2)), RuntimeError, "adaptive_avg_pool3d: output_size must be 3"),
    (lambda: F.adaptive_avg_pool3d(X5, (-3, 2, -1)), RuntimeError,
     "adaptive_avg_pool3d: elements of output_size must be greater than or equal to 0 but received {-3, 2,-1}"),
    (lambda: F.adaptive_avg_pool3d(X5[:, :0], 2), RuntimeError,
     "adaptive_avg_pool3d(): Expected input to have non-zero size for non-batch dimensions, but input has sizes "
     "[1, 0, 4, 5, 6] with dimension 1 being empty"),
    (lambda: F.adaptive_avg_pool3d(X5.long(), 2), NotImplementedError, "\"adaptive_avg_pool3d_cpu\" not implemented for 'Long'"),
    (lambda: F.conv3d(X5[0, 0], torch.ones(1, 1, 2, 2, 2)), RuntimeError,
     "Expected 4D (unbatched) or 5D (batched) input to conv3d, but got input of size: [4, 5, 6]"),
    (lambda: F.conv_transpose3d(X5, torch.ones(2, 1, 2, 2, 2), output_padding=2), RuntimeError,
     "output padding must be smaller than either stride or dilation, but got output_padding_depth: 2 "
     "output_padding_height: 2 output_padding_width: 2 stride_depth: 1 stride_height: 1 stride_width: 1 "
     "dilation_depth: 1 dilation_height: 1 dilation_width: 1"),
])
def test_errors(call, error, message):
    with raises(error, message):
        call()


def _run(lib, x, w):
    x, w = lib.tensor(x, requires_grad=True), lib.tensor(w, requires_grad=True)
    outs = [lib.nn.functional.conv3d(x, w, stride=(1, 2, 1), padding=1),
            lib.nn.functional.max_pool3d(x, (2, 3, 2), 1, 1, ceil_mode=True),
            lib.nn.functional.avg_pool3d(x, 3, 2, 1, True, False),
            lib.nn.functional.adaptive_avg_pool3d(x, (3, 2, 4)),
            lib.nn.functional.conv_transpose3d(x, w.transpose(0, 1), stride=2)]
    total = sum((o * lib.tensor(np.linspace(-1, 1, o.numel()).reshape(o.shape))).sum() for o in outs)
    return [o.detach().numpy() for o in outs] + [g.numpy() for g in lib.autograd.grad(total, [x, w])]


def test_against_pytorch():
    real = pytest.importorskip("torch")
    x, w = RNG.standard_normal((2, 3, 5, 6, 7)), RNG.standard_normal((4, 3, 2, 3, 2))
    for mine, theirs in zip(_run(torch, x, w), _run(real, x, w)):
        np.testing.assert_allclose(mine, theirs, rtol=1e-10, atol=1e-12)
