"""Small functions covering the supported constructs. Argument names choose inputs:
a, b, c: Python floats; x, y: vectors of 3; M, W: 3x3 matrices; n: an int."""

import math

import numpy as np

SCALE = 0.5


def helper_square(v):
    return v * v


def straight_line(x):
    return np.sum(np.sin(x) * x)


def reassign(x):
    x = x * 2.0
    x = np.tanh(x)
    return np.sum(x * x)


def scalar_math(a, b):
    return math.sin(a) * math.exp(b) + math.log1p(a * a) / (1.0 + b ** 2)


def broadcasting(x, M):
    return np.sum((M + x) * x / (1.0 + M * M))


def reductions(M):
    return np.mean(np.sum(M, axis=0) * np.max(M, axis=1)) + np.prod(M[0])


def matmul_chain(x, W):
    return np.sum(np.tanh(W @ x) ** 2)


def methods_and_attributes(M, x):
    return (M.T @ x).sum() + M.reshape(9).mean() + x.dot(x)


def global_constant(x):
    return np.sum(x * SCALE)


def branch(a):
    if a > 0:
        y = a * a
    else:
        y = -a
    return y * 3.0


def elif_chain(a):
    if a > 1.0:
        return a ** 3
    elif a > 0.0:
        return math.sin(a)
    return a * 2.0


def ternary_and_bool(a, b):
    y = a * b if a > 0 and b > 0 else a + b
    return y * y


def for_range(x):
    s = 0.0
    for i in range(3):
        s = s + x[i] * (i + 1)
    return s


def for_range_steps(x):
    s = 1.0
    for i in range(2, -1, -1):
        s = s * (x[i] + 2.0)
    return s


def nested_loops(x):
    s = 0.0
    for i in range(3):
        for j in range(i):
            s = s + x[i] * x[j]
    return s


def while_loop(a):
    y = a
    while -10.0 < y < 10.0:
        y = y * 1.7
    return y


def break_continue(x):
    s = 0.0
    for i in range(3):
        if x[i] < -5.0:
            continue
        s = s + np.sin(x[i])
        if s > 100.0:
            break
    return s


def early_return_in_loop(a):
    y = a
    for i in range(10):
        y = y * 1.3 + 0.1
        if y > 5.0:
            return y * 2.0
    return y


def augmented(x):
    s = np.zeros(3)
    s += x
    s *= x
    s -= 1.0
    return np.sum(s)


def tuple_swap(a, b):
    a, b = b, a * b
    return a * 2.0 + b


def loop_over_rows(M):
    s = 0.0
    for i in range(3):
        row = M[i]
        s = s + np.sum(row * row) * (i + 1)
    return s


def rnn(W, x):
    h = np.zeros(3)
    for t in range(4):
        h = np.tanh(W @ h + x * t)
    return np.sum(h * h)


def slices(x):
    return np.sum(x[1:] * x[:-1]) + x[::2].sum()


def matrix_index(M):
    return np.sum(M[:, 1] * M[0, :]) + M[1, 2]


def abs_and_max(x):
    return np.sum(np.abs(x) + np.maximum(x, 0.1))


def data_dependent_while(a):
    n = 0
    y = a
    while n < 5 and y < 100.0:
        y = y * y + 1.0
        n = n + 1
    return y


ALL = [
    straight_line, reassign, scalar_math, broadcasting, reductions, matmul_chain, methods_and_attributes,
    global_constant, branch, elif_chain, ternary_and_bool, for_range, for_range_steps, nested_loops,
    while_loop, break_continue, early_return_in_loop, augmented, tuple_swap, loop_over_rows, rnn,
    slices, matrix_index, abs_and_max, data_dependent_while,
]
