"""In-place writes while a dual level is entered: refused when the written tensor or an
operand has a tangent (forward_ad.py installs these guards on entry and removes them on
exit, so that writes outside a level pay nothing).

PyTorch pushes the tangent through an in-place op (and through the views of the written
tensor); the shim's in-place paths write arrays directly, so it refuses rather than
leave a tangent that no longer matches its primal.
"""

import functools

from .tangents import TANGENTS, any_dual

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


def _guarded(name, method):
    @functools.wraps(method)
    def guarded(self, *args, **kwargs):
        if TANGENTS and (any_dual((self,)) or any_dual(args) or any_dual(kwargs.values())):
            raise NotImplementedError(
                f"{name} (an in-place operation) of or with a dual tensor is not supported by the shim's forward AD: "
                "write it out of place"
            )
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
            setattr(cls, name, _guarded(name, method))


def uninstall(cls):
    """Remove the guards: the class has its own methods again (inherited ones are
    inherited again)."""
    for name, own in _SAVED.items():
        if own is None:
            delattr(cls, name)
        else:
            setattr(cls, name, own)
    _SAVED.clear()
