"""`srcgrad.autograd`: custom differentiable functions and functional gradients for the
Tensor shim, as in `torch.autograd`.

`Function.apply` runs the user's static `forward(ctx, ...)` untracked and records one
node (named `<Class>Backward`) whose backward calls the user's `backward(ctx, ...)`;
a gradient it returns in a shape its input broadcasts to is summed back to the input's
shape (PyTorch's sum_to), any other shape is refused with PyTorch's error.
Invariant: saved tensors are released after a backward pass without `retain_graph`;
reading `ctx.saved_tensors` after that raises the same error as PyTorch, and so does
reading them (or running backward) after one was changed in place.
"""

import contextlib
import warnings

import numpy as np

from ..tensor.meta_arrays import MetaArray, as_meta
from ..tensor import ops
from ..tensor.engine import FREED_MESSAGE, run_backward
from ..tensor.grad_mode import _mode, enable_grad, no_grad
from ..tensor.creation import zeros_like
from ..tensor.graph import Node, OutputNode, accumulate, node_class
from ..tensor.versions import check_versions, saved_versions
from ..tensor.graph_backward import CYCLE_WARNING, run_graph_backward
from ..tensor.graph_backward import accumulate as accumulate_graph
from ..tensor.joins import stack
from ..tensor.saved_hooks import HOOKS, pack_tensor, unpack_tensor
from ..tensor.tangents import TANGENTS, any_dual, refuse_forward_over_reverse
from ..tensor.tensor import Tensor, given_gradients, graph_seed, seed_of
from . import function_forward, function_transforms
from .anomaly_mode import detect_anomaly, set_detect_anomaly

__all__ = ["Function", "FunctionCtx", "grad", "backward", "Variable", "detect_anomaly", "set_detect_anomaly"]


class FunctionCtx:
    """The `ctx` of a custom Function: what forward leaves for backward."""

    def __init__(self):
        self._saved = ()
        self.versions = ()  # records of the saved tensors (versions.saved_version)
        self._freed = False
        self.needs_input_grad = ()
        self.materialize_grads = True
        self.saved_output = {}  # position in _saved -> index of the output forward returned there
        self.non_differentiable = ()  # outputs marked by mark_non_differentiable
        self.dirty = ()  # inputs marked by mark_dirty (forward wrote them in place)
        self._saved_forward = ()  # what save_for_forward kept: saved_tensors inside jvp
        self._in_jvp = False

    def save_for_backward(self, *tensors):
        self._saved = tensors
        self.versions = saved_versions([t for t in tensors if isinstance(t, Tensor)])
        # with saved-tensor hooks entered: packed now, unpacked at each read of saved_tensors
        self._packed = [pack_tensor(t) if isinstance(t, Tensor) else None for t in tensors] if HOOKS else None

    def save_for_forward(self, *tensors):
        self._saved_forward = tensors

    @property
    def saved_tensors(self):
        if self._in_jvp:
            return self._saved_forward
        if self._freed:
            raise RuntimeError(FREED_MESSAGE)
        check_versions(self)
        if getattr(self, "_packed", None):
            return tuple(t if p is None else unpack_tensor(*p) for t, p in zip(self._saved, self._packed))
        return self._saved

    describe_saved = Node.describe_saved  # its records are made by saved_versions

    def mark_non_differentiable(self, *tensors):
        self.non_differentiable = tensors

    def mark_dirty(self, *tensors):
        self.dirty = tensors

    def set_materialize_grads(self, value):
        self.materialize_grads = bool(value)


class FunctionNode(Node):
    """The node of one `Function.apply` call: an edge per Tensor argument, as PyTorch's
    (`positions`: their places among the `arg_count` arguments, for which backward
    returns one gradient each)."""

    __slots__ = ("ctx", "function", "dtypes", "shapes", "positions", "arg_count", "outputs", "output_tensors")

    def __init__(self, next_functions, ctx, function, in_dtypes, in_shapes, positions, arg_count, outputs=None):
        super().__init__(next_functions)
        self.ctx = ctx
        self.function = function
        self.dtypes = in_dtypes
        self.shapes = in_shapes
        self.positions, self.arg_count = positions, arg_count
        # forward returned a tuple: (shape, dtype) of each Tensor output (None for another
        # value); its gradients reach the node as an OutputGradients, one entry per output
        self.outputs = outputs
        self.output_tensors = ()  # the tuple's Tensors, for saved outputs under create_graph

    def _grad_outputs(self, g):
        """What backward is called with: the gradient of each output as a Tensor (an
        array made one); for a tuple, zeros where an output got none (None where the ctx
        does not materialize gradients, or for an output that is no Tensor)."""
        if self.outputs is None:
            return (g if isinstance(g, Tensor) else Tensor._make(g),)
        out = []
        for gi, meta in zip(g, self.outputs):
            if gi is None:
                if meta is None or not self.ctx.materialize_grads:
                    out.append(None)
                    continue
                gi = np.zeros(*meta)
            out.append(gi if isinstance(gi, Tensor) else Tensor._make(gi))
        return tuple(out)

    def __repr__(self):
        return "<srcgrad.autograd.function.%s object at %#x>" % (type(self).__name__, id(self))

    __str__ = __repr__

    @property
    def freed(self):
        return self.ctx._freed and bool(self.ctx._saved)

    @property
    def versions(self):
        return self.ctx.versions

    def apply(self, g):
        with no_grad():
            grads = self._counted(self.function.backward(self.ctx, *self._grad_outputs(g)))
        out = []
        for i, (nxt, _), gi, dt, shape in zip(self.positions, self.next_functions, grads, self.dtypes, self.shapes):
            if nxt is None or gi is None:
                out.append(None)
                continue
            gi = np.asarray(gi._data if isinstance(gi, Tensor) else gi, dtype=dt)
            out.append(gi if gi.shape == shape else self._sum_to(i, gi, shape))
        return out

    def graph_apply(self, g):
        """`apply` in a pass with create_graph: the user's backward runs with grad mode on,
        on the Tensor `g`, so its own ops record the gradients' graph (graph_backward.py).
        A saved output reads back as the node's output (as in PyTorch): a Tensor whose
        node is this one, so a gradient that reads it is differentiated through it."""
        ctx = self.ctx
        saved = ctx._saved
        if ctx.saved_output and not ctx._freed:
            ctx._saved = tuple(self._as_output(t, ctx.saved_output[i]) if i in ctx.saved_output else t
                               for i, t in enumerate(saved))
        try:
            with enable_grad():
                grads = self._counted(self.function.backward(ctx, *self._grad_outputs(g)))
        finally:
            ctx._saved = saved
        out = []
        for i, (nxt, _), gi, dt, shape in zip(self.positions, self.next_functions, grads, self.dtypes, self.shapes):
            if nxt is None or gi is None:
                out.append(None)
                continue
            if not isinstance(gi, Tensor):
                gi = Tensor._make(np.asarray(gi, dtype=dt))
            if gi._data.shape != shape:
                summed = self._sum_to(i, gi._data, shape)  # PyTorch's error where it does not broadcast
                if gi._requires_grad:
                    raise NotImplementedError(
                        f"create_graph=True: {self.name()} returned a gradient of shape {list(gi.shape)} for an input "
                        f"of shape {list(shape)}; the Tensor shim records no sum to the input's shape: return it summed"
                    )
                gi = Tensor._make(summed)
            out.append(gi if gi._data.dtype == dt else gi.to(dt))
        return out

    def _as_output(self, saved, index):
        """The saved output `saved` (output `index` of a tuple; None: the one output) as
        the node's output: its array and version counter, this node its grad_fn."""
        if index is not None:
            return self.output_tensors[index]
        out = Tensor._make(saved._data, True)
        out._counter = saved._counter
        out._grad_fn = self
        return out

    def _counted(self, grads):
        """What backward returned (one gradient per argument; extra trailing Nones are
        dropped), as the gradients of the Tensor arguments, one per edge (PyTorch's
        errors where the count differs, or an argument that is no Tensor gets one)."""
        if not isinstance(grads, tuple):
            grads = (grads,)
        if len(grads) > self.arg_count and all(g is None for g in grads[self.arg_count:]):
            grads = grads[:self.arg_count]  # PyTorch drops trailing Nones past the arguments
        if len(grads) != self.arg_count:
            raise RuntimeError(
                f"function {type(self).__name__} returned an incorrect number of gradients "
                f"(expected {self.arg_count}, got {len(grads)})"
            )
        for i, g in enumerate(grads):
            if g is not None and i not in self.positions:
                raise RuntimeError(f"function {type(self).__name__} returned a gradient different than None at position "
                                   f"{i + 1}, but the corresponding forward input was not a Variable")
        return tuple(grads[i] for i in self.positions)

    def _sum_to(self, i, gi, shape):
        """Input `i`'s gradient `gi` summed over the axes that broadcasting `shape` to
        gi's shape adds or stretches (PyTorch's sum_to); PyTorch's error when `shape`
        does not broadcast to it."""
        lead = gi.ndim - len(shape)
        if lead < 0 or any(n != 1 and n != m for n, m in zip(shape, gi.shape[lead:])):
            raise RuntimeError(
                f"Function {self.name()} returned an invalid gradient at index {i} - got {list(gi.shape)} "
                f"but expected shape compatible with {list(shape)}"
            )
        stretched = tuple(lead + k for k, n in enumerate(shape) if n == 1 and gi.shape[lead + k] != 1)
        return gi.sum(axis=tuple(range(lead)) + stretched).reshape(shape)

    def release(self):
        if self.ctx._saved:
            self.ctx._freed = True
            self.ctx._saved = ()


class Function:
    """Subclass with static `forward(ctx, *args)` and `backward(ctx, *grad_outputs)`, or
    `forward(*args)` with `setup_context(ctx, inputs, output)` (PyTorch's two styles);
    call `YourFunction.apply(*args)`. forward returns a Tensor or a tuple (of Tensors
    and other values); backward gets one gradient per output and returns one per
    argument. A static `jvp(ctx, *tangents)` serves forward AD (function_forward.py);
    under the `func` transforms, PyTorch's checks (function_transforms.py)."""

    @staticmethod
    def forward(ctx, *args, **kwargs):
        raise NotImplementedError("You must implement the forward function for custom autograd.Function.")

    @staticmethod
    def setup_context(ctx, inputs, output):
        raise NotImplementedError("setup_context is not implemented.")

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise NotImplementedError("You must implement the backward function for custom autograd.Function.")

    @staticmethod
    def jvp(ctx, *grad_inputs):
        raise NotImplementedError(function_forward.E_NO_JVP)

    generate_vmap_rule = False

    @staticmethod
    def vmap(info, in_dims, *args):
        raise NotImplementedError("To use autograd.Function with vmap, you must either override the vmap staticmethod "
                                  "or set generate_vmap_rule=True.")

    @classmethod
    def apply(cls, *args, **kwargs):
        function_transforms.check(cls)
        dual = bool(TANGENTS) and any_dual(args)
        if dual and cls.jvp is Function.jvp:
            raise NotImplementedError(function_forward.E_NO_JVP)
        ctx = FunctionCtx()
        tracked = _mode.enabled and any(isinstance(a, Tensor) and a._requires_grad for a in args)
        ctx.needs_input_grad = tuple(isinstance(a, Tensor) and a._requires_grad for a in args)
        with no_grad(), (function_forward.forward_ad_off() if dual else contextlib.nullcontext()):
            if cls.setup_context is not Function.setup_context:  # forward without ctx
                result = cls.forward(*args, **kwargs)
                cls.setup_context(ctx, args, result)
            else:
                result = cls.forward(ctx, *args, **kwargs)
        outputs = _recorded(cls, ctx, args, result) if tracked else result
        if dual:
            return _with_tangents(cls, ctx, args, result, outputs, tracked)
        return outputs


def _recorded(cls, ctx, args, result):
    """apply's outputs where grad mode is on and an argument requires grad: a Tensor over
    each of forward's output Tensors, recording one node of the Function."""
    if not isinstance(result, (Tensor, tuple)):
        raise TypeError(f"{cls.__name__}.forward returned {type(result).__name__}: a custom Function's forward "
                        "returns a Tensor or a tuple")
    positions = tuple(i for i, a in enumerate(args) if isinstance(a, Tensor))
    tensors = [args[i] for i in positions]
    edges = tuple((ops._edge(a), 0) if a._requires_grad else (None, 0) for a in tensors)
    in_dtypes = [a._data.dtype for a in tensors]
    in_shapes = [a._data.shape for a in tensors]
    node_type = node_class(cls.__name__ + "Backward", FunctionNode)
    if isinstance(result, Tensor):
        ctx.saved_output = {i: None for i, t in enumerate(ctx._saved) if t is result}
        out = _output_of(result)
        if out._data.dtype.kind in "fc" and not any(result is t for t in ctx.non_differentiable):
            out._grad_fn = node = node_type(edges, ctx, cls, in_dtypes, in_shapes, positions, len(args))
            out._requires_grad = True
            _name_saved_outputs(ctx, node, (out,))
        return out
    metas = tuple((r._data.shape, r._data.dtype) if isinstance(r, Tensor) else None for r in result)
    node = node_type(edges, ctx, cls, in_dtypes, in_shapes, positions, len(args), metas)
    outs = []
    for i, r in enumerate(result):
        if not isinstance(r, Tensor):
            outs.append(r)
            continue
        out = _output_of(r)
        if out._data.dtype.kind in "fc" and not any(r is t for t in ctx.non_differentiable):
            out._grad_fn = OutputNode(node, i, len(result))
            out._requires_grad = True
        outs.append(out)
    node.output_tensors = tuple(outs)
    ctx.saved_output = {i: k for i, t in enumerate(ctx._saved) for k, r in enumerate(result) if t is r}
    _name_saved_outputs(ctx, node, [o for o in outs if isinstance(o, Tensor)])
    return tuple(outs)


def _with_tangents(cls, ctx, args, result, outputs, tracked):
    """apply's outputs where an argument has a tangent: where no graph was recorded, a new
    Tensor over each output array of forward (an input marked dirty: that input); their
    tangents given by the Function's jvp."""
    single = not isinstance(result, tuple)
    results = (result,) if single else result
    if not tracked:
        outputs = tuple(r if not isinstance(r, Tensor) or any(r is d for d in ctx.dirty) else _output_of(r)
                        for r in results)
    elif single:
        outputs = (outputs,)
    function_forward.run_jvp(cls, ctx, args, function_forward.input_tangents(args), results, outputs)
    return outputs[0] if single else outputs


def _output_of(result):
    """A Tensor over forward's output `result`: its array and version counter (forward
    may have saved it)."""
    out = Tensor._make(result._data)
    out._counter = result._counter
    return out


def _name_saved_outputs(ctx, node, outs):
    """A saved output is named as the node's output in a version error, as in PyTorch."""
    arrays = [o._data for o in outs]
    ctx.versions = tuple([
        (item[0], node) if i % 3 == 2 and any(item[0] is a for a in arrays) else item
        for i, item in enumerate(ctx.versions)
    ])


def _seed(outputs, grad_outputs, create_graph=False):
    outputs = [outputs] if isinstance(outputs, Tensor) else list(outputs)
    grad_outputs = given_gradients(grad_outputs, len(outputs))
    roots, seeds = [], []
    for out, g in zip(outputs, grad_outputs):
        seeds.append(graph_seed(out, g) if create_graph else seed_of(out, g))
        roots.append(ops._edge(out))
    return roots, seeds


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False, only_inputs=True,
         allow_unused=None, is_grads_batched=False, materialize_grads=False):
    """Gradients of `outputs` with respect to `inputs`, returned (not accumulated);
    with `materialize_grads`, zeros (that require grad under create_graph) for an input
    the outputs do not depend on. `only_inputs` is ignored (PyTorch's deprecation
    warning where it is False). With `is_grads_batched`, the first dim of each of
    `grad_outputs` is a batch: one pass per entry, the gradients stacked."""
    if not only_inputs:
        warnings.warn("only_inputs argument is deprecated and is ignored now (defaults to True). To accumulate "
                      "gradient for other parts of the graph, please use torch.autograd.backward.",
                      FutureWarning, stacklevel=2)
    if is_grads_batched:
        return _batched_grad(outputs, inputs, grad_outputs, retain_graph, create_graph, allow_unused, materialize_grads)
    if materialize_grads and allow_unused is False:
        raise ValueError("Expected allow_unused to be True or not passed when materialize_grads=True, "
                         "but got: allow_unused=False.")
    if allow_unused is None:
        allow_unused = materialize_grads
    single = isinstance(inputs, Tensor)
    inputs = [inputs] if single else list(inputs)
    roots, seeds = _seed(outputs, grad_outputs, create_graph)
    if not all(t._requires_grad for t in inputs):
        raise RuntimeError("One of the differentiated Tensors does not require grad")
    capture = [ops._edge(t) for t in inputs]
    refuse_forward_over_reverse(roots)
    with np.errstate(all="ignore"):
        if create_graph:
            retain = True if retain_graph is None else bool(retain_graph)
            got = run_graph_backward(roots, seeds, retain, capture=capture)
        else:
            got = run_backward(roots, seeds, bool(retain_graph), capture=capture)
    result = []
    for i, g in enumerate(got):
        if g is None and not allow_unused:
            raise RuntimeError(
                f"The differentiated Tensor at index {i} appears to not have been used in the graph. "
                "Set allow_unused=True if this is the desired behavior."
            )
        if g is None and materialize_grads:
            g = Tensor._make(np.zeros(inputs[i]._data.shape, inputs[i]._data.dtype), create_graph)
        elif g is not None and not create_graph:
            g = Tensor._make(as_meta(g) if type(inputs[i]._data) is MetaArray else np.array(g))
        result.append(g)
    return tuple(result)


def _batched_grad(outputs, inputs, grad_outputs, retain_graph, create_graph, allow_unused, materialize_grads):
    """`grad(..., is_grads_batched=True)`: one pass per entry of the batch dim of
    `grad_outputs`, each input's gradients stacked (an input that gets none: None, or with
    `materialize_grads` one zero gradient of its shape, unbatched, as PyTorch gives it)."""
    outputs = [outputs] if isinstance(outputs, Tensor) else list(outputs)
    if grad_outputs is None:
        raise RuntimeError("grad can be implicitly created only for scalar outputs")
    grad_outputs = [grad_outputs] if isinstance(grad_outputs, Tensor) else list(grad_outputs)
    for i, (out, g) in enumerate(zip(outputs, grad_outputs)):
        if g is not None and tuple(g.shape[1:]) != tuple(out.shape):
            raise RuntimeError(
                "If `is_grads_batched=True`, we interpret the first dimension of each grad_output as the batch "
                "dimension. The sizes of the remaining dimensions are expected to match the shape of corresponding "
                f"output, but a mismatch was detected: grad_output[{i}] has a shape of {g.shape[2:]} and output[{i}] "
                f"has a shape of {out.shape}. If you only want some tensors in `grad_output` to be considered "
                "batched, consider using vmap.")
    size = next(g.shape[0] for g in grad_outputs if g is not None)
    single = isinstance(inputs, Tensor)
    per_entry = [
        grad(outputs, inputs, [None if g is None else g[b] for g in grad_outputs],
             retain_graph=True if b < size - 1 else retain_graph, create_graph=create_graph,
             allow_unused=allow_unused or materialize_grads)
        for b in range(size)
    ]
    stacked = []
    for i, found in enumerate(zip(*per_entry)):
        if all(g is None for g in found):
            given = inputs if single else list(inputs)[i]
            stacked.append(Tensor._make(np.zeros(given._data.shape, given._data.dtype), create_graph)
                           if materialize_grads else None)
        else:
            like = next(g for g in found if g is not None)
            stacked.append(stack([g if g is not None else zeros_like(like) for g in found]))
    return tuple(stacked)


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, inputs=None):
    """Accumulate the gradients of `tensors` into the leaves' `.grad` (with `inputs`,
    into those tensors' `.grad` only)."""
    roots, seeds = _seed(tensors, grad_tensors, create_graph)
    if inputs is not None:
        inputs = [inputs] if isinstance(inputs, Tensor) else list(inputs)
        if not inputs:
            raise RuntimeError("`inputs` argument to `backward()` cannot be empty.")
        if not all(t._requires_grad for t in inputs):  # its .grad would stay None, silently
            raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
    capture = None if inputs is None else [ops._edge(t) for t in inputs]
    if create_graph:
        refuse_forward_over_reverse(roots)
    with np.errstate(all="ignore"):
        if create_graph:
            warnings.warn(CYCLE_WARNING, UserWarning, stacklevel=2)
            got = run_graph_backward(roots, seeds, True if retain_graph is None else bool(retain_graph), capture=capture)
            into = accumulate_graph
        else:
            got = run_backward(roots, seeds, bool(retain_graph), capture=capture)
            into = accumulate
    for t, g in zip(inputs or (), got or ()):
        if g is not None:
            into(t, g)


def Variable(data, requires_grad=False):
    """The pre-0.4 wrapper: now simply the tensor, with `requires_grad` set."""
    return data.requires_grad_(requires_grad) if requires_grad else data



from . import forward_ad, function, functional, graph  # noqa: E402  (they use Function and grad above)
from .gradcheck import GradcheckError, gradcheck, gradgradcheck  # noqa: E402,F401

__all__ += ["forward_ad", "graph", "function", "functional", "gradcheck", "gradgradcheck", "GradcheckError"]
