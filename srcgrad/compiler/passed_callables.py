"""Callables holding values of their own passed to a parameter (function_arguments.py):
a `functools.partial` of a Python function, a bound method, a callable object. The
parameter is bound to a `Passed`: the Python function it calls and where the values it
holds lie in it, never the values themselves. A call of the parameter is rewritten into a
call of that function, the values read from the parameter itself at run time (once, at
the top of the function: `f_A = f.args[0]`, `f_k = f.keywords['k']`, `f_self = f.__self__`):

    f = functools.partial(rhs, A, k=2.0):   f(y)  ->  rhs(f_A, y, k=f_k)
    f = model.forward:                      f(y)  ->  Model_forward(f_self, y)
    f = model (its class defines __call__): f(y)  ->  Model_call(f, y)

so the derivative of one binding serves every partial of the same function and shape
(positional count, keyword names) and every instance of the class: a new partial or
instance gives its own numbers. The held values are constants (no gradient flows into
them); the instance's attributes are read through `self` when the derivative runs. A
bound method of an object of the user's class is bound per that class too (`receiver`,
a record_methods.RecordOf): the name its instance is read into (`f_self`) is bound to
it in `Program.records`, so the method's `self.helper(y)` is followed through the class.
An element of a container of callables (passed_containers.py) is read from the container
(`layers[1].__self__`, `Program.elements`).

A dataclass instance or namedtuple is no callable object here but a record
(record_methods.py): its fields get gradients. A callable object of a class of the
user's own code is bound to its class there too (function_arguments.followed), so its
`__call__` may call its other methods; what remains here is the object of a class from
an installed package.

Invariants: a `Passed` is interned per (function, held paths, keyword names) while any
table holds it, so ids key it safely; a callable srcgrad cannot follow this way is bound
to a `Passed` with `refused` set, and its first call is refused at the user's line.
"""

import functools
import inspect
import types
import weakref

import gast

from ..errors import NotDifferentiableError
from . import syntax, traversal
from .naming import Namer
from .scope import first_meaning
from .stand_in import is_instance, is_user_function, spelling


class Passed:
    """What a call of a parameter holding a partial, bound method or callable object calls:
    `func` with the values at `held` (paths into the parameter's value) first, then the
    call's arguments, then the keywords `keywords` it holds that the call does not pass."""

    __slots__ = ("func", "held", "keywords", "__name__", "refused", "receiver", "__weakref__")
    srcgrad_passed = True  # how frontend.Program.bindings knows one

    def __init__(self, func, held, keywords, name, refused=None, receiver=None):
        self.func, self.held, self.keywords, self.__name__, self.refused = func, held, keywords, name, refused
        # a bound method's: the `RecordOf` of its instance's class (record_methods.py), whose
        # methods the method's calls `self.helper(...)` are followed through; else None
        self.receiver = receiver

    def __repr__(self):
        return self.__name__


_INTERNED = weakref.WeakValueDictionary()  # (func, held, keywords) or a refusal's text -> its Passed


def _interned(key, *fields):
    found = _INTERNED.get(key)
    if found is None:
        found = _INTERNED[key] = Passed(*fields)
    return found


def passed(value, receiver_of=None):
    """The `Passed` of `value`, a partial, bound method or callable object (a refused one
    where srcgrad cannot follow it so), else None. `receiver_of(instance)` gives a bound
    method's `receiver` (record_methods.record_of: function_arguments.followed)."""
    if type(value) is functools.partial:
        return _partial(value, receiver_of)
    if type(value) is types.MethodType:
        return _method(value, receiver_of)
    if is_instance(value) and callable(value):
        return _instance(value)
    return None


def _refused(text):
    return _interned(text, None, (), (), "a callable srcgrad cannot follow", text)


def _method(value, receiver_of):
    func, owner = value.__func__, value.__self__
    if not is_user_function(func):
        return _refused(f"a bound method of `{spelling(func)}`, which is not a Python function")
    cls = owner if isinstance(owner, type) else type(owner)
    receiver = receiver_of(owner) if receiver_of is not None and not isinstance(owner, type) else None
    return _interned((func, (("__self__",),), (), receiver), func, (("__self__",),), (),
                     f"a {cls.__qualname__}'s {func.__name__}", None, receiver)


def _instance(value):
    cls = type(value)
    call = inspect.getattr_static(cls, "__call__", None)
    if not is_user_function(call):
        return _refused(f"a {cls.__qualname__}, whose class's `__call__` is not a Python function (a plain `def`)")
    return _interned((call, ((),), ()), call, ((),), (), f"a {cls.__qualname__}")


def _partial(value, receiver_of):
    inner = value.func
    if is_user_function(inner):
        shape = _interned((inner, (), ()), inner, (), (), inner.__name__)
    elif type(inner) is types.MethodType or (is_instance(inner) and callable(inner)):
        shape = passed(inner, receiver_of)
    else:
        return _refused(f"a functools.partial of `{spelling(inner)}`: srcgrad follows a partial passed as an "
                        "argument only of a Python function, a bound method of one or a callable object")
    if shape.refused:
        return shape
    held = tuple(("func",) + path for path in shape.held) + tuple(("args", k) for k in range(len(value.args)))
    keywords = tuple(value.keywords)
    found = _INTERNED.get((shape.func, held, keywords, shape.receiver))
    if found is not None:  # its shape checked before
        return found
    try:
        inspect.signature(value)
    except (TypeError, ValueError):
        return _refused(f"a functools.partial whose keywords `{spelling(shape.func)}` does not take")
    shown = ", ".join([shape.__name__] + ["..."] * len(value.args) + [f"{k}=..." for k in keywords])
    return _interned((shape.func, held, keywords, shape.receiver), shape.func, held, keywords,
                     f"functools.partial({shown})", None, shape.receiver)


def run(program):
    """`program.tree` with each call of a parameter bound to a `Passed` rewritten into a
    call of its function (the module docstring), that function bound to a helper name in
    `program.bound` and `program.held`, each value it holds read once at the top
    (`f_k = f.keywords['k']`: a parameter bound so is never assigned); a call of a
    refused one is refused at its line. Returns a new tree; the parse stays as it was."""
    shapes = {name: value for name, value in program.bound.items() if isinstance(value, Passed)}
    if not shapes:
        return program.tree
    tree = syntax.copy(program.tree)
    namer = Namer.for_tree(tree)
    namer.taken |= set(program.globals) | set(program.bound)
    helpers, reads, prologue = {}, {}, []

    def read(param, path, word, at):
        container, step = program.elements.get(param, (None, None))
        whole = syntax.name(param) if container is None else _read(syntax.name(container), (step,))  # `layers[1]`
        if not path:
            return syntax.located(whole, at)  # the object itself
        if (param, path) not in reads:
            reads[param, path] = namer.fresh(f"{param}_{word}")
            prologue.append(syntax.located(syntax.assign(syntax.name(reads[param, path], store=True),
                                                         _read(whole, path)), at))
        return syntax.name(reads[param, path])

    def helper(shape):
        if shape.func not in helpers:
            func = shape.func
            preferred = func.__name__ if func.__name__.isidentifier() else "lambda_fn"
            if shape.held and shape.held[0][:1] != ("args",):  # a receiver first: a method
                owner = func.__qualname__.rpartition(".")[0].rpartition(".")[2] or "method"
                preferred = f"{owner}_{'call' if preferred == '__call__' else preferred}"
            own = first_meaning(preferred, program) is func and preferred not in namer.locals
            name = preferred if own else namer.fresh(preferred)  # the function's own global name where it is one
            program.bound[name] = program.held[name] = func
            helpers[func] = name
        return helpers[shape.func]

    def rewrite(node):
        if isinstance(node.func, gast.Name) and node.func.id in shapes:
            return _call(program, node, shapes[node.func.id], helper, read)
        return node

    _receivers_read(program, tree, shapes)
    body = calls_rewritten(tree.body, set(shapes), rewrite)
    docstring = 1 if body and isinstance(body[0], gast.Expr) and isinstance(body[0].value, gast.Constant) else 0
    tree.body = body[:docstring] + prologue + body[docstring:]
    return tree


def _receivers_read(program, tree, shapes):
    """Bind each name that the function reads a bound method's instance into, once, at
    its top level (`f_self = f.__self__`: the generated code of a derivative, differentiated
    again, reads it so) to the `receiver` of its `Passed` in `program.records`."""
    counts = {}
    for n in (n for s in tree.body for n in traversal.nodes(s)):
        if type(n) is gast.Name and not isinstance(n.ctx, gast.Load):
            counts[n.id] = counts.get(n.id, 0) + 1
    for s in tree.body:
        if (type(s) is gast.Assign and len(s.targets) == 1 and type(s.targets[0]) is gast.Name
                and counts.get(s.targets[0].id) == 1 and type(s.value) is gast.Attribute and s.value.attr == "__self__"):
            read = s.value.value
            read = read.value if type(read) is gast.Attribute and read.attr == "func" else read
            shape = shapes.get(read.id) if type(read) is gast.Name else None
            if shape is not None and shape.receiver is not None:
                program.records[s.targets[0].id] = shape.receiver


def calls_rewritten(body, names, rewrite):
    """The statements `body` with each call of one of `names` or of an attribute of one
    (`f(y)`, `p.apply(x)`) where no nested scope (a `def`, a lambda, a comprehension)
    rebinds the name replaced by `rewrite(call)`, its own arguments rewritten first."""

    def visit(node, hidden):
        if isinstance(node, (gast.FunctionDef, gast.Lambda)):
            args = node.args
            own = {a.id for a in args.posonlyargs + args.args + args.kwonlyargs}
            own |= {a.id for a in (args.vararg, args.kwarg) if a is not None}
            hidden = hidden | own
        elif isinstance(node, (gast.ListComp, gast.SetComp, gast.DictComp, gast.GeneratorExp)):
            hidden = hidden | set(traversal.names_stored([g.target for g in node.generators]))
        for field, value in gast.iter_fields(node):
            if isinstance(value, list):
                setattr(node, field, [visit(v, hidden) if isinstance(v, gast.AST) else v for v in value])
            elif isinstance(value, gast.AST):
                setattr(node, field, visit(value, hidden))
        if isinstance(node, gast.Call):
            root = node.func.value if isinstance(node.func, gast.Attribute) else node.func
            if isinstance(root, gast.Name) and root.id in names and root.id not in hidden:
                return rewrite(node)
        return node

    return [visit(stmt, frozenset()) for stmt in body]


def _call(program, node, shape, helper, read):
    """The call `node` of a parameter bound to `shape`, as a call of its function."""
    param = node.func.id
    if shape.refused:
        raise program.error(
            node, f"`{program.name}` calls its parameter `{param}`, which holds {shape.refused}; pass a Python "
            "function, or one that calls this callable with its arguments written out", NotDifferentiableError,
        )
    given = {k.arg for k in node.keywords}
    if shape.keywords and None in given:
        raise program.error(
            node, f"`{program.name}` calls its parameter `{param}`, a functools.partial holding keyword arguments, "
            f"with `**` keywords: srcgrad cannot tell which of them the call replaces; pass them by name",
            NotDifferentiableError,
        )
    names = list(inspect.signature(shape.func).parameters)
    receivers = sum(1 for path in shape.held if path[:1] != ("args",))
    held = [read(param, path, "self" if path[:1] != ("args",) else _positional(names, receivers + path[1]), node)
            for path in shape.held]
    if shape.receiver is not None and held and type(held[0]) is gast.Name:
        program.records[held[0].id] = shape.receiver  # the method's `self.helper(...)` followed through its class
    keywords = [(k.arg, k.value) for k in node.keywords]
    keywords += [(k, read(param, ("keywords", (k,)), k, node)) for k in shape.keywords if k not in given]
    made = syntax.call(syntax.name(helper(shape)), held + list(node.args), keywords)
    return syntax.located(made, node)


def _positional(names, index):
    return names[index] if index < len(names) else f"arg{index}"


def _read(node, path):
    """`node` read along `path`: a string is an attribute, an int an index, a 1-tuple a key."""
    for step in path:
        if isinstance(step, str):
            node = syntax.attr(node, step)
        else:
            node = syntax.subscript(node, syntax.const(step[0] if isinstance(step, tuple) else step))
    return node
