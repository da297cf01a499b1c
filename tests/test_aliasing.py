"""In-place changes through views and aliases: each program is differentiated exactly
(central differences, float64) or refused with a `NotDifferentiableError` naming the
line of the write (`# write`) and the line that makes the sharing or reads the shared
value afterwards (`# shared`)."""

import inspect

import numpy as np
import pytest

import srcgrad
from program_checks import check_every_transform

W = np.arange(9.0).reshape(3, 3)
M = np.arange(9.0).reshape(3, 3) / 7.0 + 0.1
X = np.array([0.5, -1.2, 2.0])


def _fd(f, x, eps=1e-6):
    x = np.array(x, dtype=np.float64)
    g = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        e = np.zeros_like(x)
        e[i] = eps
        g[i] = (f(x + e) - f(x - e)) / (2 * eps)
    return g


def _lines(f, marker):
    lines, first = inspect.getsourcelines(f)
    return [first + k for k, text in enumerate(lines) if text.rstrip().endswith(marker)]


def _exact_or_refused(f, x):
    """The gradient of `f` at `x` is right, or srcgrad refuses `f` naming the lines. Returns
    the error (None when accepted)."""
    try:
        g = srcgrad.grad(f)(x.copy())
    except srcgrad.NotDifferentiableError as exc:
        message = str(exc)
        assert any(f"line {n}" in message for n in _lines(f, "# write")), message
        assert any(f"line {n}" in message for n in _lines(f, "# shared")), message
        return exc
    np.testing.assert_allclose(g, _fd(lambda v: f(v.copy()), x), rtol=1e-6, atol=1e-8)
    return None


# --- augmented assignment of a name that shares memory ------------------------------


def row_view(M):
    y = M * 1.0
    z = y[0]  # shared
    z *= 2.0  # write
    return np.sum(y * W)


def center_rows(M):
    y = M * 1.0
    for row in y:  # shared
        row -= row.mean()  # write
    return np.sum(y ** 2)


def enumerate_rows(M):
    y = M * 1.0
    for i, row in enumerate(y):  # shared
        row *= i + 1.0  # write
    return np.sum(y * W)


def zip_rows(M):
    y = M * 1.0
    for a, b in zip(y, M):  # shared
        a += b  # write
    return np.sum(y * W)


def column_views(M):
    y = M * 1.0
    for col in y.T:  # shared
        col -= col.mean()  # write
    return np.sum(y * W)


def tuple_alias(M):
    y = M * 1.0
    a, m = y, M  # shared
    a *= 2.0  # write
    return np.sum(y * W) + np.sum(m)


def chained_alias(M):
    y = M * 1.0
    a = b = y[1:]  # shared
    a *= 2.0  # write
    return np.sum(b * W[1:]) + np.sum(y)


def alias_of_alias(M):
    y = M * 1.0
    z = y[1:]  # shared
    w = z  # shared
    w *= 2.0  # write
    return np.sum(y * W)


def ellipsis_view(M):
    y = M * 1.0
    z = y[..., 1]  # shared
    z *= 3.0  # write
    return np.sum(y * W)


def none_view(M):
    y = M * 1.0
    z = y[None]  # shared
    z += 1.0  # write
    return np.sum(y * y)


def function_views(M):
    y = M * 1.0
    a = np.reshape(y, -1)  # shared
    a += 1.0  # write
    return np.sum(y * y)


def transpose_view(M):
    y = M * 1.0
    t = np.transpose(y)  # shared
    t *= W  # write
    return np.sum(y * y)


def asarray_same(M):
    y = M * 1.0
    t = np.asarray(y)  # shared
    t *= 2.0  # write
    return np.sum(y * W)


def ravel_view(M):
    y = M * 1.0
    t = np.ravel(y)  # shared
    t -= 1.0  # write
    return np.sum(y * y)


def either_row(M):
    y = M * 1.0
    z = y[0] if M[0, 0] > 0 else y[1]  # shared
    z *= 2.0  # write
    return np.sum(y * W)


def entry_of_a_list(M):
    y = M * 1.0
    rows = [y[0], y[1]]  # shared
    rows[0] *= 2.0  # write
    return np.sum(y * W)


def name_from_a_list(M):
    y = M * 1.0
    rows = [y[0], y[1]]  # shared
    z = rows[0]  # shared
    z *= 2.0  # write
    return np.sum(y * W)


def name_from_a_dict(M):
    y = M * 1.0
    d = {"a": y[2]}  # shared
    z = d["a"]  # shared
    z *= 2.0  # write
    return np.sum(y * W)


def rows_of_an_argument(M):
    for row in M:  # shared
        row *= 2.0  # write
    return np.sum(M)


def first2(v):
    return v[0:2]


def helper_result(M):
    y = M * 1.0
    z = first2(y)  # shared
    z *= 2.0  # write
    return np.sum(y * W)


REFUSED = [row_view, center_rows, enumerate_rows, zip_rows, column_views, tuple_alias, chained_alias,
           alias_of_alias, ellipsis_view, none_view, function_views, transpose_view, asarray_same, ravel_view,
           either_row, entry_of_a_list, name_from_a_list, name_from_a_dict, rows_of_an_argument, helper_result]


@pytest.mark.parametrize("f", REFUSED, ids=lambda f: f.__name__)
def test_augmented_assignment_through_shared_memory_is_exact_or_refused(f):
    assert _exact_or_refused(f, M) is not None  # all of these are refused at decoration


@pytest.mark.parametrize("f", [center_rows, rows_of_an_argument, tuple_alias], ids=lambda f: f.__name__)
def test_forward_mode_refuses_them_too(f):
    with pytest.raises(srcgrad.NotDifferentiableError, match="in place"):
        srcgrad.jvp(f, (M.copy(),), (np.ones((3, 3)),))


def test_the_refusal_comes_at_decoration_and_names_the_argument_loop():
    with pytest.raises(srcgrad.NotDifferentiableError, match="does not make") as info:
        srcgrad.grad(rows_of_an_argument)
    assert info.value.lineno == _lines(rows_of_an_argument, "# write")[0]


# --- writes into an array while a view the checker cannot see is in use -------------


def view_from_a_helper(x):
    y = x * 1.0
    w = first2(y)  # shared
    y[0] = 5.0  # write
    return np.sum(w * x[:2])  # shared


def astype_without_copy(x):
    y = x * 1.0
    z = y.astype(np.float64, copy=False)  # shared
    z[0] = 0.0  # write
    return np.sum(y * x)  # shared


@pytest.mark.parametrize("f", [view_from_a_helper, astype_without_copy], ids=lambda f: f.__name__)
def test_subscript_write_through_a_hidden_view_is_exact_or_refused(f):
    assert _exact_or_refused(f, X) is not None


# --- what stays accepted --------------------------------------------------------------


def float_accumulator(x):
    total = 0.0
    for v in x:
        total += v * v
    return total


def fresh_array(x):
    z = x * 2.0
    z += 1.0
    z *= x
    return np.sum(z * z)


def copied_first(x):
    y = x.copy()
    y += 1.0
    y *= x
    return np.sum(y * x)


def array_accumulator(x):
    acc = np.zeros(3)
    for k in range(3):
        acc += x * k
        acc *= 0.5
    return np.sum(acc * x)


def reading_rows(m):
    y = m * 1.0
    total = np.zeros(3)
    for row in y:
        total += row * row
    return np.sum(total * y[0])


def swapped(x):
    u = x * 2.0
    v = np.sin(x)
    for _ in range(2):
        u, v = v, u
        u += v
    return np.sum(u * v)


def copy_of_a_row(m):
    y = m * 1.0
    z = y[0].copy()
    z *= 2.0
    return np.sum(y * W) + np.sum(z)


def row_not_used_again(m):
    y = m * 1.0
    z = y[1]
    z *= 2.0
    return np.sum(z * z)


def repeated_index_in_a_loop(x):
    # refused as "changes the array that `y` holds in place": `v ** 2` was not known to be
    # an array, so the first write seemed to store `x[2]` into it, and the second to change it
    y = x ** 2
    for _ in range(2):
        y[[0, 0]] -= x[2]
        y[[1, 2, 1]] *= -x
    return np.sum(y * x)


ACCEPTED = [(float_accumulator, X), (fresh_array, X), (copied_first, X), (array_accumulator, X), (reading_rows, M),
            (swapped, X), (copy_of_a_row, M), (row_not_used_again, M), (repeated_index_in_a_loop, X)]


@pytest.mark.parametrize("f,x", ACCEPTED, ids=lambda v: getattr(v, "__name__", ""))
def test_fresh_values_are_still_differentiated(f, x):
    assert _exact_or_refused(f, x) is None


def repeated_rows(x):
    m = x.reshape(1, 3).repeat(2, axis=0)  # a new array: `repeat` never returns a view
    m[1] *= x[0]
    return np.sum(m * m)


def clipped_then_written(x):
    c = x.clip(-1.0, 1.0)
    c[0] = c[0] * x[1]
    s = c.cumsum()
    s[-1] += x[2]
    return np.sum(s * s)


def method_results_written(x):
    r = (x * 2.0).round(3)  # rounding gives no gradient, the write does
    r[1] = x[1] ** 3
    t = x.take([2, 0, 1])
    t[0] *= 4.0
    return np.sum(r) + np.sum(t * x)


@pytest.mark.parametrize("f", [repeated_rows, clipped_then_written, method_results_written], ids=lambda f: f.__name__)
def test_writes_into_what_array_methods_make_new(f):
    x = np.array([0.4, -0.3, 0.7])
    g = check_every_transform(f, x)
    assert np.abs(g).max() > 0.1


def written_through_out(x, buf):
    m = x.cumsum(out=buf)  # `m` is `buf`, which the caller holds
    m[0] *= 2.0
    return np.sum(m * x)


def test_a_method_given_out_is_no_new_array():
    with pytest.raises(srcgrad.NotDifferentiableError, match="changes"):
        srcgrad.grad(written_through_out)(np.array([0.4, -0.3, 0.7]), np.zeros(3))


def test_forward_mode_of_an_accepted_program():
    t = np.array([0.3, 1.0, -2.0])
    out, tangent = srcgrad.jvp(fresh_array, (X.copy(),), (t,))
    assert out == pytest.approx(fresh_array(X.copy()))
    assert tangent == pytest.approx(float(_fd(fresh_array, X) @ t), rel=1e-6)


def augmented_argument(x, b):
    x *= b  # write
    x += 1.0  # write
    return x * x


def test_augmented_argument_is_fine_for_floats_and_refused_for_arrays():
    assert srcgrad.grad(augmented_argument)(1.5, 2.0) == pytest.approx(2 * (1.5 * 2.0 + 1.0) * 2.0)
    with pytest.raises(srcgrad.NotDifferentiableError, match="changes the argument `x` in place"):
        srcgrad.grad(lambda x: np.sum(augmented_argument(x, 2.0)))(X.copy())
    with pytest.raises(srcgrad.NotDifferentiableError, match="changes the argument `x` in place"):
        srcgrad.grad(_sum_of_augmented_argument)(X.copy())


def test_second_derivatives_keep_the_run_time_check_of_an_augmented_argument():
    """The gradient checks at run time that `x *= b` does not change an argument array;
    forward mode over that gradient (a Hessian) runs the same check instead of refusing
    the check's call as an in-place change."""
    x, b = 0.7, 1.3  # x * x of x = x * b + 1: d2/dx2 = 2 b^2, d2/dxdb = 4 x b + 2
    assert srcgrad.hessian(augmented_argument)(x, b) == pytest.approx(2 * b * b)
    h = srcgrad.hessian(augmented_argument, wrt=(0, 1))(x, b)
    assert np.allclose(h, [[2 * b * b, 4 * x * b + 2], [4 * x * b + 2, 2 * x * x]], rtol=1e-12)
    with pytest.raises(srcgrad.NotDifferentiableError, match="^`x [*]= b  # write` .* changes the argument `x` in place"):
        srcgrad.hessian(lambda x: np.sum(augmented_argument(x, 2.0)))(X.copy())


def _doubled_in_place(x):
    x *= 2.0  # write
    return x * x


@pytest.mark.parametrize("mode", [None, "reverse", "forward"])
def test_a_refused_jacobian_leaves_the_argument_as_it_was(mode):
    """jacobian in reverse mode (and mode None, measuring the output) ran `fn(*args)`
    before the derivative's run-time check refused `x *= 2.0`: the refusal came, but the
    caller's array was doubled first, once more on every call. The output now comes from
    the derivative's own forward pass, which checks before it writes."""
    x = np.array([1.0, 2.0, 3.0])
    for _ in range(2):
        with pytest.raises(srcgrad.NotDifferentiableError, match="changes the argument `x` in place"):
            srcgrad.jacobian(_doubled_in_place, mode=mode)(x)
        assert x.tolist() == [1.0, 2.0, 3.0]
    j = srcgrad.jacobian(_doubled_in_place, mode=mode)(1.5)  # a float is rebound, not changed
    assert j == pytest.approx(8 * 1.5)


def extends_an_aliased_list_argument(xs):
    ys = xs
    xs += [xs[0] * 2]  # write
    return sum(ys)


def extends_a_list_argument(xs, x):
    xs += [x * 2]  # write
    return sum(xs)


def test_augmented_assignment_to_a_list_argument_is_refused_like_an_array_argument():
    """`xs += [...]` extends the caller's list in place. srcgrad computed `xs = xs + [...]`,
    so `sum(ys)` of an alias `ys = xs` missed the new entry: value 2.0 for Python's 3.0,
    and a wrong gradient, silently. The run-time check now treats one list like arrays
    sharing memory."""
    with pytest.raises(srcgrad.NotDifferentiableError, match="shares memory with `ys`"):
        srcgrad.grad(extends_an_aliased_list_argument)([0.5, 1.5])
    with pytest.raises(srcgrad.NotDifferentiableError, match="changes the argument `xs` in place"):
        srcgrad.grad(extends_a_list_argument, wrt=1)([0.5, 1.5], 0.7)


def _sum_of_augmented_argument(x):
    s = x  # the caller's array
    s *= 2.0
    return np.sum(s)


def augmented_nested_argument(x):
    def scaled(t):
        t *= 2.0
        return t

    y = x * 1.0
    return np.sum(scaled(y) * y)


def test_augmented_argument_of_a_nested_function_is_refused():
    with pytest.raises(srcgrad.NotDifferentiableError, match="does not make"):
        srcgrad.grad(augmented_nested_argument)


# --- subscript writes through views and aliases, in forward mode ----------------------

W23 = np.arange(1.0, 7.0).reshape(2, 3)


def write_into_a_row(x):
    y = np.zeros((2, 3))  # y[0] is a view: NumPy writes into y
    y[0][1] = x[0]  # write
    return np.sum(y * W23)


def write_through_an_alias(x):
    y = np.zeros(3)
    z = y  # shared
    z[1] = x[0]  # write
    return np.sum(y) * x[0]


def write_through_flat(x):
    y = np.zeros((2, 3))
    y.flat[1] = x[0]  # write
    return np.sum(y * W23)


def write_into_loop_rows(x):
    y = np.ones((2, 3))
    for row in y:
        row[0] = x[0]  # write
    return np.sum(y * W23)


def write_through_a_list_alias(x):
    items = [x[0], x[0] * 2]
    same = items  # shared
    same[0] = x[0] ** 3  # write
    return items[0] + items[1]


@pytest.mark.parametrize("f", [write_into_a_row, write_through_an_alias, write_through_flat, write_into_loop_rows,
                               write_through_a_list_alias], ids=lambda f: f.__name__)
def test_forward_mode_refuses_subscript_writes_through_shared_memory(f):
    """jvp gave these a tangent that missed the write (0 for `y[0][1] = x`); now it refuses
    them at the write's line, as reverse mode does."""
    for transform in (lambda: srcgrad.jvp(f, (X[:1].copy(),), (np.ones(1),)), lambda: srcgrad.grad(f)):
        with pytest.raises(srcgrad.NotDifferentiableError, match="in place") as info:
            transform()
        assert info.value.lineno == _lines(f, "# write")[0]


# --- lists held by lists ---------------------------------------------------------------


def one_row_appended_twice(x):
    rows = []
    row = []
    for i in range(2):
        row.append(x[i] * 2.0)  # write
        rows.append(row)
    return rows[0][1] * rows[1][0]


def row_changed_after_it_is_held(x):
    rows = []
    for i in range(2):
        row = []
        rows.append(row)
        row.append(x[i] * 3.0)  # write
    return rows[0][0] * rows[1][0]


@pytest.mark.parametrize("f", [one_row_appended_twice, row_changed_after_it_is_held], ids=lambda f: f.__name__)
def test_a_list_changed_while_another_list_holds_it_is_refused(f):
    """A list of lists built by appending a new row each pass is differentiated (a nested
    comprehension builds one: corpus_python.nested_comprehension_grid); a row that a
    change reaches after it was appended (the same row each pass, or an append after
    `rows.append(row)`) stays refused, in both modes."""
    for transform in (lambda: srcgrad.jvp(f, (X[:2].copy(),), (np.ones(2),)), lambda: srcgrad.grad(f)):
        with pytest.raises(srcgrad.NotDifferentiableError, match=r"rows.append\(row\)`\) puts into `rows`") as info:
            transform()
        assert info.value.lineno == _lines(f, "# write")[0]


def row_then_an_entry(x):
    rows = [[x[0]], [x[1]]]
    row = []
    for i in range(2):
        row.append(x[i] * 2.0)  # write
        row = rows[i]  # the next pass appends to rows[i]
    return rows[0][1] * rows[1][0] + rows[0][0]


def test_a_name_that_names_an_entry_in_the_next_pass_is_refused():
    """`row = []` before a loop makes the first pass's `row` new; a later pass changes
    what `row = rows[i]` gave it (a name reused for reading, after the loop that changes
    it, is fine: corpus_python.row_name_reused_for_reading)."""
    for transform in (lambda: srcgrad.jvp(row_then_an_entry, (X[:2].copy(),), (np.ones(2),)),
                      lambda: srcgrad.grad(row_then_an_entry)):
        with pytest.raises(srcgrad.NotDifferentiableError, match=r"held by the list `rows` .* `row = rows\[i\]  #") as info:
            transform()
        assert info.value.lineno == _lines(row_then_an_entry, "# write")[0]


def view_in_a_branch_then_changed_there(m):
    out = np.zeros((2, 3))
    s = 0.0
    for j in range(3):
        if j > 0:
            prev = out[:, j - 1]
            out[:, j - 1] = m[:, j]  # write
        else:
            prev = np.zeros(2)
        s = s + np.sum(prev * m[:, j])
    return s + np.sum(out**2)


def view_in_a_branch_read_after_a_change(m):
    out = np.zeros((2, 3))
    s = 0.0
    for j in range(3):
        prev = out[:, j - 1] if j > 0 else np.ones(2)
        out[:, j - 1] = m[:, j] * 3.0  # write
        s = s + np.sum(prev * prev)
    return s + np.sum(out)


@pytest.mark.parametrize("f", [view_in_a_branch_then_changed_there, view_in_a_branch_read_after_a_change],
                         ids=lambda f: f.__name__)
def test_a_view_taken_in_a_branch_and_read_after_a_change_is_refused(f):
    """A view taken in an `if` (or a conditional expression) whose branches both assign it,
    read after the `if` before any change, is differentiated
    (corpus_python.column_from_previous_column); one that a change may reach before a
    read stays refused."""
    m = np.arange(6.0).reshape(2, 3) * 0.1
    with pytest.raises(srcgrad.NotDifferentiableError, match="changes in place while the first is still in use") as info:
        srcgrad.grad(f)(m)
    assert info.value.lineno == _lines(f, "# write")[0]


def table_filled_by_chained_writes(x):
    table = [[0.0] * 3 for _ in range(3)]
    for i in range(3):
        table[i][i] = x[i] ** 2
    return table[2][2] + table[0][0]


def table_with_a_row_kept(x):
    table = [[0.0] * 3 for _ in range(3)]
    last = table[2]
    for i in range(3):
        table[i][i] = x[i] ** 2  # write
    return last[2] + table[0][0]


def test_a_chained_write_into_a_list_of_lists_says_what_to_write_instead():
    """`table[i][j] = v` changes the row list in place: differentiated as a new row stored
    whole where no other name sees a row (row_writes.py); refused where one does, and the
    message spoke of arrays and advised `Z[i, j]`, which a list does not take."""
    np.testing.assert_allclose(srcgrad.grad(table_filled_by_chained_writes)(X), [2 * X[0], 0.0, 2 * X[2]])
    with pytest.raises(srcgrad.NotDifferentiableError, match=r"a value \(a list or an array\) held by the list `table`.*"
                       r"not `a = table\[i\]`") as info:
        srcgrad.grad(table_with_a_row_kept)(X)
    assert info.value.lineno == _lines(table_with_a_row_kept, "# write")[0]


def slice_of_a_list_grown(x):
    vals = [x[0], x[1], x[2]]
    vals[0:1] = [x[1] * x[1], x[0]]  # write
    return vals[0] * vals[3]


def test_a_slice_assignment_that_changes_a_list_length_is_refused_when_run():
    """`vals[i:j] = v` into a list crashed in the gradient (TypeError in without_part, or a
    gradient of the wrong length); one that keeps the length is differentiated
    (corpus_python.list_slice_assignment), one that does not is refused where it runs,
    since the lengths are known only then (jvp follows it exactly)."""
    with pytest.raises(srcgrad.NotDifferentiableError, match="another number of entries than it holds") as info:
        srcgrad.grad(slice_of_a_list_grown)(X)
    assert info.value.args[0].count("line %d" % _lines(slice_of_a_list_grown, "# write")[0]) == 1
    _, tangent = srcgrad.jvp(slice_of_a_list_grown, (X,), (np.array([0.0, 1.0, 0.0]),))
    assert tangent == pytest.approx(2 * X[1] * X[2], rel=1e-12)  # of [x1^2, x0, x1, x2]: x1^2 x2


# --- subscript writes into a NumPy array made here copy values --------------------------


def assigned_then_augmented(x):
    y = np.zeros(3)
    y[0] = x[0]
    y[1] += x[1]
    return np.sum(y**2)


def filled_then_scaled(x):
    y = np.zeros(3)
    y[:] = x
    y[2] *= 3.0
    return np.sum(y**2)


def rows_filled_then_updated(x):
    y = np.zeros((2, 3))
    y[0] = x
    y[0] += x * y[0]
    y[1, 1:] -= x[1:] ** 2
    return np.sum(y**2)


@pytest.mark.parametrize("f", [assigned_then_augmented, filled_then_scaled, rows_filled_then_updated],
                         ids=lambda f: f.__name__)
def test_augmented_writes_into_an_array_filled_from_an_argument_are_differentiated(f):
    """`y[0] = x[0]` copies values into `y`; a later `y[1] += ...` was refused as if `y`
    held the argument's memory."""
    np.testing.assert_allclose(srcgrad.grad(f)(X.copy()), _fd(f, X), rtol=1e-6, atol=1e-8)
    assert srcgrad.jvp(f, (X.copy(),), (np.ones(3),))[1] == pytest.approx(_fd(f, X).sum(), rel=1e-6)


def view_stored_in_a_list(x):
    items = [None, None]
    items[0] = x[0:2]
    items[0] += 1.0  # write
    return np.sum(items[0])


def numbers_accumulated_in_a_list(x):
    sums = [0.0, 0.0, 0.0]
    for i in range(3):
        sums[i] += x[i] ** 2
        sums[(i + 1) % 3] += x[i]  # an entry of an argument: a number here, a view for a matrix
    sums[0] *= sums[1]
    return sums[0] + sums[2]


def test_a_view_stored_in_a_list_is_still_refused():
    """`l[i] op= v` changes an array entry in place (and the memory it shares) but only
    rebinds a number: it was refused whenever the entry might be an array. Now the
    generated code checks the entry where it runs: numbers are differentiated, an array
    entry is refused there, in both modes."""
    for transform in (lambda: srcgrad.grad(view_stored_in_a_list)(X), lambda: srcgrad.jvp(view_stored_in_a_list, (X,), (X,))):
        with pytest.raises(srcgrad.NotDifferentiableError, match="may share memory") as info:
            transform()
        assert "line %d" % _lines(view_stored_in_a_list, "# write")[0] in str(info.value)
    f = numbers_accumulated_in_a_list
    np.testing.assert_allclose(srcgrad.grad(f)(X), _fd(f, X), rtol=1e-6, atol=1e-8)
    assert srcgrad.jvp(f, (X,), (np.ones(3),))[1] == pytest.approx(_fd(f, X).sum(), rel=1e-6)
    with pytest.raises(srcgrad.NotDifferentiableError, match="may share memory"):
        srcgrad.grad(f)(np.ones((3, 2)) * X[:, None])  # rows: the entries become arrays, refused


def extends_an_entry_of_a_list_argument(rows):
    r = rows[0]
    r += [r[0] * 2]  # write
    return sum(rows[0])


def scales_an_entry_of_a_dict_argument(d):
    L = d["L"]
    L *= 2.0  # write
    return np.sum(d["L"])


def test_augmented_assignment_to_an_entry_of_a_container_argument_is_refused():
    """`r = rows[0]; r += ...` changes the caller's list of lists (or the array in its
    dict): the run-time check compared `r` with the container itself, found no shared
    array and let srcgrad compute a new value; `sum(rows[0])` then missed the change
    (value 2.0 for Python's 3.0 and 2.0 for 4.0 here, gradients wrong, silently)."""
    with pytest.raises(srcgrad.NotDifferentiableError, match="changes the argument `rows` in place"):
        srcgrad.grad(extends_an_entry_of_a_list_argument)([[0.5, 1.5], [2.0]])
    with pytest.raises(srcgrad.NotDifferentiableError, match="changes the argument `d` in place"):
        srcgrad.grad(scales_an_entry_of_a_dict_argument)({"L": np.array([0.5, 1.5])})
    assert srcgrad.grad(scales_an_entry_of_a_dict_argument)({"L": 1.5}) == {"L": 1.0}  # a float: `L` is a new value


# --- NumPy's `out` arrays ---------------------------------------------------------------


def out_by_position_dropped(x):
    y = np.zeros(3)
    np.exp(x, y)  # write
    return np.sum(y)


def out_by_position_of_a_function(x):
    y = np.zeros(3)
    np.cumsum(x, 0, None, y)  # write
    return np.sum(y * W[0])


def out_by_keyword_kept(x):
    y = np.zeros(3)
    z = np.cumsum(x, out=y)  # write
    return np.sum(y * W[0]) + np.sum(z)


def out_by_keyword_unused(x):
    y = np.zeros(())
    _ = np.sum(x, out=y)  # write
    return y * 2.0


def out_by_position_kept(x):
    y = np.zeros(3)
    z = np.clip(x, 0.0, 1.0, y)  # write
    return np.sum(y) + np.sum(z)


def out_of_a_method(x):
    y = np.zeros(3)
    z = x.cumsum(0, None, y)  # write
    return np.sum(y * W[0]) - np.sum(z)


def out_of_a_ufunc_method(x):
    y = np.zeros(())
    _ = np.add.reduce(x, 0, None, y)  # write
    return y * 2.0


def out_in_an_expression(x):
    y = np.zeros(3)
    return np.sum(np.clip(x, 0.0, 1.0, out=y)) + np.sum(y)  # write


OUT_WRITES = [out_of_a_method, out_of_a_ufunc_method, out_in_an_expression]


@pytest.mark.parametrize("f", OUT_WRITES, ids=lambda f: f.__name__)
def test_writes_into_out_arrays_are_refused_in_both_modes(f):
    """The rules know nothing of `out`: `np.exp(x, y)` (out by position, its result dropped)
    gave y no gradient (0 instead of exp(x)), and `z = np.cumsum(x, out=y)` gave y none
    either (0 instead of the reversed cumulative sums). A statement of its own writing
    into a name is now a write of the whole array (array_writes.py, below); the forms it
    does not spell (out by position of a method, in an expression) are refused in both modes."""
    for transform in (lambda: srcgrad.grad(f)(X.copy()), lambda: srcgrad.jvp(f, (X.copy(),), (np.ones(3),))):
        with pytest.raises(srcgrad.NotDifferentiableError, match="in place|`out` array") as info:
            transform()
        assert info.value.lineno == _lines(f, "# write")[0]


@pytest.mark.parametrize("f, expected", [
    (out_by_position_dropped, np.exp(X)),
    (out_by_position_of_a_function, np.cumsum(W[0][::-1])[::-1]),
    (out_by_keyword_kept, np.cumsum(W[0][::-1])[::-1] + np.array([3.0, 2.0, 1.0])),
    (out_by_keyword_unused, 2.0 * np.ones(3)),
    (out_by_position_kept, 2.0 * ((X > 0.0) & (X < 1.0))),
], ids=lambda f: getattr(f, "__name__", ""))
def test_writes_into_out_arrays_are_writes_of_the_whole_array(f, expected):
    x = X.copy()
    g = srcgrad.grad(f)(x)
    np.testing.assert_allclose(g, expected, rtol=1e-12)
    np.testing.assert_allclose(g, _numeric(f, X), rtol=1e-6, atol=1e-8)
    np.testing.assert_array_equal(x, X)
    t = np.array([0.3, -0.7, 1.1])
    assert srcgrad.jvp(f, (X.copy(),), (t,))[1] == pytest.approx(float(expected @ t), rel=1e-12)


def _numeric(f, x, h=1e-6):
    out = np.zeros_like(x)
    for i in range(x.size):
        e = np.zeros_like(x)
        e[i] = h
        out[i] = (f(x + e) - f(x - e)) / (2 * h)
    return out


def test_calls_that_pass_out_none_or_other_positional_arguments_are_differentiated():
    def f(x):
        return (np.sum(np.cumsum(x, 0, None, None) * W[0]) + np.sum(np.clip(x, -1.0, 1.5) ** 2) + np.sum(x.sum(0, None))
                + np.sum(np.add.reduce(np.outer(x, x), 1, None, None)) + np.sum(np.round(x, 1) * x))

    x = np.array([0.5, -1.2, 2.0])
    g = srcgrad.grad(f)(x)
    np.testing.assert_allclose(g, _fd(f, x), rtol=1e-6, atol=1e-6)
    _, tangent = srcgrad.jvp(f, (x,), (np.array([1.0, -2.0, 0.5]),))
    assert tangent == pytest.approx(g @ [1.0, -2.0, 0.5], rel=1e-12)


# --- removing list entries: `ys.pop(i)` -------------------------------------------------
# Accepted pops (of lists the function makes, at an integer literal) are differentiated in
# corpus_python.py (`stack_machine_pop`, `queue_pop_front`, ...); these are refused.


def pop_at_a_variable_index(x):
    ys = [x, 2.0 * x]
    k = 1
    return ys.pop(k) * ys[0]  # write


def pop_of_a_dict(x):
    d = {"a": x, "b": 2.0 * x}
    return d.pop("a") * d["b"]  # write


def pop_of_an_argument(xs):
    return xs.pop() * 2.0  # write


def del_of_an_entry(x, k=0):
    ys = [x, 2.0 * x]
    del ys[k]  # write
    return ys[0]


POPS_REFUSED = [
    (pop_at_a_variable_index, "removes an entry of `ys` at an index that is not an integer literal"),
    (pop_of_a_dict, r"removes an entry of `d`, which is not always a list made inside `pop_of_a_dict` \(line"),
    (pop_of_an_argument, r"removes an entry of the argument `xs` in place .* copy it first \(`xs = list\(xs\)`\)"),
    (del_of_an_entry, r"`del` of an entry \(`ys\[k\]`\) is not supported .* with `ys.pop\(i\)`"),
]


@pytest.mark.parametrize("f,message", POPS_REFUSED, ids=lambda v: getattr(v, "__name__", ""))
def test_removals_srcgrad_cannot_undo_are_refused_in_both_modes_saying_why(f, message):
    """`.pop()` had no rule ("no derivative rule for the method `.pop()`"), or a dropped
    `ys.pop()` was "a change of a differentiated value in place"."""
    value = [0.5, 2.0] if f is pop_of_an_argument else 0.5
    for transform in (lambda: srcgrad.grad(f)(value), lambda: srcgrad.jvp(f, (value,), (value,))):
        with pytest.raises(srcgrad.SrcGradError, match=message) as info:
            transform()
        assert info.value.lineno == _lines(f, "# write")[0]


def pops_in_a_loop(x):
    y = x * 1.0
    stack = [y]
    for _ in range(3):
        top = stack.pop()
        stack.append(np.sin(top) * x)
        stack.append(top * 2.0)
    total = 0.0
    while stack:
        total = total + np.sum(stack.pop())
    return total


def test_popped_entries_are_not_views_of_the_list():
    """`top = stack.pop()` then `stack.append(...)` was refused as "a view of an array that
    line ... changes in place while the first is still in use"."""
    assert _exact_or_refused(pops_in_a_loop, X) is None
    _, tangent = srcgrad.jvp(pops_in_a_loop, (X.copy(),), (np.array([1.0, -2.0, 0.5]),))
    assert tangent == pytest.approx(_fd(pops_in_a_loop, X) @ [1.0, -2.0, 0.5], rel=1e-6)
