"""More programs as a demanding user writes them, differentiated whole, in areas the other
program files touch lightly: while loops with break, continue and else, early returns in
loops, loops over zip, enumerate, reversed, dict.items() and ranges with negative steps,
loop variables whose shape or type changes between iterations, comprehensions and
generators feeding sum/max/min, starred unpacking, chained comparisons, in-place writes
in loops (`y[i] += ...`, `b[:, j] = ...`, `y[mask] = ...`), exceptions caught in loops,
`yield from`, numerical algorithms (Gram-Schmidt, power iteration, RK4, bisection), norms
with ord and axis, reductions over axis tuples, and the math module. Each is checked by
`program_checks.check_program` (gradients against central differences, the second call,
value_and_grad, vjp, jvp, the arguments unchanged, the Hessian block, float32).

- `np.frexp` and `math.frexp` had no derivative rule (the mantissa's derivative is
  2 ** -exponent, the exponent's 0).
- A call of a function decorated with `functools.lru_cache` or `functools.cache` was
  refused as having no rule: it is a call of the function the cache wraps.
- `y = np.arange(4.0)`, then `y[2] = x[2]`, was refused as a call of np.arange without a
  derivative rule (in both modes), though np.arange read only constants: a call of a
  function without a rule on values without derivatives has nothing to pull back or
  push forward (calls.of_constants).
- `sum(reversed(x))` (and `list(reversed(x))`) was refused with advice to register a
  rule; the refusal now says how srcgrad reads `reversed` and what to write instead.
"""

import functools
import math

import numpy as np
import pytest

import srcgrad
from program_checks import check_program

rng = np.random.default_rng(22)
V = rng.normal(size=5)
M = rng.normal(size=(3, 3))
A = rng.normal(size=(3, 4))


# --- loops: break, continue, else, early returns ---------------------------------------


def while_with_break_and_continue(x):
    i, s = 0, 0.0
    while True:
        i += 1
        if i >= len(x):
            break
        if x[i] < 0:
            continue
        s = s + x[i] * x[i - 1]
    return s


def while_else_after_a_break(x):
    k, acc = 0, x[0]
    while k < 4:
        acc = acc * 0.9 + x[k]
        if acc > 10.0:
            break
        k += 1
    else:
        acc = acc * 2.0
    return acc


def early_return_in_a_while(x):
    t, j = 0.0, 0
    while j < len(x):
        t = t + np.sin(x[j])
        if t > 1.2:
            return t * x[0]
        j += 1
    return t


def nested_loops_break_inner(a):
    s = 0.0
    for row in a:
        for v in row:
            if v > 1.0:
                break
            s = s + v * v
        else:
            s = s + row.sum()
    return s


def nested_whiles_with_break(x):
    i, s = 0, 0.0
    while i < 4:
        j = 0
        while True:
            s = s + x[i] * x[j]
            j += 1
            if j > i:
                break
        i += 1
    return s


# --- iteration helpers -------------------------------------------------------------------


def zip_enumerate_reversed(x, y):
    s = 0.0
    for i, (a, b) in enumerate(zip(x, reversed(y))):
        s = s + (i + 1) * a * b
    return s


def dict_items_loop(x):
    d = {"a": x[0], "b": x[1] * 2.0, "c": x[2] ** 2}
    s = 0.0
    for k, v in d.items():
        s = s + v * len(k) + v ** 2
    return s


def ranges_counting_down(x):
    s = 0.0
    for i in range(len(x) - 1, 0, -2):
        s = s * 0.5 + x[i] * x[i - 1]
    i = len(x) - 1
    while i >= 0:
        s = s * x[i] + 1.0
        i -= 1
    for j in range(len(x))[::-1]:
        s = s - 0.1 * x[j] ** 2
    return s


def shapes_changing_between_iterations(x):
    h = x[0]
    for i in range(3):
        h = h * x + i
    g = x
    for k in range(3):
        g = np.outer(g, x).sum(axis=0) if k % 2 == 0 else g[:2] * g[2:]
    return (h ** 2).sum() + (g * g).sum()


def integer_accumulators(x):
    s, p = 0, 1
    for v in x:
        s += v
        p *= v
    return s * p


def comprehensions_into_max_min_sum(x):
    m = max([xi ** 2 for xi in x])
    n = min(xi * 3.0 for xi in x)
    ys = [xi * 2.0 if xi > 0 else xi ** 3 for xi in x]
    d = {i: x[i] * x[j] for i, j in zip(range(3), range(1, 4))}
    return m + n + sum(ys) + sum(d[k] for k in d) + sum(v * v for v in reversed(x))


def starred_unpacking_and_chained_comparisons(x):
    first, *mid, last = x
    s = first * last + sum(m ** 2 for m in mid)
    for xi in x:
        s = s + (xi ** 2 if -1.0 < xi <= 1.0 else 3.0 * xi)
    return s


def yield_from_inner(x):
    def inner():
        yield from (v ** 2 for v in x)
        yield x[0]
    return sum(inner())


# --- writes in loops ---------------------------------------------------------------------


def index_writes_in_a_loop(x):
    y = np.zeros(4)
    for i in range(4):
        y[i] += x[i] * x[i + 1]
        y[(i + 1) % 4] += x[i]
    return (y ** 2).sum()


def column_writes_in_a_loop(a):
    b = np.zeros_like(a)
    for j in range(a.shape[1]):
        b[:, j] = a[:, j] * (j + 1) + a[:, 0]
    return (b * b).sum()


def mask_writes_in_a_loop(x):
    y = x.copy()
    for _ in range(2):
        y[y > 0] = y[y > 0] * 0.5
        y[y < -0.5] += 1.0
    return (y * x).sum()


def branchy_sigmoid(x):
    out = np.empty_like(x)
    for i in range(len(x)):
        if x[i] >= 0:
            out[i] = 1.0 / (1.0 + np.exp(-x[i]))
        else:
            e = np.exp(x[i])
            out[i] = e / (1.0 + e)
    return (out * x).sum()


def writes_into_an_arange(x):
    y = np.arange(4.0)
    y[2] = x[2] * 3.0
    y[0] += x[1] ** 2
    for i in range(2):
        y[i + 1] = y[i + 1] + y[i] * x[i]
    return (y * x).sum()


def writes_into_an_integer_arange(x):
    y = np.arange(4)
    y[2] = x[2] * 3.0  # truncated to an integer: no derivative
    return (y * x).sum()


# --- exceptions --------------------------------------------------------------------------


def caught_in_a_loop(x):
    s = 0.0
    for v in x:
        try:
            if v < 0:
                raise ValueError
            s = s + np.sqrt(v)
        except ValueError:
            s = s - v
            continue
        s = s * 1.5
    return s


def nested_try_in_a_loop(x):
    s = 0.0
    for v in x:
        try:
            try:
                if v < -0.5:
                    raise KeyError
                s = s + v
            finally:
                s = s * 0.9
        except KeyError:
            s = s + v ** 2
    return s


# --- numerical algorithms ----------------------------------------------------------------


def gram_schmidt(a):
    q = np.zeros_like(a)
    for j in range(a.shape[1]):
        v = a[:, j].copy()
        for i in range(j):
            v = v - (q[:, i] @ a[:, j]) * q[:, i]
        q[:, j] = v / np.linalg.norm(v)
    return (q * np.arange(1.0, 13.0).reshape(4, 3)).sum()


def power_iteration(a):
    s = a @ a.T
    v = np.ones(3)
    for _ in range(50):
        v = s @ v
        v = v / np.linalg.norm(v)
    return v @ s @ v


def rk4(y0, k):
    y, h = y0, 0.1
    for _ in range(5):
        k1 = -k * y
        k2 = -k * (y + h / 2 * k1)
        k3 = -k * (y + h / 2 * k2)
        k4 = -k * (y + h * k3)
        y = y + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
    return (y ** 2).sum()


def bisection(c):
    lo, hi = 0.0, 2.0 + c
    for _ in range(40):
        mid = 0.5 * (lo + hi)
        if mid * mid > c:
            hi = mid
        else:
            lo = mid
    return lo


# --- the library ---------------------------------------------------------------------------


def norms_with_ords(x, a):
    return (np.linalg.norm(x, 1) + np.linalg.norm(x, -np.inf) + np.linalg.norm(x, 3) + np.linalg.norm(x, 0.5)
            + np.linalg.norm(x, -1) + np.linalg.norm(a, -2) + np.linalg.norm(a, -1)
            + (a / np.linalg.norm(a, axis=1, keepdims=True)).sum() + np.linalg.norm(a, 3, axis=1).sum())


def reductions_over_axis_tuples(t):
    return ((t.sum(axis=(0, 2), keepdims=True) * t).sum() + t.max(axis=(1, 2)).sum() + t.mean(axis=(0, 1)).prod()
            + np.std(t, axis=(0, 2)).sum() + np.var(t, axis=(0, 2), ddof=1).sum())


def math_module(a, b):
    return (math.exp(a) * math.log(b) + math.hypot(a, b) + math.atan2(a, b) + math.erf(a) + math.pow(b, a)
            + math.copysign(b, a) + math.log(b, 3.0) + math.gamma(b) + math.lgamma(b) + math.asinh(a)
            + math.dist((a, b), (1.0, 2.0)) + math.prod([a, b], start=a) + math.floor(a * 5) * a)


def mantissas(x, a):
    m, e = np.frexp(x * 3.0)
    ma, ea = math.frexp(a * 7.0)
    return (m * x).sum() + (e * x).sum() + ma * a + ea


@functools.lru_cache(maxsize=None)
def disc_area(r):
    return math.pi * r * r


@functools.cache
def power_of(a, n=2):
    return a ** n


def memoized_helpers(a, b):
    def local(v):
        return disc_area(v) * 2.0
    return disc_area(a) + disc_area(a * 2.0) + power_of(b, n=3) * power_of(a) + local(b)


PROGRAMS = [
    (while_with_break_and_continue, (V,), {}),
    (while_else_after_a_break, (V,), {}),
    (while_else_after_a_break, (V * 10,), {}),
    (early_return_in_a_while, (V,), {}),
    (early_return_in_a_while, (np.abs(V),), {}),
    (nested_loops_break_inner, (M,), {}),
    (nested_whiles_with_break, (V,), {}),
    (zip_enumerate_reversed, (V, V[::-1] * 2), {}),
    (dict_items_loop, (V,), {}),
    (ranges_counting_down, (V,), {}),
    (shapes_changing_between_iterations, (V[:4],), {}),
    (integer_accumulators, (V,), {}),
    (comprehensions_into_max_min_sum, (V,), {}),
    (starred_unpacking_and_chained_comparisons, (V,), {}),
    (yield_from_inner, (V,), {}),
    (index_writes_in_a_loop, (V,), {}),
    (column_writes_in_a_loop, (A,), {}),
    (mask_writes_in_a_loop, (V,), {}),
    (branchy_sigmoid, (V * 3,), {}),
    (writes_into_an_arange, (V[:4],), {}),
    (writes_into_an_integer_arange, (np.array([0.33, 1.77, -2.41, 0.93]),), dict(float32=False)),
    (caught_in_a_loop, (V,), {}),
    (nested_try_in_a_loop, (V,), {}),
    (gram_schmidt, (rng.normal(size=(4, 3)),), {}),
    (power_iteration, (M,), {}),
    (rk4, (V, 0.7), {}),
    (bisection, (2.0,), {}),
    (norms_with_ords, (V, M), dict(hessian=False)),
    (reductions_over_axis_tuples, (rng.normal(size=(2, 3, 4)),), {}),
    (math_module, (0.37, 1.3), {}),
    (mantissas, (np.array([3.3, -0.7, 5.0]), 0.9), {}),
    (memoized_helpers, (0.7, 1.3), {}),
]


@pytest.mark.parametrize("fn, args, options", PROGRAMS, ids=[f"{p[0].__name__}-{i}" for i, p in enumerate(PROGRAMS)])
def test_program(fn, args, options):
    check_program(fn, args, **options)


def test_exact_gradients():
    np.testing.assert_allclose(srcgrad.grad(bisection)(2.0), 1.0 / (2.0 * math.sqrt(2.0)), rtol=1e-6)
    # x * 3 = m * 2 ** e: the gradient of m * x is m + x * 3 * 2 ** -e, e's own is x's factor e
    x = np.array([3.3, -0.7, 5.0])
    m, e = np.frexp(x * 3.0)
    np.testing.assert_allclose(srcgrad.grad(mantissas)(x, 0.9), m + x * 3.0 * 2.0 ** -e + e, rtol=1e-12)
    ma, ea = math.frexp(6.3)
    assert srcgrad.grad(mantissas, wrt=1)(x, 0.9) == pytest.approx(ma + 6.3 * 2.0 ** -ea, rel=1e-12)


def test_writes_into_an_arange():
    x = np.array([0.33, 1.77, -2.41, 0.93])
    # y = (x1^2, 1 + x1^2 x0, 3 x2, 3): the int arange keeps y[2] = int(3 x2) = -7
    np.testing.assert_allclose(srcgrad.grad(writes_into_an_integer_arange)(x), [0.0, 1.0, -7.0, 3.0], rtol=0)
    _, tangent = srcgrad.jvp(writes_into_an_integer_arange, (x,), (np.ones(4),))
    assert tangent == -3.0


def test_memoized_helpers_are_their_functions():
    # d/da: pi * 2a + pi * 8a + b ** 3 * 2a; d/db: 3 b ** 2 * a ** 2 + 4 pi b
    a, b = 0.7, 1.3
    got = srcgrad.grad(memoized_helpers, wrt=(0, 1))(a, b)
    np.testing.assert_allclose(got, (10 * math.pi * a + 2 * a * b ** 3, 3 * b ** 2 * a ** 2 + 4 * math.pi * b), rtol=1e-12)


def reversed_read_whole(x):
    return sum(reversed(x)) * x[0]


def test_reversed_read_whole_is_refused_with_what_to_write():
    line = reversed_read_whole.__code__.co_firstlineno + 1
    with pytest.raises(srcgrad.NotDifferentiableError) as caught:
        srcgrad.grad(reversed_read_whole)(V)
    assert str(caught.value) == (
        f"no derivative rule for `reversed` called at {__file__}:{line} (in `reversed_read_whole`); srcgrad reads "
        "`reversed(...)` as the iterable of a `for` loop or a comprehension: write it so (`sum(v for v in "
        f"reversed(xs))`), or reverse by slicing (`xs[::-1]`, `list(xs)[::-1]`) (test_programs_loops_and_library.py, line {line})"
    )
