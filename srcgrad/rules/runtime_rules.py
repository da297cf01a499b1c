"""Rules for the helpers that generated derivative code calls, so that code can be differentiated again.

`hessian` runs forward mode over a generated gradient, which calls `unbroadcast`,
`unreduce`, `grad_seed`, the adjoint helpers of matrix products and indexing, and so
on. Each helper is linear in the cotangent it carries; its other parameters either
enter bilinearly (the other factor of a product) or only lend their shape. A
parameter that only lends its shape has a zero rule in both modes, marked with
`zero_tangent = True` so forward mode skips it instead of adding zeros. The primal
parameters are renamed (`value`, `like`, `cotangent`, `result`) where the helper's
own names would clash with the rules' leading `g`/`t` and `ans`.

The rules here are written by hand; those of the container helpers (`item_grad`, ...) are
in `container_rules.py`, those of the rule modules' adjoint helpers (`_matmul_vjp_x`,
`_getitem_vjp`, `_cumprod_vjp`, ...) in `adjoint_helper_rules.py`. The other helpers of the rule modules that generated
code calls get forward rules derived from their source (`derived_rules.py`); the rest
are plain Python functions, which forward mode differentiates through their own source.
"""

import numpy as np

from .. import runtime
from ..runtime import (
    add_grad, broadcast_tangent, jacobian_from_columns, owned_gradient, owned_gradients, snapshot, structure_like,
    unbroadcast, unless_integral, unreduce, zeros_like_grad,
)
from .registry import defjvp, defvjp, discrete, nondifferentiable

nondifferentiable(runtime.grad_seed, runtime.zeros_like_grad)
nondifferentiable(runtime.refuse_shared, runtime.refuse_shared_entry, runtime.refuse_changed_entry, runtime.refuse_changed_item, runtime.same_length)  # checks: the derivative of a gradient checks what it checks
nondifferentiable(runtime.has_key)  # whether `d.get(key, default)` reads the entry: a branch's test
nondifferentiable(runtime.is_view_of)  # whether a tuple assignment's value is a row: a branch's test
nondifferentiable(runtime.zip_strict, runtime.islice_bounds)  # a check of lengths, a slice: no values
nondifferentiable(runtime.dict_keys)  # the keys an `.items()` loop reads the entries at
nondifferentiable(runtime.order_by)  # positions ordered by keys: integers
nondifferentiable(runtime.index_tuples)  # the positions a loop over `itertools.combinations(...)` reads


def _zero(fn):
    fn.zero_tangent = True
    return fn


# --- owned_gradient(value), owned_gradients(*values): the gradients as returned --------


@defvjp(owned_gradient, "value", name="OwnedGradient")
def owned_gradient_vjp(g, ans, value):
    return g


@defjvp(owned_gradient, "value")
def owned_gradient_jvp(t, ans, value):
    return owned_gradient(t)


def _or_zeros(parts, values):
    """Each of `parts` (cotangents or tangents), with zeros like its value where None."""
    return tuple([zeros_like_grad(v) if part is None else part for part, v in zip(parts, values)])


@defvjp(owned_gradients, "values", name="OwnedGradients")
def owned_gradients_vjp(g, ans, *values):
    return _or_zeros(g, values)


@defjvp(owned_gradients, "values")
def owned_gradients_jvp(t, ans, *values):
    return owned_gradients(*_or_zeros(t, values))


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


# --- broadcast_tangent(t, x): `t` spread to the shape of `x` (what unbroadcast sums) --


@defvjp(broadcast_tangent, "t", name="BroadcastTangent")
def broadcast_tangent_vjp_t(g, ans, t, x):
    return unbroadcast(g, t)


@defjvp(broadcast_tangent, "t")
def broadcast_tangent_jvp_t(t_dot, ans, t, x):
    return broadcast_tangent(t_dot, x)


@defvjp(broadcast_tangent, "x")
@_zero
def broadcast_tangent_vjp_x(g, ans, t, x):
    return zeros_like_grad(x)


@defjvp(broadcast_tangent, "x")
@_zero
def broadcast_tangent_jvp_x(t_dot, ans, t, x):
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


# --- unless_integral(value, like): `value`, or zeros where `like` holds integers --------


@defvjp(unless_integral, "value", name="UnlessIntegral")
def unless_integral_vjp_value(g, ans, value, like):
    return unless_integral(g, like)


@defjvp(unless_integral, "value")
def unless_integral_jvp_value(t, ans, value, like):
    return unless_integral(t, like)


@defvjp(unless_integral, "like")
@_zero
def unless_integral_vjp_like(g, ans, value, like):
    return zeros_like_grad(like)


@defjvp(unless_integral, "like")
@_zero
def unless_integral_jvp_like(t, ans, value, like):
    return zeros_like_grad(ans)


# --- in_place(value, target): `target op= v` on an ndarray keeps target's dtype ---------


@defvjp(runtime.in_place, "value", name="InPlace")
def in_place_vjp_value(g, ans, value, target):
    return g


@defjvp(runtime.in_place, "value")
def in_place_jvp_value(t, ans, value, target):
    return _written_tangent(t, ans)


discrete(runtime.in_place, "target")  # it lends only its dtype and shape


def _written_tangent(t, ans):
    """The tangent `t` of a value written into the array `ans` in place: of its dtype and shape."""
    if type(ans) is np.ndarray and (type(t) is not np.ndarray or t.dtype != ans.dtype or t.shape != ans.shape):
        return np.broadcast_to(t, ans.shape).astype(ans.dtype)
    return t


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


# --- dict_entry(d, key): what a dict write overwrites (restored by restore_entry) -----------


@defjvp(runtime.dict_entry, "d")
def dict_entry_jvp(t, ans, d, key):
    return runtime.dict_entry(t, key)


discrete(runtime.dict_entry, "key")


# --- the Jacobian helpers: unit_tangents(x), jacobian_from_columns(columns, x, out) ---------
# The generated code computing a Jacobian (to differentiate it again, srcgrad.jacobian)
# pushes the constant tangents `unit_tangents(x)` and assembles the pushed ones, to which
# the Jacobian is linear; `x` and `out` only lend their structure. Forward mode only:
# reverse mode does not run over derivatives made by srcgrad.

nondifferentiable(runtime.unit_tangents)


@defjvp(jacobian_from_columns, "columns")
def jacobian_from_columns_jvp(t, ans, columns, x, out):
    return jacobian_from_columns(structure_like(t, columns), x, out)


@defjvp(jacobian_from_columns, ("x", "out"))
@_zero
def jacobian_from_columns_jvp_structure(t, ans, columns, x, out):
    return zeros_like_grad(ans)
