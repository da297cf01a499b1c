"""Through the compiler: the reductions' `where=` / `initial=`, np.insert / delete /
select, np.linalg.lstsq, np.maximum/minimum.accumulate, the statistic and ramp modes of
np.pad, svd(full_matrices=True) in forward mode, and cumprod's Hessian at zeros.

Each program is checked for several shapes and axes: `srcgrad.grad` against central
finite differences in float64, `srcgrad.jvp` against the gradient (the dot-product
test), gradients shaped and typed exactly like their arguments (float32 stays
float32). The rules themselves are checked one by one in test_rules.py.
"""

import sys
import pathlib

import numpy as np
import pytest

import srcgrad
from conftest import numerical_grad
from program_table import check_float32, check_grad, check_jvp

sys.path.insert(0, str(pathlib.Path(__file__).parent / "independent"))
import indep_unsupported  # noqa: E402

_rng = np.random.default_rng(61)


def R(*shape):
    return _rng.standard_normal(shape)


def D(*shape):  # distinct values with gaps >= 0.1: no ties for max/min
    n = int(np.prod(shape))
    return ((_rng.permutation(n) - n / 2 + 0.5) * 0.3 + _rng.uniform(-0.05, 0.05, n)).reshape(shape)


def P(*shape):
    return _rng.uniform(0.5, 2.0, shape)


MASK34 = np.array([[True, False, True, True], [False, True, True, False], [True, True, False, True]])
MASK234 = np.stack([MASK34, ~MASK34])
BINS = np.array([0, 2, 2, 4, 1, 0, 2])
STEPS = np.array([[0.0, 1.0, -2.0, 0.0], [0.0, 0.0, 3.0, -1.0], [2.0, 0.0, 0.0, 0.0]])


# name -> (function of the differentiated arguments, arguments, wrt)
# fmt: off
PROGRAMS = {
    # where= and initial= of the reductions (and the array methods)
    "sum_where": (lambda x: np.sum(np.sin(x), where=MASK34), [R(3, 4)]),
    "sum_where_axes": (lambda x: np.sum(np.sum(x * x, axis=(0, 2), where=MASK234, keepdims=True) ** 2), [R(2, 3, 4)]),
    "sum_where_active_mask": (lambda x: np.sum(x ** 3, axis=1, where=x > 0.0).sum(), [D(3, 4)]),
    "sum_initial": (lambda x, c: np.sum(np.sum(x, axis=0, initial=c) ** 2), [R(3, 4), 0.4]),
    "method_sum_where": (lambda x: (x.sum(axis=0, where=MASK34) ** 2).sum(), [R(3, 4)]),
    "mean_where": (lambda x: np.mean(np.exp(x), where=MASK34), [R(3, 4)]),
    "mean_where_axis": (lambda x: np.sum(np.mean(x, axis=1, where=MASK34) ** 2), [R(3, 4)]),
    "mean_where_axis0_3d": (lambda x: np.sum(np.mean(x, axis=0, where=MASK234) ** 2), [R(2, 3, 4)]),
    "method_mean_where": (lambda x: np.sum(x.mean(axis=-1, keepdims=True, where=MASK34) * x), [R(3, 4)]),
    "prod_where_initial": (lambda x, c: np.sum(np.prod(x, axis=1, initial=c, where=MASK34)), [P(3, 4), 1.5]),
    "max_initial": (lambda x, c: np.sum(np.max(x, axis=1, initial=c) ** 2), [D(3, 4), 0.2]),
    "max_initial_where": (lambda x, c: np.sum(np.max(x, axis=0, initial=c, where=MASK34) ** 2), [D(3, 4), -0.1]),
    "min_initial_3d": (lambda x: np.sum(np.min(x, axis=(0, 2), initial=0.1) * np.arange(3.0)), [D(2, 3, 4)]),
    "amax_amin_initial": (lambda x: np.amax(x, initial=-9.0) - np.amin(x, initial=9.0, where=MASK34), [D(3, 4)]),
    "method_max_initial": (lambda x: np.sum(x.max(axis=1, initial=0.0) ** 2), [D(3, 4)]),
    "method_min_where": (lambda x: np.sum(x.min(axis=1, initial=5.0, where=MASK34) ** 2), [D(3, 4)]),
    "nanmin_initial": (lambda x: np.sum(np.nanmin(x, axis=0, initial=0.0) ** 2), [D(3, 4)]),
    # running extrema
    "maximum_accumulate": (lambda x: np.sum(np.maximum.accumulate(x) * np.arange(1.0, 7.0)), [D(6)]),
    "maximum_accumulate_axis1": (lambda x: np.sum(np.maximum.accumulate(x, axis=1) ** 2), [D(3, 5)]),
    "minimum_accumulate_3d": (lambda x: np.sum(np.minimum.accumulate(x, axis=-1) * x), [D(2, 3, 4)]),
    "minimum_accumulate_axis0": (lambda x: np.sum(np.minimum.accumulate(np.sin(x), 0) ** 2), [D(4, 3)]),
    # insert, delete, select
    "insert_scalar": (lambda x, v: np.sum(np.insert(x, 2, v) ** 2), [R(5), 0.3]),
    "insert_rows": (lambda x, v: np.sum(np.insert(x, [0, 2, 2], v, axis=0) ** 2), [R(3, 4), R(4)]),
    "insert_columns": (lambda x, v: np.sum(np.sin(np.insert(x, 1, v, axis=-1))), [R(3, 4), R(2, 3)]),
    "insert_flat": (lambda x, v: np.sum(np.insert(x, [1, 5], v) * np.arange(14.0)), [R(3, 4), R(2)]),
    "delete_row": (lambda x: np.sum(np.delete(x, 1, axis=0) ** 3), [R(3, 4)]),
    "delete_columns_3d": (lambda x: np.sum(np.delete(x, [0, 2], axis=2) ** 2), [R(2, 3, 4)]),
    "delete_flat": (lambda x: np.sum(np.delete(x, slice(1, None, 3)) ** 2), [R(3, 4)]),
    "select": (lambda x, y: np.sum(np.select([MASK34, x > 0.0], [x * y, np.sin(y)], default=y) ** 2), [D(3, 4), R(3, 4)]),
    "select_broadcast": (lambda x, y: np.sum(np.select([MASK34[0], MASK34], [x, y], 0.5) ** 2), [R(4), R(3, 4)]),
    # lstsq
    "lstsq_tall": (lambda a, b: np.sum(np.linalg.lstsq(a, b, rcond=None)[0] ** 2), [R(5, 3), R(5)]),
    "lstsq_tall_matrix": (lambda a, b: np.sum(np.sin(np.linalg.lstsq(a, b, rcond=None)[0])), [R(6, 2), R(6, 3)]),
    "lstsq_square": (lambda a, b: np.sum(np.linalg.lstsq(a, b, rcond=None)[0]), [R(3, 3) + 3 * np.eye(3), R(3, 2)]),
    "lstsq_wide": (lambda a, b: np.sum(np.linalg.lstsq(a, b, rcond=None)[0] ** 2), [R(2, 4), R(2)]),
    "lstsq_residuals": (lambda a, b: np.sum(np.linalg.lstsq(a, b, rcond=None)[1]), [R(6, 3), R(6, 2)]),
    "lstsq_all_outputs": (lambda a, b: _lstsq_all(a, b), [R(5, 2), R(5)]),
    # pad
    "pad_mean": (lambda x: np.sum(np.pad(x, 2, mode="mean") ** 2), [R(3, 4)]),
    "pad_mean_stat_length": (lambda x: np.sum(np.pad(x, ((1, 2), (3, 0)), "mean", stat_length=((1, 2), (2, 3))) ** 2), [R(3, 4)]),
    "pad_maximum": (lambda x: np.sum(np.pad(x, ((1, 1), (0, 2)), mode="maximum") ** 2), [D(3, 4)]),
    "pad_minimum_3d": (lambda x: np.sum(np.pad(x, 1, mode="minimum", stat_length=2) ** 2), [D(2, 3, 4)]),
    "pad_median": (lambda x: np.sum(np.pad(x, (2, 1), mode="median") ** 2), [D(5)]),
    "pad_linear_ramp": (lambda x: np.sum(np.pad(x, 3, mode="linear_ramp") ** 2), [R(4)]),
    "pad_linear_ramp_2d": (lambda x: np.sum(np.pad(x, ((2, 1), (1, 3)), "linear_ramp", end_values=((1.0, 2.0), (-1.0, 0.5))) ** 2), [R(2, 3)]),
    # svd, full_matrices=True, of non-square matrices: s and the square factor
    "svd_tall_s": (lambda x: np.sum(np.linalg.svd(x)[1] ** 2), [R(5, 3)]),
    "svd_wide_s": (lambda x: np.sum(np.linalg.svd(x)[1] * np.arange(1.0, 4.0)), [R(3, 5)]),
    "svd_tall_vh": (lambda x: np.sum(np.linalg.svd(x)[2][0] * np.arange(3.0)) ** 2, [R(4, 3)]),
    "svd_wide_u": (lambda x: np.sum(np.linalg.svd(x)[0][:, 0] * np.arange(3.0)) ** 2, [R(3, 5)]),
    # bincount's weights and heaviside's value at 0 carry gradients (they were zero)
    "bincount_weights": (lambda w: np.sum(np.bincount(BINS, weights=np.sin(w), minlength=6) ** 2), [R(7)]),
    "bincount_weights_positional": (lambda w: np.sum(np.bincount(BINS, w * w) * np.arange(5.0)), [R(7)]),
    "heaviside_value_at_zero": (lambda x, h: np.sum(np.heaviside(STEPS, h) * x + np.heaviside(x, 0.5) * h), [D(3, 4), R(3, 4)]),
    "heaviside_broadcast_value": (lambda h: np.sum(np.heaviside(STEPS, h) ** 2 * np.arange(4.0)), [R(4)]),
}
# fmt: on


def _lstsq_all(a, b):
    x, residuals, rank, sv = np.linalg.lstsq(a, b, rcond=None)
    return np.sum(x * x) + 0.5 * np.sum(residuals) + np.sum(sv) * rank


_fd = numerical_grad  # central differences in float64 (conftest)




@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_grad_matches_finite_differences(name):
    check_grad(name, *PROGRAMS[name])


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_jvp_matches_grad(name):
    check_jvp(name, *PROGRAMS[name])


FLOAT32 = [n for n in PROGRAMS if not n.startswith(("lstsq", "svd"))]


@pytest.mark.parametrize("name", FLOAT32)
def test_float32_gradients_stay_float32(name):
    check_float32(name, *PROGRAMS[name])


def test_independent_programs_with_where_and_initial():
    x = np.array([0.3, -1.2, 0.8, 2.0])
    for fn in (indep_unsupported.u_npsum_where, indep_unsupported.u_npsum_initial):
        np.testing.assert_allclose(srcgrad.grad(fn)(x.copy()), _fd(fn, [x], 0), rtol=1e-6, atol=1e-7)


def test_select_of_a_list_argument_adds_gradients_entry_by_entry():
    def f(xs, y):  # `xs` reaches np.select twice: its gradients add per entry, never concatenate
        return np.sum(np.select([MASK34[0], ~MASK34[0]], xs) ** 2) + np.sum(np.select([MASK34[1], ~MASK34[1]], xs) * y)

    xs = [R(4), R(4)]
    got = srcgrad.grad(f)(xs, 0.7)
    assert isinstance(got, list) and len(got) == 2
    for i in range(2):
        def along(v, i=i):
            ys = list(xs)
            ys[i] = v
            return f(ys, 0.7)

        np.testing.assert_allclose(got[i], _fd(along, [xs[i]], 0), rtol=1e-6, atol=1e-7)
    tangents = [R(4), R(4)]
    _, out_dot = srcgrad.jvp(f, (xs, 0.7), (tangents, 0.0))
    np.testing.assert_allclose(out_dot, sum(np.sum(g * t) for g, t in zip(got, tangents)), rtol=1e-10)


def _rank_deficient():
    a = R(5, 3)
    a[:, 2] = a[:, 0] - a[:, 1]
    return a, R(5)


def test_lstsq_of_rank_deficient_matrix_is_refused_in_both_modes():
    a, b = _rank_deficient()

    def solution(a, b):
        return np.sum(np.linalg.lstsq(a, b, rcond=None)[0] ** 2)

    with pytest.raises(srcgrad.NotDifferentiableError, match="rank-deficient"):
        srcgrad.grad(solution, wrt=(0, 1))(a, b)
    with pytest.raises(srcgrad.NotDifferentiableError, match="rank-deficient"):
        srcgrad.jvp(solution, (a, b), (np.ones_like(a), np.ones_like(b)))


def test_lstsq_singular_values_of_rank_deficient_matrix_are_differentiable():
    a, b = _rank_deficient()

    def singular_values(a, b):
        return np.sum(np.linalg.lstsq(a, b, rcond=None)[3] * np.array([2.0, 1.0, 0.0]))  # the last is 0: a kink

    g = srcgrad.grad(singular_values)(a, b)
    np.testing.assert_allclose(g, _fd(singular_values, [a, b], 0), rtol=1e-5, atol=1e-6)
    t = R(5, 3)
    _, out_dot = srcgrad.jvp(singular_values, (a, b), (t, np.ones(5)))
    np.testing.assert_allclose(out_dot, np.sum(g * t), rtol=1e-9)


def test_svd_full_matrices_extra_vectors_are_refused_when_used():
    def uses_u(x):
        u, s, vh = np.linalg.svd(x)
        return np.sum(u[:, 0] * x[:, 0]) + np.sum(s)

    x = R(5, 3)
    with pytest.raises(NotImplementedError, match="full_matrices"):
        srcgrad.grad(uses_u)(x)
    with pytest.raises(NotImplementedError, match="full_matrices"):
        srcgrad.jvp(uses_u, (x,), (np.ones_like(x),))


_MD_A = np.array([[1.0, -2.0, 0.0], [3.0, 1.0, -1.0], [0.0, 2.0, 1.0]])
_MD_C = np.array([[2.0, 0.0, 1.0], [-1.0, 1.0, 0.0], [0.0, 3.0, -2.0]])


def test_multi_dot_hessian_adds_the_operands_gradients_entry_by_entry():
    # Regression: multi_dot's reverse rule returned a list from a helper whose forward
    # rules (one for the cotangent, one for the operands) the compiler joined with `+`:
    # in a Hessian the two lists were concatenated, not added, and the Hessian was wrong.
    # f(A) = 1' A C A 1 has Hessian-vector product u (C T u)' + (T C)' u u' (u = ones).
    def f(a):
        return np.sum(np.linalg.multi_dot([a, _MD_C, a]))

    h = srcgrad.hessian(f)(_MD_A)
    u = np.ones(3)
    for k in np.ndindex(3, 3):
        t = np.zeros((3, 3))
        t[k] = 1.0
        exact = np.outer(u, _MD_C @ t @ u) + np.outer((t @ _MD_C).T @ u, u)
        np.testing.assert_allclose(h[(...,) + k], exact, rtol=0, atol=1e-12)
    # the exact numbers of one slice: d(grad)/dA[0, 1]
    np.testing.assert_allclose(h[..., 0, 1], [[1.0, -2.0, -1.0], [3.0, 0.0, 1.0], [2.0, -1.0, 0.0]], atol=1e-12)

    def g(a, v):  # 1-D ends, the cotangent depends on `a` too (a second-order term through g)
        return np.linalg.multi_dot([v, a, _MD_C, a, v]) ** 2

    v = np.array([1.0, -1.0, 2.0])
    h = srcgrad.hessian(g)(_MD_A, v)
    grad = srcgrad.grad(g)
    eps = 1e-6
    for k in np.ndindex(3, 3):
        plus, minus = _MD_A.copy(), _MD_A.copy()
        plus[k] += eps
        minus[k] -= eps
        np.testing.assert_allclose(h[(...,) + k], (grad(plus, v) - grad(minus, v)) / (2 * eps), rtol=1e-6, atol=1e-6)


def test_quantile_hessian_treats_the_interpolation_weights_as_constants():
    # Regression: forward mode over quantile's reverse rule differentiated the helper that
    # finds the ranks (`_quantile_parts`) and failed with NotDifferentiableError; its weights
    # are piecewise constant in x. Column 0 of x sorted is [-1, 0, 2, 3, 5]: position
    # 0.3 * 4 = 1.2 gives q0 = 0.8 * 0 + 0.2 * 2 (rows 3 and 0), and f = sum(q ** 2) has
    # Hessian 2 w w' per column, w the weights on that column's entries.
    x = np.array([[2.0, 1.0], [5.0, -2.0], [-1.0, 4.0], [0.0, 3.0], [3.0, 0.5]])

    def f(x):
        return np.sum(np.quantile(x, 0.3, axis=0) ** 2)

    h = srcgrad.hessian(f)(x)
    w0 = np.array([0.2, 0.0, 0.0, 0.8, 0.0])  # column 0: rank 1 is row 3 (0.0), rank 2 is row 0 (2.0)
    w1 = np.array([0.0, 0.0, 0.0, 0.0, 0.8]) + np.array([0.2, 0.0, 0.0, 0.0, 0.0])  # ranks 1, 2: 0.5 (row 4), 1 (row 0)
    expected = np.zeros((5, 2, 5, 2))
    expected[:, 0, :, 0] = 2.0 * np.outer(w0, w0)
    expected[:, 1, :, 1] = 2.0 * np.outer(w1, w1)
    np.testing.assert_allclose(h, expected, rtol=0, atol=1e-12)


def _cumprod_hessian(v, w):
    """d2/dv_k dv_l of sum_i w_i prod_{m <= i} v_m, written out: the products leave out k and l."""
    n = len(v)
    h = np.zeros((n, n))
    for k in range(n):
        for l in range(n):
            if k != l:
                h[k, l] = sum(w[i] * np.prod([v[m] for m in range(i + 1) if m not in (k, l)]) for i in range(max(k, l), n))
    return h


@pytest.mark.parametrize("v", [[1.0, 0.0, -2.0, 2.0, 0.0, 3.0], [2.0, 0.0, 0.0, 1.5, -1.0, 2.0], [0.0, 0.5, -2.0, 2.0, 0.7, 3.0]])
def test_cumprod_hessian_is_exact_after_a_zero(v):
    # Regression: forward mode over cumprod's reverse rule gave the entries after the
    # first zero a constant zero gradient, but moving that zero gives them one: for
    # v = [1, 0, -2, 2, 0, 3] and weights 1..6, d2f/dv2 dv1 came out 0, not 11 (row 2
    # of the Hessian was all zeros while column 2 was right: it was not symmetric).
    v = np.array(v)
    w = np.arange(1.0, 7.0)

    def f(v):
        return np.sum(np.cumprod(v) * w)

    h = srcgrad.hessian(f)(v)
    assert h.shape == (6, 6) and h.dtype == np.float64
    np.testing.assert_allclose(h, _cumprod_hessian(v, w), rtol=0, atol=1e-12)
    grad = srcgrad.grad(f)
    eps = 1e-6
    for k in range(6):
        t = np.zeros(6)
        t[k] = eps
        np.testing.assert_allclose(h[:, k], (grad(v + t) - grad(v - t)) / (2 * eps), rtol=1e-6, atol=1e-6)


def test_cumprod_hessian_along_an_axis_with_zeros():
    x = np.array([[1.0, 0.0, -2.0, 2.0], [0.5, 1.5, 0.0, 0.0], [0.0, 3.0, 1.0, -1.0]])
    w = np.array([[1.0, -1.0, 2.0, 0.5], [3.0, 1.0, -2.0, 1.0], [0.5, 2.0, 1.0, -1.0]])

    def f(x):
        return np.sum(np.cumprod(x, axis=1) * w)

    h = srcgrad.hessian(f)(x)
    for r in range(3):
        np.testing.assert_allclose(h[r, :, r, :], _cumprod_hessian(x[r], w[r]), rtol=0, atol=1e-12)
    assert np.count_nonzero(h) == sum(np.count_nonzero(h[r, :, r, :]) for r in range(3))


@pytest.mark.parametrize("v", [[1.0, 0.0, -2.0, 2.0, 0.0, 3.0], [2.0, 0.0, 0.0, 1.5, -1.0, 2.0], [0.0, 0.5, -2.0, 2.0, 0.7, 3.0],
                               [0.5, -1.5, 2.0, 0.8, 1.2, -0.7]])
def test_reverse_mode_through_cumprods_reverse_rule_with_zeros(v):
    """Reverse mode over cumprod's reverse rule, as the Tensor shim's create_graph passes
    run it: its adjoint helper has written reverse rules (its source passes `*arrays`),
    exact where v holds zeros (no division by v)."""
    from srcgrad.rules.reductions import cumprod_vjp

    v = np.array(v)
    w = np.arange(1.0, 7.0)
    u = np.linspace(-1.0, 1.0, 6)

    def along_u(v, w):
        return np.sum(cumprod_vjp(w, np.cumprod(v), v) * u)

    v0 = v.copy()
    got_v, got_w = srcgrad.grad(along_u, wrt=(0, 1))(v, w)
    assert np.array_equal(v, v0) and got_v.shape == (6,) and got_v.dtype == np.float64
    np.testing.assert_allclose(got_v, _cumprod_hessian(v, w) @ u, rtol=0, atol=1e-12)
    jacobian = np.array([[np.prod([v[m] for m in range(i + 1) if m != k]) if k <= i else 0.0 for k in range(6)]
                         for i in range(6)])
    np.testing.assert_allclose(got_w, jacobian @ u, rtol=0, atol=1e-12)  # linear in w: J u
    eps = 1e-6
    numeric = np.array([(along_u(v + eps * e, w) - along_u(v - eps * e, w)) / (2 * eps) for e in np.eye(6)])
    np.testing.assert_allclose(got_v, numeric, rtol=1e-6, atol=1e-6)

    def along_rows(x):  # along an axis, x of two rows
        return np.sum(cumprod_vjp(w.reshape(2, 3), np.cumprod(x, axis=1), x, axis=1) * u.reshape(2, 3))

    rows = srcgrad.grad(along_rows)(v.reshape(2, 3))
    for r in range(2):
        np.testing.assert_allclose(rows[r], _cumprod_hessian(v[3 * r:3 * r + 3], w[3 * r:3 * r + 3]) @ u[3 * r:3 * r + 3],
                                   rtol=0, atol=1e-12)


def test_sinc_second_and_third_derivatives_at_zero():
    # Regression: sinc's derivative is written with a special case at 0 (value 0) that
    # forward mode differentiated as a constant: the Hessian of np.sinc at 0 was 0, not
    # sinc''(0) = -pi**2 / 3 = -3.2899, in forward-over-reverse and reverse-over-reverse.
    def f(x):
        return np.sum(np.sinc(x))

    x = np.array([0.0, 0.5])
    h = srcgrad.hessian(f)(x)
    d2_half = (np.pi**2 * 0.25 * np.sin(np.pi * 0.5) * -1 - 2 * np.pi * 0.5 * np.cos(np.pi * 0.5) + 2 * np.sin(np.pi * 0.5)) / (
        np.pi * 0.5**3
    )
    np.testing.assert_allclose(h, np.diag([-np.pi**2 / 3, d2_half]), rtol=1e-12, atol=1e-12)
    assert srcgrad.hessian(f)(x.astype(np.float32)).dtype == np.float32

    def s(a):
        return np.sinc(a)

    second = srcgrad.grad(srcgrad.grad(s))
    assert second(0.0) == pytest.approx(-np.pi**2 / 3, rel=1e-12)
    assert second(0.0) == pytest.approx(numerical_grad(srcgrad.grad(s), [0.0], 0, eps=1e-4), rel=1e-6)
    assert srcgrad.grad(second)(0.0) == 0.0  # sinc is even
    assert srcgrad.grad(second)(0.3) == pytest.approx(numerical_grad(second, [0.3], 0), rel=1e-6)


def l_prod(a, b):
    return np.prod([a, b, 3.0])


def l_std(a, b):
    return np.std((a, 1.0, b), ddof=1)


def l_cumsum_sort(a, b):
    return np.cumsum([a, b, 1.0])[2] * np.sort([b, a, 0.0])[0]


def l_nested(a, b):
    return np.sum(np.prod([[a, b], [1.0, 2.0]], axis=1) * np.array([1.0, 2.0])) + np.prod([[a, 2.0], [b, b]])


def l_max(a, b):
    return np.max([a, b, 0.1]) + np.sum(np.min([[a, b], [0.1, a * 2]], axis=1) * np.array([1.0, 2.0]))


# Lists and tuples handed whole to NumPy functions whose rules compute with their operands
# as arrays (`x - y`, `x * x`, `g @ y.T`): the rules got the list itself (TypeError).
# fmt: off
def l_maximum(a, b): return np.sum(np.maximum([a, 0.1], [b, b]))
def l_minimum(a, b): return np.sum(np.minimum([a, 0.1], (b, b)))
def l_fmax_fmin(a, b): return np.sum(np.fmax([a, 0.1], b) + np.fmin(a, [0.1, b]))
def l_power(a, b): return np.sum(np.power([a, 2.0], [b, b]) + np.float_power((a, 2.0), b))
def l_arctan2(a, b): return np.sum(np.arctan2([a, 1.0], [b, a]))
def l_logaddexp(a, b): return np.sum(np.logaddexp([a, 1.0], (b, a)))
def l_mod(a, b): return np.sum(np.mod([a, 1.3], [b, 0.7]) + np.fmod([a, 1.3], [b, 0.7]))
def l_hypot_copysign(a, b): return np.sum(np.hypot([a, 1.0], [b, a]) * np.copysign([a, 1.0], [b, a]))
def l_unary(a, b): return np.sum(np.arctan([a, b]) + np.arcsin((a, b)) + np.square([a, 2.0]) + np.log1p([a, b]))
def l_matmul(a, b): return np.matmul([a, b], [[b, 2.0], [1.0, a]]) @ np.array([1.0, 2.0]) + np.dot([a, b], [b, 2.0])
def l_products(a, b): return np.inner([a, b], (b, 2.0)) + np.sum(np.outer([a, 1.0], [b, a])) + np.polyval([a, b, 1.0], b)
def l_polyval(a, b): return np.sum(np.polyval([a, 2.0], [b, 1.0]))
def l_solve(a, b): return np.sum(np.linalg.solve([[a, 1.0], [0.5, b]], [b, 1.0]))
def l_einsum(a, b): return np.einsum("i,i->", [a, b], [b, 2.0]) + np.einsum("i,i->", np.array([a, b]), (b, a))
# fmt: on


def l_named(a, b):
    v = [a, b, 0.3]
    return np.sum(np.maximum(v, [b, 0.2, a]) * np.arctan2(v, 0.5))


_LIST_OPERANDS = [l_maximum, l_minimum, l_fmax_fmin, l_power, l_arctan2, l_logaddexp, l_mod, l_hypot_copysign, l_unary,
                  l_matmul, l_products, l_polyval, l_solve, l_einsum, l_named]


@pytest.mark.parametrize("f", [l_prod, l_std, l_cumsum_sort, l_nested, l_max] + _LIST_OPERANDS, ids=lambda f: f.__name__)
def test_a_list_of_floats_read_as_one_array_in_both_modes(f):
    # Regression: forward mode passed the tangent of `[a, b, 3.0]` to np.prod's rule as
    # `[a_dot, b_dot, None]` (TypeError on None * ...), and reverse mode gave np.max's rule
    # the list itself, whose dtype np.result_type could not read (TypeError). Rules now
    # get np.asarray of such a list (computed once); its gradient goes back entry by entry.
    a, b = 0.7, -0.4
    ga, gb = srcgrad.grad(f, wrt=(0, 1))(a, b)
    assert type(ga) is float and type(gb) is float
    assert ga == pytest.approx(_fd(f, [a, b], 0), rel=1e-6, abs=1e-7)
    assert gb == pytest.approx(_fd(f, [a, b], 1), rel=1e-6, abs=1e-7)
    _, out_dot = srcgrad.jvp(f, (a, b), (1.0, -2.0))
    assert out_dot == pytest.approx(ga - 2.0 * gb, rel=1e-12)


def test_a_list_operand_gets_the_gradient_of_each_of_its_floats():
    # np.maximum([a, 0.1], [b, b]) is [a, 0.1] where a > 0.1 > b, and [a, b] where a > b > 0.1
    ga, gb = srcgrad.grad(l_maximum, wrt=(0, 1))(0.3, 0.05)
    assert (ga, gb) == (1.0, 0.0) and type(ga) is float and type(gb) is float
    assert srcgrad.grad(l_maximum, wrt=(0, 1))(0.3, 0.2) == (1.0, 1.0)
    # arctan2(a, b) + arctan2(1, a): d/da = b/(a^2+b^2) - 1/(1+a^2), d/db = -a/(a^2+b^2)
    a, b = 0.3, 0.2
    ga, gb = srcgrad.grad(l_arctan2, wrt=(0, 1))(a, b)
    assert ga == pytest.approx(b / (a * a + b * b) - 1.0 / (1.0 + a * a), rel=1e-14)
    assert gb == pytest.approx(-a / (a * a + b * b), rel=1e-14)


def h_list_operands(x):
    v = [x[0], x[1], 0.3]
    return np.sum(np.arctan2(v, [x[1], 0.5, x[0]]) + np.power([x[0], 2.0, x[1]], (x[1], x[1], 2.0))) + np.polyval(v, x[0])


def test_hessian_through_list_operands():
    # forward over reverse: the reverse code's `x_array = np.asarray([...])` is itself
    # differentiated (np.asarray's rule)
    x = np.array([0.3, 0.7])
    h = srcgrad.hessian(h_list_operands)(x)
    assert h.shape == (2, 2) and h.dtype == np.float64
    g = srcgrad.grad(h_list_operands)
    for i in range(2):
        np.testing.assert_allclose(h[:, i], _fd(lambda y: g(y)[i], [x], 0), rtol=1e-6, atol=1e-8)


def moved_arange(a):
    return np.sum(np.arange(a, a + 3.0) * np.arange(3))


def moved_unique(a):
    return np.sum(np.unique(np.array([a, 2.0, a * 3.0])) * np.arange(3))


def moved_bin_edges(a):
    return np.sum(np.histogram(np.array([a, 2.0, -1.0]), bins=2)[1])


def moved_nextafter(a):
    return np.nextafter(a, 10.0) * 2.0


def moved_poisson(a):  # a discrete draw: no pathwise derivative (normal has one: test_sampling.py)
    return np.sum(np.random.poisson(a, 3) * a)


def moved_permutation(a):
    return np.sum(np.random.permutation(np.array([a, 2.0 * a, 1.0])) ** 2)


@pytest.mark.parametrize("f", [moved_arange, moved_unique, moved_bin_edges, moved_nextafter, moved_poisson, moved_permutation],
                         ids=lambda f: f.__name__)
def test_functions_whose_values_move_with_a_differentiated_argument_are_refused(f):
    # Regression: these were declared to have no gradient, so a differentiated argument got
    # a zero: the gradient of sum(unique(v) * w) was all zeros instead of w in sorted order.
    # They are refused now (np.linspace, logspace and geomspace have rules: test_more_functions.py).
    with pytest.raises(srcgrad.NotDifferentiableError, match="no derivative rule for numpy"):
        srcgrad.grad(f)(0.7)
    with pytest.raises(srcgrad.NotDifferentiableError, match="no derivative rule for numpy"):
        srcgrad.jvp(f, (0.7,), (1.0,))


def test_the_same_functions_on_constants_are_constants():
    labels = np.array([0, 2, 2, 1, 3])

    def f(x):
        n = x.shape[0]
        w = np.arange(n) + np.linspace(0.0, 1.0, n) + np.geomspace(1.0, 2.0, x.size) + np.unique(labels)
        edges = np.histogram(np.array([0.1, 0.5]), bins=3)[1]
        return np.sum(x ** 2 * w) + np.sum(edges) * x[0] + np.sum(np.random.normal(0.0, 1.0, size=x.shape) * 0.0)

    x = np.array([0.3, -1.2, 0.8, 2.0])
    g = srcgrad.grad(f)(x)
    np.testing.assert_allclose(g, _fd(f, [x], 0), rtol=1e-6, atol=1e-7)
    _, out_dot = srcgrad.jvp(f, (x,), (np.ones(4),))
    assert out_dot == pytest.approx(np.sum(g), rel=1e-12)


def test_bincount_weights_and_heaviside_value_at_zero_have_their_analytic_gradients():
    # Regression: np.bincount and np.heaviside were declared to have no gradient, so the
    # gradient of a weighted bincount and of heaviside's value at 0 was silently zero.
    def f(w, h):
        counts = np.bincount(np.array([0, 2, 2, 1]), weights=w * 2.0, minlength=5)
        return np.sum(counts ** 2) + np.sum(np.heaviside(np.array([0.0, 1.0, -2.0, 0.0]), h) * w)

    w, h = np.array([0.5, 1.5, -1.0, 2.0]), np.array([0.3, 0.4, 0.6, 0.8])
    counts = np.array([2 * w[0], 2 * w[3], 2 * (w[1] + w[2])])
    expected_w = 4.0 * counts[[0, 2, 2, 1]] + np.array([h[0], 1.0, 0.0, h[3]])
    expected_h = np.array([w[0], 0.0, 0.0, w[3]])
    for gw, gh in (srcgrad.grad(f, wrt=(0, 1))(w, h), srcgrad.jacobian(f, wrt=(0, 1), mode="forward")(w, h)):
        np.testing.assert_allclose(gw, expected_w, rtol=1e-14)
        np.testing.assert_allclose(gh, expected_h, rtol=1e-14)
    np.testing.assert_allclose(srcgrad.hessian(f, wrt=0)(w, h), 8.0 * (np.array([0, 2, 2, 1])[:, None] == [0, 2, 2, 1]))


def _cov_weighted(x, w):
    return np.sum(np.cov(x) * w)


def _corrcoef_pair(x):
    return np.corrcoef(x[0], x[1] * x[1])[0, 1]


def test_cov_gradient_is_the_analytic_one_and_corrcoef_has_a_true_hessian():
    x, w = R(3, 7), R(3, 3)
    centered = x - x.mean(axis=1, keepdims=True)
    np.testing.assert_allclose(srcgrad.grad(_cov_weighted)(x, w), (w + w.T) @ centered / 6.0, rtol=1e-12, atol=1e-14)
    x = R(2, 6)
    H = srcgrad.hessian(_corrcoef_pair)(x).reshape(12, 12)
    g = srcgrad.grad(_corrcoef_pair)
    eps = 1e-6
    by_differences = np.array([((g(x + e) - g(x - e)) / (2 * eps)).ravel() for e in np.eye(12).reshape(12, 2, 6) * eps])
    np.testing.assert_allclose(H, H.T, atol=1e-12)
    np.testing.assert_allclose(H, by_differences, rtol=1e-5, atol=1e-6)


def _cov_frequency_weighted(x):
    return np.sum(np.cov(x, fweights=[1, 2, 1, 1]))


def test_cov_with_constant_weights():
    # fweights [1, 2, 1, 1] count the second observation twice: the cov of the repeated columns
    x = R(2, 4)
    repeated = lambda y: np.sum(np.cov(np.concatenate([y, y[:, 1:2]], axis=1)))  # noqa: E731
    np.testing.assert_allclose(srcgrad.grad(_cov_frequency_weighted)(x), srcgrad.grad(_cov_sum_of_repeated)(x), rtol=1e-12)
    assert repeated(x) == pytest.approx(_cov_frequency_weighted(x))


def _cov_sum_of_repeated(x):
    return np.sum(np.cov(np.concatenate([x, x[:, 1:2]], axis=1)))
