"""Running and order statistics along a dim: cummax, cummin, logcumsumexp, kthvalue,
mode, and the sum that skips nan, nansum.

cummax, cummin, kthvalue and mode find their indices with NumPy (no gradient), then
take the values at them by indexing (`operator.getitem`) recorded under PyTorch's node name,
so the whole gradient goes to the chosen entries, as PyTorch's. logcumsumexp is one
node (LogcumsumexpBackward0) over Tensor code: for each position, the logsumexp of the
entries up to it (the others masked to the lowest number), exact where log(cumsum(exp)) would
underflow. nansum is `np.nansum` (NansumBackward0: no gradient where the entry is nan).
None holds calculus.
"""

import operator

import numpy as np

from .complex_refusals import refuse_complex
from . import dtypes, ops
from .dtypes import dim_axis
from .selections import named_pair
from .tie_orders import kthvalue_index, mode_indices

__all__ = ["cummax", "cummin", "logcumsumexp", "kthvalue", "mode", "nansum", "OrderStatisticOps"]

_PAIRS = {name: named_pair(name) for name in ("cummax", "cummin", "kthvalue", "mode")}


def _axis(input, dim):
    n = input._data.ndim
    return dim_axis(dim, n) % n if n else None


def _values_at(input, at, axis, name, keepdim=True):
    """The entries of input at the indices `at` (kept dims) along `axis`, one node `name`,
    and the indices as an int64 tensor; keepdim False drops that dim."""
    if axis is None:  # a 0-d tensor: its own statistic, at index 0
        values = ops.apply(np.positive, input, name=name, saves=False)
        return values, ops.Tensor._make(np.zeros((), np.int64))
    index = list(np.ix_(*map(np.arange, at.shape)))  # every position, with `at` along axis
    index[axis] = at
    if not keepdim:
        index, at = [i.squeeze(axis) for i in index], at.squeeze(axis)
    return ops.apply(operator.getitem, input, tuple(index), name=name, edge_args=(0,)), ops.Tensor._make(
        at.astype(np.int64))


def _running_index(x, axis, better):
    """The index of the running extremum along `axis`: a later entry wins a tie, and nan
    wins (and stays until the next nan), as PyTorch's cummax and cummin."""
    moved = np.moveaxis(x, axis, -1)
    out = np.zeros(moved.shape, np.int64)
    best = moved[..., 0].copy()
    where = np.zeros(moved.shape[:-1], np.int64)
    for i in range(moved.shape[-1]):
        v = moved[..., i]
        take = (better(v, best) | (v == best) | np.isnan(v)) if i else np.ones(v.shape, bool)
        take &= ~np.isnan(best) | np.isnan(v)
        best = np.where(take, v, best)
        where = np.where(take, i, where)
        out[..., i] = where
    return np.moveaxis(out, -1, axis)


def _running(name, better):
    pair = _PAIRS[name]
    node = name.capitalize() + "Backward0"

    def function(input, dim):
        refuse_complex(name, input)
        axis = _axis(input, dim)
        if axis is None:
            return pair(*_values_at(input, None, None, node))
        if input._data.shape[axis] == 0:
            return pair(input.clone(), ops.Tensor._make(np.zeros(input._data.shape, np.int64)))
        with np.errstate(invalid="ignore"):
            at = _running_index(input._data, axis, better)
        return pair(*_values_at(input, at, axis, node))

    function.__name__ = name
    function.__doc__ = f"`(values, indices)` of the running {name[3:]}imum along `dim` ({node}); ties and nan as PyTorch."
    return function


cummax = _running("cummax", np.greater)
cummin = _running("cummin", np.less)


def _logcumsumexp(x, axis):
    from .pointwise import where

    moved = x.movedim(axis, -1)
    n = moved.shape[-1]
    upto = np.tril(np.ones((n, n), dtype=bool))  # row i: the entries j <= i
    rows = moved.unsqueeze(-2).expand(*moved.shape[:-1], n, n)
    # the entries after each position masked to the dtype's lowest number, whose exp is 0 as
    # that of -inf, but whose products with zero derivatives stay 0 (-inf gives nan at second order)
    masked = where(ops.Tensor._make(upto), rows, float(np.finfo(x._data.dtype).min))
    return masked.logsumexp(-1).movedim(-1, axis)


def logcumsumexp(input, dim):
    """log(cumsum(exp(input))) along `dim`, computed as a logsumexp per position
    (LogcumsumexpBackward0); an integer tensor is read as float32."""
    if input._data.dtype.kind not in "fc":
        input = ops.Tensor._make(input._data.astype(dtypes.DEFAULT_FLOAT.numpy))
    axis = _axis(input, dim)
    if axis is None:
        return ops.apply(np.positive, input, name="LogcumsumexpBackward0", saves=False)
    return ops.composite("LogcumsumexpBackward0", _logcumsumexp, input, axis, _saves_result=True)


def _line_order(x, axis):
    """The stable ascending order of `x` along `axis`, nan last."""
    return np.argsort(x, axis=axis, kind="stable")


def kthvalue(input, k, dim=-1, keepdim=False):
    """`(values, indices)` of the k-th smallest entry along `dim` (KthvalueBackward0);
    among equal entries the one PyTorch's CPU quickselect picks (tie_orders.py)."""
    refuse_complex("kthvalue", input)
    if input._data.dtype == np.bool_:
        raise NotImplementedError("\"kthvalue_cpu\" not implemented for 'Bool'")
    axis = _axis(input, dim)
    size = input._data.shape[axis] if axis is not None else 1
    if not 1 <= k <= size:
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {dim if axis is None else axis}")
    if axis is None:
        return _PAIRS["kthvalue"](*_values_at(input, None, None, "KthvalueBackward0"))
    at = kthvalue_index(input._data, axis, k, _line_order(input._data, axis))
    return _PAIRS["kthvalue"](*_values_at(input, at, axis, "KthvalueBackward0", keepdim))


def mode(input, dim=-1, keepdim=False):
    """`(values, indices)` of the most frequent entry along `dim` (ModeBackward0)."""
    refuse_complex("mode", input)
    axis = _axis(input, dim)
    if axis is None:
        return _PAIRS["mode"](*_values_at(input, None, None, "ModeBackward0"))
    moved = np.moveaxis(input._data, axis, -1)
    if moved.shape[-1] == 0:
        raise IndexError(f"mode(): Expected reduction dim {axis} to have non-zero size.")
    lines = moved.reshape(-1, moved.shape[-1])
    at = np.array(mode_indices(lines), np.int64).reshape(moved.shape[:-1] + (1,))
    return _PAIRS["mode"](*_values_at(input, np.moveaxis(at, -1, axis), axis, "ModeBackward0", keepdim))


def nansum(input, dim=None, keepdim=False, *, dtype=None):
    """The sum skipping nan, of all entries or along `dim` (NansumBackward0); an integer
    or bool tensor gives int64, as sum."""
    refuse_complex("nansum", input)
    axis = None if dim is None else dim_axis(dim, input._data.ndim)
    if dtype is not None:
        input = input.to(dtype)
    elif input._data.dtype.kind in "biu":
        return ops.Tensor._make(np.asarray(np.sum(input._data, axis=axis, keepdims=keepdim), dtype=np.int64))
    return ops.apply(np.nansum, input, name="NansumBackward0", axis=axis, keepdims=keepdim)


class OrderStatisticOps:
    """The Tensor methods of this module."""

    __slots__ = ()
    cummax, cummin, logcumsumexp, kthvalue, mode, nansum = cummax, cummin, logcumsumexp, kthvalue, mode, nansum
