"""Linear maps of one array that move or select its elements: reshape, ravel, transpose,
swapaxes, moveaxis, squeeze, expand_dims, broadcast_to, flip, roll, rot90, diag,
diagonal, triu/tril, take, take_along_axis, sort, indexing, and the `x.flatten()` /
`x.item()` methods. Other array methods reach these rules through `methods.py`
(`x.reshape(2, 3)` is `np.reshape(x, (2, 3))`), so `np.transpose` also accepts the
packed forms of `x.transpose(...)`.

Each reverse rule is the transpose of the map: a permutation is undone, a selection is
scattered back with repeated indices adding up (`np.add.at`). Forward rules apply the
primal to the tangent. Maps that copy elements (tile, repeat, pad, copy, full) live in
`copies.py`, joining and splitting several arrays in `structure.py`.

Indexing a list or tuple (`pair[0]`) gives a gradient of the same container kind with
the cotangent at the index and None elsewhere.
"""
import operator

import numpy as np

from ..runtime import COMPLEX_GRADIENT, field_grad, field_tangent, sequence_like, unbroadcast, zeros_like_grad
from .registry import defjvp, defvjp, discrete, numpy2

# --- helpers ------------------------------------------------------------------------


def _zeros(x):
    """A writable zero gradient shaped like x, in x's float dtype."""
    return zeros_like_grad(np.asarray(x))


def _axes(axes):
    """transpose's `axes`, also when packed from a method call: `x.transpose()` gives
    (), `x.transpose((1, 0))` gives ((1, 0),). None means reverse all axes."""
    if axes is None or len(axes) == 0:
        return None
    return tuple(axes[0]) if len(axes) == 1 and np.ndim(axes[0]) == 1 else tuple(axes)


def _inverse_axes(axes, ndim):
    """The permutation undoing `np.transpose(_, axes)`; None stays None (a reversal)."""
    axes = _axes(axes)
    return None if axes is None else tuple(np.argsort([a % ndim for a in axes]))


def _unravel(g, x, order):
    """The transpose of `np.ravel(x, order)`: put a flat gradient back in x's shape."""
    if order in ("C", "F"):
        return np.reshape(g, np.shape(x), order=order)
    return np.reshape(g, -1)[np.argsort(_ravel_positions(x, order))].reshape(np.shape(x))


def _ravel_positions(x, order):
    """For each flat output position of `np.ravel(x, order)`, the C-order input index."""
    positions = np.empty_like(x, dtype=np.intp)
    positions[...] = np.arange(np.size(x)).reshape(np.shape(x))
    return np.ravel(positions, order=order)


def _ravel_tangent(t, x, order):
    if order in ("C", "F"):
        return np.ravel(t, order=order)
    return np.reshape(t, -1)[_ravel_positions(x, order)]


# --- reshape, ravel, flatten --------------------------------------------------------


def _reading_order(x):
    """The order, "C" or "F", in which `np.reshape(x, shape, order="A")` reads x: Fortran
    order for a Fortran-contiguous x. (Its gradient or tangent has a layout of its own.)"""
    return "F" if np.isfortran(np.asarray(x)) else "C"


@defvjp(np.reshape, "x")
def reshape_vjp(g, ans, x, shape, order="C", *, copy=None):
    return np.reshape(g, np.shape(x), order=order if order != "A" else _reading_order(x))


@defjvp(np.reshape, "x")
def reshape_jvp(t, ans, x, shape, order="C", *, copy=None):
    return np.reshape(t, np.shape(ans), order=order if order != "A" else _reading_order(x))


@defvjp(np.ravel, "x")
@defvjp(np.ndarray.flatten, "x", name="Flatten")
def ravel_vjp(g, ans, x, order="C"):
    return _unravel(g, x, order)


@defjvp(np.ravel, "x")
@defjvp(np.ndarray.flatten, "x")
def ravel_jvp(t, ans, x, order="C"):
    return _ravel_tangent(t, x, order)


@defvjp(np.expand_dims, "x")
def expand_dims_vjp(g, ans, x, axis):
    return np.reshape(g, np.shape(x))


@defjvp(np.expand_dims, "x")
def expand_dims_jvp(t, ans, x, axis):
    return np.expand_dims(t, axis)


@defvjp(np.squeeze, "x")
def squeeze_vjp(g, ans, x, axis=None):
    return np.reshape(g, np.shape(x))


@defjvp(np.squeeze, "x")
def squeeze_jvp(t, ans, x, axis=None):
    return np.squeeze(t, axis)


@defvjp(np.broadcast_to, "x")
def broadcast_to_vjp(g, ans, x, shape, subok=False):
    return unbroadcast(g, x)


@defjvp(np.broadcast_to, "x")
def broadcast_to_jvp(t, ans, x, shape, subok=False):
    return np.broadcast_to(t, shape)


# --- axis permutations --------------------------------------------------------------


@defvjp(np.transpose, "x")
def transpose_vjp(g, ans, x, axes=None):
    return np.transpose(g, _inverse_axes(axes, np.ndim(x)))


@defjvp(np.transpose, "x")
def transpose_jvp(t, ans, x, axes=None):
    return np.transpose(t, _axes(axes))


@defvjp(numpy2("matrix_transpose"), "x")
@defvjp(numpy2("linalg.matrix_transpose"), "x")
def matrix_transpose_vjp(g, ans, x):
    return np.matrix_transpose(g)


@defjvp(numpy2("matrix_transpose"), "x")
@defjvp(numpy2("linalg.matrix_transpose"), "x")
def matrix_transpose_jvp(t, ans, x):
    return np.matrix_transpose(t)


@defvjp(np.swapaxes, "x")
def swapaxes_vjp(g, ans, x, axis1, axis2):
    return np.swapaxes(g, axis1, axis2)


@defjvp(np.swapaxes, "x")
def swapaxes_jvp(t, ans, x, axis1, axis2):
    return np.swapaxes(t, axis1, axis2)


@defvjp(np.moveaxis, "x")
def moveaxis_vjp(g, ans, x, source, destination):
    return np.moveaxis(g, destination, source)


@defjvp(np.moveaxis, "x")
def moveaxis_jvp(t, ans, x, source, destination):
    return np.moveaxis(t, source, destination)


def _rollaxis_inverse(g, ndim, axis, start):
    """Undo `np.rollaxis(_, axis, start)` on an array of `ndim` dimensions."""
    axis, start = axis % ndim, start + ndim if start < 0 else start
    destination = start if start <= axis else start - 1
    return np.moveaxis(g, destination, axis)


@defvjp(np.rollaxis, "x")
def rollaxis_vjp(g, ans, x, axis, start=0):
    return _rollaxis_inverse(g, np.ndim(x), axis, start)


@defjvp(np.rollaxis, "x")
def rollaxis_jvp(t, ans, x, axis, start=0):
    return np.rollaxis(t, axis, start)


# --- reversals and rotations --------------------------------------------------------


@defvjp(np.flip, "x")
def flip_vjp(g, ans, x, axis=None):
    return np.flip(g, axis)


@defjvp(np.flip, "x")
def flip_jvp(t, ans, x, axis=None):
    return np.flip(t, axis)


@defvjp(np.fliplr, "x")
def fliplr_vjp(g, ans, x):
    return np.fliplr(g)


@defjvp(np.fliplr, "x")
def fliplr_jvp(t, ans, x):
    return np.fliplr(t)


@defvjp(np.flipud, "x")
def flipud_vjp(g, ans, x):
    return np.flipud(g)


@defjvp(np.flipud, "x")
def flipud_jvp(t, ans, x):
    return np.flipud(t)


@defvjp(np.roll, "x")
def roll_vjp(g, ans, x, shift, axis=None):
    return np.roll(g, np.negative(shift), axis)


@defjvp(np.roll, "x")
def roll_jvp(t, ans, x, shift, axis=None):
    return np.roll(t, shift, axis)


@defvjp(np.rot90, "x")
def rot90_vjp(g, ans, x, k=1, axes=(0, 1)):
    return np.rot90(g, -k, axes)


@defjvp(np.rot90, "x")
def rot90_jvp(t, ans, x, k=1, axes=(0, 1)):
    return np.rot90(t, k, axes)


# --- diagonals and triangles --------------------------------------------------------


def _diagonal_length(shape, offset, axis1, axis2):
    return max(0, min(shape[axis1] - max(-offset, 0), shape[axis2] - max(offset, 0)))


def _diagonal_scatter(g, x, offset, axis1, axis2):
    """Zeros shaped like x with `g` written on the chosen diagonal: the transpose of
    `np.diagonal`. A `g` without the diagonal axis (from a trace) fills it by broadcasting."""
    out = _zeros(x)
    view = np.moveaxis(out, (axis1, axis2), (-2, -1))
    steps = np.arange(_diagonal_length(np.shape(x), offset, axis1, axis2))
    g = g if np.ndim(g) == view.ndim - 1 else np.expand_dims(g, -1)
    view[..., steps + max(-offset, 0), steps + max(offset, 0)] = g
    return out


@defvjp(np.diagonal, "x")
def diagonal_vjp(g, ans, x, offset=0, axis1=0, axis2=1):
    return _diagonal_scatter(g, x, offset, axis1, axis2)


@defjvp(np.diagonal, "x")
def diagonal_jvp(t, ans, x, offset=0, axis1=0, axis2=1):
    return np.diagonal(t, offset, axis1, axis2)


@defvjp(numpy2("linalg.diagonal"), "x")
def linalg_diagonal_vjp(g, ans, x, *, offset=0):
    return _diagonal_scatter(g, x, offset, -2, -1)


@defjvp(numpy2("linalg.diagonal"), "x")
def linalg_diagonal_jvp(t, ans, x, *, offset=0):
    return np.linalg.diagonal(t, offset=offset)


def _diag_vjp(g, v, k):
    """np.diag builds a matrix from a vector and reads a diagonal from a matrix."""
    if np.ndim(v) == 1:
        return unbroadcast(np.diag(g, k), v)
    return _diagonal_scatter(g, v, k, 0, 1)


@defvjp(np.diag, "v")
def diag_vjp(g, ans, v, k=0):
    return _diag_vjp(g, v, k)


@defjvp(np.diag, "v")
def diag_jvp(t, ans, v, k=0):
    return np.diag(t, k)


@defvjp(np.diagflat, "v")
def diagflat_vjp(g, ans, v, k=0):
    return unbroadcast(np.reshape(np.diag(g, k), np.shape(v)), v)


@defjvp(np.diagflat, "v")
def diagflat_jvp(t, ans, v, k=0):
    return np.diagflat(t, k)


@defvjp(np.triu, "x")
def triu_vjp(g, ans, x, k=0):
    return np.triu(g, k)


@defjvp(np.triu, "x")
def triu_jvp(t, ans, x, k=0):
    return np.triu(t, k)


@defvjp(np.tril, "x")
def tril_vjp(g, ans, x, k=0):
    return np.tril(g, k)


@defjvp(np.tril, "x")
def tril_jvp(t, ans, x, k=0):
    return np.tril(t, k)


# --- selections: take, take_along_axis, indexing, sort ------------------------------


def _take_vjp(g, x, indices, axis, mode):
    flat = axis is None
    n = np.size(x) if flat else np.shape(x)[axis]
    indices = np.asarray(indices)
    if mode == "wrap":
        indices = indices % n
    elif mode == "clip":
        indices = np.clip(indices, 0, n - 1)
    out = _zeros(np.ravel(x)) if flat else _zeros(x)
    position = (slice(None),) * (0 if flat else axis % np.ndim(x)) + (indices,)
    np.add.at(out, position, g)
    return unbroadcast(np.reshape(out, np.shape(x)), x)


@defvjp(np.take, "x")
def take_vjp(g, ans, x, indices, axis=None, out=None, mode="raise"):
    return _take_vjp(g, x, indices, axis, mode)


@defjvp(np.take, "x")
def take_jvp(t, ans, x, indices, axis=None, out=None, mode="raise"):
    return np.take(t, indices, axis=axis, mode=mode)


def _along(v, axis, ndim):
    """A 1-D array shaped to broadcast along `axis` of an ndim-dimensional array."""
    shape = [1] * ndim
    shape[axis] = -1
    return np.reshape(v, shape)


def _take_along_axis_vjp(g, x, indices, axis):
    if axis is None:
        out = _zeros(np.ravel(x))
        np.add.at(out, indices, g)
        return np.reshape(out, np.shape(x))
    ndim = np.ndim(x)
    axis = axis % ndim
    # the index of each output entry along every other axis, broadcast against indices
    position = tuple(
        indices if d == axis else _along(np.arange(np.shape(g)[d]), d, ndim) for d in range(ndim)
    )
    out = _zeros(x)
    np.add.at(out, position, g)
    return out


@defvjp(np.take_along_axis, "x")
def take_along_axis_vjp(g, ans, x, indices, axis=-1):
    return _take_along_axis_vjp(g, x, indices, axis)


@defjvp(np.take_along_axis, "x")
def take_along_axis_jvp(t, ans, x, indices, axis=-1):
    return np.take_along_axis(t, indices, axis)


_REAL_SCALARS = (float, np.float64, np.float32)


def _getitem_vjp(g, x, index):
    """Scatter-add `g` into zeros shaped like `x` (repeated indices accumulate).

    For a list, tuple or namedtuple `x` the gradient is one of its kind with None for
    the entries not read; for a dict, a dict holding only the entry read.
    """
    if isinstance(x, dict):
        return {index: g}
    if isinstance(x, (list, tuple)):
        grads = [None] * len(x)
        if isinstance(index, slice):
            for i, item in zip(range(*index.indices(len(x))), g):
                grads[i] = item
        else:
            grads[index] = g
        return sequence_like(x, grads)
    out = _zeros(x)
    if type(g) not in _REAL_SCALARS and out.dtype.kind != "c" and np.iscomplexobj(g):  # add.at would drop its imaginary part
        raise TypeError(COMPLEX_GRADIENT)
    np.add.at(out, index, g)
    return out


@defvjp(operator.getitem, "x", name="Index")
def getitem_vjp(g, ans, x, index):
    return _getitem_vjp(g, x, index)


getitem_vjp.reads_only_the_shape_of = ("x",)
# as PyTorch's IndexSelectBackward0, GatherBackward0, SortBackward0 and TopkBackward0,
# which save the indices and no self
take_vjp.reads_only_the_shape_of = take_along_axis_vjp.reads_only_the_shape_of = ("x",)  # of an array: as PyTorch's IndexBackward0 saves no self


@defjvp(operator.getitem, "x")
def getitem_jvp(t, ans, x, index):
    return t[index]


# an index or a key has no derivative: an integer, a slice or a mask (NumPy refuses float
# indices); generated code reads a loop's position back from its tape (`i = tape.pop()`)
discrete(operator.getitem, "index")


@defvjp(getattr, "x", name="Field")
def getattr_vjp(g, ans, x, name):
    return field_grad(g, x, name)


@defjvp(getattr, "x")
def getattr_jvp(t, ans, x, name):
    return field_tangent(t, x, name)


def _sort_order(x, axis):
    return np.argsort(np.ravel(x) if axis is None else x, axis=-1 if axis is None else axis, kind="stable")


def _sort_vjp(g, x, axis):
    """Send each sorted entry's gradient back to the position it came from."""
    order = _sort_order(x, axis)
    if axis is None:
        out = _zeros(np.ravel(x))
        out[order] = g
        return np.reshape(out, np.shape(x))
    out = _zeros(x)
    np.put_along_axis(out, order, g, axis)
    return out


def _sort_jvp(t, x, axis):
    order = _sort_order(x, axis)
    return np.ravel(t)[order] if axis is None else np.take_along_axis(t, order, axis)


@defvjp(np.sort, "x")
def sort_vjp(g, ans, x, axis=-1, kind=None, order=None, *, stable=None):
    return _sort_vjp(g, x, axis)


@defjvp(np.sort, "x")
def sort_jvp(t, ans, x, axis=-1, kind=None, order=None, *, stable=None):
    return _sort_jvp(t, x, axis)


def _item_position(shape, args):
    """The C-order flat position that `x.item(*args)` reads."""
    if len(args) == 1 and not np.isscalar(args[0]):
        args = tuple(args[0])
    if not args:
        return 0
    return args[0] % int(np.prod(shape)) if len(args) == 1 else np.ravel_multi_index(args, shape)


def _item_vjp(g, x, args):
    out = _zeros(x)
    out.reshape(-1)[_item_position(np.shape(x), args)] = g
    return out


@defvjp(np.ndarray.item, "x")
def item_vjp(g, ans, x, *args):
    return _item_vjp(g, x, args)


@defjvp(np.ndarray.item, "x")
def item_jvp(t, ans, x, *args):
    return np.asarray(t).item(*args)
