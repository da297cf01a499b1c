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


# op -> (exception type, message); the op names are the shim's call sites' own
REFUSALS = {
    "floor": (NotImplementedError, "floor is not supported for complex inputs"),
    "ceil": (NotImplementedError, "ceil is not supported for complex inputs"),
    "trunc": (NotImplementedError, "trunc is not supported for complex inputs"),
    "round": _kernel("round_vml_cpu"),
    "frac": _kernel("frac_cpu"),
    "sign": (NotImplementedError, "Unlike NumPy, srcgrad.sign is not intended to support complex numbers. Please use "
                                  "srcgrad.sgn instead."),
    "clamp": (NotImplementedError, "clamp is not supported for complex types"),
    "clamp_min_bound": _kernel("maximum_cpu"),  # a real tensor clamped by a complex tensor bound
    "clamp_max_bound": _kernel("minimum_cpu"),
    "max_all": _kernel("max_all"),
    "min_all": _kernel("min_all"),
    "max_dim": (RuntimeError, "max(): does not support complex input"),
    "min_dim": (RuntimeError, "min(): does not support complex input"),
    "amax": _kernel("max_values_cpu"),
    "amin": _kernel("min_values_cpu"),
    "aminmax": _kernel("aminmax_cpu"),
    "argmax": (RuntimeError, "argmax(): does not support complex input"),
    "argmin": (RuntimeError, "argmin(): does not support complex input"),
    "sort": (RuntimeError, " Sort does not support complex dtypes on CPU"),
    "topk": (RuntimeError, " topk does not support complex dtypes on CPU"),
    "kthvalue": _kernel("kthvalue_cpu"),
    "median": _kernel("median_cpu"),
    "mode": _kernel("mode_cpu"),
    "cummax": _kernel("cummax_cpu"),
    "cummin": _kernel("cummin_cpu"),
    "maximum": (RuntimeError, "maximum not implemented for complex tensors."),
    "minimum": (RuntimeError, "minimum not implemented for complex tensors."),
    "fmax": (RuntimeError, "fmax not implemented for complex tensors."),
    "fmin": (RuntimeError, "fmin not implemented for complex tensors."),
    "lt": _kernel("lt_cpu"),
    "le": _kernel("le_cpu"),
    "gt": _kernel("gt_cpu"),
    "ge": _kernel("ge_cpu"),
    "floor_divide": _kernel("div_floor_cpu"),
    "div_trunc": _kernel("div_trunc_cpu"),
    "remainder": _kernel("remainder_cpu"),
    "fmod": _kernel("fmod_cpu"),
    "atan2": _kernel("atan2_cpu"),
    "hypot": _kernel("hypot_cpu"),
    "copysign": _kernel("copysign_cpu"),
    "nextafter": _kernel("nextafter_cpu"),
    "xlogy": _kernel("xlogy_cpu"),
    "erf": _kernel("erf_vml_cpu"),
    "erfc": _kernel("erfc_vml_cpu"),
    "erfinv": _kernel("erfinv_vml_cpu"),
    "lgamma": _kernel("lgamma_vml_cpu"),
    "digamma": _kernel("digamma"),
    "trigamma": _kernel("trigamma"),
    "logit": _kernel("logit_cpu"),
    "i0": _kernel("i0_vml_cpu"),
    "polygamma": _kernel("polygamma"),
    "mvlgamma": _kernel("arange_cpu"),
    "erfcx": _kernel("erfcx_cpu"),
    "log_ndtr": _kernel("log_ndtr_cpu"),
    "ndtri": _kernel("ndtri_cpu"),
    "i0e": _kernel("i0e_cpu"),
    "i1": _kernel("i1_cpu"),
    "i1e": _kernel("i1e_cpu"),
    "entr": _kernel("entr_cpu"),
    "signbit": (NotImplementedError, "signbit is not implemented for complex tensors."),
    "isposinf": (RuntimeError, "isposinf does not support complex inputs."),
    "isneginf": (RuntimeError, "isneginf does not support complex inputs."),
    "rad2deg": (RuntimeError, "rad2deg is not supported for complex tensors."),
    "deg2rad": (RuntimeError, "deg2rad is not supported for complex tensors."),
    "nansum": (RuntimeError, "nansum on CPU does not support complex inputs"),
    "searchsorted": _kernel("searchsorted_out_cpu"),
    "unique": _kernel("unique"),
    "softplus": _kernel("softplus_cpu"),
    "mse_loss": _kernel("mse_cpu"),
}


def refuse_complex(op, *operands):
    """Raise PyTorch's error for `op` (a key of REFUSALS) where one of `operands` (Tensors,
    arrays or numbers; others are ignored) is complex."""
    for x in operands:
        value = getattr(x, "_data", x)
        if isinstance(value, complex) or value.dtype.kind == "c" if hasattr(value, "dtype") else isinstance(value, complex):
            values = [getattr(y, "_data", y) for y in operands]
            dt = dtypes.result_type(*[v for v in values if isinstance(v, (np.ndarray, np.generic, int, float, complex))])
            kind, message = REFUSALS[op]
            raise kind(message.replace("{kind}", dtypes.of(dt).kind_name))
