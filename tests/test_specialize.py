"""Code specialized per call signature (shapes.py, cache.specializing) and split VJPs (split.py)."""

import math

import numpy as np
import pytest

import srcgrad
from srcgrad.compiler.cache import general_code


def _specializations(derivative):
    return derivative.__srcgrad_lazy__.get().function.__srcgrad_specializations__


def loop(a, b):
    s = 0.0
    for i in range(20):
        if s < 3.0:
            s = s + a * (1.5 + math.sin(s + b))
        else:
            s = s * 0.5 - b
    return s


def affine(W, b, x):
    return np.sum(np.tanh(x @ W + b) ** 2)


def test_float_loop_drops_unbroadcasts_and_saves_less():
    df = srcgrad.grad(loop, wrt=(0, 1))
    ga, gb = df(1.3, 0.2)
    assert type(ga) is float and type(gb) is float
    (text,) = [f.__srcgrad_source__ for f in _specializations(df).values()]
    backward = text.split("# Backward pass")[1].rsplit("return", 1)[0]
    assert "unbroadcast" not in backward
    assert text.count(".append(") < srcgrad.source(df).count(".append(")
    h = 1e-6
    assert math.isclose(ga, (loop(1.3 + h, 0.2) - loop(1.3 - h, 0.2)) / (2 * h), rel_tol=1e-5)


def test_each_signature_gets_its_own_code_and_the_same_gradients():
    rng = np.random.default_rng(0)
    df = srcgrad.grad(affine, wrt=(0, 1))
    for b_shape in [(3,), (1,), (), (4, 3)]:
        W, x = rng.standard_normal((2, 3)), rng.standard_normal((4, 2))
        b = rng.standard_normal(b_shape) if b_shape else 0.5
        gW, gb = df(W, b, x)
        ref = general_code(srcgrad.compiler.derive(affine, "grad", (0, 1)).function)(W, b, x)
        np.testing.assert_allclose(gW, ref[0])
        np.testing.assert_allclose(gb, ref[1])
        assert np.shape(gb) == np.shape(b) and type(gb) is type(ref[1])
    assert len(_specializations(df)) == 4


def test_float32_gradients_keep_their_dtype():
    rng = np.random.default_rng(1)
    W, b, x = (rng.standard_normal(s).astype(np.float32) for s in [(2, 3), (3,), (4, 2)])
    gW, gb = srcgrad.grad(affine, wrt=(0, 1))(W, b, x)
    assert gW.dtype == np.float32 and gb.dtype == np.float32


def test_split_pullback_can_be_called_again():
    def f(x, W):
        return np.tanh(W @ x)

    x, W = np.array([0.1, 0.2]), np.array([[1.0, 2.0], [3.0, 4.0]])
    out, pullback = srcgrad.vjp(f, x, W)
    seed = np.array([1.0, -1.0])
    first, again = pullback(seed), pullback(seed)
    for a, b in zip(first, again):
        np.testing.assert_array_equal(a, b)
    local = seed * (1 - np.tanh(W @ x) ** 2)
    np.testing.assert_allclose(first[0], W.T @ local)
    assert "def pullback(" in srcgrad.source(pullback)


def test_split_pullback_of_a_loop_copies_its_tape():
    def f(x):
        y = x
        for i in range(3):
            y = np.sin(y) * x
        return y

    x = np.array([0.3, 0.7])
    _, pullback = srcgrad.vjp(f, x)
    (g1,), (g2,) = pullback(np.ones(2)), pullback(np.ones(2))
    np.testing.assert_array_equal(g1, g2)
    h = 1e-6
    fd = [(f(x + h * e).sum() - f(x - h * e).sum()) / (2 * h) for e in np.eye(2)]
    np.testing.assert_allclose(g1, fd, rtol=1e-5)


def test_a_seed_that_broadcasts_is_broadcast_to_the_output():
    def f(x):
        return x * 2.0

    _, pullback = srcgrad.vjp(f, np.ones((2, 3)))
    (g,) = pullback(np.ones(3))
    np.testing.assert_allclose(g, np.full((2, 3), 2.0))



def test_builds_pause_the_garbage_collector_and_restore_it(monkeypatch):
    import gc

    from srcgrad.compiler import optimize

    seen = []
    stage = optimize.run
    monkeypatch.setattr(optimize, "run", lambda *a, **k: (seen.append(gc.isenabled()), stage(*a, **k))[1])

    def paused_step(W, b, x):
        h = np.tanh(x @ W + b)
        return np.sum(h * h) + np.mean(h)

    assert gc.isenabled()
    df = srcgrad.grad(paused_step, wrt=(0, 1))
    df(np.ones((3, 2)), np.zeros(2), np.ones((4, 3)))  # the specialized build
    assert len(_specializations(df)) == 1
    assert "paused_step_grad" in srcgrad.source(df)  # the general build, on demand
    assert seen == [False, False]  # specialized and general builds
    assert gc.isenabled()

    gc.disable()
    try:
        srcgrad.grad(lambda x: np.sum(np.cos(x)))(np.ones(2))
        assert not gc.isenabled()  # left as the caller had it
    finally:
        gc.enable()

    def refused(x):
        try:
            return x * 2.0
        finally:
            pass

    with pytest.raises(srcgrad.SrcGradError):
        srcgrad.grad(refused)(1.0)
    assert gc.isenabled()


def test_the_general_code_is_built_only_when_something_needs_it(monkeypatch):
    """A call that a specialization serves builds that specialization alone; a call with
    keywords runs the general code, built then, once, and gives the same gradients."""
    from srcgrad.compiler import pipeline

    built = []
    finish = pipeline._finish
    monkeypatch.setattr(pipeline, "_finish", lambda p, v, signature=None: (built.append(signature), finish(p, v, signature))[1])

    def lazy_step(W, b, x):
        return np.sum(np.tanh(x @ W + b) ** 2)

    rng = np.random.default_rng(3)
    W, b, x = rng.standard_normal((3, 2)), rng.standard_normal(2), rng.standard_normal((4, 3))
    df = srcgrad.grad(lazy_step, wrt=(0, 1))
    assert built == []  # nothing assembled at decoration time
    gW, gb = df(W, b, x)
    assert built == [((3, 2), (2,), (4, 3))]  # the specialization alone
    kW, kb = df(W, b, x=x)  # keywords: the general code
    kW2, _ = df(W, b=b, x=x)
    assert built == [((3, 2), (2,), (4, 3)), None]  # built once
    np.testing.assert_array_equal(gW, kW)
    np.testing.assert_array_equal(gb, kb)
    np.testing.assert_array_equal(kW, kW2)
    t = 1 - np.tanh(x @ W + b) ** 2
    np.testing.assert_allclose(gW, x.T @ (2 * np.tanh(x @ W + b) * t), rtol=1e-12)


def test_the_first_build_consumes_the_sweeps_and_later_ones_prepare_again(monkeypatch):
    """Nothing is kept for later builds after the first (no copy, no memory): each later
    build runs the shape-free stages again. Every build gives the analytic gradient."""
    import gc
    import weakref

    from srcgrad.compiler import pipeline, reverse

    prepared, made = [], []
    prepare, sweeps = pipeline._prepare, reverse.sweeps
    monkeypatch.setattr(pipeline, "_prepare", lambda *a: (prepared.append(a[1]), prepare(*a))[1])
    monkeypatch.setattr(reverse, "sweeps", lambda *a, **k: (lambda sw: (made.append(weakref.ref(sw)), sw)[1])(sweeps(*a, **k)))

    def kept_step(W, x):
        return np.sum(np.sin(x @ W))

    def analytic(W, x):
        return x.T @ np.cos(x @ W)

    rng = np.random.default_rng(5)
    df = srcgrad.grad(kept_step)
    assert prepared == ["grad"]
    for rows in (4, 1, 6):  # three kinds of call
        W, x = rng.standard_normal((3, 2)), rng.standard_normal((rows, 3))
        np.testing.assert_allclose(df(W, x), analytic(W, x), rtol=1e-12)
        gc.collect()
        if rows == 4:
            assert prepared == ["grad"] and made[0]() is None  # the first build consumed them
    assert prepared == ["grad"] * 3
    np.testing.assert_allclose(df(W, x=x), analytic(W, x), rtol=1e-12)  # the general code
    assert prepared == ["grad"] * 4


def test_a_derivative_does_not_keep_its_function_alive():
    """The cache is keyed weakly on the function: nothing in a derivative (its dispatcher,
    specializations, general code, their line tables and units) refers back to the
    function, so a dropped function and its derivatives go, with their cache entries."""
    import gc
    import weakref

    from srcgrad.compiler import cache

    def make():
        def helper(z):
            return np.sum(np.sin(z))

        def loss(x, n):
            y = x
            for _ in range(n):
                y = y * 1.5
            return helper(y) + np.sum(x * x)

        return loss, helper

    cache.clear()
    loss, helper = make()
    refs = [weakref.ref(loss), weakref.ref(helper)]
    x = np.array([0.2, -0.4, 1.0])
    df = srcgrad.grad(loss)
    np.testing.assert_allclose(df(x, 2), 2.25 * np.cos(2.25 * x) + 2 * x, rtol=1e-12)
    assert "loss_grad" in srcgrad.source(df)
    np.testing.assert_allclose(srcgrad.hessian(loss)(x, 1), np.diag(-2.25 * np.sin(1.5 * x) + 2), rtol=1e-12)
    vg = srcgrad.value_and_grad(loss)
    vg(x, 1), vg(x[:2], 1)  # two kinds of call
    assert len(cache._CACHE) >= 2
    del loss, helper, df, vg
    gc.collect()
    assert [r() for r in refs] == [None, None]
    assert len(cache._CACHE) == 0


def test_a_derivative_is_freed_by_reference_counting_alone():
    """No reference cycles: a dropped derivative (its dispatcher, specializations and
    kept sweeps) goes at once, not at a later garbage collection of the whole heap."""
    import gc
    import weakref

    from srcgrad.compiler import cache

    def freed_step(W, b, x):
        h = np.tanh(x @ W + b)
        return np.sum(h * h) + 1e-3 * np.sum(np.abs(W))

    gc.collect()
    gc.disable()
    try:
        df = srcgrad.grad(freed_step, wrt=(0, 1))
        df(np.ones((3, 2)), np.zeros(2), np.ones((4, 3)))
        inner = df.__srcgrad_lazy__.get().function
        (specialized,) = inner.__srcgrad_specializations__.values()
        refs = [weakref.ref(f) for f in (df, inner, specialized, general_code(inner))]
        del df, inner, specialized
        cache.clear()
        assert [r() for r in refs] == [None] * 4
    finally:
        gc.enable()


def halves_its_parameter(x):
    for _ in range(3):
        x = x / 2
    return x


def test_a_parameter_the_loop_overwrites_gives_its_gradient_the_argument_kind():
    """Specialized code needs no saved values of `x` (no `unbroadcast` reads them), so `x`
    held the loop's last value, a NumPy float64 for a 0-d array argument, when the return
    read its kind: the gradient of a 0-d array came back as np.float64. The argument is
    now kept under its own name for the return."""
    derivative = srcgrad.grad(halves_its_parameter)
    for x in (np.array(0.8), np.array(0.8, dtype=np.float32), np.float64(0.8), 0.8):
        g = derivative(x)
        assert type(g) is type(x) and np.result_type(g) == np.result_type(x)
        assert g == 0.125
    assert "x_argument" not in srcgrad.source(derivative)  # the general code puts x back itself


def pinned_chain(x, k, w):
    """Reductions over some axes, slices, `np.array` of numbers and `np.stack`."""
    g = np.array([0.0, -9.81])
    d = x[1:] - x[:-1]
    r = np.sqrt(np.sum(d * d, axis=-1, keepdims=True) + 1e-9)
    f = k * (r - 1.0) * d / r
    a = np.mean(f, axis=(0,)) + g + w * np.tanh(x[..., 1:2][0])
    s = np.stack([a, 2.0 * a], axis=-1)
    return np.sum(np.max(s, 1) * a[None, :][0]) + np.sum(x[:, 0] ** 2)


def test_shapes_of_axis_reductions_slices_and_stacks_drop_their_unbroadcasts():
    """shapes.py knows the shapes of reductions over constant axes (kept or not), of basic
    slicing (`x[..., 1:2]`, `x[None, :]`), of `np.array([numbers])` and of `np.stack`: the
    unbroadcasts they made redundant go, and the gradients stay those of the general code,
    also where a parameter broadcasts."""
    rng = np.random.default_rng(3)
    df = srcgrad.grad(pinned_chain, wrt=(0, 1, 2))
    general = general_code(srcgrad.compiler.derive(pinned_chain, "grad", (0, 1, 2)).function)
    for k, w in [(1.5, 0.2), (rng.standard_normal((1, 1)), 0.2), (rng.standard_normal((4, 1)), rng.standard_normal(2))]:
        x = rng.standard_normal((5, 2))
        got, want = df(x, k, w), general(x, k, w)
        for a, b in zip(got, want):
            np.testing.assert_allclose(a, b, rtol=1e-12)
            assert np.shape(a) == np.shape(b) and type(a) is type(b)
    texts = [f.__srcgrad_source__ for f in _specializations(df).values()]
    backward = texts[0].split("# Backward pass")[1].rsplit("return", 1)[0]
    assert backward.count("unbroadcast(") < srcgrad.source(df).count("unbroadcast(") // 2


def test_a_narrowed_name_assigned_an_array_again_has_its_shape_again():
    """unbroadcasts._stays_elementwise: `a` is a scalar (`s * 2.0`), then an array again
    (`a + g`); `v = a * s` reads it with a scalar, so `v` is an array, not a scalar (the
    analysis kept `a`'s scalar shape and found `v` a scalar)."""
    import gast

    from srcgrad.compiler import syntax, traversal, unbroadcasts

    class Shapes:  # the element-wise part of shapes._Shapes: names' shapes broadcast
        def __init__(self, env):
            self.env = env

        def shape(self, node):
            found = [self.env.get(n.id) for n in traversal.walk(node) if isinstance(n, gast.Name)]
            return np.broadcast_shapes(*found) if found else ()

    stmts = [syntax.parse(line).body[0] for line in ("a = s * 2.0", "a = a + g", "v = a * s")]
    env = Shapes({"s": (), "g": (3,), "a": (3,), "v": (3,)})
    narrowed = unbroadcasts._stays_elementwise(stmts, {"s"}, env, lambda func: None, set(), {})
    assert narrowed is not None and narrowed.get("v") != ()
    assert env.env == {"s": (), "g": (3,), "a": (3,), "v": (3,)}  # restored
