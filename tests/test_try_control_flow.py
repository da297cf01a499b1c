"""Branches and loops inside a `try` block (compiler/attempts.py): each path (the block
completing, an exception raised part-way through a branch or a loop and a handler
running, `else` and `finally`), gradients against central differences (float64) and the
analytic answer, jvp (the dot-product test), value_and_grad, vjp, the second call
(specialized code), Hessians against differences of the gradient, the arguments left as
they were, and the forms that stay refused."""

import numpy as np
import pytest

import srcgrad
from program_checks import check, check_every_transform, check_hessian
from test_try_except import check as check_some

LOG = []  # what `finally` blocks ran (appended to, never rebound)


def log_or_square(x):
    with np.errstate(all="raise"):
        try:
            if x[0] > 0:
                y = np.log(x)
            else:
                y = np.sqrt(x) * x[0]
        except FloatingPointError:
            y = x * x
    return np.sum(y)


@pytest.mark.parametrize("x, expected", [
    (np.array([0.5, 1.0, 2.0]), 1.0 / np.array([0.5, 1.0, 2.0])),  # log ran
    (np.array([0.5, -1.0, 2.0]), 2.0 * np.array([0.5, -1.0, 2.0])),  # log raised
    (np.array([-0.5, 1.0, 2.0]), None),  # sqrt raised on x[0] < 0
], ids=["log", "log-raised", "sqrt-raised"])
def test_a_branch_whose_call_raises(x, expected):
    if expected is None:
        expected = 2.0 * x
    check_every_transform(log_or_square, x, expected)


def reciprocal_sum(a, b):
    try:
        t = 0.0
        for i in range(3):
            t = t + a / (b - i)
    except ZeroDivisionError:
        t = t * 2.0 + a * a
    return t


@pytest.mark.parametrize("b, turns, raised", [(3.5, 3, False), (1.0, 1, True), (2.0, 2, True), (0.0, 0, True)],
                         ids=["completes", "after-one", "after-two", "at-once"])
def test_a_loop_that_raises_part_way(b, turns, raised):
    """The handler sees `t` as the turns that completed left it."""
    a = 1.5
    t = sum(a / (b - i) for i in range(turns))
    dt_da = sum(1.0 / (b - i) for i in range(turns))
    dt_db = sum(-a / (b - i) ** 2 for i in range(turns))
    expected = [2.0 * dt_da + 2.0 * a, 2.0 * dt_db] if raised else [dt_da, dt_db]
    # where b - i is 0, b's differences cross the jump: against the analytic answer only
    check_some(reciprocal_sum, (a, b), (0,) if raised else (0, 1), expected)
    grads = srcgrad.grad(reciprocal_sum, wrt=(0, 1))
    np.testing.assert_allclose(grads(a, b), expected, rtol=1e-12)
    assert grads(a, b) == grads(a, b)  # the second call: the specialized code
    value, _ = srcgrad.value_and_grad(reciprocal_sum)(a, b)
    assert value == reciprocal_sum(a, b) == (2.0 * t + a * a if raised else t)
    check_hessian(reciprocal_sum, (a, b), 0)


def powers(x, n):
    t = 1.0
    k = 0
    try:
        while k < n:
            t = t * x
            if t > 100.0:
                raise ValueError("too large")
            k = k + 1
    except ValueError:
        t = t + 1.0
    else:
        t = t * 3.0
    finally:
        LOG.append(k)
        t = t + x
    return t


@pytest.mark.parametrize("x, n, turns, expected", [
    (2.0, 2.5, 3, 9.0 * 2.0 ** 2 + 1.0),  # else: 3x^3 + x
    (5.0, 4.5, 2, 3 * 25.0 + 1.0),  # raised in the third turn, k at 2: x^3 + 1 + x
    (1.5, 3.5, 4, 12.0 * 1.5 ** 3 + 1.0),  # else: 3x^4 + x
], ids=["else", "raised", "else-4"])
def test_a_while_loop_with_else_and_finally(x, n, turns, expected):
    LOG.clear()
    check(powers, x, n, expected=[expected, 0.0])
    assert set(LOG) == {turns}
    check_hessian(powers, (x, n), 0)


def scaled_rows(x, weights, names):
    total = 0.0
    try:
        for i in range(len(names)):
            s = np.sin(x[i])
            if names[i] == "skip":
                continue
            for j in range(2):
                s = s * x[i] + weights[names[i]]
            if s > 50.0:
                break
            total = total + s
    except KeyError:
        total = total * x[0]
    else:
        total = total + x[1]
    return total


def test_nested_loops_continue_and_break_in_the_try_block():
    weights = {"a": 0.5, "b": -1.5, "c": 2.0}
    x = np.array([0.3, -0.7, 1.1])
    for names in (["a", "b", "c"], ["a", "zz", "c"], ["skip", "b", "zz"], ["a", "skip", "c"]):
        check(lambda x: scaled_rows(x, weights, names), x)
    check_every_transform(lambda x: scaled_rows(x, weights, ["a", "zz", "c"]), x)


def returns_from_a_branch(x, options):
    try:
        if x[0] > 0:
            return np.sum(x * options["scale"])
        y = x * 2.0
    except KeyError:
        return np.sum(np.sin(x))
    return np.sum(y * y)


@pytest.mark.parametrize("x, options, expected", [
    (np.array([0.5, -1.0, 2.0]), {"scale": 2.0}, np.full(3, 2.0)),
    (np.array([0.5, -1.0, 2.0]), {}, np.cos(np.array([0.5, -1.0, 2.0]))),
    (np.array([-0.5, -1.0, 2.0]), {}, 8.0 * np.array([-0.5, -1.0, 2.0])),
], ids=["returned", "handler-returned", "fell-through"])
def test_a_return_inside_a_branch(x, options, expected):
    check_every_transform(lambda x: returns_from_a_branch(x, options), x, expected)


def over_logs(x):
    t = 0.0
    with np.errstate(all="raise"):
        try:
            for v in np.log(x):
                t = t + v * v
            else:
                t = t + 1.0
        except FloatingPointError:
            t = np.sum(x ** 3)
    return t


@pytest.mark.parametrize("x", [np.array([0.5, 2.0, 3.0]), np.array([0.5, -2.0, 3.0])], ids=["loop", "iterable-raised"])
def test_an_iterable_that_raises(x):
    expected = 2.0 * np.log(x) / x if np.all(x > 0) else 3.0 * x * x
    check_every_transform(over_logs, x, expected)


def ratios(x):
    ys = []
    try:
        for i in range(3):
            ys.append(x[i] / x[i + 1])
    except (ZeroDivisionError, IndexError):
        ys.append(x[0])
    return sum(ys)


def test_appends_before_an_index_error():
    x = np.array([1.0, 2.0, 3.0])  # x[3] raises in the third turn: two ratios and x[0]
    check_every_transform(ratios, x, np.array([0.5 + 1.0, -0.25 + 1.0 / 3.0, -2.0 / 9.0]))
    check_every_transform(ratios, np.array([1.0, 2.0, 3.0, 4.0]))


def first_over_one(x, shift):
    try:
        for i in range(len(x)):
            v = x[i] * x[i] * (1.0 / (shift - i))
            if v > 1.0:
                return v * x[0]
    except ZeroDivisionError:
        return np.sum(x) * 3.0
    return np.sum(x ** 3)


@pytest.mark.parametrize("x, shift, expected", [
    (np.array([0.5, 2.5, 0.3]), 5.0, [1.5625, 0.625, 0.0]),  # returned from the second turn
    (np.array([0.5, 2.5, 0.3]), 1.0, [3.0, 3.0, 3.0]),  # 1.0 / 0.0 in the second turn
    (np.array([0.5, 0.5, 0.3]), 7.0, 3.0 * np.array([0.5, 0.5, 0.3]) ** 2),  # the loop ran out
], ids=["returned", "raised", "ran-out"])
def test_a_return_inside_a_loop(x, shift, expected):
    """The return in a loop saves values on the tape before its statement may raise: the
    handler drops them (`tape[mark:] = []`), as the backward pass skips that statement."""
    check_some(first_over_one, (x, shift), (0,), [np.array(expected)])
    check_hessian(first_over_one, (x, shift), 0)
    assert "tape[tape_length:] = []" in srcgrad.source(srcgrad.grad(first_over_one))


def conditional_expression_in_a_loop(x, c):
    t = 0.0
    try:
        for i in range(3):
            t = t * x[i] + 1.0 / (c - i) + (x[0] if t > 0.5 else x[1])
    except ZeroDivisionError:
        t = t * 3.0
    return t


def as_if_statements(x, c):
    t = 0.0
    try:
        for i in range(3):
            if t > 0.5:
                u = x[0]
            else:
                u = x[1]
            t = t * x[i] + 1.0 / (c - i) + u
    except ZeroDivisionError:
        t = t * 3.0
    return t


def test_a_conditional_expression_saving_before_it_may_raise_is_refused():
    with pytest.raises(srcgrad.SrcGradError, match="branches or loops within itself") as info:
        srcgrad.grad(conditional_expression_in_a_loop)(np.array([1.5, 2.0, 0.4]), 1.0)
    assert info.value.lineno == conditional_expression_in_a_loop.__code__.co_firstlineno + 4
    x = np.array([1.5, 2.0, 0.4])
    for c, expected in ((1.0, [0.0, 3.0, 0.0]), (2.0, [3.0, 13.5, 0.0]), (5.0, None)):  # raised at once, later, never
        if expected is None:
            expected = [1.4, 1.68, 6.15]
        check_some(as_if_statements, (x, c), (0,), [np.array(expected)])


def over_enumerated_logs(x):
    t = 0.0
    with np.errstate(all="raise"):
        try:
            for i, v in enumerate(np.log(x)):
                t = t * v + i
        except FloatingPointError:
            t = t + np.sum(x ** 2)
    return t


def over_sorted_pairs(x):
    t = 0.0
    with np.errstate(all="raise"):
        try:
            for a, b in sorted(zip(x, np.log(x)), key=lambda p: p[1]):
                t = t * a + np.log(b + 2.0)
        except FloatingPointError:
            t = t - np.sum(x ** 2)
    return t


@pytest.mark.parametrize("fn, x, expected", [
    (over_enumerated_logs, np.array([1.5, 2.0, 0.4]), [0.0, 0.0, 2.5]),  # t = log(x2) + 2
    (over_enumerated_logs, np.array([1.5, -2.0, 0.4]), [3.0, -4.0, 0.8]),  # np.log(x) raised: t = 0
    (over_sorted_pairs, np.array([1.5, 2.0, 0.4]), None),
    (over_sorted_pairs, np.array([1.5, 2.0, 0.1]), [-3.0, -4.0, -0.2]),  # log(log(0.1) + 2) raised in the first turn
    (over_sorted_pairs, np.array([1.5, -2.0, 0.4]), [-3.0, 4.0, -0.8]),  # np.log(x) raised
], ids=["enumerate", "enumerate-raised", "sorted-zip", "sorted-zip-raised-in-turn", "sorted-zip-raised-at-once"])
def test_loops_over_computed_sequences(fn, x, expected):
    """The iterable's arguments are computed by marked branches of their own, the
    `enumerate`/`zip` kept in the `for` line; sorted_loops.py's lists before the loop too."""
    check_every_transform(fn, x, None if expected is None else np.array(expected))


def loop_variable_in_the_handler(x):
    t = 0.0
    try:
        for i in range(5):
            t = t + x[i] * x[i]
    except IndexError:
        t = t * i
    return t


def test_the_handler_sees_the_loop_variable_of_the_turn_that_raised():
    x = np.array([0.5, 1.0, 2.0])  # x[3] raises in the fourth turn: i is 3
    assert loop_variable_in_the_handler(x) == 3 * np.sum(x * x)
    check_every_transform(loop_variable_in_the_handler, x, 6.0 * x)


def appended_ratios(x, c):
    ys = []
    try:
        for i in range(3):
            ys.append(x[i] * x[i] * (1.0 / (c - i)))
    except ZeroDivisionError:
        ys.append(x[0] * 5.0)
    return sum(ys)


@pytest.mark.parametrize("c", [1.0, 2.0, 5.0], ids=["second-turn", "third-turn", "completes"])
def test_appends_in_a_loop_that_raises(c):
    """The list keeps the entries of the turns that completed; the user's `ys.append` is
    not taken for the tape (whose pushes before the raise the handler drops)."""
    x = np.array([0.5, 1.5, 2.0])
    turns = min(3, int(c))
    expected = np.array([2.0 * x[i] / (c - i) if i < turns else 0.0 for i in range(3)])
    if c < 3:
        expected[0] += 5.0
    check_some(appended_ratios, (x, c), (0,), [expected])
    check_hessian(appended_ratios, (x, c), 0)
