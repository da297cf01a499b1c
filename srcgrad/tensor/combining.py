"""Combining tensors: hstack, vstack (row_stack), dstack, column_stack, the atleast_Nd
promotions, broadcast_tensors, broadcast_to, broadcast_shapes, meshgrid, cartesian_prod
and combinations.

Each is PyTorch's composition of existing Tensor ops (views, expand, cat, stack,
indexing), so its node is the last of those ops, as PyTorch's is (CatBackward0 for the
stacks, ExpandBackward0 for meshgrid, StackBackward0 for cartesian_prod and
combinations). None holds calculus. Checks and messages are PyTorch's.
"""

import itertools
import numbers
import warnings

import numpy as np

from . import ops
from .dtypes import Size
from .joins import _tensors, cat, stack

__all__ = [
    "atleast_1d", "atleast_2d", "atleast_3d", "hstack", "vstack", "row_stack", "dstack", "column_stack",
    "broadcast_tensors", "broadcast_to", "broadcast_shapes", "meshgrid", "cartesian_prod", "combinations",
    "CombiningOps",
]


def _promoted(name, tensors, promote):
    """`promote` of one tensor, or a tuple of each of several (given as arguments or as
    one list or tuple), as PyTorch's atleast_Nd."""
    if len(tensors) == 1 and isinstance(tensors[0], ops.Tensor):
        return promote(tensors[0])
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tensors[0]
    for t in tensors:
        if not isinstance(t, ops.Tensor):
            raise TypeError(
                f"{name}() received an invalid combination of arguments - got ({type(t).__name__}), but expected one of:\n"
                " * (Tensor input)\n * (tuple of Tensors tensors)\n"
            )
    return tuple(promote(t) for t in tensors)


def _at_least_1d(t):
    return t.reshape(1) if t._data.ndim == 0 else t


def _at_least_2d(t):
    n = t._data.ndim
    return t.reshape(1, 1) if n == 0 else t.unsqueeze(0) if n == 1 else t


def _at_least_3d(t):
    n = t._data.ndim
    if n == 0:
        return t.reshape(1, 1, 1)
    if n == 1:
        return t.unsqueeze(0).unsqueeze(-1)
    return t.unsqueeze(-1) if n == 2 else t


def atleast_1d(*tensors):
    """Each tensor with at least one dim: a 0-d one viewed as shape (1,) (ViewBackward0),
    the others themselves."""
    return _promoted("atleast_1d", tensors, _at_least_1d)


def atleast_2d(*tensors):
    """Each tensor with at least two dims: 0-d viewed as (1, 1), 1-d as (1, n)."""
    return _promoted("atleast_2d", tensors, _at_least_2d)


def atleast_3d(*tensors):
    """Each tensor with at least three dims: 0-d as (1, 1, 1), (n,) as (1, n, 1), (m, n)
    as (m, n, 1)."""
    return _promoted("atleast_3d", tensors, _at_least_3d)


def _stack_input(name, tensors):
    tensors = _tensors(name, tensors)
    if not tensors:
        raise RuntimeError(f"{name} expects a non-empty TensorList")
    return tensors


def hstack(tensors):
    """The tensors (0-d read as 1-d) joined along dim 0 if the first is 1-d, else dim 1
    (CatBackward0)."""
    tensors = [_at_least_1d(t) for t in _stack_input("hstack", tensors)]
    return cat(tensors, 0 if tensors[0]._data.ndim == 1 else 1)


def vstack(tensors):
    """The tensors, each at least 2-d (a vector becomes a row), joined along dim 0."""
    return cat([_at_least_2d(t) for t in _stack_input("vstack", tensors)], 0)


def row_stack(tensors):
    """`vstack` under its other name."""
    return cat([_at_least_2d(t) for t in _stack_input("row_stack", tensors)], 0)


def dstack(tensors):
    """The tensors, each at least 3-d, joined along dim 2."""
    return cat([_at_least_3d(t) for t in _stack_input("dstack", tensors)], 2)


def column_stack(tensors):
    """The tensors joined along dim 1, each 0-d or 1-d one made a column first."""
    tensors = _stack_input("column_stack", tensors)
    return cat([t.reshape(t._data.size, 1) if t._data.ndim <= 1 else t for t in tensors], 1)


def broadcast_shapes(*shapes):
    """The shape that all `shapes` (ints or sequences of ints) broadcast to, a Size."""
    out = []
    for i, shape in enumerate(shapes):
        shape = (shape,) if isinstance(shape, numbers.Integral) else tuple(shape)
        if len(shape) > len(out):
            out = [1] * (len(shape) - len(out)) + out
        for k in range(1, len(shape) + 1):
            size = shape[-k]
            if size < 0:
                raise RuntimeError(f"Trying to create tensor with negative dimension {size}: {list(shape)}")
            if out[-k] == 1 or size == out[-k]:
                out[-k] = size if out[-k] == 1 else out[-k]
            elif size != 1:
                raise RuntimeError(
                    f"Attempting to broadcast a dimension of length {size} at -{k}! Mismatching argument at index "
                    f"{i} had {shape}; but expected shape should be broadcastable to {out}"
                )
    return Size(out)


def broadcast_to(input, size):
    """`input.expand(size)`: a read-only view (ExpandBackward0); -1 keeps a size."""
    return input.expand(tuple(size))


def broadcast_tensors(*tensors):
    """The tensors expanded to their common shape (ExpandBackward0 views); one already
    of that shape is returned itself, as in PyTorch."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    shape = ()
    for t in tensors:
        ops.check_broadcast(np.broadcast_to(np.empty((), np.bool_), shape), t._data)
        shape = np.broadcast_shapes(shape, t._data.shape)
    return tuple(t if t._data.shape == shape else t.expand(shape) for t in tensors)


_MESHGRID_WARNING = "torch.meshgrid: in an upcoming release, it will be required to pass the indexing argument."


def meshgrid(*tensors, indexing=None):
    """The coordinate grids of 0-d or 1-d tensors: tensor i viewed along dim i and
    expanded to (len0, len1, ...) ('ij'), or with the first two dims swapped ('xy').
    Without `indexing`, 'ij' and PyTorch's warning."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    if indexing is None:
        warnings.warn(_MESHGRID_WARNING, UserWarning, stacklevel=2)
        indexing = "ij"
    if not tensors:
        raise RuntimeError("meshgrid expects a non-empty TensorList")
    for t in tensors:
        if t._data.ndim > 1:
            raise RuntimeError(
                f"torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got: {t!r}"
            )
        if t._data.dtype != tensors[0]._data.dtype:
            raise RuntimeError("meshgrid expects all tensors to have the same dtype")
    if indexing not in ("ij", "xy"):
        raise RuntimeError(f'torch.meshgrid: indexing must be one of "xy" or "ij", but received: {indexing}')
    lengths = [t._data.size for t in tensors]
    places = list(range(len(tensors)))
    if indexing == "xy" and len(tensors) > 1:
        places[0], places[1] = 1, 0
    shape = [0] * len(tensors)
    for length, place in zip(lengths, places):
        shape[place] = length
    grids = []
    for t, place in zip(tensors, places):
        view = [1] * len(tensors)
        view[place] = -1
        grids.append(t.reshape(view).expand(shape))
    return tuple(grids)


def _vector(t):
    if t._data.ndim != 1:
        raise RuntimeError(f"Expect a 1D vector, but got shape {list(t._data.shape)}")


def cartesian_prod(*tensors):
    """Every tuple of one entry from each 1-d tensor, in order, as the rows of a matrix
    (StackBackward0); one tensor is returned itself."""
    for t in tensors:
        _vector(t)
    if len(tensors) == 1:
        return tensors[0]
    grids = meshgrid(*tensors, indexing="ij")
    return stack([g.reshape(-1) for g in grids], 1)


def combinations(input, r=2, with_replacement=False):
    """The length-`r` combinations of the entries of a 1-d tensor, in itertools' order, as
    the rows of a matrix (StackBackward0 over indexing)."""
    _vector(input)
    if r < 0:
        raise RuntimeError(f"Expect a non-negative number, but got {r}")
    if r == 0:
        return ops.Tensor._make(np.zeros((0,), input._data.dtype))
    pick = itertools.combinations_with_replacement if with_replacement else itertools.combinations
    rows = np.array(list(pick(range(input._data.shape[0]), r)), np.int64).reshape(-1, r)
    return stack([input[ops.Tensor._make(np.ascontiguousarray(rows[:, k]))] for k in range(r)], 1)


class CombiningOps:
    """The Tensor methods of this module."""

    __slots__ = ()
    broadcast_to = broadcast_to
