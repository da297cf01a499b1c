"""Regressions from a hunt for wrong derivatives in functions passed as arguments, methods
of record arguments, containers of arrays and choices between functions: each compared
with central differences and an answer derived by hand."""

import dataclasses

import numpy as np
import pytest

import srcgrad
from conftest import numerical_grad

X = np.array([0.3, -0.7, 1.1])
W = np.array([0.5, 1.5, -0.3])


@dataclasses.dataclass
class Layer:
    w: np.ndarray
    b: float

    def apply(self, x):
        return np.tanh(self.w * x) + self.b


def layer_loss(x, p):
    return np.sum(p.apply(x) ** 2)


def test_an_attribute_set_on_a_later_instance_is_refused_by_a_warm_derivative():
    # the check of an instance's own attributes ran once per kind of call: a later record
    # of the same class whose `apply` was set on the instance got the class's derivative
    g = srcgrad.grad(layer_loss)
    p = Layer(W, 0.2)
    t = np.tanh(W * X)
    expected = 2 * (t + 0.2) * (1 - t * t) * W
    assert np.allclose(g(X, p), expected)
    assert np.allclose(g(X, p), numerical_grad(layer_loss, (X, p), 0), atol=1e-6)
    shadowed = Layer(W, 0.2)
    shadowed.apply = lambda x: x ** 2
    assert np.allclose(numerical_grad(layer_loss, (X, shadowed), 0), 4 * X ** 3, atol=1e-5)
    with pytest.raises(srcgrad.NotDifferentiableError, match="attribute `apply` of its own"):
        g(X, shadowed)
    assert np.allclose(g(X, p), expected)  # the class's own records still run
