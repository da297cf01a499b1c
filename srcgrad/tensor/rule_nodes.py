"""The graph nodes the doorway (ops.py) records, and what it resolves once per op kind.

`RuleNode` is the node of one registry rule: it keeps the primitive's arguments and
result, and its backward calls the rule's vjps, returning gradients in each input's
dtype. `ZeroGradNode` and `ConstantGradNode` are the nodes of ops the registry
declares nondifferentiable (zero gradients); `NoDerivativeNode` is PyTorch's
`NotImplemented`, `UndifferentiatedNode` PyTorch's nodes whose backward raises
NotImplementedError; `CompositeNode` is one node for a piece of Tensor code (its
backward runs the inner graph). Invariants: a node that saves (`saves` True) drops
what it keeps on `release` and is then `freed`; one that does not can run again.
`kind_of(primitive, name)` resolves the rule, the node class and which inputs the
rule reads, once per (primitive, name) (`KINDS`).
"""

import numpy as np

from ..rules import lookup
from ..runtime import unbroadcast
from .engine import run_backward
from .errstate import loud, quiet
from .graph import Node, describe, next_creation_order, node_class
from .saved_attributes import KEEPS_NUMBERS, released
from .saved_hooks import PACKED, drop_packed
from .saving import reads_ans_of, rule_reads_ans, saved_by

__all__ = [
    "rule_of", "kind_of", "KINDS", "RuleNode", "DivisionNode", "ArgEdgesNode", "NumberOperandNode", "ZeroGradNode", "ConstantGradNode", "NoDerivativeNode", "RefusedNode", "UndifferentiatedNode",
    "CompositeNode", "ComparedGradNode",
    "keeps_result", "saved_inputs",
]

_RULES = {}
KINDS = {}  # (primitive, name) -> _Kind: resolved once per op kind
_PARAMS = {}  # id(rule) -> (rule, its parameter names); a Rule's signature never changes
_ndarray = np.ndarray


def rule_of(primitive):
    """The registered rule of `primitive` (cached); a clear error when there is none."""
    try:
        return _RULES[primitive]
    except KeyError:
        rule = lookup(primitive)
        if rule is None:
            name = getattr(primitive, "__name__", repr(primitive))
            raise NotImplementedError(f"no derivative rule is registered for {name}") from None
        _RULES[primitive] = rule
        return rule


class _Kind(tuple):
    """What recording an op needs, resolved once per (primitive, name): `[0]` the rule,
    `[1]` the node class, `[2]` whether a vjp of the rule reads its result, `[3]` whether
    the first input's vjp does, `[4]` whether the first input's vjp reads that input (for
    an op on one tensor and constants), `[5]` the inputs a two-input op saves, indexed by
    `2 * (first needs grad) + (second needs grad)`, `[6]` the rule's parameter count."""

    __slots__ = ()


def kind_of(primitive, name):
    """The _Kind of the op `primitive` recorded under `name` (cached)."""
    key = (primitive, name)
    found = KINDS.get(key)
    if found is None:
        rule = rule_of(primitive)
        n = len(_params(rule))
        pairs = tuple(saved_by(rule, (a, b)) for a in (False, True) for b in (False, True)) if n >= 2 else None
        cls = _NODE_CLASSES.get(name, RuleNode)
        reads_ans = rule_reads_ans(rule)
        keeps_ans = reads_ans and (reads_ans_of(rule, (True,)) if n else True)
        if cls is DivisionNode:  # no result kept; the dividend is, for the divisor's gradient
            reads_ans = keeps_ans = False
            pairs = tuple((p[0] or bool(i & 1), p[1]) for i, p in enumerate(pairs))
        if name in _KEEPS_RESULT:
            reads_ans = keeps_ans = True
        reads_first = (saved_by(rule, (True,))[0] or _KEEPS_INPUT.get(name) == 0) if n else True
        found = KINDS[key] = _Kind((
            rule, node_class(name or rule.name + "Backward0", cls), reads_ans, keeps_ans, reads_first, pairs, n,
        ))
    return found


def _params(rule):
    found = _PARAMS.get(id(rule))
    if found is None or found[0] is not rule:
        found = _PARAMS[id(rule)] = (rule, rule.params)
    return found[1]


class RuleNode(Node):
    """A node backed by a registry rule: keeps the primitive's arguments and result.

    With `saves` False (nodes PyTorch keeps only shapes for: Add, Sub, Neg, Sum,
    Mean, ...) the node keeps what it has and can run again; otherwise `release`
    drops it and the node is `freed`. `versions` records the tensors it saved (which:
    an index into `args`, or -1 for its own output).
    """

    __slots__ = ("rule", "args", "kwargs", "ans", "dtypes", "saves", "freed", "versions")

    def __init__(self, next_functions, rule, args, kwargs, ans, in_dtypes, saves, versions):
        self.next_functions = next_functions  # Node.__init__, inlined: one node per op
        self._hooks = None
        self.creation_order = next_creation_order()
        self.rule = rule
        self.args = args
        self.kwargs = kwargs
        self.ans = ans
        self.dtypes = in_dtypes
        self.saves = saves
        self.freed = False
        self.versions = versions

    def describe_saved(self, which):
        if which == -1:
            return describe(self.ans, self, saved_output=True)
        return describe(self.args[which], self.next_functions[which][0], dtype=self.dtypes[which])

    def apply(self, g):
        rule, args, kwargs, ans = self.rule, self.args, self.kwargs, self.ans
        vjps, params, in_dtypes = rule.vjps, _params(rule), self.dtypes
        out = []
        for i, (nxt, _) in enumerate(self.next_functions):
            if nxt is None:
                out.append(None)
                continue
            d = vjps[params[i]]
            if d.kind == "scale":  # what Rule.vjp does, without binding arguments by name
                local = d.fn(ans, *args, **kwargs) if kwargs else d.fn(ans, *args)
                gi = unbroadcast(g * local, args[i])
            elif d.kind == "vjp":
                gi = d.fn(g, ans, *args, **kwargs) if kwargs else d.fn(g, ans, *args)
            else:
                gi = rule.vjp(i, g, ans, *args, **kwargs)
            if type(gi) is not _ndarray:
                gi = np.asarray(gi)
            if gi.dtype != in_dtypes[i]:
                gi = gi.astype(in_dtypes[i])
            out.append(gi)
        return out

    def release(self):
        if self.saves:
            if type(self).__name__ in KEEPS_NUMBERS:  # the numbers and shapes PyTorch's node keeps
                self.args, self.kwargs = released(self.args, self.kwargs)
            else:
                self.args = self.kwargs = None
            self.ans = None
            self.freed = True
            if PACKED:
                drop_packed(self)


class NumberOperandNode(RuleNode):
    """The RuleNode of an op on a tensor and a Python number that PyTorch records with
    the number as no input (its Scalar overloads: `x ** 2`, `2 - x`, `2 ** x`): one edge,
    the tensor's, where `which` is its argument. With two tensors (`which` None) it is a
    RuleNode."""

    __slots__ = ("which",)

    def __init__(self, next_functions, rule, args, kwargs, ans, in_dtypes, saves, versions):
        which = None
        if in_dtypes[0] is None or in_dtypes[1] is None:
            which = 0 if in_dtypes[1] is None else 1
            next_functions = (next_functions[which],)
        RuleNode.__init__(self, next_functions, rule, args, kwargs, ans, in_dtypes, saves, versions)
        self.which = which

    def apply(self, g):
        i = self.which
        if i is None:
            return RuleNode.apply(self, g)
        if self.next_functions[0][0] is None:
            return [None]
        gi = np.asarray(self.rule.vjp(i, g, self.ans, *self.args, **self.kwargs))
        return [gi if gi.dtype == self.dtypes[i] else gi.astype(self.dtypes[i])]

    def describe_saved(self, which):
        if which == -1 or self.which is None:
            return RuleNode.describe_saved(self, which)
        return describe(self.args[which], self.next_functions[0][0])


class DivisionNode(RuleNode):
    """The RuleNode of `x / y` (DivBackward0, DivBackward2). PyTorch's node saves the
    operands, not the result, so this one does not keep the output's array (a write into
    the output, recorded or not, changes no gradient and is no version error): backward
    divides again the operands it keeps (the rule reads `ans`)."""

    __slots__ = ()

    def __init__(self, next_functions, rule, args, kwargs, ans, in_dtypes, saves, versions):
        RuleNode.__init__(self, next_functions, rule, args, kwargs, None, in_dtypes, saves, versions)

    def apply(self, g):
        if self.ans is None:
            token = quiet()
            try:
                self.ans = np.asarray(self.args[0] / self.args[1])
            finally:
                loud(token)
        return RuleNode.apply(self, g)


class PowerNode(NumberOperandNode):
    """The node of `x ** y` (PowBackward0, PowBackward1). As PyTorch's, it gives x a zero
    gradient where y is 0 whatever the incoming gradient: the rule's g * 0 is nan where
    g is nan or infinite."""

    __slots__ = ()

    def apply(self, g):
        grads = NumberOperandNode.apply(self, g)
        y = self.args[1]
        if grads[0] is not None and not np.isfinite(g).all() and np.any(y == 0):
            grads[0] = NumberOperandNode.apply(self, np.where(y == 0, 0, g).astype(g.dtype, copy=False))[0]
        return grads


_NUMBER_OPERAND = dict.fromkeys(
    ("RsubBackward1", "PowBackward2", "XlogyBackward1", "XlogyBackward2", "FmodBackward0", "CopysignBackward1"),
    NumberOperandNode,
)
_NODE_CLASSES = {
    **_NUMBER_OPERAND, "PowBackward0": PowerNode, "PowBackward1": PowerNode, "DivBackward0": DivisionNode,
    "DivBackward2": DivisionNode,
}


class ArgEdgesNode(Node):
    """A RuleNode `inner` shown with edges for some of its arguments only (`at`, their
    positions): PyTorch gives an index or a condition argument no edge. Its backward
    and saved values are `inner`'s; it has `inner`'s class name."""

    __slots__ = ("inner", "at")

    @classmethod
    def around(cls, inner, at):
        node = node_class(type(inner).__name__, cls)(tuple(inner.next_functions[i] for i in at))
        node.inner, node.at = inner, at
        return node

    @property
    def versions(self):
        return self.inner.versions

    @versions.setter
    def versions(self, value):
        self.inner.versions = value

    @property
    def freed(self):
        return self.inner.freed

    def describe_saved(self, which):
        return self.inner.describe_saved(which)

    def release(self):
        self.inner.release()

    def apply(self, g):
        grads = self.inner.apply(g)
        return [grads[i] for i in self.at]


class ZeroGradNode(Node):
    """The node of an op the registry declares to have no derivative (`np.sign`,
    `np.floor`, ...): its input gets a zero gradient of its shape and dtype, as PyTorch's
    SignBackward0 or FloorBackward0 give it. It saves nothing."""

    __slots__ = ("shape", "dtype")

    def __init__(self, next_functions, shape, dtype):
        super().__init__(next_functions)
        self.shape, self.dtype = shape, dtype

    def apply(self, g):
        return [np.zeros(self.shape, self.dtype)]


class ConstantGradNode(Node):
    """The node of an op of several inputs whose derivative is zero wherever it has one
    (`div(rounding_mode='floor')`: DivBackward2): each input with an edge gets a zero
    gradient of its shape and dtype. It reads nothing, but keeps what PyTorch's node
    saves (`versions`, versions.saved_versions): a backward checks them, and a second
    one without retain_graph raises E7."""

    __slots__ = ("shapes", "dtypes", "versions", "freed")

    def __init__(self, next_functions, shapes, in_dtypes, versions=()):
        super().__init__(next_functions)
        self.shapes, self.dtypes, self.versions, self.freed = shapes, in_dtypes, versions, False

    def release(self):
        self.freed = True

    def apply(self, g):
        return [None if f is None else np.zeros(s, d) for (f, _), s, d in zip(self.next_functions, self.shapes, self.dtypes)]


class ComparedGradNode(Node):
    """The node of a gradient made by a composite op whose gradient reads some inputs
    through comparisons only (`ops.composite`'s `_compared`: hardtanh's mask), as
    PyTorch's HardtanhBackwardBackward0: the incoming gradient goes on to the first edge
    (the gradient's own graph), and each other edge (a compared input) gets a zero
    gradient of its shape and dtype, with no graph. It saves nothing."""

    __slots__ = ("shapes", "dtypes")

    def __init__(self, next_functions, shapes, in_dtypes):
        super().__init__(next_functions)
        self.shapes, self.dtypes = shapes, in_dtypes

    def apply(self, g):
        return [g] + [np.zeros(s, d) for s, d in zip(self.shapes, self.dtypes)]

    def graph_apply(self, g):
        return [g] + [g._make(np.zeros(s, d)) for s, d in zip(self.shapes, self.dtypes)]


class NoDerivativeNode(Node):
    """PyTorch's `NotImplemented` node: the result of an op without a derivative formula
    (`x // y`, `2 % x`) requires grad, and backward through it raises."""

    raises = True
    __slots__ = ("op",)

    def __init__(self, next_functions, op):
        super().__init__(next_functions)
        self.op = op

    def apply(self, g):
        raise RuntimeError(f"derivative for aten::{self.op} is not implemented")


class RefusedNode(Node):
    """The node of an op whose backward kernel PyTorch refuses for these inputs
    (huber_loss of two float dtypes): backward through it raises RuntimeError(message)."""

    raises = True
    __slots__ = ("message",)

    def __init__(self, next_functions, message):
        super().__init__(next_functions)
        self.message = message

    def apply(self, g):
        raise RuntimeError(self.message)


class UndifferentiatedNode(Node):
    """The node of an op whose derivative PyTorch leaves out (`unique`: Unique2Backward0):
    the result requires grad, and backward through it raises PyTorch's
    NotImplementedError, naming the op `op`."""

    raises = True
    __slots__ = ("op",)

    def __init__(self, next_functions, op):
        super().__init__(next_functions)
        self.op = op

    def apply(self, g):
        raise NotImplementedError(f"the derivative for '{self.op}' is not implemented.")


class CompositeNode(Node):
    """One node for a piece of Tensor code: backward runs the recorded inner graph.
    `versions` records its tensor arguments (which: the array and its producer), and
    its output (which: -1; `result`, its array) where PyTorch's node saves that."""

    __slots__ = ("root", "sinks", "dtypes", "freed", "versions", "saves", "result", "compared")

    def __init__(self, next_functions, root, sinks, in_dtypes, versions, saves=True, compared=()):
        super().__init__(next_functions)
        self.compared = compared  # the edges its gradient reads through comparisons only (ops.composite)
        self.root = root
        self.sinks = sinks
        self.dtypes = in_dtypes
        self.freed = False
        self.versions = versions
        self.saves = saves  # False: the inner graph keeps no tensor, so it can run again
        self.result = None

    def describe_saved(self, which):
        if type(which) is int and which == -1:
            return describe(self.result, self, saved_output=True)
        return describe(*which)

    def apply(self, g):
        wanted = [s for s in self.sinks if s is not None]
        got = iter(run_backward([self.root], [g], retain_graph=True, capture=wanted))
        out = []
        for sink, dt in zip(self.sinks, self.dtypes):
            gi = next(got) if sink is not None else None
            out.append(None if gi is None else np.asarray(gi, dtype=dt))
        return out

    def release(self):
        if self.saves:
            self.root = None
            self.freed = True


def keeps_result(node):
    """Whether `node`'s backward reads its own output array (so an in-place write into
    that output would change its gradient): a RuleNode that saves, with a rule reading
    `ans`; a node class marked `keeps_output` (compiled nodes, conservatively). Other
    nodes read no output, or keep a version record of what they read (CopySlices,
    ArgEdgesNode), or, a composite node, give its output an array of its own (ops.composite)."""
    if node is None:
        return False
    if isinstance(node, RuleNode):
        return node.saves and rule_reads_ans(node.rule) and not isinstance(node, DivisionNode)
    return getattr(node, "keeps_output", False)


def saved_inputs(primitive, name, live):
    """Which arguments of an op the vjps of its inputs with an edge (`live`, a tuple of
    bools) read: the tensors the node saves, whose versions it records. `x * w` with only
    `w` requiring grad saves `x` alone, as PyTorch's MulBackward0 does (cached)."""
    key = (primitive, name, live)
    found = _SAVED_INPUTS.get(key)
    if found is None:
        found = saved_by(kind_of(primitive, name)[0], live)
        if _NODE_CLASSES.get(name) is DivisionNode and live[1]:
            found = (True,) + found[1:]
        if name in _KEEPS_INPUT:
            at = _KEEPS_INPUT[name]
            found = found[:at] + (True,) + found[at + 1:]
        _SAVED_INPUTS[key] = found
    return found


_SAVED_INPUTS = {}  # (primitive, name, live) -> which arguments are read
# nodes that PyTorch makes keep an input whose values their rule does not read
_KEEPS_INPUT = {"GatherBackward0": 0, "CumprodBackward0": 0}
# nodes that PyTorch makes keep their result, which their rule does not read (a write into it
# makes backward raise the version error)
_KEEPS_RESULT = frozenset(("ProdBackward0", "ProdBackward1", "CumprodBackward0"))
