"""One line per primitive: every derivative rule checked in both modes against central
finite differences, the dot-product test linking them, and float32/0-d preservation.

Rules are called directly through `srcgrad.rules.lookup(fn)`; the compiler is not
involved. Inputs are random (seeded per test) and kept away from kinks and poles.
"""

import builtins
import collections
import dataclasses
import math
import operator
import zlib

import numpy as np
import pytest
from rule_checks import Call, Uniform as U, check_dtypes, check_rule, materialize

import srcgrad.rules as rules
from srcgrad import NotDifferentiableError
from srcgrad.rules import bessel_arrays, einsums, normal_arrays, special_arrays
from srcgrad.rules.gamma import polygamma
from srcgrad.rules.decompositions import symmetric_eigh, symmetric_eigvalsh
from srcgrad.rules.inverses import log_abs_det
from srcgrad.rules.scatter import (
    added_at, diagonal_summed, filled_diagonal, index_put, maximized_at, minimized_at, subtracted_at, written_transposed,
)
from srcgrad.rules.record_replace import replace_fields
from srcgrad.rules.structure import make_record
from srcgrad.runtime import field_values, record_like


def run(fn, *args, rtol=1e-6, atol=1e-7, dtypes=True, **kwargs):
    """Check `fn` at `args`: both modes in float64, then the float32 dtype contract."""
    rng = np.random.default_rng(zlib.crc32(repr((getattr(fn, "__name__", ""), args, kwargs)).encode()))
    args, kwargs = materialize(list(args), rng), materialize(kwargs, rng)
    check_rule(fn, *args, rtol=rtol, atol=atol, **kwargs)
    if dtypes:
        check_dtypes(fn, *args, **kwargs)


def _show(value):
    if isinstance(value, np.ndarray):
        return f"A{value.shape}"
    if isinstance(value, (list, tuple)):
        inner = ", ".join(map(_show, value))
        return f"[{inner}]" if isinstance(value, list) else f"({inner})"
    return getattr(value, "__name__", None) or repr(value)


NUMPY2 = np.lib.NumpyVersion(np.__version__) >= "2.0.0"
TRAPEZOID = getattr(np, "trapezoid", None) or np.trapz  # NumPy 1.26's name for it
# NumPy 2.0 to 2.3 keep np.trapz beside trapezoid, as a deprecated wrapper with rules of its own
OLD_TRAPZ = np.__dict__.get("trapz") if np.__dict__.get("trapz") not in (None, TRAPEZOID) else None


class _Missing:
    """A NumPy 2 function this NumPy (1.26) lacks: its cases are skipped."""

    def __init__(self, name):
        self.__qualname__ = self.__name__ = name.rsplit(".", 1)[-1]


def np2(name):
    """`np.<name>` (dotted: "linalg.vecdot"), a function NumPy 2 added, or a `_Missing`."""
    obj = np
    for part in name.split("."):
        obj = getattr(obj, part, None)
    return _Missing(name) if obj is None else obj


def since(version, param):
    """`param`, skipped before NumPy `version` (a keyword or behaviour it added)."""
    old = np.lib.NumpyVersion(np.__version__) < version
    marks = [*param.marks, *([pytest.mark.skip(reason=f"needs NumPy {version}")] if old else [])]
    return pytest.param(*param.values, id=param.id, marks=marks)


def case(fn, *args, **kwargs):
    """A test-table entry; pytest shows it as `name(args, kwargs)`."""
    name = getattr(fn, "__qualname__", getattr(fn, "__name__", str(fn)))
    shown = ", ".join([*map(_show, args), *(f"{k}={_show(v)}" for k, v in kwargs.items())])
    marks = [pytest.mark.skip(reason="needs NumPy 2")] if isinstance(fn, _Missing) else []
    return pytest.param(fn, args, kwargs, id=f"{name}({shown})", marks=marks)


# --- elementwise: unary ---------------------------------------------------------------

UNARY = [  # (function, low, high): the domain to sample
    (np.sin, -2, 2), (np.cos, -2, 2), (np.tan, -1.2, 1.2), (np.arcsin, -0.9, 0.9),
    (np.arccos, -0.9, 0.9), (np.arctan, -2, 2), (np.sinh, -2, 2), (np.cosh, -2, 2),
    (np.tanh, -2, 2), (np.arcsinh, -2, 2), (np.arccosh, 1.2, 3), (np.arctanh, -0.9, 0.9),
    (np.exp, -2, 2), (np.exp2, -2, 2), (np.expm1, -2, 2), (np.log, 0.2, 3), (np.log2, 0.2, 3),
    (np.log10, 0.2, 3), (np.log1p, -0.5, 3), (np.sqrt, 0.2, 3), (np.cbrt, 0.2, 3),
    (np.square, -2, 2), (np.absolute, -2, 2), (np.fabs, -2, 2), (np.negative, -2, 2),
    (np.positive, -2, 2), (np.reciprocal, 0.3, 3), (np.deg2rad, -90, 90), (np.radians, -90, 90),
    (np.rad2deg, -2, 2), (np.degrees, -2, 2), (np.sinc, -2, 2), (np.conjugate, -2, 2),
    (np.real, -2, 2), (np.real_if_close, -2, 2), (np.nan_to_num, -2, 2), (operator.neg, -2, 2), (operator.pos, -2, 2),
    (np.modf, 0.2, 0.8), (np.frexp, 0.3, 5.0), (np.frexp, -5.0, -0.3),
]
SHAPES = [(), (3,), (2, 3)]


@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("fn,lo,hi", UNARY, ids=[f[0].__name__ for f in UNARY])
def test_unary(fn, lo, hi, shape):
    run(fn, U(shape, lo, hi))


@pytest.mark.parametrize("fn,lo,hi", UNARY, ids=[f[0].__name__ for f in UNARY])
def test_unary_python_float(fn, lo, hi):
    check_rule(fn, float(np.random.default_rng(1).uniform(lo, hi)))


def test_cbrt_negative():
    run(np.cbrt, U((3,), -3, -0.2))


def test_sinc_at_zero():
    check_rule(np.sinc, np.array([0.0, 0.5, -1.5]))


def test_nan_to_num_zero_gradient_at_nonfinite():
    x = np.array([1.0, np.nan, np.inf, -np.inf])
    grad = rules.lookup(np.nan_to_num).vjp("x", np.ones(4), np.nan_to_num(x), x)
    assert grad.tolist() == [1.0, 0.0, 0.0, 0.0]


def test_abs_has_zero_subgradient_at_zero():
    x = np.array([-1.0, 0.0, 2.0])
    assert rules.lookup(np.absolute).vjp("x", np.ones(3), np.abs(x), x).tolist() == [-1, 0, 1]


# --- elementwise: binary --------------------------------------------------------------

BINARY = [  # (function, x domain, y domain)
    (np.add, (-2, 2), (-2, 2)), (np.subtract, (-2, 2), (-2, 2)), (np.multiply, (-2, 2), (-2, 2)),
    (np.divide, (-2, 2), (0.5, 2)), (np.power, (0.5, 2), (-2, 2)), (np.float_power, (0.5, 2), (-2, 2)),
    (np.maximum, (-2, 2), (-2, 2)), (np.minimum, (-2, 2), (-2, 2)), (np.fmax, (-2, 2), (-2, 2)),
    (np.fmin, (-2, 2), (-2, 2)), (np.arctan2, (-2, 2), (0.5, 2)), (np.hypot, (-2, 2), (-2, 2)),
    (np.logaddexp, (-2, 2), (-2, 2)), (np.logaddexp2, (-2, 2), (-2, 2)),
    (np.remainder, (0.2, 3), (1.3, 1.7)), (np.fmod, (-3, 3), (1.3, 1.7)), (np.copysign, (-2, 2), (-2, 2)),
    (operator.add, (-2, 2), (-2, 2)), (operator.sub, (-2, 2), (-2, 2)), (operator.mul, (-2, 2), (-2, 2)),
    (operator.truediv, (-2, 2), (0.5, 2)), (operator.pow, (0.5, 2), (-2, 2)),
    (operator.mod, (0.2, 3), (1.3, 1.7)), (np.divmod, (0.2, 3), (1.3, 1.7)),
    (rules.activations.atan2, (-2, 2), (0.5, 2)),
]
PAIRS = [((), ()), ((3,), ()), ((), (3,)), ((2, 3), (3,)), ((3,), (2, 3)), ((2, 1), (3,))]


@pytest.mark.parametrize("xs,ys", PAIRS, ids=[f"{a}-{b}" for a, b in PAIRS])
@pytest.mark.parametrize("fn,xd,yd", BINARY, ids=[f[0].__name__ for f in BINARY])
def test_binary(fn, xd, yd, xs, ys):
    run(fn, U(xs, *xd), U(ys, *yd))


@pytest.mark.parametrize("fn,xd,yd", BINARY, ids=[f[0].__name__ for f in BINARY])
def test_binary_python_floats(fn, xd, yd):
    rng = np.random.default_rng(2)
    check_rule(fn, float(rng.uniform(*xd)), float(rng.uniform(*yd)))


def test_negative_base_integer_power():
    run(np.power, U((2, 3), -2, -0.5), 3, rtol=1e-5)
    run(operator.pow, U((3,), -2, 2), 2)


def test_ldexp():
    run(np.ldexp, U((2, 3)), np.array([1, -2, 3]))


@pytest.mark.parametrize("fn", [np.maximum, np.minimum, np.fmax, np.fmin])
def test_extremum_ties_split_evenly(fn):
    rule = rules.lookup(fn)
    x, y = np.array([1.0, 2.0, 3.0]), np.array([1.0, 1.0, 4.0])
    gx = rule.vjp("x", np.ones(3), fn(x, y), x, y)
    gy = rule.vjp("y", np.ones(3), fn(x, y), x, y)
    assert gx[0] == gy[0] == 0.5
    assert (gx + gy).tolist() == [1.0, 1.0, 1.0]


@pytest.mark.parametrize("fn", [np.fmax, np.fmin])
def test_fmax_fmin_ignore_nan(fn):
    rule = rules.lookup(fn)
    x, y = np.array([np.nan, 2.0]), np.array([1.0, np.nan])
    assert rule.vjp("x", np.ones(2), fn(x, y), x, y).tolist() == [0.0, 1.0]
    assert rule.vjp("y", np.ones(2), fn(x, y), x, y).tolist() == [1.0, 0.0]


WHERE_SHAPES = [((), (), ()), ((3,), (3,), ()), ((2, 3), (3,), (2, 1)), ((3,), (2, 3), (3,))]


@pytest.mark.parametrize("cs,xs,ys", WHERE_SHAPES, ids=str)
def test_where(cs, xs, ys):
    condition = np.random.default_rng(3).uniform(size=cs) > 0.5
    run(np.where, condition, U(xs), U(ys))


C34 = np.array([[True, False, True, False], [False, False, True, True], [True, False, False, False]])
SELECT = [
    case(np.select, [C34, ~C34], [U((3, 4)), U((3, 4))]),
    case(np.select, [C34, C34[0]], (U((4,)), U((3, 1))), U(())),
    case(np.select, [C34[:, :1], C34], [U((3, 4)), 2.5], U((4,))),
    case(np.select, [C34], [U(())], 0.5),
]


@pytest.mark.parametrize("fn,args,kwargs", SELECT)
def test_select(fn, args, kwargs):
    run(fn, *args, **kwargs)


def test_select_takes_the_first_true_condition():
    a, b, d = np.full(3, 1.0), np.full(3, 2.0), np.full(3, 3.0)
    first, second = np.array([True, False, False]), np.array([True, True, False])
    ans = np.select([first, second], [a, b], d)
    rule = rules.lookup(np.select)
    grads = rule.vjp("choicelist", np.array([10.0, 20.0, 30.0]), ans, [first, second], [a, b], d)
    assert isinstance(grads, list) and [g.tolist() for g in grads] == [[10, 0, 0], [0, 20, 0]]
    assert rule.vjp("default", np.array([10.0, 20.0, 30.0]), ans, [first, second], [a, b], d).tolist() == [0, 0, 30]
    assert rule.jvp("choicelist", [None, np.ones(3)], ans, [first, second], [a, b], d).tolist() == [0, 1, 0]


CLIP = [
    case(np.clip, U((2, 3), -2, 2), -1.0, 1.0),
    case(np.clip, U((2, 3), -2, 2), U((3,), -1.5, -0.5), U((2, 1), 0.5, 1.5)),
    case(np.clip, U((4,), -2, 2), None, U((), -0.5, 0.5)),
    case(np.clip, U((4,), -2, 2), U((), -0.5, 0.5), None),
    since("2.1.0", case(np.clip, U((2, 3), -2, 2), min=U((3,), -1, 0), max=U((), 0.2, 1))),
    case(np.clip, U((), -2, 2), U((), -1, -0.5), U((), 0.5, 1)),
]


@pytest.mark.parametrize("fn,args,kwargs", CLIP)
def test_clip(fn, args, kwargs):
    run(fn, *args, **kwargs)


def test_clip_passes_gradient_on_the_bound_to_x():
    x = np.array([-1.0, 0.0, 1.0, 2.0])
    grad = rules.lookup(np.clip).vjp("x", np.ones(4), np.clip(x, -1.0, 1.0), x, -1.0, 1.0)
    assert grad.tolist() == [1.0, 1.0, 1.0, 0.0]


# --- the math module and builtins -----------------------------------------------------

SCALARS = [  # (function, *arguments)
    (math.sin, 0.7), (math.cos, 0.7), (math.tan, 0.7), (math.asin, 0.4), (math.acos, 0.4),
    (math.atan, 0.7), (math.sinh, 0.7), (math.cosh, 0.7), (math.tanh, 0.7), (math.asinh, 0.7),
    (math.acosh, 1.7), (math.atanh, 0.4), (math.exp, 0.7), (math.expm1, 0.7), (math.log, 1.7),
    (math.log, 1.7, 3.0), (math.log1p, 0.7), (math.log2, 1.7), (math.log10, 1.7), (math.sqrt, 1.7),
    (math.pow, 1.7, 0.6), (math.atan2, 0.7, -1.3), (math.hypot, 0.7, -1.3), (math.fabs, -0.7),
    (math.copysign, 0.7, -2.0), (math.fmod, -3.7, 1.5), (math.remainder, 3.7, 1.5), (math.erf, 0.7),
    (math.erfc, 0.7), (math.degrees, 0.7), (math.radians, 70.0), (builtins.abs, -0.7), (builtins.float, 0.7),
    (builtins.abs, np.array([-0.7, 0.5])), (builtins.pow, 1.7, 0.6), (builtins.pow, np.array([0.7, 1.5]), 3),
    (builtins.divmod, 3.7, 1.5), (builtins.divmod, -3.7, 1.3), (math.modf, 3.7), (math.modf, -2.3), (math.frexp, 3.7), (math.frexp, -0.3), (math.lgamma, 1.7), (math.lgamma, 0.3), (math.lgamma, -2.3), (math.gamma, 4.5), (math.gamma, -2.3),
    (polygamma, 0, 1.3), (polygamma, 1, -1.3), (polygamma, 3, 0.4), (math.ldexp, 0.7, 3), (math.ldexp, -1.3, -2),
    *([(math.cbrt, 1.7), (math.cbrt, -0.6), (math.exp2, 0.7)] if hasattr(math, "cbrt") else []),  # Python 3.11
]
SEQUENCE_SCALARS = [
    case(math.dist, (0.5, 1.5), (-1.0, 2.0)),
    case(math.dist, [0.5, 1.5, 2.0], [0.1, -1.0, 2.0]),
    case(math.dist, U((3,)), U((3,))),
    case(math.prod, [0.5, 1.5, -2.0]),
    case(math.prod, (0.5, 0.0, 3.0)),
    case(math.prod, U((3,))),
    case(math.prod, [0.5, 1.5], start=2.5),
]


@pytest.mark.parametrize("args", SCALARS, ids=[f"{a[0].__name__}{a[1:]}" for a in SCALARS])
def test_scalar(args):
    check_rule(*args)


@pytest.mark.parametrize("fn,args,kwargs", SEQUENCE_SCALARS)
def test_sequence_scalar(fn, args, kwargs):
    run(fn, *args, dtypes=False, **kwargs)  # Python floats out


def test_polygamma_matches_known_values():
    """digamma(1) = -Euler's gamma, trigamma(1) = pi**2 / 6, digamma(1/2) = -gamma - 2 ln 2,
    polygamma(2, 1) = -2 zeta(3); the reflection formula for negative x; nan at the poles."""
    euler, zeta3 = 0.5772156649015329, 1.2020569031595942
    assert polygamma(0, 1.0) == pytest.approx(-euler, rel=1e-15)
    assert polygamma(1, 1.0) == pytest.approx(math.pi**2 / 6, rel=1e-15)
    assert polygamma(0, 0.5) == pytest.approx(-euler - 2 * math.log(2.0), rel=1e-15)
    assert polygamma(2, 1.0) == pytest.approx(-2 * zeta3, rel=1e-14)
    assert polygamma(0, -0.5) == pytest.approx(polygamma(0, 1.5), rel=1e-15)  # pi cot(-pi/2) = 0
    assert polygamma(0, 1e-300) < -1e299 and polygamma(1, 5e-324) == math.inf  # near the pole at 0
    assert math.isnan(polygamma(0, 0.0)) and math.isnan(polygamma(1, -3.0))
    for x in (0.3, 2.5, 7.0, 40.0, -1.7):  # the recurrence and the reflection agree with the rule's own derivative
        assert polygamma(0, x + 1.0) - polygamma(0, x) == pytest.approx(1.0 / x, rel=1e-13)


def test_builtin_sum_and_fsum():
    check_rule(builtins.sum, [0.5, np.array([1.0, 2.0]), -1.5])
    check_rule(builtins.sum, [0.5, 1.5], 2.0)
    check_rule(builtins.sum, np.array([[1.0, 2.0], [3.0, 4.0]]))
    check_rule(math.fsum, [0.5, 1.5, -0.25])


def test_full_like_reads_only_the_shape_of_its_array():
    check_rule(np.full_like, np.array([1.0, 2.0]), 0.5)


def test_sequence_conversions_and_numpy_scalars():
    check_rule(list, [0.5, np.array([1.0, 2.0])])
    check_rule(list, np.array([[1.0, 2.0], [3.0, 4.0]]))
    check_rule(tuple, [0.5, 1.5])
    check_rule(np.float64, 0.7)


@pytest.mark.parametrize("extreme", [builtins.max, builtins.min])
def test_builtin_max_and_min(extreme):
    check_rule(extreme, 0.5, -1.5)
    check_rule(extreme, -1.5, 0.5)
    check_rule(extreme, [0.5, 2.5, -1.5])
    check_rule(extreme, np.array([0.5, 2.5, -1.5]))
    check_rule(extreme, 0.5, -1.5, key=abs)
    check_rule(extreme, [0.5, 2.5, -2.7], key=abs)


def test_builtin_sorted():
    check_rule(builtins.sorted, [0.5, 2.5, -1.5])
    check_rule(builtins.sorted, (0.5, 2.5, -1.5), reverse=True)
    check_rule(builtins.sorted, np.array([0.5, 2.5, -1.5, 0.1]), key=abs)
    check_rule(builtins.sorted, np.array([0.5, 2.5, -1.5, 0.1]), reverse=True)


# --- reductions -----------------------------------------------------------------------

REDUCTIONS = [
    np.sum, np.mean, np.prod, np.max, np.min, np.amax, np.amin, np.ptp, np.std, np.var, np.median,
    np.nansum, np.nanmean, np.nanprod, np.nanmax, np.nanmin, np.nanstd, np.nanvar,
]
AXES = [  # (shape, axis, keepdims)
    ((), None, False), ((4,), None, False), ((4,), 0, True), ((3, 4), None, False), ((3, 4), None, True),
    ((3, 4), 0, False), ((3, 4), -1, True), ((2, 3, 4), (0, 2), False), ((2, 3, 4), (-1, 0), True),
]


@pytest.mark.parametrize("shape,axis,keepdims", AXES, ids=str)
@pytest.mark.parametrize("fn", REDUCTIONS, ids=lambda f: f.__name__)
def test_reduction(fn, shape, axis, keepdims):
    run(fn, U(shape, 0.5, 2.0), axis=axis, keepdims=keepdims)


NAN_REDUCTIONS = [np.nansum, np.nanmean, np.nanprod, np.nanmax, np.nanmin, np.nanstd, np.nanvar]


@pytest.mark.parametrize("axis", [None, 0, -1], ids=str)
@pytest.mark.parametrize("fn", NAN_REDUCTIONS, ids=lambda f: f.__name__)
def test_nan_reduction_ignores_nan(fn, axis):
    x = np.random.default_rng(4).uniform(0.5, 2.0, size=(3, 4))
    x[0, 1] = x[2, 3] = np.nan
    check_rule(fn, x, axis=axis)
    check_dtypes(fn, x, axis=axis)
    grad = rules.lookup(fn).vjp("x", np.ones_like(fn(x, axis=axis)), fn(x, axis=axis), x, axis=axis)
    assert grad[0, 1] == grad[2, 3] == 0.0


@pytest.mark.parametrize("fn", [np.std, np.var, np.nanstd, np.nanvar])
@pytest.mark.parametrize("axis", [None, 1], ids=str)
def test_ddof(fn, axis):
    run(fn, U((3, 4)), axis=axis, ddof=1)


def test_add_reduce():
    run(np.add.reduce, U((3, 4)))
    run(np.add.reduce, U((2, 3, 4)), axis=(0, 2), keepdims=True)


@pytest.mark.parametrize("fn", [np.logaddexp.reduce, np.logaddexp2.reduce], ids=["logaddexp", "logaddexp2"])
def test_logaddexp_reduce(fn):
    """A soft minimum written `-g * np.logaddexp.reduce(v / -g)` had no rule."""
    run(fn, U((3, 4)))
    run(fn, U((3, 4)), axis=1)
    run(fn, U((2, 3, 4)), axis=(0, 2), keepdims=True)
    run(fn, U((3, 4)), axis=None)


@pytest.mark.parametrize("fn", [np.prod, np.nanprod])
def test_prod_exact_with_zeros(fn):
    x = np.array([[2.0, 0.0, 3.0], [0.0, 0.0, 5.0], [1.5, -2.0, 0.5]])
    for axis in (None, 0, 1):
        check_rule(fn, x, axis=axis)
    assert rules.lookup(fn).vjp("x", 1.0, fn(x), x)[0, 1] == 0.0
    assert rules.lookup(fn).vjp("x", np.ones(3), fn(x, 1), x, 1)[0].tolist() == [0, 6, 0]


def test_max_ties_share_gradient():
    x = np.array([[1.0, 3.0, 3.0], [2.0, 2.0, 2.0]])
    grad = rules.lookup(np.max).vjp("x", np.ones(2), np.max(x, axis=1), x, axis=1)
    assert grad.tolist() == [[0, 0.5, 0.5], [1 / 3, 1 / 3, 1 / 3]]


def test_median_even_count_splits_gradient():
    x = np.array([4.0, 1.0, 3.0, 2.0])
    assert rules.lookup(np.median).vjp("x", 1.0, np.median(x), x).tolist() == [0, 0, 0.5, 0.5]


QUANTILES = [
    case(np.quantile, U((5,)), 0.3),
    case(np.quantile, U((3, 4)), U((2,), 0.05, 0.95), axis=1),
    case(np.quantile, U((2, 3, 4)), U((), 0.05, 0.95), axis=(0, 2), keepdims=True),
    case(np.quantile, U((3, 4)), U((2, 2), 0.05, 0.95), axis=0, keepdims=True),
    case(np.percentile, U((3, 4)), U((2,), 5, 95)),
    case(np.percentile, U((3, 4)), 40.0, axis=-1),
]


_NAN34 = np.random.default_rng(5).uniform(0.5, 2.0, size=(3, 4))
_NAN34[0, 1] = _NAN34[2, 3] = _NAN34[2, 0] = np.nan
NAN_QUANTILES = [
    case(np.nanmedian, _NAN34),
    case(np.nanmedian, _NAN34, axis=1),
    case(np.nanmedian, _NAN34, axis=0, keepdims=True),
    case(np.nanmedian, U((2, 3, 4)), axis=(0, 2)),
    case(np.nanquantile, _NAN34, 0.3),
    case(np.nanquantile, _NAN34, U((2,), 0.05, 0.95), axis=1),
    case(np.nanquantile, _NAN34, 0.45, axis=0, keepdims=True),
    case(np.nanquantile, U((2, 3, 4)), U((2,), 0.05, 0.95), axis=(0, 2)),
    case(np.nanpercentile, _NAN34, U((2,), 5, 95), axis=1),
]


@pytest.mark.parametrize("fn,args,kwargs", NAN_QUANTILES)
def test_nan_quantile(fn, args, kwargs):
    run(fn, *args, dtypes=NUMPY2, **kwargs)


@pytest.mark.filterwarnings("ignore:All-NaN slice encountered")
def test_nan_quantiles_skip_nan_entries():
    x = _NAN34.copy()
    x[1] = np.nan  # a slice of NaN only: no gradient
    ans = np.nanmedian(x, axis=1)
    assert rules.lookup(np.nanmedian).vjp("x", np.ones(3), ans, x, axis=1)[[0, 1, 2]].sum(axis=1).tolist() == [1, 0, 1]
    ans = np.nanquantile(x, 0.3, axis=1)
    grad = rules.lookup(np.nanquantile).vjp("x", np.ones(3), ans, x, 0.3, axis=1)
    assert np.all(grad[np.isnan(x)] == 0.0) and grad.sum(axis=1).tolist() == pytest.approx([1, 0, 1])


@pytest.mark.parametrize("fn,args,kwargs", QUANTILES)
def test_quantile(fn, args, kwargs):
    run(fn, *args, dtypes=NUMPY2, **kwargs)  # NumPy 1.26's quantile of float32 by a float64 q is float64


SCANS = [np.cumsum, np.cumprod, np.nancumsum, np.nancumprod]
SCAN_AXES = [((), None), ((4,), None), ((4,), 0), ((3, 4), None), ((3, 4), 0), ((3, 4), -1), ((2, 3, 4), 1)]


@pytest.mark.parametrize("shape,axis", SCAN_AXES, ids=str)
@pytest.mark.parametrize("fn", SCANS, ids=lambda f: f.__name__)
def test_scan(fn, shape, axis):
    run(fn, U(shape, 0.5, 1.5), axis=axis)


@pytest.mark.parametrize("axis", [None, 0, 1], ids=str)
def test_cumprod_exact_with_zeros(axis):
    x = np.array([[2.0, 0.0, 3.0, 0.0], [0.0, 1.5, 0.5, 2.0], [1.5, -2.0, 0.5, 0.0]])
    check_rule(np.cumprod, x, axis=axis)
    check_rule(np.nancumprod, np.where(x == 3.0, np.nan, x), axis=axis)


CUMULATIVE = [
    case(np2(name), *args, **kwargs)
    for name in ("cumulative_sum", "cumulative_prod")
    for args, kwargs in [((U((5,), 0.5, 1.5),), {}), ((U((5,), 0.5, 1.5),), {"include_initial": True}),
                         ((U((3, 4), 0.5, 1.5),), {"axis": 1, "include_initial": True}), ((U((3, 4), 0.5, 1.5),), {"axis": 0}),
                         ((U((2, 3, 4), 0.5, 1.5),), {"axis": -2, "include_initial": True})]
]


@pytest.mark.parametrize("fn,args,kwargs", CUMULATIVE)
def test_cumulative(fn, args, kwargs):
    run(fn, *args, **kwargs)


def test_cumulative_prod_exact_with_zeros():
    if NUMPY2 and hasattr(np, "cumulative_prod"):
        check_rule(np.cumulative_prod, np.array([2.0, 0.0, 3.0, 0.0, 1.5]), include_initial=True)
        check_rule(np.cumulative_prod, np.array([[2.0, 0.0, 3.0], [0.5, -1.0, 0.0]]), axis=1)


SPACINGS = [
    case(np.linspace, 0.3, 1.7, 5),
    case(np.linspace, U((3,)), 1.7, 4, endpoint=False),
    case(np.linspace, U((2, 1)), U((3,)), 4, axis=-1),
    case(np.linspace, 0.3, 1.7, 5, retstep=True),
    case(np.linspace, U((2,)), U((2,)), 3, False, True, axis=1),
    case(np.linspace, 0.3, 1.7, 1),
    case(np.logspace, 0.3, 1.7, 5),
    case(np.logspace, U((3,)), 0.5, 4, base=2.0, axis=1),
    case(np.logspace, 0.3, U((2,)), 3, endpoint=False),
    case(np.geomspace, 0.3, 1.7, 5),
    case(np.geomspace, U((3,), 0.5, 2), 4.0, 4, endpoint=False, axis=-1),
    case(np.geomspace, -0.3, -1.7, 4),
]


@pytest.mark.parametrize("fn,args,kwargs", SPACINGS)
def test_spacings(fn, args, kwargs):
    run(fn, *args, **kwargs)


def test_spacings_of_an_integer_dtype_have_zero_derivative():
    ans = np.linspace(0.3, 7.7, 4, dtype=int)
    assert rules.lookup(np.linspace).vjp("stop", np.ones(4), ans, 0.3, 7.7, 4, dtype=int) == 0.0


def test_add_accumulate():
    run(np.add.accumulate, U((3, 4)))
    run(np.add.accumulate, U((3, 4)), axis=1)


W34 = np.array([[True, False, True, True], [False, True, True, False], [True, True, False, True]])
EXTREMA = [np.max, np.amax, np.nanmax, np.min, np.amin, np.nanmin]
KEYWORD_REDUCTIONS = [  # where= and initial= (max and min take where= only with initial=)
    case(np.sum, U((3, 4)), where=W34),
    case(np.sum, U((3, 4)), axis=1, keepdims=True, where=W34[0]),
    case(np.sum, U((3, 4)), 0, None, None, False, 0.5),
    case(np.sum, U((2, 3, 4)), axis=(0, 2), initial=0.5, where=W34[:, :1]),
    case(np.mean, U((3, 4)), where=W34),
    case(np.mean, U((3, 4)), axis=0, where=W34),
    case(np.mean, U((2, 3, 4)), axis=(-1, 0), keepdims=True, where=W34),
    case(np.prod, U((3, 4), 0.5, 2), initial=1.5),
    case(np.prod, U((3, 4), 0.5, 2), axis=1, initial=-0.5, where=W34),
    case(np.prod, U((2, 3, 4), 0.5, 2), axis=(0, 1), keepdims=True, where=W34[:, :1]),
    *[case(f, U((3, 4), 0.5, 2), axis=1, initial=1.6) for f in EXTREMA],
    *[case(f, U((2, 3, 4)), axis=(0, 2), initial=0.2, where=W34[:, :1], keepdims=True) for f in EXTREMA],
    case(np.max, U((3, 4)), initial=0.5, where=W34),
    case(np.min, U((3, 4)), axis=0, initial=U(()), where=W34),
]


@pytest.mark.parametrize("fn,args,kwargs", KEYWORD_REDUCTIONS)
def test_reduction_keywords(fn, args, kwargs):
    run(fn, *args, **kwargs)


@pytest.mark.parametrize("fn", EXTREMA, ids=lambda f: f.__name__)
def test_extremum_tie_with_initial_shares_gradient(fn):
    x = np.array([[1.0, 2.0, 2.0], [0.5, 0.0, 0.5], [3.0, -1.0, 9.0]])
    initial, where = 2.0 if fn in EXTREMA[:3] else 0.0, np.array([True, True, False])
    ans = fn(x, axis=1, initial=initial, where=where)
    rule = rules.lookup(fn)
    grad = rule.vjp("x", np.ones(3), ans, x, axis=1, initial=initial, where=where)
    share = rule.vjp("initial", np.ones(3), ans, x, axis=1, initial=initial, where=where)
    if fn in EXTREMA[:3]:  # max: row 0 ties 2.0 with initial, row 1 is initial's, row 2 is 3.0's
        assert grad.tolist() == [[0, 0.5, 0], [0, 0, 0], [1, 0, 0]] and share == 1.5
    else:  # min: row 0 is initial's, row 1 ties 0.0 with initial, row 2 is -1.0's
        assert grad.tolist() == [[0, 0, 0], [0, 0.5, 0], [0, 1, 0]] and share == 1.5


VARIANCES = [np.var, np.std, np.nanvar, np.nanstd]
NAN_WHERE = [np.nansum, np.nanmean, np.nanprod]
STATISTIC_KEYWORDS = [  # where=, NumPy 2's mean= and correction=, initial= of nansum and nanprod
    *[case(f, U((3, 4), 0.5, 2), where=W34) for f in VARIANCES + NAN_WHERE],
    *[case(f, U((3, 4), 0.5, 2), axis=1, keepdims=True, where=W34[0]) for f in VARIANCES + NAN_WHERE],
    *[since("2.0.0", case(f, U((2, 3, 4), 0.5, 2), axis=(0, 2), where=W34, correction=1)) for f in VARIANCES],
    *[since("2.0.0", case(f, U((3, 4)), axis=1, mean=U((3, 1)))) for f in VARIANCES],
    *[since("2.0.0", case(f, U((3, 4)), mean=U((1, 1)), ddof=1, where=W34)) for f in VARIANCES],
    *[since("2.0.0", case(f, U((2, 3)), axis=0, keepdims=True, mean=U((1, 3)), correction=0.5)) for f in VARIANCES],
    case(np.nansum, U((3, 4)), axis=0, initial=U(())), case(np.nansum, U((3, 4)), initial=0.5, where=W34),
    case(np.nanprod, U((3, 4), 0.5, 2), axis=1, initial=U((), 0.5, 2)),
    case(np.nanprod, U((3, 4), 0.5, 2), initial=1.5, where=W34),
]


@pytest.mark.parametrize("fn,args,kwargs", STATISTIC_KEYWORDS)
def test_statistic_keywords(fn, args, kwargs):
    run(fn, *args, **kwargs)


@pytest.mark.parametrize("fn", VARIANCES + NAN_WHERE, ids=lambda f: f.__name__)
def test_nan_and_left_out_entries_get_no_gradient(fn):
    x = np.array([[1.0, np.nan, 2.0, 4.0], [0.5, 3.0, 1.0, 2.5]])
    where = np.array([True, True, True, False])
    ans = fn(x, axis=1, where=where)
    grad = rules.lookup(fn).vjp("x", np.ones(2), ans, x, axis=1, where=where)
    assert grad[1, 3] == 0 and np.all(np.isfinite(grad[1])) and np.all(grad[1, :3] != 0)
    if fn not in (np.var, np.std):  # NaN makes var's row 0 NaN; the nan* reductions skip it
        assert grad[0, 1] == grad[0, 3] == 0 and np.all(np.isfinite(grad[0]))


RUNNING_EXTREMA = [
    case(f, U(shape), axis=axis)
    for f in (np.maximum.accumulate, np.minimum.accumulate)
    for shape, axis in [((5,), 0), ((3, 4), 0), ((3, 4), 1), ((2, 3, 4), -1), ((2, 3, 4), 1)]
]


@pytest.mark.parametrize("fn,args,kwargs", RUNNING_EXTREMA)
def test_running_extremum(fn, args, kwargs):
    run(fn, *args, **kwargs)


def test_running_extremum_ties_go_to_the_earliest_entry():
    x = np.array([1.0, 3.0, 3.0, 2.0, 5.0, 5.0, 0.0])
    ans = np.maximum.accumulate(x)
    rule = rules.lookup(np.maximum.accumulate)
    assert rule.vjp("x", np.ones(7), ans, x).tolist() == [1, 3, 0, 0, 3, 0, 0]
    assert rule.jvp("x", np.arange(7.0), ans, x).tolist() == [0, 1, 1, 1, 4, 4, 4]
    ans = np.minimum.accumulate(-x)
    assert rules.lookup(np.minimum.accumulate).vjp("x", np.ones(7), ans, -x).tolist() == [1, 3, 0, 0, 3, 0, 0]


UFUNC_METHODS = [  # ufunc methods default to axis=0; max/min take where= only with initial=
    case(np.add.reduce, U((3, 4)), initial=0.5),
    case(np.add.reduce, U((3, 4)), axis=1, keepdims=True, initial=U(()), where=W34),
    case(np.add.reduce, U((2, 3, 4)), axis=None, where=W34),
    *[case(f, U((3, 4))) for f in (np.maximum.reduce, np.minimum.reduce)],
    *[case(f, U((2, 3, 4)), axis=(0, 2), keepdims=True) for f in (np.maximum.reduce, np.minimum.reduce)],
    *[case(f, U((3, 4)), axis=1, initial=U(()), where=W34) for f in (np.maximum.reduce, np.minimum.reduce)],
    case(np.multiply.reduce, U((3, 4), 0.5, 2)),
    case(np.multiply.reduce, U((3, 4), 0.5, 2), axis=None, initial=U((), 0.5, 2)),
    case(np.multiply.reduce, U((3, 4), 0.5, 2), axis=1, initial=1.5, where=W34),
    case(np.multiply.accumulate, U((3, 4), 0.5, 2)),
    case(np.multiply.accumulate, U((2, 3, 4), 0.5, 2), axis=-1),
    case(np.add.outer, U((3,)), U((2, 2))), case(np.add.outer, U(()), U((3,))),
    case(np.subtract.outer, U((2, 3)), U((2,))),
    case(np.add.reduceat, U((6,)), [0, 4, 1, 5]),
    case(np.add.reduceat, U((3, 5)), np.array([0, 2]), axis=1),
]


@pytest.mark.parametrize("fn,args,kwargs", UFUNC_METHODS)
def test_ufunc_methods(fn, args, kwargs):
    run(fn, *args, **kwargs)


def test_reduceat_segments():
    # [0, 4, 1, 5] over 6 entries: x[0:4], x[4] (4 >= 1), x[1:5], x[5:]
    rule = rules.lookup(np.add.reduceat)
    x = np.arange(6.0)
    grad = rule.vjp("x", np.array([1.0, 10.0, 100.0, 1000.0]), np.add.reduceat(x, [0, 4, 1, 5]), x, [0, 4, 1, 5])
    assert grad.tolist() == [1, 101, 101, 101, 110, 1000]


COVARIANCES = [
    case(np.cov, U((3, 5))),
    case(np.cov, U((5,))),
    case(np.cov, U((5, 2)), rowvar=False, bias=True),
    case(np.cov, U((2, 5)), U((5,)), ddof=2),
    case(np.corrcoef, U((3, 5))),
    case(np.corrcoef, U((5, 2)), U((5,)), rowvar=False),
]


@pytest.mark.parametrize("fn,args,kwargs", COVARIANCES)
def test_covariance(fn, args, kwargs):
    run(fn, *args, **kwargs)

AVERAGE = [
    case(np.average, U((3, 4))),
    case(np.average, U((3, 4)), axis=1, keepdims=True),
    case(np.average, U((3, 4)), axis=None, weights=U((3, 4), 0.5, 2)),
    case(np.average, U((3, 4)), axis=0, weights=U((3,), 0.5, 2)),
    case(np.average, U((3, 4)), axis=-1, weights=U((4,), 0.5, 2), keepdims=True),
    since("2.0.0", case(np.average, U((2, 3, 4)), axis=(2, 0), weights=U((4, 2), 0.5, 2))),
    case(np.average, U((3, 4)), axis=1, weights=U((3, 4), 0.5, 2), returned=True),
    case(np.average, U((3, 4)), axis=0, returned=True),
]


@pytest.mark.parametrize("fn,args,kwargs", AVERAGE)
def test_average(fn, args, kwargs):
    run(fn, *args, **kwargs)


DIFFERENCES = [
    case(np.diff, U((5,))),
    case(np.diff, U((3, 5)), n=2),
    case(np.diff, U((3, 5)), axis=0),
    case(np.diff, U((3, 5)), prepend=1.0, append=U((3, 2))),
    case(np.diff, U((4, 3)), n=2, axis=0, prepend=U((1, 3))),
    case(np.ediff1d, U((2, 3))),
    case(np.ediff1d, U((4,)), to_begin=np.array([1.0, 2.0]), to_end=3.0),
    case(TRAPEZOID, U((5,))),
    case(TRAPEZOID, U((3, 5)), dx=U((), 0.5, 1.5)),
    case(TRAPEZOID, U((3, 5)), axis=0, dx=0.3),
    case(TRAPEZOID, U((3, 5)), np.array([0.0, 0.5, 1.5, 2.0, 3.5])),
    case(TRAPEZOID, U((3, 5)), U((5,))),
    case(TRAPEZOID, U((4, 3)), U((4, 3)), axis=0),
    case(TRAPEZOID, U((4, 3)), U((4, 1)), axis=0),
    *([case(OLD_TRAPZ, U((3, 5)), U((5,))), case(OLD_TRAPZ, U((3, 5)), dx=U((), 0.5, 1.5))] if OLD_TRAPZ else []),
    case(np.gradient, U((5,))),
    case(np.gradient, U((2,)), 0.5),
    case(np.gradient, U((3,)), 0.3, edge_order=2),
    case(np.gradient, U((6,)), np.array([0.0, 0.2, 0.5, 1.1, 1.3, 2.0]), edge_order=2),
    case(np.gradient, U((3, 4))),
    case(np.gradient, U((3, 4)), 0.5, np.array([0.0, 0.3, 1.0, 1.6])),
    case(np.gradient, U((3, 4)), axis=-1, edge_order=2),
    case(np.gradient, U((3, 4, 5)), np.array([0.0, 1.0, 3.0]), axis=0, edge_order=2),
    case(np.gradient, U((3, 4)), 2.0, axis=(1, 0)),
    case(np.unwrap, U((6,), -6, 6)),
    case(np.unwrap, U((2, 5), -6, 6), axis=0, period=3.0),
]


@pytest.mark.parametrize("fn,args,kwargs", DIFFERENCES)
def test_differences(fn, args, kwargs):
    run(fn, *args, **kwargs)


# --- products and linear algebra ------------------------------------------------------


def spd(n, batch=()):
    """A symmetric positive definite matrix (stack), well conditioned."""
    a = np.random.default_rng(n).normal(size=batch + (n, n))
    return a @ np.swapaxes(a, -1, -2) + n * np.eye(n)


def well_conditioned(*shape):
    a = np.random.default_rng(sum(shape)).normal(size=shape)
    return a + 3.0 * np.eye(shape[-2], shape[-1])


PRODUCTS = [
    case(np.matmul, U((3,)), U((3,))),
    case(np.matmul, U((2, 3)), U((3,))),
    case(np.matmul, U((3,)), U((3, 2))),
    case(np.matmul, U((2, 3)), U((3, 4))),
    case(np.matmul, U((5, 2, 3)), U((3, 4))),
    case(np.matmul, U((2, 3)), U((5, 3, 4))),
    case(np.matmul, U((1, 2, 3)), U((5, 3, 4))),
    case(np.matmul, U((3,)), U((5, 3, 4))),
    case(np.matmul, U((5, 2, 3)), U((3,))),
    case(operator.matmul, U((2, 3)), U((3, 4))),
    case(np2("linalg.matmul"), U((2, 2, 3)), U((3, 4))),
    case(np.dot, U(()), U((3,))),
    case(np.dot, U((2, 3)), U(())),
    case(np.dot, U((3,)), U((3,))),
    case(np.dot, U((2, 3)), U((3,))),
    case(np.dot, U((3,)), U((3, 2))),
    case(np.dot, U((2, 3)), U((3, 4))),
    case(np.dot, U((3,)), U((2, 3, 4))),
    case(np.dot, U((2, 2, 3)), U((4, 3, 2))),
    case(np.vdot, U((2, 3)), U((6,))),
    case(np.inner, U((3,)), U((3,))),
    case(np.inner, U(()), U((2, 3))),
    case(np.inner, U((2, 3)), U((4, 3))),
    case(np.inner, U((2, 2, 3)), U((3,))),
    case(np.outer, U((3,)), U((2, 2))),
    case(np2("linalg.outer"), U((3,)), U((4,))),
    case(np.multiply.outer, U((2, 3)), U((4,))),
    case(np2("vecdot"), U((2, 3)), U((3,))),
    case(np2("vecdot"), U((3, 2)), U((3, 2)), axis=0),
    case(np2("linalg.vecdot"), U((4, 3)), U((2, 1, 3))),
    case(np.tensordot, U((2, 3, 4)), U((3, 4, 5))),
    case(np.tensordot, U((2, 3)), U((4, 5)), axes=0),
    case(np.tensordot, U((2, 3, 4)), U((4, 2, 5)), axes=([0, 2], [1, 0])),
    case(np.tensordot, U((3, 4)), U((4, 3)), axes=(1, 0)),
    case(np2("linalg.tensordot"), U((2, 3)), U((3, 4)), axes=1),
    case(np.einsum, "ij,jk->ik", U((2, 3)), U((3, 4))),
    case(np.einsum, "ij,jk", U((2, 3)), U((3, 4))),
    case(np.einsum, "i,i->", U((3,)), U((3,))),
    case(np.einsum, "ii->i", U((3, 3))),
    case(np.einsum, "ii", U((3, 3))),
    case(np.einsum, "iij->ji", U((2, 2, 3))),
    case(np.einsum, "ij->", U((2, 3))),
    case(np.einsum, "ij,k->ikj", U((2, 3)), U((4,))),
    case(np.einsum, "ijk,jl->", U((2, 3, 4)), U((3, 5))),
    case(np.einsum, "...ij,...jk->...ik", U((5, 2, 3)), U((3, 4))),
    case(np.einsum, "...i,...i", U((1, 3)), U((4, 3))),
    case(np.einsum, "bi,bi->b", U((1, 3)), U((4, 3))),
    case(np.einsum, "i,jk,k", U((2,)), U((3, 4)), U((4,))),
    case(np2("matvec"), U((2, 3, 4)), U((4,))),
    case(np2("matvec"), U((3, 4)), U((2, 4))),
    case(np2("vecmat"), U((3,)), U((2, 3, 4))),
    case(np2("vecmat"), U((2, 3)), U((3, 4))),
    case(np.kron, U((2,)), U((3,))),
    case(np.kron, U((2, 3)), U((2, 2))),
    case(np.kron, U((3,)), U((2, 2))),
    case(np.trace, U((3, 3))),
    case(np.trace, U((3, 4)), offset=1),
    case(np.trace, U((2, 3, 4)), offset=-1, axis1=1, axis2=2),
    case(np2("linalg.trace"), U((2, 3, 3)), offset=1),
    case(np.cross, U((3,)), U((3,))),
    case(np.cross, U((2, 3)), U((3,))),
    case(np.cross, U((3, 2)), U((2, 3)), axisa=0),
    case(np.cross, U((3, 2)), U((3, 2)), axis=0),
    case(np2("linalg.cross"), U((4, 3)), U((3,))),
    case(np.polyval, U((4,)), U((2, 3))),
    case(np.polyval, U((1,)), U((3,))),
    case(np.polyval, [1.5, -0.5, 2.0], U(())),
    case(np.polyfit, np.array([-1.0, -0.4, 0.3, 0.9, 1.6, 2.2]), U((6,)), 2),
    case(np.polyfit, np.array([-1.0, -0.4, 0.3, 0.9, 1.6, 2.2]), U((6, 3)), 3),
    case(np.polyfit, U((5,), 0.5, 2.5), U((5,)), 1, w=np.array([1.0, 0.5, 2.0, 1.5, 0.8])),
    case(np.vander, U((4,))),
    case(np.vander, U((3,)), 5, increasing=True),
    case(np.vander, np.array([0.0, 1.5, -2.0]), 3),
    case(np.interp, U((6,), 0.1, 3.9), np.array([0.0, 1.0, 2.5, 3.0, 4.0]), U((5,))),
    case(np.interp, np.array([-1.0, 0.5, 2.2, 5.0]), np.array([0.0, 1.0, 2.5, 4.0]), U((4,)), left=-3.0),
    case(np.interp, np.array([-1.0, 0.5, 2.2, 5.0]), np.array([0.0, 1.0, 2.5, 4.0]), U((4,)), right=7.0),
]
XP = np.array([0.0, 1.0, 2.5, 4.0])
NONFINITE = np.array([[1.5, np.nan, np.inf], [-np.inf, -0.5, np.nan]])
FILLS = [  # the values a function fills in: np.interp's xp, left and right, edges, padding, replacements
    case(np.interp, np.array([-1.0, 0.5, 2.2, 3.1, 5.0]), XP, U((4,)), left=U(()), right=U(())),
    case(np.interp, U((2, 3), 0.1, 3.9), XP, U((4,))),
    case(np.diff, U((3, 4)), prepend=U(()), append=U(())),
    case(np.diff, U((3, 4)), n=3, axis=0, append=U((2, 4))),
    case(np.ediff1d, U((2, 3)), to_begin=U((2, 2)), to_end=U(())),
    case(np.pad, U((2, 3)), 1, constant_values=U(())),
    case(np.pad, U((2, 3)), ((1, 0), (2, 1)), constant_values=U((2,))),
    case(np.pad, U((2, 3)), ((1, 2), (0, 1)), constant_values=U((2, 2))),
    case(np.pad, U((2, 3)), 2, constant_values=U((2, 1))),
    case(np.pad, U((5,)), (2, 3), "linear_ramp", end_values=U((2,))),
    case(np.pad, U((2, 3)), ((1, 2), (2, 1)), "linear_ramp", end_values=U((2, 2))),
    case(np.nan_to_num, NONFINITE, nan=U(()), posinf=U(()), neginf=U(())),
]


@pytest.mark.parametrize("fn,args,kwargs", FILLS)
def test_fills(fn, args, kwargs):
    run(fn, *args, **kwargs)


HERMITIAN = [  # svd and pinv with hermitian=True read the lower triangle (not symmetric here: FD sees that)
    case(np.linalg.svd, U((3, 3)) , hermitian=True, compute_uv=False),
    case(np.linalg.svd, U((2, 3, 3)), hermitian=True),
    case(np.linalg.pinv, U((3, 3)), hermitian=True),
]


@pytest.mark.parametrize("fn,args,kwargs", HERMITIAN)
def test_hermitian(fn, args, kwargs):
    run(fn, *args, **kwargs)


CONDITION_DEFAULTS = [  # np.linalg.cond (2-norm), max/min with default=
    case(np.linalg.cond, U((3, 3))), case(np.linalg.cond, U((2, 3, 3)), 2), case(np.linalg.cond, U((4, 3)), -2),
    *[case(f, [0.5, -1.5, 0.2], default=0.3) for f in (builtins.max, builtins.min)],
    *[case(f, [], default=U(())) for f in (builtins.max, builtins.min)],
    case(builtins.max, U((0,)), default=0.7),
]


@pytest.mark.parametrize("fn,args,kwargs", CONDITION_DEFAULTS)
def test_condition_and_defaults(fn, args, kwargs):
    run(fn, *args, **kwargs)


def test_cond_of_a_diagonal_matrix():
    # cond(diag(4, 1)) = 4: d/dx[0,0] = 1/1, d/dx[1,1] = -4/1
    x = np.diag([4.0, 1.0])
    assert np.allclose(rules.lookup(np.linalg.cond).vjp("x", 1.0, np.linalg.cond(x), x), np.diag([1.0, -4.0]))


LENGTHS = [(5, 3), (3, 5), (4, 4), (6, 2), (2, 7), (1, 3)]
CONVOLUTIONS = [(n, m, mode) for n, m in LENGTHS for mode in ("full", "same", "valid")]


@pytest.mark.parametrize("fn,args,kwargs", PRODUCTS)
def test_product(fn, args, kwargs):
    run(fn, *args, **kwargs)


@pytest.mark.parametrize("n,m,mode", CONVOLUTIONS, ids=str)
@pytest.mark.parametrize("fn", [np.convolve, np.correlate], ids=lambda f: f.__name__)
def test_convolution(fn, n, m, mode):
    run(fn, U((n,)), U((m,)), mode=mode)


def test_interp_rejects_period():
    with pytest.raises(NotImplementedError, match="period"):
        x = np.array([0.5])
        rules.lookup(np.interp).vjp("x", np.ones(1), x, x, [0.0, 1.0], [1.0, 2.0], period=2.0)


LINALG = [
    case(np.linalg.inv, well_conditioned(3, 3)),
    case(np.linalg.inv, well_conditioned(2, 3, 3)),
    case(np.linalg.det, well_conditioned(3, 3)),
    case(np.linalg.det, well_conditioned(2, 2, 2)),
    case(np.linalg.det, np.array([[1.0, 2.0], [2.0, 4.0]])),
    case(np.linalg.det, np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [0.5, -1.0, 2.0]])),
    case(np.linalg.slogdet, well_conditioned(3, 3)),
    case(np.linalg.slogdet, well_conditioned(2, 3, 3) * np.array([1.0, -1.0])[:, None, None]),
    case(log_abs_det, well_conditioned(3, 3)),
    case(log_abs_det, well_conditioned(2, 3, 3) * np.array([1.0, -1.0])[:, None, None]),
    case(np.linalg.solve, well_conditioned(3, 3), U((3,))),
    case(np.linalg.solve, well_conditioned(3, 3), U((3, 2))),
    since("2.0.0", case(np.linalg.solve, well_conditioned(2, 3, 3), U((3,)))),
    case(np.linalg.solve, well_conditioned(2, 3, 3), U((2, 3, 4))),
    case(np.linalg.cholesky, spd(3)),
    case(np.linalg.cholesky, spd(3, (2,))),
    since("2.0.0", case(np.linalg.cholesky, spd(3), upper=True)),
    case(np.linalg.eigh, spd(3)),
    case(np.linalg.eigh, spd(3, (2,)), "U"),
    case(np.linalg.eigh, spd(4) - 2.0 * np.eye(4)),
    case(np.linalg.eigvalsh, spd(3)),
    case(np.linalg.eigvalsh, spd(3, (2,)), UPLO="U"),
    case(np.linalg.qr, well_conditioned(4, 3)),
    case(np.linalg.qr, well_conditioned(3, 3)),
    case(np.linalg.qr, well_conditioned(2, 4, 3)),
    case(np.linalg.qr, well_conditioned(3, 5)),
    case(np.linalg.qr, well_conditioned(4, 3), mode="r"),
    case(np.linalg.qr, well_conditioned(3, 3), mode="complete"),
    case(np.linalg.svd, well_conditioned(3, 3)),
    case(np.linalg.svd, well_conditioned(4, 3), full_matrices=False),
    case(np.linalg.svd, well_conditioned(3, 5), full_matrices=False),
    case(np.linalg.svd, well_conditioned(2, 4, 3), full_matrices=False),
    case(np.linalg.svd, well_conditioned(4, 3), compute_uv=False),
    case(np.linalg.svd, well_conditioned(2, 3, 5), compute_uv=False),
    case(np2("linalg.svdvals"), well_conditioned(4, 3)),
    case(np.linalg.pinv, well_conditioned(3, 3)),
    case(np.linalg.pinv, well_conditioned(4, 3)),
    case(np.linalg.pinv, well_conditioned(2, 3, 5)),
    case(np.linalg.matrix_power, well_conditioned(3, 3) / 3.0, 3),
    case(np.linalg.matrix_power, well_conditioned(3, 3), 1),
    case(np.linalg.matrix_power, well_conditioned(3, 3), 0),
    case(np.linalg.matrix_power, well_conditioned(2, 3, 3), -2),
    case(np.linalg.multi_dot, [U((2, 3)), U((3, 4)), U((4, 2))]),
    case(np.linalg.multi_dot, [U((3,)), U((3, 4)), U((4,))]),
    case(np.linalg.multi_dot, [U((3,)), U((3, 4)), U((4, 2)), U((2, 3))]),
    case(np.linalg.tensorsolve, well_conditioned(6, 6).reshape(2, 3, 6), U((2, 3))),
    case(np.linalg.tensorsolve, well_conditioned(6, 6).reshape(2, 3, 2, 3), U((2, 3))),
    case(np.linalg.tensorsolve, well_conditioned(6, 6).reshape(2, 3, 6).transpose(2, 0, 1), U((2, 3)), axes=(0,)),
]


LSTSQ = [
    case(np.linalg.lstsq, well_conditioned(5, 3), U((5,)), rcond=None),
    case(np.linalg.lstsq, well_conditioned(6, 2), U((6, 3)), rcond=None),
    case(np.linalg.lstsq, well_conditioned(3, 3), U((3, 2)), rcond=None),
    case(np.linalg.lstsq, well_conditioned(2, 4), U((2,)), rcond=None),
    case(np.linalg.lstsq, well_conditioned(3, 5), U((3, 2)), 1e-8),
]


@pytest.mark.parametrize("fn,args,kwargs", LSTSQ)
def test_lstsq(fn, args, kwargs):
    run(fn, *args, rtol=1e-5, atol=1e-6, **kwargs)


def test_lstsq_of_rank_deficient_matrix_refuses_the_solution():
    a = np.array([[1.0, 2.0], [2.0, 4.0], [0.0, 0.0]])
    b = np.array([1.0, 0.5, 2.0])
    ans = np.linalg.lstsq(a, b, rcond=None)
    rule = rules.lookup(np.linalg.lstsq)
    with pytest.raises(NotDifferentiableError, match="rank-deficient"):
        rule.vjp("a", (np.ones(2), None, None, None), ans, a, b, rcond=None)
    with pytest.raises(NotDifferentiableError, match="rank-deficient"):
        rule.vjp("b", (np.ones(2), None, None, None), ans, a, b, rcond=None)
    # the singular values stay differentiable, and so does the tangent of s in forward mode
    grad = rule.vjp("a", (None, None, None, np.ones(2)), ans, a, b, rcond=None)
    np.testing.assert_allclose(grad, rules.lookup(np.linalg.svd).vjp("x", np.ones(2), ans[3], a, compute_uv=False))
    t = np.ones_like(a)
    d_x, d_res, d_rank, d_s = rule.jvp("a", t, ans, a, b, rcond=None)
    assert d_res.shape == (0,) and d_rank == 0.0 and d_s.shape == (2,)
    with pytest.raises(NotDifferentiableError, match="rank-deficient"):
        d_x * 2.0
    with pytest.raises(NotDifferentiableError, match="rank-deficient"):
        np.sum(d_x)


def test_svd_full_matrices_forward_keeps_s_and_the_square_factor():
    for a in (well_conditioned(4, 3), well_conditioned(3, 5)):
        ans = np.linalg.svd(a)
        t = np.random.default_rng(2).standard_normal(a.shape)
        tangents = rules.lookup(np.linalg.svd).jvp("x", t, ans, a)
        thin = np.linalg.svd(a, full_matrices=False)
        exact = rules.lookup(np.linalg.svd).jvp("x", t, thin, a, full_matrices=False)
        np.testing.assert_allclose(tangents[1], exact[1])
        square, missing = (2, 0) if a.shape[0] > a.shape[1] else (0, 2)
        np.testing.assert_allclose(tangents[square], exact[square], atol=1e-12)
        with pytest.raises(NotImplementedError, match="full_matrices"):
            tangents[missing] @ np.ones(a.shape[0])
        with pytest.raises(NotImplementedError, match="full_matrices"):
            np.asarray(tangents[missing])
        cotangents = [None, np.ones(len(ans[1])), None]
        cotangents[square] = np.ones_like(ans[square])
        check = rules.lookup(np.linalg.svd).vjp("x", tuple(cotangents), ans, a)
        thin_cotangents = list(cotangents)
        thin_cotangents[square] = np.ones_like(thin[square])
        np.testing.assert_allclose(check, rules.lookup(np.linalg.svd).vjp("x", tuple(thin_cotangents), thin, a, False))


@pytest.mark.parametrize("fn,args,kwargs", LINALG)
def test_linalg(fn, args, kwargs):
    run(fn, *args, rtol=1e-5, atol=1e-6, **kwargs)


SYMMETRIC = [  # differentiated over symmetric matrices: checked along symmetric perturbations only
    case(symmetric_eigh, spd(3)),
    case(symmetric_eigh, spd(3, (2,)), "U"),
    case(symmetric_eigvalsh, spd(4) - 2.0 * np.eye(4)),
    case(symmetric_eigvalsh, spd(3, (2,)), UPLO="U"),
]


def _flat_outputs(out):
    return np.concatenate([np.ravel(o) for o in out]) if isinstance(out, tuple) else np.ravel(out)


@pytest.mark.parametrize("fn,args,kwargs", SYMMETRIC)
def test_symmetric_factorizations(fn, args, kwargs):
    """Both rules against central differences along symmetric perturbations (of which
    the result is a function); the reverse rule's gradient is symmetric and the
    adjoint of the forward rule. Eigenvectors enter through v * v (sign-free)."""
    rng = np.random.default_rng(3)
    x = args[0]
    rule = rules.lookup(fn)

    def value(a):
        out = fn(a, *args[1:], **kwargs)
        return (out[0], out[1] * out[1]) if isinstance(out, tuple) else out

    ans = fn(x, *args[1:], **kwargs)
    for _ in range(3):
        e = rng.normal(size=x.shape)
        e = e + np.swapaxes(e, -1, -2)
        eps = 1e-6
        fd = (_flat_outputs(value(x + eps * e)) - _flat_outputs(value(x - eps * e))) / (2 * eps)
        t = rule.jvp("x", e, ans, x, *args[1:], **kwargs)
        t = (t[0], 2 * ans[1] * t[1]) if isinstance(t, tuple) else t
        np.testing.assert_allclose(_flat_outputs(t), fd, rtol=1e-5, atol=1e-6)
        g = (rng.normal(size=ans[0].shape), rng.normal(size=ans[1].shape)) if isinstance(ans, tuple) else rng.normal(size=ans.shape)
        grad = rule.vjp("x", g, ans, x, *args[1:], **kwargs)
        np.testing.assert_allclose(grad, np.swapaxes(grad, -1, -2), atol=1e-12)
        t_full = rule.jvp("x", e, ans, x, *args[1:], **kwargs)
        pairing = sum(np.sum(a * b) for a, b in zip(g, t_full)) if isinstance(g, tuple) else np.sum(g * t_full)
        np.testing.assert_allclose(np.sum(grad * e), pairing, rtol=1e-9)


def test_factorizations_read_one_triangle():
    """Perturbing the unread triangle changes nothing, so its gradient is zero."""
    a = spd(3)
    for fn, kwargs, unread in [
        (np.linalg.cholesky, {}, np.triu_indices(3, 1)),
        *([(np.linalg.cholesky, {"upper": True}, np.tril_indices(3, -1))] if NUMPY2 else []),  # upper=: NumPy 2
        (np.linalg.eigvalsh, {}, np.triu_indices(3, 1)),
        (np.linalg.eigvalsh, {"UPLO": "U"}, np.tril_indices(3, -1)),
    ]:
        ans = fn(a, **kwargs)
        grad = rules.lookup(fn).vjp("x", np.ones_like(ans), ans, a, **kwargs)
        assert np.all(grad[unread] == 0.0)


def test_svd_full_matrices_of_non_square_is_rejected():
    a = well_conditioned(4, 3)
    ans = np.linalg.svd(a)
    with pytest.raises(NotImplementedError, match="full_matrices"):
        rules.lookup(np.linalg.svd).vjp("x", tuple(np.ones_like(v) for v in ans), ans, a)


def test_unused_outputs_take_none():
    a = spd(3)
    w, v = np.linalg.eigh(a)
    only_w = rules.lookup(np.linalg.eigh).vjp("x", (np.ones(3), None), (w, v), a)
    np.testing.assert_allclose(only_w, rules.lookup(np.linalg.eigvalsh).vjp("x", np.ones(3), w, a))
    sign, logdet = np.linalg.slogdet(a)
    np.testing.assert_allclose(rules.lookup(np.linalg.slogdet).vjp("x", (1.0, None), (sign, logdet), a), 0.0)


NORMS = [
    case(np.linalg.norm, U(())),
    case(np.linalg.norm, U((4,))),
    case(np.linalg.norm, U((3, 4))),
    case(np.linalg.norm, U((3, 4)), keepdims=True),
    case(np.linalg.norm, U((2, 3, 4))),
    *[case(np.linalg.norm, U((5,)), ord=o) for o in (1, 2, np.inf, -np.inf, 3, 0.5, 0)],
    *[case(np.linalg.norm, U((3, 4)), ord=o, axis=a) for o in (None, 1, 2, np.inf) for a in (0, -1)],
    case(np.linalg.norm, U((3, 4)), ord=3, axis=1, keepdims=True),
    *[case(np.linalg.norm, U((3, 4)), ord=o) for o in ("fro", "nuc", 1, -1, 2, -2, np.inf, -np.inf)],
    *[case(np.linalg.norm, U((2, 3, 4)), ord=o, axis=(2, 0)) for o in ("fro", "nuc", 1, 2, -np.inf)],
    case(np.linalg.norm, U((2, 3, 4)), ord="nuc", axis=(1, 2), keepdims=True),
    case(np2("linalg.vector_norm"), U((2, 3))),
    case(np2("linalg.vector_norm"), U((2, 3)), ord=1, axis=(0, 1), keepdims=True),
    case(np2("linalg.vector_norm"), U((2, 3)), ord=np.inf),
    case(np2("linalg.vector_norm"), U((2, 3)), ord=3, axis=0),
    case(np2("linalg.matrix_norm"), U((2, 3, 4))),
    case(np2("linalg.matrix_norm"), U((2, 3, 4)), ord="nuc"),
    case(np2("linalg.matrix_norm"), U((3, 4)), ord=-2, keepdims=True),
    case(np2("linalg.matrix_norm"), U((2, 3, 4)), ord=np.inf),
]


@pytest.mark.parametrize("fn,args,kwargs", NORMS)
def test_norm(fn, args, kwargs):
    run(fn, *args, rtol=1e-5, atol=1e-6, **kwargs)


def test_norm_of_zero_vector_has_zero_gradient():
    assert rules.lookup(np.linalg.norm).vjp("x", 1.0, 0.0, np.zeros(3)).tolist() == [0, 0, 0]


# --- shapes, indexing, structure ------------------------------------------------------

SHAPE_CASES = [
    case(np.reshape, U((2, 3)), (3, 2)),
    case(np.reshape, U((2, 3)), -1, order="F"),
    case(np.reshape, U(()), (1, 1)),
    since("2.1.0", case(np.reshape, U((2, 3)), shape=(6, 1))),
    case(np.ravel, U((2, 3))),
    case(np.ravel, U((2, 3)), order="F"),
    case(np.ravel, np.asfortranarray(np.arange(6.0).reshape(2, 3)), order="K"),
    case(np.ravel, np.arange(24.0).reshape(2, 3, 4).transpose(2, 0, 1), order="K"),
    case(np.ravel, np.asfortranarray(np.arange(6.0).reshape(2, 3)), order="A"),
    case(np.ndarray.flatten, U((2, 3))),
    case(np.ndarray.flatten, U((2, 3)), "F"),
    case(np.transpose, U((2, 3))),
    case(np.transpose, U((2, 3, 4)), (1, -1, 0)),
    case(np2("matrix_transpose"), U((2, 3, 4))),
    case(np2("linalg.matrix_transpose"), U((3, 4))),
    case(np.swapaxes, U((2, 3, 4)), 0, -1),
    case(np.moveaxis, U((2, 3, 4)), 0, -1),
    case(np.moveaxis, U((2, 3, 4)), (0, 1), (2, 0)),
    case(np.rollaxis, U((2, 3, 4)), 2),
    case(np.rollaxis, U((2, 3, 4)), 0, 3),
    case(np.rollaxis, U((2, 3, 4)), 1, -1),
    case(np.expand_dims, U((2, 3)), (0, -1)),
    case(np.expand_dims, U(()), 0),
    case(np.squeeze, U((1, 3, 1))),
    case(np.squeeze, U((1, 3, 1)), axis=-1),
    case(np.broadcast_to, U((3,)), (2, 3)),
    case(np.broadcast_to, U((2, 1)), (4, 2, 3)),
    case(np.broadcast_to, U(()), (2,)),
    case(np.flip, U((2, 3))),
    case(np.flip, U((2, 3, 4)), axis=(0, 2)),
    case(np.fliplr, U((2, 3))),
    case(np.flipud, U((2, 3))),
    case(np.roll, U((5,)), 2),
    case(np.roll, U((2, 3)), 1),
    case(np.roll, U((2, 3, 4)), (1, -2), axis=(0, 2)),
    case(np.rot90, U((2, 3))),
    case(np.rot90, U((2, 3, 4)), 3, axes=(1, 2)),
    case(np.diag, U((3,))),
    case(np.diag, U((3,)), k=-1),
    case(np.diag, U((3, 4))),
    case(np.diag, U((3, 4)), 2),
    case(np.diagflat, U((2, 2)), 1),
    case(np.diagonal, U((3, 4))),
    case(np.diagonal, U((2, 3, 4)), 1, 2, 0),
    case(np.diagonal, U((3, 4)), -1),
    case(np2("linalg.diagonal"), U((2, 3, 4)), offset=1),
    case(np.triu, U((3, 4))),
    case(np.triu, U((2, 3, 3)), -1),
    case(np.tril, U((3, 4)), 1),
    case(np.tile, U((2,)), 3),
    case(np.tile, U((2, 3)), (2, 1, 2)),
    case(np.tile, U((2, 3)), 2),
    case(np.tile, U(()), (2, 2)),
    case(np.repeat, U((3,)), 2),
    case(np.repeat, U((2, 3)), [1, 0, 3], axis=1),
    case(np.repeat, U((2, 3)), 2),
    case(np.repeat, U((2, 3)), 3, axis=-2),
    case(np.pad, U((3,)), 2),
    case(np.pad, U((2, 3)), ((1, 0), (2, 1)), constant_values=5.0),
    *[case(np.pad, U((2, 3)), ((1, 2), (2, 1)), m) for m in ("edge", "reflect", "symmetric", "wrap")],
    case(np.pad, U((4,)), 3, "reflect", reflect_type="even"),
    case(np.take, U((2, 3)), [0, 4, 4, -1]),
    case(np.take, U((2, 3)), [[2, 0], [2, 2]], axis=1),
    case(np.take, U((2, 3)), [3, -4], axis=1, mode="wrap"),
    case(np.take, U((2, 3)), [5, -1], mode="clip"),
    case(np.take_along_axis, U((2, 3)), np.array([[0, 0], [2, 1]]), axis=1),
    case(np.take_along_axis, U((3, 2)), np.array([[0, 2, 2, 1]]).T, axis=0),
    case(np.take_along_axis, U((4,)), np.array([3, 3, 0]), axis=None),
    case(np.take_along_axis, U((3, 4)), np.array([[1], [3], [0]]), axis=-1),
    case(np.sort, U((5,))),
    case(np.sort, U((3, 4)), axis=0),
    case(np.sort, U((3, 4)), axis=None),
    case(np.ndarray.item, U((2, 3)), 4),
    case(np.ndarray.item, U((2, 3)), 1, 2),
    case(np.ndarray.item, U((2, 3)), (1, 0)),
    case(np.ndarray.item, U((1,))),
    case(np.copy, U((2, 3))),
    case(np.ascontiguousarray, U((3, 2))),
    case(np.asfortranarray, U((2, 3))),
    case(np.full, (2, 3), U(())),
    case(np.full, (2, 3), U((3,))),
    case(np.full_like, U((2, 3)), U((2, 1))),
]


@pytest.mark.parametrize("fn,args,kwargs", SHAPE_CASES)
def test_shape(fn, args, kwargs):
    run(fn, *args, **kwargs)


PADS = [
    *[case(np.pad, U((5,)), w, m) for m in ("mean", "maximum", "minimum", "median", "linear_ramp") for w in (2, (1, 3))],
    *[case(np.pad, U((3, 4)), ((1, 2), (2, 0)), m) for m in ("mean", "maximum", "minimum", "median", "linear_ramp")],
    *[case(np.pad, U((2, 3, 4)), 1, m) for m in ("mean", "maximum", "minimum", "median", "linear_ramp")],
    case(np.pad, U((6,)), 2, "mean", stat_length=2),
    case(np.pad, U((3, 5)), ((1, 2), (2, 1)), "maximum", stat_length=((1, 2), (3, 2))),
    case(np.pad, U((4, 5)), 2, "minimum", stat_length=(2, 3)),
    case(np.pad, U((4, 5)), 2, "median", stat_length=3),
    case(np.pad, U((3, 4)), 6, "mean", stat_length=10),
    case(np.pad, U((3, 4)), ((0, 0), (3, 1)), "maximum"),
    case(np.pad, U((4, 5)), ((1, 2), (3, 1)), "linear_ramp", end_values=((1.0, -2.0), (0.5, 3.0))),
    case(np.pad, U((4,)), 3, mode="linear_ramp", end_values=2.0),
]


@pytest.mark.parametrize("fn,args,kwargs", PADS)
def test_pad_modes(fn, args, kwargs):
    run(fn, *args, **kwargs)


def test_pad_odd_reflection_has_a_forward_rule_only():
    x, t = np.array([1.0, 4.0, 2.0, 3.0]), np.array([0.5, -1.0, 2.0, 1.5])
    ans = np.pad(x, 3, "reflect", reflect_type="odd")
    tangent = rules.lookup(np.pad).jvp("x", t, ans, x, 3, "reflect", reflect_type="odd")
    np.testing.assert_allclose(tangent, np.pad(t, 3, "reflect", reflect_type="odd"))


def test_pad_empty_treats_the_padding_as_constant():
    x = np.ones((2, 3))
    ans = np.pad(x, 2, "empty")
    rule = rules.lookup(np.pad)
    assert np.all(rule.jvp("x", x, ans, x, 2, "empty")[:2] == 0.0)
    assert rule.vjp("x", np.ones((6, 7)), ans, x, 2, "empty").tolist() == x.tolist()


def test_pad_maximum_forward_follows_the_maximum():
    """np.pad(t, mode='maximum') would pad the tangent with its own maximum: wrong."""
    x, t = np.array([1.0, 5.0, 2.0]), np.array([7.0, 0.5, -1.0])
    assert rules.lookup(np.pad).jvp("x", t, np.pad(x, 1, "maximum"), x, 1, "maximum").tolist() == [0.5, 7, 0.5, -1, 0.5]


def test_ravel_order_k_follows_memory_layout():
    x = np.asfortranarray(np.arange(6.0).reshape(2, 3))
    grad = rules.lookup(np.ravel).vjp("x", np.arange(6.0), np.ravel(x, "K"), x, "K")
    assert grad.tolist() == [[0, 2, 4], [1, 3, 5]]


def test_transpose_accepts_axes_packed_by_method_calls():
    """`x.transpose()` and `x.transpose((2, 0, 1))` reach the rule as () and ((2, 0, 1),)."""
    x = np.arange(24.0).reshape(2, 3, 4)
    rule = rules.lookup(np.transpose)
    for packed, axes in [((), None), (((2, 0, 1),), (2, 0, 1)), ((2, 0, 1), (2, 0, 1))]:
        ans = np.transpose(x, axes)
        np.testing.assert_array_equal(rule.vjp("x", ans, ans, x, packed), x)
        np.testing.assert_array_equal(rule.jvp("x", x, ans, x, packed), ans)


def test_pad_modes_without_reverse_rule_raise():
    x = np.ones(3)
    with pytest.raises(NotImplementedError, match="mode='reflect'"):
        ans = np.pad(x, 1, "reflect", reflect_type="odd")
        rules.lookup(np.pad).vjp("x", np.ones(5), ans, x, 1, "reflect", reflect_type="odd")

    def mode(vector, width, axis, kwargs):
        vector[: width[0]] = 0.0

    with pytest.raises(NotImplementedError, match="mode="):
        rules.lookup(np.pad).vjp("x", np.ones(5), np.pad(x, 1, mode), x, 1, mode)
    with pytest.raises(NotImplementedError, match="mode="):
        rules.lookup(np.pad).jvp("x", np.ones(3), np.pad(x, 1, mode), x, 1, mode)


INDICES = [
    2, -1, slice(1, None), slice(None, None, -2), (slice(None), 1), (Ellipsis, 0), (None, 1),
    (0, None, slice(None)), (Ellipsis, None), np.array([0, 2, 0, 0]), [1, 1],
    (np.array([1, 0, 1]), np.array([2, 2, 2])),
    np.array([[True, False, True, False], [False, True, True, True], [True, True, False, False]]),
    np.array([True, False, True]), (slice(None, None, 2), np.array([3, 0, 3])), (),
]


@pytest.mark.parametrize("index", INDICES, ids=_show)
def test_getitem(index):
    run(operator.getitem, U((3, 4)), index)


def test_getitem_on_scalar_and_sequences():
    run(operator.getitem, U(()), ())
    run(operator.getitem, U(()), Ellipsis)
    check_rule(operator.getitem, [np.ones(2), 2.0, np.zeros(3)], 1)
    check_rule(operator.getitem, (np.ones(2), 2.0, np.zeros(3)), slice(0, 2))
    grad = rules.lookup(operator.getitem).vjp("x", 5.0, 2.0, [np.ones(2), 2.0], 1)
    assert grad == [None, 5.0]


_Pair = collections.namedtuple("_Pair", ["first", "second"])


@dataclasses.dataclass(frozen=True)
class _DataPair:
    first: np.ndarray
    second: np.ndarray


def test_field_of_a_namedtuple():
    """`p.second` (`getattr(p, "second")`): the gradient is the namedtuple with zeros in
    the other field; the tangent is the tangent's field."""
    pair = _Pair(np.array([0.5, -1.0, 2.0]), np.array([[1.5, 0.2], [-0.3, 0.7]]))
    check_rule(getattr, pair, "second")
    grad = rules.lookup(getattr).vjp("x", np.ones((2, 2)), None, pair, "second")
    assert type(grad) is _Pair and grad.first.tolist() == [0.0, 0.0, 0.0] and grad.second.tolist() == [[1.0, 1.0]] * 2


def test_namedtuple_made_from_its_fields():
    """`_Pair(a, b)` (calls.site reads it as `make_record(_Pair, (a, b))`): each
    field's value gets its entry of the gradient; the tangent is the namedtuple of the
    fields' tangents, zeros for a constant field."""
    fields = (np.array([0.5, -1.0, 2.0]), np.array([[1.5, 0.2], [-0.3, 0.7]]))
    check_rule(make_record, _Pair, fields)
    rule = rules.lookup(make_record)
    grad = rule.vjp("fields", _Pair(np.ones(3), np.full((2, 2), 2.0)), None, _Pair, fields)
    assert type(grad) is tuple and grad[0].tolist() == [1.0] * 3 and grad[1].tolist() == [[2.0, 2.0]] * 2
    tangent = rule.jvp("fields", (np.ones(3), None), None, _Pair, fields)
    assert type(tangent) is _Pair and tangent.first.tolist() == [1.0] * 3 and tangent.second.tolist() == [[0.0, 0.0]] * 2


def test_record_with_fields_replaced():
    """`dataclasses.replace(p, second=v)` (calls.site reads it as
    `replace_fields(p, ("second",), (v,))`), and a namedtuple's `_replace`: the record's
    gradient is g with zeros in the replaced fields, the values' gradient those fields of
    g; the tangent is a record of the kept fields' tangents and the values' tangents."""
    for kind in (_DataPair, _Pair):
        pair = kind(np.array([0.5, -1.0, 2.0]), np.array([[1.5, 0.2], [-0.3, 0.7]]))
        values = (np.array([[0.1, 0.2], [0.3, 0.4]]),)
        check_rule(replace_fields, pair, ("second",), values)
        made = replace_fields(pair, ("second",), values)
        assert type(made) is kind and made.first is pair.first and made.second is values[0]
        rule = rules.lookup(replace_fields)
        g = kind(np.ones(3), np.full((2, 2), 2.0))
        kept = rule.vjp("record", g, made, pair, ("second",), values)
        assert type(kept) is kind and kept.first.tolist() == [1.0] * 3 and kept.second.tolist() == [[0.0, 0.0]] * 2
        given = rule.vjp("values", g, made, pair, ("second",), values)
        assert type(given) is tuple and given[0].tolist() == [[2.0, 2.0]] * 2
        tangent = rule.jvp("values", (None,), made, pair, ("second",), values)
        assert type(tangent) is kind and tangent.first.tolist() == [0.0] * 3 and tangent.second.tolist() == [[0.0, 0.0]] * 2


def test_replace_fields_refuses_a_class_that_computes_its_fields():
    @dataclasses.dataclass
    class Checked:
        a: float
        b: float

        def __post_init__(self):
            self.b = abs(self.b)

    with pytest.raises(TypeError, match="Checked does not: it defines `__post_init__`"):
        replace_fields(Checked(1.0, 2.0), ("a",), (3.0,))
    with pytest.raises(TypeError, match="_Pair has no field `third`"):
        replace_fields(_Pair(1.0, 2.0), ("third",), (3.0,))


def test_dataclass_made_from_its_fields():
    """`_DataPair(a, b)` of a dataclass is `make_record(_DataPair, (a, b))` too: the
    gradient of the fields is `field_values(g)`; the tangent a `_DataPair` of the fields'
    tangents. `field_values` and `record_like`, which generated code calls, are each
    other's transpose; a field read's gradient is a `_DataPair` with zeros elsewhere."""
    fields = (np.array([0.5, -1.0, 2.0]), np.array([[1.5, 0.2], [-0.3, 0.7]]))
    pair = _DataPair(*fields)
    check_rule(make_record, _DataPair, fields)
    check_rule(field_values, pair)
    check_rule(record_like, pair, fields)
    check_rule(getattr, pair, "second")
    rule = rules.lookup(make_record)
    grad = rule.vjp("fields", _DataPair(np.ones(3), np.full((2, 2), 2.0)), None, _DataPair, fields)
    assert type(grad) is tuple and grad[0].tolist() == [1.0] * 3 and grad[1].tolist() == [[2.0, 2.0]] * 2
    tangent = rule.jvp("fields", (np.ones(3), None), None, _DataPair, fields)
    assert type(tangent) is _DataPair and tangent.first.tolist() == [1.0] * 3 and tangent.second.tolist() == [[0.0, 0.0]] * 2
    read = rules.lookup(getattr).vjp("x", np.ones((2, 2)), None, pair, "second")
    assert type(read) is _DataPair and read.first.tolist() == [0.0] * 3 and read.second.tolist() == [[1.0, 1.0]] * 2


def test_repeated_indices_accumulate():
    grad = rules.lookup(operator.getitem).vjp("x", np.ones(4), None, np.zeros(3), np.array([0, 2, 0, 0]))
    assert grad.tolist() == [3.0, 0.0, 1.0]


STRUCTURE = [
    case(np.concatenate, [U((2, 3)), U((1, 3))]),
    case(np.concatenate, (U((2, 3)), U((2, 1)), U((2, 2))), axis=-1),
    case(np.concatenate, [U((2, 2)), U((3,))], axis=None),
    case(np.concatenate, [U((2,)), np.array([1, 2])]),
    case(np.stack, [U((2, 3)), U((2, 3))]),
    case(np.stack, (U((3,)), U((3,)), U((3,))), axis=-1),
    case(np.stack, [U(()), 2.5]),
    case(np.hstack, [U((2,)), U((3,)), 1.5]),
    case(np.hstack, (U((2, 1)), U((2, 3)))),
    case(np.vstack, [U((3,)), U((2, 3))]),
    case(np.vstack, [U(()), U((1,))]),
    case(np.dstack, [U((2,)), U((1, 2)), U((1, 2, 2))]),
    case(np.column_stack, [U((3,)), U((3, 2))]),
    case(np.append, U((2, 3)), U((4,))),
    case(np.append, U((2, 3)), U((1, 3)), axis=0),
    case(np.split, U((6,)), 3),
    case(np.split, U((2, 6)), [1, 4], axis=1),
    case(np.array_split, U((7, 2)), 3),
    case(np.hsplit, U((2, 4)), 2),
    case(np.hsplit, U((4,)), [1]),
    case(np.vsplit, U((4, 2)), [1, 3]),
    case(np.dsplit, U((2, 2, 4)), 2),
    case(np.atleast_1d, U(())),
    case(np.atleast_1d, U(()), U((2, 3)), 1.5),
    case(np.atleast_2d, U((3,))),
    case(np.atleast_2d, U(()), U((3,))),
    case(np.atleast_3d, U((3,))),
    case(np.atleast_3d, U((2, 3)), U(())),
    case(np.broadcast_arrays, U((3,)), U((2, 1)), 0.5),
    case(np.meshgrid, U((3,)), U((2,))),
    case(np.meshgrid, U((3,)), U((2,)), U((4,)), indexing="ij"),
    case(np.meshgrid, U((3,)), U((2,)), U((4,)), sparse=True),
    case(np.block, [[U((2, 2)), U((2, 3))], [U((1, 5))]]),
    case(np.block, [U((2, 2)), U((2, 1)), 1.5 * np.ones((2, 1))]),
    case(np.block, [[U(()), 2.0], [U((1,)), U((1,))]]),
    case(np.block, [[[U((1, 2, 2))], [U((1, 1, 2))]], [[U((1, 3, 2))]]]),
    case(np.array, [U(()), 1.5, U(())]),
    case(np.array, [[U(()), 2.0], [U(()), U(())]]),
    case(np.array, [U((2,)), U((2,))], ndmin=3),
    case(np.array, U((2, 3))),
    case(np.array, U((2, 3)), dtype=np.float64),
    case(np.asarray, (U(()), U(()))),
    case(np.asarray, U((2, 3))),
    case(np.asanyarray, [U((2,)), U((2,))]),
]


@pytest.mark.parametrize("fn,args,kwargs", STRUCTURE)
def test_structure(fn, args, kwargs):
    run(fn, *args, **kwargs)


INSERT_DELETE = [
    case(np.insert, U((4,)), 1, 0.5),
    case(np.insert, U((3, 4)), 1, U((4,)), axis=0),
    case(np.insert, U((3, 4)), [0, 2, 2], U((3, 1)), axis=1),
    case(np.insert, U((3, 4)), 2, U((3,)), axis=1),
    case(np.insert, U((3, 4)), [1, 5], U((2,))),
    case(np.insert, U((3, 4)), 3, U((2,))),
    case(np.insert, U((2, 3)), slice(0, 3), 1.5, axis=1),
    case(np.insert, U((2, 3)), [2, 0], U((2, 2)), axis=-1),
    case(np.delete, U((3, 4)), 1, axis=0),
    case(np.delete, U((3, 4)), [0, 3], axis=1),
    case(np.delete, U((3, 4)), [0, 5, 7]),
    case(np.delete, U((3, 4)), slice(1, None, 2), axis=-1),
    case(np.delete, U((5,)), np.array([True, False, True, False, False])),
]


@pytest.mark.parametrize("fn,args,kwargs", INSERT_DELETE)
def test_insert_delete(fn, args, kwargs):
    run(fn, *args, **kwargs)


def test_split_with_unused_pieces():
    x = np.arange(6.0)
    pieces = np.split(x, 3)
    grad = rules.lookup(np.split).vjp("x", [None, np.ones(2), None], pieces, x, 3)
    assert grad.tolist() == [0, 0, 1, 1, 0, 0]


def test_sequence_tangents_may_be_none():
    a, b = np.ones((2, 2)), np.full((1, 2), 2.0)
    ans = np.concatenate([a, b])
    tangent = rules.lookup(np.concatenate).jvp("arrays", [None, np.ones((1, 2))], ans, [a, b])
    assert tangent.tolist() == [[0, 0], [0, 0], [1, 1]]


C34_INDEX = np.array([[0, 1, 1, 0], [1, 0, 0, 1], [0, 0, 1, 1]])
KEEP4 = np.array([True, False, True, True])
SELECTIONS = [
    case(np.choose, C34_INDEX, [U((3, 4)), U((3, 4))]),
    case(np.choose, C34_INDEX, (U((4,)), U((3, 1)))),
    case(np.choose, C34_INDEX + 1, U((2, 3, 4)), mode="wrap"),
    case(np.choose, C34_INDEX * 3 - 1, [U((4,)), U((3, 4))], mode="clip"),
    case(np.compress, KEEP4, U((4,))),
    case(np.compress, KEEP4[:3], U((3, 4)), axis=0),
    case(np.compress, [False, True], U((3, 4)), axis=1),
    case(np.compress, KEEP4, U((3, 4))),
    case(np.extract, C34_INDEX > 0, U((3, 4))),
    case(np.resize, U((4,)), 6),
    case(np.resize, U((2, 3)), (4, 2)),
    case(np.resize, U((2, 3)), 4),
    case(np.partition, U((6,)), 2),
    case(np.partition, U((4, 5)), (1, 3), axis=0),
    case(np.partition, U((3, 4)), 2, axis=None),
    case(np.partition, U((3, 5)), -1),
    case(np.lib.stride_tricks.sliding_window_view, U((6,)), 3),
    case(np.lib.stride_tricks.sliding_window_view, U((4, 5)), (2, 3)),
    case(np.lib.stride_tricks.sliding_window_view, U((4, 5)), 2, axis=1),
    case(np.lib.stride_tricks.sliding_window_view, U((7,)), (2, 3), axis=(0, 0)),
    case(np.lib.stride_tricks.sliding_window_view, U((3, 4, 5)), (2, 2), axis=(2, 0)),
    # byte strides inside the input for 4- and 8-byte entries alike; overlapping windows
    case(np.lib.stride_tricks.as_strided, U((6,)), shape=(2, 2), strides=(8, 8)),
    case(np.lib.stride_tricks.as_strided, U((4, 4)), shape=(2, 2, 2), strides=(32, 8, 8)),
]


@pytest.mark.parametrize("fn,args,kwargs", SELECTIONS)
def test_selection(fn, args, kwargs):
    run(fn, *args, **kwargs)


SCATTERS = [  # np.add.at, .subtract.at, .maximum.at, .minimum.at, np.fill_diagonal, M.T[i] = v as pure functions
    case(added_at, U((4,)), np.array([0, 2, 2, 3, 2]), U((5,))),
    case(added_at, U((3, 2)), np.array([1, 1, 0]), U((2,))),
    case(added_at, U((3, 3)), (np.array([[0], [2]]), np.array([[0, 2, 2]])), U((2, 3))),
    case(added_at, U((4,)), [1, 1], U(())),
    case(subtracted_at, U((4,)), np.array([3, 0, 3]), U((3,))),
    case(subtracted_at, U((2, 3)), (np.array([0, 0, 1]), np.array([2, 2, 2])), U((3,))),
    case(maximized_at, U((4,)), np.array([0, 2, 2, 3, 2]), U((5,))),
    case(maximized_at, U((3, 2)), np.array([1, 1, 0]), U((2,))),
    case(minimized_at, U((4,)), np.array([3, 0, 3]), U((3,))),
    case(minimized_at, U((2, 3)), (np.array([0, 0, 1]), np.array([2, 2, 2])), U((3,))),
    case(filled_diagonal, U((3, 3)), U(())),
    case(filled_diagonal, U((5, 3)), U((2,)), True),
    case(filled_diagonal, U((2, 2, 2)), U((3,))),
    case(diagonal_summed, U((4, 3)), np.zeros(2)),
    case(diagonal_summed, U((5, 2)), np.zeros((2, 1)), True),
    # `M.T[i] = v` of an array the function makes (a repeated index: the value written last)
    case(written_transposed, U((2, 3)), 0, U((2,))),
    case(written_transposed, U((3, 2)), (1, slice(1, None)), U(())),
    case(written_transposed, U((3, 3)), np.array([2, 0, 2]), U((3, 3))),
    # the shim's item assignment (distinct places: with a repeated index its reverse rule is PyTorch's convention)
    case(index_put, U((4,)), slice(1, 3), U((2,))),
    case(index_put, U((3, 2)), 1, U((2,))),
    case(index_put, U((3, 2)), (slice(None), 0), U(())),
    case(index_put, U((4,)), np.array([3, 0]), U((2,))),
    case(index_put, U((3, 3)), np.array([True, False, True]), U((3,))),
]


@pytest.mark.parametrize("fn,args,kwargs", SCATTERS)
def test_scatter(fn, args, kwargs):
    run(fn, *args, **kwargs)


def test_overlapping_windows_add_their_gradients():
    x = np.arange(5.0)
    windows = np.lib.stride_tricks.sliding_window_view(x, 3)
    grad = rules.lookup(np.lib.stride_tricks.sliding_window_view).vjp("x", np.ones((3, 3)), windows, x, 3)
    assert grad.tolist() == [1, 2, 3, 2, 1]


# --- the Tensor shim's special functions without SciPy (special, Bessel and normal), and its einsums ---

SPECIAL_ARRAYS = [
    case(special_arrays.lgamma, U((2, 3), 0.3, 4.0)),
    case(special_arrays.lgamma, U((3,), -2.9, -2.1)),
    case(special_arrays.digamma, U((2, 3), 0.3, 4.0)),
    case(special_arrays.polygamma, 1, U((3,), 0.3, 4.0)),
    case(special_arrays.polygamma, 3, U((3,), -1.9, -1.1)),
    case(special_arrays.erfinv, U((2, 3), -0.95, 0.95)),
    case(special_arrays.logit, U((2, 3), 0.05, 0.95)),
    case(special_arrays.logit, U((4,), 0.3, 0.7), 0.2),
    case(special_arrays.xlogy, U((2, 3)), U((2, 3), 0.2, 3.0)),
    case(special_arrays.xlogy, U((3,)), U((2, 1), 0.2, 3.0)),
    case(special_arrays.xlog1py, U((2, 3)), U((2, 3), 0.2, 3.0)),
    case(special_arrays.xlog1py, U((3,)), U((2, 1), 0.1, 2.0)),
    case(special_arrays.entr, U((2, 3), 0.1, 3.0)),
    case(special_arrays.mvlgamma, U((2, 3), 2.0, 5.0), 3),
    case(special_arrays.zeta, 2.5, U((3,), 0.3, 4.0)),
    case(special_arrays.zeta, U((2, 1), 2.0, 4.0), U((3,), 0.3, 4.0)),
    case(bessel_arrays.i0, U((2, 3), -9.0, 9.0)),
    case(bessel_arrays.i0e, U((3,), 0.3, 11.0)),
    case(bessel_arrays.i1, U((2, 3), -9.0, 9.0)),
    case(bessel_arrays.i1e, U((3,), -11.0, -0.3)),
    case(bessel_arrays.i0, U((3,), -19.0, -16.0)),
    case(bessel_arrays.i1, np.array([0.0, 0.5, -1.0])),
    case(bessel_arrays.i1, np.array([17.0, -18.0])),
    case(bessel_arrays.bessel_j0, U((2, 3), -9.0, 9.0)),
    case(bessel_arrays.bessel_j1, U((3,), 0.3, 9.0)),
    case(normal_arrays.erfcx, U((2, 3), -3.0, 5.0)),
    case(normal_arrays.log_ndtr, U((3,), -30.0, 5.0)),
    case(normal_arrays.ndtri, U((2, 3), 0.02, 0.98)),
    case(einsums.reduction, "ij->ji", U((2, 3))),
    case(einsums.reduction, "ij->", U((2, 3))),
    case(einsums.reduction, "...j->...", U((2, 2, 3))),
    case(einsums.contraction, "ij,jk->ik", U((2, 3)), U((3, 4))),
    case(einsums.contraction, "bij,bjk", U((2, 2, 3)), U((2, 3, 2))),
    case(einsums.contraction, "i,j->ij", U((2,)), U((3,))),
    case(einsums.contraction, "ij,k->k", U((2, 3)), U((4,))),
    case(einsums.contraction, "...ij,jk->...ik", U((1, 2, 3)), U((3, 2))),
]


@pytest.mark.parametrize("fn,args,kwargs", SPECIAL_ARRAYS)
def test_special_arrays_and_einsums(fn, args, kwargs):
    run(fn, *args, **kwargs)


def test_einsum_of_a_diagonal_has_no_rule():
    with pytest.raises(NotImplementedError, match="repeats a label"):
        rules.lookup(einsums.reduction).vjp("x", np.ones(3), np.ones(3), "ii->i", np.eye(3))


# --- rules from other modules (activations, methods) ----------------------------------

OTHERS = [case(np.ndarray.copy, U((2, 3))), case(np.ndarray.astype, U((2, 3)), np.float64), case(np.ndarray.view, U((2, 3))),
          case(np.ndarray.tolist, U((2, 3))), case(np.ndarray.tolist, U((4,))), case(np.ndarray.tolist, U(()))]


@pytest.mark.parametrize("fn,args,kwargs", OTHERS)
def test_method_rules(fn, args, kwargs):
    run(fn, *args, dtypes=False, **kwargs)


# --- the registry as a whole ----------------------------------------------------------

TABLES = [
    SYMMETRIC,
    [case(f, U(s, lo, hi)) for f, lo, hi in UNARY for s in SHAPES],
    [case(f, U(xs, *xd), U(ys, *yd)) for f, xd, yd in BINARY for xs, ys in PAIRS],
    [case(np.where, np.array(True), U(()), U(())), case(np.ldexp, U((2,)), 1)],
    [case(np.heaviside, np.array([[0.0, 1.5, -2.0], [0.0, 0.0, 3.0]]), U((3,))),
     case(np.bincount, np.array([0, 3, 3, 1]), U((4,))), case(np.bincount, np.array([2, 0]), weights=U((2,)), minlength=4)],
    CLIP, [case(*a) for a in SCALARS], SEQUENCE_SCALARS,
    [case(f, U((3, 4), 0.5, 2)) for f in REDUCTIONS + SCANS],
    [case(builtins.sum, [0.5, 1.5], 2.0), case(math.fsum, [0.5])],
    [case(builtins.max, 0.5, -1.5), case(builtins.min, 0.5, -1.5)],
    [case(builtins.sorted, [0.5, -1.5, 0.2]), case(builtins.sorted, U((4,)), reverse=True)],
    [case(list, [0.5, 1.5]), case(tuple, [0.5, 1.5]), case(np.float64, 0.7), case(np.float32, 0.7)],
    [case(np.add.reduce, U((3,))), case(np.add.accumulate, U((3,))), case(np.logaddexp.reduce, U((3,))),
     case(np.logaddexp2.reduce, U((3,)))],
    QUANTILES, NAN_QUANTILES, AVERAGE, COVARIANCES, DIFFERENCES, PRODUCTS,
    [case(np.convolve, U((3,)), U((2,))), case(np.correlate, U((3,)), U((2,)))],
    LINALG, NORMS, SHAPE_CASES, [case(operator.getitem, U((3,)), 0), case(getattr, _Pair(U((3,)), U((2, 2))), "second"),
                               case(make_record, _Pair, (U((3,)), U((2, 2)))),
                               case(make_record, _DataPair, (U((3,)), U((2, 2)))),
                               case(replace_fields, _DataPair(U((3,)), U((2, 2))), ("second",), (U((2, 2)),)),
                               case(replace_fields, _Pair(U((3,)), U((2, 2))), ("first",), (U((3,)),)),
                               case(getattr, _DataPair(U((3,)), U((2, 2))), "second"),
                               case(field_values, _DataPair(U((3,)), U((2, 2)))),
                               case(record_like, _DataPair(U((3,)), U((2, 2))), (U((3,)), U((2, 2)))), case(dict, {"a": U((3,)), "b": U((2,))}),
                               case(operator.or_, {"a": U((3,)), "b": U((2,))}, {"b": U((2,)), "c": U(())})],
    STRUCTURE, SELECTIONS, SCATTERS, OTHERS, SPECIAL_ARRAYS,
    KEYWORD_REDUCTIONS, RUNNING_EXTREMA, UFUNC_METHODS, STATISTIC_KEYWORDS, FILLS, CONDITION_DEFAULTS, HERMITIAN, CUMULATIVE, SPACINGS, SELECT, PADS, INSERT_DELETE, LSTSQ,
]
OWN_MODULES = (
    "copies", "decompositions", "elementwise", "gamma", "inverses", "linalg", "norms", "operators", "record_replace", "reductions",
    "scalars", "scatter", "selections", "series", "shapes", "spacings", "statistics", "structure", "ufunc_methods", "variances", "fills",
    "einsums", "special_arrays", "bessel_arrays", "normal_arrays",
)
MY_MODULES = {f"srcgrad.rules.{m}" for m in OWN_MODULES}


def _covered():
    covered = set()
    rng = np.random.default_rng(0)
    for table in TABLES:
        for param in table:
            fn, args, kwargs = param.values
            if isinstance(fn, _Missing):  # a NumPy 2 function this NumPy lacks: no rule to cover
                continue
            call = Call(fn, materialize(list(args), rng), materialize(kwargs, rng))
            covered.update((call.rule.primal, p) for p in call.differentiable())
    return covered


def test_every_rule_is_tested_in_both_modes():
    covered = _covered()
    missing = [
        f"{rule.name}[{p}]"
        for rule in rules.all_rules()
        for p, d in rule.vjps.items()
        if d.fn.__module__ in MY_MODULES and (rule.primal, p) not in covered
    ]
    assert not missing, f"rules without a test case: {missing}"


def test_every_rule_has_both_modes():
    # rules with no reverse side: the forward rules of generated code's helpers (runtime_rules.py,
    # derived_rules.py)
    one_sided = [r.name for r in rules.all_rules() if r.vjps and set(r.vjps) != set(r.jvps)]
    assert not one_sided


def test_coverage_is_wide():
    mine = [r for r in rules.all_rules() if any(d.fn.__module__ in MY_MODULES for d in r.vjps.values())]
    assert len(mine) >= 200


def test_no_primal_is_both_differentiable_and_not():
    both = [r.name for r in rules.all_rules() if rules.is_nondifferentiable(r.primal)]
    assert not both


NO_GRADIENT = [
    np.shape, np.ndim, np.size, np.argmax, np.argsort, np.less, operator.lt, operator.eq, np.zeros_like,
    np.ones_like, np.empty_like, np.floor_divide, operator.floordiv, np.isnan, np.sign, np.floor, np.round,
    builtins.len, math.floor,
]


@pytest.mark.parametrize("fn", NO_GRADIENT, ids=lambda f: f.__name__)
def test_allowed_without_gradient(fn):
    assert rules.is_nondifferentiable(fn) and rules.lookup(fn) is None


@pytest.mark.parametrize("fn", [operator.pow, np.power, np.float_power, math.pow, builtins.pow], ids=lambda f: f.__name__)
def test_power_derivative_at_zero_has_no_nan(fn):
    # d/dx x**0 is 0 everywhere (also at x = 0, where y * x**(y-1) would be 0 * inf);
    # d/dx x**1 is 1 and d/dx x**2 is 0 at x = 0
    rule = rules.lookup(fn)
    for y, expected in ((0, 0.0), (1, 1.0), (2, 0.0), (0.0, 0.0)):
        assert rule.vjp(0, 1.0, fn(0.0, y), 0.0, y) == expected  # the base (`x`, or pow's `base`)
        assert rule.jvp(0, 1.0, fn(0.0, y), 0.0, y) == expected
