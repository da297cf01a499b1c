"""layer_norm, batch_norm and group_norm and their modules (LayerNorm, BatchNorm1d,
BatchNorm2d, GroupNorm), as in PyTorch: values against NumPy formulas, gradients and
second derivatives against central differences in float64, the running statistics
(momentum, cumulative average, eval mode), parameters, buffers, reprs and errors;
compared with PyTorch itself where installed."""

import re

import numpy as np
import pytest

import srcgrad as torch
from tensor_checks import check_against_differences, check_second_against_differences

F, nn = torch.nn.functional, torch.nn
RNG = np.random.default_rng(0)


def raises(exc, message):
    return pytest.raises(exc, match="^" + re.escape(message) + "$")


def _normalized(x, axes, eps=1e-5):
    mean = x.mean(axes, keepdims=True)
    return (x - mean) / np.sqrt(x.var(axes, keepdims=True) + eps)


def test_layer_norm_values_gradients_and_second_derivatives():
    x, w, b = RNG.standard_normal((3, 4, 5)), RNG.standard_normal(5), RNG.standard_normal(5)
    y = F.layer_norm(torch.tensor(x, requires_grad=True), (5,), torch.tensor(w), torch.tensor(b))
    assert y.grad_fn.name() == "NativeLayerNormBackward0" and y.dtype == torch.float64 and y.shape == (3, 4, 5)
    np.testing.assert_allclose(y.detach().numpy(), _normalized(x, -1) * w + b, rtol=1e-13, atol=1e-14)
    np.testing.assert_allclose(F.layer_norm(torch.tensor(x), [4, 5], eps=1e-3).numpy(), _normalized(x, (1, 2), 1e-3),
                               rtol=1e-13, atol=1e-14)
    check_against_differences(lambda *t: F.layer_norm(t[0], (5,), t[1], t[2]), [x, w, b])
    check_second_against_differences(lambda *t: F.layer_norm(t[0], (5,), t[1], t[2]), [x[:1, :2], w, b])
    with raises(RuntimeError, "Given normalized_shape=[4], expected input with shape [*, 4], but got input of "
                              "size[3, 4, 5]"):
        F.layer_norm(torch.tensor(x), [4])


def test_layer_norm_module():
    m = nn.LayerNorm(5)
    assert repr(m) == "LayerNorm((5,), eps=1e-05, elementwise_affine=True, bias=True)"
    assert [(n, p.shape, p.dtype) for n, p in m.named_parameters()] == [("weight", (5,), torch.float32),
                                                                        ("bias", (5,), torch.float32)]
    assert m.weight.tolist() == [1.0] * 5 and m.bias.tolist() == [0.0] * 5
    assert repr(nn.LayerNorm([2, 3], elementwise_affine=False)) == (
        "LayerNorm((2, 3), eps=1e-05, elementwise_affine=False, bias=False)")
    assert list(nn.LayerNorm(3, bias=False).state_dict()) == ["weight"]
    x = RNG.standard_normal((2, 5)).astype(np.float32)
    y = m(torch.tensor(x))
    assert y.dtype == torch.float32
    np.testing.assert_allclose(y.detach().numpy(), _normalized(x, -1), rtol=1e-5, atol=1e-6)


def test_batch_norm_in_training_uses_the_batch_and_updates_the_running_statistics():
    x, w, b = RNG.standard_normal((6, 3, 4)), RNG.standard_normal(3), RNG.standard_normal(3)
    mean, var = np.zeros(3), np.ones(3)
    running_mean, running_var = torch.tensor(mean), torch.tensor(var)
    y = F.batch_norm(torch.tensor(x, requires_grad=True), running_mean, running_var, torch.tensor(w),
                     torch.tensor(b), training=True, momentum=0.3)
    assert y.grad_fn.name() == "NativeBatchNormBackward0"
    np.testing.assert_allclose(y.detach().numpy(), _normalized(x, (0, 2)) * w[:, None] + b[:, None], rtol=1e-13,
                               atol=1e-14)
    np.testing.assert_allclose(running_mean.numpy(), 0.3 * x.mean((0, 2)), rtol=1e-14)
    np.testing.assert_allclose(running_var.numpy(), 0.7 + 0.3 * x.var((0, 2), ddof=1), rtol=1e-14)
    assert mean.tolist() == [0.0] * 3  # tensor() copied the array
    train = lambda *t: F.batch_norm(t[0], None, None, t[1], t[2], training=True)  # noqa: E731
    check_against_differences(train, [x[:3], w, b])
    check_second_against_differences(train, [x[:3, :, :2], w, b])
    with raises(ValueError, "Expected more than 1 value per channel when training, got input size "
                            "srcgrad.Size([1, 3])"):
        F.batch_norm(torch.ones(1, 3), None, None, training=True)


def test_batch_norm_in_eval_uses_the_running_statistics():
    x, w, b = RNG.standard_normal((5, 3)), RNG.standard_normal(3), RNG.standard_normal(3)
    mean, var = RNG.standard_normal(3), RNG.random(3) + 0.5
    y = F.batch_norm(torch.tensor(x), torch.tensor(mean), torch.tensor(var), torch.tensor(w), torch.tensor(b))
    np.testing.assert_allclose(y.numpy(), (x - mean) / np.sqrt(var + 1e-5) * w + b, rtol=1e-13)
    check_against_differences(lambda *t: F.batch_norm(t[0], torch.tensor(mean), torch.tensor(var), t[1], t[2]),
                              [x, w, b])
    with raises(RuntimeError, "running_mean should contain 3 elements not 4"):
        F.batch_norm(torch.tensor(x), torch.zeros(4), torch.ones(3))


def test_batch_norm_modules_track_statistics_and_switch_in_eval():
    m = nn.BatchNorm1d(3)
    assert repr(m) == "BatchNorm1d(3, eps=1e-05, momentum=0.1, affine=True, bias=True, track_running_stats=True)"
    assert [(k, v.shape, v.dtype) for k, v in m.state_dict().items()] == [
        ("weight", (3,), torch.float32), ("bias", (3,), torch.float32), ("running_mean", (3,), torch.float32),
        ("running_var", (3,), torch.float32), ("num_batches_tracked", (), torch.int64)]
    batches = [RNG.standard_normal((4, 3)).astype(np.float32) for _ in range(3)]
    mean, var = np.zeros(3), np.ones(3)
    for x in batches:
        m(torch.tensor(x))
        mean, var = 0.9 * mean + 0.1 * x.mean(0), 0.9 * var + 0.1 * x.var(0, ddof=1)
    assert m.num_batches_tracked.item() == 3
    np.testing.assert_allclose(m.running_mean.numpy(), mean, rtol=1e-5)
    np.testing.assert_allclose(m.running_var.numpy(), var, rtol=1e-5)
    m.eval()
    x = batches[0]
    np.testing.assert_allclose(m(torch.tensor(x)).detach().numpy(), (x - mean) / np.sqrt(var + 1e-5), rtol=1e-4)
    assert m.num_batches_tracked.item() == 3
    average = nn.BatchNorm2d(2, momentum=None, affine=False)
    images = [RNG.standard_normal((2, 2, 3, 3)) for _ in range(2)]
    for x in images:
        average(torch.tensor(x, dtype=torch.float32))
    np.testing.assert_allclose(average.running_mean.numpy(), np.mean([x.mean((0, 2, 3)) for x in images], 0),
                               rtol=1e-5)
    assert list(average.state_dict()) == ["running_mean", "running_var", "num_batches_tracked"]
    free = nn.BatchNorm1d(3, track_running_stats=False).eval()
    x = batches[1]
    np.testing.assert_allclose(free(torch.tensor(x)).detach().numpy(), _normalized(x, 0), rtol=1e-4, atol=1e-5)
    with raises(ValueError, "expected 2D or 3D input (got 4D input)"):
        m(torch.ones(2, 3, 4, 5))
    with raises(ValueError, "expected 4D input (got 3D input)"):
        nn.BatchNorm2d(3)(torch.ones(2, 3, 4))


def test_group_norm_function_and_module():
    x, w, b = RNG.standard_normal((2, 6, 5)), RNG.standard_normal(6), RNG.standard_normal(6)
    y = F.group_norm(torch.tensor(x, requires_grad=True), 2, torch.tensor(w), torch.tensor(b))
    assert y.grad_fn.name() == "NativeGroupNormBackward0" and y.shape == (2, 6, 5)
    expected = _normalized(x.reshape(2, 2, 15), -1).reshape(2, 6, 5) * w[:, None] + b[:, None]
    np.testing.assert_allclose(y.detach().numpy(), expected, rtol=1e-13, atol=1e-14)
    check_against_differences(lambda *t: F.group_norm(t[0], 3, t[1], t[2]), [x, w, b])
    check_second_against_differences(lambda *t: F.group_norm(t[0], 3, t[1], t[2]), [x[:1, :, :2], w, b])
    with raises(RuntimeError, "Expected number of channels in input to be divisible by num_groups, but got input of "
                              "shape [2, 6, 5] and num_groups=4"):
        F.group_norm(torch.tensor(x), 4)
    with raises(RuntimeError, "mixed dtype (CPU): expect parameter to have scalar type of Float"):
        F.group_norm(torch.ones(2, 6, 2), 3, torch.ones(6, dtype=torch.float64))
    with raises(RuntimeError, "mixed dtype (CPU): all inputs must share same datatype."):
        F.layer_norm(torch.tensor(x), [5], torch.ones(5))
    m = nn.GroupNorm(3, 6)
    assert repr(m) == "GroupNorm(3, 6, eps=1e-05, affine=True, bias=True)" and m.weight.tolist() == [1.0] * 6
    with raises(ValueError, "num_channels (6) must be divisible by num_groups (4)"):
        nn.GroupNorm(4, 6)


def _pytorch_run(lib, x, w, b):
    nnf = lib.nn.functional
    xt, wt, bt = (lib.tensor(a, requires_grad=True) for a in (x, w, b))
    outs = [nnf.layer_norm(xt, (4,), wt, bt), nnf.batch_norm(xt, None, None, wt, bt, True),
            nnf.group_norm(xt.transpose(1, 2), 2, wt, bt)]
    arrays, names = [], []
    for y in outs:
        grads = lib.autograd.grad((y * y * y).sum(), [xt, wt, bt], create_graph=True)
        second = lib.autograd.grad(sum(g.sum() for g in grads), [xt, wt, bt])
        arrays += [y.detach().numpy()] + [g.detach().numpy() for g in grads + second]
        names.append(type(y.grad_fn).__name__)
    return names, arrays


def test_against_pytorch():
    real = pytest.importorskip("torch")
    x, w, b = RNG.standard_normal((3, 4, 4)), RNG.standard_normal(4), RNG.standard_normal(4)
    mine, theirs = _pytorch_run(torch, x, w, b), _pytorch_run(real, x, w, b)
    assert mine[0] == theirs[0]
    for a, c in zip(mine[1], theirs[1]):
        np.testing.assert_allclose(a, c, rtol=1e-11, atol=1e-12)
