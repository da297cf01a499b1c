"""Vanilla tanh RNN unrolled by a Python loop over 50 time steps."""

import numpy as np

from .base import Workload

STEPS, BATCH, N_IN, HIDDEN = 50, 8, 16, 32


def rnn(W, U, b, x):
    h = np.zeros((8, 32))
    for t in range(50):
        h = np.tanh(h @ W + x[t] @ U + b)
    return np.sum(h * h)


def rnn_grad(W, U, b, x):
    hs = [np.zeros((BATCH, HIDDEN))]
    for t in range(STEPS):
        hs.append(np.tanh(hs[-1] @ W + x[t] @ U + b))
    dW, dU, db = np.zeros_like(W), np.zeros_like(U), np.zeros_like(b)
    dh = 2.0 * hs[-1]
    for t in reversed(range(STEPS)):
        dpre = dh * (1.0 - hs[t + 1] ** 2)
        dW += hs[t].T @ dpre
        dU += x[t].T @ dpre
        db += dpre.sum(axis=0)
        dh = dpre @ W.T
    return dW, dU, db


def rnn_torch():
    import torch

    def rnn(W, U, b, x):
        h = torch.zeros((8, 32), dtype=W.dtype)
        for t in range(50):
            h = torch.tanh(h @ W + x[t] @ U + b)
        return torch.sum(h * h)

    return rnn


def make_args(rng):
    W = 0.5 * rng.standard_normal((HIDDEN, HIDDEN)) / np.sqrt(HIDDEN)
    U = 0.5 * rng.standard_normal((N_IN, HIDDEN)) / np.sqrt(N_IN)
    b = 0.1 * rng.standard_normal(HIDDEN)
    x = rng.standard_normal((STEPS, BATCH, N_IN))
    return W, U, b, x


WORKLOADS = [
    Workload(
        name="rnn",
        title="tanh RNN 50 steps, 8x16->32",
        fn=rnn,
        make_args=make_args,
        wrt=(0, 1, 2),
        hand=rnn_grad,
        peers={"torch": rnn_torch},
        measure_memory=True,
    )
]
