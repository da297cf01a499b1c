"""Through the compiler: np.gradient, np.unwrap, np.vander, np.cumulative_sum/prod, the
gamma function and the rest of the math module's newer rules, divmod, linspace /
logspace / geomspace, the selections (choose, compress, extract, resize, partition,
sliding windows), the nan-quantiles, tensorsolve, matvec / vecmat, ufuncs with dtype=,
and `.real` / `.imag`.

Each program: `srcgrad.grad` against central finite differences in float64, `srcgrad.jvp`
against the gradient (the dot-product test), float32 arguments get float32 gradients,
and the arguments are left as they were. A few have their analytic gradient written
out, and Hessians are checked against differences of the gradient (and for symmetry).
The rules themselves are checked one by one in test_rules.py.
"""

import builtins
import math

import numpy as np
import pytest

import srcgrad
from program_table import check_float32, check_grad, check_jvp

_rng = np.random.default_rng(83)


def R(*shape):
    return _rng.standard_normal(shape)


def P(*shape):
    return _rng.uniform(0.5, 2.0, shape)


X4 = np.array([0.35, 1.2, 2.5, 0.7])  # away from the jumps of divmod and the ties of partition
COORDS = np.array([0.0, 0.3, 1.0, 1.6])
KEEP = np.array([True, False, True, True])
swv = np.lib.stride_tricks.sliding_window_view


def _gradient_pair(x):
    a, b = np.gradient(x, 0.5, COORDS)
    return np.sum(a * b) + np.sum(np.sin(a))


def _linspace_step(x):
    samples, step = np.linspace(x[0], x[1], 5, retstep=True)
    return np.sum(samples ** 2) + step * x[2]


def _divmod_pair(x):
    q, r = np.divmod(x, 0.7)
    return np.sum(r ** 2 + q * x)


def _math_scalars(x):
    return math.dist((x[0], x[1]), (x[2], 2.0)) + math.prod([x[0], x[1], x[2]]) + math.ldexp(x[3], 3)


def _python_311(x):
    return math.cbrt(x[0]) * math.exp2(x[1]) + math.log(x[2], 2.0) + math.dist([x[0], 1.0], [x[3], x[1]])


def _builtin_divmod(x, y):
    q, r = builtins.divmod(x, y)
    return r * r + q * x


# name -> (function of the differentiated arguments, arguments)
# fmt: off
PROGRAMS = {
    "gradient": (lambda x: np.sum(np.gradient(x) ** 2), [R(5)]),
    "gradient_spacing_edge2": (lambda x: np.sum(np.gradient(x, 0.5, edge_order=2) ** 3), [R(6)]),
    "gradient_coordinates_2d": (_gradient_pair, [R(3, 4)]),
    "gradient_axes": (lambda x: np.sum(np.gradient(x, axis=1) * np.gradient(x, axis=0, edge_order=2)), [R(3, 4)]),
    "unwrap_vander": (lambda x: np.sum(np.unwrap(x * 3.0) ** 2) + np.sum(np.vander(x[0], 3) ** 2), [R(3, 4)]),
    "lgamma_gamma": (lambda x: math.lgamma(x) * math.gamma(x * 0.5 + 1.0), [1.7]),
    "lgamma_gamma_negative": (lambda x: math.lgamma(-x) + math.gamma(x - 3.0), [0.4]),
    "math_dist_prod_ldexp": (_math_scalars, [X4]),
    "math_prod_start": (lambda x: math.prod(x, start=2.0), [P(3)]),
    "divmod_builtin": (lambda x: divmod(x[2], 1.0)[1] * x[0] + divmod(x[1], x[0])[1] ** 2, [X4]),
    "divmod_builtin_floats": (_builtin_divmod, [3.7, 1.3]),
    "divmod_numpy": (_divmod_pair, [np.array([0.3, 1.2, 2.5, 0.8])]),
    "linspace": (lambda a: np.sum(np.linspace(a, 2.0, 4) * np.arange(4)), [0.7]),
    "linspace_retstep": (_linspace_step, [np.array([0.3, 1.2, 2.5])]),
    "linspace_arrays": (lambda x: np.sum(np.linspace(x[:2], x[2:], 3, axis=1) ** 3), [X4]),
    "geomspace_logspace": (lambda x: np.sum(np.geomspace(x[0], 8.0, 3)) + np.sum(np.logspace(0.0, x[1], 3) * x[2]), [P(3)]),
    "choose": (lambda x: np.sum(np.choose([0, 1], [x[:2], x[2:]]) ** 2), [X4]),
    "choose_clip": (lambda x: np.sum(np.choose(np.array([[0, 1], [1, 0]]), x * x, mode="clip")), [R(2, 2)]),
    "compress_extract": (lambda x: np.sum(np.compress(KEEP, x) ** 2) + np.sum(np.extract(x > 1.0, x) ** 3), [X4]),
    "resize": (lambda x: np.sum(np.resize(x, 6) ** 2 * np.arange(6.0)), [X4]),
    "partition": (lambda x: np.sum(np.partition(x, 2)[:2] ** 2), [X4]),
    "sliding_windows": (lambda x: np.sum(swv(x, 3).sum(axis=-1) ** 2), [R(6)]),
    "sliding_windows_2d": (lambda x: np.sum(swv(x, (2, 2)).prod(axis=(-1, -2))), [R(3, 4)]),
    "nan_quantiles": (lambda x: np.nanmedian(np.where(x > 2.0, np.nan, x * x)) + np.nanquantile(x ** 2, 0.3)
                      + np.nanpercentile(x, 30), [X4]),
    "nanmedian_axis": (lambda x: np.sum(np.nanmedian(np.where(x > 1.0, np.nan, x), axis=1) ** 2), [R(3, 5)]),
    "tensorsolve": (lambda a, b: np.sum(np.linalg.tensorsolve(a, b) ** 2), [R(2, 3, 6) + 3 * np.eye(6).reshape(2, 3, 6), R(2, 3)]),
    "real_if_close": (lambda x: np.sum(np.real_if_close(x) ** 2), [R(4)]),
    "ufunc_dtype": (lambda x: np.sum(np.exp(x, dtype=np.float64)) + np.sum(np.multiply(x, x, dtype=np.float64)), [R(4)]),
    "ufunc_dtype_of_x": (lambda x: np.sum(np.sin(x, dtype=x.dtype) * np.add(x, 1, dtype=x.dtype)), [R(4)]),
    "real_imag": (lambda x: np.sum(x.real ** 2) + np.sum(x.imag * x) + np.sum(np.sin(x).real * x), [R(4)]),
}
if hasattr(np, "cumulative_sum"):  # NumPy 2.1
    PROGRAMS["cumulative_sum"] = (lambda x: np.sum(np.cumulative_sum(x, include_initial=True) ** 2), [R(5)])
    PROGRAMS["cumulative_prod"] = (lambda x: np.sum(np.cumulative_prod(x, axis=1, include_initial=True) * np.arange(5.0)),
                                   [P(3, 4)])
if hasattr(np, "matvec"):  # NumPy 2.2
    PROGRAMS["matvec_vecmat"] = (lambda a, v: np.sum(np.matvec(a, v) ** 2) + np.sum(np.vecmat(v, a) * v), [R(2, 3, 3), R(3)])
if hasattr(math, "cbrt"):  # Python 3.11
    PROGRAMS["math_cbrt_exp2"] = (_python_311, [X4])
# fmt: on








@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_grad_matches_finite_differences(name):
    check_grad(name, *PROGRAMS[name])


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_jvp_matches_grad(name):
    check_jvp(name, *PROGRAMS[name])


@pytest.mark.parametrize("name", sorted(n for n in PROGRAMS if not n.startswith("tensorsolve")))
def test_float32_gradients_stay_float32(name):
    check_float32(name, *PROGRAMS[name])


HESSIANS = ["gradient_coordinates_2d", "gradient_axes", "unwrap_vander", "lgamma_gamma", "lgamma_gamma_negative",
            "math_dist_prod_ldexp", "math_prod_start", "divmod_builtin", "divmod_numpy", "linspace", "linspace_retstep",
            "geomspace_logspace", "choose", "compress_extract", "resize", "partition", "sliding_windows_2d", "nan_quantiles",
            "ufunc_dtype", "real_imag", *[n for n in ("cumulative_prod", "matvec_vecmat", "math_cbrt_exp2") if n in PROGRAMS]]


@pytest.mark.parametrize("name", HESSIANS)
def test_hessian_matches_differences_of_the_gradient(name):
    fn, args = PROGRAMS[name]
    x, rest = args[0], args[1:]
    h = srcgrad.hessian(fn)(*args)
    grad = srcgrad.grad(fn)
    eps = 1e-5
    if isinstance(x, float):
        assert isinstance(h, float) or np.ndim(h) == 0
        np.testing.assert_allclose(h, (grad(x + eps, *rest) - grad(x - eps, *rest)) / (2 * eps), rtol=1e-5, atol=1e-6)
        return
    n = x.size
    h = np.asarray(h).reshape(n, n)
    columns = []
    for k in range(n):
        step = np.zeros(n)
        step[k] = eps
        step = step.reshape(x.shape)
        columns.append(((grad(x + step, *rest) - grad(x - step, *rest)) / (2 * eps)).ravel())
    np.testing.assert_allclose(h, np.array(columns).T, rtol=1e-5, atol=1e-5, err_msg=name)
    np.testing.assert_allclose(h, h.T, atol=1e-8, err_msg=name)


def test_analytic_gradients():
    # d/da sum(linspace(a, 2, 4) * [0, 1, 2, 3]) = sum(i (1 - i/3)) = 4/3
    assert srcgrad.grad(PROGRAMS["linspace"][0])(0.7) == pytest.approx(4.0 / 3.0, rel=1e-14)
    # d/dx lgamma(x) = digamma(x), d2 = trigamma(x): digamma(1) = -Euler's gamma, trigamma(1) = pi**2 / 6
    assert srcgrad.grad(math.lgamma)(1.0) == pytest.approx(-0.5772156649015329, rel=1e-14)
    assert srcgrad.hessian(math.lgamma)(1.0) == pytest.approx(math.pi**2 / 6, rel=1e-14)
    # d/dx gamma(x) at 2 = gamma(2) digamma(2) = 1 - Euler's gamma
    assert srcgrad.grad(math.gamma)(2.0) == pytest.approx(1.0 - 0.5772156649015329, rel=1e-14)
    # sum(gradient(x) ** 2) for x = [0, 1, 4]: gradient = [1, 2, 3]; its transpose gives
    # d/dx = 2 * (M.T @ [1, 2, 3]) with M = [[-1, 1, 0], [-1/2, 0, 1/2], [0, -1, 1]]
    m = np.array([[-1.0, 1.0, 0.0], [-0.5, 0.0, 0.5], [0.0, -1.0, 1.0]])
    np.testing.assert_allclose(srcgrad.grad(PROGRAMS["gradient"][0])(np.array([0.0, 1.0, 4.0])),
                               2.0 * m.T @ np.array([1.0, 2.0, 3.0]), rtol=1e-14)
    # windows of 3 over 5 entries: entry k lies in 1, 2, 3, 2, 1 windows
    np.testing.assert_allclose(srcgrad.grad(lambda_windows)(np.arange(5.0)), [1.0, 2.0, 3.0, 2.0, 1.0])


def lambda_windows(x):
    return np.sum(swv(x, 3))


def test_a_differentiated_spacing_of_np_gradient_is_refused():
    def along(x):
        return np.sum(np.gradient(np.sin(x), x))

    with pytest.raises(srcgrad.NotDifferentiableError, match="varargs"):
        srcgrad.grad(along)(np.array([0.0, 0.5, 1.5]))
    with pytest.raises(srcgrad.NotDifferentiableError, match="varargs"):
        srcgrad.jvp(along, (np.array([0.0, 0.5, 1.5]),), (np.ones(3),))


def test_third_derivative_of_lgamma_is_polygamma_2():
    third = srcgrad.grad(srcgrad.grad(srcgrad.grad(math.lgamma)))
    assert third(1.0) == pytest.approx(-2 * 1.2020569031595942, rel=1e-13)  # -2 zeta(3)


# --- np.block and np.polyfit (rules/structure.py, rules/series.py) ----------------------

FIT_X = np.array([-1.0, -0.4, 0.3, 0.9, 1.6, 2.2])


def fit_in_y(y):
    p = np.polyfit(FIT_X, y, 2)
    return np.sum(p ** 2) + p[0] * p[2]


def fit_in_x(x):
    p = np.polyfit(x, np.sin(FIT_X), 2, w=np.linspace(0.5, 1.5, 6))
    return np.sum(p ** 2)


def joined_blocks(a):
    m = np.block([[np.diag(a[:2]), a[2:4, None]], [a[4:5][None, :] * np.ones((1, 2)), a[5:6, None] ** 2]])
    return np.sum(np.linalg.inv(m + 3.0 * np.eye(3)))


@pytest.mark.parametrize("fn", [fit_in_y, fit_in_x, joined_blocks], ids=lambda f: f.__name__)
def test_block_and_polyfit_in_every_transform(fn):
    from program_checks import check_every_transform

    check_every_transform(fn, FIT_X + 0.1)


def test_polyfit_in_y_is_the_least_squares_projection():
    """p = (V^T V)^-1 V^T y: d sum(p * c) / dy = V (V^T V)^-1 c."""
    c = np.array([1.0, -2.0, 0.5])
    v = np.vander(FIT_X, 3)
    g = srcgrad.grad(lambda y: np.sum(np.polyfit(FIT_X, y, 2) * c))(np.cos(FIT_X))
    np.testing.assert_allclose(g, v @ np.linalg.solve(v.T @ v, c), rtol=1e-12)


def test_polyfit_with_full_output_is_refused_saying_what_to_write():
    def fitted(y):
        return np.sum(np.polyfit(FIT_X, y, 2, full=True)[0])

    with pytest.raises(srcgrad.NotDifferentiableError, match="call it without full= and cov="):
        srcgrad.grad(fitted)(np.cos(FIT_X))
