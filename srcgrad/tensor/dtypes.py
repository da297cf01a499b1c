"""dtype objects, `Size` and its dims (`dim_axis`), and PyTorch's type promotion, over NumPy dtypes.

Invariants: there is exactly one `dtype` object per NumPy dtype, so aliases are
identical objects (`float is float32`); the default floating dtype is float32.
"""

import builtins
import operator

import numpy as np

__all__ = ["dtype", "Size", "dim_axis", "as_dtype", "of", "result_type", "DEFAULT_FLOAT", "get_default_dtype",
           "set_default_dtype", "default_complex", "c_name", "finfo", "iinfo"]


class dtype:
    """A tensor element type; prints as `srcgrad.float32`."""

    __slots__ = ("name", "numpy", "kind_name")

    def __init__(self, name, numpy_dtype, kind_name):
        self.name = name
        self.numpy = np.dtype(numpy_dtype)
        self.kind_name = kind_name  # the name PyTorch uses in messages: Float, Long, ...

    @property
    def is_floating_point(self):
        return self.numpy.kind == "f"

    @property
    def is_complex(self):
        return self.numpy.kind == "c"

    @property
    def is_signed(self):
        """Whether it holds negative numbers (every dtype but uint8 and bool)."""
        return self.numpy.kind not in "ub"

    @property
    def itemsize(self):
        return self.numpy.itemsize

    def __repr__(self):
        return "srcgrad." + self.name

    __str__ = __repr__

    def __reduce__(self):
        return (as_dtype, (self.name,))


float16 = dtype("float16", np.float16, "Half")
float32 = dtype("float32", np.float32, "Float")
float64 = dtype("float64", np.float64, "Double")
complex64 = dtype("complex64", np.complex64, "ComplexFloat")
complex128 = dtype("complex128", np.complex128, "ComplexDouble")
uint8 = dtype("uint8", np.uint8, "Byte")
int8 = dtype("int8", np.int8, "Char")
int16 = dtype("int16", np.int16, "Short")
int32 = dtype("int32", np.int32, "Int")
int64 = dtype("int64", np.int64, "Long")
bool_ = dtype("bool", np.bool_, "Bool")

DEFAULT_FLOAT = float32
_ALL = (float16, float32, float64, complex64, complex128, uint8, int8, int16, int32, int64, bool_)


E_COMPLEX_AUTOGRAD = (
    "srcgrad's Tensor shim does not differentiate complex tensors: a complex tensor cannot require grad, and no "
    "op that is recorded may give one. Keep real and imaginary parts as real tensors that require grad, or "
    "compute the complex values under torch.no_grad()")


def refuse_complex_autograd(np_dtype):
    """Raise E_COMPLEX_AUTOGRAD where `np_dtype` is complex: a gradient the shim would give
    through it is not PyTorch's (complex autograd is not implemented), so none is given."""
    if np_dtype.kind == "c":
        raise RuntimeError(E_COMPLEX_AUTOGRAD)


def get_default_dtype():
    """The dtype of floating tensors made from Python floats: float32 unless
    `set_default_dtype` said otherwise."""
    return DEFAULT_FLOAT


def set_default_dtype(d):
    """Make the floating dtype `d` (float16, float32 or float64) the default: of Python
    floats in tensors and arithmetic, of creation functions and parameters, and the dtype
    a repr does not print (with its complex counterpart for complex numbers)."""
    global DEFAULT_FLOAT
    if not isinstance(d, dtype):
        raise TypeError("invalid dtype object: only floating-point types are supported as the default type")
    if d.numpy.kind != "f":
        raise TypeError("only floating-point types are supported as the default type")
    DEFAULT_FLOAT = d


def default_complex():
    """The dtype of tensors made from Python complex numbers: complex128 where the default
    float is float64, else complex64."""
    return complex128 if DEFAULT_FLOAT is float64 else complex64


_BY_NUMPY = {d.numpy: d for d in _ALL}
_BY_NAME = {d.name: d for d in _ALL}
_BY_NAME.update(half=float16, float=float32, double=float64, short=int16, int=int32, long=int64)
_PYTHON = {builtins.float: float64, builtins.int: int64, builtins.bool: bool_, builtins.complex: complex128}


def of(np_dtype):
    """The `dtype` object of a NumPy dtype."""
    try:
        return _BY_NUMPY[np_dtype]
    except KeyError:
        raise TypeError(f"srcgrad tensors do not support the NumPy dtype {np_dtype}") from None


def as_dtype(d):
    """Accept a `dtype`, a NumPy dtype or type, a Python type or a name; return a `dtype`."""
    if isinstance(d, dtype):
        return d
    if isinstance(d, str):
        return _BY_NAME[d]
    if d in _PYTHON:
        return _PYTHON[d]
    return of(np.dtype(d))


class Size(tuple):
    """A tensor shape: a tuple that prints as `srcgrad.Size([2, 2])`."""

    __slots__ = ()

    def __repr__(self):
        return "srcgrad.Size([%s])" % ", ".join(str(n) for n in self)

    __str__ = __repr__

    def numel(self):
        n = 1
        for k in self:
            n *= k
        return n

    def __getitem__(self, index):
        out = tuple.__getitem__(self, index)
        return Size(out) if isinstance(index, slice) else out

    def __add__(self, other):
        """A Size, as PyTorch's `Size + tuple` (and `tuple + Size`, `Size * n`)."""
        return Size(tuple.__add__(self, other)) if isinstance(other, tuple) else NotImplemented

    def __radd__(self, other):
        return Size(tuple.__add__(other, self)) if isinstance(other, tuple) else NotImplemented

    def __mul__(self, n):
        return Size(tuple.__mul__(self, n))

    __rmul__ = __mul__


def dim_axis(dim, ndim):
    """NumPy's axis for PyTorch's `dim` (an int, or a tuple or list of them: empty means
    every axis) of a tensor of `ndim` dimensions. As in PyTorch, each dim lies in
    [-n, n - 1] with n = max(ndim, 1), else IndexError with PyTorch's message; a 0-d
    tensor's dim 0 or -1 is its one element (axis None)."""
    dims = tuple(dim) if isinstance(dim, (list, tuple)) else (dim,)
    n = ndim or 1
    for d in dims:
        if not -n <= d < n:
            raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {d})")
    if not ndim or not dims:
        return None
    return dims if isinstance(dim, (list, tuple)) else dim


def one_dim(dim, ndim, op):
    """The axis (an int in [0, ndim)) of the single `dim` that the method `op` (`size`,
    `stride`) of a tensor of `ndim` dimensions was given, with PyTorch's errors: a
    TypeError for what is not an int (a bool included), an IndexError for a dim out of
    range or any dim of a 0-d tensor."""
    if isinstance(dim, bool) or not hasattr(type(dim), "__index__"):
        raise TypeError(f"{op}(): argument 'dim' (position 1) must be int, not {type(dim).__name__}")
    dim = operator.index(dim)
    if not ndim:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    return dim_axis(dim, ndim) % ndim


# --- promotion ------------------------------------------------------------------------
# PyTorch promotes over three tiers: tensors with dimensions, 0-d tensors, then Python
# numbers. A lower tier only matters when it is of a higher category (bool < int <
# float < complex); a Python float counts as the default float dtype.


def _category(np_dtype):
    return "biufc".index(np_dtype.kind) if np_dtype.kind != "u" else 1


def _promote(a, b):
    if a is None:
        return b
    if b is None or a == b:
        return a
    ca, cb = _category(a), _category(b)
    if min(ca, cb) < 3 <= max(ca, cb):  # a float or complex beats any integer or bool
        return a if ca > cb else b
    return np.promote_types(a, b)


def promote_types(a, b):
    """PyTorch's `promote_types` of two NumPy dtypes (a float beats any integer or bool)."""
    return _promote(a, b)


def _combine(higher, lower):
    if higher is None:
        return lower
    if lower is None:
        return higher
    ch, cl = _category(higher), _category(lower)
    if ch >= cl:
        return higher
    if ch >= 3:  # a float tier meets a complex one: keep the float's precision
        return np.promote_types(higher, np.complex64)
    return _promote(higher, lower)


def python_number(x):
    """The Python number PyTorch reads the NumPy scalar `x` as, where a number is an
    operand: np.float64 and np.complex128 are Python float and complex already; an
    integer reads as int; any other (np.float32, np.float16, np.bool_, and np.complex64,
    whose imaginary part PyTorch drops) reads as float."""
    if isinstance(x, (builtins.float, builtins.complex)):
        return x.item()
    if isinstance(x, np.integer):
        return builtins.int(x)
    if isinstance(x, np.complexfloating):
        return builtins.float(x.real)
    return builtins.float(x)


def _python_dtype(x):
    if isinstance(x, np.generic):
        x = python_number(x)
    if isinstance(x, builtins.bool):
        return np.dtype(np.bool_)
    if isinstance(x, builtins.int):
        return np.dtype(np.int64)
    if isinstance(x, builtins.float):
        return DEFAULT_FLOAT.numpy
    if isinstance(x, builtins.complex):
        return default_complex().numpy
    raise TypeError(f"unsupported operand type: {type(x).__name__}")


def legacy_type_name(np_dtype):
    """PyTorch's legacy name of a CPU tensor type in its messages: `srcgrad.FloatTensor`."""
    return f"srcgrad.{of(np.dtype(np_dtype)).kind_name}Tensor"


# NEP 50 (NumPy 2): a Python number never widens an array. NumPy 1 gives an operation
# whose arrays are all 0-d the dtype of its Python floats (float32 0-d * 0.5 is float64).
WEAK_NUMBERS = np.lib.NumpyVersion(np.__version__) >= "2.0.0"


def legacy_widened(ans, arrays):
    """Under NumPy 1, the float dtype NEP 50 would have given `ans`, computed from the
    0-d float `arrays` (tensor data) and Python numbers, where NumPy 1 widened it; None
    otherwise (and always under NumPy 2)."""
    if WEAK_NUMBERS or ans.dtype.kind != "f":
        return None
    widest = None
    for a in arrays:
        if a.ndim or a.dtype.kind != "f":
            return None
        widest = a.dtype if widest is None or a.dtype.itemsize > widest.itemsize else widest
    return widest if widest is not None and ans.dtype.itemsize > widest.itemsize else None


def as_weak_number(value, array, compute=None):
    """`value` as NEP 50 uses a Python number against `array` (computed in the dtype
    `compute`, by default the array's), under NumPy 1 too: a Python int, float or complex
    no higher in category than that dtype becomes its scalar type wherever NumPy 1's
    value-based casting would widen the result (any number meeting a 0-d array; a number
    the dtype cannot hold, as 1e39 or 2 ** 31 for float32, 70000.0 for float16), so that
    the op rounds, overflows to inf and keeps the dtype as PyTorch's. An int out of an
    integer dtype's range is kept (NumPy 1 widens, and the cast back wraps as PyTorch
    does). Anything else, and everything under NumPy 2, comes back as it is: a node then
    keeps the Python number its saved attributes answer."""
    if WEAK_NUMBERS:
        return value
    np_dtype = array.dtype if compute is None else compute
    if type(value) not in _WEAK_OPERANDS.get(np_dtype.kind, ()):
        return value
    if array.ndim and np.result_type(np_dtype, value) == np_dtype:
        return value
    if np_dtype.kind in "iu":
        info = np.iinfo(np_dtype)
        if not info.min <= value <= info.max:
            return value
    with np.errstate(over="ignore"):  # 1e39 as float32 is inf, as in PyTorch: no warning
        return np_dtype.type(value)


_WEAK_OPERANDS = {"i": (builtins.int,), "u": (builtins.int,), "f": (builtins.int, builtins.float),
                  "c": (builtins.int, builtins.float, builtins.complex)}  # by the kind of the dtype they meet


def integer_operand(value, np_dtype, wraps=True):
    """The Python number `value` as PyTorch casts it to the integer dtype `np_dtype` it is
    computed in: an int out of the dtype's range wraps into it (as C casts an int64 or
    uint64: int8 + 300 adds 44, uint8 - 2 adds 254), where NumPy 2 raises and NumPy 1
    widens; an int of more than 64 bits raises PyTorch's OverflowError. `wraps` False (an
    exponent): a positive one out of range raises PyTorch's RuntimeError instead. Anything else
    comes back as it is."""
    if type(value) is not builtins.int:
        return value
    found = INTEGER_RANGES.get(np_dtype)
    if found is None:
        return value
    low, high, c_type = found
    if low <= value <= high or value < 0 and not wraps:  # a negative exponent has its own error
        return value
    if not -2 ** 63 <= value < 2 ** 64:
        raise OverflowError("int too big to convert")
    if not wraps:
        c_type = c_type if value < 2 ** 63 else "int64_t"
        raise RuntimeError(f"value cannot be converted to type {c_type} without overflow")
    return (value - low) % (high - low + 1) + low


INTEGER_RANGES = {  # NumPy dtype -> (min, max, the C type PyTorch's messages name)
    np.dtype(name): (builtins.int(np.iinfo(name).min), builtins.int(np.iinfo(name).max), c_type)
    for name, c_type in (("int8", "int8_t"), ("int16", "int16_t"), ("int32", "int"), ("int64", "int64_t"),
                         ("uint8", "uint8_t"))
}


_FLOAT_OPERANDS = {}  # (Python float, NumPy float dtype) -> its read-only 0-d array


def float_operand(value, np_dtype):
    """The Python float `value` as the 0-d array of the float dtype `np_dtype` that NEP 50
    makes of it against an array of that dtype: `+`, `-`, `*` and `/` give the same values
    and dtype with it, bit for bit, and NumPy takes the array faster than it converts the
    number. Cached (at most 256 at a time); zeros (0.0 == -0.0 for the cache) and nan
    (never equal to itself) come back as they are, as does everything under NumPy 1."""
    found = _FLOAT_OPERANDS.get((value, np_dtype))
    if found is None:
        if not value or value != value or not WEAK_NUMBERS:
            return value
        if len(_FLOAT_OPERANDS) >= 256:
            _FLOAT_OPERANDS.clear()
        with np.errstate(over="ignore"):  # 1e39 as float32 is inf, as in PyTorch: no warning
            found = np.array(value, np_dtype)
        found.flags.writeable = False
        _FLOAT_OPERANDS[value, np_dtype] = found
    return found


def result_type(*operands):
    """The NumPy dtype PyTorch gives a binary op over `operands`.

    Operands are NumPy arrays (the data of tensors) or Python numbers.
    """
    dims = zeros = numbers = None
    for x in operands:
        if isinstance(x, np.ndarray):
            if x.ndim:
                dims = _promote(dims, x.dtype)
            else:
                zeros = _promote(zeros, x.dtype)
        else:
            numbers = _promote(numbers, _python_dtype(x))
    return _combine(dims, _combine(zeros, numbers))


_C_NAMES = {
    "float32": "float", "float64": "double", "int64": "long int", "int32": "int", "int16": "short int",
    "int8": "signed char", "uint8": "unsigned char", "bool": "bool", "float16": "c10::Half",
}


def c_name(dtype):
    """The C++ name of the NumPy `dtype` that PyTorch's messages show (`float`, `long int`, ...)."""
    return _C_NAMES.get(dtype.name, dtype.name)


class finfo:
    """The limits of a floating dtype (the default float without one), as `torch.finfo`:
    `bits`, `eps`, `max`, `min`, `tiny` (= `smallest_normal`), `resolution`, `dtype`."""

    def __init__(self, type=None):
        found = DEFAULT_FLOAT if type is None else type
        if not isinstance(found, dtype) or found.numpy.kind not in "fc":
            raise TypeError("torch.finfo() requires a floating point input type. Use torch.iinfo to handle 'torch.finfo'")
        info = np.finfo(found.numpy)
        self.bits, self.dtype = info.bits, np.dtype(info.dtype).name
        self.eps, self.max, self.min = builtins.float(info.eps), builtins.float(info.max), builtins.float(info.min)
        self.tiny = self.smallest_normal = builtins.float(info.smallest_normal)
        self.resolution = 10.0 ** -info.precision

    def __repr__(self):
        return (f"finfo(resolution={self.resolution:g}, min={self.min:g}, max={self.max:g}, eps={self.eps:g}, "
                f"smallest_normal={self.smallest_normal:g}, tiny={self.tiny:g}, dtype={self.dtype})")


class iinfo:
    """The limits of an integer dtype, as `torch.iinfo`: `bits`, `max`, `min`, `dtype`."""

    def __init__(self, type):
        if not isinstance(type, dtype) or type.numpy.kind not in "iub":
            raise TypeError("torch.iinfo() requires an integer input type. Use torch.finfo to handle 'torch.iinfo'")
        info = np.iinfo(type.numpy) if type.numpy.kind != "b" else None
        self.bits = 8 if info is None else info.bits
        self.max, self.min = (1, 0) if info is None else (builtins.int(info.max), builtins.int(info.min))
        self.dtype = type.name

    def __repr__(self):
        return f"iinfo(min={self.min:g}, max={self.max:g}, dtype={self.dtype})"
