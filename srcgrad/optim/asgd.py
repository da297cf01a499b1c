"""`ASGD`, as `torch.optim.ASGD`: SGD with a decaying rate and a running average of the
parameters (kept in the state as "ax")."""

import numpy as np

from ..tensor.versions import bump
from .optimizer import Optimizer, check_hyperparameter, multiply_add, scalar_state, state_array, step_counter

__all__ = ["ASGD"]


class ASGD(Optimizer):
    """ASGD: with gradient g (plus weight_decay * p) and rate eta, p *= 1 - lambd * eta and
    p -= eta * g; the average ax moves to p with weight mu (ax = p while mu is 1). After
    step t, eta = lr / (1 + lambd * lr * t)**alpha and mu = 1 / max(1, t - t0). State:
    "step", "eta" and "mu" (0-d float32 tensors, whose rounding counts, as in PyTorch),
    "ax"."""

    def __init__(self, params, lr=1e-2, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0, foreach=None,
                 maximize=False, differentiable=False, capturable=False):
        check_hyperparameter(lr, "learning rate", lr >= 0.0)
        check_hyperparameter(weight_decay, "weight_decay value", weight_decay >= 0.0)
        defaults = dict(lr=lr, lambd=lambd, alpha=alpha, t0=t0, weight_decay=weight_decay, foreach=foreach,
                        maximize=maximize, differentiable=differentiable, capturable=capturable)
        super().__init__(params, defaults)

    def _update(self, group):
        lr, lambd, alpha, t0 = group["lr"], group["lambd"], group["alpha"], group["t0"]
        weight_decay = group["weight_decay"]
        for p, x, grad in self._gradients(group):
            state = self.state[p]
            if not state:
                state["step"] = step_counter()
                state["eta"] = scalar_state(lr)
                state["mu"] = scalar_state(1.0)
                state["ax"] = state_array(np.zeros_like(x))
            state["step"]._data += 1
            if weight_decay != 0:
                grad = multiply_add(weight_decay, x, grad)
            eta, mu = float(state["eta"]._data), float(state["mu"]._data)
            x *= 1 - lambd * eta
            bump(p)  # two in-place writes, as PyTorch's mul_ and add_
            x[...] = multiply_add(-eta, grad, x)
            ax = state["ax"]._data
            if mu != 1:
                ax += (x - ax) * mu
            else:
                ax[...] = x
            step = float(state["step"]._data)
            state["eta"]._data[...] = lr / ((1 + lambd * lr * step) ** alpha)
            state["mu"]._data[...] = 1 / max(1, step - t0)
            bump(p)
