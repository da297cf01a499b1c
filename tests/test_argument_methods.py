"""Methods of an object of the user's own class passed as an argument (record_methods.py):
`problem.cost(x)` is followed through the class's code, the object held constant, its
attributes read when the derivative runs, the derivative made per class."""

import statistics

import numpy as np
import pytest

import srcgrad

T = np.array([1.0, 2.0, 3.0])
W = np.array([0.5, 1.0, 2.0])
X = np.array([0.3, -0.2, 1.0])
V = np.array([1.0, 2.0, -1.0])


class Problem:
    def __init__(self, target, w):
        self.target, self.w = target, w

    def residual(self, x):
        return (x - self.target) * self.w

    def cost(self, x):
        r = self.residual(x)
        return np.sum(r ** 2) + self.penalty(x)

    def penalty(self, x):
        return 0.1 * np.sum(x ** 2)


class Sines(Problem):
    def penalty(self, x):
        return np.sum(np.sin(x))


def objective(x, problem):
    return problem.cost(x) * 2.0


def handed_on(x, problem):
    return _total(x, problem) + problem.penalty(x)


def _total(x, pr):
    return pr.cost(x)


def analytic(x, t, w, penalty_grad):
    """The gradient of `objective`: 2 (2 (x - t) w² + penalty'(x))."""
    return 2.0 * (2.0 * (x - t) * w * w + penalty_grad)


def central(f, x, *rest, eps=1e-6):
    return np.array([(f(x + eps * e, *rest) - f(x - eps * e, *rest)) / (2 * eps) for e in np.eye(x.size)])


def test_a_method_of_an_object_argument_is_followed_through_the_class():
    p = Problem(T.copy(), W.copy())
    g = srcgrad.grad(objective)(X, p)
    expected = analytic(X, T, W, 0.2 * X)
    np.testing.assert_allclose(g, [-0.58, -8.88, -31.6], rtol=1e-12)
    np.testing.assert_allclose(g, expected, rtol=1e-12)
    np.testing.assert_allclose(g, central(objective, X, p), rtol=1e-7)
    value, g2 = srcgrad.value_and_grad(objective)(X, p)
    assert value == pytest.approx(objective(X, p), rel=1e-14)
    np.testing.assert_allclose(g2, expected, rtol=1e-12)


def test_the_derivative_reads_the_methods_as_written():
    text = srcgrad.source(_made(objective, Problem(T, W)))
    assert "(problem = a Problem)" in text and "Problem_cost(problem, x)" in text
    assert "self_target = self.target" in text  # attributes read when it runs


def _made(f, *args):
    g = srcgrad.grad(f)
    g(X, *args)
    return g


def test_inputs_are_not_changed():
    p = Problem(T.copy(), W.copy())
    x = X.copy()
    srcgrad.grad(objective)(x, p)
    np.testing.assert_array_equal(x, X)
    np.testing.assert_array_equal(p.target, T)
    np.testing.assert_array_equal(p.w, W)
    assert set(vars(p)) == {"target", "w"}


def test_a_second_call_a_changed_attribute_another_instance():
    g = srcgrad.grad(objective)
    p = Problem(T, W)
    first = g(X, p)
    np.testing.assert_allclose(g(X, p), first, rtol=1e-15)  # the specialized code
    p.w = 2.0 * W  # read when the derivative runs
    np.testing.assert_allclose(g(X, p), analytic(X, T, 2.0 * W, 0.2 * X), rtol=1e-12)
    other = Problem(T + 1.0, W)
    np.testing.assert_allclose(g(X, other), analytic(X, T + 1.0, W, 0.2 * X), rtol=1e-12)
    np.testing.assert_allclose(g(X, p), analytic(X, T, 2.0 * W, 0.2 * X), rtol=1e-12)


def test_another_class_at_a_later_call_gets_its_own_derivative():
    g = srcgrad.grad(objective)
    np.testing.assert_allclose(g(X, Problem(T, W)), analytic(X, T, W, 0.2 * X), rtol=1e-12)
    s = Sines(T, W)
    np.testing.assert_allclose(g(X, s), analytic(X, T, W, np.cos(X)), rtol=1e-12)
    np.testing.assert_allclose(g(X, s), central(objective, X, s), rtol=1e-7)
    np.testing.assert_allclose(g(X, Problem(T, W)), analytic(X, T, W, 0.2 * X), rtol=1e-12)


def test_a_method_rebound_on_the_class_after_the_first_call_is_followed_anew():
    class Local(Problem):
        pass

    g = srcgrad.grad(objective)
    p = Local(T, W)
    np.testing.assert_allclose(g(X, p), analytic(X, T, W, 0.2 * X), rtol=1e-12)

    def cubed(self, x):
        return np.sum(x ** 3)

    Local.penalty = cubed  # called by `cost`, a method the derivative follows
    np.testing.assert_allclose(g(X, p), analytic(X, T, W, 3 * X ** 2), rtol=1e-12)
    Local.cost = lambda self, x: np.sum(x ** 2)  # the method the function calls itself
    np.testing.assert_allclose(g(X, p), 2.0 * 2.0 * X, rtol=1e-12)


def test_an_attribute_of_the_instance_shadowing_a_method_is_refused_at_every_call():
    g = srcgrad.grad(objective)
    p = Problem(T, W)
    g(X, p)
    p.penalty = lambda x: 0.0  # Python would call it from `cost`, not the class's method
    with pytest.raises(srcgrad.NotDifferentiableError, match=r"`objective` calls a method of `problem`, which holds "
                       r"a Problem with an attribute `penalty` of its own, set on the instance") as info:
        g(X, p)
    assert info.value.filename.endswith("test_argument_methods.py")
    assert info.value.text.strip() == "return problem.cost(x) * 2.0"
    del p.penalty
    np.testing.assert_allclose(g(X, p), analytic(X, T, W, 0.2 * X), rtol=1e-12)
    p.scale = 3.0  # an attribute that is no method's name is no concern
    np.testing.assert_allclose(g(X, p), analytic(X, T, W, 0.2 * X), rtol=1e-12)


def test_through_a_function_it_is_handed_to():
    p = Problem(T, W)
    g = srcgrad.grad(handed_on)(X, p)
    np.testing.assert_allclose(g, 2.0 * (X - T) * W * W + 0.4 * X, rtol=1e-12)
    np.testing.assert_allclose(g, central(handed_on, X, p), rtol=1e-7)


def test_forward_mode_hessian_and_jacobian():
    p = Problem(T, W)
    out, out_dot = srcgrad.jvp(objective, (X, p), (V, None))
    assert out == pytest.approx(objective(X, p), rel=1e-14)
    assert out_dot == pytest.approx(np.dot(analytic(X, T, W, 0.2 * X), V), rel=1e-12)
    assert out_dot == pytest.approx(13.26, rel=1e-12)
    out, out_dot = srcgrad.jvp(handed_on, (X, p), (V, None))
    assert out_dot == pytest.approx(np.dot(2.0 * (X - T) * W * W + 0.4 * X, V), rel=1e-12)
    H = srcgrad.hessian(objective)(X, p)
    np.testing.assert_allclose(H, np.diag(2.0 * (2.0 * W * W + 0.2)), rtol=1e-12)
    np.testing.assert_allclose(H, np.diag([1.4, 4.4, 16.4]), rtol=1e-12)
    s = Sines(T, W)
    np.testing.assert_allclose(srcgrad.hessian(objective)(X, s), np.diag(2.0 * (2.0 * W * W - np.sin(X))), rtol=1e-12)
    J = srcgrad.jacobian(lambda x, q: q.residual(x))(X, p)
    np.testing.assert_allclose(J, np.diag(W), rtol=1e-14)


def test_grad_of_grad():
    p = Problem(T, W)
    d2 = srcgrad.grad(srcgrad.grad(lambda a, q: q.cost(a * X)))(1.5, p)
    assert d2 == pytest.approx(np.sum(2.0 * (X * W) ** 2) + 0.2 * np.sum(X ** 2), rel=1e-12)


class Quadratic:
    def __init__(self, a):
        self.a = a

    def scale(self, y):
        return self.a * y

    def __call__(self, y):
        return self.scale(y) ** 2


def called(y, f):
    return np.sum(f(y))


def test_a_callable_object_whose_call_calls_its_methods():
    q = Quadratic(2.0)
    g = srcgrad.grad(called)
    np.testing.assert_allclose(g(X, q), 2.0 * 4.0 * X, rtol=1e-14)
    q.a = 3.0
    np.testing.assert_allclose(g(X, q), 2.0 * 9.0 * X, rtol=1e-14)


class Stateful(Problem):
    def cost(self, x):
        self.last = x
        return np.sum(x ** 2)


class Held(Problem):
    def __init__(self, target, w):
        super().__init__(target, w)
        self.act = np.tanh

    def cost(self, x):
        return np.sum(self.act(x))


class Guarded(Problem):
    def __getattribute__(self, name):
        return object.__getattribute__(self, name)


class Propertied(Problem):
    @property
    def cost(self):
        return lambda x: np.sum(x)


def test_what_is_refused_says_why_at_the_line():
    cases = [
        (Stateful(T, W), r"`Stateful\.cost` sets `self\.last` \(.*test_argument_methods\.py:\d+\): srcgrad follows a "
         r"method of an object passed as an argument only where it leaves the object as it is"),
        (Held(T, W), r"Held defines no method `act`; a function or callable object held in an attribute of the "
         r"instance is not followed"),
        (Guarded(T, W), r"`Guarded` defines `__getattribute__`"),
        (Propertied(T, W), r"`Propertied\.cost` is a property"),
    ]
    for p, message in cases:
        with pytest.raises(srcgrad.NotDifferentiableError, match=message) as info:
            srcgrad.grad(objective)(X, p)
        assert info.value.filename.endswith("test_argument_methods.py"), p
        assert info.value.lineno is not None


def test_differentiating_with_respect_to_the_object_is_refused():
    with pytest.raises(TypeError, match=r"with respect to `problem`: it is a Problem, an object of a class that is "
                       r"neither a dataclass nor a namedtuple, which srcgrad holds constant"):
        srcgrad.grad(objective, wrt=1)(X, Problem(T, W))


def probability(x, dist):
    return dist.cdf(x) * 2.0


def test_an_object_of_a_library_class_is_not_followed():
    with pytest.raises(srcgrad.NotDifferentiableError, match=r"no derivative rule for the method `\.cdf\(\)` "
                       r"called at .*test_argument_methods\.py"):
        srcgrad.grad(probability)(0.3, statistics.NormalDist(0.0, 1.0))
