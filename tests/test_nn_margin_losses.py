"""margin_ranking_loss, hinge_embedding_loss, cosine_embedding_loss, triplet_margin_loss,
multilabel_soft_margin_loss, multi_margin_loss, poisson_nll_loss, gaussian_nll_loss and
their modules, as in PyTorch: values against NumPy formulas, gradients against central
differences in float64, reductions, node names and errors; compared with PyTorch itself
where installed."""

import math
import re

import numpy as np
import pytest

import srcgrad as torch
from tensor_checks import check_against_differences

F, nn = torch.nn.functional, torch.nn
RNG = np.random.default_rng(0)
A, B, C = RNG.standard_normal((4, 5)), RNG.standard_normal((4, 5)), RNG.standard_normal((4, 5))
SIGN = np.where(RNG.random((4, 5)) > 0.5, 1.0, -1.0)
LABELS = np.array([1, 0, 4, 2])


def raises(exc, message):
    return pytest.raises(exc, match="^" + re.escape(message) + "$")


def _norm(x, p=2, eps=1e-6):
    return (np.abs(x + eps) ** p).sum(-1) ** (1 / p)


def _multi_margin(x, y, p, margin, w):
    z = np.maximum(margin - x[np.arange(len(y)), y][:, None] + x, 0) ** p
    z[np.arange(len(y)), y] = 0
    return z.sum(1) * (1 if w is None else w[y]) / x.shape[1]


def _cos(a, b):
    return (a * b).sum(1) / np.sqrt(((a * a).sum(1) + 1e-12) * ((b * b).sum(1) + 1e-12))


def _gaussian(a, b, v):
    return 0.5 * (np.log(np.abs(v) + 0.1) + (a - b) ** 2 / (np.abs(v) + 0.1)) + 0.5 * math.log(2 * math.pi)


def _f(lib):
    return lib.nn.functional


CASES = [  # (name, loss(lib, *tensors) with reduction 'none', its NumPy formula, number of inputs)
    ("margin_ranking", lambda lib, a, b: _f(lib).margin_ranking_loss(a, b, lib.tensor(SIGN), 0.3, reduction="none"),
     lambda a, b: np.maximum(-SIGN * (a - b) + 0.3, 0), 2),
    ("hinge_embedding", lambda lib, a: _f(lib).hinge_embedding_loss(a, lib.tensor(SIGN), 0.7, reduction="none"),
     lambda a: np.where(SIGN == 1, a, np.maximum(0.7 - a, 0)), 1),
    ("cosine_embedding",
     lambda lib, a, b: _f(lib).cosine_embedding_loss(a, b, lib.tensor(SIGN[:, 0]), 0.2, reduction="none"),
     lambda a, b: np.where(SIGN[:, 0] == 1, 1 - _cos(a, b), np.maximum(_cos(a, b) - 0.2, 0)), 2),
    ("triplet_margin", lambda lib, a, b, c: _f(lib).triplet_margin_loss(a, b, c, 0.8, reduction="none"),
     lambda a, b, c: np.maximum(0.8 + _norm(a - b) - _norm(a - c), 0), 3),
    ("triplet_margin_swap",
     lambda lib, a, b, c: _f(lib).triplet_margin_loss(a, b, c, 1.5, 1, swap=True, reduction="none"),
     lambda a, b, c: np.maximum(1.5 + _norm(a - b, 1) - np.minimum(_norm(a - c, 1), _norm(b - c, 1)), 0), 3),
    ("multilabel_soft_margin",
     lambda lib, a: _f(lib).multilabel_soft_margin_loss(a, lib.tensor((SIGN > 0) * 1.0), reduction="none"),
     lambda a: -((SIGN > 0) * -np.logaddexp(0, -a) + (SIGN < 0) * -np.logaddexp(0, a)).mean(1), 1),
    ("multi_margin", lambda lib, a: _f(lib).multi_margin_loss(a, lib.tensor(LABELS), reduction="none"),
     lambda a: _multi_margin(a, LABELS, 1, 1.0, None), 1),
    ("multi_margin_p2_weight", lambda lib, a: _f(lib).multi_margin_loss(a, lib.tensor(LABELS), 2, 0.5,
                                                                          lib.tensor(np.arange(1.0, 6.0)),
                                                                          reduction="none"),
     lambda a: _multi_margin(a, LABELS, 2, 0.5, np.arange(1.0, 6.0)), 1),
    ("poisson_nll", lambda lib, a: _f(lib).poisson_nll_loss(a, lib.tensor(np.abs(C) * 3), reduction="none"),
     lambda a: np.exp(a) - np.abs(C) * 3 * a, 1),
    ("gaussian_nll", lambda lib, a, b, v: _f(lib).gaussian_nll_loss(a, b, v.abs() + 0.1, True, reduction="none"),
     _gaussian, 3),
]


@pytest.mark.parametrize("name,loss,formula,count", CASES, ids=[c[0] for c in CASES])
def test_losses_against_formulas_reductions_and_differences(name, loss, formula, count):
    arrays = [A, B, C][:count]
    values = loss(torch, *(torch.tensor(a) for a in arrays))
    expected = formula(*arrays)
    assert values.shape == expected.shape and values.dtype == torch.float64
    np.testing.assert_allclose(values.numpy(), expected, rtol=1e-12, atol=1e-13)
    check_against_differences(lambda *t: loss(torch, *t), arrays)


def test_reductions_legacy_arguments_and_full_poisson():
    a, b = torch.tensor(A), torch.tensor(B)
    full = F.margin_ranking_loss(a, b, torch.tensor(SIGN), reduction="none").numpy()
    assert np.isclose(F.margin_ranking_loss(a, b, torch.tensor(SIGN)).item(), full.mean())
    assert np.isclose(F.margin_ranking_loss(a, b, torch.tensor(SIGN), size_average=False).item(), full.sum())
    assert F.multi_margin_loss(a, torch.tensor(LABELS), reduce=False).shape == (4,)
    assert F.multi_margin_loss(a[0], torch.tensor(3), reduction="none").shape == ()
    target = np.array([0.0, 1.0, 2.0, 5.0])
    x = np.array([0.5, 1.5, 2.0, 3.0])
    safe = np.maximum(target, 1)
    stirling = np.where(target > 1, safe * np.log(safe) - safe + 0.5 * np.log(2 * np.pi * safe), 0)
    got = F.poisson_nll_loss(torch.tensor(x), torch.tensor(target), log_input=False, full=True, reduction="none")
    np.testing.assert_allclose(got.numpy(), x - target * np.log(x + 1e-8) + stirling, rtol=1e-12)
    var = torch.tensor(np.abs(RNG.standard_normal(4)), requires_grad=True)  # one dim short: one per row
    homoscedastic = F.gaussian_nll_loss(a, b, var, reduction="sum")
    expected = 0.5 * (np.log(var.detach().numpy())[:, None] + (A - B) ** 2 / var.detach().numpy()[:, None]).sum()
    assert np.isclose(homoscedastic.item(), expected)
    assert F.multi_margin_loss(a, torch.tensor(LABELS)).grad_fn is None
    assert F.multi_margin_loss(a.requires_grad_(), torch.tensor(LABELS)).grad_fn.name() == "MultiMarginLossBackward0"


def test_errors_and_modules():
    with raises(ValueError, "margin must be greater than 0, got 0"):
        F.triplet_margin_loss(torch.ones(3), torch.ones(3), torch.ones(3), margin=0)
    with raises(RuntimeError, "1D target tensor expects 2D input tensors, but found inputs with sizes [3] and [3]."):
        F.cosine_embedding_loss(torch.ones(3), torch.ones(3), torch.ones(3))
    with raises(ValueError, "only p == 1 and p == 2 supported"):
        F.multi_margin_loss(torch.ones(2, 3), torch.tensor([0, 1]), p=3)
    with raises(RuntimeError, "target out of range"):
        F.multi_margin_loss(torch.ones(2, 3), torch.tensor([0, 3]))
    with raises(ValueError, "var has negative entry/entries"):
        F.gaussian_nll_loss(torch.ones(2, 3), torch.ones(2, 3), -torch.ones(2, 3))
    with raises(ValueError, "var is of incorrect size"):
        F.gaussian_nll_loss(torch.ones(2, 3), torch.ones(2, 3), torch.ones(3, 3))
    a, b, c = torch.tensor(A), torch.tensor(B), torch.tensor(C)
    assert repr(nn.TripletMarginLoss()) == "TripletMarginLoss()"
    assert nn.TripletMarginLoss(margin=0.5, p=1, swap=True)(a, b, c).item() == F.triplet_margin_loss(
        a, b, c, 0.5, 1, swap=True).item()
    assert nn.MultiMarginLoss(p=2, reduction="sum")(a, torch.tensor(LABELS)).item() == F.multi_margin_loss(
        a, torch.tensor(LABELS), 2, reduction="sum").item()
    assert nn.GaussianNLLLoss(full=True)(a, b, c.abs()).item() == F.gaussian_nll_loss(a, b, c.abs(), True).item()
    poisson = nn.PoissonNLLLoss(log_input=False)(a.abs(), c.abs())
    assert poisson.item() == F.poisson_nll_loss(a.abs(), c.abs(), False).item()
    modules = (nn.MarginRankingLoss(), nn.HingeEmbeddingLoss(), nn.CosineEmbeddingLoss(), nn.MultiLabelSoftMarginLoss())
    for module in modules:
        assert module.reduction == "mean"


def test_against_pytorch():
    real = pytest.importorskip("torch")
    for name, loss, _, count in CASES:
        arrays = [A, B, C][:count]
        mine = loss(torch, *(torch.tensor(a) for a in arrays)).numpy()
        theirs = loss(real, *(real.tensor(a) for a in arrays)).numpy()
        np.testing.assert_allclose(mine, theirs, rtol=1e-12, atol=1e-13, err_msg=name)
