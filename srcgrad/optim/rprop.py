"""`Rprop`, as `torch.optim.Rprop`: per-element step sizes grown while the gradient keeps
its sign and shrunk when it flips; only the gradient's sign moves the parameters."""

import numpy as np

from ..tensor.versions import bump
from .optimizer import Optimizer, check_hyperparameter, state_array, step_counter

__all__ = ["Rprop"]


class Rprop(Optimizer):
    """Rprop: where g * g_prev > 0 the step size is multiplied by etas[1], where it is < 0
    by etas[0] (and that element's gradient is taken as 0, so it does not move now and
    counts as g_prev = 0 next), then clamped to step_sizes; p -= sign(g) * step size.
    State: "step", "prev" (g_prev) and "step_size" (lr at the start)."""

    def __init__(self, params, lr=1e-2, etas=(0.5, 1.2), step_sizes=(1e-6, 50), *, capturable=False, foreach=None,
                 maximize=False, differentiable=False):
        check_hyperparameter(lr, "learning rate", lr >= 0.0)
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ValueError(f"Invalid eta values: {etas[0]}, {etas[1]}")
        defaults = dict(lr=lr, etas=etas, step_sizes=step_sizes, foreach=foreach, maximize=maximize,
                        differentiable=differentiable, capturable=capturable)
        super().__init__(params, defaults)

    def _update(self, group):
        etaminus, etaplus = group["etas"]
        step_size_min, step_size_max = group["step_sizes"]
        for p, x, grad in self._gradients(group):
            state = self.state[p]
            if not state:
                state["step"] = step_counter()
                state["prev"] = state_array(np.zeros_like(x))
                state["step_size"] = state_array(np.full_like(x, group["lr"]))
            state["step"]._data += 1
            prev, step_size = state["prev"]._data, state["step_size"]._data
            factor = np.sign(grad * prev)  # nan stays nan, as in PyTorch
            factor[factor > 0] = etaplus
            factor[factor < 0] = etaminus
            factor[factor == 0] = 1
            step_size *= factor
            np.maximum(step_size, step_size.dtype.type(step_size_min), out=step_size)
            np.minimum(step_size, step_size.dtype.type(step_size_max), out=step_size)
            grad = np.array(grad, copy=True)
            grad[factor == factor.dtype.type(etaminus)] = 0
            x -= np.sign(grad) * step_size
            prev[...] = grad
            bump(p)
