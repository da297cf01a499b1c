"""The tanh MLP written JAX-style: the parameters in a dict, differentiated as one
argument (the gradient is a dict with the same keys)."""

import numpy as np

from .base import NA, Workload
from .mlp import make_args as make_arrays


def mlp_dict(p, x, y):
    h = np.tanh(x @ p["W1"] + p["b1"])
    out = h @ p["W2"] + p["b2"]
    return np.mean((out - y) ** 2)


def mlp_dict_grad(p, x, y):
    h = np.tanh(x @ p["W1"] + p["b1"])
    out = h @ p["W2"] + p["b2"]
    d_out = (2.0 / out.size) * (out - y)
    d_pre = (d_out @ p["W2"].T) * (1.0 - h * h)
    return ({"W1": x.T @ d_pre, "b1": d_pre.sum(axis=0), "W2": h.T @ d_out, "b2": d_out.sum(axis=0)},)


def make_args(rng):
    W1, b1, W2, b2, x, y = make_arrays(rng)
    return {"W1": W1, "b1": b1, "W2": W2, "b2": b2}, x, y


WORKLOADS = [
    Workload(
        name="mlp-dict",
        title="MLP, params in a dict",
        fn=mlp_dict,
        make_args=make_args,
        wrt=(0,),
        hand=mlp_dict_grad,
        peers={"torch": NA("torch differentiates tensors, not dicts of them"),
               "tangent": NA("tangent differentiates arrays, not dicts of them")},
    )
]
