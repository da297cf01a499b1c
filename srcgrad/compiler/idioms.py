"""Python idioms spelled as the constructs srcgrad differentiates: in-place methods of the
lists and dicts a function makes, `dict` with keywords, `**` in dict displays, `*`
unpacking of values whose length the function shows, `zip` unpacked whole, `del` of
names, and scatters into the arrays a function makes.

Before (user code):                After:
    d = {"w": w}                       d = {"w": w}
    d.update(b=b * 2)                  d |= {"b": b * 2}
    d.update(extra)                    d |= dict(extra)
    d.update([("s", s)])               d |= {"s": s}
    d.setdefault("s", s)               if "s" not in d: d["s"] = s
    ws = [a, b, c]                     ws = [a, b, c]
    ws.reverse()                       ws[:] = ws[::-1]
    ws.sort(reverse=True)              ws[:] = sorted(ws, reverse=True)
    p = dict(w=w, b=b)                 p = {"w": w, "b": b}
    p = dict([("w", w), ("b", b)])     p = {"w": w, "b": b}
    q = {**p, "s": s}                  q = p | {"s": s}
    pair = (a, b)                      pair = (a, b)
    y = math.atan2(*pair)              y = math.atan2(pair[0], pair[1])
    opts = {"k": k}                    opts = {"k": k}
    y = g(x, **opts)                   y = g(x, k=opts["k"])
    us, vs = zip(*pairs)               us, vs = tuple(zip(pairs[0], pairs[1]))
    del big                            (nothing)
    y = np.zeros(3)                    y = np.zeros(3)
    np.add.at(y, idx, v)               y[...] = added_at(y, idx, v)
    h = {"S": []}                      h = {"S": []}
    h["S"].append(s)                   h["S"] = h["S"] + [s]
    g.setdefault(k, []).append(s)      g[k] = g.get(k, []) + [s]
    for k, v in sorted(d.items()):     for k, v in [(key, d[key]) for key in sorted(d)]:
    ws.insert(i, v)                    ws = ws[:i] + [v] + ws[i:]
    del ws[2]                          ws.pop(2)

Each rewrite computes what the idiom computes, on the same objects, so the checks of
in-place changes that follow (fence.py's for `|=`, mutation.py's for `ws[:] = ...`) see
a change and refuse it where another name may share the object. `np.add.at`,
`np.subtract.at`, `np.maximum.at`, `np.minimum.at` and `np.fill_diagonal` on a name the
function binds become writes of the whole array from pure helpers (scatters.py says which);
on a parameter, a global or an entry they stay, for later passes to refuse.
`d[k].append(v)` stores a new list only where no other name can see the lists of `d`
(`_contained_lists`); `ws.insert(i, v)` rebinds `ws` only where every binding makes a new
list and no read keeps a reference to it (`_unseen_lists`); elsewhere both stay, and
mutation.py refuses them. A method is rewritten
only as a statement of its own (its result unused) and only on a name that every binding
in the function makes a new dict (a display, a comprehension, `dict(...)`, `|=`; for
`update` and `setdefault` also `.copy()`) or a new list (a display, a comprehension,
`list(...)`, `sorted(...)`, `+=`), a parameter only where the function's own block binds
it so before any such call (`ws = list(ws)`): a parameter otherwise, or a name that may
hold anything else (a set's `update`, an array's `sort`), keeps its call, which later
passes refuse as a change in place. `*a` and `**d` are spelled out by unpacking.py. Runs on
the parse, right after key_lambdas.py (map_filter.py then reads the `tuple(zip(...))` it
leaves); returns a new tree when it rewrites anything, the same tree otherwise.
"""

import re

import gast

from . import array_writes, scatters as scatter_writes, syntax, traversal, unpacking
from .scope import dotted_parts, lookup_path

_DICT_METHODS = ("update", "setdefault")
_LIST_METHODS = ("reverse", "sort")
_METHOD_CALL = re.compile(r"\.(update|setdefault|reverse|sort|insert)\(")  # the text of a call `_method_statement` finds
# what a key or index read twice may hold (names, literals, arithmetic): reading it again gives the same
PLAIN = (gast.Constant, gast.Name, gast.BinOp, gast.UnaryOp, gast.Load, gast.operator, gast.unaryop)


def run(program, transform="srcgrad.grad"):
    """`program.tree` with the idioms above rewritten, or a `SrcGradError` at a `*`
    unpacking in a call whose length cannot be seen."""
    tree = program.tree
    lines = program.source_lines
    candidates = [s for s in traversal.statements(tree) if _method_statement(s) is not None] if any(
        _METHOD_CALL.search(line) for line in lines) else []
    kinds = _kinds(program, tree) if candidates else {}
    methods = any(_fits(kinds.get(_method_statement(s)[0]), _method_statement(s)[1]) for s in candidates)
    keywords = any("dict(" in line for line in lines) and any(
        type(n) is gast.Call and syntax.is_name(n.func, "dict") and (n.keywords or _pairs_display(n)) for n in traversal.nodes(tree))
    unpacked = any(_DICT_UNPACKING.search(line) for line in lines) and any(
        type(n) is gast.Dict and None in n.keys for n in traversal.nodes(tree))
    starred, keyed = unpacking.mentioned(lines, tree)
    zipped = any("zip(" in line for line in lines) and any(_unpacks_zip(s) for s in traversal.statements(tree))
    deletes = any("del " in line for line in lines) and any(
        _deletes_names(s) or _deleted_entry(s) is not None for s in traversal.statements(tree))
    if deletes and not kinds:
        kinds = _kinds(program, tree)
    items = any(".items()" in line for line in lines) and any(_sorted_items(n) for n in traversal.nodes(tree))
    if items and not kinds:
        kinds = _kinds(program, tree)
    items = items and lookup_path(["sorted"], program) is sorted and any(
        kinds.get(_sorted_items(n)) == "dict" for n in traversal.nodes(tree))
    scatters = scatter_writes.mentioned(lines) and any(scatter_writes.spelled(s, program) for s in traversal.statements(tree))
    local_names = array_writes.local_names(program) if array_writes.mentioned(lines) else None
    writes = local_names is not None and any(array_writes.found(s, program, local_names) for s in traversal.statements(tree))
    holders = _contained_lists(program, tree) if any(".append(" in line for line in lines) else set()
    inserts = any(".insert(" in line for line in lines) and _unseen_lists(program, tree, kinds)
    if not (methods or keywords or unpacked or starred or keyed or zipped or deletes or scatters or holders or inserts
            or writes or items):
        return tree
    tree = syntax.copy(tree)
    if starred:
        unpacking.hoist_returned_tuples(program, tree)
    if methods or deletes or scatters or holders or inserts or writes:
        _rewrite_block(tree, kinds, scatter_writes.Scatters(program) if scatters else None, holders, inserts or set(),
                       array_writes.ArrayWrites(program, local_names) if writes else None)
    rewrites = {}
    if unpacked:
        rewrites[gast.Dict] = _merges
    if keyed and keywords and lookup_path(["dict"], program) is dict:
        traversal.rewrite(tree, {gast.Call: _dict_display})  # `opts = dict(k=v)` a display `f(**opts)` spells out
    if starred or keyed:
        unpacking.spell(tree, starred, keyed, rewrites)
    if zipped and lookup_path(["zip"], program) is zip and lookup_path(["tuple"], program) is tuple:
        rewrites[gast.Assign] = _unpacked_zip
    if keywords and lookup_path(["dict"], program) is dict:
        spread = rewrites.get(gast.Call, lambda call: call)
        rewrites[gast.Call] = lambda call: _dict_display(spread(call))
    if items:
        before = rewrites.get(gast.Call, lambda call: call)
        rewrites[gast.Call] = lambda call: _listed_items(before(call), kinds)
    traversal.rewrite(tree, rewrites)
    if starred:
        unpacking.refuse_unseen_lengths(program, tree, transform)
    return tree


_DICT_UNPACKING = re.compile(r"(^|[{,])\s*\*\*")  # `**d` opening a dict entry (not `x ** 2`)


def _unpacks_zip(stmt):
    """Whether `stmt` is `a, b = zip(...)`."""
    return (type(stmt) is gast.Assign and type(stmt.targets[0]) in (gast.Tuple, gast.List)
            and type(stmt.value) is gast.Call and syntax.is_name(stmt.value.func, "zip"))


def _unpacked_zip(stmt):
    """`a, b = zip(...)` as `a, b = tuple(zip(...))`, which srcgrad reads whole (the same
    tuples, unpacked the same way)."""
    if _unpacks_zip(stmt):
        stmt.value = syntax.located(syntax.call(syntax.name("tuple"), [stmt.value]), stmt.value)
    return stmt


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
    """`dict(k=v, ...)` as the display `{"k": v, ...}`, `dict(m, k=v)` as `dict(m) | {"k": v}`,
    `dict([(k, v), ...])` as `{k: v, ...}`: the dict `dict` makes, entries in the same order
    (another call unchanged)."""
    keywords = call.keywords
    pairs = _pairs_display(call) if syntax.is_name(call.func, "dict") else None
    if not (syntax.is_name(call.func, "dict") and (keywords or pairs)) or len(call.args) > 1 or any(
            k.arg is None for k in keywords):
        return call
    if not keywords:
        return pairs
    entries = syntax.located(syntax.dict_([syntax.const(k.arg) for k in keywords], [k.value for k in keywords]), call)
    if not call.args:
        return entries
    first = pairs or syntax.located(syntax.call(syntax.name("dict"), call.args), call)
    return syntax.located(syntax.binop(first, gast.BitOr(), entries), call)


def _sorted_items(node):
    """`d` where `node` is `sorted(d.items())` (a name `d`, at most `reverse=`), else None."""
    if not (type(node) is gast.Call and syntax.is_name(node.func, "sorted") and len(node.args) == 1
            and all(k.arg == "reverse" for k in node.keywords)):
        return None
    inner = node.args[0]
    if (type(inner) is gast.Call and type(inner.func) is gast.Attribute and inner.func.attr == "items"
            and type(inner.func.value) is gast.Name and not inner.args and not inner.keywords):
        return inner.func.value.id
    return None


def _listed_items(call, kinds):
    """`sorted(d.items())` of a dict `d` the function makes as `[(k, d[k]) for k in sorted(d)]`
    (`reverse=` kept): the same pairs in the same order, the keys being distinct, read
    where srcgrad differentiates a dict's entries by key (another call unchanged)."""
    d = _sorted_items(call)
    if d is None or kinds.get(d) != "dict":
        return call
    key = "key" if d != "key" else "key_"  # the comprehension's own scope: only `d` is read in it
    keywords = [(k.arg, k.value) for k in call.keywords]
    keys = syntax.located(syntax.call(syntax.name("sorted"), [syntax.name(d)], keywords), call)
    pair = syntax.tuple_([syntax.name(key), syntax.subscript(syntax.name(d), syntax.name(key))])
    return syntax.located(syntax.list_comprehension(pair, syntax.name(key, store=True), keys), call)


def _pairs_display(call):
    """`{k: v, ...}` for a call whose one argument is a list or tuple display of pairs
    written out (`[(k, v), ...]`): the same entries, evaluated in the same order; else None."""
    if len(call.args) != 1 or type(call.args[0]) not in (gast.List, gast.Tuple):
        return None
    pairs = call.args[0].elts
    if not all(type(p) in (gast.Tuple, gast.List) and len(p.elts) == 2 and not any(
            type(e) is gast.Starred for e in p.elts) for p in pairs):
        return None
    return syntax.located(syntax.dict_([p.elts[0] for p in pairs], [p.elts[1] for p in pairs]), call)


def _method_statement(stmt):
    """(receiver name, method) of `name.method(...)` as a statement, or None."""
    if not (type(stmt) is gast.Expr and type(stmt.value) is gast.Call):
        return None
    func = stmt.value.func
    if type(func) is gast.Attribute and type(func.value) is gast.Name and func.attr in _DICT_METHODS + _LIST_METHODS + ("insert",):
        return func.value.id, func.attr
    return None


def _kind_of(method):
    return "dict" if method in _DICT_METHODS else "list"


def _fits(kind, method):
    """Whether a name of `kind` (see `_kinds`) is surely a new object `method` can be rewritten
    on: a dict or list as the method needs, or for a dict method a `.copy()` (of a dict,
    since a dict method is called on it)."""
    return method != "insert" and (kind == _kind_of(method) or (kind == "copy" and method in _DICT_METHODS))


def _kinds(program, tree):
    """{name: "dict", "list" or "copy"} for the names every binding of which makes a new
    one (a dict, a list, or `.copy()` of something)."""
    found = {}
    params = {a.id for a in tree.args.args + tree.args.kwonlyargs + tree.args.posonlyargs}
    for node in traversal.walk(tree):
        if isinstance(node, (gast.FunctionDef, gast.Lambda)) and node is not tree:
            for n in traversal.walk(node.args):
                if isinstance(n, gast.Name):
                    found[n.id] = None
        if type(node) is gast.Assign:
            kind = _made(node.value, program)
            for target in node.targets:
                for n in traversal.walk(target):
                    if type(n) is gast.Name and isinstance(n.ctx, gast.Store):
                        simple = target is n
                        found[n.id] = _join(found.get(n.id, kind), kind if simple else None)
        elif type(node) is gast.AugAssign and type(node.target) is gast.Name:
            kind = {gast.BitOr: "dict", gast.Add: "list", gast.Mult: "list"}.get(type(node.op))
            found[node.target.id] = _join(found.get(node.target.id, kind), kind)
        elif isinstance(node, (gast.For, gast.comprehension, gast.NamedExpr, gast.withitem)):
            target = node.optional_vars if type(node) is gast.withitem else node.target
            for n in traversal.walk(target) if target is not None else ():
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
        for n in traversal.walk(stmt):
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


def _rewrite_block(node, kinds, scatters, holders=frozenset(), unseen=frozenset(), writes=None):
    for field in ("body", "orelse"):
        block = getattr(node, field, None)
        if not isinstance(block, list):
            continue
        out = []
        for s in block:
            if _deletes_names(s):
                continue  # `del a`: the name goes out of use, which needs no statement
            if _deleted_entry(s) is not None and kinds.get(_deleted_entry(s)[0]) == "list":
                s = syntax.located(syntax.expr(syntax.call(syntax.attr(syntax.name(_deleted_entry(s)[0]), "pop"),
                                                           [_deleted_entry(s)[1]])), s)
            _rewrite_block(s, kinds, scatters, holders, unseen, writes)
            found = _method_statement(s)
            rewritten = _rewritten(s.value, *found) if found is not None and _fits(kinds.get(found[0]), found[1]) else None
            if rewritten is None and scatters is not None:
                rewritten = scatters.rewritten(s)
            if rewritten is None and writes is not None:
                rewritten = writes.rewritten(s)
            entry = _entry_append(s)
            if rewritten is None and entry is not None and entry[0] in holders:
                rewritten = [_appended_entry(*entry)]
            if rewritten is None and found is not None and found[1] == "insert" and found[0] in unseen:
                rewritten = _inserted(s.value, found[0])
            out += [s] if rewritten is None else [syntax.located(r, s) for r in rewritten]
        block[:] = out or ([syntax.located(syntax.pass_(), node)] if field == "body" else [])  # no `else: pass`


def _deletes_names(stmt):
    """Whether `stmt` is `del a, b` of names only (an entry's `del` stays, for fence.py)."""
    return type(stmt) is gast.Delete and all(type(t) is gast.Name for t in stmt.targets)


def _deleted_entry(stmt):
    """(name, index) of `del name[i]` with an integer literal `i` (`2`, `-1`), else None:
    on a list, the same as `name.pop(i)` as a statement, which mutation.py undoes."""
    if not (type(stmt) is gast.Delete and len(stmt.targets) == 1 and type(stmt.targets[0]) is gast.Subscript
            and type(stmt.targets[0].value) is gast.Name):
        return None
    index = stmt.targets[0].slice
    literal = index.operand if type(index) is gast.UnaryOp and type(index.op) is gast.USub else index
    return (stmt.targets[0].value.id, index) if syntax.is_const(literal) and type(literal.value) is int else None


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
                                 _pairs_display(call) or syntax.call("dict", [a])) for a in args]
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


# --- d[k].append(v) on a dict whose lists no other name sees ---------------------------

_KEEP_NOTHING = {sum, len, max, min, sorted, list, tuple, any, all}  # read a list, hold no reference to it


def _entry_append(stmt):
    """(dict name, key, value, whether through setdefault) of the statement `d[k].append(v)`
    or `d.setdefault(k, []).append(v)` with a key of names, literals and arithmetic, else None."""
    if not (type(stmt) is gast.Expr and type(stmt.value) is gast.Call):
        return None
    call = stmt.value
    if not (type(call.func) is gast.Attribute and call.func.attr == "append" and len(call.args) == 1
            and not call.keywords and type(call.args[0]) is not gast.Starred):
        return None
    receiver = call.func.value
    if type(receiver) is gast.Subscript and type(receiver.value) is gast.Name:
        name, key, through = receiver.value.id, receiver.slice, False
    elif (type(receiver) is gast.Call and type(receiver.func) is gast.Attribute and receiver.func.attr == "setdefault"
          and type(receiver.func.value) is gast.Name and len(receiver.args) == 2 and not receiver.keywords
          and type(receiver.args[1]) is gast.List and not receiver.args[1].elts):
        name, key, through = receiver.func.value.id, receiver.args[0], True
    else:
        return None
    if not all(isinstance(n, PLAIN + (gast.Tuple,)) for n in traversal.walk(key)) or any(type(n) is gast.NamedExpr for n in traversal.walk(call.args[0])):
        return None  # the key is read twice: names and arithmetic only
    return name, key, call.args[0], through


def _appended_entry(name, key, value, through):
    """`d[k] = d[k] + [v]` (`d.get(k, []) + [v]` for setdefault): a new list in the entry."""
    read = (syntax.call(syntax.attr(syntax.name(name), "get"), [syntax.copy(key), syntax.list_([])]) if through
            else syntax.subscript(syntax.name(name), syntax.copy(key)))
    return syntax.assign(syntax.subscript(syntax.name(name), key), syntax.binop(read, gast.Add(), syntax.list_([value])))


def _contained_lists(program, tree):
    """The names of the dicts whose entries' `.append(v)` may become new lists (`d[k] = d[k]
    + [v]`) because no other name can see a list they hold: every binding is a display of
    list displays, every entry stored is a list display, and every other read of an entry
    keeps no reference to it (`sum(d[k])`, `np.array(d[k])`, `d[k][i]`, `for v in d[k]`)."""
    appends = [(s.value, entry) for s in traversal.statements(tree) for entry in [_entry_append(s)] if entry is not None]
    names = {entry[0] for _, entry in appends}
    if not names:
        return set()
    parents = parents_of(tree)
    allowed = {id(_dict_read(call)) for call, _ in appends}
    lists = (gast.List, gast.ListComp)
    for node in traversal.walk(tree):
        if type(node) is not gast.Name or node.id not in names:
            continue
        parent = parents.get(id(node))
        if isinstance(node.ctx, gast.Store):
            ok = (type(parent) is gast.Assign and parent.targets == [node] and (
                (type(parent.value) is gast.Dict and all(type(v) in lists for v in parent.value.values))))
        elif isinstance(node.ctx, gast.Load) and id(node) in allowed:
            ok = True
        elif isinstance(node.ctx, gast.Load) and type(parent) is gast.Subscript and parent.value is node:
            ok = keeps_no_reference(parent, parents, program) or (
                isinstance(parent.ctx, gast.Store) and type(parents.get(id(parent))) is gast.Assign
                and type(parents[id(parent)].value) in lists)
        else:
            ok = False
        if not ok:
            names.discard(node.id)
    return names


def _dict_read(call):
    """The Name node reading the dict in the append `call` (`d[k].append(v)`,
    `d.setdefault(k, []).append(v)`)."""
    receiver = call.func.value
    return receiver.value if type(receiver) is gast.Subscript else receiver.func.value


def parents_of(tree):
    """{id(node): the node holding it} for every node under `tree`."""
    parents = {}
    for node in traversal.walk(tree):
        for child in gast.iter_child_nodes(node):
            parents[id(child)] = node
    return parents


def keeps_no_reference(entry, parents, program):
    """Whether the read `entry` (`d[k]`) leaves no reference to the list it reads."""
    parent = parents.get(id(entry))
    if type(parent) is gast.Subscript and parent.value is entry:
        return True  # `d[k][i]`: an entry of the list
    if type(parent) in (gast.For, gast.comprehension) and parent.iter is entry:
        return True
    if type(parent) is gast.BinOp or type(parent) is gast.Compare:
        return True  # `d[k] + [v]`, `len(...) == ...`: a new value
    if type(parent) is gast.Call and entry in parent.args:
        parts = dotted_parts(parent.func)
        if parts is None or parts[0] in traversal.names_stored(program.tree):
            return False
        meaning = lookup_path(parts, program)
        return meaning in _KEEP_NOTHING or getattr(meaning, "__module__", "") in ("numpy", "numpy.core.fromnumeric")
    return False


# --- ws.insert(i, v) on a list no other name sees ---------------------------------------

_OWN_METHODS = ("insert", "append", "index", "count", "copy", "reverse", "sort")  # keep no new reference


def _inserted(call, name):
    """`ws = ws[:i] + [v] + ws[i:]` for `ws.insert(i, v)` (the same list for every `i`, as
    slices clamp as insert does), or None unless `i` is names, literals and arithmetic."""
    if call.keywords or len(call.args) != 2 or any(type(a) is gast.Starred for a in call.args):
        return None
    i, v = call.args
    if not all(isinstance(n, PLAIN) for n in traversal.walk(i)):
        return None  # `i` is read twice
    head = syntax.subscript(syntax.name(name), syntax.slice_(None, i, None))
    tail = syntax.subscript(syntax.name(name), syntax.slice_(syntax.copy(i), None, None))
    value = syntax.binop(syntax.binop(head, gast.Add(), syntax.list_([v])), gast.Add(), tail)
    return [syntax.assign(syntax.name(name), value)]


def _unseen_lists(program, tree, kinds):
    """The names `ws` with `ws.insert(i, v)` statements that may rebind `ws` to a new list:
    every binding makes a new list (`_kinds`), every read keeps no reference to it (`ws[i]`,
    `len(ws)`, `for w in ws` with no insert into `ws` inside, `ws + [v]`, its own methods,
    `return ws`), so no other name or container can see the list the insert would change."""
    names = {n for n in _inserted_into(tree) if kinds.get(n) == "list"}
    if not names:
        return set()
    parents = parents_of(tree)
    for node in traversal.walk(tree):
        if type(node) is gast.For and any(type(n) is gast.Name and n.id in names for n in traversal.walk(node.iter)):
            names -= _inserted_into(node)  # iterating a list while inserting into it sees the inserts
        if type(node) is not gast.Name or node.id not in names or not isinstance(node.ctx, gast.Load):
            continue
        parent = parents.get(id(node))
        if type(parent) is gast.Attribute and parent.attr in _OWN_METHODS and type(parents.get(id(parent))) is gast.Call:
            continue
        if type(parent) is gast.Return or keeps_no_reference(node, parents, program):
            continue
        names.discard(node.id)
    return names


def _inserted_into(node):
    """The names of the lists that `ws.insert(i, v)` statements under `node` insert into."""
    found = (_method_statement(s) for s in traversal.statements(node))
    return {f[0] for f in found if f is not None and f[1] == "insert"}

