"""Gradient and tangent values: a gradient made for its value (`unbroadcast`,
`structure_like`), spread back over a reduction (`unreduce`), the seed of a scalar
output (`grad_seed`), zeros (`zeros_like_grad`), and the tangent counterparts
(`broadcast_tangent`, `tangent_for_update`). See `srcgrad.runtime` for the list.

Invariant: a gradient for a Python float is a Python float; for an array it is an
array of the same shape and dtype; for a NumPy scalar a NumPy scalar of its dtype;
for a list, tuple, namedtuple, dataclass instance or dict the same structure, entry by
entry (a dataclass's gradient is an instance of its class: records.record_like).
"""

import numbers

import numpy as np

from ..errors import NotDifferentiableError
from .records import field_values, is_dataclass_kind, record_like

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
    if is_dataclass_kind(tx):
        return structure_like(g, x)
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
        elif extra < 0:  # a value with leading axes of length 1 assigned into fewer (`y[0:2] = x[None, :2]`)
            g = g.reshape((1,) * -extra + g.shape)
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
    if out is None or isinstance(out, str) or _is_integral(out) or _is_complex(out):
        what = ("None (is a `return` missing?)" if out is None else f"{kind_name(out)} ({out!r})" if np.ndim(out) == 0
                else f"an array of {out.dtype}")
        raise TypeError(
            f"grad({name}) needs a real floating-point scalar output, but `{name}` returned {what}, which has no "
            "gradient" + ("; srcgrad's rules are for real numbers" if _is_complex(out) else "")
        )
    if isinstance(out, (list, tuple, dict)) or is_dataclass_kind(type(out)):
        what = (f"a {type(out).__name__} of {len(out)} values" if isinstance(out, (list, tuple, dict))
                else f"a {type(out).__name__}")
        raise TypeError(
            f"grad({name}) needs a scalar output, but `{name}` returned {what}; use srcgrad.vjp for non-scalar "
            "outputs, or, to keep other values it returns, differentiate a function that returns the scalar alone"
        )
    if np.ndim(out) != 0:
        raise TypeError(
            f"grad({name}) needs a scalar output, but `{name}` returned a value of "
            f"shape {np.shape(out)}; use srcgrad.vjp for non-scalar outputs"
        )
    if isinstance(out, (np.ndarray, np.generic)):
        return np.ones((), dtype=out.dtype)[()] if isinstance(out, np.generic) else np.ones((), dtype=out.dtype)
    return 1.0


def _is_complex(x):
    return isinstance(x, complex) or (isinstance(x, (np.ndarray, np.generic)) and x.dtype.kind == "c")


def kind_name(x):
    """How a message names the kind of `x`: an array or NumPy scalar by its dtype (`bool`,
    not NumPy 1's `bool_`; `complex128`), anything else by its type (`int`)."""
    return x.dtype.name if isinstance(x, (np.ndarray, np.generic)) else type(x).__name__


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
    if isinstance(x, (list, tuple, dict)) or is_dataclass_kind(type(x)):
        return structure_like(None, x)
    if np.ndim(x) == 0 and not isinstance(x, (np.ndarray, np.generic)):
        return 0.0
    if type(x) is np.flatiter:  # `x.flat`, read like np.ravel(x)
        return zeros_like_grad(np.ravel(x.base))
    dtype = np.result_type(x)
    return np.zeros(np.shape(x), dtype=dtype if dtype.kind in "fc" else np.float64)[()] if isinstance(
        x, np.generic
    ) else np.zeros(np.shape(x), dtype=dtype if dtype.kind in "fc" else np.float64)


def unless_integral(value, like):
    """`value`, or a zero of its structure where `like` holds integers or booleans: the adjoint
    or tangent of a value rounded to them (`np.sum(x, dtype=int)`, `y[i] = v` into an
    integer array `like`), since rounding has no derivative."""
    if isinstance(like, (_ndarray, np.generic)) and like.dtype.kind in "biu":
        return zeros_like_grad(value)
    return value


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


def structure_like(g, x):
    """The gradient `g` in the container structure of `x` (lists, tuples, namedtuples,
    dataclass instances, dicts; leaves by `unbroadcast`). Entries without a gradient get
    zeros.

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
    if is_dataclass_kind(kind):
        if g is None:
            return record_like(x, [structure_like(None, item) for item in field_values(x)])
        if type(g) is not kind:
            raise TypeError(f"the gradient of a {kind.__name__} must be a {kind.__name__}, not {type(g).__name__}")
        return record_like(x, [structure_like(gi, xi) for gi, xi in zip(field_values(g), field_values(x))])
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
    if isinstance(x, (list, tuple, dict)) or t is None or is_dataclass_kind(type(x)):
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


def owned_gradient(value):
    """`value` as a derivative returns it: an array the caller may change in place (a
    read-only broadcast, as the gradient of `np.sum(x)` is made, is copied); in a list,
    tuple or dict, each array so. Anything else as it is."""
    kind = type(value)
    if kind is _float or kind is _ndarray and value.base is None:  # owns its memory (the usual case): writable
        return value
    if kind is dict and _apart(value.values()):  # a dict of parameters, each gradient its own array
        return value
    return _owned(value, set())


def owned_gradients(*values):
    """The tuple of gradients a derivative returns, each as `owned_gradient` gives it and
    sharing memory with no other: the gradients of `a` and `b` in `np.sin(a + b)` are one
    array inside the derivative, and the caller's `g_a *= lr` would change `g_b` too."""
    if len(values) == 2:  # the usual case: two arrays, each owning its memory, or numbers
        a, b = values
        ka, kb = type(a), type(b)
        if ((ka is _float or ka is _ndarray and a.base is None) and (kb is _float or kb is _ndarray and b.base is None)
                and a is not b):
            return values
    elif len(values) == 1:
        return (owned_gradient(values[0]),)
    elif _apart(values):
        return values
    seen = set()  # the ids of the arrays returned so far and of the arrays they view
    return tuple([_owned(g, seen) for g in values])


def _apart(arrays):
    """Whether `arrays` are arrays that each own their memory, no one twice."""
    for g in arrays:
        if type(g) is not _ndarray or g.base is not None:
            return False
    return len(set(map(id, arrays))) == len(arrays)


def _owned(g, seen):
    kind = type(g)
    if kind is _ndarray:
        base = g.base
        if id(g) in seen or (base is not None and (id(base) in seen or not g.flags.writeable)):
            g = g.copy()
            base = None
        seen.add(id(g))
        if base is not None:
            seen.add(id(base))
        return g
    if kind is dict or is_sequence(kind):
        items = list(g.values()) if kind is dict else list(g)
        owned = [_owned(v, seen) for v in items]
        if all(a is b for a, b in zip(owned, items)):
            return g
        if kind is dict:
            return dict(zip(g.keys(), owned))
        return sequence_like(g, owned)
    return g
