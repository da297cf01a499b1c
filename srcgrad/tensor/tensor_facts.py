"""What PyTorch's Tensor answers about where and how it is stored, for the shim's CPU,
dense, strided tensors: `is_cpu`, `is_sparse`, `is_quantized`, `is_meta`, `is_pinned()`,
`get_device()`, `layout` (`strided`), `name`, `share_memory_()`,
`pin_memory()` (PyTorch's error without an accelerator); and small forms under
PyTorch's names: `ravel`, `positive`, `is_signed`, `new_empty_strided`,
`split_with_sizes`.

Invariants: the answers are constants of the shim's one kind of tensor.
"""

from . import function_aliases

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

    def new_empty_strided(self, size, stride, *, dtype=None, device=None, requires_grad=False):
        """`empty_strided(size, stride)` in self's dtype unless `dtype` says otherwise."""
        if device is None and self.is_meta:
            device = "meta"
        return function_aliases.strided_zeros(size, stride, self.dtype if dtype is None else dtype, device,
                                              requires_grad, "new_empty_strided")
