"""Shared test helpers: a seeded generator and central finite differences in float64."""

import numpy as np
import pytest


def numerical_grad(f, args, index, eps=1e-6):
    """Central finite-difference gradient of the scalar `f(*args)` w.r.t. args[index]."""
    args = list(args)
    x = args[index]
    if isinstance(x, float):
        def at(v):
            a = list(args)
            a[index] = v
            return float(f(*a))
        return (at(x + eps) - at(x - eps)) / (2 * eps)
    x = np.array(x, dtype=np.float64)
    g = np.zeros_like(x)
    for k in np.ndindex(x.shape):
        plus, minus = x.copy(), x.copy()
        plus[k] += eps
        minus[k] -= eps
        a1, a2 = list(args), list(args)
        a1[index], a2[index] = plus, minus
        g[k] = (float(np.sum(f(*a1))) - float(np.sum(f(*a2)))) / (2 * eps)
    return g


@pytest.fixture
def rng():
    return np.random.default_rng(0)


@pytest.fixture
def calls_kept(monkeypatch):
    """Calls of other user functions stay calls (differentiated through the callee's
    pullback or jvp) instead of being spliced into the caller: the path of callees that
    cannot be spliced (recursive ones, those of closures or other modules)."""
    from srcgrad.compiler import cache, callees

    cache.clear()
    monkeypatch.setattr(callees, "MAX_CALLEE_STATEMENTS", -1)
    yield
    cache.clear()
