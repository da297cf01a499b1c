"""Reductions and scans along a dim beyond sum, mean, max and min: prod, std, var,
logsumexp, cumsum, cumprod, amax, amin, all, any (and the `dtype=` of sum and mean).

Each is a `torch.X(input, ...)` function that `Tensor` also binds as a method, with
PyTorch's signature, dims checked by `dim_axis` (PyTorch's IndexError), PyTorch's result
dtypes and node names. None holds calculus: each op is one registry primitive
(`np.prod`, `np.std`, `np.var`, `np.cumsum`, `np.cumprod`, `np.amax`, `np.amin`,
`activations.logsumexp`) recorded through `ops`; all and any are not differentiable.
`ReductionOps`, a mixin of `Tensor`, holds the reduction methods: these functions,
and sum, mean, max, min, norm, argmax and argmin.
"""

import math
import operator
import warnings

import numpy as np

from .complex_refusals import refuse_complex
from ..rules import activations
from ..runtime import mean_of
from .summation import pytorch_sum
from . import dtypes, ops, pointwise
from .dtypes import dim_axis
from .grad_mode import _mode

__all__ = ["prod", "std", "var", "logsumexp", "cumsum", "cumprod", "amax", "amin", "all", "any", "reduce_in", "median", "count_nonzero",
           "std_mean", "var_mean"]


def _cast(input, dtype):
    """`input` in `dtype` (a srcgrad or NumPy dtype; tracked as a copy), or for None as it
    is, except that an integer or bool tensor becomes int64 (what PyTorch's sums and
    products give). A tracked input cast to a dtype without gradients is PyTorch's
    RuntimeError."""
    if dtype is None:
        return input._convert(dtypes.int64) if input._data.dtype.kind in "biu" else input
    target = dtypes.as_dtype(dtype)
    _refuse_untracked_result(input, target)
    return input._convert(target)


def _refuse_untracked_result(input, target):
    """PyTorch's RuntimeError for a tracked reduction or scan asked for the integer or
    bool dtype `target`, which cannot carry a gradient."""
    if input._requires_grad and _mode.enabled and target.numpy.kind not in "fc":
        raise RuntimeError(f"Autograd not support dtype: {target.kind_name}")


def prod(input, dim=None, keepdim=False, *, dtype=None):
    """The product of all elements (ProdBackward0) or along the int `dim` (ProdBackward1).
    Integer and bool tensors give int64. The gradient is exact where elements are 0."""
    input = _cast(input, dtype)
    if dim is None:
        return ops.unary(np.prod, input, "ProdBackward0")
    if not isinstance(dim, int):
        raise TypeError(f"prod(): argument 'dim' must be int, not {type(dim).__name__}")
    axis = dim_axis(dim, input._data.ndim)
    return ops.apply(np.prod, input, name="ProdBackward1", axis=axis, keepdims=keepdim)


def _spread(primitive, node, input, dim, unbiased, keepdim, correction, op="std and var"):
    """std or var: PyTorch's three signatures, (dim, unbiased, keepdim), (dim, *,
    correction, keepdim) and (unbiased). The divisor is N - correction (default 1).
    `op`: the name a non-floating input's error gives."""
    if isinstance(dim, bool):  # std(unbiased)
        dim, unbiased = None, dim
    if unbiased is not None and correction is not None:
        raise TypeError(f"{primitive.__name__}(): give `unbiased` or `correction`, not both")
    if correction is None:
        correction = 0 if unbiased is False else 1
    if input._data.dtype.kind not in "fc":
        raise RuntimeError(f"{op} only support floating point and complex dtypes")
    shape = input._data.shape
    axis = None if dim is None else dim_axis(dim, len(shape))
    axes = range(len(shape)) if axis is None else axis if isinstance(axis, tuple) else (axis,)
    if math.prod(shape[a] for a in axes) - correction > 0:
        return _spread_of(primitive, node, input, axis, correction, keepdim)
    warnings.warn(
        f"{primitive.__name__}(): degrees of freedom is <= 0. Correction should be strictly less "
        "than the reduction factor (input numel divided by output numel).",
        UserWarning,
        stacklevel=3,
    )
    with warnings.catch_warnings():  # NumPy's own warning says the same
        warnings.simplefilter("ignore", RuntimeWarning)
        return _spread_of(primitive, node, input, axis, correction, keepdim)


def _spread_of(primitive, node, input, axis, correction, keepdim):
    """np.std or np.var of `input`, accumulated in float64 for a narrower float (as
    PyTorch's CPU Welford reduction accumulates in double: equal values give exactly 0)."""
    dtype = input._data.dtype
    if dtype.kind == "f" and dtype.itemsize < 8:
        return ops.apply(primitive, input, name=node, dtype=np.float64, out_dtype=dtype, axis=axis, ddof=correction,
                         keepdims=keepdim)
    return ops.apply(primitive, input, name=node, axis=axis, ddof=correction, keepdims=keepdim)


def std(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """The standard deviation over all elements or `dim` (an int or a tuple), dividing by
    N - correction (N - 1 by default, N for `unbiased=False`). StdBackward0; where it is
    0 the gradient is 0, as in PyTorch."""
    return _spread(np.std, "StdBackward0", input, dim, unbiased, keepdim, correction)


def var(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """The variance over all elements or `dim`, dividing by N - correction (see `std`).
    VarBackward0."""
    return _spread(np.var, "VarBackward0", input, dim, unbiased, keepdim, correction)


def std_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """`(std, mean)` over all elements or `dim`: both tensors of one op, StdMeanBackward0."""
    return _spread_and_mean(np.std, "StdMeanBackward0", input, dim, unbiased, keepdim, correction)


def var_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """`(var, mean)` over all elements or `dim`: VarMeanBackward0."""
    return _spread_and_mean(np.var, "VarMeanBackward0", input, dim, unbiased, keepdim, correction)


def _spread_and_mean(primitive, node, input, dim, unbiased, keepdim, correction):
    spread = _spread(primitive, node, input, dim, unbiased, keepdim, correction, f"{primitive.__name__}_mean")
    if isinstance(dim, bool):
        dim = None
    axis = None if dim is None else dim_axis(dim, input._data.ndim)
    mean = ops.apply(np.mean, input, name=node, saves=False, axis=axis, keepdims=keepdim)
    return spread, mean


def _nan_held(x):
    """nan, the max, min or median of all of `x` where it holds a nan: its gradient shared
    equally between the nan entries (PyTorch's evenly distributed gradient), not the 0/0
    that a share between the entries equal to the result would give each entry."""
    from .pointwise import where

    nan = np.isnan(x._data)
    return where(ops.Tensor._make(nan), x, 0.0).sum() / int(nan.sum())


def _median_all(x, value):
    """The entries of `x` equal to `value` (the median), their maximum: the value itself,
    its gradient shared equally between them (PyTorch's evenly distributed gradient)."""
    from .pointwise import where

    masked = where(ops.Tensor._make(x._data == value), x, -np.inf)
    return ops.apply(np.amax, masked, name="AmaxBackward0")


def refuse_bool_median(x, dim):
    """PyTorch's error for the median (or nanmedian) of a bool array `x`."""
    if x.dtype == np.bool_:
        raise NotImplementedError(f"\"{'median_cpu' if dim is None else 'median_out'}\" not implemented for 'Bool'")


def median(input, dim=None, keepdim=False):
    """The lower of the two middle values (not their mean, as PyTorch): over all elements
    (MedianBackward0, its gradient shared between the entries equal to it) or along
    `dim`, a `(values, indices)` pair (MedianBackward1, the gradient to the index)."""
    from .selections import named_pair

    refuse_complex("median", input)
    x = input._data
    refuse_bool_median(x, dim)
    if dim is None:
        flat = np.sort(x.reshape(-1), kind="stable")
        if flat.size == 0:
            return ops.Tensor._make(np.asarray(np.nan, dtype=x.dtype))
        nan = np.isnan(flat) if x.dtype.kind == "f" else None
        value = flat[-1] if nan is not None and nan.any() else flat[(flat.size - 1) // 2]
        if x.dtype.kind not in "fc":
            return ops.Tensor._make(np.asarray(value))
        if nan is not None and nan.any():
            return ops.composite("MedianBackward0", _nan_held, input, _saves_result=True)
        return ops.composite("MedianBackward0", _median_all, input, value, _saves_result=True)
    pair = named_pair("median")
    axis = dim_axis(dim, x.ndim)
    if axis is None:  # a 0-d tensor: its own median
        values = ops.apply(np.positive, input, name="MedianBackward1", saves=False) if x.dtype.kind == "f" else ops.Tensor._make(x.copy())
        return pair(values, ops.Tensor._make(np.zeros((), np.int64)))
    if x.shape[axis] == 0:
        raise IndexError(f"median(): Expected reduction dim {dim} to have non-zero size.")
    order = np.argsort(x, axis=axis, kind="stable")
    at = np.take(order, [(x.shape[axis] - 1) // 2], axis=axis)  # the lower middle, keepdim
    if x.dtype.kind == "f":  # a line holding nan: its first nan, as PyTorch's median propagates it
        nan = np.isnan(x)
        if nan.any():
            at = np.where(nan.any(axis=axis, keepdims=True), np.argmax(nan, axis=axis, keepdims=True), at)
    index = list(np.ix_(*map(np.arange, at.shape)))  # every position, with `at` along dim
    index[axis] = at
    if not keepdim:
        index, at = [i.squeeze(axis) for i in index], at.squeeze(axis)
    return pair(ops.apply(operator.getitem, input, tuple(index), name="MedianBackward1"), ops.Tensor._make(at.astype(np.int64)))


def logsumexp(input, dim, keepdim=False):
    """log(sum(exp(input))) over `dim` (an int or a tuple), without overflow.
    LogsumexpBackward0; an integer tensor gives float32."""
    if input._data.dtype.kind not in "fc":
        input = ops.Tensor._make(input._data.astype(dtypes.DEFAULT_FLOAT.numpy))
    axis = dim_axis(dim, input._data.ndim)
    return ops.apply(activations.logsumexp, input, name="LogsumexpBackward0", axis=axis, keepdims=keepdim)


def cumsum(input, dim, *, dtype=None):
    """Running sums along `dim`. CumsumBackward0, which saves nothing (it can run
    backward twice); integer and bool tensors give int64. As PyTorch's, the sums start
    from +0, so a run of -0 entries sums to +0 (NumPy's keeps -0)."""
    input = _cast(input, dtype)
    axis = dim_axis(dim, input._data.ndim)
    if axis is None:  # a 0-d tensor: its own running sum (np.cumsum would give shape (1,))
        return ops.apply(np.positive, input, name="CumsumBackward0", saves=False)
    out = ops.apply(np.cumsum, input, name="CumsumBackward0", saves=False, axis=axis)
    if type(out._data) is np.ndarray and out._data.dtype.kind in "fc":
        out._data += 0.0  # -0 + +0 is +0; nothing else changes
    return out


def cumprod(input, dim, *, dtype=None):
    """Running products along `dim`. CumprodBackward0, exact where the input holds zeros
    (one or several along a line); integer and bool tensors give int64."""
    input = _cast(input, dtype)
    axis = dim_axis(dim, input._data.ndim)
    if axis is None:  # a 0-d tensor: its own running product
        return ops.apply(np.positive, input, name="CumprodBackward0")
    return ops.apply(np.cumprod, input, name="CumprodBackward0", axis=axis)


def reduce_in(primitive, input, name, dim, keepdim, dtype):
    """`primitive` (np.sum or np.mean) of `input` over all elements (dim None) or `dim`,
    computed in `dtype`, as PyTorch's `dtype=`: the input is cast first, inside the one
    node called `name` (no ToCopyBackward0), and the gradient comes back in the input's
    dtype. A reduction that is tracked must give a floating or complex dtype."""
    target = dtypes.as_dtype(dtype)
    _refuse_untracked_result(input, target)
    axis = None if dim is None else dim_axis(dim, input._data.ndim)
    return ops.apply(
        primitive, input, name=name, saves=False, dtype=target.numpy, out_dtype=target.numpy, axis=axis, keepdims=keepdim
    )


def _extreme(primitive, op, input, dim, keepdim):
    """amax or amin (`op`) over `dim` (an int or a tuple; () means every dim): one
    node, the gradient shared equally between tied extrema. An empty tensor needs a
    dim, and a reduced dim of size 0 is PyTorch's IndexError."""
    refuse_complex(op, input)
    shape = input._data.shape
    axis = dim_axis(dim, len(shape))
    if input._data.size == 0:
        dims = tuple(dim) if isinstance(dim, (tuple, list)) else (dim,)
        if not dims:
            raise RuntimeError(
                f"{op}(): Expected reduction dim to be specified for input.numel() == 0. Specify the "
                "reduction dim with the 'dim' argument."
            )
        for d in dims:
            if shape[d] == 0:
                raise IndexError(f"{op}(): Expected reduction dim {d} to have non-zero size.")
    name = op.capitalize() + "Backward0"
    return ops.apply(primitive, input, name=name, axis=axis, keepdims=keepdim)


def amax(input, dim=(), keepdim=False):
    """The maximum over `dim` (every dim by default): AmaxBackward0, whose gradient is
    shared equally between tied maxima (unlike max(dim), which gives it to one)."""
    return _extreme(np.amax, "amax", input, dim, keepdim)


def amin(input, dim=(), keepdim=False):
    """The minimum over `dim` (every dim by default): AminBackward0; ties share the
    gradient equally."""
    return _extreme(np.amin, "amin", input, dim, keepdim)


def _logical(primitive, input, dim, keepdim):
    """np.all or np.any over all elements (dim None), an int dim or a tuple of dims (()
    reduces none: each element's truth). Bool, but uint8 for a uint8 tensor, as in
    PyTorch; never tracked."""
    data = input._data
    if dim is None:
        axis = None
    elif isinstance(dim, (tuple, list)) and not dim:
        axis = ()
    else:
        axis = dim_axis(dim, data.ndim)
    out = np.array(primitive(data, axis=axis, keepdims=keepdim), order="C")  # PyTorch's is contiguous
    return ops.Tensor._make(out.astype(np.uint8) if data.dtype == np.uint8 else out)


def all(input, dim=None, keepdim=False):
    """Whether every element (over all, or along `dim`) is nonzero."""
    return _logical(np.all, input, dim, keepdim)


def any(input, dim=None, keepdim=False):
    """Whether some element (over all, or along `dim`) is nonzero."""
    return _logical(np.any, input, dim, keepdim)


def count_nonzero(input, dim=None):
    """How many elements are not zero (nan counts), in all of `input` or along `dim` (an
    int, or a tuple or list of them: empty means every dim): int64, never tracked."""
    x = input._data
    if dim is None:
        return ops.Tensor._make(np.asarray(np.count_nonzero(x), dtype=np.int64))
    axis = dim_axis(dim, x.ndim)
    if isinstance(axis, tuple):
        seen = set()
        for d in axis:
            if d % x.ndim in seen:
                raise RuntimeError(f"dim {d % x.ndim} appears multiple times in the list of dims")
            seen.add(d % x.ndim)
    return ops.Tensor._make(np.array(np.count_nonzero(x, axis=axis), dtype=np.int64, order="C"))


def _mean_all(x):
    """The mean of all elements as PyTorch's CPU mean computes it: that sum, divided by
    the count in the tensor's dtype."""
    if x.dtype.kind != "f" or x.dtype.itemsize not in (4, 8):
        return mean_of(x)
    if not x.size:  # nan, without NumPy's "Mean of empty slice" warning (PyTorch gives none)
        return x.dtype.type(np.nan)
    return pytorch_sum(x) / x.dtype.type(x.size)


class ReductionOps:
    """The Tensor's reduction methods: sum, mean, max, min, norm, argmax, ... ."""

    __slots__ = ()

    # this module's functions, bound as methods
    all, any = all, any
    prod, std, var = prod, std, var
    logsumexp, cumsum, cumprod = logsumexp, cumsum, cumprod
    amax, amin = amax, amin
    median = median
    count_nonzero = count_nonzero

    def argmax(self, dim=None, keepdim=False):
        refuse_complex("argmax", self)
        axis = None if dim is None else dim_axis(dim, self._data.ndim)
        return ops.Tensor._make(np.asarray(np.argmax(self._data, axis=axis, keepdims=keepdim), dtype=np.int64))

    def argmin(self, dim=None, keepdim=False):
        refuse_complex("argmin", self)
        axis = None if dim is None else dim_axis(dim, self._data.ndim)
        return ops.Tensor._make(np.asarray(np.argmin(self._data, axis=axis, keepdims=keepdim), dtype=np.int64))

    def sum(self, dim=None, keepdim=False, *, dtype=None):
        if dtype is None and self._data.dtype.kind == "u":  # NumPy would give uint64; PyTorch gives int64
            dtype = dtypes.int64
        if dtype is not None:
            name = "SumBackward0" if dim is None else "SumBackward1"
            return reduce_in(np.sum, self, name, dim, keepdim, dtype)
        if dim is None:
            return ops.unary(np.sum, self, "SumBackward0", False, compute=pytorch_sum)  # PyTorch's order of additions
        return ops.unary(np.sum, self, "SumBackward1", False, (dim_axis(dim, self._data.ndim), None, None, keepdim), np.add.reduce)

    def mean(self, dim=None, keepdim=False, *, dtype=None):
        if dtype is not None:
            if dtypes.as_dtype(dtype).numpy.kind not in "fc":
                raise RuntimeError(
                    "mean(): could not infer output dtype. Optional dtype must be either a floating "
                    f"point or complex dtype. Got: {dtypes.as_dtype(dtype).kind_name}"
                )
            name = "MeanBackward0" if dim is None else "MeanBackward1"
            return reduce_in(np.mean, self, name, dim, keepdim, dtype)
        if self._data.dtype.kind not in "fc":
            raise RuntimeError(
                "mean(): could not infer output dtype. Input dtype must be either a floating "
                f"point or complex dtype. Got: {self.dtype.kind_name}"
            )
        if dim is None:
            return ops.unary(np.mean, self, "MeanBackward0", False, compute=_mean_all)
        return ops.apply(np.mean, self, name="MeanBackward1", saves=False, axis=dim_axis(dim, self._data.ndim), keepdims=keepdim)

    def _extremum(self, fn, arg, name, dim, keepdim):
        if isinstance(dim, (float, bool)):  # PyTorch's overloads take none
            got = type(dim).__name__
            raise TypeError(
                f"{name.lower()}() received an invalid combination of arguments - got ({got}), but expected one of:\n"
                f" * ()\n      didn't match because some of the arguments have invalid types: (!{got}!)\n"
                f" * (Tensor other)\n      didn't match because some of the arguments have invalid types: (!{got}!)\n"
                " * (int dim, bool keepdim = False)\n"
            )
        if isinstance(dim, ops.Tensor):  # max(other): the elementwise maximum
            return (pointwise.maximum if fn is np.max else pointwise.minimum)(self, dim)
        refuse_complex(name.lower() + ("_all" if dim is None else "_dim"), self)
        if dim is None:  # tied entries share the gradient, as in PyTorch
            out = ops.apply(fn, self, name=name + "Backward1")
            if out._grad_fn is not None and out._data.dtype.kind == "f" and np.isnan(out._data):
                return ops.composite(name + "Backward1", _nan_held, self)
            return out
        from .functions import extremum_along

        return extremum_along(self, arg, name + "Backward0", dim, keepdim)

    def max(self, dim=None, keepdim=False):
        return self._extremum(np.max, np.argmax, "Max", dim, keepdim)

    def min(self, dim=None, keepdim=False):
        return self._extremum(np.min, np.argmin, "Min", dim, keepdim)

    def norm(self, p="fro", dim=None, keepdim=False):
        """The vector p-norm of all elements (for a matrix too, as in PyTorch: "fro" is
        the 2-norm), or along `dim`: p = 2, "fro", any p >= 1, or inf."""
        from .functions import vector_norm

        if p in ("fro", 2, 2.0, None):
            return vector_norm(self, dim=dim, keepdim=keepdim)
        return vector_norm(self, p, dim=dim, keepdim=keepdim)
