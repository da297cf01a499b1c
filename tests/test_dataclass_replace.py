"""`dataclasses.replace(p, pos=v)` and a namedtuple's `p._replace(pos=v)` inside a
differentiated function: a record of p's class made from p's fields with the named ones
changed (calls.site reads it as `rules.structure.replace_fields`, whose class is p's at
run time). Where p is built in the function or differentiated; reverse, forward and
second order. A class that computes its fields (`__post_init__`, `field(init=False)`) is
refused, as are `**changes` and reads of what is not a field.

Every derivative is checked against float64 central differences and the closed form.
"""

import collections
import dataclasses

import numpy as np
import pytest

import srcgrad

EPS = 1e-6
X = np.array([0.3, -0.2, 0.5])
V = np.array([1.0, 2.0, -0.5])


@dataclasses.dataclass
class Body:
    pos: np.ndarray
    vel: np.ndarray
    mass: float = 1.0


@dataclasses.dataclass(frozen=True)
class FrozenBody:
    pos: np.ndarray
    mass: float


Point = collections.namedtuple("Point", "pos vel")


@dataclasses.dataclass
class Checked:
    pos: np.ndarray
    mass: float

    def __post_init__(self):
        self.mass = abs(self.mass)


@dataclasses.dataclass
class Measured:
    pos: np.ndarray
    mass: float

    @property
    def weight(self):
        return 9.8 * self.mass


def energy(b):
    return 0.5 * b.mass * np.sum(b.vel ** 2) + np.sum(np.sin(b.pos))


def _central(f, x, direction):
    return (f(x + EPS * direction) - f(x - EPS * direction)) / (2 * EPS)


def stepped(x, v):
    b = Body(pos=x, vel=v, mass=2.0)
    moved = dataclasses.replace(b, pos=b.pos + 0.1 * b.vel)
    return energy(moved) + np.sum(moved.pos * b.pos)


def test_replace_of_a_record_built_in_the_function():
    gx, gv = srcgrad.grad(stepped, wrt=(0, 1))(X, V)
    p = X + 0.1 * V
    np.testing.assert_allclose(gx, np.cos(p) + X + p, rtol=1e-12)
    np.testing.assert_allclose(gv, 2.0 * V + 0.1 * np.cos(p) + 0.1 * X, rtol=1e-12)
    assert gx.dtype == np.float64 and gx.shape == (3,)
    for k in range(3):
        e = np.eye(3)[k]
        assert gx[k] == pytest.approx(_central(lambda x: stepped(x, V), X, e), rel=1e-7)
        assert gv[k] == pytest.approx(_central(lambda v: stepped(X, v), V, e), rel=1e-7)
    out, out_dot = srcgrad.jvp(stepped, (X, V), (np.ones(3), V))
    assert out == pytest.approx(stepped(X, V), rel=1e-14)
    assert out_dot == pytest.approx(np.sum(gx) + gv @ V, rel=1e-12)


def test_hessian_through_replace():
    H = srcgrad.hessian(stepped)(X, V)
    p = X + 0.1 * V
    assert H.shape == (3, 3) and H.dtype == np.float64
    np.testing.assert_allclose(H, np.diag(2.0 - np.sin(p)), rtol=1e-12, atol=1e-15)


def moved_by(b, d):
    return energy(dataclasses.replace(b, pos=b.pos * d))


def test_replace_of_a_differentiated_dataclass():
    b = Body(pos=X.copy(), vel=V.copy(), mass=3.0)
    g, gd = srcgrad.grad(moved_by, wrt=(0, 1))(b, 1.5)
    assert type(g) is Body and type(g.mass) is float and g.pos.shape == (3,) and g.pos.dtype == np.float64
    np.testing.assert_allclose(g.pos, 1.5 * np.cos(1.5 * X), rtol=1e-12)
    np.testing.assert_allclose(g.vel, 3.0 * V, rtol=1e-12)
    assert g.mass == pytest.approx(0.5 * np.sum(V ** 2), rel=1e-12)
    assert type(gd) is float and gd == pytest.approx(np.sum(np.cos(1.5 * X) * X), rel=1e-12)
    for k in range(3):
        e = np.eye(3)[k]
        assert g.pos[k] == pytest.approx(_central(lambda x: moved_by(Body(x, V, 3.0), 1.5), X, e), rel=1e-7)
    assert gd == pytest.approx(_central(lambda d: moved_by(b, d), 1.5, 1.0), rel=1e-7)
    np.testing.assert_array_equal(b.pos, X)  # the input is not changed
    np.testing.assert_array_equal(b.vel, V)
    assert b.mass == 3.0
    tangent = Body(pos=np.ones(3), vel=np.zeros(3), mass=1.0)
    out, out_dot = srcgrad.jvp(moved_by, (b, 1.5), (tangent, 0.0))
    assert out == pytest.approx(moved_by(b, 1.5), rel=1e-14)
    assert out_dot == pytest.approx(np.sum(g.pos) + g.mass, rel=1e-12)
    assert srcgrad.hessian(moved_by, wrt=1)(b, 1.5) == pytest.approx(-np.sum(np.sin(1.5 * X) * X ** 2), rel=1e-12)


def test_replace_of_a_frozen_dataclass_and_a_namedtuple():
    def scaled(b, s):
        c = dataclasses.replace(b, mass=b.mass * s)
        return c.mass * np.sum(c.pos ** 2)

    b = FrozenBody(pos=X, mass=2.0)
    g = srcgrad.grad(scaled)(b, 3.0)
    assert type(g) is FrozenBody
    np.testing.assert_allclose(g.pos, 2 * 6.0 * X, rtol=1e-12)
    assert g.mass == pytest.approx(3.0 * np.sum(X ** 2), rel=1e-12)
    assert srcgrad.grad(scaled, wrt=1)(b, 3.0) == pytest.approx(2.0 * np.sum(X ** 2), rel=1e-12)

    def shifted(p, d):
        q = p._replace(pos=p.pos + d * p.vel)
        return np.sum(q.pos ** 2) + np.sum(q.vel)

    p = Point(X, V)
    g, gd = srcgrad.grad(shifted, wrt=(0, 1))(p, 0.5)
    assert type(g) is Point
    np.testing.assert_allclose(g.pos, 2 * (X + 0.5 * V), rtol=1e-12)
    np.testing.assert_allclose(g.vel, 2 * (X + 0.5 * V) * 0.5 + 1.0, rtol=1e-12)
    assert gd == pytest.approx(_central(lambda d: shifted(p, d), 0.5, 1.0), rel=1e-7)
    _, out_dot = srcgrad.jvp(shifted, (p, 0.5), (Point(np.zeros(3), np.zeros(3)), 1.0))
    assert out_dot == pytest.approx(gd, rel=1e-12)

    def built(x):
        q = Point(x, 2.0 * x)._replace(vel=x ** 2)
        return np.sum(q.pos * q.vel)

    np.testing.assert_allclose(srcgrad.grad(built)(X), 3 * X ** 2, rtol=1e-12)


def test_a_class_that_computes_its_fields_is_refused_where_it_is_replaced():
    def moved(b, d):
        c = dataclasses.replace(b, pos=b.pos * d)
        return np.sum(c.pos) * c.mass

    with pytest.raises(TypeError, match=r"Checked does not: it defines `__post_init__`"):
        srcgrad.grad(moved, wrt=1)(Checked(X, 2.0), 1.5)
    with pytest.raises(TypeError, match=r"Checked does not: it defines `__post_init__`"):
        srcgrad.jvp(moved, (Checked(X, 2.0), 1.5), (None, 1.0))


def test_what_is_not_a_field_of_a_replaced_record_is_refused():
    def weighed(x):
        m = Measured(x, 2.0)
        n = dataclasses.replace(m, pos=x * 2)
        return np.sum(n.pos) * n.weight

    with pytest.raises(srcgrad.NotDifferentiableError, match=r"`\.weight` is not one \(a property") as info:
        srcgrad.grad(weighed)
    assert info.value.lineno == weighed.__code__.co_firstlineno + 3

    def weighed_argument(m, d):
        n = dataclasses.replace(m, pos=m.pos * d)
        return np.sum(n.pos) * n.weight

    with pytest.raises(TypeError, match=r"`\.weight` is not one \(a property"):
        srcgrad.grad(weighed_argument)(Measured(X, 2.0), 1.5)

    def unknown(b, d):
        return np.sum(dataclasses.replace(b, position=b.pos * d).pos)

    with pytest.raises(TypeError, match=r"position"):
        srcgrad.grad(unknown, wrt=1)(Body(X, V), 1.5)


def test_replace_with_unpacked_changes_written_out_and_refused_otherwise():
    def moved(b, d):
        changes = {"pos": b.pos * d}
        return np.sum(dataclasses.replace(b, **changes).pos)

    assert srcgrad.grad(moved, wrt=1)(Body(X, V), 1.5) == pytest.approx(np.sum(X), rel=1e-12)

    def given(b, changes):
        return np.sum(dataclasses.replace(b, **changes).pos)

    with pytest.raises(srcgrad.SrcGradError, match=r"`\*\*changes` unpacks a dict whose keys srcgrad cannot see"):
        srcgrad.grad(given)(Body(X, V), {"pos": X})
