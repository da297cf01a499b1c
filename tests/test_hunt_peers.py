"""Programs shaped like the test and example programs of srcgrad's peers (Tangent's test
functions, HIPS autograd's examples and tests, JAX's documentation), from a hunt that ran
every transform on those programs, translated to plain NumPy, against central
differences and autograd's and JAX's own gradients. The tests below each once failed:

- a value assigned once in a loop's body and read after the loop, whose shape changes
  from one iteration to the next (a network whose layers have different widths:
  `for W, b in params: outputs = ...; inputs = np.tanh(outputs)`, then
  `return outputs - logsumexp(outputs)`): between backward iterations its adjoint was
  reset to zeros shaped like the later iteration's value, not the earlier one's. With
  the widths (..., 100, 10) the gradient raised a broadcasting error; where the earlier
  shape broadcasts to the later one (a hidden width of 1), the gradient was silently
  wrong (8.908 for 1.782: summed over copies the zeros had spread it to). The same held
  for a loop's element read after the loop (`for w in ws: ...; return ... w`);
- a helper reassigning its parameter through another helper (`v = shade(v, mask)`),
  called in a loop, was spliced as `v = v * c` inside the loop, an assignment whose
  target is on its own right-hand side, which reverse mode (and forward mode) cannot
  read the old value of: both gave silently wrong derivatives (0.36 for 0.88; the fluid
  simulation of autograd's wing example);
- a function called through its pullback (a closure, as in autograd's black-box
  variational inference) that draws random numbers from a generator it does not make
  was run twice, once for the value and once by its pullback, which drew other numbers:
  the gradient belonged to another draw. It is refused, naming the draw's line;
- `np.r_[x, c, x]` and `np.c_[...]` (autograd's tests of its index tricks) gave a zero
  gradient: srcgrad reads what is inside brackets as an index, which carries no
  derivative (0.0 for 5.0). They were refused where they held a differentiated value;
  with plain entries they are now spelled as the np.concatenate they make
  (index_tricks.py), and with a range (`0:3`) or a string directive they stay refused.

A second round ran HIPS autograd's systematic, linear-algebra, wrapper, SciPy and
container tests and more of JAX's documentation:

- the second derivative of `np.logaddexp(a, b)` (and logaddexp2) where `a == b` was 0,
  not 1/4: the guard that keeps `inf - inf` out of its derivative masked every tie, so
  the difference it guarded carried no derivative there;
- `zip(*unpack(p))`, `f(*g(x))` with `g` a function of the user's returning a tuple written
  out (`return a, b`), were refused as unpacking a value of a length srcgrad cannot see:
  the length is in the callee's returns, and the call is now bound to a name and its
  entries passed one by one;
- a helper changing its parameter in place (`u -= 0.5 * np.roll(u, 1)`, autograd's fluid
  simulation) was refused even where the caller passed a new value that nothing else
  reads (`f(v * 2.0)`, or a name bound to one and read only by the call): the change is
  seen by no one, and the spliced helper, which computes it as a new value, is exact.
  Where the caller reads the value again, passes its own argument, or made the value
  outside the loop holding the call, it stays refused.
"""

import sys

import numpy as np
import pytest

import srcgrad
from conftest import numerical_grad


def _fd_list(fn, arrays, *rest):
    """Central differences of `fn(arrays, *rest)` in each array of the list `arrays`."""
    grads = []
    for a in arrays:
        g = np.zeros_like(a)
        for k in np.ndindex(a.shape):
            keep = a[k]
            a[k] = keep + 1e-6
            up = fn(arrays, *rest)
            a[k] = keep - 1e-6
            down = fn(arrays, *rest)
            a[k] = keep
            g[k] = (up - down) / 2e-6
        grads.append(g)
    return grads


# --- a loop-carried value read after the loop, its shape changing between iterations -----


def widening_layers(weights, x):
    h = x
    for w in weights:
        pre = h * w
        h = np.tanh(pre)
    return np.sum(pre)


@pytest.mark.parametrize("widths", [(1, 5), (5, 1), (3, 3)])
def test_value_read_after_loop_with_changing_shape(widths):
    weights = [np.linspace(0.3, 0.9, n) for n in widths]
    x = np.array([0.4])
    copies = [w.copy() for w in weights]
    g_w, g_x = srcgrad.grad(widening_layers, wrt=(0, 1))(weights, x)
    (w0, w1), (n0, n1) = weights, widths
    t = np.tanh(x * w0)
    slope = x * (1.0 - t**2)
    if n0 == n1:  # sum(tanh(x w0) * w1)
        expect_w0, expect_w1 = slope * w1, t
    elif n0 == 1:  # tanh(x w0) * sum(w1)
        expect_w0, expect_w1 = slope * np.sum(w1), np.full(n1, t[0])
    else:  # sum(tanh(x w0)) * w1
        expect_w0, expect_w1 = slope * w1[0], np.array([np.sum(t)])
    np.testing.assert_allclose(g_w[0], expect_w0, rtol=1e-12)
    np.testing.assert_allclose(g_w[1], expect_w1, rtol=1e-12)
    fd = _fd_list(widening_layers, weights, x)
    for g, d, w in zip(g_w, fd, weights):
        assert g.shape == w.shape and g.dtype == np.float64
        np.testing.assert_allclose(g, d, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(g_x, numerical_grad(widening_layers, (weights, x), 1), rtol=1e-6)
    assert all(np.array_equal(a, b) for a, b in zip(weights, copies))
    # value_and_grad's value is the function's
    value, _ = srcgrad.value_and_grad(widening_layers, wrt=(0, 1))(weights, x)
    assert value == widening_layers(weights, x)


def test_layers_of_different_widths_ending_in_log_softmax():
    rng = np.random.default_rng(3)
    x = rng.normal(size=(4, 3))
    params = [(rng.normal(size=(3, 6)), rng.normal(size=6)), (rng.normal(size=(6, 2)), rng.normal(size=2))]

    def log_likelihood(params, x):
        for W, b in params:
            z = x @ W + b
            x = np.tanh(z)
        return np.sum(z - np.log(np.sum(np.exp(z), axis=1, keepdims=True)))

    g = srcgrad.grad(log_likelihood)(params, x)
    for (W, b), (gW, gb) in zip(params, g):
        for a, ga in ((W, gW), (b, gb)):
            fd = np.zeros_like(a)
            for k in np.ndindex(a.shape):
                keep = a[k]
                a[k] = keep + 1e-6
                up = log_likelihood(params, x)
                a[k] = keep - 1e-6
                down = log_likelihood(params, x)
                a[k] = keep
                fd[k] = (up - down) / 2e-6
            np.testing.assert_allclose(ga, fd, rtol=1e-6, atol=1e-8)


def last_element_again(ws):
    total = 0.0
    for w in ws:
        total = total + np.sum(w**2)
    return total + 3.0 * np.sum(w)


@pytest.mark.parametrize("sizes", [(1, 4), (4, 1)])
def test_loop_element_read_after_loop(sizes):
    ws = [np.linspace(0.2, 0.8, n) for n in sizes]
    g = srcgrad.grad(last_element_again)(ws)
    np.testing.assert_allclose(g[0], 2 * ws[0], rtol=1e-12)
    np.testing.assert_allclose(g[1], 2 * ws[1] + 3.0, rtol=1e-12)
    for a, b in zip(g, _fd_list(last_element_again, ws)):
        np.testing.assert_allclose(a, b, rtol=1e-6)


# --- a helper reassigning its parameter through another helper, called in a loop ---------


def shrink(v, c):
    return v * c


def settle(v, c):
    v = shrink(v, c)
    return v + 0.25


START = np.array([1.0, 2.0])


def relax(c):
    v = START
    for _ in range(2):
        v = settle(v, c)
    return np.sum(v**2)


def test_helper_reassigning_its_parameter_in_a_loop():
    c = np.array([0.5, 0.8])
    v2 = START * c**2 + 0.25 * c + 0.25
    dv2 = 2 * START * c + 0.25
    expect = 2 * v2 * dv2
    g = srcgrad.grad(relax)(c)
    np.testing.assert_allclose(g, expect, rtol=1e-12)
    np.testing.assert_allclose(g, numerical_grad(relax, (c,), 0), rtol=1e-7)
    t = np.array([0.3, -1.1])
    value, tangent = srcgrad.jvp(relax, (c,), (t,))
    assert value == relax(c)
    np.testing.assert_allclose(tangent, expect @ t, rtol=1e-12)
    h = srcgrad.hessian(relax)(c)
    np.testing.assert_allclose(h, np.diag(2 * dv2**2 + 4 * v2 * START), rtol=1e-10)


def shade(f, mask):
    return f * (1 - mask)


def screen(a, b, mask):
    a = shade(a, mask)
    b = shade(b, mask)
    return a, b


def screened_flow(mask):
    a, b = 0.3 * mask, 0.05 + mask
    for _ in range(1):
        a, b = screen(a, b, mask)
    return np.sum(a * b)


def test_helper_returning_two_reassigned_parameters_in_a_loop():
    m = np.array([[0.1, 0.4], [0.25, 0.7]])
    # a * b = 0.3 m (1 - m)^2 (0.05 + m)
    expect = 0.3 * ((1 - m) ** 2 * (0.05 + m) - 2 * m * (1 - m) * (0.05 + m) + m * (1 - m) ** 2)
    g = srcgrad.grad(screened_flow)(m)
    np.testing.assert_allclose(g, expect, rtol=1e-12)
    np.testing.assert_allclose(g, numerical_grad(screened_flow, (m,), 0), rtol=1e-7)
    _, tangent = srcgrad.jvp(screened_flow, (m,), (np.ones_like(m),))
    np.testing.assert_allclose(tangent, np.sum(expect), rtol=1e-12)


# --- random draws in a function differentiated through its pullback ---------------------

NOISE = np.random.RandomState(0)


def make_noisy_objective(rs, n):
    def noisy_objective(p):
        eps = rs.randn(n)  # the line the refusal names
        return np.sum((p + eps) ** 2)

    return noisy_objective


noisy_objective = make_noisy_objective(NOISE, 3)


def seeded_estimate(p):
    NOISE.seed(0)
    return noisy_objective(p)


def test_draw_in_a_pullback_is_refused():
    p = np.array([0.1, 0.2, 0.3])
    with pytest.raises(srcgrad.SrcGradError) as info:
        srcgrad.grad(seeded_estimate)(p)
    err = info.value
    assert err.filename == __file__
    assert "rs.randn(n)" in err.text and "draws random numbers" in err.msg and "argument" in err.msg


def noisy_with_draws(p, eps):
    return np.sum((p + eps) ** 2)


def estimate_with_draws(p):
    eps = NOISE.randn(3)
    return noisy_with_draws(p, eps)


def test_draw_passed_in_as_the_refusal_says():
    p = np.array([0.1, 0.2, 0.3])
    NOISE.seed(0)
    eps = NOISE.randn(3)
    NOISE.seed(0)
    g = srcgrad.grad(estimate_with_draws)(p)
    np.testing.assert_allclose(g, 2 * (p + eps), rtol=1e-12)


def make_seeded_objective(n):
    def seeded_objective(p):
        rng = np.random.default_rng(5)  # made and seeded in the call: a second run draws the same
        return np.sum((p + rng.normal(size=n)) ** 2)

    return seeded_objective


seeded_objective = make_seeded_objective(3)


def through_seeded(p):
    return seeded_objective(p)


def test_generator_made_in_the_pullback_is_differentiated():
    p = np.array([0.1, 0.2, 0.3])
    eps = np.random.default_rng(5).normal(size=3)
    np.testing.assert_allclose(srcgrad.grad(through_seeded)(p), 2 * (p + eps), rtol=1e-12)


# --- NumPy's concatenating index objects -----------------------------------------------


def joined_by_r(x, a):
    return np.sum(np.r_[a, x, 2.0 * x, 0.5] ** 2 * np.arange(1.0, 9.0))


def padded(x):
    return np.sum(np.r_[x, 0.1] ** 2)


def joined_by_c(m, x):
    return np.sum(np.c_[m, x, 3.0 * x] ** 3 * np.arange(8.0).reshape(2, 4))


def test_index_tricks_holding_differentiated_values_are_differentiated():
    x, a = np.array([0.5, -1.0, 0.25]), 1.5
    w = np.arange(1.0, 9.0)
    joined = np.concatenate([[a], x, 2.0 * x, [0.5]])
    g_x, g_a = srcgrad.grad(joined_by_r, wrt=(0, 1))(x, a)
    expect_x = 2 * joined[1:4] * w[1:4] + 2 * 2.0 * joined[4:7] * w[4:7]  # x and 2x both hold x
    np.testing.assert_allclose(g_x, expect_x, rtol=1e-12)
    np.testing.assert_allclose(g_a, 2 * a * w[0], rtol=1e-12)
    np.testing.assert_allclose(g_x, numerical_grad(joined_by_r, (x, a), 0), rtol=1e-7)
    t = np.array([1.0, -2.0, 0.5])
    (_, tangent) = srcgrad.jvp(joined_by_r, (x, a), (t, 0.0))
    np.testing.assert_allclose(tangent, expect_x @ t, rtol=1e-12)
    # a float32 vector joined with a number literal stays float32, as np.r_ keeps it
    x32 = x.astype(np.float32)
    assert padded(x32).dtype == np.float32
    g32 = srcgrad.grad(padded)(x32)
    assert g32.dtype == np.float32
    np.testing.assert_allclose(g32, 2 * x32, rtol=1e-6)

    m, v = np.array([[0.5, -1.0], [2.0, 0.25]]), np.array([0.3, -0.7])
    keep_m, keep_v = m.copy(), v.copy()
    w2 = np.arange(8.0).reshape(2, 4)  # columns: m[:, 0], m[:, 1], v, 3v
    g_m, g_v = srcgrad.grad(joined_by_c, wrt=(0, 1))(m, v)
    np.testing.assert_allclose(g_m, 3 * m**2 * w2[:, :2], rtol=1e-12)
    np.testing.assert_allclose(g_v, 3 * v**2 * w2[:, 2] + 3 * 27.0 * v**2 * w2[:, 3], rtol=1e-12)
    np.testing.assert_allclose(g_m, numerical_grad(joined_by_c, (m, v), 0), rtol=1e-7)
    np.testing.assert_allclose(g_v, numerical_grad(joined_by_c, (m, v), 1), rtol=1e-7)
    np.testing.assert_array_equal(m, keep_m)
    np.testing.assert_array_equal(v, keep_v)


def ranged_by_r(x):
    return np.sum(np.r_[x, 0:3] ** 2)  # the line the refusal names


def directed_by_r(x):
    return np.sum(np.r_["0,2", x, x] ** 3)


@pytest.mark.parametrize("fn", [ranged_by_r, directed_by_r])
def test_index_tricks_with_ranges_or_directives_stay_refused(fn):
    x = np.array([0.5, -1.0])
    for transform in (lambda v: srcgrad.grad(fn)(v), lambda v: srcgrad.jvp(fn, (v,), (np.ones(2),))):
        with pytest.raises(srcgrad.NotDifferentiableError) as info:
            transform(x)
        assert info.value.filename == __file__ and "np.concatenate" in str(info.value)
        assert info.value.lineno == fn.__code__.co_firstlineno + 1


def joined_constants(x):
    return np.sum(x * np.r_[1.0, 2.0, 3.0]) + np.sum(x[np.r_[0, 2]] ** 2)


def test_index_tricks_of_constants_are_differentiated():
    x = np.array([0.5, -1.0, 2.0])
    expect = np.array([1.0 + 2 * 0.5, 2.0, 3.0 + 2 * 2.0])
    np.testing.assert_allclose(srcgrad.grad(joined_constants)(x), expect, rtol=1e-12)
    np.testing.assert_allclose(numerical_grad(joined_constants, (x,), 0), expect, rtol=1e-7)


if __name__ == "__main__":
    sys.exit(pytest.main([__file__, "-q"]))


# --- second derivatives of logaddexp where its two arguments are equal ------------------


def smooth_max_pair(a, b):
    return np.sum(np.logaddexp(a, b))


def smooth_max_pair_base2(a, b):
    return np.sum(np.logaddexp2(a, b))


@pytest.mark.parametrize("fn, curvature", [
    (smooth_max_pair, 0.25),  # d2/da2 log(e^a + e^b) = s (1 - s), s = 1/2 at a == b
    (smooth_max_pair_base2, np.log(2.0) / 4.0),  # ln 2 s (1 - s) in base 2
])
def test_logaddexp_curvature_where_arguments_tie(fn, curvature):
    a = np.array([0.6, -1.3, 2.0])
    b = np.array([0.6, -1.3, 1.0])  # two ties, one apart
    keep_a, keep_b = a.copy(), b.copy()
    h = srcgrad.hessian(fn)(a, b)
    grad_a = srcgrad.grad(fn)
    fd = np.stack([numerical_grad(lambda v: grad_a(v, b)[k], (a,), 0) for k in range(3)])
    np.testing.assert_allclose(h, fd, atol=1e-7)
    scale = np.log(2.0) if fn is smooth_max_pair_base2 else 1.0
    s = 1.0 / (1.0 + np.exp(-scale * (a - b)))
    np.testing.assert_allclose(np.diag(h), [curvature, curvature, scale * s[2] * (1 - s[2])], rtol=1e-12)
    np.testing.assert_allclose(h - np.diag(np.diag(h)), 0.0, atol=0)
    # infinite ties still share the gradient without nan
    ninf = np.array([-np.inf, 0.5])
    with np.errstate(invalid="ignore"):
        np.testing.assert_array_equal(srcgrad.grad(fn)(ninf, ninf.copy()), [0.5, 0.5])
    np.testing.assert_array_equal(a, keep_a)
    np.testing.assert_array_equal(b, keep_b)


# --- `*` of a call of the user's function that returns a tuple written out --------------


def split_params(p):
    scales = p[:3] * 2.0
    if p[3] > 0:
        return scales, np.sin(p[3:])
    return scales, np.cos(p[3:])


def paired_sum(p):
    total = 0.0
    for s, t in zip(*split_params(p)):
        total = total + s * t
    return total


def multiplied(p):
    return np.sum(np.multiply(*split_params(p)) ** 2)


def test_star_of_a_call_returning_a_written_tuple_is_spelled_out():
    for p in (np.array([0.3, -0.5, 1.2, 0.4, 0.9, -0.2]), np.array([0.3, -0.5, 1.2, -0.4, 0.9, -0.2])):
        keep = p.copy()
        wave, slope = (np.sin, np.cos) if p[3] > 0 else (np.cos, lambda v: -np.sin(v))
        expect = np.concatenate([2.0 * wave(p[3:]), 2.0 * p[:3] * slope(p[3:])])
        g = srcgrad.grad(paired_sum)(p)
        np.testing.assert_allclose(g, expect, rtol=1e-12)
        np.testing.assert_allclose(g, numerical_grad(paired_sum, (p,), 0), rtol=1e-7)
        _, tangent = srcgrad.jvp(paired_sum, (p,), (np.ones(6),))
        np.testing.assert_allclose(tangent, np.sum(expect), rtol=1e-12)
        product = 2.0 * p[:3] * wave(p[3:])
        expect = np.concatenate([2 * product * 2.0 * wave(p[3:]), 2 * product * 2.0 * p[:3] * slope(p[3:])])
        np.testing.assert_allclose(srcgrad.grad(multiplied)(p), expect, rtol=1e-12)
        np.testing.assert_array_equal(p, keep)


def split_unevenly(p):
    if p[0] > 0:
        return p[:2], p[2:]
    return (p,)


def uneven(p):
    return np.sum(np.multiply(*split_unevenly(p)))


def test_star_of_a_call_returning_tuples_of_different_lengths_stays_refused():
    with pytest.raises(srcgrad.SrcGradError, match="cannot see"):
        srcgrad.grad(uneven)(np.array([0.5, 1.0, 2.0, 3.0]))


# --- a helper changing its parameter in place, given a value no one else reads ----------


def smooth_in_place(u):
    u -= 0.5 * np.roll(u, 1)
    return u


def energy_of_temporary(v):
    return np.sum(smooth_in_place(v * 2.0) ** 2)


def energy_of_unread_name(v):
    w = v * 2.0
    out = smooth_in_place(w)
    return np.sum(out ** 2)


def energy_per_step(v):
    total = 0.0
    for k in range(3):
        total = total + np.sum(smooth_in_place(v * (k + 1.0)) ** 2)
    return total


def _smoothing_matrix(n):
    return np.eye(n) - 0.5 * np.roll(np.eye(n), 1, axis=0)  # S @ u == u - 0.5 * np.roll(u, 1)


@pytest.mark.parametrize("fn, scale2", [(energy_of_temporary, 4.0), (energy_of_unread_name, 4.0),
                                        (energy_per_step, 1.0 + 4.0 + 9.0)])
def test_in_place_change_of_a_value_only_the_call_reads(fn, scale2):
    v = np.array([0.3, -0.5, 1.2])
    keep = v.copy()
    s = _smoothing_matrix(3)
    expect = 2.0 * scale2 * s.T @ s @ v  # sum over scales c of |S (c v)|^2
    g = srcgrad.grad(fn)(v)
    np.testing.assert_allclose(g, expect, rtol=1e-12)
    np.testing.assert_allclose(g, numerical_grad(fn, (v,), 0), rtol=1e-7)
    t = np.array([1.0, -2.0, 0.5])
    np.testing.assert_allclose(srcgrad.jvp(fn, (v,), (t,))[1], expect @ t, rtol=1e-12)
    np.testing.assert_allclose(srcgrad.hessian(fn)(v), 2.0 * scale2 * s.T @ s, rtol=1e-12)
    np.testing.assert_array_equal(v, keep)


def energy_read_after(v):
    w = v * 2.0
    out = smooth_in_place(w)
    return np.sum(out ** 2) + np.sum(w)  # reads w changed


def energy_of_argument(v):
    return np.sum(smooth_in_place(v) ** 2)  # changes the caller's v


def energy_made_outside_loop(v):
    w = v * 2.0
    total = 0.0
    for k in range(3):
        total = total + np.sum(smooth_in_place(w))  # each step sees the last one's change
    return total


@pytest.mark.parametrize("fn", [energy_read_after, energy_of_argument, energy_made_outside_loop])
def test_in_place_change_the_caller_can_see_stays_refused(fn):
    with pytest.raises(srcgrad.NotDifferentiableError, match="changes the argument `u` in place"):
        srcgrad.grad(fn)(np.array([0.3, -0.5, 1.2]))
