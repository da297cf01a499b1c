"""grad(f, backend="numba") where numba's semantics differ from Python's: integers that
pass int64's range, `int ** negative int`, float-to-int conversions of large floats, an
int argument past int64, numba's ZeroDivisionError where NumPy gives an infinity, and a
Python float made inside code whose arguments are all arrays. Each compiled derivative
is first called where numba and Python agree (so it compiles), then where they do not;
the results are Python's. Skipped where numba is missing."""

import math

import numpy as np
import pytest

import srcgrad

numba = pytest.importorskip("numba")


def power_of_two(a, n):
    return a * 2 ** n


def cube_of_int(a, n):
    return a * float(n * n * n)


def doubled_int(a, n):
    k = n + n
    return a * k


def negated_sum(a, n):
    k = -n - n
    return a * k


def shifted(a, n):
    return a * (1 << n)


def cube_in_a_loop(a, n):
    s = 0.0
    for i in range(3):
        s = s + a * (n * n * n)
    return s


def truncated(a):
    k = int(a * 1e19)
    return a * (k % 7)


def floored(a):
    k = math.floor(a * 1e19)
    return a * (k % 7) + a * a


def root_times(a):
    return math.sqrt(a) * a


def array_sum_to_a_power(x):
    s = float(np.sum(x * x))
    return s ** 200.0


def scaled_by_a_cube(x, n):
    return np.sum(x * (n * n * n))


def _pair(fn, wrt=0):
    return srcgrad.grad(fn, wrt=wrt), srcgrad.grad(fn, wrt=wrt, backend="numba")


def _runs(derivative):
    return {sig.runs for sig in derivative.__srcgrad_backend__.signatures.values()}


@pytest.mark.parametrize("fn, small, large, expected", [
    # numba's int64 arithmetic gave 0.0, 0.0, 8553255926290448384.0, -9223372036854775808.0,
    # 9223372036854775808.0 (the sign flipped), 64.0 and 25659767778871345152.0 here
    (power_of_two, 3, -2, 0.25),
    (power_of_two, 3, 70, 2.0 ** 70),
    (cube_of_int, 5, 3_000_000, 2.7e19),
    (doubled_int, 5, 2 ** 62, 2.0 ** 63),
    (negated_sum, 5, 2 ** 62 + 1, -(2.0 ** 63 + 2)),
    (shifted, 3, 70, 2.0 ** 70),
    (cube_in_a_loop, 5, 3_000_000, 8.1e19),
], ids=lambda v: getattr(v, "__name__", None))
def test_integer_arithmetic_past_int64_is_pythons(fn, small, large, expected):
    python, compiled = _pair(fn)
    for _ in range(2):
        assert compiled(0.7, small) == python(0.7, small)
    assert _runs(compiled) == {"numba"}, compiled.__srcgrad_backend__.describe()
    assert "int_" in compiled.__srcgrad_backend__.source()  # the integer operations are checked
    for _ in range(2):
        got = compiled(0.7, large)
        assert type(got) is float and got == python(0.7, large)
        np.testing.assert_allclose(got, expected, rtol=1e-12)
    assert compiled(0.7, small) == python(0.7, small)  # the compiled code still runs


def test_an_int_argument_past_int64_runs_python():
    """numba cannot take 2 ** 63 + 5 (OverflowError: int too big to convert): Python's result."""
    python, compiled = _pair(doubled_int)
    compiled(0.7, 5)
    got = compiled(0.7, 2 ** 63 + 5)
    assert type(got) is float and got == float(2 ** 64 + 10) == python(0.7, 2 ** 63 + 5)


@pytest.mark.parametrize("fn, expected", [(truncated, 3.0), (floored, 3.4 + 3.0)], ids=lambda v: getattr(v, "__name__", None))
def test_a_float_too_large_for_an_int64_converts_as_in_python(fn, expected):
    """int(1.7e19) is 17000000000000000000 (3 modulo 7); numba's conversion gave 6.0 (9.4 with floor)."""
    python, compiled = _pair(fn)
    assert compiled(1e-18) == python(1e-18)
    assert _runs(compiled) == {"numba"}, compiled.__srcgrad_backend__.describe()
    assert "int_range(" in compiled.__srcgrad_backend__.source()
    for _ in range(2):
        got = compiled(1.7)
        assert got == python(1.7)
        np.testing.assert_allclose(got, expected, rtol=1e-12)


def test_numbas_zero_division_where_numpy_gives_nan_is_pythons_nan():
    """The square root's derivative divides by np.float64(0.0): NumPy gives inf (nan here),
    numba raised ZeroDivisionError."""
    python, compiled = _pair(root_times)
    np.testing.assert_allclose(compiled(4.0), 3.0, rtol=1e-12)
    assert _runs(compiled) == {"numba"}
    with np.errstate(divide="ignore", invalid="ignore"):
        got = compiled(0.0)
    assert type(got) is float and math.isnan(got)
    np.testing.assert_allclose(compiled(4.0), 3.0, rtol=1e-12)


def test_a_python_float_made_from_arrays_overflows_as_in_python():
    """float(np.sum(x * x)) ** 200.0 raises OverflowError in Python; compiled, the gradient
    was an array of infinities."""
    x = np.array([0.3, -0.4, 0.5])
    python, compiled = _pair(array_sum_to_a_power)
    expected = 200.0 * 0.5 ** 199 * 2 * x
    for _ in range(2):
        np.testing.assert_allclose(compiled(x), expected, rtol=1e-12)
    assert _runs(compiled) == {"numba"}
    with pytest.raises(OverflowError):
        python(x * 100.0)
    with pytest.raises(OverflowError):
        compiled(x * 100.0)


def test_array_times_an_int_cube():
    x = np.array([0.3, -0.4, 0.5])
    python, compiled = _pair(scaled_by_a_cube)
    np.testing.assert_allclose(compiled(x, 5), np.full(3, 125.0), rtol=1e-12)
    got = compiled(x, 3_000_000)  # numba's int64: 8553255926290448384.0 each
    assert got.dtype == np.float64 and got.shape == (3,)
    np.testing.assert_array_equal(got, python(x, 3_000_000))
    np.testing.assert_allclose(got, np.full(3, 2.7e19), rtol=1e-12)


def test_checked_integers_spells_the_operations_of_the_lines_given():
    from srcgrad.backends.numba_integers import checked_integers

    text = (
        "def f(a, n, tape_top):\n"
        "    k = n * n + 1  # é\n"
        "    m = int(a * 2.0) << n\n"
        "    k += m ** 2\n"
        "    while k - 1 > n:\n"
        "        k = k // 2\n"
        "    tape_top = tape_top - 1\n"
        "    return a * k\n"
    )
    got = checked_integers(text, {2, 3, 4, 5, 7}, {"int": int})
    assert got.splitlines() == [
        "def f(a, n, tape_top):",
        "    k = int_add(int_mul(n, n), 1)  # é",
        "    m = int_lshift(int(int_range(int_mul(a, 2.0))), n)",
        "    k = int_add(k, int_pow(m, 2))",
        "    while int_sub(k, 1) > n:",
        "        k = k // 2",
        "    tape_top = tape_top - 1",  # an array tape's pop stays as it is
        "    return a * k",
    ]
    assert checked_integers(text, {8, 1}, {}) is None  # the def line is no statement to rewrite
    assert checked_integers(text.replace("m = int", "int_mul = int"), {2}, {}) is None  # a name of the helpers


def test_compile_with_an_int_argument_past_int64():
    """@srcgrad.compile(backend="numba"): the value and gradient at n = 3_000_000 were
    3.42e18 and 8.55e18 each (int64 arithmetic), and n = 2 ** 63 + 1 raised OverflowError."""
    compiled = srcgrad.compile(backend="numba")(scaled_by_a_cube)
    x = np.array([0.3, -0.4, 0.5])
    for n, scale in ((5, 125.0), (5, 125.0), (3_000_000, 2.7e19), (2 ** 63 + 1, float(2 ** 63 + 1) ** 3), (5, 125.0)):
        w = srcgrad.tensor(x, requires_grad=True)
        out = compiled(w, n)
        out.backward()
        np.testing.assert_allclose(out.item(), 0.4 * scale, rtol=1e-12)
        assert w.grad.numpy().dtype == np.float64 and w.grad.shape == (3,)
        np.testing.assert_allclose(w.grad.numpy(), np.full(3, scale), rtol=1e-12)
    assert "numba" in compiled.__srcgrad_backend__.describe()
