"""`mm`, `mv` and `dot`: `matmul` restricted to PyTorch's operand kinds.

Each checks what PyTorch's op checks (operand types, dims, dtypes), with PyTorch's
error texts, then runs `ops.matmul`, whose nodes (MmBackward0, MvBackward0,
DotBackward0) and size-mismatch errors are these ops' own. None holds calculus.
"""

from . import ops

__all__ = ["mm", "mv", "dot"]


def _tensors(op, input, other, name):
    """Refuse a non-Tensor operand as PyTorch does (TypeError naming `op`'s argument)."""
    for position, (label, value) in enumerate((("input", input), (name, other)), start=1):
        if not isinstance(value, ops.Tensor):
            raise TypeError(
                f"{op}(): argument '{label}' (position {position}) must be Tensor, not {type(value).__name__}"
            )


def mm(input, mat2):
    """The product of two matrices (2-D tensors)."""
    _tensors("mm", input, mat2, "mat2")
    if input._data.ndim != 2:
        raise RuntimeError("self must be a matrix")
    if mat2._data.ndim != 2:
        raise RuntimeError("mat2 must be a matrix")
    return ops.matmul(input, mat2)


def mv(input, vec):
    """The product of a matrix (2-D) and a vector (1-D)."""
    _tensors("mv", input, vec, "vec")
    a, b = input._data.ndim, vec._data.ndim
    if a != 2 or b != 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got 1, {a}, {b}")
    if input._data.dtype != vec._data.dtype:
        raise RuntimeError(
            "addmv input tensors must have the same dtype, but got "
            f"{vec.dtype.kind_name}, {input.dtype.kind_name}, and {vec.dtype.kind_name}"
        )
    return ops.matmul(input, vec)


def dot(input, tensor):
    """The inner product of two vectors (1-D tensors) of one dtype."""
    _tensors("dot", input, tensor, "tensor")
    a, b = input._data.ndim, tensor._data.ndim
    if a != 1 or b != 1:
        raise RuntimeError(f"1D tensors expected, but got {a}D and {b}D tensors")
    if input._data.dtype != tensor._data.dtype:
        raise RuntimeError(
            "dot : expected both vectors to have same dtype, but found "
            f"{input.dtype.kind_name} and {tensor.dtype.kind_name}"
        )
    n, m = input._data.shape[0], tensor._data.shape[0]
    if n != m:
        raise RuntimeError(
            f"inconsistent tensor size, expected tensor [{n}] and src [{m}] to have the same number of "
            f"elements, but got {n} and {m} elements respectively"
        )
    return ops.matmul(input, tensor)
