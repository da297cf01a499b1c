"""Loops over an array converted to a list: `for v in x.tolist()`, `list(x)`, `tuple(x)`,
`sorted(x)` (iteration.py reads the list made once before the loop by index), in a
statement or a comprehension, and the list bound to a name then iterated or indexed.
The elements are Python floats carrying the derivative. Each against central
differences, the analytic answer, forward mode, the Hessian, value_and_grad, vjp and the
second (specialized) call, the argument left unchanged; float32 stays float32."""

import numpy as np
import pytest

import srcgrad
from program_checks import check, check_hessian

X = np.array([0.3, -0.8, 1.1])
M = np.array([[0.5, -1.0], [2.0, 0.25]])


def loop_over_tolist(x):
    s = 0.0
    for v in x.tolist():
        s = s + v * v
    return s


def loop_over_list(x):
    s = 1.0
    for v in list(x):
        s = s * 0.5 + np.sin(v)
    return s


def loop_over_tuple(x):
    s = 0.0
    for v in tuple(x):
        s += v ** 3
    return s


def enumerate_sorted(x):
    s = 0.0
    for k, v in enumerate(sorted(x.tolist())):
        s = s + v * (k + 1)
    return s


def generator_over_tolist(x):
    return sum(v * np.exp(v) for v in x.tolist())


def tolist_bound_then_looped(x):
    xs = x.tolist()
    s = 0.0
    for v in xs:
        s = s + np.cos(v) * xs[0]
    return s


def list_bound_then_indexed(x):
    xs = list(x)
    return xs[0] * xs[2] + xs[-1] ** 2


def enumerate_tolist(x):
    s = 0.0
    for i, v in enumerate(x.tolist()):
        s = s + v * (i + 1) * v
    return s


def zip_of_lists(x):
    s = 0.0
    for v, w in zip(x.tolist(), list(x * 2.0)):
        s = s + v * w
    return s


def rows_of_tolist(m):
    s = 0.0
    for row in m.tolist():
        s = s + row[0] * row[1]
    return s


def _enumerate_sorted_expected(x):
    g = np.zeros(3)
    g[np.argsort(x)] = [1.0, 2.0, 3.0]
    return g


def _looped_list_expected(x):
    # s = sum_k (1/2)^(2-k) sin(x_k) + 1/8
    return np.cos(x) * np.array([0.25, 0.5, 1.0])


EXPECTED = {
    loop_over_tolist: lambda x: 2 * x,
    loop_over_list: _looped_list_expected,
    loop_over_tuple: lambda x: 3 * x ** 2,
    enumerate_sorted: _enumerate_sorted_expected,
    generator_over_tolist: lambda x: np.exp(x) * (1 + x),
    tolist_bound_then_looped: lambda x: -np.sin(x) * x[0] + np.array([np.sum(np.cos(x)), 0.0, 0.0]),
    list_bound_then_indexed: lambda x: np.array([x[2], 0.0, x[0] + 2 * x[2]]),
    enumerate_tolist: lambda x: 2 * x * np.array([1.0, 2.0, 3.0]),
    zip_of_lists: lambda x: 4 * x,
    rows_of_tolist: lambda m: m[:, ::-1].copy(),
}

CASES = [(loop_over_tolist, X), (loop_over_list, X), (loop_over_tuple, X), (enumerate_sorted, X),
         (generator_over_tolist, X), (tolist_bound_then_looped, X), (list_bound_then_indexed, X), (enumerate_tolist, X), (zip_of_lists, X),
         (rows_of_tolist, M)]


@pytest.mark.parametrize("fn,a", CASES, ids=lambda v: getattr(v, "__name__", ""))
def test_every_transform(fn, a):
    before = a.copy()
    (g,) = check(fn, a, expected=(EXPECTED[fn](a),))
    assert g.dtype == np.float64 and g.shape == a.shape
    np.testing.assert_array_equal(srcgrad.grad(fn)(a), g)  # the specialized second call
    value, (g2,) = srcgrad.value_and_grad(fn, wrt=(0,))(a)
    assert value == fn(a)
    np.testing.assert_array_equal(g2, g)
    out, pullback = srcgrad.vjp(fn, a)
    np.testing.assert_allclose(pullback(1.0)[0], g, rtol=1e-12)
    check_hessian(fn, (a,), 0)
    np.testing.assert_array_equal(a, before)


def test_hessian_by_hand():
    np.testing.assert_allclose(srcgrad.hessian(loop_over_tolist)(X), 2 * np.eye(3), rtol=1e-12)
    np.testing.assert_allclose(srcgrad.hessian(loop_over_tuple)(X), np.diag(6 * X), rtol=1e-12)


def test_float32_stays_float32():
    x32 = X.astype(np.float32)
    for fn in (loop_over_tolist, loop_over_list):
        g = srcgrad.grad(fn)
        for _ in range(2):  # general code, then specialized
            got = g(x32)
            assert got.dtype == np.float32 and got.shape == (3,)
            np.testing.assert_allclose(got, EXPECTED[fn](X), rtol=1e-5)


def test_the_list_is_made_once_before_the_loop():
    text = srcgrad.source(srcgrad.grad(loop_over_tolist))
    assert "sequence = x.tolist()" in text and "v = sequence[i]" in text
