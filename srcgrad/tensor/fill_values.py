"""Fill values as PyTorch reads them (`full`, `full_like`, `new_full`, `fill_`,
`masked_fill`): a Number argument, then its checked conversion to the dtype it is written in.

Invariant: a value that does not fit the dtype raises PyTorch's RuntimeError "value cannot
be converted to type ... without overflow" before anything is made or written; one that
fits comes back as a Python number NumPy writes as PyTorch's cast does (a float truncated
into an integer dtype, a negative int wrapped into an unsigned one, a real complex as its
real part).
"""

import builtins
import math

import numpy as np

from . import dtypes

__all__ = ["read_number", "number_argument", "checked_number", "refuse_fill_value"]

_PYTHON_NUMBERS = (builtins.bool, builtins.int, builtins.float, builtins.complex)
_CHECKED_FLOAT_NAMES = {  # the C type names PyTorch's checked conversion gives (integers': dtypes.INTEGER_RANGES)
    "float16": "c10::Half", "float32": "float", "float64": "double",
    "complex64": "c10::complex<float>", "complex128": "c10::complex<double>",
}


def _type_name(value):
    """The type's name as PyTorch's argument errors give it (NumPy's types with their module)."""
    kind = type(value)
    if kind.__name__ == "Tensor" or kind.__module__ == "builtins":
        return kind.__name__
    if kind.__module__.split(".")[0] == "numpy":
        return f"numpy.{kind.__name__}"
    return kind.__name__


def read_number(value, tensor_type):
    """`value` as a Python number where PyTorch reads it as a Number (a NumPy scalar as
    dtypes.python_number has it; a 0-d tensor that does not require grad as its item); else None."""
    if isinstance(value, np.generic):  # before Python's types: np.float64 is a float
        return dtypes.python_number(value) if value.dtype.kind in "biufc" else None
    if isinstance(value, _PYTHON_NUMBERS):
        return value
    if isinstance(value, tensor_type) and value._data.ndim == 0 and not value.requires_grad:
        return value.item()
    return None


def number_argument(value, function, tensor_type):
    """The Python number `function`'s `fill_value` (its second argument) reads `value` as, or
    PyTorch's TypeError."""
    number = read_number(value, tensor_type)
    if number is None:
        raise TypeError(f"{function}(): argument 'fill_value' (position 2) must be Number, not {_type_name(value)}")
    return number


def _described(value):
    """The type as PyTorch's overload errors mark it: a list or tuple with its entries' types."""
    if type(value) is list:
        return f"list of [{', '.join(_type_name(v) for v in value)}]"
    if type(value) is tuple:
        names = ", ".join(_type_name(v) for v in value)
        return f"tuple of ({names}{',' if len(value) == 1 else ''})"
    return _type_name(value)


def refuse_fill_value(value, function, leading):
    """PyTorch's TypeError for a `value` that is neither a tensor nor a number, given to
    `function` whose overloads take (*leading, Tensor value) and (*leading, Number value)."""
    got = ", ".join(["Tensor"] * len(leading) + [_type_name(value)])
    marked = ", ".join(["Tensor"] * len(leading) + [f"!{_described(value)}!"])
    lines = [f"{function}() received an invalid combination of arguments - got ({got}), but expected one of:"]
    for kind in ("Tensor", "Number"):
        lines.append(f" * ({', '.join([f'Tensor {name}' for name in leading] + [f'{kind} value'])})")
        lines.append(f"      didn't match because some of the arguments have invalid types: ({marked})")
    raise TypeError("\n".join(lines) + "\n")


def _overflow(np_dtype):
    found = dtypes.INTEGER_RANGES.get(np_dtype)
    c_type = found[2] if found is not None else _CHECKED_FLOAT_NAMES[np_dtype.name]
    return RuntimeError(f"value cannot be converted to type {c_type} without overflow")


def _fits_float(x, np_dtype):
    if not math.isfinite(x):
        return True
    return abs(x) <= float(np.finfo(np_dtype).max)


def checked_number(value, np_dtype):
    """The Python number `value` converted as PyTorch converts a fill value to `np_dtype`
    (raises its overflow error where it does not fit)."""
    np_dtype = np.dtype(np_dtype)
    kind = np_dtype.kind
    if kind == "b":
        return builtins.bool(value)
    if kind == "c":
        value = builtins.complex(value)
        part = np.dtype(np.float32 if np_dtype == np.complex64 else np.float64)
        if not (_fits_float(value.real, part) and _fits_float(value.imag, part)):
            raise _overflow(np_dtype)
        return value
    if isinstance(value, builtins.complex):
        if value.imag != 0:
            raise _overflow(np_dtype)
        value = value.real
    if kind == "f":
        try:
            fits = _fits_float(builtins.float(value), np_dtype)
        except OverflowError:  # an int beyond any float
            fits = False
        if not fits:
            raise _overflow(np_dtype)
        return value
    if isinstance(value, builtins.float) and not (math.isfinite(value) and (kind == "i" or value > -1.0)):
        raise _overflow(np_dtype)  # a negative float does not wrap into an unsigned dtype (its cast fails)
    low, high, _ = dtypes.INTEGER_RANGES[np_dtype]
    if kind == "u":
        low = -high  # unsigned: negatives wrap
    if not low <= value <= high:
        raise _overflow(np_dtype)
    return builtins.int(value) % (high + 1) if kind == "u" else builtins.int(value)
