"""Walks over gast trees, and the questions about a tree they answer: which nodes,
statements and names it holds, which names it reads and stores, where its blocks are.

The walks read nodes' `__dict__` field by field (`child_fields` per class), leaving
out the field-less `ctx` and operator nodes where they say so; none changes a tree,
but `rewrite`, which replaces nodes by identity where asked.
"""

import collections

import gast


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
            fields = walked[cls] = tuple(f for f in cls._fields if f not in SCALAR_FIELDS)
        if fields:
            values = node.__dict__
            for field in fields:
                value = values.get(field)
                if type(value) is list:
                    extend([v for v in value if isinstance(v, ast_node)])
                elif isinstance(value, ast_node):
                    append(value)
        yield node


def inner_nodes(node, names=False):
    """`walk(node)` without the names (unless `names`) and constants that hold nothing (no
    annotation) and the field-less `ctx` and operator nodes, for a pass that looks for
    none of them: the other nodes in the same order (the nodes left out have no children)."""
    todo, ast_node, children, constant = collections.deque([node]), gast.AST, CHILDREN, gast.Constant
    name_node = None if names else gast.Name
    pop, append = todo.popleft, todo.append
    while todo:
        node = pop()
        values = node.__dict__
        for field in children[type(node)]:
            value = values.get(field)
            for v in value if type(value) is list else (value,):
                kind = type(v)
                if kind is constant or (kind is name_node and v.__dict__.get("annotation") is None):
                    continue
                if isinstance(v, ast_node):
                    append(v)
        yield node


# fields that never hold nodes (names, numbers, flags): `walk` skips them
SCALAR_FIELDS = frozenset({"id", "attr", "arg", "kind", "type_comment", "is_async", "level", "module", "simple", "conversion"})


_WALKED = {}  # node class -> the fields `walk` looks into


LEAF_CLASSES = frozenset({gast.Name, gast.Constant})  # nodes with no children (most nodes of a tree)


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
    stack, ast_node, children = [node], gast.AST, CHILDREN
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


def branch_nodes(node):
    """`nodes(node)` without the names and constants that hold nothing (no annotation):
    the other nodes in the same order (the nodes left out have no children), for a pass
    that looks for neither."""
    stack, ast_node, children, name_node, constant = [node], gast.AST, CHILDREN, gast.Name, gast.Constant
    pop, push = stack.pop, stack.append
    while stack:
        n = pop()
        yield n
        values = n.__dict__
        for field in children[type(n)]:
            value = values.get(field)
            if type(value) is list:
                for v in value:
                    kind = type(v)
                    if kind is constant or (kind is name_node and v.__dict__.get("annotation") is None):
                        continue
                    if isinstance(v, ast_node):
                        push(v)
            else:
                kind = type(value)
                if kind is constant or (kind is name_node and value.__dict__.get("annotation") is None):
                    continue
                if isinstance(value, ast_node):
                    push(value)


def holds(node, classes):
    """Whether a node of `classes` (no `ctx` or operator classes) is under `node`, itself
    included: `any(isinstance(n, classes) for n in walk(node))` without the generator.
    Statement classes are looked for among the statements alone (`statements`): no
    expression holds a statement."""
    if _STATEMENT_CLASSES[classes]:
        return any(isinstance(s, classes) for s in statements(node))
    stack, ast_node, children = [node], gast.AST, CHILDREN
    pop, push = stack.pop, stack.append
    # names and constants (most nodes) are not stacked unless looked for
    leaves = frozenset() if any(issubclass(c, classes) for c in LEAF_CLASSES) else LEAF_CLASSES
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
    stack, stmt, expression, ast_node, lists, none = [node], gast.stmt, gast.expr, gast.AST, _BLOCK_FIELDS, _NO_BLOCKS
    pop = stack.pop
    while stack:
        n = pop()
        if isinstance(n, stmt):
            yield n
        fields = lists[type(n)]
        if fields is none:  # a simple statement (most of them): nothing inside
            continue
        inner = []
        values = n.__dict__
        for field in fields:  # statement lists, handlers, cases
            value = values.get(field)
            if type(value) is list:
                inner += [v for v in value if isinstance(v, ast_node) and not isinstance(v, expression)]
        stack.extend(reversed(inner))


class _StatementClasses(dict):
    """A class or tuple of classes -> whether each is a statement class."""

    def __missing__(self, classes):
        found = self[classes] = all(issubclass(c, gast.stmt) for c in (classes if type(classes) is tuple else (classes,)))
        return found


_STATEMENT_CLASSES = _StatementClasses()


class _BlockFields(dict):
    """Node class -> its fields that may hold statements, handlers or cases ("" for none)."""

    def __missing__(self, cls):
        found = self[cls] = tuple(f for f in cls._fields if f in ("body", "orelse", "finalbody", "handlers", "cases")) or _NO_BLOCKS
        return found


_NO_BLOCKS = ("",)  # the block fields of a class without any (one tuple, told apart by identity)


_BLOCK_FIELDS = _BlockFields()
block_fields = _BLOCK_FIELDS.__getitem__  # node class -> its fields that may hold statements ("" for none)


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
    out, ast_node, name_node, constant, children = [], gast.AST, gast.Name, gast.Constant, CHILDREN
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
    ast_node, name_node, constant, load, children = gast.AST, gast.Name, gast.Constant, gast.Load, CHILDREN
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
    out, ast_node, name_node, constant, load, children = [], gast.AST, gast.Name, gast.Constant, gast.Load, CHILDREN
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
_LEAF_FIELDS = SCALAR_FIELDS | {"ctx", "op", "ops"}


class _ChildFields(dict):
    """Node class -> its fields that may hold nodes other than `ctx` and operators ("" for none)."""

    def __missing__(self, cls):
        found = self[cls] = tuple(f for f in cls._fields if f not in _LEAF_FIELDS) or ("",)
        return found


CHILDREN = _ChildFields()


# The fields of the node class `cls` that may hold nodes other than `ctx` and operators:
# `child_fields(cls)`, a dict lookup (no Python call: the walks of every pass ask it per node).
child_fields = CHILDREN.__getitem__


def rewrite(node, rewrites):
    """`node` rewritten in place as an `ast.NodeTransformer` with a `visit_<class>` for each
    of `rewrites` (node class -> function; no names or constants) would: bottom-up, in
    field order, each node of those classes replaced by what its function returns for it
    after its children. Returns `node` or its replacement."""
    values = node.__dict__
    for field in CHILDREN[type(node)]:
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


def guards(stmt, inner):
    """Whether the statement list `inner` of `stmt` is the body of a `try` statement whose
    handlers or `finally` block run when it raises."""
    return type(stmt) is gast.Try and inner is stmt.body and bool(stmt.handlers or stmt.finalbody)


def guarded_loops(stmts, guard=None):
    """{id of a `for` statement under `stmts` (not in nested functions) that lies in the
    body of a `try` statement with handlers or a `finally` block (`guards`): the innermost
    such `try`}."""
    found = {}
    for s in stmts:
        if guard is not None and type(s) is gast.For:
            found[id(s)] = guard
        if not isinstance(s, (gast.FunctionDef, gast.ClassDef)):
            for inner in blocks_in(s):
                found.update(guarded_loops(inner, s if guards(s, inner) else guard))
    return found


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
    seen, name_node, store, ast_node, children = {}, gast.Name, gast.Store, gast.AST, CHILDREN
    for root in node if isinstance(node, list) else [node]:
        stack = [root]  # `nodes(root)`'s order, without its generator and the nodes that
        # can hold no store: constants, and read names without an annotation (most nodes)
        pop, push = stack.pop, stack.append
        while stack:
            n = pop()
            cls = type(n)
            values = n.__dict__
            if cls is name_node and isinstance(values.get("ctx"), store):
                seen[values["id"]] = None
            for field in children[cls]:
                value = values.get(field)
                for v in value if type(value) is list else (value,):
                    kind = type(v)
                    if kind is name_node:
                        leaf = v.__dict__
                        if isinstance(leaf.get("ctx"), store) or leaf.get("annotation") is not None:
                            push(v)
                    elif kind is not _CONSTANT and isinstance(v, ast_node):
                        push(v)
    return list(seen)


_CONSTANT = gast.Constant


def own_nodes(body):
    """The nodes of the statements `body`, not those of nested functions, classes or lambdas
    (the order of popping `gast.iter_child_nodes` from a stack, `ctx` and operator nodes
    included, read field by field from each node's `__dict__`)."""
    todo, ast_node, fields_of, nested = list(body), gast.AST, _WALKED, _NESTED  # walk's table of fields
    pop, push, extend = todo.pop, todo.append, todo.extend
    while todo:
        node = pop()
        yield node
        if not isinstance(node, nested):
            cls = type(node)
            fields = fields_of.get(cls)
            if fields is None:
                fields = fields_of[cls] = tuple(f for f in cls._fields if f not in SCALAR_FIELDS)
            values = node.__dict__
            for field in fields:
                value = values.get(field)
                if type(value) is list:
                    extend([v for v in value if isinstance(v, ast_node)])
                elif isinstance(value, ast_node):
                    push(value)


_NESTED = (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef, gast.Lambda)  # their nodes are not the body's own
