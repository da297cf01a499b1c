"""`with` blocks over context managers that change no values (compiler/contexts.py):
gradients against central differences (float64) and the analytic answer, jvp against
the gradient, Hessians against differences of the gradient, vjp, both Jacobians and
grad of grad agreeing, inputs left as they were, the block kept in the forward and the
backward pass of the printed derivative; the `with` blocks that stay refused, with
their messages."""

import contextlib
import warnings

import numpy as np
import pytest

import srcgrad
from conftest import numerical_grad
from program_checks import check, check_hessian

# ---------------------------------------------------------------------------- programs


def errstate_log_over(x):
    with np.errstate(divide="ignore", invalid="ignore"):
        y = np.log(x) / x
    return np.sum(y)


def branch_nested_blocks(x, c):
    if c > 0:
        with np.errstate(divide="ignore"), warnings.catch_warnings():
            warnings.filterwarnings("ignore", category=RuntimeWarning)
            y = np.sqrt(x) / x
    else:
        y = x * x
    with np.errstate(over="ignore"):
        with np.printoptions(precision=3):
            z = np.exp(y)
    return np.sum(z)


def catch_warnings_simplefilter(x):
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        y = np.tanh(x) ** 2
    return np.sum(y * x)


def loop_with_break_inside(x):
    s = 0.0
    with np.errstate(divide="ignore"):
        for i in range(5):
            if i > 2:
                break
            s = s + np.sum(x ** i / (1.0 + x))
    return s


def block_in_loop_returning(x):
    s = 0.0
    for i in range(3):
        with np.errstate(divide="ignore"):
            s = s + np.sum(x / (x + i))
    with np.errstate(all="ignore"):
        return s * s


def while_in_nullcontext(x):
    k, y = 0, x
    with contextlib.nullcontext():
        while k < 3:
            y = np.sin(y) * x
            k += 1
    return np.sum(y)


def nested_def_returning_in_block(x):
    def inner(v):
        with np.errstate(invalid="ignore"):
            return np.sin(v) * v
    return np.sum(inner(x) + inner(x * 2.0))


def _helper_with_block(v):
    with np.errstate(divide="ignore"):
        w = v / (v + 1.0)
    return w


def calls_a_helper_with_a_block(x):
    return np.sum(_helper_with_block(x) * x)


def scalar_block(a):
    with np.errstate(divide="ignore"):
        b = np.log(a) / a
    return b * a * a  # a log a


X = np.array([0.5, 2.0, 1.3])
PROGRAMS = [
    (errstate_log_over, (X,)),
    (branch_nested_blocks, (X, 1.0)),
    (branch_nested_blocks, (X, -1.0)),
    (catch_warnings_simplefilter, (X,)),
    (loop_with_break_inside, (X,)),
    (block_in_loop_returning, (X,)),
    (while_in_nullcontext, (X,)),
    (nested_def_returning_in_block, (X,)),
    (calls_a_helper_with_a_block, (X,)),
]


@pytest.mark.parametrize("fn, args", PROGRAMS, ids=lambda v: getattr(v, "__name__", ""))
def test_gradient_jvp_and_hessian_of_a_with_block(fn, args):
    check(fn, *args)
    check_hessian(fn, args, 0)


@pytest.mark.parametrize("fn, args", PROGRAMS, ids=lambda v: getattr(v, "__name__", ""))
def test_every_transform_agrees_through_a_with_block(fn, args):
    g = srcgrad.grad(fn)(*args)
    value, g2 = srcgrad.value_and_grad(fn)(*args)
    assert value == fn(*args)
    np.testing.assert_array_equal(g2, g)
    out, pullback = srcgrad.vjp(fn, *args)
    assert out == fn(*args)
    np.testing.assert_array_equal(pullback(1.0)[0], g)
    for mode in ("reverse", "forward"):
        jac = srcgrad.jacobian(fn, mode=mode)(*args)
        assert jac.shape == X.shape and jac.dtype == np.float64
        np.testing.assert_allclose(jac, g, rtol=1e-12, atol=1e-14)


def test_analytic_values():
    x = X.copy()
    np.testing.assert_allclose(srcgrad.grad(errstate_log_over)(x), (1.0 - np.log(x)) / x ** 2, rtol=1e-12)
    np.testing.assert_allclose(srcgrad.hessian(errstate_log_over)(x), np.diag((2.0 * np.log(x) - 3.0) / x ** 3), rtol=1e-12)
    # a log a: first derivative log a + 1, second 1 / a
    assert srcgrad.grad(scalar_block)(1.7) == pytest.approx(np.log(1.7) + 1.0, rel=1e-14)
    assert srcgrad.grad(srcgrad.grad(scalar_block))(1.7) == pytest.approx(1.0 / 1.7, rel=1e-14)
    assert srcgrad.grad(scalar_block)(1.7) == pytest.approx(numerical_grad(scalar_block, (1.7,), 0), rel=1e-8)


def test_float32_gradient_keeps_dtype_and_shape():
    x = np.array([[0.5, 2.0], [1.5, 3.0]], dtype=np.float32)
    g = srcgrad.grad(errstate_log_over)(x)
    assert g.dtype == np.float32 and g.shape == x.shape
    np.testing.assert_allclose(g, (1.0 - np.log(x.astype(np.float64))) / x.astype(np.float64) ** 2, rtol=1e-5)


def infinite_at_zero(x):
    with np.errstate(divide="ignore", invalid="ignore"):
        y = np.log(x)
        z = np.where(np.isfinite(y), y, 0.0)
    return np.sum(z)


def test_the_backward_pass_runs_under_the_context_too():
    x = np.array([0.0, 2.0])
    df = srcgrad.grad(infinite_at_zero)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a division by zero anywhere would raise
        g = df(x)
        np.testing.assert_allclose(infinite_at_zero(x), np.log(2.0))
    assert np.isnan(g[0]) or g[0] == 0.0
    assert g[1] == 0.5
    text = srcgrad.source(df)
    forward, backward = text.split("# Backward pass")
    assert "with np.errstate(divide='ignore', invalid='ignore'):" in forward
    assert "with np.errstate(divide='ignore', invalid='ignore'):" in backward
    hessian = srcgrad.hessian(infinite_at_zero)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        h = hessian(np.array([1.0, 2.0]))
    np.testing.assert_allclose(h, np.diag([-1.0, -0.25]), rtol=1e-12)


def test_catch_warnings_setup_is_replayed_in_the_backward_pass():
    text = srcgrad.source(srcgrad.grad(catch_warnings_simplefilter))
    forward, backward = text.split("# Backward pass")
    for part in (forward, backward):
        assert "with warnings.catch_warnings():\n" in part
        assert "warnings.simplefilter('ignore')" in part


def test_a_pullback_runs_its_block_under_the_context():
    out, pullback = srcgrad.vjp(infinite_at_zero, np.array([0.0, 2.0]))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        (g,) = pullback(1.0)
        (g_again,) = pullback(2.0)
    assert g[1] == 0.5 and g_again[1] == 1.0


# ---------------------------------------------------------------------------- refusals


def bound_by_as(x):
    with np.errstate(divide="ignore") as state:
        y = x / x
    return np.sum(y)


def suppressed(x):
    with contextlib.suppress(ValueError):
        y = x * 2.0
    return np.sum(y)


def opened(x):
    with open("data.txt"):
        y = x * 2.0
    return np.sum(y)


def argument_not_constant(x, mode):
    with np.errstate(divide=mode):
        y = x * 2.0
    return np.sum(y)


def returns_from_the_middle(x):
    with np.errstate(divide="ignore"):
        if x[0] > 0:
            return np.sum(x)
        y = x * 2.0
    return np.sum(y)


def breaks_out_of_the_block(x):
    s = 0.0
    for i in range(3):
        with np.errstate(divide="ignore"):
            s = s + np.sum(x)
            if s > 1.0:
                break
    return s


def context_in_a_variable(x):
    quiet = np.errstate(divide="ignore")
    with quiet:
        y = x * 2.0
    return np.sum(y)


ALLOWED = "(`np.errstate`, `np.printoptions`, `warnings.catch_warnings`, `contextlib.nullcontext`, made in the `with` line itself)"
REFUSED = [
    (bound_by_as, "`with np.errstate(divide='ignore') as state` is not supported by srcgrad.grad (in `bound_by_as`): srcgrad "
     "differentiates a `with` block only where `as` binds nothing; drop `as ...`, or move the block outside the "
     "differentiated function"),
    (suppressed, "`with contextlib.suppress(ValueError)` is not supported by srcgrad.grad (in `suppressed`): it swallows "
     "exceptions, so which statements run depends on them; srcgrad differentiates a `with` block only over context "
     f"managers that change no values {ALLOWED}; move the block outside the differentiated function"),
    (opened, "`with open('data.txt')` is not supported by srcgrad.grad (in `opened`): srcgrad differentiates a `with` block "
     f"only over context managers that change no values {ALLOWED}; move the block outside the differentiated function"),
    (argument_not_constant, "`with np.errstate(divide=mode)` is not supported by srcgrad.grad (in `argument_not_constant`): "
     "the arguments of a context manager must be constants (`np.errstate(divide='ignore')`); write them out"),
    (returns_from_the_middle, "`return` inside a `with` block, leaving it, is not supported by srcgrad.grad (in "
     "`returns_from_the_middle`); assign the value and `return` it as the block's last statement, or after the block"),
    (breaks_out_of_the_block, "`break` inside a `with` block, leaving it, is not supported by srcgrad.grad (in "
     "`breaks_out_of_the_block`); set a flag in the block and `break` after it"),
    (context_in_a_variable, "`with quiet` is not supported by srcgrad.grad (in `context_in_a_variable`): srcgrad "
     f"differentiates a `with` block only over context managers that change no values {ALLOWED}; move the block "
     "outside the differentiated function"),
]


@pytest.mark.parametrize("fn, message", REFUSED, ids=lambda v: getattr(v, "__name__", ""))
def test_refused_with_blocks_name_the_line_and_what_to_do(fn, message):
    with pytest.raises(srcgrad.SrcGradError) as info:
        srcgrad.grad(fn)
    assert info.value.msg == message
    assert info.value.filename.endswith("test_with_blocks.py")
    assert "with" in info.value.text or "return" in info.value.text or "break" in info.value.text
    args, tangents = ((X, "ignore"), (X, None)) if fn is argument_not_constant else ((X,), (X,))
    with pytest.raises(srcgrad.SrcGradError, match="is not supported by srcgrad.jvp"):
        srcgrad.jvp(fn, args, tangents)
