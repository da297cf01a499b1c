"""The Tensor methods of the matrix functions and factorizations in decompositions.py,
solves.py and matrix_functions.py (`x.svd()`, `x.qr()`, `x.pinverse()`,
`x.matrix_power(n)`, `x.matrix_exp()`, `x.cholesky_solve(L)`, `x.triangular_solve(A)`, ...). Those modules build on the Tensor class, so
each method imports its function when first called."""

__all__ = ["MatrixMethods"]


class MatrixMethods:
    """Tensor methods forwarding to the linear-algebra functions."""

    __slots__ = ()

    def svd(self, some=True, compute_uv=True):
        """`torch.svd(self, some, compute_uv)`: U, S, V."""
        from .decompositions import svd_old

        return svd_old(self, some, compute_uv)

    def qr(self, some=True):
        """`torch.qr(self, some)`: Q, R."""
        from .decompositions import qr_old

        return qr_old(self, some)

    def pinverse(self, rcond=1e-15):
        """`torch.pinverse(self, rcond)`."""
        from .solves import pinverse

        return pinverse(self, rcond)

    def matrix_power(self, n):
        """`torch.linalg.matrix_power(self, n)`."""
        from .matrix_functions import matrix_power

        return matrix_power(self, n)

    def matrix_exp(self):
        """`torch.linalg.matrix_exp(self)`."""
        from .matrix_functions import matrix_exp

        return matrix_exp(self)

    def cholesky_solve(self, input2, upper=False):
        """`torch.cholesky_solve(self, input2, upper)`: A^-1 self for A = L L^H, L = input2."""
        from .solves import cholesky_solve

        return cholesky_solve(self, input2, upper)

    def cholesky_inverse(self, upper=False):
        """`torch.cholesky_inverse(self, upper)`: (L L^H)^-1 for the factor L = self."""
        from .solves import cholesky_inverse

        return cholesky_inverse(self, upper)

    def triangular_solve(self, A, upper=True, transpose=False, unitriangular=False):
        """`torch.triangular_solve(self, A, ...)`: (solution, cloned_coefficient)."""
        from .solves import triangular_solve

        return triangular_solve(self, A, upper, transpose, unitriangular)
