"""The hooks of `Module`, as PyTorch's: forward pre-hooks (may replace the inputs),
forward hooks (may replace the output), full backward pre-hooks (may replace the
gradient of the output) and full backward hooks (given the gradients with respect to
the module's inputs and output; may replace the former).

A module with backward hooks passes its Tensor inputs and outputs through identity
nodes (BackwardHookFunctionBackward, as PyTorch's), which see the gradients that reach
the module's output and leave through its inputs. Each Tensor goes through a node of its
own, so where several inputs (or outputs) require grad the hook sees them all but may
not replace them (a clear error).
"""

import collections
import warnings

from ..autograd import Function
from ..tensor import Tensor, is_grad_enabled
from ..utils.hooks import RemovableHandle

__all__ = ["ModuleHooks"]

_TABLES = ("_forward_pre_hooks", "_forward_pre_hooks_with_kwargs", "_forward_hooks", "_forward_hooks_with_kwargs",
           "_forward_hooks_always_called", "_backward_pre_hooks", "_backward_hooks")

_NO_INPUT_GRAD = ("Full backward hook is firing when gradients are computed with respect to module outputs since no "
                  "inputs require gradients. See https://docs.pytorch.org/docs/main/generated/torch.nn.Module.html"
                  "#torch.nn.Module.register_full_backward_hook for more details.")


class BackwardHookFunction(Function):
    """The identity, whose backward hands the gradient to `state` (a _Pass) as entry
    `index` of the module's inputs (`side` "input") or outputs ("output")."""

    @staticmethod
    def forward(ctx, tensor, state, side, index):
        ctx.state, ctx.side, ctx.index = state, side, index
        return tensor.detach()

    @staticmethod
    def backward(ctx, grad):
        return ctx.state.arrived(ctx.side, ctx.index, grad), None, None, None


class _Pass:
    """What one call of a module with backward hooks learns in its backward pass."""

    def __init__(self, module, inputs_needing, input_count, outputs_needing, output_count):
        self.module = module
        self.inputs_needing, self.outputs_needing = inputs_needing, outputs_needing
        self.grad_inputs, self.grad_outputs = [None] * input_count, [None] * output_count
        self.inputs_seen = self.outputs_seen = 0

    def arrived(self, side, index, grad):
        if side == "output":
            return self._output_arrived(index, grad)
        self.grad_inputs[index] = grad
        self.inputs_seen += 1
        if self.inputs_seen < len(self.inputs_needing):
            return grad
        replaced = self._call_backward_hooks(tuple(self.grad_inputs))
        return grad if replaced is None else replaced[index]

    def _output_arrived(self, index, grad):
        self.grad_outputs[index] = grad
        self.outputs_seen += 1
        if self.outputs_seen < len(self.outputs_needing):
            return grad
        module = self.module
        for hook in list(module._backward_pre_hooks.values()):
            result = hook(module, tuple(self.grad_outputs))
            if result is not None:
                result = result if isinstance(result, tuple) else (result,)
                if len(self.outputs_needing) > 1 and any(r is not g for r, g in zip(result, self.grad_outputs)):
                    raise NotImplementedError(_several(module, "backward pre-hook", "output"))
                self.grad_outputs = list(result)
        if not self.inputs_needing:
            if module._backward_hooks:
                warnings.warn(_NO_INPUT_GRAD, UserWarning, stacklevel=2)
            self._call_backward_hooks(tuple(self.grad_inputs))
        return self.grad_outputs[index]

    def _call_backward_hooks(self, grad_inputs):
        module, replaced = self.module, None
        for hook in list(module._backward_hooks.values()):
            result = hook(module, grad_inputs if replaced is None else replaced, tuple(self.grad_outputs))
            if result is not None:
                result = tuple(result) if isinstance(result, (tuple, list)) else (result,)
                if len(result) != len(grad_inputs):
                    raise RuntimeError(f"Backward hook returned an invalid number of grad_input, got {len(result)}, "
                                       f"but expected {len(grad_inputs)}")
                if len(self.inputs_needing) > 1:
                    raise NotImplementedError(_several(module, "backward hook", "input"))
                replaced = result
        return replaced


def _several(module, what, side):
    return (f"a {what} of {type(module).__name__} replaced the gradient of one of several {side}s that require grad; "
            f"the Tensor shim passes each {side} through a node of its own and can replace such a gradient only "
            f"where one {side} requires grad")


def _wrapped(values, state, side, needing):
    """`values` (a Tensor or a tuple) with each Tensor that requires grad passed through
    a BackwardHookFunction node."""
    single = isinstance(values, Tensor)
    items = (values,) if single else values
    out = tuple(BackwardHookFunction.apply(v, state, side, i) if i in needing else v for i, v in enumerate(items))
    return out[0] if single else out


def _needing(values):
    items = (values,) if isinstance(values, Tensor) else (values if isinstance(values, tuple) else ())
    return [i for i, v in enumerate(items) if isinstance(v, Tensor) and v.requires_grad]


class ModuleHooks:
    """The hook tables and registrations of Module, and its call with hooks."""

    def _init_hooks(self):
        for name in _TABLES:
            object.__setattr__(self, name, collections.OrderedDict())

    def register_forward_pre_hook(self, hook, *, prepend=False, with_kwargs=False):
        """`hook(module, args)` (with_kwargs: `hook(module, args, kwargs)`) before forward;
        what it returns (not None) replaces the positional arguments (and keywords)."""
        handle = RemovableHandle(self._forward_pre_hooks, extra_dict=self._forward_pre_hooks_with_kwargs)
        _store(self._forward_pre_hooks, handle.id, hook, prepend)
        if with_kwargs:
            self._forward_pre_hooks_with_kwargs[handle.id] = True
        return handle

    def register_forward_hook(self, hook, *, prepend=False, with_kwargs=False, always_call=False):
        """`hook(module, args, output)` (with_kwargs: `hook(module, args, kwargs, output)`)
        after forward; what it returns (not None) replaces the output."""
        handle = RemovableHandle(self._forward_hooks,
                                 extra_dict=[self._forward_hooks_with_kwargs, self._forward_hooks_always_called])
        _store(self._forward_hooks, handle.id, hook, prepend)
        if with_kwargs:
            self._forward_hooks_with_kwargs[handle.id] = True
        if always_call:
            self._forward_hooks_always_called[handle.id] = True
        return handle

    def register_full_backward_pre_hook(self, hook, prepend=False):
        """`hook(module, grad_output)` when the gradient of the output is known; what it
        returns (not None) replaces it."""
        handle = RemovableHandle(self._backward_pre_hooks)
        _store(self._backward_pre_hooks, handle.id, hook, prepend)
        return handle

    def register_full_backward_hook(self, hook, prepend=False):
        """`hook(module, grad_input, grad_output)` when the gradients with respect to the
        module's Tensor inputs are known; what it returns (not None) replaces them."""
        handle = RemovableHandle(self._backward_hooks)
        _store(self._backward_hooks, handle.id, hook, prepend)
        return handle

    def _call_with_hooks(self, args, kwargs):
        for hook_id, hook in list(self._forward_pre_hooks.items()):
            if hook_id in self._forward_pre_hooks_with_kwargs:
                result = hook(self, args, kwargs)
                if result is not None:
                    if not (isinstance(result, tuple) and len(result) == 2):
                        raise RuntimeError("forward pre-hook must return None or a tuple of (new_args, new_kwargs), "
                                           f"but got {result}.")
                    args, kwargs = result
            else:
                result = hook(self, args)
                if result is not None:
                    args = result if isinstance(result, tuple) else (result,)
        state = None
        if (self._backward_hooks or self._backward_pre_hooks) and is_grad_enabled():
            needing = _needing(args)
            state = _Pass(self, needing, len(args), [], 1)
            args = _wrapped(args, state, "input", needing)
        result = self.forward(*args, **kwargs)
        for hook_id, hook in list(self._forward_hooks.items()):
            if hook_id in self._forward_hooks_with_kwargs:
                hook_result = hook(self, args, kwargs, result)
            else:
                hook_result = hook(self, args, result)
            if hook_result is not None:
                result = hook_result
        if state is not None:
            state.outputs_needing = _needing(result)
            state.grad_outputs = [None] * (1 if isinstance(result, Tensor) else len(result))
            result = _wrapped(result, state, "output", state.outputs_needing)
        return result


def _store(table, key, hook, prepend):
    table[key] = hook
    if prepend:
        table.move_to_end(key, last=False)
