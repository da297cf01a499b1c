"""Datasets and batching as `torch.utils.data`: `Dataset`, `TensorDataset`, `Subset`,
`random_split`, `DataLoader` and its `default_collate`.

A DataLoader iterates in the main process (`num_workers` other than 0 is refused by
name) and reads a map-style dataset through PyTorch's samplers (samplers.py): a
RandomSampler when `shuffle`, a SequentialSampler otherwise, grouped by a BatchSampler.
Shuffling and random splits draw from their `generator=` or the default generator (the
one `srcgrad.manual_seed` seeds), so the order is reproducible but is not PyTorch's order.
"""

import builtins
import collections.abc
import math
import numbers

import numpy as np

from ..tensor import Tensor, dtypes, stack, tensor
from ..tensor.draws import randperm
from ..tensor.generators import default_generator
from .samplers import (BatchSampler, RandomSampler, Sampler, SequentialSampler, SubsetRandomSampler,
                       WeightedRandomSampler)

__all__ = ["Dataset", "IterableDataset", "TensorDataset", "ConcatDataset", "Subset", "random_split", "DataLoader",
           "default_collate", "Sampler", "SequentialSampler", "RandomSampler", "SubsetRandomSampler",
           "WeightedRandomSampler", "BatchSampler"]


class Dataset:
    """A map-style dataset: `__getitem__(i)` for i in range(len(dataset))."""

    def __getitem__(self, index):
        raise NotImplementedError("Subclasses of Dataset should implement __getitem__.")

    def __add__(self, other):
        return ConcatDataset([self, other])


class IterableDataset(Dataset):
    """A dataset read by iterating over it (`__iter__`), in the order it gives."""

    def __iter__(self):
        raise NotImplementedError("Subclasses of IterableDataset should implement __iter__.")


class TensorDataset(Dataset):
    """Entry i is `tuple(t[i] for t in tensors)`; every tensor has the same first size."""

    def __init__(self, *tensors):
        if any(t.size(0) != tensors[0].size(0) for t in tensors):
            raise AssertionError("Size mismatch between tensors")
        self.tensors = tensors

    def __getitem__(self, index):
        return tuple(t[index] for t in self.tensors)

    def __len__(self):
        return self.tensors[0].size(0)


class ConcatDataset(Dataset):
    """The entries of several datasets one after another."""

    def __init__(self, datasets):
        self.datasets = list(datasets)
        if not self.datasets:
            raise AssertionError("datasets should not be an empty iterable")
        self.cumulative_sizes = list(np.cumsum([len(d) for d in self.datasets]))

    def __len__(self):
        return builtins.int(self.cumulative_sizes[-1])

    def __getitem__(self, index):
        if index < 0:
            if -index > len(self):
                raise ValueError("absolute value of index should not exceed dataset length")
            index += len(self)
        which = builtins.int(np.searchsorted(self.cumulative_sizes, index, side="right"))
        start = 0 if which == 0 else builtins.int(self.cumulative_sizes[which - 1])
        return self.datasets[which][index - start]


class Subset(Dataset):
    """The entries of `dataset` at `indices`, in that order."""

    def __init__(self, dataset, indices):
        self.dataset = dataset
        self.indices = indices

    def __getitem__(self, index):
        if isinstance(index, list):
            return self.dataset[[self.indices[i] for i in index]]
        return self.dataset[self.indices[index]]

    def __len__(self):
        return len(self.indices)


def _lengths(total, lengths):
    """Whole lengths from `lengths` (whole numbers summing to `total`, or fractions summing
    to 1, rounded down with the remainder given one by one from the first, as PyTorch)."""
    if math.isclose(builtins.sum(lengths), 1) and builtins.sum(lengths) <= 1:
        counts = []
        for i, frac in enumerate(lengths):
            if frac < 0 or frac > 1:
                raise ValueError(f"Fraction at index {i} is not between 0 and 1")
            counts.append(builtins.int(math.floor(total * frac)))
        for i in range(total - builtins.sum(counts)):
            counts[i % len(counts)] += 1
        return counts
    if builtins.sum(lengths) != total:
        raise ValueError("Sum of input lengths does not equal the length of the input dataset!")
    return [builtins.int(n) for n in lengths]


def random_split(dataset, lengths, generator=default_generator):
    """`dataset` split into non-overlapping Subsets of the given lengths (or fractions), in
    the order of one permutation drawn from `generator`."""
    counts = _lengths(len(dataset), lengths)
    order = randperm(builtins.sum(counts), generator=generator).tolist()
    subsets, start = [], 0
    for n in counts:
        subsets.append(Subset(dataset, order[start:start + n]))
        start += n
    return subsets


def default_collate(batch):
    """A batch of samples made one structure of stacked tensors: tensors stacked along a new
    first dimension; NumPy arrays likewise, as tensors; floats as a float64 tensor, ints as
    int64, bools as bool; strings kept as a list; tuples, lists and dicts entry by entry
    (a tuple or list of samples gives a list, as PyTorch)."""
    first = batch[0]
    if isinstance(first, Tensor):
        return stack(list(batch), 0)
    if isinstance(first, np.ndarray):
        if first.dtype.kind in "SaUO":
            raise TypeError(f"default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; found {first.dtype}")
        return stack([tensor(b) for b in batch], 0)
    if isinstance(first, np.generic):
        return tensor(np.array(batch))
    if isinstance(first, builtins.bool):
        return tensor(list(batch))
    if isinstance(first, numbers.Integral):
        return tensor(list(batch), dtype=dtypes.int64)
    if isinstance(first, numbers.Real):
        return tensor(list(batch), dtype=dtypes.float64)
    if isinstance(first, (str, bytes)):
        return list(batch)
    if isinstance(first, collections.abc.Mapping):
        return {key: default_collate([b[key] for b in batch]) for key in first}
    if isinstance(first, tuple) and hasattr(first, "_fields"):  # a namedtuple
        return type(first)(*(default_collate(list(items)) for items in zip(*batch)))
    if isinstance(first, collections.abc.Sequence):
        if any(len(b) != len(first) for b in batch):
            raise RuntimeError("each element in list of batch should be of equal size")
        return [default_collate(list(items)) for items in zip(*batch)]
    raise TypeError("default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; "
                    f"found {type(first)}")


class DataLoader:
    """Batches of `dataset`: `batch_size` samples each (the last one shorter unless
    `drop_last`), in order or shuffled anew at every pass, put together by `collate_fn`.
    `batch_size=None` gives the samples one by one, uncollated."""

    def __init__(self, dataset, batch_size=1, shuffle=None, sampler=None, batch_sampler=None, num_workers=0,
                 collate_fn=None, pin_memory=False, drop_last=False, timeout=0, worker_init_fn=None,
                 generator=None, **options):
        if num_workers:
            raise ValueError("srcgrad's DataLoader loads in the main process: pass num_workers=0")
        if batch_size is not None and (not isinstance(batch_size, numbers.Integral) or batch_size <= 0):
            raise ValueError(f"batch_size should be a positive integer value, but got batch_size={batch_size}")
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None and (batch_size != 1 or shuffle or sampler is not None or drop_last):
            raise ValueError("batch_sampler option is mutually exclusive with batch_size, shuffle, sampler, and drop_last")
        if isinstance(dataset, IterableDataset) and (shuffle or sampler is not None):
            raise ValueError(f"DataLoader with IterableDataset: expected unspecified shuffle option, but got shuffle={shuffle}")
        if sampler is None and not isinstance(dataset, IterableDataset):
            sampler = RandomSampler(dataset, generator=generator) if shuffle else SequentialSampler(dataset)
        if batch_sampler is not None:
            batch_size, drop_last = None, False
        elif batch_size is not None and sampler is not None:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)
        self.dataset = dataset
        self.batch_size = batch_size
        self.shuffle = builtins.bool(shuffle)
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        self.num_workers = 0
        self.drop_last = drop_last
        self.generator = generator
        self.collate_fn = collate_fn if collate_fn is not None else (
            default_collate if batch_size is not None or batch_sampler is not None else (lambda sample: sample))

    def __iter__(self):
        if isinstance(self.dataset, IterableDataset):
            return self._iterate_stream()
        if self.batch_sampler is None:
            return (self.collate_fn(self.dataset[i]) for i in self.sampler)
        return (self.collate_fn([self.dataset[i] for i in batch]) for batch in self.batch_sampler)

    def _iterate_stream(self):
        if self.batch_size is None:
            yield from (self.collate_fn(sample) for sample in self.dataset)
            return
        batch = []
        for sample in self.dataset:
            batch.append(sample)
            if len(batch) == self.batch_size:
                yield self.collate_fn(batch)
                batch = []
        if batch and not self.drop_last:
            yield self.collate_fn(batch)

    def __len__(self):
        if isinstance(self.dataset, IterableDataset):
            n = len(self.dataset)
        elif self.batch_sampler is not None:
            return len(self.batch_sampler)
        else:
            return len(self.sampler)
        if self.batch_size is None:
            return n
        return n // self.batch_size if self.drop_last else -(-n // self.batch_size)
