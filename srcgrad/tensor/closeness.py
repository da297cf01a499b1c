"""`srcgrad.testing.assert_close`, as `torch.testing.assert_close`: two tensors, numbers,
or sequences and mappings of them, compared entry by entry with PyTorch's default
tolerances per dtype and its messages, word for word.

Checks run in PyTorch's order: the types of the pair, shape, dtype (`check_dtype`),
then the values with `isclose(actual, expected, rtol, atol, equal_nan)`. A failure's
message names the mismatched count, the greatest absolute and relative differences
among the mismatched entries and their indices; `msg` replaces it (a callable gets it).
"""

import collections.abc
import numbers

import numpy as np

from . import dtypes
from .tensor import Tensor

__all__ = ["assert_close"]

# (rtol, atol) by dtype name; others (integers, bool) compare exactly
_PRECISIONS = {
    "float16": (0.001, 1e-05), "float32": (1.3e-06, 1e-05), "float64": (1e-07, 1e-07),
    "complex64": (1.3e-06, 1e-05), "complex128": (1e-07, 1e-07),
}


class _Mismatch(Exception):
    """A failed comparison: the exception type and message to raise, and the path of
    sequence indices and mapping keys to the failing pair."""

    def __init__(self, kind, message):
        super().__init__(message)
        self.kind = kind
        self.path = []


def _tolerances(a_dtype, b_dtype, rtol, atol):
    """The given (rtol, atol), or the larger defaults of the two NumPy dtypes."""
    if rtol is not None:
        return rtol, atol
    a, b = _PRECISIONS.get(a_dtype.name, (0.0, 0.0)), _PRECISIONS.get(b_dtype.name, (0.0, 0.0))
    return max(a[0], b[0]), max(a[1], b[1])


def _message(identifier, extra, abs_diff, abs_idx, atol, rel_diff, rel_idx, rtol):
    equality = rtol == 0 and atol == 0

    def diff(kind, value, idx, tol):
        text = f"{kind.title()} difference: {value}" if idx is None else f"Greatest {kind} difference: {value} at index {idx}"
        return text + ("" if equality else f" (up to {tol} allowed)") + "\n"

    text = f"{identifier} are not {'equal' if equality else 'close'}!\n\n{extra.strip()}\n"
    text += diff("absolute", abs_diff, abs_idx, atol) + diff("relative", rel_diff, rel_idx, rtol)
    return text.strip()


def _python(value):
    """A NumPy scalar as the Python number PyTorch's `.item()` gives."""
    return value.item() if isinstance(value, np.generic) else value


def _compare_scalars(actual, expected, rtol, atol, equal_nan):
    if type(actual) is not type(expected):
        raise _Mismatch(AssertionError, f"The (d)types do not match: {type(actual)} != {type(expected)}.")
    if isinstance(actual, (bool, np.bool_)):
        if actual != expected:
            raise _Mismatch(AssertionError, f"Booleans mismatch: {actual} is not {expected}")
        return
    a, b = np.array(actual), np.array(expected)  # a Python float is float64, an int int64
    rtol, atol = _tolerances(a.dtype, b.dtype, rtol, atol)
    if not _isclose(a, b, rtol, atol, equal_nan).all():
        _scalar_mismatch(_python(actual), _python(expected), rtol, atol)


def _scalar_mismatch(actual, expected, rtol, atol):
    abs_diff = abs(actual - expected)
    rel_diff = float("inf") if expected == 0 else abs_diff / abs(expected)
    raise _Mismatch(AssertionError, _message("Scalars", f"Expected {expected} but got {actual}.",
                                             abs_diff, None, atol, rel_diff, None, rtol))


def _isclose(a, b, rtol, atol, equal_nan):
    with np.errstate(invalid="ignore", over="ignore"):
        if a.dtype.kind in "biu" and b.dtype.kind in "biu":
            return a == b
        return np.isclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan)


def _unravel(flat, shape):
    return tuple(int(i) for i in np.unravel_index(flat, shape)) if shape else ()


def _greatest(values):
    """(the largest value, its flat index) as torch.max gives them: nan wins."""
    nans = np.isnan(values) if values.dtype.kind in "fc" else np.zeros(values.shape, bool)
    i = int(np.argmax(nans)) if nans.any() else int(np.argmax(values))
    return values[i], i


def _compare_tensors(actual, expected, rtol, atol, equal_nan, check_dtype):
    a, b = actual._data, expected._data
    if a.shape != b.shape:
        raise _Mismatch(AssertionError, f"The values for attribute 'shape' do not match: "
                                        f"{dtypes.Size(a.shape)} != {dtypes.Size(b.shape)}.")
    if check_dtype and a.dtype != b.dtype:
        raise _Mismatch(AssertionError, f"The values for attribute 'dtype' do not match: "
                                        f"{dtypes.of(a.dtype)} != {dtypes.of(b.dtype)}.")
    rtol, atol = _tolerances(a.dtype, b.dtype, rtol, atol)
    if a.dtype != b.dtype:
        common = dtypes.promote_types(a.dtype, b.dtype)
        a, b = a.astype(common), b.astype(common)
    matches = _isclose(a, b, rtol, atol, equal_nan)
    if matches.all():
        return
    if a.ndim == 0:
        _scalar_mismatch(_python(a[()]), _python(b[()]), rtol, atol)
    count, total = int(matches.size - matches.sum()), matches.size
    extra = f"Mismatched elements: {count} / {total} ({count / total:.1%})"
    fa, fb, fm = a.reshape(-1), b.reshape(-1), matches.reshape(-1)
    if fa.dtype.kind in "biu":
        fa, fb = fa.astype(np.int64), fb.astype(np.int64)
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        abs_diff = np.abs(fa - fb)
        abs_diff[fm] = 0
        rel_diff = abs_diff / np.abs(fb)
        if rel_diff.dtype == np.float64 and fa.dtype.kind in "biu":  # int64 / int64 is the default float in PyTorch
            rel_diff = rel_diff.astype(dtypes.DEFAULT_FLOAT.numpy)
        rel_diff[fm] = 0
    max_abs, abs_idx = _greatest(abs_diff)
    max_rel, rel_idx = _greatest(rel_diff)
    raise _Mismatch(AssertionError, _message("Tensor-likes", extra, _python(max_abs), _unravel(abs_idx, a.shape), atol,
                                             _python(max_rel), _unravel(rel_idx, a.shape), rtol))


def _compare_entry(actual, expected, key, rtol, atol, equal_nan, check_dtype):
    try:
        _compare(actual, expected, rtol, atol, equal_nan, check_dtype)
    except _Mismatch as failure:
        failure.path.insert(0, key)
        raise


def _compare(actual, expected, rtol, atol, equal_nan, check_dtype):
    if isinstance(actual, Tensor) and isinstance(expected, Tensor):
        return _compare_tensors(actual, expected, rtol, atol, equal_nan, check_dtype)
    if actual is None and expected is None:
        return
    scalars = (numbers.Number, np.bool_)
    if isinstance(actual, scalars) and isinstance(expected, scalars) and not isinstance(actual, Tensor):
        return _compare_scalars(actual, expected, rtol, atol, equal_nan)
    if (isinstance(actual, collections.abc.Sequence) and isinstance(expected, collections.abc.Sequence)
            and not isinstance(actual, str) and not isinstance(expected, str)):
        if len(actual) != len(expected):
            raise _Mismatch(AssertionError, f"The length of the sequences mismatch: {len(actual)} != {len(expected)}")
        for i, (x, y) in enumerate(zip(actual, expected)):
            _compare_entry(x, y, i, rtol, atol, equal_nan, check_dtype)
        return
    if isinstance(actual, collections.abc.Mapping) and isinstance(expected, collections.abc.Mapping):
        if set(actual) != set(expected):
            missing = sorted(set(expected) - set(actual), key=repr)
            extra = sorted(set(actual) - set(expected), key=repr)
            raise _Mismatch(AssertionError, f"The keys of the mappings do not match:\nMissing keys in the actual "
                                            f"mapping: {missing}\nAdditional keys in the actual mapping: {extra}")
        for key in actual:
            _compare_entry(actual[key], expected[key], key, rtol, atol, equal_nan, check_dtype)
        return
    raise _Mismatch(TypeError, f"No comparison pair was able to handle inputs of type {type(actual)} and {type(expected)}.")


def assert_close(actual, expected, *, allow_subclasses=True, rtol=None, atol=None, equal_nan=False,
                 check_device=True, check_dtype=True, check_layout=True, check_stride=False, msg=None):
    """Raise AssertionError (TypeError for a pair it cannot compare) where `actual` and
    `expected` differ beyond the tolerances."""
    if (rtol is None) != (atol is None):
        raise ValueError(f"Both 'rtol' and 'atol' must be either specified or omitted, but got no "
                         f"{'rtol' if rtol is None else 'atol'}.")
    try:
        _compare(actual, expected, rtol, atol, equal_nan, check_dtype)
    except _Mismatch as failure:
        text = str(failure)
        if failure.kind is AssertionError:
            if callable(msg):
                text = msg(text)
            elif msg is not None:
                text = msg
        if failure.path and failure.kind is AssertionError and msg is None:
            text += "\n\nThe failure occurred for item " + "".join(f"[{k!r}]" for k in failure.path)
        raise failure.kind(text) from None
