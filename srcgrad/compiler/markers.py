"""Reverse mode's pseudo statements: markers that reverse.py puts among the forward and
backward statements and later passes lower (`_Group` by adjoints.py, the saves, restores
and undos by tape.py, which tell them apart by class name; `_Accumulate` lives in
contributions.py), and `copy_pseudo`, which copies statement lists holding them."""

import dataclasses
from dataclasses import dataclass, field

import gast

from . import syntax


@dataclass
class _Group:
    """The backward statements of one active assignment to `primal`."""

    primal: str
    adjoint: str
    stmts: list
    note: str = ""
    ends: bool = True  # whether the assignment ends the adjoint's life (not for `y[i] = v`)


@dataclass
class _UndoSave:
    """Before an in-place change of `group`'s memory: push `value` (None: nothing to push)."""

    key: int
    group: frozenset
    value: object = None


@dataclass
class _UndoRestore:
    """After the change's adjoint: undo it with `stmts`, where the name `__popped__`
    stands for the pushed value. Kept only when the backward pass reads `group`.
    `record` names the method of `undone.Undone` that a pullback calls on `args` first."""

    key: int
    group: frozenset
    stmts: list
    record: str = ""
    args: list = field(default_factory=list)


@dataclass
class _Save:
    name: str
    record: bool  # record: push after assignment; restore: push before overwrite
    key: int = 0


@dataclass
class _Restore:
    name: str
    key: int = 0


def copy_pseudo(stmts):
    """A deep copy of a statement list that may hold reverse mode's pseudo statements
    (dataclasses), in its blocks too: the copy shares no statement with `stmts`."""
    out = []
    for s in stmts:
        if dataclasses.is_dataclass(s):
            fields = {f.name: copy_pseudo(v) if isinstance(v, list) else (syntax.copy(v) if isinstance(v, gast.AST) else v)
                      for f in dataclasses.fields(s) for v in [getattr(s, f.name)]}
            out.append(type(s)(**fields))
        elif isinstance(s, (gast.If, gast.For, gast.While)):
            body, orelse = s.body, s.orelse
            s.body = s.orelse = []  # the header alone through syntax.copy
            try:
                new = syntax.copy(s)
            finally:
                s.body, s.orelse = body, orelse
            new.body, new.orelse = copy_pseudo(body), copy_pseudo(orelse)
            out.append(new)
        else:
            out.append(syntax.copy(s))
    return out
