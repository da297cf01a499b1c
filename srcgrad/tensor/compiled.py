"""`@srcgrad.compile`: a NumPy function used as ONE differentiable Tensor operation.

Called on Tensors, the decorated function runs on their arrays; when the call is
tracked it records a single node, named `<function>Backward`, whose backward calls
the derivative that `srcgrad.compiler.derive` generates from the function's source.
A scalar output uses the generated `value_and_grad`, restricted to the arguments
that require grad; any other output uses the generated `vjp`. Under `no_grad()`
(or with no argument requiring grad) the function just runs.

Invariant: like every node that saves tensors, the node keeps the argument arrays
until a backward pass without `retain_graph` releases them.
"""

import functools

import numpy as np

from . import ops
from .graph import Node, _mode, node_class
from .tensor import Tensor

__all__ = ["compile"]


class CompiledNode(Node):
    """The node of one call of a compiled function."""

    __slots__ = ("fn", "args", "positions", "scalar", "dtypes", "freed")

    def __init__(self, next_functions, fn, args, positions, scalar, in_dtypes):
        super().__init__(next_functions)
        self.fn = fn
        self.args = args
        self.positions = positions
        self.scalar = scalar
        self.dtypes = in_dtypes
        self.freed = False

    def apply(self, g):
        from ..compiler import derive

        if self.scalar:
            derivative = derive(self.fn, mode="value_and_grad", wrt=self.positions)
            _, grads = derivative.function(*self.args)
            grads = dict(zip(self.positions, (gi * g for gi in grads)))
        else:
            derivative = derive(self.fn, mode="vjp", wrt=self.positions)
            _, grads = derivative.function(g, *self.args)
            grads = {i: grads[i] for i in self.positions}
        return [
            None if i not in grads else np.asarray(grads[i], dtype=self.dtypes[i])
            for i in range(len(self.next_functions))
        ]

    def release(self):
        self.args = None
        self.freed = True


def compile(fn):
    """Make the NumPy function `fn` a Tensor operation with a generated derivative."""

    @functools.wraps(fn)
    def run(*args):
        arrays = tuple(a._data if isinstance(a, Tensor) else a for a in args)
        out = Tensor._make(np.asarray(fn(*arrays)))
        positions = tuple(i for i, a in enumerate(args) if isinstance(a, Tensor) and a._requires_grad)
        if not (_mode.enabled and positions):
            return out
        edges = tuple((ops._edge(a), 0) if i in positions else (None, 0) for i, a in enumerate(args))
        in_dtypes = [a._data.dtype if isinstance(a, Tensor) else None for a in args]
        cls = node_class(fn.__name__ + "Backward", CompiledNode)
        out._grad_fn = cls(edges, fn, arrays, positions, out._data.ndim == 0, in_dtypes)
        out._requires_grad = True
        return out

    run.__wrapped__ = fn
    return run
