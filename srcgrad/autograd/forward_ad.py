"""`srcgrad.autograd.forward_ad`, as `torch.autograd.forward_ad`: forward-mode AD in the
Tensor shim. Inside `dual_level()`, `make_dual(primal, tangent)` gives a view of `primal`
that carries `tangent`; each op of the shim then pushes tangents through its registry
rule's forward rule (tensor/tangents.py), a custom Function through its `jvp`
(function_forward.py), and `unpack_dual(t)` reads them back (the tangent Tensor given
to make_dual itself, as PyTorch's).

As in PyTorch: one level at a time (a nested one is refused), numbered 0; leaving it drops
every tangent; an op without a forward derivative raises NotImplementedError naming it.
Unlike PyTorch: a tangent is a plain array, so it records no graph of its own
(reverse-over-forward is not available); in-place writes of dual tensors into views, or
into tensors that have views, are refused (tensor/dual_writes.py), and so is
`autograd.grad` (or backward with create_graph) through ops of dual tensors, whose
gradient PyTorch gives a tangent (forward-over-reverse).
"""

import weakref
from collections import namedtuple

import numpy as np

from ..tensor import dual_writes
from ..tensor.tangents import DUAL_NODES, LEVEL, TANGENTS, set_tangent, size_mismatch, tangent_of
from ..tensor.tensor import Tensor

__all__ = ["dual_level", "enter_dual_level", "exit_dual_level", "make_dual", "unpack_dual", "UnpackedDualTensor"]

_TANGENT_TENSORS = {}  # id(tangent array) -> weak reference to the Tensor unpack_dual hands out for it
UnpackedDualTensor = namedtuple("UnpackedDualTensor", ["primal", "tangent"])
UnpackedDualTensor.__doc__ = "What `unpack_dual` returns: the primal (a view) and its tangent (None: none)."


def enter_dual_level():
    """Enter a new forward-grad level (0); PyTorch's RuntimeError when one is entered."""
    if LEVEL[0] is not None:
        raise RuntimeError("Nested forward mode AD is not supported at the moment")
    LEVEL[0] = 0
    dual_writes.install(Tensor)
    return 0


def exit_dual_level(*, level=None):
    """Leave the level (the current one when `level` is None); every tangent is dropped."""
    current = -1 if LEVEL[0] is None else LEVEL[0]
    if level is None:
        level = current
    if level != current:
        raise RuntimeError(
            "Trying to exit a forward AD level that was not the last one that was created. This is not supported."
        )
    if level < 0:
        raise RuntimeError("Dual level must be a positive number.")
    LEVEL[0] = None
    TANGENTS.clear()
    _TANGENT_TENSORS.clear()
    DUAL_NODES.clear()
    dual_writes.uninstall(Tensor)


class dual_level:
    """Context manager: `enter_dual_level` on entry, `exit_dual_level` on exit."""

    def __enter__(self):
        return enter_dual_level()

    def __exit__(self, *exc):
        exit_dual_level()
        return False


def _checked_level(level, op):
    if LEVEL[0] is None and level is None:
        return None
    if level is not None and level != LEVEL[0]:
        raise RuntimeError(f"Invalid level given to {op}")
    return LEVEL[0]


def _floating(value, role):
    if not isinstance(value, Tensor):
        raise AttributeError(f"'{type(value).__name__}' object has no attribute 'is_floating_point'")
    if value._data.dtype.kind not in "fc":
        raise ValueError(f"Expected {role} to be floating point or complex, but got: {value.dtype}")


def make_dual(tensor, tangent, *, level=None):
    """A view of `tensor` whose tangent is `tangent` (same shape; its dtype kept, as
    PyTorch keeps it; its memory shared)."""
    _floating(tensor, "primal")
    _floating(tangent, "tangent")
    if _checked_level(level, "_make_dual") is None:
        raise RuntimeError(
            "Trying to create a dual Tensor for forward AD but no level exists, make sure to enter_dual_level() first."
        )
    if tangent._data.shape != tensor._data.shape:
        raise RuntimeError(size_mismatch(tensor._data.shape, tangent._data.shape))
    if tangent_of(tensor) is not None:
        raise RuntimeError(
            f"Making a dual Tensor based on a Tensor that already has a forward gradient at the same level {LEVEL[0]} "
            "is not supported."
        )
    dual = tensor.view_as(tensor)
    if tangent._data.strides == tensor._data.strides:
        set_tangent(dual, tangent._data)
        _TANGENT_TENSORS[id(tangent._data)] = weakref.ref(tangent)
    else:  # PyTorch copies a tangent of another layout into the primal's
        copied = np.empty_like(tensor._data, dtype=tangent._data.dtype)
        copied[...] = tangent._data
        set_tangent(dual, copied)
    return dual


def unpack_dual(tensor, *, level=None):
    """`UnpackedDualTensor(primal, tangent)`: a view of `tensor` without tangent and its
    tangent (a Tensor over the tangent's memory), or `(tensor, None)` where it has none or
    no level is entered."""
    if _checked_level(level, "_fw_primal") is None:
        return UnpackedDualTensor(tensor, None)
    tangent = tangent_of(tensor)
    if tangent is None:
        return UnpackedDualTensor(tensor, None)
    primal = tensor.view_as(tensor)
    set_tangent(primal, None)
    return UnpackedDualTensor(primal, _tangent_tensor(tangent))


def _tangent_tensor(tangent):
    """The Tensor over the tangent array `tangent`: the one given to make_dual (PyTorch
    hands the same tangent back), else one made once for it."""
    ref = _TANGENT_TENSORS.get(id(tangent))
    found = ref() if ref is not None else None
    if found is None or found._data is not tangent:
        found = Tensor._make(tangent)
        _TANGENT_TENSORS[id(tangent)] = weakref.ref(found)
    return found
