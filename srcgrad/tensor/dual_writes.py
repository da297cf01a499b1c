"""In-place writes while a dual level is entered (forward_ad.py installs these guards on
entry and removes them on exit, so that writes outside a level pay nothing).

Where the written tensor or an operand has a tangent, the write gives the written tensor
the tangent of the same op out of place (`x.mul_(2)`: that of `x.mul(2)`, computed
first, with grad mode off; zero for `zero_`, `fill_` with a number and the random
fills; the source's for `copy_`; for `x[i] = v`, v's at i), cast to its dtype. PyTorch also pushes the tangent
through the views of the written tensor and to its base: the shim refuses a write into a
view, or into a tensor with live views, and an in-place method with no out-of-place
counterpart (`apply_`, `map_`, ...), rather than leave a tangent that no longer
matches its primal.
"""

import functools
import re

import numpy as np

from .grad_mode import no_grad
from .tangents import TANGENTS, any_dual, refused, set_tangent, tangent_of

__all__ = ["install", "uninstall"]

_NOT_WRITES = frozenset(("requires_grad_",))
_SAVED = {}  # method name -> the Tensor class's own method, while the guards are installed


def _in_place_names(cls):
    for name in dir(cls):
        if name in _NOT_WRITES:
            continue
        if name.endswith("_") and not name.startswith("_") or name == "__setitem__" or (
                name in ("__iadd__", "__isub__", "__imul__", "__itruediv__", "__ifloordiv__", "__imod__", "__ipow__",
                         "__imatmul__", "__iand__", "__ior__", "__ixor__", "__ilshift__", "__irshift__")):
            yield name


_ZERO_TANGENT = frozenset(("zero_", "fill_", "normal_", "uniform_", "random_", "bernoulli_", "exponential_"))
_NO_COUNTERPART = frozenset(("apply_", "map_", "resize_", "set_", "detach_", "fill_diagonal_"))


def _refused(name, why):
    return NotImplementedError(
        f"{name} (an in-place operation) of or with a dual tensor {why} is not supported by the shim's forward AD: "
        "write it out of place"
    )


def _has_views(tensor):
    """Whether `tensor` is a view, or has a live view (they share its version counter)."""
    if getattr(tensor, "_view", None) is not None:
        return True
    counter = tensor._counter
    family = counter[1] if counter is not None and len(counter) > 1 else None
    return bool(family) and any(ref() is not None for ref in family.views)


def _pure(cls, name):
    """The name of the out-of-place method doing what the in-place `name` does, or None."""
    if name in _NO_COUNTERPART:
        return None
    plain = f"__{name[3:]}" if name.startswith("__i") else name[:-1]
    return plain if callable(getattr(cls, plain, None)) else None


def _written(self, name, method, pure, args, kwargs):
    """The in-place write of a dual tensor or with one: the values by `method`, the tangent
    of the same op out of place."""
    if _has_views(self):
        raise _refused(name, "that is a view or has views")
    if name in _ZERO_TANGENT and not any_dual(args) and not any_dual(kwargs.values()):
        out = method(self, *args, **kwargs)
        set_tangent(self, np.zeros(self._data.shape, self._data.dtype) if self._data.dtype.kind in "fc" else None)
        return out
    if name == "__setitem__" and len(args) == 2:
        return _set_item(self, method, *args)
    if name == "copy_" and args:
        tangent = tangent_of(args[0])
    elif pure is None:
        raise _refused(name, "(no out-of-place counterpart)")
    else:
        with no_grad():
            try:
                tangent = tangent_of(getattr(self, pure)(*args, **kwargs))
            except NotImplementedError as e:  # PyTorch's names the in-place op: aten::floor_divide_
                raise _in_place_refusal(e) from None
    out = method(self, *args, **kwargs)
    _give_tangent(self, tangent)
    return out


def _in_place_refusal(error):
    """`error`, tangents.refused's for an op without a forward derivative, naming its
    in-place form (aten::floor_divide_); any other error as it is."""
    text = str(error)
    refused_op = re.match(r"Trying to use forward AD with aten::(\w+) that does not support it\.$", text)
    return refused(f"aten::{refused_op.group(1)}_") if refused_op else error


def _give_tangent(self, tangent):
    """Set the tangent of the written `self`: `tangent` broadcast and cast to its dtype
    (zeros for none; none for a dtype that is not floating)."""
    data = self._data
    if tangent is None or data.dtype.kind not in "fc":
        set_tangent(self, np.zeros(data.shape, data.dtype) if data.dtype.kind in "fc" else None)
    else:
        set_tangent(self, np.array(np.broadcast_to(tangent, data.shape), dtype=data.dtype))


def rewritten(self, compute, write):
    """The write of `compute(self)` (an out-of-place op) into self where self or an
    operand is dual, done by `write()`: self gets the tangent of `compute(self)`. Reached
    by writes that are not Tensor methods (nn.functional's `inplace=True`, `torch.selu_`),
    which the method guards do not see."""
    if _has_views(self):
        raise _refused("the in-place write", "that is a view or has views")
    with no_grad():
        tangent = tangent_of(compute(self))
    out = write()
    _give_tangent(self, tangent)
    return out


def _set_item(self, method, index, value):
    """`self[index] = value`: the tangent takes the value's tangent (zero for a constant) at
    the same index."""
    before = tangent_of(self)
    part = tangent_of(value)
    method(self, index, value)
    data = self._data
    if data.dtype.kind not in "fc":
        return None
    tangent = np.zeros(data.shape, data.dtype) if before is None else np.array(before, dtype=data.dtype)
    tangent[_as_arrays(index)] = 0 if part is None else part
    set_tangent(self, tangent)
    return None


def _as_arrays(index):
    """`index` with each Tensor in it replaced by its array (NumPy indexes as PyTorch)."""
    if isinstance(index, tuple):
        return tuple(_as_arrays(i) for i in index)
    return getattr(index, "_data", index) if hasattr(index, "_requires_grad") else index


def _guarded(name, method, pure):
    @functools.wraps(method)
    def guarded(self, *args, **kwargs):
        if TANGENTS and (any_dual((self,)) or any_dual(args) or any_dual(kwargs.values())):
            return _written(self, name, method, pure, args, kwargs)
        return method(self, *args, **kwargs)

    return guarded


def install(cls):
    """Guard every in-place method of `cls` (the Tensor class)."""
    if _SAVED:
        return
    for name in _in_place_names(cls):
        method = getattr(cls, name)
        if callable(method):
            _SAVED[name] = cls.__dict__.get(name)
            setattr(cls, name, _guarded(name, method, _pure(cls, name)))


def uninstall(cls):
    """Remove the guards: the class has its own methods again (inherited ones are
    inherited again)."""
    for name, own in _SAVED.items():
        if own is None:
            delattr(cls, name)
        else:
            setattr(cls, name, own)
    _SAVED.clear()
