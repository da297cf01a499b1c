"""The backward engine: running a graph's nodes from its roots to its leaves.

The engine holds no calculus: a node's `apply(g)` returns one gradient (a NumPy array
or None) per input. A pass checks every node it will run for released saved values
(error E7, `FREED_MESSAGE`) and for saved values changed in place since they were
saved (versions.py) before it changes anything, so a failed pass leaves every `.grad`
as it was. Gradients reaching a node by several paths are added before it runs;
leaves accumulate into `.grad` through their AccumulateGrad (graph.py).
"""

import warnings

import numpy as np

from .errstate import loud, quiet
from .graph import AccumulateGrad, accumulate, run_hooks
from .saved_hooks import PACKED, unpack_saved
from .versions import check_versions

__all__ = ["FREED_MESSAGE", "run_backward", "run_single", "warn_non_leaf_grad", "pass_order", "topological"]

_ndarray = np.ndarray
_add = np.add

FREED_MESSAGE = (
    "Trying to backward through the graph a second time (or directly access saved tensors "
    "after they have already been freed). Saved intermediate values of the graph are freed "
    "when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to "
    "backward through the graph a second time or if you need to access saved tensors after "
    "calling backward."
)


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
                                counter = current._counter
                                if counter is not None:
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
        if PACKED:
            unpack_saved(node)
        grads_in = node.apply(g)
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
    order = topological(roots)
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
        if type(node) is AccumulateGrad:
            if node.variable._requires_grad:  # not if requires_grad was switched off since
                accumulate(node.variable, g)
            continue
        if PACKED:
            unpack_saved(node)
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
