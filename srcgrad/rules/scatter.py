"""Scatter-adds as pure functions: `added_at(y, index, v)` is a copy of `y` after
`np.add.at(copy, index, v)`, `subtracted_at` the same with `np.subtract.at`.

idioms.py spells the statement `np.add.at(y, index, v)` on an array the function makes
as the full write `y[...] = added_at(y, index, v)`, which the checks of writes into
arrays then see (another name or a view sharing `y` is refused), and which these rules
differentiate. Each entry of `v` is added once per time `index` names its place, so its
gradient is the sum of `g` over those places: `g[index]`, summed down to v's shape
(broadcasting). The result is linear in `y` and `v`, so the forward rules apply the
same scatter to the tangents; `index` only selects.
"""

import numpy as np

from ..runtime import unbroadcast, zeros_like_grad
from .registry import defjvp, defvjp, discrete


def added_at(y, index, v):
    """A copy of the array `y` with `v` added at `index`, repeated indices adding once
    per repeat (`np.add.at`); `y` itself is left as it was."""
    out = y.copy()
    np.add.at(out, index, v)
    return out


def subtracted_at(y, index, v):
    """A copy of the array `y` with `v` subtracted at `index`, once per repeat
    (`np.subtract.at`); `y` itself is left as it was."""
    out = y.copy()
    np.subtract.at(out, index, v)
    return out


@defvjp(added_at, "y", name="AddAt")
@defvjp(subtracted_at, "y", name="SubtractAt")
def scatter_vjp_y(g, ans, y, index, v):
    return g


@defjvp(added_at, "y")
@defjvp(subtracted_at, "y")
def scatter_jvp_y(t, ans, y, index, v):
    return t


@defvjp(added_at, "v")
def added_at_vjp_v(g, ans, y, index, v):
    return unbroadcast(g[index], v)


@defjvp(added_at, "v")
def added_at_jvp_v(t, ans, y, index, v):
    return added_at(zeros_like_grad(ans), index, t)


@defvjp(subtracted_at, "v")
def subtracted_at_vjp_v(g, ans, y, index, v):
    return unbroadcast(-g[index], v)


@defjvp(subtracted_at, "v")
def subtracted_at_jvp_v(t, ans, y, index, v):
    return subtracted_at(zeros_like_grad(ans), index, t)


discrete(added_at, "index")
discrete(subtracted_at, "index")
