"""Calls of the user's functions whose parameters receive a function, a record or None
known where they are called: the copy of the function with those parameters bound
(`Program.bound`, read by frontend.load), one per function and binding, so that its
derivative resolves the calls through them (`rk4_step(rhs, y, h)`, `act=np.tanh`,
`if act is None: act = np.tanh`). Reverse mode (contributions.py) and forward mode
(forward.py) make the copies here; function_arguments.py binds the top-level call's.
"""

import inspect
import types

import gast
import numpy as np

from ..errors import SrcGradError
from . import frontend, none_defaults, scope, stand_in
from .passed_callables import Passed
from .record_methods import RecordOf
from .scope import MISSING, dotted_parts, lookup_path


def with_functions(program, fn, arguments, is_local):
    """`fn`, or a copy of it whose parameters that receive a function known at this call
    (`rk4_step(rhs, y, h)`, a default `act=np.tanh`) are bound to that function, or a
    record of a known class (the caller's `Program.records`) to that class: the
    copy is differentiated with those calls resolved (`Program.bound`). `arguments` is the
    call's `inspect.BoundArguments` (nodes); `is_local(name)` tells a caller's local name,
    whose value is known only at run time, from a global or bound one. One copy per
    function and binding, so its derivatives are built once."""
    found, defaulted = {}, None
    for name, param in inspect.signature(fn).parameters.items():
        given = arguments.arguments.get(name, param.default)
        if name not in arguments.arguments and param.default is not param.empty:
            _note_default(fn, param)  # the binding holds while the default does (`fn.__defaults__ = ...`)
        if given is None or (isinstance(given, gast.Constant) and given.value is None):
            if defaulted is None:
                defaulted = _none_defaulted(fn)
            if name in defaulted:  # `if act is None: act = np.tanh` (none_defaults.py)
                found[name] = none_defaults.GIVEN_NONE
                continue
        if name in arguments.arguments:
            parts = dotted_parts(arguments.arguments[name]) if isinstance(arguments.arguments[name], gast.AST) else None
            if parts is not None and len(parts) == 1 and parts[0] in program.records:
                found[name] = program.records[parts[0]]  # a record of a known class: its methods followed there
                continue
            if parts is None or (is_local(parts[0]) and parts[0] not in program.bound):
                continue
            value = lookup_path(parts, program)
        elif param.default is not param.empty:
            value = param.default
        else:
            continue
        if value is not MISSING and (is_followable(value) or isinstance(value, Passed) or stand_in.is_instance(value)
                                     or getattr(value, "srcgrad_callables", False)):  # passed_containers.Callables
            found[name] = value
    if not found or "__wrapped__" in fn.__dict__:
        return fn
    bound = {**(getattr(fn, "__srcgrad_bound__", None) or {}), **found}
    key = (fn, tuple(sorted(((k, id(v)) for k, v in bound.items()), key=lambda item: item[0])))
    # a binding to an instance (`self`) is kept only during the derivation (see
    # stand_in.forget_methods): srcgrad keeps no model alive; functions live on
    variants = _BOUND_VARIANTS if all(is_followable(v) or isinstance(v, (Passed, RecordOf)) or v is none_defaults.GIVEN_NONE
                                      or getattr(v, "srcgrad_callables", False)
                                      for v in bound.values()) else (
        _INSTANCE_VARIANTS)
    found = variants.get(key)
    if found is None:
        found = variants[key] = (bound, bound_variant(fn, bound))  # the values keep their ids taken
    return found[1]


def _note_default(fn, param):
    """Log the defaults of `fn` that a call leaving `param` out reads, so the caller's
    derivative is built again after `fn.__defaults__ = ...` (scope.still_read)."""
    if not isinstance(fn, types.FunctionType):
        return
    attribute = "__kwdefaults__" if param.kind is param.KEYWORD_ONLY else "__defaults__"
    scope.note_attribute(fn, attribute, getattr(fn, attribute))


def _none_defaulted(fn):
    """The parameters of the Python function `fn` whose None its body replaces by a
    default function (none_defaults.idioms)."""
    try:
        return set(none_defaults.idioms(frontend.load(fn).tree))
    except (SrcGradError, OSError, TypeError):
        return set()


_BOUND_VARIANTS = {}  # (function, ids of its bound parameters) -> (their values, the copy with them bound)
_INSTANCE_VARIANTS = stand_in.DURING_DERIVATION  # the same for bindings holding an instance


def bound_variant(fn, bound):
    """A copy of the function `fn` whose parameters named in `bound` are bound to its
    values (`Program.bound`, read by frontend.load), besides those `fn` already binds."""
    variant = types.FunctionType(fn.__code__, fn.__globals__, fn.__name__, fn.__defaults__, fn.__closure__)
    variant.__dict__.update(fn.__dict__)
    variant.__kwdefaults__, variant.__qualname__ = fn.__kwdefaults__, fn.__qualname__
    variant.__srcgrad_bound__ = {**(getattr(fn, "__srcgrad_bound__", None) or {}), **bound}
    return variant


def is_followable(value):
    """A function srcgrad can follow a call of: a Python function, a NumPy ufunc or
    function, a builtin."""
    return isinstance(value, (types.FunctionType, types.BuiltinFunctionType, np.ufunc)) or (
        callable(value) and not isinstance(value, type) and (getattr(value, "__module__", "") or "").startswith("numpy")
    )
