"""Train a small recurrent network on a sine wave with srcgrad's gradients.

    python examples/rnn.py

The network reads a sequence one value at a time, `h = tanh(W h + U x_t + b)`, and
predicts the next value `V h + c`. The loss is written as a plain `for` loop over the
time steps; srcgrad reverses the loop (backpropagation through time), keeping on its
tape only the values the backward pass reads. The gradient is checked against finite
differences with `srcgrad.testing.check_grad`, then used for a few hundred steps of
gradient descent.
"""

import numpy as np

import srcgrad
from srcgrad.testing import check_grad


def loss(W, U, b, V, c, xs):
    """Mean squared error of one-step-ahead predictions over the sequence `xs`."""
    h = np.zeros(W.shape[0])
    total = 0.0
    for t in range(xs.shape[0] - 1):
        h = np.tanh(W @ h + U * xs[t] + b)
        prediction = V @ h + c
        error = prediction - xs[t + 1]
        total = total + error * error
    return total / (xs.shape[0] - 1)


rng = np.random.default_rng(0)
hidden = 8
params = [
    0.3 * rng.standard_normal((hidden, hidden)),  # W
    rng.standard_normal(hidden),  # U
    np.zeros(hidden),  # b
    0.3 * rng.standard_normal(hidden),  # V
    0.0,  # c
]
xs = np.sin(np.linspace(0.0, 4.0 * np.pi, 40))

dloss = srcgrad.value_and_grad(loss, wrt=(0, 1, 2, 3, 4))
print(srcgrad.source(dloss))

check_grad(loss, *params, xs, wrt=(0, 1, 2, 3, 4))
print("gradient matches finite differences")

first, _ = dloss(*params, xs)
learning_rate = 0.05
for step in range(300):
    value, grads = dloss(*params, xs)
    params = [p - learning_rate * g for p, g in zip(params, grads)]
    if step % 100 == 0:
        print(f"step {step:3d}  loss {value:.5f}")
final, _ = dloss(*params, xs)
print(f"loss {first:.5f} -> {final:.5f}")
assert final < 0.5 * first, "training did not reduce the loss"
