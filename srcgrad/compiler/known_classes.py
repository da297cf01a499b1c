"""Objects whose class is known where they are used: a parameter bound to a `RecordOf`
(record_methods.py), a local every assignment of which makes an object of one class
(`u = V2(x, y)`, `w = u + v` where `V2.__add__` returns a `V2(...)`), or an expression
computing one. What such an object does is the code its class defines, so it is
followed as calls of the class's functions (record_methods.method_call):

    u = V2(x, 2.0 * x)         u is a V2 (a call of the class)
    w = u + u                  w = V2___add__(u, u)          (w is a V2: `__add__` returns `V2(...)`)
    s = -w                     s = V2___neg__(w)
    r = 3.0 * w                r = V2___rmul__(w, 3.0)       (the left operand defines no `__mul__`)
    w += u                     w = V2___add__(w, u)          (no `__iadd__`)
    n = w.length               n = V2_length(w)              (a property: its getter)
    m = (u + w).norm()         m = V2_norm(V2___add__(u, w))

and the locals join `Program.records`, so record_methods.run rewrites their method
calls and `u(x)` as it does a parameter's, and a function of the user's they are
passed to (`helper(u)`) gets its parameter bound to their class (bound_calls.py).

Without this, an operator on a record ran the rules of numbers on it: `(p + p).b` of a
`__add__` returning `P(a + o.a, b * o.b)` had the gradient of `b + b`.

Invariants: a local is known only where every binding of its name in the function is
an assignment to it alone (`u = ...`, `u op= ...`) at the function's own level, never
in a nested scope, each making an object of the same class; a class is known for a
call of it only where calling it makes an instance of it (no `__new__` of its own but a
namedtuple's, a plain `type` metaclass); a function's result class is known only where
each of its `return`s returns such a call (or `type(self)(...)`, `cls(...)`). An
operator is rewritten only where the class of the operand whose method Python calls is
known and defines it with a plain `def`: a dunder that may return `NotImplemented`, an
in-place one (`__iadd__`), and a subclass's reflected method Python would call first
are refused at the operator's line. Comparisons are left as they are (their results
have no derivative).
"""

import ast
import types

import gast
import numpy as np

from ..errors import NotDifferentiableError, SrcGradError
from ..runtime.records import Field, is_record_class
from . import frontend, record_methods, scope, stand_in, syntax
from .naming import Namer
from .record_methods import RecordOf, defined, method_call

_BINARY = {
    gast.Add: ("__add__", "__radd__", "__iadd__"), gast.Sub: ("__sub__", "__rsub__", "__isub__"),
    gast.Mult: ("__mul__", "__rmul__", "__imul__"), gast.Div: ("__truediv__", "__rtruediv__", "__itruediv__"),
    gast.FloorDiv: ("__floordiv__", "__rfloordiv__", "__ifloordiv__"), gast.Mod: ("__mod__", "__rmod__", "__imod__"),
    gast.Pow: ("__pow__", "__rpow__", "__ipow__"), gast.MatMult: ("__matmul__", "__rmatmul__", "__imatmul__"),
}
_UNARY = {gast.USub: "__neg__", gast.UAdd: "__pos__", gast.Invert: "__invert__"}


def constructs(cls):
    """Whether calling `cls` makes an instance of exactly `cls`: a class of the user's
    code (or a record class) with a plain `type` metaclass and no `__new__` of its own
    (a namedtuple's generated one aside)."""
    if not isinstance(cls, type) or type(cls) is not type or cls.__module__ == "builtins":
        return False
    if not (is_record_class(cls) or stand_in._user_module(cls.__module__)):
        return False
    new = defined(cls, "__new__")[0]
    return new in (None, object) or (new is tuple or (issubclass(cls, tuple) and hasattr(cls, "_fields")))


class _Classes:
    """The class of each expression of `program`'s function that is known (module
    docstring), from its records and the locals found known."""

    def __init__(self, program):
        self.program = program
        self.names = {name: bound.cls for name, bound in program.records.items() if isinstance(bound, RecordOf)}
        self._results = {}
        self.made = {}  # id of a call `rewrite` made -> the class of what it computes

    def of(self, node):
        """The class of the object `node` computes, or None where it is not known."""
        kind = type(node)
        if id(node) in self.made:
            return self.made[id(node)]
        if kind is gast.Name:
            return self.names.get(node.id)
        if kind is gast.Call:
            return self._of_call(node)
        if kind is gast.BinOp:
            found = self.operator(node.left, node.op, node.right)
            return None if found is None else self.result(found[1], found[0])
        if kind is gast.UnaryOp and type(node.op) in _UNARY:
            cls = self.of(node.operand)
            func = _function(cls, _UNARY[type(node.op)]) if cls is not None else None
            return None if func is None else self.result(func, cls)
        if kind is gast.Attribute and type(node.ctx) is gast.Load:
            cls = self.of(node.value)
            getter = _property(cls, node.attr) if cls is not None else None
            return None if getter is None else self.result(getter, cls)
        if kind is gast.IfExp:
            body, orelse = self.of(node.body), self.of(node.orelse)
            return body if body is orelse else None
        return None

    def _of_call(self, node):
        func = node.func
        if type(func) is gast.Name and func.id in self.names:  # `m(x)`: its class's `__call__`
            cls = self.names[func.id]
            called = _function(cls, "__call__")
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
        names = _BINARY.get(type(op))
        if names is None:
            return None
        lcls, rcls = self.of(left), self.of(right)
        if lcls is not None:
            func = _function(lcls, names[0])
            if func is not None:
                return lcls, func, False
        if rcls is not None:
            func = _function(rcls, names[1])
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
    for node in _own_nodes(method.tree.body):
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


def _own_nodes(body):
    """The nodes of the statements `body`, not those of nested functions, classes or lambdas."""
    todo = list(body)
    while todo:
        node = todo.pop()
        yield node
        for child in gast.iter_child_nodes(node):
            if not isinstance(child, (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef, gast.Lambda)):
                todo.append(child)


def _function(cls, name):
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
    for node in _own_nodes(tree.body):
        if type(node) is gast.Assign and len(node.targets) == 1 and type(node.targets[0]) is gast.Name:
            bindings.setdefault(node.targets[0].id, []).append(node)
            own.add(id(node.targets[0]))
        elif type(node) is gast.AugAssign and type(node.target) is gast.Name:
            bindings.setdefault(node.target.id, []).append(node)
            own.add(id(node.target))
        elif isinstance(node, (gast.Global, gast.Nonlocal)):
            other.update(node.names)
    params = {a.id for a in tree.args.posonlyargs + tree.args.args + tree.args.kwonlyargs}
    for node in gast.walk(tree):
        if type(node) is gast.Name and type(node.ctx) is not gast.Load and id(node) not in own:
            other.add(node.id)
    candidates = {name: nodes for name, nodes in bindings.items()
                  if name not in other and name not in params and name not in program.records}
    classes = _Classes(program)

    def made(node):
        if type(node) is gast.Assign:
            return classes.of(node.value)
        found = classes.operator(node.target, node.op, node.value)
        return None if found is None else classes.result(found[1], found[0])

    # optimistic: a name is taken as the class some binding makes, then dropped until each binding agrees
    changed = True
    while changed:
        changed = False
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
        for name in list(classes.names):
            if name in candidates and any(made(n) is not classes.names[name] for n in candidates[name]):
                del classes.names[name]
                classes._results.clear()
                changed = True
    return {name: cls for name, cls in classes.names.items() if name in candidates}


def rewrite(program, tree, helper):
    """`tree` with each operator, property read and method call of an object whose class
    is known (`program.records`, which holds the known locals by now) made a call of the
    function its class defines (module docstring); `helper(func, owner)` names the
    function. Returns the statements rewritten."""
    classes = _Classes(program)
    called = {id(n.func) for n in gast.walk(tree) if type(n) is gast.Call}  # `b.energy()`: record_methods refuses it

    def text(node):
        return ast.unparse(gast.gast_to_ast(node)) if hasattr(ast, "unparse") else "the object"

    def followed(node, receiver, cls, name, args):
        func = _function(cls, name)
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
        for field, value in gast.iter_fields(node):
            if isinstance(value, list):
                setattr(node, field, [visit(v) if isinstance(v, gast.AST) else v for v in value])
            elif isinstance(value, gast.AST):
                setattr(node, field, visit(value))
        kind = type(node)
        if isinstance(node, (gast.FunctionDef, gast.Lambda, gast.ClassDef)):
            return node
        if kind is gast.BinOp:
            return _binary(node, node.left, node.op, node.right)
        if kind is gast.AugAssign and type(node.target) is gast.Name and node.target.id in classes.names:
            cls = classes.names[node.target.id]
            in_place = _BINARY.get(type(node.op), (None, None, None))[2]
            if in_place is not None and _function(cls, in_place) is not None:
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
        if kind is gast.UnaryOp and type(node.op) in _UNARY:
            cls = classes.of(node.operand)
            if cls is not None and _function(cls, _UNARY[type(node.op)]) is not None:
                return followed(node, node.operand, cls, _UNARY[type(node.op)], [])
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
        names = _BINARY[type(op)]
        if not reflected:
            other = classes.of(right)
            if other is not None and other is not cls and issubclass(other, cls) and _function(other, names[1]) not in (
                    None, _function(cls, names[1])):
                raise program.error(
                    node, f"`{program.name}` computes `{text(node)}`, where the right operand holds a {other.__qualname__}, "
                    f"a subclass of {cls.__qualname__} with its own `{names[1]}`, which Python calls first: srcgrad does "
                    f"not follow that order; call the method you mean (`{text(right)}.{names[1]}(...)`)",
                    NotDifferentiableError,
                )
            return followed(node, left, cls, names[0], [right])
        return followed(node, right, cls, names[1], [left])

    body = [visit(stmt) for stmt in tree.body]
    return _named(program, tree, body, classes)


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
    if not program.generated:
        for name, cls in known_locals(program).items():
            program.records[name] = RecordOf(cls, is_record_class(cls))
    if not program.records and not _reads_classes(program):
        return record_methods.run(program)
    tree = syntax.copy(program.tree)
    helper = record_methods.helper_namer(program, tree)
    tree.body = rewrite(program, tree, helper)
    return record_methods.run(program, tree, helper)


def _reads_classes(program):
    """Whether the function may make an object of a class (a call of a name it reads from outside)."""
    return any(type(n) is gast.Call for n in gast.walk(program.tree))


def operand_checks(program):
    """The checks (api.check_arguments) refusing, when the derivative runs, an object
    whose class defines an operator that the function applies to it where its class is
    not known at build time: a parameter not bound to its class (`p + q` of parameters
    whose methods the function never calls), an entry or a field of one (`for p in ps:
    p * 2.0`, `b.v + b.w`). The rules of numbers would run on it, and the derivative
    would be wrong. Computed on `program.tree` before `run`."""
    tree = program.tree
    positional = [a.id for a in tree.args.posonlyargs + tree.args.args]
    params = positional + [a.id for a in tree.args.kwonlyargs]
    if not params:
        return ()
    values = {}
    for s in _own_nodes(tree.body):
        if type(s) is gast.Assign and len(s.targets) == 1 and type(s.targets[0]) is gast.Name:
            values.setdefault(s.targets[0].id, []).append(s.value)
        elif type(s) is gast.For and type(s.target) is gast.Name and type(s.iter) is gast.Name:
            values.setdefault(s.target.id, []).append(s.iter)
        elif type(s) is gast.AugAssign and type(s.target) is gast.Name:
            values.setdefault(s.target.id, []).append(None)
        elif isinstance(s, (gast.For, gast.Assign)):
            for t in (s.targets if type(s) is gast.Assign else [s.target]):
                for n in gast.walk(t):
                    if type(n) is gast.Name:
                        values.setdefault(n.id, []).append(None)
    checks, seen = [], set()
    for node in gast.walk(tree):
        if type(node) is gast.BinOp and type(node.op) in _BINARY:
            operands, names = (node.left, node.right), _BINARY[type(node.op)][:2]
        elif type(node) is gast.AugAssign and type(node.op) in _BINARY:
            operands, names = (node.target, node.value), _BINARY[type(node.op)]
        elif type(node) is gast.UnaryOp and type(node.op) in _UNARY:
            operands, names = (node.operand,), (_UNARY[type(node.op)],)
        else:
            continue
        for operand in operands:
            found = _parameter_path(operand, params, values)
            if found is None or (found[0] in program.records and not found[1]) or (found, names) in seen:
                continue
            seen.add((found, names))
            error = program.error(node, "", NotDifferentiableError)
            location = (error.filename, error.lineno, error.offset - 1, error.text)
            param, keys = found
            position = positional.index(param) if param in positional else param
            checks.append((position, keys, _Defines(names), _OperandRefusal(program.name, program.text(node), names),
                           location))
    return tuple(checks)


def _parameter_path(node, params, values):
    """(parameter, keys) where the operand `node` is a parameter, a field or constant
    entry of one, or a name bound once to such (`p = ps[0]`, `for p in ps`: key `...`);
    else None."""
    keys, visited = [], set()
    while True:
        if type(node) is gast.Attribute:
            keys.append(Field(node.attr))
            node = node.value
        elif type(node) is gast.Subscript:
            index = node.slice
            constant = type(index) is gast.Constant and type(index.value) in (int, str)
            keys.append(index.value if constant else ...)
            node = node.value
        elif type(node) is gast.Name:
            if node.id in params and not values.get(node.id):
                return node.id, tuple(reversed(keys))
            bound = values.get(node.id, ())
            if len(bound) != 1 or bound[0] is None or node.id in visited:
                return None
            visited.add(node.id)
            if type(bound[0]) is gast.Name and bound[0].id not in values:  # the target of a loop over it
                keys.append(...)
            node = bound[0]
        else:
            return None


class _Defines:
    """Whether a value's class (an object of the user's own code, a dataclass or a
    namedtuple) defines one of the operator methods `names`."""

    def __init__(self, names):
        self.names = names

    def __call__(self, value):
        cls = type(value)
        if cls.__module__ == "builtins" or isinstance(value, np.ndarray) or isinstance(value, np.generic):
            return False
        return any(_function(cls, name) is not None for name in self.names)


class _OperandRefusal:
    def __init__(self, where, text, names):
        self.where, self.text, self.names = where, text, names

    def __call__(self, value):
        cls = type(value)
        name = next(n for n in self.names if _function(cls, n) is not None)
        return (f"`{self.where}` computes `{self.text}` with a {cls.__qualname__}, whose class defines `{name}`, where "
                f"srcgrad does not know the object's class when it builds the derivative (an argument whose methods "
                f"the function never calls, or an entry or a field of one): srcgrad follows an operator of an object "
                f"made in the function, or of an argument it calls a method of; call the method (`p.{name}(q)`), or "
                f"make the object in the function")
