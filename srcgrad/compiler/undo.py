"""Reverse mode of the in-place changes that mutation.py accepts: each is undone in the
backward pass, right after its adjoint, so every backward statement before it reads the
changed value as the forward pass saw it (the undo is kept only if one does).

Examples, for `ys.append(v)` and `v = ys.pop(0)`:

    forward:  ys.append(v)               backward:  v_bar = item_grad(ys_bar, -1, v)
                                                    ys_bar = drop_last(ys_bar)
                                                    ys.pop()

    forward:  v = ys.pop(0)              backward:  ys_bar = popped_grad(ys_bar, 0, ys)
                                                    ys_bar = add_grad(ys_bar, popped_grad(v_bar, 0, ys, True))
                                                    ys.insert(0, v)

A pop's undo reads the popped value from its target, which the tape keeps as the
assignment left it until the undo has run; a dropped `ys.pop()` gets a target of its own.

`Undo` is a mixin of the reverse visitor (reverse.py): it needs program, activity,
namer, bind, keys, mutations, dicts, pops, structured, containers and accumulate on the
instance.
"""

import gast

from .. import runtime
from ..errors import NotDifferentiableError
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
        key = syntax.copy(target.slice) if base in self.dicts else _index_value(target.slice)
        record = ("entry", [syntax.name(base), syntax.copy(key)])
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
            late = []
            if isinstance(value, gast.Name) and self.activity.is_active(value.id):
                part = syntax.call(syntax.name(self.bind("assigned_grad", runtime.assigned_grad)),
                                   [syntax.name(adjoint), syntax.copy(index), syntax.copy(value), syntax.name(base)])
                if value.id == base:  # `v[::-1] = v`: the part is taken, then cleared, then added to v's
                    taken = self.namer.fresh(f"{base}_part_bar")
                    stmts.append(syntax.assign(taken, part))
                    late = self.accumulate(value.id, syntax.name(taken))
                else:
                    stmts += self.accumulate(value.id, part)
            clear = syntax.name(self.bind("without_part", runtime.without_part))
            stmts.append(syntax.assign(adjoint, syntax.call(clear, [syntax.name(adjoint), syntax.copy(index)])))
            stmts += late
            bwd.append(_Group(base, adjoint, stmts, self.program.text(s), ends=False))
        bwd.append(_UndoRestore(self.keys, group, [undo], *record))
        return [save, *self.length_check(s, base), s], bwd

    def length_check(self, s, base):
        """`[same_length(ys, slice, v, message)]` before `ys[i:j] = v` where ys may be a list:
        the undo puts the old entries back in the same place, which is exact only when the
        write keeps the list's length."""
        target = s.targets[0]
        if base not in self.containers or not isinstance(target.slice, gast.Slice):
            return []
        where = f"`{self.program.text(s).strip()}` ({self.program.filename}, line {self.program.line(s)})"
        message = (f"{where} gives a slice of the list `{base}` another number of entries than it holds "
                   f"(in `{self.program.name}`); srcgrad differentiates slice assignments that keep a list's "
                   f"length: build a new list instead (`{base} = {base}[:i] + [...] + {base}[j:]`)")
        check = syntax.name(self.bind("same_length", runtime.same_length))
        refusal = self.program.error(s, message, NotDifferentiableError)
        call = syntax.call(check, [syntax.name(base), _index_value(target.slice), syntax.copy(s.value),
                                   *syntax.refusal_arguments(refusal)])
        return [syntax.located(syntax.expr(call), s)]

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
        bwd.append(_UndoRestore(self.keys, group, [undo], "last", [syntax.name(base)]))
        return [_UndoSave(self.keys, group), s], bwd

    def named_pop(self, s):
        """`ys.pop(i)`, its value dropped, as `ys_popped = ys.pop(i)`: the undo puts it back."""
        base = self.pops[id(s)][0]
        named = syntax.located(syntax.assign(self.namer.fresh(f"{base}_popped"), s.value), s)
        self.pops[id(named)] = self.pops[id(s)]
        return named

    def popped_entry(self, target, base, at):
        """The adjoint statements of `target = base.pop(at)`: target's adjoint goes back
        into base's, in the place target had."""
        adjoint = self.namer.adjoint(base)
        self.structured.add(adjoint)
        helper = syntax.name(self.bind("popped_grad", runtime.popped_grad))
        part = syntax.call(helper, [syntax.name(self.namer.adjoint(target)), syntax.const(at), syntax.name(base),
                                    syntax.const(True)])
        return self.accumulate(base, part)

    def pop(self, s, fwd, bwd, base, at):
        """`v = ys.pop(at)`, given the forward statements `fwd` (ending with it) and the
        backward statements `bwd` of the assignment to v (`popped_entry`'s group): before them ys's adjoint gets an empty entry back where v was; after
        them the change is undone by putting v back (`ys.append(v)`, `ys.insert(at, v)`),
        while v still holds the value it was given here."""
        self.keys += 1
        group = self.mutations.get(base, frozenset({base}))
        value = syntax.name(s.targets[0].id)
        if at == -1:
            undo = syntax.call(syntax.attr(syntax.name(base), "append"), [value])
        else:  # `insert(i, v)` puts v before the entry i had: one further right for negative i
            undo = syntax.call(syntax.attr(syntax.name(base), "insert"), [syntax.const(at if at >= 0 else at + 1), value])
        gap = []
        if self.activity.is_active(base):
            adjoint = self.namer.adjoint(base)
            self.structured.add(adjoint)
            helper = syntax.name(self.bind("popped_grad", runtime.popped_grad))
            call = syntax.call(helper, [syntax.name(adjoint), syntax.const(at), syntax.name(base)])
            gap = [_Group(base, adjoint, [syntax.assign(adjoint, call)], self.program.text(s), ends=False)]
        undone = _UndoRestore(self.keys, group, [syntax.expr(undo)], "gap", [syntax.name(base), syntax.const(at)])
        return fwd[:-1] + [_UndoSave(self.keys, group), fwd[-1]], gap + bwd + [undone]
