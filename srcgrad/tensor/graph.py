"""The eager autograd graph's nodes and edges.

A node is the `grad_fn` of the tensor it produced. Its `next_functions` are fixed
when it is made: one `(node or None, 0)` pair per input, pointing at the input's
`grad_fn`, or at the `AccumulateGrad` of a leaf that requires grad, and `(None, 0)`
for an input that needs no grad. Rebinding a tensor's `grad_fn` later (in-place ops)
therefore never changes an existing graph. Node classes carry PyTorch's names
(`node_class`: one class per name and base) and print as `<MulBackward0 object at
0x...>`. A node's `apply(g)` holds its calculus; running the graph is engine.py's,
grad mode is grad_mode.py's and version counters are versions.py's.
"""

import itertools
import re
import weakref

import numpy as np

from . import hooks
from .dtypes import legacy_type_name
from .meta_arrays import MetaArray, as_meta

__all__ = [
    "Node", "AccumulateGrad", "OutputNode", "OutputGradients", "node_class", "accumulate", "run_hooks", "describe",
    "which_output", "reshaped",
]

_RESHAPED = {}  # id of an array a tensor held before squeeze_, t_, ... -> the tensor (weakly)


def reshaped(tensor, old):
    """Note that `tensor` no longer holds the array `old`, its shape changed in place
    (`describe` then names a saved `old` by the tensor's shape now)."""
    key = id(old)
    _RESHAPED[key] = weakref.ref(tensor)
    weakref.finalize(old, _RESHAPED.pop, key, None)


def describe(array, producer, saved_output=False, dtype=None):
    """`srcgrad.FloatTensor [2, 3]]`, and for the output of a node `srcgrad.FloatTensor
    [3]], which is output 0 of Mul,` (PyTorch's wording: the node's name less its
    `Backward0`; the output's number among the node's outputs). As PyTorch's, the shape
    of a saved input is its tensor's now (`reshaped`), of a saved output the one it was
    saved with. `dtype`: the tensor's, where the node keeps its values cast to another."""
    if _RESHAPED and not saved_output:
        tensor = _RESHAPED.get(id(array), _NONE)()
        if tensor is not None:
            array = tensor._data
    name = legacy_type_name(array.dtype if dtype is None else dtype)
    return f"{name} [{', '.join(map(str, array.shape))}]]" + which_output(producer)


def _NONE():
    return None


def which_output(producer):
    index = 0
    if type(producer) is OutputNode:
        index, producer = producer.index, producer.node
    if producer is not None and type(producer) is not AccumulateGrad:
        name = type(producer).__name__
        # PyTorch's op name: the node's less `Backward0` (a custom Function's less
        # `Backward`), or less `Backward` before another overload number (MaxBackward1: Max1)
        name = _CPP_NAMES.get(name) or re.sub(r"Backward0?$|Backward(?=[1-9][0-9]*$)", "", name)
        return f", which is output {index} of {name},"
    return ""


_METADATA = weakref.WeakKeyDictionary()  # node -> its `metadata` dict, for the few nodes asked

# nodes PyTorch names (`name()`, version errors) by their C++ class (torch::...)
_CPP_NAMES = {"CopySlices": "srcgrad::autograd::CopySlices", "CopyBackwards": "srcgrad::autograd::CopyBackwards",
              "NotImplemented": "srcgrad::autograd::NotImplemented"}


next_creation_order = itertools.count().__next__  # PyTorch's sequence numbers: one per node made
LAST_CREATION_ORDER = 2**64 - 1  # an AccumulateGrad's (PyTorch's UINT64_MAX): it runs as soon as it is ready


class Node:
    """Base of every graph node. Subclasses are named like PyTorch's (`MulBackward0`).

    `creation_order` is PyTorch's sequence number: nodes are numbered as they are made, and
    of the nodes ready to run, a backward pass runs the one made last (engine.run_order);
    every place that makes a node sets it."""

    __slots__ = ("next_functions", "_hooks", "creation_order", "__weakref__")
    freed = False
    versions = ()  # records of saved tensors (saved_version); a subclass that saves has a slot
    raises = False  # a node whose backward always raises (PyTorch reaches it before later nodes' saved tensors)
    prepares = False  # a node with a `prepare()` that a pass calls before it changes anything (it may raise)

    def __init__(self, next_functions):
        self.next_functions = next_functions
        self._hooks = None
        self.creation_order = next_creation_order()

    def name(self):
        name = type(self).__name__
        return _CPP_NAMES.get(name, name)

    def _sequence_nr(self):
        """PyTorch's `Node._sequence_nr()`: the order it was made in (see `creation_order`)."""
        return self.creation_order

    def __repr__(self):
        return "<%s object at %#x>" % (type(self).__name__, id(self))

    __str__ = __repr__

    def __getattr__(self, name):
        """PyTorch's saved-value attributes (`_saved_self`, `_raw_saved_result`, ...), read
        when asked (saved_attributes.py); any other missing name is an AttributeError."""
        if name.startswith(("_saved_", "_raw_saved_")):
            from .saved_attributes import saved_attribute  # noqa: PLC0415 - it imports the engine, which imports this

            return saved_attribute(self, name)
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __dir__(self):
        from .saved_attributes import saved_names  # noqa: PLC0415 - as in __getattr__

        return sorted({*object.__dir__(self), *saved_names(self)})

    def apply(self, g):
        """One gradient per input (an array, or None for inputs that need none)."""
        raise NotImplementedError

    def apply_ones(self, shape, dtype):
        """`apply` for the implicit seed `ones(shape, dtype)` of `backward()`, as (input
        index, gradient or None) pairs in input order; an input left out gets none. A
        node may give a saved gradient itself here (no product with the seed) when that
        gives the same values and dtypes; the caller only reads the arrays (accumulate
        copies)."""
        return enumerate(self.apply(np.ones(shape, dtype=dtype)))

    def release(self):
        """Drop saved values after a pass run without `retain_graph`."""

    def describe_saved(self, which):
        """How `check_versions` names the saved tensor `which` of `versions`: here
        (array, the node that made it), as `saved_versions` records it."""
        return describe(*which)

    def retain(self, tensor):
        """Also store this node's incoming gradient into `tensor.grad` (retain_grad)."""
        if self._hooks is None:
            self._hooks = []
        if not any(h is tensor for h in self._hooks):
            self._hooks.append(tensor)

    def add_hook(self, hook):
        """Run `hook` on this node's incoming gradient (Tensor.register_hook); the handle
        that removes it."""
        if self._hooks is None:
            self._hooks = []
        self._hooks.append(hook)
        return hooks.RemovableHandle(self, hook)

    def register_prehook(self, hook):
        """PyTorch's `Node.register_prehook`: `hook(grad_outputs)` before the node runs
        (after the tensor hooks); a tuple it returns replaces the gradients. The handle
        that removes it."""
        return self.add_hook(hooks.NodeHook(hook, pre=True))

    def register_hook(self, hook):
        """PyTorch's `Node.register_hook`: `hook(grad_inputs, grad_outputs)` after the node
        runs; a tuple it returns replaces the gradients of its inputs. The handle that
        removes it."""
        return self.add_hook(hooks.NodeHook(hook, pre=False))

    @property
    def metadata(self):
        """PyTorch's `Node.metadata`: a dict of the node's own, empty at first."""
        found = _METADATA.get(self)
        if found is None:
            found = _METADATA[self] = {}
        return found


def run_hooks(node, g):
    """The gradient `g` reaching `node` after its tensor hooks (hooks.py), then stored into
    the tensors that retain their grad, which see the hooked gradient whenever they asked
    for it, as in PyTorch; then after the node's pre-hooks (None where they leave it none)."""
    g = hooks.hooked(node._hooks, g)
    for t in node._hooks:
        if isinstance(t, hooks.tensor_class()):
            if t._grad is None:
                accumulate(t, g)
            else:  # out of place, as PyTorch's retain_grad: an earlier `.grad` read stays as it was
                t._grad = hooks.tensor_class()._make(t._grad._data + g)
    return hooks.node_prehooked(node, g)


class AccumulateGrad(Node):
    """The sink of a leaf that requires grad: adds gradients into `variable.grad`.
    `post_hooks`: the leaf's post-accumulate-grad hooks (see PostHookedAccumulateGrad)."""

    __slots__ = ("variable", "post_hooks")

    def __init__(self, variable):
        super().__init__(())
        self.creation_order = LAST_CREATION_ORDER
        self.variable = variable
        self.post_hooks = None

    def name(self):
        return "srcgrad::autograd::AccumulateGrad"  # PyTorch's: its C++ class

    def apply(self, g):
        if self.variable._requires_grad:  # not if requires_grad was switched off since
            accumulate(self.variable, g)
            if self.post_hooks:
                self._run_post_hooks()
        return ()

    def _run_post_hooks(self):
        for hook in list(self.post_hooks):
            hook(self.variable)


class PostHookedAccumulateGrad(AccumulateGrad):
    """The AccumulateGrad of a leaf with post-accumulate-grad hooks
    (`Tensor.register_post_accumulate_grad_hook`), which run with the leaf after each
    accumulation. The engines take a node whose type is AccumulateGrad itself on their
    fast paths; this one they call through `apply` (or `graph_apply`, in a pass with
    create_graph), which runs the hooks. It prints as an AccumulateGrad."""

    __slots__ = ()

    def graph_apply(self, g):
        from .graph_backward import accumulate as accumulate_graph  # noqa: PLC0415 (it imports this module)

        if self.variable._requires_grad:
            accumulate_graph(self.variable, g)
            if self.post_hooks:
                self._run_post_hooks()
        return []


PostHookedAccumulateGrad.__name__ = PostHookedAccumulateGrad.__qualname__ = "AccumulateGrad"


class OutputGradients(tuple):
    """The gradients of the outputs of a node with several outputs, one entry per output
    (None for one that got none). The engine adds the gradients reaching a node with
    `+`; these add entry by entry."""

    __slots__ = ()

    def __add__(self, other):
        return OutputGradients([a if b is None else b if a is None else a + b for a, b in zip(self, other)])


class OutputNode(Node):
    """Output `index` of `node`, a node with `count` outputs: the `_grad_fn` of that
    output's tensor, because an edge names a node, not one of its outputs. It passes
    its gradient on as entry `index` of an OutputGradients, so `node.apply` runs once
    per pass with the gradients of all its outputs. It saves nothing; `Tensor.grad_fn`
    and this node's repr show `node`, as PyTorch shows one node for all outputs."""

    __slots__ = ("node", "index", "count")

    def __init__(self, node, index, count):
        super().__init__(((node, 0),))
        self.node = node
        self.index = index
        self.count = count

    def apply(self, g):
        parts = [None] * self.count
        parts[self.index] = g
        return [OutputGradients(parts)]

    graph_apply = apply  # with create_graph: the Tensor g passed on the same way (a node that cannot take it refuses)

    def name(self):
        return self.node.name()

    def __repr__(self):
        return repr(self.node)

    __str__ = __repr__


def accumulate(tensor, g):
    """Create `tensor.grad` from `g`, or add `g` into it in place (identity is kept).

    A new `.grad` is always a copy: `g` may be an array that a node saved or returned
    for another input too, or an input of the graph itself.
    """
    current = tensor._grad
    if type(tensor._data) is MetaArray:  # a meta leaf's gradient has no values either
        g = as_meta(g)
    if current is None:
        copied = g.astype(tensor._data.dtype) if type(g) is MetaArray else np.array(g, dtype=tensor._data.dtype, copy=True)
        tensor._grad = hooks.tensor_class()._make(copied)  # a Parameter's too
        return
    data = current._data
    counter = current._counter  # an in-place write, if nothing else: bump(current), inlined
    if counter is None:
        current._counter = [1]
    else:
        counter[0] += 1
    if type(g) is _ndarray and g.dtype is data.dtype and g.shape == data.shape:
        _add(data, g, data)
    elif np.shape(g) == data.shape:
        _add(data, g, out=data, casting="unsafe")
    else:
        current._data = data + g


_ndarray = np.ndarray
_add = np.add


_CLASSES = {}


def node_class(name, base):
    """The node class called `name` (one per name and base, so `type(a) is type(b)`)."""
    key = (name, base)
    cls = _CLASSES.get(key)
    if cls is None:
        cls = _CLASSES[key] = type(name, (base,), {"__slots__": ()})
    return cls
