"""The reverse-mode transforms grad, value_and_grad and vjp, `source`, and the checks of
arguments that every transform shares (jacobians.py holds the forward-mode ones).

Each validates its arguments, asks `compiler.derive` for generated code (built once
per function and (mode, wrt), at decoration time when the function's names resolve)
and returns a thin function that checks argument types and calls it.
"""

import collections.abc
import decimal
import functools
import inspect
import numbers
import types
import weakref

import numpy as np

from .backends import with_backend
from . import pullback_seeds
from .compiler import cache, derive, given_source, varargs
from .compiler.activity import undescribed
from .compiler.stand_in import is_instance, method_function, of_user_class, partial_function, refusal as library_refusal, stand_in
from .argument_kinds import described_kind, is_container, is_tensor, refuse_non_leaf, refuse_undescribed
from .errors import NotDifferentiableError, SrcGradError, defined_at
from .function_arguments import per_call, resolve
from .runtime import is_sequence
from .runtime.records import Field, field_values, is_dataclass_kind, record_fields



def _function_of(fn):
    """`fn`, or for a `functools.partial` of a Python function, a bound method of one
    (`model.loss`) or a callable instance the function computing it
    (`stand_in.partial_function`, `method_function`), whose name and parameters messages
    and `wrt` read."""
    if type(fn) is types.FunctionType:  # the common case: a plain function is its own
        return fn
    if isinstance(fn, functools.partial):
        return partial_function(fn) or fn
    if isinstance(fn, types.MethodType) or is_instance(fn):
        made = method_function(fn)
        if made is None:
            raise TypeError(
                f"srcgrad differentiates a bound method or a callable object whose method is a Python function "
                f"without `*args` or `**kwargs` parameters, not {fn!r}: differentiate a function that calls it"
            )
        return made
    return fn


def _params(fn):
    refused = library_refusal(fn)
    if refused is not None:
        raise TypeError(refused)
    try:
        sig = inspect.signature(stand_in(fn))
    except (TypeError, ValueError):
        # NumPy 1.26 ufuncs have no signature (NumPy 2's do): the same message as frontend.py's
        raise TypeError(f"srcgrad can differentiate Python functions, not {type(fn).__name__} objects") from None
    return [p.name for p in sig.parameters.values() if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]


def _positions(fn, wrt, params=None):
    """Normalize `wrt` (index, name, or a tuple of them) to an int or a tuple of ints.
    `params`: `_params(fn)`, where the caller has it."""
    params = _params(fn) if params is None else params
    arity = varargs.arity(fn)  # a variant of a function taking `*args`: its parameters are the call's arguments
    named = params if arity is None else params[:fn.__code__.co_argcount]

    def one(w):
        if isinstance(w, bool) or not isinstance(w, (int, str)):
            raise TypeError(f"wrt must be a parameter index or name, not {w!r} (for `{fn.__name__}` at {defined_at(fn)})")
        if isinstance(w, str):
            if w not in named:
                raise TypeError(_no_parameter(fn, w, named, arity))
            return params.index(w)
        index = w + len(params) if w < 0 else w
        if not 0 <= index < len(params):
            raise TypeError(
                f"wrt={w} is out of range for `{fn.__name__}` at {defined_at(fn)}, which has {len(params)} "
                f"positional parameter{'s' if len(params) != 1 else ''} {tuple(params)}" if arity is None else
                f"wrt={w} is out of range for `{fn.__name__}` at {defined_at(fn)} called with {len(params)} "
                f"positional argument{'s' if len(params) != 1 else ''}"
            )
        return index

    if isinstance(wrt, (tuple, list)):
        if not wrt:
            raise TypeError(f"wrt must name at least one parameter (for `{fn.__name__}` at {defined_at(fn)})")
        return tuple(one(w) for w in wrt)
    return one(wrt)


def _no_parameter(fn, w, named, arity):
    """What `wrt=w` naming none of the positional parameters `named` of `fn` is told: that
    `w` is keyword-only, or a keyword that `**kwargs` collects, where it is one."""
    text = f"wrt={w!r} names no parameter of `{fn.__name__}` at {defined_at(fn)}; its parameters are {tuple(named)}"
    code = getattr(varargs.original(fn), "__code__", None)
    keyword_only = () if code is None else code.co_varnames[code.co_argcount:code.co_argcount + code.co_kwonlyargcount]
    keywords = _star_names(fn, inspect.CO_VARKEYWORDS)
    if w in keyword_only:
        return (f"{text}; `{w}` is keyword-only, and srcgrad differentiates with respect to positional parameters: "
                f"give `{w}` a position (`def {fn.__name__}(..., {w}, ...)`), or differentiate a function that "
                f"passes it on (`lambda ..., {w}: {fn.__name__}(..., {w}={w})`)")
    if w in keywords or (arity is not None and keywords and w in inspect.signature(stand_in(fn)).parameters):
        return (f"{text}; srcgrad does not differentiate with respect to the keyword arguments that "
                f"`**{keywords[0]}` collects")
    if arity is not None:
        return f"{text}; an argument that `*args` collects is given by its position in the call (wrt=1 is the second positional argument)"
    return text


def _star_names(fn, flag):
    """The name of `fn`'s `*args` (flag CO_VARARGS) or `**kwargs` (CO_VARKEYWORDS) parameter, as a tuple."""
    code = getattr(varargs.original(fn), "__code__", None)
    if code is None or not code.co_flags & flag:
        return ()
    at = code.co_argcount + code.co_kwonlyargcount + (1 if flag == inspect.CO_VARKEYWORDS and code.co_flags & inspect.CO_VARARGS else 0)
    return (code.co_varnames[at],)


def _check_differentiable(fn, names, positions, args, kwargs):
    """Raise a TypeError for an integer or boolean argument in `positions`, or such a
    leaf of a list, tuple, namedtuple or dict there. True when one of them is such a
    container that a call's signature does not describe down to its leaves (cache.describe:
    too deep or too long): its leaves, not its type, decide, so a caller checking once
    per signature checks again."""
    containers = False
    for i in positions:
        if i < len(args):
            value = args[i]
        elif names[i] in kwargs:
            value = kwargs[names[i]]
        else:
            continue
        if _is_container(value):
            # a container that the call's signature describes down to every leaf's type
            # (cache.describe) is checked once per signature
            containers = containers or not cache.complete(cache.describe(value))
            _check_leaves(fn, names[i], value, f"move it out of `{names[i]}` into an argument that is not differentiated")
        elif _is_integral(value):
            raise TypeError(
                f"cannot differentiate `{fn.__name__}` ({defined_at(fn)}) with respect to `{names[i]}`: it is "
                f"{described_kind(value)}, which has no gradient; pass a float (e.g. float({names[i]}) or "
                f"{names[i]}.astype(float))"
            )
        elif callable(value) and not isinstance(value, np.ndarray):
            raise TypeError(
                f"cannot differentiate `{fn.__name__}` ({defined_at(fn)}) with respect to `{names[i]}`: it is "
                f"a function ({getattr(value, '__name__', type(value).__name__)}), which has no gradient; "
                f"differentiate with respect to the values it is applied to"
            )
        elif of_user_class(value) and record_fields(type(value)) is None and not is_tensor(value):
            raise TypeError(
                f"cannot differentiate `{fn.__name__}` ({defined_at(fn)}) with respect to `{names[i]}`: it is a "
                f"{type(value).__qualname__}, an object of a class that is neither a dataclass nor a namedtuple, "
                f"which srcgrad holds constant (its methods followed, its attributes read when the derivative "
                f"runs); pass the values to differentiate as arguments of their own, or make the class a dataclass"
            )
        else:
            refuse_undescribed(fn, names[i], value)
            refuse_non_leaf(fn, names[i], value)
    return containers


def check_arguments(derivative, names, args, kwargs=None):
    """Raise the error a check of `derivative.argument_checks` describes where its argument
    (or the entry of it at its keys) is refused: a dict that the derivative reads as a
    sequence (`for v in a:`, iteration.py), or a value of a type the rules do not describe
    that enters the differentiated computation (a masked array, a sparse matrix:
    activity.constant_operands). A check's position is an index into `names` (`args`, else
    `kwargs` by that name), or the name of a keyword-only parameter. A message may be a
    function of the refused value.

    Returns whether a check that applied reads more of its value than a call's signature
    (the arguments' types) tells: an entry of a container (`keys`), or one whose `refused`
    has `srcgrad_per_value` set (an attribute set on a record instance), so that the
    dispatcher checks the next call of that signature again."""
    again = False
    for position, keys, refused, message, location in getattr(derivative, "argument_checks", ()):
        if type(position) is str:  # a keyword-only parameter, by its name
            if not kwargs or position not in kwargs:
                continue
            value = kwargs[position]
        elif position < len(args):
            value = args[position]
        elif kwargs and names[position] in kwargs:
            value = kwargs[names[position]]
        else:
            continue
        again = again or getattr(refused, "srcgrad_per_value", False) or bool(keys) and not (
            getattr(refused, "srcgrad_by_type", False) and cache.types_in_key(value, keys))
        for v in _entries(value, keys):
            if refused(v):
                raise NotDifferentiableError(message if isinstance(message, str) else message(v), *location)
    return again


def _entries(value, keys):
    """The values at `keys` in `value` (key `...`: each entry of a list or tuple); none
    where a key is missing."""
    if not keys:
        return [value]
    key, rest = keys[0], keys[1:]
    if key is ...:
        return [v for item in value for v in _entries(item, rest)] if is_sequence(type(value)) else []
    if type(key) is Field:
        fields = record_fields(type(value))
        return _entries(getattr(value, key.name), rest) if fields is not None and key.name in fields else []
    try:
        return _entries(value[key], rest)
    except (LookupError, TypeError):
        return []


_is_container = is_container


def _children(value):
    """(key, child) pairs of the pytree node `value`: a dict's items, a dataclass's fields
    (keys `Field`), a sequence's entries by index."""
    if type(value) is dict:
        return value.items()
    if is_dataclass_kind(type(value)):
        return zip(map(Field, record_fields(type(value))), field_values(value))
    return enumerate(value)


def _check_leaves(fn, name, value, alternative, keys=()):
    """Raise a TypeError naming the first integer or boolean leaf of the list, tuple,
    namedtuple, dataclass instance or dict `value` (the argument `name`); `alternative`
    says what else to do with it."""
    for key, item in _children(value):
        if _is_container(item):
            _check_leaves(fn, name, item, alternative, keys + (key,))
        elif type(value) in (list, tuple, dict) and callable(item) and not isinstance(item, (np.ndarray, np.generic)):
            # a container of functions (passed_containers.py): the derivative is made for them
            raise TypeError(
                f"cannot differentiate `{fn.__name__}` ({defined_at(fn)}) with respect to `{_path(name, keys + (key,))}`: "
                f"it is a function ({getattr(item, '__name__', type(item).__name__)}), which has no gradient; "
                f"differentiate with respect to the values it is applied to"
            )
        elif not _is_integral(item):
            refuse_undescribed(fn, _path(name, keys + (key,)), item)
        else:
            label = _path(name, keys + (key,))
            example = f"{label}.astype(float)" if isinstance(item, np.ndarray) else f"float({label})"
            raise TypeError(
                f"cannot differentiate `{fn.__name__}` ({defined_at(fn)}) with respect to `{label}`: it is "
                f"{described_kind(item)}, which has no gradient; pass floats (e.g. {example}), or {alternative}"
            )


def _path(name, keys):
    return name + "".join(f".{k.name}" if type(k) is Field else f"[{k!r}]" for k in keys)


class _Lazy:
    """Builds the derivative now, or at the first call when a name it uses is not defined yet."""

    def __init__(self, fn, mode, wrt, verbose, source=None):
        self.fn, self.mode, self.wrt, self.verbose, self.source = fn, mode, wrt, verbose, source
        self.derivative = None
        if source is not None:
            given_source.check(fn, source)
        try:
            self.derivative = derive(fn, mode, wrt, verbose=verbose, source=source)
        except SrcGradError as exc:
            if not _is_missing_name(exc):
                raise

    def get(self):
        """The derivative, built again when a name its calls resolved through was rebound,
        or the function's code replaced (`fn.__code__ = ...`)."""
        found = self.derivative
        if found is None or not found.current(self.fn):
            found = self.derivative = derive(self.fn, self.mode, self.wrt, verbose=self.verbose, source=self.source)
        return found


def _is_missing_name(exc):
    return "cannot find the function" in str(exc.msg if hasattr(exc, "msg") else exc)


def _transform(fn, mode, wrt, verbose, source=None):
    fn = _function_of(fn)
    if mode in ("grad", "value_and_grad") and getattr(fn, "__srcgrad_lazy__", None) is not None:
        from .jacobians import nested_grad

        return nested_grad(fn, mode, wrt, verbose)  # grad(grad(f)): forward over the generated code
    names = _params(fn)
    positions = _positions(fn, wrt, names)
    lazy = _Lazy(fn, mode, positions, verbose, source)
    checked = positions if isinstance(positions, tuple) else (positions,)
    if mode == "vjp":
        checked = ()

    def check(args, kwargs):
        containers = _check_differentiable(fn, names, checked, args, kwargs)
        if lazy.derivative is not None and lazy.derivative.argument_checks:
            containers = check_arguments(lazy.derivative, names, args, kwargs) or containers
        return containers

    current = [None, None]  # the derivative last built, its dispatcher (None: none)

    @functools.wraps(fn)
    def derivative(*args, **kwargs):
        found = lazy.get()
        if found is not current[0]:  # built again (a name it calls through was rebound), or first
            made = getattr(found.function, "__srcgrad_guarded__", None)
            current[:] = [found, made(check if checked else None) if made is not None else None]
        dispatch = current[1]
        if dispatch is None:
            check(args, kwargs)
            return found.function(*args, **kwargs)
        return dispatch(*args, **kwargs)

    guarded = getattr(lazy.derivative and lazy.derivative.function, "__srcgrad_guarded__", None)
    if guarded is not None and not lazy.derivative.reads:
        # built now, calling nothing a rebinding could change: the dispatcher itself,
        # checking once per kind of call, until `fn.__code__` is replaced
        owner = (fn, derivative) if hasattr(fn, "__code__") else None
        derivative = functools.wraps(fn)(guarded(check if checked else None, owner=owner))

    derivative.__srcgrad_lazy__ = lazy
    derivative.__wrapped__ = fn
    derivative.__name__ = f"{fn.__name__}_{mode}"
    derivative.__qualname__ = derivative.__name__
    return derivative


def grad(fn=None, wrt=0, verbose=False, source=None, backend=None):
    """The gradient of the scalar-valued `fn` with respect to `wrt`.

    `wrt` is a parameter index or name (one gradient) or a tuple of them (a tuple of
    gradients). Works as `@grad`, `@grad(wrt=...)` and `grad(f, wrt=...)`. Each gradient
    has its parameter's type, shape and dtype. `source` is the text of `fn`'s `def`, for
    functions whose source cannot be read back (made by `exec`). `backend="numba"`
    compiles the generated code with numba (`pip install "srcgrad[numba]"`), see
    `srcgrad/backends/numba_backend.py`.
    """
    if fn is None:
        return lambda f: grad(f, wrt=wrt, verbose=verbose, source=source, backend=backend)
    return per_call(_function_of(fn), lambda f: with_backend(_transform(f, "grad", wrt, verbose, source), backend))


def value_and_grad(fn=None, wrt=0, verbose=False, source=None, backend=None):
    """Like `grad`, but the function returns `(value, gradient)`."""
    if fn is None:
        return lambda f: value_and_grad(f, wrt=wrt, verbose=verbose, source=source, backend=backend)
    return per_call(
        _function_of(fn), lambda f: with_backend(_transform(f, "value_and_grad", wrt, verbose, source), backend),
    )


def vjp(fn, *args, verbose=False, source=None):
    """`out, pullback = vjp(fn, *args)`: `pullback(seed)` returns one gradient per argument.

    The pullback may be called any number of times, with the same result; it changes
    neither `out` nor anything else the caller holds, and it is the pullback at the
    arguments as they were: the forward pass runs on copies of the arrays given (also in a
    list, tuple or dict), and `out` is a copy, so the caller may change either in place.

    The seed has the output's shape, or one that broadcasts against it (taken as the seed
    of the output broadcast to their joint shape: `pullback(1.0)` is
    `pullback(np.ones_like(out))`; a list of numbers is the array it spells); for a list,
    tuple, dict or dataclass output it has the output's structure, each leaf taken so
    (None, or a key left out of a dict, seeding 0). Any other seed is a TypeError naming
    the output leaf it is for (pullback_seeds.py). Integer, boolean and None arguments,
    strings and objects the rules do not describe get None. A list, tuple or dict
    argument with an integer or boolean leaf, and a set, an iterator or a subclass of dict
    or list, are a TypeError.
    """
    given = fn
    built = _plain_vjp(fn, args) if not verbose and source is None else None
    plain = built is not None  # a plain function of float arrays: every gradient is returned as computed
    if not plain:
        fn = resolve(_function_of(fn), args)
        refused = library_refusal(fn)
        if refused is not None:
            raise TypeError(refused)
        code = getattr(fn, "__code__", None)  # cheaper than inspect.signature, on every call
        # (a variant of a function taking `*args` has its own signature: compiler/varargs.py)
        count = code.co_argcount if code is not None and not code.co_flags & _STARS else len(_params(fn))
        for i, a in enumerate(args):
            if type(a) is _ndarray or type(a) is float:
                continue
            if _is_container(a) and not _holds_functions(a):
                names = _params(fn)
                _check_leaves(fn, names[i] if i < len(names) else f"args[{i}]", a,
                              "pass it as an argument of its own (its gradient is then None)")
            elif (isinstance(a, _VJP_REFUSED) and not _is_container(a)) or is_tensor(a):  # None, a string, an object: constants, their gradients None
                names = _params(fn)
                refuse_non_leaf(fn, names[i] if i < len(names) else f"args[{i}]", a)
        positions = vjp_positions(count, args)
        found = _built(fn, "split_vjp", positions) if not verbose and source is None else None
        if found is None:
            found = _Lazy(fn, "split_vjp", positions, verbose, source).get()
        built = _Built(found)
        if found.argument_checks:
            check_arguments(found, _params(fn), args)
        elif fn is given and not verbose and source is None:
            _note_plain_vjp(fn, args, positions, built)
    found = built.derivative
    # the pullback reads the forward pass's values when it is called, later: the forward pass
    # runs on copies of the caller's arrays, and the caller gets a copy of the output, so
    # that changing them in place (`state[...] = new`, `out -= y`) does not change them
    out, backward = found.function(*map(held_apart, args))  # the forward pass runs once, here
    out = held_apart(out)
    container = type(out) is not _ndarray and _is_container(out)  # its leaves may differ in shape: no np.shape
    shape = None if container else out.shape if type(out) is _ndarray else np.shape(out)
    numeric = container or isinstance(out, (_ndarray, np.generic, numbers.Number))  # else refused by the pullback

    # a Python number seeds a NumPy output in the output's dtype: weakly typed, 0.1 would
    # meet a float32 constant of a float64 program in float32 (NumPy's promotion)
    numpy_dtype = None if container or type(out) is float else getattr(out, "dtype", None)
    if numpy_dtype is not None and numpy_dtype.kind != "f":
        numpy_dtype = None

    def pullback(seed):
        if container:
            seed = pullback_seeds.fitted_structure(fn, out, seed)
        elif type(seed) is _ndarray and seed.shape == shape and seed.dtype.kind == "f":
            pass  # the common case
        elif type(seed) is not float or shape or not numeric:
            seed = pullback_seeds.fitted_seed(fn, out, seed, shape)
        if numpy_dtype is not None and type(seed) in (float, int):
            seed = numpy_dtype.type(seed)
        grads = backward(seed)
        if plain or (len(grads) == len(args) and type(grads) is tuple and not any(map(_no_gradient, args))):
            return grads
        return tuple(None if _no_gradient(a) else g for a, g in zip(args, grads))

    pullback.__srcgrad_lazy__ = built
    return out, pullback


def held_apart(value):
    """`value` with its arrays copied: an array, or a list, tuple or dict holding arrays
    (rebuilt, one level of such containers after another); anything else as it is."""
    kind = type(value)
    if kind is _ndarray:
        return value.copy(order="K")  # the layout kept: order="A" and "K" read it
    if kind in (list, tuple):
        return kind(map(held_apart, value))
    if kind is dict:
        return {k: held_apart(v) for k, v in value.items()}
    return value


def _plain_vjp(fn, args):
    """The split_vjp derivative (as a `_Built`) a call `vjp(fn, *args)` runs, without the work of finding
    it, where an earlier call of `fn` with as many float arrays found that this work
    changes nothing (`_note_plain_vjp`): `fn` a plain Python function, its own
    differentiated function, every argument a float array. None otherwise, and where the
    derivative is no longer current (then the full path builds it again)."""
    if type(fn) is not _function:
        return None
    kept = _PLAIN_VJP.get(fn)
    if kept is None or kept[0] is not fn.__code__ or kept[1] != len(args):
        return None
    for a in args:
        if type(a) is not _ndarray or a.dtype.kind != "f":
            return None
    built = kept[2]
    return built if built.derivative.current(fn) else None


def _note_plain_vjp(fn, args, positions, built):
    """Keep `built` for `_plain_vjp` where the call needed nothing but it: a plain Python
    function (no partial, method, variant for `*args`, nor binding of a function
    argument) that takes at least these arguments, every one a float array
    (so all of them differentiated and none checked), and no argument checks."""
    if type(fn) is not _function or positions != tuple(range(len(args))):
        return
    for a in args:
        if type(a) is not _ndarray or a.dtype.kind != "f":
            return
    try:
        _PLAIN_VJP[fn] = (fn.__code__, len(args), built)
    except TypeError:  # not weakly referable
        pass


def vjp_positions(count, args):
    """The parameters that `vjp` differentiates, of a function of `count` positional
    parameters called with `args`: those given, but for the integers, booleans and values
    of types the rules do not describe (`_no_gradient`). A parameter left to its default
    is a constant, whatever it holds: its gradient is not returned (`def f(x, k=3)`,
    `c[:-k]`). All of them where that leaves none."""
    given = min(count, len(args))
    positions = _RANGES.get(given) or _RANGES.setdefault(given, tuple(range(given)))
    if any(map(_no_gradient, args)):  # differentiated with respect to the others only
        positions = tuple(i for i in positions if not _no_gradient(args[i]))
    return positions or _RANGES.get(count) or _RANGES.setdefault(count, tuple(range(count)))


def _built(fn, mode, positions):
    """The derivative already built and current for (mode, positions) of `fn`, or None:
    `derive`'s answer without its bookkeeping, for the transforms called anew each time (vjp)."""
    found = cache.get(fn, (mode, positions))
    return found if found is not None and found.current(fn) else None


class _Built:
    """What a pullback's `__srcgrad_lazy__` gives `source`: the derivative its forward pass ran."""

    __slots__ = ("derivative",)

    def __init__(self, derivative):
        self.derivative = derivative

    def get(self):
        return self.derivative


_RANGES = {}  # n -> tuple(range(n))
_PLAIN_VJP = cache.kept_with_cache(weakref.WeakKeyDictionary())  # fn -> (its code, number of arguments, _Built): see _plain_vjp
_function = types.FunctionType
_STARS = inspect.CO_VARARGS | inspect.CO_VARKEYWORDS
_ndarray = np.ndarray


_VJP_REFUSED = (set, frozenset, dict, list, tuple, collections.abc.Iterator, decimal.Decimal)  # see refuse_non_leaf


def _no_gradient(value):
    """Whether `vjp` leaves the argument `value` undifferentiated (its gradient None):
    None, a string, an integer or boolean (`_is_integral`), or a value of a type the rules do not describe (a masked array, a
    sparse matrix, a user's object: `activity.undescribed`), which the derivative then
    refuses where it computes with it. Fast for float arrays and floats."""
    kind = type(value)
    if kind is _ndarray:
        return value.dtype.kind in "biu"
    if kind is float:
        return False
    if value is None or kind is str or kind is bytes:
        return True
    return _is_integral(value) or (not _is_container(value) and (undescribed(value) or callable(value))) or (
        _holds_functions(value))


def _holds_functions(value):
    """Whether `value` is a list, tuple or dict holding a function (a container of callables
    passed as an argument: compiler/passed_containers.py), which has no gradient."""
    kind = type(value)
    if kind is not list and kind is not tuple and kind is not dict:
        return False
    return any(callable(v) and not isinstance(v, (np.ndarray, np.generic)) for v in (value.values() if kind is dict else value))


def _is_integral(value):
    return isinstance(value, (bool, np.bool_, numbers.Integral)) or (
        isinstance(value, (np.ndarray, np.generic)) and value.dtype.kind in "biu"
    )


def source(derivative):
    """The generated Python source of a derivative made by srcgrad, as a string.

    The text runs on its own when saved to a file: it starts with the imports its helpers
    and the user's globals need (compiler/standalone.py) and ends with the generated
    derivatives of the user functions it calls.
    """
    lazy = getattr(derivative, "__srcgrad_lazy__", None)
    if lazy is not None:
        return lazy.get().display()
    compiled = getattr(derivative, "__srcgrad_derivatives__", None)  # @srcgrad.compile (tensor/compiled.py)
    if compiled is not None:
        made = compiled()
        if not made:
            name = derivative.__name__
            raise ValueError(
                f"`{name}` (@srcgrad.compile) has made no derivative yet: it makes one for each kind of call on "
                f"Tensors that require grad, so call it on them first; the gradient of the plain function is "
                f"srcgrad.source(srcgrad.grad({name}.__wrapped__, wrt=...))"
            )
        return "\n\n".join(d.display() for d in made)
    made = getattr(derivative, "__srcgrad_made__", None)  # specialized to the functions passed (function_arguments.py)
    if made is not None:
        return source(made())
    text = getattr(derivative, "__srcgrad_source__", None)
    if text is None:
        raise TypeError(f"{derivative!r} was not made by srcgrad; pass the result of srcgrad.grad, value_and_grad or vjp")
    unit = getattr(derivative, "__srcgrad_unit__", None)
    if unit is not None:
        from .compiler import standalone

        return standalone.text(unit)
    return text
