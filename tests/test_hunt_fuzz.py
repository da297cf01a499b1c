"""Wrong derivatives found by tests/compiler_fuzz.py, each minimized to the construct
that caused it, checked against central differences, the dot-product test and, where
it went wrong, the analytic answer."""

from collections import namedtuple

import numpy as np
import pytest

import srcgrad
from conftest import numerical_grad
from program_checks import check, check_hessian

P = namedtuple("P", "w b")


def _starred_unpack_rereads(a, b):
    s = 0.0
    for _ in range(2):
        b, *rest = [a * 2.0, b, 0.25]
        s = s + b * rest[0]
    return s


def test_starred_unpack_of_a_display_reads_the_old_value_of_its_target():
    # was: value 0.72 and gradient (4.8, 0.0), `rest` read the new `b`; now 0.78 and (3.8, 0.6)
    value, grads = srcgrad.value_and_grad(_starred_unpack_rereads, wrt=(0, 1))(0.3, 0.7)
    assert np.isclose(value, 0.78)
    check(_starred_unpack_rereads, 0.3, 0.7, expected=(3.8, 0.6))


def _starred_unpack_straight(a, b):
    a, *rest = (np.tanh(b), a, 0.25)
    return a + b + rest[0]


def test_starred_unpack_of_a_display_naming_its_target_runs():
    # was: UnboundLocalError in the derivative (`a_1 = (tanh_b, a_1, 0.25)[0]`)
    check(_starred_unpack_straight, 0.3, 0.7, expected=(1.0, 2.0 - np.tanh(0.7) ** 2))


def _replace_of_a_constant_record(a, M):
    R = P(w=a, b=2.0)
    R = R._replace(b=R.b * np.mean(M))
    return R.b * M


def test_jvp_of_replace_on_a_record_without_tangent_keeps_the_new_field_tangent():
    # was: out_dot [4, 0, 0] (the tangent of `R._replace(b=...)` dropped when R has none); now [4.667, 1.333, 2]
    M = np.array([1.0, 2.0, 3.0])
    out, out_dot = srcgrad.jvp(_replace_of_a_constant_record, (0.3, M), (None, np.array([1.0, 0.0, 0.0])))
    np.testing.assert_allclose(out_dot, [4.0 + 2.0 / 3.0, 4.0 / 3.0, 2.0])
    forward = srcgrad.jacobian(_replace_of_a_constant_record, wrt=1, mode="forward")(0.3, M)
    reverse = srcgrad.jacobian(_replace_of_a_constant_record, wrt=1, mode="reverse")(0.3, M)
    np.testing.assert_allclose(forward, reverse)


WEIGHTS = np.array([1.0, 2.0, 3.0])


def _reversed_in_place(x):
    v = np.sin(x)
    v[::-1] = v
    return np.sum(v * WEIGHTS)


def _reversed_in_place_in_a_loop(x):
    v = np.sin(x)
    for _ in range(2):
        v[::-1] = v
        v[1:] = v[1:] * x[0]
    return np.sum(v * WEIGHTS)


def test_slice_assignment_of_the_array_itself():
    # was: gradient [0, 0, 0] (the value's part of the adjoint added, then cleared with the
    # written part); now cos(x) * [3, 2, 1]
    x = np.array([0.2, -0.5, 0.9])
    check(_reversed_in_place, x, expected=(np.cos(x) * WEIGHTS[::-1],))
    check(_reversed_in_place_in_a_loop, x)


def _alias_write_after_product(a, c):
    y = np.ones(3) * 0.5
    s = np.mean(c * y)
    z = y
    z[1] = 2.0
    return a * s + np.sum(y)


def _view_write_after_product(a, c):
    y = np.ones(3) * 0.5
    s = np.mean(c * y)
    z = y[1:]
    z[0] = 2.0
    return a * s + np.sum(y)


def _list_entry_write_after_product(a, c):
    y = np.ones(3) * 0.5
    s = np.mean(c * y)
    held = [y, 1.0]
    held[0][1] = 2.0
    return a * s + np.sum(y)


def _dict_entry_write_after_product(a, c):
    y = np.ones(3) * 0.5
    s = np.mean(c * y)
    held = {"k": y}
    held["k"][1] = 2.0
    return a * s + np.sum(y)


def _loop_alias_write_after_product(a, c):
    y = np.ones(3) * 0.5
    s = 0.0
    for i in range(2):
        s = s + np.mean(c * y)
        z = y
        z[i] = 2.0 + i
    return a * s + np.sum(y)


def test_write_through_an_alias_of_a_constant_array_is_undone_for_the_backward_pass():
    # was: c's gradient 1/3 each (the product's backward pass read y after `z[1] = 2.0` wrote
    # it through another name, a view, a list's or a dict's entry); now 1/6, y as `c * y` saw it
    c = np.array([[0.3], [-0.2], [0.9]])
    for fn in (_alias_write_after_product, _view_write_after_product, _list_entry_write_after_product,
               _dict_entry_write_after_product):
        check(fn, 0.7, c, expected=(np.mean(c * 0.5), np.full((3, 1), 0.7 / 6)))
    # was: value 5.733 (`c * y` and its mean moved before the loop, as if `z[i] = ...` left y
    # alone) and a's gradient 1/3; now 5.85 and 1/2: the first pass reads y = (0.5, 0.5, 0.5),
    # the second (2.0, 0.5, 0.5)
    value, _ = srcgrad.value_and_grad(_loop_alias_write_after_product, wrt=(0, 1))(0.7, c)
    assert np.isclose(value, _loop_alias_write_after_product(0.7, c.copy()))
    out, _ = srcgrad.jvp(_loop_alias_write_after_product, (0.7, c), (1.0, np.ones((3, 1))))
    assert np.isclose(out, value)
    check(_loop_alias_write_after_product, 0.7, c, expected=(np.mean(c * 0.5) + np.mean(c * [2.0, 0.5, 0.5]),
                                                             np.full((3, 1), 0.7 * (1.5 + 3.0) / 9)))


def _fill_of_a_slice_after_product(a, c):
    y = np.ones(3) * 0.5
    s = np.mean(c * y)
    y[1:].fill(2.0)
    return a * s + np.sum(y)


def _copyto_a_slice_after_product(a, c):
    y = np.ones(3) * 0.5
    s = np.mean(c * y)
    np.copyto(y[1:], 2.0)
    return a * s + np.sum(y)


def _out_slice_after_product(a, c):
    y = np.ones(3) * 0.5
    s = np.mean(c * y)
    np.add(y[1:], 1.5, out=y[1:])
    return a * s + np.sum(y)


def test_numpy_call_writing_into_a_slice_of_a_constant_array_is_undone_for_the_backward_pass():
    # was: c's gradient 0.35 each (`.fill`, `np.copyto`, `out=` into `y[1:]` were left as calls,
    # and the backward pass of `c * y` read y as they left it); now 0.7 / 6, as `y[1:][...] = v`
    c = np.array([[0.3], [-0.2], [0.9]])
    for fn in (_fill_of_a_slice_after_product, _copyto_a_slice_after_product, _out_slice_after_product):
        check(fn, 0.7, c, expected=(np.mean(c * 0.5), np.full((3, 1), 0.7 / 6)))


def _augmented_in_a_loop_then_assigned_in_try(a, b):
    D = {"p": 0.0}
    if b > 0.3:
        for _ in range(1):
            a -= np.cos(b)
    if b > 10.0:
        b = b * 2.0
    else:
        try:
            a = D["missing"] * 0.5
        except KeyError:
            a = np.cos(a + b)
    return a + b


def test_augmented_assignment_before_a_try_assigning_the_same_name():
    # the may-share check of `a -= ...` once named `a_value`, the name attempts.py gives the value the
    # later `try` block computes, before it was bound (UnboundLocalError)
    check(_augmented_in_a_loop_then_assigned_in_try, -0.5, 0.7,
          expected=(-np.sin(-0.5 - np.cos(0.7) + 0.7), 1.0 - np.sin(-0.5 - np.cos(0.7) + 0.7) * (1.0 + np.sin(0.7))))
    np.testing.assert_allclose(srcgrad.grad(_augmented_in_a_loop_then_assigned_in_try, wrt=(0, 1))(-0.5, 0.7),
                               srcgrad.grad(_augmented_in_a_loop_then_assigned_in_try, wrt=(0, 1))(-0.5, 0.7), rtol=0)


def _augmented_in_a_loop_then_aliased_after(x):
    a = x * 1.0
    s = 0.0
    for _ in range(3):
        a -= x * 0.1
        s = s + np.sum(a * x)
    c = a * 2.0
    a = c  # an alias made after the `-=`: nothing to check there (`c` is not bound yet)
    return s + np.sum(c)


def test_augmented_assignment_before_an_alias_of_its_target():
    x = np.array([1.0, -2.0, 0.5])
    # a = x (0.9, 0.8, 0.7) in the loop: s = 2.4 |x|^2; c = 1.4 x
    for _ in range(2):  # the general code, then the specialized
        check(_augmented_in_a_loop_then_aliased_after, x, expected=(4.8 * x + 1.4,))
    check_hessian(_augmented_in_a_loop_then_aliased_after, (x,), 0, expected=4.8 * np.eye(3))


def _enumerate_zip_of_a_display(x, a):
    s = a
    for u, (t, r) in enumerate(zip(x, [a, 1.0, 2.0]), 2):
        s = s + t * r * u
    return s


def _enumerate_zip_of_a_tuple_display(x, a):
    s = 0.0
    for u, pair in enumerate(zip((a, 2.0, 3.0), np.sin(x))):
        s = s + pair[0] * pair[1] * (u + 1)
    return s


def test_enumerate_of_zip_with_a_list_display_is_read_by_index():
    # was: refused ("no derivative rule for `zip`"), the display not named as zip's
    # other arguments are; now a + 2 x0 a + 3 x1 + 8 x2
    x = np.array([0.3, -0.7, 1.1])
    f = srcgrad.value_and_grad(_enumerate_zip_of_a_display, wrt=(0, 1))
    for _ in range(2):  # the second call runs the code specialized to the call
        value, _grads = f(x, 0.4)
        assert np.isclose(value, 0.4 + 2 * 0.3 * 0.4 - 3 * 0.7 + 8 * 1.1)
    check(_enumerate_zip_of_a_display, x, 0.4, expected=(np.array([0.8, 3.0, 8.0]), 1.0 + 2 * 0.3))
    g = (np.array([0.4, 4.0, 9.0]) * np.cos(x), np.sin(0.3))  # a sin(x0) + 4 sin(x1) + 9 sin(x2)
    check(_enumerate_zip_of_a_tuple_display, x, 0.4, expected=g)


def _returns_from_two_loops(x):
    t = 0.1 * x[1]
    for i in range(3):
        if t > 5.0:
            return t
    k = 0
    while k < 3:
        if t > 0.0:
            return t * x[0]
        k = k + 1
    return t


def test_returns_from_two_loops():
    # was an AssertionError ("ANF post-condition: a branch never reassigns its own test"):
    # jumps.py guards the code after the first loop with `if returned:`, and the second
    # loop's `return` sets `returned` inside that branch; ANF now tests a copy
    x = np.array([0.5, 1.0, 2.0])
    check(_returns_from_two_loops, x, expected=(np.array([0.1 * x[1], 0.1 * x[0], 0.0]),))
    check_hessian(_returns_from_two_loops, (x,), 0)
    y = np.array([0.5, -1.0, 2.0])  # t < 0: falls through both loops
    check(_returns_from_two_loops, y, expected=(np.array([0.0, 0.1, 0.0]),))


def _swap_then_try(x):
    v = x * 1.0
    v[0], v[1] = v[1], v[0]
    t = 1.0
    try:
        for i in range(4):
            t = x[i] * 2.0
    except IndexError:
        t = t * x[0]
    return np.sum(v * v) * t


def test_a_tuple_write_beside_a_try_block_with_handlers():
    # was a TypeError (list + tuple) in respelling.respell_blocks, which walks a try
    # statement's handlers (a list) beside a match statement's cases
    x = np.array([0.5, -1.0, 2.0])
    check(_swap_then_try, x, expected=(np.array([23.0, -4.0, 13.25]),))
    check_hessian(_swap_then_try, (x,), 0)


def _scatter_and_a_loop_over_functions(x, fs):
    y = np.zeros(3)
    h = x[1]
    for i in range(len(fs)):
        h = fs[i](h)
    np.add.at(y, [0, 2, 0], np.array([np.sin(t) if t > 0.2 else t * x[0] for t in x]))
    return h + np.sum(y * y)


def _scatter_and_a_while_loop_in_a_try_block(x, c):
    y = np.zeros(3)
    t = 0.0
    try:
        k = 0
        while k < 2:
            t = t + x[k] * (1.0 / (c - k))
            k = k + 1
    except ZeroDivisionError:
        t = t * 2.0
    np.add.at(y, [0, 2, 0], x * 2.0)
    return t + np.sum(y * y)


def test_a_block_rewritten_for_a_scatter_keeps_its_loops_without_else():
    # idioms.py gave every loop of a function it respelled (here for np.add.at) an
    # `else: pass`: the loop over a list of functions was refused as unrolled with an
    # `else:` block, the while loop as "a `while` loop with an `else` block inside a `try`"
    x = np.array([0.5, -1.0, 2.0])
    g = srcgrad.grad(_scatter_and_a_loop_over_functions)(x, [np.sin, np.cos])
    y0 = np.sin(0.5) + np.sin(2.0)  # the entries for x[0] and x[2] (above 0.2)
    y2 = -1.0 * 0.5  # x[1] * x[0]
    expected = np.array([2 * y0 * np.cos(0.5) + 2 * y2 * -1.0, 2 * y2 * 0.5 - np.sin(np.sin(-1.0)) * np.cos(-1.0),
                         2 * y0 * np.cos(2.0)])
    np.testing.assert_allclose(g, expected, rtol=1e-12)
    np.testing.assert_allclose(g, numerical_grad(_scatter_and_a_loop_over_functions, (x, [np.sin, np.cos]), 0),
                               rtol=1e-6, atol=1e-7)
    _, tangent = srcgrad.jvp(_scatter_and_a_loop_over_functions, (x, [np.sin, np.cos]), (np.ones(3), None))
    assert tangent == pytest.approx(np.sum(g), rel=1e-12)
    g = srcgrad.grad(_scatter_and_a_while_loop_in_a_try_block)(x, 1.0)  # raised in the second turn
    np.testing.assert_allclose(g, [22.0, -8.0, 20.0], rtol=1e-14)
    np.testing.assert_allclose(g, numerical_grad(_scatter_and_a_while_loop_in_a_try_block, (x, 1.0), 0), rtol=1e-6)
    check(_scatter_and_a_while_loop_in_a_try_block, x, 3.5)
