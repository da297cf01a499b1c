"""Which parameters a user function may change in place, read from its source.

A call of another user function that stays a call (recursive, reading closure variables,
too long to splice: callees.py) is differentiated through that function's own derivative,
which sees the function's values but not the caller's: an argument the callee changes in
place (`a *= k`, `a[0] = v`, `a.append(v)`, `np.add.at(a, i, v)`, `out=a`, or a call
passing `a` on to a function that does) changes the caller's variable behind the caller's
derivative. `parameters(fn)` finds such changes, following names made from a parameter by
copying the reference or taking a view (`b = a`, `row = a[0]`, `for row in a:`,
`a.reshape(...)`) and calls of further user functions. `refuse(...)` turns them into an
error at the call, where the call reads a differentiated value. Nothing here changes a tree.

It is a may-analysis over names: a change through an object the function reached another
way (an attribute of a parameter held elsewhere) is not seen.
"""

import inspect
import types

import gast
import numpy as np

from .. import rules
from ..errors import NotDifferentiableError
from . import frontend, printing, syntax
from .scope import MISSING, dotted_parts, lookup_path
from .stand_in import is_user_function, method_function
from .views import VIEW_FUNCTIONS, VIEW_METHODS

# methods that change their receiver (a list, dict, set or NumPy array)
CHANGING_METHODS = {
    "append", "extend", "insert", "pop", "remove", "clear", "sort", "reverse", "update", "setdefault", "popitem",
    "add", "discard", "fill", "resize", "put", "partition", "setfield", "setflags", "itemset", "byteswap",
    "__setitem__", "__delitem__", "__iadd__", "__isub__", "__imul__", "__itruediv__",
}
# NumPy functions writing into their first argument
_WRITING_FUNCTIONS = {getattr(np, f) for f in ("copyto", "put", "place", "putmask", "fill_diagonal", "put_along_axis")
                      if hasattr(np, f)}
_VIEW_ATTRIBUTES = {"T", "mT", "real", "imag", "flat"}


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
    """{parameter name: its first Write} of the user function `fn`; {} where its source
    cannot be read (a stand-in's own source is read then: a method's, a partial's)."""
    if fn in _visiting:
        return {}  # recursion: its own statements are read where the walk began
    try:
        program = frontend.load(fn)
    except Exception:  # noqa: BLE001 - no source: nothing known, as for any call srcgrad cannot read
        return {}
    tree = program.tree
    walk = _Walk(program, _visiting + (fn,))
    walk.block(tree.body, {a.id: {a.id} for a in tree.args.posonlyargs + tree.args.args + tree.args.kwonlyargs})
    return walk.found


class _Walk:
    """One pass over a function's statements in the order they run, knowing at each one
    which names may hold (a view or entry of) which parameter's object: a name bound
    anew to something else no longer does; after a branch, what either side left holds."""

    def __init__(self, program, visiting):
        self.program, self.visiting = program, visiting
        self.found = {}

    def block(self, statements, roots):
        """The roots after `statements`, run from `roots` (which it changes)."""
        for s in statements:
            roots = self.statement(s, roots)
        return roots

    def statement(self, s, roots):
        if isinstance(s, gast.If):
            self.calls(s.test, s, roots)
            return _merged(self.block(s.body, dict(roots)), self.block(s.orelse, dict(roots)))
        if isinstance(s, (gast.For, gast.While)):
            head = s.iter if isinstance(s, gast.For) else s.test
            self.calls(head, s, roots)
            entry = roots
            for _ in range(2):  # a second trip sees what the first one bound
                inside = dict(roots)
                if isinstance(s, gast.For):
                    self.bind(s.target, _reached(s.iter, inside), inside)
                roots = _merged(entry, self.block(s.body, inside))
            return self.block(s.orelse, roots)
        if isinstance(s, gast.FunctionDef):
            return roots
        self.calls(s, s, roots)
        if isinstance(s, (gast.Assign, gast.AugAssign, gast.AnnAssign)):
            targets = s.targets if isinstance(s, gast.Assign) else [s.target]
            for target in targets:
                for t in _stored(target):
                    if isinstance(t, (gast.Subscript, gast.Attribute)):
                        self.note(_base(t), roots, s, True)
                    elif isinstance(s, gast.AugAssign) and isinstance(t, gast.Name):
                        self.note(t.id, roots, s, False)  # in place for an array or a list; a number is bound anew
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

    def note(self, name, roots, s, certain):
        for param in roots.get(name, ()):
            if param not in self.found:
                self.found[param] = Write(self.program, s, certain)

    def calls(self, node, s, roots):
        for call in (n for n in syntax.walk(node) if isinstance(n, gast.Call)):
            for name, certain in _call_changes(call, roots, self.program, self.visiting):
                self.note(name, roots, s, certain)


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
        if isinstance(value, gast.Subscript):
            value = value.value
        elif isinstance(value, gast.Attribute) and value.attr in _VIEW_ATTRIBUTES:
            value = value.value
        elif isinstance(value, gast.Call) and isinstance(value.func, gast.Attribute) and value.func.attr in VIEW_METHODS:
            value = value.func.value
        elif isinstance(value, gast.Call) and value.args and _named(value.func) in _VIEW_NAMES:
            value = value.args[0]
        elif isinstance(value, (gast.Tuple, gast.List)):
            return set().union(*(_reached(e, roots) for e in value.elts))
        else:
            return set()


_VIEW_NAMES = {f.__name__ for f in VIEW_FUNCTIONS}


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


def _base(node):
    while isinstance(node, (gast.Subscript, gast.Attribute, gast.Starred)):
        node = node.value
    return node.id if isinstance(node, gast.Name) else None


def _call_changes(call, roots, program, visiting):
    """(name, certain) for each name whose object the call changes (a method, `out=`, a
    NumPy function writing into an argument, a user function changing a parameter)."""
    func = call.func
    for k in call.keywords:
        if k.arg == "out":
            yield from _names_in(k.value)
    if isinstance(func, gast.Attribute) and _reached(func.value, roots) and func.attr in CHANGING_METHODS:
        yield _base(func.value), True
    parts = dotted_parts(func)
    if parts is None or not any(_reached(a, roots) for a in call.args):
        return
    if parts[0] in roots and parts[0] not in program.bound:
        return  # a method of a parameter's object: CHANGING_METHODS above
    obj = lookup_path(parts, program)
    if obj is MISSING:
        return
    first = call.args[0]
    if obj in _WRITING_FUNCTIONS or (parts[-1] == "at" and isinstance(getattr(obj, "__self__", None), np.ufunc)):
        yield _base(first), True
    elif isinstance(obj, np.ufunc):
        for a in call.args[obj.nin:]:
            yield from _names_in(a)
    elif is_user_function(obj) or isinstance(obj, types.MethodType):
        yield from _passed_on(call, obj, visiting)


def _passed_on(call, obj, visiting):
    """The names of the arguments that the user function `obj` changes in place."""
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
        node = bound.arguments.get(name)
        if isinstance(node, gast.AST) and _base(node) is not None:
            yield _base(node), write.certain


def _names_in(node):
    base = _base(node)
    return [(base, True)] if base is not None else []


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
        if not varied.intersection(syntax.add_loads(value, set())):
            continue
        fn = callee.obj
        written = seen.get(id(fn))
        if written is None:
            written = seen[id(fn)] = parameters(fn)
        if not written:
            continue
        try:
            bound = inspect.signature(fn).bind(*value.args, **{k.arg: k.value for k in value.keywords if k.arg})
        except TypeError:
            continue  # the call's own error comes later
        for name, write in written.items():
            node = bound.arguments.get(name)
            if not isinstance(node, gast.Name):
                continue
            how = "changes it in place" if write.certain else "changes it in place where it is an array or a list"
            spelled = program.text(s).strip() or printing.unparse(s).strip()
            raise program.error(
                s, f"`{spelled}` passes `{node.id}` to `{fn.__name__}`, which {how}: "
                f"{write.where()}. srcgrad differentiates this call through `{fn.__name__}`'s own derivative, "
                f"which cannot see a change of the caller's `{node.id}` (in `{program.name}`); copy it inside "
                f"`{fn.__name__}` first (`{name} = {name}.copy()`), or return the new value and assign it "
                f"(`{node.id} = {fn.__name__}(...)`)", NotDifferentiableError,
            )
