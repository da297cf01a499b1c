"""Programs written with Python's control flow and data structures as people write them
(while loops with break/else, early returns in nested loops, recursion, comprehensions,
lists and dicts built and changed, in-place writes, helpers, dataclasses), from a hunt
for wrong derivatives; each checked against central differences, in forward mode (the
dot-product test), with its arguments left unchanged, and where cheap through its Hessian.

Regressions found by the hunt:

- max/min/sorted of a dict's `.values()` (`min(d.values())`) failed in the rules with a
  bare TypeError: a dict's values view is not indexable. The rules index it as a tuple.
- A Python-number seed of a NumPy output (`pullback(0.1)`) or tangent of a NumPy
  argument (`jvp(f, (np.float64(0.7),), (0.1,))`) is weakly typed: meeting a float32
  constant of a float64 program (`y * np.float32(0.5)`) it made the derivative float32,
  rounded to 1e-8 (0.50000001 for 0.5). It is taken in the dtype of its output or argument.
- `for (x0, y0), (x1, y1) in zip(pts, pts[1:] + pts[:1])` (a polygon's area) had a zero
  derivative: a loop target unpacked in nested tuples, read after the nested unpack,
  was assigned a tuple of subscripts (`item = (pts[i], rolled[i])`), whose entries the
  passes after ANF took for constants. The entries are bound to names first.
- The Hessian of `min(pairs, key=lambda p: p[1])` over a list of tuples failed with a
  bare TypeError: the tangent of an entry's zero gradient (None) came as the number 0.0,
  which `item_grad`'s forward rule indexed. Its tangent is zero where the entry is None.
- `enumerate(zip(x, reversed(y)))` with `y` not differentiated failed with a bare
  TypeError (`len` of a `reversed` iterator): the zip's `reversed(y)` was read by index
  without being made `y[::-1]`, as a loop over `reversed(y)` itself is.
- jvp of a function of float32 arrays returning a Python float (`math.sin(x[0] * x[1])`)
  returned a np.float32 tangent: it is a float, as the output.
"""

import math

import numpy as np
import pytest

import srcgrad
from control_flow_programs import CASES
from program_checks import check, check_hessian

X3 = np.array([0.5, -1.0, 2.0])


# --- dict views in max/min/sorted ------------------------------------------------------


def _entries(x):
    return {"a": x[0], "b": x[1] ** 2, "c": x[2]}


def largest_times_sum(x):
    d = _entries(x)
    return sum(d.values()) * max(d.values())


def smallest_by_key(x):
    d = _entries(x)
    return min(d.values(), key=lambda v: -v) + min(d.values())


def middle_value(x):
    d = _entries(x)
    return sorted(d.values())[1] * 3.0


@pytest.mark.parametrize("f", [largest_times_sum, smallest_by_key, middle_value], ids=lambda f: f.__name__)
def test_max_min_and_sorted_of_a_dicts_values(f):
    check(f, X3)
    check_hessian(f, (X3,), 0)


def test_max_of_dict_values_by_hand():
    x = np.array([0.5, -1.0, 2.0])  # values 0.5, 1.0, 2.0: sum 3.5, max 2.0 (x[2])
    np.testing.assert_allclose(srcgrad.grad(largest_times_sum)(x), [2.0, 2 * 2.0 * -1.0, 2.0 + 3.5])


# --- Python-number seeds and tangents of NumPy values ----------------------------------


def float32_constants(x):
    y = x * np.float32(2.0)
    return np.sum((y + 1.5) ** 2) * np.float32(0.5)


def times_float32(a):
    return a * np.float32(3.0)


def test_a_python_number_seed_is_taken_in_the_outputs_dtype():
    x = np.array([0.5, -1.0, 2.0])
    out, pullback = srcgrad.vjp(float32_constants, x)
    assert type(out) is np.float64
    (g,) = pullback(0.1)
    np.testing.assert_array_equal(g, 0.1 * np.array([5.0, -1.0, 11.0]))  # was 0.50000001, -0.1, 1.10000002
    assert g.dtype == np.float64
    (g32,) = srcgrad.vjp(float32_constants, x.astype(np.float32))[1](0.1)
    assert g32.dtype == np.float32


def test_a_python_number_tangent_is_taken_in_the_arguments_dtype():
    for a in (np.float64(0.7), np.array(0.7)):
        out, out_dot = srcgrad.jvp(times_float32, (a,), (0.1,))
        assert out_dot == 0.1 * 3.0  # was 0.30000001192092896
    out, out_dot = srcgrad.jvp(times_float32, (0.7,), (0.1,))
    # a Python float stays as NumPy takes it: weak in NumPy 2 (float32), float64 in NumPy 1
    assert type(out_dot) is type(out) and out_dot == type(out)(0.1 * 3.0)


def math_of_entries(x, c):
    acc = x[2] * x[0] + x[1]
    acc = math.sin(acc)
    acc *= c
    return acc ** 2


def test_the_tangent_of_a_python_float_output_is_a_float():
    x = np.array([0.5, -1.0, 2.0], dtype=np.float32)
    out, out_dot = srcgrad.jvp(math_of_entries, (x, 0.7), (np.ones(3, np.float32), 0.0))
    assert type(out) is float and type(out_dot) is float  # out_dot was np.float32
    s = math.sin(float(x[2] * x[0] + x[1]))
    expected = 2 * 0.7 * s * 0.7 * math.cos(float(x[2] * x[0] + x[1])) * float(x[2] + x[0] + 1.0)
    np.testing.assert_allclose(out_dot, expected, rtol=1e-6)
    check(math_of_entries, X3, 0.7)


# --- nested tuple targets of zip loops -------------------------------------------------


def polygon_area(x):
    pts = [(x[i], x[i + 1]) for i in range(0, len(x) - 1)]
    area = 0.0
    for (x0, y0), (x1, y1) in zip(pts, pts[1:] + pts[:1]):
        area += x0 * y1 - x1 * y0
    return 0.5 * area


def pairs_then_scale(x):
    t = 0.0
    for (p, q), r in zip([(x[0], x[1]), (x[2], x[3])], [x[2], x[1]]):
        t += p * q * r
    firsts, thirds = [(x[0], x[1])], [x[3]]
    for k, ((p, q), r) in enumerate(zip(firsts, thirds), start=1):
        t += k * p * q * r
    return t


def test_a_zip_loop_target_unpacked_in_nested_tuples_carries_the_derivative():
    x = np.array([0.5, -1.0, 2.0, 0.3])
    # area = 0.5 * (x0 x3 - x2 x1 + x1 x2 - x3 x0 ... ) over the points (x0,x1),(x1,x2),(x2,x3)
    grads = check(polygon_area, x)
    assert np.any(grads[0] != 0.0)  # was all zeros
    check_hessian(polygon_area, (x,), 0)
    g = srcgrad.grad(pairs_then_scale)(x)
    expected = [x[1] * x[2] + x[1] * x[3], x[0] * x[2] + x[2] * x[3] + x[0] * x[3],
                x[0] * x[1] + x[3] * x[1], x[2] * x[1] + x[0] * x[1]]
    np.testing.assert_allclose(g, expected, rtol=1e-12)
    check(pairs_then_scale, x)


# --- the hunt's programs ---------------------------------------------------------------


def _case_id(case):
    fn, args, _ = case
    return fn.__name__


@pytest.mark.parametrize("case", CASES, ids=[f"{k}-{_case_id(c)}" for k, c in enumerate(CASES)])
def test_program(case):
    """Every argument's gradient against central differences, jvp against it, the value
    of jvp against the plain call, the arguments unchanged, and where asked the Hessian
    of the first argument against differences of the gradient."""
    fn, args, hessian = case
    check(fn, *args)
    value, _ = srcgrad.value_and_grad(fn, wrt=tuple(range(len(args))))(*args)
    assert value == fn(*args)
    if hessian:
        check_hessian(fn, args, 0)


def test_an_exception_handler_taken_at_the_point_gives_its_own_derivative():
    # b - 1.3 == 0.0 exactly: ZeroDivisionError, `r = a`, whose derivative in b is 0
    from control_flow_programs import exception_flow

    assert srcgrad.grad(exception_flow, wrt=(0, 1))(0.7, 1.3) == (2 * 0.7, 0.0)


def weighted_against_reversed(x, y):
    return sum(i * u * w for i, (u, w) in enumerate(zip(x, reversed(y)), start=1))


def test_a_zipped_reversed_sequence_is_read_by_index():
    x, y = np.array([0.5, -1.2, 2.0]), np.array([0.3, 0.7, -0.4])
    np.testing.assert_allclose(srcgrad.grad(weighted_against_reversed)(x, y), [1 * -0.4, 2 * 0.7, 3 * 0.3])
    np.testing.assert_allclose(srcgrad.hessian(weighted_against_reversed)(x, y), np.zeros((3, 3)))
