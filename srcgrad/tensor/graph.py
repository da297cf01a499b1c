"""The eager autograd graph: grad mode, graph nodes and the backward engine.

A node is the `grad_fn` of the tensor it produced. Its `next_functions` are fixed
when it is made: one `(node or None, 0)` pair per input, pointing at the input's
`grad_fn`, or at the `AccumulateGrad` of a leaf that requires grad. Rebinding a
tensor's `grad_fn` later (in-place ops) therefore never changes an existing graph.

The engine holds no calculus: a node's `apply(g)` returns one gradient (a NumPy
array or None) per input. A backward pass checks every node it will run for
released saved values (error E7) and for saved values changed in place since they
were saved (version counters, below) before it changes anything, so a failed pass
leaves every `.grad` as it was.

Version counters, as in PyTorch: a tensor's `_counter` is None until something needs
it, then a one-element list shared with its views and `detach()`ed aliases (not with
`.data`). Every in-place write into a tensor that has one adds 1. A node that keeps
a tensor's array records `counter, count, which` in its `versions` when it is made
(`saved_version`; a flat tuple, three items per saved tensor, which is the cheapest
to build); backward refuses to run it once a count has moved.
"""

import functools
import re
import threading
import warnings

import numpy as np

from . import hooks
from .dtypes import legacy_type_name

__all__ = [
    "Node",
    "AccumulateGrad",
    "OutputNode",
    "OutputGradients",
    "node_class",
    "run_backward",
    "run_single",
    "quiet",
    "loud",
    "is_grad_enabled",
    "set_grad_enabled",
    "no_grad",
    "enable_grad",
    "FREED_MESSAGE",
    "counter_of",
    "saved_version",
    "saved_versions",
    "bump",
    "check_versions",
]

FREED_MESSAGE = (
    "Trying to backward through the graph a second time (or directly access saved tensors "
    "after they have already been freed). Saved intermediate values of the graph are freed "
    "when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to "
    "backward through the graph a second time or if you need to access saved tensors after "
    "calling backward."
)


def _ignoring_errors():
    """(enter, leave): silence NumPy's floating-point warnings around a call, as
    `np.errstate(all="ignore")` does; `leave(enter())` restores the previous state."""
    try:
        from numpy._core._ufunc_config import _extobj_contextvar, _make_extobj

        return functools.partial(_extobj_contextvar.set, _make_extobj(all="ignore")), _extobj_contextvar.reset
    except (ImportError, AttributeError, TypeError):  # another NumPy: the public spelling

        def enter():
            ctx = np.errstate(all="ignore")
            ctx.__enter__()
            return ctx

        return enter, lambda ctx: ctx.__exit__(None, None, None)


quiet, loud = _ignoring_errors()


# --- grad mode -------------------------------------------------------------------------


class _GradMode(threading.local):
    enabled = True


_mode = _GradMode()


def is_grad_enabled():
    """True unless inside `no_grad()` (or `set_grad_enabled(False)`)."""
    return _mode.enabled


_new_object = object.__new__


class _ModeContext:
    """A context manager that sets grad mode and restores the previous one on exit;
    an instance also works as a decorator.

    `_previous` is a stack of the modes to restore, as nested pairs `(mode, rest)` (one
    instance may be entered again while active); the class's None is the empty stack,
    so making an instance costs no `__init__`.
    """

    _target = True
    _previous = None

    def __new__(cls, *args, **kwargs):
        made = _new_object(cls)
        if args and len(args) == 1 and not kwargs and callable(args[0]):  # a bare decorator: `@no_grad`
            made.__init__()
            return made(args[0])
        return made

    def __enter__(self):
        mode = _mode
        self._previous = (mode.enabled, self._previous)
        mode.enabled = self._target
        return self

    def __exit__(self, exc_type, exc, tb):
        _mode.enabled, self._previous = self._previous
        return False

    def __call__(self, fn):
        @functools.wraps(fn)
        def run(*args, **kwargs):
            with type(self)():
                return fn(*args, **kwargs)

        return run


class no_grad(_ModeContext):
    """Inside the block no operation is recorded; leaves keep their flags."""

    _target = False


class enable_grad(_ModeContext):
    """Turn recording back on inside a `no_grad` block."""

    _target = True


class inference_mode(_ModeContext):
    """PyTorch's inference mode, which here is `no_grad` (no graph is recorded);
    `inference_mode(False)` turns recording on, as PyTorch's does."""

    def __init__(self, mode=True):
        self._target = not mode

    def __call__(self, fn):
        target = self._target

        @functools.wraps(fn)
        def run(*args, **kwargs):
            with inference_mode(not target):
                return fn(*args, **kwargs)

        return run


class set_grad_enabled(_ModeContext):
    """Set grad mode now (as a call) or for a block (as a context manager)."""

    def __init__(self, mode):
        self._target = bool(mode)
        self._previous = (_mode.enabled, None)
        _mode.enabled = self._target

    def __enter__(self):
        return self

    def __call__(self, fn):
        _mode.enabled = self._previous[0]
        mode = self._target

        @functools.wraps(fn)
        def run(*args, **kwargs):
            with set_grad_enabled(mode):
                return fn(*args, **kwargs)

        return run


# --- version counters ------------------------------------------------------------------


def counter_of(tensor):
    """The version counter of `tensor`, made on first need (see the module docstring)."""
    counter = tensor._counter
    if counter is None:
        counter = tensor._counter = [0]
    return counter


def view_counter(tensor):
    """The version counter of `tensor`, to be shared with a view of it: marked (its second
    item True) as shared with a view, which a recorded in-place write refuses (`inplace.py`)."""
    counter = counter_of(tensor)
    if len(counter) == 1:
        counter.append(True)
    else:
        counter[1] = True
    return counter


def shared_with_a_view(counter):
    return counter is not None and len(counter) > 1 and counter[1]


def rebased(tensor, producer):
    """Note on `tensor`'s counter that a recorded in-place write made `producer` its node:
    PyTorch names that node, not the one that made the saved values, in its version error."""
    counter = counter_of(tensor)
    if len(counter) < 3:
        counter.extend([False] * (2 - len(counter)) + [producer])
    else:
        counter[2] = producer


def saved_version(tensor, which):
    """The record a node keeps of saving `tensor` (three items of its `versions`):
    `which` tells `check_versions` how to describe it (`node.describe_saved(which)`)."""
    counter = counter_of(tensor)
    return (counter, counter[0], which)


def saved_versions(tensors):
    """The records of saving `tensors`, each described by its array and the node that
    made it (what `Node.describe_saved` reads)."""
    versions = ()
    for t in tensors:
        versions += saved_version(t, (t._data, t._grad_fn))
    return versions


def bump(tensor):
    """Count an in-place write into `tensor` (nothing to count before a counter exists:
    no node has saved it then)."""
    counter = tensor._counter
    if counter is not None:
        counter[0] += 1


def check_versions(node):
    """Raise PyTorch's error when a value `node` saved was changed in place since."""
    versions = node.versions
    i = 0
    while i < len(versions):
        counter, count = versions[i], versions[i + 1]
        if counter[0] != count:
            which = versions[i + 2]
            text = node.describe_saved(which)
            if len(counter) > 2 and not (type(which) is int and which == -1):
                # a saved input is now the output of its in-place write's node (a saved
                # output is still named after the node that made it, as in PyTorch)
                text = text[: text.index("]]") + 2] + _which_output(counter[2])
            raise RuntimeError(
                "one of the variables needed for gradient computation has been modified by an "
                f"inplace operation: [{text} is at version {counter[0]}; "
                f"expected version {count} instead. Hint: enable anomaly detection to find the "
                "operation that failed to compute its gradient, with "
                "srcgrad.autograd.set_detect_anomaly(True, check_nan=False)."
            )
        i += 3


def describe(array, producer):
    """`srcgrad.FloatTensor [2, 3]]`, and for the output of a node `srcgrad.FloatTensor
    [3]], which is output 0 of Mul,` (PyTorch's wording: the node's name less its
    `Backward0`; the output's number among the node's outputs)."""
    return f"{legacy_type_name(array.dtype)} [{', '.join(map(str, array.shape))}]]" + _which_output(producer)


def _which_output(producer):
    index = 0
    if type(producer) is OutputNode:
        index, producer = producer.index, producer.node
    if producer is not None and type(producer) is not AccumulateGrad:
        name = type(producer).__name__
        name = _CPP_NAMES.get(name) or re.sub(r"Backward[0-9]*$", "", name)
        return f", which is output {index} of {name},"
    return ""


_CPP_NAMES = {"CopySlices": "srcgrad::autograd::CopySlices"}  # nodes PyTorch names by their C++ class (torch::...)


# --- nodes -----------------------------------------------------------------------------


class Node:
    """Base of every graph node. Subclasses are named like PyTorch's (`MulBackward0`)."""

    __slots__ = ("next_functions", "_hooks", "__weakref__")
    freed = False
    versions = ()  # records of saved tensors (saved_version); a subclass that saves has a slot

    def __init__(self, next_functions):
        self.next_functions = next_functions
        self._hooks = None

    def name(self):
        return type(self).__name__

    def __repr__(self):
        return "<%s object at %#x>" % (type(self).__name__, id(self))

    __str__ = __repr__

    def apply(self, g):
        """One gradient per input (an array, or None for inputs that need none)."""
        raise NotImplementedError

    def apply_ones(self, shape, dtype):
        """`apply` for the implicit seed `ones(shape, dtype)` of `backward()`. A node may
        return a saved gradient itself here (no product with the seed) when that gives the
        same values and dtypes; the caller only reads the arrays (accumulate copies)."""
        return self.apply(np.ones(shape, dtype=dtype))

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


def run_hooks(node, g):
    """The gradient `g` reaching `node` after its hooks (hooks.py), then stored into the
    tensors that retain their grad, which see the hooked gradient whenever they asked
    for it, as in PyTorch."""
    g = hooks.hooked(node._hooks, g)
    for t in node._hooks:
        if isinstance(t, hooks.tensor_class()):
            accumulate(t, g)
    return g


class AccumulateGrad(Node):
    """The sink of a leaf that requires grad: adds gradients into `variable.grad`."""

    __slots__ = ("variable",)

    def __init__(self, variable):
        super().__init__(())
        self.variable = variable

    def apply(self, g):
        if self.variable._requires_grad:  # not if requires_grad was switched off since
            accumulate(self.variable, g)
        return ()


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
    if current is None:
        tensor._grad = hooks.tensor_class()._make(np.array(g, dtype=tensor._data.dtype, copy=True))  # a Parameter's too
        return
    data = current._data
    counter = current._counter  # an in-place write, if nothing else: bump(current), inlined
    if counter is not None:
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


# --- the engine ------------------------------------------------------------------------


def run_single(node, shape, dtype, retain_graph):
    """`backward()` from `node` with the implicit seed `ones(shape, dtype)`, when `node`
    is the whole graph: every input is a leaf (an AccumulateGrad) or needs no grad, and
    no tensor retains its gradient. Returns False, doing nothing, otherwise.

    It does what `run_backward` does for such a graph, in the same order, without the
    topological sort: the E7 check, the node's gradients, its release, then one
    accumulation per leaf (gradients of a leaf used twice summed first, in input order).
    """
    if node._hooks:
        return False
    edges = node.next_functions
    for nxt, _ in edges:
        if nxt is not None and (type(nxt) is not AccumulateGrad or nxt._hooks):
            return False
    if node.freed:
        raise RuntimeError(FREED_MESSAGE)
    if node.versions:
        check_versions(node)
    token = quiet()
    try:
        grads = node.apply_ones(shape, dtype)
        if not retain_graph:
            node.release()
        if len(edges) == 1:
            (nxt, _), = edges
            g = grads[0]
            if nxt is not None and g is not None and nxt.variable._requires_grad:
                accumulate(nxt.variable, g)
            return True
        pending = {}
        for (nxt, _), g in zip(edges, grads):
            if nxt is None or g is None:
                continue
            pending[nxt] = pending[nxt] + g if nxt in pending else g
        for nxt, g in pending.items():
            if nxt.variable._requires_grad:
                accumulate(nxt.variable, g)
    finally:
        loud(token)
    return True


def _topological(roots):
    """Nodes reachable from `roots`, every node before the nodes it feeds into.

    (Nodes hash by identity.) The order is the reverse of a depth-first postorder that
    follows `next_functions` from each root in turn.
    """
    seen = set()
    order = []
    add, push = seen.add, order.append
    for root in roots:
        if root in seen:
            continue
        add(root)
        stack = [(root, iter(root.next_functions))]
        while stack:
            node, edges = stack[-1]
            for nxt, _ in edges:
                if nxt is not None and nxt not in seen:
                    add(nxt)
                    stack.append((nxt, iter(nxt.next_functions)))
                    break
            else:
                stack.pop()
                push(node)
    order.reverse()
    return order


def _needed(order, targets):
    """The nodes of `order` from which some node in `targets` can be reached."""
    need = set(targets)
    for node in reversed(order):
        if node in need or any(n is not None and n in need for n, _ in node.next_functions):
            need.add(node)
    return need


def run_backward(roots, grads, retain_graph=False, capture=None):
    """Propagate `grads` (arrays) from the nodes `roots` back through the graph.

    Without `capture`, gradients accumulate into the `.grad` of leaves. With
    `capture` (a list of nodes), only the nodes leading to them run, nothing is
    accumulated, and the gradient reaching each captured node is returned (None
    for a node not reached).
    """
    order = _topological(roots)
    if capture is not None:
        wanted = set(capture)
        need = _needed(order, wanted)
        order = [n for n in order if n in need]
    for node in order:
        if node.freed:
            raise RuntimeError(FREED_MESSAGE)
        if node.versions:
            check_versions(node)
    pending = {}
    for root, g in zip(roots, grads):
        pending[root] = g if root not in pending else pending[root] + g
    if capture is None:
        _run(order, pending, retain_graph)
        return None
    captured = {}
    for node in order:
        g = pending.pop(node, None)
        if g is None:
            continue
        if node._hooks:
            g = run_hooks(node, g)
        if node in wanted:
            captured[node] = g
            if not any(n is not None and n in need for n, _ in node.next_functions):
                continue
        grads_in = node.apply(g)
        for (nxt, _), gi in zip(node.next_functions, grads_in):
            if nxt is None or gi is None or nxt not in need:
                continue
            pending[nxt] = gi if nxt not in pending else pending[nxt] + gi
        if not retain_graph:
            node.release()
    return [captured.get(n) for n in capture]


def _run(order, pending, retain_graph):
    """The pass of `run_backward` without capture: every node of `order` that gradient
    reaches runs, in order, and leaves accumulate."""
    pop = pending.pop
    for node in order:
        g = pop(node, None)
        if g is None:
            continue
        if node._hooks:
            g = run_hooks(node, g)
        if type(node) is AccumulateGrad:
            if node.variable._requires_grad:  # not if requires_grad was switched off since
                accumulate(node.variable, g)
            continue
        grads_in = node.apply(g)
        for (nxt, _), gi in zip(node.next_functions, grads_in):
            if nxt is None or gi is None:
                continue
            if nxt in pending:
                pending[nxt] = pending[nxt] + gi
            else:
                pending[nxt] = gi
        if not retain_graph:
            node.release()


def warn_non_leaf_grad():
    warnings.warn(
        "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its "
        ".grad attribute won't be populated during autograd.backward(). If you indeed want "
        "the .grad field to be populated for a non-leaf Tensor, use .retain_grad() on the "
        "non-leaf Tensor. If you access the non-leaf Tensor by mistake, make sure you access "
        "the leaf Tensor instead. See github.com/pytorch/pytorch/pull/30531 for more "
        "information.",
        UserWarning,
        stacklevel=3,
    )
