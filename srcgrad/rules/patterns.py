"""The tests of `match` patterns that Python makes through abstract base classes, as the
desugared `if`/`elif` chain calls them (compiler/matches.py). Their results are flags:
no gradient flows through them."""

import collections.abc

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
