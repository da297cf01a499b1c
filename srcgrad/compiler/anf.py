"""A-normal form: every statement does one operation on atoms.

Before:  y = np.tanh(h @ W + x[t] @ U) * 2.0
After:   h_at_W = h @ W
         x_t = x[t]
         x_t_at_U = x_t @ U
         _t1 = h_at_W + x_t_at_U
         tanh_t1 = np.tanh(_t1)
         y = tanh_t1 * 2.0

Post-condition. An atom is a name, a constant (or its negation), a global
attribute chain (`np.pi`) or a tuple/list of atoms. Statements are only:
- `name = simple` where simple is an atom, `a op b`, `op a`, `a cmp b`, a call with
  atom arguments (function: a global name or chain, or `atom.method`),
  `atom.attr`, `atom[index of atoms]`, or a tuple/list/dict of atoms;
- `name[index of atoms] = atom`; `expression-call` statements; `return atom`;
- `if atom:`, `for name in simple:` (the iterable a call with atom arguments or an
  atom; not a call of a generator's listing, whose list gets a name), `while simple:` (re-evaluated test of atoms, or a variable recomputed at the
  end of the body), `break`, `pass`, `raise`, `assert`.
Inside a compound statement an assignment's target does not appear on its right-hand
side (`s = s + x` becomes `s_plus_x = s + x; s = s_plus_x`, and `r = r`, as in
`r = r if c else y`, is dropped), so reverse mode can read both the old and the new value. Augmented and annotated assignments, `and`/`or`,
`a if c else b`, chained comparisons and tuple unpacking are spelled out.

The walrus operator becomes an assignment where Python evaluates it, `y := e` ->
`y = e`, read as `y` afterwards: `if (n := len(x)) > 2:` -> `n = len(x); n_gt_2 = n > 2`,
in a `while` test before every test (the test is recomputed at the end of the body),
in a short-circuit operand or a conditional branch only on the path that evaluates it.
A read of `y` that Python evaluates before the walrus in the same statement reads a
copy made where Python reads it (`y + (y := 2)` -> `y_1 = y; y = 2; y_1 + y`); such a
statement is normalized in Python's order of evaluation (a dict display key by value,
`y[i] = v` the value first). fence.py refuses the walruses this cannot express.
"""

import gast

from .. import runtime
from . import generator_lists, jumps, printing, syntax, traversal
from .anf_displays import Displays
from .naming import cond_hint as _cond_hint, content_name as _content_name, word as _word


_CONTAINER_STORES = frozenset({"append", "extend", "insert"})  # list methods storing an argument


class _ANF(Displays):
    """The normalizer: statements here, displays and comprehensions in `Displays`."""

    def __init__(self, namer, local_names, shared=None, known=()):
        self.namer = namer
        self.locals = local_names
        self.known = known  # parameters bound to a known value (`self`): their `.get` is their own
        self.listings = frozenset()  # names bound to generators' listings (`run`)
        self.shared = shared or {}  # augmented assignments to check (fence.shared_augmented)
        self.depth = 0
        self.pending = ()  # walrus targets of the statement being normalized, not yet assigned
        self.walrus = False  # whether the function has a walrus at all (else pending stays empty)
        # simple statements made here, each located whole: `syntax.located` need not walk them again
        self.located = set()

    # --- statements ------------------------------------------------------------

    def block(self, stmts):
        out, done = [], self.located
        for stmt in stmts:
            for new in self.stmt(stmt):
                out.append(syntax.located(new, stmt, done))
                self._located_whole(new, stmt)
        return out

    def _located_whole(self, new, old):
        """Note the statement `new`, just located at `old`, as located whole, where it
        is: `old` has a line, and `new` is no block (which may yet gain statements)."""
        if getattr(old, "lineno", None) is not None and traversal.block_fields(type(new)) == ("",):
            self.located.add(new)

    def nested(self, stmts):
        self.depth += 1
        try:
            return self.block(stmts)
        finally:
            self.depth -= 1

    def stmt(self, s):
        method = getattr(self, "stmt_" + type(s).__name__, None)
        if method is None:
            return [s]
        if not self.walrus:
            return method(s)
        outer, self.pending = self.pending, _walrus_targets(s)
        try:
            return method(s)
        finally:
            self.pending = outer

    def stmt_Expr(self, s):
        if isinstance(s.value, gast.Constant):
            return []  # docstrings and bare constants do nothing
        call = s.value
        if (isinstance(call, gast.Call) and isinstance(call.func, gast.Attribute) and call.func.attr == "extend"
                and isinstance(call.func.value, gast.Name) and call.func.value.id in self.locals
                and len(call.args) == 1 and not call.keywords):
            return self.extend(s, call.func.value, call.args[0])
        pre, value = self.simple(s.value)
        if isinstance(s.value, gast.NamedExpr):
            return pre  # `(y := e)` alone: the assignment
        return pre + [syntax.expr(value)]

    def extend(self, s, receiver, items):
        """`xs.extend(items)` -> one `xs.append(item)` per item (a loop unless `items` is a display)."""
        def append(item):
            return syntax.located(syntax.expr(syntax.call(syntax.attr(syntax.copy(receiver), "append"), [item])), s)

        if isinstance(items, (gast.List, gast.Tuple)):
            return [new for elt in items.elts for new in self.stmt(append(elt))]
        item = self.namer.fresh("item")
        self.locals.add(item)
        loop = syntax.located(gast.For(target=syntax.name(item, store=True), iter=items,
                                       body=[append(syntax.name(item))], orelse=[], type_comment=None), s)
        return self.stmt(loop)


    def stmt_Assign(self, s):
        if len(s.targets) > 1:
            pre, value = self.atom(s.value)
            if type(value) is not gast.Name and type(value) is not gast.Constant:
                # a display (`a = b = [v]`) is an atom too: made once, one object under every name
                temp = self.namer.fresh(_content_name(value) or "value")
                self.locals.add(temp)
                pre = pre + [syntax.located(syntax.assign(temp, value), s)]
                value = syntax.name(temp)
            return pre + [st for t in s.targets for st in self.assign_to(t, value)]
        return self.assign_to(s.targets[0], s.value)

    def stmt_AnnAssign(self, s):
        return [] if s.value is None else self.assign_to(s.target, s.value)

    def stmt_AugAssign(self, s):
        if isinstance(s.target, gast.Name):
            read = syntax.name(s.target.id)
            checks = []
            for other, refusal in self.shared.get((s.lineno, s.col_offset), ()):
                # other None: `z op= v` is exact where z is a number (sharing.py), checked when it runs
                refuse = (("refuse_changed_entry", runtime.refuse_changed_entry) if other is None
                          else ("refuse_shared", runtime.refuse_shared))
                shared = [] if other is None else [syntax.name(other)]
                call = syntax.call(self.namer.helper(*refuse), [syntax.name(s.target.id), *shared, *syntax.refusal_arguments(refusal)])
                checks.append(syntax.expr(call))
            # an ndarray changed in place keeps its dtype and shape (runtime/writes.py)
            written = syntax.call(self.namer.helper("in_place", runtime.in_place),
                                  [syntax.binop(read, s.op, s.value), syntax.name(s.target.id)])
            return checks + self.assign_to(s.target, written)
        if isinstance(s.target, gast.Subscript):
            pre, container = self.atom(s.target.value)
            pre2, index = self.index(s.target.slice)
            current = syntax.subscript(container, index)
            found = self.shared.get((s.lineno, s.col_offset), ())
            checks = [refusal for other, refusal in found if other is None]
            if checks:  # `l[i] op= v` exact where l is an array or the entry a number (sharing.py): checked when it runs
                pre2a, current = self.atom(current)
                refuse = self.namer.helper("refuse_changed_item", runtime.refuse_changed_item)
                pre2 = pre2 + pre2a + [syntax.expr(syntax.call(refuse, [syntax.copy(container), syntax.copy(current),
                                                                        *syntax.refusal_arguments(r)])) for r in checks]
            shared = list({other: (other, refusal) for other, refusal in reversed(found) if other is not None}.values())[::-1]
            if shared:  # also exact where the entry shares memory with none of `other` nor another entry (sharing.py)
                if not checks:
                    pre2a, current = self.atom(current)
                    pre2 = pre2 + pre2a
                refuse = self.namer.helper("refuse_shared_entry", runtime.refuse_shared_entry)
                pre2 = pre2 + [syntax.expr(syntax.call(refuse, [
                    syntax.copy(container), syntax.copy(current), syntax.tuple_([syntax.name(n) for n in other]),
                    *syntax.refusal_arguments(r)])) for other, r in shared]
                # an ndarray changed in place keeps its dtype and shape (runtime/writes.py)
                pre3, value = self.atom(syntax.call(self.namer.helper("in_place", runtime.in_place),
                                                    [syntax.binop(current, s.op, s.value), syntax.copy(current)]))
                return pre + pre2 + pre3 + [syntax.assign(syntax.subscript(container, syntax.copy(index)), value)]
            pre3, value = self.atom(syntax.binop(current, s.op, s.value))
            return pre + pre2 + pre3 + [syntax.assign(syntax.subscript(container, syntax.copy(index)), value)]
        raise _unsupported(s, "augmented assignment to an attribute")

    def assign_to(self, target, value):
        if isinstance(target, gast.Name) and isinstance(value, gast.IfExp):
            pre, test = self.atom(value.test, hint=_cond_hint(value.test))
            body = self.nested([syntax.located(syntax.assign(target.id, value.body), value)])
            orelse = self.nested([syntax.located(syntax.assign(target.id, value.orelse), value)])
            return pre + [syntax.if_(test, body, orelse)]
        if (isinstance(target, gast.Name) and isinstance(value, (gast.ListComp, gast.GeneratorExp, gast.DictComp))
                and target.id not in traversal.names_read(value)):
            return self.expr_ListComp(value, result=target.id)[0]  # build the list in place
        if isinstance(target, gast.Name) and type(value) is gast.Dict and target.id not in traversal.names_read(value):
            pre, simple = self.dict_display(value, *self.dict_entries(value), result=target.id)
            return pre if syntax.is_name(simple, target.id) else pre + [syntax.assign(target.id, simple)]
        if isinstance(target, gast.Name):
            pre, simple = self.simple(value, hint=target.id)
            if self.depth and syntax.is_name(simple, target.id):
                return pre  # `r = r` (also `r = r if c else y`'s first branch) changes nothing
            if self.depth and target.id in traversal.names_read(simple) and not syntax.is_name(simple):
                temp = self.namer.fresh(_content_name(simple)) if _content_name(simple) else self.namer.temp()
                return pre + [syntax.assign(temp, simple), syntax.assign(target.id, syntax.name(temp))]
            return pre + [syntax.assign(target.id, simple)]
        if isinstance(target, (gast.Tuple, gast.List)):
            return self.unpack(target, value)
        if isinstance(target, gast.Subscript):
            if self.pending:  # a walrus: Python evaluates the value before the target's parts
                pre3, rhs = self.atom(value)
                pre, container = self.atom(target.value)
                pre2, index = self.index(target.slice)
                pre, pre3 = pre3 + pre, []
            else:
                pre, container = self.atom(target.value)
                pre2, index = self.index(target.slice)
                pre3, rhs = self.atom(value)
            if isinstance(rhs, (gast.List, gast.Tuple)):  # `y[i] = [a, b]`: the value gets a name
                temp = self.namer.fresh("values")
                pre3.append(syntax.assign(temp, rhs))
                rhs = syntax.name(temp)
            return pre + pre2 + pre3 + [syntax.assign(syntax.subscript(container, index), rhs)]
        raise _unsupported(target, "assignment to an attribute")

    def unpack(self, target, value):
        if (isinstance(value, (gast.Tuple, gast.List)) and len(value.elts) == len(target.elts)
                and not any(isinstance(t, gast.Starred) for t in target.elts)):  # `a, *r = [u, v]`: r is [v]
            pre, temps = [], []
            for elt in value.elts:  # evaluate every element before assigning any target
                p, a = self.atom(elt)
                pre += p
                if syntax.is_name(a) and a.id in traversal.names_stored(target):
                    temp = self.namer.fresh(a.id + "_old")
                    pre.append(syntax.assign(temp, a))
                    a = syntax.name(temp)
                temps.append(a)
            out = pre
            for t, a in zip(target.elts, temps):
                out += self.assign_to(t, a)
            return out
        pre, whole = self.atom(value)
        if isinstance(whole, (gast.List, gast.Tuple)):  # `a, *r = [b, a]`: r reads a before a is written
            temp = self.namer.fresh("values")
            pre.append(syntax.assign(temp, whole))
            whole = syntax.name(temp)
        out = pre
        stars = [k for k, t in enumerate(target.elts) if isinstance(t, gast.Starred)]
        after = len(target.elts) - stars[0] - 1 if stars else 0
        for k, t in enumerate(target.elts):
            if isinstance(t, gast.Starred):  # `first, *rest = xs`: rest = list(xs[1:])
                part = syntax.subscript(whole, syntax.slice_(syntax.const(k), syntax.const(-after) if after else None, None))
                out += self.assign_to(t.value, syntax.call("list", [part]))
            else:
                index = k if not stars or k < stars[0] else k - len(target.elts)
                out += self.assign_to(t, syntax.subscript(whole, syntax.const(index)))
        return out

    def stmt_Return(self, s):
        if s.value is None:
            return [syntax.return_(syntax.const(None))]
        pre, value = self.atom(s.value, hint="out")
        if not isinstance(value, gast.Name):  # the output is always a name (`return a, b` too)
            out = self.namer.fresh("out")
            pre.append(syntax.located(syntax.assign(out, value), s))
            value = syntax.name(out)
        return pre + [syntax.return_(value)]

    def stmt_If(self, s):
        pre, test = self.atom(s.test, hint=_cond_hint(s.test))
        body, orelse = self.nested(s.body), self.nested(s.orelse)
        if isinstance(test, gast.Name) and test.id in traversal.names_stored(body + orelse):
            # `if returned: ... else: <a loop that may set returned>` (jumps.py): the branch
            # tests a copy, so no branch reassigns its own test
            held = self.namer.fresh(f"{test.id}_before")
            pre.append(syntax.located(syntax.assign(held, test), s))
            test = syntax.name(held)
        return pre + [syntax.if_(test, body, orelse)]

    def stmt_For(self, s):
        if s.orelse:
            raise _unsupported(s, "`for ... else`")
        pre, iterable = self.simple(s.iter)
        if (not _is_atom(iterable) and not self._atom_call(iterable)) or (
            isinstance(iterable, gast.Attribute) and self._local_attribute(iterable)  # `for r in X.T`
        ) or self._listing_call(iterable):
            pre2, iterable = self.atom(iterable)
            pre += pre2
        body = self.nested(s.body)
        if isinstance(s.target, gast.Name):
            return pre + [syntax.for_(s.target.id, iterable, body)]
        item = self.namer.fresh("item")
        self.depth += 1
        unpack = self.unpack(s.target, syntax.name(item))
        self.depth -= 1
        return pre + [syntax.for_(item, iterable, unpack + body)]

    def stmt_While(self, s):
        if s.orelse:
            raise _unsupported(s, "`while ... else`")
        pre, test = self.simple(s.test)
        body = self.nested(s.body)
        if not pre:
            return [syntax.while_(test, body)]
        cond = self.namer.fresh(_cond_hint(s.test))
        # the test needs statements of its own: compute it before the loop and again
        # at the end of each iteration (jumps.py has removed every `continue`)
        self.depth += 1
        again = self.block([syntax.assign(cond, syntax.copy(s.test))])
        self.depth -= 1
        first = pre + [syntax.assign(cond, test)]
        return first + [syntax.while_(syntax.name(cond), jumps.extend_falling_through(body, again))]

    # --- expressions -----------------------------------------------------------

    def atom(self, e, hint=None):
        """(statements, atom) computing `e`."""
        pre, simple = self.simple(e, hint=hint)
        if type(simple) is gast.Name or type(simple) is gast.Constant:  # atoms with no attribute read
            return pre, simple
        if _is_atom(simple) and not self._local_attribute(simple):
            return pre, simple
        base = hint or _content_name(simple)
        temp = self.namer.fresh(base) if base else self.namer.temp()
        self.locals.add(temp)  # `temp.T` reads an attribute of a local value, not of a global
        made = syntax.located(syntax.assign(temp, simple), e, self.located)
        self._located_whole(made, e)
        return pre + [made], syntax.name(temp)

    def atoms(self, exprs):
        pre, out = [], []
        for e in exprs:
            p, a = self.atom(e)
            pre += p
            out.append(a)
        return pre, out

    def simple(self, e, hint=None):
        """(statements, simple expression) computing `e`."""
        method = getattr(self, "expr_" + type(e).__name__, None)
        if method is None:
            raise _unsupported(e, f"the expression `{printing.unparse(e)}`")
        return method(e, hint) if method.__code__.co_argcount == 3 else method(e)

    def expr_Name(self, e):
        if e.id in self.pending:  # read before a walrus of this statement assigns it
            temp = self.namer.fresh(e.id)
            self.locals.add(temp)
            return [syntax.located(syntax.assign(temp, e), e)], syntax.name(temp)
        return [], e

    def expr_NamedExpr(self, e, hint=None):
        """`(y := e)` -> `y = e`, then read as `y`."""
        name = e.target.id
        self.pending = tuple(n for n in self.pending if n != name)  # assigned from here on
        pre = self.assign_to(syntax.name(name, store=True), e.value)
        return [syntax.located(s, e) for s in pre], syntax.name(name)

    def expr_Constant(self, e):
        return [], e

    def expr_JoinedStr(self, e):
        return [], e

    def expr_Attribute(self, e):
        if self._is_global_chain(e):
            return [], e
        pre, value = self.atom(e.value)
        return pre, syntax.attr(value, e.attr)

    def expr_BinOp(self, e):
        pre, left = self.atom(e.left)
        pre2, right = self.atom(e.right)
        return pre + pre2, syntax.binop(left, e.op, right)

    def expr_UnaryOp(self, e):
        if syntax.is_const(e):
            return [], e
        pre, operand = self.atom(e.operand)
        return pre, gast.UnaryOp(op=e.op, operand=operand)

    def expr_Compare(self, e):
        if len(e.ops) == 1:
            pre, left = self.atom(e.left)
            pre2, right = self.atom(e.comparators[0])
            return pre + pre2, syntax.compare(left, e.ops[0], right)
        # a < b < c  ->  a < b and b < c, with b evaluated once
        pre, left = self.atom(e.left)
        pre2, middle = self.atom(e.comparators[0])
        first = syntax.compare(left, e.ops[0], middle)
        rest = gast.Compare(left=middle, ops=e.ops[1:], comparators=e.comparators[1:])
        out, value = self.expr_BoolOp(gast.BoolOp(op=gast.And(), values=[first, rest]))
        return pre + pre2 + out, value

    def expr_BoolOp(self, e, hint=None):
        # `a and b` -> t = a; if t: t = b   (short-circuit evaluation kept)
        temp = self.namer.fresh(hint or "cond")
        pre, first = self.simple(e.values[0])
        out = pre + [syntax.assign(temp, first)]
        if len(e.values) > 1:
            rest = e.values[1] if len(e.values) == 2 else gast.BoolOp(op=e.op, values=e.values[1:])
            self.depth += 1
            inner_pre, inner = self.simple(rest)
            self.depth -= 1
            inner_block = inner_pre + [syntax.assign(temp, inner)]
            # the branch reassigns `temp`, so it tests a copy (reverse mode re-tests it)
            test = syntax.name(temp) if isinstance(e.op, gast.And) else syntax.not_(syntax.name(temp))
            cond = self.namer.fresh("cond")
            out.append(syntax.assign(cond, test))
            test = syntax.name(cond)
            out.append(syntax.if_(test, inner_block))
        return out, syntax.name(temp)

    def expr_IfExp(self, e, hint=None):
        temp = self.namer.fresh(hint or "choice")
        pre, test = self.atom(e.test, hint=_cond_hint(e.test))
        self.depth += 1
        body_pre, body = self.simple(e.body)
        else_pre, orelse = self.simple(e.orelse)
        self.depth -= 1
        branch = syntax.if_(test, body_pre + [syntax.assign(temp, body)], else_pre + [syntax.assign(temp, orelse)])
        return pre + [branch], syntax.name(temp)

    def expr_Call(self, e, hint=None):
        pre = []
        func = e.func
        if (isinstance(func, gast.Attribute) and func.attr == "get" and not self._is_global_chain(func)
                and 1 <= len(e.args) <= 2 and not e.keywords
                and not (isinstance(func.value, gast.Name) and func.value.id in self.known)):
            return self.dict_get(e, hint)
        if isinstance(func, gast.Name) and func.id in self.pending:
            p, func = self.atom(func)
            pre += p
        elif isinstance(func, gast.Attribute) and not self._is_global_chain(func):
            p, obj = self.atom(func.value)
            pre += p
            func = syntax.attr(obj, func.attr)
        elif not isinstance(func, (gast.Name, gast.Attribute)):
            p, func = self.atom(func)
            pre += p
        # a display stored into a container (`L.append((a, b))`) gets a name of its own, as
        # an entry of a display does: the container rules follow names
        stores = isinstance(func, gast.Attribute) and func.attr in _CONTAINER_STORES and not self._is_global_chain(func)
        p, args = self.entries(e.args) if stores else self.atoms(e.args)
        pre += p
        if syntax.is_name(func, "next") and e.args and isinstance(e.args[0], gast.GeneratorExp):
            args[0] = syntax.call(syntax.name("iter"), [args[0]])  # the generator became a list
        keywords = []
        for kw in e.keywords:
            p, value = self.atom(kw.value)
            pre += p
            keywords.append((kw.arg, value))
        return pre, syntax.call(func, args, keywords)

    def dict_get(self, e, hint):
        """`d.get(k, v)` -> `found = has_key(d, k); if found: got = d[k] else: got = v`: the
        entry's rules where the key is there, the default's where it is not (its
        arguments evaluated first, as in the call)."""
        pre, d = self.atom(e.func.value)
        p, args = self.atoms(e.args)
        pre += p
        found = self.namer.fresh("found")
        got = self.namer.fresh(hint or (f"{_word(d)}_get" if _word(d) else "got"))
        self.locals |= {found, got}
        check = syntax.call(self.namer.helper("has_key", runtime.has_key), [d, args[0]])
        default = args[1] if len(args) == 2 else syntax.const(None)
        branch = syntax.if_(syntax.name(found), [syntax.assign(got, syntax.subscript(syntax.copy(d), syntax.copy(args[0])))],
                            [syntax.assign(got, default)])
        return pre + [syntax.assign(found, check), branch], syntax.name(got)

    def expr_Subscript(self, e):
        pre, value = self.atom(e.value)
        pre2, index = self.index(e.slice)
        return pre + pre2, syntax.subscript(value, index)

    def index(self, s):
        if isinstance(s, gast.Slice):
            pre, parts = [], []
            for part in (s.lower, s.upper, s.step):
                if part is None:
                    parts.append(None)
                else:
                    p, a = self.atom(part)
                    pre += p
                    parts.append(a)
            return pre, syntax.slice_(*parts)
        if isinstance(s, gast.Tuple):
            pre, parts = [], []
            for elt in s.elts:
                p, a = self.index(elt)
                pre += p
                parts.append(a)
            return pre, syntax.tuple_(parts)
        return self.atom(s)

    def _is_global_chain(self, e):
        while isinstance(e, gast.Attribute):
            e = e.value
        return isinstance(e, gast.Name) and e.id not in self.locals

    def _local_attribute(self, e):
        """An attribute read on a local value (`M.T`): an operation, not an atom."""
        return any(isinstance(n, gast.Attribute) and not self._is_global_chain(n) for n in traversal.walk(e))

    def _atom_call(self, e):
        return isinstance(e, gast.Call) and all(_is_atom(a) for a in e.args)

    def _listing_call(self, e):
        """Whether `e` calls a generator's listing (generator_lists.py), whose list a loop
        then reads by a name (a comprehension over `pairs(x)`)."""
        return isinstance(e, gast.Call) and isinstance(e.func, gast.Name) and e.func.id in self.listings


def _walrus_targets(stmt):
    """The names walruses assign in what `stmt` evaluates itself (a compound statement's
    test or iterable, not its blocks)."""
    if isinstance(stmt, (gast.If, gast.While)):
        roots = [stmt.test]
    elif isinstance(stmt, gast.For):
        roots = [stmt.iter]
    else:
        roots = [stmt]
    return tuple(n.target.id for root in roots for n in traversal.walk(root) if isinstance(n, gast.NamedExpr))


def _is_atom(e):
    if isinstance(e, (gast.Name, gast.Constant)) or syntax.is_const(e):
        return True
    if isinstance(e, gast.Attribute):
        while isinstance(e, gast.Attribute):
            e = e.value
        return isinstance(e, gast.Name)
    if isinstance(e, (gast.Tuple, gast.List)):  # one level: `[[a, b], c]` names its inner list
        return all(_is_atom(x) and not isinstance(x, (gast.Tuple, gast.List)) for x in e.elts)
    return False


def _unsupported(node, what):
    err = NotImplementedError(what)
    err.node = node
    return err


def run(tree, namer, local_names, shared=None, known=(), listed_defs=(), nested=False):
    """Put the FunctionDef `tree` in A-normal form (in place) and return it.

    `local_names` are the function's parameters and assigned names: attribute chains
    rooted elsewhere (`np.pi`) count as atoms. `known` are the parameters bound to a
    known value (`Program.bound`), whose methods are their own (`self.get(k)`). With
    `nested`, the body is normalized as the body of a compound statement (a callee's
    statements spliced into one).
    """
    normalizer = _ANF(namer, set(local_names), shared, frozenset(known))
    normalizer.depth = int(nested)
    # calls of generators' listings (generator_lists.py) and of generator `def`s listed in place: their lists get names
    normalizer.listings = frozenset(listed_defs) | frozenset(
        name for name, value in (known.items() if isinstance(known, dict) else ())
        if generator_lists.generator_of(getattr(value, "__func__", value)) is not None)
    normalizer.walrus = traversal.holds(tree, gast.NamedExpr)
    tree.body = normalizer.block(tree.body)
    return tree
