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


# --- loops whose invariant-looking statements read what the loop changes --------------


def augmented(x):
    y = x * 1.0
    s = 0.0
    for i in range(3):
        t = np.sum(y ** 2)
        y += x
        s = s + t
    return s


def appended(x):
    xs = [x]
    s = 0.0
    for i in range(3):
        s = s + len(xs) * np.sum(x)
        xs.append(x * 2.0)
    return s + np.sum(xs[-1])


def written_through_out(x):
    y = np.zeros(3)
    s = 0.0
    for i in range(3):
        t = np.sum(y * x)
        np.add(y, x, out=y)
        s = s + t
    return s


def dict_entry_rebound(x):
    d = {"k": x}
    s = 0.0
    for i in range(3):
        t = np.sum(d["k"] ** 2)
        d["k"] = d["k"] * 1.5
        s = s + t
    return s


def written_by_a_nested_def(x):
    a = np.zeros(3)
    s = 0.0

    def put(i):
        a[i] = x[i] * 2.0

    for i in range(3):
        t = np.sum(a) * x[0]
        put(i)
        s = s + t
    return s


def copied_to(x):
    a = np.zeros(3)
    s = 0.0
    for i in range(3):
        t = np.sum(a) * x[1]
        np.copyto(a, x * i)
        s = s + t
    return s


def whole_slice_written(x):
    a = np.zeros(3)
    s = 0.0
    for i in range(3):
        t = np.sum(a ** 2) * x[2]
        a[...] = a + x
        a[:] = a * 0.5
        s = s + t
    return s


def written_in_the_outer_loop(x):
    a = np.zeros(3)
    s = 0.0
    for i in range(3):
        for j in range(2):
            s = s + np.sum(a) * x[j]
        a[i] = x[i] ** 2
    return s


LOOPS = [
    augmented, appended, written_through_out, dict_entry_rebound, written_by_a_nested_def, copied_to,
    whole_slice_written, written_in_the_outer_loop,
]
