"""Tuple assignments into an array (tuple_writes.py): swaps of elements, with constant and
variable indices, in loops (a bubble sort, a permutation), swaps of rows and columns,
where NumPy reads views (both rows end up equal to the old second row), and tuples of
other values. Each against central differences, the analytic answer, forward mode, the
Hessian, value_and_grad, vjp and both jacobians, with its argument left unchanged, the
primal value NumPy's, and the second (specialized) call equal to the first."""

import numpy as np
import pytest

import srcgrad
from program_checks import check, check_every_transform, check_hessian

X = np.array([0.9, -0.3, 0.5, 0.1])
M = np.array([[0.1, 0.4, 0.7], [1.0, 1.3, 1.6]])
W4 = np.arange(1.0, 5.0)
W23 = np.arange(6.0).reshape(2, 3)


def swap_two(x):
    v = np.sin(x)
    v[0], v[2] = v[2], v[0]
    return np.sum(v * W4)


def bubble_sort(x):
    v = np.sin(x) * x
    n = len(v)
    for i in range(n):
        for j in range(n - 1 - i):
            if v[j] > v[j + 1]:
                v[j], v[j + 1] = v[j + 1], v[j]
    return np.sum(v * W4)


PERM = [3, 0, 2, 1]


def permutation_loop(x):
    v = x ** 2
    for k in range(len(PERM)):
        i = PERM[k]
        v[k], v[i] = v[i], v[k]
    return np.sum(v * W4)


def swap_rows(A):
    B = A * A
    B[0], B[1] = B[1], B[0]  # views: both rows become the old B[1]
    return np.sum(B * W23)


def swap_columns(A):
    B = A * A
    B[:, 0], B[:, 2] = B[:, 2], B[:, 0]  # views: both columns become the old B[:, 2]
    return np.sum(B * W23)


def not_a_swap(x):
    v = x ** 2
    v[0], v[1] = v[1] * 2.0, v[0]
    return np.sum(v * W4)


def values_of_other_names(x):
    v = np.cos(x)
    a = x[1]
    v[0], v[1], v[3] = a * 2.0, v[3], v[1]
    return np.sum(v * W4)


def nested_rotation(x):
    v = np.sin(x)
    v[0], (v[1], v[2]) = v[2], (v[0], v[1])  # assigned as the flat tuple
    return np.sum(v * W4)


def nested_columns(A):
    B = A * A
    (B[:, 0], B[:, 1]), B[:, 2] = (B[:, 1], B[:, 2]), B[:, 0]  # views: the last is the new column 0
    return np.sum(B * W23)


def _perm_expected(x):
    w = 2 * x
    order = list(range(4))
    for k, i in enumerate(PERM):
        order[k], order[i] = order[i], order[k]
    g = np.zeros(4)
    for pos, src in enumerate(order):
        g[src] += W4[pos] * w[src]
    return g


def _bubble_expected(x):
    v = np.sin(x) * x
    dv = np.cos(x) * x + np.sin(x)
    g = np.zeros(4)
    g[np.argsort(v, kind="stable")] = W4
    return g * dv


EXPECTED = {
    swap_two: lambda x: np.cos(x) * np.array([3.0, 2.0, 1.0, 4.0]),
    bubble_sort: _bubble_expected,
    permutation_loop: _perm_expected,
    swap_rows: lambda A: np.vstack([np.zeros(3), 2 * A[1] * (W23[0] + W23[1])]),
    swap_columns: lambda A: 2 * A * np.array([[0.0, 1.0, 2.0], [0.0, 4.0, 8.0]]),
    not_a_swap: lambda x: 2 * x * np.array([2.0, 2.0, 3.0, 4.0]),
    values_of_other_names: lambda x: np.array([0.0, 2.0, 0.0, 0.0]) - np.sin(x) * np.array([0.0, 4.0, 3.0, 2.0]),
    nested_rotation: lambda x: np.cos(x) * np.array([2.0, 3.0, 1.0, 4.0]),
    nested_columns: lambda A: 2 * A * np.array([[0.0, 0.0 + 2.0, 1.0], [0.0, 3.0 + 5.0, 4.0]]),
}

CASES = [(swap_two, X), (bubble_sort, X), (permutation_loop, X), (swap_rows, M), (swap_columns, M), (not_a_swap, X),
         (values_of_other_names, X), (nested_rotation, X), (nested_columns, M)]


@pytest.mark.parametrize("fn,a", CASES, ids=lambda v: getattr(v, "__name__", ""))
def test_every_transform(fn, a):
    check_every_transform(fn, a, EXPECTED[fn](a))


def test_rows_follow_numpy_views():
    """NumPy's own answer to the row swap, which the gradient above follows."""
    B = M * M
    B[0], B[1] = B[1], B[0]
    np.testing.assert_array_equal(B[0], B[1])
    np.testing.assert_array_equal(B[1], M[1] * M[1])


def test_nested_columns_follow_numpy_views():
    B = M * M
    (B[:, 0], B[:, 1]), B[:, 2] = (B[:, 1], B[:, 2]), B[:, 0]
    np.testing.assert_array_equal(B, (M * M)[:, [1, 2, 1]])
    np.testing.assert_allclose(srcgrad.value_and_grad(nested_columns)(M)[0], nested_columns(M), rtol=1e-15)


def test_bubble_sort_other_orders_and_float32():
    g = srcgrad.grad(bubble_sort)
    for x in (X[::-1].copy(), np.array([0.3, 0.2, 0.1, 0.0]), np.array([-0.5, 0.5, -0.4, 0.4])):
        np.testing.assert_allclose(g(x), _bubble_expected(x), rtol=1e-12, atol=1e-15)
    x32 = X.astype(np.float32)
    g32 = g(x32)
    assert g32.dtype == np.float32 and g32.shape == (4,)
    np.testing.assert_allclose(g32, _bubble_expected(X), rtol=1e-5)


def test_hessian_of_a_swap_by_hand():
    h = srcgrad.hessian(swap_two)(X)
    np.testing.assert_allclose(h, np.diag(-np.sin(X) * np.array([3.0, 2.0, 1.0, 4.0])), rtol=1e-12, atol=1e-15)


def list_swap(x):
    xs = [x[0], x[1], x[2] ** 2]
    xs[0], xs[2] = xs[2], xs[0]
    return xs[0] * 1.0 + xs[2] * 3.0 + xs[1]


def list_of_arrays_swap(x):
    xs = [x * 1.0, x ** 2]
    xs[0], xs[1] = xs[1], xs[0]
    return np.sum(xs[0] * W4) + np.sum(xs[1])


def dict_swap(x):
    d = {"a": x[0], "b": x[1] ** 2}
    d["a"], d["b"] = d["b"], d["a"]
    return d["a"] * 3.0 + d["b"]


@pytest.mark.parametrize("fn,expected", [
    (list_swap, lambda x: np.array([3.0, 1.0, 2 * x[2], 0.0])),
    (list_of_arrays_swap, lambda x: 2 * x * W4 + 1.0),
    (dict_swap, lambda x: np.array([1.0, 6 * x[1], 0.0, 0.0])),
], ids=lambda v: getattr(v, "__name__", ""))
def test_lists_and_dicts_swap_entries_as_written(fn, expected):
    (g,) = check(fn, X, expected=(expected(X),))
    check_hessian(fn, (X,), 0)
    text = srcgrad.source(srcgrad.grad(fn))
    assert "is_view_of" not in text  # the entries of a list or dict are never views


def test_the_generated_code_shows_both_readings():
    text = srcgrad.source(srcgrad.grad(swap_rows))
    assert "B_0_is_view = is_view_of(B_0, B)" in text and "B_0_copy = snapshot(B_0)" in text
    assert "B_0_now = B[0]" in text and "# B[0], B[1] = B[1], B[0]" in text
