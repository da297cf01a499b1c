"""Matrix factorizations of tensors: `linalg.qr`, `linalg.eigh`, `linalg.eigvalsh`,
`linalg.svd`, `linalg.svdvals`, and the older `torch.svd` and `torch.qr`.

A factorization with several outputs is one registry primitive (`np.linalg.qr`,
`decompositions.symmetric_eigh`, `np.linalg.svd`) recorded as ONE node of PyTorch's
name, reached from each output through its own `graph.OutputNode`, so a backward pass
gives the rule the cotangents of all outputs at once (None for an unused one). The node
saves its outputs, as PyTorch's does: an in-place write into one makes its backward
raise PyTorch's version error. Results are PyTorch's named tuples
(`torch.return_types.linalg_qr`, ...). None of this holds calculus.
"""

import numpy as np

from .tangents import op_name, refuse_dual
from ..rules.decompositions import symmetric_eigh, symmetric_eigvalsh
from . import ops
from .errstate import loud, quiet
from .grad_mode import _mode
from .graph import OutputGradients, OutputNode, describe, node_class
from .rule_nodes import RuleNode, rule_of
from .tensor import Tensor
from .versions import saved_version

__all__ = ["return_type", "qr", "eigh", "eigvalsh", "svd", "svdvals", "svd_old", "qr_old"]


class _Named(tuple):
    """A tuple of tensors with PyTorch's field names, printed as
    `srcgrad.return_types.<name>(\\nfield=...,\\nfield=...)`."""

    __slots__ = ()
    _fields = ()

    def __new__(cls, *values):
        return tuple.__new__(cls, values)

    def __repr__(self):
        body = ",\n".join(f"{f}={v!r}" for f, v in zip(self._fields, self))
        return f"srcgrad.return_types.{type(self).__name__}(\n{body})"


def return_type(name, fields):
    """The class PyTorch calls `torch.return_types.<name>`, with `fields` as properties."""
    members = {"__slots__": (), "__module__": "srcgrad.return_types", "_fields": tuple(fields)}
    for i, field in enumerate(fields):
        members[field] = property(lambda self, i=i: self[i])
    return type(name, (_Named,), members)


_QR = return_type("linalg_qr", ("Q", "R"))
_EIGH = return_type("linalg_eigh", ("eigenvalues", "eigenvectors"))
_SVD = return_type("linalg_svd", ("U", "S", "Vh"))
_OLD_SVD = return_type("svd", ("U", "S", "V"))
_OLD_QR = return_type("qr", ("Q", "R"))


class FactorNode(RuleNode):
    """The RuleNode of a primitive with several outputs: `ans` is their tuple, and the
    saved outputs are named `output i of <op>` in a version error."""

    __slots__ = ()

    def describe_saved(self, which):
        array, producer = which
        return describe(array, producer, saved_output=True)


class ThinSvdNode(FactorNode):
    """The node of svd(full_matrices=True) of a non-square matrix: as PyTorch's, it
    ignores the gradients of the singular vectors beyond min(m, n) (any basis of their
    subspace would do) and differentiates the thin factorization."""

    __slots__ = ()

    def apply(self, g):
        k = min(self.args[0].shape[-2:])
        g_u, g_s, g_vh = g
        thin = OutputGradients([None if g_u is None else g_u[..., :k], g_s, None if g_vh is None else g_vh[..., :k, :]])
        return FactorNode.apply(self, thin)


def factor(primitive, A, name, _node=FactorNode, _recorded=None, **kwargs):
    """The outputs of `primitive(A's array, **kwargs)` (a tuple) as Tensors; when
    tracked, each floating output reaches one FactorNode called `name` (`_node`: a
    subclass; `_recorded`: the outputs and keywords the node's rule sees, when they are
    not these)."""
    refuse_dual(op_name(name), A)  # a rule of several outputs: no tangents pushed (forward AD)
    token = quiet()
    try:
        ans = tuple(np.asarray(a) for a in primitive(A._data, **kwargs))
    finally:
        loud(token)
    if not (_mode.enabled and A._requires_grad):
        return tuple(Tensor._make(a) for a in ans)
    fn = A._grad_fn
    edges = ((fn if fn is not None else A._accumulate_grad(), 0),)
    seen, seen_kwargs = _recorded(ans) if _recorded else (ans, kwargs)
    node = node_class(name, _node)(edges, rule_of(primitive), (A._data,), seen_kwargs, seen, [A._data.dtype], True, ())
    outputs = []
    for i, a in enumerate(ans):
        t = Tensor._make(a)
        if a.dtype.kind in "fc":
            t._requires_grad = True
            t._grad_fn = OutputNode(node, i, len(ans))
            node.versions += saved_version(t, (a, t._grad_fn))
        outputs.append(t)
    return tuple(outputs)


def _matrices(name, A, square=False):
    """PyTorch's errors unless `A` is a (batch of) matrices of a floating dtype."""
    shape = A._data.shape
    if len(shape) < 2:
        raise RuntimeError(f"{name}: The input tensor A must have at least 2 dimensions.")
    if square and shape[-1] != shape[-2]:
        raise RuntimeError(f"{name}: A must be batches of square matrices, but they are {shape[-2]} by {shape[-1]} matrices")
    if A._data.dtype.kind not in "fc":
        raise RuntimeError(f"{name}: Expected a floating point or complex tensor as input. Got {A.dtype.kind_name}")


def _empty(A):
    """An empty tensor of A's dtype (what PyTorch returns for an output not computed)."""
    return Tensor._make(np.zeros((0,), A._data.dtype))


def qr(A, mode="reduced"):
    """Q and R of A = QR for each matrix (LinalgQrBackward0); mode 'reduced' (Q m x k,
    R k x n, k = min(m, n)), 'complete' (Q m x m, R m x n) or 'r' (R only; Q empty).
    R is differentiable in mode 'r' too (PyTorch's backward refuses it)."""
    if mode not in ("reduced", "r", "complete"):
        raise RuntimeError(f"qr received unrecognized mode '{mode}' but expected one of 'reduced' (default), 'r', or 'complete'")
    _matrices("linalg.qr", A)
    if mode == "r":
        _, r = factor(np.linalg.qr, A, "LinalgQrBackward0")
        return _QR(_empty(A), r)
    return _QR(*factor(np.linalg.qr, A, "LinalgQrBackward0", mode=mode))


def _uplo(UPLO):
    if not isinstance(UPLO, str) or UPLO.upper() not in ("L", "U"):
        raise RuntimeError(f"Expected UPLO argument to be 'L' or 'U', but got {UPLO}")
    return UPLO.upper()


def eigh(A, UPLO="L"):
    """Eigenvalues (ascending) and eigenvectors of each symmetric matrix, read from the
    triangle UPLO (LinalgEighBackward0). The gradient is PyTorch's: symmetric, exact
    along symmetric perturbations; eigenvectors are defined up to sign, so only losses
    that do not depend on it have a meaningful gradient."""
    _matrices("linalg.eigh", A, square=True)
    return _EIGH(*factor(symmetric_eigh, A, "LinalgEighBackward0", UPLO=_uplo(UPLO)))


def eigvalsh(A, UPLO="L"):
    """The eigenvalues (ascending) of each symmetric matrix (LinalgEighBackward0)."""
    _matrices("linalg.eigh", A, square=True)
    return ops.apply(symmetric_eigvalsh, A, name="LinalgEighBackward0", UPLO=_uplo(UPLO))


def svd(A, full_matrices=True, *, driver=None):
    """U, S, Vh of A = U diag(S) Vh for each matrix (LinalgSvdBackward0). With
    full_matrices=True and a non-square A, the gradients of the extra singular vectors
    are ignored, as PyTorch's docs say."""
    _matrices("linalg.svd", A)
    m, n = A._data.shape[-2:]
    if full_matrices and m != n:
        k = min(m, n)
        return _SVD(*factor(np.linalg.svd, A, "LinalgSvdBackward0", _node=ThinSvdNode, full_matrices=True,
                            _recorded=lambda ans: ((ans[0][..., :k], ans[1], ans[2][..., :k, :]), {"full_matrices": False})))
    return _SVD(*factor(np.linalg.svd, A, "LinalgSvdBackward0", full_matrices=full_matrices))


def svdvals(A, *, driver=None):
    """The singular values (descending) of each matrix (LinalgSvdBackward0)."""
    _matrices("linalg.svd", A)
    return ops.apply(np.linalg.svd, A, name="LinalgSvdBackward0", compute_uv=False)


def svd_old(input, some=True, compute_uv=True):
    """`torch.svd`: U, S, V (not Vh: V's node is TransposeBackward0); some=False gives
    the full U and V; compute_uv=False gives S and zero U (m x m) and V (n x n)."""
    _matrices("linalg.svd", input)
    if not compute_uv:
        m, n = input._data.shape[-2:]
        batch, dt = input._data.shape[:-2], input._data.dtype
        u = Tensor._make(np.zeros(batch + (m, m), dt))
        v = Tensor._make(np.zeros(batch + (n, n), dt))
        return _OLD_SVD(u, svdvals(input), v)
    u, s, vh = svd(input, full_matrices=not some)
    return _OLD_SVD(u, s, vh.mT)


def qr_old(input, some=True):
    """`torch.qr` (deprecated in PyTorch, with its warning): `linalg.qr` in mode
    'reduced' (some=True) or 'complete'."""
    import warnings

    warnings.warn(
        "torch.qr is deprecated in favor of torch.linalg.qr and will be removed in a future PyTorch release.\n"
        "The boolean parameter 'some' has been replaced with a string parameter 'mode'.\n"
        "Q, R = torch.qr(A, some)\nshould be replaced with\n"
        "Q, R = torch.linalg.qr(A, 'reduced' if some else 'complete')", UserWarning, stacklevel=2,
    )
    return _OLD_QR(*qr(input, "reduced" if some else "complete"))
