"""Where each local name of a function is read, to tell whether a read may still run
after a given statement (sharing.py asks it of the names an in-place change reaches).

Invariant: `after` answers None only where no read of the name can run after the
statement: none later in the text, none in a loop around the statement (the next
iteration), none in a nested function (which may be called at any time).
"""

import gast

from . import traversal


class Reads:
    """Where each local name is read: to tell whether a read may run after a statement."""

    def __init__(self, tree):
        self.reads = {}
        nested = [n for s in tree.body if isinstance(s, gast.FunctionDef) for n in traversal.walk(s)]
        self.always = {}  # name -> a read in a nested function
        for n in nested:
            if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load):
                self.always.setdefault(n.id, n)
        self.nested_ids = {id(n) for n in nested}
        for n in traversal.walk(tree):
            if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load) and id(n) not in self.nested_ids:
                self.reads.setdefault(n.id, []).append(n)
        self.tree = tree

    def after(self, name, stmt, loops):
        """A read of `name` that may run after `stmt` (inside `loops`), or None. Names a
        nested function reads count as read everywhere (it may be called later)."""
        end = (stmt.end_lineno, stmt.end_col_offset)
        reads = sorted(self.reads.get(name, []), key=lambda n: (n.lineno, n.col_offset))
        for read in reads:
            if (read.lineno, read.col_offset) >= end:
                return read
        inside = {id(n) for loop in loops for n in traversal.walk(loop)}
        for read in reads:
            if id(read) in inside:
                return read
        return self.always.get(name)
