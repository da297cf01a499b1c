"""`srcgrad.autograd.function`, as `torch.autograd.function`: `Function`, `FunctionCtx`
and the `once_differentiable` decorator of a backward."""

import functools

from ..tensor.grad_mode import is_grad_enabled, no_grad
from ..tensor.graph import node_class
from ..tensor.rule_nodes import RefusedNode
from ..tensor.tensor import Tensor
from . import Function, FunctionCtx

__all__ = ["Function", "FunctionCtx", "once_differentiable"]

_TWICE = "trying to differentiate twice a function that was marked with @once_differentiable"


class _DelayedError(RefusedNode):
    """The node of a gradient made by a backward marked `once_differentiable` in a pass
    that records a graph: backward through it raises PyTorch's error, in any pass."""

    __slots__ = ()

    def graph_apply(self, g):
        raise RuntimeError(self.message)


def once_differentiable(fn):
    """`backward(ctx, *grad_outputs)` run with grad mode off, as PyTorch's: where grad
    mode is on and a gradient it gets requires grad (a pass with create_graph), each
    gradient it returns requires grad through a node (PyTorch's `Error`) whose backward
    raises, so differentiating it again is refused rather than silently zero."""

    @functools.wraps(fn)
    def wrapper(ctx, *args):
        with no_grad():
            outputs = fn(ctx, *args)
        if not is_grad_enabled() or not any(isinstance(a, Tensor) and a._requires_grad for a in args):
            return outputs
        single = not isinstance(outputs, tuple)
        wrapped = []
        for v in (outputs,) if single else outputs:
            if not isinstance(v, Tensor):
                wrapped.append(v)
                continue
            leaf = Tensor._make(v._data, True)  # PyTorch's detached alias that requires grad
            out = Tensor._make(v._data, True)
            out._grad_fn = node_class("Error", _DelayedError)(((leaf._accumulate_grad(), 0),), _TWICE)
            wrapped.append(out)
        return wrapped[0] if single else tuple(wrapped)

    return wrapper
