"""The gradient side of lists, tuples, records (namedtuples, dataclasses) and dicts: adding container
gradients, taking an entry's part, the gradients of joins, repeats, appends, pops and
entry writes, and the checks and snapshots that keep undoing them in reverse mode
exact. See `srcgrad.runtime` for the list.
"""

import itertools
import numbers

import numpy as np

from ..errors import raised_at
from .gradients import is_sequence, sequence_like, unbroadcast, zeros_like_grad
from .records import field_values, is_dataclass_kind, record_fields, record_like

_ndarray = np.ndarray
_CONTAINERS = (list, tuple)


def add_grad(a, b):
    """`a + b` for gradients, where None means zero and containers add entry by entry.

    >>> add_grad([1.0, None], [2.0, 3.0])
    [3.0, 3.0]
    >>> add_grad(None, np.ones(2)).tolist()
    [1.0, 1.0]
    """
    if a is None:
        return b
    if b is None:
        return a
    if isinstance(a, _CONTAINERS) or isinstance(b, _CONTAINERS):
        if len(a) != len(b):
            raise ValueError(f"gradients of containers of different lengths ({len(a)} and {len(b)})")
        return sequence_like(a if isinstance(a, _CONTAINERS) else b, [add_grad(x, y) for x, y in zip(a, b)])
    if type(a) is dict or type(b) is dict:
        if type(a) is not dict or type(b) is not dict:
            raise TypeError("cannot add the gradient of a dict to the gradient of a non-dict")
        out = dict(a)
        for key, value in b.items():
            out[key] = add_grad(out.get(key), value)
        return out
    if is_dataclass_kind(type(a)) or is_dataclass_kind(type(b)):
        if type(a) is not type(b):
            raise TypeError(f"cannot add the gradient of a {type(a).__name__} to the gradient of a {type(b).__name__}")
        return record_like(a, [add_grad(x, y) for x, y in zip(field_values(a), field_values(b))])
    return a + b


def item_grad(g, key, x):
    """The part of the container gradient `g` that belongs to its entry `key` (value `x`)."""
    if g is None:
        return zeros_like_grad(x)
    if type(g) is dict:
        item = g.get(key)
    else:
        item = g[key]
    return zeros_like_grad(x) if item is None else item


def field_grad(g, x, name):
    """The gradient of the record `x` (a namedtuple or a dataclass instance) whose field
    `name` has the gradient `g` (None meaning zero): zeros in its other fields, in x's
    class. A TypeError for another object, or for a name that is not a field (a property,
    a class attribute), whose derivative srcgrad does not know."""
    kind = type(x)
    fields = record_fields(kind)
    if fields is None:
        raise TypeError(
            f"srcgrad differentiates an attribute read (`.{name}`) of a namedtuple or a dataclass only, not of "
            f"{kind.__name__}: pass the differentiated values as arguments, or in a namedtuple, dataclass, dict, "
            "list or tuple"
        )
    if name not in fields:
        raise TypeError(not_a_field(kind, name))
    return record_like(x, [(zeros_like_grad(v) if g is None else g) if f == name else zeros_like_grad(v)
                           for f, v in zip(fields, field_values(x))])


def field_tangent(t, x, name):
    """The tangent of the attribute `name` of `x`, whose tangent is `t`: its field of that
    name. A TypeError where `x` is a record and `name` none of its fields (a property, a
    class attribute): read off the tangent, it would be computed from the tangent's fields
    as from values, wrongly. A namedtuple's tangent may be a plain tuple (the forward rule
    of `np.linalg.eigh`, `svd`, `qr`, `slogdet`): its entry at the field's position."""
    fields = record_fields(type(x))
    if fields is not None and name not in fields:
        raise TypeError(not_a_field(type(x), name))
    if fields is not None and type(t) is tuple and isinstance(x, tuple):
        return t[fields.index(name)]
    return getattr(t, name)


def not_a_field(kind, name):
    """What a read of `.name` that is not a field of the record class `kind` is told."""
    return (
        f"srcgrad differentiates reads of the fields of {kind.__name__} ({', '.join(record_fields(kind))}), and "
        f"`.{name}` is not one (a property or another attribute of the class, computed from the fields where "
        "srcgrad does not see it): compute it in the differentiated function from the fields, or in a function "
        f"of yours called with the {kind.__name__}"
    )


def values_grad(g, d):
    """The gradient of the dict `d` given that of the list of its values (`d.values()`),
    None meaning zero: each value's gradient under its key."""
    return None if g is None else dict(zip(d, g))


def joined_part(g, x, other, first):
    """The gradient of `x` in `x + other` (`first`) or `other + x`, given the sum's `g`.

    Lists or tuples joined end to end: x's run of g's entries, in x's kind. Otherwise
    the `+` was arithmetic: g summed down to x's shape.
    """
    if is_sequence(type(x)) and is_sequence(type(other)):
        if g is None:
            return zeros_like_grad(x)
        part = g[: len(x)] if first else g[len(other):]
        return sequence_like(x, part)
    return unbroadcast(g, x)


def repeated_part(g, x, other):
    """The gradient of `x` in `x * other` or `other * x`, given the product's `g`.

    A list or tuple repeated `other` times: the sum of its repeats' gradients, entry by
    entry; the count gets none. Otherwise the `*` was arithmetic (`array * [1.0, 2.0]`):
    `g * other` summed down to x's shape.
    """
    if repeats(x, other, g):
        n = len(x)
        out = zeros_like_grad(x)
        for start in range(0, len(g) if g is not None else 0, n or 1):
            out = add_grad(out, sequence_like(x, g[start:start + n]))
        return out
    if repeats(other, x, g):
        return zeros_like_grad(x)
    return unbroadcast(g * other, x)


def repeats(seq, count, g):
    """Whether `seq * count` or `count * seq`, whose gradient is `g`, repeated the list or
    tuple `seq`: `count` is an integer. Anything else (an array, a float) multiplies it as
    an array, and so does a NumPy integer on the left with NumPy 1 (`np.int64(2) * [a, b]`
    has len(seq) entries there, and repeats with NumPy 2: g's length tells them apart
    where it matters)."""
    if not is_sequence(type(seq)) or not isinstance(count, (int, np.integer)):
        return False
    if type(count) in (int, bool) or g is None or np.ndim(g) == 0:
        return True
    return len(g) == len(seq) * int(count)


def _is_basic_index(index):
    parts = index if type(index) is tuple else (index,)
    return all(p is None or p is Ellipsis or type(p) in (int, slice) or isinstance(p, np.integer) for p in parts)


def assigned_grad(g, index, v, y=None):
    """The gradient of `v` in `y[index] = v` given y's gradient `g`.

    An integer-array index may name an entry several times; NumPy keeps the value
    written last, so only that write receives the entry's gradient. Written into an
    integer or boolean array, `v` is rounded away: no gradient.
    """
    if type(y) is _ndarray and y.dtype.kind in "biu":
        return zeros_like_grad(v)
    if type(g) is float and type(y) is _ndarray:  # of a 0-d array read as a number (`float(s)`)
        g = np.asarray(g)
    if type(g) is not _ndarray or _is_basic_index(index):
        return unbroadcast(item_grad(g, index, v), v)
    part = g[index]
    ids = np.arange(part.size).reshape(part.shape)
    owner = np.full(g.shape, -1)
    owner[index] = ids
    return unbroadcast(np.where(owner[index] == ids, part, 0.0), v)


def drop_last(g):
    """The gradient `g` of a list without the entry of its last element."""
    if g is None:
        return None
    return g[:-1]


def popped_grad(g, at, rest, entry=False):
    """The part of the gradient of a list `L` before `v = L.pop(at)` that comes from `g`:
    the gradient of `rest` (what is left of L) with an empty entry (None) where v was, or
    with `entry`, v's gradient in that place and empty entries elsewhere. None for zero.

    >>> popped_grad([1.0, 2.0], 0, ["a", "b"])
    [None, 1.0, 2.0]
    >>> popped_grad(3.0, -1, ["a", "b"], entry=True)
    [None, None, 3.0]
    """
    if g is None:
        return None
    place = at if at >= 0 else len(rest) + 1 + at
    out = [None] * len(rest) if entry else list(g)
    out.insert(place, g if entry else None)
    return out


def without_part(g, index):
    """A copy of the gradient `g` whose part `index` is zero (None in a container: one for
    each entry of a slice)."""
    if type(g) in _CONTAINERS or type(g) is dict:
        out = dict(g) if type(g) is dict else list(g)
        out[index] = [None] * _slice_length(index, len(out)) if type(index) is slice else None
        return out if type(g) is not tuple else tuple(out)
    out = np.array(g)
    out[index] = 0
    return out


def refuse_changed_entry(entry, message, filename=None, lineno=None):
    """Stop with `message` unless `entry`, the entry of a list that `l[i] op= v` changes, is
    a number: NumPy changes an array entry (and Python a list entry) in place, along with
    every value sharing it; a number is only rebound, as `l[i] = l[i] op v`."""
    if not isinstance(entry, (numbers.Number, np.generic)):
        raise raised_at(message, filename, lineno)


def refuse_changed_item(container, entry, message, filename=None, lineno=None):
    """Stop with `message` unless `container[i] op= v` is `container[i] = container[i] op v`:
    where `container` is a NumPy array (the change goes into its own memory, as the
    assignment's does; not one of dtype object, whose entries are objects) or `entry`,
    what it holds at i, is a number."""
    if type(container) is not _ndarray or container.dtype.hasobject:
        refuse_changed_entry(entry, message, filename, lineno)


def refuse_shared_entry(container, entry, others, message, filename=None, lineno=None):
    """Stop with `message` unless `container[i] op= v` is `container[i] = container[i] op v`:
    where `refuse_changed_item` lets it pass, and where `entry`, what the list or dict
    `container` holds at i, is an array, list or dict that no value of `others` (local
    values, at any depth) and no other entry of `container` is or shares memory with: the
    change in place reaches no value but through `container[i]`, which the assignment
    rebinds."""
    if (type(container) is _ndarray and not container.dtype.hasobject) or isinstance(entry, (numbers.Number, np.generic)):
        return
    kind = type(entry)
    if kind not in (_ndarray, list, dict) or (kind is _ndarray and entry.dtype.hasobject):
        raise raised_at(message, filename, lineno)
    siblings = container.values() if type(container) is dict else container
    if any(_holds(other, entry) for other in others) or sum(_holds(s, entry) for s in siblings) > 1:
        raise raised_at(message, filename, lineno)


def same_length(y, index, v, message, filename=None, lineno=None):
    """Stop with `message` when `y[index] = v` gives a slice of the list `y` another number
    of entries than it holds: reverse mode undoes the write in the same place."""
    if type(y) is list and type(index) is slice and _slice_length(index, len(y)) != len(v):
        raise raised_at(message, filename, lineno)


def _slice_length(index, n):
    """How many entries the slice `index` takes of a sequence of `n`."""
    return len(range(*index.indices(n)))


def snapshot(x):
    """A copy of `x` that in-place changes to `x` do not reach: arrays are copied, and
    lists, tuples and dicts are rebuilt around copies of their entries."""
    kind = type(x)
    if kind is _ndarray:
        return x.copy(order="K")  # the layout kept: order="A" and "K" read it
    if is_sequence(kind):
        return sequence_like(x, [snapshot(item) for item in x])
    if kind is dict:
        return {key: snapshot(value) for key, value in x.items()}
    return x


def is_view_of(item, container):
    """Whether `item`, read as `container[index]`, is a view into the array `container` (a
    row, a slice) rather than a value of its own (an element, a fancy-indexed copy, a list
    entry). `v[0], v[2] = v[2], v[0]` swaps the elements of a vector, while for rows the
    second write copies back the row the first one wrote: NumPy reads a view when it writes."""
    return isinstance(item, _ndarray) and isinstance(container, _ndarray) and np.may_share_memory(item, container)


def refuse_shared(a, b, message, filename=None, lineno=None):
    """Raise `NotDifferentiableError(message)`, located at line `lineno` of the user's
    `filename` (as every check here), if an augmented assignment to `a` would
    change `b` too: `a` an array sharing memory with `b`, or a list that is `b` (`+=` and
    `*=` extend a list in place), or either of them held in the list, tuple or dict `b`
    (`r = rows[0]; r += ...`), at any depth."""
    if (type(a) is _ndarray or type(a) is list) and _holds(b, a):
        raise raised_at(message, filename, lineno)


def has_key(d, key):
    """`key in d` for `v = d.get(key, default)`, which srcgrad differentiates as `v = d[key]`
    where the key is there and `v = default` where it is not; a `TypeError` unless `d` is
    a dict (another object's `.get` may mean something else)."""
    if not isinstance(d, dict):
        raise TypeError(f"srcgrad differentiates `.get(key, default)` of a dict only, not of a {type(d).__name__}")
    return key in d


def zip_strict(*lengths):
    """Raise the `ValueError` that `zip(..., strict=True)` raises when a loop over sequences
    of `lengths` runs to its end and they differ (CPython's message: the first argument
    found exhausted, then the first found not); nothing where they agree. A loop over
    such a zip read by index calls it where the loop ends without `break`."""
    shortest = min(lengths)
    first = lengths.index(shortest)
    if first > 0:
        k, how = first + 1, "shorter"
    else:
        longer = [k for k, n in enumerate(lengths) if n > shortest]
        if not longer:
            return
        k, how = longer[0] + 1, "longer"
    raise ValueError(f"zip() argument {k} is {how} than argument{' ' if k == 2 else 's 1-'}{1 if k == 2 else k - 1}")


def islice_bounds(start, stop, step):
    """The `slice` that reads what `itertools.islice(x, start, stop, step)` yields of a
    list, tuple or array `x`; `islice`'s own `ValueError` for bounds it refuses."""
    itertools.islice((), start, stop, step)  # checks the bounds as islice does
    return slice(start, stop, step)


def dict_keys(d):
    """`list(d)`: the keys of the dict `d` in order, for a loop over `d.items()` or
    `d.values()` read by index. Registered non-differentiable: a key never carries a
    derivative, even where the dict holds differentiated values."""
    return list(d)


_INDEX_MAKERS = {
    "combinations": itertools.combinations, "combinations_with_replacement": itertools.combinations_with_replacement,
    "permutations": itertools.permutations,
}


def index_tuples(how, r, *sequences):
    """The tuples of positions that `itertools.<how>(*sequences, r)` (`how` "combinations",
    "combinations_with_replacement", "permutations"; "product" without `r`) makes of the
    positions of `sequences`, or `np.ndenumerate` ("ndenumerate") of the array's indices,
    in the same order: the loop `for item in combinations(x, 2)` reads
    `item = (x[t[0]], x[t[1]])` for each `t`. Registered non-differentiable (positions).

    >>> index_tuples("combinations", 2, [5.0, 6.0, 7.0])
    [(0, 1), (0, 2), (1, 2)]
    """
    if how == "ndenumerate":
        return list(np.ndindex(np.shape(sequences[0])))
    if how == "product":
        return list(itertools.product(*[range(len(q)) for q in sequences]))
    return list(_INDEX_MAKERS[how](range(len(sequences[0])), r))


def order_by(how, positions, keys, reverse=False, **default):
    """`sorted(positions, key=...)` (`how` "sorted"; "min", "max" with their `default=`)
    where the key of the j-th entry of `positions` is `keys[j]`: the same entries in the
    same order (the sort is stable; min and max give the first of equal keys). Registered
    non-differentiable: positions carry no derivative.

    >>> order_by("sorted", range(3), [0.5, -1.0, 0.25])
    [1, 2, 0]
    """
    pairs = list(zip(positions, keys))
    if how == "sorted":
        return [p for p, _ in sorted(pairs, key=_second, reverse=reverse)]
    if not pairs and default:
        return default["default"]
    return (min if how == "min" else max)(pairs, key=_second)[0]


def _second(pair):
    return pair[1]


def _holds(b, a):
    """Whether `b` is, shares memory with or contains the array or list `a`."""
    if b is a:
        return True
    kind = type(b)
    if kind is _ndarray:
        return type(a) is _ndarray and np.shares_memory(a, b)
    if kind is dict or isinstance(b, _CONTAINERS):
        return any(_holds(entry, a) for entry in (b.values() if kind is dict else b))
    return False


ABSENT = object()  # a dict key that did not exist before a write


def dict_entry(d, key):
    """The entry `d[key]` as a write would overwrite it (a marker when the key is absent)."""
    return snapshot(d[key]) if key in d else ABSENT


def restore_entry(d, key, entry):
    """Undo a write `d[key] = ...` given what `dict_entry` saved before it."""
    if entry is ABSENT:
        del d[key]
    else:
        d[key] = entry
