"""Functions whose result entries are entries of their input, picked or repeated: choose,
compress, extract, resize, partition, the read-only windows of
np.lib.stride_tricks.sliding_window_view and the views np.lib.stride_tricks.as_strided
makes of its input's memory.

Each reverse rule sends every result entry's gradient back to the entry it was read
from, adding where an entry is read several times (resize's repeats, overlapping
windows); forward rules pick the tangent the same way. Index and mask arguments
(choose's `a`, compress's and extract's `condition`, partition's `kth`) are discrete.
np.partition's gradient follows np.argpartition's order, as np.sort's follows
np.argsort's: among equal values either choice is a subgradient.
"""

import numpy as np

from ..runtime import unbroadcast, zeros_like_grad
from .registry import defjvp, defvjp, discrete
from .shapes import _zeros

# --- choose -------------------------------------------------------------------------


def _choice_index(a, count, mode):
    """np.choose's index array, wrapped or clipped into range(count) as `mode` says."""
    a = np.asarray(a)
    if mode == "wrap":
        return a % count
    if mode == "clip":
        return np.clip(a, 0, count - 1)
    return a


def _choose_vjp(g, a, choices, mode):
    """Choice k gets g where the index is k, summed down to its own shape."""
    index = _choice_index(a, len(choices), mode)
    grads = [unbroadcast(np.where(index == k, g, 0.0), choice) for k, choice in enumerate(choices)]
    if isinstance(choices, np.ndarray):
        return np.stack(grads) if grads else zeros_like_grad(choices)
    return grads if isinstance(choices, list) else tuple(grads)


def _choose_tangent(t, choices):
    """The choices' tangents as NumPy reads them, zeros for constant choices (None)."""
    if isinstance(choices, np.ndarray):
        return t
    return [zeros_like_grad(np.asarray(c)) if d is None else d for d, c in zip(t, choices)]


@defvjp(np.choose, "choices")
def choose_vjp(g, ans, a, choices, out=None, mode="raise"):
    return _choose_vjp(g, a, choices, mode)


@defjvp(np.choose, "choices")
def choose_jvp(t, ans, a, choices, out=None, mode="raise"):
    return np.choose(a, _choose_tangent(t, choices), mode=mode)


discrete(np.choose, "a")


# --- compress, extract --------------------------------------------------------------


def _compress_vjp(g, condition, a, axis):
    """Zeros shaped like `a` with g at the entries (rows along `axis`) the condition keeps."""
    kept = np.flatnonzero(condition)
    if axis is None:
        out = _zeros(np.ravel(a))
        out[kept] = g
        return np.reshape(out, np.shape(a))
    out = _zeros(a)
    np.moveaxis(out, axis, 0)[kept] = np.moveaxis(g, axis, 0)
    return out


@defvjp(np.compress, "a")
def compress_vjp(g, ans, condition, a, axis=None, out=None):
    return _compress_vjp(g, condition, a, axis)


@defjvp(np.compress, "a")
def compress_jvp(t, ans, condition, a, axis=None, out=None):
    return np.compress(condition, t, axis=axis)


discrete(np.compress, "condition")


@defvjp(np.extract, "arr")
def extract_vjp(g, ans, condition, arr):
    return _compress_vjp(g, np.ravel(condition), arr, None)


@defjvp(np.extract, "arr")
def extract_jvp(t, ans, condition, arr):
    return np.extract(condition, t)


discrete(np.extract, "condition")


# --- resize -------------------------------------------------------------------------


def _resize_vjp(g, a):
    """np.resize repeats a's entries in order, cyclically: entry k gets the gradients of
    result entries k, k + size, k + 2 size, ..."""
    size = np.size(a)
    flat = np.ravel(g)
    if size == 0:
        return _zeros(a)
    laps = -(-flat.size // size)
    padded = np.concatenate([flat, np.zeros(laps * size - flat.size, dtype=flat.dtype)])
    return unbroadcast(np.reshape(np.sum(np.reshape(padded, (laps, size)), axis=0), np.shape(a)), a)


@defvjp(np.resize, "a")
def resize_vjp(g, ans, a, new_shape):
    return _resize_vjp(g, a)


@defjvp(np.resize, "a")
def resize_jvp(t, ans, a, new_shape):
    return np.resize(t, new_shape)


# --- partition ----------------------------------------------------------------------


def _partition_order(a, kth, axis, kind):
    return np.argpartition(np.ravel(a) if axis is None else a, kth, axis=-1 if axis is None else axis, kind=kind)


def _partition_vjp(g, a, kth, axis, kind):
    """Send each partitioned entry's gradient back to the position it came from."""
    order = _partition_order(a, kth, axis, kind)
    if axis is None:
        out = _zeros(np.ravel(a))
        out[order] = g
        return np.reshape(out, np.shape(a))
    out = _zeros(a)
    np.put_along_axis(out, order, g, axis)
    return out


def _partition_jvp(t, a, kth, axis, kind):
    order = _partition_order(a, kth, axis, kind)
    return np.ravel(t)[order] if axis is None else np.take_along_axis(t, order, axis)


@defvjp(np.partition, "a")
def partition_vjp(g, ans, a, kth, axis=-1, kind="introselect", order=None):
    return _partition_vjp(g, a, kth, axis, kind)


@defjvp(np.partition, "a")
def partition_jvp(t, ans, a, kth, axis=-1, kind="introselect", order=None):
    return _partition_jvp(t, a, kth, axis, kind)


discrete(np.partition, "kth")


# --- sliding windows ----------------------------------------------------------------


def _window_axes(x, window_shape, axis):
    """(window sizes, the axes they slide along), as sliding_window_view pairs them."""
    sizes = tuple(window_shape) if np.iterable(window_shape) else (window_shape,)
    if axis is None:
        return sizes, tuple(range(np.ndim(x)))
    axes = tuple(axis) if np.iterable(axis) else (axis,)
    return sizes, tuple(a % np.ndim(x) for a in axes)


def _windows_vjp(g, x, window_shape, axis):
    """Add each window's gradient back onto the entries it shows: for each offset inside
    the window, the slab of g at that offset lands on x shifted by the offset."""
    sizes, axes = _window_axes(x, window_shape, axis)
    out = _zeros(x)
    placed = np.shape(g)[: np.ndim(x)]  # the window positions along each axis
    for offset in np.ndindex(*sizes):
        start = [0] * np.ndim(x)
        for ax, shift in zip(axes, offset):
            start[ax] += shift
        region = tuple(slice(s, s + n) for s, n in zip(start, placed))
        out[region] += g[(Ellipsis,) + offset]
    return out


@defvjp(np.lib.stride_tricks.sliding_window_view, "x", name="SlidingWindows")
def sliding_window_view_vjp(g, ans, x, window_shape, axis=None, *, subok=False, writeable=False):
    return _windows_vjp(g, x, window_shape, axis)


@defjvp(np.lib.stride_tricks.sliding_window_view, "x")
def sliding_window_view_jvp(t, ans, x, window_shape, axis=None, *, subok=False, writeable=False):
    return np.lib.stride_tricks.sliding_window_view(t, window_shape, axis)


# --- as_strided ---------------------------------------------------------------------


def _byte_offsets(shape, strides):
    """The byte offset of each entry of an array laid out by `shape` and `strides`."""
    offsets = np.zeros(shape, dtype=np.intp)
    for ax, (n, step) in enumerate(zip(shape, strides)):
        offsets = offsets + (np.arange(n, dtype=np.intp) * step).reshape((n,) + (1,) * (len(shape) - ax - 1))
    return offsets


def _strided_entries(x, shape, strides):
    """For each entry of `as_strided(x, shape, strides)`, the position in `x.ravel()` of
    the entry of x whose memory it reads. Raises where it reads memory no entry of x has
    (outside x, or between its entries), or x's entries share memory (a broadcast view):
    then the result is no function of x's entries."""
    x = np.asarray(x)
    shape = x.shape if shape is None else tuple(shape)
    strides = x.strides if strides is None else tuple(strides)
    own = _byte_offsets(x.shape, x.strides).ravel()
    order = np.argsort(own, kind="stable")
    ranked = own[order]
    if ranked.size > 1 and np.any(ranked[1:] == ranked[:-1]):
        raise ValueError("np.lib.stride_tricks.as_strided of an array whose entries share memory (a broadcast "
                         "view) has no derivative: pass a copy (np.ascontiguousarray)")
    read = _byte_offsets(shape, strides)
    at = np.minimum(np.searchsorted(ranked, read), max(ranked.size - 1, 0))
    if ranked.size == 0 or np.any(ranked[at] != read):
        raise ValueError("np.lib.stride_tricks.as_strided reads memory outside the entries of its input "
                         f"(shape {shape}, strides {strides} of an array of shape {x.shape}, strides {x.strides}): "
                         "its derivative is defined only for views of the input's own entries")
    return order[at]


@defvjp(np.lib.stride_tricks.as_strided, "x", name="StridedView")
def as_strided_vjp(g, ans, x, shape=None, strides=None, subok=False, writeable=True):
    entries = _strided_entries(x, shape, strides)
    out = np.zeros(np.size(x), dtype=np.result_type(g, x))
    np.add.at(out, entries.ravel(), np.ravel(g))
    return out.reshape(np.shape(x))


@defjvp(np.lib.stride_tricks.as_strided, "x")
def as_strided_jvp(t, ans, x, shape=None, strides=None, subok=False, writeable=True):
    return np.ravel(t)[_strided_entries(x, shape, strides)]


discrete(np.lib.stride_tricks.as_strided, "shape", "strides")
