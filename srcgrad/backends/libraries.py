"""`srcgrad.backends.cudnn`, `cuda`, `mps`, `mkldnn`, `openmp`, `mkl`: the switches of
PyTorch's math libraries that PyTorch code sets (`torch.backends.cudnn.deterministic =
True`, `torch.backends.cudnn.benchmark = False`) or asks about. srcgrad computes with
NumPy on the CPU: the GPU libraries answer that they are not available, the switches are
kept and read back, and none changes a result."""

import contextlib
import types

__all__ = ["cudnn", "cuda", "mps", "mkldnn", "openmp", "mkl"]


def _no():
    return False


cudnn = types.SimpleNamespace(
    enabled=True, benchmark=False, deterministic=False, allow_tf32=True, benchmark_limit=None,
    is_available=_no, version=lambda: None,
)


@contextlib.contextmanager
def _cudnn_flags(enabled=False, benchmark=False, benchmark_limit=10, deterministic=False, allow_tf32=True):
    """`torch.backends.cudnn.flags(...)`: the switches set for a block, then restored."""
    before = dict(vars(cudnn))
    cudnn.enabled, cudnn.benchmark, cudnn.benchmark_limit = enabled, benchmark, benchmark_limit
    cudnn.deterministic, cudnn.allow_tf32 = deterministic, allow_tf32
    try:
        yield
    finally:
        vars(cudnn).update(before)


cudnn.flags = _cudnn_flags

cuda = types.SimpleNamespace(
    is_built=_no,
    matmul=types.SimpleNamespace(allow_tf32=False, allow_fp16_reduced_precision_reduction=True,
                                 allow_bf16_reduced_precision_reduction=True),
)
mps = types.SimpleNamespace(is_available=_no, is_built=_no)
mkldnn = types.SimpleNamespace(is_available=lambda: True, enabled=True)
openmp = types.SimpleNamespace(is_available=lambda: True)
mkl = types.SimpleNamespace(is_available=_no)
