"""Jacobians of lists, tuples, records and dicts of arrays and floats (pytrees): the unit
tangents a forward Jacobian pushes, and the Jacobian assembled from the pushed columns
or the pulled-back rows (`srcgrad.jacobian`; a generated program computing a Jacobian
calls the first two, so that it can be differentiated again).
"""

import numbers

import numpy as np

from .gradients import is_sequence, sequence_like, zeros_like_grad
from .records import field_values, is_dataclass_kind, record_like

_ndarray = np.ndarray
_float = float


def leaves(x):
    """The leaves of `x` in order: its entries, through lists, tuples, namedtuples,
    dataclass instances and dicts (in their own order), that are none of these.

    >>> leaves({"a": [1.0, 2.0], "b": 3.0})
    [1.0, 2.0, 3.0]
    """
    kind = type(x)
    if is_sequence(kind):
        return [leaf for item in x for leaf in leaves(item)]
    if kind is dict:
        return [leaf for item in x.values() for leaf in leaves(item)]
    if is_dataclass_kind(kind):
        return [leaf for item in field_values(x) for leaf in leaves(item)]
    return [x]


def _rebuilt(x, parts):
    """`x`'s structure with its leaves replaced by the next ones of the iterator `parts`."""
    kind = type(x)
    if is_sequence(kind):
        return sequence_like(x, [_rebuilt(item, parts) for item in x])
    if kind is dict:
        return {key: _rebuilt(item, parts) for key, item in x.items()}
    if is_dataclass_kind(kind):
        return record_like(x, [_rebuilt(item, parts) for item in field_values(x)])
    return next(parts)


def unit_tangents(x):
    """The unit tangents of `x`, one per element of each leaf in order (C order within
    an array): that element 1 and every other 0, in `x`'s structure. A Python float's
    entry is a float; an array's has its float dtype (float64 for other dtypes). A leaf
    that is neither a number nor an array (a string, None) has no derivative: its
    element's tangent is zero (the Jacobian's block for it is zero, as in reverse mode).

    >>> list(unit_tangents((1.0, np.zeros(2))))
    [(1.0, array([0., 0.])), (0.0, array([1., 0.])), (0.0, array([0., 1.]))]
    """
    parts = leaves(x)
    zeros = [zeros_like_grad(leaf) for leaf in parts]
    for i, leaf in enumerate(parts):
        if isinstance(leaf, _float):
            yield _rebuilt(x, iter(zeros[:i] + [1.0] + zeros[i + 1:]))
            continue
        if not isinstance(leaf, (numbers.Number, _ndarray, np.generic)):
            for _ in range(np.size(leaf)):
                yield _rebuilt(x, iter(zeros))
            continue
        dtype = np.result_type(leaf)
        for index in np.ndindex(np.shape(leaf)):
            unit = np.zeros(np.shape(leaf), dtype=dtype if dtype.kind in "fc" else np.float64)
            unit[index] = 1.0
            yield _rebuilt(x, iter(zeros[:i] + [unit] + zeros[i + 1:]))


def _block_dtype(o, leaf):
    """The dtype of the block of the output leaf `o` and the input leaf `leaf`: their
    result type, at least float32, where a Python number is weak (as in NumPy 2 and JAX:
    a float32 function of a Python float has a float32 Jacobian); float64 (complex128)
    when both are Python numbers, and float64 for an integer result. A NumPy scalar is
    strong: np.float64 is a subclass of float, but a float64 output keeps float64."""
    strong = [np.asarray(v).dtype for v in (o, leaf) if type(v) not in (bool, int, _float, complex)]
    if not strong:
        strong = [np.asarray(o).dtype, np.asarray(leaf).dtype]
    elif any(isinstance(v, complex) for v in (o, leaf)):
        strong.append(np.complex64)
    dtype = np.result_type(*strong, np.float32)
    return dtype if dtype.kind in "fc" else np.dtype(np.float64)


def _scalar_block(block, o, leaf):
    """The block of a number `o` (the output) and a number `leaf` (the input) as a number,
    as the input's gradient is: a Python float where the input is one and the output a
    float (np.float64 too), else a NumPy scalar of the block's dtype (np.float64 for an
    np.float64 input, np.float32 for an np.float32 one or a float32 output). A block of an
    array (0-d too) or with an array dimension stays an array."""
    if type(o) is _ndarray or type(leaf) is _ndarray or block.ndim:
        return block
    if type(leaf) is _float and isinstance(o, _float):
        return float(block)
    if isinstance(o, (numbers.Number, np.generic)) and isinstance(leaf, (numbers.Number, np.generic)):
        return block[()]
    return block


def jacobian_from_columns(columns, x, out):
    """The Jacobian of `out` with respect to `x` given `columns`, the tangents of `out`
    for `unit_tangents(x)` in order: `out`'s structure of `x`'s structure, each leaf of
    shape `out_leaf.shape + x_leaf.shape` (a number where both leaves are numbers:
    `_scalar_block`)."""
    column_leaves = [leaves(column) for column in columns]
    return _jacobian(x, out, lambda i, start, count: [c[i] for c in column_leaves[start:start + count]], True)


def jacobian_from_rows(rows, x, out):
    """The Jacobian of `out` with respect to `x` (as `jacobian_from_columns`) given
    `rows`, the cotangents of `x` for `unit_tangents(out)` in order."""
    row_leaves = [leaves(row) for row in rows]
    return _jacobian(x, out, lambda j, start, count: [r[j] for r in row_leaves[start:start + count]], False)


def _jacobian(x, out, parts, by_columns):
    """The Jacobian's blocks, block (i, j) of out leaf i and x leaf j filled from
    `parts(k, start, count)`: leaf k of the `count` columns (or rows) from `start`."""
    x_leaves, out_leaves = leaves(x), leaves(out)
    x_starts = np.cumsum([0] + [np.size(leaf) for leaf in x_leaves]).tolist()
    out_starts = np.cumsum([0] + [np.size(leaf) for leaf in out_leaves]).tolist()
    blocks = []
    for i, o in enumerate(out_leaves):
        row = []
        for j, leaf in enumerate(x_leaves):
            block = np.zeros(np.shape(o) + np.shape(leaf), dtype=_block_dtype(o, leaf))
            if by_columns:
                for index, column in zip(np.ndindex(np.shape(leaf)), parts(i, x_starts[j], np.size(leaf))):
                    block[(Ellipsis,) + index] = column
            else:
                for index, r in zip(np.ndindex(np.shape(o)), parts(j, out_starts[i], np.size(o))):
                    block[index] = r
            row.append(_scalar_block(block, o, leaf))
        blocks.append(_rebuilt(x, iter(row)))
    return _rebuilt(out, iter(blocks))
