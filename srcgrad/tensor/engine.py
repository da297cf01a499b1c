"""The backward engine: running a graph's nodes from its roots to its leaves.

The engine holds no calculus: a node's `apply(g)` returns one gradient (a NumPy array
or None) per input. A pass checks every node it will run for released saved values
(error E7, `FREED_MESSAGE`) and for saved values changed in place since they were
saved (versions.py) before it changes anything, so a failed pass leaves every `.grad`
as it was. It runs the nodes in PyTorch's order (`run_order`), so hooks run and
gradients reaching a node by several paths are added (before it runs) in PyTorch's
order; leaves accumulate into `.grad` through their AccumulateGrad (graph.py).
"""

import contextlib
import itertools
import warnings

import numpy as np

from .errstate import loud, quiet
from .grad_mode import anomaly
from .graph import AccumulateGrad, accumulate, run_hooks
from .hooks import node_posthooked
from .saved_hooks import PACKED, unpack_saved
from .versions import check_versions

__all__ = ["FREED_MESSAGE", "run_backward", "run_single", "warn_non_leaf_grad", "pass_order", "run_order", "topological", "check_nan", "passes", "running"]

_ndarray = np.ndarray
_add = np.add

FREED_MESSAGE = (
    "Trying to backward through the graph a second time (or directly access saved tensors "
    "after they have already been freed). Saved intermediate values of the graph are freed "
    "when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to "
    "backward through the graph a second time or if you need to access saved tensors after "
    "calling backward."
)


class _Passes:
    """The backward passes now running, innermost last (a reentrant checkpoint and a
    graph-recording node run passes inside a pass): `running`, for each, its serial
    number (unique among all passes) and the list of the nodes it will run (what `autograd.graph.register_multi_grad_hook` asks, as
    PyTorch's `_will_engine_execute_node`); `capturing`, how many of them capture
    gradients instead of accumulating them (autograd.grad, backward(inputs=...)); a reentrant
    checkpoint, which runs a pass of its own that accumulates, refuses to run inside
    one, as PyTorch's. A pass of one node over leaves (`run_single`) is not counted: it
    runs only where no hook is registered."""

    capturing = 0
    running = []
    serials = itertools.count()


passes = _Passes()


@contextlib.contextmanager
def running(order, capture):
    """A block in which the pass over the nodes `order` runs (counted in `passes`);
    `capture`: whether it captures."""
    passes.running.append((next(passes.serials), order))
    passes.capturing += capture
    try:
        yield
    finally:
        passes.capturing -= capture
        passes.running.pop()


def run_single(node, shape, dtype, retain_graph):
    """`backward()` from `node` with the implicit seed `ones(shape, dtype)`, when `node`
    is the whole graph: every input is a leaf (an AccumulateGrad) or needs no grad, and
    no tensor retains its gradient. Returns False, doing nothing, otherwise.

    It does what `run_backward` does for such a graph, in the same order, without the
    topological sort: the E7 check, the node's gradients, its release, then one
    accumulation per leaf (gradients of a leaf used twice summed first, in input order).
    """
    if node._hooks or anomaly.enabled:
        return False
    edges = node.next_functions
    leaves = []  # the AccumulateGrad of each input that requires grad
    for nxt, _ in edges:
        if nxt is not None:
            if type(nxt) is not AccumulateGrad or nxt._hooks:
                return False
            leaves.append(nxt)
    if node.freed:
        raise RuntimeError(getattr(node, "refusal", FREED_MESSAGE))
    if node.versions:
        check_versions(node)
    token = quiet()
    try:
        if PACKED:
            unpack_saved(node)
        pairs = node.apply_ones(shape, dtype)
        if not retain_graph:
            node.release()
        n = len(leaves)
        if n < 2 or (leaves[0] is not leaves[1] if n == 2 else len(set(leaves)) == n):  # nothing to sum first
            for i, g in pairs:
                nxt = edges[i][0]
                if g is not None and nxt is not None:
                    variable = nxt.variable
                    if variable._requires_grad:
                        current = variable._grad
                        if current is not None and type(g) is _ndarray:  # accumulate's commonest case, inlined
                            data = current._data
                            if g.dtype is data.dtype and g.shape == data.shape:
                                counter = current._counter  # bump(current), inlined
                                if counter is None:
                                    current._counter = [1]
                                else:
                                    counter[0] += 1
                                _add(data, g, data)
                                continue
                        accumulate(variable, g)
            return True
        pending = {}
        for i, g in pairs:
            nxt = edges[i][0]
            if nxt is None or g is None:
                continue
            pending[nxt] = pending[nxt] + g if nxt in pending else g
        for nxt, g in pending.items():
            if nxt.variable._requires_grad:
                accumulate(nxt.variable, g)
    finally:
        loud(token)
    return True


def topological(roots):
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


def run_order(roots):
    """Nodes reachable from `roots`, in the order PyTorch's engine runs them.

    PyTorch counts the edges into each node (an edge named twice counts twice; with several
    roots, each naming counts too), starts from the root, and after running a node takes
    each of its edges in turn, pushing the node it reaches into the ready queue once all
    its edges are taken. The queue hands out the node made last first (the highest
    `creation_order`; an AccumulateGrad's is the highest of all), and it is a binary heap
    (libstdc++'s `std::priority_queue`, ported by `_push` and `_pop`), so that ready
    AccumulateGrads, which tie, come out in the order its heap gives them too. Every node
    before the nodes it feeds into.
    """
    dependencies = {}
    count = dependencies.get
    stack = []
    for root in roots:
        if root not in dependencies:
            dependencies[root] = 0
            stack.append(root)
    push = stack.append
    while stack:
        for nxt, _ in stack.pop().next_functions:
            if nxt is not None:
                n = count(nxt)
                if n is None:
                    dependencies[nxt] = 1
                    push(nxt)
                else:
                    dependencies[nxt] = n + 1
    ready = []
    if len(roots) == 1:
        ready.append(roots[0])
    else:  # PyTorch's GraphRoot, which passes each root its gradient in turn
        for root in roots:
            dependencies[root] += 1
        for root in roots:
            dependencies[root] -= 1
            if not dependencies[root]:
                _push(ready, root)
    order = []
    ran = order.append
    while ready:
        node = ready.pop() if len(ready) == 1 else _pop(ready)
        ran(node)
        for nxt, _ in node.next_functions:
            if nxt is not None:
                left = dependencies[nxt] - 1
                dependencies[nxt] = left
                if not left:
                    if ready:
                        _push(ready, nxt)
                    else:
                        ready.append(nxt)
    return order


def _push(heap, node):
    """std::push_heap of `node` onto `heap` (a max-heap by `creation_order`)."""
    heap.append(node)
    _sift_up(heap, len(heap) - 1, node)


def _sift_up(heap, hole, node):
    """libstdc++'s `__push_heap`: `node` into the empty place `hole` of `heap`, or above
    it, past the parents made before it."""
    key = node.creation_order
    while hole > 0:
        parent = (hole - 1) // 2
        if not heap[parent].creation_order < key:
            break
        heap[hole] = heap[parent]
        hole = parent
    heap[hole] = node


def _pop(heap):
    """The top of `heap`, removed as std::pop_heap then pop_back remove it (libstdc++'s
    `__adjust_heap`: the hole goes down to a leaf, then the last element goes up)."""
    top = heap[0]
    value = heap.pop()
    n = len(heap)
    if not n:
        return top
    hole = child = 0
    while child < (n - 1) // 2:
        child = 2 * (child + 1)
        if heap[child].creation_order < heap[child - 1].creation_order:
            child -= 1
        heap[hole] = heap[child]
        hole = child
    if not n & 1 and child == (n - 2) // 2:
        child = 2 * (child + 1)
        heap[hole] = heap[child - 1]
        hole = child - 1
    _sift_up(heap, hole, value)
    return top


def needed(order, targets):
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
    order, wanted, need = pass_order(roots, capture)
    pending = {}
    for root, g in zip(roots, grads):
        pending[root] = g if root not in pending else pending[root] + g
    with running(order, capture is not None):
        if capture is None:
            _run(order, pending, retain_graph)
            return None
        return _run_capturing(order, pending, retain_graph, capture, wanted, need)


def _run_capturing(order, pending, retain_graph, capture, wanted, need):
    """The pass of `run_backward` with `capture`: the captured gradients."""
    captured = {}
    for node in order:
        g = pending.pop(node, None)
        if g is None:
            continue
        if node._hooks:
            g = run_hooks(node, g)
            if g is None:
                continue
        if node in wanted:
            captured[node] = g
            if not any(n is not None and n in need for n, _ in node.next_functions):
                continue
        if PACKED:
            unpack_saved(node)
        grads_in = node.apply(g)
        if node._hooks:
            grads_in = node_posthooked(node, grads_in, g)
        if anomaly.enabled and anomaly.check_nan:
            check_nan(node, grads_in)
        for (nxt, _), gi in zip(node.next_functions, grads_in):
            if nxt is None or gi is None or nxt not in need:
                continue
            pending[nxt] = gi if nxt not in pending else pending[nxt] + gi
        if not retain_graph:
            node.release()
    return [captured.get(n) for n in capture]


def pass_order(roots, capture):
    """(order, wanted, need) of a pass from `roots`: the nodes it runs, in order (with
    `capture`, only those from which a captured node is reached: `need`, and `wanted`
    the captured ones; else both None), after `check_order`."""
    order = run_order(roots)
    wanted = need = None
    if capture is not None:
        wanted = set(capture)
        need = needed(order, wanted)
        order = [n for n in order if n in need]
    check_order(order)
    return order, wanted, need


def check_order(order):
    """Before a pass over `order` changes anything: E7 for a node whose saved values were
    released, the version error for one whose saved values were changed in place, and a
    node's own refusal (`prepare`). A node whose backward raises anyway raises first
    where PyTorch runs it before it reads what later nodes saved."""
    raising = None
    for node in order:
        if node.freed:  # a views.BrokenView says why
            raise RuntimeError(getattr(node, "refusal", FREED_MESSAGE))
        if node.versions:
            if raising is not None:
                try:
                    check_versions(node)
                except RuntimeError:
                    raising.apply(None)
                    raise
            else:
                check_versions(node)
        if node.raises and raising is None:
            raising = node
        if node.prepares:
            node.prepare()


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
            if g is None:
                continue
        if type(node) is AccumulateGrad:
            if node.variable._requires_grad:  # not if requires_grad was switched off since
                accumulate(node.variable, g)
            if node._hooks:
                node_posthooked(node, (), g)
            continue
        if PACKED:
            unpack_saved(node)
        grads_in = node.apply(g)
        if node._hooks:
            grads_in = node_posthooked(node, grads_in, g)
        if anomaly.enabled and anomaly.check_nan:
            check_nan(node, grads_in)
        for (nxt, _), gi in zip(node.next_functions, grads_in):
            if nxt is None or gi is None:
                continue
            if nxt in pending:
                pending[nxt] = pending[nxt] + gi
            else:
                pending[nxt] = gi
        if not retain_graph:
            node.release()


def check_nan(node, grads_in):
    """Anomaly detection's check (grad_mode.anomaly): PyTorch's RuntimeError where a
    gradient `node` gives its inputs holds a nan."""
    for i, gi in enumerate(grads_in):
        if gi is not None:
            data = getattr(gi, "_data", gi)  # a Tensor in a pass that records a graph
            if np.isnan(data).any():
                raise RuntimeError(f"Function '{node.name()}' returned nan values in its {i}th output.")


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
