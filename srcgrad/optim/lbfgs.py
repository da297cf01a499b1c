"""`LBFGS`, as `torch.optim.LBFGS`: limited-memory BFGS over all parameters flattened into
one vector, with a fixed step or PyTorch's strong-Wolfe line search.

The arithmetic is PyTorch's, operation by operation: what PyTorch keeps as 0-d tensors
(curvatures, the first step, directional derivatives) are NumPy scalars of the
parameters' dtype here, so float32 parameters round where PyTorch's do; losses are
Python floats (`float(closure())`). Between steps the state holds tensors, as PyTorch's.
"""

import numpy as np

from ..tensor.grad_mode import enable_grad, no_grad
from ..tensor.tensor import Tensor
from ..tensor.versions import bump
from .optimizer import Optimizer, check_hyperparameter, multiply_add

__all__ = ["LBFGS"]


def _cubic_interpolate(x1, f1, g1, x2, f2, g2, bounds=None):
    """The minimizer of the cubic through (x1, f1, g1) and (x2, f2, g2), clamped to `bounds`
    (the interval's midpoint where the cubic has none)."""
    if bounds is not None:
        xmin_bound, xmax_bound = bounds
    else:
        xmin_bound, xmax_bound = (x1, x2) if x1 <= x2 else (x2, x1)
    d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2)
    d2_square = d1**2 - g1 * g2
    if d2_square >= 0:
        d2 = np.sqrt(d2_square)
        if x1 <= x2:
            min_pos = x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
        else:
            min_pos = x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2))
        return min(max(min_pos, xmin_bound), xmax_bound)
    return (xmin_bound + xmax_bound) / 2.0


def _strong_wolfe(obj_func, x, t, d, f, g, gtd, c1=1e-4, c2=0.9, tolerance_change=1e-9, max_ls=25):
    """PyTorch's line search along d from the parameters x: bracket a step t meeting the
    strong Wolfe conditions, then zoom by cubic interpolation. Returns (loss, flat
    gradient, t, evaluations)."""
    d_norm = np.abs(d).max()
    g = g.copy()
    f_new, g_new = obj_func(x, t, d)
    ls_func_evals = 1
    gtd_new = g_new.dot(d)
    t_prev, f_prev, g_prev, gtd_prev = 0, f, g, gtd
    done = False
    ls_iter = 0
    while ls_iter < max_ls:
        if f_new > (f + c1 * t * gtd) or (ls_iter > 1 and f_new >= f_prev):
            bracket, bracket_f = [t_prev, t], [f_prev, f_new]
            bracket_g, bracket_gtd = [g_prev, g_new.copy()], [gtd_prev, gtd_new]
            break
        if abs(gtd_new) <= -c2 * gtd:
            bracket, bracket_f, bracket_g = [t], [f_new], [g_new]
            done = True
            break
        if gtd_new >= 0:
            bracket, bracket_f = [t_prev, t], [f_prev, f_new]
            bracket_g, bracket_gtd = [g_prev, g_new.copy()], [gtd_prev, gtd_new]
            break
        min_step = t + 0.01 * (t - t_prev)
        max_step = t * 10
        tmp = t
        t = _cubic_interpolate(t_prev, f_prev, gtd_prev, t, f_new, gtd_new, bounds=(min_step, max_step))
        t_prev, f_prev, g_prev, gtd_prev = tmp, f_new, g_new.copy(), gtd_new
        f_new, g_new = obj_func(x, t, d)
        ls_func_evals += 1
        gtd_new = g_new.dot(d)
        ls_iter += 1
    if ls_iter == max_ls:
        bracket, bracket_f, bracket_g = [0, t], [f, f_new], [g, g_new]

    insuf_progress = False
    low_pos, high_pos = (0, 1) if bracket_f[0] <= bracket_f[-1] else (1, 0)
    while not done and ls_iter < max_ls:
        if abs(bracket[1] - bracket[0]) * d_norm < tolerance_change:
            break
        t = _cubic_interpolate(bracket[0], bracket_f[0], bracket_gtd[0], bracket[1], bracket_f[1], bracket_gtd[1])
        eps = 0.1 * (max(bracket) - min(bracket))
        if min(max(bracket) - t, t - min(bracket)) < eps:
            if insuf_progress or t >= max(bracket) or t <= min(bracket):
                if abs(t - max(bracket)) < abs(t - min(bracket)):
                    t = max(bracket) - eps
                else:
                    t = min(bracket) + eps
                insuf_progress = False
            else:
                insuf_progress = True
        else:
            insuf_progress = False
        f_new, g_new = obj_func(x, t, d)
        ls_func_evals += 1
        gtd_new = g_new.dot(d)
        ls_iter += 1
        if f_new > (f + c1 * t * gtd) or f_new >= bracket_f[low_pos]:
            bracket[high_pos], bracket_f[high_pos] = t, f_new
            bracket_g[high_pos], bracket_gtd[high_pos] = g_new.copy(), gtd_new
            low_pos, high_pos = (0, 1) if bracket_f[0] <= bracket_f[1] else (1, 0)
        else:
            if abs(gtd_new) <= -c2 * gtd:
                done = True
            elif gtd_new * (bracket[high_pos] - bracket[low_pos]) >= 0:
                bracket[high_pos], bracket_f[high_pos] = bracket[low_pos], bracket_f[low_pos]
                bracket_g[high_pos], bracket_gtd[high_pos] = bracket_g[low_pos], bracket_gtd[low_pos]
            bracket[low_pos], bracket_f[low_pos] = t, f_new
            bracket_g[low_pos], bracket_gtd[low_pos] = g_new.copy(), gtd_new
    return bracket_f[low_pos], bracket_g[low_pos], bracket[low_pos], ls_func_evals


def _to_tensor(value):
    """A state entry as PyTorch keeps it: arrays and NumPy scalars as tensors."""
    if isinstance(value, (np.ndarray, np.generic)):
        return Tensor._make(np.array(value))
    if isinstance(value, list):
        return [_to_tensor(v) for v in value]
    return value


def _to_array(value):
    """A state entry as `step` computes with it: tensors as arrays, 0-d ones as scalars."""
    if isinstance(value, Tensor):
        data = value._data
        return data[()] if data.ndim == 0 else data.copy()
    if isinstance(value, list):
        return [_to_array(v) for v in value]
    return value


class LBFGS(Optimizer):
    """L-BFGS over one parameter group: each `step(closure)` runs up to max_iter
    iterations (max_eval evaluations of `closure`, which must recompute the loss and the
    gradients), stopping on tolerance_grad / tolerance_change as PyTorch does; the last
    history_size curvature pairs shape the direction. The first iteration's step is
    min(1, 1 / sum|g|) * lr, later ones lr, or what the strong-Wolfe search finds.
    State (keyed by the first parameter): "func_evals", "n_iter", "d", "t", "old_dirs",
    "old_stps", "ro", "H_diag", "prev_flat_grad", "prev_loss" and "al"."""

    _STATE_KEYS = ("d", "t", "old_dirs", "old_stps", "ro", "H_diag", "prev_flat_grad", "prev_loss")

    def __init__(self, params, lr=1, max_iter=20, max_eval=None, tolerance_grad=1e-7, tolerance_change=1e-9,
                 history_size=100, line_search_fn=None):
        check_hyperparameter(lr, "learning rate", lr >= 0.0)
        if max_eval is None:
            max_eval = max_iter * 5 // 4
        defaults = dict(lr=lr, max_iter=max_iter, max_eval=max_eval, tolerance_grad=tolerance_grad,
                        tolerance_change=tolerance_change, history_size=history_size,
                        line_search_fn=line_search_fn)
        super().__init__(params, defaults)
        if len(self.param_groups) != 1:
            raise ValueError("LBFGS doesn't support per-parameter options (parameter groups)")
        self._params = self.param_groups[0]["params"]

    def _flat_grad(self):
        dtype = np.result_type(*[p._data.dtype for p in self._params])
        return np.concatenate([
            np.zeros(p._data.size, dtype) if p._grad is None else p._grad._data.ravel()
            for p in self._params
        ])

    def _add_grad(self, step_size, update):
        offset = 0
        for p in self._params:
            x = p._data
            x[...] = multiply_add(step_size, update[offset:offset + x.size].reshape(x.shape), x)
            offset += x.size
            bump(p)

    def _set_param(self, saved):
        for p, data in zip(self._params, saved):
            p._data[...] = data
            bump(p)

    def _evaluate(self, closure):
        with enable_grad():
            return closure()

    def step(self, closure):
        """Run the iterations; returns the loss `closure` gave at the start."""
        with no_grad():
            return self._step(closure)

    def _step(self, closure):
        group = self.param_groups[0]
        lr, max_iter, max_eval = group["lr"], group["max_iter"], group["max_eval"]
        tolerance_grad, tolerance_change = group["tolerance_grad"], group["tolerance_change"]
        line_search_fn, history_size = group["line_search_fn"], group["history_size"]

        state = self.state[self._params[0]]
        state.setdefault("func_evals", 0)
        state.setdefault("n_iter", 0)

        orig_loss = self._evaluate(closure)
        loss = float(orig_loss)
        current_evals = 1
        state["func_evals"] += 1
        flat_grad = self._flat_grad()
        scalar = flat_grad.dtype.type
        if np.abs(flat_grad).max() <= tolerance_grad:
            return orig_loss

        d, t, old_dirs, old_stps, ro, H_diag, prev_flat_grad, prev_loss = (
            _to_array(state.get(key)) for key in self._STATE_KEYS
        )
        al = _to_array(state.get("al"))
        opt_cond = False
        n_iter = 0
        while n_iter < max_iter:
            n_iter += 1
            state["n_iter"] += 1
            if state["n_iter"] == 1:
                d = -flat_grad
                old_dirs, old_stps, ro = [], [], []
                H_diag = 1
            else:
                y = flat_grad - prev_flat_grad
                s = d * t
                ys = y.dot(s)
                if ys > 1e-10:
                    if len(old_dirs) == history_size:
                        old_dirs.pop(0)
                        old_stps.pop(0)
                        ro.pop(0)
                    old_dirs.append(y)
                    old_stps.append(s)
                    ro.append(scalar(1.0 / ys))
                    H_diag = scalar(ys / y.dot(y))
                num_old = len(old_dirs)
                if al is None:
                    al = [None] * history_size
                q = -flat_grad
                for i in range(num_old - 1, -1, -1):
                    al[i] = scalar(old_stps[i].dot(q) * ro[i])
                    q = multiply_add(-al[i], old_dirs[i], q)
                d = r = q * H_diag
                for i in range(num_old):
                    be_i = scalar(old_dirs[i].dot(r) * ro[i])
                    r[...] = multiply_add(scalar(al[i] - be_i), old_stps[i], r)
            prev_flat_grad = flat_grad.copy()
            prev_loss = loss
            if state["n_iter"] == 1:
                t = min(1.0, scalar(1.0 / np.abs(flat_grad).sum()))
                t = scalar(t * lr) if isinstance(t, np.generic) else t * lr
            else:
                t = lr
            gtd = flat_grad.dot(d)
            if gtd > -tolerance_change:
                break

            ls_func_evals = 0
            if line_search_fn is not None:
                if line_search_fn != "strong_wolfe":
                    raise RuntimeError("only 'strong_wolfe' is supported")
                x_init = [p._data.copy() for p in self._params]

                def obj_func(x, step, direction):
                    self._add_grad(step, direction)
                    value = float(self._evaluate(closure))
                    gradient = self._flat_grad()
                    self._set_param(x)
                    return value, gradient

                loss, flat_grad, t, ls_func_evals = _strong_wolfe(
                    obj_func, x_init, t, d, loss, flat_grad, gtd, max_ls=max_eval - current_evals
                )
                self._add_grad(t, d)
                opt_cond = np.abs(flat_grad).max() <= tolerance_grad
            else:
                self._add_grad(t, d)
                if n_iter != max_iter:
                    loss = float(self._evaluate(closure))
                    flat_grad = self._flat_grad()
                    opt_cond = np.abs(flat_grad).max() <= tolerance_grad
                    ls_func_evals = 1
            current_evals += ls_func_evals
            state["func_evals"] += ls_func_evals

            if n_iter == max_iter or current_evals >= max_eval or opt_cond:
                break
            if np.abs(d * t).max() <= tolerance_change:
                break
            if abs(loss - prev_loss) < tolerance_change:
                break

        for key, value in zip(self._STATE_KEYS, (d, t, old_dirs, old_stps, ro, H_diag, prev_flat_grad, prev_loss)):
            state[key] = _to_tensor(value)
        if al is not None:
            state["al"] = _to_tensor(al)
        return orig_loss
