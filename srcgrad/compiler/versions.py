"""Give each top-level reassignment its own name, so straight-line code never overwrites.

Before:  y = x * 2          After:  y = x * 2
         y = np.sin(y)              y_1 = np.sin(y)
         return y * x               out = y_1 * x

Only statements directly in the function body get new versions. Inside `if`/`for`/
`while`, assignments write to the version current when the statement starts (reverse
mode saves overwritten values there). Runs on ANF trees; parameters count as defined.
In code srcgrad generated (`restores`), a pop from a list (`i = tape.pop()`) keeps its
name: it restores the value that name pushed, and forward mode pairs a tape's pushes and
pops by name (tape_tangents.py).
"""

import gast

from . import traversal


def run(tree, namer, restores=False):
    """Rename top-level reassignments of the ANF FunctionDef `tree` (in place). Returns
    `tree` and the names it stores anywhere (`traversal.names_stored(tree)` as a set, found
    in the same walk)."""
    defined = {a.id for a in tree.args.args} | {a.id for a in tree.args.kwonlyargs}
    env, stored = {}, set()
    for stmt in tree.body:
        if isinstance(stmt, gast.Assign) and isinstance(stmt.targets[0], gast.Name):
            _rename(stmt.value, env, stored)
            target = stmt.targets[0]
            if restores and _is_pop(stmt.value):
                env[target.id] = target.id
                defined.add(target.id)
            elif target.id in defined:
                new = namer.fresh(target.id)
                env[target.id] = new
                target.id = new
            else:
                defined.add(target.id)
                env[target.id] = target.id
            if len(stmt.targets) == 1 and target.annotation is None:  # most: a name, nothing under it
                if isinstance(target.ctx, gast.Store):
                    stored.add(target.id)
            else:
                stored.update(traversal.names_stored(stmt.targets))
            continue
        found = set()
        _rename(stmt, env, found)
        defined.update(found)
        stored.update(found)
    return tree, stored


def _rename(node, env, stored):
    """Rename the names of `env` under `node`; add the names stored there (renamed) to `stored`."""
    store = gast.Store
    for n in traversal.name_nodes(node):
        if n.id in env:
            n.id = env[n.id]
        if isinstance(n.ctx, store):
            stored.add(n.id)


def _is_pop(value):
    """`name.pop()`: a tape's pop in generated code."""
    return (isinstance(value, gast.Call) and isinstance(value.func, gast.Attribute) and value.func.attr == "pop"
            and isinstance(value.func.value, gast.Name) and not value.args and not value.keywords)
