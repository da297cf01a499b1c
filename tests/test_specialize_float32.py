"""Specialized code for float32 (and float16) values: the seed `SEED32`, gradients
returned without `unbroadcast` where their kind is proven, and `np.mean` of a float
array computed by `runtime.mean_of`, bit for bit the same as NumPy's.

The proofs depend on the running NumPy's type promotion (NEP 50 in NumPy 2, value-based
before); every test compares with the general code, so it holds under either."""

import numpy as np
import pytest

import srcgrad
from srcgrad import runtime
from srcgrad.compiler import derive, kinds
from srcgrad.compiler.cache import general_code

NEP50 = kinds._WEAK_PYTHON_NUMBERS


def vector_loss(w, b, x, y):
    z = np.matmul(x, w) + b
    return np.mean(np.logaddexp(0.0, z) - y * z)


def scaled_mean(x, c):
    return np.mean(x * c)


def scalar_times(s, x):
    return np.sum(s * x)


def mixed(x32, x64):
    return np.mean(np.tanh(x32) + x64)


def test_specialized_functions_are_not_the_user_functions():
    assert general_code(derive(scaled_mean, "grad", 0).function) is not scaled_mean


def _special(df):
    return list(df.__srcgrad_specializations__.values())[-1].__srcgrad_source__


def _bits(a):
    """Type, dtype, shape and the bytes of a value (a tuple of values entry by entry)."""
    if isinstance(a, tuple):
        return tuple(_bits(v) for v in a)
    if type(a) is float:
        return (float, np.float64(a).tobytes())
    return (type(a), a.dtype, np.shape(a), np.ascontiguousarray(a).tobytes())


def _logreg_args(rng, dtype):
    x = rng.standard_normal(5).astype(dtype)
    w = rng.standard_normal((5, 3)).astype(dtype)
    b = rng.standard_normal(3).astype(dtype)
    y = (rng.random(3) < 0.5).astype(dtype)
    return w, b, x, y


# --- runtime.mean_of ------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.float16])
@pytest.mark.parametrize("shape", [(1,), (3,), (7,), (5, 3), (4, 1, 6), (129,), (1000,), (33, 65)])
def test_mean_of_is_np_mean_bit_for_bit(dtype, shape):
    rng = np.random.default_rng(hash((np.dtype(dtype).name, shape)) % 2**32)
    for trial in range(60):
        scale = 10.0 ** rng.integers(-3, 4)
        a = (rng.standard_normal(shape) * scale + rng.standard_normal() * scale).astype(dtype)
        views = [a, a.T]
        if a.ndim == 1 and a.size > 2:
            views.append(a[::2])
        for v in views:
            expected, got = np.mean(v), runtime.mean_of(v)
            assert type(got) is type(expected) is np.dtype(dtype).type
            assert got.tobytes() == expected.tobytes(), (v, got, expected)


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.float16])
def test_mean_of_special_values_and_rounding(dtype):
    info = np.finfo(dtype)
    cases = [
        [np.inf, 1.0], [-np.inf, np.inf], [np.nan, 1.0], [info.max, info.max], [info.tiny, info.tiny / 2],
        [1.0, 1.0, 1.0 + float(info.eps)], [info.max / 3, info.max / 3, info.max / 3],
    ]
    for values in cases:
        with np.errstate(all="ignore"):
            a = np.array(values, dtype=dtype)
            expected, got = np.mean(a), runtime.mean_of(a)
        assert type(got) is type(expected)
        assert got.tobytes() == expected.tobytes(), (values, got, expected)
    rng = np.random.default_rng(7)  # quotients that round differently in float32 than in float64
    for n in (3, 7, 11, 13):
        for _ in range(200):
            a = rng.standard_normal(n).astype(dtype)
            assert runtime.mean_of(a).tobytes() == np.mean(a).tobytes()


def test_mean_of_falls_back_to_np_mean():
    with pytest.warns(RuntimeWarning):
        assert np.isnan(runtime.mean_of(np.zeros(0)))
    assert runtime.mean_of([1.0, 2.0]) == 1.5 and type(runtime.mean_of([1.0, 2.0])) is np.float64
    ints = np.arange(5)
    assert runtime.mean_of(ints) == 2.0 and type(runtime.mean_of(ints)) is np.float64
    swapped = np.arange(4.0).astype(">f8")
    assert runtime.mean_of(swapped) == np.mean(swapped) == 1.5
    assert type(runtime.mean_of(np.float32(3.0))) is type(np.mean(np.float32(3.0)))


# --- specialized derivatives ----------------------------------------------------------------


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
@pytest.mark.parametrize("mode", ["grad", "value_and_grad"])
def test_logreg_specialized_equals_general_bit_for_bit(rng, dtype, mode):
    df = derive(vector_loss, mode, (0, 1)).function
    general = general_code(df)
    for _ in range(20):
        args = _logreg_args(rng, dtype)
        got, expected = df(*args), general(*args)
        if dtype is np.float64:  # factoring.py's `SEED64_1 * (sig - y)` rounds differently (before this, too)
            grads = (got[1], expected[1]) if mode == "value_and_grad" else (got, expected)
            for g, e in zip(*grads):
                assert _bits(g)[:3] == _bits(e)[:3]
                np.testing.assert_allclose(g, e, rtol=1e-13, atol=1e-15)
            if mode == "value_and_grad":
                assert _bits(got[0]) == _bits(expected[0])
        else:
            assert _bits(got) == _bits(expected)
    text = _special(df)
    code = "\n".join(line for line in text.splitlines() if not line.strip().startswith("#"))
    assert ("grad_seed" in code) is (dtype is np.float16) and "np.mean" not in code  # float16: no bound seed
    if mode == "value_and_grad":
        assert "mean_of(" in text
    if dtype is np.float32:
        assert "SEED32" in text
    if (NEP50 and dtype is np.float32) or dtype is np.float64:  # NumPy 1.x: SEED32 * 0.333 is a float64
        assert "unbroadcast" not in text


def test_float32_gradient_values_types_and_finite_differences(rng):
    w, b, x, y = _logreg_args(rng, np.float64)
    value, (gw, gb) = srcgrad.value_and_grad(vector_loss, wrt=(0, 1))(*(a.astype(np.float32) for a in (w, b, x, y)))
    assert type(value) is np.float32 and gw.dtype == gb.dtype == np.float32 and gw.shape == (5, 3)
    eps = 1e-6
    for i in range(3):
        e = np.zeros(3)
        e[i] = eps
        fd = (vector_loss(w, b + e, x, y) - vector_loss(w, b - e, x, y)) / (2 * eps)
        assert abs(float(gb[i]) - fd) < 1e-6
    assert float(value) == pytest.approx(vector_loss(w, b, x, y), rel=1e-6)


def test_python_float_times_float32_array_is_proven_only_under_nep50(rng):
    df = derive(scaled_mean, "grad", 0).function
    x = rng.standard_normal(6).astype(np.float32)
    for c in (0.5, 1e300, -3.0):
        with np.errstate(all="ignore"):
            got, expected = df(x, c), general_code(df)(x, c)
        assert _bits(got) == _bits(expected)
    text = _special(df)
    # NumPy 1.x: float32 * 1e300 is float64, so c's value matters: nothing proven
    assert ("grad_seed" in text) is (not NEP50)


def test_float32_scalar_parameter(rng):
    df = derive(scalar_times, "grad", (0, 1)).function
    s, x = np.float32(1.5), rng.standard_normal(4).astype(np.float32)
    got, expected = df(s, x), general_code(df)(s, x)
    assert _bits(got) == _bits(expected)
    assert type(got[0]) is np.float32 and got[0] == np.sum(x)
    text = _special(df)
    assert "unbroadcast" not in text and "SEED32" in text  # float32 with float32 only: every NumPy version


def test_mixed_float32_and_float64_arrays(rng):
    df = derive(mixed, "value_and_grad", (0, 1)).function
    a, b = rng.standard_normal(5).astype(np.float32), rng.standard_normal(5)
    got, expected = df(a, b), general_code(df)(a, b)
    assert _bits(got[0]) == _bits(expected[0]) and _bits(got[1][1]) == _bits(expected[1][1])
    # shapes.py drops `unbroadcast(t1_bar, tanh_x32)` (same shapes), the float32 cast of the
    # float64 gradient before its product: within an ulp (so before this change, too)
    assert _bits(got[1][0])[:3] == _bits(expected[1][0])[:3]
    np.testing.assert_allclose(got[1][0], expected[1][0], rtol=2e-7)
    assert type(got[0]) is np.float64 and got[1][0].dtype == np.float32
    text = _special(df)
    assert "SEED64" in text and "grad_seed" not in text and "mean_of(" in text


def test_general_code_is_unchanged():
    text = srcgrad.source(srcgrad.value_and_grad(vector_loss, wrt=(0, 1)))
    assert "mean_of" not in text and "SEED32" not in text and "np.mean(" in text and "grad_seed(" in text


@pytest.mark.skipif(not NEP50, reason="NumPy 1 makes float32 times a Python float a float64: no float32 constant")
def test_float32_seed_arithmetic_is_folded_into_bound_constants(rng):
    """`SEED32 * (1/3)` and its negation are computed once, at derivation, by NumPy, into
    constants the standalone source defines (where they stay float32: NumPy 2)."""
    df = derive(vector_loss, "grad", (0, 1)).function
    args = _logreg_args(rng, np.float32)
    got = df(*args)
    from srcgrad.compiler.cache import signature_of

    special = df.__srcgrad_specializations__[signature_of(args)]
    text = special.__srcgrad_source__
    assert "SEED32 *" not in text and "-t1_bar" not in text and "SEED32_1" in text
    assert _bits(got) == _bits(general_code(df)(*args))
    from srcgrad.compiler import standalone

    shown = standalone.text(special.__srcgrad_unit__)
    # (a 0-d array: every read multiplies an array, constants.bound_scalars)
    assert f"SEED32_1 = np.array({float(np.float32(1.0) * (1.0 / 3.0))!r}, dtype=np.float32)" in shown
    namespace = {}
    exec(compile(shown, "<standalone>", "exec"), namespace)  # noqa: S102 - the generated source
    assert _bits(namespace[special.__name__](*args)) == _bits(got)


# --- constants.py: number constants as 0-d arrays -------------------------------------------


NUMPY1 = int(np.__version__.split(".")[0]) < 2


def _close_in_dtype(got, want, dtype):
    """Same types, dtypes and shapes, values within a few units in the last place of `dtype`
    (of the largest entry)."""
    for g, w in zip(got[1], want[1]) if isinstance(got, tuple) else ():
        assert type(g) is type(w) and g.dtype == w.dtype and np.shape(g) == np.shape(w)
        scale = float(np.max(np.abs(w))) if np.size(w) else 0.0  # an entry may be a sum that cancels
        np.testing.assert_allclose(g, w, rtol=4 * np.finfo(dtype).eps, atol=4 * np.finfo(dtype).eps * scale)
    assert type(got[0]) is type(want[0]) and np.isclose(got[0], want[0], rtol=4 * np.finfo(dtype).eps)


def with_constants(x, c):
    u = 2.0 * x - 0.1 * np.maximum(x, 1.5) / 3 + 1
    return np.mean(np.logaddexp(0.0, u) * 0.5 + np.tanh(0.5 * (x - 0.0)) + c * x)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
def test_constants_as_0d_arrays_change_no_bit(rng, dtype):
    df = derive(with_constants, "value_and_grad", (0, 1)).function
    general = general_code(df)
    for _ in range(10):
        x = (rng.standard_normal(7) * 3).astype(dtype)
        c = dtype(rng.standard_normal())
        with np.errstate(all="ignore"):
            got, want = df(x, c), general(x, c)
        if NUMPY1 and dtype is not np.float64:  # value-based casting: the last bit may differ
            _close_in_dtype(got, want, dtype)
        else:
            assert _bits(got) == _bits(want)
    text = _special(df)
    bits = np.dtype(dtype).itemsize * 8
    assert f"np.logaddexp(ZERO{bits}, u)" in text and f"HALF{bits} * np.tanh(HALF{bits} * u) + HALF{bits}" in text
    code = "\n".join(line for line in text.splitlines() if not line.strip().startswith("#"))
    assert ("0.1 *" in code) is (dtype is not np.float64)  # not exactly a float16 or float32: left as it is
    assert "x - 0.0" in text  # the forward keeps what the user wrote
    for name, value in df.__srcgrad_specializations__.copy().popitem()[1].__globals__.items():
        if type(value) is np.ndarray and name.startswith(("ZERO", "HALF")):
            assert value.ndim == 0 and value.dtype == dtype and not value.flags.writeable


def test_constants_shown_by_the_standalone_source(rng):
    from srcgrad.compiler import standalone
    from srcgrad.compiler.cache import signature_of

    df = derive(with_constants, "grad", 0).function
    args = ((rng.standard_normal(4)).astype(np.float32), np.float32(0.5))
    got = df(*args)
    special = df.__srcgrad_specializations__[signature_of(args)]
    shown = standalone.text(special.__srcgrad_unit__)
    assert "HALF32 = np.array(0.5, dtype=np.float32)" in shown
    namespace = {}
    exec(compile(shown, "<standalone>", "exec"), namespace)  # noqa: S102 - the generated source
    assert _bits(namespace[special.__name__](*args)) == _bits(got)
