"""srcgrad's own transforms made inside a differentiated function, made when it is compiled.

Before:                                      After (`grad_inner` bound and held):
    g = srcgrad.grad(inner)(w, x)                g = grad_inner(w, x)
    w2 = w - 0.1 * g                             w2 = w - 0.1 * g

`srcgrad.grad(inner, wrt=...)` (and `value_and_grad`, `jacobian`, `hessian`) of a
function the compiler finds (a global, imported or closure function: `scope.lookup_path`,
which logs the names it reads, so rebinding `inner` builds the caller again) with
constant other arguments (literals, tuples of literals) is made now, once, as the module
level `dinner = srcgrad.grad(inner)` would be; the expression becomes a name bound to the
result (`Program.bound`) that generated code reads as a helper (`Program.held`). Its
calls are then differentiated as calls of such a module-level gradient are
(derivative_calls.py: MAML's outer gradient through the inner one). A transform of
anything else (a variable or nested `def` of the function, a `lambda`, an expression,
non-constant options) is refused at its line, saying what to write. Returns a new tree;
the parse stays as it was.
"""

import ast

import gast

from ..errors import NotDifferentiableError
from . import printing, syntax, traversal
from .naming import Namer
from .scope import MISSING, dotted_parts, lookup_path

_TRANSFORMS = ("grad", "value_and_grad", "jacobian", "hessian")


def run(program):
    """`program.tree` with each such transform made and bound as above."""
    if not any(")(" in line or any(name in line for name in _TRANSFORMS) for line in program.source_lines):
        return program.tree  # neither a transform's name nor a call of a call's result
    tree = program.tree
    local = set(traversal.names_stored(tree)) | {a.id for a in tree.args.args + tree.args.kwonlyargs}
    found = [n for n in traversal.walk(tree) if isinstance(n, gast.Call) and _transform(n, local, program)]
    if not found:
        return tree
    tree = syntax.copy(tree)
    namer = Namer.for_tree(tree)
    namer.taken |= set(program.globals) | set(program.bound)
    replaced = {}
    for call in [n for n in traversal.walk(tree) if isinstance(n, gast.Call)]:
        transform = _transform(call, local, program)
        if transform is not None:
            replaced[id(call)] = syntax.located(syntax.name(_bound(call, transform, local, program, namer)), call)
    return traversal.rewrite(tree, {gast.Call: lambda node: replaced.get(id(node), node)})


def _transform(call, local, program):
    """srcgrad's transform that `call` calls (told by its module and name: the compiler
    does not import the API built on it), or None."""
    parts = dotted_parts(call.func)
    if parts is None or parts[0] in local:
        return None
    meaning = lookup_path(parts, program)
    if getattr(meaning, "__module__", None) == "srcgrad.api" and getattr(meaning, "__name__", None) in _TRANSFORMS:
        return meaning
    return None


def _bound(call, transform, local, program, namer):
    """The fresh name bound to the transform `call` makes, made now."""
    spelled = printing.unparse(call).strip()
    where = f"`{spelled}` in `{program.name}`"
    advice = (f"make it at module level (`d{_stem(call)} = {spelled}`) and call that name in `{program.name}`, or "
              "differentiate a function defined at module level")
    if not call.args or any(isinstance(a, gast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
        raise program.error(call, f"{where}: srcgrad makes a transform called in a differentiated function when it "
                            f"compiles it, from the function as its first argument, written out; {advice}",
                            NotDifferentiableError)
    target = call.args[0]
    parts = dotted_parts(target)
    nested = {n.name for n in traversal.walk(program.tree) if isinstance(n, gast.FunctionDef) and n is not program.tree}
    if parts is None or parts[0] in local or parts[0] in nested:
        if parts is not None and parts[0] in nested:
            what, advice = (f"`{parts[0]}`, a function defined in `{program.name}`",
                            f"define `{parts[0]}` at module level (what it reads of `{program.name}` passed as "
                            "arguments)")
        else:
            what = ("a `lambda`" if isinstance(target, gast.Lambda) else
                    f"`{parts[0]}`, a variable of `{program.name}`" if parts is not None else "the result of an expression")
        raise program.error(call, f"{where} differentiates {what}: srcgrad makes a transform called in a "
                            "differentiated function when it compiles that function, so it must find the function "
                            f"differentiated then (a global, imported or closure function); {advice}",
                            NotDifferentiableError)
    fn = lookup_path(parts, program)
    if fn is MISSING or not callable(fn):
        raise program.error(call, f"{where}: `{printing.unparse(target).strip()}` is not a function srcgrad finds "
                            f"when it compiles `{program.name}`; {advice}", NotDifferentiableError)
    try:
        args = [ast.literal_eval(printing.unparse(a).strip()) for a in call.args[1:]]
        keywords = {k.arg: ast.literal_eval(printing.unparse(k.value).strip()) for k in call.keywords}
    except (ValueError, SyntaxError):
        raise program.error(call, f"{where}: srcgrad makes a transform called in a differentiated function when it "
                            "compiles it, so its options (`wrt=`, `mode=`) must be constants (numbers, strings, "
                            f"tuples of them); {advice}", NotDifferentiableError) from None
    try:
        made = transform(fn, *args, **keywords)
    except (TypeError, ValueError) as exc:
        raise program.error(call, f"{where}: {exc}", NotDifferentiableError) from None
    name = namer.fresh(_stem(call))
    program.bound[name] = program.held[name] = made
    return name


def _stem(call):
    """`grad_inner` for `srcgrad.grad(inner)`."""
    parts = dotted_parts(call.func)
    target = dotted_parts(call.args[0]) if call.args else None
    return f"{parts[-1]}_{target[-1]}" if target is not None else parts[-1]
