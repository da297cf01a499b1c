"""Custom derivatives (custom_vjp, custom_jvp, defvjp, defjvp) and stop_gradient, checked
against closed forms and central finite differences."""

import types

import numpy as np
import pytest
from conftest import numerical_grad

import srcgrad
from srcgrad.rules import lookup

X = np.array([0.3, -1.2, 2.0])


@srcgrad.custom_vjp
def softplus(x):
    """log(1 + exp(x)), with its gradient given by hand."""
    return np.log1p(np.exp(x))


@softplus.defvjp
def softplus_vjp(g, ans, x):
    return g / (1.0 + np.exp(-x))


def sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def uses_softplus(w):
    h = softplus(w * 2.0)
    return np.sum(h * h)


def uses_softplus_grad(w):
    return 4.0 * softplus(2.0 * w) * sigmoid(2.0 * w)


@srcgrad.custom_vjp
def scaled_product(x, y):
    return x * y


@scaled_product.defvjp
def scaled_product_vjp(g, ans, x, y):
    return g * y, g * x


# --- custom_vjp ----------------------------------------------------------------------


def test_custom_function_keeps_name_docstring_signature_and_value():
    assert softplus.__name__ == "softplus"
    assert softplus.__doc__ == "log(1 + exp(x)), with its gradient given by hand."
    assert str(__import__("inspect").signature(softplus)) == "(x)"
    assert np.allclose(softplus(X), np.log1p(np.exp(X)))
    assert softplus_vjp(1.0, None, 0.0) == 0.5  # the rule stays a plain function


def test_grad_of_custom_function_uses_the_rule():
    @srcgrad.custom_vjp
    def identity(x):
        return x

    @identity.defvjp
    def identity_vjp(g, ans, x):
        return 3.0 * g  # not the true derivative: shows the rule is what runs

    assert srcgrad.grad(identity)(1.5) == 3.0
    assert np.allclose(srcgrad.grad(softplus)(0.3), sigmoid(0.3))


def test_custom_function_called_from_another_function():
    g = srcgrad.grad(uses_softplus)(X)
    assert np.allclose(g, uses_softplus_grad(X))
    assert np.allclose(g, numerical_grad(uses_softplus, [X], 0))
    value, g2 = srcgrad.value_and_grad(uses_softplus)(X)
    assert np.isclose(value, uses_softplus(X)) and np.allclose(g2, g)
    out, pullback = srcgrad.vjp(uses_softplus, X)
    assert np.isclose(out, uses_softplus(X))
    assert np.allclose(pullback(1.0)[0], g)


def test_vjp_of_custom_function_directly():
    out, pullback = srcgrad.vjp(softplus, X)
    seed = np.array([1.0, 2.0, -1.0])
    assert np.allclose(out, np.log1p(np.exp(X)))
    assert np.allclose(pullback(seed)[0], seed * sigmoid(X))


def test_custom_rule_is_inlined_inside_its_check():
    text = srcgrad.source(srcgrad.grad(uses_softplus))
    assert "check_softplus_x(h_bar / (1.0 + np.exp(-w_times_2_0)), w_times_2_0)" in text
    assert "softplus(w_times_2_0)" in text


def test_several_parameters_return_a_tuple():
    def f(a, b):
        return np.sum(scaled_product(a, b) * a)

    a, b = X, np.array([1.0, 0.5, -2.0])
    ga, gb = srcgrad.grad(f, wrt=(0, 1))(a, b)
    assert np.allclose(ga, 2 * a * b) and np.allclose(gb, a * a)
    assert np.allclose(ga, numerical_grad(f, [a, b], 0))
    assert np.allclose(gb, numerical_grad(f, [a, b], 1))


def test_nondiff_argnums_and_none_gradients():
    @srcgrad.custom_vjp(nondiff_argnums=(1,))
    def power(x, n):
        return x ** n

    @power.defvjp
    def power_vjp(g, ans, x, n):
        return g * n * x ** (n - 1)

    @srcgrad.custom_vjp
    def first(x, y):
        return x + 0.0 * np.sum(y)

    @first.defvjp
    def first_vjp(g, ans, x, y):
        return g, None  # None: zero gradient

    assert np.isclose(srcgrad.grad(_call(power, 3))(2.0), 12.0)
    assert np.allclose(srcgrad.grad(first, wrt=1)(1.0, X), np.zeros(3))
    with pytest.raises(srcgrad.NotDifferentiableError, match="power"):
        srcgrad.grad(power, wrt=1)(2.0, 3.0)


def _call(fn, n):
    def uses(x):
        return fn(x, n)

    return uses


def test_rule_parameter_names_need_not_match():
    @srcgrad.custom_vjp
    def cube(value):
        return value ** 3

    @cube.defvjp
    def cube_vjp(cotangent, output, v):
        return cotangent * 3.0 * v ** 2

    assert np.allclose(srcgrad.grad(lambda_free(cube))(X), 3 * X ** 2)


def lambda_free(fn):
    def total(x):
        return np.sum(fn(x))

    return total


def test_rules_with_several_statements_closures_and_lambdas():
    scale = 2.0

    @srcgrad.custom_vjp
    def double(x):
        return scale * x

    @double.defvjp
    def double_vjp(g, ans, x):
        out = g * scale  # reads the enclosing function's `scale`
        return out

    @srcgrad.custom_vjp
    def triple(x):
        return 3.0 * x

    triple.defvjp(lambda g, ans, x: 3.0 * g)

    @srcgrad.custom_vjp
    def halve(x):
        return 0.5 * x

    @halve.defvjp
    def halve_vjp(g, ans, x):
        return g * half  # a closure cell, inlined

    half = 0.5
    assert np.allclose(srcgrad.grad(lambda_free(double))(X), 2.0)
    assert np.allclose(srcgrad.grad(lambda_free(triple))(X), 3.0)
    assert np.allclose(srcgrad.grad(lambda_free(halve))(X), 0.5)
    assert "half" in srcgrad.source(srcgrad.grad(lambda_free(halve)))


def test_custom_function_in_the_tensor_shim():
    import srcgrad as torch

    t = torch.tensor([0.3, -1.2, 2.0], requires_grad=True)
    y = softplus(t)
    assert type(y.grad_fn).__name__ == "SoftplusBackward0"
    y.sum().backward()
    assert np.allclose(t.grad.numpy(), sigmoid(X))


# --- third-party functions ------------------------------------------------------------

thirdparty = types.ModuleType("thirdparty")
exec(
    "import numpy as np\n"
    "def smooth_abs(x, eps):\n    return np.sqrt(x * x + eps)\n"
    "def shifted(x, shift=1.0):\n    return x + shift\n",
    thirdparty.__dict__,
)
srcgrad.defvjp(thirdparty.smooth_abs, lambda g, ans, x, eps: g * x / ans, None)


def smooth_abs_grad_x(g, ans, x, shift):
    return g


def uses_thirdparty(x):
    return np.sum(thirdparty.smooth_abs(x, 0.1))


def test_defvjp_on_a_third_party_function():
    g = srcgrad.grad(uses_thirdparty)(X)
    assert np.allclose(g, X / np.sqrt(X * X + 0.1))
    assert np.allclose(g, numerical_grad(uses_thirdparty, [X], 0))
    assert thirdparty.smooth_abs(3.0, 16.0) == 5.0  # the function itself is untouched


def test_a_function_given_rules_is_differentiated_by_them_when_differentiated_itself():
    """`grad(f)` of a function given a rule by `srcgrad.defvjp` read f's source and ignored
    the rule that `grad(lambda x: f(x))` applied."""
    module = types.ModuleType("ruled")
    exec("import numpy as np\ndef f(x, scale=np.float64(2.0)):\n    return np.sin(x) * scale\n", module.__dict__)
    srcgrad.defvjp(module.f, lambda g, ans, x, scale: g * 100.0, None)
    assert srcgrad.grad(module.f)(0.5) == 100.0
    assert srcgrad.grad(lambda x: module.f(x))(0.5) == 100.0
    assert srcgrad.grad(module.f)(0.5, 3.0) == 100.0  # its defaults are kept, and may be passed
    assert module.f(0.5) == np.sin(0.5) * 2.0


def test_none_marks_a_position_with_no_derivative():
    def uses_eps(eps):
        return np.sum(thirdparty.smooth_abs(X, eps))

    with pytest.raises(srcgrad.NotDifferentiableError, match="smooth_abs.*`eps`"):
        srcgrad.grad(uses_eps)(0.1)


def test_defvjp_with_a_default_argument_and_a_module_level_rule():
    srcgrad.defvjp(thirdparty.shifted, smooth_abs_grad_x)

    def f(x):
        return np.sum(thirdparty.shifted(x) * x)

    assert np.allclose(srcgrad.grad(f)(X), 2 * X + 1.0)


def test_hessian_through_a_forward_rule_alone_asks_for_a_reverse_rule():
    """Forward over the gradient of a custom_jvp function with no reverse rule met the
    transposed forward rule, and the refusal said to register a rule for an object of
    srcgrad's own (`soft_vjp_x`); it now names the function and asks for `.defvjp`,
    with which the Hessian is exact."""
    @srcgrad.custom_jvp
    def soft(x):
        return np.log1p(np.exp(x))

    @soft.defjvp
    def soft_jvp(t, ans, x):
        return t / (1.0 + np.exp(-x))

    def f(x):
        return np.sum(soft(x * x) * x)

    for second in (srcgrad.hessian(f), srcgrad.jacobian(srcgrad.grad(f))):
        with pytest.raises(srcgrad.NotDifferentiableError, match=r"`soft` has only a forward rule .*`@soft\.defvjp`"):
            second(X)

    @soft.defvjp
    def soft_vjp(g, ans, x):
        return g / (1.0 + np.exp(-x))

    s = sigmoid(X * X)  # f = sum(softplus(x^2) x): f'' = 6 x s + 4 x^3 s (1 - s), elementwise
    np.testing.assert_allclose(srcgrad.hessian(f)(X), np.diag(6 * X * s + 4 * X ** 3 * s * (1 - s)), rtol=1e-12)


def test_defjvp_on_a_third_party_function_serves_reverse_mode():
    module = types.ModuleType("thirdparty_jvp")
    exec("import numpy as np\ndef cube(x):\n    return x ** 3\n", module.__dict__)
    srcgrad.defjvp(module.cube, lambda t, ans, x: 3.0 * x ** 2 * t)

    def f(x):
        return np.sum(module.cube(x))

    assert np.allclose(srcgrad.grad(f)(X), 3 * X ** 2)


def test_builtin_rules_cannot_be_replaced():
    with pytest.raises(ValueError, match="numpy.sin already has a built-in derivative rule"):
        srcgrad.defvjp(np.sin, lambda g, ans, x: g)


# --- custom_jvp -----------------------------------------------------------------------


@srcgrad.custom_jvp
def safe_log(x):
    return np.log(x)


@safe_log.defjvp
def safe_log_jvp(t, ans, x):
    return t / x


@srcgrad.custom_jvp
def mixed(x, y):
    return x * np.sin(y)


@mixed.defjvp
def mixed_jvp(t_x, t_y, ans, x, y):
    return t_x * np.sin(y) + t_y * x * np.cos(y)


def test_custom_jvp_rule_is_registered_per_parameter():
    rule = lookup(mixed)
    assert np.isclose(rule.jvp("x", 1.0, None, 2.0, 0.5), np.sin(0.5))
    assert np.isclose(rule.jvp("y", 1.0, None, 2.0, 0.5), 2.0 * np.cos(0.5))
    assert np.isclose(lookup(safe_log).jvp("x", 2.0, None, 4.0), 0.5)


def test_reverse_mode_transposes_a_custom_jvp_rule():
    def f(x):
        return np.sum(safe_log(x) * x)

    x = np.abs(X) + 0.5
    assert np.allclose(srcgrad.grad(f)(x), np.log(x) + 1.0)

    def g(a, b):
        return np.sum(mixed(a, b))

    ga, gb = srcgrad.grad(g, wrt=(0, 1))(X, 0.5)
    assert np.allclose(ga, np.sin(0.5)) and np.isclose(gb, np.sum(X) * np.cos(0.5))
    assert np.isclose(gb, numerical_grad(g, [X, 0.5], 1))


def test_a_vjp_rule_takes_precedence_over_the_transposed_jvp():
    @srcgrad.custom_jvp
    def twice(x):
        return 2.0 * x

    twice.defjvp(lambda t, ans, x: 2.0 * t)

    @twice.defvjp
    def twice_vjp(g, ans, x):
        return 5.0 * g  # deliberately different, to see which rule runs

    assert np.allclose(srcgrad.grad(lambda_free(twice))(X), 5.0)


@srcgrad.custom_jvp
def doubled_and_squared(x):
    return x * 2.0, x ** 2


@doubled_and_squared.defjvp
def doubled_and_squared_jvp(t, ans, x):
    return (t * 2.0, 2.0 * x * t)


@srcgrad.custom_jvp
def norm_and_scaled(x):
    return np.sum(x ** 2), x * 3.0  # results of different shapes


@norm_and_scaled.defjvp
def norm_and_scaled_jvp(t, ans, x):
    return np.sum(2.0 * x * t), 3.0 * t


def test_reverse_mode_transposes_a_custom_jvp_rule_of_several_results():
    """The transposed rule multiplied the tuple cotangent by the tuple tangent (TypeError:
    can't multiply sequence by non-int of type 'tuple'); the pairing sums over the
    results. Results of different shapes failed the rule's check (NumPy's ValueError, an
    inhomogeneous shape), in forward mode too."""
    def f(x):
        a, b = doubled_and_squared(x)
        return np.sum(a + b * x)

    def g(x):
        s, y = norm_and_scaled(x)
        return s * np.sum(y)

    def second_only(x):
        return np.sum(norm_and_scaled(x)[1] ** 2)  # the cotangent of the first result is None

    t = np.array([0.5, 1.0, -2.0])
    for fn, want in ((f, 2.0 + 3.0 * X ** 2), (g, 6.0 * X * np.sum(X) + 3.0 * np.sum(X ** 2)), (second_only, 18.0 * X)):
        gradient = srcgrad.grad(fn)(X)
        np.testing.assert_allclose(gradient, want, rtol=1e-14)
        np.testing.assert_allclose(gradient, numerical_grad(fn, [X], 0), rtol=1e-7)
        np.testing.assert_allclose(srcgrad.vjp(fn, X)[1](1.0)[0], want, rtol=1e-14)
        np.testing.assert_allclose(srcgrad.jacobian(fn, mode="reverse")(X), want, rtol=1e-14)
        assert srcgrad.jvp(fn, (X,), (t,))[1] == pytest.approx(want @ t, rel=1e-14)


needs_jvp = pytest.mark.skipif(not hasattr(srcgrad, "jvp"), reason="forward mode is not public yet")


@needs_jvp
def test_forward_mode_uses_custom_jvp_rules():
    x = np.abs(X) + 0.5
    t = np.array([1.0, -2.0, 0.5])
    out, out_dot = srcgrad.jvp(safe_log, (x,), (t,))
    assert np.allclose(out, np.log(x)) and np.allclose(out_dot, t / x)

    def f(a, b):
        return mixed(a, b) * 2.0

    out, out_dot = srcgrad.jvp(f, (X, 0.5), (t, 1.0))
    assert np.allclose(out_dot, 2.0 * (t * np.sin(0.5) + X * np.cos(0.5)))


@needs_jvp
def test_forward_mode_of_a_custom_vjp_function_needs_a_jvp_rule():
    with pytest.raises(srcgrad.NotDifferentiableError, match="softplus"):
        srcgrad.jvp(uses_softplus, (X,), (X,))


# --- bad rules --------------------------------------------------------------------------


def _custom(rule, nargs=1):
    if nargs == 1:
        @srcgrad.custom_vjp
        def bad(x):
            return np.sum(x)
    else:
        @srcgrad.custom_vjp
        def bad(x, y):
            return np.sum(x * y)
    bad.defvjp(rule)
    return bad


def test_wrong_gradient_shape_names_the_function_and_shapes():
    def bad_vjp(g, ans, x):
        return g  # a scalar for a vector parameter

    bad = _custom(bad_vjp)
    with pytest.raises(ValueError, match=r"rule `bad_vjp` of `bad` returned a gradient of shape \(\) for `x`, "
                                         r"which has shape \(3,\)"):
        srcgrad.grad(bad)(X)

    def outer(x):
        return bad(x) * 2.0

    with pytest.raises(ValueError, match="of `bad`"):
        srcgrad.grad(outer)(X)


def test_wrong_gradient_count_names_the_function():
    def too_many(g, ans, x):
        return g * np.ones_like(x), g * np.ones_like(x)

    with pytest.raises(ValueError, match=r"`too_many` of `bad` returned 2 values, but `bad` has 1 differentiable"):
        srcgrad.grad(_custom(too_many))(X)

    def too_few(g, ans, x, y):
        return g * y

    with pytest.raises(ValueError, match=r"`too_few` of `bad` returned one ndarray, but `bad` has 2 differentiable "
                                         r"parameters \(x, y\); return a tuple \(x_bar, y_bar\)"):
        srcgrad.grad(_custom(too_few, 2))(X, X)

    def three(g, ans, x, y):
        return g * y, g * x, g

    with pytest.raises(ValueError, match="returned 3 values"):
        srcgrad.grad(_custom(three, 2), wrt=1)(X, X)


def test_wrong_tangent_shape_names_the_function():
    @srcgrad.custom_jvp
    def total(x):
        return np.sum(x)

    total.defjvp(lambda t, ans, x: t)  # a vector tangent for a scalar output
    with pytest.raises(ValueError, match=r"`total` returns shape \(\)"):
        lookup(total).jvp("x", X, 1.0, X)

    @srcgrad.custom_jvp
    def pair(x):
        return np.sum(x), x * 2.0

    pair.defjvp(lambda t, ans, x: (2.0 * t,))  # one tangent for two results
    with pytest.raises(ValueError, match=r"rule `<lambda>` of `pair` returned a tuple of 1 entry as the tangent of "
                                         r"`ans`, a tuple of 2 entries; return the output's tangent"):
        srcgrad.grad(lambda x: pair(x)[0])(X)
    pair.defjvp(lambda t, ans, x: (t, 2.0 * t))  # a vector tangent for the scalar result
    with pytest.raises(ValueError, match=r"returned shape \(3,\) as the tangent of `ans\[0\]`, shape \(\)"):
        srcgrad.jvp(lambda x: pair(x)[1], (X,), (X,))


def test_a_rule_with_the_wrong_parameters_is_rejected_when_registered():
    @srcgrad.custom_vjp
    def f(x, y):
        return x * y

    with pytest.raises(TypeError, match=r"rule `f_vjp` of `f` must take \(g, ans, x, y\)"):
        @f.defvjp
        def f_vjp(g, x, y):
            return g * y, g * x


def test_differentiating_before_a_rule_exists_is_not_differentiable():
    @srcgrad.custom_vjp
    def later(x):
        return x * 2.0

    with pytest.raises(srcgrad.NotDifferentiableError, match="no derivative rule for `later`"):
        srcgrad.grad(later)(X)


# --- stop_gradient ------------------------------------------------------------------


def test_stop_gradient_is_the_identity_with_zero_derivative():
    def f(x):
        y = srcgrad.stop_gradient(x * x)
        return np.sum(y * x)

    value, g = srcgrad.value_and_grad(f)(X)
    assert np.isclose(value, np.sum(X ** 3))
    assert np.allclose(g, X * X)  # d/dx of c * x with c = x*x held constant
    assert srcgrad.stop_gradient(X) is X


def test_stop_gradient_alone_gives_a_zero_gradient():
    def f(x):
        return np.sum(srcgrad.stop_gradient(x)) + 0.0 * np.sum(x)

    assert np.allclose(srcgrad.grad(f)(X), np.zeros(3))


def test_stop_gradient_in_a_loop():
    def f(x):
        s = x
        for _ in range(3):
            s = s * srcgrad.stop_gradient(s)
        return np.sum(s)

    value, g = srcgrad.value_and_grad(f)(X)
    assert np.isclose(value, np.sum(X ** 8))
    assert np.allclose(g, X ** 7)  # only the last factor's own x carries a derivative at each step


def test_stop_gradient_on_tensors():
    import srcgrad as torch

    t = torch.tensor([1.0, 2.0], requires_grad=True)
    (srcgrad.stop_gradient(t) * t).sum().backward()
    assert t.grad.tolist() == [1.0, 2.0]


def test_hessian_sees_through_the_rule_check():
    @srcgrad.custom_vjp
    def soft(x):
        return np.log1p(np.exp(x))

    @soft.defvjp
    def soft_vjp(g, ans, x):
        return g / (1.0 + np.exp(-x))

    def f(x):
        return np.sum(soft(x))

    with pytest.raises(srcgrad.NotDifferentiableError, match="soft"):  # forward-over-reverse needs a jvp rule
        srcgrad.hessian(f)(X)

    @soft.defjvp
    def soft_jvp(t, ans, x):
        return t / (1.0 + np.exp(-x))

    s = sigmoid(X)
    assert np.allclose(srcgrad.hessian(f)(X), np.diag(s * (1 - s)))


def _calls_ruled(x):
    return np.sum(_ruled_later(x))


def _ruled_later(x):
    return np.sin(x)


def test_a_rule_defined_after_repeated_vjp_and_jvp_calls_reaches_the_next_ones():
    """`vjp` and `jvp` keep the derivative the last call of a plain function found; a rule
    given afterwards (`srcgrad.defvjp`/`defjvp`) forgets it, as it forgets the cache."""
    x = np.array([0.3, 1.2])
    for _ in range(2):
        np.testing.assert_allclose(srcgrad.vjp(_calls_ruled, x)[1](1.0)[0], np.cos(x))
        assert srcgrad.jvp(_calls_ruled, (x,), (np.ones(2),))[1] == pytest.approx(np.sum(np.cos(x)))
    srcgrad.defvjp(_ruled_later, lambda g, ans, x: g * 7.0)
    srcgrad.defjvp(_ruled_later, lambda t, ans, x: t * 7.0)
    np.testing.assert_allclose(srcgrad.vjp(_calls_ruled, x)[1](1.0)[0], [7.0, 7.0])
    assert srcgrad.jvp(_calls_ruled, (x,), (np.ones(2),))[1] == pytest.approx(14.0)


def _product(g, ans):  # parameters named as the rules' own first two
    return g * ans


srcgrad.defvjp(_product, lambda gb, a, g, ans: gb * ans, lambda gb, a, g, ans: gb * g)
srcgrad.defjvp(_product, lambda t, a, g, ans: t * ans, lambda t, a, g, ans: t * g)


def test_rules_of_a_function_with_parameters_named_g_and_ans():
    # defvjp raised a bare "ValueError: duplicate parameter name: 'g'" (the rule's
    # signature put its own g and ans before the function's)
    assert srcgrad.grad(lambda x: _product(x, 3.0))(2.0) == 3.0
    assert srcgrad.grad(lambda x: _product(2.5, x))(2.0) == 2.5
    assert srcgrad.jvp(lambda x: _product(x, x), (2.0,), (1.0,)) == (4.0, 4.0)


def _positional_product(x, /, y):
    return x * y


srcgrad.defvjp(_positional_product, lambda g, a, x, y: g * y, lambda g, a, x, y: g * x)


def test_rules_of_a_function_with_positional_only_parameters():
    # "ValueError: wrong parameter order" at defvjp
    assert srcgrad.grad(lambda x: _positional_product(x, 3.0))(2.0) == 3.0
    assert srcgrad.grad(lambda y: _positional_product(4.0, y))(2.0) == 4.0


def test_a_gradient_of_a_function_with_a_parameter_named_g_differentiated_again():
    # srcgrad.grad(phi) called inside a differentiated function, phi's first parameter
    # named g: the ValueError above, from the rules srcgrad gives the gradient
    def phi(g, x):
        return np.sum(np.tanh(x) * g)

    def outer(x):
        return np.sum(srcgrad.grad(phi, wrt=1)(np.ones(2), x) ** 2)

    x = np.array([0.3, -0.5])
    th = np.tanh(x)
    expected = 2 * (1 - th**2) * (-2 * th * (1 - th**2))
    np.testing.assert_allclose(srcgrad.grad(outer)(x), expected, rtol=1e-12)
    np.testing.assert_allclose(srcgrad.grad(outer)(x), numerical_grad(outer, [x], 0), rtol=1e-6)
