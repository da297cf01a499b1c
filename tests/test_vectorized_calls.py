"""`np.vectorize` and `np.piecewise`, which call a Python function per element or per
piece (compiler/vectorized_calls.py): written as the loop and the masked writes they
run, so the function's own code is differentiated. They were refused (a lambda not
assigned to a name; "np.vectorize calls its function once per element, which srcgrad
does not follow"). Gradients against central differences (float64) and the analytic
answer in every transform (program_checks), results equal to NumPy's own, the generated
code, and the forms that stay refused with what to write instead."""

import numpy as np
import pytest

import srcgrad
from program_checks import check, check_every_transform

X = np.array([-1.3, -0.4, 0.6, 1.7, 2.2])


def bump(a, b):
    return np.exp(-a * a) * b


vbump = np.vectorize(bump)
vsquare = np.vectorize(lambda v: v * v, otypes=[float])


def by_a_lambda(x):
    return np.sum(np.vectorize(lambda v: v * v if v > 0 else -2.0 * v)(x))


def by_a_named_function(x):
    y = np.vectorize(bump)(x * 2.0, 0.5)
    return np.sum(y * x)


def by_a_vectorize_object(x):
    return np.sum(vbump(x, 2.0)) + np.sum(vsquare(x) ** 2)


def of_two_arrays(x):
    w = x[:, None] * np.ones((1, 2))
    return np.sum(np.vectorize(lambda a, b: a * b if a > b else a + b, otypes="d")(w, x[::-1][:, None]))


def by_pieces(x):
    p = np.piecewise(x, [x < 0, x >= 0], [lambda v: -2.0 * v, np.sqrt])
    return np.sum(p * p)


def by_pieces_with_a_default(x):
    return np.sum(np.piecewise(x, [x < -0.5, x > 1.0], [lambda v, k: k * v ** 2, 3.0, lambda v, k: np.sin(v) * k], 2.0))


def overlapping_pieces(x):
    # the later condition wins where both hold; 0 where none does
    return np.sum(np.piecewise(x, [x > -1.0, x > 1.0], [lambda v: v ** 3, lambda v: 4.0 * v]))


@pytest.mark.parametrize("fn, expected", [
    (by_a_lambda, np.where(X > 0, 2.0 * X, -2.0)),
    (by_a_named_function, 0.5 * np.exp(-4 * X * X) * (1.0 - 8.0 * X * X)),
    (by_a_vectorize_object, 2.0 * -2.0 * X * np.exp(-X * X) + 4.0 * X ** 3),
    (by_pieces, np.where(X < 0, 8.0 * X, 1.0)),
    (by_pieces_with_a_default, np.where(X < -0.5, 4.0 * X, np.where(X > 1.0, 0.0, 2.0 * np.cos(X)))),
    (overlapping_pieces, np.where(X > 1.0, 4.0, np.where(X > -1.0, 3.0 * X ** 2, 0.0))),
], ids=lambda v: getattr(v, "__name__", ""))
def test_every_transform(fn, expected):
    check_every_transform(fn, X.copy(), expected)


def test_two_arrays_broadcast_together():
    x = X.copy()
    (g,) = check(of_two_arrays, x)
    w, z = x[:, None] * np.ones((1, 2)), x[::-1][:, None]
    dw = np.where(w > z, z, 1.0)  # d/dw of the chosen branch, d/dz likewise
    dz = np.where(w > z, w, 1.0)
    np.testing.assert_allclose(g, dw.sum(axis=1) + dz.sum(axis=1)[::-1], rtol=1e-13)


@pytest.mark.parametrize("fn", [by_a_lambda, by_a_vectorize_object, by_pieces, by_pieces_with_a_default, of_two_arrays])
def test_values_are_numpys(fn):
    value, _ = srcgrad.value_and_grad(fn)(X)
    assert value == fn(X)


def test_a_scalar_and_a_matrix():
    m = X[:4].reshape(2, 2)
    check(by_pieces, m)
    assert srcgrad.grad(by_pieces)(2.25) == pytest.approx(1.0, rel=1e-15)
    assert srcgrad.grad(by_pieces)(-0.5) == pytest.approx(-4.0, rel=1e-15)
    assert srcgrad.grad(by_a_lambda)(1.5) == pytest.approx(3.0, rel=1e-15)


def test_the_generated_code_shows_the_loop_and_the_writes():
    text = srcgrad.source(srcgrad.grad(by_pieces))
    assert "pieces = np.zeros_like(piecewise_x)" in text and "pieces[piece_condition] = " in text
    text = srcgrad.source(srcgrad.grad(by_a_vectorize_object))
    assert "bump(" in text and "np.ravel(x)" in text


def inside_a_comprehension(x):
    return sum(np.sum(np.vectorize(bump)(x * k, 2.0)) for k in range(2))


excluding = np.vectorize(bump, excluded={1})


def with_excluded(x):
    return np.sum(excluding(x, 2.0))


def conditions_from_elsewhere(x):
    conditions = [x < 0, x >= 0]
    return np.sum(np.piecewise(x, conditions, [lambda v: -v, lambda v: v]))


@pytest.mark.parametrize("fn, message", [
    (inside_a_comprehension, "inside a lambda, a comprehension, .* compute it in a statement of its own first"),
    (with_excluded, "`excluding` is an `np.vectorize` with `excluded=` or `signature=`.* write the loop"),
    (conditions_from_elsewhere, "with the conditions and the functions .* written as lists in the call"),
], ids=lambda v: getattr(v, "__name__", ""))
def test_the_forms_left_are_refused_at_their_line_saying_what_to_write(fn, message):
    with pytest.raises(srcgrad.NotDifferentiableError, match=message) as info:
        srcgrad.grad(fn)(X)
    assert info.value.filename == __file__
