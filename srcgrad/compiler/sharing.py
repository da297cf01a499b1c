"""May-share analysis: is an augmented assignment a rebinding?

NumPy runs `z += v` (and `-=`, `*=`, ...) in place when `z` is an array, and `l[i] += v`
in place on the array `l[i]` when `l` is a list or dict: every value sharing that memory
changes too. srcgrad compiles both as rebinding (`z = z + v`, anf.py), which is exact
only when no value used afterwards can share the changed memory. `check` proves that
for each augmented assignment, or refuses it (`NotDifferentiableError`, at decoration).

The abstract state is a symmetric relation *may share* between nodes: a local name `n`,
the contents `n[]` of a local name (what a list, tuple or dict holds) and OUTSIDE
(memory the function does not make: arguments, globals, what an unknown call returns).
Statements update it in order (a new binding forgets the name's pairs), branches join
by union, loops repeat to a fixpoint. Invariant: two nodes that may share memory on some
run are related (the relation may hold more). A binding relates the name to its
sources and to their neighbours, so chains of views and aliases stay related. What a
call returns (a view, an entry, a new value) comes from views.py; a container whose
entries may share memory with each other is marked by entry_aliases.py. What an
augmented assignment not proved a rebinding becomes (a run-time check, or the refusal)
is share_verdicts.py's.
"""

import math
import types

import gast
import numpy as np

from . import dict_keys, entry_aliases, later_reads, syntax, traversal, views
from .scope import MISSING, dotted_parts, lookup_path
from .share_verdicts import OUTSIDE, Verdicts

NOTHING = frozenset()
_UNKNOWN = (frozenset({OUTSIDE}), frozenset({OUTSIDE}))



def check(program, tree, guards, enclosing=()):
    """Refuse each augmented assignment of `tree` (the function or a nested `def` of it)
    that may change memory another value still in use shares.

    `guards`: {(line, column) of an augmented assignment: [(other, the assignment that made
    the target a view of other)]}, the run-time checks fence.py emits. A check guards a
    `z op= v` whose target is still what `z = <view of other>` made (in the same block,
    neither name stored in between): it stops the run when z is an array sharing other's
    memory, so when it passes, z is not a shared array and `z = z op v` is exact.
    Returns more such checks, for `z op= v` where z is (a view of) an argument:
    {(line, column): [(argument, the located error it raises)]}. For a nested `def` (`enclosing`: the names
    local to the function around it), which is inlined where it is called, arguments and
    the names around it are outside, and no check guards anything."""
    analysis = _Function(program, tree, guards, set(enclosing))
    analysis.run()
    return analysis.argument_checks


def _numeric(value):
    """Whether `value` is arithmetic that makes a new number or array whatever its operands:
    `-`, `/`, `//`, `**`, `@` or unary `-`, which no list, tuple or dict has (`+` and `*`
    join lists, `|` merges dicts); `_Function.value` agrees that it shares nothing."""
    if isinstance(value, gast.BinOp):
        return isinstance(value.op, (gast.Sub, gast.Div, gast.FloorDiv, gast.Pow, gast.MatMult))
    return isinstance(value, gast.UnaryOp) and isinstance(value.op, (gast.USub, gast.UAdd))


def _pair(a, b):
    return (a, b) if a < b else (b, a)


class _State:
    """The may-share relation: {pair of nodes: a statement that related them}."""

    def __init__(self, pairs=None):
        self.pairs = dict(pairs or {})

    def copy(self):
        return _State(self.pairs)

    def join(self, other):
        for key, why in other.pairs.items():
            self.pairs.setdefault(key, why)

    def neighbours(self, node):
        return {a if b == node else b: why for (a, b), why in self.pairs.items() if node in (a, b)}

    def closure(self, nodes):
        """`nodes` and everything related to them."""
        out = set(nodes)
        for node in nodes:
            out |= set(self.neighbours(node))
        return out

    def forget(self, node):
        self.pairs = {k: w for k, w in self.pairs.items() if node not in k}

    def relate(self, node, others, why):
        for other in others:
            if other != node:
                self.pairs.setdefault(_pair(node, other), why)


class _Function(Verdicts):
    """The analysis of one function body (`tree`); `Verdicts` decides what an augmented
    assignment it cannot prove a rebinding becomes."""

    def __init__(self, program, tree, guards, enclosing):
        self.program, self.tree, self.guards, self.enclosing = program, tree, guards, enclosing
        self.argument_checks = {}
        self.here = None  # (block, position) of the statement being read
        self.params = [a.id for a in tree.args.args + tree.args.kwonlyargs]
        self.local = set(self.params) | set(traversal.names_stored(tree.body))
        self.nested = {s.name: s for s in tree.body if isinstance(s, gast.FunctionDef)}
        self.local |= set(self.nested)
        self.loops = []  # the loops around the statement being read
        self.exits = []  # per loop: the states where it may be left
        self.later_reads = later_reads.Reads(tree)
        self.arrays = self.numpy_arrays()
        self.dicts = dict_keys.local_dicts(tree, self.params, self.makes_dict_call)
        self.walrus = traversal.holds(tree, gast.NamedExpr)

    def statement(self):
        """The statement being read (the function when none is)."""
        return self.here[0][self.here[1]] if self.here else self.tree

    def walruses(self, roots, state):
        """Bind the walrus targets under `roots` (what a statement evaluates itself): a
        test or a comparison is not otherwise read for the values it makes."""
        if not self.walrus:
            return
        for root in roots:
            for n in traversal.walk(root):
                if isinstance(n, gast.NamedExpr):
                    self.assign({n.target.id: self.value(n.value, state)}, state, self.statement())

    def numpy_arrays(self):
        """Local names every binding of which makes one NumPy array (`np.zeros(3)`), or a
        new number or array by arithmetic that no list or tuple has (`v ** 2`, `a - b`,
        `-a`; `+` and `*` may join lists): a subscript write into one copies values, so its
        entries hold no other object. `z op= v` keeps such a name one: an array changes in
        place, a number becomes a new number or array."""
        bound = {}  # name -> number of bindings, of array makers
        augmented = {id(n.target) for n in traversal.walk(self.tree) if isinstance(n, gast.AugAssign)}
        for node in traversal.walk(self.tree):
            if isinstance(node, gast.Name) and isinstance(node.ctx, gast.Store) and id(node) not in augmented:
                bound.setdefault(node.id, [0, 0])[0] += 1
            elif (isinstance(node, gast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], gast.Name)
                  and (self.makes_array(node.value) or _numeric(node.value))):
                bound.setdefault(node.targets[0].id, [0, 0])[1] += 1
        return {name for name, (stores, made) in bound.items() if stores == made and name not in self.params}

    def makes_dict_call(self, value):
        """Whether `value` calls the builtin `dict`."""
        return (isinstance(value, gast.Call) and self.is_module_chain(value.func)
                and _lookup(dotted_parts(value.func), self.program) is dict)

    def makes_array(self, value):
        """Whether `value` is a call of one of NumPy's array makers (`np.zeros(3)`)."""
        return (isinstance(value, gast.Call) and self.is_module_chain(value.func)
                and _lookup(dotted_parts(value.func), self.program) in views.ARRAY_MAKERS)

    def run(self):
        state = _State()
        for p in self.params:
            state.relate(p, [OUTSIDE], self.tree)
            state.relate(p + "[]", [OUTSIDE], self.tree)
        self.block(self.tree.body, state)

    # --- statements -------------------------------------------------------------------

    def block(self, stmts, state):
        for k, s in enumerate(stmts):
            self.here = (stmts, k)
            self.stmt(s, state)
            if self.exits:
                self.exits[-1].join(state)

    def stmt(self, s, state):
        if isinstance(s, (gast.If, gast.While)):
            self.walruses([s.test], state)
        elif isinstance(s, gast.For):
            self.walruses([s.iter], state)
        elif not isinstance(s, gast.FunctionDef):
            self.walruses([s], state)
        if isinstance(s, gast.Assign) or (isinstance(s, gast.AnnAssign) and s.value is not None):
            repeats = entry_aliases.repeats(s.value, lambda e: self.value(e, state), self.holds_values, state)
            value = self.value(s.value, state)
            for target in s.targets if isinstance(s, gast.Assign) else [s.target]:
                self.bind(target, s.value, value, state, s)
                if repeats and isinstance(target, gast.Name):
                    entry_aliases.mark(state, target.id + "[]", s)
            names = [t.id for t in s.targets if isinstance(t, gast.Name)] if isinstance(s, gast.Assign) else []
            for k, name in enumerate(names):  # `a = b = v`: one object under both names
                state.relate(name, names[k + 1:], s)
                state.relate(name + "[]", [n + "[]" for n in names[k + 1:]], s)
            if names and len(s.targets) > 1:  # `l[0] = z = v`: l holds the object z names
                for target in s.targets:
                    if isinstance(target, gast.Subscript):
                        self.store_into(target.value, set(names), state, s)
        elif isinstance(s, gast.AugAssign):
            self.augmented(s, state)
        elif isinstance(s, gast.Expr):
            self.expression_statement(s, state)
        elif isinstance(s, gast.If):
            orelse = state.copy()
            self.block(s.body, state)
            self.block(s.orelse, orelse)
            state.join(orelse)
        elif isinstance(s, (gast.For, gast.While)):
            self.loop(s, state)

    def loop(self, s, state):
        """Run the body until the state at its head stops growing; the state after the loop
        joins every state inside it (a `break` may leave from anywhere)."""
        element = self.value(s.iter, state) if isinstance(s, gast.For) else None
        if element is not None and dict_keys.iterates_keys(self.dicts, s.iter):  # `for k in params:` binds keys
            element = (NOTHING, NOTHING)
        elif element is not None:
            element = (element[0] | element[1], element[1])  # an item: an entry or a view of it
        self.loops.append(s)
        self.exits.append(state.copy())
        while True:
            before = set(state.pairs)
            body = state.copy()
            if element is not None and self.counted(s):  # `for i, row in enumerate(A)`: i is a number
                self.bind(s.target.elts[0], None, (NOTHING, NOTHING), body, s)
                self.bind(s.target.elts[1], None, element, body, s)
            elif element is not None and dict_keys.items_of_dict(self.dicts, s.iter, s.target):  # the key is hashable, no array
                self.bind(s.target.elts[0], None, (NOTHING, NOTHING), body, s)
                self.bind(s.target.elts[1], None, element, body, s)
            elif element is not None:
                self.bind(s.target, None, element, body, s)
            if isinstance(s, gast.While):  # its test runs again before each iteration
                self.walruses([s.test], body)
            self.block(s.body, body)
            state.join(body)
            if set(state.pairs) == before:
                break
        self.loops.pop()
        state.join(self.exits.pop())
        self.block(s.orelse, state)

    def counted(self, s):
        """Whether the loop `s` is `for i, item in enumerate(...)` of Python's enumerate."""
        call, target = s.iter, s.target
        if not (isinstance(call, gast.Call) and isinstance(target, (gast.Tuple, gast.List)) and len(target.elts) == 2
                and not any(isinstance(t, gast.Starred) for t in target.elts)):
            return False
        chain = dotted_parts(call.func)
        return chain is not None and chain[0] not in self.local | self.enclosing and _lookup(chain, self.program) is enumerate

    def bind(self, target, value_node, value, state, why):
        """Give `target` the abstract `value` (for the expression `value_node`, if known)."""
        if isinstance(target, gast.Name):
            self.assign({target.id: value}, state, why)
        elif isinstance(target, (gast.Tuple, gast.List)):
            if (isinstance(value_node, (gast.Tuple, gast.List)) and len(value_node.elts) == len(target.elts)
                    and not any(isinstance(e, gast.Starred) for e in target.elts + value_node.elts)
                    and all(isinstance(t, gast.Name) for t in target.elts)):
                parts = {t.id: self.value(e, state) for t, e in zip(target.elts, value_node.elts)}
                self.assign(parts, state, why)  # `a, b = b, a`: each takes the old value
                return
            item = (value[0] | value[1], value[1])
            for t in target.elts:
                if isinstance(t, gast.Starred):  # a new list of the items
                    self.bind(t.value, None, (NOTHING, item[0]), state, why)
                else:
                    self.bind(t, None, item, state, why)
        elif isinstance(target, gast.Subscript):
            self.store_into(target.value, value[0] | value[1], state, why)

    def assign(self, parts, state, why):
        """Bind the names of `parts` ({name: (shares, contents)}) at once."""
        closed = {n: (state.closure(s), state.closure(c)) for n, (s, c) in parts.items()}
        for name in parts:
            state.forget(name)
            state.forget(name + "[]")
        old = {n for n in parts}
        marked = {n for n, (_, c) in closed.items()
                  if any(entry_aliases.marked(state, k) is not None for k in c if k.endswith("[]"))}
        for name, (shares, contents) in closed.items():
            state.relate(name, shares - old - {name + "[]"}, why)
            state.relate(name + "[]", contents - old - {name + "[]"}, why)
            if name in marked:  # a copy of, or an entry of, a container whose entries may share memory
                entry_aliases.mark(state, name + "[]", why)
        for name, (shares, _) in closed.items():  # between the targets: by their old values
            for other, (other_shares, _) in closed.items():
                if name < other and shares & set(parts[other][0]) | other_shares & set(parts[name][0]):
                    state.relate(name, [other], why)

    def store_into(self, base, nodes, state, why):
        """`base[i] = v`, `base.append(v)`: the contents of `base` (and its aliases) hold v;
        not when `base` is one of `arrays` (values are copied in)."""
        while isinstance(base, (gast.Subscript, gast.Attribute)):
            base = base.value
        if not isinstance(base, gast.Name) or base.id not in self.local or base.id in self.arrays:
            return
        held = state.closure(nodes)
        holders = {base.id} | {n for n in state.neighbours(base.id) if n != OUTSIDE and not n.endswith("[]")}
        for holder in holders:
            repeated = entry_aliases.overlap(state, holder + "[]", held)
            state.relate(holder + "[]", held, why)
            if repeated:  # an entry sharing memory with one it holds already, or holding such entries
                entry_aliases.mark(state, holder + "[]", why)

    def expression_statement(self, s, state):
        call = s.value
        self.value(call, state)
        if (isinstance(call, gast.Call) and isinstance(call.func, gast.Attribute)
                and call.func.attr in views.STORING_METHODS):
            nodes = set()
            for a in _arguments(call):
                shares, contents = self.value(a, state)
                nodes |= shares | contents
            self.store_into(call.func.value, nodes, state, s)

    def augmented(self, s, state):
        """Check `s`, then update: the target keeps its memory (in place, or a new value)."""
        value = self.value(s.value, state)
        target = s.target
        if isinstance(target, gast.Name):
            covered = self.guarded(s)
            refusal = None if covered else self.refusal(s, target.id, target.id, state)
            if refusal is not None:
                if not (self.guarded_as_argument(s) or self.number_checked(s, refusal)):
                    raise refusal
                covered = True
            if covered:
                state.forget(target.id)  # not a shared array: its own value from here on
                return
            if isinstance(s.op, (gast.Add, gast.Mult, gast.BitOr)) and target.id not in self.arrays:
                # a list extends in place, a dict merges
                joined, contents = state.closure(value[0] | value[1]), target.id + "[]"
                repeated = (self.holds_values(target, state) if isinstance(s.op, gast.Mult)
                            else entry_aliases.overlap(state, contents, joined))
                state.relate(contents, joined, s)
                if repeated:
                    entry_aliases.mark(state, contents, s)
        elif isinstance(target, gast.Subscript):
            base = target.value
            while isinstance(base, gast.Subscript):
                base = base.value
            if isinstance(base, gast.Name) and base.id in self.local:
                held = base.id if base.id in self.arrays else base.id + "[]"  # its own memory, or what it holds at i
                refusal = self.refusal(s, held, base.id, state)
                if refusal is not None and not self.entry_checked(s, held, refusal, state):
                    raise refusal
            # the entry keeps its object (an array; a list or dict joined with v's entries by `+`, `*`, `|`) or
            # becomes a new number: never v itself
            if isinstance(s.op, (gast.Add, gast.Mult, gast.BitOr)):
                self.store_into(target.value, value[1], state, s)

    # --- expressions ------------------------------------------------------------------

    def value(self, e, state):
        """(nodes the value of `e` may share memory with, nodes its contents may share)."""
        if isinstance(e, gast.Name):
            if e.id in self.local:
                return frozenset({e.id}), frozenset({e.id + "[]"})
            if e.id in self.enclosing:
                return _UNKNOWN
            return self.global_value(_lookup([e.id], self.program))
        if isinstance(e, gast.NamedExpr):  # `(z := a)` binds z as `z = a` does, where Python evaluates it
            value = self.value(e.value, state)
            self.assign({e.target.id: value}, state, self.statement())
            return value
        if isinstance(e, (gast.Constant, gast.JoinedStr, gast.Compare, gast.Lambda, gast.UnaryOp, gast.Slice)):
            return NOTHING, NOTHING
        if isinstance(e, gast.BinOp):
            if not isinstance(e.op, (gast.Add, gast.Mult, gast.BitOr)) or _float_scaling(e):
                return NOTHING, NOTHING
            joined = entry_aliases.joins_displays(e)  # `a[:i] + [v] + a[i:]`: every operand is a list
            held = [self.value(o, state)[1] for o in (e.left, e.right) if joined or self.holds_values(o, state)]
            return NOTHING, frozenset().union(*held)  # lists concatenate and repeat, dicts merge
        if isinstance(e, (gast.BoolOp, gast.IfExp)):  # one of the operands itself
            parts = [self.value(v, state) for v in (e.values if isinstance(e, gast.BoolOp) else (e.body, e.orelse))]
            return frozenset().union(*(p[0] for p in parts)), frozenset().union(*(p[1] for p in parts))
        if isinstance(e, (gast.Tuple, gast.List, gast.Set, gast.Dict)):
            items = e.values if isinstance(e, gast.Dict) else e.elts
            parts = [self.value(v.value if isinstance(v, gast.Starred) else v, state) for v in items]
            return NOTHING, frozenset().union(*(p[0] | p[1] for p in parts))
        if isinstance(e, gast.Subscript):
            shares, contents = self.value(e.value, state)
            return shares | contents, contents
        if isinstance(e, (gast.ListComp, gast.GeneratorExp, gast.DictComp)):
            bound = {n.id for g in e.generators for n in traversal.walk(g.target) if isinstance(n, gast.Name)}
            if not traversal.holds(e, gast.NamedExpr):
                return self.comprehension(e, bound, state)
            nodes = set()
            for name in traversal.names_read(e):
                if name not in bound:
                    shares, contents = self.value(syntax.name(name), state)
                    nodes |= shares | contents
            return NOTHING, frozenset(nodes)
        if isinstance(e, gast.Attribute):
            chain = dotted_parts(e)
            if chain is not None and chain[0] not in self.local | self.enclosing:
                return self.global_value(_lookup(chain, self.program))
            shares, contents = self.value(e.value, state)
            if e.attr in ("shape", "ndim", "size", "dtype", "itemsize", "nbytes"):
                return NOTHING, NOTHING
            if e.attr in views.VIEW_ATTRIBUTES:
                return shares, contents
            return shares | contents | {OUTSIDE}, contents | {OUTSIDE}
        if isinstance(e, gast.Call):
            return self.call(e, state)
        return _UNKNOWN  # nothing else passes the fence

    def comprehension(self, e, bound, state):
        """The value of a comprehension: a new container holding what its element (a dict's
        key and value) may share, read with each target bound to an item of its iterable,
        as a loop binds it (`{k: np.zeros_like(v) for k, v in params.items()}` holds new arrays)."""
        inner = state.copy()
        for g in e.generators:
            item = self.value(g.iter, inner)
            item = (NOTHING, NOTHING) if dict_keys.iterates_keys(self.dicts, g.iter) else (item[0] | item[1], item[1])
            if dict_keys.items_of_dict(self.dicts, g.iter, g.target):  # `k, v in d.items()`: the key is hashable, no array
                self.bind(g.target.elts[0], None, (NOTHING, NOTHING), inner, self.statement())
                self.bind(g.target.elts[1], None, item, inner, self.statement())
            else:
                self.bind(g.target, None, item, inner, self.statement())
        # a dict's keys are hashable, never arrays: what it holds is what its values share
        parts = [self.value(e.value if isinstance(e, gast.DictComp) else e.elt, inner)]
        held = inner.closure(frozenset().union(*(p[0] | p[1] for p in parts)))
        return NOTHING, frozenset(held - bound - {b + "[]" for b in bound})

    def holds_values(self, e, state):
        """Whether `e` is a list or dict made here (a display, a comprehension, a local name
        that holds local values): then `e + ...`, `e | ...` and `e.copy()` hold what it holds. Anything
        else is taken to be numeric (an argument's `+` and `.copy()` are not followed into)."""
        if isinstance(e, (gast.List, gast.Tuple, gast.ListComp, gast.Dict, gast.DictComp)):
            return True
        if isinstance(e, gast.BinOp):
            return entry_aliases.joins_displays(e)
        return (isinstance(e, gast.Name) and e.id in self.local
                and any(n != OUTSIDE for n in state.neighbours(e.id + "[]")))

    @staticmethod
    def global_value(obj):
        """The value of a global object: immutable ones share nothing."""
        if isinstance(obj, views.IMMUTABLE) or isinstance(obj, (types.ModuleType, types.FunctionType, type)):
            return NOTHING, NOTHING
        return _UNKNOWN

    def call(self, e, state):
        args = [self.value(a, state) for a in _arguments(e)]
        everything = frozenset().union(*(s | c for s, c in args))
        func = e.func
        out = self.value_of_keyword(e, "out", state)
        if out is not None:
            return out
        if isinstance(func, gast.Attribute) and not self.is_module_chain(func):
            receiver = self.value(func.value, state)
            if func.attr in views.VIEW_METHODS or (func.attr == "astype" and not views.copies(e)):
                return receiver
            if func.attr in views.ELEMENT_METHODS:
                return receiver[0] | receiver[1], receiver[1]
            if func.attr == "copy":  # a list's copy holds its entries; an argument's is taken as an array's
                return NOTHING, receiver[1] if self.holds_values(func.value, state) else NOTHING
            if func.attr in views.FRESH_METHODS or func.attr == "astype":
                return NOTHING, NOTHING
            unknown = receiver[0] | receiver[1] | everything | {OUTSIDE}
            return unknown, unknown
        if isinstance(func, gast.Name) and func.id in self.nested:
            if views.returns_fresh(self.nested[func.id]):
                return NOTHING, NOTHING
            unknown = everything | {OUTSIDE}
            return unknown, unknown
        chain = dotted_parts(func)
        local = chain is None or chain[0] in self.local | self.enclosing
        obj = None if local else _lookup(chain, self.program)
        return _call_value(obj, e, args, everything)

    def is_module_chain(self, func):
        chain = dotted_parts(func)
        return chain is not None and chain[0] not in self.local | self.enclosing

    def value_of_keyword(self, e, name, state):
        for k in e.keywords:
            if k.arg == name:
                return self.value(k.value, state)
        return None


def _float_scaling(e):
    """Whether `e` is `a * b` with a float literal for a or b (`0.1 * g`): no list or tuple
    repeats by a float, so the product is a new number or array."""
    if not isinstance(e.op, gast.Mult):
        return False
    operands = [o.operand if isinstance(o, gast.UnaryOp) and isinstance(o.op, (gast.USub, gast.UAdd)) else o
                for o in (e.left, e.right)]
    return any(isinstance(o, gast.Constant) and type(o.value) is float for o in operands)


def _call_value(obj, e, args, everything):
    """The value of a call of the object `obj` (None: unknown) with `args` (their values)."""
    try:
        if obj in views.FIRST_ARGUMENT_VIEWS and e.args and not isinstance(e.args[0], gast.Starred):
            first, contents = args[0]
            return first | contents, contents
        if obj in views.VIEW_FUNCTIONS or (obj in views.MORE_VIEWS and not views.new_result(obj, e)) or (
                obj in views.COPYING_UNLESS_TOLD and not views.copies(e)):
            return everything, frozenset().union(*(c for _, c in args))
        if obj in views.CONTAINER_BUILTINS:
            return NOTHING, everything
        if obj in (max, min, next, getattr):
            return everything, frozenset().union(*(c for _, c in args))
        if obj in views.FRESH_BUILTINS:
            return NOTHING, NOTHING
    except TypeError:  # unhashable
        pass
    module = getattr(obj, "__module__", None) or ""
    if isinstance(getattr(obj, "__self__", None), np.ufunc):  # `add.reduce(x, axis)`: a new array (an `out=` is read above)
        return NOTHING, NOTHING
    if isinstance(obj, np.ufunc) or (module.startswith("numpy") and "stride_tricks" not in module) or (
            getattr(obj, "__self__", None) is math or module == "math"):
        return NOTHING, NOTHING
    if isinstance(obj, types.FunctionType) and views.returns_fresh(views.definition(obj)):
        return NOTHING, NOTHING
    if isinstance(obj, type) and issubclass(obj, views.IMMUTABLE):
        return NOTHING, NOTHING
    unknown = everything | {OUTSIDE}
    return unknown, unknown


def _arguments(call):
    return [a.value if isinstance(a, gast.Starred) else a for a in call.args] + [k.value for k in call.keywords]


def _lookup(parts, program):
    """The object the dotted name `parts` (not a local) means in `program`, or None."""
    value = lookup_path(parts, program)
    return None if value is MISSING else value

