"""What a pullback of `srcgrad.vjp` undoes of its forward pass, to put back when it returns.

The backward pass undoes the forward pass's in-place changes (`y[1] = tape.pop()`,
`ys.pop()`) on the forward pass's own objects, so that each backward statement reads
them as the forward pass saw them. A pullback records what each undo overwrites first
(`undone.entry(y, 1)`), and `redo` puts it back, latest first.

Invariant: when a pullback returns (or raises), every object of its forward pass is as
the forward pass left it, so it may be called again with the same result, and the
caller sees no change. Recording costs a copy of the part each undo overwrites.
"""

import numpy as np

_ABSENT = object()  # a dict key that the undo adds


class Undone:
    __slots__ = ("_changes",)

    def __init__(self):
        self._changes = []  # (put back, object, key, value), in the order undone

    def entry(self, obj, key):
        """Before `obj[key] = ...` (`restore_entry(obj, key, ...)` of a dict) undoes a write."""
        value = obj.get(key, _ABSENT) if type(obj) is dict else obj[key]
        if isinstance(value, np.ndarray) and isinstance(obj, np.ndarray):  # a view of obj's memory
            value = value.copy()
        self._changes.append((_put, obj, key, value))

    def last(self, ys):
        """Before `ys.pop()` undoes `ys.append(v)`."""
        self._changes.append((_append, ys, None, ys[-1]))

    def gap(self, ys, at):
        """Before `ys.insert(...)` (or `ys.append(v)`) undoes `v = ys.pop(at)`."""
        self._changes.append((_pop, ys, at, None))

    def redo(self):
        """Put back every recorded change, the latest first."""
        changes = self._changes
        while changes:
            put, obj, key, value = changes.pop()
            put(obj, key, value)


def _put(obj, key, value):
    if value is _ABSENT:
        del obj[key]
    else:
        obj[key] = value


def _append(ys, key, value):
    ys.append(value)


def _pop(ys, at, value):
    ys.pop(at)
