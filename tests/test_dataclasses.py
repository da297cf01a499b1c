"""Dataclasses as pytrees and as records built in the differentiated function.

A dataclass instance (frozen or not) is a pytree node whose children are its fields in
order, as in JAX's registered dataclasses: its gradient (and a tangent) is an instance of
its class made without running `__init__`/`__post_init__`. A dataclass whose `__init__`
dataclasses generated may be built in the function (`make_record`, as a namedtuple).
Properties and writes to fields are refused at the user's line
(`dataclasses.replace`: tests/test_dataclass_replace.py); methods are followed through
their code (tests/test_record_methods.py). Every derivative is checked against float64 central differences and the
closed form.
"""

import dataclasses

import numpy as np
import pytest

import srcgrad

EPS = 1e-6


@dataclasses.dataclass
class State:
    pos: np.ndarray
    vel: float
    label: str = "s"

    def __post_init__(self):  # validates: a gradient made through __init__ would fail here
        if not self.vel > 0:
            raise ValueError("vel must be positive")


@dataclasses.dataclass(frozen=True)
class Frozen:
    pos: np.ndarray
    vel: float


@dataclasses.dataclass
class Plain:
    pos: np.ndarray
    vel: float = 2.0


@dataclasses.dataclass
class Holder:
    weights: dict
    scale: float


@dataclasses.dataclass
class Body:
    pos: np.ndarray
    mass: float

    @property
    def energy(self):
        return self.mass * np.sum(self.pos ** 2)

    def kinetic(self):
        return self.mass * np.sum(self.pos ** 2)


X = np.array([0.5, -1.0, 2.0])


def energy(d):
    return np.sum(d.pos ** 2) * d.vel


def _fd(f, d, field):
    """Central difference of the scalar f at the dataclass d along each element of `field`."""
    value = getattr(d, field)
    flat = np.array(value, dtype=np.float64).ravel()
    out = np.zeros_like(flat)
    for i in range(flat.size):
        up, down = flat.copy(), flat.copy()
        up[i] += EPS
        down[i] -= EPS
        shaped = (lambda v: v.reshape(np.shape(value))) if isinstance(value, np.ndarray) else (lambda v: float(v[0]))
        out[i] = (f(dataclasses.replace(d, **{field: shaped(up)})) - f(dataclasses.replace(d, **{field: shaped(down)}))) / (2 * EPS)
    return out.reshape(np.shape(value))


@pytest.mark.parametrize("kind", [State, Frozen, Plain])
def test_grad_of_a_dataclass_argument_is_an_instance_of_its_class(kind):
    d = kind(X.copy(), 3.0)
    g = srcgrad.grad(energy)(d)
    assert type(g) is kind
    assert type(g.pos) is np.ndarray and g.pos.dtype == np.float64 and type(g.vel) is float
    np.testing.assert_allclose(g.pos, 2 * X * 3.0)
    assert g.vel == pytest.approx(np.sum(X ** 2))
    np.testing.assert_allclose(g.pos, _fd(energy, d, "pos"), rtol=1e-6)
    np.testing.assert_allclose(g.vel, _fd(energy, d, "vel"), rtol=1e-6)
    np.testing.assert_array_equal(d.pos, X) and d.vel == 3.0  # not mutated


def test_a_gradient_is_made_without_running_post_init():
    d = State(X.copy(), 3.0, "x")
    g = srcgrad.grad(lambda s: -np.sum(s.pos) * s.vel)(d)  # a negative vel gradient: __post_init__ would refuse it
    assert type(g) is State and g.vel == pytest.approx(-np.sum(X)) and g.label == 0.0
    assert dataclasses.fields(g) == dataclasses.fields(d)


def test_a_string_field_gets_what_a_namedtuple_string_field_gets():
    import collections

    Pair = collections.namedtuple("Pair", "pos vel label")
    from_tuple = srcgrad.grad(energy)(Pair(X, 3.0, "s"))
    from_dataclass = srcgrad.grad(energy)(State(X, 3.0, "s"))
    assert type(from_dataclass.label) is type(from_tuple.label) and from_dataclass.label == from_tuple.label


def test_an_integer_field_is_refused_by_its_path():
    with pytest.raises(TypeError, match=r"with respect to `d\.vel`: it is int"):
        srcgrad.grad(energy)(Plain(X, 3))


def test_value_and_grad_and_wrt_by_name():
    d = Frozen(X, 3.0)
    value, g = srcgrad.value_and_grad(lambda a, d: a * energy(d), wrt="d")(2.0, d)
    assert value == pytest.approx(2 * 3.0 * np.sum(X ** 2))
    assert type(g) is Frozen and g.vel == pytest.approx(2 * np.sum(X ** 2))


def test_float32_fields_keep_float32():
    d = Frozen(X.astype(np.float32), np.float32(3.0))
    g = srcgrad.grad(energy)(d)
    assert g.pos.dtype == np.float32 and type(g.vel) is np.float32


def test_vjp_of_a_dataclass_argument():
    d = Plain(X.copy(), 3.0)
    out, pullback = srcgrad.vjp(energy, d)
    (g,) = pullback(1.0)
    assert type(g) is Plain and g.vel == pytest.approx(np.sum(X ** 2))


def test_jvp_takes_a_tangent_of_the_same_class():
    d = Frozen(X, 3.0)
    t = Frozen(np.array([1.0, 0.0, -1.0]), 0.5)
    out, out_dot = srcgrad.jvp(energy, (d,), (t,))
    assert out == pytest.approx(energy(d))
    assert out_dot == pytest.approx(np.sum(2 * X * t.pos) * 3.0 + np.sum(X ** 2) * 0.5)


def test_jvp_refuses_a_tangent_of_another_structure():
    with pytest.raises(TypeError, match=r"tangent of `d` .* must have the structure of `d`: a Frozen .*not tuple"):
        srcgrad.jvp(energy, (Frozen(X, 3.0),), ((np.ones(3), 1.0),))
    with pytest.raises(TypeError, match=r"tangent of `d\.vel` .* must hold floats, not str"):
        srcgrad.jvp(energy, (Frozen(X, 3.0),), (Frozen(np.ones(3), "a"),))


def test_jacobian_and_hessian_lay_out_the_fields():
    d = Frozen(X, 3.0)
    j = srcgrad.jacobian(energy)(d)
    assert type(j) is Frozen
    np.testing.assert_allclose(j.pos, 2 * X * 3.0)
    assert j.vel == pytest.approx(np.sum(X ** 2))
    h = srcgrad.hessian(energy)(d)
    assert type(h) is Frozen and type(h.pos) is Frozen and type(h.vel) is Frozen
    np.testing.assert_allclose(h.pos.pos, 2 * 3.0 * np.eye(3))
    np.testing.assert_allclose(h.pos.vel, 2 * X)
    np.testing.assert_allclose(h.vel.pos, 2 * X)
    assert h.vel.vel == pytest.approx(0.0)


def test_nested_dataclasses_dicts_and_lists():
    def loss(holders):
        total = 0.0
        for h in holders:
            total = total + h.scale * np.sum(h.weights["w"] ** 2)
        return total

    holders = [Holder({"w": X.copy()}, 2.0), Holder({"w": 2 * X}, 0.5)]
    g = srcgrad.grad(loss)(holders)
    assert type(g) is list and all(type(h) is Holder and type(h.weights) is dict for h in g)
    np.testing.assert_allclose(g[0].weights["w"], 2 * X * 2.0)
    np.testing.assert_allclose(g[1].weights["w"], 2 * (2 * X) * 0.5)
    assert g[1].scale == pytest.approx(np.sum((2 * X) ** 2))
    np.testing.assert_array_equal(holders[0].weights["w"], X)


def test_a_dataclass_built_inside_by_position_keyword_and_default():
    def by_position(x):
        p = Plain(x * x, x[0])
        return np.sum(p.pos) * p.vel

    def by_keyword(x):
        p = Frozen(vel=x[0], pos=x * x)
        return np.sum(p.pos) * p.vel

    def by_default(x):
        p = Plain(pos=x * x)
        return np.sum(p.pos) * p.vel

    want = 2 * X * X[0]
    want[0] += np.sum(X * X)
    for f in (by_position, by_keyword):
        np.testing.assert_allclose(srcgrad.grad(f)(X), want)
        _, tangent = srcgrad.jvp(f, (X,), (np.ones(3),))
        assert tangent == pytest.approx(np.sum(want))
    np.testing.assert_allclose(srcgrad.grad(by_default)(X), 2 * X * 2.0)
    np.testing.assert_allclose(srcgrad.hessian(by_keyword)(X), [[6 * X[0], 2 * X[1], 2 * X[2]],
                                                             [2 * X[1], 2 * X[0], 0.0], [2 * X[2], 0.0, 2 * X[0]]])


def test_a_dataclass_returned_is_a_pytree_output():
    def make(x):
        return Frozen(x * 2.0, x[1] ** 2)

    out, pullback = srcgrad.vjp(make, X)
    assert type(out) is Frozen
    (g,) = pullback(Frozen(np.ones(3), 1.0))
    np.testing.assert_allclose(g, [2.0, 2.0 + 2 * X[1], 2.0])
    with pytest.raises(TypeError, match="must have the structure of its output, a Frozen; got tuple"):
        pullback((np.ones(3), 1.0))
    _, tangent = srcgrad.jvp(make, (X,), (np.ones(3),))
    assert type(tangent) is Frozen and tangent.vel == pytest.approx(2 * X[1])
    j = srcgrad.jacobian(make)(X)
    assert type(j) is Frozen
    np.testing.assert_allclose(j.pos, 2 * np.eye(3))
    np.testing.assert_allclose(j.vel, [0.0, 2 * X[1], 0.0])
    with pytest.raises(TypeError, match="needs a scalar output"):
        srcgrad.grad(make)(X)


# --- refusals ----------------------------------------------------------------------


def test_a_property_of_an_argument_is_refused_at_its_line():
    def total(body):
        return body.energy

    for run in (lambda: srcgrad.grad(total)(Body(X, 2.0)), lambda: srcgrad.jvp(total, (Body(X, 2.0),), (Body(X, 1.0),))):
        with pytest.raises(srcgrad.NotDifferentiableError, match=r"`\.energy` is not one \(a property") as info:
            run()
        assert info.value.filename == __file__ and info.value.lineno == total.__code__.co_firstlineno + 1


def test_a_property_of_an_entry_of_an_argument_is_refused_in_both_modes():
    def by_loop(bodies):
        total = 0.0
        for b in bodies:
            total = total + b.energy
        return total

    def by_index(bodies, i):
        b = bodies[i]
        return b.energy

    bodies = [Body(X, 2.0), Body(X + 1.0, 1.0)]
    runs = [lambda: srcgrad.grad(by_loop)(bodies), lambda: srcgrad.jvp(by_loop, (bodies,), (bodies,)),
            lambda: srcgrad.grad(by_index)(bodies, 1), lambda: srcgrad.jvp(by_index, (bodies, 1), (bodies, None))]
    for run in runs:  # forward mode would read the property off the tangent
        with pytest.raises(srcgrad.NotDifferentiableError, match=r"`\.energy` is not one"):
            run()


@dataclasses.dataclass
class _System:
    body: Body
    scale: float


def test_a_property_of_a_field_of_an_argument_is_refused_in_both_modes():
    """Forward mode read `system.body.energy` off the tangent: 3.0 where the derivative is 6.0."""
    def chained(system):
        return system.body.energy * system.scale

    def through_a_name(system):
        b = system.body
        return b.energy * system.scale

    system = _System(Body(np.array([1.0, 2.0]), 1.0), 3.0)
    tangent = _System(Body(np.array([1.0, 0.0]), 0.0), 0.0)
    for fn in (chained, through_a_name):
        for run in (lambda: srcgrad.grad(fn)(system), lambda: srcgrad.jvp(fn, (system,), (tangent,))):
            with pytest.raises(srcgrad.NotDifferentiableError, match=r"`\.energy` is not one") as info:
                run()
            assert info.value.filename == __file__


def test_a_property_read_by_getattr_is_refused_as_the_attribute_is():
    """`getattr(body, "energy")` reads the property as `body.energy` does: forward mode read
    it off the tangent (0.0 where the derivative is 2 * mass * sum(pos * pos_dot) = 4.0),
    reverse mode failed in the generated code without the user's line."""
    def total(body):
        return getattr(body, "energy")

    def built(x):
        return getattr(Body(x, 2.0), "energy")

    body, tangent = Body(np.array([1.0, 0.0]), 1.0), Body(np.array([2.0, 0.0]), 0.0)
    runs = [lambda: srcgrad.grad(total)(body), lambda: srcgrad.jvp(total, (body,), (tangent,)),
            lambda: srcgrad.jacobian(total, mode="forward")(body)]
    for run in runs:
        with pytest.raises(srcgrad.NotDifferentiableError, match=r"`\.energy` is not one \(a property") as info:
            run()
        assert info.value.filename == __file__ and info.value.lineno == total.__code__.co_firstlineno + 1
    with pytest.raises(srcgrad.NotDifferentiableError, match=r"fields of Body \(pos, mass\), and `\.energy` is not one"):
        srcgrad.grad(built)(X)

    def field(body):  # a field read by getattr is differentiated
        return np.sum(getattr(body, "pos") ** 2) * body.mass

    np.testing.assert_allclose(srcgrad.grad(field)(body).pos, [2.0, 0.0], rtol=1e-14)
    assert srcgrad.jvp(field, (body,), (tangent,))[1] == pytest.approx(4.0, rel=1e-14)


def test_a_property_read_through_a_name_the_checks_do_not_follow_is_refused_when_run():
    """`q` is the argument chosen in a branch, or its entry read back from a list: the read
    is checked when the derivative runs (runtime.field_tangent). Forward mode read the
    property off the tangent: 0.0 where 2 * mass * sum(pos * pos_dot) = 4.0 is right."""
    def in_a_branch(body, flag):
        if flag:
            q = body
        else:
            q = body
        return q.energy

    def from_a_list(body):
        q = [body][0]
        return q.energy

    def by_a_computed_name(body):
        name = "energy"
        return getattr(body, name)

    body, tangent = Body(np.array([1.0, 0.0]), 1.0), Body(np.array([2.0, 0.0]), 0.0)
    runs = [lambda: srcgrad.jvp(in_a_branch, (body, True), (tangent, None)),
            lambda: srcgrad.jvp(from_a_list, (body,), (tangent,)),
            lambda: srcgrad.jvp(by_a_computed_name, (body,), (tangent,)),
            lambda: srcgrad.jacobian(from_a_list, mode="forward")(body)]
    for run in runs:
        with pytest.raises(TypeError, match=r"`\.energy` is not one \(a property"):
            run()

    def field(body, flag):  # a field read so is differentiated
        q = body if flag else body
        return np.sum(q.pos ** 2) * q.mass

    assert srcgrad.jvp(field, (body, True), (tangent, None))[1] == pytest.approx(4.0, rel=1e-14)


def test_a_property_of_a_dataclass_built_inside_is_followed_through_its_getter():
    """(tests/test_user_classes.py has the rest.)"""
    def total(x):
        b = Body(x, 2.0)
        return b.energy

    np.testing.assert_allclose(srcgrad.grad(total)(X), 4.0 * X, rtol=1e-14)


def test_a_method_is_followed_through_its_code():
    """(tests/test_record_methods.py has the rest.)"""
    def total(body):
        return body.kinetic()

    g = srcgrad.grad(total)(Body(X, 2.0))
    assert type(g) is Body and g.mass == pytest.approx(np.sum(X ** 2))
    np.testing.assert_allclose(g.pos, 2 * 2.0 * X, rtol=1e-14)


def test_a_method_of_an_object_of_another_class_is_refused_with_what_to_write():
    class Bag:
        def __init__(self, pos):
            self.pos = pos

        def kinetic(self):
            return np.sum(self.pos ** 2)

    def total(bag):
        return bag.kinetic()

    with pytest.raises(TypeError, match=r"with respect to `bag`: it is a .*Bag, an object of a class that is neither a "
                       r"dataclass nor a namedtuple.*or make the class a dataclass"):
        srcgrad.grad(total)(Bag(X))


@dataclasses.dataclass
class _Computed:
    pos: np.ndarray
    norm: float = dataclasses.field(init=False)

    def __post_init__(self):
        self.norm = float(np.sum(self.pos))


@dataclasses.dataclass
class _Listed:
    pos: np.ndarray
    extra: list = dataclasses.field(default_factory=list)


def test_a_dataclass_with_post_init_is_refused_where_it_is_built():
    def f(x):
        s = State(x, 1.0)
        return np.sum(s.pos)

    with pytest.raises(srcgrad.NotDifferentiableError, match="`State` is a dataclass, but it defines `__post_init__`") as info:
        srcgrad.grad(f)(X)
    assert info.value.filename == __file__ and info.value.lineno == f.__code__.co_firstlineno + 1


def test_init_false_and_default_factory_are_refused():
    with pytest.raises(srcgrad.NotDifferentiableError, match="its field `norm` is `field\\(init=False\\)`"):
        srcgrad.grad(lambda x: np.sum(_Computed(x).pos))(X)
    with pytest.raises(srcgrad.NotDifferentiableError, match="the field `extra` of `_Listed` is left to its default"):
        srcgrad.grad(lambda x: np.sum(_Listed(x).pos))(X)


def test_writes_to_fields_are_refused_with_what_to_do():
    def write(d):
        d.pos = d.pos * 2
        return np.sum(d.pos)

    def add(x):
        p = Plain(x, 1.0)
        p.vel += 1.0
        return np.sum(p.pos) * p.vel

    with pytest.raises(srcgrad.SrcGradError, match=r"assignment to an attribute is not supported .*`d\.pos`.*p = D\(pos=v"):
        srcgrad.grad(write)
    with pytest.raises(srcgrad.SrcGradError, match=r"augmented assignment to an attribute is not supported .*`p\.vel`"):
        srcgrad.grad(add)
