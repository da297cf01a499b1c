"""Derivatives built so far, per function object and (mode, wrt), and per call signature.

Keyed weakly on the function, so a derivative lives as long as its function; the
function object fixes globals and closure cells, so the bound derivative is reusable.
Nothing in a derivative refers back to its function (its units hold the function's
id, its line tables a Program without it, a later build a weak reference), or the
entry would keep its own key alive. The one exception is the user's: a nested
function that calls itself holds itself in a closure cell, which the generated code
shares.

`specializing` wraps a derivative so that each kind of call (the shapes of the array
arguments, the types of the others) runs code specialized to it, built at its first
call: see `unbroadcasts.py` for what specialization removes.
"""

import functools
import weakref

import numpy as np

from ..runtime import field_values, is_sequence
from ..runtime.records import Field, is_dataclass_kind
from .entries import ArrayKind, TreeKind

_CACHE = weakref.WeakKeyDictionary()


def get(fn, key):
    try:
        return _CACHE.get(fn, {}).get(key)
    except TypeError:  # no weak reference (a ufunc, a builtin): never cached, see put()
        return None


def put(fn, key, derivative):
    try:
        _CACHE.setdefault(fn, {})[key] = derivative
    except TypeError:  # objects without weak references are simply not cached
        pass
    return derivative


def clear():
    """Forget every derivative, and what the transforms keep of them per function
    (`kept_with_cache`)."""
    _CACHE.clear()
    for kept in _KEPT:
        kept.clear()


def kept_with_cache(mapping):
    """`mapping` (of functions to derivatives found for them), emptied with the cache."""
    _KEPT.append(mapping)
    return mapping


_KEPT = []  # the mappings kept_with_cache registered


SPECIALIZATIONS = 8  # per derivative; further kinds of call run the general code


def types_in_key(value, keys):
    """Whether the dispatch key of `value` (`describe`) holds the types of its entries at
    `keys` (api.check_arguments: a check reading only those types is made once per key):
    within the key's depth, each container on the way of at most its number of entries."""
    if len(keys) >= _MAX_DEPTH:
        return False
    for key in keys:
        kind = type(value)
        if key is ... and not is_sequence(kind):
            return True  # no entries read (api._entries): an array `x` of `x[t]`, its type in the key
        if not (kind is dict or is_sequence(kind) or is_dataclass_kind(kind)):
            return False
        if len(value if kind is dict or is_sequence(kind) else field_values(value)) > _MAX_ENTRIES:
            return False
        if key is ...:
            return all(types_in_key(v, keys[1:]) for v in value) if is_sequence(kind) else False
        try:
            value = getattr(value, key.name) if type(key) is Field else value[key]
        except (LookupError, TypeError, AttributeError):
            return True  # not there: nothing is read
    return True


def describe(value, depth=0):
    """The dispatch key of `value`, not a NumPy array: a TreeKind for a container, its
    type otherwise (see `signature_of`). A loop, not a comprehension: this runs at every
    call with a container argument (about 0.6 us for a dict of 4 arrays)."""
    kind = type(value)
    how = _CONTAINERS.get(kind)
    if how is None:
        how = _CONTAINERS[kind] = _DICT if kind is dict else _SEQUENCE if is_sequence(kind) else (
            _RECORD if is_dataclass_kind(kind) else _LEAF)
    if how is _LEAF or depth >= _MAX_DEPTH:
        return kind
    values = value.values() if how is _DICT else field_values(value) if how is _RECORD else value
    if len(values) > _MAX_ENTRIES:
        return kind
    entries = []
    add = entries.append
    for v in values:
        t = type(v)
        if t is _ndarray:
            add(v.shape if v.dtype is _FLOAT64 else ArrayKind(v.shape, v.dtype))
        elif t in _LEAVES:
            add(t)
        else:
            add(describe(v, depth + 1))
    return TreeKind((kind, tuple(value) if how is _DICT else None, tuple(entries)))


_ndarray = np.ndarray
_DICT, _SEQUENCE, _RECORD, _LEAF = "dict", "sequence", "record", "leaf"
_CONTAINERS = {}  # type -> which of these its values are
_MAX_DEPTH = 4
_MAX_ENTRIES = 64
_LEAVES = frozenset({float, int, bool, complex, str, type(None), np.float64, np.float32, np.float16, np.int64})


def complete(kind):
    """Whether the dispatch key `kind` of one argument tells every leaf's type (and an
    array's dtype): not a container cut at `_MAX_DEPTH` or `_MAX_ENTRIES`."""
    if type(kind) is TreeKind:
        return all(complete(entry) for entry in kind[2])
    return type(kind) is not type or _CONTAINERS.get(kind, _LEAF) is _LEAF


def signature_of(args):
    """The dispatch key of a call with the positional arguments `args` (see `specializing`)."""
    return tuple([
        (a.shape if a.dtype is _FLOAT64 else ArrayKind(a.shape, a.dtype)) if type(a) is np.ndarray
        else type(a) if type(a) in _LEAVES else describe(a)
        for a in args
    ])


def signature_shapes(signature):
    """The shape of each argument that a dispatch key describes: None where unknown (a
    container: see entries.py)."""
    return tuple(
        s if type(s) is tuple else s[0] if type(s) is ArrayKind
        else None if type(s) is TreeKind else () if issubclass(s, (float, int, complex, np.number, np.bool_)) else None
        for s in signature
    )


def signature_types(signature):
    """What each argument of a dispatch key is: a dtype for an array, else its type."""
    return tuple(
        _FLOAT64 if type(s) is tuple else s[1] if type(s) is ArrayKind else s[0] if type(s) is TreeKind else s
        for s in signature
    )


_FLOAT64 = np.dtype(np.float64)


def specializing(general, build, name, arity):
    """A dispatcher named `name` that sends each call to `build(signature)`, built once
    per signature, or to the general code `general()` (built at its first call: most
    derivatives never need it), which takes `arity` positional parameters (None: any
    number).

    The signature of a call is, per positional argument, its shape for a float64 NumPy
    array, `ArrayKind(shape, dtype)` for another array, a `TreeKind` for a dict, list,
    tuple, namedtuple or dataclass instance (its keys and each entry's key, recursively:
    `describe`), and its type otherwise. Calls
    with keyword arguments run the general code; so do calls whose specialization failed
    to build, which is then never retried.

    `dispatch.__srcgrad_guarded__(check)` is another dispatcher over the same
    specializations that calls `check(args, kwargs)` before the first call of each
    signature it sees and before every call with keyword arguments: checks that depend
    only on the signature (argument types) thus run once per signature. A check that
    returns True runs again at the next call of that signature (what it checked is more
    than the signature tells: the leaves of a dict argument). Given `owner=(fn, other)`,
    every call made after `fn.__code__` was replaced goes to `other` instead (which
    builds the derivative of the new code).
    `dispatch.__srcgrad_general__()` is the general code (see `general_code`);
    `dispatch.__srcgrad_seen__` maps each signature its calls were checked for to the code
    they run (jvp_repeats.py calls that code directly).
    """
    table = {}

    def specialization(key):
        fn = table.get(key)
        if fn is None:
            fn = table[key] = _specialize(general, build, key, len(table))
        return fn

    return _guarded(general, table, specialization, None, name, arity)


def general_code(fn):
    """The general code behind a dispatcher made by `specializing` (built now if it was
    not yet), where its generated text and line table are; `fn` itself otherwise."""
    general = getattr(fn, "__srcgrad_general__", None)
    return general() if general is not None else fn


def _guarded(general, table, specialization, check, name, arity, owner=None):
    """A dispatcher over the specializations `table` that runs `check` once per signature
    (see `specializing`). Nothing it makes refers back to it, so a derivative is freed
    by reference counting alone, without waiting for a garbage collection."""
    seen = {}
    fn, other = owner if owner is not None else (None, None)
    code = getattr(fn, "__code__", None)

    def slow(args, kwargs):
        if fn is not None and fn.__code__ is not code:
            return other(*args, **kwargs)
        if kwargs:
            if check is not None:
                check(args, kwargs)
            return general()(*args, **kwargs)
        return first(signature_of(args), args)(*args)

    def first(key, args):
        fn = seen.get(key)
        if fn is None:
            if check is not None and check(args, {}):
                return specialization(key)  # not remembered as checked: the next call checks again
            fn = seen[key] = specialization(key)
        return fn

    dispatch = _dispatcher(arity, seen, slow, first, fn, code)
    dispatch.__name__ = dispatch.__qualname__ = name
    dispatch.__srcgrad_specializations__ = table
    dispatch.__srcgrad_seen__ = seen
    dispatch.__srcgrad_general__ = general
    dispatch.__srcgrad_guarded__ = functools.partial(_guarded, general, table, specialization, name=name, arity=arity)
    return dispatch


_MAX_UNROLLED = 16


def _dispatcher(arity, seen, slow, first, owner=None, owner_code=None):
    """The dispatch function: for `arity` positional arguments, its key is computed
    without a loop (the same key as `slow`'s); other calls, and every call once
    `owner.__code__` is no longer `owner_code` (`owner` given), go to `slow(args, kwargs)`."""
    if not arity or arity > _MAX_UNROLLED:
        return lambda *args, **kwargs: slow(args, kwargs)
    key = (arity, owner is not None)
    code = _DISPATCH_CODE.get(key)
    if code is None:
        code = _DISPATCH_CODE[key] = _dispatch_code(*key)
    scope = {**KEY_SCOPE, "seen": seen, "slow": slow, "first": first, "owner": owner, "owner_code": owner_code}
    exec(code, scope)  # noqa: S102 - fixed text, no user input
    return scope.pop("dispatch")  # its globals need not hold it: no reference cycle


KEY_SCOPE = {"ndarray": np.ndarray, "float64": _FLOAT64, "kind": ArrayKind, "leaves": _LEAVES, "describe": describe}
_DISPATCH_CODE = {}  # (arity, owned) -> the compiled module text defining `dispatch` (it depends on nothing else)


def _dispatch_code(arity, owned=False):
    """The compiled module text that defines `dispatch` for `arity` positional arguments
    (`owned`: checking first that `owner.__code__` is `owner_code`)."""
    names = [f"a{i}" for i in range(arity)]
    text = (
        "def dispatch(*args, **kwargs):\n"
        f"    if kwargs{' or owner.__code__ is not owner_code' if owned else ''}:\n"
        "        return slow(args, kwargs)\n"
        "    try:\n"
        f"        {', '.join(names)}, = args\n"
        "    except ValueError:  # another number of arguments\n"
        "        return slow(args, kwargs)\n"
        f"    fn = seen.get({key_text(names)})\n"
        "    if fn is None:\n"
        f"        fn = first({key_text(names, '(kind({a}.shape, {a}.dtype))')}, args)\n"
        "    return fn(*args)\n"
    )
    return compile(text, "<srcgrad dispatch>", "exec")


def key_text(names, array_kind="({a}.shape, {a}.dtype)"):
    """The text of an expression making the dispatch key (`signature_of`) of the values
    named `names`, for code compiled with `KEY_SCOPE`'s names in its globals. By default
    a plain tuple stands for an ArrayKind: it equals the ArrayKind and hashes as it does,
    and is cheaper to make (a lookup's key); the key a specialization is built from is
    the ArrayKind (`array_kind` then spells it)."""
    return "(" + "".join(
        f"({a}.shape if {a}.dtype is float64 else {array_kind.format(a=a)}) if type({a}) is ndarray "
        f"else type({a}) if type({a}) in leaves else describe({a}), "
        for a in names
    ) + ")"


def _specialize(general, build, key, count):
    if count >= SPECIALIZATIONS or all(
            s is None and type(k) is not TreeKind for s, k in zip(signature_shapes(key), key)):
        return general()
    try:
        return build(key)
    except Exception:  # noqa: BLE001 - specializing only saves time; the general code is correct
        return general()
