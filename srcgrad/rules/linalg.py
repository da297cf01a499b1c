"""Products: dot vdot inner outer tensordot einsum multi_dot kron trace cross vecdot (and
their numpy.linalg spellings). `matmul` lives in `operators.py` with the `@` operator;
inverses, determinants and solves in `inverses.py`, factorizations in
`decompositions.py`, norms in `norms.py`.

Matrix functions work on stacks (`(..., m, n)`). A sequence parameter (`*operands` of
einsum) gets a tuple of gradients; see `structure.py` for the convention.
"""

import string

import numpy as np

from ..runtime import unbroadcast, zeros_like_grad
from .registry import defjvp, defvjp, nondifferentiable, numpy2
from .shapes import _diagonal_scatter

def _swap_last_axes(x):
    """`np.matrix_transpose` where NumPy 1.26 lacks it."""
    return np.swapaxes(x, -1, -2)


_T = getattr(np, "matrix_transpose", _swap_last_axes)


# --- dot, vdot, inner, outer --------------------------------------------------------


def _dot_vjp_x(g, x, y):
    if np.ndim(x) == 0 or np.ndim(y) == 0:
        return unbroadcast(g * y, x)
    if np.ndim(y) == 1:
        return unbroadcast(np.multiply.outer(g, y), x)
    # dot contracts x's last axis with y's second-to-last: move that axis of y last.
    g_axes = range(np.ndim(x) - 1, np.ndim(g))
    return unbroadcast(np.tensordot(g, np.moveaxis(y, -2, -1), (g_axes, range(np.ndim(y) - 1))), x)


def _dot_vjp_y(g, x, y):
    if np.ndim(x) == 0 or np.ndim(y) == 0:
        return unbroadcast(g * x, y)
    lead = range(np.ndim(x) - 1)
    g_y = np.tensordot(x, g, (lead, lead))
    return unbroadcast(g_y if np.ndim(y) <= 2 else np.moveaxis(g_y, 0, -2), y)


@defvjp(np.dot, "x")
def dot_vjp_x(g, ans, x, y, out=None):
    return _dot_vjp_x(g, x, y)


@defvjp(np.dot, "y")
def dot_vjp_y(g, ans, x, y, out=None):
    return _dot_vjp_y(g, x, y)


@defjvp(np.dot, "x")
def dot_jvp_x(t, ans, x, y, out=None):
    return np.dot(t, y)


@defjvp(np.dot, "y")
def dot_jvp_y(t, ans, x, y, out=None):
    return np.dot(x, t)


@defvjp(np.vdot, "x")
def vdot_vjp_x(g, ans, x, y):
    return unbroadcast(g * np.reshape(y, np.shape(x)), x)


@defvjp(np.vdot, "y")
def vdot_vjp_y(g, ans, x, y):
    return unbroadcast(g * np.reshape(x, np.shape(y)), y)


@defjvp(np.vdot, "x")
def vdot_jvp_x(t, ans, x, y):
    return np.vdot(t, y)


@defjvp(np.vdot, "y")
def vdot_jvp_y(t, ans, x, y):
    return np.vdot(x, t)


def _inner_vjp_x(g, x, y):
    if np.ndim(x) == 0 or np.ndim(y) == 0:
        return unbroadcast(g * y, x)
    g_axes = range(np.ndim(x) - 1, np.ndim(g))
    return unbroadcast(np.tensordot(g, y, (g_axes, range(np.ndim(y) - 1))), x)


def _inner_vjp_y(g, x, y):
    if np.ndim(x) == 0 or np.ndim(y) == 0:
        return unbroadcast(g * x, y)
    lead = range(np.ndim(x) - 1)
    return unbroadcast(np.tensordot(g, x, (lead, lead)), y)


@defvjp(np.inner, "x")
def inner_vjp_x(g, ans, x, y):
    return _inner_vjp_x(g, x, y)


@defvjp(np.inner, "y")
def inner_vjp_y(g, ans, x, y):
    return _inner_vjp_y(g, x, y)


@defjvp(np.inner, "x")
def inner_jvp_x(t, ans, x, y):
    return np.inner(t, y)


@defjvp(np.inner, "y")
def inner_jvp_y(t, ans, x, y):
    return np.inner(x, t)


@defvjp(np.outer, "x")
def outer_vjp_x(g, ans, x, y, out=None):
    return unbroadcast(np.reshape(g @ np.ravel(y), np.shape(x)), x)


@defvjp(np.outer, "y")
def outer_vjp_y(g, ans, x, y, out=None):
    return unbroadcast(np.reshape(np.ravel(x) @ g, np.shape(y)), y)


@defjvp(np.outer, "x")
def outer_jvp_x(t, ans, x, y, out=None):
    return np.outer(t, y)


@defjvp(np.outer, "y")
def outer_jvp_y(t, ans, x, y, out=None):
    return np.outer(x, t)


@defvjp(numpy2("linalg.outer"), "x", name="Outer")
def linalg_outer_vjp_x(g, ans, x, y):
    return unbroadcast(g @ y, x)


@defvjp(numpy2("linalg.outer"), "y")
def linalg_outer_vjp_y(g, ans, x, y):
    return unbroadcast(x @ g, y)


@defjvp(numpy2("linalg.outer"), "x")
def linalg_outer_jvp_x(t, ans, x, y):
    return np.linalg.outer(t, y)


@defjvp(numpy2("linalg.outer"), "y")
def linalg_outer_jvp_y(t, ans, x, y):
    return np.linalg.outer(x, t)


def _multiply_outer_vjp_x(g, x, y):
    """out[i..., j...] = x[i...] y[j...]: contract g's trailing (y) axes with y."""
    return unbroadcast(np.tensordot(g, y, np.ndim(y)), x)


def _multiply_outer_vjp_y(g, x, y):
    return unbroadcast(np.tensordot(x, g, (range(np.ndim(x)), range(np.ndim(x)))), y)


@defvjp(np.multiply.outer, "x", name="Outer")
def multiply_outer_vjp_x(g, ans, x, y):
    return _multiply_outer_vjp_x(g, x, y)


@defvjp(np.multiply.outer, "y")
def multiply_outer_vjp_y(g, ans, x, y):
    return _multiply_outer_vjp_y(g, x, y)


@defjvp(np.multiply.outer, "x")
def multiply_outer_jvp_x(t, ans, x, y):
    return np.multiply.outer(t, y)


@defjvp(np.multiply.outer, "y")
def multiply_outer_jvp_y(t, ans, x, y):
    return np.multiply.outer(x, t)


@defvjp(numpy2("vecdot"), "x")
@defvjp(numpy2("linalg.vecdot"), "x")
def vecdot_vjp_x(g, ans, x, y, *, axis=-1):
    return unbroadcast(np.expand_dims(g, axis) * y, x)


@defvjp(numpy2("vecdot"), "y")
@defvjp(numpy2("linalg.vecdot"), "y")
def vecdot_vjp_y(g, ans, x, y, *, axis=-1):
    return unbroadcast(np.expand_dims(g, axis) * x, y)


@defjvp(numpy2("vecdot"), "x")
@defjvp(numpy2("linalg.vecdot"), "x")
def vecdot_jvp_x(t, ans, x, y, *, axis=-1):
    return np.vecdot(t, y, axis=axis)


@defjvp(numpy2("vecdot"), "y")
@defjvp(numpy2("linalg.vecdot"), "y")
def vecdot_jvp_y(t, ans, x, y, *, axis=-1):
    return np.vecdot(x, t, axis=axis)


# --- tensordot, einsum, multi_dot, kron ---------------------------------------------


def _tensordot_axes(axes, x_ndim, y_ndim):
    """`axes` of tensordot as two lists of non-negative axes, paired in order."""
    if np.ndim(axes) == 0:
        return list(range(x_ndim - axes, x_ndim)), list(range(axes))
    x_axes, y_axes = ([a] if np.ndim(a) == 0 else list(a) for a in axes)
    return [a % x_ndim for a in x_axes], [a % y_ndim for a in y_axes]


def _tensordot_vjp_x(g, x, y, axes):
    x_axes, y_axes = _tensordot_axes(axes, np.ndim(x), np.ndim(y))
    x_free = [a for a in range(np.ndim(x)) if a not in x_axes]
    y_free = [a for a in range(np.ndim(y)) if a not in y_axes]
    partial = np.tensordot(g, y, (range(len(x_free), np.ndim(g)), y_free))
    # partial's axes: x's free axes, then x's contracted axes in the order y holds them
    order = x_free + [x_axes[k] for k in np.argsort(y_axes)]
    return unbroadcast(np.transpose(partial, np.argsort(order)), x)


def _tensordot_vjp_y(g, x, y, axes):
    x_axes, y_axes = _tensordot_axes(axes, np.ndim(x), np.ndim(y))
    x_free = [a for a in range(np.ndim(x)) if a not in x_axes]
    y_free = [a for a in range(np.ndim(y)) if a not in y_axes]
    partial = np.tensordot(x, g, (x_free, range(len(x_free))))
    order = [y_axes[k] for k in np.argsort(x_axes)] + y_free
    return unbroadcast(np.transpose(partial, np.argsort(order)), y)


@defvjp(np.tensordot, "x")
def tensordot_vjp_x(g, ans, x, y, axes=2):
    return _tensordot_vjp_x(g, x, y, axes)


@defvjp(np.tensordot, "y")
def tensordot_vjp_y(g, ans, x, y, axes=2):
    return _tensordot_vjp_y(g, x, y, axes)


@defjvp(np.tensordot, "x")
def tensordot_jvp_x(t, ans, x, y, axes=2):
    return np.tensordot(t, y, axes)


@defjvp(np.tensordot, "y")
def tensordot_jvp_y(t, ans, x, y, axes=2):
    return np.tensordot(x, t, axes)


@defvjp(numpy2("linalg.tensordot"), "x", name="Tensordot")
def linalg_tensordot_vjp_x(g, ans, x, y, *, axes=2):
    return _tensordot_vjp_x(g, x, y, axes)


@defvjp(numpy2("linalg.tensordot"), "y")
def linalg_tensordot_vjp_y(g, ans, x, y, *, axes=2):
    return _tensordot_vjp_y(g, x, y, axes)


@defjvp(numpy2("linalg.tensordot"), "x")
def linalg_tensordot_jvp_x(t, ans, x, y, *, axes=2):
    return np.tensordot(t, y, axes)


@defjvp(numpy2("linalg.tensordot"), "y")
def linalg_tensordot_jvp_y(t, ans, x, y, *, axes=2):
    return np.tensordot(x, t, axes)


def _einsum_labels(subscripts, ndims):
    """Explicit labels for each operand (of `ndims` dimensions each) and the output, '...'
    spelled out as letters. It reads no operand, so differentiating a rule that calls it
    (a Hessian through einsum) does not differentiate it."""
    if not isinstance(subscripts, str):
        raise NotImplementedError("einsum derivatives need the subscripts string form, e.g. 'ij,jk->ik'")
    spec = subscripts.replace(" ", "")
    inputs, arrow, output = spec.partition("->")
    inputs = inputs.split(",")
    spare = [c for c in string.ascii_letters if c not in spec]
    extra = [ndim - (len(s) - 3) for s, ndim in zip(inputs, ndims) if "..." in s]
    ellipsis = "".join(spare[: max(extra, default=0)])
    inputs = [
        s.replace("...", ellipsis[len(ellipsis) - (ndim - len(s) + 3) :]) if "..." in s else s
        for s, ndim in zip(inputs, ndims)
    ]
    if arrow:
        output = output.replace("...", ellipsis)
    else:
        counts = "".join(inputs)
        once = sorted(c for c in set(counts) if counts.count(c) == 1 and c not in ellipsis)
        output = ellipsis + "".join(once)
    return inputs, output


def _einsum_operand_grad(g, labels, operand, output, others, other_operands):
    """The gradient of one operand: contract g with the other operands onto the
    operand's labels; labels summed only inside this operand come back by broadcasting,
    repeated labels (a diagonal) by writing onto the diagonal."""
    unique = "".join(dict.fromkeys(labels))
    reachable = set(output).union(*others)
    kept = "".join(c for c in unique if c in reachable)
    partial = np.einsum(",".join([output, *others]) + "->" + kept, g, *other_operands)
    sizes = dict(zip(labels, np.shape(operand)))
    partial = np.reshape(partial, [partial.shape[kept.index(c)] if c in kept else 1 for c in unique])
    # labels broadcast from size 1 inside einsum: sum them back
    summed = tuple(a for a, c in enumerate(unique) if sizes[c] == 1 and partial.shape[a] != 1)
    partial = np.sum(partial, axis=summed, keepdims=True) if summed else partial
    target = [sizes[c] for c in unique]
    if len(unique) == len(labels):
        return unbroadcast(np.broadcast_to(partial, target), operand)
    out = zeros_like_grad(np.asarray(operand))
    np.einsum(labels + "->" + unique, out)[...] = partial
    return out


def _einsum_vjp(g, subscripts, operands):
    inputs, output = _einsum_labels(subscripts, [np.ndim(op) for op in operands])
    grads = []
    for i, (labels, operand) in enumerate(zip(inputs, operands)):
        others = inputs[:i] + inputs[i + 1 :]
        other_operands = operands[:i] + operands[i + 1 :]
        grads.append(_einsum_operand_grad(g, labels, operand, output, others, other_operands))
    return list(grads) if isinstance(operands, list) else tuple(grads)  # a list for multi_dot's list


def _einsum_vjp_tangent(g, subscripts, operands, tangents):
    """The tangent of `_einsum_vjp(g, subscripts, operands)` along the operands' `tangents`
    (None: a constant). Each gradient is linear in every other operand, and depends on its
    own operand through its shape only: one term per other operand with a tangent."""
    inputs, output = _einsum_labels(subscripts, [np.ndim(op) for op in operands])
    out = []
    for i, (labels, operand) in enumerate(zip(inputs, operands)):
        others = inputs[:i] + inputs[i + 1 :]
        total = zeros_like_grad(np.asarray(operand))
        for j, tangent in enumerate(tangents):
            if j != i and tangent is not None:
                varied = list(operands)
                varied[j] = tangent
                total = total + _einsum_operand_grad(g, labels, operand, output, others, varied[:i] + varied[i + 1 :])
        out.append(total)
    return list(out) if isinstance(operands, list) else tuple(out)


def _einsum_jvp(t, subscripts, operands):
    """Sum over operands with a tangent: einsum with that operand replaced by it."""
    total = 0.0
    for i, tangent in enumerate(t):
        if tangent is not None:
            total = total + np.einsum(subscripts, *operands[:i], tangent, *operands[i + 1 :])
    return total


@defvjp(np.einsum, "operands")
def einsum_vjp(g, ans, subscripts, *operands, out=None, optimize=False, **kwargs):
    return _einsum_vjp(g, subscripts, operands)


@defjvp(np.einsum, "operands")
def einsum_jvp(t, ans, subscripts, *operands, out=None, optimize=False, **kwargs):
    return _einsum_jvp(t, subscripts, operands)


def _multi_dot_subscripts(arrays):
    """multi_dot as an einsum, `ab,bc,cd->ad`: a 1-D first operand has no row label, a 1-D
    last one no column label. Its reverse rule is einsum's, whose gradient is a tuple the
    compiler adds entry by entry when it differentiates it again (a Hessian)."""
    letters = string.ascii_letters
    n = len(arrays)
    terms = [letters[i] + letters[i + 1] for i in range(n)]
    first, last = letters[0], letters[n]
    if np.ndim(arrays[0]) == 1:
        terms[0], first = terms[0][1], ""
    if np.ndim(arrays[-1]) == 1:
        terms[-1], last = terms[-1][0], ""
    return ",".join(terms) + "->" + first + last


nondifferentiable(_multi_dot_subscripts)


def _multi_dot_jvp(t, arrays):
    total = 0.0
    for i, tangent in enumerate(t):
        if tangent is not None:
            total = total + np.linalg.multi_dot([*arrays[:i], tangent, *arrays[i + 1 :]])
    return total


@defvjp(np.linalg.multi_dot, "arrays")
def multi_dot_vjp(g, ans, arrays, *, out=None):
    return _einsum_vjp(g, _multi_dot_subscripts(arrays), arrays)


@defjvp(np.linalg.multi_dot, "arrays")
def multi_dot_jvp(t, ans, arrays, *, out=None):
    return _multi_dot_jvp(t, arrays)


def _kron_blocks(g, x, y):
    """g viewed with x's and y's axes interleaved, and x, y padded to the same ndim."""
    ndim = max(np.ndim(x), np.ndim(y))
    x_shape = (1,) * (ndim - np.ndim(x)) + np.shape(x)
    y_shape = (1,) * (ndim - np.ndim(y)) + np.shape(y)
    blocks = np.reshape(g, [n for pair in zip(x_shape, y_shape) for n in pair])
    return blocks, np.reshape(x, x_shape), np.reshape(y, y_shape), ndim


def _kron_vjp_x(g, x, y):
    blocks, _, y_full, ndim = _kron_blocks(g, x, y)
    grad = np.tensordot(blocks, y_full, (range(1, 2 * ndim, 2), range(ndim)))
    return unbroadcast(np.reshape(grad, np.shape(x)), x)


def _kron_vjp_y(g, x, y):
    blocks, x_full, _, ndim = _kron_blocks(g, x, y)
    grad = np.tensordot(x_full, blocks, (range(ndim), range(0, 2 * ndim, 2)))
    return unbroadcast(np.reshape(grad, np.shape(y)), y)


@defvjp(np.kron, "x")
def kron_vjp_x(g, ans, x, y):
    return _kron_vjp_x(g, x, y)


@defvjp(np.kron, "y")
def kron_vjp_y(g, ans, x, y):
    return _kron_vjp_y(g, x, y)


@defjvp(np.kron, "x")
def kron_jvp_x(t, ans, x, y):
    return np.kron(t, y)


@defjvp(np.kron, "y")
def kron_jvp_y(t, ans, x, y):
    return np.kron(x, t)


# --- trace, cross -------------------------------------------------------------------


@defvjp(np.trace, "x")
def trace_vjp(g, ans, x, offset=0, axis1=0, axis2=1, dtype=None, out=None):
    return _diagonal_scatter(g, x, offset, axis1, axis2)


trace_vjp.reads_only_the_shape_of = ("x",)  # as PyTorch's TraceBackward0, which keeps sizes


@defjvp(np.trace, "x")
def trace_jvp(t, ans, x, offset=0, axis1=0, axis2=1, dtype=None, out=None):
    return np.trace(t, offset, axis1, axis2)


@defvjp(numpy2("linalg.trace"), "x", name="Trace")
def linalg_trace_vjp(g, ans, x, *, offset=0, dtype=None):
    return _diagonal_scatter(g, x, offset, -2, -1)


@defjvp(numpy2("linalg.trace"), "x")
def linalg_trace_jvp(t, ans, x, *, offset=0, dtype=None):
    return np.linalg.trace(t, offset=offset)


def _cross_vjp(g, x, y, axisa, axisb, axisc, axis):
    """<g, x × y> = <x, y × g>: the gradient of x, vectors laid out along axisa."""
    if axis is not None:
        axisa = axisb = axisc = axis
    if np.shape(x)[axisa] != 3 or np.shape(y)[axisb] != 3:
        raise NotImplementedError(
            "srcgrad differentiates np.cross of 3-element vectors only, not of 2-element ones (which NumPy 2 "
            "deprecates): write the 2-D cross product out, `x[..., 0] * y[..., 1] - x[..., 1] * y[..., 0]`"
        )
    return unbroadcast(np.cross(y, g, axisa=axisb, axisb=axisc, axisc=axisa), x)


@defvjp(np.cross, "x")
def cross_vjp_x(g, ans, x, y, axisa=-1, axisb=-1, axisc=-1, axis=None):
    return _cross_vjp(g, x, y, axisa, axisb, axisc, axis)


@defvjp(np.cross, "y")
def cross_vjp_y(g, ans, x, y, axisa=-1, axisb=-1, axisc=-1, axis=None):
    return _cross_vjp(-g, y, x, axisb, axisa, axisc, axis)


@defjvp(np.cross, "x")
def cross_jvp_x(t, ans, x, y, axisa=-1, axisb=-1, axisc=-1, axis=None):
    return np.cross(t, y, axisa, axisb, axisc, axis)


@defjvp(np.cross, "y")
def cross_jvp_y(t, ans, x, y, axisa=-1, axisb=-1, axisc=-1, axis=None):
    return np.cross(x, t, axisa, axisb, axisc, axis)


@defvjp(numpy2("linalg.cross"), "x", name="Cross")
def linalg_cross_vjp_x(g, ans, x, y, *, axis=-1):
    return _cross_vjp(g, x, y, axis, axis, axis, None)


@defvjp(numpy2("linalg.cross"), "y")
def linalg_cross_vjp_y(g, ans, x, y, *, axis=-1):
    return _cross_vjp(-g, y, x, axis, axis, axis, None)


@defjvp(numpy2("linalg.cross"), "x")
def linalg_cross_jvp_x(t, ans, x, y, *, axis=-1):
    return np.linalg.cross(t, y, axis=axis)


@defjvp(numpy2("linalg.cross"), "y")
def linalg_cross_jvp_y(t, ans, x, y, *, axis=-1):
    return np.linalg.cross(x, t, axis=axis)
