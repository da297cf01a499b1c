"""`dict.get(key, default)`, `d.values()` and `sorted(...)` in programs with branches and loops:
gradients against central differences (float64) and the analytic answer, jvp against
the gradient, Hessians against differences of the gradient, inputs left as they were;
what stays refused, with its message."""

import numpy as np
import pytest

import srcgrad
from program_checks import check, check_hessian


# ------------------------------------------------------------------------------- dict.get


def get_built_dict(a, b):
    d = {"u": a, "v": b * 2.0}
    return d.get("u", 0.0) * 3.0 + d.get("w", b) * a  # "w" is absent: b's gradient


def get_variable_key_in_loop(a, b):
    d = {"u": a, "v": b}
    total = 0.0
    for k in ["u", "v", "w"]:
        total = total + d.get(k, a * b) * d.get(k, 1.0)
    return total  # a^2 + b^2 + a b


def get_in_branch(a, b):
    d = {}
    if a > 0:
        d["s"] = a * b
    return d.get("s", b) * a


def get_from_argument(p, a):
    return p.get("w", a) * p.get("b", 2.0) + np.sum(p.get("x", np.zeros(3)) ** 2) * p.get("w", a)


@pytest.mark.parametrize("fn, args, expected", [
    (get_built_dict, (0.7, 0.3), (3.3, 0.7)),
    (get_variable_key_in_loop, (0.7, 0.3), (1.7, 1.3)),
    (get_in_branch, (0.7, 0.3), (2 * 0.7 * 0.3, 0.49)),
    (get_in_branch, (-0.7, 0.3), (0.3, -0.7)),
])
def test_dict_get(fn, args, expected):
    check(fn, *args, expected=expected)


def test_dict_get_of_an_argument():
    p = {"w": 0.5, "x": np.array([1.0, 2.0, 3.0])}
    g_p, g_a = check(get_from_argument, p, 0.3)
    assert g_p.keys() == p.keys() and g_a == 0.0
    assert g_p["w"] == pytest.approx(2.0 + 14.0)
    np.testing.assert_allclose(g_p["x"], 2 * 0.5 * p["x"])
    absent = {"x": np.array([1.0, 2.0, 3.0])}  # no "w": the default a is read twice
    g_p, g_a = srcgrad.grad(get_from_argument, wrt=(0, 1))(absent, 0.3)
    assert g_a == pytest.approx(2.0 + 14.0)
    np.testing.assert_allclose(g_p["x"], 2 * 0.3 * absent["x"])
    assert srcgrad.hessian(get_from_argument, wrt=1)(absent, 0.3) == pytest.approx(0.0)
    check_hessian(get_variable_key_in_loop, (0.7, 0.3), 0, [[2.0]])


def sum_of_values(x):
    d = {"a": x, "b": np.sin(x)}
    return np.sum(sum(d.values()) * x)


def stacked_values(p):
    vals = list(p.values())
    return np.sum(np.stack(vals) ** 2) + np.sum(vals[0] * 3.0)


def test_the_values_of_a_dict_read_whole():
    """`sum(d.values())`, `list(p.values())` were refused ("no derivative rule for the
    method `.values()`"); a loop over `d.values()` already worked."""
    x = np.array([0.3, 0.9])
    (g,) = check(sum_of_values, x, expected=((1.0 + np.cos(x)) * x + x + np.sin(x),))
    check_hessian(sum_of_values, (x,), 0, np.diag(2.0 + 2.0 * np.cos(x) - x * np.sin(x)))
    p = {"a": np.array([1.0, 2.0]), "b": np.array([0.5, -1.0])}
    before = {k: v.copy() for k, v in p.items()}
    g = srcgrad.grad(stacked_values)(p)
    assert list(g) == ["a", "b"]
    np.testing.assert_array_equal(g["a"], 2.0 * p["a"] + 3.0)
    np.testing.assert_array_equal(g["b"], 2.0 * p["b"])
    out, pullback = srcgrad.vjp(stacked_values, p)
    assert out == stacked_values(p) and pullback(1.0)[0].keys() == g.keys()
    tangent = {"a": np.ones(2), "b": np.array([1.0, 0.0])}
    assert srcgrad.jvp(stacked_values, (p,), (tangent,))[1] == pytest.approx(np.sum(g["a"]) + g["b"][0])
    assert all(np.array_equal(p[k], before[k]) for k in p)


def get_of_a_list(x):
    xs = [x, x]
    return xs.get(0, x)


def test_dict_get_of_something_else_raises_a_type_error():
    with pytest.raises(TypeError, match="`.get\\(key, default\\)` of a dict only, not of a list"):
        srcgrad.grad(get_of_a_list)(0.7)


# ------------------------------------------------------------------------------- sorted


def _negated(v):
    return -v


def sorted_array(x):
    ys = sorted(x)
    return ys[0] * 2.0 + ys[-1] * ys[1]


def sorted_reversed_list_in_loop(a, b, c):
    ys = sorted([a, b * 2.0, c], reverse=True)
    total = 0.0
    for k, v in enumerate(ys):
        total = total + (k + 1.0) * v * v
    return total


def sorted_tuple_with_key(a, b):
    ys = sorted((a, b, a * b), key=abs)
    if ys[0] > 0:
        return ys[0] * ys[2]
    return ys[1]


def sorted_top_two(x):
    top = sorted(x * 2.0, key=_negated)[:2]
    return sum(top) * top[0]


def sorted_with_constants(a, b):
    ys = sorted([a, 2, b * b, 1.5])
    return ys[0] * ys[3] + ys[1]


@pytest.mark.parametrize("fn, args, expected", [
    (sorted_array, (np.array([0.3, -1.0, 2.0]),), ([2.0, 2.0, 0.3],)),  # -2 + 2 * 0.3
    (sorted_reversed_list_in_loop, (0.7, 0.3, -1.1), (2 * 0.7, 16 * 0.3, 2 * 3 * -1.1)),  # [a, 2b, c]
    (sorted_tuple_with_key, (0.7, -0.3), (0.0, 1.0)),  # |.|: [-0.21, -0.3, 0.7]: ys[1] is b
    (sorted_tuple_with_key, (0.7, 0.3), (2 * 0.7 * 0.3, 0.49)),  # [0.21, 0.3, 0.7]: a b a
    (sorted_top_two, (np.array([0.3, -1.0, 2.0, 0.1]),), ([8.0, 0.0, 4 * 0.3 + 8 * 2.0, 0.0],)),  # 4 x2 (x0 + x2)
    (sorted_with_constants, (0.7, 0.3), (1.0, 2 * 0.3 * 2)),  # [b^2, a, 1.5, 2]
])
def test_sorted(fn, args, expected):
    check(fn, *args, expected=expected)


def sorted_ties(a, b, c):
    ys = sorted([a, b, c], reverse=True)
    return ys[0] * 1.0 + ys[1] * 2.0 + ys[2] * 3.0


def test_sorted_ties_follow_the_entry_python_returns():
    # a stable sort keeps equal entries in their order, reverse=True too: [a, b, c] for a == b > c
    assert srcgrad.grad(sorted_ties, wrt=(0, 1, 2))(0.5, 0.5, 0.1) == (1.0, 2.0, 3.0)
    assert srcgrad.grad(sorted_ties, wrt=(0, 1, 2))(0.1, 0.5, 0.5) == (3.0, 1.0, 2.0)
    _, out_dot = srcgrad.jvp(sorted_ties, (0.5, 0.5, 0.1), (1.0, 10.0, 100.0))
    assert out_dot == 1.0 + 20.0 + 300.0
    g = srcgrad.grad(sorted_array)(np.array([0.5, 0.5, 0.1]))  # [0.1, 0.5 (x0), 0.5 (x1)]
    np.testing.assert_array_equal(g, [0.5, 0.5, 2.0])


def test_sorted_gradients_mirror_their_arguments():
    g = srcgrad.grad(sorted_top_two)(np.array([0.3, -1.0, 2.0], dtype=np.float32))
    assert g.dtype == np.float32
    def of_tuple(t):
        return sorted(t)[0] * 2.0
    g = srcgrad.grad(of_tuple)((0.7, 0.3))
    assert g == (0.0, 2.0)


def test_sorted_hessians():
    check_hessian(sorted_array, (np.array([0.3, -1.0, 2.0]),), 0, [[0, 0, 1], [0, 0, 0], [1, 0, 0]])
    check_hessian(sorted_top_two, (np.array([0.3, -1.0, 2.0, 0.1]),), 0)
    check_hessian(sorted_reversed_list_in_loop, (0.7, 0.3, -1.1), 1, [[4 * 2 * 2]])


def largest_by_magnitude(a, b):
    return max(a * a, b, key=abs) * min(a, b * 2.0, key=abs) + a


def extremes_by_magnitude(x):
    vals = [x[0] * x[1], -x[2] ** 3, x[1]]
    return max(vals, key=abs) ** 2 + min(vals, key=abs) * x[0] + max(x * x - 1.0, key=abs)


@pytest.mark.parametrize("fn, args, expected", [
    (largest_by_magnitude, (0.7, -1.3), (-1.3 + 1.0, 0.7)),  # b a + a
    (largest_by_magnitude, (1.7, -0.5), (4 * 1.7 * -0.5 + 1.0, 2 * 1.7**2)),  # a^2 * 2b + a
    (extremes_by_magnitude, (np.array([0.5, -1.2, 0.9]),), None),
])
def test_max_and_min_with_a_key(fn, args, expected):
    """`max(..., key=abs)` had no rule ("unexpected keyword argument 'key'"); the gradient
    goes to the entry Python returns, in both modes and through the Hessian."""
    check(fn, *args, expected=expected)
    check_hessian(fn, args, 0)


def sorted_lambda_key(x):
    return sorted(x, key=lambda v: -v)[0] * 3.0


def sorted_lambda_key_of_a_local(x):
    c = x[0]
    return sorted(x, key=lambda v: abs(v - c))[0] * 3.0


def test_sorted_with_a_lambda_key():
    """A lambda key only orders: the gradient goes to the entry sorted first (the largest)."""
    assert srcgrad.grad(sorted_lambda_key)(np.array([0.5, 0.7, 0.1])).tolist() == [0.0, 3.0, 0.0]


def test_sorted_with_a_lambda_key_reading_a_local_is_refused():
    with pytest.raises(srcgrad.NotDifferentiableError, match="reads `c`, a variable of") as info:
        srcgrad.grad(sorted_lambda_key_of_a_local)(np.array([0.5, 0.7, 0.1]))
    assert info.value.filename == __file__ and info.value.lineno == sorted_lambda_key_of_a_local.__code__.co_firstlineno + 2
