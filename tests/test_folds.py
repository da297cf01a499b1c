"""`functools.reduce` as the loop it stands for (compiler/folds.py): each form against
differences, the analytic answer and forward mode; the Hessian through it; forms it
does not spell out stay refused as a call with no rule."""

import functools
import operator
from functools import reduce

import numpy as np
import pytest

import srcgrad
from program_checks import check, check_hessian

A = np.array([[1.0, 2.0], [0.5, -1.0]])
X = np.array([1.0, 2.0, 3.0])


def chain_product(A, B):
    return np.trace(functools.reduce(np.dot, [A, B, A]))


def affine_fold(x):
    return reduce(lambda a, b: a * b + 1.0, [x, x, 2.0], 1.0)


def product_of_entries(xs):
    return reduce(operator.mul, xs)


def fold_in_a_loop(xs):
    total = 0.0
    for k in range(2):
        total += reduce(lambda a, b: a + b * (k + 1), xs)
    return total


def running_maximum(x):
    m = reduce(np.maximum, [x, 2.0 * x, 3.0 * x])
    return np.sum(m)


def lambda_with_a_scope(x):
    return reduce(lambda a, b: sum(v * v for v in [a, b]), [x, 2.0 * x])


def helper_fold(xs, w):
    return reduce(_blend, xs, w)


def _blend(acc, v):
    return 0.5 * acc + np.tanh(v)


def test_matrix_chain():
    B = np.array([[0.3, -0.2], [1.1, 0.4]])
    # tr(A B A): d/dA = (B A)^T + (A B)^T, d/dB = (A A)^T
    check(chain_product, A, B, expected=[(B @ A).T + (A @ B).T, (A @ A).T])


def test_lambda_and_initial_value():
    x = 3.0
    check(affine_fold, x, expected=[4.0 * x + 2.0])  # ((x + 1) x + 1) 2 + 1
    check_hessian(affine_fold, (x,), 0, expected=4.0)


def test_operator_function_without_initial_value():
    check(product_of_entries, X, expected=[np.prod(X) / X])


def test_a_fold_in_a_loop_reads_the_loop_variable():
    check(fold_in_a_loop, X, expected=[np.array([2.0, 3.0, 3.0])])


def test_numpy_maximum():
    x = np.array([1.0, -1.0])
    check(running_maximum, x, expected=[np.array([3.0, 1.0])])


def test_a_lambda_with_a_scope_of_its_own_is_named_first():
    check(lambda_with_a_scope, 3.0, expected=[2.0 * 3.0 + 8.0 * 3.0])  # x^2 + (2x)^2 summed: d = 2x + 8x


def test_a_function_of_the_users():
    w = 0.2
    expected_x = np.array([0.25, 0.5, 1.0]) * (1.0 - np.tanh(X) ** 2)  # each item halved by the later steps
    check(helper_fold, X, w, expected=[expected_x, 0.125])


def test_an_empty_sequence_without_an_initial_value_raises_as_python_does():
    with pytest.raises(TypeError, match=r"reduce\(\) of empty iterable with no initial value"):
        srcgrad.grad(product_of_entries)(np.zeros(0))


def test_the_generated_loop_reads_as_the_fold():
    text = srcgrad.source(srcgrad.grad(chain_product))
    assert "for i in range(len(items_part)):" in text and "dot_reduced = np.dot(reduced, item)" in text


def _after_a_call(xs):
    return np.sum(np.exp(xs)) + reduce(operator.add, xs)


def _keyword_function(xs):
    return reduce(function=operator.add, sequence=xs)


def _calls_in_order(xs, log):
    return _logged(log, "left", np.sum(xs)) * reduce(lambda a, b: a * _logged(log, "step", b), xs) + _logged(
        log, "right", 1.0)


def _logged(log, what, value):
    log.append(what)
    return value


def test_a_fold_after_a_call_in_its_statement_runs_after_it():
    # f = sum(exp(x)) + x0 + x1 + x2
    g = srcgrad.grad(_after_a_call)(X)
    np.testing.assert_allclose(g, np.exp(X) + 1.0, rtol=1e-13)
    check(_after_a_call, X, expected=(np.exp(X) + 1.0,))
    # each call once, in Python's order: the left operand, the fold's steps, the right operand
    log = []
    g = srcgrad.grad(_calls_in_order)(X, log)
    assert log == ["left", "step", "step", "right"]
    # f = (x0 + x1 + x2) * x0 * x1 * x2 + 1
    s, p = X.sum(), X.prod()
    np.testing.assert_allclose(g, p + s * p / X, rtol=1e-13)
    assert "operand = " in srcgrad.source(srcgrad.grad(_after_a_call))


def test_a_fold_by_keywords_stays_refused():
    with pytest.raises(srcgrad.NotDifferentiableError, match="reduce"):
        srcgrad.grad(_keyword_function)(X)


def _fold_in_try(xs):
    try:
        p = reduce(lambda a, b: a * b, xs)
    except ValueError:
        p = xs[0]
    return np.sum(p)


def test_a_fold_inside_a_try_block_is_refused_under_its_own_name():
    with pytest.raises(srcgrad.SrcGradError, match=r"`functools.reduce` \(it runs as a loop\) inside a `try` block") as info:
        srcgrad.grad(_fold_in_try)(X)
    assert "test_folds.py, line" in str(info.value)


def _conditional_fold(xs, first):
    return xs[0] if first else reduce(lambda a, b: a * b, xs)


def test_a_fold_of_a_lambda_run_conditionally_is_refused_as_such():
    with pytest.raises(srcgrad.SrcGradError, match=r"`functools.reduce` of a `lambda` inside a conditional expression") as info:
        srcgrad.grad(_conditional_fold)(X, False)
    assert "compute it in a statement of its own first" in str(info.value)
    assert "test_folds.py, line" in str(info.value)
