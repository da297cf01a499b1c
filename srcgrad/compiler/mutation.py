"""In-place changes: which arrays and lists the function changes, and whether srcgrad can
differentiate through them.

A *change* is `y[index] = v`, `y.append(v)` or `y.pop(i)` (`v = y.pop(i)`; `y` a list the
function makes, `i` a constant) on a local name `y` (its *base*). Reverse
mode undoes each change in the backward pass (so every value the backward pass reads is
the value the forward pass saw), and moves the adjoint of the changed part to `v`. That
is exact when the changed object is nobody else's:

- a differentiated base is made inside the function by an operation that returns a new
  object (`np.zeros`, `x.copy()`, `a * b`, `[]`, ...), not a parameter, a plain copy of
  another name or a view (`x[1:]`, `x.T`, `x.reshape(...)`), or at least the object each
  change reaches is (`row = []` before it, in its loop: `for row in rows:` elsewhere may
  then name an entry);
- every differentiated alias of it (a view, a plain copy, a container holding it) is
  used only in the statements right after it is made, before the next change, or is
  made where no later change reaches the object it names (a list appended to `rows`
  after its last change, as a nested comprehension builds a list of lists).

Anything else is a `NotDifferentiableError` at the change's line, saying what to write
instead. The pass returns `{base: names that may share its memory}`; it never changes the tree.
"""

import gast

from ..errors import NotDifferentiableError
from . import argument_writes, holders, printing, statement_blocks, syntax, traversal
from .views import CARRIERS, VIEW_METHODS

CHANGING_METHODS = {"append"}  # the in-place methods reverse mode can undo (and `pop`: see `list_pops`)


def changes(statements, calls):
    """The change statements among `statements`: [(statement, base name)]."""
    out = []
    pops = None
    for node in statements:
        if isinstance(node, gast.Assign) and isinstance(node.targets[0], gast.Subscript):
            value = node.targets[0].value
            if isinstance(value, gast.Name):
                out.append((node, value.id))
        elif isinstance(node, (gast.Expr, gast.Assign)) and isinstance(node.value, gast.Call):
            callee = calls.get(node.value)
            if callee is None or callee.kind != "method":
                continue
            if callee.path in CHANGING_METHODS and isinstance(node, gast.Expr):
                out.append((node, callee.receiver))
            elif callee.path == "pop":
                pops = list_pops(statements, calls) if pops is None else pops
                if id(node) in pops:
                    out.append((node, callee.receiver))
    return out


def popped(node, calls):
    """`(ys, i)` for the statement `v = ys.pop(i)` or `ys.pop(i)`: `i` is the index, -1
    without one, None when it is not a constant integer. None for any other statement."""
    if not (isinstance(node, (gast.Assign, gast.Expr)) and isinstance(node.value, gast.Call)):
        return None
    if isinstance(node, gast.Assign) and not isinstance(node.targets[0], gast.Name):
        return None
    callee = calls.get(node.value)
    if callee is None or callee.kind != "method" or callee.path != "pop":
        return None
    args = node.value.args
    if node.value.keywords or len(args) > 1:
        return callee.receiver, None
    return callee.receiver, (_constant_int(args[0]) if args else -1)


def _constant_int(node):
    """The value of the integer literal `node` (`2`, `-2`), or None."""
    sign = 1
    if isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.USub):
        sign, node = -1, node.operand
    if syntax.is_const(node) and type(node.value) is int:
        return sign * node.value
    return None


def list_pops(statements, calls):
    """{id(statement): (base, index)} of the pops that srcgrad undoes: `ys.pop(i)` with a
    constant `i` (or none) of a list `ys` that every assignment makes new (`[...]`,
    `list(...)`). `statements`: all of the function's, in order."""
    out = {}
    assigns = None
    for node in statements:
        found = popped(node, calls)
        if found is None or found[1] is None:
            continue
        assigns = _assigns(statements) if assigns is None else assigns
        if _makes_lists(found[0], assigns, calls):
            out[id(node)] = found
    return out


def _holds_entries(name, assigns, calls):
    """Whether every assignment to `name` makes a new list or dict (`[...]`, `{...}`,
    `list(...)`, `dict(...)`): its entries are objects of their own, not views of it, and
    a write `name[k] = v` replaces one without changing it."""
    defs = [a.value for a in assigns if a.targets[0].id == name]
    return bool(defs) and all(
        isinstance(v, (gast.List, gast.Dict))
        or (isinstance(v, gast.Call) and getattr(calls.get(v), "obj", None) in (list, dict)) for v in defs)


def _makes_lists(name, assigns, calls):
    """Whether every assignment to `name` makes a new list: a display or `list(...)`."""
    defs = [a.value for a in assigns if a.targets[0].id == name]
    return bool(defs) and all(
        isinstance(v, gast.List) or (isinstance(v, gast.Call) and getattr(calls.get(v), "obj", None) is list)
        for v in defs)


def dict_bases(statements, calls):
    """Changed bases that are dicts (every assignment makes one): a write may add a key,
    so its undo may have to remove it again. `statements`: all of the function's, in order."""
    found = changes(statements, calls)
    if not found:
        return set()
    assigns = _assigns(statements)
    return {base for _, base in found if _made_as_dict(base, assigns, calls, set())}


def _made_as_dict(name, assigns, calls, seen):
    """Whether every assignment to `name` makes a dict: a display, `dict(...)`, or a name
    so made (`xs, hs = {}, {}` is `_t1 = {}; hs = _t1` in ANF)."""
    if name in seen:
        return False
    seen.add(name)
    defs = [a.value for a in assigns if a.targets[0].id == name]
    return bool(defs) and all(
        isinstance(v, gast.Dict) or (isinstance(v, gast.Call) and getattr(calls.get(v), "obj", None) is dict)
        or (isinstance(v, gast.Name) and _made_as_dict(v.id, assigns, calls, seen)) for v in defs)


def _reads_base(value, base, calls, holds_entries=False):
    """Whether the simple expression `value` may share memory with the name `base`."""
    if isinstance(value, gast.Name):
        return value.id == base
    if isinstance(value, gast.Subscript) and holds_entries:
        return False  # an entry of a list or dict, not a view: changing the container leaves it alone
    if isinstance(value, (gast.Subscript, gast.Attribute)):
        if isinstance(value.value, (gast.Tuple, gast.List, gast.Dict)):  # `[a, b][0]`: an entry it holds
            return _reads_base(value.value, base, calls)
        return syntax.is_name(value.value, base)
    if isinstance(value, (gast.Tuple, gast.List)):
        return any(syntax.is_name(e, base) for e in value.elts)
    if isinstance(value, gast.Dict):
        return any(syntax.is_name(e, base) for e in value.values)
    if isinstance(value, gast.Call):
        callee = calls.get(value)
        if callee is None:
            return False
        if callee.kind == "method":
            return callee.receiver == base and callee.path in VIEW_METHODS
        if callee.kind == "function" and holders.is_view_function(callee.obj):
            return any(syntax.is_name(a, base) for a in value.args)
    return False


def _may_view(value, base, calls, holds_entries=False):
    """Whether the simple expression `value` may share memory with the name `base`: as
    `_reads_base` sees it, or a call not known to make a new object (a user function, an
    unknown method, `x.astype(t, copy=False)`, a function of views.MORE_VIEWS) that is
    given `base`, or `list(base)` and `dict(base)`, new containers of base's entries (an
    array's rows are views of it)."""
    if _reads_base(value, base, calls, holds_entries):
        return True
    if not isinstance(value, gast.Call):
        return False
    callee = calls.get(value)
    if callee is not None and callee.kind == "function" and (
            callee.obj in (list, dict) or holders.may_return_view(callee.obj, value)):
        # a new list or dict holds the entries it is given (an array's rows are views of it); a function
        # of MORE_VIEWS (`np.broadcast_arrays`, `sliding_window_view`, `np.einsum('ii->i', a)`) may return views
        return any(syntax.is_name(a, base) for a in list(value.args) + [k.value for k in value.keywords])
    if holders.fresh_value(value, calls):
        return False
    if callee is not None and callee.kind == "method" and callee.path == "pop":
        return False  # an entry the container gives up (of a list, dict or set), not a view of it
    given = list(value.args) + [k.value for k in value.keywords]
    if callee is not None and holders.within(callee.obj, CARRIERS) and given[:1] and not isinstance(given[0], gast.Starred):
        return syntax.is_name(given[0], base)  # srcgrad's adjoint helpers: only the cotangent they carry
    if isinstance(value.func, gast.Attribute):
        given.append(value.func.value)
    return any(syntax.is_name(a, base) for a in given)


def _makes_new(value, assigns, reads, calls, tree):
    """Whether an assignment of `value` gives its target an object nobody else holds: a new
    one, or a temporary made new just for it (ANF's `t = y * x; y = t`), also one filled
    by writes of its entries first (ANF's `items = {}`, `items[k] = v` in a loop, then
    `params = items` for `params = {k: ... for k, v in params.items()}`)."""
    if holders.fresh_value(value, calls):
        return True
    if not isinstance(value, gast.Name) or value.id not in reads:
        return False
    defs = [a.value for a in assigns if a.targets[0].id == value.id]
    if len(defs) != 1 or not holders.fresh_value(defs[0], calls):
        return False
    return reads[value.id] == 1 + sum(1 for s in traversal.statements(tree) if _fills(s, value.id))


def _fills(stmt, name):
    """Whether `stmt` is `name[k] = v` or `name.append(v)` (reading `name` once, `v` and
    `k` not reading it)."""
    if isinstance(stmt, gast.Assign) and isinstance(stmt.targets[0], gast.Subscript):
        target = stmt.targets[0]
        return syntax.is_name(target.value, name) and name not in traversal.names_read([target.slice, stmt.value])
    if isinstance(stmt, gast.Expr) and isinstance(stmt.value, gast.Call) and isinstance(stmt.value.func, gast.Attribute):
        call = stmt.value
        return (call.func.attr == "append" and syntax.is_name(call.func.value, name)
                and name not in traversal.names_read(call.args + [k.value for k in call.keywords]))
    return False


def _assigns(statements):
    return [n for n in statements if isinstance(n, gast.Assign) and isinstance(n.targets[0], gast.Name)]


def run(tree, statements, program, params, activity, calls, element_checks=None):
    """Check the changes of the ANF `tree` (`statements`: all of its statements, in order);
    returns {base: frozenset of possible aliases}.

    With `element_checks` (a dict), an alias still in use at a change that every
    assignment makes by reading an entry (`v = y[i]`) is not refused: a number read from
    an array or list is a copy, which no change reaches. The dict gets
    {id(that assignment): {alias: (y, the located error)}}: the generated code checks
    right after it that the alias is no array or list sharing memory with `y`
    (runtime.refuse_shared), and raises the error where it is (a row of a matrix)."""
    argument_writes.refuse(statements, program, activity.varied, calls)
    _refuse_attribute_writes(statements, program, activity)
    _refuse_pops(statements, program, params, activity, calls)
    found = changes(statements, calls)
    if not found:
        return {}
    assigns = _assigns(statements)
    bases = {}
    appends = _append_pairs(found, calls)
    stores = None
    for stmt, base in found:
        group = _grown({base}, assigns, calls, _reads_base, appends)
        if base not in activity.varied:  # unchecked: its undo must reach every name of its memory
            if stores is None:
                stores = [(n.targets[0].value.id, n.value) for n in statements if isinstance(n, gast.Assign)
                          and isinstance(n.targets[0], gast.Subscript) and isinstance(n.targets[0].value, gast.Name)]
            pairs = [(item.id, holder) for item, holder in appends]
            group = holders.sharing_both_ways(group, assigns, pairs, stores, lambda v, n: _may_view(v, n, calls))
        bases[base] = frozenset(group)
    checked = [(stmt, base) for stmt, base in found if base in activity.varied]
    if checked:
        reads, blocks = traversal.load_counts(tree), statement_blocks.Blocks(tree)
        for stmt, base in checked:
            _check_base(stmt, base, bases[base], tree, program, params, assigns, calls, activity, found, reads, blocks,
                        element_checks)
    return bases


def _append_pairs(found, calls):
    """(item, list) for each change `list.append(item)` of `found` appending a name."""
    return [(s.value.args[0], calls[s.value].receiver) for s, _ in found
            if isinstance(s, gast.Expr) and calls[s.value].path == "append" and len(s.value.args) == 1
            and isinstance(s.value.args[0], gast.Name)]


def _refuse_attribute_writes(statements, program, activity):
    """Refuse `obj.attr[i] = v` (an object's array or list, which the function does not
    make, changed in place) where the statement reads a differentiated value: later reads
    of `obj.attr` would see `v` with no path back to it."""
    for node in statements:
        if not isinstance(node, gast.Assign) or not isinstance(node.targets[0], gast.Subscript):
            continue
        holder = node.targets[0].value
        while isinstance(holder, gast.Subscript):
            holder = holder.value
        if not isinstance(holder, gast.Attribute) or not activity.varied.intersection(traversal.add_loads(node, set())):
            continue
        spelled, attribute = program.text(node).strip() or printing.unparse(node).strip(), printing.unparse(holder).strip()
        raise program.error(
            node, f"`{spelled}` writes a differentiated value into `{attribute}`, an attribute that `{program.name}` "
            f"does not make, in place; srcgrad differentiates in-place changes of arrays and lists made inside the "
            f"function: change a copy (`{holder.attr} = {attribute}.copy()`) and return it, or build a new value",
            NotDifferentiableError,
        )


def _refuse_pops(statements, program, params, activity, calls):
    """Refuse each `ys.pop(...)` of a differentiated `ys` that `list_pops` does not accept."""
    accepted = None
    for node in statements:
        found = popped(node, calls)
        if found is None or found[0] not in activity.varied:
            continue
        accepted = list_pops(statements, calls) if accepted is None else accepted
        if id(node) in accepted:
            continue
        base, what, name = found[0], program.text(node).strip(), program.name
        made = [a for a in _assigns(statements) if a.targets[0].id == base]
        if base in params and not made:
            message = (f"`{what}` removes an entry of the argument `{base}` in place (in `{name}`); srcgrad "
                       f"differentiates `.pop()` of lists made inside the function: copy it first "
                       f"(`{base} = list({base})`)")
        elif not _makes_lists(base, made, calls):
            where = f" (line {program.line(made[0])}: `{program.text(made[0]).strip()}`)" if made else ""
            message = (f"`{what}` removes an entry of `{base}`, which is not always a list made inside `{name}`"
                       f"{where}; srcgrad differentiates `.pop()` only of lists that the function makes with "
                       f"`[...]` or `list(...)`: build `{base}` that way, or read the entry instead of removing it")
        else:
            message = (f"`{what}` removes an entry of `{base}` at an index that is not an integer literal (in "
                       f"`{name}`); srcgrad differentiates `{base}.pop()` and `{base}.pop(i)` with a literal `i` "
                       f"(`{base}.pop(0)`, `{base}.pop(-2)`): write the index as a literal, or build a new list "
                       f"without the entry (`{base} = {base}[:k] + {base}[k + 1:]`)")
        raise program.error(node, message, NotDifferentiableError)


def _check_base(stmt, base, group, tree, program, params, assigns, calls, activity, found, reads, blocks,
                element_checks=None):
    """Refuse the change `stmt` of `base` (aliases: `group`) where the gradient would be
    wrong, or leave it to a check when the derivative runs (`element_checks`: see `run`).
    `found`: all the changes; `reads`: the tree's load counts; `blocks`: its statement_blocks.Blocks."""
    what = program.text(stmt).strip()
    if base in params:
        raise program.error(
            stmt, f"`{what}` changes the argument `{base}` in place (in `{program.name}`); srcgrad "
            f"differentiates in-place changes of arrays and lists made inside the function: copy it "
            f"first (`{base} = {base}.copy()`) or build a new value", NotDifferentiableError,
        )
    if not any(a.targets[0].id == base for a in assigns):
        loop = next((n for n in traversal.walk(tree) if isinstance(n, gast.For)
                     and base in {t.id for t in traversal.walk(n.target) if isinstance(t, gast.Name)}), None)
        if loop is not None:
            iterated = printing.unparse(loop.iter).strip()
            raise program.error(
                stmt, f"`{what}` changes in place `{base}`, the loop variable of `for ... in {iterated}` (line "
                f"{program.line(loop)}), an entry of what the loop reads (in `{program.name}`); srcgrad differentiates "
                f"in-place changes of arrays, lists and dicts the function makes and names itself: store a new entry "
                f"instead, looping over the positions (`for i in range(len(...))`, then `xs[i] = xs[i] + [v]` or "
                f"`ds[i] = {{**ds[i], 'k': v}}`)", NotDifferentiableError,
            )
        raise program.error(
            stmt, f"`{what}` changes `{base}`, which `{program.name}` does not make, in place; srcgrad "
            f"differentiates in-place changes of arrays and lists made inside the function: make a new "
            f"one (`{base}_local = {base}.copy()`) and change that", NotDifferentiableError,
        )
    for a in assigns:
        if (a.targets[0].id == base and not _makes_new(a.value, assigns, reads, calls, tree)
                and not blocks.changes_own(stmt, base, calls) and not _slice_of_a_list(a.value, assigns, calls)):
            holder = _entry_of_a_dict(a.value, assigns, calls)
            if holder is not None:
                key = a.value.slice if isinstance(a.value, gast.Subscript) else a.value.args[0]
                key = printing.unparse(key).strip() if isinstance(key, gast.Constant) else "k"  # not an ANF temporary
                entry = f"{holder}[{key}]"
                read = entry if isinstance(a.value, gast.Subscript) else f"{holder}.get({key}, [])"
                raise program.error(
                    stmt, f"`{what}` changes in place a value (a list or an array) held by the dict `{holder}` (in "
                    f"`{program.name}`), which srcgrad does not differentiate: build it under a name of its own and "
                    f"store it when it is complete (`items = []`, `items.append(v)`, then `{entry} = items`), or store a "
                    f"new value (`{entry} = {read} + [v]` for a list, `{entry} = {entry} + v` for an array)",
                    NotDifferentiableError,
                )
            kind = _made_by_class(a.value, calls)
            if kind is not None:
                raise program.error(
                    stmt, f"`{what}` changes `{base}` in place, a `{kind}` (line {program.line(a)}: "
                    f"`{program.text(a).strip()}`; in `{program.name}`); srcgrad differentiates in-place changes of "
                    f"the lists, dicts and arrays a function makes, not of other objects: use a list (`{base} = []`, "
                    f"`{base}.append(v)`, `{base}.pop(0)` or `{base} = {base}[-k:]` to keep the last k)",
                    NotDifferentiableError,
                )
            holder = _entry_of_a_list(a.value, assigns, calls)
            if holder is not None:
                taken = "" if program.line(a) == program.line(stmt) else (
                    f"taken from it at line {program.line(a)}: `{program.text(a).strip()}`; ")
                raise program.error(
                    stmt, f"`{what}` changes in place a value (a list or an array) held by the list `{holder}` "
                    f"({taken}in `{program.name}`), "
                    f"which srcgrad does not differentiate where another name or entry may hold the same row: "
                    f"`{holder}[i][j] = v` is differentiated where `{holder}` is made as a list of new lists "
                    f"(`[[0.0] * n for _ in range(n)]`) and every other read of a row reads it at once (`{holder}[i][j]`, "
                    f"`sum({holder}[i])`, `for row in {holder}` with no write inside), not `a = {holder}[i]`, "
                    f"`[row] * n`, `{holder}.append(row)` or `list({holder})`; else make `{holder}` a NumPy array and "
                    f"write `{holder}[i, j] = ...`", NotDifferentiableError,
                )
            made = "" if program.line(a) == program.line(stmt) else (
                f"it is made at line {program.line(a)}: `{program.text(a).strip()}`; ")
            raise program.error(
                stmt, f"`{what}` changes an array in place that may share memory with another value "
                f"({made}in `{program.name}`); "
                f"write into the original array directly (`Z[i, j] = ...` rather than `Z[i][j] = ...`), "
                f"or, if a separate array is meant, copy it first with `.copy()`",
                NotDifferentiableError,
            )
    changed = [(s, b, blocks.fresh_before(s, b, calls)) for s, b in found if b in group]
    listed = any(b == base and not (isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Subscript))
                 for s, b in found)  # appended to or popped from: a list
    statements = list(traversal.statements(tree))
    seen = _with_hidden_views(group, assigns, calls, base, _append_pairs(found, calls), statements, listed)
    for alias in sorted(seen - {base}):
        if not activity.is_active(alias):
            continue
        holds_only = False  # `alias` is a list that holds a member of the group, and no other name of it
        if alias in group:
            defs = [a for a in assigns if a.targets[0].id == alias and any(_reads_base(a.value, b, calls) for b in group)]
            appended = _appends_into(alias, group, found, calls)
            holds_only = bool(appended) and not defs
            defs += appended
        else:  # a hidden view (`_with_hidden_views`)
            defs = [a for a in assigns if a.targets[0].id == alias and any(_may_view(a.value, b, calls) for b in seen)]
            defs = defs or [a for a in assigns if a.targets[0].id == alias and set(traversal.names_read(a.value)) & seen]
            defs += [n for n in statements if isinstance(n, gast.Assign) and isinstance(n.targets[0], gast.Subscript)
                     and syntax.is_name(n.targets[0].value, alias) and set(traversal.names_read(n.value)) & seen]
            defs += [c for c, b in found if b == alias and isinstance(c, gast.Expr)
                     and set(traversal.names_read(c.value)) - {alias} & seen]  # `alias.append(member)`
        # a change of an object made (fresh) after the alias was taken cannot reach the alias, and a
        # change of a list that only holds the object (an append to it) leaves the object alone
        changed_stmts = [s for s, b, fresh in changed if not (holds_only and b == alias)
                         and (fresh is None or not defs or any(statement_blocks.between(d, fresh, s, blocks) for d in defs))]
        if changed_stmts and _copies_before_replacing(defs, changed, changed_stmts, assigns, calls):
            continue
        if changed_stmts and statement_blocks.handed_over(defs, alias, changed, changed_stmts, tree, blocks):
            continue
        alias_reads = [n for n in traversal.walk(tree) if isinstance(n, gast.Name) and n.id == alias and isinstance(n.ctx, gast.Load)]
        if not changed_stmts or (len(defs) == 1 and statement_blocks.used_before_change(defs[0], alias, alias_reads, changed_stmts, blocks)):
            continue
        if element_checks is not None and defs and not holds_only and all(_reads_an_entry(d, alias) for d in defs):
            for d in defs:
                element_checks.setdefault(id(d), {})[alias] = (d.value.value.id, _entry_shared(program, d, alias, stmt))
            continue
        if holds_only:
            shared = (f"line {program.line(defs[0])} (`{program.text(defs[0]).strip()}`) puts into `{alias}` an "
                      "object that")
        elif defs:
            shared = (f"line {program.line(defs[0])} (`{program.text(defs[0]).strip()}`) makes another name or a "
                      "view of an array, list or dict that")
        else:
            shared = f"`{alias}` holds an array (appended to it or built from it) that"
        raise program.error(
            stmt, f"{shared} line {program.line(stmt)} (`{program.text(stmt).strip()}`) changes in place while "
            f"the first is still in use (in `{program.name}`); srcgrad cannot tell which of them the gradient "
            "belongs to: copy it (`.copy()`), or index the original array directly "
            "(`Z[i, j] = ...` rather than `Z[i][j] = ...`)", NotDifferentiableError,
        )


def element_check_statements(checks, refuse, at):
    """The statements after `v = y[i]` (`at`) that `run` asks for in `checks` ({alias: (y,
    error)}): `refuse(v, y, message, file, line)`, `refuse` the Name of
    runtime.refuse_shared, in the order of the aliases' names."""
    return [syntax.located(syntax.expr(syntax.call(syntax.copy(refuse), [
        syntax.name(alias), syntax.name(y), *syntax.refusal_arguments(error)])), at)
        for alias, (y, error) in sorted(checks.items())]


def _reads_an_entry(d, alias):
    """Whether `d` is `alias = y[index]` of the name `y` with an index that may pick one
    entry: no slice, `None` or `...` in it (those surely make a view of an array)."""
    if not (isinstance(d, gast.Assign) and syntax.is_name(d.targets[0], alias) and isinstance(d.value, gast.Subscript)
            and isinstance(d.value.value, gast.Name)):
        return False
    return not any(isinstance(n, gast.Slice) or (isinstance(n, gast.Constant) and (n.value is None or n.value is ...))
                   for n in traversal.walk(d.value.slice))


def _entry_shared(program, d, alias, stmt):
    """The error of the check after `d` (`alias = y[index]`), raised where the entry read
    shares memory with `y` (a row, a slice, an array a list holds), which the change
    `stmt` then changes while `alias` is still in use."""
    y = d.value.value.id
    what = program.text(d).strip()
    return program.error(
        d, f"`{what}` ({program.filename}, line {program.line(d)}) makes `{alias}` a part of `{y}` that shares its "
        f"memory (a row or a slice of an array, or an array or list that a list holds), which line "
        f"{program.line(stmt)} (`{program.text(stmt).strip()}`) changes in place while `{alias}` is still in use "
        f"(in `{program.name}`); srcgrad cannot tell which of them the gradient belongs to: copy it "
        f"(`.copy()`), or index the original array directly (`{y}[i, j]`) where `{alias}` is read",
        NotDifferentiableError)


def _copies_before_replacing(defs, changed, changed_stmts, assigns, calls):
    """Whether every definition of an alias copies a container's entries into a new one
    (`vs = list(d.values())`, `tuple(...)`, `sorted(...)`, `dict(...)`) and every change in
    `changed_stmts` replaces an entry of a list or dict the function makes (`d[k] = v`,
    `xs.append(v)`): such a change leaves the copy as it was."""
    copying = (list, tuple, sorted, dict)
    if not defs or not all(isinstance(d, gast.Assign) and isinstance(d.value, gast.Call)
                           and getattr(calls.get(d.value), "obj", None) in copying for d in defs):
        return False
    bases = {id(s): b for s, b, _ in changed}
    return all(_holds_entries(bases[id(s)], assigns, calls) for s in changed_stmts)


def _entry_of_a_list(value, assigns, calls):
    """The name `rows` when `value` reads an entry of it (`rows[i]`) and every assignment
    makes `rows` a list (a display, a comprehension, `[...] * n`, `list(...)`), else None."""
    if isinstance(value, gast.Subscript) and isinstance(value.value, gast.Name):
        defs = [a.value for a in assigns if a.targets[0].id == value.value.id]
        if defs and all(_a_new_list(v, assigns, calls) for v in defs):
            return value.value.id
    return None


def _slice_of_a_list(value, assigns, calls):
    """Whether `value` is a slice (`rows[:]`, `rows[1:]`) of a name every assignment makes a
    list: a new list (its entries shared, which a write of one of its own entries leaves
    alone; a write into an entry reads it first, `t = b[0]`, an entry of a list that is no
    new one, and stays refused)."""
    return (isinstance(value, gast.Subscript) and isinstance(value.slice, gast.Slice)
            and _entry_of_a_list(value, assigns, calls) is not None)


def _a_new_list(value, assigns, calls):
    """Whether the ANF value `value` makes a new list: a display, a comprehension,
    `list(...)`, or `a * n` / `n * a` of a display or of a name every assignment makes one."""
    if isinstance(value, (gast.List, gast.ListComp)):
        return True
    if isinstance(value, gast.Call):
        return getattr(calls.get(value), "obj", None) is list
    if isinstance(value, gast.BinOp) and isinstance(value.op, gast.Mult):
        return any(isinstance(v, gast.List) or (isinstance(v, gast.Name) and _makes_lists(v.id, assigns, calls))
                   for v in (value.left, value.right))
    return False


def _made_by_class(value, calls):
    """The dotted name of the class whose call `value` is (`collections.deque`), where it is
    not one whose in-place changes srcgrad differentiates (list, dict, NumPy's), else None."""
    obj = getattr(calls.get(value), "obj", None) if isinstance(value, gast.Call) else None
    if not isinstance(obj, type) or obj in (list, dict) or (obj.__module__ or "").startswith("numpy"):
        return None
    module = obj.__module__
    return obj.__qualname__ if module in ("builtins", None) else f"{module}.{obj.__qualname__}"


def _entry_of_a_dict(value, assigns, calls):
    """The name `d` when `value` reads an entry of it (`d[k]`, `d.setdefault(k, [])`) and
    every assignment makes `d` a dict, else None."""
    if isinstance(value, gast.Subscript) and isinstance(value.value, gast.Name):
        holder = value.value.id
    elif (isinstance(value, gast.Call) and isinstance(value.func, gast.Attribute) and value.func.attr == "setdefault"
          and isinstance(value.func.value, gast.Name) and value.args):
        holder = value.func.value.id
    else:
        return None
    defs = [a.value for a in assigns if a.targets[0].id == holder]
    made = bool(defs) and all(isinstance(v, (gast.Dict, gast.DictComp)) or (
        isinstance(v, gast.Call) and getattr(calls.get(v), "obj", None) is dict) for v in defs)
    return holder if made else None


def _appends_into(holder, group, found, calls):
    """The changes `holder.append(y)` of `found` that put a member `y` of `group` into the
    list `holder`: from there on the list holds the object `y` names, as an alias made by
    an assignment would (`rows.append(items)` after `items = []` in a loop, as a nested
    comprehension builds a list of lists)."""
    return [s for s, base in found if base == holder and isinstance(s, gast.Expr) and calls[s.value].path == "append"
            and len(s.value.args) == 1 and isinstance(s.value.args[0], gast.Name) and s.value.args[0].id in group]


def _with_hidden_views(group, assigns, calls, base, appends, statements, listed):
    """`group` and the names that may share its memory through calls `_reads_base` does
    not follow (see `_may_view`), and their aliases in turn, and the names `_held` finds
    holding base's object or a view of it. Only the checks read them: the undo of a change
    saves and restores through `group` alone."""
    stores = [(n.targets[0].value.id, n.value) for n in statements if isinstance(n, gast.Assign)  # `rows[i] = v`
              and isinstance(n.targets[0], gast.Subscript) and isinstance(n.targets[0].value, gast.Name)
              and _holds_entries(n.targets[0].value.id, assigns, calls)]  # into a list or dict: it holds v
    entries_own = listed or _holds_entries(base, assigns, calls)
    return _grown(group, assigns, calls, _may_view) | set(holders.held(base, assigns, calls, appends, stores, entries_own))


def _grown(group, assigns, calls, shares, appends=()):
    """`group` (names) with every name assigned a value that `shares(value, member, calls,
    holds_entries)` says may share a member's memory, and every list a member is appended to
    (`appends`: (item, list) pairs), until nothing more joins."""
    group = set(group)
    grew = True
    while grew:
        grew = False
        for a in assigns:
            name = a.targets[0].id
            if name not in group and any(shares(a.value, b, calls, _holds_entries(b, assigns, calls)) for b in group):
                group.add(name)
                grew = True
        for item, holder in appends:  # `h.append(y)`: the list holds y itself
            if item.id in group and holder not in group:
                group.add(holder)
                grew = True
    return group
