"""Every corpus function: gradient of each argument against central finite differences."""

import inspect
import math

import numpy as np
import pytest

import srcgrad
from conftest import numerical_grad

import corpus
import corpus_python

rng = np.random.default_rng(1)
INPUTS = {
    "a": [0.7, -0.4, 1.6],
    "b": [0.3, 1.2, -0.8],
    "c": [1.3, 0.45, -1.1],
    "x": [rng.normal(size=3) for _ in range(3)],
    "y": [rng.normal(size=3) for _ in range(3)],
    "M": [rng.normal(size=(3, 3)) for _ in range(3)],
    "W": [rng.normal(size=(3, 3)) * 0.5 for _ in range(3)],
}


ALL = corpus.ALL + corpus_python.ALL
XFAIL = corpus_python.XFAIL  # derivation fails: both tests below fail
XFAIL_GRAD = corpus_python.XFAIL_GRAD  # gradient silently wrong: only the gradient test fails


def _marks(fn, grad_test=True):
    reason = XFAIL.get(fn.__name__) or (XFAIL_GRAD.get(fn.__name__) if grad_test else None)
    return [pytest.mark.xfail(strict=True, reason=reason)] if reason else []


def _cases():
    for fn in ALL:
        names = list(inspect.signature(fn).parameters)
        for k in range(3):
            yield pytest.param(fn, [INPUTS[n][k] for n in names], id=f"{fn.__name__}-{k}", marks=_marks(fn))


@pytest.mark.parametrize("fn, args", list(_cases()))
def test_gradient_matches_finite_differences(fn, args):
    originals = [np.copy(a) for a in args]
    wrt = tuple(range(len(args)))
    grads = srcgrad.grad(fn, wrt=wrt)(*args)
    for i, (arg, g) in enumerate(zip(args, grads)):
        expected = numerical_grad(fn, args, i)
        assert type(g) is type(arg)
        assert np.shape(g) == np.shape(arg)
        assert np.result_type(g) == np.result_type(arg)
        np.testing.assert_allclose(g, expected, rtol=1e-5, atol=1e-6)
    for a, o in zip(args, originals):
        np.testing.assert_array_equal(a, o)  # inputs are not mutated


@pytest.mark.parametrize("fn", [pytest.param(f, marks=_marks(f, grad_test=False)) for f in ALL], ids=lambda f: f.__name__)
def test_value_and_grad_value_is_the_function_value(fn):
    names = list(inspect.signature(fn).parameters)
    args = [INPUTS[n][0] for n in names]
    value, _ = srcgrad.value_and_grad(fn)(*args)
    np.testing.assert_allclose(value, fn(*args))


@pytest.mark.parametrize("fn", corpus_python.ALIASING, ids=lambda f: f.__name__)
def test_aliased_write_gives_numpys_answer_or_a_clear_error(fn):
    """`z = y; z[1] = ...` or a write through a view changes `y` too: NumPy's answer or a
    clear error at derivation time, never a wrong gradient."""
    names = list(inspect.signature(fn).parameters)
    args = [INPUTS[n][0] for n in names]
    try:
        g = srcgrad.grad(fn)(*args)
    except (srcgrad.SrcGradError, srcgrad.NotDifferentiableError) as exc:
        assert "corpus_python.py" in str(exc)
    else:
        np.testing.assert_allclose(g, numerical_grad(fn, args, 0), rtol=1e-5, atol=1e-6)


LOOP_ELSE = [corpus_python.for_else_search, corpus_python.for_else_without_break, corpus_python.while_else_on_data,
             corpus_python.nested_loop_else, corpus_python.return_skips_loop_else, corpus_python.loop_else_returns]


@pytest.mark.parametrize("fn, args", [c for c in _cases() if c.values[0] in LOOP_ELSE])
def test_loop_else_in_forward_mode_and_second_order(fn, args):
    """A loop's `else` block (run when no `break` ended it) in jvp and in the Hessian's
    forward-over-reverse: each against central differences of the gradient."""
    tangents = [rng.normal(size=np.shape(a)) if np.ndim(a) else float(rng.normal()) for a in args]
    out, out_dot = srcgrad.jvp(fn, tuple(args), tuple(tangents))
    grads = srcgrad.grad(fn, wrt=tuple(range(len(args))))(*args)
    assert out == pytest.approx(fn(*args), rel=1e-12)
    assert out_dot == pytest.approx(sum(float(np.sum(g * t)) for g, t in zip(grads, tangents)), rel=1e-9, abs=1e-12)
    x = np.asarray(args[0], dtype=np.float64)
    h = np.asarray(srcgrad.hessian(fn)(*args)).reshape(x.size, x.size)
    grad0 = srcgrad.grad(fn)

    def moved(step):  # the first argument moved by `step` (of its size), in its own type
        return float(x + step[0]) if np.ndim(args[0]) == 0 else x + step.reshape(x.shape)

    for k, step in enumerate(np.eye(x.size) * 1e-6):
        column = (np.asarray(grad0(moved(step), *args[1:])) - np.asarray(grad0(moved(-step), *args[1:]))) / 2e-6
        np.testing.assert_allclose(h[:, k], column.reshape(-1), rtol=1e-5, atol=1e-6)


# Analytic answers (independent of finite differences).


def test_analytic_horner_polynomial():
    a = 0.7
    c0, c1, c2, c3 = corpus_python.COEFFS
    g = srcgrad.grad(corpus_python.horner_polynomial)(a)
    assert type(g) is float
    assert g == pytest.approx(c1 + 2 * c2 * a + 3 * c3 * a * a, rel=1e-12)


def test_analytic_recursion_power():
    g = srcgrad.grad(corpus_python.recursion_power)(1.6)
    assert g == pytest.approx(4 * 1.6 ** 3, rel=1e-12)


def test_analytic_newton_sqrt():
    a = 0.7  # r = sqrt(a^2 + 2), dr/da = a / r
    g = srcgrad.grad(corpus_python.while_newton_sqrt)(a)
    assert g == pytest.approx(a / math.sqrt(a * a + 2.0), rel=1e-10)


def test_analytic_setitem_fresh_array():
    x = INPUTS["x"][1]  # sum((x^2 + 1) * x) -> 3x^2 + 1
    np.testing.assert_allclose(srcgrad.grad(corpus_python.setitem_fresh_array)(x), 3 * x * x + 1.0, rtol=1e-12)


def test_analytic_list_append_then_builtin_sum():
    x = INPUTS["x"][2]
    np.testing.assert_allclose(
        srcgrad.grad(corpus_python.list_append_then_builtin_sum)(x), 2 * x * np.arange(1.0, 4.0), rtol=1e-12
    )


def test_analytic_softmax_cross_entropy():
    x = INPUTS["x"][0]
    p = np.exp(x) / np.sum(np.exp(x))
    np.testing.assert_allclose(
        srcgrad.grad(corpus_python.softmax_cross_entropy)(x), p - np.eye(3)[1], rtol=1e-10, atol=1e-12
    )


def test_analytic_dict_of_arrays_both_arguments():
    M, x = INPUTS["M"][0], INPUTS["x"][0]
    t = np.tanh(M @ x + x)
    d = 1.0 - t * t
    gM, gx = srcgrad.grad(corpus_python.dict_of_arrays, wrt=(0, 1))(M, x)
    np.testing.assert_allclose(gM, np.outer(d, x), rtol=1e-10)
    np.testing.assert_allclose(gx, M.T @ d + d, rtol=1e-10)


def test_analytic_tuple_unpack_swap_in_loop():
    # (a, b) -> (b, a + b/2) three times is linear: track it symbolically
    a, b = 0.7, 0.3
    J = np.eye(2)
    for _ in range(3):
        J = np.array([[0.0, 1.0], [1.0, 0.5]]) @ J
    u, v = J @ np.array([a, b])
    expected = v * J[0] + u * J[1]
    ga, gb = srcgrad.grad(corpus_python.swap_in_loop, wrt=(0, 1))(a, b)
    np.testing.assert_allclose([ga, gb], expected, rtol=1e-12)


XFAIL_FORWARD = {}


def _forward_cases():
    for case in _cases():
        fn, args = case.values
        if case.id.endswith("-0"):
            reason = XFAIL_FORWARD.get(fn.__name__)
            marks = [pytest.mark.xfail(strict=True, reason=reason, raises=srcgrad.SrcGradError)] if reason else []
            yield pytest.param(fn, args, id=fn.__name__, marks=marks)


@pytest.mark.parametrize("fn, args", list(_forward_cases()))
def test_forward_mode_agrees_with_reverse_mode(fn, args):
    """jvp(f, args, t) = <grad f(args), t> for a random tangent t of every argument."""
    tangents = tuple(
        float(rng.normal()) if isinstance(a, float) else rng.normal(size=np.shape(a)) for a in args
    )
    out, out_dot = srcgrad.jvp(fn, tuple(args), tangents)
    grads = srcgrad.grad(fn, wrt=tuple(range(len(args))))(*args)
    expected = sum(float(np.sum(np.asarray(g) * t)) for g, t in zip(grads, tangents))
    assert out == pytest.approx(fn(*args), rel=1e-12, abs=1e-12)
    assert float(out_dot) == pytest.approx(expected, rel=1e-7, abs=1e-9)


# --- displays stored into containers, and containers joined by slices -------------------


def _append_pairs(p):
    steps = []
    for i in range(2):
        steps.append((p ** (i + 2), i))  # a tuple display passed to append
    return steps[1][0]  # p**3


def _extend_with_lists(p):
    rows = []
    rows.extend([[p**2, p]])
    return rows[0][0] * rows[0][1]  # p**3


def _comprehension_of_pairs(p):
    pairs = [(p**2, p * 3) for _ in range(2)]
    return pairs[1][0] + pairs[0][1]  # p**2 + 3p


def _array_of_rows(p):
    return np.sum(np.array([[p * i, p**2] for i in range(3)]))  # 3p + 3p**2


def _dict_of_tuples(p):
    d = {"a": (p, p**2)}
    return d["a"][1] * 3  # 3p**2


@pytest.mark.parametrize("f, dfdp", [
    (_append_pairs, lambda p: 3 * p**2), (_extend_with_lists, lambda p: 3 * p**2),
    (_comprehension_of_pairs, lambda p: 2 * p + 3), (_array_of_rows, lambda p: 3 + 6 * p),
    (_dict_of_tuples, lambda p: 6 * p),
], ids=lambda v: getattr(v, "__name__", ""))
def test_displays_stored_into_containers_carry_their_derivatives(f, dfdp):
    """A tuple or list display passed to append/extend, built by a comprehension or held
    by a dict got no derivative (0 in both modes)."""
    p = 0.3
    expected = dfdp(p)
    assert srcgrad.grad(f)(p) == pytest.approx(expected, rel=1e-12)
    assert srcgrad.jvp(f, (p,), (1.0,))[1] == pytest.approx(expected, rel=1e-12)
    assert (f(p + 1e-6) - f(p - 1e-6)) / 2e-6 == pytest.approx(expected, rel=1e-6)


def test_a_dict_holding_a_list_display_has_a_tangent_and_a_cotangent():
    def f(p):
        return {"b": [p**2]}

    assert srcgrad.jvp(f, (0.3,), (1.0,))[1]["b"][0] == pytest.approx(0.6, rel=1e-12)
    out, pullback = srcgrad.vjp(f, 0.3)
    assert pullback({"b": [1.0]})[0] == pytest.approx(0.6, rel=1e-12)


def _slices_joined(p):
    items = [p, p**2]
    joined = items[:1] + items[1:]
    return joined[1] * joined[0]  # p**3


def _slice_repeated(p):
    items = (p, p**2)
    repeated = items[1:] * 3
    return repeated[2] * repeated[0]  # p**4


def _nested_entries_joined(p):
    rows = [[p, 2.0 * p], [3.0 * p]]
    joined = rows[0] + rows[1]
    return joined[0] * joined[1] * joined[2]  # 6 p**3


def _filled_rows_joined(p):
    rows = {}
    rows["a"] = [p, 2.0 * p]
    rows["b"] = [3.0 * p]
    joined = rows["a"] + rows["b"]
    return joined[0] * joined[1] * joined[2]  # 6 p**3


def _appended_rows_joined(p):
    rows = []
    rows.append((p, 2.0 * p))
    rows.append((3.0 * p,))
    joined = rows[0] + rows[1]
    return joined[0] * joined[1] * joined[2]  # 6 p**3


def _rows_joined_in_a_loop(p):
    rows = [[p, 2.0 * p], [3.0 * p]]
    joined = []
    for row in rows:
        joined = joined + row
    return joined[0] * joined[1] * joined[2]  # 6 p**3


def _list_joined_with_itself_and_a_display(p):
    items = [p, 2.0 * p]
    joined = items + items + [p**2]
    return joined[0] * joined[3] * joined[4]  # 2 p**4


def _tuple_repeated_from_the_left(p):
    items = 3 * (p, 2.0 * p)
    return items[0] * items[3] * items[5]  # 4 p**3


def _list_of_the_same_list(p):
    items = [np.sin(p), 2.0 * p]
    rows = [items, items]
    return rows[0][0] + rows[1][1]  # sin p + 2 p


def _list_made_an_array_then_added(p):
    items = [p, 2.0 * p]
    items = np.array(items)
    doubled = items + items
    return np.sum(doubled * doubled)  # 20 p**2


def _array_times_a_list(p):
    return np.sum(np.sin([p, 2.0 * p]) * [1.0, p])  # sin p + p sin 2p: NumPy arithmetic, no repeat


def _list_times_an_array(p):
    return np.sum([p, p * p] * np.exp([p, 1.0]))  # p e^p + e p**2


def _integer_array_times_a_list(p):
    return np.sum(np.array(3) * [p, p * p] * np.array([1.0, 2.0]))  # 3 p + 6 p**2: arithmetic


def _list_times_a_numpy_integer(p):
    items = [p, p * p] * np.int64(2)  # a repeat
    return items[0] * items[3]  # p**3


def _joined_then_repeated(p):
    items = [p] + [p * p]  # were taken for arithmetic, the join's result not seen as a list
    repeated = items * 2
    grown = [p]
    grown += [2.0 * p]
    twice = 2 * grown
    return repeated[0] * repeated[3] + twice[1] * twice[2]  # p**3 + 2 p**2


JOINED = [
    (_joined_then_repeated, lambda p: 3 * p**2 + 4 * p),
    (_array_times_a_list, lambda p: np.cos(p) + np.sin(2 * p) + 2 * p * np.cos(2 * p)),
    (_list_times_an_array, lambda p: np.exp(p) * (1 + p) + 2 * np.e * p),
    (_integer_array_times_a_list, lambda p: 3 + 12 * p), (_list_times_a_numpy_integer, lambda p: 3 * p**2),
    (_slices_joined, lambda p: 3 * p**2), (_slice_repeated, lambda p: 4 * p**3),
    (_nested_entries_joined, lambda p: 18 * p**2), (_filled_rows_joined, lambda p: 18 * p**2),
    (_appended_rows_joined, lambda p: 18 * p**2), (_rows_joined_in_a_loop, lambda p: 18 * p**2),
    (_list_joined_with_itself_and_a_display, lambda p: 8 * p**3), (_tuple_repeated_from_the_left, lambda p: 12 * p**2),
    (_list_of_the_same_list, lambda p: np.cos(p) + 2.0), (_list_made_an_array_then_added, lambda p: 40 * p),
]


@pytest.mark.parametrize("f,dfdp", JOINED, ids=lambda f: getattr(f, "__name__", ""))
def test_lists_and_tuples_joined_or_repeated(f, dfdp):
    """`a + b` / `a * n` of lists and tuples, also entries of nested lists (were
    differentiated as arithmetic, or refused): each operand's gradient is its run of the
    result's, in both modes, and through a Hessian. An array times a list is arithmetic
    (its gradient was 0, taken for a repeat; its tangent `[p_dot, None] * x` a TypeError)."""
    p = 0.7
    expected = dfdp(p)
    assert (f(p + 1e-6) - f(p - 1e-6)) / 2e-6 == pytest.approx(expected, rel=1e-6)
    assert srcgrad.grad(f)(p) == pytest.approx(expected, rel=1e-12)
    assert srcgrad.jvp(f, (p,), (1.0,))[1] == pytest.approx(expected, rel=1e-12)
    second = (dfdp(p + 1e-6) - dfdp(p - 1e-6)) / 2e-6
    assert srcgrad.hessian(f)(p) == pytest.approx(second, rel=1e-6)


def _rows_of(p):
    return [[p, 2.0 * p], [3.0 * p]]


def _joined_rows_of_a_call(p):
    rows = _rows_of(p)
    joined = rows[0] + rows[1]
    return joined[0] * joined[1] * joined[2]


def _joined_rows_of_a_call_as_lists(p):
    rows = _rows_of(p)
    joined = list(rows[0]) + list(rows[1])
    return joined[0] * joined[1] * joined[2]  # 6 p**3


def _joined_entries_of_an_argument(rows):
    joined = rows[0] + rows[1]
    return joined[0] * joined[1] * joined[2]


def test_lists_joined_where_the_analysis_cannot_see_them_are_refused_when_run(calls_kept):
    """Lists from a call or an argument look like numbers to the compiler: their `+` was
    differentiated as arithmetic (a gradient of the wrong length, cut short by zip)."""
    with pytest.raises(srcgrad.NotDifferentiableError, match=r"list of 2 entries has 3.*list\(a\) \+ list\(b\)"):
        srcgrad.grad(_joined_rows_of_a_call)(0.7)
    with pytest.raises(srcgrad.NotDifferentiableError, match="list of 2 entries has 3"):
        srcgrad.grad(_joined_entries_of_an_argument)([[0.7, 1.4], [2.1]])
    assert srcgrad.grad(_joined_rows_of_a_call_as_lists)(0.7) == pytest.approx(18 * 0.7**2, rel=1e-12)
    assert srcgrad.jvp(_joined_rows_of_a_call, (0.7,), (1.0,))[1] == pytest.approx(18 * 0.7**2, rel=1e-12)


def test_lists_joined_from_a_spliced_call_are_lists():
    """Spliced in, the call's lists are seen as lists: `+` joins them."""
    assert srcgrad.grad(_joined_rows_of_a_call)(0.7) == pytest.approx(18 * 0.7**2, rel=1e-12)


def _boolean_and_index_methods(x):
    i = x.argmax()
    j = x.argsort()[0]
    k = x.nonzero()[0][-1]
    return x[i] * x[j] + x[k] * x.all() + x.argmin() * x[0] + np.sum(x * x.any(axis=0))


def test_boolean_and_index_methods_have_no_gradient():
    """`.all()`, `.any()`, `.argmax()`, ... had no rule: "no derivative rule for the method"."""
    x = np.array([0.5, -1.0, 2.0])
    expected = np.array([1.0 + 1.0, 2.0 + 1.0, -1.0 + 1.0 + 1.0])  # d(x2 x1 + x2 + x0 + sum x)
    np.testing.assert_allclose(srcgrad.grad(_boolean_and_index_methods)(x), expected, rtol=1e-12)
    fd = np.array([(_boolean_and_index_methods(x + h) - _boolean_and_index_methods(x - h)) / 2e-6 for h in np.eye(3) * 1e-6])
    np.testing.assert_allclose(fd, expected, rtol=1e-6)
    assert srcgrad.jvp(_boolean_and_index_methods, (x,), (np.ones(3),))[1] == pytest.approx(expected.sum(), rel=1e-12)


def test_a_derivative_called_is_differentiated_and_pulled_back_is_refused_not_misread():
    """srcgrad differentiated the function a derivative wraps instead of the derivative.
    A gradient of one parameter called in a differentiated function has rules of its own
    now (derivative_calls.py): t = 3 a^3 sin(b), dt/da = 9 a^2 sin(b), dt/db = 3 a^3 cos(b)."""

    def s(a, b):
        return a**3 * np.sin(b)

    gs = srcgrad.grad(s)

    def t(a, b):
        return gs(a, b) * a

    a, b = 0.7, 0.3
    assert srcgrad.grad(t, wrt=(0, 1))(a, b) == pytest.approx((9 * a**2 * np.sin(b), 3 * a**3 * np.cos(b)), rel=1e-12)
    assert srcgrad.jvp(t, (a, b), (1.0, 0.5))[1] == pytest.approx(9 * a**2 * np.sin(b) + 1.5 * a**3 * np.cos(b), rel=1e-12)
    for transform in (lambda: srcgrad.vjp(gs, 0.7, 0.3), lambda: srcgrad.jacobian(gs, mode="reverse")(0.7, 0.3)):
        with pytest.raises(srcgrad.NotDifferentiableError, match="is a derivative made by srcgrad"):
            transform()
    assert srcgrad.grad(gs)(a, b) == pytest.approx(6 * a * np.sin(b), rel=1e-12)  # what is supported
    assert srcgrad.jacobian(gs, mode="forward")(a, b) == pytest.approx(6 * a * np.sin(b), rel=1e-12)
