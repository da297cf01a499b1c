"""The text given with `source=` (grad, value_and_grad, vjp), or kept in linecache for a
file that is no file (`<string>`: the text given for an earlier function made by
`exec`), is the text the function was compiled from: compiled again, its `def` gives
the same bytecode, names and constants as the function's code. Another text would be
differentiated in the function's place, a silently wrong derivative (`x * x` given for
`def cube(x): return x * x * x`).

Checked where a compile of the text alone gives what the function's definition gave:
a function defined at the top level of its module (no closure, no class body whose
name mangling or nesting changes the bytecode); others are taken as given.
"""

import textwrap
import types

from ..errors import SrcGradError


def matches(fn, text):
    """False where `text` has a `def` of `fn`'s name that compiles to other code than
    `fn`'s; True otherwise (no such `def`, a text that does not compile: reported where
    it is parsed; a function this cannot be checked for)."""
    code = getattr(fn, "__code__", None)
    if code is None or not isinstance(text, str) or code.co_freevars or fn.__qualname__ != fn.__name__:
        return True
    try:
        module = compile(textwrap.dedent(text), "<source>", "exec", dont_inherit=True)
    except (SyntaxError, ValueError):
        return True
    found = [c for c in _code_objects(module) if c.co_name == code.co_name]
    return not found or any(_same(c, code) for c in found)


def check(fn, source):
    """Raise a SrcGradError naming `fn` where `source` compiles to other code than `fn`'s."""
    if matches(fn, source):
        return
    code = fn.__code__
    raise SrcGradError(
        f"the source given with source= for `{fn.__name__}` is not the text it was made from: its `def "
        f"{code.co_name}` compiles to other code than `{fn.__name__}` runs, so its derivative would be another "
        f"function's; pass the text that defined it",
        code.co_filename,
        code.co_firstlineno,
    )


def _code_objects(code):
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield const
            yield from _code_objects(const)


def _same(a, b):
    """Whether the code objects `a` and `b` run the same instructions on the same names
    and constants (line numbers and file names aside), nested code included."""
    if (a.co_code, a.co_names, a.co_varnames, a.co_argcount, a.co_kwonlyargcount) != (
            b.co_code, b.co_names, b.co_varnames, b.co_argcount, b.co_kwonlyargcount):
        return False
    if len(a.co_consts) != len(b.co_consts):
        return False
    for x, y in zip(a.co_consts, b.co_consts):
        if isinstance(x, types.CodeType) and isinstance(y, types.CodeType):
            if not _same(x, y):
                return False
        elif type(x) is not type(y) or repr(x) != repr(y):
            return False
    return True
