"""Scatters into the arrays a function makes, spelled as writes of pure helpers
(rules/scatter.py), for idioms.py to apply:

Before (user code):                After:
    np.add.at(y, idx, v)               y[...] = added_at(y, idx, v)
    np.subtract.at(y, idx, v)          y[...] = subtracted_at(y, idx, v)
    np.maximum.at(y, idx, v)           y[...] = maximized_at(y, idx, v)
    np.minimum.at(y, idx, v)           y[...] = minimized_at(y, idx, v)
    np.fill_diagonal(M, v)             M[...] = filled_diagonal(M, v, False)
    np.put_along_axis(y, idx, v, 1)    y[along_axis(y, idx, 1)] = v
    np.put(y, idx, v)                  y[put_index(y, idx, v, 'raise')] = resize(ravel(v), put_count(idx, v))
    M.T[i] = v                         M[...] = written_transposed(M, i, v)

Only a statement of its own, NumPy's function (not a name the function binds), with its
arguments as written (no `*`), on a name `y` the function binds: a parameter, a global
or an entry keeps its call, which argument_writes.py and mutation.py refuse. The helper is
bound to a fresh name in `program.bound` and `program.held` (generated code reads it as a
helper); the write of the whole array is then an in-place change that mutation.py checks
as any other (refused where another name or a view shares `y`). `np.multiply.at` stays,
and is refused as a change in place. `np.put_along_axis` becomes the write through the
integer arrays NumPy itself writes through (rules/scatter.py's `along_axis`), which
array_writes.py and the reverse and forward passes take as any `y[index] = v`; so does
`np.put`, through the flat indices unravelled (its `mode` applied) and its values
repeated or cut to their number as NumPy repeats them.
"""

import gast
import numpy as np

from ..rules import scatter
from . import syntax, traversal
from .scope import dotted_parts, lookup_path

_AT = {np.add: scatter.added_at, np.subtract: scatter.subtracted_at,
       np.maximum: scatter.maximized_at, np.minimum: scatter.minimized_at}


def spelled(stmt, program):
    """(helper, arguments) that spell the statement `stmt` as `y[...] = helper(*arguments)`
    (for `along_axis`: y, indices, values, axis) when it is one of the scatters above on a
    name `y` the function binds, else None."""
    if type(stmt) is gast.Assign:
        return _transposed_write(stmt, program)
    if not (type(stmt) is gast.Expr and type(stmt.value) is gast.Call):
        return None
    call = stmt.value
    parts = dotted_parts(call.func)
    if (parts is None or any(type(a) is gast.Starred for a in call.args) or not call.args
            or type(call.args[0]) is not gast.Name or any(k.arg is None for k in call.keywords)):
        return None
    stored = traversal.names_stored(program.tree)
    if parts[0] in stored or call.args[0].id not in stored:
        return None
    if parts[-1] == "at" and len(parts) >= 2 and len(call.args) == 3 and not call.keywords:
        ufunc = lookup_path(parts[:-1], program)
        helper = _AT.get(ufunc) if isinstance(ufunc, np.ufunc) else None
        return None if helper is None else (helper, list(call.args))
    if parts[-1] == "fill_diagonal" and lookup_path(parts, program) is np.fill_diagonal:
        wrap = [k.value for k in call.keywords if k.arg == "wrap"]
        if len(call.args) + len(call.keywords) > 3 or any(k.arg not in ("val", "wrap") for k in call.keywords):
            return None
        val = call.args[1:2] or [k.value for k in call.keywords if k.arg == "val"]
        wrap = call.args[2:3] or wrap or [syntax.const(False)]
        return None if not val else (scatter.filled_diagonal, [call.args[0], val[0], wrap[0]])
    if parts[-1] == "put_along_axis" and lookup_path(parts, program) is np.put_along_axis:
        named = _bound(call, ("arr", "indices", "values", "axis"))
        return None if named is None or len(named) != 4 else (
            scatter.along_axis, [named[p] for p in ("arr", "indices", "values", "axis")])
    if parts[-1] == "put" and lookup_path(parts, program) is np.put:
        named = _bound(call, ("a", "ind", "v", "mode"))
        if named is None:
            return None
        named.setdefault("mode", syntax.const("raise"))
        if any(not _without_calls(named.get(p)) for p in ("ind", "v", "mode")):
            return None  # read more than once by the write that spells it
        return None if len(named) != 4 else (scatter.put_index, [named[p] for p in ("a", "ind", "v", "mode")])
    return None


def _bound(call, params):
    """{parameter: argument} of `call` for a function of the parameters `params` (the
    first positional, the others positional or by keyword); None for another keyword or
    one given twice."""
    named = dict(zip(params, call.args))
    for k in call.keywords:
        if k.arg in named or k.arg not in params[1:]:
            return None
        named[k.arg] = k.value
    return named


def _transposed_write(stmt, program):
    """(written_transposed, [M, index, value]) where `stmt` is `M.T[index] = value` of a
    name `M` the function binds and an index that calls nothing, else None."""
    target = stmt.targets[0] if len(stmt.targets) == 1 else None
    if not (type(target) is gast.Subscript and type(target.value) is gast.Attribute and target.value.attr == "T"
            and type(target.value.value) is gast.Name and _without_calls(target.slice)):
        return None
    y = target.value.value
    if y.id not in traversal.names_stored(program.tree):
        return None
    index = target.slice
    if type(index) is gast.Slice or (type(index) is gast.Tuple and any(type(e) is gast.Slice for e in index.elts)):
        index = _as_index(index)
    return scatter.written_transposed, [syntax.name(y.id), index, stmt.value]


def _as_index(index):
    """The subscript `index` (a slice, or a tuple holding slices) as an expression."""
    def part(e):
        if type(e) is not gast.Slice:
            return e
        bounds = [syntax.const(None) if b is None else b for b in (e.lower, e.upper, e.step)]
        return syntax.call("slice", bounds)
    return syntax.tuple_([part(e) for e in index.elts]) if type(index) is gast.Tuple else part(index)


def _without_calls(node):
    """Whether the expression `node` (None: absent) calls nothing: evaluating it twice is
    evaluating it once."""
    return node is None or not any(isinstance(n, (gast.Call, gast.NamedExpr, gast.Lambda, gast.GeneratorExp,
                                                  gast.ListComp, gast.DictComp, gast.SetComp, gast.Await))
                                   for n in traversal.walk(node))


def mentioned(lines):
    """Whether the source `lines` may hold a scatter (a cheap test before parsing)."""
    return any(".at(" in line or "fill_diagonal(" in line or "put_along_axis(" in line or "put(" in line
               or ".T[" in line for line in lines)


class Scatters:
    """Spells each scatter statement as a full write `y[...] = helper(y, ...)`, binding
    the helper to a fresh name in `program.bound` and `program.held`."""

    def __init__(self, program):
        self.program = program
        self.namer = program.helper_namer()

    def bound(self, fn):
        """A fresh name bound to the function `fn` for generated code to call."""
        name = self.namer.helper(fn.__name__, fn)
        self.program.bound[name] = self.program.held[name] = fn
        return name

    def rewritten(self, stmt):
        found = spelled(stmt, self.program)
        if found is None:
            return None
        helper, args = found
        name = self.namer.helper(helper.__name__, helper)
        self.program.bound[name] = self.program.held[name] = helper
        y = args[0].id
        if helper is scatter.put_index:  # y[put_index(y, ind, v, mode)] = resize(ravel(v), put_count(ind, v))
            index = syntax.call(syntax.name(name), [syntax.name(y)] + args[1:])
            values = syntax.call(syntax.name(self.bound(np.ravel)), [syntax.copy(args[2])])
            count = syntax.call(syntax.name(self.bound(scatter.put_count)), [syntax.copy(args[1]), syntax.copy(args[2])])
            values = syntax.call(syntax.name(self.bound(np.resize)), [values, count])
            return [syntax.assign(syntax.subscript(syntax.name(y), index), values)]
        if helper is scatter.along_axis:  # y[along_axis(y, indices, axis)] = values
            index = syntax.call(syntax.name(name), [syntax.name(y), args[1], args[3]])
            return [syntax.assign(syntax.subscript(syntax.name(y), index), args[2])]
        value = syntax.call(syntax.name(name), [syntax.name(y)] + args[1:])
        return [syntax.assign(syntax.subscript(syntax.name(y), syntax.const(Ellipsis)), value)]
