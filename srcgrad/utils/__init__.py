"""`srcgrad.utils`, as `torch.utils`: `data` (datasets and batching) and `checkpoint`
(activation checkpointing)."""

from . import checkpoint, data  # noqa: F401

__all__ = ["checkpoint", "data"]
