"""The tests of `match` patterns that Python makes through abstract base classes, as the
desugared `if`/`elif` chain calls them (compiler/matches.py). Their results are flags:
no gradient flows through them."""

import collections.abc

import numpy as np

from .registry import nondifferentiable


def matches_sequence(subject, length, at_least=False):
    """Whether a sequence pattern of `length` entries (at least that many with a `*rest`)
    can match `subject`: a `collections.abc.Sequence` but a str, bytes or bytearray."""
    if not isinstance(subject, collections.abc.Sequence) or isinstance(subject, (str, bytes, bytearray)):
        return False
    return len(subject) >= length if at_least else len(subject) == length


def matches_mapping(subject, keys):
    """Whether a mapping pattern with `keys` can match `subject`: a
    `collections.abc.Mapping` holding each key."""
    return isinstance(subject, collections.abc.Mapping) and all(key in subject for key in keys)


def matches_class(subject, cls, attributes):
    """Whether a class pattern `cls(a=..., b=...)` can match `subject`: an instance of
    `cls` having each of `attributes`."""
    return isinstance(subject, cls) and all(hasattr(subject, name) for name in attributes)


nondifferentiable(matches_sequence, matches_mapping, matches_class)



def check_out_cast(value, dtype, casting="same_kind"):
    """Raise the TypeError NumPy raises where it cannot write `value` into an `out=` array
    of `dtype` under `casting` (compiler/array_writes.py spells `np.exp(x, out=y)` as
    `y_out = np.exp(x)`, this check, `y[...] = y_out`: the assignment alone would cast a
    float into an integer array without one)."""
    have = np.result_type(value)
    if casting == "no" and have != dtype:  # np.dot's `out`
        raise ValueError("output array is not acceptable (must have the right datatype, number of dimensions, and be a "
                         "C-Array)")
    if not np.can_cast(have, dtype, casting):
        raise TypeError(f"Cannot cast output from dtype('{have}') to dtype('{np.dtype(dtype)}') with casting rule "
                        f"'{casting}'")


nondifferentiable(check_out_cast)
