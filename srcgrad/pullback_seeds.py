"""The checks of the seed given to a pullback of `vjp` (api.py): the seed has the
output's structure, and each of its leaves is a real number or array whose shape
broadcasts against the output leaf's, so that a wrong seed is refused with a message
naming the function and the leaf instead of failing inside the generated code (a
string, a list, None; a leaf of the wrong shape as NumPy's broadcasting error).

A leaf seed of None, in a list, tuple or dict seed, is the seed 0 of its output leaf;
a dict seed may leave out keys (their seeds 0).
"""

import numbers

import numpy as np

from .errors import defined_at
from .runtime.records import field_values, is_dataclass_kind, record_fields

_ndarray = np.ndarray


def fitted_seed(fn, out, seed, shape):
    """The seed of the shape `shape` (that of the array or number `out`) for a `seed`
    that broadcasts against it: broadcast to it, and summed over the axes by which it
    is larger (the pullback of the output broadcast to the seed's shape). Generated code
    and rules may take a seed to have the output's shape (np.outer's rule does). A
    TypeError naming `fn` for a seed that is not a real number or array or an output
    that is not one; a ValueError where the shapes do not broadcast."""
    check_leaf(fn, "", out, seed)
    given = np.shape(seed)
    if given == shape:
        return seed
    try:
        joint = np.broadcast_shapes(given, shape)
    except ValueError:
        raise ValueError(
            f"the seed of the pullback of `{fn.__name__}` ({defined_at(fn)}) has shape {given}, which does not "
            f"broadcast against the output's shape {shape}"
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
    else:
        raise TypeError(
            f"the seed of {where} for the output{path} must be a number or an array (of shape {np.shape(out)}), "
            f"not {type(seed).__name__}" + (" (np.asarray it)" if isinstance(seed, (list, tuple)) else "")
        )
    if kind == "c":
        raise TypeError(
            f"the seed of {where} for the output{path} is complex, and srcgrad's rules are for real numbers; "
            f"pull back its real and imaginary parts one at a time"
        )
    if kind not in "fiub":
        raise TypeError(f"the seed of {where} for the output{path} must hold numbers, not {seed.dtype}")


def check_structure(fn, out, seed, path=""):
    """Refuse a seed for the list, tuple, dict or dataclass output `out` that is not one
    like it, to every depth, or whose leaf does not fit its output leaf (`check_leaf`; a
    shape that does not broadcast to the output leaf's: it is broadcast to it)."""
    label = f"the seed of the pullback of `{fn.__name__}` ({defined_at(fn)})"
    if is_dataclass_kind(type(out)):
        if type(seed) is not type(out):
            raise TypeError(
                f"{label} must have the structure of its output{path}, a {type(out).__name__}; got "
                f"{type(seed).__name__}"
            )
        for name, o, s in zip(record_fields(type(out)), field_values(out), field_values(seed)):
            _check_entry(fn, o, s, f"{path}.{name}")
        return
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
    for key in (seed if type(out) is dict else range(len(out))):
        _check_entry(fn, out[key], seed[key], f"{path}[{key!r}]")


def _check_entry(fn, out, seed, path):
    if seed is None:
        return
    if isinstance(out, (list, tuple, dict)) or is_dataclass_kind(type(out)):
        check_structure(fn, out, seed, path)
        return
    check_leaf(fn, path, out, seed)
    given, shape = np.shape(seed), np.shape(out)
    if given != shape:
        try:
            fits = np.broadcast_shapes(given, shape) == shape
        except ValueError:
            fits = False
        if not fits:
            raise ValueError(
                f"the seed of the pullback of `{fn.__name__}` ({defined_at(fn)}) for the output{path} has shape "
                f"{given}, which does not broadcast to that output's shape {shape}"
            )
