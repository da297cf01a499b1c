"""The samplers of `torch.utils.data`: the order in which a DataLoader reads a map-style
dataset's indices (`Sampler`, `SequentialSampler`, `RandomSampler`,
`SubsetRandomSampler`, `WeightedRandomSampler`) and how it groups them (`BatchSampler`).

As in PyTorch, the random ones draw from their `generator=`; a RandomSampler without one
draws from a Generator seeded anew at each pass from the default generator (so
`manual_seed` makes the passes reproducible and each pass differs). The numbers are
srcgrad's own stream, not PyTorch's; lengths, replacement and errors are PyTorch's.
"""

import builtins

from ..tensor import creation, dtypes
from ..tensor.draws import multinomial, randperm
from ..tensor.generators import Generator

__all__ = ["Sampler", "SequentialSampler", "RandomSampler", "SubsetRandomSampler", "WeightedRandomSampler",
           "BatchSampler"]


def _positive_int(value, name):
    """PyTorch's check of a sampler's count: an int (not a bool) above 0."""
    if not isinstance(value, builtins.int) or isinstance(value, builtins.bool) or value <= 0:
        raise ValueError(f"{name} should be a positive integer value, but got {name}={value}")


class Sampler:
    """The base of samplers: a subclass gives `__iter__` (the indices) and, where it
    knows it, `__len__`."""

    def __init__(self, data_source=None):
        pass

    def __iter__(self):
        raise NotImplementedError


class SequentialSampler(Sampler):
    """The indices 0 .. len(data_source) - 1 in order."""

    def __init__(self, data_source):
        self.data_source = data_source

    def __iter__(self):
        return iter(range(len(self.data_source)))

    def __len__(self):
        return len(self.data_source)


class RandomSampler(Sampler):
    """`num_samples` (default: the dataset's length) random indices: whole permutations
    one after another (the last one cut short) without `replacement`, independent
    uniform draws with it."""

    def __init__(self, data_source, replacement=False, num_samples=None, generator=None):
        self.data_source = data_source
        self.replacement = replacement
        self._num_samples = num_samples
        self.generator = generator
        if not isinstance(self.replacement, builtins.bool):
            raise TypeError(f"replacement should be a boolean value, but got replacement={self.replacement}")
        if not isinstance(self.num_samples, builtins.int) or self.num_samples <= 0:
            raise ValueError(f"num_samples should be a positive integer value, but got num_samples={self.num_samples}")

    @property
    def num_samples(self):
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self):
        n = len(self.data_source)
        generator = self.generator
        if generator is None:
            seed = creation.empty((), dtype=dtypes.int64).random_().item()
            generator = Generator().manual_seed(seed)
        if self.replacement:
            for _ in range(self.num_samples // 32):
                yield from creation.randint(n, (32,), generator=generator).tolist()
            yield from creation.randint(n, (self.num_samples % 32,), generator=generator).tolist()
        else:
            for _ in range(self.num_samples // n):
                yield from randperm(n, generator=generator).tolist()
            yield from randperm(n, generator=generator).tolist()[:self.num_samples % n]

    def __len__(self):
        return self.num_samples


class SubsetRandomSampler(Sampler):
    """The given `indices` in a random order (a fresh permutation at each pass)."""

    def __init__(self, indices, generator=None):
        self.indices = indices
        self.generator = generator

    def __iter__(self):
        for i in randperm(len(self.indices), generator=self.generator).tolist():
            yield self.indices[i]

    def __len__(self):
        return len(self.indices)


class WeightedRandomSampler(Sampler):
    """`num_samples` indices drawn with probabilities proportional to `weights` (with
    `replacement` unless told otherwise: `multinomial`'s draw and errors)."""

    def __init__(self, weights, num_samples, replacement=True, generator=None):
        _positive_int(num_samples, "num_samples")
        if not isinstance(replacement, builtins.bool):
            raise ValueError(f"replacement should be a boolean value, but got replacement={replacement}")
        weights = creation.as_tensor(weights, dtype=dtypes.float64)
        if weights.dim() != 1:
            raise ValueError(f"weights should be a 1d sequence but given weights have shape {tuple(weights.shape)}")
        self.weights = weights
        self.num_samples = num_samples
        self.replacement = replacement
        self.generator = generator

    def __iter__(self):
        yield from multinomial(self.weights, self.num_samples, self.replacement, generator=self.generator).tolist()

    def __len__(self):
        return self.num_samples


class BatchSampler(Sampler):
    """The indices of `sampler` in lists of `batch_size` (the last one shorter unless
    `drop_last`)."""

    def __init__(self, sampler, batch_size, drop_last):
        _positive_int(batch_size, "batch_size")
        if not isinstance(drop_last, builtins.bool):
            raise ValueError(f"drop_last should be a boolean value, but got drop_last={drop_last}")
        self.sampler = sampler
        self.batch_size = batch_size
        self.drop_last = drop_last

    def __iter__(self):
        batch = []
        for index in self.sampler:
            batch.append(index)
            if len(batch) == self.batch_size:
                yield batch
                batch = []
        if batch and not self.drop_last:
            yield batch

    def __len__(self):
        if self.drop_last:
            return len(self.sampler) // self.batch_size
        return (len(self.sampler) + self.batch_size - 1) // self.batch_size
