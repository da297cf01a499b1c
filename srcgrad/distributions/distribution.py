"""`Distribution`, the base of srcgrad's `torch.distributions`: batch and event shapes,
argument validation with PyTorch's messages, sample shapes, and the repr.

Every density is Tensor code over the shim's ops (and so over the rule registry):
`log_prob`, `entropy` and `rsample` are differentiable in the parameters, to every order.
`sample` draws without a graph, from srcgrad's generator (`manual_seed` seeds it).
Validation is on by default, as in PyTorch (`validate_args=False` or
`Distribution.set_default_validate_args(False)` turns it off).
"""

import numpy as np

from ..tensor import Size, Tensor, as_tensor, get_default_dtype, no_grad
from . import constraints

__all__ = ["Distribution", "broadcast_all"]


def broadcast_all(*values):
    """The values (Tensors or numbers) as Tensors of one broadcast shape; numbers take the
    dtype of the Tensors among them, else the default float."""
    tensors = [v for v in values if isinstance(v, Tensor)]
    dtype = tensors[0].dtype if tensors else get_default_dtype()
    made = [v if isinstance(v, Tensor) else as_tensor(float(v), dtype=dtype) for v in values]
    shape = Size(np.broadcast_shapes(*(tuple(t.shape) for t in made)))
    return tuple(t if tuple(t.shape) == tuple(shape) else t.expand(shape) for t in made)


class Distribution:
    """A probability distribution with batch shape `batch_shape` and event shape
    `event_shape`; subclasses set `arg_constraints` and `support`."""

    has_rsample = False
    has_enumerate_support = False
    _validate_args = True
    arg_constraints = {}
    support = None

    @staticmethod
    def set_default_validate_args(value):
        if value not in (True, False):
            raise ValueError
        Distribution._validate_args = value

    def __init__(self, batch_shape=(), event_shape=(), validate_args=None):
        self._batch_shape, self._event_shape = Size(batch_shape), Size(event_shape)
        if validate_args is not None:
            self._validate_args = validate_args
        if self._validate_args:
            for param, constraint in self.arg_constraints.items():
                if constraints.is_dependent(constraint) or param not in self.__dict__:
                    continue  # a parameter made from another when first read is checked through that one
                value = getattr(self, param)
                if not bool(constraint.check(value).all()):
                    raise ValueError(
                        f"Expected parameter {param} ({type(value).__name__} of shape {tuple(value.shape)}) of "
                        f"distribution {self!r} to satisfy the constraint {constraint!r}, but found invalid values:\n{value}")

    @property
    def batch_shape(self):
        return self._batch_shape

    @property
    def event_shape(self):
        return self._event_shape

    def _extended_shape(self, sample_shape=()):
        return Size(tuple(Size(sample_shape)) + tuple(self._batch_shape) + tuple(self._event_shape))

    def sample(self, sample_shape=Size()):
        with no_grad():
            return self.rsample(sample_shape)

    def rsample(self, sample_shape=Size()):
        raise NotImplementedError

    def sample_n(self, n):
        return self.sample(Size((n,)))

    @property
    def stddev(self):
        return self.variance.sqrt()

    def perplexity(self):
        return self.entropy().exp()

    def _validate_sample(self, value):
        """PyTorch's checks of a value given to log_prob (or cdf): a Tensor, broadcastable
        with the batch and event shapes, and within the support."""
        if not isinstance(value, Tensor):
            raise ValueError("The value argument to log_prob must be a Tensor")
        event_dim_start = len(value.shape) - len(self._event_shape)
        if tuple(value.shape[event_dim_start:]) != tuple(self._event_shape):
            raise ValueError(f"The right-most size of value must match event_shape: {value.size()} vs {self._event_shape}.")
        actual, expected = value.size(), self._batch_shape + self._event_shape
        for i, j in zip(reversed(actual), reversed(expected)):
            if i != 1 and j != 1 and i != j:
                raise ValueError(f"Value is not broadcastable with batch_shape+event_shape: {actual} vs {expected}.")
        support = self.support
        if support is None or not self._validate_args:
            return
        if not bool(support.check(value).all()):
            raise ValueError(
                f"Expected value argument ({type(value).__name__} of shape {tuple(value.shape)}) to be within the "
                f"support ({support!r}) of the distribution {self!r}, but found invalid values:\n{value}")

    def __repr__(self):
        names = [k for k in self.arg_constraints if k in self.__dict__]
        shown = ", ".join(f"{p}: {self.__dict__[p] if self.__dict__[p].numel() == 1 else self.__dict__[p].size()}"
                          for p in names)
        return f"{type(self).__name__}({shown})"
