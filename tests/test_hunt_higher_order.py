"""Regressions from a hunt for wrong derivatives in forward mode, higher derivatives,
pytrees and custom rules: each compared with central differences, JAX-style closed forms
or the other mode (programs in hunt_higher_order_programs.py where they are shared)."""

import types

import numpy as np
import pytest

import hunt_higher_order_programs as programs
import srcgrad
from conftest import numerical_grad

X = np.array([0.3, -0.7, 1.1])


# --- custom rules of functions with keyword-only parameters --------------------------
# A rule takes `ans` and then every parameter of the function; the generated call passed
# the positional defaults but not those of keyword-only parameters, so a rule called
# (not inlined) failed with a TypeError, or ran with its own default, not the function's.


@srcgrad.custom_vjp
def power_kw(x, *, power=3.0):
    return x ** power


@power_kw.defvjp
def power_kw_vjp(g, ans, x, power):
    return g * power * x ** (power - 1)


@srcgrad.custom_jvp
def power_kw_fwd(x, *, power=3.0):
    return x ** power


@power_kw_fwd.defjvp
def power_kw_fwd_jvp(t, ans, x, power):
    return t * power * x ** (power - 1)


def _third_party_power():
    module = types.ModuleType("third_party")
    exec("def power(x, *, k=3.0):\n    return x ** k\n", module.__dict__)
    srcgrad.defvjp(module.power, lambda g, ans, x, k: g * k * x ** (k - 1))
    return module


THIRD_PARTY = _third_party_power()


def uses_power_kw(x):
    return np.sum(power_kw(x) + power_kw(x, power=2.0))


def uses_power_kw_fwd(x):
    return np.sum(power_kw_fwd(x) + power_kw_fwd(x, power=2.0))


def uses_third_party_power(x):
    return np.sum(THIRD_PARTY.power(x))


@pytest.mark.parametrize("fn", [uses_power_kw, uses_power_kw_fwd])
def test_a_custom_rule_gets_the_default_of_a_keyword_only_parameter(fn):
    expected = 3 * X ** 2 + 2 * X
    assert np.allclose(srcgrad.grad(fn)(X), expected)
    assert np.allclose(numerical_grad(fn, (X,), 0), expected, atol=1e-6)
    _, tangent = srcgrad.jvp(uses_power_kw_fwd, (X,), (np.ones(3),))
    assert np.isclose(tangent, np.sum(expected))


def test_a_third_party_rule_gets_the_default_of_a_keyword_only_parameter():
    assert np.allclose(srcgrad.grad(uses_third_party_power)(X), 3 * X ** 2)


def test_a_tensor_through_a_custom_function_with_a_keyword_only_default():
    t = srcgrad.tensor(X, requires_grad=True)
    power_kw(t).sum().backward()
    assert np.allclose(t.grad.numpy(), 3 * X ** 2)


# --- a rule srcgrad calls, differentiated again -------------------------------------------


def test_a_lambda_rule_under_a_hessian_is_refused_naming_the_rule():
    module = types.ModuleType("third_party")
    exec("import numpy as np\ndef atan3(x):\n    return np.arctan(x) * 3.0\n", module.__dict__)
    srcgrad.defvjp(module.atan3, lambda g, ans, x: g * 3.0 / (1 + x * x))
    srcgrad.defjvp(module.atan3, lambda t, ans, x: t * 3.0 / (1 + x * x))

    def f(x):
        return np.sum(module.atan3(x * x))

    assert np.allclose(srcgrad.grad(f)(X), 6 * X / (1 + X ** 4))
    with pytest.raises(srcgrad.NotDifferentiableError, match=r"your vjp rule `<lambda>` of `atan3`.*write the rule as a `def`") as info:
        srcgrad.hessian(f)(X)
    assert "test_hunt_higher_order.py" in str(info.value)


def test_a_dict_tangent_with_other_keys_is_refused_naming_both():
    def f(d):
        return d["k"] * 2.0

    with pytest.raises(TypeError, match=r"dict of 1 \(keys 'k'\), not dict of 1 \(keys 'j'\)"):
        srcgrad.jvp(f, ({"k": X},), ({"j": X},))


# --- custom functions of several results --------------------------------------------------


@srcgrad.custom_vjp
def product_and_sine(x, y):
    return x * y, np.sin(x)


@product_and_sine.defvjp
def product_and_sine_vjp(g, ans, x, y):
    g_product, g_sine = g
    return g_product * y + g_sine * np.cos(x), g_product * x


@product_and_sine.defjvp
def product_and_sine_jvp(t_x, t_y, ans, x, y):
    return (t_x * y + t_y * x, t_x * np.cos(x))


def both_results(x, y):
    a, b = product_and_sine(x, y)
    return np.sum(a * b) + np.sum(a)


def both_results_by_hand(x, y):
    a, b = x * y, np.sin(x)
    return np.sum(a * b) + np.sum(a)


def first_result(x, y):
    a, _ = product_and_sine(x, y)
    return np.sum(a ** 2)


def first_result_by_hand(x, y):
    return np.sum((x * y) ** 2)


def second_result(x, y):
    return np.sum(product_and_sine(x, y)[1] ** 3)


def second_result_by_hand(x, y):
    return np.sum(np.sin(x) ** 3)


Y = np.array([1.5, 0.2, -0.4])
SEVERAL = [(both_results, both_results_by_hand), (first_result, first_result_by_hand),
           (second_result, second_result_by_hand)]


@pytest.mark.parametrize("fn, by_hand", SEVERAL)
def test_a_tuple_valued_custom_function_in_forward_mode_adds_each_parameters_tangent(fn, by_hand):
    # the tangents of x and y, each a tuple, were joined by `+` end to end: y's was lost
    tangents = (np.array([1.0, -0.5, 2.0]), np.array([0.3, 1.0, -1.0]))
    _, tangent = srcgrad.jvp(fn, (X, Y), tangents)
    gx, gy = srcgrad.grad(by_hand, wrt=(0, 1))(X, Y)
    assert np.isclose(tangent, np.dot(gx, tangents[0]) + np.dot(gy, tangents[1]))


@pytest.mark.parametrize("fn, by_hand", SEVERAL)
def test_a_rule_reading_entries_of_the_cotangent_gets_zeros_for_unused_results(fn, by_hand):
    # the rule got None for a result the function did not use: a TypeError inside the rule
    got = srcgrad.grad(fn, wrt=(0, 1))(X, Y)
    for g, expected in zip(got, srcgrad.grad(by_hand, wrt=(0, 1))(X, Y)):
        assert np.allclose(g, expected)
    assert np.allclose(got[0], numerical_grad(by_hand, (X, Y), 0), atol=1e-6)


@pytest.mark.parametrize("fn, by_hand", SEVERAL)
def test_the_hessian_through_a_custom_function_of_several_parameters_and_results(fn, by_hand):
    # the check picking one parameter's gradient out of the rule's tuple had no forward rule
    got = srcgrad.hessian(fn, wrt=(0, 1))(X, Y)
    expected = srcgrad.hessian(by_hand, wrt=(0, 1))(X, Y)
    for i in range(2):
        for j in range(2):
            assert np.allclose(got[i][j], expected[i][j])


def test_second_derivative_of_floats_through_a_tuple_valued_custom_function():
    def f(x):
        a, b = product_and_sine(x, x * x)
        return a * b

    x = 0.7
    expected = 6 * x * np.sin(x) + 6 * x ** 2 * np.cos(x) - x ** 3 * np.sin(x)  # (x**3 sin x)''
    assert np.isclose(srcgrad.grad(srcgrad.grad(f))(x), expected)
    assert np.isclose(srcgrad.hessian(f)(x), expected)
    with pytest.raises(srcgrad.NotDifferentiableError, match="forward rule of several tangents"):
        srcgrad.grad(srcgrad.grad(srcgrad.grad(f)))(x)


@srcgrad.custom_vjp
def two_named(x):
    return {"double": x * 2.0, "sine": np.sin(x)}


@two_named.defvjp
def two_named_vjp(g, ans, x):
    return 2.0 * g["double"] + g["sine"] * np.cos(x)


def test_a_dict_result_used_in_part_gives_the_rule_every_key():
    def f(x):
        return np.sum(two_named(x)["sine"] ** 2)

    assert np.allclose(srcgrad.grad(f)(X), np.sin(2 * X))
    out, pullback = srcgrad.vjp(two_named, X)
    assert np.allclose(pullback({"sine": np.ones(3)})[0], np.cos(X))


def energy(x, y):
    return np.sum(np.sin(x) * y ** 2)


energy_value_and_grad = srcgrad.value_and_grad(energy)


def calls_value_and_grad(x, y):
    value, g = energy_value_and_grad(x, y)
    return value + np.sum(g)


def test_forward_mode_through_a_called_value_and_grad_of_two_varying_arguments():
    # the (value, gradient) tangents of x and y were joined end to end, y's lost
    x, y = X[:2], Y[:2]
    _, tangent = srcgrad.jvp(calls_value_and_grad, (x, y), (np.ones(2), np.ones(2)))
    gx, gy = srcgrad.grad(calls_value_and_grad, wrt=(0, 1))(x, y)
    assert np.isclose(tangent, np.sum(gx) + np.sum(gy))
    assert np.allclose(gx, numerical_grad(calls_value_and_grad, (x, y), 0), atol=1e-6)


@srcgrad.custom_jvp
def scaled_entries(d):
    return d["a"] * d["b"]


@scaled_entries.defjvp
def scaled_entries_jvp(t, ans, d):
    return t["a"] * d["b"] + t["b"] * d["a"]


def test_reverse_mode_through_a_forward_rule_of_a_dict_parameter_is_refused_clearly():
    # the transposition made zeros of np.shape(dict): NumPy's "entry not a 2- or 3- tuple"
    def f(x, y):
        return np.sum(scaled_entries({"a": x, "b": y}) ** 2)

    _, tangent = srcgrad.jvp(f, (X, Y), (np.ones(3), np.zeros(3)))
    assert np.isclose(tangent, np.sum(2 * (X * Y) * Y))
    with pytest.raises(TypeError, match=r"`scaled_entries` one element of `d` at a time.*not a dict.*reverse rule"):
        srcgrad.grad(f)(X, Y)


# --- Hessians of the hunt's programs ----------------------------------------------------


def _central_jacobian(fn, x, eps=1e-6):
    return np.stack([(fn(x + eps * e) - fn(x - eps * e)) / (2 * eps) for e in np.eye(x.size)], axis=-1)


@pytest.mark.parametrize("fn", programs.PROGRAMS, ids=lambda f: f.__name__)
@pytest.mark.parametrize("x", [X, Y], ids=["x", "y"])
def test_hessian_of_a_hunt_program(fn, x):
    """Against central differences of the gradient, symmetric, and equal to the Jacobian
    of the gradient in both modes, the Hessian-vector product and a third derivative."""
    x0 = x.copy()
    H = srcgrad.hessian(fn)(x)
    assert np.array_equal(x, x0)
    grad = srcgrad.grad(fn)
    np.testing.assert_allclose(H, _central_jacobian(grad, x), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(H, H.T, atol=1e-10)
    np.testing.assert_allclose(srcgrad.jacobian(grad)(x), H, atol=1e-12)
    np.testing.assert_allclose(srcgrad.jacobian(srcgrad.jacobian(fn, mode="reverse"), mode="forward")(x), H, atol=1e-10)
    v = np.array([0.2, -1.0, 0.5])
    _, hv = srcgrad.jvp(grad, (x,), (v,))
    np.testing.assert_allclose(hv, H @ v, atol=1e-10)


def test_stop_gradient_holds_its_value_constant_in_every_second_derivative():
    fn, constant = programs.stop_gradient_of_the_max, np.max(X)
    expected = srcgrad.hessian(programs.shifted_by)(X, constant)
    np.testing.assert_allclose(srcgrad.hessian(fn)(X), expected, atol=1e-12)
    np.testing.assert_allclose(srcgrad.jacobian(srcgrad.grad(fn))(X), expected, atol=1e-12)
    _, hv = srcgrad.jvp(srcgrad.grad(fn), (X,), (Y,))
    np.testing.assert_allclose(hv, expected @ Y, atol=1e-12)
