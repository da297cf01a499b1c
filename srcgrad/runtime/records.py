"""Records: values whose children are named fields, namedtuples and dataclass instances.

One notion covers both kinds: `record_fields(kind)` names a record class's fields in
order (a namedtuple's `_fields`, a dataclass's `dataclasses.fields`, as JAX's registered
dataclasses), `field_values(x)` reads them, and `record_like(x, values)` makes a record
of x's class holding other values (gradients, tangents). `is_record_class` says which
classes make the record of their arguments when called. Imports nothing of NumPy.
"""

import dataclasses

_object_new = object.__new__
_set = object.__setattr__


def is_dataclass_kind(kind):
    """Whether `kind` is a dataclass (as `dataclasses.is_dataclass(kind)` for a class)."""
    return hasattr(kind, "__dataclass_fields__") and isinstance(kind, type)


def record_fields(kind):
    """The names of the fields of the record class `kind` in order, or None for any
    other type: a namedtuple's `_fields`; a dataclass's `dataclasses.fields` (its
    `ClassVar`s and `InitVar`s are not fields)."""
    if issubclass(kind, tuple):
        return kind._fields if hasattr(kind, "_fields") else None
    if is_dataclass_kind(kind):
        return tuple(f.name for f in dataclasses.fields(kind))
    return None


def field_values(x):
    """The values of the fields of the record `x`, in its class's order."""
    if isinstance(x, tuple):
        return tuple(x)
    return tuple(getattr(x, name) for name in record_fields(type(x)))


def record_like(x, values):
    """A record of the class of `x` whose fields hold `values`, in order.

    A dataclass instance is made without running its `__init__` or `__post_init__`
    (`object.__new__`, then `object.__setattr__` per field, which a frozen class allows):
    those may validate or compute from the fields, and a gradient or a tangent holds
    other values than the class's own.
    """
    kind = type(x)
    if isinstance(x, tuple):
        return kind(*values)
    out = _object_new(kind)
    for name, value in zip(record_fields(kind), values):
        _set(out, name, value)
    return out


def is_record_class(obj):
    """Whether calling `obj` gives the record of its arguments: a namedtuple class or a
    dataclass that `refusal` accepts."""
    if not isinstance(obj, type):
        return False
    if issubclass(obj, tuple):
        return is_namedtuple_class(obj)
    return is_dataclass_kind(obj) and refusal(obj) is None


def is_namedtuple_class(obj):
    """Whether `obj` is a namedtuple class (`collections.namedtuple`, `typing.NamedTuple`)
    or a subclass of one that makes its values as it does (no `__new__` or `__init__`
    of its own): calling it gives the tuple of its fields."""
    if not (isinstance(obj, type) and issubclass(obj, tuple) and hasattr(obj, "_fields")):
        return False
    for klass in obj.__mro__:
        if "_fields" in vars(klass):
            return True  # the class namedtuple made: the rest of the MRO is tuple's
        if "__new__" in vars(klass) or "__init__" in vars(klass):
            return False
    return False


def refusal(kind):
    """Why a call of the dataclass `kind` may not be the record of its arguments (a
    phrase), or None when it is."""
    fields = dataclasses.fields(kind)
    hidden = next((f.name for f in fields if not f.init), None)
    if hidden is not None:
        return f"its field `{hidden}` is `field(init=False)`, set by the class rather than by the call"
    if hasattr(kind, "__post_init__"):
        return "it defines `__post_init__`, which may check or change the fields"
    code = getattr(kind.__init__, "__code__", None)
    if code is None or code.co_filename != "<string>":  # dataclasses compiles the __init__ it writes from a string
        return "it defines an `__init__` of its own"
    if any("__new__" in vars(klass) for klass in kind.__mro__[:-1]):
        return "it defines a `__new__` of its own"
    if set(code.co_varnames[1:code.co_argcount + code.co_kwonlyargcount]) != {f.name for f in fields}:
        return "its `__init__` takes other arguments than its fields (an `InitVar`)"
    return None


class Field:
    """A key that reads the field `name` of a record (`api._entries`), beside the int and
    str keys of sequences and dicts: the path to an entry of an argument may go through
    the fields of records (`d.inner` in `d.inner.energy`)."""

    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name

    def __eq__(self, other):
        return type(other) is Field and other.name == self.name

    def __hash__(self):
        return hash((Field, self.name))

    def __repr__(self):
        return f"Field({self.name!r})"
