"""Rules for the container helpers that generated derivative code calls (`item_grad`,
`assigned_grad`, `drop_last`, `popped_grad`, `without_part`, `field_grad`, `values_grad`,
`structure_like`, `repeated_part`, `field_values`, `record_like`), so that code can be differentiated again (`hessian`).

Each helper is linear in the gradient `g` it takes apart or rebuilds (None meaning zero);
its other parameters are indices, keys or lend a structure (zero rules, or `discrete`).
Forward mode adds the tangents of `add_grad` with `add_grad`, since they may be lists.
The reverse rules transpose the forward ones (for an index that names each entry once).
The other helpers' rules are in `runtime_rules.py`.
"""

from .. import runtime
from ..runtime import (
    assigned_grad, broadcast_tangent, drop_last, field_grad, field_values, item_grad, popped_grad, repeated_part,
    record_like, sequence_like, structure_like, unbroadcast, values_grad, without_part, zeros_like_grad,
)
from .registry import defjvp, defvjp, discrete
from .runtime_rules import _zero
from .shapes import _getitem_vjp


def _leaf_transpose(cotangent, g):
    """The transpose of `structure_like(., x)` at the gradient `g`: broadcast back to `g`."""
    if g is None:
        return None
    if isinstance(g, (list, tuple)):
        return sequence_like(g, [_leaf_transpose(c, gi) for c, gi in zip(cotangent, g)])
    if type(g) is dict:
        return {k: _leaf_transpose(cotangent[k], v) for k, v in g.items()}
    return broadcast_tangent(cotangent, g)


def _item_transpose(cotangent, g, key):
    return None if g is None else _getitem_vjp(cotangent, g, key)


def _drop_last_transpose(cotangent, g):
    return None if g is None else type(g)(list(cotangent) + [None])


@defvjp(item_grad, "g", name="ItemGrad")
def item_grad_vjp(cotangent, ans, g, key, x):
    return _item_transpose(cotangent, g, key)


@defjvp(item_grad, "g")
def item_grad_jvp(t, ans, g, key, x):
    # a zero gradient (None) has a zero tangent, which may be the number 0.0; one `return`: inlined
    return zeros_like_grad(x) if _entry(g, key) is None else item_grad(t, key, x)


def _entry(g, key):
    """The gradient `g` (a list, tuple or dict of gradients, or None for zeros) holds at `key`."""
    return g.get(key) if type(g) is dict else None if g is None else g[key]


@defvjp(item_grad, "x")
@_zero
def item_grad_vjp_x(cotangent, ans, g, key, x):
    return zeros_like_grad(x)


@defjvp(item_grad, "x")
@_zero
def item_grad_jvp_x(t, ans, g, key, x):
    return zeros_like_grad(ans)


@defvjp(values_grad, "g", name="ValuesGrad")
def values_grad_vjp(cotangent, ans, g, d):
    return None if cotangent is None else [cotangent[k] for k in d]


@defjvp(values_grad, "g")
def values_grad_jvp(t, ans, g, d):
    return values_grad(t, d)


@defvjp(values_grad, "d")
@_zero
def values_grad_vjp_d(cotangent, ans, g, d):
    return zeros_like_grad(d)


@defjvp(values_grad, "d")
@_zero
def values_grad_jvp_d(t, ans, g, d):
    return zeros_like_grad(ans)


@defvjp(assigned_grad, "g", name="AssignedGrad")
def assigned_grad_vjp(cotangent, ans, g, index, v, y=None):
    return _item_transpose(_leaf_transpose(cotangent, item_grad(g, index, v)), g, index)


@defjvp(assigned_grad, "g")
def assigned_grad_jvp(t, ans, g, index, v, y=None):
    return assigned_grad(t, index, v, y)


@defvjp(assigned_grad, ("v", "y"))
@_zero
def assigned_grad_vjp_v(cotangent, ans, g, index, v, y=None):
    return zeros_like_grad(v)


@defjvp(assigned_grad, ("v", "y"))
@_zero
def assigned_grad_jvp_v(t, ans, g, index, v, y=None):
    return zeros_like_grad(ans)


@defvjp(drop_last, "g", name="DropLast")
def drop_last_vjp(cotangent, ans, g):
    return _drop_last_transpose(cotangent, g)


@defjvp(drop_last, "g")
def drop_last_jvp(t, ans, g):
    return drop_last(t)


# `_drop_last_transpose(cotangent, g)`, drop_last's adjoint: linear in `cotangent`; `g`
# lends its kind (None: a zero gradient)
@defvjp(_drop_last_transpose, "cotangent", name="DropLastTranspose")
def _drop_last_transpose_vjp(c, ans, cotangent, g):
    return None if g is None else drop_last(c)


@defjvp(_drop_last_transpose, "cotangent")
def _drop_last_transpose_jvp(t, ans, cotangent, g):
    return _drop_last_transpose(t, g)


@defvjp(_drop_last_transpose, "g")
@_zero
def _drop_last_transpose_vjp_g(c, ans, cotangent, g):
    return zeros_like_grad(g)


@defjvp(_drop_last_transpose, "g")
@_zero
def _drop_last_transpose_jvp_g(t, ans, cotangent, g):
    return zeros_like_grad(ans)


@defvjp(popped_grad, "g", name="PoppedGrad")
def popped_grad_vjp(cotangent, ans, g, at, rest, entry=False):
    if cotangent is None:
        return None
    place = at if at >= 0 else len(rest) + 1 + at
    return cotangent[place] if entry else type(cotangent)(list(cotangent[:place]) + list(cotangent[place + 1:]))


@defjvp(popped_grad, "g")
def popped_grad_jvp(t, ans, g, at, rest, entry=False):
    return popped_grad(t, at, rest, entry)


@defvjp(popped_grad, "rest")
@_zero
def popped_grad_vjp_rest(cotangent, ans, g, at, rest, entry=False):
    return zeros_like_grad(rest)


@defjvp(popped_grad, "rest")
@_zero
def popped_grad_jvp_rest(t, ans, g, at, rest, entry=False):
    return zeros_like_grad(ans)


@defvjp(field_grad, "g", name="FieldGrad")
def field_grad_vjp(cotangent, ans, g, x, name):
    return None if cotangent is None else getattr(cotangent, name)


@defjvp(field_grad, "g")
def field_grad_jvp(t, ans, g, x, name):
    return field_grad(t, x, name)


@defvjp(field_grad, "x")
@_zero
def field_grad_vjp_x(cotangent, ans, g, x, name):
    return zeros_like_grad(x)


@defjvp(field_grad, "x")
@_zero
def field_grad_jvp_x(t, ans, g, x, name):
    return zeros_like_grad(ans)


# A record's fields and a record made of other values: each the other's transpose.


@defvjp(field_values, "x", name="FieldValues")
def field_values_vjp(cotangent, ans, x):
    return None if cotangent is None else record_like(x, [zeros_like_grad(v) if c is None else c
                                                          for c, v in zip(cotangent, ans)])


@defjvp(field_values, "x")
def field_values_jvp(t, ans, x):
    return field_values(t)


@defvjp(record_like, "values", name="RecordLike")
def record_like_vjp(cotangent, ans, x, values):
    return None if cotangent is None else field_values(cotangent)


@defjvp(record_like, "values")
def record_like_jvp(t, ans, x, values):
    return record_like(x, [zeros_like_grad(v) if d is None else d for d, v in zip(t, values)])


@defvjp(record_like, "x")
@_zero
def record_like_vjp_x(cotangent, ans, x, values):
    return zeros_like_grad(x)


@defjvp(record_like, "x")
@_zero
def record_like_jvp_x(t, ans, x, values):
    return zeros_like_grad(ans)


@defvjp(without_part, "g", name="WithoutPart")
def without_part_vjp(cotangent, ans, g, index):
    return without_part(cotangent, index)


@defjvp(without_part, "g")
def without_part_jvp(t, ans, g, index):
    return without_part(t, index)


# the cotangent of a container gradient `g` is one too (a list, tuple or dict, or None):
# the compiler adds such cotangents with `add_grad`, entry by entry, never with `+`
for _rule in (item_grad_vjp, values_grad_vjp, assigned_grad_vjp, drop_last_vjp, popped_grad_vjp, without_part_vjp,
              _drop_last_transpose_vjp):
    _rule.container_gradient = True


# where in the container: a key read back from the tape may look differentiated
discrete(item_grad, "key")
discrete(field_grad, "name")
discrete(getattr, "name")
discrete(assigned_grad, "index")
discrete(popped_grad, "at")
discrete(without_part, "index")


@defvjp(structure_like, "g", name="StructureLike")
def structure_like_vjp(cotangent, ans, g, x):
    return _leaf_transpose(cotangent, g)


@defjvp(structure_like, "g")
def structure_like_jvp(t, ans, g, x):
    return structure_like(t, x)


@defvjp(structure_like, "x")
@_zero
def structure_like_vjp_x(cotangent, ans, g, x):
    return zeros_like_grad(x)


@defjvp(structure_like, "x")
@_zero
def structure_like_jvp_x(t, ans, g, x):
    return zeros_like_grad(ans)


@defjvp(repeated_part, "other")  # its other forward rules: with joined_part's, in derived_rules.py
def repeated_part_jvp_other(t, ans, g, x, other):
    if runtime.repeats(x, other, g) or runtime.repeats(other, x, g):  # the count lends a length
        return zeros_like_grad(ans)
    return unbroadcast(g * structure_like(t, other), x)  # arithmetic: g * other, bilinear (t: None for constants)
