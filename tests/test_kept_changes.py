"""A call that changes a value in place whose result is kept: srcgrad follows an in-place
change (`ys.append(v)`, `np.copyto(y, v)`) only in a call standing as a statement of its
own, and an assignment's derivative is its value's. So `r = ys.append(v)`, the same call
inside an expression, a conditional, a comprehension, `map`, a lambda, and a changing
method taken as a value (`add = ys.append`) once gave a gradient without the change's
part, without a word. Each is refused at its line in both modes where the changed value
reaches the output; the same calls as statements of their own still differentiate."""

import heapq
import operator
import re

import numpy as np
import pytest

import srcgrad
from conftest import numerical_grad
from program_checks import check

X = np.array([0.3, -0.7, 1.1])


def append_kept(x):
    lst = []
    r = lst.append(x[0] * 2)
    return lst[0] * x[1]


def append_in_a_conditional(x):
    lst = []
    lst.append(x[0]) if x[2] > 0 else lst.append(x[1])
    return lst[0] * x[1] * 3


def append_in_a_comprehension(x):
    lst = []
    [lst.append(v * 2) for v in x]
    return lst[0] * x[1]


def append_mapped(x):
    lst = []
    list(map(lst.append, x))
    return lst[0] * x[1]


def append_printed(x):
    lst = []
    print(lst.append(x[0] * 2), end="")
    return lst[0] * x[1]


def append_in_a_lambda(x):
    lst = []
    add = lambda v: lst.append(v * 2)
    add(x[0])
    return lst[0] * x[1]


def append_bound(x):
    lst = []
    add = lst.append
    for v in x:
        add(v * 2)
    return lst[0] * x[1]


def setdefault_kept(x):
    d = {}
    _ = d.setdefault("k", x[0] * 3)
    return d["k"] * x[1]


def reverse_kept(x):
    lst = [x[0], x[1], x[2] * 2]
    r = lst.reverse()
    return lst[0] * 5 + lst[1]


def sort_kept(x):
    y = x * 1.0
    r = y.sort()
    return y[0] * 5 + y[1]


def copyto_kept(x):
    y = np.zeros(3)
    r = np.copyto(y, x * 2)
    return np.sum(y * x)


def add_at_kept(x):
    y = np.zeros(3)
    r = np.add.at(y, [0, 0, 1], x)
    return np.sum(y * x)


def setitem_kept(x):
    lst = [0.0]
    r = operator.setitem(lst, 0, x[0] * 2)
    return lst[0] * x[1]


def heappush_kept(x):
    h = []
    r = heapq.heappush(h, x[0] * 2)
    return h[0] * x[1]


# program -> (the user's text named in the refusal, the true gradient at X)
REFUSED = {
    append_kept: ("r = lst.append(x[0] * 2)", [2 * X[1], 2 * X[0], 0.0]),
    append_in_a_conditional: ("lst.append(x[0]) if x[2] > 0 else lst.append(x[1])", [3 * X[1], 3 * X[0], 0.0]),
    append_in_a_comprehension: ("[lst.append(v * 2) for v in x]", [2 * X[1], 2 * X[0], 0.0]),
    append_mapped: ("list(map(lst.append, x))", [X[1], X[0], 0.0]),
    append_printed: ("print(lst.append(x[0] * 2), end=\"\")", [2 * X[1], 2 * X[0], 0.0]),
    append_in_a_lambda: ("add = lambda v: lst.append(v * 2)", [2 * X[1], 2 * X[0], 0.0]),
    append_bound: ("add = lst.append", [2 * X[1], 2 * X[0], 0.0]),
    setdefault_kept: ("_ = d.setdefault(\"k\", x[0] * 3)", [3 * X[1], 3 * X[0], 0.0]),
    reverse_kept: ("r = lst.reverse()", [0.0, 1.0, 10.0]),
    sort_kept: ("r = y.sort()", [1.0, 5.0, 0.0]),
    copyto_kept: ("r = np.copyto(y, x * 2)", 4 * X),
    add_at_kept: ("r = np.add.at(y, [0, 0, 1], x)", [2 * X[0] + X[1], X[0] + X[2], X[1]]),
    setitem_kept: ("r = operator.setitem(lst, 0, x[0] * 2)", [2 * X[1], 2 * X[0], 0.0]),
    heappush_kept: ("r = heapq.heappush(h, x[0] * 2)", [2 * X[1], 2 * X[0], 0.0]),
}


@pytest.mark.parametrize("f", list(REFUSED), ids=lambda f: f.__name__)
def test_a_kept_in_place_change_is_refused_in_both_modes(f):
    text, expected = REFUSED[f]
    # what Python computes: the change's part is there (srcgrad's gradient missed it)
    np.testing.assert_allclose(numerical_grad(f, [X.copy()], 0), expected, rtol=1e-6, atol=1e-8)
    pattern = f"`{re.escape(text)}` (keeps the result of|takes the method)"
    with pytest.raises(srcgrad.NotDifferentiableError, match=pattern) as info:
        srcgrad.grad(f)(X.copy())
    assert "test_kept_changes.py" in str(info.value) and f.__name__ in str(info.value)
    with pytest.raises(srcgrad.NotDifferentiableError, match="keeps the result of|takes the method"):
        srcgrad.jvp(f, (X.copy(),), (np.ones(3),))


def statements_of_their_own(x):
    lst = []
    for v in x:
        lst.append(v * 2)
    d = {}
    d.setdefault("k", []).append(x[0] * 3)
    y = np.zeros(3)
    np.copyto(y, x * 2)
    log = []
    note = log.append  # a bound method of a list the result does not read
    note(1.0)
    r = lst.copy()
    return lst[0] * x[1] + d["k"][0] * x[2] + np.sum(y * x) + r[2]


def test_the_same_calls_as_statements_of_their_own_still_differentiate():
    # 2 x0 x1 + 3 x0 x2 + 2 |x|^2 + 2 x2
    expected = [2 * X[1] + 3 * X[2] + 4 * X[0], 2 * X[0] + 4 * X[1], 3 * X[0] + 4 * X[2] + 2]
    check(statements_of_their_own, X.copy(), expected=[expected])


def append_kept_to_an_argument(x, lst):
    r = lst.append(x[0] * 2)
    return lst[-1] * x[1]


def test_a_kept_change_of_an_argument_is_refused():
    # the gradient was (0, 2 x0): the appended entry's part was lost
    with pytest.raises(srcgrad.NotDifferentiableError, match=r"`r = lst.append\(x\[0\] \* 2\)` keeps the result"):
        srcgrad.grad(append_kept_to_an_argument)(X[:2].copy(), [1.0])
