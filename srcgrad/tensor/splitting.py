"""Splitting a tensor into views: tensor_split (by a number of sections or at indices),
hsplit, vsplit and dsplit.

Each piece is `narrow` of the input (SliceBackward0, a view), as PyTorch's. Indices read
as Python slice bounds (negative ones count from the end; a later index before an
earlier one gives an empty piece). Checks and messages are PyTorch's.
"""

import numbers

from . import ops
from .dtypes import dim_axis

__all__ = ["tensor_split", "hsplit", "vsplit", "dsplit", "SplittingOps"]


def _pieces(input, axis, bounds):
    """The views input[bounds[i]:bounds[i + 1]] along `axis`, bounds as slice bounds."""
    size = input._data.shape[axis]
    out = []
    for start, stop in zip(bounds[:-1], bounds[1:]):
        start, stop, _ = slice(start, stop).indices(size)
        out.append(input.narrow(axis, start, max(stop - start, 0)))
    return tuple(out)


def _bad_sections(sections):
    return TypeError(
        f"tensor_split() received an invalid combination of arguments - got (Tensor, {type(sections).__name__}), but "
        "expected one of:\n * (Tensor input, tuple of ints indices, int dim = 0)\n"
        " * (Tensor input, Tensor tensor_indices_or_sections, int dim = 0)\n * (Tensor input, int sections, int dim = 0)\n"
    )


def tensor_split(input, indices_or_sections, dim=0):
    """Views of `input` along `dim`: `n` sections (the first `size % n` one longer), or the
    pieces between the given indices; a tensor gives a count (0-d) or indices (1-d)."""
    n = input._data.ndim
    if n == 0:
        raise RuntimeError("tensor_split expected at least a 1-dimensional tensor, but got a tensor with 0 dims")
    axis = dim_axis(dim, n) % n
    if isinstance(indices_or_sections, ops.Tensor):
        data = indices_or_sections._data
        if data.dtype.kind not in "iu":
            raise RuntimeError(
                "tensor_split expected tensor_indices_or_sections to have dtype of long, but got "
                f"{indices_or_sections.dtype.kind_name}"
            )
        if data.ndim > 1:
            raise RuntimeError(
                "tensor_split expected tensor_indices_or_sections to be a zero-dimensional or one-dimensional tensor, "
                f"but got a tensor with {data.ndim} dims"
            )
        indices_or_sections = int(data) if data.ndim == 0 else [int(i) for i in data]
    size = input._data.shape[axis]
    if isinstance(indices_or_sections, numbers.Integral) and not isinstance(indices_or_sections, bool):
        sections = int(indices_or_sections)
        if sections <= 0:
            raise RuntimeError(f"number of sections must be larger than 0, got {sections}")
        base, extra = divmod(size, sections)
        bounds = [0]
        for i in range(sections):
            bounds.append(bounds[-1] + base + (i < extra))
        return _pieces(input, axis, bounds)
    if not isinstance(indices_or_sections, (list, tuple)):
        raise _bad_sections(indices_or_sections)
    return _pieces(input, axis, [0, *(int(i) for i in indices_or_sections), size])


def _directional_split(name, dim, least):
    def split(input, indices_or_sections):
        n = input._data.ndim
        if n < least:
            raise RuntimeError(
                f"torch.{name} requires a tensor with at least {least} dimension, but got a tensor with {n} dimensions!"
            )
        axis = dim if n > 1 or name != "hsplit" else 0
        if isinstance(indices_or_sections, numbers.Integral):
            size = input._data.shape[axis]
            if indices_or_sections != 0 and size % indices_or_sections:
                raise RuntimeError(
                    f"torch.{name} attempted to split along dimension {axis}, but the size of the dimension {size} "
                    f"is not divisible by the split_size {indices_or_sections}!"
                )
        return tensor_split(input, indices_or_sections, axis)

    split.__name__ = name
    split.__doc__ = f"`tensor_split` along dim {dim}{' (0 for a 1-d tensor)' if name == 'hsplit' else ''}; a number of sections must divide that dim."
    return split


hsplit = _directional_split("hsplit", 1, 1)
vsplit = _directional_split("vsplit", 0, 2)
dsplit = _directional_split("dsplit", 2, 3)


class SplittingOps:
    """The Tensor methods of this module."""

    __slots__ = ()
    tensor_split, hsplit, vsplit, dsplit = tensor_split, hsplit, vsplit, dsplit
