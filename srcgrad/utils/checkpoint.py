"""`srcgrad.utils.checkpoint`, as `torch.utils.checkpoint`: activation checkpointing.

With `use_reentrant=True` (PyTorch's old default, taken with its warning where the
argument is not given) the function runs without recording its graph, as one node
(`CheckpointFunctionBackward`) whose backward runs it again with recording on, from the
saved inputs and the random state they first met, and passes the gradients back through
that fresh graph: the memory of the intermediate results is traded for a second forward
pass. As in PyTorch, only the Tensor arguments that require grad get gradients (a
module's parameters get none where no input requires grad, with PyTorch's warning), and
such a node refuses a pass that captures gradients (`autograd.grad`, `inputs=`).

With `use_reentrant=False` the function runs as it is, its graph recorded: the same
values and gradients as PyTorch's non-reentrant checkpoint, without its memory saving.
"""

import warnings

from ..autograd import Function, backward
from ..tensor.generators import get_rng_state, set_rng_state
from ..tensor.engine import passes
from ..tensor.grad_mode import enable_grad, no_grad
from ..tensor.tensor import Tensor

__all__ = ["checkpoint", "checkpoint_sequential"]

_EXPLICIT = (
    "torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. Starting in PyTorch 2.9, "
    "calling checkpoint without use_reentrant will raise an exception. use_reentrant=False is recommended, but if "
    "you need to preserve the current default behavior, you can pass use_reentrant=True. Refer to docs for more "
    "details on the differences between the two variants."
)
_NO_INPUT_GRAD = "None of the inputs have requires_grad=True. Gradients will be None"
_CAPTURING = (
    "When use_reentrant=True, torch.utils.checkpoint is incompatible with .grad() or passing an `inputs` parameter "
    "to .backward(). To resolve this error, you can either set use_reentrant=False, or call .backward() without "
    "passing the `inputs` argument."
)


def checkpoint(function, *args, use_reentrant=None, context_fn=None, determinism_check="default", debug=False,
               preserve_rng_state=True, **kwargs):
    """`function(*args, **kwargs)`, checkpointed (module doc)."""
    if use_reentrant is None:
        warnings.warn(_EXPLICIT, stacklevel=2)
        use_reentrant = True
    if not use_reentrant:
        return function(*args, **kwargs)
    if context_fn is not None or debug:
        raise ValueError("Passing `context_fn` or `debug` is only supported when use_reentrant=False.")
    if kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))
    return CheckpointFunction.apply(function, preserve_rng_state, *args)


def checkpoint_sequential(functions, segments, input, use_reentrant=None, **kwargs):
    """`functions` (an `nn.Sequential` or a list of modules) run on `input` in `segments`
    checkpointed runs of consecutive modules, the last segment as it is (as PyTorch)."""
    if use_reentrant is None:
        warnings.warn(_EXPLICIT, stacklevel=2)
        use_reentrant = True
    modules = list(functions.children()) if hasattr(functions, "children") else list(functions)
    size = len(modules) // segments
    end = -1
    for start in range(0, size * (segments - 1), size):
        end = start + size - 1
        part = modules[start:end + 1]
        input = checkpoint(_run_in_turn(part), input, use_reentrant=use_reentrant, **kwargs)
    return _run_in_turn(modules[end + 1:])(input)


def _run_in_turn(modules):
    def run(x):
        for module in modules:
            x = module(x)
        return x

    return run


class CheckpointFunction(Function):
    """The reentrant checkpoint's node (module doc)."""

    @staticmethod
    def forward(ctx, run_function, preserve_rng_state, *args):
        if not any(isinstance(a, Tensor) and a.requires_grad for a in args):
            warnings.warn(_NO_INPUT_GRAD, stacklevel=4)
        ctx.run_function = run_function
        ctx.rng_state = get_rng_state() if preserve_rng_state else None
        ctx.arguments = [None if isinstance(a, Tensor) else a for a in args]
        ctx.save_for_backward(*[a for a in args if isinstance(a, Tensor)])
        with no_grad():
            return run_function(*args)

    @staticmethod
    def backward(ctx, *grads):
        if passes.capturing:
            raise RuntimeError(_CAPTURING)
        saved = iter(ctx.saved_tensors)
        inputs = []
        for a in ctx.arguments:
            if a is None:
                t = next(saved)
                a = t.detach().requires_grad_(t.requires_grad)
            inputs.append(a)
        if ctx.rng_state is not None:
            now = get_rng_state()
            set_rng_state(ctx.rng_state)
        try:
            with enable_grad():
                outputs = ctx.run_function(*inputs)
        finally:
            if ctx.rng_state is not None:
                set_rng_state(now)
        outputs = outputs if isinstance(outputs, tuple) else (outputs,)
        pairs = [(o, g) for o, g in zip(outputs, grads) if isinstance(o, Tensor) and o.requires_grad and g is not None]
        if not pairs:
            raise RuntimeError("none of output has requires_grad=True, this checkpoint() is not necessary")
        backward([o for o, _ in pairs], [g for _, g in pairs])
        return (None, None) + tuple(a.grad if isinstance(a, Tensor) else None for a in inputs)

