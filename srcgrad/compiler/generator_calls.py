"""Calls of the user's generator functions read whole right where they are made, as calls
of their listings (generator_lists.py); generator expressions stored and read twice refused.

Before:                                      After (`pairs_list` bound to pairs' listing):
    for a, b in pairs(x):                        pairs_items = pairs_list(x)
        s += (b - a) ** 2                        for a, b in pairs_items:
    t = sum(squares(x))                              s += (b - a) ** 2
                                                 t = sum(squares_list(x))

A call of a generator function (a module's, a method of a known object, or a `def` in the
function, whose own `def` is then listed in place) is read whole where it is: the iterable
of a `for` loop or of a list, set or dict comprehension, or of a generator expression that
is itself read whole; an argument of `list`, `tuple`, `set`, `sorted`, `sum`, `min`,
`max`, `dict`, `math.fsum`, `math.prod`, or of `zip`/`enumerate` read whole; star-unpacked
(`f(*g(x))`, `[*g(x)]`) or unpacked into targets; in a listing, extending its own list
(`yield from g(v)`). A `for` loop's iterable becomes a name assigned just before it (where
Python evaluates it), so the loop reads a list.

Refused (at the call's line, saying why), as a call left as it is, which Python runs
lazily, the refusal raised where a later stage refuses that call (`kept_refusals`: a
generator no derivative flows through keeps working): any other use (stored in a
variable, `next`, `send`, `any`/`all`, `in`, `np.array` of it, which NumPy makes an
object array); a
consuming `for` loop that may stop early (`break`, `return`), or that is in the body of a
`try` statement (the generator may raise after the loop used some of its items); a consuming loop or
comprehension that changes in place (an item or attribute store, an augmented
assignment, a mutating method, `out=`) anything but a variable holding a list, dict or
array made in the function that nothing else holds (`_Effects.private`: never the call's
arguments), that calls a function of the user's changing such an argument in place or
rebinding a `global`, or that rebinds a variable the generator reads (a `def` in the
function's closure; a `global`). A generator expression stored in a variable is refused
where the variable is read twice, or once in a loop the assignment is not in (Python's
second pass finds it empty). Returns a new tree; the parse stays as it was.
"""

import builtins
import contextlib
import math
import types

import gast
import numpy as np

from ..errors import SrcGradError
from . import frontend, generator_lists, printing, syntax, traversal
from .naming import Namer
from .scope import MISSING, dotted_parts, lookup_path
from .stand_in import in_user_code

_WHOLE = (builtins.list, builtins.tuple, builtins.set, builtins.frozenset, builtins.sorted, builtins.sum,
          builtins.min, builtins.max, builtins.dict, math.fsum, math.prod)
_PASSED_ON = (builtins.zip, builtins.enumerate)  # read whole where they are read whole
_ARRAYS = (np.array, np.asarray)
MUTATING = generator_lists.MUTATING


def run(program):
    """`program.tree` with the calls described above rewritten (the same tree when there are none)."""
    tree = program.tree
    stored_expressions, definitions, calls = [], [], []
    local = {a.id for a in tree.args.args + tree.args.kwonlyargs}
    store = gast.Store
    for node in traversal.inner_nodes(tree, names=True):  # one walk, gast.walk's order: this runs on every function
        kind = type(node)
        if kind is gast.Name:
            if isinstance(node.ctx, store):
                local.add(node.id)
        elif kind is gast.Call:
            calls.append(node)
        elif kind is gast.Assign and type(node.value) is gast.GeneratorExp:
            stored_expressions.append(node)
        elif kind is gast.FunctionDef and node is not tree:
            definitions.append(node)
    if stored_expressions:
        _refuse_read_twice(tree, program, stored_expressions)
    nested = {d.name: d for d in definitions if _yields(d)}
    if not calls:
        return tree
    if not nested and not any(_generator(n, program, nested, local) is not None for n in calls):
        return tree
    tree = syntax.copy(tree)
    nested = {s.name: s for s in traversal.walk(tree) if isinstance(s, gast.FunctionDef) and s.name in nested and s is not tree}
    namer = Namer.for_tree(tree)
    namer.taken |= set(program.globals) | set(program.bound)
    return _Rewriter(program, namer, nested, local).run(tree)


@contextlib.contextmanager
def kept_refusals(program):
    """A refusal by a later stage of what a generator call left as a call causes (an
    iteration over it, its pullback: at the call's line or the refusal's, or naming the
    generator) raised as the reason the call could not be read as a list."""
    try:
        yield
    except SrcGradError as exc:
        text = str(exc.msg)
        for refusal, name, call in program.kept_generators:
            if (f"{exc.filename}:{exc.lineno}" in (call, f"{refusal.filename}:{refusal.lineno}")
                    or f"`{name}`" in text or f"`{name}(" in text):
                raise refusal from None
        raise


def _yields(definition):
    """Whether the `def` `definition` is a generator (a `yield` of its own)."""
    todo = list(definition.body)
    while todo:
        node = todo.pop()
        if isinstance(node, (gast.Yield, gast.YieldFrom)):
            return True
        if not isinstance(node, (gast.FunctionDef, gast.Lambda, gast.ClassDef)):
            todo += [v for f in traversal.child_fields(type(node)) for v in _children(getattr(node, f, None))]
    return False


def _children(value):
    return [v for v in value if isinstance(v, gast.AST)] if type(value) is list else [value] if isinstance(value, gast.AST) else []


def _generator(call, program, nested, local):
    """The generator function (or bound method of one) `call` calls, the name of a
    generator `def` in `nested`, or None."""
    parts = dotted_parts(call.func)
    if parts is None:
        return None
    if len(parts) == 1 and parts[0] in nested:
        return parts[0]
    if parts[0] in local and parts[0] not in program.bound:
        return None
    if len(parts) == 1 and parts[0] not in program.globals and parts[0] not in program.cells and parts[0] not in program.bound:
        return None  # a builtin
    found = lookup_path(parts, program)
    if found is MISSING:
        return None
    function = found.__func__ if isinstance(found, types.MethodType) else found
    if not generator_lists.is_generator_function(function) or (function.__module__ or "").startswith("srcgrad"):
        return None  # srcgrad's own generators (runtime/jacobian_blocks.py) run as they are
    return found if in_user_code(function) else None  # the standard library's and installed packages' too


class _Rewriter:
    def __init__(self, program, namer, nested, local):
        self.program, self.namer, self.nested, self.local = program, namer, nested, local
        self.parents = {}
        listed = generator_lists.generator_of(program.fn)
        self.own_list = listed[1] if listed is not None else None  # a listing's list: its `extend` reads whole
        self.effects = None

    def run(self, tree):
        for node in traversal.walk(tree):
            for field in traversal.child_fields(type(node)):
                for child in _children(getattr(node, field, None)):
                    self.parents[id(child)] = (node, field)
        self.effects = _Effects(self.program, tree, self.parents)
        self.guarded = traversal.guarded_loops(tree.body)  # loop -> the `try` whose body holds it
        for node in list(traversal.walk(tree)):
            if isinstance(node, gast.Name) and node.id in self.nested and isinstance(node.ctx, gast.Load):
                parent, field = self.parents.get(id(node), (None, None))
                if not (isinstance(parent, gast.Call) and field == "func"):
                    raise self.program.error(
                        node, f"the generator function `{node.id}` defined in `{self.program.name}` is used as a value: "
                        f"srcgrad computes a generator of the function's own only where a call of it is read whole right "
                        f"there (a `for` loop, a comprehension, sum/list/tuple/sorted/min/max, zip/enumerate of it, "
                        f"star-unpacking); call it there")
            if isinstance(node, gast.Call):
                found = _generator(node, self.program, self.nested, self.local)
                if found is None:
                    continue
                try:
                    self.rewrite(node, found)
                except SrcGradError as refusal:
                    if isinstance(found, str):
                        raise  # a generator `def` in the function is refused (fence) either way
                    # left a call, which Python runs lazily: right where no derivative flows through it
                    function = found.__func__ if isinstance(found, types.MethodType) else found
                    self.program.kept_generators.append((refusal, function.__name__, self.program.where(node)))
        tree.body = self.block(tree.body)
        return tree

    def rewrite(self, call, found):
        """Check that `call` of `found` is read whole; call the listing in its place."""
        if isinstance(found, str):  # a `def` in the function: listed in place (`block`); its refusals first
            generator_lists.listed(self.program, self.nested[found])
        else:
            function = found.__func__ if isinstance(found, types.MethodType) else found
            listing = generator_lists.listing(function, frontend.load(function))
        consumer = self.consumer(call, call)
        self.refuse_changes(call, consumer, found)
        if isinstance(found, str):
            return
        if isinstance(found, types.MethodType):
            listing = types.MethodType(listing, found.__self__)
        name = next((n for n, v in self.program.held.items()
                     if v is listing or isinstance(v, types.MethodType) and v == listing), None)
        if name is None:  # one name for each listing (a method's: for each receiver)
            name = self.namer.fresh(f"{function.__name__}_list")
            self.program.bound[name] = self.program.held[name] = listing
        call.func = syntax.located(syntax.name(name), call.func)

    def consumer(self, node, call):
        """The loop or comprehension reading `call` (through `node`, which holds it) whole,
        or `node`'s call for a function reading it whole; refused elsewhere."""
        parent, field = self.parents.get(id(node), (None, None))
        if isinstance(parent, gast.For) and field == "iter":
            return parent
        if isinstance(parent, gast.comprehension) and field == "iter":
            owner = self.parents[id(parent)][0]
            if isinstance(owner, gast.GeneratorExp):
                self.consumer(owner, call)  # the generator expression itself read whole
            return owner
        if isinstance(parent, gast.Starred) and isinstance(self.parents.get(id(parent), (None,))[0],
                                                           (gast.Call, gast.List, gast.Tuple, gast.Set)):
            return parent
        if isinstance(parent, gast.Assign) and field == "value" and isinstance(parent.targets[0], (gast.Tuple, gast.List)):
            return parent
        if isinstance(parent, gast.Call) and field == "args":
            parts = dotted_parts(parent.func)
            if parts == [self.own_list, "extend"]:
                return parent
            meaning = None if parts is None or (parts[0] in self.local and parts[0] not in self.program.bound) \
                else lookup_path(parts, self.program)
            if any(meaning is f for f in _WHOLE):
                return parent
            if any(meaning is f for f in _PASSED_ON):
                return self.consumer(parent, call)  # the loop reading the zip or enumerate: its `break`, its `try`
            if any(meaning is f for f in _ARRAYS):
                raise self.refusal(call, f"given to `{'.'.join(parts)}`, which makes an array holding the generator "
                                   f"object itself (a 0-d object array), not its items: write `{'.'.join(parts)}(list(...))`")
        raise self.refusal(call, self.use(node, parent, field))

    def use(self, node, parent, field):
        """How `node` is used where it is not read whole, in words."""
        if isinstance(parent, gast.Assign) and field == "value":
            target = parent.targets[0]
            stored = f"`{target.id}`" if isinstance(target, gast.Name) else "a variable"
            return (f"stored in {stored}, from which it could be read in part (`next(...)`, a loop with `break`) or "
                    f"lazily; read it whole where it is called (`for v in {printing.unparse(node)}:`, "
                    f"`list({printing.unparse(node)})`)")
        if isinstance(parent, gast.Attribute):
            return (f"used through `.{parent.attr}`: srcgrad computes a generator only as the list of what it "
                    "yields, so nothing can be sent into it, thrown into it or closed; loop over it whole")
        if isinstance(parent, gast.Call):
            parts = dotted_parts(parent.func)
            called = ".".join(parts) if parts is not None else "a call"
            return (f"given to `{called}`, which may read it in part (or keep it): loop over it whole, or give "
                    f"`{called}` the list, `list({printing.unparse(node)})`")
        if isinstance(parent, gast.Compare):
            return "tested with `in`, which stops at the first match: test `in list(...)`"
        return "used as a value that is not read whole right where it is made"

    def refusal(self, call, why):
        return self.program.error(
            call, f"the generator call `{printing.unparse(call)}` (in `{self.program.name}`) is {why}. srcgrad computes a "
            f"generator read by a differentiated function as the list of what it yields, which is only the same "
            f"where the call is read whole right there: by a `for` loop without `break` or `return`, a "
            f"comprehension, sum/list/tuple/sorted/min/max, zip/enumerate of it, or star-unpacking",
        )

    def refuse_changes(self, call, consumer, found):
        """Refuse a consuming loop that may stop early, or that changes what the generator reads."""
        if isinstance(consumer, gast.For):
            jump = next((j for j in traversal.jumps_out(consumer.body, in_loop=False) if not isinstance(j, gast.Continue)), None)
            if jump is not None:
                word = "return" if isinstance(jump, gast.Return) else "break"
                raise self.refusal(call, f"read by a `for` loop with a `{word}` (line {self.program.line(jump)}), "
                                   f"which may stop before the generator ends: Python then runs no more of it, while "
                                   f"srcgrad would have run it to its end; read it whole and stop on its list, "
                                   f"`for v in list({printing.unparse(call)}):`")
            guard = self.guarded.get(id(consumer))
            if guard is not None:
                raise self.refusal(call, f"read by a `for` loop inside the `try` statement of line {self.program.line(guard)}: "
                                   f"if the generator raises after yielding some items, Python has run the loop's body "
                                   f"on them before the `except` or `finally` block runs, while srcgrad would have raised "
                                   f"before the loop; make the list first, `items = list({printing.unparse(call)})`, "
                                   f"or move the loop out of the `try` body")
            body = consumer.body
        elif isinstance(consumer, (gast.ListComp, gast.SetComp, gast.DictComp, gast.GeneratorExp)):
            body = [n for n in (getattr(consumer, "elt", None), getattr(consumer, "key", None),
                                getattr(consumer, "value", None)) if n is not None] + [i for g in consumer.generators for i in g.ifs]
        else:
            return
        read = {n.id for a in call.args + [k.value for k in call.keywords] for n in traversal.walk(a) if isinstance(n, gast.Name)}
        if isinstance(found, types.MethodType) and isinstance(call.func, gast.Attribute):
            read.add(generator_lists.root(call.func))  # its receiver
        if isinstance(found, str):  # a `def` in the function reads its variables
            definition = self.nested[found]
            own = {a.id for a in definition.args.args + definition.args.kwonlyargs} | set(traversal.names_stored(definition.body))
            rebound = set(traversal.names_read(definition.body)) - own
        else:
            function = found.__func__ if isinstance(found, types.MethodType) else found
            declared = {n for s in traversal.walk(self.program.tree) if isinstance(s, (gast.Global, gast.Nonlocal)) for n in s.names}
            rebound = declared & (set(function.__code__.co_names) | set(function.__code__.co_freevars))
        for stmt in body:
            for node in traversal.walk(stmt):
                changed = None
                if isinstance(node, gast.Name) and isinstance(node.ctx, gast.Store) and node.id in rebound:
                    changed = (node, f"rebinds `{node.id}`, which the generator reads")
                for root, how in _changed_in_place(node):
                    if root in read:
                        changed = (node, f"changes `{root}` in place{how}, which the generator reads")
                    elif not self.effects.private(root):
                        changed = (node, f"changes `{root}` in place{how}, which the generator may read (it is not a "
                                   f"list, dict or array made in `{self.program.name}` that nothing else holds)")
                if isinstance(node, gast.Call) and changed is None:
                    changed = self.effects.changing_call(node, read)
                if changed is not None:
                    raise self.refusal(call, f"read by a loop whose body {changed[1]} (line {self.program.line(changed[0])}): "
                                       f"Python would run each item of the generator after the body's change before it, "
                                       f"srcgrad all of them first; change a copy, or make the list first "
                                       f"(`items = list({printing.unparse(call)})`)")

    def block(self, stmts):
        """`stmts` with generator `def`s listed and each `for` loop's generator call named before it."""
        out = []
        for s in stmts:
            for inner in traversal.blocks_in(s):
                inner[:] = self.block(inner)
            if isinstance(s, gast.FunctionDef) and self.nested.get(s.name) is s:
                s = syntax.located(generator_lists.listed(self.program, s)[0], s)
                self.program.listed_defs |= {s.name}
            elif isinstance(s, gast.For) and isinstance(s.iter, gast.Call) and self.calls_listing(s.iter):
                name = self.namer.fresh(f"{_callee_name(s.iter)}_items")
                out.append(syntax.located(syntax.assign(name, s.iter), s))
                s.iter = syntax.located(syntax.name(name), s.iter)
            out.append(s)
        return out

    def calls_listing(self, call):
        """Whether `call` calls a listing bound here or a generator `def` of the function."""
        func = call.func
        if not isinstance(func, gast.Name):
            return False
        bound = self.program.bound.get(func.id)
        return func.id in self.nested or (bound is not None and generator_lists.generator_of(
            bound.__func__ if isinstance(bound, types.MethodType) else bound) is not None)


def _callee_name(call):
    name = call.func.id
    return name[:-len("_list")] if name.endswith("_list") else name


def _refuse_read_twice(tree, program, assignments):
    """Refuse a generator expression stored in a variable that is read twice, or once in a
    loop the assignment is not in: Python's second pass over it finds it empty."""
    loops = [s for s in traversal.walk(tree) if isinstance(s, (gast.For, gast.While))]
    for assign in assignments:
        target = assign.targets[0]
        if not isinstance(target, gast.Name):
            continue
        reads = [n for n in traversal.walk(tree) if isinstance(n, gast.Name) and n.id == target.id and isinstance(n.ctx, gast.Load)]
        if sum(1 for s in traversal.walk(tree) if isinstance(s, gast.Assign) and any(
                isinstance(t, gast.Name) and t.id == target.id for t in s.targets)) > 1:
            continue  # assigned again: which read reads which is left to the order of statements (fence, jumps)
        inside = [loop for loop in loops if any(r is n for r in reads for n in traversal.walk(loop))
                  and not any(assign is n for n in traversal.walk(loop))]
        if len(reads) > 1 or inside:
            where = reads[1] if len(reads) > 1 else reads[0]
            raise program.error(
                where, f"the generator expression stored in `{target.id}` (line {program.line(assign)}) is read "
                f"{'again' if len(reads) > 1 else 'in a loop'} here (in `{program.name}`): Python's first pass over "
                f"a generator uses it up, so a second pass finds it empty, while srcgrad computes it as a list. Make it "
                f"a list, `{target.id} = [...]`, to read it twice, or write the expression out where it is read",
            )


# methods that change no object (of arrays, lists, dicts): a call of one in a consuming loop is no change
# (not `reshape`, `ravel`, `transpose`, `squeeze`: the view they may return holds the array)
_PURE_METHODS = frozenset({"copy", "sum", "mean", "prod", "max", "min", "item", "tolist", "index", "count", "get", "keys",
                           "values", "items", "dot", "astype", "flatten", "conj",
                           "std", "var", "any", "all", "argmax", "argmin", "cumsum", "round", "clip"})
# what a variable may be read by without another name or object coming to hold it
_REDUCERS = (builtins.len, builtins.sum, builtins.min, builtins.max, builtins.float, builtins.int, builtins.abs,
             builtins.print, np.sum, np.mean, np.prod, np.max, np.min, np.linalg.norm, math.fsum,
             np.array, np.stack, np.concatenate)  # copies
_FRESH = (builtins.list, builtins.dict, builtins.set, builtins.tuple, np.zeros, np.ones, np.empty, np.full,
          np.zeros_like, np.ones_like, np.full_like, np.array, np.copy, np.arange, np.linspace, np.eye)


def _changed_in_place(node):
    """(name, how) for each variable `node` changes in place: an item or attribute store,
    an augmented assignment, a mutating method, `out=`."""
    targets = node.targets if isinstance(node, gast.Assign) else [node.target] if isinstance(node, gast.AugAssign) else []
    for t in targets:
        if isinstance(t, (gast.Subscript, gast.Attribute)) or isinstance(node, gast.AugAssign):
            yield generator_lists.root(t), ""
    if isinstance(node, gast.Call):
        if isinstance(node.func, gast.Attribute) and node.func.attr in MUTATING:
            yield generator_lists.root(node.func.value), f" (`.{node.func.attr}`)"
        out = next((k.value for k in node.keywords if k.arg == "out"), None)
        if out is not None:
            yield generator_lists.root(out), " (`out=`)"


class _Effects:
    """What a consuming loop's body may change that a generator could read."""

    def __init__(self, program, tree, parents):
        self.program, self.parents, self.found = program, parents, {}
        self.params = {a.id for a in tree.args.args + tree.args.kwonlyargs}
        self.names = [n for n in traversal.walk(tree) if isinstance(n, gast.Name)]

    def private(self, name):
        """Whether `name` is a variable of the function holding an object made in it
        (a display, a copy, a new array), which no other name, object or call holds: every
        assignment of it makes a new object, and it is read only for values, items and
        methods that keep no reference to it (`len(v)`, `v[i] * 2`, `v.append(...)`)."""
        if name not in self.found:
            self.found[name] = name is not None and self._private(name)
        return self.found[name]

    def _private(self, name):
        if name in self.params or name in self.program.cells or name in self.program.bound:
            return False
        uses = [n for n in self.names if n.id == name]
        if not uses:
            return False  # a global
        for n in uses:
            parent, field = self.parents.get(id(n), (None, None))
            if isinstance(n.ctx, gast.Store):
                if not (isinstance(parent, gast.Assign) and len(parent.targets) == 1 and self._fresh(parent.value)
                        or isinstance(parent, gast.AugAssign)):
                    return False
            elif not self._keeps_no_reference(n, parent, field):
                return False
        return True

    def _fresh(self, value):
        if isinstance(value, (gast.Constant, gast.List, gast.Tuple, gast.Set, gast.Dict, gast.ListComp, gast.SetComp,
                              gast.DictComp, gast.BinOp, gast.UnaryOp, gast.Compare)):
            return True
        if isinstance(value, gast.Call):
            if isinstance(value.func, gast.Attribute) and value.func.attr == "copy":
                return True
            return any(self._means(value.func) is f for f in _FRESH)
        return False

    def _keeps_no_reference(self, node, parent, field):
        if isinstance(parent, (gast.BinOp, gast.UnaryOp, gast.Compare, gast.Return)):
            return True
        if isinstance(parent, gast.AugAssign):
            return True
        if isinstance(parent, gast.Attribute):
            outer, _ = self.parents.get(id(parent), (None, None))
            return (parent.attr in MUTATING or parent.attr in _PURE_METHODS) and isinstance(outer, gast.Call) \
                or parent.attr in ("shape", "size", "ndim", "dtype")
        if isinstance(parent, gast.Subscript) and field == "value":
            outer, outer_field = self.parents.get(id(parent), (None, None))
            return not isinstance(parent.ctx, gast.Load) or isinstance(outer, (gast.BinOp, gast.UnaryOp, gast.Compare)) \
                or isinstance(outer, gast.AugAssign) and outer_field == "value"
        if isinstance(parent, gast.Call) and field == "args":
            return any(self._means(parent.func) is f for f in _REDUCERS)
        return False

    def _means(self, func):
        parts = dotted_parts(func)
        if parts is None or (parts[0] in self.params or any(n.id == parts[0] and isinstance(n.ctx, gast.Store)
                                                             for n in self.names)) and parts[0] not in self.program.bound:
            return None
        return lookup_path(parts, self.program)

    def changing_call(self, call, read):
        """(the call, why) where `call` may change something a generator reads: a function of
        the user's changing an argument given a variable that is not private, or a method
        other than a known pure one of such a variable; else None."""
        func = call.func
        if isinstance(func, gast.Attribute) and func.attr not in _PURE_METHODS:
            root = generator_lists.root(func.value)
            if root is not None and (root in read or not self.private(root)) and self._means(func) is not None \
                    and _changes_arguments(self._means(func)):
                return call, f"calls `{printing.unparse(func)}`, which changes `{root}` or what it holds"
            if root is not None and self._means(func) is None and (root in read or not self.private(root)):
                return call, f"calls `{printing.unparse(func)}`, which may change `{root}`"
        meaning = self._means(func)
        if meaning is not None and _rebinds_outside(meaning):
            return call, f"calls `{printing.unparse(func)}`, which rebinds a variable outside it (`global`, `nonlocal`)"
        if meaning is None or not _changes_arguments(meaning):
            return None
        passed = [n.id for a in call.args + [k.value for k in call.keywords] for n in traversal.walk(a)
                  if isinstance(n, gast.Name) and (n.id in read or not self.private(n.id))]
        if passed:
            return call, f"calls `{printing.unparse(func)}`, which changes an argument in place (given `{passed[0]}`)"
        return None


def _changes_arguments(fn, depth=0):
    """Whether the user's function (or bound method) `fn` may change an argument (its
    receiver) in place: an item, attribute or augmented store, a mutating method, `out=`,
    on a parameter, or a call of another such function of the user's passing one (a
    function whose source cannot be read: yes)."""
    function = fn.__func__ if isinstance(fn, types.MethodType) else fn
    if not isinstance(function, types.FunctionType) or not in_user_code(function) \
            or (function.__module__ or "").startswith(("srcgrad", "numpy")):
        return False
    if depth > 4:
        return True
    try:
        tree = frontend.load(function).tree
    except (OSError, TypeError, SrcGradError):
        return True
    params = {a.id for a in tree.args.args + tree.args.kwonlyargs}
    for node in traversal.walk(tree):
        if any(root in params for root, _ in _changed_in_place(node)):
            return True
        if isinstance(node, gast.Call) and any(isinstance(a, gast.Name) and a.id in params for a in node.args):
            parts = dotted_parts(node.func)
            inner = lookup_path(parts, frontend.load(function)) if parts is not None and parts[0] not in params else MISSING
            if inner is not MISSING and inner is not function and _changes_arguments(inner, depth + 1):
                return True
    return False


def _rebinds_outside(fn):
    """Whether the user's function `fn` has a `global` or `nonlocal` statement of its own."""
    function = fn.__func__ if isinstance(fn, types.MethodType) else fn
    if not isinstance(function, types.FunctionType) or not in_user_code(function) \
            or (function.__module__ or "").startswith(("srcgrad", "numpy")):
        return False
    try:
        tree = frontend.load(function).tree
    except (OSError, TypeError, SrcGradError):
        return True
    return any(isinstance(n, (gast.Global, gast.Nonlocal)) for n in traversal.walk(tree))
