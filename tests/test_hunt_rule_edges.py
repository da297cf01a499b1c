"""NumPy rules at the edges of their domains and argument forms, from a hunt that ran each
rule (reverse and forward mode, Hessians of the smooth ones) over axis/keepdims/dtype/
where/initial/ord/ddof/offset/mode forms, 0-d, empty, float32, Fortran-ordered and
transposed inputs, ties, zeros, domain boundaries, infinities and huge or tiny values,
against JAX and central differences. The first tests each once failed:

- `vjp` ran the forward pass on C-ordered copies of the arguments, so a function reading
  the memory layout (`np.reshape(x, -1, order='A')`, `np.ravel(x, order='K')`) of a
  Fortran-ordered or transposed argument gave another value and gradient than `grad`.
- np.sinc's derivative `(cos(pi x) - sinc(x)) / x` cancels near 0: 0.0 at x = 1e-9 (for
  -3.3e-9) and a second derivative of -9.87 there (for -pi**2 / 3 = -3.29).
- `x ** 0.5` of a Python float 0.0 raised ZeroDivisionError in the derivative (Python's
  `0.0 ** -0.5`), where math.sqrt and math.pow give inf, as NumPy does for arrays.
- np.nanmax/np.nanmin/np.nanmean/np.nanvar/np.nanstd of a slice of NaNs alone gave NaN
  gradients (and tangents) to those entries (0/0); the NaN-ignoring reductions leave NaN
  entries out, as JAX's gradients give 0.
- A call with more arguments than srcgrad's rule takes (`math.hypot(x, y, z)`) was refused
  with Python's "too many positional arguments" alone; the refusal names the rule's
  parameters.

The conventions kept at points where the derivative does not exist are in the last tests.
"""

import math
import warnings

import numpy as np
import pytest

import srcgrad
from conftest import numerical_grad

try:
    import jax
    import jax.numpy as jnp

    jax.config.update("jax_enable_x64", True)
except ImportError:  # the tests compare with JAX only where it is installed
    jax = jnp = None

needs_jax = pytest.mark.skipif(jax is None, reason="JAX is not installed")

# --- vjp keeps the arguments' memory layout ---------------------------------------------


def read_in_memory_order(x):
    return np.reshape(x, (6,), order="A") * np.arange(1.0, 7.0)


def ravel_as_stored(x):
    return np.ravel(x, order="K") ** 2


def _differences(f, x, eps=1e-6):
    """Central differences of the scalar f at x, perturbing copies that keep x's layout."""
    g = np.zeros(x.shape)
    for k in np.ndindex(x.shape):
        plus, minus = x.copy(order="K"), x.copy(order="K")
        plus[k] += eps
        minus[k] -= eps
        g[k] = (f(plus) - f(minus)) / (2 * eps)
    return g


def fortran_and_transposed():
    values = np.array([[0.5, -1.0, 2.0], [1.5, 3.0, -0.25]])
    return [np.asfortranarray(values), np.ascontiguousarray(values.T).T]


@pytest.mark.parametrize("x", fortran_and_transposed(), ids=["fortran", "transposed"])
def test_vjp_of_a_layout_reading_function_is_grads(x):
    # the F-order reading of x: x[0, 0], x[1, 0], x[0, 1], ... (x[i, j] is entry i + 2 j)
    assert read_in_memory_order(x).tolist() == [0.5, 3.0, -3.0, 12.0, 10.0, -1.5]
    out, pullback = srcgrad.vjp(read_in_memory_order, x)
    np.testing.assert_array_equal(out, read_in_memory_order(x))  # was x's C-order reading
    (g,) = pullback(np.ones(6))
    np.testing.assert_array_equal(g, [[1.0, 3.0, 5.0], [2.0, 4.0, 6.0]])  # was [[1, 2, 3], [4, 5, 6]]
    np.testing.assert_array_equal(g, srcgrad.grad(lambda v: np.sum(read_in_memory_order(v)))(x))
    out, pullback = srcgrad.vjp(ravel_as_stored, x)
    np.testing.assert_array_equal(out, ravel_as_stored(x))
    seed = np.arange(6.0)
    np.testing.assert_allclose(pullback(seed)[0], _differences(lambda v: np.sum(seed * ravel_as_stored(v)), x), rtol=1e-7)
    _, tangent = srcgrad.jvp(ravel_as_stored, (x,), (np.ones((2, 3)),))
    np.testing.assert_allclose(tangent, 2.0 * ravel_as_stored(x) ** 0.5 * np.sign(np.ravel(x, order="K")))
    assert x.flags.f_contiguous  # not changed


# --- np.sinc near 0 ---------------------------------------------------------------------


def sinc_sum(x):
    return np.sum(np.sinc(x))


def _sinc_slope(x):
    """d/dx sinc(x) from its series: exact to rounding for |x| < 0.01."""
    p2 = math.pi ** 2
    return x * (-p2 / 3.0 + x * x * (p2 * p2 / 30.0))


def test_sinc_derivatives_near_zero():
    x = np.array([0.0, 1e-9, -1e-7, 1e-5, 1e-3])
    g = srcgrad.grad(sinc_sum)(x)
    np.testing.assert_allclose(g, _sinc_slope(x), rtol=1e-12, atol=0)  # g[1] was 0.0
    _, tangent = srcgrad.jvp(lambda v: np.sinc(v), (x,), (np.ones(5),))
    np.testing.assert_allclose(tangent, _sinc_slope(x), rtol=1e-12, atol=0)
    second = np.diagonal(srcgrad.hessian(sinc_sum)(x))
    p2 = math.pi ** 2
    series = -p2 / 3.0 + x * x * (p2 * p2 / 10.0 - x * x * (p2 * p2 * p2 / 168.0))
    np.testing.assert_allclose(second, series, rtol=1e-12)  # was -9.87 at 1e-9


def test_sinc_derivatives_across_the_series_boundary():
    x = np.array([0.0999, 0.1, 0.1001, -0.1, 0.3, 1.0, -2.5])
    exact = (np.cos(math.pi * x) - np.sinc(x)) / x  # no cancellation this far from 0
    np.testing.assert_allclose(srcgrad.grad(sinc_sum)(x), exact, rtol=1e-13)
    np.testing.assert_allclose(srcgrad.grad(sinc_sum)(x), numerical_grad(sinc_sum, (x,), 0), rtol=1e-7)
    h = np.diagonal(srcgrad.hessian(sinc_sum)(x))
    slope = srcgrad.grad(sinc_sum)
    eps = 1e-6
    np.testing.assert_allclose(h, (slope(x + eps) - slope(x - eps)) / (2 * eps), rtol=1e-6)
    x32 = x.astype(np.float32)
    assert srcgrad.grad(sinc_sum)(x32).dtype == np.float32


@needs_jax
def test_sinc_near_zero_against_jax():
    # JAX's rule cancels as srcgrad's did (0.0 at 1e-9): compared from 0.05 on
    x = np.array([0.05, 0.0999, 0.1001, 0.7, -1.5])
    ours = srcgrad.grad(sinc_sum)(x)
    theirs = np.asarray(jax.grad(lambda v: jnp.sum(jnp.sinc(v)))(jnp.asarray(x)))
    np.testing.assert_allclose(ours, theirs, rtol=1e-12)
    ours_h = srcgrad.hessian(sinc_sum)(x)
    theirs_h = np.asarray(jax.hessian(lambda v: jnp.sum(jnp.sinc(v)))(jnp.asarray(x)))
    np.testing.assert_allclose(ours_h, theirs_h, rtol=1e-9, atol=1e-12)


# --- x ** y of a Python float 0.0 -------------------------------------------------------


def float_root(x):
    return x ** 0.5


def float_power(x, y):
    return x ** y


def roots_and_squares(x):
    return x ** 1.5 + 3.0 * x ** 2


def test_a_fractional_power_of_a_float_zero_has_derivative_inf():
    for zero in (0.0, -0.0):
        g = srcgrad.grad(float_root)(zero)  # was ZeroDivisionError: 0.0 cannot be raised to a negative power
        assert g == math.inf and type(g) is float
        assert srcgrad.jvp(float_root, (zero,), (1.0,)) == (0.0, math.inf)
    assert srcgrad.hessian(float_root)(0.0) == -math.inf
    assert srcgrad.grad(float_root)(4.0) == 0.25 and srcgrad.hessian(float_root)(4.0) == -1.0 / 32.0
    assert srcgrad.grad(float_power, wrt=0)(0.0, 0.5) == math.inf
    assert srcgrad.grad(float_power, wrt=0)(2.0, 0.5) == pytest.approx(0.5 / math.sqrt(2.0), rel=1e-15)
    assert srcgrad.grad(float_power, wrt=0)(0.0, 2.0) == 0.0 and srcgrad.grad(float_power, wrt=0)(0.0, 1.0) == 1.0
    assert srcgrad.grad(float_power, wrt=0)(0.0, 0.0) == 0.0  # the exponent drops to 0 with y
    with np.errstate(divide="ignore"):  # as math.sqrt and math.pow give it
        root = srcgrad.grad(lambda v: math.sqrt(v))(0.0)
        power = srcgrad.grad(lambda v: math.pow(v, 0.5))(0.0)
        assert root == power == math.inf
    # x ** 1.5 and x ** 2 at 0 keep their derivative 0, and their second derivatives
    assert srcgrad.grad(roots_and_squares)(0.0) == 0.0
    assert srcgrad.hessian(roots_and_squares)(0.0) == math.inf  # 0.75 / sqrt(0) + 6
    assert srcgrad.hessian(roots_and_squares)(0.25) == pytest.approx(0.75 / 0.5 + 6.0, rel=1e-14)


def test_a_fractional_power_of_arrays_is_unchanged():
    x = np.array([0.0, 0.25, 4.0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # NumPy's divide by zero at 0
        g = srcgrad.grad(lambda v: np.sum(v ** 0.5))(x)
        jac = srcgrad.jacobian(lambda v: v ** 0.5, mode="forward")(x)  # linearized: both branches computed
    np.testing.assert_array_equal(g, [math.inf, 1.0, 0.25])
    np.testing.assert_array_equal(np.diagonal(jac), [math.inf, 1.0, 0.25])
    h = srcgrad.hessian(lambda v: np.sum(v ** 0.5))(x[1:])
    np.testing.assert_allclose(np.diagonal(h), -0.25 * x[1:] ** -1.5, rtol=1e-15)


def test_a_literal_exponent_outside_0_1_leaves_the_plain_rule():
    def square(x):
        return x ** 2

    def inverse_cube(x):
        return x ** -3.0

    assert "out_bar * (2 * x)" in srcgrad.source(srcgrad.grad(square))
    text = srcgrad.source(srcgrad.grad(inverse_cube))
    assert "power_slope_at_zero" not in text and " if " not in text
    assert srcgrad.grad(inverse_cube)(2.0) == pytest.approx(-3.0 / 16.0, rel=1e-15)
    assert "power_slope_at_zero" in srcgrad.source(srcgrad.grad(float_root))


@needs_jax
def test_a_fractional_power_of_zero_against_jax():
    assert srcgrad.grad(float_root)(0.0) == float(jax.grad(lambda v: v ** 0.5)(0.0))


# --- np.nanmax / np.nanmin of a slice of NaNs alone ---------------------------------------


def nan_extrema(x):
    top = np.nanmax(x, axis=0)
    bottom = np.nanmin(x, axis=1, keepdims=True)
    return np.sum(np.where(np.isnan(top), 0.0, top) * np.array([1.0, 2.0, 3.0])) + np.sum(
        np.where(np.isnan(bottom), 0.0, bottom) * np.array([[5.0], [7.0], [11.0]]))


NANS = np.array([[1.0, np.nan, 2.0], [4.0, np.nan, -1.0], [np.nan, np.nan, np.nan]])


def test_a_slice_of_nans_alone_takes_no_gradient():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # NumPy's "All-NaN slice encountered"
        g = srcgrad.grad(nan_extrema)(NANS)
        _, tangent = srcgrad.jvp(lambda v: np.nanmax(v, axis=0), (NANS,), (np.ones((3, 3)),))
        _, tangent_min = srcgrad.jvp(lambda v: np.nanmin(v, axis=1), (NANS,), (np.ones((3, 3)),))
        f32 = srcgrad.grad(nan_extrema)(NANS.astype(np.float32))
    # column 1 and row 2 are NaNs alone: no gradient (it was NaN on each of their entries)
    expected = np.array([[5.0, 0.0, 3.0], [1.0, 0.0, 7.0], [0.0, 0.0, 0.0]])
    np.testing.assert_array_equal(g, expected)
    np.testing.assert_array_equal(tangent, [1.0, 0.0, 1.0])  # was [1, nan, 1]
    np.testing.assert_array_equal(tangent_min, [1.0, 1.0, 0.0])
    assert f32.dtype == np.float32 and np.array_equal(f32, expected)
    # np.max of a slice holding a NaN is NaN, and so stays its gradient
    with np.errstate(invalid="ignore"):
        assert np.isnan(srcgrad.grad(lambda v: np.max(v))(np.array([1.0, np.nan]))).all()


@pytest.mark.parametrize("reduction", [np.nanmean, np.nanvar, np.nanstd])
def test_a_slice_of_nans_alone_takes_no_gradient_in_nan_statistics(reduction):
    x = np.array([[np.nan, 1.0, 2.0], [np.nan, 2.0, 2.0], [np.nan, 4.0, 2.0]])  # column 0 NaNs alone
    column = x[:, 1]
    slope = {  # d/dx of the NaN-free column 1, analytic
        np.nanmean: np.full(3, 1.0 / 3.0),
        np.nanvar: 2.0 * (column - column.mean()) / 3.0,
        np.nanstd: (column - column.mean()) / 3.0 / column.std(),
    }[reduction]
    seed = np.array([1.0, 2.0, 3.0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # "Mean of empty slice", "Degrees of freedom <= 0"
        out, pullback = srcgrad.vjp(lambda v: reduction(v, axis=0), x)
        (g,) = pullback(seed)
        _, tangent = srcgrad.jvp(lambda v: reduction(v, axis=0), (x,), (np.ones((3, 3)),))
    assert np.isnan(out[0])
    np.testing.assert_array_equal(g[:, 0], [0.0, 0.0, 0.0])  # was NaN
    np.testing.assert_allclose(g[:, 1], 2.0 * slope, rtol=1e-14)
    np.testing.assert_allclose(g[:, 2], 0.0 if reduction is not np.nanmean else 3.0 / 3.0, atol=1e-15)
    assert tangent[0] == 0.0 and np.isfinite(tangent).all()  # was NaN for nanvar and nanstd
    np.testing.assert_allclose(tangent[1], np.sum(slope), atol=1e-15)


@needs_jax
def test_a_slice_of_nans_alone_against_jax():
    def f(v, np=np):
        return np.sum(np.nanmax(v, axis=0) * np.array([1.0, 2.0, 3.0]))

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        out, pullback = srcgrad.vjp(lambda v: np.nanmax(v, axis=0), NANS)
        ours = pullback(np.array([1.0, 2.0, 3.0]))[0]
    theirs = np.asarray(jax.grad(lambda v: f(v, jnp))(jnp.asarray(NANS)))
    np.testing.assert_array_equal(ours, theirs)


# --- conventions kept where the derivative does not exist -------------------------------


def test_conventions_at_kinks():
    """Where JAX picks another subgradient or gives NaN, srcgrad keeps its own (named in
    elementwise.py's and reductions.py's docstrings): these pin them."""
    at = np.array([0.0, -1.0, 1.0, 2.0])
    # abs and norms have derivative 0 at 0 (JAX: 1); a norm of a zero vector 0 (JAX: nan)
    np.testing.assert_array_equal(srcgrad.grad(lambda v: np.sum(np.abs(v)))(at), [0.0, -1.0, 1.0, 1.0])
    np.testing.assert_array_equal(srcgrad.grad(lambda v: np.linalg.norm(v))(np.zeros(3)), np.zeros(3))
    np.testing.assert_array_equal(srcgrad.grad(lambda v: np.std(v))(np.full(3, 2.0)), np.zeros(3))
    # clip passes the gradient to x at its bounds (JAX splits it with the bound, 1/2 each)
    np.testing.assert_array_equal(srcgrad.grad(lambda v: np.sum(np.clip(v, -1.0, 1.0)))(at), [1.0, 1.0, 1.0, 0.0])
    # maximum splits a tie 1/2 each, as JAX; a running maximum gives a tie to its first entry
    np.testing.assert_array_equal(srcgrad.grad(lambda v: np.sum(np.maximum(v, 1.0)))(at), [0.0, 0.0, 0.5, 1.0])
    ties = np.array([1.0, 3.0, 3.0, 2.0])
    np.testing.assert_array_equal(srcgrad.grad(lambda v: np.sum(np.maximum.accumulate(v)))(ties), [1.0, 3.0, 0.0, 0.0])
    # 0 ** 0 and x ** 0.0 at 0: derivative 0 in x (JAX: nan); logaddexp(-inf, -inf) 1/2 each (JAX: nan)
    assert srcgrad.grad(lambda v: np.sum(v ** 0.0))(np.zeros(2)).tolist() == [0.0, 0.0]
    with np.errstate(invalid="ignore"):  # -inf - -inf, guarded
        g = srcgrad.grad(lambda a, b: np.sum(np.logaddexp(a, b)), wrt=(0, 1))(np.array([-np.inf]), np.array([-np.inf]))
    assert [float(g[0][0]), float(g[1][0])] == [0.5, 0.5]


# --- refusals name what the rule takes ----------------------------------------------------


def hypot_of_three(x, y, z):
    return math.hypot(x, y, z)


def test_a_call_with_more_arguments_than_the_rule_names_the_rules_parameters():
    # Python's math.hypot takes any number of coordinates; srcgrad's rule two
    with pytest.raises(srcgrad.NotDifferentiableError) as info:
        srcgrad.grad(hypot_of_three)(1.0, 2.0, 2.0)
    message = str(info.value)
    assert "cannot differentiate this call of `math.hypot`: too many positional arguments" in message
    assert "srcgrad's rule for it takes `(x, y)` (in `hypot_of_three`)" in message
    assert f"line {hypot_of_three.__code__.co_firstlineno + 1}" in message


# --- linearized forward mode keeps conditional rules conditional --------------------------


def sine_of_power(x, y):
    return np.sum(np.sin(x ** y))


def test_a_forward_jacobian_of_a_power_with_an_array_exponent():
    # linearized code (one push per column) computed the operands of the rule's test
    # `... or not 0.0 < y < 1.0` eagerly: ValueError for an array y
    x, y = np.array([0.5, 1.5, 2.0]), np.array([2.0, 0.5, 3.0])
    jac = srcgrad.jacobian(sine_of_power, wrt=0, mode="forward")
    grad = srcgrad.grad(sine_of_power, wrt=0)
    exact = np.cos(x ** y) * y * x ** (y - 1.0)
    for _ in range(3):  # the first call, and the specialized ones after it
        np.testing.assert_allclose(jac(x, y), exact, rtol=1e-14)
        np.testing.assert_allclose(grad(x, y), exact, rtol=1e-14)
    np.testing.assert_allclose(exact, numerical_grad(sine_of_power, (x, y), 0), rtol=1e-8)
    h = srcgrad.hessian(sine_of_power)(x, y)
    second = -np.sin(x ** y) * (y * x ** (y - 1.0)) ** 2 + np.cos(x ** y) * y * (y - 1.0) * x ** (y - 2.0)
    np.testing.assert_allclose(h, np.diag(second), rtol=1e-13, atol=1e-15)
