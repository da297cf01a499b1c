"""Loops that call their loop variable over a list known when the derivative is built
(`for layer in self.layers: h = layer(h)`): unrolled once per element (unroll.py), built
again when the list changes, refused at the loop's line where unrolling would change
what the loop means."""

import numpy as np
import pytest

import srcgrad
from conftest import numerical_grad
from program_checks import check, check_hessian

RNG = np.random.default_rng(11)


class Dense:
    def __init__(self, n, m, act=np.tanh):
        self.W = RNG.normal(size=(n, m)) * 0.5
        self.b = RNG.normal(size=m)
        self.act = act

    def __call__(self, x):
        return self.act(x @ self.W + self.b)


class Scale:
    def __init__(self, c):
        self.c = c

    def forward(self, x):
        return self.c * x


class Net:
    def __init__(self):
        self.layers = [Dense(3, 4), Dense(4, 4, np.sin), Dense(4, 2)]
        self.heads = (Scale(2.0), Scale(-0.5))

    def loss(self, x):
        h = x
        for layer in self.layers:
            h = layer(h)
        return np.sum(h * h)

    def weighted(self, x):
        total = 0.0
        for i, head in enumerate(self.heads):
            total = total + (i + 1.0) * np.sum(head.forward(x) ** 2)
        return total

    def sliced(self, x):
        for layer in self.layers[1:]:  # a new list, made when the function runs
            x = layer(x)
        return np.sum(x)

    def last_layer(self, x):
        for layer in self.layers:
            x = layer(x)
        return np.sum(x) + np.sum(layer.b)


def _forward(layers, x):
    """Each layer's input and pre-activation, and the output."""
    seen = []
    for layer in layers:
        z = x @ layer.W + layer.b
        seen.append((x, z, layer))
        x = layer.act(z)
    return seen, x


def _loss_grad(layers, x):
    """The analytic gradient of sum(h * h) through `layers`."""
    seen, h = _forward(layers, x)
    g = 2.0 * h
    for _, z, layer in reversed(seen):
        slope = 1.0 - np.tanh(z) ** 2 if layer.act is np.tanh else np.cos(z)
        g = (g * slope) @ layer.W.T
    return g


def test_a_loop_over_an_objects_layers_is_unrolled_in_both_modes():
    net, x = Net(), RNG.normal(size=(5, 3))
    check(net.loss, x, expected=[_loss_grad(net.layers, x)])
    text = srcgrad.source(srcgrad.grad(net.loss))
    assert "layer_0.W" in text and "layer_2.W" in text and "for layer in" not in text  # calls spliced


def test_unrolled_calls_that_stay_calls_call_each_element(calls_kept):
    net, x = Net(), RNG.normal(size=(5, 3))
    check(net.loss, x, expected=[_loss_grad(net.layers, x)])
    text = srcgrad.source(srcgrad.grad(net.loss))
    assert "layer_0(" in text and "layer_2(" in text and "for layer in" not in text


def test_the_hessian_through_unrolled_calls():
    net = Net()
    check_hessian(net.loss, [RNG.normal(size=3)], 0)


def test_enumerate_gives_constant_indices_and_methods_of_the_elements_are_followed():
    net, x = Net(), RNG.normal(size=4)
    check(net.weighted, x, expected=[2 * 4.0 * x + 2 * 2 * 0.25 * x])


def test_the_derivative_is_built_again_when_the_list_changes():
    net, x = Net(), RNG.normal(size=(2, 3))
    d = srcgrad.grad(net.loss)
    np.testing.assert_allclose(d(x), _loss_grad(net.layers, x), rtol=1e-12)
    net.layers.append(Dense(2, 2, np.sin))  # the same list, one element more
    np.testing.assert_allclose(d(x), _loss_grad(net.layers, x), rtol=1e-12)
    net.layers[0] = Dense(3, 4, np.sin)  # an element replaced
    np.testing.assert_allclose(d(x), _loss_grad(net.layers, x), rtol=1e-12)
    net.layers = net.layers[:2]  # the attribute rebound
    np.testing.assert_allclose(d(x), _loss_grad(net.layers, x), rtol=1e-12)
    net.layers[1].W = net.layers[1].W * 2.0  # an element's attribute: read when the derivative runs
    np.testing.assert_allclose(d(x), _loss_grad(net.layers, x), rtol=1e-12)
    np.testing.assert_allclose(d(x), numerical_grad(net.loss, [x], 0), rtol=1e-6, atol=1e-8)


def test_a_loop_variable_read_after_the_loop_holds_the_last_element():
    net, x = Net(), RNG.normal(size=3)
    np.testing.assert_allclose(srcgrad.grad(net.last_layer)(x), _loss_grad_sum(net.layers, x), rtol=1e-12)


def _loss_grad_sum(layers, x):
    seen, h = _forward(layers, x)
    g = np.ones_like(h)
    for _, z, layer in reversed(seen):
        slope = 1.0 - np.tanh(z) ** 2 if layer.act is np.tanh else np.cos(z)
        g = (g * slope) @ layer.W.T
    return g


ACTIVATIONS = [np.tanh, np.sin, np.exp]
STAGES = ((2.0, np.sin), (0.5, np.cos))


def chain(x):
    for act in ACTIVATIONS:
        x = act(x) * 0.5
    return np.sum(x)


def stages(x):
    total = 0.0
    for scale, f in STAGES:
        total = total + f(scale * x)
    for i, f in enumerate(reversed(ACTIVATIONS)):
        total = total + i * f(x)
    return total


WEIGHTS = [np.eye(2) * 0.5, np.array([[1.0, -0.5], [0.25, 2.0]])]
SPEC = ((WEIGHTS[0], np.tanh), (WEIGHTS[1], np.sin))


def array_methods(h):
    for W in WEIGHTS:  # no call of `W` itself: a loop over arrays, not unrolled
        h = np.tanh(W.dot(h))
    for W, act in SPEC:  # `act` is called: unrolled, `W` assigned each element's array
        h = act(W.dot(h)) + W[0, 0]
    return np.sum(h)


def _array_methods_grad(h):
    slopes = []
    for W in WEIGHTS:
        h = np.tanh(W @ h)
        slopes.append((W, 1.0 - h * h))
    for W, act in SPEC:
        z = W @ h
        slopes.append((W, 1.0 - np.tanh(z) ** 2 if act is np.tanh else np.cos(z)))
        h = act(z) + W[0, 0]
    g = np.ones_like(h)
    for W, slope in reversed(slopes):
        g = W.T @ (g * slope)
    return g


def empty(x):
    for act in EMPTY:
        x = act(x)
    return x * 3.0


EMPTY = []


def test_module_lists_of_functions_tuple_targets_reversed_and_an_empty_list():
    x = 0.3
    a = np.tanh(x) * 0.5
    b = np.sin(a) * 0.5
    expected = 0.5 * np.exp(b) * 0.5 * np.cos(a) * 0.5 * (1 - np.tanh(x) ** 2)
    check(chain, x, expected=[expected])
    check(stages, x, expected=[2 * np.cos(2 * x) - 0.5 * np.sin(0.5 * x) + np.cos(x) + 2 * (1 - np.tanh(x) ** 2)])
    check_hessian(stages, [x], 0)
    check(empty, x, expected=[3.0])


def over_a_display(x):
    y = 0.0
    for act in (np.sin, np.cos):
        y = y + act(x)
    for k, act in enumerate([np.exp, np.tanh]):
        y = y + (k + 1.0) * act(0.5 * x)
    return y


def _relu(v):
    return np.maximum(v, 0.0)


def mlp_over_a_display(x, W1, W2):
    h = x
    for W, act, scale in ((W1, np.tanh, 1.0), (W2, _relu, 0.5)):
        h = scale * act(h @ W)
    return np.sum(h)


def display_assigned_in_the_body(x, w):
    for act, k in ((np.sin, w), (np.cos, w)):
        x = act(x) * k
        w = w * 2.0
    return x


def test_a_loop_over_a_tuple_written_in_it_unrolls_reading_each_element_as_written():
    """`for act in (np.sin, np.cos)` was refused ("`(np.sin, np.cos)` is not one")."""
    x = 0.3
    check(over_a_display, x, expected=[np.cos(x) - np.sin(x) + 0.5 * np.exp(0.5 * x)
                                        + 2.0 * 0.5 * (1.0 - np.tanh(0.5 * x) ** 2)])
    check_hessian(over_a_display, [x], 0)
    rng = np.random.default_rng(4)
    x, W1, W2 = rng.normal(size=3), rng.normal(size=(3, 4)), rng.normal(size=(4, 2))
    h1 = np.tanh(x @ W1)
    z2 = h1 @ W2
    dz2 = 0.5 * (z2 > 0.0)
    dh1 = W2 @ dz2
    dz1 = dh1 * (1.0 - h1 * h1)
    check(mlp_over_a_display, x, W1, W2, expected=[W1 @ dz1, np.outer(x, dz1), np.outer(h1, dz2)])
    text = srcgrad.source(srcgrad.grad(mlp_over_a_display, wrt=(0, 1, 2)))
    assert "np.tanh(h_at_W)" in text and "W = W1" not in text and "x @ W1" in text
    with pytest.raises(srcgrad.NotDifferentiableError, match="calls its loop variable `act`.*is not one"):
        srcgrad.grad(display_assigned_in_the_body)(0.3, 0.7)  # `k` would read the new `w`


def test_loop_variables_that_are_not_called_stay_variables():
    h = np.array([0.3, -0.7])
    check(array_methods, h, expected=[_array_methods_grad(h)])
    text = srcgrad.source(srcgrad.grad(array_methods))
    assert "for W in WEIGHTS:" in text and "W_0.dot(h)" in text and "W_1.dot(h_1)" in text
    assert "`W_0` is a `numpy.ndarray`; `W_1` is a `numpy.ndarray`." in text  # one line each, no array text


def test_a_module_list_changed_later_rebuilds_the_derivative():
    d = srcgrad.grad(chain)
    before = d(0.2)
    ACTIVATIONS.append(np.sin)
    try:
        np.testing.assert_allclose(d(0.2), numerical_grad(chain, [0.2], 0), rtol=1e-6)
        assert d(0.2) != before
    finally:
        ACTIVATIONS.pop()
    assert d(0.2) == before


def breaks(x):
    for act in ACTIVATIONS:
        if x > 1.0:
            break
        x = act(x)
    return x


def with_else(x):
    for act in ACTIVATIONS:
        x = act(x)
    else:
        x = x * 2.0
    return x


def rebinds(x):
    for act in ACTIVATIONS:
        x = act(x)
        act = np.cos
    return x


def grows(x):
    for act in ACTIVATIONS:
        x = act(x)
    ACTIVATIONS.append(np.cos)
    return x


LONG = [np.sin] * 65


def too_long(x):
    for act in LONG:
        x = act(x)
    return x


def bad_pairs(x):
    for scale, f in ACTIVATIONS:
        x = f(scale * x)
    return x


@pytest.mark.parametrize("fn, message", [
    (breaks, "so its body cannot `break`"),
    (with_else, "so it cannot have an `else:` block"),
    (rebinds, "so the body cannot assign the loop variable `act`"),
    (too_long, "has 65 elements"),
    (grows, "`ACTIVATIONS` is changed in `grows`, which unrolls the loop over it at line"),
    (bad_pairs, r"`ACTIVATIONS\[0\]` does not unpack into `\(scale, f\)`"),
])
def test_what_unrolling_would_change_is_refused_at_the_loop(fn, message):
    with pytest.raises(srcgrad.NotDifferentiableError, match=message) as info:
        srcgrad.grad(fn)(0.5)
    assert info.value.filename == __file__
    assert fn.__code__.co_firstlineno < info.value.lineno <= fn.__code__.co_firstlineno + 4


def test_a_loop_over_a_list_made_when_the_function_runs_is_refused_with_the_way_out():
    def local(x):
        acts = [np.sin, np.cos]
        for act in acts:
            x = act(x)
        return x

    with pytest.raises(srcgrad.NotDifferentiableError, match="calls its loop variable `act`.*`acts` is not one"):
        srcgrad.grad(local)(0.5)
    with pytest.raises(srcgrad.NotDifferentiableError, match=r"calls its loop variable `layer`.*`self.layers\[1:\]` is not one"):
        srcgrad.grad(Net().sliced)(np.ones(4))
