"""Logistic regression: binary cross-entropy with logits, mean over the batch."""

import numpy as np

from .base import Workload


def logreg(w, b, x, y):
    z = x @ w + b
    return np.mean(np.logaddexp(0.0, z) - y * z)


def logreg_grad(w, b, x, y):
    z = x @ w + b
    sigmoid = 0.5 * np.tanh(0.5 * z) + 0.5
    dz = (sigmoid - y) / z.size
    return x.T @ dz, dz.sum(axis=0)


def logreg_torch():
    import torch

    def logreg(w, b, x, y):
        z = x @ w + b
        return torch.mean(torch.logaddexp(torch.zeros((), dtype=z.dtype), z) - y * z)

    return logreg


def _maker(batch, n_in, n_out):
    def make_args(rng):
        x = rng.standard_normal((batch, n_in))
        w = rng.standard_normal((n_in, n_out)) / np.sqrt(n_in)
        b = 0.1 * rng.standard_normal(n_out)
        y = (rng.random((batch, n_out)) < 0.5).astype(np.float64)
        return w, b, x, y

    return make_args


def _workload(name, batch, n_in, n_out):
    return Workload(
        name=name,
        title=f"logreg {batch}x{n_in}->{n_out}",
        fn=logreg,
        make_args=_maker(batch, n_in, n_out),
        wrt=(0, 1),
        hand=logreg_grad,
        peers={"torch": logreg_torch},
    )


WORKLOADS = [
    _workload("logreg-tiny", 4, 5, 3),
    _workload("logreg-mnist", 256, 784, 10),
    _workload("logreg-large", 4096, 1024, 256),
]
