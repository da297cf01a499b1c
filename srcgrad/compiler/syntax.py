"""The only module that constructs gast nodes; it also copies them and walks them.

Every other pass builds trees through these functions, so a gast upgrade (new
fields, renamed classes) touches this file alone (and printing.py, which prints
nodes as source text, and parsing.py, which converts Python's parse as gast does). Constructors fill fields that a gast version has and the
caller did not give with empty defaults.
"""

import collections

import gast

from . import parsing


class _Makers(dict):
    """Node class -> its constructor: keyword arguments for its fields (those not given are
    None, or a new [] for the list fields of `_LISTS`), set in `__dict__` in field order,
    without gast's per-call overhead. Compiled once per class."""

    def __missing__(self, cls):
        params, body = [], []
        for f in cls._fields:
            params.append(f"{f}={'_NO_LIST' if f in _LISTS else 'None'}")
            body.append(f"    _values[{f!r}] = [] if {f} is _NO_LIST else {f}" if f in _LISTS else f"    _values[{f!r}] = {f}")
        text = (f"def make({'*, ' + ', '.join(params) if params else ''}):\n    _node = _new(_cls)\n"
                f"    _values = _node.__dict__\n" + "".join(line + "\n" for line in body) + "    return _node\n")
        scope = {"_new": cls.__new__, "_cls": cls, "_NO_LIST": _NO_LIST}
        exec(text, scope)  # noqa: S102 - text made of the class's field names only
        found = self[cls] = scope["make"]
        return found


_LISTS = ("type_params", "decorator_list", "keywords", "type_ignores")
_NO_LIST = object()  # a list field not given
_MAKE = _Makers()


def walk(node):
    """Every node under `node`, itself first, in `gast.walk`'s (breadth-first) order,
    without its per-node generator overhead."""
    todo, ast_node, walked = collections.deque([node]), gast.AST, _WALKED
    pop, append, extend = todo.popleft, todo.append, todo.extend
    while todo:
        node = pop()
        cls = type(node)
        fields = walked.get(cls)
        if fields is None:
            fields = walked[cls] = tuple(f for f in cls._fields if f not in _SCALAR_FIELDS)
        if fields:
            values = node.__dict__
            for field in fields:
                value = values.get(field)
                if type(value) is list:
                    extend([v for v in value if isinstance(v, ast_node)])
                elif isinstance(value, ast_node):
                    append(value)
        yield node


# fields that never hold nodes (names, numbers, flags): `walk` skips them
_SCALAR_FIELDS = frozenset({"id", "attr", "arg", "kind", "type_comment", "is_async", "level", "module", "simple", "conversion"})
_WALKED = {}  # node class -> the fields `walk` looks into


_LOAD, _STORE = gast.Load(), gast.Store()  # field-less: shared, as copies share them


def name(id, store=False):
    return _MAKE[gast.Name](id=id, ctx=_STORE if store else _LOAD)


def const(value):
    if isinstance(value, float) and value < 0 or isinstance(value, int) and not isinstance(value, bool) and value < 0:
        return _MAKE[gast.UnaryOp](op=gast.USub(), operand=_MAKE[gast.Constant](value=-value, kind=None))
    return _MAKE[gast.Constant](value=value, kind=None)


def is_literal(value):
    """Whether `const(value)` writes `value` as a literal: None, a bool, number or string,
    or a tuple of them."""
    return value is None or isinstance(value, (bool, int, float, str)) or (
        isinstance(value, tuple) and all(is_literal(x) for x in value)
    )


def attr(value, attr_name):
    return _MAKE[gast.Attribute](value=value, attr=attr_name, ctx=_LOAD)


def dotted(path):
    """`dotted("np.linalg.norm")` -> the attribute chain."""
    first, *rest = path.split(".")
    node = name(first)
    for part in rest:
        node = attr(node, part)
    return node


def call(func, args=(), keywords=()):
    func = dotted(func) if isinstance(func, str) else func
    kws = [_MAKE[gast.keyword](arg=k, value=v) for k, v in keywords]
    return _MAKE[gast.Call](func=func, args=list(args), keywords=kws)


def binop(left, op, right):
    return _MAKE[gast.BinOp](left=left, op=op, right=right)


def add(left, right):
    return binop(left, gast.Add(), right)


def mul(left, right):
    return binop(left, gast.Mult(), right)


def neg(operand):
    return _MAKE[gast.UnaryOp](op=gast.USub(), operand=operand)


def not_(operand):
    return _MAKE[gast.UnaryOp](op=gast.Not(), operand=operand)


def bool_op(op, values):
    """`a and b and ...` (`op` gast.And) or `a or b or ...` (gast.Or) of `values`."""
    return values[0] if len(values) == 1 else _MAKE[gast.BoolOp](op=op, values=list(values))


def compare(left, op, right):
    return _MAKE[gast.Compare](left=left, ops=[op], comparators=[right])


def tuple_(elts, store=False):
    return _MAKE[gast.Tuple](elts=list(elts), ctx=_STORE if store else _LOAD)


def list_(elts):
    return _MAKE[gast.List](elts=list(elts), ctx=_LOAD)


def starred(value):
    """`*value`, in a call or a display."""
    return _MAKE[gast.Starred](value=value, ctx=_LOAD)


def set_(elts):
    return _MAKE[gast.Set](elts=list(elts))


def dict_(keys, values):
    """`{k: v, ...}`; a None key is a `**` entry."""
    return _MAKE[gast.Dict](keys=list(keys), values=list(values))


def list_comprehension(elt, target, iterable, ifs=()):
    """`[elt for target in iterable if ...]`, one generator; `target` a store-context node."""
    generator = _MAKE[gast.comprehension](target=target, iter=iterable, ifs=list(ifs), is_async=0)
    return _MAKE[gast.ListComp](elt=elt, generators=[generator])


def dict_comprehension(key, value, target, iterable):
    """`{key: value for target in iterable}`, one generator; `target` a store-context node."""
    generator = _MAKE[gast.comprehension](target=target, iter=iterable, ifs=[], is_async=0)
    return _MAKE[gast.DictComp](key=key, value=value, generators=[generator])


def subscript(value, index, store=False):
    return _MAKE[gast.Subscript](value=value, slice=index, ctx=_STORE if store else _LOAD)


def slice_(lower, upper, step):
    return _MAKE[gast.Slice](lower=lower, upper=upper, step=step)


def assign(target, value):
    target = name(target, store=True) if isinstance(target, str) else as_store(target)
    return _MAKE[gast.Assign](targets=[target], value=value, type_comment=None)


def aug_add(target, value):
    """`target += value` (used by reverse mode to mean "accumulate into an adjoint")."""
    return aug_assign(target, gast.Add(), value)


def aug_assign(target, op, value):
    """`target op= value` of the name `target`."""
    return _MAKE[gast.AugAssign](target=name(target, store=True), op=op, value=value)


def expr(value):
    return _MAKE[gast.Expr](value=value)


def return_(value):
    return _MAKE[gast.Return](value=value)


def if_(test, body, orelse=()):
    return _MAKE[gast.If](test=test, body=list(body) or [pass_()], orelse=list(orelse))


def for_(target, iter, body):
    target = name(target, store=True) if isinstance(target, str) else as_store(target)
    return _MAKE[gast.For](target=target, iter=iter, body=list(body) or [pass_()], orelse=[], type_comment=None)


def while_(test, body):
    return _MAKE[gast.While](test=test, body=list(body) or [pass_()], orelse=[])


def try_finally(body, finalbody):
    return _MAKE[gast.Try](body=list(body), handlers=[], orelse=[], finalbody=list(finalbody))


def try_except(body, types, as_name, handler):
    """`try: body` with one `except types as as_name: handler` (no `as` when `as_name` is None)."""
    clause = _MAKE[gast.ExceptHandler](type=types, name=name(as_name, store=True) if as_name else None, body=list(handler) or [pass_()])
    return _MAKE[gast.Try](body=list(body) or [pass_()], handlers=[clause], orelse=[], finalbody=[])


def raise_(exc):
    return _MAKE[gast.Raise](exc=exc, cause=None)


def with_(items, body):
    return _MAKE[gast.With](items=list(items), body=list(body))


def break_():
    return gast.Break()


def pass_():
    return gast.Pass()


def nonlocal_(names):
    return _MAKE[gast.Nonlocal](names=list(names))


def lambda_(params, body):
    """`lambda p, q: body`."""
    args = _MAKE[gast.arguments](args=[_MAKE[gast.Name](id=p, ctx=gast.Param()) for p in params], posonlyargs=[],
                                 vararg=None, kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[])
    return _MAKE[gast.Lambda](args=args, body=body)


def function_def(fn_name, params, body, docstring=None, defaults=(), kwonly=(), kw_defaults=()):
    args = _MAKE[gast.arguments](
        args=[_MAKE[gast.Name](id=p, ctx=gast.Param()) for p in params],
        posonlyargs=[],
        vararg=None,
        kwonlyargs=[_MAKE[gast.Name](id=p, ctx=gast.Param()) for p in kwonly],
        kw_defaults=list(kw_defaults),
        kwarg=None,
        defaults=list(defaults),
    )
    stmts = ([expr(const(docstring))] if docstring else []) + list(body)
    return _MAKE[gast.FunctionDef](name=fn_name, args=args, body=stmts, decorator_list=[], returns=None)


class Comment(str):
    """A comment line in generated code; `emit` prints it as `# text`."""


def comment(text):
    """A statement that `emit` prints as a comment and every other pass ignores."""
    return expr(_MAKE[gast.Constant](value=Comment(text), kind=None))


def comment_text(stmt):
    """The text of a comment statement, or None for any other statement."""
    if isinstance(stmt, gast.Expr) and isinstance(stmt.value, gast.Constant):
        if isinstance(stmt.value.value, Comment):
            return str(stmt.value.value)
    return None


def as_store(node):
    node = copy(node)
    for n in walk(node):
        if isinstance(n, (gast.Name, gast.Attribute, gast.Subscript, gast.Tuple, gast.List)):
            n.ctx = gast.Load()
    node.ctx = gast.Store()
    if isinstance(node, (gast.Tuple, gast.List)):
        node.elts = [as_store(e) for e in node.elts]
    return node


def as_load(node):
    node = copy(node)
    if hasattr(node, "ctx"):
        node.ctx = gast.Load()
    if isinstance(node, (gast.Tuple, gast.List)):
        node.elts = [as_load(e) for e in node.elts]
    return node


_LOCATION = ("lineno", "col_offset", "end_lineno", "end_col_offset")


def copy(node, name=None):
    """A deep copy that keeps source locations; with `name`, each `Name` becomes `name(Name)`.
    Fields and locations are copied through `__dict__` (gast's keyword constructor is slow);
    `ctx` and operator nodes (no fields, no location) are shared."""
    if type(node) is list:
        return [copy(n, name) for n in node]
    if not isinstance(node, gast.AST):
        return node
    cls = type(node)
    if name is not None and cls is gast.Name:
        return name(node)
    old = node.__dict__
    if cls in _LEAVES and old.keys() in _LEAVES[cls] and old.get("annotation") is None:
        new = cls.__new__(cls)  # a name or constant as made here: every field a shared atom
        new.__dict__.update(old)
        return new
    if not old and not cls._attributes:
        return node
    new = cls.__new__(cls)
    values, leaves = new.__dict__, (_LEAVES if name is None else _CONSTANT_LEAF)
    for f in cls._fields:
        value = old.get(f)
        kind = type(value)
        if value is None or kind in _SHARED:
            values[f] = value
        elif kind is list:
            items = values[f] = []
            for v in value:  # names and constants (most nodes) copied here, as below
                leaf = v.__dict__ if type(v) in leaves else None
                if leaf is not None and leaf.keys() in leaves[type(v)] and leaf.get("annotation") is None:
                    copied = type(v).__new__(type(v))
                    copied.__dict__.update(leaf)
                    items.append(copied)
                else:
                    items.append(copy(v, name))
        elif kind in leaves and value.__dict__.keys() in leaves[kind] and value.__dict__.get("annotation") is None:
            copied = values[f] = kind.__new__(kind)
            copied.__dict__.update(value.__dict__)
        else:
            values[f] = copy(value, name)
    for a in _LOCATION:
        if a in old:
            values[a] = old[a]
    return new


# what copies share: atoms and the field-less `ctx` and operator nodes
_SHARED = {str, int, float, bool} | {
    c for c in vars(gast).values() if isinstance(c, type) and issubclass(c, gast.AST) and not c._fields and not c._attributes
}


# the keys of a Name's and a Constant's `__dict__` with all their fields and all or no location:
# then none holds a list or a node but a shared `ctx` (an annotation aside), so `copy` copies the dict
_LEAVES = {cls: ({*cls._fields}, {*cls._fields, *_LOCATION}) for cls in (gast.Name, gast.Constant)}
_CONSTANT_LEAF = {gast.Constant: _LEAVES[gast.Constant]}  # with a `name` function, names go to it


def located(new, old):
    """Give `new` (and its children without a location) the location of `old`."""
    if old is None or not hasattr(old, "lineno") or not isinstance(new, gast.AST):
        return new
    have, own = type(old)._attributes, old.__dict__
    where = []  # (attribute, value) for each location attribute `old` has (its own, or its class's)
    for a in _LOCATION:
        if a in have:
            value = own[a] if a in own else getattr(old, a, _ABSENT)
            if value is not _ABSENT:
                where.append((a, value))
    stack, ast_node, children, leaves = [new], gast.AST, _CHILDREN, _LEAF_CLASSES
    while stack:  # as gast.copy_location(n, old) on each node n without a line
        n = stack.pop()
        cls, values = type(n), n.__dict__
        wanted = cls._attributes
        if "lineno" in wanted and values.get("lineno") is None:
            for a, value in where:
                if a in wanted:
                    values[a] = value
        for field in children[cls]:
            value = values.get(field)
            for v in value if type(value) is list else (value,):
                if type(v) in leaves and v.__dict__.get("annotation") is None:  # a name or constant: here
                    leaf = v.__dict__
                    if leaf.get("lineno") is None:
                        leaf.update(where)
                elif isinstance(v, ast_node):
                    stack.append(v)
    return new


_ABSENT = object()
_LEAF_CLASSES = frozenset({gast.Name, gast.Constant})  # located where met: all location attributes, no children


def parse(text, mode="exec"):
    """`gast.parse(text, mode=mode)`: a gast Module (an Expression for "eval"), built faster (parsing.py)."""
    return parsing.parse(text, mode)


def is_name(node, id=None):
    return isinstance(node, gast.Name) and (id is None or node.id == id)


def is_const(node):
    return isinstance(node, gast.Constant) or (
        isinstance(node, gast.UnaryOp)
        and isinstance(node.op, (gast.USub, gast.UAdd))
        and isinstance(node.operand, gast.Constant)
    )


def names_read(node):
    """Names loaded anywhere in `node` (a node or a list of nodes), in order, without duplicates."""
    seen = {}
    for root in node if isinstance(node, list) else [node]:
        for n in walk(root):
            if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load):
                seen.setdefault(n.id, None)
    return list(seen)


def nodes(node):
    """Every node under `node`, itself first, in no particular order, leaving out the
    field-less `ctx` and operator nodes (a faster `walk`). A node's children are read
    after it is yielded, so a caller may replace them first."""
    stack, ast_node, children = [node], gast.AST, _CHILDREN
    pop, push, extend = stack.pop, stack.append, stack.extend
    while stack:
        n = pop()
        yield n
        cls = type(n)
        fields = children[cls]
        values = n.__dict__
        for field in fields:
            value = values.get(field)
            if type(value) is list:
                extend([v for v in value if isinstance(v, ast_node)])
            elif isinstance(value, ast_node):
                push(value)


def holds(node, classes):
    """Whether a node of `classes` (no `ctx` or operator classes) is under `node`, itself
    included: `any(isinstance(n, classes) for n in walk(node))` without the generator."""
    stack, ast_node, children = [node], gast.AST, _CHILDREN
    pop, push = stack.pop, stack.append
    # names and constants (most nodes) are not stacked unless looked for
    leaves = frozenset() if any(issubclass(c, classes) for c in _LEAF_CLASSES) else _LEAF_CLASSES
    while stack:
        n = pop()
        if isinstance(n, classes):
            return True
        values = n.__dict__
        for field in children[type(n)]:
            value = values.get(field)
            for v in value if type(value) is list else (value,):
                if type(v) in leaves:
                    if v.__dict__.get("annotation") is not None:
                        push(v.__dict__["annotation"])
                elif isinstance(v, ast_node):
                    push(v)
    return False


def statements(node):
    """Every statement under `node` (itself first when it is one), in source order:
    statements live only in statement lists, so expressions are not looked into."""
    stack, stmt, expression, ast_node, lists = [node], gast.stmt, gast.expr, gast.AST, _BLOCK_FIELDS
    while stack:
        n = stack.pop()
        if isinstance(n, stmt):
            yield n
        inner = []
        values = n.__dict__
        for field in lists[type(n)]:  # statement lists, handlers, cases
            value = values.get(field)
            if type(value) is list:
                inner += [v for v in value if isinstance(v, ast_node) and not isinstance(v, expression)]
        stack.extend(reversed(inner))


class _BlockFields(dict):
    """Node class -> its fields that may hold statements, handlers or cases ("" for none)."""

    def __missing__(self, cls):
        found = self[cls] = tuple(f for f in cls._fields if f in ("body", "orelse", "finalbody", "handlers", "cases")) or ("",)
        return found


_BLOCK_FIELDS = _BlockFields()


def load_counts(node, counts=None):
    """{name: how many times it is loaded} over everything under `node`, added to `counts`."""
    counts = {} if counts is None else counts
    get = counts.get
    for name in _loads(node):
        counts[name] = get(name, 0) + 1
    return counts


def name_nodes(node):
    """Every Name node under `node`, itself included, in no particular order (one walk:
    names and constants, most nodes, taken where they are met, without the stack)."""
    out, ast_node, name_node, constant, children = [], gast.AST, gast.Name, gast.Constant, _CHILDREN
    stack = [node]
    pop, push, found = stack.pop, stack.append, out.append
    while stack:
        n = pop()
        cls = type(n)
        values = n.__dict__
        if cls is name_node:
            found(n)
            if values.get("annotation") is None:
                continue
        for field in children[cls]:
            value = values.get(field)
            for v in value if type(value) is list else (value,):
                kind = type(v)
                if kind is name_node:
                    found(v)
                    annotation = v.__dict__.get("annotation")
                    if annotation is not None:
                        push(annotation)
                elif kind is not constant and isinstance(v, ast_node):
                    push(v)
    return out


def name_counts(node):
    """({name: how many times it is loaded}, {name: how many times it is otherwise met: stored,
    deleted, a parameter}) over every Name under `node`, itself included."""
    loads, others = {}, {}
    ast_node, name_node, constant, load, children = gast.AST, gast.Name, gast.Constant, gast.Load, _CHILDREN
    stack = [node]
    pop, push = stack.pop, stack.append
    while stack:  # names and constants (most nodes) are counted where they are met, not stacked
        n = pop()
        cls = type(n)
        values = n.__dict__
        if cls is name_node:
            counts = loads if isinstance(values.get("ctx"), load) else others
            counts[values["id"]] = counts.get(values["id"], 0) + 1
            if values.get("annotation") is None:
                continue
        for field in children[cls]:
            value = values.get(field)
            for v in value if type(value) is list else (value,):
                kind = type(v)
                if kind is name_node:
                    leaf = v.__dict__
                    counts = loads if isinstance(leaf.get("ctx"), load) else others
                    counts[leaf["id"]] = counts.get(leaf["id"], 0) + 1
                    if leaf.get("annotation") is not None:
                        push(leaf["annotation"])
                elif kind is not constant and isinstance(v, ast_node):
                    push(v)
    return loads, others


def add_loads(node, names):
    """Add to the set `names` the names loaded anywhere in `node` (a node or a list of
    nodes: one walk; `names_read` without the order, faster)."""
    names.update(_loads(node))
    return names


def _loads(node):
    """The names loaded under `node` (a node or a list of nodes), once per load, in no
    particular order (every caller counts them or collects them in a set)."""
    out, ast_node, name_node, constant, load, children = [], gast.AST, gast.Name, gast.Constant, gast.Load, _CHILDREN
    stack = list(node) if type(node) is list else [node]
    pop, push, found = stack.pop, stack.append, out.append
    while stack:  # names and constants (most nodes) are read where they are met, not stacked
        n = pop()
        cls = type(n)
        values = n.__dict__
        if cls is name_node:
            if isinstance(values.get("ctx"), load):
                found(values["id"])
            if values.get("annotation") is None:
                continue
        for field in children[cls]:
            value = values.get(field)
            for v in value if type(value) is list else (value,):
                kind = type(v)
                if kind is name_node:
                    leaf = v.__dict__
                    if isinstance(leaf.get("ctx"), load):
                        found(leaf["id"])
                    if leaf.get("annotation") is not None:
                        push(leaf["annotation"])
                elif kind is not constant and isinstance(v, ast_node):
                    push(v)
    return out


# fields that hold no nodes, or only the field-less `ctx` and operator ones
_LEAF_FIELDS = _SCALAR_FIELDS | {"ctx", "op", "ops"}
class _ChildFields(dict):
    """Node class -> its fields that may hold nodes other than `ctx` and operators ("" for none)."""

    def __missing__(self, cls):
        found = self[cls] = tuple(f for f in cls._fields if f not in _LEAF_FIELDS) or ("",)
        return found


_CHILDREN = _ChildFields()
# The fields of the node class `cls` that may hold nodes other than `ctx` and operators:
# `child_fields(cls)`, a dict lookup (no Python call: the walks of every pass ask it per node).
child_fields = _CHILDREN.__getitem__


def rewrite(node, rewrites):
    """`node` rewritten in place as an `ast.NodeTransformer` with a `visit_<class>` for each
    of `rewrites` (node class -> function; no names or constants) would: bottom-up, in
    field order, each node of those classes replaced by what its function returns for it
    after its children. Returns `node` or its replacement."""
    values = node.__dict__
    for field in _CHILDREN[type(node)]:
        value = values.get(field)
        if type(value) is list:
            for i, item in enumerate(value):
                cls = type(item)
                if cls is gast.Constant or (cls is gast.Name and item.annotation is None) or not isinstance(item, gast.AST):
                    continue  # a leaf: nothing to rewrite under it
                new = rewrite(item, rewrites)
                if new is not item:
                    value[i] = new
        elif isinstance(value, gast.AST):
            cls = type(value)
            if cls is gast.Constant or (cls is gast.Name and value.annotation is None):
                continue
            new = rewrite(value, rewrites)
            if new is not value:
                setattr(node, field, new)
    fn = rewrites.get(type(node))
    return node if fn is None else fn(node)


# the statement classes `if`, `for` and `while` (gast's classes have no subclasses: `type(s) in
# BRANCHES_AND_LOOPS` is `isinstance(s, (gast.If, gast.For, gast.While))`, without a walk of bases)
BRANCHES_AND_LOOPS = frozenset({gast.If, gast.For, gast.While})


def blocks_in(stmt):
    """The statement lists directly inside the statement `stmt`: its body, else and
    finally blocks and its handlers' bodies (a `def`'s body too)."""
    for field in ("body", "orelse", "finalbody"):
        inner = getattr(stmt, field, None)
        if isinstance(inner, list) and inner and isinstance(inner[0], gast.stmt):
            yield inner
    for handler in getattr(stmt, "handlers", ()):
        yield handler.body


def jumps_out(stmts, in_loop=False):
    """The `return`s under the statements `stmts` (not in nested functions), and the
    `break`s and `continue`s of no loop under them (of none at all with `in_loop`)."""
    for s in stmts:
        if isinstance(s, gast.Return) or (not in_loop and isinstance(s, (gast.Break, gast.Continue))):
            yield s
        elif isinstance(s, gast.FunctionDef):
            continue
        for field in ("body", "orelse", "finalbody"):
            inner = getattr(s, field, None)
            if isinstance(inner, list):
                yield from jumps_out(inner, in_loop or (isinstance(s, (gast.For, gast.While)) and field == "body"))


def names_stored(node):
    """Names assigned anywhere in `node` (targets, for targets, augmented targets), each
    once, in no particular order."""
    seen, name_node, store, ast_node, children = {}, gast.Name, gast.Store, gast.AST, _CHILDREN
    for root in node if isinstance(node, list) else [node]:
        stack = [root]  # `nodes(root)`'s order, without its generator
        pop, push, extend = stack.pop, stack.append, stack.extend
        while stack:
            n = pop()
            cls = type(n)
            values = n.__dict__
            if cls is name_node and isinstance(values.get("ctx"), store):
                seen[values["id"]] = None
            for field in children[cls]:
                value = values.get(field)
                if type(value) is list:
                    extend([v for v in value if isinstance(v, ast_node)])
                elif isinstance(value, ast_node):
                    push(value)
    return list(seen)
