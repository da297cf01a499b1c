"""`*a` and `**d` in calls and displays, spelled out where the function shows what they
hold (for idioms.py, which runs it with its other rewrites).

Before (user code):                After:
    pair = (a, b)                      pair = (a, b)
    y = math.atan2(*pair)              y = math.atan2(a, b)        (parameters never assigned)
    q = (u * 2, v)                     q = (u * 2, v)
    z = f(*q)                          z = f(q[0], q[1])
    opts = {"k": k}                    opts = {"k": k}
    y = g(x, **opts)                   y = g(x, k=k)

`*g(x)`, where `g` is a function of the user's every `return` of which writes a tuple of
the same length n (`return a, b`), is spelled out too (`hoist_returned_tuples`): the call
is bound to a fresh name before its statement and its entries read by index, where the
statement evaluates it once and first:

    us, vs = zip(*unpack(p))           unpack_p = unpack(p)
                                       us, vs = zip(unpack_p[0], unpack_p[1])

`*a` (and `*a[i:j]`, literal bounds) is spelled out where `a` is a display or a name bound
once to one (a list only where it is read through `*a` and `a[i]` alone), `**d` where `d` is a dict display of string
keys or a name bound once to one and read only through `**d`, `d[k]`, `d.get(...)` and
`k in d`: a `*args` or `**kwargs` parameter written out per call (varargs.py) is such a
name. An entry that is a literal, or a parameter the function never assigns, is written
as itself; any other as `a[i]`, `d['k']`. Any other `*a` in a call is refused here, and
one in a display stays (`np.zeros((*shape, 3))`; activity.refuse_displays refuses it
where the display carries the derivative); any other `**d` in a call stays, for fence.py
to refuse.
"""

import inspect
import re

import gast

from . import frontend, printing, respelling, syntax, traversal
from .naming import Namer
from .scope import dotted_parts, lookup_path

_UNPACKING = re.compile(r"(^|[(\[{,])\s*\*[^*\s=]")  # `*a` opening an entry (not `a * b`, `**k`, `*=`)
_KEYWORD_UNPACKING = re.compile(r"(^|[(,])\s*\*\*")  # `**d` opening a call's argument


def mentioned(lines, tree):
    """(whether `tree` holds a `*a` to read, whether it holds a `**d` in a call), looked
    for in the source `lines` first (cheap) then in the tree."""
    starred = any(_UNPACKING.search(line) for line in lines) and any(
        type(n) is gast.Starred and isinstance(n.ctx, gast.Load) for n in traversal.nodes(tree))
    keyed = any(_KEYWORD_UNPACKING.search(line) for line in lines) and any(
        type(n) is gast.keyword and n.arg is None for n in traversal.nodes(tree))
    return starred, keyed


def spell(tree, starred, keyed, rewrites):
    """Add to `rewrites` (a `traversal.rewrite` table) the rewrites spelling out `*a` (where
    `starred`) and `**d` in calls (where `keyed`)."""
    if starred:
        lengths = _display_lengths(tree)
        rewrites[gast.Tuple] = rewrites[gast.List] = lambda e: _spread_display(e, lengths)
        rewrites[gast.Call] = lambda call: _spread_call(call, lengths)
    if keyed:
        keys, spread_args = _display_keys(tree), rewrites.get(gast.Call, lambda call: call)
        optional = _optional_keys(tree, keys)
        rewrites[gast.Call] = lambda call: _spread_optional(_spread_keywords(spread_args(call), keys), optional)


def _spread(items, lengths):
    """`items` (a call's arguments or a display's entries) with each `*a` of a display, or
    of a name `lengths` knows, spelled out entry by entry (`*p` -> `p[0], p[1]`)."""
    out = []
    for item in items:
        value = item.value if type(item) is gast.Starred else None
        if type(value) in (gast.Tuple, gast.List) and not any(type(e) is gast.Starred for e in value.elts):
            out += value.elts
        elif type(value) is gast.Name and value.id in lengths:
            out += _entries(value.id, lengths[value.id], None, item)
        elif (type(value) is gast.Subscript and type(value.value) is gast.Name and value.value.id in lengths
              and _constant_slice(value.slice) is not None):  # `*args[1:]`
            out += _entries(value.value.id, lengths[value.value.id], _constant_slice(value.slice), item)
        else:
            out.append(item)
    return out


def _entries(name, entries, picked, at):
    """The entries of `name`, which holds `entries` (the nodes of a tuple of literals and
    parameters: `args = (args_0, args_1)`) or that many values; those of the slice `picked`
    where given."""
    count = len(entries) if type(entries) is list else entries
    indices = range(count) if picked is None else range(count)[picked]
    return [syntax.located(syntax.copy(entries[k]) if type(entries) is list else
                           syntax.subscript(syntax.name(name), syntax.const(k)), at) for k in indices]


def _constant_slice(node):
    """The `slice` that `node` writes with integer literals or nothing (`1:`, `:-1`, `::2`), else None."""
    if type(node) is not gast.Slice:
        return None
    bounds = [_integer(part) for part in (node.lower, node.upper, node.step)]
    if any(b is _NO_INTEGER for b in bounds) or bounds[2] == 0:
        return None
    return slice(*bounds)


_NO_INTEGER = object()


def _integer(node):
    """The integer literal `node` writes (negated too), None for no node, else _NO_INTEGER."""
    if node is None:
        return None
    negated = type(node) is gast.UnaryOp and type(node.op) is gast.USub
    inner = node.operand if negated else node
    if type(inner) is gast.Constant and type(inner.value) is int:
        return -inner.value if negated else inner.value
    return _NO_INTEGER


def _spread_display(e, lengths):
    if any(type(item) is gast.Starred for item in e.elts) and isinstance(e.ctx, gast.Load):
        e.elts = _spread(e.elts, lengths)
    return e


def _spread_call(call, lengths):
    if any(type(a) is gast.Starred for a in call.args):
        call.args = _spread(call.args, lengths)
    return call


def _display_lengths(tree):
    """{name: its length} for each name the function binds once, at the top level of its
    body, to a tuple or list display without `*`: its entries are `name[0]`, `name[1]`,
    ... A list must be read only through `*name` and `name[i]`: anything else (a method
    call, a call it is handed to, another name bound to it) could change its length."""
    displays = {}
    read = set()  # ids of the Name nodes read through `*name` or `name[i]`
    for node in traversal.walk(tree):
        if type(node) is gast.Starred or (type(node) is gast.Subscript and isinstance(node.ctx, gast.Load)):
            if type(node.value) is gast.Name:
                read.add(id(node.value))
    bindings, loose = _bindings_and_loose(tree, read)
    for stmt in tree.body:
        if (type(stmt) is gast.Assign and len(stmt.targets) == 1 and type(stmt.targets[0]) is gast.Name
                and type(stmt.value) in (gast.Tuple, gast.List)
                and not any(type(e) is gast.Starred for e in stmt.value.elts)):
            name = stmt.targets[0].id
            if type(stmt.value) is gast.Tuple or name not in loose:
                displays[name] = len(stmt.value.elts)
    fixed = _fixed_entries(tree)
    return {name: fixed.get(name, n) for name, n in displays.items() if bindings.get(name) == 1}


def _fixed_entries(tree):
    """{name: the entry nodes} of each name bound at the top level of the function's body
    to a tuple or dict display (a dict: {key: entry}) of literals and parameters the
    function never assigns: such an entry is that literal or parameter, whenever it is read."""
    args = tree.args
    stored = set(traversal.names_stored(tree.body))
    fixed = {a.id for a in args.posonlyargs + args.args + args.kwonlyargs} - stored
    found = {}

    def is_fixed(e):
        return (type(e) is gast.Name and e.id in fixed) or syntax.is_const(e)

    for stmt in tree.body:
        if not (type(stmt) is gast.Assign and len(stmt.targets) == 1 and type(stmt.targets[0]) is gast.Name):
            continue
        value = stmt.value
        if type(value) is gast.Tuple and all(map(is_fixed, value.elts)):
            found[stmt.targets[0].id] = list(value.elts)
        elif type(value) is gast.Dict and all(map(is_fixed, value.values)) and all(map(_string_key, value.keys)):
            found[stmt.targets[0].id] = dict(zip((k.value for k in value.keys), value.values))
    return found


def _display_keys(tree):
    """{name: its keys} for each name the function binds once, at the top level of its
    body, to a dict display whose keys are strings written out, and reads only through
    `**name` in a call, `name[k]`, `name.get(...)` and `k in name` (nothing that could
    change its keys)."""
    displays, read = {}, set()
    for node in traversal.walk(tree):
        if type(node) is gast.keyword and node.arg is None or type(node) is gast.Attribute and node.attr == "get" or (
                type(node) is gast.Subscript and isinstance(node.ctx, gast.Load)):
            read.add(id(node.value))
        elif type(node) is gast.Compare and all(type(op) in (gast.In, gast.NotIn) for op in node.ops):
            read.update(id(c) for c in node.comparators)
    bindings, loose = _bindings_and_loose(tree, read)
    for stmt in tree.body:
        if (type(stmt) is gast.Assign and len(stmt.targets) == 1 and type(stmt.targets[0]) is gast.Name
                and type(stmt.value) is gast.Dict and all(_string_key(k) for k in stmt.value.keys)):
            displays[stmt.targets[0].id] = [k.value for k in stmt.value.keys]
    fixed = _fixed_entries(tree)
    return {name: fixed.get(name, keys) for name, keys in displays.items() if bindings.get(name) == 1 and name not in loose}


_MAX_OPTIONAL_KEYS = 3  # a call becomes 2 ** keys calls, one per set of keys present


def _optional_keys(tree, known):
    """{name: its possible keys} for each dict, not in `known`, whose keys depend on the
    branch taken, as NumPy's `kwargs = {}` / `if keepdims is not np._NoValue:
    kwargs['keepdims'] = keepdims` / `a.mean(axis, **kwargs)`: every binding of the name
    is a dict display of string keys, every write `name['key'] = v` with a string key,
    and every other read a `**name` in a call; at most _MAX_OPTIONAL_KEYS keys in all."""
    params = tree.args
    keys, bad = {}, {a.id for a in params.posonlyargs + params.args + params.kwonlyargs} | set(known)
    allowed = set()  # ids of the Name nodes used as said
    for node in traversal.walk(tree):
        if type(node) is gast.keyword and node.arg is None and type(node.value) is gast.Name:
            allowed.add(id(node.value))
        elif type(node) is gast.Assign and len(node.targets) == 1:
            target, value = node.targets[0], node.value
            if type(target) is gast.Name and type(value) is gast.Dict and all(map(_string_key, value.keys)):
                allowed.add(id(target))
                keys.setdefault(target.id, set()).update(k.value for k in value.keys)
            elif (type(target) is gast.Subscript and type(target.value) is gast.Name
                  and _string_key(target.slice)):
                allowed.add(id(target.value))
                keys.setdefault(target.value.id, set()).add(target.slice.value)
    for node in traversal.walk(tree):
        if type(node) is gast.Name and id(node) not in allowed:
            bad.add(node.id)
    return {name: sorted(found) for name, found in keys.items()
            if name not in bad and 0 < len(found) <= _MAX_OPTIONAL_KEYS}


def _spread_optional(call, optional):
    """`call` with its one `**d` of a dict `optional` knows spelled out as the call for
    each set of keys `d` may hold, chosen by `'key' in d` when the call runs:
    `f(x, **kw)` -> `f(x, keepdims=kw['keepdims']) if 'keepdims' in kw else f(x)`."""
    starred = [k for k in call.keywords if k.arg is None]
    if len(starred) != 1 or type(starred[0].value) is not gast.Name or starred[0].value.id not in optional:
        return call
    name, keys = starred[0].value.id, optional[starred[0].value.id]
    named = [k for k in call.keywords if k.arg is not None]
    if set(keys) & {k.arg for k in named}:
        return call  # Python's TypeError (a keyword twice) comes from the call itself

    def made(present):
        out = syntax.copy(call)
        out.keywords = [syntax.copy(k) for k in named] + [
            syntax.located(gast.keyword(arg=k, value=syntax.subscript(syntax.name(name), syntax.const(k))), starred[0])
            for k in present]
        return out

    def choose(remaining, present):
        if not remaining:
            return made(present)
        key, rest = remaining[0], remaining[1:]
        test = syntax.compare(syntax.const(key), gast.In(), syntax.name(name))
        return syntax.located(gast.IfExp(test=test, body=choose(rest, present + [key]), orelse=choose(rest, present)), call)

    return choose(keys, [])


def _string_key(node):
    return type(node) is gast.Constant and isinstance(node.value, str) and node.value.isidentifier()


def _spread_keywords(call, keys):
    """`call` with each `**d` of a display of written-out string keys, or of a name `keys`
    knows, spelled out keyword by keyword (`**opts` -> `k=opts['k']`); unchanged where
    that would repeat a keyword (Python's TypeError then comes from the call itself)."""
    if not any(k.arg is None for k in call.keywords):
        return call
    out = []
    for item in call.keywords:
        value = item.value
        if item.arg is not None:
            out.append(item)
        elif type(value) is gast.Dict and all(_string_key(k) for k in value.keys):
            out += [syntax.located(gast.keyword(arg=k.value, value=v), item) for k, v in zip(value.keys, value.values)]
        elif type(value) is gast.Name and value.id in keys:
            entries = keys[value.id]  # the parameters a dict holds, by key (`kwargs = {'k': k}`), or its keys
            out += [syntax.located(gast.keyword(arg=k, value=syntax.copy(entries[k]) if type(entries) is dict else
                                                syntax.subscript(syntax.name(value.id), syntax.const(k))), item)
                    for k in entries]
        else:
            out.append(item)
    named = [k.arg for k in out if k.arg is not None]
    if len(named) == len(set(named)):
        call.keywords = out
    return call


def refuse_unseen_lengths(program, tree, transform):
    """A `*a` left in a call: srcgrad binds a call's arguments to its rule's parameters one
    by one, which it cannot do without a's length."""
    for node in traversal.nodes(tree):
        if type(node) is gast.Call:
            star = next((a for a in node.args if type(a) is gast.Starred), None)
            if star is not None:
                raise program.error(
                    star, f"`*{printing.unparse(star.value)}` unpacks a value of a length srcgrad cannot see in a "
                    f"call, which {transform} does not support (in `{tree.name}`); pass the arguments one by one, "
                    "or unpack a tuple written out in the function (`args = (a, b)`, then `f(*args)`)",
                )


def _bindings_and_loose(tree, read):
    """({name: how many times the function binds it, parameters included}, the names read
    other than through the Name nodes in `read` (ids), or written into by an entry
    (`ws[0] = v`, `del d[k]`))."""
    bindings, loose = {}, set()
    for node in traversal.walk(tree):
        if type(node) is gast.Name:
            if isinstance(node.ctx, gast.Store):
                bindings[node.id] = bindings.get(node.id, 0) + 1
            elif id(node) not in read:
                loose.add(node.id)
        elif type(node) is gast.Subscript and type(node.value) is gast.Name and not isinstance(node.ctx, gast.Load):
            loose.add(node.value.id)
    for a in tree.args.args + tree.args.kwonlyargs + tree.args.posonlyargs:
        bindings[a.id] = bindings.get(a.id, 0) + 1
    return bindings, loose


_ONCE = (gast.Assign, gast.AugAssign, gast.AnnAssign, gast.Expr, gast.Return)  # statements whose value runs once
_DEFERRED = (gast.Lambda, gast.ListComp, gast.SetComp, gast.DictComp, gast.GeneratorExp, gast.IfExp, gast.BoolOp)


def hoist_returned_tuples(program, tree):
    """Spell out each `*g(...)` in a call of `tree` (in place) where `g` returns tuples of
    one length (module doc). Only where the statement (an assignment, an expression, a
    `return`, a `for`'s iterable) runs the call once and before any other call of it:
    its other calls must be the calls holding it as an argument, or inside its own
    arguments; none inside a lambda, comprehension, conditional or `and`/`or`. Returns
    whether it spelled out any."""
    stored = set(traversal.names_stored(tree)) | {a.id for a in tree.args.args + tree.args.kwonlyargs}
    namer = []

    def respell(stmt):
        root = stmt.iter if type(stmt) is gast.For else stmt.value if type(stmt) in _ONCE else None
        if root is None:
            return None
        found = _lone_starred_call(root)
        if found is None:
            return None
        holder, star = found
        length = _returned_length(star.value, program, stored)
        if length is None:
            return None
        if not namer:
            namer.append(Namer.for_tree(tree, lambda name: lookup_path([name], program)))
        name = namer[0].fresh(printing.unparse(star.value))
        at = holder.args.index(star)
        holder.args[at:at + 1] = [syntax.located(syntax.subscript(syntax.name(name), syntax.const(k)), star)
                                  for k in range(length)]
        return [syntax.assign(syntax.name(name, store=True), star.value), stmt]

    spelled = []
    respelling.respell_blocks(tree, lambda stmt: spelled.append(respell(stmt)) or spelled[-1])
    return any(s is not None for s in spelled)


def _lone_starred_call(root):
    """(the call, its argument `*g(...)`) where `root` holds one such argument and runs no
    call before it (`hoist_returned_tuples`), else None."""
    stars = [(n, a) for n in traversal.nodes(root) if type(n) is gast.Call
             for a in n.args if type(a) is gast.Starred and type(a.value) is gast.Call]
    if len(stars) != 1 or any(isinstance(n, _DEFERRED) for n in traversal.nodes(root)):
        return None
    holder, star = stars[0]
    inner = {id(n) for n in traversal.nodes(star.value)}
    holding = {id(n) for n in traversal.nodes(root) if type(n) is gast.Call and any(
        m is star for m in traversal.nodes(n))}
    if any(type(n) is gast.Call and id(n) not in inner and id(n) not in holding for n in traversal.nodes(root)):
        return None
    if any(type(a) is gast.Starred for a in star.value.args) or any(k.arg is None for k in star.value.keywords):
        return None
    return holder, star


def _returned_length(call, program, stored):
    """n where `call` calls a function of the user's whose every `return` writes a tuple
    display of n entries without `*`, else None."""
    parts = dotted_parts(call.func)
    if parts is None or parts[0] in stored:
        return None
    fn = lookup_path(parts, program)
    if not inspect.isfunction(fn) or inspect.isgeneratorfunction(fn):
        return None
    try:
        callee = frontend.load(fn).tree
    except (OSError, TypeError, SyntaxError):
        return None
    returns, stack = [], list(callee.body)
    while stack:
        node = stack.pop()
        if isinstance(node, (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef, gast.Lambda)):
            continue
        if type(node) is gast.Return:
            returns.append(node.value)
        stack.extend(gast.iter_child_nodes(node))
    lengths = {len(r.elts) if type(r) is gast.Tuple and not any(type(e) is gast.Starred for e in r.elts) else None
               for r in returns}
    return lengths.pop() if len(lengths) == 1 and None not in lengths else None
