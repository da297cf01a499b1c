"""`srcgrad.amp`, as `torch.amp`: `GradScaler` and `autocast`.

`GradScaler("cpu")` is PyTorch's loss scaling, step for step: the loss is multiplied by
the scale (a float32 tensor, 2**16 at first), `unscale_` divides the gradients by it in
place and notes whether any is inf or nan, `step` then skips the optimizer's step where
one was, and `update` halves the scale after such a step or doubles it after
`growth_interval` good ones. For "cuda" it warns and is disabled, as PyTorch's is on a
machine without a GPU (every call then passes through).

`autocast` disabled (`enabled=False`, or for "cuda": PyTorch's warning) runs its block as
it is; enabled for the CPU it is refused: it computes chosen ops in bfloat16 or float16,
which NumPy cannot do op for op as PyTorch does.
"""

import enum
import functools
import warnings
from collections import defaultdict

import numpy as np

from .tensor.creation import full
from .tensor.dtypes import float32
from .tensor.grad_mode import no_grad
from .tensor.tensor import Tensor

__all__ = ["GradScaler", "autocast", "is_autocast_available", "is_autocast_enabled"]

_FIX = "This may indicate your script did not use scaler.scale(loss or outputs) earlier in the iteration."


class _Stage(enum.Enum):
    READY = 0
    UNSCALED = 1
    STEPPED = 2


def _fresh_state():
    return {"stage": _Stage.READY, "found_inf": None}


class GradScaler:
    """Loss scaling for mixed precision (module doc)."""

    def __init__(self, device="cuda", init_scale=2.0**16, growth_factor=2.0, backoff_factor=0.5, growth_interval=2000,
                 enabled=True):
        self._device = device
        self._enabled = enabled
        if device == "cuda" and enabled:
            warnings.warn("torch.cuda.amp.GradScaler is enabled, but CUDA is not available.  Disabling.", stacklevel=2)
            self._enabled = False
        if self._enabled:
            if not growth_factor > 1.0:
                raise AssertionError("The growth factor must be > 1.0.")
            if not backoff_factor < 1.0:
                raise AssertionError("The backoff factor must be < 1.0.")
            self._init_scale = init_scale
            self._scale = None  # made at the first `scale`
            self._growth_factor = growth_factor
            self._backoff_factor = backoff_factor
            self._growth_interval = growth_interval
            self._growth_tracker = None
            self._per_optimizer_states = defaultdict(_fresh_state)

    def is_enabled(self):
        return self._enabled

    def scale(self, outputs):
        """`outputs` (a Tensor, or an iterable of them, nested) times the scale."""
        if not self._enabled:
            return outputs
        if self._scale is None:
            self._scale = full((), self._init_scale, dtype=float32)
            self._growth_tracker = 0
        if isinstance(outputs, Tensor):
            return outputs * self._scale
        scaled = [self.scale(o) for o in outputs]
        return type(outputs)(scaled) if isinstance(outputs, (list, tuple)) else iter(scaled)

    def _checked_scale(self, name):
        if self._scale is None:
            raise AssertionError(f"Attempted {name} but _scale is None.  " + _FIX)

    def unscale_(self, optimizer):
        """Divide `optimizer`'s gradients by the scale, in place, noting any inf or nan."""
        if not self._enabled:
            return
        self._checked_scale("unscale_")
        state = self._per_optimizer_states[id(optimizer)]
        if state["stage"] is _Stage.UNSCALED:
            raise RuntimeError("unscale_() has already been called on this optimizer since the last update().")
        if state["stage"] is _Stage.STEPPED:
            raise RuntimeError("unscale_() is being called after step().")
        inverse = np.float32(1.0 / np.float64(self._scale.item()))
        found = False
        with no_grad():
            for group in optimizer.param_groups:
                for p in group["params"]:
                    if p.grad is None:
                        continue
                    if p.grad.dtype == np.float16:
                        raise ValueError("Attempting to unscale FP16 gradients.")
                    data = p.grad._data
                    found = found or not np.isfinite(data).all()
                    p.grad.mul_(float(inverse))
        state["found_inf"] = found
        state["stage"] = _Stage.UNSCALED

    def step(self, optimizer, *args, **kwargs):
        """`optimizer.step()` unless an unscaled gradient was inf or nan; its result."""
        if not self._enabled:
            return optimizer.step(*args, **kwargs)
        if "closure" in kwargs:
            raise RuntimeError("Closure use is not currently supported if GradScaler is enabled.")
        self._checked_scale("step")
        state = self._per_optimizer_states[id(optimizer)]
        if state["stage"] is _Stage.STEPPED:
            raise RuntimeError("step() has already been called since the last update().")
        if state["stage"] is _Stage.READY:
            self.unscale_(optimizer)
        result = None if state["found_inf"] else optimizer.step(*args, **kwargs)
        state["stage"] = _Stage.STEPPED
        return result

    def update(self, new_scale=None):
        """The scale for the next iteration (module doc), or `new_scale`."""
        if not self._enabled:
            return
        self._checked_scale("update")
        if new_scale is not None:
            value = new_scale.item() if isinstance(new_scale, Tensor) else new_scale
            self._scale = full((), value, dtype=float32)
        else:
            found = [s["found_inf"] for s in self._per_optimizer_states.values() if s["found_inf"] is not None]
            if not found:
                raise AssertionError("No inf checks were recorded prior to update.")
            scale = np.float32(self._scale.item())
            if any(found):
                scale, self._growth_tracker = np.float32(scale * np.float32(self._backoff_factor)), 0
            else:
                self._growth_tracker += 1
                if self._growth_tracker == self._growth_interval:
                    scale, self._growth_tracker = np.float32(scale * np.float32(self._growth_factor)), 0
            self._scale = full((), float(scale), dtype=float32)
        self._per_optimizer_states = defaultdict(_fresh_state)

    def get_scale(self):
        if not self._enabled:
            return 1.0
        return self._init_scale if self._scale is None else self._scale.item()

    def get_growth_factor(self):
        return self._growth_factor

    def set_growth_factor(self, new_factor):
        self._growth_factor = new_factor

    def get_backoff_factor(self):
        return self._backoff_factor

    def set_backoff_factor(self, new_factor):
        self._backoff_factor = new_factor

    def get_growth_interval(self):
        return self._growth_interval

    def set_growth_interval(self, new_interval):
        self._growth_interval = new_interval

    def _get_growth_tracker(self):
        return 0 if self._growth_tracker is None else self._growth_tracker

    def state_dict(self):
        if not self._enabled:
            return {}
        return {"scale": self.get_scale(), "growth_factor": self._growth_factor, "backoff_factor": self._backoff_factor,
                "growth_interval": self._growth_interval, "_growth_tracker": self._get_growth_tracker()}

    def load_state_dict(self, state_dict):
        if not self._enabled:
            return
        if len(state_dict) == 0:
            raise RuntimeError("The source state dict is empty, possibly because it was saved from a disabled "
                               "instance of GradScaler.")
        self._init_scale = state_dict["scale"]
        if self._scale is not None:
            self._scale = full((), state_dict["scale"], dtype=float32)
        self._growth_factor = state_dict["growth_factor"]
        self._backoff_factor = state_dict["backoff_factor"]
        self._growth_interval = state_dict["growth_interval"]
        if self._growth_tracker is not None:
            self._growth_tracker = state_dict["_growth_tracker"]


def is_autocast_available(device_type):
    return device_type in ("cpu", "cuda")


def is_autocast_enabled(device_type=None):
    """False: autocast never runs enabled here."""
    return False


class autocast:
    """A block (or a decorated function) run as it is where autocast is disabled (module doc)."""

    def __init__(self, device_type, dtype=None, enabled=True, cache_enabled=None):
        if not isinstance(device_type, str):
            raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
        if device_type not in ("cpu", "cuda", "mps", "xpu", "hpu", "xla", "meta"):
            raise RuntimeError(f"Invalid device string: '{device_type}'")
        if device_type == "cuda" and enabled:
            warnings.warn("CUDA is not available or torch_xla is imported. Disabling autocast.", stacklevel=2)
            enabled = False
        if enabled:
            raise NotImplementedError(
                f"autocast on '{device_type}' computes chosen ops in a lower precision (bfloat16 or float16), which "
                "the Tensor shim does not reproduce: run the block without autocast, or with enabled=False")
        self.device_type, self.fast_dtype = device_type, dtype

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapped(*args, **kwargs):
            return fn(*args, **kwargs)

        return wrapped
