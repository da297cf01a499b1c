"""Functions taking `*args` or `**kwargs` (a decorator's wrapper, `def total(*xs)`),
differentiated per call's arity.

A call fixes how many positional arguments `*args` collects and which keywords
`**kwargs` does, so for that call the function is the explicit one

    def wrapper(a, *args, **kwargs):        def wrapper(a, args_0, args_1, *, scale):
        ...                         ->          args = (args_0, args_1)
                                                kwargs = {'scale': scale}
                                                ...

which the rest of the pipeline differentiates as written: `f(*args, **kwargs)` of the
tuple and dict displays bound there is spelled out by unpacking.py, `len(args)` is a
number, `kwargs.get('k', d)` reads the display; a leading `v = kwargs.pop('k', d)` is
read here (`_popped`). The variant (`variant`) is a copy of
the function (its code, globals, closure) carrying the arity in `__srcgrad_arity__`,
which frontend.load applies to the parsed tree (`explicit`), and the explicit
signature in `__signature__`, which every `inspect.signature` reads.

Invariants: the explicit function computes what the original does for every call of
that arity (the tuple and the dict are new objects, as Python makes them at a call);
one variant per (function, its code, count of `*args`, keywords of `**kwargs` in call
order); a keyword becomes a parameter of its own name (callers pass it by name), so a
keyword naming a variable the function reads from outside (a global, a builtin) or a
parameter is refused; the arity is applied only to the code it was made for (a
derivative's wrapper copying the variant's attributes is not rewritten).
"""

import inspect
import keyword
import types
import weakref

import gast

from ..errors import SrcGradError
from . import syntax, traversal
from .stand_in import in_user_code, stand_in

_STARS = inspect.CO_VARARGS | inspect.CO_VARKEYWORDS
_MADE_BY_SRCGRAD = ("__srcgrad_lazy__", "__srcgrad_per_call__", "__srcgrad_compiled__", "__srcgrad_definition__",
                    "defvjp")


def takes_varargs(fn):
    """Whether `fn` is a Python function of the user's whose own code takes `*args` or
    `**kwargs` (not a variant, nor a function srcgrad made or has rules for, nor one of
    the standard library's or an installed package's: `dataclasses.replace`)."""
    code = getattr(fn, "__code__", None)
    if type(fn) is not types.FunctionType or code is None or not code.co_flags & _STARS or arity(fn) is not None:
        return False
    if any(hasattr(fn, a) for a in _MADE_BY_SRCGRAD) or (fn.__module__ or "").startswith("srcgrad"):
        return False
    return in_user_code(fn) and stand_in(fn) is fn


def arity(fn):
    """(count of `*args`, keywords of `**kwargs`) of a variant for its own code, else None."""
    found = getattr(fn, "__srcgrad_arity__", None)
    if found is None or getattr(fn, "__code__", None) is not found[0]:
        return None
    return found[1], found[2]


def original(fn):
    """The function the variant `fn` was made of (whose `__code__` a user may replace),
    else `fn`."""
    made_of = getattr(fn, "__srcgrad_varargs_of__", None)
    found = made_of() if made_of is not None and arity(fn) is not None else None
    return fn if found is None else found


def variant(fn, count, keywords):
    """The explicit variant of `fn` (`takes_varargs`) for a call with `count` positional
    arguments and the keywords `keywords` (names, in order); interned."""
    code = fn.__code__
    named = code.co_varnames[:code.co_argcount]
    kwonly = code.co_varnames[code.co_argcount:code.co_argcount + code.co_kwonlyargcount]
    plain = set(named[code.co_posonlyargcount:]) | set(kwonly)
    extra = max(0, count - code.co_argcount) if code.co_flags & inspect.CO_VARARGS else 0
    collected = tuple(k for k in keywords if k not in plain) if code.co_flags & inspect.CO_VARKEYWORDS else ()
    key = (code, extra, collected)
    try:
        table = _VARIANTS.setdefault(fn, {})
    except TypeError:
        table = {}
    found = table.get(key)
    if found is None:
        if len(table) >= _KEPT:
            del table[next(iter(table))]
        found = table[key] = _made(fn, extra, collected)
    return found


_KEPT = 32
_VARIANTS = weakref.WeakKeyDictionary()  # function -> {(its code, count, keywords): variant}; oldest first


def variant_for_call(fn, call):
    """`fn`'s variant for the call node `call` where `fn` takes `*args` or `**kwargs` and
    the call shows its arity (no `*a` nor `**d` left in it); `fn` otherwise. A keyword
    that cannot be a parameter is a `SrcGradError` (`variant`)."""
    if not takes_varargs(fn) or any(type(a) is gast.Starred for a in call.args) or any(
            k.arg is None for k in call.keywords):
        return fn
    return variant(fn, len(call.args), [k.arg for k in call.keywords])


def _made(fn, extra, keywords):
    code = fn.__code__
    refused = _refused_keyword(fn, keywords)
    if refused is not None:
        raise SrcGradError(refused, code.co_filename, code.co_firstlineno)
    made = types.FunctionType(code, fn.__globals__, fn.__name__, None if extra else fn.__defaults__, fn.__closure__)
    made.__dict__.update(fn.__dict__)
    made.__kwdefaults__, made.__qualname__ = fn.__kwdefaults__, fn.__qualname__
    made.__srcgrad_arity__ = (code, extra, keywords)
    made.__srcgrad_varargs_of__ = weakref.ref(fn)  # weak: the variants table is keyed by `fn`
    made.__signature__ = _signature(fn, extra, keywords)
    return made


def _refused_keyword(fn, keywords):
    code = fn.__code__
    params = set(code.co_varnames[:code.co_argcount + code.co_kwonlyargcount + bin(code.co_flags & _STARS).count("1")])
    for k in keywords:
        if not k.isidentifier() or keyword.iskeyword(k) or k in params:
            return (f"`{fn.__name__}` is called with the keyword argument {k!r}, which its `**` parameter collects: "
                    "srcgrad writes each such keyword as a parameter of its own name, which this one cannot be (not a "
                    "name, or the name of a parameter); pass it under another name")
    return None


def _names(fn, extra, keywords):
    """The parameters standing for the `extra` arguments `*args` collects: `args_0`, ...,
    not a name the function's code uses."""
    code = fn.__code__
    star = code.co_varnames[code.co_argcount + code.co_kwonlyargcount]
    taken = set(keywords) | _code_names(code)
    out = []
    for k in range(extra):
        name = f"{star}_{k}"
        while name in taken:
            name += "_"
        out.append(name)
    return out


def _code_names(code):
    names = set(code.co_varnames) | set(code.co_names) | set(code.co_freevars) | set(code.co_cellvars)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names |= _code_names(const)
    return names


def _signature(fn, extra, keywords):
    params = []
    for p in inspect.signature(fn, follow_wrapped=False).parameters.values():
        if p.kind is p.VAR_POSITIONAL:
            params += [inspect.Parameter(n, p.POSITIONAL_OR_KEYWORD) for n in _names(fn, extra, keywords)]
        elif p.kind is p.VAR_KEYWORD:
            params += [inspect.Parameter(k, p.KEYWORD_ONLY) for k in keywords]
        elif extra and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
            params.append(p.replace(kind=p.POSITIONAL_OR_KEYWORD, default=p.empty))  # all given by position
        else:
            params.append(p.replace(kind=p.POSITIONAL_OR_KEYWORD) if p.kind is p.POSITIONAL_ONLY else p)
    return inspect.Signature(params)


def explicit(program):
    """`program.tree` written out for the arity of `program.fn` (a variant), or a
    `SrcGradError` for a keyword that would shadow a name read from outside; the tree
    itself for any other function."""
    found = arity(program.fn)
    tree = program.tree
    if found is None or (tree.args.vararg is None and tree.args.kwarg is None):
        return tree
    extra, keywords = found
    tree = syntax.copy(tree)
    args = tree.args
    star, stars = args.vararg, args.kwarg
    stored = _stored_in_scope(tree.body)
    for k in keywords:
        free = next((n for n in traversal.walk(tree) if type(n) is gast.Name and n.id == k and k not in stored), None)
        if free is not None:
            raise program.error(
                free, f"`{tree.name}` reads `{k}`, a name from outside the function, and is called with the keyword "
                f"argument `{k}`, which its `**{stars.id}` collects: srcgrad writes each such keyword as a parameter "
                f"of its own name, which would hide the outer `{k}`; pass the keyword under another name",
            )
    prologue = []
    if star is not None:
        names = _names(program.fn, extra, keywords)
        args.args = args.args + [syntax.located(gast.Name(id=n, ctx=gast.Param(), annotation=None, type_comment=None),
                                                star) for n in names]
        if extra:
            args.defaults = []
        prologue.append(syntax.assign(star.id, syntax.tuple_([syntax.name(n) for n in names])))
    first = tree.body[0] if tree.body else None
    at = 1 if type(first) is gast.Expr and type(first.value) is gast.Constant and isinstance(first.value.value, str) else 0
    if stars is not None:
        args.kwonlyargs = args.kwonlyargs + [
            syntax.located(gast.Name(id=k, ctx=gast.Param(), annotation=None, type_comment=None), stars) for k in keywords]
        args.kw_defaults = args.kw_defaults + [None] * len(keywords)
        tree.body[at:], kept = _popped(tree.body[at:], stars.id, keywords)
        prologue.append(syntax.assign(stars.id, syntax.dict_([syntax.const(k) for k in kept],
                                                             [syntax.name(k) for k in kept])))
    args.vararg = args.kwarg = None
    tree.body[at:at] = [syntax.located(s, star or stars) for s in prologue]
    return tree


def _popped(body, stars, keywords):
    """(`body`, the keywords left in `**stars`) with its leading `v = kwargs.pop('k', d)`
    (or `kwargs.pop('k', d)` alone) read statically: `v = k` for a keyword the call
    passes, `v = d` for one it does not, the key left out of the dict. Only statements
    before which nothing reads `kwargs` are so read (they see the dict as the call made
    it), with `d` a literal or a name, which reading cannot change."""
    left, out = list(keywords), []
    for k, stmt in enumerate(body):
        value = stmt.value if type(stmt) is gast.Expr or (type(stmt) is gast.Assign and len(stmt.targets) == 1) else None
        pop = value if (type(value) is gast.Call and type(value.func) is gast.Attribute and value.func.attr == "pop"
                        and syntax.is_name(value.func.value, stars) and not value.keywords
                        and len(value.args) in (1, 2) and type(value.args[0]) is gast.Constant
                        and isinstance(value.args[0].value, str)) else None
        default = pop.args[1] if pop is not None and len(pop.args) == 2 else None
        key = pop.args[0].value if pop is not None else None
        if pop is None or (default is not None and not (type(default) is gast.Constant or (
                type(default) is gast.Name and default.id != stars))) or (key not in left and default is None):
            if any(type(n) is gast.Name and n.id == stars for n in traversal.walk(stmt)):
                return out + body[k:], left  # reads `kwargs`: what follows sees it as it is then
            out.append(stmt)
            continue
        got = syntax.name(key) if key in left else syntax.copy(default)
        if key in left:
            left.remove(key)
        if type(stmt) is gast.Assign:
            out.append(syntax.located(syntax.assign(stmt.targets[0], got), stmt))
    return out, left


_SCOPES = (gast.ListComp, gast.SetComp, gast.DictComp, gast.GeneratorExp, gast.Lambda, gast.FunctionDef)


def _stored_in_scope(body):
    """The names the function's own scope assigns (not a comprehension's, lambda's or
    nested function's variables)."""
    found, stack = set(), list(body)
    while stack:
        node = stack.pop()
        if isinstance(node, _SCOPES):
            continue
        if type(node) is gast.Name and isinstance(node.ctx, gast.Store):
            found.add(node.id)
        stack.extend(gast.iter_child_nodes(node))
    return found


def described(fn):
    """How a docstring names the arity of the variant `fn`: " (args = (args_0, args_1))";
    "" for any other function."""
    found = arity(fn)
    if found is None:
        return ""
    extra, keywords = found
    code = fn.__code__
    parts = []
    if code.co_flags & inspect.CO_VARARGS:
        star = code.co_varnames[code.co_argcount + code.co_kwonlyargcount]
        names = _names(fn, extra, keywords)
        parts.append(f"{star} = ({', '.join(names)}{',' if len(names) == 1 else ''})")
    if code.co_flags & inspect.CO_VARKEYWORDS:
        stars = code.co_varnames[code.co_argcount + code.co_kwonlyargcount + bool(code.co_flags & inspect.CO_VARARGS)]
        parts.append(f"{stars} = {{{', '.join(f'{k!r}: {k}' for k in keywords)}}}")
    return f" ({', '.join(parts)})"
