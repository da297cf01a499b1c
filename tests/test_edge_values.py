"""NaN, infinity, empty and 0-d arrays flow through derivatives like through NumPy."""

import numpy as np
import pytest

import srcgrad


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
