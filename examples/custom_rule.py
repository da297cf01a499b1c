"""Give a function a derivative rule of your own with `srcgrad.custom_vjp`.

    python examples/custom_rule.py

`log(1 + exp(x))` overflows for large `x`, and so does the derivative srcgrad would
derive from that formula. `softplus` below computes the value stably, and its rule
`g * sigmoid(x)` is written in a form that cannot overflow either. srcgrad inlines the
rule wherever `softplus` is called inside a differentiated function, as it does with
its built-in rules; the generated code shows it.
"""

import numpy as np

import srcgrad
from srcgrad.testing import check_grad


@srcgrad.custom_vjp
def softplus(x):
    return np.logaddexp(0.0, x)


@softplus.defvjp
def softplus_vjp(g, ans, x):
    return g * np.exp(x - ans)  # sigmoid(x) = exp(x - softplus(x)), never overflows


@softplus.defjvp
def softplus_jvp(t, ans, x):
    return t * np.exp(x - ans)


def loss(w, x):
    return np.sum(softplus(x @ w))


dloss = srcgrad.grad(loss)
print(srcgrad.source(dloss))

x = np.array([[1.0, -2.0], [800.0, 3.0]])  # 800: exp(800) overflows float64
w = np.array([1.0, 0.5])
g = dloss(w, x)
print("gradient:", g)
assert np.all(np.isfinite(g))

check_grad(loss, w, x[:1])  # finite differences and the forward/reverse dot-product test
print("rule matches finite differences and forward mode")
