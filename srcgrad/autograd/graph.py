"""`srcgrad.autograd.graph`, as `torch.autograd.graph`: `saved_tensors_hooks(pack_hook,
unpack_hook)` and `save_on_cpu(pin_memory=False, device_type="cuda")`, context managers
under which what graph nodes save for backward goes through the hooks
(tensor/saved_hooks.py): `pack_hook(tensor)` when a node recorded inside the context saves
the tensor, `unpack_hook(packed)` each time backward reads it back; the innermost context
wins. A custom Function's `ctx.save_for_backward` packs too, and `ctx.saved_tensors`
unpacks at each read.

Also `Node` (the class of every `grad_fn`), `increment_version(tensor)` (count an
in-place write the shim did not see, so that a backward through a value saved before
it refuses) and `register_multi_grad_hook(tensors, fn, mode="all"|"any")`: one hook
over several tensors' gradients, called once per backward pass.
"""

import threading

from ..tensor import hooks
from ..tensor.engine import passes
from ..tensor.graph import Node
from ..tensor.saved_hooks import HOOKS
from ..tensor.tensor import Tensor
from ..tensor.versions import bump, counter_of

__all__ = ["Node", "saved_tensors_hooks", "save_on_cpu", "increment_version", "register_multi_grad_hook"]


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


def increment_version(tensor):
    """Count an in-place write into `tensor` (or each tensor of an iterable) that the
    shim did not make itself (a write through `.numpy()`, say): nodes that saved it
    before now refuse to run backward, with PyTorch's version error."""
    tensors = (tensor,) if isinstance(tensor, Tensor) else tensor
    try:
        tensors = tuple(tensors)
    except TypeError:
        raise RuntimeError("increment_version expect a Iterable[Tensor] as input") from None
    if not all(isinstance(t, Tensor) for t in tensors):
        raise RuntimeError("increment_version expects each element of the iterable to be a tensor")
    for t in tensors:
        counter_of(t)
        bump(t)


class _MultiHandle(hooks.RemovableHandle):
    """The handle of a multi-grad hook: `remove()` takes off the hook it put on each
    tensor."""

    def __init__(self, handles):
        super().__init__(None, None)
        self.handles = handles

    def remove(self):
        for handle in self.handles:
            handle.remove()


def register_multi_grad_hook(tensors, fn, *, mode="all"):
    """As PyTorch's: with mode "all", `fn(grads)` once per backward pass, after the
    gradient of every tensor of `tensors` that the pass computes (a tensor outside the
    pass's graph, or not needed for its `inputs`, is not waited for and gets None);
    with mode "any", `fn(grad)` with the first of them a pass computes. A tensor hook
    on each tensor (registered in order) does the counting; `fn`'s return is ignored."""
    supported = ("all", "any")
    if mode not in supported:
        raise ValueError(f"Expects mode to be one of {supported} but got {mode}")
    lock = threading.Lock()
    if mode == "any":
        fired = set()  # the serial numbers of the passes that called fn

        def first_only(grad):
            serial = passes.running[-1][0]
            with lock:
                if serial in fired:
                    return
                fired.add(serial)
            fn(grad)

        return _MultiHandle(tuple(t.register_hook(first_only) for t in tensors if t.requires_grad))
    nodes = [_node_of(t) for t in tensors]
    waiting = {}  # per pass: [gradients, how many are still due]

    def collector(i):
        def collect(grad):
            key, order = passes.running[-1]
            with lock:
                if key not in waiting:
                    will_run = set(order)
                    waiting[key] = [[None] * len(nodes), sum(n in will_run for n in nodes)]
                state = waiting[key]
                state[0][i] = grad
                state[1] -= 1
                done = state[1] == 0
                if done:
                    del waiting[key]
            if done:
                fn(state[0])

        return collect

    return _MultiHandle(tuple(t.register_hook(collector(i)) for i, t in enumerate(tensors)))


def _node_of(tensor):
    """The node whose hooks see `tensor`'s gradient (its grad_fn, or a leaf's
    AccumulateGrad); PyTorch's assertion for a tensor that requires none."""
    if not tensor.requires_grad:
        raise AssertionError("Expected gradient function to be set")
    return tensor.grad_fn if tensor.grad_fn is not None else tensor._accumulate_grad()
