"""JAX's spellings of custom rules: `f.defvjp(fwd, bwd)` and a forward rule taking
`(primals, tangents)`, checked against closed forms, finite differences and srcgrad's
own spelling of the same rules."""

import numpy as np
import pytest
from conftest import numerical_grad

import srcgrad

X = np.array([0.1, -0.4, 0.7])
Y = np.array([1.0, 3.0, -2.0])


@srcgrad.custom_vjp
def weighted_exp(x, y):
    return np.sum(np.exp(x) * y)


def weighted_exp_fwd(x, y):
    e = np.exp(x)
    return np.sum(e * y), (e, y)


def weighted_exp_bwd(residuals, g):
    e, y = residuals
    return g * e * y, g * e


weighted_exp.defvjp(weighted_exp_fwd, weighted_exp_bwd)


def repeated(x, y):
    """The custom function called in a loop, on values computed in the function."""
    total = 0.0
    for k in range(1, 4):
        total = total + weighted_exp(x * k, y) / k
    return total


@srcgrad.custom_jvp
def sin_times(x, y):
    return np.sin(x) * y


@sin_times.defjvp
def sin_times_jvp(primals, tangents):
    x, y = primals
    x_dot, y_dot = tangents
    return sin_times(x, y), np.cos(x) * x_dot * y + np.sin(x) * y_dot


@srcgrad.custom_vjp(nondiff_argnums=(1,))
def power(x, n):
    return x**n


power.defvjp(lambda x, n: (x**n, x), lambda n, x, g: (g * n * x ** (n - 1),))


@srcgrad.custom_jvp(nondiff_argnums=(0,))
def scaled_tanh(scale, x):
    return np.tanh(scale * x)


@scaled_tanh.defjvp
def scaled_tanh_jvp(scale, primals, tangents):
    (x,), (x_dot,) = primals, tangents
    out = np.tanh(scale * x)
    return out, scale * (1.0 - out**2) * x_dot


def test_fwd_bwd_gives_the_gradient_of_every_parameter():
    gx, gy = srcgrad.grad(weighted_exp, wrt=(0, 1))(X, Y)
    assert np.allclose(gx, np.exp(X) * Y, rtol=1e-12)
    assert np.allclose(gy, np.exp(X), rtol=1e-12)


def test_fwd_bwd_inside_a_loop_of_a_differentiated_function():
    x, y = X.copy(), Y.copy()
    gx, gy = srcgrad.grad(repeated, wrt=(0, 1))(x, y)
    assert np.array_equal(x, X) and np.array_equal(y, Y)
    assert np.allclose(gx, sum(np.exp(k * X) * Y for k in range(1, 4)), rtol=1e-12)
    assert np.allclose(gx, numerical_grad(repeated, (X, Y), 0), rtol=1e-7)
    assert np.allclose(gy, numerical_grad(repeated, (X, Y), 1), rtol=1e-7)
    again = srcgrad.grad(repeated, wrt=(0, 1))(X, Y)  # the specialized second call
    assert np.allclose(again[0], gx, rtol=1e-14) and np.allclose(again[1], gy, rtol=1e-14)


def test_fwd_bwd_with_nondiff_argnums_passes_them_first_to_bwd():
    assert srcgrad.grad(power)(2.0, 3) == pytest.approx(12.0, rel=1e-14)
    assert srcgrad.grad(lambda x: power(x, 4) * 2.0)(1.5) == pytest.approx(8 * 1.5**3, rel=1e-14)


def test_primals_tangents_rule_in_forward_mode():
    out, tangent = srcgrad.jvp(sin_times, (1.0, 2.0), (1.0, 0.5))
    assert out == pytest.approx(np.sin(1.0) * 2.0, rel=1e-14)
    assert tangent == pytest.approx(np.cos(1.0) * 2.0 + np.sin(1.0) * 0.5, rel=1e-14)


def test_primals_tangents_rule_transposed_for_reverse_mode():
    gx, gy = srcgrad.grad(lambda x, y: np.sum(sin_times(x, y) ** 2), wrt=(0, 1))(X, Y)
    s = np.sin(X) * Y
    assert np.allclose(gx, 2 * s * np.cos(X) * Y, rtol=1e-12)
    assert np.allclose(gy, 2 * s * np.sin(X), rtol=1e-12)


def test_primals_tangents_rule_with_nondiff_argnums():
    out, tangent = srcgrad.jvp(lambda x: scaled_tanh(3.0, x), (0.2,), (1.0,))
    assert tangent == pytest.approx(3.0 * (1 - np.tanh(0.6) ** 2), rel=1e-14)
    g = srcgrad.grad(lambda x: np.sum(scaled_tanh(3.0, x)))(X)
    assert np.allclose(g, 3.0 * (1 - np.tanh(3.0 * X) ** 2), rtol=1e-12)


def test_jax_forms_agree_with_srcgrads_own_form():
    @srcgrad.custom_vjp
    def own(x, y):
        return np.sum(np.exp(x) * y)

    @own.defvjp
    def own_vjp(g, ans, x, y):
        return g * np.exp(x) * y, g * np.exp(x)

    def through(fn):
        return lambda x, y: fn(np.sin(x), y) * fn(x, y * y)

    ours = srcgrad.grad(through(own), wrt=(0, 1))(X, Y)
    theirs = srcgrad.grad(through(weighted_exp), wrt=(0, 1))(X, Y)
    for a, b in zip(ours, theirs):
        assert np.allclose(a, b, rtol=1e-13)


def test_tensor_shim_uses_the_fwd_bwd_rule():
    t = srcgrad.tensor(X, requires_grad=True)
    weighted_exp(t, srcgrad.tensor(Y)).backward()
    assert np.allclose(t.grad.numpy(), np.exp(X) * Y, rtol=1e-12)


def test_defvjp_returns_fwd_and_defjvp_returns_the_rule():
    assert sin_times_jvp.__name__ == "sin_times_jvp" and callable(sin_times_jvp)

    @srcgrad.custom_vjp
    def f(x):
        return x * 2.0

    def f_fwd(x):
        return x * 2.0, None

    assert f.defvjp(f_fwd, lambda r, g: (2.0 * g,)) is f_fwd


def test_bwd_of_the_wrong_arity_is_refused_when_registered():
    @srcgrad.custom_vjp
    def f(x, y):
        return x * y

    with pytest.raises(TypeError, match=r"the bwd rule `<lambda>` of `f` must take \(residuals, g\)"):
        f.defvjp(lambda x, y: (x * y, (x, y)), lambda r: r)
    with pytest.raises(TypeError, match=r"the fwd rule `<lambda>` of `f` must take \(x, y\)"):
        f.defvjp(lambda x: (x, x), lambda r, g: (g, g))


def test_fwd_that_returns_no_pair_is_a_clear_error():
    @srcgrad.custom_vjp
    def f(x):
        return np.sum(x)

    f.defvjp(lambda x: np.sum(x), lambda r, g: (g,))
    with pytest.raises(ValueError, match=r"fwd rule `<lambda>` of `f` returned float64 .*must return a pair"):
        srcgrad.grad(f)(X)


def test_bwd_returning_too_few_gradients_names_the_rule():
    @srcgrad.custom_vjp
    def f(x, y):
        return np.sum(x * y)

    def f_bwd(res, g):
        return (g * res[1],)

    f.defvjp(lambda x, y: (np.sum(x * y), (x, y)), f_bwd)
    with pytest.raises(ValueError, match=r"custom vjp rule `f_bwd` of `f` returned 1 values"):
        srcgrad.grad(f, wrt=(0, 1))(X, Y)


def test_primals_tangents_rule_returning_no_pair_is_a_clear_error():
    @srcgrad.custom_jvp
    def f(x):
        return np.sin(x)

    @f.defjvp
    def f_jvp(primals, tangents):
        return np.cos(primals[0]) * tangents[0]

    with pytest.raises(ValueError, match=r"custom jvp rule `f_jvp` of `f` returned ndarray .*returns a pair"):
        srcgrad.jvp(f, (X,), (np.ones(3),))


def test_jax_forms_refuse_keyword_only_parameters():
    @srcgrad.custom_vjp
    def f(x, *, scale=1.0):
        return x * scale

    with pytest.raises(TypeError, match=r"JAX's `defvjp\(fwd, bwd\)` form needs a function of plain positional"):
        f.defvjp(lambda x, scale=1.0: (x * scale, scale), lambda r, g: (g * r,))
