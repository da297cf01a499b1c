"""Loops over a dict's `.keys()` and `.values()` views inside `zip`, `enumerate` and
`reversed` (and in comprehensions, which are such loops), over `sorted(...)`,
`list(...)` and `tuple(...)` of differentiated values, and over
`itertools.combinations` / `combinations_with_replacement` / `permutations` / `product`
and `np.ndenumerate`: each against central differences and the analytic gradient,
forward mode against reverse, a Hessian, and a second call."""

import itertools
from itertools import combinations, product

import numpy as np
import pytest

import srcgrad
from conftest import numerical_grad
from program_checks import check_every_transform
from srcgrad.errors import SrcGradError

X = np.array([0.3, -0.2, 0.9])


def zip_keys_values(x):
    p = {"w": x[:2], "b": x[2]}
    total = 0.0
    for k, v in zip(p.keys(), p.values()):
        total = total * 2.0 + np.sum(v) ** 2 * len(k)
    return total


def zip_two_dicts(x):
    p = {"w": x[:2], "b": x[2]}
    q = {"w": x[1:] * 2.0, "b": x[0]}
    total = 0.0
    for a, b in zip(p.values(), q.values()):
        total = total * 2.0 + np.sum(a * b)
    return total


def enumerate_values(x):
    p = {"w": x[:2], "b": x[2]}
    total = 0.0
    for i, v in enumerate(p.values()):
        total = total + (i + 1) * np.sum(v) ** 2
    return total


def comprehension_over_zip(x):
    p = {"w": x[:2], "b": x[2]}
    return sum([np.sum(v) ** 2 * len(k) for k, v in zip(p.keys(), p.values())])


def listed_pairs(x):
    p = {"w": x[:2], "b": x[2]}
    pairs = list(zip(p.keys(), p.values()))
    total = 0.0
    for k, v in sorted(pairs):
        total = total * 2.0 + np.sum(v) ** 2
    return total


def named_view(x):
    p = {"w": x[:2], "b": x[2]}
    values = p.values()
    total = 0.0
    for v in values:
        total = total * 2.0 + np.sum(v) ** 2
    return total


def reversed_values(x):
    p = {"w": x[:2], "b": x[2]}
    total = 0.0
    for v in reversed(p.values()):
        total = total * 2.0 + np.sum(v) ** 2
    return total


def over_sorted(x):
    total = 0.0
    for v in sorted([x[0], x[1] * 2.0, x[2]]):
        total = total * 0.5 + v
    return total


def over_sorted_by_key(x):
    pairs = [(x[0], 1.0), (x[1], 3.0), (x[2], 2.0)]
    total = 0.0
    for a, w in sorted(pairs, key=lambda t: t[1]):
        total = total * 0.5 + a * w
    return total


def over_list_of_array(x):
    total = 0.0
    for v in list(x * 2.0):
        total = total * 0.5 + v * v
    return total


def over_tuple_of_array(x):
    total = 0.0
    for v in tuple(x):
        total = total * 0.5 + v * v
    return total


def pairs(x):
    total = 0.0
    for u, v in itertools.combinations(x, 2):
        total += u * v ** 2
    return total


def pairs_by_keyword(x):
    total = 0.0
    for pair in combinations(x * 2.0, r=2):
        total += pair[0] * pair[1]
    return total


def pairs_with_replacement(x):
    total = 0.0
    for u, v in itertools.combinations_with_replacement(x, 2):
        total += np.sin(u * v)
    return total


def orderings(x):
    total = 0.0
    for u, v, w in itertools.permutations(x, 3):
        total = total * 0.5 + u * v - w
    return total


def cartesian(x):
    total = 0.0
    for u, v in product(x[:2], x[1:] ** 2):
        total += u * v
    return total


def rows_pairs(x):
    A = np.outer(np.array([1.0, 2.0]), x)
    total = 0.0
    for r1, r2 in itertools.combinations(A, 2):
        total += np.dot(r1, r2)
    return total


def indexed_entries(x):
    A = np.stack([x, x * x])
    total = 0.0
    for (i, j), v in np.ndenumerate(A):
        total += v * (i + 2 * j)
    return total


def entries_of_nested_lists(x):
    L = [[x[0], x[1]], [x[2], x[0]]]  # NumPy reads np.asarray(L)
    total = 0.0
    for (i, j), v in np.ndenumerate(L):
        total += v * v * (i + 2 * j + 1)
    return total


def entries_of_a_copied_list(x):
    L = [x[0], x[1], x[2]]
    total = 0.0
    for _, v in np.ndenumerate(np.array(L)):  # the entries of the start, whatever the body writes
        L[0] = v * 10.0
        total += v * L[0]
    return total


def enumerate_zip_with_a_list(x):
    total = 0.0
    for i, (u, w) in enumerate(zip(x, [1.0, 2.0, 3.0])):  # the list is named before the zip
        total += u * u * w * (i + 1)
    return total


def enumerate_zip_of_a_tuple_first(x):
    total = 0.0
    for i, (w, u) in enumerate(zip((1.0, 2.0, 3.0), x), 1):
        total += w * u * u * i
    return total


a, b, c = X
sw = a + b  # the sum of p["w"]
cosines = np.cos(np.outer(X, X))
EXACT = {
    # dict order w, b, each key of length 1: total = 2 sw^2 + c^2
    zip_keys_values: np.array([4 * sw, 4 * sw, 2 * c]),
    # (a*2b + b*2c) * 2 + c * a
    zip_two_dicts: np.array([4 * b + c, 4 * a + 4 * c, 4 * b + a]),
    # 1 * sw^2 + 2 * c^2
    enumerate_values: np.array([2 * sw, 2 * sw, 4 * c]),
    comprehension_over_zip: np.array([2 * sw, 2 * sw, 2 * c]),
    # sorted by key: b, then w: 2 c^2 + sw^2
    listed_pairs: np.array([2 * sw, 2 * sw, 4 * c]),
    named_view: np.array([4 * sw, 4 * sw, 2 * c]),
    reversed_values: np.array([2 * sw, 2 * sw, 4 * c]),
    # sorted: 2b (-0.4), a (0.3), c (0.9): ((2b * 0.5 + a) * 0.5 + c)
    over_sorted: np.array([0.5, 0.5, 1.0]),
    # by weight: (a, 1), (c, 2), (b, 3): ((a * 0.5 + 2c) * 0.5 + 3b)
    over_sorted_by_key: np.array([0.25, 3.0, 1.0]),
    # 4 (a^2 / 4 + b^2 / 2 + c^2)
    over_list_of_array: np.array([2 * a, 4 * b, 8 * c]),
    over_tuple_of_array: np.array([a / 2, b, 2 * c]),
    # a b^2 + a c^2 + b c^2
    pairs: np.array([b * b + c * c, 2 * a * b + c * c, 2 * a * c + 2 * b * c]),
    # 4 (ab + ac + bc)
    pairs_by_keyword: 4 * np.array([b + c, a + c, a + b]),
    # the sum over i <= j of sin(x_i x_j)
    pairs_with_replacement: X * np.diag(cosines) + cosines @ X,
    # (6 orderings; the result's weights on u v and w) checked against differences only
    orderings: None,
    # a b^2 + a c^2 + b^3 + b c^2
    cartesian: np.array([b * b + c * c, 2 * a * b + 3 * b * b + c * c, 2 * a * c + 2 * b * c]),
    # rows x and 2x: 2 x.x
    rows_pairs: 4 * X,
    # x_j (2j) + x_j^2 (1 + 2j)
    indexed_entries: 2 * np.arange(3) + 2 * X * (1 + 2 * np.arange(3)),
    # a^2 (1 + 4) + 3 b^2 + 2 c^2
    entries_of_nested_lists: np.array([10 * a, 6 * b, 4 * c]),
    # 10 (a^2 + b^2 + c^2)
    entries_of_a_copied_list: 20 * X,
    # a^2 + 4 b^2 + 9 c^2
    enumerate_zip_with_a_list: 2 * X * np.array([1.0, 4.0, 9.0]),
    enumerate_zip_of_a_tuple_first: 2 * X * np.array([1.0, 4.0, 9.0]),
}


@pytest.mark.parametrize("f", list(EXACT), ids=lambda f: f.__name__)
def test_gradient(f):
    x = X.copy()
    df = srcgrad.grad(f)
    for _ in range(2):  # the second call runs the code specialized at the first
        g = df(x)
        assert g.dtype == np.float64 and g.shape == (3,)
        if EXACT[f] is not None:
            np.testing.assert_allclose(g, EXACT[f], rtol=1e-12, atol=1e-14)
        np.testing.assert_allclose(g, numerical_grad(f, [X], 0), rtol=1e-6, atol=1e-8)
    np.testing.assert_array_equal(x, X)
    value, _ = srcgrad.value_and_grad(f)(x)
    assert value == pytest.approx(f(X.copy()), rel=1e-15)


@pytest.mark.parametrize("f", list(EXACT), ids=lambda f: f.__name__)
def test_forward_mode_agrees(f):
    t = np.array([0.5, -1.0, 2.0])
    _, tangent = srcgrad.jvp(f, (X.copy(),), (t,))
    assert tangent == pytest.approx(float(srcgrad.grad(f)(X.copy()) @ t), rel=1e-12, abs=1e-14)
    H = srcgrad.hessian(f)(X.copy())
    np.testing.assert_allclose(H, H.T, rtol=1e-12, atol=1e-14)
    step = 1e-5
    along = (srcgrad.grad(f)(X + step * t) - srcgrad.grad(f)(X - step * t)) / (2 * step)
    np.testing.assert_allclose(H @ t, along, rtol=1e-6, atol=1e-7)


def changes_the_dict(x):
    p = {"w": x[:2], "b": x[2]}
    total = 0.0
    for v in p.values():
        total = total + np.sum(v)
    for k, v in zip(p.keys(), p.values()):
        p["b"] = p["b"] * 2.0
        total = total * 2.0 + np.sum(v) ** 2
    return total


def reversed_view_named(x):
    p = {"w": x[:2], "b": x[2]}
    r = reversed(p.values())
    total = 0.0
    for v in r:
        total = total * 2.0 + np.sum(v) ** 2
    return total


def test_a_loop_over_a_view_of_a_dict_it_changes_is_refused():
    """The view would show the body's writes; srcgrad reads the list made at the start."""
    with pytest.raises(SrcGradError, match=r"the loop reads `p.keys\(\)` and changes the dict `p` \(in "
                                           r"`changes_the_dict`\).*list\(p.keys\(\)\).*test_loop_iterables.py, line \d+"):
        srcgrad.grad(changes_the_dict)(X.copy())


def reads_the_dict(x):
    p = {"w": x[:2], "b": x[2]}
    total = 0.0
    for k, v in zip(p.keys(), p.values()):
        scale = p.get("b", 1.0)
        fallback = p.get("missing")
        label = str(p)  # a builtin reading it
        count = len(p.copy())
        total = total * scale + np.sum(v) ** 2 * (count - 1) + (0.0 if fallback is None or not label else 1.0)
    return total


def pops_from_the_dict(x):
    p = {"w": x[:2], "b": x[2]}
    total = 0.0
    for k, v in zip(p.keys(), p.values()):
        p.pop("w", None)
        total = total + np.sum(v)
    return total


def sets_a_default(x):
    p = {"w": x[:2], "b": x[2]}
    total = 0.0
    for v in reversed(p.values()):
        scale = p.setdefault("c", 2.0)
        total = total * scale + np.sum(v)
    return total


def test_a_loop_over_a_view_of_a_dict_it_only_reads():
    """`p.get(...)`, `p.copy()`, `str(p)` leave the dict as it was (refused before as any
    method of `p`)."""
    b, w = X[2], X[:2]
    # total = (0 * b + (w0 + w1)^2) * b + b^2
    s = w[0] + w[1]
    expected = np.array([2 * s * b, 2 * s * b, s * s + 2 * b])
    check_every_transform(reads_the_dict, X.copy(), expected)


@pytest.mark.parametrize("fn, method", [(pops_from_the_dict, "keys"), (sets_a_default, "values")],
                         ids=["pop", "setdefault"])
def test_a_method_changing_the_dict_is_refused(fn, method):
    with pytest.raises(SrcGradError, match=rf"the loop reads `p.{method}\(\)` and changes the dict `p`"):
        srcgrad.grad(fn)(X.copy())


def test_a_named_reversed_view_is_refused():
    with pytest.raises(SrcGradError, match=r"`r = reversed\(p.values\(\)\)` is iterated later .*"
                                           r"`for \.\.\. in reversed\(p.values\(\)\):`"):
        srcgrad.grad(reversed_view_named)(X.copy())


def all_orderings(x):
    total = 0.0
    for p in itertools.permutations(x):
        total += p[0] * p[1]
    return total


def repeated_product(x):
    total = 0.0
    for u, v in itertools.product(x, repeat=2):
        total += u * v
    return total


def test_tuples_of_unwritten_length_are_refused():
    """srcgrad names each entry of the tuples, so it needs their length in the text."""
    with pytest.raises(SrcGradError, match=r"iterating over `itertools.permutations\(x\)` \(in `all_orderings`\) needs "
                                           r"the length of its tuples written as a number"):
        srcgrad.grad(all_orderings)(X.copy())
    with pytest.raises(SrcGradError, match=r"iterating over `itertools.product\(x, repeat=2\)` is not supported .*"
                                           r"without `repeat=`"):
        srcgrad.grad(repeated_product)(X.copy())


WEIGHTS = np.array([1.0, 2.0, 3.0])


def pairs_of_a_vector_it_writes(x):
    y = x * 1.0
    for u, v in itertools.combinations(y, 2):  # the pairs hold the entries of the start
        y[2] = y[0] * 0.5 + u * v
    return y @ WEIGHTS


def product_with_a_helper_writing(x):
    y = x * 1.0
    for u, v in product(y[:2], y):
        np.add.at(y, [2], u * v)
    return y @ WEIGHTS


def pairs_of_a_copy(x):
    y = x * 1.0
    for u, v in itertools.combinations(y.copy(), 2):
        y[2] = y[0] * 0.5 + u * v
    return y @ WEIGHTS


def test_a_loop_over_combinations_of_a_sequence_it_changes_is_refused():
    # was: value -0.475 for -1.45 at (0.3, -0.5, 0.8), gradient (1.75, 2.315, 0) for
    # (2.5, 4.4, -1.5): the rewritten loop read y[j] as the body had changed it
    with pytest.raises(SrcGradError, match=r"`y\[2\] = y\[0\] \* 0.5 \+ u \* v` changes `y` in place inside the loop "
                                           r"`for u, v in itertools.combinations\(y, 2\):.*` \(in `pairs_of_a_vector_it_"
                                           r"writes`\), whose tuples hold the entries it had when the loop started.*"
                                           r"test_loop_iterables.py, line \d+"):
        srcgrad.grad(pairs_of_a_vector_it_writes)(X.copy())
    with pytest.raises(SrcGradError, match=r"`np.add.at\(y, \[2\], u \* v\)` changes `y` in place"):
        srcgrad.jvp(product_with_a_helper_writing, (X.copy(),), (X.copy(),))


def test_combinations_of_a_copy_read_the_entries_of_the_start():
    x = np.array([0.3, -0.5, 0.8])
    df = srcgrad.value_and_grad(pairs_of_a_copy)
    for _ in range(2):  # the second call runs the code specialized at the first
        value, g = df(x.copy())
        # y2 = 0.5 x0 + x1 x2 (the last pair): x0 + 2 x1 + 3 (0.5 x0 + x1 x2)
        assert value == pytest.approx(-1.45, rel=1e-14)
        np.testing.assert_allclose(g, [2.5, 2.0 + 3 * x[2], 3 * x[1]], rtol=1e-14)
        np.testing.assert_allclose(g, numerical_grad(pairs_of_a_copy, [x], 0), rtol=1e-7)
    t = np.array([0.5, -1.0, 2.0])
    _, tangent = srcgrad.jvp(pairs_of_a_copy, (x.copy(),), (t,))
    assert tangent == pytest.approx(float(g @ t), rel=1e-14)


def counted_reversed_values(x):
    p = {"w": x[:2], "b": x[2]}
    total = 0.0
    for i, v in enumerate(reversed(p.values())):
        total = np.sin(total + np.sum(v) * (i + 1))
    return total + sum(np.sum(v) for v in p.values())


def counted_reversed_values_changed(x):
    p = {"w": x[:2], "b": x[2]}
    total = 0.0
    for i, v in enumerate(reversed(p.values())):
        p["w"] = p["w"] * 2.0
        total = total + np.sum(v)
    return total


def test_enumerate_of_a_reversed_dict_view():
    # was refused: "`_t1 = reversed(p.values())` is iterated later", naming a name of srcgrad's own
    x = X.copy()
    c2 = np.cos(np.sin(X[2]) + 2 * (X[0] + X[1]))
    expected = np.array([2 * c2 + 1, 2 * c2 + 1, c2 * np.cos(X[2]) + 1])
    df = srcgrad.value_and_grad(counted_reversed_values)
    for _ in range(2):  # the second call runs the code specialized at the first
        value, g = df(x)
        assert value == pytest.approx(counted_reversed_values(X.copy()), rel=1e-15)
        np.testing.assert_allclose(g, expected, rtol=1e-13)
        np.testing.assert_allclose(g, numerical_grad(counted_reversed_values, [X], 0), rtol=1e-6, atol=1e-8)
    np.testing.assert_array_equal(x, X)
    t = np.array([0.5, -1.0, 2.0])
    _, tangent = srcgrad.jvp(counted_reversed_values, (X.copy(),), (t,))
    assert tangent == pytest.approx(float(expected @ t), rel=1e-13)
    with pytest.raises(SrcGradError, match=r"the loop reads `p.values\(\)` and changes the dict `p`"):
        srcgrad.grad(counted_reversed_values_changed)(X.copy())


def entries_of_a_list_it_writes(x):
    L = [x[0], x[1], x[2]]
    total = 0.0
    for _, v in np.ndenumerate(L):
        L[0] = v * 10.0
        total += v * L[0]
    return total


def entries_of_nested_lists_it_writes(x):
    L = [[x[0], x[1]], [x[2], x[0]]]
    total = 0.0
    for _, v in np.ndenumerate(L):
        L[0][0] = v * 3.0
        total += v
    return total


def test_ndenumerate_of_a_list_it_changes_is_refused():
    """NumPy reads a new array of the list's entries at the start (value 140 at (1, 2, 3),
    gradient (20, 40, 60)); the loop rewritten by index would read the changed entries."""
    x = np.array([1.0, 2.0, 3.0])
    assert entries_of_a_list_it_writes(x) == 140.0
    with pytest.raises(SrcGradError, match=r"`L\[0\] = v \* 10.0` changes `L` in place inside the loop `for _, v in "
                                           r"np.ndenumerate\(L\):` \(in `entries_of_a_list_it_writes`\).*"
                                           r"`np.ndenumerate\(np.array\(L\)\)`.*test_loop_iterables.py, line \d+"):
        srcgrad.grad(entries_of_a_list_it_writes)(x)
    with pytest.raises(SrcGradError, match=r"`L\[0\]\[0\] = v \* 3.0` changes `L` in place"):
        srcgrad.jvp(entries_of_nested_lists_it_writes, (x,), (x,))
