"""Module aliases: a local name the function binds to a module, read as the module's own name.

Before:                       After:
    def f(x):                     def f(x):
        m = np                        m = np
        return m.sum(m.sin(x))        return np.sum(np.sin(x))

A name qualifies when its one binding in the function (nested functions included) is
`name = <dotted name>` at the top level of the body, the dotted name means a module when
the derivative is built (`np`, `np.linalg`, not through a local name), and every read of
the name comes after that assignment. Then each read means that module, as the module's
own name does there: rewriting reads only respells them. A module bound to a name any
other way (in a branch, twice, read before) is refused at its assignment when a call goes
through the name, which would otherwise be taken for a method of a local value. Returns
a new tree; the parse stays as it was.
"""

import types

import gast

from . import printing, syntax
from .scope import dotted_parts, lookup_path


def run(program):
    """`program.tree` with the reads of its module aliases respelled (the same tree when
    there are none); a `SrcGradError` for a module name the rewrite cannot stand for."""
    tree = program.tree
    local = {a.id for a in tree.args.args + tree.args.kwonlyargs} | set(syntax.names_stored(tree))
    top = {id(s): k for k, s in enumerate(tree.body)}
    found = {}  # name -> its assignment of a module, None when it does not qualify
    for stmt in syntax.walk(tree):
        if not (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], gast.Name)):
            continue
        parts = dotted_parts(stmt.value)
        if parts is None or parts[0] in local or not isinstance(lookup_path(parts, program), types.ModuleType):
            continue
        name = stmt.targets[0].id
        k = top.get(id(stmt))
        qualifies = (k is not None and name not in found and _bindings(tree, name) == 1
                     and not _read_in(tree.body[: k + 1], name))
        found[name] = stmt if qualifies else None
    _refuse_unresolved(program, tree, local, found)
    aliases = {name: stmt.value for name, stmt in found.items() if stmt is not None}
    if not aliases:
        return tree

    def respelled(node):
        if node.id in aliases and isinstance(node.ctx, gast.Load):
            return syntax.located(syntax.copy(aliases[node.id]), node)
        return syntax.copy(node)

    return syntax.copy(tree, name=respelled)


def _bindings(tree, name):
    """How many times `name` is bound anywhere in `tree`: stores, deletions, parameters of
    nested functions, imports."""
    count = 0
    for node in syntax.walk(tree):
        if isinstance(node, gast.Name) and node.id == name and not isinstance(node.ctx, gast.Load):
            count += 1
        elif isinstance(node, (gast.Import, gast.ImportFrom)):
            count += sum((a.asname or a.name.split(".")[0]) == name for a in node.names)
    return count


def _read_in(stmts, name):
    return any(isinstance(n, gast.Name) and n.id == name and isinstance(n.ctx, gast.Load)
               for s in stmts for n in syntax.walk(s))


def _refuse_unresolved(program, tree, local, found):
    """Refuse a module bound to a local name that does not qualify, when a call goes through it."""
    for name, stmt in found.items():
        if stmt is not None:
            continue
        call = next((n for n in syntax.walk(tree) if isinstance(n, gast.Call) and isinstance(n.func, gast.Attribute)
                     and (dotted_parts(n.func) or [None])[0] == name), None)
        if call is None:
            continue  # attribute reads (`m.pi`) read the module at run time
        made = next(s for s in syntax.walk(tree) if isinstance(s, gast.Assign) and syntax.is_name(s.targets[0], name)
                    and isinstance(lookup_path(dotted_parts(s.value) or [""], program), types.ModuleType))
        module = lookup_path(dotted_parts(made.value), program)
        own = ".".join(dotted_parts(made.value) + dotted_parts(call.func)[1:])
        raise program.error(
            made, f"`{program.text(made)}` gives the module `{module.__name__}` a local name in `{program.name}`; "
            f"srcgrad resolves a call through such a name (`{printing.unparse(call)}`, line {program.line(call)}) "
            "only when one assignment at the top level of the function binds it, before every use of it: call "
            f"through the module's own name (`{own}(...)`) or import it in the function "
            f"(`import {module.__name__} as {name}`)",
        )
