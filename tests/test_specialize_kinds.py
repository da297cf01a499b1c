"""Specialized code: bound seed constants, returned gradients without `unbroadcast`,
the vector @ matrix adjoint, and backward loops folded into `runtime.scaled`."""

import numpy as np
import pytest

import srcgrad
from srcgrad import runtime
from srcgrad.compiler import derive


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
    general = derive(logreg, "grad", (0, 1)).function.__wrapped__
    for got, want in zip((gw, gb), general(w, b, x, y)):
        assert type(got) is type(want) and got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_vector_at_matrix_adjoint(rng, dtype):
    args = [rng.standard_normal(s).astype(dtype) for s in ((5, 3), (3,), (5,), (3,))]
    df = derive(vector_loss, "value_and_grad", (0, 1)).function
    value, grads = df(*args)
    assert "multiply.outer" in _special(df)
    want_value, want = df.__wrapped__(*args)
    assert value == want_value
    for got, expected in zip(grads, want):
        assert got.dtype == expected.dtype
        np.testing.assert_array_equal(got, expected)


def test_doubling_loop_becomes_one_call(rng):
    x = rng.standard_normal(3)
    seed = np.array([0.1, 1.0, 1e-4])
    out, pullback = srcgrad.vjp(doubling, x)
    (gx,) = pullback(seed)
    split = derive(doubling, "split_vjp", (0,)).function
    assert "scaled(" in _special(split)
    _, (want,) = derive(doubling, "vjp", (0,)).function.__wrapped__(seed, x)
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
