"""The derivative rule registry. Importing this package registers every rule module,
in a fixed order; `lookup(fn)` finds a primal's `Rule`."""

from . import activations, bessel_arrays, copies, decompositions, einsums, matrix_exponential, elementwise, gamma, inverses, linalg, methods, nondiff, normal_arrays, norms, operators, reductions, record_replace, sampling, scalars, scatter, selections, series, shapes, spacings, special_arrays, statistics, structure, ufunc_methods, variances, fills, patterns  # noqa: F401,E501  (registration)
from . import float_parts  # noqa: F401,E402  (PyTorch's fmax, fmin, ldexp, frexp)
from . import runtime_rules, adjoint_helper_rules, container_rules  # noqa: F401,E402  (rules for generated code's helpers: after operators, shapes)
from . import derived_rules  # noqa: F401,E402  (rules derived for the helpers of all rules above: last)
from .registry import (  # noqa: F401
    Derivative,
    Rule,
    all_nondifferentiable,
    all_rules,
    custom_rule,
    defjvp,
    defvjp,
    elementwise as elementwise_rule,
    is_nondifferentiable,
    lookup,
    nondifferentiable,
)
