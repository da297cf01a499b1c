"""PyTorch's other names and small forms of existing Tensor methods: swapaxes and
swapdims (transpose), absolute (abs), negative (neg), msort (sort along dim 0),
type_as, reshape_as, sum_to_size, unfold, nonzero and argwhere, apply_ and map_.
Each calls the existing method, so the nodes are PyTorch's (TransposeBackward0,
AbsBackward0, ...)."""

import numpy as np

from . import ops

__all__ = ["MethodAliases", "nonzero", "argwhere"]


def nonzero(input, *, as_tuple=False):
    """The positions of the nonzero elements, int64: an (n, ndim) tensor, or with
    as_tuple one 1-D tensor per dim (a 0-d input counts as 1-D)."""
    data = input._data
    if as_tuple:
        return tuple(ops.Tensor._make(i.astype(np.int64)) for i in np.nonzero(np.atleast_1d(data)))
    return ops.Tensor._make(np.argwhere(data).astype(np.int64))


def argwhere(input):
    """`nonzero(input)`."""
    return nonzero(input)


class MethodAliases:
    """The Tensor methods of this module."""

    __slots__ = ()
    nonzero, argwhere = nonzero, argwhere

    def swapaxes(self, axis0, axis1):
        return self.transpose(axis0, axis1)

    swapdims = swapaxes  # swapaxes_ and swapdims_ are shaping.py's (transpose_)

    def absolute(self):
        return self.abs()

    def absolute_(self):
        return self.abs_()

    def negative(self):
        return self.neg()

    def negative_(self):
        return self.neg_()

    def msort(self):
        """The values sorted along dim 0 (SortBackward0)."""
        return self.sort(0).values

    def type_as(self, other):
        """Self in other's dtype (self itself when it has it already)."""
        return self.to(other.dtype)

    def reshape_as(self, other):
        return self.reshape(other.shape)

    def sum_to_size(self, *size):
        """Self summed over the dims that broadcasting `size` to self's shape would
        expand (SumBackward1); an error where `size` does not broadcast to it."""
        if len(size) == 1 and isinstance(size[0], (tuple, list)):
            size = tuple(size[0])
        shape = self._data.shape
        try:
            if np.broadcast_shapes(tuple(size), shape) != shape or len(size) > len(shape):
                raise ValueError
        except ValueError:
            raise RuntimeError(f"size {{{list(size)}}} is not expandable to size {{{list(shape)}}}.") from None
        lead = len(shape) - len(size)
        dims = tuple(range(lead)) + tuple(lead + i for i, s in enumerate(size) if s == 1 and shape[lead + i] != 1)
        if not dims:
            return self
        out = self.sum(dims, keepdim=True)
        return out.reshape(tuple(size)) if lead else out

    def unfold(self, dimension, size, step):
        """The windows of `size` elements, `step` apart, along `dimension`, as a new last
        dim (UnfoldBackward0). A copy, where PyTorch's is a view of self."""
        from .dtypes import dim_axis

        n = max(self._data.ndim, 1)
        axis = dim_axis(dimension, n) % n
        length = self._data.shape[axis] if self._data.ndim else 1
        if size > length:
            raise RuntimeError(f"maximum size for tensor at dimension {axis} is {length} but size is {size}")
        if step <= 0:
            raise RuntimeError(f"step is {step} but must be > 0")
        count = (length - size) // step + 1

        from .joins import cat

        def windows(x):
            if not x._data.ndim:
                return x.reshape(1)
            parts = [x.narrow(axis, k * step, size).unsqueeze(axis) for k in range(count)]
            joined = cat(parts, axis)
            return joined.movedim(axis + 1, -1)

        return ops.composite("UnfoldBackward0", windows, self)

    def apply_(self, callable):
        """Each element replaced by `callable(element)`, in place; refused on a tensor
        that requires grad, as in PyTorch."""
        if self._requires_grad:
            raise RuntimeError("Can't call apply_() on Variable that requires grad. Use var.detach().apply_() instead.")
        flat = self._data.reshape(-1)
        values = [callable(v.item()) for v in flat]
        return self._write_values(np.asarray(values).reshape(self._data.shape))

    def map_(self, tensor, callable):
        """Each element replaced by `callable(element, other's element)` (other broadcast
        to self), in place; refused on a tensor that requires grad."""
        if self._requires_grad or tensor._requires_grad:
            raise RuntimeError("Can't call map_() on Variable that requires grad. Use var.detach().map_() instead.")
        other = np.broadcast_to(tensor._data, self._data.shape).reshape(-1)
        values = [callable(a.item(), b.item()) for a, b in zip(self._data.reshape(-1), other)]
        return self._write_values(np.asarray(values).reshape(self._data.shape))

    def _write_values(self, values):
        from .grad_mode import no_grad

        with no_grad():
            self.copy_(ops.Tensor._make(np.asarray(values, dtype=self._data.dtype)))
        return self
