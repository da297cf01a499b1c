"""A Module's devices, as PyTorch's: `to(device)` and `to_empty(device=)` move every
parameter and buffer (and gradient) to the CPU or the meta device (tensor/meta.py), and a
module built with `device="meta"`, or under `with torch.device("meta")`, has meta
parameters and buffers.

Invariants: a move keeps each Parameter object (its array is replaced), so optimizers and
`named_parameters` still hold it; to the meta device no values are kept; `to_empty` gives
uninitialized storage (zeros on the CPU), to be filled by the caller.
"""

import functools
import itertools

import numpy as np

from ..tensor import devices, dtypes
from ..tensor.meta_arrays import meta_array
from ..tensor.tensor import Tensor

__all__ = ["ModuleDevices"]

_STORAGE = Tensor._data  # the slot that holds every tensor's array


class ModuleDevices:
    """Module's device methods (`to`, `to_empty`) and the meta device for modules built there."""

    __slots__ = ()

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if not hasattr(cls.__init__, "_builds_on_device"):  # its own, or one of a base that is no Module
            cls.__init__ = _built_on_device(cls.__init__)

    def to(self, *args, **kwargs):
        """`to(dtype)` converts floating parameters and buffers (and gradients); the CPU
        device is accepted and changes nothing, another raises the error of PyTorch's
        CPU build (everything runs on the CPU)."""
        dtype = kwargs.get("dtype")
        to_meta = False
        for a in args:
            if isinstance(a, dtypes.dtype):
                dtype = a
            elif isinstance(a, (str, devices.device)):
                to_meta = devices.moved_to(a)
        if kwargs.get("device") is not None:
            to_meta = devices.moved_to(kwargs["device"])
        if dtype is not None:
            self._convert(dtypes.as_dtype(dtype).numpy)
        if to_meta:
            self._replace_arrays(lambda data: meta_array(data.shape, data.dtype))
        return self

    def to_empty(self, *, device, recurse=True):
        """Parameters and buffers moved to `device` with no values kept: new arrays of
        their shapes and dtypes, uninitialized (zeros on the CPU), as PyTorch's `to_empty`
        (how a model made under `with torch.device("meta")` gets real storage)."""
        on_meta = devices.allocated_on(device, "empty")
        self._replace_arrays(lambda data: meta_array(data.shape, data.dtype) if on_meta
                             else np.zeros(data.shape, data.dtype), recurse)
        return self

    def _replace_arrays(self, new_array, recurse=True):
        """Give every parameter and buffer (and gradient) the array `new_array(old array)`."""
        for tensor in itertools.chain(self.parameters(recurse), self.buffers(recurse)):
            _STORAGE.__set__(tensor, new_array(_STORAGE.__get__(tensor)))
            if tensor._grad is not None:
                tensor._grad._data = new_array(tensor._grad._data)


def _built_on_device(init):
    """`init` of a Module class, then, for the outermost module built with `device="meta"`
    or under a meta default device, its parameters and buffers moved there (they were made
    on the CPU: NumPy arrays)."""

    @functools.wraps(init)
    def built(self, *args, **kwargs):
        init(self, *args, **kwargs)
        device = kwargs.get("device")
        on_meta = devices.allocated_on(device, "empty") if device is not None else \
            devices.get_default_device().type == "meta"
        if on_meta:
            if any(hasattr(t, "cls_to_become") for t in itertools.chain(self.parameters(), self.buffers())):
                raise NotImplementedError(
                    f"{type(self).__name__}: srcgrad's lazy modules are not supported on the meta device; build the "
                    "module with its sizes given (nn.Linear for nn.LazyLinear) there")
            self._replace_arrays(lambda data: meta_array(data.shape, data.dtype))

    built._builds_on_device = True
    return built
