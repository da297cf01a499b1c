"""`srcgrad.autograd.functional.jacobian`, `hessian`, `vjp`, `jvp`, `vhp` and `hvp`, as in
`torch.autograd.functional`: the Jacobian of a function of Tensors, row by row through
`autograd.grad` (one backward pass per output element), a vector-Jacobian product (one
pass), Jacobian- and Hessian-vector products by double backward passes.

Invariant: neither changes its inputs or their `.grad`; the function runs on detached
copies that require grad, or, with create_graph, on views of the inputs that require
grad, so that the results record their graph back to them (as PyTorch's).
"""

import numpy as np

from ..tensor.tangents import refuse_dual
from ..tensor.tensor import Tensor

__all__ = ["jacobian", "hessian", "vjp", "jvp", "vhp", "hvp"]


def _as_tuple(value):
    return (value,) if isinstance(value, Tensor) else tuple(value)


def _inputs(inputs, create_graph):
    """What `func` is called with: with create_graph an input that requires grad is taken
    through a view (so the result's graph reaches it, as PyTorch's `view_as`); any other
    a copy that requires grad."""
    refuse_dual("torch.autograd.functional", *_as_tuple(inputs))  # a copy would drop a tangent
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


def _vectors(v, xs, several_in, what):
    """The `v` of jvp, hvp or vhp as a tuple over `xs`, checked as PyTorch checks it: left
    out only for one input of one element (then ones)."""
    if v is None:
        if len(xs) != 1 or xs[0]._data.size != 1:
            raise RuntimeError("The vector v can only be None if the input to the user-provided function "
                               "is a single Tensor with a single element.")
        return (Tensor._make(np.ones(xs[0]._data.shape, xs[0]._data.dtype)),)
    vs = _as_tuple(v)
    if len(vs) != len(xs):
        raise RuntimeError(f"v is a tuple of invalid length: should be {len(xs)} but got {len(vs)}.")
    for i, (vec, x) in enumerate(zip(vs, xs)):
        if vec._data.shape != x._data.shape:
            entry = f"Entry {i} in " if several_in else ""
            raise RuntimeError(f"{entry}v has invalid size: should be {x.shape} but got {vec.shape}.")
    return vs


def _filled(found, likes):
    """`found` with zeros shaped like the matching `likes` where an entry is None."""
    return tuple(g if g is not None else Tensor._make(np.zeros(x._data.shape, x._data.dtype))
                 for g, x in zip(found, likes))


def _products(outs, xs, vs, create_graph, wrt=None):
    """The gradients of `outs` (weighted by `vs`) with respect to `wrt` (`xs` where None),
    through the outputs that depend on the inputs; Nones where none does."""
    from . import grad

    pairs = [(o, vec) for o, vec in zip(outs, vs) if o is not None and o._requires_grad]
    if not pairs:
        return [None] * len(wrt if wrt is not None else xs)
    return grad([o for o, _ in pairs], wrt if wrt is not None else xs, [vec for _, vec in pairs],
                create_graph=create_graph, allow_unused=True)


def _double_back(outs, xs, vs, create_graph):
    """`J v` of `outs` with respect to `xs` by the double-backward trick: the gradient of
    the vector-Jacobian product `u^T J` (a Tensor u of zeros that requires grad) with
    respect to u, weighted by v."""
    us = tuple(Tensor._make(np.zeros(o._data.shape, o._data.dtype), True) for o in outs)
    back = _products(outs, xs, us, True)
    return _products(back, us, vs, create_graph, wrt=us), us


def _scalar_output(out, what):
    if not isinstance(out, Tensor):
        raise RuntimeError(f"The function given to {what} should return a single Tensor")
    if out._data.size != 1:
        raise RuntimeError(f"The Tensor returned by the function given to {what} should contain a single element")


def jvp(func, inputs, v=None, create_graph=False, strict=False):
    """`(func(*inputs), J v)`, as PyTorch's (by the double-backward trick): the outputs
    detached unless create_graph, zeros for an output that does not depend on the inputs."""
    several_in = not isinstance(inputs, Tensor)
    xs = _inputs(inputs, create_graph)
    vs = _vectors(v, xs, several_in, "jvp")
    outputs = func(*xs)
    outs = _as_tuple(outputs)
    found, _ = _double_back(outs, xs, vs, create_graph)
    products = _filled(found, outs)
    if not create_graph:
        outputs = outputs.detach() if isinstance(outputs, Tensor) else tuple(o.detach() for o in outs)
    return outputs, (products[0] if isinstance(outputs, Tensor) else products)


def vhp(func, inputs, v=None, create_graph=False, strict=False):
    """`(func(*inputs), v^T H)` of a function of one element, as PyTorch's: the gradient
    made with create_graph, then its vector-Jacobian product with v."""
    from . import grad

    several_in = not isinstance(inputs, Tensor)
    xs = _inputs(inputs, create_graph)
    vs = _vectors(v, xs, several_in, "vhp")
    out = func(*xs)
    _scalar_output(out, "vhp")
    firsts = grad(out.reshape(()), xs, create_graph=True, allow_unused=True) if out._requires_grad else [None] * len(xs)
    products = _filled(_products(firsts, xs, vs, create_graph), xs)
    return (out if create_graph else out.detach()), (products if several_in else products[0])


def hvp(func, inputs, v=None, create_graph=False, strict=False):
    """`(func(*inputs), H v)` of a function of one element, as PyTorch's (by the
    double-backward trick over the gradient)."""
    from . import grad

    several_in = not isinstance(inputs, Tensor)
    xs = _inputs(inputs, create_graph)
    vs = _vectors(v, xs, several_in, "hvp")
    out = func(*xs)
    _scalar_output(out, "hvp")
    firsts = grad(out.reshape(()), xs, create_graph=True, allow_unused=True) if out._requires_grad else [None] * len(xs)
    found, _ = _double_back(firsts, xs, vs, create_graph) if any(f is not None for f in firsts) else ([None] * len(xs), ())
    products = _filled(found, xs)
    return (out if create_graph else out.detach()), (products if several_in else products[0])
