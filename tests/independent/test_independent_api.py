"""Independent suite: API contract (types, wrt, errors), unsupported constructs (error type,
file and line), srcgrad.source round trip, and forward mode / jacobian / hessian vs JAX."""

import re

import numpy as np
import pytest

import srcgrad
import indep_programs as P
import indep_unsupported as U

try:
    import jax
    import jax.numpy as jnp

    jax.config.update("jax_enable_x64", True)
except Exception:  # pragma: no cover
    jax = None

x3 = np.array([0.5, -1.2, 2.0])
x4 = np.array([0.5, -1.2, 2.0, 0.7])


# ----------------------------------------------------------------- types and wrt


def _f(x, y):
    return np.sum(np.tanh(x) * y)


def _s(a, b):
    return a * a * b


def _vec(x):
    return x * 2.0


def _tree(p):
    return p["a"] * np.sum(p["b"]) + sum(p["c"]) + p["t"][0] * p["t"][1]


def test_float32_grad_is_float32():
    x = np.array([1.0, 2.0, 3.0], dtype=np.float32)
    g = srcgrad.grad(_f)(x, x)
    assert g.dtype == np.float32 and g.shape == (3,)


def test_zero_d_stays_zero_d():
    g = srcgrad.grad(_f)(np.array(0.5), np.array(2.0))
    assert isinstance(g, np.ndarray) and g.shape == ()
    np.testing.assert_allclose(g, 2.0 * (1 - np.tanh(0.5) ** 2))


def test_float_gives_float_and_wrt_forms():
    assert type(srcgrad.grad(_s)(2.0, 3.0)) is float
    assert srcgrad.grad(_s, wrt="b")(2.0, 3.0) == 4.0
    assert srcgrad.grad(_s, wrt=("b", "a"))(2.0, 3.0) == (4.0, 12.0)
    assert srcgrad.grad(_s, wrt=(1, 0))(2.0, 3.0) == (4.0, 12.0)
    assert srcgrad.grad(_s, wrt=-1)(2.0, 3.0) == 4.0


def test_pytree_grad_structure():
    g = srcgrad.grad(_tree)({"a": 2.0, "b": np.ones(2), "c": [1.0, 2.0], "t": (3.0, 4.0)})
    assert isinstance(g, dict) and type(g["a"]) is float and isinstance(g["c"], list) and isinstance(g["t"], tuple)
    assert g["a"] == 2.0 and g["c"] == [1.0, 1.0] and g["t"] == (4.0, 3.0)
    np.testing.assert_allclose(g["b"], [2.0, 2.0])


@pytest.mark.parametrize("bad", [3, np.array([1, 2, 3]), np.array([True, False, True])])
def test_int_bool_wrt_type_error(bad):
    with pytest.raises(TypeError, match="int|bool"):
        srcgrad.grad(_f)(bad, np.ones(3))


def test_nonscalar_output_names_shape():
    with pytest.raises(TypeError, match=re.escape("(2, 3)")):
        srcgrad.grad(_vec)(np.ones((2, 3)))


def test_bad_wrt_name():
    with pytest.raises(TypeError, match="names no parameter"):
        srcgrad.grad(_s, wrt="zz")


def test_vjp_pullback_returns_tuple():
    out, pb = srcgrad.vjp(_vec, np.ones(3))
    r = pb(np.arange(3.0))
    assert isinstance(r, tuple) and len(r) == 1
    np.testing.assert_allclose(r[0], 2 * np.arange(3.0))
    out, pb = srcgrad.vjp(_s, 2.0, 3.0)
    assert pb(1.0) == (12.0, 4.0)


def test_value_and_grad():
    assert srcgrad.value_and_grad(_s, wrt=0)(2.0, 3.0) == (12.0, 12.0)


# ----------------------------------------------------------------- unsupported constructs

# name -> expected error class; the error must name indep_unsupported.py and a line inside the function
REFUSED = {
    "u_with": srcgrad.SrcGradError, "u_yield": srcgrad.SrcGradError,
    "u_global": srcgrad.SrcGradError, "u_class": srcgrad.SrcGradError, "u_exec": srcgrad.SrcGradError,
    "u_eval": srcgrad.SrcGradError, "u_attr": srcgrad.SrcGradError,  # u_del differentiates now: below
    "u_nonlocal": srcgrad.SrcGradError,  # u_try differentiates now: below; u_map / u_filter differentiate now: below
    # u_reduce (functools.reduce) and u_sorted (a lambda key) differentiate now: below
    # u_vectorize (`f = np.vectorize(lambda ...)`, then `f(x)`) differentiates now: below
    "u_lambda_call_immediately": srcgrad.SrcGradError,  # u_walrus differentiates now: below
    # u_match differentiates now (an if/elif chain): below; u_starcall and u_kwcall too
    # u_while_else / u_for_else, u_set and u_list_sort differentiate now: below
    # u_kwargs_func differentiates now: below; u_local_import: tests/test_passes.py
    # u_min_key differentiates now (a lambda key): below
    # u_dict_get differentiates now: below
    # u_list_pop and u_list_insert differentiate now: below
    "u_complex_abs": srcgrad.NotDifferentiableError,  # u_divmod differentiates now: below
    # u_npsum_where / u_npsum_initial differentiate now (np.sum's where= and initial=): tests/test_rules_more.py
    # u_out_kw differentiates now (out= is a write of the whole array): below; u_max_default too
    "u_inplace_arg": srcgrad.NotDifferentiableError, "u_default_mutable": srcgrad.NotDifferentiableError,
    "u_matrix_row_alias": srcgrad.NotDifferentiableError, "u_ravel_alias": srcgrad.NotDifferentiableError,
    "u_reshape_alias": srcgrad.NotDifferentiableError,  # u_T_alias differentiates now (M[...] = written_transposed(...)): below
    "u_chained_index_write": srcgrad.NotDifferentiableError,
    # u_nested_list_write differentiates now (a new row stored whole: row_writes.py): below
    "u_array_in_list_mutated": srcgrad.NotDifferentiableError,
}


def test_a_write_through_the_transpose_differentiates():
    # A = M with A[1, 0] = 0: sum(A * M) has gradient 2 M, but 0 at [1, 0]
    M = np.array([[1.0, -2.0], [3.0, 0.5]])
    expected = 2 * M
    expected[1, 0] = 0.0
    np.testing.assert_allclose(srcgrad.grad(U.u_T_alias)(M), expected, rtol=1e-12)
    assert srcgrad.jvp(U.u_T_alias, (M,), (np.ones((2, 2)),))[1] == pytest.approx(np.sum(expected))


def test_a_nested_list_write_differentiates():
    # l[0][1] = 3a: l[0][1] + l[1][1] = 3a + a
    assert srcgrad.value_and_grad(U.u_nested_list_write)(0.7) == (pytest.approx(2.8), pytest.approx(4.0))
    assert srcgrad.jvp(U.u_nested_list_write, (0.7,), (1.0,)) == (pytest.approx(2.8), pytest.approx(4.0))
    assert srcgrad.hessian(U.u_nested_list_write)(0.7) == 0.0


def test_match_differentiates():
    # `match 1: case 1: return a * 2.0`: the first case matches
    assert srcgrad.value_and_grad(U.u_match)(0.7) == (pytest.approx(1.4), pytest.approx(2.0))
    assert srcgrad.jvp(U.u_match, (0.7,), (1.0,)) == (pytest.approx(1.4), pytest.approx(2.0))


def test_loops_with_an_else_block_differentiate():
    # a * 1.5**3, and + 1.0 from the `else` block where no `break` ended the loop
    assert srcgrad.value_and_grad(U.u_while_else)(0.7) == (pytest.approx(0.7 * 3.375 + 1.0), pytest.approx(3.375))
    assert srcgrad.value_and_grad(U.u_for_else)(0.7) == (pytest.approx(0.7 * 3.375 + 1.0), pytest.approx(3.375))
    assert srcgrad.value_and_grad(U.u_for_else)(50.0) == (pytest.approx(50.0 * 2.25), pytest.approx(2.25))  # breaks


def test_lambda_key_and_default_differentiate():
    assert srcgrad.grad(U.u_min_key)(0.7, 1.3) == pytest.approx(2.0)  # min by |t| is a
    assert srcgrad.grad(U.u_min_key, wrt=1)(0.7, 1.3) == 0.0
    np.testing.assert_array_equal(srcgrad.grad(U.u_max_default)(x4.copy()), np.ones(4))  # the default is a constant
    np.testing.assert_array_equal(srcgrad.grad(U.u_sorted)(x4.copy()), [0.0, 0.0, 2.0, 0.0])  # the largest, twice


def test_a_named_np_vectorize_differentiates():
    np.testing.assert_allclose(srcgrad.grad(U.u_vectorize)(x4.copy()), 2.0 * x4, rtol=1e-12)


def test_functools_reduce_differentiates():
    x = x4.copy()
    np.testing.assert_allclose(srcgrad.grad(U.u_reduce)(x), np.prod(x4) / x4)  # the product of the others
    np.testing.assert_array_equal(x, x4)


def test_out_keyword_differentiates():
    x = x4.copy()
    np.testing.assert_allclose(srcgrad.grad(U.u_out_kw)(x), 4.0 * x4)  # sum(2 x * x)
    np.testing.assert_array_equal(x, x4)


def _args(fn):
    import inspect

    out = []
    for p in inspect.signature(fn).parameters:
        if p == "x":
            out.append(x4.copy())
        elif p == "M":
            out.append(np.arange(16.0).reshape(4, 4) / 10 + 0.1)
        elif p == "a":
            out.append(0.7)
        elif p == "b":
            out.append(1.3)
    return out


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_unsupported_is_refused_with_file_and_line(name):
    fn = getattr(U, name)
    first = fn.__code__.co_firstlineno
    import inspect

    last = first + len(inspect.getsource(fn).splitlines()) - 1
    with pytest.raises(REFUSED[name]) as info:
        srcgrad.grad(fn)(*_args(fn))
    msg = str(info.value)
    assert "indep_unsupported.py" in msg, msg
    lines = [int(n) for n in re.findall(r"line (\d+)", msg)]
    assert lines and all(first <= n <= last for n in lines), (msg, first, last)


def test_walrus_and_dict_get_are_differentiated():
    """`if (b := 2a) > 1: return b * b` (4a^2 at a = 0.7); `d.get("k", 0.0) * 2 + d.get("z", 1.0)` of d = {"k": a}."""
    assert srcgrad.grad(U.u_walrus)(0.7) == pytest.approx(5.6, rel=1e-12)
    assert srcgrad.grad(U.u_try)(0.7) == 2.0  # the block completes: b = 2a
    assert srcgrad.jvp(U.u_try, (0.7,), (1.0,)) == pytest.approx((1.4, 2.0), rel=1e-12)
    assert srcgrad.jvp(U.u_walrus, (0.7,), (1.0,)) == pytest.approx((1.96, 5.6), rel=1e-12)
    assert srcgrad.grad(U.u_dict_get)(0.7) == pytest.approx(2.0, rel=1e-12)
    assert srcgrad.jvp(U.u_dict_get, (0.7,), (1.0,)) == pytest.approx((2.4, 2.0), rel=1e-12)


def test_a_set_of_constants_and_a_sorted_list_are_differentiated():
    """`a * len({1, 2})` is 2a; `l = list(x); l.sort(); l[0] * 3` has gradient 3 at x's smallest entry."""
    assert srcgrad.grad(U.u_set)(0.7) == 2.0
    x = x4.copy()
    expected = np.zeros(4)
    expected[np.argmin(x)] = 3.0
    np.testing.assert_array_equal(srcgrad.grad(U.u_list_sort)(x), expected)
    np.testing.assert_array_equal(srcgrad.jacobian(U.u_list_sort, mode="forward")(x), expected)
    np.testing.assert_array_equal(x, x4)


def test_del_of_a_name_is_dropped():
    """`b = 2a; c = b; del b; return c`: 2a, gradient 2."""
    assert srcgrad.grad(U.u_del)(0.7) == 2.0
    assert srcgrad.jvp(U.u_del, (0.7,), (1.0,)) == (1.4, 2.0)


def test_a_call_unpacking_a_list_display_is_differentiated():
    """`np.sum(np.add(*[x, x]))` is `np.sum(x + x)`: gradient 2 everywhere."""
    x = x4.copy()
    np.testing.assert_array_equal(srcgrad.grad(U.u_starcall)(x), np.full(4, 2.0))
    np.testing.assert_array_equal(srcgrad.jacobian(U.u_starcall, mode="forward")(x), np.full(4, 2.0))


def test_a_call_unpacking_a_dict_display_is_differentiated():
    """`kw = {"axis": 0}; np.sum(np.sum(x * x, **kw))` is `np.sum(np.sum(x * x, axis=0))`."""
    x = x4.copy()
    np.testing.assert_allclose(srcgrad.grad(U.u_kwcall)(x), 2 * x, rtol=1e-12)


def test_a_kwargs_parameter_is_differentiated_per_call():
    """`a * kw.get("s", 2.0)`: 2.0 without the keyword, its value with it."""
    assert srcgrad.grad(U.u_kwargs_func)(0.7) == pytest.approx(2.0, rel=1e-12)
    assert srcgrad.grad(U.u_kwargs_func)(0.7, s=3.0) == pytest.approx(3.0, rel=1e-12)


def test_divmod_is_differentiated():
    """`q, r = divmod(a, 1.0); return r * a`: r = a - floor(a), so d/da = r + a (0.2 + 2.2 at 2.2)."""
    assert srcgrad.grad(U.u_divmod)(2.2) == pytest.approx(0.2 + 2.2, rel=1e-12)
    assert srcgrad.jvp(U.u_divmod, (2.2,), (1.0,)) == pytest.approx((0.2 * 2.2, 2.4), rel=1e-12)


def test_map_and_filter_are_differentiated():
    """`sum(map(lambda v: v * v, x))` and `sum(filter(lambda v: v > 0, x))` (map_filter.py)."""
    x = x4.copy()
    x[1] = -0.5
    np.testing.assert_allclose(srcgrad.grad(U.u_map)(x), 2.0 * x, rtol=1e-12)
    np.testing.assert_array_equal(srcgrad.grad(U.u_filter)(x), (x > 0).astype(float))
    np.testing.assert_array_equal(x, np.where(np.arange(4) == 1, -0.5, x4))


def test_list_pop_is_differentiated():
    """`v = l.pop()` of `l = [a, 2a, 3a]`, then `v + sum(l)`: 3a + 3a."""
    assert srcgrad.grad(U.u_list_pop)(0.7) == pytest.approx(6.0, rel=1e-12)
    assert srcgrad.jvp(U.u_list_pop, (0.7,), (1.0,)) == pytest.approx((4.2, 6.0), rel=1e-12)


def test_list_insert_is_differentiated():
    """`l.insert(0, 2a)` of `l = [a]`, then `l[0] * l[1]`: 2a^2, gradient 4a."""
    assert srcgrad.grad(U.u_list_insert)(0.7) == pytest.approx(2.8, rel=1e-12)
    assert srcgrad.jvp(U.u_list_insert, (0.7,), (1.0,)) == pytest.approx((0.98, 2.8), rel=1e-12)


@pytest.mark.parametrize("name", ["aliasing_view", "slice_view_alias"])
def test_numpy_aliasing_clear_error(name):
    with pytest.raises(srcgrad.NotDifferentiableError, match="indep_programs.py"):
        srcgrad.grad(getattr(P, name))(x4.copy())


# ----------------------------------------------------------------- source round trip (API.md section 2)


def _roundtrip(fn, args, wrt=0):
    df = srcgrad.grad(fn, wrt=wrt)
    want = df(*args)
    src = srcgrad.source(df)
    compile(src, "<generated>", "exec")  # valid Python
    # helpers and globals of the user's module are allowed; nothing from the compiler
    ns = dict(vars(P))
    exec("import numpy as np\nimport math\nfrom srcgrad.runtime import *\n" + src, ns)
    name = src.split("def ", 1)[1].split("(", 1)[0]
    got = ns[name](*args)
    np.testing.assert_allclose(got, want, rtol=1e-12)


def test_source_roundtrip_straight_line():
    _roundtrip(P.np_funcs_zoo, (x4,))


def test_source_roundtrip_while_loop():
    _roundtrip(P.tutorial_while, (x4,))


def test_source_roundtrip_indexing():
    _roundtrip(P.inplace_index_write, (x4,))


def test_source_roundtrip_matmul():
    _roundtrip(P.mlp_relu, (np.eye(4), np.ones((5, 4))))


def test_source_roundtrip_user_helper():
    _roundtrip(P.kw_defaults_call, (0.7, 1.3), wrt=(0, 1))


def test_source_docstring_and_comments():
    src = srcgrad.source(srcgrad.grad(P.rnn_loop))
    assert "indep_programs.py" in src and "_bar" in src and "# h = np.tanh(W @ h + X[t])" in src


# ----------------------------------------------------------------- forward mode, jacobian, hessian vs JAX

JW = np.array([[0.3, -0.2, 0.1, 0.4], [0.0, 0.5, -0.3, 0.2], [0.2, 0.1, 0.6, -0.4], [-0.1, 0.3, 0.2, 0.1]])
JX = np.linspace(-1, 1, 20).reshape(5, 4)


def _jx(name):
    import test_independent_grad as T

    return T.JAX_NS[name]


JVP_CASES = [
    ("lstm", (JW, JX)), ("layer_norm_loss", (x4, JW)), ("where_select", (x4,)),
    ("huber", (x4,)), ("pytree_tuple", ((JW, x4), x4)),
    ("newton_sqrt", (2.5,)), ("piecewise", (0.4,)),
]


def _tangent(a, seed):
    r = np.random.default_rng(seed)
    if isinstance(a, tuple):
        return tuple(_tangent(v, seed + i) for i, v in enumerate(a))
    return float(r.normal()) if isinstance(a, float) else r.normal(size=np.shape(a))


def _to_j(a):
    if isinstance(a, tuple):
        return tuple(_to_j(v) for v in a)
    return jnp.asarray(a) if isinstance(a, np.ndarray) else a


@pytest.mark.skipif(jax is None, reason="jax missing")
@pytest.mark.parametrize("name,args", JVP_CASES, ids=[c[0] for c in JVP_CASES])
def test_jvp_vs_jax(name, args):
    tang = tuple(_tangent(a, i) for i, a in enumerate(args))
    out, od = srcgrad.jvp(getattr(P, name), args, tang)
    jo, jod = jax.jvp(_jx(name), tuple(_to_j(a) for a in args), tuple(_to_j(t) for t in tang))
    np.testing.assert_allclose(out, np.asarray(jo), rtol=1e-10)
    np.testing.assert_allclose(od, np.asarray(jod), rtol=1e-8, atol=1e-10)


def _vecfn(x, W):
    h = np.tanh(W @ x)
    return np.concatenate([h * h, np.cumsum(x)])


def _jvecfn(x, W):
    h = jnp.tanh(W @ x)
    return jnp.concatenate([h * h, jnp.cumsum(x)])


@pytest.mark.skipif(jax is None, reason="jax missing")
@pytest.mark.parametrize("mode", ["forward", "reverse"])
def test_jacobian_vs_jax(mode):
    kw = {} if mode is None else {"mode": mode}
    J = srcgrad.jacobian(_vecfn, wrt=0, **kw)(x4, JW)
    JJ = np.asarray(jax.jacobian(_jvecfn)(jnp.asarray(x4), jnp.asarray(JW)))
    np.testing.assert_allclose(J, JJ, rtol=1e-10, atol=1e-12)
    J1 = srcgrad.jacobian(_vecfn, wrt=1, **kw)(x4, JW)
    JJ1 = np.asarray(jax.jacobian(_jvecfn, argnums=1)(jnp.asarray(x4), jnp.asarray(JW)))
    np.testing.assert_allclose(np.asarray(J1).reshape(JJ1.shape), JJ1, rtol=1e-10, atol=1e-12)


HESS_CASES = {
    "logsumexp_fn": None, "np_logistic_helpers": None, "where_select": None, "huber": None,
    "norm_ops": None, "batchnorm": None, "sumsq_axis_keepdims": None, "polyfit_residual": None,
    "zip_arrays": None, "max_builtin_array_elems": None, "diff_of_series": None, "stack_concat": None,
    "dict_of_arrays": None, "generator_expr_vec": None, "recursive_entry": None, "sort_topk": None,
    "cumsum_cumprod": None, "interp_fn": None, "expand_squeeze": None,
}


JAX_HESS = {"logsumexp_fn", "huber", "where_select"}


@pytest.mark.skipif(jax is None, reason="jax missing")
@pytest.mark.parametrize("name", [pytest.param(n, marks=[pytest.mark.xfail(strict=True, reason=r)] if r else [])
                                  for n, r in HESS_CASES.items()])
def test_hessian_vs_jax(name):
    import test_independent_grad as T

    args, wrt = T.CASES[name]
    w0 = wrt[0] if isinstance(wrt, tuple) else wrt
    H = np.asarray(srcgrad.hessian(getattr(P, name), wrt=w0)(*args))
    if name in JAX_HESS:
        HJ = np.asarray((jax.hessian(_jx(name), argnums=w0))(*[_to_j(a) for a in args]))
    else:  # central differences of jax.grad would be slow eagerly: use jitted jax.grad
        jg = jax.jit(jax.grad(_jx(name), argnums=w0))
        try:
            jg(*[_to_j(a) for a in args])
        except jax.errors.ConcretizationTypeError:  # Python control flow on values (builtin max): eager
            jg = jax.grad(_jx(name), argnums=w0)
        base = np.asarray(args[w0], dtype=float)
        cols = []
        for k in np.ndindex(base.shape):
            e = np.zeros_like(base)
            e[k] = 1e-5
            a1, a2 = list(args), list(args)
            a1[w0], a2[w0] = base + e, base - e
            cols.append((np.asarray(jg(*[_to_j(a) for a in a1])) - np.asarray(jg(*[_to_j(a) for a in a2]))) / 2e-5)
        HJ = np.stack([c.ravel() for c in cols], axis=-1).reshape(base.shape + base.shape)
        HJ = 0.5 * (HJ + HJ.reshape(base.size, base.size).T.reshape(HJ.shape))
    tol = dict(rtol=1e-7, atol=1e-9) if name in JAX_HESS else dict(rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(H.reshape(HJ.shape), HJ, **tol)
    Hm = H.reshape(np.size(args[w0]), -1)
    np.testing.assert_allclose(Hm, Hm.T, atol=1e-9)


def test_hessian_recursion_scalar():
    # no jax version (math.*): FD of the gradient
    g = srcgrad.grad(P.recursive_power)
    H = srcgrad.hessian(P.recursive_power)(1.1)
    np.testing.assert_allclose(H, (g(1.1 + 1e-5) - g(1.1 - 1e-5)) / 2e-5, rtol=1e-6)




def test_jvp_keyword_only_helper():
    out, od = srcgrad.jvp(P.keyword_only_call, (0.7,), (1.0,))
    assert od == pytest.approx(5.0)


def test_jvp_minmax_list_matches_fd():
    f = P.max_plus_min_list
    out, od = srcgrad.jvp(f, (3.0, 1.0), (1.0, 0.0))
    assert od == pytest.approx(6.0)
