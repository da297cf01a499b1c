"""Rules for the helpers that generated derivative code calls, so that code can be differentiated again.

`hessian` runs forward mode over a generated gradient, which calls `unbroadcast`,
`unreduce`, `grad_seed`, the adjoint helpers of matrix products and indexing, and so
on. Each helper is linear in the cotangent it carries; its other parameters either
enter bilinearly (the other factor of a product) or only lend their shape. A
parameter that only lends its shape has a zero rule in both modes, marked with
`zero_tangent = True` so forward mode skips it instead of adding zeros. The primal
parameters are renamed (`value`, `like`, `cotangent`, `result`) where the helper's
own names would clash with the rules' leading `g`/`t` and `ans`.

Helpers without a rule here (most private helpers of the rule modules) are plain
Python functions: forward mode differentiates them through their own source.
"""

import numpy as np

from .. import runtime
from ..runtime import add_grad, broadcast_tangent, snapshot, unbroadcast, unreduce, zeros_like_grad
from . import activations, elementwise, reductions, shapes, structure
from .operators import _matmul_vjp_x, _matmul_vjp_y
from .registry import defjvp, defvjp, nondifferentiable
from .shapes import _getitem_vjp

nondifferentiable(runtime.grad_seed, runtime.zeros_like_grad)
# Helpers of the rule modules whose values are piecewise constant (shares of a max, masks,
# counts) or not numbers at all (axes, dtypes): constants to any derivative.
nondifferentiable(
    reductions._extremum_share, reductions._median_share, reductions._ptp_share, reductions._not_nan,
    reductions._valid_count, reductions._dof, reductions._nan_dof, reductions._axes, reductions._float_dtype,
    elementwise._nan_ignoring_share, elementwise._clip_lower_share, elementwise._clip_upper_share,
    activations._count, shapes._axes, shapes._inverse_axes, structure._hsplit_axis, structure._hstack_axis,
)


def _zero(fn):
    fn.zero_tangent = True
    return fn


# --- unbroadcast(value, like): sum `value` down to the shape of `like` ------------------


@defvjp(unbroadcast, "value", name="Unbroadcast")
def unbroadcast_vjp_value(g, ans, value, like):
    return broadcast_tangent(g, value)


@defjvp(unbroadcast, "value")
def unbroadcast_jvp_value(t, ans, value, like):
    return unbroadcast(t, like)


@defvjp(unbroadcast, "like")
@_zero
def unbroadcast_vjp_like(g, ans, value, like):
    return zeros_like_grad(like)


@defjvp(unbroadcast, "like")
@_zero
def unbroadcast_jvp_like(t, ans, value, like):
    return zeros_like_grad(ans)


# --- unreduce(value, like, axis, keepdims): spread `value` over the shape of `like` ------


@defvjp(unreduce, "value", name="Unreduce")
def unreduce_vjp_value(g, ans, value, like, axis=None, keepdims=False):
    return unbroadcast(np.sum(g, axis=axis, keepdims=keepdims), value)


@defjvp(unreduce, "value")
def unreduce_jvp_value(t, ans, value, like, axis=None, keepdims=False):
    return unreduce(t, like, axis, keepdims)


@defvjp(unreduce, "like")
@_zero
def unreduce_vjp_like(g, ans, value, like, axis=None, keepdims=False):
    return zeros_like_grad(like)


@defjvp(unreduce, "like")
@_zero
def unreduce_jvp_like(t, ans, value, like, axis=None, keepdims=False):
    return zeros_like_grad(ans)


# --- add_grad(a, b) and snapshot(x): linear ------------------------------------------


@defvjp(add_grad, ("a", "b"), name="AddGrad")
def add_grad_vjp(g, ans, a, b):
    return g


@defjvp(add_grad, ("a", "b"))
def add_grad_jvp(t, ans, a, b):
    return t


@defvjp(snapshot, "x", name="Snapshot")
def snapshot_vjp(g, ans, x):
    return g


@defjvp(snapshot, "x")
def snapshot_jvp(t, ans, x):
    return snapshot(t)


# --- the adjoints of x @ y: bilinear in the cotangent and the other factor ----------------


@defvjp(_matmul_vjp_x, "cotangent", name="MatmulBackwardX")
def matmul_vjp_x_vjp_cotangent(g, ans, cotangent, result, x, y):
    return unbroadcast(g @ y, cotangent)


@defjvp(_matmul_vjp_x, "cotangent")
def matmul_vjp_x_jvp_cotangent(t, ans, cotangent, result, x, y):
    return _matmul_vjp_x(t, result, x, y)


@defvjp(_matmul_vjp_x, "y")
def matmul_vjp_x_vjp_y(g, ans, cotangent, result, x, y):
    return _matmul_vjp_y(cotangent, result, g, y)


@defjvp(_matmul_vjp_x, "y")
def matmul_vjp_x_jvp_y(t, ans, cotangent, result, x, y):
    return _matmul_vjp_x(cotangent, result, x, t)


@defvjp(_matmul_vjp_x, ("result", "x"))
@_zero
def matmul_vjp_x_vjp_shape(g, ans, cotangent, result, x, y):
    return zeros_like_grad(x)


@defjvp(_matmul_vjp_x, ("result", "x"))
@_zero
def matmul_vjp_x_jvp_shape(t, ans, cotangent, result, x, y):
    return zeros_like_grad(ans)


@defvjp(_matmul_vjp_y, "cotangent", name="MatmulBackwardY")
def matmul_vjp_y_vjp_cotangent(g, ans, cotangent, result, x, y):
    return unbroadcast(x @ g, cotangent)


@defjvp(_matmul_vjp_y, "cotangent")
def matmul_vjp_y_jvp_cotangent(t, ans, cotangent, result, x, y):
    return _matmul_vjp_y(t, result, x, y)


@defvjp(_matmul_vjp_y, "x")
def matmul_vjp_y_vjp_x(g, ans, cotangent, result, x, y):
    return _matmul_vjp_x(cotangent, result, x, g)


@defjvp(_matmul_vjp_y, "x")
def matmul_vjp_y_jvp_x(t, ans, cotangent, result, x, y):
    return _matmul_vjp_y(cotangent, result, t, y)


@defvjp(_matmul_vjp_y, ("result", "y"))
@_zero
def matmul_vjp_y_vjp_shape(g, ans, cotangent, result, x, y):
    return zeros_like_grad(y)


@defjvp(_matmul_vjp_y, ("result", "y"))
@_zero
def matmul_vjp_y_jvp_shape(t, ans, cotangent, result, x, y):
    return zeros_like_grad(ans)


# --- the adjoint of x[index]: scatter the cotangent into zeros shaped like x ---------------


@defvjp(_getitem_vjp, "cotangent", name="IndexBackward")
def getitem_vjp_vjp_cotangent(g, ans, cotangent, x, index):
    return g[index]


@defjvp(_getitem_vjp, "cotangent")
def getitem_vjp_jvp_cotangent(t, ans, cotangent, x, index):
    return _getitem_vjp(t, x, index)


@defvjp(_getitem_vjp, "x")
@_zero
def getitem_vjp_vjp_x(g, ans, cotangent, x, index):
    return zeros_like_grad(x)


@defjvp(_getitem_vjp, "x")
@_zero
def getitem_vjp_jvp_x(t, ans, cotangent, x, index):
    return zeros_like_grad(ans)
