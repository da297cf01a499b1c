"""`@srcgrad.compile`: a NumPy function used as ONE differentiable Tensor operation.

Called on Tensors, the decorated function runs on their arrays; when the call is
tracked it records a single node, named `<function>Backward`, whose backward is the
derivative that `srcgrad.compiler.derive` generates from the function's source,
restricted where it can be to the arguments that require grad. Under `no_grad()` (or
with no argument requiring grad) the function just runs.

A tracked call runs the generated code instead of the function, so the forward pass
runs once:
- a scalar output: the generated `value_and_grad` gives the value and the gradients
  of the arguments that require grad at once; backward scales them by the incoming
  gradient (a scalar), which is the vector-Jacobian product;
- any other output: the generated `split_vjp` gives the value and a pullback that
  backward calls with the incoming gradient.
Whether a call's output is scalar is learned at the first tracked call of each kind
of call (argument shapes, dtypes and types) by running the function itself once.
A function the compiler cannot derive still runs; its node raises at backward.

Invariant: like every node that saves tensors, the node keeps what its backward
needs (gradients, a pullback, or the argument arrays) until a backward pass without
`retain_graph` releases it; gradients reach the inputs in their own dtypes.
"""

import functools

import numpy as np

from .graph import Node, _mode, node_class
from .ops import loud, quiet
from .tensor import Tensor

__all__ = ["compile"]

_ndarray = np.ndarray
_NO_EDGE = (None, 0)


class CompiledNode(Node):
    """The node of one call of a compiled function.

    `saved` is, by `how`: "grads" -> the gradients of `positions` for a seed of 1;
    "pullback" -> the generated pullback; "lazy" -> the argument arrays, the
    derivative being generated at backward.
    """

    __slots__ = ("fn", "how", "saved", "positions", "dtypes", "freed")

    def __init__(self, next_functions, fn, how, saved, positions, in_dtypes):
        super().__init__(next_functions)
        self.fn = fn
        self.how = how
        self.saved = saved
        self.positions = positions
        self.dtypes = in_dtypes
        self.freed = False

    def apply(self, g):
        how, saved, positions = self.how, self.saved, self.positions
        if how == "grads":
            grads = dict(zip(positions, (gi * g for gi in saved)))
        elif how == "pullback":
            grads = saved(g)
            grads = {i: grads[i] for i in positions}
        else:
            grads = _lazy_grads(self.fn, saved, positions, g)
        dtypes = self.dtypes
        out = []
        for i in range(len(self.next_functions)):
            gi = grads.get(i)
            if gi is not None and (type(gi) is not _ndarray or gi.dtype != dtypes[i]):
                gi = np.asarray(gi, dtype=dtypes[i])
            out.append(gi)
        return out

    def release(self):
        self.saved = None
        self.freed = True


def _derive(fn, mode, positions):
    from ..compiler import derive

    return derive(fn, mode=mode, wrt=positions).function


def _lazy_grads(fn, arrays, positions, g):
    """The gradients of `positions`, generating the derivative now (scalar or not)."""
    out = np.asarray(fn(*arrays))
    if out.ndim == 0:
        _, grads = _derive(fn, "value_and_grad", positions)(*arrays)
        return dict(zip(positions, (gi * g for gi in grads)))
    _, grads = _derive(fn, "vjp", positions)(g, *arrays)
    return {i: grads[i] for i in positions}


def compile(fn):
    """Make the NumPy function `fn` a Tensor operation with a generated derivative."""
    derivatives = {}  # (mode, positions) -> the generated function, or None if it failed
    scalar_output = {}  # kind of call -> whether the output is a scalar

    def derivative(mode, positions):
        key = (mode, positions)
        try:
            return derivatives[key]
        except KeyError:
            pass
        try:
            found = _derive(fn, mode, positions)
        except Exception:  # noqa: BLE001 - the forward still runs; backward will raise
            found = None
        derivatives[key] = found
        return found

    cls = node_class(fn.__name__ + "Backward", CompiledNode)

    @functools.wraps(fn)
    def run(*args):
        arrays, positions, edges, in_dtypes = [], [], [], []
        i = 0
        for a in args:  # one pass: the arrays, what requires grad, and the graph edges
            if isinstance(a, Tensor):
                data = a._data
                arrays.append(data)
                in_dtypes.append(data.dtype)
                if a._requires_grad:
                    positions.append(i)
                    edge = a._grad_fn
                    edges.append((edge if edge is not None else a._accumulate_grad(), 0))
                else:
                    edges.append(_NO_EDGE)
            else:
                arrays.append(a)
                in_dtypes.append(None)
                edges.append(_NO_EDGE)
            i += 1
        if not (positions and _mode.enabled):
            return Tensor._make(np.asarray(fn(*arrays)))
        positions = tuple(positions)
        kind = tuple([(a.shape, a.dtype) if type(a) is _ndarray else type(a) for a in arrays])
        scalar = scalar_output.get(kind)
        how, saved = "lazy", arrays
        if scalar is None:  # first call of this kind: run the function itself
            value = np.asarray(fn(*arrays))
            scalar_output[kind] = value.ndim == 0 and value.dtype.kind in "fc"
        else:
            generated = derivatives.get(("value_and_grad" if scalar else "split_vjp", positions))
            if generated is None:
                generated = derivative("value_and_grad" if scalar else "split_vjp", positions)
            if generated is not None:
                token = quiet()
                try:
                    value, saved = generated(*arrays)
                finally:
                    loud(token)
                how = "grads" if scalar else "pullback"
                value = np.asarray(value)
            else:
                value = np.asarray(fn(*arrays))
        out = Tensor._make(value, True)
        out._grad_fn = cls(tuple(edges), fn, how, saved, positions, in_dtypes)
        return out

    run.__wrapped__ = fn
    return run
