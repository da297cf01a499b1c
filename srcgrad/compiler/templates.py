"""Rule templates compiled into builders: `copier(expr)(name)` is `syntax.copy(expr, name)`.

A rule's return expression (inline.py) is copied at every use. `syntax.copy` walks the
template each time, testing each field of each node; a builder is the copy written out
once as Python code: one nested expression that makes each node with its `__dict__`
(fields in `_fields` order, then the locations), shares what copies share (atoms, `ctx`
and operator nodes, field-less nodes) and calls `name(template_name)` for each `Name`, in
the order the copy meets them (depth first, fields in order).

Invariant: the template is never changed after its builder is made (inline.py keeps
the parsed rule expressions to itself).
"""

import gast

from . import syntax


def copier(expr):
    """A function `make(name)` returning a fresh copy of the gast expression `expr`,
    equal to `syntax.copy(expr, name)` node for node."""
    table = []  # the objects the code refers to: templates' names and leaves, shared values

    def ref(obj):
        table.append(obj)
        return f"T[{len(table) - 1}]"

    def code(node):
        if type(node) is list:
            return "[" + "".join(code(n) + ", " for n in node) + "]"
        if not isinstance(node, gast.AST):
            return ref(node)
        cls = type(node)
        if cls is gast.Name:
            return f"name({ref(node)})"
        old = node.__dict__
        if cls in syntax._LEAVES and old.keys() in syntax._LEAVES[cls] and old.get("annotation") is None:
            return f"leaf({ref(node)})"
        if not old and not cls._attributes:
            return ref(node)
        parts = []
        for f in cls._fields:
            value = old.get(f)
            shared = value is None or type(value) in syntax._SHARED
            parts.append(f"{f!r}: {ref(value) if shared else code(value)}")
        parts += [f"{a!r}: {ref(old[a])}" for a in syntax._LOCATION if a in old]
        return f"made({ref(cls)}, {{{', '.join(parts)}}})"

    body = code(expr)
    scope = {"T": table, "made": _made, "leaf": _leaf}
    exec(f"def make(name):\n    return {body}\n", scope)  # noqa: S102 - text made above from the template only
    return scope["make"]


def _made(cls, values):
    node = cls.__new__(cls)
    node.__dict__ = values
    return node


def _leaf(node):
    """A copy of a constant whose fields are all shared atoms (as `syntax.copy` makes it)."""
    new = type(node).__new__(type(node))
    new.__dict__.update(node.__dict__)
    return new
