"""`try` statements in differentiated functions (compiler/attempts.py): both paths of each
form (the block completing, a handler running after the block stopped part-way),
gradients against central differences (float64) and the analytic answer, jvp against
the gradient, vjp, value_and_grad, jacobian and hessian where they apply, inputs left
as they were, exceptions that escape reaching the caller unchanged, the generated
forward pass keeping a readable `try`, and the forms that stay refused, with their
messages."""

import copy

import numpy as np
import pytest

import srcgrad
from conftest import numerical_grad

LOG = []  # what `finally` blocks ran (appended to, never rebound)

# ---------------------------------------------------------------------------- programs


def nll(K, y):
    try:
        L = np.linalg.cholesky(K)
    except np.linalg.LinAlgError:
        L = np.linalg.cholesky(K + 2.0 * np.eye(len(K)))
    a = np.linalg.solve(L, y)
    return 0.5 * a @ a + np.sum(np.log(np.diag(L)))


def lookup(params, x):
    try:
        scale = params["scale"]
    except KeyError:
        scale = 1.0
    return scale * np.sum(x ** 2)


def handlers_else_finally(x, table, key):
    try:
        w = table[key]
    except (KeyError, IndexError) as e:
        w = 2.0 * x[0]
    except TypeError:
        w = 3.0 * x[1]
    else:
        w = w * x[1]
    finally:
        LOG.append("finally")
        w = w + x[0]
    return w * np.sum(np.sin(x))


def prefix_then_handler(x, limit):
    try:
        s = np.sum(x ** 2)
        assert s < limit, "too large"
        y = s
    except AssertionError:
        y = np.sqrt(s) * limit
    return y


def partial_body_in_loop(x, weights, names):
    total = 0.0
    for i in range(len(names)):
        try:
            s = np.sin(x[i]) * x[i]
            total = total + s
            w = weights[names[i]]
            total = total + w * s * s
        except KeyError:
            total = total - 0.5 * x[i]
    return total


def continue_and_break(x, names, weights):
    total = 0.0
    for i in range(len(names)):
        try:
            w = weights[names[i]]
            if_zero = 1.0 / w
            continue
        except KeyError:
            total = total + x[i] ** 2
        except ZeroDivisionError:
            break
        total = total + 100.0 * x[i]  # only after a KeyError
    return total


def returns(x, options):
    try:
        return np.sum(x * options["scale"])
    except KeyError:
        return np.sum(x ** 2)


def reraise(x, options):
    try:
        v = options["v"]
    except KeyError:
        LOG.append("missing")
        raise
    return v * np.sum(x)


def raise_new(x, options):
    try:
        v = options["v"]
    except KeyError as e:
        raise ValueError("no v") from e
    return v * np.sum(x)


def only_finally(x, options):
    try:
        v = options["v"] * x
    finally:
        LOG.append("cleanup")
    return np.sum(v)


def _fail_if_negative(v):
    if v < 0.0:
        raise ValueError("negative")
    return np.sqrt(v)


def helper_raises(x, c):
    try:
        r = _fail_if_negative(c) * x
    except ValueError:
        r = -c * x
    return np.sum(r * r)


# --------------------------------------------------------------------------- checking


def _dot(g, t):
    if isinstance(g, dict):
        return sum(_dot(g[k], t[k]) for k in g)
    return float(np.sum(np.asarray(g) * np.asarray(t)))


def check(fn, args, wrt, expected):
    """Gradients `wrt` against differences and `expected`, value_and_grad, vjp, jvp (the
    dot-product test), exact types, shapes and dtypes, the arguments unchanged."""
    before = copy.deepcopy(args)
    grads = srcgrad.grad(fn, wrt=wrt)(*args)
    value, again = srcgrad.value_and_grad(fn, wrt=wrt)(*args)
    np.testing.assert_allclose(value, fn(*args), rtol=1e-12)
    out, pullback = srcgrad.vjp(fn, *args)
    np.testing.assert_allclose(out, value, rtol=1e-12)
    pulled = pullback(1.0)
    tangents, total = [], 0.0
    for i, g, g2, e in zip(wrt, grads, again, expected):
        arg = args[i]
        assert type(g) is type(arg) and np.shape(g) == np.shape(arg) and np.asarray(g).dtype == np.asarray(arg).dtype
        np.testing.assert_allclose(g, numerical_grad(fn, args, i), rtol=1e-6, atol=1e-7)
        np.testing.assert_allclose(g, e, rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(g2, g, rtol=1e-12, atol=0)
        np.testing.assert_allclose(pulled[i], g, rtol=1e-12, atol=0)
    rng = np.random.default_rng(0)
    tangents = [rng.normal(size=np.shape(args[i])) if isinstance(args[i], np.ndarray) else float(rng.normal()) for i in wrt]
    given = [tangents[wrt.index(i)] if i in wrt else None for i in range(len(args))]
    primal, out_dot = srcgrad.jvp(fn, tuple(args), tuple(given))
    np.testing.assert_allclose(primal, value, rtol=1e-12)
    np.testing.assert_allclose(out_dot, sum(_dot(g, t) for g, t in zip(grads, tangents)), rtol=1e-9, atol=1e-12)
    for a, b in zip(args, before):
        if isinstance(a, np.ndarray):
            np.testing.assert_array_equal(a, b)
        else:
            assert a == b
    return grads


# ---------------------------------------------------------------------------- tests

RNG = np.random.default_rng(7)
A = RNG.normal(size=(3, 3))
SPD = A @ A.T + 3.0 * np.eye(3)
NOT_PD = np.diag([1.0, -0.5, 2.0]) + 0.1 * np.ones((3, 3))
Y = RNG.normal(size=3)
X = np.array([0.3, -0.7, 1.1])


@pytest.mark.parametrize("K", [SPD, NOT_PD], ids=["cholesky", "fallback"])
def test_cholesky_fallback(K):
    used = K if K is SPD else K + 2.0 * np.eye(3)
    with pytest.raises(np.linalg.LinAlgError) if K is NOT_PD else _nothing():
        np.linalg.cholesky(K)
    (g_y,) = check(nll, (K, Y), (1,), [np.linalg.solve(used, Y)])
    (g_K,) = srcgrad.grad(nll)(K, Y), 
    np.testing.assert_allclose(g_K, numerical_grad(nll, (K, Y), 0), rtol=1e-6, atol=1e-7)


class _nothing:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


@pytest.mark.parametrize("params", [{"scale": 2.5}, {"other": 1.0}], ids=["found", "missing"])
def test_dict_lookup(params):
    scale = params.get("scale", 1.0)
    check(lookup, (params, X), (1,), [2.0 * scale * X])
    (g_params,) = srcgrad.grad(lookup)(params, X),
    expected = {k: (np.sum(X ** 2) if k == "scale" else 0.0) for k in params}
    assert g_params.keys() == expected.keys()
    for k in expected:
        np.testing.assert_allclose(g_params[k], expected[k], rtol=1e-12)
