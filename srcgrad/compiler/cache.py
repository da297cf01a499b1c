"""Derivatives built so far, per function object and (mode, wrt), and per call signature.

Keyed weakly on the function, so a derivative lives as long as its function; the
function object fixes globals and closure cells, so the bound derivative is reusable.

`specializing` wraps a derivative so that each kind of call (the shapes of the array
arguments, the types of the others) runs code specialized to it, built at its first
call: see `shapes.py` for what specialization removes.
"""

import functools
import weakref

import numpy as np

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
    _CACHE.clear()


SPECIALIZATIONS = 8  # per derivative; further kinds of call run the general code


def signature_shapes(signature):
    """The shape of each argument that a dispatch key describes: None where unknown."""
    return tuple(
        s if type(s) is tuple else () if issubclass(s, (float, int, complex, np.number, np.bool_)) else None
        for s in signature
    )


def specializing(general, build):
    """`general`, dispatching each call to `build(signature)`, built once per signature.

    The signature of a call is, per positional argument, its shape for a NumPy array and
    its type otherwise. Calls with keyword arguments run `general`; so do calls whose
    specialization failed to build, which is then never retried.
    """
    table = {}
    ndarray = np.ndarray

    @functools.wraps(general)
    def dispatch(*args, **kwargs):
        if kwargs:
            return general(*args, **kwargs)
        key = tuple([a.shape if type(a) is ndarray else type(a) for a in args])
        fn = table.get(key)
        if fn is None:
            fn = table[key] = _specialize(general, build, key, len(table))
        return fn(*args)

    dispatch.__srcgrad_specializations__ = table
    return dispatch


def _specialize(general, build, key, count):
    if count >= SPECIALIZATIONS or all(s is None for s in signature_shapes(key)):
        return general
    try:
        return build(key)
    except Exception:  # noqa: BLE001 - specializing only saves time; the general code is correct
        return general
