"""Number constants met with float arrays, as bound 0-d arrays (specialized code).

Before (z a float32 array):                 After:
    logaddexp_z = np.logaddexp(0.0, z)          logaddexp_z = np.logaddexp(ZERO32, z)
    s = 0.5 * np.tanh(0.5 * z) + 0.5            s = HALF32 * np.tanh(HALF32 * z) + HALF32

NumPy converts a Python number operand to an array at every call, which costs as much
as the arithmetic of a small array; a bound 0-d array of the array's dtype is made once.

Post-condition: a constant (an int or a float, not a bool) is replaced only as an
operand of `+ - * /` or of a ufunc of two inputs called by position, where the kind
analysis (kinds.py) proves the other operand an array of at least one dimension of a
float dtype D, the result of that D, and the constant exactly a D (finite), and not a
`+ 0` or `* 1` that the optimizer drops (optimize.py). Every NumPy
version then runs the same loop on the same values: NEP 50 casts the Python number to
D, value-based casting (NumPy 1) treats a 0-d array as it treats the number, and the
result is an array of the other operand's shape either way. The 0-d arrays are
read-only and shared (one per dtype and value), never returned or written.

`bound_scalars` makes the NumPy float64 and float32 scalars bound by the optimizer (the
seeds and their folds, `SEED32_1`) 0-d arrays of their dtype where every read of one is
an operand of `+ - * /`: NumPy promotes a 0-d array as it promotes a NumPy scalar (by
type in NumPy 2, by value in NumPy 1) and returns a scalar where all operands are 0-d,
so each operation gives the same value of the same type.
"""

import gast
import numpy as np

from . import traversal
from .kinds import _ARRAYS, _Kinds
from .shapes import _statements

_OPS = (gast.Add, gast.Sub, gast.Mult, gast.Div)
_OPAQUE = (gast.Lambda, gast.ListComp, gast.SetComp, gast.DictComp, gast.GeneratorExp, gast.FunctionDef)
_NAMES = {0.0: "ZERO", 0.5: "HALF", 1.0: "ONE", 2.0: "TWO", -1.0: "MINUS_ONE"}
_MADE = {}  # (dtype name, bytes) -> the shared read-only 0-d array


def run(forward, backward, solved, kinds, signature, namer):
    """Replace the constants the post-condition allows in the statements of `forward`
    and `backward` in place. `solved` (a `shapes._Shapes`) and `kinds()` (kinds.solver)
    analyse this code."""
    typed = _Kinds(solved, signature)
    typed.env = kinds()
    found = []  # (node, field, index or None, dtype, value, Python value): decided on the code as it is
    constant = gast.Constant
    for node in _operations(_statements(forward) + _statements(backward)):
        if type(node) is gast.BinOp:
            if isinstance(node.op, _OPS) and (type(node.left) is constant or type(node.right) is constant):
                _decide(node, ("left", None), ("right", None), node.left, node.right, typed, solved, found)
        elif len(node.args) == 2 and not node.keywords and (
                type(node.args[0]) is constant or type(node.args[1]) is constant):  # `_decide` wants a constant
            ufunc = solved.resolve(node.func)
            if isinstance(ufunc, np.ufunc) and ufunc.nin == 2 and ufunc.nout == 1:
                a, b = node.args
                _decide(node, ("args", 0), ("args", 1), a, b, typed, solved, found)
    for node, field, index, dtype, value, written in found:
        name = gast.Name(namer.helper(_name(dtype, value), _constant(dtype, value)), gast.Load(), None, None)
        if index is None:
            setattr(node, field, gast.copy_location(name, getattr(node, field)))
            other = "right" if field == "left" else "left"
            if type(node.op) is gast.Mult and type(written) is float and _plus_zero(getattr(node, other)):
                setattr(node, other, getattr(node, other).left)  # as optimize.py folds `c * (e - 0)`
        else:
            getattr(node, field)[index] = gast.copy_location(name, getattr(node, field)[index])


def bound_scalars(tree, namer):
    """Rebind in place (in `namer.helpers`) the bound float64 and float32 scalars of the
    FunctionDef `tree` whose every read is an operand of `+ - * /` to 0-d arrays."""
    scalars = {n for n, v in namer.helpers.items() if type(v) is np.float64 or type(v) is np.float32}
    if not scalars:
        return
    operands, others = set(), set()  # the names read as such an operand; read otherwise
    stack, ast_node, name_node, binop, constant = [tree], gast.AST, gast.Name, gast.BinOp, gast.Constant
    while stack:  # one walk; each name is judged at its parent (the leaves are not stacked)
        node = stack.pop()
        cls, values = type(node), node.__dict__
        operation = cls is binop and isinstance(node.op, _OPS)
        for field in traversal.child_fields(cls):
            value = values.get(field)
            for child in value if type(value) is list else (value,):
                kind = type(child)
                if kind is name_node:
                    if child.id in scalars:
                        read = operation and type(child.ctx) is gast.Load  # `left` or `right`
                        (operands if read else others).add(child.id)
                    if child.annotation is not None:
                        stack.append(child)  # its annotation: judged under it
                elif kind is not constant and isinstance(child, ast_node):
                    stack.append(child)
    for name in operands - others:
        value = namer.helpers[name]
        namer.helpers[name] = _constant(np.dtype(type(value)), value)


def _operations(stmts):
    """The `BinOp` and `Call` nodes under the statements `stmts` (a `for`: its iterable),
    not entering lambdas, comprehensions or nested functions: statement by statement,
    each depth first, the last child first (the order `found`, and so the helpers'
    names, follow)."""
    found, ast_node, binop, call, name_node, attribute = [], gast.AST, gast.BinOp, gast.Call, gast.Name, gast.Attribute
    note, children, skipped = found.append, traversal.child_fields, _SKIPPED
    for stmt in stmts:
        stack = [stmt.iter if isinstance(stmt, gast.For) else stmt]
        pop, push = stack.pop, stack.append
        while stack:
            node = pop()
            cls = type(node)
            if cls is binop or cls is call:
                note(node)
            values = node.__dict__
            for field in children(cls):
                value = values.get(field)
                for child in value if type(value) is list else (value,):
                    kind = type(child)
                    if kind in skipped or (kind is attribute and type(child.value) is name_node
                                          and child.value.annotation is None):  # nothing to find under it
                        continue
                    if kind is name_node:
                        if child.annotation is not None:
                            push(child)
                    elif isinstance(child, ast_node):
                        push(child)
    return found


# nothing under them to look into: constants, and the opaque nodes `run` does not enter
_SKIPPED = frozenset({gast.Constant, *_OPAQUE})


def _decide(node, place_a, place_b, a, b, typed, solved, found):
    for (field, index), const, other in ((place_a, a, b), (place_b, b, a)):
        if type(const) is not gast.Constant or type(const.value) not in (int, float):
            continue
        if type(node) is gast.BinOp and const.value == (0 if isinstance(node.op, (gast.Add, gast.Sub)) else 1):
            return  # `x - 0.0`, `x * 1.0`: optimize.py's identities
        kind = typed.kind(node)
        if kind not in _ARRAYS or typed.kind(other) != kind:
            return
        if not (_is_array(solved.shape(other)) and _is_array(solved.shape(node))):
            return
        dtype = np.dtype(kind)
        with np.errstate(all="ignore"):
            value = dtype.type(const.value)
        if not np.isfinite(value) or float(value) != const.value:
            return
        found.append((node, field, index, dtype, value, const.value))
        return


def _plus_zero(node):
    return (type(node) is gast.BinOp and isinstance(node.op, (gast.Add, gast.Sub)) and type(node.right) is gast.Constant
            and type(node.right.value) in (int, float) and node.right.value == 0)


def _is_array(shape):
    return isinstance(shape, tuple) and len(shape) > 0


def _constant(dtype, value):
    key = (dtype.name, value.tobytes())
    made = _MADE.get(key)
    if made is None:
        made = _MADE[key] = np.array(value, dtype=dtype)
        made.flags.writeable = False
    return made


def _name(dtype, value):
    word = _NAMES.get(float(value)) if not (value == 0 and np.signbit(value)) else None
    return f"{word or 'C'}{dtype.itemsize * 8}"
