"""Source text -> a live Python function. The only module that calls `compile`/`exec`.

The derivative is compiled inside a factory whose parameters are the helpers
(`np`, `unbroadcast`, rule helpers), so nothing is added to the user's module. The
function's globals are the user's live module dict, and the user's closure cells are
shared, so later rebinding of globals or closed-over variables is seen. The text is
registered in `linecache` under a pseudo file name (`<srcgrad f:grad>`), so tracebacks
and pdb show generated lines. Nothing is written to disk.

The default values of the generated function are the user function's own (the pipeline
sets `__defaults__` from it), so the default expressions in the text are shown but never
evaluated: they may read a local of the function that made the user's, long gone.
"""

import ast
import linecache
import types

_FACTORY = "__srcgrad_factory__"
_OUTER = "__srcgrad_outer__"


def function(text, fn_name, program, helpers, label):
    """Compile `text` (defining `fn_name`) for `program`'s scope, with `helpers` bound."""
    names = list(helpers)
    body = "".join("    " + line if line.strip() else line for line in text.splitlines(True))
    factory = f"def {_FACTORY}({', '.join(names)}):\n{body}    return {fn_name}\n"
    free = [n for n in program.cells if n in text]
    if free:
        inner = "".join("    " + line if line.strip() else line for line in factory.splitlines(True))
        wrapped = f"def {_OUTER}():\n    {' = '.join(free)} = None\n{inner}    return {_FACTORY}\n"
    else:
        wrapped = factory
    filename = f"<srcgrad {program.name}:{label}>"
    code = compile(_without_defaults(wrapped, filename, fn_name) if _has_defaults(program.fn) else wrapped, filename, "exec")
    linecache.cache[filename] = (len(wrapped), None, wrapped.splitlines(True), filename)
    factory_code = _plain_names(_find_code(code, _FACTORY))
    closure = tuple(program.cells[n] for n in factory_code.co_freevars) or None
    make = types.FunctionType(factory_code, program.globals, _FACTORY, None, closure)
    return make(*(helpers[n] for n in names))


def _has_defaults(fn):
    return bool(getattr(fn, "__defaults__", None) or getattr(fn, "__kwdefaults__", None))


def _without_defaults(wrapped, filename, fn_name):
    """The module of `wrapped` with `fn_name`'s default expressions replaced by None (same lines)."""
    module = ast.parse(wrapped, filename)
    for node in ast.walk(module):
        if isinstance(node, ast.FunctionDef) and node.name == fn_name:
            args = node.args
            args.defaults = [ast.copy_location(ast.Constant(None), d) for d in args.defaults]
            args.kw_defaults = [d if d is None else ast.copy_location(ast.Constant(None), d) for d in args.kw_defaults]
            break
    return module


_WRAPPERS = (f"{_OUTER}.<locals>.", f"{_FACTORY}.<locals>.")


def _plain_names(code):
    """`code` with the qualified names of the functions it makes rid of the factory's
    (`two_grad`, not `__srcgrad_factory__.<locals>.two_grad`): Python names a function by
    them in its own errors (`two_grad() missing 1 required positional argument`)."""
    consts = []
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            const = _plain_names(const)
        elif isinstance(const, str):  # Python 3.10 passes a function's qualified name as a constant
            for wrapper in _WRAPPERS:
                const = const.replace(wrapper, "")
        consts.append(const)
    changes = {"co_consts": tuple(consts)}
    qualname = getattr(code, "co_qualname", None)  # Python 3.11
    if qualname is not None:
        for wrapper in _WRAPPERS:
            qualname = qualname.replace(wrapper, "")
        changes["co_qualname"] = qualname
    return code.replace(**changes)


def _find_code(code, name):
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            if const.co_name == name:
                return const
            found = _find_code(const, name)
            if found is not None:
                return found
    return None
