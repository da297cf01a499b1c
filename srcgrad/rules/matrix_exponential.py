"""The matrix exponential `matrix_exp` (NumPy has none): scaling and squaring with the
degree-13 Padé approximant (Higham 2005), batched over leading dims, and its rules.

Both rules are the Fréchet derivative L(A, E) = d/dh exp(A + hE), read off the upper
right block of exp([[A, E], [0, A]]); the reverse rule is L(A^T, G) (the adjoint of
L(A, .)). They hold for any square A, with no assumption on its eigenvalues.
"""

import numpy as np

from .linalg import _T
from .registry import defjvp, defvjp

__all__ = ["matrix_exp"]

_PADE13 = (
    64764752532480000.0, 32382376266240000.0, 7771770303897600.0, 1187353796428800.0, 129060195264000.0,
    10559470521600.0, 670442572800.0, 33522128640.0, 1323241920.0, 40840800.0, 960960.0, 16380.0, 182.0, 1.0,
)
_THETA13 = 5.371920351148152  # the largest 1-norm the approximant takes unscaled


def matrix_exp(x):
    """exp of each square matrix of `x` (..., n, n), in x's dtype, computed in double
    precision; one scaling for the whole batch (the largest 1-norm's)."""
    x = np.asarray(x)
    wide = np.complex128 if x.dtype.kind == "c" else np.float64
    a = x.astype(wide)
    n = a.shape[-1]
    if a.size == 0:
        return np.array(a, dtype=x.dtype)
    largest = float(np.max(np.sum(np.abs(a), axis=-2)))
    squarings = int(np.ceil(np.log2(largest / _THETA13))) if np.isfinite(largest) and largest > _THETA13 else 0
    a = a / 2.0 ** squarings
    b = _PADE13
    eye = np.eye(n, dtype=wide)
    a2 = a @ a
    a4 = a2 @ a2
    a6 = a4 @ a2
    u = a @ (a6 @ (b[13] * a6 + b[11] * a4 + b[9] * a2) + b[7] * a6 + b[5] * a4 + b[3] * a2 + b[1] * eye)
    v = a6 @ (b[12] * a6 + b[10] * a4 + b[8] * a2) + b[6] * a6 + b[4] * a4 + b[2] * a2 + b[0] * eye
    r = np.linalg.solve(v - u, v + u)
    for _ in range(squarings):
        r = r @ r
    return r.astype(x.dtype, copy=False)


def _frechet(a, e):
    """L(a, e): the upper right block of exp([[a, e], [0, a]])."""
    n = np.shape(a)[-1]
    shape = np.broadcast_shapes(np.shape(a), np.shape(e))
    block = np.zeros(shape[:-2] + (2 * n, 2 * n), dtype=np.result_type(a, e))
    block[..., :n, :n] = a
    block[..., n:, n:] = a
    block[..., :n, n:] = e
    return matrix_exp(block)[..., :n, n:]


@defvjp(matrix_exp, "x", name="LinalgMatrixExp")
def matrix_exp_vjp(g, ans, x):
    return _frechet(np.conj(_T(x)), g)


@defjvp(matrix_exp, "x")
def matrix_exp_jvp(t, ans, x):
    return _frechet(x, t)
