"""`srcgrad.autograd.graph`, as `torch.autograd.graph`: `saved_tensors_hooks(pack_hook,
unpack_hook)` and `save_on_cpu(pin_memory=False, device_type="cuda")`, context managers
under which what graph nodes save for backward goes through the hooks
(tensor/saved_hooks.py): `pack_hook(tensor)` when a node recorded inside the context saves
the tensor, `unpack_hook(packed)` each time backward reads it back; the innermost context
wins. A custom Function's `ctx.save_for_backward` packs too, and `ctx.saved_tensors`
unpacks at each read.
"""

from ..tensor.saved_hooks import HOOKS
from ..tensor.tensor import Tensor

__all__ = ["saved_tensors_hooks", "save_on_cpu"]


class saved_tensors_hooks:
    """Context manager: nodes recorded inside it pack and unpack their saved tensors
    with `pack_hook` and `unpack_hook` (which must give back a Tensor of the saved one's
    shape; its values are what backward reads)."""

    def __init__(self, pack_hook, unpack_hook):
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook

    def __enter__(self):
        HOOKS.append((self.pack_hook, self.unpack_hook))
        return None

    def __exit__(self, *exc):
        HOOKS.remove((self.pack_hook, self.unpack_hook))
        return False


class save_on_cpu(saved_tensors_hooks):
    """Saved tensors are kept as CPU copies (`(device, copy)`) and moved back at backward:
    with the shim's CPU tensors, a copy of each saved tensor. `pin_memory` and
    `device_type` are accepted and change nothing."""

    def __init__(self, pin_memory=False, device_type="cuda"):
        def pack_to_cpu(tensor):
            return (tensor.device, Tensor._make(tensor._data.copy()))

        def unpack_from_cpu(packed):
            device, tensor = packed
            return tensor.to(device)

        super().__init__(pack_to_cpu, unpack_from_cpu)
