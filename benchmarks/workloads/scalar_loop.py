"""A loop of 1000 iterations over Python floats with a branch in each.

The drift term 1.5 keeps ``s`` climbing, so both branches run (about 750 and
250 times at the inputs below) and the gradient stays moderate.
"""

import math

from .base import Workload


def scalar_loop(a, b):
    s = 0.0
    for i in range(1000):
        if s < 10.0:
            s = s + a * (1.5 + math.sin(s + b))
        else:
            s = s * 0.5 - b
    return s


def scalar_loop_grad(a, b):
    # Forward: record the input of each iteration (None marks the else branch).
    s = 0.0
    tape = []
    for i in range(1000):
        if s < 10.0:
            tape.append(s)
            s = s + a * (1.5 + math.sin(s + b))
        else:
            tape.append(None)
            s = s * 0.5 - b
    # Reverse.
    s_bar, a_bar, b_bar = 1.0, 0.0, 0.0
    for s_in in reversed(tape):
        if s_in is None:
            b_bar -= s_bar
            s_bar *= 0.5
        else:
            u = s_in + b
            a_cos = a * math.cos(u)
            a_bar += s_bar * (1.5 + math.sin(u))
            b_bar += s_bar * a_cos
            s_bar *= 1.0 + a_cos
    return a_bar, b_bar


def scalar_loop_torch():
    import torch

    def scalar_loop(a, b):
        s = torch.zeros((), dtype=a.dtype)
        for i in range(1000):
            if s < 10.0:
                s = s + a * (1.5 + torch.sin(s + b))
            else:
                s = s * 0.5 - b
        return s

    return scalar_loop


def scalar_loop_lax():
    """jit cannot trace a Python branch on a traced value: lax.fori_loop + lax.cond."""
    import jax.numpy as jnp
    from jax import lax

    def scalar_loop(a, b):
        def body(i, s):
            return lax.cond(
                s < 10.0,
                lambda s: s + a * (1.5 + jnp.sin(s + b)),
                lambda s: s * 0.5 - b,
                s,
            )

        return lax.fori_loop(0, 1000, body, jnp.zeros((), dtype=jnp.result_type(a)))

    return scalar_loop


def make_args(rng):
    return 1.3, 0.2


WORKLOADS = [
    Workload(
        name="scalar-loop",
        title="scalar loop, 1000 iters + branch",
        fn=scalar_loop,
        make_args=make_args,
        wrt=(0, 1),
        hand=scalar_loop_grad,
        peers={"torch": scalar_loop_torch, "jax-jit": scalar_loop_lax},
    )
]
