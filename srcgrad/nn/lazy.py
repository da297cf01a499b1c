"""`LazyModuleMixin`, as `torch.nn.modules.lazy`'s: a module whose parameters and
buffers are UninitializedParameter/UninitializedBuffer until its first call, whose
inputs give their shapes.

The first call runs a forward pre-hook that calls `initialize_parameters(*args,
**kwargs)` (each lazy layer's own: it materializes its tensors and runs
`reset_parameters`, drawing from srcgrad's generator as the eager layer does), removes
itself and the load hook, and turns the module into `cls_to_become` (LazyLinear into
Linear). A load_state_dict pre-hook materializes an uninitialized tensor to the shape of
an initialized one being loaded, so the checkpoint of an initialized module loads into
an uninitialized one (the module stays lazy until its first call, as PyTorch's).
"""

import itertools

from ..tensor.grad_mode import no_grad
from .parameter import is_lazy

__all__ = ["LazyModuleMixin"]


class LazyModuleMixin:
    """Mix in before the eager module class; set `cls_to_become` to it and write
    `initialize_parameters(input)`."""

    cls_to_become = None

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._load_hook = self._register_load_state_dict_pre_hook(self._lazy_load_hook)
        self._initialize_hook = self.register_forward_pre_hook(self._infer_parameters, with_kwargs=True)

    def _save_to_state_dict(self, destination, prefix, keep_vars):
        """As a Module's, except that an uninitialized tensor is written itself, not detached."""
        super()._save_to_state_dict(destination, prefix, True)
        if not keep_vars:
            persistent = (k for k, v in self._buffers.items() if k not in self._non_persistent)
            for name in itertools.chain(self._parameters, persistent):
                value = destination.get(prefix + name)
                if value is not None and not is_lazy(value):
                    destination[prefix + name] = value.detach()

    def _lazy_load_hook(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                        error_msgs):
        for name, param in itertools.chain(self._parameters.items(), self._buffers.items()):
            key = prefix + name
            if key in state_dict and param is not None and is_lazy(param) and not is_lazy(state_dict[key]):
                with no_grad():
                    param.materialize(state_dict[key].shape)

    def initialize_parameters(self, *args, **kwargs):
        raise NotImplementedError(f"initialize_parameters is not implemented for {self.__class__.__name__}")

    def has_uninitialized_params(self):
        """Whether one of the module's own parameters or buffers is uninitialized."""
        return any(is_lazy(t) for t in itertools.chain(self._parameters.values(), self._buffers.values()))

    def _infer_parameters(self, module, args, kwargs=None):
        """The forward pre-hook of the first call: shapes from the inputs, then the eager class."""
        module.initialize_parameters(*args, **(kwargs or {}))
        if module.has_uninitialized_params():
            raise RuntimeError(f"module {self._get_name()} has not been fully initialized")
        module._initialize_hook.remove()
        module._load_hook.remove()
        delattr(module, "_initialize_hook")
        delattr(module, "_load_hook")
        if module.cls_to_become is not None:
            module.__class__ = module.cls_to_become

    def _replicate_for_data_parallel(self):
        raise RuntimeError("Modules with uninitialized parameters can't be used with `DataParallel`. Run a dummy "
                           "forward pass to correctly initialize the modules")
