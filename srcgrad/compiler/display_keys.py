"""The entries a dict display keeps: Python evaluates every key and value in order and
keeps, for keys that are equal, the last value in the place of the first key.

    {"a": u, "b": v, "a": w}   ->  {"a": w, "b": v}
    {1: u, 1.0: v, True: w}    ->  {1: w}
    {k: u, "a": v}             ->  None: k may be "a" when it runs

`kept(keys)` answers from the keys' literals alone (constants, tuples of constants), and
None where a key is anything else (anf.py then writes the display entry by entry, as
Python does).
"""

import gast

_NOT_LITERAL = object()


def kept(keys):
    """[(position of the key kept, position of its value)] for the display's keys (atoms,
    none of them a `**` entry), in order; None where a key is not a literal."""
    literal = [_literal(k) for k in keys]
    if any(v is _NOT_LITERAL for v in literal):
        return None
    first, last = {}, {}
    for k, v in enumerate(literal):
        first.setdefault(v, k)
        last[v] = k
    return [(k, last[literal[k]]) for k in sorted(first.values())]


def _literal(e):
    """The value of the literal `e` (a constant, a tuple of literals), or _NOT_LITERAL."""
    if type(e) is gast.Constant:
        return e.value
    if type(e) is gast.Tuple:
        parts = tuple(_literal(x) for x in e.elts)
        return _NOT_LITERAL if any(p is _NOT_LITERAL for p in parts) else parts
    return _NOT_LITERAL
