"""`srcgrad.nn`: the functional interface of PyTorch's `torch.nn` for the Tensor shim."""

from . import functional  # noqa: F401

__all__ = ["functional"]
