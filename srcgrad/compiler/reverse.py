"""Reverse mode: an ANF function -> a function that also computes its adjoint.

Each statement visitor returns a `(forward, backward)` pair of statement lists. A
block appends forwards and *prepends* backwards, so the backward pass comes out
reversed by construction. Example, for `y = np.sin(x) * x` at top level:

    forward:  sin_x = np.sin(x)              backward:  sin_x_bar = y_bar * x
              y = sin_x * x                             x_bar = y_bar * sin_x
                                                        x_bar = x_bar + sin_x_bar * np.cos(x)

Control flow. Backward `if`s test the same condition variable as the forward ones.
Loops run backwards a recorded number of times. Values that the backward pass reads
but the forward pass overwrites inside loops and branches are saved on `tape` (a
list): a variable assigned once per iteration and not read before is pushed after
its assignment and popped at the start of its backward iteration; any other is
pushed before each overwrite and popped after that statement's adjoint. Only values
the backward pass actually reads are saved.

Adjoints. Contributions are first collected as `x_bar += e`; a final pass in
execution order turns the first into `x_bar = e` and later ones into
`x_bar = x_bar + e`, drops the adjoint of a value that receives none, and initializes
with zeros where control flow merges paths that disagree.

`with` blocks (contexts.py). Each marker of one is mirrored into the backward pass, so
the block's adjoint statements run under the same context manager.
"""

from dataclasses import dataclass, field

import gast

from .. import rules, runtime
from . import calls as call_sites
from . import call_effects, contexts, mutation, syntax, traversal
from .contributions import Contributions
from .markers import _Group, _Restore, _Save
from .undo import Undo


@dataclass
class _Context:
    depth: int = 0  # loop nesting
    record: frozenset = frozenset()  # iteration-local names of the innermost loop
    must_defined: set = field(default_factory=set)
    recorded: list = field(default_factory=list)  # iteration-local names assigned so far


class _Reverse(Contributions, Undo):
    def __init__(self, program, activity, calls, namer, bind):
        self.program = program
        self.activity = activity
        self.calls = calls
        self.namer = namer
        self.bind = bind
        self.assign_count = {}
        self.none_init = set()
        self.structured = set()  # adjoints that may hold list/tuple/dict gradients: added by add_grad
        self.element_checks = {}  # mutation.run's: checks after `v = y[i]`
        self.keys = 0

    # --- blocks and statements -----------------------------------------------------

    def block(self, stmts, ctx):
        fwd, bwd = [], []
        for stmt in stmts:
            f, b = self.stmt(stmt, ctx)
            fwd += f
            bwd = b + bwd
        return fwd, contexts.without_empty(bwd) if self.contexts else bwd

    def stmt(self, s, ctx):
        if syntax.comment_text(s) is not None:
            return [s], []
        method = getattr(self, "visit_" + type(s).__name__, None)
        if method is None:
            if type(s) is gast.Try:  # attempts.py lowers every one: never pass one on undifferentiated
                err = NotImplementedError("a `try` statement here")
                err.node = s
                raise err
            return [s], []  # pass, raise, assert: forward only
        return method(s, ctx)

    def visit_Expr(self, s, ctx):
        if self.contexts and contexts.kind(s):  # a `with` block's adjoints run under it too
            return [s], [contexts.mirror(s)]
        if isinstance(s.value, gast.Call):
            callee = self.calls.get(s.value)
            if id(s) in self.pops:
                return self.visit_Assign(self.named_pop(s), ctx)
            if callee is not None and callee.kind == "method" and callee.path in mutation.CHANGING_METHODS:
                return self.append(s, callee.receiver, s.value.args)
            call_effects.refuse_in_place(self.program, s, callee, self.activity.varied, rules, self.namer.helpers)
        return [s], []

    def visit_Assign(self, s, ctx):
        if isinstance(s.value, gast.Call):
            call_effects.refuse_out(self.program, s, self.calls.get(s.value), self.activity.varied, rules)
        target = s.targets[0]
        if isinstance(target, gast.Subscript):
            return self.subscript_store(s, ctx)
        name = target.id
        save = self.save_for(name, ctx)
        if save and save.record:
            ctx.recorded.append(name)  # pushed at the end of the iteration (see loop)
            save = None
        fwd = ([save] if save else []) + [s] + self.element_checks_after(s)
        bwd = []
        popped = self.pops.get(id(s))  # `v = ys.pop(i)`: (ys, i)
        if self.activity.is_active(name):
            # even with no contributions (`u = 0.5`), the group ends the old value's adjoint
            stmts = self.popped_entry(name, *popped) if popped else self.contributions(s, name, s.value)
            bwd.append(_Group(name, self.namer.adjoint(name), stmts, self.program.text(s) if stmts else ""))
        if popped:
            fwd, bwd = self.pop(s, fwd, bwd, *popped)
        if save and not save.record:
            bwd.append(_Restore(name, save.key))
        ctx.must_defined.add(name)
        return fwd, bwd

    def element_checks_after(self, s):
        """The checks mutation.py asks for after `s` (`v = y[i]`): v shares no memory with y."""
        checks = self.element_checks.get(id(s))
        if not checks:
            return []
        return mutation.element_check_statements(checks, syntax.name(self.bind("refuse_shared", runtime.refuse_shared)), s)

    def save_for(self, name, ctx):
        """The save marker for an assignment to `name` in context `ctx`, or None."""
        if ctx.depth == 0 and name not in self.assigned and name not in self.params:
            self.assigned.add(name)
            return None  # first assignment outside loops: overwrites nothing
        self.assigned.add(name)
        self.keys += 1
        if ctx.depth and name in ctx.record:
            return _Save(name, True, self.keys)
        if name not in ctx.must_defined:
            self.none_init.add(name)
        return _Save(name, False, self.keys)

    def visit_If(self, s, ctx):
        assert not (isinstance(s.test, gast.Name) and s.test.id in traversal.names_stored(s.body + s.orelse)), (
            "ANF post-condition: a branch never reassigns its own test"
        )
        before = set(ctx.must_defined)
        then_ctx = _Context(ctx.depth, ctx.record | self.branch_locals(s.body), set(before))
        else_ctx = _Context(ctx.depth, ctx.record | self.branch_locals(s.orelse), set(before))
        then_fwd, then_bwd = self.recorded_block(s.body, then_ctx, ctx)
        else_fwd, else_bwd = self.recorded_block(s.orelse, else_ctx, ctx)
        ctx.must_defined |= then_ctx.must_defined & else_ctx.must_defined
        fwd = syntax.located(syntax.if_(s.test, then_fwd, else_fwd), s)
        if not then_bwd and not else_bwd:
            return [fwd], []
        bwd = syntax.located(syntax.if_(syntax.copy(s.test), then_bwd, else_bwd), s)
        return [fwd], [bwd]

    def branch_locals(self, body):
        """Names a branch assigns once, at its top level, and nobody reads outside it."""
        inside = {}
        for stmt in body:
            traversal.load_counts(stmt, inside)
        local = _iteration_locals(body, self.assign_count) - self.params  # see `loop`
        return frozenset(v for v in local if inside.get(v, 0) == self.read_counts.get(v, 0))

    def loop_locals(self, body):
        """Names a loop's body assigns once, at its top level, and nobody reads outside it.
        A value read after the loop is none: its adjoint comes in from there, and the zero
        that replaces it between backward iterations takes the shape of the previous
        iteration's value, which only the save before the assignment brings back."""
        inside = {}
        for stmt in body:
            traversal.load_counts(stmt, inside)
        local = _iteration_locals(body, self.assign_count) - self.params
        return frozenset(v for v in local if inside.get(v, 0) == self.read_counts.get(v, 0))

    def read_after(self, loop, target):
        """Whether `target` is read outside the statement `loop` (its own loop target)."""
        return traversal.load_counts(loop, {}).get(target, 0) < self.read_counts.get(target, 0)

    def recorded_block(self, body, inner, outer):
        """A branch whose branch-local values are pushed at its end and popped at its backward start."""
        fwd, bwd = self.block(body, inner)
        mine = [n for n in dict.fromkeys(inner.recorded) if n not in outer.record]
        outer.recorded += [n for n in inner.recorded if n in outer.record]
        if not mine or inner.depth == 0:
            return fwd, bwd
        records = []
        for name in mine:
            self.keys += 1
            records.append(_Save(name, True, self.keys))
        fwd = _before_breaks(fwd, records) + ([] if fwd and isinstance(fwd[-1], gast.Break) else records)
        bwd = [_Restore(m.name, m.key) for m in reversed(records)] + bwd
        return fwd, bwd

    def visit_For(self, s, ctx):
        return self.loop(s, ctx, target=s.target.id)

    def visit_While(self, s, ctx):
        return self.loop(s, ctx, target=None)

    def loop(self, s, ctx, target):
        # a parameter is no iteration-local: its value from before the loop is read at the end.
        # A target the body assigns again is no iteration-local either: the value pushed at
        # the iteration's end is the body's, and the backward pass of the body's assignment
        # needs the header's value, which the assignment's own save brings back
        rebound = target is not None and target in traversal.names_stored(s.body)
        record = self.loop_locals(s.body) | ({target} if target and not rebound else set())
        inner = _Context(ctx.depth + 1, frozenset(record), set(ctx.must_defined) | ({target} if target else set()))
        inner.recorded = [target] if target else []
        body_fwd, body_bwd = self.block(s.body, inner)
        outer_save, outer_restore = [], []
        if target:
            if target in ctx.must_defined or target in self.assigned or (ctx.depth and self.read_after(s, target)):
                # the loop overwrites a variable that may exist before it (assigned in an earlier
                # loop's body, whose backward pass reads it), or, in an enclosing loop, the value
                # an earlier run left (read after this loop there): bring it back afterwards
                if target not in ctx.must_defined:
                    self.none_init.add(target)
                self.keys += 1
                outer_save, outer_restore = [_Save(target, False, self.keys)], [_Restore(target, self.keys)]
            self.assigned.add(target)
            ctx.must_defined.add(target)
        if not body_bwd:  # nothing to differentiate inside: no trip count, nothing recorded
            plain = syntax.for_(target, s.iter, body_fwd) if isinstance(s, gast.For) else syntax.while_(s.test, body_fwd)
            return outer_save + [syntax.located(plain, s)], outer_restore
        trips = self.namer.fresh(f"{target}_trips" if target else "trips")
        counted = isinstance(s, gast.While) or _has_break(s.body) or not _has_len(s.iter)
        prelude, body_start = [], []
        if counted:
            prelude.append(syntax.assign(trips, syntax.const(0)))
            body_start.append(syntax.assign(trips, syntax.add(syntax.name(trips), syntax.const(1))))
        else:
            count = syntax.call("len", [syntax.copy(s.iter)])
            if _is_range_of_one(s.iter):  # `range(n)` runs n times (none when n <= 0, as `range(trips)`)
                count = syntax.copy(s.iter.args[0])
            prelude.append(syntax.assign(trips, count))
        # Iteration-local values are pushed when the iteration ends (at the end of the body
        # and before each break) and popped when its backward iteration starts.
        records = []
        for name in dict.fromkeys(inner.recorded):
            self.keys += 1
            records.append(_Save(name, True, self.keys))
        ends_in_break = bool(body_fwd) and isinstance(body_fwd[-1], gast.Break)
        body_fwd = body_start + _before_breaks(body_fwd, records) + ([] if ends_in_break else list(records))
        if isinstance(s, gast.For):
            fwd_loop = syntax.for_(target, s.iter, body_fwd)
        else:
            fwd_loop = syntax.while_(s.test, body_fwd)
        fwd_loop = syntax.located(fwd_loop, s)
        pops = [_Restore(m.name, m.key) for m in reversed(records)]
        bwd_body = pops + body_bwd
        if target and self.activity.is_active(target):
            # the header's assignment ends the target's adjoint: what the body added to it
            # (`b = b + u` after a nested loop rebinds `u` to a differentiated value) belongs
            # to this iteration's value and must not reach the previous iteration's
            bwd_body.append(_Group(target, self.namer.adjoint(target), []))
        counter_save, counter_restore = [], []
        if ctx.depth:  # an enclosing loop reruns this one: keep each run's trip count
            self.keys += 1
            counter_save = [_Save(trips, True, self.keys)]
            counter_restore = [_Restore(trips, self.keys)]
        fwd = outer_save + prelude + [fwd_loop] + counter_save
        under = "_" if "_" not in self.namer.taken else self.namer.fresh("iteration")
        bwd_loop = syntax.located(syntax.for_(under, syntax.call("range", [syntax.name(trips)]), bwd_body), s)
        bwd = counter_restore + [bwd_loop] + outer_restore
        return [syntax.located(f, s) if isinstance(f, gast.AST) else f for f in fwd], bwd

# --- helpers ---------------------------------------------------------------------


def _has_break(stmts):
    """Whether a `break` of this loop (not of a nested one) occurs in `stmts`."""
    return any(isinstance(n, gast.Break) for s in stmts for n in _walk_no_loops(s))


def _walk_no_loops(stmt):
    if isinstance(stmt, (gast.For, gast.While)):
        return
    yield stmt
    for child in gast.iter_child_nodes(stmt):
        if isinstance(child, gast.stmt):
            yield from _walk_no_loops(child)
        else:
            yield child


def _is_range_of_one(iterable):
    return (isinstance(iterable, gast.Call) and syntax.is_name(iterable.func, "range")
            and len(iterable.args) == 1 and not iterable.keywords)


def _has_len(iterable):
    return isinstance(iterable, gast.Name) or (
        isinstance(iterable, gast.Call) and syntax.is_name(iterable.func, "range")
    )


def _iteration_locals(body, assign_count):
    """Names assigned exactly once, at the top level of `body`, and not read before that."""
    seen_read = set()
    result = set()
    for stmt in body:
        if isinstance(stmt, gast.Assign) and isinstance(stmt.targets[0], gast.Name):
            seen_read.update(traversal.names_read(stmt.value))
            name = stmt.targets[0].id
            if name not in seen_read and assign_count.get(name, 0) == 1:
                result.add(name)
            seen_read.add(name)
        else:
            seen_read.update(traversal.names_read(stmt))
            seen_read.update(traversal.names_stored(stmt))
    return result


def _before_breaks(stmts, records):
    """Insert copies of the push markers `records` before every break of this loop."""
    out = []
    for s in stmts:
        if isinstance(s, gast.Break):
            out += [_Save(r.name, True, r.key) for r in records]
        elif isinstance(s, gast.If):
            s.body = _before_breaks(s.body, records)
            s.orelse = _before_breaks(s.orelse, records)
        out.append(s)
    return out


def count_assignments(statements):
    """{name: how many times `statements` assign it} (a loop target counts twice)."""
    counts = {}
    for node in statements:
        if isinstance(node, gast.Assign) and isinstance(node.targets[0], gast.Name):
            counts[node.targets[0].id] = counts.get(node.targets[0].id, 0) + 1
        elif isinstance(node, gast.For) and isinstance(node.target, gast.Name):
            counts[node.target.id] = counts.get(node.target.id, 0) + 2  # every iteration
    return counts


# --- the whole function -------------------------------------------------------------

@dataclass
class Sweeps:
    """A reverse derivative before shapes matter: the forward and backward statements with
    their tape markers not yet lowered, and what assembling them needs.

    `assembly.assemble` consumes it (later passes rewrite its statements in place): each build
    of a derivative makes its own (pipeline._sweeps_for_each_build).
    """

    program: object
    namer: object
    mode: str
    wrt: object
    args: object  # the user function's gast.arguments
    out: object  # the returned expression
    forward: list  # ends with the seed statements
    backward: list
    defined: set  # adjoints the backward pass defines
    seed: str
    none_init: set
    mutations: dict
    structured: set


def sweeps(tree, program, activity, calls, namer, wrt, mode, pullback_of=None):
    """The forward and backward sweeps of the ANF `tree` (whose last statement is its
    return), adjoints settled; `assembly.assemble` makes the derivative FunctionDef of them.

    `mode` is "grad" (returns the gradients of `wrt`), "value_and_grad" (returns the output
    and those gradients), "vjp" (takes the output's adjoint first and returns the output
    and the gradients of every parameter) or "pullback" (takes the output's adjoint first
    and returns the tuple of the gradients of `wrt` only; used for calls between user
    functions). `pullback_of(fn, positions)` gives the pullback of a called user function.
    """
    from . import adjoints  # a pass over the backward code this one produces

    bind = namer.helper
    params = [a.id for a in tree.args.args]
    *body, ret = tree.body
    out = ret.value
    out_name = out.id if isinstance(out, gast.Name) else None
    rev = _Reverse(program, activity, calls, namer, bind)
    rev.pullback_of = pullback_of
    statements = list(traversal.statements(tree))
    rev.mutations = mutation.run(tree, statements, program, set(params), activity, calls, rev.element_checks)
    rev.dicts = mutation.dict_bases(statements, calls)
    rev.pops = mutation.list_pops(statements, calls)
    rev.containers = call_sites.containers(tree, calls)
    # keyword-only parameters hold the caller's values too: a loop rebinding one saves and
    # restores it, never starting it as None
    rev.params = set(params) | {a.id for a in tree.args.kwonlyargs}
    rev.assign_count = count_assignments(statements)
    rev.assigned = set()
    rev.read_counts = traversal.load_counts(tree)
    rev.contexts = program.contexts
    forward, backward = rev.block(body, _Context(0, frozenset(), set(rev.params)))

    seed = namer.adjoint(out_name) if out_name else namer.fresh("out_bar")
    seed_stmts, defined = [], set()
    if mode in ("vjp", "pullback"):
        defined = {seed} if out_name and activity.is_active(out_name) else set()
    else:
        check = syntax.call(syntax.name(bind("grad_seed", runtime.grad_seed)), [syntax.copy(out), syntax.const(program.name)])
        if out_name and activity.is_active(out_name):
            seed_stmts = [syntax.assign(seed, check)]
            defined = {seed}
        else:
            seed_stmts = [syntax.expr(check)]
        syntax.located(seed_stmts[0], ret)  # its errors (not a scalar) are the return's
    zeros = bind("zeros_like_grad", runtime.zeros_like_grad)
    add = bind("add_grad", runtime.add_grad) if rev.structured else None
    backward, defined = adjoints.run(backward, defined, namer, zeros, rev.structured, add)
    return Sweeps(program, namer, mode, wrt, tree.args, out, forward + seed_stmts, backward, defined, seed,
                  rev.none_init, rev.mutations, rev.structured)
