"""`device`: where a tensor lives, as `torch.device`. Every srcgrad tensor lives on the
CPU; the class exists so that tutorial code (`device = torch.device("cpu")`,
`x.to(device)`, `torch.ones(2, device=device)`) runs and prints as in PyTorch.

Invariants: `device("cpu")` prints `device(type='cpu')` and `str()` gives `cpu`; it
compares equal to another device of the same type and index, never to a string (as
PyTorch); a tensor's `.device` is always `device("cpu")`.
"""

__all__ = ["device", "CPU", "moved_to"]

_TYPES = ("cpu", "cuda", "mps", "meta", "xpu")
builtin_type = type  # `device.__init__` names its argument `type`, as PyTorch does


class device:
    """A device type with an optional index: `device("cpu")`, `device("cuda", 0)`, `device("cpu:0")`."""

    __slots__ = ("type", "index")

    def __init__(self, type, index=None):
        if isinstance(type, device):
            if index is not None:
                raise TypeError("device(): argument 'type' must be str, not srcgrad.device")
            type, index = type.type, type.index
        elif isinstance(type, int) and not isinstance(type, bool):
            raise RuntimeError("srcgrad has only the CPU device: a device given by index alone names an accelerator")
        elif not isinstance(type, str):
            raise TypeError(f"device(): argument 'type' must be str, not {builtin_type(type).__name__}")
        else:
            name, _, number = type.partition(":")
            if number and not number.isdigit():
                raise RuntimeError(f"Invalid device string: '{type}'")
            if name not in _TYPES:
                raise RuntimeError(
                    "Expected one of cpu, cuda, ipu, xpu, mkldnn, opengl, opencl, ideep, hip, ve, fpga, maia, xla, "
                    f"lazy, vulkan, mps, meta, hpu, mtia, privateuseone device type at start of device string: {type}"
                )
            if number:
                if index is not None:
                    raise RuntimeError(f"type (string) must not include an index because index was passed explicitly: {type}")
                index = int(number)
            type = name
        object.__setattr__(self, "type", type)
        object.__setattr__(self, "index", index)

    def __setattr__(self, name, value):
        raise AttributeError(f"attribute '{name}' of 'srcgrad.device' objects is not writable")

    def __repr__(self):
        if self.index is None:
            return f"device(type='{self.type}')"
        return f"device(type='{self.type}', index={self.index})"

    def __str__(self):
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __eq__(self, other):
        if not isinstance(other, device):
            return NotImplemented
        return self.type == other.type and self.index == other.index

    def __hash__(self):
        return hash((self.type, self.index))

    def __reduce__(self):
        return (device, (self.type, self.index))


CPU = device("cpu")


# what a CPU-only PyTorch build raises when a tensor is moved to another device ('meta' it
# supports: srcgrad does not)
_UNAVAILABLE = {
    "cuda": (AssertionError, "Torch not compiled with CUDA enabled"),
    "xpu": (AssertionError, "Torch not compiled with XPU enabled"),
    "mps": (RuntimeError, "PyTorch is not linked with support for mps devices"),
    "meta": (NotImplementedError, "srcgrad tensors live on the CPU: the 'meta' device is not supported"),
}


def moved_to(target):
    """Check that a tensor may move to `target` (a device or its string): only the CPU
    is there; PyTorch's CPU build's errors for the others."""
    dev = target if isinstance(target, device) else device(target)
    if dev.type != "cpu":
        error, message = _UNAVAILABLE[dev.type]
        raise error(message)
