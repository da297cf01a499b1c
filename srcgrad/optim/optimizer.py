"""`Optimizer`, the base of the optimizers in `torch.optim`: parameter groups, per-parameter
state, `zero_grad` and `step`.

`step()` runs with grad mode off; a subclass's `_update(group)` changes each parameter's
array in place, so the tensor keeps its identity and storage (and a `from_numpy` array
sees the new values), and calls `bump` so the write counts in the tensor's version (a
graph that saved the old values refuses to run backward, as in PyTorch). The arithmetic
of every update is PyTorch's single-tensor CPU update, operation by operation, in the
parameter's dtype, with its fused multiply-adds rounded once (`multiply_add`): float32
parameters give PyTorch's numbers to float32 rounding, bit for bit where PyTorch's own
kernels round correctly (its vectorized float32 sqrt may be off by one unit in the last
place).
"""

from collections import defaultdict

import numpy as np

from ..tensor.graph import enable_grad, no_grad
from ..tensor.tensor import Tensor

__all__ = ["Optimizer"]


class Optimizer:
    """Parameter groups (`param_groups`: dicts with "params" and the hyperparameters,
    defaults filled in), per-parameter `state` (a dict of dicts keyed by the parameter
    tensor), `zero_grad` and `step`. Subclasses define `_update(group)`."""

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


def check_hyperparameter(value, what, ok):
    """PyTorch's "Invalid <what>: <value>" ValueError where `ok` is False."""
    if not ok:
        raise ValueError(f"Invalid {what}: {value}")


def state_array(array):
    """A leaf tensor holding a copy of `array`: a state buffer (PyTorch's zeros_like etc.)."""
    return Tensor._make(np.array(array, copy=True))


def step_counter():
    """A fresh "step" entry: a 0-d float32 tensor holding 0, as PyTorch keeps it."""
    return Tensor._make(np.array(0.0, dtype=np.float32))


def multiply_add(a, b, c):
    """a * b + c rounded once to c's dtype, as PyTorch's fused CPU kernels (`add` with
    `alpha`, `addcmul`, `lerp`) compute it; Python numbers are first rounded to that dtype,
    as PyTorch's scalar arguments are. float32 goes through float64, where the product
    is exact (the second rounding, float64 to float32, differs from a single one only in
    rare halfway cases); float64 rounds the product and then the sum."""
    dtype = c.dtype
    a, b = np.asarray(a, dtype), np.asarray(b, dtype)
    if dtype.itemsize < 8:
        return (a.astype(np.float64) * b + c).astype(dtype)
    return a * b + c


def lerp_(start, end, weight):
    """`start.lerp_(end, weight)` in place, as PyTorch's CPU kernel computes it: weight
    (rounded to start's dtype) times (end - start) added to start, or (weight - 1) times
    it added to end where |weight| >= 0.5, each in one rounding."""
    weight = start.dtype.type(weight)
    if abs(weight) < 0.5:
        start[...] = multiply_add(weight, end - start, start)
    else:
        start[...] = multiply_add(weight - 1, end - start, end)
