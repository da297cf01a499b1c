"""Forward mode over generated code: the value tapes of a gradient and their tangent tapes.

A gradient saves values on lists used only as tapes (`tape = []`, `tape.append(v)`,
`v = tape.pop()`). Most pops restore a name the value was pushed from (`s = tape.pop()`
after `tape.append(s)`): activity sees those as the name keeping its value, and a tangent
tape holds the tangents of the active names, pushed and popped in step with them.

A pop into another name is a *replay* (`y[i] = tape.pop()` after
`tape.append(snapshot(y[i]))`, in ANF `t = tape.pop(); y[i] = t`): the value comes back
under a new name. On a tape with replays, activity sees each such pop read every value
the tape is pushed (the pairing is by run-time order), and the tangent tape is pushed and
popped at every push and pop of the tape (a zero for a value without a tangent), so that
each popped tangent is the one of its value.
"""

import gast

from . import syntax, traversal


def find(tree, calls):
    """Lists used only as value tapes: `L = []` at top level, `L.append(v)`, `v = L.pop()`."""
    candidates = {
        s.targets[0].id for s in tree.body
        if isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Name)
        and isinstance(s.value, gast.List) and not s.value.elts
    }
    uses = {}
    allowed = set()
    for node in traversal.walk(tree):
        if isinstance(node, gast.Name) and node.id in candidates:
            uses[node.id] = uses.get(node.id, 0) + 1
        if isinstance(node, gast.Assign) and isinstance(node.targets[0], gast.Name):
            if node.targets[0].id in candidates:
                allowed.add(id(node.targets[0]))
            callee = calls.get(node.value) if isinstance(node.value, gast.Call) else None
            if callee is not None and callee.kind == "method" and callee.path == "pop" and not node.value.args:
                allowed.add(id(node.value.func.value))
        elif isinstance(node, gast.Expr) and isinstance(node.value, gast.Call):
            callee = calls.get(node.value)
            if callee is not None and callee.kind == "method" and callee.path == "append" and len(node.value.args) == 1:
                if isinstance(node.value.args[0], gast.Name):
                    allowed.add(id(node.value.func.value))
    counted = {}
    for node in traversal.walk(tree):
        if isinstance(node, gast.Name) and node.id in candidates and id(node) in allowed:
            counted[node.id] = counted.get(node.id, 0) + 1
    return {name for name in candidates if counted.get(name) == uses.get(name)}


def pushes_and_replays(tree, tapes, calls):
    """`({tape: the names pushed on it}, the tapes with a replay: a pop into a name never
    pushed on that tape)`, in one walk."""
    pushed, popped = {tape: set() for tape in tapes}, {tape: set() for tape in tapes}
    for node in traversal.walk(tree):
        if isinstance(node, (gast.Expr, gast.Assign)) and isinstance(node.value, gast.Call):
            callee = calls.get(node.value)
            if callee is None or callee.kind != "method" or callee.receiver not in pushed:
                continue
            if isinstance(node, gast.Expr) and callee.path == "append":
                pushed[callee.receiver].add(node.value.args[0].id)
            elif isinstance(node, gast.Assign) and callee.path == "pop":
                popped[callee.receiver].add(node.targets[0].id)
    return pushed, {tape for tape in tapes if popped[tape] - pushed[tape]}


def activity_view(stmts, tapes, replays, calls):
    """The statements as activity should see them: a push and a pop that restores a name
    are left out (the name keeps its value); a replay on a tape of `replays` ({tape: the
    names pushed on it}) reads every one of them (`t = [v1, v2, ...]`)."""
    out = []
    for s in stmts:
        if isinstance(s, gast.Expr) and isinstance(s.value, gast.Call):
            callee = calls.get(s.value)
            if callee is not None and callee.kind == "method" and callee.receiver in tapes:
                continue
        if isinstance(s, gast.Assign) and isinstance(s.value, gast.Call):
            callee = calls.get(s.value)
            if callee is not None and callee.kind == "method" and callee.receiver in tapes:
                names = replays.get(callee.receiver, ())
                if s.targets[0].id in names or callee.receiver not in replays:
                    continue
                s = syntax.assign(s.targets[0].id, syntax.list_([syntax.name(n) for n in sorted(names)]))
        if isinstance(s, gast.If):
            s = syntax.if_(s.test, activity_view(s.body, tapes, replays, calls),
                           activity_view(s.orelse, tapes, replays, calls))
        elif isinstance(s, gast.For):
            s = syntax.for_(s.target.id, s.iter, activity_view(s.body, tapes, replays, calls))
        elif isinstance(s, gast.While):
            s = syntax.while_(s.test, activity_view(s.body, tapes, replays, calls))
        out.append(s)
    return out


def after_creation(stmts, tape, tangent_tape):
    """`stmts` with `tangent_tape = []` after the statement that makes `tape`."""
    out = []
    for s in stmts:
        out.append(s)
        if isinstance(s, gast.Assign) and syntax.is_name(s.targets[0], tape) and isinstance(s.value, gast.List):
            out.append(syntax.assign(tangent_tape, syntax.list_([])))
    return out
