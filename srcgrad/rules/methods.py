"""Array methods and attributes, spelled as the NumPy functions whose rules they use.

`x.sum(axis=0)` differentiates like `np.sum(x, axis=0)`; `x.T` like `np.transpose(x)`,
`x.real` like `np.real(x)`, `x.mT` like `np.matrix_transpose(x)`, and a read `x.flat[i]` like
`np.ravel(x)[i]`. `x.tolist()` gives nested lists of Python numbers, whose gradient is
nested lists too (None meaning zero); `x.view()` without a dtype is the identity.
`METHODS` maps a method name to `(primal, packs_varargs)`: when `packs_varargs` is
true, `x.reshape(2, 3)` passes its positional arguments as one tuple, like
`np.reshape(x, (2, 3))`. `ATTRIBUTES` maps differentiable attributes to primals;
`CONSTANT_ATTRIBUTES` carry no gradient.
"""

import numpy as np

from ..runtime import COMPLEX_GRADIENT, values_grad
from .registry import defjvp, defvjp, supports

METHODS = {
    "sum": (np.sum, False),
    "mean": (np.mean, False),
    "prod": (np.prod, False),
    "max": (np.max, False),
    "min": (np.min, False),
    "std": (np.std, False),
    "var": (np.var, False),
    "cumsum": (np.cumsum, False),
    "cumprod": (np.cumprod, False),
    "dot": (np.dot, False),
    "reshape": (np.reshape, True),
    "transpose": (np.transpose, True),
    "ravel": (np.ravel, False),
    "flatten": (np.ndarray.flatten, False),
    "squeeze": (np.squeeze, False),
    "swapaxes": (np.swapaxes, False),
    "clip": (np.clip, False),
    "trace": (np.trace, False),
    "diagonal": (np.diagonal, False),
    "repeat": (np.repeat, False),
    "take": (np.take, False),
    "copy": (np.ndarray.copy, False),
    "astype": (np.ndarray.astype, False),
    "item": (np.ndarray.item, True),
    "conj": (np.conj, False),
    "round": (np.round, False),
    "tolist": (np.ndarray.tolist, False),
    "view": (np.ndarray.view, False),
    "values": (dict.values, False),  # of a dict: `sum(d.values())`
    "keys": (dict.keys, False),  # of a dict: no gradient (nondiff.py)
    # no gradient (nondiff.py): booleans, indices, counts
    "all": (np.all, False),
    "any": (np.any, False),
    "argmax": (np.argmax, False),
    "argmin": (np.argmin, False),
    "argsort": (np.argsort, False),
    "nonzero": (np.nonzero, False),
}

ATTRIBUTES = {"T": np.transpose, "real": np.real, "flat": np.ravel}  # `x.flat[i]` reads like `np.ravel(x)[i]`
if hasattr(np, "matrix_transpose"):  # NumPy 2: `x.mT`
    ATTRIBUTES["mT"] = np.matrix_transpose

# `.imag` of a real array is zeros (complex values are refused on the differentiated path)
CONSTANT_ATTRIBUTES = frozenset({"shape", "ndim", "size", "dtype", "itemsize", "nbytes", "strides", "imag"})

# transpose's `axes` may arrive packed from varargs (`x.transpose(1, 0)`) or be empty.


@defvjp(dict.values, "d", name="DictValues")
def dict_values_vjp(g, ans, d):
    return values_grad(g, d)


@defjvp(dict.values, "d")
def dict_values_jvp(t, ans, d):
    return list(t.values())


@defvjp(np.ndarray.copy, "x", name="Clone")
def copy_vjp(g, ans, x, order="C"):
    return g


@defjvp(np.ndarray.copy, "x")
def copy_jvp(t, ans, x, order="C"):
    return t


def _is_discrete(ans):
    """Whether a cast produced integers or booleans: rounding has no derivative."""
    return np.result_type(ans).kind in "biu"


def _numbers_only(*values):
    """Refuse a cast to or from text (`x.astype(str).astype(float)`): text has no derivative,
    and the number read back from it would have a zero one without a word."""
    if any(np.result_type(v).kind in "SU" for v in values):
        raise NotImplementedError(
            "srcgrad differentiates `x.astype()` between numbers only: a differentiated value made text "
            "(`astype(str)`) carries no derivative; compute with the numbers themselves"
        )


def _astype_vjp(g, ans, x):
    _numbers_only(x, ans)
    dtype = np.result_type(x, 1.0)
    if _is_discrete(ans):
        return np.zeros(np.shape(x), dtype=dtype)
    if dtype.kind != "c" and np.iscomplexobj(g):  # the cast back would drop its imaginary part
        raise TypeError(COMPLEX_GRADIENT)
    return np.asarray(g).astype(dtype)


def _astype_jvp(t, ans, dtype):
    _numbers_only(ans)
    if _is_discrete(ans):
        return np.zeros(np.shape(ans), dtype=np.float64)
    return np.asarray(t).astype(dtype)


@defvjp(np.ndarray.astype, "x", name="ToCopy")
def astype_vjp(g, ans, x, dtype, order="K", casting="unsafe", subok=True, copy=True):
    return _astype_vjp(g, ans, x)


@defjvp(np.ndarray.astype, "x")
def astype_jvp(t, ans, x, dtype, order="K", casting="unsafe", subok=True, copy=True):
    return _astype_jvp(t, ans, dtype)


def _filled(g, shape):
    """The gradient `g` of `x.tolist()` (nested lists, None meaning zero) as nested lists of
    numbers only."""
    if not shape:
        return 0.0 if g is None else g
    return [_filled(None if g is None else item, shape[1:]) for item in (g if g is not None else [None] * shape[0])]


@defvjp(np.ndarray.tolist, "x", name="ToList")
def tolist_vjp(g, ans, x):
    return np.asarray(_filled(g, np.shape(x)), dtype=np.result_type(x, 1.0)).reshape(np.shape(x))


@defjvp(np.ndarray.tolist, "x")
def tolist_jvp(t, ans, x):
    return np.asarray(t).tolist()


def _same_view(g, dtype, type):
    """`g` where `x.view()` names no dtype or type (the identity); a clear error otherwise."""
    if dtype is not None or type is not None:
        raise NotImplementedError(
            "srcgrad differentiates `x.view()` without a dtype or type only: a view as another dtype reads the "
            "bytes anew, which has no derivative; use `x.astype(...)` for a conversion of values"
        )
    return g


@defvjp(np.ndarray.view, "x", name="View")
def view_vjp(g, ans, x, dtype=None, type=None):
    return _same_view(g, dtype, type)


@defjvp(np.ndarray.view, "x")
def view_jvp(t, ans, x, dtype=None, type=None):
    return _same_view(t, dtype, type)


for _param in ("dtype", "type"):
    supports(np.ndarray.view, _param, (None,), "a view as another dtype reads the bytes anew, which has no derivative; "
             "use `x.astype(...)` to convert the values, or `x.view()`")
