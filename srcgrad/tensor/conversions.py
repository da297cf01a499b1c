"""A Tensor's dtype and device conversions, as PyTorch's: `to`, `float`, `double`, `half`,
`long`, `int`, `bool`, `byte`, `char`, `short`, `cfloat`, `cdouble`, `bfloat16` (refused: no
such dtype), `type`, `cpu` and `cuda`.

Invariants: a conversion to the tensor's own dtype returns the tensor itself; one to a
floating dtype is recorded (ToCopyBackward0, its gradient cast back; a complex one of a
tracked tensor is refused: the shim has no complex autograd, dtypes.refuse_complex_autograd), one to another
dtype is a new leaf; the devices are the CPU and the meta device (meta.py; another
raises the error of PyTorch's CPU build, devices.moved_to).
"""

import numpy as np

from . import devices, dtypes, meta, ops

__all__ = ["ConversionOps"]


class ConversionOps:
    """The conversion methods of Tensor (ops.Tensor is the class)."""

    __slots__ = ()

    def to(self, *args, dtype=None, **kwargs):
        """`to(dtype)`, `to(other_tensor)`, `to(device)`: the CPU ('cpu', `device("cpu")`) and
        the meta device (meta.py) are there, another raises the error of PyTorch's CPU build."""
        target = None
        for a in args:
            if isinstance(a, ops.Tensor):
                dtype, target = a.dtype, a.device
            elif isinstance(a, (str, devices.device)) or (isinstance(a, int) and not isinstance(a, bool)):
                target = a
            else:
                dtype = a
        if kwargs.get("device") is not None:
            target = kwargs["device"]
        to_meta = target is not None and devices.moved_to(target)
        if target is not None and not to_meta:
            meta.refuse_copy_out(self)
        out = self if dtype is None else self._convert(dtypes.as_dtype(dtype))
        return meta.moved_to_meta(out) if to_meta else out

    def _convert(self, target):
        if target.numpy == self._data.dtype:
            return self
        if target.numpy.kind in "fc":  # a float or complex result carries the gradient
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

    def byte(self):
        return self._convert(dtypes.uint8)

    def char(self):
        return self._convert(dtypes.int8)

    def short(self):
        return self._convert(dtypes.int16)

    def cfloat(self):
        return self._convert(dtypes.complex64)

    def cdouble(self):
        return self._convert(dtypes.complex128)

    def bfloat16(self):
        raise TypeError("bfloat16 is not supported by the shim (NumPy has no bfloat16 dtype): use half() or float()")

    def type(self, dtype=None):
        if dtype is None:
            return "srcgrad." + self.dtype.kind_name + "Tensor"
        try:
            converted = dtypes.as_dtype(dtype)
        except (KeyError, TypeError):
            raise ValueError(f"invalid type: {dtype!r}") from None
        return self._convert(converted)

    def cpu(self):
        meta.refuse_copy_out(self)
        return self
