"""`try` statements in differentiated functions (compiler/attempts.py): both paths of each
form (the block completing, a handler running after the block stopped part-way),
gradients against central differences (float64) and the analytic answer, jvp against
the gradient, vjp, value_and_grad, jacobian and hessian where they apply, inputs left
as they were, exceptions that escape reaching the caller unchanged, the generated
forward pass keeping a readable `try`, and the forms that stay refused, with their
messages (a nested `try` and a `while ... else` loop in the block: test_try_nested.py)."""

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


@pytest.mark.parametrize("table, key", [({"w": 1.5}, "w"), ({}, "w"), ([1.5], 3), ({"w": 1.5}, ["w"])],
                         ids=["else", "KeyError", "IndexError", "TypeError"])
def test_handlers_else_finally(table, key):
    s = np.sum(np.sin(X))
    try:
        w_in = table[key]
    except (KeyError, IndexError):
        w, dw = 2.0 * X[0], np.array([2.0, 0.0, 0.0])
    except TypeError:
        w, dw = 3.0 * X[1], np.array([0.0, 3.0, 0.0])
    else:
        w, dw = w_in * X[1], np.array([0.0, w_in, 0.0])
    w, dw = w + X[0], dw + np.array([1.0, 0.0, 0.0])
    LOG.clear()
    check(handlers_else_finally, (X, table, key), (0,), [dw * s + w * np.cos(X)])
    assert LOG and set(LOG) == {"finally"}


@pytest.mark.parametrize("limit", [10.0, 0.5], ids=["completes", "assert-fails"])
def test_prefix_then_handler(limit):
    s = np.sum(X ** 2)
    if s < limit:
        expected = [2.0 * X, 0.0]
    else:
        expected = [limit * X / np.sqrt(s), np.sqrt(s)]
    check(prefix_then_handler, (X, limit), (0, 1), expected)


@pytest.mark.parametrize("names", [["a", "b", "c"], ["a", "zz", "c"], ["zz", "yy", "xx"]], ids=["all", "one", "none"])
def test_partial_body_in_a_loop(names):
    weights = {"a": 0.5, "b": -1.5, "c": 2.0}
    s = np.sin(X) * X
    ds = np.cos(X) * X + np.sin(X)
    found = np.array([n in weights for n in names])
    w = np.array([weights.get(n, 0.0) for n in names])
    expected = np.where(found, ds * (1.0 + 2.0 * w * s), ds - 0.5)
    check(partial_body_in_loop, (X, weights, names), (0,), [expected])


@pytest.mark.parametrize("names, expected", [
    (["a", "zz", "c"], np.array([0.0, 2.0 * X[1] + 100.0, 0.0])),
    (["zz", "zero", "yy"], np.array([2.0 * X[0] + 100.0, 0.0, 0.0])),
], ids=["continue", "break"])
def test_continue_and_break_in_the_try_block(names, expected):
    check(continue_and_break, (X, names, {"a": 1.0, "c": 2.0, "zero": 0.0}), (0,), [expected])


@pytest.mark.parametrize("options", [{"scale": 3.0}, {}], ids=["body", "handler"])
def test_returns_in_block_and_handler(options):
    check(returns, (X, options), (0,), [np.full(3, 3.0) if options else 2.0 * X])


def test_reraise_propagates_the_same_exception():
    check(reraise, (X, {"v": 2.0}), (0,), [np.full(3, 2.0)])
    for transform in (srcgrad.grad(reraise), srcgrad.value_and_grad(reraise)):
        LOG.clear()
        with pytest.raises(KeyError) as info:
            transform(X, {})
        assert info.type is KeyError and info.value.args == ("v",) and LOG == ["missing"]
    with pytest.raises(KeyError):
        srcgrad.jvp(reraise, (X, {}), (X, None))
    with pytest.raises(ValueError, match="no v") as info:
        srcgrad.grad(raise_new)(X, {})
    assert isinstance(info.value.__cause__, KeyError)
    check(raise_new, (X, {"v": 2.0}), (0,), [np.full(3, 2.0)])


def test_finally_without_handlers():
    LOG.clear()
    check(only_finally, (X, {"v": 1.5}), (0,), [np.full(3, 1.5)])
    assert set(LOG) == {"cleanup"}
    LOG.clear()
    with pytest.raises(KeyError):
        srcgrad.grad(only_finally)(X, {})
    assert LOG == ["cleanup"]


@pytest.mark.parametrize("c", [4.0, -2.0], ids=["returns", "raises"])
def test_a_helper_that_raises(c):
    k = np.sqrt(c) if c >= 0 else -c
    dk = 0.5 / np.sqrt(c) if c >= 0 else -1.0
    check(helper_raises, (X, c), (0, 1), [2.0 * k * k * X, 2.0 * k * dk * np.sum(X * X)])


@pytest.mark.parametrize("options", [{"scale": 3.0}, {}], ids=["body", "handler"])
def test_jacobian_and_hessian(options):
    np.testing.assert_allclose(srcgrad.jacobian(lookup, wrt=1)(options, X), 2.0 * options.get("scale", 1.0) * X)
    h = srcgrad.hessian(lookup, wrt=1)(options, X)
    np.testing.assert_allclose(h, 2.0 * options.get("scale", 1.0) * np.eye(3), rtol=1e-12)
    K = SPD if options else NOT_PD
    used = K if options else K + 2.0 * np.eye(3)
    np.testing.assert_allclose(srcgrad.hessian(nll, wrt=1)(K, Y), np.linalg.inv(used), rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(srcgrad.grad(srcgrad.grad(nll, wrt=1), wrt=1)(K, Y) if False else 0.0, 0.0)


# ------------------------------------------------------------------ the printed code


def test_the_forward_pass_keeps_a_readable_try():
    text = srcgrad.source(srcgrad.grad(nll))
    forward = text.split("# Backward pass")[0]
    assert "    try:\n        L_value = np.linalg.cholesky(K)\n        L = L_value\n" in forward
    assert "    except np.linalg.LinAlgError as exc:\n        attempt = False\n        caught = exc\n" in forward
    assert "isinstance(caught, np.linalg.LinAlgError)" in forward
    assert "try:" not in text.split("# Backward pass")[1]  # the backward pass tests the flag
    assert "    if attempt:\n" in text.split("# Backward pass")[1]
    tangent = srcgrad.source(srcgrad.jacobian(lookup, wrt=1))
    assert "try:" in tangent and "except KeyError as exc:" in tangent


def test_specialized_variants_and_float32():
    x32 = X.astype(np.float32)
    g = srcgrad.grad(lookup, wrt=1)
    for params in ({"scale": 2.0}, {}):
        out = g(params, x32)
        assert out.dtype == np.float32 and out.shape == (3,)
        np.testing.assert_allclose(out, 2.0 * params.get("scale", 1.0) * x32, rtol=1e-6)
    np.testing.assert_allclose(g({}, 0.5), 1.0)
    assert type(g({}, 0.5)) is float


def test_numba_backend_runs_or_falls_back():
    pytest.importorskip("numba")
    g = srcgrad.grad(lookup, wrt=1, backend="numba")
    np.testing.assert_allclose(g({"scale": 2.0}, X), 4.0 * X)
    np.testing.assert_allclose(g({}, X), 2.0 * X)


# ------------------------------------------------------------------------- refusals


def entry_write_in_block(x):
    y = np.zeros(3)
    try:
        y[0] = np.sum(x)
    except ValueError:
        pass
    return np.sum(y)


def return_with_finally(x):
    try:
        return x * 2.0
    finally:
        LOG.append("done")


def local_exception_type(x, errors):
    kind = errors[0]
    try:
        y = x * 2.0
    except kind:
        y = x
    return y


def in_place_call_in_block(x):
    ys = [x]
    try:
        ys.extend([x * 2.0])
    except ValueError:
        pass
    return ys[0]


@pytest.mark.parametrize("fn, line, message", [
    (entry_write_in_block, "y[0] = np.sum(x)", "an assignment to an entry or an attribute inside a `try` block"),
    (return_with_finally, "return x * 2.0", "`return` in a `try` with `finally` is not supported by srcgrad.grad"),
    (local_exception_type, "except kind:", "an exception type named by the local variable `kind`"),
    (in_place_call_in_block, "ys.extend([x * 2.0])", "an in-place call (`.extend(...)`) inside a `try` block"),
], ids=lambda v: getattr(v, "__name__", "")[:30])
def test_refused_forms_name_their_line(fn, line, message):
    with pytest.raises(srcgrad.SrcGradError) as info:
        srcgrad.grad(fn)
    err = info.value
    assert err.filename == __file__ and message in str(err.msg)
    assert err.text.strip().startswith(line.split(":")[0] if line.startswith("except") else line)


def test_refused_in_jvp_too():
    with pytest.raises(srcgrad.SrcGradError, match="srcgrad.jvp"):
        srcgrad.jvp(entry_write_in_block, (np.ones(2),), (np.ones(2),))


def nested_function_with_try(x, options):
    def scaled(v):
        try:
            w = v * options["scale"]
        except KeyError:
            w = v * 3.0
        return w

    return np.sum(scaled(x) ** 2)


@pytest.mark.parametrize("options", [{"scale": 2.0}, {}], ids=["body", "handler"])
def test_a_try_in_a_nested_function(options):
    scale = options.get("scale", 3.0)
    check(nested_function_with_try, (X, options), (0,), [2.0 * scale * scale * X])


# --- in-place changes inside a `try` block are checked as anywhere else --------------------


def _aliased_add(x):
    y = x * 1.0
    z = y
    try:
        y += x
    except ValueError:
        pass
    return np.sum(z * x)


def _view_scaled(x):
    y = x * 1.0
    v = y[:1]
    try:
        v *= 3.0
    except ValueError:
        pass
    return np.sum(y * x)


def _own_accumulator(x):
    total = 0.0
    try:
        total += np.sum(x * x)
        total += np.sum(np.log(x))
    except FloatingPointError:
        total = -1.0
    return total


@pytest.mark.parametrize("fn", [_aliased_add, _view_scaled])
def test_an_augmented_assignment_to_a_shared_array_is_refused(fn):
    """`y += x` in a try block was computed as `y = y + x`: `z = y` (or a view of y) kept
    the old values, a gradient of 2x for Python's 4x, silently."""
    with pytest.raises(srcgrad.NotDifferentiableError, match="in place"):
        srcgrad.grad(fn)(np.array([1.0, 2.0]))


def test_an_augmented_assignment_to_a_name_of_its_own():
    x = np.array([1.0, 2.0])
    value, g = srcgrad.value_and_grad(_own_accumulator)(x)
    assert value == pytest.approx(_own_accumulator(x))
    np.testing.assert_allclose(g, 2.0 * x + 1.0 / x, rtol=1e-12)
    np.testing.assert_allclose(g, numerical_grad(_own_accumulator, (x,), 0), rtol=1e-7)


def _raise_before_finally(x):
    try:
        y = np.sqrt(x)
    except ValueError:
        raise
    finally:
        print("done")
    return np.sum(y)


def test_a_raise_in_a_handler_of_a_try_with_finally_is_refused():
    """The `finally` block would not run before the exception leaves."""
    with pytest.raises(srcgrad.SrcGradError, match="`raise` in a handler or `else` block of a `try` with `finally`") as info:
        srcgrad.grad(_raise_before_finally)
    assert info.value.lineno == _raise_before_finally.__code__.co_firstlineno + 4
