"""srcgrad.jvp runs code specialized to the kind of call that builds sums and products in
place (compiler/accumulate.py): the same values, bit for bit, as the general code."""

import numpy as np

import srcgrad
from srcgrad.jacobians import _jvp_derivative


def rnn(W, b, x):
    h = np.zeros((2, 3))
    for t in range(4):
        h = np.tanh(h @ W + x[t] + b)
    return np.sum(h * h)


def widening(a, B):
    s = a * 2.0 + B  # a (3,) grows to B's (2, 3): not summed into a
    return np.sum(np.tanh(s) * B)


def mixed(a, c):
    return np.sum(np.exp(a * 2.0) + c)  # a float32, c float64: the sum is float64


def _both(fn, primals, tangents):
    out, out_dot = srcgrad.jvp(fn, primals, tangents)
    given = [t for t in tangents if t is not None]
    positions = tuple(i for i, t in enumerate(tangents) if t is not None)
    general = _jvp_derivative(fn, positions).function(*primals, *given)
    return (out, out_dot), general


def _specialized_code(fn, primals, tangents):
    """The text of the code specialized to this call, after checking that its values are
    the general code's, bit for bit, and its tangent a central difference's."""
    special, general = _both(fn, primals, tangents)
    assert special == general
    eps = 1e-6
    plus = fn(*(p + eps * t if t is not None else p for p, t in zip(primals, tangents)))
    minus = fn(*(p - eps * t if t is not None else p for p, t in zip(primals, tangents)))
    assert np.isclose(special[1], (plus - minus) / (2 * eps), rtol=1e-6)
    positions = tuple(i for i, t in enumerate(tangents) if t is not None)
    (code,) = [f.__srcgrad_source__ for f in _jvp_derivative(fn, positions).specialized.__srcgrad_specializations__.values()]
    return code


def test_rnn_in_place_gives_the_general_codes_values():
    rng = np.random.default_rng(0)
    primals = (rng.standard_normal((3, 3)), rng.standard_normal(3), rng.standard_normal((4, 2, 3)))
    tangents = (rng.standard_normal((3, 3)), rng.standard_normal(3), None)
    code = _specialized_code(rnn, primals, tangents)
    assert "        h_at_W_plus_x_t = h @ W\n" in code
    assert "        h_at_W_plus_x_t += x_t\n" in code
    assert "        h = np.tanh(_t1, out=_t1)\n" in code


def test_a_broadcast_operand_is_not_summed_into():
    rng = np.random.default_rng(1)
    primals = (rng.standard_normal(3), rng.standard_normal((2, 3)))
    tangents = (rng.standard_normal(3), rng.standard_normal((2, 3)))
    special, general = _both(widening, primals, tangents)
    assert special == general
    assert primals[0].shape == (3,)


def test_mixed_dtypes_keep_the_wider_result():
    rng = np.random.default_rng(2)
    primals = (rng.standard_normal(5).astype(np.float32), rng.standard_normal(5))
    tangents = (rng.standard_normal(5).astype(np.float32), rng.standard_normal(5))
    special, general = _both(mixed, primals, tangents)
    assert special == general
    assert type(special[1]) is np.float64


def running_sum(W, x):
    s = np.zeros((2, 3))
    for t in range(3):
        s = x[t] @ W + s  # `s` is read on the right: not summed into before it is read
        s = np.tanh(s) * 0.5 + s * s
    return np.sum(s)


def test_a_sum_reading_its_target_keeps_the_values():
    rng = np.random.default_rng(3)
    primals = (rng.standard_normal((4, 3)), rng.standard_normal((3, 2, 4)))
    tangents = (rng.standard_normal((4, 3)), rng.standard_normal((3, 2, 4)))
    special, general = _both(running_sum, primals, tangents)
    assert special == general
    eps = 1e-6
    plus = running_sum(*(p + eps * t for p, t in zip(primals, tangents)))
    minus = running_sum(*(p - eps * t for p, t in zip(primals, tangents)))
    assert np.isclose(special[1], (plus - minus) / (2 * eps), rtol=1e-6)


def squared_error(W, b, x, y):
    out = np.tanh(x @ W + b)
    return np.mean((out - y) ** 2)  # `- y`: a constant operand, its tangent passed on


def test_a_tangent_of_its_outputs_shape_is_passed_on_and_means_run_fast():
    """`broadcast_tangent(t, x)` of arrays of one shape and dtype is `t`; then each
    `np.mean` of a float array is `mean_of`: the same values, bit for bit."""
    rng = np.random.default_rng(4)
    primals = (rng.standard_normal((3, 2)), rng.standard_normal(2), rng.standard_normal((4, 3)),
               rng.standard_normal((4, 2)))
    tangents = (rng.standard_normal((3, 2)), rng.standard_normal(2), None, None)
    code = _specialized_code(squared_error, primals, tangents)
    assert "broadcast_tangent(" not in code and "np.mean(_" not in code and "np.mean(t" not in code
    assert "    out_minus_y_dot = out_dot\n" in code
    assert code.count("mean_of(") == 2
    assert "broadcast_tangent(" in _jvp_derivative(squared_error, (0, 1)).source  # the general code keeps it


def spread(a, C):
    return np.mean(np.sin(a + C))  # a (3,) broadcast to C's (2, 3): its tangent spread


def test_a_tangent_smaller_than_its_output_is_still_spread():
    rng = np.random.default_rng(5)
    primals = (rng.standard_normal(3), rng.standard_normal((2, 3)))
    tangents = (rng.standard_normal(3), None)
    assert "broadcast_tangent(" in _specialized_code(spread, primals, tangents)
