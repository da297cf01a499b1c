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


def near_edges(x, y):
    return math.asin(y) + math.atanh(y) + math.sqrt(x) + math.acosh(1.0 + x)


def root_branch(x):
    from_root = 1.0 if math.sqrt(x) > 1.0 else 2.0  # numba's sqrt(-1.0) is nan: the other branch
    return from_root * x


def overflowing(x, p):
    return (x ** p) * 0.5


def test_a_math_domain_error_raises_as_in_python(numba):
    """numba's math returns nan where Python's raises: its checked versions send the call to Python."""
    for fn, good, bad in ((near_edges, (0.3, 0.5), (0.3, 1.5)), (root_branch, (4.0,), (-1.0,))):
        python = srcgrad.grad(fn, wrt=tuple(range(len(good))))
        compiled = srcgrad.grad(fn, wrt=tuple(range(len(good))), backend="numba")
        _same(compiled(*good), python(*good))
        assert _runs(compiled) == {"numba"}, compiled.__srcgrad_backend__.describe()
        assert "math_sqrt(" in compiled.__srcgrad_backend__.source()
        for _ in range(2):
            with pytest.raises(ValueError, match="math domain error") as info:
                compiled(*bad)
            if sys.version_info >= (3, 11):
                assert any(fn.__name__ in note for note in info.value.__notes__)  # located at the user's line
            _same(compiled(*good), python(*good))


def test_a_result_with_nan_or_inf_is_the_python_derivatives(numba):
    python = srcgrad.grad(overflowing, wrt=(0,))
    compiled = srcgrad.grad(overflowing, wrt=(0,), backend="numba")
    _same(compiled(2.0, 3.0), python(2.0, 3.0))
    assert _runs(compiled) == {"numba"}
    with pytest.raises(OverflowError):  # Python's float power raises; numba's gives inf
        compiled(10.0, 400.0)
    with pytest.raises(TypeError, match="returned complex"):  # Python's gives a complex number; numba's nan
        compiled(-8.0, 0.5)


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
    with pytest.raises(ImportError, match=r'pip install "srcgrad\[numba\]"'):
        srcgrad.compile(backend="numba")(scalar_loop)


# -- array code: the matrix-product adjoints, unbroadcasting sums and float32 -----------


def logistic_loss(w, b, x, y):  # the seed model, batched
    z = np.matmul(x, w) + b
    return np.mean(np.logaddexp(0.0, z) - y * z)


def tanh_mlp(W1, b1, W2, x):
    h = np.tanh(x @ W1 + b1)
    return np.sum((h @ W2) ** 2)


def _problem(dtype, batch):
    rng = np.random.default_rng(7)
    x = rng.normal(size=(batch, 5) if batch else 5).astype(dtype)
    y = (rng.random((batch, 3) if batch else 3) < 0.5).astype(dtype)
    return rng.normal(size=(5, 3)).astype(dtype), rng.normal(size=3).astype(dtype), x, y


def _close(got, expected, rtol):
    assert type(got) is type(expected)
    if isinstance(expected, tuple):
        assert len(got) == len(expected)
        for g, e in zip(got, expected):
            _close(g, e, rtol)
        return
    if isinstance(expected, np.ndarray):
        assert got.dtype == expected.dtype and got.shape == expected.shape
    np.testing.assert_allclose(got, expected, rtol=rtol, atol=rtol * float(np.max(np.abs(expected))))


@pytest.mark.parametrize("dtype, rtol", [(np.float64, 1e-12), (np.float32, 1e-5)], ids=["float64", "float32"])
@pytest.mark.parametrize("batch", [None, 4], ids=["vector", "batch"])
def test_array_gradients_compile_with_the_python_types(numba, dtype, rtol, batch):
    args = _problem(dtype, batch)
    expected = srcgrad.value_and_grad(logistic_loss, wrt=(0, 1))(*args)
    compiled = srcgrad.value_and_grad(logistic_loss, wrt=(0, 1), backend="numba")
    for _ in range(2):  # the first call compiles, the second runs the compiled code
        _close(compiled(*args), expected, rtol)
    assert _runs(compiled) == {"numba"}, compiled.__srcgrad_backend__.describe()
    assert type(expected[0]) is dtype  # a NumPy scalar, as the Python derivative gives it
    text = compiled.__srcgrad_backend__.source()
    # literals take float32 arithmetic: spelled np.float32(...), or constants.py's 0-d arrays (numba sees scalars)
    assert ("np.float32(0.0)" in text or "ZERO32" in text) == (dtype is np.float32)


def test_mlp_gradient_compiles(numba):
    rng = np.random.default_rng(8)
    args = (rng.normal(size=(6, 7)) * 0.3, rng.normal(size=7), rng.normal(size=(7, 2)), rng.normal(size=(4, 6)))
    wrt = (0, 1, 2)
    compiled = srcgrad.grad(tanh_mlp, wrt=wrt, backend="numba")
    expected = srcgrad.grad(tanh_mlp, wrt=wrt)(*args)
    for _ in range(2):
        _close(compiled(*args), expected, 1e-12)
    assert _runs(compiled) == {"numba"}, compiled.__srcgrad_backend__.describe()
    from conftest import numerical_grad

    for k, i in enumerate(wrt):
        np.testing.assert_allclose(expected[k], numerical_grad(tanh_mlp, args, i), rtol=1e-6, atol=1e-9)


def test_numba_spelling():
    pytest.importorskip("numba")
    from srcgrad.backends.numba_helpers import numba_spelling

    text = (
        "def f(a, b):\n"
        "    # é: np.matmul(a, b) in a comment stays\n"
        "    c = np.matmul(a, b) * 0.5 + np.multiply.outer(a, b)  # ü\n"
        "    return np.add.reduce(c, 0), 2\n"
    )
    assert numba_spelling(text) == text.replace("c = np.matmul(", "c = np_matmul(").replace(
        "np.multiply.outer(", "np_multiply_outer(")
    float32 = numba_spelling(text, float32=True)
    assert "np_matmul(a, b) * np.float32(0.5) + np_multiply_outer(a, b)  # ü" in float32
    assert "np.matmul(a, b) in a comment" in float32 and "), 2\n" in float32  # integers stay


# -- @srcgrad.compile(backend="numba") --------------------------------------------------


def test_compile_runs_the_compiled_adjoint_and_gives_eager_gradients(numba):
    compiled = srcgrad.compile(backend="numba")(logistic_loss)
    bce = srcgrad.nn.functional.binary_cross_entropy_with_logits
    for batch in (None, 8):  # two kinds of call, each compiled
        w, b, x, y = (srcgrad.tensor(a) for a in _problem(np.float32, batch))
        w.requires_grad_(), b.requires_grad_()
        eager = bce(srcgrad.matmul(x, w) + b, y)
        eager.backward()
        expected = (eager.item(), w.grad.numpy().copy(), b.grad.numpy().copy())
        for _ in range(3):  # the function itself, the Python derivative, then the compiled code
            w.grad, b.grad = None, None
            loss = compiled(w, b, x, y)
            loss.backward()
            assert loss.dtype == srcgrad.float32 and type(loss.grad_fn).__name__ == "logistic_lossBackward"
            np.testing.assert_allclose(loss.item(), expected[0], rtol=1e-6)
            assert w.grad.dtype == srcgrad.float32 and b.grad.dtype == srcgrad.float32
            np.testing.assert_allclose(w.grad.numpy(), expected[1], rtol=1e-5, atol=1e-7)
            np.testing.assert_allclose(b.grad.numpy(), expected[2], rtol=1e-5, atol=1e-7)
    report = compiled.__srcgrad_backend__
    assert {s.runs for s in report.signatures.values()} == {"numba"}, report.describe()
    with srcgrad.no_grad():
        assert compiled(w, b, x, y).grad_fn is None


def test_compile_keeps_python_for_code_numba_cannot_compile(numba):
    def with_a_list(w, x):
        parts = [np.sum(w * x), np.sum(w)]
        return parts[0] * parts[1]

    compiled = srcgrad.compile(backend="numba")(with_a_list)
    w = srcgrad.tensor(np.array([0.5, -1.0, 2.0]), requires_grad=True)
    x = srcgrad.tensor(np.array([1.5, 0.25, -0.5]))
    for _ in range(3):
        w.grad = None
        compiled(w, x).backward()
        wx, ws = np.sum(w.detach().numpy() * x.numpy()), np.sum(w.detach().numpy())
        np.testing.assert_allclose(w.grad.numpy(), x.numpy() * ws + wx, rtol=1e-12)
    assert "python (" in compiled.__srcgrad_backend__.describe()


def test_compile_unknown_backend():
    with pytest.raises(ValueError, match="unknown backend 'jit'"):
        srcgrad.compile(backend="jit")(logistic_loss)


@pytest.mark.parametrize("x_shape, y_shape", [((3,), (3,)), ((4, 3), (3, 2)), ((4, 3), (3,)), ((3,), (3, 2))])
def test_matrix_product_adjoints_compiled_equal_the_rules(numba, x_shape, y_shape):
    import srcgrad.backends.numba_backend  # noqa: F401 - registers numba's versions
    from srcgrad.rules.operators import _matmul_vjp_x, _matmul_vjp_y

    rng = np.random.default_rng(9)
    x, y = rng.normal(size=x_shape), rng.normal(size=y_shape)
    g = x @ y
    g = float(g) if np.ndim(g) == 0 else rng.normal(size=np.shape(g))
    both = numba.njit(lambda g, x, y: (_matmul_vjp_x(g, None, x, y), _matmul_vjp_y(g, None, x, y)))
    for got, expected in zip(both(g, x, y), (_matmul_vjp_x(g, None, x, y), _matmul_vjp_y(g, None, x, y))):
        assert np.shape(got) == np.shape(expected)
        np.testing.assert_allclose(got, expected, rtol=1e-12)
