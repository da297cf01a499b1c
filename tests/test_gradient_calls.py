"""A gradient made by srcgrad called inside a differentiated function (derivative_calls.py):
its pullback is a Hessian-vector product, checked against analytic answers and central
finite differences."""

import numpy as np
import pytest

import srcgrad
from conftest import numerical_grad


def quartic(x):
    return np.sum(x ** 4) / 4.0


force = srcgrad.grad(quartic)  # x ** 3


def force_norm(x):
    return np.sum(force(x) ** 2)  # sum(x ** 6)


def energy(x, k):
    return np.sum(k * x ** 4) / 4.0 + np.sum(np.cos(x)) * k


push = srcgrad.grad(energy)  # d/dx
stiffness = srcgrad.grad(energy, wrt=1)  # d/dk


def simulate(x0, v0, k, dt):
    x, v = x0, v0
    for _ in range(10):
        v = v - dt * push(x, k)
        x = x + dt * v
    return np.sum(x ** 2) + stiffness(x, k)


X = np.array([0.5, -1.0, 2.0])
ARGS = (np.array([0.5, -1.0, 0.3]), np.array([0.1, 0.2, -0.3]), 1.3, 0.05)


def test_the_pullback_of_a_gradient_is_its_hessian_times_the_cotangent():
    np.testing.assert_allclose(srcgrad.grad(force_norm)(X), 6 * X ** 5, rtol=1e-13)
    value, gradient = srcgrad.value_and_grad(force_norm)(X)
    assert value == pytest.approx(np.sum(X ** 6), rel=1e-13)
    np.testing.assert_allclose(gradient, 6 * X ** 5, rtol=1e-13)
    out, tangent = srcgrad.jvp(force_norm, (X,), (np.ones(3),))
    assert tangent == pytest.approx(np.sum(6 * X ** 5), rel=1e-13)
    assert np.array_equal(X, [0.5, -1.0, 2.0])


def test_a_simulation_driven_by_gradients_matches_finite_differences():
    grads = srcgrad.grad(simulate, wrt=(0, 1, 2))(*ARGS)
    for i in range(3):
        np.testing.assert_allclose(grads[i], numerical_grad(simulate, list(ARGS), i), rtol=1e-7, atol=1e-9)
    tangent = srcgrad.jvp(simulate, ARGS, (np.ones(3), None, 0.5, None))[1]
    assert tangent == pytest.approx(np.sum(grads[0]) + 0.5 * grads[2], rel=1e-10)
    x32 = tuple(np.asarray(a, dtype=np.float32) for a in ARGS[:2]) + (np.float32(1.3), np.float32(0.05))
    assert srcgrad.grad(simulate)(*x32).dtype == np.float32


def test_the_generated_code_calls_the_gradient_and_its_rule():
    text = srcgrad.source(srcgrad.grad(force_norm))
    assert "force_x = force(x)" in text and "quartic_grad_vjp_x(" in text


def pair_energy(x, y):
    return np.sum(x * x * y)


both = srcgrad.grad(pair_energy, wrt=(0, 1))


def uses_both(x):
    return np.sum(both(x, 2.0)[0])


def dict_energy(p):
    return np.sum(p["w"] ** 3)


dict_force = srcgrad.grad(dict_energy)


def uses_a_dict(x):
    return np.sum(dict_force({"w": x})["w"])


def test_what_stays_refused():
    with pytest.raises(srcgrad.NotDifferentiableError, match="a derivative made by srcgrad: of those, only a `grad` or `value_and_grad` of one"):
        srcgrad.grad(uses_both)(X)
    with pytest.raises(srcgrad.NotDifferentiableError, match="it is the rule srcgrad gives `quartic_grad`"):
        srcgrad.hessian(force_norm)(X)
    with pytest.raises(TypeError, match="differentiated inside another function with a dict argument"):
        srcgrad.grad(uses_a_dict)(X)


@srcgrad.custom_vjp
def clipped(x):
    return x


@clipped.defvjp
def _clipped_vjp(g, ans, x):
    return np.clip(g, -1.0, 1.0)


def clipped_energy(x):
    return np.sum(clipped(x) ** 2 * x)


clipped_force = srcgrad.grad(clipped_energy)


def uses_clipped_force(x):
    return np.sum(clipped_force(x) * np.arange(1.0, 4.0))


def held_energy(x):
    return np.sum(srcgrad.stop_gradient(x) * x ** 2)


held_force = srcgrad.grad(held_energy)


def uses_held_force(x):
    return np.sum(held_force(x) * np.arange(1.0, 4.0))


@pytest.mark.parametrize("fn", [uses_clipped_force, uses_held_force])
def test_a_gradient_through_a_custom_rule_or_stop_gradient_is_not_assumed_symmetric(fn):
    # its Jacobian need not be symmetric, so the Hessian-vector pullback would be wrong: refused
    with pytest.raises(srcgrad.NotDifferentiableError, match="reaches no custom rule and no stop_gradient"):
        srcgrad.grad(fn)(X)


value_and_push = srcgrad.value_and_grad(energy)


def value_and_force_loss(x, k):
    e, f = value_and_push(x, k)
    return 3.0 * e + np.sum(f ** 2)


def value_only_loss(x, k):
    e, _ = value_and_push(x, k)
    return 2.0 * e


def test_a_value_and_grad_called_pulls_its_value_back_through_the_gradient():
    # E = k sum(x^4) / 4 + k sum(cos x); L = 3 E + sum(dE/dx ^ 2), dE/dx = k (x^3 - sin x)
    x, k = X, 1.5
    force = k * (x ** 3 - np.sin(x))
    dx, dk = srcgrad.grad(value_and_force_loss, wrt=(0, 1))(x, k)
    np.testing.assert_allclose(dx, 3 * force + 2 * force * k * (3 * x ** 2 - np.cos(x)), rtol=1e-12)
    assert dk == pytest.approx(3 * (np.sum(x ** 4) / 4 + np.sum(np.cos(x))) + 2 * np.sum(force * force / k), rel=1e-12)
    np.testing.assert_allclose(srcgrad.grad(value_only_loss)(x, k), 2 * force, rtol=1e-12)
    tangent = srcgrad.jvp(value_and_force_loss, (x, k), (np.ones(3), None))[1]
    assert tangent == pytest.approx(np.sum(dx), rel=1e-12)
