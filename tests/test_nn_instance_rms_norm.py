"""instance_norm, rms_norm, local_response_norm and the modules InstanceNorm1d,
InstanceNorm2d, RMSNorm, LocalResponseNorm, as in PyTorch: values against NumPy
formulas, gradients against central differences in float64, running statistics,
parameters, reprs, warnings and errors; compared with PyTorch itself where installed."""

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


def test_instance_norm_against_numpy_and_differences():
    x, w, b = RNG.standard_normal((2, 3, 4, 5)), RNG.standard_normal(3), RNG.standard_normal(3)
    y = F.instance_norm(torch.tensor(x, requires_grad=True), weight=torch.tensor(w), bias=torch.tensor(b))
    mean, var = x.mean((2, 3), keepdims=True), x.var((2, 3), keepdims=True)
    expected = (x - mean) / np.sqrt(var + 1e-5) * w[:, None, None] + b[:, None, None]
    assert y.grad_fn.name() == "ViewBackward0" and y.grad_fn.next_functions[0][0].name() == "NativeBatchNormBackward0"
    np.testing.assert_allclose(y.detach().numpy(), expected, rtol=1e-12, atol=1e-13)
    check_against_differences(lambda *t: F.instance_norm(t[0], weight=t[1], bias=t[2]), [x[:, :, :2], w, b])
    running_mean, running_var = torch.zeros(3, dtype=torch.float64), torch.ones(3, dtype=torch.float64)
    F.instance_norm(torch.tensor(x), running_mean, running_var, momentum=0.3)
    np.testing.assert_allclose(running_mean.numpy(), 0.3 * x.mean((2, 3)).mean(0), rtol=1e-12)
    unbiased = x.var((2, 3), ddof=1).mean(0)
    np.testing.assert_allclose(running_var.numpy(), 0.7 + 0.3 * unbiased, rtol=1e-12)
    with raises(ValueError, "Expected more than 1 spatial element when training, got input size srcgrad.Size([2, 3, 1])"):
        F.instance_norm(torch.ones(2, 3, 1))


def test_rms_and_local_response_norm_against_numpy_and_differences():
    x, w = RNG.standard_normal((2, 3, 4)), RNG.standard_normal((3, 4))
    y = F.rms_norm(torch.tensor(x), (3, 4), torch.tensor(w))
    expected = x / np.sqrt((x ** 2).mean((1, 2), keepdims=True) + np.finfo(np.float64).eps) * w
    np.testing.assert_allclose(y.numpy(), expected, rtol=1e-12)
    check_against_differences(lambda a, b: F.rms_norm(a, (4,), b[0], 1e-3), [x, w])
    with raises(RuntimeError, "Given normalized_shape=[5], expected input with shape [*5], but got input of size[2, 3, 4]"):
        F.rms_norm(torch.tensor(x), (5,))
    images = RNG.standard_normal((2, 5, 3, 2))
    got = F.local_response_norm(torch.tensor(images), 3, 0.1, 0.6, 2.0)
    padded = np.pad(images ** 2, ((0, 0), (1, 1), (0, 0), (0, 0)))
    window = np.stack([padded[:, c:c + 3].mean(1) for c in range(5)], 1)
    np.testing.assert_allclose(got.numpy(), images / (2.0 + 0.1 * window) ** 0.6, rtol=1e-12)
    check_against_differences(lambda a: F.local_response_norm(a, 2), [images[:1, :, :, 0]])
    with pytest.raises(ValueError, match="Expected 3D or higher dimensionality"):
        F.local_response_norm(torch.ones(2, 3), 2)


def test_modules_print_keep_statistics_and_warn():
    assert repr(nn.InstanceNorm1d(4)) == (
        "InstanceNorm1d(4, eps=1e-05, momentum=0.1, affine=False, bias=False, track_running_stats=False)")
    norm = nn.InstanceNorm2d(3, affine=True, track_running_stats=True)
    assert list(norm.state_dict()) == ["weight", "bias", "running_mean", "running_var", "num_batches_tracked"]
    x = torch.randn(3, 4, 5)  # unbatched
    assert norm(x).shape == (3, 4, 5) and norm.running_mean.abs().sum().item() > 0
    norm.eval()
    expected = (x - norm.running_mean.reshape(3, 1, 1)) / (norm.running_var.reshape(3, 1, 1) + 1e-5).sqrt()
    np.testing.assert_allclose(norm(x).detach().numpy(), expected.numpy(), rtol=1e-5, atol=1e-6)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        nn.InstanceNorm1d(4)(torch.randn(2, 3, 5))
    assert [str(w.message) for w in caught] == [
        "input's size at dim=1 does not match num_features. You can silence this warning by not passing in "
        "num_features, which is not used because affine=False"]
    with raises(ValueError, "expected input's size at dim=1 to match num_features (4), but got: 3."):
        nn.InstanceNorm1d(4, affine=True)(torch.randn(2, 3, 5))
    with raises(ValueError, "expected 2D or 3D input (got 4D input)"):
        nn.InstanceNorm1d(4)(torch.randn(2, 3, 5, 4))
    assert repr(nn.RMSNorm((4, 5), eps=1e-3, elementwise_affine=False)) == (
        "RMSNorm((4, 5), eps=0.001, elementwise_affine=False)")
    assert [n for n, _ in nn.RMSNorm(5).named_parameters()] == ["weight"]
    assert repr(nn.LocalResponseNorm(2)) == "LocalResponseNorm(2, alpha=0.0001, beta=0.75, k=1.0)"


def _pytorch_run(lib, x, w):
    nnf = lib.nn.functional
    xt, wt = lib.tensor(x, requires_grad=True), lib.tensor(w, requires_grad=True)
    outs = [nnf.instance_norm(xt, weight=wt, bias=wt * 2), nnf.rms_norm(xt, (5,)), nnf.local_response_norm(xt, 3),
            nnf.instance_norm(xt, lib.zeros(3, dtype=lib.float64), lib.ones(3, dtype=lib.float64), wt, None, False)]
    arrays = []
    for y in outs:
        grads = lib.autograd.grad((y * y).sum(), [xt, wt], allow_unused=True)
        arrays += [y.detach().numpy()] + [np.zeros(1) if g is None else g.numpy() for g in grads]
    return arrays


def test_against_pytorch():
    real = pytest.importorskip("torch")
    x, w = RNG.standard_normal((2, 3, 4, 5)), RNG.standard_normal(3)
    for a, c in zip(_pytorch_run(torch, x, w), _pytorch_run(real, x, w)):
        np.testing.assert_allclose(a, c, rtol=1e-11, atol=1e-12)
