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
- JAX's spellings work too: `f.defvjp(fwd, bwd)`, where `fwd(*params)` returns
  `(out, residuals)` and `bwd(*nondiff, residuals, g)` a tuple of one gradient per
  differentiable parameter (`fwd` runs again when the gradient is computed, so it must
  be deterministic); and `@f.defjvp def f_jvp(*nondiff, primals, tangents)` returning
  `(out, out_dot)`, primals and tangents being tuples over the differentiable parameters.
  Both need a function of plain positional parameters.
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
import os
import re

from .custom_checks import Check, CheckedRule, inlinable, transpose_into
from .rules import registry

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
    and signature, with `.defvjp(rule)` and `.defjvp(rule)` to register its rules
    (`rule(g, ans, *params)`; JAX's `.defvjp(fwd, bwd)` works too).
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

    def defvjp(self, rule, bwd=None):
        """Register `rule(g, ans, *params)` -> one gradient per differentiable parameter;
        or, as in JAX, `defvjp(fwd, bwd)` (`_JaxVJP`). Returns `rule` (`fwd`)."""
        if bwd is not None:
            given, rule = rule, _JaxVJP(self, rule, bwd)
            self._install_vjp(rule)
            return given
        _check_arity(rule, 2 + len(self.signature.parameters), self.name, "(g, ans, ", self.signature, "vjp")
        self._install_vjp(rule)
        return rule

    def _install_vjp(self, rule):
        count = len(self.diff)
        inline = inlinable(rule, self.signature)
        for index, param in enumerate(self.diff):
            check = Check(f"check_{self.label}_{param}", self.name, rule, "vjp", param,
                           index if count > 1 else None, self.diff)
            derivative = CheckedRule(f"{self.label}_vjp_{param}", rule, check, param, ("g", "ans"),
                                      self.signature, inline)
            self.rule.vjps[param] = registry.Derivative(derivative, "vjp")
        _rules_changed()

    def defjvp(self, rule):
        """Register `rule(*tangents, ans, *params)` -> the output's tangent (linear in the
        tangents); or, as in JAX, `rule(primals, tangents)` -> `(out, out_dot)` (`_JaxJVP`)."""
        given = rule
        if _JaxJVP.spells(rule, self):
            rule = _JaxJVP(self, rule)
        tangents = "".join(f"t_{p}, " for p in self.diff)
        _check_arity(rule, len(self.diff) + 1 + len(self.signature.parameters), self.name, f"({tangents}ans, ",
                     self.signature, "jvp")
        single = len(self.diff) == 1
        inline = single and inlinable(rule, self.signature)
        for index, param in enumerate(self.diff):
            check = Check(f"check_{self.label}_tangent", self.name, rule, "jvp", "ans", None, self.diff)
            spread = None if single else (index, self.diff)
            derivative = CheckedRule(f"{self.label}_jvp_{param}", rule, check, "ans", ("t", "ans"),
                                      self.signature, inline, spread)
            self.rule.jvps[param] = registry.Derivative(derivative, "jvp")
            transpose_into(self.rule, param, derivative, f"{self.label}_vjp_{param}", self.signature)
        _rules_changed()
        return given


# --- JAX's spellings ---------------------------------------------------------------------


class _JaxVJP:
    """`f.defvjp(fwd, bwd)` as a rule `(g, ans, *params)`: `fwd(*params)` returns
    `(out, residuals)` and `bwd(*nondiff, residuals, g)` a tuple of one gradient per
    differentiable parameter, the parameters of `nondiff_argnums` first, as in JAX.
    The rule runs `fwd` again when the gradient is computed (srcgrad's forward pass
    runs `f` itself), so `fwd` must compute the same residuals every time."""

    def __init__(self, custom, fwd, bwd):
        _positional_only_parameters(custom, "defvjp(fwd, bwd)")
        nparams = len(custom.signature.parameters)
        nondiff = _nondiff_names(custom)
        _check_arity(fwd, nparams, custom.name, "(", custom.signature, "fwd")
        _check_arity(bwd, len(nondiff) + 2, custom.name, "(" + "".join(f"{n}, " for n in nondiff) + "residuals, g",
                     None, "bwd")
        self.__name__ = self.__qualname__ = getattr(bwd, "__name__", "bwd")
        self.fwd, self.bwd, self.custom = fwd, bwd, custom
        self.nondiff = [list(custom.signature.parameters).index(n) for n in nondiff]

    def __call__(self, g, ans, *params):
        pair = self.fwd(*params)
        if not (isinstance(pair, tuple) and len(pair) == 2):
            raise ValueError(
                f"the fwd rule `{getattr(self.fwd, '__name__', self.fwd)}` of `{self.custom.name}` returned "
                f"{type(pair).__name__} {pair!r:.60}; it must return a pair (output, residuals)"
            )
        return self.bwd(*[params[i] for i in self.nondiff], pair[1], g)


class _JaxJVP:
    """A JAX forward rule `jvp(*nondiff, primals, tangents)` -> `(out, out_dot)` (primals
    and tangents: tuples over the differentiable parameters) as a rule
    `(*tangents, ans, *params)` returning `out_dot`."""

    def __init__(self, custom, rule):
        _positional_only_parameters(custom, "defjvp(jvp) with `(primals, tangents)`")
        self.__name__ = self.__qualname__ = getattr(rule, "__name__", "jvp")
        self.rule, self.custom = rule, custom
        names = list(custom.signature.parameters)
        self.nondiff = [names.index(n) for n in _nondiff_names(custom)]
        self.diff = [names.index(n) for n in custom.diff]

    @staticmethod
    def spells(rule, custom):
        """Whether `rule` takes `(*nondiff, primals, tangents)` exactly: srcgrad's form
        `(*tangents, ans, *params)` always takes more (one parameter per tangent)."""
        try:
            params = inspect.signature(rule).parameters.values()
        except (TypeError, ValueError):
            return False
        if any(p.kind not in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) or p.default is not p.empty for p in params):
            return False
        return len(params) == len(_nondiff_names(custom)) + 2

    def __call__(self, *args):
        count = len(self.diff)
        tangents, params = tuple(args[:count]), args[count + 1:]
        primals = tuple(params[i] for i in self.diff)
        pair = self.rule(*[params[i] for i in self.nondiff], primals, tangents)
        if not (isinstance(pair, tuple) and len(pair) == 2):
            raise ValueError(
                f"custom jvp rule `{self.__name__}` of `{self.custom.name}` returned {type(pair).__name__} "
                f"{pair!r:.60}; a rule taking (primals, tangents) returns a pair (output, output tangent)"
            )
        return pair[1]


def _nondiff_names(custom):
    return [n for n in custom.signature.parameters if n not in custom.diff]


def _positional_only_parameters(custom, form):
    if any(p.kind not in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in custom.signature.parameters.values()):
        raise TypeError(
            f"`{custom.name}{custom.signature}`: JAX's `{form}` form needs a function of plain positional "
            "parameters; with keyword-only or * parameters, give srcgrad's form `rule(g, ans, *params)`"
        )


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
        check = Check(f"check_{label}_{param}" if kind == "vjp" else f"check_{label}_tangent", name, fn_rule,
                       kind, against, None, (param,))
        derivative = CheckedRule(f"{label}_{kind}_{param}", fn_rule, check, against, lead, signature,
                                  inlinable(fn_rule, signature))
        table[param] = registry.Derivative(derivative, kind)
        if kind == "jvp":
            transpose_into(rule, param, derivative, f"{label}_vjp_{param}", signature)
    if forget:
        _rules_changed()


def _rules_changed():
    """Forget built derivatives: they may have inlined a rule that was just replaced.

    Functions that `grad` returned earlier keep the code they were built with.
    """
    from .compiler import cache

    cache.clear()


def _check_arity(rule, nargs, function, spelled, signature, kind):
    if not callable(rule):
        raise TypeError(f"the {kind} rule of `{function}` must be a function, not {rule!r}")
    try:
        inspect.signature(rule).bind(*range(nargs))
    except TypeError:
        params = ", ".join(signature.parameters) if signature is not None else ""  # None: `spelled` is whole
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
