"""Reductions and scans along axes: sum mean prod max min ptp, their nan* forms, the
log-sum-exps np.logaddexp.reduce and np.logaddexp2.reduce, cumsum, cumprod (and their
NumPy 2.1 spellings np.cumulative_sum, np.cumulative_prod) and the running extrema
np.maximum/minimum.accumulate (var, std, average, median and quantiles are in
`statistics.py`, differences and integrals in `series.py`).

`axis` may be None, an int (negative too) or a tuple, with `keepdims` either way.
Gradients spread back through `runtime.unreduce`; forward rules reduce the tangent the
same way the primal reduces its input. sum, mean, prod, max and min (amax, amin,
nanmax, nanmin, nansum, nanmean, nanprod and the array methods) take `where=`: entries it
leaves out get a zero gradient. sum, prod, max and min (and nansum, nanprod) take
`initial=`, which is differentiable too.
Chosen subgradients: max/min (and nanmax/nanmin, ptp) share the gradient equally between
tied extrema, `initial` counting as one more entry; a running maximum or minimum that
ties takes its gradient from the earliest entry that reached it (np.argmax's choice),
later equal entries get none. prod and cumprod are exact when the input holds zeros.
NaN entries get a zero gradient in the nan* reductions.
"""

import math

import numpy as np

from ..runtime import unbroadcast, unreduce
from .registry import defjvp, defvjp, numpy2

# --- helpers ------------------------------------------------------------------------


def _float_dtype(x):
    dtype = np.asarray(x).dtype  # np.result_type reads a list of floats as a structured dtype
    return dtype if dtype.kind in "fc" else np.dtype(np.float64)


def _axes(axis, ndim):
    """`axis` (None, int or tuple) as a sorted tuple of non-negative axes."""
    if axis is None:
        return tuple(range(ndim))
    axes = axis if isinstance(axis, tuple) else (axis,)
    return tuple(sorted(a % ndim for a in axes))


def _to_last(x, axis):
    """`x` with its reduced axes moved to the end and flattened into one (kept axes in
    order first); `_from_last(a, x, axis)` puts an array of that shape back."""
    x = np.asarray(x)
    axes = _axes(axis, x.ndim)
    kept = [a for a in range(x.ndim) if a not in axes]
    moved = np.transpose(x, kept + list(axes))
    return np.reshape(moved, moved.shape[: len(kept)] + (math.prod(moved.shape[len(kept):]),))  # not -1: size 0


def _from_last(a, x, axis):
    """The inverse of `_to_last(x, axis)`: `a`, shaped like it, back in x's layout."""
    axes = _axes(axis, np.ndim(x))
    order = [k for k in range(np.ndim(x)) if k not in axes] + list(axes)
    moved = np.reshape(a, tuple(np.shape(x)[k] for k in order))
    return np.transpose(moved, np.argsort(order))


def _along_last(x, axis):
    """`_to_last(x, axis)` and the function putting an array of that shape back (for
    helpers that are not differentiated; differentiated ones call `_from_last`)."""

    def restore(a):
        return _from_last(a, x, axis)

    return _to_last(x, axis), restore


def _reverse_cumsum(a, axis):
    """Sums from each position to the end: the transpose of cumsum."""
    axis = 0 if axis is None else axis
    return np.flip(np.cumsum(np.flip(a, axis), axis), axis)


def _not_nan(x):
    return ~np.isnan(x)


def _valid_tangent(t, x):
    """`t` with 0 where `x` is NaN: the NaN-ignoring reductions leave those entries out,
    and their tangent may be NaN itself (a NaN primal's tangent, `2 * y * y_dot`), which a
    product with a 0/1 mask would keep."""
    return np.where(np.isnan(x), 0.0, t)


def _nan_as(x, value):
    return np.where(np.isnan(x), value, x)


def _valid_count(x, axis):
    """How many non-NaN entries each reduction sees (keepdims), in x's float dtype."""
    return np.sum(_not_nan(x), axis=axis, keepdims=True, dtype=_float_dtype(x))


def _masked(grad, where):
    """`grad` (shaped like the reduced x) with the entries `where=` leaves out set to 0."""
    return np.where(where, grad, 0.0)


def _masked_mean_vjp(g, x, axis, keepdims, where):
    """np.mean(x, where=mask): each selected entry gets g / (entries selected in its slice)."""
    mask = np.broadcast_to(where, np.shape(x))
    count = np.sum(mask, axis=axis, keepdims=True, dtype=_float_dtype(x))
    return np.where(mask, unreduce(g, x, axis, keepdims) / np.maximum(count, 1.0), 0.0)


def _kept(ans, x, axis, keepdims):
    """The reduction's result `ans` with the reduced axes kept (length 1)."""
    if keepdims:
        return ans
    return np.reshape(ans, [1 if a in _axes(axis, np.ndim(x)) else n for a, n in enumerate(np.shape(x))])


# --- sum, mean ----------------------------------------------------------------------


@defvjp(np.sum, "x")
def sum_vjp(g, ans, x, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=True):
    return unreduce(g, x, axis, keepdims) if where is True else _masked(unreduce(g, x, axis, keepdims), where)


@defvjp(np.sum, "initial")
def sum_vjp_initial(g, ans, x, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=True):
    return unbroadcast(g, initial)


@defjvp(np.sum, "x")
def sum_jvp(t, ans, x, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=True):
    return (
        np.sum(t, axis=axis, keepdims=keepdims) if where is True else np.sum(t, axis=axis, keepdims=keepdims, where=where)
    )


@defjvp(np.sum, "initial")
def sum_jvp_initial(t, ans, x, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=True):
    return np.zeros_like(ans) + t


# np.logaddexp.reduce / np.logaddexp2.reduce: a log-sum-exp along `axis` (in base e or 2),
# whose gradient is each entry's share exp(x - ans) (2 ** (x - ans)), ans kept. A slice of
# only -inf (a state no path reaches, in a dynamic program in log space) has ans -inf and
# passes on no gradient: its shares are taken as exp(-inf - 0) = 0, not exp(nan).


@defvjp(np.logaddexp.reduce, "x", name="Logsumexp")
def logaddexp_reduce_vjp(g, ans, x, axis=0, dtype=None, out=None, keepdims=False):
    return unreduce(g, x, axis, keepdims) * np.exp(x - unreduce(np.where(ans == -np.inf, 0.0, ans), x, axis, keepdims))


@defjvp(np.logaddexp.reduce, "x")
def logaddexp_reduce_jvp(t, ans, x, axis=0, dtype=None, out=None, keepdims=False):
    return np.sum(t * np.exp(x - unreduce(np.where(ans == -np.inf, 0.0, ans), x, axis, keepdims)), axis=axis, keepdims=keepdims)


@defvjp(np.logaddexp2.reduce, "x", name="Logsumexp2")
def logaddexp2_reduce_vjp(g, ans, x, axis=0, dtype=None, out=None, keepdims=False):
    return unreduce(g, x, axis, keepdims) * np.exp2(x - unreduce(np.where(ans == -np.inf, 0.0, ans), x, axis, keepdims))


@defjvp(np.logaddexp2.reduce, "x")
def logaddexp2_reduce_jvp(t, ans, x, axis=0, dtype=None, out=None, keepdims=False):
    return np.sum(t * np.exp2(x - unreduce(np.where(ans == -np.inf, 0.0, ans), x, axis, keepdims)), axis=axis, keepdims=keepdims)


@defvjp(np.mean, "x")
def mean_vjp(g, ans, x, axis=None, dtype=None, out=None, keepdims=False, *, where=True):
    return (
        unreduce(g * (np.size(ans) / max(np.size(x), 1)), x, axis, keepdims)
        if where is True
        else _masked_mean_vjp(g, x, axis, keepdims, where)
    )


@defjvp(np.mean, "x")
def mean_jvp(t, ans, x, axis=None, dtype=None, out=None, keepdims=False, *, where=True):
    return (
        np.mean(t, axis=axis, keepdims=keepdims) if where is True else np.mean(t, axis=axis, keepdims=keepdims, where=where)
    )


def _counted(x, where):
    """The entries a nan* reduction counts: not NaN, and selected by `where=`."""
    return _not_nan(x) if where is True else _not_nan(x) & where


def _counted_tangent(t, x, where):
    """`t` with 0 where a nan* reduction does not count `x` (`_valid_tangent` with `where=`)."""
    return np.where(_counted(x, where), t, 0.0)


@defvjp(np.nansum, "x")
def nansum_vjp(g, ans, x, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=True):
    return unreduce(g, x, axis, keepdims) * _counted(x, where)


@defvjp(np.nansum, "initial")
def nansum_vjp_initial(g, ans, x, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=True):
    return unbroadcast(g, initial)


@defjvp(np.nansum, "x")
def nansum_jvp(t, ans, x, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=True):
    return np.sum(_valid_tangent(t, x) if where is True else _counted_tangent(t, x, where), axis=axis,
                  keepdims=keepdims)


@defjvp(np.nansum, "initial")
def nansum_jvp_initial(t, ans, x, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=True):
    return np.zeros_like(ans) + t


def _nan_mean_share(x, axis, where):
    """d nanmean / dx: 1 / (entries counted) on each entry counted, 0 elsewhere (also in a
    slice of NaNs alone, whose mean is NaN)."""
    if where is True:
        return _not_nan(x) / np.maximum(_valid_count(x, axis), 1.0)
    counted = _counted(x, where)
    return counted / np.maximum(np.sum(counted, axis=axis, keepdims=True, dtype=_float_dtype(x)), 1.0)


@defvjp(np.nanmean, "x")
def nanmean_vjp(g, ans, x, axis=None, dtype=None, out=None, keepdims=False, *, where=True):
    return unreduce(g, x, axis, keepdims) * _nan_mean_share(x, axis, where)


@defjvp(np.nanmean, "x")
def nanmean_jvp(t, ans, x, axis=None, dtype=None, out=None, keepdims=False, *, where=True):
    return np.sum(_valid_tangent(t, x) / np.maximum(_valid_count(x, axis), 1.0) if where is True
                  else _counted_tangent(t, x, where) * _nan_mean_share(x, axis, where), axis=axis, keepdims=keepdims)


# --- prod ---------------------------------------------------------------------------


def _exclusive_product(a, axis):
    """Product of all other entries along `axis`, with no division (exact with zeros)."""
    if np.shape(a)[axis] == 0:  # no entries: nothing to multiply
        return np.ones_like(a)
    ones = np.ones_like(np.take(a, [0], axis=axis))
    left = np.cumprod(np.concatenate([ones, np.take(a, range(a.shape[axis] - 1), axis=axis)], axis), axis)
    rev = np.flip(a, axis)
    right = np.cumprod(np.concatenate([ones, np.take(rev, range(a.shape[axis] - 1), axis=axis)], axis), axis)
    return left * np.flip(right, axis)


def _prod_of_others(x, axis):
    """For each entry, the product of the other entries it is reduced with."""
    return _from_last(_exclusive_product(_to_last(x, axis), -1), x, axis)


def _masked_prod_of_others(x, axis, where):
    """`_prod_of_others` of np.prod(x, where=mask): left-out entries count as 1 and get 0."""
    return _masked(_prod_of_others(np.where(where, x, 1.0), axis), where)


@defvjp(np.prod, "x")
def prod_vjp(g, ans, x, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=True):
    return unreduce(g if initial is None else g * initial, x, axis, keepdims) * (
        _prod_of_others(x, axis) if where is True else _masked_prod_of_others(x, axis, where)
    )


@defvjp(np.prod, "initial")
def prod_vjp_initial(g, ans, x, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=True):
    return unbroadcast(g * np.prod(x, axis=axis, keepdims=keepdims, where=where), initial)


@defjvp(np.prod, "x")
def prod_jvp(t, ans, x, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=True):
    return np.sum(
        (t if initial is None else t * initial)
        * (_prod_of_others(x, axis) if where is True else _masked_prod_of_others(x, axis, where)),
        axis=axis, keepdims=keepdims,
    )


@defjvp(np.prod, "initial")
def prod_jvp_initial(t, ans, x, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=True):
    return t * np.prod(x, axis=axis, keepdims=keepdims, where=where)


def _nan_prod_of_others(x, axis, where):
    """d nanprod / dx: the product of the other entries counted (NaN and entries `where=`
    leaves out count as 1), 0 on the entries not counted."""
    counted = _counted(x, where)
    return _prod_of_others(np.where(counted, x, 1.0), axis) * counted


@defvjp(np.nanprod, "x")
def nanprod_vjp(g, ans, x, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=True):
    return unreduce(g if initial is None else g * initial, x, axis, keepdims) * _nan_prod_of_others(x, axis, where)


@defvjp(np.nanprod, "initial")
def nanprod_vjp_initial(g, ans, x, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=True):
    return unbroadcast(g * np.nanprod(x, axis=axis, keepdims=keepdims, where=where), initial)


@defjvp(np.nanprod, "x")
def nanprod_jvp(t, ans, x, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=True):
    return np.sum(
        (_valid_tangent(t, x) if where is True else _counted_tangent(t, x, where)) * (1.0 if initial is None else initial)
        * _nan_prod_of_others(x, axis, where), axis=axis, keepdims=keepdims
    )


@defjvp(np.nanprod, "initial")
def nanprod_jvp_initial(t, ans, x, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=True):
    return t * np.nanprod(x, axis=axis, keepdims=keepdims, where=where)


# --- max, min, ptp ------------------------------------------------------------------


def _extremum_share(ans, x, axis, keepdims, initial=None, where=True):
    """1/k on each of the k entries equal to the extremum `ans`, 0 elsewhere. Entries that
    `where=` leaves out do not count; `initial`, when given, counts as one more entry."""
    hit = x == unreduce(ans, x, axis, keepdims)
    if where is not True:
        hit = hit & where
    count = np.sum(hit, axis=axis, keepdims=True)
    if initial is not None:
        count = count + (_kept(ans, x, axis, keepdims) == initial)
    return (hit / count).astype(_float_dtype(x), copy=False)


def _initial_share(ans, x, axis, keepdims, initial, where):
    """The share of max/min(x, initial=...) that goes to `initial` (1/k when it ties with
    k - 1 entries of x), shaped like `ans`."""
    kept = _kept(ans, x, axis, keepdims)
    hit = (x == unreduce(ans, x, axis, keepdims)) & where
    at_initial = kept == initial
    share = at_initial / (np.sum(hit, axis=axis, keepdims=True) + at_initial)
    return np.reshape(share, np.shape(ans)).astype(_float_dtype(x), copy=False)


def _nan_extremum_share(ans, x, axis, keepdims, initial=None, where=True):
    """_extremum_share of np.nanmax/nanmin, with 0 on the entries that are NaN: a slice of
    NaNs alone (NaN, with a RuntimeWarning) takes nothing from its entries, which NumPy
    leaves out as it leaves out a NaN beside numbers (0/0 before, as JAX gives 0)."""
    share = _extremum_share(ans, x, axis, keepdims) if initial is None else _extremum_share(
        ans, x, axis, keepdims, initial, where)
    return np.where(np.isnan(x), 0.0, share).astype(share.dtype, copy=False)


@defvjp(np.max, "x", name="Max")
@defvjp(np.amax, "x", name="Max")
@defvjp(np.min, "x", name="Min")
@defvjp(np.amin, "x", name="Min")
def extremum_vjp(g, ans, x, axis=None, out=None, keepdims=False, initial=None, where=True):
    """g shared among the entries equal to the extremum; the others get +0 (`+ 0.0`: g * 0 is
    -0 for a negative g), as PyTorch's gradient of max and min. One `return`, so that the
    compiler inlines it (and its forward rules see through it: Hessians)."""
    return unreduce(g, x, axis, keepdims) * (
        _extremum_share(ans, x, axis, keepdims)
        if initial is None
        else _extremum_share(ans, x, axis, keepdims, initial, where)
    ) + 0.0


@defvjp(np.nanmax, "x", name="Max")
@defvjp(np.nanmin, "x", name="Min")
def nan_extremum_vjp(g, ans, x, axis=None, out=None, keepdims=False, initial=None, where=True):
    return unreduce(g, x, axis, keepdims) * _nan_extremum_share(ans, x, axis, keepdims, initial, where) + 0.0


@defvjp(np.max, "initial")
@defvjp(np.amax, "initial")
@defvjp(np.nanmax, "initial")
@defvjp(np.min, "initial")
@defvjp(np.amin, "initial")
@defvjp(np.nanmin, "initial")
def extremum_vjp_initial(g, ans, x, axis=None, out=None, keepdims=False, initial=None, where=True):
    return unbroadcast(g * _initial_share(ans, x, axis, keepdims, initial, where), initial)


@defjvp(np.max, "x")
@defjvp(np.amax, "x")
@defjvp(np.min, "x")
@defjvp(np.amin, "x")
def extremum_jvp(t, ans, x, axis=None, out=None, keepdims=False, initial=None, where=True):
    return np.sum(
        t * (
            _extremum_share(ans, x, axis, keepdims)
            if initial is None
            else _extremum_share(ans, x, axis, keepdims, initial, where)
        ),
        axis=axis, keepdims=keepdims,
    )


@defjvp(np.nanmax, "x")
@defjvp(np.nanmin, "x")
def nan_extremum_jvp(t, ans, x, axis=None, out=None, keepdims=False, initial=None, where=True):
    return np.sum(
        _valid_tangent(t, x) * _nan_extremum_share(ans, x, axis, keepdims, initial, where), axis=axis, keepdims=keepdims,
    )


@defjvp(np.max, "initial")
@defjvp(np.amax, "initial")
@defjvp(np.nanmax, "initial")
@defjvp(np.min, "initial")
@defjvp(np.amin, "initial")
@defjvp(np.nanmin, "initial")
def extremum_jvp_initial(t, ans, x, axis=None, out=None, keepdims=False, initial=None, where=True):
    return t * _initial_share(ans, x, axis, keepdims, initial, where)


def _ptp_share(x, axis):
    """d ptp / dx: the max's share minus the min's share."""
    top = np.max(x, axis=axis, keepdims=True)
    bottom = np.min(x, axis=axis, keepdims=True)
    return _extremum_share(top, x, axis, True) - _extremum_share(bottom, x, axis, True)


@defvjp(np.ptp, "x")
def ptp_vjp(g, ans, x, axis=None, out=None, keepdims=False):
    return unreduce(g, x, axis, keepdims) * _ptp_share(x, axis)


@defjvp(np.ptp, "x")
def ptp_jvp(t, ans, x, axis=None, out=None, keepdims=False):
    return np.sum(t * _ptp_share(x, axis), axis=axis, keepdims=keepdims)


# --- scans: cumsum, cumprod ---------------------------------------------------------


@defvjp(np.cumsum, "x")
def cumsum_vjp(g, ans, x, axis=None, dtype=None, out=None):
    return np.reshape(_reverse_cumsum(g, axis), np.shape(x))


@defjvp(np.cumsum, "x")
def cumsum_jvp(t, ans, x, axis=None, dtype=None, out=None):
    return np.cumsum(t, axis=axis)


@defvjp(np.add.accumulate, "x", name="Cumsum")
def add_accumulate_vjp(g, ans, x, axis=0, dtype=None, out=None):
    return _reverse_cumsum(g, axis)


@defjvp(np.add.accumulate, "x")
def add_accumulate_jvp(t, ans, x, axis=0, dtype=None, out=None):
    return np.add.accumulate(t, axis)


def _running_source(ans, axis):
    """For np.maximum/minimum.accumulate: the index (along `axis`, moved last) of the entry
    each running extremum is taken from. A tie keeps the earlier entry (np.argmax's choice):
    the running extremum moves only when an entry is strictly beyond it (a NaN, once met,
    stays the source)."""
    am = np.moveaxis(np.asarray(ans), axis, -1)
    moved = (am[..., 1:] != am[..., :-1]) & ~np.isnan(am[..., :-1])
    starts = np.concatenate([np.ones(am.shape[:-1] + (1,), dtype=bool), moved], axis=-1)
    return np.maximum.accumulate(np.where(starts, np.arange(am.shape[-1]), 0), axis=-1)


def _running_extremum_vjp(g, ans, x, axis):
    """Each output's cotangent goes to the entry its value came from (`_running_source`)."""
    source = _running_source(ans, axis)
    gm = np.moveaxis(np.asarray(g), axis, -1)
    n = source.shape[-1]
    lines = np.arange(source.size // max(n, 1)).reshape(source.shape[:-1] + (1,)) * n
    grad = np.bincount((lines + source).ravel(), weights=gm.ravel(), minlength=source.size)
    return unbroadcast(np.moveaxis(grad.reshape(source.shape), -1, axis), x)


def _running_extremum_jvp(t, ans, axis):
    tm = np.moveaxis(np.asarray(t), axis, -1)
    return np.moveaxis(np.take_along_axis(tm, _running_source(ans, axis), axis=-1), -1, axis)


@defvjp(np.maximum.accumulate, "x", name="Cummax")
@defvjp(np.minimum.accumulate, "x", name="Cummin")
def running_extremum_vjp(g, ans, x, axis=0, dtype=None, out=None):
    return _running_extremum_vjp(g, ans, x, axis)


@defjvp(np.maximum.accumulate, "x")
@defjvp(np.minimum.accumulate, "x")
def running_extremum_jvp(t, ans, x, axis=0, dtype=None, out=None):
    return _running_extremum_jvp(t, ans, axis)


@defvjp(np.nancumsum, "x")
def nancumsum_vjp(g, ans, x, axis=None, dtype=None, out=None):
    return np.reshape(_reverse_cumsum(g, axis), np.shape(x)) * _not_nan(x)


@defjvp(np.nancumsum, "x")
def nancumsum_jvp(t, ans, x, axis=None, dtype=None, out=None):
    return np.cumsum(_valid_tangent(t, x), axis=axis)


def _scan_last(a, axis):
    """`a` with the scanned axis last (flattened first when axis is None)."""
    if axis is None:
        return np.reshape(a, -1)
    return np.moveaxis(np.asarray(a), axis, -1)


def _scan_layout(axis, *arrays):
    """Each array with the scanned axis last (flattened first when axis is None)."""
    if axis is None:
        return [np.reshape(a, -1) for a in arrays]
    return [np.moveaxis(np.asarray(a), axis, -1) for a in arrays]


def _unscan_layout(a, x, axis):
    return np.reshape(a, np.shape(x)) if axis is None else np.moveaxis(a, -1, axis)


def _cumprod_pieces(x):
    """Masks before / at the first zero of each scan, and the products skipping that zero."""
    zeros_seen = np.cumsum(x == 0, axis=-1)
    before = zeros_seen == 0
    first = (x == 0) & (zeros_seen == 1)
    skipped = np.cumprod(np.where(first, 1.0, x), axis=-1)
    return before, first, skipped


def _cumprod_vjp(g, ans, x, axis):
    """Exact with zeros: entries before the first zero divide out; the first zero uses
    the products that skip it; entries after it get nothing."""
    gm, am, xm = _scan_layout(axis, g, ans, x)
    before, first, skipped = _cumprod_pieces(xm)
    part = _reverse_cumsum(gm * am, -1) / np.where(before, xm, 1.0)
    at_zero = _reverse_cumsum(gm * skipped, -1)
    grad = np.where(before, part, 0.0) + np.where(first, at_zero, 0.0)
    return _unscan_layout(grad, x, axis)


def _cumprod_jvp(t, ans, x, axis):
    tm, am, xm = _scan_layout(axis, t, ans, x)
    before, first, skipped = _cumprod_pieces(xm)
    part = am * np.cumsum(np.where(before, tm / np.where(before, xm, 1.0), 0.0), axis=-1)
    t_at_zero = np.sum(np.where(first, tm, 0.0), axis=-1, keepdims=True)
    out = np.where(before, part, t_at_zero * skipped)
    return out if axis is None else np.moveaxis(out, -1, axis)


@defvjp(np.cumprod, "x")
def cumprod_vjp(g, ans, x, axis=None, dtype=None, out=None):
    return _cumprod_vjp(g, ans, x, axis)


@defjvp(np.cumprod, "x")
def cumprod_jvp(t, ans, x, axis=None, dtype=None, out=None):
    return _cumprod_jvp(t, ans, x, axis)


@defvjp(np.nancumprod, "x")
def nancumprod_vjp(g, ans, x, axis=None, dtype=None, out=None):
    return _cumprod_vjp(g, ans, _nan_as(x, 1.0), axis) * _not_nan(x)


@defjvp(np.nancumprod, "x")
def nancumprod_jvp(t, ans, x, axis=None, dtype=None, out=None):
    return _cumprod_jvp(_valid_tangent(t, x), ans, _nan_as(x, 1.0), axis)


# np.cumulative_sum / np.cumulative_prod (NumPy 2.1): cumsum / cumprod along `axis` (None
# for 1-D input only), with `include_initial=True` putting the identity (0 or 1, a
# constant) in front: its cotangent is dropped, its tangent is 0.


def _scan_axis(axis):
    return 0 if axis is None else axis


def _without_initial(a, axis, include_initial):
    """`a` (a result, its cotangent or its tangent) without the leading initial entry."""
    if not include_initial:
        return a
    return np.take(a, range(1, np.shape(a)[_scan_axis(axis)]), axis=_scan_axis(axis))


def _with_initial(t, axis, include_initial):
    """The tangent `t` of the scan proper with the initial entry's zero tangent in front."""
    if not include_initial:
        return t
    zero = np.zeros_like(np.take(t, [0], axis=_scan_axis(axis)))
    return np.concatenate([zero, t], axis=_scan_axis(axis))


@defvjp(numpy2("cumulative_sum"), "x")
def cumulative_sum_vjp(g, ans, x, *, axis=None, dtype=None, out=None, include_initial=False):
    return _reverse_cumsum(_without_initial(g, axis, include_initial), _scan_axis(axis))


@defjvp(numpy2("cumulative_sum"), "x")
def cumulative_sum_jvp(t, ans, x, *, axis=None, dtype=None, out=None, include_initial=False):
    return np.cumulative_sum(t, axis=axis, include_initial=include_initial)


@defvjp(numpy2("cumulative_prod"), "x")
def cumulative_prod_vjp(g, ans, x, *, axis=None, dtype=None, out=None, include_initial=False):
    return _cumprod_vjp(
        _without_initial(g, axis, include_initial), _without_initial(ans, axis, include_initial), x, _scan_axis(axis)
    )


@defjvp(numpy2("cumulative_prod"), "x")
def cumulative_prod_jvp(t, ans, x, *, axis=None, dtype=None, out=None, include_initial=False):
    return _with_initial(
        _cumprod_jvp(t, _without_initial(ans, axis, include_initial), x, _scan_axis(axis)), axis, include_initial
    )
