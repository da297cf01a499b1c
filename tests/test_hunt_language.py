"""Python's own semantics, from a hunt that ran grad, jvp and hessian over some 300 small
functions exercising the language (closures, defaults, scopes, aliasing, laziness,
unpacking, builtins, statements) against central differences. The tests below each once
gave a silently wrong derivative:

- `a = b = x * 2.0` binds one array to two names; `a += 1.0` then changes `b` too. The
  may-share analysis related each target to the value but not the targets to each other,
  so `a += ...` was compiled as a new `a` and `b` kept the old value: the gradient of
  `sum(a * b)` was 8x + 2 (true 8x + 4), and with `a = b = []` or `a = b = np.zeros(3)`
  the gradient through `b` was 0. Such a change is now refused (at run time for a value
  that may be a float, which `+=` rebinds). `a = b = [v]` made two lists, so
  `a.append(w)` left `b` without w (gradient [3, 0, 1] for [3, 3, 3]): the display is now
  made once, and the append through one name refused;
- a generator expression stored in a variable runs when it is read, not where it is
  written: `g = (v * k for v in x); k = 3.0; sum(g)` is 3 sum(x). srcgrad computed it
  where it was written (gradient 2 for 3), and so it read `reversed(xs)` stored before a
  change of `xs`. A change of what such a stored iterator reads, between it and its
  read, is now refused at the changing line;
- a dict display whose keys are equal (`{"a": u, "b": v, "a": w}`, `{1: u, 1.0: v}`, or
  `{i: u, 1: v}` where i is 1 when it runs) keeps the last value, but reverse mode gave
  the key's gradient to every value of it (the gradient [2, 9, 6] for [0, 9, 6]). Equal
  literal keys now keep only the last value (where the first key stood), and keys that
  may be equal when it runs are written one after another as Python does;
- `rows[0] = z = x * 2.0` puts the array z names into the list; `z += 1.0` changes
  `rows[0]` too, which srcgrad read as a new z (gradient 4x for 4x + 1). Now refused.
"""

import numpy as np
import pytest

import srcgrad
from conftest import numerical_grad

X = np.array([1.0, 2.0, 3.0])


def _check(f, x, analytic):
    """grad, jvp and the inputs after, against central differences and `analytic`."""
    kept = x.copy()
    g = srcgrad.grad(f)(x)
    assert type(g) is np.ndarray and g.shape == x.shape and g.dtype == x.dtype
    np.testing.assert_allclose(g, numerical_grad(f, (x,), 0), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(g, analytic, rtol=1e-12)
    v = np.array([0.3, -1.1, 0.7])
    _, out_dot = srcgrad.jvp(f, (x,), (v,))
    np.testing.assert_allclose(out_dot, g @ v, rtol=1e-12)
    np.testing.assert_array_equal(x, kept)


# --- `a = b = value`: one object, two names --------------------------------------------


def chained_arrays(x):
    a = b = x * 2.0
    a += 1.0
    return np.sum(a * b)


def chained_lists(x):
    a = b = []
    a.append(x[0])
    a += [x[1]]
    return sum(b) * x[2]


def chained_zeros(x):
    a = b = np.zeros(3)
    a += x
    return np.sum(b * x)


@pytest.mark.parametrize("f, line", [(chained_arrays, "a += 1.0"), (chained_lists, "a.append(x[0])"),
                                     (chained_zeros, "a += x")])
def test_a_change_through_one_of_two_names_bound_at_once_is_refused(f, line):
    # before: chained_arrays' gradient 8x + 2 = [10, 18, 26] (true 8x + 4 = [12, 20, 28]),
    # chained_lists' [0, 0, 0] (true [3, 3, 3]), chained_zeros' [0, 0, 0] (true 2x)
    with pytest.raises(srcgrad.NotDifferentiableError, match=r"may share memory") as info:
        srcgrad.grad(f)(X.copy())
    assert f"`{line}`" in str(info.value) and "a = b = " in str(info.value)
    assert "test_hunt_language.py" in str(info.value)
    with pytest.raises(srcgrad.NotDifferentiableError, match=r"may share memory"):
        srcgrad.jvp(f, (X.copy(),), (np.ones(3),))


def chained_display_appended(x):
    a = b = [x[0]]
    a.append(x[1])
    return sum(b) * x[2]


def test_a_display_bound_to_two_names_is_one_list():
    # before: two lists were made, `b` without x[1]: the gradient [3, 0, 1] (true [3, 3, 3]) and
    # the value 3 (true 9)
    with pytest.raises(srcgrad.NotDifferentiableError, match=r"`a.append\(x\[1\]\)` changes .* in place") as info:
        srcgrad.grad(chained_display_appended)(X.copy())
    assert info.value.filename.endswith("test_hunt_language.py")
    assert info.value.lineno == chained_display_appended.__code__.co_firstlineno + 2


def chained_display_read(x):
    a = b = [x[0], x[1] * 2.0]
    return a[0] * b[1]


def test_a_display_bound_to_two_names_and_only_read_stays_exact():
    _check(chained_display_read, X.copy(), np.array([2.0 * X[1], 2.0 * X[0], 0.0]))


def entry_and_name_bound_at_once(x):
    rows = [None]
    rows[0] = z = x * 2.0
    z += 1.0  # rows[0] is z: it changes too
    return np.sum(rows[0] * x)


def test_a_change_through_a_name_bound_with_a_list_entry_is_refused():
    # before: the gradient 4x (true 4x + 1, [5, 9, 13] at [1, 2, 3]), the value 28 (true 34)
    with pytest.raises(srcgrad.NotDifferentiableError, match=r"may share memory with `rows`") as info:
        srcgrad.grad(entry_and_name_bound_at_once)(X.copy())
    assert "`z += 1.0" in str(info.value) and "`rows[0] = z = x * 2.0`" in str(info.value)


def chained_floats(x):
    a = b = x[0] * 2.0
    a += 1.0  # a float: a new value, b stays
    return a * b


def chained_other_name_unread(x):
    a = b = x * 2.0
    a += 1.0
    return np.sum(a * a)


def test_two_names_bound_at_once_stay_exact_where_the_change_is_seen_by_no_one():
    _check(chained_floats, X.copy(), np.array([8.0 * X[0] + 2.0, 0.0, 0.0]))  # (2x + 1) 2x
    _check(chained_other_name_unread, X.copy(), 4.0 * (2.0 * X + 1.0))  # sum((2x + 1)^2)
    h = srcgrad.hessian(chained_floats)(X.copy())
    np.testing.assert_allclose(h, np.diag([8.0, 0.0, 0.0]))


# --- lazy iterators stored in a variable ---------------------------------------------------


def genexp_reads_a_later_value(x):
    k = 2.0
    g = (v * k for v in x)
    k = 3.0
    return sum(g)


def genexp_filter_reads_a_later_bound(x):
    lo = 100.0
    g = (v for v in x if v > lo)
    lo = 1.0
    return sum(g)


def genexp_over_a_list_appended_to(x):
    xs = [x[0], x[1]]
    g = (v * v for v in xs)
    xs.append(x[2])
    return sum(g)


def genexp_calls_a_def_reading_a_later_value(x):
    k = 2.0

    def h(v):
        return v * k
    g = (h(v) for v in x)
    k = 3.0
    return sum(g)


def reversed_list_changed(x):
    xs = [x[0], x[1], x[2]]
    r = reversed(xs)
    xs[0] = x[1] * 10.0
    return sum(v * (i + 1) for i, v in enumerate(r))


@pytest.mark.parametrize("f, what, line", [
    (genexp_reads_a_later_value, "binds `k` again", "k = 3.0"),  # before: gradient [2, 2, 2] (true [3, 3, 3])
    (genexp_filter_reads_a_later_bound, "binds `lo` again", "lo = 1.0"),  # before: the output 0 (true x1 + x2)
    # before: [2, 4, 0] (true [2, 4, 6])
    (genexp_over_a_list_appended_to, "changes `xs` in place (`.append`)", "xs.append(x[2])"),
    (genexp_calls_a_def_reading_a_later_value, "binds `k` again", "k = 3.0"),  # before: [2, 2, 2] (true [3, 3, 3])
    (reversed_list_changed, "changes `xs` in place", "xs[0] = x[1] * 10.0"),  # before: [3, 2, 1] (true [0, 32, 1])
])
def test_a_stored_iterator_whose_reads_change_before_its_read_is_refused(f, what, line):
    with pytest.raises(srcgrad.SrcGradError) as info:
        srcgrad.grad(f)(X.copy())
    assert what in str(info.value) and "before" in str(info.value)
    assert info.value.filename.endswith("test_hunt_language.py")
    assert info.value.text.strip() == line
    with pytest.raises(srcgrad.SrcGradError):
        srcgrad.jvp(f, (X.copy(),), (np.ones(3),))


def genexp_then_unrelated_lines(x):
    k = 2.0
    g = (v * k for v in x)
    m = np.sum(x) * 0.5
    return sum(g) * m


def genexp_first_iterable_rebound(x):
    xs = [x[0], x[1]]
    g = (v * v for v in xs)  # Python evaluates `xs` here
    xs = [x[2]]
    return sum(g) + xs[0]


def reversed_read_before_the_change(x):
    xs = [x[0], x[1], x[2]]
    r = reversed(xs)
    t = sum(v * (i + 1) for i, v in enumerate(r))
    xs[0] = x[1] * 10.0
    return t + xs[0]


def genexp_then_a_match_capture(x):
    k = 2.0
    g = (v * k for v in x)
    match [x[0]]:
        case [k]:  # binds k = x[0]
            pass
    return sum(g)


def test_a_match_capture_of_what_a_stored_iterator_reads_is_refused():
    # the capture is a string in the tree, not a name: read as no change, the gradient
    # would be [2, 2, 2] (true [x0 + sum(x), x0, x0] = [7, 1, 1])
    with pytest.raises(srcgrad.SrcGradError, match=r"binds `k` again") as info:
        srcgrad.grad(genexp_then_a_match_capture)(X.copy())
    assert info.value.lineno == genexp_then_a_match_capture.__code__.co_firstlineno + 4


def genexp_read_by_the_binding_of_a_name_it_reads(x):
    k = 2.0
    g = (v * k for v in x)
    k = sum(g)  # sum(g) runs first: it reads k = 2
    return k * x[0]


def genexp_read_by_an_append_to_what_it_reads(x):
    xs = [x[0], x[1]]
    g = (v * v for v in xs)
    xs.append(sum(g))  # sum(g) runs first: over [x0, x1]
    return xs[0] * xs[2]


def test_stored_iterators_stay_exact_where_their_reads_do_not_change():
    # 2 sum(x) * sum(x) / 2 = sum(x)^2
    _check(genexp_then_unrelated_lines, X.copy(), 2.0 * np.sum(X) * np.ones(3))
    _check(genexp_first_iterable_rebound, X.copy(), np.array([2.0 * X[0], 2.0 * X[1], 1.0]))
    _check(reversed_read_before_the_change, X.copy(), np.array([3.0, 12.0, 1.0]))  # 3 x0 + 2 x1 + x2 + 10 x1
    s = np.sum(X)
    _check(genexp_read_by_the_binding_of_a_name_it_reads, X.copy(),
           np.array([2.0 * X[0] + 2.0 * s, 2.0 * X[0], 2.0 * X[0]]))
    _check(genexp_read_by_an_append_to_what_it_reads, X.copy(),  # x0 (x0^2 + x1^2)
           np.array([3.0 * X[0] ** 2 + X[1] ** 2, 2.0 * X[0] * X[1], 0.0]))


# --- dict displays whose keys are equal ----------------------------------------------------


def display_repeats_a_literal_key(x):
    d = {"a": x[0], "b": x[1], "a": x[2] * 3.0}
    return d["a"] * d["b"]


def display_keys_equal_as_numbers(x):
    d = {1: x[0], 1.0: x[1] * 2.0, True: x[2] * 3.0}
    return d[1] * 2.0


def display_keys_equal_when_it_runs(x, k, j):
    d = {k: x[0], "b": x[1], j: x[2] * 3.0}
    return d["a"] * d["b"]


def display_in_a_loop(x):
    t = 0.0
    for i in range(3):
        d = {i: x[i], 1: x[2] * 2.0}  # i == 1: the second value replaces the first
        t = t + d[i] * d[1]
    return t


def test_a_display_keeps_the_last_value_of_equal_keys():
    # before: every value of a repeated key got the key's gradient: [2, 9, 6] (true [0, 9, 6]);
    # [2, 4, 6] for the numbers (true [0, 0, 6]); in the loop [6, 12, 38] (true [6, 0, 38])
    _check(display_repeats_a_literal_key, X.copy(), np.array([0.0, 3.0 * X[2], 3.0 * X[1]]))
    _check(display_keys_equal_as_numbers, X.copy(), np.array([0.0, 0.0, 6.0]))
    # i = 0: x0 * 2 x2; i = 1: (2 x2)^2, x1 replaced; i = 2: x2 * 2 x2
    _check(display_in_a_loop, X.copy(), np.array([2.0 * X[2], 0.0, 2.0 * X[0] + 8.0 * X[2] + 4.0 * X[2]]))
    h = srcgrad.hessian(display_repeats_a_literal_key)(X.copy())
    np.testing.assert_allclose(h, [[0.0, 0.0, 0.0], [0.0, 0.0, 3.0], [0.0, 3.0, 0.0]])
    assert display_repeats_a_literal_key(X) == 3.0 * X[2] * X[1]


@pytest.mark.parametrize("k, j, analytic", [
    ("a", "a", [0.0, 9.0, 6.0]),  # before [2, 9, 6]
    ("a", "c", [2.0, 1.0, 0.0]),
    ("b", "a", [0.0, 9.0, 6.0]),  # `b` given x0 first, then x1: before [9, 9, 6]
])
def test_a_display_whose_keys_are_equal_only_when_it_runs(k, j, analytic):
    x = X.copy()
    g = srcgrad.grad(display_keys_equal_when_it_runs)(x, k, j)
    np.testing.assert_allclose(g, analytic, rtol=1e-12)
    np.testing.assert_allclose(g, numerical_grad(display_keys_equal_when_it_runs, (x, k, j), 0), rtol=1e-6)
    _, out_dot = srcgrad.jvp(display_keys_equal_when_it_runs, (x, k, j), (np.ones(3), None, None))
    np.testing.assert_allclose(out_dot, np.sum(analytic), rtol=1e-12)


def display_then_a_new_key(x):
    k = "a"
    d = {k: x[0], "a": x[1]}
    d["b"] = x[2]
    return d["a"] * d["b"]


def test_a_display_written_entry_by_entry_takes_later_writes():
    # the display built entry by entry under its own name: a later write of a new key is a
    # write into a dict (with an entries' temporary the write crashed with KeyError: 'b')
    _check(display_then_a_new_key, X.copy(), np.array([0.0, X[2], X[1]]))
