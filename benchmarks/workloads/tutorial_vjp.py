"""The tutorial's while loop, differentiated as a vector-Jacobian product."""

import numpy as np

from .base import NA, Workload


def tutorial(x):
    y = x * 2
    while np.linalg.norm(y) < 1000:
        y = y * 2
    return y


def tutorial_vjp(v, x):
    # Forward: the loop only scales x, so the pullback needs the total factor.
    y = x * 2
    scale = 2.0
    while np.linalg.norm(y) < 1000:
        y = y * 2
        scale *= 2.0
    # Pullback.
    return (v * scale,)


def tutorial_torch():
    import torch

    def tutorial(x):
        y = x * 2
        while torch.linalg.norm(y) < 1000:
            y = y * 2
        return y

    return tutorial


WORKLOADS = [
    Workload(
        name="tutorial-vjp",
        title="tutorial while-loop VJP, x in R^3",
        fn=tutorial,
        make_args=lambda rng: (rng.standard_normal(3),),
        wrt=(0,),
        hand=tutorial_vjp,
        make_seed=lambda rng: np.array([0.1, 1.0, 0.0001]),
        peers={
            "torch": tutorial_torch,
            "jax-jit": NA("reverse mode through lax.while_loop is unsupported in JAX"),
        },
    )
]
