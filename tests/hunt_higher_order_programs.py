"""Programs of the hunt for wrong higher derivatives (test_hunt_higher_order.py): loops,
branches, `while`, early returns, helpers, containers, array writes, recursion, custom
rules and stop_gradient, each a scalar function of one array whose Hessian is checked."""

import functools
import math

import numpy as np

import srcgrad


def _split(x):
    return x[0] * x[1], np.sum(x[1:] ** 2)


def tuple_helper(x):
    a, b = _split(x)
    return a * b + np.sin(a)


def loop_with_tanh(x):
    s = 0.0
    for i in range(3):
        s = s + np.sum(x * x) * (i + 1)
        x = np.tanh(x)
    return s


def data_dependent_while(x):
    n = 0
    while np.sum(x * x) < 50.0 and n < 10:
        x = x * 1.5 + np.sin(x)
        n += 1
    return np.sum(x ** 2)


def early_return_in_loop(x):
    for i in range(5):
        if np.sum(x) > 3.0:
            return np.sum(x ** 3) * i
        x = x * 1.3 + 0.1 * x * x
    return np.sum(np.log(1 + x * x))


def rows_written_in_a_loop(x):
    out = np.zeros((3, 3))
    for i in range(3):
        out[i, :] = x * x[i]
        out[i, i] += np.exp(x[i])
    return np.sum(out ** 2)


def list_with_break(x):
    xs = []
    for v in x:
        xs.append(v * v)
        if v > 1.0:
            break
    return sum(xs) * xs[0]


def cholesky_in_try(x):
    try:
        L = np.linalg.cholesky(np.outer(x, x) + 2.0 * np.eye(3))
    except np.linalg.LinAlgError:
        L = np.eye(3)
    return np.sum(np.log(np.diag(L))) + np.sum(L)


def _rising(x, n):
    if n == 0:
        return x
    return x * _rising(x + 0.1, n - 1)


def recursion(x):
    return np.sum(_rising(x, 3))


def solve_and_inverse(x):
    A = np.array([[2.0, 0.1, 0.0], [0.1, 3.0, 0.2], [0.0, 0.2, 1.5]]) + np.diag(x * x)
    return np.sum(np.linalg.solve(A, x)) + np.sum(np.linalg.inv(A) @ x)


def masked_writes(x):
    y = x.copy()
    y *= 2
    y[1] = y[0] * y[2]
    y[y > 1.0] = 0.5
    return np.sum(y ** 3 * x)


def reduce_of_a_lambda(x):
    return functools.reduce(lambda a, b: a * b + a, x) ** 2


def builtin_extremes(x):
    return max(x[0], x[1], x[2]) ** 3 + min(x[0] * x[1], 0.5) ** 2


def sorted_weights(x):
    return np.sum(np.sort(x)[::-1] * np.arange(1.0, 4.0) * x)


def norms_and_abs(x):
    return np.linalg.norm(x) * np.sum(np.abs(x) ** 1.5) + np.max(np.abs(x))


def where_and_clip(x):
    y = np.where(x > 0, np.sqrt(np.abs(x) + 1.0), x ** 2)
    return np.prod(y) + np.sum(np.clip(x, -0.5, 0.5) ** 3)


def dict_of_entries(x):
    d = {"a": x * 2, "b": [x[0] ** 2, x[1:] * x[:-1]]}
    acc = 0.0
    for v in d["b"]:
        acc = acc + np.sum(v * v)
    return acc + np.sum(d["a"] ** 3)


@srcgrad.custom_vjp
def softplus(x):
    return np.log1p(np.exp(x))


@softplus.defvjp
def softplus_vjp(g, ans, x):
    return g / (1.0 + np.exp(-x))


@softplus.defjvp
def softplus_jvp(t, ans, x):
    return t / (1.0 + np.exp(-x))


def custom_rule_in_a_loop(x):
    s = 0.0
    for i in range(3):
        s = s + np.sum(softplus(x * (i + 1)) ** 2)
    return s


def stop_gradient_of_the_max(x):
    """Not in PROGRAMS: its derivatives hold the max constant (`shifted_by`)."""
    m = srcgrad.stop_gradient(np.max(x))
    return np.sum(np.exp(x - m) * x)


def shifted_by(x, m):
    return np.sum(np.exp(x - m) * x)


def scalar_loop_of_floats(x):
    y = float(x[0])
    for _ in range(3):
        y = y * float(x[1]) + math.cos(y)
    return y * x[2]


PROGRAMS = [
    tuple_helper, loop_with_tanh, data_dependent_while, early_return_in_loop, rows_written_in_a_loop,
    list_with_break, cholesky_in_try, recursion, solve_and_inverse, masked_writes, reduce_of_a_lambda,
    builtin_extremes, sorted_weights, norms_and_abs, where_and_clip, dict_of_entries, custom_rule_in_a_loop,
    scalar_loop_of_floats,
]
