"""A dict (or list) rebuilt by a comprehension over itself (`params = {k: v * 2.0 for k, v in
params.items()}`, `{k: params[k] ... for k in params}`), then written in place
(`params[k] = ...`, in a loop or not): ANF builds the new dict under a temporary and
hands it over (`params = items`), which mutation.py took for a second name of a dict
changed in place and refused, naming the comprehension's line twice. The hand-over is
no sharing where the temporary is not read after it; a dict that two names do go on
reading is still refused. Gradients against central differences and the analytic
answer in every transform (program_checks)."""

import numpy as np
import pytest

import srcgrad
from conftest import numerical_grad
from program_checks import check_every_transform

X = np.array([0.7, -1.3, 2.1])


def doubled_then_written_in_a_loop(x):
    params = {"a": x, "b": x * 3.0}
    params = {k: v * 2.0 for k, v in params.items()}
    for k in ["a", "b"]:
        params[k] = params[k] * x
    return np.sum(params["a"] + params["b"])  # 8 x ** 2


def by_key_then_written(x):
    params = {"a": np.sin(x), "b": x * 3.0}
    params = {k: params[k] * 2.0 for k in params}
    params["a"] = params["a"] * x
    return np.sum(params["a"] * params["b"])  # 12 x ** 2 sin(x)


def rebuilt_at_each_step(x):
    params = {"a": x, "b": x * 3.0}
    for _ in range(3):
        params = {k: v * 0.5 for k, v in params.items()}
        for k in params:
            params[k] = params[k] * x
    return np.sum(params["a"] + params["b"])  # x ** 4 / 2


def the_old_dict_still_read(x):
    params = {"a": x, "b": x * 3.0}
    first = params
    params = {k: v * 2.0 for k, v in params.items()}
    for k in params:
        params[k] = params[k] * x
    return np.sum(params["a"] + params["b"] + first["a"] * first["b"])  # 8 x ** 2 + 3 x ** 2


def a_list_rebuilt_then_written(x):
    xs = [x[0], x[1], x[2]]
    xs = [v * 2.0 for v in xs]
    for i in range(3):
        xs[i] = xs[i] * x[i]
    xs.append(x[0])
    return sum(xs)  # 2 x ** 2 summed, + x[0]


@pytest.mark.parametrize("fn, expected", [
    (a_list_rebuilt_then_written, lambda x: 4.0 * x + [1.0, 0.0, 0.0]),
    (doubled_then_written_in_a_loop, lambda x: 16.0 * x),
    (by_key_then_written, lambda x: 24.0 * x * np.sin(x) + 12.0 * x ** 2 * np.cos(x)),
    (rebuilt_at_each_step, lambda x: 2.0 * x ** 3),
    (the_old_dict_still_read, lambda x: 22.0 * x),
], ids=lambda f: getattr(f, "__name__", ""))
def test_every_transform(fn, expected):
    check_every_transform(fn, X.copy(), expected(X))


def a_parameter_rebuilt(params, x):
    params = {k: v * 2.0 for k, v in params.items()}
    for k in params:
        params[k] = params[k] * x
    return np.sum(params["a"] * params["b"])


def test_a_dict_argument_rebuilt_then_written():
    params = {"a": X.copy(), "b": np.array([0.5, 1.5, -2.0])}
    before = {k: v.copy() for k, v in params.items()}
    g, gx = srcgrad.grad(a_parameter_rebuilt, wrt=(0, 1))(params, X)
    np.testing.assert_allclose(g["a"], 4.0 * X * X * params["b"], rtol=1e-13)
    np.testing.assert_allclose(g["b"], 4.0 * X * X * params["a"], rtol=1e-13)
    np.testing.assert_allclose(gx, 8.0 * X * params["a"] * params["b"], rtol=1e-13)
    for key in params:
        np.testing.assert_allclose(g[key], numerical_grad(lambda v: a_parameter_rebuilt({**params, key: v}, X), (params[key],), 0),
                                   rtol=1e-7)
        np.testing.assert_array_equal(params[key], before[key])
    tangent = {"a": np.ones(3), "b": np.zeros(3)}
    _, out_dot = srcgrad.jvp(a_parameter_rebuilt, (params, X), (tangent, np.zeros(3)))
    assert out_dot == pytest.approx(np.sum(g["a"]), rel=1e-13)


def two_names_of_one_dict(x):
    items = {}
    items["a"] = x
    params = items
    params["a"] = params["a"] * 2.0
    return np.sum(items["a"] * x)


def shared_across_steps(x):
    params = {"a": x, "b": x * 3.0}
    items = {}
    for _ in range(2):
        for k in params:
            items[k] = params[k] * 0.5
        params = items
        params["a"] = params["a"] * x
    return np.sum(params["a"] + params["b"])


@pytest.mark.parametrize("fn", [two_names_of_one_dict, shared_across_steps], ids=lambda f: f.__name__)
def test_a_dict_two_names_go_on_reading_is_still_refused(fn):
    with pytest.raises(srcgrad.NotDifferentiableError, match="changes"):
        srcgrad.grad(fn)(X)
