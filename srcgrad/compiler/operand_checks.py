"""The run-time refusal of an operator applied to an object whose class srcgrad does not
know when it builds the derivative (known_classes.py follows the others): an argument
not bound to its class, or an entry or a field of one (`for p in ps: p * 2.0`,
`b.v + b.w`). Python would call the class's method, and the derivative would run the
rules of numbers on the object: refused when the derivative runs (api.check_arguments),
where the value's class defines the operator's method, at the operator's line.

The operators of a function of the user's count where an argument goes to it, at any
depth (`h(u)` calling `k(u)`, which computes `u + u`), and so do its operators on the
entries and fields of its parameters (`fk(ps)` computing `ps[0] + ps[0]`). A container
made in the function that holds objects of a class defining such an operator (`[P(x,
x)]`, `Pair(P(...), P(...))`), handed to a function applying it to the entries, is
refused when the derivative is built: no check of the arguments sees those objects.
Code srcgrad wrote (derivatives, pullbacks, the Tensor shim's gradient functions) is
not read: it makes no objects of the user's classes.

Invariants: a check reads only the type of the value at its keys, which a call's
dispatch key holds (cache.types_in_key), so it runs once per kind of call; an array, a
number or a container is never refused.
"""

import dataclasses
import inspect
import types

import gast
import numpy as np

from ..errors import NotDifferentiableError, SrcGradError
from ..runtime.records import Field
from . import frontend, scope, stand_in, traversal
from .known_classes import BINARY, UNARY, function_of
from .walk_memo import WalkMemo


def run(program, tree):
    """The checks (api.check_arguments) refusing, when the derivative runs, an object
    whose class defines an operator that the function applies to it where its class is
    not known at build time: a parameter not bound to its class (`p + q` of parameters
    whose methods the function never calls), an entry or a field of one (`for p in ps:
    p * 2.0`, `b.v + b.w`). The rules of numbers would run on it, and the derivative
    would be wrong. Computed on the function's tree `tree` as `run` found it, after `run`
    (whose bound names are left out)."""
    positional = [a.id for a in tree.args.posonlyargs + tree.args.args]
    params = positional + [a.id for a in tree.args.kwonlyargs]
    if not params or program.generated or _made_by_srcgrad(program.fn):
        return ()
    with _MEMO:
        return _run(program, tree, positional, params)


def _run(program, tree, positional, params):
    values = {}
    for s in _own_statements(tree.body):
        if type(s) is gast.Assign and len(s.targets) == 1 and type(s.targets[0]) is gast.Name:
            values.setdefault(s.targets[0].id, []).append(s.value)
        elif type(s) is gast.For and type(s.target) is gast.Name and type(s.iter) is gast.Name:
            values.setdefault(s.target.id, []).append(s.iter)
        elif type(s) is gast.AugAssign and type(s.target) is gast.Name:
            values.setdefault(s.target.id, []).append(None)
        elif isinstance(s, (gast.For, gast.Assign)):
            for t in (s.targets if type(s) is gast.Assign else [s.target]):
                for n in traversal.walk(t):
                    if type(n) is gast.Name:
                        values.setdefault(n.id, []).append(None)
    found = {}  # (parameter, keys) -> [the first operator's node, the operator methods of all]
    handed = []  # (call, (the user's function called, its bound arguments)), in the walk's order
    for node in traversal.inner_nodes(tree):  # gast.walk's order of the operators and calls
        cls = type(node)
        if cls is gast.Call:
            callee = _callee_and_arguments(program, node)
            if callee is None:
                continue
            handed.append((node, callee))
            operands = _handed_to_operators(callee)
        elif cls in _OPERATORS:
            operands = _operands(node)
        else:
            continue
        for operand, names, inner in operands:
            path = _parameter_path(operand, params, values)
            if path is not None:
                path = (path[0], path[1] + inner)
            if path is not None and not (path[0] in program.records and not path[1]):
                found.setdefault(path, [node, []])[1].extend(n for n in names if n not in found[path][1])
    _refuse_handed_holders(program, handed, params, values)
    checks = []
    for (param, keys), (node, names) in found.items():
        error = program.error(node, "", NotDifferentiableError)
        location = (error.filename, error.lineno, error.offset - 1, error.text)
        position = positional.index(param) if param in positional else param
        checks.append((position, keys, _Defines(tuple(names)), _OperandRefusal(program, tuple(names)), location))
    return tuple(checks)


def _refuse_handed_holders(program, handed, params, values):
    """Refuse, at build time, a call handing a container made in the function (a list or
    tuple display, or a name bound to one) that holds objects of a class defining an
    operator to a function of the user's that applies that operator to the container's
    entries or fields (`fk(ps)` of `def fk(ps): return k(ps[0])`, `k` computing `u + u`):
    inside the callee the entries' class is not known, and no check of the caller's
    arguments sees them. `handed`: (call, `_callee_and_arguments` of it) for each call of
    a function of the user's, in the order of a walk of the function."""
    for node, (fn, bound) in handed:
        inner = _entry_operators(fn)
        for name, arg in bound.arguments.items():
            if name not in inner or not isinstance(arg, gast.AST) or _parameter_path(arg, params, values) is not None:
                continue
            cls = next((c for keys, names in inner[name].items()
                        for c in [_held_class(arg, keys, values, program, names)] if c is not None), None)
            if cls is not None:
                raise program.error(
                    node, f"`{program.name}` hands `{fn.__name__}` a container holding {cls.__qualname__} objects, and "
                    f"`{fn.__name__}` applies an operator to its entries, whose class srcgrad does not know there (the "
                    "rules of numbers would run on the objects): hand it the objects themselves (`f(ps[0])`), or "
                    f"compute with their fields (in `{program.name}`)", NotDifferentiableError)


def _entry_operators(fn):
    """{parameter of the user's function `fn`: {keys: operator methods}} for the operators
    `fn` applies to entries or fields of the parameter (the checks `run` makes of it with
    keys)."""
    if fn in _READING:  # recursion: its operators are read where the reading began
        _MEMO.cut()
        return {}
    return _MEMO.remembered(("entries", id(fn)), fn, lambda: _read_entry_operators(fn))


def _read_entry_operators(fn):
    try:
        callee = frontend.load(fn)
    except (SrcGradError, OSError, TypeError, ValueError):
        return {}
    names = [a.id for a in callee.tree.args.posonlyargs + callee.tree.args.args]
    found = {}
    _READING.add(fn)
    try:
        checks = run(callee, callee.tree)
    finally:
        _READING.discard(fn)
    for position, keys, defines, _, _ in checks:
        if keys:
            name = names[position] if isinstance(position, int) else position
            found.setdefault(name, {}).setdefault(keys, set()).update(defines.names)
    return found


_READING = set()  # the functions `_entry_operators` is reading


def _held_class(node, keys, values, program, names):
    """A class defining one of the operator methods `names` whose object the expression
    `node` may hold at `keys` (entries of displays, fields of a record made by its class,
    through names bound once or more); None where none is seen. Where the path cannot be
    followed, any such object within counts."""
    for found in _at(node, tuple(keys), values, program, set()):
        if found is None:  # any such object inside it (not the container itself, which keys go into)
            return _any_class(node, values, program, names, set(), outermost=False)
        if isinstance(found, type):  # a property's value, of a class its getter makes
            if any(function_of(found, n) is not None for n in names):
                return found
            continue
        cls = _class_made(found, values, program, names, set())
        if cls is not None:
            return cls
    return None


def _at(node, keys, values, program, visited):
    """The expressions `node` holds at `keys` (None in the list where it cannot tell)."""
    if not keys:
        return [node]
    if type(node) is gast.Name:
        if node.id in visited or node.id not in values:
            return [None]
        visited = visited | {node.id}
        return [e for value in values[node.id] for e in (_at(value, keys, values, program, visited) if value is not None
                                                          else [None])]
    key, rest = keys[0], keys[1:]
    if type(node) in (gast.List, gast.Tuple) and not any(type(e) is gast.Starred for e in node.elts):
        if type(key) is int and -len(node.elts) <= key < len(node.elts):
            return _at(node.elts[key], rest, values, program, visited)
        if key is ...:
            return [e for element in node.elts for e in _at(element, rest, values, program, visited)]
        return [None]
    if type(node) is gast.Call and type(key) is Field:
        cls = _called(node, program)
        order = [f.name for f in dataclasses.fields(cls)] if dataclasses.is_dataclass(cls) else list(getattr(cls, "_fields", ()))
        if key.name in order:
            at = order.index(key.name)
            given = {k.arg: k.value for k in node.keywords if k.arg}
            field = node.args[at] if at < len(node.args) else given.get(key.name)
            if field is not None:
                return _at(field, rest, values, program, visited)
        elif isinstance(getattr(cls, key.name, None), property) and not rest:
            return _made_by(getattr(cls, key.name).fget)  # the classes its getter makes
    return [None]


def _made_by(fn):
    """The classes of the user's code that the function `fn` calls (the objects it may
    return); [None] where its source cannot be read."""
    if not stand_in.is_user_function(fn):
        return [None]
    try:
        program = frontend.load(fn)
    except (SrcGradError, OSError, TypeError, ValueError):
        return [None]
    made = []
    for node in traversal.walk(program.tree):
        if type(node) is gast.Call:
            parts = scope.dotted_parts(node.func)
            cls = scope.lookup_path(parts, program) if parts is not None and parts[0] != "self" else None
            if isinstance(cls, type) and cls.__module__ != "builtins":
                made.append(cls)
    return made


def _class_made(node, values, program, names, visited):
    """The class defining one of `names` that the expression `node` makes (a call of it,
    or a name bound to one), else None."""
    if type(node) is gast.Name:
        if node.id in visited:
            return None
        for value in values.get(node.id, ()):
            cls = value is not None and _class_made(value, values, program, names, visited | {node.id})
            if cls:
                return cls
        return None
    if type(node) is gast.Call:
        cls = _called(node, program)
        if isinstance(cls, type) and any(function_of(cls, n) is not None for n in names):
            return cls
    return None


def _any_class(node, values, program, names, visited, outermost=True):
    """A class defining one of `names` of any object the expression `node` may hold (not
    counting the object `node` makes itself unless `outermost`)."""
    if type(node) in (gast.List, gast.Tuple):
        return next((c for e in node.elts for c in [_any_class(e, values, program, names, visited)] if c), None)
    if type(node) is gast.Name:
        if node.id in visited:
            return None
        return next((c for v in values.get(node.id, ()) if v is not None
                     for c in [_any_class(v, values, program, names, visited | {node.id}, outermost)] if c), None)
    if type(node) is gast.Call:
        made = _class_made(node, values, program, names, visited) if outermost else None
        if made is not None:
            return made
        if isinstance(_called(node, program), type):
            return next((c for a in node.args + [k.value for k in node.keywords]
                         for c in [_any_class(a, values, program, names, visited)] if c), None)
    return None


def _own_statements(body):
    """The statements of `traversal.own_nodes(body)`, in its order, without walking
    the expressions (which hold no statements)."""
    todo, nested, blocks, expression, ast_node = list(body), _NESTED, traversal.block_fields, gast.expr, gast.AST
    pop, extend = todo.pop, todo.extend
    while todo:
        node = pop()
        if isinstance(node, gast.stmt):
            yield node
        if isinstance(node, nested):
            continue
        values = node.__dict__
        for field in blocks(type(node)):
            value = values.get(field)
            if type(value) is list:
                extend([v for v in value if isinstance(v, ast_node) and not isinstance(v, expression)])


_NESTED = (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef, gast.Lambda)  # own_nodes does not enter them


_OPERATORS = frozenset({gast.BinOp, gast.AugAssign, gast.UnaryOp})  # the nodes `_operands` reads


def _operands(node):
    """[(operand, the methods Python may call for it, ())] of the operator `node`; [] for
    another node."""
    if type(node) is gast.BinOp and type(node.op) in BINARY:
        return [(o, BINARY[type(node.op)][:2], ()) for o in (node.left, node.right)]
    if type(node) is gast.AugAssign and type(node.op) in BINARY:
        return [(o, BINARY[type(node.op)], ()) for o in (node.target, node.value)]
    if type(node) is gast.UnaryOp and type(node.op) in UNARY:
        return [(node.operand, (UNARY[type(node.op)],), ())]
    return []


def _handed_to_operators(callee):
    """[(argument, the operator methods)] of a call of a function of the user's (`callee`:
    the function and its parameters bound to the argument nodes, `_callee_and_arguments`)
    that applies operators to the parameters those arguments go to (`helper(ps[0], ps[1])`
    of `def helper(u, v): return (u + v).b`): spliced in, or with its parameters unbound,
    it would run the rules of numbers on an object whose class defines them."""
    fn, bound = callee
    applied = _operator_parameters(fn, ())
    handed = [(arg, tuple(sorted(applied[name])), ()) for name, arg in bound.arguments.items()
              if name in applied and isinstance(arg, gast.AST)]
    for name, keys_names in _entry_operators(fn).items():  # `fk(ps)` applying operators to `ps[0]`
        arg = bound.arguments.get(name)
        if isinstance(arg, gast.AST):
            handed += [(arg, tuple(sorted(names)), keys) for keys, names in keys_names.items()]
    return handed


def _callee_and_arguments(program, node):
    """(the user's function called, its parameters bound to the argument nodes) of the call
    `node` in `program`; None for another node or a call srcgrad cannot bind."""
    if type(node) is not gast.Call or any(type(a) is gast.Starred for a in node.args):
        return None
    parts = scope.dotted_parts(node.func)
    if parts is None or parts[0] in program.records:
        return None
    key = ("callee", id(program), tuple(parts))
    found = _MEMO.get(key)
    if found is None:
        fn = scope.lookup_path(parts, program)
        found = (program, fn if isinstance(fn, types.FunctionType) and stand_in.is_user_function(fn)
                 and not _made_by_srcgrad(fn) else None)
        _MEMO.put(key, found)
    fn = found[1]
    if fn is None:
        return None
    try:
        bound = inspect.signature(fn).bind(*node.args, **{k.arg: k.value for k in node.keywords if k.arg})
    except (TypeError, ValueError):
        return None
    return fn, bound


def _called(node, program):
    """What the call `node` names (a class, a function, ...), resolved in `program`; None
    where its callee is no dotted name or not found."""
    parts = scope.dotted_parts(node.func)
    return scope.lookup_path(parts, program) if parts is not None else None


def _made_by_srcgrad(fn):
    """Whether `fn` is code srcgrad wrote (a derivative, a pullback, the Tensor shim's
    functions of a gradient's graph): it makes no objects of the user's classes."""
    return getattr(getattr(fn, "__code__", None), "co_filename", "").startswith("<srcgrad")


_MEMO = WalkMemo()  # while `run` runs, what it read of each function


def _operator_parameters(fn, visiting):
    """{parameter of the user's function `fn`: the operator methods applied to it} where
    `fn` applies an operator to the parameter, or hands it on (by name) to a function of
    the user's that does, at any depth (`h(u)` calling `k(u)`, which computes `u + u`)."""
    if fn in visiting:
        _MEMO.cut()
        return {}
    return _MEMO.remembered(("operators", id(fn)), fn, lambda: _read_operator_parameters(fn, visiting))


def _read_operator_parameters(fn, visiting):
    try:
        program = frontend.load(fn)
    except (SrcGradError, OSError, TypeError, ValueError):
        return {}
    applied = {}
    for inner in traversal.walk(program.tree):
        for operand, names, _ in _operands(inner):
            if type(operand) is gast.Name:
                applied.setdefault(operand.id, set()).update(names)
        found = _callee_and_arguments(program, inner)
        if found is not None:
            deeper = _operator_parameters(found[0], visiting + (fn,))
            for name, arg in found[1].arguments.items():
                if name in deeper and type(arg) is gast.Name:
                    applied.setdefault(arg.id, set()).update(deeper[name])
    return applied


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
            if node.id in params:  # also one the function assigns: the value passed may be what it reads
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
    namedtuple) defines one of the operator methods `names`: read off its type alone,
    which a call's dispatch key holds, so it is checked once per key."""

    srcgrad_by_type = True

    def __init__(self, names):
        self.names = names

    def __call__(self, value):
        cls = type(value)
        if cls in _PLAIN or cls.__module__ == "builtins" or isinstance(value, (np.ndarray, np.generic)):
            return False
        return any(function_of(cls, name) is not None for name in self.names)


_PLAIN = frozenset((float, int, np.ndarray, np.float64, bool, complex))


class _OperandRefusal:
    """The refusal of a value `_Defines` tells, located at the first operator applied to it."""

    def __init__(self, program, names):
        self.where, self.names = program.name, names

    def __call__(self, value):
        cls = type(value)
        name = next(n for n in self.names if function_of(cls, n) is not None)
        return (f"`{self.where}` applies an operator to a {cls.__qualname__}, whose class defines `{name}`, where "
                "srcgrad does not know the object's class when it builds the derivative (an entry or a field of an "
                "argument, or an argument the function neither calls a method of nor reads an operator's result on "
                "as an object): srcgrad follows the operators of an object made in the function and of an argument "
                "bound to its class; make the object in the function from its fields "
                f"(`{cls.__name__}(...)`), or compute with its fields")
