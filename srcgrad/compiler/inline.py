"""Turn a derivative rule into an expression of the generated code.

A rule whose body is a single `return <expr>` is inlined: its parameters are replaced
by the call's argument expressions, `g`/`t` by the incoming adjoint or tangent and
`ans` by the primal's result. Any other rule becomes a call of the rule function.
The names the expression needs from the rule's module (`np`, `unbroadcast`, private
helpers) are reported to `bind(name, obj) -> name used`, which keeps them hygienic.
"""

import builtins
import functools
import inspect
import textwrap

import gast

from . import syntax


@functools.lru_cache(maxsize=None)
def _return_expression(fn):
    """The gast expression of `fn`'s single `return`, or None."""
    try:
        source = textwrap.dedent(inspect.getsource(fn))
    except (OSError, TypeError):
        return None
    body = [s for s in gast.parse(source).body[0].body if not _is_docstring(s)]
    if len(body) == 1 and isinstance(body[0], gast.Return) and body[0].value is not None:
        return body[0].value
    return None


def _is_docstring(stmt):
    return isinstance(stmt, gast.Expr) and isinstance(stmt.value, gast.Constant) and isinstance(stmt.value.value, str)


def _params(fn):
    return list(inspect.signature(fn).parameters)


def apply(fn, leading, args, bind):
    """The expression `fn(*leading, **args)` with `fn` inlined when it is one `return`.

    `leading` are the nodes for the rule's leading parameters (g/t and ans, or only ans
    for local derivatives); `args` maps the primal's parameter names to nodes.
    """
    names = _params(fn)
    values = dict(zip(names, leading))
    values.update(args)
    expr = _return_expression(fn)
    if expr is None:
        helper = bind(fn.__name__.lstrip("_"), fn)
        return syntax.call(syntax.name(helper), [values[n] for n in names])
    return _substitute(syntax.copy(expr), values, fn, bind)


def _substitute(expr, values, fn, bind):
    class Substitute(gast.NodeTransformer):
        def visit_Name(self, node):
            if node.id in values:
                return syntax.copy(values[node.id])
            obj = fn.__globals__.get(node.id, getattr(builtins, node.id, None))
            if obj is None:
                raise NameError(f"rule {fn.__qualname__} uses unknown name {node.id!r}")
            node.id = bind(node.id.lstrip("_") or node.id, obj)
            return node

    return Substitute().visit(expr)
