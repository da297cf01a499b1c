"""`global` and `nonlocal` statements of names the function only reads, dropped.

Before:                              After:
    def scaled(x):                       def scaled(x):
        global SCALE                         return x * SCALE
        return x * SCALE

A declaration changes only where an assignment in the function's scope goes: a name
that nothing in the function assigns (no assignment, augmented assignment, `del`, loop
or `with` target, `import`, `except ... as`, nested `def` or `class` of that name, in
the function or in a function nested in it) is read from the module or the enclosing
function with or without it, as srcgrad's derivative reads it (live). A declaration of
a name the function assigns stays, and fence.py refuses it at its line, naming the
assignment: srcgrad does not differentiate a change of a global or of an enclosing
function's variable. Runs on the parse first; a new tree where it drops anything, the
same tree otherwise.
"""

import gast

from . import syntax, traversal


def run(program):
    """`program.tree` without the declarations of names it only reads."""
    tree = program.tree
    if not any(isinstance(n, (gast.Global, gast.Nonlocal)) for n in traversal.statements(tree)):  # statements only
        return tree
    stored = assigned(tree)
    if any(isinstance(n, (gast.Global, gast.Nonlocal)) and set(n.names) & set(stored) for n in traversal.walk(tree)):
        return tree  # fence.py refuses it
    tree = syntax.copy(tree)
    for holder in list(traversal.statements(tree)):
        for stmts in traversal.blocks_in(holder):
            kept = [s for s in stmts if not isinstance(s, (gast.Global, gast.Nonlocal))]
            stmts[:] = kept or [syntax.located(syntax.pass_(), stmts[0])]
    return tree


def assigned(tree):
    """{name: the first node assigning it} for every name something under `tree` binds."""
    found = {}
    for n in traversal.walk(tree):
        names = []
        if type(n) is gast.Name and isinstance(n.ctx, (gast.Store, gast.Del)):
            names = [n.id]
        elif isinstance(n, (gast.Import, gast.ImportFrom)):
            names = [(a.asname or a.name).split(".")[0] for a in n.names]
        elif isinstance(n, (gast.FunctionDef, gast.ClassDef)) and n is not tree:
            names = [n.name]
        for name in names:
            found.setdefault(name, n)
    return found
