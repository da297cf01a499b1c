"""Where each statement of an ANF function sits in its blocks (`Blocks`), and the
questions of order mutation.py asks of it: whether an alias's definition may run between
the assignment that made an object new and a change of it (`between`), whether every
read of an alias runs before the next change (`used_before_change`), and whether a
definition `alias = other` hands `other`'s object over, nobody reading `other` after it
(`handed_over`). Nothing here changes the tree.
"""

import gast

from . import holders, syntax, traversal


class Blocks:
    """Where each statement sits: (block, position, parent statement) at any depth."""

    def __init__(self, tree):
        self.where = {}
        self.parent = {}
        self._index(tree.body, None)

    def _index(self, block, parent):
        for k, s in enumerate(block):
            self.where[id(s)] = (block, k)
            self.parent[id(s)] = parent
            for field in ("body", "orelse"):
                inner = getattr(s, field, None)
                if isinstance(inner, list) and inner and isinstance(inner[0], gast.stmt):
                    self._index(inner, s)

    def fresh_before(self, stmt, base, calls):
        """The statement that last made `base` a new object before `stmt` runs (in `stmt`'s
        block or an enclosing one), or None. A change after it cannot reach older aliases."""
        while stmt is not None:
            block, k = self.where[id(stmt)]
            for earlier in reversed(block[:k]):
                if base in traversal.names_stored(earlier):
                    fresh = (isinstance(earlier, gast.Assign) and syntax.is_name(earlier.targets[0], base)
                             and holders.fresh_value(earlier.value, calls))
                    return earlier if fresh else None
            stmt = self.parent[id(stmt)]
        return None

    def changes_own(self, stmt, base, calls):
        """Whether the change `stmt` of `base` always changes an object `fresh_before` made
        new for it: no loop around `stmt`, inside the block of that statement, assigns
        `base` (the next pass would change what that assignment gave). Another assignment
        of `base` elsewhere (`for row in rows:` after a loop built each `row = []`) then
        never names the object the change reaches."""
        fresh = self.fresh_before(stmt, base, calls)
        if fresh is None:
            return False
        home = self.where[id(fresh)][0]
        around = stmt
        while self.where[id(around)][0] is not home:  # up to the statement of `home` holding `stmt`
            around = self.parent[id(around)]
            if isinstance(around, (gast.For, gast.While)) and base in traversal.names_stored(around):
                return False
        return True


def _top(node_id, block):
    """The statement of `block` that contains the node, or None."""
    for s in block:
        if any(id(n) == node_id for n in traversal.walk(s)):
            return s
    return None


def between(definition, fresh, change, blocks):
    """Whether `definition` may run after `fresh` and before `change`: only then can it
    alias the object that `change` changes. Positions count in `fresh`'s block; a
    definition outside that block cannot run while the block goes from `fresh` to
    `change` (it aliases an object made before, or one changed already)."""
    block, start = blocks.where[id(fresh)]
    end = position_in(block, change, blocks)
    at = position_in(block, definition, blocks)
    return end is None or (at is not None and start <= at <= end)


def position_in(block, stmt, blocks):
    """The position in `block` of the statement that is or contains `stmt`, or None."""
    while stmt is not None:
        where = blocks.where[id(stmt)]
        if where[0] is block:
            return where[1]
        stmt = blocks.parent[id(stmt)]
    return None


def used_before_change(definition, alias, reads, changed, blocks):
    """Whether every read of the alias made by `definition` comes after it in the same block,
    with no change of the group in between (the last reading statement may itself change it).
    A definition in a branch of an `if` whose branches both assign the alias (`prev =
    out[:, j - 1] if j > 0 else 0.0`) also covers the reads after the `if`, the branch then
    changing nothing after it."""
    changed_ids = {id(s) for s in changed}
    anchor = definition
    while True:
        block, start = blocks.where[id(anchor)]
        after = block[start + 1:]
        tops = [(r, _top(id(r), after)) for r in reads]  # each read's statement in this block, or None
        reads = [r for r, top in tops if top is None]  # those after the block: covered one level up
        last = max((blocks.where[id(top)][1] for _, top in tops if top is not None), default=start)
        for s in block[start + 1: (len(block) - 1 if reads else last) + 1]:
            inside = {id(n) for n in traversal.walk(s)} & changed_ids
            if inside and (reads or not (s is block[last] and id(s) in changed_ids)):
                return False
        if not reads:
            return True
        anchor = blocks.parent[id(anchor)]
        if not (isinstance(anchor, gast.If) and all(alias in traversal.names_stored(b) for b in (anchor.body, anchor.orelse))):
            return False


def handed_over(defs, alias, changed, changed_stmts, tree, blocks):
    """Whether the one definition `alias = other` hands `other`'s object over to `alias`
    and every change in `changed_stmts` is a change of `alias` itself: no read of `other`
    runs after it (each comes before it in its block, and, in a loop's body, after a fresh
    `other = ...` there), so a later change through `alias` reaches no other reader. ANF
    writes `params = {k: ... for k, v in params.items()}` so: the dict built under a
    temporary, then `params = items`."""
    if len(defs) != 1 or not isinstance(defs[0], gast.Assign) or not isinstance(defs[0].value, gast.Name):
        return False
    bases = {id(s): b for s, b, _ in changed}
    if any(bases[id(s)] != alias for s in changed_stmts):
        return False
    other = defs[0].value.id
    block, at = blocks.where[id(defs[0])]
    reads = [s for s in traversal.statements(tree) if s is not tree and other in traversal.names_read(_head(s))]
    where = [position_in(block, s, blocks) for s in reads]
    if any(k is None or k > at for k in where):
        return False
    reading = [k for k in where if k != at]
    if block is tree.body or not reading:
        return True
    made = [k for k, s in enumerate(block) if isinstance(s, gast.Assign) and syntax.is_name(s.targets[0], other)]
    return bool(made) and min(made) < min(reading)


def _head(stmt):
    """The expressions of `stmt` outside its blocks (a loop's target and iterable, an `if`'s test)."""
    out = []
    for f in stmt._fields:
        value = getattr(stmt, f)
        if f not in ("body", "orelse", "finalbody", "handlers"):
            out += [v for v in (value if isinstance(value, list) else [value]) if isinstance(v, gast.AST)]
    return out
