"""Clean up generated code: copy propagation and dead-code elimination, to a fixed point.

Before:  y_bar = out_bar                 After:  x_bar = out_bar * 2.0
         x_bar = y_bar * 2.0

- Copy propagation: in a straight-line block, `a = b` between names replaces the later
  reads of `a` by `b` and is dropped, when those are all the reads of `a` and `b` keeps
  its value until the last of them (`b = a` keeps it). `x = x` is dropped.
- Constant folding: arithmetic and comparisons of number constants are computed
  (`2 - (2 != 0)` -> `1`, left by inlined rules), `e ** 1` is `e`, and
  `0.5 * (e - 0.0)` is `0.5 * e` (a float factor makes the result a float either way).
- Dead code: an assignment whose target is never read anywhere is dropped when its
  right-hand side calls nothing but pure functions (`rules.purity`: ufuncs, most NumPy
  functions, the computing helpers); other calls may have effects, such as drawing
  random numbers, and are kept, and so are `math`'s, which raise outside their domain
  (the derivative of `math.atanh(y)` raises where the function does).
- Bound scalars: where specialized code binds a NumPy float64 constant (the seed
  `SEED64`), arithmetic of it with number constants is computed once, here, into
  another bound float64 constant (`SEED64 * 0.25` -> `SEED64_1`, bound to 0.25):
  the same value and type the call would compute, minus the work.
"""

import math
import builtins
import operator

import gast
import numpy as np

from ..rules.purity import is_droppable_call
from . import attempts, syntax, traversal
from .shapes import _Resolver


def run(tree, namer):
    reads = {}
    bound = {name for name, value in namer.helpers.items() if type(value) in _BOUND_SCALARS}
    sites, order = [], {}  # statements reading a bound constant; each statement's place (`_fold_tree`)
    _fold_tree(tree, reads, bound, sites, order, tree)
    changed = unseen = True  # unseen: there may be dead code that the last `_drop_dead` did not see
    names = {}  # what `_reached_reads` found of each simple statement, kept from round to round
    while changed:  # each round starts from the exact read counts, kept up to date below
        renamed = []  # (name, statement) where a read was renamed to `name`
        changed = _propagate_copies(tree.body, reads, renamed, names)
        if changed or unseen:
            dropped, unseen = _drop_dead(tree, {name for name, count in reads.items() if count}, _Resolver(namer), reads)
            changed |= bool(dropped)
            for s in dropped:
                order.pop(id(s), None)  # no longer in the tree
        sites += [s for name, s in renamed if name in bound]
        if sites:  # a fold reads a bound constant: where none came, nothing folds that did not before
            folded = _fold_bound_scalars(sites, order, namer, reads, bound, names)
            changed |= folded
            unseen |= folded
            sites = []
    return tree


def _forget_reads(node, reads):
    """Take the reads under `node`, which leaves the code, off the counts `reads`."""
    for name, count in traversal.load_counts(node).items():
        reads[name] -= count


def _fold_bound_scalars(sites, order, namer, reads, bound, names):
    """Replace operations on bound float64 or float32 constants (the names `bound`) and
    number constants by their value (computed by NumPy, as the generated code would),
    bound under a new name, nested operations innermost first, in the statements `sites`
    (those not in `order` have left the tree). True if anything changed. `reads` (the
    read counts) and `bound` follow; what `names` kept of a statement changed is dropped.

    The statements go in the order of a walk of the whole tree (`traversal.nodes`: the
    reverse of `order`), each with all it holds, so that the new names are numbered as
    that walk would number them."""
    changed = False
    if not any(reads.get(name) for name in bound):
        return changed  # every fold reads a bound constant
    placed = sorted({order[id(s)]: s for s in sites if id(s) in order}.items(), reverse=True, key=lambda p: p[0])
    inside = (0, 0)  # the places of the statements under the last one folded
    for (place, first), stmt in placed:
        if inside[0] <= place < inside[1]:
            continue  # folded with the statement holding it
        inside = (first, place)
        for s in traversal.statements(stmt):
            names.pop(id(s), None)
        for node in _nodes(stmt):
            values = node.__dict__
            for field in traversal.child_fields(type(node)):
                value = values.get(field)
                if type(value) is gast.BinOp or type(value) is gast.UnaryOp:
                    new = _folded(value, bound, namer, reads)
                    if new is not value:
                        setattr(node, field, new)
                        changed = True
    return changed


def _folded(node, bound, namer, reads):
    """The BinOp or UnaryOp `node` with its operations on bound constants folded,
    innermost first (in place), or the Name bound to its value where all of it folds."""
    changed = False
    for field in ("left", "right") if type(node) is gast.BinOp else ("operand",):
        part = getattr(node, field)
        if type(part) is gast.BinOp or type(part) is gast.UnaryOp:
            new = _folded(part, bound, namer, reads)
            changed |= new is not part
            setattr(node, field, new)
    if not changed and not _reads_bound(node, bound):
        return node
    new = _fold_bound(node, bound, namer)
    if new is None:
        return node
    _forget_reads(node, reads)
    reads[new.id] = reads.get(new.id, 0) + 1
    bound.add(new.id)
    return new


def _reads_bound(node, bound):
    """Whether an operand of `node` is a Name in `bound`."""
    if type(node) is gast.BinOp:
        return (type(node.left) is gast.Name and node.left.id in bound) or (
            type(node.right) is gast.Name and node.right.id in bound)
    return type(node.operand) is gast.Name and node.operand.id in bound


def _fold_bound(node, bound, namer):
    """A Name bound to the value of `node`, or None when it is not such an operation."""
    operands, op = ([node.left, node.right], type(node.op)) if isinstance(node, gast.BinOp) else ([node.operand], type(node.op))
    values = []
    for o in operands:
        if _number(o) and type(o.value) is not bool:
            values.append(o.value)
        elif isinstance(o, gast.Name) and o.id in bound:
            values.append(namer.helpers[o.id])
        else:
            return None
    fn = _FOLD.get(op)
    if fn is None or not any(type(v) in _BOUND_SCALARS for v in values):
        return None
    try:
        with np.errstate(all="raise"):
            value = fn(*values)
    except (ArithmeticError, ValueError, FloatingPointError):
        return None
    if type(value) not in _BOUND_SCALARS or not any(type(v) is type(value) for v in values):
        return None  # (NumPy 1 makes float32 times a Python float a float64: the seed's dtype changed)
    name = "SEED64" if type(value) is np.float64 else "SEED32"
    return gast.copy_location(gast.Name(namer.helper(name, value), gast.Load(), None, None), node)


_BOUND_SCALARS = (np.float64, np.float32)  # the bound constants folded (the seeds of kinds.py and their folds)


def _propagate_copies(stmts, reads, renamed, names):
    """Forward-substitute `a = b` into the reads of `a` that it reaches, when those are all.

    `reads` (the read counts) follows every change, though only at the end for `x = x`;
    `renamed` gets `(b, statement)` for each statement of `stmts` where reads became `b`.
    `names` keeps what `_reached_reads` finds of simple statements (their read Name nodes,
    whose renames it then sees, and stored names) for later calls: a statement whose
    stores or nodes change otherwise is dropped from it."""
    changed = False
    copies = []  # where `a = b` between names is; a rename below may make `b` another name
    for k, stmt in enumerate(stmts):
        cls = type(stmt)
        if cls in _BLOCKS:
            changed |= _propagate_copies(stmt.body, reads, renamed, names)
            changed |= _propagate_copies(stmt.orelse, reads, renamed, names)
        elif cls is gast.Assign and type(stmt.value) is gast.Name and _copied(stmt) is not None:
            copies.append(k)
    blocks = {}  # as `names`, for the blocks of `stmts`, whose statements may change from call to call
    for k in copies:
        a, b = _copied(stmts[k])
        if a == b:
            continue
        holders = []
        uses = _reached_reads(stmts, k, a, b, reads.get(a, 0), names, blocks, holders)
        if uses is None or len(uses) != reads.get(a, 0):
            continue  # `a` is read where this copy does not reach, or `b` changes first
        for n in uses:
            n.id = b
        renamed += [(b, s) for s in holders]
        reads[a] = 0
        reads[b] = reads.get(b, 0) + len(uses) - 1
        stmts[k] = syntax.pass_()
        changed = True
    kept, selves = [], []
    for s in stmts:
        cls = type(s)
        if cls is gast.Pass:
            continue
        pair = _copied(s) if cls is gast.Assign and type(s.value) is gast.Name else None
        if pair is not None:
            a, b = pair
            if a == b:
                selves.append(s)
                continue
            if kept and _is_single_store(kept[-1], b) and reads.get(b) == 1:
                kept[-1].targets[0].id = a  # t = e; s = t  ->  s = e
                names.pop(id(kept[-1]), None)
                reads[b] = 0
                changed = True
                continue
        kept.append(s)
    stmts[:] = kept or stmts[:1]
    for s in selves:
        if s is not stmts[0]:  # dropped `x = x`
            reads[s.value.id] -= 1
    return changed


_BLOCKS = (gast.If, gast.For, gast.While)


def _is_single_store(stmt, name):
    if type(stmt) is not gast.Assign or len(stmt.targets) != 1:
        return False
    target = stmt.targets[0]
    return type(target) is gast.Name and target.id == name


def _copied(stmt):
    """(a, b) when the Assign `stmt` is `a = b` between names (`a` may be `b`), else None."""
    targets, value = stmt.targets, stmt.value
    if len(targets) != 1 or type(value) is not gast.Name or type(targets[0]) is not gast.Name:
        return None
    return targets[0].id, value.id


def _is_copy(stmt):
    """`stmt` is `a = b` between different names."""
    names = _copied(stmt) if type(stmt) is gast.Assign else None
    return names is not None and names[0] != names[1]


def _reached_reads(stmts, k, a, b, total, names, blocks, holders):
    """The reads of `a` after `stmts[k]` (`a = b`) that still see `b`'s value there, or None;
    the statements of `stmts` holding them are appended to `holders`.

    None when `a` is read in a nested block that also assigns `a` or `b`. Reassigning
    `b = a` keeps `b`'s value, so it does not stop the copy. `names` (simple statements)
    and `blocks` cache each statement's read Name nodes and stored names (renaming a read
    keeps its node).
    """
    uses = []
    for later in stmts[k + 1 :]:
        if len(uses) == total:
            return uses  # every read is found: what follows cannot matter
        known = blocks if type(later) in _BLOCKS else names
        found = known.get(id(later))
        if found is None or found[0] is not later:
            found = known[id(later)] = (later, *_names_in(later))
        _, read, stores = found
        loads = None  # the reads of `a` here (most statements read a name or two: no list made)
        for n in read:
            if n.id == a:
                if loads is None:
                    loads = [n]
                else:
                    loads.append(n)
        if type(later) in _BLOCKS and (a in stores or b in stores):
            return None if loads else uses
        if loads:
            holders.append(later)
            uses += loads  # a simple statement reads before it stores
        if a in stores:
            return uses
        if b in stores and not (_is_copy(later) and later.value.id == a):
            return uses
    return uses


def _names_in(node):
    """(the Name nodes read under `node`, in no particular order; the names stored there)."""
    read, stored, stack, name_node, constant, load, ast_node = [], set(), [node], gast.Name, gast.Constant, gast.Load, gast.AST
    while stack:  # names and constants are read where they are met, not stacked
        n = stack.pop()
        for field in traversal.child_fields(type(n)):
            value = n.__dict__.get(field)
            for v in value if type(value) is list else (value,):
                kind = type(v)
                if kind is name_node:
                    if isinstance(v.ctx, load):
                        read.append(v)
                    else:
                        stored.add(v.id)
                    if v.annotation is not None:
                        stack.append(v)  # its annotation: judged under it
                elif kind is not constant and isinstance(v, ast_node):
                    stack.append(v)
    return read, stored


def _drop_dead(tree, reads, resolve, counts):
    """Drop assignments of pure values to names not in `reads`; `counts` (the read counts) follows.

    Returns (the statements dropped, whether that left a name unread). Unless it did,
    or other changes follow, another call would drop nothing: every assignment kept here
    has a read target or an impure value."""
    dropped = []
    tree.body = _kept(tree.body, reads, resolve, counts, dropped)
    unread = any(not counts[name] for s in dropped for name in traversal.add_loads(_read_by(s), set()))
    return dropped, unread


def _kept(stmts, reads, resolve, counts, dropped):
    """`stmts` without the dead assignments, in their blocks too (appended to `dropped`).
    A module-level function: a nested recursive one would be a reference cycle."""
    out, attempted = [], set()
    for s in stmts:
        cls = type(s)
        if cls is gast.Assign and type(s.value) is gast.Call and type(s.value.func) is gast.Name \
                and s.value.func.id == attempts.BEGIN:
            flag = attempts.flag(s)
            if flag is not None:
                attempted.add(flag)
        if cls is gast.If and type(s.test) is gast.Name and s.test.id in attempted:
            pass  # a statement of a `try` block: run for whether it raises, though nothing reads its value
        elif cls in _BLOCKS:
            s.body = _kept(s.body, reads, resolve, counts, dropped) or [syntax.pass_()]
            s.orelse = _kept(s.orelse, reads, resolve, counts, dropped)
            if cls is gast.If and _does_nothing(s.body) and _does_nothing(s.orelse) and _pure(s.test, resolve):
                _forget_reads(s.test, counts)  # `if c: pass elif d: pass`, left by branches with no adjoint work
                dropped.append(s)
                continue
            if (cls is gast.For and _does_nothing(s.body) and not s.orelse and type(s.target) is gast.Name
                    and s.target.id not in reads and _counts_only(s.iter, resolve)):
                _forget_reads(s.iter, counts)  # `for _ in range(n): pass`, left by a loop with no adjoint work
                dropped.append(s)
                continue
        elif (
            cls is gast.Assign
            and type(s.targets[0]) is gast.Name
            and s.targets[0].id not in reads
            and _pure(s.value, resolve)
        ):
            _forget_reads(s.value, counts)
            dropped.append(s)
            continue
        out.append(s)
    return out


def _read_by(dropped):
    """What the dropped statement read: its test, its loop's iterable, or its value."""
    kind = type(dropped)
    return dropped.test if kind is gast.If else dropped.iter if kind is gast.For else dropped.value


def _counts_only(value, resolve):
    """Whether `value` is `range(...)` of names and constants: iterating it does nothing."""
    return (type(value) is gast.Call and resolve(value.func) is builtins.range and not value.keywords
            and all(type(a) in (gast.Name, gast.Constant) for a in value.args))


def _does_nothing(stmts):
    return all(type(s) is gast.Pass for s in stmts)


def _pure(value, resolve):
    for n in _nodes(value):
        if isinstance(n, gast.Call):
            if any(isinstance(a, gast.Starred) for a in n.args) or not is_droppable_call(
                resolve(n.func), len(n.args), {k.arg for k in n.keywords}
            ):
                return False
        elif isinstance(n, (gast.NamedExpr, gast.Yield, gast.YieldFrom, gast.Await, gast.Lambda)):
            return False
    return True


_FOLD = {
    gast.Add: operator.add, gast.Sub: operator.sub, gast.Mult: operator.mul, gast.Div: operator.truediv,
    gast.Pow: operator.pow, gast.FloorDiv: operator.floordiv, gast.Mod: operator.mod,
    gast.Eq: operator.eq, gast.NotEq: operator.ne, gast.Lt: operator.lt, gast.LtE: operator.le,
    gast.Gt: operator.gt, gast.GtE: operator.ge, gast.USub: operator.neg, gast.UAdd: operator.pos,
}


def _fold_tree(node, reads, bound, sites, order, statement):
    """`node` with operations on number constants computed and `** 1` dropped, children
    first (as a `NodeTransformer` would); changed in place, or replaced (the result).

    Adds to `reads` the names loaded under `node` (not `node` itself), once per load:
    folding drops no name, so these are the read counts of the result. Appends to
    `sites` the innermost statement around each read of a name in `bound` (`statement`:
    the one around `node`), and gives each statement under `node` its place in `order`:
    id -> (its rank among them, children first, the rank of the first one it holds)."""
    values, cls = node.__dict__, type(node)
    name, constant, load, ast_node, attribute = gast.Name, gast.Constant, gast.Load, gast.AST, gast.Attribute
    is_statement = isinstance(node, gast.stmt)
    if is_statement:
        statement, first = node, len(order)
    for field in traversal.child_fields(cls):  # `ctx` and operators hold nothing to fold
        value = values.get(field)
        if type(value) is not list:
            kind = type(value)
            if kind is name:  # a leaf, unless annotated
                if isinstance(value.ctx, load):
                    reads[value.id] = reads.get(value.id, 0) + 1
                    if value.id in bound:
                        sites.append(statement)
                if value.annotation is None:
                    continue
            elif kind is attribute and type(value.value) is name and value.value.annotation is None:
                inner = value.value  # `np.sin`: nothing to fold, one name read (counted here, without a call)
                if isinstance(inner.ctx, load):
                    reads[inner.id] = reads.get(inner.id, 0) + 1
                    if inner.id in bound:
                        sites.append(statement)
                continue
            elif kind is constant or not isinstance(value, ast_node):
                continue
            values[field] = _fold_tree(value, reads, bound, sites, order, statement)
            continue
        for k, item in enumerate(value):  # as above, for each item of a list
            kind = type(item)
            if kind is name:
                if isinstance(item.ctx, load):
                    reads[item.id] = reads.get(item.id, 0) + 1
                    if item.id in bound:
                        sites.append(statement)
                if item.annotation is None:
                    continue
            elif kind is constant or not isinstance(item, ast_node):
                continue
            value[k] = _fold_tree(item, reads, bound, sites, order, statement)
    if is_statement:
        order[id(node)] = (len(order), first)
        return node
    if cls is gast.BinOp:
        if isinstance(node.op, gast.Pow) and _number(node.right) and node.right.value == 1 and type(node.right.value) is not bool:
            return node.left
        if isinstance(node.op, gast.Mult):  # c * (e - 0) -> c * e: the product makes it a float anyway
            for side in ("left", "right"):
                inner, other = getattr(node, side), node.right if side == "left" else node.left
                if _plus_zero(inner) and _number(other) and type(other.value) is float:
                    setattr(node, side, inner.left)
        if type(node.left) is constant and type(node.right) is constant:
            return _fold(node, [node.left, node.right], type(node.op))
        return node
    if cls is gast.UnaryOp:
        return _fold(node, [node.operand], type(node.op)) if type(node.operand) is constant else node
    if cls is gast.Compare and len(node.ops) == 1:
        return _fold(node, [node.left, node.comparators[0]], type(node.ops[0]))
    return node


def _fold(node, operands, op):
    fn = _FOLD.get(op)
    if fn is None or not all(_number(o) for o in operands):
        return node
    try:
        value = fn(*(o.value for o in operands))
    except (ArithmeticError, ValueError):
        return node
    if type(value) not in (int, float, bool) or (type(value) is not bool and abs(value) > 1e15):
        return node
    if type(value) is float and not math.isfinite(value):
        return node
    return gast.copy_location(syntax.const(value), node)


def _plus_zero(node):
    return (
        isinstance(node, gast.BinOp)
        and isinstance(node.op, (gast.Add, gast.Sub))
        and _number(node.right)
        and type(node.right.value) is not bool
        and node.right.value == 0
    )


def _number(node):
    return isinstance(node, gast.Constant) and type(node.value) in (int, float, bool)


def _nodes(node):
    """Every node under `node`, itself included, in no particular order (see `traversal.nodes`)."""
    return traversal.nodes(node)
