"""A custom `Function` under the `srcgrad.func` transforms, checked as PyTorch checks it:
the transforms running now are a stack of names (`running(name)` around each call of the
transformed function), and `Function.apply` inside one asks `check(cls)`.

PyTorch's errors: a Function without `setup_context` (forward taking ctx) under any
transform; under `vmap` (and `jacfwd`, which PyTorch runs through vmap) a Function with
neither a `vmap` staticmethod nor `generate_vmap_rule = True`, or with both. The shim's
vmap calls the function once per index, so a Function with `generate_vmap_rule` simply
runs on each slice; `func.vmap(SomeFunction.apply)` calls the Function's own `vmap`
staticmethod (func/vmapping.py).
"""

import contextlib

__all__ = ["running", "check", "has_own_vmap", "E_SETUP_CONTEXT"]

_RUNNING = []  # names of the transforms whose function is running, innermost last
_VMAPPING = frozenset(("vmap", "jacfwd"))
_DOCS = "For more details, please see https://pytorch.org/docs/main/notes/extending.func.html"
E_SETUP_CONTEXT = ("In order to use an autograd.Function with functorch transforms (vmap, grad, jvp, jacrev, ...), it "
                   f"must override the setup_context staticmethod. {_DOCS}")


@contextlib.contextmanager
def running(name):
    """The transform `name` runs its function inside."""
    _RUNNING.append(name)
    try:
        yield
    finally:
        _RUNNING.pop()


def has_own_vmap(cls):
    """Whether the Function class `cls` overrides the `vmap` staticmethod."""
    from . import Function  # noqa: PLC0415  (this module is imported by the package)

    return getattr(cls, "vmap", None) is not getattr(Function, "vmap", None)


def check(cls):
    """PyTorch's errors for `cls.apply` called under the transforms now running."""
    if not _RUNNING:
        return
    from . import Function  # noqa: PLC0415

    if cls.setup_context is Function.setup_context:
        raise RuntimeError(E_SETUP_CONTEXT)
    if _VMAPPING.isdisjoint(_RUNNING):
        return
    generated, own = bool(getattr(cls, "generate_vmap_rule", False)), has_own_vmap(cls)
    if generated and own:
        raise RuntimeError(
            f"You tried to vmap over {cls.__name__}, but it has both generate_vmap_rule=True and an overridden vmap "
            "staticmethod. Please set generate_vmap_rule=False or delete the overridden vmap staticmethod to avoid "
            f"ambiguity. {_DOCS}")
    if not generated and not own:
        raise RuntimeError(
            f"You tried to vmap over {cls.__name__}, but it does not have vmap support. Please override and implement "
            f"the vmap staticmethod or set generate_vmap_rule=True. {_DOCS}")
