"""Structure jumps so every block runs straight to its end.

Before:                          After:
    for i in range(n):               for i in range(n):
        if x[i] < 0:                     cond = x[i] < 0      (unchanged test)
            continue                     if x[i] < 0:
        s = s + x[i]                         pass
                                         else:
                                             s = s + x[i]

A loop's `else` block runs where the loop ends without `break`: after the loop when
its body has no `break` of its own, else under a flag that each such `break` sets
(`broke = True`) and the block tests (`if not broke:`).

Post-conditions: no loop has an `else` block; there is no `continue`; a `break` is only ever the last statement
of a block; the function has exactly one `return`, its last top-level statement.
Statements after an `if` that may jump move into the branches that fall through
(duplicated when several do). A `return` inside a loop sets a flag, stores the
value and breaks; the code after the loop runs only when the flag is not set.
"""

import gast

from . import syntax, traversal


class _Jumps:
    def __init__(self, namer):
        self.namer = namer
        self.result = None  # name of the result variable, made on first need
        self.returned = None  # name of the "returned from inside a loop" flag

    def function(self, tree):
        body = self.block(tree.body, in_loop=False)
        returns = [n for n in traversal.statements(gast.Module(body=body, type_ignores=[])) if isinstance(n, gast.Return)]
        if len(returns) == 1 and body and body[-1] is returns[0] and self.result is None:
            tree.body = body
            return tree
        result = self._result_name()
        _return_none_at_open_ends(body)
        body = self._returns_to_assignments(body, result)
        body.append(syntax.return_(syntax.name(result)))
        prelude = []
        if self.returned is not None:
            prelude = [syntax.assign(self.returned, syntax.const(False))]
        tree.body = prelude + body
        return tree

    def _result_name(self):
        if self.result is None:
            self.result = self.namer.fresh("result")
        return self.result

    def block(self, stmts, in_loop):
        out = []
        for k, stmt in enumerate(stmts):
            rest = stmts[k + 1 :]
            if isinstance(stmt, (gast.Break, gast.Continue, gast.Return)):
                out.append(stmt)
                return out  # code after a jump never runs
            if isinstance(stmt, gast.If):
                stmt.body = self.block(stmt.body, in_loop)
                stmt.orelse = self.block(stmt.orelse, in_loop)
                out.append(stmt)
                if _may_jump(stmt):
                    tail = self.block(rest, in_loop)
                    _push_into_leaves(stmt, tail)
                    return out
                continue
            if isinstance(stmt, (gast.For, gast.While)) and stmt.orelse:
                return out + self.block(self._without_else(stmt) + rest, in_loop)
            if isinstance(stmt, (gast.For, gast.While)):
                returned = self._loop(stmt)
                out.append(stmt)
                if returned:
                    # the loop may have returned: run the rest only when it did not
                    jump = syntax.break_() if in_loop else syntax.return_(syntax.name(self._result_name()))
                    guard = syntax.if_(syntax.name(self.returned), [jump])
                    gast.copy_location(guard, stmt)
                    out.append(guard)
                    _push_into_leaves(guard, self.block(rest, in_loop))
                    return out
                continue
            out.append(stmt)
        return out

    def _without_else(self, loop):
        """The statements that run `loop` and then its `else` block where no `break` of
        its own ended it; `loop` loses the block."""
        orelse, loop.orelse = loop.orelse, []
        if not _flag_breaks(loop.body, None):
            return [loop] + orelse
        broke = self.namer.fresh("broke")
        _flag_breaks(loop.body, broke)
        unset = gast.copy_location(syntax.assign(broke, syntax.const(False)), loop)
        return [unset, loop, gast.copy_location(syntax.if_(syntax.not_(syntax.name(broke)), orelse), orelse[0])]

    def _loop(self, loop):
        """Normalize a loop body; True when the body contained a `return`."""
        has_return = any(isinstance(n, gast.Return) for n in _walk_same_function(loop.body))
        if has_return:
            loop.body = self._loop_returns(loop.body)
        body = self.block(loop.body, in_loop=True)
        loop.body = _drop_continues(body) or [syntax.pass_()]
        return has_return

    def _loop_returns(self, stmts):
        """`return e` -> `result = e; returned = True; break` (nested loops: through their bodies)."""
        if self.returned is None:
            self.returned = self.namer.fresh("returned")
        result = self._result_name()
        out = []
        for stmt in stmts:
            if isinstance(stmt, gast.Return):
                value = stmt.value if stmt.value is not None else syntax.const(None)
                new = [
                    syntax.assign(result, value),
                    syntax.assign(self.returned, syntax.const(True)),
                    syntax.break_(),
                ]
                out.extend(gast.copy_location(s, stmt) for s in new)
                return out
            if isinstance(stmt, gast.If):
                stmt.body = self._loop_returns(stmt.body)
                stmt.orelse = self._loop_returns(stmt.orelse)
            out.append(stmt)
        return out

    def _returns_to_assignments(self, stmts, result):
        out = []
        for stmt in stmts:
            if isinstance(stmt, gast.Return):
                value = stmt.value if stmt.value is not None else syntax.const(None)
                if not syntax.is_name(value, result):
                    out.append(gast.copy_location(syntax.assign(result, value), stmt))
                return out or [syntax.pass_()]
            if isinstance(stmt, gast.If):
                stmt.body = self._returns_to_assignments(stmt.body, result) or [syntax.pass_()]
                stmt.orelse = self._returns_to_assignments(stmt.orelse, result)
            out.append(stmt)
        return out


def _flag_breaks(stmts, flag):
    """Whether `stmts` (a loop's body) hold a `break` of that loop; with a `flag` name,
    put `flag = True` before each. Breaks in the bodies of nested loops are theirs;
    those in their `else` blocks are this loop's."""
    found = False
    for k in range(len(stmts) - 1, -1, -1):
        s = stmts[k]
        if isinstance(s, gast.Break):
            found = True
            if flag is not None:
                stmts.insert(k, gast.copy_location(syntax.assign(flag, syntax.const(True)), s))
        elif isinstance(s, gast.If):
            found = _flag_breaks(s.body, flag) | _flag_breaks(s.orelse, flag) or found
        elif isinstance(s, (gast.For, gast.While)):
            found = _flag_breaks(s.orelse, flag) or found
    return found


def _walk_same_function(stmts):
    for stmt in stmts:
        yield from traversal.walk(stmt)


def _return_none_at_open_ends(stmts):
    """Give every leaf of a function body that falls off its end an explicit `return None`."""
    last = stmts[-1] if stmts else None
    if isinstance(last, gast.Return):
        return
    if isinstance(last, gast.If) and _may_jump(last):
        _return_none_at_open_ends(last.body)
        _return_none_at_open_ends(last.orelse)
        return
    stmts.append(syntax.return_(syntax.const(None)))


def _may_jump(stmt):
    """Whether an (already normalized) `if` has a branch leaf ending in a jump."""
    for branch in (stmt.body, stmt.orelse):
        if branch:
            last = branch[-1]
            if isinstance(last, (gast.Break, gast.Continue, gast.Return)):
                return True
            if isinstance(last, gast.If) and _may_jump(last):
                return True
    return False


def _push_into_leaves(stmt, tail):
    """Append `tail` to every branch of `stmt` that falls through (copies after the first)."""
    if tail:
        give = _giver(tail)
        _into(stmt.body, give)
        _into(stmt.orelse, give)


def extend_falling_through(block, tail):
    """`block` (changed in place) with `tail` appended on every path through it that
    does not end in a jump, as this pass leaves jumps (copies of `tail` after the first)."""
    if tail:
        _into(block, _giver(tail))
    return block


def _giver(tail):
    """A function giving `tail` the first time it is called, then copies of it."""
    used = [False]

    def give():
        if not used[0]:
            used[0] = True
            return tail
        return syntax.copy(tail)

    return give


def _into(branch, give):
    if not branch:
        branch.extend(give())
        return
    last = branch[-1]
    if isinstance(last, (gast.Break, gast.Continue, gast.Return)):
        return
    if isinstance(last, gast.If) and _may_jump(last):
        _into(last.body, give)
        _into(last.orelse, give)
        return
    branch.extend(give())


def _drop_continues(stmts):
    out = []
    for stmt in stmts:
        if isinstance(stmt, gast.Continue):
            break
        if isinstance(stmt, gast.If):
            stmt.body = _drop_continues(stmt.body) or [syntax.pass_()]
            stmt.orelse = _drop_continues(stmt.orelse)
        out.append(stmt)
    return out


def run(tree, namer):
    """Normalize jumps in the FunctionDef `tree` (in place) and return it."""
    return _Jumps(namer).function(tree)
