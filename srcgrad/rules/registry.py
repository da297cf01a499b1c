"""The one registry of derivative rules, shared by the compiler and the Tensor shim.

A `Rule` belongs to one primal function (`np.sin`, `operator.mul`, `math.exp`) and
holds, per differentiable parameter, a reverse rule and a forward rule. Each rule is
a small real Python function, ideally a single `return` expression, that the shim
calls directly and the compiler inlines. The parameters after the leading two
(`g, ans` for reverse rules, `t, ans` for forward rules) spell the primal's
signature, including keyword defaults; every rule of one primal uses the same one.

Rule kinds (`Derivative.kind`):
- ``"vjp"``:  ``fn(g, ans, *params) -> contribution to the parameter's gradient``
  (already shaped like the parameter: binary rules call `unbroadcast`).
- ``"jvp"``:  ``fn(t, ans, *params) -> contribution to the output's tangent``.
- ``"scale"``: ``fn(ans, *params) -> local derivative d``; the reverse rule is
  ``unbroadcast(g * d, x)`` (plain ``g * d`` for one-parameter primals) and the
  forward rule ``t * d``. Written once by `elementwise`.

Registration: `defvjp`, `defjvp`, `elementwise`, `nondifferentiable` and `discrete`
(parameters taking an index or a key, whose derivative is zero) for the built-in
rules; `custom_rule(primal, signature)` for rules users supply at run time
(`srcgrad.custom_vjp`, `srcgrad.defvjp`, see `srcgrad/custom.py`). User rules live in a
table of their own: they are found by `lookup` like built-in ones, but `all_rules()`
lists only the built-in rules, and a built-in rule cannot be replaced.
Lookup: `lookup(fn)` returns the `Rule` or None; `is_nondifferentiable(fn)`.
`supports(primal, param, values, advice)` says a rule of `primal` works only where the
argument `param` is one of `values`; the compiler refuses a literal outside them at the
call (`limits(primal)`), and the rule itself says so where the value comes at run time.
"""

import inspect
from dataclasses import dataclass, field

import numpy as np

from ..runtime import unbroadcast

__all__ = [
    "Derivative",
    "Rule",
    "numpy2",
    "numpy2_names",
    "defvjp",
    "defjvp",
    "elementwise",
    "nondifferentiable",
    "discrete",
    "custom_rule",
    "supports",
    "limits",
    "lookup",
    "is_nondifferentiable",
    "all_rules",
    "all_nondifferentiable",
]


@dataclass(frozen=True)
class Derivative:
    """One parameter's reverse or forward rule: a function and how to apply it."""

    fn: object
    kind: str  # "vjp", "jvp" or "scale"


@dataclass
class Rule:
    """The derivative rules of one primal function.

    `params` are the primal's parameter names as the rules spell them, `vjps` and
    `jvps` map a parameter name to its `Derivative`. `name` is the short name the
    Tensor shim prints (`MulBackward0`). `discrete` names the parameters that take an
    index or a key: both modes skip them, whatever their argument depends on.
    """

    primal: object
    name: str
    signature: inspect.Signature
    vjps: dict = field(default_factory=dict)
    jvps: dict = field(default_factory=dict)
    discrete: frozenset = frozenset()

    @property
    def params(self):
        return tuple(self.signature.parameters)

    def bind(self, *args, **kwargs):
        """Map call arguments to rule parameter names, defaults applied."""
        return bind_arguments(self.signature, args, kwargs, defaults=True)

    def vjp(self, param, g, ans, *args, **kwargs):
        """Apply the reverse rule of `param` (a name or position): the gradient contribution."""
        name = self._name(param)
        d = self.vjps[name]
        if d.kind == "vjp":
            return d.fn(g, ans, *args, **kwargs)
        local = d.fn(ans, *args, **kwargs)
        if len(self.vjps) == 1 and len(self.params) == 1:
            return g * local
        return unbroadcast(g * local, self.bind(*args, **kwargs)[name])

    def jvp(self, param, t, ans, *args, **kwargs):
        """Apply the forward rule of `param`: its contribution to the output tangent."""
        name = self._name(param)
        d = self.jvps[name]
        if d.kind == "jvp":
            return d.fn(t, ans, *args, **kwargs)
        return t * d.fn(ans, *args, **kwargs)

    def _name(self, param):
        return self.params[param] if isinstance(param, int) else param


def bind_arguments(signature, args, kwargs, defaults=False):
    """`signature.bind(*args, **kwargs).arguments` (with `defaults`: after `apply_defaults()`),
    the same dict in the same order, or the same TypeError.

    Where each argument goes depends only on how many positional arguments there are and
    which keywords, so that placement is worked out once per signature and call shape
    (`_placement`) and then filled with the arguments of each call."""
    key = (id(signature), len(args), tuple(kwargs), defaults)
    found = _PLACEMENTS.get(key)
    if found is None or found[0] is not signature:
        bound = signature.bind(*args, **kwargs)  # raises as before where it does not bind
        if defaults:
            bound.apply_defaults()
        if len(_PLACEMENTS) >= _KEPT_PLACEMENTS:
            _PLACEMENTS.clear()  # rules made at run time: their signatures are not kept forever
        found = _PLACEMENTS[key] = (signature, _placement(signature, len(args), tuple(kwargs), defaults))
    out = {}
    for name, where, value in found[1]:
        if where is _POSITIONAL:
            out[name] = args[value]
        elif where is _KEYWORD:
            out[name] = kwargs[value]
        elif where is _REST:
            out[name] = tuple(args[value:])
        elif where is _REST_KEYWORDS:
            out[name] = {k: kwargs[k] for k in value}
        else:
            out[name] = value  # a default: the parameter's own object, as `apply_defaults` gives
    return out


def _placement(signature, count, names, defaults):
    """[(parameter name, where its value comes from, which one)] for a call of `signature`
    with `count` positional arguments and the keywords `names`: `_POSITIONAL` and an
    index, `_KEYWORD` and a keyword, `_REST` and the first index a `*args` tuple takes,
    `_REST_KEYWORDS` and the keywords a `**kwargs` dict takes, or `_DEFAULT` and the value."""
    slots = [_Slot(_POSITIONAL, i) for i in range(count)]
    bound = signature.bind(*slots, **{k: _Slot(_KEYWORD, k) for k in names})
    if defaults:
        bound.apply_defaults()
    out = []
    for name, value in bound.arguments.items():
        kind = signature.parameters[name].kind
        if kind is inspect.Parameter.VAR_POSITIONAL:
            out.append((name, _REST, value[0].which if value else count))
        elif kind is inspect.Parameter.VAR_KEYWORD:
            out.append((name, _REST_KEYWORDS, tuple(value)))
        elif type(value) is _Slot:
            out.append((name, value.where, value.which))
        else:
            out.append((name, _DEFAULT, value))
    return out


class _Slot:
    """A stand-in argument of `_placement`: where the call's argument comes from."""

    __slots__ = ("where", "which")

    def __init__(self, where, which):
        self.where, self.which = where, which


_POSITIONAL, _KEYWORD, _REST, _REST_KEYWORDS, _DEFAULT = "positional", "keyword", "rest", "rest_keywords", "default"
_PLACEMENTS = {}  # (id(signature), positional count, keywords, defaults) -> (signature, placement)
_KEPT_PLACEMENTS = 4096


_RULES = {}
_NONDIFF = {}
_CUSTOM = {}  # user rules, registered at run time
_NUMPY2 = set()  # display names of the functions `numpy2` was asked for
_LIMITS = {}  # primal -> [(param, allowed values, advice, modes)]: see `supports`


def numpy2(name):
    """`numpy.<name>` (dotted: `"linalg.vecdot"`), a function NumPy 2 added; None where the
    installed NumPy (1.26) lacks it. `defvjp`/`defjvp` of None register nothing, so such a
    function has rules exactly where it exists. `numpy2_names()` lists them for the catalog.
    """
    _NUMPY2.add(f"numpy.{name}")
    obj = np
    for part in name.split("."):
        obj = getattr(obj, part, None)
    return obj


def numpy2_names():
    """The display names (`numpy.linalg.vecdot`) of the functions whose rules need NumPy 2."""
    return frozenset(_NUMPY2)


def _key(fn):
    # Bound builtin methods are fresh objects on each access; functions are keys as-is.
    return fn


def _signature_after(fn, skip):
    sig = inspect.signature(fn)
    params = list(sig.parameters.values())[skip:]
    return sig.replace(parameters=params)


def _rule_for(primal, fn, skip, name):
    rule = _RULES.get(_key(primal))
    sig = _signature_after(fn, skip)
    if rule is None:
        short = name or _short_name(primal)
        rule = Rule(primal, short, sig)
        _RULES[_key(primal)] = rule
    elif tuple(sig.parameters) != rule.params:
        raise TypeError(
            f"rule {fn.__qualname__} for {_display(primal)} has parameters "
            f"{tuple(sig.parameters)}, but earlier rules use {rule.params}"
        )
    if name:
        rule.name = name
    return rule


def _param_names(rule, params, fn):
    names = (params,) if isinstance(params, str) else tuple(params)
    for p in names:
        if p not in rule.params:
            raise TypeError(f"rule {fn.__qualname__}: {p!r} is not one of its parameters {rule.params}")
    return names


def defvjp(primal, params, name=None):
    """Register `fn(g, ans, *params)` as the reverse rule of `primal` for `params`."""

    def register(fn):
        if primal is None:  # a NumPy 2 function this NumPy lacks: see `numpy2`
            return fn
        rule = _rule_for(primal, fn, 2, name)
        for p in _param_names(rule, params, fn):
            rule.vjps[p] = Derivative(fn, "vjp")
        return fn

    return register


def defjvp(primal, params, name=None):
    """Register `fn(t, ans, *params)` as the forward rule of `primal` for `params`."""

    def register(fn):
        if primal is None:  # a NumPy 2 function this NumPy lacks: see `numpy2`
            return fn
        rule = _rule_for(primal, fn, 2, name)
        for p in _param_names(rule, params, fn):
            rule.jvps[p] = Derivative(fn, "jvp")
        return fn

    return register


def elementwise(primal, params=None, name=None):
    """Register `fn(ans, *params) -> d`, the local derivative, for both modes.

    The reverse rule is `g * d` (unbroadcast for primals of several parameters) and the
    forward rule `t * d`. `params` defaults to the first parameter.
    """

    def register(fn):
        rule = _rule_for(primal, fn, 1, name)
        names = _param_names(rule, params if params is not None else rule.params[0], fn)
        for p in names:
            rule.vjps[p] = Derivative(fn, "scale")
            rule.jvps[p] = Derivative(fn, "scale")
        return fn

    return register


def nondifferentiable(*primals):
    """Declare functions whose results carry no gradient (shape, comparisons, argmax, ...)."""
    for primal in primals:
        _NONDIFF[_key(primal)] = primal


def discrete(primal, *params):
    """Declare parameters of `primal` (already given a rule) that take an index or a key:
    their derivative is zero, so an argument there that depends on the differentiated
    input contributes nothing. Generated gradient code reads such keys back from its
    tape (`k = tape.pop()`), where activity analysis cannot tell them from values."""
    rule = _RULES[_key(primal)]
    for p in params:
        if p not in rule.params or p in rule.vjps or p in rule.jvps:
            raise TypeError(f"{p!r} is not a parameter of {_display(primal)} without rules {rule.params}")
    rule.discrete = rule.discrete | frozenset(params)


def supports(primal, param, values, advice, modes=("vjp", "jvp")):
    """Declare that the rules of `primal` (in `modes`) handle the argument `param` only when it
    is one of `values`; `advice` says what to write instead. The compiler refuses a call
    whose argument there is a literal outside `values`, at the user's line."""
    if primal is None:  # a NumPy 2 function this NumPy lacks: see `numpy2`
        return
    if param not in _RULES[_key(primal)].params:
        raise TypeError(f"{param!r} is not a parameter of the rules of {_display(primal)}")
    _LIMITS.setdefault(_key(primal), []).append((param, tuple(values), advice, tuple(modes)))


def limits(primal):
    """[(param, allowed values, advice, modes)] declared by `supports` for `primal`."""
    try:
        return _LIMITS.get(_key(primal), [])
    except TypeError:
        return []


def custom_rule(primal, signature, name=None, aliases=()):
    """The user `Rule` of `primal` (created empty, or reused when its signature is unchanged).

    `aliases` are further objects that mean the same function (a decorated wrapper and
    the function it wraps); `lookup` finds the one rule under each. Registering a
    primal again with another signature starts a new rule. Raises ValueError for a
    primal that has a built-in rule or is declared non-differentiable.
    """
    keys = [_key(p) for p in (primal, *aliases)]
    for p in (primal, *aliases):
        if _key(p) in _RULES or _key(p) in _NONDIFF:
            raise ValueError(
                f"{_display(p)} already has a built-in derivative rule, which cannot be replaced; "
                "wrap it in a function of your own and decorate that with srcgrad.custom_vjp"
            )
    rule = _CUSTOM.get(keys[0])
    if rule is None or rule.signature != signature:
        rule = Rule(primal, name or _short_name(primal), signature)
    for key in keys:
        _CUSTOM[key] = rule
    return rule


def lookup(fn):
    """The `Rule` registered for `fn` (built-in or user), or None. A miss while a library
    of `OPTIONAL` is loaded registers the rules of its module first (once); then each
    provider (`add_provider`) may register rules for `fn`."""
    try:
        key = _key(fn)
        rule = _RULES.get(key)
        if rule is None and _PENDING and load_optional():
            rule = _RULES.get(key)
        if rule is None:
            rule = _CUSTOM.get(key)
        if rule is None and _PROVIDERS and getattr(fn, "__srcgrad_lazy__", None) is not None:
            for provide in _PROVIDERS:
                if provide(fn):
                    return _CUSTOM.get(key)
        return rule
    except TypeError:  # unhashable callables have no rules
        return None


_PROVIDERS = []  # functions registering rules on demand for derivatives srcgrad made


def has_custom_rule(fn):
    """Whether a user gave `fn` its rules (custom_vjp, custom_jvp, defvjp, defjvp)."""
    try:
        return _key(fn) in _CUSTOM
    except TypeError:
        return False


def add_provider(provide):
    """Let `provide(fn)` register rules for a derivative made by srcgrad (one that has
    `__srcgrad_lazy__`) the first time a rule is looked up for it, returning whether it
    did (derivative_calls.py)."""
    _PROVIDERS.append(provide)


# {library: the rule module registering its functions}: libraries srcgrad does not depend
# on, and does not import itself, whose rules are registered once the user has loaded them
OPTIONAL = {"scipy.special": "special", "scipy.linalg": "scipy_linalg"}
_PENDING = dict(OPTIONAL)  # those not registered yet


def load_optional(importable=False):
    """Import the rule modules of the `OPTIONAL` libraries that are loaded (with
    `importable`, of those that can be imported: the catalog lists every rule); returns
    whether it registered any."""
    import importlib
    import sys

    loaded = False
    for library, module in list(_PENDING.items()):
        if library not in sys.modules:
            if not importable:
                continue
            try:
                importlib.import_module(library)
            except ImportError:
                continue
        del _PENDING[library]
        importlib.import_module(f"{__package__}.{module}")
        loaded = True
    return loaded


def is_nondifferentiable(fn):
    try:
        return _key(fn) in _NONDIFF
    except TypeError:
        return False


def all_rules():
    """Every built-in rule, in registration order (user rules are not listed)."""
    return list(_RULES.values())


def all_nondifferentiable():
    return list(_NONDIFF.values())


def _short_name(primal):
    n = getattr(primal, "__name__", type(primal).__name__).strip("_")
    return "".join(part.capitalize() for part in n.split("_"))


def _display(primal):
    mod = getattr(primal, "__module__", None) or ("numpy" if hasattr(primal, "nin") else "")
    return f"{mod}.{getattr(primal, '__name__', primal)}" if mod else str(primal)
