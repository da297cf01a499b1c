"""unfold, fold, conv_transpose1d and conv_transpose2d, and the modules Unfold, Fold,
ConvTranspose1d and ConvTranspose2d, as in PyTorch: values against NumPy loops (a
transposed convolution is the adjoint of the convolution: <conv(x), y> = <x, conv_t(y)>),
gradients against central differences in float64, node names, reprs, initialization and
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


def _unfold_loops(x, kernel, dilation, padding, stride):
    n, c, h, w = x.shape
    xp = np.pad(x, ((0, 0), (0, 0), (padding[0],) * 2, (padding[1],) * 2))
    oh = (h + 2 * padding[0] - dilation[0] * (kernel[0] - 1) - 1) // stride[0] + 1
    ow = (w + 2 * padding[1] - dilation[1] * (kernel[1] - 1) - 1) // stride[1] + 1
    cols = np.zeros((n, c * kernel[0] * kernel[1], oh * ow))
    for ch, i, j, p, q in itertools.product(range(c), range(kernel[0]), range(kernel[1]), range(oh), range(ow)):
        cols[:, (ch * kernel[0] + i) * kernel[1] + j, p * ow + q] = xp[:, ch, p * stride[0] + i * dilation[0],
                                                                       q * stride[1] + j * dilation[1]]
    return cols


@pytest.mark.parametrize("kernel,dilation,padding,stride", [((2, 2), (1, 1), (0, 0), (1, 1)),
                                                            ((3, 2), (1, 2), (1, 0), (2, 1)),
                                                            ((3, 3), (2, 2), (2, 2), (3, 3))])
def test_unfold_and_fold_against_loops_adjointness_and_differences(kernel, dilation, padding, stride):
    x = RNG.standard_normal((2, 3, 6, 5))
    cols = F.unfold(torch.tensor(x, requires_grad=True), kernel, dilation, padding, stride)
    assert cols.grad_fn.name() == "Im2ColBackward0"
    expected = _unfold_loops(x, kernel, dilation, padding, stride)
    np.testing.assert_array_equal(cols.detach().numpy(), expected)
    r = RNG.standard_normal(expected.shape)
    folded = F.fold(torch.tensor(r, requires_grad=True), (6, 5), kernel, dilation, padding, stride)
    assert folded.grad_fn.name() == "Col2ImBackward0" and folded.shape == (2, 3, 6, 5)
    np.testing.assert_allclose((folded.detach().numpy() * x).sum(), (r * expected).sum(), rtol=1e-12)
    check_against_differences(lambda a: F.unfold(a, kernel, dilation, padding, stride), [x[:1, :1]])
    check_against_differences(lambda a: F.fold(a, (6, 5), kernel, dilation, padding, stride), [r[:1, :kernel[0] * kernel[1]]])
    unbatched = F.fold(torch.tensor(r[0]), (6, 5), kernel, dilation, padding, stride)
    np.testing.assert_array_equal(unbatched.numpy(), folded.detach().numpy()[0])


@pytest.mark.parametrize("stride,padding,output_padding,groups,dilation", [
    (1, 0, 0, 1, 1), ((2, 1), (1, 0), (1, 0), 2, 1), (2, 1, 0, 2, (1, 2)), (3, (0, 2), 2, 1, 1)])
def test_conv_transpose2d_is_the_adjoint_of_conv2d(stride, padding, output_padding, groups, dilation):
    x, w, b = RNG.standard_normal((2, 4, 4, 3)), RNG.standard_normal((4, 3, 3, 2)), RNG.standard_normal(3 * groups)
    y = F.conv_transpose2d(torch.tensor(x, requires_grad=True), torch.tensor(w), torch.tensor(b), stride, padding,
                           output_padding, groups, dilation)
    assert y.grad_fn.name() == "ConvolutionBackward0"
    z = RNG.standard_normal(y.shape)
    back = F.conv2d(torch.tensor(z), torch.tensor(w), None, stride, padding, dilation, groups)
    assert back.shape == x.shape  # the convolution maps the output's shape back onto the input's
    bias_term = (z.sum((0, 2, 3)) * b).sum()
    np.testing.assert_allclose((y.detach().numpy() * z).sum(), (x * back.numpy()).sum() + bias_term, rtol=1e-11)
    conv = lambda *t: F.conv_transpose2d(t[0], t[1], t[2], stride, padding, output_padding, groups, dilation)  # noqa
    check_against_differences(conv, [x[:1], w, b])


def test_conv_transpose1d_second_derivatives_and_unbatched():
    x, w = RNG.standard_normal((2, 4, 5)), RNG.standard_normal((4, 3, 3))
    y = F.conv_transpose1d(torch.tensor(x), torch.tensor(w), stride=2, padding=1, output_padding=1, groups=2)
    assert y.shape == (2, 6, 10)
    single = F.conv_transpose1d(torch.tensor(x[1]), torch.tensor(w), stride=2, padding=1, output_padding=1, groups=2)
    np.testing.assert_allclose(single.numpy(), y.numpy()[1], rtol=1e-13)
    check_second_against_differences(lambda a, b: F.conv_transpose1d(a, b, stride=2) ** 2, [x[:1], w])


def test_errors():
    with raises(RuntimeError, "output padding must be smaller than either stride or dilation, but got "
                              "output_padding_height: 1 output_padding_width: 1 stride_height: 1 stride_width: 1 "
                              "dilation_height: 1 dilation_width: 1"):
        F.conv_transpose2d(torch.ones(1, 2, 3, 3), torch.ones(2, 2, 3, 3), output_padding=1)
    with raises(RuntimeError, "Given transposed=1, weight of size [2, 2, 3, 3], expected input[1, 3, 3, 3] to have 2 "
                              "channels, but got 3 channels instead"):
        F.conv_transpose2d(torch.ones(1, 3, 3, 3), torch.ones(2, 2, 3, 3))
    with raises(RuntimeError, "Given input size per channel: (1 x 3). Calculated output size per channel: (1 x -5). "
                              "Output size is too small"):
        F.conv_transpose1d(torch.ones(1, 2, 3), torch.ones(2, 2, 3), padding=5)
    with raises(RuntimeError, "Given output_size=(3, 3), kernel_size=(2, 2), dilation=(1, 1), padding=(0, 0), "
                              "stride=(1, 1), expected size of input's dimension 2 to match the calculated number of "
                              "sliding blocks 2 * 2 = 4, but got input.size(2)=5."):
        F.fold(torch.ones(1, 12, 5), (3, 3), 2)
    with raises(RuntimeError, "Given input with spatial size (3, 3), kernel_size=(4, 4), dilation=(1, 1), padding=(0, "
                              "0), calculated shape of the array of sliding blocks as (0, 0), but its components must "
                              "be at least one."):
        F.unfold(torch.ones(1, 2, 3, 3), 4)
    with raises(ValueError, 'Only "zeros" padding mode is supported for ConvTranspose2d'):
        nn.ConvTranspose2d(2, 4, 3, padding_mode="reflect")


def test_modules_initialize_and_print_as_pytorch():
    m = nn.ConvTranspose2d(2, 4, 3, stride=2, padding=1, output_padding=1, groups=2, bias=False, dilation=2)
    assert repr(m) == ("ConvTranspose2d(2, 4, kernel_size=(3, 3), stride=(2, 2), padding=(1, 1), dilation=(2, 2), "
                       "output_padding=(1, 1), groups=2, bias=False)")
    assert m.weight.shape == (2, 2, 3, 3)
    wide = nn.ConvTranspose1d(3, 40, 2)
    assert repr(wide) == "ConvTranspose1d(3, 40, kernel_size=(2,), stride=(1,))"
    assert np.abs(wide.weight.detach().numpy()).max() <= 1 / np.sqrt(40 * 2)  # fan_in = weight.shape[1] * k
    assert np.abs(wide.weight.detach().numpy()).max() > 0.8 / np.sqrt(40 * 2)
    up = nn.ConvTranspose2d(2, 4, 3, stride=2)
    assert up(torch.ones(1, 2, 3, 3), output_size=(8, 8)).shape == (1, 4, 8, 8)
    with raises(ValueError, "requested an output size of (9, 9), but valid sizes range from [7, 7] to [8, 8] (for an "
                            "input of srcgrad.Size([3, 3]))"):
        up(torch.ones(1, 2, 3, 3), output_size=(9, 9))
    assert repr(nn.Unfold(2)) == "Unfold(kernel_size=2, dilation=1, padding=0, stride=1)"
    assert repr(nn.Fold((4, 5), 2, padding=1)) == "Fold(output_size=(4, 5), kernel_size=2, dilation=1, padding=1, stride=1)"
    assert nn.Fold((4, 5), 2, padding=1)(nn.Unfold(2, padding=1)(torch.ones(1, 3, 4, 5))).shape == (1, 3, 4, 5)


def _pytorch_run(lib, x, w, b):
    nnf = lib.nn.functional
    xt, wt, bt = (lib.tensor(a, requires_grad=True) for a in (x, w, b))
    outs = [nnf.conv_transpose2d(xt, wt, bt, (2, 1), 1, (1, 0), 2, (1, 2)), nnf.conv_transpose1d(xt[:, :, 0], wt[:, :, 0], bt[:3], 3, 1, 2),
            nnf.unfold(xt, (2, 3), 1, (1, 0), (2, 1)), nnf.fold(xt.reshape(2, 8, 6), (4, 3), 2, padding=1, stride=2)]
    names, arrays = [], []
    for y in outs:
        grads = lib.autograd.grad((y * y).sum(), [xt, wt, bt], create_graph=True, allow_unused=True)
        arrays += [y.detach().numpy()] + [np.zeros(1) if g is None else g.detach().numpy() for g in grads]
        names.append(type(y.grad_fn).__name__ if lib is not torch else y.grad_fn.name())
    return names, arrays


def test_against_pytorch():
    real = pytest.importorskip("torch")
    x, w, b = RNG.standard_normal((2, 4, 4, 3)), RNG.standard_normal((4, 3, 3, 2)), RNG.standard_normal(6)
    mine, theirs = _pytorch_run(torch, x, w, b), _pytorch_run(real, x, w, b)
    assert mine[0] == theirs[0]
    for a, c in zip(mine[1], theirs[1]):
        np.testing.assert_allclose(a, c, rtol=1e-12, atol=1e-12)
