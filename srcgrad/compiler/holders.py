"""Which names may hold the object an in-place change changes, and whether an ANF value
surely makes a new object (`fresh_value`), for mutation.py's checks.

`held` finds the names holding the object itself or a view of it (depth 0), a list,
tuple or dict holding one (depth 1), a container of those (2), ... Reading an entry
takes a container one level down; copying one (`rows.copy()`, `rows[:]`, `list(rows)`)
keeps its level, so `P = rows.copy(); A[0] = v; P[0]` is seen to read the changed A.
mutation.py refuses a change whose object such a name reads afterwards; this module
only finds the names. It never changes the tree.
"""

import gast
import numpy as np

from . import syntax, traversal, views
from .calls import COPY_METHODS
from .views import (CARRIERS, CONTAINER_BUILTINS, COPYING_UNLESS_TOLD, ELEMENT_METHODS, FRESH_BUILTINS, MORE_VIEWS,
                    VIEW_ATTRIBUTES, VIEW_FUNCTIONS, VIEW_METHODS)


_DEEPEST = 3  # containers nested deeper than this are not followed


def held(base, assigns, calls, appends, stores, entries_own):
    """{name: depths}: the names whose value may be base's object or a view of it (depth
    0), or a container holding such a value (depth 1), or one holding those (2, ...), in
    the ANF statements whose Name-target assignments are `assigns`; `appends`: (item,
    list) pairs of `list.append(item)`, `stores`: (list, value) pairs of `list[i] = value`.
    An entry of a container of depth d has depth d - 1 (a slice or a shallow copy keeps
    d); an entry of depth 0 is a view where base is an array, and an object of its own
    where base is a list or dict (`entries_own`). `list(A)` of an array holds views of
    its rows. A call srcgrad does not know may return any of its arguments' parts."""
    depths = {base: {0}}

    def entry(d, sliced):
        if d > 0:
            return {d} if sliced else {d - 1}
        return set() if entries_own else {0}

    def of(value):
        if isinstance(value, gast.Name):
            return set(depths.get(value.id, ()))
        if isinstance(value, (gast.Tuple, gast.List, gast.Set)):
            return {d + 1 for e in value.elts for d in of(e) if d < _DEEPEST}
        if isinstance(value, gast.Dict):
            return {d + 1 for e in value.values for d in of(e) if d < _DEEPEST}
        if isinstance(value, gast.Subscript):
            sliced = isinstance(value.slice, gast.Slice)
            return {e for d in of(value.value) for e in entry(d, sliced)}
        if isinstance(value, gast.Attribute):
            return {0} & of(value.value) if value.attr in VIEW_ATTRIBUTES else set()
        if isinstance(value, gast.BinOp):  # `rows + [v]`, `rows * 2` join containers; arrays make new ones
            return {d for side in (value.left, value.right) for d in of(side) if d > 0}
        if not isinstance(value, gast.Call):
            return set()
        callee = calls.get(value)
        given = list(value.args) + [k.value for k in value.keywords]
        if callee is not None and callee.kind == "method":
            receiver = set(depths.get(callee.receiver, ()))
            if callee.path in VIEW_METHODS:
                return {0} & receiver
            if callee.path in ELEMENT_METHODS:
                return {e for d in receiver for e in entry(d, callee.path in ("values", "items", "keys"))}
            if callee.path == "copy":  # an array's copy is new; a list's or dict's holds the same entries
                return {d for d in receiver if d > 0}
            if fresh_value(value, calls):
                return set()
            found = receiver | {d for a in given for d in of(a)}
            return found | {d - 1 for d in found if d > 0}
        obj = getattr(callee, "obj", None)
        if within(obj, CARRIERS) and value.args and not isinstance(value.args[0], gast.Starred):
            given = value.args[:1]
        found = {d for a in given for d in of(a)}
        if not found:
            return set()
        if within(obj, CONTAINER_BUILTINS):  # the entries it is given, wrapped once more by zip and enumerate
            wrapped = found | ({d + 1 for d in found if d < _DEEPEST} if obj in (zip, enumerate) else set())
            return {d for d in wrapped if d > 0} | ({1} if 0 in found and not entries_own else set())
        if is_view_function(obj) or may_return_view(obj, value):  # a view, or a list of views (`np.split`)
            return {0, 1} if 0 in found else set()
        if fresh_value(value, calls):
            return set()
        return found | {d - 1 for d in found if d > 0} | {d + 1 for d in found if d < _DEEPEST}

    grew = True
    while grew:
        grew = False
        found = [(a.targets[0].id, of(a.value)) for a in assigns]
        found += [(holder, {d + 1 for d in of(value) if d < _DEEPEST}) for holder, value in stores]
        found += [(holder, {d + 1 for d in depths.get(item.id, ()) if d < _DEEPEST}) for item, holder in appends]
        for name, more in found:
            if not more <= depths.get(name, set()):
                depths.setdefault(name, set()).update(more)
                grew = True
    return depths


def is_view_function(obj):
    """Whether `obj` is one of VIEW_FUNCTIONS."""
    try:
        return obj in VIEW_FUNCTIONS
    except TypeError:
        return False


def within(obj, table):
    """`obj in table`, False for an unhashable `obj`."""
    try:
        return obj in table
    except TypeError:  # unhashable
        return False


def may_return_view(obj, call):
    """Whether `call` of `obj`, one of the NumPy functions that may return a view of an
    argument besides VIEW_FUNCTIONS (MORE_VIEWS), may: the checks count its result as one."""
    try:
        return obj in MORE_VIEWS and not views.new_result(obj, call)
    except TypeError:
        return False


def fresh_value(value, calls):
    """Whether the simple expression `value` always makes a new object."""
    if isinstance(value, (gast.BinOp, gast.UnaryOp, gast.List, gast.Dict)):
        return True
    if isinstance(value, gast.Call):
        callee = calls.get(value)
        if callee is None or callee.kind == "unresolved":
            return False
        if callee.kind == "method":
            return fresh_method(callee.path, value)
        if callee.kind == "function":
            obj = callee.obj
            if isinstance(getattr(obj, "__self__", None), (np.ndarray, list, dict)):
                # a method of an array or list read from a global or closure (`M.copy()`), resolved to its value
                return fresh_method(getattr(obj, "__name__", None), value)
            if is_view_function(obj) or (may_return_view(obj, value) and not new_here(obj, value)):
                return False
            if within(obj, COPYING_UNLESS_TOLD) and not copies_by_keyword(value):
                return False  # `np.array(x, copy=False)` (or None) returns `x` itself when it can
            module = getattr(obj, "__module__", None) or ""
            return module.startswith("numpy") or obj in (list, dict) or hasattr(obj, "nin") or within(obj, FRESH_BUILTINS)
    return False


def new_here(obj, call):
    """Whether `call` of `obj`, a function of MORE_VIEWS, surely makes a new array or
    a view NumPy will not write through: `np.einsum` of two operands or more, `np.diag`
    (a new matrix, or a read-only view of a diagonal), `np.meshgrid` copying (its default),
    `sliding_window_view` (read-only)."""
    if obj is np.einsum:
        return len(call.args) > 2 and isinstance(call.args[0], gast.Constant) and isinstance(call.args[0].value, str)
    if obj is np.meshgrid:
        return copies_by_keyword(call)
    return obj is np.diag or obj is getattr(np.lib.stride_tricks, "sliding_window_view", None)


# array methods that return a new array (or a NumPy scalar) unless given `out`: the
# position of their `out` parameter, None where they have none
_NEW_ARRAY_METHODS = {
    "repeat": None, "argsort": None, "searchsorted": None, "nonzero": None, "dot": 1, "round": 1, "max": 1,
    "min": 1, "argmax": 1, "argmin": 1, "clip": 2, "cumsum": 2, "cumprod": 2, "take": 2, "compress": 2,
    "sum": 2, "mean": 2, "prod": 2, "std": 2, "var": 2, "trace": 4,
}


def fresh_method(name, call):
    """Whether the array or list method `name`, called as `call`, always makes a new object."""
    if name == "astype":  # `copy=False` returns the array itself when it can
        return copies_by_keyword(call)
    if name in _NEW_ARRAY_METHODS:
        out = _NEW_ARRAY_METHODS[name]
        return (all(k.arg not in ("out", None) for k in call.keywords)
                and (out is None or len(call.args) <= out) and not any(isinstance(a, gast.Starred) for a in call.args))
    return name in COPY_METHODS or name == "tolist"


def copies_by_keyword(call):
    """Whether `call` copies by its `copy=`: the constant True, or no such keyword (nor `**`)."""
    for k in call.keywords:
        if k.arg == "copy":
            return syntax.is_const(k.value) and k.value.value is True
    return not any(k.arg is None for k in call.keywords)


def sharing_both_ways(group, assigns, appends, stores, shares):
    """`group` (names) with every name that may share memory with a member in either
    direction, until nothing more joins: a name assigned a value that `shares(value, name)`
    says may share a named object (`z = y`, `z = y[1:]`, `e = held[0]`, `held = [y, 1.0]`)
    is related to that name; so are a list and an item appended to it (`appends`: (item,
    list) name pairs) and a
    container and a value stored into it (`stores`: (container, value) pairs).

    For a change of an array that nothing differentiated flows into: its undo must be
    kept wherever the backward pass reads any name of that memory, also the one the
    changed name was taken from (`z = y; z[1] = v` after `c * y` saved y)."""
    edges = [(a.targets[0].id, n) for a in assigns for n in traversal.names_read(a.value) if shares(a.value, n)]
    edges += [(holder, item) for item, holder in appends]
    edges += [(holder, value.id) for holder, value in stores if isinstance(value, gast.Name)]
    return joined(group, edges)


def joined(group, edges):
    """`group` (a set of names) with every name an edge (a pair of names) joins to a
    member, until nothing more joins: the connected names."""
    group = set(group)
    grew = True
    while grew:
        grew = False
        for one, other in edges:
            if (one in group) != (other in group):
                group |= {one, other}
                grew = True
    return group
