"""User rules as registry rules: the check around each one, and reverse rules
transposed from forward ones.

`CheckedRule` runs a user's rule and hands what it returns to its `Check`, which
validates the count and shapes against the parameter (a reverse rule) or the output
(a forward rule) and raises a ValueError naming the function and the rule where they
differ. The check is itself a registered function whose derivative is the identity on
the value, so transforms of generated code see through it. `TransposedJVP` gives a
parameter with only a forward rule its reverse rule, one forward-rule call per element.
"""

import inspect
import numbers

import numpy as np

from .rules import registry
from .runtime import sequence_like, structure_like, zeros_like_grad

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


class Check:
    """`check(value, like)`: a user rule's result, validated against `like`.

    For a reverse rule `like` is the parameter and `value` one gradient (or, with
    `index`, the tuple of all of them); for a forward rule `like` is `ans`, whose tangent
    for a list, tuple or dict of results is checked entry by entry (`_tangent_entries`).
    None becomes zeros. Raises ValueError naming the function, the rule and what differs
    (TypeError where what it returned holds no numbers: a string).
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
            value = self._pick(value, like)
            if type(like) is dict and value is not None:
                self._check_keys(value, like)
        elif isinstance(like, (list, tuple, dict)):
            return self._tangent_entries(value, like, "")
        if value is None:
            return np.zeros(np.shape(like), dtype=np.result_type(like, 1.0))
        if not _numeric(value):
            what = f"for `{self.against}`" if self.kind == "vjp" else "as the tangent of `ans`"
            raise TypeError(
                f"custom {self.kind} rule `{self.rule_name}` of `{self.function}` returned {type(value).__name__} "
                f"{value!r:.40} {what}; return numbers (an array shaped like `{self.against}`, or None for zeros)"
            )
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

    def _check_keys(self, value, like):
        """Refuse a gradient for the dict parameter `like` that is not a dict of its keys
        (a key it has not was dropped, and the parameter's gradient taken as 0)."""
        if type(value) is not dict or not set(value) <= set(like):
            got = (f"a dict with keys {', '.join(sorted(map(repr, value)))}" if type(value) is dict
                   else f"{type(value).__name__} {value!r:.40}")
            raise ValueError(
                f"custom vjp rule `{self.rule_name}` of `{self.function}` returned {got} for `{self.against}`, a "
                f"dict with keys {', '.join(sorted(map(repr, like)))}; return a dict of its keys (one left out, or "
                "None, is a zero gradient)"
            )

    def _pick(self, value, like=None):
        count = len(self.diff)
        if count == 1 and self.index is None and type(value) is type(like) and type(like) in (list, tuple) and (
                len(value) == len(like) != 1):
            return value  # the gradient of a list or tuple parameter, entry by entry
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


def _numeric(value):
    """Whether a rule's result `value` (a gradient or tangent) holds numbers: a number, an
    array of numbers, or a list, tuple or dict (of a parameter or output that is one)."""
    if isinstance(value, (np.ndarray, np.generic)):
        return value.dtype.kind in "fciub"
    return isinstance(value, (numbers.Number, list, tuple, dict))


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


class CheckedRule:
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
        self.__signature__ = with_lead(lead, signature)
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


class TransposedJVP:
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
        self.__signature__ = with_lead(("g", "ans"), signature)

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


def with_lead(lead, signature):
    """The signature `(g|t, ans, *params)` of a rule of a function of `signature`: the
    lead names get underscores until no parameter has them (`def f(g, ans)` has the
    rule `(g_, ans_, g, ans)`), and are positional-only where the first parameter is."""
    taken = set(signature.parameters)
    names = []
    for name in lead:
        while name in taken:
            name += "_"
        taken.add(name)
        names.append(name)
    first = next(iter(signature.parameters.values()), None)
    kind = inspect.Parameter.POSITIONAL_ONLY if first is not None and first.kind is first.POSITIONAL_ONLY \
        else inspect.Parameter.POSITIONAL_OR_KEYWORD
    return signature.replace(parameters=[inspect.Parameter(n, kind) for n in names] + list(signature.parameters.values()))


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


def transpose_into(rule, param, jvp, name, signature):
    """Give `param` a reverse rule transposed from its forward rule, unless the user gave one."""
    current = rule.vjps.get(param)
    if current is None or isinstance(current.fn, TransposedJVP):
        transposed = TransposedJVP(name, jvp, param, signature, getattr(rule.primal, "__name__", name))
        rule.vjps[param] = registry.Derivative(transposed, "vjp")


def _zeros(like):
    return np.zeros(np.shape(like), dtype=np.result_type(like, 1.0))


def inlinable(rule, signature):
    """Whether the compiler may inline `rule`: a `def` taking `(g|t, ans, *params)` as plain
    parameters, for a primal whose parameters are plain too."""
    nargs = 2 + len(signature.parameters)
    if not inspect.isfunction(rule) or not rule.__name__.isidentifier() or rule.__name__ == "<lambda>":
        return False
    if any(p.kind not in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in signature.parameters.values()):
        return False
    params = list(inspect.signature(rule).parameters.values())
    return len(params) == nargs and all(p.kind is p.POSITIONAL_OR_KEYWORD for p in params)
