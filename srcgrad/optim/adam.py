"""`Adam` and `AdamW`, as `torch.optim.Adam` and `torch.optim.AdamW`: bias-corrected
running averages of the gradient and of its square."""

import numpy as np

from ..tensor.versions import bump
from .optimizer import Optimizer, check_hyperparameter, lerp_, multiply_add, state_array, step_counter

__all__ = ["Adam", "AdamW"]


class Adam(Optimizer):
    """Adam: m = lerp(m, g, 1 - beta1), v = beta2 * v + (1 - beta2) * g * g, and
    p -= lr / (1 - beta1**t) * m / (sqrt(v) / sqrt(1 - beta2**t) + eps), with the largest
    v so far for amsgrad. weight_decay adds weight_decay * p to g, or with
    decoupled_weight_decay (AdamW) scales p by 1 - lr * weight_decay first.
    State: "step", "exp_avg", "exp_avg_sq" and, for amsgrad, "max_exp_avg_sq"."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, amsgrad=False, *,
                 foreach=None, maximize=False, capturable=False, differentiable=False, fused=None,
                 decoupled_weight_decay=False):
        check_hyperparameter(lr, "learning rate", lr >= 0.0)
        check_hyperparameter(eps, "epsilon value", eps >= 0.0)
        check_hyperparameter(betas[0], "beta parameter at index 0", 0.0 <= betas[0] < 1.0)
        check_hyperparameter(betas[1], "beta parameter at index 1", 0.0 <= betas[1] < 1.0)
        check_hyperparameter(weight_decay, "weight_decay value", weight_decay >= 0.0)
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, amsgrad=amsgrad, maximize=maximize,
                        foreach=foreach, capturable=capturable, differentiable=differentiable, fused=fused,
                        decoupled_weight_decay=decoupled_weight_decay)
        super().__init__(params, defaults)

    def _update(self, group):
        (beta1, beta2), lr, eps = group["betas"], group["lr"], group["eps"]
        weight_decay, amsgrad = group["weight_decay"], group["amsgrad"]
        for p, x, grad in self._gradients(group):
            state = self.state[p]
            if not state:
                state["step"] = step_counter()
                state["exp_avg"] = state_array(np.zeros_like(x))
                state["exp_avg_sq"] = state_array(np.zeros_like(x))
                if amsgrad:
                    state["max_exp_avg_sq"] = state_array(np.zeros_like(x))
            state["step"]._data += 1
            step = float(state["step"]._data)
            if weight_decay != 0:
                if group["decoupled_weight_decay"]:
                    x *= 1 - lr * weight_decay
                    bump(p)  # a write of its own, as PyTorch's p.mul_ counts
                else:
                    grad = multiply_add(weight_decay, x, grad)
            m, v = state["exp_avg"]._data, state["exp_avg_sq"]._data
            lerp_(m, grad, 1 - beta1)
            v *= beta2
            v[...] = multiply_add((1 - beta2) * grad, grad, v)
            if amsgrad:
                v = np.maximum(state["max_exp_avg_sq"]._data, v, out=state["max_exp_avg_sq"]._data)
            step_size = lr / (1 - beta1**step)
            denom = np.sqrt(v) / (1 - beta2**step) ** 0.5
            denom += eps
            x += -step_size * m / denom
            bump(p)


class AdamW(Adam):
    """Adam with decoupled weight decay (weight_decay 0.01 by default): each step scales p
    by 1 - lr * weight_decay before the Adam update. A loaded state dict keeps
    decoupled_weight_decay True."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2, amsgrad=False, *,
                 maximize=False, foreach=None, capturable=False, differentiable=False, fused=None):
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, foreach=foreach, maximize=maximize,
                         capturable=capturable, differentiable=differentiable, fused=fused,
                         decoupled_weight_decay=True)

    def _after_load(self):
        for group in self.param_groups:
            group["decoupled_weight_decay"] = True
