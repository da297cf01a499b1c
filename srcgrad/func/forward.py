"""Forward mode for `srcgrad.func.jvp` and `jacfwd`: the function runs on dual tensors
(`srcgrad.autograd.forward_ad`), so each op pushes the tangents through its registry
rule's forward rule, one pass per tangent.

`Unavailable` means forward mode cannot give the answer, and transforms.py takes the
reverse passes instead (running the function again): an op of the function has no
forward rule or is refused on dual tensors (an in-place write into a view, a
gradient taken inside the function: `jvp(grad(f))`, `hessian`), a dual level is already
entered (PyTorch nests none), or, with grad mode on, an input requires grad or an output
does through a tensor the function closes over (the product must then record a graph,
which a tangent does not: `grad` of a `jvp`, `jacrev(jacfwd(f))`).
"""

import numpy as np

from ..autograd import forward_ad
from ..autograd.function_forward import E_NO_JVP
from ..autograd.function_transforms import running
from ..tensor.grad_mode import _mode
from ..tensor.tangents import LEVEL, tangent_of
from ..tensor.tensor import Tensor
from .trees import flatten, unflatten

__all__ = ["Unavailable", "input_tensor", "dual_runs", "products", "jacobian_columns"]

E_FLOAT_ONLY = "only Tensors of floating point dtype can require gradients"


class Unavailable(Exception):
    """Forward mode cannot give this result: the reverse passes will."""


def input_tensor(value):
    """`value`, checked as a differentiated input of a transform (PyTorch's errors)."""
    if not isinstance(value, Tensor):
        raise ValueError(f"Thing passed to transform API must be Tensor, got {type(value)}")
    if value._data.dtype.kind not in "fc":
        raise RuntimeError(E_FLOAT_ONLY)
    return value


def dual_runs(func, args, kwargs, positions, tangent_sets, read, transform):
    """[read(func(*args, **kwargs)) for each tangent set], each call with the leaves of the
    arguments at `positions` made dual (fresh leaves over their arrays) with the set's
    tangents (arrays, in leaf order), all inside one dual level; `read` runs inside it.
    `transform`: the name of the transform running (`jvp`, `jacfwd`). A custom Function
    without jvp is refused with PyTorch's error, not taken by the reverse passes."""
    if LEVEL[0] is not None:
        raise Unavailable("a dual level is entered")
    found = []
    with forward_ad.dual_level():
        for tangents in tangent_sets:
            call_args, k = list(args), 0
            for i in positions:
                leaves, spec = flatten(call_args[i])
                duals = []
                for v in leaves:
                    if v._requires_grad and _mode.enabled:  # the product must record a graph to it
                        raise Unavailable("an input requires grad")
                    t = tangents[k]
                    k += 1
                    duals.append(forward_ad.make_dual(Tensor._make(v._data), Tensor._make(t.astype(v._data.dtype))))
                call_args[i] = unflatten(spec, duals)
            try:
                with running(transform):
                    found.append(read(func(*call_args, **kwargs)))
            except NotImplementedError as refused:
                if str(refused) == E_NO_JVP:
                    raise
                raise Unavailable(str(refused)) from refused
    return found


def _tangents_of(outputs):
    """The tangent of each output leaf (zeros where it has none); Unavailable where an
    output records a graph (grad mode on) that its product would need too."""
    tangents = []
    for o in outputs:
        if not isinstance(o, Tensor):
            tangents.append(None)
            continue
        if o._requires_grad and _mode.enabled:
            raise Unavailable("an output requires grad")
        t = tangent_of(o)
        data = o._data
        tangents.append(np.zeros(data.shape, data.dtype) if t is None else np.array(t, dtype=data.dtype))
    return tangents


def _split(result, has_aux):
    if has_aux and isinstance(result, tuple) and len(result) == 2:
        return result
    return result, None


def products(func, primals, t_leaves, has_aux):
    """(output, aux, [Jacobian-vector product per output leaf as a Tensor]) of `func` at
    `primals` along the tangents `t_leaves` (one per primal leaf): one forward pass."""
    for v in flatten(primals)[0]:
        input_tensor(v)

    def read(result):
        output, aux = _split(result, has_aux)
        return result, _tangents_of(flatten(output)[0])

    result, tangents = dual_runs(func, primals, {}, range(len(primals)), [[t._data for t in t_leaves]], read, "jvp")[0]
    return result, [None if t is None else Tensor._make(t) for t in tangents]


def jacobian_columns(func, args, kwargs, positions, has_aux):
    """(result of the first call, for each output leaf one array per differentiated input
    leaf x of shape output.shape + x.shape): one forward pass per input element, along
    each one-hot tangent."""
    leaves = [input_tensor(v) for i in positions for v in flatten(args[i])[0]]
    sizes = [v._data.size for v in leaves]
    n = sum(sizes)
    if n == 0:
        raise Unavailable("no input element")
    sets = []
    for j in range(n):
        flat = np.zeros(n)
        flat[j] = 1
        parts = np.split(flat, np.cumsum(sizes)[:-1])
        sets.append([p.reshape(v._data.shape) for p, v in zip(parts, leaves)])

    def read(result):
        output, _ = _split(result, has_aux)
        return result, _tangents_of(flatten(output)[0])

    runs = dual_runs(func, args, kwargs, positions, sets, read, "jacfwd")
    first = runs[0][0]
    blocks = []
    for k, o in enumerate(flatten(_split(first, has_aux)[0])[0]):
        if not isinstance(o, Tensor):
            blocks.append(None)
            continue
        columns = np.stack([tangents[k] for _, tangents in runs], axis=-1)  # output.shape + (n,)
        per_input = np.split(columns, np.cumsum(sizes)[:-1], axis=-1)
        blocks.append([c.reshape(o._data.shape + v._data.shape) for c, v in zip(per_input, leaves)])
    return first, blocks
