"""Functions that may sit on the differentiated path but carry no gradient: shapes,
sizes, comparisons, index searches, rounding, constructors. Their results are
constants to the derivative; calling them raises no error.
"""

import builtins
import math
import operator

import numpy as np

from .registry import nondifferentiable

nondifferentiable(
    # shapes and sizes
    np.shape, np.ndim, np.size, builtins.len, builtins.range, builtins.isinstance,
    builtins.int, builtins.bool, builtins.round, builtins.type,
    # comparisons and logic
    operator.lt, operator.le, operator.gt, operator.ge, operator.eq, operator.ne,
    operator.not_, operator.truth, operator.contains, operator.is_, operator.is_not,
    operator.floordiv, operator.mod, operator.and_, operator.or_, operator.xor, operator.invert,
    np.less, np.less_equal, np.greater, np.greater_equal, np.equal, np.not_equal,
    np.logical_and, np.logical_or, np.logical_not, np.logical_xor,
    np.isnan, np.isinf, np.isfinite, np.all, np.any, np.allclose, np.isclose, np.array_equal,
    # index searches and integer results
    np.argmax, np.argmin, np.argsort, np.argwhere, np.nonzero, np.flatnonzero, np.searchsorted,
    np.count_nonzero, np.floor_divide,
    # piecewise-constant functions: zero gradient
    np.sign, np.floor, np.ceil, np.round, np.rint, np.trunc, np.fix,
    math.floor, math.ceil, math.trunc, math.isnan, math.isinf, math.isfinite, math.copysign,
    # constructors whose values do not depend on their arguments' values
    np.zeros_like, np.ones_like, np.empty_like, np.zeros, np.ones, np.empty, np.full,
    np.eye, np.identity, np.arange, np.linspace,
    np.random.rand, np.random.randn, np.random.normal, np.random.uniform,
)
