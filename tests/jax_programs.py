"""Programs written once for NumPy that JAX can also run: `test_against_jax.py` runs each
with `np` bound to `jax.numpy` (the module's functions rebound to those globals).

Each program is listed in `PROGRAMS` with the shapes of its float arguments (`()` is a
Python float). Nothing here writes into an array in place (JAX arrays are immutable).
"""

import math

import numpy as np


def chain(x):
    return np.sum(np.tanh(np.exp(0.3 * x) * np.sin(x)) + np.log1p(x * x))


def broadcast_bias(W, b, x):
    return np.sum((x @ W + b) ** 2)


def mlp(W1, b1, W2, x):
    h = np.tanh(x @ W1 + b1)
    return np.mean((h @ W2) ** 2)


def softmax_cross_entropy(z, y):
    m = np.max(z, axis=1, keepdims=True)
    logp = z - m - np.log(np.sum(np.exp(z - m), axis=1, keepdims=True))
    return -np.mean(np.sum(y * logp, axis=1))


def logsumexp(x):
    m = np.max(x)
    return m + np.log(np.sum(np.exp(x - m)))


def reductions(x):
    return np.sum(np.mean(x, axis=0) ** 2) + np.var(x) + np.std(x, axis=1).sum() + np.prod(x[0])


def norms(x, y):
    return np.linalg.norm(x) * np.linalg.norm(y, axis=1).sum() + np.dot(x, x)


def shapes(x):
    y = np.concatenate([x, 2.0 * x], axis=0)
    z = np.stack([x, x * x], axis=-1)
    return np.sum(y.T.reshape(-1) ** 3) + np.sum(np.transpose(z, (2, 0, 1))[1]) + np.sum(np.cumsum(x, axis=1))


def indexing(x):
    return np.sum(x[1:, ::2] ** 2) + x[0, 1] * x[-1, -1] + np.sum(x[np.array([0, 2])])


def piecewise(x):
    return np.sum(np.where(x > 0.0, x ** 2, -x) + np.maximum(x, 0.2) + np.clip(x, -0.5, 0.5) + np.abs(x))


def math_floats(a, b):
    return math.sin(a) * math.exp(b) + math.sqrt(a * a + b * b) + math.atan2(a, b) + a ** b


def branchy(a, b):
    if a > b:
        c = a * b
    elif a > 0.0:
        c = a - b
    else:
        c = math.sin(a) + b
    return c * c


def loop_with_branch(x):
    s = 0.0
    for i in range(x.shape[0]):
        if x[i] > 0.0:
            s = s + x[i] ** 2
        else:
            s = s - 0.5 * x[i]
    return s


def while_doubling(x):
    y = x * 2.0
    while np.linalg.norm(y) < 100.0:
        y = y * 2.0
    return np.sum(y * x)


def early_return(x):
    total = np.sum(x)
    if total > 10.0:
        return total * 2.0
    for k in range(3):
        x = np.sin(x) + 0.1 * k
    return np.sum(x * x)


def _helper(u, v):
    return np.tanh(u) * v + u


def calls_helper(x, y):
    z = _helper(x, y)
    return np.sum(_helper(z, x) ** 2)


def closure(x, scale):
    def inner(u):
        return np.sin(u) * scale

    return np.sum(inner(x) * inner(2.0 * x))


def containers(x):
    parts = [x[0], x[1] * 2.0, np.sin(x[2])]
    named = {"a": parts[0] * parts[1], "b": parts[2]}
    first, second = named["a"], named["b"]
    return sum(parts) + first * second


def recurrent(W, U, x):
    h = np.zeros(W.shape[0])
    for t in range(x.shape[0]):
        h = np.tanh(W @ h + U @ x[t])
    return np.sum(h ** 2)


def augmented(x):
    y = x * 1.0
    y += np.sin(x)
    y *= 2.0
    y -= x ** 2
    return np.sum(y)


def linalg(A, b):
    M = A @ A.T + 3.0 * np.eye(A.shape[0])
    x = np.linalg.solve(M, b)
    sign, logdet = np.linalg.slogdet(M)
    return np.sum(x ** 2) + logdet + np.trace(np.linalg.inv(M))


def eigen_values(A):
    S = A + A.T
    w = np.linalg.eigvalsh(S)
    return np.sum(w ** 3)


def singular_values(A):
    return np.sum(np.linalg.svd(A, compute_uv=False) ** 2)


def cholesky(A):
    L = np.linalg.cholesky(A @ A.T + 2.0 * np.eye(A.shape[0]))
    return np.sum(L * L) + np.sum(np.log(np.diag(L)))


def outer_einsum(x, y):
    return np.sum(np.outer(x, y) ** 2) + np.einsum("i,i->", x, x) + np.sum(np.kron(x, y))


def vector_valued(x, y):
    return np.concatenate([np.sin(x) * y[0], np.cumprod(x), x @ np.ones((x.shape[0], 2)) * y[1]])


def stop_and_sort(x):
    s = np.sort(x)
    return np.sum(s * np.arange(1.0, x.shape[0] + 1.0)) + np.max(x) - np.min(x)


# name -> (function, shapes of its arguments (all differentiated), output is a scalar)
PROGRAMS = {
    "chain": (chain, [(5,)], True),
    "broadcast_bias": (broadcast_bias, [(3, 2), (2,), (4, 3)], True),
    "mlp": (mlp, [(3, 4), (4,), (4, 2), (5, 3)], True),
    "softmax_cross_entropy": (softmax_cross_entropy, [(4, 3), (4, 3)], True),
    "logsumexp": (logsumexp, [(6,)], True),
    "reductions": (reductions, [(3, 4)], True),
    "norms": (norms, [(4,), (3, 2)], True),
    "shapes": (shapes, [(2, 3)], True),
    "indexing": (indexing, [(3, 4)], True),
    "piecewise": (piecewise, [(7,)], True),
    "math_floats": (math_floats, [(), ()], True),
    "branchy": (branchy, [(), ()], True),
    "loop_with_branch": (loop_with_branch, [(6,)], True),
    "while_doubling": (while_doubling, [(3,)], True),
    "early_return": (early_return, [(4,)], True),
    "calls_helper": (calls_helper, [(3,), (3,)], True),
    "closure": (closure, [(4,), ()], True),
    "containers": (containers, [(3,)], True),
    "recurrent": (recurrent, [(3, 3), (3, 2), (4, 2)], True),
    "augmented": (augmented, [(5,)], True),
    "linalg": (linalg, [(3, 3), (3,)], True),
    "eigen_values": (eigen_values, [(3, 3)], True),
    "singular_values": (singular_values, [(3, 2)], True),
    "cholesky": (cholesky, [(3, 3)], True),
    "outer_einsum": (outer_einsum, [(3,), (2,)], True),
    "vector_valued": (vector_valued, [(3,), (2,)], False),
    "stop_and_sort": (stop_and_sort, [(5,)], True),
}
