"""Programs for the hunt for stale or wrongly specialized derivatives
(test_hunt_specialization.py): broadcasting, reductions, float32 constants, loops with
invariant-looking statements, outputs that are inputs or share buffers.

`SCALAR`: functions of broadcastable arguments returning a scalar; each takes two
arguments `x`, `y` (floats or float arrays of any shapes that broadcast).
"""

import math

import numpy as np


def sin_times(x, y):
    return np.sum(np.sin(x) * y + x * 2.5)


def squared_distance(x, y):
    return np.sum((x - y) ** 2 / 3)


def mean_power(x, y):
    return np.mean(x ** 2 * y) + 0.1 * np.sum(x)


def python_and_float64_constants(x, y):
    """Python floats keep float32 (NEP 50); np.float64 constants and np.pi promote... np.pi is a float."""
    return np.sum(x * 0.1 + y * np.pi) + 1e-8 * np.sum(x * y) + np.float64(0.3) * np.sum(y)


def float64_scalar_times(x, y):
    return np.sum(np.float64(1.0 / 3.0) * x * y)


def largest_product(x, y):
    return np.max(np.abs(x * y)) + np.sqrt(np.sum(x * x) + 1.0)


def leaky(x, y):
    return np.sum(np.where(x > 0, x * y, 0.1 * x))


def looped(x, y):
    s = 0.0
    for i in range(3):
        s = s + np.sum(x * y) * i + np.sum(np.exp(0.1 * x))
    return s


def normalized(x, y):
    z = x * y + 2.0
    return np.sum((z / np.sum(z, axis=-1, keepdims=True)) ** 2)


def exp_mean_log(x, y):
    return np.log(np.mean(np.exp(x - y)))


def divided(x, y):
    return np.sum(x / (y * y + 1.0)) / 7


SCALAR = [
    sin_times, squared_distance, mean_power, python_and_float64_constants, float64_scalar_times,
    largest_product, leaky, looped, normalized, exp_mean_log, divided,
]


def horner(a, b):
    """The seed's adjoint is carried by the loop: `s_bar` is assigned in the backward pass."""
    s = 0.0
    for i in range(3):
        s = s * a + b
    return s


def squares(x):
    return np.sum(x * x)


def cubes(x):
    return np.sum(x * x * x)


def product_of_two(a, b):
    return a * b


def square_of_first(a, b):
    return a * a


act = np.tanh


def doubled_activation(x):
    """Calls a global function, which the tests rebind."""
    return np.sum(act(x) * 2.0)
