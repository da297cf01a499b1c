"""The functional transforms: grad, value_and_grad, vjp, source.

Each validates its arguments, asks `compiler.derive` for generated code (built once
per function and (mode, wrt), at decoration time when the function's names resolve)
and returns a thin function that checks argument types and calls it.
"""

import functools
import inspect
import numbers

import numpy as np

from .compiler import derive
from .errors import SrcGradError


def _where(fn):
    code = getattr(fn, "__code__", None)
    return f"{code.co_filename}:{code.co_firstlineno}" if code else repr(fn)


def _params(fn):
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        raise TypeError(f"srcgrad can differentiate Python functions, not {fn!r}") from None
    return [p.name for p in sig.parameters.values() if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]


def _positions(fn, wrt):
    """Normalize `wrt` (index, name, or a tuple of them) to an int or a tuple of ints."""
    params = _params(fn)

    def one(w):
        if isinstance(w, bool) or not isinstance(w, (int, str)):
            raise TypeError(f"wrt must be a parameter index or name, not {w!r} (for `{fn.__name__}` at {_where(fn)})")
        if isinstance(w, str):
            if w not in params:
                raise TypeError(
                    f"wrt={w!r} names no parameter of `{fn.__name__}` at {_where(fn)}; its parameters are {tuple(params)}"
                )
            return params.index(w)
        index = w + len(params) if w < 0 else w
        if not 0 <= index < len(params):
            raise TypeError(
                f"wrt={w} is out of range for `{fn.__name__}` at {_where(fn)}, which has {len(params)} "
                f"positional parameter{'s' if len(params) != 1 else ''} {tuple(params)}"
            )
        return index

    if isinstance(wrt, (tuple, list)):
        if not wrt:
            raise TypeError(f"wrt must name at least one parameter (for `{fn.__name__}` at {_where(fn)})")
        return tuple(one(w) for w in wrt)
    return one(wrt)


def _check_differentiable(fn, names, positions, args, kwargs):
    for i in positions:
        if i < len(args):
            value = args[i]
        elif names[i] in kwargs:
            value = kwargs[names[i]]
        else:
            continue
        if isinstance(value, (bool, np.bool_, numbers.Integral)) or (
            isinstance(value, (np.ndarray, np.generic)) and value.dtype.kind in "biu"
        ):
            kind = type(value).__name__ if not isinstance(value, np.ndarray) else f"array of {value.dtype}"
            raise TypeError(
                f"cannot differentiate `{fn.__name__}` ({_where(fn)}) with respect to `{names[i]}`: it is "
                f"{kind}, which has no gradient; pass a float (e.g. float({names[i]}) or "
                f"{names[i]}.astype(float))"
            )


class _Lazy:
    """Builds the derivative now, or at the first call when a name it uses is not defined yet."""

    def __init__(self, fn, mode, wrt, verbose):
        self.fn, self.mode, self.wrt, self.verbose = fn, mode, wrt, verbose
        self.derivative = None
        try:
            self.derivative = derive(fn, mode, wrt, verbose=verbose)
        except SrcGradError as exc:
            if not _is_missing_name(exc):
                raise

    def get(self):
        if self.derivative is None:
            self.derivative = derive(self.fn, self.mode, self.wrt, verbose=self.verbose)
        return self.derivative


def _is_missing_name(exc):
    return "cannot find the function" in str(exc.msg if hasattr(exc, "msg") else exc)


def _transform(fn, mode, wrt, verbose):
    positions = _positions(fn, wrt)
    names = _params(fn)
    lazy = _Lazy(fn, mode, positions, verbose)
    checked = positions if isinstance(positions, tuple) else (positions,)
    if mode == "vjp":
        checked = ()

    @functools.wraps(fn)
    def derivative(*args, **kwargs):
        _check_differentiable(fn, names, checked, args, kwargs)
        return lazy.get().function(*args, **kwargs)

    derivative.__srcgrad_lazy__ = lazy
    derivative.__wrapped__ = fn
    derivative.__name__ = f"{fn.__name__}_{mode}"
    derivative.__qualname__ = derivative.__name__
    return derivative


def grad(fn=None, wrt=0, verbose=False):
    """The gradient of the scalar-valued `fn` with respect to `wrt`.

    `wrt` is a parameter index or name (one gradient) or a tuple of them (a tuple of
    gradients). Works as `@grad`, `@grad(wrt=...)` and `grad(f, wrt=...)`. Each gradient
    has its parameter's type, shape and dtype.
    """
    if fn is None:
        return lambda f: grad(f, wrt=wrt, verbose=verbose)
    return _transform(fn, "grad", wrt, verbose)


def value_and_grad(fn=None, wrt=0, verbose=False):
    """Like `grad`, but the function returns `(value, gradient)`."""
    if fn is None:
        return lambda f: value_and_grad(f, wrt=wrt, verbose=verbose)
    return _transform(fn, "value_and_grad", wrt, verbose)


def vjp(fn, *args, verbose=False):
    """`out, pullback = vjp(fn, *args)`: `pullback(seed)` returns one gradient per argument.

    The seed has the output's shape; integer and boolean arguments get None.
    """
    params = _params(fn)
    positions = tuple(range(len(params)))
    lazy = _Lazy(fn, "vjp", positions, verbose)
    out = fn(*args)

    def pullback(seed):
        _, grads = lazy.get().function(seed, *args)
        return tuple(None if _is_integral(a) else g for a, g in zip(args, grads))

    pullback.__srcgrad_lazy__ = lazy
    return out, pullback


def _is_integral(value):
    return isinstance(value, (bool, np.bool_, numbers.Integral)) or (
        isinstance(value, (np.ndarray, np.generic)) and value.dtype.kind in "biu"
    )


def source(derivative):
    """The generated Python source of a derivative made by srcgrad, as a string."""
    lazy = getattr(derivative, "__srcgrad_lazy__", None)
    if lazy is not None:
        return lazy.get().source
    text = getattr(derivative, "__srcgrad_source__", None)
    if text is None:
        raise TypeError(f"{derivative!r} was not made by srcgrad; pass the result of srcgrad.grad, value_and_grad or vjp")
    return text
