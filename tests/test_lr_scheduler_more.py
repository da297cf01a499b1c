"""MultiplicativeLR, ConstantLR, PolynomialLR, CyclicLR, OneCycleLR,
CosineAnnealingWarmRestarts, ReduceLROnPlateau, SequentialLR and ChainedScheduler: rates
(and cycled momentum) against their formulas, state_dict round trips, PyTorch's errors
and warnings; and, when PyTorch is installed, 60-step rate and momentum sequences equal
(==) to torch.optim.lr_scheduler's."""

import copy
import math
import warnings

import numpy as np
import pytest

import srcgrad as torch

S = torch.optim.lr_scheduler


def _optimizer(lr=1.0, kind="SGD"):
    p = torch.zeros(2, requires_grad=True)
    if kind == "SGD":
        return torch.optim.SGD([p], lr=lr, momentum=0.9)
    return getattr(torch.optim, kind)([p], lr=lr)


def _rates(scheduler, n=20):
    """get_last_lr()[0] at epochs 0 .. n - 1, stepping the optimizer first."""
    out = [scheduler.get_last_lr()[0]]
    for _ in range(n - 1):
        scheduler.optimizer.step()
        scheduler.step()
        out.append(scheduler.get_last_lr()[0])
    return out


# --- schedules against their formulas -----------------------------------------------------


def test_multiplicative_lr_multiplies_from_the_second_epoch():
    rates = _rates(S.MultiplicativeLR(_optimizer(), lambda epoch: 0.5))
    assert rates == [0.5**t for t in range(20)]
    rates = _rates(S.MultiplicativeLR(_optimizer(), lambda epoch: 1.0 + epoch), n=5)
    assert rates == [1.0, 2.0, 6.0, 24.0, 120.0]  # the product of (1 + t) for t = 1 .. epoch


def test_constant_lr_holds_a_factor_then_the_base_rate():
    rates = _rates(S.ConstantLR(_optimizer(), factor=0.5, total_iters=4), n=8)
    assert rates == [0.5] * 4 + [1.0] * 4


def test_polynomial_lr():
    rates = _rates(S.PolynomialLR(_optimizer(2.0), total_iters=8, power=2.0), n=12)
    np.testing.assert_allclose(rates, [2.0 * (1 - min(t, 8) / 8) ** 2 for t in range(12)], rtol=1e-14, atol=1e-15)
    assert rates[8:] == [0.0] * 4


def test_cyclic_lr_triangular_with_momentum_against_the_rate():
    opt = _optimizer()
    scheduler = S.CyclicLR(opt, base_lr=0.1, max_lr=0.5, step_size_up=4, step_size_down=2,
                           base_momentum=0.8, max_momentum=0.9)
    rates, momenta = [], []
    for _ in range(13):
        rates.append(scheduler.get_last_lr()[0])
        momenta.append(opt.param_groups[0]["momentum"])
        opt.step()
        scheduler.step()
    wave = [0, 0.25, 0.5, 0.75, 1, 0.5]  # up over 4 steps, down over 2
    expected = [wave[t % 6] for t in range(13)]
    np.testing.assert_allclose(rates, [0.1 + 0.4 * f for f in expected], rtol=1e-14)
    np.testing.assert_allclose(momenta, [0.9 - 0.1 * f for f in expected], rtol=1e-14)
    assert opt.param_groups[0]["max_momentum"] == 0.9 and opt.param_groups[0]["base_momentum"] == 0.8


def test_cyclic_lr_triangular2_halves_each_cycle_and_exp_range_decays():
    rates = _rates(S.CyclicLR(_optimizer(), 0.0, 1.0, step_size_up=2, mode="triangular2"), n=13)
    peaks = rates[2::4]
    assert peaks == [1.0, 0.5, 0.25]
    rates = _rates(S.CyclicLR(_optimizer(), 0.0, 1.0, step_size_up=2, mode="exp_range", gamma=0.9), n=9)
    np.testing.assert_allclose(rates[2::2], [0.9**2, 0.0, 0.9**6, 0.0], atol=1e-15)


def test_cyclic_lr_cycles_adams_beta1_only():
    opt = _optimizer(kind="Adam")
    scheduler = S.CyclicLR(opt, 0.001, 0.01, step_size_up=2)
    assert opt.param_groups[0]["betas"] == (0.9, 0.999)  # max_momentum at the start
    opt.step()
    scheduler.step()
    assert opt.param_groups[0]["betas"] == (pytest.approx(0.85, rel=1e-15), 0.999)


def test_one_cycle_lr_cos():
    opt = _optimizer()
    scheduler = S.OneCycleLR(opt, max_lr=1.0, total_steps=10, pct_start=0.3, div_factor=4.0, final_div_factor=5.0)
    rates, momenta = [], []
    for t in range(10):
        rates.append(scheduler.get_last_lr()[0])
        momenta.append(opt.param_groups[0]["momentum"])
        if t < 9:
            opt.step()
            scheduler.step()

    def cos(start, end, pct):
        return end + (start - end) / 2 * (1 + math.cos(math.pi * pct))

    # warm-up over steps 0 .. 2 (end_step 0.3 * 10 - 1), then down to 0.25 / 5 at step 9
    expected = [cos(0.25, 1.0, t / 2) for t in range(3)] + [cos(1.0, 0.05, (t - 2) / 7) for t in range(3, 10)]
    np.testing.assert_allclose(rates, expected, rtol=1e-14)
    assert rates[0] == 0.25 and rates[2] == 1.0 and rates[-1] == pytest.approx(0.05, rel=1e-14)
    assert momenta[0] == 0.95 and momenta[2] == pytest.approx(0.85, rel=1e-14)
    assert momenta[-1] == pytest.approx(0.95, rel=1e-14)
    opt.step()
    scheduler.step()  # step 10 = total_steps: still allowed
    with pytest.raises(ValueError, match="^Tried to step 11 times. The specified number of total steps is 10$"):
        scheduler.step()


def test_one_cycle_lr_linear_three_phase():
    scheduler = S.OneCycleLR(_optimizer(), max_lr=1.0, total_steps=20, pct_start=0.25, anneal_strategy="linear",
                             three_phase=True, div_factor=10.0, final_div_factor=10.0)
    rates = _rates(scheduler, n=20)
    # up 0.1 -> 1 over steps 0..4, back to 0.1 at step 8, then to 0.01 at step 19
    np.testing.assert_allclose(rates[:5], np.linspace(0.1, 1.0, 5), rtol=1e-14)
    np.testing.assert_allclose(rates[4:9], np.linspace(1.0, 0.1, 5), rtol=1e-14)
    np.testing.assert_allclose(rates[8:], np.linspace(0.1, 0.01, 12), rtol=1e-13)


def test_cosine_annealing_warm_restarts():
    rates = _rates(S.CosineAnnealingWarmRestarts(_optimizer(), T_0=2, T_mult=2, eta_min=0.1), n=15)
    periods = [(0, 2), (2, 4), (6, 8), (14, 16)]  # restarts at 2, 6 and 14, periods 2, 4, 8, 16
    expected = []
    for t in range(15):
        start, period = max((s, p) for s, p in periods if s <= t)
        expected.append(0.1 + 0.9 * (1 + math.cos(math.pi * (t - start) / period)) / 2)
    np.testing.assert_allclose(rates, expected, rtol=1e-14)


def test_cosine_annealing_warm_restarts_fractional_epochs():
    opt = _optimizer()
    scheduler = S.CosineAnnealingWarmRestarts(opt, T_0=4, T_mult=2)
    for epoch, t_cur, t_i in ((1.5, 1.5, 4), (4.5, 0.5, 8), (13.0, 1.0, 16), (2.0, 2.0, 4)):
        opt.step()
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # no deprecation warning for this scheduler's step(epoch)
            scheduler.step(epoch)
        assert (scheduler.T_cur, scheduler.T_i, scheduler.last_epoch) == (t_cur, t_i, math.floor(epoch))
        assert scheduler.get_last_lr()[0] == pytest.approx((1 + math.cos(math.pi * t_cur / t_i)) / 2, rel=1e-14)


def test_reduce_lr_on_plateau():
    opt = _optimizer()
    scheduler = S.ReduceLROnPlateau(opt, factor=0.5, patience=1, cooldown=1, min_lr=0.2)
    assert scheduler.get_last_lr() == [1.0]
    rates = []
    for metric in [5.0, 4.0, 4.0, 4.0, 4.0, 4.0, 4.0, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0]:
        scheduler.step(metric)
        rates.append(scheduler.get_last_lr()[0])
    # two bad epochs in a row halve the rate; the epoch after a cut is cooldown; 0.2 is the floor
    assert rates == [1.0, 1.0, 1.0, 0.5, 0.5, 0.5, 0.25, 0.25, 0.25, 0.2, 0.2, 0.2, 0.2]
    assert scheduler.best == 3.0 and scheduler.last_epoch == 13


def test_reduce_lr_on_plateau_max_mode_thresholds_and_eps():
    opt = _optimizer()
    scheduler = S.ReduceLROnPlateau(opt, mode="max", factor=0.1, patience=0, threshold=0.1, threshold_mode="abs")
    for metric, lr in ((1.0, 1.0), (1.05, 0.1), (1.2, 0.1), (1.25, pytest.approx(0.01, rel=1e-14))):
        scheduler.step(metric)  # 1.05 is not 0.1 better than 1.0
        assert scheduler.get_last_lr()[0] == lr
    opt = _optimizer(1e-8)
    scheduler = S.ReduceLROnPlateau(opt, patience=0)
    scheduler.step(1.0)
    scheduler.step(1.0)
    assert opt.param_groups[0]["lr"] == 1e-8  # a change of no more than eps is skipped


def test_sequential_lr_switches_at_milestones():
    opt = _optimizer()
    scheduler = S.SequentialLR(opt, [S.ConstantLR(opt, factor=0.5, total_iters=10), S.ExponentialLR(opt, 0.5)],
                               milestones=[3])
    rates = _rates(scheduler, n=7)
    assert rates == [0.5, 0.5, 0.5, 1.0, 0.5, 0.25, 0.125]


def test_chained_scheduler_applies_all_in_order():
    opt = _optimizer()
    scheduler = S.ChainedScheduler([S.ConstantLR(opt, factor=0.1, total_iters=2), S.ExponentialLR(opt, gamma=0.5)])
    rates = _rates(scheduler, n=5)
    np.testing.assert_allclose(rates, [0.1, 0.05, 0.25, 0.125, 0.0625], rtol=1e-14)


# --- state dicts ---------------------------------------------------------------------------


def _make(kind, opt):
    if kind == "onecycle":
        return S.OneCycleLR(opt, max_lr=1.0, total_steps=30)
    if kind == "cyclic":
        return S.CyclicLR(opt, 0.1, 1.0, step_size_up=3, scale_fn=lambda x: 0.9**x, scale_mode="iterations")
    if kind == "warm":
        return S.CosineAnnealingWarmRestarts(opt, T_0=3, T_mult=2)
    if kind == "sequential":
        return S.SequentialLR(opt, [S.LinearLR(opt, 0.1, total_iters=4), S.PolynomialLR(opt, 30)], milestones=[4])
    if kind == "chained":
        return S.ChainedScheduler([S.LinearLR(opt, 0.1, total_iters=4), S.StepLR(opt, 3, 0.5)])
    return S.ReduceLROnPlateau(opt, patience=1, cooldown=1)


@pytest.mark.parametrize("kind", ["onecycle", "cyclic", "warm", "sequential", "chained", "plateau"])
def test_a_reloaded_scheduler_continues_exactly(kind):
    metrics = [3.0, 2.0, 2.5, 2.5, 2.5, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0]
    opt = _optimizer()
    scheduler = _make(kind, opt)

    def advance(s, o, values):
        out = []
        for m in values:
            o.step()
            s.step(m) if kind == "plateau" else s.step()
            out.append((s.get_last_lr(), [dict((k, v) for k, v in g.items() if k != "params") for g in o.param_groups]))
        return out

    advance(scheduler, opt, metrics[:5])
    saved_opt, saved = copy.deepcopy(opt.state_dict()), copy.deepcopy(scheduler.state_dict())
    assert "optimizer" not in saved
    expected = advance(scheduler, opt, metrics[5:])
    opt2 = _optimizer()
    scheduler2 = _make(kind, opt2)  # built first, then both loaded: PyTorch's way to resume
    opt2.load_state_dict(saved_opt)
    scheduler2.load_state_dict(saved)
    assert advance(scheduler2, opt2, metrics[5:]) == expected


def test_cyclic_state_dict_drops_plain_functions_and_keeps_callable_objects():
    class Scale:
        def __init__(self):
            self.rate = 0.5

        def __call__(self, x):
            return self.rate

    scheduler = S.CyclicLR(_optimizer(), 0.1, 1.0, scale_fn=lambda x: 1.0)
    state = scheduler.state_dict()
    assert state["_scale_fn_custom"] is None and "_scale_fn_ref" not in state
    scale = Scale()
    scheduler = S.CyclicLR(_optimizer(), 0.1, 1.0, scale_fn=scale)
    assert scheduler.state_dict()["_scale_fn_custom"] == {"rate": 0.5}
    saved = scheduler.state_dict()
    saved["_scale_fn_custom"] = {"rate": 0.25}
    scheduler.load_state_dict(saved)
    assert scale.rate == 0.25


# --- errors and warnings (checked against PyTorch 2.13) -----------------------------------


def _adagrad():
    return _optimizer(kind="Adagrad")


ERRORS = [
    (lambda: S.ConstantLR(_optimizer(), factor=1.5), ValueError,
     "Constant multiplicative factor expected to be between 0 and 1."),
    (lambda: S.MultiplicativeLR(_optimizer(), 0.9), TypeError, "lr_lambda should be a function, but got float"),
    (lambda: S.ReduceLROnPlateau(_optimizer(), factor=1.0), ValueError, "Factor should be < 1.0."),
    (lambda: S.ReduceLROnPlateau(_optimizer(), mode="avg"), ValueError, "mode avg is unknown!"),
    (lambda: S.ReduceLROnPlateau(_optimizer(), threshold_mode="x"), ValueError, "threshold mode x is unknown!"),
    (lambda: S.ReduceLROnPlateau(_optimizer(), min_lr=[0.1, 0.2]), ValueError, "expected 1 min_lrs, got 2"),
    (lambda: S.ReduceLROnPlateau("x"), TypeError, "str is not an Optimizer"),
    (lambda: S.CyclicLR(_optimizer(), 0.1, 1.0, mode="sine"), ValueError, "mode is invalid and scale_fn is None"),
    (lambda: S.CyclicLR(_adagrad(), 0.1, 1.0), ValueError,
     "optimizer must support momentum or beta1 with `cycle_momentum` option enabled"),
    (lambda: S.CyclicLR(_optimizer(), [0.1, 0.2], 1.0), ValueError,
     "base_lr must have the same length as optimizer.param_groups. base_lr has 2 values, param_groups has 1."),
    (lambda: S.OneCycleLR(_optimizer(), 1.0), ValueError,
     "You must define either total_steps OR (epochs AND steps_per_epoch)"),
    (lambda: S.OneCycleLR(_optimizer(), 1.0, total_steps=0), ValueError,
     "Expected positive integer total_steps, but got 0"),
    (lambda: S.OneCycleLR(_optimizer(), 1.0, epochs=2, steps_per_epoch=1.5), ValueError,
     "Expected positive integer steps_per_epoch, but got 1.5"),
    (lambda: S.OneCycleLR(_optimizer(), 1.0, total_steps=10, pct_start=1), ValueError,
     "Expected float between 0 and 1 pct_start, but got 1"),
    (lambda: S.OneCycleLR(_optimizer(), 1.0, total_steps=10, anneal_strategy="exp"), ValueError,
     "anneal_strategy must be one of 'cos' or 'linear', instead got exp"),
    (lambda: S.CosineAnnealingWarmRestarts(_optimizer(), T_0=2.0), ValueError,
     "Expected positive integer T_0, but got 2.0"),
    (lambda: S.CosineAnnealingWarmRestarts(_optimizer(), T_0=2, T_mult=0), ValueError,
     "Expected integer T_mult >= 1, but got 0"),
    (lambda: S.CosineAnnealingWarmRestarts(_optimizer(), T_0=2).step(-1), ValueError,
     "Expected non-negative epoch, but got -1"),
    (lambda: S.SequentialLR(_optimizer(), [], []), ValueError,
     "SequentialLR expects at least one scheduler, but got no scheduler."),
    (lambda: (lambda o: S.SequentialLR(o, [S.ConstantLR(o)], [3]))(_optimizer()), ValueError,
     "Sequential Schedulers expects number of schedulers provided to be one more than the number of milestone "
     "points, but got number of schedulers 1 and the number of milestones to be equal to 1"),
    (lambda: (lambda o: S.ChainedScheduler([S.ReduceLROnPlateau(o)]))(_optimizer()), ValueError,
     "ChainedScheduler does not support `ReduceLROnPlateau` scheduler as it requires additional kwargs to be "
     "specified when calling `step`, but got one at index 0 in the given schedulers sequence."),
    (lambda: (lambda o: S.ChainedScheduler([S.ConstantLR(o), 5]))(_optimizer()), TypeError,
     "ChainedScheduler at index 1 should have `optimizer` as its attribute."),
    (lambda: S.ChainedScheduler([]), ValueError,
     "ChainedScheduler expects at least one scheduler to be chained, but got no scheduler."),
]


@pytest.mark.parametrize("make,kind,message", ERRORS, ids=[m[:40] for _, _, m in ERRORS])
def test_errors(make, kind, message):
    with pytest.raises(kind) as info:
        make()
    assert str(info.value) == message


def test_schedulers_of_another_optimizer_are_refused():
    opt = _optimizer()
    with pytest.raises(ValueError, match="^SequentialLR expects all schedulers to belong to the same optimizer, "
                                         "but got scheduler ConstantLR at index 0 has SGD"):
        S.SequentialLR(opt, [S.ConstantLR(_optimizer())], [])


def test_warnings():
    opt = _optimizer()
    scheduler = S.OneCycleLR(opt, 1.0, total_steps=10)
    with pytest.warns(UserWarning, match=r"Detected call of `lr_scheduler.step\(\)` before `optimizer.step\(\)`"):
        scheduler.step()
    with pytest.warns(UserWarning, match="please use `get_last_lr\\(\\)`"):
        S.CyclicLR(_optimizer(), 0.1, 1.0).get_lr()
    with pytest.warns(UserWarning, match="The epoch parameter in `scheduler.step\\(\\)` was not necessary"):
        S.ReduceLROnPlateau(_optimizer()).step(1.0, epoch=3)


# --- PyTorch as the oracle ------------------------------------------------------------------

N = 60

CASES = {
    "multiplicative": ("SGD", lambda L, o: L.MultiplicativeLR(o, lambda e: 0.95)),
    "multiplicative_list": ("SGD", lambda L, o: L.MultiplicativeLR(o, [lambda e: 0.9, lambda e: 1 / (1 + 0.01 * e)])),
    "constant": ("SGD", lambda L, o: L.ConstantLR(o, factor=0.3, total_iters=7)),
    "polynomial": ("SGD", lambda L, o: L.PolynomialLR(o, total_iters=40, power=2.0)),
    "polynomial_fractional_power": ("SGD", lambda L, o: L.PolynomialLR(o, total_iters=13, power=0.7)),
    "cyclic_triangular": ("SGD", lambda L, o: L.CyclicLR(o, 0.01, 0.1, step_size_up=7)),
    "cyclic_triangular2": ("SGD", lambda L, o: L.CyclicLR(o, [0.01, 0.02], [0.1, 0.5], step_size_up=5,
                                                           step_size_down=8, mode="triangular2")),
    "cyclic_exp_range": ("SGD", lambda L, o: L.CyclicLR(o, 0.01, 0.1, step_size_up=6, mode="exp_range", gamma=0.97,
                                                         base_momentum=0.7, max_momentum=0.95)),
    "cyclic_scale_fn": ("SGD", lambda L, o: L.CyclicLR(o, 0.01, 0.1, step_size_up=4,
                                                        scale_fn=lambda x: 1 / (1 + 0.1 * x),
                                                        scale_mode="iterations")),
    "cyclic_adam": ("Adam", lambda L, o: L.CyclicLR(o, 0.001, 0.01, step_size_up=5)),
    "cyclic_no_momentum": ("Adagrad", lambda L, o: L.CyclicLR(o, 0.001, 0.01, step_size_up=5, cycle_momentum=False)),
    "one_cycle_cos": ("SGD", lambda L, o: L.OneCycleLR(o, max_lr=1.0, total_steps=N)),
    "one_cycle_linear": ("SGD", lambda L, o: L.OneCycleLR(o, max_lr=[1.0, 0.5], epochs=6, steps_per_epoch=10,
                                                           anneal_strategy="linear", pct_start=0.25)),
    "one_cycle_three_phase": ("SGD", lambda L, o: L.OneCycleLR(o, max_lr=0.8, total_steps=N, three_phase=True,
                                                                div_factor=10.0, final_div_factor=100.0)),
    "one_cycle_adam": ("Adam", lambda L, o: L.OneCycleLR(o, max_lr=0.01, total_steps=N, base_momentum=0.8,
                                                          max_momentum=0.9)),
    "one_cycle_no_momentum": ("Adagrad", lambda L, o: L.OneCycleLR(o, max_lr=0.01, total_steps=N,
                                                                    cycle_momentum=False)),
    "warm_restarts": ("SGD", lambda L, o: L.CosineAnnealingWarmRestarts(o, T_0=7)),
    "warm_restarts_mult": ("SGD", lambda L, o: L.CosineAnnealingWarmRestarts(o, T_0=3, T_mult=2, eta_min=0.001)),
    "sequential": ("SGD", lambda L, o: L.SequentialLR(o, [L.LinearLR(o, start_factor=0.1, total_iters=5),
                                                          L.CosineAnnealingLR(o, T_max=20), L.ExponentialLR(o, 0.9)],
                                                      milestones=[5, 30])),
    "sequential_constant_step": ("SGD", lambda L, o: L.SequentialLR(o, [L.ConstantLR(o, factor=0.5, total_iters=3),
                                                                        L.StepLR(o, 4, 0.5)], milestones=[10])),
    "chained": ("SGD", lambda L, o: L.ChainedScheduler([L.ConstantLR(o, factor=0.1, total_iters=2),
                                                        L.ExponentialLR(o, gamma=0.9)])),
    "chained_three": ("SGD", lambda L, o: L.ChainedScheduler([L.LinearLR(o, 0.2, total_iters=6), L.StepLR(o, 5, 0.7),
                                                              L.PolynomialLR(o, 50, 1.5)])),
    "plateau_min": ("SGD", lambda L, o: L.ReduceLROnPlateau(o, patience=2)),
    "plateau_max_abs": ("SGD", lambda L, o: L.ReduceLROnPlateau(o, mode="max", factor=0.5, patience=1,
                                                                 threshold=0.01, threshold_mode="abs", cooldown=2,
                                                                 min_lr=[0.01, 0.05])),
    "plateau_min_abs_eps": ("SGD", lambda L, o: L.ReduceLROnPlateau(o, factor=0.5, patience=0, threshold=0.05,
                                                                     threshold_mode="abs", min_lr=0.02, eps=0.01)),
    "plateau_max_rel": ("SGD", lambda L, o: L.ReduceLROnPlateau(o, mode="max", factor=0.3, patience=3, cooldown=1)),
}

METRICS = [round(math.exp(-t / 10) + 0.3 * ((t * 7919) % 13) / 13, 3) for t in range(N)]


def _sequence(lib, kind, make, epochs=None):
    """The rates and momenta over N steps (or at `epochs`), with every warning's text."""
    a, b = lib.zeros(2, requires_grad=True), lib.zeros(1, requires_grad=True)
    groups = [{"params": [a]}, {"params": [b], "lr": 0.3}]
    opt = lib.optim.SGD(groups, lr=0.1, momentum=0.9) if kind == "SGD" else getattr(lib.optim, kind)(groups, lr=0.1)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        scheduler = make(lib.optim.lr_scheduler, opt)
        out = [scheduler.get_last_lr()]
        for t in range(N if epochs is None else len(epochs)):
            opt.step()
            if isinstance(scheduler, lib.optim.lr_scheduler.ReduceLROnPlateau):
                scheduler.step(METRICS[t])
            elif epochs is not None:
                scheduler.step(epochs[t])
            else:
                scheduler.step()
            out.append((list(scheduler.get_last_lr()), [(g["lr"], g.get("momentum"), g.get("betas"))
                                                        for g in opt.param_groups]))
    state = {k: v for k, v in scheduler.state_dict().items() if k != "_schedulers"}
    return out, [str(w.message) for w in caught], str(sorted(state.items(), key=lambda kv: kv[0]))


@pytest.mark.parametrize("name", sorted(CASES))
def test_sequences_equal_pytorchs(name):
    real = pytest.importorskip("torch")
    kind, make = CASES[name]
    assert _sequence(torch, kind, make) == _sequence(real, kind, make)


@pytest.mark.parametrize("name,epochs", [
    ("warm_restarts", [0.5, 1.0, 1.7, 2.2, 3.0, 4.9, 6.5, 7.0, 7.3, 10.1, 13, 20.5, 21, 2.5, 44.4]),
    ("warm_restarts_mult", [0.5, 1.0, 1.7, 2.2, 3.0, 4.9, 6.5, 7.0, 7.3, 10.1, 13, 20.5, 21, 2.5, 44.4]),
    ("constant", [3, 7, 1, 10, 40, 55]),
    ("polynomial", [3, 7, 1, 10, 40, 55]),
])
def test_step_with_an_epoch_equals_pytorchs(name, epochs):
    real = pytest.importorskip("torch")
    kind, make = CASES[name]
    assert _sequence(torch, kind, make, epochs) == _sequence(real, kind, make, epochs)
