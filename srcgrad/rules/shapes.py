"""Linear maps of one array that move, select or copy its elements: reshape, ravel,
transpose, swapaxes, moveaxis, squeeze, expand_dims, broadcast_to, flip, roll, rot90,
diag, diagonal, triu/tril, pad, tile, repeat, take, take_along_axis, sort, indexing,
copies, and the `x.flatten()` / `x.item()` methods. Other array methods reach these
rules through `methods.py` (`x.reshape(2, 3)` is `np.reshape(x, (2, 3))`), so
`np.transpose` also accepts the packed forms of `x.transpose(...)`.

Each reverse rule is the transpose of the map: a permutation is undone, a selection is
scattered back with repeated indices adding up (`np.add.at`), a copy is summed. Forward
rules apply the primal to the tangent. Joining and splitting several arrays lives in
`structure.py`.

np.pad: 'constant', 'empty' (its padding counts as constant) and the copying modes
'edge', 'reflect', 'symmetric', 'wrap' are linear maps as above. 'linear_ramp' (ends
constant) and the statistic modes 'mean', 'maximum', 'minimum', 'median' (with
`stat_length`) pad one axis after another, as NumPy does; the rules go through those
steps, a padded statistic passing its gradient to the entries it was computed from
(ties of maximum/minimum share it equally, like np.max). Only the forward rule covers
reflect_type='odd'; a callable mode has no rules.

Indexing a list or tuple (`pair[0]`) gives a gradient of the same container kind with
the cotangent at the index and None elsewhere.
"""

import operator

import numpy as np

from ..runtime import unbroadcast, zeros_like_grad
from .reductions import _extremum_share
from .registry import defjvp, defvjp, numpy2
from .statistics import _median_share

# --- helpers ------------------------------------------------------------------------


def _zeros(x):
    """A writable zero gradient shaped like x, in x's float dtype."""
    return zeros_like_grad(np.asarray(x))


def _axes(axes):
    """transpose's `axes`, also when packed from a method call: `x.transpose()` gives
    (), `x.transpose((1, 0))` gives ((1, 0),). None means reverse all axes."""
    if axes is None or len(axes) == 0:
        return None
    return tuple(axes[0]) if len(axes) == 1 and np.ndim(axes[0]) == 1 else tuple(axes)


def _inverse_axes(axes, ndim):
    """The permutation undoing `np.transpose(_, axes)`; None stays None (a reversal)."""
    axes = _axes(axes)
    return None if axes is None else tuple(np.argsort([a % ndim for a in axes]))


def _unravel(g, x, order):
    """The transpose of `np.ravel(x, order)`: put a flat gradient back in x's shape."""
    if order in ("C", "F"):
        return np.reshape(g, np.shape(x), order=order)
    return np.reshape(g, -1)[np.argsort(_ravel_positions(x, order))].reshape(np.shape(x))


def _ravel_positions(x, order):
    """For each flat output position of `np.ravel(x, order)`, the C-order input index."""
    positions = np.empty_like(x, dtype=np.intp)
    positions[...] = np.arange(np.size(x)).reshape(np.shape(x))
    return np.ravel(positions, order=order)


def _ravel_tangent(t, x, order):
    if order in ("C", "F"):
        return np.ravel(t, order=order)
    return np.reshape(t, -1)[_ravel_positions(x, order)]


# --- reshape, ravel, flatten --------------------------------------------------------


@defvjp(np.reshape, "x")
def reshape_vjp(g, ans, x, shape, order="C", *, copy=None):
    return np.reshape(g, np.shape(x), order=order)


@defjvp(np.reshape, "x")
def reshape_jvp(t, ans, x, shape, order="C", *, copy=None):
    return np.reshape(t, np.shape(ans), order=order)


@defvjp(np.ravel, "x")
@defvjp(np.ndarray.flatten, "x", name="Flatten")
def ravel_vjp(g, ans, x, order="C"):
    return _unravel(g, x, order)


@defjvp(np.ravel, "x")
@defjvp(np.ndarray.flatten, "x")
def ravel_jvp(t, ans, x, order="C"):
    return _ravel_tangent(t, x, order)


@defvjp(np.expand_dims, "x")
def expand_dims_vjp(g, ans, x, axis):
    return np.reshape(g, np.shape(x))


@defjvp(np.expand_dims, "x")
def expand_dims_jvp(t, ans, x, axis):
    return np.expand_dims(t, axis)


@defvjp(np.squeeze, "x")
def squeeze_vjp(g, ans, x, axis=None):
    return np.reshape(g, np.shape(x))


@defjvp(np.squeeze, "x")
def squeeze_jvp(t, ans, x, axis=None):
    return np.squeeze(t, axis)


@defvjp(np.broadcast_to, "x")
def broadcast_to_vjp(g, ans, x, shape, subok=False):
    return unbroadcast(g, x)


@defjvp(np.broadcast_to, "x")
def broadcast_to_jvp(t, ans, x, shape, subok=False):
    return np.broadcast_to(t, shape)


# --- axis permutations --------------------------------------------------------------


@defvjp(np.transpose, "x")
def transpose_vjp(g, ans, x, axes=None):
    return np.transpose(g, _inverse_axes(axes, np.ndim(x)))


@defjvp(np.transpose, "x")
def transpose_jvp(t, ans, x, axes=None):
    return np.transpose(t, _axes(axes))


@defvjp(numpy2("matrix_transpose"), "x")
@defvjp(numpy2("linalg.matrix_transpose"), "x")
def matrix_transpose_vjp(g, ans, x):
    return np.matrix_transpose(g)


@defjvp(numpy2("matrix_transpose"), "x")
@defjvp(numpy2("linalg.matrix_transpose"), "x")
def matrix_transpose_jvp(t, ans, x):
    return np.matrix_transpose(t)


@defvjp(np.swapaxes, "x")
def swapaxes_vjp(g, ans, x, axis1, axis2):
    return np.swapaxes(g, axis1, axis2)


@defjvp(np.swapaxes, "x")
def swapaxes_jvp(t, ans, x, axis1, axis2):
    return np.swapaxes(t, axis1, axis2)


@defvjp(np.moveaxis, "x")
def moveaxis_vjp(g, ans, x, source, destination):
    return np.moveaxis(g, destination, source)


@defjvp(np.moveaxis, "x")
def moveaxis_jvp(t, ans, x, source, destination):
    return np.moveaxis(t, source, destination)


def _rollaxis_inverse(g, ndim, axis, start):
    """Undo `np.rollaxis(_, axis, start)` on an array of `ndim` dimensions."""
    axis, start = axis % ndim, start + ndim if start < 0 else start
    destination = start if start <= axis else start - 1
    return np.moveaxis(g, destination, axis)


@defvjp(np.rollaxis, "x")
def rollaxis_vjp(g, ans, x, axis, start=0):
    return _rollaxis_inverse(g, np.ndim(x), axis, start)


@defjvp(np.rollaxis, "x")
def rollaxis_jvp(t, ans, x, axis, start=0):
    return np.rollaxis(t, axis, start)


# --- reversals and rotations --------------------------------------------------------


@defvjp(np.flip, "x")
def flip_vjp(g, ans, x, axis=None):
    return np.flip(g, axis)


@defjvp(np.flip, "x")
def flip_jvp(t, ans, x, axis=None):
    return np.flip(t, axis)


@defvjp(np.fliplr, "x")
def fliplr_vjp(g, ans, x):
    return np.fliplr(g)


@defjvp(np.fliplr, "x")
def fliplr_jvp(t, ans, x):
    return np.fliplr(t)


@defvjp(np.flipud, "x")
def flipud_vjp(g, ans, x):
    return np.flipud(g)


@defjvp(np.flipud, "x")
def flipud_jvp(t, ans, x):
    return np.flipud(t)


@defvjp(np.roll, "x")
def roll_vjp(g, ans, x, shift, axis=None):
    return np.roll(g, np.negative(shift), axis)


@defjvp(np.roll, "x")
def roll_jvp(t, ans, x, shift, axis=None):
    return np.roll(t, shift, axis)


@defvjp(np.rot90, "x")
def rot90_vjp(g, ans, x, k=1, axes=(0, 1)):
    return np.rot90(g, -k, axes)


@defjvp(np.rot90, "x")
def rot90_jvp(t, ans, x, k=1, axes=(0, 1)):
    return np.rot90(t, k, axes)


# --- diagonals and triangles --------------------------------------------------------


def _diagonal_length(shape, offset, axis1, axis2):
    return max(0, min(shape[axis1] - max(-offset, 0), shape[axis2] - max(offset, 0)))


def _diagonal_scatter(g, x, offset, axis1, axis2):
    """Zeros shaped like x with `g` written on the chosen diagonal: the transpose of
    `np.diagonal`. A `g` without the diagonal axis (from a trace) fills it by broadcasting."""
    out = _zeros(x)
    view = np.moveaxis(out, (axis1, axis2), (-2, -1))
    steps = np.arange(_diagonal_length(np.shape(x), offset, axis1, axis2))
    g = g if np.ndim(g) == view.ndim - 1 else np.expand_dims(g, -1)
    view[..., steps + max(-offset, 0), steps + max(offset, 0)] = g
    return out


@defvjp(np.diagonal, "x")
def diagonal_vjp(g, ans, x, offset=0, axis1=0, axis2=1):
    return _diagonal_scatter(g, x, offset, axis1, axis2)


@defjvp(np.diagonal, "x")
def diagonal_jvp(t, ans, x, offset=0, axis1=0, axis2=1):
    return np.diagonal(t, offset, axis1, axis2)


@defvjp(numpy2("linalg.diagonal"), "x")
def linalg_diagonal_vjp(g, ans, x, *, offset=0):
    return _diagonal_scatter(g, x, offset, -2, -1)


@defjvp(numpy2("linalg.diagonal"), "x")
def linalg_diagonal_jvp(t, ans, x, *, offset=0):
    return np.linalg.diagonal(t, offset=offset)


def _diag_vjp(g, v, k):
    """np.diag builds a matrix from a vector and reads a diagonal from a matrix."""
    if np.ndim(v) == 1:
        return unbroadcast(np.diag(g, k), v)
    return _diagonal_scatter(g, v, k, 0, 1)


@defvjp(np.diag, "v")
def diag_vjp(g, ans, v, k=0):
    return _diag_vjp(g, v, k)


@defjvp(np.diag, "v")
def diag_jvp(t, ans, v, k=0):
    return np.diag(t, k)


@defvjp(np.diagflat, "v")
def diagflat_vjp(g, ans, v, k=0):
    return unbroadcast(np.reshape(np.diag(g, k), np.shape(v)), v)


@defjvp(np.diagflat, "v")
def diagflat_jvp(t, ans, v, k=0):
    return np.diagflat(t, k)


@defvjp(np.triu, "x")
def triu_vjp(g, ans, x, k=0):
    return np.triu(g, k)


@defjvp(np.triu, "x")
def triu_jvp(t, ans, x, k=0):
    return np.triu(t, k)


@defvjp(np.tril, "x")
def tril_vjp(g, ans, x, k=0):
    return np.tril(g, k)


@defjvp(np.tril, "x")
def tril_jvp(t, ans, x, k=0):
    return np.tril(t, k)


# --- copies: tile, repeat, pad ------------------------------------------------------


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


@defvjp(np.pad, "x")
def pad_vjp(g, ans, x, pad_width, mode="constant", **kwargs):
    return _pad_vjp(g, x, pad_width, mode, kwargs)


@defjvp(np.pad, "x")
def pad_jvp(t, ans, x, pad_width, mode="constant", **kwargs):
    return _pad_jvp(t, x, pad_width, mode, kwargs)


# --- selections: take, take_along_axis, indexing, sort ------------------------------


def _take_vjp(g, x, indices, axis, mode):
    flat = axis is None
    n = np.size(x) if flat else np.shape(x)[axis]
    indices = np.asarray(indices)
    if mode == "wrap":
        indices = indices % n
    elif mode == "clip":
        indices = np.clip(indices, 0, n - 1)
    out = _zeros(np.ravel(x)) if flat else _zeros(x)
    position = (slice(None),) * (0 if flat else axis % np.ndim(x)) + (indices,)
    np.add.at(out, position, g)
    return unbroadcast(np.reshape(out, np.shape(x)), x)


@defvjp(np.take, "x")
def take_vjp(g, ans, x, indices, axis=None, out=None, mode="raise"):
    return _take_vjp(g, x, indices, axis, mode)


@defjvp(np.take, "x")
def take_jvp(t, ans, x, indices, axis=None, out=None, mode="raise"):
    return np.take(t, indices, axis=axis, mode=mode)


def _along(v, axis, ndim):
    """A 1-D array shaped to broadcast along `axis` of an ndim-dimensional array."""
    shape = [1] * ndim
    shape[axis] = -1
    return np.reshape(v, shape)


def _take_along_axis_vjp(g, x, indices, axis):
    if axis is None:
        out = _zeros(np.ravel(x))
        np.add.at(out, indices, g)
        return np.reshape(out, np.shape(x))
    ndim = np.ndim(x)
    axis = axis % ndim
    # the index of each output entry along every other axis, broadcast against indices
    position = tuple(
        indices if d == axis else _along(np.arange(np.shape(g)[d]), d, ndim) for d in range(ndim)
    )
    out = _zeros(x)
    np.add.at(out, position, g)
    return out


@defvjp(np.take_along_axis, "x")
def take_along_axis_vjp(g, ans, x, indices, axis=-1):
    return _take_along_axis_vjp(g, x, indices, axis)


@defjvp(np.take_along_axis, "x")
def take_along_axis_jvp(t, ans, x, indices, axis=-1):
    return np.take_along_axis(t, indices, axis)


def _getitem_vjp(g, x, index):
    """Scatter-add `g` into zeros shaped like `x` (repeated indices accumulate).

    For a list or tuple `x` the gradient is a list or tuple with None for the entries
    not read; for a dict, a dict holding only the entry read.
    """
    if isinstance(x, dict):
        return {index: g}
    if isinstance(x, (list, tuple)):
        grads = [None] * len(x)
        if isinstance(index, slice):
            for i, item in zip(range(*index.indices(len(x))), g):
                grads[i] = item
        else:
            grads[index] = g
        return grads if isinstance(x, list) else tuple(grads)
    out = _zeros(x)
    np.add.at(out, index, g)
    return out


@defvjp(operator.getitem, "x", name="Index")
def getitem_vjp(g, ans, x, index):
    return _getitem_vjp(g, x, index)


@defjvp(operator.getitem, "x")
def getitem_jvp(t, ans, x, index):
    return t[index]


def _sort_order(x, axis):
    return np.argsort(np.ravel(x) if axis is None else x, axis=-1 if axis is None else axis, kind="stable")


def _sort_vjp(g, x, axis):
    """Send each sorted entry's gradient back to the position it came from."""
    order = _sort_order(x, axis)
    if axis is None:
        out = _zeros(np.ravel(x))
        out[order] = g
        return np.reshape(out, np.shape(x))
    out = _zeros(x)
    np.put_along_axis(out, order, g, axis)
    return out


def _sort_jvp(t, x, axis):
    order = _sort_order(x, axis)
    return np.ravel(t)[order] if axis is None else np.take_along_axis(t, order, axis)


@defvjp(np.sort, "x")
def sort_vjp(g, ans, x, axis=-1, kind=None, order=None, *, stable=None):
    return _sort_vjp(g, x, axis)


@defjvp(np.sort, "x")
def sort_jvp(t, ans, x, axis=-1, kind=None, order=None, *, stable=None):
    return _sort_jvp(t, x, axis)


def _item_position(shape, args):
    """The C-order flat position that `x.item(*args)` reads."""
    if len(args) == 1 and not np.isscalar(args[0]):
        args = tuple(args[0])
    if not args:
        return 0
    return args[0] % int(np.prod(shape)) if len(args) == 1 else np.ravel_multi_index(args, shape)


def _item_vjp(g, x, args):
    out = _zeros(x)
    out.reshape(-1)[_item_position(np.shape(x), args)] = g
    return out


@defvjp(np.ndarray.item, "x")
def item_vjp(g, ans, x, *args):
    return _item_vjp(g, x, args)


@defjvp(np.ndarray.item, "x")
def item_jvp(t, ans, x, *args):
    return np.asarray(t).item(*args)


# --- copies ----------------------------------------------------------------------------


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
    return unbroadcast(g, fill_value)


@defjvp(np.full_like, "fill_value")
def full_like_jvp(t, ans, x, fill_value, dtype=None, order="K", subok=True, shape=None, *, device=None):
    return np.broadcast_to(t, np.shape(ans))


@defvjp(np.full_like, "x")
def full_like_vjp_x(g, ans, x, fill_value, dtype=None, order="K", subok=True, shape=None, *, device=None):
    return zeros_like_grad(x)  # only x's shape and dtype are read


@defjvp(np.full_like, "x")
def full_like_jvp_x(t, ans, x, fill_value, dtype=None, order="K", subok=True, shape=None, *, device=None):
    return zeros_like_grad(ans)
