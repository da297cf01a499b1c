"""A Python function standing in for a function that has derivative rules but no Python
source (a NumPy ufunc, `math.sin`, `abs`) or whose source is not what srcgrad should
read (`np.linalg.det`): `srcgrad.grad(np.sin)` differentiates

    def sin(x):
        return np.sin(x)

The stand-in takes the rule's positional parameters up to `out` and passes them on by
position (a default that is not a literal is read from the stand-in's globals); the
others keep their defaults. It is made once per function, so derivatives of it are
cached like any other's.
"""

import builtins
import linecache
import math

import numpy as np

from .. import rules

_STAND_INS = {}  # id(function) -> (function, its stand-in); library functions live forever
_LITERALS = (type(None), bool, int, float, str)


def stand_in(fn):
    """`fn`'s stand-in when `fn` has derivative rules (a library function, or one given
    rules by `srcgrad.defvjp`/`defjvp`): differentiating it then applies its rules, as a
    call of it inside a differentiated function does; `fn` itself otherwise."""
    if getattr(fn, "__srcgrad_lazy__", None) is not None or isinstance(fn, np.vectorize) or hasattr(fn, "defvjp"):
        return fn  # a derivative (named like its function), a wrapper of the user's function, a custom_vjp
    try:
        found = _STAND_INS.get(id(fn))
        rule = rules.lookup(fn) if found is None else None
    except TypeError:  # not hashable: no rules
        return fn
    if found is not None and found[0] is fn:
        return found[1]
    if rule is None or not (rule.vjps or rule.jvps) or (getattr(fn, "__module__", None) or "").startswith("srcgrad."):
        return fn  # srcgrad's own helpers are read as written (some rules of theirs come from that)
    if any(p.kind == p.VAR_POSITIONAL for p in rule.signature.parameters.values()):
        return fn  # `*operands` (einsum): srcgrad does not differentiate `*args`
    made = _make(fn, rule)
    _STAND_INS[id(fn)] = (fn, made)  # keeps fn alive, so its id is not reused
    return made


def refusal(fn):
    """Why the library function `fn` (NumPy, `math`, a builtin) cannot be differentiated
    itself (None when it can, or is not one): no rule, no gradient, or `*args`."""
    if not _is_library(fn) or stand_in(fn) is not fn:
        return None
    spelled = _callee(fn).replace("builtins.", "")
    try:
        if rules.is_nondifferentiable(fn):
            return f"`{spelled}` has no derivative (its value is piecewise constant or not a number)"
        rule = rules.lookup(fn)
    except TypeError:
        return None
    if rule is not None and rule.vjps:
        return (f"`{spelled}` takes `*args`, which srcgrad does not differentiate; differentiate a function "
                f"that calls it with its arguments written out")
    return (f"srcgrad has no derivative rule for `{spelled}` (docs/rules.md lists them); register one with "
            "srcgrad.defvjp, or differentiate a Python function that computes it")


def _is_library(fn):
    if isinstance(fn, np.vectorize) or getattr(fn, "__srcgrad_lazy__", None) is not None:
        return False  # a wrapper of the user's function, or a derivative (named like its function)
    module = getattr(fn, "__module__", None) or ""
    return module == "numpy" or module.startswith("numpy.") or module in ("math", "builtins")


def _make(fn, rule):
    params, names, defaults = [], [], {}
    for p in rule.signature.parameters.values():
        if p.kind not in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) or p.name == "out":
            break
        names.append(p.name)
        if p.default is p.empty:
            params.append(p.name)
        elif type(p.default) in _LITERALS and p.default == p.default:
            params.append(f"{p.name}={p.default!r}")
        else:  # not written as a literal: read from the stand-in's globals
            defaults[f"{p.name}_default"] = p.default
            params.append(f"{p.name}={p.name}_default")
    spelled = _callee(fn)
    name = getattr(fn, "__name__", "function")
    text = f"def {name}({', '.join(params)}):\n    return {spelled}({', '.join(names)})\n"
    filename = f"<srcgrad stand-in for {spelled}>"
    linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
    scope = {"np": np, "math": math, "builtins": builtins, "__name__": getattr(fn, "__module__", None), **defaults}
    exec(compile(text, filename, "exec"), scope)  # noqa: S102 - the text is made here
    made = scope.pop(name)
    if spelled == name:
        scope[name] = fn  # the call in the stand-in's body: fn itself, not the stand-in
    made.__srcgrad_source__ = text
    return made


def _callee(fn):
    """How the stand-in spells the call: `np.sin`, `np.linalg.det`, `math.sin`, `abs`."""
    module = getattr(fn, "__module__", None) or ""
    if module == "math":
        return f"math.{fn.__name__}"
    if module == "builtins":
        return f"builtins.{fn.__name__}"  # `abs` itself would be the stand-in's own name
    if module == "numpy" or module.startswith("numpy.") or isinstance(fn, np.ufunc):
        return spelling(fn)
    return getattr(fn, "__name__", "function")  # bound by that name in the stand-in's globals


def spelling(obj):
    """`np.tanh`, `np.linalg.norm` for NumPy's functions, the plain name of the others."""
    name = getattr(obj, "__name__", None) or repr(obj)
    module = getattr(obj, "__module__", None) or ("numpy" if isinstance(obj, np.ufunc) else "")
    if module == "numpy" or module.startswith("numpy."):
        public = module.replace("numpy.linalg._linalg", "numpy.linalg").replace("numpy.linalg.linalg", "numpy.linalg")
        inner = public[len("numpy"):] if public.startswith("numpy.linalg") or public.startswith("numpy.fft") else ""
        return f"np{inner}.{name}"
    return name
