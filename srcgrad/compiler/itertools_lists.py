"""`itertools.chain`, `islice` and `accumulate` read whole as the lists they yield.

Before:                                        After:
    for v in itertools.chain(a, b):                for v in list(a) + list(b):
    ys = list(islice(xs, 1, None, 2))              ys = list(list(xs)[1::2])
    for v in islice(xs, n):                        for v in list(xs)[islice_bounds(None, n, None)]:
    for s in accumulate(xs, initial=c):            items = list(xs)
                                                   total = c
                                                   accumulated = [total]
                                                   for item in items:
                                                       total = total + item
                                                       accumulated.append(total)
                                                   for s in accumulated:
    ps = list(accumulate(xs, operator.mul))        items = list(xs)
                                                   accumulated = []
                                                   if items:
                                                       total = items[0]
                                                       accumulated.append(total)
                                                       for item in items[1:]:
                                                           total = operator.mul(total, item)
                                                           accumulated.append(total)
                                                   ps = list(accumulated)

A call is rewritten where its iterator is read once, whole, right there: as the
iterable of a `for` statement (also as an argument of its `enumerate` or `zip`), of a
comprehension (`chain` and `islice` only), or as the one argument of `list`, `tuple`,
`sum` or `sorted`; `accumulate` only where the statement evaluates it unconditionally
(folds.py's `hoistable`) and, as a loop's iterable (not through `zip`, which may stop
first), where the loop runs to its end (no `break`, `return` or `raise` in it: the list
calls the function on every item), its loop put before the statement. No loop in the body
of a `try` statement with handlers or a `finally` block is rewritten (an exception the
iterator raises would come before the loop's turns, not after them; attempts.py refuses
such a loop). The list holds the values
the iterator yields, made by the same operations in the same order, so later stages
differentiate it as the list written out. An iterable is read by `list(...)`, which
reads it as the tool does where it is no iterator that something else reads too or
that never ends: a generator expression, a call of `iter`, `map`, ..., of `itertools`
or of a generator function, or a name assigned one, leaves the call as it is (refused
where it carries a derivative). `islice`'s bounds, where they are constants it takes, make
a slice; others are checked by `islice_bounds` when the derivative runs (`islice`'s
`ValueError` where it raises one). `accumulate`'s function is a `lambda` of two
plain parameters (its body inlined, as folds.py does) or a (dotted) name; with any
other, the call stays.

The list is made when the loop starts, where the iterator would read its iterables
item by item as the loop runs: where the loop's body may change one of them in place (a
write into it, a method call on it that changes it, passing it to a function that is
not NumPy's or a builtin that reads), the call stays. Runs on the parse,
after folds.py; a new tree where it rewrites anything, the same tree otherwise.
"""

import builtins
import inspect
import itertools
import sys

import gast
import numpy as np

from .. import runtime
from . import folds, syntax, traversal
from .naming import Namer
from .scope import dotted_parts, lookup_path

_TOOLS = {itertools.chain: "chain", itertools.islice: "islice", itertools.accumulate: "accumulate"}
_READERS = (builtins.list, builtins.tuple, builtins.sum, builtins.sorted)  # read an iterable whole, once
_WRAPPERS = (builtins.enumerate, builtins.zip)  # a loop's iterable read through them
_ITERATORS = (builtins.iter, builtins.map, builtins.filter, builtins.zip, builtins.enumerate, builtins.reversed)
# what a loop body may pass an iterable to without changing it
_PURE_BUILTINS = (builtins.len, builtins.float, builtins.int, builtins.abs, builtins.min, builtins.max, builtins.sum,
                  builtins.sorted, builtins.list, builtins.tuple, builtins.print, builtins.isinstance, builtins.range,
                  builtins.enumerate, builtins.zip, builtins.reversed, builtins.round, builtins.bool)
# methods that change their list, dict or array
_CHANGING_METHODS = frozenset({"append", "extend", "insert", "pop", "remove", "clear", "sort", "reverse", "fill",
                               "resize", "put", "itemset", "setdefault", "update", "popitem", "partition", "setfield"})
_WRITING_NUMPY = frozenset({"copyto", "put", "place", "putmask", "fill_diagonal", "put_along_axis"})  # write into x


def run(program):
    """`program.tree` with the calls described above rewritten (the same tree when there are none)."""
    tree = program.tree
    if not any(word in line for line in program.source_lines for word in ("chain", "islice", "accumulate")):
        return tree
    calls, stored = [], set()  # one walk: the calls, in `traversal.nodes`'s order, and `names_stored`
    for n in traversal.nodes(tree):
        if type(n) is gast.Call:
            calls.append(n)
        elif type(n) is gast.Name and isinstance(n.ctx, gast.Store):
            stored.add(n.id)
    local = {a.id for a in tree.args.args + tree.args.kwonlyargs} | stored
    if "list" in local:
        return tree  # the lists are made by the builtin
    tool = lambda call: _tool(call, program, local)  # noqa: E731
    if not any(tool(n) for n in calls):
        return tree
    tree = syntax.copy(tree)
    _Lists(program, tool, local, Namer.for_tree(tree)).block(tree.body)
    return tree


def _tool(call, program, local):
    """"chain", "islice" or "accumulate" where `call` calls that function of itertools (not
    shadowed by a name in `local`), else None."""
    if type(call) is not gast.Call:
        return None
    parts = dotted_parts(call.func)
    if parts is None or parts[0] in local:
        return None
    found = lookup_path(parts, program)
    return next((name for fn, name in _TOOLS.items() if found is fn), None)


class _Lists:
    def __init__(self, program, tool, local, namer):
        self.program, self.tool, self.local, self.namer = program, tool, local, namer
        self.helpers = None  # the program's namer of helpers, made on first need
        self.skipped = set()  # the ids of the readers of `accumulate` calls left as they are
        self._assigned = None  # see `assigned`

    def block(self, stmts, caught=False):
        """Rewrite the statements `stmts` in place; `caught`: they lie in the body of a `try`
        with handlers."""
        out = []
        for s in stmts:
            for inner in traversal.blocks_in(s):
                self.block(inner, caught or traversal.guards(s, inner))
            if isinstance(s, (gast.FunctionDef, gast.ClassDef)):
                out.append(s)
                continue
            if type(s) is gast.For:
                out += self.loop_header(s, caught)
            out += self.hoisted(s)
            self.expressions(s)
            out.append(s)
        stmts[:] = out

    # --- where the iterator is read whole -------------------------------------------

    def loop_header(self, s, caught=False):
        """The statements to put before the `for` statement `s`, its iterable (or the
        arguments of its `enumerate`/`zip`) rewritten where it is a call of the tools
        (`caught`: `s` lies in the body of a `try` with handlers or `finally`: none)."""
        slots = [(s, "iter", None)]
        if type(s.iter) is gast.Call and self.reads_through(s.iter.func, _WRAPPERS):
            slots = [(s.iter, "args", k) for k, a in enumerate(s.iter.args) if type(a) is not gast.Starred]
        before = []
        for holder, field, index in slots:
            call = folds.slot(holder, field, index)
            name = self.tool(call)
            if name is None:
                continue
            if self.changed_in(s.body + s.orelse, call):
                continue
            if caught:  # the loop would take the items from a list made before it (attempts.py refuses the call)
                continue
            if name == "accumulate":
                if _leaves_early(s.body) or holder is not s and self.reads_through(s.iter.func, (builtins.zip,)):
                    # the list would call the function on items the iterator never reaches
                    continue
                made = self.accumulated(call, before)
                if made is None:
                    continue
                folds.set_slot(holder, field, index, made)
            else:
                folds.set_slot(holder, field, index, self.listed(name, call))
        return [syntax.located(b, s) for b in before]

    def hoisted(self, s):
        """The loops of `accumulate` calls read whole by `list`, `tuple`, `sum` or `sorted`
        where `s` evaluates them unconditionally, to put before `s` (what `s` evaluates
        before them bound to names first, in order, as folds.py does)."""
        out = []
        while True:
            found = folds.hoistable(s, self.read_accumulate)
            if found is None:
                return out
            holder, field, index, reader, before = found
            loop = []
            made = self.accumulated(reader.args[0], loop)
            if made is None:
                self.skipped.add(id(reader))
                continue
            for slot_holder, slot_field, slot_index in before:
                value = self.namer.fresh("operand")
                out.append(syntax.located(syntax.assign(value, folds.slot(slot_holder, slot_field, slot_index)), s))
                folds.set_slot(slot_holder, slot_field, slot_index, syntax.name(value))
            out += [syntax.located(x, s) for x in loop]
            reader.args[0] = made

    def read_accumulate(self, call):
        return (id(call) not in self.skipped and len(call.args) == 1 and not call.keywords
                and self.reads_through(call.func, _READERS) and self.tool(call.args[0]) == "accumulate")

    def expressions(self, s):
        """`chain` and `islice` read whole by `list`, `tuple`, `sum`, `sorted` or as a
        comprehension's iterable anywhere in `s`, rewritten in place."""
        for n in list(traversal.nodes(s)):
            if type(n) is gast.Call and len(n.args) == 1 and not n.keywords and self.reads_through(n.func, _READERS):
                name = self.tool(n.args[0])
                if name in ("chain", "islice"):
                    n.args[0] = self.listed(name, n.args[0])
            elif type(n) in (gast.ListComp, gast.SetComp, gast.GeneratorExp, gast.DictComp):
                for g in n.generators:
                    name = self.tool(g.iter)
                    if name in ("chain", "islice"):
                        rest = [getattr(n, f) for f in ("elt", "key", "value") if hasattr(n, f)]
                        rest += [x for other in n.generators for x in [other.target] + list(other.ifs)
                                 + ([other.iter] if other is not g else [])]
                        if not self.changed_in(rest, g.iter):
                            g.iter = self.listed(name, g.iter)

    def reads_through(self, func, functions):
        parts = dotted_parts(func)
        if parts is None or parts[0] in self.local:
            return False
        found = lookup_path(parts, self.program)
        return any(found is f for f in functions)

    # --- the lists ------------------------------------------------------------------

    def finite(self, node):
        """Whether `node`, an iterable of a tool, is one `list(node)` reads as the tool
        would: no iterator that something else reads too or that never ends. Refused: a
        generator expression; a call of `iter`, `map`, `filter`, `zip`, `enumerate`,
        `reversed`, of a function of `itertools` or of a generator function; a local name
        assigned one of those. A parameter is read as a sequence, as loops read it."""
        if type(node) is gast.Name:
            values = self.assigned.get(node.id, ())
            return all(self.finite(v) for v in values if type(v) is not gast.Name or v.id != node.id)
        if type(node) is gast.GeneratorExp:
            return False
        if type(node) is gast.Call:
            parts = dotted_parts(node.func)
            if parts is None:
                return False
            found = lookup_path(parts, self.program) if parts[0] not in self.local else None
            if any(found is f for f in _ITERATORS) or getattr(found, "__module__", None) == "itertools":
                return False
            return not inspect.isgeneratorfunction(found)
        return True

    @property
    def assigned(self):
        """{local name: the values assigned to it by `name = value`} (computed once)."""
        if self._assigned is None:
            self._assigned = {}
            for n in traversal.walk(self.program.tree):
                pairs = [(t, n.value) for t in n.targets] if type(n) is gast.Assign else (
                    [(n.target, n.value)] if type(n) is gast.NamedExpr else [])
                for target, value in pairs:
                    if type(target) is gast.Name:
                        self._assigned.setdefault(target.id, []).append(value)
        return self._assigned

    def listed(self, name, call):
        """The expression of the list `chain(...)` or `islice(...)` yields."""
        if any(type(a) is gast.Starred for a in call.args) or (call.keywords and name == "chain"):
            return call
        if not all(self.finite(a) for a in call.args[:None if name == "chain" else 1]):
            return call
        if name == "chain":
            if not call.args:
                return syntax.located(syntax.list_([]), call)
            parts = [syntax.call("list", [a]) for a in call.args]
            made = parts[0]
            for p in parts[1:]:
                made = syntax.binop(made, gast.Add(), p)
            return syntax.located(made, call)
        if call.keywords or not 2 <= len(call.args) <= 4:
            return call
        bounds = call.args[1:]
        start, stop, step = ([None] + bounds + [None])[:3] if len(bounds) == 1 else (bounds + [None])[:3]
        values = [None if b is None else b.value if type(b) is gast.Constant else ... for b in (start, stop, step)]
        if _valid_bounds(*values):  # else `islice_bounds` raises islice's error when the derivative runs, as islice does
            index = syntax.slice_(*[None if v is None or (k == 0 and v == 0) or (k == 2 and v == 1)
                                    else syntax.const(v) for k, v in enumerate(values)])
        else:
            helper = self.helper("islice_bounds", runtime.islice_bounds)
            index = syntax.call(syntax.name(helper), [syntax.const(None) if b is None else b for b in (start, stop, step)])
        return syntax.located(syntax.subscript(syntax.call("list", [call.args[0]]), index), call)

    def accumulated(self, call, out):
        """The name of the list `accumulate(...)` yields, its statements appended to `out`;
        None where the call is not one this pass spells out."""
        args, keywords = list(call.args), {k.arg: k.value for k in call.keywords}
        if (any(type(a) is gast.Starred for a in args) or None in keywords or set(keywords) - {"func", "initial"}
                or not 1 <= len(args) + ("func" in keywords) <= 2):
            return None
        if not self.finite(args[0]):
            return None
        function = args[1] if len(args) == 2 else keywords.get("func")
        initial = keywords.get("initial")
        if initial is not None and syntax.is_const(initial) and initial.value is None:
            initial = None
        made, total, item = self.namer.fresh("accumulated"), self.namer.fresh("total"), self.namer.fresh("item")
        step_out = []
        if function is None or (syntax.is_const(function) and function.value is None):
            step = syntax.binop(syntax.name(total), gast.Add(), syntax.name(item))
        else:
            step = None if syntax.is_const(function) else folds.step_of(function, total, item, step_out, self.namer)
            if step is None:
                return None
        append = syntax.expr(syntax.call(syntax.attr(syntax.name(made), "append"), [syntax.name(total)]))
        items = self.namer.fresh("items")
        out.append(syntax.assign(items, syntax.call("list", [args[0]])))
        out += step_out
        turn = [syntax.assign(total, step), syntax.copy(append)]
        if initial is not None:
            out += [syntax.assign(total, initial), syntax.assign(made, syntax.list_([syntax.name(total)])),
                    syntax.for_(syntax.name(item, store=True), syntax.name(items), turn)]
        else:
            rest = syntax.subscript(syntax.name(items), syntax.slice_(syntax.const(1), None, None))
            out += [syntax.assign(made, syntax.list_([])), syntax.if_(syntax.name(items), [
                syntax.assign(total, syntax.subscript(syntax.name(items), syntax.const(0))), append,
                syntax.for_(syntax.name(item, store=True), rest, turn)])]
        out[:] = [syntax.located(x, call) for x in out]
        return syntax.located(syntax.name(made), call)

    def helper(self, name, obj):
        if self.helpers is None:
            self.helpers = self.program.helper_namer()
        bound = self.helpers.helper(name, obj)
        self.program.bound[bound] = self.program.held[bound] = obj
        return bound

    # --- the iterables a loop may change ------------------------------------------

    def changed_in(self, body, call):
        """Whether the nodes `body` (a loop's body, a comprehension's parts) may change in
        place a name that the arguments of the tool `call` read: the list would be made
        before the first turn, where the iterator reads them item by item. The call then
        stays as it is (refused where its loop carries a derivative)."""
        read = set(traversal.names_read(call.args + [k.value for k in call.keywords])) & self.local
        return bool(read) and any(self.changes(n, read) for node in body for n in traversal.walk(node))

    def changes(self, n, read):
        """The name of `read` that the node `n` may change in place, else None."""
        if type(n) in (gast.Subscript, gast.Attribute) and isinstance(n.ctx, (gast.Store, gast.Del)):
            root = _root(n.value)
            return root if root in read else None
        if type(n) is gast.AugAssign and type(n.target) is gast.Name and n.target.id in read:
            return n.target.id
        if type(n) is gast.Call:
            if type(n.func) is gast.Attribute and _root(n.func.value) in read and n.func.attr in _CHANGING_METHODS:
                return _root(n.func.value)  # `xs.append(v)`, `w.fill(0.0)`
            passed = [a for a in n.args + [k.value for k in n.keywords] if _root(a) in read]
            if passed and not self.pure(n):
                return _root(passed[0])
        return None

    def pure(self, call):
        """Whether the call `call` changes none of its arguments: a builtin of `_PURE_BUILTINS`,
        or a NumPy function but those that write into an argument (`out=`, `np.copyto`, ...)."""
        parts = dotted_parts(call.func)
        if parts is None or parts[0] in self.local:
            return False
        found = lookup_path(parts, self.program)
        if any(found is f for f in _PURE_BUILTINS):
            return True
        module = getattr(found, "__module__", None) or ""
        numpy = module == "numpy" or module.startswith("numpy.") or isinstance(found, np.ufunc)
        return (numpy and not any(k.arg == "out" for k in call.keywords) and parts[-1] not in _WRITING_NUMPY
                and parts[-1] != "at")


def _leaves_early(stmts):
    """Whether the loop body `stmts` may leave its loop before the iterator runs out: a
    `break` of its own, or a `return` or `raise` anywhere in it."""
    for st in stmts:
        if isinstance(st, (gast.Break, gast.Return, gast.Raise)):
            return True
        if isinstance(st, (gast.For, gast.While)):
            if any(isinstance(n, (gast.Return, gast.Raise)) for n in traversal.walk(st)):
                return True
        elif any(_leaves_early(inner) for inner in traversal.blocks_in(st)):
            return True
    return False


def _valid_bounds(start, stop, step):
    """Whether `islice` takes the constant bounds (`...`: not a constant)."""
    def index(v):
        return v is None or (type(v) in (int, bool) and 0 <= v <= sys.maxsize)
    return index(start) and index(stop) and (step is None or (type(step) in (int, bool) and 1 <= step <= sys.maxsize))


def _root(node):
    while type(node) in (gast.Subscript, gast.Attribute):
        node = node.value
    return node.id if type(node) is gast.Name else None

