"""What PyTorch tells about a tensor's memory: stride(), storage_offset(), data_ptr(),
nbytes and itemsize, and the in-place `resize_` of a tensor that owns its memory.

A tensor's array is a NumPy array, a view of another where the tensor is a view, so
these read NumPy's layout: strides in elements, the offset of the first element from
the start of the memory the views share (the array at the root of `.base`), and that
address plus the offset in bytes as data_ptr (equal for views of the same element, as
in PyTorch).
"""

import numpy as np

from .grad_mode import _mode
from .meta_arrays import MetaArray
from .meta_layouts import layout
from .versions import bump

__all__ = ["MemoryFacts"]


def _root(array):
    """The array whose memory `array` views (itself if it owns its memory)."""
    while isinstance(array.base, np.ndarray):
        array = array.base
    return array


def _address(array):
    return array.__array_interface__["data"][0]


class MemoryFacts:
    """Tensor methods and properties about memory."""

    __slots__ = ()

    def stride(self, dim=None):
        """The step in elements between neighbours along each dim (one dim's, given)."""
        data = self._data
        strides = layout(data)[0] if type(data) is MetaArray else data.strides
        steps = tuple(s // data.itemsize for s in strides)
        if dim is None:
            return steps
        from .dtypes import one_dim

        return steps[one_dim(dim, data.ndim, "stride")]

    def storage_offset(self):
        """The position, in elements, of the first element in the shared memory."""
        data = self._data
        if type(data) is MetaArray:
            return layout(data)[1] // data.itemsize
        return (_address(data) - _address(_root(data))) // data.itemsize

    def data_ptr(self):
        """The address of the first element (0 for a tensor with no elements)."""
        return _address(self._data) if self._data.size else 0

    @property
    def nbytes(self):
        """numel() * element_size()."""
        return self._data.size * self._data.itemsize

    @property
    def itemsize(self):
        """The size of one element in bytes."""
        return self._data.itemsize

    def resize_(self, *sizes):
        """Self with shape `sizes`, in place, keeping the first elements in row-major
        order (new ones are zero, where PyTorch leaves them uninitialized; a new size
        gives self new memory, which views taken before do not see). Refused on a
        tensor that requires grad, as in PyTorch, and on a view of another tensor."""
        if len(sizes) == 1 and isinstance(sizes[0], (tuple, list)):
            sizes = tuple(sizes[0])
        sizes = tuple(int(s) for s in sizes)
        if any(s < 0 for s in sizes):
            raise RuntimeError(f"Trying to create tensor with negative dimension {min(sizes)}: {list(sizes)}")
        if self._requires_grad and _mode.enabled:
            raise RuntimeError("cannot resize variables that require grad")
        if getattr(self, "_view", None) is not None:
            raise NotImplementedError("resize_ of a view (a tensor sharing another's memory) is not supported by the shim")
        count = int(np.prod(sizes))
        flat = self._data.reshape(-1)
        if count == flat.size:
            self._data = flat.reshape(sizes)
        else:
            out = np.zeros(count, self._data.dtype)
            keep = min(count, flat.size)
            out[:keep] = flat[:keep]
            self._data = out.reshape(sizes)
        bump(self)
        return self
