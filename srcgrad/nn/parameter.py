"""`srcgrad.nn.parameter`, as `torch.nn.parameter`: Parameter, and the tensors of a lazy
module before its first call, UninitializedParameter and UninitializedBuffer.

An uninitialized tensor holds an empty (0,) array of its dtype and no shape: `shape`
raises PyTorch's RuntimeError, every other Tensor method but PyTorch's allowed ones
(`size`, `is_floating_point`, `is_complex`, the dtype and device conversions, `to`,
`get_device`) raises its ValueError, and so does any operation that reads its values
(`_data` refuses). `materialize(shape)` gives it storage of that shape and turns it into
the class it stands for (Parameter, Tensor), in place.
"""

import types

import numpy as np

from ..tensor import devices, dtypes
from ..tensor.tensor import Tensor
from .modules import Parameter

__all__ = ["Parameter", "UninitializedParameter", "UninitializedBuffer", "is_lazy"]

_STORAGE = Tensor._data  # the slot holding every tensor's array, read past the subclass's `_data`

_CONVERSIONS = ("half", "float", "double", "char", "short", "int", "long", "cuda", "cpu", "to")
_ALLOWED = frozenset({"size", "is_floating_point", "is_complex", "get_device", "materialize", "share_memory_",
                      *_CONVERSIONS})
_TENSOR_METHODS = frozenset(
    name for name in dir(Tensor)
    if not name.startswith("_") and isinstance(getattr(Tensor, name, None), types.FunctionType)
)

_SHAPE_REFUSED = ("Can't access the shape of an uninitialized parameter or buffer. This error usually happens in "
                  "`load_state_dict` when trying to load an uninitialized parameter into an initialized one. Call "
                  "`forward` to initialize the parameters before accessing their attributes.")


def _refused_use(cls, what):
    return ValueError(
        f"Attempted to use an uninitialized parameter in {what}. This error happens when you are using a "
        f"`LazyModule` or explicitly manipulating `srcgrad.nn.parameter.{cls.__name__}` objects. When using "
        "LazyModules Call `forward` with a dummy batch to initialize the parameters before calling srcgrad functions"
    )


def _refusing(cls, name):
    def refused(*args, **kwargs):
        raise _refused_use(cls, f"<method '{name}' of 'srcgrad.Tensor' objects>")
    return refused


class UninitializedTensorMixin:
    """What UninitializedParameter and UninitializedBuffer share: no shape, no values,
    `materialize`."""

    __slots__ = ()
    cls_to_become = None

    def __getattribute__(self, name):
        if name in _TENSOR_METHODS and name not in _ALLOWED:
            return _refusing(type(self), name)
        return object.__getattribute__(self, name)

    @property
    def _data(self):
        raise _refused_use(type(self), "an operation")

    @_data.setter
    def _data(self, array):
        _STORAGE.__set__(self, array)

    def _placeholder(self):
        """A plain leaf over the empty storage, for the methods PyTorch allows."""
        return Tensor._make(_STORAGE.__get__(self), self._requires_grad)

    def materialize(self, shape, device=None, dtype=None):
        """Storage of `shape` (uninitialized values) on `device` in `dtype` (default this
        tensor's), and the class this one stands for."""
        devices.allocated_on(device, "empty")
        np_dtype = _STORAGE.__get__(self).dtype if dtype is None else dtypes.as_dtype(dtype).numpy
        _STORAGE.__set__(self, np.empty(tuple(shape), dtype=np_dtype))
        self.__class__ = self.cls_to_become

    @property
    def shape(self):
        raise RuntimeError(_SHAPE_REFUSED)

    def share_memory_(self):
        raise RuntimeError("Can't share memory on an uninitialized parameter or buffer. Call `forward` to initialize "
                           "the parameters before calling `module.share_memory()`.")

    def size(self, dim=None):
        return self._placeholder().size(dim)

    def is_floating_point(self):
        return _STORAGE.__get__(self).dtype.kind == "f"

    def is_complex(self):
        return _STORAGE.__get__(self).dtype.kind == "c"

    def get_device(self):
        return -1

    @property
    def dtype(self):
        return dtypes.of(_STORAGE.__get__(self).dtype)

    @property
    def ndim(self):
        return 1

    @property
    def data(self):
        return Tensor._make(_STORAGE.__get__(self))

    def __repr__(self):
        return f"<{type(self).__name__}>"

    __str__ = __repr__

    def __reduce_ex__(self, protocol):
        return type(self), (self._requires_grad,)

    def __deepcopy__(self, memo):
        if id(self) not in memo:
            memo[id(self)] = type(self)(self._requires_grad, None, self.dtype)
        return memo[id(self)]


def _conversion(name):
    def convert(self, *args, **kwargs):
        """As PyTorch: the same tensor where nothing changes, else a plain converted one."""
        placeholder = self._placeholder()
        converted = getattr(placeholder, name)(*args, **kwargs)
        return self if converted is placeholder else converted
    convert.__name__ = name
    return convert


for _name in _CONVERSIONS:
    setattr(UninitializedTensorMixin, _name, _conversion(_name))

_OPERATORS = {"__add__": "add", "__radd__": "add", "__sub__": "sub", "__mul__": "mul", "__rmul__": "mul",
              "__truediv__": "div", "__matmul__": "matmul", "__neg__": "neg", "__abs__": "abs", "__lt__": "lt",
              "__le__": "le", "__gt__": "gt", "__ge__": "ge"}  # the method each names in PyTorch's refusal


def _refused_operator(method):
    def refused(self, *args):
        raise _refused_use(type(self), f"<method '{method}' of 'srcgrad.Tensor' objects>")
    return refused


for _name, _method in _OPERATORS.items():
    setattr(UninitializedTensorMixin, _name, _refused_operator(_method))


def _empty_storage(device, dtype):
    devices.allocated_on(device, "empty")
    return np.empty((0,), dtype=(dtypes.DEFAULT_FLOAT if dtype is None else dtypes.as_dtype(dtype)).numpy)


class UninitializedParameter(UninitializedTensorMixin, Parameter):
    """A lazy module's Parameter before its first call; `materialize` makes it a
    Parameter."""

    __slots__ = ()
    cls_to_become = Parameter

    def __init__(self, requires_grad=True, device=None, dtype=None):
        super().__init__(Tensor._make(_empty_storage(device, dtype)), requires_grad=False)
        self._requires_grad = bool(requires_grad)


class UninitializedBuffer(UninitializedTensorMixin, Tensor):
    """A lazy module's buffer before its first call; `materialize` makes it a Tensor."""

    __slots__ = ()
    cls_to_become = Tensor

    def __init__(self, requires_grad=False, device=None, dtype=None, persistent=True):
        Tensor.__init__(self)
        _STORAGE.__set__(self, _empty_storage(device, dtype))
        self._requires_grad = bool(requires_grad)


def is_lazy(param):
    """Whether `param` is an UninitializedParameter or UninitializedBuffer."""
    return isinstance(param, UninitializedTensorMixin)
