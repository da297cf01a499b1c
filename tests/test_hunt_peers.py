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
  for a loop's element read after the loop (`for w in ws: ...; return ... w`).
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


if __name__ == "__main__":
    sys.exit(pytest.main([__file__, "-q"]))
