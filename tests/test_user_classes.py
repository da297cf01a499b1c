"""Objects of the user's own classes made and used inside the differentiated function
(compiler/known_classes.py): operators, properties, methods and `__call__` of an object
whose class is known where it is used are followed through the class's code, in
reverse mode, forward mode and Hessians, and the printed source runs on its own. An
operator on an object whose class is not known at build time is refused, as the rules
of numbers would run on it."""

import math
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
import pytest

import srcgrad


@dataclass
class P:
    a: float
    b: float

    def __add__(self, o):
        return P(self.a + o.a, self.b * o.b)

    def __mul__(self, k):
        return P(self.a * k, self.b + k)

    def __rmul__(self, k):
        return P(k * self.a, self.b)

    def __neg__(self):
        return P(-self.a, self.b * self.b)

    def norm(self):
        return self.a * self.a + self.b

    def dot(self, o):  # named as an array's method
        return self.a * o.a + self.b * o.b

    def norm2(self):
        return self.dot(self)

    @property
    def s(self):
        return self.a + self.b

    @classmethod
    def polar(cls, r, t):
        return cls(r * np.cos(t), r * np.sin(t))


class Lin:
    def __init__(self, w):
        self.w = w

    def __call__(self, x):
        return self.w * x


class Vec(NamedTuple):
    a: float
    b: float

    def __add__(self, o):
        return Vec(self.a + o.a, self.b * o.b)

    @property
    def total(self):
        return self.a * self.b


@dataclass
class State:
    q: float
    p: float

    def __add__(self, o):
        return State(self.q + o.q, self.p + o.p)

    def __rmul__(self, k):
        return State(k * self.q, k * self.p)

    def energy(self):
        return 0.5 * self.p ** 2 + 0.5 * self.q ** 2


def rhs(s):
    return State(s.p, -4.0 * s.q)


@dataclass
class Guarded:
    a: float

    def __add__(self, o):
        if not isinstance(o, Guarded):
            return NotImplemented
        return Guarded(self.a + o.a)


@dataclass
class InPlace:
    a: float

    def __add__(self, o):
        return InPlace(self.a + o.a)

    def __iadd__(self, o):
        self.a = self.a + o.a
        return self


def _central(f, x, h=1e-6):
    return (f(x + h) - f(x - h)) / (2 * h)


def _second(f, x, h=1e-4):
    return (f(x + h) - 2 * f(x) + f(x - h)) / (h * h)


def _check(f, x, want, want2=None):
    """grad, jvp and (where given) hessian of `f` at `x` against the analytic `want`
    (and `want2`) and central differences; the printed gradient runs on its own."""
    g = srcgrad.grad(f)(x)
    assert type(g) is float
    assert g == pytest.approx(want, rel=1e-12)
    assert g == pytest.approx(_central(f, x), rel=1e-6)
    out, out_dot = srcgrad.jvp(f, (x,), (1.0,))
    assert out == pytest.approx(f(x), rel=1e-14)
    assert out_dot == pytest.approx(want, rel=1e-12)
    if want2 is not None:
        h = srcgrad.hessian(f)(x)
        assert float(h) == pytest.approx(want2, rel=1e-10)
        assert float(h) == pytest.approx(_second(f, x), rel=1e-4, abs=1e-6)
    text = srcgrad.source(srcgrad.grad(f))
    namespace = {}
    exec(compile(text, "<printed>", "exec"), namespace)
    assert namespace[f"{f.__name__}_grad"](x) == pytest.approx(want, rel=1e-12)


def method_of_a_sum(x):
    u = P(x, x * 2.0)
    w = u + u  # P(2x, 4x^2)
    return w.norm()  # 4x^2 + 4x^2


def method_and_property(x):
    u = P(x, x * 2.0)
    return u.norm() + u.s  # x^2 + 2x + 3x


def callable_object(x):
    m = Lin(2.0)
    return m(x) * x


def operators_not_linear_per_field(x):
    u = P(x, x)
    return (u + u).b + (u * 3.0).b * x + (-u).b  # x^2 + (x + 3) x + x^2


def reflected_operator(x):
    u = P(x, 3.0)
    return (2.0 * u).a * (u * x).a  # 2x * x^2


def chained_products(x):
    u = P(x, 1.0)
    w = u + u + u  # P(3x, 1)
    return w.norm2() * x  # (9x^2 + 1) x


def array_named_method_through_a_method(x):
    return P(x, 2.0 * x).norm2()  # 5x^2


def classmethod_constructor(x):
    u = P.polar(x, 0.3)
    return u.norm()  # x^2 cos^2 + x sin


def integrator(x):
    s = State(x, 0.0)
    for _ in range(3):
        s = s + 0.1 * rhs(s)
    return s.energy()


def namedtuple_operator_and_property(x):
    v = Vec(x, 2.0) + Vec(1.0, x)  # Vec(x + 1, 2x)
    return v.total  # 2x^2 + 2x


def augmented_operator(x):
    u = P(x, 1.0)
    u += P(x, x)  # P(2x, x)
    return u.norm()  # 4x^2 + x


def helper_taking_the_object(x):
    return _norm_of(P(x, 3.0))


def _norm_of(p):
    return p.norm() * p.s


@pytest.mark.parametrize("f, want, want2", [
    (method_of_a_sum, lambda x: 16 * x, lambda x: 16.0),
    (method_and_property, lambda x: 2 * x + 5, lambda x: 2.0),
    (callable_object, lambda x: 4 * x, lambda x: 4.0),
    (operators_not_linear_per_field, lambda x: 6 * x + 3, lambda x: 6.0),
    (reflected_operator, lambda x: 6 * x * x, lambda x: 12 * x),
    (chained_products, lambda x: 27 * x * x + 1, lambda x: 54 * x),
    (array_named_method_through_a_method, lambda x: 10 * x, lambda x: 10.0),
    (classmethod_constructor, lambda x: 2 * x * math.cos(0.3) ** 2 + math.sin(0.3), lambda x: 2 * math.cos(0.3) ** 2),
    (namedtuple_operator_and_property, lambda x: 4 * x + 2, lambda x: 4.0),
    (augmented_operator, lambda x: 8 * x + 1, lambda x: 8.0),
    (helper_taking_the_object, lambda x: 2 * x * (x + 3) + x * x + 3, lambda x: 6 * x + 6),
])
def test_objects_made_inside_are_followed_through_their_class(f, want, want2):
    x = 0.7
    _check(f, x, want(x), want2(x))


def test_an_integrator_stepping_a_state_made_inside():
    x = 0.7
    # three steps of s <- (I + 0.1 A) s with A = [[0, 1], [-4, 0]], from (x, 0): linear in x
    step = np.array([[1.0, 0.1], [-0.4, 1.0]])
    q, p = np.linalg.matrix_power(step, 3) @ np.array([1.0, 0.0])
    want = (q * q + p * p) * x  # energy = 0.5 (q^2 + p^2) x^2
    _check(integrator, x, want, q * q + p * p)


def test_a_method_of_an_argument_bound_to_its_class_follows_its_operators():
    def f(p):
        return p.norm() + (p + p).b

    g = srcgrad.grad(f)(P(0.7, 2.0))
    assert type(g) is P
    assert (g.a, g.b) == (pytest.approx(1.4, rel=1e-14), pytest.approx(1.0 + 2 * 2.0, rel=1e-14))
    _, out_dot = srcgrad.jvp(f, (P(0.7, 2.0),), (P(1.0, 1.0),))
    assert out_dot == pytest.approx(1.4 + 5.0, rel=1e-14)


def test_the_argument_is_left_as_it_was():
    p = P(0.7, 2.0)

    def f(q):
        return q.norm() + (q + q).b

    srcgrad.grad(f)(p)
    assert (p.a, p.b) == (0.7, 2.0)


def _refused(f, args, match):
    with pytest.raises(srcgrad.NotDifferentiableError, match=match) as info:
        srcgrad.grad(f)(*args)
    assert info.value.filename == __file__
    return info.value


def test_an_operator_on_an_argument_whose_result_is_read_as_an_object_is_followed():
    """`(p + p).b`: `p` is bound to its class where the call passes a record, and its
    `__add__` followed. Before, the rules of numbers ran on the record, and the gradient
    was P(0, 1) where it is P(0, 2b)."""
    def f(p):
        return (p + p).b

    g = srcgrad.grad(f)(P(0.7, 2.0))
    assert type(g) is P and (g.a, g.b) == (0.0, pytest.approx(4.0, rel=1e-14))
    assert srcgrad.jvp(f, (P(0.7, 2.0),), (P(1.0, 1.0),))[1] == pytest.approx(4.0, rel=1e-14)

    def scaled(x, p):  # a number beside a local object is its number
        u = P(x, 1.0)
        return (u * x).a + (p * 2.0).b

    gx, gp = srcgrad.grad(scaled, wrt=(0, 1))(0.7, P(0.5, 2.0))
    assert gx == pytest.approx(2 * 0.7, rel=1e-14)
    assert (gp.a, gp.b) == (0.0, pytest.approx(1.0, rel=1e-14))


def _b_of(r):
    return r.b


def test_an_operator_on_an_argument_whose_class_is_not_bound_is_refused():
    def f(p):
        return _b_of(p + p)

    error = _refused(f, (P(0.7, 2.0),), r"`f` applies an operator to a P, whose class defines `__add__`")
    assert error.lineno == f.__code__.co_firstlineno + 1

    def entries(ps):
        return (ps[0] + ps[1]).b

    _refused(entries, ([P(0.7, 2.0), P(1.0, 3.0)],), r"applies an operator to a P")
    with pytest.raises(srcgrad.NotDifferentiableError, match=r"applies an operator to a P"):
        srcgrad.jvp(f, (P(0.7, 2.0),), (P(1.0, 0.0),))


def test_operators_on_arrays_in_containers_are_not_refused():
    def f(ws, x):
        return np.sum(ws[0] * x + ws[1])

    g = srcgrad.grad(f, wrt=1)([np.ones(2), np.ones(2)], np.array([1.0, 2.0]))
    np.testing.assert_array_equal(g, [1.0, 1.0])


def test_an_operator_that_may_return_not_implemented_is_refused():
    def f(x):
        g = Guarded(x)
        return (g + g).a

    _refused(f, (0.7,), r"`g \+ g`, where `g` holds a Guarded whose `__add__` may return NotImplemented")


def test_an_in_place_operator_is_refused():
    def f(x):
        u = InPlace(x)
        u += InPlace(1.0)
        return u.a

    _refused(f, (0.7,), r"holds a InPlace whose class defines `__iadd__`, changing the object in place")


def test_a_name_bound_to_objects_of_two_classes_is_not_followed():
    def f(x):
        u = P(x, 1.0)
        if x > 0:
            u = Vec(x, 1.0)
        return u.norm()

    _refused(f, (0.7,), r"`\.norm\(\)`")


def test_an_object_of_a_plain_class_made_from_differentiated_values_stays_refused():
    def f(x):
        m = Lin(x)
        return m(2.0)

    _refused(f, (0.7,), r"does not follow a differentiated value into an object made in the differentiated function")


def test_a_callable_object_made_from_constants_is_followed():
    """tests/science_programs.py's `callable_object` (refused before: a call of a local):
    a plain class's object made from a value not differentiated, its `__call__` reading a
    property and a staticmethod."""
    import science_programs

    x = np.array([0.1, 0.2, 0.3])
    f = science_programs.callable_object
    g = srcgrad.grad(f)(x, 1.5)
    want = np.array([(f(x + e * 1e-6, 1.5) - f(x - e * 1e-6, 1.5)) / 2e-6 for e in np.eye(3)])
    np.testing.assert_allclose(g, want, rtol=1e-7)
    ratio = 1.5 / 1.09
    z = x * ratio + 0.3
    soft = np.log1p(np.exp(z))
    np.testing.assert_allclose(g, 2 * soft * ratio / (1 + np.exp(-z)), rtol=1e-12)
    _, out_dot = srcgrad.jvp(f, (x, 1.5), (np.ones(3), None))
    assert out_dot == pytest.approx(np.sum(g), rel=1e-12)


def list_of_objects(x):
    ps = [State(x, 1.0), State(0.5, x)]
    e = 0.0
    for p in ps:
        e = e + p.energy()
    return e + ps[0].energy()  # 0.5 (x^2 + 1) + 0.5 (x^2 + 0.25) + 0.5 (x^2 + 1)


def test_a_list_of_objects_of_one_class_made_inside_and_read_by_entry():
    _check(list_of_objects, 0.7, 3 * 0.7, 3.0)


def test_a_list_of_objects_changed_after_is_not_followed():
    def f(x):
        ps = [State(x, 1.0)]
        ps.append(State(0.5, x))
        e = 0.0
        for p in ps:
            e = e + p.energy()
        return e

    _refused(f, (0.7,), r"`\.energy\(\)`")


def test_an_argument_rebound_to_objects_of_its_class_keeps_its_methods():
    def f(s):
        for _ in range(3):
            s = s + 0.1 * rhs(s)
        return s.energy()

    step = np.array([[1.0, 0.1], [-0.4, 1.0]])
    m = np.linalg.matrix_power(step, 3)
    s0 = State(0.7, 0.2)
    q, p = m @ np.array([s0.q, s0.p])
    want = m.T @ np.array([q, p])  # d/ds0 of 0.5 |M s0|^2
    g = srcgrad.grad(f)(s0)
    assert type(g) is State
    np.testing.assert_allclose([g.q, g.p], want, rtol=1e-12)
    _, out_dot = srcgrad.jvp(f, (s0,), (State(1.0, 0.0),))
    assert out_dot == pytest.approx(want[0], rel=1e-12)


def test_an_array_named_method_of_an_object_whose_class_is_not_known_is_refused():
    """`P.norm2` calls `self.dot(self)`, its class's: reached with an entry of a list
    argument, whose class srcgrad does not know, it would be read as `np.dot`."""
    def f(ps):
        return _norm2_of(ps[0])

    with pytest.raises(srcgrad.NotDifferentiableError, match=r"`norm2` calls `self\.dot\(\)`, which its class P defines"):
        srcgrad.jvp(f, ([P(0.7, 2.0)],), ([P(1.0, 0.0)],))


def _norm2_of(p):
    return P.norm2(p)


def _sum_b(u, v):
    return (u + v).b


def test_a_function_of_yours_applying_operators_to_objects_handed_to_it():
    """Spliced into the caller, `(u + v).b` ran the rules of numbers on the records (the
    gradient 1.0 where it is 3.0); now the call stays, and the function's derivative
    knows its parameters' class. Entries of an argument, whose class is not known at
    build time, are refused when the derivative runs."""
    def made_inside(x):
        ps = [P(x, x), P(1.0, 3.0)]
        return _sum_b(ps[0], ps[1])  # P(x + 1, 3x).b

    _check(made_inside, 0.7, 3.0, 0.0)

    def entries(ps):
        return _sum_b(ps[0], ps[1])

    _refused(entries, ([P(0.7, 2.0), P(1.0, 3.0)],), r"`entries` applies an operator to a P")


def _doubled_b(u):
    return (u + u).b


def _through(u):
    return _doubled_b(u)


def _first_doubled(ps):
    return _doubled_b(ps[0])


def _sum_of_fields(b):
    return (b.v + b.w).b


@dataclass
class Pair:
    v: P
    w: P


def test_operators_two_calls_below_on_objects_of_an_unknown_class_are_refused():
    """An operator applied two calls below, or inside a function handed a container of
    objects: the rules of numbers ran on the objects (gradient 1.0 for 2x, P(0, 1) for
    P(0, 2b)); refused now, when the derivative is built or when it runs."""
    def entry_two_below(ps):
        return _through(ps[0])

    _refused(entry_two_below, ([P(0.7, 2.0)],), r"applies an operator to a P")

    def list_two_below(ps):
        return _first_doubled(ps)

    _refused(list_two_below, ([P(0.7, 2.0)],), r"applies an operator to a P")

    def made_list(x):
        ps = [P(x, x), P(1.0, 2.0)]
        return _first_doubled(ps)

    _refused(made_list, (0.7,), r"hands `_first_doubled` a container holding P objects")

    def made_display(x):
        p = P(x, x)
        return _first_doubled([p])

    _refused(made_display, (0.7,), r"hands `_first_doubled` a container holding P objects")

    def made_record(x):
        return _sum_of_fields(Pair(P(x, x), P(1.0, 2.0)))

    _refused(made_record, (0.7,), r"hands `_sum_of_fields` a container holding P objects")


def test_objects_handed_themselves_two_calls_below_are_followed():
    def direct(x):
        return _through(P(x, x))

    def entry(x):
        ps = [P(x, x), P(1.0, 2.0)]
        return _through(ps[0])

    for f in (direct, entry):
        assert srcgrad.grad(f)(0.7) == pytest.approx(1.4, rel=1e-14)  # (u + u).b = x * x
