"""Functions taking `*args` and `**kwargs`: differentiated per call's arguments
(compiler/varargs.py), decorator wrappers (functools.wraps) differentiated as written,
directly and called from another differentiated function, in every transform."""

import functools
import logging
import time

import numpy as np
import pytest

import srcgrad
from conftest import numerical_grad

LOG = logging.getLogger("srcgrad.tests.varargs")
TIMINGS = []


def timed(f):
    @functools.wraps(f)
    def wrapper(*args, **kwargs):
        t0 = time.perf_counter()
        out = f(*args, **kwargs)
        elapsed = time.perf_counter() - t0  # a local timer: computed, not differentiated
        return out
    return wrapper


def recorded(f):
    @functools.wraps(f)
    def wrapper(*args, **kwargs):
        out = f(*args, **kwargs)
        TIMINGS.append(len(args))  # changes a global list
        return out
    return wrapper


def noisy(f):
    @functools.wraps(f)
    def wrapper(*args, **kwargs):
        started = time.perf_counter()
        calls = 0
        calls += 1
        assert args[0].ndim == 2, "x must be a matrix"
        print("calling", f.__name__, "with", len(args), "arguments")
        LOG.info("calling %s", f.__name__)
        out = f(*args, **kwargs)
        elapsed = time.perf_counter() - started
        return out
    return wrapper


@timed
def loss(x, w):
    return np.sum((x @ w) ** 2)


@noisy
def scaled_loss(x, w, scale=1.0):
    return scale * np.sum(np.tanh(x @ w) ** 2)


def uses_loss(x, w):
    return loss(x, w) + np.sum(w ** 2)


def uses_scaled(x, w):
    return scaled_loss(x, w, scale=3.0) * 2.0


def total(*xs):
    return sum(x * x * x for x in xs)


def weighted(a, *xs):
    s = a * a
    for i in range(len(xs)):
        s = s + (i + 1.0) * xs[i] ** 2
    return s


def options(x, **opts):
    return np.sum(x * opts.get("scale", 2.0) + opts.get("shift", 0.0) * x * x)


def helper(x, scale=1.0, shift=0.0):
    return np.sum(np.sin(x) * scale + shift)


def forwards(x, **kwargs):
    return helper(x, **kwargs)


def calls_total(x, y):
    return total(x, y) + total(x, 2.0, y)


def calls_forwards(x, w):
    return forwards(x, scale=w)


X = np.array([[0.3, -1.2, 0.5], [1.1, 0.4, -0.7]])
W = np.array([0.2, -0.5, 0.9])


def _fd(f, args, index):
    return numerical_grad(f, args, index)


@pytest.fixture
def inputs():
    x, w = X.copy(), W.copy()
    yield x, w
    np.testing.assert_array_equal(x, X)  # not changed in place
    np.testing.assert_array_equal(w, W)


def test_decorated_function_gradient_matches_analytic_and_finite_differences(inputs):
    x, w = inputs
    gw = srcgrad.grad(loss, wrt=1)(x, w)
    np.testing.assert_allclose(gw, 2 * x.T @ (x @ w), rtol=1e-12)
    np.testing.assert_allclose(gw, _fd(loss, (x, w), 1), rtol=1e-6)
    gx = srcgrad.grad(loss)(x, w)
    np.testing.assert_allclose(gx, 2 * np.outer(x @ w, w), rtol=1e-12)
    assert gw.shape == w.shape and gw.dtype == np.float64 and gx.shape == x.shape


def test_decorated_function_source_is_the_wrapper_written_out():
    g = srcgrad.grad(loss, wrt=1)
    with pytest.raises(TypeError, match="call it once before asking for its source"):
        srcgrad.source(g)
    g(X, W)
    text = srcgrad.source(g)
    assert "def wrapper_grad(args_0, args_1):" in text
    assert "(args = (args_0, args_1), kwargs = {})" in text
    assert "time.perf_counter()" in text  # the wrapper's own statements
    assert "args_0 @ args_1" in text  # the wrapped function, followed through the closure


def test_wrapper_with_side_statements(inputs, capsys):
    x, w = inputs
    value, (gx, gw) = srcgrad.value_and_grad(scaled_loss, wrt=(0, 1))(x, w, scale=2.0)
    assert value == pytest.approx(scaled_loss.__wrapped__(x, w, 2.0), rel=1e-12)
    t = np.tanh(x @ w)
    np.testing.assert_allclose(gw, 2.0 * x.T @ (2 * t * (1 - t ** 2)), rtol=1e-12)
    np.testing.assert_allclose(gx, _fd(lambda a: scaled_loss(a, w, scale=2.0), (x,), 0), rtol=1e-6)
    assert "calling scaled_loss with 2 arguments" in capsys.readouterr().out
    with pytest.raises(AssertionError, match="x must be a matrix"):
        srcgrad.grad(scaled_loss, wrt=1)(x[0], w)


def test_decorated_function_called_from_a_differentiated_function(inputs):
    x, w = inputs
    g = srcgrad.grad(uses_loss, wrt=1)
    np.testing.assert_allclose(g(x, w), 2 * x.T @ (x @ w) + 2 * w, rtol=1e-12)
    np.testing.assert_allclose(g(x, w), _fd(uses_loss, (x, w), 1), rtol=1e-6)
    gs = srcgrad.grad(uses_scaled, wrt=1)(x, w)
    np.testing.assert_allclose(gs, _fd(uses_scaled, (x, w), 1), rtol=1e-6)
    t = np.tanh(x @ w)
    np.testing.assert_allclose(gs, 6.0 * x.T @ (2 * t * (1 - t ** 2)), rtol=1e-12)
    jx = srcgrad.jvp(uses_scaled, (x, w), (np.zeros_like(x), np.ones_like(w)))[1]
    assert jx == pytest.approx(float(gs @ np.ones_like(w)), rel=1e-12)


def test_every_transform_of_a_decorated_function(inputs):
    x, w = inputs
    expected = 2 * x.T @ (x @ w)
    out, pullback = srcgrad.vjp(loss, x, w)
    assert out == pytest.approx(loss(x, w))
    gx, gw = pullback(1.0)
    np.testing.assert_allclose(gw, expected, rtol=1e-12)
    np.testing.assert_allclose(gx, 2 * np.outer(x @ w, w), rtol=1e-12)
    v = np.array([1.0, -2.0, 0.5])
    out, tangent = srcgrad.jvp(loss, (x, w), (None, v))
    assert tangent == pytest.approx(float(expected @ v), rel=1e-12)
    for mode in ("forward", "reverse"):
        jac = srcgrad.jacobian(loss, wrt=1, mode=mode)(x, w)
        np.testing.assert_allclose(jac, expected, rtol=1e-12)
    hess = srcgrad.hessian(loss, wrt=1)(x, w)
    np.testing.assert_allclose(hess, 2 * x.T @ x, rtol=1e-12)
    assert hess.shape == (3, 3)


def test_star_args_get_one_derivative_per_count():
    g = srcgrad.grad(total)
    assert g(2.0) == pytest.approx(12.0)
    assert g(2.0, 5.0) == pytest.approx(12.0)
    assert srcgrad.grad(total, wrt=1)(2.0, 5.0) == pytest.approx(75.0)
    assert srcgrad.grad(total, wrt=2)(1.0, 2.0, 3.0) == pytest.approx(27.0)
    assert srcgrad.grad(total, wrt=-1)(1.0, 2.0, 3.0) == pytest.approx(27.0)
    assert srcgrad.grad(total, wrt=(0, 2))(1.0, 2.0, 3.0) == pytest.approx((3.0, 27.0))
    assert srcgrad.grad(total, wrt=1)(1.0, 2.0, 3.0) == pytest.approx(_fd(total, (1.0, 2.0, 3.0), 1), rel=1e-6)
    texts = set()
    for args in ((1.0,), (1.0, 2.0), (1.0, 2.0, 3.0)):
        g(*args)
        texts.add(srcgrad.source(g))
    assert len(texts) == 3
    assert "def total_grad(xs_0, xs_1, xs_2):" in srcgrad.source(g)


def test_star_args_with_a_named_parameter_and_len():
    for args in ((1.5,), (1.5, 2.0), (1.5, 2.0, -1.0)):
        for k in range(len(args)):
            got = srcgrad.grad(weighted, wrt=k)(*args)
            expected = 2 * args[0] if k == 0 else 2 * k * args[k]
            assert got == pytest.approx(expected, rel=1e-12)
            assert got == pytest.approx(_fd(weighted, args, k), rel=1e-6)
    assert srcgrad.grad(weighted, wrt="a")(1.5, 2.0) == pytest.approx(3.0)


def test_second_order_of_star_args():
    assert srcgrad.grad(srcgrad.grad(total))(2.0, 1.0) == pytest.approx(12.0)
    assert srcgrad.grad(srcgrad.grad(total, wrt=1), wrt=1)(2.0, 1.0) == pytest.approx(6.0)
    h = srcgrad.hessian(total, wrt=(0, 1))(2.0, 1.0)
    np.testing.assert_allclose(np.array(h, dtype=float), [[12.0, 0.0], [0.0, 6.0]])
    value, grads = srcgrad.value_and_grad(total, wrt=(0, 1))(2.0, 1.0)
    assert value == pytest.approx(9.0) and grads == pytest.approx((12.0, 3.0))
    assert isinstance(grads[0], float)


def test_kwargs_get_with_defaults_and_forwarding():
    x = np.array([0.5, -1.0, 2.0])
    np.testing.assert_allclose(srcgrad.grad(options)(x), np.full(3, 2.0))
    np.testing.assert_allclose(srcgrad.grad(options)(x, scale=5.0), np.full(3, 5.0))
    np.testing.assert_allclose(srcgrad.grad(options)(x, shift=1.0, scale=0.5), 0.5 + 2 * x)
    np.testing.assert_allclose(srcgrad.grad(options)(x, shift=1.0), _fd(lambda a: options(a, shift=1.0), (x,), 0), rtol=1e-6)
    np.testing.assert_allclose(srcgrad.grad(forwards)(x), np.cos(x))
    np.testing.assert_allclose(srcgrad.grad(forwards)(x, scale=3.0), 3.0 * np.cos(x))
    g = srcgrad.grad(forwards)
    g(x, scale=3.0, shift=1.0)
    assert "kwargs = {'scale': scale, 'shift': shift}" in srcgrad.source(g)
    np.testing.assert_allclose(srcgrad.grad(calls_forwards, wrt=1)(x, 2.0), np.sum(np.sin(x)))
    assert srcgrad.grad(calls_total, wrt=1)(1.0, 2.0) == pytest.approx(24.0)


def test_vjp_and_jvp_of_star_args():
    out, pullback = srcgrad.vjp(total, 1.0, 2.0, 3.0)
    assert out == pytest.approx(36.0)
    assert pullback(1.0) == pytest.approx((3.0, 12.0, 27.0))
    out, tangent = srcgrad.jvp(total, (1.0, 2.0), (1.0, 1.0))
    assert tangent == pytest.approx(15.0)
    jac = srcgrad.jacobian(total, wrt=(0, 1))(1.0, 2.0)
    assert jac == pytest.approx((3.0, 12.0))


def test_refusals_name_the_construct():
    def pops(x, **kw):
        kw["scale"] = kw.get("scale", 1.0) * 2.0
        return helper(x, **kw)

    with pytest.raises(srcgrad.SrcGradError, match=r"`\*\*kw` unpacks a dict whose keys srcgrad cannot see"):
        srcgrad.grad(pops)(np.ones(2), scale=2.0)

    def grows(*args):
        args = args + (2.0,)
        return helper(*args)

    with pytest.raises(srcgrad.SrcGradError, match=r"`\*args` unpacks a value of a length srcgrad cannot see"):
        srcgrad.grad(grows)(np.ones(2))

    def shadows(x, **kw):
        return np.sin(x) * kw.get("np", 1.0)

    with pytest.raises(srcgrad.SrcGradError, match="would hide the outer `np`"):
        srcgrad.grad(shadows)(1.0, np=2.0)
    with pytest.raises(TypeError, match=r"wrt='xs_0' names no parameter of `total`.*by its position in the call"):
        srcgrad.grad(total, wrt="xs_0")(1.0)
    with pytest.raises(TypeError, match="wrt=2 is out of range for `total` .* called with 2 positional arguments"):
        srcgrad.grad(total, wrt=2)(1.0, 2.0)

    def active_keyword(x, w):
        return noisy_forwards(x, scale=w)

    with pytest.raises(srcgrad.SrcGradError, match="receives a differentiated value through its parameter `scale`"):
        srcgrad.grad(active_keyword, wrt=1)(X, 2.0)


@noisy
def noisy_forwards(x, **kwargs):
    return helper(x, **kwargs)


@recorded
def recorded_loss(x, w):
    return np.sum((x @ w) ** 2)


def uses_recorded(x, w):
    return recorded_loss(x, w) * 2.0


def test_a_wrapper_changing_a_global_is_differentiated_directly_but_refused_as_a_callee():
    before = len(TIMINGS)
    np.testing.assert_allclose(srcgrad.grad(recorded_loss, wrt=1)(X, W), 2 * X.T @ (X @ W), rtol=1e-12)
    assert len(TIMINGS) == before + 1  # its statements ran once
    with pytest.raises(srcgrad.NotDifferentiableError, match="calls `recorded_loss`, which changes an object it does not make"):
        srcgrad.grad(uses_recorded, wrt=1)(X, W)


def test_variants_are_kept_per_arity():
    from srcgrad.compiler import varargs

    a = varargs.variant(total, 2, [])
    assert varargs.variant(total, 2, []) is a
    assert varargs.variant(total, 3, []) is not a
    assert varargs.arity(a) == (2, ())
    assert varargs.variant(options, 1, ["scale"]) is not varargs.variant(options, 1, ["shift"])


def scaled_by(factor):
    def decorate(f):
        @functools.wraps(f)
        def wrapper(*args, **kwargs):
            if len(args) < 1:
                raise TypeError("give the input by position")
            return factor * f(*args, **kwargs)
        return wrapper
    return decorate


@scaled_by(3.0)
def tripled(x, w=1.0):
    return np.sum(np.sin(x) * w)


def apply(f, *args):
    return f(*args)


def uses_apply(x):
    return apply(np.sin, x) + apply(np.multiply, x, x)


def power_plus(a, b=2.0, *rest):
    return a ** b + sum(rest)


def uses_power_plus(x):
    return power_plus(x) + power_plus(x, 3.0, x, x)


def test_decorator_with_arguments_and_a_check_on_len():
    x = np.array([0.2, -0.4])
    np.testing.assert_allclose(srcgrad.grad(tripled)(x), 3.0 * np.cos(x), rtol=1e-12)
    np.testing.assert_allclose(srcgrad.grad(tripled)(x, w=2.0), 6.0 * np.cos(x), rtol=1e-12)
    assert srcgrad.grad(tripled, wrt=1)(x, 2.0) == pytest.approx(3.0 * np.sum(np.sin(x)), rel=1e-12)
    with pytest.raises(TypeError, match="wrt=0 is out of range for `tripled` .* called with 0 positional arguments"):
        srcgrad.grad(tripled, wrt=0)(x=x)  # `wrt` counts the call's positional arguments


def test_a_function_passed_through_star_args():
    assert srcgrad.grad(uses_apply)(1.0) == pytest.approx(np.cos(1.0) + 2.0, rel=1e-12)
    assert srcgrad.grad(apply, wrt=1)(np.sin, 1.0) == pytest.approx(np.cos(1.0), rel=1e-12)


def test_star_args_after_a_default_spliced_into_the_caller():
    g = srcgrad.grad(uses_power_plus)
    assert g(2.0) == pytest.approx(4.0 + 12.0 + 2.0, rel=1e-12)
    text = srcgrad.source(g)
    assert "rest_1 = (x, x)" in text and "pullback" not in text  # spliced, written out
    assert srcgrad.grad(power_plus)(2.0) == pytest.approx(4.0)
    assert srcgrad.grad(power_plus, wrt=2)(2.0, 3.0, 5.0) == pytest.approx(1.0)


def test_replacing_the_code_builds_the_derivative_again():
    def f(*xs):
        return sum(x * x for x in xs)

    def g(*xs):
        return sum(x * x * x for x in xs)

    def calls_f(a, b):
        return f(a, b) * 1.0

    df, dcalls = srcgrad.grad(f), srcgrad.grad(calls_f)
    assert (df(2.0, 1.0), dcalls(2.0, 1.0)) == (4.0, 4.0)
    f.__code__ = g.__code__
    assert (df(2.0, 1.0), dcalls(2.0, 1.0)) == (12.0, 12.0)


def first_doubled(f):
    @functools.wraps(f)
    def wrapper(*args, **kwargs):
        return f(args[0] * 2.0, *args[1:], **kwargs)
    return wrapper


@first_doubled
def product(a, b, c=1.0):
    return a * b * c


def test_a_slice_of_star_args_unpacked():
    assert srcgrad.grad(product, wrt=(0, 1, 2))(1.0, 2.0, 3.0) == pytest.approx((12.0, 6.0, 4.0))
    assert srcgrad.grad(product, wrt=(0, 1))(1.0, 2.0) == pytest.approx((4.0, 2.0))
    assert srcgrad.grad(product, wrt=1)(1.0, 2.0, c=5.0) == pytest.approx(10.0)

    def listed(*xs):
        ys = list(xs)
        return np.subtract(*ys[1:])

    with pytest.raises(srcgrad.SrcGradError, match=r"`\*ys\[1:\]` unpacks a value of a length srcgrad cannot see"):
        srcgrad.grad(listed, wrt=1)(1.0, 2.0, 5.0)


def recursive_product(*xs):
    if len(xs) == 1:
        return xs[0]
    return xs[0] * recursive_product(*xs[1:])


def test_recursion_through_star_args_shrinks_the_arity():
    assert srcgrad.grad(recursive_product, wrt=(0, 1, 2))(2.0, 3.0, 4.0) == pytest.approx((12.0, 8.0, 6.0))


def test_check_grad_and_lambdas_with_star_args():
    from srcgrad.testing import check_grad

    check_grad(total, 1.0, 2.0, wrt=1)
    check_grad(weighted, 1.5, np.array([0.5, -1.0]), wrt=(0, 1))
    assert srcgrad.grad(lambda *a: a[0] * a[1], wrt=1)(2.0, 3.0) == 2.0
    g = srcgrad.grad(lambda x, **k: x * k.get("s", 2.0))
    assert (g(1.0), g(1.0, s=5.0)) == (2.0, 5.0)


def test_compile_refuses_star_args_with_advice():
    compiled = srcgrad.compile(total)
    a = srcgrad.tensor(2.0, requires_grad=True)
    with pytest.raises(srcgrad.SrcGradError, match="not written out here for a call's arguments .* not srcgrad.compile"):
        compiled(a, a).backward()


def test_keywords_through_second_order_and_float32(inputs):
    x, w = inputs
    h = srcgrad.hessian(scaled_loss, wrt=1)(x, w, scale=2.0)
    numeric = np.array([_fd(lambda v: srcgrad.grad(scaled_loss, wrt=1)(x, v, scale=2.0)[i], (w,), 0) for i in range(3)])
    np.testing.assert_allclose(h, numeric, rtol=1e-5, atol=1e-8)
    np.testing.assert_allclose(h, h.T, rtol=1e-12)
    jac = srcgrad.jacobian(options, mode="reverse")(np.array([1.0, 2.0]), shift=1.0)
    np.testing.assert_allclose(jac, 2.0 + 2.0 * np.array([1.0, 2.0]))
    g32 = srcgrad.grad(loss, wrt=1)(x.astype(np.float32), w.astype(np.float32))
    assert g32.dtype == np.float32 and g32.shape == (3,)
    np.testing.assert_allclose(g32, 2 * x.T @ (x @ w), rtol=1e-5)


def with_options(f):
    @functools.wraps(f)
    def wrapper(*args, **kwargs):
        verbose = kwargs.pop("verbose", False)
        factor = kwargs.pop("factor", 1.0)
        if verbose:
            print("verbose call")
        return factor * f(*args, **kwargs)
    return wrapper


@with_options
def optioned(x, scale=1.0):
    return np.sum(np.sin(x) * scale)


def test_leading_kwargs_pop_is_read_per_call(capsys):
    x = np.array([0.1, 0.7])
    g = srcgrad.grad(optioned)
    np.testing.assert_allclose(g(x), np.cos(x), rtol=1e-12)
    np.testing.assert_allclose(g(x, verbose=True), np.cos(x), rtol=1e-12)
    assert capsys.readouterr().out == "verbose call\n"
    np.testing.assert_allclose(g(x, scale=3.0, factor=2.0), 6.0 * np.cos(x), rtol=1e-12)
    np.testing.assert_allclose(g(x, factor=2.0, scale=3.0), _fd(lambda a: optioned(a, factor=2.0, scale=3.0), (x,), 0),
                               rtol=1e-6)

    def late(x, **kw):
        print(sorted(kw))
        s = kw.pop("scale", 1.0)
        return helper(x, **kw) * s

    with pytest.raises(srcgrad.SrcGradError, match=r"`\*\*kw` unpacks a dict whose keys srcgrad cannot see"):
        srcgrad.grad(late)(x, scale=3.0)

    def required(x, **kw):
        return x * kw.pop("scale")

    assert srcgrad.grad(required)(2.0, scale=3.0) == 3.0
    with pytest.raises(KeyError, match="scale"):
        srcgrad.grad(required)(2.0)


def positional_only(a, /, **kw):
    return a * kw.get("a", 1.0)


def calls_positional_only(x):
    return positional_only(x, a=2.0)


def test_a_keyword_named_like_a_parameter_is_refused():
    match = "called with the keyword argument 'a', which its `\\*\\*` parameter collects"
    with pytest.raises(srcgrad.SrcGradError, match=match):
        srcgrad.grad(positional_only)(1.0, a=2.0)
    with pytest.raises(srcgrad.SrcGradError, match=match):
        srcgrad.grad(calls_positional_only)(1.0)
    assert srcgrad.grad(positional_only)(1.0, b=2.0) == 1.0
