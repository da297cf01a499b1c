"""The registry as a document: `markdown()` renders every rule, grouped by module, with
the expression each one contributes, and the list of non-differentiable functions.

`docs/rules.md` is this output; regenerate it with

    python -m srcgrad.rules.catalog > docs/rules.md

`tests/test_catalog.py` fails when the file and the registry disagree.
"""

import ast
import inspect
import sys
import textwrap

import numpy as np

from . import all_nondifferentiable, all_rules
from .registry import OPTIONAL, load_optional, numpy2_names

_INTRO = """\
# Derivative rules

Every function srcgrad can differentiate, with the rule it uses in each mode. Generated
from the registry by `python -m srcgrad.rules.catalog > docs/rules.md`; do not edit by
hand.

In the expressions, `g` is the cotangent of the output (reverse mode), `t` the tangent
of the parameter (forward mode) and `ans` the primal output. A reverse rule returns the
parameter's gradient, shaped and typed like the parameter (`unbroadcast` sums the axes
that broadcasting added); a forward rule returns the parameter's contribution to the
output tangent. Rules written as a local derivative `d` are applied as `g * d` and
`t * d`. A name starting with `_` is a helper of the rule's module.

A function marked (NumPy 2) exists only in NumPy 2: with NumPy 1.26 it has no rule and
is missing from this list, which is generated with NumPy 2. The functions of
scipy.special and scipy.linalg have rules where SciPy is installed (srcgrad does not
need it, nor import it itself: they are registered when a derivative is first built
after the program has imported scipy.special or scipy.linalg).

Functions taking a sequence of arrays (`concatenate`, `stack`, `einsum`, `np.array` of
a list, ...) have one parameter for the whole sequence: its reverse rule returns a
list or tuple of gradients, one per element, and its forward rule takes a sequence of
tangents in which None marks a constant element. Functions returning several arrays
(`split`, `eigh`, `qr`, `svd`, `slogdet`, ...) take their cotangent as a sequence with
one entry per output, None for an output that receives no gradient, and their forward
rules return a tuple of tangents. A list or tuple passed to any other differentiable
parameter, which NumPy reads as one array (`np.maximum([a, 0.1], b)`), reaches the
rules as `np.asarray` of it, its tangent as an array (zeros for constant entries), and
its gradient goes back to its entries one by one.
"""


def display_name(primal):
    """The dotted name users write: `numpy.linalg.inv`, `numpy.add.reduce`, `math.sin`."""
    owner = getattr(primal, "__self__", None)
    if isinstance(owner, np.ufunc):
        return f"numpy.{owner.__name__}.{primal.__name__}"
    if isinstance(owner, np.random.RandomState):
        return f"numpy.random.{primal.__name__}"
    objclass = getattr(primal, "__objclass__", None)
    if objclass is not None:
        return f"{objclass.__module__}.{objclass.__qualname__}.{primal.__name__}"
    name = getattr(primal, "__name__", None)
    library = next((lib for lib in OPTIONAL if name and getattr(sys.modules.get(lib), name, None) is primal
                    and (isinstance(primal, np.ufunc) or _package(primal) == lib.split(".")[0])), None)
    if library is not None:  # scipy.linalg.cholesky, not the private module SciPy defines it in (numpy.sinc stays)
        return f"{library}.{name}"
    if isinstance(primal, np.ufunc):
        return f"numpy.{primal.__name__}"
    module = (getattr(primal, "__module__", None) or "").lstrip("_")
    if module.startswith("numpy.random."):  # `Generator.normal` lives in numpy.random._generator
        module = "numpy.random"
    return f"{module}.{primal.__qualname__}" if module else primal.__qualname__


def _package(primal):
    return (getattr(primal, "__module__", None) or "").split(".")[0]


def rule_expression(fn):
    """The expression a rule function returns, as source text (None if it has several
    statements)."""
    tree = ast.parse(textwrap.dedent(inspect.getsource(fn)))
    body = tree.body[0].body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]
    if len(body) == 1 and isinstance(body[0], ast.Return) and body[0].value is not None:
        return body[0].value
    return None


def _applied(d, seed, param, unbroadcast):
    """The reverse or forward expression of a local-derivative rule: `seed * d`."""
    local = rule_expression(d.fn)
    if local is None:
        return f"{seed} * {d.fn.__name__}(...)"
    product = ast.BinOp(ast.Name(seed), ast.Mult(), local)
    if unbroadcast:
        product = ast.Call(ast.Name("unbroadcast"), [product, ast.Name(param)], [])
    return ast.unparse(product)


def _shown(rule, param, d, seed):
    if d.kind == "scale":
        several = len(rule.vjps) > 1 or len(rule.params) > 1
        return _applied(d, seed, param, unbroadcast=several and seed == "g")
    expression = rule_expression(d.fn)
    return ast.unparse(expression) if expression is not None else f"{d.fn.__name__}(...)"


def _cell(text):
    return "`" + text.replace("|", "\\|") + "`"


def _module_of(rule):
    return next(iter({**rule.jvps, **rule.vjps}.values())).fn.__module__.rsplit(".", 1)[-1]  # forward-only rules too


def _in_order(modules):
    """The rule modules in the catalog's order, whatever order they registered in: the
    built-in ones as they register at import, then the derived rules, then the optional
    libraries' in `OPTIONAL`'s order (a program that imports scipy first, or derives a
    rule before, gets the same document)."""
    late = ["derived_rules", *OPTIONAL.values()]
    return [m for m in modules if m not in late] + [m for m in late if m in modules]


def _signature(rule):
    return str(rule.signature).replace("|", "\\|")


def markdown():
    """The whole rules document, as a string (with the rules of the optional libraries
    that can be imported)."""
    load_optional(importable=True)
    out = [_INTRO]
    rules = all_rules()
    modules = _in_order(dict.fromkeys(_module_of(r) for r in rules))
    reverse_params = sum(len(r.vjps) for r in rules)
    forward_params = sum(len(r.jvps) for r in rules)
    out.append(
        f"{len(rules)} functions: {reverse_params} reverse and {forward_params} forward "
        f"rules (one per differentiable parameter), and {len(all_nondifferentiable())} "
        "functions with no gradient.\n"
    )
    for module in modules:
        out.append(f"\n## `{module}`\n")
        doc = inspect.getdoc(sys.modules[f"{__package__}.{module}"]) or ""
        out.append(doc.split("\n\n")[0].replace("\n", " ") + "\n")
        out.append("| Function | Parameters | Reverse rule | Forward rule |")
        out.append("|---|---|---|---|")
        for rule in rules:
            if _module_of(rule) != module:
                continue
            for i, param in enumerate(dict.fromkeys([*rule.vjps, *rule.jvps])):  # forward-only rules too
                name = f"`{display_name(rule.primal)}`" if i == 0 else ""
                if i == 0 and display_name(rule.primal) in numpy2_names():
                    name += " (NumPy 2)"
                signature = f"`{_signature(rule)}`" if i == 0 else ""
                reverse = _cell(_shown(rule, param, rule.vjps[param], "g")) if param in rule.vjps else "—"
                forward = _cell(_shown(rule, param, rule.jvps[param], "t")) if param in rule.jvps else "—"
                out.append(f"| {name} | {signature} | **{param}**: {reverse} | {forward} |")
    out.append("\n## No gradient\n")
    out.append(
        "These functions may be called inside differentiated code; their results are "
        "constants to the derivative.\n"
    )
    names = sorted(display_name(p) for p in all_nondifferentiable())
    out.append(", ".join(f"`{n}`" for n in names) + "\n")
    return "\n".join(out)


if __name__ == "__main__":
    sys.stdout.write(markdown())
