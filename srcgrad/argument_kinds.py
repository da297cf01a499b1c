"""How a value passed to be differentiated is refused when it has no gradient that
srcgrad's rules describe: a masked array, a np.matrix or a complex number
(`refuse_undescribed`: a derivative would be silently wrong), None, a string, a set, an
iterator, a subclass of dict or list, an array of strings or objects
(`refuse_non_leaf`: the generated code would fail inside, or return a gradient of
another type). Each raises a TypeError naming the user's function and the argument (or
its path in a pytree) and saying what to pass instead.
"""

import collections.abc
import numbers

import numpy as np

from .errors import defined_at
from .runtime import is_sequence
from .runtime.gradients import kind_name
from .runtime.records import is_dataclass_kind

_ndarray = np.ndarray


def refuse_undescribed(fn, label, value):
    """Raise a TypeError for a value passed to be differentiated whose arithmetic the rules
    do not describe, so that a derivative would be silently wrong: a masked array or a
    np.matrix (masked entries, `*` as a matrix product), or a complex number or array
    (the rules are for real numbers)."""
    if isinstance(value, (np.ma.MaskedArray, np.matrix)):
        raise TypeError(
            f"cannot differentiate `{fn.__name__}` ({defined_at(fn)}) with respect to `{label}`: it is a "
            f"{type(value).__name__}, whose operations srcgrad's rules do not describe; pass a plain array "
            f"(np.asarray({label}), or {label}.filled(...) for a masked array)"
        )
    if isinstance(value, complex) or (isinstance(value, (np.ndarray, np.generic)) and value.dtype.kind == "c"):
        raise TypeError(
            f"cannot differentiate `{fn.__name__}` ({defined_at(fn)}) with respect to `{label}`: it is "
            f"{described_kind(value)}, and srcgrad's rules are for real numbers; pass its real and imaginary parts "
            f"({label}.real, {label}.imag) as real arguments and build the complex value inside"
        )


def refuse_non_leaf(fn, label, value):
    """Raise a TypeError for a value passed to be differentiated that is not a number,
    an array of numbers nor a pytree node (dict, list, tuple, namedtuple, dataclass
    instance), where the derivative would otherwise fail inside its generated code or
    return a gradient of another type: None, a string, a set (its entries have no order to
    give gradients in: a list came back), an iterator (used up once read: an empty
    gradient came back), a subclass of dict or list (OrderedDict: endless recursion), an
    array of strings, objects or dates, a number that is not real (Decimal)."""
    cls = type(value)
    if cls is _ndarray or cls is float:  # the common cases
        if cls is float or value.dtype.kind in "fc":
            return
    fix = "pass a float or an array of floats"
    if value is None:
        what, fix = "None, which has no gradient", fix + " (is an argument missing?)"
    elif isinstance(value, (str, bytes)):
        what = f"a {cls.__name__} ({value!r:.40}), which has no gradient"
    elif isinstance(value, (set, frozenset)):
        what, fix = f"a {cls.__name__}, whose entries have no order to give gradients in", (
            f"pass a list (sorted({label})) or an array")
    elif isinstance(value, (dict, list, tuple)) and not is_container(value):
        base = next(b for b in (dict, list, tuple) if isinstance(value, b)).__name__
        what, fix = _a(f"{cls.__name__} (a subclass of {base}), which srcgrad does not take apart: it "
                       "differentiates with respect to dicts, lists, tuples, namedtuples and dataclass instances"), (
            f"pass a plain {base} ({base}({label}))")
    elif isinstance(value, collections.abc.Iterator):
        what, fix = _a(f"{cls.__name__}, which is used up once read"), f"pass a list (list({label})) or an array"
    elif isinstance(value, (np.ndarray, np.generic)):
        if value.dtype.kind in "fc" or isinstance(value, (np.ma.MaskedArray, np.matrix)):
            return
        what, fix = f"an array of {value.dtype}, which has no gradient", f"pass an array of floats ({label}.astype(float))"
    elif isinstance(value, numbers.Number) and not isinstance(value, numbers.Real):
        what, fix = _a(f"{cls.__name__}, not a real number"), f"pass a float (float({label}))"
    elif isinstance(value, (range, memoryview)):
        what, fix = f"a {cls.__name__}, which has no gradient", f"pass an array of floats (np.array({label}, dtype=float))"
    elif is_tensor(value):
        what, fix = "a srcgrad Tensor, which the transforms of NumPy code do not take", (
            f"pass its array ({label}.detach().numpy()), or run Tensor code with backward() (@srcgrad.compile makes "
            "a NumPy function one Tensor operation)")
    elif isinstance(value, numbers.Number) or hasattr(value, "__array__") or hasattr(value, "__array_ufunc__"):
        return
    else:
        what = _a(f"{cls.__qualname__} object, which has no gradient")
    raise TypeError(
        f"cannot differentiate `{fn.__name__}` ({defined_at(fn)}) with respect to `{label}`: it is {what}; {fix}"
    )


def _a(noun):
    """`noun` with its indefinite article."""
    return ("an " if noun[:1].lower() in "aeiou" else "a ") + noun


def described_kind(value):
    """How a message names the kind of an argument: `array of int64`, `bool`, `int`."""
    return f"array of {value.dtype}" if isinstance(value, np.ndarray) else kind_name(value)


def is_tensor(value):
    """Whether `value` is a Tensor of the shim (imported here only when asked: the shim
    imports the transforms)."""
    from .tensor.tensor import Tensor

    return isinstance(value, Tensor)


def is_container(value):
    """Whether `value` is a pytree node: a dict, list, tuple, namedtuple or dataclass instance."""
    return type(value) is dict or is_sequence(type(value)) or is_dataclass_kind(type(value))
