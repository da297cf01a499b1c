"""A `lambda` as the `key=` of `sorted`, `min` or `max`, or of `ws.sort` on a local name
(idioms.py makes it `ws[:] = sorted(ws, key=...)` where `ws` is a list the function makes),
made a function object, as if defined at module level, which generated code reads as a
helper (`Program.held`).

Before:                                        After (`key_lambda_0` bound and held):
    ys = sorted(xs, key=lambda p: p[1])            ys = sorted(xs, key=key_lambda_0)

A key only orders the entries: no derivative flows through it, and the rules call it
(or not) as they call `key=abs`. The lambda is compiled in the function's globals, so
it may read its own parameters, globals and builtins; one that reads a local variable
of the function (whose value the rules could not see) is refused at its line, but over
`range(...)`, whose entries are integers: `sorted(range(n), key=lambda i: x[i])` becomes
`order_by("sorted", range(n), [x[i] for i in range(n)])` (runtime.order_by), the keys
computed in the function and the positions ordered by them (a function defined in the
function as the key, `key=score`, is called so: `[score(i) for i in range(n)]`). Also refused are
`sorted`, `min` and `max` that do not mean the builtins (the lambda is then left alone,
and the fence refuses it). Returns a new tree; the parse stays as it was.
"""

import builtins

import gast

from ..errors import NotDifferentiableError
from . import printing, syntax, traversal
from .naming import Namer
from .scope import dotted_parts, lookup_path

_ORDERING = (builtins.sorted, builtins.min, builtins.max)


def run(program, transform="srcgrad.grad"):
    """`program.tree` with each `key=lambda ...` of sorted/min/max a name bound to the
    compiled lambda in `program.bound`."""
    if not any("key" in line or "sorted" in line for line in program.source_lines):
        return program.tree  # no `key=` in the function's text, nor one sorted_loops.py wrote
    defs = {n.name for n in traversal.walk(program.tree) if isinstance(n, gast.FunctionDef) and n is not program.tree}
    calls = [n for n in traversal.walk(program.tree) if isinstance(n, gast.Call) and _key(n, defs) is not None]
    if not calls:
        return program.tree
    local = set(traversal.names_stored(program.tree)) | {a.id for a in program.tree.args.args + program.tree.args.kwonlyargs}
    tree = syntax.copy(program.tree)
    namer = Namer.for_tree(tree)
    namer.taken |= set(program.globals) | set(program.bound)
    for call in (n for n in traversal.walk(tree) if isinstance(n, gast.Call)):
        keyword = _key(call, defs)
        if keyword is None:
            continue
        parts = dotted_parts(call.func)
        sorts_local = parts is not None and len(parts) == 2 and parts[0] in local and parts[1] == "sort"
        if not sorts_local and (parts is None or parts[0] in local or lookup_path(parts, program) not in _ORDERING):
            continue
        nested = isinstance(keyword.value, gast.Name)  # a function defined in the function
        if not sorts_local and (nested or _outside(keyword.value, local, program)) and _over_range(call, program):
            _ordered_positions(call, keyword, lookup_path(parts, program).__name__, namer, program)
            continue
        if nested:
            continue  # the fence refuses a nested function used as a value
        name = namer.fresh("key_lambda")
        program.bound[name] = program.held[name] = _compiled(program, keyword.value, local, transform)
        keyword.value = syntax.name(name)
    return tree


def _over_range(call, program):
    """Whether `call`'s one positional argument is `range(...)` of arguments that call
    nothing but `len` and `min` (sorted_loops.py's `range(min(len(a), len(b)))`): its
    entries are integers, and evaluating it twice changes nothing."""
    if len(call.args) != 1 or not isinstance(call.args[0], gast.Call):
        return False
    made = call.args[0]
    parts = dotted_parts(made.func)
    if parts is None or lookup_path(parts, program) is not builtins.range or made.keywords:
        return False
    inner = [n for a in made.args for n in traversal.walk(a) if isinstance(n, gast.Call)]
    return all(dotted_parts(n.func) is not None and lookup_path(dotted_parts(n.func), program) in (builtins.len, builtins.min)
               for n in inner)


def _ordered_positions(call, keyword, how, namer, program):
    """`sorted(range(...), key=lambda i: e)` (min, max; `reverse=`, `default=` kept) as
    `order_by("sorted", range(...), [e for i in range(...)])` (`key=f`, a function
    defined in the function: `[f(i) for i in range(...)]`): the same integers in the
    same order (runtime.order_by), with the keys computed in the function, where the
    lambda may read its variables. Integers carry no derivative, so neither does the call."""
    from .. import runtime

    key = keyword.value
    if isinstance(key, gast.Lambda):
        params = key.args.args
        if len(params) != 1 or key.args.vararg or key.args.kwonlyargs or key.args.kwarg:
            raise program.error(key, f"the `lambda` given as `key=` in `{program.name}` takes one parameter",
                                NotDifferentiableError)
        position, entry = params[0].id, syntax.copy(key.body)
    else:  # `key=score`, a function defined in the function: called on each position
        position = namer.fresh("position")
        entry = syntax.call(key.id, [syntax.name(position)])
    over = call.args[0]
    keys = gast.ListComp(
        elt=entry,
        generators=[gast.comprehension(target=syntax.name(position, store=True), iter=syntax.copy(over),
                                       ifs=[], is_async=0)],
    )
    helper = namer.fresh("order_by")
    program.bound[helper] = program.held[helper] = runtime.order_by
    call.func = syntax.name(helper)
    call.args = [syntax.const(how), over, keys]
    call.keywords = [k for k in call.keywords if k is not keyword]


def _outside(node, local, program):
    """The variables of the function (or its closure) the lambda `node` reads, in order."""
    args = node.args
    own = {a.id for a in args.args + args.kwonlyargs} | {a.id for a in (args.vararg, args.kwarg) if a is not None}
    inner = {n.id for n in traversal.walk(node.body) if isinstance(n, gast.Name) and not isinstance(n.ctx, gast.Load)}
    reads = [n.id for n in traversal.walk(node) if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load)]
    return [name for name in reads if name not in own | inner and (name in local or name in program.cells)]


def _key(call, defs):
    """The `key=` keyword of `call` given a lambda or the name of a function in `defs`, or None."""
    return next((k for k in call.keywords if k.arg == "key" and (
        isinstance(k.value, gast.Lambda) or isinstance(k.value, gast.Name) and k.value.id in defs)), None)


def _compiled(program, node, local, transform):
    """The function object of the lambda `node`, evaluated in the function's globals."""
    outside = _outside(node, local, program)
    if outside:
        raise program.error(
            node, f"the `lambda` given as `key=` reads `{outside[0]}`, a variable of `{program.name}`, which "
            f"{transform} cannot hand to the rules that order by it (it may read only its own parameters, globals and "
            f"builtins); compute the keys first and order by them (`order = np.argsort([abs(t - c) for t in xs])`, "
            f"`xs[int(np.argmax(keys))]`)",
            NotDifferentiableError,
        )
    text = printing.unparse(node).strip()
    made = eval(compile(text, program.filename or "<lambda>", "eval"), program.globals)  # noqa: S307 - the user's own text
    made.__srcgrad_text__ = text  # the lambda as written, for the file `srcgrad.source` shows (standalone.py)
    return made
