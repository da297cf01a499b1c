"""Differentiate a small model, print the generated gradient, check it against finite differences."""

import numpy as np

import srcgrad


def loss(w, b, x, y):
    """Logistic regression with a binary cross-entropy-with-logits loss."""
    z = x @ w + b
    return np.mean(np.logaddexp(0.0, z) - y * z)


rng = np.random.default_rng(0)
x = rng.normal(size=(8, 5))
y = (rng.random((8, 3)) > 0.5).astype(float)
w = rng.normal(size=(5, 3))
b = np.zeros(3)

dloss = srcgrad.grad(loss, wrt=("w", "b"))
print(srcgrad.source(dloss))
g_w, g_b = dloss(w, b, x, y)


def finite_difference(f, arg, eps=1e-6):
    g = np.zeros_like(arg)
    for k in np.ndindex(arg.shape):
        old = arg[k]
        arg[k] = old + eps
        up = f()
        arg[k] = old - eps
        down = f()
        arg[k] = old
        g[k] = (up - down) / (2 * eps)
    return g


fd_w = finite_difference(lambda: loss(w, b, x, y), w)
fd_b = finite_difference(lambda: loss(w, b, x, y), b)
error = max(np.max(np.abs(g_w - fd_w)), np.max(np.abs(g_b - fd_b)))
print(f"max |srcgrad - finite differences| = {error:.2e}")
assert error < 1e-8, "gradient does not match finite differences"
print("gradient OK")
