"""The derivative function of reverse mode's sweeps (reverse.Sweeps): the tape lowered
(tape.py), the gradients returned, the signature and docstring written.

Invariants: every gradient is returned with its parameter's kind (`unbroadcast` to the
argument, or provably already its shape, or zeros where no adjoint was defined); the
caller owns the arrays returned (`owned_gradient(s)`); a name that `zeros_like_grad`
reads where some path leaves it unassigned starts as None.
"""

import os
from dataclasses import replace

import gast

from .. import runtime
from . import entries, syntax, tape, traversal, views

_TITLES = {
    "grad": "Gradient",
    "value_and_grad": "Value and gradient",
    "vjp": "Vector-Jacobian product",
    "pullback": "Pullback",
}


def assemble(sw, shapes=None, split=False):
    """The derivative FunctionDef of the sweeps `sw`, specialized to `shapes` if given:
    the tape lowered, the gradients returned, the signature and docstring written.
    `split`: its backward pass becomes a pullback (split.py), which records its undos."""
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
