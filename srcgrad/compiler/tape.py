"""Keep the saves that the backward pass needs, and write them as tape pushes and pops.

Before:  _Save(h) / _Restore(h) markers around every overwrite in loops and branches.
After:   tape.append(h)  ...  h = tape.pop()   for each `h` the backward pass reads;
         the other markers vanish. Variables pushed before their first assignment
         start as None; `tape = []` opens the forward pass when anything is pushed.
"""

import dataclasses

import gast

from . import syntax


def _walk(stmts):
    for s in stmts:
        if dataclasses.is_dataclass(s):
            yield s
            for f in dataclasses.fields(s):
                v = getattr(s, f.name)
                if isinstance(v, list):
                    yield from _walk(v)
                elif isinstance(v, gast.AST):
                    yield from gast.walk(v)
        else:
            yield from gast.walk(s)
            if isinstance(s, (gast.If, gast.For, gast.While)):
                yield from _walk(s.body)
                yield from _walk(s.orelse)


def run(forward, backward, none_init, namer):
    """Lower the markers. Returns (forward, backward, prelude, restored names).

    `none_init` are the names that may be pushed before they have a value.
    """
    read = {n.id for n in _walk(backward) if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load)}
    restores = [s for s in _walk(backward) if type(s).__name__ == "_Restore"]
    kept = {r.key for r in restores if r.name in read}
    saves = [s for s in _walk(forward) if type(s).__name__ == "_Save" and s.key in kept]
    tape = namer.fresh("tape") if kept else None
    prelude = [syntax.assign(tape, syntax.list_([]))] if tape else []
    for name in sorted({s.name for s in saves if not s.record} & set(none_init)):
        prelude.append(syntax.assign(name, syntax.const(None)))
    restored = {r.name for r in restores if r.key in kept}
    return _lower(forward, kept, tape), _lower(backward, kept, tape), prelude, restored


def _lower(stmts, kept, tape):
    out = []
    for s in stmts:
        kind = type(s).__name__
        if kind == "_Save":
            if s.key in kept:
                push = syntax.call(syntax.attr(syntax.name(tape), "append"), [syntax.name(s.name)])
                out.append(syntax.expr(push))
        elif kind == "_Restore":
            if s.key in kept:
                out.append(syntax.assign(s.name, syntax.call(syntax.attr(syntax.name(tape), "pop"))))
        elif isinstance(s, (gast.If, gast.For, gast.While)):
            s.body = _lower(s.body, kept, tape) or [syntax.pass_()]
            s.orelse = _lower(s.orelse, kept, tape)
            out.append(s)
        else:
            out.append(s)
    return out
