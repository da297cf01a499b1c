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

import os
from dataclasses import dataclass, field, replace

import gast

from .. import rules, runtime
from . import calls as call_sites
from . import call_effects, contexts, entries, mutation, syntax, traversal, views
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

_TITLES = {
    "grad": "Gradient",
    "value_and_grad": "Value and gradient",
    "vjp": "Vector-Jacobian product",
    "pullback": "Pullback",
}


@dataclass
class Sweeps:
    """A reverse derivative before shapes matter: the forward and backward statements with
    their tape markers not yet lowered, and what assembling them needs.

    `assemble` consumes it (later passes rewrite its statements in place): each build
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
    return), adjoints settled; `assemble` makes the derivative FunctionDef of them.

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


def assemble(sw, shapes=None, split=False):
    """The derivative FunctionDef of the sweeps `sw`, specialized to `shapes` if given:
    the tape lowered, the gradients returned, the signature and docstring written.
    `split`: its backward pass becomes a pullback (split.py), which records its undos."""
    from . import tape  # a pass over the backward code this one produces

    program, namer, mode, wrt, out = sw.program, sw.namer, sw.mode, sw.wrt, sw.out
    bind = namer.helper
    params = [a.id for a in sw.args.args]
    out_name = out.id if isinstance(out, gast.Name) else None
    zeros = bind("zeros_like_grad", runtime.zeros_like_grad)
    positions = wrt if isinstance(wrt, tuple) else (wrt,)
    targets = params if mode == "vjp" else [params[i] for i in positions]
    gathered = {}
    if shapes is not None and shapes.trees:
        found, counts = entries.read_only(sw.forward, sw.backward, shapes.trees, namer)
        shapes = replace(shapes, entries=found)
        if not split:
            containers = [p for p in targets if p in shapes.trees and entries.gatherable(shapes.trees[p])]
            gathered = entries.gather(sw.backward, containers, found, counts, sw.none_init, namer)
    forward, backward, prelude, restored, as_is = tape.run(sw.forward, sw.backward, sw.none_init, namer, shapes, split)

    value = out
    capture = []
    if mode != "grad" and out_name in restored:
        value = syntax.name(namer.fresh(f"{out_name}_value"))
        kept = syntax.name(out_name)
        if any(out_name in group for group in sw.mutations.values()):  # undone in place: copy it
            kept = syntax.call(syntax.name(bind("snapshot", runtime.snapshot)), [kept])
        capture = [syntax.assign(value.id, kept)]

    grads, arguments = [], []
    # A gradient takes its parameter's kind from the argument. A parameter the forward pass
    # assigns (in a block) that the backward pass does not put back (it reads no saved
    # value of it, as where specialized code needs no `unbroadcast`) holds its last value
    # at the return: the argument is kept under another name for it.
    scans = {}  # what `_scan` found under each statement, test and header of `forward`: walked once
    rebound = _stored_in(forward, zeros, scans) - restored
    kept_as = {}

    def argument(p):
        if p not in rebound:
            return syntax.name(p)
        if p not in kept_as:
            kept_as[p] = namer.fresh(f"{p}_argument")
            arguments.append(syntax.assign(kept_as[p], syntax.name(p)))
        return syntax.name(kept_as[p])

    for p in targets:
        adjoint = namer.adjoint(p)
        if p in gathered:  # entry by entry (entries.py)
            grads.append(entries.structure(p, shapes.trees[p], gathered[p], lambda a, s, t: as_is(a, None, (s, t)), namer))
        elif adjoint in sw.defined and as_is is not None and as_is(adjoint, p):
            grads.append(syntax.name(adjoint))  # provably the gradient unbroadcast would return
        elif adjoint in sw.defined:
            grads.append(syntax.call(syntax.name(bind("unbroadcast", runtime.unbroadcast)), [syntax.name(adjoint), argument(p)]))
        else:
            grads.append(syntax.call(syntax.name(zeros), [argument(p)]))
    prelude = arguments + prelude
    one = mode not in ("vjp", "pullback") and len(grads) == 1 and not isinstance(wrt, tuple)
    gradient = _owned(grads, targets, shapes, one, bind)
    if mode == "vjp":
        result = syntax.tuple_([value, gradient])
    elif mode == "pullback":
        result = gradient
    else:
        result = syntax.tuple_([value, gradient]) if mode == "value_and_grad" else gradient

    # a zero start reads its primal, which a branch or loop not taken may have left
    # unassigned (`if c: z = ...` ... `if d: return z`): such a primal starts as None
    known = set(params) | {a.id for a in sw.args.kwonlyargs}
    unset = _unassigned_zero_reads(prelude + forward + capture + backward, known, zeros, scans)
    prelude = prelude + [syntax.assign(name, syntax.const(None)) for name in sorted(unset)]
    body_out = [syntax.comment("Forward pass")] + prelude + forward + capture  # the seed ends `forward`
    if backward:
        body_out += [syntax.comment("Backward pass")] + backward
    body_out.append(syntax.return_(result))
    fn_name = namer.fresh(f"{program.name}_{mode}")
    with_respect = ", ".join([params[i] for i in positions])  # vjp gives the others zeros
    doc = (f"{_TITLES[mode]} of {program.name}{program.bindings()} ({_short(program.filename)}:{program.first_line}) "
           f"with respect to {with_respect}. Generated by srcgrad.")
    signature = ([sw.seed] if mode in ("vjp", "pullback") else []) + params
    kwonly = [a.id for a in sw.args.kwonlyargs]
    return syntax.function_def(fn_name, signature, body_out, docstring=doc, defaults=sw.args.defaults,
                               kwonly=kwonly, kw_defaults=sw.args.kw_defaults)


def _owned(grads, targets, shapes, one, bind):
    """The returned gradient (`one`) or tuple of gradients `grads` of the parameters
    `targets`, passed through `owned_gradient(s)` where one may be an array: the caller
    gets arrays it may change in place, none sharing memory with another (inside the
    derivative one array may be two adjoints, or a read-only broadcast). Specialized code
    that knows every one is a number returns them as they are."""
    types = shapes.types if shapes is not None else {}
    if all(isinstance(types.get(p), type) and issubclass(types[p], views.IMMUTABLE) for p in targets):
        return grads[0] if one else syntax.tuple_(grads)
    if one:
        return syntax.call(syntax.name(bind("owned_gradient", runtime.owned_gradient)), grads)
    return syntax.call(syntax.name(bind("owned_gradients", runtime.owned_gradients)), grads)


def _stored_in(stmts, zeros, scans):
    """The names stored anywhere under the statements `stmts` (`traversal.names_stored`, as
    a set), each statement, `if`/`while` test and `for` header scanned by `_scan` into
    `scans` (id(node) -> its scan), as `_unassigned_zero_reads` reads them."""
    stored = set()
    for s in stmts:
        kind = type(s)  # gast's statement classes have no subclasses: a type test, cheaper than isinstance
        if kind is gast.If or kind is gast.While:
            parts = [s.test]
        elif kind is gast.For:
            parts = [s.iter, s.target]
        else:
            parts = [s]
        for part in parts:
            found = scans[id(part)] = _scan(part, zeros)
            stored.update(found[1])
        if len(parts) == 1 and parts[0] is s:
            continue
        stored |= _stored_in(s.body, zeros, scans) | _stored_in(s.orelse, zeros, scans)
    return stored


def _scan(node, zeros):
    """The names `zeros(name)` reads under `node`, and the names stored there: one walk
    (as `traversal.nodes`, inlined: it runs over every node of the derivative; names
    and constants, most nodes, are read where they are met, without the stack)."""
    call, name, constant, store, ast_node, child_fields = gast.Call, gast.Name, gast.Constant, gast.Store, gast.AST, traversal.child_fields
    read, stored, stack = [], [], [node]
    pop, push, note = stack.pop, stack.append, stored.append
    while stack:
        n = pop()
        cls, values = type(n), n.__dict__
        if cls is name:
            if isinstance(values["ctx"], store):
                note(values["id"])
            if values.get("annotation") is None:
                continue
        elif cls is call:
            func, args = values["func"], values["args"]
            if type(func) is name and func.id == zeros and args and type(args[0]) is name:
                read.append(args[0].id)
        for child in child_fields(cls):
            value = values.get(child)
            for v in value if type(value) is list else (value,):
                kind = type(v)
                if kind is name:
                    leaf = v.__dict__
                    if isinstance(leaf["ctx"], store):
                        note(leaf["id"])
                    if leaf.get("annotation") is not None:
                        push(leaf["annotation"])
                elif kind is not constant and isinstance(v, ast_node):
                    push(v)
    return read, stored


def _unassigned_zero_reads(stmts, known, zeros, scans):
    """The names that a call `zeros(name)` in `stmts` reads where they may have no value
    yet: not assigned on every path there from the start, where `known` are assigned.
    `scans`: what `_stored_in` scanned already (with `zeros`)."""
    found = set()

    def scan(node):
        done = scans.get(id(node))
        return done if done is not None else _scan(node, zeros)

    def block(stmts, known):
        """`known` (a set this call may change) after `stmts`, or None where no path
        goes on past them."""
        for s in stmts:
            kind = type(s)  # gast's statement classes have no subclasses: type tests, cheaper than isinstance
            if kind is gast.If:
                found.update(n for n in scan(s.test)[0] if n not in known)
                then, orelse = block(s.body, set(known)), block(s.orelse, set(known))
                known = then & orelse if then is not None and orelse is not None else then or orelse or known
            elif kind is gast.For or kind is gast.While:
                found.update(n for n in scan(s.iter if kind is gast.For else s.test)[0] if n not in known)
                block(s.body, known | set(scan(s.target)[1]) if kind is gast.For else set(known))
            elif kind in _JUMPS:
                found.update(n for n in scan(s)[0] if n not in known)
                return None  # the path goes on elsewhere
            elif isinstance(s, gast.stmt):
                read, stored = scan(s)
                if read:
                    found.update(n for n in read if n not in known)
                known.update(stored)
        return known

    block(stmts, set(known))
    return found


_JUMPS = frozenset({gast.Break, gast.Continue, gast.Return, gast.Raise})  # no path goes on past them


def _short(filename):
    return os.path.basename(filename) if filename and not filename.startswith("<") else filename
