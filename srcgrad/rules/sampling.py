"""Random draws whose parameters carry the derivative (the reparameterization trick): the
pathwise derivative of the draw made, read back from the rule's `ans`.

NumPy draws these samplers as a location-scale map of a standard draw that does not
depend on the parameters (numpy/random/src/distributions/distributions.c and the legacy
functions; checked bit for bit against the standard draws of the same seed):
`normal(loc, scale) = loc + scale * z`, `laplace`, `logistic` and `gumbel` likewise,
`uniform(low, high) = low + (high - low) * u`, `exponential(scale) = scale * e` and
`lognormal(mean, sigma) = exp(normal(mean, sigma))`. So `d/dloc = 1` and
`d/dscale = (ans - loc) / scale`, the standard draw itself; the rules read it from `ans`,
so the derivative is that of the very draw the function made (value and gradient of one
draw). A zero scale (or `high == low`) loses the standard draw: its derivative raises.

Each sampler has rules three times: the legacy functions (`np.random.normal`, methods of
NumPy's global RandomState), and the methods of `np.random.Generator` and
`np.random.RandomState`, which take the generator first (`Generator.normal(rng, ...)`, how
the compiler calls `rng.normal(...)` where `rng` is known to hold one: compiler/resolve.py,
function_arguments.py).

Each run of a derivative draws anew, as the function does: `value_and_grad` gives the value
and the gradient of one draw. A derivative that runs the function more than once (`hessian`,
a `jacobian` of several rows) sees one draw per run unless the function seeds its generator
itself (`rng = np.random.default_rng(0)`), which also makes central differences comparable.
"""

import numpy as np

from .registry import elementwise


def _ones_like_draw(ans):
    """The derivative of the draw in its location: ones shaped like the draw (the location
    may be a scalar broadcast to `size`)."""
    return np.ones_like(ans, dtype=np.result_type(ans, 1.0))


def _standard_draw(ans, loc, scale, name="scale"):
    """The standard draw `(ans - loc) / scale` behind `ans = loc + scale * draw`; where the
    scale is zero the draw is lost, and a derivative in the scale cannot be had."""
    if np.any(np.asarray(scale) == 0):
        raise ValueError(
            f"srcgrad differentiates a random draw in its {name} through the standard draw read back from "
            f"its result, (ans - loc) / {name}, which a {name} of 0 loses: draw the standard sample "
            f"yourself (`loc + {name} * rng.standard_normal(size)`) to differentiate at a {name} of 0"
        )
    return (ans - loc) / scale


def _location_scale(primal, receiver):
    """Rules for `primal(loc, scale, size)`: `loc + scale * draw` (normal, laplace, logistic,
    gumbel); `receiver`: the primal takes the generator first."""
    if receiver:
        @elementwise(primal, "loc")
        def loc_d(ans, rng, loc=0.0, scale=1.0, size=None):
            return _ones_like_draw(ans)

        @elementwise(primal, "scale")
        def scale_d(ans, rng, loc=0.0, scale=1.0, size=None):
            return _standard_draw(ans, loc, scale)
    else:
        @elementwise(primal, "loc")
        def loc_d(ans, loc=0.0, scale=1.0, size=None):
            return _ones_like_draw(ans)

        @elementwise(primal, "scale")
        def scale_d(ans, loc=0.0, scale=1.0, size=None):
            return _standard_draw(ans, loc, scale)


def _uniform(primal, receiver):
    """Rules for `uniform(low, high, size) = low + (high - low) * u`."""
    if receiver:
        @elementwise(primal, "low")
        def low_d(ans, rng, low=0.0, high=1.0, size=None):
            return 1.0 - _standard_draw(ans, low, high - low, "range")

        @elementwise(primal, "high")
        def high_d(ans, rng, low=0.0, high=1.0, size=None):
            return _standard_draw(ans, low, high - low, "range")
    else:
        @elementwise(primal, "low")
        def low_d(ans, low=0.0, high=1.0, size=None):
            return 1.0 - _standard_draw(ans, low, high - low, "range")

        @elementwise(primal, "high")
        def high_d(ans, low=0.0, high=1.0, size=None):
            return _standard_draw(ans, low, high - low, "range")


def _exponential(primal, receiver):
    """Rules for `exponential(scale, size) = scale * e`."""
    if receiver:
        @elementwise(primal, "scale")
        def scale_d(ans, rng, scale=1.0, size=None):
            return _standard_draw(ans, 0.0, scale)
    else:
        @elementwise(primal, "scale")
        def scale_d(ans, scale=1.0, size=None):
            return _standard_draw(ans, 0.0, scale)


def _lognormal(primal, receiver):
    """Rules for `lognormal(mean, sigma, size) = exp(mean + sigma * z)`."""
    if receiver:
        @elementwise(primal, "mean")
        def mean_d(ans, rng, mean=0.0, sigma=1.0, size=None):
            return ans

        @elementwise(primal, "sigma")
        def sigma_d(ans, rng, mean=0.0, sigma=1.0, size=None):
            return ans * _standard_draw(np.log(ans), mean, sigma, "sigma")
    else:
        @elementwise(primal, "mean")
        def mean_d(ans, mean=0.0, sigma=1.0, size=None):
            return ans

        @elementwise(primal, "sigma")
        def sigma_d(ans, mean=0.0, sigma=1.0, size=None):
            return ans * _standard_draw(np.log(ans), mean, sigma, "sigma")


SAMPLERS = {"normal": _location_scale, "laplace": _location_scale, "logistic": _location_scale,
            "gumbel": _location_scale, "uniform": _uniform, "exponential": _exponential, "lognormal": _lognormal}

# method name -> its primal, per generator class: `rng.normal(...)` of a known Generator
GENERATOR_METHODS = {cls: {name: getattr(cls, name) for name in SAMPLERS} for cls in (np.random.Generator, np.random.RandomState)}

for _name, _register in SAMPLERS.items():
    _register(getattr(np.random, _name), receiver=False)
    for _cls in GENERATOR_METHODS:
        _register(getattr(_cls, _name), receiver=True)
