"""Forward rules of the helpers that generated gradient code calls (rules/runtime_rules.py,
rules/derived_rules.py).

`hessian` runs forward mode over generated gradient code, which calls the reverse rules'
helpers (`sort_vjp`, `split_joined`, `builtin_extreme_vjp_a`, ...). Every such helper that
is linear in its leading adjoint must have a forward rule for each parameter; each rule
is checked against central finite differences at arguments recorded from real calls
(the helpers wrapped while reverse rules run on sample inputs).
"""

import builtins
import functools
import inspect

import numpy as np
import pytest

import srcgrad
from srcgrad import rules
from srcgrad.rules import derived_rules

HELPERS = {
    h: users for h, users in derived_rules.rule_helpers().items()
    if not getattr(h, "srcgrad_helper_rule", False) and not rules.is_nondifferentiable(h)
}
LINEAR = sorted(
    (h for h in HELPERS if list(inspect.signature(h).parameters)[:1] and
     list(inspect.signature(h).parameters)[0] in derived_rules._LINEAR_FIRST),
    key=lambda h: (h.__module__, h.__qualname__),
)


@pytest.mark.parametrize("helper", LINEAR, ids=lambda h: h.__qualname__)
def test_every_linear_helper_has_forward_rules(helper):
    rule = rules.lookup(helper)
    assert rule is not None, f"{helper.__qualname__} (used by {sorted(HELPERS[helper])}) has no forward rule"
    assert rule.jvps, f"{helper.__qualname__}: no forward rule"


rng = np.random.default_rng(3)
A = rng.normal(size=(3, 4))
V = rng.normal(size=5)
POS = rng.uniform(0.5, 1.5, size=(2, 3))
SAMPLES = [  # (primal, args, kwargs)
    (np.sort, (V,), {}), (np.sort, (A,), {"axis": 1}), (np.cumprod, (POS,), {"axis": 1}), (np.cumprod, (V,), {}),
    (np.repeat, (V, 2), {}), (np.repeat, (A, 2), {"axis": 0}), (np.take, (V, [0, 2, 2]), {}),
    (np.take_along_axis, (A, np.argsort(A, axis=1)), {"axis": 1}), (np.tile, (V, 2), {}),
    (np.concatenate, ([A, A[:1]],), {}), (np.stack, ([V, V * 2],), {}), (np.hstack, ([V, V],), {}),
    (np.diff, (V,), {}), (np.interp, (np.array([0.3, 1.7]), np.arange(4.0), V[:4]), {}),
    (np.dot, (A, A.T), {}), (np.tensordot, (A, A, ([1], [1])), {}), (np.kron, (POS, POS), {}),
    *([(np.trapezoid, (V,), {})] if hasattr(np, "trapezoid") else []),  # NumPy 2 only
    (np.diag, (V,), {}), (np.pad, (V, 1), {}), (np.ravel, (A,), {}),
    (np.inner, (V, V), {}), (np.cross, (V[:3], V[2:]), {}), (np.outer, (V, V), {}),
    (builtins.max, (1.5, 0.5), {}), (builtins.max, ([1.5, 2.5, 0.5],), {}), (np.array, ([V, V],), {}),
    (np.maximum.accumulate, (A,), {"axis": 1}), (np.minimum.accumulate, (V,), {}),
    (np.select, ([A > 0, A < -0.5], [A, A * 2.0], 0.5), {}), (np.insert, (A, 1, V[:4]), {"axis": 0}),
    (np.delete, (A, [0, 2], 1), {}), (np.mean, (A,), {"axis": 1, "where": A > -0.5}), (np.pad, (A, 1, "maximum"), {}),
    (np.linalg.svd, (POS, False, False), {}), (np.linalg.svd, (A.T, False, False), {}),  # positional: cases replay by position
]


def _record():
    """{helper: [(args, kwargs)]}: the helpers' calls while the samples' reverse rules run."""
    calls = {}
    patched = []
    for h in LINEAR:
        module = inspect.getmodule(h)
        name = h.__name__
        if getattr(module, name, None) is not h:
            continue

        def wrapper(*args, _h=h, **kwargs):
            calls.setdefault(_h, []).append((args, kwargs))
            return _h(*args, **kwargs)

        functools.update_wrapper(wrapper, h)
        setattr(module, name, wrapper)
        patched.append((module, name, h))
    try:
        for primal, args, kwargs in SAMPLES:
            rule = rules.lookup(primal)
            ans = primal(*args, **kwargs)
            g = rng.normal(size=np.shape(ans)) if not isinstance(ans, float) else 1.3
            for param in rule.vjps:
                fn = rule.vjps[param].fn
                if fn in HELPERS and fn in LINEAR:  # a rule called from generated code, not inlined
                    calls.setdefault(fn, []).append(((g, ans, *args), kwargs))
                try:
                    rule.vjp(param, g, ans, *args, **kwargs)
                except Exception:  # noqa: BLE001 - a sample without that parameter's use
                    pass
    finally:
        for module, name, h in patched:
            setattr(module, name, h)
    return calls


SKIP = {  # ans equals an entry by construction: not free to move
    ("builtin_extreme_vjp_a", "ans"), ("_select_grad", "ans"), ("_running_extremum_vjp", "ans"),
}


def _flat(v):
    if v is None:
        return np.zeros(0)
    if isinstance(v, (list, tuple)):
        return np.concatenate([_flat(e) for e in v]) if v else np.zeros(0)
    return np.ravel(np.asarray(v, dtype=float))


def _cases():
    out = []
    for helper, found in _record().items():
        for args, kwargs in found[:3]:
            bound = inspect.signature(helper).bind(*args, **kwargs)
            for k, (name, value) in enumerate(bound.arguments.items()):
                if (helper.__name__, name) in SKIP:
                    continue
                if isinstance(value, np.ndarray) and value.dtype.kind == "f" or type(value) is float:
                    out.append(pytest.param(helper, bound.args, bound.kwargs, name, id=f"{helper.__qualname__}-{name}"))
    return out


CASES = _cases()


def test_samples_reach_the_reported_helpers():
    names = {c.values[0].__qualname__ for c in CASES}
    for expected in ("_sort_vjp", "_cumprod_vjp", "_repeat_vjp", "_split_joined", "builtin_extreme_vjp_a", "_unstack",
                     "_svd_vjp", "_running_extremum_vjp", "_gather_back", "_masked_mean_vjp"):
        assert expected in names


@pytest.mark.parametrize("helper,args,kwargs,name", CASES)
def test_helper_forward_rule_matches_finite_differences(helper, args, kwargs, name):
    rule = rules.lookup(helper)
    bound = inspect.signature(helper).bind(*args, **kwargs)
    values = dict(bound.arguments)
    x = values[name]
    t = np.random.default_rng(0).normal(size=np.shape(x))
    t = float(t) if type(x) is float else t
    ans = helper(*args, **kwargs)
    got = rule.jvp(name, t, ans, *values.values())
    eps = 1e-6

    def at(s):
        moved = dict(values)
        moved[name] = x + s * t
        return _flat(helper(*moved.values()))

    expected = (at(eps) - at(-eps)) / (2 * eps)
    got = _flat(got)
    if got.size == 0:
        got = np.zeros_like(expected)
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)


def recursive_helper(x, n):
    if n == 0:
        return x
    return np.sin(recursive_helper(x, n - 1)) * x


def dict_generator_recursion(x):
    d = {"a": x, "b": x * 2.0}
    d["c"] = d["a"] * d["b"]
    s = sum(np.sum(x ** k) / k for k in range(1, 4))
    return s + np.sum(recursive_helper(d["c"], 2)) + max(np.sum(x), 0.5)


def test_hessian_of_recursive_helper_and_dict_and_generator():
    f = dict_generator_recursion
    x = np.array([0.3, -0.2, 0.5])
    H = srcgrad.hessian(f)(x)
    g = srcgrad.grad(f)
    fd = np.stack([(g(x + e) - g(x - e)) / 2e-6 for e in np.eye(3) * 1e-6], axis=-1)
    np.testing.assert_allclose(H, fd, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(H, H.T, atol=1e-9)
    J = srcgrad.jacobian(srcgrad.grad(f))(x)
    np.testing.assert_allclose(J, H, rtol=1e-6, atol=1e-8)


def test_hessian_of_singular_values():
    def f(x):
        return np.sum(np.linalg.svd(x)[1] ** 3) + np.sum(np.linalg.svd(x, compute_uv=False))

    for x in (rng.normal(size=(3, 3)), rng.normal(size=(4, 2)), rng.normal(size=(2, 3))):
        H = np.asarray(srcgrad.hessian(f)(x)).reshape(x.size, x.size)
        g = srcgrad.grad(f)
        basis = np.eye(x.size).reshape((x.size,) + x.shape) * 1e-6
        fd = np.stack([((g(x + e) - g(x - e)) / 2e-6).ravel() for e in basis], axis=-1)
        np.testing.assert_allclose(H, fd, rtol=1e-5, atol=1e-6)


def _det_hessian_at_identity(n):
    """d2 det / dx_ij dx_kl at the identity: det(I + e) = 1 + tr e + (tr(e)^2 - tr(e^2)) / 2 + ..."""
    eye = np.eye(n)
    return np.einsum("ij,kl->ijkl", eye, eye) - np.einsum("il,jk->ijkl", eye, eye)


def det(x):
    return np.linalg.det(x)


def test_hessian_of_det_is_finite_at_repeated_and_zero_singular_values():
    H = srcgrad.hessian(det)
    np.testing.assert_allclose(H(np.eye(3)), _det_hessian_at_identity(3), atol=1e-12)
    np.testing.assert_allclose(H(2.0 * np.eye(3)), 2.0 * _det_hessian_at_identity(3), atol=1e-12)
    g = srcgrad.grad(det)
    for x in (np.diag([1.0, 1.0, 0.0]), np.diag([2.0, 0.0, 0.0]), np.zeros((3, 3)), rng.normal(size=(3, 3))):
        basis = np.eye(9).reshape(9, 3, 3) * 1e-6
        fd = np.stack([((g(x + e) - g(x - e)) / 2e-6).ravel() for e in basis], axis=-1)
        h = H(x).reshape(9, 9)
        np.testing.assert_allclose(h, fd, rtol=1e-6, atol=1e-8)
        np.testing.assert_allclose(h, h.T, atol=1e-12)
    singular = H(np.diag([1.0, 1.0, 0.0]))  # d2 det / dx_00 dx_11 = x_22 = 0; d2 det / dx_00 dx_22 = x_11 = 1
    assert singular[0, 0, 1, 1] == 0.0 and singular[0, 0, 2, 2] == 1.0 and singular[2, 2, 0, 0] == 1.0


def test_cofactor_rules_are_its_derivative_and_adjoint():
    cofactor = rules.decompositions._cofactor
    rule = rules.lookup(cofactor)
    for x in (rng.normal(size=(4, 4)), np.diag([1.0, 1.0, 0.0, 0.0]), rng.normal(size=(2, 3, 3))):
        t, g = rng.normal(size=x.shape), rng.normal(size=x.shape)
        fd = (cofactor(x + 1e-6 * t) - cofactor(x - 1e-6 * t)) / 2e-6
        tangent = rule.jvp("x", t, cofactor(x), x)
        np.testing.assert_allclose(tangent, fd, rtol=1e-6, atol=1e-8)
        np.testing.assert_allclose(np.sum(g * tangent), np.sum(rule.vjp("x", g, cofactor(x), x) * t), rtol=1e-12)


def test_hessian_through_singular_vectors_is_refused():
    def f(x):
        return np.sum(np.linalg.svd(x, full_matrices=False)[0][:, 0] ** 2 * np.arange(3.0))

    with pytest.raises(NotImplementedError, match="second derivatives of svd"):
        srcgrad.hessian(f)(rng.normal(size=(3, 2)))
