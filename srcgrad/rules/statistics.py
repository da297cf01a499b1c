"""Statistics along axes: average median quantile percentile (and nanmedian nanquantile
nanpercentile), and cov corrcoef (sums, means, products, extrema and scans are in
`reductions.py`, var and std in `variances.py`, whose conventions for `axis` and
`keepdims` these rules follow).

Gradients spread back through `runtime.unreduce`. `average` differentiates its
`weights` too; with `returned=True` it takes its cotangent as a pair (average, sum of
weights), None for an output that receives no gradient. quantile and percentile
differentiate `q` too, for every method of NumPy, without weights (the methods that pick
entries, 'lower', 'nearest', 'inverted_cdf' and the like, are constant in q between their
jumps, where q's derivative is 0). Chosen subgradients: median
splits the gradient between the middle elements, and quantile/percentile between the
two entries they interpolate. NaN entries get a zero gradient in nanmedian, nanquantile and
nanpercentile, which pick their middle and interpolated entries among the others. cov
and corrcoef take their variables as rows as NumPy does (`rowvar`, `y` stacked after
`m`); cov's `fweights` and `aweights` are constants (a differentiated weight has no rule).
"""

import numpy as np

from ..runtime import unbroadcast, unreduce, zeros_like_grad
from .reductions import _along_last, _float_dtype
from .registry import defjvp, defvjp, supports
from .variances import _centered

# --- median, quantile, percentile ---------------------------------------------------


def _median_share(x, axis):
    """Weight 1 on the middle entry of each reduced slice, or 1/2 on the two middle ones."""
    flat, restore = _along_last(x, axis)
    order = np.argsort(flat, axis=-1, kind="stable")
    n = flat.shape[-1]
    share = np.zeros(flat.shape, dtype=_float_dtype(x))
    for middle in {(n - 1) // 2, n // 2}:
        np.put_along_axis(share, order[..., middle : middle + 1], 1.0 if n % 2 else 0.5, axis=-1)
    return restore(share)


@defvjp(np.median, "x")
def median_vjp(g, ans, x, axis=None, out=None, overwrite_input=False, keepdims=False):
    return unreduce(g, x, axis, keepdims) * _median_share(x, axis)


@defjvp(np.median, "x")
def median_jvp(t, ans, x, axis=None, out=None, overwrite_input=False, keepdims=False):
    return np.sum(t * _median_share(x, axis), axis=axis, keepdims=keepdims)


def _nan_median_share(x, axis):
    """Weight 1 on the middle non-NaN entry of each reduced slice, or 1/2 on the two middle
    ones; 0 on NaN entries and on slices of NaN only."""
    flat, restore = _along_last(x, axis)
    order = np.argsort(flat, axis=-1, kind="stable")  # NaN last
    count = np.sum(~np.isnan(flat), axis=-1, keepdims=True)
    ranks = np.arange(flat.shape[-1])
    in_rank_order = 0.5 * (ranks == (count - 1) // 2) + 0.5 * (ranks == count // 2)
    share = np.zeros(flat.shape, dtype=_float_dtype(x))
    np.put_along_axis(share, order, np.where(count > 0, in_rank_order, 0.0), axis=-1)
    return restore(share)


@defvjp(np.nanmedian, "x")
def nanmedian_vjp(g, ans, x, axis=None, out=None, overwrite_input=False, keepdims=False):
    return unreduce(g, x, axis, keepdims) * _nan_median_share(x, axis)


@defjvp(np.nanmedian, "x")
def nanmedian_jvp(t, ans, x, axis=None, out=None, overwrite_input=False, keepdims=False):
    return np.sum(np.where(np.isnan(x), 0.0, t) * _nan_median_share(x, axis), axis=axis, keepdims=keepdims)


_LINEAR = ("use a method NumPy defines (the default 'linear'), unweighted, or write the weighted quantile out with "
           "np.sort, np.cumsum and np.interp")


# d(position in the sorted slice) / dq per slice of n entries, for the methods that
# interpolate (Hyndman and Fan's alpha and beta: n + 1 - alpha - beta); the others pick
# entries, constant in q between jumps
_POSITION_SLOPE = {
    "linear": -1.0, "hazen": 0.0, "weibull": 1.0, "median_unbiased": 1.0 / 3.0, "normal_unbiased": 0.25,
    "interpolated_inverted_cdf": 0.0,
}
_PICKING = ("lower", "higher", "nearest", "midpoint", "inverted_cdf", "averaged_inverted_cdf", "closest_observation")


def _positions(count, q, method):
    """The position in the sorted slice that np.quantile(..., method) interpolates at, for
    slices of `count` entries (an array over the kept axes) at each q (q's axes, then the
    kept axes), and d position / dq. NumPy's own quantile of 0, 1, ..., count - 1 is
    that position, since it interpolates linearly between neighbouring ranks."""
    shape = q.shape + count.shape
    position = np.zeros(shape)
    slope = np.zeros(shape)
    for n in np.unique(count):
        if n == 0:
            continue
        at = np.broadcast_to(count == n, shape)
        probe = np.quantile(np.arange(float(n)), q, method=method)
        here = np.broadcast_to(np.reshape(probe, q.shape + (1,) * count.ndim), shape)
        position[at] = here[at]
        if method in _POSITION_SLOPE:
            inside = (here > 0) & (here < n - 1)
            slope[at & inside] = n + _POSITION_SLOPE[method]
    return position, slope


def _quantile_parts(x, q, axis, method, weights, scale, skip_nan=False):
    """For np.quantile(x, q / scale, axis, method=method) (np.nanquantile with
    `skip_nan`: each slice's non-NaN entries only): the weights each output puts on the
    entries of x (q's axes, then x's kept axes, then the reduced entries flattened
    last), d output / d q (q's axes, then kept axes), and the function putting a
    flattened-slice array back in x's shape. NaN entries get weight 0."""
    if weights is not None or (method not in _POSITION_SLOPE and method not in _PICKING):
        raise NotImplementedError(
            f"srcgrad differentiates np.quantile, np.percentile and their nan* forms without weights only, not "
            f"{'method=' + repr(method) if weights is None else 'weights='}; {_LINEAR}"
        )
    flat, restore = _along_last(x, axis)
    n = flat.shape[-1]
    order = np.argsort(flat, axis=-1, kind="stable")  # NaN last
    ranked = np.take_along_axis(flat, order, axis=-1)
    count = np.sum(~np.isnan(flat), axis=-1) if skip_nan else np.full(flat.shape[:-1], n)  # kept axes
    q = np.asarray(q, dtype=np.float64) / scale
    shape = q.shape + flat.shape[:-1]  # q's axes, then kept axes
    last = np.maximum(count - 1, 0)
    if method == "linear":
        position = np.reshape(q, q.shape + (1,) * (flat.ndim - 1)) * last
        dposition = np.broadcast_to(last, shape)
    else:
        position, dposition = _positions(np.asarray(count), q, method)
    low = np.broadcast_to(np.clip(np.floor(position).astype(np.intp), 0, last), shape)
    high = np.minimum(low + 1, last)
    frac = np.broadcast_to(position - low, shape)
    ranks = np.arange(n)
    in_rank_order = (ranks == low[..., None]) * (1.0 - frac[..., None]) + (ranks == high[..., None]) * frac[..., None]
    in_rank_order = in_rank_order * (count > 0)[..., None]  # a slice of NaN only: no weights
    positions = np.broadcast_to(np.argsort(order, axis=-1), in_rank_order.shape)
    weights_on_x = np.take_along_axis(in_rank_order, positions, axis=-1).astype(_float_dtype(x), copy=False)
    ranked = np.broadcast_to(ranked, shape + (n,))
    gap = np.take_along_axis(ranked, high[..., None], -1)[..., 0] - np.take_along_axis(ranked, low[..., None], -1)[..., 0]
    slope = gap * (dposition / scale).astype(_float_dtype(x))
    return weights_on_x, slope, restore


def _quantile_vjp_x(g, ans, x, q, axis, method, keepdims, weights, scale, skip_nan=False):
    weights_on_x, _, restore = _quantile_parts(x, q, axis, method, weights, scale, skip_nan)
    g = np.reshape(g, weights_on_x.shape[:-1])
    return restore(np.sum(np.expand_dims(g, -1) * weights_on_x, axis=tuple(range(np.ndim(q)))))


def _quantile_jvp_x(t, ans, x, q, axis, method, keepdims, weights, scale, skip_nan=False):
    weights_on_x, _, _ = _quantile_parts(x, q, axis, method, weights, scale, skip_nan)
    flat, _ = _along_last(np.where(np.isnan(x), 0.0, t) if skip_nan else t, axis)
    return np.reshape(np.sum(weights_on_x * flat, axis=-1), np.shape(ans))


def _quantile_vjp_q(g, ans, x, q, axis, method, keepdims, weights, scale, skip_nan=False):
    _, slope, _ = _quantile_parts(x, q, axis, method, weights, scale, skip_nan)
    g = np.reshape(g, slope.shape)
    return unbroadcast(np.sum(g * slope, axis=tuple(range(np.ndim(q), slope.ndim))), q)


def _quantile_jvp_q(t, ans, x, q, axis, method, keepdims, weights, scale, skip_nan=False):
    _, slope, _ = _quantile_parts(x, q, axis, method, weights, scale, skip_nan)
    t = np.reshape(t, np.shape(t) + (1,) * (slope.ndim - np.ndim(q)))
    return np.reshape(t * slope, np.shape(ans)).astype(np.result_type(ans), copy=False)


@defvjp(np.quantile, "x")
def quantile_vjp_x(
    g, ans, x, q, axis=None, out=None, overwrite_input=False, method="linear", keepdims=False, *, weights=None
):
    return _quantile_vjp_x(g, ans, x, q, axis, method, keepdims, weights, 1.0)


@defvjp(np.quantile, "q")
def quantile_vjp_q(
    g, ans, x, q, axis=None, out=None, overwrite_input=False, method="linear", keepdims=False, *, weights=None
):
    return _quantile_vjp_q(g, ans, x, q, axis, method, keepdims, weights, 1.0)


@defjvp(np.quantile, "x")
def quantile_jvp_x(
    t, ans, x, q, axis=None, out=None, overwrite_input=False, method="linear", keepdims=False, *, weights=None
):
    return _quantile_jvp_x(t, ans, x, q, axis, method, keepdims, weights, 1.0)


@defjvp(np.quantile, "q")
def quantile_jvp_q(
    t, ans, x, q, axis=None, out=None, overwrite_input=False, method="linear", keepdims=False, *, weights=None
):
    return _quantile_jvp_q(t, ans, x, q, axis, method, keepdims, weights, 1.0)


@defvjp(np.percentile, "x")
def percentile_vjp_x(
    g, ans, x, q, axis=None, out=None, overwrite_input=False, method="linear", keepdims=False, *, weights=None
):
    return _quantile_vjp_x(g, ans, x, q, axis, method, keepdims, weights, 100.0)


@defvjp(np.percentile, "q")
def percentile_vjp_q(
    g, ans, x, q, axis=None, out=None, overwrite_input=False, method="linear", keepdims=False, *, weights=None
):
    return _quantile_vjp_q(g, ans, x, q, axis, method, keepdims, weights, 100.0)


@defjvp(np.percentile, "x")
def percentile_jvp_x(
    t, ans, x, q, axis=None, out=None, overwrite_input=False, method="linear", keepdims=False, *, weights=None
):
    return _quantile_jvp_x(t, ans, x, q, axis, method, keepdims, weights, 100.0)


@defjvp(np.percentile, "q")
def percentile_jvp_q(
    t, ans, x, q, axis=None, out=None, overwrite_input=False, method="linear", keepdims=False, *, weights=None
):
    return _quantile_jvp_q(t, ans, x, q, axis, method, keepdims, weights, 100.0)


@defvjp(np.nanquantile, "x")
def nanquantile_vjp_x(
    g, ans, x, q, axis=None, out=None, overwrite_input=False, method="linear", keepdims=False, *, weights=None
):
    return _quantile_vjp_x(g, ans, x, q, axis, method, keepdims, weights, 1.0, True)


@defvjp(np.nanquantile, "q")
def nanquantile_vjp_q(
    g, ans, x, q, axis=None, out=None, overwrite_input=False, method="linear", keepdims=False, *, weights=None
):
    return _quantile_vjp_q(g, ans, x, q, axis, method, keepdims, weights, 1.0, True)


@defjvp(np.nanquantile, "x")
def nanquantile_jvp_x(
    t, ans, x, q, axis=None, out=None, overwrite_input=False, method="linear", keepdims=False, *, weights=None
):
    return _quantile_jvp_x(t, ans, x, q, axis, method, keepdims, weights, 1.0, True)


@defjvp(np.nanquantile, "q")
def nanquantile_jvp_q(
    t, ans, x, q, axis=None, out=None, overwrite_input=False, method="linear", keepdims=False, *, weights=None
):
    return _quantile_jvp_q(t, ans, x, q, axis, method, keepdims, weights, 1.0, True)


@defvjp(np.nanpercentile, "x")
def nanpercentile_vjp_x(
    g, ans, x, q, axis=None, out=None, overwrite_input=False, method="linear", keepdims=False, *, weights=None
):
    return _quantile_vjp_x(g, ans, x, q, axis, method, keepdims, weights, 100.0, True)


@defvjp(np.nanpercentile, "q")
def nanpercentile_vjp_q(
    g, ans, x, q, axis=None, out=None, overwrite_input=False, method="linear", keepdims=False, *, weights=None
):
    return _quantile_vjp_q(g, ans, x, q, axis, method, keepdims, weights, 100.0, True)


@defjvp(np.nanpercentile, "x")
def nanpercentile_jvp_x(
    t, ans, x, q, axis=None, out=None, overwrite_input=False, method="linear", keepdims=False, *, weights=None
):
    return _quantile_jvp_x(t, ans, x, q, axis, method, keepdims, weights, 100.0, True)


@defjvp(np.nanpercentile, "q")
def nanpercentile_jvp_q(
    t, ans, x, q, axis=None, out=None, overwrite_input=False, method="linear", keepdims=False, *, weights=None
):
    return _quantile_jvp_q(t, ans, x, q, axis, method, keepdims, weights, 100.0, True)



# --- average ------------------------------------------------------------------------


def _full_weights(x, weights, axis):
    """`weights` aligned with x the way np.average aligns them, broadcast to x's shape."""
    x = np.asarray(x)
    w = np.asarray(weights)
    if w.shape != x.shape:
        given = axis if isinstance(axis, tuple) else (axis,)
        given = [a % x.ndim for a in given]
        w = np.transpose(w, np.argsort(given))
        w = w.reshape([x.shape[a] if a in given else 1 for a in range(x.ndim)])
    return np.broadcast_to(w, x.shape)


def _fold_weights(gw, x, weights, axis):
    """The transpose of `_full_weights`: a gradient shaped like x back onto `weights`."""
    if np.shape(weights) != np.shape(x):
        given = [a % np.ndim(x) for a in (axis if isinstance(axis, tuple) else (axis,))]
        gw = np.sum(gw, axis=tuple(a for a in range(np.ndim(x)) if a not in given))
        gw = np.transpose(gw, np.argsort(np.argsort(given)))
    return unbroadcast(gw, weights)


def _average_parts(g, ans, returned):
    """(cotangent of the average, of the weight sum, the average) for either output form."""
    return (g[0], g[1], ans[0]) if returned else (g, None, ans)


def _average_vjp_x(g, ans, x, axis, weights, returned, keepdims):
    g_avg, _, avg = _average_parts(g, ans, returned)
    if g_avg is None:
        return zeros_like_grad(x)
    spread = unreduce(g_avg, x, axis, keepdims)
    if weights is None:
        return unbroadcast(spread * (np.size(avg) / max(np.size(x), 1)), x)
    w = _full_weights(x, weights, axis)
    return unbroadcast(spread * (w / np.sum(w, axis=axis, keepdims=True)), x)


def _average_vjp_weights(g, ans, x, axis, weights, returned, keepdims):
    g_avg, g_total, avg = _average_parts(g, ans, returned)
    w = _full_weights(x, weights, axis)
    gw = np.zeros(np.shape(x), dtype=_float_dtype(w))
    if g_avg is not None:
        offset = x - unreduce(avg, x, axis, keepdims)
        gw = gw + unreduce(g_avg, x, axis, keepdims) * offset / np.sum(w, axis=axis, keepdims=True)
    if g_total is not None:
        gw = gw + unreduce(g_total, x, axis, keepdims)
    return _fold_weights(gw, x, weights, axis)


def _average_jvp_x(t, ans, x, axis, weights, returned, keepdims):
    avg_dot = np.average(t, axis=axis, weights=weights, keepdims=keepdims)
    return (avg_dot, np.zeros_like(ans[1])) if returned else avg_dot


def _average_jvp_weights(t, ans, x, axis, weights, returned, keepdims):
    _, _, avg = _average_parts((None, None), ans, returned)
    w = _full_weights(x, weights, axis)
    tw = _full_weights(x, t, axis)
    offset = x - unreduce(avg, x, axis, keepdims)
    avg_dot = np.sum(tw * offset, axis=axis, keepdims=keepdims) / np.sum(w, axis=axis, keepdims=keepdims)
    if not returned:
        return avg_dot
    return avg_dot, np.broadcast_to(np.sum(tw, axis=axis, keepdims=keepdims), np.shape(avg))


@defvjp(np.average, "x")
def average_vjp_x(g, ans, x, axis=None, weights=None, returned=False, *, keepdims=False):
    return _average_vjp_x(g, ans, x, axis, weights, returned, keepdims)


@defvjp(np.average, "weights")
def average_vjp_weights(g, ans, x, axis=None, weights=None, returned=False, *, keepdims=False):
    return _average_vjp_weights(g, ans, x, axis, weights, returned, keepdims)


@defjvp(np.average, "x")
def average_jvp_x(t, ans, x, axis=None, weights=None, returned=False, *, keepdims=False):
    return _average_jvp_x(t, ans, x, axis, weights, returned, keepdims)


@defjvp(np.average, "weights")
def average_jvp_weights(t, ans, x, axis=None, weights=None, returned=False, *, keepdims=False):
    return _average_jvp_weights(t, ans, x, axis, weights, returned, keepdims)


# --- cov, corrcoef ------------------------------------------------------------------


def _variables(m, y, rowvar):
    """np.cov's variables as the rows of one float array (y's after m's)."""

    def rows(a):
        a = np.array(a, ndmin=2, dtype=np.result_type(a, np.float64))
        return a.T if not rowvar and a.shape[0] != 1 else a

    return rows(m) if y is None else np.concatenate((rows(m), rows(y)), axis=0)


def _dof_of(rows, bias, ddof):
    return rows.shape[1] - (ddof if ddof is not None else (0 if bias else 1))


def _layout(a, rowvar):
    """How many variable rows the argument `a` gives, and whether they are its columns."""
    shape = (1,) * (2 - np.ndim(a)) + np.shape(a)  # np.cov's ndmin=2
    turned = not rowvar and shape[0] != 1
    return (shape[1] if turned else shape[0]), turned


def _argument_grad(grad_rows, m, y, rowvar, of_y):
    """The part of a gradient of the variable rows that belongs to `m` (to `y` when
    `of_y`), in that argument's shape and float dtype."""
    a = y if of_y else m
    first = _layout(m, rowvar)[0] if of_y else 0
    count, turned = _layout(a, rowvar)
    part = grad_rows[first:first + count]
    return np.reshape(part.T if turned else part, np.shape(a)).astype(_float_dtype(a), copy=False)


def _cov_weights(fweights, aweights):
    """np.cov's weight per observation (fweights times aweights), or None. The weights are
    constants here: a differentiated weight has no rule."""
    if fweights is None and aweights is None:
        return None
    w = np.asarray(fweights if fweights is not None else aweights, dtype=np.float64)
    return w * np.asarray(aweights, dtype=np.float64) if fweights is not None and aweights is not None else w


def _cov_centered(rows, w):
    """The rows minus their (weighted) means."""
    return _centered(rows, 1) if w is None else rows - (rows @ w / np.sum(w))[:, None]


def _cov_dof(rows, bias, ddof, w, aweights):
    """np.cov's divisor: observations minus ddof, or its weighted form."""
    if w is None:
        return _dof_of(rows, bias, ddof)
    ddof = ddof if ddof is not None else (0 if bias else 1)
    total = np.sum(w)
    if ddof == 0:
        return total
    return total - ddof if aweights is None else total - ddof * np.sum(w * np.asarray(aweights)) / total


def _cov_grad_rows(g, rows, dof, w=None):
    """d sum(g * cov) / d rows: (g + g.T) @ centered W / dof (the weighted centered rows sum
    to 0, so the mean's own derivative adds nothing)."""
    k = rows.shape[0]
    g = np.reshape(g, (k, k))
    centered = _cov_centered(rows, w)
    return (g + g.T) @ (centered if w is None else centered * w) / dof


def _cov_tangent(t, of_y, m, y, rows, rowvar, dof, w=None):
    """The (k, k) tangent of cov for the tangent `t` of `m` (of `y` when `of_y`)."""
    t_m = np.zeros(np.shape(m)) if of_y else t
    t_y = None if y is None else (t if of_y else np.zeros(np.shape(y)))
    centered = _cov_centered(rows, w)
    product = _cov_centered(_variables(t_m, t_y, rowvar), w) @ (centered if w is None else centered * w).T
    return (product + product.T) / dof


def _cov_vjp(g, m, y, rowvar, bias, ddof, fweights, aweights, of_y):
    rows = _variables(m, y, rowvar)
    w = _cov_weights(fweights, aweights)
    grad = _cov_grad_rows(g, rows, _cov_dof(rows, bias, ddof, w, aweights), w)
    return _argument_grad(grad, m, y, rowvar, of_y)


def _cov_jvp(t, ans, m, y, rowvar, bias, ddof, fweights, aweights, of_y):
    rows = _variables(m, y, rowvar)
    w = _cov_weights(fweights, aweights)
    tangent = _cov_tangent(t, of_y, m, y, rows, rowvar, _cov_dof(rows, bias, ddof, w, aweights), w)
    return np.reshape(tangent, np.shape(ans))


@defvjp(np.cov, "m")
def cov_vjp_m(g, ans, m, y=None, rowvar=True, bias=False, ddof=None, fweights=None, aweights=None, *, dtype=None):
    return _cov_vjp(g, m, y, rowvar, bias, ddof, fweights, aweights, False)


@defvjp(np.cov, "y")
def cov_vjp_y(g, ans, m, y=None, rowvar=True, bias=False, ddof=None, fweights=None, aweights=None, *, dtype=None):
    return _cov_vjp(g, m, y, rowvar, bias, ddof, fweights, aweights, True)


@defjvp(np.cov, "m")
def cov_jvp_m(t, ans, m, y=None, rowvar=True, bias=False, ddof=None, fweights=None, aweights=None, *, dtype=None):
    return _cov_jvp(t, ans, m, y, rowvar, bias, ddof, fweights, aweights, False)


@defjvp(np.cov, "y")
def cov_jvp_y(t, ans, m, y=None, rowvar=True, bias=False, ddof=None, fweights=None, aweights=None, *, dtype=None):
    return _cov_jvp(t, ans, m, y, rowvar, bias, ddof, fweights, aweights, True)


def _correlation(rows):
    """cov of the rows as a (k, k) array (corrcoef's divisor, n - 1) and its standard
    deviations s = sqrt(diag cov)."""
    c = np.atleast_2d(np.cov(rows))
    return c, np.sqrt(np.diag(c))


def _corrcoef_vjp(g, ans, x, y, rowvar, of_y):
    """Through cov's: d sum(g * R) / d C for R = C / (s s^T) is g / (s s^T) less, on the
    diagonal, (rowsum + colsum of g * R) / (2 s^2). The clipping of R to [-1, 1] only
    ever meets its diagonal, whose derivative this makes 0 as it is."""
    rows = _variables(x, y, rowvar)
    c, s = _correlation(rows)
    k = c.shape[0]
    g = np.reshape(g, (k, k))
    scale = np.outer(s, s)
    gr = g * (c / scale)
    g_c = g / scale - np.diag((gr.sum(axis=0) + gr.sum(axis=1)) / (2.0 * s * s))
    return _argument_grad(_cov_grad_rows(g_c, rows, rows.shape[1] - 1), x, y, rowvar, of_y)


def _corrcoef_jvp(t, ans, x, y, rowvar, of_y):
    rows = _variables(x, y, rowvar)
    c, s = _correlation(rows)
    t_c = _cov_tangent(t, of_y, x, y, rows, rowvar, rows.shape[1] - 1)
    scale = np.outer(s, s)
    half = np.diag(t_c) / (2.0 * s * s)
    return np.reshape(t_c / scale - (c / scale) * (half[:, None] + half[None, :]), np.shape(ans))


@defvjp(np.corrcoef, "x")
def corrcoef_vjp_x(g, ans, x, y=None, rowvar=True, *, dtype=None):
    return _corrcoef_vjp(g, ans, x, y, rowvar, False)


@defvjp(np.corrcoef, "y")
def corrcoef_vjp_y(g, ans, x, y=None, rowvar=True, *, dtype=None):
    return _corrcoef_vjp(g, ans, x, y, rowvar, True)


@defjvp(np.corrcoef, "x")
def corrcoef_jvp_x(t, ans, x, y=None, rowvar=True, *, dtype=None):
    return _corrcoef_jvp(t, ans, x, y, rowvar, False)


@defjvp(np.corrcoef, "y")
def corrcoef_jvp_y(t, ans, x, y=None, rowvar=True, *, dtype=None):
    return _corrcoef_jvp(t, ans, x, y, rowvar, True)


for _primal in (np.quantile, np.percentile, np.nanquantile, np.nanpercentile):
    supports(_primal, "method", tuple(_POSITION_SLOPE) + _PICKING, _LINEAR)
