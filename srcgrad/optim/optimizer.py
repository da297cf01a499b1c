"""`Optimizer`, the base of the optimizers in `torch.optim`: parameter groups, per-parameter
state, `zero_grad`, `step`, `state_dict` / `load_state_dict` and `add_param_group`.

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

import copy
import itertools
import warnings
from collections import defaultdict

import numpy as np

from ..tensor import dtypes
from ..tensor.grad_mode import enable_grad, no_grad
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
        """Add a group: a dict with "params" (a tensor or an ordered collection of leaf
        tensors, none already in a group) and any hyperparameters that differ from the
        defaults."""
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group)}")
        group = dict(param_group)
        params = group["params"]
        if isinstance(params, set):
            raise TypeError(
                "optimizer parameters need to be organized in ordered collections, but the ordering of "
                "tensors in sets will change between runs. Please use a list instead."
            )
        group["params"] = [params] if isinstance(params, Tensor) else list(params)
        for p in group["params"]:
            if not isinstance(p, Tensor):
                raise TypeError(f"optimizer can only optimize Tensors, but one of the params is {type(p).__name__}")
            if not p.is_leaf:
                raise ValueError("can't optimize a non-leaf Tensor")
        for key, value in self.defaults.items():
            group.setdefault(key, value)
        ids = [id(p) for p in group["params"]]
        if len(set(ids)) != len(ids):
            warnings.warn(
                "optimizer contains a parameter group with duplicate parameters; in future, this will cause "
                "an error; see github.com/pytorch/pytorch/issues/40967 for more information",
                stacklevel=3,
            )
        seen = {id(p) for g in self.param_groups for p in g["params"]}
        if seen & set(ids):
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

    @staticmethod
    def _gradients(group):
        """(parameter, its array, its gradient's array, negated under `maximize`) for each
        parameter of `group` that has a gradient, in order."""
        for p in group["params"]:
            if p._grad is not None:
                yield p, p._data, (-p._grad._data if group["maximize"] else p._grad._data)

    # --- saving and restoring -------------------------------------------------------

    def state_dict(self):
        """{'state': {index: {...}}, 'param_groups': [{..., 'params': [index, ...]}]}:
        parameters are numbered in group order, each number given at its first
        appearance. The state's tensors are the optimizer's own (not copies), as in
        PyTorch: copy the dict (`copy.deepcopy`) to keep a snapshot."""
        index = {}
        start = 0
        groups = []
        for group in self.param_groups:
            packed = {k: v for k, v in group.items() if k != "params"}
            for i, p in enumerate(group["params"], start):
                index.setdefault(id(p), i)
            packed["params"] = [index[id(p)] for p in group["params"]]
            start += len(packed["params"])
            groups.append(packed)
        state = {(index[id(k)] if isinstance(k, Tensor) else k): v for k, v in self.state.items()}
        return {"state": state, "param_groups": groups}

    def load_state_dict(self, state_dict):
        """Take the hyperparameters and state of `state_dict` (from `state_dict()` of an
        optimizer whose groups have the same sizes), matching parameters by position.
        State tensors are cast to their parameter's floating dtype (the "step" counter
        excepted); one already of that dtype is taken as it is, not copied."""
        groups = self.param_groups
        saved_groups = copy.deepcopy(state_dict["param_groups"])
        if len(groups) != len(saved_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        if any(len(g["params"]) != len(s["params"]) for g, s in zip(groups, saved_groups)):
            raise ValueError(
                "loaded state dict contains a parameter group that doesn't match the size of optimizer's group"
            )
        by_index = dict(zip(
            itertools.chain.from_iterable(s["params"] for s in saved_groups),
            itertools.chain.from_iterable(g["params"] for g in groups),
        ))
        state = defaultdict(dict)
        for key, value in state_dict["state"].items():
            if key in by_index:
                param = by_index[key]
                state[param] = _cast_state(param, value, _is_fused_or_capturable(key, state_dict["param_groups"]))
            else:
                state[key] = value
        for group, saved in zip(groups, saved_groups):
            saved["params"] = group["params"]
        self.state = state
        self.param_groups = saved_groups
        self._after_load()

    def _after_load(self):
        """Hook for settings a subclass always has (AdamW's decoupled weight decay)."""

    def __repr__(self):
        text = type(self).__name__ + " ("
        for i, group in enumerate(self.param_groups):
            text += f"\nParameter Group {i}\n"
            for key in sorted(group):
                if key != "params":
                    text += f"    {key}: {group[key]}\n"
        return text + ")"


def _is_fused_or_capturable(index, saved_groups):
    for group in saved_groups:
        if index in group["params"]:
            return bool(group.get("fused") or group.get("capturable"))
    return False


def _cast_state(param, value, step_to_float32, key=None):
    """`value` with its tensors in `param`'s floating dtype (PyTorch's `_cast`): "step" stays
    as it is (float32 for fused or capturable groups); dicts, lists and tuples are rebuilt."""
    if isinstance(value, Tensor):
        if key == "step":
            return value.to(dtype=dtypes.float32) if step_to_float32 else value
        return value.to(dtype=param.dtype) if param.dtype.is_floating_point else value
    if isinstance(value, dict):
        return {k: _cast_state(param, v, step_to_float32, k) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_cast_state(param, v, step_to_float32) for v in value)
    return value


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


def scalar_state(value):
    """A 0-d state tensor holding `value` ("mu_product", "eta", "mu") in PyTorch's scalar
    dtype: float64 where the default dtype is float64, float32 otherwise."""
    dtype = np.float64 if dtypes.get_default_dtype() is dtypes.float64 else np.float32
    return Tensor._make(np.array(value, dtype=dtype))


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
