"""Optimizers as in `torch.optim`: `SGD` (momentum, dampening, Nesterov, weight decay)
and `Adam` (weight decay, decoupled weight decay, AMSGrad), over the Tensor shim.

`step()` runs with grad mode off and updates each parameter's array in place, so the
tensor keeps its identity and storage (and a `from_numpy` array sees the new values);
each update counts as an in-place write in the tensor's version (a graph that saved the
old values refuses to run backward, as in PyTorch). The arithmetic is PyTorch's
single-tensor CPU update, operation by operation, in the parameter's dtype: float32
parameters give PyTorch's numbers to float32 rounding. `zero_grad()` sets `.grad` to
None (PyTorch 2.x); `zero_grad(set_to_none=False)` zeros it in place.
"""

import math
from collections import defaultdict

import numpy as np

from .tensor.graph import bump, enable_grad, no_grad
from .tensor.tensor import Tensor

__all__ = ["Optimizer", "SGD", "Adam"]


class Optimizer:
    """Parameter groups (`param_groups`, dicts with "params" and the hyperparameters),
    per-parameter `state`, `zero_grad` and `step`. Subclasses define `_update(group)`."""

    def __init__(self, params, defaults):
        self.defaults = defaults
        self.state = defaultdict(dict)
        self.param_groups = []
        if isinstance(params, Tensor):
            raise TypeError(
                "params argument given to the optimizer should be an iterable of Tensors or dicts, "
                f"but got {params.type()}"
            )
        groups = list(params)
        if not groups:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(groups[0], dict):
            groups = [{"params": groups}]
        for group in groups:
            self.add_param_group(group)

    def add_param_group(self, param_group):
        """Add a group: a dict with "params" and any hyperparameters that differ from the
        defaults."""
        group = dict(param_group)
        params = group["params"]
        group["params"] = [params] if isinstance(params, Tensor) else list(params)
        for p in group["params"]:
            if not isinstance(p, Tensor):
                raise TypeError(f"optimizer can only optimize Tensors, but one of the params is {type(p).__name__}")
            if not p.is_leaf:
                raise ValueError("can't optimize a non-leaf Tensor")
        for key, value in self.defaults.items():
            group.setdefault(key, value)
        seen = {id(p) for g in self.param_groups for p in g["params"]}
        if seen & {id(p) for p in group["params"]}:
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(group)

    def zero_grad(self, set_to_none=True):
        """Forget the parameters' gradients: `.grad = None`, or zeros in place."""
        for group in self.param_groups:
            for p in group["params"]:
                grad = p._grad
                if grad is None:
                    continue
                if set_to_none:
                    p._grad = None
                    continue
                if grad.grad_fn is not None:
                    grad.detach_()
                else:
                    grad.requires_grad_(False)
                grad.zero_()

    def step(self, closure=None):
        """Update every parameter that has a gradient; `closure` (re-evaluating the loss,
        run with grad mode on) is called first and its result returned."""
        loss = None
        if closure is not None:
            with enable_grad():
                loss = closure()
        with no_grad():
            for group in self.param_groups:
                self._update(group)
        return loss

    def _update(self, group):
        raise NotImplementedError

    def __repr__(self):
        text = type(self).__name__ + " ("
        for i, group in enumerate(self.param_groups):
            text += f"\nParameter Group {i}\n"
            for key in sorted(group):
                if key != "params":
                    text += f"    {key}: {group[key]}\n"
        return text + ")"


def _check(value, what, ok):
    if not ok:
        raise ValueError(f"Invalid {what}: {value}")


def _leaf_copy(array):
    return Tensor._make(np.array(array, copy=True))


class SGD(Optimizer):
    """Stochastic gradient descent: with gradient g (plus weight_decay * p), the buffer
    b = g at the first step and momentum * b + (1 - dampening) * g after; the step is
    g + momentum * b (Nesterov) or b, or g without momentum; p -= lr * step."""

    def __init__(self, params, lr=1e-3, momentum=0, dampening=0, weight_decay=0, nesterov=False, *,
                 maximize=False, foreach=None, differentiable=False, fused=None):
        _check(lr, "learning rate", lr >= 0.0)
        _check(momentum, "momentum value", momentum >= 0.0)
        _check(weight_decay, "weight_decay value", weight_decay >= 0.0)
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        defaults = dict(lr=lr, momentum=momentum, dampening=dampening, weight_decay=weight_decay,
                        nesterov=nesterov, maximize=maximize, foreach=foreach, differentiable=differentiable,
                        fused=fused)
        super().__init__(params, defaults)

    def _update(self, group):
        lr, momentum, dampening = group["lr"], group["momentum"], group["dampening"]
        weight_decay, nesterov, maximize = group["weight_decay"], group["nesterov"], group["maximize"]
        for p in group["params"]:
            if p._grad is None:
                continue
            x = p._data
            d_p = -p._grad._data if maximize else p._grad._data
            if weight_decay != 0:
                d_p = d_p + weight_decay * x
            if momentum != 0:
                state = self.state[p]
                buf = state.get("momentum_buffer")
                if buf is None:
                    buf = state["momentum_buffer"] = _leaf_copy(d_p)
                else:
                    b = buf._data
                    b *= momentum
                    b += (1 - dampening) * d_p
                d_p = d_p + momentum * buf._data if nesterov else buf._data
            x += -lr * d_p
            bump(p)


class Adam(Optimizer):
    """Adam: m = lerp(m, g, 1 - beta1), v = beta2 * v + (1 - beta2) * g * g, and
    p -= lr / (1 - beta1**t) * m / (sqrt(v) / sqrt(1 - beta2**t) + eps), with the largest
    v so far for amsgrad. weight_decay adds weight_decay * p to g, or with
    decoupled_weight_decay (AdamW) scales p by 1 - lr * weight_decay first."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, amsgrad=False, *,
                 foreach=None, maximize=False, capturable=False, differentiable=False, fused=None,
                 decoupled_weight_decay=False):
        _check(lr, "learning rate", lr >= 0.0)
        _check(eps, "epsilon value", eps >= 0.0)
        _check(betas[0], "beta parameter at index 0", 0.0 <= betas[0] < 1.0)
        _check(betas[1], "beta parameter at index 1", 0.0 <= betas[1] < 1.0)
        _check(weight_decay, "weight_decay value", weight_decay >= 0.0)
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, amsgrad=amsgrad, maximize=maximize,
                        foreach=foreach, capturable=capturable, differentiable=differentiable, fused=fused,
                        decoupled_weight_decay=decoupled_weight_decay)
        super().__init__(params, defaults)

    def _update(self, group):
        (beta1, beta2), lr, eps = group["betas"], group["lr"], group["eps"]
        weight_decay, amsgrad = group["weight_decay"], group["amsgrad"]
        for p in group["params"]:
            if p._grad is None:
                continue
            x = p._data
            grad = -p._grad._data if group["maximize"] else p._grad._data
            state = self.state[p]
            if not state:
                state["step"] = Tensor._make(np.array(0.0, dtype=np.float32))
                state["exp_avg"] = _leaf_copy(np.zeros_like(x))
                state["exp_avg_sq"] = _leaf_copy(np.zeros_like(x))
                if amsgrad:
                    state["max_exp_avg_sq"] = _leaf_copy(np.zeros_like(x))
            state["step"]._data += 1
            step = float(state["step"]._data)
            if weight_decay != 0:
                if group["decoupled_weight_decay"]:
                    x *= 1 - lr * weight_decay
                else:
                    grad = grad + weight_decay * x
            m, v = state["exp_avg"]._data, state["exp_avg_sq"]._data
            weight = 1 - beta1  # m.lerp_(grad, weight), as PyTorch computes it on each side of 0.5
            if weight < 0.5:
                m += weight * (grad - m)
            else:
                m[...] = grad - (grad - m) * (1 - weight)
            v *= beta2
            v += (1 - beta2) * grad * grad
            if amsgrad:
                v = np.maximum(state["max_exp_avg_sq"]._data, v, out=state["max_exp_avg_sq"]._data)
            denom = np.sqrt(v) / math.sqrt(1 - beta2**step) + eps
            x += -(lr / (1 - beta1**step)) * (m / denom)
            bump(p)
