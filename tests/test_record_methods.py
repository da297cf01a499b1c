"""Methods of a dataclass or namedtuple passed as an argument (compiler/record_methods.py):
`p.apply(x)` is followed as `type(p).apply(p, x)`, through the method's own code, so the
gradient reaches the record's fields as it does for a function taking the record. The
derivative is made per record class (a subclass's override is its own), and every
derivative is checked against float64 central differences and the closed form."""

import dataclasses
import typing

import numpy as np
import pytest

import srcgrad

EPS = 1e-6
RNG = np.random.default_rng(5)
W0 = 0.5 * RNG.normal(size=(2, 3))
B0 = np.array([0.3, -0.2])
X = np.array([0.7, -1.1, 0.4])


def squash(v):
    return np.tanh(v)


@dataclasses.dataclass
class Params:
    W: np.ndarray
    b: np.ndarray

    def apply(self, x):
        return np.tanh(self.W @ x + self.b)


@dataclasses.dataclass
class Doubled(Params):
    def apply(self, x):  # an override: 2 sin(Wx + b)
        return 2.0 * np.sin(self.W @ x + self.b)


class Pair(typing.NamedTuple):
    W: np.ndarray
    b: np.ndarray

    def apply(self, x):  # the same function as Params.apply
        return np.tanh(self.W @ x + self.b)

    def scaled(self, x, c=3.0):
        return c * self.inner(x)

    def inner(self, x):
        return squash(self.W @ x) + self.b


@dataclasses.dataclass(frozen=True)
class Layered:
    W: np.ndarray
    b: np.ndarray

    def apply(self, x):  # a method calling another method of its record, and a module helper
        return self.affine(x) * 0.5 + squash(self.b)

    def affine(self, x):
        return self.W @ x + self.b

    @staticmethod
    def act(v):
        return np.sin(v)


def loss(p, x):
    return np.sum(p.apply(x) ** 2)


def _fd(f, p, x):
    """Central differences of the scalar f(p, x) along each element of p's fields and of x."""
    fields = {}
    for name in ("W", "b"):
        value = getattr(p, name)
        out = np.zeros(value.shape)
        for i in np.ndindex(value.shape):
            up, down = value.copy(), value.copy()
            up[i] += EPS
            down[i] -= EPS
            out[i] = (f(_replaced(p, name, up), x) - f(_replaced(p, name, down), x)) / (2 * EPS)
        fields[name] = out
    gx = np.zeros(x.shape)
    for i in range(x.size):
        up, down = x.copy(), x.copy()
        up[i] += EPS
        down[i] -= EPS
        gx[i] = (f(p, up) - f(p, down)) / (2 * EPS)
    return fields, gx


def _replaced(p, name, value):
    return p._replace(**{name: value}) if isinstance(p, tuple) else dataclasses.replace(p, **{name: value})


def _tanh_loss_grads(W, b, x):
    """The exact gradient of sum(tanh(Wx + b)^2) in W, b and x."""
    t = np.tanh(W @ x + b)
    u = 2 * t * (1 - t * t)
    return np.outer(u, x), u, W.T @ u


def _sin_loss_grads(W, b, x):
    """The exact gradient of sum((2 sin(Wx + b))^2) in W, b and x."""
    z = W @ x + b
    u = 8 * np.sin(z) * np.cos(z)
    return np.outer(u, x), u, W.T @ u


@pytest.mark.parametrize("kind", [Params, Pair])
def test_grad_of_a_method_call_is_an_instance_of_the_class(kind):
    p = kind(W0.copy(), B0.copy())
    x = X.copy()
    g = srcgrad.grad(loss)(p, x)
    assert type(g) is kind
    assert g.W.shape == (2, 3) and g.b.shape == (2,) and g.W.dtype == np.float64
    gW, gb, _ = _tanh_loss_grads(W0, B0, X)
    np.testing.assert_allclose(g.W, gW, rtol=1e-13)
    np.testing.assert_allclose(g.b, gb, rtol=1e-13)
    fields, gx = _fd(loss, p, x)
    np.testing.assert_allclose(g.W, fields["W"], rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(g.b, fields["b"], rtol=1e-6, atol=1e-9)
    gp, gx_made = srcgrad.grad(loss, wrt=(0, 1))(p, x)
    np.testing.assert_allclose(gx_made, gx, rtol=1e-6, atol=1e-9)
    np.testing.assert_array_equal(p.W, W0)  # nothing mutated
    np.testing.assert_array_equal(p.b, B0)
    np.testing.assert_array_equal(x, X)


def test_float32_stays_float32():
    p = Params(W0.astype(np.float32), B0.astype(np.float32))
    g = srcgrad.grad(loss)(p, X.astype(np.float32))
    assert type(g) is Params and g.W.dtype == np.float32 and g.b.dtype == np.float32
    gW, gb, _ = _tanh_loss_grads(W0, B0, X)
    np.testing.assert_allclose(g.W, gW, rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(g.b, gb, rtol=1e-4, atol=1e-6)


def test_a_subclass_gets_the_derivative_of_its_own_override():
    """Keyed on the class passed, not the first one seen: Doubled's `apply` is 2 sin(.)."""
    df = srcgrad.grad(loss)
    for kind, exact in ((Params, _tanh_loss_grads), (Doubled, _sin_loss_grads), (Params, _tanh_loss_grads)):
        p = kind(W0.copy(), B0.copy())
        g = df(p, X)
        assert type(g) is kind
        gW, gb, _ = exact(W0, B0, X)
        np.testing.assert_allclose(g.W, gW, rtol=1e-13)
        np.testing.assert_allclose(g.b, gb, rtol=1e-13)
        fields, _ = _fd(loss, p, X)
        np.testing.assert_allclose(g.W, fields["W"], rtol=1e-6, atol=1e-9)


def test_one_derivative_serves_two_record_classes():
    df = srcgrad.grad(loss)
    gW, gb, _ = _tanh_loss_grads(W0, B0, X)
    for p in (Params(W0, B0), Pair(W0, B0), Params(W0, B0), Pair(W0, B0)):
        g = df(p, X)
        assert type(g) is type(p)
        np.testing.assert_allclose(g.W, gW, rtol=1e-13)
        np.testing.assert_allclose(g.b, gb, rtol=1e-13)
    assert "(p = a Pair)" in srcgrad.source(df)


def _layered_loss_exact(W, b, x):
    """sum((0.5 (Wx + b) + tanh(b))^2): its gradient in W and b."""
    r = 0.5 * (W @ x + b) + np.tanh(b)
    gr = 2 * r
    return np.outer(0.5 * gr, x), 0.5 * gr + gr * (1 - np.tanh(b) ** 2)


def test_a_method_calling_another_method_of_its_record_and_a_module_helper():
    p = Layered(W0, B0)
    g = srcgrad.grad(loss)(p, X)
    assert type(g) is Layered
    gW, gb = _layered_loss_exact(W0, B0, X)
    np.testing.assert_allclose(g.W, gW, rtol=1e-13)
    np.testing.assert_allclose(g.b, gb, rtol=1e-13)
    fields, _ = _fd(loss, p, X)
    np.testing.assert_allclose(g.b, fields["b"], rtol=1e-6, atol=1e-9)

    def with_keyword(q, x):
        return np.sum(q.scaled(x, c=2.0))

    q = Pair(W0, B0)
    g = srcgrad.grad(with_keyword)(q, X)
    t = np.tanh(W0 @ X)
    np.testing.assert_allclose(g.W, np.outer(2.0 * (1 - t * t), X), rtol=1e-13)
    np.testing.assert_allclose(g.b, [2.0, 2.0], rtol=1e-13)


def test_a_staticmethod_is_called_without_the_record():
    def f(p, x):
        return np.sum(p.act(p.W @ x))

    g = srcgrad.grad(f)(Layered(W0, B0), X)
    np.testing.assert_allclose(g.W, np.outer(np.cos(W0 @ X), X), rtol=1e-13)
    np.testing.assert_allclose(g.b, 0.0)


def test_a_record_handed_to_a_function_of_yours_that_calls_its_method():
    def inner(q, x):
        return q.apply(x)

    def outer(p, x):
        return np.sum(inner(p, x) ** 2)

    for kind, exact in ((Params, _tanh_loss_grads), (Doubled, _sin_loss_grads)):
        g = srcgrad.grad(outer)(kind(W0, B0), X)
        assert type(g) is kind
        gW, gb, _ = exact(W0, B0, X)
        np.testing.assert_allclose(g.W, gW, rtol=1e-13)
        np.testing.assert_allclose(g.b, gb, rtol=1e-13)


def _every_transform(p):
    gW, gb, gx = (_sin_loss_grads if type(p) is Doubled else _tanh_loss_grads)(W0, B0, X)
    value, g = srcgrad.value_and_grad(loss)(p, X)
    assert value == pytest.approx(loss(p, X), rel=1e-14)
    np.testing.assert_allclose(g.W, gW, rtol=1e-13)

    out, pullback = srcgrad.vjp(loss, p, X)
    gp, gxv = pullback(1.0)
    assert type(gp) is type(p)
    np.testing.assert_allclose(gp.b, gb, rtol=1e-13)
    np.testing.assert_allclose(gxv, gx, rtol=1e-13)

    tangent = type(p)(np.ones((2, 3)), np.array([1.0, -1.0]))
    out, out_dot = srcgrad.jvp(loss, (p, X), (tangent, np.zeros(3)))
    assert out == pytest.approx(loss(p, X), rel=1e-14)
    assert out_dot == pytest.approx(np.sum(gW) + gb[0] - gb[1], rel=1e-12)

    def forward(p, x):
        return p.apply(x)

    for mode in ("forward", "reverse"):
        J = srcgrad.jacobian(forward, wrt=1, mode=mode)(p, X)
        by_differences = np.stack([(forward(p, X + EPS * e) - forward(p, X - EPS * e)) / (2 * EPS) for e in np.eye(3)], 1)
        assert J.shape == (2, 3)
        np.testing.assert_allclose(J, by_differences, rtol=1e-6, atol=1e-9)
        Jp = srcgrad.jacobian(forward, mode=mode)(p, X)
        assert type(Jp) is type(p) and Jp.b.shape == (2, 2)
        np.testing.assert_allclose(Jp.b, np.stack([(forward(_replaced(p, "b", p.b + EPS * e), X)
                                                    - forward(_replaced(p, "b", p.b - EPS * e), X)) / (2 * EPS)
                                                   for e in np.eye(2)], 1), rtol=1e-6, atol=1e-9)

    H = srcgrad.hessian(loss, wrt=1)(p, X)
    gradient_x = srcgrad.grad(loss, wrt=1)
    assert H.shape == (3, 3)
    for i in range(3):
        e = np.eye(3)[i]
        np.testing.assert_allclose(H[i], (gradient_x(p, X + EPS * e) - gradient_x(p, X - EPS * e)) / (2 * EPS),
                                   rtol=1e-5, atol=1e-8)
    Hp = srcgrad.hessian(loss)(p, X)
    assert type(Hp) is type(p) and type(Hp.b) is type(p)
    gradient_b = lambda b: srcgrad.grad(loss)(_replaced(p, "b", b), X).b  # noqa: E731
    for i in range(2):
        e = np.eye(2)[i]
        np.testing.assert_allclose(Hp.b.b[i], (gradient_b(B0 + EPS * e) - gradient_b(B0 - EPS * e)) / (2 * EPS),
                                   rtol=1e-5, atol=1e-8)

    def wave(t, p):
        return np.sum(p.apply(t * X))

    a, z = W0 @ X, 0.7 * (W0 @ X) + B0
    exact = (np.sum(-2 * np.tanh(z) * (1 - np.tanh(z) ** 2) * a * a) if type(p) is not Doubled
             else np.sum(-2 * np.sin(z) * a * a))
    assert srcgrad.grad(srcgrad.grad(wave))(0.7, p) == pytest.approx(exact, rel=1e-12)


def test_every_transform_of_a_dataclass_and_a_namedtuple():
    for p in (Params(W0, B0), Pair(W0, B0), Doubled(W0, B0)):
        _every_transform(p)


def test_the_generated_code_names_the_binding_and_calls_the_class_function():
    def through(q, x):
        return np.sum(q.apply(x) ** 2)

    df = srcgrad.grad(through)
    with pytest.raises(TypeError, match="call it once before asking for its source"):
        srcgrad.source(df)
    df(Layered(W0, B0), X)
    text = srcgrad.source(df)
    assert "(q = a Layered)" in text
    assert "Layered_apply(q, x)" in text and "Layered_apply = test_record_methods.Layered.apply" in text
    assert '"""Pullback of apply (self = a Layered)' in text  # its call of self.affine spliced in
    df(Params(W0, B0), X)
    assert "(q = a Params)" in srcgrad.source(df)
    assert "q.apply" not in srcgrad.source(df).split('"""')[-1].replace("# return np.sum(q.apply(x) ** 2)", "")


def test_a_method_rebound_on_its_class_gets_a_new_derivative():
    @dataclasses.dataclass
    class Local:
        W: np.ndarray
        b: np.ndarray

        def apply(self, x):
            return np.tanh(self.W @ x + self.b)

    df = srcgrad.grad(loss)
    p = Local(W0, B0)
    np.testing.assert_allclose(df(p, X).b, _tanh_loss_grads(W0, B0, X)[1], rtol=1e-13)
    Local.apply = Doubled.apply
    try:
        np.testing.assert_allclose(df(p, X).b, _sin_loss_grads(W0, B0, X)[1], rtol=1e-13)
    finally:
        del Local.apply


# --- refusals ----------------------------------------------------------------------


@dataclasses.dataclass
class Body:
    pos: np.ndarray
    mass: float

    @property
    def energy(self):
        return self.mass * np.sum(self.pos ** 2)

    def kinetic(self):  # reads a property
        return self.energy * 0.5

    def moved(self, v):  # writes its record
        self.pos = self.pos + v
        return np.sum(self.pos)

    def mean(self):  # named as an array's method
        return np.sum(self.pos)

    def total(self):
        return np.sum(self.pos) * self.mass

    @classmethod
    def make(cls, v):
        return np.sum(v)


def _total_of(q):
    return q.total()


def _refused(f, body, match):
    """`f(body)` is refused at f's line by grad, jvp and forward jacobian alike."""
    runs = [lambda: srcgrad.grad(f)(body), lambda: srcgrad.jvp(f, (body,), (Body(np.ones(2), 1.0),)),
            lambda: srcgrad.jacobian(f, mode="forward")(body)]
    for run in runs:
        with pytest.raises(srcgrad.NotDifferentiableError, match=match) as info:
            run()
        assert info.value.filename == __file__


BODY = Body(np.array([1.0, 2.0]), 2.0)


def test_a_property_read_in_a_method_is_followed_through_its_getter():
    """(refused before: the method's `self` is bound to its class, so `self.energy` is
    the property's getter, known_classes.py)"""
    def f(b):
        return b.kinetic()

    g = srcgrad.grad(f)(BODY)
    np.testing.assert_allclose(g.pos, BODY.mass * BODY.pos, rtol=1e-14)
    assert g.mass == pytest.approx(0.5 * np.sum(BODY.pos ** 2), rel=1e-14)
    _, out_dot = srcgrad.jvp(f, (BODY,), (Body(np.ones(2), 1.0),))
    assert out_dot == pytest.approx(np.sum(BODY.mass * BODY.pos) + 0.5 * np.sum(BODY.pos ** 2), rel=1e-14)


def test_a_property_or_classmethod_called_and_a_missing_method_are_refused_at_the_line():
    def called_property(b):
        return b.energy()

    def classmethod_(b):
        return b.make(b.pos)

    def missing(b):
        return b.nothing()

    for f, match in ((called_property, r"calls `b\.energy\(\)`, where `b` holds a Body: `Body\.energy` is a property"),
                     (classmethod_, r"`Body\.make` is a classmethod"),
                     (missing, r"Body has no attribute `nothing`")):
        _refused(f, BODY, match)
        with pytest.raises(srcgrad.NotDifferentiableError) as info:
            srcgrad.grad(f)(BODY)
        assert info.value.lineno == f.__code__.co_firstlineno + 1


def test_a_method_writing_its_record_is_refused():
    def f(b):
        return b.moved(np.ones(2))

    _refused(f, BODY, r"`Body\.moved` sets `self\.pos` .*srcgrad takes a record as immutable; make a new one "
                      r"\(`dataclasses\.replace\(self, pos=\.\.\.\)`")
    np.testing.assert_array_equal(BODY.pos, [1.0, 2.0])


def test_a_method_named_as_an_array_method_is_refused_where_the_class_is_not_bound():
    """`b.mean()` alone was read as an array's `.mean()` (a wrong gradient or a failure in
    the generated code): refused when the derivative runs. With another method called,
    `b` is bound to its class, and its `mean` is the class's, followed
    (known_classes.py)."""
    def alone(b):
        return b.mean()

    def beside(b):
        return b.mean() + b.total()

    _refused(alone, BODY, r"calls `b\.mean\(\)`, where `b` holds a Body whose class defines `mean`: .*rename the method")
    g = srcgrad.grad(beside)(BODY)
    want = srcgrad.grad(lambda b: Body.mean(b) + Body.total(b))(BODY)
    np.testing.assert_allclose(g.pos, want.pos, rtol=1e-14)
    assert g.mass == pytest.approx(want.mass, rel=1e-14)
    out, out_dot = srcgrad.jvp(beside, (BODY,), (Body(np.ones(2), 1.0),))
    assert out == pytest.approx(beside(BODY), rel=1e-14)
    assert out_dot == pytest.approx(np.sum(want.pos) + want.mass, rel=1e-12)


def test_a_method_set_on_the_instance_is_refused():
    def f(b):
        return b.total()

    odd = Body(np.array([1.0, 2.0]), 2.0)
    odd.total = lambda: 0.0
    _refused(f, odd, r"calls a method of `b`, which holds a Body with an attribute `total` of its own")

    def handed(b):  # the method is called in a function of yours, the check made where `b` is passed
        return _total_of(b)

    _refused(handed, odd, r"calls a method of `b`, which holds a Body with an attribute `total` of its own")
    assert srcgrad.grad(handed)(BODY).mass == pytest.approx(3.0)
    assert srcgrad.grad(f)(BODY).mass == pytest.approx(3.0)


def test_a_parameter_the_function_rebinds_to_another_class_is_refused_and_an_object_of_another_class_is_no_record():
    class NotARecord:
        def __init__(self, pos):
            self.pos = pos

        def total(self):
            return np.sum(self.pos)

    def assigned(b):  # rebound to an object of its class: still known (known_classes.py)
        b = Body(b.pos * 2, b.mass)
        return b.total()

    @dataclasses.dataclass
    class Other:
        pos: np.ndarray

        def total(self):
            return np.sum(self.pos)

    def rebound_otherwise(b):
        b = Other(b.pos)
        return b.total()

    def plain(o):
        return o.total()

    g = srcgrad.grad(assigned)(BODY)
    np.testing.assert_allclose(g.pos, 2 * BODY.mass * np.ones(2), rtol=1e-14)
    assert g.mass == pytest.approx(2 * np.sum(BODY.pos), rel=1e-14)
    with pytest.raises(srcgrad.NotDifferentiableError, match=r"only where it is a parameter holding a dataclass "
                       r"instance, a namedtuple or an object of a class of your own code, whose class defines the "
                       r"method with a plain `def`, and the function never assigns the parameter"):
        srcgrad.grad(rebound_otherwise)(BODY)
    # its methods are followed (test_argument_methods.py), but it is held constant, never differentiated
    with pytest.raises(TypeError, match=r"with respect to `o`: it is a .*NotARecord, an object of a class that is "
                       r"neither a dataclass nor a namedtuple"):
        srcgrad.grad(plain)(NotARecord(np.ones(2)))


@dataclasses.dataclass
class Wave:
    w: np.ndarray

    def __call__(self, x):
        return np.sum(self.w * x)

    def scaled(self, x, *, scale=2.0):
        return scale * self(x)

    def folded(self, x, k):  # recursive, through a branch on a constant
        if k == 0:
            return x
        return self.folded(np.sin(self.w * x), k - 1)


def test_a_callable_record_is_a_record_its_call_and_methods_followed():
    """A dataclass defining `__call__` was bound as a callable object, its fields constants:
    `p.scaled(x)` then gave a zero gradient."""
    p, x = Wave(np.array([1.0, 2.0])), np.array([0.5, -1.0])

    def called(p, x):
        return p(x) + p.scaled(x, scale=3.0)

    def only_method(p, x):
        return p.scaled(x)

    np.testing.assert_allclose(srcgrad.grad(called)(p, x).w, 4 * x, rtol=1e-14)
    np.testing.assert_allclose(srcgrad.grad(only_method)(p, x).w, 2 * x, rtol=1e-14)
    assert srcgrad.jvp(only_method, (p, x), (Wave(np.ones(2)), np.zeros(2)))[1] == pytest.approx(2 * np.sum(x))
    df = srcgrad.grad(called)
    df(p, x)
    text = srcgrad.source(df)
    assert "Wave_scaled(p, x, scale=3.0)" in text and "(p = a Wave)" in text and "Wave_call_p = np.sum(p_w_times_x)" in text

    def folded(p, x):
        return np.sum(p.folded(x, 2))

    w = p.w
    exact = np.cos(w * np.sin(w * x)) * (np.sin(w * x) + w * np.cos(w * x) * x)
    np.testing.assert_allclose(srcgrad.grad(folded)(p, x).w, exact, rtol=1e-13)


def test_a_record_passed_by_keyword_and_a_method_of_an_array_argument():
    def by_keyword(x, p=None):
        return p.scaled(x)

    p, x = Wave(np.array([1.0, 2.0])), np.array([0.5, -1.0])
    np.testing.assert_allclose(srcgrad.grad(by_keyword, wrt="p")(x, p=p).w, 2 * x, rtol=1e-14)

    def array_methods(x):
        return x.sum() * x.mean()

    df = srcgrad.grad(array_methods)  # no derivative per call: its source is there before any call
    assert "def array_methods_grad" in srcgrad.source(df)


def test_a_method_named_as_a_container_method_is_refused_with_why():
    @dataclasses.dataclass
    class Bag:
        w: np.ndarray

        def update(self, x):
            return np.sum(self.w * x)

    def f(b, x):
        return b.update(x)

    with pytest.raises(srcgrad.NotDifferentiableError, match=r"names it as no method of arrays, lists, dicts, tuples, "
                       r"sets or strings \(`update` is one\)"):
        srcgrad.grad(f)(Bag(np.ones(2)), np.ones(2))


def test_every_transform_through_a_method_calling_another_and_a_callable_record():
    p = Layered(W0, B0)

    def forward(p, x):
        return p.apply(x)

    Jb = np.diag(0.5 + 1 - np.tanh(B0) ** 2)
    for mode in ("forward", "reverse"):
        np.testing.assert_allclose(srcgrad.jacobian(forward, wrt=1, mode=mode)(p, X), 0.5 * W0, rtol=1e-14)
        Jp = srcgrad.jacobian(forward, mode=mode)(p, X)
        assert type(Jp) is Layered
        np.testing.assert_allclose(Jp.b, Jb, rtol=1e-14)
    r = 0.5 * (W0 @ X + B0) + np.tanh(B0)
    H = srcgrad.hessian(loss)(p, X)
    assert type(H) is Layered and type(H.b) is Layered
    np.testing.assert_allclose(H.b.b, 2 * Jb.T @ Jb + np.diag(2 * r * -2 * np.tanh(B0) * (1 - np.tanh(B0) ** 2)),
                               rtol=1e-13)
    np.testing.assert_allclose(srcgrad.hessian(loss, wrt=1)(p, X), 0.5 * W0.T @ W0, rtol=1e-13)
    t = Layered(np.ones((2, 3)), np.array([1.0, -1.0]))
    g = srcgrad.grad(loss)(p, X)
    assert srcgrad.jvp(loss, (p, X), (t, np.zeros(3)))[1] == pytest.approx(np.sum(g.W) + g.b[0] - g.b[1], rel=1e-13)

    def wave(t, p):  # linear in t: no second derivative
        return np.sum(p.apply(t * X))

    assert srcgrad.grad(srcgrad.grad(wave))(0.7, p) == 0.0
    x = np.array([0.5, -1.0])

    def squared(p, x):
        return p.scaled(x) ** 2

    np.testing.assert_allclose(srcgrad.hessian(squared)(Wave(np.array([1.0, 2.0])), x).w.w, 8 * np.outer(x, x), rtol=1e-14)
