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
  backward calls with the incoming gradient;
- a tuple of arrays: a tuple of Tensors, as PyTorch's multi-output nodes give: each
  floating output reaches the one node through its own `graph.OutputNode` (its
  `grad_fn` shows the node), so the pullback runs once per backward pass with the
  gradients of all outputs (None, read as zeros, for an unused one); other outputs
  are leaves. A list, a dict or a nested tuple is refused at the call;
- an integer or boolean array: a leaf (no gradient flows through it, as in PyTorch).
Whether a call's output is scalar is learned at the first tracked call of each kind
of call (argument shapes, dtypes and types, and which arguments require grad) by
running the function itself once (a later call of the kind that returns a tuple
where that one returned one array, or the reverse, raises a TypeError); the second
generates the derivative, and later
calls of the kind run the code the derivative specialized for it, without its
dispatch, while that derivative is current (a global it calls through rebound, or the
code replaced, makes the next call of the kind a first call again). A call with only Tensor arguments goes through an unrolled path (compiled_calls.py).
`backward()` on the node alone (inputs that are leaves) goes through the engine's
single-node path, which takes the saved gradients without a product by the seed 1.
A function the compiler cannot derive still runs; its node raises at backward.
A pass with create_graph records each argument's gradient as the generated
vector-Jacobian product, differentiated again at the next order (compiled_graph.py):
for it the node keeps its arguments' arrays and their versions at the call.
Arguments passed by keyword are bound to their positions as Python binds them, with
the defaults of the parameters left out, so kinds of call and derivatives see
positional arguments only. Keyword-only parameters are taken by position after the
others (`stand_in.positional_function`: the same code); one that `**kwargs` collects
cannot be passed (a TypeError says so).

Invariant: like every node that saves tensors, the node keeps what its backward
needs (gradients, a pullback, or the argument arrays) until a backward pass without
`retain_graph` releases it; gradients reach the inputs in their own dtypes. A node
that keeps a pullback or the arrays records its Tensor arguments' versions, and one
that keeps a pullback its outputs' too (the pullback may read them): a later
in-place write into one (through a `detach()`ed alias or under `no_grad`) makes its
backward raise, as in PyTorch; gradients saved at the call already are those of the
values the call saw.
"""

import functools
import inspect
import numbers
import types

import numpy as np

from .tangents import TANGENTS, refuse_dual
from ..errors import defined_at
from .compiled_calls import arity, fast_call
from .compile_front import TORCH_BACKENDS, is_tensor_code, is_tensor_module
from .errstate import loud, quiet
from .grad_mode import _mode
from .graph import Node, OutputGradients, OutputNode, next_creation_order, node_class
from .versions import counter_of, saved_versions
from .tensor import Tensor

__all__ = ["compile"]

_ndarray = np.ndarray
_NO_EDGE = (None, 0)
_ABSENT = object()
_new = object.__new__


class _Kind:
    """What the tracked calls of one kind share (the kind: each argument's shape and
    dtype, or type, and which arguments require grad).

    `how`: "grads" -> `generated` is the value_and_grad, and a node saves the gradients
    of `positions` for a seed of 1; "pullback" -> `generated` is the split_vjp, and a
    node saves the pullback; "lazy" -> the function itself runs, and a node saves the
    argument arrays, the derivative being generated at backward; None -> no call of
    this kind has been tracked but the first, which learned `scalar` and `outputs`
    (None for one output, else the length of the tuple the function returns).
    """

    __slots__ = ("fn", "how", "generated", "derivative", "positions", "dtypes", "grad_dtypes", "scalar", "outputs")

    def __init__(self, fn, how, positions, in_dtypes, scalar=None, outputs=None):
        self.fn = fn
        self.how = how
        self.generated = None
        self.derivative = None  # the compiler.pipeline.Derivative `generated` comes from
        self.positions = positions
        self.dtypes = in_dtypes
        self.grad_dtypes = tuple([in_dtypes[i] for i in positions])  # the dtype of each gradient, in order
        self.scalar = scalar
        self.outputs = outputs


class CompiledNode(Node):
    """The node of one call of a compiled function: `saved` is what `kind.how` says."""

    __slots__ = ("kind", "saved", "freed", "versions", "arrays", "arg_versions")
    keeps_output = True  # may read its outputs back (inplace.py refuses writes into them)

    def __init__(self, next_functions, kind, saved, versions, arrays, arg_versions):
        super().__init__(next_functions)
        self.kind = kind
        self.saved = saved
        self.freed = False
        self.versions = versions
        self.arrays = arrays  # the arguments' arrays, and the versions of its Tensor
        self.arg_versions = arg_versions  # arguments then: for create_graph (compiled_graph.py)

    def apply(self, g):
        kind, saved = self.kind, self.saved
        how, positions = kind.how, kind.positions
        if how == "grads":
            grads = zip(positions, [gi * g for gi in saved])
        elif how == "pullback":
            grads = saved(g)
            grads = [(i, grads[i]) for i in positions]
        else:
            grads = _lazy_grads(kind.fn, saved, positions, g)
        return self._out(grads)

    def apply_ones(self, shape, dtype):
        # A saved gradient times a seed of ones is the gradient itself: the product only
        # matters for its dtype, which `_out` fixes (widening and a product by 1 are
        # exact). A gradient of another dtype keeps the product, as `apply` computes it.
        kind = self.kind
        if kind.how != "grads":
            return enumerate(self.apply(np.ones(shape, dtype=dtype)))
        saved, expected = self.saved, kind.grad_dtypes
        k = 0
        for gi in saved:
            if type(gi) is not _ndarray or gi.dtype is not expected[k]:
                break
            k += 1
        else:  # each an array of its input's dtype (the usual case): the pairs as saved
            return zip(kind.positions, saved)
        dtypes = kind.dtypes
        out = []
        for i, gi in zip(kind.positions, saved):
            dt = dtypes[i]
            if type(gi) is not _ndarray or (gi.dtype is not dt and gi.dtype != dt):
                gi = np.asarray(gi * np.ones(shape, dtype=dtype), dtype=dt)
            out.append((i, gi))
        return out

    def _out(self, grads):
        dtypes = self.kind.dtypes
        out = [None] * len(dtypes)
        for i, gi in grads:
            dt = dtypes[i]
            if gi is not None and (type(gi) is not _ndarray or gi.dtype != dt):
                gi = np.asarray(gi, dtype=dt)
            out[i] = gi
        return out

    def release(self):
        self.saved = self.arrays = None
        self.freed = True


def _saved_tensors(args):
    """The version records of the Tensor arguments a node keeps (versions.saved_versions)."""
    return saved_versions([a for a in args if isinstance(a, Tensor)])


def _argument_versions(args):
    """The version records a node keeps of its Tensor arguments for a pass with
    create_graph (compiled_graph.py): counter, count, and the argument's position."""
    versions = ()
    for i, a in enumerate(args):
        if isinstance(a, Tensor):
            counter = a._counter or counter_of(a)
            versions += (counter, counter[0], i)
    return versions


def _method(fn):
    """For a bound method (`model.forward`) or a callable instance, the Python function
    computing it with the instance held constant (stand_in.method_function); `fn`
    otherwise. An nn.Module is its `forward` (what calling it runs); an instance whose
    call is no Python function of named parameters is refused (a TypeError)."""
    from ..compiler.stand_in import is_instance, method_function
    from ..nn.modules import Module

    if isinstance(fn, Module):
        fn = fn.forward
    if not (isinstance(fn, types.MethodType) or is_instance(fn)):
        return fn
    made = method_function(fn)
    if made is None and not hasattr(fn, "__code__"):
        raise TypeError(
            f"@srcgrad.compile takes a NumPy function, a method or an instance whose class's `__call__` is a "
            f"Python function of named parameters, not {type(fn).__name__!r}: compile the function it calls"
        )
    return made or fn


def _where(fn):
    """Where the user's `def` of `fn` is (the method's for the stand-in of a method)."""
    return defined_at(getattr(fn, "__srcgrad_method__", (fn,))[0])


def _positional(fn):
    """`fn` taking its keyword-only parameters by position (stand_in.positional_function),
    or None."""
    from ..compiler.stand_in import positional_function

    return positional_function(fn)


def _derive(fn, mode, positions):
    from ..compiler import derive

    return derive(fn, mode=mode, wrt=positions).function


def _lazy_grads(fn, arrays, positions, g):
    """The gradients of `positions`, generating the derivative now (scalar or not, or
    several outputs: `g` is then their OutputGradients, None for an output unused)."""
    if type(g) is OutputGradients:
        _, grads = _derive(fn, "vjp", positions)(tuple(g), *arrays)
        return [(i, grads[i]) for i in positions]
    out = np.asarray(fn(*arrays))
    if out.ndim == 0:
        _, grads = _derive(fn, "value_and_grad", positions)(*arrays)
        return zip(positions, [gi * g for gi in grads])
    _, grads = _derive(fn, "vjp", positions)(g, *arrays)
    return [(i, grads[i]) for i in positions]


def _specialization(generated, arrays):
    """The code `generated` (a derivative from `srcgrad.compiler.derive`, which dispatches
    each kind of call to code built for it) runs for `arrays`, once it has run for them:
    calling that directly skips the dispatch. `generated` itself when it has none."""
    from ..compiler.cache import signature_of

    table = getattr(generated, "__srcgrad_specializations__", None)
    if not table:
        return generated
    found = table.get(signature_of(arrays))
    return found if callable(found) else generated


def _primal(fn, called, arrays):
    """`called(*arrays)`: the function itself on its arguments' arrays. A Tensor that
    requires grad met inside it is no argument (an attribute or a global, such as a
    Module's Parameter), which the one node could give no gradient: a clear error."""
    try:
        value = called(*arrays)
    except RuntimeError as exc:
        if not str(exc).startswith("Can't call numpy() on Tensor that requires grad"):
            _note_tensor_met(fn, exc)
            raise
        raise _outside_tensor(fn) from None
    except Exception as exc:
        _note_tensor_met(fn, exc)
        raise
    if isinstance(value, Tensor) or type(value) is tuple and any(isinstance(v, Tensor) for v in value):
        if any(v._requires_grad for v in (value if type(value) is tuple else (value,)) if isinstance(v, Tensor)):
            raise _outside_tensor(fn)
    return value


def _note_tensor_met(fn, error):
    """Add to `error`, raised by `fn` run on its arguments' arrays, a note saying that a
    Tensor took part (a local of a frame it passed holds one: an attribute or a global
    that NumPy cannot compute with, as `np.sum(tensor)`), which the message rarely says."""
    tb = error.__traceback__
    while tb is not None:
        if any(isinstance(v, Tensor) for v in tb.tb_frame.f_locals.values()):
            if hasattr(error, "add_note"):
                error.add_note(
                    f"srcgrad: `{fn.__name__}` ({_where(fn)}) under @srcgrad.compile computes on its arguments' "
                    "arrays, and met a Tensor (an attribute or a global): pass that Tensor as an argument"
                )
            return
        tb = tb.tb_next


def _outside_tensor(fn):
    return RuntimeError(
        f"`{fn.__name__}` ({_where(fn)}) under @srcgrad.compile computed with a Tensor that requires grad "
        "and is not one of its arguments (an attribute or a global, such as a Module's Parameter): the compiled "
        "function's node gives gradients to its arguments only; pass that Tensor as an argument"
    )


def _count_outputs(fn, value):
    """None when `fn` returned one value (an array or number), the length of the tuple
    when it returned a tuple of them; a TypeError for any other container."""
    if not isinstance(value, (list, dict, tuple)):
        _check_output(fn, value, "")
        return None
    if type(value) is tuple and not any(isinstance(v, (list, dict, tuple)) for v in value):
        for i, v in enumerate(value):
            _check_output(fn, v, f" at index {i} of the tuple")
        return len(value)
    what = "a tuple holding a container" if type(value) is tuple else f"a {type(value).__name__}"
    raise TypeError(
        f"`{fn.__name__}` ({_where(fn)}) returned {what}: a function under @srcgrad.compile returns one array "
        "(one Tensor) or a flat tuple of arrays (a tuple of Tensors); return a tuple, or np.stack the values"
    )


def _check_output(fn, value, where):
    """Raise a TypeError naming `fn` where its output `value` is no array or number that a
    Tensor can hold (None: a `return` missing; a string; an object)."""
    if type(value) is _ndarray or type(value) is float:
        if type(value) is float or value.dtype.kind in "biufc":
            return
    elif isinstance(value, (np.ndarray, np.generic, numbers.Number)) and np.asarray(value).dtype.kind in "biufc":
        return
    shown = "None (is a `return` missing?)" if value is None else (
        f"an array of {value.dtype}" if isinstance(value, (np.ndarray, np.generic)) else f"{type(value).__name__} {value!r:.40}")
    raise TypeError(
        f"`{fn.__name__}` ({_where(fn)}) returned {shown}{where}: a function under @srcgrad.compile returns "
        "arrays or numbers, which become Tensors"
    )


def _changed_outputs(fn, outputs, value):
    """The error for a call that returned other than the first call of its kind did
    (`outputs`: None for one array, else the length of the tuple): the kind's node was
    built for that."""
    def what(n):
        return "one array" if n is None else f"a tuple of {n} values"

    got = len(value) if type(value) is tuple else None
    return TypeError(
        f"`{fn.__name__}` ({_where(fn)}) returned {what(got)}, and {what(outputs)} at the first call "
        "with arguments of the same shapes, dtypes and types: a function under @srcgrad.compile returns the "
        "same structure at every call of a kind; return a tuple at every call, or split the function"
    )


def _untracked(value, outputs):
    """The Tensor, or tuple of Tensors, of a call that records no node."""
    if outputs is None:
        return Tensor._make(value if type(value) is _ndarray else np.asarray(value))
    return tuple([Tensor._make(np.asarray(v)) for v in value])


def _outputs(values, node):
    """The tuple of Tensors of a tracked call that returned the tuple `values`: each
    output with a floating dtype is reached through its own OutputNode of `node`; any
    other is a leaf that needs no grad (PyTorch marks such outputs non-differentiable)."""
    out = []
    for i, v in enumerate(values):
        t = Tensor._make(np.asarray(v))
        if t._data.dtype.kind in "fc":
            t._requires_grad = True
            t._grad_fn = OutputNode(node, i, len(values))
        out.append(t)
    return tuple(out)


def compile(fn=None, *, backend=None, fullgraph=False, dynamic=None, mode=None, options=None, disable=False):
    """Make the NumPy function `fn` a Tensor operation with a generated derivative.

    Call it with Tensors (or arrays and numbers), by position or by keyword: every
    Tensor argument that requires grad gets its gradient. `backend="numba"` (as in
    `srcgrad.grad`) compiles the generated code of each kind of call with a scalar
    output by `numba.njit`; `.__srcgrad_backend__.describe()` tells what runs.

    What PyTorch's `torch.compile` is given, a Module whose forward reads no NumPy or
    a function written with the Tensor shim and no NumPy, runs as written (compile_front.py); PyTorch's keywords
    and backend names are accepted for it, and `disable=True` returns `fn` itself."""
    if backend in TORCH_BACKENDS:
        backend = None
    if fn is None:
        return lambda f: compile(f, backend=backend, disable=disable)
    if disable:
        return fn
    if not callable(fn):
        raise TypeError(f"@srcgrad.compile decorates a function, not {fn!r:.60}")
    if is_tensor_module(fn) or is_tensor_code(fn):
        return fn  # PyTorch code: it runs as written (compile_front.py)
    report = _backend_report(backend)
    # what runs and is differentiated: fn, or fn taking its keyword-only parameters by position
    fn = _method(fn)
    called = _positional(fn) or fn
    code = getattr(fn, "__code__", None)
    positional = code.co_argcount if called is not fn else float("inf")  # more are keyword-only
    derivatives = {}  # (mode, positions) -> the Derivative, or None if it failed
    kinds = {}  # kind of call (see _Kind) -> its _Kind

    def derivative(mode, positions):
        """The current Derivative (compiler.pipeline), built again where a name it
        calls through was rebound or the code replaced; None where it cannot be built."""
        key = (mode, positions)
        found = derivatives.get(key, _ABSENT)
        if found is None or (found is not _ABSENT and found.current(called)):
            return found
        from ..compiler import derive

        try:
            found = derive(called, mode=mode, wrt=positions)
        except Exception:  # noqa: BLE001 - the forward still runs; backward will raise
            found = None
        derivatives[key] = found
        return found

    cls = node_class(fn.__name__ + "Backward", CompiledNode)
    try:
        signature = inspect.signature(fn)
    except (TypeError, ValueError):  # no Python signature: keywords are refused at the call
        signature = None

    def tracked(kind, args, arrays, edges):
        """Run the generated code of `kind` and record its node."""
        token = quiet()
        try:
            value, saved = kind.generated(*arrays)
        finally:
            loud(token)
        node = _new(cls)
        node.next_functions = tuple(edges)
        node._hooks = None
        node.creation_order = next_creation_order()
        node.kind = kind
        node.saved = saved
        node.freed = False
        node.versions = () if kind.how == "grads" else _saved_tensors(args)
        node.arrays = tuple(arrays)
        node.arg_versions = _argument_versions(args)
        if kind.outputs is not None:
            if type(value) is not tuple or len(value) != kind.outputs:
                raise _changed_outputs(fn, kind.outputs, value)
            outs = _outputs(value, node)
            node.versions += saved_versions(outs)  # a pullback may read them
            return outs
        if type(value) is not _ndarray:
            if type(value) is tuple:
                raise _changed_outputs(fn, None, value)
            value = np.asarray(value)
        out = Tensor._make(value, True)
        out._grad_fn = node
        if kind.how != "grads":  # a pullback may read the output
            node.versions += saved_versions((out,))
        return out

    def first(args, arrays, key, edges):
        """A call of a kind that has no generated code to run (yet)."""
        kind = kinds.get(key)
        if kind is None:  # the first call of this kind: run the function itself
            positions = tuple([i for i, a in enumerate(args) if isinstance(a, Tensor) and a._requires_grad])
            in_dtypes = tuple([a._data.dtype if isinstance(a, Tensor) else None for a in args])
            value = _primal(fn, called, arrays)
            outputs = _count_outputs(fn, value)
            if outputs is None:
                value = np.asarray(value)
            if not positions:
                kinds[key] = _Kind(called, "untracked", positions, in_dtypes, outputs=outputs)
                return _untracked(value, outputs)
            if outputs is None and value.dtype.kind not in "fc":
                # an integer or boolean output has no gradient (PyTorch's too): a leaf. The
                # kind is not kept: another call of it may return a floating value
                return _untracked(value, outputs)
            scalar = outputs is None and value.ndim == 0 and value.dtype.kind in "fc"
            kinds[key] = _Kind(called, None, positions, in_dtypes, scalar, outputs)
            return _lazy(value, _Kind(called, "lazy", positions, in_dtypes, outputs=outputs), args, arrays, edges)
        if kind.how == "untracked":
            return _untracked(_primal(fn, called, arrays), kind.outputs)
        if kind.how is None:  # the second call: generate the derivative
            kind.how = "grads" if kind.scalar else "pullback"
            found = derivative("value_and_grad" if kind.scalar else "split_vjp", kind.positions)
            if found is not None:
                kind.derivative = found
                kind.generated = generated = found.function
                try:
                    out = tracked(kind, args, arrays, edges)
                finally:  # the dispatch has now built (or picked) the code for this kind
                    kind.generated = _specialization(generated, arrays)
                if report is not None and kind.how == "grads":
                    kind.generated = report.compiled_call(kind.generated, arrays)
                return out
            kind.how = "lazy"
        value = _primal(fn, called, arrays)
        if _count_outputs(fn, value) != kind.outputs:
            raise _changed_outputs(fn, kind.outputs, value)
        return _lazy(value, kind, args, arrays, edges)

    def _lazy(value, kind, args, arrays, edges):
        node = cls(tuple(edges), kind, arrays, _saved_tensors(args), tuple(arrays), _argument_versions(args))
        if kind.outputs is not None:
            return _outputs(value, node)
        out = Tensor._make(np.asarray(value), True)
        out._grad_fn = node
        return out

    def slow(args, kwargs):
        """A call: any arguments, any grad mode."""
        if kwargs or len(args) > positional:
            args = _bind(fn, signature, args, kwargs)
        if TANGENTS:  # no forward rule of the generated code: refused (forward AD, tangents.py)
            refuse_dual(f"the compiled function {getattr(fn, '__name__', 'fn')}", *args)
        if not _mode.enabled:
            value = _primal(fn, called, [a._data if isinstance(a, Tensor) else a for a in args])
            return _untracked(value, _count_outputs(fn, value))
        arrays, key, edges = [], [], []
        for a in args:  # one pass: the arrays, the kind of call, and the graph edges
            if isinstance(a, Tensor):
                data = a._data
                arrays.append(data)
                if a._requires_grad:
                    key += (data.shape, data.dtype, True)
                    edge = a._grad_fn
                    if edge is None:
                        edge = a._accumulator
                        if edge is None:
                            edge = a._accumulate_grad()
                    edges.append((edge, 0))
                else:
                    key += (data.shape, data.dtype, False)
                    edges.append(_NO_EDGE)
            else:
                arrays.append(a)
                key += (a.shape, a.dtype, None) if type(a) is _ndarray else (type(a),)
                edges.append(_NO_EDGE)
        key = tuple(key)
        kind = kinds.get(key)
        if kind is not None and kind.generated is not None and not kind.derivative.current(called):
            del kinds[key]  # stale: learned again, as a first call, and its derivative built again
            kind = None
        if kind is None or kind.generated is None:
            return first(args, arrays, key, edges)
        return tracked(kind, args, arrays, edges)

    def made():
        """The derivatives (compiler.pipeline.Derivative) the tracked calls so far have
        used or will use at backward, one per mode and set of positions, first use first."""
        wanted = []
        for kind in kinds.values():
            if kind.how != "untracked":
                mode = "value_and_grad" if kind.scalar else ("split_vjp" if kind.outputs is None else "vjp")
                if (mode, kind.positions) not in wanted:
                    wanted.append((mode, kind.positions))
        from ..compiler import derive

        return [derive(called, mode, positions) for mode, positions in wanted]

    run = fast_call(arity(called) if called is fn else positional, slow, kinds, cls, fn, called,
                    _saved_tensors, _changed_outputs, counter_of)
    functools.update_wrapper(run, fn)
    run.__wrapped__ = run.__srcgrad_compiled__ = fn  # srcgrad differentiates fn for run
    run.__srcgrad_derivatives__ = made  # what srcgrad.source shows
    if report is not None:
        run.__srcgrad_backend__ = report
    return run


def _backend_report(backend):
    """None for plain Python; for numba, what records how each kind of call runs."""
    from ..backends import backend_module

    module = backend_module(backend)
    return None if module is None else module.NumbaBackend(None, None)


def _bind(fn, signature, args, kwargs):
    """The positional arguments a call with keywords gives `fn`, bound as Python binds
    them, with the defaults of the parameters it leaves out, keyword-only ones last (in
    the order `stand_in.positional_function` takes them): the generated derivative takes
    (and differentiates) arguments by position, so a Tensor passed by keyword gets its
    gradient like any other."""
    if signature is None:
        raise TypeError(f"{fn!r} has no Python signature: pass its arguments by position")
    try:
        bound = signature.bind(*args, **kwargs)
    except TypeError as exc:
        raise TypeError(f"{fn.__name__}() {exc}") from None
    for name in kwargs:
        param = signature.parameters.get(name)
        if param is None or param.kind is param.VAR_KEYWORD or (
                param.kind is param.KEYWORD_ONLY and _positional(fn) is None):
            raise TypeError(
                f"@srcgrad.compile passes arguments to `{fn.__name__}` ({_where(fn)}) by position, and "
                f"`{name}` has no position (one that **kwargs collects, or a keyword-only parameter without a "
                f"default after a parameter with one): make `{name}` a parameter of its own, with a default"
            )
    bound.apply_defaults()
    if _positional(fn) is None:
        return bound.args
    return bound.args + tuple(bound.kwargs.values())
