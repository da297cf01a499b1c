"""NumPy's concatenating index objects spelled as the calls they make, so that what they
join carries its derivative.

Before (user code):                After:
    y = np.r_[a, x, 2.0]               y = np.concatenate([np.atleast_1d(a), np.atleast_1d(x),
                                                           np.atleast_1d(2.0)])
    m = np.c_[u, v]                    m = np.concatenate([np.transpose(np.atleast_2d(np.transpose(u))),
                                                           np.transpose(np.atleast_2d(np.transpose(v)))], axis=-1)

`np.r_[...]` makes each entry at least 1-D and joins them along the first axis; `np.c_`
makes each at least 2-D, a 1-D entry a column, and joins them along the last axis: the
transpose, `atleast_2d`, transpose of an entry is that column (a scalar becomes (1, 1);
an entry of 2 or more dimensions is left as it is). A number literal among entries that
are all names is given their common type, `np.result_type(a, x, 2.0)`, as `np.r_`
gives it (a float32 array joined with 2.0 stays float32). Only entries that are plain
expressions are respelled: a slice (`np.r_[0:3]`) or a string directive
(`np.r_['0,2', a, b]`) keeps the index object, which activity.py refuses where it holds
a differentiated value. Runs on the parse, after idioms.py; returns a new tree when it
rewrites anything, the same tree otherwise.
"""

import gast
import numpy as np

from . import syntax, traversal
from .scope import dotted_parts, lookup_path

_MAKERS = {type(np.r_): "r_", type(np.c_): "c_"}


def run(program):
    tree = program.tree
    if not any("r_[" in line or "c_[" in line for line in program.source_lines):
        return tree
    stored = set(traversal.names_stored(tree)) | {a.id for a in tree.args.args}
    found = [n for n in traversal.nodes(tree) if type(n) is gast.Subscript and _maker(n, program, stored) is not None]
    if not found:
        return tree
    tree = syntax.copy(tree)
    traversal.rewrite(tree, {gast.Subscript: lambda sub: _respelled(sub, program, stored)})
    return tree


def _maker(sub, program, stored):
    """"r_" or "c_" where `sub` indexes one of NumPy's objects with plain entries, reached
    through the numpy module's name (`np.r_`); None otherwise."""
    parts = dotted_parts(sub.value)
    if parts is None or len(parts) < 2 or parts[0] in stored or lookup_path(parts[:-1], program) is not np:
        return None
    kind = _MAKERS.get(type(lookup_path(parts, program)))
    entries = _entries(sub)
    if kind is None or not entries or any(type(e) is gast.Slice or type(e) is gast.Starred for e in entries):
        return None
    if any(type(e) is gast.Constant and not isinstance(e.value, (int, float)) for e in entries):
        return None  # a string directive, or a bool or None entry
    return kind


def _entries(sub):
    return list(sub.slice.elts) if type(sub.slice) is gast.Tuple else [sub.slice]


def _respelled(sub, program, stored):
    kind = _maker(sub, program, stored)
    if kind is None:
        return sub
    numpy = dotted_parts(sub.value)[:-1]

    def np_call(fn, *args, keywords=()):
        return syntax.call(".".join(numpy + [fn]), args, keywords)

    entries = _entries(sub)
    literal = [_is_number(e) for e in entries]
    common = None
    if any(literal) and not all(literal) and all(lit or type(e) is gast.Name for e, lit in zip(entries, literal)):
        common = np_call("result_type", *[syntax.copy(e) for e in entries])
    made = []
    for entry, lit in zip(entries, literal):
        if lit and common is not None:
            entry = np_call("asarray", entry, keywords=[("dtype", syntax.copy(common))])
        if kind == "r_":
            made.append(np_call("atleast_1d", entry))
        else:
            made.append(np_call("transpose", np_call("atleast_2d", np_call("transpose", entry))))
    keywords = [] if kind == "r_" else [("axis", syntax.const(-1))]
    return np_call("concatenate", syntax.list_(made), keywords=keywords)


def _is_number(node):
    if type(node) is gast.UnaryOp and type(node.op) in (gast.USub, gast.UAdd):
        node = node.operand
    return type(node) is gast.Constant and type(node.value) in (int, float)
