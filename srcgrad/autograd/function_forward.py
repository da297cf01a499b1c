"""Forward-mode AD through a custom `Function` (`srcgrad.autograd.forward_ad`, and so
`func.jvp`/`jacfwd`), as PyTorch's: where an argument of `apply` has a tangent, forward
runs with forward AD off (its ops push no tangents), then the Function's
`jvp(ctx, *tangents)` staticmethod gives the outputs' tangents.

jvp gets one tangent per argument: the argument's tangent as a Tensor over its memory,
zeros for a floating Tensor without one, None for anything else; it runs with forward
AD off (grad mode as it is), and `ctx.saved_tensors` there reads what forward gave
`ctx.save_for_forward`. It returns one tangent per output (a lone Tensor for a lone
output). PyTorch's errors: no jvp; a wrong count; a tangent of another shape; a tangent
for an output marked non-differentiable (or not floating); an input marked dirty whose
tangent jvp did not write in place; an output that is an input or a view of one whose
tangent is no view of that input's tangent. A tangent of None leaves its output
without one.
"""

import contextlib

import numpy as np

from ..tensor.tangents import DUAL_NODES, TANGENTS, set_tangent, size_mismatch, tangent_of
from ..tensor.tensor import Tensor

__all__ = ["E_NO_JVP", "forward_ad_off", "input_tangents", "run_jvp"]

E_NO_JVP = "You must implement the jvp function for custom autograd.Function to use it with forward mode AD."


@contextlib.contextmanager
def forward_ad_off():
    """Ops inside push no tangents (PyTorch runs a custom Function's forward and jvp so);
    every tangent is back on exit."""
    held = dict(TANGENTS)
    TANGENTS.clear()
    try:
        yield
    finally:
        TANGENTS.update(held)


def input_tangents(args):
    """What jvp gets for `args`: one Tensor per floating Tensor argument (its tangent,
    sharing its memory, or zeros), None for any other argument."""
    out = []
    for a in args:
        if not isinstance(a, Tensor) or a._data.dtype.kind not in "fc":
            out.append(None)
            continue
        t = tangent_of(a)
        out.append(Tensor._make(np.zeros(a._data.shape, a._data.dtype) if t is None else t))
    return out


def run_jvp(cls, ctx, args, tangents, results, outputs):
    """Call `cls.jvp(ctx, *tangents)` and give each Tensor of `outputs` (what apply returns,
    one per entry of `results`, forward's outputs) its tangent; `ctx.non_differentiable`
    and `ctx.dirty` name entries of `results` and `args`."""
    ctx._in_jvp = True
    try:
        with forward_ad_off():
            found = cls.jvp(ctx, *tangents)
    finally:
        ctx._in_jvp = False
    found = found if isinstance(found, tuple) else (found,)
    if len(found) != len(results):
        raise RuntimeError(f"Function's jvp returned an invalid number of forward gradients (expected {len(results)} "
                           f"but got {len(found)})")
    for k, (result, out, t) in enumerate(zip(results, outputs, found)):
        if t is None:
            continue
        if (not isinstance(out, Tensor) or out._data.dtype.kind not in "fc"
                or any(result is n for n in ctx.non_differentiable)):
            raise RuntimeError(f"Function's jvp returned a gradient at position {k}, but  the corresponding forward "
                               "output is not a differentiable Tensor.You should return None at that position instead.")
        data = t._data if isinstance(t, Tensor) else np.asarray(t)
        if data.shape != out._data.shape:
            raise RuntimeError(size_mismatch(out._data.shape, data.shape))
        _check_aliasing(result, t, args, tangents, ctx.dirty)
        set_tangent(out, data)
        if out._grad_fn is not None:
            DUAL_NODES.add(out._grad_fn)


def _check_aliasing(result, t, args, tangents, dirty):
    """PyTorch's errors where an output is an input (or a view of one) whose tangent jvp
    did not give back in place (dirty) or as a view."""
    for a, ta in zip(args, tangents):
        if ta is None or not np.shares_memory(a._data, result._data):
            continue
        if any(a is d for d in dirty):
            if t is not ta:
                raise RuntimeError(
                    "An inplace custom Function is not modifying the forward mode gradients inplace. If the forward is "
                    "modifying an input inplace, then the jvp function must modify the corresponding gradient inplace.")
        elif t is ta or not (isinstance(t, Tensor) and np.shares_memory(t._data, ta._data)):
            raise RuntimeError(
                "A custom Function's forward is returning a view (or an input as-is) but the jvp is not returning a "
                "view.")
