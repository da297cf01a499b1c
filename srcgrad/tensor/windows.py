"""The window functions hann_window, hamming_window, blackman_window, bartlett_window
and kaiser_window, computed in the output dtype as PyTorch's CPU code computes them.

A periodic window of length N is the symmetric window of length N + 1 without its last
entry; lengths 0 and 1 give [] and [1.]. Each is a new leaf (`requires_grad=` as for
the other factories); only floating dtypes are accepted.
"""

import math

import numpy as np

from ..rules import bessel_arrays
from . import devices
from .creation import _dtype, _leaf

__all__ = ["hann_window", "hamming_window", "blackman_window", "bartlett_window", "kaiser_window"]

_CPP_TYPES = {"int64": "long int", "int32": "int", "int16": "short int", "int8": "signed char",
              "uint8": "unsigned char", "bool": "bool"}


def _checked(name, window_length, dtype, device):
    """(the NumPy dtype of the window, whether it is made on the meta device) after PyTorch's
    checks of its arguments."""
    on_meta = devices.allocated_on(device, name)
    if isinstance(window_length, bool) or not hasattr(window_length, "__index__"):
        raise TypeError(f"{name}(): argument 'window_length' (position 1) must be int, not {type(window_length).__name__}")
    if window_length < 0:
        raise RuntimeError(f"{name} requires non-negative window_length, got window_length={window_length}")
    dt = _dtype(dtype)
    if dt.kind != "f":
        raise RuntimeError(
            f"{name} expects floating point dtypes, got: TensorOptions(dtype={_CPP_TYPES.get(dt.name, dt.name)}, "
            "device=cpu, layout=Strided (default), requires_grad=false (default), pinned_memory=false, "
            "memory_format=(nullopt))")
    return dt, on_meta


def _window(name, window_length, periodic, dtype, device, requires_grad, symmetric):
    """`symmetric(n, dt)`, the symmetric window of length n >= 2 in NumPy dtype dt,
    made periodic and checked as PyTorch's."""
    dt, on_meta = _checked(name, window_length, dtype, device)
    if window_length <= 1:
        return _leaf(np.ones(window_length, dtype=dt), requires_grad, on_meta)
    n = window_length + 1 if periodic else window_length
    values = symmetric(n, dt)
    return _leaf(np.ascontiguousarray(values[:window_length]), requires_grad, on_meta)


def _scaled_positions(n, dt, factor):
    """arange(n) * factor in dt, the factor rounded to dt first (PyTorch's mul_ by a Scalar)."""
    return np.arange(n, dtype=dt) * dt.type(factor)


def hamming_window(window_length, periodic=True, alpha=0.54, beta=0.46, *, dtype=None, device=None,
                   requires_grad=False):
    """alpha - beta * cos(2 pi k / (N - 1))."""
    def symmetric(n, dt):
        return np.cos(_scaled_positions(n, dt, 2.0 * math.pi / (n - 1))) * dt.type(-beta) + dt.type(alpha)

    return _window("hamming_window", window_length, periodic, dtype, device, requires_grad, symmetric)


def hann_window(window_length, periodic=True, *, dtype=None, device=None, requires_grad=False):
    """0.5 - 0.5 cos(2 pi k / (N - 1)): the Hamming window with alpha = beta = 0.5."""
    _checked("hann_window", window_length, dtype, device)
    return hamming_window(window_length, periodic, 0.5, 0.5, dtype=dtype, device=device, requires_grad=requires_grad)


def blackman_window(window_length, periodic=True, *, dtype=None, device=None, requires_grad=False):
    """0.42 - 0.5 cos(2 pi k / (N - 1)) + 0.08 cos(4 pi k / (N - 1))."""
    def symmetric(n, dt):
        x = _scaled_positions(n, dt, math.pi / (n - 1))
        return np.cos(x * dt.type(4)) * dt.type(0.08) - np.cos(x * dt.type(2)) * dt.type(0.5) + dt.type(0.42)

    return _window("blackman_window", window_length, periodic, dtype, device, requires_grad, symmetric)


def bartlett_window(window_length, periodic=True, *, dtype=None, device=None, requires_grad=False):
    """The triangle 2k / (N - 1), mirrored as 2 - 2k / (N - 1) past the middle."""
    def symmetric(n, dt):
        x = _scaled_positions(n, dt, 2.0 / (n - 1))
        half = ((n - 1) >> 1) + 1
        x[half:] = x[half:] * dt.type(-1) + dt.type(2)
        return x

    return _window("bartlett_window", window_length, periodic, dtype, device, requires_grad, symmetric)


def kaiser_window(window_length, periodic=True, beta=12.0, *, dtype=None, device=None, requires_grad=False):
    """i0(beta * sqrt(1 - ((k - a) / a) ** 2)) / i0(beta), a = (N - 1) / 2."""
    def symmetric(n, dt):
        alpha = dt.type((n - 1) / 2.0)
        k = np.arange(n, dtype=dt)
        ratio = (k - alpha) / alpha
        inside = np.sqrt(np.maximum(dt.type(1) - ratio * ratio, dt.type(0)))
        return (bessel_arrays.i0(dt.type(beta) * inside) / bessel_arrays.i0(dt.type(beta))).astype(dt)

    return _window("kaiser_window", window_length, periodic, dtype, device, requires_grad, symmetric)
