"""`dataclasses.replace(p, pos=v)` and a namedtuple's `p._replace(pos=v)`: calls.site
reads either as `replace_fields(p, ("pos",), (v,))`, a record of p's class made from p's
fields with the named ones changed (`structure.make_record` of them). The class is p's
at run time, checked there by the primal and by every rule: it must make the record of
its fields (runtime.records.is_record_class), or the derivative of what it computes is
unknown.

The record's gradient is the result's with zeros in the changed fields; the values'
gradients are the result's changed fields. Tangents likewise, joined by `add_grad`.
"""

from ..runtime import field_values, zeros_like_grad
from ..runtime.records import is_dataclass_kind, is_record_class, record_fields, record_like, refusal
from .registry import defjvp, defvjp
from .structure import _field_tangents, make_record


def replace_fields(record, names, values):
    """The record of `record`'s class whose fields `names` hold `values`, and the others
    `record`'s: `dataclasses.replace(record, **changes)`, `record._replace(**changes)`.
    A TypeError where the class does not make the record of its arguments (a dataclass
    with `__post_init__`, `field(init=False)`, ...: runtime.records.refusal) or a name is
    no field of it: srcgrad would not know the derivative of what the class computes."""
    fields = _replaceable_fields(record, names)
    changes = dict(zip(names, values))
    return make_record(type(record), tuple(changes[f] if f in changes else v for f, v in zip(fields, field_values(record))))


def _replaceable_fields(record, names):
    """The fields of `record`'s class, checked to be a record class with the fields `names`
    (a TypeError otherwise); every rule of `replace_fields` checks, since generated code
    may run the user's own `dataclasses.replace` for the value."""
    kind = type(record)
    fields = record_fields(kind)
    if fields is None or not is_record_class(kind):
        reason = refusal(kind) if fields is not None and is_dataclass_kind(kind) else (
            "it is not a dataclass or a namedtuple" if fields is None else "it defines a `__new__` or `__init__` of its own")
        raise TypeError(f"srcgrad differentiates `dataclasses.replace` (and a namedtuple's `_replace`) of a record "
                        f"whose class makes the record of its fields, and {kind.__name__} does not: {reason}")
    unknown = next((n for n in names if n not in fields), None)
    if unknown is not None:
        raise TypeError(f"{kind.__name__} has no field `{unknown}` to replace; its fields are {', '.join(fields)}")
    return fields


def _split_by_change(record, names, changed, kept):
    """A record of `record`'s class holding `changed(field, value)` in the fields `names`
    and `kept(field, value)` in the others (a gradient or a tangent of one part)."""
    return record_like(record, [changed(f, v) if f in names else kept(f, v)
                                for f, v in zip(_replaceable_fields(record, names), field_values(record))])


def _zero(field, value):
    return zeros_like_grad(value)


@defvjp(replace_fields, "record", name="Replace")
def replace_fields_vjp_record(g, ans, record, names, values):
    given = dict(zip(record_fields(type(record)), field_values(g)))
    return _split_by_change(record, names, _zero, lambda f, v: zeros_like_grad(v) if given[f] is None else given[f])


@defvjp(replace_fields, "values")
def replace_fields_vjp_values(g, ans, record, names, values):
    given = dict(zip(_replaceable_fields(record, names), field_values(g)))
    return tuple(zeros_like_grad(v) if given[n] is None else given[n] for n, v in zip(names, values))


@defjvp(replace_fields, "record")
def replace_fields_jvp_record(t, ans, record, names, values):
    tangent = dict(zip(record_fields(type(record)), field_values(t)))
    return _split_by_change(record, names, _zero, lambda f, v: zeros_like_grad(v) if tangent[f] is None else tangent[f])


@defjvp(replace_fields, "values")
def replace_fields_jvp_values(t, ans, record, names, values):
    tangent = dict(zip(names, _field_tangents(t, values)))
    return _split_by_change(record, names, lambda f, v: tangent[f], _zero)


for _helper in (replace_fields, replace_fields_vjp_record, replace_fields_vjp_values, replace_fields_jvp_record,
                replace_fields_jvp_values):
    _helper.takes_records = True  # a record is their operand: activity.constant_operands lets it in
