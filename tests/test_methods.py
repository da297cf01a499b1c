"""Methods of user classes: `srcgrad.grad(model.loss)` differentiates the method with the
instance held constant (stand_in.method_function), a callable instance (`layer(x)`)
through its `__call__`, and calls of the instance's own methods and of the objects it
holds (`self.features(x)`, `self.l1(x)`) through their code. Attributes are read when
the derivative runs; srcgrad keeps no instance alive."""

import functools
import gc
import weakref
from dataclasses import dataclass

import numpy as np
import pytest

import srcgrad
from conftest import numerical_grad
from program_checks import check_hessian

RNG = np.random.default_rng(7)


class Linear:
    def __init__(self, n, m):
        self.W = RNG.normal(size=(n, m)) * 0.5
        self.b = RNG.normal(size=m)

    def __call__(self, x):
        return x @ self.W + self.b


class MLP:
    def __init__(self):
        self.l1 = Linear(3, 4)
        self.l2 = Linear(4, 2)
        self.scale = 2.0
        self.act = np.tanh  # a function held by the instance

    def features(self, x):
        return self.act(self.l1(x))

    def loss(self, x):
        h = self.features(x)
        return np.sum(self.l2(h) ** 2) * self.scale

    def unrolled(self, x, n):
        if n == 0:
            return np.sum(x)
        return self.unrolled(np.sin(x), n - 1) * 1.5

    @staticmethod
    def square(x):
        return x * x

    @classmethod
    def cube(cls, x):
        return x * x * x

    def static_and_class(self, x):
        return np.sum(self.square(x) + self.cube(x) + MLP.square(x))

    def stores(self, x):
        self.cache = x * 2.0
        return np.sum(self.cache)


@dataclass
class Quadratic:
    w: float

    def value(self, x):
        return self.w * x * x


def _mlp_grad(m, x):
    """The analytic gradient of MLP.loss."""
    h = np.tanh(x @ m.l1.W + m.l1.b)
    out = h @ m.l2.W + m.l2.b
    return ((2.0 * m.scale * out) @ m.l2.W.T * (1.0 - h * h)) @ m.l1.W.T


def test_a_bound_method_with_its_calls_of_methods_and_callable_attributes():
    m, x = MLP(), RNG.normal(size=(5, 3))
    before = x.copy()
    g = srcgrad.grad(m.loss)(x)
    assert g.shape == x.shape and g.dtype == np.float64
    np.testing.assert_allclose(g, _mlp_grad(m, x), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(g, numerical_grad(m.loss, [x], 0), rtol=1e-6, atol=1e-8)
    np.testing.assert_array_equal(x, before)


def test_wrt_names_the_methods_parameter_and_value_and_grad_and_vjp_work():
    m, x = MLP(), RNG.normal(size=(2, 3))
    value, g = srcgrad.value_and_grad(m.loss, wrt="x")(x)
    assert value == pytest.approx(m.loss(x), rel=1e-14)
    np.testing.assert_allclose(g, _mlp_grad(m, x), rtol=1e-12, atol=1e-12)
    out, pullback = srcgrad.vjp(m.features, x)
    seed = RNG.normal(size=out.shape)
    h = np.tanh(x @ m.l1.W + m.l1.b)
    np.testing.assert_allclose(pullback(seed)[0], (seed * (1 - h * h)) @ m.l1.W.T, rtol=1e-12)


def test_forward_mode_jacobian_and_hessian_of_methods():
    m, x = MLP(), RNG.normal(size=3)
    v = RNG.normal(size=3)
    out, tangent = srcgrad.jvp(m.loss, (x,), (v,))
    assert out == pytest.approx(m.loss(x), rel=1e-14)
    assert tangent == pytest.approx(float(_mlp_grad(m, x) @ v), rel=1e-10)
    layer = Linear(3, 2)
    for mode in ("forward", "reverse"):
        np.testing.assert_allclose(srcgrad.jacobian(layer, mode=mode)(x), layer.W.T, rtol=1e-15)
    H = srcgrad.hessian(m.loss)(x)
    g = srcgrad.grad(m.loss)
    eps = 1e-6
    by_differences = np.array([(g(x + e) - g(x - e)) / (2 * eps) for e in np.eye(3) * eps])
    np.testing.assert_allclose(H, H.T, atol=1e-12)
    np.testing.assert_allclose(H, by_differences, rtol=1e-5, atol=1e-7)


def test_recursion_through_self_static_and_class_methods_and_a_partial_of_a_method():
    m, x = MLP(), RNG.normal(size=4)
    g = srcgrad.grad(functools.partial(m.unrolled, n=3))(x)
    np.testing.assert_allclose(g, 1.5 ** 3 * np.cos(np.sin(np.sin(x))) * np.cos(np.sin(x)) * np.cos(x), rtol=1e-12)
    g = srcgrad.grad(m.static_and_class)(x)
    np.testing.assert_allclose(g, 4 * x + 3 * x * x, rtol=1e-14)


def test_a_dataclass_method_and_attributes_read_when_the_derivative_runs():
    q = Quadratic(2.0)
    dvalue = srcgrad.grad(q.value)
    assert dvalue(1.5) == 6.0
    q.w = -1.0
    assert dvalue(1.5) == -3.0  # the new attribute, not the one seen when it was built
    m, x = MLP(), RNG.normal(size=3)
    dloss = srcgrad.grad(m.loss)
    m.act = np.sin  # a callable attribute rebound: the derivative is rebuilt for it
    h = m.l1(x)
    out = np.sin(h) @ m.l2.W + m.l2.b
    np.testing.assert_allclose(dloss(x), ((2 * m.scale * out) @ m.l2.W.T * np.cos(h)) @ m.l1.W.T, rtol=1e-12)


def test_the_derivative_keeps_the_instance_alive_and_srcgrad_nothing_more():
    q = Quadratic(3.0)
    alive = weakref.ref(q)
    d = srcgrad.grad(q.value)
    del q
    gc.collect()
    assert alive() is not None and d(1.0) == 6.0
    del d
    gc.collect()
    assert alive() is None


def test_generated_source_names_the_instance_by_its_class_and_no_address():
    text = srcgrad.source(srcgrad.grad(MLP().loss))
    assert "self = a MLP" in text and "0x" not in text


def test_a_methods_derivative_runs_its_own_code_and_its_calls_are_spliced():
    """The gradient of `model.loss` is the method's body with `self` held (frontend's
    method programs), and the methods it calls are spliced in (callees.py), each layer's
    receiver a name of its own: nothing runs a forward pass twice. Two layers of one
    class stay two objects in the printed file."""
    text = srcgrad.source(srcgrad.grad(MLP().loss))
    assert "MLP_loss" not in text and "_pullback" not in text and text.count("\ndef ") == 1
    assert "    x_at_l1_W = x @ l1_W\n" in text and "    h_at_l2_W = h @ l2_W\n" in text
    bound = next(line for line in text.splitlines() if line.startswith("# Bound by srcgrad"))
    assert bound.endswith("`l1` is a `test_methods.Linear`; `l2` is a `test_methods.Linear`; "
                          "`self` is a `test_methods.MLP`.")  # l1 and l2: two names, two objects


def test_a_called_methods_pullback_runs_its_own_code(calls_kept):
    """Where calls stay calls, a called method's pullback is the method's body with its
    `self` held too, and computes no unused value."""
    text = srcgrad.source(srcgrad.grad(MLP().loss))
    grad_def = text[text.index("def loss_grad("):text.index("\ndef ", text.index("def loss_grad("))]
    assert "    h = self.features(x)\n" in grad_def and "MLP_loss" not in text
    assert "_Linear_call" not in text and text.count("def Linear_call_pullback") == 2
    bound = next(line for line in text.splitlines() if line.startswith("# Bound by srcgrad"))
    assert bound.endswith("`self` is a `test_methods.MLP`; `self_1` is a `test_methods.Linear`; "
                          "`self_2` is a `test_methods.Linear`.")  # l1 and l2: two names, two objects


def test_a_method_storing_an_attribute_is_refused_at_its_line():
    with pytest.raises(srcgrad.SrcGradError, match="assignment to an attribute is not supported") as info:
        srcgrad.grad(MLP().stores)(np.ones(2))
    assert info.value.filename == __file__ and info.value.lineno == MLP.stores.__code__.co_firstlineno + 1


def test_a_method_called_on_an_unknown_self_names_the_bound_method_to_differentiate():
    with pytest.raises(srcgrad.NotDifferentiableError, match=r"differentiate a bound method \(`srcgrad.grad\(model.loss\)`\)"):
        srcgrad.grad(MLP.loss, wrt=1)(MLP(), np.ones(3))


def test_compile_of_a_bound_method_is_one_node_named_after_the_method():
    m, x = MLP(), RNG.normal(size=(2, 3))
    loss = srcgrad.compile(m.loss)
    for _ in range(3):  # the first calls run the method itself, later ones the generated code
        t = srcgrad.tensor(x, requires_grad=True)
        out = loss(t)
        assert type(out.grad_fn).__name__ == "lossBackward"
        out.backward()
        assert out.item() == pytest.approx(m.loss(x), rel=1e-14)
        np.testing.assert_allclose(t.grad.numpy(), _mlp_grad(m, x), rtol=1e-12, atol=1e-12)


class Child(MLP):
    def loss(self, x):
        return MLP.loss(self, x) + np.sum(self.features(x))  # the base class's method by name

    def through_super(self, x):
        return super().loss(x)  # MLP.loss, with `self` this Child

    def two_argument_super(self, x):
        return super(Child, self).loss(x)


def test_inherited_methods_super_and_a_base_method_called_by_name():
    c, x = Child(), RNG.normal(size=3)
    h = np.tanh(x @ c.l1.W + c.l1.b)
    expected = _mlp_grad(c, x) + (1 - h * h) @ c.l1.W.T
    np.testing.assert_allclose(srcgrad.grad(c.loss)(x), expected, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(srcgrad.grad(c.through_super)(x), _mlp_grad(c, x), rtol=1e-12, atol=1e-12)
    check_hessian(c.through_super, [x], 0)
    with pytest.raises(srcgrad.SrcGradError, match=r"`super\(\)` is not supported") as info:
        srcgrad.grad(Child.through_super, wrt=1)  # `self` unknown: super() cannot be resolved
    assert "call the base class's method by its name (`Base.method(self, ...)`)" in str(info.value)
    with pytest.raises(srcgrad.SrcGradError, match=r"`super\(\)` is not supported"):
        srcgrad.grad(c.two_argument_super)


class Store:
    def __init__(self):
        self.d = {"a": 2.0}

    def get(self, k, default=0.0):  # the instance's own `.get`, not a dict's
        return self.d.get(k, default)

    def loss(self, x):
        return x * self.get("a", 1.0) + x * self.get("b", 0.5) + x * x


def test_a_method_named_get_is_the_instances_own():
    assert srcgrad.grad(Store().loss)(3.0) == pytest.approx(2.0 + 0.5 + 6.0, rel=1e-15)


class Scaled:
    def loss(self, x, k=2.0, *, p=1.0):
        return np.sum(x * k * p) ** 2 / 2


def test_a_methods_defaults_positional_and_keyword_only_are_the_methods_own(monkeypatch):
    model, x = Scaled(), np.array([1.0, 2.0])

    def expected(k, p):
        return np.full(2, k * p * np.sum(k * p * x))

    df, dv = srcgrad.grad(model.loss), srcgrad.value_and_grad(model.loss)
    np.testing.assert_allclose(df(x), expected(2.0, 1.0), rtol=1e-12)  # a keyword-only default crashed here
    np.testing.assert_allclose(df(x, 3.0, p=0.5), expected(3.0, 0.5), rtol=1e-12)
    monkeypatch.setattr(Scaled.loss, "__defaults__", (3.0,))  # seen by the derivatives made before
    np.testing.assert_allclose(df(x), expected(3.0, 1.0), rtol=1e-12)
    monkeypatch.setattr(Scaled.loss, "__kwdefaults__", {"p": 2.0})
    value, g = dv(x)
    assert value == model.loss(x)
    np.testing.assert_allclose(g, expected(3.0, 2.0), rtol=1e-12)
    np.testing.assert_allclose(g, numerical_grad(model.loss, (x,), 0), rtol=1e-7)
    out, tangent = srcgrad.jvp(model.loss, (x,), (np.ones(2),))
    assert out == model.loss(x)
    np.testing.assert_allclose(tangent, np.sum(expected(3.0, 2.0)), rtol=1e-12)
