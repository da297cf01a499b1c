"""`Adamax`, `NAdam` and `RAdam`, as in `torch.optim`: Adam's running averages with an
infinity norm (Adamax), Nesterov momentum (NAdam) or a rectified adaptive rate (RAdam)."""

import numpy as np

from ..tensor.versions import bump
from .optimizer import (
    Optimizer, check_hyperparameter, lerp_, multiply_add, scalar_state, state_array, step_counter,
)

__all__ = ["Adamax", "NAdam", "RAdam"]


def _check_adam_like(lr, betas, eps, weight_decay):
    check_hyperparameter(lr, "learning rate", lr >= 0.0)
    check_hyperparameter(eps, "epsilon value", eps >= 0.0)
    check_hyperparameter(betas[0], "beta parameter at index 0", 0.0 <= betas[0] < 1.0)
    check_hyperparameter(betas[1], "beta parameter at index 1", 0.0 <= betas[1] < 1.0)
    check_hyperparameter(weight_decay, "weight_decay value", weight_decay >= 0.0)


def _decay(p, x, grad, lr, weight_decay, decoupled):
    """The gradient with weight decay added, or (decoupled) p scaled by 1 - lr * weight_decay."""
    if weight_decay == 0:
        return grad
    if decoupled:
        x *= 1 - lr * weight_decay
        bump(p)
        return grad
    return multiply_add(weight_decay, x, grad)


def _moments(state, grad, beta1, beta2):
    """Adam's m = lerp(m, g, 1 - beta1) and v = beta2 * v + (1 - beta2) * g * g, in place."""
    m, v = state["exp_avg"]._data, state["exp_avg_sq"]._data
    lerp_(m, grad, 1 - beta1)
    v *= beta2
    v[...] = multiply_add((1 - beta2) * grad, grad, v)
    return m, v


def _adam_state(state, x):
    state["step"] = step_counter()
    state["exp_avg"] = state_array(np.zeros_like(x))
    state["exp_avg_sq"] = state_array(np.zeros_like(x))


class Adamax(Optimizer):
    """Adamax: m = lerp(m, g, 1 - beta1), u = max(beta2 * u, |g| + eps) and
    p -= lr / (1 - beta1**t) * m / u. State: "step", "exp_avg" (m), "exp_inf" (u)."""

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, foreach=None, *,
                 maximize=False, differentiable=False, capturable=False):
        _check_adam_like(lr, betas, eps, weight_decay)
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, foreach=foreach, maximize=maximize,
                        differentiable=differentiable, capturable=capturable)
        super().__init__(params, defaults)

    def _update(self, group):
        (beta1, beta2), lr, eps, weight_decay = group["betas"], group["lr"], group["eps"], group["weight_decay"]
        for p, x, grad in self._gradients(group):
            state = self.state[p]
            if not state:
                state["step"] = step_counter()
                state["exp_avg"] = state_array(np.zeros_like(x))
                state["exp_inf"] = state_array(np.zeros_like(x))
            state["step"]._data += 1
            step = float(state["step"]._data)
            grad = _decay(p, x, grad, lr, weight_decay, False)
            m, u = state["exp_avg"]._data, state["exp_inf"]._data
            lerp_(m, grad, 1 - beta1)
            u *= beta2
            bound = np.abs(grad)
            bound += eps
            np.maximum(u, bound, out=u)
            clr = lr / (1 - beta1**step)
            x += -clr * m / u
            bump(p)


class NAdam(Optimizer):
    """NAdam: Adam's moments with the momentum schedule mu_t = beta1 * (1 - 0.96**(t *
    momentum_decay) / 2); with d = sqrt(v / (1 - beta2**t)) + eps and P_t the product of
    mu_1 .. mu_t, p -= lr * (1 - mu_t) / (1 - P_t) * g / d + lr * mu_{t+1} / (1 - P_t *
    mu_{t+1}) * m / d. State: "step", "mu_product" (P_t, a 0-d float32 tensor whose
    rounding counts, as in PyTorch), "exp_avg", "exp_avg_sq"."""

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, momentum_decay=4e-3,
                 decoupled_weight_decay=False, *, foreach=None, maximize=False, capturable=False,
                 differentiable=False):
        _check_adam_like(lr, betas, eps, weight_decay)
        check_hyperparameter(momentum_decay, "momentum_decay value", momentum_decay >= 0.0)
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, momentum_decay=momentum_decay,
                        decoupled_weight_decay=decoupled_weight_decay, maximize=maximize, foreach=foreach,
                        capturable=capturable, differentiable=differentiable)
        super().__init__(params, defaults)

    def _update(self, group):
        (beta1, beta2), lr, eps = group["betas"], group["lr"], group["eps"]
        weight_decay, momentum_decay = group["weight_decay"], group["momentum_decay"]
        for p, x, grad in self._gradients(group):
            state = self.state[p]
            if not state:
                state["step"] = step_counter()
                state["mu_product"] = scalar_state(1.0)
                state["exp_avg"] = state_array(np.zeros_like(x))
                state["exp_avg_sq"] = state_array(np.zeros_like(x))
            state["step"]._data += 1
            step = float(state["step"]._data)
            bias_correction2 = 1 - beta2**step
            grad = _decay(p, x, grad, lr, weight_decay, group["decoupled_weight_decay"])
            mu = beta1 * (1.0 - 0.5 * (0.96 ** (step * momentum_decay)))
            mu_next = beta1 * (1.0 - 0.5 * (0.96 ** ((step + 1) * momentum_decay)))
            mu_product = state["mu_product"]._data
            mu_product *= mu_product.dtype.type(mu)  # in the state's dtype, as PyTorch's 0-d tensor
            m, v = _moments(state, grad, beta1, beta2)
            denom = np.sqrt(v / bias_correction2)
            denom += eps
            product = float(mu_product)
            x += (-lr * (1.0 - mu) / (1.0 - product)) * grad / denom
            bump(p)  # two in-place writes, as PyTorch's two addcdiv_
            x += ((-lr * mu_next) / (1.0 - product * mu_next)) * m / denom
            bump(p)


class RAdam(Optimizer):
    """RAdam: Adam's moments; with rho_inf = 2 / (1 - beta2) - 1 and rho_t = rho_inf -
    2 t beta2**t / (1 - beta2**t), p -= lr * m / (1 - beta1**t) * r_t * sqrt(1 - beta2**t)
    / (sqrt(v) + eps) where rho_t > 5 (r_t the variance rectification), and
    p -= lr * m / (1 - beta1**t) otherwise. State: "step", "exp_avg", "exp_avg_sq"."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 decoupled_weight_decay=False, *, foreach=None, maximize=False, capturable=False,
                 differentiable=False):
        _check_adam_like(lr, betas, eps, weight_decay)
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, maximize=maximize, foreach=foreach,
                        capturable=capturable, decoupled_weight_decay=decoupled_weight_decay,
                        differentiable=differentiable)
        super().__init__(params, defaults)

    def _update(self, group):
        (beta1, beta2), lr, eps, weight_decay = group["betas"], group["lr"], group["eps"], group["weight_decay"]
        for p, x, grad in self._gradients(group):
            state = self.state[p]
            if not state:
                _adam_state(state, x)
            state["step"]._data += 1
            step = float(state["step"]._data)
            grad = _decay(p, x, grad, lr, weight_decay, group["decoupled_weight_decay"])
            m, v = _moments(state, grad, beta1, beta2)
            bias_correction1 = 1 - beta1**step
            bias_correction2 = 1 - beta2**step
            corrected = m / bias_correction1
            rho_inf = 2 / (1 - beta2) - 1
            rho_t = rho_inf - 2 * step * (beta2**step) / bias_correction2
            if rho_t > 5.0:
                rect = ((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t)) ** 0.5
                root = np.sqrt(v)
                root += eps
                x -= corrected * lr * ((bias_correction2**0.5) / root) * rect
            else:
                x -= corrected * lr
            bump(p)
