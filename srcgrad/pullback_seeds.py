"""The checks of the seed given to a pullback of `vjp` (api.py): the seed has the
output's structure, and each of its leaves is a real number or array whose shape
broadcasts against the output leaf's, so that a wrong seed is refused with a message
naming the function and the leaf instead of failing inside the generated code (a
string, None; a leaf of the wrong shape as NumPy's broadcasting error). A list of
numbers is the array it spells.

A leaf seed of None, in a list, tuple or dict seed, is the seed 0 of its output leaf;
a dict seed may leave out keys (their seeds 0). Each leaf is fitted to its output
leaf's shape as a seed of an array output is (broadcast against it).
"""

import numbers

import numpy as np

from .errors import defined_at
from .runtime import sequence_like
from .runtime.records import field_values, is_dataclass_kind, record_fields, record_like

_ndarray = np.ndarray


def fitted_seed(fn, out, seed, shape, path=""):
    """The seed of the shape `shape` (that of the array or number `out`, at `path` in the
    output) for a `seed` that broadcasts against it: broadcast to it, and summed over
    the axes by which it is larger (the pullback of the output broadcast to the seed's
    shape). Generated code and rules may take a seed to have the output's shape
    (np.outer's rule does). A TypeError naming `fn` for a seed that is not a real number
    or array (or a list spelling one) or an output that is not one; a ValueError where
    the shapes do not broadcast."""
    check_leaf(fn, path, out, seed)
    if isinstance(seed, (list, tuple)):
        seed = np.asarray(seed)
    given = np.shape(seed)
    if given == shape:
        return seed
    try:
        joint = np.broadcast_shapes(given, shape)
    except ValueError:
        raise ValueError(
            f"the seed of the pullback of `{fn.__name__}` ({defined_at(fn)}) "
            + (f"for the output{path} " if path else "")
            + f"has shape {given}, which does not broadcast against the output{path}'s shape {shape}"
        ) from None
    seed = np.broadcast_to(seed, joint)
    extra = len(joint) - len(shape)
    if extra:
        seed = seed.sum(axis=tuple(range(extra)))
    stretched = tuple(i for i, n in enumerate(shape) if n == 1 and seed.shape[i] != 1)
    return seed.sum(axis=stretched, keepdims=True) if stretched else seed


def check_leaf(fn, path, out, seed):
    """Raise a TypeError where the output leaf `out` (at `path` in the output) is not a
    number or array, so has nothing to pull back (None: a `return` missing), or where
    `seed` is not a real number or array of numbers."""
    where = f"the pullback of `{fn.__name__}` ({defined_at(fn)})"
    if not isinstance(out, (numbers.Number, _ndarray, np.generic)):
        shown = "None (is a `return` missing?)" if out is None else f"{type(out).__name__} {out!r:.40}"
        raise TypeError(
            f"{where} has no derivative to pull back: the output{path} is {shown}, not a number or an array"
        )
    if isinstance(seed, (_ndarray, np.generic)):
        kind = seed.dtype.kind
    elif isinstance(seed, numbers.Number):
        kind = "c" if isinstance(seed, complex) else "f"
    elif isinstance(seed, (list, tuple)) and _numbers(seed):
        kind = np.asarray(seed).dtype.kind  # a list of numbers: the array it spells
    else:
        raise TypeError(
            f"the seed of {where} for the output{path} must be a number or an array (of shape {np.shape(out)}), "
            f"not {type(seed).__name__}"
        )
    if kind == "c":
        raise TypeError(
            f"the seed of {where} for the output{path} is complex, and srcgrad's rules are for real numbers; "
            f"pull back its real and imaginary parts one at a time"
        )
    if kind not in "fiub":
        raise TypeError(f"the seed of {where} for the output{path} must hold numbers, not {seed.dtype}")


def _numbers(seed):
    """Whether the list or tuple `seed` spells an array of numbers (nested lists of equal lengths)."""
    try:
        return np.asarray(seed).dtype.kind in "fciub"
    except ValueError:  # ragged
        return False


def fitted_structure(fn, out, seed, path=""):
    """The seed `seed` for the list, tuple, dict or dataclass output `out`, each leaf
    fitted to its output leaf (`fitted_seed`), in a container like `seed`'s; a TypeError
    where it is not like `out`, to every depth."""
    label = f"the seed of the pullback of `{fn.__name__}` ({defined_at(fn)})"
    if is_dataclass_kind(type(out)):
        if type(seed) is not type(out):
            raise TypeError(
                f"{label} must have the structure of its output{path}, a {type(out).__name__}; got "
                f"{type(seed).__name__}"
            )
        return record_like(seed, [_fitted_entry(fn, o, v, f"{path}.{name}") for name, o, v in
                                  zip(record_fields(type(out)), field_values(out), field_values(seed))])
    if type(out) is dict:
        fits = type(seed) is dict and set(seed) <= set(out)
    else:
        fits = (isinstance(seed, (list, tuple)) or (isinstance(seed, np.ndarray) and seed.ndim > 0)) and len(seed) == len(out)
    if not fits:
        raise TypeError(
            f"{label} must have the structure of its output{path}, a {type(out).__name__} of {len(out)} entries"
            + (f" (keys {', '.join(sorted(map(repr, out)))})" if type(out) is dict else "")
            + f"; got {type(seed).__name__}" + (f" with keys {', '.join(sorted(map(repr, seed)))}" if type(seed) is dict else "")
        )
    if type(seed) is dict:
        return {k: _fitted_entry(fn, out[k], v, f"{path}[{k!r}]") for k, v in seed.items()}
    entries = [_fitted_entry(fn, out[i], seed[i], f"{path}[{i!r}]") for i in range(len(out))]
    return sequence_like(seed, entries) if isinstance(seed, (list, tuple)) else tuple(entries)


def _fitted_entry(fn, out, seed, path):
    if seed is None:
        return None
    if isinstance(out, (list, tuple, dict)) or is_dataclass_kind(type(out)):
        return fitted_structure(fn, out, seed, path)
    check_leaf(fn, path, out, seed)
    shape = np.shape(out)
    try:
        smaller = np.broadcast_shapes(np.shape(seed), shape) == shape
    except ValueError:
        smaller = False
    if smaller and not isinstance(seed, (list, tuple)):  # the generated code broadcasts it
        return seed
    return fitted_seed(fn, out, seed, shape, path)
