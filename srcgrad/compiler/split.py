"""Split a vector-Jacobian product into its forward pass and a pullback closure.

`srcgrad.vjp` runs the forward pass once, when it is called, and the backward pass
at each call of the pullback, reusing what the forward pass computed.

Before:                                   After:
    def f_vjp(y_bar, x):                      def f_vjp(x):
        # Forward pass                            # Forward pass
        tape = []                                 tape = []
        ...                                       ...
        # Backward pass                           def pullback(y_bar):
        h = tape.pop()                                # Backward pass
        ...                                           tape_1 = list(tape)
        return (y, (x_bar,))                          h_1 = h
                                                      ... (h -> h_1, tape -> tape_1)
                                                      return (x_bar,)
                                                  return (y, pullback)

A pullback may be called any number of times, with the same result, and changes
nothing its caller sees:

- it pops a copy of each tape (a list the backward pass pops for a value), and assigns
  its own copies of the forward pass's variables (`h_1`), on statements of its own;
- it undoes the forward pass's in-place changes on the forward pass's own objects, as
  the tape holds them, and puts them back when it returns:

        undone = Undone()
        try:
            ...
            undone.entry(y, 1)        # what the undo overwrites (undone.py)
            y[1] = tape_1.pop()
            ...
            return (x_bar,)
        finally:
            undone.redo()
"""

import gast

from ..undone import Undone
from . import syntax, traversal


def run(tree, namer):
    """The split form of the vjp FunctionDef `tree` made by reverse mode (seed first)."""
    seed, *params = [a.id for a in tree.args.args]
    kwonly = [a.id for a in tree.args.kwonlyargs]
    body = list(tree.body)
    doc = body.pop(0) if body and _is_docstring(body[0]) else None
    ret = body.pop()
    value, grads = ret.value.elts
    cut = next((k for k, s in enumerate(body) if syntax.comment_text(s) == "Backward pass"), len(body))
    forward, backward = body[:cut], body[cut:]
    outer = set(params) | set(kwonly) | set(traversal.names_stored(forward))
    changed = set(traversal.names_stored(backward)) & outer
    inner = [syntax.copy(s) for s in backward + [syntax.return_(grads)]]  # the forward pass may share nodes with it
    popped = _tapes(inner) & outer
    renames = {name: namer.fresh(name) for name in sorted(changed | popped)}
    exposed = set()
    _exposed(inner, set(), exposed)
    _rename(inner, renames)
    copied = [old for old in renames if old in popped or old in exposed]
    copies = [
        syntax.assign(renames[old], syntax.call("list", [syntax.name(old)]) if old in popped else syntax.name(old))
        for old in copied
    ]
    surely = set(params) | set(kwonly)
    _exposed(forward, surely, set())
    # a copied name the forward pass may leave unset (`cond` of an `and` in a branch not
    # taken) starts as None, which the backward pass then never reads
    start = 1 if forward and syntax.comment_text(forward[0]) == "Forward pass" else 0
    forward[start:start] = [syntax.assign(old, syntax.const(None)) for old in copied if old not in surely]
    head = [inner.pop(0)] if backward and syntax.comment_text(backward[0]) == "Backward pass" else []
    if inner and _makes_undone(inner[0], namer):
        undone = inner.pop(0)
        redo = syntax.expr(syntax.call(syntax.attr(syntax.name(undone.targets[0].id), "redo")))
        inner = [undone, syntax.try_finally(inner, [redo])]
    inner = head + copies + inner
    pullback = syntax.function_def(namer.fresh("pullback"), [seed], inner)
    result = syntax.return_(syntax.tuple_([value, syntax.name(pullback.name)]))
    new = syntax.function_def(
        tree.name, params, forward + [pullback, result], defaults=tree.args.defaults,
        kwonly=kwonly, kw_defaults=tree.args.kw_defaults,
    )
    if doc is not None:
        new.body.insert(0, doc)
    return new


def _is_docstring(stmt):
    return (
        isinstance(stmt, gast.Expr)
        and isinstance(stmt.value, gast.Constant)
        and isinstance(stmt.value.value, str)
        and syntax.comment_text(stmt) is None
    )


def _tapes(stmts):
    """The names that `stmts` pop for a value (`h = tape.pop()`, `y[1] = tape.pop()`): the
    tapes. An undo's `ys.pop()`, a statement of its own, is not one."""
    found, undos = set(), set()
    for n in (n for s in stmts for n in traversal.walk(s)):
        if isinstance(n, gast.Expr):
            undos.add(id(n.value))
        elif (isinstance(n, gast.Call) and isinstance(n.func, gast.Attribute) and n.func.attr == "pop"
              and isinstance(n.func.value, gast.Name) and id(n) not in undos):
            found.add(n.func.value.id)
    return found


def _makes_undone(stmt, namer):
    """Whether `stmt` is the `undone = Undone()` that tape.py puts first in a pullback."""
    return (isinstance(stmt, gast.Assign) and isinstance(stmt.value, gast.Call)
            and isinstance(stmt.value.func, gast.Name) and namer.helpers.get(stmt.value.func.id) is Undone)


def _rename(stmts, renames):
    for stmt in stmts:
        for n in traversal.walk(stmt):
            if isinstance(n, gast.Name) and n.id in renames:
                n.id = renames[n.id]


def _exposed(stmts, assigned, out):
    """Add to `out` the names `stmts` may read before assigning them (`assigned`: surely set)."""
    for s in stmts:
        if isinstance(s, gast.If):
            out.update(n for n in traversal.names_read(s.test) if n not in assigned)
            then, orelse = set(assigned), set(assigned)
            _exposed(s.body, then, out)
            _exposed(s.orelse, orelse, out)
            assigned |= then & orelse
        elif isinstance(s, (gast.For, gast.While)):
            head = s.iter if isinstance(s, gast.For) else s.test
            out.update(n for n in traversal.names_read(head) if n not in assigned)
            inner = set(assigned) | (set(traversal.names_stored(s.target)) if isinstance(s, gast.For) else set())
            _exposed(s.body, inner, out)  # may run no iteration: nothing is surely set after it
        else:
            out.update(n for n in traversal.names_read(s) if n not in assigned)
            assigned.update(traversal.names_stored(s))
