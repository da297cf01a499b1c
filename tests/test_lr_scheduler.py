"""srcgrad.optim.lr_scheduler: each scheduler's rates for 20 steps against its formula
worked out by hand, the closed form of step(epoch), state_dict round trips, resuming,
warnings and errors; and, when PyTorch is installed, the same floats as
torch.optim.lr_scheduler (the chainable form rounds differently from the closed form)."""

import math
import warnings

import numpy as np
import pytest

import srcgrad as torch

S = torch.optim.lr_scheduler


def _optimizer(lr=1.0):
    return torch.optim.SGD([torch.zeros(2, requires_grad=True)], lr=lr, momentum=0.9)


def _rates(scheduler, n=20):
    """get_last_lr()[0] at epochs 0 .. n - 1, stepping the optimizer first as one should."""
    out = [scheduler.get_last_lr()[0]]
    for _ in range(n - 1):
        scheduler.optimizer.step()
        scheduler.step()
        out.append(scheduler.get_last_lr()[0])
    return out


def test_step_lr():
    rates = _rates(S.StepLR(_optimizer(), step_size=3, gamma=0.5))
    assert rates == [0.5 ** (t // 3) for t in range(20)]  # powers of two: exact


def test_multi_step_lr_counts_repeated_milestones():
    rates = _rates(S.MultiStepLR(_optimizer(), milestones=[2, 5, 5], gamma=0.5))
    assert rates == [1.0] * 2 + [0.5] * 3 + [0.125] * 15


def test_exponential_lr():
    assert _rates(S.ExponentialLR(_optimizer(), gamma=0.5)) == [0.5**t for t in range(20)]


def test_cosine_annealing_follows_the_cosine_and_rises_after_t_max():
    rates = _rates(S.CosineAnnealingLR(_optimizer(), T_max=4, eta_min=0.2))
    expected = [0.2 + 0.8 * (1 + math.cos(math.pi * t / 4)) / 2 for t in range(20)]
    np.testing.assert_allclose(rates, expected, rtol=1e-14)
    assert rates[4] == pytest.approx(0.2, rel=1e-14) and rates[8] == pytest.approx(1.0, rel=1e-14)
    assert rates[5] > rates[4]  # no restart: past T_max it climbs back along the cosine


def test_linear_lr_warms_up_then_holds():
    rates = _rates(S.LinearLR(_optimizer(), start_factor=0.25, end_factor=1.0, total_iters=3))
    np.testing.assert_allclose(rates, [0.25, 0.5, 0.75] + [1.0] * 17, rtol=1e-15)
    rates = _rates(S.LinearLR(_optimizer(2.0), start_factor=1.0, end_factor=0.5, total_iters=4))
    np.testing.assert_allclose(rates, [2.0, 1.75, 1.5, 1.25] + [1.0] * 16, rtol=1e-15)


def test_lambda_lr_one_function_per_group():
    a, b = torch.zeros(1, requires_grad=True), torch.zeros(1, requires_grad=True)
    opt = torch.optim.SGD([{"params": [a]}, {"params": [b], "lr": 3.0}], lr=2.0)
    scheduler = S.LambdaLR(opt, [lambda t: 1 / (t + 1), lambda t: 0.5**t])
    for t in range(1, 6):
        opt.step()
        scheduler.step()
        assert scheduler.get_last_lr() == [2.0 / (t + 1), 3.0 * 0.5**t]
        assert [g["lr"] for g in opt.param_groups] == scheduler.get_last_lr()
    assert [g["initial_lr"] for g in opt.param_groups] == [2.0, 3.0] and scheduler.base_lrs == [2.0, 3.0]


def test_the_optimizer_steps_with_the_scheduled_rate():
    p = torch.tensor([0.0], dtype=torch.float64, requires_grad=True)
    opt = torch.optim.SGD([p], lr=1.0)
    scheduler = S.StepLR(opt, step_size=1, gamma=0.5)
    for _ in range(3):
        opt.zero_grad()
        p.sum().backward()
        opt.step()
        scheduler.step()
    assert p.tolist() == [-1.75]  # steps of 1, 0.5, 0.25


def test_two_schedulers_chain():
    opt = _optimizer()
    warmup, decay = S.LinearLR(opt, start_factor=0.5, total_iters=2), S.ExponentialLR(opt, gamma=0.5)
    rates = [decay.get_last_lr()[0]]
    for _ in range(4):
        opt.step()
        warmup.step()
        decay.step()
        rates.append(decay.get_last_lr()[0])
    np.testing.assert_allclose(rates, [0.5, 0.375, 0.25, 0.125, 0.0625], rtol=1e-15)


@pytest.mark.parametrize("make,formula", [
    (lambda o: S.StepLR(o, 3, 0.5), lambda t: 0.5 ** (t // 3)),
    (lambda o: S.MultiStepLR(o, [2, 6], 0.1), lambda t: 0.1 ** ((t >= 2) + (t >= 6))),
    (lambda o: S.ExponentialLR(o, 0.9), lambda t: 0.9**t),
    (lambda o: S.CosineAnnealingLR(o, 5, 0.1), lambda t: 0.1 + 0.9 * (1 + math.cos(math.pi * t / 5)) / 2),
    (lambda o: S.LinearLR(o, 0.2, 0.8, 4), lambda t: 0.2 + 0.6 * min(t, 4) / 4),
], ids=["step", "multistep", "exponential", "cosine", "linear"])
def test_step_with_an_epoch_uses_the_closed_form_and_warns(make, formula):
    opt = _optimizer()
    scheduler = make(opt)
    opt.step()
    for epoch in (7, 2, 11):
        with pytest.warns(UserWarning, match="The epoch parameter in `scheduler.step\\(\\)` was not necessary"):
            scheduler.step(epoch)
        assert scheduler.last_epoch == epoch
        assert scheduler.get_last_lr()[0] == pytest.approx(formula(epoch), rel=1e-14)


def test_state_dict_round_trip_continues_the_schedule():
    opt = _optimizer()
    scheduler = S.CosineAnnealingLR(opt, T_max=6, eta_min=0.1)
    _rates(scheduler, 4)
    saved = scheduler.state_dict()
    assert saved == {"T_max": 6, "eta_min": 0.1, "base_lrs": [1.0], "last_epoch": 3, "_step_count": 4,
                     "_is_initial": False, "_get_lr_called_within_step": False, "_last_lr": [opt.param_groups[0]["lr"]]}
    opt2 = _optimizer()
    opt2.load_state_dict(opt.state_dict())
    resumed = S.CosineAnnealingLR(opt2, T_max=100)
    resumed.load_state_dict(saved)
    assert _rates(resumed, 10) == _rates(scheduler, 10)


class Halving:
    """A callable object: LambdaLR saves its attributes."""

    def __init__(self):
        self.base = 0.5

    def __call__(self, epoch):
        return self.base**epoch


def test_lambda_lr_state_dict_saves_callable_objects_only():
    a, b = torch.zeros(1, requires_grad=True), torch.zeros(1, requires_grad=True)
    opt = torch.optim.SGD([{"params": [a]}, {"params": [b]}], lr=1.0)
    halving = Halving()
    scheduler = S.LambdaLR(opt, [lambda t: 1.0, halving])
    saved = scheduler.state_dict()
    assert saved["lr_lambdas"] == [None, {"base": 0.5}] and "optimizer" not in saved
    halving.base = 0.25
    scheduler.load_state_dict(saved)
    assert halving.base == 0.5 and saved["lr_lambdas"] == [None, {"base": 0.5}]


def test_resuming_with_last_epoch():
    opt = _optimizer()
    opt.param_groups[0]["initial_lr"] = 1.0
    opt.param_groups[0]["lr"] = 0.125
    scheduler = S.ExponentialLR(opt, gamma=0.5, last_epoch=3)  # the constructor's step keeps the rate
    assert scheduler.last_epoch == 4 and scheduler.get_last_lr() == [0.125]
    cosine = S.CosineAnnealingLR(opt, T_max=4, last_epoch=1)
    assert cosine.last_epoch == 2 and cosine.get_last_lr() == [0.125]


def test_warnings_for_misuse():
    opt = _optimizer()
    scheduler = S.StepLR(opt, 2)
    with pytest.warns(UserWarning, match="Detected call of `lr_scheduler.step\\(\\)` before `optimizer.step\\(\\)`"):
        scheduler.step()
    with pytest.warns(UserWarning, match="please use `get_last_lr\\(\\)`"):
        scheduler.get_lr()
    opt2 = _optimizer()
    scheduler = S.StepLR(opt2, 2)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        opt2.step()
        scheduler.step()


ERRORS = [
    (lambda o: S.StepLR(object(), 2), TypeError, "object is not an Optimizer"),
    (lambda o: S.LambdaLR(o, [lambda t: 1.0] * 2), ValueError, "Expected 1 lr_lambdas, but got 2"),
    (lambda o: S.LinearLR(o, start_factor=0), ValueError,
     "Starting multiplicative factor expected to be greater than 0 and less or equal to 1."),
    (lambda o: S.LinearLR(o, end_factor=1.5), ValueError,
     "Ending multiplicative factor expected to be between 0 and 1."),
    (lambda o: S.StepLR(o, 2, last_epoch=5), KeyError,
     "\"param 'initial_lr' is not specified in param_groups[0] when resuming scheduler with last_epoch >= 0.\\n"
     "This typically happens when:\\n1. You're trying to resume training from a checkpoint but haven't properly "
     "loaded the optimizer state\\n2. You're using last_epoch >= 0 for a fresh training run (not recommended)\""),
]


@pytest.mark.parametrize("make,kind,message", ERRORS, ids=[m[:30] for _, _, m in ERRORS])
def test_errors(make, kind, message):
    with pytest.raises(kind) as info:
        make(_optimizer())
    assert str(info.value) == message


# --- PyTorch as the oracle ---------------------------------------------------------------

ORACLE = {
    "step": lambda s, o: s.StepLR(o, step_size=3, gamma=0.7),
    "multistep": lambda s, o: s.MultiStepLR(o, milestones=[2, 5, 5, 11], gamma=0.3),
    "exponential": lambda s, o: s.ExponentialLR(o, gamma=0.9),
    "cosine": lambda s, o: s.CosineAnnealingLR(o, T_max=7, eta_min=0.001),
    "cosine_short": lambda s, o: s.CosineAnnealingLR(o, T_max=3),
    "lambda": lambda s, o: s.LambdaLR(o, lambda t: 1 / (1 + t)),
    "linear": lambda s, o: s.LinearLR(o, start_factor=0.1, end_factor=0.9, total_iters=6),
    "linear_default": lambda s, o: s.LinearLR(o),
}


@pytest.mark.parametrize("name", sorted(ORACLE))
def test_against_pytorch(name):
    real = pytest.importorskip("torch")
    results = []
    for lib in (real, torch):
        a, b = lib.zeros(1, requires_grad=True), lib.zeros(1, requires_grad=True)
        opt = lib.optim.SGD([{"params": [a]}, {"params": [b], "lr": 0.3}], lr=0.1)
        scheduler = ORACLE[name](lib.optim.lr_scheduler, opt)
        chained = [scheduler.get_last_lr()]
        for _ in range(20):
            opt.step()
            scheduler.step()
            chained.append(scheduler.get_last_lr())
        state = {k: v for k, v in scheduler.state_dict().items() if k != "lr_lambdas"}
        closed = []
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for epoch in range(20):
                scheduler.step(epoch)
                closed.append(scheduler.get_last_lr())
        results.append((chained, state, closed))
    assert results[1] == results[0]  # the same floats, bit for bit
