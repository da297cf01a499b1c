"""`srcgrad.nn`'s ModuleDict and ParameterList, as in `torch.nn`: a dict of modules
registered under their keys, and a list of parameters registered as "0", "1", ...
(a plain Tensor added to a ParameterList becomes a Parameter sharing its memory)."""

import collections.abc
import operator

from ..tensor.tensor import Tensor
from .modules import Module, Parameter

__all__ = ["ModuleDict", "ParameterList"]


class ModuleDict(Module):
    """Modules by string key, in insertion order; printed and walked like attributes."""

    def __init__(self, modules=None):
        super().__init__()
        if modules is not None:
            self.update(modules)

    def __getitem__(self, key):
        return self._modules[key]

    def __setitem__(self, key, module):
        self.add_module(key, module)

    def __delitem__(self, key):
        del self._modules[key]

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules)

    def __contains__(self, key):
        return key in self._modules

    def clear(self):
        self._modules.clear()

    def pop(self, key):
        module = self[key]
        del self[key]
        return module

    def keys(self):
        return self._modules.keys()

    def items(self):
        return self._modules.items()

    def values(self):
        return self._modules.values()

    def update(self, modules):
        """Add (or replace) modules from a mapping, or from an iterable of (key, module) pairs."""
        if not isinstance(modules, collections.abc.Iterable):
            raise TypeError(f"ModuleDict.update should be called with an iterable of key/value pairs, but got "
                            f"{type(modules).__name__}")
        if isinstance(modules, (collections.abc.Mapping, ModuleDict)):
            for key, module in modules.items():
                self[key] = module
            return
        for j, pair in enumerate(modules):
            if not isinstance(pair, collections.abc.Iterable):
                raise TypeError(f"ModuleDict update sequence element #{j} should be Iterable; is "
                                f"{type(pair).__name__}")
            if len(pair) != 2:
                raise ValueError(f"ModuleDict update sequence element #{j} has length {len(pair)}; 2 is required")
            self[pair[0]] = pair[1]


class ParameterList(Module):
    """Parameters (or other values) by position; indexing a slice gives a ParameterList."""

    def __init__(self, values=None):
        super().__init__()
        object.__setattr__(self, "_size", 0)
        if values is not None:
            self.extend(values)

    def _key(self, index):
        index = operator.index(index)
        if not -len(self) <= index < len(self):
            raise IndexError(f"index {index} is out of range")
        return str(index % len(self))

    def __getitem__(self, index):
        if isinstance(index, slice):
            out = type(self)()
            for i in range(*index.indices(len(self))):
                out.append(self[i])
            return out
        return getattr(self, self._key(index))

    def __setitem__(self, index, value):
        if isinstance(value, Tensor) and not isinstance(value, Parameter):
            value = Parameter(value)
        setattr(self, self._key(index), value)

    def __len__(self):
        return self._size

    def __iter__(self):
        return iter(self[i] for i in range(len(self)))

    def __iadd__(self, values):
        return self.extend(values)

    def append(self, value):
        object.__setattr__(self, "_size", self._size + 1)
        self[self._size - 1] = value
        return self

    def extend(self, values):
        if not isinstance(values, collections.abc.Iterable) or isinstance(values, Tensor):
            raise TypeError(f"ParameterList.extend should be called with an iterable, but got {type(values).__name__}")
        for value in values:
            self.append(value)
        return self

    def extra_repr(self):
        lines = []
        for k, p in enumerate(self):
            if isinstance(p, Tensor):
                kind = "Parameter" if isinstance(p, Parameter) else "Tensor"
                size = "x".join(str(n) for n in p.shape)
                lines.append(f"  ({k}): {kind} containing: [{p.dtype} of size {size}]")
            else:
                lines.append(f"  ({k}): Object of type: {type(p).__name__}")
        return "\n".join(lines)
