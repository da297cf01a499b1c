"""The derivative rule registry. Importing this package registers every rule module,
in a fixed order; `lookup(fn)` finds a primal's `Rule`."""

from . import activations, elementwise, linalg, methods, nondiff, operators, reductions, scalars, series, shapes, structure  # noqa: F401,E501  (registration)
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
