"""Pathwise derivatives of random draws (rules/sampling.py): `np.random.normal(mu, s)` and
`rng.normal(mu, s)` of a Generator made in the function or passed in, differentiated in
their parameters through the very draw made. Each function seeds its generator itself, so
central differences see the same draw; the analytic answers come from the standard draws
of the same seed (`z = default_rng(0).standard_normal(3)`: d/dscale sum(normal) = sum(z))."""

import linecache

import numpy as np
import pytest

import srcgrad
from srcgrad.rules import lookup, sampling

from conftest import numerical_grad

W = np.array([0.5, -1.5, 2.0])  # weights, so each draw counts differently


def _standard(name, make):
    """The standard draws of the seed behind `name(a, b, size=3)`: (d/da, d/db) per draw."""
    if name == "uniform":
        u = make().random(3) if isinstance(make(), np.random.Generator) else make().random_sample(3)
        return 1.0 - u, u
    if name == "exponential":
        return None, make().standard_exponential(3)
    if name == "lognormal":
        z = make().standard_normal(3)
        ans = np.exp(0.3 + 0.7 * z)  # at mean 0.3, sigma 0.7
        return ans, ans * z
    if name == "normal":
        return np.ones(3), make().standard_normal(3)
    return np.ones(3), getattr(make(), name)(0.0, 1.0, 3)  # laplace, logistic, gumbel: checked location-scale


def _legacy():
    np.random.seed(0)
    return np.random


MAKERS = {"legacy": _legacy, "Generator": lambda: np.random.default_rng(0), "RandomState": lambda: np.random.RandomState(0)}


def _functions(name):
    """{way: f(a, b)} drawing `name` with parameters (a, b), three draws, weighted."""
    two = name != "exponential"
    src = {
        "legacy": "def f(a, b):\n    np.random.seed(0)\n    return np.sum(W * np.random.{n}({p}, size=3))\n",
        "Generator": "def f(a, b):\n    rng = np.random.default_rng(0)\n    return np.sum(W * rng.{n}({p}, size=3))\n",
        "RandomState": "def f(a, b):\n    rs = np.random.RandomState(0)\n    return np.sum(W * rs.{n}({p}, 3))\n",
    }
    return {way: _defined(text.format(n=name, p="a, b" if two else "b"), f"<test_sampling {way} {name}>")
            for way, text in src.items()}


def _defined(text, filename):
    """The function `f` that `text` defines, its source kept in linecache for srcgrad to read."""
    linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
    scope = {"np": np, "W": W}
    exec(compile(text, filename, "exec"), scope)
    return scope["f"]


NAMES = list(sampling.SAMPLERS)


@pytest.mark.parametrize("way", list(MAKERS))
@pytest.mark.parametrize("name", NAMES)
def test_gradient_is_the_draws_pathwise_derivative(name, way):
    f = _functions(name)[way]
    a, b = 0.3, 0.7
    wrt = (0, 1) if name != "exponential" else (1,)
    grad = srcgrad.grad(f, wrt=wrt)
    got = np.atleast_1d(grad(a, b))
    want_a, want_b = _standard(name, MAKERS[way])
    want = [np.sum(W * want_b)] if want_a is None else [np.sum(W * want_a), np.sum(W * want_b)]
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(got, [numerical_grad(f, (a, b), i) for i in wrt], rtol=1e-6, atol=1e-7)
    np.testing.assert_array_equal(np.atleast_1d(grad(a, b)), got)  # the second call: the same draw, the same numbers
    value, _ = srcgrad.value_and_grad(f, wrt=wrt)(a, b)
    assert value == f(a, b)
    for i, g in zip(wrt, got):
        tangents = tuple(1.0 if j == i else 0.0 for j in range(2))
        primal, tangent = srcgrad.jvp(f, (a, b), tangents)
        assert primal == f(a, b)
        np.testing.assert_allclose(tangent, g, rtol=1e-12, atol=1e-12)


def drawn_from_argument(mu, sigma, rng):
    noise = rng.standard_normal(2)  # another method of the generator: runs as written
    return np.sum(W * rng.normal(mu, sigma, 3)) + np.sum(noise) * mu


def test_generator_passed_in():
    grad = srcgrad.grad(drawn_from_argument, wrt=(0, 1))
    draws = np.random.default_rng(5)
    noise, z = draws.standard_normal(2), draws.standard_normal(3)
    want = (np.sum(W) + np.sum(noise), np.sum(W * z))
    np.testing.assert_allclose(grad(0.3, 0.7, np.random.default_rng(5)), want, rtol=1e-12)
    np.testing.assert_allclose(grad(0.3, 0.7, np.random.default_rng(5)), want, rtol=1e-12)  # second call
    for i in (0, 1):
        central = numerical_grad(lambda m, s: drawn_from_argument(m, s, np.random.default_rng(5)), (0.3, 0.7), i)
        np.testing.assert_allclose(want[i], central, rtol=1e-6)
    value, g = srcgrad.value_and_grad(drawn_from_argument, wrt=(0, 1))(0.3, 0.7, np.random.default_rng(5))
    assert value == drawn_from_argument(0.3, 0.7, np.random.default_rng(5))
    np.testing.assert_allclose(g, want, rtol=1e-12)
    # the generator's state moves on: a second draw from the same one is another sample
    rng = np.random.default_rng(5)
    first, second = grad(0.3, 0.7, rng), grad(0.3, 0.7, rng)
    assert first[1] != second[1]


def test_random_state_passed_in():
    def f(mu, sigma, rs):
        return np.sum(W * rs.logistic(mu, sigma, 3))

    s = np.random.RandomState(2).logistic(0.0, 1.0, 3)
    np.testing.assert_allclose(srcgrad.grad(f, wrt=(0, 1))(0.3, 0.7, np.random.RandomState(2)),
                               (np.sum(W), np.sum(W * s)), rtol=1e-12)


def broadcast_normal(mu, sigma):
    rng = np.random.default_rng(0)
    return np.sum(np.arange(6.0).reshape(2, 3) * rng.normal(loc=mu, scale=sigma, size=(2, 3)))


def test_broadcasting_unbroadcasts_to_each_parameter():
    weights, z = np.arange(6.0).reshape(2, 3), np.random.default_rng(0).standard_normal((2, 3))
    mu, sigma = np.array([0.1, 0.2, 0.3]), np.array([[0.5], [2.0]])
    g_mu, g_sigma = srcgrad.grad(broadcast_normal, wrt=(0, 1))(mu, sigma)
    assert g_mu.shape == (3,) and g_sigma.shape == (2, 1)
    np.testing.assert_allclose(g_mu, weights.sum(axis=0), rtol=1e-12)  # [3, 5, 7]
    np.testing.assert_allclose(g_sigma, (weights * z).sum(axis=1, keepdims=True), rtol=1e-12)
    np.testing.assert_allclose(g_sigma, numerical_grad(broadcast_normal, (mu, sigma), 1), rtol=1e-6)
    _, tangent = srcgrad.jvp(broadcast_normal, (mu, sigma), (np.ones(3), np.zeros((2, 1))))
    np.testing.assert_allclose(tangent, 15.0, rtol=1e-12)
    _, tangent = srcgrad.jvp(broadcast_normal, (0.5, 2.0), (1.0, 0.0))  # a scalar location, six draws
    np.testing.assert_allclose(tangent, 15.0, rtol=1e-12)


def squared_normal(mu, sigma):
    rng = np.random.default_rng(0)
    return np.sum(rng.normal(mu, sigma, 3) ** 2)


def test_hessian_of_a_seeded_draw():
    z = np.random.default_rng(0).standard_normal(3)
    want = [[6.0, 2 * np.sum(z)], [2 * np.sum(z), 2 * np.sum(z * z)]]
    np.testing.assert_allclose(srcgrad.hessian(squared_normal, wrt=(0, 1))(1.0, 2.0), want, rtol=1e-12)


def zero_scale(mu, sigma):
    rng = np.random.default_rng(0)
    return np.sum(W * rng.normal(mu, sigma, 3))


def test_zero_scale_has_no_scale_derivative():
    # the draw is mu exactly: the standard draw behind it, the derivative in sigma, is lost
    with pytest.raises(ValueError, match="a scale of 0 loses"):
        srcgrad.grad(zero_scale, wrt=1)(0.3, 0.0)
    with pytest.raises(ValueError, match="a scale of 0 loses"):
        srcgrad.jvp(zero_scale, (0.3, 0.0), (0.0, 1.0))
    with pytest.raises(ValueError, match="a range of 0 loses"):
        srcgrad.grad(lambda a, b: np.random.uniform(a, b), wrt=1)(0.3, 0.3)
    assert srcgrad.grad(zero_scale, wrt=0)(0.3, 0.0) == pytest.approx(np.sum(W))  # the location's is 1


def test_other_objects_normal_is_not_a_sampler():
    class Scaler:
        def normal(self, x, s):
            return x * s

    def made_here(x):
        d = Scaler()
        return d.normal(x, 2.0)

    def passed(x, d):
        return d.normal(x, 3.0)

    def reassigned(mu, other):
        rng = np.random.default_rng(0)
        if mu > 0:
            rng = other
        return rng.normal(mu, 1.0)

    assert srcgrad.grad(made_here)(1.0) == 2.0  # an object of a class of yours made here: its class's method
    assert srcgrad.grad(passed)(1.0, Scaler()) == 3.0  # its own method, followed through its code
    with pytest.raises(srcgrad.NotDifferentiableError, match=r"no derivative rule for the method `\.normal\(\)`"):
        srcgrad.grad(reassigned)(1.0, Scaler())


def test_every_sampler_rule_has_both_modes():
    for name in sampling.SAMPLERS:
        for primal in (getattr(np.random, name), getattr(np.random.Generator, name), getattr(np.random.RandomState, name)):
            rule = lookup(primal)
            assert set(rule.vjps) == set(rule.jvps) == ({"scale"} if name == "exponential" else set(rule.vjps))
            assert len(rule.vjps) == (1 if name == "exponential" else 2)


def test_generator_made_from_a_bit_generator():
    def f(scale):
        gen = np.random.Generator(np.random.PCG64(3))
        return np.sum(W * gen.exponential(scale, 3))

    e = np.random.Generator(np.random.PCG64(3)).standard_exponential(3)
    assert srcgrad.grad(f)(1.5) == pytest.approx(np.sum(W * e), rel=1e-12)
    assert srcgrad.grad(f)(1.5) == pytest.approx(numerical_grad(f, (1.5,), 0), rel=1e-6)


def _drawn_with(mu, rng):
    z = rng.normal(mu, 2.0, size=3)
    return np.sum(z ** 2 * mu)


def _drawn_globally(mu):
    z = np.random.normal(mu, 2.0, size=3)
    return np.sum(z ** 2 * mu)


def _noise_of_no_derivative(x):
    return np.sum(x * x * np.random.rand(3))


def test_every_pass_of_a_hessian_sees_the_same_draw():
    """Forward over reverse pushes one column per element, each running the function
    again: every push starts from the same random state (random_passes.py), so the
    Hessian is that of one draw (it mixed three: diag 4.006, 1.715, 3.370), and the
    generator passed in ends where one run leaves it."""
    mu = np.array([0.5, 1.0, 1.5])
    rng = np.random.default_rng(0)
    H = srcgrad.hessian(_drawn_with)(mu, rng)
    z = np.random.default_rng(0).standard_normal(3)
    np.testing.assert_allclose(H, np.diag(2 * mu + 4 * (mu + 2 * z)), rtol=1e-12)
    after_one_run = np.random.default_rng(0)
    after_one_run.standard_normal(3)
    assert rng.bit_generator.state == after_one_run.bit_generator.state
    np.random.seed(1)
    H = srcgrad.hessian(_drawn_globally)(mu)
    np.random.seed(1)
    z = np.random.standard_normal(3)
    np.testing.assert_allclose(H, np.diag(2 * mu + 4 * (mu + 2 * z)), rtol=1e-12)
    assert np.random.standard_normal() == pytest.approx(np.random.RandomState(1).standard_normal(4)[3], rel=0)
    # draws of no derivative are constants, the same in every column
    np.random.seed(2)
    H = srcgrad.hessian(_noise_of_no_derivative)(mu)
    np.random.seed(2)
    np.testing.assert_allclose(H, np.diag(2 * np.random.rand(3)), rtol=1e-12)
