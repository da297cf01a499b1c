"""The public API's contract: wrt forms, types of gradients, errors with file and line."""

import os

import numpy as np
import pytest

import srcgrad

HERE = os.path.abspath(__file__)


def poly(x, y):
    return np.sum(x * x * y)


def test_wrt_index_name_and_tuple():
    x, y = np.array([1.0, 2.0]), np.array([3.0, 4.0])
    np.testing.assert_allclose(srcgrad.grad(poly)(x, y), 2 * x * y)
    np.testing.assert_allclose(srcgrad.grad(poly, wrt="y")(x, y), x * x)
    gx, gy = srcgrad.grad(poly, wrt=(0, "y"))(x, y)
    np.testing.assert_allclose(gx, 2 * x * y)
    np.testing.assert_allclose(gy, x * x)


def test_decorator_with_and_without_arguments():
    @srcgrad.grad
    def f(a):
        return a * a * a

    @srcgrad.grad(wrt=1)
    def g(a, b):
        return a * b * b

    assert f(2.0) == 12.0
    assert g(2.0, 3.0) == 12.0


def test_float_in_float_out_and_dtypes():
    def f(x):
        return np.sum(np.sin(x))

    assert type(srcgrad.grad(f)(0.5)) is float
    g32 = srcgrad.grad(f)(np.ones(3, dtype=np.float32))
    assert g32.dtype == np.float32 and g32.shape == (3,)
    g0 = srcgrad.grad(f)(np.array(0.5))
    assert isinstance(g0, np.ndarray) and g0.shape == ()
    np.testing.assert_allclose(g0, np.cos(0.5))


def test_value_and_grad():
    value, g = srcgrad.value_and_grad(poly, wrt=0)(np.array([1.0]), np.array([2.0]))
    assert value == 2.0
    np.testing.assert_allclose(g, [4.0])


def test_vjp_pullback_gives_one_gradient_per_argument():
    def f(x, W):
        return np.tanh(W @ x)

    x, W = np.array([0.1, 0.2]), np.array([[1.0, 2.0], [3.0, 4.0]])
    out, pullback = srcgrad.vjp(f, x, W)
    np.testing.assert_allclose(out, f(x, W))
    seed = np.array([1.0, -1.0])
    gx, gW = pullback(seed)
    local = seed * (1 - np.tanh(W @ x) ** 2)
    np.testing.assert_allclose(gx, W.T @ local)
    np.testing.assert_allclose(gW, np.outer(local, x))


def test_unused_argument_gets_zero_gradient():
    def f(x, y):
        return np.sum(x)

    g = srcgrad.grad(f, wrt=1)(np.ones(2), np.ones(3))
    np.testing.assert_array_equal(g, np.zeros(3))


def test_source_is_deterministic_and_readable():
    def f(x):
        return np.sin(x) * x

    text = srcgrad.source(srcgrad.grad(f))
    assert text.startswith("import numpy as np\n") and "\n\n\ndef f_grad(x):" in text  # imports, then the def
    assert "x_bar" in text and "zeros_like" not in text
    assert "test_api.py" in text
    assert text == srcgrad.source(srcgrad.grad(f, verbose=False))


def test_live_globals_are_seen():
    def f(x):
        return x * FACTOR

    globals()["FACTOR"] = 2.0
    df = srcgrad.grad(f)
    assert df(1.0) == 2.0
    globals()["FACTOR"] = 5.0
    assert df(1.0) == 5.0


def _line_of(fn, text):
    import inspect

    lines, start = inspect.getsourcelines(fn)
    return start + next(i for i, line in enumerate(lines) if text in line)


def test_unsupported_construct_names_file_and_line():
    def f(x):
        try:
            return x * 2
        except ValueError:
            return x

    with pytest.raises(srcgrad.SrcGradError) as info:
        srcgrad.grad(f)
    err = info.value
    assert isinstance(err, SyntaxError)
    assert err.filename == HERE and err.lineno == _line_of(f, "try:")
    assert "`try`" in str(err.msg) and "in `f`" in str(err.msg)


def test_missing_rule_names_function_and_call_site():
    def f(x):
        return np.sum(np.i0(x))

    with pytest.raises(srcgrad.NotDifferentiableError) as info:
        srcgrad.grad(f)
    assert "numpy.i0" in str(info.value.msg)
    assert info.value.lineno == _line_of(f, "np.i0")
    assert "srcgrad.defvjp" in str(info.value.msg)


def test_non_scalar_output_is_a_type_error_naming_the_shape():
    def f(x):
        return x * 2.0

    with pytest.raises(TypeError, match=r"\(3,\)"):
        srcgrad.grad(f)(np.ones(3))


@pytest.mark.parametrize("bad", [1, True, np.arange(3)])
def test_integer_arguments_are_not_differentiable(bad):
    with pytest.raises(TypeError, match="no gradient"):
        srcgrad.grad(poly)(bad, np.ones(3))


@pytest.mark.parametrize("wrt", [2, -3, "z", 1.5])
def test_bad_wrt(wrt):
    with pytest.raises(TypeError, match="poly"):
        srcgrad.grad(poly, wrt=wrt)


def test_inputs_are_not_mutated():
    x = np.array([1.0, 2.0, 3.0])
    before = x.copy()
    srcgrad.grad(lambda_free_sum)(x)
    np.testing.assert_array_equal(x, before)


def lambda_free_sum(x):
    y = x
    y = y * 2.0
    return np.sum(y * x)
