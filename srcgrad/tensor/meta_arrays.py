"""`MetaArray`: the array of a tensor on PyTorch's 'meta' device, a shape, dtype and
strides with no data.

Every meta array is a read-only view with all strides 0 of one shared 16-byte buffer, so
a shape of (10**6, 10**6) costs nothing. NumPy calls on it are answered by shape and
dtype alone (`__array_ufunc__`, `__array_function__`): the result of an op with a meta
operand is a meta array, whatever the other operands are, so the shim's ops, rules and
backward run unchanged and give meta results and meta gradients.

How a result's shape and dtype are found, cheapest first:
* elementwise ufuncs: the broadcast shape, the dtype of the ufunc run on one-element
  stand-ins of the operands' dtypes (NumPy's promotion, NEP 50 included);
* ufunc reductions and scans (`sum`, `max`, `cumsum`): the reduced shape, the dtype of
  the reduction run on a stand-in with each dim clipped to 1 (so a reduction over an
  empty dim still raises NumPy's error);
* `matmul`: the broadcast batch dims and the core dims;
* views (`reshape`, `transpose`, basic indexing, `broadcast_to`): NumPy's own view of the
  zero-strided array, free;
* anything else (`concatenate`, `where`, `einsum`, advanced indexing): NumPy computes it
  on the zero-strided array (the cost of the op on zeros) and the result is replaced by a
  meta array of its shape and dtype.

Invariants: a meta array is never written (writes into one are dropped, as PyTorch's
meta kernels drop them), its values are never read by the shim (`meta.py` and the
array's `item`, `tolist`, `float`, `int` raise PyTorch's errors; the shim's own checks of
values see False), and `is_meta_array` also knows a plain view of one (what
`np.asarray` makes of it).
"""

import numpy as np

from .meta_layouts import dense_like, laid_out_as, layout, probe, set_layout

__all__ = ["META_BUFFER", "MetaArray", "meta_array", "is_meta_array", "as_meta", "broadcast_shape", "check_devices",
           "reshapes_as_view"]

NO_DATA = "Cannot copy out of meta tensor; no data!"
META_BUFFER = np.zeros(16, dtype=np.uint8)
META_BUFFER.flags.writeable = False


def meta_array(shape, dtype):
    """A meta array of `shape` and `dtype` (a NumPy dtype)."""
    shape = tuple(int(n) for n in shape)
    return np.ndarray.__new__(MetaArray, shape, dtype=dtype, buffer=META_BUFFER, strides=(0,) * len(shape))


def is_meta_array(array):
    """Whether `array` holds no data: a meta array or a plain view of one."""
    return type(array) is MetaArray or (isinstance(array, np.ndarray) and _on_buffer(array))


def _on_buffer(array):
    """Whether `array` views META_BUFFER (through views of views too)."""
    while isinstance(array, np.ndarray):
        if array is META_BUFFER:
            return True
        array = array.base
    return False


def as_meta(array):
    """`array` (an ndarray or a NumPy scalar) as a meta array of its shape and dtype; a
    view of a meta array stays that view (a meta array keeps its layout)."""
    if isinstance(array, np.ndarray) and _on_buffer(array):
        return array if type(array) is MetaArray else array.view(MetaArray)
    return meta_array(np.shape(array), np.asarray(array).dtype)


def _metas(result):
    """`result` of a NumPy call with its arrays (in tuples and lists too) as meta arrays."""
    if isinstance(result, (np.ndarray, np.generic)):
        return as_meta(result)
    if isinstance(result, tuple):
        return type(result)(_metas(r) for r in result) if not hasattr(result, "_fields") else \
            type(result)(*(_metas(r) for r in result))
    if isinstance(result, list):
        return [_metas(r) for r in result]
    return result


def _plain(value):
    """`value` for NumPy's own code: a meta array as a plain zero-strided view, containers
    looked into."""
    if type(value) is MetaArray:
        return value.view(np.ndarray)
    if isinstance(value, (tuple, list)):
        return type(value)(_plain(v) for v in value)
    return value


def _stand_in(value, clip=False):
    """A one-element-per-dim stand-in of an operand with its dtype and number of dims
    (Python numbers stay as they are: their promotion depends on them being numbers);
    `clip` keeps a dim of size 0 at 0."""
    if not isinstance(value, np.ndarray):
        return value
    shape = tuple(min(n, 1) for n in value.shape) if clip else (1,) * value.ndim
    return np.zeros(shape, dtype=value.dtype)


def broadcast_shape(shapes):
    """The shape `shapes` broadcast to, or PyTorch's error for meta operands that do not
    broadcast (its `_broadcast_shapes`, which names the first argument that does not fit)."""
    common = [1] * max((len(s) for s in shapes), default=0)
    for index, shape in enumerate(shapes):
        for dim in range(-1, -1 - len(shape), -1):
            if common[dim] == 1:
                common[dim] = shape[dim]
            elif shape[dim] != 1 and common[dim] != shape[dim]:
                raise RuntimeError(
                    f"Attempting to broadcast a dimension of length {shape[dim]} at {dim}! Mismatching argument at "
                    f"index {index} had srcgrad.Size({list(shape)}); but expected shape should be broadcastable to "
                    f"{common}")
    return tuple(common)


def _reduced_shape(shape, axis, keepdims):
    axes = range(len(shape)) if axis is None else (axis,) if np.ndim(axis) == 0 else axis
    axes = {int(a) % len(shape) if shape else 0 for a in axes}
    if keepdims:
        return tuple(1 if i in axes else n for i, n in enumerate(shape))
    return tuple(n for i, n in enumerate(shape) if i not in axes)


def _matmul_shape(a, b):
    if a.ndim == 0 or b.ndim == 0:
        raise ValueError("matmul: Input operand does not have enough dimensions")
    sa, sb = a.shape, b.shape
    inner_a, inner_b = sa[-1], (sb[0] if b.ndim == 1 else sb[-2])
    if inner_a != inner_b:
        raise ValueError(f"matmul: Input operand 1 has a mismatch in its core dimension 0 (size {inner_b} is "
                         f"different from {inner_a})")
    batch = np.broadcast_shapes(sa[:-2], sb[:-2])
    return batch + sa[-2:-1] + sb[-1:] if b.ndim > 1 else batch + sa[-2:-1]


class MetaArray(np.ndarray):
    """A zero-strided read-only ndarray standing for a meta tensor's data (module doc)."""

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        out = kwargs.pop("out", None)
        if out is not None:  # an in-place op: its destination's shape does not change
            return out[0] if len(out) == 1 else out
        if method == "__call__" and ufunc.signature is None:
            shape = broadcast_shape([np.shape(x) for x in inputs])
            with np.errstate(all="ignore"):
                small = ufunc(*(_stand_in(x) for x in inputs), **kwargs)
            if isinstance(small, tuple):
                return tuple(dense_like(meta_array(shape, s.dtype), inputs) for s in small)
            return dense_like(meta_array(shape, np.result_type(small)), inputs)
        if method == "__call__" and ufunc is np.matmul and len(inputs) == 2 and not kwargs:
            a, b = (np.asarray(x) if not isinstance(x, np.ndarray) else x for x in inputs)
            return meta_array(_matmul_shape(a, b), np.result_type(np.matmul(_stand_in(a)[..., :1, :1] if a.ndim > 1
                                                                             else _stand_in(a)[:1],
                                                                             _stand_in(b)[..., :1, :1] if b.ndim > 1
                                                                             else _stand_in(b)[:1])))
        if method in ("reduce", "accumulate") and len(inputs) == 1:
            array = inputs[0]
            with np.errstate(all="ignore"):
                small = getattr(ufunc, method)(_stand_in(array, clip=True), **kwargs)
            if method == "accumulate":
                return meta_array(array.shape, small.dtype)
            shape = _reduced_shape(array.shape, kwargs.get("axis", 0), kwargs.get("keepdims", False))
            return meta_array(shape, np.result_type(small))
        with np.errstate(all="ignore"):
            return _metas(getattr(ufunc, method)(*_plain(inputs), **kwargs))

    def __array_function__(self, func, types, args, kwargs):
        if func is np.copyto:  # a write into a meta array: dropped
            return None
        if func in _DATA_DEPENDENT:
            raise NotImplementedError(_NO_NONZERO)
        if func in _BUILT_ON_UFUNCS:  # NumPy's Python code over ufunc reductions: free on meta arrays
            return _metas(super().__array_function__(func, types, args, kwargs))
        with np.errstate(all="ignore"):
            out = _metas(func(*_plain(args), **_plain_kwargs(kwargs)))
        if func in _ELEMENTWISE:
            out = dense_like(out, args)
        elif func in _VIEWS:  # the layout of the same view of the probes
            laid_out_as(out, func(*_probes(args), **{k: _probes(v) for k, v in kwargs.items()}))
        elif func in _RESHAPES and isinstance(out, np.ndarray):
            laid_out_as(out, _reshaped(probe(args[0]) if type(args[0]) is MetaArray else args[0], out.shape,
                                       kwargs.get("order", "C")))
        return out

    def __getitem__(self, index):
        items = index if isinstance(index, tuple) else (index,)
        if any(np.asarray(i).dtype == bool and np.ndim(i) for i in items):
            raise NotImplementedError(_NO_NONZERO)  # a mask's count of True elements is data
        out = _metas(np.ndarray.__getitem__(self, _plain(index)))
        if all(i is None or i is Ellipsis or isinstance(i, (slice, int, np.integer)) for i in items):
            # basic indexing, a view: its layout (an index of every dim taken as a 0-d view)
            laid_out_as(out, probe(self)[items if Ellipsis in items else items + (Ellipsis,)])
            if None in items:  # PyTorch's new dims are unsqueezed ones
                _unsqueeze_new_dims(out, self, items)
        return out

    def _view(self, method, *args, **kwargs):
        """NumPy's view method `method` of this array, laid out as the same view of its probe."""
        return laid_out_as(getattr(np.ndarray, method)(self, *args, **kwargs),
                           getattr(np.ndarray, method)(probe(self), *args, **kwargs))

    def transpose(self, *axes):
        return self._view("transpose", *axes)

    def swapaxes(self, axis1, axis2):
        return self._view("swapaxes", axis1, axis2)

    def squeeze(self, axis=None):
        return self._view("squeeze", axis)

    def diagonal(self, offset=0, axis1=0, axis2=1):
        return self._view("diagonal", offset, axis1, axis2)

    @property
    def T(self):
        return self.transpose()

    @property
    def mT(self):
        return self.swapaxes(-1, -2)

    def reshape(self, *shape, order="C", copy=None):
        out = np.ndarray.reshape(self, *shape, order=order)  # (a view of no data: `copy` changes nothing)
        return laid_out_as(out, _reshaped(probe(self), out.shape, order))

    def ravel(self, order="C"):
        return self.reshape(-1, order=order)

    def __setitem__(self, index, value):
        np.ndarray.__getitem__(self, _plain(index))  # the index's errors; the write is dropped

    def copy(self, order="C"):
        """A new meta array laid out as PyTorch's clone (preserve_format) lays it out."""
        return dense_like(meta_array(self.shape, self.dtype), (self,))

    def astype(self, dtype, order="K", casting="unsafe", subok=True, copy=True):
        if not copy and np.dtype(dtype) == self.dtype:
            return self
        return dense_like(meta_array(self.shape, np.dtype(dtype)), (self,))

    def fill(self, value):
        return None

    def item(self, *args):
        raise RuntimeError("Tensor.item() cannot be called on meta tensors")

    __float__ = __int__ = __index__ = item

    def __bool__(self):
        """False: the shim's checks of values (`if outside.any(): raise ...`) find nothing to
        refuse in a meta array, as PyTorch's meta kernels check no values. A meta tensor's
        own `bool()` raises (Tensor.__bool__ calls item())."""
        return False

    def tolist(self):
        raise NotImplementedError(NO_DATA)

    def __reduce__(self):
        return (meta_array, (self.shape, self.dtype))

    def __deepcopy__(self, memo):
        return self.copy()


def reshapes_as_view(array, shape):
    """Whether the meta array `array` reshaped to `shape` is a view in its layout (where
    PyTorch's reshape copies nothing and its view() is allowed)."""
    return _reshaped(probe(array), shape, "C") is not None


def check_devices(tensors, cpu_scalars=True):
    """PyTorch's error where one op gets tensors on the meta device and on the CPU: the
    device of the first tensor is the expected one; a 0-d CPU tensor goes with either (a
    CPU scalar) unless not `cpu_scalars` (cat and stack take none)."""
    expected = None
    for t in tensors:
        meta = type(t._data) is MetaArray
        if cpu_scalars and not meta and t._data.ndim == 0:
            continue
        if expected is None:
            expected = meta
        elif meta is not expected:
            raise RuntimeError(f"Tensor on device {_name(meta)} is not on the expected device {_name(expected)}!")


def _name(meta):
    return "meta" if meta else "cpu"


# shapes that depend on values: PyTorch's meta kernels refuse them
_DATA_DEPENDENT = frozenset({np.nonzero, np.argwhere, np.flatnonzero, np.unique, np.extract, np.compress})
_NO_NONZERO = (
    "The register_meta function for torch.nonzero() raises unimplemented by default, as a correct data-independent "
    "implementation does not exist. This implementation returns a fake value, assuming all elements of the tensor are "
    "non-zero. To enable this registration, please set 'torch.fx.experimental._config.meta_nonzero_assume_all_nonzero' "
    "to True.")
_BUILT_ON_UFUNCS = frozenset({np.sum, np.mean, np.prod, np.amax, np.amin, np.max, np.min, np.any, np.all, np.std,
                              np.var, np.cumsum, np.cumprod})


# NumPy functions whose result views their operand whatever its strides
_VIEWS = frozenset({np.transpose, np.swapaxes, np.moveaxis, np.rollaxis, np.broadcast_to, np.broadcast_arrays,
                    np.expand_dims, np.squeeze, np.diagonal, np.split, np.array_split, np.atleast_1d, np.atleast_2d,
                    np.atleast_3d})
_RESHAPES = frozenset({np.reshape, np.ravel})
# NumPy functions whose results PyTorch lays out as elementwise results (flip and sort
# keep a transposed input's layout)
_ELEMENTWISE = frozenset({np.where, np.clip, np.flip, np.sort, np.argsort})


def _unsqueeze_new_dims(out, array, items):
    """Set the strides of the dims of `out` (= `array[items]`, a basic index) that its
    Nones make as PyTorch, which unsqueezes before the index's next dim: the extent of
    that dim of `array` (the item size where no dim follows)."""
    spread = array.ndim - sum(1 for i in items if i is not None and i is not Ellipsis)  # the dims `...` stands for
    in_strides, (strides, offset) = layout(array)[0], layout(out)
    strides = list(strides)
    at_in = at_out = 0
    for i in items:
        if i is None:
            strides[at_out] = (array.shape[at_in] * in_strides[at_in]) if at_in < array.ndim else array.itemsize
            at_out += 1
        elif i is Ellipsis:
            at_in, at_out = at_in + spread, at_out + spread
        else:  # a slice keeps its dim, a number drops it
            at_in, at_out = at_in + 1, at_out + isinstance(i, slice)
    set_layout(out, strides, offset)


def _probes(value):
    """`value` with its meta arrays (in tuples and lists too) as their probes."""
    if type(value) is MetaArray:
        return probe(value)
    if isinstance(value, (tuple, list)):
        return type(value)(_probes(v) for v in value)
    return value


def _reshaped(probed, shape, order):
    """The probe `probed` reshaped to `shape` where that is a view, else None (the result
    is a new contiguous array). Computed, not asked of NumPy: its reshape of a probe may
    copy (read) it, and its no-copy reshape lays size-1 dims out otherwise than PyTorch."""
    if not isinstance(probed, np.ndarray) or order not in ("C", "A"):
        return None
    strides = _view_strides(probed.shape, probed.strides, tuple(shape))
    return None if strides is None else np.lib.stride_tricks.as_strided(probed, shape, strides)


def _view_strides(old_shape, old_strides, shape):
    """The strides of `shape` viewing an array of `old_shape` and `old_strides` without a
    copy (PyTorch's computeStride; NumPy's no-copy reshape strides size-1 dims otherwise
    and refuses some views PyTorch takes), or None where no view has that shape. Arrays with no element, and 0-d ones, are left to None:
    their reshape is laid out contiguously."""
    if not old_shape or 0 in old_shape:
        return None
    strides = [0] * len(shape)
    view_d = len(shape) - 1
    chunk_stride, numel, view_numel = old_strides[-1], 1, 1
    for d in range(len(old_shape) - 1, -1, -1):
        numel *= old_shape[d]
        if d == 0 or (old_shape[d - 1] != 1 and old_strides[d - 1] != numel * chunk_stride):
            while view_d >= 0 and (view_numel < numel or shape[view_d] == 1):
                strides[view_d] = view_numel * chunk_stride
                view_numel *= shape[view_d]
                view_d -= 1
            if view_numel != numel:
                return None
            if d > 0:
                chunk_stride, numel, view_numel = old_strides[d - 1], 1, 1
    return strides if view_d == -1 else None


def _plain_kwargs(kwargs):
    return {k: _plain(v) for k, v in kwargs.items()}
