"""Reductions with `axis` (None, int, negative, tuple) and `keepdims`: sum, mean, prod,
max/min (amax/amin). Gradients spread back through `runtime.unreduce`; max and min
share the gradient equally between tied maxima.
"""

import numpy as np

from ..runtime import unreduce
from .registry import defjvp, defvjp


@defvjp(np.sum, "x")
def sum_vjp(g, ans, x, axis=None, dtype=None, out=None, keepdims=False):
    return unreduce(g, x, axis, keepdims)


@defjvp(np.sum, "x")
def sum_jvp(t, ans, x, axis=None, dtype=None, out=None, keepdims=False):
    return np.sum(t, axis=axis, keepdims=keepdims)


@defvjp(np.mean, "x")
def mean_vjp(g, ans, x, axis=None, dtype=None, out=None, keepdims=False):
    return unreduce(g, x, axis, keepdims) * (np.size(ans) / np.size(x))


@defjvp(np.mean, "x")
def mean_jvp(t, ans, x, axis=None, dtype=None, out=None, keepdims=False):
    return np.mean(t, axis=axis, keepdims=keepdims)


def _prod_of_others(x, axis):
    """Product of all other elements along `axis` (None: all), exact when x has zeros."""
    x = np.asarray(x)
    if axis is None:
        flat = x.reshape(-1)
        return _exclusive_product(flat, 0).reshape(x.shape)
    axes = tuple(a % x.ndim for a in (axis if isinstance(axis, tuple) else (axis,)))
    kept = [a for a in range(x.ndim) if a not in axes]
    moved = np.transpose(x, kept + list(axes))
    lead = moved.shape[: len(kept)]
    flat = moved.reshape(lead + (-1,))
    others = _exclusive_product(flat, -1).reshape(moved.shape)
    return np.transpose(others, np.argsort(kept + list(axes)))


def _exclusive_product(a, axis):
    ones = np.ones_like(np.take(a, [0], axis=axis))
    left = np.cumprod(np.concatenate([ones, np.take(a, range(a.shape[axis] - 1), axis=axis)], axis), axis)
    rev = np.flip(a, axis)
    right = np.cumprod(np.concatenate([ones, np.take(rev, range(a.shape[axis] - 1), axis=axis)], axis), axis)
    return left * np.flip(right, axis)


@defvjp(np.prod, "x")
def prod_vjp(g, ans, x, axis=None, dtype=None, out=None, keepdims=False):
    return unreduce(g, x, axis, keepdims) * _prod_of_others(x, axis)


@defjvp(np.prod, "x")
def prod_jvp(t, ans, x, axis=None, dtype=None, out=None, keepdims=False):
    return np.sum(t * _prod_of_others(x, axis), axis=axis, keepdims=keepdims)


def _extremum_share(ans, x, axis, keepdims):
    hit = x == unreduce(ans, x, axis, keepdims)
    return hit / np.sum(hit, axis=axis, keepdims=True)


@defvjp(np.max, "x", name="Max")
@defvjp(np.amax, "x", name="Max")
@defvjp(np.min, "x", name="Min")
@defvjp(np.amin, "x", name="Min")
def extremum_vjp(g, ans, x, axis=None, out=None, keepdims=False):
    return unreduce(g, x, axis, keepdims) * _extremum_share(ans, x, axis, keepdims)


@defjvp(np.max, "x")
@defjvp(np.amax, "x")
@defjvp(np.min, "x")
@defjvp(np.amin, "x")
def extremum_jvp(t, ans, x, axis=None, out=None, keepdims=False):
    return np.sum(t * _extremum_share(ans, x, axis, keepdims), axis=axis, keepdims=keepdims)
