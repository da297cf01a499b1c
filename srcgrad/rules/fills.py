"""The values a function fills in besides its array's own entries, differentiated: the
sample points `xp` and the end values `left` / `right` of np.interp, the edges
`prepend` / `append` of np.diff and `to_begin` / `to_end` of np.ediff1d, the padding
`constant_values` / `end_values` of np.pad, and the replacements `nan` / `posinf` /
`neginf` of np.nan_to_num (the rules for the arrays themselves are in `series.py`,
`copies.py` and `elementwise.py`).

Every output here is linear in the fill value, but np.interp in `xp`: on the piece
[xp[k], xp[k+1]] that x falls in, y = fp[k] + m (x - xp[k]) with slope m, so
dy/dxp[k] = -m (1 - s) and dy/dxp[k+1] = -m s for s = (x - xp[k]) / (xp[k+1] - xp[k]);
outside [xp[0], xp[-1]] it is 0 (the end values do not move with xp). The padding
values are a linear map of at most 2 ndim numbers, whose transpose pads zeros with
each one in turn.
"""

import numpy as np

from ..runtime import unbroadcast
from .registry import defjvp, defvjp
from .series import _check_period, _diff_full, _edge_length
from .structure import _like


def _like_result(tangent, ans):
    """A tangent in the dtype of the result `ans` (a fill value may be wider or narrower)."""
    return np.asarray(tangent).astype(np.result_type(ans), copy=False)

# --- np.interp: xp, left, right -----------------------------------------------------


def _interp_piece(x, xp):
    """(piece, inside): the piece [xp[k], xp[k+1]] each x falls on (the end pieces beyond
    the ends), and whether x lies in [xp[0], xp[-1]]."""
    x, xp = np.asarray(x), np.asarray(xp)
    return np.clip(np.searchsorted(xp, x, side="right") - 1, 0, len(xp) - 2), (x >= xp[0]) & (x <= xp[-1])


def _interp_position(x, xp, fp, piece):
    """(s, slope): the position of each x in its piece (0 to 1) and the piece's slope."""
    xp, fp = np.asarray(xp), np.asarray(fp)
    width = xp[piece + 1] - xp[piece]
    return (x - xp[piece]) / width, (fp[piece + 1] - fp[piece]) / width


def _interp_vjp_xp(g, x, xp, fp, period):
    _check_period(period)
    piece, inside = _interp_piece(x, xp)
    s, slope = _interp_position(x, xp, fp, piece)
    share = np.where(inside, -np.broadcast_to(g, np.shape(s)) * slope, 0.0)
    n = len(xp)
    grad = (np.bincount(np.ravel(piece), np.ravel(share * (1.0 - s)), n)
            + np.bincount(np.ravel(piece + 1), np.ravel(share * s), n))
    return unbroadcast(grad, xp)


def _interp_jvp_xp(t, x, xp, fp, period):
    _check_period(period)
    piece, inside = _interp_piece(x, xp)
    s, slope = _interp_position(x, xp, fp, piece)
    t = np.asarray(t)
    return np.where(inside, -slope * ((1.0 - s) * t[piece] + s * t[piece + 1]), 0.0)


def _beyond(x, xp, side):
    """Where np.interp reads its `left` (x < xp[0]) or `right` (x > xp[-1]) value."""
    return np.asarray(x) < xp[0] if side == "left" else np.asarray(x) > xp[-1]


@defvjp(np.interp, "xp")
def interp_vjp_xp(g, ans, x, xp, fp, left=None, right=None, period=None):
    return _interp_vjp_xp(g, x, xp, fp, period)


@defvjp(np.interp, "left")
def interp_vjp_left(g, ans, x, xp, fp, left=None, right=None, period=None):
    return unbroadcast(np.where(_beyond(x, xp, "left"), g, 0.0), left)


@defvjp(np.interp, "right")
def interp_vjp_right(g, ans, x, xp, fp, left=None, right=None, period=None):
    return unbroadcast(np.where(_beyond(x, xp, "right"), g, 0.0), right)


@defjvp(np.interp, "xp")
def interp_jvp_xp(t, ans, x, xp, fp, left=None, right=None, period=None):
    return _like_result(_interp_jvp_xp(t, x, xp, fp, period), ans)


@defjvp(np.interp, "left")
def interp_jvp_left(t, ans, x, xp, fp, left=None, right=None, period=None):
    return _like_result(np.where(_beyond(x, xp, "left"), t, 0.0), ans)


@defjvp(np.interp, "right")
def interp_jvp_right(t, ans, x, xp, fp, left=None, right=None, period=None):
    return _like_result(np.where(_beyond(x, xp, "right"), t, 0.0), ans)


# --- np.diff: prepend, append; np.ediff1d: to_begin, to_end -----------------------------


def _diff_edge_vjp(g, x, n, axis, prepend, append, first):
    """The part of the transposed differences that falls on `prepend` (`first`) or `append`."""
    full = _diff_full(g, n, axis)
    start = _edge_length(prepend, axis)
    where = range(0, start) if first else range(start + np.shape(x)[axis], np.shape(full)[axis])
    return unbroadcast(np.take(full, where, axis=axis), prepend if first else append)


def _diff_edge_jvp(t, x, n, axis, prepend, append, first):
    """np.diff with `t` for this edge and zeros for x and the other edge."""
    t = np.asarray(t)
    dtype = np.result_type(t, 1.0)
    edges = {"prepend": t} if first else {"append": t}
    other = append if first else prepend
    if other is not None:
        edges["append" if first else "prepend"] = np.zeros(np.shape(other), dtype)
    return np.diff(np.zeros(np.shape(x), dtype), n=n, axis=axis, **edges)


@defvjp(np.diff, "prepend")
def diff_vjp_prepend(g, ans, x, n=1, axis=-1, prepend=None, append=None):
    return _diff_edge_vjp(g, x, n, axis, prepend, append, True)


@defvjp(np.diff, "append")
def diff_vjp_append(g, ans, x, n=1, axis=-1, prepend=None, append=None):
    return _diff_edge_vjp(g, x, n, axis, prepend, append, False)


@defjvp(np.diff, "prepend")
def diff_jvp_prepend(t, ans, x, n=1, axis=-1, prepend=None, append=None):
    return _like_result(_diff_edge_jvp(t, x, n, axis, prepend, append, True), ans)


@defjvp(np.diff, "append")
def diff_jvp_append(t, ans, x, n=1, axis=-1, prepend=None, append=None):
    return _like_result(_diff_edge_jvp(t, x, n, axis, prepend, append, False), ans)


def _ediff1d_edges(ans, to_end, to_begin):
    """Where np.ediff1d's output holds `to_begin` and where `to_end` (flat slices)."""
    begin = np.size(to_begin) if to_begin is not None else 0
    end = np.size(to_end) if to_end is not None else 0
    return slice(0, begin), slice(np.size(ans) - end, np.size(ans))


def _ediff1d_edge_jvp(t, ans, part):
    out = np.zeros(np.size(ans), np.result_type(ans))
    out[part] = np.ravel(t)
    return out


@defvjp(np.ediff1d, "to_begin")
def ediff1d_vjp_to_begin(g, ans, ary, to_end=None, to_begin=None):
    return unbroadcast(np.reshape(np.asarray(g)[_ediff1d_edges(ans, to_end, to_begin)[0]], np.shape(to_begin)), to_begin)


@defvjp(np.ediff1d, "to_end")
def ediff1d_vjp_to_end(g, ans, ary, to_end=None, to_begin=None):
    return unbroadcast(np.reshape(np.asarray(g)[_ediff1d_edges(ans, to_end, to_begin)[1]], np.shape(to_end)), to_end)


@defjvp(np.ediff1d, "to_begin")
def ediff1d_jvp_to_begin(t, ans, ary, to_end=None, to_begin=None):
    return _ediff1d_edge_jvp(t, ans, _ediff1d_edges(ans, to_end, to_begin)[0])


@defjvp(np.ediff1d, "to_end")
def ediff1d_jvp_to_end(t, ans, ary, to_end=None, to_begin=None):
    return _ediff1d_edge_jvp(t, ans, _ediff1d_edges(ans, to_end, to_begin)[1])


# --- np.pad: constant_values, end_values ---------------------------------------------


def _pad_value_pairs_grad(pairs, values):
    """A gradient shaped (ndim, 2), one entry per (axis, side), folded back to the shape of
    the `values` passed, as np.pad's `_as_pairs` spreads them."""
    shape = np.shape(values)
    if np.size(values) == 1:
        return _shaped_like(np.reshape(np.sum(pairs), shape), values)
    if np.size(values) == 2 and shape != (2, 1):
        return _shaped_like(np.reshape(np.sum(pairs, axis=0), shape), values)
    summed = np.sum(pairs, axis=tuple(range(2 - len(shape))))  # axes broadcasting added
    return _shaped_like(np.sum(summed, axis=tuple(a for a, n in enumerate(shape) if n == 1), keepdims=True), values)


def _shaped_like(grad, values):
    """The array `grad` (shaped like `values`) as `values` is: nested lists or tuples entry
    by entry, an array or number cast like it."""
    if isinstance(values, (list, tuple)):
        return _like([_shaped_like(part, v) for part, v in zip(grad, values)], values)
    return unbroadcast(grad, values)


_PAD_READS = {"constant": "constant_values", "linear_ramp": "end_values"}  # mode -> the values it pads with


def _pad_values_vjp(g, x, pad_width, mode, key, values):
    """The transpose of the padding values' linear map: g against the padding of zeros
    with one (axis, side) value set to 1 at a time."""
    ndim = np.ndim(x)
    g = np.asarray(g)
    zeros = np.zeros(np.shape(x), np.result_type(g, 1.0))
    pairs = np.zeros((ndim, 2), zeros.dtype)
    if key != _PAD_READS.get(mode):  # a mode that does not read these values: they get nothing
        return _pad_value_pairs_grad(pairs, values)
    for k in range(ndim):
        for side in (0, 1):
            one = np.zeros((ndim, 2))
            one[k, side] = 1.0
            pairs[k, side] = np.sum(g * np.pad(zeros, pad_width, mode, **{key: one}))
    return _pad_value_pairs_grad(pairs, values)


def _pad_values_jvp(t, x, pad_width, mode, key):
    t = np.asarray(t)
    return np.pad(np.zeros(np.shape(x), np.result_type(t, 1.0)), pad_width, mode, **{key: t})


@defvjp(np.pad, "constant_values")
def pad_vjp_constant_values(
    g, ans, x, pad_width, mode="constant", *, stat_length=None, constant_values=0, end_values=0, reflect_type="even"
):
    return _pad_values_vjp(g, x, pad_width, mode, "constant_values", constant_values)


@defvjp(np.pad, "end_values")
def pad_vjp_end_values(
    g, ans, x, pad_width, mode="constant", *, stat_length=None, constant_values=0, end_values=0, reflect_type="even"
):
    return _pad_values_vjp(g, x, pad_width, mode, "end_values", end_values)


@defjvp(np.pad, "constant_values")
def pad_jvp_constant_values(
    t, ans, x, pad_width, mode="constant", *, stat_length=None, constant_values=0, end_values=0, reflect_type="even"
):
    return _like_result(_pad_values_jvp(t, x, pad_width, mode, "constant_values"), ans)


@defjvp(np.pad, "end_values")
def pad_jvp_end_values(
    t, ans, x, pad_width, mode="constant", *, stat_length=None, constant_values=0, end_values=0, reflect_type="even"
):
    return _like_result(_pad_values_jvp(t, x, pad_width, mode, "end_values"), ans)


# --- np.nan_to_num: nan, posinf, neginf -----------------------------------------------


def _replaced(x, which):
    """Where np.nan_to_num puts its `nan`, `posinf` or `neginf` value."""
    if which == "nan":
        return np.isnan(x)
    return np.isposinf(x) if which == "posinf" else np.isneginf(x)


@defvjp(np.nan_to_num, "nan")
def nan_to_num_vjp_nan(g, ans, x, copy=True, nan=0.0, posinf=None, neginf=None):
    return unbroadcast(np.where(_replaced(x, "nan"), g, 0.0), nan)


@defvjp(np.nan_to_num, "posinf")
def nan_to_num_vjp_posinf(g, ans, x, copy=True, nan=0.0, posinf=None, neginf=None):
    return unbroadcast(np.where(_replaced(x, "posinf"), g, 0.0), posinf)


@defvjp(np.nan_to_num, "neginf")
def nan_to_num_vjp_neginf(g, ans, x, copy=True, nan=0.0, posinf=None, neginf=None):
    return unbroadcast(np.where(_replaced(x, "neginf"), g, 0.0), neginf)


@defjvp(np.nan_to_num, "nan")
def nan_to_num_jvp_nan(t, ans, x, copy=True, nan=0.0, posinf=None, neginf=None):
    return _like_result(np.where(_replaced(x, "nan"), t, 0.0), ans)


@defjvp(np.nan_to_num, "posinf")
def nan_to_num_jvp_posinf(t, ans, x, copy=True, nan=0.0, posinf=None, neginf=None):
    return _like_result(np.where(_replaced(x, "posinf"), t, 0.0), ans)


@defjvp(np.nan_to_num, "neginf")
def nan_to_num_jvp_neginf(t, ans, x, copy=True, nan=0.0, posinf=None, neginf=None):
    return _like_result(np.where(_replaced(x, "neginf"), t, 0.0), ans)
