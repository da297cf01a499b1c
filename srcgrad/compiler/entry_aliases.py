"""Whether the entries of a list, tuple or dict may share memory with each other (`rows =
[y, y]`, `d = {"a": y, "b": y[::2]}`, `rows.append(y)` twice): sharing.py's relation
holds one node `n[]` for all of a container's contents, so it cannot tell an entry from
its neighbour; this module marks such a container by the pair (`n[]`, `n[]`).

NumPy runs `rows[0] += v` in place on the array `rows[0]`, so every entry sharing its
memory changes too, while srcgrad compiles it as `rows[0] = rows[0] + v`: a later read
of the container (`rows[1]`) would see the old value. sharing.py refuses such a change
where the container is read afterwards (a run-time check: an entry that is a number is
rebound, as compiled).

Invariant: a container whose entries may share memory is marked, or holds (its contents
relate to) a marked one; a mark may be more than needed, never less.
"""

import gast

from . import traversal


_CONTAINER_CALLS = {"list", "tuple", "dict", "set", "sorted", "reversed"}  # their entries: their arguments' (or theirs)


def joins_displays(e):
    """Whether `e` joins lists or dicts one of which is a display or a comprehension
    (`a[:i] + [v] + a[i:]`, `d | {k: v}`) by `+`, `*` or `|`: every operand is then one."""
    if not (type(e) is gast.BinOp and type(e.op) in (gast.Add, gast.Mult, gast.BitOr)):
        return False
    return any(type(o) in (gast.List, gast.Tuple, gast.ListComp, gast.Dict, gast.DictComp) or joins_displays(o)
               for o in (e.left, e.right))


def mark(state, contents, why):
    """Mark the contents node `contents` (`rows[]`) as holding entries that may share memory."""
    state.pairs.setdefault((contents, contents), why)


def marked(state, contents):
    """The statement that marked the contents node `contents` or a contents node it
    relates to, or None where none is marked."""
    return next((state.pairs[n, n] for n in [contents, *state.neighbours(contents)]
                 if n.endswith("[]") and (n, n) in state.pairs), None)


def overlap(state, contents, nodes):
    """Whether storing values sharing the nodes `nodes` (closed) into the container whose
    contents node is `contents` may give it two entries sharing memory: one of them is
    related to an entry it holds already, or holds entries that may share memory."""
    return bool(nodes & state.closure({contents}) - {"<outside>"}) or any(
        marked(state, k) is not None for k in nodes if k.endswith("[]"))


def repeats(value_node, value_of, holds_values, state):
    """Whether the expression `value_node` makes a container whose entries may share memory
    with each other: a display two of whose entries may (`[y, y[1:]]`), a starred entry,
    `rows * 2` of a list, `list(...)`, `dict(...)` of such or of arguments that may, `a + b`
    (`a | b`) of lists (dicts) sharing entries, a comprehension whose entries are
    an outer local value or an entry or view of one (`[y for _ in range(3)]`) or that
    iterates over such a container (`[r for r in [y, y]]`). `value_of(e)`:
    sharing's (shares, contents) of `e`."""
    kind = type(value_node)
    if kind is gast.Call and type(value_node.func) is gast.Name and value_node.func.id in _CONTAINER_CALLS:
        given = list(value_node.args) + [k.value for k in value_node.keywords]
        return (any(repeats(a, value_of, holds_values, state) for a in given)
                or repeats(gast.List(elts=given, ctx=gast.Load()), value_of, holds_values, state))
    if kind in (gast.List, gast.Tuple, gast.Set, gast.Dict):
        items = value_node.values if kind is gast.Dict else value_node.elts
        if any(type(e) is gast.Starred for e in items) or (kind is gast.Dict and None in value_node.keys):
            return True
        seen = set()
        for e in items:
            shares, contents = value_of(e)
            nodes = state.closure(shares | contents)
            if nodes & seen:
                return True
            seen |= nodes
        return False
    if kind is gast.BinOp and type(value_node.op) in (gast.Add, gast.Mult, gast.BitOr):
        sides = [s for s in (value_node.left, value_node.right) if holds_values(s, state)]
        if not sides:
            return False
        if type(value_node.op) is gast.Mult:
            return True
        held = [state.closure(value_of(s)[1]) for s in (value_node.left, value_node.right)]
        return bool(held[0] & held[1])
    if kind in (gast.ListComp, gast.SetComp, gast.GeneratorExp, gast.DictComp):
        bound = {n.id for g in value_node.generators for n in traversal.walk(g.target) if type(n) is gast.Name}
        entry = value_node.value if kind is gast.DictComp else value_node.elt
        while type(entry) in (gast.Subscript, gast.Attribute):
            entry = entry.value
        if any(repeats(g.iter, value_of, holds_values, state) for g in value_node.generators):
            return True  # `[r for r in [y, y]]`: its entries may be the iterable's
        return type(entry) is gast.Name and entry.id not in bound and any(n != "<outside>" for n in value_of(entry)[0])
    return False
