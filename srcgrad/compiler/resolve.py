"""Call resolution: which Python object each call and attribute read of an ANF tree means.

Returns a side table `{node: Callee}` for every `gast.Call` and every attribute read on
a local value (`x.T`, `x.shape`); nodes are not modified. A call's function is looked up
in the parameters bound to a known function (`calls.with_functions`), the function's
closure cells, then its globals, then builtins, following attribute chains
(`np.linalg.norm`). A method on a local value (`x.sum(0)`) resolves through
`rules.methods` to the NumPy function whose rule it uses. The names resolved through
globals and closure cells are logged for the derivation in progress (`reads_logged`).
"""

import builtins
import contextlib
import types
from dataclasses import dataclass

import gast

from ..rules import methods
from . import syntax


@dataclass(frozen=True)
class Callee:
    """What a call or attribute means. `kind` is one of:

    - "function": `obj` is the called object (np.sin, a user function, a builtin);
    - "method": a method on the local value `receiver` (a name); `obj` is the NumPy
      primal it differentiates like (None when unknown), `packs_varargs` as in rules.methods;
    - "attribute": an attribute read on a local value; `obj` is its primal (`.T`), or
      None for constant attributes (`.shape`) and unknown ones (`known` False);
    - "unresolved": a global name that does not exist (yet); `path` is its spelling.
    """

    kind: str
    obj: object = None
    path: str = ""
    receiver: str = ""
    packs_varargs: bool = False
    known: bool = True


_MISSING = object()


def _chain(node):
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
# aside: they are not rebound; other values the generated code reads by name), so a derivative can tell later that a name it fixed means another
# object now (a helper redefined in a notebook, `act = np.sin`).
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


def _note(namespace, name, value):
    if _LOGS and callable(value) and not isinstance(value, types.ModuleType):  # what calls resolve to
        for log in _LOGS:
            log.append((namespace, name, value))


def still_read(reads):
    """Whether every logged name still means the object it meant (a dict is a module's
    globals, anything else a closure cell)."""
    for namespace, name, value in reads:
        if type(namespace) is dict:
            if namespace.get(name, _MISSING) is not value:
                return False
        else:
            try:
                if namespace.cell_contents is not value:
                    return False
            except ValueError:  # the cell was emptied
                return False
    return True


def lookup_path(parts, program):
    """The object that the dotted name `parts` means in `program`'s scope, or _MISSING."""
    first = parts[0]
    if first in program.bound:
        value = program.bound[first]
    elif first in program.nested:
        value = program.nested[first]
    elif first in program.cells:
        try:
            value = program.cells[first].cell_contents
        except ValueError:
            return _MISSING
        _note(program.cells[first], first, value)
    elif first in program.globals:
        value = program.globals[first]
        _note(program.globals, first, value)
    elif hasattr(builtins, first):
        value = getattr(builtins, first)
    else:
        return _MISSING
    for part in parts[1:]:
        value = getattr(value, part, _MISSING)
        if value is _MISSING:
            return _MISSING
    return value


def run(tree, program, local_names):
    """Resolve every call and local attribute read in `tree`."""
    table = {}
    local_names = set(local_names)
    for node in syntax.walk(tree):  # gast.walk's order, faster
        if isinstance(node, gast.Call):
            table[node] = _resolve_call(node, program, local_names)
        elif isinstance(node, gast.Attribute) and isinstance(node.value, gast.Name):
            if node.value.id in local_names:
                primal = methods.ATTRIBUTES.get(node.attr)
                known = primal is not None or node.attr in methods.CONSTANT_ATTRIBUTES
                table[node] = Callee("attribute", primal, node.attr, node.value.id, known=known)
    return table


def _resolve_call(node, program, local_names):
    func = node.func
    if isinstance(func, gast.Attribute) and isinstance(func.value, gast.Name) and func.value.id in local_names:
        primal, packs = methods.METHODS.get(func.attr, (None, False))
        return Callee("method", primal, func.attr, func.value.id, packs)
    parts = _chain(func)
    if parts is None or (parts[0] in local_names and parts[0] not in program.bound):
        return Callee("unresolved", None, ".".join(parts or ["<expression>"]))
    value = lookup_path(parts, program)
    if value is _MISSING:
        return Callee("unresolved", None, ".".join(parts))
    return Callee("function", value, ".".join(parts))
