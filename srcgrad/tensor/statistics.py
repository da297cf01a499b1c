"""Statistics of samples: cov, corrcoef, nanmean, nanmedian, quantile, nanquantile,
aminmax and renorm.

Each is Tensor code: cov, corrcoef and nanmean are PyTorch's compositions (Correlation.cpp,
ReduceOps.cpp), so their nodes are the last of those ops (SqueezeBackward0 for cov;
ClampBackward1, or DivBackward0 for one variable, for corrcoef; DivBackward0 for nanmean);
quantile (sort, gather, lerp) and renorm (a norm per slice, a factor where it exceeds
maxnorm) are recorded as one node under PyTorch's name (SqueezeBackward4, RenormBackward0);
nanmedian and aminmax pick their entries with NumPy and read them by indexing (or amin
and amax) under PyTorch's names. None holds calculus. Checks, warnings and messages are
PyTorch's.
"""

import operator
import warnings

import numpy as np

from .complex_refusals import refuse_complex
from . import binary_ops, ops
from .dtypes import dim_axis

__all__ = ["cov", "corrcoef", "nanmean", "nanmedian", "quantile", "nanquantile", "aminmax", "renorm", "StatisticOps"]


def _check_weights(label, w, observations, integral):
    if w._data.ndim > 1:
        raise RuntimeError(
            f"cov(): expected {label} to have one or fewer dimensions but got {label} with {w._data.ndim} dimensions"
        )
    if (w._data.dtype.kind in "iu") != integral or (not integral and w._data.dtype.kind != "f"):
        want = "integral" if integral else "floating point"
        raise RuntimeError(f"cov(): expected {label} to have {want} dtype but got {label} with {w.dtype.kind_name} dtype")
    if w._data.size != observations:
        raise RuntimeError(
            f"cov(): expected {label} to have the same numel as there are observations in the input but got "
            f"{w._data.size} != {observations}"
        )
    if observations and np.min(w._data) < 0:
        raise RuntimeError(f"cov(): {label} cannot be negative")


def cov(input, *, correction=1, fweights=None, aweights=None):
    """The covariance matrix of the variables in the rows of `input` (observations in the
    columns; a vector is one variable), weighted by the frequencies `fweights` and the
    weights `aweights`, normalized by the weights' sum less `correction` (as NumPy's)."""
    if input._data.ndim > 2:
        raise RuntimeError(
            f"cov(): expected input to have two or fewer dimensions but got an input with {input._data.ndim} dimensions"
        )
    x = input.view(1, -1) if input._data.ndim < 2 else input
    observations = x._data.shape[1]
    w = None
    if fweights is not None:
        _check_weights("fweights", fweights, observations, True)
        w = fweights
    if aweights is not None:
        _check_weights("aweights", aweights, observations, False)
        w = aweights if w is None else w * aweights
    total = observations if w is None else w.sum()
    if w is not None and total._data == 0:
        raise RuntimeError("cov(): weights sum to zero, can't be normalized")
    mean = (x if w is None else x * w).sum(1) / total
    if w is not None and aweights is not None and correction != 0:
        norm = total - correction * (w * aweights).sum() / total
    else:
        norm = total - correction
    if np.asarray(binary_ops.value_of(norm)) <= 0:
        warnings.warn(
            "cov(): degrees of freedom is <= 0. Correction should be strictly less than the number of observations.",
            UserWarning, stacklevel=2,
        )
        norm = norm * 0
    centred = x - mean.unsqueeze(1)
    product = centred.mm((centred if w is None else centred * w).t().conj())  # conj: complex variables
    return (product / norm).squeeze()


def corrcoef(input):
    """The Pearson correlation coefficients of the variables in the rows of `input`: cov
    divided by the product of the standard deviations, clipped to [-1, 1]."""
    if input._data.ndim > 2:
        raise RuntimeError(
            "corrcoef(): expected input to have two or fewer dimensions but got an input with "
            f"{input._data.ndim} dimensions"
        )
    c = cov(input)
    if c._data.ndim == 0:  # one variable: nan where its variance is 0, inf or nan, else 1
        return c / c
    deviations = c.diagonal().sqrt()
    c = c / deviations.view(-1, 1)
    c = c / deviations.view(1, -1)
    if c._data.dtype.kind == "c":  # real and imaginary parts clipped, as PyTorch's (never tracked)
        data = c._data
        return ops.Tensor._make((np.clip(data.real, -1, 1) + 1j * np.clip(data.imag, -1, 1)).astype(data.dtype))
    return c.clip(-1, 1)


def nanmean(input, dim=None, keepdim=False, *, dtype=None):
    """The mean of the entries that are not nan (all, or along `dim`): their sum over
    their count (DivBackward0); nan where there are none."""
    if dtype is not None:
        input = input.to(dtype)
    if input._data.dtype.kind not in "fc":
        raise RuntimeError(
            f"nanmean(): expected input to have floating point or complex dtype but got {input.dtype.kind_name}"
        )
    axis = None if dim is None else dim_axis(dim, input._data.ndim)
    count = np.sum(~np.isnan(input._data), axis=axis, keepdims=keepdim)
    total = input.nansum(axis, keepdim)
    return total / ops.Tensor._make(np.asarray(count, dtype=input._data.dtype))


def nanmedian(input, dim=None, keepdim=False):
    """The lower middle of the entries that are not nan (nan where all are): over all
    entries (NanmedianBackward0, the gradient shared between the entries equal to it) or
    along `dim`, a `(values, indices)` pair (NanmedianBackward1, the gradient to the index)."""
    from .reductions import _median_all, _nan_held, refuse_bool_median
    from .selections import named_pair

    refuse_complex("median", input)
    x = input._data
    refuse_bool_median(x, dim)
    if dim is None:
        flat = x.reshape(-1)
        valid = np.sort(flat[~np.isnan(flat)] if x.dtype.kind == "f" else flat, kind="stable")
        if valid.size == 0:
            if flat.size == 0 or x.dtype.kind != "f":
                return ops.Tensor._make(np.asarray(np.nan, dtype=x.dtype))
            return ops.composite("NanmedianBackward0", _nan_held, input, _saves_result=True)
        value = valid[(valid.size - 1) // 2]
        if x.dtype.kind != "f":
            return ops.Tensor._make(np.asarray(value))
        return ops.composite("NanmedianBackward0", _median_all, input, value, _saves_result=True)
    pair = named_pair("nanmedian")
    axis = dim_axis(dim, x.ndim)
    if axis is None:  # a 0-d tensor: its own median
        values = ops.apply(np.positive, input, name="NanmedianBackward1", saves=False) if x.dtype.kind == "f" \
            else ops.Tensor._make(x.copy())
        return pair(values, ops.Tensor._make(np.zeros((), np.int64)))
    axis %= x.ndim
    if x.shape[axis] == 0:
        raise IndexError(f"nanmedian(): Expected reduction dim {dim} to have non-zero size.")
    order = np.argsort(x, axis=axis, kind="stable")  # nan last
    valid = np.sum(~np.isnan(x), axis=axis, keepdims=True) if x.dtype.kind == "f" else x.shape[axis]
    valid = np.asarray(valid)
    middle = np.where(valid == 0, (x.shape[axis] - 1) // 2, (valid - 1) // 2)  # a line of nan: its middle
    at = np.take_along_axis(order, np.broadcast_to(middle, order.shape[:axis] + (1,) + order.shape[axis + 1:]), axis)
    index = list(np.ix_(*map(np.arange, at.shape)))  # every position, with `at` along dim
    index[axis] = at
    if not keepdim:
        index, at = [i.squeeze(axis) for i in index], at.squeeze(axis)
    if x.dtype.kind != "f":
        return pair(ops.Tensor._make(x[tuple(index)]), ops.Tensor._make(at.astype(np.int64)))
    values = ops.apply(operator.getitem, input, tuple(index), name="NanmedianBackward1", edge_args=(0,))
    return pair(values, ops.Tensor._make(at.astype(np.int64)))


_INTERPOLATIONS = ("linear", "lower", "higher", "midpoint", "nearest")


def _quantile(lines, q, interpolation, ignore_nan):
    """The quantiles `q` (an array of one or more) of each line of `lines` (the input
    moved so that the reduced entries lie along its last dim), q's dim first."""
    from .pointwise import lerp

    data = lines._data
    n = data.shape[-1]
    ordered = lines.sort(-1).values  # nan last
    nan = np.isnan(data)
    dt = data.dtype.type
    valid = (n - nan.sum(-1, keepdims=True)) if ignore_nan else np.full(data.shape[:-1] + (1,), n)
    ranks = (q.astype(data.dtype) * (valid - 1).astype(data.dtype))  # (..., k), in the input's dtype
    if ignore_nan:  # a line of nan reads its first entry (nan), as PyTorch
        ranks = np.where(valid == 0, dt(0), ranks)
    else:  # a line holding nan reads its last entry (a nan), as PyTorch
        ranks = np.where(nan.any(-1, keepdims=True), dt(n - 1), ranks)
    if interpolation == "lower":
        ranks = np.floor(ranks)
    elif interpolation == "higher":
        ranks = np.ceil(ranks)
    elif interpolation == "nearest":
        ranks = np.round(ranks)  # half to even, as PyTorch's round
    low, high = np.floor(ranks).astype(np.int64), np.ceil(ranks).astype(np.int64)
    below = ordered.gather(-1, ops.Tensor._make(low))
    if interpolation in ("lower", "higher", "nearest"):
        out = below
    else:
        weights = ranks - low if interpolation == "linear" else np.full(ranks.shape, dt(0.5))
        out = lerp(below, ordered.gather(-1, ops.Tensor._make(high)), ops.Tensor._make(weights.astype(data.dtype)))
    return out.movedim(-1, 0)


def _quantile_function(name, ignore_nan):
    def function(input, q, dim=None, keepdim=False, *, interpolation="linear"):  # PyTorch's errors say quantile()
        x = input._data
        if x.size == 0:
            raise RuntimeError("quantile() input tensor must be non-empty")
        if isinstance(q, ops.Tensor):
            if q._data.ndim > 1:
                raise RuntimeError("quantile() q must be a scalar or 1D tensor")
            if q._data.dtype != x.dtype:
                raise RuntimeError("quantile() q tensor must be same dtype as the input tensor")
            qs, scalar = q._data.reshape(-1).astype(np.float64), q._data.ndim == 0
        else:
            qs, scalar = np.array([float(q)]), True
        if x.dtype.kind != "f":
            raise RuntimeError("quantile() input tensor must be either float or double dtype")
        for v in qs:
            if not 0 <= v <= 1:
                raise RuntimeError(f"quantile() q must be in the range [0, 1] but got {v:g}")
        if interpolation not in _INTERPOLATIONS:
            raise RuntimeError(
                f"quantile() interpolation must be one of linear, lower, higher, midpoint or nearest, but got "
                f"{interpolation}"
            )
        axis = None if dim is None else (dim_axis(dim, x.ndim) % x.ndim if x.ndim else 0)
        if axis is None:
            shape = (1,) * x.ndim if keepdim else ()
        else:
            shape = x.shape[:axis] + ((1,) if keepdim else ()) + x.shape[axis + 1:]

        def compute(t):
            if axis is None:
                lines = t.reshape(1, -1)
            else:
                lines = t.movedim(axis, -1) if x.ndim else t.reshape(1)
            out = _quantile(lines, qs, interpolation, ignore_nan)
            return out.reshape(shape if scalar else (qs.size,) + shape)

        return ops.composite("SqueezeBackward4", compute, input)

    function.__name__ = name
    function.__doc__ = (f"The `q`-quantiles (a number or a 1-d tensor, q's dim first) of all entries or along `dim`, "
                        f"interpolated between the sorted entries as `interpolation` says (SqueezeBackward4)"
                        f"{'; nan entries are skipped' if ignore_nan else '; nan where a nan is among the entries'}.")
    return function


quantile = _quantile_function("quantile", False)
nanquantile = _quantile_function("nanquantile", True)


class _MinMax(tuple):
    """`(min, max)`, printed as PyTorch's `torch.return_types.aminmax`."""

    def __new__(cls, low, high):
        return tuple.__new__(cls, (low, high))

    min = property(lambda self: self[0])
    max = property(lambda self: self[1])

    def __repr__(self):
        return f"srcgrad.return_types.aminmax(\nmin={self[0]!r},\nmax={self[1]!r})"


def aminmax(input, *, dim=None, keepdim=False):
    """`(min, max)` of all entries or along `dim` (AminmaxBackward0 each; ties share the
    gradient, as amin's and amax's)."""
    refuse_complex("aminmax", input)
    x = input._data
    axis = None if dim is None else dim_axis(dim, x.ndim)
    if x.size == 0 or (axis is not None and x.ndim and x.shape[axis] == 0):
        raise RuntimeError("aminmax(): cannot compute aminmax over an empty dimension as the operation has no identity.")
    if axis is None and dim is not None:  # a 0-d tensor's dim 0
        axis = None
    kwargs = {"axis": axis, "keepdims": keepdim}
    if x.dtype.kind not in "fc":
        return _MinMax(ops.Tensor._make(np.asarray(np.amin(x, **kwargs))), ops.Tensor._make(np.asarray(np.amax(x, **kwargs))))
    return _MinMax(ops.apply(np.amin, input, name="AminmaxBackward0", **kwargs),
                   ops.apply(np.amax, input, name="AminmaxBackward0", **kwargs))


def _renorm(input, p, axis, maxnorm):
    from .functions import vector_norm
    from .pointwise import where

    others = tuple(d for d in range(input._data.ndim) if d != axis)
    norms = vector_norm(input, p, others, True)
    factor = where(norms > maxnorm, maxnorm / (norms + 1e-7), 1.0)
    return input * factor


def renorm(input, p, dim, maxnorm):
    """Each slice along `dim` whose p-norm exceeds `maxnorm` scaled to norm `maxnorm`
    (divided by norm + 1e-7, as PyTorch), the others kept (RenormBackward0)."""
    n = input._data.ndim
    if n < 2:
        raise RuntimeError(f"renorm: input needs at least 2 dimensions, got {n} dimensions")
    if input._data.dtype.kind not in "fc":
        raise RuntimeError(f"linalg.vector_norm: Expected a floating point or complex tensor as input. Got {input.dtype.kind_name}")
    if not p > 0:
        raise RuntimeError("renorm: non-positive-norm not supported")
    if maxnorm < 0:
        raise RuntimeError(f"renorm: expected maxnorm to be >= 0 but got {maxnorm:g}")
    axis = dim_axis(dim, n) % n
    return ops.composite("RenormBackward0", _renorm, input, p, axis, float(maxnorm))


class StatisticOps:
    """The Tensor methods of this module."""

    __slots__ = ()
    cov, corrcoef, nanmean, nanmedian, quantile, nanquantile = cov, corrcoef, nanmean, nanmedian, quantile, nanquantile
    aminmax, renorm = aminmax, renorm

    def renorm_(self, p, dim, maxnorm):
        """`renorm` written into self; returns self."""
        return self._rewrite(lambda t: renorm(t, p, dim, maxnorm))
