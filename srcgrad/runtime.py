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
- `same_length(y, index, v, message)`: stop with `message` when `y[index] = v` would
  change the length of the list `y`.
- `refuse_shared(a, b, message)`: stop with `message` when arrays a and b share memory.
- `refuse_changed_entry(entry, message)`: stop with `message` unless the list entry that
  `l[i] op= v` changes is a number.
- `has_key(d, key)`: `key in d` for the dict `d` of `d.get(key, default)`.
- `dict_keys(d)`: the keys of the dict `d`, in order, that a loop over `d.items()` or
  `d.values()` iterates (a constant to every derivative, like the keys themselves).
- `dict_entry(d, key)` / `restore_entry(d, key, entry)`: save a dict entry (or its
  absence) before a write, and put it back (or remove the key) when undoing it.
- `snapshot(x)`: a copy of an array or list that later in-place changes cannot reach.
- `broadcast_tangent(t, x)`: make the tangent `t` a tangent for `x` (x's shape and type).
- `tangent_for_update(t, x)`: a writable tangent of its own for an `x[i] = v` update.
- `unit_tangents(x)`, `jacobian_from_columns(columns, x, out)`: the tangents a forward
  Jacobian pushes, one per element of `x`, and the Jacobian made of the pushed ones
  (`jacobian_from_rows` from pulled-back cotangents), for lists, tuples and dicts too
  (`srcgrad.jacobian`; the generated code computing a Jacobian, to differentiate it
  again, calls the first two).

Invariant: a gradient for a Python float is a Python float; for an array it is an
array of the same shape and dtype; for a NumPy scalar a NumPy scalar of its dtype.
"""

import numbers

import numpy as np

from .errors import NotDifferentiableError

_ndarray = np.ndarray
_float = float
_float64 = np.float64
SEED64 = np.float64(1.0)  # the seed of a NumPy float64 output (see grad_seed)
_ONE64 = SEED64
_float32 = np.float32
_float16 = np.float16
SEED32 = np.float32(1.0)  # the seed of a NumPy float32 output (see grad_seed)
_ONE32 = SEED32
_F64 = np.dtype(np.float64)
_F32 = np.dtype(np.float32)
_F16 = np.dtype(np.float16)
_add_reduce = np.add.reduce
_mean = np.mean


def _is_integral(x):
    return isinstance(x, (bool, np.bool_, numbers.Integral)) or (
        isinstance(x, (np.ndarray, np.generic)) and x.dtype.kind in "biu"
    )


def unbroadcast(g, x):
    """Sum `g` over the axes that broadcasting added to `x`, and cast to x's type.

    >>> unbroadcast(np.ones((2, 3)), np.zeros(3))
    array([2., 2., 2.])
    >>> unbroadcast(np.float64(2.0), 1.0)
    2.0
    """
    tx = type(x)
    tg = type(g)
    if tx is _ndarray:
        if tg is _ndarray and g.shape == x.shape and g.dtype == x.dtype:
            return g
        return _reduce_to(g, x.shape, x.dtype if x.dtype.kind in "fc" else np.float64)
    if tx is _float:
        if tg is _float:
            return g
        if np.iscomplexobj(g):
            raise TypeError(COMPLEX_GRADIENT)
        return _float(np.sum(g)) if np.ndim(g) else _float(g)
    if isinstance(x, np.generic) and x.dtype.kind in "fc":
        if x.dtype.kind == "f" and type(g) is not _float and type(g) is not type(x) and np.iscomplexobj(g):
            raise TypeError(COMPLEX_GRADIENT)
        return x.dtype.type(np.sum(g)) if np.ndim(g) else x.dtype.type(g)
    if isinstance(x, (list, tuple, dict)) and (g is None or isinstance(g, (list, tuple, dict))):
        return structure_like(g, x)  # a container's own gradient: entry by entry
    if isinstance(x, (list, tuple)):
        return _reduce_to(g, np.shape(x), np.result_type(*x, 1.0) if x else np.float64)
    if _is_integral(x) and np.ndim(x) == 0:
        return _float(np.sum(g))
    if np.ndim(x) == 0:
        return _float(np.sum(g)) if isinstance(x, numbers.Real) else g
    return _reduce_to(g, np.shape(x), np.float64)


_JOINED = (
    "the gradient of a {kind} of {n} entries has {m}: the differentiated code joined or repeated "
    "lists or tuples with `+` or `*` where srcgrad could not see that they are lists (they come "
    "from a function's result or an argument) and took the operation for arithmetic; write the "
    "operands as lists in the differentiated function, e.g. `list(a) + list(b)`, so that the "
    "join is differentiated"
)

# what a gradient's way back says where a complex value meets a real argument or array
COMPLEX_GRADIENT = (
    "a complex gradient reached a real argument: a complex value was computed on the "
    "differentiated path, and srcgrad's derivative rules are for real numbers; keep the "
    "computation real (e.g. x.real, np.abs of real parts) or differentiate it by hand"
)


def _reduce_to(g, shape, dtype):
    g = np.asarray(g)
    if g.dtype.kind == "c" and np.dtype(dtype).kind != "c":
        raise TypeError(COMPLEX_GRADIENT)
    if g.shape != shape:
        extra = g.ndim - len(shape)
        if extra > 0:
            g = g.sum(axis=tuple(range(extra)))
        axes = tuple(i for i, n in enumerate(shape) if n == 1 and g.shape[i] != 1)
        if axes:
            g = g.sum(axis=axes, keepdims=True)
        if g.shape != shape:
            g = np.broadcast_to(g, shape)
    return g.astype(dtype, copy=False) if g.dtype != dtype else np.array(g)


def unreduce(g, x, axis=None, keepdims=False):
    """Broadcast the gradient `g` of a reduction of `x` over `axis` back to x's shape.

    >>> unreduce(np.array([1.0, 2.0]), np.zeros((2, 3)), axis=1).tolist()
    [[1.0, 1.0, 1.0], [2.0, 2.0, 2.0]]
    """
    shape = x.shape if type(x) is _ndarray else np.shape(x)
    if axis is not None and not keepdims:
        g = np.expand_dims(g, _normalize_axes(axis, len(shape)))
    return np.broadcast_to(g, shape)


def _normalize_axes(axis, ndim):
    axes = axis if isinstance(axis, tuple) else (axis,)
    return tuple(sorted(a % ndim for a in axes)) if ndim else ()


def grad_seed(out, name):
    """The seed `1` for the output of `grad(name)`; `TypeError` unless `out` is a scalar."""
    if type(out) is _float:
        return 1.0
    if type(out) is _float64:  # what NumPy reductions return
        return _ONE64
    if type(out) is _float32:
        return _ONE32
    if np.ndim(out) != 0 or _is_integral(out) or isinstance(out, (list, tuple, dict)):
        shape = np.shape(out) if not isinstance(out, dict) else type(out).__name__
        raise TypeError(
            f"grad({name}) needs a scalar output, but `{name}` returned a value of "
            f"shape {shape}{'' if np.ndim(out) == 0 else ''}; use srcgrad.vjp for "
            "non-scalar outputs"
        )
    if isinstance(out, (np.ndarray, np.generic)):
        return np.ones((), dtype=out.dtype)[()] if isinstance(out, np.generic) else np.ones((), dtype=out.dtype)
    return 1.0


def mean_of(a):
    """`np.mean(a)` with the same result, bit for bit: for a nonempty ndarray of native
    float64, float32 or float16, the arithmetic of NumPy's `_methods._mean` without its
    Python-level overhead; `np.mean(a)` for anything else.

    NumPy sums (`np.add.reduce` over all axes; in float32 for float16), then divides the
    NumPy scalar sum by the count, an `np.intp`: in float64 (float32 or float16 divided
    by an int64 promotes to float64, in NumPy 1.x and 2 alike), and casts the quotient to
    the array's dtype. A Python float division by the count (a Python int) is the same
    float64 division, and casting its result the same rounding.

    >>> mean_of(np.array([1.0, 2.0, 4.0], dtype=np.float32)).dtype
    dtype('float32')
    """
    if type(a) is _ndarray:
        dtype, n = a.dtype, a.size
        if n:
            if dtype is _F64:
                return _add_reduce(a, None) / n
            if dtype is _F32:
                return _float32(_float(_add_reduce(a, None)) / n)
            if dtype is _F16:
                return _float16(_float(_add_reduce(a, None, _F32)) / n)
    return _mean(a)


def scaled(g, factor, count):
    """`g * factor * ... * factor` (`count` factors) for a power of two `factor` >= 2.

    One multiplication by `factor ** count` where that gives the same result (a float64
    `g`, a Python int `count`, and a product exponent below 1024: no step rounds, and an
    overflow is the same infinity); the loop otherwise.

    >>> scaled(np.array([1.5, -3.0]), 2, 3).tolist()
    [12.0, -24.0]
    """
    if type(count) is int and 0 < count and (type(g) is _float or (type(g) in (_ndarray, _float64) and g.dtype is _F64)):
        exponent = count * (int(factor).bit_length() - 1)
        if exponent < 1024:
            return g * (2.0 ** exponent)
    for _ in range(count):
        g = g * factor
    return g


def zeros_like_grad(x):
    """A zero gradient for `x`: 0.0 for a float, zeros of x's shape and float dtype otherwise."""
    if type(x) is _float:
        return 0.0
    if isinstance(x, (list, tuple, dict)):
        return structure_like(None, x)
    if np.ndim(x) == 0 and not isinstance(x, (np.ndarray, np.generic)):
        return 0.0
    dtype = np.result_type(x)
    return np.zeros(np.shape(x), dtype=dtype if dtype.kind in "fc" else np.float64)[()] if isinstance(
        x, np.generic
    ) else np.zeros(np.shape(x), dtype=dtype if dtype.kind in "fc" else np.float64)


_CONTAINERS = (list, tuple)


def is_sequence(kind):
    """Whether values of the type `kind` are pytree sequences, whose entries are their
    children: lists, tuples and namedtuples (tuples whose class has `_fields`)."""
    return kind is list or kind is tuple or (issubclass(kind, tuple) and hasattr(kind, "_fields"))


def sequence_like(x, entries):
    """`entries` as a sequence of the kind of `x`: a list for a list, x's namedtuple
    class (`type(x)(*entries)`) for a namedtuple, a tuple otherwise."""
    kind = type(x)
    if kind is list or kind is tuple:
        return kind(entries)
    if isinstance(x, tuple) and hasattr(kind, "_fields"):
        return kind(*entries)
    return list(entries) if isinstance(x, list) else tuple(entries)


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
    """The gradient of the namedtuple `x` whose field `name` has the gradient `g` (None
    meaning zero): zeros in its other fields, in x's class."""
    kind = type(x)
    if not (isinstance(x, tuple) and hasattr(kind, "_fields")):
        raise TypeError(
            f"srcgrad differentiates an attribute read (`.{name}`) of a namedtuple only, not of {kind.__name__}: "
            "pass the differentiated values as arguments, or in a namedtuple, dict, list or tuple"
        )
    return kind(*[(zeros_like_grad(v) if g is None else g) if f == name else zeros_like_grad(v)
                  for f, v in zip(kind._fields, x)])


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


def refuse_changed_entry(entry, message):
    """Stop with `message` unless `entry`, the entry of a list that `l[i] op= v` changes, is
    a number: NumPy changes an array entry (and Python a list entry) in place, along with
    every value sharing it; a number is only rebound, as `l[i] = l[i] op v`."""
    if not isinstance(entry, (numbers.Number, np.generic)):
        raise NotDifferentiableError(message)


def same_length(y, index, v, message):
    """Stop with `message` when `y[index] = v` gives a slice of the list `y` another number
    of entries than it holds: reverse mode undoes the write in the same place."""
    if type(y) is list and type(index) is slice and _slice_length(index, len(y)) != len(v):
        raise NotDifferentiableError(message)


def _slice_length(index, n):
    """How many entries the slice `index` takes of a sequence of `n`."""
    return len(range(*index.indices(n)))


def snapshot(x):
    """A copy of `x` that in-place changes to `x` do not reach: arrays are copied, and
    lists, tuples and dicts are rebuilt around copies of their entries."""
    kind = type(x)
    if kind is _ndarray:
        return x.copy()
    if is_sequence(kind):
        return sequence_like(x, [snapshot(item) for item in x])
    if kind is dict:
        return {key: snapshot(value) for key, value in x.items()}
    return x


def structure_like(g, x):
    """The gradient `g` in the container structure of `x` (lists, tuples, namedtuples,
    dicts; leaves by `unbroadcast`). Entries without a gradient get zeros.

    >>> structure_like(np.array([1.0, 2.0]), [3.0, 4.0])
    [1.0, 2.0]
    """
    kind = type(x)
    if is_sequence(kind):
        if g is None:
            return sequence_like(x, [structure_like(None, item) for item in x])
        if type(g) is dict:
            raise TypeError("the gradient of a list or tuple cannot be a dict")
        if len(g) != len(x):
            raise NotDifferentiableError(_JOINED.format(kind=kind.__name__, n=len(x), m=len(g)))
        return sequence_like(x, [structure_like(gi, xi) for gi, xi in zip(g, x)])
    if kind is dict:
        if g is None:
            return {k: structure_like(None, v) for k, v in x.items()}
        return {k: structure_like(g.get(k) if type(g) is dict else g[k], v) for k, v in x.items()}
    if g is None:
        return zeros_like_grad(x)
    return unbroadcast(g, x)


def broadcast_tangent(t, x):
    """The tangent `t` spread to the shape of `x` and given its type (forward mode).

    A rule's tangent is smaller than its output when a constant operand broadcast it.

    >>> broadcast_tangent(np.ones(3), np.zeros((2, 3))).shape
    (2, 3)
    >>> broadcast_tangent(np.float64(2.0), 1.0)
    2.0
    """
    if type(x) is _float:
        return t if type(t) is _float else _float(t)
    if type(t) is _ndarray and type(x) is _ndarray and t.shape == x.shape:
        return t
    if isinstance(x, (list, tuple, dict)) or t is None:
        return structure_like(t, x)
    shape = np.shape(x)
    if np.shape(t) != shape:
        t = np.broadcast_to(t, shape)
    if isinstance(x, np.generic):
        return x.dtype.type(t) if x.dtype.kind in "fc" else np.float64(t)
    return t


def tangent_for_update(t, x):
    """A copy of the tangent `t` that an in-place update `x[i] = v` may write into."""
    if type(x) is list:
        return list(t) if isinstance(t, (list, tuple)) else [zeros_like_grad(v) for v in x]
    if type(x) is dict:
        return dict(t) if type(t) is dict else {k: zeros_like_grad(v) for k, v in x.items()}
    dtype = np.result_type(t)
    return np.array(np.broadcast_to(t, np.shape(x)), dtype=dtype if dtype.kind in "fc" else np.float64)


def refuse_shared(a, b, message):
    """Raise `NotDifferentiableError(message)` if an augmented assignment to `a` would
    change `b` too: `a` an array sharing memory with `b`, or a list that is `b` (`+=` and
    `*=` extend a list in place), or either of them held in the list, tuple or dict `b`
    (`r = rows[0]; r += ...`), at any depth."""
    if (type(a) is _ndarray or type(a) is list) and _holds(b, a):
        raise NotDifferentiableError(message)


def has_key(d, key):
    """`key in d` for `v = d.get(key, default)`, which srcgrad differentiates as `v = d[key]`
    where the key is there and `v = default` where it is not; a `TypeError` unless `d` is
    a dict (another object's `.get` may mean something else)."""
    if not isinstance(d, dict):
        raise TypeError(f"srcgrad differentiates `.get(key, default)` of a dict only, not of a {type(d).__name__}")
    return key in d


def dict_keys(d):
    """`list(d)`: the keys of the dict `d` in order, for a loop over `d.items()` or
    `d.values()` read by index. Registered non-differentiable: a key never carries a
    derivative, even where the dict holds differentiated values."""
    return list(d)


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


_ABSENT = object()  # a dict key that did not exist before a write


def dict_entry(d, key):
    """The entry `d[key]` as a write would overwrite it (a marker when the key is absent)."""
    return snapshot(d[key]) if key in d else _ABSENT


def restore_entry(d, key, entry):
    """Undo a write `d[key] = ...` given what `dict_entry` saved before it."""
    if entry is _ABSENT:
        del d[key]
    else:
        d[key] = entry


# --- Jacobians of lists, tuples and dicts of arrays and floats (pytrees) -------------


def leaves(x):
    """The leaves of `x` in order: its entries, through lists, tuples, namedtuples and
    dicts (in their own order), that are none of these.

    >>> leaves({"a": [1.0, 2.0], "b": 3.0})
    [1.0, 2.0, 3.0]
    """
    kind = type(x)
    if is_sequence(kind):
        return [leaf for item in x for leaf in leaves(item)]
    if kind is dict:
        return [leaf for item in x.values() for leaf in leaves(item)]
    return [x]


def _rebuilt(x, parts):
    """`x`'s structure with its leaves replaced by the next ones of the iterator `parts`."""
    kind = type(x)
    if is_sequence(kind):
        return sequence_like(x, [_rebuilt(item, parts) for item in x])
    if kind is dict:
        return {key: _rebuilt(item, parts) for key, item in x.items()}
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


def jacobian_from_columns(columns, x, out):
    """The Jacobian of `out` with respect to `x` given `columns`, the tangents of `out`
    for `unit_tangents(x)` in order: `out`'s structure of `x`'s structure, each leaf of
    shape `out_leaf.shape + x_leaf.shape` (a float where both leaves are floats)."""
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
            dtype = np.result_type(np.asarray(o).dtype, np.asarray(leaf).dtype, np.float32)
            block = np.zeros(np.shape(o) + np.shape(leaf), dtype=dtype if dtype.kind in "fc" else np.float64)
            if by_columns:
                for index, column in zip(np.ndindex(np.shape(leaf)), parts(i, x_starts[j], np.size(leaf))):
                    block[(Ellipsis,) + index] = column
            else:
                for index, r in zip(np.ndindex(np.shape(o)), parts(j, out_starts[i], np.size(o))):
                    block[index] = r
            row.append(float(block) if isinstance(o, _float) and isinstance(leaf, _float) else block)
        blocks.append(_rebuilt(x, iter(row)))
    return _rebuilt(out, iter(blocks))

