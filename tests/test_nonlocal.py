"""`nonlocal` in a function nested in the differentiated one stays refused (srcgrad does
not follow a nested function's writes to its enclosing function's variables), with a
message naming the nested function, the names and the rewrite, at the `nonlocal` line,
in every transform; the rewrite it advises is differentiated exactly."""

import numpy as np
import pytest

import srcgrad
from conftest import numerical_grad


def accumulated(x):
    total = 0.0

    def add(v):
        nonlocal total
        total = total + v

    for i in range(3):
        add(np.sum(x * x) * i)
    return total


def accumulated_rewritten(x):
    total = 0.0

    def add(total, v):
        return total + v

    for i in range(3):
        total = add(total, np.sum(x * x) * i)
    return total


@pytest.mark.parametrize("transform", [
    lambda f: srcgrad.grad(f)(np.ones(2)),
    lambda f: srcgrad.value_and_grad(f)(np.ones(2)),
    lambda f: srcgrad.vjp(f, np.ones(2)),
    lambda f: srcgrad.jvp(f, (np.ones(2),), (np.ones(2),)),
    lambda f: srcgrad.jacobian(f)(np.ones(2)),
    lambda f: srcgrad.hessian(f)(np.ones(2)),
], ids=["grad", "value_and_grad", "vjp", "jvp", "jacobian", "hessian"])
def test_nonlocal_in_a_nested_function_is_refused_at_its_line(transform):
    with pytest.raises(srcgrad.SrcGradError, match=r"`nonlocal total` in the nested function `add` is not supported "
                       r".*called as `total = add\(total, \.\.\.\)`") as info:
        transform(accumulated)
    assert info.value.filename.endswith("test_nonlocal.py")
    assert info.value.lineno == accumulated.__code__.co_firstlineno + 4
    assert info.value.text.strip() == "nonlocal total"


def test_the_advised_rewrite_is_differentiated():
    x = np.array([0.5, -2.0, 1.5])
    expected = 3.0 * 2.0 * x  # (0 + 1 + 2) * d/dx sum(x * x)
    np.testing.assert_allclose(numerical_grad(accumulated_rewritten, (x,), 0), expected, rtol=1e-6)
    np.testing.assert_allclose(srcgrad.grad(accumulated_rewritten)(x), expected, rtol=1e-12)
    _, out_dot = srcgrad.jvp(accumulated_rewritten, (x,), (np.ones(3),))
    assert out_dot == pytest.approx(np.sum(expected), rel=1e-12)
    np.testing.assert_allclose(srcgrad.hessian(accumulated_rewritten)(x), 6.0 * np.eye(3), rtol=1e-12)
