"""NaN, infinity, empty and 0-d arrays flow through derivatives like through NumPy."""

import math
import warnings

import numpy as np
import pytest

import srcgrad

TRAPEZOID = getattr(np, "trapezoid", None) or np.trapz  # np.trapz before NumPy 2.0


def sum_sin_sq(x):
    return np.sum(np.sin(x) * x)


def loop_product(x):
    p = 1.0
    for i in range(x.shape[0]):
        p = p * x[i]
    return p


def branchy(x):
    if np.sum(x) > 0.0:
        return np.sum(x * x)
    return np.sum(np.exp(x))


def test_nan_input_gives_nan_gradient_without_crashing():
    g = srcgrad.grad(sum_sin_sq)(np.array([np.nan, 1.0]))
    assert np.isnan(g[0]) and g[1] == pytest.approx(np.cos(1.0) + np.sin(1.0))


def test_nan_through_loops_and_branches():
    with np.errstate(invalid="ignore"):
        g = srcgrad.grad(loop_product)(np.array([2.0, np.nan, 3.0]))
        assert np.isnan(g[0]) and g[1] == 6.0 and np.isnan(g[2])
        g = srcgrad.grad(branchy)(np.array([np.nan, 1.0]))
    assert np.isnan(g[0])


def test_nan_float_argument():
    assert np.isnan(srcgrad.grad(sum_sin_sq)(float("nan")))


def test_infinity_propagates():
    with np.errstate(invalid="ignore"):
        g = srcgrad.grad(sum_sin_sq)(np.array([np.inf, 0.5]))
    assert np.isnan(g[0]) and np.isfinite(g[1])


def test_empty_array_gives_empty_gradient():
    for shape in [(0,), (0, 3), (2, 0)]:
        g = srcgrad.grad(sum_sin_sq)(np.zeros(shape))
        assert g.shape == shape and g.dtype == np.float64


def test_empty_array_in_a_loop():
    g = srcgrad.grad(loop_product)(np.zeros(0))
    assert g.shape == (0,)


def test_zero_d_array_gives_zero_d_gradient():
    g = srcgrad.grad(sum_sin_sq)(np.array(0.5))
    assert isinstance(g, np.ndarray) and g.shape == ()
    assert float(g) == pytest.approx(np.cos(0.5) * 0.5 + np.sin(0.5))


def test_zero_d_float32_keeps_its_dtype():
    g = srcgrad.grad(sum_sin_sq)(np.array(0.5, dtype=np.float32))
    assert g.shape == () and g.dtype == np.float32


def test_vjp_of_empty_output():
    def double(x):
        return 2.0 * x

    out, pullback = srcgrad.vjp(double, np.zeros((0, 2)))
    (g,) = pullback(np.zeros((0, 2)))
    assert out.shape == (0, 2) and g.shape == (0, 2)


def test_complex_intermediates_are_refused_not_truncated():
    # the rules are for real numbers: a complex gradient cast to a real argument lost
    # its imaginary part with only a ComplexWarning (|x (1+i)|^2 = 2 x^2 gave 0), and
    # through an element read (x[0] + 1j x[1]) the wrong gradient had no warning at all
    def through_complex(x):
        return np.sum(np.abs(x * (1 + 1j)) ** 2)

    def scalar_through_complex(x):
        return abs(x * (1 + 1j)) ** 2

    def complex_from_elements(x):
        z = x[0] + 1j * x[1]
        return abs(z * z)

    def complex_constant_by_name(x):
        c = 2j
        w = c * x
        return np.sum(np.real(w * w))

    x = np.array([0.5, -1.2, 2.0])
    cases = ((through_complex, x, 2), (scalar_through_complex, 0.7, 2), (complex_from_elements, x, 2),
             (complex_constant_by_name, x, 2))
    for f, arg, line in cases:
        for transform in (lambda f: srcgrad.grad(f), lambda f: srcgrad.jvp(f, (arg,), (arg,))):
            with pytest.raises(srcgrad.NotDifferentiableError, match="computes a complex number on the differentiated path") as info:
                transform(f)
            assert info.value.lineno == f.__code__.co_firstlineno + line - 1


def test_complex_constants_made_real_are_fine():
    def roots_of_unity_weights(x):
        w = np.exp(2j * np.pi * np.arange(3) / 3).real
        return np.sum(w * x ** 2)

    x = np.array([0.5, -1.2, 2.0])
    w = np.cos(2 * np.pi * np.arange(3) / 3)
    np.testing.assert_allclose(srcgrad.grad(roots_of_unity_weights)(x), 2 * w * x, rtol=1e-12)
    assert srcgrad.jvp(roots_of_unity_weights, (x,), (np.ones(3),))[1] == pytest.approx(np.sum(2 * w * x), rel=1e-12)

def test_complex_values_made_at_run_time_are_refused_in_both_modes():
    # no complex constant to refuse at decoration: (negative float) ** 0.5 is complex in
    # Python, and astype(complex) asks for it; the gradient dropped the imaginary part in
    # the element read's adjoint, and jvp gave a complex tangent for a real output
    def negative_root(x):
        t = float(x[0]) - 1.0
        z = t ** 0.5
        return abs(z) * x[1]

    def complex_dtype(x):
        y = x.astype(np.complex128)
        return np.sum(np.abs(y * y[::-1]))

    x = np.array([0.3, -0.8, 0.5])
    for f in (negative_root, complex_dtype):
        with pytest.raises(TypeError, match="a complex gradient reached a real argument"):
            srcgrad.grad(f)(x.copy())
        with pytest.raises(TypeError, match="a complex tangent reached a real output of `" + f.__name__):
            srcgrad.jvp(f, (x.copy(),), (np.ones(3),))
        with pytest.raises(TypeError, match="a complex tangent reached a real output"):
            srcgrad.jacobian(f, mode="forward")(x.copy())


            srcgrad.grad(f)(arg)


# Reductions of empty arrays: NumPy gives 1 (prod), 0 (sum) or nan (mean, var, std, with
# a RuntimeWarning); the rules raised IndexError (prod), ZeroDivisionError (mean, var)
# or ValueError (trapezoid, np.prod over axis 0 of shape (0, 3)) where the gradient is
# simply empty.
# fmt: off
def prod_rows(x): return np.sum(np.prod(x, axis=1))
def prod_cols(x): return np.sum(x.prod(axis=0))
def prod_all(x): return np.prod(x) + np.nanprod(x)
def mean_all(x): return np.mean(x) + x.mean() + np.average(x)
def mean_rows(x): return np.sum(np.mean(x, axis=1))
def var_std(x): return np.var(x) + np.std(x)
def var_std_rows(x): return np.sum(np.var(x, axis=1) + np.std(x, axis=1, ddof=1))
def trapezoid_rows(x): return np.sum(TRAPEZOID(x, axis=1))
def cumulative(x): return np.sum(np.cumsum(x, axis=1) + np.cumprod(x, axis=1))
def norm_logsumexp(x): return np.linalg.norm(x) + np.log(np.sum(np.exp(x)))
# fmt: on
EMPTY_REDUCTIONS = [prod_rows, prod_cols, prod_all, mean_all, mean_rows, var_std, var_std_rows, trapezoid_rows,
                    cumulative, norm_logsumexp]


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("shape", [(3, 0), (0, 3), (0, 0)])
@pytest.mark.parametrize("f", EMPTY_REDUCTIONS, ids=lambda f: f.__name__)
def test_reductions_of_empty_arrays_give_empty_gradients(f, shape, dtype):
    x = np.zeros(shape, dtype)
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # NumPy's "Mean of empty slice"
        out = f(x)
        g = srcgrad.grad(f)(x)
        _, out_dot = srcgrad.jvp(f, (x,), (np.ones(shape, dtype),))
        h = srcgrad.hessian(f)(x)
    assert type(g) is np.ndarray and g.shape == shape and g.dtype == dtype
    assert h.shape == shape + shape and h.dtype == dtype
    # no entry moves the output: a zero tangent where NumPy's output is a number
    assert out_dot == 0.0 if np.isfinite(out) else np.isnan(out_dot)


def part_empty(x):
    kept = np.prod(x[:, :0], axis=1) * x[:, 0]  # prod of nothing: 1
    return np.sum(kept) + np.prod(x[2:2]) + np.sum(TRAPEZOID(x[:, :0], axis=1)) + np.nan_to_num(np.var(x[:0]))


def test_empty_parts_of_a_nonempty_array():
    x = np.arange(1.0, 7.0).reshape(3, 2)
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        g = srcgrad.grad(part_empty)(x)
        h = srcgrad.hessian(part_empty)(x)
    np.testing.assert_array_equal(g, [[1.0, 0.0], [1.0, 0.0], [1.0, 0.0]])
    np.testing.assert_array_equal(h, np.zeros((3, 2, 3, 2)))


def max_rows(x):
    return np.sum(np.max(x, axis=1))


def test_max_over_an_empty_axis_raises_numpys_error():
    x = np.zeros((3, 0))
    with pytest.raises(ValueError) as numpy_error:
        max_rows(x)
    for derivative in (srcgrad.grad(max_rows), lambda x: srcgrad.jvp(max_rows, (x,), (x,))):
        with pytest.raises(ValueError) as error:
            derivative(x)
        assert str(error.value) == str(numpy_error.value)
    assert srcgrad.grad(max_rows)(np.zeros((0, 3))).shape == (0, 3)  # no rows: nothing to reduce


def _sqrt_of(x):
    return math.sqrt(x)


def _asin_of(x):
    return math.asin(x)


def _acos_of(x):
    return math.acos(x)


def _acosh_of(x):
    return math.acosh(x)


def _root_of(x):
    return math.pow(x, 0.5)


def _distance(x, y):
    return math.hypot(x, y)


def _hypot_of(x):
    return np.sum(np.hypot(x, 2.0 * x))


@pytest.mark.parametrize("f, x, first, second, regular", [
    (_sqrt_of, 0.0, math.inf, -math.inf, 0.25),
    (_asin_of, 1.0, math.inf, math.inf, 0.5),
    (_asin_of, -1.0, math.inf, -math.inf, -0.5),
    (_acos_of, 1.0, -math.inf, -math.inf, 0.5),
    (_acosh_of, 1.0, math.inf, -math.inf, 2.0),
    (_root_of, 0.0, math.inf, -math.inf, 0.25),
], ids=lambda v: getattr(v, "__name__", None))
def test_an_infinite_derivative_of_a_python_float_is_infinite_as_in_numpy(f, x, first, second, regular):
    """math.sqrt(0.0) is 0.0, but its gradient raised ZeroDivisionError from the generated
    code (`0.5 / sqrt_x`), and math.pow(0.0, 0.5)'s ValueError; math.asin(1.0) and
    math.acos(1.0) and math.acosh(1.0) the same. Each is now what the formula gives in
    np.float64, a Python float, in both modes and in the second derivative."""
    with np.errstate(divide="ignore", invalid="ignore"):
        g = srcgrad.grad(f)(x)
        assert type(g) is float and g == first
        assert srcgrad.jvp(f, (x,), (1.0,))[1] == first
        assert srcgrad.hessian(f)(x) == second
    assert srcgrad.grad(f)(regular) == pytest.approx(_central(f, regular))
    assert srcgrad.hessian(f)(regular) == pytest.approx(_central(srcgrad.grad(f), regular))


def _central(f, x, h=1e-6):
    return (f(x + h) - f(x - h)) / (2 * h)


def test_hypot_and_atan2_at_the_origin():
    """hypot(0, 0) is a norm at zero: derivative 0 (as np.linalg.norm of a zero vector),
    where math.hypot raised ZeroDivisionError and np.hypot gave nan; atan2(0, 0) has no
    derivative: nan, as np.arctan2 gives, where math.atan2 raised ZeroDivisionError."""
    with np.errstate(divide="ignore", invalid="ignore"):
        assert srcgrad.grad(_distance, wrt=(0, 1))(0.0, 0.0) == (0.0, 0.0)
        assert all(math.isnan(v) for v in srcgrad.grad(lambda x, y: math.atan2(y, x), wrt=(0, 1))(0.0, 0.0))
        x = np.array([0.0, 1.0])
        for mode in ("forward", "reverse"):
            assert np.allclose(srcgrad.jacobian(_hypot_of, mode=mode)(x), [0.0, math.sqrt(5.0)])
    assert srcgrad.grad(_distance, wrt=(0, 1))(3.0, 4.0) == pytest.approx((0.6, 0.8))


def _atanh_twice(y):
    return math.atanh(y) * 2.0 + math.asin(y / 3.0)


def _unused_root(x, c):
    r = math.sqrt(c)  # read by nothing the derivative needs: `c` is not differentiated
    return x * 2.0 + 0.0 * r


@pytest.mark.parametrize("make", [
    lambda f: srcgrad.grad(f),
    lambda f: srcgrad.value_and_grad(f),
    lambda f: (lambda *a: srcgrad.vjp(f, *a)[1](1.0)),
    lambda f: srcgrad.hessian(f),
], ids=["grad", "value_and_grad", "vjp", "hessian"])
def test_a_math_function_outside_its_domain_raises_in_the_derivative_as_in_the_function(make):
    # the derivative of atanh(y) * 2 needs no atanh(y); dropped, the gradient was -1.6 at y = 1.5
    derivative = make(_atanh_twice)
    for _ in range(2):  # the general code, then the specialized one
        assert np.isfinite(derivative(0.5)).all()
        with pytest.raises(ValueError, match="math domain error"):
            derivative(1.5)
    with pytest.raises(ValueError, match="math domain error"):
        _atanh_twice(1.5)
    assert srcgrad.grad(_atanh_twice)(0.5) == pytest.approx(2.0 / (1.0 - 0.25) + 1.0 / 3.0 / math.sqrt(1.0 - 0.5 ** 2 / 9.0))
    df = srcgrad.grad(_unused_root)
    assert df(1.0, 4.0) == 2.0 and df(1.0, 4.0) == 2.0
    with pytest.raises(ValueError, match="math domain error"):
        df(1.0, -4.0)
