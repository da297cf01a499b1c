"""`np.add.at(y, index, v)` and `np.subtract.at` on an array the function makes:
histograms, finite-element assembly, message passing over a graph's edges.

idioms.py spells the call as the full write `y[...] = added_at(y, index, v)`, whose
rules (rules/scatter.py) send each place's gradient back to every entry of `v` added
there: repeated indices accumulate. Each program is checked against central differences
and its analytic gradient, forward mode against reverse mode, Hessians against
differences of the gradient; float32 stays float32 and inputs are left as they were.
Where another name or a view sees the array, or the array is an argument, the call is
refused at the user's line.
"""

import numpy as np
import pytest

import srcgrad
from program_checks import check, check_hessian

BINS = np.array([0, 2, 2, 1, 2])
ROWS = np.array([[0, 0], [1, 1]])  # element (0, 1) and element (1, 2) of a 1-D mesh
ELEMENTS = np.array([[0, 1], [1, 2]])
EDGES_FROM = np.array([0, 1, 2, 2, 0])
EDGES_TO = np.array([1, 2, 0, 1, 1])


def histogram(v):
    y = np.zeros(3)
    np.add.at(y, BINS, v * v)
    return np.sum(y * np.array([1.0, 2.0, 3.0]))


def histogram_onto_values(w, v):
    y = w * 2.0
    np.add.at(y, BINS, v)
    return np.sum(y ** 2)


def subtract_at(w, v):
    y = w.copy()
    np.subtract.at(y, BINS, v * w[0])
    return np.sum(y ** 2)


def scalar_added(w, s):
    y = w * 1.0
    np.add.at(y, [0, 0, 2], s)  # a scalar, added three times
    return np.sum(y ** 3)


def assemble_stiffness(k):
    n = 3
    K = np.zeros((n, n))
    for e in range(2):
        nodes = ELEMENTS[e]
        ke = k[e] * np.array([[1.0, -1.0], [-1.0, 1.0]])
        np.add.at(K, (nodes[:, None], nodes[None, :]), ke)
    u = np.array([0.0, 1.0, 3.0])
    return u @ K @ u


def message_passing(h, w):
    out = np.zeros_like(h)
    messages = np.tanh(h[EDGES_FROM] * w)
    np.add.at(out, EDGES_TO, messages)
    return np.sum(out ** 2) + np.sum(out * h)


def rows_added(x):
    y = np.zeros((3, 2))
    np.add.at(y, np.array([0, 2, 0]), x)  # rows of x added to rows of y
    return np.sum(np.sin(y))


def float32_histogram(v):
    y = np.zeros(3, dtype=np.float32)
    np.add.at(y, BINS, v * v)
    return np.sum(y * y)


V = np.array([0.5, -1.2, 0.8, 2.0, 0.3])
W = np.array([0.4, 1.1, -0.7])


def test_histogram_accumulates():
    expected = 2.0 * V * np.array([1.0, 3.0, 3.0, 2.0, 3.0])  # bin weight at each value's bin
    check(histogram, V, expected=(expected,))
    check_hessian(histogram, (V,), 0, np.diag(2.0 * np.array([1.0, 3.0, 3.0, 2.0, 3.0])))


def test_added_onto_a_computed_array():
    y = W * 2.0
    np.add.at(y, BINS, V)
    expected_w = 2.0 * y * 2.0
    expected_v = 2.0 * y[BINS]  # each value's bin, once per value
    check(histogram_onto_values, W, V, expected=(expected_w, expected_v))
    check_hessian(histogram_onto_values, (W, V), 1)


def test_subtract_at():
    check(subtract_at, W, V)
    check_hessian(subtract_at, (W, V), 0)


def test_scalar_added_at_repeated_indices():
    y = W.copy()
    np.add.at(y, [0, 0, 2], 0.3)
    g_s = 3.0 * (2 * y[0] ** 2 + y[2] ** 2)
    check(scalar_added, W, 0.3, expected=(3.0 * y ** 2, g_s))
    check_hessian(scalar_added, (W, 0.3), 1)


def test_finite_element_assembly():
    k = np.array([2.0, 5.0])
    check(assemble_stiffness, k, expected=(np.array([1.0, 4.0]),))  # (u1 - u0)^2, (u2 - u1)^2
    assert srcgrad.hessian(assemble_stiffness)(k) == pytest.approx(np.zeros((2, 2)))


def test_message_passing():
    h = np.array([0.3, -0.5, 0.9])
    check(message_passing, h, 0.7)
    check_hessian(message_passing, (h, 0.7), 0)


def test_rows_added_forward_jacobian():
    x = np.arange(6.0).reshape(3, 2) * 0.1
    check(rows_added, x)
    jac_forward = srcgrad.jacobian(rows_added, mode="forward")(x)
    np.testing.assert_allclose(jac_forward, srcgrad.grad(rows_added)(x), rtol=1e-12)


def test_float32_stays_float32():
    v = V.astype(np.float32)
    g = srcgrad.grad(float32_histogram)(v)
    assert g.dtype == np.float32
    y = np.zeros(3)
    np.add.at(y, BINS, V.astype(np.float32).astype(np.float64) ** 2)
    np.testing.assert_allclose(g, 4.0 * y[BINS] * v, rtol=1e-5)
    _, t = srcgrad.jvp(float32_histogram, (v,), (np.ones(5, np.float32),))
    assert np.asarray(t).dtype == np.float32


# --- refused: another name sees the array, or the array is an argument ----------------


def seen_by_another_name(v):
    y = np.zeros(3)
    z = y
    np.add.at(y, BINS, v)
    return np.sum(z * v[:3])


def seen_through_a_view(v):
    y = np.zeros(3)
    head = y[:2]
    np.add.at(y, BINS, v)
    return np.sum(head) + np.sum(y)


def into_the_argument(y, v):
    np.add.at(y, BINS, v)
    return np.sum(y)


def test_refused_where_another_name_sees_the_array():
    line = seen_by_another_name.__code__.co_firstlineno + 3
    with pytest.raises(srcgrad.NotDifferentiableError, match=rf"test_scatter_add\.py, line {line}\)"):
        srcgrad.grad(seen_by_another_name)(V)
    with pytest.raises(srcgrad.NotDifferentiableError, match=r"test_scatter_add\.py"):
        srcgrad.grad(seen_through_a_view)(V)
    with pytest.raises(srcgrad.NotDifferentiableError, match=r"np\.add\.at\(y, BINS, v\)"):
        srcgrad.jvp(seen_by_another_name, (V,), (V,))


def test_refused_into_an_argument():
    y = np.zeros(3)
    with pytest.raises(srcgrad.SrcGradError, match=r"test_scatter_add\.py"):
        srcgrad.grad(into_the_argument, wrt=1)(y, V)
    assert not y.any()
