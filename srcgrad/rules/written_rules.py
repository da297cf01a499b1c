"""The derived forward rules of rule helpers (derived_rules.py) written out as Python
source, for forward mode over them: derivatives of the third order and above.

A derived rule is a closure taking `*args` (its signature is set on it), which srcgrad
does not read. Each carries `__srcgrad_definition__`, a function of no arguments that
returns the same computation defined from text with its parameters written out (the text
registered in linecache, where the compiler reads it); `frontend.differentiated` reads
that one instead. It is made on first use, once per rule:

    def diag_vjp_jvp_g(tangent__, result__, g, v):          # linear in g
        return _helper(tangent__, v)
    def sort_vjp_jvp_x(tangent__, result__, g, x, axis):     # forward mode over the helper
        return _jvp(g, x, axis, x_dot=tangent__)[1]
    def diag_vjp_jvp_constant(tangent__, result__, g, v):    # piecewise constant in v
        return zeros_like_grad(result__)

`_helper` is the helper itself, whose own rules then apply, and `_jvp` its generated jvp
function, generated code that forward mode differentiates again.

Invariant: the written function computes what the rule computes, for every argument, and
takes the same parameters (names, kinds, defaults).
"""

import inspect
import itertools
import linecache
import math

from ..runtime import zeros_like_grad

_FILES = itertools.count()


def written(rule, helper, kind, position=None):
    """`rule` (a derived rule of `helper`, of `kind` "linear", "source" or "zero", the
    source kind for the helper's parameter at `position`), given its written-out
    definition (`__srcgrad_definition__`, made on first call)."""
    made = []

    def definition():
        if not made:
            made.append(_define(rule, helper, kind, position))
        return made[0]

    rule.__srcgrad_definition__ = definition
    return rule


def _define(rule, helper, kind, position):
    """The function `rule` computes, defined from text (see above); None where its
    parameters cannot be written out (`*args`)."""
    params = list(inspect.signature(rule).parameters.values())
    if any(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in params):
        return None
    namespace = {"__name__": __name__}
    taken = {p.name for p in params} | {rule.__name__}
    tangent, result, *helper_params = params
    if kind == "linear":
        namespace["_helper"] = helper
        body = f"_helper({_arguments([tangent.name] + [p.name for p in helper_params[1:]], helper_params)})"
    elif kind == "source":
        from .derived_rules import helper_jvp  # noqa: PLC0415 - it imports this module

        jvp_fn = helper_jvp(helper, position)
        namespace["_jvp"] = jvp_fn
        direction = list(inspect.signature(jvp_fn).parameters)[-1]
        given = _arguments([p.name for p in helper_params], helper_params)
        body = f"_jvp({given}, {direction}={tangent.name})[1]"
    else:
        namespace["zeros_like_grad"] = zeros_like_grad
        body = f"zeros_like_grad({result.name})"
    header = ", ".join(_parameter(p, namespace, taken) for p in params)
    if any(p.kind is p.KEYWORD_ONLY for p in params):
        first = next(k for k, p in enumerate(params) if p.kind is p.KEYWORD_ONLY)
        spelled = [_parameter(p, namespace, taken) for p in params]
        header = ", ".join(spelled[:first] + ["*"] + spelled[first:])
    text = f"def {rule.__name__}({header}):\n    return {body}\n"
    filename = f"<srcgrad rule {rule.__name__} #{next(_FILES)}>"
    linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
    exec(compile(text, filename, "exec"), namespace)  # noqa: S102 - text made here from names and literals
    function = namespace.pop(rule.__name__)
    function.__qualname__ = rule.__qualname__
    function.srcgrad_helper_rule = True
    return function


def _arguments(values, params):
    """The text passing the names `values` to `params` in order: keyword-only ones by name."""
    return ", ".join(f"{p.name}={v}" if p.kind is p.KEYWORD_ONLY else v for p, v in zip(params, values))


def _parameter(param, namespace, taken):
    """`param`'s text in a `def`: its name, and its default as a literal or a name bound
    in `namespace`."""
    if param.default is param.empty:
        return param.name
    value = param.default
    if type(value) in (bool, int, str, type(None)) or (type(value) is float and math.isfinite(value)):
        return f"{param.name}={value!r}"
    name = f"_default_{param.name}"
    while name in taken or name in namespace:
        name = "_" + name
    namespace[name] = value
    return f"{param.name}={name}"
