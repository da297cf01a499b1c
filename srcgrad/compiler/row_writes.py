"""Writes into the rows of a list of lists the function makes, spelled as a new row
stored whole, where no other name can see a row.

Before (user code):                          After:
    R = [[0.0] * n for _ in range(n)]            R = [[0.0] * n for _ in range(n)]
    R[i][j] = v                                  R_row = list(R[i])
                                                 R_row[j] = v
                                                 R[i] = R_row
    grid[i][j] += v                              grid_row = list(grid[i])
                                                 grid_row[j] += v
                                                 grid[i] = grid_row

The later passes differentiate the right-hand side: a write into a new list, then an
entry of `R` replaced (mutation.py undoes both). The rewrite is exact only where the row
`R[i]` is seen through `R` alone, since it replaces the row object instead of changing
it. So a name is rewritten only where (`_rows_unseen`):

- every binding is `R = [...]` (a display or a comprehension) whose rows are new lists
  (displays, comprehensions, `[0.0] * n`, `list(...)`, `sorted(...)`), and rows are
  added only as new lists (`R.append([...])`, `R[i] = [...]`);
- every other read keeps no reference to a row: `R[i][j]`, `len(R)`, `np.array(R)` and
  other NumPy functions, `zip(*R)`, `return R`; a row read as `R[i]` only where it
  is read at once (`sum(R[i])`, `R[i][a:b]`, `R[i] + [v]`, `for v in R[i]` with no write
  into `R` in its body); a loop `for row in R` (or over `enumerate(R)`, in a statement or a
  comprehension) whose `row` is read only so, inside it, and with no write into `R`;
- `R` is not a parameter, is read in no nested function, and each write's indices are
  names, literals and arithmetic (read twice).

Anything else (`a = R[0]`, `[[0.0] * n] * n`, `R.append(row)`, `max(R)`) keeps its
write, which mutation.py refuses as a change of a value a list holds. Runs right after
idioms.py; returns a new tree when it rewrites anything, the same tree otherwise.
"""

import builtins

import gast

from . import syntax, traversal
from .idioms import PLAIN, keeps_no_reference, parents_of
from .naming import Namer
from .respelling import respell_blocks
from .scope import dotted_parts, lookup_path


def run(program):
    """`program.tree` with each write `R[i][j] = v` / `R[i][j] op= v` into a list of
    lists whose rows no other name sees spelled as a new row stored whole."""
    if not any("][" in line for line in program.source_lines):
        return program.tree
    writes = [s for s in traversal.statements(program.tree) if _row_write(s) is not None]
    if not writes:
        return program.tree
    if lookup_path(["list"], program) is not builtins.list:
        return program.tree
    names = {_row_write(s)[0] for s in writes}
    names = {n for n in names if _rows_unseen(n, program)}
    if not names:
        return program.tree
    tree = syntax.copy(program.tree)
    namer = Namer.for_tree(tree)
    namer.taken |= set(program.globals) | set(program.bound)
    respell_blocks(tree, lambda s: _respelled(s, names, namer), into_defs=True)
    return tree


def _row_write(stmt):
    """(R, i, j) of the statement `R[i][j] = v` or `R[i][j] op= v` with indices of names,
    literals and arithmetic and no `:=` in it, else None."""
    if type(stmt) is gast.Assign and len(stmt.targets) == 1:
        target = stmt.targets[0]
    elif type(stmt) is gast.AugAssign:
        target = stmt.target
    else:
        return None
    if not (type(target) is gast.Subscript and type(target.value) is gast.Subscript
            and type(target.value.value) is gast.Name):
        return None
    i, j = target.value.slice, target.slice
    if not all(isinstance(n, PLAIN) for index in (i, j) for n in traversal.walk(index)):
        return None
    if any(type(n) is gast.NamedExpr for n in traversal.walk(stmt)):
        return None
    return target.value.value.id, i, j


def _respelled(s, names, namer):
    """`Z[i][j] = v` (or `op=`) of a list of lists `Z` in `names` as the row's copy, written
    and stored back; None for any other statement."""
    found = _row_write(s)
    if found is None or found[0] not in names:
        return None
    holder, i, j = found
    row = namer.fresh(f"{holder}_row")
    copied = syntax.assign(syntax.name(row, store=True), syntax.call("list", [
        syntax.subscript(syntax.name(holder), syntax.copy(i))]))
    if type(s) is gast.Assign:
        written = syntax.assign(syntax.subscript(syntax.name(row), j, store=True), s.value)
    else:
        written = syntax.located(gast.AugAssign(target=syntax.subscript(syntax.name(row), j, store=True), op=s.op,
                                                value=s.value), s)
    stored = syntax.assign(syntax.subscript(syntax.name(holder), syntax.copy(i), store=True), syntax.name(row))
    return [copied, written, stored]


def _rows_unseen(name, program):
    """Whether no name but `name` can see a row of the list of lists `name` (module doc)."""
    tree = program.tree
    params = {a.id for a in tree.args.args + tree.args.kwonlyargs + tree.args.posonlyargs}
    if name in params or name in program.cells:
        return False
    parents = parents_of(tree)
    for node in traversal.walk(tree):
        if isinstance(node, (gast.FunctionDef, gast.Lambda)) and node is not tree and any(
                type(n) is gast.Name and n.id == name for n in traversal.walk(node)):
            return False
        if isinstance(node, (gast.Global, gast.Nonlocal)) and name in node.names:
            return False
        if type(node) is gast.Name and node.id == name and not _use_keeps_rows(node, parents, program):
            return False
    return True


def _use_keeps_rows(node, parents, program):
    """Whether the occurrence `node` of the list of lists leaves its rows seen through it alone."""
    parent = parents.get(id(node))
    if isinstance(node.ctx, gast.Store):
        return type(parent) is gast.Assign and parent.targets == [node] and _new_rows(parent.value, program)
    if not isinstance(node.ctx, gast.Load):
        return False
    if type(parent) is gast.Return:
        return True
    if type(parent) is gast.Attribute and parent.attr == "append":
        call = parents.get(id(parent))
        return (type(call) is gast.Call and call.func is parent and type(parents.get(id(call))) is gast.Expr
                and len(call.args) == 1 and not call.keywords and _new_row(call.args[0], program))
    loop = _loop_over(node, parents, program)
    if loop is not None:
        return _loop_reads_rows_at_once(loop, node.id, parents, program)
    if type(parent) is gast.Starred:
        call = parents.get(id(parent))
        return type(call) is gast.Call and _means(call.func, program) is builtins.zip
    if type(parent) is gast.Call and node in parent.args:
        meaning = _means(parent.func, program)
        return meaning is builtins.len or getattr(meaning, "__module__", None) in ("numpy", "numpy.core.fromnumeric")
    if type(parent) is gast.Subscript and parent.value is node:
        if isinstance(parent.ctx, gast.Store):
            above = parents.get(id(parent))
            return type(above) is gast.Assign and above.targets == [parent] and _new_row(above.value, program)
        if isinstance(parent.ctx, gast.Load) and type(parent.slice) is not gast.Slice:
            return _row_read_at_once(parent, parents, program)
    return False


def _row_read_at_once(row, parents, program, written=True):
    """Whether the read `row` (`R[i]`, or a loop's `row`) keeps no reference to the row it
    reads: an entry read (`R[i][j]`; written too where `written`: the target of a write
    this pass rewrites), or a read idioms.keeps_no_reference accepts, a loop over it
    writing no row."""
    parent = parents.get(id(row))
    if type(parent) is gast.Subscript and parent.value is row:
        return written or isinstance(parent.ctx, gast.Load)
    if type(parent) is gast.For and parent.iter is row:
        return not _writes_rows(parent)
    return keeps_no_reference(row, parents, program)


def _loop_over(node, parents, program):
    """(loop, row) for the For or comprehension whose iterable is `node` (`for row in R`)
    or `enumerate(node)` (`for i, row in enumerate(R)`), `row` a plain name; else None."""
    parent = parents.get(id(node))
    if type(parent) is gast.Call and parent.args == [node] and not parent.keywords and _means(
            parent.func, program) is builtins.enumerate:
        loop = parents.get(id(parent))
        if type(loop) in (gast.For, gast.comprehension) and loop.iter is parent:
            target = loop.target
            if type(target) is gast.Tuple and len(target.elts) == 2 and type(target.elts[1]) is gast.Name:
                return loop, target.elts[1].id
        return None
    if type(parent) in (gast.For, gast.comprehension) and parent.iter is node and type(parent.target) is gast.Name:
        return parent, parent.target.id
    return None


def _loop_reads_rows_at_once(found, holder, parents, program):
    """Whether the loop variable `row` of `found` = (loop, row) is read only inside the
    loops over the list binding it, each read keeping no reference to the row, bound by
    nothing else, and the loop (a statement) writes no row."""
    loop, row = found
    if type(loop) is gast.For and _writes_rows(loop):
        return False
    loops = [found[0] for found in (_loop_over(n, parents, program) for n in traversal.walk(program.tree)
                                    if type(n) is gast.Name and n.id == holder and isinstance(n.ctx, gast.Load))
             if found is not None and found[1] == row]
    targets = {id(n) for each in loops for n in traversal.walk(each.target)}
    inside = {id(n) for each in loops for n in traversal.walk(
        parents.get(id(each)) if type(each) is gast.comprehension else each)}
    for n in traversal.walk(program.tree):
        if type(n) is not gast.Name or n.id != row:
            continue
        if isinstance(n.ctx, gast.Store):
            if id(n) not in targets:
                return False
        elif id(n) not in inside or not _row_read_at_once(n, parents, program, written=False):
            return False
    return True


def _writes_rows(loop):
    """Whether a row write `R[i][j] = v` (into any name) is among the statements of `loop`."""
    return any(_row_write(s) is not None for s in traversal.statements(loop))


def _means(func, program):
    parts = dotted_parts(func)
    if parts is None or parts[0] in traversal.names_stored(program.tree):
        return None
    return lookup_path(parts, program)


def _new_rows(value, program):
    """Whether `value` makes a new list whose rows are new lists, each its own."""
    if type(value) is gast.List:
        return all(_new_row(e, program) for e in value.elts)
    if type(value) is gast.ListComp:
        return _new_row(value.elt, program)
    return False


def _new_row(value, program):
    """Whether `value` makes a new list: a display, a comprehension, `[...] * n`, `list(...)`
    or `sorted(...)`."""
    if type(value) in (gast.List, gast.ListComp):
        return True
    if type(value) is gast.BinOp and type(value.op) is gast.Mult:
        return gast.List in (type(value.left), type(value.right))
    if type(value) is gast.Call:
        return _means(value.func, program) in (builtins.list, builtins.sorted)
    return False
