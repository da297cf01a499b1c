"""Tensor constructors: `tensor`, `ones`, `zeros`, `randn`, `from_numpy`, ...; the random
ones draw from a Generator (generators.py; `manual_seed` makes them reproducible).

Invariants: every constructor returns a leaf; `tensor()` always copies and
`from_numpy()` never does; float data without a dtype becomes float32, Python
ints int64, Python bools bool; NumPy arrays keep their dtype.
"""

import builtins
import operator
import warnings

import numpy as np

from . import devices, dtypes, fill_values, ranges, sequences
from .meta_arrays import MetaArray, is_meta_array, meta_array
from .meta_layouts import dense_like
from .generators import invalid_combination, stream
from .tensor import Tensor

__all__ = [
    "tensor", "as_tensor", "from_numpy", "ones", "zeros", "empty", "full", "randn", "rand",
    "randint", "arange", "linspace", "logspace", "eye", "zeros_like", "ones_like", "full_like",
    "randn_like", "rand_like", "randint_like",
]

E6 = "Only Tensors of floating point and complex dtype can require gradients"


def _leaf(data, requires_grad, on_meta=False):
    """A new leaf over the array `data`; `on_meta`: a meta tensor of its shape and dtype."""
    if requires_grad:
        if data.dtype.kind not in "fc":
            raise RuntimeError(E6)
        dtypes.refuse_complex_autograd(data.dtype)
    return Tensor._make(meta_array(data.shape, data.dtype) if on_meta else data, builtins.bool(requires_grad))


def _allocated(shape, dtype, requires_grad, on_meta, fill):
    """A new leaf of `shape` and `dtype` made by `fill(shape, dtype)`, or, `on_meta`, a meta
    tensor made without allocating."""
    if on_meta:
        return _leaf(meta_array(shape, dtype), requires_grad)
    return _leaf(fill(shape, dtype), requires_grad)


def _infer(data):
    """A NumPy copy of `data` with PyTorch's dtype inference (sequences.py)."""
    if isinstance(data, Tensor):
        return data._data.copy()
    if isinstance(data, (np.ndarray, np.generic)):
        return np.array(data)
    if isinstance(data, (list, tuple)):
        return sequences.nested_array(data)
    kind = type(data)
    if kind is builtins.float or kind is builtins.int or kind is builtins.bool or kind is builtins.complex:
        return sequences.nested_array([data]).reshape(())
    if isinstance(data, (str, bytes)):
        raise TypeError(f"new(): invalid data type '{kind.__name__}'")
    raise RuntimeError(f"Could not infer dtype of {type(data).__name__}")


def tensor(data, dtype=None, device=None, requires_grad=False):
    """A new leaf holding a copy of `data` (a number, nested list or NumPy array).

    With `dtype`, Python numbers convert straight to it (never through the inferred
    float32, which would round a float64's values). A Tensor `data` gives PyTorch's
    warning that `detach().clone()` is the way to copy one."""
    if type(requires_grad) is not builtins.bool:
        raise TypeError(f"tensor(): argument 'requires_grad' must be bool, not {type(requires_grad).__name__}")
    on_meta = devices.allocated_on(None, "tensor") if device is None else devices.moved_to(device, "tensor")
    if isinstance(data, Tensor):
        warnings.warn(
            "To copy construct from a tensor, it is recommended to use sourceTensor.detach().clone() or "
            "sourceTensor.detach().clone().requires_grad_(True), rather than torch.tensor(sourceTensor).",
            UserWarning,
            stacklevel=2,
        )
    if dtype is None:
        return _leaf(_infer(data), requires_grad, on_meta)
    target = dtypes.as_dtype(dtype).numpy
    if isinstance(data, (Tensor, np.ndarray, np.generic)):
        return _leaf(_infer(data).astype(target), requires_grad, on_meta)
    if isinstance(data, (list, tuple)):
        return _leaf(sequences.nested_array(data, target), requires_grad, on_meta)
    return _leaf(sequences.nested_array([data], target).reshape(()), requires_grad, on_meta)


def as_tensor(data, dtype=None, device=None):
    """Like `tensor`, but shares memory with a NumPy array of the requested dtype; a Tensor
    comes back as it is, or converted to `dtype` as `data.to(dtype)` does (tracked)."""
    if device is not None and devices.moved_to(device, "as_tensor"):
        return tensor(data, dtype=dtype, device=device)
    if isinstance(data, Tensor):
        return data if dtype is None else data.to(dtype)
    if isinstance(data, np.ndarray) and (dtype is None or dtypes.as_dtype(dtype).numpy == data.dtype):
        return Tensor._make(data)
    return tensor(data, dtype=dtype)


def from_numpy(ndarray):
    """A tensor sharing memory with `ndarray` and keeping its dtype."""
    if not isinstance(ndarray, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(ndarray).__name__})")
    dtypes.of(ndarray.dtype)
    return Tensor._make(ndarray)


def size_argument(size, op):
    """The shape `size` given to the constructor `op` (`ones(2, 3)` or `ones((2, 3))`),
    refused with PyTorch's errors where it is not made of ints (a float was truncated:
    `ones(2.5)` made two elements) or holds a negative one."""
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = tuple(size[0])
    elif len(size) == 1 and (isinstance(size[0], builtins.bool) or not _is_index(size[0])):
        raise TypeError(f"{op}(): argument 'size' (position 1) must be tuple of ints, not {type(size[0]).__name__}")
    shape = []
    for position, n in enumerate(size, 1):
        if not _is_index(n):
            raise TypeError(f"{op}(): argument 'size' failed to unpack the object at pos {position} with error "
                            f"\"type must be tuple of ints,but got {type(n).__name__}\"")
        shape.append(operator.index(n))
    negative = [n for n in shape if n < 0]
    if negative:
        if op == "zeros":
            raise RuntimeError("zeros: Dimension size must be non-negative.")
        raise RuntimeError(f"Trying to create tensor with negative dimension {negative[0]}: {shape}")
    return tuple(shape)


def _is_index(n):
    """Whether `n` is an int to PyTorch's size arguments: an int, a NumPy integer, a bool."""
    try:
        operator.index(n)
    except TypeError:
        return False
    return True


def _dtype(dtype, default=None):
    """The NumPy dtype of `dtype`; where it is None, of `default` (None: the default float)."""
    if dtype is None:
        return (dtypes.DEFAULT_FLOAT if default is None else default).numpy
    return dtypes.as_dtype(dtype).numpy


def ones(*size, dtype=None, device=None, requires_grad=False):
    """A leaf tensor of ones: `ones(2, 3)` or `ones((2, 3))`; float32 unless `dtype` says otherwise."""
    on_meta = devices.allocated_on(device, "ones")
    return _allocated(size_argument(size, "ones"), _dtype(dtype), requires_grad, on_meta, np.ones)


def zeros(*size, dtype=None, device=None, requires_grad=False):
    """A leaf tensor of zeros: `zeros(2, 3)` or `zeros((2, 3))`; float32 unless `dtype` says otherwise."""
    on_meta = devices.allocated_on(device, "zeros")
    return _allocated(size_argument(size, "zeros"), _dtype(dtype), requires_grad, on_meta, np.zeros)


def empty(*size, dtype=None, device=None, requires_grad=False):
    on_meta = devices.allocated_on(device, "empty")
    return _allocated(size_argument(size, "empty"), _dtype(dtype), requires_grad, on_meta, np.zeros)


def full(size, fill_value, dtype=None, device=None, requires_grad=False):
    """A leaf of `size` holding the number `fill_value` (fill_values.py reads it), of its
    dtype unless `dtype` is given: bool, int64, the default float or complex."""
    on_meta = devices.allocated_on(device, "full")
    if not isinstance(size, (tuple, list)):
        raise TypeError(f"full(): argument 'size' (position 1) must be tuple of ints, not {type(size).__name__}")
    number = fill_values.number_argument(fill_value, "full", Tensor)
    dt = _infer(type(number)()).dtype if dtype is None else _dtype(dtype)  # of a number of its type (2**63 is int64's)
    value = fill_values.checked_number(number, dt)
    return _allocated(size_argument((size,), "full"), dt, requires_grad, on_meta,
                      lambda shape, dt: np.full(shape, value, dtype=dt))


def randn(*size, dtype=None, device=None, requires_grad=False, generator=None):
    """Independent standard normal samples (float32 unless `dtype` says otherwise)."""
    rng = stream(generator, "randn", size)
    on_meta = devices.allocated_on(device, "randn")
    dt = _dtype(dtype)
    return _allocated(size_argument(size, "randn"), dt, requires_grad, on_meta, lambda shape, dt: rng.standard_normal(
        shape, dtype=dt if dt in (np.float32, np.float64) else np.float64).astype(dt, copy=False))


def rand(*size, dtype=None, device=None, requires_grad=False, generator=None):
    """Independent samples from [0, 1)."""
    rng = stream(generator, "rand", size)
    on_meta = devices.allocated_on(device, "rand")
    dt = _dtype(dtype)
    return _allocated(size_argument(size, "rand"), dt, requires_grad, on_meta, lambda shape, dt: rng.random(
        shape, dtype=dt if dt in (np.float32, np.float64) else np.float64).astype(dt, copy=False))


def randint(low, high=None, size=(), *, generator=None, dtype=None, device=None, requires_grad=False):
    """Integers drawn from [low, high): `randint(low, high, size)` or `randint(high, size)`."""
    given = [low] if high is None else [low, high] if isinstance(high, (tuple, list)) else [low, high, size]
    rng = stream(generator, "randint", given)
    on_meta = devices.allocated_on(device, "randint")
    if isinstance(high, (tuple, list)):  # randint(high, size)
        low, high, size = 0, low, high
    if high is None:
        low, high = 0, low
    if low >= high:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}")
    return _allocated(size_argument((size,), "randint"), _dtype(dtype, dtypes.int64), requires_grad, on_meta,
                      lambda shape, dt: rng.integers(low, high, shape).astype(dt))


def arange(start, end=None, step=1, dtype=None, device=None, requires_grad=False):
    on_meta = devices.allocated_on(device, "arange")
    if end is None:
        start, end = 0, start
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if (end - start) * step < 0:
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    floats = any(isinstance(v, builtins.float) for v in (start, end, step))
    default = dtypes.DEFAULT_FLOAT if floats else dtypes.int64
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if (step > 0 and end < start) or (step < 0 and end > start):
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    return _leaf(ranges.arange_values(start, end, step, _dtype(dtype, default)), requires_grad, on_meta)


def linspace(start, end, steps, dtype=None, device=None, requires_grad=False):
    on_meta = devices.allocated_on(device, "linspace")
    return _leaf(ranges.linspace_values(start, end, steps, _dtype(dtype)), requires_grad, on_meta)


def logspace(start, end, steps, base=10.0, dtype=None, device=None, requires_grad=False):
    on_meta = devices.allocated_on(device, "logspace")
    return _leaf(ranges.logspace_values(start, end, steps, base, _dtype(dtype)), requires_grad, on_meta)


def eye(n, m=None, dtype=None, device=None, requires_grad=False):
    on_meta = devices.allocated_on(device, "eye")
    if not _is_index(n) or isinstance(n, builtins.bool):
        raise TypeError(f"eye(): argument 'n' (position 1) must be int, not {type(n).__name__}")
    for name, v in (("n", n), ("m", m)):
        if v is not None and _is_index(v) and operator.index(v) < 0:
            raise RuntimeError(f"{name} must be greater or equal to 0, got {v}")
    return _leaf(np.eye(n, m, dtype=_dtype(dtype)), requires_grad, on_meta)


def _like(t, dtype, device, op):
    """The shape, NumPy dtype and whether on the meta device of `op(t, dtype=, device=)`
    (`zeros_like`): `t`'s unless given."""
    on_meta = is_meta_array(t._data) if device is None else devices.allocated_on(device, op, "empty_strided")
    return t._data.shape, (t._data.dtype if dtype is None else dtypes.as_dtype(dtype).numpy), on_meta


def _laid_out_like(out, t):
    """`out`, a new `*_like(t)` tensor, laid out as `t` where both are meta (PyTorch's
    preserve_format: a dense layout kept, meta_layouts.dense_like)."""
    if type(out._data) is MetaArray and type(t._data) is MetaArray:
        dense_like(out._data, (t._data,))
    return out


def zeros_like(t, dtype=None, device=None, requires_grad=False):
    shape, dt, on_meta = _like(t, dtype, device, "zeros_like")
    return _laid_out_like(_allocated(shape, dt, requires_grad, on_meta, np.zeros), t)


def ones_like(t, dtype=None, device=None, requires_grad=False):
    shape, dt, on_meta = _like(t, dtype, device, "ones_like")
    return _laid_out_like(_allocated(shape, dt, requires_grad, on_meta, np.ones), t)


def full_like(t, fill_value, dtype=None, device=None, requires_grad=False):
    shape, dt, on_meta = _like(t, dtype, device, "full_like")
    value = fill_values.checked_number(fill_values.number_argument(fill_value, "full_like", Tensor), dt)
    return _laid_out_like(_allocated(shape, dt, requires_grad, on_meta, lambda shape, dt: np.full(shape, value, dtype=dt)),
                          t)


def randn_like(t, dtype=None, device=None, requires_grad=False, *, generator=None):
    stream(generator, "randn_like", (t,))
    shape, dt, on_meta = _like(t, dtype, device, "randn_like")
    made = randn(shape, dtype=dtypes.of(dt), device="meta" if on_meta else "cpu", requires_grad=requires_grad,
                 generator=generator)
    return _laid_out_like(made, t)


def rand_like(t, dtype=None, device=None, requires_grad=False, *, generator=None):
    stream(generator, "rand_like", (t,))
    shape, dt, on_meta = _like(t, dtype, device, "rand_like")
    made = rand(shape, dtype=dtypes.of(dt), device="meta" if on_meta else "cpu", requires_grad=requires_grad,
                generator=generator)
    return _laid_out_like(made, t)


def randint_like(t, low=None, high=None, *, generator=None, dtype=None, device=None, requires_grad=False):
    """Integers drawn from [low, high) (`randint_like(t, high)`: [0, high)) in the shape and
    dtype of `t` (`random_`'s bounds and errors for that dtype)."""
    given = [t] + [b for b in (low, high) if b is not None]
    if high is None:
        low, high = 0, low
    elif low is None:
        low = 0
    if high is None or any(isinstance(b, builtins.bool) or not (_is_index(b) or isinstance(b, Tensor)) for b in (low, high)):
        raise invalid_combination("randint_like", ["Tensor" if isinstance(v, Tensor) else type(v).__name__ for v in given])
    stream(generator, "randint_like", given)
    shape, dt, on_meta = _like(t, dtype, device, "randint_like")
    drawn = Tensor._make(np.zeros(shape, dtype=dt)).random_(builtins.int(low), builtins.int(high), generator=generator)
    return _laid_out_like(_leaf(drawn._data, requires_grad, on_meta), t)
