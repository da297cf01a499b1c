"""Run-time settings that PyTorch code sets for speed or reproducibility and that do not
change the shim's results: the CPU thread counts (NumPy's BLAS keeps its own, set by
`OMP_NUM_THREADS` and the like before NumPy is imported), deterministic algorithms (the
shim's ops are deterministic already) and the float32 matmul precision (NumPy multiplies
float32 in float32: PyTorch's "highest"). Each is recorded and read back as PyTorch's."""

import os
import warnings

__all__ = [
    "set_num_threads", "get_num_threads", "set_num_interop_threads", "get_num_interop_threads",
    "use_deterministic_algorithms", "are_deterministic_algorithms_enabled",
    "is_deterministic_algorithms_warn_only_enabled", "set_float32_matmul_precision", "get_float32_matmul_precision",
]


class _Settings:
    threads = os.cpu_count() or 1
    interop_threads = os.cpu_count() or 1
    deterministic = False
    warn_only = False
    matmul_precision = "highest"


def set_num_threads(n):
    _Settings.threads = _positive("set_num_threads", n)


def get_num_threads():
    return _Settings.threads


def set_num_interop_threads(n):
    _Settings.interop_threads = _positive("set_num_interop_threads", n)


def _positive(name, n):
    """`n`, a positive int, or PyTorch's error for `name`."""
    if not isinstance(n, int) or isinstance(n, bool):
        raise RuntimeError(f"{name} expects an int, but got {type(n).__name__}")
    if n <= 0:
        raise RuntimeError(f"{name} expects a positive integer")
    return n


def get_num_interop_threads():
    return _Settings.interop_threads


def use_deterministic_algorithms(mode, *, warn_only=False):
    _Settings.deterministic, _Settings.warn_only = bool(mode), bool(warn_only)


def are_deterministic_algorithms_enabled():
    return _Settings.deterministic


def is_deterministic_algorithms_warn_only_enabled():
    return _Settings.warn_only


def set_float32_matmul_precision(precision):
    """As PyTorch's: another name than 'highest', 'high' or 'medium' warns and changes nothing."""
    if precision not in ("highest", "high", "medium"):
        warnings.warn(f"{precision} is not one of 'highest', 'high', or 'medium'; the current"
                      "setFloat32MatmulPrecision call has no effect.", stacklevel=2)
        return
    _Settings.matmul_precision = precision


def get_float32_matmul_precision():
    return _Settings.matmul_precision
