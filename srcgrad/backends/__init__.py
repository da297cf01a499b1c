"""Optional backends that compile generated derivative code.

`grad(f, backend=None)` (the default) runs the generated Python source as it is.
`backend="numba"` compiles it with `numba.njit` (see `numba_backend.py`); numba is an
optional dependency: `pip install "srcgrad[numba]"`.

For the Tensor shim, `cudnn`, `cuda`, `mps`, `mkldnn`, `openmp` and `mkl` stand for the
switches of PyTorch's `torch.backends` (libraries.py).
"""

from .libraries import cuda, cudnn, mkl, mkldnn, mps, openmp  # noqa: F401

BACKENDS = (None, "python", "numba")


def with_backend(derivative, backend):
    """`derivative` (made by `grad` or `value_and_grad`) run by `backend`."""
    module = backend_module(backend)
    return derivative if module is None else module.compiled(derivative)


def backend_module(backend):
    """The module of `backend`: None for plain Python; a ValueError for an unknown name,
    an ImportError saying what to install for one whose package is missing."""
    if backend is None or backend == "python":
        return None
    if backend == "numba":
        from . import numba_backend

        return numba_backend
    raise ValueError(f"unknown backend {backend!r}; srcgrad has backend=None (plain Python) and backend='numba'")
