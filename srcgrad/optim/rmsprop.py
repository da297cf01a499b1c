"""`RMSprop`, as `torch.optim.RMSprop`: steps divided by a running root mean square of the
gradient (centered: by the running standard deviation), with optional momentum."""

import numpy as np

from ..tensor.versions import bump
from .optimizer import Optimizer, check_hyperparameter, lerp_, multiply_add, state_array, step_counter

__all__ = ["RMSprop"]


class RMSprop(Optimizer):
    """RMSprop: with gradient g (plus weight_decay * p), v = alpha * v + (1 - alpha) * g * g
    and, centered, a = lerp(a, g, 1 - alpha); the divisor is d = sqrt(v) + eps, or
    sqrt(v - a * a) + eps centered. Without momentum p -= lr * g / d; with it
    b = momentum * b + g / d and p -= lr * b (b starts at 0).
    State: "step", "square_avg", "momentum_buffer" (momentum > 0), "grad_avg" (centered)."""

    def __init__(self, params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0, centered=False,
                 capturable=False, foreach=None, maximize=False, differentiable=False):
        check_hyperparameter(lr, "learning rate", lr >= 0.0)
        check_hyperparameter(eps, "epsilon value", eps >= 0.0)
        check_hyperparameter(momentum, "momentum value", momentum >= 0.0)
        check_hyperparameter(weight_decay, "weight_decay value", weight_decay >= 0.0)
        check_hyperparameter(alpha, "alpha value", alpha >= 0.0)
        defaults = dict(lr=lr, momentum=momentum, alpha=alpha, eps=eps, centered=centered, weight_decay=weight_decay,
                        capturable=capturable, foreach=foreach, maximize=maximize, differentiable=differentiable)
        super().__init__(params, defaults)

    def _update(self, group):
        lr, alpha, eps = group["lr"], group["alpha"], group["eps"]
        weight_decay, momentum, centered = group["weight_decay"], group["momentum"], group["centered"]
        for p, x, grad in self._gradients(group):
            state = self.state[p]
            if not state:
                state["step"] = step_counter()
                state["square_avg"] = state_array(np.zeros_like(x))
                if momentum > 0:
                    state["momentum_buffer"] = state_array(np.zeros_like(x))
                if centered:
                    state["grad_avg"] = state_array(np.zeros_like(x))
            state["step"]._data += 1
            if weight_decay != 0:
                grad = multiply_add(weight_decay, x, grad)
            square_avg = state["square_avg"]._data
            square_avg *= alpha
            square_avg[...] = multiply_add((1 - alpha) * grad, grad, square_avg)
            if centered:
                grad_avg = state["grad_avg"]._data
                lerp_(grad_avg, grad, 1 - alpha)
                avg = np.sqrt(multiply_add(-grad_avg, grad_avg, square_avg))
            else:
                avg = np.sqrt(square_avg)
            avg += eps
            if momentum > 0:
                buf = state["momentum_buffer"]._data
                buf *= momentum
                buf += grad / avg
                x[...] = multiply_add(-lr, buf, x)
            else:
                x += -lr * grad / avg
            bump(p)
