"""The `unbroadcast` calls one kind of call makes redundant, dropped (shapes.py proves
the shapes).

In the backward pass, `unbroadcast(g, x)` becomes `g` wherever both shapes are known and
equal, or `add_reduce(g, axes)` where broadcasting only added leading axes; 2-D
matrix-product adjoints become `g @ y.T` and `x.T @ g`; `np.size(x)` becomes its value
(and `max(np.size(x), 1)` too).

Before (a and b are floats):        After:
    s_bar = unbroadcast(t2_bar, s)      s_bar = t2_bar

Dropping such a call changes no value: `unbroadcast` of a same-shaped gradient only
normalizes its type (a float32 cast, a NumPy scalar made a float), and the gradients
returned to the caller are still normalized. What the backward pass no longer reads,
the tape no longer saves.
"""

import builtins
import dataclasses
import math

import gast
import numpy as np

from .. import runtime
from ..rules import operators
from . import constants, kinds, syntax, traversal
from .kinds import BOTTOM, TOP
from .shapes import _MATMUL_ADJOINTS, _matmul, _pseudo_stores, _Resolver, _Shapes, _statements


def drop_unbroadcasts(forward, backward, signature, none_init, namer):
    """Rewrite `forward` and `backward` in place for one call `signature`.

    Returns `kinds.returned_as_is` for the rewritten code: which returned gradients need
    no `unbroadcast`.
    """
    unbroadcast = _helper_name(namer, runtime.unbroadcast)  # None: only np.size to fold
    env = _Shapes(signature.shapes, none_init, namer, signature.entries).solve(forward, backward)
    calls = _Resolver(namer)
    products = _drop(_statements(backward), _Drop(unbroadcast, env, calls, namer), env.calls)
    unreduce = _helper_name(namer, runtime.unreduce)
    if unreduce is not None:
        returned = {namer.adjoint(p) for p in signature.params}
        _narrow_unreduces(backward, env, unreduce, calls, returned)
        _visit(products, _Reassociate(env))
    found = kinds.solver(env.refresh(), signature)  # the definitions as rewritten above
    kinds.drop_in_place(forward, found, namer)
    kinds.fold_seeds(forward, env, found, namer)
    kinds.fast_means(mean_places(env.calls, calls), env, found, namer)
    constants.run(forward, backward, env, found, signature, namer)
    return kinds.returned_as_is(env, found, signature)


def _visit(stmts, visitor):
    """Rewrite the simple statements `stmts` (a `for`: its iterable) in place, bottom-up,
    by `visitor`'s `visit_Call` / `visit_BinOp`, as an `ast.NodeTransformer` would.
    Returns the statements where a visit set `visitor.marked`."""
    rewrites = {cls: getattr(visitor, "visit_" + cls.__name__) for cls in (gast.Call, gast.BinOp)
                if hasattr(visitor, "visit_" + cls.__name__)}
    marked = []
    for stmt in stmts:
        visitor.marked = False
        if isinstance(stmt, gast.For):
            stmt.iter = traversal.rewrite(stmt.iter, rewrites)
        else:
            traversal.rewrite(stmt, rewrites)
        if visitor.marked:
            marked.append(stmt)
    return marked


def _drop(stmts, drop, calls):
    """`_visit(stmts, drop)`, the simple statements that hold no call (`calls`: the shape
    analysis's place -> the calls under it) only looked at for `_Drop`'s marks: it
    rewrites calls alone."""
    holding = [s for s in stmts if type(s) is gast.For or (s, None) in calls]
    marked = {id(s) for s in _visit(holding, drop)}
    held = {id(s) for s in holding}
    return [s for s in stmts if id(s) in marked or (id(s) not in held and _holds_product(s))]


def _holds_product(stmt):
    return any(type(n) is gast.BinOp and _scales_a_product(n) for n in traversal.branch_nodes(stmt))


def mean_places(places, resolve):
    """The places (statement, None) or (statement, header field) of `places` (place ->
    the calls under it) that hold an `np.mean(...)` call."""
    found, callees = [], {}
    for place, under in places.items():
        for call in under:
            func = call.func  # most callees: helpers by name, or `np.<name>`: what they mean, kept
            key = func.id if type(func) is gast.Name else (
                (func.value.id, func.attr) if type(func) is gast.Attribute and type(func.value) is gast.Name else None)
            obj = callees[key] if key in callees else resolve(func)
            if key is not None:
                callees[key] = obj
            if obj is np.mean:
                found.append(place)
                break
    return found


def _helper_name(namer, obj):
    for name, bound in namer.helpers.items():
        if bound is obj:
            return name
    return None


_ADD_REDUCE = np.add.reduce


class _Drop:
    """`unbroadcast(g, x)` -> `g` (same shapes) or `add_reduce(g, axes)` (the axes that
    broadcasting added in front); 2-D matrix-product adjoints -> `g @ y.T`, `x.T @ g`;
    `np.size(x)` -> its value, and `max` of such values too. Marks the statements that
    `_Reassociate` may change."""

    def __init__(self, unbroadcast, shapes, resolve, namer):
        self.unbroadcast = unbroadcast
        self.shapes = shapes
        self.resolve = resolve
        self.namer = namer
        self.marked = False

    def visit_BinOp(self, node):
        if _scales_a_product(node):  # its operands are final: `_Drop` replaces only calls
            self.marked = True
        return node

    def visit_Call(self, node):
        if (
            isinstance(node.func, gast.Name)
            and node.func.id == self.unbroadcast
            and len(node.args) == 2
            and not node.keywords
        ):
            g, x = (self.shapes.shape(a) for a in node.args)
            if isinstance(g, tuple) and g == x:
                return node.args[0]
            if isinstance(g, tuple) and isinstance(x, tuple) and len(g) > len(x) and g[len(g) - len(x):] == x:
                extra = len(g) - len(x)  # sum the leading axes (the type is normalized on return)
                axes = gast.Constant(value=0, kind=None) if extra == 1 else gast.Tuple(
                    [gast.Constant(value=i, kind=None) for i in range(extra)], gast.Load())
                reduce = gast.Name(self.namer.helper("add_reduce", _ADD_REDUCE), gast.Load(), None, None)
                return gast.copy_location(gast.Call(reduce, [node.args[0], axes], []), node)
        elif len(node.args) == 4 and not node.keywords and self.resolve(node.func) in _MATMUL_ADJOINTS:
            g, _, a, b = node.args
            ga, sa, sb = self.shapes.shape(g), self.shapes.shape(a), self.shapes.shape(b)
            if (
                self.resolve(node.func) is operators._matmul_vjp_y
                and all(isinstance(s, tuple) for s in (ga, sa, sb))
                and len(sa) == 1 and len(sb) == 2 and ga == sb[1:] and sa == sb[:1]
            ):  # vector @ matrix: the rule's `x[..., None] * g[..., None, :]`, as one call
                outer = syntax.attr(syntax.name(self.namer.helper("np", np)), "multiply")
                return gast.copy_location(syntax.call(syntax.attr(outer, "outer"), [a, g]), node)
            if not all(isinstance(s, tuple) and len(s) == 2 for s in (ga, sa, sb)):
                return node
            transposed = lambda n: gast.Attribute(n, "T", gast.Load())  # noqa: E731
            if self.resolve(node.func) is operators._matmul_vjp_x and _matmul(ga, tuple(reversed(sb))) == sa:
                return gast.copy_location(gast.BinOp(g, gast.MatMult(), transposed(b)), node)
            if self.resolve(node.func) is operators._matmul_vjp_y and _matmul(tuple(reversed(sa)), ga) == sb:
                return gast.copy_location(gast.BinOp(transposed(a), gast.MatMult(), g), node)
        elif len(node.args) == 1 and not node.keywords and self.resolve(node.func) is np.size:
            shape = self.shapes.shape(node.args[0])
            if isinstance(shape, tuple):  # a known shape has a known size
                return gast.copy_location(gast.Constant(value=math.prod(shape), kind=None), node)
        elif (node.args and not node.keywords and all(type(a) is gast.Constant and type(a.value) is int for a in node.args)
              and self.resolve(node.func) is builtins.max):  # `max(12, 1)`, a size kept from 0 (np.mean's rule)
            return gast.copy_location(gast.Constant(value=max(a.value for a in node.args), kind=None), node)
        return node


class _Reassociate:
    """`s * (c * a)` -> `(s * c) * a` for a scalar `s` and a number `c`: one pass over
    the array `a` instead of two (the dtype is the same either way)."""

    def __init__(self, shapes):
        self.shapes = shapes

    def visit_BinOp(self, node):
        inner = node.right
        if (
            _scales_a_product(node)
            and self.shapes.shape(node.left) == ()
            and self.shapes.shape(inner.right) not in (TOP, BOTTOM, ())
        ):
            scale = gast.BinOp(node.left, gast.Mult(), inner.left)
            return gast.copy_location(gast.BinOp(scale, gast.Mult(), inner.right), node)
        return node


def _scales_a_product(node):
    """Whether the BinOp `node` reads `s * (c * a)` with a number `c`."""
    inner = node.right
    return (
        isinstance(node.op, gast.Mult)
        and isinstance(inner, gast.BinOp)
        and isinstance(inner.op, gast.Mult)
        and isinstance(inner.left, gast.Constant)
        and type(inner.left.value) in (int, float)
    )


# --- a spread seed that stays a scalar ------------------------------------------------


def _narrow_unreduces(backward, env, unreduce, resolve, returned):
    """`g_bar = unreduce(s, x, None, False)` with a scalar `s` becomes `g_bar = s` when
    only element-wise operations read `g_bar` and what follows from it.

    Before:  t_bar = unreduce(out_bar * 0.25, t, None, False)    After:  t_bar = out_bar * 0.25
             u_bar = -t_bar                                                u_bar = -t_bar
             z_bar = u_bar * y                                             z_bar = u_bar * y

    Sound because broadcasting commutes with element-wise operations: every name then
    holds either its old value or a scalar that broadcasts to it, and the check below
    ensures that only element-wise operations (whose result shapes it recomputes) read
    the scalars, and that no gradient returned to the caller is one of them.
    """
    facts = {}  # id(statement) -> `_facts` of it (the statements after a narrowed one keep theirs)
    for k, stmt in enumerate(backward):
        call = stmt.value if isinstance(stmt, gast.Assign) else None
        if not (
            isinstance(call, gast.Call)
            and isinstance(call.func, gast.Name)
            and call.func.id == unreduce
            and len(stmt.targets) == 1
            and isinstance(stmt.targets[0], gast.Name)
            and not call.keywords
            and len(call.args) == 4
            and all(isinstance(a, gast.Constant) for a in call.args[2:])
            and call.args[2].value is None
            and call.args[3].value is False
            and env.shape(call.args[0]) == ()
            and isinstance(env.shape(call.args[1]), tuple)
        ):
            continue
        narrowed = _stays_elementwise(backward[k + 1 :], {stmt.targets[0].id}, env, resolve, returned, facts)
        if narrowed is not None:
            stmt.value = call.args[0]
            env.env.update(narrowed)  # scalars from here on (unknown where also arrays)


def _stays_elementwise(stmts, scalars, env, resolve, returned, facts):
    """The new shapes (name -> () or unknown) if the narrowing is sound, else None.
    `facts` keeps what `_facts` finds of each statement between calls."""
    saved = dict(env.env)
    ever, arrays = set(scalars), set()
    try:
        for stmt in stmts:
            for n in scalars:
                env.env[n] = ()
            found = facts.get(id(stmt))
            if found is None:
                found = facts[id(stmt)] = _facts(stmt)
            target, names = found
            if target is None:  # a tape marker, a block or another statement: it may not touch a scalar
                if names & scalars:
                    return None
                continue
            if not names & scalars:
                _leaves(target, scalars, arrays, env, saved)
                continue
            if not _elementwise(stmt.value, scalars, resolve):
                return None
            old, new = saved.get(target), env.shape(stmt.value)
            if not isinstance(old, tuple):
                return None
            if new == old:
                _leaves(target, scalars, arrays, env, saved)
            elif new == ():
                scalars.add(target)
                ever.add(target)
            else:
                return None
        if scalars & returned:
            return None
        return {n: TOP if n in arrays else () for n in ever}
    finally:
        env.env.clear()
        env.env.update(saved)


def _leaves(target, scalars, arrays, env, saved):
    """`target`, assigned an array, is no scalar from here on: its shape is the analysis's
    again (a name that was a scalar before kept `()` and made the next statement reading
    it with a scalar look like a scalar too)."""
    scalars.discard(target)
    arrays.add(target)
    if target in saved:
        env.env[target] = saved[target]
    else:
        env.env.pop(target, None)


def _facts(stmt):
    """(the name `stmt` assigns, the names it reads) for an assignment to one name; else
    (None, every name it reads or stores, in pseudo statements too)."""
    if not isinstance(stmt, gast.AST):  # a tape marker
        return None, _marker_names(stmt)
    if type(stmt) is gast.Assign:  # gast's statement classes have no subclasses
        reads = traversal.add_loads(stmt, set())
        if len(stmt.targets) == 1 and type(stmt.targets[0]) is gast.Name:
            return stmt.targets[0].id, reads
        return None, reads
    loads, others = traversal.name_counts(stmt)  # the reads and the stores in one walk
    return None, {*loads, *others} | _pseudo_stores([stmt])


def _marker_names(marker):
    names = set()
    for f in dataclasses.fields(marker):
        v = getattr(marker, f.name)
        for node in v if isinstance(v, list) else [v]:
            if isinstance(node, str):
                names.add(node)
            elif isinstance(node, (set, frozenset)):
                names |= {n for n in node if isinstance(n, str)}
            elif dataclasses.is_dataclass(node):
                names |= _marker_names(node)
            elif isinstance(node, gast.AST):
                names.update(n.id for n in traversal.walk(node) if isinstance(n, gast.Name))
    return names


def _elementwise(node, scalars, resolve):
    """Whether every read of a name in `scalars` under `node` is an operand of
    element-wise operations only (arithmetic but `@`, unary minus, one-output ufuncs)."""
    if isinstance(node, (gast.Name, gast.Constant)):
        return True
    if isinstance(node, gast.BinOp) and not isinstance(node.op, gast.MatMult):
        return _elementwise(node.left, scalars, resolve) and _elementwise(node.right, scalars, resolve)
    if isinstance(node, gast.UnaryOp) and isinstance(node.op, (gast.USub, gast.UAdd)):
        return _elementwise(node.operand, scalars, resolve)
    if isinstance(node, gast.Call) and not node.keywords:
        fn = resolve(node.func)
        if isinstance(fn, np.ufunc) and fn.nout == 1 and len(node.args) == fn.nin and fn.signature is None:
            return all(_elementwise(a, scalars, resolve) for a in node.args)
    return not any(isinstance(n, gast.Name) and n.id in scalars for n in traversal.walk(node))
