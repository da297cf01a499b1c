"""`srcgrad.nn`'s padding layers, as in `torch.nn`: ZeroPad1d/2d, ConstantPad1d/2d,
ReflectionPad1d/2d, ReplicationPad1d/2d and CircularPad1d/2d, each `F.pad` with its
mode; `padding` an int (every side) or a tuple (left, right[, top, bottom])."""

from . import functional as F
from .modules import Module

__all__ = ["ZeroPad1d", "ZeroPad2d", "ConstantPad1d", "ConstantPad2d", "ReflectionPad1d", "ReflectionPad2d",
           "ReplicationPad1d", "ReplicationPad2d", "CircularPad1d", "CircularPad2d"]


class _Pad(Module):
    _sides = 2
    _mode = "constant"

    def __init__(self, padding):
        super().__init__()
        self.padding = (padding,) * self._sides if isinstance(padding, int) else tuple(padding)

    def forward(self, input):
        return F.pad(input, self.padding, self._mode)

    def extra_repr(self):
        return f"{self.padding}"


class _ConstantPad(_Pad):
    def __init__(self, padding, value):
        super().__init__(padding)
        self.value = value

    def forward(self, input):
        return F.pad(input, self.padding, "constant", self.value)

    def extra_repr(self):
        return f"padding={self.padding}, value={self.value}"


class ConstantPad1d(_ConstantPad):
    pass


class ConstantPad2d(_ConstantPad):
    _sides = 4


class ZeroPad1d(ConstantPad1d):
    def __init__(self, padding):
        super().__init__(padding, 0.0)

    def extra_repr(self):
        return f"{self.padding}"


class ZeroPad2d(ConstantPad2d):
    def __init__(self, padding):
        super().__init__(padding, 0.0)

    def extra_repr(self):
        return f"{self.padding}"


class ReflectionPad1d(_Pad):
    _mode = "reflect"


class ReflectionPad2d(_Pad):
    _sides, _mode = 4, "reflect"


class ReplicationPad1d(_Pad):
    _mode = "replicate"


class ReplicationPad2d(_Pad):
    _sides, _mode = 4, "replicate"


class _CircularPad(_Pad):
    _mode = "circular"
    _dims = (2, 3)

    def forward(self, input):
        if input.dim() not in self._dims:
            raise ValueError(f"expected {self._dims[0]}D or {self._dims[1]}D input (got {input.dim()}D input)")
        return F.pad(input, self.padding, "circular")


class CircularPad1d(_CircularPad):
    pass


class CircularPad2d(_CircularPad):
    _sides, _dims = 4, (3, 4)
