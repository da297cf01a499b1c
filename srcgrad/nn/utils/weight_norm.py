"""Weight normalization as PyTorch's: `w = g * v / ||v||`, the norm taken over every
dim but `dim` (over all of them for dim None or -1). `norm_except_dim` and
`_weight_norm` are PyTorch's ops of those names (the latter recorded as one
WeightNormInterfaceBackward0 node where PyTorch's CPU kernel is fused: dim 0 or the
last dim; as the product, MulBackward0, elsewhere). `weight_norm` and
`remove_weight_norm` are the deprecated forms, a forward pre-hook that recomputes
`module.weight` from the parameters `weight_g` and `weight_v` before each call
(nn.utils.parametrizations.weight_norm is the current form)."""

import warnings

from ...tensor import ops
from ..modules import Parameter

__all__ = ["norm_except_dim", "WeightNorm", "weight_norm", "remove_weight_norm"]


def norm_except_dim(v, pow=2, dim=0):
    """The `pow`-norm of `v` over every dim but `dim`, of shape 1 except at `dim`
    (a 0-d norm of everything for dim -1)."""
    if dim == -1:
        return v.norm(pow)
    ndim = v.dim()
    if dim == 0:
        return v.contiguous().view(v.shape[0], -1).norm(pow, 1).view(v.shape[0], *([1] * (ndim - 1)))
    if dim == ndim - 1:
        return v.contiguous().view(-1, v.shape[-1]).norm(pow, 0).view(*([1] * (ndim - 1)), v.shape[-1])
    return norm_except_dim(v.transpose(0, dim), pow, 0).transpose(0, dim)


def _product(v, g, dim):
    return v * (g / norm_except_dim(v, 2, dim))


def _weight_norm(v, g, dim=0):
    """`v * (g / norm_except_dim(v, 2, dim))`, one node where PyTorch's kernel is fused."""
    if dim == 0 or dim == v.dim() - 1:
        return ops.composite("WeightNormInterfaceBackward0", _product, v, g, dim)
    return _product(v, g, dim)


class WeightNorm:
    """The forward pre-hook of the deprecated `weight_norm`."""

    def __init__(self, name, dim):
        self.name, self.dim = name, -1 if dim is None else dim

    def compute_weight(self, module):
        return _weight_norm(getattr(module, self.name + "_v"), getattr(module, self.name + "_g"), self.dim)

    @staticmethod
    def apply(module, name, dim):
        warnings.warn("`torch.nn.utils.weight_norm` is deprecated in favor of "
                      "`torch.nn.utils.parametrizations.weight_norm`.", FutureWarning, stacklevel=3)
        for hook in module._forward_pre_hooks.values():
            if isinstance(hook, WeightNorm) and hook.name == name:
                raise RuntimeError(f"Cannot register two weight_norm hooks on the same parameter {name}")
        fn = WeightNorm(name, dim)
        weight = getattr(module, name)
        del module._parameters[name]
        module.register_parameter(name + "_g", Parameter(norm_except_dim(weight, 2, fn.dim).data))
        module.register_parameter(name + "_v", Parameter(weight.data))
        setattr(module, name, fn.compute_weight(module))
        module.register_forward_pre_hook(fn)
        return fn

    def remove(self, module):
        weight = self.compute_weight(module)
        delattr(module, self.name)
        del module._parameters[self.name + "_g"]
        del module._parameters[self.name + "_v"]
        setattr(module, self.name, Parameter(weight.data))

    def __call__(self, module, inputs):
        setattr(module, self.name, self.compute_weight(module))


def weight_norm(module, name="weight", dim=0):
    """Deprecated (FutureWarning, as PyTorch's): `module.<name>` recomputed before each
    call from the new parameters `<name>_g` (the norms) and `<name>_v` (the directions)."""
    WeightNorm.apply(module, name, dim)
    return module


def remove_hook_form(module, kind, name, label):
    """Undo the `kind` (WeightNorm or SpectralNorm) pre-hook of `module.<name>`: its
    `remove(module)`, then out of the module's table; PyTorch's error where none is."""
    for key, hook in module._forward_pre_hooks.items():
        if isinstance(hook, kind) and hook.name == name:
            hook.remove(module)
            del module._forward_pre_hooks[key]
            return
    raise ValueError(f"{label} of '{name}' not found in {module}")


def remove_weight_norm(module, name="weight"):
    """Make `module.<name>` a plain parameter again (its current value)."""
    remove_hook_form(module, WeightNorm, name, "weight_norm")
    return module
