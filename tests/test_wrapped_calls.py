"""Calls of wrapped functions inside a differentiated function: a `functools.partial` of a
user function is differentiated through that function with the partial's arguments
held constant (stand_in.partial_function), in both modes and to second order, also when
the partial itself is differentiated; other
partials are refused by the name the user wrote."""

import functools

import numpy as np
import pytest

import srcgrad
from conftest import numerical_grad

WEIGHTS = np.array([1.0, 3.0, -0.5])


def base(a, b, c=1.5):
    return np.sin(a) * b + c * a * a


scaled = functools.partial(base, b=2.0)
fixed_first = functools.partial(base, WEIGHTS)  # an array bound by position
fixed_c = functools.partial(base, c=WEIGHTS)


def through_keyword_partial(x):
    return np.sum(scaled(x))


def through_positional_partial(x):
    return np.sum(fixed_first(x) * x)


def overriding_a_bound_keyword(x):
    return np.sum(scaled(x, b=x))


def through_an_array_default(x, y):
    return np.sum(fixed_c(x, y))


X = np.array([0.3, -0.7, 1.2])
Y = np.array([0.5, 2.0, -1.0])


@pytest.mark.parametrize("fn, args, exact", [
    (through_keyword_partial, (X,), lambda x: 2.0 * np.cos(x) + 3.0 * x),
    (through_positional_partial, (X,), lambda x: 2.0 * np.sin(WEIGHTS) * x + 1.5 * WEIGHTS ** 2),
    (overriding_a_bound_keyword, (X,), lambda x: np.cos(x) * x + np.sin(x) + 3.0 * x),
    (through_an_array_default, (X, Y), lambda x, y: np.cos(x) * y + 2.0 * WEIGHTS * x),
])
def test_a_partial_of_a_user_function_is_differentiated_through_it(fn, args, exact):
    g = srcgrad.grad(fn)(*args)
    np.testing.assert_allclose(g, exact(*args), rtol=1e-12)
    np.testing.assert_allclose(g, numerical_grad(fn, args, 0), rtol=1e-7, atol=1e-9)
    t = np.array([0.2, -1.0, 0.4])
    _, out_dot = srcgrad.jvp(fn, args, (t,) + (None,) * (len(args) - 1))
    assert out_dot == pytest.approx(float(np.sum(exact(*args) * t)), rel=1e-12)


def test_the_partial_keeps_its_arguments_constant_and_differentiates_the_call_argument():
    dx, dy = srcgrad.grad(through_an_array_default, wrt=(0, 1))(X, Y)
    np.testing.assert_allclose(dy, np.sin(X), rtol=1e-12)
    np.testing.assert_allclose(dx, numerical_grad(through_an_array_default, (X, Y), 0), rtol=1e-7)


def test_hessian_through_a_partial():
    H = srcgrad.hessian(through_keyword_partial)(X)
    np.testing.assert_allclose(H, np.diag(-2.0 * np.sin(X) + 3.0), rtol=1e-12, atol=1e-15)


def test_generated_code_calls_the_pullback_of_the_partial():
    text = srcgrad.source(srcgrad.grad(through_keyword_partial))
    assert "def base_partial_pullback(out_bar, a, b=2.0, c=1.5):" in text
    assert "base_pullback" not in text and "    sin_a = np.sin(a)\n" in text  # `base` spliced into it


def times_two(a):
    return 2.0 * a


vectorized = np.vectorize(times_two)
summed = functools.partial(np.cumsum, axis=0)
varargs = functools.partial(lambda *a: a[0] * a[1], 2.0)


def calls_vectorized(x):
    return np.sum(vectorized(x))


def calls_partial_of_numpy(x):
    return np.sum(summed(x))


def calls_partial_with_varargs(x):
    return varargs(x)


@pytest.mark.parametrize("transform", ["grad", "jvp"])
@pytest.mark.parametrize("fn, named, advice", [
    (calls_partial_of_numpy, "`summed` (a functools.partial of numpy.cumsum)",
     "call the function itself with the partial's arguments"),
    (calls_partial_with_varargs, "`varargs` (a functools.partial of `<lambda>`)",
     "only of a Python function without `*args` or `**kwargs` parameters"),
])
def test_other_wrappers_are_refused_by_the_name_written_at_the_call(transform, fn, named, advice):
    with pytest.raises(srcgrad.NotDifferentiableError) as info:
        if transform == "grad":
            srcgrad.grad(fn)(X)
        else:
            srcgrad.jvp(fn, (X,), (X,))
    message = str(info.value.msg)
    assert message.startswith(f"no derivative rule for {named} called at {__file__}:"), message
    assert advice in message
    assert f"(in `{fn.__name__}`)" in message
    assert info.value.lineno == fn.__code__.co_firstlineno + 1


def test_a_vectorize_object_is_differentiated_through_its_function():
    """It was refused ("np.vectorize calls its function once per element"); it is written
    as the loop over the elements it runs (test_vectorized_calls.py)."""
    np.testing.assert_allclose(srcgrad.grad(calls_vectorized)(X), np.full_like(X, 2.0), rtol=1e-15)
    assert srcgrad.jvp(calls_vectorized, (X,), (np.ones_like(X),))[1] == pytest.approx(2.0 * X.size, rel=1e-15)


def test_a_partial_is_differentiated_directly_in_every_transform():
    # scaled(a, *, b=2.0, c=1.5) = sin(a) * 2 + 1.5 a^2, elementwise
    exact = 2.0 * np.cos(X) + 3.0 * X
    second = -2.0 * np.sin(X) + 3.0
    total = functools.partial(through_an_array_default, X)  # y -> sum(sin(X) * y + WEIGHTS * X^2)
    np.testing.assert_allclose(srcgrad.grad(total)(Y), np.sin(X), rtol=1e-12)
    np.testing.assert_allclose(srcgrad.grad(total, wrt="y")(Y), np.sin(X), rtol=1e-12)
    value, g = srcgrad.value_and_grad(total)(Y)
    assert value == pytest.approx(float(np.sum(np.sin(X) * Y + WEIGHTS * X * X)), rel=1e-14)
    np.testing.assert_allclose(g, numerical_grad(total, (Y,), 0), rtol=1e-7)
    out, pullback = srcgrad.vjp(scaled, X)
    np.testing.assert_allclose(out, base(X, 2.0), rtol=1e-15)
    np.testing.assert_allclose(pullback(np.ones(3))[0], exact, rtol=1e-12)
    _, out_dot = srcgrad.jvp(scaled, (X,), (np.ones(3),))
    np.testing.assert_allclose(out_dot, exact, rtol=1e-12)
    np.testing.assert_allclose(srcgrad.jacobian(scaled)(X), np.diag(exact), rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(srcgrad.hessian(lambda x: np.sum(scaled(x)))(X), np.diag(second), rtol=1e-12,
                               atol=1e-15)
    assert srcgrad.grad(total).__name__ == "through_an_array_default_partial_grad"


def test_a_partial_that_cannot_be_followed_is_refused_by_name_when_differentiated_directly():
    with pytest.raises(TypeError, match=r"only of a Python function without `\*args` or `\*\*kwargs` parameters, "
                                        r"not one of `np.cumsum`"):
        srcgrad.grad(summed)
    with pytest.raises(TypeError, match="not one of `<lambda>`"):
        srcgrad.jvp(varargs, (1.0,), (1.0,))
