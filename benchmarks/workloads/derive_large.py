"""Derivation time of a 200-line function: three unrolled substeps of a spring chain.

The step is written out by hand, as simulation code often is: arithmetic and NumPy
calls on each mass, a helper per mass for ground contact, a branch and a loop.
"""

import numpy as np

from .base import Workload


def _contact(height):
    return np.logaddexp(0.0, -20.0 * height) / 20.0


def chain_step(x, v, k, c, m, target, wind):
    """Three unrolled substeps of a five-mass spring chain (semi-implicit Euler), then a loss."""
    dt = 0.01
    g = np.array([0.0, -9.81])
    x0 = x[0]
    v0 = v[0]
    x1 = x[1]
    v1 = v[1]
    x2 = x[2]
    v2 = v[2]
    x3 = x[3]
    v3 = v[3]
    x4 = x[4]
    v4 = v[4]
    # substep 1: spring forces between neighbours
    d01 = x1 - x0
    r01 = np.sqrt(np.sum(d01 * d01, axis=-1, keepdims=True) + 1e-9)
    e01 = r01 - 1.0
    f01 = k[0] * e01 * d01 / r01
    rv01 = np.sum((v1 - v0) * d01, axis=-1, keepdims=True) / r01
    f01 = f01 + c * rv01 * d01 / r01
    d12 = x2 - x1
    r12 = np.sqrt(np.sum(d12 * d12, axis=-1, keepdims=True) + 1e-9)
    e12 = r12 - 1.0
    f12 = k[1] * e12 * d12 / r12
    rv12 = np.sum((v2 - v1) * d12, axis=-1, keepdims=True) / r12
    f12 = f12 + c * rv12 * d12 / r12
    d23 = x3 - x2
    r23 = np.sqrt(np.sum(d23 * d23, axis=-1, keepdims=True) + 1e-9)
    e23 = r23 - 1.0
    f23 = k[2] * e23 * d23 / r23
    rv23 = np.sum((v3 - v2) * d23, axis=-1, keepdims=True) / r23
    f23 = f23 + c * rv23 * d23 / r23
    d34 = x4 - x3
    r34 = np.sqrt(np.sum(d34 * d34, axis=-1, keepdims=True) + 1e-9)
    e34 = r34 - 1.0
    f34 = k[3] * e34 * d34 / r34
    rv34 = np.sum((v4 - v3) * d34, axis=-1, keepdims=True) / r34
    f34 = f34 + c * rv34 * d34 / r34
    # bending: a soft penalty on the angle at each inner mass
    cos1 = np.sum(d01 * d12, axis=-1, keepdims=True) / (r01 * r12)
    b1 = 0.05 * (1.0 - cos1)
    cos2 = np.sum(d12 * d23, axis=-1, keepdims=True) / (r12 * r23)
    b2 = 0.05 * (1.0 - cos2)
    cos3 = np.sum(d23 * d34, axis=-1, keepdims=True) / (r23 * r34)
    b3 = 0.05 * (1.0 - cos3)
    a0 = f01 / m[0] + g
    a0 = a0 + wind * np.tanh(x0[..., 1:2]) - 0.1 * v0
    a1 = (f12 - f01) / m[1] + g
    a1 = a1 + wind * np.tanh(x1[..., 1:2]) - 0.1 * v1
    a2 = (f23 - f12) / m[2] + g
    a2 = a2 + wind * np.tanh(x2[..., 1:2]) - 0.1 * v2
    a3 = (f34 - f23) / m[3] + g
    a3 = a3 + wind * np.tanh(x3[..., 1:2]) - 0.1 * v3
    a4 = -f34 / m[4] + g
    a4 = a4 + wind * np.tanh(x4[..., 1:2]) - 0.1 * v4
    a1 = a1 - b1 * (x1 - 0.5 * (x0 + x2))
    a2 = a2 - b2 * (x2 - 0.5 * (x1 + x3))
    a3 = a3 - b3 * (x3 - 0.5 * (x2 + x4))
    a0 = a0 * 0.0  # the first mass is pinned
    v0 = v0 + dt * a0
    x0 = x0 + dt * v0
    v1 = v1 + dt * a1
    x1 = x1 + dt * v1
    v2 = v2 + dt * a2
    x2 = x2 + dt * v2
    v3 = v3 + dt * a3
    x3 = x3 + dt * v3
    v4 = v4 + dt * a4
    x4 = x4 + dt * v4
    # substep 2: spring forces between neighbours
    d01 = x1 - x0
    r01 = np.sqrt(np.sum(d01 * d01, axis=-1, keepdims=True) + 1e-9)
    e01 = r01 - 1.0
    f01 = k[0] * e01 * d01 / r01
    rv01 = np.sum((v1 - v0) * d01, axis=-1, keepdims=True) / r01
    f01 = f01 + c * rv01 * d01 / r01
    d12 = x2 - x1
    r12 = np.sqrt(np.sum(d12 * d12, axis=-1, keepdims=True) + 1e-9)
    e12 = r12 - 1.0
    f12 = k[1] * e12 * d12 / r12
    rv12 = np.sum((v2 - v1) * d12, axis=-1, keepdims=True) / r12
    f12 = f12 + c * rv12 * d12 / r12
    d23 = x3 - x2
    r23 = np.sqrt(np.sum(d23 * d23, axis=-1, keepdims=True) + 1e-9)
    e23 = r23 - 1.0
    f23 = k[2] * e23 * d23 / r23
    rv23 = np.sum((v3 - v2) * d23, axis=-1, keepdims=True) / r23
    f23 = f23 + c * rv23 * d23 / r23
    d34 = x4 - x3
    r34 = np.sqrt(np.sum(d34 * d34, axis=-1, keepdims=True) + 1e-9)
    e34 = r34 - 1.0
    f34 = k[3] * e34 * d34 / r34
    rv34 = np.sum((v4 - v3) * d34, axis=-1, keepdims=True) / r34
    f34 = f34 + c * rv34 * d34 / r34
    # bending: a soft penalty on the angle at each inner mass
    cos1 = np.sum(d01 * d12, axis=-1, keepdims=True) / (r01 * r12)
    b1 = 0.05 * (1.0 - cos1)
    cos2 = np.sum(d12 * d23, axis=-1, keepdims=True) / (r12 * r23)
    b2 = 0.05 * (1.0 - cos2)
    cos3 = np.sum(d23 * d34, axis=-1, keepdims=True) / (r23 * r34)
    b3 = 0.05 * (1.0 - cos3)
    a0 = f01 / m[0] + g
    a0 = a0 + wind * np.tanh(x0[..., 1:2]) - 0.1 * v0
    a1 = (f12 - f01) / m[1] + g
    a1 = a1 + wind * np.tanh(x1[..., 1:2]) - 0.1 * v1
    a2 = (f23 - f12) / m[2] + g
    a2 = a2 + wind * np.tanh(x2[..., 1:2]) - 0.1 * v2
    a3 = (f34 - f23) / m[3] + g
    a3 = a3 + wind * np.tanh(x3[..., 1:2]) - 0.1 * v3
    a4 = -f34 / m[4] + g
    a4 = a4 + wind * np.tanh(x4[..., 1:2]) - 0.1 * v4
    a1 = a1 - b1 * (x1 - 0.5 * (x0 + x2))
    a2 = a2 - b2 * (x2 - 0.5 * (x1 + x3))
    a3 = a3 - b3 * (x3 - 0.5 * (x2 + x4))
    a0 = a0 * 0.0  # the first mass is pinned
    v0 = v0 + dt * a0
    x0 = x0 + dt * v0
    v1 = v1 + dt * a1
    x1 = x1 + dt * v1
    v2 = v2 + dt * a2
    x2 = x2 + dt * v2
    v3 = v3 + dt * a3
    x3 = x3 + dt * v3
    v4 = v4 + dt * a4
    x4 = x4 + dt * v4
    # substep 3: spring forces between neighbours
    d01 = x1 - x0
    r01 = np.sqrt(np.sum(d01 * d01, axis=-1, keepdims=True) + 1e-9)
    e01 = r01 - 1.0
    f01 = k[0] * e01 * d01 / r01
    rv01 = np.sum((v1 - v0) * d01, axis=-1, keepdims=True) / r01
    f01 = f01 + c * rv01 * d01 / r01
    d12 = x2 - x1
    r12 = np.sqrt(np.sum(d12 * d12, axis=-1, keepdims=True) + 1e-9)
    e12 = r12 - 1.0
    f12 = k[1] * e12 * d12 / r12
    rv12 = np.sum((v2 - v1) * d12, axis=-1, keepdims=True) / r12
    f12 = f12 + c * rv12 * d12 / r12
    d23 = x3 - x2
    r23 = np.sqrt(np.sum(d23 * d23, axis=-1, keepdims=True) + 1e-9)
    e23 = r23 - 1.0
    f23 = k[2] * e23 * d23 / r23
    rv23 = np.sum((v3 - v2) * d23, axis=-1, keepdims=True) / r23
    f23 = f23 + c * rv23 * d23 / r23
    d34 = x4 - x3
    r34 = np.sqrt(np.sum(d34 * d34, axis=-1, keepdims=True) + 1e-9)
    e34 = r34 - 1.0
    f34 = k[3] * e34 * d34 / r34
    rv34 = np.sum((v4 - v3) * d34, axis=-1, keepdims=True) / r34
    f34 = f34 + c * rv34 * d34 / r34
    # bending: a soft penalty on the angle at each inner mass
    cos1 = np.sum(d01 * d12, axis=-1, keepdims=True) / (r01 * r12)
    b1 = 0.05 * (1.0 - cos1)
    cos2 = np.sum(d12 * d23, axis=-1, keepdims=True) / (r12 * r23)
    b2 = 0.05 * (1.0 - cos2)
    cos3 = np.sum(d23 * d34, axis=-1, keepdims=True) / (r23 * r34)
    b3 = 0.05 * (1.0 - cos3)
    a0 = f01 / m[0] + g
    a0 = a0 + wind * np.tanh(x0[..., 1:2]) - 0.1 * v0
    a1 = (f12 - f01) / m[1] + g
    a1 = a1 + wind * np.tanh(x1[..., 1:2]) - 0.1 * v1
    a2 = (f23 - f12) / m[2] + g
    a2 = a2 + wind * np.tanh(x2[..., 1:2]) - 0.1 * v2
    a3 = (f34 - f23) / m[3] + g
    a3 = a3 + wind * np.tanh(x3[..., 1:2]) - 0.1 * v3
    a4 = -f34 / m[4] + g
    a4 = a4 + wind * np.tanh(x4[..., 1:2]) - 0.1 * v4
    a1 = a1 - b1 * (x1 - 0.5 * (x0 + x2))
    a2 = a2 - b2 * (x2 - 0.5 * (x1 + x3))
    a3 = a3 - b3 * (x3 - 0.5 * (x2 + x4))
    a0 = a0 * 0.0  # the first mass is pinned
    v0 = v0 + dt * a0
    x0 = x0 + dt * v0
    v1 = v1 + dt * a1
    x1 = x1 + dt * v1
    v2 = v2 + dt * a2
    x2 = x2 + dt * v2
    v3 = v3 + dt * a3
    x3 = x3 + dt * v3
    v4 = v4 + dt * a4
    x4 = x4 + dt * v4
    # the ground pushes back softly (a helper per mass)
    ground = _contact(x1[..., 1:2]) + _contact(x2[..., 1:2]) + _contact(x3[..., 1:2]) + _contact(x4[..., 1:2])
    tip = x4 - target
    loss = np.mean(np.sum(tip * tip, axis=-1))
    if np.mean(x4[..., 1]) < 0.0:
        loss = loss + 10.0 * np.mean(ground)
    else:
        loss = loss + 0.1 * np.mean(ground)
    speeds = np.stack([v0, v1, v2, v3, v4])
    energy = 0.0
    for i in range(5):
        energy = energy + 0.5 * m[i] * np.mean(np.sum(speeds[i] * speeds[i], axis=-1))
    return loss + 1e-3 * energy


def make_args(rng, batch=8):
    x = np.cumsum(np.broadcast_to([1.0, 0.0], (5, batch, 2)), axis=0) + 0.05 * rng.standard_normal((5, batch, 2))
    v = 0.1 * rng.standard_normal((5, batch, 2))
    k = 50.0 + rng.random(4)
    m = 1.0 + 0.1 * rng.random(5)
    target = np.array([4.5, -0.5]) + 0.1 * rng.standard_normal((batch, 2))
    return x, v, k, 0.5, m, target, 0.2


WORKLOADS = [
    Workload(
        name="derive-200",
        title="derivation: 200-line spring-chain step",
        fn=chain_step,
        make_args=make_args,
        wrt=(0, 1, 2, 3, 4),
        hand=None,
        derivation_only=True,
    )
]
