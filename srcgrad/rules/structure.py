"""Joining and splitting several arrays: concatenate, stack, hstack, vstack, dstack,
column_stack, block (nested lists), append, insert, delete, split and its variants, atleast_1d/2d/3d,
broadcast_arrays, meshgrid, and `np.array` / `np.asarray` of a (nested) list of
differentiable values.

Conventions for sequences, shared with `linalg.py` (`einsum`, `multi_dot`):

- A parameter holding a sequence of arrays (`arrays` of concatenate, `*arys` of
  atleast_1d, the list given to np.array) has ONE reverse rule that returns a list
  or tuple of gradients, one per element, each shaped and typed like its element
  (a list for a list argument, a tuple otherwise; nested lists for np.array). Its
  forward rule takes such a sequence of tangents, in which None marks an element
  that is a constant.
- A primal returning several arrays (split, broadcast_arrays, meshgrid, and
  slogdet/eigh/qr/svd in `linalg.py`) receives its cotangent as a sequence with one
  entry per output, None for an output that receives no gradient; its forward rule
  returns a tuple (a list where NumPy returns a list) of output tangents.
"""

import operator

import numpy as np

from ..runtime import field_values, structure_like, unbroadcast, unless_integral, zeros_like_grad
from ..runtime.records import record_fields
from .registry import defjvp, defvjp

# --- helpers ------------------------------------------------------------------------


def _like(items, sequence):
    """`items` in the container kind of `sequence`: a list for a list, else a tuple."""
    return list(items) if isinstance(sequence, list) else tuple(items)


def _fill(tangents, values):
    """Tangents for each element, with zeros where an element is a constant (None)."""
    return [zeros_like_grad(np.asarray(v)) if t is None else t for t, v in zip(tangents, values)]


def _cotangents(g, outputs):
    """The cotangent of each output, with zeros where an output received none."""
    return [np.zeros_like(out) if item is None else item for item, out in zip(g, outputs)]


def _split_joined(g, arrays, promote, axis):
    """The transpose of joining `promote(a)` for a in arrays along `axis`: cut g into
    pieces, one per element, and give each the element's own shape and type."""
    sizes = [np.shape(promote(a))[axis] for a in arrays]
    pieces = np.split(g, np.cumsum(sizes)[:-1], axis=axis)
    return _like((unbroadcast(np.reshape(p, np.shape(a)), a) for p, a in zip(pieces, arrays)), arrays)


def _as_column(a):
    a = np.asarray(a)
    return a.reshape(-1, 1) if a.ndim < 2 else a


def _hstack_axis(tup):
    return 0 if np.ndim(np.atleast_1d(tup[0])) == 1 else 1


# --- joining ------------------------------------------------------------------------


@defvjp(np.concatenate, "arrays", name="Cat")
def concatenate_vjp(g, ans, arrays, axis=0, out=None, *, dtype=None, casting="same_kind"):
    return _split_joined(g, arrays, np.ravel if axis is None else np.asarray, 0 if axis is None else axis)


@defjvp(np.concatenate, "arrays")
def concatenate_jvp(t, ans, arrays, axis=0, out=None, *, dtype=None, casting="same_kind"):
    return np.concatenate(_fill(t, arrays), axis=axis)


@defvjp(np.hstack, "tup")
def hstack_vjp(g, ans, tup, *, dtype=None, casting="same_kind"):
    return _split_joined(g, tup, np.atleast_1d, _hstack_axis(tup))


@defjvp(np.hstack, "tup")
def hstack_jvp(t, ans, tup, *, dtype=None, casting="same_kind"):
    return np.hstack(_fill(t, tup))


@defvjp(np.vstack, "tup")
def vstack_vjp(g, ans, tup, *, dtype=None, casting="same_kind"):
    return _split_joined(g, tup, np.atleast_2d, 0)


@defjvp(np.vstack, "tup")
def vstack_jvp(t, ans, tup, *, dtype=None, casting="same_kind"):
    return np.vstack(_fill(t, tup))


@defvjp(np.dstack, "tup")
def dstack_vjp(g, ans, tup):
    return _split_joined(g, tup, np.atleast_3d, 2)


@defjvp(np.dstack, "tup")
def dstack_jvp(t, ans, tup):
    return np.dstack(_fill(t, tup))


@defvjp(np.column_stack, "tup")
def column_stack_vjp(g, ans, tup):
    return _split_joined(g, tup, _as_column, 1)


@defjvp(np.column_stack, "tup")
def column_stack_jvp(t, ans, tup):
    return np.column_stack(_fill(t, tup))


def _unstack(g, arrays, axis):
    """The transpose of np.stack: slice i of g along `axis` is element i's gradient."""
    return _like((unbroadcast(np.take(g, i, axis=axis), a) for i, a in enumerate(arrays)), arrays)


@defvjp(np.stack, "arrays")
def stack_vjp(g, ans, arrays, axis=0, out=None, *, dtype=None, casting="same_kind"):
    return _unstack(g, arrays, axis)


@defjvp(np.stack, "arrays")
def stack_jvp(t, ans, arrays, axis=0, out=None, *, dtype=None, casting="same_kind"):
    return np.stack(_fill(t, arrays), axis=axis)


def _append_parts(g, arr, values, axis):
    """The gradients of `arr` and `values` in np.append(arr, values, axis)."""
    promote = np.ravel if axis is None else np.asarray
    return _split_joined(g, (arr, values), promote, 0 if axis is None else axis)


@defvjp(np.append, "arr")
def append_vjp_arr(g, ans, arr, values, axis=None):
    return _append_parts(g, arr, values, axis)[0]


@defvjp(np.append, "values")
def append_vjp_values(g, ans, arr, values, axis=None):
    return _append_parts(g, arr, values, axis)[1]


@defjvp(np.append, "arr")
def append_jvp_arr(t, ans, arr, values, axis=None):
    return np.append(t, zeros_like_grad(np.asarray(values)), axis)


@defjvp(np.append, "values")
def append_jvp_values(t, ans, arr, values, axis=None):
    return np.append(zeros_like_grad(np.asarray(arr)), t, axis)


def _insert_sources(arr, obj, values, axis):
    """Where each entry of np.insert(arr, obj, values, axis) comes from: the flat index of
    its entry in arr (or -1) and the flat index of its entry in values (or -1), found by
    inserting index arrays the way NumPy inserts the data (values broadcast the same)."""
    arr_ids = np.arange(np.size(arr)).reshape(np.shape(arr))
    value_ids = np.arange(np.size(values)).reshape(np.shape(values))
    from_arr = np.insert(arr_ids, obj, np.full(np.shape(values), -1), axis)
    from_values = np.insert(np.full(np.shape(arr), -1), obj, value_ids, axis)
    return from_arr, from_values


def _gather_back(g, ids, x):
    """The transpose of placing x's flat entries at the positions `ids` (-1: elsewhere);
    broadcast entries placed several times add up."""
    keep = ids >= 0
    grad = np.bincount(ids[keep], weights=np.asarray(g)[keep], minlength=np.size(x))
    return unbroadcast(grad.reshape(np.shape(x)), x)


@defvjp(np.insert, "arr")
def insert_vjp_arr(g, ans, arr, obj, values, axis=None):
    return _gather_back(g, _insert_sources(arr, obj, values, axis)[0], arr)


@defvjp(np.insert, "values")
def insert_vjp_values(g, ans, arr, obj, values, axis=None):
    return _gather_back(unless_integral(g, ans), _insert_sources(arr, obj, values, axis)[1], values)  # rounded into an integer `arr`


@defjvp(np.insert, "arr")
def insert_jvp_arr(t, ans, arr, obj, values, axis=None):
    return np.insert(t, obj, np.zeros(np.shape(values), dtype=np.result_type(t)), axis)


@defjvp(np.insert, "values")
def insert_jvp_values(t, ans, arr, obj, values, axis=None):
    return unless_integral(np.insert(np.zeros(np.shape(arr), dtype=np.result_type(ans, 1.0)), obj, t, axis), ans)


@defvjp(np.delete, "arr")
def delete_vjp(g, ans, arr, obj, axis=None):
    return _gather_back(g, np.delete(np.arange(np.size(arr)).reshape(np.shape(arr)), obj, axis), arr)


@defjvp(np.delete, "arr")
def delete_jvp(t, ans, arr, obj, axis=None):
    return np.delete(t, obj, axis)


# NumPy promotes each leaf of np.block's nested lists to the result's rank, never
# broadcasts it: each entry of a leaf lands at one place, which np.block of the leaves'
# flat positions finds.


def _block_positions(arrays, start):
    """(`arrays` with each leaf replaced by the flat positions of its entries, counted
    from `start`; the next start)."""
    if isinstance(arrays, list):
        out = []
        for item in arrays:
            positions, start = _block_positions(item, start)
            out.append(positions)
        return out, start
    size = np.size(arrays)
    return np.arange(start, start + size).reshape(np.shape(arrays)), start + size


def _block_pieces(flat, arrays, start):
    """(the gradients of `arrays`' leaves, cut from `flat` from `start`, nested as they are; the next start)."""
    if isinstance(arrays, list):
        out = []
        for item in arrays:
            grad, start = _block_pieces(flat, item, start)
            out.append(grad)
        return out, start
    size = np.size(arrays)
    return unbroadcast(flat[start:start + size].reshape(np.shape(arrays)), arrays), start + size


def _block_tangents(t, arrays):
    """The leaves' tangents nested as `arrays`, zeros for constants (None)."""
    if isinstance(arrays, list):
        return [_block_tangents(None if t is None else item, a) for item, a in zip(t or [None] * len(arrays), arrays)]
    return zeros_like_grad(np.asarray(arrays)) if t is None else t


@defvjp(np.block, "arrays")
def block_vjp(g, ans, arrays):
    positions, total = _block_positions(arrays, 0)
    flat = np.zeros(total, dtype=np.result_type(g))
    flat[np.ravel(np.block(positions))] = np.ravel(g)
    return _block_pieces(flat, arrays, 0)[0]


@defjvp(np.block, "arrays")
def block_jvp(t, ans, arrays):
    return np.block(_block_tangents(t, arrays))


# --- splitting ----------------------------------------------------------------------


def _join_pieces(g, pieces, x, axis):
    """The transpose of a split: put the pieces' cotangents back together along `axis`."""
    return unbroadcast(np.concatenate(_cotangents(g, pieces), axis=axis), x)


def _hsplit_axis(x):
    return 1 if np.ndim(x) > 1 else 0


@defvjp(np.split, "x")
@defvjp(np.array_split, "x")
def split_vjp(g, ans, x, indices_or_sections, axis=0):
    return _join_pieces(g, ans, x, axis)


@defjvp(np.split, "x")
def split_jvp(t, ans, x, indices_or_sections, axis=0):
    return np.split(t, indices_or_sections, axis)


@defjvp(np.array_split, "x")
def array_split_jvp(t, ans, x, indices_or_sections, axis=0):
    return np.array_split(t, indices_or_sections, axis)


@defvjp(np.hsplit, "x")
def hsplit_vjp(g, ans, x, indices_or_sections):
    return _join_pieces(g, ans, x, _hsplit_axis(x))


@defjvp(np.hsplit, "x")
def hsplit_jvp(t, ans, x, indices_or_sections):
    return np.hsplit(t, indices_or_sections)


@defvjp(np.vsplit, "x")
def vsplit_vjp(g, ans, x, indices_or_sections):
    return _join_pieces(g, ans, x, 0)


@defjvp(np.vsplit, "x")
def vsplit_jvp(t, ans, x, indices_or_sections):
    return np.vsplit(t, indices_or_sections)


@defvjp(np.dsplit, "x")
def dsplit_vjp(g, ans, x, indices_or_sections):
    return _join_pieces(g, ans, x, 2)


@defjvp(np.dsplit, "x")
def dsplit_jvp(t, ans, x, indices_or_sections):
    return np.dsplit(t, indices_or_sections)


# --- promotion and broadcasting of several arrays -----------------------------------


def _reshape_each(g, arrays):
    """Gradients for `*arrays` of a function that only reshapes each one; with a single
    array NumPy returns it bare, so its cotangent comes bare too."""
    g = (g,) if len(arrays) == 1 else g
    return tuple(
        zeros_like_grad(a) if item is None else unbroadcast(np.reshape(item, np.shape(a)), a)
        for item, a in zip(g, arrays)
    )


@defvjp(np.atleast_1d, "arys")
@defvjp(np.atleast_2d, "arys")
@defvjp(np.atleast_3d, "arys")
def atleast_vjp(g, ans, *arys):
    return _reshape_each(g, arys)


@defjvp(np.atleast_1d, "arys")
def atleast_1d_jvp(t, ans, *arys):
    return np.atleast_1d(*_fill(t, arys))


@defjvp(np.atleast_2d, "arys")
def atleast_2d_jvp(t, ans, *arys):
    return np.atleast_2d(*_fill(t, arys))


@defjvp(np.atleast_3d, "arys")
def atleast_3d_jvp(t, ans, *arys):
    return np.atleast_3d(*_fill(t, arys))


def _unbroadcast_each(g, arrays):
    return tuple(zeros_like_grad(a) if item is None else unbroadcast(item, a) for item, a in zip(g, arrays))


@defvjp(np.broadcast_arrays, "args")
def broadcast_arrays_vjp(g, ans, *args, subok=False):
    return _unbroadcast_each(g, args)


@defjvp(np.broadcast_arrays, "args")
def broadcast_arrays_jvp(t, ans, *args, subok=False):
    return np.broadcast_arrays(*_fill(t, args))


def _meshgrid_vjp(g, xi, sparse, indexing):
    """Each grid repeats one (flattened) input along the other axes: sum them out."""
    grads = []
    for k, (item, x) in enumerate(zip(g, xi)):
        if item is None:
            grads.append(zeros_like_grad(x))
            continue
        own = {0: 1, 1: 0}.get(k, k) if indexing == "xy" and len(xi) > 1 else k
        summed = np.sum(item, axis=tuple(a for a in range(np.ndim(item)) if a != own))
        grads.append(unbroadcast(np.reshape(summed, np.shape(x)), x))
    return tuple(grads)


@defvjp(np.meshgrid, "xi")
def meshgrid_vjp(g, ans, *xi, copy=True, sparse=False, indexing="xy"):
    return _meshgrid_vjp(g, xi, sparse, indexing)


@defjvp(np.meshgrid, "xi")
def meshgrid_jvp(t, ans, *xi, copy=True, sparse=False, indexing="xy"):
    return np.meshgrid(*_fill(t, xi), copy=copy, sparse=sparse, indexing=indexing)


# --- np.array / np.asarray of nested lists ------------------------------------------


def _unpack(g, value):
    """The transpose of np.array(value): a gradient with value's nesting, each leaf
    shaped and typed like the leaf it belongs to."""
    g = np.reshape(g, np.shape(value))
    if isinstance(value, (list, tuple)):
        return _like((_unpack(g[i], item) for i, item in enumerate(value)), value)
    return unbroadcast(g, value)


def _pack(t, value):
    """Tangents with value's nesting, zeros for constant (None) leaves or sub-lists."""
    if t is None:
        return np.zeros(np.shape(value))
    if isinstance(value, (list, tuple)):
        return [_pack(item_t, item) for item_t, item in zip(t, value)]
    return t


def _through_cast(g, ans):
    """`g`, or zeros where the result is integers or booleans (rounding has no derivative);
    otherwise in the result's float dtype."""
    kind = np.result_type(ans).kind
    if kind in "biu":
        return np.zeros(np.shape(ans), dtype=np.float64)
    return np.asarray(g, dtype=np.result_type(ans)) if kind in "fc" else g


@defvjp(np.array, "object")
def array_vjp(
    g, ans, object, dtype=None, *, copy=True, order="K", subok=False, ndmin=0, ndmax=0, like=None
):
    return _unpack(_through_cast(g, ans), object)


@defjvp(np.array, "object")
def array_jvp(
    t, ans, object, dtype=None, *, copy=True, order="K", subok=False, ndmin=0, ndmax=0, like=None
):
    return _through_cast(np.array(_pack(t, object), dtype=np.float64, ndmin=ndmin), ans)


@defvjp(np.asarray, "a")
@defvjp(np.asanyarray, "a")
def asarray_vjp(g, ans, a, dtype=None, order=None, *, device=None, copy=None, like=None):
    return _unpack(_through_cast(g, ans), a)


@defjvp(np.asarray, "a")
@defjvp(np.asanyarray, "a")
def asarray_jvp(t, ans, a, dtype=None, order=None, *, device=None, copy=None, like=None):
    return _through_cast(np.asarray(_pack(t, a), dtype=np.float64), ans)


# `list(xs)` / `tuple(xs)`: the same entries in another container. The gradient of an
# array argument is the array of its rows' gradients; of a sequence, the same kind of
# sequence (None where an entry received no gradient).


def _sequence_grad(g, iterable):
    if isinstance(iterable, np.ndarray):
        rows = [zeros_like_grad(row) if item is None else item for item, row in zip(g, iterable)]
        return unbroadcast(np.array(rows).reshape(np.shape(iterable)), iterable)
    return _like(g, iterable)


@defvjp(list, "iterable")
@defvjp(tuple, "iterable")
def sequence_vjp(g, ans, iterable=()):
    return _sequence_grad(g, iterable)


@defjvp(list, "iterable")
def list_jvp(t, ans, iterable=()):
    return list(t)


@defjvp(tuple, "iterable")
def tuple_jvp(t, ans, iterable=()):
    return tuple(t)


# `dict(d)` of a dict: a new dict of the same entries, whose gradient is d's, entry by
# entry (`dict(zip(keys, values))` is a comprehension by then: map_filter.py).


def _of_dict(g, mapping):
    """`g` itself: the copy's gradient, entry by entry (a TypeError for anything but a dict)."""
    if type(mapping) is not dict:
        raise TypeError(
            f"srcgrad differentiates `dict(d)` of a dict `d` only, not of {type(mapping).__name__}: build the dict "
            "with a display or a comprehension (`{k: v for k, v in pairs}`)"
        )
    return g


@defvjp(dict, "mapping", name="DictCopy")
def dict_vjp(g, ans, mapping=()):
    return _of_dict(g, mapping)


@defjvp(dict, "mapping")
def dict_jvp(t, ans, mapping=()):
    return dict(_of_dict(t, mapping))


# `a | b` (and `a |= b`, `{**a, 'k': v}`, `a.update(b)`, which anf.py spells so) merges
# two dicts into a new one whose entries are a's, replaced or followed by b's: each entry's
# gradient goes to the operand it came from. On numbers and bool arrays `|` is bitwise,
# with a zero derivative. Forward mode adds the two operands' dict tangents with add_grad.


def _merged(x, other):
    """Whether `x | other` (or `other | x`) merged two dicts."""
    return isinstance(x, dict) and isinstance(other, dict)


def _merged_grad(g, x, other, first):
    """The gradient of `x` in `x | other` (`first`) or `other | x`, given the result's `g`
    (None meaning zero): an entry of the left dict that the right one replaced gets zero."""
    if not _merged(x, other):
        return zeros_like_grad(x)
    if g is None:
        return {k: zeros_like_grad(v) for k, v in x.items()}
    return {k: zeros_like_grad(v) if (first and k in other) or g.get(k) is None else g[k] for k, v in x.items()}


def _merged_tangent(t, ans, x, other, first):
    """The part of the tangent of `ans = x | other` (`first`) or `other | x` that x's
    tangent `t` gives: x's entries that survive, zeros for the others (every key of ans)."""
    if not _merged(x, other):
        return zeros_like_grad(ans)
    return {k: t[k] if k in x and not (first and k in other) else zeros_like_grad(v) for k, v in ans.items()}


@defvjp(operator.or_, "x", name="Merge")
def merge_vjp_x(g, ans, x, y):
    return _merged_grad(g, x, y, True)


@defvjp(operator.or_, "y")
def merge_vjp_y(g, ans, x, y):
    return _merged_grad(g, y, x, False)


@defjvp(operator.or_, "x")
def merge_jvp_x(t, ans, x, y):
    return _merged_tangent(t, ans, x, y, True)


@defjvp(operator.or_, "y")
def merge_jvp_y(t, ans, x, y):
    return _merged_tangent(t, ans, y, x, False)


# A record class called with its fields (`P(W=a, b=c)`, a namedtuple or a dataclass whose
# `__init__` is the one dataclasses generates): calls.site reads it as
# `make_record(P, (a, c))`, the fields in the class's order, so each field's value gets
# its entry of the record's gradient (`field_values(g)`).


def make_record(kind, fields):
    """The record of the class `kind` whose fields hold `fields`, in order: `kind(*fields)`
    for a namedtuple, a call of a dataclass's generated `__init__` with its fields by name
    (`kw_only` ones too), which only stores them (runtime.records.is_record_class)."""
    if issubclass(kind, tuple):
        return kind(*fields)
    return kind(**dict(zip(record_fields(kind), fields)))


@defvjp(make_record, "fields", name="Record")
def make_record_vjp(g, ans, kind, fields):
    return field_values(g)


@defjvp(make_record, "fields")
def make_record_jvp(t, ans, kind, fields):
    return make_record(kind, _field_tangents(t, fields))


def _field_tangents(t, seq):
    """The tangent of each field, zeros where a field is a constant (None), also an entry
    of a field holding a list, tuple or dict (`P([w0, w1])` differentiated in w0 alone:
    the tangent of `P.weights[1]` is zeros, not None)."""
    return [zeros_like_grad(v) if d is None else structure_like(d, v) if type(d) in (list, tuple, dict) else d
            for d, v in zip(t, seq)]


@defvjp(np.float64, "x")
@defvjp(np.float32, "x")
def numpy_scalar_vjp(g, ans, x=0.0):
    return unbroadcast(g, x)


@defjvp(np.float64, "x")
def float64_jvp(t, ans, x=0.0):
    return np.float64(t)


@defjvp(np.float32, "x")
def float32_jvp(t, ans, x=0.0):
    return np.float32(t)
