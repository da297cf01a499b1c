"""Tensor hooks (`Tensor.register_hook`), as in PyTorch 2: functions run on the gradient
reaching a tensor, in the order they were registered, each given what the one before
returned. A node keeps them in `Node._hooks`, with the tensors that retain their grad
(graph.run_hooks stores the hooked gradient into those); a leaf's hooks are on its
AccumulateGrad, so they run before it accumulates, in `autograd.grad` too.

Invariant: a hook never sees an array the graph keeps: it gets a copy, which it may
write into (a write in place counts as returned). In a pass that records a graph
(create_graph) the copy is a Tensor at the gradient's place in that graph.

Hooks on a node itself (`Node.register_prehook`, `Node.register_hook`) are `NodeHook`s
in the same `_hooks` list, so that every fast path leaves such a node to the general
pass, but they run apart, as PyTorch runs them: a pre-hook after the tensor hooks and
retained grads, on the tuple of the node's output gradients; a post-hook after the node,
on (the gradients it gives each input, its output gradients). Either may return new
ones (a tuple of the same length), or None.
"""

import functools

import numpy as np

from .dtypes import legacy_type_name

__all__ = ["NodeHook", "RemovableHandle", "hooked", "graph_hooked", "node_prehooked", "node_posthooked",
           "register_post_accumulate_grad_hook"]


class RemovableHandle:
    """What `register_hook` returns: `remove()` takes the hook off (again: nothing).
    `table`: the node's list that holds it (`_hooks`, or an AccumulateGrad's `post_hooks`)."""

    def __init__(self, node, hook, table="_hooks"):
        self._node, self._hook, self._table = node, hook, table

    def remove(self):
        node, hook = self._node, self._hook
        hooks = getattr(node, self._table, None) if node is not None else None
        if hooks:
            hooks[:] = [h for h in hooks if h is not hook]
        self._node = self._hook = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


class NodeHook:
    """A hook on a node itself, kept in the node's `_hooks` (see the module doc)."""

    __slots__ = ("fn", "pre")

    def __init__(self, fn, pre):
        self.fn, self.pre = fn, pre


def hooked(hooks, g):
    """The gradient array `g` after the tensor hooks among `hooks` (the tensors there
    retain their grad; node hooks run apart)."""
    tensor = tensor_class()
    for hook in list(hooks):
        if not isinstance(hook, (tensor, NodeHook)):
            g = _apply(hook, g, tensor)
    return g


def node_prehooked(node, g, graph=False):
    """`g`, the gradient reaching `node` (an OutputGradients for a node of several
    outputs), after the node's pre-hooks; None where they leave it no gradient.
    `graph`: a pass that records a graph, whose gradients are Tensors already."""
    for hook in list(node._hooks):
        if type(hook) is NodeHook and hook.pre:
            several = isinstance(g, output_gradients())
            given = _given(tuple(g) if several else (g,), graph)
            out = hook.fn(given)
            if out is not None:
                got = _taken(hook.fn, out, given, graph)
                g = output_gradients()(got) if several else got[0]
            if g is None:
                break
    return g


def node_posthooked(node, grads_in, g, graph=False):
    """The gradients `grads_in` that `node` gives its inputs (for the gradient `g` that
    reached it) after its post-hooks."""
    for hook in list(node._hooks):
        if type(hook) is NodeHook and not hook.pre:
            outputs = _given(tuple(g) if isinstance(g, output_gradients()) else (g,), graph)
            given = _given(tuple(grads_in), graph)
            out = hook.fn(given, outputs)
            if out is not None:
                grads_in = list(_taken(hook.fn, out, given, graph))
    return grads_in


def _given(values, graph):
    """What a node hook gets: Tensors (copies of the arrays of a pass that records none)
    and None."""
    if graph:
        return values
    tensor = tensor_class()
    return tuple(None if v is None else tensor._make(np.array(v, copy=True)) for v in values)


def _taken(hook, out, given, graph):
    """The gradients (arrays, or Tensors in a pass that records a graph) of what a node
    `hook` returned for `given`, checked as PyTorch checks them."""
    name = getattr(hook, "__name__", type(hook).__name__)
    if type(out) is not tuple:
        raise TypeError(f"expected tuple, but hook returned '{type(out).__name__}'")
    if len(out) != len(given):
        raise RuntimeError(
            f"hook '{name}' has returned an incorrect number of values (got {len(out)}, but expected {len(given)})")
    tensor = tensor_class()
    taken = []
    for value, before in zip(out, given):
        if value is not None and not isinstance(value, tensor):
            raise TypeError(f"expected Variable, but hook returned '{type(value).__name__}'")
        if value is not None and before is not None:
            value = _checked(hook, value, before._data, tensor)
        taken.append(value if graph or value is None else value._data)
    return tuple(taken)


def _apply(hook, g, tensor):
    """What `hook` makes of `g`, checked as PyTorch checks it."""
    given = tensor._make(np.array(g, copy=True))
    out = hook(given)
    if out is None:
        return given._data
    return _checked(hook, out, g, tensor)._data


def _checked(hook, out, g, tensor):
    """The Tensor `out` that `hook` returned for the gradient `g` (an array), checked as
    PyTorch checks it."""
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
    return out


def graph_hooked(node, g):
    """`graph.run_hooks` in a pass that records a graph (graph_backward.py): the hooks
    get the gradient Tensor `g`, in the same place of the graph (its grad_fn) with an
    array of its own, and what they return keeps its graph; a tensor that retains its
    grad gets a copy recorded as PyTorch records it (`CloneBackward0`), or the sum with
    what it holds."""
    tensor = tensor_class()
    for hook in list(node._hooks):
        if isinstance(hook, (tensor, NodeHook)):
            continue
        given = tensor._make(np.array(g._data, copy=True), g._requires_grad)
        given._grad_fn = g._grad_fn
        out = hook(given)
        g = given if out is None else _checked(hook, out, g._data, tensor)
    for t in node._hooks:
        if isinstance(t, tensor):
            current = t._grad
            if current is not None:
                t._grad = current + g
            else:
                t._grad = g.clone() if g._requires_grad else tensor._make(np.array(g._data, copy=True))
    return node_prehooked(node, g, graph=True)


def register_hook(self, hook):
    """`Tensor.register_hook`: call `hook(grad)` whenever a gradient with respect to this
    tensor is computed; a Tensor it returns replaces the gradient (a leaf accumulates
    that). Returns a handle whose `remove()` takes the hook off."""
    if not self._requires_grad:
        raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
    node = self._grad_fn if self._grad_fn is not None else self._accumulate_grad()
    return node.add_hook(hook)


def register_post_accumulate_grad_hook(self, hook):
    """`Tensor.register_post_accumulate_grad_hook`: call `hook(tensor)` after each
    accumulation of a gradient into this leaf's `.grad` (an optimizer step in backward,
    as PyTorch's tutorial does it). Returns a handle whose `remove()` takes it off."""
    if not self._requires_grad:
        raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
    if self._grad_fn is not None:
        raise RuntimeError("post accumulate grad hooks cannot be registered on non-leaf tensors")
    from .graph import AccumulateGrad, PostHookedAccumulateGrad  # noqa: PLC0415 (graph.py imports this module)

    node = self._accumulate_grad()
    if type(node) is AccumulateGrad:
        node.__class__ = PostHookedAccumulateGrad  # off the engines' fast paths, which would skip the hooks
    if node.post_hooks is None:
        node.post_hooks = []
    node.post_hooks.append(hook)
    return RemovableHandle(node, hook, "post_hooks")


@functools.lru_cache(maxsize=None)
def tensor_class():
    """The Tensor class (tensor.py imports graph.py, which imports this module)."""
    from .tensor import Tensor

    return Tensor


@functools.lru_cache(maxsize=None)
def output_gradients():
    """graph.OutputGradients (graph.py imports this module)."""
    from .graph import OutputGradients

    return OutputGradients
