"""Regressions from a hunt for wrong derivatives and forward values in the most recent
features (`try` statements, `match` statements, the None-default idiom, NumPy calls
writing into arrays, `functools.reduce`, located errors, scipy.linalg rules and the
Tensor shim's item assignment): each compared with central differences or an answer
derived by hand."""

import numpy as np
import pytest

import srcgrad
from conftest import numerical_grad

# ------------------------------------------------------------------ try statements


def sqrt_or_line(x):
    with np.errstate(all="raise"):
        try:
            y = np.sqrt(x)
        except FloatingPointError:
            y = 2.0 * x
    return np.sum(y * x)


def repeated_sqrt(x):
    y = x * 1.0
    for _ in range(2):
        with np.errstate(all="raise"):
            try:
                y = np.sqrt(y) + y
            except FloatingPointError:
                y = y * 3.0
    return np.sum(y)


def test_a_tangent_that_raises_is_not_taken_by_the_users_handler():
    # jvp ran the tangent statements inside the user's `try`: where the derivative of
    # sqrt is infinite (x = 0) the tangent's division raised FloatingPointError, the
    # user's handler ran and jvp returned the handler's value (8.5, not 3.18...)
    x = np.array([0.0, 0.5, 2.0])
    with pytest.raises(FloatingPointError) as info:
        srcgrad.jvp(sqrt_or_line, (x,), (np.ones(3),))
    assert "line" in "".join(getattr(info.value, "__notes__", []))
    x = np.array([1.0, 0.5, 2.0])
    t = np.array([0.3, -1.0, 2.0])
    out, out_dot = srcgrad.jvp(sqrt_or_line, (x,), (t,))
    assert out == sqrt_or_line(x)
    np.testing.assert_allclose(out_dot, np.sum(1.5 * np.sqrt(x) * t), rtol=1e-12)


def test_tangents_after_a_statement_reading_its_own_target():
    x = np.array([1.0, 0.5, 2.0])
    t = np.array([0.3, -1.0, 2.0])
    out, out_dot = srcgrad.jvp(repeated_sqrt, (x,), (t,))
    assert out == repeated_sqrt(x)
    y1 = np.sqrt(x) + x
    d1 = 0.5 / np.sqrt(x) + 1.0
    d2 = (0.5 / np.sqrt(y1) + 1.0) * d1
    np.testing.assert_allclose(out_dot, np.sum(d2 * t), rtol=1e-12)
    np.testing.assert_allclose(srcgrad.grad(repeated_sqrt)(x), d2, rtol=1e-12)
    np.testing.assert_allclose(srcgrad.grad(repeated_sqrt)(x), numerical_grad(repeated_sqrt, (x,), 0), rtol=1e-6)
