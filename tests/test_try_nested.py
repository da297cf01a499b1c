"""A `try` nested in a `try` block (at any depth, in its branches and loops) and a
`while ... else` loop in a `try` block (compiler/attempts.py), both refused before: each
path (the inner handler taking the exception, the inner block raising what only the
outer handlers take, an exception neither takes leaving the function, `finally` blocks,
the `else` block after the loop's test ended it, not after a `break` or an exception),
gradients against central differences (float64) and the analytic answer, jvp,
value_and_grad and vjp (test_try_except.check), Hessians against differences of the
gradient, and the generated forward pass keeping readable nested `try` statements."""

import numpy as np
import pytest

import srcgrad
from program_checks import check_hessian
from test_try_except import check

LOG = []  # what `finally` blocks ran (appended to, never rebound)
X = np.array([0.3, -0.7, 1.1])


def layered(x, table, key):
    try:
        try:
            w = table[key]  # KeyError: the inner handler; TypeError: the outer one
        except KeyError:
            w = 2.0 * x[0]
        y = w * np.sin(x)
    except TypeError:
        y = x * x[1]
    return np.sum(y)


@pytest.mark.parametrize("key", ["a", "b", ["a"]], ids=["completes", "inner-handler", "outer-handler"])
def test_a_try_in_a_try_block(key):
    table = {"a": 3.0}
    if key == "a":
        expected = 3.0 * np.cos(X)
    elif key == "b":
        expected = 2.0 * X[0] * np.cos(X) + [2.0 * np.sum(np.sin(X)), 0.0, 0.0]
    else:
        expected = X[1] + np.array([0.0, np.sum(X), 0.0])
    check(layered, (X, table, key), (0,), [expected])
    check_hessian(layered, (X, table, key), 0)


def test_an_exception_neither_handler_takes_leaves_the_function():
    class Odd(dict):
        def __getitem__(self, key):
            raise RuntimeError("odd")

    with pytest.raises(RuntimeError, match="odd"):
        srcgrad.grad(layered)(X, Odd(), "a")


def inner_finally(x, n):
    t = 0.0
    try:
        try:
            t = np.sum(x ** 2)
            t = t * [1.0, 2.0][n]  # IndexError for n = 2
        finally:
            LOG.append("inner")
            t = t + x[2]
        t = t * 3.0
    except IndexError:
        t = t - x[0]
    return t


@pytest.mark.parametrize("n, expected", [
    (1, 12.0 * X + [0.0, 0.0, 3.0]),  # 3 (2 sum(x^2) + x2)
    (2, 2.0 * X + [-1.0, 0.0, 1.0]),  # sum(x^2) + x2 - x0: the inner finally ran
], ids=["completes", "raised-through-finally"])
def test_an_inner_finally_runs_before_the_outer_handler(n, expected):
    LOG.clear()
    check(inner_finally, (X, n), (0,), [expected])
    assert LOG and set(LOG) == {"inner"}


def in_a_loop(x, c):
    total = 0.0
    try:
        for i in range(3):
            try:
                total = total + x[i] * (1.0 / (c - i))
            except ZeroDivisionError:
                total = total + x[i] * x[i]
            if total > 10.0:
                raise ValueError("large")
    except ValueError:
        total = total * 0.5
    return total


@pytest.mark.parametrize("c, expected", [
    (3.5, [1 / 3.5, 1 / 2.5, 1 / 1.5]),
    (1.0, [1.0, 2 * X[1], 1 / -1.0]),  # c - 1 == 0: the inner handler, in the second turn
], ids=["completes", "inner-handler-in-the-second-turn"])
def test_a_try_in_a_loop_in_a_try_block(c, expected):
    check(in_a_loop, (X, c), (0,), [np.array(expected)])


def test_an_outer_handler_after_a_turn_of_the_inner_one():
    x = np.array([4.0, 3.0, 1.0])  # 4 / 1, then 3 * 3 (c - 1 == 0): 13 > 10 after the second turn
    check(in_a_loop, (x, 1.0), (0,), [np.array([0.5, 3.0, 0.0])])


def three_deep(x, keys):
    try:
        try:
            try:
                v = {"a": x[0]}[keys[0]]  # KeyError, IndexError or TypeError
            except KeyError:
                v = x[1] * 2.0
            v = v * x[2]
        except IndexError:
            v = x[0] ** 3
    except TypeError:
        v = np.sum(x)
    return v


@pytest.mark.parametrize("keys, expected", [
    (["a"], [X[2], 0.0, X[0]]),
    (["b"], [0.0, 2.0 * X[2], 2.0 * X[1]]),
    ([], [3.0 * X[0] ** 2, 0.0, 0.0]),
    ([["a"]], [1.0, 1.0, 1.0]),
], ids=["completes", "innermost", "middle", "outermost"])
def test_three_levels(keys, expected):
    check(three_deep, (X, keys), (0,), [np.array(expected)])


def test_the_forward_pass_keeps_nested_try_statements():
    text = srcgrad.source(srcgrad.grad(layered))
    assert "except (KeyError, TypeError) as exc:" in text  # the inner block's, catching the outer's too
    assert "raise caught_1" in text  # what the inner handlers do not take, raised again
    assert text.count("except TypeError as exc:") >= 2


def powers(x, n, limit):
    t = 1.0
    k = 0
    try:
        while k < n:
            t = t * x
            if t > limit:
                break
            if t < -100.0:
                raise ValueError("too small")
            k = k + 1
        else:
            t = t * 3.0
    except ValueError:
        t = t + 1.0
    return t + x


@pytest.mark.parametrize("x, n, limit, expected", [
    (2.0, 2.5, 100.0, 9.0 * 4.0 + 1.0),  # 3 turns, then the else block: 3 x^3 + x
    (3.0, 5.5, 50.0, 4.0 * 27.0 + 1.0),  # broke in the fourth turn (81 > 50): x^4 + x
    (-5.0, 4.5, 1e9, 3.0 * 25.0 + 1.0),  # raised in the third turn (-125): x^3 + 1 + x
], ids=["else", "break", "raised"])
def test_a_while_loop_with_else_in_a_try_block(x, n, limit, expected):
    check(powers, (x, n, limit), (0,), [expected])
    check_hessian(powers, (x, n, limit), 0)


def while_else_in_a_nested_try(x):
    total = 0.0
    try:
        try:
            i = 0
            while i < 3:
                total = total + np.log(x[i])
                i = i + 1
            else:
                total = total * x[0]
        except FloatingPointError:
            total = total - x[1]
    except ValueError:
        total = 0.0
    return total


@pytest.mark.parametrize("x, expected", [
    (np.array([0.5, 2.0, 3.0]), None),
    (np.array([0.5, -2.0, 3.0]), np.array([2.0, -1.0, 0.0])),  # log(-2) raised: log(x0) - x1
], ids=["else", "raised"])
def test_a_while_else_in_a_nested_try(x, expected):
    if expected is None:
        s = np.sum(np.log(x))
        expected = x[0] / x + np.array([s, 0.0, 0.0])
    with np.errstate(invalid="raise"):
        check(while_else_in_a_nested_try, (x,), (0,), [expected])
