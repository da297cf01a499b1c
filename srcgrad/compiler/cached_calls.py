"""Calls of a function memoized by `functools.lru_cache` or `functools.cache` made calls
of the function it wraps, which srcgrad follows as any other user function.

Before (user code):                After:
    @functools.lru_cache               (the same)
    def area(r): return r * r * 3.14

    def f(a):                          def f(a):
        return area(a) + area(2 * a)       return area.__wrapped__(a) + area.__wrapped__(2 * a)

The cache returns what the function returned for equal arguments, so the function
itself computes the same value, and its derivative is the function's. Only a call by a
name the function does not bind (`area`), a global or a closure variable, of a cache
wrapping a Python function is respelled. Runs on the parse, after einsum_sublists.py; returns a new tree
when it rewrites anything, the same tree otherwise.
"""

import functools
import types

import gast

from . import syntax, traversal
from .scope import dotted_parts, lookup_path

_CACHE = type(functools.lru_cache(maxsize=None)(lambda: None))  # functools.cache's type too


def run(program):
    tree = program.tree
    if not _any_cache(program):
        return tree
    stored = set(traversal.names_stored(tree)) | {a.id for a in tree.args.args}
    if not any(type(n) is gast.Call and _cached(n, program, stored) for n in traversal.nodes(tree)):
        return tree
    tree = syntax.copy(tree)
    traversal.rewrite(tree, {gast.Call: lambda call: _respelled(call, program, stored)})
    return tree


def _any_cache(program):
    """Whether a global or a closure cell of the function holds such a cache (the only
    places a call by name finds one)."""
    if any(type(v) is _CACHE for v in program.globals.values()):
        return True
    for cell in program.cells.values():
        try:
            if type(cell.cell_contents) is _CACHE:
                return True
        except ValueError:  # an empty cell
            continue
    return False


def _cached(call, program, stored):
    """Whether `call` calls, by a name the function does not bind, a cache of a Python function."""
    parts = dotted_parts(call.func)
    if parts is None or len(parts) != 1 or parts[0] in stored:
        return False
    fn = lookup_path(parts, program)
    return type(fn) is _CACHE and isinstance(getattr(fn, "__wrapped__", None), types.FunctionType)


def _respelled(call, program, stored):
    if _cached(call, program, stored):
        call.func = syntax.located(syntax.attr(call.func, "__wrapped__"), call.func)
    return call
