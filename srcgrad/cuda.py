"""`srcgrad.cuda`: what `torch.cuda` answers on a machine without a GPU. srcgrad runs on
the CPU only, so tutorial code that picks its device with
`torch.device("cuda" if torch.cuda.is_available() else "cpu")` picks the CPU."""

import types
import warnings

__all__ = ["is_available", "device_count", "amp", "manual_seed", "manual_seed_all", "seed", "seed_all", "initial_seed",
           "get_rng_state", "set_rng_state", "get_rng_state_all", "set_rng_state_all"]

_NO_CUDA = "Torch not compiled with CUDA enabled"


def is_available():
    """Always False: srcgrad has no GPU backend."""
    return False


def device_count():
    """Always 0."""
    return 0


def manual_seed(seed):
    """Seed the GPU generators: with none, nothing to do (PyTorch's CPU build defers the call,
    which never runs); `seed` is still read as an int."""
    int(seed)


def manual_seed_all(seed):
    int(seed)


def seed():
    """Nothing to seed (see `manual_seed`)."""


def seed_all():
    """Nothing to seed (see `manual_seed`)."""


def initial_seed():
    raise AssertionError(_NO_CUDA)


def get_rng_state(device="cuda"):
    raise AssertionError(_NO_CUDA)


def set_rng_state(new_state, device="cuda"):
    """Deferred and never run, as on PyTorch's CPU build."""


def get_rng_state_all():
    """The states of no GPU: []."""
    return []


def set_rng_state_all(new_states):
    """Nothing to set (no GPU)."""


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
