"""A loop's target read after the loop, in an enclosing loop's body.

The backward pass of the inner loop brings its target back to each iteration's value,
ending at the first one; the backward pass of the enclosing loop's earlier iterations
then read the target there, where the forward pass had read the inner loop's last
value. `for u in [1.0, 2.0, 3.0]: b = b * u` then `b = b * u + a`, twice, gave
d/db 108 (true 324) without a word. The inner loop now saves the value its target
replaces and brings it back after its backward pass, as it does for a variable that
an earlier loop assigned.
"""

import numpy as np

import srcgrad
from program_checks import check, check_hessian


def scaled_twice(a, b):
    for i in range(2):
        for u in [1.0, 2.0, 3.0]:
            b = b * u
        b = b * u + a
    return b


def test_the_target_read_after_an_inner_loop_keeps_its_last_value():
    # b -> 18 b + a per outer iteration: 324 b + 19 a
    g_a, g_b = check(scaled_twice, 0.3, 0.7, expected=(19.0, 324.0))
    assert (g_a, g_b) == (19.0, 324.0)
    assert srcgrad.jvp(scaled_twice, (0.3, 0.7), (0.0, 1.0)) == (232.5, 324.0)


def test_the_hessian_through_the_inner_loops_target():
    square = lambda a, b: scaled_twice(a, b) ** 2  # noqa: E731
    h = srcgrad.hessian(square, wrt=(0, 1))(0.3, 0.7)
    assert np.allclose(np.array(h, dtype=float), 2.0 * np.outer([19.0, 324.0], [19.0, 324.0]), rtol=1e-12)
    check_hessian(square, (0.3, 0.7), wrt=1, expected=2.0 * 324.0 ** 2)
    check_hessian(square, (0.3, 0.7), wrt=0, expected=2.0 * 19.0 ** 2)


def closure_over_the_target(a, b):
    for i in range(2):
        for u in range(3):
            def g(t):
                return np.tanh(t * u + a)
            b = b + 0.5 * g(b)
        b = b + 0.25 * g(b)
    return b


def test_a_nested_function_reading_the_target_after_the_loop():
    # was (1.20847, 1.20129); differences give (1.20920, 1.20249)
    g_a, g_b = check(closure_over_the_target, 0.3, 0.7)
    assert abs(g_a - 1.2091955679) < 1e-8 and abs(g_b - 1.2024884635) < 1e-8


def rows_then_last_row(X, w):
    s = 0.0
    for k in range(2):
        for row in X:
            s = s + np.sum(np.sin(row * w))
        s = s + np.sum(row * w * w)
    return s


def test_an_array_row_target_read_after_the_loop():
    X = np.arange(6.0).reshape(3, 2) / 5.0
    w = np.array([0.3, -0.2])
    expected = 2.0 * (np.sum(X * np.cos(X * w), axis=0) + 2.0 * X[-1] * w)
    g = srcgrad.grad(rows_then_last_row, wrt=1)(X, w)
    assert g.dtype == np.float64 and g.shape == (2,)
    assert np.allclose(g, expected, rtol=1e-12, atol=0)
    check(rows_then_last_row, X, w)


def while_around_for(a, b):
    i = 0
    while i < 2:
        for u in [1.0, 2.0, 3.0]:
            b = b * u
        j = 0
        while j < 2:
            j += 1
            b = b * a
        b = b * u + a * j
        i += 1
    return b


def stopped_by_break(a, b):
    for i in range(2):
        for u in [1.0, 2.0, 3.0]:
            if u > 1.5:
                break
            b = b * u
        b = b * u + a
    return b


def test_a_while_loop_around_and_a_break_inside():
    # while_around_for: b -> 3 (6 b a^2) + 2 a per outer iteration
    a, b = 0.3, 0.7
    once = lambda b: 18.0 * b * a * a + 2.0 * a  # noqa: E731
    d_once_db, d_once_da = 18.0 * a * a, lambda b: 36.0 * b * a + 2.0  # noqa: E731
    b1 = once(b)
    expected = (d_once_da(b1) + d_once_db * d_once_da(b), d_once_db * d_once_db)
    g = check(while_around_for, a, b)
    assert np.allclose(g, expected, rtol=1e-12)
    # stopped_by_break: u stops at 2.0, b -> 2 b + a per outer iteration: 4 b + 3 a
    assert check(stopped_by_break, a, b) == (3.0, 4.0)
