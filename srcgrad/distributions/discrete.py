"""Bernoulli and Categorical as in `torch.distributions`, given `probs` or `logits`
(the other made from it when first read, as PyTorch's lazy properties)."""

import numpy as np

from ..nn import functional as F
from ..tensor import (
    Size, arange, bernoulli, clamp, finfo, full, full_like, int64, log, log1p, multinomial, no_grad, sigmoid, where,
)
from . import constraints
from .distribution import Distribution, broadcast_all

__all__ = ["Bernoulli", "Categorical", "probs_to_logits", "logits_to_probs", "clamp_probs"]


def clamp_probs(probs):
    """`probs` kept an epsilon of its dtype away from 0 and 1."""
    eps = finfo(probs.dtype).eps
    return probs.clamp(min=eps, max=1 - eps)


def probs_to_logits(probs, is_binary=False):
    clipped = clamp_probs(probs)
    return log(clipped) - log1p(-clipped) if is_binary else log(clipped)


def logits_to_probs(logits, is_binary=False):
    return sigmoid(logits) if is_binary else F.softmax(logits, dim=-1)


def _one_of(probs, logits):
    if (probs is None) == (logits is None):
        raise ValueError("Either `probs` or `logits` must be specified, but not both.")


class _Lazy:
    """`probs` made from `logits` (or the reverse) when first read, then kept."""

    def __init__(self, make):
        self.make, self.name = make, make.__name__

    def __get__(self, owner, kind=None):
        if owner is None:
            return self
        value = owner.__dict__[self.name] = self.make(owner)
        return value


class Bernoulli(Distribution):
    """1 with probability `probs` (or sigmoid(`logits`)), else 0."""

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.boolean
    has_enumerate_support = True

    def __init__(self, probs=None, logits=None, validate_args=None):
        _one_of(probs, logits)
        if probs is not None:
            (self.__dict__["probs"],) = broadcast_all(probs)
            shape = self.probs.size()
        else:
            (self.__dict__["logits"],) = broadcast_all(logits)
            shape = self.logits.size()
        super().__init__(shape, validate_args=validate_args)

    @_Lazy
    def probs(self):
        return logits_to_probs(self.logits, is_binary=True)

    @_Lazy
    def logits(self):
        return probs_to_logits(self.probs, is_binary=True)

    @property
    def mean(self):
        return self.probs

    @property
    def mode(self):
        mode = (self.probs >= 0.5).to(self.probs.dtype)
        return where(self.probs == 0.5, full_like(mode, float("nan")), mode)

    @property
    def variance(self):
        return self.probs * (1 - self.probs)

    def sample(self, sample_shape=Size()):
        shape = self._extended_shape(sample_shape)
        with no_grad():
            return bernoulli(self.probs.expand(shape))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        return -F.binary_cross_entropy_with_logits(logits, value, reduction="none")

    def entropy(self):
        return F.binary_cross_entropy_with_logits(self.logits, self.probs, reduction="none")


class Categorical(Distribution):
    """One of `probs.size(-1)` categories, by the weights `probs` (normalized) or the
    unnormalized log-probabilities `logits`; the last dim indexes the categories."""

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    has_enumerate_support = True

    def __init__(self, probs=None, logits=None, validate_args=None):
        _one_of(probs, logits)
        if probs is not None:
            if probs.dim() < 1:
                raise ValueError("`probs` parameter must be at least one-dimensional.")
            self.__dict__["probs"] = probs / probs.sum(-1, keepdim=True)
        else:
            if logits.dim() < 1:
                raise ValueError("`logits` parameter must be at least one-dimensional.")
            self.__dict__["logits"] = logits - logits.logsumexp(dim=-1, keepdim=True)
        self._param = self.__dict__.get("probs", self.__dict__.get("logits"))
        self._num_events = self._param.size()[-1]
        super().__init__(self._param.size()[:-1], validate_args=validate_args)

    @_Lazy
    def probs(self):
        return logits_to_probs(self.logits)

    @_Lazy
    def logits(self):
        return probs_to_logits(self.probs)

    @property
    def param_shape(self):
        return self._param.size()

    @property
    def support(self):
        return constraints.integer_interval(0, self._num_events - 1)

    @property
    def mean(self):
        return full(tuple(self._extended_shape()), float("nan"), dtype=self.probs.dtype)

    @property
    def mode(self):
        return self.probs.argmax(dim=-1)

    @property
    def variance(self):
        return full(tuple(self._extended_shape()), float("nan"), dtype=self.probs.dtype)

    def sample(self, sample_shape=Size()):
        sample_shape = Size(sample_shape)
        count = 1
        for n in sample_shape:
            count *= n
        with no_grad():
            probs_2d = self.probs.reshape(-1, self._num_events)
            samples_2d = multinomial(probs_2d, count, True).t()
        return samples_2d.reshape(tuple(self._extended_shape(sample_shape)))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        value = value.long().unsqueeze(-1)
        shape = Size(np.broadcast_shapes(tuple(value.shape), tuple(self.logits.shape)))
        value, log_pmf = value.expand(shape), self.logits.expand(shape)
        return log_pmf.gather(-1, value[..., :1]).squeeze(-1)

    def entropy(self):
        logits = clamp(self.logits, min=finfo(self.logits.dtype).min)
        return -(logits * self.probs).sum(-1)

    def enumerate_support(self, expand=True):
        values = arange(self._num_events, dtype=int64).view((-1,) + (1,) * len(self._batch_shape))
        return values.expand((-1,) + tuple(self._batch_shape)) if expand else values
