"""Linear maps that copy the elements of one array: tile, repeat, pad, copy,
ascontiguousarray, asfortranarray, and the fill value of full and full_like (whose `x`
lends only its shape and dtype). Each reverse rule sums the copies back onto the entry
they came from; forward rules copy the tangent the same way. Maps that move or select
elements live in `shapes.py`.

np.pad: 'constant', 'empty' (its padding counts as constant) and the copying modes
'edge', 'reflect', 'symmetric', 'wrap' are linear maps as above. 'linear_ramp' (ends
constant) and the statistic modes 'mean', 'maximum', 'minimum', 'median' (with
`stat_length`) pad one axis after another, as NumPy does; the rules go through those
steps, a padded statistic passing its gradient to the entries it was computed from
(ties of maximum/minimum share it equally, like np.max). Only the forward rule covers
reflect_type='odd'; a callable mode has no rules. The padding values themselves
(`constant_values`, `end_values`) are differentiated in `fills.py`.
"""

import numpy as np

from ..runtime import unbroadcast, unless_integral, zeros_like_grad
from .reductions import _extremum_share
from .registry import defjvp, defvjp, supports
from .shapes import _zeros
from .statistics import _median_share

# --- tile, repeat, pad --------------------------------------------------------------


def _tile_vjp(g, x, reps):
    """Sum the tiles of g: view g as (reps_i, size_i) pairs and add over the reps."""
    reps = (reps,) if np.ndim(reps) == 0 else tuple(reps)
    ndim = max(np.ndim(x), len(reps))
    shape = (1,) * (ndim - np.ndim(x)) + np.shape(x)
    reps = (1,) * (ndim - len(reps)) + reps
    pairs = np.reshape(g, [n for pair in zip(reps, shape) for n in pair])
    return unbroadcast(np.sum(pairs, axis=tuple(range(0, 2 * ndim, 2))).reshape(np.shape(x)), x)


@defvjp(np.tile, "x")
def tile_vjp(g, ans, x, reps):
    return _tile_vjp(g, x, reps)


@defjvp(np.tile, "x")
def tile_jvp(t, ans, x, reps):
    return np.tile(t, reps)


def _repeat_vjp(g, x, repeats, axis):
    """Add each copy's gradient back onto the entry it was copied from."""
    flat = axis is None
    axis = 0 if flat else axis % np.ndim(x)
    n = np.size(x) if flat else np.shape(x)[axis]
    source = np.repeat(np.arange(n), repeats)
    moved = np.moveaxis(np.asarray(g), axis, 0)
    out = np.zeros((n,) + moved.shape[1:], dtype=_zeros(x).dtype)
    np.add.at(out, source, moved)
    out = np.reshape(out, np.shape(x)) if flat else np.moveaxis(out, 0, axis)
    return unbroadcast(out, x)


@defvjp(np.repeat, "x")
def repeat_vjp(g, ans, x, repeats, axis=None):
    return _repeat_vjp(g, x, repeats, axis)


@defjvp(np.repeat, "x")
def repeat_jvp(t, ans, x, repeats, axis=None):
    return np.repeat(t, repeats, axis)


_PAD_COPY_MODES = ("edge", "reflect", "symmetric", "wrap")
_PAD_STAT_MODES = ("mean", "maximum", "minimum", "median")


def _pad_pairs(value, ndim):
    """A stat_length argument as one (before, after) pair per axis (None: the whole axis)."""
    if value is None:
        return [(None, None)] * ndim
    return [tuple(int(v) for v in pair) for pair in np.broadcast_to(np.asarray(value), (ndim, 2))]


def _pad_steps(x, widths, mode, kwargs):
    """np.pad pads the stat and ramp modes one axis after another, each axis reading the
    array the earlier axes padded: (axis, before, after, the array that step pads)."""
    steps, a = [], np.asarray(x)
    for axis, (before, after) in enumerate(widths):
        if before == after == 0:
            continue
        steps.append((axis, before, after, a))
        one_axis = [(before, after) if k == axis else (0, 0) for k in range(a.ndim)]
        a = np.pad(a, one_axis, mode, **kwargs)
    return steps


def _stat_weights(region, mode):
    """d stat / d region for the pad statistics, the region's entries along the last axis."""
    if mode == "mean":
        return np.full(region.shape, 1.0 / max(region.shape[-1], 1), dtype=_zeros(region).dtype)
    if mode == "median":
        return _median_share(region, -1)
    ans = np.max(region, axis=-1) if mode == "maximum" else np.min(region, axis=-1)
    return _extremum_share(ans, region, -1, False)


def _pad_line_parts(a, axis, before, after, mode, kwargs):
    """For one step of `_pad_steps` (axis moved last, n entries): the weights each padded
    value puts on the entries of its line, as (slice of the line, weights shaped
    (..., pads, entries)) for the before and the after side."""
    line = np.moveaxis(a, axis, -1)
    n = line.shape[-1]
    if mode == "linear_ramp":  # np.linspace(end, edge, width, endpoint=False): edge weight i / width
        dtype = _zeros(line[..., :0]).dtype
        left = (np.arange(before) / max(before, 1)).astype(dtype)
        right = (np.arange(after)[::-1] / max(after, 1)).astype(dtype)
        return ((slice(0, 1), left[:, None]), (slice(n - 1, n), right[:, None]))
    lengths = _pad_pairs(kwargs.get("stat_length"), a.ndim)[axis]
    parts = []
    for width, length, side in ((before, lengths[0], 0), (after, lengths[1], 1)):
        length = n if length is None else min(length, n)
        where = slice(0, length) if side == 0 else slice(n - length, n)
        weights = _stat_weights(line[..., where], mode)[..., None, :]
        parts.append((where, np.broadcast_to(weights, weights.shape[:-2] + (width, length))))
    return parts


def _pad_step_vjp(g, a, axis, before, after, mode, kwargs):
    """The transpose of one padding step: the middle of g, plus each padded value's
    cotangent spread over the entries it was computed from."""
    gm = np.moveaxis(np.asarray(g), axis, -1)
    n = np.shape(a)[axis]
    grad = np.array(gm[..., before : before + n], dtype=_zeros(a).dtype)
    (left_at, left), (right_at, right) = _pad_line_parts(a, axis, before, after, mode, kwargs)
    grad[..., left_at] += np.sum(gm[..., :before, None] * left, axis=-2)
    grad[..., right_at] += np.sum(gm[..., before + n :, None] * right, axis=-2)
    return np.moveaxis(grad, -1, axis)


def _pad_step_jvp(t, a, axis, before, after, mode, kwargs):
    tm = np.moveaxis(np.asarray(t), axis, -1)
    (left_at, left), (right_at, right) = _pad_line_parts(a, axis, before, after, mode, kwargs)
    pads = [np.sum(tm[..., None, left_at] * left, axis=-1), tm, np.sum(tm[..., None, right_at] * right, axis=-1)]
    pads = [np.broadcast_to(p, tm.shape[:-1] + p.shape[-1:]) for p in pads]
    return np.moveaxis(np.concatenate(pads, axis=-1), -1, axis)


def _pad_vjp(g, x, pad_width, mode, kwargs):
    """Constant padding: crop. Copying modes: add each padded copy back onto its source.
    Statistic and ramp modes: undo the axes' steps last to first."""
    widths = np.broadcast_to(np.asarray(pad_width, dtype=np.intp), (np.ndim(x), 2))
    if mode in ("constant", "empty"):
        crop = tuple(slice(before, before + n) for (before, _), n in zip(widths, np.shape(x)))
        return unbroadcast(np.asarray(g)[crop], x)
    if mode in _PAD_COPY_MODES and kwargs.get("reflect_type", "even") == "even":
        source = np.pad(np.arange(np.size(x)).reshape(np.shape(x)), widths, mode)
        grad = np.bincount(source.ravel(), weights=np.ravel(g), minlength=np.size(x))
        return unbroadcast(grad.reshape(np.shape(x)), x)
    if mode in _PAD_STAT_MODES or mode == "linear_ramp":
        for axis, before, after, a in reversed(_pad_steps(x, widths, mode, kwargs)):
            g = _pad_step_vjp(g, a, axis, before, after, mode, kwargs)
        return unbroadcast(np.asarray(g), x)
    if kwargs.get("reflect_type") == "odd":
        raise NotImplementedError(f"srcgrad differentiates np.pad(mode={mode!r}) in reverse mode only with {_ODD}")
    raise NotImplementedError(
        f"no reverse rule for numpy.pad with mode={mode!r} {kwargs or ''}; supported: "
        f"'constant', 'empty', {', '.join(map(repr, _PAD_STAT_MODES))}, 'linear_ramp', "
        f"and {', '.join(map(repr, _PAD_COPY_MODES))} with reflect_type='even'"
    )


def _pad_jvp(t, x, pad_width, mode, kwargs):
    """Pad the tangent the same way where padding is linear in x (padding constants and
    ramp ends contribute nothing); the statistic modes go through their steps."""
    if mode in ("constant", "empty"):
        return np.pad(t, pad_width, "constant")
    if mode in _PAD_COPY_MODES:
        return np.pad(t, pad_width, mode, **{k: v for k, v in kwargs.items() if k == "reflect_type"})
    if mode in _PAD_STAT_MODES or mode == "linear_ramp":
        widths = np.broadcast_to(np.asarray(pad_width, dtype=np.intp), (np.ndim(x), 2))
        t = np.broadcast_to(t, np.shape(x))
        for axis, before, after, a in _pad_steps(x, widths, mode, kwargs):
            t = _pad_step_jvp(t, a, axis, before, after, mode, kwargs)
        return np.asarray(t)
    raise NotImplementedError(f"no forward rule for numpy.pad with mode={mode!r}")


def _pad_options(mode, stat_length, constant_values, end_values, reflect_type):
    """The keywords of np.pad that `mode` reads, as np.pad takes them."""
    if mode in _PAD_STAT_MODES:
        return {"stat_length": stat_length}
    if mode == "linear_ramp":
        return {"end_values": end_values}
    if mode in ("reflect", "symmetric"):
        return {"reflect_type": reflect_type}
    return {"constant_values": constant_values} if mode == "constant" else {}


@defvjp(np.pad, "x")
def pad_vjp(
    g, ans, x, pad_width, mode="constant", *, stat_length=None, constant_values=0, end_values=0, reflect_type="even"
):
    return _pad_vjp(g, x, pad_width, mode, _pad_options(mode, stat_length, constant_values, end_values, reflect_type))


@defjvp(np.pad, "x")
def pad_jvp(
    t, ans, x, pad_width, mode="constant", *, stat_length=None, constant_values=0, end_values=0, reflect_type="even"
):
    return _pad_jvp(t, x, pad_width, mode, _pad_options(mode, stat_length, constant_values, end_values, reflect_type))


_ODD = ("reflect_type='odd' has a forward rule only (srcgrad.jvp); for a gradient, use reflect_type='even' or write "
        "the odd reflection out as 2 * np.pad(x, w, 'edge') - np.pad(x, w, mode)")
supports(np.pad, "reflect_type", ("even",), _ODD, modes=("vjp",))


# --- copy, ascontiguousarray, full --------------------------------------------------


@defvjp(np.copy, "x")
def copy_vjp(g, ans, x, order="K", subok=False):
    return unbroadcast(g, x)


@defjvp(np.copy, "x")
def copy_jvp(t, ans, x, order="K", subok=False):
    return np.copy(t)


@defvjp(np.ascontiguousarray, "x")
@defvjp(np.asfortranarray, "x")
def ascontiguousarray_vjp(g, ans, x, dtype=None, *, like=None):
    return unbroadcast(g, x)


@defjvp(np.ascontiguousarray, "x")
@defjvp(np.asfortranarray, "x")
def ascontiguousarray_jvp(t, ans, x, dtype=None, *, like=None):
    return np.asarray(t, dtype=np.result_type(ans))


@defvjp(np.full, "fill_value")
def full_vjp(g, ans, shape, fill_value, dtype=None, order="C", *, device=None, like=None):
    return unbroadcast(g, fill_value)


@defjvp(np.full, "fill_value")
def full_jvp(t, ans, shape, fill_value, dtype=None, order="C", *, device=None, like=None):
    return np.broadcast_to(t, np.shape(ans))


@defvjp(np.full_like, "fill_value")
def full_like_vjp(g, ans, x, fill_value, dtype=None, order="K", subok=True, shape=None, *, device=None):
    return unbroadcast(unless_integral(g, ans), fill_value)  # the fill rounds into an integer `x`'s dtype


@defjvp(np.full_like, "fill_value")
def full_like_jvp(t, ans, x, fill_value, dtype=None, order="K", subok=True, shape=None, *, device=None):
    return unless_integral(np.broadcast_to(t, np.shape(ans)), ans)


@defvjp(np.full_like, "x")
def full_like_vjp_x(g, ans, x, fill_value, dtype=None, order="K", subok=True, shape=None, *, device=None):
    return zeros_like_grad(x)  # only x's shape and dtype are read


@defjvp(np.full_like, "x")
def full_like_jvp_x(t, ans, x, fill_value, dtype=None, order="K", subok=True, shape=None, *, device=None):
    return zeros_like_grad(ans)
