"""A gradient made by srcgrad, called inside a function srcgrad differentiates: its rules.

    force = srcgrad.grad(energy)            # G = dE/dx (value_and_grad alike)
    def loss(x):
        return np.sum(force(x) ** 2)        # srcgrad.grad(loss) needs G's own derivative

The Jacobian of G = grad(E, wrt=p) with respect to argument j is a block of E's
Hessian, d2E / dx_p dx_j. Second derivatives being symmetric, a cotangent u of G's
output pulls back to argument j as the forward derivative of grad(E, wrt=j) along u
placed at position p, and a tangent t of argument j pushes forward as the forward
derivative of G along t at j. Both are `srcgrad.jvp` of generated gradient code
(forward over reverse, as `hessian` computes), so each call of G costs about one
Hessian-vector product in the derivative of the function calling it.

The rules are registered, as `srcgrad.defvjp`/`defjvp` would register them, the first
time the compiler looks a rule up for such a gradient (`registry.add_provider`). They
cover `grad` and `value_and_grad` of one parameter (whose value pulls back through the
gradient itself) called with floats and arrays, of a function that reaches
no custom rule and no `stop_gradient` (either may make G's Jacobian unsymmetric); a
second derivative of the function calling G, and calls of vjp pullbacks, jacobian or
hessian derivatives, keep their refusal.
"""

import inspect

import numpy as np

from .errors import defined_at
from .rules import registry

__all__ = ["rules_for"]


def rules_for(fn):
    """Register the rules of `fn` where it is a gradient `grad(E, wrt=p)` (or
    `value_and_grad`) of one parameter made by srcgrad; whether it is (and has them now)."""
    lazy = getattr(fn, "__srcgrad_lazy__", None)
    mode = getattr(lazy, "mode", None)
    if mode not in ("grad", "value_and_grad") or not isinstance(getattr(lazy, "wrt", None), int):
        return False
    from .custom import define_rules

    if _unsymmetric(lazy) is not None:
        return False
    energy, p = lazy.fn, lazy.wrt
    try:
        params = [q for q in inspect.signature(fn).parameters.values()
                  if q.kind in (q.POSITIONAL_ONLY, q.POSITIONAL_OR_KEYWORD)]
    except (TypeError, ValueError):
        return False
    grads = {}

    def gradient_of(j):
        if j not in grads:
            from .api import grad

            grads[j] = fn if j == p and mode == "grad" else grad(energy, wrt=j)
        return grads[j]

    def pullback(j):
        def rule(g, ans, *args):
            _check(fn, args)
            from .jacobians import jvp

            value_bar, g = g if mode == "value_and_grad" else (None, g)
            if g is None:  # the gradient unused: only the value's d/dx_j = dE/dx_j
                return value_bar * gradient_of(j)(*args)
            tangents = tuple(g if i == p else None for i in range(len(args)))
            gradient, pulled = jvp(gradient_of(j), args, tangents)
            return pulled if value_bar is None else pulled + value_bar * gradient

        rule.__name__ = f"{fn.__name__}_vjp_{params[j].name}"
        return rule

    def push(j):
        def rule(t, ans, *args):
            _check(fn, args)
            from .jacobians import jvp

            tangents = tuple(t if i == j else None for i in range(len(args)))
            return jvp(fn, args, tangents)[1]

        rule.__name__ = f"{fn.__name__}_jvp_{params[j].name}"
        return rule

    define_rules(fn, [pullback(j) for j in range(len(params))], [push(j) for j in range(len(params))])
    made = registry.lookup(fn)
    for derivative in list(made.vjps.values()) + list(made.jvps.values()):
        derivative.fn.srcgrad_gradient_called = fn.__name__  # how a refusal names what they serve (calls.py)
    return True


def _unsymmetric(lazy):
    """The name of a custom rule or `stop_gradient` the gradient reaches (through the
    function's calls, its callees' included), or None. Either may make the gradient's
    Jacobian unsymmetric (a clipped or straight-through gradient is no function's
    gradient), which the rules above assume it is not."""
    from .custom import stop_gradient

    try:
        derivative = lazy.get()
    except Exception:  # noqa: BLE001 - not buildable now: no rules, the call is refused as before
        return "?"
    for _, name, value in derivative.reads:
        if value is stop_gradient or registry.has_custom_rule(value):
            return name
    return "stop_gradient" if "stop_gradient(" in derivative.source else None


def _check(fn, args):
    """A TypeError where an argument of the gradient `fn` is no float or array: its rules
    push floats and arrays only."""
    for a in args:
        if not isinstance(a, (float, int, np.ndarray, np.generic)):
            raise TypeError(
                f"`{fn.__name__}` ({defined_at(fn.__wrapped__)}), a gradient made by srcgrad, is differentiated "
                f"inside another function with a {type(a).__name__} argument: srcgrad follows such a call with "
                "float and array arguments only; pass the arrays one by one"
            )


registry.add_provider(rules_for)
