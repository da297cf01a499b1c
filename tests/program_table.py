"""The checks of a table of differentiated programs (`{name: (function, arguments)}`),
shared by the test files that hold one (test_rules_more.py, test_more_functions.py,
test_more_forms.py): the gradient of every argument against central differences in
float64, typed like its argument (a float for a float, an array of its shape and dtype
otherwise); jvp against the gradient (the dot-product test); float32 arguments keeping
float32 gradients close to the float64 ones; the arguments left as they were."""

import numpy as np

import srcgrad
from conftest import numerical_grad


def grads(fn, args):
    """The gradients of `fn` with respect to each of `args`, as a tuple."""
    wrt = tuple(range(len(args)))
    g = srcgrad.grad(fn, wrt=wrt if len(wrt) > 1 else 0)(*args)
    return g if len(wrt) > 1 else (g,)


def _copies(args):
    return [a.copy() if isinstance(a, np.ndarray) else a for a in args]


def _unchanged(args, before, name):
    for a, b in zip(args, before):
        np.testing.assert_array_equal(a, b, err_msg=f"{name}: an argument was changed")


def check_grad(name, fn, args):
    before = _copies(args)
    for i, g in enumerate(grads(fn, args)):
        if isinstance(args[i], float):
            assert isinstance(g, float), f"{name}: gradient of a float is {type(g).__name__}"
        else:
            assert isinstance(g, np.ndarray) and g.shape == args[i].shape and g.dtype == np.float64, name
        np.testing.assert_allclose(g, numerical_grad(fn, args, i), rtol=1e-5, atol=1e-6, err_msg=name)
    _unchanged(args, before, name)


def check_jvp(name, fn, args):
    before = _copies(args)
    rng = np.random.default_rng(5)
    tangents = [float(rng.standard_normal()) if isinstance(a, float) else rng.standard_normal(a.shape) for a in args]
    out, out_dot = srcgrad.jvp(fn, tuple(args), tuple(tangents))
    np.testing.assert_allclose(out, fn(*args), rtol=1e-12, err_msg=name)
    backward = sum(float(np.sum(g * t)) for g, t in zip(grads(fn, args), tangents))
    np.testing.assert_allclose(float(out_dot), backward, rtol=1e-8, atol=1e-10, err_msg=name)
    _unchanged(args, before, name)


def check_float32(name, fn, args):
    args32 = [a if isinstance(a, float) else a.astype(np.float32) for a in args]
    for a, g32, g64 in zip(args, grads(fn, args32), grads(fn, args)):
        if isinstance(a, float):
            assert isinstance(g32, float)
        else:
            assert g32.dtype == np.float32 and g32.shape == a.shape, (name, g32.dtype, g32.shape)
        np.testing.assert_allclose(g32, g64, rtol=2e-3, atol=2e-3, err_msg=name)
