"""`srcgrad.autograd.functional.jacobian`, `vjp` and `srcgrad.autograd.gradcheck`, as in
`torch.autograd`: the Jacobian of a function of Tensors, row by row through
`autograd.grad` (one backward pass per output element), a vector-Jacobian product (one
pass), and a check of the Jacobian against central finite differences.

Invariant: neither changes its inputs or their `.grad`; the function runs on detached
copies that require grad, or, with create_graph, on views of the inputs that require
grad, so that the results record their graph back to them (as PyTorch's).
"""

import warnings

import numpy as np

from ..tensor.grad_mode import no_grad
from ..tensor.tensor import Tensor

__all__ = ["jacobian", "hessian", "vjp", "gradcheck", "GradcheckError"]


class GradcheckError(RuntimeError):
    """What `gradcheck` raises where the Jacobians disagree."""


def _as_tuple(value):
    return (value,) if isinstance(value, Tensor) else tuple(value)


def _inputs(inputs, create_graph):
    """What `func` is called with: with create_graph an input that requires grad is taken
    through a view (so the result's graph reaches it, as PyTorch's `view_as`); any other
    a copy that requires grad."""
    return tuple(t.view_as(t) if create_graph and t._requires_grad else Tensor._make(t._data.copy(), True)
                 for t in _as_tuple(inputs))


def _rows(flat, xs, create_graph):
    """d flat[i] / d xs[k] for each element i of the one-dimensional `flat`: a list (over
    i) of lists (over k) of Tensors, None where flat[i] does not depend on xs[k]."""
    from . import grad

    if not flat._requires_grad:
        return [[None] * len(xs) for _ in range(flat._data.size)]
    return [list(grad(flat[i], xs, retain_graph=True, create_graph=create_graph, allow_unused=True))
            for i in range(flat._data.size)]


def _block(rows, k, shape, x, create_graph):
    """Input k's column of `rows` as one Tensor of shape `shape + x.shape`: zeros where a
    row has None; with create_graph the rows stacked by Tensor ops (keeping their graph)."""
    full = shape + x._data.shape
    if not create_graph or not any(row[k] is not None and row[k]._requires_grad for row in rows):
        out = np.zeros((len(rows),) + x._data.shape, x._data.dtype)
        for i, row in enumerate(rows):
            if row[k] is not None:
                out[i] = row[k]._data
        return Tensor._make(out.reshape(full))
    from ..tensor.joins import stack  # noqa: PLC0415

    zeros = Tensor._make(np.zeros(x._data.shape, x._data.dtype))
    return stack([zeros if row[k] is None else row[k] for row in rows]).view(full)


def jacobian(func, inputs, create_graph=False, strict=False, vectorize=False, strategy="reverse-mode"):
    """d func(*inputs) / d inputs: for one output and one input a Tensor of shape
    `output.shape + input.shape`; a tuple over the inputs where `inputs` is a tuple, and
    a tuple over the outputs where `func` returns one. An output that does not depend on
    an input gives zeros there. With create_graph the Jacobian records its graph, back
    to the inputs that require grad (as PyTorch's)."""
    several_in = not isinstance(inputs, Tensor)
    xs = _inputs(inputs, create_graph)
    outputs = func(*xs)
    several_out = not isinstance(outputs, Tensor)
    blocks = []
    for out in _as_tuple(outputs):
        rows = _rows(out.reshape(-1), xs, create_graph)
        per_input = tuple(_block(rows, k, out._data.shape, x, create_graph) for k, x in enumerate(xs))
        blocks.append(per_input if several_in else per_input[0])
    return tuple(blocks) if several_out else blocks[0]


def hessian(func, inputs, create_graph=False, strict=False, vectorize=False, outer_jacobian_strategy="reverse-mode"):
    """The second derivatives of `func(*inputs)`, a one-element Tensor: for one input a
    Tensor of shape `input.shape + input.shape`; for a tuple of inputs, a tuple (over
    the inputs) of tuples (over the inputs again) of blocks. Zeros where the gradient
    does not depend on an input. The gradient is made with create_graph=True, then
    differentiated one element at a time (with create_graph again where asked: the
    blocks then record their graph)."""
    from . import grad

    several_in = not isinstance(inputs, Tensor)
    xs = _inputs(inputs, create_graph)
    out = func(*xs)
    if not isinstance(out, Tensor):
        raise RuntimeError("The function given to hessian should return a single Tensor")
    if out._data.size != 1:
        raise RuntimeError("The Tensor returned by the function given to hessian should contain a single element")
    firsts = grad(out.reshape(()), xs, create_graph=True, allow_unused=True) if out._requires_grad else [None] * len(xs)
    blocks = []
    for x, first in zip(xs, firsts):
        if first is None:
            rows = [[None] * len(xs) for _ in range(x._data.size)]
        else:
            rows = _rows(first.reshape(-1), xs, create_graph)
        blocks.append(tuple(_block(rows, k, x._data.shape, y, create_graph) for k, y in enumerate(xs)))
    if not several_in:
        return blocks[0][0]
    return tuple(blocks)


def vjp(func, inputs, v=None, create_graph=False, strict=False):
    """`(func(*inputs), v^T J)`: the outputs, detached (with create_graph not: both then
    record their graph), and the vector-Jacobian product
    with `v` (which may be left out for a one-element output), a tuple over the inputs
    where `inputs` is a tuple. An input the outputs do not depend on gets zeros."""
    from . import grad

    several_in = not isinstance(inputs, Tensor)
    xs = _inputs(inputs, create_graph)
    outputs = func(*xs)
    outs = _as_tuple(outputs)
    if v is None:
        if len(outs) != 1 or outs[0]._data.size != 1:
            raise RuntimeError(
                "The vector v can only be None if the user-provided function returns a single Tensor with a single element."
            )
        vs = (Tensor._make(np.ones(outs[0]._data.shape, outs[0]._data.dtype)),)
    else:
        vs = _as_tuple(v)
        if len(vs) != len(outs):
            raise RuntimeError(
                f"v is a tuple of invalid length: should be {len(outs)} but got {len(vs)}."
            )
        for i, (out, vec) in enumerate(zip(outs, vs)):
            if vec._data.shape != out._data.shape:
                entry = "" if isinstance(outputs, Tensor) else f"Entry {i} in "
                raise RuntimeError(f"{entry}v has invalid size: should be {out.shape} but got {vec.shape}.")
    tracked = [(out, vec) for out, vec in zip(outs, vs) if out._requires_grad]
    found = [None] * len(xs)
    if tracked:
        found = grad([o for o, _ in tracked], xs, [g for _, g in tracked], create_graph=create_graph,
                     allow_unused=True)
    products = tuple(
        g if g is not None else Tensor._make(np.zeros(x._data.shape, x._data.dtype)) for g, x in zip(found, xs)
    )
    if create_graph:  # the outputs keep their graph, as PyTorch's
        return outputs, (products if several_in else products[0])
    detached = outputs.detach() if isinstance(outputs, Tensor) else tuple(o.detach() for o in outs)
    return detached, (products if several_in else products[0])


def gradcheck(func, inputs, *, eps=1e-06, atol=1e-05, rtol=0.001, raise_exception=True, **unused):
    """Whether the Jacobian the graph gives for each input that requires grad matches
    central finite differences of step `eps` within `atol` + `rtol`; with
    `raise_exception` a mismatch raises GradcheckError showing both (as PyTorch lays
    them out: one row per input element, one column per output element)."""
    xs = _as_tuple(inputs)
    if any(x._requires_grad and x._data.dtype != np.float64 for x in xs):
        warnings.warn("Input #0 requires gradient and is not a double precision floating point or complex. This check "
                      "will likely fail if all the inputs are not of double precision floating point or complex. ",
                      UserWarning, stacklevel=2)
    analytic = jacobian(func, xs)  # a tuple over the inputs; over the outputs first where func returns several
    outputs = _as_tuple(func(*xs))
    for j, out in enumerate(outputs):
        per_input = analytic[j] if len(outputs) > 1 else analytic
        for k, x in enumerate(xs):
            if not x._requires_grad:
                continue
            a = per_input[k]._data.reshape(out._data.size, x._data.size).T
            n = _numerical(func, xs, k, j, eps).T
            if not np.allclose(a, n, atol=atol, rtol=rtol):
                if not raise_exception:
                    return False
                raise GradcheckError(f"Jacobian mismatch for output {j} with respect to input {k},\n"
                                     f"numerical:{Tensor._make(n.astype(a.dtype))!r}\nanalytical:{Tensor._make(a)!r}\n")
    return True


def _numerical(func, xs, k, j, eps):
    """d output j / d input k by central differences: (output size, input size)."""
    base = xs[k]._data
    columns = []
    with no_grad():
        for i in range(base.size):
            values = []
            for step in (eps, -eps):
                moved = base.copy()
                moved.reshape(-1)[i] += step
                args = list(xs)
                args[k] = Tensor._make(moved)
                values.append(_as_tuple(func(*args))[j]._data.astype(np.float64).reshape(-1))
            columns.append((values[0] - values[1]) / (2 * eps))
    size = _as_tuple(func(*xs))[j]._data.size
    return np.stack(columns, axis=1) if columns else np.zeros((size, 0))
