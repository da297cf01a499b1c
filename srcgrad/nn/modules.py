"""`srcgrad.nn` modules, as in `torch.nn`: Module and Parameter, the containers
Sequential and ModuleList, Linear, Bilinear, Flatten, Unflatten, Identity (the
activations are in activations.py, the losses in losses.py, ModuleDict and
ParameterList in containers.py, the other layers in a file per kind).

A Module keeps its Parameters, buffers and sub-modules in the order they were
assigned (`_parameters`, `_buffers`, `_modules`); `parameters()`, `named_parameters()`,
`state_dict()` and the repr follow that order, sub-modules after a module's own
parameters, as in PyTorch. Calling a module runs its `forward` (and its hooks:
module_hooks.py; its state_dict and
load_state_dict: module_state.py). Layers, activations
and losses are Tensor code over `srcgrad.nn.functional`, so their graphs are built
from the same derivative rules as everything else. Random initial values come from
srcgrad's generator (`srcgrad.manual_seed`), not PyTorch's stream: the same shapes,
bounds and distribution, other numbers.
"""

import collections
import itertools
import math

import numpy as np

from ..tensor import creation, devices, dtypes
from ..tensor.grad_mode import no_grad
from ..tensor.versions import counter_of
from ..tensor.tensor import Tensor
from . import functional as F
from .module_devices import ModuleDevices
from .module_hooks import ModuleHooks
from .module_state import ModuleState

_STORAGE = Tensor._data  # the slot that holds every tensor's array

__all__ = ["Parameter", "Module", "Sequential", "ModuleList", "Linear", "Bilinear", "Flatten", "Unflatten",
           "Identity"]


class Parameter(Tensor):
    """A leaf tensor that a Module registers when assigned to one of its attributes.
    `Parameter(t)` shares `t`'s memory (and version counter), as in PyTorch; operations
    on it give plain Tensors, and so does its `.grad`."""

    __slots__ = ()

    def __init__(self, data=None, requires_grad=True):
        if data is None:
            data = Tensor._make(np.zeros((0,), dtype=dtypes.DEFAULT_FLOAT.numpy))
        if not isinstance(data, Tensor):
            raise TypeError(f"Parameter expects a Tensor, not {type(data).__name__}")
        self._data = data._data
        self._requires_grad = False
        self._grad = self._grad_fn = self._accumulator = None
        self._retains_grad = False
        self._counter = counter_of(data)
        if requires_grad:
            self.requires_grad_(True)

    def __repr__(self):
        return "Parameter containing:\n" + super().__repr__()

    __str__ = __repr__

    def __reduce_ex__(self, protocol):
        """Pickled as a Parameter (its values and `requires_grad`), as PyTorch pickles one."""
        return _rebuilt_parameter, (np.array(self._data), self._requires_grad)

    def __deepcopy__(self, memo):
        """A new Parameter of the same values and `requires_grad`, without `.grad`, as
        PyTorch's (`copy.deepcopy(model)` keeps its parameters Parameters)."""
        copied = memo[id(self)] = Parameter(Tensor._make(np.array(self._data)), self._requires_grad)
        return copied


def _rebuilt_parameter(data, requires_grad):
    """What `pickle` makes of a pickled Parameter."""
    return Parameter(Tensor._make(data), requires_grad)


def _refuse_attribute(module, name):
    """PyTorch's KeyError for a new parameter named as an attribute the module has
    (a parametrized tensor's property, a method)."""
    if name not in module._parameters and hasattr(module, name):
        raise KeyError(f"attribute '{name}' already exists")


class Module(ModuleHooks, ModuleState, ModuleDevices):
    """Base class of every layer and model: subclass it, assign Parameters and modules
    in `__init__` (after `super().__init__()`), and write `forward`."""

    def __init__(self):
        self._init_hooks()
        self._init_state_hooks()
        object.__setattr__(self, "training", True)
        object.__setattr__(self, "_parameters", {})
        object.__setattr__(self, "_buffers", {})
        object.__setattr__(self, "_non_persistent", set())
        object.__setattr__(self, "_modules", {})

    # --- attributes --------------------------------------------------------------------

    def __setattr__(self, name, value):
        tables = self.__dict__
        params, modules = tables.get("_parameters"), tables.get("_modules")
        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            self._forget(name, keep="_parameters")  # a replaced parameter keeps its place
            _refuse_attribute(self, name)
            params[name] = value
        elif isinstance(value, Module):
            if modules is None:
                raise AttributeError("cannot assign module before Module.__init__() call")
            self._forget(name, keep="_modules")  # a replaced module keeps its place
            modules[name] = value
        elif params is not None and name in params:
            if value is not None:
                shown = dtypes.legacy_type_name(value._data.dtype) if isinstance(value, Tensor) else type(value).__name__
                raise TypeError(
                    f"cannot assign '{shown}' as parameter '{name}' (srcgrad.nn.Parameter or None expected)"
                )
            params[name] = None
        elif modules is not None and name in modules:
            if value is not None:
                raise TypeError(
                    f"cannot assign '{type(value).__name__}' as child module '{name}' (srcgrad.nn.Module or None expected)"
                )
            modules[name] = None
        elif tables.get("_buffers") is not None and name in self._buffers:
            if value is not None and not isinstance(value, Tensor):
                raise TypeError(f"cannot assign '{type(value).__name__}' as buffer '{name}' (srcgrad.Tensor or None expected)")
            self._buffers[name] = value
        else:
            object.__setattr__(self, name, value)

    def _forget(self, name, keep=None):
        """Drop `name` from the instance and from every table but `keep`."""
        self.__dict__.pop(name, None)
        for table in ("_parameters", "_buffers", "_modules"):
            if table != keep:
                self.__dict__[table].pop(name, None)

    def __getattr__(self, name):  # only where ordinary lookup failed
        tables = self.__dict__
        for table in ("_parameters", "_buffers", "_modules"):
            found = tables.get(table)
            if found is not None and name in found:
                return found[name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __delattr__(self, name):
        for table in ("_parameters", "_buffers", "_modules"):
            if name in self.__dict__.get(table, ()):
                del self.__dict__[table][name]
                return
        object.__delattr__(self, name)

    def register_parameter(self, name, param):
        if param is not None and not isinstance(param, Parameter):
            raise TypeError(f"cannot assign '{type(param).__name__}' object to parameter '{name}' "
                            "(srcgrad.nn.Parameter or None required)")
        _refuse_attribute(self, name)
        self._forget(name, keep="_parameters")
        self._parameters[name] = param

    def register_buffer(self, name, tensor, persistent=True):
        self._forget(name, keep="_buffers")
        self._buffers[name] = tensor
        if not persistent:
            self._non_persistent.add(name)

    def add_module(self, name, module):
        if module is not None and not isinstance(module, Module):
            raise TypeError(f"{type(module).__name__} is not a Module subclass")
        self._forget(name, keep="_modules")
        self._modules[name] = module

    register_module = add_module

    # --- calling -----------------------------------------------------------------------

    def __call__(self, *args, **kwargs):
        if self._forward_pre_hooks or self._forward_hooks or self._backward_hooks or self._backward_pre_hooks:
            return self._call_with_hooks(args, kwargs)
        return self.forward(*args, **kwargs)

    def forward(self, *args, **kwargs):
        raise NotImplementedError(f'Module [{type(self).__name__}] is missing the required "forward" function')

    # --- walking -----------------------------------------------------------------------

    def named_modules(self, memo=None, prefix="", remove_duplicate=True):
        if memo is None:
            memo = set()
        if remove_duplicate:
            if id(self) in memo:
                return
            memo.add(id(self))
        yield prefix, self
        for name, module in self._modules.items():
            if module is not None:
                yield from module.named_modules(memo, f"{prefix}.{name}" if prefix else name, remove_duplicate)

    def modules(self):
        for _, module in self.named_modules():
            yield module

    def named_children(self):
        seen = set()
        for name, module in self._modules.items():
            if module is not None and id(module) not in seen:
                seen.add(id(module))
                yield name, module

    def children(self):
        for _, module in self.named_children():
            yield module

    def _named(self, table, prefix, recurse, remove_duplicate=True):
        seen = set()
        owners = self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate) if recurse else [(prefix, self)]
        for owner_name, owner in owners:
            for name, value in getattr(owner, table).items():
                if value is None or (remove_duplicate and id(value) in seen):
                    continue
                seen.add(id(value))
                yield (f"{owner_name}.{name}" if owner_name else name), value

    def named_parameters(self, prefix="", recurse=True, remove_duplicate=True):
        yield from self._named("_parameters", prefix, recurse, remove_duplicate)

    def parameters(self, recurse=True):
        for _, param in self.named_parameters(recurse=recurse):
            yield param

    def named_buffers(self, prefix="", recurse=True, remove_duplicate=True):
        yield from self._named("_buffers", prefix, recurse, remove_duplicate)

    def buffers(self, recurse=True):
        for _, buffer in self.named_buffers(recurse=recurse):
            yield buffer

    def apply(self, fn):
        for module in self.children():
            module.apply(fn)
        fn(self)
        return self

    # --- modes and gradients -----------------------------------------------------------

    def train(self, mode=True):
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        for module in self.modules():
            object.__setattr__(module, "training", mode)
        return self

    def eval(self):
        return self.train(False)

    def requires_grad_(self, requires_grad=True):
        for param in self.parameters():
            param.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none=True):
        for param in self.parameters():
            if param.grad is not None:
                if set_to_none:
                    param.grad = None
                else:
                    param.grad.zero_()

    def get_submodule(self, target):
        """The sub-module at the dotted path `target` ('' is the module itself)."""
        module = self
        for name in target.split(".") if target else ():
            if name not in module._modules:
                if hasattr(module, name):
                    raise AttributeError(f"`{name}` is not an nn.Module")
                raise AttributeError(f"{module._get_name()} has no attribute `{name}`")
            module = module._modules[name]
        return module

    def _get_leaf(self, target, table, kind):
        path, _, name = target.rpartition(".")
        module = self.get_submodule(path)
        if not hasattr(module, name):
            raise AttributeError(f"{module._get_name()} has no attribute `{name}`")
        if name not in getattr(module, table):
            raise AttributeError(f"`{name}` is not {kind}")
        return getattr(module, table)[name]

    def get_parameter(self, target):
        """The Parameter at the dotted path `target` (`'0.weight'`)."""
        return self._get_leaf(target, "_parameters", "an nn.Parameter")

    def get_buffer(self, target):
        """The buffer at the dotted path `target` (`'1.running_mean'`)."""
        return self._get_leaf(target, "_buffers", "a buffer")

    # --- dtypes ------------------------------------------------------------------------

    def double(self):
        return self.to(dtypes.as_dtype("float64"))

    def half(self):
        return self.to(dtypes.as_dtype("float16"))

    def type(self, dst_type):
        return self.to(dst_type)

    def cpu(self):
        return self

    def cuda(self, device=None):
        raise AssertionError("Torch not compiled with CUDA enabled")

    def float(self):
        return self.to(dtypes.as_dtype("float32"))

    def _convert(self, np_dtype):
        for tensor in itertools.chain(self.parameters(), self.buffers()):
            data = _STORAGE.__get__(tensor)  # the slot itself: an uninitialized parameter refuses `_data`
            if data.dtype.kind == "f" and data.dtype != np_dtype:
                _STORAGE.__set__(tensor, data.astype(np_dtype))
                if tensor._grad is not None:
                    tensor._grad._data = tensor._grad._data.astype(np_dtype)

    # --- printing ------------------------------------------------------------------------

    def extra_repr(self):
        return ""

    def _get_name(self):
        return type(self).__name__

    def __repr__(self):
        extra = self.extra_repr()
        lines = extra.split("\n") if extra else []
        for name, module in self._modules.items():
            shown = repr(module).replace("\n", "\n  ")
            lines.append(f"({name}): {shown}")
        text = self._get_name() + "("
        if lines:
            if len(lines) == 1 and not self._modules:
                text += lines[0]
            else:
                text += "\n  " + "\n  ".join(lines) + "\n"
        return text + ")"


# --- containers ------------------------------------------------------------------------------


class _Numbered(Module):
    """A container of modules named "0", "1", ... in the order they were added."""

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def append(self, module):
        self.add_module(str(len(self)), module)
        return self

    def __setitem__(self, index, module):
        """Replace the module at `index` (keeping its name and place): `model[2] = nn.Linear(4, 10)`."""
        setattr(self, list(self._modules)[_index(index, len(self))], module)


class Sequential(_Numbered):
    """Modules run in order, each on the previous one's output; `Sequential(OrderedDict)`
    names them, otherwise they are "0", "1", ...; indexing gives a module, or a
    Sequential for a slice."""

    def __init__(self, *args):
        super().__init__()
        if len(args) == 1 and isinstance(args[0], collections.OrderedDict):
            for name, module in args[0].items():
                self.add_module(name, module)
        else:
            for module in args:
                self.append(module)

    def __getitem__(self, index):
        items = list(self._modules.items())
        if isinstance(index, slice):
            return Sequential(collections.OrderedDict(items[index]))
        return items[_index(index, len(items))][1]

    def forward(self, input):
        for module in self:
            input = module(input)
        return input


class ModuleList(_Numbered):
    """A list of modules whose parameters the owning module registers."""

    def __init__(self, modules=None):
        super().__init__()
        self.extend(modules or ())

    def __getitem__(self, index):
        items = list(self._modules.values())
        if isinstance(index, slice):
            return ModuleList(items[index])
        return items[_index(index, len(items))]

    def extend(self, modules):
        for module in modules:
            self.append(module)
        return self


def _index(index, length):
    if not -length <= index < length:
        raise IndexError(f"index {index} is out of range")
    return index % length


# --- layers ----------------------------------------------------------------------------------


def _weight_and_bias(module, shape, bias, dtype):
    """A weight of `shape` and a bias of shape[0] (or None) as Parameters of `module`,
    then its reset_parameters(); PyTorch's errors for a float or negative size."""
    np_dtype = (dtypes.DEFAULT_FLOAT if dtype is None else dtypes.as_dtype(dtype)).numpy
    shape = creation.size_argument(shape, "empty")
    module.weight = Parameter(Tensor._make(np.empty(shape, dtype=np_dtype)))
    if bias:
        module.bias = Parameter(Tensor._make(np.empty((shape[0],), dtype=np_dtype)))
    else:
        module.register_parameter("bias", None)
    module.reset_parameters()


def _uniform_weight_and_bias(module, fan_in):
    """Weight and bias drawn uniformly from +-1/sqrt(fan_in) (0 for no inputs), PyTorch's defaults."""
    bound = 1.0 / math.sqrt(fan_in) if fan_in > 0 else 0.0
    with no_grad():
        module.weight.uniform_(-bound, bound)
        if module.bias is not None:
            module.bias.uniform_(-bound, bound)


class Linear(Module):
    """`y = x @ weight.T + bias`; weight (out_features, in_features) and bias drawn
    uniformly from (-1/sqrt(in_features), 1/sqrt(in_features)), as PyTorch's defaults
    give them."""

    def __init__(self, in_features, out_features, bias=True, device=None, dtype=None):
        devices.allocated_on(device, "empty")
        super().__init__()
        self.in_features, self.out_features = in_features, out_features
        _weight_and_bias(self, (out_features, in_features), bias, dtype)

    def reset_parameters(self):
        _uniform_weight_and_bias(self, self.in_features)

    def forward(self, input):
        return F.linear(input, self.weight, self.bias)

    def extra_repr(self):
        return f"in_features={self.in_features}, out_features={self.out_features}, bias={self.bias is not None}"


class Flatten(Module):
    def __init__(self, start_dim=1, end_dim=-1):
        super().__init__()
        self.start_dim, self.end_dim = start_dim, end_dim

    def forward(self, input):
        return input.flatten(self.start_dim, self.end_dim)

    def extra_repr(self):
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"


class Identity(Module):
    def __init__(self, *args, **kwargs):
        super().__init__()

    def forward(self, input):
        return input


class Unflatten(Module):
    """Splits dim `dim` into `unflattened_size` (one entry may be -1)."""

    def __init__(self, dim, unflattened_size):
        super().__init__()
        self.dim, self.unflattened_size = dim, unflattened_size

    def forward(self, input):
        shape = input._data.shape
        axis = self.dim % len(shape) if shape else 0
        return input.reshape(*shape[:axis], *self.unflattened_size, *shape[axis + 1:])

    def extra_repr(self):
        return f"dim={self.dim}, unflattened_size={self.unflattened_size}"


class Bilinear(Module):
    """`y = x1 @ weight[k] @ x2 + bias[k]`; weight (out_features, in1_features,
    in2_features) and bias uniform in +-1/sqrt(in1_features), as PyTorch's."""

    def __init__(self, in1_features, in2_features, out_features, bias=True, device=None, dtype=None):
        devices.allocated_on(device, "empty")
        super().__init__()
        self.in1_features, self.in2_features, self.out_features = in1_features, in2_features, out_features
        _weight_and_bias(self, (out_features, in1_features, in2_features), bias, dtype)

    def reset_parameters(self):
        _uniform_weight_and_bias(self, self.in1_features)

    def forward(self, input1, input2):
        return F.bilinear(input1, input2, self.weight, self.bias)

    def extra_repr(self):
        return (f"in1_features={self.in1_features}, in2_features={self.in2_features}, "
                f"out_features={self.out_features}, bias={self.bias is not None}")
