"""Checks of a differentiated program shared by the test files of single constructs
(test_walrus.py, test_get_sorted.py): the gradient of every argument against central
differences and the analytic answer, jvp against the gradient (the dot-product test),
the arguments left as they were, and a Hessian block against differences of the
gradient."""

import copy

import numpy as np

import srcgrad
from conftest import numerical_grad


def _tangent(arg, rng):
    if isinstance(arg, dict):
        return {k: _tangent(v, rng) for k, v in arg.items()}
    if isinstance(arg, np.ndarray):
        return rng.normal(size=arg.shape)
    return float(rng.normal())


def _dot(g, t):
    if isinstance(g, dict):
        return sum(_dot(g[k], t[k]) for k in g)
    return float(np.sum(np.asarray(g) * np.asarray(t)))


def check(fn, *args, expected=None):
    """Gradient (all arguments) against differences and `expected`, jvp against it, and
    the arguments unchanged; returns the gradients."""
    before = copy.deepcopy(args)
    wrt = tuple(range(len(args)))
    grads = srcgrad.grad(fn, wrt=wrt)(*args)
    for i, (arg, g) in enumerate(zip(args, grads)):
        if isinstance(arg, dict):
            continue  # checked entry by entry by the tests that pass dicts
        assert type(g) is type(arg) and np.shape(g) == np.shape(arg)
        np.testing.assert_allclose(g, numerical_grad(fn, args, i), rtol=1e-6, atol=1e-7)
    if expected is not None:
        for g, e in zip(grads, expected):
            np.testing.assert_allclose(g, e, rtol=1e-12, atol=1e-12)
    tangents = tuple(_tangent(a, np.random.default_rng(0)) for a in args)
    out, out_dot = srcgrad.jvp(fn, args, tangents)
    np.testing.assert_allclose(out, fn(*args), rtol=1e-12)
    np.testing.assert_allclose(out_dot, sum(_dot(g, t) for g, t in zip(grads, tangents)), rtol=1e-9, atol=1e-12)
    for a, b in zip(args, before):
        if isinstance(a, dict):
            assert a.keys() == b.keys() and all(np.array_equal(a[k], b[k]) for k in a)
        else:
            np.testing.assert_array_equal(a, b)
    return grads


def check_hessian(fn, args, wrt, expected=None):
    """The Hessian block `wrt` x `wrt` against central differences of the gradient."""
    h = srcgrad.hessian(fn, wrt=wrt)(*args)
    gradient = srcgrad.grad(fn, wrt=wrt)
    x = np.asarray(args[wrt], dtype=np.float64)
    numeric = np.zeros(x.shape + x.shape)
    for k in np.ndindex(x.shape):
        shifted = []
        for step in (1e-5, -1e-5):
            moved = x.copy()
            moved[k] += step
            a = list(args)
            a[wrt] = moved if isinstance(args[wrt], np.ndarray) else float(moved)
            shifted.append(np.asarray(gradient(*a)))
        numeric[(Ellipsis,) + k] = (shifted[0] - shifted[1]) / 2e-5
    np.testing.assert_allclose(h, numeric.reshape(np.shape(h)), rtol=1e-5, atol=1e-6)
    if expected is not None:
        np.testing.assert_allclose(h, expected, rtol=1e-12, atol=1e-12)


def check_every_transform(fn, x, expected=None):
    """`check` of the one-argument `fn` at the array `x`, then the same gradient from the
    second call (the code specialized to this kind of call), `value_and_grad`, `vjp`'s
    pullback and `jacobian` in both modes, with values equal to the function's, and its
    Hessian against differences; `x` left as it was. Returns the gradient."""
    before = x.copy()
    (g,) = check(fn, x, expected=None if expected is None else (expected,))
    assert g.dtype == np.float64 and g.shape == x.shape
    np.testing.assert_array_equal(srcgrad.grad(fn)(x), g)
    value, (g2,) = srcgrad.value_and_grad(fn, wrt=(0,))(x)
    assert value == fn(x.copy())
    np.testing.assert_array_equal(g2, g)
    out, pullback = srcgrad.vjp(fn, x)
    assert out == fn(x.copy())
    np.testing.assert_allclose(pullback(1.0)[0], g, rtol=1e-12)
    for mode in ("forward", "reverse"):
        np.testing.assert_allclose(srcgrad.jacobian(fn, mode=mode)(x), g, rtol=1e-12)
    check_hessian(fn, (x,), 0)
    np.testing.assert_array_equal(x, before)
    return g


def _differentiated(arg):
    return isinstance(arg, float) or (isinstance(arg, np.ndarray) and arg.dtype.kind == "f")


def check_program(fn, args, hessian=True, float32=True, forward=True):
    """A program with arguments of any kind, differentiated with respect to its float and
    float-array ones (an int, a bool or an int array is passed along): each gradient typed
    like its argument and against central differences, the same from the second call,
    `value_and_grad`, `vjp`'s pullback and jvp (the dot-product test) agreeing with it, the
    arguments unchanged (jvp only where `forward`: custom rules without a forward one);
    where asked, the Hessian block of the first one against
    differences of the gradient, and float32 arrays given float32 gradients close to the
    float64 ones. Returns the gradients."""
    before = copy.deepcopy(args)
    wrt = tuple(i for i, a in enumerate(args) if _differentiated(a))
    gradient = srcgrad.grad(fn, wrt=wrt)
    grads = gradient(*args)
    for i, g in zip(wrt, grads):
        assert type(g) is type(args[i]) and np.shape(g) == np.shape(args[i]), (i, type(g), np.shape(g))
        assert np.asarray(g).dtype == np.float64
        np.testing.assert_allclose(g, numerical_grad(fn, args, i), rtol=1e-5, atol=1e-6)
    for again, g in zip(gradient(*args), grads):
        np.testing.assert_array_equal(again, g)
    value, same = srcgrad.value_and_grad(fn, wrt=wrt)(*args)
    np.testing.assert_allclose(value, fn(*copy.deepcopy(args)), rtol=1e-12)
    out, pullback = srcgrad.vjp(fn, *args)
    pulled = pullback(1.0)
    for i, g, g2 in zip(wrt, grads, same):
        np.testing.assert_array_equal(g2, g)
        np.testing.assert_allclose(pulled[i], g, rtol=1e-10, atol=1e-12)
    if forward:
        rng = np.random.default_rng(0)
        tangents = tuple(_tangent(a, rng) if _differentiated(a) else None for a in args)
        out, out_dot = srcgrad.jvp(fn, args, tangents)
        np.testing.assert_allclose(out, value, rtol=1e-12)
        np.testing.assert_allclose(out_dot, sum(_dot(g, tangents[i]) for i, g in zip(wrt, grads)), rtol=1e-8, atol=1e-10)
    for a, b in zip(args, before):
        np.testing.assert_array_equal(a, b)
    if hessian:
        check_hessian(fn, args, wrt[0])
    if float32 and any(isinstance(args[i], np.ndarray) for i in wrt):
        narrowed = [a.astype(np.float32) if i in wrt and isinstance(a, np.ndarray) else a for i, a in enumerate(args)]
        for i, g32, g in zip(wrt, srcgrad.grad(fn, wrt=wrt)(*narrowed), grads):
            assert type(g32) is type(g) and np.asarray(g32).dtype == np.asarray(narrowed[i]).dtype, (i, type(g32))
            np.testing.assert_allclose(g32, g, rtol=2e-3, atol=2e-3)
    return grads
