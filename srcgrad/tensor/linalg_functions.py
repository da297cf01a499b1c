"""Linear algebra of tensors: det, inverse, logdet, slogdet, cholesky (as `torch.*` and
`torch.linalg.*`), cross, einsum, kron, inner, dist, cdist and baddbmm.

Each is one registry primitive (`np.linalg.det`, `np.linalg.inv`,
`inverses.log_abs_det`, `np.linalg.cholesky`, `np.cross`, `np.einsum`, `np.kron`,
`np.inner`) recorded through `ops` under PyTorch's node name, or Tensor code recorded
as one node (dist, cdist, baddbmm, cholesky's upper factor). Shapes are checked first,
with PyTorch's error texts. None holds calculus.
"""

import warnings

import numpy as np

from ..rules import einsums
from ..rules.inverses import log_abs_det
from ..rules.linalg import _einsum_labels
from . import dtypes, ops
from .dtypes import dim_axis
from .pointwise import where

__all__ = [
    "LinAlgError", "det", "inverse", "inv", "logdet", "slogdet", "linalg_slogdet", "cholesky", "linalg_cholesky", "cross",
    "linalg_cross", "einsum", "kron", "inner", "dist", "cdist", "baddbmm", "LinalgOps",
]



class _SignAndLog(tuple):
    """`(sign, logabsdet)` from slogdet, printed as PyTorch's `torch.return_types.slogdet`."""

    def __new__(cls, sign, logabsdet):
        return tuple.__new__(cls, (sign, logabsdet))

    sign = property(lambda self: self[0])
    logabsdet = property(lambda self: self[1])

    def __repr__(self):
        return f"srcgrad.return_types.{type(self).__name__}(\nsign={self[0]!r},\nlogabsdet={self[1]!r})"


_SLOGDET = type("slogdet", (_SignAndLog,), {"__module__": "srcgrad.return_types"})
_LINALG_SLOGDET = type("linalg_slogdet", (_SignAndLog,), {"__module__": "srcgrad.return_types"})


class _LinAlgError(RuntimeError):
    """PyTorch's error for a matrix an algorithm cannot factor (torch.linalg.LinAlgError)."""


LinAlgError = _LinAlgError


def _is_tensor(x):
    return isinstance(x, ops.Tensor)


def _square(name, A):
    """PyTorch's error unless `A` is a (batch of) square matrices of a floating dtype."""
    shape = A._data.shape
    if len(shape) < 2:
        raise RuntimeError(f"{name}: The input tensor A must have at least 2 dimensions.")
    if shape[-1] != shape[-2]:
        raise RuntimeError(f"{name}: A must be batches of square matrices, but they are {shape[-2]} by {shape[-1]} matrices")
    if A._data.dtype.kind not in "fc":
        raise RuntimeError(f"{name}: Expected a floating point or complex tensor as input. Got {A.dtype.kind_name}")


def det(A):
    """The determinant of each square matrix (LinalgDetBackward0)."""
    _square("linalg.det", A)
    return ops.apply(np.linalg.det, A, name="LinalgDetBackward0")


def _first_zero_pivot(a):
    """The 1-based position of the first zero pivot of LU with partial pivoting of the
    matrix `a`, as LAPACK's getrf reports it (0: none)."""
    a = np.array(a, dtype=np.float64 if a.dtype.kind == "f" else np.complex128)
    n = a.shape[0]
    for k in range(n):
        p = k + int(np.argmax(np.abs(a[k:, k])))
        if a[p, k] == 0:
            return k + 1
        a[[k, p]] = a[[p, k]]
        a[k + 1:, k:] -= np.outer(a[k + 1:, k] / a[k, k], a[k, k:])
    return 0


def inverse(A):
    """The inverse of each square matrix (LinalgInvExBackward0); a singular matrix raises
    PyTorch's error naming the first zero diagonal element of its LU factor."""
    _square("linalg.inv", A)
    try:
        return ops.apply(np.linalg.inv, A, name="LinalgInvExBackward0")
    except np.linalg.LinAlgError:
        flat = A._data.reshape((-1,) + A._data.shape[-2:])
        for i, a in enumerate(flat):
            k = _first_zero_pivot(a)
            if k:
                batch = f"(Batch element {i}): " if A._data.ndim > 2 else ""
                raise LinAlgError(
                    f"linalg.inv: {batch}The diagonal element {k} is zero, the inversion could not be completed "
                    "because the input matrix is singular."
                ) from None
        raise


inv = inverse


def _slogdet(A, pair):
    _square("linalg.slogdet", A)
    sign = np.sign(np.linalg.det(A._data)) if A._data.dtype.kind == "f" else np.linalg.slogdet(A._data)[0]
    logabsdet = ops.apply(log_abs_det, A, name="LinalgSlogdetBackward0")
    return pair(ops.Tensor._make(np.asarray(sign, dtype=A._data.dtype)), logabsdet)


def slogdet(A):
    """`(sign, logabsdet)` of the determinant of each square matrix; the gradient flows
    through logabsdet (LinalgSlogdetBackward0); the sign has no gradient."""
    return _slogdet(A, _SLOGDET)


def linalg_slogdet(A):
    """`torch.linalg.slogdet`: `slogdet` as the pair `linalg_slogdet`."""
    return _slogdet(A, _LINALG_SLOGDET)


def logdet(A):
    """log det A: nan where the determinant is negative, -inf where it is 0 (PyTorch's
    WhereBackward0 over LinalgSlogdetBackward0)."""
    sign, logabsdet = _slogdet(A, _SLOGDET)
    return where(ops.Tensor._make(np.asarray(sign._data >= 0)), logabsdet, np.nan)


def _not_positive_definite(name, A):
    """PyTorch's error for a matrix with no Cholesky factor, naming the order of the first
    leading minor that is not positive definite."""
    flat = A._data.reshape((-1,) + A._data.shape[-2:])
    for i, a in enumerate(flat):
        for k in range(1, a.shape[0] + 1):
            try:
                np.linalg.cholesky(a[:k, :k])
            except np.linalg.LinAlgError:
                batch = f"(Batch element {i}): " if A._data.ndim > 2 else ""
                return LinAlgError(
                    f"{name}: {batch}The factorization could not be completed because the input is not "
                    f"positive-definite (the leading minor of order {k} is not positive-definite)."
                )
    return LinAlgError(f"{name}: the input is not positive-definite.")


def _upper_factor(A):
    """L^T (L^H for complex A), L the lower factor."""
    factor = ops.apply(np.linalg.cholesky, A, name="CholeskyBackward0").mT
    return factor.conj() if A._data.dtype.kind == "c" else factor


def _cholesky(name, node, A, upper):
    _square(name, A)
    try:
        if upper:
            return ops.composite(node, _upper_factor, A, _saves_result=True)
        return ops.apply(np.linalg.cholesky, A, name=node)
    except np.linalg.LinAlgError:
        raise _not_positive_definite(name, A) from None


def cholesky(A, upper=False):
    """The lower Cholesky factor L of each symmetric positive-definite matrix, A = L L^T,
    reading A's lower triangle (upper=True: L^T) (CholeskyBackward0)."""
    warnings.warn(
        "torch.cholesky is deprecated in favor of torch.linalg.cholesky and will be removed in a future PyTorch "
        "release.", UserWarning, stacklevel=2,
    )
    return _cholesky("cholesky", "CholeskyBackward0", A, upper)


def linalg_cholesky(A, *, upper=False):
    """`torch.linalg.cholesky` (LinalgCholeskyExBackward0)."""
    return _cholesky("linalg.cholesky", "LinalgCholeskyExBackward0", A, upper)


def _cross(input, other, dim):
    a, b = input._data, other._data
    ops.check_broadcast(a, b)
    n = max(a.ndim, b.ndim)
    axis = dim_axis(dim, n) % n
    ashape, bshape = (1,) * (n - a.ndim) + a.shape, (1,) * (n - b.ndim) + b.shape
    if ashape[axis] != 3 or bshape[axis] != 3:
        raise RuntimeError(f"linalg.cross: inputs dimension {dim} must have length 3. Got {ashape[axis]} and {bshape[axis]}")
    dt = dtypes.result_type(a, b)
    return ops.apply(np.cross, input, other, name="LinalgCrossBackward0", dtype=dt, out_dtype=dt, axis=axis - n)


def cross(input, other, dim=None):
    """The cross product along `dim` (by default the first dim of size 3, with PyTorch's
    warning) (LinalgCrossBackward0)."""
    if dim is None:
        warnings.warn(
            "Using torch.cross without specifying the dim arg is deprecated.\nPlease either pass the dim explicitly "
            "or simply use torch.linalg.cross.\nThe default value of dim will change to agree with that of "
            "linalg.cross in a future release.", UserWarning, stacklevel=2,
        )
        shape = np.broadcast_shapes(input._data.shape, other._data.shape)
        dim = next((d for d, n in enumerate(shape) if n == 3), None)
        if dim is None:
            raise RuntimeError("no dimension of size 3 in input")
    return _cross(input, other, dim)


def linalg_cross(input, other, *, dim=-1):
    """`torch.linalg.cross`: the cross product along `dim` (-1), the operands broadcast."""
    return _cross(input, other, dim)


def einsum(equation, *operands):
    """np.einsum over tensors, one node (PyTorch's name for it: `_einsum_name`).
    Operands may be given as one list; a label repeated in one operand takes its
    diagonal first; more than two operands are contracted pairwise, left to right, each
    intermediate keeping the labels still needed."""
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    for t in operands:
        if not _is_tensor(t):
            raise TypeError(f"einsum(): argument 'tensors' must be tuple of Tensors, not {type(t).__name__}")
    _check_einsum(equation, operands)
    dt = dtypes.result_type(*(t._data for t in operands))
    operands = tuple(t if t._data.dtype == dt else t.to(dt) for t in operands)
    name = _einsum_name(equation, len(operands))
    labels, output = _einsum_labels(equation, [t._data.ndim for t in operands])
    if any(len(set(term)) != len(term) for term in labels):  # a diagonal: taken first, as its own view
        operands, labels = zip(*(_diagonals(t, term) for t, term in zip(operands, labels)))
        equation = ",".join(labels) + "->" + output
    if len(operands) == 1:
        return ops.apply(einsums.reduction, equation, operands[0], name=name, edge_args=(1,))
    if len(operands) == 2:
        return ops.apply(einsums.contraction, equation, *operands, name=name, edge_args=(1, 2))
    return ops.composite(name, _pairwise_einsum, equation, *operands, _edges=tuple(range(1, len(operands) + 1)))


def _check_einsum(equation, operands):
    """PyTorch's errors for an equation that does not fit the operands."""
    inputs, arrow, output = equation.replace(" ", "").partition("->")
    terms = inputs.split(",")
    if len(terms) > len(operands):
        raise RuntimeError("einsum(): fewer operands were provided than specified in the equation")
    if len(terms) < len(operands):
        raise RuntimeError("einsum(): more operands were provided than specified in the equation")
    for i, (term, t) in enumerate(zip(terms, operands)):
        if "..." not in term and len(term) != t._data.ndim:
            raise RuntimeError(
                f"einsum(): the number of subscripts in the equation ({len(term)}) does not match the number of "
                f"dimensions ({t._data.ndim}) for operand {i} and no ellipsis was given"
            )
    for c in output.replace("...", ""):
        if c not in inputs:
            raise RuntimeError(f"einsum(): output subscript {c} does not appear in the equation for any input operand")
    labels, _ = _einsum_labels(equation, [t._data.ndim for t in operands])
    seen = {}
    for i, (term, t) in enumerate(zip(labels, operands)):
        for c, size in zip(term, t._data.shape):
            if c in seen and size != seen[c] and 1 not in (size, seen[c]):
                raise RuntimeError(
                    f"einsum(): subscript {c} has size {size} for operand {i} which does not broadcast with "
                    f"previously seen size {seen[c]}"
                )
            seen[c] = max(size, seen.get(c, 1))


def _diagonals(t, term):
    """The operand `t` with labels `term` reduced to one dim per label: a label repeated
    takes the diagonal of its two dims (moved last, as `diagonal` puts it)."""
    while len(set(term)) != len(term):
        c = next(c for c in term if term.count(c) > 1)
        first = term.index(c)
        second = term.index(c, first + 1)
        t = t.diagonal(0, first, second)
        term = term[:first] + term[first + 1:second] + term[second + 1:] + c
    return t, term


def _pairwise_einsum(equation, *operands):
    inputs, output = _einsum_labels(equation, [t._data.ndim for t in operands])
    total, labels = operands[0], inputs[0]
    for k in range(1, len(operands)):
        needed = set(output).union(*inputs[k + 1:])
        kept = output if k == len(operands) - 1 else "".join(dict.fromkeys(c for c in labels + inputs[k] if c in needed))
        total = ops.apply(einsums.contraction, f"{labels},{inputs[k]}->{kept}", total, operands[k],
                          name="EinsumBackward0", edge_args=(1, 2))
        labels = kept
    return total


def _einsum_name(equation, count):
    """PyTorch's node of an einsum: PermuteBackward0 of one operand not summed over,
    SumBackward1 of one summed, MulBackward0 of an outer product, else ViewBackward0 (its
    contractions end in a view)."""
    inputs, _, output = equation.replace(" ", "").partition("->")
    terms = inputs.split(",")
    if count == 1:
        if not output and "->" in equation:
            return "SumBackward1"
        return "PermuteBackward0" if set(output) == set(terms[0]) else "SumBackward1"
    letters = [set(t) for t in terms]
    if "->" in equation and set().union(*letters) == set(output) and not set.intersection(*letters):
        return "MulBackward0"
    return "ViewBackward0"


def kron(input, other):
    """The Kronecker product (UnsafeViewBackward0)."""
    dt = dtypes.result_type(input._data, other._data)
    return ops.apply(np.kron, input, other, name="UnsafeViewBackward0", dtype=dt, out_dtype=dt)


def inner(input, other):
    """The sums of products over the last dims (a number times a tensor for a 0-d
    operand) (ViewBackward0; MulBackward0 for a 0-d operand)."""
    for position, (label, value) in enumerate((("input", input), ("other", other)), start=1):
        if not _is_tensor(value):
            raise TypeError(f"inner(): argument '{label}' (position {position}) must be Tensor, not {type(value).__name__}")
    a, b = input._data, other._data
    if a.ndim == 0 or b.ndim == 0:
        return input * other
    if a.shape[-1] != b.shape[-1]:
        raise RuntimeError(
            f"inner() the last dimension must match on both input tensors but got shapes {list(a.shape)} and {list(b.shape)}"
        )
    dt = dtypes.result_type(a, b)
    return ops.apply(np.inner, input, other, name="ViewBackward0", dtype=dt, out_dtype=dt)


def _p_distance(difference, p, dim):
    """The p-norm of `difference` over `dim` (None: all): 0 gradient at 0, as PyTorch's."""
    size = difference.abs()
    if p == 1:
        return size.sum() if dim is None else size.sum(dim)
    if p == float("inf"):
        return size.amax() if dim is None else size.amax(dim)
    if p == 0:
        nonzero = (size != 0).to(difference.dtype)
        return nonzero.sum() if dim is None else nonzero.sum(dim)
    powers = size ** p
    total = powers.sum() if dim is None else powers.sum(dim)
    zero = total == 0
    return where(zero, 0.0, where(zero, 1.0, total) ** (1.0 / p))


def dist(input, other, p=2):
    """The p-norm of input - other (broadcast) (DistBackward0)."""
    return ops.composite("DistBackward0", lambda a, b: _p_distance(a - b, p, None), input, other)


def cdist(x1, x2, p=2.0, compute_mode="use_mm_for_euclid_dist_if_necessary"):
    """The p-norm distance between each row of x1 and each row of x2, batched over the
    leading dims (CdistBackward0); 0 gradient where two rows are equal."""
    for label, t in (("X1", x1), ("X2", x2)):
        if t._data.ndim < 2:
            raise RuntimeError(f"cdist only supports at least 2D tensors, {label} got: {t._data.ndim}D")
    if x1._data.shape[-1] != x2._data.shape[-1]:
        raise RuntimeError(
            f"X1 and X2 must have the same number of columns. X1: {x1._data.shape[-1]} X2: {x2._data.shape[-1]}"
        )
    if p < 0:
        raise RuntimeError(f"cdist only supports non-negative p values, got {p}")

    def distances(a, b):
        return _p_distance(a.unsqueeze(-2) - b.unsqueeze(-3), p, -1)

    return ops.composite("CdistBackward0", distances, x1, x2)


def _baddbmm(input, batch1, batch2, beta, alpha):
    product = batch1 @ batch2
    product = product if alpha == 1 else product * alpha
    if beta == 0:  # PyTorch ignores input (its nan and inf too)
        return product
    return product + (input if beta == 1 else input * beta)


def baddbmm(input, batch1, batch2, *, beta=1, alpha=1):
    """`beta * input + alpha * (batch1 @ batch2)` of batches of matrices, one node
    (BaddbmmBackward0); with beta 0, input is ignored."""
    for label, t in (("batch1", batch1), ("batch2", batch2)):
        if t._data.ndim != 3:
            raise RuntimeError(f"{label} must be a 3D tensor")
    b1, b2 = batch1._data.shape, batch2._data.shape
    if b1[0] != b2[0] or b1[2] != b2[1]:
        raise RuntimeError(
            f"Expected size for first two dimensions of batch2 tensor to be: [{b1[0]}, {b1[2]}] but got: [{b2[0]}, {b2[1]}]."
        )
    out_shape = (b1[0], b1[1], b2[2])
    try:
        np.broadcast_to(np.empty(input._data.shape, np.bool_), out_shape)
    except ValueError:
        raise RuntimeError(
            f"The expanded size of the tensor ({out_shape[-1]}) must match the existing size "
            f"({input._data.shape[-1]}) at non-singleton dimension 2.  Target sizes: {list(out_shape)}.  "
            f"Tensor sizes: {list(input._data.shape)}"
        ) from None
    return ops.composite("BaddbmmBackward0", _baddbmm, input, batch1, batch2, beta, alpha)


class LinalgOps:
    """The Tensor methods of this module."""

    __slots__ = ()
    det, inverse, logdet, slogdet, cholesky = det, inverse, logdet, slogdet, cholesky
    cross, kron, inner, dist, baddbmm = cross, kron, inner, dist, baddbmm

    def baddbmm_(self, batch1, batch2, *, beta=1, alpha=1):
        """`baddbmm` in place; returns self."""
        return self._rewrite(lambda t: baddbmm(t, batch1, batch2, beta=beta, alpha=alpha), batch1, batch2)

