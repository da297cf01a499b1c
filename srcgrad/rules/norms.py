"""numpy.linalg's norms: norm vector_norm matrix_norm (np.linalg.norm picks a vector or
a matrix norm from `ord` and `axis` as NumPy does).

Gradients spread back through `runtime.unreduce`, as for the reductions. Chosen
subgradients: 0 at a zero vector (ord 2 and the other p-norms) and at a zero matrix
('fro'); the vector inf-norms and the matrix 1- and inf-norms share the gradient
equally between tied entries (columns, rows), like np.max; ord 0 (a count) has a zero
gradient. The matrix norms of ord 2, -2 and 'nuc' go through the SVD.
"""

import numpy as np

from ..runtime import unreduce
from .reductions import _extremum_share, _float_dtype
from .registry import defjvp, defvjp, numpy2, supports


def _vector_norm_d(ans, x, ord, axis, keepdims):
    """d ||x||_ord / dx over `axis` (None: all entries), shaped like x."""
    norm = unreduce(ans, x, axis, keepdims)
    if ord == 0:
        return np.zeros_like(x, dtype=_float_dtype(x))
    if ord == 1:
        return np.sign(x)
    if ord in (np.inf, -np.inf):
        return np.sign(x) * _extremum_share(ans, np.abs(x), axis, keepdims)
    if ord is None or ord == 2:
        return np.where(norm == 0, 0.0, x / np.where(norm == 0, 1.0, norm))
    # 0 at a zero vector, as for ord 2 (not 0/0)
    return np.where(norm == 0, 0.0, np.sign(x) * (np.abs(x) / np.where(norm == 0, 1.0, norm)) ** (ord - 1))


def _matrix_norm_d(ans, x, ord, axes, keepdims):
    """d ||x||_ord / dx for the matrices spanning `axes` (a pair), shaped like x."""
    norm = unreduce(ans, x, axes, keepdims)
    if ord in (None, "fro"):
        return np.where(norm == 0, 0.0, x / np.where(norm == 0, 1.0, norm))
    moved = np.moveaxis(x, axes, (-2, -1))
    if ord in ("nuc", 2, -2):
        u, _, vh = np.linalg.svd(moved, full_matrices=False)
        if ord == "nuc":
            d = u @ vh
        else:
            k = 0 if ord == 2 else np.shape(u)[-1] - 1
            d = u[..., :, k : k + 1] @ vh[..., k : k + 1, :]
    elif ord in (1, -1, np.inf, -np.inf):
        # 1: the largest column sum of |x|; inf: the largest row sum
        summed_axis = -2 if ord in (1, -1) else -1
        sums = np.sum(np.abs(moved), axis=summed_axis, keepdims=True)
        pick = np.max if ord in (1, np.inf) else np.min
        best = pick(sums, axis=-1 if summed_axis == -2 else -2, keepdims=True)
        hit = sums == best
        share = hit / np.sum(hit, axis=-1 if summed_axis == -2 else -2, keepdims=True)
        d = np.sign(moved) * share
    else:
        raise ValueError(f"no derivative for a matrix norm of order {ord!r}")
    return np.moveaxis(d, (-2, -1), axes).astype(_float_dtype(x), copy=False)


def _norm_d(ans, x, ord, axis, keepdims):
    """np.linalg.norm's choice of vector or matrix norm, then its derivative."""
    if axis is None:
        if ord is None or np.ndim(x) == 1:
            return _vector_norm_d(ans, x, ord, axis, keepdims)
        return _matrix_norm_d(ans, x, ord, (0, 1), keepdims)
    if np.ndim(axis) == 0 or len(axis) == 1:
        return _vector_norm_d(ans, x, ord, axis, keepdims)
    return _matrix_norm_d(ans, x, ord, tuple(axis), keepdims)


@defvjp(np.linalg.norm, "x")
def norm_vjp(g, ans, x, ord=None, axis=None, keepdims=False):
    return unreduce(g, x, axis, keepdims) * _norm_d(ans, x, ord, axis, keepdims)


@defjvp(np.linalg.norm, "x")
def norm_jvp(t, ans, x, ord=None, axis=None, keepdims=False):
    return np.sum(t * _norm_d(ans, x, ord, axis, keepdims), axis=axis, keepdims=keepdims)


@defvjp(numpy2("linalg.vector_norm"), "x")
def vector_norm_vjp(g, ans, x, *, axis=None, keepdims=False, ord=2):
    return unreduce(g, x, axis, keepdims) * _vector_norm_d(ans, x, ord, axis, keepdims)


@defjvp(numpy2("linalg.vector_norm"), "x")
def vector_norm_jvp(t, ans, x, *, axis=None, keepdims=False, ord=2):
    return np.sum(t * _vector_norm_d(ans, x, ord, axis, keepdims), axis=axis, keepdims=keepdims)


@defvjp(numpy2("linalg.matrix_norm"), "x")
def matrix_norm_vjp(g, ans, x, *, keepdims=False, ord="fro"):
    return unreduce(g, x, (-2, -1), keepdims) * _matrix_norm_d(ans, x, ord, (-2, -1), keepdims)


@defjvp(numpy2("linalg.matrix_norm"), "x")
def matrix_norm_jvp(t, ans, x, *, keepdims=False, ord="fro"):
    return np.sum(t * _matrix_norm_d(ans, x, ord, (-2, -1), keepdims), axis=(-2, -1), keepdims=keepdims)


# np.linalg.cond with p None, 2 or -2: s_max / s_min (s_min / s_max for -2) of each matrix of
# the stack. d s_k / dx = u_k v_k^T, so d cond = u_1 v_1^T / s_min - cond u_n v_n^T / s_min
# (for p = -2 the ends swap). Other p (np.linalg.norm(x, p) * np.linalg.norm(inv(x), p)):
# write that product, which has rules.


def _cond_factors(x, p):
    """(d cond / dx for each matrix of the stack) of the 2-norm condition number."""
    if p not in (None, 2, -2):
        raise NotImplementedError(
            f"srcgrad differentiates np.linalg.cond with p=None, 2 or -2 only, not p={p!r}; write "
            "np.linalg.norm(x, p) * np.linalg.norm(np.linalg.inv(x), p), which has rules"
        )
    u, s, vh = np.linalg.svd(x, full_matrices=False)
    top, bottom = (0, -1) if p != -2 else (-1, 0)
    big, small = s[..., top, None, None], s[..., bottom, None, None]
    outer_top = u[..., :, top, None] * vh[..., None, top, :]
    outer_bottom = u[..., :, bottom, None] * vh[..., None, bottom, :]
    return outer_top / small - (big / small ** 2) * outer_bottom


@defvjp(np.linalg.cond, "x")
def cond_vjp(g, ans, x, p=None):
    return np.asarray(g)[..., None, None] * _cond_factors(x, p)


@defjvp(np.linalg.cond, "x")
def cond_jvp(t, ans, x, p=None):
    return np.sum(t * _cond_factors(x, p), axis=(-2, -1))


supports(np.linalg.cond, "p", (None, 2, -2), "write np.linalg.norm(x, p) * np.linalg.norm(np.linalg.inv(x), p), which has rules")
