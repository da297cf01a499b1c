"""Numerical programs (linear algebra, FFT-free signal code, indexing, sorting and
statistics, pure-Python scalar code) from a hunt for wrong derivatives; the first tests
each once failed, the corpus at the end passed (`hunt_numerics.py` runs every transform
on the whole of numerics_programs.py, and JAX where it is installed).

- A `for` loop (or a comprehension) over the result of a NumPy call with a rule, `for r
  in np.tanh(A)`, `for g in np.gradient(A)`, `for p in np.split(x, 2)`, runs the call
  once before the loop and reads its result by index (it was refused as iterating over
  something that carries the derivative into the loop variable).
- np.quantile, np.percentile and their nan* forms differentiate every method NumPy
  defines ('hazen', 'weibull', 'median_unbiased', 'lower', 'nearest', 'midpoint',
  'inverted_cdf', ...), `x` and `q` (they were refused for all but 'linear').
"""

import numpy as np
import pytest

import numerics_programs
import srcgrad
from conftest import numerical_grad
from program_checks import check, check_hessian

# --- a loop over the result of a NumPy call ---------------------------------------------


def rows_of_tanh(A):
    s = 0.0
    for r in np.tanh(A):
        s = s + np.sum(r ** 2) * r[0]
    return s


def parts_of_split(x):
    s = 0.0
    for k, p in enumerate(np.split(x, 2)):
        s = s + (k + 1.0) * np.sum(p ** 3)
    return s


def squared_gradients(A):
    return sum(np.sum(g ** 2) for g in np.gradient(A))


def rows_of_reshape(A):
    return sum([np.prod(r) for r in A.reshape(3, 2)])


def collected_rows(A):
    out = []
    for r in np.exp(A):
        out.append(r * r[::-1])
    return np.sum(np.stack(out) ** 2)


def test_a_loop_over_a_numpy_calls_result_reads_it_by_index():
    A = np.array([[0.2, -0.5, 0.9], [1.1, 0.3, -0.7]])
    x = np.array([0.4, -1.2, 0.8, 0.5])
    t = np.tanh(A)
    expected = np.zeros_like(A)
    for i in range(2):  # d/dA of sum(t_i ** 2) * t_i0, through tanh' = 1 - t ** 2
        dt = 2 * t[i] * t[i, 0]
        dt[0] += np.sum(t[i] ** 2)
        expected[i] = dt * (1 - t[i] ** 2)
    check(rows_of_tanh, A, expected=[expected])
    check(parts_of_split, x, expected=[np.concatenate([3 * x[:2] ** 2, 6 * x[2:] ** 2])])
    check(squared_gradients, A)
    check(rows_of_reshape, A)
    check(collected_rows, A)
    check_hessian(rows_of_tanh, (A,), 0)
    check_hessian(squared_gradients, (A,), 0)


def test_a_loop_over_a_call_of_a_user_function_is_still_refused_with_advice():
    def helper(A):
        return A * 2.0

    def f(A):
        s = 0.0
        for r in helper(A):
            s = s + np.sum(r)
        return s

    with pytest.raises(srcgrad.SrcGradError, match="iterate over a list, tuple or array"):
        srcgrad.grad(f)(np.ones((2, 2)))


# --- quantile methods ------------------------------------------------------------------


def quantile_of(method):
    def f(x, q):
        return np.quantile(x, q, method=method)
    f.__name__ = f"quantile_{method}"
    return f


def percentiles_of(method):
    def f(A, q):
        return np.sum(np.percentile(A, [100 * q, 80.0], axis=1, method=method) ** 2) + np.sum(np.nanquantile(A, q, axis=0, method=method))
    f.__name__ = f"percentiles_{method}"
    return f


# x sorted is 1, 2, 3, 4, 5 (at positions 1, 2, 0, 4, 3); at q = 0.35 NumPy interpolates
# at rank 1.4 ('linear': (n - 1) q), 1.25 ('hazen': n q - 1/2), 1.1 ('weibull': (n + 1) q - 1)
@pytest.mark.parametrize("method, weight_on_2, dq", [
    ("linear", 0.6, 4.0), ("hazen", 0.75, 5.0), ("weibull", 0.9, 6.0), ("lower", 1.0, 0.0), ("higher", 0.0, 0.0),
    ("nearest", 1.0, 0.0), ("midpoint", 0.5, 0.0), ("inverted_cdf", 1.0, 0.0),
])
def test_every_quantile_method_of_numpy_has_its_derivative(method, weight_on_2, dq):
    x, q = np.array([3.0, 1.0, 2.0, 5.0, 4.0]), 0.35
    gx = np.zeros(5)
    gx[2], gx[0] = weight_on_2, 1.0 - weight_on_2  # the entries 2 and 3 (ranks 1 and 2)
    check(quantile_of(method), x, q, expected=[gx, dq])
    A = np.array([[0.3, -1.2, 0.8, 2.0, 0.1], [1.5, 0.4, -0.6, 0.9, -2.2]])
    check(percentiles_of(method), A, 0.29)


@pytest.mark.skipif(np.lib.NumpyVersion(np.__version__) < "2.0.0", reason="np.quantile's weights= is NumPy 2's")
def test_a_weighted_quantile_is_still_refused():
    def f(x):
        return np.quantile(x, 0.3, method="inverted_cdf", weights=np.ones(3))

    with pytest.raises(NotImplementedError, match="without weights"):
        srcgrad.grad(f)(np.array([1.0, 3.0, 2.0]))


# --- the corpus ------------------------------------------------------------------------


def _differentiated(args):
    return [i for i, a in enumerate(args) if isinstance(a, float) or (isinstance(a, np.ndarray) and a.dtype.kind == "f")]


NUMPY2 = np.lib.NumpyVersion(np.__version__) >= "2.0.0"
CORPUS = [c for c in numerics_programs.CASES if c[1].__name__ in numerics_programs.CORPUS
          and (NUMPY2 or c[1].__name__ not in numerics_programs.NUMPY2_ONLY)]


@pytest.mark.parametrize("area, f, args, opts", CORPUS, ids=lambda v: getattr(v, "__name__", ""))
def test_the_corpus_of_numerical_programs(area, f, args, opts):
    wrt = _differentiated(args)
    if len(wrt) == len(args):
        check(f, *args)
    else:  # integer arguments stay as they are
        grads = srcgrad.grad(f, wrt=tuple(wrt))(*args)
        for i, g in zip(wrt, grads):
            np.testing.assert_allclose(g, numerical_grad(f, args, i), rtol=1e-6, atol=1e-7)
    if opts.get("hess") and f.__name__ in numerics_programs.CORPUS_HESSIAN:
        check_hessian(f, args, wrt[0])
