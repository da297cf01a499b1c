"""Source text -> a live Python function. The only module that calls `compile`/`exec`.

The derivative is compiled inside a factory whose parameters are the helpers
(`np`, `unbroadcast`, rule helpers), so nothing is added to the user's module. The
function's globals are the user's live module dict, and the user's closure cells are
shared, so later rebinding of globals or closed-over variables is seen. The text is
registered in `linecache` under a pseudo file name (`<srcgrad f:grad>`), so tracebacks
and pdb show generated lines. Nothing is written to disk.

The compiled text (not the printed one) runs each function's body inside
`try: ... except Exception` whose handler adds a note to the error (Python 3.11+) naming
the line of the derivative it passed and the user's line that line computes or
differentiates (`Guard`), then re-raises it unchanged: an error in the user's own code, or
in a derivative (`0.0 ** -0.5`), reads as the user's line. A `try` costs nothing until
something is raised.

The default values of the generated function are the user function's own (the pipeline
sets `__defaults__` from it), so the default expressions in the text are shown but never
evaluated: they may read a local of the function that made the user's, long gone.
"""

import ast
import linecache
import re
import types

from ..errors import SrcGradError

_FACTORY = "__srcgrad_factory__"
_OUTER = "__srcgrad_outer__"


def function(text, fn_name, program, helpers, label, origin=None):
    """Compile `text` (defining `fn_name`) for `program`'s scope, with `helpers` bound.
    `origin()`, called when an error needs it, gives (user file, user function name,
    {line of `text`: (user line, whether the line differentiates it)})."""
    guarded, text_lines = _guarded(text)
    names = list(helpers) + [_GUARD]
    body = "".join("    " + line if line.strip() else line for line in guarded.splitlines(True))
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
    guard = Guard(filename, text, [None] * (3 if free else 1) + text_lines, program.name, origin)
    return make(*(helpers[n] for n in names[:-1]), guard)


_GUARD, _ERROR = "__srcgrad_guard__", "__srcgrad_error__"
_NESTED_DEF = re.compile(r"\n *def ")


def _guarded(text):
    """(`text` with each function's body, after its docstring, inside `try:` ... `except
    Exception` calling the guard, [the line of `text` at each line of the result, or None])."""
    head = text.split("\n", 2)
    if len(head) == 3 and _NESTED_DEF.search(text) is None:  # one function: its body shifted at once
        doc = head[1].strip()
        if not doc.startswith('"""') or (doc.endswith('"""') and len(doc) >= 6):
            kept = 2 if doc.startswith('"""') else 1
            body = head[2] if kept == 2 else head[1] + "\n" + head[2]
            body = body.rstrip("\n")
            count = body.count("\n") + 1
            out = "\n".join(head[:kept]) + "\n    try:\n    " + body.replace("\n", "\n    ") + "\n"
            closing = [f"    except Exception as {_ERROR}:", f"        {_GUARD}.note({_ERROR})", "        raise"]
            at = list(range(1, kept + 1)) + [None] + list(range(kept + 1, kept + count + 1)) + [None] * 3
            return out + "\n".join(closing) + "\n", at
    out, at, open_defs = [], [], []  # open_defs: the indentation of each guarded body, innermost last
    lines = text.splitlines()
    k = 0
    while k < len(lines):
        line = lines[k]
        stripped = line.lstrip()
        indent = len(line) - len(stripped)
        while stripped and open_defs and indent < open_defs[-1]:
            _close(out, at, open_defs.pop(), len(open_defs))
        shift = "    " * len(open_defs)
        out.append(shift + line if stripped else line)
        at.append(k + 1)
        k += 1
        if stripped.startswith("def ") and line.endswith(":"):
            body = indent + 4
            if k < len(lines) and lines[k].lstrip().startswith('"""'):  # the docstring stays first
                end = k if lines[k].strip().endswith('"""') and len(lines[k].strip()) >= 6 else next(
                    (j for j in range(k + 1, len(lines)) if lines[j].rstrip().endswith('"""')), len(lines) - 1)
                for j in range(k, end + 1):
                    out.append(shift + lines[j])
                    at.append(j + 1)
                k = end + 1
            out.append(shift + " " * body + "try:")
            at.append(None)
            open_defs.append(body)
    while open_defs:
        _close(out, at, open_defs.pop(), len(open_defs))
    return "\n".join(out) + "\n", at


def _close(out, at, body, depth):
    """The `except` clause ending a guarded body indented by `body` (and `depth` guards)."""
    pad = "    " * depth + " " * body
    out += [f"{pad}except Exception as {_ERROR}:", f"{pad}    {_GUARD}.note({_ERROR})", f"{pad}    raise"]
    at += [None, None, None]


class Guard:
    """What the handler of a generated function's guarded body calls: adds to an error a
    note that names the generated line it passed and the user's line behind it."""

    def __init__(self, filename, text, text_lines, name, origin):
        self.filename, self.text, self.text_lines, self.name, self.origin = filename, text, text_lines, name, origin

    def note(self, error):
        if not hasattr(error, "add_note") or (isinstance(error, SrcGradError) and (
                error.filename is not None or ", line " in str(error))):
            return  # Python 3.10; or a refusal whose message names the user's line (a runtime check's
            # that names none, `structure_like`'s on lists joined as arithmetic, gets the note)
        tb = error.__traceback__
        while tb is not None and tb.tb_frame.f_code.co_filename != self.filename:
            tb = tb.tb_next
        if tb is None or not 0 < tb.tb_lineno <= len(self.text_lines) or self.text_lines[tb.tb_lineno - 1] is None:
            return
        line = self.text_lines[tb.tb_lineno - 1]
        note = self._note(tb.tb_frame.f_code.co_name, line)
        if note not in getattr(error, "__notes__", ()):  # a recursive derivative: once
            error.add_note(note)

    def _note(self, fn_name, line):
        generated = self.text.splitlines()[line - 1].strip()
        if len(generated) > 100:
            generated = generated[:96] + " ..."
        filename, name, lines = self.origin() if self.origin is not None else (None, None, {})
        if name is None or name == self.name:
            here = f"srcgrad: raised in `{fn_name}`, the derivative of `{self.name}`, at `{generated}`"
        else:  # generated from generated code (a Hessian), its lines carried on to the user's
            here = f"srcgrad: raised in `{fn_name}`, which srcgrad generated from `{name}`, at `{generated}`"
        found = lines.get(line)
        if found is None:
            return here if self.origin is not None else (
                f"srcgrad: raised in `{fn_name}`, which srcgrad generated, at `{generated}`")
        user_line, differentiates = found
        user_text = linecache.getline(filename, user_line).strip()
        doing = "differentiating" if differentiates else "computing"
        return f"{here},\n  {doing} `{user_text}` ({filename}, line {user_line})"


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
