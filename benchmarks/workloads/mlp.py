"""Two-layer tanh MLP with a mean squared-error loss."""

import numpy as np

from .base import Workload


def mlp(W1, b1, W2, b2, x, y):
    h = np.tanh(x @ W1 + b1)
    out = h @ W2 + b2
    return np.mean((out - y) ** 2)


def mlp_grad(W1, b1, W2, b2, x, y):
    h = np.tanh(x @ W1 + b1)
    out = h @ W2 + b2
    d_out = (2.0 / out.size) * (out - y)
    d_pre = (d_out @ W2.T) * (1.0 - h * h)
    return x.T @ d_pre, d_pre.sum(axis=0), h.T @ d_out, d_out.sum(axis=0)


def mlp_torch():
    import torch

    def mlp(W1, b1, W2, b2, x, y):
        h = torch.tanh(x @ W1 + b1)
        out = h @ W2 + b2
        return torch.mean((out - y) ** 2)

    return mlp


def make_args(rng, batch=64, n_in=100, n_hidden=100, n_out=10):
    W1 = rng.standard_normal((n_in, n_hidden)) / np.sqrt(n_in)
    b1 = 0.1 * rng.standard_normal(n_hidden)
    W2 = rng.standard_normal((n_hidden, n_out)) / np.sqrt(n_hidden)
    b2 = 0.1 * rng.standard_normal(n_out)
    x = rng.standard_normal((batch, n_in))
    y = rng.standard_normal((batch, n_out))
    return W1, b1, W2, b2, x, y


WORKLOADS = [
    Workload(
        name="mlp",
        title="tanh MLP 64x100->100->10",
        fn=mlp,
        make_args=make_args,
        wrt=(0, 1, 2, 3),
        hand=mlp_grad,
        peers={"torch": mlp_torch},
    )
]
