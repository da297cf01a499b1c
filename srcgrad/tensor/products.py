"""Matrix products: `matmul` (`@`) and `mm`, `mv`, `dot`, which are `matmul`
restricted to PyTorch's operand kinds.

`matmul` is one registry rule (`operator.matmul`) recorded through `ops`, with
PyTorch's node names and shape errors. `mm`, `mv` and `dot` check what PyTorch's op
checks (operand types, dims, dtypes), with PyTorch's error texts, then run `matmul`,
whose nodes (MmBackward0, MvBackward0, DotBackward0) are theirs. None holds calculus.
"""

import math
import operator

import numpy as np

from .binary_ops import binary_same, operand
from .dtypes import c_name
from .meta_arrays import MetaArray
from .ops import apply, composite
from .versions import bump

__all__ = ["matmul", "mm", "mv", "dot", "outer", "bmm", "addmm", "trace", "triu", "tril", "ProductOps"]

Tensor = None  # bound by srcgrad.tensor.tensor


def matmul(a, b):
    """`a @ b` with PyTorch's node names: Dot (1-D·1-D), Mv, Mm; 1-D @ 2-D is one node named
    as PyTorch's last, SqueezeBackward4 (PyTorch records `a.unsqueeze(0).mm(b).squeeze_(0)`,
    three nodes; three here would triple the cost of the tutorial's `x @ w`; its squeeze_
    leaves `_version` at 1). Operands
    whose shapes do not fit raise PyTorch's RuntimeError (`_matmul_mismatch`)."""
    if isinstance(a, Tensor) and isinstance(b, Tensor):  # the common case, checked once
        x, y = a._data, b._data
        if x.dtype is y.dtype and x.ndim and y.ndim:
            name = _MATMUL_NAMES.get((x.ndim, y.ndim), "UnsafeViewBackward0")
            try:
                out = binary_same(operator.matmul, a, b, x, y, name, True, a._requires_grad or b._requires_grad)
            except ValueError:
                try:
                    _raise_mismatch(x, y, a._requires_grad)
                except RuntimeError as mismatch:
                    raise mismatch from None  # PyTorch's error alone, without NumPy's in the traceback
                raise
            if x.ndim == 2 and y.ndim == 2 and x.shape[1] == 1 and x.shape[0] > 1 and y.shape[1] > 1:
                # PyTorch's mm over one column (of more than one row and column: else a
                # matrix-vector product) is the outer product: the sign of a zero product
                # is kept (NumPy's sum from +0 drops it); the values are the same
                np.multiply(x, y, out=out._data)
            elif x.ndim == 1 and y.ndim == 2:
                bump(out)  # PyTorch's in-place squeeze_(0): the product is at version 1
            return out
    a, b = operand(a), operand(b)
    if not isinstance(a, Tensor) or not isinstance(b, Tensor):
        raise TypeError("matmul(): argument 'other' (position 1) must be Tensor")
    na, nb = a._data.ndim, b._data.ndim
    if na == 0 or nb == 0:
        raise RuntimeError(
            f"both arguments to matmul need to be at least 1D, but they are {na}D and {nb}D"
        )
    if a._data.dtype != b._data.dtype:
        _raise_dtype_mismatch(a, b)
    _raise_mismatch(a._data, b._data, a._requires_grad)
    return apply(operator.matmul, a, b, name=_MATMUL_NAMES.get((na, nb), "UnsafeViewBackward0"), out_dtype=a._data.dtype)


def _raise_dtype_mismatch(a, b):
    """PyTorch's RuntimeError for `a @ b` of two dtypes: the message of the op it runs (dot,
    addmv for a vector on the right, mm for a matrix, bmm for a batch; a vector that
    requires grad times a batch is computed as addmv)."""
    na, nb = a._data.ndim, b._data.ndim
    ka, kb = a.dtype.kind_name, b.dtype.kind_name
    if na == 1 and nb == 1:
        raise RuntimeError(f"dot : expected both vectors to have same dtype, but found {ka} and {kb}")
    if nb == 1:
        raise RuntimeError(f"addmv input tensors must have the same dtype, but got {kb}, {ka}, and {kb}")
    if nb >= 3 and na == 1 and a._requires_grad:
        raise RuntimeError(f"addmv input tensors must have the same dtype, but got {ka}, {kb}, and {ka}")
    if nb >= 3:
        raise RuntimeError(f"expected scalar type {ka} but found {kb}")
    raise RuntimeError(
        f"expected m1 and m2 to have the same dtype, but got: {c_name(a._data.dtype)} != {c_name(b._data.dtype)}"
    )


def _raise_matmul_mismatch(a, b, left_requires_grad):
    """Raises PyTorch's RuntimeError for `a @ b` of shapes `a` and `b` (at least 1-D)
    that do not fit; returns when they do. PyTorch reports a 1-D·1-D product as a dot,
    N-D @ 1-D as a matrix-vector product and N-D @ 2-D as one matrix product of the
    rows folded together; a 3-D or more right operand as a batched product, whose
    batch dims are checked first, except that a left operand of at most 2-D that
    requires grad makes it compute (b^T @ a^T)^T, and report that product."""
    if len(a) <= 2 and len(b) >= 3 and left_requires_grad:
        rows = math.prod(b[:-2]) * b[-1]
        if b[-2] != a[-1]:
            if len(a) == 1:
                raise RuntimeError(f"size mismatch, got input ({rows}), mat ({rows}x{b[-2]}), vec ({a[0]})")
            raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({rows}x{b[-2]} and {a[1]}x{a[0]})")
        return
    if len(a) == 1 and len(b) == 1:
        return _check_vector_lengths(a, b, "the same")
    if len(b) >= 3:
        batch_a, batch_b = a[:-2], b[:-2]
        width = max(len(batch_a), len(batch_b))
        for d in range(1, width + 1):
            size_a = batch_a[-d] if d <= len(batch_a) else 1
            size_b = batch_b[-d] if d <= len(batch_b) else 1
            if size_a != size_b and size_a != 1 and size_b != 1:
                raise RuntimeError(
                    f"The size of tensor a ({size_a}) must match the size of tensor b ({size_b}) at "
                    f"non-singleton dimension {width - d}"
                )
        if a[-1] != b[-2]:
            batch = math.prod(np.broadcast_shapes(batch_a, batch_b))
            raise RuntimeError(
                "Expected size for first two dimensions of batch2 tensor to be: "
                f"[{batch}, {a[-1]}] but got: [{batch}, {b[-2]}]."
            )
        return
    rows = math.prod(a[:-1])
    if a[-1] == b[0]:
        return
    if len(b) == 1:
        raise RuntimeError(f"size mismatch, got input ({rows}), mat ({rows}x{a[-1]}), vec ({b[0]})")
    raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({rows}x{a[-1]} and {b[0]}x{b[1]})")


def _check_vector_lengths(a, b, same):
    """PyTorch's error for the dot product of vectors of the shapes `a` and `b` that differ
    in length (`same`: its words for "the same")."""
    if a[0] != b[0]:
        raise RuntimeError(f"inconsistent tensor size, expected tensor [{a[0]}] and src [{b[0]}] to have {same} "
                           f"number of elements, but got {a[0]} and {b[0]} elements respectively")


def _raise_meta_matmul_mismatch(a, b, left_requires_grad):
    """`_raise_matmul_mismatch` for meta operands: PyTorch's meta kernels report the same
    products with their own messages (mm's "same reduction dim", mv's "size mismatch"
    without the bias, dot's "thesame"); batched products fail as on the CPU."""
    if len(a) <= 2 and len(b) >= 3 and left_requires_grad:  # computed as (b^T @ a^T)^T
        a, b = (math.prod(b[:-2]) * b[-1], b[-2]), a[::-1]
    elif len(b) >= 3:
        return _raise_matmul_mismatch(a, b, left_requires_grad)
    elif len(a) == 1 and len(b) == 1:
        return _check_vector_lengths(a, b, "thesame")  # (the meta kernel's words)
    else:
        a = (math.prod(a[:-1]), a[-1])
    if a[-1] == b[0]:
        return
    if len(b) == 1:
        raise RuntimeError(f"size mismatch, got input ({a[0]}x{a[1]}), vec ({b[0]})")
    raise RuntimeError(f"a and b must have same reduction dim, but got [{a[0]}, {a[1]}] X [{b[0]}, {b[1]}].")


def _raise_mismatch(x, y, left_requires_grad):
    """The mismatch error of `x @ y` (arrays) for their device."""
    if type(x) is MetaArray or type(y) is MetaArray:
        _raise_meta_matmul_mismatch(x.shape, y.shape, left_requires_grad)
    _raise_matmul_mismatch(x.shape, y.shape, left_requires_grad)


_MATMUL_NAMES = {(1, 1): "DotBackward0", (2, 1): "MvBackward0", (2, 2): "MmBackward0", (1, 2): "SqueezeBackward4"}


def _tensors(op, input, other, name):
    """Refuse a non-Tensor operand as PyTorch does (TypeError naming `op`'s argument)."""
    for position, (label, value) in enumerate((("input", input), (name, other)), start=1):
        if not isinstance(value, Tensor):
            raise TypeError(
                f"{op}(): argument '{label}' (position {position}) must be Tensor, not {type(value).__name__}"
            )


def _on_meta(*tensors):
    return any(type(t._data) is MetaArray for t in tensors if isinstance(t, Tensor))


def _dtype_names(a, b):
    """The names of the dtypes of `a` and `b` in a dtype error: the C type's ("Float"), or
    on the meta device the dtype's repr, as PyTorch's meta kernels write them."""
    if _on_meta(a, b):
        return repr(a.dtype), repr(b.dtype)
    return a.dtype.kind_name, b.dtype.kind_name


def _refuse_non_matrices(a, b, a_message, b_message):
    """An mm-like op's error for an operand that is no matrix: `a_message` or
    `b_message`, or on the meta device PyTorch's meta kernel's ("a must be 2D")."""
    meta = _on_meta(a, b)
    for t, label, message in ((a, "a", a_message), (b, "b", b_message)):
        if t._data.ndim != 2:
            raise RuntimeError(f"{label} must be 2D" if meta else message)


def mm(input, mat2):
    """The product of two matrices (2-D tensors)."""
    _tensors("mm", input, mat2, "mat2")
    _refuse_non_matrices(input, mat2, "self must be a matrix", "mat2 must be a matrix")
    return matmul(input, mat2)


def mv(input, vec):
    """The product of a matrix (2-D) and a vector (1-D)."""
    _tensors("mv", input, vec, "vec")
    a, b = input._data.ndim, vec._data.ndim
    if (a != 2 or b != 1) and _on_meta(input, vec):
        raise RuntimeError(f"matrix @ vector expected, got {a}, {b}")
    if a != 2 or b != 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got 1, {a}, {b}")
    if input._data.dtype != vec._data.dtype:
        raise RuntimeError(
            "addmv input tensors must have the same dtype, but got "
            f"{vec.dtype.kind_name}, {input.dtype.kind_name}, and {vec.dtype.kind_name}"
        )
    return matmul(input, vec)


def dot(input, tensor):
    """The inner product of two vectors (1-D tensors) of one dtype."""
    _tensors("dot", input, tensor, "tensor")
    a, b = input._data.ndim, tensor._data.ndim
    if a != 1 or b != 1:
        raise RuntimeError(f"1D tensors expected, but got {a}D and {b}D tensors")
    if input._data.dtype != tensor._data.dtype:
        raise RuntimeError("dot : expected both vectors to have same dtype, but found {} and {}".format(
            *_dtype_names(input, tensor)))
    return matmul(input, tensor)  # vectors of different lengths: matmul's error, as PyTorch's dot


# --- outer, bmm, addmm, trace, triangles -------------------------------------------------


def outer(input, vec2):
    """The outer product of two 1-D tensors (MulBackward0, as PyTorch computes it)."""
    for name, t in (("self", input), ("vec2", vec2)):
        if t._data.ndim != 1:
            raise RuntimeError(f"outer: Expected 1-D argument {name}, but got {t._data.ndim}-D")
    return apply(np.outer, input, vec2, name="MulBackward0", out_dtype=input._data.dtype)


def bmm(input, mat2):
    """Batched matrix products of two 3-D tensors (BmmBackward0)."""
    for name, t in (("batch1", input), ("batch2", mat2)):
        if t._data.ndim != 3:
            raise RuntimeError(f"{name} must be a 3D tensor")
    if input._data.dtype != mat2._data.dtype:
        raise RuntimeError("expected scalar type {} but found {}".format(*_dtype_names(input, mat2)))
    (batch, _, inner), (batch2, rows2, _) = input._data.shape, mat2._data.shape
    if (batch2, rows2) != (batch, inner):  # no broadcasting of the batch dim
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: [{batch}, {inner}] but got: "
                           f"[{batch2}, {rows2}].")
    return apply(operator.matmul, input, mat2, name="BmmBackward0", out_dtype=input._data.dtype)


def _addmm(input, mat1, mat2, beta, alpha):
    product = matmul(mat1, mat2)
    product = product if alpha == 1 else product * alpha
    return product + (input if beta == 1 else input * beta)


def addmm(input, mat1, mat2, *, beta=1, alpha=1):
    """`beta * input + alpha * (mat1 @ mat2)`, one node (AddmmBackward0)."""
    _refuse_non_matrices(mat1, mat2, *(f"mat1 must be a matrix, got {t._data.ndim}-D tensor" for t in (mat1, mat2)))
    for label, t in (("mat1", mat1), ("self", input)):  # PyTorch's order of checks
        if isinstance(t, Tensor) and t._data.dtype != mat2._data.dtype:
            raise RuntimeError(
                f"{label} and mat2 must have the same dtype, but got {t.dtype.kind_name} and {mat2.dtype.kind_name}"
            )
    # as PyTorch's AddmmBackward0: mat1's gradient reads mat2, mat2's reads mat1
    kept = tuple(i for i, other in ((1, mat2), (2, mat1)) if isinstance(other, Tensor) and other._requires_grad)
    return composite("AddmmBackward0", _addmm, input, mat1, mat2, beta, alpha, _saves=kept or False)  # none: reruns


def trace(input):
    """The sum of the main diagonal of a 2-D tensor (TraceBackward0)."""
    if input._data.ndim != 2:
        raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {input._data.ndim}")
    return apply(np.trace, input, name="TraceBackward0")


def triu(input, diagonal=0):
    """The entries on and above diagonal `diagonal`, the rest zero (TriuBackward0)."""
    return apply(np.triu, input, diagonal, name="TriuBackward0", saves=False)  # keeps only the diagonal


def tril(input, diagonal=0):
    """The entries on and below diagonal `diagonal`, the rest zero (TrilBackward0)."""
    return apply(np.tril, input, diagonal, name="TrilBackward0", saves=False)


class ProductOps:
    """The Tensor methods of this module (matmul and `@` are the class's own)."""

    __slots__ = ()
    outer, ger, bmm, addmm, trace, triu, tril = outer, outer, bmm, addmm, trace, triu, tril
