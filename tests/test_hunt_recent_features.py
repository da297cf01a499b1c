"""Regressions from a hunt for wrong derivatives and forward values in the most recent
features (`try` statements, `match` statements, the None-default idiom, NumPy calls
writing into arrays, `functools.reduce`, located errors, scipy.linalg rules and the
Tensor shim's item assignment): each compared with central differences or an answer
derived by hand."""

import numpy as np
import pytest

import srcgrad
from conftest import numerical_grad

# ------------------------------------------------------------------ try statements


X = np.array([0.3, -0.7, 1.1])


def sqrt_or_line(x):
    with np.errstate(all="raise"):
        try:
            y = np.sqrt(x)
        except FloatingPointError:
            y = 2.0 * x
    return np.sum(y * x)


def repeated_sqrt(x):
    y = x * 1.0
    for _ in range(2):
        with np.errstate(all="raise"):
            try:
                y = np.sqrt(y) + y
            except FloatingPointError:
                y = y * 3.0
    return np.sum(y)


def exp_into_buffer_in_try(x, table):
    y = np.zeros(3)
    try:
        np.exp(x, out=y)
        w = table["k"]
    except KeyError:
        w = 2.0
    return w * np.sum(y * x)


def test_a_numpy_write_in_a_try_block_is_refused_as_what_the_user_wrote():
    # it was refused as "an assignment to an entry or an attribute", which the line is not
    with pytest.raises(srcgrad.SrcGradError, match=r"a NumPy call writing into an array \(`out=`") as info:
        srcgrad.grad(exp_into_buffer_in_try)(X, {})
    assert f"line {exp_into_buffer_in_try.__code__.co_firstlineno + 3})" in str(info.value)


def test_a_tangent_that_raises_is_not_taken_by_the_users_handler():
    # jvp ran the tangent statements inside the user's `try`: where the derivative of
    # sqrt is infinite (x = 0) the tangent's division raised FloatingPointError, the
    # user's handler ran and jvp returned the handler's value (8.5, not 3.18...)
    x = np.array([0.0, 0.5, 2.0])
    with pytest.raises(FloatingPointError) as info:
        srcgrad.jvp(sqrt_or_line, (x,), (np.ones(3),))
    assert "line" in "".join(getattr(info.value, "__notes__", []))
    x = np.array([1.0, 0.5, 2.0])
    t = np.array([0.3, -1.0, 2.0])
    out, out_dot = srcgrad.jvp(sqrt_or_line, (x,), (t,))
    assert out == sqrt_or_line(x)
    np.testing.assert_allclose(out_dot, np.sum(1.5 * np.sqrt(x) * t), rtol=1e-12)


def test_tangents_after_a_statement_reading_its_own_target():
    x = np.array([1.0, 0.5, 2.0])
    t = np.array([0.3, -1.0, 2.0])
    out, out_dot = srcgrad.jvp(repeated_sqrt, (x,), (t,))
    assert out == repeated_sqrt(x)
    y1 = np.sqrt(x) + x
    d1 = 0.5 / np.sqrt(x) + 1.0
    d2 = (0.5 / np.sqrt(y1) + 1.0) * d1
    np.testing.assert_allclose(out_dot, np.sum(d2 * t), rtol=1e-12)
    np.testing.assert_allclose(srcgrad.grad(repeated_sqrt)(x), d2, rtol=1e-12)
    np.testing.assert_allclose(srcgrad.grad(repeated_sqrt)(x), numerical_grad(repeated_sqrt, (x,), 0), rtol=1e-6)


# ------------------------------------------------- defaults changed after the first call


def act_default(v, act=np.tanh):
    return act(v)


def calls_act_default(x):
    return np.sum(act_default(x) * x)


def squared_act(x, act=np.tanh):
    return np.sum(act(x) ** 2)


def squared_act_none(x, act=None):
    if act is None:
        act = np.tanh
    return np.sum(act(x) ** 2)


X = np.array([0.3, -0.7, 1.1])


@pytest.fixture
def restore_defaults():
    kept = [(f, f.__defaults__) for f in (act_default, squared_act, squared_act_none)]
    yield
    for f, d in kept:
        f.__defaults__ = d


def test_a_callees_function_default_changed_after_the_first_call(restore_defaults):
    # the caller's derivative was bound to the callee's old default function (tanh) and
    # was not built again: the value read sin, the derivative was tanh's
    g = srcgrad.grad(calls_act_default)
    t = np.tanh(X)
    np.testing.assert_allclose(g(X), t + X * (1 - t * t), rtol=1e-12)
    act_default.__defaults__ = (np.sin,)
    expected = np.sin(X) + X * np.cos(X)
    np.testing.assert_allclose(g(X), expected, rtol=1e-12)
    np.testing.assert_allclose(g(X), numerical_grad(calls_act_default, (X,), 0), rtol=1e-6)
    value, grad = srcgrad.value_and_grad(calls_act_default)(X)
    assert value == calls_act_default(X)
    np.testing.assert_allclose(grad, expected, rtol=1e-12)
    np.testing.assert_allclose(np.diag(srcgrad.hessian(calls_act_default)(X)), 2 * np.cos(X) - X * np.sin(X), rtol=1e-12)


@pytest.mark.parametrize("fn", [squared_act, squared_act_none])
def test_a_function_default_changed_to_one_an_earlier_call_passed(fn, restore_defaults):
    # the transform made for `fn(x, np.sin)` was taken for `fn(x)` once the default was
    # np.sin, and ran with the default its copy held (tanh, or None: a TypeError)
    g, vg = srcgrad.grad(fn), srcgrad.value_and_grad(fn)
    t = np.tanh(X)
    np.testing.assert_allclose(g(X), 2 * t * (1 - t * t), rtol=1e-12)
    np.testing.assert_allclose(g(X, np.sin), 2 * np.sin(X) * np.cos(X), rtol=1e-12)
    fn.__defaults__ = (np.sin,)
    expected = 2 * np.sin(X) * np.cos(X)
    np.testing.assert_allclose(g(X), expected, rtol=1e-12)
    value, grad = vg(X)
    assert value == fn(X)
    np.testing.assert_allclose(grad, expected, rtol=1e-12)
    out, out_dot = srcgrad.jvp(fn, (X,), (np.ones(3),))
    assert out == fn(X)
    np.testing.assert_allclose(out_dot, np.sum(expected), rtol=1e-12)
    np.testing.assert_allclose(g(X), numerical_grad(fn, (X,), 0), rtol=1e-6)


# ------------------------------------------------------- NumPy calls writing into arrays


def add_into_ints(x):
    y = np.zeros(3, dtype=np.int64)
    np.add(x, 1.0, out=y)
    return np.sum(y * x)


def copy_into_ints(x):
    y = np.zeros(3, dtype=np.int64)
    np.copyto(y, x * 3.0)
    return np.sum(y * x)


def dot_into_float32(a, b):
    y = np.zeros(3, dtype=np.float32)
    np.dot(a, b, out=y)
    return np.sum(y * b)


def sum_into_int(x):
    y = np.zeros((), dtype=np.int64)
    x.sum(out=y)  # a reduction casts as an assignment does
    return y * x[0]


def exp_into_float32(x):
    y = np.zeros(3, dtype=np.float32)
    np.exp(x, out=y)
    np.multiply(y, 2.0, y)
    return np.sum(y.astype(np.float64) * x)


@pytest.mark.parametrize("fn, args, error", [
    (add_into_ints, (X,), TypeError),
    (copy_into_ints, (X,), TypeError),
    (dot_into_float32, (0.5 * np.eye(3), X), ValueError),
])
def test_a_write_numpy_refuses_to_cast_raises_as_numpy_does(fn, args, error):
    # spelled `y[...] = value`, the write cast a float result into an integer (or float32)
    # array where NumPy's call raises: the derivative returned a number for a function
    # that cannot run
    with pytest.raises(error):
        fn(*args)
    for transform in (srcgrad.grad, srcgrad.value_and_grad):
        with pytest.raises(error):
            transform(fn)(*args)
    with pytest.raises(error):
        srcgrad.jvp(fn, args, tuple(np.ones_like(a) for a in args))


def test_writes_numpy_casts_still_run():
    value, g = srcgrad.value_and_grad(sum_into_int)(X)
    assert value == sum_into_int(X)
    np.testing.assert_allclose(g, [float(np.int64(np.sum(X))), 0.0, 0.0])
    value, g = srcgrad.value_and_grad(exp_into_float32)(X)
    assert value == exp_into_float32(X)
    e = np.exp(X).astype(np.float32).astype(np.float64)
    np.testing.assert_allclose(g, 2.0 * e * (1.0 + X), rtol=1e-6)


# --------------------------------------------------------------------- scipy.linalg

sla = pytest.importorskip("scipy.linalg")


def lu_used_twice(A, b):
    lu = sla.lu_factor(A)
    return np.sum(sla.lu_solve(lu, b) ** 2) + np.sum(sla.lu_solve(lu, b, trans=1))


def cho_used_twice(S, b):
    c = sla.cho_factor(S)
    return np.sum(sla.cho_solve(c, b) ** 2) + np.sum(sla.cho_solve(c, b))


def test_a_factorization_used_twice_adds_both_gradients():
    # the gradients of the (factor, pivots) tuple from two solves were joined by `+`,
    # which concatenates tuples: the factorization's rule read the first only
    rng = np.random.default_rng(3)
    A = rng.normal(size=(3, 3)) + 3 * np.eye(3)
    S = A @ A.T + np.eye(3)
    b = rng.normal(size=3)
    Ai, Si = np.linalg.inv(A), np.linalg.inv(S)
    x, y = Ai @ b, Ai.T @ b
    # d/dA of |A^-1 b|^2 + sum(A^-T b): -2 A^-T x x^T, then -(A^-1 1) y^T
    expected = -2.0 * np.outer(Ai.T @ x, x) - np.outer(y, Ai @ np.ones(3))
    g = srcgrad.grad(lu_used_twice)(A, b)
    np.testing.assert_allclose(g, expected, rtol=1e-10)
    np.testing.assert_allclose(g, numerical_grad(lu_used_twice, (A, b), 0), rtol=1e-6, atol=1e-8)
    z = Si @ b
    g = srcgrad.grad(cho_used_twice)(S, b)
    np.testing.assert_allclose(g, numerical_grad(cho_used_twice, (S, b), 0), rtol=1e-6, atol=1e-8)
    # cho_factor reads the upper triangle: the gradient of a symmetric S's entries, folded there
    full = -2.0 * np.outer(Si @ z, z) - np.outer(Si @ np.ones(3), z)
    full = 0.5 * (full + full.T)
    np.testing.assert_allclose(g, np.triu(2.0 * full) - np.diag(np.diag(full)), rtol=1e-10)


# ------------------------------------------------------------------- located errors


def commented_sqrt(x, opts):
    with np.errstate(all="raise"):
        y = np.sqrt(x) * opts["scale"]  # a note of the user's
    return np.sum(y)


def test_a_backward_error_names_a_line_with_a_comment_of_its_own():
    # the backward block's comment quotes the line as written (with its own comment and
    # double quotes), which was looked up among the parsed statements only: the note
    # named the line before it (`return np.sum(y)`)
    with pytest.raises(FloatingPointError) as info:
        srcgrad.grad(commented_sqrt)(np.array([0.0, 1.0]), {"scale": 2.0})
    note = "".join(info.value.__notes__)
    line = commented_sqrt.__code__.co_firstlineno + 2
    assert f"line {line})" in note and "differentiating `y = np.sqrt(x)" in note
