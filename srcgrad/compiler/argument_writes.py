"""Which parameters a user function may change in place, read from its source.

A call of another user function that stays a call (recursive, reading closure variables,
too long to splice: callees.py) is differentiated through that function's own derivative,
which sees the function's values but not the caller's: an argument the callee changes in
place (`a *= k`, `a[0] = v`, `a.append(v)`, `np.add.at(a, i, v)`, `out=a`, or a call
passing `a` on to a function that does) changes the caller's variable behind the caller's
derivative. `parameters(fn)` finds such changes, following names made from a parameter by
copying the reference or taking a view (`b = a`, `row = a[0]`, `for row in a:`,
`a.reshape(...)`) and calls of further user functions. `refuse(...)` turns them into an
error at the call, where the call reads a differentiated value. A change of an object the
function reads by a free name (`self.buf[0] = v` in a method, a global list) is found the
same way, under the key `STATE`: it outlives the call just as well. Nothing here changes
a tree.

It is a may-analysis over names: a change through an object the function reached another
way (an attribute of a parameter held elsewhere) is not seen.
"""

import dataclasses
import inspect
import types

import gast
import numpy as np

from .. import rules
from ..errors import NotDifferentiableError
from . import frontend, printing, traversal
from .call_effects import RECEIVER_CHANGING as _RECEIVER_CHANGING, WRITING_FUNCTIONS as _WRITING_FUNCTIONS
from .scope import MISSING, dotted_parts, first_meaning, lookup_path
from .stand_in import is_user_function, method_function
from .views import VIEW_ATTRIBUTES, VIEW_FUNCTIONS, VIEW_METHODS
from .walk_memo import WalkMemo

_DESCRIPTORS = (types.MethodDescriptorType, types.WrapperDescriptorType)  # a class's method of a type in C


class Write:
    """A statement of `function` that changes (`certain`) or, as `p op= v` on a NumPy
    array or list, may change its parameter's object in place."""

    __slots__ = ("function", "filename", "line", "text", "certain")

    def __init__(self, program, stmt, certain):
        self.function, self.filename, self.line = program.name, program.filename, program.line(stmt)
        self.text, self.certain = program.text(stmt).strip(), certain

    def where(self):
        return f"`{self.text}` ({self.filename}, line {self.line}, in `{self.function}`)"


def parameters(fn, _visiting=()):
    """{parameter name, or STATE: its first Write} of the user function `fn`; {} where its
    source cannot be read (a stand-in's own source is read then: a method's, a partial's).

    Within one outermost call, a function's answer is kept (walk_memo.py): a function
    called along many paths (the pullbacks a derivative of a derivative calls) is read
    once."""
    if fn in _visiting:
        _MEMO.cut()
        return {}  # recursion: its own statements are read where the walk began
    with _MEMO:
        return _MEMO.remembered(id(fn), fn, lambda: _parameters(fn, _visiting))


_MEMO = WalkMemo()


def _parameters(fn, visiting):
    try:
        program = frontend.load(fn)
    except Exception:  # noqa: BLE001 - no source: nothing known, as for any call srcgrad cannot read
        return {}
    tree = program.tree
    walk = _Walk(program, visiting + (fn,))
    roots = _own_roots(tree.args)
    named = [n for n in traversal.walk(tree) if isinstance(n, gast.Name)]
    free = {n.id for n in named if isinstance(n.ctx, gast.Load)} - {n.id for n in named if not isinstance(n.ctx, gast.Load)}
    roots.update({name: {STATE} for name in free if _is_state(first_meaning(name, program))})  # a method's `self`
    walk.block(tree.body, roots)
    return walk.found


def _is_state(value):
    """Whether a free name's value is an object a change of which outlives the call: not a
    module, class or function (nor a name not defined)."""
    return value is not MISSING and not isinstance(
        value, (types.ModuleType, type, types.FunctionType, types.BuiltinFunctionType, types.MethodType, np.ufunc))


STATE = "<state>"  # `parameters`' key of a change of an object the function reads by a free name (`self.buf[0] = v`)


def _own_roots(args):
    """Each parameter of a function's `args` (gast.arguments) holding its own object."""
    every = args.posonlyargs + args.args + args.kwonlyargs + [a for a in (args.vararg, args.kwarg) if a is not None]
    return {a.id: {a.id} for a in every}


class _Walk:
    """One pass over a function's statements in the order they run, knowing at each one
    which names may hold (a view or entry of) which parameter's object: a name bound
    anew to something else no longer does; after a branch, what either side left holds.
    A nested function's statements count where it is defined (it may be called there)."""

    def __init__(self, program, visiting):
        self.program, self.visiting = program, visiting
        self.found = {}
        self.nested = {}  # a nested function's or lambda's name -> (its gast.arguments, its own `found`)

    def block(self, statements, roots):
        """The roots after `statements`, run from `roots` (which it changes)."""
        for s in statements:
            roots = self.statement(s, roots)
        return roots

    def statement(self, s, roots):
        if isinstance(s, gast.If):
            self.expression(s.test, s, roots)
            return _merged(self.block(s.body, dict(roots)), self.block(s.orelse, dict(roots)))
        if isinstance(s, (gast.For, gast.While)):
            head = s.iter if isinstance(s, gast.For) else s.test
            self.expression(head, s, roots)
            entry = roots
            for _ in range(2):  # a second trip sees what the first one bound
                inside = dict(roots)
                if isinstance(s, gast.For):
                    self.bind(s.target, _iterated(s.iter, inside), inside)
                roots = _merged(entry, self.block(s.body, inside))
            return self.block(s.orelse, roots)
        if isinstance(s, gast.With):
            for item in s.items:
                self.expression(item.context_expr, s, roots)
            return self.block(s.body, roots)
        if isinstance(s, (gast.Try, getattr(gast, "TryStar", gast.Try))):
            every = _merged(roots, self.block(s.body, dict(roots)))  # a handler may start anywhere in it
            for handler in s.handlers:
                every = _merged(every, self.block(handler.body, dict(every)))
            return self.block(s.finalbody, self.block(s.orelse, every))
        if isinstance(s, getattr(gast, "Match", ())):
            self.expression(s.subject, s, roots)
            out = dict(roots)
            for case in s.cases:
                inside = dict(roots)
                for n in traversal.walk(case.pattern):  # a captured part of the subject
                    if getattr(n, "name", None):
                        inside[n.name] = _reached(s.subject, roots)
                out = _merged(out, self.block(case.body, inside))
            return out
        if isinstance(s, gast.FunctionDef):
            own = _own_roots(s.args)
            self.block(s.body, {k: v for k, v in roots.items() if k not in own})  # what it reaches of ours
            self.nested[s.name] = (s.args, self.inner(lambda walk: walk.block(s.body, dict(own))))
            roots.pop(s.name, None)
            return roots
        self.expression(s, s, roots)
        if isinstance(s, gast.Delete):
            for t in s.targets:
                if isinstance(t, (gast.Subscript, gast.Attribute)):
                    self.note(_changed(t, roots), s, True)
        if isinstance(s, (gast.Assign, gast.AugAssign, gast.AnnAssign)):
            targets = s.targets if isinstance(s, gast.Assign) else [s.target]
            for target in targets:
                for t in _stored(target):
                    if isinstance(t, (gast.Subscript, gast.Attribute)):
                        self.note(_changed(t, roots), s, True)
                    elif isinstance(s, gast.AugAssign) and isinstance(t, gast.Name):
                        self.note(roots.get(t.id, ()), s, False)  # in place for an array or a list; a number is bound anew
            if isinstance(s, gast.Assign) and isinstance(s.value, gast.Lambda):
                own = _own_roots(s.value.args)
                written = self.inner(lambda walk: walk.expression(s.value.body, s, dict(own)))
                self.nested.update({t.id: (s.value.args, written) for t in s.targets if isinstance(t, gast.Name)})
            if isinstance(s, gast.Assign) or (isinstance(s, gast.AnnAssign) and s.value is not None):
                reached = _reached(s.value, roots)
                for target in targets:
                    self.bind(target, reached, roots)
        return roots

    def bind(self, target, reached, roots):
        for t in _stored(target):
            if isinstance(t, gast.Name):
                if reached:
                    roots[t.id] = reached
                else:
                    roots.pop(t.id, None)

    def inner(self, walk_it):
        """The `found` of `walk_it(walk)` for a new walk of this function's statements
        (a nested function's own parameters)."""
        walk = _Walk(self.program, self.visiting)
        walk_it(walk)
        return walk.found

    def nested_changes(self, call, roots):
        """(parameters, certain) for the arguments a call of a nested function changes."""
        args, written = self.nested[call.func.id]
        params = [a.id for a in args.posonlyargs + args.args]
        passed = dict(zip(params, call.args))
        passed.update({k.arg: k.value for k in call.keywords if k.arg})
        for name, write in written.items():
            if name in passed:
                yield _changed(passed[name], roots), write.certain
            elif args.vararg is not None and name == args.vararg.id:
                yield _union(call.args[len(params):], roots), write.certain

    def note(self, params, s, certain):
        for param in params:
            if param not in self.found:
                self.found[param] = Write(self.program, s, certain)

    def expression(self, node, s, roots):
        """Note the changes of the calls in `node` (of the statement `s`); its walrus
        targets are bound in `roots`, its comprehensions' targets for it alone."""
        nodes = list(traversal.walk(node))
        for n in nodes:
            if isinstance(n, gast.NamedExpr):
                self.bind(n.target, _reached(n.value, roots), roots)
        seen = roots
        for n in nodes:
            if isinstance(n, gast.comprehension):
                seen = dict(seen) if seen is roots else seen
                self.bind(n.target, _iterated(n.iter, seen), seen)
        for call in (n for n in nodes if isinstance(n, gast.Call)):
            if isinstance(call.func, gast.Name) and call.func.id in self.nested:
                changes = self.nested_changes(call, seen)
            else:
                changes = _call_changes(call, seen, self.program, self.visiting)
            for params, certain in changes:
                self.note(params, s, certain)


def _merged(one, other):
    out = dict(one)
    for name, params in other.items():
        out[name] = out.get(name, set()) | params
    return out


def _reached(value, roots):
    """The parameters whose object `value` may be (a name of one, an entry or view of it): a set."""
    while True:
        if isinstance(value, gast.Name):
            return roots.get(value.id, set())
        if isinstance(value, (gast.Subscript, gast.NamedExpr, gast.Starred)):
            value = value.value
        elif isinstance(value, gast.Attribute) and value.attr in VIEW_ATTRIBUTES:
            value = value.value
        elif isinstance(value, gast.Call) and isinstance(value.func, gast.Attribute) and value.func.attr in VIEW_METHODS:
            value = value.func.value
        elif isinstance(value, gast.Call) and value.args and _named(value.func) in _VIEW_NAMES:
            value = value.args[0]
        elif isinstance(value, gast.Call) and _named(value.func) in _ITERATORS:
            return _union(value.args, roots)
        elif isinstance(value, (gast.Tuple, gast.List, gast.Set)):
            return _union(value.elts, roots)
        elif isinstance(value, gast.Dict):
            return _union(value.values, roots)
        elif isinstance(value, gast.IfExp):
            return _union([value.body, value.orelse], roots)
        elif isinstance(value, gast.BoolOp):
            return _union(value.values, roots)
        else:
            return set()


def _union(values, roots):
    return set().union(*(_reached(v, roots) for v in values))


def _iterated(iterable, roots):
    """The parameters whose object (an entry of) may be what iterating `iterable` gives:
    `a`'s rows, and the entries of a new list of `a`'s entries (`list(a)`, `sorted(a)`)."""
    if isinstance(iterable, gast.Call) and _named(iterable.func) in _COPYING_ENTRIES:
        return _union(iterable.args, roots)
    return _reached(iterable, roots)


def _changed(node, roots):
    """The parameters whose object changes where `node` (a store's target, a changing
    method's receiver, a written argument) changes: the object it is part of."""
    while True:
        if isinstance(node, (gast.Subscript, gast.Attribute, gast.Starred, gast.NamedExpr)):
            node = node.value
        elif isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute) and node.func.attr in VIEW_METHODS:
            node = node.func.value
        elif isinstance(node, gast.Call) and node.args and _named(node.func) in _VIEW_NAMES:
            node = node.args[0]
        elif isinstance(node, gast.Name):
            return roots.get(node.id, set())
        else:
            return _reached(node, roots)


_VIEW_NAMES = {f.__name__ for f in VIEW_FUNCTIONS}
_ITERATORS = {"enumerate", "zip", "reversed", "iter", "next", "filter"}  # giving their arguments' entries
_COPYING_ENTRIES = {"list", "tuple", "sorted"} | _ITERATORS  # a new container of the same entries


def _named(func):
    parts = dotted_parts(func)
    return parts[-1] if parts else None


def _stored(target):
    if isinstance(target, (gast.Tuple, gast.List)):
        for element in target.elts:
            yield from _stored(element)
    elif isinstance(target, gast.Starred):
        yield from _stored(target.value)
    else:
        yield target


def _call_changes(call, roots, program, visiting):
    """(parameters, certain) for each object the call changes (a method, `out=`, a
    NumPy function writing into an argument, a user function changing a parameter)."""
    func = call.func
    for k in call.keywords:
        if k.arg == "out":
            yield _changed(k.value, roots), True
    if isinstance(func, gast.Attribute) and func.attr in _RECEIVER_CHANGING:
        yield _changed(func.value, roots), True
    parts = dotted_parts(func)
    if parts is None or not any(_changed(a, roots) for a in call.args + [k.value for k in call.keywords]):
        return
    first = call.args[0] if call.args else None
    if parts[-1] == "shuffle" and first is not None:  # np.random.shuffle(a), rng.shuffle(a), random.shuffle(a)
        yield _changed(first, roots), True
    if roots.get(parts[0], {STATE}) != {STATE} and parts[0] not in program.bound:
        return  # a method of a parameter's object: _RECEIVER_CHANGING above
    obj = lookup_path(parts, program)
    if obj is MISSING:
        return
    if isinstance(obj, _DESCRIPTORS) and obj.__name__ in _RECEIVER_CHANGING and first is not None:
        yield _changed(first, roots), True  # `np.ndarray.sort(a)`, `list.append(a, v)`
    elif obj in _WRITING_FUNCTIONS or (parts[-1] == "at" and isinstance(getattr(obj, "__self__", None), np.ufunc)):
        if first is not None:
            yield _changed(first, roots), True
    elif isinstance(obj, np.ufunc):
        for a in call.args[obj.nin:]:
            yield _changed(a, roots), True
    elif is_user_function(obj) or isinstance(obj, types.MethodType):
        yield from _passed_on(call, obj, roots, visiting)


def _passed_on(call, obj, roots, visiting):
    """(parameters, certain) for the arguments that the user function `obj` changes in place."""
    target = method_function(obj) if isinstance(obj, types.MethodType) else obj
    if target is None or not is_user_function(target):
        return
    written = parameters(target, visiting)
    if not written:
        return
    try:
        bound = inspect.signature(target).bind(*call.args, **{k.arg: k.value for k in call.keywords if k.arg})
    except TypeError:
        return
    for name, write in written.items():
        if name == STATE:
            yield {STATE}, write.certain  # what it changes outlives this call too
        for node in _each_argument(bound.arguments.get(name)):
            yield _changed(node, roots), write.certain


def _each_argument(bound):
    """The argument nodes a parameter is bound to (several for `*args`, `**kwargs`)."""
    if isinstance(bound, (tuple, dict)):
        return list(bound.values() if isinstance(bound, dict) else bound)
    return [bound] if bound is not None else []


def _passed_names(node):
    """The caller's names an argument passes on: itself, or those in a display (`[y]`) or
    bound to a `*args` or `**kwargs` parameter."""
    if isinstance(node, (tuple, dict)):
        return [name for part in _each_argument(node) for name in _passed_names(part)]
    if isinstance(node, gast.Name):
        return [node]
    if isinstance(node, gast.Starred):
        return _passed_names(node.value)
    parts = node.elts if isinstance(node, (gast.Tuple, gast.List, gast.Set)) else node.values if isinstance(node, gast.Dict) else []
    return [name for part in parts for name in _passed_names(part)]


def refuse(statements, program, varied, calls):
    """Raise NotDifferentiableError at a call of a user function (`calls`: resolve's table)
    that passes an argument the function changes in place (`parameters`), where one of
    the call's arguments is differentiated (in `varied`)."""
    seen = {}
    for s in statements:
        value = getattr(s, "value", None)
        if not isinstance(s, (gast.Assign, gast.Expr)) or not isinstance(value, gast.Call):
            continue
        callee = calls.get(value)
        if callee is None or callee.kind != "function" or not is_user_function(callee.obj):
            continue
        if rules.lookup(callee.obj) is not None or rules.is_nondifferentiable(callee.obj):
            continue
        if callee.obj is dataclasses.replace:
            continue  # a new record made from another (record_calls.replacement), which it leaves alone
        if not varied.intersection(traversal.add_loads(value, set())):
            continue
        fn = callee.obj
        refused = frontend.derivative_refusal(fn)  # srcgrad's own transforms: no source to analyse
        if refused is not None:
            raise program.error(s, f"{refused} (in `{program.name}`)", NotDifferentiableError)
        written = seen.get(id(fn))
        if written is None:
            written = seen[id(fn)] = parameters(fn)
        if not written:
            continue
        try:
            bound = inspect.signature(fn).bind(*value.args, **{k.arg: k.value for k in value.keywords if k.arg})
        except TypeError:
            continue  # the call's own error comes later
        spelled = program.text(s).strip() or printing.unparse(s).strip()
        if STATE in written:
            raise program.error(
                s, f"`{spelled}` calls `{fn.__name__}`, which changes an object it does not make: "
                f"{written[STATE].where()}. srcgrad differentiates this call through `{fn.__name__}`'s own "
                f"derivative, which cannot see that change (in `{program.name}`); return the new value instead "
                "and assign it", NotDifferentiableError,
            )
        for name, write in written.items():
            passed = _passed_names(bound.arguments.get(name))
            if not passed:
                continue
            node = passed[0]
            how = "changes it in place" if write.certain else "changes it in place where it is an array or a list"
            raise program.error(
                s, f"`{spelled}` passes `{node.id}` to `{fn.__name__}`, which {how}: "
                f"{write.where()}. srcgrad differentiates this call through `{fn.__name__}`'s own derivative, "
                f"which cannot see a change of the caller's `{node.id}` (in `{program.name}`); copy it inside "
                f"`{fn.__name__}` first (`{name} = {name}.copy()`), or return the new value and assign it "
                f"(`{node.id} = {fn.__name__}(...)`)", NotDifferentiableError,
            )
