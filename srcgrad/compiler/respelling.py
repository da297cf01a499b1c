"""Statements spelled again in place, block by block: the walk row_writes.py and
tuple_writes.py share.

`respell_blocks(node, respell)` visits every statement list under `node` (bodies, `else`
and `finally` blocks, exception handlers and `match` cases), inner blocks before the
statement holding them, and replaces each statement `s` by the statements `respell(s)`
returns (None keeps `s`); each new statement takes `s`'s location. Nested `def`s and
classes are entered only with `into_defs`.
"""

import gast

from . import syntax

_DEFS = (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef)


def respell_blocks(node, respell, into_defs=False):
    for field in ("body", "orelse", "finalbody"):
        block = getattr(node, field, None)
        if not isinstance(block, list):
            continue
        out = []
        for s in block:
            if isinstance(s, _DEFS) and not into_defs:
                out.append(s)
                continue
            respell_blocks(s, respell, into_defs)
            for inner in tuple(getattr(s, "handlers", None) or ()) + tuple(getattr(s, "cases", None) or ()):
                respell_blocks(inner, respell, into_defs)
            spelled = respell(s)
            out += [s] if spelled is None else [syntax.located(r, s) for r in spelled]
        block[:] = out
