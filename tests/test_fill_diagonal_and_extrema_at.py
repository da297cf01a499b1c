"""`np.fill_diagonal(M, v)`, `np.maximum.at` and `np.minimum.at` on arrays the function
makes: a covariance with a jittered diagonal, a segment maximum (max-pooling over a
graph's edges).

scatters.py spells each call as the full write `M[...] = filled_diagonal(M, v, wrap)`
(`y[...] = maximized_at(y, index, v)`), whose rules (rules/scatter.py) zero the
diagonal's gradient in `M` and sum it into the entries of `v` NumPy repeats along it, and
send a maximum's gradient to the entries that won, split evenly on ties. Each program is
checked against central differences and analytic values, forward mode against reverse
mode, Hessians against differences of the gradient; float32 stays float32 and inputs are
left as they were. Where another name sees the array the call is refused at its line.
"""

import numpy as np
import pytest

import srcgrad
from program_checks import check, check_hessian

WEIGHTS = np.arange(12.0).reshape(4, 3) * 0.5 + 1.0
TALL_WEIGHTS = np.arange(15.0).reshape(5, 3) * 0.5 + 1.0


def jittered(a, s):
    C = np.outer(a, a)
    np.fill_diagonal(C, a * a + s)  # an array v: one entry per place
    return np.sum(C * C) + np.sum(np.diagonal(C) ** 3)


def diagonal_scalar(M0, s):
    M = M0 * 1.0
    np.fill_diagonal(M, s)  # a scalar, repeated along the diagonal
    return np.sum(M ** 2 * WEIGHTS)


def repeated_values(M0, v):
    M = M0 * 2.0
    np.fill_diagonal(M, v, wrap=True)  # 5 x 3: places 0, 4, 8 and (wrapped) 12 take v0, v1, v0, v1
    return np.sum(np.sin(M) * TALL_WEIGHTS)


def cube_diagonal(T0, v):
    T = T0 + 0.0
    np.fill_diagonal(T, v)
    return np.sum(T ** 3)


EDGES_TO = np.array([0, 0, 2, 1, 2])


def segment_max(h0, m):
    y = h0 * 1.0
    np.maximum.at(y, EDGES_TO, m * m)
    return np.sum(y ** 3)


def segment_min(h0, m):
    y = np.full(3, 10.0)
    np.minimum.at(y, EDGES_TO, np.sin(m) + h0[EDGES_TO])
    return np.sum(y ** 2)


def float32_fill(M0, v):
    M = M0 * 1.0
    np.fill_diagonal(M, v)
    return np.sum(M * M)


def test_fill_diagonal_with_an_array():
    a, s = np.array([0.5, -1.0, 2.0]), 0.3
    d = a * a + s
    C = np.outer(a, a)
    np.fill_diagonal(C, d)
    off = 2.0 * C - np.diag(2.0 * d)  # d/dC of sum(C*C) off the diagonal
    g_diag = 2.0 * d + 3.0 * d ** 2
    expected_a = 2.0 * off @ a + g_diag * 2.0 * a
    check(jittered, a, s, expected=(expected_a, float(np.sum(g_diag))))
    check_hessian(jittered, (a, s), 0)
    check_hessian(jittered, (a, s), 1)


def test_fill_diagonal_with_a_scalar_on_a_non_square_array():
    M0 = np.arange(12.0).reshape(4, 3) * 0.1 - 0.4
    M = M0.copy()
    np.fill_diagonal(M, 0.7)
    expected_m = 2.0 * M * WEIGHTS
    expected_m[[0, 1, 2], [0, 1, 2]] = 0.0
    expected_s = 2.0 * 0.7 * (WEIGHTS[0, 0] + WEIGHTS[1, 1] + WEIGHTS[2, 2])
    check(diagonal_scalar, M0, 0.7, expected=(expected_m, expected_s))
    check_hessian(diagonal_scalar, (M0, 0.7), 1, np.array(2.0 * (WEIGHTS[0, 0] + WEIGHTS[1, 1] + WEIGHTS[2, 2])))


def test_fill_diagonal_repeats_v_and_wraps():
    M0 = np.arange(15.0).reshape(5, 3) * 0.1
    v = np.array([0.3, -0.6])
    M = M0 * 2.0
    np.fill_diagonal(M, v, wrap=True)  # places 0, 4, 8 and (after the wrap) 12: v0, v1, v0, v1
    dM = np.cos(M) * TALL_WEIGHTS
    expected_v = np.array([dM[0, 0] + dM[2, 2], dM[1, 1] + dM[4, 0]])
    expected_m = 2.0 * dM
    expected_m[[0, 1, 2, 4], [0, 1, 2, 0]] = 0.0
    check(repeated_values, M0, v, expected=(expected_m, expected_v))
    check_hessian(repeated_values, (M0, v), 1)
    jac_forward = srcgrad.jacobian(repeated_values, mode="forward", wrt=1)(M0, v)
    np.testing.assert_allclose(jac_forward, expected_v, rtol=1e-12)


def test_fill_diagonal_of_an_equal_sided_cube():
    T0 = np.arange(8.0).reshape(2, 2, 2) * 0.1
    v = np.array([1.5, -0.5, 2.0])  # longer than the diagonal: v[2] is never written
    T = T0.copy()
    np.fill_diagonal(T, v)
    expected_t = 3.0 * T ** 2
    expected_t[[0, 1], [0, 1], [0, 1]] = 0.0
    check(cube_diagonal, T0, v, expected=(expected_t, np.array([3 * 1.5 ** 2, 3 * 0.25, 0.0])))
    check_hessian(cube_diagonal, (T0, v), 1)


def test_segment_maximum():
    h0, m = np.array([0.5, 0.2, 3.0]), np.array([0.9, -1.1, 0.4, 2.0, 1.0])
    # place 0: max(0.5, 0.81, 1.21) = 1.21 (m[1]); place 1: max(0.2, 4.0) (m[3]); place 2: 3.0 (h0)
    expected_h = np.array([0.0, 0.0, 3.0 * 9.0])
    expected_m = np.array([0.0, 3 * 1.21 ** 2 * 2 * -1.1, 0.0, 3 * 16.0 * 4.0, 0.0])
    check(segment_max, h0, m, expected=(expected_h, expected_m))
    check_hessian(segment_max, (h0, m), 1)


def test_segment_minimum():
    h0, m = np.array([0.5, 0.2, 3.0]), np.array([0.9, -1.1, 0.4, 2.0, 1.0])
    check(segment_min, h0, m)
    check_hessian(segment_min, (h0, m), 1)
    check_hessian(segment_min, (h0, m), 0)


def test_a_tied_maximum_splits_its_gradient_evenly():
    h0, m = np.array([0.25, 0.2, 3.0]), np.array([0.5, -0.5, 0.4, 2.0, 1.0])
    # place 0: h0[0] = 0.25 = m[0]^2 = m[1]^2: three ways, a third each
    g_h, g_m = srcgrad.grad(segment_max, wrt=(0, 1))(h0, m)
    share = 3 * 0.25 ** 2 / 3.0
    np.testing.assert_allclose(g_h, [share, 0.0, 27.0])
    np.testing.assert_allclose(g_m, [share * 1.0, share * -1.0, 0.0, 3 * 16.0 * 4.0, 0.0])
    _, t = srcgrad.jvp(segment_max, (h0, m), (np.array([1.0, 0, 0]), np.zeros(5)))
    assert t == pytest.approx(share)


def test_float32_stays_float32():
    M0, v = np.ones((3, 3), np.float32), np.array([0.5, 2.0], np.float32)
    gM, gv = srcgrad.grad(float32_fill, wrt=(0, 1))(M0, v)
    assert gM.dtype == np.float32 and gv.dtype == np.float32
    np.testing.assert_allclose(gv, [2 * 0.5 + 2 * 0.5, 4.0])
    _, t = srcgrad.jvp(float32_fill, (M0, v), (M0, v))
    assert np.asarray(t).dtype == np.float32
    g = srcgrad.grad(segment_max, wrt=1)(np.ones(3, np.float32), np.ones(5, np.float32) * 0.5)
    assert g.dtype == np.float32


# --- refused: another name sees the array ---------------------------------------------


def fill_seen_by_another_name(a):
    C = np.outer(a, a)
    D = C
    np.fill_diagonal(C, a)
    return np.sum(D)


def max_seen_through_a_view(h0, m):
    y = h0 * 1.0
    head = y[:2]
    np.maximum.at(y, EDGES_TO, m)
    return np.sum(head)


def fill_into_the_argument(M, a):
    np.fill_diagonal(M, a)
    return np.sum(M)


def test_refused_where_another_name_sees_the_array():
    a = np.array([0.5, -1.0, 2.0])
    line = fill_seen_by_another_name.__code__.co_firstlineno + 3
    for transform in (lambda f: srcgrad.grad(f)(a), lambda f: srcgrad.jvp(f, (a,), (a,)),
                      lambda f: srcgrad.hessian(f)(a)):
        with pytest.raises(srcgrad.NotDifferentiableError,
                           match=rf"test_fill_diagonal_and_extrema_at\.py, line {line}\)"):
            transform(fill_seen_by_another_name)
    with pytest.raises(srcgrad.NotDifferentiableError, match=r"test_fill_diagonal_and_extrema_at\.py"):
        srcgrad.grad(max_seen_through_a_view, wrt=1)(np.ones(3), np.ones(5))
    M = np.zeros((3, 3))
    with pytest.raises(srcgrad.SrcGradError, match=r"test_fill_diagonal_and_extrema_at\.py"):
        srcgrad.grad(fill_into_the_argument, wrt=1)(M, a)
    assert not M.any()
