"""`map` and `filter` read as list comprehensions, and `zip`/`enumerate` read whole into a
list, tuple or dict as comprehensions (map_filter.py): gradients, tangents and a Hessian
against differences and the analytic answer, and the places where the iterator is not
read whole refused with the way out."""

import math

import numpy as np
import pytest

import srcgrad
from program_checks import check, check_hessian


def _square(v):
    return v * v


def with_a_lambda(x, w):
    v = 5.0  # the lambda's parameter `v` is its own, as in the comprehension
    return sum(map(lambda v, u: v * u, [x, w], [w, x])) + v * x


def with_names(x):
    total = np.sum(np.array(list(map(np.exp, x))))
    return total + math.fsum(map(_square, x))


def filtered(x, w):
    s = 0.0
    for p in filter(lambda v: v > 0.0, [x, -x, 2.0 * x, w]):
        s = s + p * p
    kept = list(filter(None, [w, 0.0 * w]))  # `0.0 * w` is falsy
    return s + len(kept) * w


def unpacked_and_nested(x):
    a, b = map(lambda t: t ** 2, (x, 3.0 * x))
    rows = [[x, 2.0 * x], [x * x]]
    return a * b + sum(map(lambda r: sum(map(_square, r)), rows)) + sum([y for y in map(math.sin, rows[0])])


def test_map_and_filter_differentiate_as_comprehensions():
    """Each was refused: a `lambda` not assigned to a name, or "no derivative rule for `map`"."""
    x, w = 0.3, 0.5
    check(with_a_lambda, x, w, expected=(2.0 * w + 5.0, 2.0 * x))
    check_hessian(with_a_lambda, [x, w], 0)
    xs = np.array([0.1, -0.4, 0.7])
    check(with_names, xs, expected=[np.exp(xs) + 2.0 * xs])
    check(filtered, x, w, expected=(2.0 * x + 8.0 * x, 2.0 * w + 1.0))
    check(filtered, -x, w, expected=(2.0 * -x, 2.0 * w + 1.0))  # only `-x` and `w` kept
    expected = 4.0 * 9.0 * x ** 3 + 2.0 * x + 8.0 * x + 4.0 * x ** 3 + math.cos(x) + 2.0 * math.cos(2.0 * x)
    check(unpacked_and_nested, x, expected=[expected])
    text = srcgrad.source(srcgrad.grad(with_a_lambda))
    assert "sequence[i]" in text and "map" not in text.split('"""')[2].replace("# return sum(map(", "")


def keeps_the_iterator(x):
    squares = map(_square, [x, 2.0 * x])
    return sum(squares)


def _products(a, b):
    return [a * b]


def maps_with_a_local_function(x):
    map = _products  # not the builtin
    return sum(map(x, 2.0 * x))


def test_a_map_whose_iterator_is_kept_is_refused_with_the_way_out():
    with pytest.raises(srcgrad.NotDifferentiableError, match=r"no derivative rule for `map`.*\[f\(v\) for v in xs\]") as info:
        srcgrad.grad(keeps_the_iterator)(0.3)
    assert info.value.lineno == keeps_the_iterator.__code__.co_firstlineno + 1
    assert srcgrad.grad(maps_with_a_local_function)(0.3) == pytest.approx(1.2, rel=1e-12)


def dict_of_zip(a, b):
    d = dict(zip(["u", "v"], [a, b * 2.0]))
    return d["u"] * d["v"] ** 2


def list_of_zip_and_enumerate(x, w):
    pairs = list(zip([x, w], [w, x]))
    ranked = tuple(enumerate([x * x, w]))
    return sum(u * v * v for u, v in pairs) + sum((k + 1) * v for k, v in ranked)


def test_zip_and_enumerate_read_whole_into_a_list_tuple_or_dict():
    """`dict(zip(names, vals))`, `list(zip(a, b))`, `tuple(enumerate(xs))` were refused (no
    derivative rule for `zip`); a loop or a comprehension over them already worked."""
    a, b = 0.5, 2.0
    check(dict_of_zip, a, b, expected=((2.0 * b) ** 2, a * 8.0 * b))
    x, w = 0.7, -0.3
    check(list_of_zip_and_enumerate, x, w, expected=(w * w + 2.0 * x * w + 2.0 * x, 2.0 * x * w + x * x + 2.0))
    check_hessian(dict_of_zip, (a, b), 1, [[8.0 * a]])


def stacked_map(x):
    return np.sum(np.stack(map(np.sin, x)))


def array_of_listed_map(x):
    return np.sum(np.array(list(map(np.sin, x))))


def test_numpy_functions_do_not_read_a_map_through():
    """`np.stack(map(...))` raises TypeError in NumPy and `np.array(map(...))` is a 0-d object
    array holding the iterator: neither is read as the list of the mapped values (they were,
    and got the gradient of a program that does not run)."""
    x = np.array([0.3, 1.2, -0.7])
    with pytest.raises(TypeError):
        stacked_map(x)
    with pytest.raises(srcgrad.NotDifferentiableError, match=r"no derivative rule for `map`.*np\.array\(list\(\.\.\.\)\)"):
        srcgrad.grad(stacked_map)(x)
    check(array_of_listed_map, x, expected=(np.cos(x),))
