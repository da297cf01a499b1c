"""`srcgrad.cuda`: what `torch.cuda` answers on a machine without a GPU. srcgrad runs on
the CPU only, so tutorial code that picks its device with
`torch.device("cuda" if torch.cuda.is_available() else "cpu")` picks the CPU."""

import types
import warnings

__all__ = ["is_available", "device_count", "amp"]


def is_available():
    """Always False: srcgrad has no GPU backend."""
    return False


def device_count():
    """Always 0."""
    return 0


def _deprecated_grad_scaler(init_scale=2.0**16, growth_factor=2.0, backoff_factor=0.5, growth_interval=2000,
                            enabled=True):
    """`torch.cuda.amp.GradScaler(...)`: PyTorch's deprecation warning, then
    `srcgrad.amp.GradScaler("cuda", ...)` (disabled here, with its warning)."""
    from .amp import GradScaler  # noqa: PLC0415 (amp imports the tensor package, which imports this module)

    warnings.warn("`torch.cuda.amp.GradScaler(args...)` is deprecated. Please use `torch.amp.GradScaler('cuda', "
                  "args...)` instead.", FutureWarning, stacklevel=2)
    return GradScaler("cuda", init_scale, growth_factor, backoff_factor, growth_interval, enabled)


def _deprecated_autocast(enabled=True, dtype=None, cache_enabled=True):
    """`torch.cuda.amp.autocast(...)`: PyTorch's deprecation warning, then
    `srcgrad.amp.autocast("cuda", ...)` (disabled here, with its warning)."""
    from .amp import autocast  # noqa: PLC0415

    warnings.warn("`torch.cuda.amp.autocast(args...)` is deprecated. Please use `torch.amp.autocast('cuda', "
                  "args...)` instead.", FutureWarning, stacklevel=2)
    return autocast("cuda", dtype=dtype, enabled=enabled, cache_enabled=cache_enabled)


amp = types.SimpleNamespace(GradScaler=_deprecated_grad_scaler, autocast=_deprecated_autocast)
