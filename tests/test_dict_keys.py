"""Differentiated values as a dict's keys: srcgrad gives keys no derivative (a loop over
the dict, `.keys()` and `list(d)` read them as constants), so a program that made a
differentiated value a key and read it back got a zero gradient without a word. Each
way of making such a key is refused at its line, in both modes; keys computed from
differentiated values without a derivative (`int(...)`, `str(...)`) and differentiated
values stored as a dict's values still differentiate."""

import numpy as np
import pytest

import srcgrad
from srcgrad.errors import NotDifferentiableError

X = np.array([0.3, -0.2, 0.9])


def keys_in_a_display(x):
    d = {x[0]: 1.0, x[1]: 2.0}
    total = 0.0
    for k in d:
        total += k * d[k]
    return total


def keys_in_a_comprehension(x):
    d = {v: i for i, v in enumerate(x)}
    return sum(k * w for k, w in d.items())


def keys_zipped(x):
    d = dict(zip(x, [1.0, 2.0, 3.0]))
    return sum(k * w for k, w in d.items())


def key_stored(x):
    d = {}
    d[x[0]] = 1.0
    return list(d)[0] * 2.0


def key_read_by_keys(x):
    d = {x[0] * 2.0: "a"}
    return list(d.keys())[0] * 2.0


def key_stored_in_a_copy(x):
    d = {"a": x[0]}
    e = d.copy()
    e[x[1]] = 3.0
    total = 0.0
    for k in e:
        if k != "a":
            total += k * 2.0
    return total


def key_stored_in_a_dict_held_by_a_list(x):
    ds = [{}]
    ds[0][x[0]] = 1.0
    return list(ds[0])[0] * 2.0


def key_updated_from_pairs(x):
    d = {}
    d.update([(x[0], 1.0)])
    return list(d)[0] * 2.0


def key_in_dict_of_pairs(x):
    d = dict([(x[0], 1.0)])
    return list(d)[0] * 2.0


REFUSED = {
    keys_in_a_display: r"`d = \{x\[0\]: 1.0, x\[1\]: 2.0\}`",
    keys_in_a_comprehension: r"`d = \{v: i for i, v in enumerate\(x\)\}`",
    keys_zipped: r"`d = dict\(zip\(x, \[1.0, 2.0, 3.0\]\)\)`",
    key_stored: r"`d\[x\[0\]\] = 1.0`",
    key_read_by_keys: r"`d = \{x\[0\] \* 2.0: 'a'\}`|`d = \{x\[0\] \* 2.0: \"a\"\}`",
    key_stored_in_a_copy: r"`e\[x\[1\]\] = 3.0`",  # was a bare KeyError from the generated code
    key_stored_in_a_dict_held_by_a_list: r"`ds\[0\]\[x\[0\]\] = 1.0`",  # was a zero gradient
    key_updated_from_pairs: r"`d.update\(\[\(x\[0\], 1.0\)\]\)`",  # was a bare KeyError from the generated code
    key_in_dict_of_pairs: r"`d = dict\(\[\(x\[0\], 1.0\)\]\)`",  # was a TypeError when the derivative ran
}


@pytest.mark.parametrize("f", list(REFUSED), ids=lambda f: f.__name__)
def test_a_differentiated_key_is_refused_in_both_modes(f):
    # the gradient was zero, where the true one is not: the slope along (1, 1, 1) is 2 or more
    assert (f(X + 1e-6) - f(X - 1e-6)) / 2e-6 > 1.9
    pattern = f"(?:{REFUSED[f]}) makes a differentiated value a key of a dict \\(in `{f.__name__}`\\).*test_dict_keys.py, line \\d+"
    with pytest.raises(NotDifferentiableError, match=pattern):
        srcgrad.grad(f)(X.copy())
    with pytest.raises(NotDifferentiableError, match="a key of a dict"):
        srcgrad.jvp(f, (X.copy(),), (np.ones(3),))


def keys_without_derivative(x):
    d = {int(x[2] * 10): x[0] * 2.0, str(x[1] > 0): x[1]}
    total = 0.0
    for k, v in d.items():
        total += v * v * (2.0 if k == 9 else 1.0)
    return total


def test_keys_without_a_derivative_and_differentiated_values_still_differentiate():
    g = srcgrad.grad(keys_without_derivative)(X.copy())
    # (2 x0)^2 * 2 + x1^2
    np.testing.assert_allclose(g, [16 * X[0], 2 * X[1], 0.0], rtol=1e-14)
    _, t = srcgrad.jvp(keys_without_derivative, (X.copy(),), (np.array([1.0, 2.0, 3.0]),))
    assert t == pytest.approx(16 * X[0] + 4 * X[1], rel=1e-14)


M = np.array([[0.1, 0.4, 0.7], [1.0, 1.3, 0.6]])


def counts_as_keys(x, m):
    d = {}
    for i, v in enumerate(x):  # the entry `v` is not read: the loop is not rewritten by index
        d[i] = np.tanh(np.sum(m[1]) * m[0, i])
    return d[1] * d.get(2, 0.0) + x[0] * d[0]


def test_the_count_of_enumerate_as_a_key_is_not_a_differentiated_key():
    # was refused: `d[i] = ...` made "a differentiated value a key", the count `i` read
    # as entry 0 of a tuple holding entries of `x`
    from program_checks import check

    s, w = np.sum(M[1]), M[0]
    t0, t1, t2 = np.tanh(s * w)
    d0, d1, d2 = X[0] * (1 - t0 ** 2), t2 * (1 - t1 ** 2), t1 * (1 - t2 ** 2)  # d(result)/d(s w_k)
    expected_m = np.array([[d0 * s, d1 * s, d2 * s], [d0 * w[0] + d1 * w[1] + d2 * w[2]] * 3])
    check(counts_as_keys, X.copy(), M.copy(), expected=(np.array([t0, 0.0, 0.0]), expected_m))
    df = srcgrad.grad(counts_as_keys, wrt=(0, 1))
    first, second = df(X.copy(), M.copy()), df(X.copy(), M.copy())
    for g, h in zip(first, second):
        np.testing.assert_array_equal(g, h)


def values_from_pairs(x):
    d = dict([("a", x[0]), ("b", x[1] * 3.0)])
    d.update([("c", x[2] * x[0])], e=x[1])
    return d["a"] * d["b"] + d["c"] * d["e"]


def test_values_from_a_list_of_pairs_differentiate():
    # was a TypeError when the derivative ran (`dict(d)` of a list): 3 a b + a b c
    a, b, c = X
    exact = np.array([3 * b + b * c, 3 * a + a * c, a * b])
    for _ in range(2):
        np.testing.assert_allclose(srcgrad.grad(values_from_pairs)(X.copy()), exact, rtol=1e-14)
    differences = [(values_from_pairs(X + 1e-6 * e) - values_from_pairs(X - 1e-6 * e)) / 2e-6 for e in np.eye(3)]
    np.testing.assert_allclose(exact, differences, rtol=1e-6)
    value, t = srcgrad.jvp(values_from_pairs, (X.copy(),), (np.array([1.0, 2.0, 3.0]),))
    assert value == pytest.approx(values_from_pairs(X), rel=1e-15)
    assert t == pytest.approx(exact @ [1.0, 2.0, 3.0], rel=1e-14)
