"""Scientific, statistical and Python-shaped programs from a hunt for wrong derivatives
(science_programs.py; `hunt_science.py` runs every transform on each). The first tests
each once failed:

- log-space dynamic programs (CTC, a left-to-right HMM) meet logaddexp(-inf, -inf) and
  slices of only -inf in np.logaddexp.reduce and logsumexp: their rules computed
  exp(-inf - -inf) = nan for a zero cotangent, and the gradient was nan where central
  differences give a number;
- the Jacobian of a float64 output (an np.float64 scalar) with respect to a float32
  input was float32: np.float64 is a subclass of float, and was taken as a weak Python
  float;
- a nested function calling itself and another nested function was run in the module's
  globals, where that other function is not: NameError, or with a global of the same
  name a silently wrong gradient (0.0 for 1.3125); it is refused with the names it reads;
- a dataclass field holding a list of which only some entries are differentiated had None
  for the tangents of the others, and forward mode raised in `w_dot @ h`;
- `for k in sorted(params): params[k] = ...` on a dict of parameters was refused as making
  a differentiated value a dict's key;
- `f = lambda v: ...` in a loop's body or a branch was refused as a lambda not assigned
  to a name;
- `{k: np.zeros_like(v) for k, v in params.items()}` (Adam's state in dicts) was refused
  as making a differentiated value a key;
- the Hessian of a function building dict keys with `f"w{i}"` in a loop was refused: in
  the gradient's code the loop counter looked differentiated.

`np.put_along_axis` into an array the function makes, `sorted(d.items())` of a dict it
makes, and nested functions with keyword-only parameters are now differentiated (they
were refused). np.where over a branch outside its domain stays nan in reverse mode, as
docs/tutorial.md says.
"""

import sys
from dataclasses import dataclass

import numpy as np
import pytest

try:  # SciPy is no dependency of srcgrad: its case runs where it is installed
    import scipy.special as sps
except ImportError:
    sps = None

import science_programs
import srcgrad
from conftest import numerical_grad
from program_checks import check, check_hessian

NEG_INF = -np.inf

# --- log-space dynamic programs -----------------------------------------------------------


def ctc_alpha(log_probs):
    """The alignment table of the labels 1 2 1 (blank 0) starts at -inf: states no path
    reaches yet are logaddexp(-inf, -inf)."""
    ext = [0, 1, 0, 2, 0, 1, 0]
    T, S = log_probs.shape[0], len(ext)
    alpha = np.full((T, S), NEG_INF)
    alpha[0, 0] = log_probs[0, 0]
    alpha[0, 1] = log_probs[0, 1]
    for t in range(1, T):
        for s in range(S):
            a = alpha[t - 1, s]
            if s >= 1:
                a = np.logaddexp(a, alpha[t - 1, s - 1])
            if s >= 2 and ext[s] != 0 and ext[s] != ext[s - 2]:
                a = np.logaddexp(a, alpha[t - 1, s - 2])
            alpha[t, s] = a + log_probs[t, ext[s]]
    return np.logaddexp(alpha[T - 1, S - 1], alpha[T - 1, S - 2])


def logaddexp2_unreached(x):
    start = np.logaddexp2(NEG_INF, NEG_INF) + x[0]
    return np.logaddexp2(np.logaddexp2(start, NEG_INF), x[1]) + np.logaddexp2(x[1], x[1])


# a left-to-right chain: log 0 = -inf leaves the later states unreached at first
_LOG_A = np.array([[np.log(0.7), np.log(0.3), NEG_INF], [NEG_INF, np.log(0.6), np.log(0.4)], [NEG_INF, NEG_INF, 0.0]])


def hmm_logaddexp_reduce(x):
    la = np.array([0.0, NEG_INF, NEG_INF]) + x
    for _ in range(2):
        la = np.logaddexp.reduce(la[:, None] + _LOG_A, axis=0) + x
    return np.logaddexp.reduce(la)


def hmm_logaddexp2_reduce(x):
    la = np.array([0.0, NEG_INF, NEG_INF]) + x
    la = np.logaddexp2.reduce(la[:, None] + _LOG_A, axis=0) + x
    return np.logaddexp2.reduce(la)


def hmm_scipy_logsumexp(x):
    la = np.array([0.0, NEG_INF, NEG_INF]) + x
    for _ in range(2):
        la = sps.logsumexp(la[:, None] + _LOG_A, axis=0) + x
    return sps.logsumexp(la, b=np.array([1.0, 2.0, 0.5]))


@pytest.mark.parametrize("f, x", [
    (ctc_alpha, np.log(np.random.default_rng(3).dirichlet(np.ones(3), size=5))),
    (logaddexp2_unreached, np.array([0.3, -0.4])),
    (hmm_logaddexp_reduce, np.array([0.1, -0.2, 0.3])),
    (hmm_logaddexp2_reduce, np.array([0.1, -0.2, 0.3])),
    pytest.param(hmm_scipy_logsumexp, np.array([0.1, -0.2, 0.3]),
                 marks=pytest.mark.skipif(sps is None, reason="needs SciPy")),
], ids=lambda v: getattr(v, "__name__", ""))
def test_states_no_path_reaches_pass_on_no_gradient_not_nan(f, x):
    with np.errstate(invalid="ignore"):  # the primal's own -inf - -inf
        (g,) = check(f, x)
        assert np.all(np.isfinite(g))
        np.testing.assert_array_equal(srcgrad.grad(f)(x), g)  # the specialized code
        check_hessian(f, (x,), 0)


def test_logaddexp_shares_equal_arguments_and_keeps_the_hand_written_form():
    def both(x, y):
        return np.logaddexp(x, y) + np.logaddexp2(y, x)

    assert srcgrad.grad(both, wrt=(0, 1))(0.3, 0.3) == (0.5 + 0.5, 0.5 + 0.5)
    assert srcgrad.grad(both, wrt=(0, 1))(NEG_INF, NEG_INF) == (1.0, 1.0)
    assert srcgrad.grad(both, wrt=(0, 1))(np.inf, np.inf) == (1.0, 1.0)
    g = srcgrad.grad(both, wrt=(0, 1))(np.nan, 0.2)
    assert np.isnan(g[0]) and np.isnan(g[1])  # nan still shows

    def softplus(z):
        return np.sum(np.logaddexp(0.0, z))

    z = np.array([-1.0, 0.0, 2.0])
    np.testing.assert_allclose(srcgrad.grad(softplus)(z), 1 / (1 + np.exp(-z)), rtol=1e-15)
    # a finite literal cannot tie at infinity: no guard (inline.py)
    assert "where" not in srcgrad.source(srcgrad.grad(softplus))


# --- Jacobian dtypes ----------------------------------------------------------------------


def float64_of_float32(p):
    xs = np.linspace(0.0, 1.0, 5)
    return np.sum(np.exp(-p[0] * xs) * p[1])


def test_the_jacobian_of_a_float64_output_of_a_float32_input_is_float64():
    p = np.array([1.3, 2.0], np.float32)
    assert type(float64_of_float32(p)) is np.float64
    for mode in ("forward", "reverse"):
        J = srcgrad.jacobian(float64_of_float32, mode=mode)(p)
        assert J.dtype == np.float64 and J.shape == (2,)
        np.testing.assert_allclose(J, numerical_grad(float64_of_float32, (p.astype(np.float64),), 0), rtol=1e-6)
    assert srcgrad.grad(float64_of_float32)(p).dtype == np.float32  # a gradient keeps its input's dtype


# --- recursive nested functions -------------------------------------------------------


def f(x):  # a global the nested `f` below shadows
    return 100.0 * x


def recursion_through_a_sibling(w):
    def f(x):
        return w * x * x

    def rec(a, depth):
        if depth <= 0:
            return f(a)
        return rec(a * 0.5, depth - 1) + f(a)

    return rec(1.0, 2)


def recursion_through_a_pure_sibling(w):
    def f(x):
        return x * x

    def rec(a, depth):
        if depth <= 0:
            return f(a)
        return rec(a * 0.5, depth - 1) + a

    return rec(w, 2)


def test_a_recursive_nested_function_calling_another_nested_function_is_refused():
    """Such a function was made a real function run in the module's globals: the call of
    the sibling `f` reached the global `f` (or raised NameError), and `w` was not seen
    (a gradient of zero)."""
    for fn in (recursion_through_a_sibling, recursion_through_a_pure_sibling):
        with pytest.raises(srcgrad.SrcGradError, match=r"`rec` calls itself and reads variables of .*\(`f`; in"):
            srcgrad.grad(fn)(1.3)
        with pytest.raises(srcgrad.SrcGradError, match="`rec` calls itself"):
            srcgrad.jvp(fn, (1.3,), (1.0,))


def recursion_of_its_own(w):
    def rec(a, depth):
        if depth <= 0:
            return a * a
        return rec(a * 0.5, depth - 1) + a

    return rec(w, 2)


def test_a_recursive_nested_function_reading_nothing_of_the_function_is_differentiated():
    check(recursion_of_its_own, 1.3, expected=[2 * 1.3 / 16 + 1.5])


# --- records holding lists, in forward mode ------------------------------------------------


@dataclass
class _Layers:
    weights: list
    bias: np.ndarray


def record_of_a_list(w0, w1, b):
    p = _Layers([w0, w1], b)
    h = b.copy()
    for w in p.weights:
        h = np.tanh(w @ h + p.bias)
    return np.sum(h ** 2)


def test_a_record_field_holding_a_list_has_zero_tangents_for_its_constant_entries():
    """Differentiated in w0 alone, the tangent of `p.weights[1]` was None, and
    `w_dot @ h` raised (forward mode, so jvp, jacobian and hessian)."""
    rng = np.random.default_rng(4)
    args = (0.5 * rng.normal(size=(3, 3)), 0.5 * rng.normal(size=(3, 3)), rng.normal(size=3))
    grads = check(record_of_a_list, *args)
    for k in range(3):
        tangents = [None, None, None]
        tangents[k] = np.ones_like(args[k])
        _, out_dot = srcgrad.jvp(record_of_a_list, args, tuple(tangents))
        np.testing.assert_allclose(out_dot, np.sum(grads[k]), rtol=1e-12)
        np.testing.assert_allclose(srcgrad.jacobian(record_of_a_list, wrt=k, mode="forward")(*args), grads[k], rtol=1e-12)
    check_hessian(record_of_a_list, args, 0)


# --- the keys of a dict, sorted ---------------------------------------------------------------


def sgd_on_a_dict_of_parameters(W, b):
    params = {"W": W, "b": b}
    grads = {"W": W * 0.1, "b": b * 0.2}
    for k in sorted(params):
        params[k] = params[k] - 0.3 * grads[k]
    return np.sum(params["W"] ** 2) + np.sum(params["b"] ** 3)


def dict_comprehension_over_sorted_keys(W, b):
    params = {"W": W, "b": b}
    scaled = {k: params[k] * (2.0 if k == "W" else 0.5) for k in sorted(params, reverse=True)}
    names = tuple(scaled)
    for k in reversed(scaled):
        scaled[k] = scaled[k] + np.sum(scaled[names[0]])
    return np.sum(scaled["W"] ** 2) + np.sum(scaled["b"] ** 3)


_X52 = np.random.default_rng(2).normal(size=(5, 2))
_Y5 = np.random.default_rng(3).normal(size=5)


def adam_with_dicts_of_state(W, b):
    params = {"W": W, "b": b}
    m = {k: np.zeros_like(v) for k, v in params.items()}
    v2 = {k: np.zeros_like(v) for k, v in params.items()}
    for t in range(1, 3):
        h = np.tanh(_X52 @ params["W"] + params["b"])
        dh = (h - _Y5[:, None]) * (1 - h ** 2)
        grads = {"W": _X52.T @ dh / 5, "b": dh.mean(axis=0)}
        for k in params:
            m[k] = 0.9 * m[k] + 0.1 * grads[k]
            v2[k] = 0.99 * v2[k] + 0.01 * grads[k] ** 2
            params[k] = params[k] - 0.1 * (m[k] / (1 - 0.9 ** t)) / (np.sqrt(v2[k] / (1 - 0.99 ** t)) + 1e-8)
    h = np.tanh(_X52 @ params["W"] + params["b"])
    return np.sum((h - _Y5[:, None]) ** 2)


def test_the_key_of_a_pair_of_dict_items_carries_no_derivative():
    """`{k: np.zeros_like(v) for k, v in params.items()}` was refused as making a
    differentiated value a key: `k = item[0]` of the pair took the pair's derivative."""
    W, b = np.array([[0.3], [-0.7]]), np.array([0.1])
    check(adam_with_dicts_of_state, W, b)
    check_hessian(adam_with_dicts_of_state, (W, b), 1)


def test_sorted_and_listed_keys_of_a_dict_carry_no_derivative():
    """`for k in sorted(params): params[k] = ...` was refused as making a differentiated
    value a key: the keys were taken as computed from the dict's values."""
    W, b = np.array([[0.5], [-1.2]]), np.array([0.3])
    gW, gb = check(sgd_on_a_dict_of_parameters, W, b)
    np.testing.assert_allclose(gW, 2 * 0.97 ** 2 * W, rtol=1e-12)
    np.testing.assert_allclose(gb, 3 * 0.94 ** 3 * b ** 2, rtol=1e-12)
    check(dict_comprehension_over_sorted_keys, W, b)
    check_hessian(sgd_on_a_dict_of_parameters, (W, b), 0)
    check_hessian(dict_comprehension_over_sorted_keys, (W, b), 1)

    def key_of_a_value(W, b):
        d = {"W": W}
        d[sorted(d)[0] + str(np.sum(b) > 0)] = b  # a key made of a constant: still fine
        return np.sum(d["WTrue"] * 2.0) + np.sum(d["W"])

    check(key_of_a_value, W, b)


# --- np.where over a branch outside its domain (docs/tutorial.md) --------------------------


def root_where_positive(x):
    return np.sum(np.where(x > 0, np.sqrt(x), 0.0))


def root_where_positive_kept_in_domain(x):
    return np.sum(np.where(x > 0, np.sqrt(np.where(x > 0, x, 1.0)), 0.0))


def test_an_unchosen_branch_outside_its_domain_is_nan_in_reverse_mode_as_documented():
    x = np.array([-1.0, 0.25, 4.0])
    with np.errstate(invalid="ignore"):
        g = srcgrad.grad(root_where_positive)(x)
        _, out_dot = srcgrad.jvp(root_where_positive, (x,), (np.ones(3),))
    assert np.isnan(g[0]) and np.allclose(g[1:], [1.0, 0.25])
    assert out_dot == 1.25  # forward mode chooses after differentiating
    (g,) = check(root_where_positive_kept_in_domain, x)
    np.testing.assert_allclose(g, [0.0, 1.0, 0.25], rtol=1e-15)


# --- sorted(d.items()), and keys formatted as text, in a Hessian ---------------------------


def sorted_items_of_a_dict(x):
    d = {f"w{i}": x[i] * (i + 1) for i in range(len(x))}
    total = 0.0
    for k, v in sorted(d.items(), reverse=True):
        total = total * 0.5 + v * len(k)
    pairs = sorted(d.items())
    return total + pairs[0][1] * pairs[-1][1] + sum(v ** 2 for k, v in sorted(d.items()) if k != "w1")


def keys_formatted_in_a_loop(x):
    d = {}
    for i in range(len(x)):
        d[f"w{i}"] = x[i] * (i + 1)
    return d["w0"] ** 2 + d["w2"] * d["w1"]


def test_sorted_items_of_a_dict_the_function_makes_are_its_pairs_in_key_order():
    """`sorted(d.items())` was refused (no rule for `.items()` outside a loop's header)."""
    x = np.array([0.5, -1.2, 2.0])
    w = x * np.arange(1, 4)  # the values under w0, w1, w2
    total = np.array([1.0, 0.5, 0.25]) * 2  # w0, w1, w2: halved not, once, twice (the loop runs w2 first); len(k) == 2
    first_times_last = np.array([w[2], 0.0, w[0]])
    squares = 2 * w * np.array([1.0, 0.0, 1.0])  # not w1
    check(sorted_items_of_a_dict, x, expected=[(total + first_times_last + squares) * np.arange(1, 4)])
    check_hessian(sorted_items_of_a_dict, (x,), 0)


def test_the_hessian_of_a_function_with_keys_formatted_from_its_loop_counter():
    """The gradient's code, differentiated again, was refused as formatting a differentiated
    value as text (`f"w{i}"`): its tape made the loop counter look differentiated."""
    x = np.array([0.5, -1.2, 2.0])
    check(keys_formatted_in_a_loop, x)
    check_hessian(keys_formatted_in_a_loop, (x,), 0, expected=np.array([[2.0, 0, 0], [0, 0, 6.0], [0, 6.0, 0]]))


# --- a lambda named in a block ---------------------------------------------------------------


def lambda_in_a_loop(y0, k):
    y, h, ys = y0, 0.1, []
    for step in range(3):
        f = lambda v: np.array([v[1], -k * v[0] - 0.1 * step * v[1]])  # noqa: E731
        k1 = f(y)
        k2 = f(y + h * k1)
        y = y + h / 2 * (k1 + k2)
        ys.append(y[0])
    return sum(ys)


def lambda_in_branches(x, smooth):
    if smooth:
        act = lambda v: np.log1p(np.exp(v))  # noqa: E731
    else:
        act = lambda v: np.maximum(v, 0.0)  # noqa: E731
    return np.sum(act(x) * x)


def test_a_lambda_named_in_a_loop_or_a_branch_is_the_def_it_means():
    """`f = lambda v: ...` in a loop's body was refused as a lambda not assigned to a name
    (docs/errors.md says a helper made by `name = lambda ...` may be defined in a loop)."""
    check(lambda_in_a_loop, np.array([1.0, 0.2]), 2.0)
    check_hessian(lambda_in_a_loop, (np.array([1.0, 0.2]), 2.0), 0)
    x = np.array([0.3, -1.2, 2.0])
    for smooth, expected in ((True, np.log1p(np.exp(x)) + x / (1 + np.exp(-x))), (False, 2 * np.maximum(x, 0.0))):
        g = srcgrad.grad(lambda_in_branches, wrt=0)(x, smooth)
        np.testing.assert_allclose(g, expected, rtol=1e-12)


# --- nested functions with keyword-only parameters ---------------------------------------------


def nested_keyword_only(x):
    k = x[1] * 3.0

    def shifted(v, *, shift=0.5, power):
        return (v + shift) ** power * k

    return np.sum(shifted(x, power=2)) + np.sum(shifted(x, shift=x[0], power=3))


def test_a_nested_function_with_keyword_only_parameters_is_inlined():
    """It was refused as needing plain parameters."""
    x = np.array([0.5, -1.2, 2.0])
    check(nested_keyword_only, x)
    check_hessian(nested_keyword_only, (x,), 0)

    def wrong_keyword(x):
        def g(v, *, s=1.0):
            return v * s
        return np.sum(g(x, t=2.0))

    with pytest.raises(TypeError, match="unexpected keyword argument 't'"):
        srcgrad.grad(wrong_keyword)(x)


# --- the corpus ---------------------------------------------------------------------------


def _differentiated(args):
    return [i for i, a in enumerate(args) if isinstance(a, float) or (isinstance(a, np.ndarray) and a.dtype.kind == "f")]


def _leaves(value):
    if isinstance(value, dict):
        return [leaf for k in sorted(value) for leaf in _leaves(value[k])]
    if isinstance(value, (tuple, list)):
        return [leaf for v in value for leaf in _leaves(v)]
    return [np.asarray(value, dtype=np.float64)]


def _check_jacobians(f, args, wrt):
    """A function with an array, tuple or dict result: its Jacobian in both modes, leaf
    by leaf, against central differences, and the second call's."""
    for i in wrt:
        x = np.asarray(args[i], dtype=np.float64)
        numeric = []  # per output leaf: out_leaf.shape + x.shape
        for k in np.ndindex(x.shape):
            moved = []
            for step in (1e-6, -1e-6):
                shifted = x.copy()
                shifted[k] += step
                a = list(args)
                a[i] = shifted if isinstance(args[i], np.ndarray) else float(shifted)
                moved.append(_leaves(f(*a)))
            numeric.append([(p - m) / 2e-6 for p, m in zip(*moved)])
        for mode in ("forward", "reverse"):
            J = srcgrad.jacobian(f, wrt=i, mode=mode)(*args)
            again = srcgrad.jacobian(f, wrt=i, mode=mode)(*args)
            for n, (block, block_again) in enumerate(zip(_leaves(J), _leaves(again))):
                expected = np.moveaxis(np.array([column[n] for column in numeric]), 0, -1).reshape(block.shape)
                np.testing.assert_allclose(block, expected, rtol=1e-6, atol=1e-7)
                np.testing.assert_array_equal(block, block_again)


@pytest.mark.parametrize("area, f, args, opts", science_programs.CASES, ids=lambda v: getattr(v, "__name__", ""))
def test_the_corpus_of_science_programs(area, f, args, opts):
    wrt = _differentiated(args)
    if area == "vector":
        before = [np.copy(a) for a in args]
        _check_jacobians(f, args, wrt)
        for a, b in zip(args, before):
            np.testing.assert_array_equal(a, b)
        return
    if opts.get("fd") is False:  # float32 arguments: float32 gradients, those of float64 to float32's precision
        grads = srcgrad.grad(f, wrt=tuple(wrt))(*args)
        wide = srcgrad.grad(f, wrt=tuple(wrt))(*(a.astype(np.float64) for a in args))
        for g, w in zip(grads, wide):
            assert g.dtype == np.float32
            np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)
        assert srcgrad.hessian(f, wrt=0)(*args).dtype == np.float32
        return
    with np.errstate(invalid="ignore"):
        if len(wrt) == len(args):
            grads = check(f, *args)
        else:  # integer arguments stay as they are
            grads = srcgrad.grad(f, wrt=tuple(wrt))(*args)
            for i, g in zip(wrt, grads):
                np.testing.assert_allclose(g, numerical_grad(f, args, i), rtol=1e-6, atol=1e-7)
        again = srcgrad.grad(f, wrt=tuple(wrt))(*args)  # the code specialized to this kind of call
        for a, b in zip(grads, again):
            np.testing.assert_array_equal(a, b)
        if opts.get("hess") and not opts.get("slow"):
            check_hessian(f, args, wrt[0])


# --- np.put_along_axis ----------------------------------------------------------------------


def put_repeated(A, v):
    out = np.zeros_like(A)
    idx = np.array([[0, 2, 0], [1, 1, -1]])  # places named twice keep the value written last
    np.put_along_axis(out, idx, v * A[:, :1], axis=-1)
    return np.sum(out ** 2 * A)


def put_flat(x, v):
    y = x * 2.0
    np.put_along_axis(y, np.array([3, 0, 3]), v ** 2, None)
    return np.sum(np.sin(y))


def put_sorted_cumsum(A):
    y = A.copy()
    order = np.argsort(A, axis=0)
    np.put_along_axis(y, order, values=np.cumsum(np.take_along_axis(A, order, axis=0), axis=0), axis=0)
    return np.sum(y * A)


def put_in_a_loop(A):
    y = np.zeros_like(A)
    for k in range(A.shape[1]):
        np.put_along_axis(y, np.full((A.shape[0], 1), k), A[:, k:k + 1] * (k + 1.0), axis=1)
    return np.sum(y ** 3)


_A23 = np.array([[0.3, -1.2, 0.8], [1.5, 0.4, -0.6]])


def test_put_along_axis_into_an_array_the_function_makes_is_a_write_through_integer_arrays():
    v = np.array([1.0, 2.0, 3.0])
    out = np.zeros_like(_A23)
    out[0, 2], out[0, 0], out[1, 1], out[1, 2] = 2.0 * 0.3, 3.0 * 0.3, 2.0 * 1.5, 3.0 * 1.5
    gv = np.array([0.0, 2 * out[0, 2] * 0.3 * _A23[0, 2] + 2 * out[1, 1] * 1.5 * _A23[1, 1],
                   2 * out[0, 0] * 0.3 * _A23[0, 0] + 2 * out[1, 2] * 1.5 * _A23[1, 2]])
    _, g = check(put_repeated, _A23, v)
    np.testing.assert_allclose(g, gv, rtol=1e-12)  # v[0] was written over: no gradient
    check_hessian(put_repeated, (_A23, v), 0)
    x, w = np.array([0.3, 0.1, -0.5, 0.7]), np.array([0.2, 0.4, 0.6])
    check(put_flat, x, w)
    check_hessian(put_flat, (x, w), 1)
    for f in (put_sorted_cumsum, put_in_a_loop):
        check(f, _A23)
        check_hessian(f, (_A23,), 0)
    assert "along_axis" in srcgrad.source(srcgrad.grad(put_repeated))


def test_put_along_axis_into_a_parameter_is_still_refused():
    def into_parameter(y, idx, v):
        np.put_along_axis(y, idx, v, axis=0)
        return np.sum(y)

    with pytest.raises(srcgrad.NotDifferentiableError, match="may change a differentiated value in place"):
        srcgrad.grad(into_parameter, wrt=2)(np.zeros(3), np.array([1]), np.array([2.0]))


@pytest.mark.parametrize("f, args, message", science_programs.REFUSED, ids=lambda v: getattr(v, "__name__", ""))
def test_the_programs_srcgrad_refuses_are_refused_at_their_line(f, args, message):
    transforms = [lambda: srcgrad.grad(f)(*args)]
    if f.__name__ in science_programs.REFUSED_IN_REVERSE_ONLY:
        _, out_dot = srcgrad.jvp(f, args, tuple(np.ones_like(a) for a in args))
        np.testing.assert_allclose(out_dot, sum(np.sum(numerical_grad(f, args, i)) for i in range(len(args))), rtol=1e-6)
    else:
        transforms.append(lambda: srcgrad.jvp(f, args, tuple(np.ones_like(a) for a in args)))
    for transform in transforms:
        with pytest.raises(srcgrad.SrcGradError, match=message) as raised:
            transform()
        # a refusal at build time names the line in its message, one while the derivative
        # runs (a runtime check) in the note naming the generated line and the user's
        if sys.version_info >= (3, 11) or raised.value.filename is not None:  # notes: Python 3.11
            assert "science_programs.py" in str(raised.value) + "".join(getattr(raised.value, "__notes__", []))
