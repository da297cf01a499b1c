"""PyTorch's other names and small forms of existing module-level functions: `divide`,
`multiply`, `subtract`, `arctan2`, `rsub`, `detach`, `fill`, `empty_like`,
`empty_strided`, `scalar_tensor`, `asarray`, `split_with_sizes`, `unravel_index`,
`is_same_size`, `is_signed`, and the dtype questions `result_type`, `promote_types`,
`can_cast` and `typename`.

Invariants: each calls the existing op, so values, dtypes and nodes are the op's own
(DivBackward0, SubBackward0, SplitWithSizesBackward0, ...); none holds calculus.
"""

import builtins

import numpy as np

from ..rules.scatter import index_put
from . import binary_ops, creation, devices, dtypes, ops
from .meta_layouts import set_layout
from .pointwise import _div_method, atan2, div
from .strided import as_strided

__all__ = [
    "divide", "multiply", "subtract", "arctan2", "rsub", "detach", "fill", "empty_like", "empty_strided",
    "scalar_tensor", "asarray", "split_with_sizes", "unravel_index", "is_same_size", "is_signed", "result_type",
    "promote_types", "can_cast", "typename",
]

_NUMBERS = (builtins.bool, builtins.int, builtins.float, builtins.complex)


def divide(input, other, *, rounding_mode=None):
    """`div` under its long name."""
    if rounding_mode is None:
        return _div_method(input, other)
    return div(input, other, rounding_mode=rounding_mode)


def multiply(input, other):
    """`input * other` (MulBackward0)."""
    return binary_ops.operand(input) * other


def subtract(input, other, *, alpha=1):
    """`input - alpha * other` (SubBackward0)."""
    return input.sub(other, alpha=alpha)


def arctan2(input, other):
    """`atan2` under its NumPy name."""
    return atan2(input, other)


def rsub(input, other, alpha=1):
    """`other - alpha * input` (RsubBackward0 for a tensor `other`, RsubBackward1 for a number)."""
    name = "RsubBackward0" if isinstance(other, ops.Tensor) else "RsubBackward1"
    return ops.composite(name, lambda x, o: o - (x if alpha == 1 else x * alpha), input, other, _saves=False)


def detach(input):
    """`input.detach()`."""
    return input.detach()


def fill(input, value):
    """A new tensor of input's shape and dtype with every element `value`: a number
    (FillBackward0: input gets a zero gradient) or a 0-d tensor (FillBackward1: it gets the
    sum of the gradient)."""
    if isinstance(value, ops.Tensor):
        if value._data.ndim:
            raise RuntimeError(
                f"fill_ only supports 0-dimension value tensor but got tensor with {value._data.ndim} dimensions."
            )
        return ops.apply(index_put, input, Ellipsis, value, name="FillBackward1", saves=False,
                         out_dtype=input._data.dtype, edge_args=(0, 2))
    out = ops.piecewise_constant(np.zeros_like, input, "FillBackward0")
    out._data[...] = value
    return out


def empty_like(input, *, dtype=None, device=None, requires_grad=False, memory_format=None):
    """An uninitialised tensor like `input` (zeros here)."""
    shape, dt, on_meta = creation._like(input, dtype, device, "empty_like")
    return creation._laid_out_like(creation._allocated(shape, dt, requires_grad, on_meta, np.zeros), input)


def _storage_length(size, stride):
    return 1 + builtins.sum((n - 1) * s for n, s in zip(size, stride)) if all(size) else 0


def empty_strided(size, stride, *, dtype=None, device=None, requires_grad=False):
    """An uninitialised tensor (zeros here) of shape `size` laid out with strides `stride`
    (in elements) over a storage just long enough for them."""
    return strided_zeros(size, stride, dtype, device, requires_grad, "empty_strided")


def strided_zeros(size, stride, dtype, device, requires_grad, op):
    """`empty_strided`'s tensor for the function `op` (named in device errors)."""
    on_meta = devices.allocated_on(device, op, "empty_strided")
    size, stride = tuple(size), tuple(stride)
    if len(size) != len(stride):
        raise RuntimeError(
            f"dimensionality of sizes ({len(size)}) must match dimensionality of strides ({len(stride)})"
        )
    if on_meta:  # shapes without data: the layout recorded beside the meta array
        out = creation._allocated(size, creation._dtype(dtype), requires_grad, True, None)
        set_layout(out._data, tuple(int(s) * out._data.itemsize for s in stride), 0)
        return out
    storage = creation.zeros(_storage_length(size, stride), dtype=dtype)
    out = as_strided(storage, size, stride)._data
    return creation.from_numpy(out).requires_grad_(requires_grad)


def scalar_tensor(s, *, dtype=None, device=None, requires_grad=False):
    """A 0-d tensor of the number `s`, in the default float dtype unless `dtype` says otherwise."""
    on_meta = devices.allocated_on(device, "scalar_tensor")
    return creation.tensor(s, dtype=dtypes.get_default_dtype() if dtype is None else dtype,
                           device="meta" if on_meta else "cpu", requires_grad=requires_grad)


def asarray(obj, *, dtype=None, device=None, copy=None, requires_grad=False):
    """`obj` as a tensor, sharing memory where it can (a Tensor or NumPy array of that
    dtype) unless `copy`; `copy=False` refuses where a copy is needed."""
    if copy:
        made = obj.clone() if isinstance(obj, ops.Tensor) else creation.tensor(obj)
        out = creation.as_tensor(made, dtype=dtype, device=device)
    else:
        out = creation.as_tensor(obj, dtype=dtype, device=device)
        if copy is False and not (out is obj or (isinstance(obj, np.ndarray) and out._data is obj)):
            raise ValueError("can't alias tensor from an object of a different dtype or which is not an array")
    return out.requires_grad_() if requires_grad else out


def split_with_sizes(input, split_sizes, dim=0):
    """`input.split(list(split_sizes), dim)`: sizes that must add up to input's size at `dim`
    (SplitWithSizesBackward0)."""
    axis = dtypes.dim_axis(dim, max(input._data.ndim, 1))
    length = input._data.shape[axis]
    if builtins.sum(split_sizes) != length:
        raise RuntimeError(
            f"split_with_sizes expects split_sizes to sum exactly to {length} (input tensor's size at dimension "
            f"{dim}), but got split_sizes={list(split_sizes)}"
        )
    return input.split(list(split_sizes), dim)


def unravel_index(indices, shape):
    """The coordinates in `shape` of the flat `indices` (an integer tensor), one int64
    tensor per dim; an index outside the shape wraps around, as PyTorch's."""
    if not isinstance(indices, ops.Tensor):
        raise TypeError(f"expected 'indices' to be a tensor, but got {type(indices).__name__}")
    if indices._data.dtype.kind not in "iub":
        raise TypeError(f"expected 'indices' to be integer dtype, but got {indices.dtype}")
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    flat = indices._data.astype(np.int64)
    coords, inner = [], 1
    for n in reversed(shape):
        coords.append((flat // inner) % n)
        inner *= n
    return tuple(ops.Tensor._make(np.asarray(c, np.int64)) for c in reversed(coords))


def is_same_size(input, other):
    """Whether the two tensors have the same shape."""
    if not isinstance(other, ops.Tensor):
        raise TypeError(f"is_same_size(): argument 'other' (position 2) must be Tensor, not {type(other).__name__}")
    return input._data.shape == other._data.shape


def is_signed(input):
    """Whether input's dtype holds negative numbers (not uint8 or bool)."""
    return input.dtype.is_signed


def result_type(tensor, other):
    """The dtype an arithmetic op of `tensor` and `other` (Tensors or numbers) gives."""
    for x in (tensor, other):
        if not isinstance(x, (ops.Tensor,) + _NUMBERS):
            kinds = ", ".join("Tensor" if isinstance(a, ops.Tensor) else type(a).__name__ for a in (tensor, other))
            raise TypeError(
                f"result_type() received an invalid combination of arguments - got ({kinds}), but expected one of:\n"
                " * (Tensor tensor, Tensor other)\n * (Number scalar, Tensor tensor)\n"
                " * (Tensor tensor, Number other)\n * (Number scalar1, Number scalar2)\n"
            )
    return dtypes.of(dtypes.result_type(*(x._data if isinstance(x, ops.Tensor) else x for x in (tensor, other))))


def promote_types(type1, type2):
    """The smallest dtype both dtypes convert to without losing their kind (a float beats
    any integer)."""
    return dtypes.of(dtypes.promote_types(dtypes.as_dtype(type1).numpy, dtypes.as_dtype(type2).numpy))


_KIND_RANKS = {"b": 0, "u": 1, "i": 1, "f": 2, "c": 3}  # bool < integers < floats < complex


def _kind_rank(d):
    return _KIND_RANKS[dtypes.as_dtype(d).numpy.kind]


def can_cast(from_, to):
    """Whether PyTorch's casting rules let an op write a `from_` result into `to`: never to
    a lower kind (complex to float, float to integer, anything but bool to bool)."""
    return _kind_rank(from_) <= _kind_rank(to)


def typename(obj):
    """PyTorch's name of the type of `obj`: `srcgrad.FloatTensor` for a tensor, else
    the module-qualified class name (builtins without module)."""
    if isinstance(obj, ops.Tensor):
        return dtypes.legacy_type_name(obj._data.dtype)
    kind = type(obj)
    module = kind.__module__
    return kind.__qualname__ if module in (None, "builtins") else f"{module}.{kind.__qualname__}"
