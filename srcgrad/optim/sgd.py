"""`SGD`: stochastic gradient descent with momentum, dampening, Nesterov momentum and
weight decay, as `torch.optim.SGD`."""

from ..tensor.versions import bump
from .optimizer import Optimizer, check_hyperparameter, multiply_add, state_array

__all__ = ["SGD"]


class SGD(Optimizer):
    """Stochastic gradient descent: with gradient g (plus weight_decay * p), the buffer
    b = g at the first step and momentum * b + (1 - dampening) * g after; the step is
    g + momentum * b (Nesterov) or b, or g without momentum; p -= lr * step.
    State: "momentum_buffer" (with momentum only)."""

    def __init__(self, params, lr=1e-3, momentum=0, dampening=0, weight_decay=0, nesterov=False, *,
                 maximize=False, foreach=None, differentiable=False, fused=None):
        check_hyperparameter(lr, "learning rate", lr >= 0.0)
        check_hyperparameter(momentum, "momentum value", momentum >= 0.0)
        check_hyperparameter(weight_decay, "weight_decay value", weight_decay >= 0.0)
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        defaults = dict(lr=lr, momentum=momentum, dampening=dampening, weight_decay=weight_decay,
                        nesterov=nesterov, maximize=maximize, foreach=foreach, differentiable=differentiable,
                        fused=fused)
        super().__init__(params, defaults)

    def _update(self, group):
        """The momentum buffers are read for every parameter before any update and stored
        back after all of them, as PyTorch does: a parameter listed twice gets two fresh
        buffers at its first step (the last one kept) and then updates one buffer twice."""
        lr, momentum, dampening = group["lr"], group["momentum"], group["dampening"]
        weight_decay, nesterov = group["weight_decay"], group["nesterov"]
        work = list(self._gradients(group))
        bufs = [self.state[p].get("momentum_buffer") for p, _, _ in work] if momentum != 0 else ()
        for i, (p, x, d_p) in enumerate(work):
            if weight_decay != 0:
                d_p = multiply_add(weight_decay, x, d_p)
            if momentum != 0:
                buf = bufs[i]
                if buf is None:
                    buf = bufs[i] = state_array(d_p)
                else:
                    b = buf._data
                    b *= momentum
                    b[...] = multiply_add(1 - dampening, d_p, b)
                d_p = multiply_add(momentum, buf._data, d_p) if nesterov else buf._data
            x[...] = multiply_add(-lr, d_p, x)
            bump(p)
        for (p, _, _), buf in zip(work, bufs):
            self.state[p]["momentum_buffer"] = buf
