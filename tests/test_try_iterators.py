"""A `for` loop in a `try` block over an iterator that computes its items as the loop
takes them (a generator, `map`, `filter`, `itertools`) is refused where it is decorated.

srcgrad reads such an iterator as the list of its items, made before the loop. Where the
iterator raises after some items, Python has run the loop's body on those items when the
`except` (or `finally`) block runs; the list raised before any of them. Before, these
gave silently wrong results: 10.0 for 40.0 (a generator raising at its end, its
exception caught), 1.0 for 4.0 (a `return` in `finally`), 10.0 for 20.0 (`map` of a
function dividing by zero). Comprehensions read the iterator whole, as Python does, and
loops outside a `try` block are differentiated as before.
"""

import itertools
import math

import numpy as np
import pytest

import srcgrad


def _ends_badly(xs):
    for v in xs:
        yield v
    raise ValueError("the end")


def _inverse(v):
    return 1.0 / v


def generator_caught(x):
    s = x * 1.0
    try:
        for a in _ends_badly([1.0, 2.0]):
            s = s + a * x
    except ValueError:
        s = s * 10.0
    return s


def generator_finally(x):
    s = x * 1.0
    try:
        for a in _ends_badly([1.0, 2.0]):
            s = s + a * x
    finally:
        return s  # noqa: B012 - the exception is dropped: the point of the test


def map_caught(x):
    s = x * 1.0
    try:
        for a in map(_inverse, [1.0, 0.0]):
            s = s + a * x
    except ZeroDivisionError:
        s = s * 10.0
    return s


def chain_caught(x):
    s = x * 1.0
    try:
        for a in itertools.chain([1.0], map(_inverse, [2.0, 0.0])):
            s = s + a * x
    except ZeroDivisionError:
        s = s * 10.0
    return s


def zip_of_a_generator_caught(x):
    s = x * 1.0
    try:
        for k, a in enumerate(_ends_badly([1.0, 2.0])):
            s = s + a * x * k
    except ValueError:
        s = s * 10.0
    return s


@pytest.mark.parametrize("fn, python", [(generator_caught, 40.0), (generator_finally, 4.0), (map_caught, 20.0),
                                        (chain_caught, 25.0), (zip_of_a_generator_caught, 30.0)])
def test_a_lazy_loop_in_a_try_block_is_refused_at_its_line(fn, python):
    assert fn(1.0) == python
    with pytest.raises(srcgrad.SrcGradError) as caught:
        srcgrad.value_and_grad(fn)
    error = caught.value
    assert error.filename == __file__
    assert open(__file__).read().splitlines()[error.lineno - 1].lstrip().startswith("for ")
    assert "computes each item as the loop takes it, inside a `try` block" in str(error)
    assert "`items = list(" in str(error)


def comprehension_caught(x):
    s = x * 1.0
    try:
        t = [a * x for a in _ends_badly([1.0, 2.0])]
        s = s + sum(t)
    except ValueError:
        s = s * 10.0
    return s


def _squares(x):
    for k in range(1, 4):
        yield x ** k


def generator_outside(x):
    s = x * 1.0
    for a in _squares(x):
        s = s + a * x
    return s


def generator_before_try(x):
    s = 0.0
    for a in _squares(x):
        s = s + a
    try:
        s = s + math.log(x)
    except ValueError:
        s = s * 10.0
    return s


def list_loop_caught(x):
    s = x * 1.0
    try:
        for a in [1.0, 2.0]:
            s = s + a * x
            if a > 1.5:
                raise ValueError("x")
    except ValueError:
        s = s * 10.0
    return s


def loop_in_handler(x):
    s = x * 1.0
    try:
        s = s / (x - x)
    except ZeroDivisionError:
        for a in map(_inverse, [1.0, 2.0]):
            s = s + a * x * x
    return s


def _central(fn, x, h=1e-6):
    return (fn(x + h) - fn(x - h)) / (2 * h)


@pytest.mark.parametrize("fn, x, value, slope", [
    (comprehension_caught, 1.5, 15.0, 10.0),                      # the list comprehension raises whole: s * 10
    (generator_outside, 1.5, 1.5 + 1.5 ** 2 + 1.5 ** 3 + 1.5 ** 4, 1 + 2 * 1.5 + 3 * 1.5 ** 2 + 4 * 1.5 ** 3),
    (generator_before_try, 2.0, 2.0 + 4.0 + 8.0 + math.log(2.0), 1 + 4.0 + 12.0 + 0.5),
    (list_loop_caught, 1.5, 60.0, 40.0),
    (loop_in_handler, 2.0, 2.0 + 1.5 * 4.0, 1.0 + 1.5 * 4.0),
])
def test_what_stays_differentiated(fn, x, value, slope):
    with np.errstate(divide="ignore", invalid="ignore"):
        expected = fn(x)
        got_value, got_slope = srcgrad.value_and_grad(fn)(x)
    assert expected == pytest.approx(value, rel=1e-12)
    assert got_value == pytest.approx(value, rel=1e-12)
    assert got_slope == pytest.approx(slope, rel=1e-12)
    assert got_slope == pytest.approx(_central(fn, x), rel=1e-6)


def _three_then_fails(x):
    for k in range(1, 5):
        if k == 4:
            raise ValueError("too far")
        yield x * k


def enumerate_with_break(x):
    s = 0.0
    for i, a in enumerate(_three_then_fails(x)):
        s = s + a
        if i >= 1:
            break
    return s


def test_a_loop_leaving_a_generator_early_through_enumerate_is_refused():
    """The `break` of a loop reading a generator through `enumerate` (or `zip`) was not
    seen: the list ran the generator to its end, which raised ValueError where Python
    returns 4.5 (the loop stops before the generator's fourth item)."""
    assert enumerate_with_break(1.5) == 4.5
    with pytest.raises(srcgrad.SrcGradError, match=r"read by a `for` loop with a `break`") as caught:
        srcgrad.value_and_grad(enumerate_with_break)
    assert caught.value.filename == __file__
