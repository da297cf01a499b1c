"""Rearrangements of a tensor's elements: rot90, fliplr, flipud, tile, movedim (moveaxis),
the function form of permute, unflatten and repeat_interleave.

Each checks its arguments with PyTorch's error texts, then runs one registry primitive
(`np.rot90`, `np.repeat`) or an existing view or copy (permute, view, repeat,
index_select), recorded under PyTorch's node name. None holds calculus.
"""

import numpy as np

from . import ops
from .dtypes import dim_axis

__all__ = ["rot90", "fliplr", "flipud", "tile", "movedim", "moveaxis", "permute", "unflatten", "repeat_interleave", "RearrangementOps"]


def _dims(dims):
    return tuple(dims) if isinstance(dims, (tuple, list)) else (dims,)


def rot90(input, k=1, dims=(0, 1)):
    """The tensor rotated by 90 degrees k times in the plane of `dims`, from the first
    towards the second (Rot90Backward0); a copy."""
    dims = _dims(dims)
    n = input._data.ndim
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    if n < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {n}")
    a, b = dims
    if a == b or dim_axis(a, n) % n == dim_axis(b, n) % n:  # IndexError for a dim out of range
        raise RuntimeError(f"expected rotation dims to be different, but got dim0 = {a} and dim1 = {b}")
    return ops.apply(np.rot90, input, k % 4, (a % n, b % n), name="Rot90Backward0")


def fliplr(input):
    """The entries in reverse order along dim 1 (FlipBackward0); at least 2-d."""
    if input._data.ndim < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return input.flip(1)


def flipud(input):
    """The entries in reverse order along dim 0 (FlipBackward0); at least 1-d."""
    if input._data.ndim < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return input.flip(0)


def tile(input, dims):
    """The tensor repeated `dims[i]` times along dim i, `dims` padded with ones at the
    left to the tensor's dims (RepeatBackward0)."""
    if not isinstance(dims, (tuple, list)):
        raise TypeError(f"tile(): argument 'dims' (position 2) must be tuple of ints, not {type(dims).__name__}")
    dims = tuple(dims)
    dims = (1,) * (input._data.ndim - len(dims)) + dims
    return input.repeat(dims)


def movedim(input, source, destination):
    """The dims `source` moved to the places `destination`, the others kept in order
    (PermuteBackward0, a view)."""
    source, destination = _dims(source), _dims(destination)
    n = input._data.ndim
    if len(source) != len(destination):
        raise RuntimeError(
            f"movedim: Invalid source or destination dims: source ({list(source)} dims) should contain the same "
            f"number of dims as destination ({list(destination)} dims)"
        )
    src = [dim_axis(d, n) % max(n, 1) for d in source]
    dst = [dim_axis(d, n) % max(n, 1) for d in destination]
    for label, given, normal in (("source", source, src), ("destination", destination, dst)):
        if len(set(normal)) != len(normal):
            raise RuntimeError(f"movedim: repeated dim in `{label}` ({list(given)})")
    order = [d for d in range(n) if d not in src]
    permutation = [0] * n
    rest = iter(order)
    placed = dict(zip(dst, src))
    for position in range(n):
        permutation[position] = placed[position] if position in placed else next(rest)
    return input.permute(permutation) if n else input.permute(())


moveaxis = movedim


def permute(input, dims):
    """`input.permute(dims)` (PermuteBackward0, a view)."""
    return input.permute(tuple(dims))


def unflatten(input, dim, sizes):
    """Dim `dim` split into the dims `sizes` (one may be -1) (ViewBackward0, a view)."""
    shape = input._data.shape
    n = len(shape)
    axis = dim_axis(dim, n) % max(n, 1)
    sizes = tuple(sizes)
    if not sizes:
        raise RuntimeError("unflatten: sizes must be non-empty")
    known = int(np.prod([s for s in sizes if s != -1]))
    if sizes.count(-1) > 1:
        raise RuntimeError("only one dimension can be inferred")
    if (sizes.count(-1) and (known == 0 or shape[axis] % known)) or (not sizes.count(-1) and known != shape[axis]):
        raise RuntimeError(
            f"unflatten: Provided sizes {list(sizes)} don't multiply up to the size of dim {dim} ({shape[axis]}) "
            "in the input tensor"
        )
    return input.view(shape[:axis] + sizes + shape[axis + 1:])


def repeat_interleave(input, repeats=None, dim=None, *, output_size=None):
    """Each element (each slice along `dim`; of the flattened tensor without dim)
    repeated `repeats` times, a number or a tensor of one count per element
    (ViewBackward0 for a number, IndexSelectBackward0 for a tensor). With only a tensor
    of counts, the indices 0, 1, ... each repeated its count (int64)."""
    if repeats is None:  # repeat_interleave(counts)
        counts = input._data
        if counts.ndim > 1 or counts.dtype.kind not in "iu":
            raise RuntimeError("repeats must be 0-dim or 1-dim tensor")
        return ops.Tensor._make(np.repeat(np.arange(counts.size, dtype=np.int64), counts.reshape(-1)))
    if dim is None:
        input, dim = input.reshape(-1), 0
    n = input._data.ndim
    axis = dim_axis(dim, n) % max(n, 1) if n else 0
    if not n:
        input = input.reshape(1)
    if isinstance(repeats, ops.Tensor):
        counts = repeats._data.reshape(-1)
        if repeats._data.ndim > 1:
            raise RuntimeError("repeats must be 0-dim or 1-dim tensor")
        if counts.size != 1 and counts.size != input._data.shape[axis]:
            raise RuntimeError(
                "repeats must have the same size as input along dim, but got repeats.size(0) = "
                f"{counts.size} and input.size({axis}) = {input._data.shape[axis]}"
            )
        if np.any(counts < 0):
            raise RuntimeError("repeats can not be negative")
        if counts.size != 1:
            index = np.repeat(np.arange(input._data.shape[axis], dtype=np.int64), counts)
            return input.index_select(axis, ops.Tensor._make(index))
        repeats = int(counts[0])
    if repeats < 0:
        raise RuntimeError("Repeats must be non-negative")
    return ops.apply(np.repeat, input, int(repeats), name="ViewBackward0", axis=axis)


class RearrangementOps:
    """The Tensor methods of this module (permute is ShapeOps')."""

    __slots__ = ()
    rot90, tile, movedim, moveaxis, unflatten = rot90, tile, movedim, moveaxis, unflatten
    fliplr, flipud = fliplr, flipud
    repeat_interleave = repeat_interleave
