"""Nested tuples, lists, dicts and namedtuples of values (PyTorch's pytrees) for the
transforms of `srcgrad.func`: `flatten` lists a tree's leaves depth first (a dict's in
its insertion order) with a `TreeSpec` that `unflatten` rebuilds the tree from.

Invariant: `unflatten(spec, flatten(tree)[0])` equals `tree`; anything that is not a
tuple, list or dict (a Tensor, a number, None) is a leaf.
"""

__all__ = ["TreeSpec", "LEAF", "flatten", "unflatten", "leaves_under"]


class TreeSpec:
    """The shape of a tree: its node type (tuple, list, dict or a namedtuple class), the
    context (a dict's keys) and the specs of its children; `LEAF` for a leaf."""

    __slots__ = ("type", "context", "children", "count")

    def __init__(self, node_type, context, children):
        self.type, self.context, self.children = node_type, context, tuple(children)
        self.count = sum(child.count for child in self.children) if node_type is not None else 1

    def is_leaf(self):
        return self.type is None

    def __eq__(self, other):
        return (isinstance(other, TreeSpec) and self.type is other.type and self.context == other.context
                and self.children == other.children)

    def __hash__(self):
        return hash((self.type, self.children))

    def __repr__(self):
        return self._text(0)

    def _text(self, indent):
        """PyTorch's TreeSpec repr: `*` for a leaf, children after the first on their own
        lines, indented two more spaces per level."""
        if self.type is None:
            return "*"
        name = self.type.__name__
        context = None if self.context is None else list(self.context)
        inner = [child._text(indent + 2) for child in self.children]
        joined = (",\n" + " " * (indent + 2)).join(inner)
        return f"TreeSpec({name}, {context}, [{joined}])"


LEAF = TreeSpec(None, None, ())


def _is_namedtuple(value):
    return isinstance(value, tuple) and hasattr(type(value), "_fields")


def flatten(tree):
    """(leaves, spec) of `tree`."""
    leaves = []
    spec = _flatten(tree, leaves)
    return leaves, spec


def _flatten(tree, leaves):
    if isinstance(tree, (tuple, list)):
        kind = type(tree) if _is_namedtuple(tree) else (tuple if isinstance(tree, tuple) else list)
        return TreeSpec(kind, None, [_flatten(item, leaves) for item in tree])
    if isinstance(tree, dict):
        keys = tuple(tree)
        return TreeSpec(dict, keys, [_flatten(tree[key], leaves) for key in keys])
    leaves.append(tree)
    return LEAF


def unflatten(spec, leaves):
    """The tree of shape `spec` whose leaves, depth first, are `leaves`."""
    items = iter(leaves)
    return _build(spec, items)


def _build(spec, items):
    if spec.type is None:
        return next(items)
    children = [_build(child, items) for child in spec.children]
    if spec.type is dict:
        return dict(zip(spec.context, children))
    if spec.type is list:
        return children
    if spec.type is tuple:
        return tuple(children)
    return spec.type(*children)  # a namedtuple


class _Mismatch(Exception):
    pass


def leaves_under(prefix, spec, what):
    """The value of `prefix` (a tree that is a prefix of `spec`'s: where it has a leaf,
    that leaf holds for the whole subtree of `spec`) for each leaf of `spec`, depth
    first; ValueError with `what(prefix's spec)` where the structures differ."""
    out = []
    try:
        _spread(prefix, spec, out)
    except _Mismatch:
        raise ValueError(what(flatten(prefix)[1])) from None
    return out


def _spread(prefix, spec, out):
    if not isinstance(prefix, (tuple, list, dict)):
        out.extend([prefix] * spec.count)
        return
    if spec.type is None or len(prefix) != len(spec.children) or (isinstance(prefix, dict) != (spec.type is dict)) \
            or (isinstance(prefix, dict) and set(prefix) != set(spec.context)):
        raise _Mismatch
    if isinstance(prefix, dict):
        for key, child in zip(spec.context, spec.children):
            _spread(prefix[key], child, out)
    else:
        for item, child in zip(prefix, spec.children):
            _spread(item, child, out)
