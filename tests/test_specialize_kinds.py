"""Specialized code: bound seed constants, returned gradients without `unbroadcast`,
the vector @ matrix adjoint, and backward loops folded into `runtime.scaled`."""

import math

import numpy as np
import pytest

import srcgrad
from srcgrad import runtime
from srcgrad.compiler import derive
from srcgrad.compiler.cache import general_code


def logreg(w, b, x, y):
    z = x @ w + b
    return np.mean(np.logaddexp(0.0, z) - y * z)


def vector_loss(w, b, x, y):
    z = np.matmul(x, w) + b
    return np.mean(np.logaddexp(0.0, z) - y * z)


def doubling(x):
    y = x * 2
    while np.linalg.norm(y) < 1000:
        y = y * 2
    return y


def _special(df):
    """The source of the code specialized to the latest new kind of call."""
    return list(df.__srcgrad_specializations__.values())[-1].__srcgrad_source__


def test_logreg_returns_its_gradients_as_is(rng):
    w, b, x, y = rng.standard_normal((5, 3)), rng.standard_normal(3), rng.standard_normal((4, 5)), rng.standard_normal((4, 3))
    df = derive(logreg, "grad", (0, 1)).function
    gw, gb = df(w, b, x, y)
    text = _special(df)
    assert "unbroadcast" not in text and "SEED64 *" not in text
    general = general_code(derive(logreg, "grad", (0, 1)).function)
    for got, want in zip((gw, gb), general(w, b, x, y)):
        assert type(got) is type(want) and got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=1e-14, atol=1e-16)  # factoring.py: rounding only


def test_terms_with_one_factor_share_one_multiplication(rng):
    """`c * y` then `+ k * s` with c == -k: `k * (s - y)`, the hand-written form."""
    w, b, x, y = rng.standard_normal((5, 3)), rng.standard_normal(3), rng.standard_normal((4, 5)), rng.standard_normal((4, 3))
    df = derive(logreg, "grad", (0, 1)).function
    gw, gb = df(w, b, x, y)
    assert "z_bar = SEED64_1 * (HALF64 * np.tanh(HALF64 * z) + HALF64 - y)" in _special(df)  # constants.py
    z = x @ w + b
    dz = (1.0 / (1.0 + np.exp(-z)) - y) / z.size
    np.testing.assert_allclose(gw, x.T @ dz, rtol=1e-13)
    np.testing.assert_allclose(gb, dz.sum(axis=0), rtol=1e-13)


def same_factor(x, y):
    return np.sum(x * y) + np.sum(x * x)


def different_factors(x, y):
    return 3.0 * np.mean(x * y) + np.mean(x * x)


@pytest.mark.parametrize("fn", [same_factor, different_factors])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_factoring_keeps_types_and_values(rng, fn, dtype):
    x, y = rng.standard_normal((3, 4)).astype(dtype), rng.standard_normal((3, 4)).astype(dtype)
    df = derive(fn, "grad", (0, 1)).function
    got = df(x, y)
    want = general_code(df)(x, y)
    for g, w_ in zip(got, want):
        assert type(g) is type(w_) and g.dtype == w_.dtype and g.shape == w_.shape
        np.testing.assert_allclose(g, w_, rtol=1e-5 if dtype == np.float32 else 1e-14)
    h = 1e-6
    xd, yd = x.astype(np.float64), y.astype(np.float64)
    e = np.zeros_like(xd)
    e[1, 2] = h
    fd = (fn(xd + e, yd) - fn(xd - e, yd)) / (2 * h)
    np.testing.assert_allclose(got[0][1, 2], fd, rtol=1e-4 if dtype == np.float32 else 1e-7)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_vector_at_matrix_adjoint(rng, dtype):
    args = [rng.standard_normal(s).astype(dtype) for s in ((5, 3), (3,), (5,), (3,))]
    df = derive(vector_loss, "value_and_grad", (0, 1)).function
    value, grads = df(*args)
    assert "multiply.outer" in _special(df)
    want_value, want = general_code(df)(*args)
    assert value == want_value
    for got, expected in zip(grads, want):
        assert got.dtype == expected.dtype
        np.testing.assert_allclose(got, expected, rtol=1e-14 if dtype == np.float64 else 1e-6, atol=1e-16)


def test_doubling_loop_becomes_one_call(rng):
    x = rng.standard_normal(3)
    seed = np.array([0.1, 1.0, 1e-4])
    out, pullback = srcgrad.vjp(doubling, x)
    (gx,) = pullback(seed)
    split = derive(doubling, "split_vjp", (0,)).function
    assert "scaled(" in _special(split)
    assert "x_bar = scaled(y_bar, 2, trips + 1)" in _special(split)  # `x_bar = y_bar * 2` folded in
    _, (want,) = general_code(derive(doubling, "vjp", (0,)).function)(seed, x)
    np.testing.assert_array_equal(gx, want)


@pytest.mark.parametrize("g", [np.array([1.5, -3.0, 5e-324, 1e300, 0.0, -0.0]), 1e-310, np.float64(-7.25)])
@pytest.mark.parametrize("factor,count", [(2, 0), (2, 1), (2, 11), (4, 300), (2, 1023), (2, 1100), (8, 2000)])
def test_scaled_is_the_loop(g, factor, count):
    expected = g
    with np.errstate(over="ignore"):
        for _ in range(count):
            expected = expected * factor
        got = runtime.scaled(g, factor, count)
    assert type(got) is type(expected)
    np.testing.assert_array_equal(got, expected)


def test_scaled_runs_the_loop_for_other_types():
    g = np.array([1.0, 2.0], dtype=np.float32)
    got = runtime.scaled(g, 2, 3)
    assert got.dtype == np.float32 and got.tolist() == [8.0, 16.0]
    assert runtime.scaled([1.0], 2, 1) == [1.0, 1.0]  # what `g * 2` does to a list


def masked_sum(x, m1, m2):
    return np.mean(x * m1) + np.mean(x * m2)


def test_factoring_leaves_boolean_terms_alone(rng):
    """m1 + m2 of boolean masks would be `or`: the terms stay apart."""
    x = rng.standard_normal(4)
    m1, m2 = np.array([True, False, True, True]), np.array([True, True, False, True])
    df = derive(masked_sum, "grad", (0,)).function
    (gx,) = df(x, m1, m2)
    np.testing.assert_array_equal(gx, (m1.astype(float) + m2) / 4)
    assert "(m1 + m2)" not in _special(df) and "(m2 + m1)" not in _special(df)


def relu_hypot(x, y):
    r = np.where(x > 0, x, 0.0) * np.hypot(x, y)
    return np.sum(r)


def scalar_roots(a, b):
    return math.sqrt(a * a + b * b + 1.0) + math.pow(a, 2.5)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_where_and_conditional_rules_keep_their_kinds(rng, dtype):
    # np.where of an array and a float, and a rule written as `a if c else b` (hypot's,
    # math.sqrt's), have a known dtype: the returned gradients need no unbroadcast
    x, y = (rng.standard_normal(5).astype(dtype) for _ in range(2))
    df = derive(relu_hypot, "grad", (0, 1)).function
    gx, gy = df(x, y)
    assert "return owned_gradients(x_bar, y_bar)" in _special(df)
    h = np.hypot(x, y)
    assert gx.dtype == gy.dtype == dtype
    np.testing.assert_allclose(gx, np.where(x > 0, h, 0.0) + np.where(x > 0, x, 0.0) * x / h, rtol=1e-5)
    np.testing.assert_allclose(gy, np.where(x > 0, x, 0.0) * y / h, rtol=1e-5)
    ds = derive(scalar_roots, "grad", (0, 1)).function
    ga, gb = ds(1.5, -0.5)
    assert "unbroadcast" not in _special(ds).split("return")[-1]
    root = math.sqrt(1.5 ** 2 + 0.25 + 1.0)
    assert (type(ga), type(gb)) == (float, float)
    assert ga == pytest.approx(1.5 / root + 2.5 * 1.5 ** 1.5) and gb == pytest.approx(-0.5 / root)
