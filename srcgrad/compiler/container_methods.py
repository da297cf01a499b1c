"""In-place methods of the lists and dicts a function makes, spelled as the assignments
srcgrad differentiates.

Before (user code):                After:
    d = {"w": w}                       d = {"w": w}
    d.update(b=b * 2)                  d |= {"b": b * 2}
    d.update(extra)                    d |= dict(extra)
    d.setdefault("s", s)               if "s" not in d: d["s"] = s
    ws = [a, b, c]                     ws = [a, b, c]
    ws.reverse()                       ws[:] = ws[::-1]
    ws.sort(reverse=True)              ws[:] = sorted(ws, reverse=True)
    p = dict(w=w, b=b)                 p = {"w": w, "b": b}
    q = {**p, "s": s}                  q = p | {"s": s}

Each rewrite computes what the method (or `dict`) computes, on the same object, so the checks of
in-place changes that follow (fence.py's for `|=`, mutation.py's for `ws[:] = ...`) see
the change and refuse it where another name may share the object. A method is rewritten
only as a statement of its own (its result unused) and only on a name that every binding
in the function makes a new dict (a display, a comprehension, `dict(...)`, `|=`; for
`update` and `setdefault` also `.copy()`) or a new list (a display, a comprehension,
`list(...)`, `sorted(...)`, `+=`), a parameter only where the function's own block binds
it so before any such call (`ws = list(ws)`): a parameter otherwise, or a name that may
hold anything else (a set's `update`, an array's `sort`), keeps its call,
which later passes refuse as a change in place. Runs right after contexts.py; returns a
new tree when it rewrites anything, the same tree otherwise.
"""

import gast

from . import syntax
from .scope import lookup_path

_DICT_METHODS = ("update", "setdefault")
_LIST_METHODS = ("reverse", "sort")


def run(program):
    """`program.tree` with the in-place list and dict methods above, `dict` called with
    keywords and dict displays with `**` rewritten."""
    tree = program.tree
    candidates = [s for s in syntax.statements(tree) if _method_statement(s) is not None]
    keywords = any("dict(" in line for line in program.source_lines) and any(
        type(n) is gast.Call and n.keywords and syntax.is_name(n.func, "dict") for n in syntax.nodes(tree))
    unpacked = any("**" in line for line in program.source_lines) and any(
        type(n) is gast.Dict and None in n.keys for n in syntax.nodes(tree))
    if unpacked:
        tree = syntax.copy(tree)
        syntax.rewrite(tree, {gast.Dict: _merges})
    if not candidates and not keywords:
        return tree
    kinds = _kinds(program, tree) if candidates else {}
    if not keywords and not any(_fits(kinds.get(_method_statement(s)[0]), _method_statement(s)[1]) for s in candidates):
        return tree
    tree = tree if unpacked else syntax.copy(tree)
    if candidates:
        _rewrite_block(tree, kinds)
    if keywords and lookup_path(["dict"], program) is dict:
        syntax.rewrite(tree, {gast.Call: _dict_display})
    return tree


def _merges(e):
    """The dict display `e` with `**` entries as the merges it means (`e` itself without
    them): runs of `key: value` entries become displays, joined left to right with `|`
    (the later entry wins); `{**a}` alone is `dict(a)`."""
    if None not in e.keys:
        return e
    parts, run = [], None  # run: the display of the current run of `key: value` entries
    for key, value in zip(e.keys, e.values):
        if key is None:
            parts.append(value)
            run = None
        elif run is not None:
            run.keys.append(key)
            run.values.append(value)
        else:
            run = syntax.located(syntax.dict_([key], [value]), e)
            parts.append(run)
    if len(parts) == 1:
        return syntax.located(syntax.call(syntax.name("dict"), [parts[0]]), e)
    merged = parts[0]
    for part in parts[1:]:
        merged = syntax.located(syntax.binop(merged, gast.BitOr(), part), e)
    return merged


def _dict_display(call):
    """`dict(k=v, ...)` as the display `{"k": v, ...}`, `dict(m, k=v)` as `dict(m) | {"k": v}`:
    the dict `dict` makes, entries in the same order (another call unchanged)."""
    keywords = call.keywords
    if not (syntax.is_name(call.func, "dict") and keywords) or len(call.args) > 1 or any(k.arg is None for k in keywords):
        return call
    entries = syntax.located(syntax.dict_([syntax.const(k.arg) for k in keywords], [k.value for k in keywords]), call)
    if not call.args:
        return entries
    first = syntax.located(syntax.call(syntax.name("dict"), call.args), call)
    return syntax.located(syntax.binop(first, gast.BitOr(), entries), call)


def _method_statement(stmt):
    """(receiver name, method) of `name.method(...)` as a statement, or None."""
    if not (type(stmt) is gast.Expr and type(stmt.value) is gast.Call):
        return None
    func = stmt.value.func
    if type(func) is gast.Attribute and type(func.value) is gast.Name and func.attr in _DICT_METHODS + _LIST_METHODS:
        return func.value.id, func.attr
    return None


def _kind_of(method):
    return "dict" if method in _DICT_METHODS else "list"


def _fits(kind, method):
    """Whether a name of `kind` (see `_kinds`) is surely a new object `method` can be rewritten
    on: a dict or list as the method needs, or for a dict method a `.copy()` (of a dict,
    since a dict method is called on it)."""
    return kind == _kind_of(method) or (kind == "copy" and method in _DICT_METHODS)


def _kinds(program, tree):
    """{name: "dict", "list" or "copy"} for the names every binding of which makes a new
    one (a dict, a list, or `.copy()` of something)."""
    found = {}
    params = {a.id for a in tree.args.args + tree.args.kwonlyargs + tree.args.posonlyargs}
    for node in syntax.walk(tree):
        if isinstance(node, (gast.FunctionDef, gast.Lambda)) and node is not tree:
            for n in syntax.walk(node.args):
                if isinstance(n, gast.Name):
                    found[n.id] = None
        if type(node) is gast.Assign:
            kind = _made(node.value, program)
            for target in node.targets:
                for n in syntax.walk(target):
                    if type(n) is gast.Name and isinstance(n.ctx, gast.Store):
                        simple = target is n
                        found[n.id] = _join(found.get(n.id, kind), kind if simple else None)
        elif type(node) is gast.AugAssign and type(node.target) is gast.Name:
            kind = {gast.BitOr: "dict", gast.Add: "list", gast.Mult: "list"}.get(type(node.op))
            found[node.target.id] = _join(found.get(node.target.id, kind), kind)
        elif isinstance(node, (gast.For, gast.comprehension, gast.NamedExpr, gast.withitem)):
            target = node.optional_vars if type(node) is gast.withitem else node.target
            for n in syntax.walk(target) if target is not None else ():
                if type(n) is gast.Name:
                    found[n.id] = None
        elif isinstance(node, (gast.Import, gast.ImportFrom)):
            for alias in node.names:
                found[(alias.asname or alias.name).split(".")[0]] = None
    rebound = _rebound_parameters(tree, params)
    return {name: kind for name, kind in found.items() if kind is not None and (name not in params or name in rebound)}


def _rebound_parameters(tree, params):
    """The parameters that a statement of the function's own block binds anew (`ws =
    list(ws)`) before any statement that calls a method on them: from there on the name
    holds what its assignments make, which `_kinds` then judges as for any other name."""
    found, seen = set(), set()
    for stmt in tree.body:
        if type(stmt) is gast.Assign and len(stmt.targets) == 1 and type(stmt.targets[0]) is gast.Name:
            name = stmt.targets[0].id
            if name in params and name not in seen:
                found.add(name)
        for n in syntax.walk(stmt):
            if type(n) is gast.Expr and _method_statement(n) is not None:
                seen.add(_method_statement(n)[0])
    return found


def _join(a, b):
    return a if a == b else None


def _made(value, program):
    """"dict" or "list" when `value` surely makes a new one, "copy" for `x.copy()`, else None."""
    if type(value) in (gast.Dict, gast.DictComp):
        return "dict"
    if type(value) in (gast.List, gast.ListComp):
        return "list"
    if type(value) is gast.BinOp and type(value.op) is gast.BitOr and (
            type(value.left) in (gast.Dict, gast.DictComp) or type(value.right) in (gast.Dict, gast.DictComp)):
        return "dict"  # `a | {...}`, as `{**a, ...}` is spelled
    if (type(value) is gast.Call and type(value.func) is gast.Attribute and value.func.attr == "copy"
            and not value.args and not value.keywords):
        return "copy"  # `params.copy()`: a new dict where a dict method is called on it (not an array's sort)
    if type(value) is gast.Call and type(value.func) is gast.Name:
        meaning = lookup_path([value.func.id], program)
        if meaning is dict:
            return "dict"
        if meaning is list or meaning is sorted:
            return "list"
    return None


def _rewrite_block(node, kinds):
    for field in ("body", "orelse"):
        block = getattr(node, field, None)
        if not isinstance(block, list):
            continue
        out = []
        for s in block:
            _rewrite_block(s, kinds)
            found = _method_statement(s)
            rewritten = _rewritten(s.value, *found) if found is not None and _fits(kinds.get(found[0]), found[1]) else None
            out += [s] if rewritten is None else [syntax.located(r, s) for r in rewritten]
        block[:] = out


def _rewritten(call, name, method):
    """The statements that do what `name.method(*call.args, **call.keywords)` does, or
    None where the call is not one Python accepts as written here."""
    args, keywords = call.args, call.keywords
    if any(type(a) is gast.Starred for a in args) or any(k.arg is None for k in keywords):
        return None
    if method == "update":
        if len(args) > 1:
            return None
        out = [syntax.aug_assign(name, gast.BitOr(), a if type(a) in (gast.Dict, gast.DictComp) else
                                 syntax.call("dict", [a])) for a in args]
        if keywords:
            entries = syntax.dict_([syntax.const(k.arg) for k in keywords], [k.value for k in keywords])
            out.append(syntax.aug_assign(name, gast.BitOr(), entries))
        return out
    if method == "setdefault":
        if keywords or not 1 <= len(args) <= 2 or type(args[0]) not in (gast.Constant, gast.Name):
            return None  # the key is read twice
        value = args[1] if len(args) > 1 else syntax.const(None)
        missing = syntax.compare(args[0], gast.NotIn(), syntax.name(name))
        return [syntax.if_(missing, [syntax.assign(syntax.subscript(syntax.name(name), syntax.copy(args[0])), value)])]
    if method == "reverse":
        if args or keywords:
            return None
        value = syntax.subscript(syntax.name(name), syntax.slice_(None, None, syntax.const(-1)))
    else:
        if args or any(k.arg not in ("key", "reverse") for k in keywords):
            return None
        value = syntax.call("sorted", [syntax.name(name)], [(k.arg, k.value) for k in keywords])
    return [syntax.assign(syntax.subscript(syntax.name(name), syntax.slice_(None, None, None)), value)]
