"""`srcgrad.utils`, as `torch.utils`: only its `data` module (datasets and batching)."""

from . import data  # noqa: F401

__all__ = ["data"]
