"""Derivation time of a 20-line function: a small network step with a loop, a branch and a helper."""

import numpy as np

from . import mlp
from .base import Workload


def _softplus(z):
    return np.logaddexp(0.0, z)


def small_step(W1, b1, W2, b2, x, y, decay):
    h = x @ W1 + b1
    mu = np.mean(h, axis=1, keepdims=True)
    var = np.mean((h - mu) ** 2, axis=1, keepdims=True)
    h = (h - mu) / np.sqrt(var + 1e-5)
    h = np.tanh(h)
    for k in range(2):
        h = h + 0.5 * np.tanh(h * (k + 1.0))
    out = h @ W2 + b2
    err = out - y
    scale = np.exp(-0.5 * np.mean(err * err))
    loss = np.mean(_softplus(err) - 0.5 * err) * scale
    if decay > 0.0:
        penalty = np.sum(W1 * W1) + np.sum(W2 * W2)
        loss = loss + decay * penalty
    else:
        loss = loss + 1e-3 * np.sum(np.abs(b1))
    margin = np.maximum(out, 0.0)
    loss = loss + 0.01 * np.mean(margin * margin)
    return loss


def make_args(rng, batch=16, n_in=8, n_hidden=12, n_out=3):
    """The MLP workload's arguments at a smaller size, and the weight decay."""
    return mlp.make_args(rng, batch, n_in, n_hidden, n_out) + (1e-3,)


WORKLOADS = [
    Workload(
        name="derive-20",
        title="derivation: 20-line network step",
        fn=small_step,
        make_args=make_args,
        wrt=(0, 1, 2, 3),
        hand=None,
        derivation_only=True,
    )
]
