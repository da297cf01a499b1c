"""Checks for derivative rules, calling them directly through the registry.

`check_rule(fn, *args, **kwargs)` differentiates `fn` at `args` with respect to every
floating-point parameter that has rules and asserts, for each one:

- reverse: `rule.vjp(param, g, ans, ...)` equals the central finite-difference gradient
  of `<g, fn(...)>`, entry by entry, and has the parameter's structure and shapes;
- forward: `rule.jvp(param, t, ans, ...)` equals the central finite difference of `fn`
  along `t`;
- the two modes agree (the dot-product test): `<vjp(g), t> == <g, jvp(t)>`.

`check_dtypes(fn, *args, **kwargs)` repeats the call with float32 arrays and asserts
that gradients stay float32 with the parameter's shape (0-d stays 0-d, a Python float
gets a float), and that tangents take the output's dtype.

Values may be nested lists/tuples of arrays (sequence parameters, several outputs);
`None` inside a cotangent or gradient means zero.
"""

import inspect

import numpy as np

from srcgrad.rules import lookup
from srcgrad.runtime import field_values, record_like
from srcgrad.runtime.records import is_dataclass_kind

EPS = 1e-6


class Uniform:
    """A random float64 array of `shape` with entries in [lo, hi), made on demand."""

    def __init__(self, shape, lo=-2.0, hi=2.0):
        self.shape, self.lo, self.hi = tuple(shape), lo, hi

    def make(self, rng):
        return rng.uniform(self.lo, self.hi, size=self.shape)

    def __repr__(self):
        bounds = "" if (self.lo, self.hi) == (-2.0, 2.0) else f"[{self.lo},{self.hi}]"
        return f"U{self.shape}{bounds}"


def materialize(value, rng):
    """Replace every `Uniform` inside (nested lists/tuples/namedtuples/dataclasses/dicts of) `value` by an array."""
    if isinstance(value, Uniform):
        return value.make(rng)
    if is_dataclass_kind(type(value)):
        return record_like(value, materialize(field_values(value), rng))
    if isinstance(value, list):
        return [materialize(v, rng) for v in value]
    if isinstance(value, tuple):
        entries = [materialize(v, rng) for v in value]
        return type(value)(*entries) if hasattr(value, "_fields") else tuple(entries)
    if isinstance(value, dict):
        return {k: materialize(v, rng) for k, v in value.items()}
    return value


# --- pytrees of arrays ---------------------------------------------------------------


def is_float_leaf(v):
    return isinstance(v, float) or (isinstance(v, (np.ndarray, np.generic)) and v.dtype.kind == "f")


def leaves(v):
    if is_dataclass_kind(type(v)):
        return leaves(field_values(v))
    if isinstance(v, (list, tuple)):
        return [leaf for item in v for leaf in leaves(item)]
    if isinstance(v, dict):
        return [leaf for item in v.values() for leaf in leaves(item)]
    return [v]


def rebuild(v, new):
    """`v` with its leaves replaced, in order, by the items of the iterator `new`."""
    if is_dataclass_kind(type(v)):
        return record_like(v, rebuild(field_values(v), new))
    if isinstance(v, (list, tuple)):
        items = [rebuild(item, new) for item in v]
        return items if isinstance(v, list) else type(v)(*items) if hasattr(v, "_fields") else tuple(items)
    if isinstance(v, dict):
        return {k: rebuild(item, new) for k, item in v.items()}
    return next(new)


def map_leaves(fn, v):
    return rebuild(v, iter([fn(leaf) for leaf in leaves(v)]))


def has_float_leaf(v):
    return any(is_float_leaf(leaf) for leaf in leaves(v))


def inner(a, b):
    """Sum of entrywise products over matching leaves; None counts as zero."""
    total = 0.0
    for x, y in zip(leaves(a), leaves(b), strict=True):
        if x is None or y is None:
            continue
        total += float(np.sum(np.asarray(x, dtype=np.float64) * np.asarray(y, dtype=np.float64)))
    return total


def random_like(v, rng, dtype=None):
    """Random normal leaves shaped like v's float leaves; None for other leaves."""

    def one(leaf):
        if not is_float_leaf(leaf):
            return None
        if isinstance(leaf, float) and not isinstance(leaf, np.generic):
            return float(rng.standard_normal())
        out = rng.standard_normal(np.shape(leaf)).astype(dtype or leaf.dtype)
        return out if isinstance(leaf, np.ndarray) else out[()]

    return map_leaves(one, v)


# --- calling the primal with one parameter replaced ----------------------------------


class Call:
    """A call `fn(*args, **kwargs)` whose parameters can be replaced by name."""

    def __init__(self, fn, args, kwargs):
        self.fn, self.args, self.kwargs = fn, tuple(args), dict(kwargs)
        self.rule = lookup(fn)
        assert self.rule is not None, f"no rule registered for {fn}"
        self.bound = self.rule.signature.bind(*args, **kwargs)

    def value(self, name):
        return self.rule.bind(*self.args, **self.kwargs)[name]

    def with_value(self, name, value):
        bound = self.rule.signature.bind(*self.args, **self.kwargs)
        bound.arguments[name] = value
        return self.fn(*bound.args, **bound.kwargs)

    def differentiable(self):
        """Parameters with a reverse rule whose argument holds floats."""
        values = self.rule.bind(*self.args, **self.kwargs)
        return [p for p in self.rule.vjps if values.get(p) is not None and has_float_leaf(values[p])]

    def vjp(self, name, g, ans):
        return self.rule.vjp(name, g, ans, *self.args, **self.kwargs)

    def jvp(self, name, t, ans):
        return self.rule.jvp(name, t, ans, *self.args, **self.kwargs)


def _perturbed(value, t, step):
    """value + step * t on float leaves (t None: unchanged), keeping each leaf's type."""

    def shift(leaf, direction):
        if direction is None or not is_float_leaf(leaf):
            return leaf
        # keep the memory layout: ravel(order="K") and friends depend on it
        moved = np.array(leaf, dtype=np.float64, order="K", copy=True)
        moved += step * np.asarray(direction, dtype=np.float64)
        if isinstance(leaf, float) and not isinstance(leaf, np.generic):
            return float(moved)
        return moved if isinstance(leaf, np.ndarray) else moved[()]

    return rebuild(value, iter([shift(leaf, d) for leaf, d in zip(leaves(value), leaves(t))]))


def _fd_gradient(call, name, g):
    """Central differences of <g, fn> with respect to each float entry of parameter `name`."""
    value = call.value(name)
    grads = []
    for leaf in leaves(value):
        if not is_float_leaf(leaf):
            grads.append(None)
            continue
        grad = np.zeros(np.shape(leaf))
        for i in range(grad.size):
            basis = np.zeros(np.shape(leaf))
            basis.flat[i] = 1.0
            direction = rebuild(value, iter([basis if other is leaf else None for other in leaves(value)]))
            up = inner(g, call.with_value(name, _perturbed(value, direction, EPS)))
            down = inner(g, call.with_value(name, _perturbed(value, direction, -EPS)))
            grad.flat[i] = (up - down) / (2 * EPS)
        grads.append(grad)
    return grads


def _fd_tangent(call, name, t):
    value = call.value(name)
    up = call.with_value(name, _perturbed(value, t, EPS))
    down = call.with_value(name, _perturbed(value, t, -EPS))
    return [
        None if u is None else (np.asarray(u, np.float64) - np.asarray(d, np.float64)) / (2 * EPS)
        for u, d in zip(leaves(up), leaves(down))
    ]


def _assert_close(actual, expected, what, rtol, atol):
    np.testing.assert_allclose(
        np.asarray(actual, dtype=np.float64), expected, rtol=rtol, atol=atol, err_msg=what
    )


def check_rule(fn, *args, rtol=1e-6, atol=1e-7, seed=0, wrt=None, **kwargs):
    """Check every differentiable parameter's rules of `fn` at `args` (see module doc)."""
    call = Call(fn, args, kwargs)
    params = wrt or call.differentiable()
    assert params, f"{fn} at {args}: no differentiable parameter to check"
    ans = fn(*args, **kwargs)
    rng = np.random.default_rng(seed)
    g = random_like(ans, rng)
    for name in params:
        value = call.value(name)
        label = f"{getattr(fn, '__name__', fn)}[{name}]"

        grad = call.vjp(name, g, ans)
        _check_structure(grad, value, label)
        for got, want, leaf in zip(leaves(grad), _fd_gradient(call, name, g), leaves(value)):
            if want is not None:
                got = _zero_if_none(got, leaf)
                _assert_close(got, want, f"{label}: reverse rule vs finite differences", rtol, atol)

        t = random_like(value, rng)
        tangent = call.jvp(name, t, ans)
        fd = _fd_tangent(call, name, t)
        got_leaves = leaves(tangent) if isinstance(ans, (list, tuple)) or is_dataclass_kind(type(ans)) else [tangent]
        for got, want in zip(got_leaves, fd, strict=True):
            if want is not None:
                got = np.broadcast_to(np.asarray(got, dtype=np.float64), np.shape(want))
                _assert_close(got, want, f"{label}: forward rule vs finite differences", rtol, atol)

        lhs, rhs = inner(grad, t), inner(g, _broadcast_like(tangent, ans))
        assert np.isclose(lhs, rhs, rtol=1e-9, atol=1e-9), (
            f"{label}: <vjp(g), t> = {lhs} but <g, jvp(t)> = {rhs}"
        )
    return params


def _zero_if_none(got, leaf):
    return np.zeros(np.shape(leaf)) if got is None else got


def _broadcast_like(tangent, ans):
    if is_dataclass_kind(type(ans)):
        return _broadcast_like(field_values(tangent), field_values(ans))
    if isinstance(ans, (list, tuple)):
        pairs = zip(tangent, ans, strict=True)
        return [None if t is None else _broadcast_like(t, a) for t, a in pairs]  # nested: `x.tolist()`
    return np.broadcast_to(tangent, np.shape(ans))


def _check_structure(grad, value, label):
    """The gradient mirrors the parameter: same nesting, shapes, and scalar kinds."""
    if is_dataclass_kind(type(value)):
        assert type(grad) is type(value), f"{label}: gradient of a {type(value).__name__} is {type(grad).__name__}"
        return _check_structure(field_values(grad), field_values(value), label)
    if isinstance(value, (list, tuple)):
        assert isinstance(grad, (list, tuple)), f"{label}: gradient of a sequence is {type(grad).__name__}"
        assert len(grad) == len(value), f"{label}: {len(grad)} gradients for {len(value)} elements"
        assert isinstance(grad, list) == isinstance(value, list), f"{label}: container kind differs"
        for item, v in zip(grad, value):
            if item is not None and has_float_leaf(v):
                _check_structure(item, v, label)
        return
    assert np.shape(grad) == np.shape(value), f"{label}: gradient shape {np.shape(grad)} != {np.shape(value)}"
    if isinstance(value, float) and not isinstance(value, np.generic):
        assert isinstance(grad, float), f"{label}: gradient of a Python float is {type(grad).__name__}"


def _single(leaf):
    return leaf.astype(np.float32) if isinstance(leaf, np.ndarray) and leaf.dtype == np.float64 else leaf


_LEGACY_PROMOTION = np.lib.NumpyVersion(np.__version__) < "2.0.0"


def _zero_dimensional(fn, args, kwargs):
    """Is an array argument or the first output 0-d?"""
    if any(isinstance(leaf, np.ndarray) and leaf.ndim == 0 for leaf in leaves([list(args), list(kwargs.values())])):
        return True
    out = leaves(fn(*args, **kwargs))
    return bool(out) and np.ndim(out[0]) == 0


def _to_float32(v):
    return map_leaves(_single, v)


def check_dtypes(fn, *args, seed=0, wrt=None, **kwargs):
    """float32 in, float32 gradients out; tangents in the output's dtype."""
    if _LEGACY_PROMOTION and _zero_dimensional(fn, args, kwargs):
        return  # NumPy 1.x promotes 0-d float32 with Python floats to float64 (NEP 50 is NumPy 2's)
    args = _to_float32(list(args))
    kwargs = {k: _to_float32(v) for k, v in kwargs.items()}
    call = Call(fn, args, kwargs)
    ans = fn(*args, **kwargs)
    rng = np.random.default_rng(seed)
    g = random_like(ans, rng)
    for name in wrt or call.differentiable():
        value = call.value(name)
        grad = call.vjp(name, g, ans)
        label = f"{getattr(fn, '__name__', fn)}[{name}]"
        _check_structure(grad, value, label)
        for got, leaf in zip(leaves(grad), leaves(value)):
            if got is not None and isinstance(leaf, (np.ndarray, np.generic)) and leaf.dtype.kind == "f":
                assert np.result_type(got) == leaf.dtype, (
                    f"{label}: {leaf.dtype} argument, {np.result_type(got)} gradient"
                )
        tangent = call.jvp(name, random_like(value, rng), ans)
        got_leaves = leaves(tangent) if isinstance(ans, (list, tuple)) or is_dataclass_kind(type(ans)) else [tangent]
        for got, out in zip(got_leaves, leaves(ans)):
            if got is not None and is_float_leaf(out) and type(out) is not float:
                assert np.result_type(got) == np.result_type(out), (
                    f"{label}: {np.result_type(out)} output, {np.result_type(got)} tangent"
                )


def parameter_names(fn):
    return tuple(inspect.signature(fn).parameters)
