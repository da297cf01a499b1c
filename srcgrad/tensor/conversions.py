"""A Tensor's dtype and device conversions, as PyTorch's: `to`, `float`, `double`, `half`,
`long`, `int`, `bool`, `type`, `cpu` and `cuda`.

Invariants: a conversion to the tensor's own dtype returns the tensor itself; one to a
floating dtype is recorded (ToCopyBackward0, its gradient cast back), one to another
dtype is a new leaf; the only device is the CPU (another raises the error of PyTorch's
CPU build, devices.moved_to).
"""

import numpy as np

from . import devices, dtypes, ops

__all__ = ["ConversionOps"]


class ConversionOps:
    """The conversion methods of Tensor (ops.Tensor is the class)."""

    __slots__ = ()

    def to(self, *args, dtype=None, **kwargs):
        """`to(dtype)`, `to(other_tensor)`; the CPU device ('cpu', `device("cpu")`) is accepted
        and changes nothing, another raises the error of PyTorch's CPU build."""
        for a in args:
            if isinstance(a, ops.Tensor):
                dtype = a.dtype
            elif isinstance(a, (str, devices.device)) or (isinstance(a, int) and not isinstance(a, bool)):
                devices.moved_to(a)
            else:
                dtype = a
        if kwargs.get("device") is not None:
            devices.moved_to(kwargs["device"])
        return self if dtype is None else self._convert(dtypes.as_dtype(dtype))

    def _convert(self, target):
        if target.numpy == self._data.dtype:
            return self
        if target.is_floating_point:
            return ops.apply(np.positive, self, dtype=target.numpy, name="ToCopyBackward0", saves=False)
        return ops.Tensor._make(self._data.astype(target.numpy))

    def cuda(self, device=None, non_blocking=False):
        """PyTorch's CPU build's error: srcgrad has no CUDA device."""
        devices.moved_to("cuda")

    def float(self):
        return self._convert(dtypes.float32)

    def double(self):
        return self._convert(dtypes.float64)

    def half(self):
        return self._convert(dtypes.float16)

    def long(self):
        return self._convert(dtypes.int64)

    def int(self):
        return self._convert(dtypes.int32)

    def bool(self):
        return self._convert(dtypes.bool_)

    def type(self, dtype=None):
        if dtype is None:
            return "srcgrad." + self.dtype.kind_name + "Tensor"
        try:
            converted = dtypes.as_dtype(dtype)
        except (KeyError, TypeError):
            raise ValueError(f"invalid type: {dtype!r}") from None
        return self._convert(converted)

    def cpu(self):
        return self
