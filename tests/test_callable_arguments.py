"""A `functools.partial`, a bound method or a callable object passed as an argument to a
differentiated function (function_arguments.py, compiler/passed_callables.py): the
derivative is made per function and shape, and reads the values the callable holds (a
partial's arguments, the instance) from the argument itself when it runs, so a new
partial or instance, or a changed attribute, gives its own numbers from the same
derivative."""

import functools

import numpy as np
import pytest

import srcgrad
from conftest import numerical_grad


def rhs(y, k=1.0):
    return -k * y + np.sin(y)


def affine(A, y, b=0.0):
    return np.tanh(A @ y) + b


def rk4_step(f, y, h):
    k1 = f(y)
    k2 = f(y + 0.5 * h * k1)
    k3 = f(y + 0.5 * h * k2)
    k4 = f(y + h * k3)
    return y + h / 6.0 * (k1 + 2 * k2 + 2 * k3 + k4)


def integrate(y0, f, h=0.1):
    y = y0
    for _ in range(5):
        y = rk4_step(f, y, h)
    return np.sum(y ** 2)


def squared(y, f):
    return np.sum(f(y) ** 2)


def scalar(y, f):
    return f(y)


def flow(y0, f):
    return rk4_step(f, y0, 0.1)


class Oscillator:
    def __init__(self, omega, W):
        self.omega, self.W = omega, W

    def rhs(self, y):
        return -self.omega ** 2 * y + np.tanh(self.W @ y)

    def drhs(self, y):  # the Jacobian of rhs, for the exact answers
        t = np.tanh(self.W @ y)
        return -self.omega ** 2 * np.eye(len(y)) + (1 - t * t)[:, None] * self.W


class Field(Oscillator):
    def __call__(self, y):
        return -self.omega ** 2 * y + np.tanh(self.W @ y)


class Quadratic:
    def __init__(self, Q, c):
        self.Q, self.c = Q, c

    def __call__(self, y):
        return 0.5 * (y @ self.Q @ y) + self.c @ y


Y = np.array([0.7, -1.2, 0.4])
RNG = np.random.default_rng(11)
A = RNG.normal(size=(3, 3))
W = 0.5 * RNG.normal(size=(3, 3))
Q, C = RNG.normal(size=(3, 3)), RNG.normal(size=3)


def _rk4_gradient(y0, f, jac, h=0.1):
    """integrate's gradient by the chain rule: each stage's Jacobian from `jac`."""
    y, J = y0.copy(), np.eye(len(y0))
    for _ in range(5):
        k1 = f(y)
        J1 = jac(y)
        y2 = y + 0.5 * h * k1
        k2 = f(y2)
        J2 = jac(y2) @ (np.eye(len(y)) + 0.5 * h * J1)
        y3 = y + 0.5 * h * k2
        k3 = f(y3)
        J3 = jac(y3) @ (np.eye(len(y)) + 0.5 * h * J2)
        y4 = y + h * k3
        k4 = f(y4)
        J4 = jac(y4) @ (np.eye(len(y)) + h * J3)
        J = (np.eye(len(y)) + h / 6.0 * (J1 + 2 * J2 + 2 * J3 + J4)) @ J
        y = y + h / 6.0 * (k1 + 2 * k2 + 2 * k3 + k4)
    return J.T @ (2 * y)


def _rhs_jac(k):
    return lambda y: np.diag(-k + np.cos(y))


def _callables():
    """(a callable, its Jacobian) of each kind: partials by keyword and by position, a
    bound method, a callable object, a partial of a bound method."""
    osc, field = Oscillator(1.3, W), Field(0.8, -W)
    return [
        (functools.partial(rhs, k=2.0), _rhs_jac(2.0)),
        (functools.partial(affine, A), lambda y: (1 - np.tanh(A @ y) ** 2)[:, None] * A),
        (osc.rhs, osc.drhs),
        (field, field.drhs),
        (functools.partial(osc.rhs), osc.drhs),
    ]


@pytest.mark.parametrize("index", range(5))
def test_grad_through_a_callable_handed_on_to_a_callee(index):
    f, jac = _callables()[index]
    y0 = Y.copy()
    g = srcgrad.grad(integrate)(y0, f)
    np.testing.assert_array_equal(y0, Y)
    assert g.shape == Y.shape and g.dtype == np.float64
    np.testing.assert_allclose(g, _rk4_gradient(Y, f, jac), rtol=1e-11, atol=1e-13)
    np.testing.assert_allclose(g, numerical_grad(lambda y: integrate(y, f), (Y,), 0), rtol=1e-6, atol=1e-8)


def test_grad_of_a_direct_call_of_each_kind_against_the_exact_answer():
    p = functools.partial(rhs, k=2.0)
    u = -2.0 * Y + np.sin(Y)
    np.testing.assert_allclose(srcgrad.grad(squared)(Y, p), 2 * u * (-2.0 + np.cos(Y)), rtol=1e-13)
    t = np.tanh(A @ Y)
    np.testing.assert_allclose(srcgrad.grad(squared)(Y, functools.partial(affine, A, b=0.5)),
                               A.T @ (2 * (t + 0.5) * (1 - t * t)), rtol=1e-13)
    osc = Oscillator(1.3, W)
    np.testing.assert_allclose(srcgrad.grad(squared)(Y, osc.rhs), osc.drhs(Y).T @ (2 * osc.rhs(Y)), rtol=1e-13)
    q = Quadratic(Q, C)
    g = srcgrad.grad(scalar)(Y, q)
    np.testing.assert_allclose(g, 0.5 * (Q + Q.T) @ Y + C, rtol=1e-13)
    np.testing.assert_allclose(g, numerical_grad(lambda y: q(y), (Y,), 0), rtol=1e-7)


def test_a_new_partial_with_new_values_gives_new_numbers_from_the_same_derivative():
    """Keyed on the function and the partial's shape, not the partial (fresh per call,
    its id reused) nor its values: a derivative that baked in the first partial's `k`, or
    kept one per partial object, fails here."""
    df = srcgrad.grad(squared)
    for k in (2.0, 3.0, -0.5, 2.0):
        p = functools.partial(rhs, k=k)  # the last one freed: its id is likely taken again
        u = -k * Y + np.sin(Y)
        np.testing.assert_allclose(df(Y, p), 2 * u * (-k + np.cos(Y)), rtol=1e-13)
        del p
    p = functools.partial(rhs, k=2.0)
    df(Y, p)
    p.keywords["k"] = 4.0  # the same object, holding another value
    np.testing.assert_allclose(df(Y, p), 2 * (-4.0 * Y + np.sin(Y)) * (-4.0 + np.cos(Y)), rtol=1e-13)
    made = df.__srcgrad_for_call__.__self__
    assert len(made.made) == 1  # one derivative served them all
    for B in (A, W, 2.0 * A):  # by position: an array
        t = np.tanh(B @ Y)
        np.testing.assert_allclose(df(Y, functools.partial(affine, B)), B.T @ (2 * t * (1 - t * t)), rtol=1e-13)
    assert len(made.made) == 2


def test_another_instance_or_a_changed_attribute_gives_new_numbers():
    df = srcgrad.grad(integrate)
    osc = Oscillator(1.3, W)
    first = df(Y, osc.rhs)
    np.testing.assert_allclose(first, _rk4_gradient(Y, osc.rhs, osc.drhs), rtol=1e-11)
    osc.omega = 0.4  # the same instance, changed
    np.testing.assert_allclose(df(Y, osc.rhs), _rk4_gradient(Y, osc.rhs, osc.drhs), rtol=1e-11)
    other = Oscillator(2.0, -W)  # another instance of the class
    np.testing.assert_allclose(df(Y, other.rhs), _rk4_gradient(Y, other.rhs, other.drhs), rtol=1e-11)
    assert not np.allclose(df(Y, other.rhs), first)
    ds = srcgrad.grad(scalar)
    q = Quadratic(Q, C)
    np.testing.assert_allclose(ds(Y, q), 0.5 * (Q + Q.T) @ Y + C, rtol=1e-13)
    q.c = -C
    np.testing.assert_allclose(ds(Y, q), 0.5 * (Q + Q.T) @ Y - C, rtol=1e-13)
    np.testing.assert_allclose(ds(Y, Quadratic(np.eye(3), C)), Y + C, rtol=1e-13)
    assert len(df.__srcgrad_for_call__.__self__.made) == 1 and len(ds.__srcgrad_for_call__.__self__.made) == 1


def test_a_class_whose_call_is_rebound_gets_a_derivative_of_the_new_one():
    class Scaled:
        def __call__(self, y):
            return 2.0 * y

    s = srcgrad.grad(squared)
    obj = Scaled()
    np.testing.assert_allclose(s(Y, obj), 8.0 * Y, rtol=1e-14)
    Scaled.__call__ = lambda self, y: 3.0 * y
    np.testing.assert_allclose(s(Y, obj), 18.0 * Y, rtol=1e-14)


def test_every_transform():
    p = functools.partial(rhs, k=2.0)
    osc = Oscillator(1.3, W)
    for f, jac in ((p, _rhs_jac(2.0)), (osc.rhs, osc.drhs), (functools.partial(affine, A), None)):
        exact = _rk4_gradient(Y, f, jac) if jac is not None else numerical_grad(lambda y: integrate(y, f), (Y,), 0)
        tol = 1e-11 if jac is not None else 1e-6
        value, g = srcgrad.value_and_grad(integrate)(Y, f)
        assert value == pytest.approx(integrate(Y, f), rel=1e-14)
        np.testing.assert_allclose(g, exact, rtol=tol, atol=1e-9)
        out, pullback = srcgrad.vjp(integrate, Y, f, 0.1)
        gy, gf, gh = pullback(1.0)
        np.testing.assert_allclose(gy, exact, rtol=tol, atol=1e-9)
        assert gf is None
        assert gh == pytest.approx(numerical_grad(lambda h: integrate(Y, f, h), (0.1,), 0), rel=1e-5)
        t = np.array([1.0, -2.0, 0.5])
        out, out_dot = srcgrad.jvp(integrate, (Y, f), (t, None))
        assert out == pytest.approx(integrate(Y, f), rel=1e-14)
        assert out_dot == pytest.approx(float(exact @ t), rel=1e-6)
        forward = srcgrad.jacobian(flow, mode="forward")(Y, f)
        reverse = srcgrad.jacobian(flow, mode="reverse")(Y, f)
        assert forward.shape == (3, 3)
        np.testing.assert_allclose(forward, reverse, rtol=1e-12, atol=1e-14)
        by_differences = np.stack([numerical_grad(lambda y: flow(y, f)[i], (Y,), 0) for i in range(3)])
        np.testing.assert_allclose(forward, by_differences, rtol=1e-6, atol=1e-8)
        H = srcgrad.hessian(integrate)(Y, f)
        gradient = srcgrad.grad(integrate)
        np.testing.assert_allclose(H, H.T, rtol=1e-8, atol=1e-10)
        for i in range(3):
            np.testing.assert_allclose(H[i], numerical_grad(lambda y: gradient(y, f)[i], (Y,), 0), rtol=1e-5, atol=1e-7)


def test_hessian_and_grad_of_grad_against_the_exact_answer():
    q = Quadratic(Q, C)
    np.testing.assert_allclose(srcgrad.hessian(scalar)(Y, q), 0.5 * (Q + Q.T), rtol=1e-13, atol=1e-14)
    q2 = Quadratic(np.diag([1.0, 2.0, 3.0]), C)
    np.testing.assert_allclose(srcgrad.hessian(scalar)(Y, q2), np.diag([1.0, 2.0, 3.0]), rtol=1e-13, atol=1e-14)

    def wave(x, f):
        return f(x) * x

    for k in (2.0, 0.5):
        p = functools.partial(rhs, k=k)  # wave = -k x^2 + x sin x
        second = srcgrad.grad(srcgrad.grad(wave))(0.7, p)
        assert second == pytest.approx(-2 * k + 2 * np.cos(0.7) - 0.7 * np.sin(0.7), rel=1e-13)


def test_float32_and_a_callable_as_a_default():
    y32 = Y.astype(np.float32)
    g = srcgrad.grad(squared)(y32, functools.partial(rhs, k=np.float32(2.0)))
    assert g.dtype == np.float32 and g.shape == (3,)
    u = -2.0 * Y + np.sin(Y)
    np.testing.assert_allclose(g, 2 * u * (-2.0 + np.cos(Y)), rtol=1e-5)
    osc = Oscillator(1.3, W)

    def with_default(y, f=osc.rhs):
        return np.sum(f(y) ** 2)

    df = srcgrad.grad(with_default)
    np.testing.assert_allclose(df(Y), osc.drhs(Y).T @ (2 * osc.rhs(Y)), rtol=1e-13)
    assert "(f = a Oscillator's rhs)" in srcgrad.source(df)


def test_the_generated_code_reads_the_values_from_the_argument():
    df = srcgrad.grad(squared)
    df(Y, functools.partial(rhs, k=2.0))
    text = srcgrad.source(df)
    assert "Gradient of squared (f = functools.partial(rhs, k=...))" in text
    assert "f.keywords" in text and "2.0" not in text
    df(Y, functools.partial(affine, A))
    assert "functools.partial(affine, ...)" in srcgrad.source(df) and "f.args" in srcgrad.source(df)
    dq = srcgrad.grad(scalar)
    dq(Y, Quadratic(Q, C))
    text = srcgrad.source(dq)
    assert "(f = a Quadratic)" in text and "f.Q" in text and "f.c" in text and "Quadratic_call =" not in text
    dm = srcgrad.grad(squared)
    dm(Y, Oscillator(1.3, W).rhs)
    text = srcgrad.source(dm)
    assert "(f = a Oscillator's rhs)" in text and "f_self = f.__self__" in text


def calls_a_method_through_self(y, f):
    return np.sum(f(y))


class _Helped:
    def __init__(self, a):
        self.a = a

    def helper(self, y):
        return self.a * y

    def __call__(self, y):
        return self.helper(y) ** 2


class _Static:
    @staticmethod
    def __call__(y):
        return 2.0 * y


def test_an_object_whose_call_calls_its_methods_or_is_a_staticmethod_is_followed():
    # followed through its class's methods (record_methods.py), its attributes read at each call
    h = _Helped(2.0)
    g = srcgrad.grad(calls_a_method_through_self)
    np.testing.assert_allclose(g(Y, h), 2 * 2.0 ** 2 * Y, rtol=1e-14)
    h.a = 3.0
    np.testing.assert_allclose(g(Y, h), 2 * 3.0 ** 2 * Y, rtol=1e-14)
    np.testing.assert_allclose(g(Y, _Static()), np.full_like(Y, 2.0), rtol=1e-14)


class _HelpedTwice(_Helped):
    def helper(self, y):
        return self.a * np.sin(y)


def test_a_bound_method_calling_its_instances_methods_is_followed_through_its_class():
    # the method's `self.helper(y)` is followed as the instance's class defines it, its
    # attributes read at each call; a subclass overriding `helper` gets its own derivative
    h = _Helped(2.0)
    g = srcgrad.grad(calls_a_method_through_self)
    np.testing.assert_allclose(g(Y, h.__call__), 2 * 2.0 ** 2 * Y, rtol=1e-14)
    h.a = 3.0
    np.testing.assert_allclose(g(Y, h.__call__), 2 * 3.0 ** 2 * Y, rtol=1e-14)
    np.testing.assert_allclose(g(Y, _HelpedTwice(2.0).__call__), 2 * 4.0 * np.sin(Y) * np.cos(Y), rtol=1e-14)
    np.testing.assert_allclose(g(Y, functools.partial(_Helped(0.5).__call__)), 2 * 0.25 * Y, rtol=1e-14)
    np.testing.assert_allclose(g(Y, h.__call__), 2 * 3.0 ** 2 * Y, rtol=1e-14)
    _, tangent = srcgrad.jvp(calls_a_method_through_self, (Y, _HelpedTwice(2.0).__call__), (np.ones_like(Y), None))
    np.testing.assert_allclose(tangent, np.sum(2 * 4.0 * np.sin(Y) * np.cos(Y)), rtol=1e-13)


def test_what_is_still_refused_says_why_at_the_line():
    cases = [
        (functools.partial(np.power, x2=2.0), "`calls_a_method_through_self` calls its parameter `f`, which holds "
         "a functools.partial of `np.power`: srcgrad follows a partial passed as an argument only of a Python "
         "function, a bound method of one or a callable object"),
        (functools.partial(rhs, q=1.0), "which holds a functools.partial whose keywords `rhs` does not take"),
    ]
    for f, message in cases:
        with pytest.raises(srcgrad.NotDifferentiableError) as info:
            srcgrad.grad(calls_a_method_through_self)(Y, f)
        assert message in str(info.value)
        assert info.value.filename.endswith("test_callable_arguments.py")
    with pytest.raises(TypeError, match=r"with respect to `f`: it is a function \(partial\)"):
        srcgrad.grad(squared, wrt=1)(Y, functools.partial(rhs, k=2.0))


def calls_with_starred_keywords(y, f, options):
    return np.sum(f(y, **options))


def test_a_partial_with_keywords_called_with_starred_keywords_is_refused():
    with pytest.raises(srcgrad.NotDifferentiableError, match=r"with `\*\*` keywords: srcgrad cannot tell which"):
        srcgrad.grad(calls_with_starred_keywords)(Y, functools.partial(rhs, k=2.0), {})


def test_a_keyword_the_call_passes_replaces_the_partials():
    def override(y, f):
        return np.sum(f(y, k=5.0))

    np.testing.assert_allclose(srcgrad.grad(override)(Y, functools.partial(rhs, k=2.0)), -5.0 + np.cos(Y), rtol=1e-14)


def test_calls_that_stay_calls_pass_the_callable_on(calls_kept):
    osc = Oscillator(1.3, W)
    for f, jac in ((functools.partial(rhs, k=2.0), _rhs_jac(2.0)), (osc.rhs, osc.drhs), (Field(0.8, -W), None)):
        jac = jac or f.drhs
        np.testing.assert_allclose(srcgrad.grad(integrate)(Y, f), _rk4_gradient(Y, f, jac), rtol=1e-11)
        _, out_dot = srcgrad.jvp(integrate, (Y, f), (np.ones(3), None))
        assert out_dot == pytest.approx(float(np.sum(_rk4_gradient(Y, f, jac))), rel=1e-11)
        H = srcgrad.hessian(integrate)(Y, f)
        gradient = srcgrad.grad(integrate)
        np.testing.assert_allclose(H[0], numerical_grad(lambda y: gradient(y, f)[0], (Y,), 0), rtol=1e-5, atol=1e-7)
    df = srcgrad.grad(integrate)
    df(Y, osc.rhs)
    text = srcgrad.source(df)
    assert "Pullback of rk4_step (f = a Oscillator's rhs)" in text
    osc.omega = 0.2
    np.testing.assert_allclose(df(Y, osc.rhs), _rk4_gradient(Y, osc.rhs, osc.drhs), rtol=1e-11)
