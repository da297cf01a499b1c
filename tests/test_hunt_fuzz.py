"""Wrong derivatives found by tests/compiler_fuzz.py, each minimized to the construct
that caused it, checked against central differences, the dot-product test and, where
it went wrong, the analytic answer."""

from collections import namedtuple

import numpy as np

import srcgrad
from program_checks import check

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
