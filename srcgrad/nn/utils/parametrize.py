"""`srcgrad.nn.utils.parametrize`, as `torch.nn.utils.parametrize`: a parameter or
buffer of a module computed from other tensors by modules (parametrizations).

`register_parametrization(module, "weight", p)` moves `module.weight` into
`module.parametrizations.weight.original` (or `original0`, `original1`, ... where `p`'s
`right_inverse` gives several tensors), gives the module a class of its own
(`Parametrized<Class>`) whose property `weight` computes `p(original)` at every read
(once per `cached()` block) and whose setter stores `right_inverse(value)`. The state
dict keys, the parameters' order and the repr are PyTorch's, and the gradient reaches
`original` through the parametrization's own Tensor code.
"""

import collections.abc
import contextlib
import copy
import copyreg

from ...tensor.grad_mode import no_grad
from ...tensor.tensor import Tensor
from ..containers import ModuleDict
from ..modules import Module, ModuleList, Parameter

__all__ = ["cached", "ParametrizationList", "register_parametrization", "is_parametrized", "remove_parametrizations",
           "type_before_parametrizations", "transfer_parametrizations_and_params"]

_cache_depth = 0
_cache = {}


@contextlib.contextmanager
def cached():
    """Inside the block each parametrized tensor is computed once, at its first read."""
    global _cache_depth, _cache
    _cache_depth += 1
    try:
        yield
    finally:
        _cache_depth -= 1
        if not _cache_depth:
            _cache = {}


def _register_parameter_or_buffer(module, name, value):
    if isinstance(value, Parameter):
        module.register_parameter(name, value)
    else:
        module.register_buffer(name, value)


def _set(dest, src):
    """`dest.set_(src)`: dest takes src's values (and shape), keeping its identity."""
    dest._data = src._data


class ParametrizationList(ModuleList):
    """The parametrizations of one tensor, applied in order to `original` (or to
    `original0, original1, ...`); registered as `module.parametrizations[name]`."""

    def __init__(self, modules, original, unsafe=False):
        if len(modules) == 0:
            raise ValueError("ParametrizationList requires one or more modules.")
        super().__init__(modules)
        self.unsafe = unsafe
        original_shape, original_dtype = original.shape, original.dtype
        with no_grad():
            new = original
            for module in reversed(list(self)):
                if hasattr(module, "right_inverse"):
                    try:
                        new = module.right_inverse(new)
                    except NotImplementedError:
                        pass
        if not isinstance(new, (Tensor, collections.abc.Sequence)):
            raise ValueError("'right_inverse' must return a Tensor or a Sequence of tensors (list, tuple...). "
                             f"Got {type(new).__name__}")
        self.is_tensor = isinstance(new, Tensor)
        self.ntensors = 1 if self.is_tensor else len(new)
        if self.is_tensor:
            if original.dtype != new.dtype:
                raise ValueError("When `right_inverse` outputs one tensor, it may not change the dtype.\n"
                                 f"original.dtype: {original.dtype}\nright_inverse(original).dtype: {new.dtype}")
            with no_grad():
                _set(original, new)
            _register_parameter_or_buffer(self, "original", original)
        else:
            for i, tensor in enumerate(new):
                if not isinstance(tensor, Tensor):
                    raise ValueError("'right_inverse' must return a Tensor or a Sequence of tensors (list, tuple...). "
                                     f"Got element {i} of the sequence with type {type(tensor).__name__}.")
                if isinstance(original, Parameter):
                    tensor = Parameter(tensor, original.requires_grad)
                tensor.requires_grad_(original.requires_grad)
                _register_parameter_or_buffer(self, f"original{i}", tensor)
        if not self.unsafe:
            out = self()
            if not isinstance(out, Tensor):
                raise ValueError(f"A parametrization must return a tensor. Got {type(out).__name__}.")
            if out.dtype != original_dtype:
                raise ValueError("Registering a parametrization may not change the dtype of the tensor, unless "
                                 f"`unsafe` flag is enabled.\nunparametrized dtype: {original_dtype}\n"
                                 f"parametrized dtype: {out.dtype}")
            if out.shape != original_shape:
                raise ValueError("Registering a parametrization may not change the shape of the tensor, unless "
                                 f"`unsafe` flag is enabled.\nunparametrized shape: {original_shape}\n"
                                 f"parametrized shape: {out.shape}")

    def right_inverse(self, value):
        """Store the originals that give `value`: each parametrization's right_inverse,
        last to first."""
        with no_grad():
            for module in reversed(list(self)):
                if not hasattr(module, "right_inverse"):
                    raise RuntimeError(f"parametrization {type(module).__name__} does not implement right_inverse.")
                value = module.right_inverse(value)
            if self.is_tensor:
                if not isinstance(value, Tensor):
                    raise ValueError(f"`right_inverse` should return a tensor. Got {type(value).__name__}")
                if value.dtype != self.original.dtype:
                    raise ValueError(f"The tensor returned by `right_inverse` has dtype {value.dtype} while `original` "
                                     f"has dtype {self.original.dtype}")
                _set(self.original, value)
                return
            if not isinstance(value, collections.abc.Sequence):
                raise ValueError(f"'right_inverse' must return a sequence of tensors. Got {type(value).__name__}.")
            if len(value) != self.ntensors:
                raise ValueError(f"'right_inverse' must return a sequence of tensors of length {self.ntensors}. "
                                 f"Got a sequence of length {len(value)}.")
            for i, tensor in enumerate(value):
                original_i = getattr(self, f"original{i}")
                if not isinstance(tensor, Tensor):
                    raise ValueError("'right_inverse' must return a sequence of tensors or reference-type opaques. "
                                     f"Got element {i} of type {type(tensor).__name__}.")
                if original_i.dtype != tensor.dtype:
                    raise ValueError(f"Tensor {i} returned by `right_inverse` has dtype {tensor.dtype} while "
                                     f"`original{i}` has dtype {original_i.dtype}")
                _set(original_i, tensor)

    def forward(self):
        if self.is_tensor:
            x = self[0](self.original)
        else:
            x = self[0](*(getattr(self, f"original{i}") for i in range(self.ntensors)))
        for module in list(self)[1:]:
            x = module(x)
        return x


def _deepcopy(self, memo):
    """A parametrized module's deepcopy: its __dict__ copied (its class refuses pickling)."""
    found = memo.get(id(self))
    if found is not None:
        return found
    replica = self.__new__(self.__class__)
    memo[id(self)] = replica
    replica.__dict__ = copy.deepcopy(self.__dict__, memo)
    for slot in copyreg._slotnames(self.__class__):
        if hasattr(self, slot):
            setattr(replica, slot, copy.deepcopy(getattr(self, slot), memo))
    return replica


def _refuse_pickling(self):
    raise RuntimeError("Serialization of parametrized modules is only supported through state_dict(). See:\n"
                       "https://pytorch.org/tutorials/beginner/saving_loading_models.html"
                       "#saving-loading-a-general-checkpoint-for-inference-and-or-resuming-training")


def _inject_new_class(module):
    cls = module.__class__
    namespace = {"__getstate__": _refuse_pickling}
    if not hasattr(cls, "__deepcopy__"):
        namespace["__deepcopy__"] = _deepcopy
    module.__class__ = type(f"Parametrized{cls.__name__}", (cls,), namespace)


def _inject_property(module, tensor_name):
    if hasattr(module, tensor_name):
        raise AssertionError(f"Module already has an attribute named '{tensor_name}'")

    def get_parametrized(self):
        parametrization = self.parametrizations[tensor_name]
        if not _cache_depth:
            return parametrization()
        key = (id(self), tensor_name)
        tensor = _cache.get(key)
        if tensor is None:
            tensor = _cache[key] = parametrization()
        return tensor

    def set_original(self, value):
        self.parametrizations[tensor_name].right_inverse(value)

    setattr(module.__class__, tensor_name, property(get_parametrized, set_original))


def _compare_dtype_and_shape(expected, got, message):
    """ValueError(message(what, expected's, got's)) at the first of dtype, shape that differs."""
    for what in ("dtype", "shape"):
        if getattr(expected, what) != getattr(got, what):
            raise ValueError(message(what, getattr(expected, what), getattr(got, what)))


def _check_stacked(parametrization, current, tensor_name):
    """PyTorch's checks of a parametrization added on top of others (safe mode)."""
    out = parametrization(current)
    if not isinstance(out, Tensor):
        raise ValueError(f"A parametrization must return a tensor. Got {type(out).__name__}.")
    _compare_dtype_and_shape(current, out, lambda what, mine, theirs: (
        f"Registering a parametrization may not change the {what} of the tensor, unless the `unsafe` flag is "
        f"enabled.\nmodule.{tensor_name}.{what}: {mine}\nparametrization(module.{tensor_name}).{what}: {theirs}"))
    if hasattr(parametrization, "right_inverse"):
        try:
            back = parametrization.right_inverse(out)
        except NotImplementedError:
            return
        if not isinstance(back, Tensor):
            raise ValueError(f"parametrization.right_inverse must return a tensor. Got: {type(back).__name__}")
        _compare_dtype_and_shape(current, back, lambda what, mine, theirs: (
            f"The tensor returned by parametrization.right_inverse must have the same {what} as module.{tensor_name}, "
            f"unless the `unsafe` flag is enabled.\nmodule.{tensor_name}.{what}: {mine}\nreturned {what}: {theirs}"))


def register_parametrization(module, tensor_name, parametrization, *, unsafe=False):
    """Parametrize `module.<tensor_name>` by `parametrization` (a Module), on top of the
    parametrizations it already has; `unsafe=True` lets it change the shape or dtype."""
    parametrization.train(module.training)
    if is_parametrized(module, tensor_name):
        if not unsafe:
            _check_stacked(parametrization, getattr(module, tensor_name), tensor_name)
        module.parametrizations[tensor_name].append(parametrization)
        module.parametrizations[tensor_name].unsafe |= unsafe
    elif tensor_name in module._buffers or tensor_name in module._parameters:
        original = getattr(module, tensor_name)
        parametrizations = ParametrizationList([parametrization], original, unsafe=unsafe)
        delattr(module, tensor_name)
        if not is_parametrized(module):
            _inject_new_class(module)
            module.parametrizations = ModuleDict()
        _inject_property(module, tensor_name)
        module.parametrizations[tensor_name] = parametrizations
    else:
        raise ValueError(f"Module '{module}' does not have a parameter, a buffer, or a parametrized element with name "
                         f"'{tensor_name}'")
    return module


def is_parametrized(module, tensor_name=None):
    """Whether `module` has a parametrization (on `tensor_name`, when given)."""
    parametrizations = getattr(module, "parametrizations", None)
    if not isinstance(parametrizations, ModuleDict):
        return False
    return len(parametrizations) > 0 if tensor_name is None else tensor_name in parametrizations


def remove_parametrizations(module, tensor_name, leave_parametrized=True):
    """Undo the parametrizations of `tensor_name`: it becomes a parameter (or buffer)
    again, holding its current parametrized value (`leave_parametrized`) or its
    original; the module gets its own class back when nothing is left parametrized."""
    if not is_parametrized(module, tensor_name):
        raise ValueError(f"Module {module} does not have a parametrization on {tensor_name}")
    parametrizations = module.parametrizations[tensor_name]
    if parametrizations.is_tensor:
        original = parametrizations.original
        if leave_parametrized:
            with no_grad():
                _set(original, getattr(module, tensor_name))
    elif leave_parametrized:
        value = getattr(module, tensor_name)
        original = Parameter(value) if value.requires_grad else value
    else:
        raise ValueError("Cannot leave unparametrized (`leave_parametrized=False`) a tensor that is parametrized in "
                         "terms of a sequence of tensors.")
    delattr(module.__class__, tensor_name)
    del module.parametrizations[tensor_name]
    _register_parameter_or_buffer(module, tensor_name, original)
    if not is_parametrized(module):
        delattr(module, "parametrizations")
        module.__class__ = module.__class__.__bases__[0]
    return module


def type_before_parametrizations(module):
    """The class `module` had before it was parametrized."""
    return module.__class__.__bases__[0] if is_parametrized(module) else type(module)


def transfer_parametrizations_and_params(from_module, to_module, tensor_name=None):
    """Register on `to_module` the parametrizations of `from_module` (all, or those of
    `tensor_name`), sharing their originals."""
    if not is_parametrized(from_module):
        return to_module
    names = list(from_module.parametrizations) if tensor_name is None else [tensor_name]
    for name in names:
        if not hasattr(to_module, name):
            setattr(to_module, name, Parameter(getattr(from_module, name)))
        for parametrization in from_module.parametrizations[name]:
            register_parametrization(to_module, name, parametrization)
        source, target = from_module.parametrizations[name], to_module.parametrizations[name]
        if hasattr(source, "original"):
            target.original = source.original
        else:
            index = 0
            while hasattr(source, f"original{index}"):
                setattr(target, f"original{index}", getattr(source, f"original{index}"))
                index += 1
    return to_module
