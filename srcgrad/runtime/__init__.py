"""The helpers that generated derivative code calls. Imports NumPy only.

Every name here can appear in printed derivatives, so the set stays small:

- `unbroadcast(g, x)`: make `g` a gradient for `x` (x's shape, dtype and type).
- `unreduce(g, x, axis, keepdims)`: spread the gradient of a reduction back over `x`.
- `grad_seed(out, name)`: the seed 1 of a scalar output; `TypeError` otherwise.
- `SEED64`: the seed `grad_seed` gives a NumPy float64 output, for code that knows
  the output's type.
- `SEED32`: the same for a NumPy float32 output.
- `mean_of(a)`: `np.mean(a)`, bit for bit, without NumPy's Python-level wrapper for a
  float ndarray (specialized code, where the analysis proves `a` one).
- `zeros_like_grad(x)`: a zero gradient for `x`.
- `owned_gradient(g)`, `owned_gradients(*grads)`: the gradients a derivative returns,
  each array writable and sharing memory with no other returned (copied where not).
- `scaled(g, factor, count)`: `g` multiplied `count` times by the power of two `factor`
  (specialized code, in place of a backward loop that does only that).
- `add_grad(a, b)`: add two gradient contributions, either of which may be None; lists,
  tuples and dicts add entry by entry (never concatenate).
- `item_grad(g, key, x)`: the gradient of the entry `key` of a container whose gradient
  is `g`, or a zero gradient for `x` (the entry) when there is none.
- `assigned_grad(g, index, v)`: the gradient of `v` in `y[index] = v`, where `g` is y's
  (with repeated indices only the entry written last counts, as NumPy writes it).
- `drop_last(g)`: the gradient of a list before its last `append`.
- `popped_grad(g, at, rest, entry=False)`: the gradient of a list before `v = L.pop(at)`,
  from the gradient `g` of what is left of it (`rest`), or with `entry` from v's.
- `without_part(g, index)`: a copy of the gradient `g` with the part `index` zero (the
  part an assignment `y[index] = v` overwrote).
- `same_length(y, index, v, message, filename, lineno)`: stop with `message` when
  `y[index] = v` would change the length of the list `y`. Each check stops with a
  `NotDifferentiableError` located at the user's file and line, as at decoration.
- `refuse_shared(a, b, message, filename, lineno)`: stop with `message` when arrays a
  and b share memory.
- `refuse_changed_entry(entry, message, filename, lineno)`: stop with `message` unless
  the list entry that `l[i] op= v` changes is a number; `refuse_changed_item(l, entry,
  message, filename, lineno)` also lets it pass where `l` is an array, and
  `refuse_shared_entry(l, entry, others, message, filename, lineno)` where the entry is an
  array, list or dict that none of `others` nor another entry of `l` shares.
- `has_key(d, key)`: `key in d` for the dict `d` of `d.get(key, default)`.
- `zip_strict(*lengths)`: the `ValueError` of `zip(..., strict=True)` where a loop over
  sequences of `lengths` that differ runs to its end.
- `islice_bounds(start, stop, step)`: the slice reading what `itertools.islice` with
  these bounds yields of a sequence (its `ValueError` for bounds it refuses).
- `dict_keys(d)`: the keys of the dict `d`, in order, that a loop over `d.items()` or
  `d.values()` iterates (a constant to every derivative, like the keys themselves).
- `index_tuples(how, r, *sequences)`: the tuples of positions a loop over
  `itertools.combinations(x, r)` (permutations, combinations_with_replacement, product,
  `np.ndenumerate`) reads its entries at (constants, like `dict_keys`).
- `order_by(how, positions, keys)`: `sorted`/`min`/`max` of `range(...)` ordered by keys
  computed in the function (`sorted(range(n), key=lambda i: x[i])`); no derivative.
- `dict_entry(d, key)` / `restore_entry(d, key, entry)`: save a dict entry (or its
  absence) before a write, and put it back (or remove the key) when undoing it.
- `is_view_of(item, container)`: whether `item`, read as `container[index]`, is a view
  of the array `container` (a row), not a value of its own (an element).
- `snapshot(x)`: a copy of an array or list that later in-place changes cannot reach.
- `broadcast_tangent(t, x)`: make the tangent `t` a tangent for `x` (x's shape and type).
- `tangent_for_update(t, x)`: a writable tangent of its own for an `x[i] = v` update.
- `in_place(value, target)`: what `target op= v` leaves in `target` (computed as
  `target op v`): cast to its dtype where `target` is an ndarray (writes.py).
- `unless_integral(v, like)`: `v`, or a zero of its structure where `like` holds integers
  or booleans (a result cast by `dtype=int`, an integer array written into): rounding has
  no derivative.
- `field_values(x)` / `record_like(x, values)`: the fields of a record (a namedtuple, a
  dataclass instance) in order, and a record of x's class holding other values (made
  without running a dataclass's `__init__`).
- `unit_tangents(x)`, `jacobian_from_columns(columns, x, out)`: the tangents a forward
  Jacobian pushes, one per element of `x`, and the Jacobian made of the pushed ones
  (`jacobian_from_rows` from pulled-back cotangents), for lists, tuples and dicts too
  (`srcgrad.jacobian`; the generated code computing a Jacobian, to differentiate it
  again, calls the first two).

The helpers live by concept in `gradients.py` (gradient and tangent values),
`containers.py` (the gradients of lists, tuples and dicts), `writes.py` (in-place
changes of arrays) and `jacobian_blocks.py`
(Jacobians of pytrees); generated code imports every one of them from here, the one
name it prints (`from srcgrad.runtime import unbroadcast`), so each helper's
`__module__` is this package.
"""

from .containers import (
    add_grad, assigned_grad, dict_entry, dict_keys, drop_last, field_grad, field_tangent, has_key, index_tuples, is_view_of,
    islice_bounds, item_grad, joined_part, order_by,
    popped_grad, refuse_changed_entry, refuse_changed_item, refuse_shared, refuse_shared_entry, repeated_part, repeats, restore_entry, same_length, snapshot,
    values_grad, without_part, zip_strict,
)
from .gradients import (
    COMPLEX_GRADIENT, SEED32, SEED64, broadcast_tangent, grad_seed, is_sequence, mean_of, owned_gradient, owned_gradients,
    scaled, sequence_like,
    structure_like, tangent_for_update, unbroadcast, unless_integral, unreduce, zeros_like_grad,
)
from .records import field_values, record_like
from .writes import in_place
from .jacobian_blocks import jacobian_from_columns, jacobian_from_rows, leaves, unit_tangents

__all__ = [
    "COMPLEX_GRADIENT", "SEED32", "SEED64", "add_grad", "assigned_grad", "broadcast_tangent", "dict_entry",
    "dict_keys", "drop_last", "field_grad", "field_tangent", "field_values", "grad_seed", "has_key", "in_place", "index_tuples", "islice_bounds",
    "is_sequence", "is_view_of", "item_grad",
    "jacobian_from_columns", "jacobian_from_rows", "joined_part", "leaves", "mean_of", "order_by", "owned_gradient",
    "owned_gradients", "popped_grad",
    "record_like", "refuse_changed_entry", "refuse_changed_item", "refuse_shared", "refuse_shared_entry", "repeated_part", "repeats", "restore_entry", "same_length", "scaled",
    "sequence_like", "snapshot", "structure_like", "tangent_for_update", "unbroadcast", "unit_tangents", "unless_integral", "unreduce",
    "values_grad", "without_part", "zeros_like_grad", "zip_strict",
]

for _name in __all__:
    _helper = globals()[_name]
    if callable(_helper):
        _helper.__module__ = __name__  # generated code names it `srcgrad.runtime.<name>`
del _name, _helper
