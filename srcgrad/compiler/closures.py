"""Nested functions: a `def` (or `name = lambda ...`) inside the differentiated function
is inlined at each of its calls.

Before (ANF):  def scale(v, k=2.0):          After:  v_1 = x
                   return v * k                      k_1 = 2.0
               y = scale(x)                          v_1_times_k_1 = v_1 * k_1
                                                     y = v_1_times_k_1

The inlined body reads the enclosing function's variables at the call, as Python's
closures do. A nested function must be defined at the top level of the function body
(block_defs.py has moved there those of its blocks), only ever be called (not stored,
passed or returned), and have plain parameters (keyword-only ones too, no `*args`,
`**kwargs`) whose defaults read no variable of the enclosing function but the names
def_defaults.py assigned them where the `def` stood; a nested function
may call another one. A nested function that calls itself and reads nothing of the
enclosing function (neither its variables nor its other nested functions, which a real
function could not see) becomes a real function (`program.nested`), differentiated through its
own pullback like a module-level one. Anything else is a `SrcGradError` at its line.
"""

import textwrap

import gast

from . import anf, block_defs, jumps, syntax, traversal


def extract(tree, program):
    """Remove the nested functions from `tree.body`; returns {name: FunctionDef}."""
    functions, body = {}, []
    found = [(s, _as_function(s)) for s in tree.body]
    if all(fn is None for _, fn in found):
        return functions  # nothing nested: nothing to take out or check
    outer = {a.id for a in tree.args.args} | set(traversal.names_stored(tree))
    outer |= {fn.name for _, fn in found if fn is not None}  # a sibling may read the variables itself
    for s, fn in found:
        if fn is None:
            body.append(s)
            continue
        args = fn.args
        if args.vararg or args.kwarg or getattr(args, "posonlyargs", None) or fn.decorator_list:
            raise program.error(s, f"the nested function `{fn.name}` needs plain parameters and no decorators "
                                f"to be differentiated (in `{program.name}`); define it at module level")
        if any(d is not None and not _is_outer_constant(d, outer - program.default_names)
               for d in args.defaults + args.kw_defaults):
            raise program.error(s, f"the nested function `{fn.name}` has a default value that reads a variable "
                                f"of `{program.name}`; pass the value at the call")
        functions[fn.name] = fn
    tree.body = body
    for node in traversal.walk(tree):
        if isinstance(node, gast.Name) and node.id in functions:
            parent_is_call = any(
                isinstance(c, gast.Call) and c.func is node for c in traversal.walk(tree)
            )
            if not parent_is_call or isinstance(node.ctx, gast.Store):
                raise program.error(
                    node, f"the nested function `{node.id}` is used as a value (in `{program.name}`); srcgrad "
                    "inlines nested functions at their calls, so they can only be called (or made into another "
                    "one by `f = functools.partial(g, ...)` at the function's top level, `f` assigned once and called; "
                    "such an `f`, and one a closure factory makes, is a nested function too); to pass a function "
                    "to another, define it at module level, or pass it or a partial of it to the differentiated function",
                )
    for name, fn in list(functions.items()):
        for node in traversal.walk(fn):
            if isinstance(node, gast.Call) and syntax.is_name(node.func, name):
                read = _reads(fn, outer - {name})
                if read:
                    raise program.error(node, f"the nested function `{name}` calls itself and reads variables of "
                                        f"`{program.name}` ({', '.join(f'`{n}`' for n in read)}; in `{program.name}`); "
                                        "define it, and the nested functions it calls, at module level")
                program.nested[name] = _made(program, fn)  # a real function: differentiated like a global one
                del functions[name]
                break
    return functions


def _reads(fn, names):
    """The names of `names` the nested function reads (besides its own parameters and
    locals), sorted; empty where it reads none."""
    own = {a.id for a in fn.args.args + fn.args.kwonlyargs} | set(traversal.names_stored(fn))
    return sorted({n.id for n in traversal.walk(fn) if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load)
                   and n.id in names - own})


def _made(program, fn):
    """The function object of a nested `def` that reads nothing of its enclosing function:
    its own source run in the user's module globals, at its real line numbers (so srcgrad
    recovers its source like any function's), with its name bound to itself."""
    first, last = fn.lineno, getattr(fn, "end_lineno", None) or len(program.source_lines)
    text = "\n".join(program.source_lines[first - 1:last])
    body = "".join("    " + line + "\n" for line in textwrap.dedent(text).splitlines())
    offset = program.first_line + first - 3  # the factory's `def` sits on the line above the nested one
    factory = "\n" * offset + f"def __srcgrad_nested__():\n{body}    return {fn.name}\n"
    namespace = {}
    exec(compile(factory, program.filename, "exec"), program.globals, namespace)
    made = namespace["__srcgrad_nested__"]()
    made.__srcgrad_text__ = textwrap.dedent(text) + "\n"  # its definition at module level (standalone.py)
    return made


def _is_outer_constant(node, outer):
    """A default that means the same at every call: a constant, or an expression of
    globals (`math.pi`, `np.tanh`) that reads no variable of the enclosing function."""
    return syntax.is_const(node) or not any(isinstance(n, gast.Name) and n.id in outer for n in gast.walk(node))


def _as_function(s):
    return s if isinstance(s, gast.FunctionDef) else block_defs.as_function(s)


def inline(tree, functions, namer, local_names, listed_defs=()):
    """Replace each call of a nested function in the ANF `tree` by its normalized body. A
    generator `def` listed in place (`listed_defs`, generator_calls.py) builds its list
    under the name its call assigns (no second name for a list it appends to)."""
    if not functions:
        return tree
    bodies = {}
    for name, fn in functions.items():
        fn = jumps.run(syntax.copy(fn), namer)
        inner = set(local_names) | {a.id for a in fn.args.args + fn.args.kwonlyargs} | set(traversal.names_stored(fn))
        bodies[name] = anf.run(fn, namer, inner, listed_defs=listed_defs)
    tree.body = _block(tree.body, bodies, namer, listed=frozenset(listed_defs))
    return tree


def _block(stmts, bodies, namer, expanding=(), listed=frozenset()):
    """`stmts` with every call of a nested function replaced by its body; a body that calls
    another nested function is expanded in turn (`expanding`: the calls being expanded)."""
    out = []
    for s in stmts:
        for field in ("body", "orelse"):
            inner = getattr(s, field, None)
            if isinstance(inner, list) and inner and isinstance(inner[0], gast.stmt):
                setattr(s, field, _block(inner, bodies, namer, expanding, listed))
        call = s.value if isinstance(s, (gast.Assign, gast.Expr)) else None
        if isinstance(call, gast.Call) and isinstance(call.func, gast.Name) and call.func.id in bodies:
            name = call.func.id
            if name in expanding:
                err = NotImplementedError(f"the nested functions {' -> '.join(expanding + (name,))} call each other")
                err.node = s
                raise err
            target = s.targets[0] if isinstance(s, gast.Assign) else None
            expanded = [syntax.located(new, s) for new in _expand(bodies[name], call, target, namer, name in listed)]
            out += _block(expanded, bodies, namer, expanding + (name,), listed)
        else:
            out.append(s)
    return out


def _expand(fn, call, target, namer, listed=False):
    positional = [a.id for a in fn.args.args]
    params = positional + [a.id for a in fn.args.kwonlyargs]  # keyword-only ones: by keyword, or their defaults
    if len(call.args) > len(positional):
        raise TypeError(f"{fn.name}() takes {len(positional)} positional arguments but {len(call.args)} were given")
    stored = set(traversal.names_stored(fn.body))
    values = dict(zip(positional, call.args))
    values.update({k.arg: k.value for k in call.keywords})
    for k in call.keywords:
        if k.arg not in params:
            raise TypeError(f"{fn.name}() got an unexpected keyword argument {k.arg!r}")
    returned = fn.body[-1].value if fn.body and isinstance(fn.body[-1], gast.Return) else None
    built_as_target = (listed and isinstance(target, gast.Name) and isinstance(returned, gast.Name)
                       and returned.id in stored and returned.id not in params
                       and target.id not in {n.id for n in traversal.walk(fn) if isinstance(n, gast.Name)}
                       and target.id not in {n.id for v in values.values() for n in traversal.walk(v) if isinstance(n, gast.Name)})
    # a parameter the body never rebinds, passed a name, is that name: the body's writes into
    # it (`o[k] = v`) are seen as writes into the caller's object, as where the call is spliced
    passed = {p: values[p].id for p in params
              if p not in stored and isinstance(values.get(p), gast.Name) and values[p].id not in stored}
    renames = {n: namer.fresh(n) for n in sorted((set(params) | stored) - set(passed))}
    renames.update(passed)
    if built_as_target:  # the list a listed generator builds: under the call's target
        renames[returned.id] = target.id
    defaults = dict(zip(positional[len(positional) - len(fn.args.defaults):], fn.args.defaults))
    defaults.update({a.id: d for a, d in zip(fn.args.kwonlyargs, fn.args.kw_defaults) if d is not None})
    out = []
    for p in params:
        if p in passed:
            continue
        value = values.get(p, defaults.get(p))
        if value is None:
            raise TypeError(f"{fn.name}() missing the argument {p!r}")
        out.append(syntax.assign(renames[p], syntax.copy(value)))
    body = [syntax.copy(s) for s in fn.body]
    for s in body:
        for n in traversal.walk(s):
            if isinstance(n, gast.Name) and n.id in renames:
                n.id = renames[n.id]
    *rest, ret = body
    out += rest
    if target is not None and not (isinstance(target, gast.Name) and syntax.is_name(ret.value, target.id)):
        out.append(syntax.assign(syntax.copy(target), ret.value))  # (`out = put(out, ...)` returning `out`: no copy)
    return out
