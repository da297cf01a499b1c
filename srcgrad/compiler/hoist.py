"""Loop-invariant code motion: work that every iteration repeats is done once, before
the loop, with the same values.

`run` (rules 1 to 3) runs on the jvp FunctionDef that forward.py builds, before
optimize; `invariants` (rule 3 alone) on the primal FunctionDef before reverse mode
differentiates it, so that the tape keeps no copy of an invariant value per iteration
and its adjoint, added up over the iterations, is pulled back once. In the jvp of the RNN step
`h = np.tanh(h @ W + x[t] @ U + b)` with tangents for W, U, b:

    for t in range(50):                    x_at_U = matmul_each(x, U, 50)
        x_t = x[t]                         x_at_U_dot = matmul_each(x, U_dot, 50)
        x_t_at_U = x_t @ U          ->     for t in range(50):
        x_t_at_U_dot = x_t @ U_dot             x_t_at_U = x_at_U[t]
        ...                                    x_t_at_U_dot = x_at_U_dot[t]

A loop qualifies when it is `for t in range(...)` with the builtin `range`, no `else`,
no `break`, `continue` or `return` of its own, and only pure calls in its body
(`rules.purity`, plus `range`, `len`, the helpers below, and the array methods that only
compute their result, `_ARRAY_METHODS`, on a local): then every top-level
statement of its body runs once in every iteration, and the names the body does not
store keep their values throughout. Loops are processed innermost first, each body in
order. Three rewrites, exact (the same values, bit for bit) but where said:

1. Row products. After a top-level `a_t = a[t]` (`a` invariant, `t` the loop variable,
   which the body does not rebind), a top-level `y = a_t @ B` with `B` invariant becomes
   `y = a_at_B[t]`, with `a_at_B = matmul_each(a, B, n)` before the loop. The loop must
   be `range(n)` or `range(c, n)` for a constant c >= 0, so `a_at_B[t]` is `a[:n][t]`'s
   product. `matmul_each` multiplies a stack of matrices in one call only where NumPy
   computes each matrix's product exactly as alone (a is an ndarray of 3 or more
   dimensions, B a matrix); otherwise it makes the products one by one.
2. Sums of rows and invariants, in tangents. After a top-level `r = R[t]` (`R`
   invariant, often a product of rule 1), a tangent's top-level `s = a + r` read only
   by the next such statement `u = s + c` (`c` invariant, no name of `a` stored between
   them) becomes `u = a + R_plus_c[t]`, with `R_plus_c = add_each(R, c, n)` before the
   loop: the RNN's `(h_at_W_dot + x_t_at_U_dot) + b_dot` adds `b_dot` once for all
   steps. This one rewrite reassociates a sum, so the tangent equals the loop's up to
   rounding; primal values are never rewritten.
3. Invariant statements. A top-level `y = e` moves before the loop when `e` is pure and
   reads only invariant names (or names moved before it), `y` is stored nowhere else in
   the loop and read nowhere in the loop before it, and `y` appears nowhere outside the
   loop. When the trip count is not a constant, the moved statements run under
   `if n > 0:` (`if n > c:`), so a loop that runs zero times computes nothing new.

Post-condition: in a qualifying loop no statement of rule 3 remains and no product of
rule 1 or tangent sum of rule 2 remains; the function returns what it returned before.
"""

import builtins

import gast
import numpy as np

from ..rules import registry
from ..rules.operators import _matmul_vjp_x, _matmul_vjp_y
from ..rules.purity import is_pure_call
from ..runtime import unbroadcast
from . import syntax, traversal
from .holders import joined
from .shapes import _Resolver


def _rows(a, n):
    """`a[t]` for t in range(n): a slice of an array, list or tuple, read one by one from
    another container (a dict keyed by t), as the loop read them."""
    if isinstance(a, (np.ndarray, list, tuple)):
        return a[: max(n, 0)]
    return [a[t] for t in range(n)]


def matmul_each(a, b, n):
    """`a[t] @ b` for t in range(n), as one array indexed by t (generated code's helper).

    One stacked matmul where that is exact: NumPy multiplies the matrices of a stack one
    by one with the same kernel it uses for a single pair. A stack of vectors (`a` 2-D)
    would use another kernel than one vector does, so it is multiplied row by row.
    """
    rows = _rows(a, n)
    if (type(rows) is np.ndarray and type(b) is np.ndarray and rows.ndim >= 3 and b.ndim == 2
            and rows.shape[-1] == b.shape[0]):
        return rows @ b
    products = [r @ b for r in rows]
    return np.stack(products) if products else np.empty((0,))


matmul_each.one_result = True  # calls.several_results: its tangents add with `+`
matmul_each.each_row = "@"  # `a[t] @ b` for each t: what shapes.py and kinds.py read of it


def add_each(a, c, n):
    """`a[t] + c` for t in range(n), as one array indexed by t (generated code's helper).

    One broadcast sum where `c` has fewer dimensions than the stack of rows, so that it
    meets every row alike (the same values as row by row); otherwise row by row.
    """
    rows = _rows(a, n)
    if type(rows) is np.ndarray and np.ndim(c) < rows.ndim:
        return rows + c
    sums = [r + c for r in rows]
    return np.stack(sums) if sums else np.empty((0,))


add_each.one_result = True
add_each.each_row = "+"  # `a[t] + c` for each t


def add_each_jvp_a(t, ans, a, c, n):
    return add_each(t, np.zeros_like(c), n)


def add_each_jvp_c(t, ans, a, c, n):
    return np.broadcast_to(t, np.shape(ans))


def add_each_vjp_a(g, ans, a, c, n):
    out = np.zeros(np.shape(a), dtype=np.result_type(g, a, np.float32))
    rows = _rows(a, n)
    if type(rows) is np.ndarray and np.ndim(c) < rows.ndim:
        out[: len(rows)] = unbroadcast(g, rows)
    else:
        for t in range(len(rows)):
            out[t] = unbroadcast(g[t], rows[t])
    return out


def add_each_vjp_c(g, ans, a, c, n):
    return unbroadcast(g, c)


def _each_vjp_a(g, a, b, n):
    out = np.zeros(np.shape(a), dtype=np.result_type(g, a, np.float32))
    for t in range(len(g)):
        out[t] = _matmul_vjp_x(g[t], None, a[t], b)
    return out


def _each_vjp_b(g, a, b, n):
    total = np.zeros(np.shape(b), dtype=np.result_type(g, b, np.float32))
    for t in range(len(g)):
        total = total + _matmul_vjp_y(g[t], None, a[t], b)
    return total


def matmul_each_jvp_a(t, ans, a, b, n):
    return matmul_each(t, b, n)


def matmul_each_jvp_b(t, ans, a, b, n):
    return matmul_each(a, t, n)


def matmul_each_vjp_a(g, ans, a, b, n):
    return _each_vjp_a(g, a, b, n)


def matmul_each_vjp_b(g, ans, a, b, n):
    return _each_vjp_b(g, a, b, n)


def _register():
    """Rules for `matmul_each` and `add_each`, so that generated code using them can be
    differentiated again."""
    import inspect

    rule = registry.custom_rule(matmul_each, inspect.signature(matmul_each), name="MatmulEach")
    rule.jvps.update(a=registry.Derivative(matmul_each_jvp_a, "jvp"), b=registry.Derivative(matmul_each_jvp_b, "jvp"))
    rule.vjps.update(a=registry.Derivative(matmul_each_vjp_a, "vjp"), b=registry.Derivative(matmul_each_vjp_b, "vjp"))


    rule = registry.custom_rule(add_each, inspect.signature(add_each), name="AddEach")
    rule.jvps.update(a=registry.Derivative(add_each_jvp_a, "jvp"), c=registry.Derivative(add_each_jvp_c, "jvp"))
    rule.vjps.update(a=registry.Derivative(add_each_vjp_a, "vjp"), c=registry.Derivative(add_each_vjp_c, "vjp"))


_register()
_ALSO_PURE = {builtins.range, builtins.len, matmul_each, add_each}
# ndarray methods that only compute their result (without `out=`)
_ARRAY_METHODS = frozenset({
    "max", "min", "sum", "mean", "prod", "std", "var", "all", "any", "argmax", "argmin", "ptp", "cumsum",
    "cumprod", "copy", "astype", "reshape", "transpose", "swapaxes", "ravel", "flatten", "squeeze", "dot", "clip",
    "round", "conj", "conjugate", "trace", "diagonal", "item", "tolist", "nonzero",
})


def run(tree, namer):
    """Hoist loop-invariant work out of the qualifying `for` loops of the FunctionDef `tree`."""
    _Hoist(tree, namer).block(tree.body)
    return tree


def invariants(tree, namer):
    """Rule 3 alone, on a primal FunctionDef before reverse mode differentiates it: an
    invariant statement is computed once, and the backward pass reads its one value (the
    tape keeps no copy per iteration) and adds up its adjoint over the iterations before
    pulling it back once."""
    _Hoist(tree, namer, rows=False).block(tree.body)
    return tree


class _Hoist:
    def __init__(self, tree, namer, rows=True):
        self.tree, self.namer, self.resolve = tree, namer, _Resolver(namer)
        self.rows = rows  # rules 1 and 2 too (jvp code)

    def block(self, stmts):
        k = 0
        while k < len(stmts):
            s = stmts[k]
            for field in ("body", "orelse"):
                inner = getattr(s, field, None)
                if type(s) in traversal.BRANCHES_AND_LOOPS and inner:
                    self.block(inner)
            before = self.loop(s) if isinstance(s, gast.For) else []
            stmts[k:k] = before
            k += len(before) + 1

    # --- which loops ------------------------------------------------------------------

    def loop(self, loop):
        """The statements to put before `loop` (its body rewritten in place)."""
        bounds = self.bounds(loop)
        if bounds is None or not self.pure(loop.body):
            return []
        target = loop.target.id
        stores = _store_counts(loop.body)
        if stores.get(target):
            return []
        varying = set(stores) | {target}
        written = _written_into(loop.body)
        if written:  # a write into `z` changes every name that may share z's memory (`z = y`, `z = y[1:]`)
            varying |= _sharing(self.tree, written)
        outside = _name_counts(self.tree)
        inside = _name_counts(loop)
        local = lambda name: outside.get(name, 0) == inside.get(name, 0)  # noqa: E731
        before, moved = [], []
        if self.rows:
            before += self.row_products(loop, bounds, varying, stores)
            before += self.row_sums(loop, bounds, varying, stores)
        read_before = {n.id for n in traversal.nodes(loop.iter) if isinstance(n, gast.Name)}  # read once, first
        for s in list(loop.body):
            if self.invariant(s, varying, stores, read_before, local):
                loop.body.remove(s)
                moved.append(s)
                varying.discard(s.targets[0].id)
            else:
                read_before |= {n.id for n in traversal.nodes(s) if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load)}
        if not loop.body:
            loop.body = [syntax.pass_()]
        if moved and bounds[2] is not None:
            moved = [syntax.if_(syntax.compare(syntax.copy(bounds[1]), gast.Gt(), syntax.copy(bounds[2])), moved)]
        if before or moved:
            return [syntax.comment("loop-invariant: computed once, before the loop")] + before + moved
        return []

    def bounds(self, loop):
        """(start, stop, guard) of `for t in range(...)`: guard is the start to compare the
        stop against (None: runs at least once); start is None unless a constant >= 0."""
        it = loop.iter
        if loop.orelse or not isinstance(loop.target, gast.Name) or not isinstance(it, gast.Call):
            return None
        if self.resolve(it.func) is not builtins.range or it.keywords or not 1 <= len(it.args) <= 3:
            return None
        if not all(isinstance(a, gast.Name) or _int(a) for a in it.args) or _jumps(loop.body):
            return None
        args = list(it.args)
        start = args[0] if len(args) > 1 else syntax.const(0)
        stop = args[1] if len(args) > 1 else args[0]
        if all(_int(a) for a in args):
            if not range(*(a.value for a in args)):
                return None
            guard = None
        elif len(args) == 3:
            return None  # a step: no simple test of a non-empty range
        else:
            guard = start
        return (start if _int(start) and start.value >= 0 else None), stop, guard

    def pure(self, stmts):
        for s in stmts:
            for n in traversal.nodes(s):
                if isinstance(n, gast.Call):
                    fn = self.resolve(n.func)
                    if any(isinstance(a, gast.Starred) for a in n.args):
                        return False
                    if fn in _ALSO_PURE or is_pure_call(fn, len(n.args), {k.arg for k in n.keywords}):
                        continue
                    if fn is None and self.array_method(n):
                        continue
                    return False
                if isinstance(n, (gast.NamedExpr, gast.Yield, gast.YieldFrom, gast.Await, gast.Lambda,
                                  gast.Global, gast.Nonlocal, gast.Try, gast.With, gast.FunctionDef)):
                    return False
        return True

    def array_method(self, call):
        """Whether `call` is `a.m(...)` of a local `a` with `m` an array method that only
        computes its result (`alpha.max()`, `x.sum(axis=0)`, `w.reshape(3, 2)`). Methods of
        a user's object were made calls of its function (record_methods.py) or are refused;
        a local reaching here holds an array, a number, or a container (whose mutating
        methods, `append` and `pop`, are not among these)."""
        func = call.func
        return (type(func) is gast.Attribute and type(func.value) is gast.Name and func.attr in _ARRAY_METHODS
                and func.value.id in self.namer.locals and "out" not in {k.arg for k in call.keywords})

    # --- the rewrites -----------------------------------------------------------------

    def row_products(self, loop, bounds, varying, stores):
        """Rule 1: the `matmul_each` statements to put before the loop."""
        start, stop, _ = bounds
        if start is None:
            return []
        t = loop.target.id
        rows = {}  # a_t -> a, for `a_t = a[t]` seen so far at top level
        before = []
        for s in loop.body:
            if not (isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Name)):
                continue
            name, value = s.targets[0].id, s.value
            if stores.get(name) != 1:
                continue
            if (row := _row_of(value, varying, t)) is not None:
                rows[name] = row
            elif (isinstance(value, gast.BinOp) and isinstance(value.op, gast.MatMult)
                  and isinstance(value.left, gast.Name) and value.left.id in rows
                  and isinstance(value.right, gast.Name) and value.right.id not in varying):
                a, b = rows[value.left.id], value.right.id
                made = self.namer.fresh(f"{a}_at_{b}")
                helper = self.namer.helper("matmul_each", matmul_each)
                args = [syntax.name(a), syntax.name(b), syntax.copy(stop)]
                before.append(syntax.assign(made, syntax.call(syntax.name(helper), args)))
                s.value = syntax.subscript(syntax.name(made), syntax.name(t))
        return before

    def row_sums(self, loop, bounds, varying, stores):
        """Rule 2: the `add_each` statements to put before the loop."""
        start, stop, _ = bounds
        if start is None:
            return []
        t = loop.target.id
        counts = _name_counts(self.tree)
        rows, sums, before = {}, {}, []  # r -> R for `r = R[t]`; s -> (a, r, its statement)
        for s in list(loop.body):
            if not (isinstance(s, gast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], gast.Name)):
                continue
            name, value = s.targets[0].id, s.value
            for stored in list(sums):  # `a` must keep its value until the sum is used
                if _stores_any(s, {n.id for n in traversal.nodes(sums[stored][0]) if isinstance(n, gast.Name)}):
                    del sums[stored]
            if stores.get(name) != 1:
                continue
            if (row := _row_of(value, varying, t)) is not None:
                rows[name] = row
                continue
            if not (isinstance(value, gast.BinOp) and isinstance(value.op, gast.Add)
                    and self.namer.is_tangent(name)):
                continue
            joined = None
            for part, c in ((value.left, value.right), (value.right, value.left)):
                if (isinstance(part, gast.Name) and part.id in sums and counts.get(part.id) == 2
                        and isinstance(c, gast.Name) and c.id not in varying):
                    joined = part.id, c.id
                    break
            if joined is not None:
                a, r, first = sums.pop(joined[0])
                made = self.namer.fresh(f"{rows[r]}_plus_{joined[1]}")
                helper = self.namer.helper("add_each", add_each)
                args = [syntax.name(rows[r]), syntax.name(joined[1]), syntax.copy(stop)]
                before.append(syntax.assign(made, syntax.call(syntax.name(helper), args)))
                s.value = syntax.binop(a, gast.Add(), syntax.subscript(syntax.name(made), syntax.name(t)))
                loop.body.remove(first)
                continue
            for a, r in ((value.left, value.right), (value.right, value.left)):
                if isinstance(r, gast.Name) and r.id in rows:
                    sums[name] = (a, r.id, s)
                    break
        return before

    def invariant(self, s, varying, stores, read_before, local):
        """Rule 3: whether the top-level statement `s` may move before the loop."""
        if not (isinstance(s, gast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], gast.Name)):
            return False
        name = s.targets[0].id
        if stores.get(name) != 1 or name in read_before or not local(name):
            return False
        return not ({n.id for n in traversal.nodes(s.value) if isinstance(n, gast.Name)} & varying)


# --- helpers -------------------------------------------------------------------------


def _row_of(value, varying, t):
    """`a` for the expression `a[t]` with `a` invariant (not in `varying`), else None."""
    if (isinstance(value, gast.Subscript) and isinstance(value.value, gast.Name)
            and value.value.id not in varying and syntax.is_name(value.slice, t)):
        return value.value.id
    return None


def _int(node):
    return isinstance(node, gast.Constant) and type(node.value) is int


def _jumps(stmts):
    """Whether `stmts` hold a `break`/`continue` of this loop or any `return`."""
    stack = list(stmts)
    while stack:
        s = stack.pop()
        if isinstance(s, (gast.Return, gast.Yield, gast.YieldFrom)):
            return True
        if isinstance(s, (gast.Break, gast.Continue)):
            return True
        if isinstance(s, (gast.For, gast.While)):
            stack += [n for n in traversal.nodes(s) if isinstance(n, (gast.Return, gast.Yield, gast.YieldFrom))]
            continue
        if isinstance(s, gast.If):
            stack += s.body + s.orelse
    return False


def _written_into(stmts):
    """The names written into (`z[i] = v`, `z.a = v`, `z[i] += v`) in the statements."""
    out = set()
    for root in stmts:
        for n in traversal.nodes(root):
            if isinstance(n, (gast.Subscript, gast.Attribute)) and not isinstance(n.ctx, gast.Load):
                base = n.value
                while isinstance(base, (gast.Subscript, gast.Attribute)):
                    base = base.value
                if isinstance(base, gast.Name):
                    out.add(base.id)
    return out


def _may_hold(value):
    """The names whose object `value` may be, view, hold or be returned from: any name it
    gives a call, indexes, reads an attribute of or puts in a display (an operator makes
    a new array)."""
    if isinstance(value, gast.Name):
        return {value.id}
    if isinstance(value, (gast.Subscript, gast.Attribute, gast.Starred)):
        return _may_hold(value.value)
    if isinstance(value, (gast.Tuple, gast.List, gast.Set)):
        return set().union(*(_may_hold(e) for e in value.elts))
    if isinstance(value, gast.Dict):
        return set().union(*(_may_hold(e) for e in value.values))
    if isinstance(value, gast.IfExp):
        return _may_hold(value.body) | _may_hold(value.orelse)
    if isinstance(value, gast.Call):
        given = list(value.args) + [k.value for k in value.keywords] + [value.func]
        return set().union(*(_may_hold(e) for e in given))
    return set()


def _sharing(tree, names):
    """`names` with every local name of `tree` that may share memory with one of them, in
    either direction (`z = y` relates z and y, `for row in Y` row and Y), until nothing
    more joins."""
    local = {n.id for n in traversal.nodes(tree) if isinstance(n, gast.Name) and not isinstance(n.ctx, gast.Load)}
    edges = []
    for s in traversal.nodes(tree):
        if isinstance(s, (gast.Assign, gast.AugAssign, gast.AnnAssign)) and s.value is not None:
            targets = s.targets if isinstance(s, gast.Assign) else [s.target]
            stored, held = _may_hold_targets(targets), _may_hold(s.value)
        elif isinstance(s, gast.For):
            stored, held = _may_hold_targets([s.target]), _may_hold(s.iter)
        else:
            continue
        edges += [(a, b) for a in stored & local for b in held & local]
    return joined(names, edges)


def _may_hold_targets(targets):
    """The names stored by the assignment targets, or written into."""
    out = set()
    for t in targets:
        out |= {n.id for n in traversal.nodes(t) if isinstance(n, gast.Name)}
    return out


def _stores_any(stmt, names):
    """Whether `stmt` stores (binds or writes into) any of `names`."""
    return bool(names) and bool(set(_store_counts(stmt)) & names)


def _store_counts(node_or_stmts):
    """How often each name is stored (bound, deleted, or written into) in the statements."""
    counts = {}
    nodes = node_or_stmts if isinstance(node_or_stmts, list) else [node_or_stmts]
    for root in nodes:
        for n in traversal.nodes(root):
            name = None
            if isinstance(n, gast.Name) and not isinstance(n.ctx, gast.Load):
                name = n.id
            elif isinstance(n, (gast.Subscript, gast.Attribute)) and not isinstance(n.ctx, gast.Load):
                base = n.value
                while isinstance(base, (gast.Subscript, gast.Attribute)):
                    base = base.value
                name = base.id if isinstance(base, gast.Name) else None
            if name is not None:
                counts[name] = counts.get(name, 0) + 1
    return counts


def _name_counts(node):
    """{name: how many times it occurs under `node`}, in no particular order."""
    counts, stack, name_node, constant, ast_node = {}, [node], gast.Name, gast.Constant, gast.AST
    get, pop, push = counts.get, stack.pop, stack.append
    while stack:  # as `traversal.nodes`, names and constants (most nodes) read where they are met
        n = pop()
        cls, values = type(n), n.__dict__
        if cls is name_node:
            counts[n.id] = get(n.id, 0) + 1
            if n.annotation is None:
                continue
        for field in traversal.child_fields(cls):
            value = values.get(field)
            for v in value if type(value) is list else (value,):
                kind = type(v)
                if kind is name_node:
                    counts[v.id] = get(v.id, 0) + 1
                    if v.annotation is not None:
                        push(v.annotation)
                elif kind is not constant and isinstance(v, ast_node):
                    push(v)
    return counts
