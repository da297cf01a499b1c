"""Dicts merged and updated, lists reversed and sorted in place, sets of constants, `*`
unpacking and `zip(*pairs)`.

`d | e`, `d |= e`, `{**d, "k": v}`, `dict(k=v)`, `d.update(...)`, `d.setdefault(k, v)`,
`ws.reverse()`, `ws.sort(...)`, `k in {1, 3}`, `f(*args)` of a tuple the function writes
out and `a, b = zip(*pairs)` are differentiated in every transform (idioms.py spells them
as what srcgrad differentiates; the `Merge` rule of `|` sends each entry's gradient to
the operand it came from). Each program is checked against central differences in
float64, forward mode against reverse mode, and a few against their analytic gradients;
inputs are not changed. Where another name may see a change in place, a set holds
differentiated values, or `*` unpacks a value of unknown length, the call is refused at
the user's line.
"""

import math

import numpy as np
import pytest

import srcgrad
from conftest import numerical_grad

X = np.array([0.3, 1.2, 2.5, 0.7])


def merge_operator(x):
    d = {"a": x[0], "b": x[3]}
    d = d | {"b": x[1] * 2.0, "c": x[2]}
    return d["a"] * d["b"] + d["c"] ** 2


def merge_in_place(x):
    d = {"a": x[0]}
    for i in range(3):
        d |= {"a": d["a"] * x[i + 1], "last": x[i]}
    return d["a"] + d["last"]


def merge_display(x):
    d = {"a": x[0], "b": x[3]}
    e = {"c": x[2], "b": x[1] * 2.0, **d, "z": x[0] * x[1]}
    return e["a"] * e["b"] + e["c"] ** 2 + e["z"]


def copy_display(x):
    d = {"w": x[:2]}
    e = {**d}
    return np.sum(e["w"] ** 2)


def dict_keywords(x):
    p = dict(w=x[:2], b=x[2])
    q = dict(p, b=x[3] * 3.0)
    return np.sum(p["w"] * q["w"]) + p["b"] * q["b"]


def update_entries(x):
    d = {"a": x[0]}
    d.update({"b": x[1] * 2.0})
    d.update(c=x[2], a=x[3] * x[0])
    extra = {"e": x[1] ** 2}
    d.update(extra)
    return d["a"] * d["b"] + d["c"] * d["e"]


def update_in_loop(x):
    d = {"s": x[0]}
    for i in range(1, 4):
        d.update(s=d["s"] * x[i])
    return d["s"]


def set_default(x):
    d = {}
    d.setdefault("a", x[0])
    d.setdefault("a", x[1])  # kept: "a" is there
    d.setdefault("b", x[2] ** 2)
    return d["a"] * d["b"]


def reverse_list(x):
    ws = [x[0], x[1] * 2.0, x[2]]
    ws.reverse()
    return ws[0] * 3.0 + ws[2] * ws[1]


def sort_list(x):
    ws = [x[0], -x[1], x[2] * 0.1, x[3]]
    ws.sort(key=abs, reverse=True)
    return ws[0] * 3.0 + ws[1] * 2.0 + ws[3]


def reverse_in_loop(x):
    ws = [x[0], x[1]]
    for i in range(3):
        ws.reverse()
        ws[0] = ws[0] * x[2]
    return ws[0] + 2.0 * ws[1]


def set_of_constants(x):
    s = 0.0
    for i in range(4):
        if i in {1, 3}:
            s = s + x[i] ** 2
    return s * len({1} | {2})


def unpacked_arguments(x):
    pair = (x[0], x[1] * 2.0)
    ws = [x[2], x[3]]
    both = [*ws, *pair]
    return math.atan2(*pair) + math.hypot(*ws) * both[3] + np.sum(np.add(*[x, x]))


def unzipped_pairs(x):
    pairs = [(x[0], x[1]), (x[2], x[3] ** 2)]
    firsts, seconds = zip(*pairs)
    return sum(firsts) * sum(seconds)


def shape_unpacked(x):
    m = x.reshape(2, 2)
    y = np.reshape(m, (*m.shape[:1], 2, 1))
    return np.sum(y ** 2) + np.sum(np.zeros((*x.shape, 2)))


PROGRAMS = [unpacked_arguments, unzipped_pairs, shape_unpacked, merge_operator, merge_in_place, merge_display, copy_display, dict_keywords, update_entries,
            update_in_loop, set_default, reverse_list, sort_list, reverse_in_loop, set_of_constants]


@pytest.mark.parametrize("f", PROGRAMS, ids=lambda f: f.__name__)
def test_gradient_matches_differences_in_both_modes(f):
    x = X.copy()
    expected = numerical_grad(f, [x], 0)
    reverse = srcgrad.grad(f)(x)
    np.testing.assert_allclose(reverse, expected, rtol=1e-7, atol=1e-8)
    np.testing.assert_allclose(srcgrad.jacobian(f, mode="forward")(x), reverse, rtol=1e-12, atol=1e-14)
    _, tangent = srcgrad.jvp(f, (x,), (np.ones(4),))
    assert tangent == pytest.approx(np.sum(reverse), rel=1e-12)
    assert reverse.shape == x.shape and reverse.dtype == x.dtype
    np.testing.assert_array_equal(x, X)


def test_merged_entries_get_the_gradients_of_the_operand_they_came_from():
    # d | {"b": 2 x1, "c": x2}: "b" of d (x3) is replaced, so x3 gets nothing; the result
    # is x0 * 2 x1 + x2 ** 2. Before, `|` was taken for bitwise or: every gradient was 0.
    x = X.copy()
    expected = np.array([2.0 * x[1], 2.0 * x[0], 2.0 * x[2], 0.0])
    np.testing.assert_allclose(srcgrad.grad(merge_operator)(x), expected, rtol=1e-15)
    # {..., "b": 2 x1, **d, ...}: d's "b" (x3) comes later and wins: x0 x3 + x2 ** 2 + x0 x1
    np.testing.assert_allclose(srcgrad.grad(merge_display)(x), [x[3] + x[1], x[0], 2 * x[2], x[0]], rtol=1e-15)


def test_hessian_through_merges_and_updates():
    x = X.copy()
    for f in (merge_operator, update_entries, reverse_list):
        h = srcgrad.hessian(f)(x)
        expected = np.array([numerical_grad(lambda v: srcgrad.grad(f)(v)[i], [x], 0) for i in range(4)])
        np.testing.assert_allclose(h, expected, rtol=1e-6, atol=1e-7)
        np.testing.assert_allclose(h, h.T, rtol=1e-12, atol=1e-14)


def merge_parameters(p, q):
    r = p | q
    return r["w"] @ r["v"] + r["b"] ** 2


def test_dict_parameters_merged_get_gradients_of_their_own_structure():
    p = {"w": np.array([1.0, 2.0]), "b": 0.5}
    q = {"b": 3.0, "v": np.array([0.5, -1.0])}
    gp, gq = srcgrad.grad(merge_parameters, wrt=(0, 1))(p, q)
    assert set(gp) == {"w", "b"} and set(gq) == {"b", "v"}
    np.testing.assert_array_equal(gp["w"], q["v"])
    assert gp["b"] == 0.0  # replaced by q's "b"
    assert gq["b"] == 6.0
    np.testing.assert_array_equal(gq["v"], p["w"])


def merged_output(x):
    p = {"w": x[:2] * 2.0, "b": x[2]}
    return p | {"b": x[3] ** 2, "c": x[0]}


def test_vjp_and_jvp_of_a_merged_dict_output():
    x = X.copy()
    out, pullback = srcgrad.vjp(merged_output, x)
    assert list(out) == ["w", "b", "c"]
    (g,) = pullback({"w": np.array([1.0, 10.0]), "b": 100.0, "c": 1000.0})
    np.testing.assert_allclose(g, [2.0 + 1000.0, 20.0, 0.0, 200.0 * x[3]], rtol=1e-15)
    _, tangent = srcgrad.jvp(merged_output, (x,), (np.array([1.0, 0.0, 1.0, 1.0]),))
    assert list(tangent) == ["w", "b", "c"]
    np.testing.assert_allclose(tangent["w"], [2.0, 0.0])
    assert tangent["b"] == pytest.approx(2.0 * x[3]) and tangent["c"] == 1.0


def update_seen_by_alias(x):
    d = {"a": x[0]}
    e = d
    d.update(b=x[1])
    return e["b"] * 3.0


def reverse_seen_by_alias(x):
    ws = [x[0], x[1] * 2.0, x[2]]
    vs = ws
    ws.reverse()
    return vs[0] * 3.0


def merge_seen_by_alias(x):
    d = {"a": x[0]}
    e = d
    d |= {"b": x[1]}
    return e["b"] * d["a"]


def set_of_values(x):
    s = {x[0], x[1]}
    return sum(s)


@pytest.mark.parametrize("f,line", [(update_seen_by_alias, 3), (reverse_seen_by_alias, 3), (merge_seen_by_alias, 3),
                                    (set_of_values, 1)], ids=lambda v: getattr(v, "__name__", str(v)))
def test_a_change_another_name_sees_and_a_set_of_values_are_refused_at_their_line(f, line):
    first = f.__code__.co_firstlineno
    for transform in (lambda: srcgrad.grad(f)(X.copy()), lambda: srcgrad.jvp(f, (X.copy(),), (np.ones(4),))):
        with pytest.raises(srcgrad.NotDifferentiableError, match=f"line {first + line}") as info:
            transform()
        assert "test_idioms.py" in str(info.value)


def unpacked_list_of_unknown_length(x):
    parts = list(x)
    return math.hypot(*parts)


def unpacked_into_a_differentiated_display(x):
    ws = list(x[:2])
    vs = (*ws, x[2])
    return vs[2] * 2.0


def unpacked_list_grown_through_another_name(x):
    ws = [x[0], x[1]]
    vs = ws
    vs.append(x[2])  # ws has three entries now: max(*ws) must not read two
    return max(*ws)


def test_unpacking_of_a_length_not_shown_is_refused_at_its_line():
    for f, error, line in ((unpacked_list_of_unknown_length, srcgrad.SrcGradError, 2),
                           (unpacked_into_a_differentiated_display, srcgrad.NotDifferentiableError, 2),
                           (unpacked_list_grown_through_another_name, srcgrad.SrcGradError, 4)):
        line = f.__code__.co_firstlineno + line
        for transform in (lambda: srcgrad.grad(f)(X.copy()), lambda: srcgrad.jvp(f, (X.copy(),), (np.ones(4),))):
            with pytest.raises(error, match="length srcgrad cannot see") as info:
                transform()
            assert info.value.lineno == line and info.value.filename.endswith("test_idioms.py")


def test_unpacked_arguments_have_their_analytic_gradient():
    # atan2(x0, 2 x1) + hypot(x2, x3) * 2 x1 + sum(2 x)
    x = X.copy()
    r2 = x[0] ** 2 + 4 * x[1] ** 2
    h = math.hypot(x[2], x[3])
    expected = np.array([2 * x[1] / r2 + 2, -2 * x[0] / r2 + 2 * h + 2, x[2] / h * 2 * x[1] + 2, x[3] / h * 2 * x[1] + 2])
    np.testing.assert_allclose(srcgrad.grad(unpacked_arguments)(x), expected, rtol=1e-14)


def update_with_pairs(x):
    d = {"a": x[0]}
    d.update([("b", x[1] * 2.0)])
    return d["a"] * d["b"]


def test_update_with_pairs_written_out_differentiates():
    # was a TypeError when the derivative ran (`dict(d)` of a list): now `d |= {"b": x1 * 2}`, 2 x0 x1
    x = X.copy()
    expected = np.array([2 * x[1], 2 * x[0], 0.0, 0.0])
    np.testing.assert_allclose(srcgrad.grad(update_with_pairs)(x), expected, rtol=1e-14)
    _, t = srcgrad.jvp(update_with_pairs, (x,), (np.ones(4),))
    assert t == pytest.approx(2 * x[1] + 2 * x[0], rel=1e-14)


def sort_parameter(ws):
    ws.sort()
    return ws[0] * 2.0


def test_a_parameter_sorted_in_place_stays_refused():
    with pytest.raises(srcgrad.NotDifferentiableError, match="changes the argument `ws` in place"):
        srcgrad.grad(sort_parameter)([0.5, 0.2])


# --- lists held in a dict the function makes, appended to ------------------------------


def history_appended(x):
    hist = {"S": [], "T": []}
    for i in range(3):
        hist["S"].append(x[i] * x[3])
        hist["T"].append(np.sin(x[i]))
    return np.sum(np.array(hist["S"]) * np.array(hist["T"])) + hist["S"][-1] + sum(hist["T"])


def grouped_by_key(x):
    groups = {}
    for i in range(4):
        groups.setdefault(i % 2, []).append(x[i] ** 2)
    return sum(groups[0]) * sum(groups[1])


def test_lists_in_a_dict_appended_to():
    s, t = X[:3] * X[3], np.sin(X[:3])
    expected = np.zeros(4)
    expected[:3] = X[3] * t + s * np.cos(X[:3]) + np.cos(X[:3])
    expected[2] += X[3]
    expected[3] = np.sum(X[:3] * t) + X[2]
    g = srcgrad.grad(history_appended)(X.copy())
    np.testing.assert_allclose(g, expected, rtol=1e-12)
    np.testing.assert_allclose(g, numerical_grad(history_appended, (X.copy(),), 0), rtol=1e-6)
    even, odd = X[0] ** 2 + X[2] ** 2, X[1] ** 2 + X[3] ** 2
    expected = np.array([2 * X[0] * odd, 2 * X[1] * even, 2 * X[2] * odd, 2 * X[3] * even])
    np.testing.assert_allclose(srcgrad.grad(grouped_by_key)(X.copy()), expected, rtol=1e-12)
    for fn in (history_appended, grouped_by_key):
        _, t = srcgrad.jvp(fn, (X.copy(),), (np.ones(4),))
        assert t == pytest.approx(np.sum(srcgrad.grad(fn)(X.copy())), rel=1e-12)


def list_seen_by_another_name(x):
    hist = {"S": []}
    s = hist["S"]
    hist["S"].append(x[0] * 2.0)
    return sum(s) + x[1]


def list_stored_from_a_name(x):
    items = []
    groups = {}
    groups.setdefault(0, items).append(x[0])
    return sum(items)


def test_a_list_in_a_dict_another_name_sees_is_refused():
    with pytest.raises(srcgrad.NotDifferentiableError, match=r"a value \(a list or an array\) held by the dict `hist`.*test_idioms\.py"):
        srcgrad.grad(list_seen_by_another_name)(X.copy())
    with pytest.raises(srcgrad.NotDifferentiableError, match=r"value \(a list or an array\) held by the dict `groups`.*groups\.get\(0, \[\]\)"):
        srcgrad.grad(list_stored_from_a_name)(X.copy())
