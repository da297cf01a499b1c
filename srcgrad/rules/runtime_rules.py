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
in `container_rules.py`. The other helpers of the rule modules that generated
code calls get forward rules derived from their source (`derived_rules.py`); the rest
are plain Python functions, which forward mode differentiates through their own source.
"""

import numpy as np

from .. import runtime
from ..runtime import (
    add_grad, broadcast_tangent, jacobian_from_columns, owned_gradient, owned_gradients, snapshot, structure_like,
    unbroadcast, unless_integral, unreduce, zeros_like_grad,
)
from . import decompositions, linalg, reductions, series, shapes
from .operators import _matmul_vjp_x, _matmul_vjp_y
from .registry import defjvp, defvjp, discrete, nondifferentiable
from .shapes import _getitem_vjp

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


discrete(_getitem_vjp, "index")


# --- the product of the other entries (np.prod's adjoint helper) ---------------------------


def _prod_of_others_tangent(t, x, axis):
    """The tangent of `_prod_of_others(x, axis)` along `t`, without division (exact at zeros).

    With exclusive prefix products L_k = x_0 ... x_{k-1} and suffix products R_k, entry k
    is L_k R_k; their tangents follow the recurrences L'_{k+1} = L'_k x_k + L_k t_k (and
    the mirror one for R). The map t -> tangent is symmetric, so it is also the adjoint.
    """
    flat = reductions._to_last(x, axis)
    tflat = reductions._to_last(np.broadcast_to(t, np.shape(x)), axis)
    n = flat.shape[-1]
    dtype = np.result_type(flat, tflat, np.float32)
    lefts, left_dots, rights, right_dots = [None] * n, [None] * n, [None] * n, [None] * n
    one, zero = np.ones(flat.shape[:-1], dtype), np.zeros(flat.shape[:-1], dtype)
    left, left_dot, right, right_dot = one, zero, one, zero
    for k in range(n):
        lefts[k], left_dots[k] = left, left_dot
        left, left_dot = left * flat[..., k], left_dot * flat[..., k] + left * tflat[..., k]
        j = n - 1 - k
        rights[j], right_dots[j] = right, right_dot
        right, right_dot = right * flat[..., j], right_dot * flat[..., j] + right * tflat[..., j]
    out = [left_dots[k] * rights[k] + lefts[k] * right_dots[k] for k in range(n)]
    return reductions._from_last(np.stack(out, axis=-1) if n else np.zeros(flat.shape, dtype), x, axis)


@defvjp(reductions._prod_of_others, "x", name="ProdOfOthers")
def prod_of_others_vjp(g, ans, x, axis):
    return _prod_of_others_tangent(g, x, axis)


@defjvp(reductions._prod_of_others, "x")
def prod_of_others_jvp(t, ans, x, axis):
    return _prod_of_others_tangent(t, x, axis)


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


# --- the adjoints of np.take and np.take_along_axis: _take_vjp(g, x, indices, axis, mode),
# _take_along_axis_vjp(g, x, indices, axis). Linear in g, whose transposes select; `x`
# only lends a shape. Reverse mode over generated reverse code calls them (the Tensor
# shim's gradients of gradients of index_select and gather).


def _take_vjp_vjp_g(cotangent__, result__, g, x, indices, axis, mode):
    return np.take(cotangent__, indices, axis=axis, mode=mode)


def _take_vjp_jvp_g(tangent__, result__, g, x, indices, axis, mode):
    return shapes._take_vjp(tangent__, x, indices, axis, mode)


@_zero
def _take_vjp_vjp_x(cotangent__, result__, g, x, indices, axis, mode):
    return zeros_like_grad(x)


@_zero
def _take_vjp_jvp_x(tangent__, result__, g, x, indices, axis, mode):
    return zeros_like_grad(result__)


def _take_along_axis_vjp_vjp_g(cotangent__, result__, g, x, indices, axis):
    return np.take_along_axis(cotangent__, indices, axis)


def _take_along_axis_vjp_jvp_g(tangent__, result__, g, x, indices, axis):
    return shapes._take_along_axis_vjp(tangent__, x, indices, axis)


@_zero
def _take_along_axis_vjp_vjp_x(cotangent__, result__, g, x, indices, axis):
    return zeros_like_grad(x)


@_zero
def _take_along_axis_vjp_jvp_x(tangent__, result__, g, x, indices, axis):
    return zeros_like_grad(result__)


# --- _diagonal_scatter(g, x, offset, axis1, axis2): g on a diagonal of zeros like x ----------
# (the adjoint of np.diagonal and of trace; it writes into a view, which reverse mode
# refuses to read, so the second derivatives of a trace or a diagonal need these)


def _diagonal_scatter_vjp_g(cotangent__, result__, g, x, offset, axis1, axis2):
    taken = np.diagonal(cotangent__, offset, axis1, axis2)
    return taken if np.ndim(g) == np.ndim(taken) else np.sum(taken, axis=-1)  # a trace's g filled the diagonal


def _diagonal_scatter_jvp_g(tangent__, result__, g, x, offset, axis1, axis2):
    return shapes._diagonal_scatter(tangent__, x, offset, axis1, axis2)


@_zero
def _diagonal_scatter_vjp_x(cotangent__, result__, g, x, offset, axis1, axis2):
    return zeros_like_grad(x)


@_zero
def _diagonal_scatter_jvp_x(tangent__, result__, g, x, offset, axis1, axis2):
    return zeros_like_grad(result__)


for _helper, (_vjp_g, _jvp_g, _vjp_x, _jvp_x) in (
    (shapes._take_vjp, (_take_vjp_vjp_g, _take_vjp_jvp_g, _take_vjp_vjp_x, _take_vjp_jvp_x)),
    (shapes._take_along_axis_vjp, (_take_along_axis_vjp_vjp_g, _take_along_axis_vjp_jvp_g, _take_along_axis_vjp_vjp_x,
                                   _take_along_axis_vjp_jvp_x)),
    (shapes._diagonal_scatter, (_diagonal_scatter_vjp_g, _diagonal_scatter_jvp_g, _diagonal_scatter_vjp_x,
                                _diagonal_scatter_jvp_x)),
):
    defvjp(_helper, "g")(_vjp_g)
    defjvp(_helper, "g")(_jvp_g)
    defvjp(_helper, "x")(_vjp_x)
    defjvp(_helper, "x")(_jvp_x)
discrete(shapes._take_vjp, "indices", "axis", "mode")
discrete(shapes._take_along_axis_vjp, "indices", "axis")
discrete(shapes._diagonal_scatter, "offset", "axis1", "axis2")


# --- cumprod's adjoint helper: _cumprod_vjp(g, ans, x, axis) ------------------------------
# Along each scan (axis last), with the masks of _cumprod_pieces and S = reverse cumsum:
#   R = before * S(g * ans) / x + first * S(g * skipped)
# (ans taken as given: the rules of `ans` and `x` are those of this formula, exact where x
# holds zeros). The reverse rules transpose the forward ones, term by term.


def _cumprod_vjp_jvp_g(tangent__, result__, g, ans, x, axis):
    return reductions._cumprod_vjp(tangent__, ans, x, axis)


def _cumprod_vjp_vjp_g(cotangent__, result__, g, ans, x, axis):
    last = reductions._scan_last
    cm, am, xm = last(cotangent__, axis), last(ans, axis), last(x, axis)
    before, first, skipped = reductions._cumprod_pieces(xm)
    over_x = np.cumsum(np.where(before, cm / np.where(before, xm, 1.0), 0.0), axis=-1)
    out = am * over_x + skipped * np.cumsum(np.where(first, cm, 0.0), axis=-1)
    return reductions._unscan_layout(out, g, axis)


def _cumprod_vjp_vjp_ans(cotangent__, result__, g, ans, x, axis):
    last = reductions._scan_last
    cm, gm, xm = last(cotangent__, axis), last(g, axis), last(x, axis)
    before = reductions._cumprod_pieces(xm)[0]
    out = gm * np.cumsum(np.where(before, cm / np.where(before, xm, 1.0), 0.0), axis=-1)
    return reductions._unscan_layout(out, ans, axis)


def _cumprod_vjp_vjp_x(cotangent__, result__, g, ans, x, axis):
    last = reductions._scan_last
    cm, gm, am, xm = last(cotangent__, axis), last(g, axis), last(ans, axis), last(x, axis)
    before, first, skipped = reductions._cumprod_pieces(xm)
    divisor = np.where(before, xm, 1.0)
    d_part = np.where(before, -reductions._reverse_cumsum(gm * am, -1) / divisor**2 * cm, 0.0)
    base = np.where(first, 1.0, xm)
    c_zero = np.sum(np.where(first, cm, 0.0), axis=-1, keepdims=True)  # the cotangent at the first zero
    d_skipped = np.where(first, 0.0, reductions._cumprod_vjp(np.where(before, 0.0, gm * c_zero), skipped, base, -1))
    after = ~(before | first)
    moved = np.sum(np.where(after, cm * reductions._cumprod_vjp(gm, skipped, base, -1), 0.0), axis=-1, keepdims=True)
    out = d_part + d_skipped + np.where(first, moved, 0.0)
    return reductions._unscan_layout(out, x, axis)


def _cumprod_vjp_jvp_ans(tangent__, result__, g, ans, x, axis):
    # linear in ans, less the part that does not involve it (at a zero of x)
    return reductions._cumprod_vjp(g, tangent__, x, axis) - reductions._cumprod_vjp(g, zeros_like_grad(ans), x, axis)


def _cumprod_vjp_jvp_x(tangent__, result__, g, ans, x, axis):
    gm, am, xm, tm = reductions._scan_layout(axis, g, ans, x, np.broadcast_to(tangent__, np.shape(x)))
    before, first, skipped = reductions._cumprod_pieces(xm)
    divisor = np.where(before, xm, 1.0)
    d_part = -reductions._reverse_cumsum(gm * am, -1) / divisor**2 * np.where(before, tm, 0.0)
    base, t_base = np.where(first, 1.0, xm), np.where(first, 0.0, tm)
    d_skipped = reductions._cumprod_jvp(t_base, skipped, base, -1)
    d_at_zero = reductions._reverse_cumsum(gm * d_skipped, -1)
    # an entry after the first zero has gradient 0 only while that zero stays 0: moving
    # it gives the entry the gradient it has in the scan that skips the zero
    t_zero = np.sum(np.where(first, tm, 0.0), axis=-1, keepdims=True)
    d_after = t_zero * reductions._cumprod_vjp(gm, skipped, base, -1)
    out = np.where(before, d_part, 0.0) + np.where(first, d_at_zero, 0.0) + np.where(before | first, 0.0, d_after)
    return reductions._unscan_layout(out, x, axis)


defvjp(reductions._cumprod_vjp, "g", name="CumprodVjp")(_cumprod_vjp_vjp_g)
defjvp(reductions._cumprod_vjp, "g")(_cumprod_vjp_jvp_g)
defvjp(reductions._cumprod_vjp, "ans")(_cumprod_vjp_vjp_ans)
defjvp(reductions._cumprod_vjp, "ans")(_cumprod_vjp_jvp_ans)
defvjp(reductions._cumprod_vjp, "x")(_cumprod_vjp_vjp_x)
defjvp(reductions._cumprod_vjp, "x")(_cumprod_vjp_jvp_x)
discrete(reductions._cumprod_vjp, "axis")


# --- the singular values' and svd's adjoint helpers, and the cofactor matrix (det) --------


_SVD_SECOND = "second derivatives of svd through its singular vectors are not implemented (the singular values' are)"


def _singular_values_vjp_tangent(g, x, t, hermitian):
    """The tangent of u diag(g) vh, the gradient of <g, s>, along t: du diag(g) vh + u diag(g) dvh."""
    thin = np.linalg.svd(x, full_matrices=False)
    d_u, _, d_vh = decompositions._svd_jvp(t, thin, x, False, True, hermitian)
    weights = np.expand_dims(g, -2)
    return (d_u * weights) @ thin[2] + (thin[0] * weights) @ d_vh


def _singular_values_vjp_jvp_x(tangent__, result__, g, x, hermitian=False):
    return _singular_values_vjp_tangent(g, x, tangent__, hermitian)


def _svd_vjp_jvp_ans(tangent__, result__, g, ans, x, full_matrices, compute_uv, hermitian):
    if not compute_uv or (g[0] is None and g[2] is None):  # only s is used: its gradient reads no output
        return zeros_like_grad(result__)
    raise NotImplementedError(_SVD_SECOND)


def _svd_vjp_jvp_x(tangent__, result__, g, ans, x, full_matrices, compute_uv, hermitian):
    if not compute_uv:
        return _singular_values_vjp_tangent(g, x, tangent__, hermitian)
    if g[0] is None and g[2] is None:
        return _singular_values_vjp_tangent(g[1], x, tangent__, hermitian)
    raise NotImplementedError(_SVD_SECOND)


@defvjp(decompositions._cofactor, "x")
def cofactor_vjp(g, ans, x):
    return decompositions._cofactor_tangent(x, g)


@defjvp(decompositions._cofactor, "x")
def cofactor_jvp(t, ans, x):
    return decompositions._cofactor_tangent(x, t)


defjvp(decompositions._singular_values_vjp, "x")(_singular_values_vjp_jvp_x)
defjvp(decompositions._svd_vjp, "ans")(_svd_vjp_jvp_ans)
defjvp(decompositions._svd_vjp, "x")(_svd_vjp_jvp_x)


# --- np.interp's adjoint helper for fp: _interp_vjp_fp ------------------------------------


def _interp_vjp_fp_tangent(g, x, xp, fp, left, right, x_dot, xp_dot):
    """The tangent of `_interp_vjp_fp` along x_dot and xp_dot: the weights 1 - s and s move."""
    x, xp = np.asarray(x), np.asarray(xp)
    n = len(xp)
    piece = np.clip(np.searchsorted(xp, x, side="right") - 1, 0, n - 2)
    width = xp[piece + 1] - xp[piece]
    raw = (x - xp[piece]) / width
    x_dot = np.broadcast_to(x_dot, x.shape)
    xp_dot = np.broadcast_to(xp_dot, xp.shape)
    raw_dot = (x_dot - xp_dot[piece]) / width - raw * (xp_dot[piece + 1] - xp_dot[piece]) / width
    s_dot = np.where((raw > 0.0) & (raw < 1.0), raw_dot, 0.0)
    weight = np.broadcast_to(g, x.shape)
    weight = np.where((x < xp[0]) & (left is not None), 0.0, weight)
    weight = np.where((x > xp[-1]) & (right is not None), 0.0, weight)
    out = np.zeros(n, dtype=np.result_type(weight, s_dot))
    np.add.at(out, piece, -weight * s_dot)
    np.add.at(out, piece + 1, weight * s_dot)
    return unbroadcast(out, fp)


def _interp_vjp_fp_jvp_x(tangent__, result__, g, x, xp, fp, left, right, period):
    return _interp_vjp_fp_tangent(g, x, xp, fp, left, right, tangent__, 0.0)


def _interp_vjp_fp_jvp_xp(tangent__, result__, g, x, xp, fp, left, right, period):
    return _interp_vjp_fp_tangent(g, x, xp, fp, left, right, 0.0, tangent__)


defjvp(series._interp_vjp_fp, "x")(_interp_vjp_fp_jvp_x)
defjvp(series._interp_vjp_fp, "xp")(_interp_vjp_fp_jvp_xp)

# --- linalg._einsum_vjp(g, subscripts, operands): linear in g and in each operand ---------


def _einsum_vjp_jvp_g(tangent__, result__, g, subscripts, operands):
    return linalg._einsum_vjp(tangent__, subscripts, operands)


def _einsum_vjp_jvp_operands(tangent__, result__, g, subscripts, operands):
    return linalg._einsum_vjp_tangent(g, subscripts, operands, tangent__)


defjvp(linalg._einsum_vjp, "g")(_einsum_vjp_jvp_g)
defjvp(linalg._einsum_vjp, "operands")(_einsum_vjp_jvp_operands)
