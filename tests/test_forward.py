"""Forward mode and the transforms built on it: jvp, jacobian, hessian, grad(grad(f)).

Every result is checked against central finite differences in float64, and forward mode
against reverse mode with the dot-product test <v, J u> = <J^T v, u>.
"""

import inspect
import math
import os
import pathlib

import numpy as np
import pytest

import corpus
import corpus_python
from conftest import numerical_grad
import srcgrad
from srcgrad.compiler.hoist import add_each, matmul_each
from srcgrad.compiler.cache import general_code

EPS = 1e-6
rng = np.random.default_rng(7)
INPUTS = {
    "a": [0.7, -0.4, 1.6],
    "b": [0.3, 1.2, -0.8],
    "x": [rng.normal(size=3) for _ in range(3)],
    "y": [rng.normal(size=3) for _ in range(3)],
    "M": [rng.normal(size=(3, 3)) for _ in range(3)],
    "W": [rng.normal(size=(3, 3)) * 0.5 for _ in range(3)],
}


def _random_like(value):
    return float(rng.normal()) if isinstance(value, float) else rng.normal(size=np.shape(value))


def _finite_difference(f, args, tangents):
    """(f(args + eps t) - f(args - eps t)) / 2 eps, for every argument at once."""
    plus = [a + EPS * t if t is not None else a for a, t in zip(args, tangents)]
    minus = [a - EPS * t if t is not None else a for a, t in zip(args, tangents)]
    return (np.asarray(f(*plus), dtype=np.float64) - np.asarray(f(*minus), dtype=np.float64)) / (2 * EPS)


def _cases():
    for fn in corpus.ALL:
        names = list(inspect.signature(fn).parameters)
        for k in range(3):
            yield pytest.param(fn, [INPUTS[n][k] for n in names], id=f"{fn.__name__}-{k}")


# --- jvp on the corpus -------------------------------------------------------------------


@pytest.mark.parametrize("fn, args", list(_cases()))
def test_jvp_matches_finite_differences_and_reverse_mode(fn, args):
    tangents = [_random_like(a) for a in args]
    out, out_dot = srcgrad.jvp(fn, tuple(args), tuple(tangents))
    np.testing.assert_allclose(out, fn(*args), rtol=1e-12)
    np.testing.assert_allclose(out_dot, _finite_difference(fn, args, tangents), rtol=1e-5, atol=1e-6)
    grads = srcgrad.grad(fn, wrt=tuple(range(len(args))))(*args)
    backward = sum(float(np.sum(g * t)) for g, t in zip(grads, tangents))
    assert out_dot == pytest.approx(backward, rel=1e-9, abs=1e-12)


@pytest.mark.parametrize("fn", corpus.ALL, ids=lambda f: f.__name__)
def test_jvp_tangent_has_the_output_type(fn):
    args = [INPUTS[n][0] for n in inspect.signature(fn).parameters]
    out, out_dot = srcgrad.jvp(fn, tuple(args), tuple(_random_like(a) for a in args))
    assert np.shape(out_dot) == np.shape(out)
    if isinstance(out, float):
        assert isinstance(out_dot, float)


# --- constructs beyond the corpus ---------------------------------------------------------


def square_sum(v, scale=2.0):
    return np.sum(v * v) * scale


def calls_user_function(x, W):
    h = np.tanh(W @ x)
    return square_sum(h) + square_sum(x, scale=0.5) * h


def nested_user_calls(a, b):
    return helper_pair(a, b) * a


def helper_pair(p, q):
    if p > 0:
        return math.sin(p) * q
    return q * q


def subscript_store(x):
    y = np.zeros(4)
    y[1:] = x
    y[0] = x[0] * x[1]
    return np.cumsum(y * y)


def broadcast_inactive(x, M):
    return np.sum(x + M, axis=0) * (M - x)


def tuple_output(x, a):
    return np.sin(x) * a, np.sum(x) ** 2


def while_break_return(x):
    s = 0.0
    k = 0
    while k < 10:
        s = s + np.sum(np.cos(x * k))
        if s > 3.0:
            return s * s
        if s < -3.0:
            break
        k = k + 1
    return s


def loop_over_rows(M, x):
    s = np.zeros(3)
    for row in M:
        s = s + row * x
    return s


def concatenated(x, a):
    return np.concatenate([x * a, np.ones(2), x[:2]])


EXTRA = [
    (calls_user_function, ["x", "W"]),
    (nested_user_calls, ["a", "b"]),
    (subscript_store, ["x"]),
    (broadcast_inactive, ["x", "M"]),
    (while_break_return, ["x"]),
    (loop_over_rows, ["M", "x"]),
    (concatenated, ["x", "a"]),
    (corpus_python.stack_machine_pop, ["a", "b"]),
    (corpus_python.queue_pop_front, ["x"]),
    (corpus_python.pop_middle_and_dropped, ["a", "b"]),
    (corpus_python.repeated_index_isub_in_loop, ["x"]),
    (corpus_python.module_alias_in_body, ["x"]),
]


@pytest.mark.parametrize("fn, names", EXTRA, ids=lambda v: getattr(v, "__name__", ""))
@pytest.mark.parametrize("k", range(3))
def test_jvp_of_constructs(fn, names, k):
    args = [INPUTS[n][k] for n in names]
    tangents = [_random_like(a) for a in args]
    out, out_dot = srcgrad.jvp(fn, tuple(args), tuple(tangents))
    np.testing.assert_allclose(out, fn(*args), rtol=1e-12)
    assert np.shape(out_dot) == np.shape(out)
    np.testing.assert_allclose(out_dot, _finite_difference(fn, args, tangents), rtol=1e-5, atol=1e-6)
    # dot-product test against reverse mode
    v = _random_like(out)
    try:
        _, pullback = srcgrad.vjp(fn, *args)
        grads = pullback(v)
    except srcgrad.NotDifferentiableError:
        pytest.skip("reverse mode does not support this construct yet")
    backward = sum(float(np.sum(g * t)) for g, t in zip(grads, tangents))
    assert float(np.sum(out_dot * v)) == pytest.approx(backward, rel=1e-9, abs=1e-12)


def test_jvp_with_tuple_output():
    x, a = INPUTS["x"][0], 0.8
    tx, ta = _random_like(x), 0.3
    (o1, o2), (d1, d2) = srcgrad.jvp(tuple_output, (x, a), (tx, ta))
    np.testing.assert_allclose(d1, np.cos(x) * tx * a + np.sin(x) * ta, rtol=1e-12)
    assert d2 == pytest.approx(2 * np.sum(x) * np.sum(tx), rel=1e-12)


def test_jvp_only_of_arguments_with_tangents():
    x, W = INPUTS["x"][1], INPUTS["W"][1]
    tx = _random_like(x)
    _, with_none = srcgrad.jvp(calls_user_function, (x, W), (tx, None))
    _, with_zero = srcgrad.jvp(calls_user_function, (x, W), (tx, np.zeros_like(W)))
    np.testing.assert_allclose(with_none, with_zero, rtol=1e-12)
    np.testing.assert_allclose(with_none, _finite_difference(calls_user_function, [x, W], [tx, None]), rtol=1e-5)


def test_jvp_float32_stays_float32():
    x = np.array([0.1, 0.2, 0.3], dtype=np.float32)
    out, out_dot = srcgrad.jvp(corpus.straight_line, (x,), (np.ones(3, dtype=np.float32),))
    assert out_dot.dtype == np.float32
    assert float(out_dot) == pytest.approx(float(np.sum(np.cos(x) * x + np.sin(x))), rel=1e-5)


def _float64_constant_plus(x):
    return np.ones(3) * 0.5 + x * x


def _float64_where(x):
    return {"w": np.where(x > 0, x, np.zeros(3)), "pair": (np.ones(3) - x, 2.0 * x)}


def test_jvp_tangent_has_its_outputs_dtype():
    """A float32 tangent that meets float64 values only as constants (`np.ones(3) * 0.5
    + x * x`, `np.where(m, x, np.zeros(3))`) stayed float32 while the output is float64;
    the tangent now has its output's dtype, leaf by leaf, as in JAX."""
    x = np.array([0.5, -0.25, 2.0], dtype=np.float32)
    t = np.array([1.0, 2.0, -1.0], dtype=np.float32)
    out, out_dot = srcgrad.jvp(_float64_constant_plus, (x,), (t,))
    assert out.dtype == out_dot.dtype == np.float64
    np.testing.assert_array_equal(out_dot, 2.0 * x.astype(np.float64) * t)
    out, out_dot = srcgrad.jvp(_float64_where, (x,), (t,))
    assert out_dot["w"].dtype == np.float64 and out_dot["pair"][0].dtype == np.float64
    assert out_dot["pair"][1].dtype == np.float32  # 2.0 * x stays float32, as its output
    np.testing.assert_array_equal(out_dot["w"], [1.0, 0.0, -1.0])
    np.testing.assert_array_equal(out_dot["pair"][0], -t)


# --- generated source ------------------------------------------------------------------


def test_source_of_forward_code_reads_like_the_math():
    text = srcgrad.source(srcgrad.jacobian(corpus.straight_line, mode="forward"))
    assert "\n\n\ndef straight_line_jvp(x, x_dot):" in text  # after the imports
    assert "Jacobian-vector product of straight_line (corpus.py:" in text
    assert "sin_x_dot = x_dot * np.cos(x)" in text
    assert "# return np.sum(np.sin(x) * x)" in text
    assert text == srcgrad.source(srcgrad.jacobian(corpus.straight_line, mode="forward"))


def test_user_function_call_is_spliced():
    text = srcgrad.source(srcgrad.jacobian(calls_user_function, mode="forward"))
    assert "square_sum_jvp" not in text and "    square_sum_x = sum_x_times_x * 0.5\n" in text and text.count("\ndef ") == 1


def test_user_function_call_that_stays_a_call_uses_its_own_jvp(calls_kept):
    text = srcgrad.source(srcgrad.jacobian(calls_user_function, mode="forward"))
    assert "square_sum_jvp(h, v_dot=h_dot)" in text


def test_tangents_of_functions_with_defaults_are_keyword_only():
    text = srcgrad.source(srcgrad.jacobian(square_sum, mode="forward"))
    assert "\n\n\ndef square_sum_jvp(v, scale=2.0, *, v_dot):" in text
    out, out_dot = srcgrad.jvp(square_sum, (np.ones(2),), (np.ones(2),))
    assert (out, out_dot) == (4.0, 8.0)


# --- jacobian ------------------------------------------------------------------------------


def vector_function(x, W):
    return np.tanh(W @ x) * x[0]


@pytest.mark.parametrize("wrt", [0, 1])
def test_jacobian_modes_agree_with_finite_differences(wrt):
    x, W = INPUTS["x"][0], INPUTS["W"][0]
    forward = srcgrad.jacobian(vector_function, wrt=wrt, mode="forward")(x, W)
    reverse = srcgrad.jacobian(vector_function, wrt=wrt, mode="reverse")(x, W)
    chosen = srcgrad.jacobian(vector_function, wrt=wrt)(x, W)
    args = [x, W]
    assert forward.shape == (3,) + np.shape(args[wrt])
    expected = np.zeros(forward.shape)
    for k in np.ndindex(np.shape(args[wrt])):
        e = np.zeros(np.shape(args[wrt]))
        e[k] = 1.0
        tangents = [e if i == wrt else None for i in range(2)]
        expected[(Ellipsis,) + k] = _finite_difference(vector_function, args, tangents)
    np.testing.assert_allclose(forward, expected, rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(reverse, forward, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(chosen, forward, rtol=1e-12, atol=1e-14)


def test_jacobian_tuple_wrt_and_scalar_shapes():
    x, W = INPUTS["x"][1], INPUTS["W"][1]
    jx, jw = srcgrad.jacobian(vector_function, wrt=(0, 1))(x, W)
    assert jx.shape == (3, 3) and jw.shape == (3, 3, 3)
    jx_r, jw_r = srcgrad.jacobian(vector_function, wrt=("x", "W"), mode="reverse")(x, W)
    np.testing.assert_allclose(jx, jx_r, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(jw, jw_r, rtol=1e-12, atol=1e-14)
    d = srcgrad.jacobian(corpus.scalar_math, wrt=1, mode="forward")(0.7, 0.3)
    assert isinstance(d, float)
    assert d == pytest.approx(srcgrad.grad(corpus.scalar_math, wrt=1)(0.7, 0.3), rel=1e-12)
    g = srcgrad.jacobian(corpus.straight_line, mode="forward")(x)
    assert g.shape == (3,)
    np.testing.assert_allclose(g, srcgrad.grad(corpus.straight_line)(x), rtol=1e-12)


def test_jacobian_rejects_unknown_mode():
    with pytest.raises(ValueError, match="mode"):
        srcgrad.jacobian(vector_function, mode="sideways")


# --- hessian and nested grad ------------------------------------------------------------------


def logsumexp(x):
    m = np.max(x)
    return m + np.log(np.sum(np.exp(x - m)))


def loop_energy(x):
    s = 0.0
    for i in range(3):
        s = s + np.sin(x[i]) * x[i] ** 2 * x[(i + 1) % 3]
    return s


def scalar_function(a):
    return math.exp(a) * math.sin(a) + a ** 4


def _hessian_by_differences(f, x):
    gradient = srcgrad.grad(f)
    if isinstance(x, float):
        return (gradient(x + EPS) - gradient(x - EPS)) / (2 * EPS)
    columns = []
    for k in range(x.size):
        e = np.zeros(x.size)
        e[k] = 1.0
        columns.append((gradient(x + EPS * e) - gradient(x - EPS * e)) / (2 * EPS))
    return np.stack(columns, axis=-1)


def test_hessian_of_logsumexp():
    x = np.random.default_rng(3).normal(size=10)
    H = srcgrad.hessian(logsumexp)(x)
    assert H.shape == (10, 10)
    np.testing.assert_allclose(H, H.T, rtol=1e-12, atol=1e-14)
    p = np.exp(x - np.max(x))
    p /= p.sum()
    np.testing.assert_allclose(H, np.diag(p) - np.outer(p, p), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(H, _hessian_by_differences(logsumexp, x), rtol=1e-5, atol=1e-7)


def einsum_quadratic(x, A):
    return np.einsum("i,ij,j->", x, A, x) + np.sum(np.einsum("i,j->ij", x, x) ** 2)


def test_hessian_through_einsum_is_exact():
    """The gradient's einsum adjoint is differentiated again: linear in its cotangent and
    in every operand but its own (three operands, `x` twice)."""
    rng = np.random.default_rng(5)
    x, A = rng.normal(size=4), rng.normal(size=(4, 4))
    H = srcgrad.hessian(einsum_quadratic)(x, A)
    # d2/dx2 of x^T A x is A + A^T; of sum((x_i x_j)^2) = (x.x)^2 it is 4 (x.x) I + 8 x x^T
    expected = A + A.T + 4 * (x @ x) * np.eye(4) + 8 * np.outer(x, x)
    np.testing.assert_allclose(H, expected, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(H, _hessian_by_differences(lambda v: einsum_quadratic(v, A), x), rtol=1e-5, atol=1e-6)
    (hxx, hxa), _ = srcgrad.hessian(einsum_quadratic, wrt=(0, 1))(x, A)
    np.testing.assert_allclose(hxx, expected, rtol=1e-12, atol=1e-12)
    # d2/(dx_k dA_ij) of x^T A x = delta_ki x_j + x_i delta_kj
    mixed = np.einsum("ki,j->kij", np.eye(4), x) + np.einsum("i,kj->kij", x, np.eye(4))
    np.testing.assert_allclose(hxa, mixed, rtol=1e-12, atol=1e-12)


def test_hessian_through_a_loop():
    x = INPUTS["x"][2]
    H = srcgrad.hessian(loop_energy)(x)
    assert H.shape == (3, 3)
    np.testing.assert_allclose(H, H.T, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(H, _hessian_by_differences(loop_energy, x), rtol=1e-5, atol=1e-7)


def test_hessian_of_a_scalar_function():
    for a in (0.3, -1.1):
        h = srcgrad.hessian(scalar_function)(a)
        assert isinstance(h, float)
        expected = 2 * math.exp(a) * math.cos(a) + 12 * a ** 2
        assert h == pytest.approx(expected, rel=1e-12)
        assert h == pytest.approx(_hessian_by_differences(scalar_function, a), rel=1e-6)


@pytest.mark.parametrize("f", [corpus_python.queue_pop_front, corpus_python.repeated_index_isub_in_loop],
                         ids=lambda f: f.__name__)
def test_hessian_through_list_pops_and_repeated_index_writes(f):
    """Forward mode over a gradient that undoes `v = ys.pop(i)` with `ys.insert(i, v)` and
    `ys.pop()` with `ys.append(v)`: the tangent list gets v's tangent back."""
    x = INPUTS["x"][1]
    np.testing.assert_allclose(srcgrad.hessian(f)(x), _hessian_by_differences(f, x), rtol=1e-5, atol=1e-6)
    h = srcgrad.hessian(corpus_python.stack_machine_pop, wrt=1)(0.7, 1.3)  # of (a b + a) b: 2 a
    assert h == pytest.approx(1.4, rel=1e-12)


def overwritten_after_a_read(x):
    y = x * 1.0
    z = np.prod(y)  # reads y[0] before the write below: the gradient restores it
    y[0] = 2.0 * x[1]
    return z + np.sum(y * y)


def rows_rewritten(x):
    M = np.outer(x, x)
    M[1, :] = np.tanh(M[0, :]) * x[2]
    M[:, 2] = M[:, 1] ** 2
    return np.sum(M * np.arange(9.0).reshape(3, 3))


def entries_rewritten_in_a_loop(x):
    y = x * 2.0
    k = 0
    while k < 3:
        y[k] = y[k] * y[(k + 1) % 3]
        k += 1
    return np.prod(y) + np.sum(y)


@pytest.mark.parametrize("f", [overwritten_after_a_read, rows_rewritten, entries_rewritten_in_a_loop],
                         ids=lambda f: f.__name__)
def test_hessian_through_entry_writes(f):
    """The gradient puts an overwritten entry back from its tape (`y[0] = tape.pop()`):
    forward mode over it gives the entry its saved tangent back. The tangent of the
    restored y[0] was zero, so in the first program H[1:, 0] was 0 (not 1.3, -0.4)."""
    x = np.array([0.7, -0.4, 1.3])
    h = srcgrad.hessian(f)(x.copy())
    np.testing.assert_allclose(h, _hessian_by_differences(f, x), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(h, h.T, rtol=1e-10, atol=1e-12)
    if f is overwritten_after_a_read:  # prod(x) + (2 x1)^2 + x1^2 + x2^2
        expected = [[0.0, x[2], x[1]], [x[2], 10.0, x[0]], [x[1], x[0], 2.0]]
        np.testing.assert_allclose(h, expected, rtol=1e-12, atol=1e-12)


def test_hessian_source_is_forward_over_the_gradient():
    text = srcgrad.source(srcgrad.hessian(logsumexp))
    assert "\n\n\ndef logsumexp_grad_jvp(x, x_dot):" in text
    assert "Jacobian-vector product of logsumexp_grad" in text


def test_hessian_with_respect_to_two_arguments_is_blockwise():
    x, W = INPUTS["x"][0], INPUTS["W"][0]
    f = corpus.matmul_chain
    (hxx, hxw), (hwx, hww) = srcgrad.hessian(f, wrt=(0, 1))(x, W)
    assert hxx.shape == (3, 3) and hxw.shape == (3, 3, 3) and hwx.shape == (3, 3, 3) and hww.shape == (3, 3, 3, 3)
    np.testing.assert_allclose(hxw, np.moveaxis(hwx, 2, 0), rtol=1e-10, atol=1e-12)
    gx = srcgrad.grad(f, wrt=0)
    e = np.zeros((3, 3))
    e[1, 2] = 1.0
    np.testing.assert_allclose(hxw[:, 1, 2], (gx(x, W + EPS * e) - gx(x, W - EPS * e)) / (2 * EPS), rtol=1e-5, atol=1e-7)


def sin_cubed(x):
    return math.sin(x) * x ** 3


def test_grad_of_grad():
    d2 = srcgrad.grad(srcgrad.grad(sin_cubed))
    for x in (0.5, -1.3, 2.0):
        expected = -math.sin(x) * x ** 3 + 6 * x ** 2 * math.cos(x) + 6 * x * math.sin(x)
        assert d2(x) == pytest.approx(expected, rel=1e-12)
        assert isinstance(d2(x), float)
    value, slope = srcgrad.value_and_grad(srcgrad.grad(sin_cubed))(0.5)
    assert value == pytest.approx(math.cos(0.5) * 0.125 + 3 * 0.25 * math.sin(0.5), rel=1e-12)
    assert slope == pytest.approx(d2(0.5), rel=1e-12)
    assert "sin_cubed_grad_jvp" in srcgrad.source(d2)


def test_grad_of_grad_keeps_the_type_of_a_numpy_scalar():
    """A second derivative at np.float32(0.5) was a 0-d array and at np.float64(0.5) a
    Python float; a gradient has its parameter's type."""
    d2 = srcgrad.grad(srcgrad.grad(sin_cubed))
    expected = _sin_cubed_derivative(2, 0.5)
    for x in (np.float64(0.5), np.float32(0.5)):
        g = d2(x)
        assert type(g) is type(x)
        assert g == pytest.approx(expected, rel=1e-6 if type(x) is np.float32 else 1e-12)
    g = d2(np.array(0.5, dtype=np.float32))
    assert type(g) is np.ndarray and g.dtype == np.float32 and g.shape == ()


def _sin_cubed_derivative(n, x):
    """The n-th derivative of sin(x) x**3 by Leibniz's rule."""
    sin = [math.sin(x), math.cos(x), -math.sin(x), -math.cos(x)]
    cube = [x ** 3, 3 * x ** 2, 6 * x, 6.0] + [0.0] * n
    return sum(math.comb(n, k) * sin[k % 4] * cube[n - k] for k in range(n + 1))


def power_loop(x):
    y = 1.0
    for _ in range(5):
        y = y * x
    return y * math.exp(x)


def _power_loop_derivative(n, x):
    """The n-th derivative of x**5 exp(x)."""
    return sum(math.comb(n, k) * math.perm(5, k) * x ** (5 - k) * math.exp(x) for k in range(min(n, 5) + 1))


def while_loop(x):
    y = x
    n = 0
    while n < 3:
        y = np.sin(y) + x * y
        n += 1
    return y


@pytest.mark.parametrize("fn, closed_form", [(sin_cubed, _sin_cubed_derivative), (power_loop, _power_loop_derivative)],
                         ids=["sin_cubed", "power_loop"])
def test_derivatives_up_to_the_fourth_match_closed_forms(fn, closed_form):
    derivative = fn
    for n in range(1, 5):
        derivative = srcgrad.grad(derivative)
        for x in (0.7, -1.3):
            value = derivative(x)
            assert isinstance(value, float)
            assert value == pytest.approx(closed_form(n, x), rel=1e-10)


def test_fourth_derivative_of_a_while_loop_matches_differences_of_the_third():
    derivatives = [while_loop]
    for _ in range(4):
        derivatives.append(srcgrad.grad(derivatives[-1]))
    x, h = 0.7, 1e-5
    for n in range(1, 5):
        expected = (derivatives[n - 1](x + h) - derivatives[n - 1](x - h)) / (2 * h)
        assert derivatives[n](x) == pytest.approx(expected, rel=1e-6)
    assert "while_loop_grad_grad_jvp" in srcgrad.source(derivatives[3])


def test_third_derivative_wants_floats():
    d3 = srcgrad.grad(srcgrad.grad(srcgrad.grad(sin_cubed)))
    assert d3(0.5) == pytest.approx(_sin_cubed_derivative(3, 0.5), rel=1e-12)
    with pytest.raises(TypeError, match="needs a Python float.*`x`"):
        d3(np.array(0.5))


def test_value_and_grad_of_a_second_derivative():
    value, slope = srcgrad.value_and_grad(srcgrad.grad(srcgrad.grad(sin_cubed)))(0.5)
    assert value == pytest.approx(_sin_cubed_derivative(2, 0.5), rel=1e-12)
    assert slope == pytest.approx(_sin_cubed_derivative(3, 0.5), rel=1e-12)


def list_of_products(x):
    pieces = [x, x * x]
    a = pieces[0] * pieces[1]
    b = pieces[1] + pieces[0]
    return a + b * x


def test_second_derivative_through_list_gradients():
    """The gradient code adds list gradients with add_grad: their tangents add entry by entry."""
    d2 = srcgrad.grad(srcgrad.grad(list_of_products))
    assert d2(0.7) == pytest.approx(12 * 0.7 + 2, rel=1e-12)
    assert "add_grad(" in srcgrad.source(d2)


def rows_replaced(x):
    R = [[1.0, 1.0], [1.0, 1.0], [1.0, 1.0]]
    R[0] = [2.0] + [0.5]  # a constant row: its tangent is a row of zeros
    for i in range(1, 3):
        row = [0.0, 0.0]
        row[1] = x[i] * R[i - 1][1] + R[0][0]
        R[i] = row
    return R[2][1] * R[0][1]


def test_a_constant_list_stored_into_a_list_has_a_list_of_zeros_as_tangent():
    """`R[0] = [2.0, 0.5]` into a differentiated list gave the entry the tangent 0.0, not a
    list: reading `R[0][0]` failed in the jvp ('float' object is not subscriptable)."""
    x = np.array([0.5, -0.3, 0.7])
    out, out_dot = srcgrad.jvp(rows_replaced, (x,), (np.ones(3),))
    expected = np.array([0.0, 0.25 * x[2], 0.5 * (0.5 * x[1] + 2.0)])  # of 0.5 * (x2 * (0.5 x1 + 2) + 2)
    np.testing.assert_allclose(srcgrad.grad(rows_replaced)(x), expected, rtol=1e-13)
    assert out == pytest.approx(rows_replaced(x), rel=1e-13)
    assert out_dot == pytest.approx(np.sum(expected), rel=1e-13)


def filtered_list_as_a_test(x):
    total = x[0] * x[1]
    if not [v for v in x if v > 100.0]:  # a list only tested for emptiness
        total += x[2] ** 2
    big = [v * 2.0 for v in x if v > 0.0]
    if big:
        total += x[0]
    return total


def test_a_list_built_from_differentiated_values_but_only_tested_has_no_tangent():
    """jvp (and so the Hessian) refused `items.append(v)` of a comprehension whose list the
    output does not depend on (\"may change a differentiated value in place\"); reverse
    mode differentiated it."""
    x = np.array([0.5, -1.2, 0.8])
    t = np.array([0.3, 1.0, -2.0])
    out, out_dot = srcgrad.jvp(filtered_list_as_a_test, (x,), (t,))
    assert out == pytest.approx(filtered_list_as_a_test(x), rel=1e-13)
    assert out_dot == pytest.approx(t[0] * x[1] + x[0] * t[1] + 2 * x[2] * t[2] + t[0], rel=1e-13)
    want = np.array([[0.0, 1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 2.0]])
    np.testing.assert_allclose(srcgrad.hessian(filtered_list_as_a_test)(x), want, rtol=1e-13, atol=1e-15)


def products(M):
    return np.sum(np.prod(M ** 2, axis=1)) + np.prod(M)


def test_hessian_through_np_prod_with_a_zero_entry():
    M = rng.normal(size=(2, 4))
    M[0, 1] = 0.0
    H = srcgrad.hessian(products)(M)
    gradient = srcgrad.grad(products)
    columns = []
    for k in np.ndindex(M.shape):
        e = np.zeros(M.shape)
        e[k] = 1.0
        columns.append((gradient(M + EPS * e) - gradient(M - EPS * e)) / (2 * EPS))
    np.testing.assert_allclose(H, np.reshape(np.stack(columns, axis=-1), H.shape), rtol=1e-6, atol=1e-8)


def test_grad_of_grad_needs_a_scalar_output():
    with pytest.raises(TypeError, match="scalar output"):
        srcgrad.grad(srcgrad.grad(corpus.straight_line))(np.ones(3))


# --- errors --------------------------------------------------------------------------------


def test_tangent_shape_mismatch_names_function_and_argument():
    with pytest.raises(ValueError, match=r"tangent of `x` for `straight_line`.*shape \(2,\).*shape \(3,\)"):
        srcgrad.jvp(corpus.straight_line, (np.ones(3),), (np.ones(2),))


def test_tangent_for_an_integer_argument_is_rejected():
    def power(x, n):
        return x ** n

    with pytest.raises(TypeError, match="`n` of `power`.*int.*no tangent"):
        srcgrad.jvp(power, (2.0, 3), (1.0, 1.0))
    assert srcgrad.jvp(power, (2.0, 3), (1.0, None)) == (8.0, 12.0)


def test_none_is_the_tangent_of_a_leaf_without_a_derivative():
    """None for an integer, boolean, string or None leaf of a dict was refused ("must hold
    floats, not NoneType"), where the message for an integer leaf asked for it; such a
    leaf is pushed as a zero tangent."""
    def scaled_entries(p):
        unit = 1.0 if p["label"] == "m" and p["unset"] is None else 1000.0
        return np.sum(p["a"] * p["n"]) * unit + p["s"][0] * 2.0 * p["on"]

    p = {"a": np.array([1.0, -2.0]), "n": 3, "s": (1.5, "x"), "on": True, "label": "m", "unset": None}
    t_a, t_s = np.array([0.5, 0.25]), 0.75
    tangent = {"a": t_a, "n": None, "s": (t_s, None), "on": None, "label": None, "unset": None}
    out, out_dot = srcgrad.jvp(scaled_entries, (p,), (tangent,))
    assert out == pytest.approx(np.sum(p["a"] * 3) + 3.0, rel=1e-15)
    assert out_dot == pytest.approx(np.sum(t_a * 3) + t_s * 2.0, rel=1e-15)
    moved = lambda s: dict(p, a=p["a"] + s * t_a, s=(p["s"][0] + s * t_s, "x"))
    assert out_dot == pytest.approx((scaled_entries(moved(EPS)) - scaled_entries(moved(-EPS))) / (2 * EPS), rel=1e-8)
    with pytest.raises(TypeError, match=r"`p\['n'\]` of `scaled_entries` .*is int, which has no tangent; pass None"):
        srcgrad.jvp(scaled_entries, (p,), (dict(tangent, n=0.0),))
    with pytest.raises(TypeError, match=r"the tangent of `p\['a'\]` .*must hold floats, not NoneType"):
        srcgrad.jvp(scaled_entries, (p,), (dict(tangent, a=None),))


def test_integer_tangent_and_count_mismatch_are_rejected():
    with pytest.raises(TypeError, match="must hold floats"):
        srcgrad.jvp(corpus.straight_line, (np.ones(3),), (np.ones(3, dtype=int),))
    with pytest.raises(TypeError, match="1 primals but 2 tangents"):
        srcgrad.jvp(corpus.straight_line, (np.ones(3),), (np.ones(3), np.ones(3)))
    with pytest.raises(TypeError, match="structure"):
        srcgrad.jvp(corpus.straight_line, ([1.0, 2.0],), ((1.0, 2.0),))


# --- the Hessian of every corpus function ----------------------------------------------------

@pytest.mark.parametrize("fn", corpus.ALL, ids=lambda f: f.__name__)
def test_hessian_of_corpus_matches_differences_of_the_gradient(fn):
    names = list(inspect.signature(fn).parameters)
    args = [INPUTS[n][1] for n in names]
    x, rest = args[0], args[1:]
    H = srcgrad.hessian(fn)(*args)
    gradient = srcgrad.grad(fn)
    columns = []
    for k in np.ndindex(np.shape(x)):
        e = np.zeros(np.shape(x))
        e[k] = 1.0
        step = float(e) * EPS if isinstance(x, float) else EPS * e
        columns.append((gradient(x + step, *rest) - gradient(x - step, *rest)) / (2 * EPS))
    expected = np.reshape(np.stack(columns, axis=-1), np.shape(x) * 2)
    assert np.shape(H) == np.shape(x) * 2
    np.testing.assert_allclose(H, expected, rtol=1e-5, atol=1e-6)
    flat = np.reshape(H, (np.size(x), np.size(x)))
    np.testing.assert_allclose(flat, flat.T, rtol=1e-9, atol=1e-11)


# --- golden sources ------------------------------------------------------------------------------

GOLDEN = pathlib.Path(__file__).parent / "golden"
GOLDEN_CASES = {
    "forward_rnn": lambda: srcgrad.jacobian(corpus.rnn, wrt=(0, 1), mode="forward"),
    "hessian_break_continue": lambda: srcgrad.hessian(corpus.break_continue),
}


@pytest.mark.parametrize("name", sorted(GOLDEN_CASES))
def test_forward_source_matches_golden(name):
    """Regenerate after an intended change with SRCGRAD_UPDATE_GOLDEN=1 pytest tests/test_forward.py."""
    text = srcgrad.source(GOLDEN_CASES[name]())
    path = GOLDEN / f"{name}.py"
    if os.environ.get("SRCGRAD_UPDATE_GOLDEN"):
        path.write_text(text)
    assert text == path.read_text()


# --- the linearized jvp (primal statements once, tangent statements per column) ----------------


def test_hessian_of_straight_line_code_runs_the_primal_once():
    from srcgrad import jacobians
    from srcgrad.compiler import linearize

    x = rng.normal(size=6)
    H = srcgrad.hessian(logsumexp)(x)
    p = np.exp(x - np.max(x))
    p /= p.sum()
    np.testing.assert_allclose(H, np.diag(p) - np.outer(p, p), rtol=1e-12, atol=1e-14)
    derivative = jacobians._jvp_derivative(srcgrad.grad(logsumexp), (0,))
    text, name = linearize.split(derivative.source, ["x_dot"])
    primal, push = text.split("def push(x_dot):")
    assert "np.exp(x_minus_m)" in primal and "np.exp" not in push
    assert "extremum_share(" not in push  # a tangent expression's primal part is hoisted
    assert jacobians._linearized(derivative) is not None


def test_code_with_loops_is_not_linearized():
    from srcgrad import jacobians
    from srcgrad.compiler import linearize

    derivative = jacobians._jvp_derivative(srcgrad.grad(corpus.break_continue), (0,))
    assert linearize.split(derivative.source, ["x_dot"]) is None
    assert jacobians._linearized(derivative) is None


# --- loop-invariant code motion in jvp code (compiler/hoist.py) ---------------------------------


def rnn_steps(W, U, b, x):
    h = np.zeros((x.shape[1], W.shape[0]))
    for t in range(x.shape[0]):
        h = np.tanh(h @ W + x[t] @ U + b)
    return np.sum(h * h)


def invariant_in_loop(a, x, n):
    s = 0.0 * a
    for i in range(n):
        s = s + np.sum(a[0] * 2.0) * x[i]
    return np.sum(s)


def _unhoisted(fn, monkeypatch):
    """A copy of `fn` whose jvp is built without compiler/hoist.py (the code before it)."""
    import types

    from srcgrad.compiler import hoist

    copy = types.FunctionType(fn.__code__, fn.__globals__, fn.__name__, fn.__defaults__)
    with monkeypatch.context() as m:
        m.setattr(hoist, "run", lambda tree, namer: tree)
        srcgrad.jvp(copy, *_rnn_point(copy))  # built and cached now, without the pass
    return copy


def _rnn_point(fn):
    r = np.random.default_rng(3)
    if fn.__name__ == "rnn_steps":
        primals = (r.normal(size=(5, 5)) * 0.4, r.normal(size=(4, 5)), r.normal(size=5), r.normal(size=(6, 2, 4)))
        return primals, tuple(r.normal(size=p.shape) for p in primals[:3]) + (None,)
    primals = (r.normal(size=3), r.normal(size=(4, 3)), 4)
    return primals, (r.normal(size=3), r.normal(size=(4, 3)), None)


def test_hoist_batches_row_products_and_moves_invariant_statements():
    text = srcgrad.source(srcgrad.jacobian(rnn_steps, wrt=(0, 1, 2), mode="forward"))
    before, loop = text.split("    for t in range(")
    assert "x_at_U = matmul_each(x, U, x_shape_2_0)" in before
    assert "x_at_U_dot = matmul_each(x, U_dot, x_shape_2_0)" in before
    assert "x_at_U_dot_plus_b_dot = add_each(x_at_U_dot, b_dot, x_shape_2_0)" in before  # rule 2
    assert "x_t_at_U = x_at_U[t]" in loop and "t1_plus_b_dot = h_at_W_dot + x_at_U_dot_plus_b_dot[t]" in loop
    assert "+ b_dot" not in loop and "x_t_at_U_dot" not in loop
    assert "x_t @ U" not in loop  # (the comment still quotes the source line)
    text = srcgrad.source(srcgrad.jacobian(invariant_in_loop, wrt=(0, 1), mode="forward"))
    before, loop = text.split("    for i in range(")
    assert "    if n > 0:\n        a_0 = a[0]\n" in before  # a loop that may run zero times computes nothing new
    code = "\n".join(line for line in loop.split("# return")[0].splitlines() if not line.strip().startswith("#"))
    assert "a_0 =" not in code and "a[0]" not in code and "np.sum(" not in code and "_t1 * x_i" in code


@pytest.mark.parametrize("fn", [rnn_steps, invariant_in_loop])
def test_hoisted_jvp_equals_the_unhoisted_one_exactly(fn, monkeypatch):
    plain = _unhoisted(fn, monkeypatch)
    primals, tangents = _rnn_point(fn)
    out, out_dot = srcgrad.jvp(fn, primals, tangents)
    ref, ref_dot = srcgrad.jvp(plain, primals, tangents)
    assert out == ref  # primal values are never rewritten
    if fn is rnn_steps:  # rule 2 adds b_dot to the rows first: the same sum, rounded otherwise
        assert out_dot == pytest.approx(ref_dot, rel=1e-13, abs=1e-15)
    else:
        assert out_dot == ref_dot
    assert out == fn(*primals)
    from srcgrad.compiler import pipeline

    positions = tuple(k for k, t in enumerate(tangents) if t is not None)
    text = pipeline.derive(plain, "jvp", positions).source  # the one built without the pass
    assert "matmul_each" not in text and "if n > 0" not in text


def test_hoisted_loop_that_runs_zero_times():
    empty = np.zeros((0, 3))
    out, out_dot = srcgrad.jvp(invariant_in_loop, (np.zeros(0), empty, 0), (np.zeros(0), empty, None))
    assert out == 0.0 and out_dot == 0.0


@pytest.mark.parametrize("a_shape, b_shape, n", [((6, 2, 4), (4, 3), 6), ((6, 4), (4, 3), 6), ((6, 4), (4,), 4),
                                                 ((5, 2, 4), (4, 3), 9), ((5, 2, 4), (4, 3), 0), ((5, 2, 4), (4, 3), -2)])
def test_matmul_each_is_each_row_product_bit_for_bit(a_shape, b_shape, n):
    a, b = rng.normal(size=a_shape), rng.normal(size=b_shape)
    rows = matmul_each(a, b, n)
    assert len(rows) == min(max(n, 0), len(a))
    for t in range(len(rows)):
        assert np.array_equal(rows[t], a[t] @ b)
    assert [np.array_equal(r, a_t @ b) for r, a_t in zip(matmul_each(list(a), b, n), a)] == [True] * len(rows)


def uses_matmul_each(a, b):
    return np.sum(np.sin(matmul_each(a, b, 3)))


def test_matmul_each_can_be_differentiated_again():
    """Generated jvp code calls matmul_each; forward and reverse mode know its rules."""
    a, b = rng.normal(size=(4, 2, 3)), rng.normal(size=(3, 2))
    da, db = rng.normal(size=a.shape), rng.normal(size=b.shape)
    _, out_dot = srcgrad.jvp(uses_matmul_each, (a, b), (da, db))
    fd = (uses_matmul_each(a + EPS * da, b + EPS * db) - uses_matmul_each(a - EPS * da, b - EPS * db)) / (2 * EPS)
    np.testing.assert_allclose(out_dot, fd, rtol=1e-6)
    ga, gb = srcgrad.grad(uses_matmul_each, wrt=(0, 1))(a, b)
    np.testing.assert_allclose(np.sum(ga * da) + np.sum(gb * db), out_dot, rtol=1e-10)
    assert np.all(ga[3] == 0.0)


@pytest.mark.parametrize("a_shape, c_shape, n", [((6, 2, 4), (4,), 6), ((6, 2, 4), (2, 4), 4), ((6, 2, 4), (6, 2, 4), 3),
                                                 ((6, 4), (), 6), ((5, 2, 1), (3,), 9), ((5, 2, 4), (4,), 0),
                                                 ((5, 2, 4), (4,), -2)])
def test_add_each_is_each_row_sum_bit_for_bit(a_shape, c_shape, n):
    a, c = rng.normal(size=a_shape), rng.normal(size=c_shape)
    rows = add_each(a, c, n)
    assert len(rows) == min(max(n, 0), len(a))
    for t in range(len(rows)):
        want = a[t] + c
        assert np.array_equal(rows[t], want) and np.shape(rows[t]) == np.shape(want)


def uses_add_each(a, c):
    return np.sum(np.sin(add_each(a, c, 3)) * np.arange(1.0, 5.0))


@pytest.mark.parametrize("c_shape", [(4,), (3, 2, 4)])
def test_add_each_can_be_differentiated_again(c_shape):
    """Generated jvp code calls add_each; forward and reverse mode know its rules."""
    a, c = rng.normal(size=(5, 2, 4)), rng.normal(size=c_shape)
    da, dc = rng.normal(size=a.shape), rng.normal(size=c.shape)
    _, out_dot = srcgrad.jvp(uses_add_each, (a, c), (da, dc))
    fd = (uses_add_each(a + EPS * da, c + EPS * dc) - uses_add_each(a - EPS * da, c - EPS * dc)) / (2 * EPS)
    np.testing.assert_allclose(out_dot, fd, rtol=1e-6)
    ga, gc = srcgrad.grad(uses_add_each, wrt=(0, 1))(a, c)
    assert ga.shape == a.shape and gc.shape == c.shape
    np.testing.assert_allclose(np.sum(ga * da) + np.sum(gc * dc), out_dot, rtol=1e-10)
    assert np.all(ga[3:] == 0.0)


def rnn_bias_rows(W, U, b, x):
    h = np.zeros((x.shape[1], W.shape[0]))
    for t in range(x.shape[0]):
        h = np.tanh(b + (x[t] @ U + h @ W))
    return np.sum(h * h)


def rnn_rebound_between(W, U, b, x):
    h = np.zeros((x.shape[1], W.shape[0]))
    for t in range(x.shape[0]):
        s = h @ W + x[t] @ U
        h = np.tanh(s)
        h = np.tanh(s + b) + h
    return np.sum(h * h)


@pytest.mark.parametrize("fn", [rnn_steps, rnn_bias_rows, rnn_rebound_between])
def test_rnn_tangents_with_row_sums_match_finite_differences_and_reverse_mode(fn):
    primals, tangents = _rnn_point(rnn_steps)
    _, out_dot = srcgrad.jvp(fn, primals, tangents)
    W, U, b, x = primals
    dW, dU, db, _ = tangents
    fd = (fn(W + EPS * dW, U + EPS * dU, b + EPS * db, x) - fn(W - EPS * dW, U - EPS * dU, b - EPS * db, x)) / (2 * EPS)
    np.testing.assert_allclose(out_dot, fd, rtol=1e-6)
    gW, gU, gb = srcgrad.grad(fn, wrt=(0, 1, 2))(*primals)
    np.testing.assert_allclose(np.sum(gW * dW) + np.sum(gU * dU) + np.sum(gb * db), out_dot, rtol=1e-10)


@srcgrad.custom_vjp
def _tanh_vjp_only(x):
    return np.tanh(x)


_tanh_vjp_only.defvjp(lambda g, ans, x: g * (1 - ans**2))


def uses_vjp_only_rule(x):
    y = _tanh_vjp_only(x) * x
    return np.sum(y)


@pytest.mark.parametrize("make", [srcgrad.hessian, lambda f: srcgrad.jacobian(srcgrad.grad(f), mode="forward")])
def test_an_error_in_second_order_names_the_users_line(make):
    """The second transform runs on generated code; its errors point back at the user's line."""
    with pytest.raises(srcgrad.NotDifferentiableError) as info:
        make(uses_vjp_only_rule)(np.ones(3))
    err = info.value
    line = uses_vjp_only_rule.__code__.co_firstlineno + 1
    assert (err.filename, err.lineno) == (__file__, line), (err.filename, err.lineno)
    assert err.text.strip() == "y = _tanh_vjp_only(x) * x"
    assert "in the derivative `uses_vjp_only_rule_grad` that srcgrad generated from `uses_vjp_only_rule`" in err.msg


def test_generated_lines_map_to_the_users_lines():
    """origins.py: forward statements by their location, backward ones by their comment."""
    df = srcgrad.grad(rnn_steps)
    generated = general_code(df.__srcgrad_lazy__.get().function)
    filename, name, lines = generated.__srcgrad_origin__()
    assert (filename, name) == (__file__, "rnn_steps")
    first = rnn_steps.__code__.co_firstlineno
    text = generated.__srcgrad_source__.splitlines()
    where = {text[k - 1].strip(): line for k, line in lines.items()}
    assert where["h_at_W = h @ W"] == first + 3  # a forward statement: its own location
    assert where["h_at_W_bar = unbroadcast(t1_bar, h_at_W)"] == first + 3  # backward: its comment's line
    assert where["out = np.sum(h_times_h)"] == first + 4
    assert where["h_bar = h_bar + unbroadcast(h_times_h_bar * h, h)"] == first + 4
    assert set(lines.values()) <= set(range(first, first + 5))


def _ping(x, n):
    if n == 0:
        return x
    return _pong(x * 1.1, n - 1)


def _pong(x, n):
    x_dot = np.cos(x)  # the user's own `x_dot`: the jvp's tangent parameter gets another name
    return _ping(np.sin(x) + 0.0 * x_dot, n)


def mutually_recursive(x):
    return _ping(x, 3)


def test_jvp_through_mutually_recursive_functions():
    """`_pong`'s jvp calls `_ping`'s while that is still being built: the stand-in's
    tangent was passed as `kwargs=...` (the stand-in's own signature), a TypeError."""
    slope = numerical_grad(mutually_recursive, (0.5,), 0)
    out, tangent = srcgrad.jvp(mutually_recursive, (0.5,), (1.0,))
    assert out == mutually_recursive(0.5)
    assert tangent == pytest.approx(slope, rel=1e-7)
    assert tangent == pytest.approx(srcgrad.grad(mutually_recursive)(0.5), rel=1e-13)
    assert srcgrad.hessian(mutually_recursive)(0.5) == pytest.approx(
        numerical_grad(srcgrad.grad(mutually_recursive), (0.5,), 0), rel=1e-6)


def _reads_a_list_display(x):
    return [x * 2.0, x ** 3][1]


def _reads_a_dict_display(x, k):
    return {"a": x * 2.0, "b": x ** 3}[k] + (x, 2.0 * x)[1]


def _unpacks_a_display_with_a_star(x):
    first, *rest = [x[0] * 2.0, x[1], x[2]]
    return first * rest[0] + np.sum(np.array(rest))


def _star_takes_one(u, v):
    a, *rest = [u, v]
    return a * rest[0]


def test_jvp_of_an_entry_of_a_display():
    """`[a, b][1]` (and the `[...][0]`, `[...][1:]` that starred unpacking becomes) had a
    zero tangent: only a subscript of a name passed its tangent on."""
    assert srcgrad.jvp(_reads_a_list_display, (2.0,), (1.0,)) == (8.0, 12.0)
    assert srcgrad.jacobian(_reads_a_list_display)(2.0) == 12.0
    assert srcgrad.jvp(_reads_a_dict_display, (2.0, "b"), (1.0, None)) == (12.0, 14.0)
    x, t = np.array([1.0, 3.0, 5.0]), np.array([0.5, -1.0, 2.0])
    gradient = np.array([2.0 * x[1], 2.0 * x[0] + 1.0, 1.0])
    np.testing.assert_array_equal(srcgrad.grad(_unpacks_a_display_with_a_star)(x), gradient)
    out, tangent = srcgrad.jvp(_unpacks_a_display_with_a_star, (x,), (t,))
    assert out == _unpacks_a_display_with_a_star(x) and tangent == gradient @ t
    # as many targets as entries, one starred: was refused as "assignment to an attribute"
    assert srcgrad.grad(_star_takes_one, wrt=(0, 1))(2.0, 3.0) == (3.0, 2.0)
    assert srcgrad.jvp(_star_takes_one, (2.0, 3.0), (1.0, 1.0)) == (6.0, 5.0)


def _joined_with_constants(x):
    s = [x[0]] + [7.0]
    v = np.array([3.0] + s + list(x))
    t = (1.0,) + tuple(x)
    return s[-1] * x[1] + np.sum(v * np.arange(1.0, 6.0)) + t[2] * t[0]


def _tuple_of_a_mixed_display(x):
    t = tuple([1.0, x[2]])
    return t[0] * x[0] + t[1] ** 2


def test_jvp_of_lists_joined_with_constant_lists():
    """`[a] + [0.0]` joins lists, but its tangent was `[a_dot]` alone (the constant
    operand's zeros dropped): a tangent one entry short, then broadcast or read at the
    wrong place, silently (jvp, forward jacobian and hessian). `tuple([1.0, b])` had the
    tangent `tuple([None, b_dot])`, a TypeError where it was read."""
    x = np.array([0.5, 0.2])
    gradient = np.array([2.0 + 4.0, 7.0 + 5.0 + 1.0])  # 7 x1 + (v = [3, x0, 7, x0, x1]) @ [1..5] + x1
    np.testing.assert_array_equal(srcgrad.grad(_joined_with_constants)(x), gradient)
    for t in (np.array([1.0, 0.0]), np.array([0.0, 1.0]), np.array([0.3, -2.0])):
        assert srcgrad.jvp(_joined_with_constants, (x,), (t,))[1] == pytest.approx(gradient @ t, rel=1e-14)
    np.testing.assert_allclose(srcgrad.jacobian(_joined_with_constants, mode="forward")(x), gradient, rtol=1e-14)
    x = np.array([0.5, -0.2, 1.3])
    gradient = np.array([1.0, 0.0, 2.0 * x[2]])
    np.testing.assert_array_equal(srcgrad.grad(_tuple_of_a_mixed_display)(x), gradient)
    assert srcgrad.jvp(_tuple_of_a_mixed_display, (x,), (np.ones(3),))[1] == pytest.approx(gradient.sum(), rel=1e-14)
    np.testing.assert_array_equal(srcgrad.hessian(_tuple_of_a_mixed_display)(x), np.diag([0.0, 0.0, 2.0]))


def _logsumexp(x):
    m = np.max(x)
    return m + np.log(np.sum(np.exp(x - m)))


def test_the_rules_of_a_hessian_benchmark_stay_inlined():
    """The Hessian of logsumexp (benchmarks/forward.py) runs the gradient's primal once and
    its tangent per column only while every rule it meets is inlined: the max rule written
    as more than one statement was called as a function instead, and the Hessian took
    8x as long."""
    from srcgrad.compiler import inline
    from srcgrad.rules import container_rules, reductions

    assert inline.inlinable(reductions.extremum_vjp) and inline.inlinable(container_rules.item_grad_jvp)
    x = np.array([0.3, -1.2, 2.0, 0.7])
    hess = srcgrad.hessian(_logsumexp)
    p = np.exp(x - np.max(x))
    p /= p.sum()
    np.testing.assert_allclose(hess(x), np.diag(p) - np.outer(p, p), atol=1e-12)
    assert "extremum_vjp(" not in srcgrad.source(hess)
