"""The `None`-default idiom for a parameter holding a function, resolved per binding.

    def layer(x, W, act=None):
        if act is None:              # or: act = act or np.tanh
            act = np.tanh            # or: act = np.tanh if act is None else act
        return act(x @ W)

The derivative is made per function a call passes to `act` (function_arguments.py,
bound_calls.with_functions), so the statement's outcome is known when it is made:

- `act` bound to a function (`layer(x, W, np.sin)`): the test is false (a function is
  not None, and is true), so the statement is dropped and `act` stays the function passed;
- `act` bound to `GIVEN_NONE` (`layer(x, W)`, `layer(x, W, None)`): the statement always
  assigns, so it is dropped and each read of `act` after it is spelled as the default
  (`np.tanh(x @ W)`), which must be a dotted name of a global, closure or builtin
  (`np.tanh`, `relu`): no name the function binds.

A statement qualifies (`idioms`) where it is one of the three forms above, at the top
level of the body, the parameter is neither read nor assigned before it nor assigned
anywhere else. Anything else is left as written, and the calls refuse it as before.
`act = act or g` is resolved only for a function, partial or bound method passed: an
object whose class defines `__call__` may be false. Returns a new tree; the parse
stays as it was.
"""

import gast

from ..errors import NotDifferentiableError
from . import syntax, traversal


class _GivenNone:
    """What a parameter given `None` (or left to its default `None`) is bound to where
    the function replaces `None` by a default function (`idioms`)."""

    __slots__ = ()
    __name__ = "None"

    def __repr__(self):
        return "None"


GIVEN_NONE = _GivenNone()


def idioms(tree):
    """{parameter: (index in `tree.body` of its idiom statement, the default's node,
    the form: "if", "or" or "ifexp")} of the function `tree`, for the parameters it calls
    (`act(x)`; `if axis is None: axis = 0` stays a branch)."""
    args = tree.args
    params = {a.id for a in args.posonlyargs + args.args + args.kwonlyargs}
    found, seen = {}, set()
    stores, called = {}, set()
    for n in traversal.nodes(tree):
        if isinstance(n, gast.Call) and isinstance(n.func, gast.Name):
            called.add(n.func.id)
        elif isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store):
            stores[n.id] = stores.get(n.id, 0) + 1
        elif isinstance(n, (gast.FunctionDef, gast.Lambda)) and n is not tree:  # a nested scope's own parameter
            for a in n.args.posonlyargs + n.args.args + n.args.kwonlyargs:
                stores[a.id] = stores.get(a.id, 0) + 2
    for k, stmt in enumerate(tree.body):
        shape = _idiom(stmt)
        if (shape is not None and shape[0] in params and shape[0] in called and shape[0] not in seen
                and stores.get(shape[0]) == 1):
            found[shape[0]] = (k, shape[1], shape[2])
        seen.update(n.id for n in traversal.nodes(stmt) if isinstance(n, gast.Name))
    return found


def _idiom(stmt):
    """(parameter, default node, form) where `stmt` is an idiom statement, else None."""
    if isinstance(stmt, gast.If) and not stmt.orelse and len(stmt.body) == 1:
        name = _is_none_test(stmt.test, gast.Is)
        inner = stmt.body[0]
        if name is not None and _assigns(inner) == name:
            return name, inner.value, "if"
        return None
    target = _assigns(stmt)
    if target is None:
        return None
    value = stmt.value
    if (isinstance(value, gast.BoolOp) and isinstance(value.op, gast.Or) and len(value.values) == 2
            and syntax.is_name(value.values[0], target)):
        return target, value.values[1], "or"
    if isinstance(value, gast.IfExp):
        if _is_none_test(value.test, gast.Is) == target and syntax.is_name(value.orelse, target):
            return target, value.body, "ifexp"
        if _is_none_test(value.test, gast.IsNot) == target and syntax.is_name(value.body, target):
            return target, value.orelse, "ifexp"
    return None


def _assigns(stmt):
    """The name `stmt` assigns where it is `name = <expression>`, else None."""
    if isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], gast.Name):
        return stmt.targets[0].id
    return None


def _is_none_test(test, op):
    """The name `test` compares with None by `op` (`act is None`), else None."""
    if (isinstance(test, gast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], op)
            and isinstance(test.left, gast.Name) and isinstance(test.comparators[0], gast.Constant)
            and test.comparators[0].value is None):
        return test.left.id
    return None


def run(program, bound):
    """(tree, bound): `program.tree` with the idiom statement of each parameter bound in
    `bound` (a function, or `GIVEN_NONE`) resolved as the module docstring says, and
    `bound` without the parameters given None. The same objects where nothing changes."""
    if not bound:
        return program.tree, bound
    found = {p: shape for p, shape in idioms(program.tree).items() if p in bound}
    if not found:
        return program.tree, bound
    tree = syntax.copy(program.tree)
    local = set(traversal.names_stored(tree)) | {a.id for a in tree.args.posonlyargs + tree.args.args + tree.args.kwonlyargs}
    spelled, dropped = {}, set()
    for param, (k, default, form) in found.items():
        stmt = tree.body[k]
        if bound[param] is GIVEN_NONE:
            if not _is_global_name(default, local):
                raise program.error(
                    default, f"`{program.name}` replaces `None` in its parameter `{param}` by "
                    f"`{_text(program, default)}`: srcgrad follows a default function given so only where it is "
                    f"a global, closure or builtin function named by its own dotted name (`{param} = np.tanh`, "
                    f"`{param} = relu`); bind the function to a global name or give it as the parameter's default",
                    NotDifferentiableError,
                )
            spelled[param] = tree.body[k].body[0].value if form == "if" else _default_node(stmt.value, form)
        elif form == "or" and (getattr(bound[param], "held", None) == ((),) or getattr(bound[param], "record", True) is False):
            raise program.error(
                stmt, f"`{program.name}` tests its parameter `{param}` with `or`, and is passed an object whose "
                "class defines `__call__`, which may be false: write `if "
                f"{param} is None: {param} = ...`", NotDifferentiableError,
            )
        dropped.add(k)
    tree.body = [stmt for k, stmt in enumerate(tree.body) if k not in dropped]
    if spelled:
        tree = _Spelled(spelled).visit(tree)
    return tree, {p: v for p, v in bound.items() if v is not GIVEN_NONE}


def _default_node(value, form):
    if form == "or":
        return value.values[1]
    return value.body if _is_none_test(value.test, gast.Is) else value.orelse


def _is_global_name(node, local):
    """Whether `node` is a dotted name whose first name the function does not bind."""
    while isinstance(node, gast.Attribute):
        node = node.value
    return isinstance(node, gast.Name) and node.id not in local


class _Spelled(gast.NodeTransformer):
    """Each read of a parameter given None spelled as its default function."""

    def __init__(self, spelled):
        self.spelled = spelled

    def visit_Name(self, node):
        if isinstance(node.ctx, gast.Load) and node.id in self.spelled:
            return syntax.located(syntax.copy(self.spelled[node.id]), node)
        return node


def _text(program, node):
    line = program.source_lines[node.lineno - 1] if getattr(node, "lineno", None) else ""
    return line[node.col_offset:node.end_col_offset] if line and getattr(node, "end_col_offset", None) else "..."
