"""A closure factory's result and a `functools.partial` made in the differentiated
function and then called (compiler/factories.py): made nested defs, inlined at their
calls, in every transform."""

import functools
from functools import partial

import numpy as np
import pytest

import srcgrad
from program_checks import check_every_transform

X = np.array([0.5, -1.0, 2.0])


def scaled(v, k, c=1.0):
    return k * np.tanh(v) + c


def factory(x):
    def make(a, p=2.0):
        def g(v):
            return a * v ** p + x[1]
        return g

    f = make(x[0])
    h = make(3.0, p=3.0)
    return np.sum(f(x) + h(x))


def factory_expected(x):
    e = 2 * x[0] * x + 9 * x ** 2
    e[0] += np.sum(x ** 2)
    e[1] += 2 * len(x)
    return e


def partials(x):
    def g(v, a):
        return a * v ** 2

    f = functools.partial(g, a=x[2])
    k = partial(scaled, x[0])  # k(x) = scaled(x[0], x): the array is its `k`
    return np.sum(f(x) * k(x))


def partials_expected(x):
    f, k = x[2] * x ** 2, x * np.tanh(x[0]) + 1.0
    e = 2 * x[2] * x * k + f * np.tanh(x[0])
    e[0] += np.sum(f * x * (1 - np.tanh(x[0]) ** 2))
    e[2] += np.sum(x ** 2 * k)
    return e


def keyword_partial(x):
    f = functools.partial(scaled, k=2.0)
    return np.sum(f(x, c=3.0) * f(x))


def keyword_partial_expected(x):
    t = np.tanh(x)
    return 2 * (1 - t ** 2) * ((2 * t + 1.0) + (2 * t + 3.0))


def lambda_factory(x):
    def make(a):
        return lambda v: a * np.sin(v)

    f = make(x[0])
    g = make(2.0)
    return np.sum(f(x) * g(x))


def lambda_factory_expected(x):
    e = 2 * x[0] * 2 * np.sin(x) * np.cos(x)
    e[0] += np.sum(2 * np.sin(x) ** 2)
    return e


@pytest.mark.parametrize("fn, expected", [(factory, factory_expected), (partials, partials_expected),
                                          (keyword_partial, keyword_partial_expected),
                                          (lambda_factory, lambda_factory_expected)], ids=lambda f: f.__name__)
def test_made_functions_are_differentiated_in_every_transform(fn, expected):
    check_every_transform(fn, X, expected(X))
    code = [line for line in srcgrad.source(srcgrad.grad(fn)).split('"""')[2].splitlines() if "#" not in line]
    assert not [line for line in code if "partial(" in line or "make(" in line]  # the made functions inlined


def test_the_values_are_read_when_the_function_is_made():
    def late(x):
        def make(a):
            def g(v):
                return a * v
            return g

        a = x[0]
        f = make(a)
        a = 10.0 * a  # the factory's `a` is the one passed
        return np.sum(f(x)) + a

    check_every_transform(late, X, np.array([np.sum(X) + X[0] + 10.0, X[0], X[0]]))


def factory_read_otherwise(x):
    def make(a):
        def g(v):
            return a * v
        return g

    fs = [make(1.0), make(2.0)]
    return np.sum(fs[0](x))


def test_a_factory_read_otherwise_is_refused_at_its_line():
    with pytest.raises(srcgrad.SrcGradError, match=r"a `def` inside the nested function `make`.*`f = make\(\.\.\.\)`"):
        srcgrad.grad(factory_read_otherwise)(X)


def rhs(y, k):
    return -k * y


def step(f, y):
    return y + 0.1 * f(y)


def partial_handed_on(x):
    f = functools.partial(rhs, k=2.0)
    return np.sum(step(f, x))


def test_a_made_function_handed_to_another_is_refused_saying_what_to_write():
    with pytest.raises(srcgrad.SrcGradError, match=r"the nested function `f` is used as a value .* define it at "
                       r"module level, or pass it or a partial of it to the differentiated function"):
        srcgrad.grad(partial_handed_on)(X)
    # as the message says: the partial passed to the differentiated function
    np.testing.assert_allclose(srcgrad.grad(lambda x, f: np.sum(step(f, x)))(X, functools.partial(rhs, k=2.0)),
                               np.full(3, 0.8), rtol=1e-14)


def other(v, k, c=1.0):
    return k * np.sin(v) + c


def partial_of_a_variable(x, flag=True):
    g = scaled
    if not flag:
        g = other
    f = functools.partial(g, k=2.0)
    return np.sum(f(x))


def test_a_partial_of_a_variable_is_refused_not_bound_to_the_global_of_its_name():
    with pytest.raises(srcgrad.NotDifferentiableError, match=r"`partial_of_a_variable` calls its local variable `f`"):
        srcgrad.grad(partial_of_a_variable)(X, False)
