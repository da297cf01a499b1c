"""Repeat calls of `srcgrad.jvp` of a plain function run the code of a kept kind of call
(jvp_repeats.py): the same values as a first call, and every error for bad input the
same as a first call's, after the kind was kept."""

import gc

import numpy as np
import pytest

import srcgrad
from srcgrad.compiler import cache
from srcgrad.jvp_repeats import LAST_REPEAT

X = np.array([0.5, -1.2, 2.0])
T = np.array([1.0, 0.5, -1.0])
act = np.tanh


def scaled(x, k, n):
    return np.sum(act(x) ** n) * k


def indexed(x, W):
    h = np.zeros(2)
    for t in range(3):
        h = np.tanh(h + x[t] @ W)
    return np.sum(h)


def _warm(fn, primals, tangents, calls=3):
    """Call jvp `calls` times (the third runs the kept kind of call) and return the last result."""
    for _ in range(calls):
        pushed = srcgrad.jvp(fn, primals, tangents)
    return pushed


def _error(fn, primals, tangents):
    with pytest.raises(Exception) as info:
        srcgrad.jvp(fn, primals, tangents)
    return type(info.value), str(info.value)


def test_repeat_calls_give_the_first_calls_values_and_output_dtypes():
    cache.clear()
    out, out_dot = _warm(scaled, (X, 2.0, 2), (T, None, None))
    assert LAST_REPEAT  # the kind of call was kept
    assert out == pytest.approx(2 * np.sum(np.tanh(X) ** 2))
    assert out_dot == pytest.approx(np.sum(4 * np.tanh(X) * (1 - np.tanh(X) ** 2) * T))
    assert type(out) is np.float64 and type(out_dot) is np.float64
    # another shape, another dtype, the other tangent: each a kind of its own
    Y = np.linspace(-1.0, 1.0, 5)
    _, out_dot = _warm(scaled, (Y, 2.0, 2), (np.ones(5), None, None))
    assert out_dot == pytest.approx(np.sum(4 * np.tanh(Y) * (1 - np.tanh(Y) ** 2)))
    out, out_dot = _warm(scaled, (X.astype(np.float32), 2.0, 2), (T.astype(np.float32), None, None))
    # the function's own result type: float32 (NumPy 1.26 widens a float32 scalar times 2.0)
    assert out_dot.dtype == out.dtype == np.result_type(scaled(X.astype(np.float32), 2.0, 2))
    assert np.lib.NumpyVersion(np.__version__) < "2.0.0" or out.dtype == np.float32
    _, out_dot = _warm(scaled, (X, 2.0, 2), (T.astype(np.float32), None, None))
    assert type(out_dot) is np.float64  # a float32 tangent of a float64 output: in the output's dtype
    assert out_dot == pytest.approx(np.sum(4 * np.tanh(X) * (1 - np.tanh(X) ** 2) * T), rel=1e-6)
    _, out_dot = _warm(scaled, (X, np.array(2.0), 2), (None, np.array(1.0), None))
    assert out_dot == pytest.approx(np.sum(np.tanh(X) ** 2))
    _, out_dot = _warm(scaled, (X, 2.0, 2), (T, None, None), calls=1)  # back to the first kind
    assert out_dot == pytest.approx(np.sum(4 * np.tanh(X) * (1 - np.tanh(X) ** 2) * T))


BAD_CALLS = [
    ((X, 2.0, 2), (np.ones(4), None, None)),  # a tangent of another shape
    ((X, 2.0, 2), (np.ones((1, 3)), None, None)),
    ((X, 2.0, 2), (T, None, 1.0)),  # a tangent of an integer argument
    ((X, 2.0, 2), (T, None)),  # fewer tangents than primals
    ((X, 2.0, 2), (T, None, None, None)),
    ((X, 2.0), (T, None)),  # a parameter missing
    ((X, 2.0, 2, 1), (T, None, None, None)),  # one too many
    ((X.astype(int), 2.0, 2), (T, None, None)),  # an integer primal with a tangent
    ((X, 2.0, 2), (T.astype(int), None, None)),  # an integer tangent
    ((X, 2.0, 2), ([1.0, 0.5, -1.0], None, None)),  # a list tangent of an array
    ((X, np.ma.masked_array(2.0), 2), (T, None, None)),  # a value the derivative refuses
    ([X, 2.0, 2], (T, None, None)),  # a list of primals: the full path, the same result
]


@pytest.mark.parametrize("primals, tangents", BAD_CALLS)
def test_bad_input_after_a_kept_kind_of_call_fails_as_on_a_first_call(primals, tangents):
    cache.clear()
    first = _error(scaled, primals, tangents) if not isinstance(primals, list) else None
    cache.clear()
    _warm(scaled, (X, 2.0, 2), (T, None, None))
    assert LAST_REPEAT
    if first is None:  # the list is accepted: the same values as the tuple
        assert srcgrad.jvp(scaled, primals, tangents)[1] == srcgrad.jvp(scaled, tuple(primals), tangents)[1]
    else:
        assert _error(scaled, primals, tangents) == first


def test_an_argument_check_reading_entries_runs_at_every_repeat_call():
    """The derivative's argument checks (a masked array entering the computation) fail after
    a kind of call was kept as at a first call; a list `x` and a dict `x` keyed by t (their
    entries read) run as an array does."""
    cache.clear()
    W = np.ones((2, 2)) * 0.1
    x = np.ones((3, 2))
    want = _warm(indexed, (x, W), (np.ones((3, 2)), None))
    assert srcgrad.jvp(indexed, (list(x), W), (None, np.ones((2, 2))))[1] == pytest.approx(
        srcgrad.jvp(indexed, (x, W), (None, np.ones((2, 2))))[1])
    rows = {0: x[0], 1: x[1], 2: x[2]}  # a dict keyed by t: another kind of call, read row by row
    cache.clear()
    first = srcgrad.jvp(indexed, (rows, W), (None, np.ones((2, 2))))
    cache.clear()
    _warm(indexed, (x, W), (None, np.ones((2, 2))))
    assert srcgrad.jvp(indexed, (rows, W), (None, np.ones((2, 2)))) == first == pytest.approx(
        srcgrad.jvp(indexed, (x, W), (None, np.ones((2, 2)))))
    masked = np.ma.masked_array(W)
    cache.clear()
    first = _error(indexed, (x, masked), (np.ones((3, 2)), None))
    assert first[0] is srcgrad.NotDifferentiableError and "`W` is of type `MaskedArray`" in first[1]
    _warm(indexed, (x, W), (np.ones((3, 2)), None))
    assert _error(indexed, (x, masked), (np.ones((3, 2)), None)) == first
    assert srcgrad.jvp(indexed, (x, W), (np.ones((3, 2)), None)) == want


def test_repeat_calls_see_a_rebound_global_replaced_code_and_another_function(monkeypatch):
    cache.clear()
    _warm(scaled, (X, 2.0, 1), (T, None, None))
    monkeypatch.setitem(globals(), "act", np.sin)
    _, out_dot = srcgrad.jvp(scaled, (X, 2.0, 1), (T, None, None))
    assert out_dot == pytest.approx(2 * np.sum(np.cos(X) * T))
    _warm(scaled, (X, 2.0, 1), (T, None, None))
    monkeypatch.setattr(scaled, "__code__", scaled.__code__)  # restored afterwards
    scaled.__code__ = _cubed_sum.__code__
    _, out_dot = srcgrad.jvp(scaled, (X, 2.0, 1), (T, None, None))
    assert out_dot == pytest.approx(np.sum(6 * X ** 2 * T))

    def make(scale):
        def of(x):
            return np.sum(x) * scale
        return of

    twice, thrice = make(2.0), make(3.0)  # the same code, other closures
    _warm(twice, (X,), (T,))
    assert srcgrad.jvp(thrice, (X,), (T,))[1] == pytest.approx(3 * np.sum(T))
    assert srcgrad.jvp(twice, (X,), (T,))[1] == pytest.approx(2 * np.sum(T))


def _cubed_sum(x, k, n):
    return np.sum(x ** 3) * k


def test_the_kept_kind_of_call_does_not_keep_its_function_alive():
    cache.clear()

    def make():
        def square_sum(x):
            return np.sum(x * x)
        return square_sum

    fn = make()
    _warm(fn, (X,), (T,))
    assert LAST_REPEAT
    del fn
    gc.collect()
    assert not LAST_REPEAT
