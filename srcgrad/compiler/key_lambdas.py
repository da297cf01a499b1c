"""A `lambda` as the `key=` of `sorted`, `min` or `max`, or of `ws.sort` on a local name
(idioms.py makes it `ws[:] = sorted(ws, key=...)` where `ws` is a list the function makes),
made a function object, as if defined at module level, which generated code reads as a
helper (`Program.held`).

Before:                                        After (`key_lambda_0` bound and held):
    ys = sorted(xs, key=lambda p: p[1])            ys = sorted(xs, key=key_lambda_0)

A key only orders the entries: no derivative flows through it, and the rules call it
(or not) as they call `key=abs`. The lambda is compiled in the function's globals, so
it may read its own parameters, globals and builtins; one that reads a local variable
of the function (whose value the rules could not see) is refused at its line, as are
`sorted`, `min` and `max` that do not mean the builtins (the lambda is then left alone,
and the fence refuses it). Returns a new tree; the parse stays as it was.
"""

import builtins

import gast

from ..errors import NotDifferentiableError
from . import printing, syntax
from .naming import Namer
from .scope import dotted_parts, lookup_path

_ORDERING = (builtins.sorted, builtins.min, builtins.max)


def run(program, transform="srcgrad.grad"):
    """`program.tree` with each `key=lambda ...` of sorted/min/max a name bound to the
    compiled lambda in `program.bound`."""
    if not any("lambda" in line for line in program.source_lines):
        return program.tree  # no lambda in the function's text
    calls = [n for n in syntax.walk(program.tree) if isinstance(n, gast.Call) and _key_lambda(n) is not None]
    if not calls:
        return program.tree
    local = set(syntax.names_stored(program.tree)) | {a.id for a in program.tree.args.args + program.tree.args.kwonlyargs}
    tree = syntax.copy(program.tree)
    namer = Namer.for_tree(tree)
    namer.taken |= set(program.globals) | set(program.bound)
    for call in (n for n in syntax.walk(tree) if isinstance(n, gast.Call)):
        keyword = _key_lambda(call)
        if keyword is None:
            continue
        parts = dotted_parts(call.func)
        sorts_local = parts is not None and len(parts) == 2 and parts[0] in local and parts[1] == "sort"
        if not sorts_local and (parts is None or parts[0] in local or lookup_path(parts, program) not in _ORDERING):
            continue
        name = namer.fresh("key_lambda")
        program.bound[name] = program.held[name] = _compiled(program, keyword.value, local, transform)
        keyword.value = syntax.name(name)
    return tree


def _key_lambda(call):
    return next((k for k in call.keywords if k.arg == "key" and isinstance(k.value, gast.Lambda)), None)


def _compiled(program, node, local, transform):
    """The function object of the lambda `node`, evaluated in the function's globals."""
    args = node.args
    own = {a.id for a in args.args + args.kwonlyargs} | {a.id for a in (args.vararg, args.kwarg) if a is not None}
    inner = {n.id for n in syntax.walk(node.body) if isinstance(n, gast.Name) and not isinstance(n.ctx, gast.Load)}
    reads = [n.id for n in syntax.walk(node) if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load)]
    outside = [name for name in reads if name not in own | inner and (name in local or name in program.cells)]
    if outside:
        raise program.error(
            node, f"the `lambda` given as `key=` reads `{outside[0]}`, a variable of `{program.name}`, which "
            f"{transform} cannot hand to the rules that order by it (it may read only its own parameters, globals and "
            f"builtins); compute the keys first and order by them (`order = np.argsort([abs(t - c) for t in xs])`, "
            f"`xs[int(np.argmax(keys))]`)",
            NotDifferentiableError,
        )
    text = printing.unparse(node).strip()
    return eval(compile(text, program.filename or "<lambda>", "eval"), program.globals)  # noqa: S307 - the user's own text
