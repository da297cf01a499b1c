"""create_graph through the node of a `@srcgrad.compile` call (compiled.py).

The node's backward is the generated adjoint of plain NumPy code, which srcgrad's
compiler can differentiate again. In a pass with create_graph, the gradient of each
argument that requires grad gets a `SourceNode` whose function is the compiled
function's vector-Jacobian product for that argument, written by the compiler from
the function's call (graph_backward's `op_function` and `adjoint`, as for a rule op);
the next order differentiates that generated code in turn. Its values are the node's
own `apply`'s, so a gradient is the same with and without create_graph.

The node keeps its arguments' arrays (`arrays`, constants spelled into the call where
they can be) and the version counts of its Tensor arguments at the call
(`arg_versions`; its first-order backward reads saved gradients and needs neither): a
pass with create_graph refuses, with PyTorch's error, a node whose arguments were
written in place since. A call returning a tuple (a node of several outputs) is
refused with a NotImplementedError naming it, before the pass changes anything.
"""

from .gradient_names import gradient_node_name
from .graph import describe
from .generated_functions import _literal, op_function
from .graph_backward import _adjoint_for, _tracked
from .versions import check_versions

__all__ = ["prepare", "graph_gradients"]


class _Arguments:
    """The version records of a compiled node's arguments, as `check_versions` reads a
    node's (`which`: the argument's position)."""

    __slots__ = ("versions", "arrays")

    def __init__(self, node):
        self.versions, self.arrays = node.arg_versions, node.arrays

    def describe_saved(self, which):
        return describe(self.arrays[which], None)


def _call(node):
    """(function, inputs, edges, at) of the compiled node: the function of its inputs
    calling the compiled function (`op_function`), the inputs' values (every Tensor
    argument, and each constant no literal spells), each input's edge, and the input each
    argument is (None for a constant spelled in the call)."""
    kind, arrays = node.kind, node.arrays
    spelled = tuple(None if dt is not None else _literal(a) for a, dt in zip(arrays, kind.dtypes))
    function = op_function(kind.fn, spelled, (), False)
    inputs, edges, at = [], [], []
    for a, text, (nxt, _) in zip(arrays, spelled, node.next_functions):
        at.append(None if text is not None else len(inputs))
        if text is None:
            inputs.append(a)
            edges.append(nxt)
    return function, tuple(inputs), edges, at


def prepare(node):
    """Refuse, before a pass with create_graph changes anything, what it cannot do at
    `node`: several outputs, arguments written in place since the call, a vector-Jacobian
    product the compiler cannot differentiate (its derivation is kept for the pass)."""
    if node.kind.outputs is not None:
        raise NotImplementedError(
            f"create_graph=True: the Tensor shim cannot record a graph through the backward of {node.name()}, "
            "a compiled function returning a tuple: return one array, or compile each output's function"
        )
    if node.freed or node.arrays is None:
        return  # the engine raises its error for a freed node
    check_versions(_Arguments(node))
    function, inputs, edges, _ = _call(node)
    for k, e in enumerate(edges):
        if e is not None:
            _adjoint_for(node, function, len(inputs), k)


def graph_gradients(node, g, lift):
    """`node.apply` for the Tensor `g`: one Tensor (or None) per argument, each with a
    SourceNode over (g, *inputs) leading back to every input that requires grad."""
    values = node.apply(g._data)
    function, inputs, edges, at = _call(node)
    name, arguments = type(node).__name__, _Arguments(node)
    return [None if v is None else
            _tracked(v, g, function, inputs, edges, at[i], gradient_node_name(name, i), lift, node, arguments)
            for i, v in enumerate(values)]
