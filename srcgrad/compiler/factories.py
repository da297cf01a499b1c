"""Functions the differentiated function makes and then calls: a closure factory's result
and a `functools.partial`, each bound once to a name at its top level, become nested
`def`s of that name, which closures.py inlines at their calls.

Before:                                    After:
    def make(a):                               f_a = 2.0
        def g(v):                              def f(v):
            return a * v                           return f_a * v
        return g
    f = make(2.0)

    f = functools.partial(g, a=3.0)            f_a = 3.0
                                               def f(v):
                                                   return g(v, a=f_a)

A factory is a nested `def` at the top level of the function whose body is one `def`
and its `return`, or `return lambda ...` (a docstring aside), taking plain parameters (constant defaults), and
used only as `name = make(...)` statements at that level: each becomes the factory's
arguments assigned to names of their own where the call stood (evaluated once, there, as
the call would) and the inner `def` under the name, the factory's parameters read
through those names. A partial is `name = functools.partial(g, ...)` there, of a nested
`def` or a Python function of the user's taking plain parameters (constant defaults):
its arguments are assigned where it stood, and the `def` calls `g` with them, the
partial's other parameters passed on by name. Both read their values when made, as
Python's do; the inner `def` still reads the enclosing function's variables when called.

Invariants: the name is assigned nowhere else in the function, the factory's
parameters are assigned and rebound nowhere in its inner `def` (no nested scope there
takes one of their names), and nothing else reads the factory: where any of it fails
the statement stays as written, for fence.py and closures.py to refuse with their own
messages. Returns a new tree where it rewrites anything, the same tree otherwise.
"""

import functools
import inspect
import types

import gast

from . import syntax, traversal
from .scope import MISSING, dotted_parts, lookup_path


def run(program):
    """`program.tree` with the factories' results and partials described above made nested defs."""
    tree = program.tree
    nested = {s.name for s in tree.body if type(s) is gast.FunctionDef}
    if not any(_made(s) and _may_make(s.value, nested, program) for s in tree.body):
        return tree  # most functions: no copy of the tree
    tree = syntax.copy(tree)
    namer = program.helper_namer()
    namer.taken |= set(traversal.names_stored(tree))
    counts = {}
    for n in traversal.nodes(tree):
        if type(n) is gast.Name and not isinstance(n.ctx, gast.Load):
            counts[n.id] = counts.get(n.id, 0) + 1
        elif type(n) is gast.FunctionDef and n is not tree:
            counts[n.name] = counts.get(n.name, 0) + 1
    defs = {s.name: s for s in tree.body if type(s) is gast.FunctionDef and counts.get(s.name) == 1}
    factories = {name: d for name, d in defs.items() if _inner(d) is not None}
    calls = {}  # factory name -> the ids of its calls this pass rewrites
    body, changed = [], False
    for s in tree.body:
        made = _made(s)
        name = s.targets[0].id if made else None
        if not made or counts.get(name) != 1:
            body.append(s)
            continue
        call = s.value
        fn = dotted_parts(call.func)
        new = None
        if fn is not None and len(fn) == 1 and fn[0] in factories:
            new = _from_factory(factories[fn[0]], call, name, namer)
            if new is not None:
                calls.setdefault(fn[0], set()).add(id(call))
        elif fn is not None and lookup_path(fn, program) is functools.partial:
            new = _from_partial(program, defs, counts, call, name, namer)
        if new is None:
            body.append(s)
        else:
            body += [syntax.located(n, s) for n in new]
            changed = True
    # a factory read otherwise keeps its calls as written (nothing else reads it: fence.py refuses it)
    for factory, rewritten in calls.items():
        reads = [n for n in traversal.nodes(program.tree) if syntax.is_name(n, factory) and isinstance(n.ctx, gast.Load)]
        if len(reads) != len(rewritten):
            return program.tree
    if not changed:
        return program.tree
    tree.body = [s for s in body if not (type(s) is gast.FunctionDef and s.name in calls)]
    return tree


def _may_make(call, nested, program):
    """Whether `call` (of a plain or dotted name) calls a nested `def` of the function's
    top level or `functools.partial`: one this pass may rewrite."""
    fn = dotted_parts(call.func)
    return (len(fn) == 1 and fn[0] in nested) or lookup_path(fn, program) is functools.partial


def _made(s):
    """Whether the statement `s` is `name = callee(...)`, a call of a plain or dotted name."""
    return (type(s) is gast.Assign and len(s.targets) == 1 and type(s.targets[0]) is gast.Name
            and type(s.value) is gast.Call and dotted_parts(s.value.func) is not None
            and not any(type(a) is gast.Starred for a in s.value.args) and all(k.arg for k in s.value.keywords))


def _inner(factory):
    """The `def` the nested function `factory` returns where its body is that `def` and
    its `return` and its parameters are plain ones with constant defaults; else None."""
    body = factory.body
    if body and type(body[0]) is gast.Expr and type(body[0].value) is gast.Constant:
        body = body[1:]
    if len(body) == 1 and type(body[0]) is gast.Return and type(body[0].value) is gast.Lambda:
        body = _as_def(body[0].value)  # `return lambda v: a * v`
        if body is None:
            return None
    if not (len(body) == 2 and type(body[0]) is gast.FunctionDef and type(body[1]) is gast.Return
            and syntax.is_name(body[1].value, body[0].name) and not body[0].decorator_list):
        return None
    if not _plain(factory.args):
        return None
    inner, params = body[0], {a.id for a in factory.args.args}
    for n in traversal.nodes(inner):
        if type(n) in (gast.Global, gast.Nonlocal):
            return None
        if n is not inner and type(n) in (gast.FunctionDef, gast.Lambda) and params & _parameters(n.args):
            return None
        if type(n) in (gast.ListComp, gast.SetComp, gast.DictComp, gast.GeneratorExp) and params & set(
                traversal.names_stored([g.target for g in n.generators])):
            return None
    if params & (set(traversal.names_stored(inner.body)) | {inner.name}):
        return None
    return inner


def _as_def(made):
    """[`def lambda_fn(...): return ...`, `return lambda_fn`] for the lambda `made` (no
    `*` or `**` parameters), or None."""
    args = made.args
    if args.vararg is not None or args.kwarg is not None or args.posonlyargs:
        return None
    made_def = syntax.function_def("lambda_fn", [a.id for a in args.args], [syntax.return_(made.body)],
                                   defaults=args.defaults, kwonly=[a.id for a in args.kwonlyargs],
                                   kw_defaults=args.kw_defaults)
    return [syntax.located(made_def, made), syntax.located(syntax.return_(syntax.name("lambda_fn")), made)]


def _plain(args):
    """Whether the parameters `args` are positional-or-keyword ones with constant defaults."""
    return (not args.posonlyargs and args.vararg is None and args.kwarg is None and not args.kwonlyargs
            and all(type(d) is gast.Constant for d in args.defaults))


def _parameters(args):
    found = {a.id for a in args.posonlyargs + args.args + args.kwonlyargs}
    return found | {a.id for a in (args.vararg, args.kwarg) if a is not None}


def _bind(params, defaults, call):
    """{parameter: the call's argument node, or its default's} for the call `call` of a
    function taking the positional-or-keyword `params`; None where they do not match."""
    if len(call.args) > len(params):
        return None
    bound = dict(zip(params, call.args))
    for k in call.keywords:
        if k.arg not in params or k.arg in bound:
            return None
        bound[k.arg] = k.value
    for p, default in zip(params[len(params) - len(defaults):], defaults):
        bound.setdefault(p, default)
    return bound if len(bound) == len(params) else None


def _from_factory(factory, call, name, namer):
    """The statements that replace `name = factory(...)`, the call `call`, or None."""
    inner = _inner(factory)
    params = [a.id for a in factory.args.args]
    bound = _bind(params, factory.args.defaults, call)
    if bound is None:
        return None
    own = _parameters(inner.args)
    names = {p: namer.fresh(f"{name}_{p}") for p in params if p not in own}
    out = [syntax.assign(names[p], syntax.copy(bound[p])) for p in params if p in names]
    made = syntax.copy(inner, lambda n: syntax.located(syntax.name(names[n.id]), n) if n.id in names
                       else syntax.located(syntax.name(name), n) if n.id == inner.name and isinstance(n.ctx, gast.Load)
                       else syntax.copy(n))
    made.name = name
    return out + [made]


def _from_partial(program, defs, counts, call, name, namer):
    """The statements that replace `name = functools.partial(g, ...)`, the call `call`, or None."""
    if not call.args or type(call.args[0]) is not gast.Name:
        return None
    fn = call.args[0].id
    if fn not in defs and counts.get(fn):
        return None  # a variable of the function: which function it holds is known when it runs
    if fn in defs:
        args = defs[fn].args
        if not _plain(args):
            return None
        params = [a.id for a in args.args]
        defaults = dict(zip(params[len(params) - len(args.defaults):], args.defaults))
    else:
        value = lookup_path([fn], program)
        if value is MISSING or type(value) is not types.FunctionType or (value.__module__ or "").startswith("srcgrad"):
            return None
        signature = inspect.signature(value).parameters.values()
        if any(p.kind is not p.POSITIONAL_OR_KEYWORD for p in signature) or any(
                p.default is not p.empty and not syntax.is_literal(p.default) for p in signature):
            return None
        params = [p.name for p in signature]
        defaults = {p.name: syntax.const(p.default) for p in signature if p.default is not p.empty}
    given = call.args[1:]
    if len(given) > len(params) or any(k.arg not in params or k.arg in params[:len(given)] for k in call.keywords):
        return None
    held = list(zip(params, given)) + [(k.arg, k.value) for k in call.keywords]
    names = {p: namer.fresh(f"{name}_{p}") for p, _ in held}
    out = [syntax.assign(names[p], syntax.copy(value)) for p, value in held]
    taken = {k.arg for k in call.keywords}
    rest = [p for p in params[len(given):] if p not in taken]
    if fn in rest or set(names.values()) & set(rest):
        return None  # a parameter would hide the function or a value the partial holds
    flags = [p in defaults for p in rest]
    if flags != sorted(flags):
        return None  # a parameter without a default after one with (a keyword bound between): keep it as written
    rest_defaults = [defaults[p] for p in rest if p in defaults]
    forwarded = syntax.call(syntax.name(fn), [syntax.name(names[p]) for p in params[:len(given)]],
                            [(p, syntax.name(p)) for p in rest] + [(k, syntax.name(names[k])) for k in taken])
    made = syntax.function_def(name, rest, [syntax.return_(forwarded)], defaults=[syntax.copy(d) for d in rest_defaults])
    return out + [made]
