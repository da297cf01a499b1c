"""PyTorch's reading of the nested sequences that `tensor(data)` is given.

The shape comes from the first element along each dimension, and every other element
must agree (`expected sequence of length 2 at dim 1 (got 3)`). The dtype promotes the
dtypes of the scalars, as `torch.promote_types` does: a Python bool is bool, an int
int64, a float the default float (float32), a complex its complex counterpart
(complex64), a NumPy scalar or array its own dtype (`[np.float64(0.5), 1.0]` is float64) and a Tensor its dtype. A Tensor
inside a sequence counts as one scalar and must hold exactly one element.

Invariant: `nested_array(data)` returns a new NumPy array, never a view of `data`.
"""

import builtins
import warnings

import numpy as np

from . import dtypes

__all__ = ["nested_array"]

_SCALAR_DTYPES = {
    builtins.bool: np.dtype(np.bool_),
    builtins.int: np.dtype(np.int64),
}
_PYTHON_NUMBERS = {builtins.bool, builtins.int, builtins.float, builtins.complex}
ONE_ELEMENT = "only one element tensors can be converted to Python scalars"


def _is_tensor(x):
    return hasattr(x, "_data") and hasattr(x, "_grad_fn")


def _sizes(data):
    """The shape read from the first element along each dimension."""
    sizes = []
    while isinstance(data, (list, tuple)) or (isinstance(data, np.ndarray) and data.ndim):
        sizes.append(len(data))
        if not len(data):
            break
        data = data[0]
    if sizes and isinstance(data, (str, bytes)):  # PyTorch reads a string there as one more dimension
        raise ValueError(f"too many dimensions '{type(data).__name__}'")
    return sizes


def _scalar_dtype(x):
    kind = type(x)
    if isinstance(x, (str, bytes)):
        raise TypeError(f"new(): invalid data type '{kind.__name__}'")
    if kind is builtins.float:
        return dtypes.DEFAULT_FLOAT.numpy
    if kind is builtins.complex:
        return dtypes.default_complex().numpy
    if kind in _SCALAR_DTYPES:
        return _SCALAR_DTYPES[kind]
    if isinstance(x, (np.generic, np.ndarray)):
        return x.dtype
    if _is_tensor(x):
        if x._data.size != 1:
            raise ValueError(ONE_ELEMENT)
        return x._data.dtype
    for base, found in ((builtins.bool, np.dtype(np.bool_)), (builtins.int, np.dtype(np.int64)),
                        (builtins.float, dtypes.DEFAULT_FLOAT.numpy), (builtins.complex, dtypes.default_complex().numpy)):
        if isinstance(x, base):
            return found
    raise RuntimeError(f"Could not infer dtype of {type(x).__name__}")


def _scan(data, sizes, dim, found):
    """Check `data` against `sizes[dim:]`; add each scalar's dtype to the list `found` (or,
    where `found` is the dtype asked for, check that each scalar converts to it); return
    whether a Tensor is among the scalars."""
    if dim == len(sizes):
        if isinstance(data, (list, tuple)) or (isinstance(data, np.ndarray) and data.ndim):
            near = found if not isinstance(found, list) else found[-1] if found else None
            if near is not None and near.kind in "iub":  # PyTorch's messages, by the element type
                raise TypeError(f"'{type(data).__name__}' object cannot be interpreted as an integer")
            raise TypeError(f"must be real number, not {type(data).__name__}")
        if not isinstance(found, list):  # `found` is the given dtype: only a number converts to it
            if _is_tensor(data):
                if data._data.size != 1:
                    raise ValueError(ONE_ELEMENT)
            elif not isinstance(data, (builtins.int, builtins.float, np.generic)) and not (
                isinstance(data, builtins.complex) and found.kind == "c"
            ):
                raise TypeError(f"must be real number, not {type(data).__name__}")
        else:
            found.append(_scalar_dtype(data))
        return _is_tensor(data)
    if isinstance(data, np.ndarray) and data.ndim:
        if tuple(data.shape) != tuple(sizes[dim:]):
            bad = next(k for k, (a, b) in enumerate(zip(data.shape, sizes[dim:])) if a != b) if data.ndim <= len(sizes) - dim else None
            if bad is None:
                raise TypeError("must be real number, not numpy.ndarray")
            raise ValueError(f"expected sequence of length {sizes[dim + bad]} at dim {dim + bad} (got {data.shape[bad]})")
        if isinstance(found, list):
            found.append(data.dtype)
        return False
    if not isinstance(data, (list, tuple)):
        raise TypeError("not a sequence")
    if len(data) != sizes[dim]:
        raise ValueError(f"expected sequence of length {sizes[dim]} at dim {dim} (got {len(data)})")
    if dim == len(sizes) - 1:
        kinds = set(map(type, data))
        if kinds <= _PYTHON_NUMBERS and (isinstance(found, list) or builtins.complex not in kinds):  # the common row
            if isinstance(found, list):
                found.extend(_scalar_dtype(kind()) for kind in kinds)
            return False
    tensors = False
    for item in data:
        tensors = _scan(item, sizes, dim + 1, found) or tensors
    return tensors


def _unwrapped(data):
    if _is_tensor(data):
        return data._data.reshape(()).item()
    if isinstance(data, (list, tuple)):
        return [_unwrapped(d) for d in data]
    return data


def nested_array(data, dtype=None):
    """A new NumPy array of the nested list or tuple `data`, in NumPy dtype `dtype` or,
    when it is None, in the dtype PyTorch infers."""
    sizes = _sizes(data)
    found = [] if dtype is None else np.dtype(dtype)
    tensors = _scan(data, sizes, 0, found)
    if dtype is None:
        dtype = dtypes.DEFAULT_FLOAT.numpy
        if found:
            dtype = found[0]
            for other in found[1:]:
                dtype = dtypes.promote_types(dtype, other)
    with warnings.catch_warnings():  # a complex scalar into a real dtype keeps its real part, silently
        warnings.simplefilter("ignore", getattr(np, "exceptions", np).ComplexWarning)
        return np.array(_unwrapped(data) if tensors else data, dtype=dtype).reshape(sizes)
