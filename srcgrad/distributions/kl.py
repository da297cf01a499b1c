"""`kl_divergence(p, q)` as in `torch.distributions.kl`: closed forms for pairs of one
family (Normal, Bernoulli, Categorical, Uniform, Exponential), registered by type;
`register_kl` adds a pair."""

import math

from ..nn import functional as F
from ..tensor import full_like, log, where
from .continuous import Exponential, Normal, Uniform
from .discrete import Bernoulli, Categorical

__all__ = ["kl_divergence", "register_kl"]

_KL = {}


def register_kl(type_p, type_q):
    """Decorator: `fn(p, q)` is KL(p || q) for p of `type_p` and q of `type_q`."""

    def register(fn):
        _KL[(type_p, type_q)] = fn
        return fn

    return register


def kl_divergence(p, q):
    """KL(p || q), per batch element, from the most specific registered pair of types."""
    for kind_p in type(p).__mro__:
        for kind_q in type(q).__mro__:
            fn = _KL.get((kind_p, kind_q))
            if fn is not None:
                return fn(p, q)
    raise NotImplementedError(f"No KL(p || q) is implemented for p type {type(p).__name__} and q type {type(q).__name__}")


@register_kl(Normal, Normal)
def _kl_normal_normal(p, q):
    var_ratio = (p.scale / q.scale).pow(2)
    t1 = ((p.loc - q.loc) / q.scale).pow(2)
    return 0.5 * (var_ratio + t1 - 1 - var_ratio.log())


@register_kl(Bernoulli, Bernoulli)
def _kl_bernoulli_bernoulli(p, q):
    t1 = p.probs * (F.softplus(-q.logits) - F.softplus(-p.logits))
    t1 = where(q.probs == 0, math.inf, t1)
    t1 = where(p.probs == 0, 0.0, t1)
    t2 = (1 - p.probs) * (F.softplus(q.logits) - F.softplus(p.logits))
    t2 = where(q.probs == 1, math.inf, t2)
    t2 = where(p.probs == 1, 0.0, t2)
    return t1 + t2


@register_kl(Categorical, Categorical)
def _kl_categorical_categorical(p, q):
    t = p.probs * (p.logits - q.logits)
    t = where((q.probs == 0).expand_as(t), math.inf, t)
    t = where((p.probs == 0).expand_as(t), 0.0, t)
    return t.sum(-1)


@register_kl(Uniform, Uniform)
def _kl_uniform_uniform(p, q):
    result = ((q.high - q.low) / (p.high - p.low)).log()
    return where((q.low > p.low) | (q.high < p.high), math.inf, result)


@register_kl(Exponential, Exponential)
def _kl_exponential_exponential(p, q):
    rate_ratio = q.rate / p.rate
    return -rate_ratio.log() + rate_ratio - 1


def _infinite_like(tensor):
    return full_like(tensor, math.inf)


@register_kl(Normal, Exponential)
@register_kl(Normal, Uniform)
def _kl_normal_bounded(p, q):
    """A normal puts mass where an exponential or uniform has none."""
    return _infinite_like(p.loc)


@register_kl(Exponential, Uniform)
def _kl_exponential_uniform(p, q):
    return _infinite_like(p.rate)


@register_kl(Exponential, Normal)
def _kl_exponential_normal(p, q):
    var_normal = q.scale.pow(2)
    rate_sqr = p.rate.pow(2)
    t1 = 0.5 * log(rate_sqr * var_normal * 2 * math.pi)
    t2 = rate_sqr.reciprocal()
    t3 = q.loc / p.rate
    t4 = q.loc.pow(2) * 0.5
    return t1 - 1 + (t2 - t3 + t4) / var_normal


@register_kl(Uniform, Normal)
def _kl_uniform_normal(p, q):
    common_term = p.high - p.low
    t1 = (math.sqrt(math.pi * 2) * q.scale / common_term).log()
    t2 = common_term.pow(2) / 12
    t3 = ((p.high + p.low - 2 * q.loc) / 2).pow(2)
    return t1 + 0.5 * (t2 + t3) / q.scale.pow(2)


@register_kl(Uniform, Exponential)
def _kl_uniform_exponential(p, q):
    result = q.rate * (p.high + p.low) / 2 - ((p.high - p.low) * q.rate).log()
    return where(p.low < 0, math.inf, result)
