"""Scatters as pure functions: `added_at(y, index, v)` is a copy of `y` after
`np.add.at(copy, index, v)`; `subtracted_at`, `maximized_at`, `minimized_at` the same
with `np.subtract.at`, `np.maximum.at`, `np.minimum.at`; `filled_diagonal(y, v)` a copy
after `np.fill_diagonal(copy, v, wrap)`.

idioms.py spells the statement `np.add.at(y, index, v)` on an array the function makes
as the full write `y[...] = added_at(y, index, v)`, which the checks of writes into
arrays then see (another name or a view sharing `y` is refused), and which these rules
differentiate. Each entry of `v` is added once per time `index` names its place, so its
gradient is the sum of `g` over those places: `g[index]`, summed down to v's shape
(broadcasting). The result is linear in `y` and `v`, so the forward rules apply the
same scatter to the tangents; `index` only selects.

`maximized_at` sends each place's gradient to the entries that won there (`y`'s own and
every `v` entry equal to the result), split evenly among ties as np.maximum's rule splits
two; the weights are piecewise constant, so second derivatives through them are zero.
`filled_diagonal` writes `v`, flattened and repeated as NumPy repeats it, into the
diagonal's places in flat order: `y`'s gradient is `g` with those places zeroed, `v`'s
the sum of `g` over the places each entry of `v` was written to (`diagonal_summed`, its
adjoint, `filled_diagonal` into zeros).
"""

import numpy as np

from ..runtime import assigned_grad, unbroadcast, without_part, zeros_like_grad
from .registry import defjvp, defvjp, discrete, nondifferentiable


def index_put(y, index, v):
    """A copy of the array `y` with `v` written at `index` (`copy[index] = v`: PyTorch's
    index_put, out of place; with repeated indices the value written last stays). The
    Tensor shim records `y[index] = v` on a tensor in a graph as this (CopySlices,
    IndexPutBackward0). Its reverse rule is PyTorch's: each value gets the gradient of the
    place it was written to, also a value that a repeated index wrote over (the compiler
    differentiates `y[index] = v` with runtime.assigned_grad instead, which gives that
    value none)."""
    out = y.copy()
    out[index] = v
    return out


@defvjp(index_put, "y", name="IndexPut")
def index_put_vjp_y(g, ans, y, index, v):
    return without_part(g, index)


@defjvp(index_put, "y")
def index_put_jvp_y(t, ans, y, index, v):
    return without_part(t, index)


@defvjp(index_put, "v")
def index_put_vjp_v(g, ans, y, index, v):
    return unbroadcast(g[index], v)


@defjvp(index_put, "v")
def index_put_jvp_v(t, ans, y, index, v):
    return index_put(zeros_like_grad(ans), index, t)


discrete(index_put, "index")


def added_at(y, index, v):
    """A copy of the array `y` with `v` added at `index`, repeated indices adding once
    per repeat (`np.add.at`); `y` itself is left as it was."""
    out = y.copy()
    np.add.at(out, index, v)
    return out


def subtracted_at(y, index, v):
    """A copy of the array `y` with `v` subtracted at `index`, once per repeat
    (`np.subtract.at`); `y` itself is left as it was."""
    out = y.copy()
    np.subtract.at(out, index, v)
    return out


@defvjp(added_at, "y", name="AddAt")
@defvjp(subtracted_at, "y", name="SubtractAt")
def scatter_vjp_y(g, ans, y, index, v):
    return g


@defjvp(added_at, "y")
@defjvp(subtracted_at, "y")
def scatter_jvp_y(t, ans, y, index, v):
    return t


@defvjp(added_at, "v")
def added_at_vjp_v(g, ans, y, index, v):
    return unbroadcast(g[index], v)


@defjvp(added_at, "v")
def added_at_jvp_v(t, ans, y, index, v):
    return added_at(zeros_like_grad(ans), index, t)


@defvjp(subtracted_at, "v")
def subtracted_at_vjp_v(g, ans, y, index, v):
    return unbroadcast(-g[index], v)


@defjvp(subtracted_at, "v")
def subtracted_at_jvp_v(t, ans, y, index, v):
    return subtracted_at(zeros_like_grad(ans), index, t)


discrete(added_at, "index")
discrete(subtracted_at, "index")


def maximized_at(y, index, v):
    """A copy of `y` after `np.maximum.at(copy, index, v)`; `y` is left as it was."""
    out = y.copy()
    np.maximum.at(out, index, v)
    return out


def minimized_at(y, index, v):
    """A copy of `y` after `np.minimum.at(copy, index, v)`; `y` is left as it was."""
    out = y.copy()
    np.minimum.at(out, index, v)
    return out


def _winners(ans, y, index, v):
    """(weight of each entry of `y`, weight of each entry of `v` broadcast to `y[index]`'s
    shape): 1/n for the n entries at a place equal to its result `ans` there, else 0."""
    kind = np.result_type(ans, np.float32)
    y_won = np.asarray(y == ans, dtype=kind)
    v_won = np.asarray(np.broadcast_to(v, np.shape(ans[index])) == ans[index], dtype=kind)
    count = y_won.copy()
    np.add.at(count, index, v_won)
    count = np.maximum(count, 1.0)  # a NaN result has no winner
    return y_won / count, v_won / count[index]


def winners_y(ans, y, index, v):
    """The weight of each entry of `y` in the result of `maximized_at`/`minimized_at`."""
    return _winners(ans, y, index, v)[0]


def winners_v(ans, y, index, v):
    """The weight of each entry of `v` (broadcast to `y[index]`'s shape) in the result."""
    return _winners(ans, y, index, v)[1]


@defvjp(maximized_at, "y", name="MaximumAt")
@defvjp(minimized_at, "y", name="MinimumAt")
def extremum_at_vjp_y(g, ans, y, index, v):
    return g * winners_y(ans, y, index, v)


@defjvp(maximized_at, "y")
@defjvp(minimized_at, "y")
def extremum_at_jvp_y(t, ans, y, index, v):
    return t * winners_y(ans, y, index, v)


@defvjp(maximized_at, "v")
@defvjp(minimized_at, "v")
def extremum_at_vjp_v(g, ans, y, index, v):
    return unbroadcast(g[index] * winners_v(ans, y, index, v), v)


@defjvp(maximized_at, "v")
@defjvp(minimized_at, "v")
def extremum_at_jvp_v(t, ans, y, index, v):
    return added_at(zeros_like_grad(ans), index, t * winners_v(ans, y, index, v))


def _diagonal_places(shape, wrap):
    """The flat indices `np.fill_diagonal` writes, in the order it writes them."""
    marks = np.zeros(shape, dtype=bool)
    np.fill_diagonal(marks, True, wrap=wrap)
    return np.flatnonzero(marks)


def filled_diagonal(y, v, wrap=False):
    """A copy of `y` after `np.fill_diagonal(copy, v, wrap)`: the k-th place of the
    diagonal gets `v.flat[k % v.size]`; `y` is left as it was."""
    out = np.array(y, copy=True)
    np.fill_diagonal(out, v, wrap=wrap)
    return out


def diagonal_summed(x, v, wrap=False):
    """The adjoint of `filled_diagonal(zeros, v, wrap)` in `v`: entry j of `v` gets the
    sum of `x` over the diagonal places that `v.flat[j]` was written to; shaped like `v`."""
    places = _diagonal_places(np.shape(x), wrap)
    size = max(np.size(v), 1)
    out = np.zeros(size, dtype=np.result_type(x, np.float32))
    np.add.at(out, np.arange(len(places)) % size, np.ravel(x)[places])
    return unbroadcast(out.reshape(np.shape(v)), v)


@defvjp(filled_diagonal, "y", name="FillDiagonal")
def filled_diagonal_vjp_y(g, ans, y, v, wrap=False):
    return filled_diagonal(g, 0.0, wrap)


@defjvp(filled_diagonal, "y")
def filled_diagonal_jvp_y(t, ans, y, v, wrap=False):
    return filled_diagonal(t, 0.0, wrap)


@defvjp(filled_diagonal, "v")
def filled_diagonal_vjp_v(g, ans, y, v, wrap=False):
    return diagonal_summed(g, v, wrap)


@defjvp(filled_diagonal, "v")
def filled_diagonal_jvp_v(t, ans, y, v, wrap=False):
    return filled_diagonal(zeros_like_grad(ans), t, wrap)


@defvjp(diagonal_summed, "x", name="DiagonalSummed")
def diagonal_summed_vjp_x(g, ans, x, v, wrap=False):
    return filled_diagonal(zeros_like_grad(x), g, wrap)


@defjvp(diagonal_summed, "x")
def diagonal_summed_jvp_x(t, ans, x, v, wrap=False):
    return diagonal_summed(t, v, wrap)


nondifferentiable(winners_y, winners_v)
discrete(maximized_at, "index")
discrete(minimized_at, "index")
discrete(filled_diagonal, "wrap")
discrete(diagonal_summed, "v", "wrap")


def along_axis(y, indices, axis):
    """The index through which `np.put_along_axis(y, indices, values, axis)` writes: with
    `axis` an int, `indices` at `axis` and an `arange` broadcast along each other axis
    (NumPy's own index); with `axis` None, the flat `indices` unravelled into `y`'s shape.
    `y[along_axis(y, indices, axis)] = values` is then the same write, which the compiler
    differentiates as any write through integer arrays (a repeated place keeps the value
    written last, and only that value gets its gradient)."""
    shape = np.shape(y)
    indices = np.asarray(indices)
    if indices.dtype.kind not in "iu":
        raise IndexError("`indices` must be an integer array")
    if axis is None:
        return np.unravel_index(np.where(indices < 0, indices + np.size(y), indices), shape)
    if indices.ndim != len(shape):
        raise ValueError("`indices` and `arr` must have the same number of dimensions")
    axis = axis + len(shape) if axis < 0 else axis
    return tuple(indices if dim == axis else np.arange(n).reshape([n if d == dim else 1 for d in range(len(shape))])
                 for dim, n in enumerate(shape))


def written_transposed(y, index, v):
    """A copy of the array `y` after `copy.T[index] = v` (`y` left as it was): the write
    `M.T[i] = v` into an array the function makes is spelled `M[...] =
    written_transposed(M, i, v)`. Its gradient in `y` is `g` with the part written zero,
    in `v` the gradient of the written part (the value written last where an integer
    array repeats a place, none into an integer array), both read through `.T`."""
    y.T  # an AttributeError where `y` is no array, as the write raises
    out = np.array(y, copy=True)
    out.T[index] = v
    return out


@defvjp(written_transposed, "y", name="WrittenTransposed")
def written_transposed_vjp_y(g, ans, y, index, v):
    return without_part(g.T, index).T


@defjvp(written_transposed, "y")
def written_transposed_jvp_y(t, ans, y, index, v):
    return written_transposed(t, index, 0.0)


@defvjp(written_transposed, "v")
def written_transposed_vjp_v(g, ans, y, index, v):
    return assigned_grad(g.T, index, v, y.T)


@defjvp(written_transposed, "v")
def written_transposed_jvp_v(t, ans, y, index, v):
    return written_transposed(zeros_like_grad(ans), index, t)


discrete(written_transposed, "index")


def put_index(y, ind, v, mode="raise"):
    """The index through which `np.put(y, ind, v, mode)` writes: the flat indices `ind`
    (wrapped or clipped by `mode`, else checked as NumPy checks them) unravelled into
    `y`'s shape, in order; none where `v` is empty (NumPy then writes nothing). With
    `y[put_index(y, ind, v, mode)] = np.resize(np.ravel(v), put_count(ind, v))` the
    compiler differentiates the write as any write through integer arrays."""
    size = np.size(y)
    flat = np.asarray(ind).ravel()
    if np.size(v) == 0:
        flat = flat[:0]
    if flat.size and flat.dtype.kind not in "iu":
        raise TypeError(f"Cannot cast array data from {flat.dtype!r} to dtype('int64') according to the rule 'safe'")
    flat = flat.astype(np.intp)
    if mode == "wrap":
        flat = flat % size
    elif mode == "clip":
        flat = np.clip(flat, 0, size - 1)
    elif mode == "raise":
        bad = (flat < -size) | (flat >= size)
        if bad.any():
            raise IndexError(f"index {flat[bad][0]} is out of bounds for axis 0 with size {size}")
        flat = np.where(flat < 0, flat + size, flat)
    else:
        raise ValueError(f"clipmode must be one of 'clip', 'raise', or 'wrap' (got {mode!r})")
    return np.unravel_index(flat, np.shape(y))


def put_count(ind, v):
    """How many values `np.put(y, ind, v)` writes: one per index, none where `v` is empty."""
    return 0 if np.size(v) == 0 else int(np.size(ind))


nondifferentiable(along_axis, put_index, put_count)
