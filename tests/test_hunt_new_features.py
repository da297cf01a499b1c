"""Regressions from a hunt for wrong derivatives in functions passed as arguments, methods
of record arguments, containers of arrays and choices between functions: each compared
with central differences and an answer derived by hand."""

import dataclasses
import functools
import types

import numpy as np
import pytest

import srcgrad
from conftest import numerical_grad

X = np.array([0.3, -0.7, 1.1])
W = np.array([0.5, 1.5, -0.3])


@dataclasses.dataclass
class Layer:
    w: np.ndarray
    b: float

    def apply(self, x):
        return np.tanh(self.w * x) + self.b


def layer_loss(x, p):
    return np.sum(p.apply(x) ** 2)


def test_an_attribute_set_on_a_later_instance_is_refused_by_a_warm_derivative():
    # the check of an instance's own attributes ran once per kind of call: a later record
    # of the same class whose `apply` was set on the instance got the class's derivative
    g = srcgrad.grad(layer_loss)
    p = Layer(W, 0.2)
    t = np.tanh(W * X)
    expected = 2 * (t + 0.2) * (1 - t * t) * W
    assert np.allclose(g(X, p), expected)
    assert np.allclose(g(X, p), numerical_grad(layer_loss, (X, p), 0), atol=1e-6)
    shadowed = Layer(W, 0.2)
    shadowed.apply = lambda x: x ** 2
    assert np.allclose(numerical_grad(layer_loss, (X, shadowed), 0), 4 * X ** 3, atol=1e-5)
    with pytest.raises(srcgrad.NotDifferentiableError, match="attribute `apply` of its own"):
        g(X, shadowed)
    assert np.allclose(g(X, p), expected)  # the class's own records still run


# Entries of one list or dict sharing memory: NumPy runs `rows[0] += v` in place on the
# array rows[0], so an entry sharing its memory changes too; srcgrad compiles it as
# `rows[0] = rows[0] + v`, and gave the gradient of the unchanged entry.


def same_entry_twice(x):
    y = x * 1.0
    rows = [y, y]
    rows[0] += 1.0
    return np.sum(rows[1] * x)


def view_in_dict(x):
    y = x * 1.0
    d = {"a": y, "b": y[1:]}
    d["b"] *= 2.0
    return np.sum(d["a"] * x)


def appended_twice(x):
    y = x * 1.0
    rows = []
    for _ in range(2):
        rows.append(y)
    rows[0] += 1.0
    return np.sum(rows[1] * x)


def repeated_list(x):
    y = x * 1.0
    rows = list((y, y))
    rows[0] *= 2.0
    return np.sum(rows[1] * x)


def row_and_column(x):
    M = np.outer(x, x)
    rows = [M[0], M[:, 0]]
    rows[0] *= 2.0
    return np.sum(rows[1] * x)


def repeated_zeros(x):
    rows = [np.zeros(3)] * 2  # one array, twice
    rows[0] += x
    return np.sum(rows[1] * x)


def extended_by_itself(x):
    y = x * 1.0
    rows = [y]
    rows += [y]
    rows[0] += 1.0
    return np.sum(rows[1] * x)


def inserted_twice(x):
    y = x * 1.0
    rows = [y]
    rows.insert(0, y)
    rows[0] += 1.0
    return np.sum(rows[1] * x)


def doubled_in_place(x):
    y = x * 1.0
    rows = [y]
    rows *= 2
    rows[0] += 1.0
    return np.sum(rows[1] * x)


def updated_with_the_same(x):
    y = x * 1.0
    d = {"a": y}
    d.update({"b": y})
    d["a"] += 1.0
    return np.sum(d["b"] * x)


def mapped_twice(x):
    y = x * 1.0
    rows = list(map(lambda r: r, [y, y]))
    rows[0] += 1.0
    return np.sum(rows[1] * x)


def annotated_twice(x):
    y = x * 1.0
    rows: list = [y, y]
    rows[0] += 1.0
    return np.sum(rows[1] * x)


@pytest.mark.parametrize("fn, expected", [
    (repeated_zeros, lambda x: 2 * x),                            # sum(x * x); was 0
    (annotated_twice, lambda x: 2 * x + 1.0),
    (mapped_twice, lambda x: 2 * x + 1.0),
    (extended_by_itself, lambda x: 2 * x + 1.0),
    (inserted_twice, lambda x: 2 * x + 1.0),
    (doubled_in_place, lambda x: 2 * x + 1.0),
    (updated_with_the_same, lambda x: 2 * x + 1.0),
    (same_entry_twice, lambda x: 2 * x + 1.0),                     # sum((x + 1) * x)
    (view_in_dict, lambda x: 2 * x * np.r_[1.0, 2.0, 2.0]),         # the tail doubled
    (appended_twice, lambda x: 2 * x + 1.0),
    (repeated_list, lambda x: 4 * x),                              # sum(2 x * x)
])
def test_a_change_in_place_of_an_entry_sharing_memory_with_another_is_refused(fn, expected):
    x = X.copy()
    assert np.allclose(numerical_grad(fn, (x,), 0), expected(x), atol=1e-6)
    with pytest.raises(srcgrad.NotDifferentiableError, match="entries may share memory with each other"):
        srcgrad.grad(fn)(x)


def test_a_row_and_a_column_of_one_matrix_in_a_list_are_refused():
    # M[0, 0] lies in both: doubling the row doubles the column's first entry, so the
    # value is 2 x0^3 + x0 (x1^2 + x2^2)
    x = X.copy()
    expected = np.r_[6 * x[0] ** 2 + x[1] ** 2 + x[2] ** 2, 2 * x[0] * x[1:]]
    assert np.allclose(numerical_grad(row_and_column, (x,), 0), expected, atol=1e-6)
    with pytest.raises(srcgrad.NotDifferentiableError, match="entries may share memory with each other"):
        srcgrad.grad(row_and_column)(x)


def distinct_entries(x):
    rows = [x * 1.0, x * 2.0]
    rows[0] -= -x
    for k in range(2):
        rows[k] *= 3.0
    return np.sum(rows[0] * rows[1])


def same_number_twice(x):
    s = x[0] * 1.0
    rows = [s, s]
    rows[0] += x[1]
    return rows[0] * rows[1]


def test_entries_that_are_new_arrays_or_numbers_still_change_in_place():
    x = X.copy()
    assert np.allclose(srcgrad.grad(distinct_entries)(x), 72 * x)  # sum(6x * 6x) = 36 sum(x^2)
    expected = np.r_[2 * x[0] + x[1], x[0], 0.0]  # (x0 + x1) x0
    assert np.allclose(srcgrad.grad(same_number_twice)(x), expected)
    assert np.allclose(numerical_grad(same_number_twice, (x,), 0), expected, atol=1e-6)


def relu(z):
    return np.maximum(z, 0.0)


def chosen_from_a_parameter(x, f, smooth=True):
    act = f if smooth else relu
    return np.sum(act(x) ** 2)


def test_a_choice_between_a_passed_function_and_another_is_made_per_call():
    # `f` was not seen as called (only the choice's name is), so the derivative was
    # refused when made, as if no function had been passed
    g = srcgrad.grad(chosen_from_a_parameter)
    x = X.copy()
    assert np.allclose(g(x, np.sin), 2 * np.sin(x) * np.cos(x))
    assert np.allclose(g(x, np.tanh), 2 * np.tanh(x) * (1 - np.tanh(x) ** 2))
    assert np.allclose(g(x, np.sin, False), 2 * np.maximum(x, 0.0))
    for f, smooth in [(np.sin, True), (np.tanh, False)]:
        assert np.allclose(g(x, f, smooth), numerical_grad(chosen_from_a_parameter, (x, f, smooth), 0), atol=1e-6)


def squared(z, k=1.0):
    return k * z * z


@dataclasses.dataclass
class Activated:
    w: np.ndarray
    act: object = squared  # a field whose default, a `def`, is a class attribute too

    def apply(self, x):
        return self.act(self.w * x)


def activated_loss(x, p):
    return np.sum(p.apply(x))


def test_a_function_held_in_a_record_field_is_refused_not_called_as_a_method():
    # the field's default was taken for a method: `squared(p, p.w * x)`, a bare TypeError
    # here, and another function's numbers for an instance holding np.sin
    x = X.copy()
    assert np.allclose(numerical_grad(activated_loss, (x, Activated(W)), 0), 2 * W * W * x, atol=1e-5)
    for p in (Activated(W), Activated(W, np.sin)):
        with pytest.raises(srcgrad.NotDifferentiableError, match="`act` is a field of Activated"):
            srcgrad.grad(activated_loss)(x, p)


def keyword_only_layer_loss(x, *, p):
    return np.sum(p.apply(x) ** 2)


@pytest.mark.parametrize("transform", [srcgrad.grad, srcgrad.hessian, srcgrad.jacobian])
def test_an_attribute_set_on_a_record_passed_by_keyword_only_is_refused(transform):
    # only positional parameters were checked: the class's `apply` was differentiated
    x = X.copy()
    t = np.tanh(W * x)
    assert np.allclose(srcgrad.grad(keyword_only_layer_loss)(x, p=Layer(W, 0.0)), 2 * t * (1 - t * t) * W)
    shadowed = Layer(W, 0.0)
    shadowed.apply = lambda x: x ** 2
    assert np.allclose(numerical_grad(lambda x: keyword_only_layer_loss(x, p=shadowed), (x,), 0), 4 * x ** 3, atol=1e-5)
    with pytest.raises(srcgrad.NotDifferentiableError, match="attribute `apply` of its own"):
        transform(keyword_only_layer_loss)(x, p=shadowed)


def with_default_activation(x, act=np.tanh):
    return np.sum(act(x) ** 2)


def with_keyword_only_activation(x, *, act=np.tanh):
    return np.sum(act(x) ** 2)


@pytest.mark.parametrize("fn, attribute, new", [
    (with_default_activation, "__defaults__", (np.sin,)),
    (with_keyword_only_activation, "__kwdefaults__", {"act": np.sin}),
])
def test_a_default_function_replaced_after_the_first_call_is_the_one_differentiated(fn, attribute, new):
    # the per-call binding read the defaults once, when the transform was made
    g = srcgrad.grad(fn)
    x = X.copy()
    old = getattr(fn, attribute)
    try:
        assert np.allclose(g(x), 2 * np.tanh(x) * (1 - np.tanh(x) ** 2))
        setattr(fn, attribute, new)
        assert np.allclose(g(x), np.sin(2 * x))  # d/dx sin(x)^2
        assert np.allclose(g(x), numerical_grad(fn, (x,), 0), atol=1e-6)
    finally:
        setattr(fn, attribute, old)


def rate(y, k=1.0):
    return k * np.sin(y)


def shadows_the_partials_function(y, f):
    def rate(z):  # a nested `def` of the name of the partial's function
        return 100.0 * z
    return np.sum(f(y)) + np.sum(rate(y))


def test_a_nested_def_named_as_a_partials_function_is_not_called_for_it():
    # the call of `f` was written `rate(y, k=f_k)`, which the nested `def` then answered
    y = X.copy()
    f = functools.partial(rate, k=2.0)
    expected = 2.0 * np.cos(y) + 100.0
    assert np.allclose(srcgrad.grad(shadows_the_partials_function)(y, f), expected)
    assert np.allclose(numerical_grad(shadows_the_partials_function, (y, f), 0), expected, atol=1e-6)


class Squash:
    act = np.tanh  # a NumPy function held by the class

    def __init__(self, w):
        self.w = w

    def __call__(self, x):
        return np.sum(self.act(self.w * x) ** 2)


SQUASH = Squash(W)


def squashed(x):
    return SQUASH(x)


def chosen_from_a_class(x, smooth=True):
    act = Squash.act if smooth else relu
    return np.sum(act(x) ** 2)


def test_a_numpy_function_held_by_a_class_and_rebound_between_calls_is_seen():
    # only Python functions were logged as read through a class: the derivative kept
    # differentiating the function the class held when it was built
    x = X.copy()
    g, h = srcgrad.grad(squashed), srcgrad.grad(chosen_from_a_class)
    try:
        t = np.tanh(W * x)
        assert np.allclose(g(x), 2 * t * (1 - t * t) * W)
        assert np.allclose(h(x), 2 * np.tanh(x) * (1 - np.tanh(x) ** 2))
        Squash.act = np.sin
        assert np.allclose(g(x), np.sin(2 * W * x) * W)  # d/dx sin(wx)^2
        assert np.allclose(h(x), np.sin(2 * x))
        assert np.allclose(g(x), numerical_grad(squashed, (x,), 0), atol=1e-6)
        SQUASH.act = np.cos  # set on the instance
        assert np.allclose(g(x), -np.sin(2 * W * x) * W)
        assert np.allclose(g(x), numerical_grad(squashed, (x,), 0), atol=1e-6)
    finally:
        Squash.act = np.tanh
        del SQUASH.act


ACTIVATIONS = types.ModuleType("hunt_activations")  # a module of the user's
ACTIVATIONS.act = np.tanh


def from_a_module(x):
    return np.sum(ACTIVATIONS.act(x) ** 2)


def test_a_numpy_function_held_by_a_users_module_and_rebound_between_calls_is_seen():
    # only Python functions were logged as read through a module of the user's
    x = X.copy()
    g = srcgrad.grad(from_a_module)
    try:
        assert np.allclose(g(x), 2 * np.tanh(x) * (1 - np.tanh(x) ** 2))
        ACTIVATIONS.act = np.sin
        assert np.allclose(g(x), np.sin(2 * x))
        assert np.allclose(g(x), numerical_grad(from_a_module, (x,), 0), atol=1e-6)
    finally:
        ACTIVATIONS.act = np.tanh


def inserted_then_changed(x):
    y = x * 1.0
    rows = [x * 2.0]
    rows.insert(0, y)  # read as `rows = rows[:0] + [y] + rows[0:]`, which held nothing
    y += 1.0
    return np.sum(rows[0] * x)


def merged_then_changed(x):
    y = x * 1.0
    d = {"a": x * 2.0}
    d.update({"b": y})  # read as `d |= {"b": y}`, which held nothing
    y *= 3.0
    return np.sum(d["b"] * x)


@pytest.mark.parametrize("fn, expected", [
    (inserted_then_changed, lambda x: 2 * x + 1.0),  # sum((x + 1) * x)
    (merged_then_changed, lambda x: 6 * x),          # sum(3 x * x)
])
def test_a_value_put_into_a_list_or_dict_and_then_changed_in_place_is_refused(fn, expected):
    x = X.copy()
    assert np.allclose(numerical_grad(fn, (x,), 0), expected(x), atol=1e-6)
    with pytest.raises(srcgrad.NotDifferentiableError, match="may share memory with"):
        srcgrad.grad(fn)(x)


@dataclasses.dataclass
class Scaled:
    w: np.ndarray

    def apply(self, x, act=np.tanh):
        return act(self.w * x)


def through_a_record_method(x, p, g):
    return np.sum(p.apply(x, act=g) ** 2)


def test_a_function_handed_to_a_record_method_is_bound_per_call():
    # `g` was not seen as called (only handed to `p.apply`): refused as holding no function
    x = X.copy()
    d = srcgrad.grad(through_a_record_method)
    p = Scaled(W)
    assert np.allclose(d(x, p, np.sin), np.sin(2 * W * x) * W)  # d/dx sin(wx)^2
    assert np.allclose(d(x, p, functools.partial(rate, k=2.0)), 8 * np.sin(W * x) * np.cos(W * x) * W)
    for g in (np.sin, np.cos):
        assert np.allclose(d(x, p, g), numerical_grad(through_a_record_method, (x, p, g), 0), atol=1e-6)
