"""Variances and standard deviations along axes: var std nanvar nanstd, with `ddof` or its
NumPy 2 name `correction`, `where=` and NumPy 2's `mean=` (the conventions for `axis`
and `keepdims` are those of `reductions.py`).

With c the centre (the mean of the entries counted, or the `mean=` given), a mask m of
the entries counted (`where=`, and the non-NaN entries for nanvar and nanstd) and
dof = count(m) - ddof, var = sum(m (x - c)^2) / dof. Its derivative in x is
2 m (x - c) / dof with c held fixed: a centre computed from x adds nothing, since
sum(m (x - c)) = 0 then; a `mean=` given is differentiated by itself
(-2 sum(m (x - c)) / dof, shaped like the `mean` passed). std = sqrt(var) gets a zero
gradient where it is 0 (all entries equal); entries left out or NaN get zero, also in a
slice of NaNs alone (whose nanvar and nanstd are NaN).
"""

import numpy as np

from ..runtime import unbroadcast, unreduce
from .reductions import _float_dtype, _valid_tangent
from .registry import defjvp, defvjp


def _centered(x, axis):
    return x - np.mean(x, axis=axis, keepdims=True)


def _over(g, ans):
    """g / ans, and 0 where ans is 0: std is 0 only when all entries are equal, a kink
    (or, for one entry, a constant) where 0 is the subgradient taken. A NumPy scalar
    for 0-d operands, as the division alone gives."""
    return np.where(ans == 0, 0.0, g / np.where(ans == 0, 1.0, ans))[()]


def _nan_std(ans):
    """nanstd's `ans` as the tangent's divisor: 0 (giving tangent 0) where it is NaN, a slice
    of NaNs alone whose entries NumPy leaves out."""
    return np.where(np.isnan(ans), 0.0, ans)


def _dof(ans, x, ddof):
    """Entries per reduction minus ddof: the divisor of var. Where that is 0 (no entries,
    or as many as ddof), a 0 of x's float dtype, which divides to inf or nan as np.var's
    own division does (a Python 0.0 raises ZeroDivisionError); with no entries the
    gradient is empty all the same."""
    n = np.size(ans)
    dof = np.size(x) / n - ddof if n else 0.0
    return dof if dof else _float_dtype(x).type(0.0)


def _counted(x, where, skip_nan):
    """The mask of the entries var counts (`where=`, and not NaN with `skip_nan`), x's shape."""
    mask = np.broadcast_to(where, np.shape(x))
    return mask & ~np.isnan(x) if skip_nan else mask


def _spread(ans, x, axis, ddof, where, mean, correction, skip_nan):
    """Half d var / dx: m (x - c) / dof (see the module's docstring), x's shape. Its
    parameters have no defaults: forward mode over its generated jvp (third derivatives)
    takes the tangents it passes by position only."""
    ddof = ddof if correction is None else correction
    if where is True and mean is None and not skip_nan:
        return _centered(x, axis) / _dof(ans, x, ddof)
    mask = _counted(x, where, skip_nan)
    count = np.sum(mask, axis=axis, keepdims=True, dtype=_float_dtype(x))
    if mean is None:
        mean = np.sum(np.where(mask, x, 0.0), axis=axis, keepdims=True) / np.maximum(count, 1.0)
    # a slice of NaNs alone (count 0) gives 0 on its entries, which NumPy leaves out; as many
    # entries as ddof divide to inf or nan, as np.nanvar's own division does
    return np.where(mask, x - mean, 0.0) / np.where(count == 0, 1.0, count - ddof)


def _mean_grad(g, x, axis, keepdims, spread, mean):
    """The gradient of a `mean=` passed to var: -sum(unreduced g * spread), mean's shape."""
    return unbroadcast(-np.sum(unreduce(g, x, axis, keepdims) * spread, axis=axis, keepdims=True), mean)


@defvjp(np.var, "x")
def var_vjp(
    g, ans, x, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=True, mean=None, correction=None
):
    return unreduce(2.0 * g, x, axis, keepdims) * _spread(ans, x, axis, ddof, where, mean, correction, False)


var_vjp.reads_only_the_shape_of = ("ans",)  # its size; as PyTorch's VarBackward0 saves only self


@defvjp(np.var, "mean")
def var_vjp_mean(
    g, ans, x, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=True, mean=None, correction=None
):
    return _mean_grad(2.0 * g, x, axis, keepdims, _spread(ans, x, axis, ddof, where, mean, correction, False), mean)


@defjvp(np.var, "x")
def var_jvp(
    t, ans, x, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=True, mean=None, correction=None
):
    return 2.0 * np.sum(t * _spread(ans, x, axis, ddof, where, mean, correction, False), axis=axis, keepdims=keepdims)


@defjvp(np.var, "mean")
def var_jvp_mean(
    t, ans, x, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=True, mean=None, correction=None
):
    return -2.0 * np.sum(t * _spread(ans, x, axis, ddof, where, mean, correction, False), axis=axis, keepdims=keepdims)


@defvjp(np.std, "x")
def std_vjp(
    g, ans, x, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=True, mean=None, correction=None
):
    return unreduce(_over(g, ans), x, axis, keepdims) * _spread(ans, x, axis, ddof, where, mean, correction, False)


@defvjp(np.std, "mean")
def std_vjp_mean(
    g, ans, x, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=True, mean=None, correction=None
):
    return _mean_grad(_over(g, ans), x, axis, keepdims, _spread(ans, x, axis, ddof, where, mean, correction, False), mean)


@defjvp(np.std, "x")
def std_jvp(
    t, ans, x, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=True, mean=None, correction=None
):
    return _over(np.sum(t * _spread(ans, x, axis, ddof, where, mean, correction, False), axis=axis, keepdims=keepdims), ans)


@defjvp(np.std, "mean")
def std_jvp_mean(
    t, ans, x, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=True, mean=None, correction=None
):
    return _over(np.sum(t * _spread(ans, x, axis, ddof, where, mean, correction, False), axis=axis, keepdims=keepdims), -ans)


@defvjp(np.nanvar, "x")
def nanvar_vjp(
    g, ans, x, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=True, mean=None, correction=None
):
    return unreduce(2.0 * g, x, axis, keepdims) * _spread(ans, x, axis, ddof, where, mean, correction, True)


@defvjp(np.nanvar, "mean")
def nanvar_vjp_mean(
    g, ans, x, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=True, mean=None, correction=None
):
    return _mean_grad(2.0 * g, x, axis, keepdims, _spread(ans, x, axis, ddof, where, mean, correction, True), mean)


@defjvp(np.nanvar, "x")
def nanvar_jvp(
    t, ans, x, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=True, mean=None, correction=None
):
    return 2.0 * np.sum(_valid_tangent(t, x) * _spread(ans, x, axis, ddof, where, mean, correction, True), axis=axis,
                        keepdims=keepdims)


@defjvp(np.nanvar, "mean")
def nanvar_jvp_mean(
    t, ans, x, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=True, mean=None, correction=None
):
    return -2.0 * np.sum(t * _spread(ans, x, axis, ddof, where, mean, correction, True), axis=axis, keepdims=keepdims)


@defvjp(np.nanstd, "x")
def nanstd_vjp(
    g, ans, x, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=True, mean=None, correction=None
):
    return np.where(np.isnan(x), 0.0, unreduce(_over(g, ans), x, axis, keepdims) * _spread(
        ans, x, axis, ddof, where, mean, correction, True))


@defvjp(np.nanstd, "mean")
def nanstd_vjp_mean(
    g, ans, x, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=True, mean=None, correction=None
):
    return _mean_grad(_over(g, ans), x, axis, keepdims, _spread(ans, x, axis, ddof, where, mean, correction, True), mean)


@defjvp(np.nanstd, "x")
def nanstd_jvp(
    t, ans, x, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=True, mean=None, correction=None
):
    return _over(np.sum(_valid_tangent(t, x) * _spread(ans, x, axis, ddof, where, mean, correction, True), axis=axis,
                        keepdims=keepdims), _nan_std(ans))


@defjvp(np.nanstd, "mean")
def nanstd_jvp_mean(
    t, ans, x, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=True, mean=None, correction=None
):
    return _over(np.sum(t * _spread(ans, x, axis, ddof, where, mean, correction, True), axis=axis, keepdims=keepdims), -ans)
