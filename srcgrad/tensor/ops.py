"""The Tensor shim's one doorway to the derivative rules.

`apply(primitive, *args)` runs a NumPy-level primitive on the tensors' arrays and,
when the op is tracked, records a `RuleNode` (rule_nodes.py) whose backward calls the
primitive's registered `rule.vjp`. `composite(name, fn, *args)` runs Tensor code built from such
primitives and records it as ONE node named `name` (how `binary_cross_entropy_with_logits`
prints as a single PyTorch node); its backward runs the inner graph. `unary`, `exact`
and `view_op` do what `apply` does for the commonest shapes of call, with less
overhead; binary_ops.py converts the operands of binary ops and promotes their dtypes,
and records them here (`apply`, `node_output`).

Invariants: an op is tracked iff grad mode is on and some Tensor argument requires
grad; a tracked result has `requires_grad` True and a `grad_fn`; an untracked result
is a leaf. Gradients returned by nodes have their input's shape and dtype. A node
that keeps a tensor's array records the tensor's version (versions.saved_version), and a
view shares the version counter of the tensor it views: backward refuses a node
whose saved values were written in place since, and a recorded in-place write into
a tensor with a counter is refused when it is made (inplace.py).

`Tensor` is bound by `tensor.py` when it is imported (the class needs this module).
"""

from weakref import ref as _weakref

import numpy as np

from ..rules import is_nondifferentiable
from . import dtypes
from .errstate import loud, quiet
from .grad_mode import OPEN_INFERENCE_BLOCKS, _mode
from .meta_arrays import MetaArray, as_meta, check_devices, meta_array
from .graph import next_creation_order, node_class
from .rule_nodes import KINDS, ArgEdgesNode, CompositeNode, NoDerivativeNode, ZeroGradNode, keeps_result, kind_of, saved_inputs
from .operand_checks import _raise_broadcast_error, check_broadcast, refuse_bool_subtraction  # noqa: F401 (ops.*)
from .saved_hooks import HOOKS, pack_saved, stand_in_for
from .saving import reads_ans_of
from .tangents import DUAL_NODES, TANGENTS, any_dual, push_zero, pushed, refused, set_tangent, tangent_of
from .versions import saved_version, saved_versions
from .views import VIEW_NODES, may_share_memory, note_view, shares_elements

Tensor = None  # bound by srcgrad.tensor.tensor

NO_EDGE = (None, 0)

# Primitives whose result PyTorch allocates contiguous whatever the input's strides
# (reductions, scans, softmax): NumPy keeps the input's order, so that `.view` of the sum
# of a permuted tensor would be refused. Names of the node, as `name` reaches apply.
CONTIGUOUS_RESULTS = frozenset({
    "SumBackward1", "MeanBackward1", "AmaxBackward0", "AminBackward0", "StdBackward0", "VarBackward0",
    "ProdBackward1", "CumsumBackward0", "CumprodBackward0", "LogsumexpBackward0", "SoftmaxBackward0",
    "LogSoftmaxBackward0", "LinalgVectorNormBackward0",
})
_ndarray = np.ndarray


def piecewise_constant(primitive, input, name, *consts, **kwargs):
    """`primitive(input's array, *consts, **kwargs)` for a function whose derivative is
    zero wherever it has one (the registry declares it nondifferentiable): tracked, the
    result requires grad through a ZeroGradNode called `name`."""
    if not is_nondifferentiable(primitive):
        raise TypeError(f"{primitive!r} has a derivative rule: record it with ops.apply")
    x = input._data
    ans = np.asanyarray(primitive(x, *consts, **kwargs))
    out = leaf(ans)
    if TANGENTS:
        push_zero(out, (input,))
    if not (input._requires_grad and _mode.enabled):
        return out
    edge = (input._grad_fn or input._accumulate_grad(), 0)
    out._grad_fn = node_class(name, ZeroGradNode)((edge,), x.shape, x.dtype)
    out._requires_grad = True
    return out


def without_derivative(ans, args, node, *extra):
    """A Tensor over the array `ans` computed from `args` (Tensors and numbers) by an op
    whose gradient is zero (`node` ConstantGradNode) or undefined (NoDerivativeNode,
    `extra` the op's name): tracked as that node when some Tensor argument requires grad
    with grad mode on."""
    out = leaf(np.asanyarray(ans))
    tensors = [a for a in args if isinstance(a, Tensor)]
    if TANGENTS and any_dual(tensors):
        if extra:  # PyTorch's NotImplemented formula (aten::op), or a derivative it leaves out
            raise refused(f"aten::{extra[0]}" if issubclass(node, NoDerivativeNode) else extra[0])
        push_zero(out, tensors)
    if not (_mode.enabled and any(t._requires_grad for t in tensors)):
        return out
    edges = tuple((_edge(t), 0) if t._requires_grad else NO_EDGE for t in tensors)
    if extra:
        out._grad_fn = node(edges, *extra)
    else:  # each of two operands saved for the other's gradient, as PyTorch's DivBackward2: other first
        kept = [t for t, other in zip(args[::-1], args) if isinstance(t, Tensor)
                and isinstance(other, Tensor) and other._requires_grad]
        out._grad_fn = node(edges, [t._data.shape for t in tensors], [t._data.dtype for t in tensors],
                            saved_versions(kept))
    out._requires_grad = True
    return out


def _edge(t):
    """Where gradient for tensor `t` goes: its grad_fn, or its leaf accumulator."""
    fn = t._grad_fn
    return fn if fn is not None else t._accumulate_grad()


def apply(primitive, *args, name=None, saves=True, dtype=None, out_dtype=None, edge_args=None, **kwargs):
    """Run `primitive` on the arrays of `args`, recording a node when tracked.

    `dtype` casts tensor arguments before the call (the compute dtype); `out_dtype`
    casts the result. The node is called `name`, by default `f"{rule.name}Backward0"`.
    Its next_functions have one edge per argument, or, given `edge_args`, one per
    argument at those positions (PyTorch gives an index or a condition no edge).
    """
    track = _mode.enabled
    needs = meta = False
    arrays = []
    for a in args:
        if isinstance(a, Tensor):
            data = a._data
            if type(data) is MetaArray:
                meta = True
            if dtype is not None and data.dtype != dtype:
                data = data.astype(dtype)
            arrays.append(data)
            if track and a._requires_grad:
                needs = True
        else:
            arrays.append(a)
    if dtype is not None and not dtypes.WEAK_NUMBERS:  # NumPy 1: numbers meet the compute dtype as in NEP 50
        arrays = _weak_numbers(args, arrays, dtype)
    token = quiet()
    try:
        ans = primitive(*arrays, **kwargs) if kwargs else primitive(*arrays)
    finally:
        loud(token)
    if type(ans) is not _ndarray:  # a number, or a meta array (meta_arrays.py) kept as it is
        ans = np.asanyarray(ans)
    if meta:  # no values, whatever the primitive gave (meta_arrays.py)
        check_devices([a for a in args if isinstance(a, Tensor)])
        ans = as_meta(ans)
    if out_dtype is None and not dtypes.WEAK_NUMBERS:
        out_dtype = dtypes.legacy_widened(ans, [a for a in arrays if type(a) is _ndarray])
    if out_dtype is not None and ans.dtype != out_dtype:
        ans = ans.astype(out_dtype)
    if name in CONTIGUOUS_RESULTS and type(ans) is MetaArray:
        ans = meta_array(ans.shape, ans.dtype)  # laid out contiguously (meta_layouts.py)
    elif name in CONTIGUOUS_RESULTS and not ans.flags.c_contiguous:
        ans = np.ascontiguousarray(ans)
    if needs:
        if ans.dtype.kind == "c":
            dtypes.refuse_complex_autograd(ans.dtype)
        out = _tracked(ans, primitive, name, saves, args, tuple(arrays), kwargs)
        if edge_args is not None:
            out._grad_fn = ArgEdgesNode.around(out._grad_fn, edge_args)
    else:
        out = leaf(ans)
        if ans.base is not None and not meta:  # a view: writing into either changes the other
            _share_counter(out, args, name)
    if TANGENTS:
        pushed(out, primitive, name, args, arrays, kwargs)
    return out


def _weak_numbers(args, arrays, dtype):
    """`arrays` (the operands of `args` computed in `dtype`) with each Python number as
    dtypes.as_weak_number makes it against the tensor operands (the one of most dimensions)."""
    tensors = [x for a, x in zip(args, arrays) if isinstance(a, Tensor)]
    if not tensors:
        return arrays
    like = max(tensors, key=np.ndim)
    return [x if isinstance(a, Tensor) else dtypes.as_weak_number(x, like, dtype) for a, x in zip(args, arrays)]


def unary(primitive, a, name=None, saves=True, consts=(), compute=None):
    """`primitive(x, *consts)` for the array `x` of the Tensor `a`: what `apply` does
    for one tensor operand computed in its own dtype, with less overhead.

    `compute`, when given, is a faster function with the same result as `primitive`
    (bit for bit); the node still runs `primitive`'s rule.
    """
    x = a._data
    token = quiet()
    try:
        ans = (compute or primitive)(x, *consts)
    finally:
        loud(token)
    if type(x) is MetaArray:  # no values, whatever the compute gave (meta_arrays.py)
        ans = meta_array(ans.shape, ans.dtype) if name in CONTIGUOUS_RESULTS else as_meta(ans)
    elif type(ans) is not _ndarray:
        ans = np.asanyarray(ans)
    elif name in CONTIGUOUS_RESULTS and not ans.flags.c_contiguous:
        ans = np.ascontiguousarray(ans)
    if not (a._requires_grad and _mode.enabled):
        if TANGENTS:
            return pushed(leaf(ans), primitive, name, (a, *consts), (x, *consts))
        return leaf(ans)
    # the node, with one edge as PyTorch's (the constants, a shape, axes, an index, are no inputs)
    fn = a._grad_fn or a._accumulator or a._accumulate_grad()  # nodes are always true
    kind = KINDS.get((primitive, name)) or kind_of(primitive, name)
    out = _new(Tensor)  # node_output(ans, kind, ((fn, 0),), (x, *consts), ...), inlined from here
    out._data = ans
    out._requires_grad = True
    out._retains_grad = False
    out._view = None
    out._grad = out._accumulator = None
    if not saves:
        out._counter = None
        out._grad_fn = kind[1](((fn, 0),), kind[0], (x, *consts), NO_KWARGS, ans, (x.dtype,), False, ())
        if TANGENTS:
            pushed(out, primitive, name, (a, *consts), (x, *consts))
        return out
    if kind[4] if len(consts) < kind[6] else True:  # versions.saved_version, inlined
        counter = a._counter
        if counter is None:
            counter = a._counter = [0]
        versions = (counter, counter[0], 0)
    else:
        versions = ()
    if kind[2] and kind[3]:  # the node keeps `ans`: its version too
        counter = out._counter = [0]
        versions += (counter, 0, -1)
    else:
        out._counter = None
    out._grad_fn = kind[1](((fn, 0),), kind[0], (x, *consts), NO_KWARGS, ans, (x.dtype,), True, versions)
    if HOOKS:
        pack_saved(out._grad_fn, (a, *consts), out)
    if TANGENTS:
        pushed(out, primitive, name, (a, *consts), (x, *consts))
    return out


def exact(primitive, a, name, consts=(), compute=None, view=False):
    """`unary` for an op that rounds nothing (it moves, selects or negates elements):
    no floating-point warning to silence, and its node saves nothing. `view` True: the
    result is a view of the input's array (NumPy's transpose and basic indexing always
    give one), recorded as a view without comparing their memory."""
    x = a._data
    ans = (compute or primitive)(x, *consts)
    if type(x) is MetaArray:
        ans = as_meta(ans)
    elif type(ans) is not _ndarray:
        ans = np.asanyarray(ans)
    # `unary`'s node or `leaf(ans)`, inlined (the view ops pass here): a node that saves
    # nothing records no versions
    out = _new(Tensor)
    out._data = ans
    out._retains_grad = False
    out._view = None
    out._grad = out._accumulator = out._counter = None
    if a._requires_grad and _mode.enabled:
        fn = a._grad_fn or a._accumulator or a._accumulate_grad()  # nodes are always true
        kind = KINDS.get((primitive, name)) or kind_of(primitive, name)
        out._grad_fn = kind[1](((fn, 0),), kind[0], (x, *consts), NO_KWARGS, ans, (x.dtype,), False, ())
        out._requires_grad = True
    else:
        out._grad_fn = None
        out._requires_grad = False
        if OPEN_INFERENCE_BLOCKS[0] and _mode.inference:
            out._inference = True
    # a view (writing into either changes the other): shares_elements, its common case first
    if view or ans.base is not None and (may_share_memory(ans, x) or shares_elements(ans, x)):
        note_view(out, a, name)
    if TANGENTS:
        pushed(out, primitive, name, (a, *consts), (x, *consts))
    return out


def view_op(primitive, a, name, consts, ans):
    """`exact(primitive, a, name, consts, view=True)` for a single-output view op whose
    result `ans`, an ndarray over elements of `a`'s array, the caller has computed: the
    Tensor, its node and its view record (views.note_view, its common case inlined: the
    base's family already has a record for views like this one). Every view op's fast
    path ends here; each node name comes with one primitive (`_VIEW_KINDS`)."""
    x = a._data
    out = _new(Tensor)
    out._data = ans
    out._retains_grad = False
    out._grad = out._accumulator = None
    enabled = _mode.enabled
    if a._requires_grad and enabled:
        fn = a._grad_fn or a._accumulator or a._accumulate_grad()  # nodes are always true
        kind = _VIEW_KINDS.get(name)
        if kind is None or kind[7] is not primitive:
            kind = _VIEW_KINDS[name] = (*kind_of(primitive, name), primitive)
        # kind[1](((fn, 0),), kind[0], (x, *consts), NO_KWARGS, ans, (x.dtype,), False, ()), without the
        # call of RuleNode.__init__ (a view op's class is a RuleNode's, _NODE_CLASSES names none)
        node = out._grad_fn = _new(kind[1])
        node.next_functions = ((fn, 0),)
        node._hooks = None
        node.creation_order = next_creation_order()
        node.rule = kind[0]
        node.args = (x, *consts)
        node.kwargs = NO_KWARGS
        node.ans = ans
        node.dtypes = (x.dtype,)
        node.saves = node.freed = False
        node.versions = ()
        out._requires_grad = True
    else:
        out._grad_fn = None
        out._requires_grad = False
        if OPEN_INFERENCE_BLOCKS[0] and _mode.inference:
            out._inference = True
    counter = a._counter
    if counter is not None and len(counter) > 1 and counter[1]:
        family = counter[1]
        record = family.last
        try:
            made = a._view
        except AttributeError:  # views.view_of(a): a tensor made without the slot set
            made = None
        if record is not None and record.base is (a if made is None else made.base) \
                and record.without_grad is not enabled:
            out._counter = counter
            out._view = record
            refs = family.views
            if len(refs) >= family.limit:
                family.prune()
                refs = family.views
            refs.append(_weakref(out))
            if TANGENTS:
                pushed(out, primitive, name, (a, *consts), (x, *consts))
            return out
    out._view = None
    out._counter = None
    note_view(out, a, name)
    if TANGENTS:
        pushed(out, primitive, name, (a, *consts), (x, *consts))
    return out


_VIEW_KINDS = {}  # node name -> (*kind_of(primitive, name), primitive), for view_op


def _share_counter(view, args, name):
    """Give the tensor `view`, the result of the op whose node is called `name`, the version
    counter of the tensor among `args` whose memory it may share (writing into either
    changes the other); a view op's result becomes its view (views.note_view). The result
    of an op PyTorch copies for (`flip`: NumPy's is a view) gets its own array instead."""
    data = view._data
    if name is not None and name not in VIEW_NODES:
        view._data = data.copy()
        return
    for a in args:
        if isinstance(a, Tensor) and shares_elements(data, a._data):
            note_view(view, a, name)
            return


NO_KWARGS = {}  # shared by nodes recorded without keyword arguments; never written
_new = object.__new__


def leaf(ans):
    """A new untracked Tensor over the array `ans` (`Tensor._make(ans)`, inlined)."""
    out = _new(Tensor)
    out._data = ans
    out._requires_grad = out._retains_grad = False
    out._view = None
    out._grad = out._grad_fn = out._accumulator = out._counter = None
    if OPEN_INFERENCE_BLOCKS[0] and _mode.inference:
        out._inference = True
    return out


# nodes whose saved operands PyTorch checks other first (mm's mat2 before self)
_SECOND_OPERAND_FIRST = frozenset(("BmmBackward0", "MmBackward0", "UnsafeViewBackward0"))


def _tracked(ans, primitive, name, saves, args, arrays, kwargs):
    """A new Tensor over `ans`, the result of a new node of `primitive` over `args`
    (computed as `arrays`)."""
    edges, in_dtypes, live = [], [], []
    for a in args:
        if isinstance(a, Tensor):
            in_dtypes.append(a._data.dtype)
            if a._requires_grad:
                fn = a._grad_fn
                edges.append((fn if fn is not None else a._accumulate_grad(), 0))
                live.append(True)
                continue
        else:
            in_dtypes.append(None)
        edges.append(NO_EDGE)
        live.append(False)
    versions = ()
    if saves:
        read = saved_inputs(primitive, name, tuple(live))
        for i, a in enumerate(args):
            if read[i] and isinstance(a, Tensor):
                versions += saved_version(a, i)
        if name in _SECOND_OPERAND_FIRST and len(versions) == 6:  # as in _tracked_pair
            versions = versions[3:] + versions[:3]
    out = node_output(ans, KINDS.get((primitive, name)) or kind_of(primitive, name), tuple(edges), arrays, kwargs,
                  in_dtypes, saves, versions)
    if HOOKS and saves:
        pack_saved(out._grad_fn, args, out)
    if ans.base is not None:  # a view: writing into either changes the other
        _share_counter(out, args, name)
    return out


def node_output(ans, kind, edges, arrays, kwargs, in_dtypes, saves, versions):
    """A new Tensor over `ans`, the output of a new node of the op `kind` (a _Kind; see
    RuleNode for the rest); when the node keeps `ans` too, its version as well."""
    out = _new(Tensor)
    out._data = ans
    if saves and kind[2] and (kind[3] if len(edges) == 1 else reads_ans_of(kind[0], tuple(f is not None for f, _ in edges))):
        counter = out._counter = [0]
        versions += (counter, 0, -1)
    else:
        out._counter = None
    out._grad_fn = kind[1](edges, kind[0], arrays, kwargs, ans, in_dtypes, saves, versions)
    out._requires_grad = True
    out._retains_grad = False
    out._view = None
    out._grad = out._accumulator = None
    return out


def composite(name, fn, *args, _saves=True, _edges=None, _saves_result=False, _compared=(), **kwargs):
    """Run Tensor code `fn(*args)`; when tracked, record it as one node called `name`
    (`_saves` False: `fn`'s graph keeps no tensor, so the node records no versions and
    can run backward again, as PyTorch's nodes that save nothing can; a tuple: the
    positions of the arguments whose values its backward reads, whose versions it
    records, the node freed after a backward like one that saves; True: every Tensor
    argument). The node has an edge per Tensor argument, or,
    given `_edges`, per argument at those positions (as PyTorch's node has for the op's
    differentiable inputs). The output has an array of its own where the inner graph
    reads its result back, so an in-place write into it changes no gradient; with
    `_saves_result` (PyTorch's node saves its result) such a write makes backward raise
    PyTorch's version error. `_compared`: the positions (among the edges) of the
    arguments the gradient reads through comparisons only (hardtanh's x against its
    bounds): PyTorch's node of such a gradient has an edge to them that carries zeros
    (graph_backward.py)."""
    if not _mode.enabled or not any(isinstance(a, Tensor) and a._requires_grad for a in args):
        return fn(*args, **kwargs)
    # the inner graph keeps their arrays
    kept = args if _saves is True else [args[i] for i in _saves] if _saves else ()
    versions = saved_versions([a for a in kept if isinstance(a, Tensor)])
    inner = []
    for a in args:
        if isinstance(a, Tensor):
            t = Tensor._make(a._data, a._requires_grad)
            t._counter = a._counter  # what the inner graph saves is counted there too
            if HOOKS:  # a pack hook is given the caller's tensor, not this copy
                stand_in_for(t, a)
            if TANGENTS:
                set_tangent(t, tangent_of(a))
            a = t
        inner.append(a)
    result = fn(*inner, **kwargs)
    if result._grad_fn is None:  # the output does not depend on any input needing grad
        plain = Tensor._make(result._data)
        if TANGENTS:
            set_tangent(plain, tangent_of(result))
        return plain
    at = tuple(i for i, a in enumerate(args) if isinstance(a, Tensor)) if _edges is None else tuple(_edges)
    edges = tuple((_edge(args[i]), 0) if isinstance(args[i], Tensor) and args[i]._requires_grad else NO_EDGE
                  for i in at)
    sinks = [_edge(inner[i]) if isinstance(inner[i], Tensor) and inner[i]._requires_grad else None for i in at]
    in_dtypes = [args[i]._data.dtype if isinstance(args[i], Tensor) else None for i in at]
    root = result._grad_fn
    out = Tensor._make(result._data.copy() if _saves is not False and keeps_result(root) else result._data)
    out._grad_fn = node = node_class(name, CompositeNode)(edges, root, sinks, in_dtypes, versions, _saves is not False,
                                                           _compared)
    out._requires_grad = True
    if _saves_result:
        node.result = out._data
        node.versions += saved_version(out, -1)
    if TANGENTS and tangent_of(result) is not None:
        set_tangent(out, tangent_of(result))
        DUAL_NODES.add(node)
    return out
