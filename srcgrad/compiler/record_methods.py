"""Methods of an object passed as an argument: `p.apply(x)` where the call passes `p` a
dataclass instance or a namedtuple (a record: runtime/records.py), or an instance of a
class of the user's own code (`stand_in.of_user_class`: `problem.cost(x)`).

function_arguments.py binds such a parameter to the `RecordOf` of the class of the
object each call passes (interned per class: classes are long-lived, so the derivative
is keyed on the class, never the instance; another class at a later call gets its own). `run` rewrites each call of one of its
methods into a call of the function the class defines (found along its MRO, so a
subclass's override is the one called), bound to a helper name:

    p = a Params:   p.apply(x)  ->  Params_apply(p, x)
                    p(x)        ->  Params_call(p, x)     (its class's `__call__`)

so the method's code is followed as a function of the user's taking the object, and the
gradient reaches a record's fields as it does for `apply(p, x)`. Another object is held
constant, as a bound method's instance is (`srcgrad.grad(model.loss)`): its attributes
are read when the derivative runs, and it is never differentiated (api.py refuses `wrt`
naming it). A method calling
another method of its record (`self.helper(y)`) gets its parameter `self` bound the same
way where it is called (`bound_calls.with_functions`), its calls rewritten in its own
derivative. A staticmethod is called without the record.

Invariants: a `RecordOf` is interned per class while any table holds it, so ids key it
safely; a call is rewritten only where the class defines the name as a plain `def` (or a
staticmethod of one); a property, classmethod, a method of `tuple` or `object`, a name
the class lacks, a method setting an attribute of its object, and any method of a class
defining `__getattribute__` are refused at the call's line; an object with an attribute
of its own under the name of a method of its class is refused when the derivative runs
(`argument_checks`), at every call, as the class's function would run in its stead; the
function a derivative calls is logged per class and name (`scope.note_class_attribute`),
so rebinding the method on the class makes the derivative anew; the namedtuple API (`_replace`, `_asdict`,
`_make`) is left to the stages that read it. Which names count as methods at all
(`is_method_name`) leaves out those of arrays and of Python's containers, numbers and
strings: `x.sum()` of an array parameter never makes a derivative per call; a method
of such a name that a record's class defines (`defines_method`) is followed where the
record is bound to its class, and refused where it is not (`argument_checks`,
`check_unbound_receiver`).
"""

import functools
import re
import types
import weakref

import gast
import numpy as np

from ..errors import NotDifferentiableError, SrcGradError
from ..rules import methods, sampling
from ..runtime.records import record_fields
from . import frontend, scope, stand_in, syntax, traversal
from .naming import Namer
from .passed_callables import calls_rewritten


class RecordOf:
    """What a parameter holding a record, or an object of the user's class, of the class
    `cls` is bound to; `record`: whether it is a record (its fields differentiated)."""

    __slots__ = ("cls", "record", "__name__", "__weakref__")
    srcgrad_record = True  # how frontend.load knows one

    def __init__(self, cls, record=True):
        self.cls, self.record, self.__name__ = cls, record, f"a {cls.__qualname__}"

    def __repr__(self):
        return self.__name__


_INTERNED = weakref.WeakValueDictionary()  # record class -> its RecordOf


def record_of(value):
    """The `RecordOf` of the class of `value`, a dataclass instance or a namedtuple (a
    record whose fields srcgrad differentiates as a pytree's), an object of the user's
    own class (`stand_in.of_user_class`) or a NumPy random generator (its samplers' calls
    become calls of the class's methods, which have rules: `_call`), else None."""
    cls = type(value)
    found = _INTERNED.get(cls)
    if found is None:
        if cls.__module__ == "builtins":
            return None
        record = record_fields(cls) is not None
        if not record and not stand_in.of_user_class(value) and cls not in sampling.GENERATOR_METHODS:
            return None
        found = _INTERNED[cls] = RecordOf(cls, record)
    return found


_NOT_METHODS = frozenset(
    name for kind in (np.ndarray, list, dict, tuple, set, str, float, int, complex) for name in dir(kind)
) | {"_replace", "_asdict", "_make"}


def is_method_name(name):
    """Whether a call `p.name(...)` of a parameter may call a method of a record's class:
    not a method of an array, a Python container, number or string, nor of the namedtuple
    API (which other stages read)."""
    return name not in _NOT_METHODS


def calls_a_method(tree, names, classes=()):
    """Whether the function `tree` calls a method (`is_method_name`, or one that one of
    `classes` defines: `defines_method`) of one of `names`, or one of them itself (a
    record's `__call__`)."""
    return any(
        type(node) is gast.Call and (
            (type(node.func) is gast.Name and node.func.id in names)
            or (type(node.func) is gast.Attribute and type(node.func.value) is gast.Name
                and node.func.value.id in names and (
                    is_method_name(node.func.attr) or any(defines_method(c, node.func.attr) for c in classes))))
        for node in traversal.walk(tree)
    )


def run(program, tree=None, helper=None):
    """`program.tree` (or `tree`, a copy of it known_classes.run rewrote) with each call of
    a method of a name bound to a `RecordOf` (`program.records`) rewritten into a call of
    the function its class defines (the module docstring), that function bound to a
    helper name in `program.bound` and `program.held` (`helper`, else `helper_namer`'s);
    a method srcgrad cannot follow so is refused at its line. Returns a new tree; the
    parse stays as it was."""
    records = program.records
    if not records:
        return program.tree if tree is None else tree
    if tree is None:
        tree = syntax.copy(program.tree)
    if helper is None:
        helper = helper_namer(program, tree)

    def rewrite(node):
        if isinstance(node.func, gast.Attribute) and isinstance(node.func.value, gast.Name):
            param, name = node.func.value.id, node.func.attr
            if is_method_name(name) or defines_method(records[param].cls, name):
                return method_call(program, node, param, name, records[param], helper)
            _check_not_shadowed(program, node, records[param].cls)
        elif isinstance(node.func, gast.Name):  # `p(x)` of an object whose class defines `__call__`
            return method_call(program, node, node.func.id, "__call__", records[node.func.id], helper)
        return node

    tree.body = calls_rewritten(tree.body, set(records), rewrite)
    return tree


def helper_namer(program, tree):
    """`helper(func, owner)`: the name bound (in `program.bound` and `program.held`) to the
    function `func` of the class `owner` that a rewritten call calls (`Params_apply`),
    one per function, clashing with nothing `tree` or the function's scope names."""
    namer = Namer.for_tree(tree)
    namer.taken |= set(program.globals) | set(program.bound)
    helpers = {}

    def helper(func, owner):
        if func not in helpers:
            preferred = f"{owner.__name__}_{'call' if func.__name__ == '__call__' else func.__name__}"
            own = scope.first_meaning(preferred, program) is func and preferred not in namer.locals
            name = preferred if own else namer.fresh(preferred)
            program.bound[name] = program.held[name] = func
            helpers[func] = name
        return helpers[func]

    helper.names = helpers  # function -> the name bound to it
    return helper


def method_call(program, node, param, name, bound, helper, receiver=None):
    """The call `node` of the method `name` of the object `param` bound to `bound`, a
    `RecordOf` (`__call__`: of the object itself), as a call of the function its class
    defines; `receiver`: the expression computing the object where it is not the name
    `param` (which then only says it in messages)."""
    receiver_node = syntax.name(param) if receiver is None else receiver
    cls = bound.cls
    if cls in sampling.GENERATOR_METHODS:  # `rng.normal(mu, s)`: `Generator.normal(rng, mu, s)`, whose rules
        func = sampling.GENERATOR_METHODS[cls].get(name)  # read the draw; other methods run as written
        if func is None:
            return node
        made = syntax.call(syntax.name(helper(func, cls)), [receiver_node] + list(node.args),
                           [(k.arg, k.value) for k in node.keywords])
        return syntax.located(made, node)
    owner, found = defined(cls, name)
    called = f"{param}()" if name == "__call__" else f"{param}.{name}()"
    kind = "a dataclass or namedtuple argument" if bound.record else "an object passed as an argument"

    def refuse(why):
        return program.error(
            node, f"`{program.name}` calls `{called}`, where `{param}` holds a {cls.__qualname__}: {why}; "
            f"srcgrad follows a method of {kind} where its class defines it with a plain `def` (or as a "
            "staticmethod), through its code, as a function of yours taking the object",
            NotDifferentiableError,
        )

    getter = defined(cls, "__getattribute__")[0]
    if getter not in (None, object, tuple):
        raise refuse(f"`{getter.__qualname__}` defines `__getattribute__`, which may answer `{param}.{name}` with "
                     "another function than the class's")
    if name in (record_fields(cls) or ()):  # a field's default is a class attribute too, and may be a `def`
        raise refuse(f"`{name}` is a field of {cls.__qualname__}, not a method its class defines, and srcgrad does not "
                     f"follow a function held in a record's field (pass it as an argument of its own)")
    if owner is None:
        if bound.record:
            raise refuse(f"{cls.__qualname__} has no attribute `{name}`")
        raise refuse(f"{cls.__qualname__} defines no method `{name}`; a function or callable object held in an "
                     f"attribute of the instance is not followed, as the derivative is made per class, not per "
                     f"instance: differentiate a bound method (`srcgrad.grad(model.loss)`), which knows the "
                     f"instance, or pass the function as an argument of its own")
    if isinstance(found, staticmethod) and isinstance(found.__func__, types.FunctionType):
        func, receiver = found.__func__, []
    elif isinstance(found, types.FunctionType) and owner not in (tuple, object):
        func, receiver = found, [receiver_node]
    else:
        kind = ("a property" if isinstance(found, property) else "a classmethod" if isinstance(found, classmethod)
                else f"a method of `{owner.__name__}`" if owner in (tuple, object) else "not a Python function")
        raise refuse(f"`{owner.__qualname__}.{name}` is {kind}")
    if receiver:
        _check_no_writes(program, node, called, bound, owner, func)
    scope.note_class_attribute(cls, name, func)  # `Params.apply = ...` later makes the derivative anew
    made = syntax.call(syntax.name(helper(func, owner)), receiver + list(node.args), [(k.arg, k.value) for k in node.keywords])
    return syntax.located(made, node)


def argument_checks(program):
    """The checks (api.check_arguments) that refuse, when the derivative runs, a record
    whose methods are not those srcgrad differentiates, which the binding by class cannot
    see (computed on `program.tree` before `run`): for a parameter bound to a `RecordOf`
    (a keyword-only one checked by its name), an attribute set on the instance under the name of a method of its class
    (Python calls it, not the class's function, also where a method calls another); for a
    call `p.mean()` of a method named as an array's or a container's (`rules.methods`), a
    method of that name the record's class defines (refused at build time where `p` is
    bound, here where it is not)."""
    positional = [a.id for a in program.tree.args.posonlyargs + program.tree.args.args]
    params = positional + [a.id for a in program.tree.args.kwonlyargs]
    if not program.records and not _calls_a_method_by_text(program, params):
        return ()
    checks, seen = [], set()

    def check(param, at, name):
        error = program.error(at, "", NotDifferentiableError)
        location = (error.filename, error.lineno, error.offset - 1, error.text)
        refused = functools.partial(_not_followed, name=name)
        refused.srcgrad_per_value = name is None  # an attribute of the instance: checked at every call
        checks.append((positional.index(param) if param in positional else param, (), refused,
                       functools.partial(_not_followed_refusal, param=param, name=name, where=program.name), location))

    for node in traversal.walk(program.tree):
        if (type(node) is gast.Call and type(node.func) is gast.Attribute and type(node.func.value) is gast.Name
                and node.func.value.id in params and node.func.attr in methods.METHODS
                and node.func.value.id not in program.records):  # a bound one's class is known: followed by `run`
            param, name = node.func.value.id, node.func.attr
            if (param, name) not in seen:
                seen.add((param, name))
                check(param, node, name)
        elif type(node) is gast.Call and type(node.func) in (gast.Name, gast.Attribute):
            base = node.func if type(node.func) is gast.Name else node.func.value
            if type(base) is gast.Name and base.id in program.records and base.id in params and base.id not in seen:
                seen.add(base.id)
                check(base.id, node, None)
    for param in program.records:  # handed on to a function of yours that calls its methods
        if param in params and param not in seen:
            check(param, program.tree, None)
    return tuple(checks)


def _calls_a_method_by_text(program, params):
    """Whether the function's text may call a method named as an array's or a
    container's on one of `params` (`p.mean(`): where not, `argument_checks` has
    nothing to find and skips its walk."""
    text = "".join(program.source_lines)
    params = set(params)
    return any(name in methods.METHODS and word in params for word, name in _METHOD_CALL.findall(text))


_METHOD_CALL = re.compile(r"\b(\w+)\b[\s)]*\.\s*(\w+)\s*\(")  # `p.mean(`, `(p).mean(`: one scan for every parameter


def _not_followed(value, name):
    """Whether the record `value` has an attribute of its own shadowing a method of its
    class (`name` None), or its class defines the method `name` of arrays."""
    cls = type(value)
    if name is None:  # a namedtuple has no attributes of its own (its subclass may)
        return _own_method(value) is not None
    if record_fields(cls) is None:
        return False
    owner, found = defined(cls, name)
    return owner is not None and owner not in (tuple, object) and isinstance(
        found, (types.FunctionType, staticmethod, classmethod, property))


def _own_method(value):
    """The name of an attribute of the instance `value` itself (not a field) that a class
    along its MRO defines as a method (a function, static or class method), or None."""
    own = getattr(value, "__dict__", None)
    if not own:
        return None
    cls = type(value)
    fields = getattr(cls, "__dataclass_fields__", ())
    return next((k for k in own if k not in fields and _is_method(*defined(cls, k))), None)


def _is_method(owner, found):
    """Whether `found`, what the class `owner` binds, is a method Python would call in
    place of an attribute of the instance under its name."""
    return owner not in (None, object) and isinstance(found, (types.FunctionType, staticmethod, classmethod))


def _not_followed_refusal(value, param, name, where):
    kind = type(value).__qualname__
    if name is None:
        own = _own_method(value)
        return (f"`{where}` calls a method of `{param}`, which holds a {kind} with an attribute `{own}` of its own, "
                f"set on the instance, under the name of a method of its class: srcgrad follows an argument's methods "
                "as its class defines them; call the function the attribute holds by a name of its own")
    return _shadowed(where, param, type(value), name)


def _shadowed(where, param, cls, name):
    return (f"`{where}` calls `{param}.{name}()`, where `{param}` holds a {cls.__qualname__} whose class defines `{name}`: "
            "srcgrad reads a call of a method of that name as the method of arrays (or of Python's lists, dicts, "
            "tuples or strings) it names, not as a method of a record; rename the method")


def _check_no_writes(program, node, called, bound, owner, func):
    """Refuse a method that sets an attribute of its object (`self.pos = ...`,
    `setattr(self, ...)`): srcgrad takes a record as immutable (its gradient and tangent
    are records of its class), and the caller's record would change under it; another
    object is held constant, and the derivative would run the write again (a gradient
    pass after the forward one) or read attributes the write changed."""
    cls = bound.cls
    try:
        method = frontend.load(func)
    except (SrcGradError, OSError, TypeError):
        return  # followed as any function of the user's: that refuses it itself
    args = method.tree.args.posonlyargs + method.tree.args.args
    if not args:
        return
    receiver = args[0].id
    for s in traversal.statements(method.tree):
        targets = s.targets if type(s) is gast.Assign else [s.target] if isinstance(s, (gast.AugAssign, gast.AnnAssign)) else []
        written = [t for target in targets for t in traversal.walk(target)
                   if type(t) is gast.Attribute and type(t.value) is gast.Name and t.value.id == receiver]
        if not written and isinstance(s, gast.Expr) and isinstance(s.value, gast.Call):
            call = s.value
            written = [call] if (syntax.is_name(call.func, "setattr") and call.args and syntax.is_name(call.args[0], receiver)) else []
        if written:
            field = written[0].attr if type(written[0]) is gast.Attribute else "..."
            advice = (f"srcgrad takes a record as immutable; make a new one (`dataclasses.replace({receiver}, "
                      f"{field}=...)`, `{receiver}._replace({field}=...)` of a namedtuple) and return it") if bound.record else (
                "srcgrad follows a method of an object passed as an argument only where it leaves the object as it "
                "is (the object is held constant); return the value, and set the attribute outside the "
                "differentiated function")
            raise program.error(
                node, f"`{program.name}` calls `{called}`, where `{called.partition('(')[0].partition('.')[0]}` holds "
                f"a {cls.__qualname__}, and `{owner.__qualname__}.{func.__name__}` sets `{receiver}.{field}` "
                f"({method.where(s)}): {advice}", NotDifferentiableError,
            )


def defines_method(cls, name):
    """Whether the class `cls` itself (not `tuple` or `object`) defines `name` as a plain
    function or a staticmethod of one, the namedtuple API aside: where `cls` is known at
    build time, `p.dot(q)` of such a class is its method, though arrays have one of
    that name."""
    owner, found = defined(cls, name)
    if isinstance(found, staticmethod):
        found = found.__func__
    return (owner not in (None, tuple, object) and name not in ("_replace", "_asdict", "_make")
            and isinstance(found, types.FunctionType))


def owner_of(fn):
    """The class whose body defines the function `fn` (by its `__qualname__`, from its
    module's globals), or None."""
    path = (getattr(fn, "__qualname__", "") or "").split(".")[:-1]
    if not path or "<locals>" in path:
        return None
    value = getattr(fn, "__globals__", {}).get(path[0])
    for part in path[1:]:
        value = getattr(value, part, None)
    return value if isinstance(value, type) and vars(value).get(fn.__name__) is not None else None


def own_array_named_calls(fn, tree):
    """The calls in `tree` (the function `fn`, a class's function) of a method named as
    an array's (`self.dot(o)`) that the class defines, on its first parameter: read as
    the array method where srcgrad does not know that parameter's class."""
    owner = owner_of(fn)
    args = tree.args.posonlyargs + tree.args.args
    if owner is None or not args:
        return []
    first = args[0].id
    return [node for node in traversal.walk(tree)
            if type(node) is gast.Call and type(node.func) is gast.Attribute and type(node.func.value) is gast.Name
            and node.func.value.id == first and not is_method_name(node.func.attr)
            and defines_method(owner, node.func.attr)]


def check_unbound_receiver(program):
    """Refuse a class's function calling a method of its class named as an array's on its
    first parameter (`self.dot(o)`) where that parameter is not bound to its class: the
    call would be read as the array method."""
    found = own_array_named_calls(program.fn, program.tree)
    if found and found[0].func.value.id not in program.records:
        node = found[0]
        receiver, name = node.func.value.id, node.func.attr
        raise program.error(
            node, f"`{program.name}` calls `{receiver}.{name}()`, which its class {owner_of(program.fn).__qualname__} "
            f"defines, where srcgrad does not know the class of `{receiver}` (the object was handed to it as an entry "
            f"or a field of another, or computed where srcgrad could not name it): srcgrad would read the call as the "
            f"method of arrays of that name; rename the method, or hand the object over by a name bound to it",
            NotDifferentiableError,
        )


def _check_not_shadowed(program, node, cls):
    """Refuse `p.mean()` where the record's class defines `mean` itself: srcgrad reads a
    call of that name as the method of arrays (or containers) it names."""
    param, name = node.func.value.id, node.func.attr
    owner, found = defined(cls, name)
    if owner is not None and owner not in (tuple, object) and name not in ("_replace", "_asdict", "_make") and (
            isinstance(found, (types.FunctionType, staticmethod, classmethod, property))):
        raise program.error(node, _shadowed(program.name, param, cls, name), NotDifferentiableError)


def defined(cls, name):
    """(the class along `cls`'s MRO whose body defines `name`, what it binds there), or
    (None, None)."""
    for klass in cls.__mro__:
        if name in vars(klass):
            return klass, vars(klass)[name]
    return None, None
