"""Forward-mode tangents of the Tensor shim (`srcgrad.autograd.forward_ad`'s state).

A dual tensor is a Tensor with an entry in `TANGENTS` (keyed by its id, holding a weak
reference to it and its tangent, an ndarray of its shape). There is at most one dual
level, as in PyTorch; leaving it empties `TANGENTS`. The doorway (ops.py, binary_ops.py) calls `push`
after each op when `TANGENTS` is not empty: the result's tangent is the sum, over the
arguments with a tangent, of the registry rule's forward rule (`Rule.jvp`) for that
argument, so the Tensor classes hold no calculus. An op whose forward derivative the shim
does not have raises `refused(op)`, PyTorch's NotImplementedError, never a tangent of
zero.

Invariants: a tangent has its tensor's shape; an op's result tangent has the result's
dtype (make_dual keeps the dtype it was given, as PyTorch's); a result of an integer or
bool dtype gets no tangent.
"""

import re
import weakref

import numpy as np

from ..rules import is_nondifferentiable, lookup

__all__ = ["TANGENTS", "LEVEL", "tangent_of", "set_tangent", "push", "push_zero", "refused", "refuse_dual",
           "pushed", "op_name", "any_dual", "DUAL_NODES", "refuse_forward_over_reverse", "size_mismatch"]

TANGENTS = {}  # id(tensor) -> (weak reference to it, its tangent array); empty outside a level
LEVEL = [None]  # the dual level now entered (PyTorch's numbering: 0), or None
DUAL_NODES = weakref.WeakSet()  # graph nodes recorded from an op of dual tensors (forward-over-reverse)


def tangent_of(tensor):
    """The tangent array of `tensor` at the current level, None when it has none."""
    entry = TANGENTS.get(id(tensor))
    if entry is None or entry[0]() is not tensor:
        return None
    return entry[1]


def _forget(key):
    def drop(ref):
        entry = TANGENTS.get(key)
        if entry is not None and entry[0] is ref:
            del TANGENTS[key]
    return drop


def set_tangent(tensor, tangent):
    """Give `tensor` the tangent array `tangent` (None: none)."""
    key = id(tensor)
    if tangent is None:
        TANGENTS.pop(key, None)
        return
    TANGENTS[key] = (weakref.ref(tensor, _forget(key)), tangent)


def size_mismatch(shape, tangent_shape):
    """PyTorch's message for a tangent whose shape is not its tensor's."""
    return ("Trying to set a forward gradient that has a different size than that of the original Tensor, this is not "
            f"supported. Tensor is of size {list(shape)} while the given forward gradient is of size "
            f"{list(tangent_shape)}.")


def any_dual(values):
    """Whether one of `values` (Tensors, numbers, sequences of Tensors) has a tangent."""
    for v in values:
        if isinstance(v, (list, tuple)):
            if any_dual(v):
                return True
        elif tangent_of(v) is not None:
            return True
    return False


def op_name(node_name):
    """PyTorch's name of the op whose node is called `node_name` (`LogSoftmaxBackward0` ->
    `log_softmax`)."""
    base = re.sub(r"Backward\d*$", "", node_name)
    return re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", base).lower()


def refused(op):
    """PyTorch's error for forward AD through an op without a forward derivative."""
    return NotImplementedError(f"Trying to use forward AD with {op} that does not support it.")


def refuse_dual(op, *values):
    """Raise `refused(op)` when one of `values` has a tangent (an op of the shim that has
    no forward rule: a custom node, an in-place write)."""
    if TANGENTS and any_dual(values):
        raise refused(op)


def _floating(array):
    return array.dtype.kind in "fc"


def push(out, rule, name, args, arrays, kwargs):
    """Give `out` (the result of `rule.primal(*arrays, **kwargs)` over `args`, the op's
    Tensors and constants) the tangent the rule's forward rules give; nothing when no
    argument has one. `name` is the op's node name (for the error)."""
    ans = out._data
    total = None
    params = rule.params if rule is not None else ()
    for i, a in enumerate(args):
        t = tangent_of(a)
        if t is None:
            continue
        param = params[i] if i < len(params) else None
        if param is not None and param in rule.discrete:
            continue
        if param is None or param not in rule.jvps or rule.signature.parameters[param].kind in _VARIADIC:
            raise refused(op_name(name or (rule.name if rule is not None else "op")))
        if not _floating(ans):
            return
        x = arrays[i]
        if isinstance(x, np.ndarray) and t.dtype != x.dtype:
            t = t.astype(x.dtype)
        part = rule.jvp(param, t, ans, *arrays, **kwargs)
        total = part if total is None else total + part
    if total is not None:
        set_tangent(out, _shaped(total, ans))
        if out._grad_fn is not None:
            DUAL_NODES.add(out._grad_fn)


def pushed(out, primitive, name, args, arrays, kwargs=None):
    """Forward AD: give `out`, the result of `primitive(*arrays, **kwargs)` over `args`
    (Tensors and constants), the tangent its registry rule gives (tangents.py); zero for a
    primitive the registry declares to have none; PyTorch's NotImplementedError for one
    the registry does not know. Returns `out`."""
    if not any_dual(args):
        return out
    rule = lookup(primitive)
    if rule is None:
        if not is_nondifferentiable(primitive):
            raise refused(op_name(name or getattr(primitive, "__name__", "op")))
        push_zero(out, args)
    else:
        push(out, rule, name, args, arrays, kwargs or {})
    return out


def _shaped(total, ans):
    """`total` as an array of `ans`'s shape and dtype (a sum of contributions of arguments
    smaller than the result broadcasts to it)."""
    total = np.asarray(total)
    if total.shape != ans.shape:
        total = np.broadcast_to(total, ans.shape)
    if total.dtype != ans.dtype or not total.flags.writeable:
        total = total.astype(ans.dtype)
    return total


def push_zero(out, inputs):
    """Give `out` a zero tangent when one of `inputs` has a tangent (an op whose derivative
    is zero wherever it has one: floor, sign, a division rounded down)."""
    if any_dual(inputs) and _floating(out._data):
        set_tangent(out, np.zeros(out._data.shape, out._data.dtype))


_VARIADIC = (2, 4)  # inspect.Parameter.VAR_POSITIONAL, VAR_KEYWORD


def refuse_forward_over_reverse(roots):
    """Raise where a backward pass that gives its gradients back (`autograd.grad`, or one
    with create_graph) would run through a node recorded from an op of dual tensors: there
    PyTorch's gradients carry tangents (forward-over-reverse), which the shim's backward,
    running the reverse rules on arrays, cannot give."""
    if not (TANGENTS and DUAL_NODES):
        return
    seen, stack = set(), [r for r in roots if r is not None]
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if node in DUAL_NODES:
            raise NotImplementedError(
                "a gradient through ops of dual tensors (forward-over-reverse) is not supported by the shim's "
                "forward AD: PyTorch gives such a gradient a tangent. Take it outside the dual level, or accumulate "
                "it with .backward() (whose .grad PyTorch gives no tangent either)"
            )
        stack.extend(f for f, _ in getattr(node, "next_functions", ()) if f is not None)
