"""Objects whose class is known where they are used: a parameter bound to a `RecordOf`
(record_methods.py; one the function assigns too, where every assignment makes an
object of its class: `s = s.step(dt)`), a local every assignment of which makes an
object of one class (`u = V2(x, y)`, `w = u + v` where `V2.__add__` returns a
`V2(...)`, `p` of `for p in ps` over a list display of such objects read only by
entry), or an expression computing one. What such an object does is the code its
class defines, so it is followed as calls of the class's functions
(record_methods.method_call):

    u = V2(x, 2.0 * x)         u is a V2 (a call of the class)
    w = u + u                  w = V2___add__(u, u)          (w is a V2: `__add__` returns `V2(...)`)
    s = -w                     s = V2___neg__(w)
    r = 3.0 * w                r = V2___rmul__(w, 3.0)       (the left operand defines no `__mul__`)
    w += u                     w = V2___add__(w, u)          (no `__iadd__`)
    n = w.length               n = V2_length(w)              (a property: its getter)
    m = (u + w).norm()         v2 = V2___add__(u, w)         (an object handed on is named first,
                               m = V2_norm(v2)                so the function called knows its class)

and the locals join `Program.records`, so record_methods.run rewrites their method
calls (also those named as an array's, `u.dot(v)`, which their class defines) and
`u(x)` as it does a parameter's, and a function of the user's they are passed to
(`helper(u)`) gets its parameter bound to their class (bound_calls.py).

Without this, an operator on a record ran the rules of numbers on it: `(p + p).b` of a
`__add__` returning `P(a + o.a, b * o.b)` had the gradient of `b + b`
(operand_checks.py refuses such an operator where the class is not known).

Invariants: a local is known only where every binding of its name in the function is
an assignment to it alone (`u = ...`, `u op= ...`, a loop over a list of known objects)
at the function's own level, never in a nested scope, each making an object of the
same class; a class is known for a call of it only where calling it makes an instance
of it (no `__new__` of its own but a namedtuple's, a plain `type` metaclass); a
function's result class is known only where each of its `return`s returns such a call
(or `type(self)(...)`, `cls(...)`). An operator is rewritten only where the class of
the operand whose method Python calls is known and defines it with a plain `def`: a
dunder that may return `NotImplemented`, an in-place one (`__iadd__`), and a
subclass's reflected method Python would call first are refused at the operator's
line. No call of a class's function is handed an object of a known class that is not
a name (in a lambda, a comprehension, beside `and` or an `if`-expression: refused), and
a class's function calling an array-named method of its class on an unbound first
parameter is refused (record_methods.check_unbound_receiver). Comparisons are left as
they are (their results have no derivative).
"""

import ast
import types

import gast

from ..errors import NotDifferentiableError, SrcGradError
from ..runtime.records import is_record_class
from . import frontend, record_methods, scope, stand_in, syntax, traversal
from .traversal import own_nodes
from .naming import Namer
from .record_methods import RecordOf, defined, method_call

BINARY = {
    gast.Add: ("__add__", "__radd__", "__iadd__"), gast.Sub: ("__sub__", "__rsub__", "__isub__"),
    gast.Mult: ("__mul__", "__rmul__", "__imul__"), gast.Div: ("__truediv__", "__rtruediv__", "__itruediv__"),
    gast.FloorDiv: ("__floordiv__", "__rfloordiv__", "__ifloordiv__"), gast.Mod: ("__mod__", "__rmod__", "__imod__"),
    gast.Pow: ("__pow__", "__rpow__", "__ipow__"), gast.MatMult: ("__matmul__", "__rmatmul__", "__imatmul__"),
}
UNARY = {gast.USub: "__neg__", gast.UAdd: "__pos__", gast.Invert: "__invert__"}


def constructs(cls):
    """Whether calling `cls` makes an instance of exactly `cls`: a class of the user's
    code (or a record class) with a plain `type` metaclass and no `__new__` of its own
    (a namedtuple's generated one aside)."""
    if not isinstance(cls, type) or type(cls) is not type or cls.__module__ == "builtins":
        return False
    if not (is_record_class(cls) or stand_in._user_module(cls.__module__)):
        return False
    new = defined(cls, "__new__")[0]
    return new in (None, object) or "_fields" in vars(new)  # a namedtuple's class, whose `__new__` it generated


class _Classes:
    """The class of each expression of `program`'s function that is known (module
    docstring), from its records and the locals found known."""

    def __init__(self, program, lists=None):
        self.program = program
        self.names = {name: bound.cls for name, bound in program.records.items() if isinstance(bound, RecordOf)}
        self.lists = {} if lists is None else lists  # a list only read by entry, each entry of one class -> it
        self._results = {}
        self.made = {}  # id of a call `rewrite` made -> the class of what it computes
        self.hidden = frozenset()  # names a nested scope being read rebinds (`lambda p: p + 1.0`)

    def of(self, node):
        """The class of the object `node` computes, or None where it is not known."""
        kind = type(node)
        if id(node) in self.made:
            return self.made[id(node)]
        if kind is gast.Name:
            return None if node.id in self.hidden else self.names.get(node.id)
        if kind is gast.Call:
            return self._of_call(node)
        if kind is gast.BinOp:
            found = self.operator(node.left, node.op, node.right)
            return None if found is None else self.result(found[1], found[0])
        if kind is gast.UnaryOp and type(node.op) in UNARY:
            cls = self.of(node.operand)
            func = function_of(cls, UNARY[type(node.op)]) if cls is not None else None
            return None if func is None else self.result(func, cls)
        if kind is gast.Attribute and type(node.ctx) is gast.Load:
            cls = self.of(node.value)
            getter = _property(cls, node.attr) if cls is not None else None
            return None if getter is None else self.result(getter, cls)
        if kind is gast.IfExp:
            body, orelse = self.of(node.body), self.of(node.orelse)
            return body if body is orelse else None
        if (kind is gast.Subscript and type(node.value) is gast.Name and node.value.id in self.lists
                and node.value.id not in self.hidden and type(node.slice) is not gast.Slice):
            return self.lists[node.value.id]
        return None

    def _of_call(self, node):
        func = node.func
        if type(func) is gast.Name and func.id in self.names:  # `m(x)`: its class's `__call__`
            cls = self.names[func.id]
            called = function_of(cls, "__call__")
            return None if called is None else self.result(called, cls)
        if type(func) is gast.Attribute:
            cls = self.of(func.value)
            if cls is not None:  # a method of a known object
                owner, found = defined(cls, func.attr)
                if isinstance(found, staticmethod):
                    found = found.__func__
                return self.result(found, cls) if isinstance(found, types.FunctionType) and owner is not object else None
        parts = scope.dotted_parts(func)
        if parts is None or (parts[0] not in self.program.globals and parts[0] not in self.program.bound
                             and not _free(parts[0], self.program)):
            return None
        value = scope.lookup_path(parts, self.program)
        if constructs(value):
            return value
        if isinstance(value, types.MethodType) and isinstance(value.__self__, type):  # `V2.polar(r, t)`: a classmethod
            return self.result(value.__func__, value.__self__)
        if isinstance(value, types.FunctionType) and stand_in._user_module(value.__module__):  # `make(x)` of the user's
            return self.result(value, None)
        return None

    def operator(self, left, op, right):
        """(the class, its function) that Python calls for `left op right` where known and
        followed; None where neither operand's class defines the operator."""
        names = BINARY.get(type(op))
        if names is None:
            return None
        lcls, rcls = self.of(left), self.of(right)
        if lcls is not None:
            func = function_of(lcls, names[0])
            if func is not None:
                return lcls, func, False
        if rcls is not None:
            func = function_of(rcls, names[1])
            if func is not None:
                return rcls, func, True
        return None

    def result(self, func, receiver):
        """The class of what `func` returns, called with an object of `receiver` (or, a
        classmethod, the class itself) first; None where not known."""
        key = (func, receiver)
        if key not in self._results:
            self._results[key] = None  # a recursive method: not known
            self._results[key] = _result(func, receiver)
        return self._results[key]


def _free(name, program):
    """Whether `name` is read from outside the function (a closure cell)."""
    code = getattr(program.fn, "__code__", None)
    return code is not None and name in code.co_freevars


def _result(func, receiver):
    """The class each `return` of `func` makes an instance of (`C(...)` of a class that
    `constructs`, `type(self)(...)`, `self.__class__(...)`, `cls(...)`), else None."""
    try:
        method = frontend.load(func)
    except (SrcGradError, OSError, TypeError):
        return None
    args = method.tree.args.posonlyargs + method.tree.args.args
    first = args[0].id if args else None
    found = set()
    for node in own_nodes(method.tree.body):
        if type(node) is not gast.Return:
            continue
        value = node.value
        if type(value) is not gast.Call:
            return None
        func_node = value.func
        if type(func_node) is gast.Name and func_node.id == first:
            found.add(receiver if isinstance(receiver, type) else None)  # `cls(...)` of a classmethod
        elif (type(func_node) is gast.Call and type(func_node.func) is gast.Name and func_node.func.id == "type"
              and len(func_node.args) == 1 and type(func_node.args[0]) is gast.Name and func_node.args[0].id == first) or (
                type(func_node) is gast.Attribute and func_node.attr == "__class__" and type(func_node.value) is gast.Name
                and func_node.value.id == first):
            found.add(receiver)
        else:
            parts = scope.dotted_parts(func_node)
            value = scope.lookup_path(parts, method) if parts is not None else None
            found.add(value if constructs(value) else None)
    kind = found.pop() if len(found) == 1 else None
    return kind


def function_of(cls, name):
    """The plain function `cls` defines as `name` (along its MRO, not `object`'s), or None."""
    owner, found = defined(cls, name)
    return found if isinstance(found, types.FunctionType) and owner not in (None, object, tuple) else None


def _property(cls, name):
    """The getter of the property `name` of `cls` where it is a plain function, else None."""
    found = defined(cls, name)[1]
    return found.fget if isinstance(found, property) and isinstance(found.fget, types.FunctionType) else None


def known_locals(program):
    """{name: class} of the locals of `program`'s function every binding of which makes an
    object of one known class (module docstring), found to a fixed point: a name's own
    earlier value may make the next (`p = p.step(dt)` in a loop)."""
    tree = program.tree
    bindings, other = {}, set()
    own = set()
    for node in own_nodes(tree.body):
        if type(node) is gast.Assign and len(node.targets) == 1 and type(node.targets[0]) is gast.Name:
            bindings.setdefault(node.targets[0].id, []).append(node)
            own.add(id(node.targets[0]))
        elif type(node) is gast.For and type(node.target) is gast.Name and type(node.iter) is gast.Name:
            bindings.setdefault(node.target.id, []).append(node)  # an entry of a list of known objects
            own.add(id(node.target))
        elif type(node) is gast.AugAssign and type(node.target) is gast.Name:
            bindings.setdefault(node.target.id, []).append(node)
            own.add(id(node.target))
        elif isinstance(node, (gast.Global, gast.Nonlocal)):
            other.update(node.names)
    params = {a.id for a in tree.args.posonlyargs + tree.args.args + tree.args.kwonlyargs}
    own.update(id(a) for a in tree.args.posonlyargs + tree.args.args + tree.args.kwonlyargs)  # bound by the call
    for node in gast.walk(tree):
        if type(node) is gast.Name and type(node.ctx) is not gast.Load and id(node) not in own:
            other.add(node.id)
    given = {name: bound.cls for name, bound in program.assigned_records.items() if isinstance(bound, RecordOf)}
    candidates = {name: nodes for name, nodes in bindings.items()
                  if name not in other and (name not in params or name in given) and name not in program.records}
    lists = _entries_read(tree, {n: b for n, b in candidates.items() if n not in given},
                          _srcgrad_helpers(program) if program.generated else frozenset())
    classes = _Classes(program, {})
    classes.names.update((name, cls) for name, cls in given.items() if name in candidates)  # the call's class

    def made(node):
        if type(node) is gast.For:
            return classes.lists.get(node.iter.id)
        if type(node) is gast.Assign:
            return classes.of(node.value)
        found = classes.operator(node.target, node.op, node.value)
        return None if found is None else classes.result(found[1], found[0])

    def element(name):  # the class of each entry of the list display `name` is bound to, or None
        kinds = {classes.of(e) for e in lists[name].elts}
        return kinds.pop() if len(kinds) == 1 else None

    # optimistic: a name is taken as the class some binding makes, then dropped until each binding agrees
    changed = True
    while changed:
        changed = False
        for name in lists:
            if name not in classes.lists and element(name) is not None:
                classes.lists[name] = element(name)
                changed = True
        for name, nodes in candidates.items():
            if name in classes.names:
                continue
            kinds = {made(n) for n in nodes} - {None}
            if len(kinds) == 1:
                classes.names[name] = kinds.pop()
                changed = True
    changed = True
    while changed:
        changed = False
        for name in list(classes.lists):
            if element(name) is not classes.lists[name]:
                del classes.lists[name]
                classes._results.clear()
                changed = True
        for name in list(classes.names):
            if name in candidates and (any(made(n) is not classes.names[name] for n in candidates[name])
                                       or classes.names[name] is not given.get(name, classes.names[name])):
                del classes.names[name]
                classes._results.clear()
                changed = True
    return {name: cls for name, cls in classes.names.items() if name in candidates}, dict(classes.lists)


def _srcgrad_helpers(program):
    """The names a derivative srcgrad generated reads srcgrad's own helpers by
    (`getitem_vjp`, `zeros_like_grad`): they read a list's entries, and replace none."""
    def value(cell):
        try:
            return cell.cell_contents
        except ValueError:
            return None

    held = {**program.globals, **program.bound, **{name: value(cell) for name, cell in program.cells.items()}}
    return frozenset(name for name, v in held.items() if (getattr(v, "__module__", None) or "").startswith("srcgrad."))


def _entries_read(tree, candidates, helpers=frozenset()):
    """{name: the list or tuple display it is bound to} of the names of `candidates`
    bound once, to a display without `*`, and read only by entry: a loop over it, `xs[i]`
    (not a slice), `len(xs)` (in a derivative srcgrad generated, also srcgrad's
    `helpers`). Its entries are then the objects the display makes."""
    displays = {name: nodes[0].value for name, nodes in candidates.items()
                if len(nodes) == 1 and type(nodes[0]) is gast.Assign and type(nodes[0].value) in (gast.List, gast.Tuple)
                and nodes[0].value.elts and not any(type(e) is gast.Starred for e in nodes[0].value.elts)}
    if not displays:
        return {}
    for node in gast.walk(tree):
        for field, value in gast.iter_fields(node):
            for child in value if isinstance(value, list) else [value]:
                if type(child) is not gast.Name or child.id not in displays or type(child.ctx) is not gast.Load:
                    continue
                by_entry = ((type(node) is gast.For and field == "iter")
                            or (type(node) is gast.Subscript and field == "value" and type(node.ctx) is gast.Load
                                and type(node.slice) is not gast.Slice)
                            or (type(node) is gast.Call and field == "args" and type(node.func) is gast.Name
                                and (node.func.id == "len" or node.func.id in helpers)))
                if not by_entry:
                    displays.pop(child.id)
    return displays


def rewrite(program, tree, helper, lists=None):
    """`tree` with each operator, property read and method call of an object whose class
    is known (`program.records`, which holds the known locals by now) made a call of the
    function its class defines (module docstring); `helper(func, owner)` names the
    function. Returns the statements rewritten."""
    classes = _Classes(program, lists)
    called = {id(n.func) for n in gast.walk(tree) if type(n) is gast.Call}  # `b.energy()`: record_methods refuses it

    def text(node):
        return ast.unparse(gast.gast_to_ast(node)) if hasattr(ast, "unparse") else "the object"

    def followed(node, receiver, cls, name, args):
        func = function_of(cls, name)
        if func is not None and _returns_not_implemented(func):
            raise program.error(
                node, f"`{program.name}` computes `{text(node)}`, where `{text(receiver)}` holds a {cls.__qualname__} "
                f"whose `{name}` may return NotImplemented: srcgrad calls the operator's method of a known class "
                "directly, so Python's fall back to the other operand's method is not made; write the method "
                "without returning NotImplemented", NotDifferentiableError,
            )
        call = syntax.located(syntax.call(syntax.attr(receiver, name), args), node)
        return method_call(program, call, text(receiver), name, RecordOf(cls, is_record_class(cls)), helper,
                           receiver=receiver)

    def visit(node):
        known = classes.of(node) if isinstance(node, gast.expr) else None
        made = _visit(node)
        if known is not None:
            classes.made[id(made)] = known
        return made

    def _visit(node):
        outer = classes.hidden
        if isinstance(node, (gast.FunctionDef, gast.Lambda)):
            args = node.args
            classes.hidden = outer | {a.id for a in args.posonlyargs + args.args + args.kwonlyargs} | {
                a.id for a in (args.vararg, args.kwarg) if a is not None} | {
                n.id for n in gast.walk(node) if type(n) is gast.Name and type(n.ctx) is not gast.Load}
        elif isinstance(node, (gast.ListComp, gast.SetComp, gast.DictComp, gast.GeneratorExp)):
            classes.hidden = outer | {n.id for g in node.generators for n in gast.walk(g.target) if type(n) is gast.Name}
        for field, value in gast.iter_fields(node):
            if isinstance(value, list):
                setattr(node, field, [visit(v) if isinstance(v, gast.AST) else v for v in value])
            elif isinstance(value, gast.AST):
                setattr(node, field, visit(value))
        classes.hidden = outer
        kind = type(node)
        if isinstance(node, (gast.FunctionDef, gast.Lambda, gast.ClassDef)):
            return node
        if kind is gast.BinOp:
            return _binary(node, node.left, node.op, node.right)
        if kind is gast.AugAssign and type(node.target) is gast.Name and node.target.id in classes.names:
            cls = classes.names[node.target.id]
            in_place = BINARY.get(type(node.op), (None, None, None))[2]
            if in_place is not None and function_of(cls, in_place) is not None:
                raise program.error(
                    node, f"`{program.name}` computes `{text(node)}`, where `{node.target.id}` holds a {cls.__qualname__} "
                    f"whose class defines `{in_place}`, changing the object in place: srcgrad follows an object's "
                    f"methods that leave it as it is; write `{node.target.id} = {node.target.id} "
                    f"{text(syntax.binop(syntax.name('a'), node.op, syntax.name('b')))[2:-2]} ...`", NotDifferentiableError,
                )
            made = _binary(node, syntax.name(node.target.id), node.op, node.value)
            if made is None:
                return node
            return syntax.located(syntax.assign(syntax.name(node.target.id, store=True), made), node)
        if kind is gast.UnaryOp and type(node.op) in UNARY:
            cls = classes.of(node.operand)
            if cls is not None and function_of(cls, UNARY[type(node.op)]) is not None:
                return followed(node, node.operand, cls, UNARY[type(node.op)], [])
            return node
        if kind is gast.Attribute and type(node.ctx) is gast.Load and id(node) not in called:
            cls = classes.of(node.value)
            if cls is not None and _property(cls, node.attr) is not None:
                getter = _property(cls, node.attr)
                scope.note_class_attribute(cls, node.attr, defined(cls, node.attr)[1])
                return syntax.located(syntax.call(syntax.name(helper(getter, cls)), [node.value]), node)
            return node
        if kind is gast.Call and type(node.func) is gast.Attribute and type(node.func.value) is not gast.Name:
            cls = classes.of(node.func.value)
            if cls is not None and (record_methods.is_method_name(node.func.attr)
                                    or record_methods.defines_method(cls, node.func.attr)):  # not `_replace`: read later
                return method_call(program, node, text(node.func.value), node.func.attr,
                                   RecordOf(cls, is_record_class(cls)), helper, receiver=node.func.value)
        return node

    def _binary(node, left, op, right):
        found = classes.operator(left, op, right)
        if found is None:
            return node if type(node) is gast.BinOp else None
        cls, func, reflected = found
        names = BINARY[type(op)]
        if not reflected:
            other = classes.of(right)
            if other is not None and other is not cls and issubclass(other, cls) and function_of(other, names[1]) not in (
                    None, function_of(cls, names[1])):
                raise program.error(
                    node, f"`{program.name}` computes `{text(node)}`, where the right operand holds a {other.__qualname__}, "
                    f"a subclass of {cls.__qualname__} with its own `{names[1]}`, which Python calls first: srcgrad does "
                    f"not follow that order; call the method you mean (`{text(right)}.{names[1]}(...)`)",
                    NotDifferentiableError,
                )
            return followed(node, left, cls, names[0], [right])
        return followed(node, right, cls, names[1], [left])

    body = _named(program, tree, [visit(stmt) for stmt in tree.body], classes)
    _check_named(program, body, classes, set(helper.names.values()))
    return body


def _check_named(program, body, classes, helpers):
    """Refuse a call of a class's function (`helpers`) handed an object of a known class
    that `_named` could not compute into a name (in a lambda, a comprehension, a nested
    `def`, beside an `and` or an `if`-expression): the function called would not know
    its parameter's class, and would read its operators as numbers'."""
    for stmt in body:
        for node in gast.walk(stmt):
            if type(node) is gast.Call and type(node.func) is gast.Name and node.func.id in helpers:
                for arg in node.args + [k.value for k in node.keywords]:
                    cls = classes.of(arg) if type(arg) is not gast.Name else None
                    if cls is not None:
                        raise program.error(
                            arg if getattr(arg, "lineno", None) else node,
                            f"`{program.name}` hands an object of {cls.__qualname__} computed in place to one of its "
                            f"methods (or operators) where srcgrad cannot name it first (in a lambda, a comprehension, "
                            f"a nested function, or beside `and`, `or` or an `if`-expression): assign it to a name "
                            f"of its own in a statement before", NotDifferentiableError,
                        )


_UNORDERED = (gast.BoolOp, gast.IfExp, gast.Lambda, gast.ListComp, gast.SetComp, gast.DictComp, gast.GeneratorExp,
              gast.NamedExpr, gast.Yield, gast.YieldFrom, gast.Await)


def _named(program, tree, body, classes):
    """`body` with each argument of a call that computes an object of a known class but
    is not a name (`helper(V2(x, y))`, `V2_norm(V2___add__(u, v))`) computed first into
    a name of its own, which joins `program.records`: the function called gets its
    parameter bound to the class (bound_calls.py), so what it does with the object is
    followed too. Only in a statement computing its parts once and in order (no `and`,
    `if`-expression, lambda or comprehension), and not in a loop's or a branch's test."""
    namer = Namer.for_tree(tree)
    namer.taken |= set(program.globals) | set(program.bound)

    def hoist(node, out):
        if type(node) is gast.Call:
            node.args = [arg(a, out) for a in node.args]
            for k in node.keywords:
                k.value = arg(k.value, out)
        elif isinstance(node, gast.AST) and not isinstance(node, _UNORDERED):
            for field, value in gast.iter_fields(node):
                if isinstance(value, list):
                    for v in value:
                        if isinstance(v, gast.expr):
                            hoist(v, out)
                elif isinstance(value, gast.expr):
                    hoist(value, out)
        return node

    def arg(node, out):
        if type(node) is gast.Starred:
            return node
        hoist(node, out)
        cls = classes.of(node)
        if cls is None or type(node) is gast.Name:
            return node
        name = namer.fresh(cls.__name__.lower())
        program.records[name] = RecordOf(cls, is_record_class(cls))
        classes.names[name] = cls
        out.append(syntax.located(syntax.assign(syntax.name(name, store=True), node), node))
        return syntax.name(name)

    def block(statements):
        result = []
        for stmt in statements:
            for field in ("body", "orelse", "finalbody"):
                if isinstance(getattr(stmt, field, None), list) and not isinstance(stmt, (gast.FunctionDef, gast.ClassDef)):
                    setattr(stmt, field, block(getattr(stmt, field)))
            if hasattr(stmt, "handlers"):
                for handler in stmt.handlers:
                    handler.body = block(handler.body)
            out = []
            if isinstance(stmt, (gast.Assign, gast.Return, gast.Expr)) and stmt.value is not None and not any(
                    isinstance(n, _UNORDERED) for n in gast.walk(stmt)):
                hoist(stmt.value, out)
            result.extend(out)
            result.append(stmt)
        return result

    return block(body)


def _returns_not_implemented(func):
    """Whether the source of `func` reads `NotImplemented`."""
    try:
        method = frontend.load(func)
    except (SrcGradError, OSError, TypeError):
        return False
    return any(type(n) is gast.Name and n.id == "NotImplemented" for n in gast.walk(method.tree))


def run(program):
    """`program.tree` with the known locals joined to `program.records` and what objects
    of known classes do made calls of their classes' functions (`rewrite`), then each
    method call of a record rewritten by record_methods.run. Returns a new tree."""
    record_methods.check_unbound_receiver(program)
    if not program.records and not _may_make_objects(program.fn, program, set()):
        return record_methods.run(program)
    names, lists = known_locals(program)
    for name, cls in names.items():
        program.records[name] = RecordOf(cls, is_record_class(cls))
    if not program.records and not _reads_classes(program):
        return record_methods.run(program)
    tree = syntax.copy(program.tree)
    helper = record_methods.helper_namer(program, tree)
    tree.body = rewrite(program, tree, helper, lists)
    return record_methods.run(program, tree, helper)


def _may_make_objects(fn, program, visited):
    """Whether the function of `program` (or a function of the user's it calls, at any
    depth) calls a class of the user's (or a method of one: a classmethod constructor),
    so that a local may hold an object of a class srcgrad follows; False lets `run` skip
    its analysis (numeric code calls NumPy and functions of numbers only)."""
    visited.add(fn)
    for node in traversal.inner_nodes(program.tree):  # gast.walk's order of the calls
        if type(node) is not gast.Call:
            continue
        parts = scope.dotted_parts(node.func)
        if parts is None:
            return True  # a call of a computed value: it may be anything
        value = scope.lookup_path(parts, program)
        owner = getattr(value, "__self__", None)
        if isinstance(value, type) or isinstance(owner, type):
            if not _library(value if isinstance(value, type) else owner):
                return True
        elif isinstance(value, types.FunctionType) and stand_in.is_user_function(value) and value not in visited:
            try:
                callee = frontend.load(value)
            except (SrcGradError, OSError, TypeError, ValueError):
                continue
            if _may_make_objects(value, callee, visited):
                return True
    return False


def _library(cls):
    """Whether `cls` is a class of Python's or NumPy's (whose objects srcgrad differentiates by rules)."""
    module = getattr(cls, "__module__", "") or ""
    return module in ("builtins", "collections", "numbers") or module.split(".")[0] == "numpy"


def _reads_classes(program):
    """Whether the function may make an object of a class (a call of a name it reads from outside)."""
    return any(type(n) is gast.Call for n in gast.walk(program.tree))
