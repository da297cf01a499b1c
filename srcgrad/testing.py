"""Checking derivatives: `check_grad(f, *args, wrt=...)`; and, for the Tensor shim,
`assert_close` as `torch.testing.assert_close` (tensor/closeness.py).

Two independent checks, both in float64:

1. **Finite differences.** The reverse-mode derivative (`srcgrad.grad` for a
   scalar output, `srcgrad.vjp` with a random cotangent `v` otherwise) is compared
   element by element with the central difference
   `(<v, f(x + eps e_k)> - <v, f(x - eps e_k)>) / (2 eps)`.
2. **Dot-product test** (when `srcgrad.jvp` exists). For random tangents `u` of the
   checked arguments and a random cotangent `v`, forward mode gives `<v, J u>` and
   reverse mode gives `<J^T v, u>`; the two numbers must agree.

Invariant: `check_grad` never changes its arguments; it returns None when both
checks pass and otherwise raises an `AssertionError` naming the argument, the
worst element, its index, and both values.
"""

import inspect
import numbers

import numpy as np

from .tensor.closeness import assert_close

__all__ = ["check_grad", "assert_close"]


def check_grad(f, *args, wrt=0, rtol=1e-5, atol=1e-6, eps=1e-6, seed=0):
    """Assert that srcgrad's derivative of `f` at `args` matches finite differences.

    `wrt` is a parameter index or name, or a tuple of them (as for `srcgrad.grad`).
    Differentiated arguments must be floats or float arrays; they are converted to
    float64 for the check. An element passes when
    `|derivative - finite difference| <= atol + rtol * |finite difference|`
    (NaN matches NaN). `seed` fixes the random cotangent and tangents.

    Example, in a test module:

        def loss(w, x):
            return np.sum(np.tanh(x @ w) ** 2)

        def test_loss():
            check_grad(loss, np.ones(3), np.eye(3), wrt=("w", "x"))
    """
    import srcgrad
    from srcgrad.compiler import varargs

    if varargs.takes_varargs(f):  # `def total(*xs)`: checked as written out for these arguments
        f = varargs.variant(f, len(args), ())
    names = _parameter_names(f)
    positions = _positions(f, names, wrt)
    args = list(args)
    for i in positions:
        args[i] = _as_float64(f, names, i, args[i])
    rng = np.random.default_rng(seed)
    out = f(*args)
    if isinstance(out, (list, tuple, dict)):
        raise TypeError(
            f"check_grad checks functions returning a float or an array; `{f.__name__}` returned a "
            f"{type(out).__name__}: check a function of its entries (e.g. one returning their sum)"
        )
    scalar = np.ndim(out) == 0
    cotangent = 1.0 if scalar else rng.standard_normal(np.shape(out))

    reverse = _reverse(srcgrad, f, args, positions, scalar, cotangent)
    for i, g in zip(positions, reverse):
        numeric = _finite_difference(f, args, i, cotangent, eps)
        _compare(f, names[i], g, numeric, rtol, atol, "central finite differences")

    if hasattr(srcgrad, "jvp"):
        _dot_product_test(srcgrad, f, args, positions, names, reverse, cotangent, rng, rtol, atol)


def _parameter_names(f):
    try:
        parameters = inspect.signature(f).parameters.values()
    except (TypeError, ValueError):
        raise TypeError(f"check_grad needs a Python function, not {f!r}") from None
    return [p.name for p in parameters if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]


def _positions(f, names, wrt):
    """`wrt` as a tuple of parameter positions."""
    many = wrt if isinstance(wrt, (tuple, list)) else (wrt,)
    positions = []
    for w in many:
        if isinstance(w, str):
            if w not in names:
                raise TypeError(f"wrt={w!r} names no parameter of `{f.__name__}`; its parameters are {tuple(names)}")
            positions.append(names.index(w))
        elif isinstance(w, int) and not isinstance(w, bool) and -len(names) <= w < len(names):
            positions.append(w % len(names))
        else:
            raise TypeError(f"wrt={w!r} is not a parameter index or name of `{f.__name__}` {tuple(names)}")
    return tuple(positions)


def _as_float64(f, names, i, value):
    """A float64 copy of a differentiated argument (a float stays a Python float)."""
    if isinstance(value, (bool, np.bool_)) or (
        isinstance(value, numbers.Integral) or (isinstance(value, np.ndarray) and value.dtype.kind in "biu")
    ):
        raise TypeError(
            f"check_grad: argument `{names[i]}` of `{f.__name__}` is an integer or boolean, which has "
            f"no gradient; pass floats"
        )
    if isinstance(value, numbers.Real) and not isinstance(value, np.generic):
        return float(value)
    return np.array(value, dtype=np.float64)


def _reverse(srcgrad, f, args, positions, scalar, cotangent):
    """Reverse-mode derivatives of `<cotangent, f(*args)>`, one per position."""
    if scalar:
        wrt = positions if len(positions) > 1 else positions[0]
        grads = srcgrad.grad(f, wrt=wrt)(*args)
        return grads if len(positions) > 1 else (grads,)
    _, pullback = srcgrad.vjp(f, *args)
    grads = pullback(cotangent)
    return tuple(grads[i] for i in positions)


def _finite_difference(f, args, i, cotangent, eps):
    """Central differences of `<cotangent, f>` w.r.t. argument `i`, in float64."""

    def projected(value):
        call = list(args)
        call[i] = value
        return float(np.sum(np.asarray(f(*call), dtype=np.float64) * cotangent))

    x = args[i]
    if isinstance(x, float):
        return (projected(x + eps) - projected(x - eps)) / (2 * eps)
    numeric = np.zeros_like(x)
    for k in np.ndindex(x.shape):
        plus, minus = x.copy(), x.copy()
        plus[k] += eps
        minus[k] -= eps
        numeric[k] = (projected(plus) - projected(minus)) / (2 * eps)
    return numeric


def _compare(f, name, actual, expected, rtol, atol, against):
    actual_arr = np.asarray(actual, dtype=np.float64)
    expected_arr = np.asarray(expected, dtype=np.float64)
    if actual_arr.shape != expected_arr.shape:
        raise AssertionError(
            f"check_grad: the derivative of `{f.__name__}` w.r.t. `{name}` has shape {actual_arr.shape}, "
            f"but `{name}` has shape {expected_arr.shape}"
        )
    error = np.abs(actual_arr - expected_arr)
    both_nan = np.isnan(actual_arr) & np.isnan(expected_arr)
    excess = np.where(both_nan, -np.inf, error - (atol + rtol * np.abs(expected_arr)))
    excess = np.where(np.isnan(excess), np.inf, excess)  # NaN on one side only fails
    if excess.size == 0 or np.max(excess) <= 0:
        return
    worst = np.unravel_index(np.argmax(excess), excess.shape)
    index = f"{name}[{', '.join(str(int(k)) for k in worst)}]" if worst else name
    raise AssertionError(
        f"check_grad: the derivative of `{f.__name__}` w.r.t. `{name}` does not match {against}\n"
        f"  worst element {index}: srcgrad {float(actual_arr[worst])!r}, {against} {float(expected_arr[worst])!r}\n"
        f"  |difference| = {error[worst]:.3g} > atol + rtol * |expected| = "
        f"{atol + rtol * abs(expected_arr[worst]):.3g} (atol={atol}, rtol={rtol})\n"
        f"  {int(np.sum(excess > 0))} of {excess.size} element(s) out of tolerance"
    )


def _dot_product_test(srcgrad, f, args, positions, names, reverse, cotangent, rng, rtol, atol):
    """Forward mode's `<v, J u>` against reverse mode's `<J^T v, u>`."""
    tangents = [None] * len(args)  # None: not differentiated
    for i in positions:
        tangents[i] = _random_like(args[i], rng)
    _, out_dot = srcgrad.jvp(f, tuple(args), tuple(tangents))
    forward = float(np.sum(np.asarray(out_dot, dtype=np.float64) * cotangent))
    backward = sum(float(np.sum(np.asarray(g, dtype=np.float64) * tangents[i])) for i, g in zip(positions, reverse))
    label = ", ".join(f"`{names[i]}`" for i in positions)
    if not abs(forward - backward) <= atol + rtol * abs(backward) and not (np.isnan(forward) and np.isnan(backward)):
        raise AssertionError(
            f"check_grad: forward and reverse mode of `{f.__name__}` disagree (dot-product test w.r.t. {label})\n"
            f"  <v, J u> by srcgrad.jvp = {forward!r}, <J^T v, u> by reverse mode = {backward!r}\n"
            f"  |difference| = {abs(forward - backward):.3g} (atol={atol}, rtol={rtol})"
        )


def _random_like(value, rng):
    if isinstance(value, float):
        return float(rng.standard_normal())
    return rng.standard_normal(np.shape(value))
