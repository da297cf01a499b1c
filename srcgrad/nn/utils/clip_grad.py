"""Gradient clipping as `torch.nn.utils`: scale the gradients of parameters so that
their joint norm is at most `max_norm`, or clamp each entry to [-clip_value, clip_value].
Both change `.grad` in place, outside the graph."""

import math

import numpy as np

from ...tensor import Tensor, creation, no_grad

__all__ = ["clip_grad_norm_", "clip_grad_value_", "get_total_norm"]


def _grads(parameters):
    """The gradients present among `parameters` (a Tensor or an iterable of them)."""
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    return [p.grad for p in parameters if p.grad is not None]


def _norm(arrays, norm_type):
    """The `norm_type`-norm of all entries of `arrays` together, in float64 arithmetic
    where they are float64 (else in their dtype, as float32 stays float32)."""
    if norm_type == math.inf:
        return max(float(np.max(np.abs(a))) if a.size else 0.0 for a in arrays)
    if norm_type == -math.inf:
        return min(float(np.min(np.abs(a))) if a.size else math.inf for a in arrays)
    norms = [np.sum(np.abs(a) ** norm_type) ** (1.0 / norm_type) if a.size else 0.0 for a in arrays]
    return float(np.sum(np.abs(np.array(norms, dtype=np.float64)) ** norm_type) ** (1.0 / norm_type))


def get_total_norm(tensors, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """The norm of the norms of `tensors` (a Tensor or an iterable of them), a 0-d tensor."""
    if isinstance(tensors, Tensor):
        tensors = [tensors]
    tensors = list(tensors)
    norm_type = float(norm_type)
    if not tensors:
        return creation.tensor(0.0)
    total = _norm([t.detach().numpy() for t in tensors], norm_type)
    if error_if_nonfinite and not math.isfinite(total):
        raise RuntimeError(
            f"The total norm of order {norm_type} for gradients from `parameters` is non-finite, so it cannot be "
            "clipped. To disable this error and scale the gradients by the non-finite norm anyway, set "
            "`error_if_nonfinite=False`")
    return creation.tensor(total, dtype=tensors[0].dtype)


def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """Scale every gradient by min(1, max_norm / (total norm + 1e-6)); returns the total
    norm (before clipping) as a 0-d tensor."""
    grads = _grads(parameters)
    total = get_total_norm(grads, norm_type, error_if_nonfinite)
    if not grads:
        return total
    coefficient = min(float(max_norm) / (float(total.item()) + 1e-6), 1.0)
    with no_grad():
        for g in grads:
            g.mul_(coefficient)
    return total


def clip_grad_value_(parameters, clip_value, foreach=None):
    """Clamp every gradient entry to [-clip_value, clip_value]."""
    clip_value = float(clip_value)
    with no_grad():
        for g in _grads(parameters):
            g.clamp_(min=-clip_value, max=clip_value)
