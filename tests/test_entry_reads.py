"""`v = y[i]` read from an array or list that the function then changes in place while
`v` is still in use. A number read from an array (or a list) is a copy, which no later
change reaches, so srcgrad differentiates it; a row or slice of an array shares its
memory, and which it is shows only when the derivative runs: a check right after the
read raises a located NotDifferentiableError there. All of these were refused at
decoration before ("makes another name or a view of an array ... changes in place
while the first is still in use"), the recurrence `prev = h[t - 1]; h[t] = a * prev + 1`
with `prev` read again after the write among them."""

import inspect

import numpy as np
import pytest

import srcgrad
from conftest import numerical_grad

X = np.array([1.0, 2.0, 3.0])
T = np.array([1.0, 0.5, -1.0])


def recurrence_reading_the_last_entry_again(a, x0):
    h = np.zeros(5)
    h[0] = x0
    for t in range(1, 5):
        prev = h[t - 1]
        h[t] = a * prev + 1.0
        s = prev * 2.0
    return np.sum(h) + s


def entry_kept_across_a_write(x):
    y = x * 2.0
    v = y[0]
    y[1] = x[2] * 3.0
    return v * np.sum(y)  # 2 x0 (2 x0 + 3 x2 + 2 x2)


def entry_kept_across_its_own_overwrite(x):
    y = x * 2.0
    v = y[0]
    y[0] = 7.0
    return v * np.sum(y)  # 2 x0 (7 + 2 x1 + 2 x2)


def element_of_a_matrix(x):
    M = np.outer(x, x)
    v = M[0, 1]
    M[0, 1] = 0.0
    return v * np.sum(M)  # x0 x1 (sum(x)^2 - x0 x1)


def fancy_indexed_copy(x):
    y = x * 3.0
    v = y[[0, 2]]
    y[0] = 1.0
    return np.sum(v * y[2])  # (3 x0 + 3 x2) 3 x2


def entry_of_a_list_of_numbers(x):
    vals = [x[0] * 1.0, x[1] * 2.0, x[2] * 3.0]
    v = vals[1]
    vals[1] = vals[0] * vals[2]
    return v * (vals[0] + vals[1])  # 2 x1 (x0 + 3 x0 x2)


def row_kept_across_a_write(x):
    M = np.outer(x, x)
    r = M[0]  # read
    M[1] = x * 5.0
    return np.sum(r * M[1])


def _expected_recurrence(a, x0):
    h = [x0]
    for _ in range(4):
        h.append(a * h[-1] + 1.0)
    return sum(h) + 2.0 * h[3]


GRADIENTS = [
    (entry_kept_across_a_write, lambda x: np.array([8 * x[0] + 10 * x[2], 0.0, 10 * x[0]])),
    (entry_kept_across_its_own_overwrite, lambda x: np.array([14 + 4 * x[1] + 4 * x[2], 4 * x[0], 4 * x[0]])),
    (element_of_a_matrix, lambda x: np.array([
        x[1] * np.sum(x) ** 2 + 2 * x[0] * x[1] * np.sum(x) - 2 * x[0] * x[1] ** 2,
        x[0] * np.sum(x) ** 2 + 2 * x[0] * x[1] * np.sum(x) - 2 * x[0] ** 2 * x[1],
        2 * x[0] * x[1] * np.sum(x)])),
    (fancy_indexed_copy, lambda x: np.array([9 * x[2], 0.0, 9 * x[0] + 18 * x[2]])),
    (entry_of_a_list_of_numbers, lambda x: np.array([2 * x[1] * (1 + 3 * x[2]), 2 * (x[0] + 3 * x[0] * x[2]),
                                                     6 * x[0] * x[1]])),
]


@pytest.mark.parametrize("fn, expected", GRADIENTS, ids=[fn.__name__ for fn, _ in GRADIENTS])
def test_a_number_read_before_a_write_is_differentiated(fn, expected):
    x = X.copy()
    want = expected(X)
    np.testing.assert_allclose(numerical_grad(fn, (X.copy(),), 0), want, rtol=1e-6, atol=1e-6)
    got = srcgrad.grad(fn)(x)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
    assert got.shape == (3,) and got.dtype == np.float64
    np.testing.assert_array_equal(x, X)  # not changed
    out, tangent = srcgrad.jvp(fn, (X.copy(),), (T.copy(),))
    assert out == pytest.approx(fn(X.copy()), rel=1e-12)
    assert tangent == pytest.approx(want @ T, rel=1e-10)
    hessian = srcgrad.hessian(fn)(X.copy())
    np.testing.assert_allclose(hessian, hessian.T, atol=1e-9)
    for k in range(3):
        np.testing.assert_allclose(hessian[k], numerical_grad(lambda v: srcgrad.grad(fn)(v)[k], (X.copy(),), 0),
                                   rtol=1e-6, atol=1e-6)


def test_the_recurrence_reading_its_last_entry_again():
    a, x0 = 0.5, 2.0
    want = [(_expected_recurrence(a + 1e-6, x0) - _expected_recurrence(a - 1e-6, x0)) / 2e-6,
            (_expected_recurrence(a, x0 + 1e-6) - _expected_recurrence(a, x0 - 1e-6)) / 2e-6]
    assert want == pytest.approx([19.25, 2.1875], rel=1e-8)  # d/da, d/dx0 by hand
    value, grads = srcgrad.value_and_grad(recurrence_reading_the_last_entry_again, wrt=(0, 1))(a, x0)
    assert value == pytest.approx(_expected_recurrence(a, x0), rel=1e-14)
    assert grads == pytest.approx((19.25, 2.1875), rel=1e-12)
    assert all(type(g) is float for g in grads)
    _, tangent = srcgrad.jvp(recurrence_reading_the_last_entry_again, (a, x0), (1.0, 0.0))
    assert tangent == pytest.approx(19.25, rel=1e-12)


def test_a_row_read_before_a_write_is_refused_where_it_is_read():
    """A row shares the matrix's memory: the write changes it too. The check after the
    read stops the run there, located at the user's line."""
    lines, first = inspect.getsourcelines(row_kept_across_a_write)
    read = first + next(k for k, text in enumerate(lines) if "# read" in text)
    for call in (lambda: srcgrad.grad(row_kept_across_a_write)(X.copy()),
                 lambda: srcgrad.jvp(row_kept_across_a_write, (X.copy(),), (T.copy(),))):
        with pytest.raises(srcgrad.NotDifferentiableError, match=r"makes `r` a part of `M` that shares its memory") as info:
            call()
        assert info.value.filename == __file__ and info.value.lineno == read
        assert "line %d (`M[1] = x * 5.0`)" % (read + 1) in str(info.value)
