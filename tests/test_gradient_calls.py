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


# --- a transform made inside the differentiated function (compiler/transform_calls.py)


def maml(w, x):
    g = srcgrad.grad(quartic)(w)  # w ** 3, made when `maml` is compiled
    return quartic(w - 0.1 * g) + np.sum(x * g)


def maml_value_and_grad(x, k):
    e, f = srcgrad.value_and_grad(energy)(x, k)
    return 3.0 * e + np.sum(f ** 2)


def maml_other_parameter(x, k):
    return srcgrad.grad(energy, wrt=1)(x, k) * np.sum(x)  # dE/dk = sum(x^4) / 4 + sum(cos x)


def maml_named_inside(x):
    step = srcgrad.grad(quartic)
    return np.sum(step(x) ** 2)


def test_a_gradient_made_inside_the_function_differentiates_as_one_made_outside():
    """`srcgrad.grad(inner)(w, x)` in the differentiated function was refused ("cannot find
    the function called"), where `dinner = srcgrad.grad(inner)` outside was followed."""
    w, x = X, np.array([0.3, -0.2, 0.7])
    u = w - 0.1 * w ** 3
    # d/dw [sum(u^4) / 4 + x . w^3] = u^3 (1 - 0.3 w^2) + 3 x w^2
    expected_w, expected_x = u ** 3 * (1 - 0.3 * w ** 2) + 3 * x * w ** 2, w ** 3
    gw, gx = srcgrad.grad(maml, wrt=(0, 1))(w, x)
    np.testing.assert_allclose(gw, expected_w, rtol=1e-13)
    np.testing.assert_allclose(gx, expected_x, rtol=1e-13)
    np.testing.assert_allclose(gw, numerical_grad(maml, (w, x), 0), rtol=1e-7)
    value, again = srcgrad.value_and_grad(maml)(w, x)
    assert value == pytest.approx(maml(w, x), rel=1e-15)
    np.testing.assert_allclose(again, expected_w, rtol=1e-13)
    out, pullback = srcgrad.vjp(maml, w, x)
    np.testing.assert_allclose(pullback(1.0)[0], expected_w, rtol=1e-13)
    t = np.array([1.0, -2.0, 0.5])
    assert srcgrad.jvp(maml, (w, x), (t, None))[1] == pytest.approx(expected_w @ t, rel=1e-12)
    np.testing.assert_allclose(srcgrad.jacobian(maml, mode="forward")(w, x), expected_w, rtol=1e-12)
    assert np.array_equal(w, [0.5, -1.0, 2.0])
    assert "g = grad_quartic(w)" in srcgrad.source(srcgrad.grad(maml))
    np.testing.assert_allclose(srcgrad.grad(maml_named_inside)(X), 6 * X ** 5, rtol=1e-13)


def test_value_and_grad_and_wrt_made_inside():
    x, k = X, 1.5
    force = k * (x ** 3 - np.sin(x))
    dx, dk = srcgrad.grad(maml_value_and_grad, wrt=(0, 1))(x, k)
    np.testing.assert_allclose(dx, 3 * force + 2 * force * k * (3 * x ** 2 - np.cos(x)), rtol=1e-12)
    np.testing.assert_allclose(dx, srcgrad.grad(value_and_force_loss)(x, k), rtol=1e-15)
    assert dk == pytest.approx(srcgrad.grad(value_and_force_loss, wrt=1)(x, k), rel=1e-15)
    dk_dx = (x ** 3 - np.sin(x)) * np.sum(x) + (np.sum(x ** 4) / 4 + np.sum(np.cos(x)))
    np.testing.assert_allclose(srcgrad.grad(maml_other_parameter)(x, k), dk_dx, rtol=1e-12)
    np.testing.assert_allclose(srcgrad.grad(maml_other_parameter)(x, k), numerical_grad(maml_other_parameter, (x, k), 0),
                               rtol=1e-7)


def made_of_a_nested_function(w):
    def inner(v):
        return np.sum(v ** 4)

    return srcgrad.grad(inner)(w)


def made_of_a_lambda(w):
    return np.sum(srcgrad.grad(lambda v: np.sum(v ** 4))(w))


def made_with_a_variable_option(w, k):
    return np.sum(srcgrad.grad(energy, wrt=k)(w, 2.0))


@pytest.mark.parametrize("fn, message", [
    (made_of_a_nested_function, r"`srcgrad.grad\(inner\)` in `made_of_a_nested_function` differentiates `inner`, a "
     "function defined in `made_of_a_nested_function`: .* define `inner` at module level"),
    (made_of_a_lambda, "differentiates a `lambda`: .* make it at module level"),
    (made_with_a_variable_option, "its options .* must be constants"),
], ids=lambda v: getattr(v, "__name__", ""))
def test_a_transform_made_inside_of_what_the_compiler_cannot_find_is_refused_at_its_line(fn, message):
    with pytest.raises(srcgrad.NotDifferentiableError, match=message) as info:
        srcgrad.grad(fn)
    assert info.value.filename == __file__ and "srcgrad.grad(" in info.value.text


def test_a_hessian_through_a_gradient_made_inside_stays_refused_as_outside():
    with pytest.raises(srcgrad.NotDifferentiableError, match="it is the rule srcgrad gives `quartic_grad`"):
        srcgrad.hessian(maml)(X, X)
