"""srcgrad.optim (torch.optim.SGD and Adam): a few steps worked out by hand, zero_grad,
in-place updates under no_grad, parameter groups, errors; and, when PyTorch is
installed, the same training loops against torch.optim to float32 rounding."""

import math

import numpy as np
import pytest

import srcgrad as torch


def _steps(opt, params, loss_fn, n):
    """n steps of zero_grad, backward of loss_fn(), step; the values of params after each."""
    out = []
    for _ in range(n):
        opt.zero_grad()
        loss_fn().backward()
        opt.step()
        out.append([p.detach().numpy().copy() for p in params])
    return out


def _param(values, dtype=torch.float64):
    return torch.tensor(values, dtype=dtype, requires_grad=True)


# --- SGD --------------------------------------------------------------------------------


def test_sgd_plain():
    p = _param([1.0, 2.0])
    steps = _steps(torch.optim.SGD([p], lr=0.1), [p], lambda: (p * p).sum(), 2)  # gradient 2p: p *= 0.8
    np.testing.assert_allclose(steps[0][0], [0.8, 1.6], rtol=1e-15)
    np.testing.assert_allclose(steps[1][0], [0.64, 1.28], rtol=1e-15)


def test_sgd_momentum():
    p = _param([1.0, 2.0])
    steps = _steps(torch.optim.SGD([p], lr=0.1, momentum=0.9), [p], lambda: (p * p).sum(), 3)
    # buffer 2p0 = (2, 4); then 0.9 * (2, 4) + (1.6, 3.2) = (3.4, 6.8); then 0.9 * that + (0.92, 1.84)
    np.testing.assert_allclose(steps[0][0], [0.8, 1.6], rtol=1e-14)
    np.testing.assert_allclose(steps[1][0], [0.46, 0.92], rtol=1e-14)
    np.testing.assert_allclose(steps[2][0], [0.062, 0.124], rtol=1e-12)


def test_sgd_nesterov():
    p = _param([1.0])
    steps = _steps(torch.optim.SGD([p], lr=0.1, momentum=0.9, nesterov=True), [p], lambda: (p * p).sum(), 2)
    # g = 2, b = 2, step 2 + 0.9 * 2 = 3.8; then g = 1.24, b = 1.8 + 1.24 = 3.04, step 1.24 + 2.736
    np.testing.assert_allclose(steps[0][0], [0.62], rtol=1e-14)
    np.testing.assert_allclose(steps[1][0], [0.2224], rtol=1e-13)


def test_sgd_weight_decay_dampening_maximize():
    p = _param([2.0])
    steps = _steps(torch.optim.SGD([p], lr=0.1, weight_decay=0.5), [p], lambda: p.sum(), 2)
    np.testing.assert_allclose([s[0][0] for s in steps], [1.8, 1.61], rtol=1e-14)  # step 1 + 0.5 p
    q = _param([0.0])
    steps = _steps(torch.optim.SGD([q], lr=1.0, momentum=0.5, dampening=0.5), [q], lambda: q.sum(), 3)
    # the first buffer is the gradient itself (no dampening), later 0.5 b + 0.5 g = 1
    np.testing.assert_allclose([s[0][0] for s in steps], [-1.0, -2.0, -3.0], rtol=1e-15)
    r = _param([0.0])
    steps = _steps(torch.optim.SGD([r], lr=0.5, maximize=True), [r], lambda: (r * 3.0).sum(), 2)
    np.testing.assert_allclose([s[0][0] for s in steps], [1.5, 3.0], rtol=1e-15)


# --- Adam -------------------------------------------------------------------------------


def test_adam_with_a_constant_gradient_moves_lr_per_step():
    p = _param([0.5, 0.5])
    c = torch.tensor([1.0, -2.0], dtype=torch.float64)
    steps = _steps(torch.optim.Adam([p], lr=0.1), [p], lambda: (p * c).sum(), 3)
    # m / (1 - beta1^t) = c and v / (1 - beta2^t) = c^2: each step is lr * c / (|c| + eps)
    for t, s in enumerate(steps, 1):
        np.testing.assert_allclose(s[0], [0.5 - t * 0.1 / (1 + 1e-8), 0.5 + t * 0.1 * 2 / (2 + 1e-8)], rtol=1e-14)


def test_adam_two_steps_of_a_quadratic():
    p = _param([1.0])
    steps = _steps(torch.optim.Adam([p], lr=0.1), [p], lambda: (p * p).sum() * 0.5, 2)  # gradient p
    # step 1: m = 0.1, v = 0.001, so p = 1 - 0.1 = 0.9 (to eps); step 2 with g = 0.9:
    # m = 0.09 + 0.09 = 0.18, v = 0.000999 + 0.00081 = 0.001809,
    # p = 0.9 - 0.1 * (0.18 / 0.19) / sqrt(0.001809 / 0.001999) = 0.80041222767...
    np.testing.assert_allclose(steps[0][0], [0.9], rtol=1e-7)
    np.testing.assert_allclose(steps[1][0], [0.8004122276712469], rtol=1e-7)


def test_adam_amsgrad_keeps_the_largest_second_moment():
    for amsgrad, v2 in ((False, 0.000999), (True, 0.001)):
        p = _param([0.0])
        c = torch.tensor([1.0], dtype=torch.float64)
        opt = torch.optim.Adam([p], lr=0.1, amsgrad=amsgrad)
        _steps(opt, [p], lambda: (p * c).sum(), 1)
        c.data *= 0.0  # the second gradient is 0: v falls to 0.000999, m to 0.09
        _steps(opt, [p], lambda: (p * c).sum(), 1)
        expected = -0.1 / (1 + 1e-8) - 0.1 * (0.09 / 0.19) / (math.sqrt(v2 / (1 - 0.999**2)) + 1e-8)
        np.testing.assert_allclose(p.detach().numpy(), [expected], rtol=1e-12)
        assert ("max_exp_avg_sq" in opt.state[p]) == amsgrad
        assert opt.state[p]["step"].item() == 2.0


def test_adam_weight_decay_coupled_and_decoupled():
    p = _param([2.0])
    _steps(torch.optim.Adam([p], lr=0.1, weight_decay=0.5), [p], lambda: p.sum() * 0.0, 1)
    np.testing.assert_allclose(p.detach().numpy(), [2.0 - 0.1 / (1 + 1e-8)], rtol=1e-14)  # g = 0.5 p = 1
    q = _param([2.0])
    _steps(torch.optim.Adam([q], lr=0.1, weight_decay=0.5, decoupled_weight_decay=True), [q], lambda: q.sum(), 1)
    np.testing.assert_allclose(q.detach().numpy(), [2.0 * (1 - 0.05) - 0.1 / (1 + 1e-8)], rtol=1e-14)


# --- zero_grad, step, groups ------------------------------------------------------------


def test_zero_grad_sets_none_or_zeros_in_place():
    p = _param([1.0, 2.0])
    opt = torch.optim.SGD([p], lr=0.1)
    (p * 3.0).sum().backward()
    g = p.grad
    opt.zero_grad(set_to_none=False)
    assert p.grad is g and g.tolist() == [0.0, 0.0] and not g.requires_grad
    (p * 3.0).sum().backward()
    assert p.grad is g and g.tolist() == [3.0, 3.0]
    opt.zero_grad()
    assert p.grad is None
    opt.step()  # no gradient: nothing moves
    assert p.tolist() == [1.0, 2.0]


def test_step_updates_in_place_without_recording():
    array = np.array([1.0, -1.0], dtype=np.float32)
    p = torch.from_numpy(array).requires_grad_(True)
    opt = torch.optim.SGD([p], lr=0.5)
    y = p * p  # saves p
    y.sum().backward(retain_graph=True)
    assert opt.step(closure=lambda: 7.0) == 7.0
    assert p.is_leaf and p.grad_fn is None and p.requires_grad and p.dtype == torch.float32
    assert array.tolist() == [0.0, 0.0]  # the same storage
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


def test_float32_parameters_stay_float32():
    p = torch.tensor([1.0, 2.0], requires_grad=True)
    opt = torch.optim.Adam([p], lr=0.1)
    _steps(opt, [p], lambda: (p * p).sum(), 2)
    assert p.dtype == torch.float32 and p.grad.dtype == torch.float32
    assert opt.state[p]["exp_avg"].dtype == torch.float32 and opt.state[p]["exp_avg_sq"].dtype == torch.float32


def test_parameter_groups_keep_their_own_settings():
    a, b = _param([1.0]), _param([1.0])
    opt = torch.optim.SGD([{"params": [a]}, {"params": b, "lr": 0.5}], lr=0.1)
    assert [g["lr"] for g in opt.param_groups] == [0.1, 0.5] and opt.param_groups[1]["momentum"] == 0
    _steps(opt, [a, b], lambda: (a + b).sum(), 1)
    assert a.tolist() == [0.9] and b.tolist() == [0.5]
    opt.param_groups[0]["lr"] = 0.2  # read at each step (what schedulers change)
    _steps(opt, [a, b], lambda: (a + b).sum(), 1)
    assert a.tolist() == [pytest.approx(0.7, rel=1e-15)]


def test_repr_as_pytorch():
    p = _param([1.0])
    assert repr(torch.optim.SGD([p], lr=0.1, momentum=0.9)) == (
        "SGD (\nParameter Group 0\n    dampening: 0\n    differentiable: False\n    foreach: None\n"
        "    fused: None\n    lr: 0.1\n    maximize: False\n    momentum: 0.9\n    nesterov: False\n"
        "    weight_decay: 0\n)"
    )


ERRORS = [
    (lambda p: torch.optim.SGD([p], lr=-1), ValueError, "Invalid learning rate: -1"),
    (lambda p: torch.optim.SGD([p], lr=0.1, momentum=-1), ValueError, "Invalid momentum value: -1"),
    (lambda p: torch.optim.SGD([p], lr=0.1, weight_decay=-1), ValueError, "Invalid weight_decay value: -1"),
    (lambda p: torch.optim.SGD([p], lr=0.1, nesterov=True), ValueError, "Nesterov momentum requires a momentum and zero dampening"),
    (lambda p: torch.optim.SGD([], lr=0.1), ValueError, "optimizer got an empty parameter list"),
    (lambda p: torch.optim.SGD(p, lr=0.1), TypeError,
     "params argument given to the optimizer should be an iterable of Tensors or dicts, but got srcgrad.DoubleTensor"),
    (lambda p: torch.optim.SGD([{"params": [p]}, {"params": [p]}], lr=0.1), ValueError,
     "some parameters appear in more than one parameter group"),
    (lambda p: torch.optim.SGD([p * 2], lr=0.1), ValueError, "can't optimize a non-leaf Tensor"),
    (lambda p: torch.optim.Adam([p], eps=-1), ValueError, "Invalid epsilon value: -1"),
    (lambda p: torch.optim.Adam([p], betas=(1.0, 0.9)), ValueError, "Invalid beta parameter at index 0: 1.0"),
    (lambda p: torch.optim.Adam([p], betas=(0.9, 1.0)), ValueError, "Invalid beta parameter at index 1: 1.0"),
]


@pytest.mark.parametrize("make,kind,message", ERRORS, ids=[m[:30] for _, _, m in ERRORS])
def test_errors(make, kind, message):
    with pytest.raises(kind) as info:
        make(_param([1.0]))
    assert str(info.value) == message


# --- PyTorch as the oracle ---------------------------------------------------------------

CONFIGS = {
    "sgd": ("SGD", dict(lr=0.1)),
    "sgd_momentum": ("SGD", dict(lr=0.1, momentum=0.9)),
    "sgd_nesterov_decay": ("SGD", dict(lr=0.05, momentum=0.8, nesterov=True, weight_decay=0.1)),
    "sgd_dampening_maximize": ("SGD", dict(lr=0.05, momentum=0.5, dampening=0.3, maximize=True)),
    "adam": ("Adam", dict(lr=0.01)),
    "adam_decay_amsgrad": ("Adam", dict(lr=0.02, betas=(0.8, 0.99), eps=1e-6, weight_decay=0.1, amsgrad=True)),
    "adam_decoupled": ("Adam", dict(lr=0.02, weight_decay=0.1, decoupled_weight_decay=True)),
    "adam_small_beta1": ("Adam", dict(lr=0.02, betas=(0.3, 0.9))),
}


def _train(lib, kind, kwargs, dtype):
    w = lib.tensor([[0.5, -1.2, 2.0], [0.3, 0.0, -0.7]], dtype=dtype, requires_grad=True)
    b = lib.tensor([0.1, -0.2], dtype=dtype, requires_grad=True)
    x = lib.tensor([[1.0, 2.0, -1.0], [0.5, -0.5, 3.0], [2.0, 1.0, 0.0], [-1.0, 0.25, 1.5]], dtype=dtype)
    opt = getattr(lib.optim, kind)([w, b], **kwargs)
    history = []
    for _ in range(5):
        opt.zero_grad()
        loss = ((x @ w.t() + b).tanh() ** 2).mean() + (w * w).sum() * 0.01
        loss.backward()
        opt.step()
        history.append(np.concatenate([w.detach().numpy().ravel(), b.detach().numpy().ravel()]))
    return np.array(history)


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_against_pytorch(name):
    real = pytest.importorskip("torch")
    kind, kwargs = CONFIGS[name]
    for lib_dtype, tol in (("float32", 5e-7), ("float64", 1e-14)):
        expected = _train(real, kind, kwargs, getattr(real, lib_dtype))
        got = _train(torch, kind, kwargs, getattr(torch, lib_dtype))
        assert got.dtype == expected.dtype
        np.testing.assert_allclose(got, expected, rtol=tol, atol=tol)
