"""srcgrad.optim (torch.optim.SGD, Adam, AdamW, RMSprop, Adagrad): a few steps worked out
by hand, zero_grad, in-place updates under no_grad, parameter groups, errors; and, when
PyTorch is installed, the same training loops against torch.optim to float32 rounding.
state_dict, load_state_dict and add_param_group are in test_optim_state.py."""

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


def test_sgd_momentum_with_a_parameter_listed_twice():
    """Buffers are read before the updates and stored after, as PyTorch does: two fresh
    buffers at the first step (the last kept), then one buffer updated twice."""
    p = _param([1.0])
    with pytest.warns(UserWarning, match="duplicate parameters"):
        opt = torch.optim.SGD([p, p], lr=0.1, momentum=0.9)
    steps = _steps(opt, [p], lambda: (p * p).sum(), 2)
    # g = 2: p = 1 - 0.2 - 0.2; then g = 1.2, b = 1.8 + 1.2 = 3, then 2.7 + 1.2 = 3.9
    np.testing.assert_allclose(steps[0][0], [0.6], rtol=1e-14)
    np.testing.assert_allclose(steps[1][0], [-0.09], rtol=1e-13)
    np.testing.assert_allclose(opt.state[p]["momentum_buffer"].numpy(), [3.9], rtol=1e-14)


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


# --- AdamW ------------------------------------------------------------------------------


def test_adamw_decays_the_weights_before_the_adam_step():
    p = _param([2.0])
    opt = torch.optim.AdamW([p], lr=0.1)
    assert opt.defaults["weight_decay"] == 0.01 and opt.param_groups[0]["decoupled_weight_decay"] is True
    _steps(opt, [p], lambda: p.sum(), 2)
    # each step: p *= 1 - 0.1 * 0.01, then the Adam step of a constant gradient, lr / (1 + eps)
    first = 2.0 * 0.999 - 0.1 / (1 + 1e-8)
    np.testing.assert_allclose(p.detach().numpy(), [first * 0.999 - 0.1 / (1 + 1e-8)], rtol=1e-14)
    q = _param([2.0])
    _steps(torch.optim.AdamW([q], lr=0.1, weight_decay=0.0), [q], lambda: q.sum(), 1)
    np.testing.assert_allclose(q.detach().numpy(), [2.0 - 0.1 / (1 + 1e-8)], rtol=1e-14)


def test_adamw_differs_from_adam_with_the_same_weight_decay():
    grads = []
    for kind in ("Adam", "AdamW"):
        p = _param([2.0])
        _steps(getattr(torch.optim, kind)([p], lr=0.1, weight_decay=0.5), [p], lambda: p.sum() * 0.0, 1)
        grads.append(p.item())
    # Adam: g = 0.5 * p = 1, a full lr step; AdamW: g = 0 (no step) after p *= 1 - 0.05
    assert grads == [pytest.approx(2.0 - 0.1 / (1 + 1e-8), rel=1e-14), pytest.approx(1.9, rel=1e-14)]


# --- RMSprop ----------------------------------------------------------------------------


def test_rmsprop_two_steps_of_a_quadratic():
    p = _param([1.0])
    steps = _steps(torch.optim.RMSprop([p], lr=0.01, eps=0.0), [p], lambda: (p * p).sum() * 0.5, 2)  # gradient p
    # v = 0.01 * 1 = 0.01, p = 1 - 0.01 * 1 / 0.1 = 0.9; then g = 0.9, v = 0.0099 + 0.0081 = 0.018
    np.testing.assert_allclose(steps[0][0], [0.9], rtol=1e-15)
    np.testing.assert_allclose(steps[1][0], [0.9 - 0.009 / math.sqrt(0.018)], rtol=1e-14)


def test_rmsprop_centered_divides_by_the_standard_deviation():
    # a constant gradient 2 with alpha = 0.75: v = 0.25 * 4 = 1 and the average a = 0.5;
    # plain RMSprop divides by sqrt(v) = 1, centered by sqrt(v - a * a) = sqrt(0.75)
    for centered, divisor in ((False, 1.0), (True, math.sqrt(0.75))):
        p = _param([0.0])
        opt = torch.optim.RMSprop([p], lr=0.1, alpha=0.75, eps=0.0, centered=centered)
        _steps(opt, [p], lambda: (p * 2.0).sum(), 1)
        np.testing.assert_allclose(p.detach().numpy(), [-0.2 / divisor], rtol=1e-15)
        assert sorted(opt.state[p]) == (["grad_avg", "square_avg", "step"] if centered else ["square_avg", "step"])
    # second step, centered: v = 0.75 + 1 = 1.75, a = 0.375 + 0.5 = 0.875
    _steps(opt, [p], lambda: (p * 2.0).sum(), 1)
    expected = -0.2 / math.sqrt(0.75) - 0.2 / math.sqrt(1.75 - 0.875**2)
    np.testing.assert_allclose(p.detach().numpy(), [expected], rtol=1e-14)


def test_rmsprop_momentum_and_weight_decay():
    p = _param([1.0])
    opt = torch.optim.RMSprop([p], lr=0.1, alpha=0.5, eps=0.0, momentum=0.5, weight_decay=1.0)
    steps = _steps(opt, [p], lambda: p.sum(), 2)
    # g = 1 + p = 2, v = 0.5 * 4 = 2, b = 2 / sqrt(2) = sqrt(2), p = 1 - 0.1 * sqrt(2)
    p1 = 1 - 0.1 * math.sqrt(2)
    np.testing.assert_allclose(steps[0][0], [p1], rtol=1e-15)
    g = 1 + p1
    v = 1.0 + 0.5 * g * g
    np.testing.assert_allclose(steps[1][0], [p1 - 0.1 * (0.5 * math.sqrt(2) + g / math.sqrt(v))], rtol=1e-14)


# --- Adagrad ----------------------------------------------------------------------------


def test_adagrad_steps_shrink_as_one_over_root_t():
    p = _param([0.0, 0.0])
    c = torch.tensor([3.0, -0.5], dtype=torch.float64)
    steps = _steps(torch.optim.Adagrad([p], lr=0.1, eps=0.0), [p], lambda: (p * c).sum(), 3)
    # the sum of squares after t steps is t c^2, so step t moves lr / sqrt(t) against sign(c)
    for t, s in enumerate(steps, 1):
        moved = 0.1 * sum(1 / math.sqrt(k) for k in range(1, t + 1))
        np.testing.assert_allclose(s[0], [-moved, moved], rtol=1e-14)


def test_adagrad_lr_decay_initial_accumulator_and_weight_decay():
    p = _param([0.0])
    opt = torch.optim.Adagrad([p], lr=0.1, lr_decay=0.5, initial_accumulator_value=3.0, eps=0.0)
    assert opt.state[p]["sum"].tolist() == [3.0] and opt.state[p]["step"].item() == 0.0  # made at construction
    steps = _steps(opt, [p], lambda: p.sum(), 2)
    # sum 3 + 1 = 4: step 0.1 / 2; then lr 0.1 / (1 + 0.5) and sum 5
    np.testing.assert_allclose([s[0][0] for s in steps], [-0.05, -0.05 - 0.1 / 1.5 / math.sqrt(5)], rtol=1e-15)
    q = _param([1.0])
    _steps(torch.optim.Adagrad([q], lr=0.1, weight_decay=1.0, eps=0.0), [q], lambda: q.sum(), 1)
    assert q.tolist() == [pytest.approx(0.9, rel=1e-15)]  # g = 1 + q = 2: a full lr step


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



def test_adamw_repr_shows_the_decoupled_weight_decay():
    text = repr(torch.optim.AdamW([_param([1.0])]))
    assert "    decoupled_weight_decay: True\n" in text and "    weight_decay: 0.01\n" in text
    assert text.startswith("AdamW (\nParameter Group 0\n    amsgrad: False\n    betas: (0.9, 0.999)\n")

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
    (lambda p: torch.optim.AdamW([p], lr=-0.5), ValueError, "Invalid learning rate: -0.5"),
    (lambda p: torch.optim.RMSprop([p], alpha=-1), ValueError, "Invalid alpha value: -1"),
    (lambda p: torch.optim.RMSprop([p], momentum=-0.1), ValueError, "Invalid momentum value: -0.1"),
    (lambda p: torch.optim.RMSprop([p], eps=-1), ValueError, "Invalid epsilon value: -1"),
    (lambda p: torch.optim.Adagrad([p], lr_decay=-1), ValueError, "Invalid lr_decay value: -1"),
    (lambda p: torch.optim.Adagrad([p], initial_accumulator_value=-1), ValueError,
     "Invalid initial_accumulator_value value: -1"),
    (lambda p: torch.optim.Adagrad([p], weight_decay=-1), ValueError, "Invalid weight_decay value: -1"),
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
    "adamw": ("AdamW", dict(lr=0.01)),
    "adamw_amsgrad_maximize": ("AdamW", dict(lr=0.02, betas=(0.8, 0.99), weight_decay=0.1, amsgrad=True,
                                             maximize=True)),
    "rmsprop": ("RMSprop", dict(lr=0.01)),
    "rmsprop_centered": ("RMSprop", dict(lr=0.01, alpha=0.9, centered=True)),
    "rmsprop_all": ("RMSprop", dict(lr=0.005, alpha=0.8, eps=1e-6, weight_decay=0.1, momentum=0.9, centered=True)),
    "rmsprop_momentum_maximize": ("RMSprop", dict(lr=0.005, momentum=0.5, maximize=True)),
    "adagrad": ("Adagrad", dict(lr=0.1)),
    "adagrad_all": ("Adagrad", dict(lr=0.1, lr_decay=0.05, weight_decay=0.1, initial_accumulator_value=0.5, eps=1e-6)),
    "adagrad_maximize": ("Adagrad", dict(lr=0.1, maximize=True)),
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


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_the_same_gradients_give_pytorchs_updates(name):
    """The update arithmetic alone: both libraries get the same gradients for 20 steps."""
    real = pytest.importorskip("torch")
    kind, kwargs = CONFIGS[name]
    rng = np.random.default_rng(7)
    start = rng.standard_normal(64).astype(np.float32)
    grads = rng.standard_normal((20, 64)).astype(np.float32)
    histories = []
    for lib in (real, torch):
        p = lib.tensor(start, requires_grad=True)
        opt = getattr(lib.optim, kind)([p], **kwargs)
        history = []
        for g in grads:
            p.grad = lib.tensor(g)
            opt.step()
            history.append(p.detach().numpy().copy())
        histories.append(np.array(history))
    np.testing.assert_allclose(histories[1], histories[0], rtol=1e-6, atol=1e-7)
