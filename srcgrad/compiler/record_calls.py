"""Calls of record classes: which classes make a record of the values they are called
with, and those values in the order of the class's fields.

A record class is a namedtuple class, or a dataclass whose `__init__` is the one
`dataclasses` generated and does nothing but store its arguments: no `__post_init__`,
no `field(init=False)`, no `InitVar`, no `__new__` of its own. calls.site reads
`P(W=a, b=c)` of one as `make_record(P, (a, c))`; `refusal` says why another
dataclass is not one, for the error of a call of it on the differentiated path.
"""

import dataclasses
import inspect

from ..errors import NotDifferentiableError
from ..runtime.records import is_dataclass_kind, record_fields
from . import syntax


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
    if set(inspect.signature(kind).parameters) != {f.name for f in fields}:
        return "its `__init__` takes other arguments than its fields (an `InitVar`)"
    return None


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


def _defaults(kind):
    """{field: its default} of the record class `kind` (a dataclass's `default_factory`
    is no literal: it is left out, as dataclasses.MISSING)."""
    if issubclass(kind, tuple):
        return kind._field_defaults
    return {f.name: f.default for f in dataclasses.fields(kind)}
