"""Tests of what a module holds (`hasattr(np, "trapz")`), decided when the function is
compiled (compiler/module_tests.py): the branch not taken, calling a function the
installed NumPy does not define, was refused as "cannot find the function `np.trapz`"
(NumPy 2) although it never runs. Gradients against central differences and the
analytic answer in every transform (program_checks); tests of anything else are left
to run, and a missing function in a branch that may run is still refused."""

import numpy as np
import pytest

import srcgrad
from program_checks import check_every_transform

Y = np.array([1.0, 2.5, 4.0, 3.5])


def area_by_expression(y):
    return 2.0 * (np.trapz(y) if hasattr(np, "trapz") else np.trapezoid(y))


def area_by_statement(y):
    if hasattr(np, "trapezoid"):
        area = np.trapezoid(y, dx=0.5)
    else:
        area = np.trapz(y, dx=0.5)
    return area * np.sum(y)


def never_defined(y):
    if not hasattr(np, "srcgrad_no_such_function") and hasattr(np, "sin"):
        total = np.sum(np.sin(y))
    elif hasattr(np, "cos") or hasattr(np, "srcgrad_no_such_function"):
        total = np.sum(np.srcgrad_no_such_function(y))
    return total


def _weights(n, dx):
    w = np.full(n, dx)
    w[[0, -1]] = dx / 2.0
    return w


@pytest.mark.parametrize("fn, expected", [
    (area_by_expression, 2.0 * _weights(4, 1.0)),
    (area_by_statement, _weights(4, 0.5) * np.sum(Y) + np.sum(_weights(4, 0.5) * Y)),
    (never_defined, np.cos(Y)),
], ids=lambda v: getattr(v, "__name__", ""))
def test_the_branch_the_library_takes(fn, expected):
    check_every_transform(fn, Y.copy(), expected)


def a_test_of_a_value(y):
    if y[0] > 100.0:
        return np.sum(np.srcgrad_no_such_function(y))
    return np.sum(y)


def test_a_missing_function_in_a_branch_that_may_run_is_still_refused():
    with pytest.raises(srcgrad.NotDifferentiableError, match="cannot find the function `np.srcgrad_no_such_function`"):
        srcgrad.grad(a_test_of_a_value)(Y)


def test_the_generated_code_keeps_only_the_branch_taken():
    text = srcgrad.source(srcgrad.grad(never_defined))
    assert "sin_y = np.sin(y)" in text and "hasattr" not in text and "srcgrad_no_such_function" not in text
