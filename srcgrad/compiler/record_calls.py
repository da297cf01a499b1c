"""Calls of record classes: which classes make a record of the values they are called
with, and those values in the order of the class's fields.

A record class is a namedtuple class, or a dataclass whose `__init__` is the one
`dataclasses` generated and does nothing but store its arguments: no `__post_init__`,
no `field(init=False)`, no `InitVar`, no `__new__` of its own. calls.site reads
`P(W=a, b=c)` of one as `make_record(P, (a, c))`, and `dataclasses.replace(p, pos=v)`
(`p._replace(pos=v)`) as `replace_fields(p, ("pos",), (v,))` (`replacement`), whose
class is checked where it runs; `refusal` (runtime/records.py) says why another
dataclass is not one, for the error of a call of it on the differentiated path.
"""

import builtins
import dataclasses
import functools
import inspect

import gast

from ..errors import NotDifferentiableError
from ..runtime.containers import not_a_field
from ..runtime.records import Field, is_record_class, record_fields
from . import syntax, traversal


def fields_in_order(program, stmt, callee, args, keywords):
    """The argument nodes of a record class's call in its fields' order, a field left
    out as its default (a literal)."""
    kind = callee.obj
    try:
        bound = inspect.signature(kind).bind(*args, **keywords)
    except TypeError as exc:
        raise program.error(
            stmt, f"cannot differentiate this call of `{callee.path}`: {exc} (in `{program.name}`)", NotDifferentiableError,
        ) from None
    defaults = _defaults(kind)
    out = []
    for field in record_fields(kind):
        if field in bound.arguments:
            out.append(bound.arguments[field])
            continue
        default = defaults.get(field)
        if not syntax.is_literal(default):
            raise program.error(
                stmt, f"the field `{field}` of `{callee.path}` is left to its default, which is not a number, string or "
                f"None (in `{program.name}`); pass it in the call", NotDifferentiableError,
            )
        out.append(syntax.const(default))
    return out


def replacement(program, stmt, value, callee):
    """(the record node, the names of the fields changed) of the call `value` when it is
    `dataclasses.replace(p, pos=v, ...)` or a namedtuple's `p._replace(pos=v, ...)`, which
    calls.site reads as `replace_fields(p, ("pos", ...), (v, ...))`; else None. The class
    of `p` is checked where the call runs (rules/structure.py `replace_fields`)."""
    if callee.kind == "method" and callee.path == "_replace" and not value.args:
        record = syntax.name(callee.receiver)
    elif callee.kind == "function" and callee.obj is dataclasses.replace:
        if len(value.args) != 1:
            raise program.error(
                stmt, f"`dataclasses.replace` takes the record and its changed fields by name, as "
                f"`dataclasses.replace(p, pos=v)` (in `{program.name}`)", NotDifferentiableError,
            )
        record = syntax.copy(value.args[0])
    else:
        return None
    if any(k.arg is None for k in value.keywords):
        return None  # `**changes`: refused as any `**` unpacking is
    return record, tuple(k.arg for k in value.keywords)


def _defaults(kind):
    """{field: its default} of the record class `kind` (a dataclass's `default_factory`
    is no literal: it is left out, as dataclasses.MISSING)."""
    if issubclass(kind, tuple):
        return kind._field_defaults
    return {f.name: f.default for f in dataclasses.fields(kind)}


def field_reads(program, tree, params, activity, calls):
    """The checks (api.check_arguments) of the attribute reads `r.name` (or
    `getattr(r, "name")`) that srcgrad differentiates as the read of a record's field
    (`runtime.field_grad`, the tangent's field): where `r` is a differentiated parameter
    or an entry of one (`d = ds[0]`, `for d in ds`), or a record replaced from one
    (`q = dataclasses.replace(d, ...)`), one refusing a record whose class has no field
    `name`. Refused here: such a read of a name bound only by calls of one record class
    (`p = D(x, 2.0)`) or replaced from one. A name that is no field is a property or
    another attribute of the class, computed from the fields where srcgrad does not see
    it: its derivative would be read off the gradient or the tangent, wrongly."""
    if not any((c.kind == "attribute" and not c.known) or c.obj is dataclasses.replace or c.obj is builtins.getattr
               for c in calls.values()):
        return ()  # no read of an attribute arrays do not have (a read on a record's read shows in `calls` too)
    values = {}
    for s in traversal.statements(tree):
        if type(s) is gast.Assign and type(s.targets[0]) is gast.Name:
            values.setdefault(s.targets[0].id, []).append(s.value)
        elif type(s) is gast.For and type(s.target) is gast.Name and type(s.iter) is gast.Name:
            values.setdefault(s.target.id, []).append(s.iter)  # an entry of the iterable, read as `xs[...]`
        elif isinstance(s, (gast.Assign, gast.AugAssign, gast.For)):
            for name in traversal.names_stored(s.targets if type(s) is gast.Assign else s.target):
                values.setdefault(name, []).append(None)
    nodes = list(traversal.nodes(tree))
    called = {id(n.func) for n in nodes if type(n) is gast.Call}
    checks, seen = [], set()
    for node in nodes:
        cls = type(node)
        if cls is not gast.Attribute and cls is not gast.Call:
            continue
        at = node if getattr(node, "lineno", None) else tree
        read = _attribute_read(node, called, calls)
        if read is None:
            continue
        path = _field_path(read[0])  # `d.inner` of `d.inner.energy`: d, (Field("inner"),)
        if path is None:
            continue
        (base, through), name = path, read[1]
        kind = _record_class(values.get(base, ()), calls, values) if not through else None
        if kind is not None and name not in record_fields(kind):
            raise program.error(at, not_a_field(kind, name) + f" (in `{program.name}`)", NotDifferentiableError)
        found = _parameter_entry(base, params, values, calls)
        if found is not None:
            found = (found[0], found[1] + through)
        if found is None or (found, name) in seen or found[0] not in activity.varied:
            continue
        seen.add((found, name))
        error = program.error(at, "", NotDifferentiableError)
        location = (error.filename, error.lineno, error.offset - 1, error.text)
        checks.append((params.index(found[0]), found[1], functools.partial(_lacks_field, name=name),
                       functools.partial(_field_refusal, name=name, where=program.name), location))
    return tuple(checks)


def _attribute_read(node, called, calls):
    """(the object, the attribute's name) of an attribute read that is not called: `r.name`,
    or `getattr(r, "name")`, which reads the same; None for any other node."""
    if type(node) is gast.Attribute:
        return None if id(node) in called else (node.value, node.attr)
    if (type(node) is gast.Call and getattr(calls.get(node), "obj", None) is builtins.getattr
            and len(node.args) == 2 and not node.keywords and type(node.args[1]) is gast.Constant
            and type(node.args[1].value) is str):
        return node.args[0], node.args[1].value
    return None


def _record_class(bound, calls, values, depth=0):
    """The record class whose calls are all of `bound` (the values a name is assigned), or
    None; a record replaced from another (`q = dataclasses.replace(p, ...)`) has p's class."""
    kinds = set()
    for v in bound:
        source = _replaced_from(v, calls)
        if source is not None and depth < 8:
            kinds.add(_record_class(values.get(source, ()), calls, values, depth + 1))
        else:
            kinds.add(getattr(calls.get(v), "obj", None) if type(v) is gast.Call else None)
    kind = kinds.pop() if len(kinds) == 1 else None
    return kind if kind is not None and is_record_class(kind) else None


def _replaced_from(value, calls):
    """The name of the record that `value` replaces fields of (`dataclasses.replace(p, ...)`,
    `p._replace(...)`): a record of its class; else None."""
    if type(value) is not gast.Call:
        return None
    callee = calls.get(value)
    if callee is not None and callee.kind == "method" and callee.path == "_replace":
        return callee.receiver
    if getattr(callee, "obj", None) is dataclasses.replace and value.args and type(value.args[0]) is gast.Name:
        return value.args[0].id
    return None


def _parameter_entry(name, params, values, calls):
    """(parameter, keys) where `name` is the parameter or its entry, bound once (`d = ds[0]`;
    key `...` for each entry of a list or tuple: `d = ds[i]`, `for d in ds`), or a record
    replaced from one (`q = dataclasses.replace(d, ...)`, of d's class); or None."""
    keys, visited = [], set()
    while name not in params:
        bound = values.get(name, ())
        if len(bound) != 1 or bound[0] is None or name in visited:
            return None
        visited.add(name)
        value = bound[0]
        source = _replaced_from(value, calls)
        if source is not None:
            name = source
            continue
        if type(value) is gast.Name:  # the target of a loop over `value`
            keys.append(...)
            name = value.id
            continue
        if type(value) is gast.Attribute:  # `t = d.inner`: a field of a record
            path = _field_path(value)
            if path is None:
                return None
            name, through = path
            keys.extend(reversed(through))
            continue
        if type(value) is not gast.Subscript or type(value.value) is not gast.Name:
            return None
        index = value.slice
        constant = type(index) is gast.Constant and type(index.value) in (int, str)
        keys.append(index.value if constant else ...)
        name = value.value.id
    return (name, tuple(reversed(keys))) if len(values.get(name, ())) == 0 else None


def _field_path(node):
    """(name, the Field keys read from it) of `d` or `d.inner.outer`; None for anything else."""
    through = []
    while type(node) is gast.Attribute:
        through.append(Field(node.attr))
        node = node.value
    return (node.id, tuple(reversed(through))) if type(node) is gast.Name else None


def _lacks_field(value, name):
    fields = record_fields(type(value))
    return fields is not None and name not in fields


def _field_refusal(value, name, where):
    return not_a_field(type(value), name) + f" (in `{where}`)"
