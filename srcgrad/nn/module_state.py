"""A Module's state as PyTorch's: `state_dict` (parameters and persistent buffers by
dotted name, each module writing its own through `_save_to_state_dict` and then its
children's), `load_state_dict` (each module reading its own keys through
`_load_from_state_dict`, then its children's), and the hooks around both, called
with PyTorch's arguments and in its order:

- state_dict pre-hooks `hook(module, prefix, keep_vars)` before a module writes;
- state_dict post-hooks `hook(module, state_dict, prefix, local_metadata)` after its
  children wrote (`_register_state_dict_hook`'s may return a new dict; the public
  `register_state_dict_post_hook`'s must return None);
- load pre-hooks `hook(module, state_dict, prefix, local_metadata, strict,
  missing_keys, unexpected_keys, error_msgs)` before a module reads (the private
  `_register_load_state_dict_pre_hook` leaves `module` out unless `with_module`); they
  may rewrite the (copied) state_dict;
- load post-hooks `hook(module, incompatible_keys)` after a module and its children
  read; they may edit the key lists in place and must return None.
"""

import collections
import itertools
import weakref

import numpy as np

from ..tensor.grad_mode import no_grad
from ..tensor.tensor import Tensor
from ..utils.hooks import RemovableHandle

__all__ = ["ModuleState"]

_TABLES = ("_state_dict_pre_hooks", "_state_dict_hooks", "_load_state_dict_pre_hooks", "_load_state_dict_post_hooks")


class _IncompatibleKeys(collections.namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    """What `load_state_dict` returns; it prints as PyTorch's does when both are empty."""

    __slots__ = ()

    def __repr__(self):
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return f"_IncompatibleKeys(missing_keys={self.missing_keys}, unexpected_keys={self.unexpected_keys})"

    __str__ = __repr__


class _WrappedHook:
    """A load pre-hook, called with its module (held weakly) first when `module` is given."""

    def __init__(self, hook, module=None):
        self.hook = hook
        self.module = None if module is None else weakref.ref(module)

    def __call__(self, *args):
        if self.module is None:
            return self.hook(*args)
        module = self.module()
        if module is None:
            raise RuntimeError("You are trying to call the hook of a dead Module!")
        return self.hook(module, *args)


class ModuleState:
    """state_dict, load_state_dict and their hooks, for Module."""

    _version = 1

    def _init_state_hooks(self):
        for name in _TABLES:
            object.__setattr__(self, name, collections.OrderedDict())

    # --- hooks ---------------------------------------------------------------------------

    def register_state_dict_pre_hook(self, hook):
        """`hook(module, prefix, keep_vars)` before `module` writes its entries."""
        return _stored(self._state_dict_pre_hooks, hook)

    def _register_state_dict_hook(self, hook):
        """`hook(module, state_dict, prefix, local_metadata)` after `module` and its
        children wrote; what it returns (not None) replaces the state_dict."""
        if getattr(hook, "_from_public_api", False):
            raise RuntimeError("Cannot register the same function as the state dict post hook that was previously "
                               "registered via register_state_dict_post_hook")
        return _stored(self._state_dict_hooks, hook)

    def register_state_dict_post_hook(self, hook):
        """As `_register_state_dict_hook`, but the hook must return None (it edits in place)."""
        hook._from_public_api = True
        return _stored(self._state_dict_hooks, hook)

    def _register_load_state_dict_pre_hook(self, hook, with_module=False):
        """`hook([module,] state_dict, prefix, local_metadata, strict, missing_keys,
        unexpected_keys, error_msgs)` before `module` reads its entries."""
        return _stored(self._load_state_dict_pre_hooks, _WrappedHook(hook, self if with_module else None))

    def register_load_state_dict_pre_hook(self, hook):
        return self._register_load_state_dict_pre_hook(hook, with_module=True)

    def register_load_state_dict_post_hook(self, hook):
        """`hook(module, incompatible_keys)` after `module` and its children read."""
        return _stored(self._load_state_dict_post_hooks, hook)

    # --- writing -------------------------------------------------------------------------

    def _save_to_state_dict(self, destination, prefix, keep_vars):
        for name, param in self._parameters.items():
            if param is not None:
                destination[prefix + name] = param if keep_vars else param.detach()
        for name, buffer in self._buffers.items():
            if buffer is not None and name not in self._non_persistent:
                destination[prefix + name] = buffer if keep_vars else buffer.detach()

    def state_dict(self, *args, destination=None, prefix="", keep_vars=False):
        """Parameters and persistent buffers by dotted name, in registration order; the
        tensors share memory with the module's (detached unless `keep_vars`)."""
        if args:
            destination = args[0] if destination is None else destination
            prefix = args[1] if len(args) > 1 and prefix == "" else prefix
            keep_vars = args[2] if len(args) > 2 and keep_vars is False else keep_vars
        if destination is None:
            destination = collections.OrderedDict()
            destination._metadata = collections.OrderedDict()
        local_metadata = dict(version=self._version)
        if hasattr(destination, "_metadata"):
            destination._metadata[prefix[:-1]] = local_metadata
        for hook in self._state_dict_pre_hooks.values():
            hook(self, prefix, keep_vars)
        self._save_to_state_dict(destination, prefix, keep_vars)
        for name, module in self._modules.items():
            if module is not None:
                module.state_dict(destination=destination, prefix=prefix + name + ".", keep_vars=keep_vars)
        for hook in self._state_dict_hooks.values():
            result = hook(self, destination, prefix, local_metadata)
            if not getattr(hook, "_from_public_api", False):
                if result is not None:
                    destination = result
            elif result is not None:
                raise RuntimeError("state_dict post-hook must return None")
        return destination

    # --- reading -------------------------------------------------------------------------

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                              error_msgs):
        """Copy this module's own entries of `state_dict` (keys `prefix + name`) into its
        parameters and persistent buffers, in place; list what is missing or unexpected."""
        from .parameter import is_lazy  # noqa: PLC0415 (parameter imports modules, which imports this module)
        for hook in self._load_state_dict_pre_hooks.values():
            hook(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs)
        persistent = ((k, v) for k, v in self._buffers.items() if k not in self._non_persistent)
        local_state = {k: v for k, v in itertools.chain(self._parameters.items(), persistent) if v is not None}
        for name, param in local_state.items():
            key = prefix + name
            if key not in state_dict:
                if strict:
                    missing_keys.append(key)
                continue
            value = state_dict[key]
            if isinstance(value, np.ndarray):
                value = Tensor._make(value)
            if not isinstance(value, Tensor):
                error_msgs.append(f'While copying the parameter named "{key}", expected srcgrad.Tensor or Tensor-like '
                                  f"object from checkpoint but received {type(value)}")
                continue
            if is_lazy(param):  # both uninitialized (the load hook materialized it for an initialized value)
                continue
            if param.dim() == 0 and len(value.shape) == 1 and value.shape[0] == 1:
                value = value[0]
            if value.shape != param.shape:
                error_msgs.append(f"size mismatch for {key}: copying a param with shape {value.shape} from checkpoint, "
                                  f"the shape in current model is {param.shape}.")
                continue
            with no_grad():
                if local_metadata.get("assign_to_params_buffers", False):
                    from .modules import Parameter  # noqa: PLC0415 (modules imports this module)
                    if isinstance(param, Parameter) and not isinstance(value, Parameter):
                        value = Parameter(value, requires_grad=param.requires_grad)
                    setattr(self, name, value)
                else:
                    param.copy_(value)
        if strict:
            for key in state_dict:
                if key.startswith(prefix):
                    parts = key[len(prefix):].split(".", 1)
                    if (parts[0] not in self._modules) if len(parts) > 1 else (parts[0] not in local_state):
                        unexpected_keys.append(key)

    def load_state_dict(self, state_dict, strict=True, assign=False):
        """Copy `state_dict`'s values into the parameters and buffers of the same names
        (in place, not recorded; `assign=True` puts the given tensors in their place);
        PyTorch's error for missing or unexpected keys when `strict`, else they are
        listed in the result."""
        if not isinstance(state_dict, collections.abc.Mapping):
            raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
        missing_keys, unexpected_keys, error_msgs = [], [], []
        metadata = getattr(state_dict, "_metadata", None)
        state_dict = collections.OrderedDict(state_dict)
        if metadata is not None:
            state_dict._metadata = metadata

        def load(module, local_state_dict, prefix=""):
            local_metadata = {} if metadata is None else metadata.get(prefix[:-1], {})
            if assign:
                local_metadata["assign_to_params_buffers"] = assign
            module._load_from_state_dict(local_state_dict, prefix, local_metadata, True, missing_keys,
                                         unexpected_keys, error_msgs)
            for name, child in module._modules.items():
                if child is not None:
                    child_prefix = prefix + name + "."
                    load(child, {k: v for k, v in local_state_dict.items() if k.startswith(child_prefix)},
                         child_prefix)
            incompatible = _IncompatibleKeys(missing_keys, unexpected_keys)
            for hook in module._load_state_dict_post_hooks.values():
                if hook(module, incompatible) is not None:
                    raise AssertionError("Hooks registered with ``register_load_state_dict_post_hook`` are not "
                                         "expected to return new values, if incompatible_keys need to be modified, "
                                         "it should be done inplace.")

        load(self, state_dict)
        if strict:
            if unexpected_keys:
                error_msgs.insert(0, "Unexpected key(s) in state_dict: "
                                     + ", ".join(f'"{k}"' for k in unexpected_keys) + ". ")
            if missing_keys:
                error_msgs.insert(0, "Missing key(s) in state_dict: " + ", ".join(f'"{k}"' for k in missing_keys) + ". ")
        if error_msgs:
            raise RuntimeError(f"Error(s) in loading state_dict for {type(self).__name__}:\n\t" + "\n\t".join(error_msgs))
        return _IncompatibleKeys(missing_keys, unexpected_keys)


def _stored(table, hook):
    handle = RemovableHandle(table)
    table[handle.id] = hook
    return handle
