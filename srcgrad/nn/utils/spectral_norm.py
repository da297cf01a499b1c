"""The deprecated form of spectral normalization, as `torch.nn.utils.spectral_norm`: a
forward pre-hook that sets `module.weight = weight_orig / sigma` before each call,
sigma estimated by power iteration on the buffers `weight_u` and `weight_v` (one or
more steps per call in training mode), with PyTorch's state_dict version hooks.
`weight_matrix` (the weight as a matrix whose rows run along `dim`) is shared with
nn.utils.parametrizations.spectral_norm, the current form."""

from ...tensor.products import dot, mv
from ...tensor.grad_mode import no_grad
from .. import functional as F
from ..convolution import ConvTranspose1d, ConvTranspose2d, ConvTranspose3d
from ..modules import Parameter
from .weight_norm import remove_hook_form

__all__ = ["SpectralNorm", "SpectralNormLoadStateDictPreHook", "SpectralNormStateDictHook", "spectral_norm",
           "remove_spectral_norm"]


def weight_matrix(weight, dim):
    """`weight` with `dim` moved first, flattened to (size at dim, rest)."""
    if dim != 0:
        weight = weight.permute(dim, *(d for d in range(weight.dim()) if d != dim))
    return weight.reshape(weight.shape[0], -1)


def default_dim(module):
    """The dim along which spectral norm reads the rows: 1 for transposed convolutions."""
    return 1 if isinstance(module, (ConvTranspose1d, ConvTranspose2d, ConvTranspose3d)) else 0


class SpectralNorm:
    """The forward pre-hook of the deprecated `spectral_norm`."""

    _version = 1

    def __init__(self, name="weight", n_power_iterations=1, dim=0, eps=1e-12):
        self.name, self.dim, self.eps = name, dim, eps
        if n_power_iterations <= 0:
            raise ValueError("Expected n_power_iterations to be positive, but got "
                             f"n_power_iterations={n_power_iterations}")
        self.n_power_iterations = n_power_iterations

    def reshape_weight_to_matrix(self, weight):
        return weight_matrix(weight, self.dim)

    def compute_weight(self, module, do_power_iteration):
        weight = getattr(module, self.name + "_orig")
        u, v = getattr(module, self.name + "_u"), getattr(module, self.name + "_v")
        weight_mat = self.reshape_weight_to_matrix(weight)
        if do_power_iteration:
            with no_grad():
                for _ in range(self.n_power_iterations):
                    v.copy_(F.normalize(mv(weight_mat.t(), u), dim=0, eps=self.eps))
                    u.copy_(F.normalize(mv(weight_mat, v), dim=0, eps=self.eps))
                u, v = u.clone(), v.clone()
        sigma = dot(u, mv(weight_mat, v))
        return weight / sigma

    def remove(self, module):
        with no_grad():
            weight = self.compute_weight(module, do_power_iteration=False)
        for suffix in ("", "_u", "_v", "_orig"):
            delattr(module, self.name + suffix)
        module.register_parameter(self.name, Parameter(weight.detach()))

    def __call__(self, module, inputs):
        setattr(module, self.name, self.compute_weight(module, do_power_iteration=module.training))

    @staticmethod
    def apply(module, name, n_power_iterations, dim, eps):
        for hook in module._forward_pre_hooks.values():
            if isinstance(hook, SpectralNorm) and hook.name == name:
                raise RuntimeError(f"Cannot register two spectral_norm hooks on the same parameter {name}")
        fn = SpectralNorm(name, n_power_iterations, dim, eps)
        weight = module._parameters[name]
        if weight is None:
            raise ValueError(f"`SpectralNorm` cannot be applied as parameter `{name}` is None")
        with no_grad():
            height, width = fn.reshape_weight_to_matrix(weight).shape
            u = F.normalize(weight.new_empty(height).normal_(0, 1), dim=0, eps=fn.eps)
            v = F.normalize(weight.new_empty(width).normal_(0, 1), dim=0, eps=fn.eps)
        delattr(module, fn.name)
        module.register_parameter(fn.name + "_orig", weight)
        setattr(module, fn.name, weight.data)
        module.register_buffer(fn.name + "_u", u)
        module.register_buffer(fn.name + "_v", v)
        module.register_forward_pre_hook(fn)
        module._register_state_dict_hook(SpectralNormStateDictHook(fn))
        module._register_load_state_dict_pre_hook(SpectralNormLoadStateDictPreHook(fn))
        return fn


class SpectralNormLoadStateDictPreHook:
    """Reads state dicts written before the hook's version 1 (which stored `weight`
    and no `weight_v`): refused with a clear error; current ones pass unchanged."""

    def __init__(self, fn):
        self.fn = fn

    def __call__(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs):
        version = local_metadata.get("spectral_norm", {}).get(self.fn.name + ".version", None)
        if version is not None and version >= 1:
            return
        key = prefix + self.fn.name
        if version is None and all(key + s in state_dict for s in ("_orig", "_u", "_v")) and key not in state_dict:
            return
        missing = [key + s for s in ("_orig", "", "_u") if key + s not in state_dict]
        if missing:
            if strict:
                missing_keys.extend(missing)
            return
        raise NotImplementedError(f"loading '{key}' from a state_dict of spectral_norm before version 1 (which "
                                  "stores the normalized weight and no v): recompute it with PyTorch and save again")


class SpectralNormStateDictHook:
    """Writes the hook's version into the state_dict's metadata, as PyTorch's."""

    def __init__(self, fn):
        self.fn = fn

    def __call__(self, module, state_dict, prefix, local_metadata):
        versions = local_metadata.setdefault("spectral_norm", {})
        key = self.fn.name + ".version"
        if key in versions:
            raise RuntimeError(f"Unexpected key in metadata['spectral_norm']: {key}")
        versions[key] = self.fn._version


def spectral_norm(module, name="weight", n_power_iterations=1, eps=1e-12, dim=None):
    """`module.<name>` divided by its largest singular value (power iteration),
    recomputed before each call; `<name>_orig` is the parameter."""
    SpectralNorm.apply(module, name, n_power_iterations, default_dim(module) if dim is None else dim, eps)
    return module


def remove_spectral_norm(module, name="weight"):
    """Make `module.<name>` a plain parameter again (its current value)."""
    remove_hook_form(module, SpectralNorm, name, "spectral_norm")
    for table, kind in (("_state_dict_hooks", SpectralNormStateDictHook),
                        ("_load_state_dict_pre_hooks", SpectralNormLoadStateDictPreHook)):
        hooks = getattr(module, table)
        for key, hook in hooks.items():  # a load pre-hook is found wrapped, and kept, as in PyTorch
            if isinstance(hook, kind) and hook.fn.name == name:
                del hooks[key]
                break
    return module
