"""Methods of ufuncs: np.add.reduce (with initial= and where=), np.maximum.reduce,
np.minimum.reduce, np.multiply.reduce, np.multiply.accumulate, np.add.outer,
np.subtract.outer and np.add.reduceat (np.multiply.outer is in `linalg.py`, the
running extrema and np.add.accumulate in `reductions.py`).

The reduces share the rules of the functions they spell (sum, max, min, prod, cumprod in
`reductions.py`) but default to `axis=0`, as ufunc methods do; `axis=None` reduces every
axis. Chosen subgradients are those of np.max and np.min: tied extrema share the
gradient equally, `initial` counting as one more entry; entries that `where=` leaves out
get zero. The `indices` of reduceat only select: they have no derivative.
"""

import numpy as np

from ..runtime import unbroadcast, unreduce
from .reductions import (
    _cumprod_jvp,
    _cumprod_vjp,
    _extremum_share,
    _initial_share,
    _masked,
    _masked_prod_of_others,
    _prod_of_others,
)
from .registry import defjvp, defvjp, discrete

# --- np.add.reduce ------------------------------------------------------------------


@defvjp(np.add.reduce, "x", name="Sum")
def add_reduce_vjp(g, ans, x, axis=0, dtype=None, out=None, keepdims=False, initial=None, where=True):
    return unreduce(g, x, axis, keepdims) if where is True else _masked(unreduce(g, x, axis, keepdims), where)


@defvjp(np.add.reduce, "initial")
def add_reduce_vjp_initial(g, ans, x, axis=0, dtype=None, out=None, keepdims=False, initial=None, where=True):
    return unbroadcast(g, initial)


@defjvp(np.add.reduce, "x")
def add_reduce_jvp(t, ans, x, axis=0, dtype=None, out=None, keepdims=False, initial=None, where=True):
    return (
        np.sum(t, axis=axis, keepdims=keepdims) if where is True else np.sum(t, axis=axis, keepdims=keepdims, where=where)
    )


@defjvp(np.add.reduce, "initial")
def add_reduce_jvp_initial(t, ans, x, axis=0, dtype=None, out=None, keepdims=False, initial=None, where=True):
    return np.zeros_like(ans) + t


# --- np.maximum.reduce, np.minimum.reduce ---------------------------------------------


@defvjp(np.maximum.reduce, "x", name="Max")
@defvjp(np.minimum.reduce, "x", name="Min")
def extremum_reduce_vjp(g, ans, x, axis=0, dtype=None, out=None, keepdims=False, initial=None, where=True):
    return unreduce(g, x, axis, keepdims) * _extremum_share(
        ans, x, axis, keepdims, initial, True if initial is None else where
    )


@defvjp(np.maximum.reduce, "initial")
@defvjp(np.minimum.reduce, "initial")
def extremum_reduce_vjp_initial(g, ans, x, axis=0, dtype=None, out=None, keepdims=False, initial=None, where=True):
    return unbroadcast(g * _initial_share(ans, x, axis, keepdims, initial, where), initial)


@defjvp(np.maximum.reduce, "x")
@defjvp(np.minimum.reduce, "x")
def extremum_reduce_jvp(t, ans, x, axis=0, dtype=None, out=None, keepdims=False, initial=None, where=True):
    return np.sum(
        t * _extremum_share(ans, x, axis, keepdims, initial, True if initial is None else where),
        axis=axis, keepdims=keepdims,
    )


@defjvp(np.maximum.reduce, "initial")
@defjvp(np.minimum.reduce, "initial")
def extremum_reduce_jvp_initial(t, ans, x, axis=0, dtype=None, out=None, keepdims=False, initial=None, where=True):
    return t * _initial_share(ans, x, axis, keepdims, initial, where)


# --- np.multiply.reduce, np.multiply.accumulate --------------------------------------


def _others(x, axis, where):
    """d multiply.reduce / dx: the product of the other entries (exact with zeros)."""
    return _prod_of_others(x, axis) if where is True else _masked_prod_of_others(x, axis, where)


@defvjp(np.multiply.reduce, "x", name="Prod")
def multiply_reduce_vjp(g, ans, x, axis=0, dtype=None, out=None, keepdims=False, initial=None, where=True):
    return unreduce(g if initial is None else g * initial, x, axis, keepdims) * _others(x, axis, where)


@defvjp(np.multiply.reduce, "initial")
def multiply_reduce_vjp_initial(g, ans, x, axis=0, dtype=None, out=None, keepdims=False, initial=None, where=True):
    return unbroadcast(g * np.multiply.reduce(x, axis=axis, keepdims=keepdims, where=where), initial)


@defjvp(np.multiply.reduce, "x")
def multiply_reduce_jvp(t, ans, x, axis=0, dtype=None, out=None, keepdims=False, initial=None, where=True):
    return np.sum((t if initial is None else t * initial) * _others(x, axis, where), axis=axis, keepdims=keepdims)


@defjvp(np.multiply.reduce, "initial")
def multiply_reduce_jvp_initial(t, ans, x, axis=0, dtype=None, out=None, keepdims=False, initial=None, where=True):
    return t * np.multiply.reduce(x, axis=axis, keepdims=keepdims, where=where)


@defvjp(np.multiply.accumulate, "x", name="Cumprod")
def multiply_accumulate_vjp(g, ans, x, axis=0, dtype=None, out=None):
    return _cumprod_vjp(g, ans, x, axis)


@defjvp(np.multiply.accumulate, "x")
def multiply_accumulate_jvp(t, ans, x, axis=0, dtype=None, out=None):
    return _cumprod_jvp(t, ans, x, axis)


# --- np.add.outer, np.subtract.outer: out[i..., j...] = x[i...] +/- y[j...] -----------


def _outer_vjp_x(g, x, y):
    """Sum `g` over its trailing (y) axes."""
    return unbroadcast(np.sum(g, axis=tuple(range(np.ndim(g) - np.ndim(y), np.ndim(g)))), x)


def _outer_vjp_y(g, x, y):
    """Sum `g` over its leading (x) axes."""
    return unbroadcast(np.sum(g, axis=tuple(range(np.ndim(g) - np.ndim(y)))), y)


def _outer_of_x(t, x, y):
    """The tangent `t` of x spread over y's axes: np.add.outer(t, zeros of y's shape)."""
    return np.reshape(t, np.shape(t) + (1,) * np.ndim(y)) + np.zeros(np.shape(y), dtype=np.result_type(t))


def _outer_of_y(t, x, y):
    return np.zeros(np.shape(x), dtype=np.result_type(t)).reshape(np.shape(x) + (1,) * np.ndim(t)) + t


@defvjp(np.add.outer, "x", name="AddOuter")
def add_outer_vjp_x(g, ans, x, y):
    return _outer_vjp_x(g, x, y)


@defvjp(np.add.outer, "y")
def add_outer_vjp_y(g, ans, x, y):
    return _outer_vjp_y(g, x, y)


@defjvp(np.add.outer, "x")
def add_outer_jvp_x(t, ans, x, y):
    return _outer_of_x(t, x, y)


@defjvp(np.add.outer, "y")
def add_outer_jvp_y(t, ans, x, y):
    return _outer_of_y(t, x, y)


@defvjp(np.subtract.outer, "x", name="SubOuter")
def subtract_outer_vjp_x(g, ans, x, y):
    return _outer_vjp_x(g, x, y)


@defvjp(np.subtract.outer, "y")
def subtract_outer_vjp_y(g, ans, x, y):
    return -_outer_vjp_y(g, x, y)


@defjvp(np.subtract.outer, "x")
def subtract_outer_jvp_x(t, ans, x, y):
    return _outer_of_x(t, x, y)


@defjvp(np.subtract.outer, "y")
def subtract_outer_jvp_y(t, ans, x, y):
    return -_outer_of_y(t, x, y)


# --- np.add.reduceat ----------------------------------------------------------------


def _segments(indices, n):
    """The 0/1 matrix (segments, n) of np.add.reduceat: row k selects x[i[k]:i[k+1]],
    or x[i[k]] alone where i[k] >= i[k+1], and x[i[-1]:] for the last row."""
    starts = np.asarray(indices).reshape(-1)
    following = np.concatenate([starts[1:], [n]])
    stops = np.where((following > starts) | (np.arange(starts.size) == starts.size - 1), following, starts + 1)
    j = np.arange(n)
    return ((j >= starts[:, None]) & (j < stops[:, None])).astype(np.float64)


def _reduceat_vjp(g, x, indices, axis):
    segments = _segments(indices, np.shape(x)[axis]).astype(np.result_type(g), copy=False)
    spread = np.tensordot(np.moveaxis(g, axis, -1), segments, 1)
    return np.moveaxis(spread, -1, axis)


@defvjp(np.add.reduceat, "x", name="SumAt")
def add_reduceat_vjp(g, ans, x, indices, axis=0, dtype=None, out=None):
    return _reduceat_vjp(g, x, indices, axis)


@defjvp(np.add.reduceat, "x")
def add_reduceat_jvp(t, ans, x, indices, axis=0, dtype=None, out=None):
    return np.add.reduceat(t, indices, axis)


discrete(np.add.reduceat, "indices")
