"""What PyTorch's Tensor answers about where and how it is stored, for the shim's CPU,
dense, strided tensors: `is_cpu`, `is_sparse`, `is_quantized`, `is_meta`, `is_pinned()`,
`get_device()`, `layout` (`strided`), `name`, `share_memory_()`,
`pin_memory()` (PyTorch's error without an accelerator); and small conversions and
forms under PyTorch's names: `byte`, `char`, `short`, `cfloat`, `cdouble`, `bfloat16`
(refused: no such dtype), `ravel`, `positive`, `is_signed`, `new_empty_strided`,
`split_with_sizes`.

Invariants: the answers are constants of the shim's one kind of tensor; the
conversions are `to(dtype)` (ToCopyBackward0).
"""

from . import dtypes, function_aliases
from .grad_mode import _mode

__all__ = ["TensorFacts", "layout", "strided", "positive", "ravel"]


class layout:
    """A memory layout; the shim's tensors have one, `strided`."""

    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return "srcgrad." + self.name

    def __reduce__(self):
        return "strided"


strided = layout("strided")


def positive(input):
    """`input` itself; refused for a bool tensor, as PyTorch's `+`."""
    if input._data.dtype.kind == "b":
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return input


def ravel(input):
    """`input.contiguous().view(-1)`: a view of input where it is contiguous, of a copy
    (CloneBackward0) where not, as PyTorch's."""
    return input.contiguous().view(-1)


class TensorFacts:
    """The Tensor methods and properties of this module."""

    __slots__ = ()
    is_cpu = property(lambda self: True, doc="True: every tensor of the shim lives in host memory.")
    is_sparse = property(lambda self: False, doc="False: the shim's tensors are dense.")
    is_quantized = property(lambda self: False, doc="False: the shim has no quantized dtypes.")
    is_meta = property(lambda self: False, doc="False: every tensor has its values.")
    layout = property(lambda self: strided, doc="`strided`, the one layout of the shim's tensors.")
    name = property(lambda self: None, doc="None, as PyTorch's tensors without a name.")
    positive, ravel = positive, ravel
    split_with_sizes = function_aliases.split_with_sizes

    def is_pinned(self, device=None):
        return False

    def get_device(self):
        """-1: the CPU."""
        return -1

    def share_memory_(self):
        """Self: its array is already shared with every reader in the process."""
        return self

    def pin_memory(self, device=None):
        raise RuntimeError("Cannot access accelerator device when none is available.")

    def is_signed(self):
        return self.dtype.is_signed

    def byte(self):
        return self._convert(dtypes.uint8)

    def char(self):
        return self._convert(dtypes.int8)

    def short(self):
        return self._convert(dtypes.int16)

    def cfloat(self):
        return self._to_complex(dtypes.complex64, "cfloat")

    def cdouble(self):
        return self._to_complex(dtypes.complex128, "cdouble")

    def _to_complex(self, target, name):
        """Self cast to a complex dtype; refused where a real tensor that requires grad
        would lose its graph (the shim records no real-to-complex cast)."""
        if self._requires_grad and _mode.enabled and self._data.dtype.kind != "c":
            raise RuntimeError(
                f"{name}() of a real tensor that requires grad is not supported by the shim: the cast to a "
                f"complex dtype is not recorded; call it on a detached tensor (x.detach().{name}())"
            )
        return self._convert(target)

    def bfloat16(self):
        raise TypeError("bfloat16 is not supported by the shim (NumPy has no bfloat16 dtype): use half() or float()")

    def new_empty_strided(self, size, stride, *, dtype=None, device=None, requires_grad=False):
        """`empty_strided(size, stride)` in self's dtype unless `dtype` says otherwise."""
        return function_aliases.empty_strided(size, stride, dtype=self.dtype if dtype is None else dtype,
                                              device=device, requires_grad=requires_grad)
