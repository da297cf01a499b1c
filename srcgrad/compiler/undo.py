"""Reverse mode of the in-place changes that mutation.py accepts: each is undone in the
backward pass, right after its adjoint, so every backward statement before it reads the
changed value as the forward pass saw it (the undo is kept only if one does).

Example, for `ys.append(v)`:

    forward:  ys.append(v)               backward:  v_bar = item_grad(ys_bar, -1, v)
                                                    ys_bar = drop_last(ys_bar)
                                                    ys.pop()

`Undo` is a mixin of the reverse visitor (reverse.py): it needs program, activity,
namer, bind, keys, mutations, dicts, structured and accumulate on the instance.
"""

import gast

from .. import runtime
from . import syntax
from .contributions import _index_value
from .markers import _Group, _UndoRestore, _UndoSave


class Undo:
    def subscript_store(self, s, ctx):
        """`y[index] = v`: v's adjoint is y's adjoint at index, which then becomes zero.

        The overwritten part is pushed first and put back after the adjoint, so earlier
        backward statements read y as the forward pass saw it (kept only if they read it).
        """
        target = s.targets[0]
        if not isinstance(target.value, gast.Name):
            return [s], []
        base = target.value.id
        self.keys += 1
        group = self.mutations.get(base, frozenset({base}))
        if base in self.dicts:  # the key may be new: the undo removes it again
            entry = syntax.name(self.bind("dict_entry", runtime.dict_entry))
            save = _UndoSave(self.keys, group, syntax.call(entry, [syntax.name(base), syntax.copy(target.slice)]))
            put_back = syntax.name(self.bind("restore_entry", runtime.restore_entry))
            undo = syntax.expr(syntax.call(put_back, [syntax.name(base), syntax.copy(target.slice), syntax.name("__popped__")]))
        else:
            part = syntax.subscript(syntax.name(base), syntax.copy(target.slice))
            snapshot = syntax.name(self.bind("snapshot", runtime.snapshot))
            save = _UndoSave(self.keys, group, syntax.call(snapshot, [part]))
            undo = syntax.assign(syntax.subscript(syntax.name(base), syntax.copy(target.slice)), syntax.name("__popped__"))
        bwd = []
        if self.activity.is_active(base):
            adjoint = self.namer.adjoint(base)
            index = _index_value(target.slice)
            self.structured.add(adjoint)
            stmts = []
            value = s.value
            if isinstance(value, gast.Name) and self.activity.is_active(value.id):
                part = syntax.call(syntax.name(self.bind("assigned_grad", runtime.assigned_grad)),
                                   [syntax.name(adjoint), syntax.copy(index), syntax.copy(value), syntax.name(base)])
                stmts += self.accumulate(value.id, part)
            clear = syntax.name(self.bind("without_part", runtime.without_part))
            stmts.append(syntax.assign(adjoint, syntax.call(clear, [syntax.name(adjoint), syntax.copy(index)])))
            bwd.append(_Group(base, adjoint, stmts, self.program.text(s), ends=False))
        bwd.append(_UndoRestore(self.keys, group, [undo]))
        return [save, s], bwd

    def append(self, s, base, args):
        """`ys.append(v)`: v's adjoint is the last entry of ys's adjoint; undone by `ys.pop()`."""
        if len(args) != 1:
            return [s], []
        self.keys += 1
        group = self.mutations.get(base, frozenset({base}))
        undo = syntax.expr(syntax.call(syntax.attr(syntax.name(base), "pop")))
        bwd = []
        if self.activity.is_active(base):
            adjoint = self.namer.adjoint(base)
            self.structured.add(adjoint)
            stmts = []
            value = args[0]
            if isinstance(value, gast.Name) and self.activity.is_active(value.id):
                item = syntax.call(syntax.name(self.bind("item_grad", runtime.item_grad)),
                                   [syntax.name(adjoint), syntax.const(-1), syntax.copy(value)])
                stmts += self.accumulate(value.id, item)
            drop = syntax.name(self.bind("drop_last", runtime.drop_last))
            stmts.append(syntax.assign(adjoint, syntax.call(drop, [syntax.name(adjoint)])))
            bwd.append(_Group(base, adjoint, stmts, self.program.text(s), ends=False))
        bwd.append(_UndoRestore(self.keys, group, [undo]))
        return [_UndoSave(self.keys, group), s], bwd
