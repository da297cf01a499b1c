"""Keyword arguments to jacobian, hessian and nested derivatives, as `grad(f)(x, c=3.0)`
takes them (and as JAX passes them through): bound to the parameters by
`inspect.signature`, defaults filled, then run as by position. Keyword-only parameters
too, and `wrt` naming a parameter passed by keyword. A call that does not fit gets
Python's TypeError naming the function.

Every value is checked against the analytic answer and float64 central differences.
"""

import numpy as np
import pytest

import srcgrad

EPS = 1e-6
x0 = np.array([0.3, -1.2, 0.7])


def scaled_sine(x, c=1.0):
    return np.sin(x) * c


def cubic(a, b=2.0):
    return a ** 3 * b


def weighted(x, *, c=1.0, p=2.0):
    return np.sum(x ** 3) * c + p * np.sum(x)


def _columns(f, x):
    """The Jacobian of f at the array x by central differences, shape out.shape + x.shape."""
    cols = []
    for i in range(x.size):
        e = np.zeros_like(x)
        e.flat[i] = EPS
        cols.append((np.asarray(f(x + e)) - np.asarray(f(x - e))) / (2 * EPS))
    return np.stack(cols, axis=-1).reshape(np.shape(f(x)) + x.shape)


@pytest.mark.parametrize("mode", ["forward", "reverse", None])
def test_jacobian_takes_a_keyword_for_a_parameter_with_a_default(mode):
    J = srcgrad.jacobian(scaled_sine, mode=mode)(x0, c=3.0)
    assert J.shape == (3, 3) and J.dtype == np.float64
    np.testing.assert_allclose(J, np.diag(3.0 * np.cos(x0)), rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(J, _columns(lambda x: scaled_sine(x, c=3.0), x0), rtol=1e-7, atol=1e-9)


@pytest.mark.parametrize("mode", ["forward", "reverse"])
def test_jacobian_with_respect_to_a_parameter_passed_by_keyword(mode):
    J = srcgrad.jacobian(scaled_sine, wrt="c", mode=mode)(x0, c=3.0)
    assert J.shape == (3,) and J.dtype == np.float64
    np.testing.assert_allclose(J, np.sin(x0), rtol=1e-12)
    fd = (scaled_sine(x0, c=3.0 + EPS) - scaled_sine(x0, c=3.0 - EPS)) / (2 * EPS)
    np.testing.assert_allclose(J, fd, rtol=1e-7)


@pytest.mark.parametrize("mode", ["forward", "reverse", None])
def test_jacobian_of_a_function_with_keyword_only_parameters(mode):
    J = srcgrad.jacobian(weighted, mode=mode)(x0, c=3.0, p=0.5)
    assert J.shape == (3,) and J.dtype == np.float64
    np.testing.assert_allclose(J, 9.0 * x0 ** 2 + 0.5, rtol=1e-12)
    np.testing.assert_allclose(J, _columns(lambda x: weighted(x, c=3.0, p=0.5), x0), rtol=1e-7)
    np.testing.assert_allclose(srcgrad.jacobian(weighted, mode=mode)(x0), 3.0 * x0 ** 2 + 2.0, rtol=1e-12)


def test_hessian_takes_keywords_and_keyword_only_parameters():
    H = srcgrad.hessian(weighted)(x0, c=3.0)
    assert H.shape == (3, 3) and H.dtype == np.float64
    np.testing.assert_allclose(H, np.diag(18.0 * x0), rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(H, _columns(lambda x: 9.0 * x ** 2 + 2.0, x0), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(srcgrad.hessian(weighted)(x0), np.diag(6.0 * x0), rtol=1e-12, atol=1e-15)
    H = srcgrad.hessian(scaled_sine_sum)(x0, c=-2.0)
    np.testing.assert_allclose(H, np.diag(2.0 * np.sin(x0)), rtol=1e-12, atol=1e-15)


def scaled_sine_sum(x, c=1.0):
    return np.sum(np.sin(x)) * c


def test_grad_of_grad_takes_a_keyword():
    assert srcgrad.grad(srcgrad.grad(cubic))(1.5, b=3.0) == pytest.approx(6 * 1.5 * 3.0, rel=1e-12)
    fd = (srcgrad.grad(cubic)(1.5 + EPS, b=3.0) - srcgrad.grad(cubic)(1.5 - EPS, b=3.0)) / (2 * EPS)
    assert srcgrad.grad(srcgrad.grad(cubic))(1.5, b=3.0) == pytest.approx(fd, rel=1e-7)
    g = srcgrad.grad(srcgrad.grad(cubic), wrt="b")(1.5, b=3.0)  # d/db of 3 a^2 b
    assert type(g) is float and g == pytest.approx(3 * 1.5 ** 2, rel=1e-12)
    assert srcgrad.grad(srcgrad.grad(srcgrad.grad(cubic)))(1.5, b=3.0) == pytest.approx(18.0, rel=1e-12)


def test_value_and_grad_of_grad_takes_a_keyword():
    value, gradient = srcgrad.value_and_grad(srcgrad.grad(cubic))(1.5, b=3.0)
    assert type(value) is float and type(gradient) is float
    assert value == pytest.approx(3 * 1.5 ** 2 * 3.0, rel=1e-12)
    assert gradient == pytest.approx(6 * 1.5 * 3.0, rel=1e-12)


def test_grad_of_grad_with_a_keyword_only_parameter():
    def f(a, *, b=2.0):
        return a ** 4 * b

    assert srcgrad.grad(srcgrad.grad(f))(1.5, b=3.0) == pytest.approx(12 * 1.5 ** 2 * 3.0, rel=1e-12)
    assert srcgrad.grad(srcgrad.grad(f))(1.5) == pytest.approx(12 * 1.5 ** 2 * 2.0, rel=1e-12)


def test_jvp_of_a_hessian_keeps_keyword_only_defaults():
    t = np.array([1.0, 0.5, -2.0])
    H, H_dot = srcgrad.jvp(srcgrad.hessian(weighted), (x0,), (t,))
    np.testing.assert_allclose(H, np.diag(6.0 * x0), rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(H_dot, np.diag(6.0 * t), rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("make", [
    lambda: srcgrad.jacobian(scaled_sine), lambda: srcgrad.jacobian(scaled_sine, mode="reverse"),
    lambda: srcgrad.hessian(scaled_sine_sum),
])
def test_bad_calls_name_the_function(make):
    with pytest.raises(TypeError, match=r"scaled_sine(_sum)?\(\) got an unexpected keyword argument 'd'"):
        make()(x0, d=3.0)
    with pytest.raises(TypeError, match=r"scaled_sine(_sum)?\(\) multiple values for argument 'x'"):
        make()(x0, x=x0)


def test_bad_calls_of_a_nested_derivative_name_the_function():
    with pytest.raises(TypeError, match=r"cubic\(\) multiple values for argument 'b'"):
        srcgrad.grad(srcgrad.grad(cubic))(1.5, 2.0, b=3.0)
    with pytest.raises(TypeError, match=r"cubic\(\) got an unexpected keyword argument 'c'"):
        srcgrad.grad(srcgrad.grad(cubic))(1.5, c=3.0)


def test_jacobian_with_keywords_matches_jax():
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    import jax.numpy as jnp

    def f(x, c=1.0):
        return jnp.sin(x) * c

    expected = np.asarray(jax.jacobian(f)(x0, c=3.0))
    np.testing.assert_allclose(srcgrad.jacobian(scaled_sine)(x0, c=3.0), expected, rtol=1e-12, atol=1e-15)


def test_a_library_function_takes_the_keywords_of_its_rules():
    """`jacobian(np.sin)` binds as its stand-in (no `out=`, `where=` passed on), and
    `np.linalg.norm`'s `ord=` reaches its rule."""
    x = np.array([0.1, 0.2])
    np.testing.assert_allclose(srcgrad.jacobian(np.sin)(x), np.diag(np.cos(x)), rtol=1e-15)
    r = np.linalg.norm(x)
    np.testing.assert_allclose(srcgrad.jacobian(np.linalg.norm)(x, ord=2), x / r, rtol=1e-14)
    H = srcgrad.hessian(np.linalg.norm)(x, ord=2)
    np.testing.assert_allclose(H, (np.eye(2) - np.outer(x, x) / r ** 2) / r, rtol=1e-12)
    np.testing.assert_allclose(srcgrad.jacobian(np.linalg.norm)(x, ord=1), np.sign(x), rtol=1e-15)
