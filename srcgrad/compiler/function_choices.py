"""A name bound once to a choice between functions, read only by calls, becomes the
choice between the calls.

Before:                                        After:
    act = np.tanh if smooth else relu              h = np.tanh(x @ W) if smooth else relu(x @ W)
    h = act(x @ W)

Each call of the name is the conditional expression of the same calls of each function,
so the later stages resolve and differentiate calls written with the functions' own
names, and the branch taken is the one the function took. Only where that is the same
program: the name is assigned once, on one line, by a statement of the function's body itself (not
in a loop or a branch), and read only as the function of a call; the test reads names
the function never assigns, constants, attributes of those names, comparisons and
`and`/`or`/`not` (no call), so it has the same value at every call; each choice is a
dotted name (`np.tanh`, `relu`, `self.act`) or such a choice itself
(`a if p else b if q else c`). Anything else is left as written, and the calls refuse
it as before. Returns a new tree; the parse stays as it was.
"""

import re

import gast

from . import syntax
from .scope import dotted_parts

_CHOICE_LINE = re.compile(r"=.*\bif\b.*\belse\b")
_TEST_NODES = (gast.Name, gast.Constant, gast.Compare, gast.BoolOp, gast.UnaryOp, gast.Attribute, gast.Load,
               gast.cmpop, gast.boolop, gast.unaryop)


def run(program):
    """`program.tree` with each call of a name bound once to a choice between functions
    made the choice between the calls."""
    if not any(_CHOICE_LINE.search(line) for line in program.source_lines):
        return program.tree  # no line assigns a conditional expression
    stored = syntax.names_stored(program.tree)
    counts = _store_counts(program.tree)
    choices = {}
    for stmt in program.tree.body:
        if (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], gast.Name)
                and isinstance(stmt.value, gast.IfExp) and counts.get(stmt.targets[0].id) == 1
                and _is_choice(stmt.value, set(stored), stmt.targets[0].id)):
            choices[stmt.targets[0].id] = stmt
    choices = {name: stmt for name, stmt in choices.items() if _only_called(program.tree, name)}
    if not choices:
        return program.tree
    tree = syntax.copy(program.tree)
    kept = [s for s in tree.body if not (isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Name)
                                         and s.targets[0].id in choices and isinstance(s.value, gast.IfExp))]
    tree.body = kept
    chosen = {name: stmt.value for name, stmt in choices.items()}
    return syntax.rewrite(tree, {gast.Call: lambda call: _chosen_call(call, chosen)})


def _store_counts(tree):
    """{name: how many times it is assigned} over `tree` (targets, loop targets, ...)."""
    counts = {}
    for n in syntax.nodes(tree):
        if type(n) is gast.Name and isinstance(n.ctx, (gast.Store, gast.Del)):
            counts[n.id] = counts.get(n.id, 0) + 1
    return counts


def _is_choice(node, stored, name):
    """Whether `node` chooses between dotted names (not `name`) by a test that reads only
    names outside `stored`, without calls."""
    if isinstance(node, gast.IfExp):
        reads = [n.id for n in syntax.nodes(node.test) if type(n) is gast.Name]
        return (all(isinstance(n, _TEST_NODES) for n in syntax.nodes(node.test))
                and not any(r in stored for r in reads)
                and _is_choice(node.body, stored, name) and _is_choice(node.orelse, stored, name))
    parts = dotted_parts(node)
    return parts is not None and parts[0] != name and parts[0] not in stored


def _only_called(tree, name):
    """Whether every read of `name` in `tree` is the function of a call."""
    calls = {id(n.func) for n in syntax.nodes(tree) if isinstance(n, gast.Call)}
    return all(id(n) in calls for n in syntax.nodes(tree)
               if type(n) is gast.Name and n.id == name and isinstance(n.ctx, gast.Load))


def _chosen_call(call, chosen):
    """`act(x)` as `np.tanh(x) if smooth else relu(x)` where `act` is in `chosen`."""
    if not (isinstance(call.func, gast.Name) and call.func.id in chosen):
        return call
    return _spread(chosen[call.func.id], call)


def _spread(choice, call):
    if isinstance(choice, gast.IfExp):
        return syntax.located(gast.IfExp(test=syntax.copy(choice.test), body=_spread(choice.body, call),
                                         orelse=_spread(choice.orelse, call)), call)
    made = syntax.copy(call)
    made.func = syntax.located(syntax.copy(choice), call.func)
    return made
