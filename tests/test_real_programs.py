"""Programs written as scientists and ML engineers write NumPy (integrators, filters,
layers, likelihoods, stencils, small solvers), from a hunt for wrong gradients and
needless refusals; the first tests each once failed, the corpus at the end passed.

- `U = np.zeros(...)`, then `U += v`, then `U[:, 0] += c`: the name still holds the array
  np.zeros made (an in-place add keeps it), so the write into it is not a change of an
  entry the array might share with `v` (it was refused when it ran, `U[:, 0]` being
  an array, not a number).

Each program is checked against central differences and an independent answer, in
forward mode (the dot-product test), with its arguments left unchanged.
"""

import math

import numpy as np
import pytest

import srcgrad
from program_checks import check, check_hessian


# --- an array made in the function stays one across `U += v` ---------------------------


def accumulated_grid(x, v):
    U = np.zeros((3, len(v)))
    U += v
    U[:, 0] += x[0]
    return np.sum(U ** 2)


def accumulated_rows(x, v):
    U = np.zeros((3, len(v)))
    U += v
    U[:, 0] += x[0]
    U[1] *= x
    return np.sum(U ** 2)


def test_an_array_made_here_keeps_its_own_memory_across_an_augmented_add():
    x, v = np.array([0.3, -0.5, 1.2, 0.7]), np.array([1.0, 2.0, -1.0, 0.5])
    gx = np.zeros(4)
    gx[0] = 6 * (v[0] + x[0])
    gv = 6 * v
    gv[0] = 6 * (v[0] + x[0])
    check(accumulated_grid, x, v, expected=[gx, gv])
    check(accumulated_rows, x, v)
    check_hessian(accumulated_rows, (x, v), 0)
