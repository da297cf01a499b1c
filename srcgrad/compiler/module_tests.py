"""Tests of what a module holds (`hasattr(np, "trapz")`), decided when the function is
compiled: the branch not taken is dropped.

Before:                                                        After (NumPy 2):
    area = np.trapz(y) if hasattr(np, "trapz") else np.trapezoid(y)    area = np.trapezoid(y)
    if hasattr(np, "trapezoid"):                                         area = np.trapezoid(y)
        area = np.trapezoid(y)
    else:
        area = np.trapz(y)

The other branch calls a function the installed library does not define, which would
be refused as missing although it never runs. A module's attributes are what the
installed library defines, so the test has one answer while the program runs. Decided
are `hasattr(m, "name")` of a name (or dotted name) the function does not assign that
means a module, with a string literal, and `not`, `and` and `or` of such tests, as the
test of an `if` statement or a conditional expression; any other test is left as it was.
Returns a new tree; the parse stays as it was.
"""

import types

import gast

from . import syntax, traversal
from .scope import MISSING, dotted_parts, lookup_path


def run(program):
    """`program.tree` with each decided branch taken, as above."""
    if not any("hasattr" in line for line in program.source_lines):
        return program.tree
    tree = program.tree
    local = set(traversal.names_stored(tree)) | {a.id for a in tree.args.args + tree.args.kwonlyargs}
    if not any(isinstance(n, (gast.If, gast.IfExp)) and _decided(n.test, local, program) is not None
               for n in traversal.walk(tree)):
        return tree
    tree = syntax.copy(tree)

    def expression(node):
        taken = _decided(node.test, local, program)
        return node if taken is None else (node.body if taken else node.orelse)

    tree = traversal.rewrite(tree, {gast.IfExp: expression})
    _blocks(tree, local, program)
    return tree


def _blocks(node, local, program):
    """Each `if` of a decided test, in the statement lists under `node`, replaced by the
    block it takes (`pass` for an empty one)."""
    for field in ("body", "orelse", "finalbody"):
        stmts = getattr(node, field, None)
        if not isinstance(stmts, list) or not stmts or not isinstance(stmts[0], gast.stmt):
            continue
        out = []
        for s in stmts:
            taken = _decided(s.test, local, program) if isinstance(s, gast.If) else None
            if taken is None:
                out.append(s)
            else:
                out += (s.body if taken else s.orelse) or [syntax.located(syntax.pass_(), s)]
        setattr(node, field, out)
        for s in out:
            _blocks(s, local, program)
    for handler in getattr(node, "handlers", ()):
        _blocks(handler, local, program)


def _decided(test, local, program):
    """True or False where `test` is such a test of modules, else None."""
    if isinstance(test, gast.UnaryOp) and isinstance(test.op, gast.Not):
        inner = _decided(test.operand, local, program)
        return None if inner is None else not inner
    if isinstance(test, gast.BoolOp):
        values = [_decided(v, local, program) for v in test.values]
        if any(v is None for v in values):
            return None
        return all(values) if isinstance(test.op, gast.And) else any(values)
    if not (isinstance(test, gast.Call) and syntax.is_name(test.func, "hasattr") and len(test.args) == 2
            and not test.keywords and syntax.is_const(test.args[1]) and isinstance(test.args[1].value, str)):
        return None
    if "hasattr" in local or lookup_path(["hasattr"], program) is not hasattr:
        return None
    parts = dotted_parts(test.args[0])
    if parts is None or parts[0] in local:
        return None
    module = lookup_path(parts, program)
    if module is MISSING or not isinstance(module, types.ModuleType):
        return None
    return hasattr(module, test.args[1].value)
