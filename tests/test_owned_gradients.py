"""The gradients a derivative returns are the caller's own: writable arrays sharing
memory with no other returned gradient.

Inside a derivative one array may be the adjoint of two parameters (`np.sin(a + b)`
gives `a` and `b` the same one) or a read-only broadcast (the adjoint of `np.sum(x)`).
Returned as they were, `g_a *= lr` also scaled `g_b` (an SGD step over
`zip(params, grads)` then moved `b` by lr**2 times its gradient, silently), and
`g *= lr` on the gradient of `np.sum(x)` raised NumPy's 'output array is read-only'.
"""

import numpy as np
import pytest

import srcgrad

A = np.array([0.1, 0.2, -0.4])
B = np.array([0.3, 0.4, 0.5])


def sin_of_sum(a, b):
    return np.sum(np.sin(a + b))


def plain_sum(a, b):
    return np.sum(a + b) * 2.0


def _calls(df, a, b):
    """The first call, the specialized one after it, and the general (keyword) one."""
    return [df(a, b), df(a, b), df(a=a, b=b)]


@pytest.mark.parametrize("keyword", [False, True])
def test_two_gradients_of_one_adjoint_are_two_arrays(keyword):
    df = srcgrad.grad(sin_of_sum, wrt=(0, 1))
    for ga, gb in _calls(df, A, B):
        assert not np.shares_memory(ga, gb)
        np.testing.assert_allclose(ga, np.cos(A + B), rtol=1e-15)
        ga *= 10.0
        np.testing.assert_allclose(gb, np.cos(A + B), rtol=1e-15)


def test_an_sgd_step_over_zip_moves_each_parameter_by_its_own_gradient():
    a, b = A.copy(), B.copy()
    grads = srcgrad.grad(sin_of_sum, wrt=(0, 1))(a, b)
    for p, g in zip((a, b), grads):
        g *= 0.1
        p -= g
    np.testing.assert_allclose(a, A - 0.1 * np.cos(A + B), rtol=1e-15)
    np.testing.assert_allclose(b, B - 0.1 * np.cos(A + B), rtol=1e-15)


def test_the_gradient_of_a_sum_is_writable():
    df = srcgrad.grad(plain_sum, wrt=(0, 1))
    for ga, gb in _calls(df, A, B):
        assert ga.flags.writeable and gb.flags.writeable and not np.shares_memory(ga, gb)
        ga *= 0.5
        np.testing.assert_array_equal(ga, np.ones(3))
        np.testing.assert_array_equal(gb, np.full(3, 2.0))
    g = srcgrad.grad(lambda x: np.sum(x))(A)
    np.clip(g, -0.5, 0.5, out=g)
    np.testing.assert_array_equal(g, np.full(3, 0.5))


def test_value_and_grad_vjp_and_containers():
    (value, (ga, gb)) = srcgrad.value_and_grad(sin_of_sum, wrt=(0, 1))(A, B)
    assert value == pytest.approx(np.sum(np.sin(A + B)), rel=1e-15)
    assert not np.shares_memory(ga, gb)
    out, pullback = srcgrad.vjp(lambda a, b: np.sin(a + b), A, B)
    seed = np.array([1.0, 2.0, 3.0])
    ga, gb = pullback(seed)
    assert not np.shares_memory(ga, gb) and not np.shares_memory(ga, seed) and ga.flags.writeable
    np.testing.assert_allclose(ga, seed * np.cos(A + B), rtol=1e-15)
    d = srcgrad.grad(lambda p: np.sum(np.sin(p["w"] + p["v"])))({"w": A, "v": B})
    assert not np.shares_memory(d["w"], d["v"]) and d["w"].flags.writeable
    np.testing.assert_allclose(d["v"], np.cos(A + B), rtol=1e-15)


def test_numbers_and_arguments_are_left_alone():
    assert srcgrad.grad(lambda a, b: a * b, wrt=(0, 1))(2.0, 3.0) == (3.0, 2.0)
    x = A.copy()
    g = srcgrad.grad(lambda x: np.sum(x * x))(x)
    assert not np.shares_memory(g, x)
    np.testing.assert_array_equal(x, A)
    np.testing.assert_allclose(g, 2.0 * A, rtol=1e-15)


def test_the_numba_backend_returns_them_apart_too():
    pytest.importorskip("numba")
    df = srcgrad.grad(sin_of_sum, wrt=(0, 1), backend="numba")
    for ga, gb in _calls(df, A, B):
        assert not np.shares_memory(ga, gb) and ga.flags.writeable
        np.testing.assert_allclose(gb, np.cos(A + B), rtol=1e-15)
