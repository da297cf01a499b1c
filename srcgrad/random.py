"""`srcgrad.random`, as `torch.random`: the default generator's seed and state, and
`fork_rng`, a block whose draws leave the default generator as they found it.

Invariant: after `with fork_rng(): ...` the default generator continues exactly as if
the block had drawn nothing (its state is put back on exit, also when the block raises).
"""

import contextlib

from .tensor.generators import get_rng_state, initial_seed, manual_seed, seed, set_rng_state

__all__ = ["set_rng_state", "get_rng_state", "manual_seed", "seed", "initial_seed", "fork_rng"]

_NO_CUDA = "Torch not compiled with CUDA enabled"


@contextlib.contextmanager
def fork_rng(devices=None, enabled=True, _caller="fork_rng", _devices_kw="devices", device_type=None):
    """Run the block, then put the default generator's state back (nothing is kept where
    `enabled` is False). srcgrad has no accelerator: `devices` may only be empty or None,
    as on PyTorch's CPU-only build, where another device raises its error."""
    if not enabled:
        yield
        return
    if devices is not None and list(devices) and device_type in (None, "cuda"):
        raise AssertionError(_NO_CUDA)
    saved = get_rng_state()
    try:
        yield
    finally:
        set_rng_state(saved)
