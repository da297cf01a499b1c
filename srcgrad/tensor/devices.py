"""`device`: where a tensor lives, as `torch.device`. A srcgrad tensor lives on the CPU
or, holding no data, on the 'meta' device (meta.py); the class exists so that tutorial
code (`device = torch.device("cpu")`, `x.to(device)`, `torch.ones(2, device=device)`,
`with torch.device("meta"):`) runs and prints as in PyTorch.

Invariants: `device("cpu")` prints `device(type='cpu')` and `str()` gives `cpu`; it
compares equal to another device of the same type and index, never to a string (as
PyTorch). Every `device=` argument goes through `moved_to` (a copy: `to`, `tensor`,
`as_tensor`, `new_tensor`) or `allocated_on` (a factory: `zeros`, `arange`, `*_like`,
modules' parameters), which pass the CPU, answer True for the meta device and raise for
another device what PyTorch's CPU-only build raises. A factory given no device uses the
default one (`set_default_device`, `with device(...)`).
"""

import re

__all__ = ["device", "CPU", "META", "moved_to", "allocated_on", "set_default_device", "get_default_device"]

# the device types PyTorch's `device()` parses (c10/core/DeviceType.cpp), with the name of
# the dispatch backend its "Could not run ..." errors give
_BACKENDS = {
    "cpu": "CPU", "cuda": "CUDA", "ipu": "IPU", "xpu": "XPU", "mkldnn": "MKLDNN", "opengl": "OpenGL",
    "opencl": "OpenCL", "ideep": "IDEEP", "hip": "HIP", "ve": "VE", "fpga": "FPGA", "maia": "MAIA",
    "xla": "XLA", "lazy": "Lazy", "vulkan": "Vulkan", "mps": "MPS", "meta": "Meta", "hpu": "HPU",
    "mtia": "MTIA", "privateuseone": "PrivateUse1",
}
_DEVICE_STRING = re.compile(r"([a-zA-Z_]+)(?::([1-9][0-9]*|0))?")
builtin_type = type  # `device.__init__` names its argument `type`, as PyTorch does
_NO_ACCELERATOR = "Cannot access accelerator device when none is available."


def _is_int(value):
    return isinstance(value, int) and not isinstance(value, bool)


class device:
    """A device type with an optional index: `device("cpu")`, `device("cuda", 0)`, `device("cpu:0")`.

    Strings are parsed as PyTorch parses them: `type` or `type:index`, the index a
    non-negative integer without leading zeros or sign."""

    __slots__ = ("type", "index")

    def __init__(self, type, index=None):
        if isinstance(type, device):
            if index is not None:
                raise TypeError("device(): argument 'type' must be str, not srcgrad.device")
            type, index = type.type, type.index
        elif _is_int(type):
            raise RuntimeError(_NO_ACCELERATOR)
        elif not isinstance(type, str):
            raise TypeError(f"device(): argument 'type' must be str, not {builtin_type(type).__name__}")
        else:
            if not type:
                raise RuntimeError("Device string must not be empty")
            parsed = _DEVICE_STRING.fullmatch(type)
            if parsed is None:
                raise RuntimeError(f"Invalid device string: '{type}'")
            name, number = parsed.groups()
            if name not in _BACKENDS:
                raise RuntimeError(
                    "Expected one of cpu, cuda, ipu, xpu, mkldnn, opengl, opencl, ideep, hip, ve, fpga, maia, xla, "
                    f"lazy, vulkan, mps, meta, hpu, mtia, privateuseone device type at start of device string: {type}"
                )
            if number is not None:
                if index is not None:
                    raise RuntimeError(f"type (string) must not include an index because index was passed explicitly: {type}")
                index = int(number)
            type = name
        if index is not None:
            if not _is_int(index):
                raise TypeError(f"device(): argument 'index' (position 2) must be int, not {builtin_type(index).__name__}")
            if index < 0:
                raise RuntimeError("Device index must not be negative")
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

    def __enter__(self):
        """`with device("meta"):` factories called without `device=` make their tensors
        there (PyTorch's default-device context); the previous default comes back on exit."""
        _DEFAULTS.append(self)
        return self

    def __exit__(self, *exc):
        _DEFAULTS.pop()


CPU = device("cpu")
META = device("meta")
_DEFAULTS = [None]  # the default device, innermost last; None: the CPU, set by nobody


def set_default_device(target):
    """`torch.set_default_device`: the device factories use when not given one (None: the CPU)."""
    _DEFAULTS[0] = None if target is None else _parsed(target, "set_default_device")
    del _DEFAULTS[1:]


def get_default_device():
    """`torch.get_default_device()`: `device(type='cpu')` unless a context or
    `set_default_device` chose another."""
    return _DEFAULTS[-1] or CPU

# what a CPU-only PyTorch build raises for a device it was not compiled with, whether a
# tensor moves there or is made there
_NOT_COMPILED = {
    "cuda": "Torch not compiled with CUDA enabled",
    "xpu": "Torch not compiled with XPU enabled",
}


def _parsed(target, op):
    """`target` (a device, its string, or an accelerator's index) as a device; another kind
    of value raises the TypeError PyTorch's argument parser gives for `op`."""
    if isinstance(target, device):
        return target
    if isinstance(target, str) or _is_int(target):
        return device(target)
    raise TypeError(f"{op}(): argument 'device' must be torch.device, not {builtin_type(target).__name__}")


def _refuse_accelerator(dev):
    if dev.type in _NOT_COMPILED:
        raise AssertionError(_NOT_COMPILED[dev.type])


def moved_to(target, op="to"):
    """Check that a tensor may be copied to `target` (a device or its string; `to`,
    `tensor(..., device=)`, `as_tensor`, `new_tensor`): only the CPU and the meta device
    are there; PyTorch's CPU build's errors for the others. True for the meta device."""
    dev = _parsed(target, op)
    if dev.type == "lazy":  # a copy to the lazy device allocates there first
        allocated_on(dev, op)
    if dev.type == "meta":
        return True
    if dev.type != "cpu":
        _refuse_accelerator(dev)
        raise RuntimeError(f"PyTorch is not linked with support for {dev.type} devices")


def allocated_on(target, op, kernel="empty.memory_format"):
    """Check the `device=` of the factory `op` (`zeros`, `arange`, `zeros_like`, ...): None
    (the default device) and the CPU pass; another device raises what PyTorch's CPU build
    raises when its `kernel` has to allocate there (its message's list of backends left
    out). True where the tensor is to be made on the meta device (meta.py)."""
    dev = _DEFAULTS[-1] if target is None else _parsed(target, op)
    if dev is None:
        return False
    if dev.type == "meta":
        return True
    if dev.type != "cpu":
        _refuse_accelerator(dev)
        raise NotImplementedError(
            f"Could not run 'aten::{kernel}' with arguments from the '{_BACKENDS[dev.type]}' backend. This could "
            "be because the operator doesn't exist for this backend, or was omitted during the selective/custom "
            "build process (if using custom build)."
        )
    return False
