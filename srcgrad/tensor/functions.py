"""Module-level tensor functions (`srcgrad.exp(t)`, `srcgrad.matmul(a, b)`, ...).

Each one forwards to a `Tensor` method or to `ops`; none holds calculus. The functions
of `pointwise.py`, `reductions.py` and `joins.py` are re-exported from here.
"""

import math
import numbers
import operator

import numpy as np

from ..rules import lookup
from . import binary_ops, creation, dtypes, ops
from .dtypes import dim_axis
from .joins import cat, concat, concatenate, stack
from .products import addmm, bmm, dot, matmul, mm, mv, outer, trace, tril, triu
from .pointwise import (
    allclose, atan2, ceil, clamp, clamp_max, clamp_min, clip, expm1, floor, isclose, lerp, log1p, maximum, minimum, round,
    sign, trunc, where, reciprocal, rsqrt, log2, log10, exp2, asin, acos, atan, arcsin, arccos, arctan, sinh, cosh, tan, asinh, acosh, atanh, arcsinh, arccosh, arctanh, erf, erfc, square, isnan, isfinite, isinf, floor_divide, remainder, true_divide, frac,
)
from .selections import argsort, chunk, gather, index_select, masked_fill, named_pair, sort, split, topk, unbind, unique
from .reductions import (
    all, amax, amin, any, count_nonzero, cumprod, cumsum, logsumexp, median, prod, std, std_mean, var, var_mean,
)
from .tensor import Tensor
from .pointwise_more import (
    addcdiv, addcmul, copysign, digamma, erfinv, float_power, fmod, heaviside, hypot, lgamma, logaddexp, logaddexp2,
    logit, nan_to_num, polygamma, sinc, xlogy, i0, sgn, fix, nextafter, deg2rad, rad2deg, mvlgamma,
)
from .logical import (
    logical_and, logical_or, logical_xor, logical_not, eq, ne, lt, le, gt, ge, greater, less, greater_equal, less_equal,
    not_equal, equal, is_nonzero, signbit, isposinf, isneginf,
)
from .complex_parts import (
    real, imag, conj, conj_physical, resolve_conj, resolve_neg, angle, is_complex, is_conj, is_neg, isreal,
)
from .linalg_functions import baddbmm, cdist, cholesky, cross, det, dist, einsum, inner, inverse, kron, logdet, slogdet
from .rearrangements import fliplr, flipud, movedim, moveaxis, permute, repeat_interleave, rot90, tile, unflatten
from .combining import (
    atleast_1d, atleast_2d, atleast_3d, broadcast_shapes, broadcast_tensors, broadcast_to, cartesian_prod, column_stack,
    combinations, dstack, hstack, meshgrid, row_stack, vstack,
)
from .splitting import dsplit, hsplit, tensor_split, vsplit
from .matrix_makers import block_diag, diag_embed, diagflat, tril_indices, triu_indices, vander
from .scatters import masked_select, scatter, scatter_add, take, take_along_dim
from .contractions import addbmm, addmv, chain_matmul, tensordot, vdot
from .differences import cumulative_trapezoid, diff, trapezoid, trapz
from .statistics import aminmax, corrcoef, cov, nanmean, nanmedian, nanquantile, quantile, renorm
from .binning import bincount, bucketize, histc, histogram, isin, searchsorted, unique_consecutive
from .order_statistics import cummax, cummin, kthvalue, logcumsumexp, mode, nansum
from .method_aliases import argwhere, nonzero
from .grad_mode import is_inference_mode_enabled
from .strided import as_strided

__all__ = [
    "matmul", "mm", "mv", "dot", "exp", "log", "sqrt", "abs", "sin", "cos", "tanh", "sigmoid",
    "relu", "sum", "mean", "max", "min", "norm", "vector_norm", "pow", "add", "sub", "mul",
    "div", "neg", "softmax", "log_softmax", "argmax", "argmin", "clone", "reshape",
    "transpose", "t", "squeeze", "unsqueeze", "flatten", "is_tensor", "numel", "where",
    "cat", "concat", "concatenate", "stack", "clamp", "clip", "clamp_min", "clamp_max", "maximum",
    "minimum", "log1p", "expm1", "logsumexp", "cumsum", "cumprod", "prod", "std", "var", "amax", "amin",
    "all", "any", "is_floating_point",
    "addmm", "bmm", "outer", "trace", "tril", "triu", "allclose", "atan2", "ceil", "floor", "isclose", "lerp", "round",
    "sign", "trunc", "argsort", "chunk", "gather", "index_select", "masked_fill", "sort", "split", "topk", "unbind",
    "reciprocal", "rsqrt", "log2", "log10", "exp2", "asin", "acos", "atan", "arcsin", "arccos", "arctan", "sinh", "cosh", "tan", "asinh", "acosh", "atanh", "arcsinh", "arccosh", "arctanh", "erf", "erfc", "square", "isnan", "isfinite", "isinf", "floor_divide", "remainder", "true_divide", "median", "std_mean", "var_mean", "select", "narrow", "roll", "flip", "view_as",
    "frac", "count_nonzero", "unique", "diagonal", "diag",
]

# the functions of pointwise_more, linalg_functions, rearrangements, scatters, order_statistics, combining,
# splitting, matrix_makers, contractions, differences, statistics, binning, logical and complex_parts
MORE_FUNCTIONS = (
    "addcdiv", "addcmul", "copysign", "digamma", "erfinv", "float_power", "fmod", "heaviside", "hypot", "lgamma",
    "logaddexp", "logaddexp2", "logit", "nan_to_num", "polygamma", "sinc", "xlogy",
    "i0", "sgn", "fix", "nextafter", "deg2rad", "rad2deg", "mvlgamma", "is_inference_mode_enabled", "is_inference",
    "logical_and", "logical_or", "logical_xor", "logical_not", "eq", "ne", "lt", "le", "gt", "ge", "greater", "less",
    "greater_equal", "less_equal", "not_equal", "equal", "is_nonzero", "signbit", "isposinf", "isneginf",
    "real", "imag", "conj", "conj_physical", "resolve_conj", "resolve_neg", "angle", "is_complex", "is_conj", "is_neg",
    "isreal",
    "baddbmm", "cdist", "cholesky", "cross", "det", "dist", "einsum", "inner", "inverse", "kron", "logdet", "slogdet",
    "movedim", "moveaxis", "permute", "repeat_interleave", "rot90", "tile", "unflatten", "fliplr", "flipud",
    "atleast_1d", "atleast_2d", "atleast_3d", "broadcast_shapes", "broadcast_tensors", "broadcast_to", "cartesian_prod",
    "column_stack", "combinations", "dstack", "hstack", "meshgrid", "row_stack", "vstack",
    "dsplit", "hsplit", "tensor_split", "vsplit",
    "block_diag", "diag_embed", "diagflat", "tril_indices", "triu_indices", "vander",
    "masked_select", "scatter", "scatter_add", "take", "take_along_dim",
    "addbmm", "addmv", "chain_matmul", "tensordot", "vdot", "cumulative_trapezoid", "diff", "trapezoid", "trapz",
    "corrcoef", "cov", "aminmax", "nanmean", "nanmedian", "nanquantile", "quantile", "renorm",
    "bincount", "bucketize", "histc", "histogram", "isin", "searchsorted", "unique_consecutive",
    "cummax", "cummin", "kthvalue", "logcumsumexp", "mode", "nansum",
    "index_add", "index_copy", "index_fill", "index_put", "masked_scatter", "scatter_reduce", "swapaxes", "swapdims",
    "absolute", "negative", "msort", "nonzero", "argwhere", "as_strided",
)
__all__ += MORE_FUNCTIONS


def _tensor(x):
    x = binary_ops.operand(x)
    return x if isinstance(x, Tensor) else Tensor._make(np.asarray(x))



def _method(name):
    def call(input, *args, **kwargs):
        return getattr(_tensor(input), name)(*args, **kwargs)

    call.__name__ = name
    call.__doc__ = f"`input.{name}(...)` as a function."
    return call


exp, log, sqrt, abs, sin, cos, tanh = map(_method, ("exp", "log", "sqrt", "abs", "sin", "cos", "tanh"))
sigmoid, relu, softmax, log_softmax = map(_method, ("sigmoid", "relu", "softmax", "log_softmax"))
sum, mean, norm = map(_method, ("sum", "mean", "norm"))
index_add, index_copy, index_fill, index_put, masked_scatter, scatter_reduce = map(
    _method, ("index_add", "index_copy", "index_fill", "index_put", "masked_scatter", "scatter_reduce"))
swapaxes, swapdims, absolute, negative, msort = map(_method, ("swapaxes", "swapdims", "absolute", "negative", "msort"))
is_inference = _method("is_inference")

# `torch.sin_(t)` and the other in-place functions: `t.sin_()` (which refuses a leaf that requires grad)
IN_PLACE = (
    "abs_", "acos_", "acosh_", "arccos_", "arccosh_", "arcsin_", "arcsinh_", "arctan_", "arctanh_", "asin_", "asinh_",
    "atan_", "atanh_", "ceil_", "clamp_", "clamp_max_", "clamp_min_",
    "clip_", "cos_", "cosh_", "erf_", "erfc_", "exp2_", "exp_", "expm1_", "floor_", "frac_", "log10_", "log1p_", "log2_",
    "log_", "neg_", "reciprocal_", "relu_", "round_", "rsqrt_", "sigmoid_", "sin_", "sinh_", "sqrt_", "square_", "tan_", "tanh_",
    "trunc_",
)
globals().update({name: _method(name) for name in IN_PLACE})
__all__ += IN_PLACE


def _extremum_function(name):
    """`torch.max` or `torch.min`: the method, after PyTorch's TypeError for a number dim."""
    method = _method(name)

    def call(input, *args, **kwargs):
        if args and isinstance(args[0], (float, bool)):
            raise TypeError(
                f"{name}() received an invalid combination of arguments - got (Tensor, {type(args[0]).__name__}), "
                "but expected one of:\n * (Tensor input, *, Tensor out = None)\n * (Tensor input, Tensor other, *, "
                "Tensor out = None)\n * (Tensor input, int dim, bool keepdim = False, *, tuple of Tensors out = None)\n"
            )
        return method(input, *args, **kwargs)

    call.__name__ = name
    call.__doc__ = method.__doc__
    return call


max, min = _extremum_function("max"), _extremum_function("min")


def _number_first(name):
    """`torch.add` (`sub`, `mul`, `div`): `input.add(other, ...)`, where a number `input` is
    PyTorch's wrapped number: a 0-d tensor of the dtype the op gives it with a tensor
    `other` (`torch.mul(2.5, int_tensor)` is float32, `torch.add(3, int8_tensor)` int8,
    an integer out of the dtype's range wrapped into it), or of `tensor(input)`'s dtype
    against a number (`torch.mul(2.5, 3)` is float32)."""
    method = _method(name)

    def call(input, other, *args, **kwargs):
        number = binary_ops.operand(input)
        if isinstance(number, numbers.Number):
            if isinstance(other, Tensor):
                with np.errstate(over="ignore"):  # 1e39 is inf in float32, as in PyTorch
                    value = np.array(number).astype(dtypes.result_type(other._data, number))
                input = Tensor._make(value)
            else:
                input = creation.tensor(number)
        return method(input, other, *args, **kwargs)

    call.__name__ = name
    call.__doc__ = method.__doc__
    return call


add, sub, mul, div = map(_number_first, ("add", "sub", "mul", "div"))
neg = _method("neg")
argmax, argmin, clone, reshape, transpose = map(_method, ("argmax", "argmin", "clone", "reshape", "transpose"))
t, squeeze, unsqueeze, flatten, numel = map(_method, ("t", "squeeze", "unsqueeze", "flatten", "numel"))
select, narrow, roll, flip, view_as = map(_method, ("select", "narrow", "roll", "flip", "view_as"))
diagonal, diag = _method("diagonal"), _method("diag")


def is_tensor(obj):
    return isinstance(obj, Tensor)


def is_floating_point(input):
    """Whether the tensor `input` has a floating dtype (float16, float32, float64)."""
    if not isinstance(input, Tensor):
        raise TypeError(
            f"is_floating_point(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}"
        )
    return input.is_floating_point()


def pow(input, exponent):
    """`input ** exponent`; a Python number raised to a tensor is PowBackward2 (as `2 ** t`)."""
    if not isinstance(input, Tensor) and isinstance(exponent, Tensor):
        return exponent.__rpow__(input)
    return _tensor(input).pow(exponent)


_PAIRS = {"Max": named_pair("max"), "Min": named_pair("min")}


def extremum_along(x, arg, name, dim, keepdim):
    """`x.max(dim)` or `x.min(dim)` (`arg` is np.argmax or np.argmin): the values at
    the returned indices, one node called `name`. The whole gradient goes to those
    entries, the first of tied ones (as in PyTorch; the full reduction shares it)."""
    ndim = x._data.ndim
    pair = _PAIRS[name[:3]]
    dim_axis(dim, ndim)
    dim %= ndim or 1
    at = np.asarray(arg(x._data, axis=dim, keepdims=True))
    if not ndim:  # a 0-d tensor is its own extremum
        return pair(ops.apply(operator.getitem, x, (), name=name, edge_args=(0,)), Tensor._make(at))
    index = list(np.ix_(*map(np.arange, at.shape)))  # every position, with `at` along dim
    index[dim] = at
    if not keepdim:
        index, at = [i.squeeze(dim) for i in index], at.squeeze(dim)
    return pair(ops.apply(operator.getitem, x, tuple(index), name=name, edge_args=(0,)), Tensor._make(at))


def _two_norm(x, dim, keepdim):
    squares = x * x
    total = squares.sum() if dim is None else squares.sum(dim, keepdim)
    return total.sqrt()


def _norm_all(x):
    """`np.linalg.norm(x)` for a real floating ndarray: what NumPy computes."""
    flat = x.ravel(order="K")
    return np.sqrt(flat.dot(flat))


def _p_norm(x, p, dim, keepdim):
    """(sum |x|^p)^(1/p), or max |x| for p = inf (ties share the gradient, as in PyTorch)."""
    size = x.abs()
    if p == math.inf:
        return size.max() if dim is None else ops.apply(np.max, size, name="MaxBackward0", axis=dim_axis(dim, x.dim()), keepdims=keepdim)
    if p == 1:
        return size.sum() if dim is None else size.sum(dim, keepdim)
    powers = size**p
    total = powers.sum() if dim is None else powers.sum(dim, keepdim)
    zero = total == 0  # PyTorch's gradient there is 0, not 0 * inf
    return where(zero, 0.0, where(zero, 1.0, total) ** (1.0 / p))


def _one_norm(x, ord, axis, keepdims):
    """`np.linalg.norm(x, ord, axis, keepdims)` where each norm covers one element: its
    magnitude, exact (NumPy squares it: 0 below 1e-19 and inf above 1e19 in float32)."""
    return np.abs(x).sum(axis=axis, keepdims=keepdims)


def _reduces_one(x, dim):
    """Whether each result of a reduction of `x` over `dim` (None: all) covers one element."""
    shape = x._data.shape
    axis = None if dim is None else dim_axis(dim, len(shape))
    if axis is None:
        return x._data.size == 1
    return math.prod(shape[d] for d in (axis if isinstance(axis, tuple) else (axis,))) == 1


def vector_norm(x, ord=2, dim=None, keepdim=False):
    """The `ord`-norm of all elements (or along `dim`): one LinalgVectorNormBackward0 node.

    Where each norm covers one element it is that element's magnitude, exact at any size
    (as in PyTorch, whose float32 2-norm of one element squares nothing: no underflow
    below 1e-19 or overflow above 1e19), with gradient sign(x); at nan the 2-norm's
    (np.linalg.norm's rule, single int dims) is nan, as PyTorch's, the others' 0 (abs's,
    where PyTorch's p-norms for p other than 1 and inf give nan). Otherwise the 2-norm
    uses the registry's rule for `np.linalg.norm` when there is one, else
    sqrt(sum(x * x)); other norms (ord >= 1, or inf) run through the elementwise and
    reduction rules. Below 1 the gradient at a zero element is infinite times zero:
    refused, not NaN.
    """
    if x._data.dtype.kind not in "fc":
        raise RuntimeError(
            "linalg.vector_norm: Expected a floating point or complex tensor as input. "
            f"Got {x.dtype.kind_name}"
        )
    if dim is not None and dim_axis(dim, x._data.ndim) is None and not x._data.ndim:
        dim = None  # a 0-d tensor's dim 0 or -1: its one element
    one = x._data.dtype.kind == "f" and _reduces_one(x, dim)
    if one and ord == 2 and (dim is None or isinstance(dim, int)) and lookup(np.linalg.norm) is not None:
        consts = (None, None, False) if dim is None else (None, dim_axis(dim, x._data.ndim), keepdim)
        return ops.unary(np.linalg.norm, x, "LinalgVectorNormBackward0", consts=consts, compute=_one_norm)
    if ord != 2 or one:
        if isinstance(ord, bool) or not isinstance(ord, numbers.Real) or not ord >= 1:
            raise NotImplementedError(f"the shim's norms are for p >= 1 or inf; got p={ord!r}")
        if one:
            ord = 1  # |x| as the sum of one |x|: no power to underflow or overflow
        return ops.composite("LinalgVectorNormBackward0", _p_norm, x, float(ord), dim, keepdim, _saves_result=True)
    if lookup(np.linalg.norm) is not None and dim is None and x._data.dtype.kind == "f":
        return ops.unary(np.linalg.norm, x, "LinalgVectorNormBackward0", compute=_norm_all)
    if lookup(np.linalg.norm) is not None and (dim is None or isinstance(dim, int) or len(dim) <= 2):
        kwargs = {} if dim is None else {"axis": dim if isinstance(dim, int) else tuple(dim), "keepdims": keepdim}
        return ops.apply(np.linalg.norm, x, name="LinalgVectorNormBackward0", **kwargs)
    return ops.composite("LinalgVectorNormBackward0", _two_norm, x, dim, keepdim, _saves_result=True)


ravel = _method("ravel")
__all__ += ["ravel"]
