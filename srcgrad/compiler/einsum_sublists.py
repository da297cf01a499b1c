"""np.einsum's sublist form spelled as its subscripts string, which the derivative rules
of np.einsum read.

Before (user code):                           After:
    y = np.einsum(a, [0, 1], b, [1, 2], [0, 2])    y = np.einsum("AB,BC->AC", a, b)
    s = np.einsum(a, [Ellipsis, 0], a, [..., 0])   s = np.einsum("...A,...A", a, a)

NumPy reads the label k of a sublist as the letter 'A' + k (k < 26) or 'a' + k - 26
(k < 52), so the string made here names the same labels in the same order: with no
output sublist, the output is the labels used once in that order, as NumPy's implicit
mode gives it. Only a call of np.einsum by a name the function does not bind (`np.einsum`,
`einsum` imported from numpy) whose sublists are all written out (lists or tuples of int literals and `...`/`Ellipsis`) is respelled;
keywords (`optimize=`, `dtype=`) stay. Any other call is left, for activity.py to refuse
where a differentiated value reaches it. Runs on the parse, after index_tricks.py;
returns a new tree when it rewrites anything, the same tree otherwise.
"""

import string

import gast
import numpy as np

from . import syntax, traversal
from .scope import dotted_parts, lookup_path

_LETTERS = string.ascii_uppercase + string.ascii_lowercase  # NumPy's letter for label k


def run(program):
    tree = program.tree
    if not any("einsum(" in line for line in program.source_lines):
        return tree
    stored = set(traversal.names_stored(tree)) | {a.id for a in tree.args.args}
    if not any(type(n) is gast.Call and _subscripts(n, program, stored) is not None for n in traversal.nodes(tree)):
        return tree
    tree = syntax.copy(tree)
    traversal.rewrite(tree, {gast.Call: lambda call: _respelled(call, program, stored)})
    return tree


def _subscripts(call, program, stored):
    """The subscripts string of `call`, an np.einsum of written-out sublists reached
    through the numpy module's name; None for any other call."""
    parts = dotted_parts(call.func)
    if parts is None or parts[0] in stored or len(call.args) < 2 or lookup_path(parts, program) is not np.einsum:
        return None
    if any(type(a) is gast.Starred for a in call.args):
        return None
    pairs = len(call.args) // 2
    sublists = [_labels(a) for a in call.args[1: 2 * pairs: 2]]
    output = _labels(call.args[-1]) if len(call.args) % 2 else ""
    if output is None or any(s is None for s in sublists):
        return None
    spec = ",".join(sublists)
    return spec + "->" + output if len(call.args) % 2 else spec


def _labels(node):
    """The letters of a written-out sublist node, or None."""
    if type(node) not in (gast.List, gast.Tuple):
        return None
    out = []
    for e in node.elts:
        if type(e) is gast.Constant and e.value is Ellipsis:
            out.append("...")
        elif type(e) is gast.Name and e.id == "Ellipsis":
            out.append("...")
        elif type(e) is gast.Constant and type(e.value) is int and 0 <= e.value < len(_LETTERS):
            out.append(_LETTERS[e.value])
        else:
            return None
    return "".join(out)


def _respelled(call, program, stored):
    spec = _subscripts(call, program, stored)
    if spec is None:
        return call
    operands = call.args[0: 2 * (len(call.args) // 2): 2]
    keywords = [(k.arg, k.value) for k in call.keywords]
    return syntax.located(syntax.call(call.func, [syntax.const(spec), *operands], keywords), call)
