"""Shapes of `Tensor`: views (`reshape`, `squeeze`, `permute`, `t`, `mT`, `diagonal`,
`expand`, ...), their in-place forms (`t_`, `unsqueeze_`, ...), `repeat`, `roll`, `flip`,
as a mixin of the Tensor class (`x[index]` and `x[index] = value` are indexing.py's).

Each is one registry rule (`np.reshape`, `np.transpose`, `np.broadcast_to`, `np.tile`,
`operator.getitem`) and one node with PyTorch's name. A dim outside PyTorch's range is its IndexError. Every
Tensor is a `ShapeOps`: `isinstance(v, ShapeOps)` tells a tensor here.
"""

import math
import operator
import warnings

import numpy as np

from . import devices, dtypes, fill_values, ops
from .meta_arrays import MetaArray, reshapes_as_view
from .meta_layouts import unsqueezed
from .dtypes import dim_axis
from .grad_mode import _mode
from .versions import counter_of, rebased
from .graph import reshaped
from .views import E_VIEW_OF_LEAF, may_share_memory, rebase, refresh_after_write, view_of
from .inplace import E11

__all__ = ["ShapeOps"]


def _reshape(x, shape):
    """`np.reshape(x, shape)` for an ndarray: what NumPy's wrapper calls."""
    return x.reshape(shape)


def _swapped(ndim, dim0, dim1):
    """The axes of a tensor of `ndim` dimensions with dims `dim0` and `dim1` swapped
    (PyTorch's dims: negative ones count from the end; IndexError out of range)."""
    axes = list(range(ndim))
    if not (type(dim0) is int and type(dim1) is int and -ndim <= dim0 < ndim and -ndim <= dim1 < ndim):
        dim0, dim1 = dim_axis(dim0, ndim), dim_axis(dim1, ndim)  # its errors; a 0-d tensor's dims
    if ndim:
        axes[dim0], axes[dim1] = axes[dim1], axes[dim0]
    return tuple(axes)


def _view_name(x):
    """The node of a reshape of `x` that is a view: ViewBackward0 where `x` is contiguous
    or meta (PyTorch's meta reshape is a view()), else ReshapeAliasBackward0."""
    return "ViewBackward0" if x.flags.c_contiguous or type(x) is MetaArray else "ReshapeAliasBackward0"


def _transpose(x, axes):
    """`x.transpose(axes)` (a meta array's own method keeps its layout)."""
    return x.transpose(axes)


def _diagonal(x, offset, axis1, axis2):
    """`np.diagonal(x, offset, axis1, axis2)` as a view that can be written through when
    `x` can (NumPy's is read-only; PyTorch's diagonal is a view like any other); a meta
    array's is NumPy's, laid out from its layout (meta_layouts.py)."""
    if type(x) is MetaArray:
        return np.diagonal(x, offset, axis1, axis2)
    a1, a2 = axis1 % x.ndim, axis2 % x.ndim
    index = [slice(None)] * x.ndim
    if offset >= 0:
        index[a2] = slice(offset, None)
    else:
        index[a1] = slice(-offset, None)
    start = x[tuple(index)]
    kept = [i for i in range(x.ndim) if i not in (a1, a2)]
    shape = tuple(x.shape[i] for i in kept) + (min(start.shape[a1], start.shape[a2]),)
    strides = tuple(x.strides[i] for i in kept) + (x.strides[a1] + x.strides[a2],)
    return np.lib.stride_tricks.as_strided(start, shape, strides, writeable=x.flags.writeable)


_WARNED = set()


def _warn_once(message, stacklevel=3):
    """A UserWarning, once per process per message (PyTorch's TORCH_WARN_ONCE), shown
    at the user's line (`stacklevel` counts from this function)."""
    if message not in _WARNED:
        _WARNED.add(message)
        warnings.warn(message, UserWarning, stacklevel=stacklevel)


_T_DEPRECATED = (
    "The use of `x.T` on tensors of dimension other than 2 to reverse their shape is deprecated and it will throw "
    "an error in a future release. Consider `x.mT` to transpose batches of matrices or "
    "`x.permute(*torch.arange(x.ndim - 1, -1, -1))` to reverse the dimensions of a tensor."
)


def _shape_args(shape):
    return tuple(shape[0]) if len(shape) == 1 and isinstance(shape[0], (tuple, list)) else tuple(shape)


def _permutation(ndim, dims):
    """The axes of `permute(*dims)` of a tensor of `ndim` dimensions, non-negative;
    PyTorch's errors for too few or too many, one out of range, or one repeated."""
    if len(dims) != ndim:
        raise RuntimeError(
            "permute(sparse_coo): number of dimensions in the tensor input does not match the length of the "
            f"desired ordering of dimensions i.e. input.dim() = {ndim} is not equal to len(dims) = {len(dims)}"
        )
    axes = tuple(d + ndim if d < 0 else d for d in dims) if ndim else ()
    for d in dims:
        dim_axis(d, ndim)  # IndexError: Dimension out of range
    if len(set(axes)) != len(axes):
        raise RuntimeError("permute(): duplicate dims are not allowed.")
    return axes


def _expanded_shape(tensor, sizes):
    """The shape `tensor.expand(*sizes)` has: sizes align at the right, -1 keeps a dim,
    a dim of size 1 takes any size; PyTorch's RuntimeErrors otherwise."""
    shape = tensor._data.shape
    lead = len(sizes) - len(shape)
    if lead >= 0 and sizes[lead:] == shape and (not lead or min(sizes[:lead]) >= 0):
        return tuple(sizes)  # new leading dims only, of sizes >= 0: what the checks below return
    if lead < 0:
        raise RuntimeError(
            f"expand({tensor.type()}{{{list(shape)}}}, size={list(sizes)}): the number of sizes provided "
            f"({len(sizes)}) must be greater or equal to the number of dimensions in the tensor ({len(shape)})"
        )
    out = list(sizes)
    for i, size in enumerate(sizes):
        if i < lead:
            if size == -1 and shape:
                raise RuntimeError(
                    f"The expanded size of the tensor (-1) isn't allowed in a leading, non-existing dimension {i}"
                )
            continue
        have = shape[i - lead]
        if size == -1:
            out[i] = have
        elif have != 1 and size != have:
            raise RuntimeError(
                f"The expanded size of the tensor ({size}) must match the existing size ({have}) at "
                f"non-singleton dimension {i}.  Target sizes: {list(sizes)}.  Tensor sizes: {list(shape)}"
            )
    if any(n < 0 for n in out):
        raise RuntimeError("numel: integer multiplication overflow")
    return tuple(out)


def _expand_view(x, shape):
    """`np.broadcast_to(x, shape)`, but a writable view when no element repeats (only
    dims of size 1 added): PyTorch's expand then writes through to x."""
    size = math.prod(shape)
    if x.size and size == x.size:
        view = x.reshape(shape)
        if may_share_memory(view, x):
            return view
    if size and x.flags.c_contiguous:  # broadcast_to's array (strides, read-only), made without its nditer
        strides = x.strides
        if 1 in x.shape:
            strides = tuple(0 if n == 1 else stride for n, stride in zip(x.shape, strides))
        view = np.ndarray(shape, x.dtype, x, 0, (0,) * (len(shape) - x.ndim) + strides)
        view.flags.writeable = False
        return view
    return np.broadcast_to(x, shape)


def _aliasing_reshape(x, shape):
    """`x.reshape(shape)` where it is a non-empty view of x's memory (its base is x or
    x's base: NumPy copied nothing), else None (a copy, an empty result, or a shape
    NumPy refuses: `_reshaped` sorts those out, with PyTorch's errors)."""
    try:
        ans = x.reshape(shape)
    except ValueError:
        return None
    if type(x) is MetaArray and not reshapes_as_view(x, ans.shape):  # by its layout, not its zero strides
        return None
    if ans.size:
        owner = ans.base
        if owner is not None and (owner is x or owner is x.base):
            return ans
    return None


class ShapeOps:
    """The shape and indexing methods of `Tensor` (which defines `_data`,
    `_requires_grad` and `_grad_fn`)."""

    __slots__ = ()


    def reshape(self, *shape):
        """The elements in a new shape: a view where one is possible (ViewBackward0 of a
        contiguous tensor, ReshapeAliasBackward0 of another), else a contiguous copy
        reshaped (UnsafeViewBackward0 over CloneBackward0), as PyTorch's reshape."""
        shape = _shape_args(shape)
        ans = _aliasing_reshape(self._data, shape)
        if ans is not None:  # _reshaped's common case first, as in view()
            name = _view_name(self._data)
            return ops.view_op(np.reshape, self, name, (shape,), ans)
        return self._reshaped(shape, True)

    def view(self, *shape):
        """The elements in a new shape, as a view (ViewBackward0); PyTorch's error where
        the strides allow none."""
        if len(shape) == 1 and isinstance(shape[0], (tuple, list)):  # _shape_args, inlined
            shape = tuple(shape[0])
        ans = _aliasing_reshape(self._data, shape)
        if ans is not None:  # _reshaped's common case first
            return ops.view_op(np.reshape, self, "ViewBackward0", (shape,), ans)
        return self._reshaped(shape, False)

    def _reshaped(self, shape, copy_allowed):
        x = self._data
        try:
            ans = x.reshape(shape)
        except ValueError:
            if list(shape).count(-1) > 1:
                raise RuntimeError("only one dimension can be inferred") from None
            raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {x.size}") from None
        owner = ans.base  # a view of x's memory has x or x's base as its base: no need to compare memory
        if type(x) is MetaArray:  # its layout decides, not its zero strides
            aliased = ans.size == 0 or reshapes_as_view(x, ans.shape)
        else:
            aliased = owner is not None and (owner is x or owner is x.base) or ans.size == 0 or may_share_memory(ans, x)
        if not aliased and not copy_allowed:
            raise RuntimeError(
                "view size is not compatible with input tensor's size and stride (at least one dimension spans "
                "across two contiguous subspaces). Use .reshape(...) instead."
            )
        if not aliased:  # PyTorch's copy: a contiguous clone (CloneBackward0), viewed (not a view)
            return ops.exact(np.reshape, self.contiguous(), "UnsafeViewBackward0", (shape,), _reshape)
        name = "ViewBackward0" if not copy_allowed else _view_name(x)
        if ans.size:
            return ops.view_op(np.reshape, self, name, (shape,), ans)
        return ops.exact(np.reshape, self, name, (shape,), lambda _x, _shape: ans)

    def ravel(self):
        """The elements as one dim: `contiguous().view(-1)`, PyTorch's ravel (ViewBackward0,
        over CloneBackward0 for a tensor that is not contiguous)."""
        return self.contiguous().view(-1)

    def flatten(self, start_dim=0, end_dim=-1):
        """The dims from `start_dim` to `end_dim` merged into one. Where that merges
        nothing (one dim; a 1-D tensor) the tensor is returned as it is, as PyTorch's
        flatten makes no view then; a 0-d tensor becomes 1-D."""
        shape = self._data.shape
        n = len(shape)
        if not n:
            return self.reshape(-1)
        start, end = dim_axis(start_dim, n) % n, dim_axis(end_dim, n) % n
        if start > end:
            raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
        if start == end:
            return self
        return self.reshape(shape[:start] + (int(np.prod(shape[start:end + 1])),) + shape[end + 1:])

    def squeeze(self, dim=None):
        """Drops size-1 dims: all of them, or those of `dim` (an int or a tuple; a dim
        outside [-n, n - 1] is PyTorch's IndexError, a dim of another size is kept)."""
        shape = self._data.shape
        if dim is None:
            new = tuple(n for n in shape if n != 1)
            name = "SqueezeBackward0"
        else:
            dims = tuple(dim) if isinstance(dim, (tuple, list)) else (dim,)
            dim_axis(dims, len(shape))
            drop = {d % len(shape) for d in dims} if shape else set()
            new = tuple(n for i, n in enumerate(shape) if n != 1 or i not in drop)
            name = "SqueezeBackward2" if isinstance(dim, (tuple, list)) else "SqueezeBackward1"
        return ops.exact(np.reshape, self, name, (new,), _reshape)

    def unsqueeze(self, dim):
        """A size-1 dim inserted at `dim`, which lies in [-n - 1, n] (PyTorch's IndexError
        outside)."""
        x = self._data
        shape = x.shape
        n = len(shape) + 1
        if not (type(dim) is int and -n <= dim < n):
            dim_axis(dim, n)  # its IndexError
        dim = dim if dim >= 0 else dim + n
        new = shape[:dim] + (1,) + shape[dim:]
        ans = x.reshape(new)  # a size-1 dim inserted: always a view
        if type(ans) is MetaArray:
            unsqueezed(ans, (dim,))
        if ans.size:
            return ops.view_op(np.reshape, self, "UnsqueezeBackward0", (new,), ans)
        return ops.exact(np.reshape, self, "UnsqueezeBackward0", (new,), _reshape)

    def unsqueeze_(self, dim):
        """`unsqueeze(dim)` in place (UnsqueezeBackward1; see `_restrided`)."""
        shape = self._data.shape
        dim_axis(dim, len(shape) + 1)
        dim = dim if dim >= 0 else dim + len(shape) + 1
        return self._restrided(np.reshape, "UnsqueezeBackward1", shape[:dim] + (1,) + shape[dim:], _reshape)

    def squeeze_(self, dim=None):
        """`squeeze(dim)` in place (SqueezeBackward3, 4 with a dim, 5 with a tuple of dims)."""
        new = self.squeeze(dim)._data.shape
        name = "SqueezeBackward3" if dim is None else "SqueezeBackward5" if isinstance(dim, (tuple, list)) else \
            "SqueezeBackward4"
        return self._restrided(np.reshape, name, new, _reshape)

    def t_(self):
        """`t()` in place (TBackward1)."""
        if self._requires_grad and _mode.enabled and self._grad_fn is None:  # before the dims, as PyTorch
            raise RuntimeError(E11)
        ndim = self._data.ndim
        if ndim > 2:
            raise RuntimeError(f"t_() expects a tensor with <= 2 dimensions, but self is {ndim}D")
        return self._restrided(np.transpose, "TBackward1", (1, 0) if ndim == 2 else None, _transpose)

    def transpose_(self, dim0, dim1):
        """`transpose(dim0, dim1)` in place (TransposeBackward1)."""
        return self._restrided(np.transpose, "TransposeBackward1", _swapped(self._data.ndim, dim0, dim1), _transpose)

    swapaxes_ = swapdims_ = transpose_

    def _restrided(self, primitive, name, const, compute):
        """Self takes the shape (and strides) of the view `primitive(self, const)` in place;
        its aliases keep theirs. When in a graph, self becomes the output of a node called
        `name` over its old self (not a CopySlices node, also for a view: its elements do
        not change); E11 on a leaf that requires grad, and PyTorch's error on a view of one. Counts as an in-place write (its
        version; the views of its elements get new nodes)."""
        node = None
        if self._requires_grad and _mode.enabled:
            made = view_of(self)
            if made is not None and made.base._requires_grad and made.base._grad_fn is None:
                raise RuntimeError(E_VIEW_OF_LEAF)
            if self._grad_fn is None:
                raise RuntimeError(E11)
            source = type(self)._make(self._data, True)
            source._grad_fn = self._grad_fn
            node = ops.exact(primitive, source, name, (const,), compute)._grad_fn
        old = self._data
        self._data = compute(old, const)
        reshaped(self, old)
        counter = counter_of(self)
        counter[0] += 1
        refresh_after_write(counter)  # the other views'; self's node is the new one
        if node is not None:
            rebase(self, node)
            rebased(self, node)  # a version error names it (Unsqueeze1, ...)
        return self

    def permute(self, *dims):
        axes = _permutation(self._data.ndim, _shape_args(dims))
        return ops.view_op(np.transpose, self, "PermuteBackward0", (axes,), self._data.transpose(axes))

    def transpose(self, dim0, dim1):
        x = self._data
        axes = _swapped(x.ndim, dim0, dim1)
        return ops.view_op(np.transpose, self, "TransposeBackward0", (axes,), x.transpose(axes))

    def t(self):
        """The transpose of a matrix; a 0-d or 1-D tensor's is a view of it (still a
        TBackward0 node, as in PyTorch)."""
        ndim = self._data.ndim
        if ndim > 2:
            raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {ndim}D")
        axes = (1, 0) if ndim == 2 else None
        return ops.view_op(np.transpose, self, "TBackward0", (axes,), self._data.transpose(axes))

    @property
    def T(self):
        """All dims reversed (PermuteBackward0); PyTorch's deprecation warning (once) for
        other than 2 dims."""
        ndim = self._data.ndim
        if ndim == 0:
            _warn_once("Tensor.T is deprecated on 0-D tensors. This function is the identity in these cases.")
        elif ndim != 2:
            _warn_once(_T_DEPRECATED)
        return ops.view_op(np.transpose, self, "PermuteBackward0", (None,), self._data.transpose(None))

    def _matrix_transpose(self, what, deprecation):
        """The last two dims swapped (TransposeBackward0): `mT`, `mH` and `adjoint()` of
        real tensors; self for a 0-d tensor (with PyTorch's warning, once), PyTorch's
        error for a 1-D one."""
        ndim = self._data.ndim
        if ndim == 0:
            _warn_once(deprecation, 4)
            return self
        if ndim == 1:
            raise RuntimeError(f"tensor.{what} is only supported on matrices or batches of matrices. Got 1-D tensor.")
        return self.transpose(-2, -1)

    @property
    def mT(self):
        return self._matrix_transpose(
            "mT", "Tensor.mT is deprecated on 0-D tensors. This function is the identity in these cases."
        )

    @property
    def mH(self):
        return self._matrix_transpose("mH", "Tensor.mH is deprecated on 0-D tensors. Consider using x.conj().")

    def adjoint(self):
        return self._matrix_transpose("adjoint()", "adjoint() is deprecated on 0-D tensors. Consider using x.conj().")

    @property
    def H(self):
        """The transpose of a matrix (real tensors: its conjugate transpose)."""
        ndim = self._data.ndim
        if ndim == 0:
            _warn_once("Tensor.H is deprecated on 0-D tensors. Consider using x.conj().")
            return self
        if ndim != 2:
            hint = " For batches of matrices, consider using tensor.mH" if ndim > 2 else ""
            raise RuntimeError(f"tensor.H is only supported on matrices (2-D tensors). Got {ndim}-D tensor.{hint}")
        return self.transpose(0, 1)

    def diagonal(self, offset=0, dim1=0, dim2=1):
        """The diagonal `offset` above (below, when negative) the main one of the matrices
        spanning dims `dim1` and `dim2`, as a new last dim: a view (DiagonalBackward0)."""
        ndim = self._data.ndim
        dim_axis((dim1, dim2), ndim)
        if dim1 % (ndim or 1) == dim2 % (ndim or 1):
            raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
        return ops.exact(np.diagonal, self, "DiagonalBackward0", (offset, dim1 % ndim, dim2 % ndim), _diagonal)

    def diag(self, diagonal=0):
        """A 1-D tensor as the diagonal `diagonal` of a square matrix of zeros
        (DiagEmbedBackward0), or a matrix's diagonal `diagonal` as a new 1-D tensor (a copy:
        DiagonalBackward0_copy), as PyTorch names them."""
        ndim = self._data.ndim
        if ndim not in (1, 2):
            raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {ndim}D")
        if ndim == 1:
            return ops.apply(np.diag, self, name="DiagEmbedBackward0", k=diagonal)
        out = ops.apply(np.diag, self, name="DiagonalBackward0_copy", k=diagonal)
        out._data = out._data.copy()  # np.diag reads a matrix's diagonal as a read-only view
        return out

    def expand(self, *sizes):
        """A read-only view of the tensor repeated along its size-1 dims and new leading
        dims (ExpandBackward0, which sums the gradient back)."""
        shape = _expanded_shape(self, _shape_args(sizes))
        ans = _expand_view(self._data, shape)
        if ans.size:  # a view of self's elements
            return ops.view_op(np.broadcast_to, self, "ExpandBackward0", (shape,), ans)
        return ops.exact(np.broadcast_to, self, "ExpandBackward0", (shape,), lambda _x, _shape: ans)

    def expand_as(self, other):
        return self.expand(other._data.shape)

    def repeat(self, *sizes):
        """A copy tiled `sizes[i]` times along dim i, the tensor's dims aligned at the
        right of `sizes` (RepeatBackward0, which adds the copies' gradients)."""
        if not sizes:
            raise TypeError('repeat() missing 1 required positional arguments: "repeats"')
        reps = _shape_args(sizes)
        shape = self._data.shape
        if len(reps) < len(shape):
            raise RuntimeError(
                "Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor"
            )
        padded = (1,) * (len(reps) - len(shape)) + shape
        out = [n * r for n, r in zip(padded, reps)]
        negative = [n for n in out if n < 0]
        if negative:
            raise RuntimeError(f"Trying to create tensor with negative dimension {negative[0]}: {out}")
        return ops.unary(np.tile, self, "RepeatBackward0", False, (reps,))

    def view_as(self, other):
        """`self.view(other.shape)` (ViewBackward0)."""
        return self.view(other._data.shape)

    def select(self, dim, index):
        """The slice at `index` along `dim`, that dim removed: a view (SelectBackward0)."""
        shape = self._data.shape
        if not shape:
            raise IndexError("select() cannot be applied to a 0-dim tensor.")
        axis = dim_axis(dim, len(shape)) % len(shape)
        n = shape[axis]
        if not -n <= index < n:
            raise IndexError(f"select(): index {index} out of range for tensor of size {list(shape)} at dimension {dim}")
        return ops.exact(operator.getitem, self, "SelectBackward0", ((slice(None),) * axis + (index, Ellipsis),))

    def narrow(self, dim, start, length):
        """Entries start .. start + length - 1 along `dim`: a view (SliceBackward0)."""
        shape = self._data.shape
        if not shape:
            raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
        axis = dim_axis(dim, len(shape)) % len(shape)
        n = shape[axis]
        if start < -n or start > n:
            raise IndexError(f"start out of range (expected to be in range of [{-n}, {n}], but got {start})")
        start = start + n if start < 0 else start
        if length < 0:
            raise RuntimeError("narrow(): length must be non-negative.")
        if start + length > n:
            raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({n}).")
        return ops.exact(operator.getitem, self, "SliceBackward0", ((slice(None),) * axis + (slice(start, start + length),),))

    def roll(self, shifts, dims=None):
        """The entries shifted `shifts` places along `dims` (all flattened when None),
        wrapping round (RollBackward0)."""
        if dims is not None:
            many = isinstance(dims, (tuple, list))
            if (len(dims) if many else 1) != (len(shifts) if isinstance(shifts, (tuple, list)) else 1):
                raise RuntimeError(
                    f"shifts and dimensions must align. shifts: {len(shifts) if isinstance(shifts, (tuple, list)) else 1}, "
                    f"dims:{len(dims) if many else 1}"
                )
            dims = tuple(dim_axis(d, self._data.ndim) or 0 for d in dims) if many else (dim_axis(dims, self._data.ndim) or 0)
        shifts = tuple(shifts) if isinstance(shifts, (tuple, list)) else shifts
        return ops.apply(np.roll, self, shifts, name="RollBackward0", saves=False, axis=dims)

    def flip(self, *dims):
        """The entries in reverse order along each of `dims` (FlipBackward0)."""
        if not dims:
            raise TypeError('flip() missing 1 required positional arguments: "dims"')
        dims = _shape_args(dims)
        axes = tuple(dim_axis(d, self._data.ndim) or 0 for d in dims) if self._data.ndim else ()
        return ops.apply(np.flip, self, name="FlipBackward0", saves=False, axis=axes)

    def _new(self, data, dtype, requires_grad, device, op, moved=devices.allocated_on):
        """A new leaf over a copy of `data`, of self's dtype and device unless given (`moved`
        checks a given device for `op`)."""
        from .creation import tensor

        on_meta = type(self._data) is MetaArray if device is None else moved(device, op)
        return tensor(data, dtype=self.dtype if dtype is None else dtype, device="meta" if on_meta else "cpu",
                      requires_grad=requires_grad)

    def new_tensor(self, data, dtype=None, device=None, requires_grad=False):
        """A new leaf holding a copy of `data`, of self's dtype unless `dtype` is given."""
        if isinstance(data, ShapeOps):
            data = data._data
        return self._new(data, dtype, requires_grad, device, "new_tensor", devices.moved_to)

    def new_zeros(self, *size, dtype=None, device=None, requires_grad=False):
        return self._new(np.zeros(_shape_args(size)), dtype, requires_grad, device, "new_zeros")

    def new_ones(self, *size, dtype=None, device=None, requires_grad=False):
        return self._new(np.ones(_shape_args(size)), dtype, requires_grad, device, "new_ones")

    def new_full(self, size, fill_value, dtype=None, device=None, requires_grad=False):
        """A new leaf of `size` holding the number `fill_value`, of self's dtype unless given."""
        number = fill_values.number_argument(fill_value, "new_full", ops.Tensor)
        target = self.dtype if dtype is None else dtype
        value = fill_values.checked_number(number, dtypes.as_dtype(target).numpy)
        return self._new(np.full(tuple(size), value), target, requires_grad, device, "new_full")

    def new_empty(self, *size, dtype=None, device=None, requires_grad=False):
        return self._new(np.zeros(_shape_args(size)), dtype, requires_grad, device, "new_empty")
