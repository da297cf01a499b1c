"""Functions that may sit on the differentiated path but carry no gradient: shapes,
sizes, comparisons, index searches, rounding, constructors. Their results are
constants to the derivative; calling them raises no error.

Piecewise-constant functions (sign, floor, round, floor_divide) have a zero derivative
wherever they have one, so they are listed here rather than given zero rules.
`x.astype(int)` is handled by the `astype` rule (see `methods.py`).

Not listed, because their values move with their arguments' values and a zero would be
a wrong gradient: np.bincount and np.heaviside (rules in `elementwise.py`: their
`weights` and their value at 0 are differentiable), np.linspace / logspace / geomspace
(rules in `spacings.py`: differentiable in start and stop), np.arange (float start and
stop), np.unique, np.histogram (its bin edges) and histogram_bin_edges, np.nextafter, and
np.random.choice / permutation. Called on differentiated values they are refused (no
rule); on constants they run as before. np.random.normal, uniform and the other samplers
of a location and a scale have pathwise rules (`sampling.py`).
"""

import builtins
import logging
import math
import operator
import warnings

import numpy as np

from .registry import nondifferentiable

nondifferentiable(
    # shapes, sizes, types
    np.shape, np.ndim, np.size, np.result_type, np.broadcast_shapes, np.isscalar,
    np.iscomplexobj, np.isrealobj,
    builtins.len, builtins.range, builtins.isinstance, builtins.int, builtins.bool,
    builtins.round, builtins.type, builtins.print, dict.keys,
    # comparisons and logic
    operator.lt, operator.le, operator.gt, operator.ge, operator.eq, operator.ne,
    operator.not_, operator.truth, operator.contains, operator.is_, operator.is_not,
    operator.floordiv, operator.and_, operator.xor, operator.invert,
    operator.lshift, operator.rshift,
    np.less, np.less_equal, np.greater, np.greater_equal, np.equal, np.not_equal,
    np.logical_and, np.logical_or, np.logical_not, np.logical_xor,
    np.bitwise_and, np.bitwise_or, np.bitwise_xor, np.invert, np.left_shift, np.right_shift,
    np.isnan, np.isinf, np.isfinite, np.isneginf, np.isposinf, np.signbit, np.isreal,
    np.iscomplex, np.all, np.any, np.allclose, np.isclose, np.array_equal, np.array_equiv,
    np.isin,
    # index searches and integer results
    np.argmax, np.argmin, np.nanargmax, np.nanargmin, np.argsort, np.argpartition,
    np.argwhere, np.nonzero, np.flatnonzero, np.searchsorted, np.digitize, np.count_nonzero,
    np.floor_divide,
    np.ravel_multi_index, np.unravel_index, np.indices, np.tril_indices, np.triu_indices,
    np.diag_indices, np.tril_indices_from, np.triu_indices_from, np.lexsort,
    np.linalg.matrix_rank,
    # piecewise-constant functions: zero gradient
    np.sign, np.floor, np.ceil, np.round, np.around, np.rint, np.trunc,
    np.fix, np.spacing, np.imag,
    math.floor, math.ceil, math.trunc, math.isnan, math.isinf, math.isfinite,
    # constructors whose values do not depend on their arguments' values
    np.zeros_like, np.ones_like, np.empty_like, np.zeros, np.ones, np.empty, np.eye, np.identity,
    np.tri, np.random.rand, np.random.randn, np.random.random, np.random.randint, np.random.default_rng,
    # reporting: they read their arguments and change none (a logger's methods, called on
    # any logger, `logging.info(...)`, `warnings.warn(...)`)
    logging.Logger.debug, logging.Logger.info, logging.Logger.warning, logging.Logger.error,
    logging.Logger.exception, logging.Logger.critical, logging.Logger.log,
    logging.debug, logging.info, logging.warning, logging.error, logging.exception, logging.critical, logging.log,
    warnings.warn,
)
