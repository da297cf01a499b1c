"""Joining tensors: `cat` (also `concat`, `concatenate`) and `stack`.

Their primitives, np.concatenate and np.stack, take ONE argument that is a sequence of
arrays, and their registry rule returns one gradient per element (rules/structure.py).
A `JoinNode` records such a call with one edge per tensor. It saves no values, only the
arrays' shapes and dtypes (the rules read nothing else), so, as PyTorch's CatBackward0 and
StackBackward0, it can run backward again. Checks and messages are PyTorch's; dtypes
promote as in PyTorch.
"""

import numpy as np

from . import dtypes, ops
from .dtypes import Size, dim_axis
from .grad_mode import _mode
from .graph import node_class
from .meta_arrays import MetaArray, check_devices
from .rule_nodes import RuleNode, rule_of
from .tangents import DUAL_NODES, TANGENTS, any_dual, set_tangent, tangent_of

__all__ = ["cat", "concat", "concatenate", "stack"]


class JoinNode(RuleNode):
    """A RuleNode over `primitive(arrays, **kwargs)`: `args` holds the (promoted) arrays,
    one per edge, and the rule's one gradient per array is cast to each input's dtype."""

    __slots__ = ()

    def apply(self, g):
        grads = self.rule.vjp(0, g, self.ans, list(self.args), **self.kwargs)
        return [
            None if nxt is None else np.asarray(gi).astype(dt, copy=False)
            for (nxt, _), gi, dt in zip(self.next_functions, grads, self.dtypes)
        ]


def _tensors(name, tensors):
    """The tensors of the sequence `tensors`, with PyTorch's TypeErrors."""
    if not isinstance(tensors, (list, tuple)):
        raise TypeError(
            f"{name}(): argument 'tensors' (position 1) must be tuple of Tensors, not {type(tensors).__name__}"
        )
    for i, t in enumerate(tensors):
        if not isinstance(t, ops.Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument 0, but got {type(t).__name__}")
    return list(tensors)


def _join(primitive, name, tensors, axis):
    """`primitive(arrays, axis=axis)` over the tensors' arrays in their promoted dtype,
    as one node called `name` when grad mode is on and some tensor requires grad."""
    dt = dtypes.result_type(*(t._data for t in tensors))
    arrays = [t._data if t._data.dtype == dt else t._data.astype(dt) for t in tensors]
    ans = primitive(arrays, axis=axis)
    if not (_mode.enabled and any(t._requires_grad for t in tensors)):
        out = ops.Tensor._make(ans)
    else:
        rule, cls = rule_of(primitive), node_class(name, JoinNode)
        edges = tuple((ops._edge(t), 0) if t._requires_grad else (None, 0) for t in tensors)
        in_dtypes = [t._data.dtype for t in tensors]
        out = ops.Tensor._make(ans, True)
        out._grad_fn = cls(edges, rule, tuple(arrays), {"axis": axis}, ans, in_dtypes, False, ())
    if TANGENTS and any_dual(tensors):
        _push_joined(out, primitive, tensors, arrays, axis)
    return out


def _push_joined(out, primitive, tensors, arrays, axis):
    """Forward AD: the joined tangents (the rule's forward rule takes one tangent per
    array, None for an array without one)."""
    tangents = [tangent_of(t) for t in tensors]
    tangents = [None if t is None else t.astype(a.dtype, copy=False) for t, a in zip(tangents, arrays)]
    if out._data.dtype.kind in "fc":
        set_tangent(out, np.asarray(rule_of(primitive).jvp(0, tangents, out._data, arrays, axis=axis)))
        if out._grad_fn is not None:
            DUAL_NODES.add(out._grad_fn)


def cat(tensors, dim=0):
    """The tensors joined along the existing dim `dim` (CatBackward0). As in PyTorch, 1-D
    empty tensors are skipped (they get no gradient), unless all are."""
    tensors = _tensors("cat", tensors)
    if not tensors:
        raise ValueError("torch.cat(): expected a non-empty list of Tensors")
    if any(type(t._data) is MetaArray for t in tensors):
        return _meta_cat(tensors, dim)
    for i, t in enumerate(tensors):
        if t._data.ndim == 0:
            raise RuntimeError(f"zero-dimensional tensor (at position {i}) cannot be concatenated")
    joined = [t for t in tensors if t._data.shape != (0,)] or tensors
    first = joined[0]._data
    axis = dim_axis(dim, first.ndim) % first.ndim
    for i, t in enumerate(joined):
        shape = t._data.shape
        if len(shape) != first.ndim:
            raise RuntimeError(f"Tensors must have same number of dimensions: got {first.ndim} and {len(shape)}")
        for d, (want, got) in enumerate(zip(first.shape, shape)):
            if d != axis and want != got:
                raise RuntimeError(
                    f"Sizes of tensors must match except in dimension {axis}. Expected size {want} but got "
                    f"size {got} for tensor number {i} in the list."
                )
    return _join(np.concatenate, "CatBackward0", joined, axis)


concat = concatenate = cat


def _meta_cat(tensors, dim):
    """`cat` with a meta tensor among `tensors`: PyTorch's meta kernel's checks, in its
    order (devices first, 0-d tensors, numbers of dims, then sizes, each tensor numbered
    among those not skipped), and its messages, which differ from the CPU kernel's."""
    check_devices(tensors, cpu_scalars=False)
    joined = [t for t in tensors if t._data.shape != (0,)] or tensors
    first = joined[0]._data
    if first.ndim == 0 and all(t._data.ndim == 0 for t in tensors):
        raise RuntimeError("zero-dimensional tensor (at position 0) cannot be concatenated")
    zero_dim_first = [(i, t) for i, t in enumerate(tensors) if t._data.ndim == 0] if first.ndim else []
    for i, t in zero_dim_first + [(i, t) for i, t in enumerate(tensors) if t._data.shape != (0,)]:
        if t._data.ndim != first.ndim:
            raise RuntimeError(f"Number of dimensions of tensors must match.  Expected {first.ndim}-D tensors, but got "
                               f"{t._data.ndim}-D for tensor number {i} in the list")
    axis = dim_axis(dim, first.ndim) % first.ndim
    for i, t in enumerate(joined):
        for d, (want, got) in enumerate(zip(first.shape, t._data.shape)):
            if d != axis and want != got:
                raise RuntimeError(f"Sizes of tensors must match except in dimension {axis}. Expected {want} in "
                                   f"dimension {d} but got {got} for tensor number {i} in the list")
    return _join(np.concatenate, "CatBackward0", joined, axis)


def stack(tensors, dim=0):
    """The tensors, all of one shape, joined along a new dim `dim` (StackBackward0)."""
    tensors = _tensors("stack", tensors)
    if not tensors:
        raise RuntimeError("stack expects a non-empty TensorList")
    first = tensors[0]._data
    axis = dim_axis(dim, first.ndim + 1) % (first.ndim + 1)
    meta = any(type(t._data) is MetaArray for t in tensors)
    if meta:
        check_devices(tensors, cpu_scalars=False)
    for i, t in enumerate(tensors):
        if t._data.shape != first.shape and meta:  # the meta kernel's message, cut short as PyTorch's
            raise RuntimeError(f"stack expects each tensor to be equal size, but got {Size(first.shape)!r} at entry 0 ")
        if t._data.shape != first.shape:
            raise RuntimeError(
                f"stack expects each tensor to be equal size, but got {list(first.shape)} at entry 0 and "
                f"{list(t._data.shape)} at entry {i}"
            )
    return _join(np.stack, "StackBackward0", tensors, axis)
