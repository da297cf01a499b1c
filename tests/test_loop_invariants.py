"""Loop-invariant statements in reverse mode (compiler/hoist.py, `invariants`): a
statement of a `for ... in range(...)` loop that computes the same value in every
iteration is computed once, before the loop (under `if n > start:` when the loop may run
zero times), so the tape keeps no copy per iteration and its adjoint is pulled back
once. Gradients against central differences, the analytic answer, the code without the
pass (values bit for bit; gradients up to rounding: the adjoints of the iterations are
added up before they are pulled back), forward mode and the Hessian."""

import types

import numpy as np
import pytest

import srcgrad
from program_checks import check, check_hessian
from real_programs import hmm_forward as hmm


def powered(A, x, n):
    h = x
    for t in range(n):
        E = np.exp(A)
        scale = E.sum() / 9.0
        h = np.tanh(h @ E) * scale
    return np.sum(h)


def with_a_list(a, x):
    parts = []
    for i in range(3):
        c = np.sin(a) * 2.0
        parts.append(c * x[i])
    return np.sum(np.stack(parts))


R = np.random.default_rng(7)
LOG_PI = np.log(np.full(3, 1.0 / 3.0))
LOG_A = R.normal(size=(3, 3))
LOG_B = R.normal(size=(3, 4))
OBS = [0, 1, 3, 2, 1]
A = 0.3 * R.normal(size=(3, 3))
X = R.normal(size=3)


def _unhoisted(fn, monkeypatch):
    """A copy of `fn` whose gradient is built without the pass."""
    from srcgrad.compiler import hoist

    made = types.FunctionType(fn.__code__, fn.__globals__, fn.__name__, fn.__defaults__)
    monkeypatch.setattr(hoist, "invariants", lambda tree, namer: tree)
    return made


def test_an_invariant_statement_is_computed_once_and_not_taped():
    text = srcgrad.source(srcgrad.grad(hmm, wrt=(0, 1, 2)))
    before, loop = text.split("    for t in range(1, len_obs):", 1)
    assert "    if len_obs > 1:\n        exp_log_A = np.exp(log_A)\n" in before
    forward = loop.split("# Backward pass")[0]
    assert "np.exp(log_A)" not in forward and "tape.append(exp_log_A)" not in forward
    assert " exp_log_A = tape.pop()" not in text
    text = srcgrad.source(srcgrad.grad(powered, wrt=(0, 1)))
    assert "    if n > 0:\n        E = np.exp(A)\n        E_sum = E.sum()\n" in text.split("for t in range(n)")[0]


@pytest.mark.parametrize("wrt", [(0, 1, 2)])
def test_gradients_through_hoisted_statements(wrt):
    grads = srcgrad.grad(hmm, wrt=wrt)(LOG_PI, LOG_A, LOG_B, OBS)
    from conftest import numerical_grad

    for i, g in zip(wrt, grads):
        np.testing.assert_allclose(g, numerical_grad(hmm, (LOG_PI, LOG_A, LOG_B, OBS), i), rtol=1e-6, atol=1e-8)
    for n in (0, 1, 4):
        check(lambda A, x: powered(A, x, n), A, X)


@pytest.mark.parametrize("n", [0, 1, 4])
def test_equal_to_the_code_without_the_pass(n, monkeypatch):
    want = srcgrad.value_and_grad(powered, wrt=(0, 1))(A, X, n)
    want_list = srcgrad.value_and_grad(with_a_list, wrt=(0, 1))(A[0], X)
    want_hmm = srcgrad.value_and_grad(hmm, wrt=(0, 1, 2))(LOG_PI, LOG_A, LOG_B, OBS[: n + 1])
    plain, plain_list, plain_hmm = (_unhoisted(f, monkeypatch) for f in (powered, with_a_list, hmm))
    got = srcgrad.value_and_grad(plain, wrt=(0, 1))(A, X, n)
    got_list = srcgrad.value_and_grad(plain_list, wrt=(0, 1))(A[0], X)
    got_hmm = srcgrad.value_and_grad(plain_hmm, wrt=(0, 1, 2))(LOG_PI, LOG_A, LOG_B, OBS[: n + 1])
    for w, g in ((want, got), (want_list, got_list), (want_hmm, got_hmm)):
        assert w[0] == g[0]
        for a, b in zip(w[1], g[1]):
            np.testing.assert_allclose(a, b, rtol=1e-13, atol=1e-15)


def test_zero_trips_give_zero_gradients_for_the_hoisted_operands():
    g_a, g_x = srcgrad.grad(powered, wrt=(0, 1))(A, X, 0)
    np.testing.assert_array_equal(g_a, np.zeros_like(A))
    np.testing.assert_array_equal(g_x, np.ones_like(X))


def test_hessian_through_a_hoisted_statement():
    check_hessian(lambda x: powered(A, x, 3), (X,), 0)
    check_hessian(lambda a: with_a_list(a, X), (A[0],), 0, expected=np.diag(-2.0 * np.sin(A[0]) * np.sum(X)))


def rows_of(x, b, W):
    s = 0.0
    for t in range(3):
        s = s + np.sum(np.tanh(x[t] + b)) + np.sum(np.tanh(x[t] @ W))
    return s


def test_rows_read_from_a_dict_keyed_by_the_counter_in_forward_mode():
    """The batched rows of forward mode (`matmul_each`, `add_each`) are read one by one from
    a dict keyed by the loop counter, as the loop reads them (a slice of the dict raised)."""
    b, W = np.array([0.1, 0.2]), np.full((2, 2), 0.1)
    x = np.arange(6.0).reshape(3, 2) / 7
    rows = {t: x[t] for t in range(3)}
    tangents = (np.ones(2), np.ones((2, 2)))
    value, tangent = srcgrad.jvp(rows_of, (rows, b, W), (None,) + tangents)
    want_value, want_tangent = srcgrad.jvp(rows_of, (x, b, W), (None,) + tangents)
    assert value == want_value and tangent == pytest.approx(want_tangent, rel=1e-14)
    g_b, g_w = srcgrad.grad(rows_of, wrt=(1, 2))(x, b, W)
    assert want_tangent == pytest.approx(np.sum(g_b) + np.sum(g_w), rel=1e-12)
    step = 1e-6
    central = (rows_of(x, b + step, W + step) - rows_of(x, b - step, W - step)) / (2 * step)
    assert tangent == pytest.approx(central, rel=1e-7)
    full = srcgrad.jvp(rows_of, (rows, b, W), ({t: np.ones(2) for t in range(3)},) + tangents)
    assert full == pytest.approx(srcgrad.jvp(rows_of, (x, b, W), (np.ones((3, 2)),) + tangents), rel=1e-14)
