"""The per-call path of `srcgrad.jvp` for a plain function called again as before.

`jvp` is called anew for every product, so what it does around the derivative is paid
per product. The first call of a plain function with all its positional parameters
finds the derivative the full way and keeps it (`note_plain_jvp`); a later call with
tangents at the same positions (`kept_jvp`) only checks that each tangent is a float
array of its float array primal's shape and that the derivative is current, and runs
the argument checks the derivative has (`api.check_arguments`) unless they read only
the arguments' types and passed for these types.

Where such a call passed them all, the signature it dispatched on (`cache.signature_of`)
is kept for its function and positions, with the code the dispatcher ran for it: the
next call runs `repeat`, code made for the function's number of parameters and those
positions, which makes the call's signature in one pass over the arguments without a
loop and runs that code where the signature is a kept one. A kept signature stands for
every check passed: each tangent given at a position is a float array of its primal's
shape and dtype kind (the signature holds both shapes and dtypes), and each argument is
of the types the checks passed for. What it does not show (the tangents None
elsewhere, the function's code, the names the derivative's calls resolved through) is
checked before the code runs. The last such `repeat` is tried first, before the
function's kept derivatives are looked up.
"""

import inspect
import types
import weakref

import numpy as np

from .api import check_arguments
from .compiler import cache
from .compiler.scope import still_read
from .function_arguments import called_parameters
from .tangent_outputs import REAL_SCALARS, in_output_types


def kept_jvp(fn, primals, tangents):
    """`jvp(fn, primals, tangents)` without the work of finding the derivative, where an
    earlier call of the plain function `fn` with every parameter given found it
    (`note_plain_jvp`) and each tangent is None or a float array of its float array
    primal's shape; None otherwise, or where the derivative is no longer current (the
    full path then builds it again)."""
    kept = _PLAIN_JVP.get(fn)
    if kept is None or kept[0] is not fn.__code__ or len(primals) != len(kept[1]) or len(tangents) != len(primals):
        return None
    positions, given, i = [], [], 0
    for p, t in zip(primals, tangents):
        if t is not None:
            if (type(p) is not _ndarray or type(t) is not _ndarray or p.shape != t.shape
                    or p.dtype not in _FLOAT_DTYPES or t.dtype not in _FLOAT_DTYPES):
                return None
            positions.append(i)
            given.append(t)
        i += 1
    entry = kept[2].get(tuple(positions))
    if entry is None:
        return None
    derivative, checked, _ = entry
    if not derivative.current(fn):
        return None
    types_passed = True  # whether the argument checks passed for the arguments' types alone
    if derivative.argument_checks:
        types = tuple(map(type, primals))
        if types != checked:
            if not check_arguments(derivative, kept[1], primals) and all(t in _TYPE_CHECKED for t in types):
                entry[1] = types  # the checks read only these types: they pass again for them
            else:
                types_passed = False
    specialized = derivative.specialized
    arguments = (*primals, *given)
    out, out_dot = (specialized or derivative.function)(*arguments)
    if types_passed and specialized is not None:
        _keep_signature(fn, entry, len(primals), tuple(positions), derivative, arguments)
    return in_output_types(fn, out, out_dot)


def _keep_signature(fn, entry, count, positions, derivative, arguments):
    """Keep the signature of `arguments` (a call that passed every check) with the code the
    dispatcher ran for it, for the `repeat` of `entry` (made now if it has none), and make
    that `repeat` the one tried first."""
    signature = cache.signature_of(arguments)
    run = derivative.specialized.__srcgrad_seen__.get(signature)
    if run is None:
        return
    if entry[2] is None:
        entry[2] = _repeat(fn, count, positions, derivative)
    repeat = entry[2]
    repeat.__srcgrad_kept__[signature] = run
    LAST_REPEAT[:] = [repeat]


def _repeat(fn, count, positions, derivative):
    """`repeat(f, primals, tangents)`: for `fn` (else None), called with `count` primals and
    tangents given at `positions` (else None), and a kept signature: what its code returns
    in the output's types; None otherwise."""
    key = (count, positions, bool(derivative.reads))
    text = _REPEAT_CODE.get(key)
    if text is None:
        text = _REPEAT_CODE[key] = _repeat_code(*key)
    kept = {}
    scope = {**cache.KEY_SCOPE, "alive": weakref.ref(fn, _forget), "kept": kept, "code": derivative.code,
             "reads": derivative.reads, "still_read": still_read, "in_output_types": in_output_types,
             "real_scalars": REAL_SCALARS}
    exec(text, scope)  # noqa: S102 - fixed text, no user input
    repeat = scope.pop("repeat")  # its globals need not hold it: no reference cycle
    repeat.__srcgrad_kept__ = kept
    return repeat


def _repeat_code(count, positions, reads):
    """The compiled module text that defines `repeat` (see `_repeat`; `reads`: whether the
    derivative's calls resolved through names, to check again)."""
    primals = [f"p{i}" for i in range(count)]
    tangents = [f"t{i}" for i in range(count)]
    given = [tangents[i] for i in positions]
    absent = " or ".join(f"{t} is not None" for i, t in enumerate(tangents) if i not in positions)
    # unpacking checks the numbers of primals and tangents (a ValueError: not of this kind)
    text = (
        "def repeat(f, primals, tangents):\n"
        "    try:\n"
        f"        {', '.join(primals)}, = primals\n"
        f"        {', '.join(tangents)}, = tangents\n"
        "    except ValueError:\n"
        "        return None\n"
        f"    if alive() is not f{' or ' + absent if absent else ''}:\n"
        "        return None\n"
        f"    run = kept.get({cache.key_text(primals + given)})\n"
        f"    if run is None or f.__code__ is not code{' or not still_read(reads)' if reads else ''}:\n"
        "        return None\n"
        f"    out, out_dot = run({', '.join(primals + given)})\n"
        "    kind = type(out)\n"
        "    if type(out_dot) is kind and (kind in real_scalars or kind is ndarray and out_dot.dtype is out.dtype):\n"
        "        return out, out_dot  # in its output's types already (tangent_outputs.in_output_types)\n"
        "    return in_output_types(f, out, out_dot)\n"
    )
    return compile(text, "<srcgrad jvp repeat>", "exec")


def _forget(alive):
    """Drop the `repeat` tried first where it is of the function that was `alive`, so that
    it does not keep that function's derivative."""
    for repeat in LAST_REPEAT:
        if repeat.__globals__["alive"] is alive:
            LAST_REPEAT.clear()


def note_plain_jvp(fn, names, positions, derivative):
    """Keep `derivative` (of the tangents at `positions`) for `kept_jvp` where `fn` is a
    plain Python function of the user's (not a derivative: `_jvp_derivative`) that
    `resolve` leaves as it is whatever its arguments (it calls no parameter, takes no
    `*args`), called with all its positional parameters."""
    if type(fn) is not _function or any(getattr(fn, a, None) is not None for a in _MADE_BY_SRCGRAD) or called_parameters(fn):
        return
    code = fn.__code__
    if code.co_flags & (inspect.CO_VARARGS | inspect.CO_VARKEYWORDS) or code.co_kwonlyargcount:
        return
    try:
        kept = _PLAIN_JVP.get(fn)
        if kept is None or kept[0] is not code:
            kept = _PLAIN_JVP[fn] = (code, tuple(names), {})
    except TypeError:  # not weakly referable
        return
    # with the argument types its checks passed for (`kept_jvp`), and its `repeat` (`_repeat`)
    kept[2][positions] = [derivative, None, None]


_ndarray = np.ndarray
_PLAIN_JVP = cache.kept_with_cache(weakref.WeakKeyDictionary())  # function -> (its code, its parameter names, {positions: [derivative, types checked, repeat]})
LAST_REPEAT = cache.kept_with_cache([])  # the `repeat` of the last call kept, tried first (none, or one)
_REPEAT_CODE = {}  # (count, positions) -> the compiled text defining `repeat` (it depends on nothing else)
_FLOAT_DTYPES = frozenset(np.dtype(c) for c in "efdg")  # the dtypes of kind 'f' (a set test: faster than `.kind`)
_TYPE_CHECKED = frozenset({_ndarray, float, int, bool})  # argument checks of these read the type alone
_function = types.FunctionType
_MADE_BY_SRCGRAD = ("__srcgrad_per_call__", "__srcgrad_lazy__", "__srcgrad_program__")
