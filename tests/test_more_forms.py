"""Through the compiler: call forms of NumPy that have rules of their own or keywords that
the rules read. The ufunc methods (np.maximum.reduce, np.multiply.reduce / accumulate,
np.add.outer, np.subtract.outer, np.add.reduceat, np.add.reduce with initial= and
where=); where= of var, std and the nan* reductions, and var's `mean=` and
`correction=`; the array attributes and methods `x.mT`, `x.flat[...]` (reads),
`x.tolist()` and `x.view()`; the values functions fill in (np.interp's xp, left and
right, the edges of np.diff and np.ediff1d, np.pad's constant_values and end_values,
np.nan_to_num's nan, posinf and neginf); np.linalg.cond and max/min with default=; a `lambda` as the `key=` of sorted, min and max.
Then the refusals: a literal argument the rules do not handle is refused at its line in
both modes (`registry.supports`), a value known only at run time says what to write;
and what is supported instead (hermitian=True, np.cov's constant weights, getattr).

Each program: `srcgrad.grad` against central finite differences in float64, `srcgrad.jvp`
against the gradient (the dot-product test), float32 arguments get float32 gradients,
and the arguments are left as they were. A few have their analytic gradient written
out, and Hessians are checked against differences of the gradient (and for symmetry).
The rules themselves are checked one by one in test_rules.py.
"""

import re
import warnings

import numpy as np
import pytest

import srcgrad

NUMPY2 = np.lib.NumpyVersion(np.__version__) >= "2.0.0"
from conftest import numerical_grad
from program_table import check_float32, check_grad, check_jvp

_rng = np.random.default_rng(97)


def R(*shape):
    return _rng.standard_normal(shape)


def P(*shape):
    return _rng.uniform(0.5, 2.0, shape)


def D(*shape):  # distinct values with gaps >= 0.1: no ties for max/min
    n = int(np.prod(shape))
    return ((_rng.permutation(n) - n / 2 + 0.5) * 0.3 + _rng.uniform(-0.05, 0.05, n)).reshape(shape)


MASK34 = np.array([[True, False, True, True], [False, True, True, False], [True, True, False, True]])


def _reduces(x):
    top = np.maximum.reduce(x, axis=1) * np.minimum.reduce(x, axis=0, keepdims=True).sum()
    return np.sum(top ** 2) + np.maximum.reduce(x, axis=None) * np.minimum.reduce(x[0])


def _reduce_keywords(x):
    a = np.add.reduce(x ** 2, axis=1, initial=x[0, 0], where=MASK34)
    b = np.maximum.reduce(x, axis=0, initial=0.1, where=MASK34)
    return np.sum(a * np.arange(3.0)) + np.sum(b ** 2)


def _products(x):
    return np.multiply.reduce(x, axis=1) @ np.arange(3.0) + np.sum(np.multiply.accumulate(x, axis=1) ** 2)


def _spreads_where(x):
    keep = x > 0.0
    return (np.std(x, axis=1, where=keep) @ np.arange(3.0) + np.var(x, where=MASK34, ddof=1)
            + np.sum(np.nanstd(x, axis=0, where=MASK34) ** 2) + np.nanvar(x ** 2, where=keep))


def _nan_reductions_where(x):
    y = np.where(x > 1.5, np.nan, x)  # y's NaN entries get a zero gradient, which np.where passes on
    return (np.nansum(y, axis=1, where=MASK34) ** 2 @ np.arange(3.0) + np.nanmean(y, where=MASK34) * x[1, 1]
            + np.sum(np.nanprod(y, axis=0, where=MASK34, initial=x[0, 0])))


def _variance_mean(x):
    centre = np.mean(x, axis=1, keepdims=True)
    return (np.sum(np.var(x, axis=1, mean=centre) * np.arange(3.0)) + np.std(x, mean=x[:1, :1], correction=1)
            + np.sum(np.nanvar(x, axis=0, mean=np.sin(x[:1]), where=MASK34)))


def _flat_reads(x):
    total = x.flat[1] * x.flat[5] + np.sum(x.flat[2:7] ** 2) + np.sum(np.sin(x.flat[[0, 3, 3]]))
    for v in x.flat:
        total = total + v ** 3
    return total


def _as_lists(x):
    rows = x.tolist()
    first, second = rows[0], rows[1]
    return first[0] * second[2] + sum(first) ** 2 + max(second) * rows[2][1] + float(np.sum(x)) * rows[0][3]


def _interp_points(x):
    xp = np.array([0.0, x[1], x[2] + 0.4])
    y = np.interp(np.array([-1.0, 0.5, 1.5, 2.7, 4.0]), xp, np.array([1.0, x[3], 5.0]), left=x[0] ** 2, right=x[1])
    return np.sum(y ** 2)


def _edges(x):
    d = np.diff(x, prepend=x[2], append=x[1] * 2) ** 2
    e = np.ediff1d(x, to_begin=x[2], to_end=[x[1], 2.0])
    return np.sum(d * np.arange(5.0)) + np.sum(np.sin(e))


def _padding_values(x):
    a = np.pad(x, 2, constant_values=x[1])
    b = np.pad(x, (1, 3), constant_values=(x[0] ** 2, x[3]))
    c = np.pad(x, 2, mode="linear_ramp", end_values=(x[2], -x[1]))
    return np.sum(a ** 2 * np.arange(8.0)) + np.sum(np.sin(b)) + np.sum(c ** 3)


def _replacements(x):
    y = np.array([np.inf, -np.inf, np.nan, 1.0]) + x[0]
    return np.sum(np.nan_to_num(y, nan=x[1] ** 2, posinf=x[2], neginf=x[3] * 3) ** 2)


def _defaults(x):
    big = [v for v in x if v > 0.0]
    none = [v for v in x if v > 100.0]
    return max(big, default=x[0]) * min(none, default=x[1] ** 2) + max(x[:0], default=np.sin(x[2]))


def _ordered_by_lambdas(x):
    ranked = sorted(x, key=lambda t: (t - 1.0) ** 2)
    pairs = sorted([(x[0], 2.0), (x[1], 1.0), (x[2], 3.0)], key=lambda p: p[1], reverse=True)
    far = max(x, key=lambda t: abs(t - 1.0))
    near = min(x[0], x[1] * 2.0, key=lambda t: abs(t))
    return sum(v * k for k, v in enumerate(ranked)) + pairs[0][0] * pairs[2][0] + far ** 2 + np.sin(near)


def _largest_by_square(xs):
    return max(xs, key=lambda t: t * t)


def _calls_a_function_with_a_key_lambda(x):
    return _largest_by_square(x) * x[0]


# name -> (function of the differentiated arguments, arguments)
# fmt: off
PROGRAMS = {
    "ufunc_reduces": (_reduces, [D(3, 4)]),
    "ufunc_reduce_keywords": (_reduce_keywords, [D(3, 4)]),
    "ufunc_products": (_products, [P(3, 4)]),
    "multiply_reduce_initial": (lambda x: np.multiply.reduce(x, initial=x[1]) + np.multiply.reduce(x, where=x > 1.0), [P(5)]),
    "add_subtract_outer": (lambda x, y: np.sum(np.add.outer(x, y) ** 3) + np.sum(np.sin(np.subtract.outer(y, x * x))),
                           [R(3), R(2, 2)]),
    "add_reduceat": (lambda x: np.sum(np.add.reduceat(x, [0, 3, 1, 4], axis=1) ** 2), [R(2, 6)]),
    "spreads_where": (_spreads_where, [R(3, 4)]),
    "nan_reductions_where": (_nan_reductions_where, [P(3, 4)]),
    "variance_mean": (_variance_mean, [R(3, 4)]),
    "matrix_transpose_attribute": (lambda x: np.sum(np.sin(x.mT @ x)) + np.sum(x[None].mT[0] * x.T), [R(3, 2)]),
    "flat_reads": (_flat_reads, [R(3, 4)]),
    "tolist": (_as_lists, [R(3, 4)]),
    "view": (lambda x: np.sum(x.view() ** 3) + np.sum(x.view().T @ x), [R(3, 2)]),
    "interp_points": (_interp_points, [np.array([0.3, 1.2, 2.5, 0.7])]),
    "edges": (_edges, [R(4)]),
    "padding_values": (_padding_values, [R(4)]),
    "replacements": (_replacements, [R(4)]),
    "cond": (lambda x: np.linalg.cond(x) + np.sum(np.linalg.cond(np.stack([x, x.T @ x]), -2) ** 2), [R(3, 3)]),
    "cond_tall": (lambda x: np.linalg.cond(x, 2), [R(4, 3)]),
    "defaults": (_defaults, [np.array([0.3, -1.2, 2.5, 0.7])]),
    "key_lambdas": (_ordered_by_lambdas, [np.array([0.3, -1.2, 2.5, 0.7])]),
    "key_lambda_in_a_callee": (_calls_a_function_with_a_key_lambda, [np.array([0.3, -1.2, 2.5, 0.7])]),
    "variance_correction": (lambda x: np.var(x, correction=1) * np.std(x, axis=0, correction=0.5)[1], [R(3, 4)]),
}
# fmt: on
if not NUMPY2:  # x.mT, and np.var's mean= and correction=, are NumPy 2's
    for _name in ("variance_mean", "matrix_transpose_attribute", "variance_correction"):
        del PROGRAMS[_name]








@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_grad_matches_finite_differences(name):
    check_grad(name, *PROGRAMS[name])


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_jvp_matches_grad(name):
    check_jvp(name, *PROGRAMS[name])


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_float32_gradients_stay_float32(name):
    check_float32(name, *PROGRAMS[name])


HESSIANS = ["ufunc_reduces", "ufunc_reduce_keywords", "ufunc_products", "multiply_reduce_initial", "add_subtract_outer",
            "add_reduceat", "spreads_where", "nan_reductions_where", "variance_mean", "variance_correction",
            "matrix_transpose_attribute", "flat_reads", "tolist", "view",
            "interp_points", "edges", "padding_values", "replacements",
            "cond", "cond_tall", "defaults", "key_lambdas", "key_lambda_in_a_callee"]
HESSIANS = [name for name in HESSIANS if name in PROGRAMS]


@pytest.mark.parametrize("name", HESSIANS)
def test_hessian_matches_differences_of_the_gradient(name):
    fn, args = PROGRAMS[name]
    x, rest = args[0], args[1:]
    h = srcgrad.hessian(fn)(*args)
    grad = srcgrad.grad(fn)
    eps = 1e-5
    if isinstance(x, float):
        assert isinstance(h, float) or np.ndim(h) == 0
        np.testing.assert_allclose(h, (grad(x + eps, *rest) - grad(x - eps, *rest)) / (2 * eps), rtol=1e-5, atol=1e-6)
        return
    n = x.size
    h = np.asarray(h).reshape(n, n)
    columns = []
    for k in range(n):
        step = np.zeros(n)
        step[k] = eps
        step = step.reshape(x.shape)
        columns.append(((grad(x + step, *rest) - grad(x - step, *rest)) / (2 * eps)).ravel())
    np.testing.assert_allclose(h, np.array(columns).T, rtol=1e-5, atol=1e-5, err_msg=name)
    np.testing.assert_allclose(h, h.T, atol=1e-8, err_msg=name)


def test_analytic_gradients():
    # max of [1, 3, 2] picks entry 1; the product's gradient is the product of the others
    assert srcgrad.grad(lambda x: np.maximum.reduce(x))(np.array([1.0, 3.0, 2.0])).tolist() == [0, 1, 0]
    assert srcgrad.grad(lambda x: np.multiply.reduce(x))(np.array([2.0, 3.0, 0.0])).tolist() == [0, 0, 6]
    # sum(add.outer(x, y)) counts each x entry len(y) times
    assert srcgrad.grad(lambda x: np.sum(np.add.outer(x, np.ones(3))))(np.ones(2)).tolist() == [3, 3]
    if not NUMPY2:  # mean= and correction= below are NumPy 2's
        return
    # var(x, mean=m) = mean((x - m)^2): d/dx = 2 (x - m) / n and d/dm = -2 mean(x - m); at x = [1, 3], m = 0
    x = np.array([1.0, 3.0])
    assert srcgrad.grad(lambda x: np.var(x, mean=np.zeros(1)))(x).tolist() == [1.0, 3.0]
    assert srcgrad.grad(lambda m: np.var(x, mean=m))(np.zeros(1)).tolist() == [-4.0]
    # where= leaves x[1] out: var of [1, 5] with correction 1 is 8, d/dx = 2 (x - 3) / 1
    w = np.array([True, False, True])
    assert srcgrad.grad(lambda x: np.var(x, where=w, correction=1))(np.array([1.0, 9.0, 5.0])).tolist() == [-4, 0, 4]


def _key_reading_a_local(x):
    c = x[3]
    return max(x[:3], key=lambda t: abs(t - c)) * c


def test_a_key_lambda_reading_a_local_is_refused_at_its_line():
    line = _key_reading_a_local.__code__.co_firstlineno + 2
    for attempt in (lambda: srcgrad.grad(_key_reading_a_local)(np.ones(4)),
                    lambda: srcgrad.jvp(_key_reading_a_local, (np.ones(4),), (np.ones(4),))):
        with pytest.raises(srcgrad.NotDifferentiableError, match="reads `c`, a variable of `_key_reading_a_local`") as info:
            attempt()
        assert f"test_more_forms.py, line {line}" in str(info.value)


def _argsort_by_lambda(x):
    c = x[3]
    order = sorted(range(len(x) - 1), key=lambda i: abs(x[i] - c), reverse=True)
    return x[order[0]] * 2.0 + x[order[-1]] ** 2 * c


def _argmin_by_lambda(x):
    i = min(range(len(x)), key=lambda k: x[k] * x[k])
    j = max(range(len(x) - 4), key=lambda k: x[k], default=3)
    return x[i] * 3.0 + x[j]


def _argmax_by_a_nested_function(x):
    def score(k):
        return (x[k] - x[3]) ** 2

    i = max(range(3), key=score)
    return x[i] * x[3]


def test_sorted_min_max_of_a_range_by_a_key_lambda_reading_locals():
    """The positions are integers: the keys are computed in the function and the
    positions ordered by them (runtime.order_by); the gradient reaches the entries read
    at those positions only."""
    x = np.array([0.3, -1.2, 2.5, 0.7])  # |x - 0.7|: 0.4, 1.9, 1.8 -> order 1, 2, 0
    exact = np.array([0.0, 2.0, 0.0, 0.3 ** 2])
    exact[0] = 2 * 0.3 * 0.7
    df = srcgrad.grad(_argsort_by_lambda)
    for _ in range(2):
        np.testing.assert_allclose(df(x.copy()), exact, rtol=1e-14)
    np.testing.assert_allclose(numerical_grad(_argsort_by_lambda, [x], 0), exact, rtol=1e-6, atol=1e-8)
    t = np.array([1.0, 0.5, -2.0, 3.0])
    assert srcgrad.jvp(_argsort_by_lambda, (x,), (t,))[1] == pytest.approx(exact @ t, rel=1e-14)
    # argmin of x^2 is x[0]; max over an empty range is the default, 3
    np.testing.assert_allclose(srcgrad.grad(_argmin_by_lambda)(x.copy()), [3.0, 0.0, 0.0, 1.0], rtol=1e-14)
    assert "order_by('sorted', " in srcgrad.source(df)
    # key=score, a function defined in the function: (x - 0.7)^2 is largest at x[1]
    np.testing.assert_allclose(srcgrad.grad(_argmax_by_a_nested_function)(x.copy()), [0.0, 0.7, 0.0, -1.2], rtol=1e-14)


# --- refused at the call: a literal argument the rules do not handle --------------------


def _interp_periodic(x):
    return np.sum(np.interp(x, np.array([0.0, 1.0, 2.0]), np.array([0.0, 1.0, 0.5]), period=2.0))


def _pad_odd(x):
    return np.sum(np.pad(x, 2, mode="reflect", reflect_type="odd") ** 2)


def _cond_frobenius(x):
    return np.linalg.cond(x, "fro")


def _view_as_integers(x):
    return np.sum(x.view("int64") * x)


def _view_as_a_numpy_type(x):
    return np.sum(x.view(np.int64) * x)  # was a NotImplementedError when the derivative ran


REFUSED = [  # (function, argument, the text the error names, its line in the function, modes refused)
    (_interp_periodic, R(3), "`period=None` only, not `period=2.0`", 1, ("grad", "jvp")),
    (_pad_odd, R(4), "`reflect_type='even'` only, not `reflect_type='odd'`", 1, ("grad",)),
    (_cond_frobenius, R(3, 3), "`p=None or 2 or -2` only, not `p='fro'`", 1, ("grad", "jvp")),
    (_view_as_integers, R(3), "`dtype=None` only, not `dtype='int64'`", 1, ("grad", "jvp")),
    (_view_as_a_numpy_type, R(3), "`dtype=None` only, not `dtype=np.int64`", 1, ("grad", "jvp")),
]


@pytest.mark.parametrize("fn,x,text,line,modes", REFUSED, ids=[r[0].__name__ for r in REFUSED])
def test_a_literal_the_rules_do_not_handle_is_refused_at_its_line(fn, x, text, line, modes):
    where = f"test_more_forms.py, line {fn.__code__.co_firstlineno + line}"
    attempts = {"grad": lambda: srcgrad.grad(fn)(x), "jvp": lambda: srcgrad.jvp(fn, (x,), (np.ones_like(x),))}
    for mode in modes:
        with pytest.raises(srcgrad.NotDifferentiableError) as info:
            attempts[mode]()
        assert text in str(info.value) and where in str(info.value), (mode, str(info.value))
    if "jvp" not in modes:  # reflect_type='odd' has a forward rule
        out, tangent = srcgrad.jvp(fn, (x,), (np.ones_like(x),))
        assert np.isfinite(tangent)


def _interp_without_period(x):
    return np.sum(np.interp(x, np.array([0.0, 1.0, 2.0]), np.array([0.0, 1.0, 0.5]), period=None))


def test_the_supported_literal_passes():
    x = np.array([0.3, 1.4])
    assert srcgrad.grad(_interp_without_period)(x).tolist() == [1.0, -0.5]


# --- said at run time: values only known then ---------------------------------------------


def _cross_2d(x):
    return np.sum(np.cross(x[:2], np.array([1.0, 2.0])))


def _qr_complete_tall(x):
    q, r = np.linalg.qr(x, mode="complete")
    return np.sum(q ** 3)


METHOD = "inverted_cdf"  # a global: its value comes at run time


def _weighted_quantile(x):
    return np.quantile(x, 0.3, method=METHOD, weights=np.ones(4))


@pytest.mark.filterwarnings("ignore:Arrays of 2-dimensional vectors are deprecated:DeprecationWarning")
@pytest.mark.parametrize("fn,x,text", [
    (_cross_2d, R(3), "`x[..., 0] * y[..., 1] - x[..., 1] * y[..., 0]`"),
    (_qr_complete_tall, R(4, 2), "use mode='reduced'"),
    pytest.param(_weighted_quantile, R(4), "without weights only, not weights=",
                 marks=pytest.mark.skipif(not NUMPY2, reason="weights= is NumPy 2's")),
])
def test_run_time_refusals_say_what_to_write(fn, x, text):
    if fn is _cross_2d and not _cross_of_2_vectors():  # NumPy 2.5 removed it: the function raises itself
        with pytest.raises(ValueError) as primal:
            fn(x)
        with pytest.raises(ValueError, match=re.escape(str(primal.value))):
            srcgrad.grad(fn)(x)
        return
    with pytest.raises(NotImplementedError, match=re.escape(text)):
        srcgrad.grad(fn)(x)


def _cross_of_2_vectors():
    """Whether this NumPy computes np.cross of 2-element vectors (deprecated in 2.0, gone in 2.5)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        try:
            np.cross(np.array([1.0, 0.0]), np.array([0.0, 1.0]))
        except ValueError:
            return False
    return True


# --- supported instead of refused -----------------------------------------------------------


def _hermitian(x):
    s = x @ x.T + np.eye(3)
    return np.sum(np.linalg.svd(s, hermitian=True)[1] ** 2) + np.sum(np.linalg.pinv(s, hermitian=True) ** 2)


def _weighted_cov(x):
    rows = np.stack([x, x ** 2, np.sin(x)])
    return (np.sum(np.cov(rows, fweights=np.array([1, 2, 1, 3])) ** 2)
            + np.sum(np.cov(rows[:2], x[::-1], aweights=[0.5, 2.0, 1.0, 0.3], ddof=2) * np.arange(9.0).reshape(3, 3)))


def _getattr_reads(x):
    return np.sum(getattr(x, "T") @ x) + np.sum(getattr(x, "mT") * x.T) + float(x[0, 0]).real * x[1, 1]


SUPPORTED = {"hermitian": (_hermitian, R(3, 3)), "weighted_cov": (_weighted_cov, R(4)),
             **({"getattr_reads": (_getattr_reads, R(3, 3))} if NUMPY2 else {})}  # x.mT: NumPy 2


@pytest.mark.parametrize("name", sorted(SUPPORTED))
def test_supported_instead_of_refused(name):
    fn, x = SUPPORTED[name]
    g = srcgrad.grad(fn)(x)
    np.testing.assert_allclose(g, numerical_grad(fn, [x], 0), rtol=1e-5, atol=1e-6)
    t = np.random.default_rng(3).standard_normal(x.shape)
    np.testing.assert_allclose(srcgrad.jvp(fn, (x,), (t,))[1], np.sum(g * t), rtol=1e-8)
