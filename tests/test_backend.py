"""grad(f, backend="numba"): the compiled gradient equals the Python one; without numba
the error says what to install. The numba tests are skipped where numba is missing."""

import math
import sys
import warnings

import numpy as np
import pytest

import srcgrad

import corpus


def scalar_loop(a, b):  # benchmarks/workloads/scalar_loop.py
    s = 0.0
    for i in range(1000):
        if s < 10.0:
            s = s + a * (1.5 + math.sin(s + b))
        else:
            s = s * 0.5 - b
    return s


def nested_trips(a, n):
    s = 0.0
    for i in range(n):
        for j in range(i):
            s = s + a * math.sin(s)
    while s < 100.0:
        s = s * 2.0 + a
    return s


def calls_a_list_helper(a, b):
    values = [a, b, a * b]
    total = 0.0
    for v in values:
        total = total + v * v
    return total


@pytest.fixture
def numba():
    return pytest.importorskip("numba")


def _same(got, expected):
    assert type(got) is type(expected)
    if isinstance(expected, tuple):
        assert len(got) == len(expected)
        for g, e in zip(got, expected):
            _same(g, e)
    else:
        np.testing.assert_allclose(got, expected, rtol=1e-12, atol=0)


def _runs(derivative):
    return {sig.runs for sig in derivative.__srcgrad_backend__.signatures.values()}


def test_scalar_loop_gradient_is_compiled_and_equal(numba):
    python = srcgrad.grad(scalar_loop, wrt=(0, 1))
    compiled = srcgrad.grad(scalar_loop, wrt=(0, 1), backend="numba")
    for a, b in [(1.3, 0.2), (0.4, -0.7), (2.5, 1.1)]:
        _same(compiled(a, b), python(a, b))
    assert _runs(compiled) == {"numba"}, compiled.__srcgrad_backend__.describe()
    text = compiled.__srcgrad_backend__.source()
    assert "tape_push(" in text and "def scalar_loop_grad(a, b, tape_capacity):" in text
    assert srcgrad.source(compiled) == srcgrad.source(python)  # the Python derivative stays printable


def test_value_and_grad(numba):
    expected = srcgrad.value_and_grad(scalar_loop, wrt=(0, 1))(1.3, 0.2)
    got = srcgrad.value_and_grad(scalar_loop, wrt=(0, 1), backend="numba")(1.3, 0.2)
    _same(got, expected)


def test_integer_trip_counts_and_tape_growth(numba, monkeypatch):
    from srcgrad.backends import numba_backend

    monkeypatch.setattr(numba_backend, "_TAPE_CAPACITY", 4)
    python = srcgrad.grad(nested_trips)
    compiled = srcgrad.grad(nested_trips, backend="numba")
    for n in (3, 12, 30):  # more pushes each time: the tape doubles and the call is rerun
        _same(compiled(0.3, n), python(0.3, n))
    (sig,) = compiled.__srcgrad_backend__.signatures.values()
    assert sig.runs == "numba" and sig.capacity > 4
    assert "tape_ints" in sig.source  # the trip counts have an integer tape


@pytest.mark.parametrize(
    "fn",
    [corpus.scalar_math, corpus.branch, corpus.elif_chain, corpus.while_loop, corpus.data_dependent_while,
     corpus.tuple_swap, corpus.for_range, corpus.nested_loops, corpus.matmul_chain],
    ids=lambda f: f.__name__,
)
def test_corpus_gradients_equal_python(numba, fn):
    import inspect

    rng = np.random.default_rng(3)
    inputs = {"a": 0.7, "b": -0.4, "x": rng.normal(size=3), "W": rng.normal(size=(3, 3)) * 0.5}
    args = [inputs[name] for name in inspect.signature(fn).parameters]
    wrt = tuple(range(len(args)))
    expected = srcgrad.grad(fn, wrt=wrt)(*args)
    compiled = srcgrad.grad(fn, wrt=wrt, backend="numba")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # compiling or falling back warns nothing
        _same(compiled(*args), expected)
        _same(compiled(*args), expected)
    if all(isinstance(a, float) for a in args):
        assert _runs(compiled) == {"numba"}, compiled.__srcgrad_backend__.describe()


def test_code_numba_cannot_compile_runs_python_and_says_why(numba):
    compiled = srcgrad.grad(calls_a_list_helper, wrt=(0, 1), backend="numba")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _same(compiled(0.5, 1.5), srcgrad.grad(calls_a_list_helper, wrt=(0, 1))(0.5, 1.5))
    assert _runs(compiled) == {"python"}
    assert "(float, float): python (" in compiled.__srcgrad_backend__.describe()


def test_integer_argument_is_refused_as_in_python(numba):
    with pytest.raises(TypeError, match="pass a float"):
        srcgrad.grad(scalar_loop, backend="numba")(1, 0.2)


def test_unknown_backend():
    with pytest.raises(ValueError, match="unknown backend 'jit'"):
        srcgrad.grad(scalar_loop, backend="jit")


def test_missing_numba_says_what_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "numba", None)  # `import numba` raises ImportError
    monkeypatch.delitem(sys.modules, "srcgrad.backends.numba_backend", raising=False)
    import srcgrad.backends

    if hasattr(srcgrad.backends, "numba_backend"):
        monkeypatch.delattr(srcgrad.backends, "numba_backend")
    with pytest.raises(ImportError, match=r'pip install "srcgrad\[numba\]"'):
        srcgrad.grad(scalar_loop, backend="numba")
    with pytest.raises(ImportError, match=r'pip install "srcgrad\[numba\]"'):
        srcgrad.value_and_grad(scalar_loop, backend="numba")
