"""Saved-tensor hooks (`srcgrad.autograd.graph.saved_tensors_hooks`): what a rule node
keeps for backward goes through the user's pack hook when the node is recorded, and
comes back through the unpack hook when backward runs the node.

The tensors a node saves are those whose versions it records (`node.versions`, whose
third entries say which: an index into the node's arguments, or -1 for its output;
versions.py, saving.py). With hooks entered, `pack_saved` calls the innermost pack hook on
each of them, in that order, keeps what it returns (`PACKED`), and leaves in the node, in
place of the array, a zero-strided stand-in of its shape and dtype (so an error message
still describes it). Before the engine runs such a node, `unpack_saved` calls the unpack
hook on each packed value and puts the arrays of the tensors it returns back into the
node; after a backward that releases the node, the packed values are dropped with it.
Invariant: a node whose values were packed computes its gradient from unpacked values
only.
"""

import weakref

import numpy as np

__all__ = ["HOOKS", "PACKED", "pack_saved", "unpack_saved", "pack_tensor", "unpack_tensor"]

HOOKS = []  # (pack, unpack) pairs entered, innermost last
_STAND_INS = {}  # id(copy) -> (weak reference to the copy, the caller's tensor): ops.composite's inner copies
PACKED = weakref.WeakKeyDictionary()  # node -> [(which, packed value, dtype, unpack hook)]


def stand_in_for(copy, tensor):
    """Note that the Tensor `copy` (a composite op's inner copy of an argument) stands for
    the caller's `tensor`: a node of the inner graph that saves `copy` packs `tensor`."""
    key = id(copy)
    _STAND_INS[key] = (weakref.ref(copy, lambda ref: _STAND_INS.pop(key, None)), tensor)


def pack_tensor(tensor):
    """(packed value, the unpack hook to undo it) of `tensor` (or of the caller's tensor it
    stands for) under the innermost hooks."""
    entry = _STAND_INS.get(id(tensor))
    if entry is not None and entry[0]() is tensor:
        tensor = entry[1]
    pack, unpack = HOOKS[-1]
    return pack(tensor), unpack


def unpack_tensor(packed, unpack):
    """The tensor the unpack hook gives back for `packed` (PyTorch's TypeError otherwise)."""
    from .tensor import Tensor  # noqa: PLC0415 - tensor.py imports the doorway, which imports this

    value = unpack(packed)
    if not isinstance(value, Tensor):
        raise TypeError(
            f"Output of saved tensor unpack_hook expected to be a Tensor but got result of type {type(value).__name__}"
        )
    return value


def pack_saved(node, args, out):
    """Pack what `node` (a RuleNode, just recorded over the Tensors and numbers `args`,
    its output `out`) saves; its arrays give way to stand-ins."""
    entries = []
    values = list(node.args)
    for which in node.versions[2::3]:
        tensor = out if which == -1 else args[which]
        array = node.ans if which == -1 else values[which]
        packed, unpack = pack_tensor(tensor)
        entries.append((which, packed, array.dtype, unpack))
        stand_in = np.broadcast_to(np.zeros((), array.dtype), array.shape)
        if which == -1:
            node.ans = stand_in
        else:
            values[which] = stand_in
    node.args = tuple(values)
    if entries:
        PACKED[node] = entries


def unpack_saved(node):
    """Before `node` runs backward: the unpacked arrays back in place of the stand-ins (the
    unpack hook runs at every backward through the node, as PyTorch's does)."""
    node = getattr(node, "inner", node)  # an ArgEdgesNode runs its RuleNode's backward
    entries = PACKED.get(node)
    if entries is None:
        return
    values = list(node.args)
    for which, packed, dtype, unpack in entries:
        array = unpack_tensor(packed, unpack)._data
        if array.dtype != dtype:
            array = array.astype(dtype)
        if which == -1:
            node.ans = array
        else:
            values[which] = array
    node.args = tuple(values)


def drop_packed(node):
    """Forget what `node` packed (its backward released it)."""
    PACKED.pop(node, None)
