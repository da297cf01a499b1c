"""The run-time refusal of an operator applied to an object whose class srcgrad does not
know when it builds the derivative (known_classes.py follows the others): an argument
not bound to its class, or an entry or a field of one (`for p in ps: p * 2.0`,
`b.v + b.w`). Python would call the class's method, and the derivative would run the
rules of numbers on the object: refused when the derivative runs (api.check_arguments),
where the value's class defines the operator's method, at the operator's line.

Invariants: a check reads only the type of the value at its keys, which a call's
dispatch key holds (cache.types_in_key), so it runs once per kind of call; an array, a
number or a container is never refused.
"""

import inspect
import types

import gast
import numpy as np

from ..errors import NotDifferentiableError, SrcGradError
from ..runtime.records import Field
from . import frontend, scope, stand_in
from .known_classes import BINARY, UNARY, function_of, own_nodes


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
    if not params or program.generated:
        return ()
    values = {}
    for s in own_nodes(tree.body):
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
    found = {}  # (parameter, keys) -> [the first operator's node, the operator methods of all]
    for node in gast.walk(tree):
        for operand, names in _operands(node) + _handed_to_operators(program, node):
            path = _parameter_path(operand, params, values)
            if path is not None and not (path[0] in program.records and not path[1]):
                found.setdefault(path, [node, []])[1].extend(n for n in names if n not in found[path][1])
    checks = []
    for (param, keys), (node, names) in found.items():
        error = program.error(node, "", NotDifferentiableError)
        location = (error.filename, error.lineno, error.offset - 1, error.text)
        position = positional.index(param) if param in positional else param
        checks.append((position, keys, _Defines(tuple(names)), _OperandRefusal(program, tuple(names)), location))
    return tuple(checks)


def _operands(node):
    """[(operand, the methods Python may call for it)] of the operator `node`; [] for
    another node."""
    if type(node) is gast.BinOp and type(node.op) in BINARY:
        return [(o, BINARY[type(node.op)][:2]) for o in (node.left, node.right)]
    if type(node) is gast.AugAssign and type(node.op) in BINARY:
        return [(o, BINARY[type(node.op)]) for o in (node.target, node.value)]
    if type(node) is gast.UnaryOp and type(node.op) in UNARY:
        return [(node.operand, (UNARY[type(node.op)],))]
    return []


def _handed_to_operators(program, node):
    """[(argument, the operator methods)] of the call `node` of a function of the user's
    that applies operators to the parameters those arguments go to (`helper(ps[0], ps[1])`
    of `def helper(u, v): return (u + v).b`): spliced in, or with its parameters unbound,
    it would run the rules of numbers on an object whose class defines them."""
    if type(node) is not gast.Call or any(type(a) is gast.Starred for a in node.args):
        return []
    parts = scope.dotted_parts(node.func)
    fn = scope.lookup_path(parts, program) if parts is not None and parts[0] not in program.records else None
    if not isinstance(fn, types.FunctionType) or not stand_in.is_user_function(fn):
        return []
    try:
        callee = frontend.load(fn).tree
        bound = inspect.signature(fn).bind(*node.args, **{k.arg: k.value for k in node.keywords if k.arg})
    except (SrcGradError, OSError, TypeError, ValueError):
        return []
    applied = {}
    for inner in gast.walk(callee):
        for operand, names in _operands(inner):
            if type(operand) is gast.Name:
                applied.setdefault(operand.id, set()).update(names)
    return [(arg, tuple(sorted(applied[name]))) for name, arg in bound.arguments.items()
            if name in applied and isinstance(arg, gast.AST)]


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
