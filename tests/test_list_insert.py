"""`ws.insert(i, v)` on a list the function makes where no other name can see it: a
sequence built from both ends, a sorted insertion.

idioms.py rebinds `ws = ws[:i] + [v] + ws[i:]` (slices clamp as insert does, negative
`i` too), exact because every read of `ws` keeps no reference to the list. Each program
is checked against central differences and analytic values, forward mode against
reverse mode, Hessians against differences of the gradient; float32 stays float32.
Where another name, a container, or a loop over the list sees it, the insert is refused
at its line.
"""

import numpy as np
import pytest

import srcgrad
from program_checks import check, check_hessian


def both_ends(x):
    ws = []
    for k in range(3):
        ws.insert(0, x[k] * (k + 1.0))
        ws.insert(-1, x[k] ** 2)  # before the last entry
    return np.sum(np.array(ws) * np.arange(1.0, len(ws) + 1)) + len(ws) * ws[0] ** 3


def clamped(x, s):
    ws = [x[0], x[1]]
    ws.insert(10, s * x[2])  # past the end: appended
    ws.insert(-10, s ** 2)  # before the start: first
    return ws[0] * ws[3] + ws[1] * ws[2]


def float32_insert(x):
    ws = [x * 2.0]
    ws.insert(0, x * x)
    return np.sum(ws[0] + ws[1] * ws[0])


X = np.array([0.5, 1.5, 2.0])


def test_insert_at_both_ends():
    # ws ends as [3 x2, 2 x1, x0^2, x1^2, x2^2, x0], weighted 1 to 6
    expected = np.array([6 * X[0] + 6, 4 + 8 * X[1], 3 + 10 * X[2] + 6 * 27 * 3 * X[2] ** 2])
    check(both_ends, X, expected=(expected,))
    check_hessian(both_ends, (X,), 0, np.diag([6.0, 8.0, 10.0 + 6 * 27 * 6 * X[2]]))


def test_insert_clamps_its_index():
    s = 0.7
    # ws = [s^2, x0, x1, s x2]
    check(clamped, X, s, expected=(np.array([X[1], X[0], s ** 3]), 3 * s ** 2 * X[2]))
    check_hessian(clamped, (X, s), 1)
    check_hessian(clamped, (X, s), 0)


def test_float32_stays_float32():
    x = np.array([1.0, 2.0], np.float32)
    g = srcgrad.grad(float32_insert)(x)
    assert g.dtype == np.float32
    np.testing.assert_allclose(g, 2 * x + 6 * x * x)  # x^2 + 2 x^3
    _, t = srcgrad.jvp(float32_insert, (x,), (np.ones(2, np.float32),))
    assert np.asarray(t).dtype == np.float32


# --- refused: another name, a container or a loop over the list sees it ----------------


def seen_by_another_name(x):
    ws = [x[0]]
    zs = ws
    ws.insert(0, x[1])
    return zs[0]


def held_in_a_list(x):
    ws = [x[0]]
    rows = [ws]
    ws.insert(0, x[1])
    return rows[0][0]


def inserted_while_iterating(x):
    ws = [x[0], x[1]]
    total = 0.0
    for w in ws:
        if len(ws) < 4:
            ws.insert(0, w * 2.0)
        total = total + w
    return total


def test_refused_where_another_name_sees_the_list():
    for fn in (seen_by_another_name, held_in_a_list):
        line = fn.__code__.co_firstlineno + 3
        for transform in (lambda f: srcgrad.grad(f)(X), lambda f: srcgrad.jvp(f, (X,), (X,)),
                          lambda f: srcgrad.hessian(f)(X)):
            with pytest.raises(srcgrad.NotDifferentiableError, match=rf"test_list_insert\.py, line {line}\)"):
                transform(fn)
    with pytest.raises(srcgrad.SrcGradError, match=r"in a loop over `ws`"):
        srcgrad.grad(inserted_while_iterating)(X)
