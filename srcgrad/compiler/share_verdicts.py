"""What an augmented assignment that the may-share analysis (sharing.py) cannot prove a
rebinding becomes: a run-time check where one can tell the cases apart when it runs
(`z op= v` on a number, `l[i] op= v` on an entry sharing no memory, a change of an
argument), else the located refusal, which names the values that may share the memory
and where they are read afterwards.

`Verdicts` is a part of sharing.py's `_Function`: it reads the analysis's `program`,
`tree`, `params`, `local`, `guards`, `enclosing`, `here`, `loops`, `later_reads` and
`arrays`, and adds run-time checks to its `argument_checks`.
"""

import gast

from ..errors import NotDifferentiableError
from . import entry_aliases, printing, syntax, traversal, views

OUTSIDE = "<outside>"  # the node for memory the function does not make: arguments, globals, what a call returns


class Verdicts:
    def number_checked(self, s, refusal):
        """Whether a run-time check can guard `z op= v` that may change in place memory
        another value shares (`y = x` or `y = -y` on some paths, `y += v` after): exact
        where z is a number when it runs (rebound, as `z = z op v`), refused where it runs
        otherwise (an array or list, changed in place). Not where every binding of z makes
        an array (`arrays`) nor where a `for` binds z (`for row in M: row *= 2`, the rows of
        an array), which stay refused here, nor in a nested def. If so, adds it: (None,
        refusal) under the statement's position."""
        name = s.target.id
        if self.enclosing or name in self.arrays or any(
                isinstance(n, (gast.For, gast.comprehension)) and name in traversal.names_stored(n.target)
                for n in traversal.walk(self.tree)):
            return False
        self.argument_checks.setdefault((s.lineno, s.col_offset), []).append((None, refusal))
        return True

    def entry_checked(self, s, held, refusal, state):
        """Whether a run-time check can guard `l[i] op= v` that may change in place an entry
        the list or dict `l` holds: exact where the entry is a number (rebound, as `l[i] =
        l[i] op v`) or `l` an array (the change goes into l's own memory, as the assignment's
        does); also, where the entry may share memory with no value the function does not
        make and the local values it may share memory with are bound when it runs, where it
        is an array, list or dict that shares memory with none of them nor with another
        entry of `l` (no value sees the change but through `l[i]`, which the assignment
        rebinds). Refused where it runs otherwise. If so, adds it under the statement's
        position: (None, the refusal), or (the names of those local values, the refusal)
        for the second kind."""
        if self.enclosing or not isinstance(s.target.value, gast.Name) or held == s.target.value.id:
            return False  # in a nested def, `l[i][j] op= v`, or into an array
        owner = s.target.value.id
        neighbours = state.neighbours(held)
        others = {n[:-2] if n.endswith("[]") else n for n in neighbours} - {owner}
        checked = None
        if OUTSIDE not in others and all(self.bound_at(name, s) for name in others):
            checked = tuple(sorted(others))
        self.argument_checks.setdefault((s.lineno, s.col_offset), []).append((checked, refusal))
        return True

    def bound_at(self, name, s):
        """Whether the local `name` is surely bound where the statement `s` runs: a parameter,
        or a name a statement of the function's top level before the one holding `s`
        assigns."""
        if name in self.params:
            return True
        for top in self.tree.body:
            if any(n is s for n in traversal.walk(top)):
                return False
            if isinstance(top, (gast.Assign, gast.AnnAssign)) and name in traversal.names_stored(
                    top.targets if isinstance(top, gast.Assign) else [top.target]):
                return True
        return False

    def guarded(self, s):
        """Whether a run-time check of fence.py guards `z op= v` (see `check`)."""
        name = s.target.id
        return any(other in self.local and self.still_made_by(made, name, other)
                   for other, made in self.guards.get((s.lineno, s.col_offset), ()))

    def guarded_as_argument(self, s):
        """Whether a run-time check can guard `z op= v` where z is still an argument or a
        view of one (an array argument is the caller's): if so, adds it."""
        name, key = s.target.id, (s.lineno, s.col_offset)
        if self.enclosing:
            return False
        stores = [t for t in traversal.statements(self.tree) if not isinstance(t, (gast.AugAssign, gast.FunctionDef))
                  and t is not self.tree]
        params = set(self.params) - {n for t in stores for n in _stored_here(t)}
        made_here = [t for t in stores if name in _stored_here(t)]
        if name in params:
            argument, made = name, self.tree
        elif len(made_here) == 1 and (made_here[0].lineno, made_here[0].col_offset) < (s.lineno, s.col_offset):
            made = made_here[0]  # the one binding of `name`: every other change of it is an `op=`
            argument = views.bound_view(made, name)
            if argument not in params:
                return False
        else:
            return False
        program = self.program
        message = (f"`{program.text(s)}` ({program.filename}, line {program.line(s)}) changes the argument "
                   f"`{argument}` in place (in `{self.tree.name}`"
                   + (f"; `{name}` is `{argument}` or a view of it, line {program.line(made)}: `{program.text(made)}`"
                      if made is not self.tree else "")
                   + f"); srcgrad differentiates in-place changes of arrays and lists made inside the function: "
                   f"copy it first (`{argument} = {argument}.copy()`) or build a new value "
                   f"(`{name} = {name} {printing.operator_text(s.op)} ...`)")
        self.argument_checks.setdefault(key, []).append((argument, program.error(s, message, NotDifferentiableError)))
        return True

    def still_made_by(self, made, name, other):
        """Whether `made` (`name = <view of other>`) precedes the current statement in its
        block with neither name stored in between."""
        block, k = self.here
        at = next((j for j in range(k) if block[j] is made), None)
        return at is not None and not any(
            {name, other} & set(traversal.names_stored(t)) for t in block[at + 1:k])

    def refusal(self, s, node, owner, state):
        """The error refusing `s`, which changes the memory of `node` in place (`owner`: the
        name it writes), if that memory may be the outside's or a value's read afterwards."""
        program = self.program
        op = printing.operator_text(s.op)
        if node == owner:
            head = f"`{program.text(s)}` ({program.filename}, line {program.line(s)}) changes `{owner}` in place"
            advice = f"Write `{owner} = {owner} {op} ...` for a new value, or copy first (`.copy()`)"
        else:
            entry = printing.unparse(s.target)
            head = (f"`{program.text(s)}` ({program.filename}, line {program.line(s)}) changes the value that "
                    f"`{owner}` holds in place")
            advice = f"Write `{entry} = {entry} {op} ...` for a new value, or copy first (`.copy()`)"
        marked = entry_aliases.marked(state, node) if node != owner else None
        if marked is not None and OUTSIDE not in state.neighbours(node):
            read = self.later_reads.after(owner, s, self.loops)
            if read is not None:
                return program.error(
                    s, f"{head}, whose entries may share memory with each other (line {program.line(marked)}: "
                    f"`{program.text(marked)}`); "
                    f"`{owner}` is read afterwards (line {program.line(read)}: `{program.text(read)}`; in "
                    f"`{self.tree.name}`): each entry sharing it changes too, which srcgrad cannot differentiate. "
                    f"{advice}",
                    NotDifferentiableError)
        for other, why in sorted(state.neighbours(node).items(), key=lambda kv: (kv[0] != OUTSIDE, kv[0])):
            made = f"line {program.line(why)}: `{program.text(why)}`"
            if other == OUTSIDE and self.held_entry(why, owner) is not None:
                return program.error(s, f"{head}, {self.held_entry(why, owner)}", NotDifferentiableError)
            if other == OUTSIDE:
                return program.error(
                    s, f"{head}, and it may share memory with a value that `{self.tree.name}` does not make (an "
                    f"argument, a global, or what a call returns; {made}): that value changes too, which "
                    f"srcgrad cannot differentiate. {advice}", NotDifferentiableError)
            name = other[:-2] if other.endswith("[]") else other
            read = None if name == owner else self.later_reads.after(name, s, self.loops)
            if read is not None and self.held_entry(why, owner) is not None:  # `p = ps[k]`, then `p += ...`
                return program.error(s, f"{head}, {self.held_entry(why, owner)}", NotDifferentiableError)
            if read is not None:
                return program.error(
                    s, f"{head}, and it may share memory with `{name}` ({made}), which is read afterwards (line "
                    f"{program.line(read)}: `{program.text(read)}`; in `{self.tree.name}`): both change, "
                    f"which srcgrad cannot differentiate. {advice}", NotDifferentiableError)

    def held_entry(self, why, owner):
        """What a refusal says where `owner` reaches the outside through `why`, its binding to
        an entry of a local list or dict (`p = ps[k]`) or to a list or dict display or
        comprehension: srcgrad follows no entry apart, so any may be an argument's. Else None."""
        if not (isinstance(why, gast.Assign) and syntax.is_name(why.targets[0], owner)):
            return None
        value, made = why.value, f"line {self.program.line(why)}: `{self.program.text(why)}`"
        if isinstance(value, gast.Subscript) and isinstance(value.value, gast.Name) and value.value.id in self.local:
            where, entry = f"an entry of `{value.value.id}` ({made})", printing.unparse(value).strip()
        elif isinstance(value, (gast.List, gast.ListComp, gast.Dict, gast.DictComp)):
            where, entry = f"an entry of the list or dict built at {made}", f"{owner}[k]"
        else:
            return None
        return (f"{where}; srcgrad does not follow which values the entries of a list or dict share memory with "
                f"(any may be an argument's), so it cannot differentiate a change of one in place (in "
                f"`{self.tree.name}`). Store a new entry instead (`{entry} = {entry} + ...`), or keep the values in "
                f"one array made in the function and write `P[k] += ...` into it")


def _stored_here(stmt):
    """Names `stmt` itself stores (not the statements inside it)."""
    targets = stmt.targets if isinstance(stmt, gast.Assign) else [getattr(stmt, "target", None)]
    return {n.id for t in targets if t is not None for n in traversal.walk(t)
            if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store)}


