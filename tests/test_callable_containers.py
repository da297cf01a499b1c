"""Lists, tuples and dicts of callables passed as arguments (function_arguments.py,
compiler/passed_containers.py): the derivative is made for the identity of the callables
the container holds and their number, loops over it unrolled, so other functions, another
length or a list changed in place at a later call give that call's gradient; and a bound
method passed whose method calls its instance's methods (compiler/passed_callables.py)."""

import functools

import numpy as np
import pytest

import srcgrad
from conftest import numerical_grad
from program_checks import check_hessian

X = np.array([0.5, -1.0, 2.0])


def relu(v):
    return np.maximum(v, 0.0)


def scaled(v, k=1.0):
    return k * np.tanh(v)


square = lambda v: v * v  # noqa: E731


class Scale:
    def __init__(self, s):
        self.s = s

    def helper(self, v):
        return self.s * v

    def __call__(self, v):
        return np.sin(self.helper(v))

    def forward(self, v):
        return self.helper(v) ** 2


def dtanh(v):
    return 1.0 - np.tanh(v) ** 2


def check_all(fn, args, expected):
    """The gradient with respect to the first argument against central differences and
    `expected`, from the first and the second call, `value_and_grad`, `jvp` against it,
    `vjp`'s pullback, `jacobian` in both modes, the Hessian against differences of the
    gradient, and the arguments left as they were."""
    before = [list(a) if type(a) is list else dict(a) if type(a) is dict else a for a in args[1:]]
    gradient = srcgrad.grad(fn)
    g = gradient(*args)
    np.testing.assert_allclose(g, numerical_grad(fn, args, 0), rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(g, expected, rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(gradient(*args), g)
    value, g2 = srcgrad.value_and_grad(fn)(*args)
    assert value == fn(*args)
    np.testing.assert_array_equal(g2, g)
    tangent = np.array([0.3, -0.7, 1.1])
    out, out_dot = srcgrad.jvp(fn, args, (tangent,) + (None,) * (len(args) - 1))
    assert out == fn(*args)
    np.testing.assert_allclose(out_dot, g @ tangent, rtol=1e-12)
    out, pullback = srcgrad.vjp(fn, *args)
    assert out == fn(*args)
    pulled = pullback(1.0)
    np.testing.assert_allclose(pulled[0], g, rtol=1e-12)
    assert pulled[1] is None or len(args[1]) == 0  # a container of functions has no gradient (an empty list: [])
    for mode in ("forward", "reverse"):
        np.testing.assert_allclose(srcgrad.jacobian(fn, mode=mode)(*args), g, rtol=1e-12)
    check_hessian(fn, args, 0)
    assert before == list(args[1:])
    return gradient


def net(x, layers):
    h = x
    for layer in layers:
        h = layer(h)
    return np.sum(h)


def test_a_list_of_functions_is_unrolled_over_its_elements_in_every_transform():
    t = np.tanh(X)
    expected = np.cos(relu(t)) * (t > 0) * (1 - t ** 2)
    gradient = check_all(net, (X, [np.tanh, relu, np.sin]), expected)
    text = srcgrad.source(gradient)
    assert "(layers = [np.tanh, relu, np.sin])" in text
    assert "h_1 = tanh(x)" in text and "h_2 = np.maximum(h_1, 0.0)" in text and "h_3 = sin(h_2)" in text  # relu inlined
    assert "layers[" not in text and "for " not in text
    # a tuple, a lambda of the module, a partial, callable objects and bound methods
    check_all(net, (X, (np.tanh, square)), 2 * np.tanh(X) * dtanh(X))
    check_all(net, (X, [functools.partial(scaled, k=2.0), np.sin]), np.cos(2 * np.tanh(X)) * 2 * dtanh(X))
    check_all(net, (X, [Scale(2.0), Scale(3.0).forward]), 2 * 9 * np.sin(2 * X) * np.cos(2 * X) * 2)
    check_all(net, (X, []), np.ones(3))


def test_other_callables_or_another_length_at_a_later_call_get_their_own_gradient():
    gradient = srcgrad.grad(net)
    np.testing.assert_allclose(gradient(X, [np.tanh, np.sin]), np.cos(np.tanh(X)) * dtanh(X), rtol=1e-14)
    np.testing.assert_allclose(gradient(X, [np.cos]), -np.sin(X), rtol=1e-14)
    np.testing.assert_allclose(gradient(X, (np.sin, square, np.exp)),
                               np.exp(np.sin(X) ** 2) * 2 * np.sin(X) * np.cos(X), rtol=1e-13)
    np.testing.assert_allclose(gradient(X, [np.tanh, np.sin]), np.cos(np.tanh(X)) * dtanh(X), rtol=1e-14)
    # a partial's values and an instance's attributes are read at each call
    np.testing.assert_allclose(gradient(X, [functools.partial(scaled, k=3.0)]), 3 * dtanh(X), rtol=1e-14)
    layer = Scale(2.0)
    np.testing.assert_allclose(gradient(X, [layer]), 2 * np.cos(2 * X), rtol=1e-14)
    layer.s = 5.0
    np.testing.assert_allclose(gradient(X, [layer]), 5 * np.cos(5 * X), rtol=1e-14)
    assert "layers = [np.tanh, np.sin]" in srcgrad.source(gradient) or "layers = [a Scale]" in srcgrad.source(gradient)


def test_a_list_changed_in_place_between_calls_gives_the_new_gradient():
    layers = [np.tanh, np.sin]
    gradient, tangent = srcgrad.grad(net), np.ones(3)
    np.testing.assert_allclose(gradient(X, layers), np.cos(np.tanh(X)) * dtanh(X), rtol=1e-14)
    layers[1] = np.exp
    np.testing.assert_allclose(gradient(X, layers), np.exp(np.tanh(X)) * dtanh(X), rtol=1e-14)
    np.testing.assert_allclose(srcgrad.jvp(net, (X, layers), (tangent, None))[1],
                               np.sum(np.exp(np.tanh(X)) * dtanh(X)), rtol=1e-14)
    layers.append(np.sin)
    expected = np.cos(np.exp(np.tanh(X))) * np.exp(np.tanh(X)) * dtanh(X)
    np.testing.assert_allclose(gradient(X, layers), expected, rtol=1e-14)
    np.testing.assert_allclose(srcgrad.jvp(net, (X, layers), (tangent, None))[1], np.sum(expected), rtol=1e-14)
    assert "(layers = [np.tanh, np.exp, np.sin])" in srcgrad.source(gradient)


def enumerated(x, layers):
    h = 0.0
    for i, f in enumerate(layers):
        h = h + (i + 1) * f(x)
    return np.sum(h)


def zipped(x, layers, weights):
    h = x
    for f, w in zip(layers, weights):
        h = w * f(h)
    return np.sum(h)


def indexed(x, layers):
    return np.sum(layers[0](x) * layers[-1](x)) / len(layers)


def reversed_tail(x, layers):
    h = x
    for f in reversed(layers[1:]):
        h = f(h)
    return np.sum(h)


def summed(x, layers):
    return np.sum([f(x) for f in layers]) + sum(np.sum(f(2.0 * x)) for f in layers)


def by_position(x, layers):
    h = x
    for i in range(len(layers)):
        h = (i + 1) * layers[i](h)
    return np.sum(h)


def by_key(x, acts):
    t = 0.0
    for k in acts:
        t = t + len(k) * acts[k](x)
    return np.sum(t)


def test_loops_over_positions_and_keys_reading_the_elements():
    check_all(by_position, (X, [np.tanh, np.sin]), 2 * np.cos(np.tanh(X)) * dtanh(X))
    check_all(by_key, (X, {"a": np.tanh, "bb": np.sin}), dtanh(X) + 2 * np.cos(X))


def test_enumerate_zip_reversed_slices_indexes_len_and_comprehensions():
    check_all(enumerated, (X, [np.tanh, relu]), dtanh(X) + 2 * (X > 0))
    check_all(zipped, (X, [np.tanh, np.sin], [2.0, 3.0]), 3 * np.cos(2 * np.tanh(X)) * 2 * dtanh(X))
    check_all(zipped, (X, (np.sin,), np.array([2.0, 3.0])), 2 * np.cos(X))  # zip stops at the shorter
    check_all(indexed, (X, [np.tanh, relu, np.sin]), (dtanh(X) * np.sin(X) + np.tanh(X) * np.cos(X)) / 3)
    check_all(reversed_tail, (X, [np.tanh, np.exp, np.sin]), np.exp(np.sin(X)) * np.cos(X))
    check_all(summed, (X, [np.tanh, np.sin]), dtanh(X) + np.cos(X) + 2 * dtanh(2 * X) + 2 * np.cos(2 * X))
    # the weights zipped with the functions are differentiated, read by index
    g_x, g_w = srcgrad.grad(zipped, wrt=(0, 2))(X, [np.tanh, np.sin], [2.0, 3.0])
    inner = np.tanh(X)
    np.testing.assert_allclose(g_w, [np.sum(3 * np.cos(2 * inner) * inner), np.sum(np.sin(2 * inner))], rtol=1e-14)


def zipped_with_computed(x, layers):
    h = np.sum(x) * 0.3
    for f, w in zip(layers, np.cos(x) * 2.0):
        h = w * f(h)
    return h


def zipped_with_a_display(x, layers):
    a = x[0]
    for f, t in zip(layers, [np.sin(x[1]), a]):  # the display is made once, before the loop: `a` is x[0]
        a = np.tanh(a + t * f(a))
    return a


def test_zip_with_a_computed_sequence_or_a_display_the_body_changes():
    # both were refused as "calls its loop variable": zip's argument is assigned to a name
    # before the loop (as Python computes it) and read by index
    w, h0 = 2.0 * np.cos(X), 0.3 * np.sum(X)
    h1 = w[0] * np.sin(h0)
    expected = w[1] * dtanh(h1) * (w[0] * np.cos(h0) * 0.3 - 2.0 * np.sin(X[0]) * np.sin(h0) * np.eye(3)[0])
    expected[1] += np.tanh(h1) * -2.0 * np.sin(X[1])
    check_all(zipped_with_computed, (X, [np.sin, np.tanh]), expected)
    a0, t0 = X[0], np.sin(X[1])
    a1 = np.tanh(a0 + t0 * np.sin(a0))
    a2 = np.tanh(a1 + a0 * np.tanh(a1))
    da1 = (1 - a1 ** 2) * ((1 + t0 * np.cos(a0)) * np.eye(3)[0] + np.sin(a0) * np.cos(X[1]) * np.eye(3)[1])
    expected = (1 - a2 ** 2) * ((1 + a0 * dtanh(a1)) * da1 + np.tanh(a1) * np.eye(3)[0])
    check_all(zipped_with_a_display, (X, [np.sin, np.tanh]), expected)


def zipped_with_methods_and_ranges(x, layers):
    h = 0.3
    m = np.outer(x, x)
    for f, w in zip(layers, (m * 2.0).sum(axis=0)):
        h = w * f(h)
    for f, row in zip(layers, m.T):
        h = h + np.sum(row * f(x))
    for f, k in zip(layers, range(5)):
        h = h + k * f(h)
    for f, w in zip(layers, m[:, 1]):
        h = h + w * f(h)
    for f, w in zip(layers, np.mean(m, axis=1)):  # `np.mean` is a NumPy function, not a method
        h = h + w * f(h)
    for f, w in zip(layers, (np.eye(3) * h)[np.arange(3), [1, 2, 0]]):  # made with the h before the loop
        h = np.tanh(h + w * f(h))
    return h


def test_zip_with_an_arrays_method_its_transpose_or_a_range():
    layers = [np.sin, np.tanh]
    g = srcgrad.grad(zipped_with_methods_and_ranges)(X, layers)
    np.testing.assert_allclose(g, numerical_grad(zipped_with_methods_and_ranges, (X, layers), 0), rtol=1e-6, atol=1e-8)
    _, tangent = srcgrad.jvp(zipped_with_methods_and_ranges, (X, layers), (np.ones(3), None))
    assert tangent == pytest.approx(np.sum(g), rel=1e-12)
    check_hessian(zipped_with_methods_and_ranges, (X, layers), 0)


def test_zip_stops_at_weights_shorter_than_the_functions():
    # was an IndexError from the generated code (`w_2 = weights[2]`): the unrolled copies
    # past the shorter argument's length do not run
    gradient = check_all(zipped, (X, [np.sin, np.tanh, np.cos], [2.0, 3.0]), 3 * dtanh(2 * np.sin(X)) * 2 * np.cos(X))
    np.testing.assert_allclose(gradient(X, [np.sin, np.tanh, np.cos], [2.0, 3.0, 4.0]),
                               -4 * np.sin(3 * np.tanh(2 * np.sin(X))) * 3 * dtanh(2 * np.sin(X)) * 2 * np.cos(X),
                               rtol=1e-13)
    np.testing.assert_array_equal(gradient(X, [np.sin, np.tanh, np.cos], []), np.ones(3))  # no turn: h is x


def mlp(x, weights, acts):
    h = x
    for W, act in zip(weights, acts):
        h = act(W @ h)
    return np.sum(h)


def test_a_layer_list_zipped_with_a_list_of_weight_matrices():
    W1, W2 = np.array([[1.0, 0.5, 0.0], [0.0, 1.0, -1.0]]), np.array([[0.3, -0.2]])
    g_x, (g_1, g_2) = srcgrad.grad(mlp, wrt=(0, 1))(X, [W1, W2], (np.tanh, np.sin))
    a = W1 @ X
    d = np.cos(W2 @ np.tanh(a))
    np.testing.assert_allclose(g_2, np.outer(d, np.tanh(a)), rtol=1e-14)
    np.testing.assert_allclose(g_1, np.outer((W2.T @ d) * dtanh(a), X), rtol=1e-14)
    np.testing.assert_allclose(g_x, W1.T @ ((W2.T @ d) * dtanh(a)), rtol=1e-14)


def dict_of(x, acts):
    return np.sum(acts["a"](x) * acts["b"](x))


def items(x, acts):
    t = 0.0
    for name, f in acts.items():
        t = t + f(x)
    return np.sum(t * acts["a"](x))


def test_a_dict_of_functions_read_by_constant_keys_and_items():
    gradient = check_all(dict_of, (X, {"a": np.tanh, "b": relu}), dtanh(X) * relu(X) + np.tanh(X) * (X > 0))
    assert "acts = {'a': np.tanh, 'b': relu}" in srcgrad.source(gradient)
    np.testing.assert_allclose(gradient(X, {"a": np.sin, "b": np.cos}), np.cos(2 * X), rtol=1e-14)
    check_all(items, (X, {"a": np.tanh, "b": np.sin}),
              (dtanh(X) + np.cos(X)) * np.tanh(X) + (np.tanh(X) + np.sin(X)) * dtanh(X))


def apply_all(layers, h):
    for layer in layers:
        h = layer(h)
    return h


def handed_on(x, layers):
    return np.sum(apply_all(layers, x) ** 2)


def forwards(x, layers):
    h = x
    for layer in layers:
        h = layer.forward(h)
    return np.sum(h)


def test_a_container_handed_on_to_a_function_and_its_objects_methods():
    check_all(handed_on, (X, [np.sin, np.tanh]), 2 * np.tanh(np.sin(X)) * dtanh(np.sin(X)) * np.cos(X))
    check_all(forwards, (X, [Scale(2.0), Scale(0.5)]), 4 * (0.5 * 2) ** 2 * X ** 3 * 4)


def test_a_bound_method_calling_its_instances_methods():
    def bm(x, fn):
        return np.sum(fn(x))

    layer = Scale(2.0)
    check_all(bm, (X, layer.__call__), 2 * np.cos(2 * X))
    layer.s = 3.0
    np.testing.assert_allclose(srcgrad.grad(bm)(X, layer.__call__), 3 * np.cos(3 * X), rtol=1e-14)
    check_all(bm, (X, layer.forward), 2 * 9 * X)


def comprehension_with_a_condition(x, layers):
    return np.sum([f(x) for f in layers if f is not None])


def by_variable(x, layers, k):
    return np.sum(layers[k](x))


def stops_early(x, layers):
    h = x
    for layer in layers:
        h = layer(h)
        if np.sum(h) > 100.0:
            break
    return np.sum(h)


def test_what_is_refused_says_why_at_the_line():
    cases = [
        (net, (X, [np.tanh, 2.0]), "`net` reads its parameter `layers`, which holds a list mixing callables with other "
         "values (its element 1 is a float); srcgrad specializes the derivative to the functions such a container holds"),
        (net, (X, [np.tanh, functools.partial(np.power, x2=2.0)]), "which holds a list of callables, where its element "
         "1 is a functools.partial of `np.power`"),
        (by_variable, (X, [np.tanh, relu], 1), "`layers[...]` reads an element by an index that is not an integer "
         "constant within its 2 elements"),
        (dict_of, (X, {"a": np.tanh}), "`acts[...]` reads an entry by a key srcgrad does not find in it at build time"),
        (comprehension_with_a_condition, (X, [np.tanh]), "uses it otherwise; srcgrad reads such a container only as"),
        (stops_early, (X, [np.tanh]), "srcgrad unrolls `for ... in layers` because its body calls a loop variable, and "
         "so its body cannot `break`"),
    ]
    for fn, args, message in cases:
        with pytest.raises(srcgrad.NotDifferentiableError) as info:
            srcgrad.grad(fn)(*args)
        assert message in str(info.value)
        assert info.value.filename.endswith("test_callable_containers.py")
    with pytest.raises(TypeError, match=r"with respect to `layers\[0\]`: it is a function \(tanh\)"):
        srcgrad.grad(net, wrt=1)(X, [np.tanh])
