"""Backward loops that only scale an adjoint by a power of two: one call instead.

Before (specialized code):              After:
    for _ in range(trips):                  y_bar = scaled(y_bar, 2, trips)
        # y = y * 2
        y_bar = y_bar * 2

`runtime.scaled(g, factor, count)` multiplies once by `factor ** count` where that is
exactly what the loop computes (a float64 gradient, float or array, and an exponent
below the float range: multiplying by a power of two rounds nothing, and overflows
to the same infinity either way) and runs the loop otherwise. Only factors 2, 4,
8, ... qualify: halving can round in the subnormal range, step by step.

Then `a = scaled(a, 2, n); b = a * 2`, where nothing else reads that `a`, becomes
`b = scaled(a, 2, n + 1)` (`y = x * 2` before the loop gives `x_bar = y_bar * 2` after it).

Post-condition: every rewritten loop had a `range(n)` header with a plain name or
integer constant `n`, no `else`, and a body of comments and the one assignment
`a = a * c` (or `a = c * a`) whose loop variable it never reads.
"""

import gast

from .. import runtime
from . import syntax, traversal
from .shapes import _Resolver


def run(tree, namer):
    """Rewrite the qualifying loops of the FunctionDef `tree` in place."""
    resolve = _Resolver(namer)
    _block(tree.body, namer, resolve)
    if runtime.scaled in namer.helpers.values():
        _fold_next_factor(tree.body, namer.helper("scaled", runtime.scaled))
    return tree


def _fold_next_factor(stmts, scaled):
    """`a = scaled(a, 2, n)` followed by `b = a * 2` (its one later read, in the function's
    own block) becomes `b = scaled(a, 2, n + 1)`: one array operation fewer, the same
    numbers (one more power-of-two factor)."""
    for k, stmt in enumerate(stmts):
        call = stmt.value if isinstance(stmt, gast.Assign) else None
        if not (isinstance(call, gast.Call) and syntax.is_name(call.func, scaled) and len(stmt.targets) == 1):
            continue
        a, factor = stmt.targets[0].id, call.args[1].value
        rest = [s for s in stmts[k + 1:] if syntax.comment_text(s) is None]
        if not rest or not isinstance(rest[0], gast.Assign) or len(rest[0].targets) != 1:
            continue
        following = rest[0]
        value = following.value
        if not (isinstance(value, gast.BinOp) and isinstance(value.op, gast.Mult)):
            continue
        if not any(syntax.is_name(x, a) and isinstance(y, gast.Constant) and type(y.value) is type(factor)
                   and y.value == factor for x, y in ((value.left, value.right), (value.right, value.left))):
            continue
        if a in traversal.names_read(rest[1:]):
            continue
        count = call.args[2]
        call.args[2] = (syntax.const(count.value + 1) if isinstance(count, gast.Constant)
                        else gast.BinOp(left=count, op=gast.Add(), right=syntax.const(1)))
        following.value = call
        del stmts[k]
        return _fold_next_factor(stmts, scaled)


def _block(stmts, namer, resolve):
    for k, stmt in enumerate(stmts):
        if type(stmt) in traversal.BRANCHES_AND_LOOPS:
            _block(stmt.body, namer, resolve)
            _block(stmt.orelse, namer, resolve)
        if isinstance(stmt, gast.For):
            found = _scaling(stmt, resolve)
            if found is not None:
                target, factor, count = found
                helper = syntax.name(namer.helper("scaled", runtime.scaled))
                call = syntax.call(helper, [syntax.name(target), syntax.const(factor), count])
                stmts[k] = gast.copy_location(syntax.assign(target, call), stmt)


def _scaling(loop, resolve):
    """(adjoint name, factor, count node) if `loop` only scales one name, else None."""
    head = loop.iter
    if (
        loop.orelse
        or not isinstance(loop.target, gast.Name)
        or not isinstance(head, gast.Call)
        or len(head.args) != 1
        or head.keywords
        or resolve(head.func) is not range
    ):
        return None
    count = head.args[0]
    if not (isinstance(count, gast.Name) or (isinstance(count, gast.Constant) and type(count.value) is int)):
        return None
    body = [s for s in loop.body if syntax.comment_text(s) is None]
    if len(body) != 1 or not isinstance(body[0], gast.Assign) or len(body[0].targets) != 1:
        return None
    stmt = body[0]
    target, value = stmt.targets[0], stmt.value
    if not isinstance(target, gast.Name) or not isinstance(value, gast.BinOp) or not isinstance(value.op, gast.Mult):
        return None
    a = target.id
    if a in (loop.target.id, getattr(count, "id", None)):
        return None
    for scaled, factor in ((value.left, value.right), (value.right, value.left)):
        if syntax.is_name(scaled, a) and isinstance(factor, gast.Constant) and _power_of_two(factor.value):
            return a, factor.value, count
    return None


def _power_of_two(c):
    if type(c) is float and c.is_integer():
        c = int(c) if c < 2.0**64 else 0
    elif type(c) is not int:
        return False
    return c >= 2 and c & (c - 1) == 0
