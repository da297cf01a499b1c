"""Regressions from a hunt for wrong derivatives in forward mode, higher derivatives,
pytrees and custom rules: each compared with central differences, JAX-style closed forms
or the other mode (programs in hunt_higher_order_programs.py where they are shared)."""

import types

import numpy as np
import pytest

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
