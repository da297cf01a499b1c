"""Lists as people write them: a list of lists written in place (`R[i][j] = v`,
`grid[i][j] += v`, row_writes.py), `del xs[i]`, `xs.sort(key=lambda ...)`, copies of a
dict's values across later writes; each against central differences, the analytic
answer, forward mode, the Hessian, both jacobians, with its arguments left unchanged and
the primal value equal to the plain call. What stays refused (a row another name can
see; a deque) is refused at its line with a message saying why."""

import collections
import copy

import numpy as np
import pytest

import srcgrad
from program_checks import check, check_every_transform

X = np.array([0.5, -1.2, 2.0])


def outer_rows(x):
    n = 3
    R = [[0.0] * n for _ in range(n)]
    for i in range(n):
        for j in range(n):
            R[i][j] = x[i] * x[j]
    return np.sum(np.array(R) ** 2) + sum(R[1])


def grid_accumulated(x):
    grid = [[0.0, 0.0], [0.0, 0.0]]
    grid[0][1] += x[0]
    grid[1][0] += x[1] * x[0]
    grid[1][0] += x[2]
    return grid[0][1] * grid[1][0]


def rows_read_after(x):
    R = [[0.0] * 3 for _ in range(2)]
    for i in range(2):
        for j in range(3):
            R[i][j] += x[j] * (i + 1)
    s = 0.0
    for row in R:
        s += sum(row) * row[0]
    t = sum([max(r) for r in R])
    for k, row in enumerate(R):
        s += k * row[2] ** 2
    return s + t + len(R)


def dynamic_programming(x):
    n = len(x)
    D = [[0.0] * (n + 1) for _ in range(n + 1)]
    for i in range(1, n + 1):
        D[i][0] = D[i - 1][0] + x[i - 1]
        for j in range(1, n + 1):
            D[i][j] = min(D[i - 1][j], D[i][j - 1]) + x[i - 1] * x[j - 1]
    return D[n][n]


def deleted_entry(x):
    L = [x[0], x[1], x[2]]
    del L[1]
    del L[-1]
    return L[0] * 3.0


def sorted_in_place_by_key(x):
    L = [x[0], x[1], x[2]]
    L.sort(key=lambda v: -v)
    return L[0] * 2.0 + L[2] * L[1]


def values_copied_then_written(x):
    d = {"a": x[0], "b": x[1]}
    vs = list(d.values())
    d["a"] = x[2]
    return vs[0] * d["a"] + vs[1]


EXPECTED = {
    grid_accumulated: lambda x: [2 * x[0] * x[1] + x[2], x[0] ** 2, x[0]],
    deleted_entry: lambda x: [3.0, 0.0, 0.0],
    sorted_in_place_by_key: lambda x: [x[1], x[0], 2.0],  # sorted: x2, x0, x1
    values_copied_then_written: lambda x: [x[2], 1.0, x[0]],
}


@pytest.mark.parametrize("fn", [outer_rows, grid_accumulated, rows_read_after, dynamic_programming, deleted_entry,
                                sorted_in_place_by_key, values_copied_then_written], ids=lambda f: f.__name__)
def test_every_transform(fn):
    expected = EXPECTED.get(fn)
    check_every_transform(fn, X.copy(), None if expected is None else np.array(expected(X.copy())))


def test_outer_rows_by_hand():
    x = X
    s = np.sum(x ** 2)
    expected = 4 * x * s + np.array([x[1], np.sum(x) + x[1], x[1]])
    np.testing.assert_allclose(srcgrad.grad(outer_rows)(x), expected, rtol=1e-12)


def test_the_rows_rewrite_shows_a_new_row_stored_whole():
    text = srcgrad.source(srcgrad.grad(grid_accumulated))
    assert "list(grid[0])" in text or "list(grid_0)" in text or "grid_row" in text


# --- what stays refused ----------------------------------------------------------------


def row_named_elsewhere(x):
    R = [[0.0, 0.0], [0.0, 0.0]]
    a = R[0]
    R[0][1] = x[0]
    return a[1] * x[1]


def repeated_rows(x):
    R = [[0.0, 0.0]] * 2
    R[0][1] = x[0]
    return R[1][1] * x[1]


def one_row_twice(x):
    row = [0.0, 0.0]
    R = [row, row]
    R[0][1] = x[0]
    return R[1][1] * x[1]


def written_while_looping(x):
    R = [[x[0], x[1]], [x[2], x[0]]]
    s = 0.0
    for row in R:
        R[0][0] = row[1] * 2.0
        s += row[0]
    return s


def shallow_copy(x):
    R = [[0.0, 0.0], [0.0, 0.0]]
    R2 = list(R)
    R[0][1] = x[0]
    return R2[0][1] * x[1]


def appended_row(x):
    R = []
    row = [0.0, 0.0]
    R.append(row)
    R[0][1] = x[0]
    return row[1] * x[1]


def largest_row(x):
    R = [[x[0], 0.0], [x[1], 0.0]]
    b = max(R)
    R[0][1] = x[2]
    R[1][1] = x[2]
    return b[1] * x[1]


def rows_of_an_array(x):
    M = np.zeros((2, 2))
    R = [M[0], M[1]]
    R[0][1] = x[0]
    return M[0, 1] * x[1]


ROW_ALIASES = [row_named_elsewhere, repeated_rows, one_row_twice, written_while_looping, shallow_copy, appended_row,
               largest_row, rows_of_an_array]


@pytest.mark.parametrize("fn", ROW_ALIASES, ids=lambda f: f.__name__)
def test_a_row_another_name_may_see_is_refused_at_the_write(fn):
    import inspect

    lines, first = inspect.getsourcelines(fn)
    line = first + next(k for k, text in enumerate(lines) if "R[0][" in text and "=" in text.split("R[0][")[1][:6])
    for transform in (srcgrad.grad, lambda f: srcgrad.jvp(f, (X,), (X,))):
        with pytest.raises(srcgrad.NotDifferentiableError) as caught:
            transform(fn)(X) if transform is srcgrad.grad else transform(fn)
        message = str(caught.value)
        assert "held by the list `R`" in message and "another name or entry may hold the same row" in message
        assert f"line {line}" in message
        assert "made at line" not in message


def moving_sum(x):
    window = collections.deque(maxlen=2)
    s = 0.0
    for v in x:
        window.append(v)
        s += sum(window)
    return s


def test_a_deques_append_is_refused_as_a_change_of_a_deque():
    with pytest.raises(srcgrad.NotDifferentiableError, match=r"a `collections.deque` .*use a list") as caught:
        srcgrad.grad(moving_sum)(X)
    assert "changes an array in place" not in str(caught.value)


def particles(pos, vel):
    ps = [np.array([pos[i], 0.0]) for i in range(3)]
    vs = [np.array([vel[i], 1.0]) for i in range(3)]
    for step in range(2):
        for k in range(3):
            p = ps[k]
            p += vs[k] * 0.1
    return sum(np.sum(p * p) for p in ps)


def particles_stored(pos, vel):
    ps = [np.array([pos[i], 0.0]) for i in range(3)]
    vs = [np.array([vel[i], 1.0]) for i in range(3)]
    for step in range(2):
        for k in range(3):
            ps[k] = ps[k] + vs[k] * 0.1
    return sum(np.sum(p * p) for p in ps)


def test_a_change_of_a_lists_entry_names_the_entry_and_the_advice_works():
    with pytest.raises(srcgrad.NotDifferentiableError) as caught:
        srcgrad.grad(particles)(X, X)
    message = str(caught.value)
    assert "an entry of `ps`" in message and "`ps[k] = ps[k] + ...`" in message
    assert "which `particles` does not make" not in message
    before = copy.deepcopy(X)
    check(particles_stored, X, X * 2)
    np.testing.assert_allclose(srcgrad.grad(particles_stored, wrt=(0, 1))(X, X)[0], 2 * (X + 0.2 * X))
    np.testing.assert_array_equal(X, before)


def deleted_at_a_variable_index(x, k):
    L = [x[0], x[1], x[2]]
    del L[k]
    return L[0]


def test_del_at_an_index_that_is_not_a_literal_stays_refused():
    with pytest.raises(srcgrad.SrcGradError, match=r"`del` of an entry \(`L\[k\]`\)"):
        srcgrad.grad(deleted_at_a_variable_index)(X, 1)


def live_values_then_written(x):
    d = {"a": x[0], "b": x[1]}
    vs = d.values()
    d["a"] = x[2]
    return sum(vs) * x[0]


def entries_copied_then_changed(x):
    d = {"a": np.array([x[0], 1.0]), "b": np.array([x[1], 1.0])}
    vs = list(d.values())
    e = d["a"]
    e[0] = x[2]
    return vs[0][0] * x[0]


@pytest.mark.parametrize("fn", [live_values_then_written, entries_copied_then_changed], ids=lambda f: f.__name__)
def test_a_live_view_of_a_dict_or_a_shared_entry_changed_stays_refused(fn):
    # `d.values()` sees the write; `list(d.values())` holds the array `e` changes
    with pytest.raises(srcgrad.NotDifferentiableError, match="line"):
        srcgrad.grad(fn)(X)


def first_positive_by_next(x):
    return next(v for v in x if v > 0) * 2.0


def first_positive_by_loop(x):
    first = 0.0
    for v in x:
        if v > 0:
            first = v
            break
    return first * 2.0


def test_next_of_a_generator_is_refused_with_the_loop_that_works():
    with pytest.raises(srcgrad.NotDifferentiableError, match=r"no derivative rule for `next`.*take the first value with a loop"):
        srcgrad.grad(first_positive_by_next)(X)
    check(first_positive_by_loop, X, expected=(np.array([2.0, 0.0, 0.0]),))


def squares_of_tolist(x):
    s = 0.0
    for v in x.tolist():
        s += v * v
    return s


def sum_of_iter(x):
    s = 0.0
    for v in iter(x):
        s += v
    return s


def test_iterating_tolist_is_differentiated_and_an_iterator_refused_naming_the_loop():
    check(squares_of_tolist, X, expected=(2 * X,))  # more in test_list_conversions.py
    with pytest.raises(srcgrad.SrcGradError, match=r"iterating over `iter\(x\)`.*iterate over a list, tuple or array"):
        srcgrad.grad(sum_of_iter)(X)
