"""`functools.reduce` as the loop it stands for.

Before:                                        After:
    P = reduce(np.dot, mats)                       items = list(mats)
                                                   if len(items) == 0:
                                                       raise TypeError('reduce() of empty iterable with no initial value')
                                                   reduced = items[0]
                                                   for item in items[1:]:
                                                       reduced = np.dot(reduced, item)
                                                   P = reduced
    s = reduce(lambda a, b: a * b + 1.0, xs, 0.0)  reduced = 0.0
                                                   for item in xs:
                                                       reduced = reduced * item + 1.0
                                                   s = reduced

The loop computes what `reduce` computes, calling the function on the same values in the
same order, so every later stage differentiates it as it would the loop written out.
A call is rewritten where its statement evaluates it unconditionally: the statement's
value, or within call arguments, operands and subscripted values
(`np.trace(reduce(np.dot, mats))`, `np.sum(np.exp(xs)) + reduce(f, xs)`). What the
statement evaluates before it, other than names, attributes and constants, is bound to
a fresh name first, in order, so every call runs where Python runs it; the function is
a `lambda` of two plain parameters (its body, with the running value and the item for
them, where it has no scope of its own: otherwise bound to a fresh name first) or a
(dotted) name. Elsewhere, and with any other function, the call stays, and is refused
as a call with no rule. Runs on the parse, after map_filter.py; a new tree where it
rewrites anything, the same tree otherwise.
"""

import functools

import gast

from . import syntax, traversal
from .naming import Namer
from .scope import dotted_parts, lookup_path

_EMPTY = "reduce() of empty iterable with no initial value"
# what may be evaluated before a hoisted call in its statement: no call, no change
_SIMPLE = (gast.Name, gast.Constant, gast.Attribute, gast.Load)


def run(program):
    """`program.tree` with each `reduce` call that can be hoisted written as its loop."""
    tree = program.tree
    if not any("reduce(" in line for line in program.source_lines):
        return tree
    local = {a.id for a in tree.args.args + tree.args.kwonlyargs} | set(traversal.names_stored(tree))
    if local & {"list", "len", "TypeError"}:
        return tree  # the loop calls the builtins
    is_reduce = lambda call: _is_reduce(call, program, local)  # noqa: E731
    if not any(type(n) is gast.Call and is_reduce(n) for n in traversal.nodes(tree)):
        return tree
    tree = syntax.copy(tree)
    _Folding(is_reduce, Namer.for_tree(tree)).block(tree.body)
    return tree


def _is_reduce(call, program, local):
    return names_reduce(call.func, program, local)


def names_reduce(func, program, local=()):
    """Whether the expression `func` is `functools.reduce` (not shadowed by a name in `local`)."""
    parts = dotted_parts(func)
    if parts is None or parts[0] in local:
        return False
    return lookup_path(parts, program) is functools.reduce


class _Folding:
    def __init__(self, is_reduce, namer):
        self.is_reduce, self.namer = is_reduce, namer

    def block(self, stmts):
        out = []
        for s in stmts:
            for inner in traversal.blocks_in(s):
                self.block(inner)
            if isinstance(s, (gast.FunctionDef, gast.ClassDef)):
                out.append(s)
                continue
            while True:
                found = hoistable(s, self.is_reduce)
                if found is None:
                    break
                holder, field, index, call, before = found
                loop, result = self.loop(call)
                if loop is None:
                    break
                for slot_holder, slot_field, slot_index in before:
                    value = self.namer.fresh("operand")
                    out.append(syntax.located(syntax.assign(value, slot(slot_holder, slot_field, slot_index)), s))
                    set_slot(slot_holder, slot_field, slot_index, syntax.name(value))
                out += [syntax.located(x, s) for x in loop]
                set_slot(holder, field, index, syntax.name(result))
            out.append(s)
        stmts[:] = out

    def loop(self, call):
        """(the statements computing `call`, the name holding its value), or (None, None)
        where its arguments are not ones this pass spells out."""
        if call.keywords or not 2 <= len(call.args) <= 3 or any(type(a) is gast.Starred for a in call.args):
            return None, None
        function, sequence = call.args[0], call.args[1]
        reduced, item = self.namer.fresh("reduced"), self.namer.fresh("item")
        out = []
        step = step_of(function, reduced, item, out, self.namer)
        if step is None:
            return None, None
        if len(call.args) == 3:
            out.append(syntax.assign(reduced, call.args[2]))
            items = sequence
        else:
            name = self.namer.fresh("items")
            out.append(syntax.assign(name, syntax.call("list", [sequence])))
            empty = syntax.compare(syntax.call("len", [syntax.name(name)]), gast.Eq(), syntax.const(0))
            out.append(syntax.if_(empty, [syntax.raise_(syntax.call("TypeError", [syntax.const(_EMPTY)]))]))
            out.append(syntax.assign(reduced, syntax.subscript(syntax.name(name), syntax.const(0))))
            items = syntax.subscript(syntax.name(name), syntax.slice_(syntax.const(1), None, None))
        out.append(syntax.for_(syntax.name(item, store=True), items, [syntax.assign(reduced, step)]))
        return [syntax.located(s, call) for s in out], reduced


def step_of(function, reduced, item, out, namer):
    """The expression of one step, `function(reduced, item)` (names), or None where
    `function` is not a lambda of two plain parameters or a (dotted) name; a lambda with a
    scope of its own is bound to a fresh name from `namer` first (in `out`)."""
    if type(function) is gast.Lambda:
        args = function.args
        if (args.vararg or args.kwarg or args.kwonlyargs or args.defaults or getattr(args, "posonlyargs", None)
                or len(args.args) != 2):
            return None
        if any(isinstance(n, (gast.Lambda, gast.ListComp, gast.SetComp, gast.DictComp, gast.GeneratorExp,
                              gast.NamedExpr)) for n in traversal.nodes(function.body)):
            name = namer.fresh("fold")
            out.append(syntax.assign(name, function))
            return syntax.call(syntax.name(name), [syntax.name(reduced), syntax.name(item)])
        first, second = (a.id for a in args.args)
        body = syntax.copy(function.body)
        for n in traversal.nodes(body):
            if type(n) is gast.Name and n.id in (first, second):
                n.id = reduced if n.id == first else item
        return body
    if dotted_parts(function) is None:
        return None
    return syntax.call(syntax.copy(function), [syntax.name(reduced), syntax.name(item)])


def hoistable(stmt, is_reduce):
    """(node holding the call, its field, the index in that field's list or None, the
    call, the slots evaluated before it that are not simple) for the first call of `stmt`
    in its evaluation order that `is_reduce` accepts, else None (itertools_lists.py finds
    `list(accumulate(...))` so). Binding those slots to names first, in
    order, keeps every value and every call where Python evaluates it."""
    if type(stmt) in (gast.Assign, gast.Return, gast.Expr, gast.AnnAssign) or (
            type(stmt) is gast.AugAssign and type(stmt.target) is gast.Name):
        before = []
        found = _first(stmt, "value", None, getattr(stmt, "value", None), is_reduce, before)
        return None if found is None else (*found, before)
    return None


def _first(holder, field, index, node, is_reduce, before):
    """The first `reduce` call at or under `node` (held at holder.field[index]),
    descending only where evaluation is unconditional and in source order (call
    arguments, operands, a subscripted value); `before` gains each slot evaluated
    before it that is not simple."""
    if type(node) is gast.Call:
        if is_reduce(node):
            return holder, field, index, node
        mark = len(before)
        if not isinstance(node.func, _SIMPLE):
            before.append((node, "func", None))
        for k, arg in enumerate(node.args):
            if type(arg) is gast.Starred:
                break
            found = _first(node, "args", k, arg, is_reduce, before)
            if found is not None:
                return found
            if not isinstance(arg, _SIMPLE):
                before.append((node, "args", k))
        del before[mark:]
        return None
    if type(node) is gast.BinOp:
        found = _first(node, "left", None, node.left, is_reduce, before)
        if found is not None:
            return found
        mark = len(before)
        if not isinstance(node.left, _SIMPLE):
            before.append((node, "left", None))
        found = _first(node, "right", None, node.right, is_reduce, before)
        if found is None:
            del before[mark:]
        return found
    if type(node) is gast.UnaryOp:
        return _first(node, "operand", None, node.operand, is_reduce, before)
    if type(node) is gast.Subscript:
        return _first(node, "value", None, node.value, is_reduce, before)
    return None


def slot(holder, field, index):
    """What the field `field` of `holder` holds (its entry `index` where it is a list)."""
    value = getattr(holder, field)
    return value if index is None else value[index]


def set_slot(holder, field, index, value):
    """Put `value` where `slot(holder, field, index)` reads."""
    if index is None:
        setattr(holder, field, value)
    else:
        getattr(holder, field)[index] = value
