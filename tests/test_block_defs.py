"""A `def` inside an `if` or a loop (block_defs.py): each call calls the `def` that ran
last, and the body reads the enclosing variables when it is called (Python's late
binding). Each against central differences, the analytic answer, forward mode, the
Hessian and the second (specialized) call, with its argument left unchanged; what stays
refused is refused at the `def`'s line."""

import inspect

import numpy as np
import pytest

import srcgrad
from conftest import numerical_grad
from program_checks import check, check_hessian

X = np.array([0.3, -0.7, 1.2])


def act_choice(x, mode="tanh"):
    if mode == "tanh":
        def act(t):
            return np.tanh(t)
    else:
        def act(t):
            return t * t
    return np.sum(act(x) * x)


def three_way(x, k=1):
    if k == 0:
        def g(t):
            return np.exp(t)
    elif k == 1:
        def g(t):
            return np.sin(t) * t
    else:
        def g(t):
            return t * 3.0
    y = g(x)
    return np.sum(g(y))


def defined_in_a_loop(x):
    s = 0.0
    for i in range(3):
        def f(t):
            return t * i + np.sin(t) * i
        s = s + f(x)
    return np.sum(s)


def read_when_called(x):
    s = x * 0.0
    c = 1.0
    for i in range(3):
        def f(t):
            return t * c
        c = c + 1.0  # f reads c when it is called: 2, 3, 4, then 4 after the loop
        s = s + f(x)
    return np.sum(s * x) + np.sum(f(x))


def calls_a_top_level_helper(x):
    def square(t):
        return t * t

    total = 0.0
    for k in range(1, 3):
        if k == 1:
            def term(t):
                return square(t) * k
        else:
            def term(t):
                return np.cos(t) * k
        total = total + np.sum(term(x))
    return total


def _three_way_expected(x, k):
    g, dg = {0: (np.exp, np.exp), 1: (lambda t: np.sin(t) * t, lambda t: np.cos(t) * t + np.sin(t)),
             2: (lambda t: 3.0 * t, lambda t: 3.0 + 0.0 * t)}[k]
    return dg(g(x)) * dg(x)


CASES = [
    (act_choice, ("tanh",), lambda x: np.tanh(x) + x * (1 - np.tanh(x) ** 2)),
    (act_choice, ("square",), lambda x: 3 * x ** 2),
    (three_way, (0,), lambda x: _three_way_expected(x, 0)),
    (three_way, (1,), lambda x: _three_way_expected(x, 1)),
    (three_way, (2,), lambda x: _three_way_expected(x, 2)),
    (defined_in_a_loop, (), lambda x: 3.0 + 3.0 * np.cos(x)),
    (read_when_called, (), lambda x: 18.0 * x + 4.0),
    (calls_a_top_level_helper, (), lambda x: 2 * x - 2 * np.sin(x)),
]


@pytest.mark.parametrize("fn,extra,expected", CASES, ids=lambda v: getattr(v, "__name__", repr(v)))
def test_every_transform(fn, extra, expected):
    x = X.copy()
    grad = srcgrad.grad(fn)
    g = grad(x, *extra)
    assert type(g) is np.ndarray and g.dtype == np.float64 and g.shape == x.shape
    np.testing.assert_allclose(g, numerical_grad(lambda v: fn(v, *extra), (x,), 0), rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(g, expected(x), rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(grad(x, *extra), g)  # the specialized second call
    t = np.array([0.5, -1.5, 2.0])
    out, out_dot = srcgrad.jvp(fn, (x,) + extra, (t,) + (None,) * len(extra))
    np.testing.assert_allclose(out, fn(X, *extra), rtol=1e-12)
    np.testing.assert_allclose(out_dot, np.dot(g, t), rtol=1e-9)
    value, g2 = srcgrad.value_and_grad(fn)(x, *extra)
    assert value == fn(X, *extra)
    np.testing.assert_array_equal(g2, g)
    np.testing.assert_array_equal(x, X)


@pytest.mark.parametrize("fn", [act_choice, defined_in_a_loop, read_when_called, calls_a_top_level_helper],
                         ids=lambda f: f.__name__)
def test_with_check_and_hessian(fn):
    check(fn, X)
    check_hessian(fn, (X,), 0)


def test_hessian_by_hand():
    h = srcgrad.hessian(act_choice)(X, "square")
    np.testing.assert_allclose(h, np.diag(6 * X), rtol=1e-12)
    h = srcgrad.hessian(read_when_called)(X)
    np.testing.assert_allclose(h, 18.0 * np.eye(3), rtol=1e-12)


def test_the_generated_code_chooses_by_a_flag():
    text = srcgrad.source(srcgrad.grad(act_choice))
    assert "act_chosen = 0" in text and "act_chosen = 1" in text and "np.tanh(x)" in text


# --- what stays refused ---------------------------------------------------------------


def bound_another_way(x, smooth=False):
    act = np.tanh
    if not smooth:
        def act(t):  # refused here
            return np.maximum(t, 0.0)
    return np.sum(act(x))


def stored_in_a_loop(x):
    fs = []
    for i in range(3):
        def f(t):
            return t * i
        fs.append(f)  # refused here
    return np.sum(fs[0](x))


def inside_a_nested_function(x):
    def outer(t):
        if t[0] > 0:
            def inner(u):  # refused here
                return u * 2
            return inner(t)
        return t
    return np.sum(outer(x))


@pytest.mark.parametrize("fn,words", [
    (bound_another_way, "a `def` inside a block whose name `act` is also bound another way"),
    (stored_in_a_loop, "the nested function `f` is used as a value"),
    (inside_a_nested_function, "a `def` inside the nested function `outer` is not supported"),
], ids=lambda v: getattr(v, "__name__", ""))
def test_refused_at_the_line(fn, words):
    lines, first = inspect.getsourcelines(fn)
    line = first + next(k for k, text in enumerate(lines) if "refused here" in text)
    for transform in (srcgrad.grad, lambda f: srcgrad.jvp(f, (X,), (X,))):
        with pytest.raises(srcgrad.SrcGradError) as caught:
            transform(fn)(X) if transform is srcgrad.grad else transform(fn)
        assert words in str(caught.value)
        assert caught.value.lineno == line
