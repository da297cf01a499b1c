"""`Adadelta`, as `torch.optim.Adadelta`: steps scaled by the ratio of running root mean
squares of past updates and of past gradients."""

import numpy as np

from ..tensor.versions import bump
from .optimizer import Optimizer, check_hyperparameter, multiply_add, state_array, step_counter

__all__ = ["Adadelta"]


class Adadelta(Optimizer):
    """Adadelta: with gradient g (plus weight_decay * p), v = rho * v + (1 - rho) * g * g,
    delta = sqrt(u + eps) / sqrt(v + eps) * g, u = rho * u + (1 - rho) * delta * delta
    and p -= lr * delta. State: "step", "square_avg" (v) and "acc_delta" (u)."""

    def __init__(self, params, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0, foreach=None, *, capturable=False,
                 maximize=False, differentiable=False):
        check_hyperparameter(lr, "learning rate", lr >= 0.0)
        check_hyperparameter(rho, "rho value", 0.0 <= rho <= 1.0)
        check_hyperparameter(eps, "epsilon value", eps >= 0.0)
        check_hyperparameter(weight_decay, "weight_decay value", weight_decay >= 0.0)
        defaults = dict(lr=lr, rho=rho, eps=eps, weight_decay=weight_decay, maximize=maximize,
                        capturable=capturable, foreach=foreach, differentiable=differentiable)
        super().__init__(params, defaults)

    def _update(self, group):
        lr, rho, eps, weight_decay = group["lr"], group["rho"], group["eps"], group["weight_decay"]
        for p, x, grad in self._gradients(group):
            state = self.state[p]
            if not state:
                state["step"] = step_counter()
                state["square_avg"] = state_array(np.zeros_like(x))
                state["acc_delta"] = state_array(np.zeros_like(x))
            state["step"]._data += 1
            if weight_decay != 0:
                grad = multiply_add(weight_decay, x, grad)
            square_avg, acc_delta = state["square_avg"]._data, state["acc_delta"]._data
            square_avg *= rho
            square_avg[...] = multiply_add((1 - rho) * grad, grad, square_avg)
            std = np.sqrt(square_avg + eps)
            delta = np.sqrt(acc_delta + eps)
            delta /= std
            delta *= grad
            acc_delta *= rho
            acc_delta[...] = multiply_add((1 - rho) * delta, delta, acc_delta)
            x[...] = multiply_add(-lr, delta, x)
            bump(p)
