"""A name bound once to a choice between functions, read only by calls, becomes the
choice between the calls.

Before:                                        After:
    act = np.tanh if smooth else relu              act_chosen = 0 if smooth else 1
    h = act(x @ W)                                 h = np.tanh(x @ W) if act_chosen == 0 else relu(x @ W)

The test is taken once, where the name was bound (a call in between may change an
attribute it reads), into a fresh name holding which function was chosen; each call of
the name is the conditional expression of the same calls of each function, so the later
stages resolve and differentiate calls written with the functions' own names, and the
branch taken is the one the function took. Only where that is the same program: the
name is assigned once, on one line, by a statement of the function's body itself (not in a loop or a
branch), is no parameter or name of a nested function or lambda, and is read only as the
function of a call; the test reads names, constants, attributes of those names,
comparisons and `and`/`or`/`not` (no call), and may read names the function assigns
(NumPy's `op = not_equal if a.dtype == np.bool else subtract` after `a = ...`): it is
taken where Python takes it; each choice is a
dotted name (`np.tanh`, `relu`, `self.act`) or such a choice itself
(`a if p else b if q else c`). Anything else is left as written, and the calls refuse
it as before. Returns a new tree; the parse stays as it was.
"""

import re

import gast

from . import syntax, traversal
from .naming import Namer
from .scope import dotted_parts

_CHOICE_LINE = re.compile(r"=.*\bif\b.*\belse\b")
_TEST_NODES = (gast.Name, gast.Constant, gast.Compare, gast.BoolOp, gast.UnaryOp, gast.Attribute, gast.Load,
               gast.cmpop, gast.boolop, gast.unaryop)


def run(program):
    """`program.tree` with each call of a name bound once to a choice between functions
    made the choice between the calls."""
    if not any(_CHOICE_LINE.search(line) for line in program.source_lines):
        return program.tree  # no line assigns a conditional expression
    stored = traversal.names_stored(program.tree)
    counts = store_counts(program.tree)
    choices = {}
    for stmt in program.tree.body:
        if (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], gast.Name)
                and isinstance(stmt.value, gast.IfExp) and counts.get(stmt.targets[0].id) == 1
                and _is_choice(stmt.value, set(stored), stmt.targets[0].id)):
            choices[stmt.targets[0].id] = stmt
    read_otherwise = read_other_than_called(program.tree)
    choices = {name: stmt for name, stmt in choices.items() if name not in read_otherwise}
    if not choices:
        return program.tree
    tree = syntax.copy(program.tree)
    namer = Namer.for_tree(tree)
    namer.taken |= set(program.globals) | set(program.bound)
    chosen, body = {}, []
    for stmt in tree.body:
        if not (isinstance(stmt, gast.Assign) and isinstance(stmt.targets[0], gast.Name)
                and stmt.targets[0].id in choices and isinstance(stmt.value, gast.IfExp)):
            body.append(stmt)
            continue
        name, leaves = stmt.targets[0].id, []
        flag = namer.fresh(f"{name}_chosen")
        body.append(syntax.located(syntax.assign(flag, _numbered(stmt.value, leaves)), stmt))
        chosen[name] = (flag, leaves)
    tree.body = body
    return traversal.rewrite(tree, {gast.Call: lambda call: chosen_call(call, chosen)})


def _numbered(choice, leaves):
    """`choice` with each function it chooses replaced by its number (`0 if p else 1`),
    the functions appended to `leaves` in that order."""
    if isinstance(choice, gast.IfExp):
        return syntax.located(gast.IfExp(test=choice.test, body=_numbered(choice.body, leaves),
                                         orelse=_numbered(choice.orelse, leaves)), choice)
    leaves.append(choice)
    return syntax.located(syntax.const(len(leaves) - 1), choice)


def store_counts(tree):
    """{name: how many times it is bound} over `tree` (targets, loop targets, parameters and
    names of nested functions and lambdas, imports)."""
    counts = {}
    for n in traversal.nodes(tree):
        if type(n) is gast.Name and isinstance(n.ctx, (gast.Store, gast.Del, gast.Param)):
            counts[n.id] = counts.get(n.id, 0) + 1
        elif isinstance(n, (gast.FunctionDef, gast.ClassDef)) and n is not tree:
            counts[n.name] = counts.get(n.name, 0) + 1
        elif isinstance(n, gast.alias):
            name = n.asname or n.name.split(".")[0]
            counts[name] = counts.get(name, 0) + 1
    return counts


def _is_choice(node, stored, name):
    """Whether `node` chooses between dotted names (not `name`, roots outside `stored`)
    by a test without calls."""
    if isinstance(node, gast.IfExp):
        return (all(isinstance(n, _TEST_NODES) for n in traversal.nodes(node.test))
                and _is_choice(node.body, stored, name) and _is_choice(node.orelse, stored, name))
    parts = dotted_parts(node)
    return parts is not None and parts[0] != name and parts[0] not in stored


def read_other_than_called(tree):
    """The names that `tree` reads somewhere other than as the function of a call."""
    nodes = list(traversal.nodes(tree))
    called = {id(n.func) for n in nodes if type(n) is gast.Call}
    return {n.id for n in nodes if type(n) is gast.Name and isinstance(n.ctx, gast.Load) and id(n) not in called}


def chosen_call(call, chosen):
    """`act(x)` as `np.tanh(x) if act_chosen == 0 else relu(x)` where `act` is in `chosen`."""
    if not (isinstance(call.func, gast.Name) and call.func.id in chosen):
        return call
    flag, leaves = chosen[call.func.id]
    made = _called(leaves[-1], call)
    for number in range(len(leaves) - 2, -1, -1):
        test = syntax.compare(syntax.name(flag), gast.Eq(), syntax.const(number))
        made = syntax.located(gast.IfExp(test=test, body=_called(leaves[number], call), orelse=made), call)
    return made


def _called(function, call):
    made = syntax.copy(call)
    made.func = syntax.located(syntax.copy(function), call.func)
    return made
