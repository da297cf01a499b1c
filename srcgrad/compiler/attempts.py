"""`try` statements, as branches on whether each statement of the `try` block completed.

Before (user code):                       Through the passes:
    try:                                      caught = None
        L = np.linalg.cholesky(K)             attempt = __srcgrad_try__(0)
    except np.linalg.LinAlgError:             if attempt:
        L = np.linalg.cholesky(K2)                L_value = np.linalg.cholesky(K)
    a = np.linalg.solve(L, y)                     L = L_value
                                              else:
                                                  caught = __srcgrad_caught__(0)
                                              if caught is None:
                                                  pass
                                              elif isinstance(caught, np.linalg.LinAlgError):
                                                  L = np.linalg.cholesky(K2)
                                              a = np.linalg.solve(L, y)

`lower` (right after fence.py) gives each statement of a `try` block a branch of its
own, run while nothing was caught: its value is computed into a fresh name and
assigned to the user's target last, so a statement that raises leaves no value behind
but temporaries nobody reads. Every pass then sees plain branches, so the backward pass
runs the adjoints of exactly the statements that completed (the branch's flag is taken
as an `if`'s condition is: kept, or saved on the tape in loops) and then those of the
handler that ran. `fold` (just before emit.py) turns each marked branch back into
`try: ... except (types) as exc:`, which sets the flag to False and `caught` to the
exception, so the generated forward pass catches what the user's code catches.

Inside a branch or a loop the same holds statement by statement: an `if`'s test (and a
loop's iterable, or the arguments of its `range`, `enumerate`, `zip` and `reversed` that
are not names) is computed into a name by a marked branch of its own, the blocks' statements are units run while nothing was caught, and a loop's body
ends in `if caught is not None: break` (a `while` loop becomes `while True:` testing
`caught` and its condition first), so a statement that raises in the third turn leaves the
values of two turns and the loop variable of the third, as Python does.

A `try` statement in the block is lowered the same way, its units catching the outer
block's exception types too: its handlers, `else` and `finally` blocks run as units of
the outer block, and an exception none of its handlers takes is raised again there (a
unit, so the outer handlers take it, or it leaves). A `while` loop's `else` block runs
after the loop where a flag says its test ended it.

An augmented assignment to a name stays as written (`y += v` changes an array in place,
which the later checks refuse where another name shares it). `else` runs when nothing
was caught, `finally` after the handlers either way (its
`try` catching everything, re-raised after it when no handler took it), a bare `raise`
in a handler re-raises `caught`. Refused: statements other than assignments to names,
expressions, `raise`, `assert`, `pass`, `if`, `for`, `while` and, without `finally`,
`return`, `break` and `continue` in the `try` block (`with`, `match`, `functools.reduce`), a jump in a `try` with `finally` and a `raise` in its handlers or `else` block (the
`finally` block would not run first), exception types named by local variables, a loop
in the `try` block over an iterator that computes its items as the loop takes them (a
generator, `map`, `filter`, `iter`, `itertools`: what it raises would leave the `for`
line, which no branch catches; the stages before leave such loops as they are), and, in
reverse mode, a statement that may raise after one that overwrote a name whose value was
saved on the tape in the same branch, or after a branch or loop within the statement
(checked by `fold` on the generated code); values saved before a statement that raises
are dropped by the handler (`tape[mark:] = []`), as the backward pass skips the branch.
"""

import builtins

import gast

from . import array_writes, generator_lists, printing, syntax, traversal
from .naming import Namer
from .scope import dotted_parts, lookup_path

BEGIN, CAUGHT = "__srcgrad_try__", "__srcgrad_caught__"
_UNDOABLE_METHODS = {"append"}  # in-place methods whose undo in the backward pass is exact when skipped


def lower(program, transform="srcgrad.grad"):
    """`program.tree` with each `try` statement lowered as above (a new tree; the parse
    stays as it was, and `program.attempts` maps each marker's number to the exception
    types its `try` catches), or a `SrcGradError` at the first one that cannot be."""
    tree = program.tree
    if not any("try" in line for line in program.source_lines) or not any(
            type(s) is gast.Try for s in traversal.statements(tree)):
        return tree
    tree = syntax.copy(tree)
    lowering = _Lowering(program, f"{transform} (in `{tree.name}`)", Namer.for_tree(tree))
    lowering.guarded = traversal.guarded_loops(tree.body)
    lowering.block(tree.body)
    return tree


class _Lowering:
    def __init__(self, program, where, namer):
        self.program, self.where, self.namer = program, where, namer
        tree = program.tree
        self.locals = {a.id for a in tree.args.args + tree.args.kwonlyargs} | set(traversal.names_stored(tree))
        self.guarded = {}  # the loops in a `try` body (traversal.guarded_loops)
        # names bound to a `zip(..., strict=...)`, whose loop raises from its `for` line (see `iterable`)
        self.strict_zips = {st.targets[0].id for st in traversal.statements(tree)
                            if type(st) is gast.Assign and type(st.targets[0]) is gast.Name and _strict_zip(st.value)}

    def block(self, stmts):
        out = []
        for s in stmts:
            for inner in traversal.blocks_in(s):
                if type(s) is not gast.Try or inner is not s.body:
                    self.block(inner)
            out += self.try_(s) if type(s) is gast.Try else [s]
        stmts[:] = out
        return stmts

    def refuse(self, node, what, advice):
        raise self.program.error(node, f"{what} inside a `try` block is not supported by {self.where}; {advice}")

    def try_(self, s, outer=None):
        """The statements that run the `try` statement `s`; under another `try` block
        (`outer`: its (caught, caught types)), its block's units catch the outer types
        too, and what follows them (handlers, `else`, `finally`, an exception no handler
        took, raised again) are units of the outer block."""
        finally_ = bool(s.finalbody)
        if finally_:
            for jump in traversal.jumps_out(s.body + s.orelse + [x for h in s.handlers for x in h.body], False):
                word = type(jump).__name__.lower()
                raise self.program.error(
                    jump, f"`{word}` in a `try` with `finally` is not supported by {self.where}; set a flag and "
                    f"`{word}` after the `try` statement")
            raising = [r for r in traversal.statements(gast.Module(body=s.orelse + [x for h in s.handlers for x in h.body],
                                                                type_ignores=[])) if type(r) is gast.Raise]
            if raising:  # the `finally` block would not run before the exception leaves
                raise self.program.error(
                    raising[0], f"`raise` in a handler or `else` block of a `try` with `finally` is not supported by "
                    f"{self.where}; keep the `finally` block's work after the `try` statement, or raise after it")
        types = []
        for handler in s.handlers:
            if handler.type is not None:
                local = [n.id for n in traversal.walk(handler.type) if isinstance(n, gast.Name) and n.id in self.locals]
                if local:
                    raise self.program.error(
                        handler.type, f"an exception type named by the local variable `{local[0]}` is not supported "
                        f"by {self.where}; name the exception class itself")
            types.append(handler.type)
        everything = finally_ or any(t is None for t in types)
        caught_types = syntax.name("BaseException") if everything else _union(types + ([outer[1]] if outer else []))
        caught = self.namer.fresh("caught")
        out = [syntax.located(syntax.assign(caught, syntax.const(None)), s)]
        out += self.units(s.body, caught, caught_types)
        after = self.dispatch(s, caught, finally_, nested=outer is not None) + s.finalbody
        if finally_:
            handled = _union(types) if types and None not in types else None
            test = syntax.compare(syntax.name(caught), gast.IsNot(), syntax.const(None))
            if handled is not None:
                test = gast.BoolOp(op=gast.And(), values=[test, syntax.not_(
                    syntax.call("isinstance", [syntax.name(caught), handled]))])
            elif types:
                test = None  # a bare `except:` took everything
            if test is not None:
                after.append(syntax.located(syntax.if_(test, [syntax.raise_(syntax.name(caught))]), s))
        if outer is None:
            return out + after
        return out + self.units(after, *outer)  # run where the outer block caught nothing: as this unit is

    def units(self, stmts, caught, caught_types):
        """The statements that run the block `stmts` of (or under) a `try` block: each
        statement's unit, run only while nothing was caught (the first needs no test:
        whatever runs the block tested it)."""
        out = []
        for stmt in stmts:
            unit = self.unit(stmt, caught, caught_types)
            if not out:
                out += unit
            elif unit:
                out.append(syntax.located(syntax.if_(_is_none(caught), unit), stmt))
        return out

    def unit(self, stmt, caught, caught_types):
        """The statements that run `stmt` of a `try` block: a marked branch for one that
        may raise, the statement itself for a jump, the branch or loop itself for `if`,
        `for` and `while` (see `branch` and `loop`)."""
        if isinstance(stmt, gast.Pass) or syntax.comment_text(stmt) is not None:
            return []
        if type(stmt) is gast.If and not _construct(stmt, self.program.text(stmt)).startswith(("a `match`", "`functools")):
            return self.branch(stmt, caught, caught_types)
        if type(stmt) in (gast.For, gast.While) and "reduce(" not in self.program.text(stmt):
            return self.loop(stmt, caught, caught_types)
        if isinstance(stmt, (gast.Break, gast.Continue)) or (isinstance(stmt, gast.Return) and stmt.value is None):
            return [stmt]
        if type(stmt) is gast.Try:
            return self.try_(stmt, (caught, caught_types))
        key = len(self.program.attempts)
        self.program.attempts[key] = caught_types
        flag = self.namer.fresh("attempt")
        body, after = self.attempted(stmt, flag)
        begin = syntax.assign(flag, syntax.call(BEGIN, [syntax.const(key)]))
        branch = syntax.if_(syntax.name(flag), body, [syntax.assign(caught, syntax.call(CAUGHT, [syntax.const(key)]))])
        return [syntax.located(begin, stmt), syntax.located(branch, stmt)] + after

    def held(self, value, label, node, caught, caught_types):
        """(the statements computing `value` into a fresh name as a marked branch, the
        name): an `if`'s test or a loop's iterable, which may raise too."""
        if isinstance(value, (gast.Name, gast.Constant)) or _caught_test(value):
            return [], value
        held = self.namer.fresh(label)
        compute = syntax.located(syntax.assign(held, value), node)
        return self.unit(compute, caught, caught_types), syntax.name(held)

    def iterable(self, node, stmt, caught, caught_types):
        """(statements, the iterable) for the loop `stmt` over `node`: kept in the `for`
        line where `_kept_iterable`; a call of `range`, `enumerate`, `zip`, `reversed` kept
        with each argument that is not computed first (`enumerate(np.log(x))` ->
        `enumerate(held)`, which the loop passes read as they read `enumerate(x)`); any
        other computed into a name."""
        if any(_strict_zip(n) or (isinstance(n, gast.Name) and n.id in self.strict_zips) for n in traversal.walk(node)):
            # its `ValueError` comes from the `for` line when the loop ends, which no branch here catches
            self.refuse(stmt, "a loop over `zip(..., strict=...)`", "check the lengths before the `try` statement "
                        "(`if len(a) != len(b): raise ValueError(...)`) and loop over `zip(a, b)`")
        lazy = next((n for n in _iterated(node) if self.lazy(n)), None) if id(stmt) in self.guarded else None
        if lazy is not None:
            text = printing.unparse(lazy)
            self.refuse(stmt, f"a loop over `{text}`, an iterator that computes each item as the loop takes it,",
                        f"an exception it raises after some items would leave the `for` line, after the loop's "
                        f"turns over them, where no branch catches it; make the list first in the `try` block, "
                        f"`items = list({text})`, and loop over `items`")
        if _kept_iterable(node):
            return [], node
        if _iterable_call(node):
            before, args = [], []
            for a in node.args:
                more, a = self.iterable(a, stmt, caught, caught_types)
                if before and more:
                    more = [syntax.located(syntax.if_(_is_none(caught), more), stmt)]
                before += more
                args.append(a)
            return before, syntax.located(syntax.call(syntax.copy(node.func), args), node)
        return self.held(node, "iterable", stmt, caught, caught_types)

    def lazy(self, node):
        """Whether `node` makes an iterator that computes its items one by one: a generator
        expression, or a call of a generator function, `iter`, `map`, `filter` or one of
        `itertools`."""
        if isinstance(node, gast.GeneratorExp):
            return True
        parts = dotted_parts(node.func) if isinstance(node, gast.Call) else None
        if parts is None or (parts[0] in self.locals and parts[0] not in self.program.bound):
            return False
        found = lookup_path(parts, self.program)
        function = getattr(found, "__func__", found)
        return (any(found is f for f in (builtins.iter, builtins.map, builtins.filter))
                or getattr(found, "__module__", None) == "itertools" or generator_lists.is_generator_function(function))

    def branch(self, stmt, caught, caught_types):
        """`if test: A else: B` -> the test into a name (a marked branch: it may raise),
        then, while nothing was caught, `if held: A' else: B'` over the blocks' units."""
        before, test = self.held(stmt.test, "condition", stmt, caught, caught_types)
        chosen = syntax.located(syntax.if_(test, self.units(stmt.body, caught, caught_types),
                                           self.units(stmt.orelse, caught, caught_types)), stmt)
        return before + ([syntax.located(syntax.if_(_is_none(caught), [chosen]), stmt)] if before else [chosen])

    def loop(self, stmt, caught, caught_types):
        """A loop under a `try` block: its body's units, leaving the loop (`break`) once
        something was caught, so the loop's variables keep what Python leaves them.

        `for t in it: A` -> `for t in it: A'; if caught is not None: break` (the iterable
        computed into a name first unless it is one of the forms `_kept_iterable` keeps);
        `while test: A` -> `while True:` testing (a marked branch) at the top of each turn."""
        stop = syntax.located(syntax.if_(syntax.compare(syntax.name(caught), gast.IsNot(), syntax.const(None)),
                                         [syntax.break_()]), stmt)
        body = self.units(stmt.body, caught, caught_types)
        if type(stmt) is gast.For:
            before, iterable = self.iterable(stmt.iter, stmt, caught, caught_types)
            new = syntax.located(syntax.for_(stmt.target, iterable, body + [stop]), stmt)
            new.orelse = self.units(stmt.orelse, caught, caught_types)
            return before + ([syntax.located(syntax.if_(_is_none(caught), [new]), stmt)] if before else [new])
        before, test = self.held(stmt.test, "condition", stmt, caught, caught_types)
        if not stmt.orelse:
            ends = syntax.bool_op(gast.Or(), [syntax.compare(syntax.name(caught), gast.IsNot(), syntax.const(None)),
                                              syntax.not_(test)])
            head = [stop] + before + [syntax.located(syntax.if_(ends, [syntax.break_()]), stmt)]
            return [syntax.located(syntax.while_(syntax.const(True), head + body), stmt)]
        # `else`: run after the loop where its test ended it (not a `break`, nor an exception)
        completed = self.namer.fresh("completed")
        ended = syntax.if_(syntax.not_(test), [syntax.assign(completed, syntax.const(True)), syntax.break_()])
        head = [stop] + before + ([syntax.copy(stop)] if before else []) + [syntax.located(ended, stmt)]
        return [syntax.located(syntax.assign(completed, syntax.const(False)), stmt),
                syntax.located(syntax.while_(syntax.const(True), head + body), stmt),
                syntax.located(syntax.if_(syntax.name(completed), self.units(stmt.orelse, caught, caught_types)), stmt)]

    def attempted(self, stmt, flag):
        """(the branch's statements, what runs after it) for `stmt`: the user's target
        is assigned last, from a fresh name holding the value."""
        if isinstance(stmt, gast.AnnAssign) and stmt.value is not None:
            stmt = syntax.located(syntax.assign(stmt.target, stmt.value), stmt)
        if isinstance(stmt, gast.AugAssign) and isinstance(stmt.target, gast.Name):
            # kept as written: an array's `y += v` changes it in place (the checks of changes
            # in place that follow refuse it where another name shares y), a number's rebinds
            # y only once the value is computed
            return [stmt], []
        if isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and _names_only(stmt.targets[0]):
            target = stmt.targets[0]
            first = next(n.id for n in traversal.walk(target) if isinstance(n, gast.Name))
            held = self.namer.fresh(f"{first}_value")
            compute = syntax.located(syntax.assign(held, stmt.value), stmt)
            if isinstance(target, gast.Name):
                return [compute, syntax.located(syntax.assign(target, syntax.name(held)), stmt)], []
            # unpacked into names of its own first: the user's names (whose old values the
            # tape may save in a loop) are assigned last, by statements that cannot raise
            parts = syntax.copy(target)
            for n in traversal.walk(parts):
                if isinstance(n, gast.Name):
                    n.id = self.namer.fresh(f"{n.id}_part")
            unpack = syntax.located(syntax.assign(parts, syntax.name(held)), stmt)
            return [compute, unpack, syntax.located(syntax.assign(target, syntax.as_load(parts)), stmt)], []
        if isinstance(stmt, gast.Return) and stmt.value is not None:
            held = self.namer.fresh("result_value")
            return [syntax.located(syntax.assign(held, stmt.value), stmt)], [
                syntax.located(syntax.if_(syntax.name(flag), [syntax.return_(syntax.name(held))]), stmt)]
        if isinstance(stmt, (gast.Raise, gast.Assert)):
            return [stmt], []
        if isinstance(stmt, gast.Expr):
            call = stmt.value
            if isinstance(call, gast.Call) and isinstance(call.func, gast.Attribute) and call.func.attr not in _UNDOABLE_METHODS:
                if isinstance(call.func.value, gast.Name) and call.func.value.id in self.locals or call.func.attr == "at":
                    self.refuse(stmt, f"an in-place call (`.{call.func.attr}(...)`)",
                                "make the change after the `try` statement, or return a new value")
            return [stmt], []
        if _whole_write(stmt) and array_writes.mentioned([self.program.text(stmt)]):
            self.refuse(stmt, "a NumPy call writing into an array (`out=`, `np.copyto`, `.fill`, `.sort`)",
                        "compute the value into a name in the `try` block (`v = np.exp(x)`) and write it into the "
                        "array after the `try` statement")
        if isinstance(stmt, (gast.Assign, gast.AugAssign)):
            self.refuse(stmt, "an assignment to an entry or an attribute",
                        "assign the value to a name in the `try` block and store it after the `try` statement")
        self.refuse(stmt, _construct(stmt, self.program.text(stmt)),
                    "move it out of the `try` block, or into a function the `try` block calls")

    def dispatch(self, s, caught, finally_, nested=False):
        """The `else` block when nothing was caught, else the first handler whose types
        match; `nested` (under another `try` block), the exception raised again where none
        does (the outer block's handlers take it; with `finally`, raised after it)."""
        branches = []
        for handler in s.handlers:
            body = list(handler.body)
            _reraise(body, caught)
            if handler.name is not None:
                body.insert(0, syntax.located(syntax.assign(handler.name.id, syntax.name(caught)), handler))
            test = syntax.const(True) if handler.type is None else syntax.call("isinstance", [syntax.name(caught), syntax.copy(handler.type)])
            branches.append((syntax.located(test, handler), body))
        if not branches:
            return [syntax.located(syntax.if_(_is_none(caught), s.orelse), s)] if s.orelse else []
        chain = []
        if nested and not finally_ and all(h.type is not None for h in s.handlers):
            chain = [syntax.located(syntax.raise_(syntax.name(caught)), s)]
        for test, body in reversed(branches):
            if isinstance(test, gast.Constant):
                chain = body
                continue
            chain = [syntax.located(syntax.if_(test, body, chain), test)]
        return [syntax.located(syntax.if_(_is_none(caught), s.orelse or [syntax.pass_()], chain), s)]


def _caught_test(node):
    """Whether `node` is a test of what a `try` caught that cannot raise: `caught is None`,
    `caught is not None`, `isinstance(caught, types)`."""
    if isinstance(node, gast.Compare):
        return (isinstance(node.left, gast.Name) and len(node.ops) == 1 and isinstance(node.ops[0], (gast.Is, gast.IsNot))
                and syntax.is_const(node.comparators[0]) and node.comparators[0].value is None)
    return (isinstance(node, gast.Call) and syntax.is_name(node.func, "isinstance") and len(node.args) == 2
            and isinstance(node.args[0], gast.Name) and not node.keywords)


def _union(types):
    types = [t for t in types if t is not None]
    if len(types) == 1:
        return syntax.copy(types[0])
    elts = []
    for t in types:
        elts += list(t.elts) if isinstance(t, gast.Tuple) else [t]
    return syntax.tuple_([syntax.copy(t) for t in elts])


_ITERABLE_CALLS = {"range", "len", "enumerate", "zip", "reversed"}


def _kept_iterable(node):
    """Whether a loop's iterable stays in the `for` line (the loop passes read its form:
    `range(len(x))`, `zip(x, w)`): names, attributes, constants, and the calls above of
    those, none of which raise but for arguments of the wrong type."""
    if isinstance(node, (gast.Name, gast.Constant)):
        return True
    if isinstance(node, gast.Attribute):
        return _kept_iterable(node.value)
    return _iterable_call(node) and all(_kept_iterable(a) for a in node.args)


def _iterated(node):
    """`node` and, through the `enumerate`, `zip` and `reversed` calls it is made of, what they iterate."""
    yield node
    if _iterable_call(node):
        for a in node.args:
            yield from _iterated(a)


def _iterable_call(node):
    return (isinstance(node, gast.Call) and isinstance(node.func, gast.Name) and node.func.id in _ITERABLE_CALLS
            and not node.keywords and not any(isinstance(a, gast.Starred) for a in node.args))


def _strict_zip(node):
    """Whether `node` is a call `zip(..., strict=...)`."""
    return (isinstance(node, gast.Call) and isinstance(node.func, gast.Name) and node.func.id == "zip"
            and any(k.arg == "strict" for k in node.keywords))


def _is_none(name):
    return syntax.compare(syntax.name(name), gast.Is(), syntax.const(None))


def _whole_write(stmt):
    """Whether `stmt` is `y[...] = v`, as array_writes.py spells a NumPy call writing into y."""
    return (type(stmt) is gast.Assign and len(stmt.targets) == 1 and type(stmt.targets[0]) is gast.Subscript
            and syntax.is_const(stmt.targets[0].slice) and stmt.targets[0].slice.value is Ellipsis)


def _names_only(target):
    if isinstance(target, gast.Name):
        return True
    return isinstance(target, (gast.Tuple, gast.List)) and all(_names_only(t) for t in target.elts)


def _reraise(stmts, caught):
    """Bare `raise`s in a handler's `stmts` (not in nested functions) -> `raise caught`."""
    for k, s in enumerate(stmts):
        if isinstance(s, gast.Raise) and s.exc is None:
            stmts[k] = syntax.located(syntax.raise_(syntax.name(caught)), s)
        elif not isinstance(s, gast.FunctionDef):
            for field in ("body", "orelse"):
                inner = getattr(s, field, None)
                if isinstance(inner, list):
                    _reraise(inner, caught)


# --- back to `try` statements, on the generated code ---------------------------------


def fold(tree, attempts, namer, check_tape=False, forward=False):
    """`tree` (changed in place) with each marked branch turned back into a `try`
    statement; with `check_tape` (reverse mode), a branch that may raise after saving a
    value on the tape is refused (NotImplementedError located at its statement). With
    `forward` (forward mode), the tangent statements of a branch run in the `try`
    statement's `else` block where that is exact, so an exception a tangent raises
    (`np.errstate(all="raise")` at a point where the derivative is infinite) is not taken
    by the user's handlers as if the user's statement had raised it."""
    _fold(tree, attempts, namer, check_tape, [None], forward)
    return tree


def _fold(node, attempts, namer, check_tape, exc, forward=False):
    for field in ("body", "orelse", "finalbody"):
        stmts = getattr(node, field, None)
        if not isinstance(stmts, list):
            continue
        flags = {}
        out = []
        for s in stmts:
            if isinstance(s, gast.AST):
                _fold(s, attempts, namer, check_tape, exc, forward)
            key = _marker(s, BEGIN)
            if key is not None:
                flags[s.targets[0].id] = key
                out.append(syntax.located(syntax.assign(s.targets[0].id, syntax.const(True)), s))
            elif isinstance(s, gast.If) and isinstance(s.test, gast.Name) and s.test.id in flags:
                out += _try_block(s, attempts[flags.pop(s.test.id)], namer, check_tape, exc, forward)
            else:
                out.append(s)
        setattr(node, field, out)


def _try_block(branch, types, namer, check_tape, exc, forward=False):
    """The statements of the `try` statement the marked branch `branch` becomes: with a
    mark of the tape's length first where the block pushes onto it before a statement
    that may raise, whose handler drops what was pushed (the backward pass skips the
    branch whose flag is False)."""
    tape = _check_saves(branch.body, branch) if check_tape else None
    if exc[0] is None:
        exc[0] = namer.fresh("exc")
    handler = [syntax.assign(branch.test.id, syntax.const(False))]
    before = []
    if tape is not None:
        mark = namer.fresh(f"{tape}_length")
        before = [syntax.located(syntax.assign(mark, syntax.call("len", [syntax.name(tape)])), branch)]
        handler.append(syntax.assign(syntax.subscript(syntax.name(tape), syntax.slice_(syntax.name(mark), None, None),
                                                      store=True), syntax.list_([])))
    for s in branch.orelse:
        if _marker(s, CAUGHT) is not None:
            s = syntax.located(syntax.assign(s.targets[0].id, syntax.name(exc[0])), s)
        handler.append(s)
    body = [s for s in branch.body if not isinstance(s, gast.Pass)]
    after = []
    if forward:
        body, after = _tangents_after(body, namer)
    block = syntax.try_except(body, syntax.copy(types), exc[0], handler)
    block.orelse = after
    return before + [syntax.located(block, branch)]


def _tangents_after(body, namer):
    """(the statements of a forward-mode branch's `try` block, those of its `else`
    block): the tangent assignments, and the copies `y = y_value` that cannot raise, moved
    to the `else` block when no statement left in the `try` block after one of them
    stores a name it reads or touches a name it stores (else `body` as it was)."""
    def moved(s):
        if type(s) not in (gast.Assign, gast.AugAssign):
            return False
        targets = s.targets if type(s) is gast.Assign else [s.target]
        stored = [n for t in targets for n in traversal.walk(t) if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store)]
        if not stored or any(not isinstance(t, gast.Name) for t in targets):
            return False
        if all(namer.is_tangent(n.id) for n in stored):
            return True
        return type(s) is gast.Assign and isinstance(s.value, (gast.Name, gast.Constant))

    def names(s, ctx):
        return {n.id for n in traversal.walk(s) if isinstance(n, gast.Name) and (ctx is None or isinstance(n.ctx, ctx))}

    kinds = [moved(s) for s in body]
    if not any(kinds):
        return body, []
    for i, s in enumerate(body):
        if not kinds[i]:
            continue
        reads, stores = names(s, gast.Load), names(s, gast.Store)
        for later, kept in zip(body[i + 1:], kinds[i + 1:]):
            if kept:
                continue
            # a call may change what it is passed: every name it shows counts as stored
            touched = names(later, None) if any(isinstance(n, gast.Call) for n in traversal.walk(later)) else names(later, gast.Store)
            if reads & touched or stores & names(later, None):
                return body, []
    return [s for s, k in zip(body, kinds) if not k], [s for s, k in zip(body, kinds) if k]


def flag(s):
    """The flag name a `flag = __srcgrad_try__(key)` marker statement assigns, else None."""
    return s.targets[0].id if _marker(s, BEGIN) is not None else None


def _marker(s, kind):
    """The key of a `name = kind(key)` marker statement, else None."""
    if (type(s) is gast.Assign and type(s.value) is gast.Call and syntax.is_name(s.value.func, kind)
            and len(s.targets) == 1 and isinstance(s.targets[0], gast.Name)):
        return s.value.args[0].value
    return None


def _check_saves(stmts, branch):
    """The name of the tape where the block `stmts` pushes onto it (`tape.append(v)`)
    before a statement that may raise, else None. Dropping those pushes when it raises is
    exact while no name whose value was pushed has been assigned since (a value pushed to
    be restored, then overwritten): a statement that may raise after such an assignment,
    or after a loop or branch that may have pushed and assigned, is refused
    (NotImplementedError located at the branch: the backward pass would not restore it)."""
    appended, pushed, changed, dropped = set(), set(), False, set()
    made = set()  # lists the block makes (a comprehension's): appending to them saves nothing
    for s in stmts:
        raises = not _cannot_raise(s)
        if raises and (changed or appended and isinstance(s, (gast.If, gast.For, gast.While, gast.Try))):
            raise _saved_then_raises(branch)
        if raises:  # a user's `ys.append(v)` ends its statement's block: what is appended before is the tape
            dropped |= appended
        if isinstance(s, (gast.If, gast.For, gast.While, gast.Try)):
            changed = changed or any(
                isinstance(n, gast.Call) and isinstance(n.func, gast.Attribute) and n.func.attr == "append"
                and not (isinstance(n.func.value, gast.Name) and n.func.value.id in made) for n in traversal.walk(s))
            continue
        if type(s) is gast.Assign and isinstance(s.targets[0], gast.Name) and isinstance(s.value, gast.List):
            made.add(s.targets[0].id)
        call = s.value if isinstance(s, gast.Expr) else None
        if (isinstance(call, gast.Call) and isinstance(call.func, gast.Attribute) and call.func.attr == "append"
                and isinstance(call.func.value, gast.Name) and call.func.value.id not in made):
            appended.add(call.func.value.id)
            pushed.update(n.id for n in call.args if isinstance(n, gast.Name))
        elif isinstance(s, (gast.Assign, gast.AugAssign)):
            targets = s.targets if isinstance(s, gast.Assign) else [s.target]
            changed = changed or bool(set(traversal.names_stored(targets)) & pushed)
    if len(dropped) > 1:
        raise _saved_then_raises(branch)
    return next(iter(dropped), None)


def _saved_then_raises(branch):
    err = NotImplementedError(
        "a statement of a `try` block that branches or loops within itself (a conditional expression, "
        "`and`/`or`, a comprehension) after saving a value for the backward pass and before a part that may "
        "raise (write it as `if` statements or a `for` loop in the `try` block)")
    err.node = branch
    return err


def _cannot_raise(s):
    if isinstance(s, gast.Pass) or syntax.comment_text(s) is not None:
        return True
    if isinstance(s, gast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], gast.Name):
        return isinstance(s.value, (gast.Name, gast.Constant))
    if isinstance(s, gast.Expr) and isinstance(s.value, gast.Call) and isinstance(s.value.func, gast.Attribute):
        call = s.value
        return (call.func.attr == "append" and isinstance(call.func.value, gast.Name) and len(call.args) == 1
                and isinstance(call.args[0], (gast.Name, gast.Constant)))
    return False


def _construct(stmt, text):
    """What the user wrote that became `stmt`, for a refusal: earlier passes write a
    `match` statement as `if`/`elif` (matches.py) and `functools.reduce` as a loop
    (folds.py), located at the user's line, whose `text` tells them apart."""
    if type(stmt) is gast.If and text.startswith(("match ", "case ")):
        return "a `match` statement"
    if type(stmt) in (gast.If, gast.For) and "reduce(" in text:
        return "`functools.reduce` (it runs as a loop)"
    return {gast.If: "`if`", gast.For: "a `for` loop", gast.While: "a `while` loop", gast.With: "a `with` block",
            gast.Try: "a nested `try`", gast.Import: "`import`", gast.ImportFrom: "`import`",
            gast.Delete: "`del`"}.get(type(stmt), f"`{type(stmt).__name__}`")
