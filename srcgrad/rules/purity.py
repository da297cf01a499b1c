"""Which calls have no effect but their result, so that an unused one may be dropped.

`is_pure_call(fn, n_args, keywords)` is True for NumPy ufuncs called without an output
argument, for the NumPy functions listed here called without `out`, for the `math`
module's functions, for `len`, `range` and `zip`, and for the helpers of generated code
that only compute (not `grad_seed`, whose check is its effect). A pure call may still raise on bad input.
`is_droppable_call` says which unused calls the optimizer may drop: the pure ones
except `math`'s, which raise on values outside their domain (`math.atanh(1.5)`, where
NumPy's return nan), so that a derivative raises where its function raises.
"""

import builtins
import math

import numpy as np

from .. import runtime
from . import operators

_NUMPY = {
    np.sum, np.mean, np.prod, np.max, np.min, np.amax, np.amin, np.average, np.std, np.var,
    np.linalg.norm, np.dot, np.matmul, np.vdot, np.outer, np.inner, np.tensordot, np.where,
    np.zeros, np.ones, np.empty, np.full, np.zeros_like, np.ones_like, np.empty_like, np.full_like,
    np.reshape, np.transpose, np.swapaxes, np.expand_dims, np.squeeze, np.broadcast_to,
    np.concatenate, np.stack, np.size, np.ndim, np.shape, np.array, np.asarray, np.copy,
    np.clip, np.cumsum, np.cumprod, np.diff, np.trace, np.diag, np.sort, np.argmax, np.argmin,
}
_HELPERS = {
    runtime.unbroadcast, runtime.unreduce, runtime.zeros_like_grad, runtime.add_grad, runtime.mean_of, runtime.in_place,
    runtime.item_grad, runtime.structure_like, runtime.broadcast_tangent, runtime.owned_gradient, runtime.owned_gradients,
    operators._matmul_vjp_x, operators._matmul_vjp_y,
}
_MATH = {v for v in vars(math).values() if callable(v)}
# builtins that generated code calls for a loop's trip count and iterable (`i_trips = len(x)`,
# `zip(A, b)`), left unused where the loop's backward pass reads nothing of them
_BUILTINS = {builtins.len, builtins.range, builtins.zip}
_OUT_POSITION = {np.sum: 3, np.mean: 3, np.prod: 3, np.max: 2, np.min: 2, np.amax: 2, np.amin: 2,
                 np.std: 3, np.var: 3, np.dot: 2, np.matmul: 2, np.clip: 3, np.cumsum: 3, np.cumprod: 3,
                 np.argmax: 2, np.argmin: 2, np.concatenate: 2, np.stack: 2, np.vdot: 2}


def is_pure_call(fn, n_args, keywords):
    """Whether calling `fn` with `n_args` positional arguments and the keyword names
    `keywords` only computes its result."""
    if "out" in keywords:
        return False
    if isinstance(fn, np.ufunc):
        return n_args <= fn.nin
    try:
        known = fn in _NUMPY or fn in _HELPERS or fn in _MATH or fn in _BUILTINS
    except TypeError:  # unhashable
        return False
    return known and n_args <= _OUT_POSITION.get(fn, n_args)


def is_droppable_call(fn, n_args, keywords):
    """Whether an unused call of `fn` may be dropped: pure, and not a `math` function."""
    if not is_pure_call(fn, n_args, keywords):
        return False
    try:
        return fn not in _MATH
    except TypeError:  # unhashable
        return True
