"""What a name means in the scope of the user's function, and the log of what a
derivation looked up.

`lookup_path(parts, program)` is the one lookup of dotted names (`np.linalg.norm`,
`helper`) for every stage that must know the object a name means at build time (the
sharing analysis, call resolution, function arguments). The callables it finds through
globals and closure cells are logged for the derivations in progress, so that a
derivative can tell when one of those names is rebound (`still_read`).
"""

import builtins
import contextlib
import sys
import types

import gast

MISSING = object()


def dotted_parts(node):
    """["np", "linalg", "norm"] for the expression `np.linalg.norm`; None for anything
    but a name or a chain of attributes on one."""
    parts = []
    while isinstance(node, gast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, gast.Name):
        parts.append(node.id)
        return list(reversed(parts))
    return None


# The read logs of the derivations in progress: each gets (namespace, name, value) for
# every global or closure cell that a name was resolved through to a callable (modules
# aside: they are not rebound; other values the generated code reads by name), and for
# every attribute of the user's modules and objects that a dotted name was resolved
# through to a function (`helpers.act`, `ns.f`: the holder's `__dict__`), so a
# derivative can tell later that a name it fixed means another object now (a helper
# redefined in a notebook, `act = np.sin`).
_LOGS = []


@contextlib.contextmanager
def reads_logged():
    """Log the namespace reads of call resolution inside the block into the list it gives
    (see `_LOGS`); an enclosing block's log gets them too."""
    log = []
    _LOGS.append(log)
    try:
        yield log
    finally:
        _LOGS.remove(log)


def note_reads(reads):
    """Add `reads`, logged by an earlier derivation, to the logs in progress (a derivative
    that calls another depends on what that one resolved)."""
    for log in _LOGS:
        log.extend(reads)


def note_attribute(obj, name, value):
    """Log the attribute `name` of `obj` (a function: `fn.__defaults__`) meaning `value`
    (`still_read`)."""
    for log in _LOGS:
        log.append((obj, name, value))


def note_inherited(through, name, value):
    """Log `getattr(through, name)` (a `super()` object's attribute) meaning the bound
    method `value`: looked up again, it sees a base class's method rebound."""
    _note(through, _ThroughClass(name), value)


def note_class_attribute(cls, name, value):
    """Log the attribute `name` of the class `cls` meaning the function `value` (a
    record's method, compiler/record_methods.py): `Params.apply = ...` is then seen."""
    _note(cls, _ThroughClass(name), value)


def _note(namespace, name, value):
    if _LOGS and callable(value) and not isinstance(value, types.ModuleType):  # what calls resolve to
        for log in _LOGS:
            log.append((namespace, name, value))


class _ThroughClass(str):
    """The name of an attribute an object gets from its class (a method, a class's
    function): `still_read` looks it up again with getattr, which sees both the class's
    attribute rebound (`Layer.act = ...`) and one set on the object (`layer.act = ...`)."""

    __slots__ = ()


def still_read(reads):
    """Whether every logged name still means the object it meant (a dict is a module's
    globals or an object's attributes, a list or tuple the elements it held
    (`note_sequence`), a cell a closure's, anything else an object whose attribute was
    read (a function's, a NumPy dispatcher's: `note_attribute`); a `_ThroughClass` name
    is looked up on its object again)."""
    for namespace, name, value in reads:
        if type(name) is _ThroughClass:
            now = getattr(namespace, name, MISSING)
            if now is not value and not (type(now) is types.MethodType and now == value):  # a bound method is made anew
                return False
        elif type(namespace) is dict:
            if namespace.get(name, MISSING) is not value:
                return False
        elif type(namespace) is list or type(namespace) is tuple:
            if len(namespace) != len(value) or any(now is not then for now, then in zip(namespace, value)):
                return False
        elif type(namespace) is types.CellType:
            try:
                if namespace.cell_contents is not value:
                    return False
            except ValueError:  # the cell was emptied
                return False
        elif getattr(namespace, name, MISSING) is not value:  # a function's attribute (a NumPy dispatcher's too)
            return False
    return True


def lookup_path(parts, program):
    """The object that the dotted name `parts` means in `program`'s scope, or MISSING.

    The first name is looked up in the parameters bound to a known function, the
    recursive nested functions, the closure cells, the globals, then builtins; a name
    found in cells or globals, and an attribute a user may rebind, is logged
    (`reads_logged`) where it means a function, or leads to a bound method's receiver."""
    namespace, value = _first_name(parts[0], program)
    if value is MISSING:
        return MISSING
    steps = []  # (namespace, name, value) of each name a user may rebind
    if namespace is not None:
        steps.append((namespace, parts[0], value))
    for part in parts[1:]:
        holder, value = value, getattr(value, part, MISSING)
        if value is MISSING:
            return MISSING
        if _LOGS:
            if _rebindable(holder, part, value):
                steps.append((holder.__dict__, part, value))
            elif _from_class(holder, part, value):
                steps.append((holder, _ThroughClass(part), value))
    for step in steps:
        _note(*step)
    if _LOGS and isinstance(value, types.MethodType):
        # a bound method's receiver is held as a constant (`model.l1.forward`): the objects
        # on the way to it are logged too, so that `model.l1 = Layer(...)` is seen
        for log in _LOGS:
            log.extend(step for step in steps if not callable(step[2]))
    return value


def _first_name(name, program):
    """(where a rebinding of `name` is seen: its closure cell or the globals, else None;
    the object it means, or MISSING), looked up in `lookup_path`'s order."""
    if name in program.bound:
        return None, program.bound[name]
    if name in program.nested:
        return None, program.nested[name]
    if name in program.cells:
        cell = program.cells[name]
        try:
            return cell, cell.cell_contents
        except ValueError:
            return None, MISSING
    if name in program.globals:
        return program.globals, program.globals[name]
    return None, getattr(builtins, name, MISSING)


def sequence_at(parts, program):
    """(namespace, the list or tuple) that the dotted name `parts` means (`self.layers`,
    `LAYERS`), where `namespace` holds its last name and sees a rebinding of it (a
    module's globals, a closure cell, an object's own `__dict__`); MISSING for anything
    else. Nothing of it is logged: see `note_sequence`."""
    if len(parts) == 1:
        namespace, value = _first_name(parts[0], program)
    else:
        holder = lookup_path(parts[:-1], program)
        namespace = getattr(holder, "__dict__", None) if holder is not MISSING else None
        value = namespace.get(parts[-1], MISSING) if type(namespace) is dict else MISSING
    if namespace is None or (type(value) is not list and type(value) is not tuple):
        return MISSING
    return namespace, value


def note_sequence(namespace, name, sequence):
    """Log the name `name` of `namespace` meaning `sequence` (from `sequence_at`), its
    elements, and the elements of elements that are lists (`still_read`): a derivative
    built from them is built again after `model.layers = [...]`,
    `model.layers.append(...)` or `model.layers[0] = other`."""
    for log in _LOGS:
        log.append((namespace, name, sequence))
        log.append((sequence, None, tuple(sequence)))
        log.extend((item, None, tuple(item)) for item in sequence if type(item) is list)


def _rebindable(holder, name, value):
    """Whether `holder.name` is an attribute a user may rebind to another function between
    calls (`helpers.act = np.cos` for a module of theirs, `ns.f = ...`) and `value` is
    what it holds now: not one of NumPy's, srcgrad's or the standard library's, whose
    functions differentiate by their rules (a module of the user's may hold one of those:
    `act = np.tanh`, rebound to `np.sin`)."""
    if isinstance(holder, types.ModuleType):
        root = holder.__name__.partition(".")[0]
        if root in ("numpy", "srcgrad") or root in _STANDARD:
            return False
    namespace = getattr(holder, "__dict__", None)
    return type(namespace) is dict and namespace.get(name, MISSING) is value  # a class's is read-only: not logged


def _from_class(holder, name, value):
    """Whether `holder.name` is a Python function or method, or another callable a class
    of the user's holds (`act = np.tanh` in its body), that `holder` (an instance or a
    class, not a module) gets from its class: rebinding the class's attribute, or setting
    one on the instance, changes what it means. Not where looking it up again gives
    another object (a builtin's method made per lookup), which would never read as current."""
    if isinstance(holder, types.ModuleType):
        return False
    namespace = getattr(holder, "__dict__", None)
    if type(namespace) is dict and name in namespace:
        return False
    if type(value) in (types.FunctionType, types.MethodType):
        return True
    owner = holder if isinstance(holder, type) else type(holder)
    root = (getattr(owner, "__module__", None) or "").partition(".")[0]
    return (callable(value) and root not in ("numpy", "srcgrad") and root not in _STANDARD
            and getattr(holder, name, MISSING) is value)


_STANDARD = frozenset(getattr(sys, "stdlib_module_names", ())) | {"builtins"}


def first_meaning(name, program):
    """The object the plain name `name` means in `program`'s scope (`lookup_path`'s
    order), or MISSING; nothing is logged."""
    return _first_name(name, program)[1]
