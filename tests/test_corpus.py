"""Every corpus function: gradient of each argument against central finite differences."""

import inspect

import numpy as np
import pytest

import srcgrad
from conftest import numerical_grad

import corpus

rng = np.random.default_rng(1)
INPUTS = {
    "a": [0.7, -0.4, 1.6],
    "b": [0.3, 1.2, -0.8],
    "x": [rng.normal(size=3) for _ in range(3)],
    "y": [rng.normal(size=3) for _ in range(3)],
    "M": [rng.normal(size=(3, 3)) for _ in range(3)],
    "W": [rng.normal(size=(3, 3)) * 0.5 for _ in range(3)],
}


def _cases():
    for fn in corpus.ALL:
        names = list(inspect.signature(fn).parameters)
        for k in range(3):
            yield pytest.param(fn, [INPUTS[n][k] for n in names], id=f"{fn.__name__}-{k}")


@pytest.mark.parametrize("fn, args", _cases())
def test_gradient_matches_finite_differences(fn, args):
    originals = [np.copy(a) for a in args]
    wrt = tuple(range(len(args)))
    grads = srcgrad.grad(fn, wrt=wrt)(*args)
    for i, (arg, g) in enumerate(zip(args, grads)):
        expected = numerical_grad(fn, args, i)
        assert type(g) is type(arg)
        assert np.shape(g) == np.shape(arg)
        np.testing.assert_allclose(g, expected, rtol=1e-5, atol=1e-6)
    for a, o in zip(args, originals):
        np.testing.assert_array_equal(a, o)  # inputs are not mutated


@pytest.mark.parametrize("fn", corpus.ALL, ids=lambda f: f.__name__)
def test_value_and_grad_value_is_the_function_value(fn):
    names = list(inspect.signature(fn).parameters)
    args = [INPUTS[n][0] for n in names]
    value, _ = srcgrad.value_and_grad(fn)(*args)
    np.testing.assert_allclose(value, fn(*args))
