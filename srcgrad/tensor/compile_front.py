"""What `srcgrad.compile` does with what PyTorch's `torch.compile` is given.

`@srcgrad.compile` makes a NumPy function one Tensor operation with a generated
derivative (compiled.py). PyTorch code calls `torch.compile(model)` and
`@torch.compile` on functions written with Tensor operations (`torch.sin(x)`,
`F.relu(...)`), with PyTorch's keywords (`mode`, `fullgraph`, `dynamic`, `options`,
`disable`, `backend="inductor"`). Such code is not NumPy code: a Module whose forward
reads no NumPy, or a function that reads the Tensor shim (the `srcgrad` module under any name, `srcgrad.nn`, its
functions or classes, a Tensor) and no NumPy, comes back itself and runs as written,
eagerly, its graph recorded op by op: what `torch.compile` promises (the same results).

Invariant: a function that reads NumPy keeps srcgrad's meaning of `compile`, whatever
else it reads; only the shim without NumPy makes a function Tensor code.
"""

import inspect
import types

__all__ = ["TORCH_BACKENDS", "is_tensor_module", "is_tensor_code"]

# PyTorch's backend names: its default compilers, which the shim's eager run stands for
TORCH_BACKENDS = frozenset({"inductor", "eager", "aot_eager", "cudagraphs", "aot_ts_nvfuser", "nvprims_nvfuser"})

# the parts of srcgrad that are the Tensor shim (srcgrad's own transforms live elsewhere)
_SHIM = ("srcgrad.tensor", "srcgrad.nn", "srcgrad.func", "srcgrad.linalg", "srcgrad.distributions",
         "srcgrad.autograd", "srcgrad.optim", "srcgrad.utils")


def is_module(value):
    """Whether `value` is an `nn.Module` (a Module's NumPy forward compiles as a function)."""
    from ..nn.modules import Module  # noqa: PLC0415  (nn imports the tensor package)

    return isinstance(value, Module)


def _names(code):
    """The global and attribute names `code` and the functions nested in it read."""
    names = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names |= _names(const)
    return names


def _read_values(fn):
    """The values of the globals, builtins aside, and closure cells `fn` reads."""
    code = getattr(fn, "__code__", None)
    if code is None:
        return []
    values = [fn.__globals__[name] for name in _names(code) if name in fn.__globals__]
    for cell in fn.__closure__ or ():
        try:
            values.append(cell.cell_contents)
        except ValueError:  # an empty cell
            pass
    return values


def _module_name(value):
    if inspect.ismodule(value):
        return value.__name__
    return getattr(type(value) if not callable(value) else value, "__module__", None) or ""


def _is_numpy(value):
    name = _module_name(value)
    return name == "numpy" or name.startswith("numpy.")


def _is_shim(value):
    from .tensor import Tensor  # noqa: PLC0415

    if isinstance(value, Tensor):
        return True
    name = _module_name(value)
    if inspect.ismodule(value) and name == "srcgrad":
        return True
    return name.startswith(_SHIM)


def is_tensor_code(fn):
    """Whether `fn` is written with the Tensor shim: it reads the shim and no NumPy (a
    method of a Module: no NumPy)."""
    values = _read_values(getattr(fn, "__func__", fn))
    if any(_is_numpy(v) for v in values):
        return False
    return is_module(getattr(fn, "__self__", None)) or any(_is_shim(v) for v in values)


def is_tensor_module(value):
    """Whether `value` is a Module whose forward is Tensor code: one of the shim's own,
    or one whose `forward` reads no NumPy (a NumPy forward keeps srcgrad's `compile`)."""
    if not is_module(value):
        return False
    forward = type(value).forward
    if (getattr(forward, "__module__", None) or "").startswith("srcgrad.nn"):
        return True
    return not any(_is_numpy(v) for v in _read_values(forward))
