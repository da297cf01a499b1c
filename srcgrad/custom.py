"""Custom derivatives and `stop_gradient`: rules users supply, in the one rule registry.

A rule registered here is found by `rules.lookup` like a built-in one, so the compiler
inlines it (or calls it, when it is more than one `return`) wherever the function is
called inside differentiated code, and the Tensor shim records it as one graph node.
Every user rule runs inside a check of what it returns (how many values, which
shapes), so a wrong rule fails with an error naming the function instead of a
broadcasting error far away. The check shows in generated code as one helper call:

    x_bar = check_softplus_x(out_bar / (1.0 + np.exp(-x)), x)

Conventions (JAX's where API.md is silent):

- The *differentiable parameters* of a custom function are its positional parameters
  minus `nondiff_argnums` (positions or names). Keyword-only and `*args`/`**kwargs`
  parameters are never differentiable.
- `@f.defvjp def f_vjp(g, ans, x, y, ...)`: `g` is the output's cotangent (for a tuple,
  list or dict output, one of its structure, zeros for the results the caller did not
  use), `ans` the output, then every parameter of `f` in order (defaults filled in). It returns one gradient per
  differentiable parameter: the value itself when there is one, a tuple in parameter
  order when there are several. Each gradient has its parameter's shape; None means zero.
- `@f.defjvp def f_jvp(t_x, t_y, ..., ans, x, y, ...)`: one tangent per differentiable
  parameter, then `ans` and every parameter. It returns the output's tangent, shaped
  like `ans` (for a tuple, list or dict of results, one of the same structure: their
  tangents), and must be linear in the tangents (the compiler adds up one call per
  varying parameter, passing zeros for the other tangents).
- Reverse mode through a function that has only forward rules transposes them: the
  gradient of a parameter costs one forward-rule call per element of it (JAX
  differentiates custom_jvp functions in reverse mode too). A `.defvjp` rule, given
  before or after, takes precedence.
- `srcgrad.defvjp(fn, rule_0, rule_1, ...)` / `srcgrad.defjvp(fn, ...)` for a function
  you do not own: one rule per positional parameter, `rule(g, ans, *args)` returning
  that parameter's gradient (`rule(t, ans, *args)` returning its contribution to the
  output's tangent); None marks a parameter that has no derivative. `fn` keeps its
  identity; only calls inside differentiated code use the rules.

A custom function is a plain Python function whose body is one call of the original
(its source is registered in `linecache`), so `srcgrad.grad(softplus)` differentiates
that call with the custom rule, and the function keeps its name, docstring and signature.
"""

import inspect
import itertools
import linecache
import numbers
import os
import re

import numpy as np

from .rules import registry
from .runtime import sequence_like, structure_like, zeros_like_grad

__all__ = ["custom_vjp", "custom_jvp", "defvjp", "defjvp", "stop_gradient"]


def stop_gradient(x):
    """`x` itself, as a constant to every derivative: no gradient flows through it.

    Registered as non-differentiable, so the compiler keeps the call in the forward
    pass and sends no adjoint back through it. A Tensor is returned detached.
    """
    from .tensor.tensor import Tensor

    return x.detach() if isinstance(x, Tensor) else x


stop_gradient.__module__ = "srcgrad"  # the public name, in docs/rules.md and messages
registry.nondifferentiable(stop_gradient)


# --- decorators ----------------------------------------------------------------------


def custom_vjp(fn=None, *, nondiff_argnums=()):
    """Give `fn` a reverse rule of your own: `@custom_vjp` then `@fn.defvjp`.

    Returns a function that computes what `fn` computes and has `fn`'s name, docstring
    and signature, with `.defvjp(rule)` and `.defjvp(rule)` to register its rules.
    Until a rule is registered, differentiating through it raises
    NotDifferentiableError. `nondiff_argnums` lists parameters (positions or names)
    that get no gradient.
    """
    if fn is None:
        return lambda f: custom_vjp(f, nondiff_argnums=nondiff_argnums)
    return _CustomFunction(fn, nondiff_argnums, "custom_vjp").function


def custom_jvp(fn=None, *, nondiff_argnums=()):
    """Give `fn` a forward rule of your own: `@custom_jvp` then `@fn.defjvp`.

    The same object as `custom_vjp` makes; reverse mode needs a `.defvjp` rule too.
    """
    if fn is None:
        return lambda f: custom_jvp(f, nondiff_argnums=nondiff_argnums)
    return _CustomFunction(fn, nondiff_argnums, "custom_jvp").function


def defvjp(fn, *rules):
    """Register reverse rules for `fn`, one per positional parameter (None: none).

    `rule(g, ans, *args, **kwargs)` returns the gradient of that parameter, shaped like it.
    """
    _define_per_parameter(fn, rules, "vjp")


def defjvp(fn, *rules):
    """Register forward rules for `fn`, one per positional parameter (None: none).

    `rule(t, ans, *args, **kwargs)` returns that parameter's contribution to the output's
    tangent, shaped like the output.
    """
    _define_per_parameter(fn, rules, "jvp")


# --- custom functions ------------------------------------------------------------------

_FILES = itertools.count(1)


class _CustomFunction:
    """The state behind one `custom_vjp`/`custom_jvp` function.

    `function` is what users hold: a generated `def name(<params>): return name(<params>)`
    whose inner `name` is `call`, which runs the original (or records one Tensor-shim node
    when given Tensors). The rule is registered under `function` and `call`, the two
    objects the compiler can meet.
    """

    def __init__(self, fn, nondiff_argnums, decorator):
        if not callable(fn):
            raise TypeError(f"srcgrad.{decorator} decorates a function, not {fn!r}")
        self.fn = fn
        self.name = getattr(fn, "__name__", "function")
        self.label = re.sub(r"\W", "", self.name) or "function"
        self.signature = inspect.signature(fn)
        params = list(self.signature.parameters.values())
        positional = [p.name for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        skip = set()
        for n in nondiff_argnums if isinstance(nondiff_argnums, (tuple, list)) else (nondiff_argnums,):
            if isinstance(n, str) and n in positional:
                skip.add(n)
            elif isinstance(n, int) and not isinstance(n, bool) and -len(positional) <= n < len(positional):
                skip.add(positional[n])
            else:
                raise TypeError(
                    f"nondiff_argnums={nondiff_argnums!r} of `{self.name}`: {n!r} is not one of its "
                    f"positional parameters {tuple(positional)}"
                )
        self.diff = tuple(p for p in positional if p not in skip)
        self.call = self._dispatcher()
        self.function = self._wrapper()
        self.function.defvjp = self.defvjp
        self.function.defjvp = self.defjvp
        self.rule = registry.custom_rule(self.function, self.signature, _short(self.name), aliases=(self.call,))

    def _dispatcher(self):
        fn, custom = self.fn, self

        def call(*args, **kwargs):
            from .tensor import ops
            from .tensor.tensor import Tensor

            if any(isinstance(a, Tensor) for a in args):
                return ops.apply(custom.call, *args, **kwargs)
            return fn(*args, **kwargs)

        call.__name__ = call.__qualname__ = self.name
        return call

    def _wrapper(self):
        params, args = [], []
        inner = self.name if self.name.isidentifier() else "function"
        names = list(self.signature.parameters)
        if inner in names:
            inner = f"{inner}_primal"
        star = False
        items = list(self.signature.parameters.values())
        for i, p in enumerate(items):
            if p.kind is p.VAR_POSITIONAL:
                params.append(f"*{p.name}")
                args.append(f"*{p.name}")
                star = True
            elif p.kind is p.KEYWORD_ONLY:
                if not star:
                    params.append("*")
                    star = True
                params.append(p.name)
                args.append(f"{p.name}={p.name}")
            elif p.kind is p.VAR_KEYWORD:
                params.append(f"**{p.name}")
                args.append(f"**{p.name}")
            else:
                params.append(p.name)
                args.append(p.name)
                if p.kind is p.POSITIONAL_ONLY and (i + 1 == len(items) or items[i + 1].kind is not p.POSITIONAL_ONLY):
                    params.append("/")
        def_name = self.name if self.name.isidentifier() else "function"
        text = f"def {def_name}({', '.join(params)}):\n    return {inner}({', '.join(args)})\n"
        filename = f"<srcgrad.custom {self.name} ({_origin(self.fn)})>"
        cached = linecache.cache.get(filename)
        if cached is not None and cached[2] != text.splitlines(True):  # same place, new signature
            filename = f"{filename[:-1]} #{next(_FILES)}>"
        namespace = {}
        exec(compile(text, filename, "exec"), namespace)
        linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
        function = namespace.pop(def_name)
        namespace[inner] = self.call  # the def's own name now means the original, not itself
        function.__defaults__ = getattr(self.fn, "__defaults__", None)
        function.__kwdefaults__ = getattr(self.fn, "__kwdefaults__", None)
        for attr in ("__name__", "__qualname__", "__doc__", "__module__"):
            if hasattr(self.fn, attr):
                setattr(function, attr, getattr(self.fn, attr))
        function.__dict__.update(getattr(self.fn, "__dict__", {}))
        function.__annotations__ = dict(getattr(self.fn, "__annotations__", {}))
        function.__signature__ = self.signature  # positional defaults shown as the user wrote them
        return function

    def defvjp(self, rule):
        """Register `rule(g, ans, *params)` -> one gradient per differentiable parameter."""
        _check_arity(rule, 2 + len(self.signature.parameters), self.name, "(g, ans, ", self.signature, "vjp")
        count = len(self.diff)
        inline = _inlinable(rule, self.signature)
        for index, param in enumerate(self.diff):
            check = _Check(f"check_{self.label}_{param}", self.name, rule, "vjp", param,
                           index if count > 1 else None, self.diff)
            derivative = _CheckedRule(f"{self.label}_vjp_{param}", rule, check, param, ("g", "ans"),
                                      self.signature, inline)
            self.rule.vjps[param] = registry.Derivative(derivative, "vjp")
        _rules_changed()
        return rule

    def defjvp(self, rule):
        """Register `rule(*tangents, ans, *params)` -> the output's tangent (linear in the tangents)."""
        tangents = "".join(f"t_{p}, " for p in self.diff)
        _check_arity(rule, len(self.diff) + 1 + len(self.signature.parameters), self.name, f"({tangents}ans, ",
                     self.signature, "jvp")
        single = len(self.diff) == 1
        inline = single and _inlinable(rule, self.signature)
        for index, param in enumerate(self.diff):
            check = _Check(f"check_{self.label}_tangent", self.name, rule, "jvp", "ans", None, self.diff)
            spread = None if single else (index, self.diff)
            derivative = _CheckedRule(f"{self.label}_jvp_{param}", rule, check, "ans", ("t", "ans"),
                                      self.signature, inline, spread)
            self.rule.jvps[param] = registry.Derivative(derivative, "jvp")
            _transpose_into(self.rule, param, derivative, f"{self.label}_vjp_{param}", self.signature)
        _rules_changed()
        return rule


def define_rules(fn, vjp_rules, jvp_rules):
    """`defjvp(fn, *jvp_rules)` then `defvjp(fn, *vjp_rules)` for a function that had no
    rules, so no derivative built before can have used any: nothing is forgotten (a
    derivative may be being built)."""
    _define_per_parameter(fn, jvp_rules, "jvp", forget=False)
    _define_per_parameter(fn, vjp_rules, "vjp", forget=False)


def _define_per_parameter(fn, rules, kind, forget=True):
    if not callable(fn):
        raise TypeError(f"srcgrad.def{kind} registers rules for a function, not {fn!r}")
    name = getattr(fn, "__name__", repr(fn))
    first = next((r for r in rules if r is not None), None)
    try:
        signature = inspect.signature(fn)
    except (TypeError, ValueError):  # a builtin without a signature: the rules spell it
        if first is None:
            raise TypeError(f"srcgrad.def{kind}({name}, ...): give at least one rule") from None
        signature = registry._signature_after(first, 2)
    positional = [p.name for p in signature.parameters.values() if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    if len(rules) > len(positional):
        raise TypeError(
            f"srcgrad.def{kind}({name}, ...) got {len(rules)} rules, but `{name}` has {len(positional)} "
            f"positional parameters {tuple(positional)}: give one rule (or None) per parameter"
        )
    rule = registry.custom_rule(fn, signature, _short(name))
    lead = ("g", "ans") if kind == "vjp" else ("t", "ans")
    table = rule.vjps if kind == "vjp" else rule.jvps
    for param, fn_rule in zip(positional, rules):
        if fn_rule is None:
            table.pop(param, None)
            continue
        _check_arity(fn_rule, 2 + len(signature.parameters), name, f"({', '.join(lead)}, ", signature, kind)
        against = param if kind == "vjp" else "ans"
        label = re.sub(r"\W", "", name) or "function"
        check = _Check(f"check_{label}_{param}" if kind == "vjp" else f"check_{label}_tangent", name, fn_rule,
                       kind, against, None, (param,))
        derivative = _CheckedRule(f"{label}_{kind}_{param}", fn_rule, check, against, lead, signature,
                                  _inlinable(fn_rule, signature))
        table[param] = registry.Derivative(derivative, kind)
        if kind == "jvp":
            _transpose_into(rule, param, derivative, f"{label}_vjp_{param}", signature)
    if forget:
        _rules_changed()


def _rules_changed():
    """Forget built derivatives: they may have inlined a rule that was just replaced.

    Functions that `grad` returned earlier keep the code they were built with.
    """
    from .compiler import cache

    cache.clear()


# --- checked rules ----------------------------------------------------------------------


def _check_vjp(g, ans, value, like):
    return g


def _check_jvp(t, ans, value, like):
    return t


def _check_vjp_like(g, ans, value, like):
    return zeros_like_grad(like)


def _check_jvp_like(t, ans, value, like):
    return zeros_like_grad(ans)


_check_vjp_like.zero_tangent = _check_jvp_like.zero_tangent = True  # `like` only lends its shape


_CHECK_SIGNATURE = inspect.signature(_check_vjp).replace(
    parameters=list(inspect.signature(_check_vjp).parameters.values())[2:]
)


class _Check:
    """`check(value, like)`: a user rule's result, validated against `like`.

    For a reverse rule `like` is the parameter and `value` one gradient (or, with
    `index`, the tuple of all of them); for a forward rule `like` is `ans`, whose tangent
    for a list, tuple or dict of results is checked entry by entry (`_tangent_entries`).
    None becomes zeros. Raises ValueError naming the function, the rule and what differs.
    """

    def __init__(self, name, function, rule, kind, against, index, diff):
        self.__name__ = self.__qualname__ = name
        self.function = function
        self.rule_name = getattr(rule, "__name__", repr(rule))
        self.kind = kind
        self.against = against
        self.index = index
        self.diff = diff
        rule = registry.custom_rule(self, _CHECK_SIGNATURE, "Check")
        rule.vjps["like"] = registry.Derivative(_check_vjp_like, "vjp")
        rule.jvps["like"] = registry.Derivative(_check_jvp_like, "jvp")
        if index is None:  # the identity on `value`: transforms of generated code see through it
            rule.vjps["value"] = registry.Derivative(_check_vjp, "vjp")
            rule.jvps["value"] = registry.Derivative(_check_jvp, "jvp")
            return
        check = self  # picks entry `index` of the rule's tuple of gradients: linear in it

        def picked_jvp(t, ans, value, like):
            return check(t, like)

        def picked_vjp(g, ans, value, like):  # g at `index`, None (no gradient) for the other entries
            return tuple(g if i == check.index else None for i in range(len(check.diff)))

        rule.vjps["value"] = registry.Derivative(picked_vjp, "vjp")
        rule.jvps["value"] = registry.Derivative(picked_jvp, "jvp")

    def __call__(self, value, like):
        if self.kind == "vjp":
            value = self._pick(value)
        elif isinstance(like, (list, tuple, dict)):
            return self._tangent_entries(value, like, "")
        if value is None:
            return np.zeros(np.shape(like), dtype=np.result_type(like, 1.0))
        if np.shape(value) != np.shape(like):
            if self.kind == "vjp":
                what = f"a gradient of shape {np.shape(value)} for `{self.against}`, which has shape {np.shape(like)}"
                fix = f"return an array shaped like `{self.against}` (sum over broadcast axes)"
            else:
                what = f"a tangent of shape {np.shape(value)}, but `{self.function}` returns shape {np.shape(like)}"
                fix = "return the output's tangent, shaped like `ans`"
            raise ValueError(f"custom {self.kind} rule `{self.rule_name}` of `{self.function}` returned {what}; {fix}")
        return value

    def _tangent_entries(self, value, like, path):
        """The tangent `value` of `like`, the result at `path` in `ans` (a list, tuple or
        dict of results, or one of them), with zeros for None; a ValueError where they
        differ in structure or an entry in shape. An array tangent of a list of numbers
        of its shape is taken as it is."""
        if value is None:
            return zeros_like_grad(like)
        if isinstance(like, (list, tuple, dict)) and isinstance(value, (list, tuple, dict)):
            if type(like) is dict:
                fits = type(value) is dict and set(value) == set(like)
            else:
                fits = isinstance(value, (list, tuple)) and len(value) == len(like)
            if not fits:
                raise self._tangent_error(f"{_described(value)} as the tangent of `ans{path}`, {_described(like)}")
            keys = list(like) if type(like) is dict else range(len(like))
            entries = [self._tangent_entries(value[k], like[k], f"{path}[{k!r}]") for k in keys]
            return dict(zip(keys, entries)) if type(like) is dict else sequence_like(like, entries)
        if _shape(value) != _shape(like) or _shape(like) is None:
            raise self._tangent_error(f"{_described(value)} as the tangent of `ans{path}`, {_described(like)}")
        return value

    def _tangent_error(self, what):
        return ValueError(
            f"custom jvp rule `{self.rule_name}` of `{self.function}` returned {what}; return the output's tangent, "
            "shaped like `ans`"
        )

    def _pick(self, value):
        count = len(self.diff)
        if isinstance(value, (tuple, list)) and (self.index is not None or len(value) == 1):
            if len(value) != count:
                raise ValueError(self._count_message(f"{len(value)} values"))
            return value[self.index or 0]
        if self.index is not None:
            raise ValueError(self._count_message(f"one {type(value).__name__}"))
        if isinstance(value, (tuple, list)):  # one parameter, several values
            raise ValueError(self._count_message(f"{len(value)} values"))
        return value

    def _count_message(self, got):
        count = len(self.diff)
        names = ", ".join(self.diff)
        shape = f"a tuple ({', '.join(p + '_bar' for p in self.diff)})" if count > 1 else f"the gradient of `{names}`"
        return (
            f"custom vjp rule `{self.rule_name}` of `{self.function}` returned {got}, but `{self.function}` has "
            f"{count} differentiable parameter{'s' if count != 1 else ''} ({names}); return {shape}"
        )


def _shape(value):
    """`np.shape(value)`, or None for a list or tuple of entries of different shapes."""
    try:
        return np.shape(value)
    except ValueError:
        return None


def _described(value):
    """`value`'s kind and size for a message: `a tuple of 2 entries`, `shape (3,)`."""
    if type(value) is dict:
        return f"a dict with keys {', '.join(map(repr, value))}"
    if isinstance(value, (list, tuple)):
        return f"a {type(value).__name__} of {len(value)} entr{'y' if len(value) == 1 else 'ies'}"
    return f"shape {_shape(value)}"


class _CheckedRule:
    """A registry rule `(g|t, ans, *params)` that runs the user's rule inside its check.

    `spread` = (index, differentiable parameters) for a forward rule taking one tangent
    per differentiable parameter: the tangent goes to `index`, zeros to the others.
    When the user's rule is a single `return` taking exactly `(g|t, ans, *params)`,
    `srcgrad_checked` lets the compiler inline it inside the check.
    """

    def __init__(self, name, rule, check, against, lead, signature, inlinable, spread=None):
        self.__name__ = self.__qualname__ = name
        self.rule = rule
        self.check = check
        self.against = against
        self.spread = spread
        self.primal_signature = signature
        params = [inspect.Parameter(n, inspect.Parameter.POSITIONAL_OR_KEYWORD) for n in lead]
        self.__signature__ = signature.replace(parameters=params + list(signature.parameters.values()))
        self.srcgrad_checked = (rule, check, against) if inlinable and spread is None else None
        self.srcgrad_called_rule = (check.function, getattr(rule, "__name__", repr(rule)), check.kind,
                                    spread is None)  # calls.py's refusal, and whether a `def` would be read

    def __call__(self, lead, ans, *args, **kwargs):
        kwargs = _with_keyword_defaults(self.primal_signature, kwargs)
        if self.check.kind == "vjp" and isinstance(ans, (list, tuple, dict)):
            lead = structure_like(lead, ans)  # entries the function's caller did not use: zeros
        if self.spread is None:
            value = self.rule(lead, ans, *args, **kwargs)
        else:
            index, diff = self.spread
            bound = self.primal_signature.bind(*args, **kwargs).arguments
            tangents = [lead if i == index else _zeros(bound.get(p, 0.0)) for i, p in enumerate(diff)]
            value = self.rule(*tangents, ans, *args, **kwargs)
        if self.against == "ans":
            like = ans
        else:
            bound = self.primal_signature.bind(*args, **kwargs)
            bound.apply_defaults()
            like = bound.arguments[self.against]
        return self.check(value, like)


class _TransposedJVP:
    """A reverse rule made from a forward rule `jvp(t, ans, *params)`, linear in `t`.

    The gradient's element i is `<g, jvp(e_i)>` for the unit tangent e_i, the sum of
    `g * jvp(e_i)` over every output (`_paired_sum`: a function returning a tuple has a
    tuple cotangent `g`), so one call costs one forward-rule call per element of the
    parameter: fine for scalars and small arrays; give a reverse rule (`.defvjp`) for
    large ones.
    """

    def __init__(self, name, jvp, param, signature, function):
        self.__name__ = self.__qualname__ = name
        self.jvp = jvp
        self.param = param
        self.srcgrad_transposed = (function, param)  # which function's forward rule (compiler/calls.py words its refusal)
        self.primal_signature = signature
        self.__signature__ = jvp.__signature__.replace(
            parameters=[inspect.Parameter("g", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
            + list(jvp.__signature__.parameters.values())[1:]
        )

    def __call__(self, g, ans, *args, **kwargs):
        kwargs = _with_keyword_defaults(self.primal_signature, kwargs)
        bound = self.primal_signature.bind(*args, **kwargs)
        bound.apply_defaults()
        x = bound.arguments[self.param]
        if not isinstance(x, (numbers.Number, np.ndarray, np.generic)):
            name = self.srcgrad_transposed[0]
            raise TypeError(f"reverse mode transposes the forward rule of `{name}` one element of `{self.param}` at a "
                            f"time, which needs a float or an array, not a {type(x).__name__}: give `{name}` a "
                            "reverse rule too (`.defvjp`, or `srcgrad.defvjp`)")
        grad = _zeros(x)
        flat = grad.reshape(-1)
        for i in range(flat.size):
            unit = np.zeros_like(flat)
            unit[i] = 1.0
            flat[i] = _paired_sum(g, self.jvp(unit.reshape(grad.shape), ans, *args, **kwargs))
        return grad


def _with_keyword_defaults(signature, kwargs):
    """`kwargs` and the defaults of the primal's keyword-only parameters not in it: a rule
    takes every parameter, and the generated call passes the positional defaults only."""
    missing = {p.name: p.default for p in signature.parameters.values()
               if p.kind is p.KEYWORD_ONLY and p.default is not p.empty and p.name not in kwargs}
    return {**kwargs, **missing} if missing else kwargs


def _paired_sum(g, t):
    """`np.sum(g * t)` summed over the outputs: the pairing of the cotangent `g` with the
    tangent `t` of a result that may be a list, tuple or dict of arrays (entries alike in
    both; None, or a key missing from a dict `g`, is zero)."""
    if g is None or t is None:
        return 0.0
    if type(g) is dict:
        return sum(_paired_sum(v, t[k]) for k, v in g.items())
    if isinstance(g, (list, tuple)):
        return sum(_paired_sum(gi, ti) for gi, ti in zip(g, t))
    return np.sum(g * t)


def _transpose_into(rule, param, jvp, name, signature):
    """Give `param` a reverse rule transposed from its forward rule, unless the user gave one."""
    current = rule.vjps.get(param)
    if current is None or isinstance(current.fn, _TransposedJVP):
        transposed = _TransposedJVP(name, jvp, param, signature, getattr(rule.primal, "__name__", name))
        rule.vjps[param] = registry.Derivative(transposed, "vjp")


def _zeros(like):
    return np.zeros(np.shape(like), dtype=np.result_type(like, 1.0))


def _inlinable(rule, signature):
    """Whether the compiler may inline `rule`: a `def` taking `(g|t, ans, *params)` as plain
    parameters, for a primal whose parameters are plain too."""
    nargs = 2 + len(signature.parameters)
    if not inspect.isfunction(rule) or not rule.__name__.isidentifier() or rule.__name__ == "<lambda>":
        return False
    if any(p.kind not in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in signature.parameters.values()):
        return False
    params = list(inspect.signature(rule).parameters.values())
    return len(params) == nargs and all(p.kind is p.POSITIONAL_OR_KEYWORD for p in params)


def _check_arity(rule, nargs, function, spelled, signature, kind):
    if not callable(rule):
        raise TypeError(f"the {kind} rule of `{function}` must be a function, not {rule!r}")
    try:
        inspect.signature(rule).bind(*range(nargs))
    except TypeError:
        params = ", ".join(signature.parameters)
        raise TypeError(
            f"the {kind} rule `{getattr(rule, '__name__', rule)}` of `{function}` must take {spelled}{params}), "
            f"{nargs} arguments in all, but its signature is {inspect.signature(rule)}"
        ) from None
    except ValueError:  # no signature to check
        pass


def _short(name):
    return "".join(part.capitalize() for part in re.sub(r"\W", "", name).strip("_").split("_")) or "Custom"


def _origin(fn):
    code = getattr(fn, "__code__", None)
    return f"{os.path.basename(code.co_filename)}:{code.co_firstlineno}" if code else "?"
