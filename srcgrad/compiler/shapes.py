"""Shapes known for one call signature: what unbroadcasts.py drops calls by.

Given the shape of each parameter for one kind of call (`()` for Python and NumPy
scalars, `x.shape` for arrays), infer the shape of every local that a known operation
produces (arithmetic, ufuncs, 2-D matmul, full reductions, `x[t]` with an integer `t`,
`np.zeros((8, 32))`, `math.*`), in the forward and the backward pass. An adjoint has
its primal's shape.

The analysis is flow-insensitive: a name's shape is the join of the shapes of all its
assignments (unknown where they differ), computed optimistically to a fixed point, so
loop-carried values are covered. Anything not recognized has an unknown shape.
"""

import dataclasses
import math

import gast
import numpy as np

from .. import runtime
from ..rules import operators
from ..rules import shapes as rules_shapes
from . import scope, traversal
from .entries import entry_read
from .kinds import AXIS_REDUCTIONS, BOTTOM, TOP, join, least_fixed_point, strict  # the same lattice, over shapes


_MATMUL_ADJOINTS = (operators._matmul_vjp_x, operators._matmul_vjp_y)
_FULL_REDUCTIONS = {
    np.sum, np.mean, np.prod, np.max, np.min, np.amax, np.amin, np.linalg.norm, np.vdot, np.average, runtime.mean_of,
}
_CREATORS = {np.zeros, np.ones, np.empty, np.full}
_LIKE = {np.zeros_like, np.ones_like, np.empty_like, np.copy, np.array, np.asarray, np.conj, abs}
_SCALARS = {np.size, np.ndim, len, float, int, runtime.grad_seed}
# helper(args) -> the shape of which argument it returns
_SHAPE_OF_ARG = {
    runtime.unbroadcast: 1,
    runtime.unreduce: 1,
    runtime.zeros_like_grad: 0,
    runtime.in_place: 0,  # an array changed in place keeps its shape: the value's (else NumPy raises)
    rules_shapes._getitem_vjp: 1,  # zeros shaped like the array indexed, `g` added in
    operators._matmul_vjp_x: -2,
    operators._matmul_vjp_y: -1,
}


@dataclasses.dataclass(frozen=True)
class Signature:
    """One kind of call: every parameter, and what is known of each.

    `shapes`: name -> shape (parameters and a vjp's seed), where known; `types`:
    parameter name -> dtype for an array, type otherwise, where known (None: of any
    kind, as a split pullback's seed). `trees`: parameter name -> the TreeKind of a
    container argument; `entries`: the name of a container that the code only reads
    entries of -> its entries' key -> (shape or None, type) (entries.py).
    """

    params: tuple
    shapes: dict
    types: dict
    trees: dict = dataclasses.field(default_factory=dict)
    entries: dict = dataclasses.field(default_factory=dict)


def _statements(stmts):
    """The simple statements of `stmts`, nested blocks included, and the `for` headers,
    in order.

    Pseudo statements (tape markers) are skipped: a restore brings back a value the
    name already had.
    """
    simple = []
    _sort(stmts, simple, [], [])
    return simple


def _sort(stmts, simple, headers, markers):
    """Sort what `stmts` holds, nested blocks included, in order, into `simple` (what
    `_statements` gives), `headers` ((block statement, field) for `if` and `while` tests,
    `for` targets and iterables) and `markers` (the pseudo statements)."""
    for s in stmts:
        kind = _KINDS.get(type(s))
        if kind is None:
            kind = _KINDS[type(s)] = (
                _MARKER if dataclasses.is_dataclass(s) else _OTHER if not isinstance(s, gast.AST)
                else _FOR if isinstance(s, gast.For) else _BLOCK if isinstance(s, (gast.If, gast.While)) else _SIMPLE
            )
        if kind is _SIMPLE:
            simple.append(s)
        elif kind is _MARKER:
            markers.append(s)
        elif kind is not _OTHER:
            if kind is _FOR:
                simple.append(s)
                headers += [(s, "target"), (s, "iter")]
            else:
                headers.append((s, "test"))
            _sort(s.body, simple, headers, markers)
            _sort(s.orelse, simple, headers, markers)


_SIMPLE, _FOR, _BLOCK, _MARKER, _OTHER = "simple", "for", "block", "marker", "other"
_KINDS = {}  # statement class -> which of these its instances are


def _add_stores(node, names):
    """Add to the set `names` the names stored anywhere under `node`."""
    _scan([node], names)
    return names


def _scan(nodes, names):
    """Add to the set `names` the names stored anywhere under each of `nodes` (the
    non-Load names of `traversal.walk`); returns the list of the calls under each."""
    found, ast_node, name_node, constant, call_node, load = [], gast.AST, gast.Name, gast.Constant, gast.Call, gast.Load
    add, fields_of = names.add, traversal.child_fields
    for node in nodes:
        calls, stack = [], [node]
        pop, push = stack.pop, stack.append
        while stack:
            n = pop()
            cls = type(n)
            values = n.__dict__
            if cls is name_node:  # `node` itself, or a name with an annotation
                if not isinstance(values.get("ctx"), load):
                    add(values["id"])
                if values.get("annotation") is None:
                    continue
            elif cls is call_node:
                calls.append(n)
            for field in fields_of(cls):
                value = values.get(field)
                for child in value if type(value) is list else (value,):
                    kind = type(child)
                    if kind is name_node:  # the leaves, most nodes: without the stack
                        leaf = child.__dict__
                        if not isinstance(leaf.get("ctx"), load):
                            add(leaf["id"])
                        if leaf.get("annotation") is not None:
                            push(leaf["annotation"])
                    elif kind is not constant and isinstance(child, ast_node):
                        push(child)
        found.append(calls)
    return found


def _pseudo_stores(stmts):
    """Names assigned inside pseudo statements that hold statements (undo blocks, say)."""
    names = set()
    for s in stmts:
        if dataclasses.is_dataclass(s):
            for field in _marker_fields(s):
                v = getattr(s, field)
                for node in v if isinstance(v, list) else [v]:
                    if isinstance(node, gast.AST):
                        _add_stores(node, names)
                if isinstance(v, list):
                    names |= _pseudo_stores(v)
        elif isinstance(s, (gast.If, gast.For, gast.While)):
            names |= _pseudo_stores(s.body) | _pseudo_stores(s.orelse)
    return names


def _marker_fields(marker):
    """The names of the fields of the pseudo statement `marker` (a dataclass)."""
    found = _MARKER_FIELDS.get(type(marker))
    if found is None:
        found = _MARKER_FIELDS[type(marker)] = tuple(f.name for f in dataclasses.fields(marker))
    return found


_MARKER_FIELDS = {}


class _Resolver:
    """What the callee of a generated call is: a helper, or what the user's name means."""

    def __init__(self, namer):
        self.namer = namer

    def __call__(self, func):
        parts = []
        while isinstance(func, gast.Attribute):
            parts.append(func.attr)
            func = func.value
        if not isinstance(func, gast.Name):
            return None
        root = func.id
        if root in self.namer.helpers:
            obj = self.namer.helpers[root]
        elif root in self.namer.locals:
            return None
        else:
            obj = self.namer.scope(root)
            if obj is scope.MISSING:
                return None
        for part in reversed(parts):
            obj = getattr(obj, part, None)
        return obj


class _Shapes:
    def __init__(self, shapes, none_init, namer, entries=None):
        self.namer = namer
        self.entries = entries or {}
        self.given = dict(shapes)
        self.none_init = set(none_init)
        self.resolve = _Resolver(namer)
        self.callees = {}  # name -> what a call of it calls (`_Call`)
        self.reads = None  # a list while `_fixed_point` evaluates a definition

    def solve(self, forward, backward):
        env = self._collect(forward, backward)
        self.env = env
        self._fixed_point()
        return self

    def refresh(self):
        """Read the definitions again from their statements, keeping the shapes found:
        the rewrites since `solve` (unbroadcasts.py, kinds.py) replace assigned values
        only, keeping every name's shape, and add or remove no assignment. (What the
        tape lowers later, `h = tape.pop()`, brings back a value that `h` had: the
        analysis of the code with its markers holds for the lowered code too.)"""
        self.defs = [(name, stmt.value) for (name, _), stmt in zip(self.defs, self.assignments)]
        return self

    def _collect(self, forward, backward):
        """The starting environment; sets the definitions (`defs`, each `(name, value)`,
        and `assignments`, the statement of each), the `opaque` names (stored otherwise:
        unknown), the loop counters `ints`, and `calls`: (statement, None) or (block
        statement, header field) -> the calls in its code, where it has any."""
        self._definitions(forward, backward)
        defs, opaque = self.defs, self.opaque
        env = {name: BOTTOM for name, _ in defs}
        env.update(self.given)
        for name in self.ints:
            env[name] = ()
        for name in opaque | self.none_init:
            env[name] = TOP
        is_adjoint = self.namer.is_adjoint
        adjoint_names = {name for name, _ in defs if is_adjoint(name)} | {n for n in self.given if is_adjoint(n)}
        for adj in adjoint_names:
            primal = self.namer.primal_of(adj)
            env[adj] = join(env.get(adj, BOTTOM), env.get(primal, TOP) if primal else TOP)
        self.adjoint_names = adjoint_names
        return env

    def _definitions(self, forward, backward):
        """Set `defs`, `assignments`, `opaque`, `ints` and `calls` as `_collect` says."""
        defs, assignments, opaque, ints, calls = [], [], set(), set(), {}
        simple, headers, markers = [], [], []
        for block in (forward, backward):
            _sort(block, simple, headers, markers)
        places, roots = [], []  # what to scan for stores and calls
        assign, name_node, for_node = gast.Assign, gast.Name, gast.For
        for stmt in simple:
            if isinstance(stmt, assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], name_node):
                target = stmt.targets[0]
                defs.append((target.id, stmt.value))
                assignments.append(stmt)
                places.append((stmt, None))
                roots.append(stmt.value)  # walrus and the like
                if target.annotation is not None:
                    calls[stmt, None] = _scan([target], set())[0]
            elif isinstance(stmt, for_node):
                target = stmt.target
                if isinstance(target, name_node) and self._is_range(stmt.iter):
                    ints.add(target.id)
                else:
                    opaque.update(n.id for n in traversal.walk(target) if isinstance(n, name_node))
            else:
                places.append((stmt, None))
                roots.append(stmt)
        found = _scan(roots, opaque)
        for place, under in zip(places, found):
            if under:
                calls[place] = calls.get(place, []) + under
        for place, under in zip(headers, _scan([getattr(stmt, field) for stmt, field in headers], set())):
            if under:
                calls[place] = under
        opaque |= _pseudo_stores(markers)
        defined = {d for d, _ in defs}
        self.ints = {n for n in ints if n not in defined}
        # a range target also assigned elsewhere holds an integer there as well as those
        # values, which no definition here says: unknown (`r = x * a`, `for r in range(2)`)
        opaque |= ints & defined
        self.defs, self.assignments, self.opaque, self.calls = defs, assignments, opaque, calls

    def _fixed_point(self):
        adjoints = {}  # primal -> its adjoints, which have its shape
        for adj in self.adjoint_names:
            adjoints.setdefault(self.namer.primal_of(adj), []).append(adj)
        least_fixed_point(self, self.env, self.defs, self.shape, adjoints)

    def _is_range(self, node):
        return isinstance(node, gast.Call) and self.resolve(node.func) is range

    # -- the shape of an expression ------------------------------------------------

    def shape(self, node):
        cls = type(node)
        if cls is gast.Name:  # most nodes: here, without a method call
            name, reads = node.id, self.reads
            if reads is not None:
                reads.append(name)  # by `_fixed_point`: what the definition depends on
            found = self.env.get(name, _ABSENT)
            if found is _ABSENT:  # a bound constant (the seed) is a scalar
                return () if type(self.namer.helpers.get(name)) is np.float64 else TOP
            return found
        try:
            method = _RULES[cls]
        except KeyError:
            method = _RULES[cls] = getattr(_Shapes, "_" + cls.__name__, None)
        return TOP if method is None else method(self, node)

    def _Constant(self, node):
        v = node.value
        return () if isinstance(v, (int, float, complex)) else TOP

    def _BinOp(self, node):
        left, right = self.shape(node.left), self.shape(node.right)
        if isinstance(node.op, gast.MatMult):
            return strict(_matmul, left, right)
        return strict(_broadcast, left, right)

    def _UnaryOp(self, node):
        return TOP if isinstance(node.op, gast.Not) else self.shape(node.operand)

    def _Compare(self, node):
        if len(node.ops) != 1 or isinstance(node.ops[0], (gast.Is, gast.IsNot, gast.In, gast.NotIn)):
            return TOP
        return strict(_broadcast, self.shape(node.left), self.shape(node.comparators[0]))

    def _Subscript(self, node):
        if self.entries:
            entry = entry_read(node, self.entries)
            if entry is not None:
                return TOP if entry[0] is None else entry[0]
        value, index = self.shape(node.value), node.slice
        integral = (isinstance(index, gast.Constant) and type(index.value) is int) or (
            isinstance(index, gast.Name) and index.id in self.ints
        )
        if integral:
            return strict(lambda v: v[1:] if v else TOP, value)
        items = index.elts if isinstance(index, gast.Tuple) else [index]
        if not all(self._basic_index(i) for i in items):
            return TOP
        return strict(lambda v: _indexed(v, items), value)

    def _basic_index(self, node):
        """Whether `node` is an index of NumPy's basic indexing whose effect on the shape
        the text shows: `...`, None, an int, a loop counter, a slice of int constants."""
        if isinstance(node, gast.Slice):
            return all(part is None or _int_constant(part) is not None for part in (node.lower, node.upper, node.step))
        if isinstance(node, gast.Constant):
            return node.value is None or node.value is Ellipsis or type(node.value) is int
        return isinstance(node, gast.Name) and node.id in self.ints

    def _Attribute(self, node):
        if node.attr == "T":
            return strict(lambda v: tuple(reversed(v)), self.shape(node.value))
        entry = entry_read(node, self.entries) if self.entries else None
        return TOP if entry is None or entry[0] is None else entry[0]

    def _Call(self, node):
        func = node.func
        if type(func) is gast.Name:  # most callees: helpers by name, resolved once per analysis
            obj = self.callees.get(func.id, _ABSENT)
            if obj is _ABSENT:
                obj = self.callees[func.id] = self.resolve(func)
        else:
            obj = self.resolve(func)
        args = node.args
        if obj is None or any(isinstance(a, gast.Starred) for a in args):
            return TOP
        keywords = {k.arg: k.value for k in node.keywords}
        try:
            hash(obj)
        except TypeError:
            return TOP
        if obj in _SHAPE_OF_ARG:
            index = _SHAPE_OF_ARG[obj]
            return self.shape(args[index]) if len(args) > max(index, -index - 1) else TOP
        if obj in (np.dot, np.matmul):  # before the ufuncs: np.matmul is one
            return strict(_matmul, *[self.shape(a) for a in args]) if len(args) == 2 and not keywords else TOP
        if _is_outer(obj) and len(args) == 2 and not keywords:
            return strict(lambda a, b: a + b, *[self.shape(a) for a in args])
        if isinstance(obj, np.ufunc):
            if obj.nout != 1 or len(args) != obj.nin or set(keywords) - {"dtype"} or obj.signature is not None:
                return TOP  # a generalized ufunc (np.matvec, np.vecdot) maps core axes: not a broadcast
            return strict(_broadcast, *[self.shape(a) for a in args])
        if obj in AXIS_REDUCTIONS and (keywords or len(args) == 2):
            if len(args) > 2 or set(keywords) - {"axis", "keepdims"} or (len(args) == 2 and "axis" in keywords):
                return TOP
            axis = args[1] if len(args) == 2 else keywords.get("axis")
            return strict(lambda v: _reduced(v, axis, keywords.get("keepdims")), self.shape(args[0]))
        if obj in _FULL_REDUCTIONS:
            if len(args) != 1 + (obj is np.vdot) or keywords:
                return TOP
            return strict(lambda *_: (), *[self.shape(a) for a in args])
        if obj in _SCALARS:
            return ()
        if (obj in (np.array, np.asarray) and not keywords or obj is np.stack and set(keywords) <= {"axis"}) and (
            len(args) == 1 and isinstance(args[0], (gast.List, gast.Tuple))
        ):  # `np.array([a, b])`, `np.stack([a, b], axis=1)`: the items' common shape, one axis more
            items = args[0].elts
            axis = _int_constant(keywords["axis"]) if "axis" in keywords else 0
            if not items or axis is None or any(isinstance(e, gast.Starred) for e in items):
                return TOP
            return strict(lambda *shapes: _stacked(shapes, axis), *[self.shape(e) for e in items])
        if obj in _LIKE:
            return self.shape(args[0]) if len(args) == 1 and not keywords else TOP
        if obj in _CREATORS:
            if not args or set(keywords) - {"dtype"} or len(args) > 1 + (obj is np.full):
                return TOP
            return _literal_shape(args[0])
        if obj is np.where and len(args) == 3 and not keywords:
            return strict(_broadcast, *[self.shape(a) for a in args])
        if _is_math(obj):
            if keywords:
                return TOP
            return strict(lambda *_: (), *[self.shape(a) for a in args])
        return self._each(obj, args, keywords)

    def _each(self, obj, args, keywords):
        """`matmul_each(a, b, n)` and `add_each(a, c, n)` (hoist.py: their `each_row`) for
        n > 0 rows of `a`."""
        row = getattr(obj, "each_row", None)
        if row not in ("@", "+") or len(args) != 3 or keywords:
            return TOP
        n = _int_constant(args[2])
        each = _matmul if row == "@" else _broadcast

        def stacked(a, b):
            row = each(a[1:], b) if a else TOP
            return TOP if row is TOP or n is None or n <= 0 or a[0] == 0 else (min(n, a[0]),) + row

        return strict(stacked, self.shape(args[0]), self.shape(args[1]))


_RULES = {}  # node class -> the `_Shapes` method that gives its shape (None: unknown)
_ABSENT = object()


def _is_outer(obj):
    """Whether `obj` is `np.multiply.outer` (each access makes a new bound method)."""
    return getattr(obj, "__self__", None) is np.multiply and getattr(obj, "__name__", None) == "outer"


def _is_math(obj):
    name = getattr(obj, "__name__", None)
    return name is not None and getattr(math, name, None) is obj


def _reduced(shape, axis, keepdims):
    """The shape of a reduction of an array of `shape` over the constant `axis` (a node:
    an int, a tuple of ints, None; None for no node: all axes), keeping the reduced axes
    as ones if the constant `keepdims` (a node or None) is true."""
    keep = False
    if keepdims is not None:
        if not (isinstance(keepdims, gast.Constant) and type(keepdims.value) is bool):
            return TOP
        keep = keepdims.value
    if axis is None or (isinstance(axis, gast.Constant) and axis.value is None):
        axes = range(len(shape))
    else:
        found = [_int_constant(a) for a in axis.elts] if isinstance(axis, gast.Tuple) else [_int_constant(axis)]
        if None in found:
            return TOP
        axes = [a + len(shape) if a < 0 else a for a in found]
        if len(set(axes)) != len(axes) or any(not 0 <= a < len(shape) for a in axes):
            return TOP  # NumPy raises
    return tuple(1 if i in axes else n for i, n in enumerate(shape) if keep or i not in axes)


def _stacked(shapes, axis):
    """The shape of `np.stack` of arrays of `shapes` along `axis`."""
    if len(set(shapes)) != 1:
        return TOP
    shape = shapes[0]
    at = axis + len(shape) + 1 if axis < 0 else axis
    if not 0 <= at <= len(shape):
        return TOP  # NumPy raises
    return shape[:at] + (len(shapes),) + shape[at:]


def _int_constant(node):
    """The int that `node` writes (`3`, `-1`), or None."""
    if isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.USub):
        inner = _int_constant(node.operand)
        return None if inner is None else -inner
    return node.value if isinstance(node, gast.Constant) and type(node.value) is int else None


def _indexed(shape, items):
    """The shape of an array of `shape` indexed by `items` (see `_Shapes._basic_index`)."""
    consumed = sum(1 for i in items if not (isinstance(i, gast.Constant) and i.value in (None, Ellipsis)))
    ellipses = sum(1 for i in items if isinstance(i, gast.Constant) and i.value is Ellipsis)
    if consumed > len(shape) or ellipses > 1:
        return TOP  # NumPy raises
    if not ellipses:
        items = list(items) + [gast.Constant(value=Ellipsis, kind=None)]
    out, axis = [], 0
    for item in items:
        if isinstance(item, gast.Slice):
            bounds = [None if part is None else _int_constant(part) for part in (item.lower, item.upper, item.step)]
            if bounds[2] == 0:
                return TOP  # NumPy raises
            out.append(len(range(*slice(*bounds).indices(shape[axis]))))
            axis += 1
        elif isinstance(item, gast.Constant) and item.value is None:
            out.append(1)
        elif isinstance(item, gast.Constant) and item.value is Ellipsis:
            rest = len(shape) - consumed
            out += shape[axis:axis + rest]
            axis += rest
        else:
            axis += 1  # an int takes its axis away
    return tuple(out)


def _literal_shape(node):
    if isinstance(node, gast.Constant) and type(node.value) is int:
        return (node.value,)
    if isinstance(node, gast.Tuple) and all(isinstance(e, gast.Constant) and type(e.value) is int for e in node.elts):
        return tuple(e.value for e in node.elts)
    return TOP


def _broadcast(*shapes):
    """`np.broadcast_shapes(*shapes)` as a tuple, TOP where it raises."""
    first = shapes[0]
    if shapes.count(first) == len(shapes):  # most operations: no broadcasting
        return first
    ndim = max(len(s) for s in shapes)
    if ndim > 32 or not all(type(d) is int and d >= 0 for s in shapes for d in s):
        try:  # NumPy's own errors (negative sizes, too many dimensions)
            return tuple(np.broadcast_shapes(*shapes))
        except ValueError:
            return TOP
    out = []
    for axis in range(-ndim, 0):  # aligned on the right; a size 1 stretches
        size = 1
        for s in shapes:
            d = s[axis] if len(s) >= -axis else 1
            if d != 1:
                if size != 1 and size != d:
                    return TOP
                size = d
        out.append(size)
    return tuple(out)


def _matmul(a, b):
    if len(a) == 2 and len(b) == 2 and a[1] == b[0]:
        return (a[0], b[1])
    if len(a) == 1 and len(b) == 2 and a[0] == b[0]:
        return (b[1],)
    if len(a) == 2 and len(b) == 1 and a[1] == b[0]:
        return (a[0],)
    if len(a) == 1 and len(b) == 1 and a[0] == b[0]:
        return ()
    return TOP

