"""PyTorch's errors for the ops it does not compute on complex tensors (CPU, 2.13).

NumPy orders complex numbers lexicographically and rounds, clips, sorts and compares
them, or refuses them with its own TypeError; PyTorch refuses them. `refuse_complex(op,
*operands)` raises PyTorch's error for `op` (its exception type and text) where an
operand is a complex tensor or a Python complex number, before anything is computed;
`{kind}` in a message is the promoted dtype's name (ComplexFloat, ComplexDouble), as in
PyTorch's "not implemented for" kernel errors.

Invariants: an op listed here never returns a value for a complex operand; a real
operand costs one dtype test per tensor.
"""

import numpy as np

from . import dtypes

__all__ = ["refuse_complex", "REFUSALS"]

_NO_KERNEL = "\"{kernel}\" not implemented for '{kind}'"


def _kernel(name):
    return NotImplementedError, _NO_KERNEL.replace("{kernel}", name)


def _message(kind, template, names):
    return {name: (kind, template.format(name)) for name in names}


# op -> (exception type, message); the op names are the shim's call sites' own
REFUSALS = {
    **{op: _kernel(f"{op}_cpu") for op in (
        "frac", "aminmax", "kthvalue", "median", "mode", "cummax", "cummin", "remainder", "fmod", "atan2", "hypot",
        "copysign", "nextafter", "xlogy", "logit", "softplus", "erfcx", "log_ndtr", "ndtri", "i0e", "i1", "i1e", "entr",
        "lt", "le", "gt", "ge")},
    **{op: _kernel(f"{op}_vml_cpu") for op in ("round", "erf", "erfc", "erfinv", "lgamma", "i0")},
    **{op: _kernel(op) for op in ("max_all", "min_all", "digamma", "trigamma", "polygamma", "unique")},
    **_message(NotImplementedError, "{} is not supported for complex inputs", ("floor", "ceil", "trunc")),
    **_message(RuntimeError, "{}(): does not support complex input", ("argmax", "argmin")),
    **_message(RuntimeError, "{} not implemented for complex tensors.", ("maximum", "minimum", "fmax", "fmin")),
    **_message(RuntimeError, "{} is not supported for complex tensors.", ("rad2deg", "deg2rad")),
    **_message(RuntimeError, "{} does not support complex inputs.", ("isposinf", "isneginf")),
    "max_dim": (RuntimeError, "max(): does not support complex input"),
    "min_dim": (RuntimeError, "min(): does not support complex input"),
    "sign": (NotImplementedError, "Unlike NumPy, torch.sign is not intended to support complex numbers. Please use "
                                  "torch.sgn instead."),
    "clamp": (NotImplementedError, "clamp is not supported for complex types"),
    "clamp_min_bound": _kernel("maximum_cpu"),  # a real tensor clamped by a complex tensor bound
    "clamp_max_bound": _kernel("minimum_cpu"),
    "amax": _kernel("max_values_cpu"),
    "amin": _kernel("min_values_cpu"),
    "sort": (RuntimeError, " Sort does not support complex dtypes on CPU"),
    "topk": (RuntimeError, " topk does not support complex dtypes on CPU"),
    "floor_divide": _kernel("div_floor_cpu"),
    "div_trunc": _kernel("div_trunc_cpu"),
    "mvlgamma": _kernel("arange_cpu"),
    "signbit": (NotImplementedError, "signbit is not implemented for complex tensors."),
    "nansum": (RuntimeError, "nansum on CPU does not support complex inputs"),
    "searchsorted": _kernel("searchsorted_out_cpu"),
    "mse_loss": _kernel("mse_cpu"),
}


_VALUES = (np.ndarray, np.generic, int, float, complex)  # what promotes; other operands (None) do not


def refuse_complex(op, *operands):
    """Raise PyTorch's error for `op` (a key of REFUSALS) where one of `operands` (Tensors,
    arrays or numbers; others are ignored) is complex."""
    for x in operands:
        value = getattr(x, "_data", x)
        dtype = getattr(value, "dtype", None)
        if dtype.kind == "c" if dtype is not None else isinstance(value, complex):
            values = [getattr(y, "_data", y) for y in operands]
            dt = dtypes.result_type(*[v for v in values if isinstance(v, _VALUES)])
            kind, message = REFUSALS[op]
            raise kind(message.replace("{kind}", dtypes.of(dt).kind_name))
