"""The tanh MLP written as larger programs are: a helper function per layer and one
for the loss, each called from the loss function."""

import numpy as np

from .base import Workload
from .mlp import make_args, mlp_grad


def dense(x, W, b):
    return x @ W + b


def mse(out, y):
    return np.mean((out - y) ** 2)


def mlp_helpers(W1, b1, W2, b2, x, y):
    h = np.tanh(dense(x, W1, b1))
    return mse(dense(h, W2, b2), y)


def mlp_helpers_torch():
    import torch

    def dense(x, W, b):
        return x @ W + b

    def mse(out, y):
        return torch.mean((out - y) ** 2)

    def mlp_helpers(W1, b1, W2, b2, x, y):
        h = torch.tanh(dense(x, W1, b1))
        return mse(dense(h, W2, b2), y)

    return mlp_helpers


WORKLOADS = [
    Workload(
        name="mlp-helpers",
        title="the MLP through helper functions",
        fn=mlp_helpers,
        make_args=make_args,
        wrt=(0, 1, 2, 3),
        hand=mlp_grad,
        peers={"torch": mlp_helpers_torch},
    )
]
