"""np.einsum of one or two operands as primitives of fixed arity (the Tensor shim's
einsum): `reduction(subscripts, x)` is np.einsum(subscripts, x) and
`contraction(subscripts, x, y)` is np.einsum(subscripts, x, y).

The gradient of an operand is itself such an einsum (not np.einsum, whose rule
takes its operands as a sequence): the cotangent contracted with the other
operand onto the operand's labels (`_gradient_plan` writes its subscripts from the
strings alone), then broadcast back over the labels summed inside the operand alone,
and summed over the dims einsum broadcast (`unbroadcast`). Every step is a primitive
with a rule, so derivatives of every order exist. An operand with a repeated label (a
diagonal, 'ii->i') has no rule here: its gradient raises NotImplementedError.
"""

import numpy as np

from ..runtime import unbroadcast
from .linalg import _einsum_labels
from .registry import defjvp, defvjp, discrete, nondifferentiable

__all__ = ["reduction", "contraction"]


def reduction(subscripts, x):
    """np.einsum(subscripts, x)."""
    return np.einsum(subscripts, x)


def contraction(subscripts, x, y):
    """np.einsum(subscripts, x, y)."""
    return np.einsum(subscripts, x, y)


def _gradient_plan(subscripts, ndims, i):
    """For operand `i` (of operands of `ndims` dims): the subscripts of the einsum of the
    cotangent with the other operands onto the operand's labels reachable from them,
    and, per label of the operand, its position there (-1: summed inside the operand)."""
    inputs, output = _einsum_labels(subscripts, list(ndims))
    labels = inputs[i]
    if len(set(labels)) != len(labels):
        raise NotImplementedError(
            f"the einsum '{subscripts}' repeats a label in one operand (a diagonal): it has no derivative rule"
        )
    others = inputs[:i] + inputs[i + 1:]
    reachable = set(output).union(*others)
    kept = "".join(c for c in labels if c in reachable)
    positions = tuple(kept.index(c) if c in kept else -1 for c in labels)
    return ",".join([output, *others]) + "->" + kept, positions


def _spread_shape(partial_shape, positions):
    """The shape of a gradient `partial` with a dim of 1 for each label it lacks."""
    return tuple(partial_shape[p] if p >= 0 else 1 for p in positions)


def _spread(partial, positions, x):
    """`partial` (over the labels reachable from the cotangent) as x's gradient."""
    shaped = np.reshape(partial, _spread_shape(np.shape(partial), positions))
    return unbroadcast(np.broadcast_to(shaped, np.broadcast_shapes(np.shape(shaped), np.shape(x))), x)


nondifferentiable(_gradient_plan, _spread_shape)


@defvjp(reduction, "x", name="Einsum")
def reduction_vjp(g, ans, subscripts, x):
    plan = _gradient_plan(subscripts, (np.ndim(x),), 0)
    return _spread(reduction(plan[0], g), plan[1], x)


@defjvp(reduction, "x")
def reduction_jvp(t, ans, subscripts, x):
    return reduction(subscripts, t)


@defvjp(contraction, "x", name="Einsum")
def contraction_vjp_x(g, ans, subscripts, x, y):
    plan = _gradient_plan(subscripts, (np.ndim(x), np.ndim(y)), 0)
    return _spread(contraction(plan[0], g, y), plan[1], x)


@defvjp(contraction, "y")
def contraction_vjp_y(g, ans, subscripts, x, y):
    plan = _gradient_plan(subscripts, (np.ndim(x), np.ndim(y)), 1)
    return _spread(contraction(plan[0], g, x), plan[1], y)


@defjvp(contraction, "x")
def contraction_jvp_x(t, ans, subscripts, x, y):
    return contraction(subscripts, t, y)


@defjvp(contraction, "y")
def contraction_jvp_y(t, ans, subscripts, x, y):
    return contraction(subscripts, x, t)


discrete(reduction, "subscripts")
discrete(contraction, "subscripts")
