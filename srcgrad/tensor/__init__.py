"""The PyTorch-compatible Tensor shim: eager autograd over NumPy arrays.

`import srcgrad as torch` runs PyTorch autograd tutorial code and prints what
PyTorch 2.13 prints (object addresses and random draws aside).

Layout: `tensor.py` (the class, no calculus), `ops.py` (the one doorway to the
rule registry), `binary_ops.py` (operands and type promotion of binary ops),
`complex_refusals.py` (PyTorch's errors for ops without complex kernels),
`rule_nodes.py` (the nodes it records), `graph.py` (nodes and edges), `engine.py` (backward),
`grad_mode.py` (no_grad and friends), `versions.py` (version counters), `errstate.py`
(silenced floating-point warnings); the class's mixins `arithmetic.py` (operators),
`reductions.py` (sum, mean, prod, std, var, logsumexp, cumsum, ...), `shaping.py` (views and
indexing), `inplace.py` (in-place methods); `creation.py` (constructors; `sequences.py` reads nested lists, `ranges.py` computes
arange and linspace as PyTorch), `generators.py` (Generator, the default generator, seeds and
states: every random draw takes its numbers there), `draws.py` (randperm, normal, bernoulli, the in-place draws), `summation.py` (PyTorch's order of a sum), `functions.py` (module-level ops), `combining.py` (hstack, meshgrid, broadcast_to, ...), `splitting.py`
(tensor_split, hsplit, ...), `matrix_makers.py` (block_diag, diag_embed, vander, tril_indices, ...),
`contractions.py` (tensordot, vdot, addmv, addbmm, chain_matmul), `differences.py` (diff, trapezoid, ...),
`statistics.py` (cov, corrcoef, nanmean, quantile, aminmax, renorm, ...), `binning.py` (bucketize,
searchsorted, histc, bincount, isin, unique_consecutive, ...), `logical.py` (logical_and, eq, signbit, ...), `complex_parts.py`
(real, conj, angle, ... of real tensors),
`pointwise.py` (clamp, maximum, where, ...), `pointwise_more.py` (logaddexp, xlogy, lgamma, erfinv, ...),
`linalg_functions.py` (det, inverse, slogdet, cholesky, einsum, cdist, ...), `decompositions.py` (qr, eigh, svd: one
node of several outputs), `solves.py` (solve, lstsq, pinv, ...), `matrix_functions.py` (matrix norms, powers, exp,
multi_dot), `rearrangements.py` (rot90, tile, movedim,
repeat_interleave, ...), `scatters.py` (scatter, scatter_add, take_along_dim, masked_select), `order_statistics.py`
(cummax, logcumsumexp, kthvalue, mode, nansum), `joins.py` (cat, stack), `printing.py`
(PyTorch's repr), `dtypes.py` (dtypes, Size, promotion), `devices.py` (device), `compiled.py`
(`@srcgrad.compile`, its unrolled call path in `compiled_calls.py`).
"""

from . import dtypes
from .creation import (
    arange, as_tensor, empty, eye, from_numpy, full, full_like, linspace,
    ones, ones_like, rand, rand_like, randint, randint_like, randn, randn_like, tensor,
    zeros, zeros_like,
)
from .devices import device, get_default_device, set_default_device
from .generators import (
    Generator, default_generator, get_rng_state, initial_seed, manual_seed, seed, set_rng_state,
)
from .draws import bernoulli, multinomial, normal, poisson, randperm
from .dtypes import Size, dtype, finfo, get_default_dtype, iinfo, set_default_dtype
from .functions import (
    abs, add, addmm, all, allclose, amax, amin, any, argmax, argmin, argsort, atan2, bmm, cat, ceil, chunk, clamp, clamp_max,
    clamp_min, clip, clone, concat, concatenate, cos, cumprod, cumsum, div, dot, exp, expm1, flatten, floor, gather,
    index_select, is_floating_point, is_tensor, isclose, lerp, log, log1p, log_softmax, logsumexp, masked_fill, matmul,
    max, maximum, mean, min, minimum, mm, mv, mul, neg, norm, numel, outer, pow, prod, relu, reshape, round, sigmoid,
    sign, sin, softmax, sort, split, sqrt, squeeze, stack, std, sub, sum, t, tanh, topk, trace, transpose, tril, triu,
    trunc, unbind, unsqueeze, var, where,
    reciprocal, rsqrt, log2, log10, exp2, asin, acos, atan, arcsin, arccos, arctan, sinh, cosh, tan, asinh, acosh, atanh, arcsinh, arccosh, arctanh, erf, erfc, square, isnan, isfinite, isinf, floor_divide, remainder, true_divide, median, std_mean, var_mean, select, narrow, roll, flip, view_as,
    frac, count_nonzero, unique, diagonal, diag,
)
from .functions import IN_PLACE
from . import functions as _functions
from .printing import set_printoptions
from .grad_mode import enable_grad, inference_mode, is_grad_enabled, no_grad, set_grad_enabled
from .tensor import Tensor

float16 = half = dtypes.float16
float32 = dtypes.float32
float64 = double = dtypes.float64
complex64 = dtypes.complex64
complex128 = dtypes.complex128
uint8 = dtypes.uint8
int8 = dtypes.int8
int16 = short = dtypes.int16
int32 = dtypes.int32
int64 = long = dtypes.int64
bool_ = dtypes.bool_

globals().update({_name: getattr(_functions, _name) for _name in IN_PLACE})  # sin_, exp_, ...
globals().update({_name: getattr(_functions, _name) for _name in _functions.MORE_FUNCTIONS})  # logaddexp, det, ...
