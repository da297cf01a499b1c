"""srcgrad.optim Adadelta, Adamax, NAdam, RAdam, Rprop, ASGD and LBFGS: steps worked out
from each method's formula, the state's names, errors and reprs as PyTorch's; and, when
PyTorch is installed, 20-step trajectories against torch.optim in float64 (to 1e-13) and
float32, the same gradients giving the same updates, and printed state dicts."""

import copy
import math

import numpy as np
import pytest

import srcgrad as torch


def _param(values, dtype=torch.float64):
    return torch.tensor(values, dtype=dtype, requires_grad=True)


def _constant_gradient_steps(opt, p, c, n):
    """n steps with the gradient c; the values of p after each."""
    out = []
    for _ in range(n):
        opt.zero_grad()
        (p * c).sum().backward()
        opt.step()
        out.append(p.detach().numpy().copy())
    return np.array(out)


# --- steps worked out by hand -------------------------------------------------------------


def test_adadelta_first_steps():
    p = _param([1.0])
    steps = _constant_gradient_steps(torch.optim.Adadelta([p]), p, torch.tensor([1.0], dtype=torch.float64), 2)
    v1 = 0.1
    delta1 = math.sqrt(1e-6) / math.sqrt(v1 + 1e-6)
    u1 = 0.1 * delta1**2
    v2 = 0.9 * v1 + 0.1
    delta2 = math.sqrt(u1 + 1e-6) / math.sqrt(v2 + 1e-6)
    np.testing.assert_allclose(steps[:, 0], [1 - delta1, 1 - delta1 - delta2], rtol=1e-14)


def test_adadelta_state_and_weight_decay():
    p = _param([2.0])
    opt = torch.optim.Adadelta([p], lr=0.5, rho=0.5, eps=0.0, weight_decay=1.0)
    _constant_gradient_steps(opt, p, torch.tensor([0.0], dtype=torch.float64), 1)
    # g = 0 + 1.0 * 2 = 2: v = 0.5 * 4 = 2, delta = 0 / sqrt(2) * 2 = 0 (eps 0: u stays 0)
    assert sorted(opt.state[p]) == ["acc_delta", "square_avg", "step"]
    assert opt.state[p]["square_avg"].tolist() == [2.0] and p.tolist() == [2.0]


def test_adamax_moves_lr_per_step_with_a_constant_gradient():
    p = _param([0.5, 0.5])
    c = torch.tensor([1.0, -3.0], dtype=torch.float64)
    opt = torch.optim.Adamax([p], lr=0.1)
    steps = _constant_gradient_steps(opt, p, c, 3)
    # m / (1 - beta1^t) = c and u = |c| + eps (the decayed u never exceeds it)
    for t, s in enumerate(steps, 1):
        np.testing.assert_allclose(s, [0.5 - t * 0.1 / (1 + 1e-8), 0.5 + t * 0.1 * 3 / (3 + 1e-8)], rtol=1e-14)
    assert sorted(opt.state[p]) == ["exp_avg", "exp_inf", "step"]
    np.testing.assert_allclose(opt.state[p]["exp_inf"].numpy(), [1 + 1e-8, 3 + 1e-8], rtol=1e-15)


def _nadam_reference(c, n, lr, beta1, beta2, eps, momentum_decay):
    """NAdam's formula for a constant gradient c, its momentum product rounded to float32."""
    p, m, v, product, out = 0.0, 0.0, 0.0, np.float32(1.0), []
    for t in range(1, n + 1):
        mu = beta1 * (1 - 0.5 * 0.96 ** (t * momentum_decay))
        mu_next = beta1 * (1 - 0.5 * 0.96 ** ((t + 1) * momentum_decay))
        product = np.float32(product * np.float32(mu))
        m = beta1 * m + (1 - beta1) * c
        v = beta2 * v + (1 - beta2) * c * c
        denom = math.sqrt(v / (1 - beta2**t)) + eps
        p -= lr * (1 - mu) / (1 - float(product)) * c / denom
        p -= lr * mu_next / (1 - float(product) * mu_next) * m / denom
        out.append(p)
    return out


def test_nadam_follows_its_formula_with_a_float32_momentum_product():
    p = _param([0.0])
    opt = torch.optim.NAdam([p], lr=0.01, momentum_decay=0.05)
    steps = _constant_gradient_steps(opt, p, torch.tensor([2.0], dtype=torch.float64), 6)
    np.testing.assert_allclose(steps[:, 0], _nadam_reference(2.0, 6, 0.01, 0.9, 0.999, 1e-8, 0.05), rtol=1e-13)
    state = opt.state[p]
    assert sorted(state) == ["exp_avg", "exp_avg_sq", "mu_product", "step"]
    assert state["mu_product"].dtype == torch.float32 and state["mu_product"].dim() == 0


def test_radam_takes_plain_momentum_steps_while_rho_is_small():
    p = _param([1.0, -1.0])
    c = torch.tensor([2.0, -0.5], dtype=torch.float64)
    steps = _constant_gradient_steps(torch.optim.RAdam([p], lr=0.1), p, c, 4)
    # rho_t <= 5 for t <= 4 with beta2 = 0.999: p -= lr * m / (1 - beta1^t) = lr * c
    for t, s in enumerate(steps, 1):
        np.testing.assert_allclose(s, [1.0 - 0.2 * t, -1.0 + 0.05 * t], rtol=1e-14)


def test_radam_rectified_step():
    p = _param([0.0])
    opt = torch.optim.RAdam([p], lr=0.1, betas=(0.5, 0.9), eps=0.0)  # rho_inf = 19
    steps = _constant_gradient_steps(opt, p, torch.tensor([1.0], dtype=torch.float64), 8)
    rho_inf = 2 / 0.1 - 1
    expected, rectified, x = [], [], 0.0
    for t in range(1, 9):
        rho_t = rho_inf - 2 * t * 0.9**t / (1 - 0.9**t)
        rectified.append(rho_t > 5)
        if rho_t > 5:
            rect = math.sqrt((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t))
            x -= 0.1 * rect  # m / (1 - beta1^t) = 1 and sqrt(1 - beta2^t) / sqrt(v) = 1
        else:
            x -= 0.1
        expected.append(x)
    assert rectified == [False] * 5 + [True] * 3
    np.testing.assert_allclose(steps[:, 0], expected, rtol=1e-14)


def test_rprop_grows_steps_and_halves_them_on_a_sign_change():
    p = _param([0.0])
    c = torch.tensor([1.0], dtype=torch.float64)
    opt = torch.optim.Rprop([p], lr=0.1)
    steps = list(_constant_gradient_steps(opt, p, c, 3)[:, 0])  # steps 0.1, 0.12, 0.144
    c.data *= -1.0
    steps += list(_constant_gradient_steps(opt, p, c, 2)[:, 0])  # flip: step size 0.072, no move; then 0.072
    np.testing.assert_allclose(steps, [-0.1, -0.22, -0.364, -0.364, -0.292], rtol=1e-14)
    assert opt.state[p]["step_size"].tolist() == [pytest.approx(0.072, rel=1e-14)]
    assert sorted(opt.state[p]) == ["prev", "step", "step_size"]


def test_rprop_clamps_the_step_size():
    p = _param([0.0])
    opt = torch.optim.Rprop([p], lr=0.1, etas=(0.5, 3.0), step_sizes=(0.05, 0.5))
    steps = _constant_gradient_steps(opt, p, torch.tensor([1.0], dtype=torch.float64), 4)[:, 0]
    np.testing.assert_allclose(steps, [-0.1, -0.4, -0.9, -1.4], rtol=1e-14)  # 0.1, 0.3, 0.5 (not 0.9), 0.5


def test_asgd_decays_the_rate_and_averages_after_t0():
    p = _param([1.0])
    lr, lambd, alpha, t0 = 0.1, 0.01, 0.75, 2
    opt = torch.optim.ASGD([p], lr=lr, lambd=lambd, alpha=alpha, t0=t0)
    steps = _constant_gradient_steps(opt, p, torch.tensor([1.0], dtype=torch.float64), 5)[:, 0]
    x, ax, eta, mu, xs, axs = 1.0, 0.0, float(np.float32(lr)), 1.0, [], []
    for t in range(1, 6):
        x = x * (1 - lambd * eta) - eta
        ax = x if mu == 1 else ax + (x - ax) * mu
        eta = float(np.float32(lr / (1 + lambd * lr * t) ** alpha))  # kept in a float32 tensor
        mu = float(np.float32(1 / max(1, t - t0)))
        xs.append(x)
        axs.append(ax)
    np.testing.assert_allclose(steps, xs, rtol=1e-15)
    np.testing.assert_allclose(opt.state[p]["ax"].numpy(), [axs[-1]], rtol=1e-15)
    assert opt.state[p]["eta"].dtype == torch.float32 and opt.state[p]["mu"].item() == pytest.approx(1 / 3)


# --- LBFGS -----------------------------------------------------------------------------------

A = np.array([[3.0, 0.5, 0.0], [0.5, 2.0, 0.3], [0.0, 0.3, 1.0]])
B = np.array([1.0, -2.0, 0.5])


def _quadratic_lbfgs(**kwargs):
    w = _param([1.0, 1.0, 1.0])
    a, b = torch.tensor(A), torch.tensor(B)
    opt = torch.optim.LBFGS([w], **kwargs)

    def closure():
        opt.zero_grad()
        loss = (w @ a @ w) * 0.5 - (w * b).sum()
        loss.backward()
        return loss

    return w, opt, closure


@pytest.mark.parametrize("line_search_fn", [None, "strong_wolfe"])
def test_lbfgs_finds_the_minimum_of_a_quadratic(line_search_fn):
    w, opt, closure = _quadratic_lbfgs(line_search_fn=line_search_fn, tolerance_grad=1e-12,
                                       tolerance_change=1e-15)
    first = opt.step(closure)
    assert first.item() == pytest.approx(0.5 * A.sum() - B.sum(), rel=1e-15)  # the loss at the start
    for _ in range(3):
        opt.step(closure)
    # converged as far as the loss can tell (it stops once the loss changes by < 1e-15)
    np.testing.assert_allclose(w.detach().numpy(), np.linalg.solve(A, B), rtol=1e-7)
    np.testing.assert_allclose(A @ w.detach().numpy() - B, 0.0, atol=1e-7)
    state = opt.state[w]
    assert {"func_evals", "n_iter", "d", "t", "old_dirs", "old_stps", "ro", "H_diag", "prev_flat_grad",
            "prev_loss"} <= set(state)
    assert isinstance(state["d"], torch.Tensor) and state["d"].shape == (3,)


def test_lbfgs_first_iteration_is_a_scaled_gradient_step():
    w, opt, closure = _quadratic_lbfgs(max_iter=1, lr=0.5)
    opt.step(closure)
    g = A @ np.ones(3) - B  # (3.5, 4.8, 0.8): sum |g| = 9.1 > 1, so t = lr / 9.1
    np.testing.assert_allclose(w.detach().numpy(), 1.0 - 0.5 / np.abs(g).sum() * g, rtol=1e-15)
    assert opt.state[w]["func_evals"] == 1 and opt.state[w]["n_iter"] == 1


def test_lbfgs_history_size_bounds_the_pairs_kept():
    w, opt, closure = _quadratic_lbfgs(history_size=2, max_iter=6, tolerance_grad=0.0, tolerance_change=0.0)
    opt.step(closure)
    assert len(opt.state[w]["old_dirs"]) == 2 and len(opt.state[w]["ro"]) == 2


def test_lbfgs_stops_at_once_where_the_gradient_is_small():
    w, opt, closure = _quadratic_lbfgs(tolerance_grad=10.0)
    opt.step(closure)
    assert w.tolist() == [1.0, 1.0, 1.0] and opt.state[w]["n_iter"] == 0


# --- errors and reprs (checked against PyTorch 2.13) ----------------------------------------

ERRORS = [
    (lambda p: torch.optim.Adadelta([p], lr=-1), ValueError, "Invalid learning rate: -1"),
    (lambda p: torch.optim.Adadelta([p], rho=1.5), ValueError, "Invalid rho value: 1.5"),
    (lambda p: torch.optim.Adadelta([p], eps=-1), ValueError, "Invalid epsilon value: -1"),
    (lambda p: torch.optim.Adadelta([p], weight_decay=-1), ValueError, "Invalid weight_decay value: -1"),
    (lambda p: torch.optim.Adamax([p], betas=(1.0, 0.9)), ValueError, "Invalid beta parameter at index 0: 1.0"),
    (lambda p: torch.optim.Adamax([p], betas=(0.9, -0.1)), ValueError, "Invalid beta parameter at index 1: -0.1"),
    (lambda p: torch.optim.Adamax([p], weight_decay=-0.5), ValueError, "Invalid weight_decay value: -0.5"),
    (lambda p: torch.optim.NAdam([p], momentum_decay=-1), ValueError, "Invalid momentum_decay value: -1"),
    (lambda p: torch.optim.NAdam([p], betas=(0.9, 1.0)), ValueError, "Invalid beta parameter at index 1: 1.0"),
    (lambda p: torch.optim.RAdam([p], lr=-2), ValueError, "Invalid learning rate: -2"),
    (lambda p: torch.optim.RAdam([p], eps=-1), ValueError, "Invalid epsilon value: -1"),
    (lambda p: torch.optim.Rprop([p], lr=-1), ValueError, "Invalid learning rate: -1"),
    (lambda p: torch.optim.Rprop([p], etas=(1.5, 1.2)), ValueError, "Invalid eta values: 1.5, 1.2"),
    (lambda p: torch.optim.Rprop([p], etas=(0.5, 0.9)), ValueError, "Invalid eta values: 0.5, 0.9"),
    (lambda p: torch.optim.ASGD([p], weight_decay=-1), ValueError, "Invalid weight_decay value: -1"),
    (lambda p: torch.optim.LBFGS([p], lr=-1), ValueError, "Invalid learning rate: -1"),
    (lambda p: torch.optim.LBFGS([{"params": [p]}, {"params": [_param([1.0])]}]), ValueError,
     "LBFGS doesn't support per-parameter options (parameter groups)"),
]


@pytest.mark.parametrize("make,kind,message", ERRORS, ids=[m[:40] for _, _, m in ERRORS])
def test_errors(make, kind, message):
    with pytest.raises(kind) as info:
        make(_param([1.0]))
    assert str(info.value) == message


def test_lbfgs_line_search_must_be_strong_wolfe():
    w, opt, closure = _quadratic_lbfgs(line_search_fn="bogus")
    with pytest.raises(RuntimeError, match="^only 'strong_wolfe' is supported$"):
        opt.step(closure)


REPRS = {
    "Adadelta": "Adadelta (\nParameter Group 0\n    capturable: False\n    differentiable: False\n    eps: 1e-06\n"
                "    foreach: None\n    lr: 1.0\n    maximize: False\n    rho: 0.9\n    weight_decay: 0\n)",
    "NAdam": "NAdam (\nParameter Group 0\n    betas: (0.9, 0.999)\n    capturable: False\n"
             "    decoupled_weight_decay: False\n    differentiable: False\n    eps: 1e-08\n    foreach: None\n"
             "    lr: 0.002\n    maximize: False\n    momentum_decay: 0.004\n    weight_decay: 0\n)",
    "Rprop": "Rprop (\nParameter Group 0\n    capturable: False\n    differentiable: False\n    etas: (0.5, 1.2)\n"
             "    foreach: None\n    lr: 0.01\n    maximize: False\n    step_sizes: (1e-06, 50)\n)",
    "ASGD": "ASGD (\nParameter Group 0\n    alpha: 0.75\n    capturable: False\n    differentiable: False\n"
            "    foreach: None\n    lambd: 0.0001\n    lr: 0.01\n    maximize: False\n    t0: 1000000.0\n"
            "    weight_decay: 0\n)",
    "LBFGS": "LBFGS (\nParameter Group 0\n    history_size: 100\n    line_search_fn: None\n    lr: 1\n"
             "    max_eval: 25\n    max_iter: 20\n    tolerance_change: 1e-09\n    tolerance_grad: 1e-07\n)",
}


@pytest.mark.parametrize("kind", sorted(REPRS))
def test_repr_and_defaults_as_pytorch(kind):
    assert repr(getattr(torch.optim, kind)([_param([1.0])])) == REPRS[kind]


# --- PyTorch as the oracle ------------------------------------------------------------------

CONFIGS = {
    "adadelta": ("Adadelta", dict()),
    "adadelta_all": ("Adadelta", dict(lr=0.5, rho=0.8, eps=1e-5, weight_decay=0.1, maximize=True)),
    "adamax": ("Adamax", dict()),
    "adamax_all": ("Adamax", dict(lr=0.05, betas=(0.8, 0.99), eps=1e-6, weight_decay=0.1, maximize=True)),
    "nadam": ("NAdam", dict(lr=0.01)),
    "nadam_all": ("NAdam", dict(lr=0.02, betas=(0.8, 0.99), weight_decay=0.1, momentum_decay=0.01)),
    "nadam_decoupled": ("NAdam", dict(lr=0.02, weight_decay=0.1, decoupled_weight_decay=True, maximize=True)),
    "radam": ("RAdam", dict(lr=0.01)),
    "radam_all": ("RAdam", dict(lr=0.02, betas=(0.8, 0.9), weight_decay=0.1)),
    "radam_decoupled": ("RAdam", dict(lr=0.02, weight_decay=0.1, decoupled_weight_decay=True, maximize=True)),
    "rprop": ("Rprop", dict()),
    "rprop_all": ("Rprop", dict(lr=0.05, etas=(0.3, 1.5), step_sizes=(1e-3, 0.2), maximize=True)),
    "asgd": ("ASGD", dict()),
    "asgd_all": ("ASGD", dict(lr=0.05, lambd=1e-2, alpha=0.5, t0=5, weight_decay=0.1)),
    "asgd_maximize": ("ASGD", dict(lr=0.05, t0=3, maximize=True)),
}

X = [[1.0, 2.0, -1.0], [0.5, -0.5, 3.0], [2.0, 1.0, 0.0], [-1.0, 0.25, 1.5]]


def _train(lib, kind, kwargs, dtype, n=20):
    w = lib.tensor([[0.5, -1.2, 2.0], [0.3, 0.0, -0.7]], dtype=dtype, requires_grad=True)
    b = lib.tensor([0.1, -0.2], dtype=dtype, requires_grad=True)
    x = lib.tensor(X, dtype=dtype)
    opt = getattr(lib.optim, kind)([w, b], **kwargs)
    history = []
    for _ in range(n):
        opt.zero_grad()
        (((x @ w.t() + b).tanh() ** 2).mean() + (w * w).sum() * 0.01).backward()
        opt.step()
        history.append(np.concatenate([w.detach().numpy().ravel(), b.detach().numpy().ravel()]))
    return np.array(history), opt


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_twenty_steps_against_pytorch(name):
    real = pytest.importorskip("torch")
    kind, kwargs = CONFIGS[name]
    expected, theirs = _train(real, kind, kwargs, real.float64)
    got, ours = _train(torch, kind, kwargs, torch.float64)
    np.testing.assert_allclose(got, expected, rtol=1e-13, atol=1e-13)
    assert str(ours.state_dict()) == str(theirs.state_dict()).replace("torch.", "srcgrad.")
    if kind != "Rprop":  # Rprop follows the sign of gradients that are 0 to float32 rounding
        expected, _ = _train(real, kind, kwargs, real.float32)
        got, _ = _train(torch, kind, kwargs, torch.float32)
        assert got.dtype == np.float32
        np.testing.assert_allclose(got, expected, rtol=2e-6, atol=2e-6)


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_the_same_gradients_give_pytorchs_updates(name):
    """The update arithmetic alone, float32 and float64: both libraries get the same
    gradients for 20 steps."""
    real = pytest.importorskip("torch")
    kind, kwargs = CONFIGS[name]
    rng = np.random.default_rng(3)
    start = rng.standard_normal(64)
    grads = rng.standard_normal((20, 64))
    grads[5:9, :8] = 0.0  # Rprop's zero branch
    for dtype, tol in ((np.float64, 1e-14), (np.float32, 1e-6)):
        histories = []
        for lib in (real, torch):
            p = lib.tensor(start.astype(dtype), requires_grad=True)
            opt = getattr(lib.optim, kind)([p], **kwargs)
            history = []
            for g in grads:
                p.grad = lib.tensor(g.astype(dtype))
                opt.step()
                history.append(p.detach().numpy().copy())
            histories.append(np.array(history))
        np.testing.assert_allclose(histories[1], histories[0], rtol=tol, atol=tol)


def _lbfgs_run(lib, dtype, kwargs, n=5):
    w = lib.tensor([1.5, -0.5, 0.8], dtype=dtype, requires_grad=True)
    a = lib.tensor([[2.0, 0.3, 0.0], [0.3, 1.0, 0.2], [0.0, 0.2, 0.5]], dtype=dtype)
    c = lib.tensor([1.0, -2.0, 0.5], dtype=dtype)
    opt = lib.optim.LBFGS([w], **kwargs)

    def closure():
        opt.zero_grad()
        loss = (w @ a @ w) * 0.5 + (w**4).sum() * 0.1 + (w * c).sum()
        loss.backward()
        return loss

    history = []
    for _ in range(n):
        history.append(opt.step(closure).item())
        history.extend(w.detach().numpy().tolist())
    state = opt.state[w]
    return np.array(history), (state["func_evals"], state["n_iter"])


LBFGS_CONFIGS = [
    dict(),
    dict(history_size=3, max_iter=7),
    dict(line_search_fn="strong_wolfe"),
    dict(lr=0.5, line_search_fn="strong_wolfe", history_size=2),
    dict(lr=0.3, tolerance_grad=1e-3),
]


@pytest.mark.parametrize("kwargs", LBFGS_CONFIGS, ids=[str(k) for k in LBFGS_CONFIGS])
def test_lbfgs_against_pytorch(kwargs):
    real = pytest.importorskip("torch")
    expected, expected_counts = _lbfgs_run(real, real.float64, kwargs)
    got, counts = _lbfgs_run(torch, torch.float64, kwargs)
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-13)
    assert counts == expected_counts


def test_a_reloaded_optimizer_continues_exactly():
    for kind, kwargs in CONFIGS.values():
        w = _param([[0.5, -1.2], [0.3, 2.0]])
        opt = getattr(torch.optim, kind)([w], **kwargs)
        loss = lambda v: ((v * v).sum() + v.sin().sum())  # noqa: E731
        for _ in range(3):
            opt.zero_grad()
            loss(w).backward()
            opt.step()
        saved = copy.deepcopy(opt.state_dict())
        w2 = _param(w.detach().numpy())
        reloaded = getattr(torch.optim, kind)([w2], **dict(kwargs, lr=7.0))
        reloaded.load_state_dict(saved)
        for v, o in ((w, opt), (w2, reloaded)):
            for _ in range(3):
                o.zero_grad()
                loss(v).backward()
                o.step()
        if kind in ("NAdam", "ASGD"):
            # loading casts "mu_product", "eta" and "mu" to the parameter's float64, as PyTorch's
            # load_state_dict does, so later roundings differ from the float32 original's
            scalars = [v for k, v in reloaded.state[w2].items() if k in ("mu_product", "eta", "mu")]
            assert scalars and all(v.dtype == torch.float64 for v in scalars)
            np.testing.assert_allclose(w2.detach().numpy(), w.detach().numpy(), rtol=1e-6)
        else:
            assert w2.tolist() == w.tolist(), kind
