"""Aliases: a local name the function binds to a module or a function, read as that
module's or function's own name.

Before:                       After:
    def f(x):                     def f(x):
        m = np                        m = np
        act = np.tanh
        return m.sum(act(x))          return np.sum(np.tanh(x))

A name qualifies when its one binding in the function (nested functions included) is
`name = <dotted name>` at the top level of the body, the dotted name means a module or
something callable when the derivative is built (`np`, `np.linalg`, `np.tanh`, a global
function, not through a local name; or a nested function defined above it at the top
level), and every read of the name comes after that assignment. Then each read means that
object, as its own name does there: rewriting reads only respells them, and the
assignment of a function goes (nothing reads it, and a nested function can only be
called). A module bound to a name any other way (in a branch, twice, read before) is
refused at its assignment when a call goes through the name, which would otherwise be
taken for a method of a local value; a function so bound is refused where it is called
(calls.py). Returns a new tree; the parse stays as it was.
"""

import types

import gast

from . import printing, syntax, traversal
from .scope import MISSING, dotted_parts, lookup_path


def run(program):
    """`program.tree` with the reads of its module aliases respelled (the same tree when
    there are none); a `SrcGradError` for a module name the rewrite cannot stand for."""
    tree = program.tree
    if not any(type(s) is gast.Assign and len(s.targets) == 1 and type(s.targets[0]) is gast.Name
               and dotted_parts(s.value) is not None for s in traversal.statements(tree)):
        return tree  # no assignment of a name or dotted name: nothing below to find (a statement walk)
    local = {a.id for a in tree.args.args + tree.args.kwonlyargs} | set(traversal.names_stored(tree))
    top = {id(s): k for k, s in enumerate(tree.body)}
    nested = _nested_functions(tree)
    found = {}  # name -> its assignment of a module, None when it does not qualify
    functions = {}  # name -> its assignment of a function that qualifies
    for stmt in traversal.walk(tree):
        if not (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], gast.Name)):
            continue
        parts = dotted_parts(stmt.value)
        if parts is None:
            continue
        name, k = stmt.targets[0].id, top.get(id(stmt))
        qualifies = (k is not None and name not in found and name not in functions and _bindings(tree, name) == 1
                     and not _read_in(tree.body[: k + 1], name))
        if parts[0] in local or parts[0] in nested:
            if qualifies and len(parts) == 1 and nested.get(parts[0], k) < k:
                functions[name] = stmt
            continue
        meaning = lookup_path(parts, program)
        if isinstance(meaning, types.ModuleType):
            found[name] = stmt if qualifies else None
        elif qualifies and meaning is not MISSING and callable(meaning):
            functions[name] = stmt
    _refuse_unresolved(program, tree, local, found)
    aliases = {name: stmt.value for name, stmt in {**found, **functions}.items() if stmt is not None}
    if not aliases:
        return tree

    def respelled(node):
        if node.id in aliases and isinstance(node.ctx, gast.Load):
            return syntax.located(syntax.copy(aliases[node.id]), node)
        return syntax.copy(node)

    made = syntax.copy(tree, name=respelled)
    dropped = {top[id(stmt)] for stmt in functions.values()}
    made.body = [s for k, s in enumerate(made.body) if k not in dropped]
    return made


def _nested_functions(tree):
    """{name: position in `tree.body`} of the nested functions defined at its top level
    (`def name` or `name = lambda ...`) and bound nowhere else."""
    out = {}
    for k, s in enumerate(tree.body):
        if isinstance(s, gast.FunctionDef):
            name = s.name
        elif isinstance(s, gast.Assign) and isinstance(s.value, gast.Lambda) and syntax.is_name(s.targets[0]):
            name = s.targets[0].id
        else:
            continue
        out[name] = k if name not in out and _bindings(tree, name) == (0 if isinstance(s, gast.FunctionDef) else 1) else None
    return {name: k for name, k in out.items() if k is not None}


def _bindings(tree, name):
    """How many times `name` is bound anywhere in `tree`: stores, deletions, parameters of
    nested functions, imports."""
    count = 0
    for node in traversal.walk(tree):
        if isinstance(node, gast.Name) and node.id == name and not isinstance(node.ctx, gast.Load):
            count += 1
        elif isinstance(node, (gast.Import, gast.ImportFrom)):
            count += sum((a.asname or a.name.split(".")[0]) == name for a in node.names)
    return count


def _read_in(stmts, name):
    return any(isinstance(n, gast.Name) and n.id == name and isinstance(n.ctx, gast.Load)
               for s in stmts for n in traversal.walk(s))


def _refuse_unresolved(program, tree, local, found):
    """Refuse a module bound to a local name that does not qualify, when a call goes through it."""
    for name, stmt in found.items():
        if stmt is not None:
            continue
        call = next((n for n in traversal.walk(tree) if isinstance(n, gast.Call) and isinstance(n.func, gast.Attribute)
                     and (dotted_parts(n.func) or [None])[0] == name), None)
        if call is None:
            continue  # attribute reads (`m.pi`) read the module at run time
        made = next(s for s in traversal.walk(tree) if isinstance(s, gast.Assign) and syntax.is_name(s.targets[0], name)
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
