"""Clean up generated code: copy propagation and dead-code elimination, to a fixed point.

Before:  y_bar = out_bar                 After:  x_bar = out_bar * 2.0
         x_bar = y_bar * 2.0

- Copy propagation: in a straight-line block, `a = b` between names, where neither is
  assigned again in the block, replaces later reads of `a` by `b` and drops the copy.
- Dead code: an assignment whose target is never read anywhere is dropped when its
  right-hand side contains no call (calls may have effects, such as drawing random
  numbers, and are kept).
"""

import gast

from . import syntax


def run(tree, namer):
    changed = True
    while changed:
        changed = _propagate_copies(tree.body, tree) | _drop_dead(tree)
    return tree


def _propagate_copies(stmts, tree):
    changed = False
    for stmt in stmts:
        for field in ("body", "orelse"):
            inner = getattr(stmt, field, None)
            if isinstance(inner, list) and isinstance(stmt, (gast.If, gast.For, gast.While)):
                changed |= _propagate_copies(inner, tree)
    stored_counts = _store_counts(tree)
    for k, stmt in enumerate(stmts):
        if not (isinstance(stmt, gast.Assign) and isinstance(stmt.targets[0], gast.Name) and isinstance(stmt.value, gast.Name)):
            continue
        a, b = stmt.targets[0].id, stmt.value.id
        if stored_counts.get(a, 0) != 1 or stored_counts.get(b, 0) > 1:
            continue
        if _read_outside(tree, stmts, a):
            continue
        for later in stmts[k + 1 :]:
            for n in gast.walk(later):
                if isinstance(n, gast.Name) and n.id == a and isinstance(n.ctx, gast.Load):
                    n.id = b
        stmts[k] = syntax.pass_()
        changed = True
    stmts[:] = [s for s in stmts if not isinstance(s, gast.Pass)] or stmts[:1]
    return changed


def _read_outside(tree, block, name):
    """Whether `name` is read anywhere except inside the statements of `block`."""
    inside = {id(n) for s in block for n in gast.walk(s)}
    return any(
        isinstance(n, gast.Name) and n.id == name and isinstance(n.ctx, gast.Load) and id(n) not in inside
        for n in gast.walk(tree)
    )


def _store_counts(tree):
    counts = {}
    for n in gast.walk(tree):
        if isinstance(n, gast.Name) and isinstance(n.ctx, (gast.Store, gast.Param)):
            counts[n.id] = counts.get(n.id, 0) + 1
    return counts


def _drop_dead(tree):
    reads = {n.id for n in gast.walk(tree) if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load)}
    changed = False

    def visit(stmts):
        nonlocal changed
        out = []
        for s in stmts:
            if isinstance(s, (gast.If, gast.For, gast.While)):
                s.body = visit(s.body) or [syntax.pass_()]
                s.orelse = visit(s.orelse)
            elif (
                isinstance(s, gast.Assign)
                and isinstance(s.targets[0], gast.Name)
                and s.targets[0].id not in reads
                and _pure(s.value)
            ):
                changed = True
                continue
            out.append(s)
        return out

    tree.body = visit(tree.body)
    return changed


def _pure(value):
    return not any(isinstance(n, gast.Call) for n in gast.walk(value))
