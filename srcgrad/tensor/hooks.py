"""Tensor hooks (`Tensor.register_hook`), as in PyTorch 2: functions run on the gradient
reaching a tensor, in the order they were registered, each given what the one before
returned. A node keeps them in `Node._hooks`, with the tensors that retain their grad
(graph.run_hooks stores the hooked gradient into those); a leaf's hooks are on its
AccumulateGrad, so they run before it accumulates, in `autograd.grad` too.

Invariant: a hook never sees an array the graph keeps: it gets a copy, which it may
write into (a write in place counts as returned).
"""

import functools

import numpy as np

from .dtypes import legacy_type_name

__all__ = ["RemovableHandle", "hooked"]


class RemovableHandle:
    """What `register_hook` returns: `remove()` takes the hook off (again: nothing)."""

    def __init__(self, node, hook):
        self._node, self._hook = node, hook

    def remove(self):
        node, hook = self._node, self._hook
        if node is not None and node._hooks:
            node._hooks[:] = [h for h in node._hooks if h is not hook]
        self._node = self._hook = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


def hooked(hooks, g):
    """The gradient array `g` after the callable hooks among `hooks` (the tensors there
    retain their grad: not hooks)."""
    tensor = tensor_class()
    for hook in list(hooks):
        if not isinstance(hook, tensor):
            g = _apply(hook, g, tensor)
    return g


def _apply(hook, g, tensor):
    """What `hook` makes of `g`, checked as PyTorch checks it."""
    given = tensor._make(np.array(g, copy=True))
    out = hook(given)
    if out is None:
        return given._data
    name = getattr(hook, "__name__", type(hook).__name__)
    if not isinstance(out, tensor):
        raise TypeError(f"expected Variable, but hook returned '{type(out).__name__}'")
    data, before = out._data, np.asarray(g).dtype
    if data.shape != np.shape(g):
        raise RuntimeError(f"hook '{name}' has changed the size of value")
    if data.dtype != before:
        raise RuntimeError(
            f"hook '{name}' has changed the type of value (was {legacy_type_name(before)} got "
            f"{legacy_type_name(data.dtype)})"
        )
    return data


def register_hook(self, hook):
    """`Tensor.register_hook`: call `hook(grad)` whenever a gradient with respect to this
    tensor is computed; a Tensor it returns replaces the gradient (a leaf accumulates
    that). Returns a handle whose `remove()` takes the hook off."""
    if not self._requires_grad:
        raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
    node = self._grad_fn if self._grad_fn is not None else self._accumulate_grad()
    return node.add_hook(hook)


@functools.lru_cache(maxsize=None)
def tensor_class():
    """The Tensor class (tensor.py imports graph.py, which imports this module)."""
    from .tensor import Tensor

    return Tensor
