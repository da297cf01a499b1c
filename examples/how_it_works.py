"""One function's journey through srcgrad's pipeline, printed stage by stage.

    python examples/how_it_works.py

`srcgrad.grad(f, verbose="stages")` prints the code after every stage of the
compiler; docs/how-it-works.md walks through this output.
"""

import numpy as np

import srcgrad


def damped(x, limit):
    y = np.sin(x)
    y = y * x
    for i in range(3):
        if np.sum(y) > limit:
            break
        y = np.tanh(y) + x
    return np.sum(y)


dfdx = srcgrad.grad(damped, verbose="stages")

x = np.array([0.3, -0.2, 0.5])
g = dfdx(x, 2.0)
eps = 1e-6
numeric = np.array([(damped(x + eps * e, 2.0) - damped(x - eps * e, 2.0)) / (2 * eps) for e in np.eye(3)])
assert np.allclose(g, numeric, rtol=1e-6, atol=1e-9), (g, numeric)
