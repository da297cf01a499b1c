"""`Adagrad`, as `torch.optim.Adagrad`: steps divided by the root of the sum of all
squared gradients so far."""

import numpy as np

from ..tensor.versions import bump
from .optimizer import Optimizer, check_hyperparameter, multiply_add, state_array, step_counter

__all__ = ["Adagrad"]


class Adagrad(Optimizer):
    """Adagrad: with gradient g (plus weight_decay * p) at step t, s += g * g and
    p -= lr / (1 + (t - 1) * lr_decay) * g / (sqrt(s) + eps); s starts at
    initial_accumulator_value. State: "step" and "sum", made in the constructor for the
    groups given there and at a parameter's first step for groups added later (which, as
    in PyTorch, start from the constructor's initial_accumulator_value, not the group's)."""

    def __init__(self, params, lr=1e-2, lr_decay=0, weight_decay=0, initial_accumulator_value=0, eps=1e-10,
                 foreach=None, *, maximize=False, differentiable=False, fused=None):
        check_hyperparameter(lr, "learning rate", lr >= 0.0)
        check_hyperparameter(lr_decay, "lr_decay value", lr_decay >= 0.0)
        check_hyperparameter(weight_decay, "weight_decay value", weight_decay >= 0.0)
        check_hyperparameter(initial_accumulator_value, "initial_accumulator_value value",
                             initial_accumulator_value >= 0.0)
        check_hyperparameter(eps, "epsilon value", eps >= 0.0)
        defaults = dict(lr=lr, lr_decay=lr_decay, eps=eps, weight_decay=weight_decay,
                        initial_accumulator_value=initial_accumulator_value, foreach=foreach, maximize=maximize,
                        differentiable=differentiable, fused=fused)
        super().__init__(params, defaults)
        for group in self.param_groups:
            for p in group["params"]:
                self._init_state(p, initial_accumulator_value)

    def _init_state(self, p, initial_accumulator_value):
        state = self.state[p]
        state["step"] = step_counter()
        state["sum"] = state_array(np.full_like(p._data, initial_accumulator_value))

    def _update(self, group):
        lr, lr_decay, eps, weight_decay = group["lr"], group["lr_decay"], group["eps"], group["weight_decay"]
        for p, x, grad in self._gradients(group):
            if not self.state[p]:
                self._init_state(p, self.defaults["initial_accumulator_value"])
            state = self.state[p]
            state["step"]._data += 1
            step = float(state["step"]._data)
            if weight_decay != 0:
                grad = multiply_add(weight_decay, x, grad)
            clr = lr / (1 + (step - 1) * lr_decay)
            total = state["sum"]._data
            total[...] = multiply_add(grad, grad, total)
            std = np.sqrt(total)
            std += eps
            x += -clr * grad / std
            bump(p)
