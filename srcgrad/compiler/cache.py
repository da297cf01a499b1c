"""Derivatives built so far, per function object and (mode, wrt).

Keyed weakly on the function, so a derivative lives as long as its function; the
function object fixes globals and closure cells, so the bound derivative is reusable.
"""

import weakref

_CACHE = weakref.WeakKeyDictionary()


def get(fn, key):
    return _CACHE.get(fn, {}).get(key)


def put(fn, key, derivative):
    try:
        _CACHE.setdefault(fn, {})[key] = derivative
    except TypeError:  # objects without weak references are simply not cached
        pass
    return derivative


def clear():
    _CACHE.clear()
