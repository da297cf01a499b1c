"""Functions passed as arguments to other user functions (`rk4_step(rhs, y, h)`, a default
`act=np.tanh`): the callee is differentiated with that parameter bound to the function
the call names (bound_calls.with_functions), in both modes and to second order."""

import math

import numpy as np
import pytest

import srcgrad
from conftest import numerical_grad
from program_checks import check


def rhs(y):
    return -0.5 * y + np.sin(y)


def decay(y):
    return -2.0 * y


def rk4_step(f, y, h):
    k1 = f(y)
    k2 = f(y + 0.5 * h * k1)
    k3 = f(y + 0.5 * h * k2)
    k4 = f(y + h * k3)
    return y + h / 6.0 * (k1 + 2 * k2 + 2 * k3 + k4)


def simulate(y0, h):
    y = y0
    for _ in range(10):
        y = rk4_step(rhs, y, h)
    return np.sum(y ** 2)


def two_systems(y0, h):
    a = rk4_step(rhs, y0, h)
    b = rk4_step(decay, y0, h)
    return np.sum(a * b)


def layer(x, W, act=np.tanh):
    return act(x @ W)


def two_activations(x, W):
    return np.sum(layer(x, W) ** 2) + np.sum(layer(x, W, act=np.sin)) + np.sum(layer(x, W, np.exp))


def apply_twice(f, x):
    return f(f(x))


def through_two_levels(f, x):
    return apply_twice(f, x) * 2.0


def nested(x):
    return np.sum(through_two_levels(np.cos, x) + through_two_levels(rhs, x))


def via_variable(y0, h):
    g = rhs
    return np.sum(rk4_step(g, y0, h))


def via_a_variable_bound_in_a_branch(y0, h, stiff=False):
    g = decay if stiff else rhs
    return np.sum(rk4_step(g, y0, h))


Y0 = np.array([1.0, 2.0, -0.5])


def _exact_rk4(y0, h):
    """simulate's gradient by the chain rule written out: each RK4 stage's Jacobian is
    diagonal (rhs acts element-wise), so the step's derivative is a product of scalars."""
    def drhs(y):
        return -0.5 + np.cos(y)

    y, d = y0.copy(), np.ones_like(y0)
    for _ in range(10):
        k1 = rhs(y)
        d1 = drhs(y)
        y2 = y + 0.5 * h * k1
        k2 = rhs(y2)
        d2 = drhs(y2) * (1 + 0.5 * h * d1)
        y3 = y + 0.5 * h * k2
        k3 = rhs(y3)
        d3 = drhs(y3) * (1 + 0.5 * h * d2)
        y4 = y + h * k3
        k4 = rhs(y4)
        d4 = drhs(y4) * (1 + h * d3)
        d = d * (1 + h / 6.0 * (d1 + 2 * d2 + 2 * d3 + d4))
        y = y + h / 6.0 * (k1 + 2 * k2 + 2 * k3 + k4)
    return 2 * y * d


def test_a_global_function_passed_to_an_integrator():
    g = srcgrad.grad(simulate)(Y0, 0.1)
    assert g.shape == Y0.shape and g.dtype == np.float64
    np.testing.assert_allclose(g, _exact_rk4(Y0, 0.1), rtol=1e-12)
    np.testing.assert_allclose(g, numerical_grad(simulate, (Y0, 0.1), 0), rtol=1e-7)
    gh = srcgrad.grad(simulate, wrt=1)(Y0, 0.1)
    assert gh == pytest.approx(numerical_grad(simulate, (Y0, 0.1), 1), rel=1e-7)


def test_forward_mode_and_the_hessian_follow_the_same_binding():
    t = np.array([0.3, -0.2, 0.7])
    out, out_dot = srcgrad.jvp(simulate, (Y0, 0.1), (t, 0.0))
    assert out == pytest.approx(simulate(Y0, 0.1), rel=1e-14)
    assert out_dot == pytest.approx(float(_exact_rk4(Y0, 0.1) @ t), rel=1e-12)
    H = srcgrad.hessian(simulate)(Y0, 0.1)
    gradient = srcgrad.grad(simulate)
    by_differences = np.stack([numerical_grad(lambda y: gradient(y, 0.1)[k], (Y0,), 0) for k in range(3)])
    np.testing.assert_allclose(H, H.T, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(H, by_differences, rtol=1e-6, atol=1e-8)


def test_each_function_passed_gets_its_own_derivative():
    df = srcgrad.grad(two_systems)
    np.testing.assert_allclose(df(Y0, 0.1), numerical_grad(two_systems, (Y0, 0.1), 0), rtol=1e-7)
    text = srcgrad.source(df)  # both steps spliced, each with its function's own code
    assert "_pullback" not in text and "np.sin(y0_plus_t1)" in text and "k2_1 = -2.0 * y0_plus_t11" in text


def test_each_function_passed_to_a_call_that_stays_a_call_gets_its_own_pullback(calls_kept):
    df = srcgrad.grad(two_systems)
    np.testing.assert_allclose(df(Y0, 0.1), numerical_grad(two_systems, (Y0, 0.1), 0), rtol=1e-7)
    text = srcgrad.source(df)
    assert "Pullback of rk4_step (f = rhs)" in text and "Pullback of rk4_step (f = decay)" in text
    assert "rhs_pullback" in text and "decay_pullback" in text


def test_a_default_function_and_one_passed_by_keyword_or_position():
    rng = np.random.default_rng(2)
    x, W = rng.normal(size=(4, 3)), 0.3 * rng.normal(size=(3, 2))
    g = srcgrad.grad(two_activations, wrt=1)(x, W)
    h = np.tanh(x @ W)
    exact = x.T @ (2 * h * (1 - h * h)) + x.T @ np.cos(x @ W) + x.T @ np.exp(x @ W)
    np.testing.assert_allclose(g, exact, rtol=1e-12)
    text = srcgrad.source(srcgrad.grad(two_activations, wrt=1))
    assert "(act = np.tanh)" in text and "(act = np.sin)" in text and "(act = np.exp)" in text


def test_a_function_passed_on_through_two_levels():
    x = np.array([0.4, -1.2])
    g = srcgrad.grad(nested)(x)
    np.testing.assert_allclose(g, numerical_grad(nested, (x,), 0), rtol=1e-7)
    out, out_dot = srcgrad.jvp(nested, (x,), (np.array([1.0, -2.0]),))
    assert out_dot == pytest.approx(float(g @ np.array([1.0, -2.0])), rel=1e-12)


def test_a_function_passed_through_a_name_bound_once_is_the_function_itself():
    direct = lambda y0, h: np.sum(rk4_step(rhs, y0, h))  # noqa: E731
    np.testing.assert_allclose(srcgrad.grad(via_variable, wrt=1)(Y0, 0.1),
                               numerical_grad(direct, (Y0, 0.1), 1), rtol=1e-7)
    np.testing.assert_array_equal(srcgrad.grad(via_variable)(Y0, 0.1), srcgrad.grad(direct)(Y0, 0.1))


def test_a_function_the_call_does_not_name_is_refused_at_the_line_that_calls_it():
    with pytest.raises(srcgrad.NotDifferentiableError) as info:
        srcgrad.grad(via_a_variable_bound_in_a_branch, wrt=1)
    message = str(info.value)
    assert "`rk4_step` calls its parameter `f`, which holds no function" in message
    assert "pass the function itself" in message
    assert info.value.filename.endswith("test_function_arguments.py")
    assert "f(" in info.value.text


sine_times = lambda v: np.sin(v) * v  # noqa: E731 - a helper bound to a global name


def calls_a_global_lambda(x):
    return np.sum(sine_times(x))


def test_a_lambda_bound_to_a_global_name_is_called_through_its_derivative():
    """The pullback and jvp of a global lambda were named `<lambda>_pullback` in the
    generated code, which did not compile (SyntaxError at the first call)."""
    x = np.array([0.3, 1.0, -0.7])
    expected = np.cos(x) * x + np.sin(x)
    g = srcgrad.grad(calls_a_global_lambda)(x)
    np.testing.assert_allclose(g, expected, rtol=1e-13)
    np.testing.assert_allclose(g, numerical_grad(calls_a_global_lambda, (x,), 0), rtol=1e-6, atol=1e-8)
    _, tangent = srcgrad.jvp(calls_a_global_lambda, (x,), (np.ones(3),))
    assert tangent == pytest.approx(np.sum(expected), rel=1e-13)
    np.testing.assert_allclose(np.diag(srcgrad.hessian(calls_a_global_lambda)(x)),
                               2 * np.cos(x) - x * np.sin(x), rtol=1e-12)
    assert "<lambda>" not in srcgrad.source(srcgrad.grad(calls_a_global_lambda))


def calls_a_local_alias(x, smooth=True):
    act = np.sin
    if smooth:
        act = np.tanh
    return np.sum(act(x))


def calls_through_function_aliases(x, w):
    act = np.tanh
    square = _square
    exp = math.exp

    def scaled(v):
        return 2.0 * v

    double = scaled
    pair = lambda v: v * w
    twice = pair
    h = act(x * w)
    return np.sum(square(h) + double(h)) * exp(w) + rk4_step(act, w, 0.1) + twice(w)


def _square(v):
    return v * v


def _rk4_of_tanh(w):
    return rk4_step(np.tanh, w, 0.1)


def calls_through_a_module_alias(x):
    m = np
    la = np.linalg
    return m.sum(m.sin(x)) * la.norm(x)


def calls_through_a_module_bound_in_a_branch(x, fast=True):
    if fast:
        m = np
    else:
        m = math
    return m.sin(x)


def test_a_module_bound_to_a_local_name_is_called_through_the_module():
    """`m = np` then `m.sin(x)` was refused as "no derivative rule for the method `.sin()`"
    (a method of the local value `m`)."""
    x = np.array([0.3, -1.2, 0.8])
    expected = np.cos(x) * np.linalg.norm(x) + np.sum(np.sin(x)) * x / np.linalg.norm(x)
    np.testing.assert_allclose(srcgrad.grad(calls_through_a_module_alias)(x), expected, rtol=1e-12)
    _, tangent = srcgrad.jvp(calls_through_a_module_alias, (x,), (np.ones(3),))
    assert tangent == pytest.approx(float(np.sum(expected)), rel=1e-12)
    with pytest.raises(srcgrad.SrcGradError) as info:
        srcgrad.grad(calls_through_a_module_bound_in_a_branch)
    assert "`m = np` gives the module `numpy` a local name" in str(info.value)
    assert "call through the module's own name (`np.sin(...)`)" in str(info.value)
    assert info.value.text.strip() == "m = np"


def calls_a_partial(x):
    import functools

    return np.sum(functools.partial(np.power, x2=2.0)(x))


def test_a_function_bound_once_to_a_local_name_is_called_through_its_own_name():
    """`act = np.tanh` then `act(h)` was refused ("calls its local variable `act`"):
    a global, a module's function, a nested `def` and a named lambda, each bound once at
    the top of the function, and one passed on to another function."""
    x, w = np.array([0.3, -1.2, 0.8]), 0.7
    h = np.tanh(x * w)
    dh = 1.0 - h * h
    total = np.sum(h * h + 2.0 * h)
    dx = (2.0 * h + 2.0) * dh * w * math.exp(w)
    dw = np.sum((2.0 * h + 2.0) * dh * x) * math.exp(w) + total * math.exp(w)
    dw += srcgrad.grad(_rk4_of_tanh)(w) + 2.0 * w  # the integrator called by the function's own name
    gx, gw = check(calls_through_function_aliases, x, w, expected=(dx, dw))
    text = srcgrad.source(srcgrad.grad(calls_through_function_aliases))
    assert "np.tanh(" in text and "act(" not in text.split('"""')[2].split("#")[0]


def test_a_function_called_through_a_local_variable_or_an_expression_is_refused_saying_so():
    """These said "cannot find the function `act`; define it before differentiating"
    (`_t1`, an internal name, for the call of an expression's result)."""
    with pytest.raises(srcgrad.NotDifferentiableError) as info:
        srcgrad.grad(calls_a_local_alias)  # refused when built: a local is never defined later
    assert "`calls_a_local_alias` calls its local variable `act`" in str(info.value)
    assert info.value.text.strip() == "return np.sum(act(x))"
    derivative = srcgrad.grad(calls_a_partial)
    with pytest.raises(srcgrad.NotDifferentiableError) as info:
        derivative(np.ones(2))
    assert "not the result of an expression" in str(info.value) and "_t1" not in str(info.value)


class _Scaled:
    def __init__(self, W):
        self.W = W

    def __call__(self, x):
        return np.sum(self.W * x)


def calls_an_object_made_from_the_input(W, x):
    m = _Scaled(W)
    return m(x)


def _times(w, t):
    return w * t


def calls_a_partial_of_the_input(w, x):
    import functools

    f = functools.partial(_times, w)
    return np.sum(f(x))


def _scaler(w):
    def scale(t):
        return w * t

    return scale


def calls_a_closure_made_from_the_input(w, x):
    return np.sum(_scaler(w)(x))


@pytest.mark.parametrize("fn, arg", [(calls_an_object_made_from_the_input, np.array([1.0, 2.0])),
                                     (calls_a_partial_of_the_input, 1.5), (calls_a_closure_made_from_the_input, 1.5)])
def test_a_callable_made_from_the_input_is_refused_not_differentiated_as_a_constant(fn, arg):
    """A callable value holding the differentiated argument (an object made from it, a
    partial, a factory's closure), called on other arguments only, had a gradient of zero
    in grad and jvp: activity analysis read a call's derivative from its arguments, never
    from the called value."""
    x = np.array([3.0, 4.0])
    with pytest.raises(srcgrad.SrcGradError):
        srcgrad.grad(fn)(arg, x)
    with pytest.raises(srcgrad.SrcGradError):
        srcgrad.jvp(fn, (arg, x), (np.ones_like(arg), None))
    with pytest.raises(srcgrad.NotDifferentiableError) as info:
        srcgrad.grad(calls_an_object_made_from_the_input)(np.ones(2), x)
    assert "does not follow a differentiated value into an object made in the differentiated function" in str(info.value)


# The differentiated function itself given a function (function_arguments.py): its
# derivative is made for the function each call passes, or the parameter's default.


def rk4_loss(y0, f, h=0.1):
    y = y0
    for _ in range(10):
        y = rk4_step(f, y, h)
    return np.sum(y ** 2)


def activation_loss(x, W, act=np.tanh, *, scale=2.0):
    return np.sum(act(scale * (x @ W)) ** 2)


def relu(z):
    return np.maximum(z, 0.0)


def test_the_differentiated_function_calls_the_function_each_call_gives_it():
    df = srcgrad.grad(rk4_loss)
    y0 = Y0.copy()
    np.testing.assert_allclose(df(y0, rhs), _exact_rk4(Y0, 0.1), rtol=1e-12)
    np.testing.assert_array_equal(y0, Y0)
    for f, y in ((decay, Y0), (np.tanh, Y0), (math.sin, 0.7), (lambda v: v * np.cos(v), Y0)):
        expected = numerical_grad(lambda v: rk4_loss(v, f), (y,), 0)
        np.testing.assert_allclose(df(y, f), expected, rtol=1e-7)
    assert isinstance(df(0.7, math.sin), float)
    assert "(f = rhs)" in srcgrad.source(srcgrad.grad(lambda_free_loss_of(rhs)))  # a default prints too


def lambda_free_loss_of(g):
    def loss_of_default(y0, f=g):
        return np.sum(rk4_step(f, y0, 0.1))
    return loss_of_default


def test_a_default_function_a_keyword_and_a_method_argument():
    rng = np.random.default_rng(5)
    x, W = rng.normal(size=(4, 3)), 0.3 * rng.normal(size=(3, 2))
    for act, d in ((np.tanh, lambda u: 1 - np.tanh(u) ** 2), (relu, lambda u: (u > 0) * 1.0), (np.sin, np.cos)):
        u = 2.0 * (x @ W)
        exact = x.T @ (2 * act(u) * d(u) * 2.0)
        df = srcgrad.grad(activation_loss, wrt=1)
        got = df(x, W) if act is np.tanh else df(x, W, act) if act is relu else df(x, W, act=act)
        np.testing.assert_allclose(got, exact, rtol=1e-12)
    assert "(act = np.tanh)" in srcgrad.source(srcgrad.grad(activation_loss, wrt=1))

    class Model:
        def __init__(self):
            self.W = W

        def loss(self, x, act=np.tanh):
            return np.sum(act(x @ self.W))

    model = Model()
    np.testing.assert_allclose(srcgrad.grad(model.loss)(x, relu), ((x @ W) > 0) @ W.T, rtol=1e-12)
    np.testing.assert_allclose(srcgrad.grad(model.loss)(x), (1 - np.tanh(x @ W) ** 2) @ W.T, rtol=1e-12)


def test_every_transform_follows_the_function_given():
    out, pullback = srcgrad.vjp(rk4_loss, Y0, rhs, 0.1)
    assert out == rk4_loss(Y0, rhs)
    gradient, no_gradient, h_gradient = pullback(1.0)
    np.testing.assert_allclose(gradient, _exact_rk4(Y0, 0.1), rtol=1e-12)
    assert no_gradient is None
    assert h_gradient == pytest.approx(numerical_grad(lambda h: rk4_loss(Y0, rhs, h), (0.1,), 0), rel=1e-6)
    value, gradient = srcgrad.value_and_grad(rk4_loss)(Y0, rhs)
    assert value == rk4_loss(Y0, rhs)
    np.testing.assert_allclose(gradient, _exact_rk4(Y0, 0.1), rtol=1e-12)
    t = np.array([1.0, -2.0, 0.5])
    out, out_dot = srcgrad.jvp(rk4_loss, (Y0, rhs), (t, None))
    assert out_dot == pytest.approx(float(_exact_rk4(Y0, 0.1) @ t), rel=1e-12)

    def flow(y0, f):
        return rk4_step(f, rk4_step(f, y0, 0.1), 0.1)

    forward = srcgrad.jacobian(flow, mode="forward")(Y0, rhs)
    reverse = srcgrad.jacobian(flow, mode="reverse")(Y0, rhs)
    np.testing.assert_allclose(forward, reverse, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(forward, np.diag(numerical_grad(lambda y: np.sum(flow(y, rhs)), (Y0,), 0)), rtol=1e-7)
    H = srcgrad.hessian(rk4_loss)(Y0, rhs)
    np.testing.assert_allclose(H, H.T, rtol=1e-12)
    gradient = srcgrad.grad(rk4_loss)
    for i in range(3):
        np.testing.assert_allclose(H[i], numerical_grad(lambda y: gradient(y, rhs)[i], (Y0,), 0), rtol=1e-6, atol=1e-9)

    def scaled(x, act):
        return act(x) * x

    assert srcgrad.grad(srcgrad.grad(scaled))(0.7, math.sin) == pytest.approx(
        2 * math.cos(0.7) - 0.7 * math.sin(0.7), rel=1e-14)


def test_a_call_giving_no_function_is_refused_and_the_source_waits_for_a_call():
    df = srcgrad.grad(rk4_loss)
    with pytest.raises(TypeError, match="made for the functions passed to its parameter `f` at each call"):
        srcgrad.source(df)
    for given in (None, 3.0):
        with pytest.raises(srcgrad.NotDifferentiableError, match="`rk4_step` calls its parameter `f`, which holds no"):
            df(Y0, given)
    df(Y0, decay)
    assert "(f = decay)" in srcgrad.source(df)


def test_a_new_function_each_call_keeps_a_bounded_number_of_derivatives():
    from srcgrad import function_arguments

    df = srcgrad.grad(rk4_loss)
    for k in range(function_arguments._KEPT + 4):
        got = df(Y0, lambda y, k=k: -k * y)  # noqa: B023 - a new function each time
        expected = 2 * Y0 * (1 - 0.1 * k + (0.1 * k) ** 2 / 2 - (0.1 * k) ** 3 / 6 + (0.1 * k) ** 4 / 24) ** 20
        np.testing.assert_allclose(got, expected, rtol=1e-12)
    made = df.__srcgrad_for_call__.__self__
    assert len(made.made) == function_arguments._KEPT and len(made.seen) == function_arguments._KEPT


def test_a_function_calling_none_of_its_parameters_gets_the_transform_itself():
    assert not hasattr(srcgrad.grad(simulate), "__srcgrad_per_call__")
    assert hasattr(srcgrad.grad(rk4_loss), "__srcgrad_per_call__")


# A name bound once to a choice between functions, read only by calls
# (compiler/function_choices.py): each call is the same choice between the calls.


def chosen_activation(x, W, smooth=True):
    act = np.tanh if smooth else relu
    h = act(x @ W)
    return np.sum(act(h) ** 2)


def chosen_among_three(x, kind="sin"):
    f = np.sin if kind == "sin" else np.cos if kind == "cos" else np.exp
    return f(x) * x


def chosen_in_a_callee(x, W):
    return chosen_activation(x, W, smooth=False) + chosen_activation(x, W)


def choice_on_a_differentiated_float(x):
    g = np.sin if x > 0 else np.cos
    return g(x) * 3.0


def choice_on_a_variable_the_function_assigns(x):
    s = x > 0
    g = np.sin if s else np.cos
    return g(x)


def choice_handed_to_a_callee(y0, stiff=False):
    g = decay if stiff else rhs
    return np.sum(rk4_step(g, y0, 0.1))


def test_a_choice_between_functions_is_the_choice_between_the_calls():
    rng = np.random.default_rng(6)
    x, W = rng.normal(size=(4, 3)), 0.5 * rng.normal(size=(3, 3))
    for smooth in (True, False):
        got = srcgrad.grad(chosen_activation, wrt=1)(x, W, smooth)
        np.testing.assert_allclose(got, numerical_grad(chosen_activation, (x, W, smooth), 1), rtol=1e-6, atol=1e-9)
        forward = srcgrad.jacobian(chosen_activation, wrt=1, mode="forward")(x, W, smooth)
        np.testing.assert_allclose(forward, got, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(srcgrad.grad(chosen_in_a_callee, wrt=1)(x, W),
                               numerical_grad(chosen_in_a_callee, (x, W), 1), rtol=1e-6, atol=1e-9)
    for kind, exact in (("sin", math.sin(0.3) + 0.3 * math.cos(0.3)), ("cos", math.cos(0.3) - 0.3 * math.sin(0.3)),
                        ("exp", 1.3 * math.exp(0.3))):
        assert srcgrad.grad(chosen_among_three)(0.3, kind) == pytest.approx(exact, rel=1e-14)
    assert srcgrad.grad(choice_on_a_differentiated_float)(0.4) == pytest.approx(3 * math.cos(0.4), rel=1e-14)
    assert srcgrad.grad(choice_on_a_differentiated_float)(-0.4) == pytest.approx(3 * math.sin(0.4), rel=1e-14)
    assert srcgrad.hessian(choice_on_a_differentiated_float)(-0.4) == pytest.approx(-3 * math.cos(0.4), rel=1e-14)
    text = srcgrad.source(srcgrad.grad(chosen_activation, wrt=1))
    code = [line for line in text.splitlines() if not line.strip().startswith("#")]
    assert any("np.tanh(" in line for line in code) and not any("act(" in line for line in code)


def test_a_choice_the_calls_could_not_repeat_is_refused_as_before():
    with pytest.raises(srcgrad.NotDifferentiableError, match="calls its (local variable|parameter)"):
        srcgrad.grad(choice_handed_to_a_callee)(Y0)


def test_a_choice_whose_test_reads_a_variable_the_function_assigns():
    """The test is taken once, where the name is bound, as Python takes it."""
    for x, exact in ((0.3, math.cos(0.3)), (-0.3, -math.sin(-0.3))):
        assert srcgrad.grad(choice_on_a_variable_the_function_assigns)(x) == pytest.approx(exact, rel=1e-14)
        _, dot = srcgrad.jvp(choice_on_a_variable_the_function_assigns, (x,), (1.0,))
        assert dot == pytest.approx(exact, rel=1e-14)


class _Settings:
    def __init__(self):
        self.smooth = True


def _roughen(settings):
    settings.smooth = False
    return 0.0


def choice_whose_test_a_call_changes_after(x, settings):
    act = np.tanh if settings.smooth else np.sin
    _roughen(settings)
    return np.sum(act(x))


def choice_shadowed_by_a_nested_parameter(x, smooth=True):
    act = np.tanh if smooth else np.sin

    def apply(act, y):
        return act(y)
    return np.sum(apply(np.exp, x))


def test_a_choice_is_taken_where_it_is_bound_not_at_each_call():
    """The test is read once, at the binding: `_roughen` turns `settings.smooth` off
    between the binding and the call, which still calls `np.tanh` (was `np.sin`)."""
    x = np.array([0.3, -1.2, 0.7])
    np.testing.assert_allclose(srcgrad.grad(choice_whose_test_a_call_changes_after)(x, _Settings()),
                               1 - np.tanh(x) ** 2, rtol=1e-14)
    _, tangent = srcgrad.jvp(choice_whose_test_a_call_changes_after, (x, _Settings()), (np.ones(3), None))
    assert tangent == pytest.approx(np.sum(1 - np.tanh(x) ** 2), rel=1e-14)


def test_a_choice_whose_name_a_nested_function_rebinds_is_not_spread():
    """`apply(act, y)` calls the function passed to it, not the choice (was np.tanh's
    derivative where np.exp's is right): the name is left as written and refused."""
    with pytest.raises(srcgrad.NotDifferentiableError, match="choice_shadowed_by_a_nested_parameter"):
        srcgrad.grad(choice_shadowed_by_a_nested_parameter)(np.array([0.3, -1.2]))


def callee_reassigning_its_function(x, f, flip):
    if flip:
        f = np.cos
    return f(x)


def calls_a_callee_reassigning_its_function(x):
    return np.sum(callee_reassigning_its_function(x, np.sin, True))


def reassigns_its_function_parameter(x, f):
    for _ in range(2):
        x = f(x)
        f = np.cos
    return np.sum(x)


def test_a_parameter_the_function_reassigns_is_not_bound_to_the_function_passed():
    """`f = np.cos` after the binding `f = np.sin`: the calls of `f` were differentiated as
    np.sin's (cos(x) where -sin(x) is right); now refused at the call's line."""
    x = np.array([0.3, -1.2, 0.7])
    for fn, args in ((calls_a_callee_reassigning_its_function, (x,)), (reassigns_its_function_parameter, (x, np.sin))):
        with pytest.raises(srcgrad.NotDifferentiableError, match=r"calls its parameter `f`, which it also assigns.*"
                           r"\(test_function_arguments\.py, line \d+\)"):
            srcgrad.grad(fn)(*args)
    with pytest.raises(srcgrad.NotDifferentiableError, match="which it also assigns"):
        srcgrad.jvp(reassigns_its_function_parameter, (x, np.sin), (np.ones(3), None))


def test_differentiating_with_respect_to_the_function_is_a_type_error():
    for transform in (srcgrad.grad, srcgrad.value_and_grad):
        with pytest.raises(TypeError, match="with respect to `f`: it is a function \\(rhs\\), which has no gradient"):
            transform(rk4_loss, wrt=1)(Y0, rhs)
