"""Source text -> a live Python function. The only module that calls `compile`/`exec`.

The derivative is compiled inside a factory whose parameters are the helpers
(`np`, `unbroadcast`, rule helpers), so nothing is added to the user's module. The
function's globals are the user's live module dict, and the user's closure cells are
shared, so later rebinding of globals or closed-over variables is seen. The text is
registered in `linecache` under a pseudo file name (`<srcgrad f:grad>`), so tracebacks
and pdb show generated lines. Nothing is written to disk.
"""

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
    code = compile(wrapped, filename, "exec")
    linecache.cache[filename] = (len(wrapped), None, wrapped.splitlines(True), filename)
    factory_code = _find_code(code, _FACTORY)
    closure = tuple(program.cells[n] for n in factory_code.co_freevars) or None
    make = types.FunctionType(factory_code, program.globals, _FACTORY, None, closure)
    return make(*(helpers[n] for n in names))


def _find_code(code, name):
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            if const.co_name == name:
                return const
            found = _find_code(const, name)
            if found is not None:
                return found
    return None
