"""Linear maps that move or combine elements: reshape, transpose, dot, outer, getitem."""

import operator

import numpy as np

from ..runtime import unbroadcast
from .registry import defjvp, defvjp


@defvjp(np.reshape, "x")
def reshape_vjp(g, ans, x, newshape):
    return np.reshape(g, np.shape(x))


@defjvp(np.reshape, "x")
def reshape_jvp(t, ans, x, newshape):
    return np.reshape(t, newshape)


@defvjp(np.ravel, "x")
def ravel_vjp(g, ans, x):
    return np.reshape(g, np.shape(x))


@defjvp(np.ravel, "x")
def ravel_jvp(t, ans, x):
    return np.ravel(t)


@defvjp(np.transpose, "x")
def transpose_vjp(g, ans, x, axes=None):
    return np.transpose(g, None if axes is None else np.argsort(axes))


@defjvp(np.transpose, "x")
def transpose_jvp(t, ans, x, axes=None):
    return np.transpose(t, axes)


def _dot_vjp_x(g, x, y):
    if np.ndim(x) == 0 or np.ndim(y) == 0:
        return unbroadcast(g * y, x)
    if np.ndim(y) == 1:
        return np.multiply.outer(g, y) if np.ndim(x) > 1 else g * y
    # dot(x, y) contracts x's last axis with y's second-to-last: move y's contracted axis last.
    y_t = np.moveaxis(y, -2, -1)
    g_axes = list(range(np.ndim(x) - 1, np.ndim(g)))
    y_axes = list(range(np.ndim(y) - 2)) + [np.ndim(y) - 2]
    return np.tensordot(g, y_t, (g_axes, y_axes))


def _dot_vjp_y(g, x, y):
    if np.ndim(x) == 0 or np.ndim(y) == 0:
        return unbroadcast(g * x, y)
    if np.ndim(x) == 1:
        return np.multiply.outer(x, g) if np.ndim(y) > 1 else g * x
    lead = list(range(np.ndim(x) - 1))
    g_y = np.tensordot(x, g, (lead, lead))
    return g_y if np.ndim(y) <= 2 else np.moveaxis(g_y, 0, -2)


@defvjp(np.dot, "x")
def dot_vjp_x(g, ans, x, y):
    return _dot_vjp_x(g, x, y)


@defvjp(np.dot, "y")
def dot_vjp_y(g, ans, x, y):
    return _dot_vjp_y(g, x, y)


@defjvp(np.dot, "x")
def dot_jvp_x(t, ans, x, y):
    return np.dot(t, y)


@defjvp(np.dot, "y")
def dot_jvp_y(t, ans, x, y):
    return np.dot(x, t)


@defvjp(np.outer, "x")
def outer_vjp_x(g, ans, x, y):
    return np.reshape(g @ np.ravel(y), np.shape(x))


@defvjp(np.outer, "y")
def outer_vjp_y(g, ans, x, y):
    return np.reshape(np.ravel(x) @ g, np.shape(y))


@defjvp(np.outer, "x")
def outer_jvp_x(t, ans, x, y):
    return np.outer(t, y)


@defjvp(np.outer, "y")
def outer_jvp_y(t, ans, x, y):
    return np.outer(x, t)


def _getitem_vjp(g, x, index):
    """Scatter-add `g` into zeros shaped like `x` (repeated indices accumulate)."""
    x = np.asarray(x)
    dtype = x.dtype if x.dtype.kind in "fc" else np.float64
    out = np.zeros(x.shape, dtype=dtype)
    np.add.at(out, index, g)
    return out


@defvjp(operator.getitem, "x", name="Index")
def getitem_vjp(g, ans, x, index):
    return _getitem_vjp(g, x, index)


@defjvp(operator.getitem, "x")
def getitem_jvp(t, ans, x, index):
    return t[index]
