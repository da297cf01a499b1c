"""interpolate (nearest, nearest-exact, linear, bilinear, area), Upsample, pixel_shuffle
and pixel_unshuffle, as in PyTorch: values against NumPy loops of PyTorch's source
positions, gradients against central differences in float64, node names, reprs and
errors; compared with PyTorch itself where installed."""

import math
import re
import warnings

import numpy as np
import pytest

import srcgrad as torch
from tensor_checks import check_against_differences

F, nn = torch.nn.functional, torch.nn
RNG = np.random.default_rng(0)


def raises(exc, message):
    return pytest.raises(exc, match="^" + re.escape(message) + "$")


def _linear_loop(x, out, align_corners, scale_factor=None):
    """1-D linear interpolation of the last dim, one output at a time."""
    n = x.shape[-1]
    y = np.zeros(x.shape[:-1] + (out,))
    for i in range(out):
        if align_corners:
            src = i * (n - 1) / (out - 1) if out > 1 else 0.0
        else:
            scale = 1 / scale_factor if scale_factor else n / out
            src = max((i + 0.5) * scale - 0.5, 0.0)
        low = int(src)
        high = min(low + 1, n - 1)
        t = src - low
        y[..., i] = (1 - t) * x[..., low] + t * x[..., high]
    return y


@pytest.mark.parametrize("out,align_corners", [(9, False), (9, True), (3, False), (3, True), (1, True), (5, False)])
def test_linear_and_bilinear_against_loops_and_differences(out, align_corners):
    x = RNG.standard_normal((2, 3, 5))
    y = F.interpolate(torch.tensor(x, requires_grad=True), size=out, mode="linear", align_corners=align_corners)
    assert y.grad_fn.name() == "UpsampleLinear1DBackward0" and y.shape == (2, 3, out)
    np.testing.assert_allclose(y.detach().numpy(), _linear_loop(x, out, align_corners), rtol=1e-13, atol=1e-14)
    image = RNG.standard_normal((1, 2, 4, 5))
    z = F.interpolate(torch.tensor(image, requires_grad=True), size=(out, 4), mode="bilinear",
                      align_corners=align_corners)
    assert z.grad_fn.name() == "UpsampleBilinear2DBackward0"
    rows = _linear_loop(np.swapaxes(image, -1, -2), out, align_corners)
    expected = _linear_loop(np.swapaxes(rows, -1, -2), 4, align_corners)
    np.testing.assert_allclose(z.detach().numpy(), expected, rtol=1e-13, atol=1e-14)
    check_against_differences(lambda a: F.interpolate(a, size=(out, 4), mode="bilinear", align_corners=align_corners),
                              [image])


def test_scale_factor_is_read_as_given():
    x = RNG.standard_normal((1, 1, 4))
    y = F.interpolate(torch.tensor(x), scale_factor=1.7, mode="linear")  # 6 outputs at (i + 0.5) / 1.7 - 0.5
    np.testing.assert_allclose(y.numpy(), _linear_loop(x, 6, False, 1.7), rtol=1e-13)
    recomputed = F.interpolate(torch.tensor(x), scale_factor=1.7, mode="linear", recompute_scale_factor=True)
    np.testing.assert_allclose(recomputed.numpy(), _linear_loop(x, 6, False), rtol=1e-13)


def test_nearest_modes_and_area():
    x = RNG.standard_normal((2, 3, 5, 4))
    t = torch.tensor(x, requires_grad=True)
    y = F.interpolate(t, size=(7, 3))
    assert y.grad_fn.name() == "UpsampleNearest2DBackward0"
    rows, columns = np.floor(np.arange(7) * 5 / 7).astype(int), np.floor(np.arange(3) * 4 / 3).astype(int)
    np.testing.assert_array_equal(y.detach().numpy(), x[:, :, rows][:, :, :, columns])
    exact = F.interpolate(t, size=(7, 3), mode="nearest-exact")
    rows = np.minimum(np.floor((np.arange(7) + 0.5) * 5 / 7).astype(int), 4)
    columns = np.minimum(np.floor((np.arange(3) + 0.5) * 4 / 3).astype(int), 3)
    np.testing.assert_array_equal(exact.detach().numpy(), x[:, :, rows][:, :, :, columns])
    doubled = F.interpolate(t[0], scale_factor=2)
    assert doubled.grad_fn.name() == "UpsampleNearest1DBackward0"
    np.testing.assert_array_equal(doubled.detach().numpy(), np.repeat(x[0], 2, -1))
    area = F.interpolate(t, size=(2, 2), mode="area")
    np.testing.assert_allclose(area.detach().numpy(), F.adaptive_avg_pool2d(t, 2).detach().numpy())
    check_against_differences(lambda a: F.interpolate(a, size=(7, 3)), [x[:1, :1]])


def _cubic(t, a=-0.75):
    """Keys' cubic convolution kernel at distance |t|."""
    t = abs(t)
    if t <= 1:
        return (a + 2) * t ** 3 - (a + 3) * t ** 2 + 1
    return a * t ** 3 - 5 * a * t ** 2 + 8 * a * t - 4 * a if t < 2 else 0.0


def _bicubic_loop(x, outs, align_corners):
    """Each output pixel as a sum over its 4 x 4 neighbours, read at the nearest edge past one."""
    h, w = x.shape[-2:]
    y = np.zeros(x.shape[:-2] + tuple(outs))
    for i, j in np.ndindex(*outs):
        sources = []
        for index, size, out in ((i, h, outs[0]), (j, w, outs[1])):
            if align_corners:
                sources.append(index * (size - 1) / (out - 1) if out > 1 else 0.0)
            else:
                sources.append((index + 0.5) * size / out - 0.5)
        (sh, sw), total = sources, 0.0
        for p in range(math.floor(sh) - 1, math.floor(sh) + 3):
            for q in range(math.floor(sw) - 1, math.floor(sw) + 3):
                total = total + _cubic(sh - p) * _cubic(sw - q) * x[..., min(max(p, 0), h - 1), min(max(q, 0), w - 1)]
        y[..., i, j] = total
    return y


@pytest.mark.parametrize("outs", [(7, 9), (3, 2), (1, 1), (5, 4)])
@pytest.mark.parametrize("align_corners", [False, True])
def test_bicubic_against_loops_and_differences(outs, align_corners):
    x = RNG.standard_normal((2, 3, 5, 4))
    y = F.interpolate(torch.tensor(x, requires_grad=True), size=outs, mode="bicubic", align_corners=align_corners)
    assert y.grad_fn.name() == "UpsampleBicubic2DBackward0" and y.shape == (2, 3) + outs and y.dtype == torch.float64
    np.testing.assert_allclose(y.detach().numpy(), _bicubic_loop(x, outs, align_corners), rtol=1e-12, atol=1e-12)
    check_against_differences(lambda a: F.interpolate(a, size=outs, mode="bicubic", align_corners=align_corners),
                              [RNG.standard_normal((1, 2, 3, 4))])


def test_bicubic_values_of_pytorch_identity_and_constants():
    x = torch.tensor([[[[0.0, 1.0, 4.0], [2.0, -1.0, 3.0]]]], dtype=torch.float64)
    np.testing.assert_allclose(F.interpolate(x, size=(3, 4), mode="bicubic").flatten().numpy(), [  # PyTorch 2.13's
        -0.27031114366319403, 0.36808437771267355, 2.371395534939236, 4.295906914605036, 1.07177734375,
        -0.024169921874999972, 1.1513671875000002, 3.751220703125, 2.4138658311631955, -0.41642422146267377,
        -0.0686611599392366, 3.2065344916449656], rtol=1e-13)
    np.testing.assert_allclose(
        nn.Upsample(size=(3, 4), mode="bicubic", align_corners=True)(x).flatten().numpy(),
        [0.0, 0.35185185185185164, 2.0555555555555562, 4.0, 1.0, -0.0740740740740744, 0.9907407407407414, 3.5, 2.0,
         -0.5000000000000004, -0.07407407407407363, 3.0], rtol=1e-13, atol=1e-15)
    np.testing.assert_allclose(F.interpolate(x, size=(2, 3), mode="bicubic").numpy(), x.numpy(), atol=1e-15)
    np.testing.assert_allclose(F.interpolate(torch.full((1, 1, 3, 2), 2.5), scale_factor=2.5, mode="bicubic").numpy(),
                               np.full((1, 1, 7, 5), 2.5, np.float32), rtol=1e-6)
    assert repr(nn.Upsample(scale_factor=2, mode="bicubic")) == "Upsample(scale_factor=2.0, mode='bicubic')"
    with raises(NotImplementedError, "\"compute_indices_weights_cubic\" not implemented for 'Long'"):
        F.interpolate(torch.ones(1, 1, 2, 2, dtype=torch.int64), size=3, mode="bicubic")
    with raises(NotImplementedError, "Input Error: Only 3D, 4D and 5D input Tensors supported (got 3D) for the modes: "
                                     "nearest | linear | bilinear | bicubic | trilinear | lanczos | area | "
                                     "nearest-exact (got bicubic)"):
        F.interpolate(torch.ones(1, 2, 3), size=4, mode="bicubic")


def test_interpolate_errors():
    with raises(ValueError, "only one of size or scale_factor should be defined"):
        F.interpolate(torch.ones(1, 2, 3), size=4, scale_factor=2)
    with raises(ValueError, "either size or scale_factor should be defined"):
        F.interpolate(torch.ones(1, 2, 3))
    with raises(ValueError, "align_corners option can only be set with the interpolating modes: linear | bilinear | "
                            "bicubic | trilinear"):
        F.interpolate(torch.ones(1, 2, 3), size=4, align_corners=True)
    with raises(NotImplementedError, "Got 3D input, but bilinear mode needs 4D input"):
        F.interpolate(torch.ones(1, 2, 3), size=4, mode="bilinear")
    with raises(RuntimeError, "Input and output sizes should be greater than 0, but got input (W: 3) and output (W: 0)"):
        F.interpolate(torch.ones(1, 2, 3), scale_factor=0.2)
    with raises(NotImplementedError, "\"upsample_bilinear2d_channels_last\" not implemented for 'Long'"):
        F.interpolate(torch.ones(1, 2, 3, 3, dtype=torch.int64), size=4, mode="bilinear")


def test_pixel_shuffle_round_trip_and_errors():
    x = RNG.standard_normal((2, 8, 3, 2))
    y = F.pixel_shuffle(torch.tensor(x, requires_grad=True), 2)
    assert y.grad_fn.name() == "PixelShuffleBackward0" and y.shape == (2, 2, 6, 4)
    c, i, j, h, w = 1, 1, 0, 2, 1  # channel c r^2 + i r + j at (h r + i, w r + j)
    assert y.detach().numpy()[0, c, h * 2 + i, w * 2 + j] == x[0, c * 4 + i * 2 + j, h, w]
    back = F.pixel_unshuffle(y, 2)
    assert back.grad_fn.name() == "PixelUnshuffleBackward0"
    np.testing.assert_array_equal(back.detach().numpy(), x)
    check_against_differences(lambda a: F.pixel_shuffle(a, 2) * 2, [x[:1]])
    with raises(RuntimeError, "pixel_shuffle expects its input's 'channel' dimension to be divisible by the square of "
                              "upscale_factor, but input.size(-3)=5 is not divisible by 4"):
        F.pixel_shuffle(torch.ones(1, 5, 3, 3), 2)
    with raises(RuntimeError, "pixel_unshuffle expects height to be divisible by downscale_factor, but "
                              "input.size(-2)=3 is not divisible by 2"):
        F.pixel_unshuffle(torch.ones(1, 4, 3, 4), 2)


def test_modules_print_as_pytorch():
    assert repr(nn.Upsample(scale_factor=2)) == "Upsample(scale_factor=2.0, mode='nearest')"
    assert repr(nn.Upsample(size=(3, 4), mode="bilinear")) == "Upsample(size=(3, 4), mode='bilinear')"
    assert repr(nn.UpsamplingBilinear2d(size=3)) == "UpsamplingBilinear2d(size=3, mode='bilinear')"
    assert repr(nn.PixelShuffle(2)) == "PixelShuffle(upscale_factor=2)"
    assert repr(nn.PixelUnshuffle(3)) == "PixelUnshuffle(downscale_factor=3)"
    x = torch.randn(1, 2, 3, 3)
    np.testing.assert_allclose(nn.UpsamplingBilinear2d(scale_factor=2)(x).numpy(),
                               F.interpolate(x, scale_factor=2, mode="bilinear", align_corners=True).numpy())


def _pytorch_run(lib, x):
    nnf = lib.nn.functional
    xt = lib.tensor(x, requires_grad=True)
    outs = [nnf.interpolate(xt, scale_factor=(1.5, 0.7), mode="bilinear"),
            nnf.interpolate(xt, size=(7, 3), mode="bilinear", align_corners=True),
            nnf.interpolate(xt[0], scale_factor=2.5, mode="linear"), nnf.interpolate(xt, scale_factor=1.7),
            nnf.interpolate(xt, size=(3, 8), mode="nearest-exact"), nnf.pixel_unshuffle(xt[:, :, :4, :4], 2),
            nnf.interpolate(xt, scale_factor=(1.7, 0.6), mode="bicubic"),
            nnf.interpolate(xt, size=(8, 11), mode="bicubic", align_corners=True)]
    names, arrays = [], []
    for y in outs:
        arrays += [y.detach().numpy(), lib.autograd.grad((y * y).sum(), xt)[0].numpy()]
        names.append(type(y.grad_fn).__name__ if lib is not torch else y.grad_fn.name())
    return names, arrays


def test_against_pytorch():
    real = pytest.importorskip("torch")
    x = RNG.standard_normal((2, 3, 5, 6))
    mine, theirs = _pytorch_run(torch, x), _pytorch_run(real, x)
    assert mine[0] == theirs[0]
    for a, c in zip(mine[1], theirs[1]):
        np.testing.assert_allclose(a, c, rtol=1e-12, atol=1e-12)
