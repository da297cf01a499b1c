"""`torch.linalg` of the Tensor shim: det, inv, slogdet, cholesky, cross, vander and the norms,
PyTorch's linalg forms of the functions in tensor/linalg_functions.py (inv_ex and
cholesky_ex also return PyTorch's `info`, zero: a failure raises instead)."""

import numpy as np

from .tensor.functions import vector_norm
from .tensor.tensor import Tensor
from .tensor.linalg_functions import LinAlgError, det, inverse as inv, linalg_cholesky as cholesky, linalg_cross as cross
from .tensor.linalg_functions import linalg_slogdet as slogdet
from .tensor.matrix_makers import linalg_vander as vander

__all__ = ["LinAlgError", "det", "inv", "inv_ex", "slogdet", "cholesky", "cholesky_ex", "cross", "vector_norm", "vander"]


class _WithInfo(tuple):
    """`(result, info)` printed as PyTorch's `torch.return_types.linalg_<name>_ex`."""

    def __new__(cls, result, info):
        return tuple.__new__(cls, (result, info))

    info = property(lambda self: self[1])


def _with_info(name, field):
    kind = type(name, (_WithInfo,), {"__module__": "srcgrad.return_types"})
    setattr(kind, field, property(lambda self: self[0]))
    return kind


_INV_EX, _CHOLESKY_EX = _with_info("linalg_inv_ex", "inverse"), _with_info("linalg_cholesky_ex", "L")


def _info(A):
    return Tensor._make(np.zeros(A.shape[:-2], np.int32))


def inv_ex(A, *, check_errors=False):
    """`(inverse, info)`: `inv(A)` and zeros."""
    return _INV_EX(inv(A), _info(A))


def cholesky_ex(A, *, upper=False, check_errors=False):
    """`(L, info)`: `cholesky(A, upper=upper)` and zeros."""
    return _CHOLESKY_EX(cholesky(A, upper=upper), _info(A))



from .tensor.decompositions import eigh, eigvalsh, qr, svd, svdvals  # noqa: E402
from .tensor.matrix_functions import (  # noqa: E402
    cond, diagonal, matrix_exp, matrix_norm, matrix_power, multi_dot, norm, vecdot,
)
from .tensor.solves import lstsq, matrix_rank, pinv, solve, solve_ex, solve_triangular  # noqa: E402

__all__ += [
    "eigh", "eigvalsh", "qr", "svd", "svdvals", "cond", "diagonal", "matrix_exp", "matrix_norm", "matrix_power",
    "multi_dot", "norm", "vecdot", "lstsq", "matrix_rank", "pinv", "solve", "solve_ex", "solve_triangular",
]
