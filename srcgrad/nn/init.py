"""`srcgrad.nn.init`, as `torch.nn.init`: fill a tensor in place with a distribution
scaled to its fans (Xavier/Glorot, Kaiming/He), a constant, the identity or an
orthogonal matrix, without recording anything in the graph. Each returns the tensor.
Draws come from the `generator=` given, or else srcgrad's default generator (seeded by
`srcgrad.manual_seed`): srcgrad's own streams, not PyTorch's numbers."""

import math
import warnings

import numpy as np

from ..tensor import creation, no_grad, randperm
from ..tensor.generators import stream

__all__ = [
    "calculate_gain", "uniform_", "normal_", "trunc_normal_", "constant_", "ones_", "zeros_", "eye_",
    "xavier_uniform_", "xavier_normal_", "kaiming_uniform_", "kaiming_normal_", "orthogonal_", "sparse_",
]

_LINEAR = ("linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d")


def calculate_gain(nonlinearity, param=None):
    """The gain PyTorch recommends for a layer followed by `nonlinearity`."""
    if nonlinearity in _LINEAR or nonlinearity == "sigmoid":
        return 1
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is None:
            slope = 0.01
        elif not isinstance(param, bool) and isinstance(param, (int, float)):
            slope = param
        else:
            raise ValueError(f"negative_slope {param} not a valid number")
        return math.sqrt(2.0 / (1 + slope**2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"Unsupported nonlinearity {nonlinearity}")


def _calculate_fan_in_and_fan_out(tensor):
    """(fan_in, fan_out): the sizes of dims 1 and 0 times the receptive field (the rest)."""
    if tensor.dim() < 2:
        raise ValueError("Fan in and fan out can not be computed for tensor with fewer than 2 dimensions")
    receptive = int(np.prod(tensor.shape[2:])) if tensor.dim() > 2 else 1
    return tensor.size(1) * receptive, tensor.size(0) * receptive


def _fan(tensor, mode):
    if mode not in ("fan_in", "fan_out"):
        raise ValueError(f"Mode {mode} not supported, please use one of ['fan_in', 'fan_out']")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


def _fill(tensor, values):
    """Write `values` (a NumPy array of tensor's shape) into `tensor` outside the graph."""
    with no_grad():
        tensor.copy_(creation.tensor(np.asarray(values), dtype=tensor.dtype))
    return tensor


def uniform_(tensor, a=0.0, b=1.0, generator=None):
    with no_grad():
        return tensor.uniform_(a, b, generator=generator)


def normal_(tensor, mean=0.0, std=1.0, generator=None):
    with no_grad():
        return tensor.normal_(mean, std, generator=generator)


def trunc_normal_(tensor, mean=0.0, std=1.0, a=-2.0, b=2.0, generator=None):
    """Normal(mean, std) draws redrawn until they lie in [a, b]."""
    rng = stream(generator, "normal_")
    values = rng.normal(mean, std, tensor.shape)
    outside = (values < a) | (values > b)
    while outside.any():
        values[outside] = rng.normal(mean, std, int(outside.sum()))
        outside = (values < a) | (values > b)
    return _fill(tensor, values)


def constant_(tensor, val):
    with no_grad():
        return tensor.fill_(val)


def ones_(tensor):
    return constant_(tensor, 1.0)


def zeros_(tensor):
    with no_grad():
        return tensor.zero_()


def eye_(tensor):
    """The identity matrix (ones on the main diagonal of a 2-D tensor of any shape)."""
    if tensor.dim() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    return _fill(tensor, np.eye(*tensor.shape))


def xavier_uniform_(tensor, gain=1.0, generator=None):
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    bound = math.sqrt(3.0) * gain * math.sqrt(2.0 / float(fan_in + fan_out))
    return uniform_(tensor, -bound, bound, generator)


def xavier_normal_(tensor, gain=1.0, generator=None):
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return normal_(tensor, 0.0, gain * math.sqrt(2.0 / float(fan_in + fan_out)), generator)


def _kaiming_std(tensor, a, mode, nonlinearity):
    """The standard deviation of Kaiming's scheme, or None for a tensor with no entries."""
    if 0 in tensor.shape:
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=3)
        return None
    return calculate_gain(nonlinearity, a) / math.sqrt(_fan(tensor, mode))


def kaiming_uniform_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    std = _kaiming_std(tensor, a, mode, nonlinearity)
    return tensor if std is None else uniform_(tensor, -math.sqrt(3.0) * std, math.sqrt(3.0) * std, generator)


def kaiming_normal_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    std = _kaiming_std(tensor, a, mode, nonlinearity)
    return tensor if std is None else normal_(tensor, 0.0, std, generator)


def orthogonal_(tensor, gain=1, generator=None):
    """A (semi-)orthogonal matrix, the tensor seen as (size 0, the rest): orthonormal
    rows or columns, whichever are fewer, from the QR factors of a normal draw."""
    if tensor.dim() < 2:
        raise ValueError("Only tensors with 2 or more dimensions are supported")
    if tensor.numel() == 0:
        return tensor
    rng = stream(generator, "normal_")
    rows = tensor.size(0)
    cols = tensor.numel() // rows
    flat = rng.normal(0.0, 1.0, (rows, cols))
    if rows < cols:
        flat = flat.T
    q, r = np.linalg.qr(flat)
    q = q * np.sign(np.diag(r))
    if rows < cols:
        q = q.T
    return _fill(tensor, gain * q.reshape(tensor.shape))


def sparse_(tensor, sparsity, std=0.01, generator=None):
    """Normal(0, std) draws from `generator`, then ceil(sparsity * rows) entries of each
    column set to zero, at rows drawn from the default generator (as PyTorch draws them)."""
    if tensor.dim() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    rows, cols = tensor.shape
    zeros = math.ceil(sparsity * rows)
    with no_grad():
        tensor.normal_(0, std, generator=generator)
        for column in range(cols):
            tensor[randperm(rows)[:zeros], column] = 0
    return tensor
