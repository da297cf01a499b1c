"""`grad`, `grad_and_value`, `vjp`, `jvp`, `jacrev`, `jacfwd` and `hessian` of
`srcgrad.func`, as `torch.func`'s: transforms of a function of Tensors (or of pytrees of
them) into one that returns its derivatives, over the Tensor shim's graph.

Each call of a transformed function is a `_Level`: it runs the function, with grad mode
on, on its own copies of the differentiated inputs (leaves that share the inputs'
memory; views of the inputs where grad mode is on at the call and they require grad, so
that the results stay differentiable through the caller's graph, and a transform
nested inside another differentiates through the outer one), then asks the graph for
the derivatives with create_graph where grad mode is on at the call.

Invariant: a result comes back with a graph only if grad mode was on at the call and
its graph reaches a leaf the level did not make (a tensor of the caller's that requires
grad, or an outer level's input); otherwise it is detached, as PyTorch's results are.
`jvp` and `jacfwd` run the function on dual tensors (forward.py: the registry's forward
rules, one pass per tangent); where forward mode cannot give the answer (forward.py's
`Unavailable`) they run it again and take two reverse passes (`jvp`: the pullback of a
zero cotangent u, then the derivative of <pullback, tangents> with respect to u) or one
per output element (`jacfwd`, as `jacrev`).
"""

import functools
import weakref

import numpy as np

from ..autograd.function_transforms import running
from ..tensor.grad_mode import _mode, enable_grad
from ..tensor.graph import AccumulateGrad
from ..tensor.tensor import Tensor
from . import forward
from ..tensor.tangents import refuse_dual
from .trees import flatten, unflatten

__all__ = ["grad", "grad_and_value", "vjp", "jvp", "jacrev", "jacfwd", "hessian"]

E_FLOAT_ONLY = forward.E_FLOAT_ONLY


def _grad_api():
    from ..autograd import grad as autograd_grad  # noqa: PLC0415  (autograd imports the tensor package)

    return autograd_grad


_COTANGENT_LEAVES = weakref.WeakSet()  # every level's `leaf_like` leaves


class _Level:
    """One call of a transformed function: the leaves it made (`fresh`) and whether grad
    mode was on at the call (`enabled`: then derivatives are taken with create_graph)."""

    def __init__(self):
        self.enabled = _mode.enabled
        self.fresh = []

    def wrap(self, value):
        """The Tensor the function sees in place of the input `value` (refused for a dual
        tensor: a fresh leaf would drop its tangent)."""
        forward.input_tensor(value)
        refuse_dual("a reverse-mode transform (grad, vjp, jacrev)", value)
        if self.enabled and value._requires_grad:
            with enable_grad():
                return value.view_as(value)
        leaf = Tensor._make(value._data, True)
        self.fresh.append(leaf)
        return leaf

    def leaf_like(self, value):
        """A zero leaf of the level shaped as `value` (the cotangent a forward-mode
        product differentiates with respect to)."""
        leaf = Tensor._make(np.zeros(value._data.shape, value._data.dtype), True)
        self.fresh.append(leaf)
        _COTANGENT_LEAVES.add(leaf)
        return leaf

    def derivatives(self, outputs, cotangents, inputs):
        """d(sum of <output, cotangent>) / d input for each of `inputs` (zeros where no
        output depends on it)."""
        pairs = [(o, c) for o, c in zip(outputs, cotangents) if o._requires_grad]
        got = [None] * len(inputs)
        if pairs:
            with enable_grad():
                got = _grad_api()([o for o, _ in pairs], inputs, grad_outputs=[c for _, c in pairs],
                                  retain_graph=True, create_graph=self.enabled, allow_unused=True)
        return [Tensor._make(np.zeros(x._data.shape, x._data.dtype)) if g is None else g for g, x in zip(got, inputs)]

    def settle(self, tree):
        """`tree` with each Tensor detached unless it should keep its graph (the module's
        invariant)."""
        leaves, spec = flatten(tree)
        return unflatten(spec, [self._settled(v) for v in leaves])

    def _settled(self, value):
        if not isinstance(value, Tensor) or not value._requires_grad:
            return value
        if self.enabled and self._reaches_outside(value):
            return value
        return value.detach()

    def _reaches_outside(self, value):
        fresh = {id(t) for t in self.fresh}
        if value._grad_fn is None:
            return id(value) not in fresh
        seen, todo = set(), [value._grad_fn]
        while todo:
            node = todo.pop()
            if id(node) in seen:
                continue
            seen.add(id(node))
            if isinstance(node, AccumulateGrad):
                # a product's graph reaches the cotangent leaf it was taken with (`_pushed`),
                # of no consequence to any level: not outside
                if id(node.variable) not in fresh and node.variable not in _COTANGENT_LEAVES:
                    return True
                continue
            todo.extend(nxt for nxt, _ in node.next_functions if nxt is not None)
        return False


def _argnums(argnums, args):
    """The positions of the differentiated arguments, and whether `argnums` was one int
    (PyTorch's errors for others, empty, repeated or out of range)."""
    single = isinstance(argnums, int) and not isinstance(argnums, bool)
    positions = (argnums,) if single else argnums
    if not isinstance(positions, tuple) or not all(isinstance(i, int) for i in positions):
        raise RuntimeError(f"argnums must be int or Tuple[int, ...], got: {type(argnums)}")
    if not positions:
        raise RuntimeError("argnums must be non-empty")
    if len(set(positions)) != len(positions):
        raise RuntimeError(f"argnums elements must be unique, got {argnums}")
    for i in positions:
        if not -len(args) <= i < len(args):
            raise RuntimeError(f"Got argnum={i}, but only {len(args)} positional inputs")
    return tuple(i % len(args) for i in positions), single


def _wrap_args(level, args, positions):
    """`args` with the differentiated ones' Tensors replaced by the level's, and for each
    differentiated argument (its leaves as the function sees them, its spec)."""
    args = list(args)
    parts = []
    for i in positions:
        leaves, spec = flatten(args[i])
        wrapped = [level.wrap(v) for v in leaves]
        args[i] = unflatten(spec, wrapped)
        parts.append((wrapped, spec))
    return args, parts


def _split_aux(result, has_aux, api):
    if not has_aux:
        return result, None
    if not (isinstance(result, tuple) and len(result) == 2):
        raise RuntimeError(f"{api}: output of function f should be a tuple: (output, aux) if has_aux is True")
    aux_leaves, _ = flatten(result[1])
    for v in aux_leaves:
        if not isinstance(v, Tensor):
            raise RuntimeError(f"Expected tensors, got unsupported type {type(v)}")
    return result


def _per_argument(parts, values, single):
    """`values` (one per differentiated leaf, in order) regrouped as the arguments they
    belong to: one tree for one int argnums, else a tuple of trees."""
    trees, start = [], 0
    for wrapped, spec in parts:
        trees.append(unflatten(spec, values[start:start + len(wrapped)]))
        start += len(wrapped)
    return trees[0] if single else tuple(trees)


def grad_and_value(func, argnums=0, has_aux=False):
    """`func`'s gradient with respect to the arguments `argnums` (a tree of them for a
    pytree argument, a tuple for a tuple of argnums) and its value; with `has_aux`,
    `func` returns (value, aux) and the result is (gradient, (value, aux))."""

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        api = "grad_and_value(f)(*args)"
        positions, single = _argnums(argnums, args)
        level = _Level()
        call_args, parts = _wrap_args(level, args, positions)
        with enable_grad(), running("grad"):
            output, aux = _split_aux(func(*call_args, **kwargs), has_aux, api)
        if not isinstance(output, Tensor):
            raise RuntimeError(f"{api}: Expected f(*args) to return a Tensor, got {type(output)}")
        if output._data.ndim:
            raise RuntimeError(f"{api}: Expected f(*args) to return a scalar Tensor, got tensor with "
                               f"{output._data.ndim} dims. Maybe you wanted to use the vjp or jacrev APIs instead?")
        inputs = [v for wrapped, _ in parts for v in wrapped]
        one = Tensor._make(np.ones((), output._data.dtype))
        grads = _per_argument(parts, level.derivatives([output], [one], inputs), single)
        value = (output, aux) if has_aux else output
        return level.settle((grads, value))

    return wrapper


def grad(func, argnums=0, has_aux=False):
    """`func`'s gradient with respect to the arguments `argnums`; with `has_aux`,
    (gradient, aux)."""
    both = grad_and_value(func, argnums, has_aux)

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        grads, value = both(*args, **kwargs)
        return (grads, value[1]) if has_aux else grads

    return wrapper


def _outputs(output, api):
    """The leaves and spec of `func`'s output; PyTorch's errors for a leaf that is no
    Tensor, or no floating-point one."""
    leaves, spec = flatten(output)
    for v in leaves:
        if not isinstance(v, Tensor):
            raise RuntimeError(f"{api}: expected f(*primals) to return only tensors, got unsupported type {type(v)}")
    return leaves, spec


def _float_outputs(leaves, api):
    for v in leaves:
        if v._data.dtype.kind not in "fc":
            raise RuntimeError(f"{api}: All outputs of f must be floating-point or complex Tensors, got Tensor "
                               f"with dtype {v.dtype}")


def vjp(func, *primals, has_aux=False):
    """(func(*primals), vjp_fn[, aux]): `vjp_fn(cotangents)`, cotangents shaped as the
    output, returns a tuple with the cotangents pulled back to each primal. `vjp_fn`
    may be called again."""
    level = _Level()
    call_args, parts = _wrap_args(level, primals, range(len(primals)))
    with enable_grad(), running("vjp"):
        output, aux = _split_aux(func(*call_args), has_aux, "vjp(f, *primals)")
    out_leaves, out_spec = _outputs(output, "vjp(f, *primals)")
    _float_outputs(out_leaves, "vjp(f, ...)")
    inputs = [v for wrapped, _ in parts for v in wrapped]

    def vjp_fn(cotangents, retain_graph=True, create_graph=None):
        ct_leaves, ct_spec = flatten(cotangents)
        if ct_spec != out_spec:
            raise RuntimeError(
                "Expected pytree structure of cotangents to be the same as pytree structure of outputs to the "
                f"function. cotangents: {ct_spec}, primal output: {out_spec}"
            )
        for k, (o, c) in enumerate(zip(out_leaves, ct_leaves)):
            if not isinstance(c, Tensor):
                raise RuntimeError(f"Expected tensors, got unsupported type {type(c)}")
            if c._data.shape != o._data.shape:
                raise RuntimeError(f"Mismatch in shape: grad_output[{k}] has a shape of {c.shape} and output[{k}] "
                                   f"has a shape of {o.shape}.")
        grads = level.derivatives(out_leaves, ct_leaves, inputs)
        return level.settle(_per_argument(parts, grads, False))

    result = (level.settle(output), vjp_fn)
    return result + (level.settle(aux),) if has_aux else result


def _tangent_checks(primals, tangents):
    """PyTorch's errors for primals that are no tuple, or tangents of another structure
    or size; the flattened primals and tangents."""
    if not isinstance(primals, tuple):
        raise RuntimeError("jvp(f, primals, tangents): Expected primals to be a tuple. E.g. it should be valid to "
                           "call f(*primals).")
    p_leaves, p_spec = flatten(primals)
    t_leaves, t_spec = flatten(tangents)
    if p_spec != t_spec:
        raise RuntimeError(
            "jvp(f, primals, tangents): Expected primals and tangents to have the same python structure. For "
            "example, if primals is a tuple of 3 tensors, tangents also must be. Got primals with structure "
            f"{p_spec} and tangents with structure {t_spec}"
        )
    for p, t in zip(p_leaves, t_leaves):
        if not isinstance(t, Tensor):
            raise ValueError(f"Thing passed to transform API must be Tensor, got {type(t)}")
        if isinstance(p, Tensor) and t._data.shape != p._data.shape:
            raise RuntimeError(
                "Trying to set a forward gradient that has a different size than that of the original Tensor, "
                f"this is not supported. Tensor is of size {list(p._data.shape)} while the given forward gradient "
                f"is of size {list(t._data.shape)}."
            )
    return t_leaves


def jvp(func, primals, tangents, *, strict=False, has_aux=False):
    """(func(*primals), the Jacobian-vector product with `tangents`[, aux]), the
    product shaped as the output: one forward pass, else two reverse passes (module
    docstring)."""
    t_leaves = _tangent_checks(primals, tangents)
    try:
        result, products = forward.products(func, primals, t_leaves, has_aux)
    except forward.Unavailable:
        return _reverse_jvp(func, primals, t_leaves, has_aux)
    output, aux = _split_aux(result, has_aux, "jvp(f, primals, tangents)")
    out_leaves, out_spec = _outputs(output, "jvp(f, primals, tangents)")
    level = _Level()
    result = (level.settle(output), unflatten(out_spec, products))
    return result + (level.settle(aux),) if has_aux else result


def _reverse_jvp(func, primals, t_leaves, has_aux):
    """`jvp` by two reverse passes."""
    level = _Level()
    call_args, parts = _wrap_args(level, primals, range(len(primals)))
    with enable_grad(), running("jvp"):
        output, aux = _split_aux(func(*call_args), has_aux, "jvp(f, primals, tangents)")
    out_leaves, _ = _outputs(output, "jvp(f, primals, tangents)")
    inputs = [v for wrapped, _ in parts for v in wrapped]
    products = _pushed(level, out_leaves, inputs, t_leaves)
    out_spec = flatten(output)[1]
    result = (level.settle(output), level.settle(unflatten(out_spec, products)))
    return result + (level.settle(aux),) if has_aux else result


def _pushed(level, outputs, inputs, tangents):
    """The Jacobian-vector products of `outputs` (as functions of `inputs`) with
    `tangents`, one per output."""
    us = [level.leaf_like(o) for o in outputs]
    with enable_grad():
        pulled = [(g, t) for g, t in zip(level.derivatives(outputs, us, inputs), tangents) if g._requires_grad]
        if not pulled:
            return [Tensor._make(np.zeros(o._data.shape, o._data.dtype)) for o in outputs]
        got = _grad_api()([g for g, _ in pulled], us, grad_outputs=[t.to(g.dtype) for g, t in pulled],
                          retain_graph=True, create_graph=level.enabled, allow_unused=True)
    return [Tensor._make(np.zeros(o._data.shape, o._data.dtype)) if g is None else g for g, o in zip(got, outputs)]


def _jacobian(func, argnums, has_aux, api):
    """The function `jacrev`/`jacfwd` return: for each output leaf, its Jacobian with
    respect to the arguments `argnums`, one reverse pass per output element."""

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        positions, single = _argnums(argnums, args)
        level = _Level()
        call_args, parts = _wrap_args(level, args, positions)
        with enable_grad(), running(api):
            output, aux = _split_aux(func(*call_args, **kwargs), has_aux, f"{api}(f)(*args)")
        out_leaves, out_spec = _outputs(output, "vjp(f, *primals)")
        _float_outputs(out_leaves, "vjp(f, ...)")
        inputs = [v for wrapped, _ in parts for v in wrapped]
        blocks = [_per_argument(parts, _jacobian_blocks(level, o, inputs), single) for o in out_leaves]
        jac = unflatten(out_spec, blocks)
        return level.settle((jac, aux)) if has_aux else level.settle(jac)

    return wrapper


def _jacobian_blocks(level, output, inputs):
    """d output / d x for each x of `inputs`: Tensors of shape output.shape + x.shape,
    row by row (a one-hot cotangent per output element)."""
    shape, dtype = output._data.shape, output._data.dtype
    n = int(np.prod(shape, dtype=np.int64))
    rows = []
    for i in range(n):
        onehot = np.zeros(n, dtype)
        onehot[i] = 1
        rows.append(level.derivatives([output], [Tensor._make(onehot.reshape(shape))], inputs))
    blocks = []
    for k, x in enumerate(inputs):
        full = shape + x._data.shape
        column = [row[k] for row in rows]
        if any(g._requires_grad for g in column):
            from ..tensor.joins import stack  # noqa: PLC0415

            blocks.append(stack(column).reshape(full))  # a Tensor requires grad: the column is not empty
        else:
            data = np.stack([g._data for g in column]) if column else np.zeros((0,) + x._data.shape, x._data.dtype)
            blocks.append(Tensor._make(data.reshape(full)))
    return blocks


def jacrev(func, argnums=0, *, has_aux=False, chunk_size=None, _preallocate_and_copy=False):
    """The Jacobian of `func` with respect to the arguments `argnums`: for an output of
    shape S and an input of shape I, a Tensor of shape S + I (trees and tuples as the
    outputs and argnums are); with `has_aux`, (jacobian, aux)."""
    return _jacobian(func, argnums, has_aux, "jacrev")


def jacfwd(func, argnums=0, has_aux=False, *, randomness="error"):
    """The Jacobian as `jacrev` gives it, by one forward pass per input element, else
    by reverse passes (module docstring)."""
    reverse = _jacobian(func, argnums, has_aux, "jacfwd")

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        positions, single = _argnums(argnums, args)
        try:
            first, blocks = forward.jacobian_columns(func, args, kwargs, positions, has_aux)
        except forward.Unavailable:
            return reverse(*args, **kwargs)
        output, aux = _split_aux(first, has_aux, "jacfwd(f)(*args)")
        out_leaves, out_spec = _outputs(output, "vjp(f, *primals)")
        _float_outputs(out_leaves, "vjp(f, ...)")
        parts = [flatten(args[i]) for i in positions]
        jac = unflatten(out_spec, [_per_argument(parts, [Tensor._make(b) for b in block], single) for block in blocks])
        level = _Level()
        return level.settle((jac, aux)) if has_aux else level.settle(jac)

    return wrapper


def hessian(func, argnums=0):
    """The Hessian of a scalar `func` with respect to the arguments `argnums`: the
    Jacobian of its gradient (`jacfwd(jacrev(func))`)."""
    return jacfwd(jacrev(func, argnums), argnums)
