"""Keep the saves that the backward pass needs, and write them as tape pushes and pops.

Before:  _Save(h) / _Restore(h) markers around every overwrite in loops and branches.
After:   tape.append(h)  ...  h = tape.pop()   for each `h` the backward pass reads;
         the other markers vanish. An in-place change (`y[i] = v`, `ys.append(v)`) is
         undone in the backward pass (`y[i] = tape.pop()`, `ys.pop()`) when the backward
         pass reads any name that may share the changed memory. Variables pushed before their first assignment
         start as None; `tape = []` opens the forward pass when anything is pushed.
         A backward `if` whose branches lower to nothing goes first, so its condition
         is not pushed and popped for nothing.
         For a pullback that may be called again (`split`), each undo is recorded
         first (`undone.entry(y, i)`, undone.py), so that the pullback can redo it.
"""

import dataclasses

import gast

from ..undone import Undone
from . import syntax, traversal
from .unbroadcasts import drop_unbroadcasts


def _markers(stmts, out):
    """Append to `out` the markers (dataclasses) among `stmts`, in their blocks and groups too."""
    for s in stmts:
        kind, fields = _CLASSES.get(type(s)) or _classify(s)
        if kind is _MARKER:
            out.append(s)
            for field in fields:
                v = getattr(s, field)
                if isinstance(v, list):
                    _markers(v, out)
        elif kind is _BLOCK:
            _markers(s.body, out)
            _markers(s.orelse, out)
    return out


def _loads(stmts, names, skip=None, markers=None):
    """Add to `names` the names loaded anywhere in `stmts`, markers' expressions included,
    except inside markers of the class named `skip`; with `markers`, also append to it
    what `_markers(stmts, markers)` would."""
    roots = []
    _roots(stmts, roots, skip, markers)
    return traversal.add_loads(roots, names)


def _roots(stmts, roots, skip, markers):
    """Append to `roots` the nodes of `stmts` whose loads `_loads` counts (a block: its
    header), and to `markers` (unless None) the markers, in `_markers`'s order."""
    for s in stmts:
        kind, fields = _CLASSES.get(type(s)) or _classify(s)
        if kind is _MARKER:
            if markers is not None:
                markers.append(s)
            if type(s).__name__ == skip:
                if markers is not None:
                    for field in fields:
                        v = getattr(s, field)
                        if isinstance(v, list):
                            _markers(v, markers)
                continue
            for field in fields:
                v = getattr(s, field)
                if isinstance(v, list):
                    _roots(v, roots, skip, markers)
                elif isinstance(v, gast.AST):
                    roots.append(v)
        elif kind is _BLOCK:
            if isinstance(s, gast.For):
                roots += (s.target, s.iter)
            else:
                roots.append(s.test)
            _roots(s.body, roots, skip, markers)
            _roots(s.orelse, roots, skip, markers)
        else:
            roots.append(s)


_MARKER, _BLOCK, _SIMPLE = "marker", "block", "simple"
_CLASSES = {}  # statement class -> (which of these its instances are, a marker's fields)


def _classify(s):
    cls = type(s)
    if dataclasses.is_dataclass(s):
        found = (_MARKER, tuple(f.name for f in dataclasses.fields(s)))
    else:
        found = (_BLOCK if isinstance(s, (gast.If, gast.For, gast.While)) else _SIMPLE, ())
    _CLASSES[cls] = found
    return found


def run(forward, backward, none_init, namer, shapes=None, split=False):
    """Lower the markers. Returns (forward, backward, prelude, restored names, as_is).

    `none_init` are the names that may be pushed before they have a value. With
    `shapes` (a `shapes.Signature`: what one kind of call tells of the parameters), the
    `unbroadcast` calls that it proves redundant go first, and with them the saves only
    they needed; `as_is(adjoint, param)` then tells whether a returned gradient needs
    no `unbroadcast` either (None without `shapes`). With `split`, the backward
    statements start with `undone = Undone()` when they undo anything.
    """
    as_is = None
    if shapes is not None:
        as_is = drop_unbroadcasts(forward, backward, shapes, none_init, namer)
    forward_markers = _markers(forward, [])
    while True:
        kept, undos, restores = _needed(backward)
        dropped = []
        backward = _without_idle_branches(backward, kept, dropped)
        if not dropped:
            break
    saves = [s for s in forward_markers if type(s).__name__ == "_Save" and s.key in kept]
    pushes = kept - {s.key for s in forward_markers if type(s).__name__ == "_UndoSave" and s.value is None}
    tape = namer.fresh("tape") if pushes else None
    prelude = [syntax.assign(tape, syntax.list_([]))] if tape else []
    for name in sorted({s.name for s in saves if not s.record} & set(none_init)):
        prelude.append(syntax.assign(name, syntax.const(None)))
    restored = {r.name for r in restores if r.key in kept} | {n for u in undos for n in u.group}
    undone = namer.fresh("undone") if split and undos else None
    backward = _lower(backward, kept, tape, undone)
    if undone:
        backward.insert(0, syntax.assign(undone, syntax.call(syntax.name(namer.helper("Undone", Undone)), [])))
    return _lower(forward, kept, tape), backward, prelude, restored, as_is


def _needed(backward):
    """(keys of the markers kept, the undos kept, all restores) for the backward
    statements `backward`: those whose names the backward pass reads."""
    backward_markers = []
    read = _loads(backward, set(), "_UndoRestore", backward_markers)
    undos = [s for s in backward_markers if type(s).__name__ == "_UndoRestore" and s.group & read]
    kept = {u.key for u in undos}
    for u in undos:
        _loads(u.stmts, read)
    restores = [s for s in backward_markers if type(s).__name__ == "_Restore"]
    kept |= {r.key for r in restores if r.name in read}
    return kept, undos, restores


def _without_idle_branches(stmts, kept, dropped):
    """`stmts` without the backward `if`s whose branches do nothing (comments, `pass`,
    markers not `kept`: branches with no adjoint work), appended to `dropped`; then their
    conditions need not come back from the tape. A backward `if` tests a saved name
    (ANF), so dropping it drops no effect."""
    out = []
    for s in stmts:
        if type(s) in traversal.BRANCHES_AND_LOOPS:
            s.body = _without_idle_branches(s.body, kept, dropped)
            s.orelse = _without_idle_branches(s.orelse, kept, dropped)
            if isinstance(s, gast.If) and all(_idle(t, kept) for t in s.body + s.orelse):
                dropped.append(s)
                continue
            s.body = s.body or [syntax.pass_()]
        out.append(s)
    return out


def _idle(s, kept):
    """Whether the backward statement `s` lowers to nothing that runs."""
    kind = type(s).__name__
    if kind in ("_Restore", "_UndoRestore"):
        return s.key not in kept
    if kind == "_Group":
        return all(_idle(t, kept) for t in s.stmts)
    return isinstance(s, gast.Pass) or syntax.comment_text(s) is not None


def _lower(stmts, kept, tape, undone=None):
    out = []
    for s in stmts:
        if (_CLASSES.get(type(s)) or _classify(s))[0] is _SIMPLE:
            out.append(s)
            continue
        kind = type(s).__name__
        if kind == "_Save":
            if s.key in kept:
                push = syntax.call(syntax.attr(syntax.name(tape), "append"), [syntax.name(s.name)])
                out.append(syntax.expr(push))
        elif kind == "_Restore":
            if s.key in kept:
                out.append(syntax.assign(s.name, syntax.call(syntax.attr(syntax.name(tape), "pop"))))
        elif kind == "_UndoSave":
            if s.key in kept and s.value is not None:
                out.append(syntax.expr(syntax.call(syntax.attr(syntax.name(tape), "append"), [s.value])))
        elif kind == "_UndoRestore":
            if s.key in kept:
                if undone:
                    record = syntax.call(syntax.attr(syntax.name(undone), s.record), [syntax.copy(a) for a in s.args])
                    out.append(syntax.expr(record))
                out += [_popped(stmt, tape) for stmt in s.stmts]
        elif isinstance(s, (gast.If, gast.For, gast.While)):
            s.body = _lower(s.body, kept, tape, undone) or [syntax.pass_()]
            s.orelse = _lower(s.orelse, kept, tape, undone)
            out.append(s)
        else:
            out.append(s)
    return out


def _popped(stmt, tape):
    """`stmt` with the placeholder name `__popped__` replaced by `tape.pop()`."""
    def popped(value):
        if isinstance(value, gast.Name) and value.id == "__popped__":
            return syntax.call(syntax.attr(syntax.name(tape), "pop"))
        return value

    for node in traversal.walk(stmt):
        for field, value in gast.iter_fields(node):
            if isinstance(value, list):
                setattr(node, field, [popped(v) for v in value])
            else:
                setattr(node, field, popped(value))
    return stmt
