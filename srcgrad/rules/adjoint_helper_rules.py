"""Rules for the adjoint helpers of the rule modules' ops (the transposes of `x @ y`,
`x[index]`, np.prod, np.take, np.diagonal, np.cumprod, the singular values, np.interp
and np.einsum), which generated derivative code calls, so that code can be
differentiated again.

Each helper is linear in the cotangent it carries; its other parameters either enter
bilinearly (the other factor of a product) or only lend their shape (a zero rule in both
modes, `_zero`). Reverse and forward rules are written side by side; the rules of the
runtime's own helpers (`unbroadcast`, `unreduce`, ...) are in `runtime_rules.py`.
"""

import numpy as np

from ..runtime import unbroadcast, zeros_like_grad
from . import decompositions, linalg, reductions, series, shapes
from .operators import _matmul_vjp_x, _matmul_vjp_y
from .registry import defjvp, defvjp, discrete
from .runtime_rules import _zero
from .shapes import _getitem_vjp


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
    if not compute_uv or decompositions.singular_values_only(g):  # only s is used: its gradient reads no output
        return zeros_like_grad(result__)
    raise NotImplementedError(_SVD_SECOND)


def _svd_vjp_jvp_x(tangent__, result__, g, ans, x, full_matrices, compute_uv, hermitian):
    if not compute_uv:
        return _singular_values_vjp_tangent(g, x, tangent__, hermitian)
    if decompositions.singular_values_only(g):
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
