"""Loops and comprehensions over `sorted(zip(...), key=...)`, `sorted(enumerate(...),
key=...)`, without `key=`, with `reverse=` and under `reversed(...)` (compiler/sorted_loops.py):
gradients against central differences (float64, at points without ties) and the analytic
answer, jvp, value_and_grad, vjp, the second call and the Hessian (check_every_transform),
the order of equal keys (Python's stable sort) against the answer worked by hand, and the
forms left refused."""

import numpy as np
import pytest

import srcgrad
from program_checks import check, check_every_transform

W = [3.0, 1.0, 2.0, 1.0]
X = np.array([0.5, -1.2, 2.0, -0.7])  # no two keys equal: differences stay on one order
TIES = np.array([0.5, -1.0, 2.0, -1.0])


def by_weight(x):
    t = 0.0
    for a, b in sorted(zip(x, W), key=lambda p: p[1]):
        t = t * a + b
    return t


def by_tuples(x):
    t = 0.0
    for a, b in sorted(zip(x, W)):
        t = t * a + b
    return t


def by_value(x):
    t = 0.0
    for k, v in sorted(enumerate(x), key=lambda p: p[1]):
        t = t * v + k
    return t


def by_value_reversed(x):
    t = 0.0
    for k, v in sorted(enumerate(x, 1), key=lambda p: -p[1], reverse=True):
        t = t * v + k
    return t


def backwards(x):
    t = 0.0
    for a, b in reversed(sorted(zip(x, np.cos(x)), key=lambda p: p[1])):
        t = t * a + b * a
    return t


def by_distance(x):
    c = x[0] * 0.5

    def distance(p):
        return abs(p[0] - c)

    t = 0.0
    for a, b in sorted(zip(x, W), key=distance):
        t = t * a + b
    return t


def in_a_generator(x):
    return sum(a * b ** 2 for a, b in sorted(zip(x, x * x), key=lambda p: p[0] * p[1]))


def in_a_list(x):
    ys = [a * i for i, a in sorted(enumerate(x), key=lambda p: p[1]) if a > -1.0]
    t = 0.0
    for y in ys:
        t = t * 0.5 + y
    return t


def rebinding(x):
    t = 0.0
    for a, b in sorted(zip(x, W), key=lambda p: p[1]):
        x = x * 2.0
        t = t * a + b + np.sum(x)
    return t


def bound_to_a_name(x):
    pairs = sorted(zip(x, W), key=lambda p: p[1])
    t = 0.0
    for a, b in pairs:
        t = t * a + b
    return t


def bound_without_a_key(x):
    keys = [3, 1, 2, 0]
    pairs = sorted(zip(keys, x * x))
    t = 0.0
    for k, v in pairs:
        t = t * 0.5 + k * v
    return t + pairs[0][1] * len(pairs)


def bound_then_read_whole(x):
    scale = x[0] * 0.5
    ranked = sorted(enumerate(x), key=lambda p: -abs(p[1] - scale), reverse=True)
    firsts = [v for _, v in ranked[:2]]
    t = 0.0
    for k, v in list(reversed(sorted(zip(x, W)))):
        t = t * 0.5 + k * v
    return t + firsts[0] * firsts[1] ** 2 + ranked[-1][1]


def bound_in_a_loop(x):
    t = 0.0
    for step in range(2):
        pairs = sorted(zip(x * (step + 1.0), W), key=lambda p: p[0])
        for a, b in pairs:
            t = t * 0.5 + a * b
    return t


def _horner(values, weights):
    """t = t * v + w over the pairs in the order given: its value and gradient in the values."""
    t, ts = 0.0, []
    for v, w in zip(values, weights):
        ts.append(t)
        t = t * v + w
    grads, above = [], 1.0
    for k in reversed(range(len(values))):
        grads.append(above * ts[k])
        above *= values[k]
    return t, grads[::-1]


@pytest.mark.parametrize("fn", [by_weight, by_tuples, by_value, by_value_reversed, backwards, by_distance,
                                in_a_generator, in_a_list, rebinding, bound_to_a_name, bound_without_a_key,
                                bound_then_read_whole, bound_in_a_loop], ids=lambda f: f.__name__)
def test_every_transform(fn):
    check_every_transform(fn, X)


def test_the_gradient_follows_the_order():
    order = sorted(range(4), key=lambda k: W[k])  # [1, 3, 2, 0]
    value, grads = _horner([X[k] for k in order], [W[k] for k in order])
    expected = np.zeros(4)
    expected[order] = grads
    assert by_weight(X) == pytest.approx(value)
    check_every_transform(by_weight, X, expected)


def test_a_sorted_list_bound_to_a_name_follows_the_order():
    """`pairs = sorted(zip(...))` then `for a, b in pairs` was refused as a call of `zip`
    with no rule; the list is now made as a comprehension over the ordered positions."""
    order = sorted(range(4), key=lambda k: W[k])
    value, grads = _horner([X[k] for k in order], [W[k] for k in order])
    expected = np.zeros(4)
    expected[order] = grads
    assert bound_to_a_name(X) == pytest.approx(value, rel=1e-15)
    check_every_transform(bound_to_a_name, X, expected)
    # keys 3, 1, 2, 0 order the squares x3, x1, x2, x0: t = sum_j 0.5 ** (3 - j) * key_j * v_j
    # (j in that order), then + x3 ** 2 * 4
    weights = {3: 0.5 ** 3 * 0, 1: 0.5 ** 2 * 1, 2: 0.5 * 2, 0: 3.0}
    expected = np.array([2 * X[k] * weights[k] for k in range(4)])
    expected[3] += 8 * X[3]
    check_every_transform(bound_without_a_key, X, expected)
    text = srcgrad.source(srcgrad.grad(bound_without_a_key))
    assert "order_by('sorted', range_t1, items)" in text and "pairs.append(part_1)" in text


@pytest.mark.parametrize("fn, order", [(by_value, [1, 3, 0, 2]), (by_value_reversed, [1, 3, 0, 2])],
                         ids=["sorted", "reverse=True"])
def test_equal_keys_keep_their_order(fn, order):
    """Python's sort is stable, `reverse=True` too: x[1] before x[3], which share a key."""
    start = 1 if fn is by_value_reversed else 0
    value, grads = _horner([TIES[k] for k in order], [k + start for k in order])
    expected = np.zeros(4)
    expected[order] = grads
    g = srcgrad.grad(fn)(TIES)
    assert fn(TIES) == pytest.approx(value)
    np.testing.assert_allclose(g, expected, rtol=1e-12)
    np.testing.assert_allclose(srcgrad.grad(fn)(TIES), expected, rtol=1e-12)  # the second call
    _, tangent = srcgrad.jvp(fn, (TIES,), (np.ones(4),))
    assert tangent == pytest.approx(np.sum(expected))


def test_reversed_reverses_equal_keys_too():
    """`reversed(sorted(...))` is not `sorted(..., reverse=True)` where keys are equal."""
    w = [1.0, 2.0, 1.0, 0.5]

    def f(x):
        t = 0.0
        for a, b in reversed(sorted(zip(x, w), key=lambda p: p[1])):
            t = t * a + b
        return t

    order = [1, 2, 0, 3]  # sorted: 3, 0, 2, 1; reversed
    value, grads = _horner([X[k] for k in order], [w[k] for k in order])
    expected = np.zeros(4)
    expected[order] = grads
    assert f(X) == pytest.approx(value)
    check(f, X, expected=(expected,))


def changed_in_place(x):
    x = x.copy()
    t = 0.0
    for a, b in sorted(zip(x, W), key=lambda p: p[1]):
        x[0] = x[0] * 2.0
        t = t * a + b + x[0]
    return t


def test_a_body_changing_a_sequence_in_place_is_refused():
    with pytest.raises(srcgrad.NotDifferentiableError, match="changes in place"):
        srcgrad.grad(changed_in_place)(X)
