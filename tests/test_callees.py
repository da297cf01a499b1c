"""Calls of other user functions spliced into the caller (callees.py): the same values
and derivatives as the calls, no second forward pass, the callee's globals read as the
callee reads them, and every callee that cannot be spliced still a call."""

import sys

import numpy as np
import pytest

import spliced_helpers
import srcgrad
from conftest import numerical_grad
from program_checks import check, check_hessian
from spliced_helpers import layer

RNG = np.random.default_rng(5)
SCALE = 0.5


def inner(x):
    return np.tanh(x) * 2.0


def mid(x):
    return inner(x) + 1.0


def outer(x):
    return mid(x) * 3.0


def nested(x):
    y = outer(x)
    return np.sum(y * y)


def test_nested_helpers_are_one_function():
    x = RNG.normal(size=5)
    t = np.tanh(x)
    y = (2.0 * t + 1.0) * 3.0
    check(nested, x, expected=[2.0 * y * 3.0 * 2.0 * (1.0 - t * t)])
    check_hessian(nested, [x], 0)
    text = srcgrad.source(srcgrad.grad(nested))
    assert text.count("\ndef ") == 1 and "_pullback" not in text and "outer(" not in text.split("# Backward")[0]
    assert "    tanh_x = np.tanh(x)\n    inner_x = tanh_x * 2.0\n    mid_x = inner_x + 1.0\n    y = mid_x * 3.0\n" in text
    assert "    # y = outer(x)\n" in text  # the backward pass of the spliced lines is commented with the call


def _sum_and_product(a, b):
    return a + b, a * b


def unpacks_a_tuple(a, b):
    s, p = _sum_and_product(a, b)
    return s * p + s


def test_a_returned_tuple_unpacked_at_the_call_is_never_made():
    a, b = 0.7, -1.3
    check(unpacks_a_tuple, a, b, expected=[a * b + (a + b) * b + 1.0, a * b + (a + b) * a + 1.0])
    text = srcgrad.source(srcgrad.grad(unpacks_a_tuple, wrt=(0, 1)))
    assert "getitem_vjp" not in text and "item_grad" not in text and "(a_plus_b, a_times_b)" not in text


def _scaled(x):
    return x * SCALE


def shadows_a_global_of_the_callee(x):
    SCALE = 100.0  # the caller's own: `_scaled` still reads the module's
    return np.sum(_scaled(x) ** 2) + SCALE


def test_a_global_the_caller_shadows_is_read_through_the_callees_module():
    x = RNG.normal(size=3)
    check(shadows_a_global_of_the_callee, x, expected=[2.0 * 0.5 * 0.5 * x])
    assert "    scaled_x = x * test_callees.SCALE\n" in srcgrad.source(srcgrad.grad(shadows_a_global_of_the_callee))


def calls_another_module(x, W):
    SCALE = 2.0
    return np.sum(layer(x, W) ** 2) * SCALE


def test_another_modules_globals_are_read_through_it_and_changes_are_seen(monkeypatch):
    x, W = RNG.normal(size=(4, 3)), RNG.normal(size=(3, 2))
    df = srcgrad.grad(calls_another_module, wrt=1)

    def exact(scale, act=np.tanh, slope=lambda z: 1.0 - np.tanh(z) ** 2):
        z = x @ W
        return x.T @ (2.0 * 2.0 * act(z) * scale * scale * slope(z))

    np.testing.assert_allclose(df(x, W), exact(3.0), rtol=1e-12)
    text = srcgrad.source(df)
    assert "    layer_x = tanh_x_at_W * spliced_helpers.SCALE\n" in text
    assert "onp" not in text and "\n    SCALE = 2.0\n" in text  # the caller's numpy name; its own SCALE
    monkeypatch.setattr(spliced_helpers, "SCALE", 5.0)  # read when the derivative runs
    np.testing.assert_allclose(df(x, W), exact(5.0), rtol=1e-12)
    monkeypatch.setattr(spliced_helpers, "act", lambda v: np.sin(v) * spliced_helpers.SCALE)  # built again
    np.testing.assert_allclose(df(x, W), exact(5.0, np.sin, np.cos), rtol=1e-12)


def _cell(h, x, W, U):
    return np.tanh(h @ W + x @ U)


def rnn(h, xs, W, U):
    for t in range(xs.shape[0]):
        h = _cell(h, xs[t], W, U)
    return np.sum(h)


def test_a_call_in_a_loop_is_spliced_into_its_body():
    h, xs, W, U = RNG.normal(size=(2, 3)), RNG.normal(size=(4, 2, 2)), RNG.normal(size=(3, 3)) * 0.5, RNG.normal(size=(2, 3))
    check(rnn, h, xs, W, U)
    text = srcgrad.source(srcgrad.grad(rnn, wrt=2))
    assert "_cell" not in text.split("# Backward")[0] and "_pullback" not in text


def _with_defaults(x, k=2.0, shift=-1.0):
    x = x * k  # a parameter it assigns: assigned the argument first
    return x + shift


def keywords_and_defaults(x):
    y = _with_defaults(x, shift=0.5) * _with_defaults(x)
    return np.sum(y) + np.sum(x)  # the caller's `x` is unchanged


def test_keywords_defaults_and_an_assigned_parameter():
    x = RNG.normal(size=3)
    check(keywords_and_defaults, x, expected=[2.0 * (2.0 * x - 1.0) + 2.0 * (2.0 * x + 0.5) + 1.0])


def _first_above(xs, limit):
    for x in xs:
        if x > limit:
            return x * 2.0
    return xs[-1]


def early_return_in_a_loop(x):
    return _first_above(x, 0.5) * x[0]


def test_a_callee_returning_from_inside_a_loop():
    x = np.array([0.2, 0.9, 1.5])
    check(early_return_in_a_loop, x, expected=[np.array([1.8, 0.4, 0.0])])


def _push_twice(xs, v):
    xs.append(v * 2.0)
    xs.append(v * v)


def appends_through_a_call(a):
    xs = [a]
    _push_twice(xs, a)
    return xs[0] * xs[1] + xs[2]


def test_a_call_that_changes_its_argument_list():
    check(appends_through_a_call, 1.5, expected=[4.0 * 1.5 + 2.0 * 1.5])


def _power(x, n):
    return 1.0 if n == 0 else x * _power(x, n - 1)


def recursive(x):
    return _power(x, 3) * 2.0


def test_a_recursive_callee_stays_a_call():
    check(recursive, 1.3, expected=[6.0 * 1.3 ** 2])
    assert "def _power_pullback(" in srcgrad.source(srcgrad.grad(recursive))


def _make_scaler(c):
    def scaler(v):
        return v * c
    return scaler


_by_three = _make_scaler(3.0)


def calls_a_closure(x):
    return _by_three(x) ** 2


def test_a_callee_reading_a_closure_variable_stays_a_call():
    check(calls_a_closure, 0.4, expected=[2.0 * 9.0 * 0.4])
    assert "scaler_pullback" in srcgrad.source(srcgrad.grad(calls_a_closure))


def _calls_through_a_variable(x):
    g = np.sin
    if x > 0:
        g = np.cos
    return g(x)


def refused_inside_the_callee(x):
    return _calls_through_a_variable(x) * 2.0


def test_a_refusal_inside_a_callee_names_the_callees_line():
    with pytest.raises(srcgrad.NotDifferentiableError, match="calls its local variable `g`") as info:
        srcgrad.grad(refused_inside_the_callee)(0.3)
    assert info.value.lineno == _calls_through_a_variable.__code__.co_firstlineno + 4


def test_values_match_the_calls_in_every_mode():
    x = RNG.normal(size=4)
    value, g = srcgrad.value_and_grad(nested)(x)
    assert value == nested(x)  # the same operations in the same order
    out, pullback = srcgrad.vjp(outer, x)
    np.testing.assert_array_equal(out, outer(x))
    np.testing.assert_allclose(pullback(np.ones(4))[0], numerical_grad(lambda v: np.sum(outer(v)), (x,), 0), rtol=1e-7)
    np.testing.assert_allclose(g, numerical_grad(nested, (x,), 0), rtol=1e-7)


def _with_a_default(x, k=2.0):
    return x * k


def reads_a_default(x):
    return np.sum(_with_a_default(x) ** 2)


def test_a_default_is_the_one_the_function_holds_and_a_change_to_it_is_seen(monkeypatch):
    x = RNG.normal(size=3)
    df = srcgrad.value_and_grad(reads_a_default)
    value, g = df(x)
    assert value == reads_a_default(x)
    np.testing.assert_allclose(g, 2.0 * 4.0 * x, rtol=1e-12)
    monkeypatch.setattr(_with_a_default, "__defaults__", (5.0,))  # what a call reads, not the source
    value, g = df(x)
    assert value == reads_a_default(x)
    np.testing.assert_allclose(g, 2.0 * 25.0 * x, rtol=1e-12)
    srcgrad.compiler.cache.clear()
    check(reads_a_default, x, expected=[2.0 * 25.0 * x])


def _made_with_a_local_default():
    weight = 3.0

    def scaled(v, w=weight):  # the default reads a local of this function, gone once it returns
        return v * w

    return scaled


_SCALED = _made_with_a_local_default()


def calls_a_kept_callee_with_a_local_default(x):
    return np.sum(_SCALED(x) ** 2)


def test_a_default_reading_a_local_of_the_function_that_made_the_callee():
    x = RNG.normal(size=3)
    out, pullback = srcgrad.vjp(_SCALED, x)
    np.testing.assert_array_equal(out, 3.0 * x)
    np.testing.assert_allclose(pullback(np.ones(3))[0], np.full(3, 3.0), rtol=0)
    np.testing.assert_array_equal(srcgrad.jvp(_SCALED, (x,), (np.ones(3),))[1], np.full(3, 3.0))
    check(calls_a_kept_callee_with_a_local_default, x, expected=[2.0 * 9.0 * x])
    srcgrad.compiler.cache.clear()
    with pytest.raises(TypeError, match="needs a scalar output"):  # the default is used, not re-evaluated
        srcgrad.grad(_SCALED)(x)


class _Scaler:
    def __init__(self, w):
        self.w = w

    def forward(self, x):
        return x * self.w


class _Holder:
    def __init__(self, w):
        self.part = _Scaler(w)

    def loss(self, x):
        return np.sum(self.part.forward(x) ** 2)


_HOLDER = _Holder(2.0)


def through_a_held_object(x):
    return _HOLDER.loss(x)


@pytest.mark.parametrize("kept", [False, True])
def test_an_object_on_the_way_to_a_methods_receiver_rebound_is_seen(kept, monkeypatch):
    if kept:
        monkeypatch.setattr(srcgrad.compiler.callees, "MAX_CALLEE_STATEMENTS", -1)
    srcgrad.compiler.cache.clear()
    x = RNG.normal(size=3)
    holder = _Holder(2.0)
    for owner, fn in ((holder, holder.loss), (_HOLDER, through_a_held_object)):
        df = srcgrad.value_and_grad(fn)
        value, g = df(x)
        np.testing.assert_allclose(g, 2.0 * 4.0 * x, rtol=1e-12)
        owner.part = _Scaler(5.0)  # not callable: the method `forward` holds it
        value, g = df(x)
        assert value == np.sum((x * 5.0) ** 2)
        np.testing.assert_allclose(g, 2.0 * 25.0 * x, rtol=1e-12)
        owner.part = _Scaler(2.0)
    monkeypatch.setattr(sys.modules[__name__], "_HOLDER", _Holder(3.0))  # the global itself
    value, g = df(x)
    np.testing.assert_allclose(g, 2.0 * 9.0 * x, rtol=1e-12)
    srcgrad.compiler.cache.clear()


def _scale_in_place(a, k):
    a *= k


def result_unused_after_an_in_place_change(x):
    y = x ** 2
    r = _scale_in_place(y, 3.0)  # noqa: F841 - Python changes `y` itself when it is an array
    return np.sum(y * x)


def scalar_argument_rebound(s):
    t = s * 2.0
    _scale_in_place(t, 3.0)  # a float is rebound inside, not changed: `t` stays 2 s
    return t


def test_an_in_place_change_of_an_argument_is_checked_where_it_runs():
    """The callee's `a *= k` changes the caller's array: spliced with its run-time check,
    it is refused where it runs (kept as a call, it changed `y` unseen: a wrong gradient);
    on a number it only rebinds the callee's own name."""
    with pytest.raises(srcgrad.NotDifferentiableError, match=r"`a \*= k` .* changes the argument `a` in place"):
        srcgrad.grad(result_unused_after_an_in_place_change)(np.array([0.5, 1.5]))
    check(scalar_argument_rebound, 0.7, expected=[2.0])


def _positional_only(v, /, s=2.0):
    return v * v * s


def calls_a_positional_only_function(x):
    return _positional_only(x) + _positional_only(x, 0.5)


def test_positional_only_parameters():
    """`def f(v, /)` crashed every derivative (a NameError of `v`): its parameters are read as plain ones."""
    check(_positional_only, 1.5, expected=[6.0])
    check(calls_a_positional_only_function, 1.5, expected=[7.5])
