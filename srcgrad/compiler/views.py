"""What a call returns, as memory: a view of its receiver or of an argument, an entry of
it, or a new value. Facts about NumPy, Python's builtins and containers (tables), and
about a user function (whether every `return` gives a new value), read by the may-share
analysis (sharing.py) and, for the view tables, by holders.py and mutation.py.

Invariant: VIEW_FUNCTIONS and MORE_VIEWS list every NumPy function that may return a
view of an argument, since sharing.py takes any other NumPy function to return a new
value. The fresh tables list only what surely returns a new value: a method or builtin
in no table may return anything.
"""

import math

import gast
import numpy as np

from .. import runtime
from ..rules.shapes import _getitem_vjp
from ..rules.structure import _sequence_grad
from . import frontend, syntax, traversal
from .scope import dotted_parts

# attributes that are a view of their array
VIEW_ATTRIBUTES = {"T", "mT", "real", "imag", "flat"}
# what may return (a view of) its receiver or argument
VIEW_METHODS = {"reshape", "ravel", "transpose", "swapaxes", "squeeze", "view", "diagonal", "__getitem__"}
VIEW_FUNCTIONS = {
    np.reshape, np.ravel, np.transpose, np.asarray, np.asanyarray, np.broadcast_to, np.squeeze,
    np.expand_dims, np.moveaxis, np.rollaxis, np.swapaxes, np.diagonal, np.atleast_1d, np.atleast_2d, np.atleast_3d,
    np.flip, np.fliplr, np.flipud, np.rot90, np.real, np.imag, np.ascontiguousarray, np.asfortranarray,
    np.split, np.array_split, np.hsplit, np.vsplit, np.dsplit,
}
# those of VIEW_FUNCTIONS whose result may share only their first argument's memory (the
# others are shapes, axes, counts: `np.moveaxis(c, iaxis, 0)` is a view of c alone)
FIRST_ARGUMENT_VIEWS = VIEW_FUNCTIONS - {np.atleast_1d, np.atleast_2d, np.atleast_3d}
# methods returning an element (or a view of the elements) of their receiver
ELEMENT_METHODS = {"get", "pop", "values", "items", "keys", "setdefault", "__getitem__"}
# methods returning a new object (or None) of NumPy arrays and lists; any other method may
# return its receiver (`conj` of a real array does), an argument or something outside
FRESH_METHODS = {
    "all", "any", "argmax", "argmin", "argpartition", "argsort", "choose", "clip", "compress", "cumprod", "cumsum",
    "dot", "flatten", "item", "max", "mean", "min", "nonzero", "prod", "repeat", "round", "searchsorted", "std",
    "sum", "take", "tolist", "tobytes", "trace", "var", "index", "count", "fill", "sort", "put", "partition",
    "resize", "setfield", "setflags", "reverse", "remove", "clear",
}
# NumPy functions that may return (a view of) an argument, besides VIEW_FUNCTIONS; the
# last ones return their argument itself only for some values of another (`np.diff(a, 0)`,
# `np.linalg.matrix_power(a, 1)`, `np.float64(a)` of a float64 array): `new_result`
MORE_VIEWS = {getattr(np, f) for f in ("diag", "einsum", "asarray_chkfinite", "real_if_close", "trim_zeros",
                                       "broadcast_arrays", "unstack", "permute_dims", "matrix_transpose",
                                       "require", "asmatrix", "meshgrid", "ndarray") if hasattr(np, f)} | {
    getattr(np.lib.stride_tricks, f) for f in ("sliding_window_view", "as_strided") if hasattr(np.lib.stride_tricks, f)} | {
    getattr(np.linalg, f) for f in ("diagonal", "matrix_transpose") if hasattr(np.linalg, f)} | {
    np.diff, np.linalg.matrix_power, np.float16, np.float32, np.float64, np.longdouble, np.complex64, np.complex128}
# methods that put their arguments into the receiver (a list, dict or set)
STORING_METHODS = {"append", "extend", "insert", "update", "setdefault", "add"}
FRESH_BUILTINS = {abs, float, int, bool, complex, len, range, round, pow, divmod, sum, str, repr, isinstance,
                  hasattr, any, all, hash, id, format, ord, chr, print, callable,
                  runtime.snapshot, runtime.is_view_of,  # written by tuple_writes.py
                  runtime.in_place}  # `y += v` (anf.py): `y + v`, new, or a copy of it
# srcgrad's adjoint helpers that generated code calls: the result holds (parts of) the
# cotangent or tangent they carry, the first argument, and nothing of the others (which
# lend a shape, a kind or an index): `item_grad(items_bar, -1, choice)` shares no memory
# with `choice`
CARRIERS = {runtime.item_grad, runtime.unbroadcast, runtime.unreduce, runtime.broadcast_tangent,
            runtime.unless_integral, _sequence_grad, _getitem_vjp}
CONTAINER_BUILTINS = {list, tuple, sorted, reversed, zip, enumerate, iter, dict, set, frozenset}
# NumPy functions returning one new array (no list, no view): see sharing's _Function.numpy_arrays
ARRAY_MAKERS = {getattr(np, f) for f in ("zeros", "ones", "empty", "full", "zeros_like", "ones_like", "empty_like",
                                         "full_like", "array", "copy", "arange", "linspace", "eye", "identity",
                                         "concatenate", "stack", "vstack", "hstack", "tile", "outer") if hasattr(np, f)}
IMMUTABLE = (int, float, complex, bool, str, bytes, type(None), np.generic)
# NumPy functions returning their argument itself unless `copy=` is left alone or True
COPYING_UNLESS_TOLD = (np.array, np.nan_to_num)


def new_result(obj, call):
    """Whether `call` of `obj`, one of MORE_VIEWS that returns its argument itself only for
    some values of another, surely makes a new array: `np.diff` with its `n` left alone or
    a positive integer literal, `np.linalg.matrix_power` with a literal power other than 1."""
    if obj is np.diff:
        n = _argument(call, 1, "n")
        return n is None or (isinstance(n, gast.Constant) and type(n.value) is int and n.value >= 1)
    if obj is np.linalg.matrix_power:
        n = _argument(call, 1, "n")
        return isinstance(n, gast.Constant) and type(n.value) is int and n.value != 1
    return False


def _argument(call, position, keyword):
    """The expression `call` passes at `position` or as `keyword`, None where it passes none."""
    if len(call.args) > position and not any(isinstance(a, gast.Starred) for a in call.args[:position + 1]):
        return call.args[position]
    return next((k.value for k in call.keywords if k.arg == keyword), None)


def copies(call):
    """Whether `x.astype(...)` / `np.array(...)` copies: unless `copy=` says otherwise."""
    return all(k.arg != "copy" or (isinstance(k.value, gast.Constant) and k.value.value is True) for k in call.keywords)


def definition(fn):
    """The `def` of the user function `fn`, or None when its source cannot be read."""
    try:
        return frontend.load(fn).tree
    except Exception:  # no source (a builtin, exec'd text): unknown
        return None


def returns_fresh(tree):
    """Whether every `return` of the function `tree` gives a new value that shares nothing:
    arithmetic, a NumPy call, a display of such values, or a local name made only so."""
    if tree is None:
        return False
    stores = {}
    for s in traversal.statements(tree):
        if isinstance(s, gast.Assign):
            for t in s.targets:
                for n in traversal.walk(t):
                    if isinstance(n, gast.Name):
                        stores.setdefault(n.id, []).append(s.value if t is n else None)
        elif isinstance(s, (gast.For, gast.AugAssign)):
            for n in traversal.walk(s.target):
                if isinstance(n, gast.Name):
                    stores.setdefault(n.id, []).append(None)
    params = {a.id for a in tree.args.args + tree.args.kwonlyargs}
    returns = [s.value for s in traversal.statements(tree) if isinstance(s, gast.Return)]
    return bool(returns) and all(_fresh_expression(r, stores, params) for r in returns)


def _fresh_expression(e, stores, params, depth=0):
    """Whether `e` makes a new value. Arithmetic counts as new and as holding no arrays of
    its operands (a helper's `+` is taken to add numbers, not to concatenate lists)."""
    if isinstance(e, (gast.BinOp, gast.UnaryOp, gast.Compare, gast.Constant)):
        return True
    if isinstance(e, (gast.Tuple, gast.List)):
        return all(_fresh_expression(v, stores, params, depth) for v in e.elts)
    if isinstance(e, gast.Call):
        return _numeric_call(e)
    if isinstance(e, gast.Name) and e.id not in params and depth < 3:
        values = stores.get(e.id, [None])
        return all(v is not None and _fresh_expression(v, stores, params, depth + 1) for v in values)
    return False


def _numeric_call(e):
    """A call `np.f(...)` / `math.f(...)` of a NumPy function that is not a view."""
    if not isinstance(e, gast.Call):
        return False
    chain = dotted_parts(e.func)
    if not chain or len(chain) != 2 or chain[0] not in ("np", "numpy", "math"):
        return False
    obj = getattr(math if chain[0] == "math" else np, chain[1], None)
    try:
        return obj is not None and obj not in VIEW_FUNCTIONS and (obj not in MORE_VIEWS or new_result(obj, e)) \
            and obj is not np.array
    except TypeError:
        return False


def bound_view(stmt, name):
    """The name that the assignment `stmt` makes `name` (or a view of): `name = a[1:]`,
    `name = b = a`, `name, c = a, 0.0`; or None."""
    if not isinstance(stmt, gast.Assign):
        return None
    for target in stmt.targets:
        if syntax.is_name(target, name):
            return view_base(stmt.value)
        if (isinstance(target, (gast.Tuple, gast.List)) and isinstance(stmt.value, (gast.Tuple, gast.List))
                and len(target.elts) == len(stmt.value.elts)):
            for t, v in zip(target.elts, stmt.value.elts):
                if syntax.is_name(t, name):
                    return view_base(v)
    return None


def view_base(value):
    """The local name `value` is, or is a view or an entry of (`a`, `a[i]`, `a.T`,
    `a.reshape(...)`), or None."""
    if isinstance(value, gast.Name):
        return value.id
    if isinstance(value, gast.Subscript) or (isinstance(value, gast.Attribute) and value.attr in ("T", "mT")):
        return view_base(value.value)
    if isinstance(value, gast.Call) and isinstance(value.func, gast.Attribute) and value.func.attr in VIEW_METHODS:
        return view_base(value.func.value)
    return None
