"""Loops over differentiated sequences become loops over indices.

Before:  for row in X:                 After:  for i in range(len(X)):
             s = s + np.sum(row)                   row = X[i]
                                                   s = s + np.sum(row)

A loop target that carries a derivative receives it from its sequence through an
ordinary subscript, whose adjoint scatters into the sequence's adjoint. Handled
iterables: a sequence (array, list, tuple), `zip(a, b, ...)`, `enumerate(a[, start])`
and `reversed(a)` of sequences (`r = reversed(a)` becomes `r = a[::-1]`),
`d.items()`/`d.values()` (a loop over the list of d's keys, each value read as `d[key]`),
and a call returning a new array, list or tuple (a NumPy function with a rule,
`x.tolist()`, `list(x)`, `tuple(x)`, `sorted(x)`), made once before the loop under a
name of its own. A dict's `.keys()`/`.values()` view inside `zip`, `enumerate` or
`reversed` has no index: the loop reads `list(view)` made when it starts (refused where
the body changes that dict, which the view would show). Loops over
`itertools.combinations` and its kin and `np.ndenumerate` are position_loops.py's. Any
other iterable that carries a derivative (a generator, ...) is rejected: its loop target
would otherwise silently get no gradient. Loops over constants are left alone (a dict or
a set stays iterable).

In code srcgrad generated (a gradient differentiated again), a loop stays as it is: the
first derivation rewrote each loop whose target carried a derivative, so a target of a
loop still there carries none, even where the tape that holds it among differentiated
values makes it look so (the keys of `for k in d:` or `for k in d.keys():`).

The loop reads the objects its header named when it started: a sequence, dict or zipped
sequence that the body or the loop target rebinds (`for x in x:`) is read through a name
bound before the loop. An iterator made by `z = zip(a, b)` or `r = reversed(a)` is read
by index only where that follows Python: iterated once (one loop, not inside a loop
that does not make it anew; no other use of its name), and, for `zip`, with no
assignment to `a` or `b` between it and the loop; otherwise the loop is refused. The
tuples of `itertools.combinations(x, r)` (and the other makers of tuples of entries) hold
the entries x had when the loop started: a body that changes x in place is refused.
"""

import builtins
import collections
import collections.abc

import gast
import numpy as np

from .. import runtime
from ..errors import NotDifferentiableError
from ..rules import registry
from . import call_effects, position_loops, printing, syntax, traversal
from .resolve import Callee

_LEN = Callee("function", builtins.len, "len")
_RANGE = Callee("function", builtins.range, "range")
_MIN = Callee("function", builtins.min, "min")
_LIST = Callee("function", builtins.list, "list")
_DICT_KEYS = Callee("function", runtime.dict_keys, "dict_keys")
_ZIP_STRICT = Callee("function", runtime.zip_strict, "zip_strict")
# the nodes that statements lie under
_HOLDERS = (gast.stmt, gast.excepthandler) + ((gast.match_case,) if hasattr(gast, "match_case") else ())


class _Iteration:
    def __init__(self, program, activity, calls, namer, program_tree):
        self.program = program
        self.activity = activity
        self.calls = calls
        self.namer = namer
        self.changed = False
        self.mapping = None  # the dict of an `.items()`/`.values()` loop being rewritten
        self.reversed_defs, zip_defs = self._made_by(program_tree)
        self.zip_defs = {
            name: d for name, d in zip_defs.items()
            if d.value.args and all(isinstance(a, gast.Name) for a in d.value.args)
        }
        self.stores, self.loads = collections.Counter(), collections.Counter()
        self.stored_at = collections.defaultdict(list)  # name -> the lines of the statements assigning it
        if self._rewrites_some(program_tree):  # else `loop` reads none of them: nothing to count
            loads, stores = traversal.name_counts(program_tree)
            self.stores.update(stores)
            self.loads.update(loads)
            for st in traversal.statements(program_tree):
                targets = st.targets if isinstance(st, gast.Assign) else [st.target] if isinstance(st, gast.For) else []
                for name in traversal.names_stored(targets):
                    self.stored_at[name].append(getattr(st, "lineno", None))
        self.enclosing = []  # the loops around the statement being rewritten, innermost last
        self.params = [a.id for a in program_tree.args.args]
        self.tree, self.values = program_tree, None  # values: see `single_values`
        self.argument_checks = []  # see `run`

    def _rewrites_some(self, tree):
        """Whether `loop` may rewrite a `for` statement of `tree` (one it does not give back
        at once). Until it rewrites one, the tree is as it is now, so where this finds none,
        none is rewritten."""
        if self.program.generated:
            return False
        return any(type(s) is gast.For and (type(s.target) is not gast.Name or (
            not self._counts(s) and self.activity.is_active(s.target.id))) for s in traversal.statements(tree))

    def _counts(self, s):
        """Whether the `for` statement `s` iterates over `range(...)`."""
        callee = self.calls.get(s.iter) if isinstance(s.iter, gast.Call) else None
        return callee is not None and callee.kind == "function" and callee.obj is builtins.range

    def _made_by(self, tree):
        """({name: its assignment} for names assigned from a call of `reversed` with one
        argument, the same for `zip`); of several, the last in `traversal.walk`'s order.

        Assignments are statements, in statement lists only: the walk goes through
        statements breadth-first, which keeps `traversal.walk`'s order among them."""
        reversed_, zip_ = builtins.reversed, builtins.zip
        made = {reversed_: {}, zip_: {}}
        displays = set()  # the ids of the `z = zip(...)` assignments given a list or tuple display
        todo, holders, assign, name, call = collections.deque([tree]), _HOLDERS, gast.Assign, gast.Name, gast.Call
        pop, extend = todo.popleft, todo.extend
        while todo:
            n = pop()
            cls = type(n)
            if isinstance(n, assign):
                value = n.value
                if isinstance(n.targets[0], name) and isinstance(value, call):
                    fn = getattr(self.calls.get(value), "obj", None)
                    if fn is zip_ and _zip_strict(value) is not None or (
                            fn is reversed_ and len(value.args) == 1 and not value.keywords):
                        made[fn][n.targets[0].id] = n
                        if fn is zip_ and any(isinstance(a, (gast.List, gast.Tuple)) for a in value.args):
                            displays.add(id(n))
                continue  # an assignment holds no statements
            values = n.__dict__
            for field in cls._fields:
                value = values.get(field)
                if type(value) is list:
                    extend([v for v in value if isinstance(v, holders)])
        if displays:
            self._displays_named(tree, displays)
        return made[reversed_], made[zip_]

    def _displays_named(self, tree, displays):
        """Each list or tuple display given to a `z = zip(...)` assignment of `displays`
        (ids) assigned to a name of its own just before it (`enumerate(zip(x, [a, b]))`,
        which ANF spells so, is then read by index as `zip(x, seq)` is)."""
        for holder in traversal.statements(tree):
            for stmts in traversal.blocks_in(holder):
                if not any(id(st) in displays for st in stmts):
                    continue
                out = []
                for st in stmts:
                    if id(st) in displays:
                        value = st.value
                        for k, a in enumerate(value.args):
                            if isinstance(a, (gast.List, gast.Tuple)):
                                seq = self.namer.fresh("sequence")
                                out.append(syntax.located(syntax.assign(seq, a), st))
                                value.args[k] = syntax.name(seq)
                    out.append(st)
                stmts[:] = out

    def block(self, stmts):
        out = []
        for s in stmts:
            if isinstance(s, (gast.If, gast.While)):
                self.enclosing.append(s) if isinstance(s, gast.While) else None
                s.body = self.block(s.body)
                self.enclosing.pop() if isinstance(s, gast.While) else None
                s.orelse = self.block(s.orelse)
            elif isinstance(s, gast.For):
                self.enclosing.append(s)
                s.body = self.block(s.body)
                self.enclosing.pop()
                s = self.loop(s)
                if isinstance(s, list):
                    out += s
                    continue
            out.append(s)
        return out

    def loop(self, s):
        target = s.target.id
        if self._counts(s) or not self.activity.is_active(target):
            return s  # a `range` carries no derivative whatever the (flow-insensitive) activity says
        if self.program.generated:
            return s  # see the module's docstring (`_rewrites_some` follows these three tests)
        pre = []
        if isinstance(s.iter, (gast.Tuple, gast.List)):  # `for v in (a, b)`: name the sequence
            seq = self.namer.fresh("sequence")
            pre.append(syntax.located(syntax.assign(seq, s.iter), s))
            s.iter = syntax.name(seq)
        by_positions = position_loops.rewritten(self, s, pre)
        if by_positions is not None:
            return by_positions
        callee = self.calls.get(s.iter) if isinstance(s.iter, gast.Call) else None
        direct = getattr(callee, "obj", None) is builtins.zip and _zip_strict(s.iter)
        sequences, kind, start = self.sequences(s, pre)
        strict = self.strict_zip(s, sequences, direct)
        if kind == "sequence":
            self.note_argument(s, sequences[0].id)
        # a dict's `.keys()`/`.values()` view has no index: the loop reads the list of it
        sequences = [self.listed(s, seq, pre) for seq in sequences]
        for seq in sequences:
            zipped_def = self.zip_defs.get(seq.id)
            if zipped_def is not None:
                zipped_def.value.args = [self.listed(s, a, pre) for a in zipped_def.value.args]
        for seq in sequences:
            self.check_iterator(s, seq)
        zipped_args = [a for seq in sequences if seq.id in self.zip_defs for a in self.zip_defs[seq.id].value.args]
        for seq in sequences + zipped_args:  # `enumerate(zip(x, reversed(y)))` reads `reversed(y)` by index too
            definition = self.reversed_defs.get(seq.id)
            if definition is not None:  # `r = reversed(a)` -> `r = a[::-1]`, which has a length
                view = definition.value.args[0]
                viewed = self.dict_view(view.id) if type(view) is gast.Name else None
                if viewed is not None:
                    mapping, method = viewed
                    if (getattr(definition, "lineno", None) == s.lineno and self.loads[seq.id] == 1
                            and any(seq is q for q in sequences)):
                        # made from this loop's header (`enumerate(reversed(d.values()))`): the list of
                        # the view when the loop starts, reversed
                        self.refuse_changed_dict(s, mapping, method)
                        definition.value = self.call(list, _LIST, [syntax.name(view.id)])
                        backwards = self.namer.fresh(f"{seq.id}_reversed")
                        pre.append(syntax.located(syntax.assign(backwards, syntax.subscript(
                            syntax.name(seq.id), syntax.slice_(None, None, syntax.const(-1)))), s))
                        seq.id = backwards
                        continue
                    raise self.program.error(
                        s, f"`{seq.id} = reversed({mapping}.{method}())` is iterated later (in `{self.program.name}`): "
                        f"srcgrad reads a reversed dict view by index only in the `for` statement itself; write "
                        f"`for ... in reversed({mapping}.{method}()):`",
                    )
                definition.value = syntax.subscript(view, syntax.slice_(None, None, syntax.const(-1)))
        stored = set(traversal.names_stored(s.body)) | {target}  # `for x in x:` rebinds its sequence too

        def started(seq):
            """`seq`, or where the body rebinds it, a name for the object it had when the loop started."""
            if seq.id not in stored:
                return seq
            bound = self.namer.fresh(f"{seq.id}_sequence")
            pre.append(syntax.located(syntax.assign(bound, syntax.name(seq.id)), s))
            return syntax.name(bound)

        # a sequence made by `z = zip(a, b)` (`enumerate(zip(a, b))`) is read as `(a[i], b[i])`
        zipped = {k: [started(a) for a in self.zip_defs[seq.id].value.args]
                  for k, seq in enumerate(sequences) if seq.id in self.zip_defs}
        sequences = [seq if k in zipped else started(seq) for k, seq in enumerate(sequences)]
        if self.mapping is not None and kind in ("items", "values"):
            self.mapping = started(self.mapping)  # the dict whose entries the loop reads
        self.changed = True
        index = self.namer.fresh("i" if target != "i" else "index")
        measured = [a for k, seq in enumerate(sequences) for a in zipped.get(k, [seq])]
        lengths = [self.call(len, _LEN, [syntax.copy(a)]) for a in measured]
        after = []
        if strict:  # `zip(..., strict=True)`: its lengths checked where the loop ends without `break`
            after = self.strict_check(s, lengths, pre)
            lengths = [syntax.name(n.id) for n in lengths]
        count = lengths[0] if len(lengths) == 1 else self.call(min, _MIN, lengths)
        if kind == "reversed":
            n = self.namer.fresh("n")
            last = self.namer.fresh("last")
            pre += [syntax.assign(n, count), syntax.assign(last, syntax.binop(syntax.name(n), gast.Sub(), syntax.const(1)))]
            args = [syntax.name(last), syntax.const(-1), syntax.const(-1)]
        else:
            args = [count]
        items, head = [], []
        for k, seq in enumerate(sequences):
            if k not in zipped:
                items.append(syntax.subscript(syntax.copy(seq), syntax.name(index)))
                continue
            parts = []
            for a in zipped[k]:
                part = self.namer.fresh(f"{a.id}_i")
                head.append(syntax.located(syntax.assign(part, syntax.subscript(syntax.copy(a), syntax.name(index))), s))
                parts.append(syntax.name(part))
            items.append(syntax.tuple_(parts))
        if kind in ("items", "values"):  # iterate the keys; each value is an entry of the dict
            key = self.namer.fresh("key")
            head.append(syntax.located(syntax.assign(key, items[0]), s))
            value = syntax.subscript(syntax.copy(self.mapping), syntax.name(key))
            items = [syntax.name(key), value] if kind == "items" else [value]
        if kind == "enumerate":
            position = syntax.name(index)
            if start is not None:
                position = syntax.binop(syntax.name(index), gast.Add(), start)
            items = [position] + items
        if kind in ("zip", "enumerate", "items"):
            body = head + self.unpacked(s, target, items)
        else:
            body = head + [syntax.located(syntax.assign(target, items[0]), s)] + s.body
        loop = syntax.located(syntax.for_(index, self.call(range, _RANGE, args), body), s)
        return [syntax.located(p, s) for p in pre] + [loop] + [syntax.located(a, s) for a in after]

    def strict_zip(self, s, sequences, direct):
        """Whether the loop `s` over `sequences` reads a `zip(..., strict=True)` (`direct`: its
        header's own) whose lengths it checks; refused where a strict zip is one of several
        sequences measured together (`zip(zip(a, b, strict=True), c)`)."""
        made = [seq for seq in sequences if seq.id in self.zip_defs]
        strict_made = [seq for seq in made if _zip_strict(self.zip_defs[seq.id].value)]
        if (direct and made) or (strict_made and len(sequences) > 1):
            raise self.program.error(
                s, f"iterating over `{printing.unparse(s.iter)}`, a zip of a `zip(..., strict=True)`, is not supported "
                f"(in `{self.program.name}`); check the lengths first and zip once",
            )
        return bool(direct or strict_made)

    def strict_check(self, s, lengths, pre):
        """The statements after the loop `s` over `zip(..., strict=True)` that raise its
        `ValueError` where the loop ran to its end (no `break`: jumps.py made every `return`
        in it one) over sequences whose `lengths` differ; each length is bound to a name in
        `pre`, and `lengths`' calls are made those names."""
        for k, length in enumerate(lengths):
            named = self.namer.fresh("length")
            pre.append(syntax.assign(named, length))
            lengths[k] = syntax.name(named)
        checked = syntax.call(self.namer.helper("zip_strict", runtime.zip_strict), [syntax.copy(n) for n in lengths])
        self.calls[checked] = _ZIP_STRICT
        check = syntax.expr(checked)
        breaks = _own_breaks(s.body)
        if not breaks:
            return [check]
        broke = self.namer.fresh("broke")
        pre.append(syntax.assign(broke, syntax.const(False)))
        for stmts in breaks:  # the `break` is the block's last statement (jumps.py)
            stmts.insert(len(stmts) - 1, syntax.located(syntax.assign(broke, syntax.const(True)), stmts[-1]))
        return [syntax.if_(syntax.not_(syntax.name(broke)), [check])]

    def dict_view(self, name):
        """(the dict, "keys" or "values") where the name `name`, assigned once, holds that
        view of a dict; else None."""
        value = self.single_values().get(name) if self.stores[name] == 1 else None
        callee = self.calls.get(value) if isinstance(value, gast.Call) else None
        if callee is None or callee.kind != "method" or callee.path not in ("keys", "values") or value.args:
            return None
        return callee.receiver, callee.path

    def listed(self, s, seq, pre):
        """`seq`, or where it names a dict's view, a name for `list(view)` made before the
        loop `s` (into `pre`). The loop body may not change that dict, whose view would
        show the change while the list does not."""
        view = self.dict_view(seq.id)
        if view is None:
            return seq
        mapping, method = view
        self.refuse_changed_dict(s, mapping, method)
        listed = self.namer.fresh(f"{seq.id}_list")
        pre.append(syntax.located(syntax.assign(listed, self.call(list, _LIST, [syntax.name(seq.id)])), s))
        return syntax.name(listed)

    def refuse_changed_dict(self, s, mapping, method):
        """Refuse the loop `s` over a view of the dict `mapping` where its body changes it:
        writes or deletes an entry, or calls what may change it (call_effects.changes_container:
        `d.pop(k)`, `d.update(...)`; `d.get(k)` reads)."""
        for st in traversal.statements(gast.Module(body=list(s.body), type_ignores=[])):
            for n in _own_nodes(st):
                writes = isinstance(n, gast.Subscript) and isinstance(n.ctx, (gast.Store, gast.Del)) and syntax.is_name(n.value, mapping)
                if not writes and isinstance(n, gast.Call):
                    kept = not (isinstance(st, gast.Expr) and st.value is n)
                    writes = call_effects.changes_container(n, self.calls.get(n), mapping, kept, registry)
                if writes:
                    raise self.program.error(
                        s, f"the loop reads `{mapping}.{method}()` and changes the dict `{mapping}` (in "
                        f"`{self.program.name}`), which that view would show; srcgrad reads the view as the list of "
                        f"its entries when the loop starts: loop over `list({mapping}.{method}())` to read them so, "
                        f"or over `{mapping}.items()`",
                    )

    def note_argument(self, s, name):
        """Note the loop `s` over `name` for `run`'s answer where `name` is a parameter never
        rebound, an entry of one at constant keys (`sub = p['sub']`, bound once), or the
        target of an enclosing loop over one (`for d in ds: for k in d:`; key `...`: each entry)."""
        keys = []
        while name not in self.params and self.stores[name] == 1:
            value = self.single_values().get(name)
            outer = next((loop for loop in self.enclosing if isinstance(loop, gast.For)
                          and type(loop.target) is gast.Name and loop.target.id == name), None)
            if outer is not None and type(outer.iter) is gast.Name:
                keys.append(...)
                name = outer.iter.id
            elif (isinstance(value, gast.Subscript) and type(value.value) is gast.Name
                    and isinstance(value.slice, gast.Constant) and type(value.slice.value) in (str, int)):
                keys.append(value.slice.value)
                name = value.value.id
            else:
                return
        if name not in self.params or self.stores[name] != 1:  # a parameter counts as one
            return
        read = name + "".join("[...]" if k is ... else f"[{k!r}]" for k in reversed(keys))
        message = (
            f"`{self.program.text(s)}` in `{self.program.name}` loops over `{read}`, a dict in this call: srcgrad "
            "made the loop's derivative for a list, tuple or array, whose entries carry the derivative, and a loop "
            f"over a dict gives its keys; loop over `.keys()`, `.values()` or `.items()` of it instead"
        )
        error = self.program.error(s, message, NotDifferentiableError)
        location = (error.filename, error.lineno, error.offset - 1, error.text)  # SrcGradError's parameters
        self.argument_checks.append((self.params.index(name), tuple(reversed(keys)), is_mapping, message, location))

    def single_values(self):
        """{name: its value} for the names assigned once by `name = value` (computed once)."""
        if self.values is None:
            self.values = {
                st.targets[0].id: st.value for st in traversal.statements(self.tree)
                if isinstance(st, gast.Assign) and type(st.targets[0]) is gast.Name
            }
        return self.values

    def check_iterator(self, s, seq):
        """Refuse the loop `s` over `seq` where `seq` holds an iterator made by `zip` or
        `reversed` that reading it by index would not follow: one iterated again (by a
        second loop, or by this one inside a loop that does not make it anew), whose
        name is used elsewhere, or made of a sequence assigned again before the loop."""
        definition = self.zip_defs.get(seq.id) or self.reversed_defs.get(seq.id)
        if definition is None:
            return
        made = f"`{seq.id}`, the iterator made by `{printing.unparse(definition.value)}` at line {self.program.line(definition)}"
        fix = f"iterate over `{printing.unparse(definition.value)}` in the `for` statement itself (in `{self.program.name}`)"
        around = self.enclosing[-1] if self.enclosing else None
        if self.stores[seq.id] > 1 or self.loads[seq.id] > 1 or (
                around is not None and not any(d is definition for d in traversal.statements(around))):
            raise self.program.error(
                s, f"{made}, is iterated again or used elsewhere, and an iterator runs out after one pass: "
                f"srcgrad reads it by index, which would not; {fix}",
            )
        if seq.id in self.reversed_defs:
            return  # its sequence is read where it is made (`a[::-1]`)
        made_at, loop_at = definition.lineno, s.lineno
        for a in definition.value.args:
            if any(line is None or made_at < line < loop_at for line in self.stored_at[a.id]):
                raise self.program.error(
                    s, f"{made}, is iterated after `{a.id}` may have been assigned again: the iterator holds "
                    f"the sequence `{a.id}` had when it was made, and srcgrad reads `{a.id}` by index here; {fix}",
                )

    def unpacked(self, s, target, items):
        """The body of a zip/enumerate loop, each part assigned where the body unpacks it.

        ANF spells `for a, b in zip(A, B)` as `for item in ...: a = item[0]; b = item[1]`;
        those reads become `a = A[i]; b = B[i]`. A target used any other way (`for (p, q), r
        in zip(...)`: `r = item[1]` after `p = item_0[0]`) is assigned the tuple of parts,
        each bound to a name first: the passes after ANF read a tuple's entries as names
        (a tuple of subscripts there carried no derivative).
        """
        body = list(s.body)
        unpacks = {}
        for stmt in body:
            value = stmt.value if isinstance(stmt, gast.Assign) else None
            if not (isinstance(value, gast.Subscript) and syntax.is_name(value.value, target)
                    and isinstance(value.slice, gast.Constant) and isinstance(value.slice.value, int)
                    and 0 <= value.slice.value < len(items) and isinstance(stmt.targets[0], gast.Name)):
                break
            unpacks[id(stmt)] = value.slice.value
        rest = body[len(unpacks):]
        if any(syntax.is_name(n, target) for stmt in rest for n in traversal.walk(stmt)):
            named, parts = [], []
            for item in items:
                if type(item) is not gast.Name:
                    part = self.namer.fresh(f"{target}_{len(parts)}")
                    named.append(syntax.located(syntax.assign(part, item), s))
                    item = syntax.name(part)
                parts.append(item)
            return named + [syntax.located(syntax.assign(target, syntax.tuple_(parts)), s)] + body
        return [
            syntax.located(syntax.assign(stmt.targets[0].id, syntax.copy(items[unpacks[id(stmt)]])), stmt)
            for stmt in body[: len(unpacks)]
        ] + rest

    def sequences(self, s, pre):
        """(sequence names, kind, enumerate's start) of the loop `s`; statements that name
        sequences written in place (`zip(a, [b, c])`) go to `pre`."""
        it = s.iter
        if isinstance(it, gast.Name):
            return [it], "sequence", None
        callee = self.calls.get(it) if isinstance(it, gast.Call) else None
        fn = callee.obj if callee is not None and callee.kind == "function" else None
        if fn is builtins.zip and it.args and _zip_strict(it) is not None:
            return self.atoms(s, it.args, pre), "zip", None
        if fn is builtins.zip and it.args:
            raise self.program.error(
                s, f"iterating over `{printing.unparse(it)}` is not supported (in `{self.program.name}`): srcgrad "
                "differentiates a loop over `zip` whose only keyword is `strict=True` or `strict=False`, written so",
            )
        if fn is builtins.enumerate and it.args:
            start = it.args[1] if len(it.args) > 1 else next((k.value for k in it.keywords if k.arg == "start"), None)
            return self.atoms(s, it.args[:1], pre), "enumerate", start
        if fn is builtins.reversed and len(it.args) == 1:
            return self.atoms(s, it.args, pre), "reversed", None
        if callee is not None and callee.kind == "method" and callee.path in ("items", "values") and not it.args:
            keys = self.namer.fresh("keys")
            # the keys are no differentiated values (`list(d)` would make them seem so where d is one)
            dict_keys = syntax.call(self.namer.helper("dict_keys", runtime.dict_keys), [syntax.name(callee.receiver)])
            self.calls[dict_keys] = _DICT_KEYS
            pre.append(syntax.located(syntax.assign(keys, dict_keys), s))
            self.mapping = syntax.name(callee.receiver)
            return [syntax.name(keys)], callee.path, None
        if callee is not None and _returns_a_sequence(callee):
            # `for r in np.tanh(A):`, `for v in sorted(xs):`: the call runs once, as
            # Python runs it, and the loop reads its result (an array, list or tuple) by index
            seq = self.namer.fresh("sequence")
            pre.append(syntax.located(syntax.assign(seq, it), s))
            return [syntax.name(seq)], "sequence", None
        raise self.program.error(
            s, f"iterating over `{printing.unparse(it)}`, which carries the derivative into the loop "
            f"variable `{s.target.id}`, is not supported (in `{self.program.name}`); iterate over a "
            "list, tuple or array, over zip/enumerate/reversed of them, or over range(len(...))",
        )

    def atoms(self, s, args, pre):
        names = []
        for a in args:
            if isinstance(a, (gast.Tuple, gast.List)):
                seq = self.namer.fresh("sequence")
                pre.append(syntax.located(syntax.assign(seq, a), s))
                a = syntax.name(seq)
            if not isinstance(a, gast.Name):
                raise self.program.error(
                    s, f"iterating over `{printing.unparse(s.iter)}` is not supported here "
                    f"(in `{self.program.name}`); give the sequence a name first",
                )
            names.append(a)
        return names

    def call(self, fn, callee, args):
        node = syntax.call(fn.__name__, args)
        self.calls[node] = callee
        return node


_SEQUENCE_BUILTINS = (builtins.sorted, builtins.list, builtins.tuple)  # each returns a new list or tuple


def _zip_strict(call):
    """`strict` of the `zip` call `call`: False without it, the constant given, else None."""
    if not call.keywords:
        return False
    strict = call.keywords[0].value
    if len(call.keywords) == 1 and call.keywords[0].arg == "strict" and type(strict) is gast.Constant:
        return bool(strict.value)
    return None


def _own_breaks(stmts):
    """The lists holding a `break` of the loop whose body is `stmts` (not of a loop inside it)."""
    found = []
    for st in stmts:
        if isinstance(st, gast.Break):
            found.append(stmts)
        elif not isinstance(st, (gast.For, gast.While)):
            for inner in traversal.blocks_in(st):
                found += _own_breaks(inner)
    return found


def _returns_a_sequence(callee):
    """Whether the call `callee` returns an array, list or tuple (never an iterator): a
    NumPy function or array method with a derivative rule, `x.tolist()`, or the builtin
    `list`, `tuple` or `sorted` (which read their argument whole, once)."""
    if callee.kind == "method" and callee.path == "tolist":
        return True
    fn = callee.obj
    if fn is None or callee.kind not in ("function", "method"):
        return False
    if callee.kind == "function" and any(fn is b for b in _SEQUENCE_BUILTINS):
        return True
    module = getattr(fn, "__module__", None) or ""
    numpy_ufunc = isinstance(fn, np.ufunc) and getattr(np, fn.__name__, None) is fn  # NumPy 1's have no __module__
    return (numpy_ufunc or module == "numpy" or module.startswith("numpy.")) and registry.lookup(fn) is not None


def _own_nodes(stmt):
    """The nodes of the statement `stmt` outside the statements it holds."""
    todo = [getattr(stmt, f, None) for f in stmt._fields if f not in ("body", "orelse", "finalbody", "handlers")]
    while todo:
        node = todo.pop()
        if isinstance(node, list):
            todo += node
        elif isinstance(node, gast.AST) and not isinstance(node, gast.stmt):
            yield node
            todo += [getattr(node, f, None) for f in node._fields]


def is_mapping(value):
    """Whether a loop over `value` gives its keys (a dict), not its entries."""
    return isinstance(value, collections.abc.Mapping)


def run(tree, program, activity, calls, namer):
    """Rewrite the loops of the ANF `tree` whose target is active. Returns (whether any
    changed, the checks of the arguments read as sequences).

    The checks are (parameter position, keys, `is_mapping`, message, location) for each
    rewritten `for v in a:` whose `a` is a parameter or an entry of one (`a['sub']`):
    the derivative is right only when that argument is no dict, which only the call
    shows (api.check_arguments raises the error they describe).
    New calls (`len`, `range`, `min`) are entered in the resolution table `calls`.
    """
    walker = _Iteration(program, activity, calls, namer, tree)
    tree.body = walker.block(tree.body)
    return walker.changed, tuple(walker.argument_checks)
