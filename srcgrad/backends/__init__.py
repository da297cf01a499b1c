"""Optional backends that compile generated derivative code.

`grad(f, backend=None)` (the default) runs the generated Python source as it is.
`backend="numba"` compiles it with `numba.njit` (see `numba_backend.py`); numba is an
optional dependency: `pip install "srcgrad[numba]"`.
"""

BACKENDS = (None, "python", "numba")


def with_backend(derivative, backend):
    """`derivative` (made by `grad` or `value_and_grad`) run by `backend`."""
    if backend is None or backend == "python":
        return derivative
    if backend == "numba":
        from . import numba_backend

        return numba_backend.compiled(derivative)
    raise ValueError(f"unknown backend {backend!r}; srcgrad has backend=None (plain Python) and backend='numba'")
