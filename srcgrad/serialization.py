"""`srcgrad.save` and `srcgrad.load`, as `torch.save` and `torch.load`: any picklable
object (a tensor, a state_dict, an optimizer's state, a whole Module), to a path or a
file object.

Arrays are stored as their dtype, shape and bytes, so a file written under NumPy 2 loads
under NumPy 1.26 and back. `load` reads only tensors, numbers, strings and containers
unless told `weights_only=False` (PyTorch's default since 2.6): unpickling runs code
named by the file, so a file from elsewhere should be loaded so. The format is
srcgrad's own (a pickle); PyTorch's zip files are not read.
"""

import collections
import io
import os
import pickle

import numpy as np

__all__ = ["save", "load"]


def _array(dtype, shape, data):
    """An array rebuilt from its dtype string, shape and bytes (what `save` stores)."""
    return np.frombuffer(data, dtype=np.dtype(dtype)).reshape(shape).copy()


class _Pickler(pickle.Pickler):
    def reducer_override(self, obj):
        if type(obj) is np.ndarray and obj.dtype.kind in "biufcV?" and not obj.dtype.hasobject:
            return _array, (obj.dtype.str, obj.shape, np.ascontiguousarray(obj).tobytes())
        return NotImplemented


def _allowed():
    """The globals a `weights_only` load may name: the rebuilding functions of arrays,
    tensors, Parameters, dtypes and devices, and plain containers."""
    from .nn.modules import _rebuilt_parameter
    from .tensor import devices, dtypes
    from .tensor.tensor import _rebuilt_leaf

    found = {
        ("collections", "OrderedDict"): collections.OrderedDict,
        ("builtins", "set"): set, ("builtins", "frozenset"): frozenset, ("builtins", "complex"): complex,
        ("builtins", "slice"): slice, ("builtins", "range"): range,
    }
    for fn in (_array, _rebuilt_leaf, _rebuilt_parameter, dtypes.as_dtype, devices.device):
        found[(fn.__module__, fn.__qualname__)] = fn
    return found


class _WeightsOnly(pickle.Unpickler):
    def find_class(self, module, name):
        fn = _allowed().get((module, name))
        if fn is None:
            raise pickle.UnpicklingError(
                f"Weights only load failed: the file names `{module}.{name}`, which srcgrad.load with "
                f"weights_only=True does not load (only tensors, Parameters, numbers, strings and containers). "
                f"If the file comes from a source you trust, load it with weights_only=False.")
        return fn


def _opened(f, mode):
    """(file object, whether we opened it) for a path or a file object."""
    if isinstance(f, (str, os.PathLike)):
        return open(f, mode), True
    return f, False


def save(obj, f, pickle_module=None, pickle_protocol=2, _use_new_zipfile_serialization=True):
    """Write `obj` to the path or binary file object `f`."""
    handle, opened = _opened(f, "wb")
    try:
        _Pickler(handle, protocol=max(pickle_protocol, 4)).dump(obj)  # bytes as bytes (2 spells them by a call)
    finally:
        if opened:
            handle.close()


def load(f, map_location=None, pickle_module=None, *, weights_only=True, mmap=None, **pickle_load_args):
    """The object `save` wrote to the path or binary file object `f` (`map_location` is
    accepted for PyTorch's code: everything is on the CPU)."""
    handle, opened = _opened(f, "rb")
    try:
        data = handle.read()
    finally:
        if opened:
            handle.close()
    reader = _WeightsOnly if weights_only or weights_only is None else pickle.Unpickler
    return reader(io.BytesIO(data)).load()
