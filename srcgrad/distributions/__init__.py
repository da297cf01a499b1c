"""`srcgrad.distributions`, as `torch.distributions`: Normal, Uniform, Exponential,
Bernoulli, Categorical, `kl_divergence` and the constraints they use. Densities are
Tensor code, differentiable in their parameters; `rsample` is reparameterized."""

from . import constraints  # noqa: F401
from .continuous import Exponential, Normal, Uniform
from .discrete import Bernoulli, Categorical
from .distribution import Distribution
from .kl import kl_divergence, register_kl

__all__ = ["constraints", "Distribution", "Normal", "Uniform", "Exponential", "Bernoulli", "Categorical",
           "kl_divergence", "register_kl"]
