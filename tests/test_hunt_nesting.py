"""Small nested loops found by enumerating programs rather than sampling them.

A `for` over a range (or another iterable with no gradient) rebinds its target at every
iteration; where the target holds a differentiated value elsewhere (assigned before the
loop, or rebound by a nested loop over differentiated values), the body's reads of it
add to its adjoint. The backward pass of the loop kept that adjoint from one iteration
to the previous one and past the loop, so the adjoint of a value the header had already
replaced reached the assignment that made it: `u = b * 0.5` then `for u in range(2):
b = b * a + u` gave d/db 0.74 (true a * a = 0.09) without a word. The header now ends
the target's adjoint at every backward iteration, as any assignment does.
"""

import numpy as np

import srcgrad
from program_checks import check, check_hessian


def target_assigned_before_a_range_loop(a, b):
    u = b * 0.5
    for u in range(2):
        b = b * a + u
    return b


def test_a_range_loop_replaces_the_targets_earlier_value():
    # b a^2 + 1: (2 a b, a^2); was (0.42, 0.74)
    check(target_assigned_before_a_range_loop, 0.3, 0.7, expected=(0.42, 0.09))


def target_read_after_the_range_loop(a, b):
    u = b * 0.5
    for u in range(2):
        b = b * a + u
    return b + u


def test_the_target_read_after_the_loop_is_the_last_index():
    # b a^2 + 2: (2 a b, a^2); was (0.42, 1.24)
    check(target_read_after_the_range_loop, 0.3, 0.7, expected=(0.42, 0.09))


def nested_loop_rebinds_the_outer_target(a, b):
    for u in range(2):
        b = b + u
        for u in [a]:
            b = b * u
    return b


def test_a_nested_loop_over_differentiated_values_rebinds_the_outer_target():
    # ((b + 0) a + 1) a = b a^2 + a: (2 a b + 1, a^2); was (1.72, 0.09)
    check(nested_loop_rebinds_the_outer_target, 0.3, 0.7, expected=(1.42, 0.09))
    assert srcgrad.jvp(nested_loop_rebinds_the_outer_target, (0.3, 0.7), (1.0, 0.0))[1] == 1.42


def outer_target_read_before_and_after(a, b):
    for u1 in range(3):
        t = b * u1
        for u1 in [a, b, a * b]:
            b = np.sin(b * u1) + 0.5 * b + 0.1 * a
    b = b * t
    return b * b + a


def test_the_outer_targets_value_read_before_the_nested_loop():
    # was (1.8392, 0.3986); differences give (1.8142, 0.3887)
    g_a, g_b = check(outer_target_read_before_and_after, 0.3, 0.7)
    assert abs(g_a - 1.8142312167) < 1e-8 and abs(g_b - 0.3886855801) < 1e-8


def test_the_hessian_through_a_rebound_target():
    square = lambda a, b: target_read_after_the_range_loop(a, b) ** 2  # noqa: E731
    # f = b a^2 + 2; the Hessian of f^2 is 2 (grad f grad f^T + f H_f), H_f = [[2b, 2a], [2a, 0]]
    check_hessian(square, (0.3, 0.7), wrt=1, expected=2.0 * 0.3 ** 4)
    h = np.array(srcgrad.hessian(square, wrt=(0, 1))(0.3, 0.7), dtype=float)
    f, fa, fb = 0.7 * 0.09 + 2.0, 0.42, 0.09
    expected = 2.0 * np.array([[fa * fa + f * 1.4, fa * fb + f * 0.6], [fb * fa + f * 0.6, fb * fb]])
    np.testing.assert_allclose(h, expected, rtol=1e-12)


# A range loop's target that the body assigns again (`u = u * b`) was pushed once, at the
# iteration's end, as an iteration-local value; the backward pass of `u = u * b` then read
# the body's value u * b where the forward pass had read the header's index.


def target_rebound_in_the_body(a, b):
    for u in range(2):
        u = u * b
    return u + a


def test_a_target_the_body_assigns_again():
    # the last iteration: 1 * b; was (1.0, 0.7)
    check(target_rebound_in_the_body, 0.3, 0.7, expected=(1.0, 1.0))


def target_rebound_and_read_after(a, b):
    for u in range(2):
        b = b * a
        u = u * b
    return b + u


def test_a_rebound_target_read_after_the_loop():
    # b a^2 + b a^2: (4 a b, 2 a^2); was (0.44646, 0.09567)
    check(target_rebound_and_read_after, 0.3, 0.7, expected=(0.84, 0.18))


def rebound_inner_target_read_after_both(a, b):
    for u1 in range(1):
        for u2 in range(3):
            b = np.sin(b * (0.5 + u2)) + 0.5 * b + 0.1 * a
            u2 = u2 * b
        b = b + 0.2 * u2
    b = b + 0.2 * u1 + 0.1 * u2
    return b * b + a


def test_a_rebound_inner_target_read_after_both_loops():
    # was (0.07413, -6.34193); differences give (-0.07939, -7.39353)
    g_a, g_b = check(rebound_inner_target_read_after_both, 0.3, 0.7)
    assert abs(g_a - -0.0793939223) < 1e-7 and abs(g_b - -7.3935264537) < 1e-7
    check_hessian(rebound_inner_target_read_after_both, (0.3, 0.7), wrt=1)


# The code specialized to a call took a range loop's target, assigned an array before the
# loop, for that array all along (the shape analysis dropped the loop's integer values),
# so `x * r` after the loop, r a float there, was taken to have x's shape: the gradient of
# x came back a NumPy scalar (the general code, and differences, give an array).


def array_then_range_target(a, x):
    s = a
    r = x * a
    for r in range(2):
        r = r * s
    return s + np.sum(r * x)


def test_a_range_target_first_assigned_an_array():
    x = np.array([0.2, -0.4, 0.5])
    grad = srcgrad.grad(array_then_range_target, wrt=(0, 1))
    for _ in range(2):  # the general code, then the code specialized to this call
        g_a, g_x = grad(0.3, x)
        assert type(g_x) is np.ndarray and g_x.shape == (3,) and g_x.dtype == np.float64
        # s + a sum(x): (1 + sum(x), a) -- was (1.3, np.float64(0.3)) from the specialized code
        np.testing.assert_allclose(g_x, [0.3, 0.3, 0.3], rtol=1e-15)
        assert abs(g_a - 1.3) < 1e-15
    check(array_then_range_target, 0.3, x, expected=(1.3, np.full(3, 0.3)))


def array_then_range_target_nested(a, x):
    s = a
    r = x * a
    for r in range(2):
        s = np.tanh(s + np.sum(r * x))
        r = r * s
        for q in range(2):
            s = np.sin(s + np.sum(r) * q)
    return s + np.sum(r * x)


def test_a_range_target_first_assigned_an_array_with_a_nested_loop():
    x = np.array([0.2, -0.4, 0.5])
    srcgrad.grad(array_then_range_target_nested, wrt=(0, 1))(0.3, x)  # the general code first
    g_a, g_x = check(array_then_range_target_nested, 0.3, x)
    # was (1.40186, [2.19259] * 3); differences give (0.77103, [1.44220] * 3)
    assert abs(g_a - 0.7710279534) < 1e-8
    np.testing.assert_allclose(g_x, np.full(3, 1.4421983), rtol=1e-7)
