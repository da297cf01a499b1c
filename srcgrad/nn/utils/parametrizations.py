"""`srcgrad.nn.utils.parametrizations`, as `torch.nn.utils.parametrizations`:
`weight_norm`, `spectral_norm` and `orthogonal`, each a parametrization module
(`_WeightNorm`, `_SpectralNorm`, `_Orthogonal`) registered through
`parametrize.register_parametrization`, with PyTorch's arithmetic step for step.

The spectral norm's u and v start from normal draws of srcgrad's generator (PyTorch
draws from its own), followed by 15 power-iteration steps; given the same u and v the
numbers are PyTorch's. The Householder products of `orthogonal` are written as Tensor
code (a product of reflections; PyTorch's LAPACK kernel records
LinalgHouseholderProductBackward0), and the QR factorization behind its
`right_inverse` is NumPy's, which runs the same LAPACK routine (geqrf) as PyTorch.
"""

import enum

import numpy as np

from ...tensor import creation, finfo
from ...tensor.grad_mode import no_grad
from ...tensor.joins import cat
from ...tensor.matrix_functions import matrix_exp
from ...tensor.pointwise import allclose
from ...tensor.products import mv
from ...tensor.contractions import vdot
from ...tensor.solves import solve
from ...tensor.tensor import Tensor
from .. import functional as F
from ..modules import Module
from . import parametrize
from .spectral_norm import default_dim, weight_matrix
from .weight_norm import _weight_norm, norm_except_dim

__all__ = ["orthogonal", "spectral_norm", "weight_norm"]


# --- weight norm -------------------------------------------------------------------------------


class _WeightNorm(Module):
    """weight = g * v / ||v|| (norm over every dim but `dim`); originals (g, v)."""

    def __init__(self, dim=0):
        super().__init__()
        self.dim = -1 if dim is None else dim

    def forward(self, weight_g, weight_v):
        return _weight_norm(weight_v, weight_g, self.dim)

    def right_inverse(self, weight):
        return norm_except_dim(weight, 2, self.dim), weight


def weight_norm(module, name="weight", dim=0):
    """Parametrize `module.<name>` as g * v / ||v||: `original0` is g (the norms along
    `dim`), `original1` is v. State dicts of the deprecated form (`<name>_g`, `<name>_v`)
    load into it."""
    parametrize.register_parametrization(module, name, _WeightNorm(dim), unsafe=True)

    def _weight_norm_compat_hook(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                                 error_msgs):
        g_key, v_key = f"{prefix}{name}_g", f"{prefix}{name}_v"
        if g_key in state_dict and v_key in state_dict:
            state_dict[f"{prefix}parametrizations.{name}.original0"] = state_dict.pop(g_key)
            state_dict[f"{prefix}parametrizations.{name}.original1"] = state_dict.pop(v_key)

    module._register_load_state_dict_pre_hook(_weight_norm_compat_hook)
    return module


# --- spectral norm -----------------------------------------------------------------------------


class _SpectralNorm(Module):
    """weight / sigma, sigma = u . (W v) from power iteration on the buffers `_u`, `_v`
    (a step per read in training mode); a 1-d weight is normalized instead."""

    def __init__(self, weight, n_power_iterations=1, dim=0, eps=1e-12):
        super().__init__()
        ndim = weight.dim()
        if dim >= ndim or dim < -ndim:
            raise IndexError(f"Dimension out of range (expected to be in range of [-{ndim}, {ndim - 1}] but got {dim})")
        if n_power_iterations <= 0:
            raise ValueError("Expected n_power_iterations to be positive, but got "
                             f"n_power_iterations={n_power_iterations}")
        self.dim = dim if dim >= 0 else dim + ndim
        self.eps = eps
        if ndim > 1:
            self.n_power_iterations = n_power_iterations
            weight_mat = weight_matrix(weight, self.dim)
            height, width = weight_mat.shape
            with no_grad():
                u = weight_mat.new_empty(height).normal_(0, 1)
                v = weight_mat.new_empty(width).normal_(0, 1)
                self.register_buffer("_u", F.normalize(u, dim=0, eps=self.eps))
                self.register_buffer("_v", F.normalize(v, dim=0, eps=self.eps))
            self._power_method(weight_mat, 15)

    def _power_method(self, weight_mat, n_power_iterations):
        with no_grad():
            for _ in range(n_power_iterations):
                self._u.copy_(F.normalize(mv(weight_mat, self._v), dim=0, eps=self.eps))
                self._v.copy_(F.normalize(mv(weight_mat.H, self._u), dim=0, eps=self.eps))

    def forward(self, weight):
        if weight.dim() == 1:
            return F.normalize(weight, dim=0, eps=self.eps)
        weight_mat = weight_matrix(weight, self.dim)
        if self.training:
            self._power_method(weight_mat, self.n_power_iterations)
        u, v = self._u.clone(), self._v.clone()
        return weight / vdot(u, mv(weight_mat, v))

    def right_inverse(self, value):
        return value


def spectral_norm(module, name="weight", n_power_iterations=1, eps=1e-12, dim=None):
    """Parametrize `module.<name>` as itself divided by its largest singular value."""
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    dim = default_dim(module) if dim is None else dim
    parametrize.register_parametrization(module, name, _SpectralNorm(weight, n_power_iterations, dim, eps))
    return module


# --- orthogonal --------------------------------------------------------------------------------


def _geqrf(a):
    """LAPACK's geqrf of each matrix of `a` (a NumPy array): R above the diagonal and the
    Householder vectors below it, and the reflections' scales tau."""
    flat = a.reshape(-1, *a.shape[-2:])
    factored = [np.linalg.qr(m, mode="raw") for m in flat]
    packed = np.stack([h.T for h, _ in factored]).reshape(a.shape)
    taus = np.stack([t for _, t in factored]).reshape(*a.shape[:-2], -1)
    return packed.astype(a.dtype), taus.astype(a.dtype)


def _householder_product(vectors, tau):
    """The first k columns of H_1 ... H_k, H_i = I - tau_i w_i w_i^H, w_i the i-th column
    of `vectors` below the diagonal with 1 on it (Tensor code, so differentiable)."""
    n, k = vectors.shape[-2], vectors.shape[-1]
    eye = creation.eye(n, k, dtype=vectors.dtype)
    reflectors = vectors.tril(-1) + eye
    q = eye.expand(*vectors.shape[:-2], n, k)
    for i in reversed(range(k)):
        w = reflectors[..., :, i:i + 1]
        q = q - tau[..., i:i + 1].unsqueeze(-1) * (w @ (w.mH @ q))
    return q


def _is_orthogonal(q):
    n, k = q.shape[-2], q.shape[-1]
    eye = creation.eye(k, dtype=q.dtype)
    return allclose(q.mH @ q, eye, atol=10.0 * n * finfo(q.dtype).eps)


def _make_orthogonal(a):
    """The Q of a's QR factorization whose R has a positive diagonal."""
    packed, tau = _geqrf(a.detach().numpy())
    q = _householder_product(Tensor._make(packed), Tensor._make(tau))
    return q * Tensor._make(packed).diagonal(dim1=-2, dim2=-1).sgn().unsqueeze(-2)


class _OrthMaps(enum.Enum):
    matrix_exp = enum.auto()
    cayley = enum.auto()
    householder = enum.auto()


class _Orthogonal(Module):
    """An orthogonal matrix (or batch) from an unconstrained one: exp or Cayley map of
    its skew-symmetric part, or a product of Householder reflections; `base` (the
    trivialization) the orthogonal matrix it multiplies."""

    def __init__(self, weight, orthogonal_map, *, use_trivialization=True):
        super().__init__()
        self.shape = weight.shape
        self.orthogonal_map = orthogonal_map
        if use_trivialization:
            self.register_buffer("base", None)

    def forward(self, X):
        n, k = X.shape[-2], X.shape[-1]
        transposed = n < k
        if transposed:
            X, n, k = X.mT, k, n
        if self.orthogonal_map in (_OrthMaps.matrix_exp, _OrthMaps.cayley):
            X = X.tril()
            if n != k:
                X = cat([X, X.new_zeros(n, n - k).expand(*X.shape[:-2], -1, -1)], dim=-1)
            A = X - X.mH
            if self.orthogonal_map == _OrthMaps.matrix_exp:
                Q = matrix_exp(A)
            else:
                eye = creation.eye(n, dtype=A.dtype)
                Q = solve(eye - 0.5 * A, eye + 0.5 * A)
            if n != k:
                Q = Q[..., :k]
        else:
            A = X.tril(diagonal=-1)
            tau = 2.0 / (1.0 + (A * A).sum(dim=-2))
            Q = _householder_product(A, tau)
            Q = Q * X.diagonal(dim1=-2, dim2=-1).int().unsqueeze(-2)
        if hasattr(self, "base"):
            Q = self.base @ Q
        return Q.mT if transposed else Q

    def right_inverse(self, Q):
        with no_grad():
            return self._right_inverse(Q)

    def _right_inverse(self, Q):
        if Q.shape != self.shape:
            raise ValueError(f"Expected a matrix or batch of matrices of shape {self.shape}. Got a tensor of shape "
                             f"{Q.shape}.")
        Q_init = Q
        n, k = Q.shape[-2], Q.shape[-1]
        transpose = n < k
        if transpose:
            Q, n, k = Q.mT, k, n
        if not hasattr(self, "base"):
            if self.orthogonal_map in (_OrthMaps.cayley, _OrthMaps.matrix_exp):
                raise NotImplementedError("It is not possible to assign to the matrix exponential or the Cayley "
                                          "parametrizations when use_trivialization=False.")
            packed, tau = _geqrf(Q.detach().numpy())
            rows = np.arange(k)
            signs = np.sign(packed[..., rows, rows])
            packed[..., rows, rows] = np.where(tau == 0.0, -signs, signs)
            A = Tensor._make(packed)
            return A.mT if transpose else A
        if n == k:
            Q = _make_orthogonal(Q) if not _is_orthogonal(Q) else Q.clone()
        else:
            noise = creation.randn(*Q.shape[:-2], n, n - k, dtype=Q.dtype)
            Q = _make_orthogonal(cat([Q, noise], dim=-1))
        self.base = Q
        neg_eye = creation.zeros_like(Q_init)
        neg_eye.diagonal(dim1=-2, dim2=-1).fill_(-1.0)
        return neg_eye


def orthogonal(module, name="weight", orthogonal_map=None, *, use_trivialization=True):
    """Parametrize the matrix (or batch of matrices) `module.<name>` to be orthogonal:
    `orthogonal_map` "matrix_exp" (default for square), "cayley" or "householder"
    (default otherwise)."""
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if weight.dim() < 2:
        raise ValueError(f"Expected a matrix or batch of matrices. Got a tensor of {weight.dim()} dimensions.")
    if orthogonal_map is None:
        orthogonal_map = "matrix_exp" if weight.shape[-2] == weight.shape[-1] else "householder"
    orth_enum = getattr(_OrthMaps, orthogonal_map, None)
    if orth_enum is None:
        raise ValueError('orthogonal_map has to be one of "matrix_exp", "cayley", "householder". Got: '
                         f"{orthogonal_map}")
    parametrize.register_parametrization(module, name, _Orthogonal(weight, orth_enum,
                                                                    use_trivialization=use_trivialization),
                                         unsafe=True)
    return module
