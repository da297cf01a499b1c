"""The derivative rule registry. Importing this package registers every rule module,
in a fixed order; `lookup(fn)` finds a primal's `Rule`."""

from . import activations, elementwise, methods, nondiff, operators, reductions, shapes  # noqa: F401  (registration)
from .registry import (  # noqa: F401
    Derivative,
    Rule,
    all_nondifferentiable,
    all_rules,
    defjvp,
    defvjp,
    elementwise as elementwise_rule,
    is_nondifferentiable,
    lookup,
    nondifferentiable,
)
