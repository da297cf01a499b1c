"""What an augmented assignment leaves in an array it changes in place.

srcgrad computes `h op= v` as `h = in_place(h op v, h)`: for an ndarray `h`, NumPy
writes the result into `h`, so it keeps h's dtype (cast as a ufunc's `out=` casts it,
`same_kind`) and h's shape; for anything else (a float, a NumPy scalar, a list) Python
rebinds the name to `h op v`.
"""

import numpy as np

_ndarray = np.ndarray


def in_place(value, target):
    """`value` (the result of `target op v`) as `target op= v` leaves it in `target`.

    >>> in_place(np.ones(2) * 0.5, np.ones(2, np.float32)).dtype
    dtype('float32')
    >>> in_place(2.5, 1.0)
    2.5
    """
    if type(target) is not _ndarray or (type(value) is _ndarray and value.dtype == target.dtype
                                        and value.shape == target.shape):
        return value
    result = np.asarray(value)
    if result.shape != target.shape:
        raise ValueError(f"non-broadcastable output operand with shape {target.shape} doesn't match "
                         f"the broadcast shape {result.shape}")
    if not np.can_cast(result.dtype, target.dtype, "same_kind"):
        raise TypeError(f"Cannot cast the result of an augmented assignment from {result.dtype!r} to "
                        f"{target.dtype!r} with casting rule 'same_kind'")
    return result.astype(target.dtype)
