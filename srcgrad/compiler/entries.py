"""Containers passed whole (dicts, lists, tuples, namedtuples, dataclass instances) that
the derivative only reads entries of: what code specialized to one call signature knows
of them, and their gradients gathered entry by entry.

A call's signature describes such an argument by a `TreeKind` (cache.py): its type, a
dict's keys, and each entry's shape and dtype (or type). Where the code reads the
container only as `w = p['W']` / `w = p.w` (and the backward pass only through
`getitem_vjp(g, p, 'W')`, `field_grad(g, p, 'w')` and gradient helpers that read the
shape of `p`), the entries are those of the argument: `Signature.entries` gives shapes.py
and kinds.py their shapes and types. A container entry read into a local that is read
the same way is such a container too (nested structures).

The gradient of such a container parameter, where the backward pass builds it only by
`getitem_vjp` / `field_grad` statements at its top level, is gathered one variable per
entry and built once at the return (zeros for the entries never read):

Before:                                                 After:
    p_bar = getitem_vjp(b_bar, p, 'b')                      p_b_bar = b_bar
    p_bar = add_grad(p_bar, getitem_vjp(w_bar, p, 'W'))     p_W_bar = w_bar
    return unbroadcast(p_bar, p)                            return {'W': p_W_bar, 'b': p_b_bar}

A container entry read into locals that are read only so (`q = p['l1']`, then
`q['W']`) is gathered per entry of its own, `{'l1': {'W': ..., 'b': ...}}`, and the
`p_bar = getitem_vjp(q_bar, p, 'l1')` statements go; where one of its reads is of
another kind, its gradient is gathered whole (`add_grad`, `structure_like`).

An entry's gradient is returned as it is where kinds.py proves it of the entry's shape
and dtype, else through `unbroadcast` (`structure_like` where it may be None, or the
entry is a container), as `unbroadcast(p_bar, p)` made each. (Copy propagation then
folds `p_b_bar = b_bar` away.)
"""

import dataclasses

import gast
import numpy as np

from .. import runtime
from ..rules import shapes as rules_shapes
from . import syntax, traversal


class ArrayKind(tuple):
    """The dispatch key of an array whose dtype is not float64: (shape, dtype)."""

    __slots__ = ()

    def __new__(cls, shape, dtype):
        return tuple.__new__(cls, (shape, dtype))


class TreeKind(tuple):
    """The dispatch key of a dict, list, tuple, namedtuple or dataclass instance:
    (its type, a dict's keys in order (None for the others), the dispatch key of each
    entry in order). cache.describe makes them."""

    __slots__ = ()


def entry_kinds(kind):
    """For the TreeKind `kind`: each entry's key (a dict's key, a sequence's index, a
    dataclass's field name; a namedtuple's index and field name) -> (shape or None,
    type: a dtype for an array, the TreeKind of a described container)."""
    container, keys, entries = kind
    fields = runtime.records.record_fields(container) if keys is None else None
    named = fields is not None and issubclass(container, tuple)
    if keys is None:
        keys = fields if fields is not None and not named else range(len(entries))
    found = {key: (shape_of(entry), type_of(entry)) for key, entry in zip(keys, entries)}
    if named:
        found.update(zip(fields, [found[i] for i in range(len(entries))]))
    return found


def shape_of(key):
    """The shape the dispatch key of one value tells: None where it tells none."""
    if type(key) is tuple:
        return key
    if type(key) is ArrayKind:
        return key[0]
    if type(key) is TreeKind:
        return None
    return () if issubclass(key, (float, int, complex, np.number, np.bool_)) else None


def type_of(key):
    """What the dispatch key of one value tells it is: a dtype for an array, its
    TreeKind for a described container, its type otherwise."""
    if type(key) is tuple:
        return _FLOAT64
    if type(key) is ArrayKind:
        return key[1]
    return key


_FLOAT64 = np.dtype(np.float64)


def entry_read(node, entries):
    """(shape or None, type) of the entry that `node` reads, `c[key]` or `c.key` with a
    constant `key` of a container `c` in `entries` (see `Signature`); None otherwise."""
    cls = type(node)
    if cls is gast.Subscript:
        key = node.slice.value if type(node.slice) is gast.Constant else _NO_KEY
    elif cls is gast.Attribute:
        key = node.attr
    else:
        return None
    value = node.value
    if type(value) is not gast.Name or value.id not in entries:
        return None
    try:
        return entries[value.id].get(key)
    except TypeError:  # an unhashable constant
        return None


_NO_KEY = object()


def read_only(forward, backward, trees, namer):
    """Signature.entries for the containers `trees` (parameter name -> TreeKind) that
    `forward` and `backward` only read entries of, and the locals holding their
    container entries that are read so too; and `_Counts` for `gather`."""
    helpers = {name for name, obj in namer.helpers.items() if obj in _READING}
    uses, allowed, stores, entry_defs, attributes = {}, {}, {}, {}, {}
    for stmt in forward + backward:
        _count(stmt, helpers, uses, allowed, stores, entry_defs, attributes)
    found, within = {}, {}

    def add(name, tree):
        if type(tree) is not TreeKind or uses.get(name, 0) != allowed.get(name, 0):
            return
        if not attributes.get(name, set()) <= set(entry_kinds(tree)):  # `f = d.update`: a method, not a field
            return
        found[name] = entries = entry_kinds(tree)
        for local, (container, key) in entry_defs.items():
            if container == name and stores.get(local) == 1 and local not in found and key in entries:
                within[local] = (container, key)
                add(local, entries[key][1])

    for name, tree in trees.items():
        if not stores.get(name):
            add(name, tree)
    return found, _Counts(uses, {local: held for local, held in within.items() if local in found})


@dataclasses.dataclass(frozen=True)
class _Counts:
    """What `read_only` found for `gather`: how many times each name occurs in the
    derivative (`uses`), and for each local container read only, the container and key
    it was read from (`within`)."""

    uses: dict
    within: dict


def _count(stmt, helpers, uses, allowed, stores, entry_defs, attributes):
    """Count in `uses` every name's occurrences under `stmt`, in `allowed` those that only
    read entries or a shape (`x = c[k]`, `x = c.k`, an argument of a helper in
    `helpers`) and the stores, in `stores` the stores; `entry_defs`: x -> (c, k) for
    `x = c[k]` with a constant k; `attributes`: c -> the names k of `x = c.k`, which
    must be fields. One walk without generators: it runs over the whole derivative."""
    if type(stmt) is gast.Assign and len(stmt.targets) == 1 and type(stmt.targets[0]) is gast.Name:
        value = stmt.value
        if type(value) in (gast.Subscript, gast.Attribute) and type(value.value) is gast.Name:
            container = value.value.id
            allowed[container] = allowed.get(container, 0) + 1
            if type(value) is gast.Attribute:
                attributes.setdefault(container, set()).add(value.attr)
            key = value.attr if type(value) is gast.Attribute else (
                value.slice.value if type(value.slice) is gast.Constant else None)
            if key is not None and not isinstance(key, (list, dict, set)):
                entry_defs[stmt.targets[0].id] = (container, key)
    name_node, call_node, constant, load, ast_node = gast.Name, gast.Call, gast.Constant, gast.Load, gast.AST
    stack = [stmt] if isinstance(stmt, ast_node) else _marker_nodes(stmt)
    pop, push = stack.pop, stack.append
    while stack:
        n = pop()
        cls = type(n)
        if cls is name_node:
            name = n.id
            uses[name] = uses.get(name, 0) + 1
            if type(n.ctx) is not load:
                stores[name] = stores.get(name, 0) + 1
                allowed[name] = allowed.get(name, 0) + 1
            if n.annotation is not None:
                push(n.annotation)
            continue
        if cls is call_node and type(n.func) is name_node and n.func.id in helpers:
            for arg in n.args:
                if type(arg) is name_node:
                    allowed[arg.id] = allowed.get(arg.id, 0) + 1
        values = n.__dict__
        for field in traversal.child_fields(cls):
            value = values.get(field)
            for v in value if type(value) is list else (value,):
                if type(v) is not constant and isinstance(v, ast_node):
                    push(v)


def _marker_nodes(marker):
    """The nodes a pseudo statement (a dataclass: a tape marker, an undo block) holds,
    those of the pseudo statements it holds included."""
    found = []
    if dataclasses.is_dataclass(marker):
        for field in dataclasses.fields(marker):
            value = getattr(marker, field.name)
            for item in value if isinstance(value, list) else [value]:
                if isinstance(item, gast.AST):
                    found.append(item)
                elif dataclasses.is_dataclass(item):
                    found += _marker_nodes(item)
    return found


# the helpers that read no more of a container than its structure and shapes
_READING = (rules_shapes._getitem_vjp, runtime.field_grad, runtime.zeros_like_grad, runtime.unbroadcast,
            runtime.structure_like, runtime.item_grad)


def gather(backward, targets, entries, counts, none_init, namer):
    """Rewrite in place the top-level statements of `backward` that build the gradient
    of each container parameter of `targets` in `entries` (see the module docstring);
    `counts`: `read_only`'s. The gradient of a container entry read into a local
    container (`q = p['l1']`, nested structures) is gathered per entry of that local
    where all its reads are such locals', and `p_bar = getitem_vjp(q_bar, p, 'l1')` goes.
    Returns param -> (path of keys -> (the variable gathering that entry's gradient,
    whether it may hold None)) for the parameters whose gradient was gathered; a path
    to a container entry gathered per entry has None."""
    bind = namer.helpers
    forms = ({n for n, obj in bind.items() if obj is rules_shapes._getitem_vjp or obj is runtime.field_grad},
             {n for n, obj in bind.items() if obj is runtime.add_grad})
    gathered = {}
    for param in targets:
        plan = _plan(param, backward, entries, counts, forms, namer, outer=0)
        if plan is None:
            continue
        contributions = sorted(_contributions(plan, ()), key=lambda c: c[0])
        flat = {path for _, path, _, flattened in contributions if flattened}
        if any(path in flat for _, path, _, flattened in contributions if not flattened):
            continue  # an entry read both through locals gathered per entry and otherwise
        per_path = gathered[param] = {}
        dropped = set()
        for index, path, g, flattened in contributions:
            if flattened:  # `p_bar = getitem_vjp(q_bar, p, 'l1')`: q_bar's entries are gathered
                per_path.setdefault(path, (None, False))
                dropped.add(index)
                continue
            variable, unset = per_path.get(path, (None, False))
            unset = unset or g in none_init  # may hold None (no gradient yet): add_grad adds it
            kind = _kind_at(entries[param], path)
            if variable is None:
                variable = namer.fresh("_".join([param] + [_label(k) for k in path] + ["bar"]))
                total = syntax.name(g)
            elif unset or type(kind) is TreeKind:
                total = syntax.call(syntax.name(namer.helper("add_grad", runtime.add_grad)),
                                    [syntax.name(variable), syntax.name(g)])
            else:
                total = syntax.add(syntax.name(variable), syntax.name(g))
            per_path[path] = (variable, unset)
            backward[index] = syntax.located(syntax.assign(variable, total), backward[index])
        backward[:] = [stmt for index, stmt in enumerate(backward) if index not in dropped]
    return gathered


def _plan(container, backward, entries, counts, forms, namer, outer):
    """The statements building the gradient of `container` (read only: in `entries`),
    [(index, key, g, the plan of the local container whose adjoint g is, or None)];
    None where they are not all of its adjoint's occurrences but `outer` (those where it
    is the g of its container's statements)."""
    adjoint = namer.adjoint(container)
    kinds = entries[container]
    found = _statements(backward, adjoint, container, kinds, forms, counts.uses.get(adjoint, 0) - outer)
    if found is None:
        return None
    by_key = {}
    for index, g, key, _ in found:
        by_key.setdefault(_position(kinds, key), []).append((index, g))
    plan = []
    for key, reads in by_key.items():
        inner = [_local_plan(g.id, index, container, key, kinds, backward, entries, counts, forms, namer)
                 for index, g in reads]
        flat = all(p is not None for p in inner)  # every read of the entry is a local's, gathered per entry
        plan += [(index, key, g.id, p if flat else None) for (index, g), p in zip(reads, inner)]
    return plan


def _local_plan(g, at, container, key, kinds, backward, entries, counts, forms, namer):
    """The plan of the local container whose adjoint is `g`, read as `container[key]`
    (an entry that is itself a container) by the statement at `at`, or None: also where
    one of its statements comes after that one, which reads the sum so far."""
    local = namer.primal_of(g)
    if local is None or type(kinds[key][1]) is not TreeKind or local not in entries:
        return None
    held = counts.within.get(local)
    if held is None or held[0] != container or _position(kinds, held[1]) != key:
        return None
    plan = _plan(local, backward, entries, counts, forms, namer, outer=1)
    if plan is None or any(index > at for index, _, _, _ in _contributions(plan, ())):
        return None
    return plan


def _contributions(plan, path):
    """(index, path, g, flattened) for each statement of `plan`, those of the plans of
    locals within it included."""
    for index, key, g, inner in plan:
        yield index, path + (key,), g, inner is not None
        if inner is not None:
            yield from _contributions(inner, path + (key,))


def _kind_at(kinds, path):
    """The type (a TreeKind for a container) of the entry at `path` in the entries `kinds`."""
    kind = kinds[path[0]][1]
    for key in path[1:]:
        kind = entry_kinds(kind)[key][1]
    return kind


def _position(kinds, key):
    """The canonical key of an entry: a namedtuple's field read by name is its index."""
    if isinstance(key, str) and 0 in kinds:
        for k, v in kinds.items():
            if type(k) is int and v is kinds[key]:
                return k
    return key


def _label(key):
    """`key` as a part of a name: a string that is an identifier, an index."""
    text = str(key)
    return text if text.isidentifier() or type(key) is int and key >= 0 else "entry"


def _statements(backward, adjoint, container, kinds, forms, occurrences):
    """[(index in `backward`, g, key, accumulates)] for the statements
    `adjoint = getitem_vjp(g, container, key)` (the first only) and
    `adjoint = add_grad(adjoint, getitem_vjp(g, container, key))`, where they hold all
    the `occurrences` of `adjoint`; None otherwise."""
    found, held = [], 0
    for index, stmt in enumerate(backward):
        if type(stmt) is not gast.Assign:
            continue
        matched = _match(stmt, adjoint, container, kinds, forms, first=not found)
        if matched is not None:
            found.append((index, *matched))
            held += 2 if matched[2] else 1  # the add_grad form reads the adjoint too
    return found if found and held == occurrences else None


def _match(stmt, adjoint, container, kinds, forms, first):
    """(g, key, accumulates) where `stmt` is one of `_statements`'s forms, else None."""
    getitem, add = forms
    if len(stmt.targets) != 1 or not syntax.is_name(stmt.targets[0], adjoint):
        return None
    value, accumulates = stmt.value, False
    if _is_call(value, add) and len(value.args) == 2 and syntax.is_name(value.args[0], adjoint):
        value, accumulates = value.args[1], True
    elif not first:
        return None
    if not _is_call(value, getitem) or len(value.args) != 3 or value.keywords:
        return None
    g, read, key = value.args
    if not syntax.is_name(read, container) or type(key) is not gast.Constant or type(g) is not gast.Name:
        return None
    try:
        return (g, key.value, accumulates) if key.value in kinds else None
    except TypeError:
        return None


def _is_call(node, names):
    return type(node) is gast.Call and type(node.func) is gast.Name and node.func.id in names


def structure(param, tree, per_path, same, namer):
    """The gradient of the container parameter `param` (of TreeKind `tree`) built from
    the variables `per_path` (`gather`'s): `same(variable, shape, kind)` tells where one
    is the entry's gradient as it is; `unbroadcast` makes the others (`structure_like`
    those that may hold None, or a container's)."""
    return _built(syntax.name(param), tree, (), per_path, same, namer)


def _built(value, tree, path, per_path, same, namer):
    """The gradient of the container `value` (an expression) of TreeKind `tree` at `path`."""
    container, keys, entry_keys = tree
    kinds = entry_kinds(tree)
    fields = runtime.records.record_fields(container) if keys is None else None
    is_record = fields is not None and not issubclass(container, tuple)
    order = keys if keys is not None else fields if is_record else range(len(entry_keys))
    values = []
    for key in order:
        read = syntax.attr(syntax.copy(value), key) if is_record else syntax.subscript(syntax.copy(value), syntax.const(key))
        at = path + (key,)
        variable, unset = per_path.get(at, (None, True))
        shape, kind = kinds[key]
        if at in per_path and variable is None:  # gathered per entry of its own
            values.append(_built(read, kind, at, per_path, same, namer))
        elif variable is None:
            values.append(syntax.call(syntax.name(namer.helper("zeros_like_grad", runtime.zeros_like_grad)), [read]))
        elif type(kind) is not TreeKind and same(variable, shape, kind):
            values.append(syntax.name(variable))
        else:
            helper = ("structure_like", runtime.structure_like) if unset or type(kind) is TreeKind else (
                "unbroadcast", runtime.unbroadcast)
            values.append(syntax.call(syntax.name(namer.helper(*helper)), [syntax.name(variable), read]))
    if container is dict:
        return syntax.dict_([syntax.const(k) for k in order], values)
    if container is list:
        return syntax.list_(values)
    if container is tuple:
        return syntax.tuple_(values)
    return syntax.call(syntax.name(namer.helper("record_like", runtime.record_like)), [syntax.copy(value), syntax.list_(values)])


def gatherable(tree):
    """Whether the gradient of a container of TreeKind `tree` may be built as `structure`
    builds it: dicts (this one, and those within) only where their keys are strings
    (which the code writes as they are)."""
    return (tree[1] is None or all(type(k) is str for k in tree[1])) and all(
        gatherable(entry) for entry in tree[2] if type(entry) is TreeKind)
