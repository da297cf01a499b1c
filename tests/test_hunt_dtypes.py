"""Dtypes and number types as a hunt: what a derivative returns has the type NumPy gives.

The value of value_and_grad, vjp and jvp has the type, dtype and shape of the function's
own value (computed here by calling it: NumPy 2's NEP 50 and NumPy 1's value-based casting
may differ, the derivative follows the NumPy running); each gradient has its argument's
type, dtype and shape; the numbers agree with central differences in float64, within the
rounding of the argument's dtype.

In-place changes: `h op= v` on an ndarray `h` writes into `h`, so the result keeps h's
dtype and shape (a float32 array times a float64 one stays float32, a 0-d array stays an
array); srcgrad computes `h = h op v` and then casts as NumPy does (runtime.in_place).
Before, a float32 array changed by a float64 one became float64: value_and_grad's value of
`h *= w; return np.sum(h)` was a float64 where NumPy gives a float32.
"""

import numpy as np
import pytest

import srcgrad
from srcgrad import runtime
from srcgrad.compiler import derive
from srcgrad.compiler.cache import general_code

W = np.array([0.5, -1.5, 2.5, 0.25])
X = np.array([0.3, 1.1, -0.7, 2.0])


def times_in_place(h, w):
    h = h * 1.0
    h *= w
    return np.sum(h * h)


def plus_in_place(h, w):
    h = np.tanh(h)
    h += w * w
    return np.sum(h ** 3)


def minus_then_divide(h, w):
    h = h + 0.0
    h -= w
    h /= 1.0 + w * w
    return np.sum(np.sin(h))


def power_in_place(h, w):
    h = np.abs(h) + 1.0
    h **= w
    return np.sum(h)


def accumulated_in_a_loop(h, w):
    s = np.zeros_like(h)
    for i in range(3):
        s += h * w[i]
        s *= 0.5
    return np.sum(s * s)


def changed_in_every_iteration(h, w):
    for _ in range(3):
        h = h * 1.0
        h += w
    return np.sum(h * h)


def changed_in_a_branch(h, w):
    h = h * 1.0
    if np.sum(w) > -100.0:
        h += w
    else:
        h -= w
    return np.sum(h * h)


def written_whole(h, w):
    h = h * 1.0
    h[...] = w * 2.0 + h
    return np.sum(h * h)


def written_through_out(h, w):
    h = h * 1.0
    np.add(h, w, out=h)
    return np.sum(h * h)


def returned_changed(h, w):
    h = h * 1.0
    h *= w
    return h


PROGRAMS = [times_in_place, plus_in_place, minus_then_divide, power_in_place, accumulated_in_a_loop,
            changed_in_every_iteration, changed_in_a_branch, written_whole, written_through_out]
DTYPES = [(np.float32, np.float64), (np.float16, np.float32), (np.float16, np.float64), (np.float64, np.float64),
          (np.float64, np.float32)]
TOLERANCE = {np.dtype(np.float64): 1e-6, np.dtype(np.float32): 2e-3, np.dtype(np.float16): 6e-2}


def _kind(v):
    """Type, dtype and shape: what must agree."""
    return (type(v), getattr(v, "dtype", None), np.shape(v))


def _copies(args):
    return tuple(a.copy() if isinstance(a, np.ndarray) else a for a in args)


def _differences(fn, args, i, h=1e-6):
    wide = [np.asarray(a, np.float64) if isinstance(a, np.ndarray) else float(a) for a in args]
    g = np.zeros(np.shape(wide[i]))
    for j in np.ndindex(g.shape):
        up, down = [a.copy() if isinstance(a, np.ndarray) else a for a in wide], [
            a.copy() if isinstance(a, np.ndarray) else a for a in wide]
        if g.shape:
            up[i][j] += h
            down[i][j] -= h
        else:
            up[i], down[i] = up[i] + h, down[i] - h
        g[j] = (float(np.sum(fn(*up))) - float(np.sum(fn(*down)))) / (2 * h)
    return g


def _tolerance(*args):
    return max(TOLERANCE[np.result_type(a)] for a in args)


@pytest.mark.parametrize("dtypes", DTYPES, ids=lambda d: "-".join(np.dtype(t).name for t in d))
@pytest.mark.parametrize("fn", PROGRAMS, ids=lambda f: f.__name__)
def test_in_place_changes_keep_the_arrays_dtype(fn, dtypes):
    h, w = X.astype(dtypes[0]), W.astype(dtypes[1])
    expected = fn(h.copy(), w.copy())
    value, grads = srcgrad.value_and_grad(fn, wrt=(0, 1))(h, w)
    assert _kind(value) == _kind(expected)
    tol = _tolerance(h, w)
    np.testing.assert_allclose(float(value), float(expected), rtol=tol)
    for i, (g, a) in enumerate(zip(grads, (h, w))):
        assert _kind(g) == _kind(a)
        want = _differences(fn, (h, w), i)
        np.testing.assert_allclose(np.asarray(g, np.float64), want, rtol=tol, atol=tol * max(1.0, np.abs(want).max()))
    assert [_kind(g) for g in srcgrad.grad(fn, wrt=(0, 1))(h, w)] == [_kind(h), _kind(w)]
    general = general_code(derive(fn, "value_and_grad", (0, 1)).function)(h, w)  # the code of any call
    assert _kind(general[0]) == _kind(expected) and [_kind(g) for g in general[1]] == [_kind(h), _kind(w)]
    out, pullback = srcgrad.vjp(fn, h, w)
    assert _kind(out) == _kind(expected)
    assert [_kind(g) for g in pullback(np.ones_like(out))] == [_kind(h), _kind(w)]
    tangents = (np.ones_like(h), np.full_like(w, 0.5))
    out, out_dot = srcgrad.jvp(fn, (h, w), tangents)
    assert _kind(out) == _kind(expected) and _kind(out_dot) == _kind(expected)
    directional = sum(float(np.sum(_differences(fn, (h, w), i) * t)) for i, t in enumerate(tangents))
    np.testing.assert_allclose(float(out_dot), directional, rtol=tol, atol=tol * max(1.0, abs(directional)))
    assert np.array_equal(h, X.astype(dtypes[0])) and np.array_equal(w, W.astype(dtypes[1]))


@pytest.mark.parametrize("dtypes", DTYPES[:3], ids=lambda d: "-".join(np.dtype(t).name for t in d))
def test_an_array_output_changed_in_place_keeps_its_dtype(dtypes):
    h, w = X.astype(dtypes[0]), W.astype(dtypes[1])
    expected = returned_changed(h.copy(), w)
    out, pullback = srcgrad.vjp(returned_changed, h, w)
    assert _kind(out) == _kind(expected) == (np.ndarray, h.dtype, (4,))
    gh, gw = pullback(np.ones_like(out))
    assert _kind(gh) == _kind(h) and _kind(gw) == _kind(w)
    np.testing.assert_allclose(gh, w, rtol=_tolerance(h, w))
    out, out_dot = srcgrad.jvp(returned_changed, (h, w), (np.ones_like(h), np.zeros_like(w)))
    assert _kind(out) == _kind(out_dot) == _kind(expected)
    J = srcgrad.jacobian(returned_changed)(h, w)
    np.testing.assert_allclose(J, np.diag(w), rtol=_tolerance(h, w))


def grown_zero_d(h, w):
    h = h * 1.0
    h += w
    return h * h


@pytest.mark.parametrize("h, w", [
    (np.array(0.7, np.float32), np.array(0.3)), (np.array(0.7), np.array(0.3)), (np.array(0.7), 0.3),
    (np.float32(0.7), 0.3), (np.float64(0.7), np.float32(0.3)), (0.7, 0.3),
], ids=["0d32-0d64", "0d64-0d64", "0d64-float", "f32-float", "f64-f32", "floats"])
def test_a_zero_d_array_changed_in_place_stays_an_array(h, w):
    """`h * 1.0` of a 0-d array is a NumPy scalar, and `h += w` on it rebinds `h`; on an
    array `h += w` keeps the array: the value's type follows NumPy either way."""
    expected = grown_zero_d(h, w)
    value, (gh, gw) = srcgrad.value_and_grad(grown_zero_d, wrt=(0, 1))(h, w)
    assert _kind(value) == _kind(expected)
    assert _kind(gh) == _kind(h) and _kind(gw) == _kind(w)
    true = 2.0 * (float(h) + float(w))
    tol = 1e-6 if np.result_type(h, w) == np.float64 else 1e-6 * 10 ** 1.5
    assert float(gh) == pytest.approx(true, rel=tol) and float(gw) == pytest.approx(true, rel=tol)


def test_a_zero_d_array_written_in_place_keeps_its_type():
    def f(x, w):
        h = np.zeros(())
        h += x * w
        return h

    x, w = np.array(0.5), 3.0
    expected = f(x, w)
    assert type(expected) is np.ndarray
    out, pullback = srcgrad.vjp(f, x, w)
    assert _kind(out) == _kind(expected)
    gx, gw = pullback(np.ones(()))
    assert _kind(gx) == _kind(x) and float(gx) == 3.0 and type(gw) is float and gw == 0.5


def test_what_numpy_refuses_in_place_is_refused():
    def into_integers(x, k):
        n = np.arange(3)
        n += x * k
        return np.sum(n * x)

    def into_a_smaller_array(x, M):
        h = x * 1.0
        h += M
        return np.sum(h)

    x = np.array([0.5, 1.5, 2.5])
    with pytest.raises(TypeError):
        into_integers(x, 0.5)
    with pytest.raises(TypeError, match="float64.*int64|same_kind"):
        srcgrad.grad(into_integers)(x, 0.5)
    M = np.ones((2, 3))
    with pytest.raises(ValueError):
        into_a_smaller_array(x, M)
    with pytest.raises(ValueError, match="non-broadcastable output operand"):
        srcgrad.grad(into_a_smaller_array)(x, M)


def test_in_place_cast_of_runtime():
    h32 = np.ones(3, np.float32)
    got = runtime.in_place(h32 * np.array([0.1, 0.2, 0.3]), h32)
    expected = h32.copy()
    expected *= np.array([0.1, 0.2, 0.3])
    assert got.dtype == np.float32 and got.tobytes() == expected.tobytes()
    h = np.ones(3)
    value = h * 2.0
    assert runtime.in_place(value, h) is value  # the common case: nothing copied
    assert runtime.in_place(2.5, 1.0) == 2.5 and runtime.in_place([1, 2], [1]) == [1, 2]


def float_accumulation(a, b):
    t = 0.0
    for _ in range(5):
        t += a * b
        t *= 0.9
    return t


def array_accumulation(x, w):
    s = np.zeros(4)
    for i in range(4):
        s += x * w[i]
    return np.sum(s * s)


def test_the_common_case_specialized_code_has_no_cast():
    """Float64 arrays and Python floats: kinds.py proves `in_place` returns its value, and
    the code specialized to the call is the code of `y = y op v`."""
    for fn, args in ((float_accumulation, (0.7, 0.3)), (array_accumulation, (X, W))):
        df = derive(fn, "value_and_grad", (0, 1)).function
        value, grads = df(*args)
        assert _kind(value) == _kind(fn(*args)) and [_kind(g) for g in grads] == [_kind(a) for a in args]
        text = list(df.__srcgrad_specializations__.values())[-1].__srcgrad_source__
        assert "in_place" not in text
        assert "in_place(" in srcgrad.source(srcgrad.value_and_grad(fn, wrt=(0, 1)))  # the general code casts
    def scaled(h, w):  # times_in_place, with a cache of its own
        h = h * 1.0
        h *= w
        return np.sum(h * h)

    df = derive(scaled, "value_and_grad", (0, 1)).function
    value, _ = df(X.astype(np.float32), W)
    assert type(value) is np.float32
    text = list(df.__srcgrad_specializations__.values())[-1].__srcgrad_source__
    assert "in_place(" in text  # float32 times float64: the cast stays
