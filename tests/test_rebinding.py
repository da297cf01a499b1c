"""A derivative fixes the functions its calls resolve to when it is built; the generated
code calls them by name. When a global or closure name it resolved is rebound (a helper
redefined in a notebook, `act = np.sin`), the derivative is stale: `srcgrad.grad` and
every call of an existing derivative build it again, so forward and backward never mix
the old callee and the new one."""

import numpy as np
import pytest

import srcgrad

X = np.array([0.5, -1.2, 2.0])


def helper(v):
    return v**2


def uses_helper(x):
    return np.sum(helper(x))


def outer(x):
    return 2.0 * uses_helper(x)


act = np.tanh


def uses_act(x):
    return np.sum(act(x))


@pytest.fixture
def rebind(monkeypatch):
    def cube(v):
        return v**3

    def apply():
        monkeypatch.setitem(globals(), "helper", cube)
        monkeypatch.setitem(globals(), "act", np.sin)

    return apply


def test_a_new_derivative_after_rebinding_uses_the_new_callees(rebind):
    np.testing.assert_allclose(srcgrad.grad(uses_helper)(X), 2 * X)
    np.testing.assert_allclose(srcgrad.grad(outer)(X), 4 * X)
    np.testing.assert_allclose(srcgrad.grad(uses_act)(X), 1 - np.tanh(X) ** 2)
    rebind()
    np.testing.assert_allclose(srcgrad.grad(uses_helper)(X), 3 * X**2)
    np.testing.assert_allclose(srcgrad.grad(outer)(X), 6 * X**2)  # through a callee's callee
    np.testing.assert_allclose(srcgrad.grad(uses_act)(X), np.cos(X))


def test_an_existing_derivative_is_rebuilt_at_its_next_call(rebind):
    grad_helper, grad_act = srcgrad.grad(uses_helper), srcgrad.grad(uses_act)
    value_and_grad = srcgrad.value_and_grad(outer)
    grad_act(X), grad_helper(X), value_and_grad(X)
    rebind()
    np.testing.assert_allclose(grad_helper(X), 3 * X**2)
    np.testing.assert_allclose(grad_act(X), np.cos(X))
    value, gradient = value_and_grad(X)
    assert value == pytest.approx(2 * np.sum(X**3)) and np.allclose(gradient, 6 * X**2)
    out, pullback = srcgrad.vjp(uses_act, X)
    assert out == pytest.approx(np.sum(np.sin(X))) and np.allclose(pullback(1.0)[0], np.cos(X))
    _, tangent = srcgrad.jvp(uses_act, (X,), (np.ones(3),))
    assert tangent == pytest.approx(np.sum(np.cos(X)))


def test_a_rebound_closure_cell_makes_the_derivative_stale():
    def make():
        h = np.tanh

        def f(x):
            return np.sum(h(x))

        def use_cos():
            nonlocal h
            h = np.cos

        return f, use_cos

    f, use_cos = make()
    df = srcgrad.grad(f)
    np.testing.assert_allclose(df(X), 1 - np.tanh(X) ** 2)
    use_cos()
    np.testing.assert_allclose(df(X), -np.sin(X))
    np.testing.assert_allclose(srcgrad.grad(f)(X), -np.sin(X))


def test_derivatives_calling_only_numpy_are_the_dispatcher_itself():
    # nothing to re-check per call: the fast path of a derivative is unchanged
    def plain(x):
        return np.sum(np.tanh(x) * 2.0)

    assert srcgrad.compiler.pipeline.derive(plain, "grad", 0).reads == ()
    assert srcgrad.grad(uses_act).__srcgrad_lazy__.derivative.reads != ()


def _square(v):
    return v**2


def _cube(v):
    return v**3


helpers = __import__("types").ModuleType("user_helpers")  # a module of the user's
helpers.power = _square
settings = __import__("types").SimpleNamespace(act=np.tanh)


def uses_a_module_function(x):
    return np.sum(helpers.power(x))


def uses_a_namespace_function(x):
    return np.sum(settings.act(x))


def test_a_function_attribute_of_a_user_module_or_namespace_rebound_between_calls_is_noticed(monkeypatch):
    """`helpers.power = ...` or `settings.act = ...` kept the old callee's derivative
    (the gradient of the old function, silently): only global and closure names were
    watched, not the attributes a dotted name was resolved through."""
    d_module, d_namespace = srcgrad.grad(uses_a_module_function), srcgrad.grad(uses_a_namespace_function)
    np.testing.assert_allclose(d_module(X), 2 * X, rtol=1e-13)
    np.testing.assert_allclose(d_namespace(X), 1 - np.tanh(X) ** 2, rtol=1e-13)
    monkeypatch.setattr(helpers, "power", _cube)
    monkeypatch.setattr(settings, "act", np.sin)
    np.testing.assert_allclose(d_module(X), 3 * X**2, rtol=1e-13)
    np.testing.assert_allclose(d_namespace(X), np.cos(X), rtol=1e-13)
    value, g = srcgrad.value_and_grad(uses_a_module_function)(X)
    assert value == uses_a_module_function(X)
    np.testing.assert_allclose(g, 3 * X**2, rtol=1e-13)


def test_numpy_functions_reached_through_the_module_are_not_watched():
    derivative = srcgrad.grad(lambda x: np.sum(np.ones(3) * np.linalg.norm(x) * np.sin(x)))
    assert derivative.__srcgrad_lazy__.derivative.reads == ()


class _Layer:
    def __init__(self, w):
        self.w = w

    def act(self, v):
        return np.tanh(v * self.w)

    def forward(self, v):
        return self.act(v) * 2.0


class _Model:
    def __init__(self):
        self.layer = _Layer(1.5)

    def loss(self, x):
        return np.sum(self.layer.forward(x))


@pytest.mark.parametrize("kept", [False, True])
def test_a_method_rebound_on_the_class_or_set_on_the_instance_is_seen(kept, monkeypatch):
    """The method a call resolved to is looked up again: on the class (`Layer.act = ...`)
    and on the instance (`layer.act = ...`), spliced or kept as a call."""
    if kept:
        monkeypatch.setattr(srcgrad.compiler.callees, "MAX_CALLEE_STATEMENTS", -1)
    srcgrad.compiler.cache.clear()
    model = _Model()
    df = srcgrad.grad(model.loss)
    np.testing.assert_allclose(df(X), 2.0 * 1.5 * (1 - np.tanh(1.5 * X) ** 2), rtol=1e-12)
    monkeypatch.setattr(_Layer, "act", lambda self, v: np.sin(v * self.w))
    np.testing.assert_allclose(df(X), 2.0 * 1.5 * np.cos(1.5 * X), rtol=1e-12)
    model.layer.act = lambda v: v**2  # a plain function on the instance: no `self`
    np.testing.assert_allclose(df(X), 2.0 * 2.0 * X, rtol=1e-12)
    out, out_dot = srcgrad.jvp(model.loss, (X,), (np.ones(3),))
    assert out == pytest.approx(np.sum(2.0 * X**2)) and out_dot == pytest.approx(np.sum(4.0 * X))
    srcgrad.compiler.cache.clear()


class _Base:
    def loss(self, x):
        return 2.0 * x * x


class _Child(_Base):
    def loss(self, x):
        return super().loss(x) + x


def test_a_base_method_reached_through_super_and_rebound_is_seen(monkeypatch):
    """`super().loss(x)` resolved to the base class's method when the derivative was made;
    rebinding `Base.loss` left an existing derivative on the old one (7.0, not 7.75)."""
    srcgrad.compiler.cache.clear()
    df = srcgrad.grad(_Child().loss)
    assert df(1.5) == 7.0
    monkeypatch.setattr(_Base, "loss", lambda self, x: x**3)
    assert df(1.5) == 7.75
    monkeypatch.setattr(_Base, "loss", lambda self, x: 0.5 * x**4)
    assert df(1.5) == 2.0 * 1.5**3 + 1.0
    srcgrad.compiler.cache.clear()


def _with_default(v, k=2.0):
    if v.shape[0] > 100:  # recursive: kept as a call
        return _with_default(v[:1], k)
    return v * k


def calls_with_default(x):
    return np.sum(_with_default(x))


def test_a_changed_default_reaches_kept_calls_and_the_function_itself(monkeypatch):
    """`fn.__defaults__ = ...` rebuilds the derivatives of `fn` (which copy its defaults)
    and of its callers: a kept call's pullback, and `grad(fn)` itself."""
    g_caller = srcgrad.grad(calls_with_default)
    g_self = srcgrad.grad(lambda x: np.sum(_with_default(x) ** 2))
    np.testing.assert_allclose(g_caller(X), np.full(3, 2.0))
    np.testing.assert_allclose(g_self(X), 8.0 * X)
    monkeypatch.setattr(_with_default, "__defaults__", (5.0,))
    np.testing.assert_allclose(g_caller(X), np.full(3, 5.0))
    np.testing.assert_allclose(g_self(X), 50.0 * X)
    own = srcgrad.grad(_with_default_sum)
    np.testing.assert_allclose(own(X), np.full(3, 2.0))
    monkeypatch.setattr(_with_default_sum, "__defaults__", (4.0,))
    np.testing.assert_allclose(own(X), np.full(3, 4.0))


def _with_default_sum(v, k=2.0):
    return np.sum(v * k)


def _sine(v):
    return np.sin(v)


def _cosine(v):
    return np.cos(v)


def calls_sine(x):
    return np.sum(_sine(x))


@pytest.mark.parametrize("kept", [False, True])
def test_a_callee_whose_code_is_replaced_is_seen(kept, monkeypatch):
    """`fn.__code__ = ...` on a spliced or kept callee rebuilds its callers' derivatives
    (before, they kept the old code's gradient) and its own (`vjp`, a new `grad`)."""
    if kept:
        monkeypatch.setattr(srcgrad.compiler.callees, "MAX_CALLEE_STATEMENTS", -1)
    srcgrad.compiler.cache.clear()
    monkeypatch.setattr(_sine, "__code__", _sine.__code__)  # restored afterwards
    df = srcgrad.grad(calls_sine)
    np.testing.assert_allclose(df(X), np.cos(X))
    _sine.__code__ = _cosine.__code__
    np.testing.assert_allclose(df(X), -np.sin(X))
    np.testing.assert_allclose(srcgrad.vjp(_sine, X)[1](np.ones(3))[0], -np.sin(X))
    np.testing.assert_allclose(srcgrad.grad(lambda x: np.sum(_sine(x)))(X), -np.sin(X))



def _scaled_sum(x, k):
    return np.sum(act(x)) * k


def test_repeated_vjp_calls_see_rebinding_new_code_and_other_kinds_of_arguments(monkeypatch):
    """`vjp` keeps what a call of a plain function with float arrays found, for the next
    such call; a rebound global, replaced code, an integer argument or float32 arrays
    still go through the full path."""
    srcgrad.compiler.cache.clear()
    monkeypatch.setattr(_scaled_sum, "__code__", _scaled_sum.__code__)  # restored afterwards
    two = np.array(2.0)
    for _ in range(2):  # the second call takes the kept derivative
        out, pullback = srcgrad.vjp(_scaled_sum, X, two)
        assert out == pytest.approx(2 * np.sum(np.tanh(X)))
        grads = pullback(1.0)
        np.testing.assert_allclose(grads[0], 2 * (1 - np.tanh(X) ** 2))
        assert grads[1] == pytest.approx(np.sum(np.tanh(X)))
    monkeypatch.setitem(globals(), "act", np.sin)
    out, pullback = srcgrad.vjp(_scaled_sum, X, two)
    assert out == pytest.approx(2 * np.sum(np.sin(X)))
    np.testing.assert_allclose(pullback(1.0)[0], 2 * np.cos(X))
    out, pullback = srcgrad.vjp(_scaled_sum, X, 3)  # an integer argument gets None
    grads = pullback(1.0)
    np.testing.assert_allclose(grads[0], 3 * np.cos(X))
    assert grads[1] is None
    out, pullback = srcgrad.vjp(_scaled_sum, X.astype(np.float32), np.float32(2.0))  # float32: its own kind of call
    assert pullback(np.float32(1.0))[0].dtype == np.float32
    _scaled_sum.__code__ = _sine_sum.__code__
    out, pullback = srcgrad.vjp(_scaled_sum, X, two)
    assert out == pytest.approx(2 * np.sum(np.sin(X) ** 2))
    np.testing.assert_allclose(pullback(1.0)[0], 4 * np.sin(X) * np.cos(X))


def _sine_sum(x, k):
    return np.sum(np.sin(x) ** 2) * k


def test_repeated_jvp_calls_see_rebinding_new_code_other_tangents_and_refused_arguments(monkeypatch):
    """`jvp` keeps the derivative a call of a plain function found, per set of tangents,
    for the next such call; a rebound global, replaced code, other tangents or an argument
    the derivative refuses (a masked array entering the computation) are still seen."""
    srcgrad.compiler.cache.clear()
    monkeypatch.setattr(_scaled_sum, "__code__", _scaled_sum.__code__)  # restored afterwards
    two, t = np.array(2.0), np.array([1.0, 0.5, -1.0])
    for _ in range(2):  # the second call takes the kept derivative
        out, tangent = srcgrad.jvp(_scaled_sum, (X, two), (t, None))
        assert out == pytest.approx(2 * np.sum(np.tanh(X)))
        assert tangent == pytest.approx(2 * np.sum((1 - np.tanh(X) ** 2) * t))
    _, tangent = srcgrad.jvp(_scaled_sum, (X, two), (None, np.array(1.0)))  # the other argument's tangent
    assert tangent == pytest.approx(np.sum(np.tanh(X)))
    with pytest.raises(srcgrad.NotDifferentiableError):
        srcgrad.jvp(_scaled_sum, (X, np.ma.masked_array(2.0)), (t, None))
    monkeypatch.setitem(globals(), "act", np.sin)
    _, tangent = srcgrad.jvp(_scaled_sum, (X, two), (t, None))
    assert tangent == pytest.approx(2 * np.sum(np.cos(X) * t))
    _scaled_sum.__code__ = _sine_sum.__code__
    out, tangent = srcgrad.jvp(_scaled_sum, (X, two), (t, None))
    assert out == pytest.approx(2 * np.sum(np.sin(X) ** 2))
    assert tangent == pytest.approx(np.sum(4 * np.sin(X) * np.cos(X) * t))
