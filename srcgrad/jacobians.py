"""The transforms built on forward mode: jvp, jacobian, hessian, and grad of a
derivative made by srcgrad (`nested_grad`: forward mode over its generated code).

Each validates its arguments (with api.py's checks), asks `compiler.derive` for
generated jvp code and pushes tangents through it; `jacobian` pulls back cotangents
through generated vjp code in reverse mode.
"""

import functools
import inspect
import linecache
import numbers
import types
import weakref

import numpy as np

from .api import (
    _check_differentiable, _children, _function_of, _is_container, _is_integral, _params, _path, _positions, check_arguments, grad,
    refuse_undescribed, vjp_positions,
)
from .argument_kinds import is_tensor, refuse_non_leaf
from .compiler import derive
from .compiler.cache import general_code
from .derivative_programs import call_arguments, jacobian_program, keyword_only, nested_program
from .errors import SrcGradError, defined_at
from .function_arguments import per_call, resolve
from .jvp_repeats import LAST_REPEAT, kept_jvp, note_plain_jvp
from .random_passes import SameDraws
from .runtime import (
    is_sequence, sequence_like, jacobian_from_columns, jacobian_from_rows, leaves, structure_like, unit_tangents,
    zeros_like_grad,
)
from .runtime.records import field_values, is_dataclass_kind, record_like
from .tangent_outputs import in_output_types, refuse_complex_tangent


class _Built:
    """A derivative built on first use, for `source()` of the composed transforms."""

    def __init__(self, build):
        self.build = build
        self.derivative = None

    def get(self):
        if self.derivative is None:
            self.derivative = self.build()
        return self.derivative


def _jvp_derivative(fn, positions, verbose=False):
    """The generated jvp of `fn`; for a derivative made by srcgrad, of its generated code
    (for a nested derivative or a Jacobian, of the generated program that computes it:
    derivative_programs.py)."""
    program = getattr(fn, "__srcgrad_program__", None)
    lazy = getattr(fn, "__srcgrad_lazy__", None)
    if program is None and lazy is None:
        return derive(fn, "jvp", positions, verbose=verbose)
    inner = program() if program is not None else general_code(lazy.get().function)
    bound = _bound_functions(fn)
    if bound:  # the generated code calls the functions its parameters were bound to
        inner.__srcgrad_bound__ = bound
    try:
        return derive(inner, "jvp", positions, verbose=verbose, source=inner.__srcgrad_source__)
    except SrcGradError as exc:
        raise _in_user_source(exc, inner) from None


def _bound_functions(fn):
    """The parameters bound to functions (`function_arguments.py`) of the user's function
    that the derivative `fn` was made from, through any depth of nesting."""
    for _ in range(16):
        bound = getattr(fn, "__srcgrad_bound__", None)
        if bound or getattr(fn, "__wrapped__", None) is None:
            return bound
        fn = fn.__wrapped__
    return None


def _in_user_source(exc, generated):
    """`exc`, found in `generated` code, located at the user's line it was generated from
    (compiler/origins.py); as it was where that line is not known."""
    generated = general_code(inspect.unwrap(generated))  # the generated function behind its dispatcher
    origin = getattr(generated, "__srcgrad_origin__", None)
    code = getattr(generated, "__code__", None)
    if origin is None or code is None or exc.lineno is None or exc.filename != code.co_filename:
        return exc
    filename, name, lines = origin()
    line = exc.lineno  # the nested derivation reads the text with its line 1 as line 1
    user_line = lines.get(line)
    if user_line is None:
        return exc
    quoted = generated.__srcgrad_source__.splitlines()[line - 1].strip()
    message = (f"{exc.msg} (in the derivative `{generated.__name__}` that srcgrad generated from `{name}`, "
               f"at its line `{quoted}`)")
    text = linecache.getline(filename, user_line).rstrip("\n") or None
    return type(exc)(message, filename, user_line, 0, text)


def _push(derivative, primals, tangents, keywords=None):
    """Call a generated jvp function: the tangents are its last parameters, after the
    keyword-only ones given in `keywords`."""
    function = derivative.function
    names = _parameter_names(function)
    given = dict(zip(names[-len(tangents):], tangents))
    if keywords:
        given.update(keywords)
    return function(*primals, **given)


def _parameter_names(function):
    """The parameter names of the generated jvp `function` (its tangents last), kept."""
    names = _TANGENT_NAMES.get(function)
    if names is None:
        names = _TANGENT_NAMES[function] = list(inspect.signature(function).parameters)
    return names


_TANGENT_NAMES = weakref.WeakKeyDictionary()  # generated jvp function -> its parameter names
_LINEARIZED = weakref.WeakKeyDictionary()  # generated jvp function of one tangent -> its split, or False


def _linearized(derivative):
    """The jvp `derivative` split into `(out, push) = f(*primals)` (compiler/linearize.py), or None."""
    from .compiler import linearize

    function = derivative.function
    found = _LINEARIZED.get(function)
    if found is None:
        made = linearize.split(derivative.source, _parameter_names(function)[-1:])
        found = _LINEARIZED[function] = linearize.function(function, *made) if made else False
    return found or None


def _check_tangent(fn, name, primal, tangent, keys=()):
    """Raise a TypeError/ValueError when `tangent` cannot be a tangent of `primal`. None
    is the tangent of a leaf that has no derivative (an integer, a boolean, a string,
    None); `_zero_filled` gives the tangent generated code takes for it."""
    if type(primal) is np.ndarray and type(tangent) is np.ndarray:  # the common case, checked first
        if primal.shape == tangent.shape and primal.dtype.kind == "f" and tangent.dtype.kind in "fc":
            return
    elif type(primal) is float and type(tangent) is float:
        return
    where = f"`{fn.__name__}` ({defined_at(fn)})"
    label = _path(name, keys)
    if isinstance(primal, (list, tuple, dict)):
        if type(tangent) is not type(primal) or len(tangent) != len(primal) or (
            isinstance(primal, dict) and set(tangent) != set(primal)
        ):
            raise TypeError(
                f"the tangent of `{label}` for {where} must have the structure of `{label}`: "
                f"{type(primal).__name__} of {len(primal)}{_keys(primal)}, not {type(tangent).__name__}"
                f"{f' of {len(tangent)}' if isinstance(tangent, (list, tuple, dict)) else ''}{_keys(tangent)}"
            )
        items = primal.items() if isinstance(primal, dict) else enumerate(primal)
        for k, value in items:
            _check_tangent(fn, name, value, tangent[k], keys + (k,))
        return
    if is_dataclass_kind(type(primal)):
        if type(tangent) is not type(primal):
            raise TypeError(
                f"the tangent of `{label}` for {where} must have the structure of `{label}`: a {type(primal).__name__} "
                f"(an instance of the same dataclass), not {type(tangent).__name__}"
            )
        for (k, value), t in zip(_children(primal), field_values(tangent)):
            _check_tangent(fn, name, value, t, keys + (k,))
        return
    if tangent is None and not _has_derivative(primal):
        return
    refuse_undescribed(fn, label, primal)
    if is_tensor(primal):
        refuse_non_leaf(fn, label, primal)
    if _is_integral(primal) or not _has_derivative(primal):  # a tangent of None, a string, an object: refused, not ignored
        kind = ("None" if primal is None else f"an array of {primal.dtype}" if isinstance(primal, np.ndarray)
                else type(primal).__name__)
        raise TypeError(
            f"`{label}` of {where} is {kind}, which has no tangent; pass None as its tangent"
        )
    if _is_integral(tangent) or not isinstance(tangent, (numbers.Number, np.ndarray, np.generic)):
        kind = f"an array of {tangent.dtype}" if isinstance(tangent, np.ndarray) else type(tangent).__name__
        raise TypeError(f"the tangent of `{label}` for {where} must hold floats, not {kind}")
    if np.shape(tangent) != np.shape(primal):
        raise ValueError(
            f"the tangent of `{label}` for {where} has shape {np.shape(tangent)}, but `{label}` has shape "
            f"{np.shape(primal)}"
        )


def _keys(value):
    """` (keys 'a', 'b')` for a dict, to tell two dicts of one size apart in a message."""
    return f" (keys {', '.join(sorted(map(repr, value)))})" if type(value) is dict else ""


def _has_derivative(leaf):
    """Whether the leaf `leaf` of an argument has a derivative: a float or complex number
    or array (not an integer, a boolean, a string, None)."""
    return isinstance(leaf, (numbers.Number, np.ndarray, np.generic)) and not _is_integral(leaf)


def _zero_filled(tangent, primal):
    """The checked `tangent` of the list, tuple, namedtuple, dataclass instance or dict `primal` with zeros
    (`zeros_like_grad`) for each None, the tangent of a leaf without a derivative."""
    if tangent is None:
        return zeros_like_grad(primal)
    if type(tangent) is dict:
        return {k: _zero_filled(t, primal[k]) for k, t in tangent.items()}
    if is_sequence(type(tangent)):
        return sequence_like(tangent, [_zero_filled(t, p) for t, p in zip(tangent, primal)])
    if is_dataclass_kind(type(tangent)):
        return record_like(tangent, [_zero_filled(t, p) for t, p in zip(field_values(tangent), field_values(primal))])
    return tangent


def jvp(fn, primals, tangents, verbose=False):
    """`out, out_dot = jvp(fn, primals, tangents)`: forward mode, the Jacobian of `fn` at
    `primals` applied to `tangents`.

    `primals` and `tangents` are tuples of the same length; each tangent has its primal's
    structure and shape. None is the tangent of an argument that is not differentiated
    (integer, boolean and None arguments, strings and other objects take only None), and of a leaf of a list, tuple,
    namedtuple, dataclass instance or dict that has no derivative (an integer, a boolean, a string, None;
    pushed as zeros).
    `out_dot` has the structure and shape of `out`.
    """
    if not verbose and type(fn) is _function and type(primals) is tuple and type(tangents) is tuple:
        for repeat in LAST_REPEAT:  # none, or the code of the last kind of call kept (jvp_repeats.py)
            pushed = repeat(fn, primals, tangents)
            if pushed is not None:
                return pushed
        pushed = kept_jvp(fn, primals, tangents)
        if pushed is not None:
            return pushed
    given_fn = fn
    fn = _function_of(fn)
    if isinstance(primals, (tuple, list)):
        fn = resolve(fn, primals)
    names = _jvp_params(fn)
    if not isinstance(primals, (tuple, list)) or not isinstance(tangents, (tuple, list)):
        raise TypeError(f"jvp({fn.__name__}, primals, tangents) takes the primals and the tangents as tuples")
    if len(primals) != len(tangents):
        raise TypeError(
            f"jvp of `{fn.__name__}` ({defined_at(fn)}) got {len(primals)} primals but {len(tangents)} tangents"
        )
    if len(primals) > len(names):
        raise TypeError(f"`{fn.__name__}` ({defined_at(fn)}) takes {len(names)} positional arguments, not {len(primals)}")
    if len(primals) < len(names):
        call_arguments(fn, primals, {})  # one missing: Python's TypeError naming `fn`
    positions, given = [], []
    for i, (p, t) in enumerate(zip(primals, tangents)):
        if t is None:
            continue
        if not (type(p) is _ndarray and type(t) is _ndarray and p.shape == t.shape
                and p.dtype.kind == "f" and t.dtype.kind in "fc"):  # the common case, inline
            _check_tangent(fn, names[i], p, t)
            if _is_container(t):
                t = _zero_filled(t, p)
            elif type(t) in (float, int) and isinstance(p, (np.generic, np.ndarray)) and p.dtype.kind == "f":
                t = p.dtype.type(t)  # weakly typed, it would meet a float32 constant in float32
        positions.append(i)
        given.append(t)
    if not positions:
        out = fn(*primals)
        return out, zeros_like_grad(out)
    derivative = _jvp_derivative(fn, tuple(positions), verbose)
    if derivative.argument_checks:
        check_arguments(derivative, names, primals)
    function = derivative.function
    code = getattr(function, "__code__", None)
    if len(primals) == len(names) and code is not None and not code.co_kwonlyargcount:
        if fn is given_fn and not verbose and type(primals) is tuple and type(tangents) is tuple:
            note_plain_jvp(fn, names, tuple(positions), derivative)
        specialized = derivative.specialized or function  # code for this kind of call (compiler/accumulate.py)
        out, out_dot = specialized(*primals, *given)  # every parameter given: the tangents follow by position
    else:
        out, out_dot = _push(derivative, tuple(primals), given, _keyword_defaults(fn, function, primals, len(given)))
    return in_output_types(fn, out, out_dot)


def _keyword_defaults(fn, function, primals, tangent_count):
    """`fn`'s defaults of the keyword-only parameters that its generated jvp `function`
    takes without one (that of a generated program: derivative_programs.py), or None."""
    code = getattr(function, "__code__", None)
    if code is None or not code.co_kwonlyargcount:
        return None
    kwonly = code.co_varnames[code.co_argcount:code.co_argcount + code.co_kwonlyargcount][:-tangent_count or None]
    needed = [n for n in kwonly if n not in (function.__kwdefaults__ or {})]
    if not needed:
        return None
    keywords = call_arguments(fn, primals, {})[1]
    return {n: keywords[n] for n in needed if n in keywords}


_ndarray = np.ndarray


_PARAMS = weakref.WeakKeyDictionary()  # function -> (its code, its positional parameter names)
_function = types.FunctionType


def _jvp_params(fn):
    """`_params(fn)`, remembered per function (jvp is called once per product)."""
    code = getattr(fn, "__code__", None)
    try:
        found = _PARAMS.get(fn)
    except TypeError:  # no weak reference
        return _params(fn)
    if found is not None and found[0] is code:
        return found[1]
    names = _params(fn)
    _PARAMS[fn] = (code, names)
    return names


def _check_output(fn, out):
    """Raise a TypeError unless `out` is an array or number, or a list, tuple or dict of them."""
    for leaf in leaves(out):
        if not isinstance(leaf, (numbers.Number, np.ndarray, np.generic)):
            raise TypeError(
                f"jacobian of `{fn.__name__}` ({defined_at(fn)}) needs an output of arrays and numbers (or lists, "
                f"tuples and dicts of them), not {type(leaf).__name__}"
            )


def _forward_jacobian(fn, args, positions, keywords):
    """(out, columns): the tangents of out for `unit_tangents(args[p])`, for each p in
    `positions` in turn (see `runtime.jacobian_from_columns`); one push each. `keywords`:
    the keyword-only arguments."""
    floats = getattr(fn, "__srcgrad_floats__", ())
    for p in floats:
        if p < len(args) and not isinstance(args[p], float):
            raise TypeError(
                f"differentiating `{fn.__name__}` ({defined_at(fn)}) once more needs a Python float for its "
                f"parameter `{_params(fn)[p]}`, not {type(args[p]).__name__}: nested derivatives of order "
                "three and up are of scalar functions"
            )
    names = _jvp_params(fn)
    lazy = getattr(fn, "__srcgrad_lazy__", None)
    if lazy is not None:  # differentiated again: the arguments of the derivative it differentiates
        check_arguments(lazy.get(), names, args, keywords)
    out, columns = None, []
    for p in positions:
        derivative = _jvp_derivative(fn, (p,))
        check_arguments(derivative, names, args, keywords)
        x = args[p]
        linear = _linearized(derivative) if _size(x) > 1 else None
        if linear is not None and not keywords and len(args) == len(_TANGENT_NAMES[derivative.function]) - 1:
            out, push = linear(*args)  # the primal statements once, the tangent ones per column
            columns += [push(e) for e in unit_tangents(x)]
        else:  # each push runs the primal again: with the same random draws (random_passes.py)
            draws = SameDraws(args)
            for e in unit_tangents(x):
                out, out_dot = _push(derivative, draws.args_for_pass(), [e], keywords)
                columns.append(out_dot)
            draws.finish()
    if out is None:
        out = fn(*args, **keywords)
    _check_output(fn, out)
    for column in columns:
        refuse_complex_tangent(fn, out, column)
    return out, columns


def _split_forward(fn, args, keywords):
    """(out, backward): the forward pass of the generated split vjp of `fn` over the
    parameters `vjp` differentiates (`vjp_positions`: those given, but integers and
    booleans), run once. Run in place of `fn(*args)`, so that a write the derivative
    refuses (an argument changed in place) is refused before it changes the caller's value."""
    names = _jvp_params(fn)
    derivative = derive(fn, "split_vjp", vjp_positions(len(names), args))
    check_arguments(derivative, names, args, keywords)
    return derivative.function(*args, **keywords)


def _reverse_jacobian(fn, args, keywords, positions, x, forward=None):
    """(out, rows): the cotangents of `x`, the arguments `positions` (one or a tuple),
    for `unit_tangents(out)` (see `runtime.jacobian_from_rows`); one pullback each, after
    one forward pass (`forward`: the `_split_forward` already run)."""
    out, backward = forward if forward is not None else _split_forward(fn, args, keywords)
    _check_output(fn, out)
    rows = []
    wanted = positions if isinstance(positions, tuple) else (positions,)
    for seed in unit_tangents(out):
        grads = backward(seed)
        # a list or tuple argument that the function reads as an array has an array gradient
        row = tuple(structure_like(grads[p], args[p]) if _is_container(args[p]) and type(args[p]) is not dict
                    else grads[p] for p in wanted)
        rows.append(row if isinstance(positions, tuple) else row[0])
    return out, rows


def _size(value):
    """The number of elements of `value`, over all leaves of a list, tuple or dict."""
    return sum(1 if isinstance(leaf, float) else int(np.size(leaf)) for leaf in leaves(value))


def jacobian(fn, wrt=0, mode=None):
    """The function computing the full Jacobian of `fn` with respect to `wrt`.

    As `jax.jacobian`: the Jacobian has the structure of the output (an array, a float,
    or a list, tuple, namedtuple, dataclass instance or dict of them) whose every leaf has the structure of
    the input, each leaf of shape `out_leaf.shape + x_leaf.shape` (a number of a number,
    of the input's type as its gradient is: a Python float, an np.float64, an np.float32)
    and of their result type, a Python float taking the other's dtype (a
    float32 function of a Python float has a float32 Jacobian). A tuple `wrt` counts as a tuple input: `J[i][j]` is the derivative of
    output `i` with respect to `wrt[j]` for a tuple output. `mode` "forward" pushes one
    tangent per input element, "reverse" pulls back one cotangent per output element;
    None picks the one with fewer passes (forward for a derivative made by srcgrad,
    which is differentiated through its generated code).
    """
    if mode not in (None, "forward", "reverse"):
        raise ValueError(f"jacobian mode must be 'forward', 'reverse' or None, not {mode!r}")
    return per_call(_function_of(fn), lambda f: _jacobian(f, wrt, mode))


def _jacobian(fn, wrt, mode):
    positions = _positions(fn, wrt)
    names = _params(fn)
    keywords_of = keyword_only(fn)
    wanted = positions if isinstance(positions, tuple) else (positions,)
    nested = getattr(fn, "__srcgrad_lazy__", None) is not None
    named = getattr(fn, "__wrapped__", fn) if nested else fn  # a refusal names the user's function, not f_grad

    def jac(*args, **kwargs):
        keywords = {}
        if kwargs or keywords_of or len(args) != len(names):  # bound, defaults filled: then by position
            args, keywords = call_arguments(fn, args, kwargs)
        _check_differentiable(named, names, wanted, args, {})
        x = tuple(args[p] for p in wanted) if isinstance(positions, tuple) else args[positions]
        chosen, forward = mode, None
        if chosen is None and not nested:
            # the output's size from the reverse derivative's forward pass, never a bare
            # fn(*args), which would change an argument the derivative refuses to change
            try:
                forward = _split_forward(fn, args, keywords)
            except SrcGradError:  # no reverse derivative: forward mode or its own error
                chosen = "forward"
            else:
                chosen = "forward" if _size(x) <= _size(forward[0]) else "reverse"
        if chosen is None or chosen == "forward":
            out, columns = _forward_jacobian(fn, args, wanted, keywords)
            return jacobian_from_columns(columns, x, out)
        out, rows = _reverse_jacobian(fn, args, keywords, positions, x, forward)
        return jacobian_from_rows(rows, x, out)

    if mode == "forward" or (mode is None and nested):
        jac.__srcgrad_lazy__ = _Built(lambda: _jvp_derivative(fn, wanted))
    else:
        jac.__srcgrad_lazy__ = _Built(lambda: derive(fn, "vjp", tuple(range(len(names)))))
    # what forward mode differentiates for jvp, jacobian and grad of the Jacobian (in either mode)
    jac.__srcgrad_program__ = _Built(lambda: jacobian_program(
        fn, names, keywords_of, wanted, positions, lambda p: _jvp_derivative(fn, (p,)).function)).get
    jac.__wrapped__ = fn
    jac.__name__ = jac.__qualname__ = f"{fn.__name__}_jacobian"
    return jac


def hessian(fn, wrt=0):
    """The function computing the Hessian of the scalar-valued `fn` with respect to `wrt`.

    Forward over reverse: forward mode runs over the generated gradient code, one push
    per input element. For straight-line gradient code the primal statements run once
    and only the tangent statements run per element (compiler/linearize.py). The shape is `x.shape + x.shape`; a tuple `wrt` gives the
    blocks as a tuple of tuples, `H[i][j]` the derivative of the gradient of `wrt[i]`
    with respect to `wrt[j]`.
    """
    return per_call(_function_of(fn), lambda f: _hessian(f, wrt))


def _hessian(fn, wrt):
    positions = _positions(fn, wrt)
    gradient = grad(fn, wrt=positions)
    hess = jacobian(gradient, wrt=positions, mode="forward")
    hess.__name__ = hess.__qualname__ = f"{fn.__name__}_hessian"
    hess.__wrapped__ = fn
    return hess


def nested_grad(fn, mode, wrt, verbose):
    """`grad` of a derivative made by srcgrad: forward mode over its generated code.

    The result can be differentiated again, to any depth: its `__srcgrad_program__` is
    generated code computing it (`derivative_programs.nested_program`), which forward mode transforms like
    any other. That program pushes the scalar tangent 1.0, so deeper derivatives take
    Python floats for the differentiated parameters.
    """
    positions = _positions(fn, wrt)
    names = _params(fn)
    keywords_of = keyword_only(fn)
    wanted = positions if isinstance(positions, tuple) else (positions,)

    @functools.wraps(fn)
    def derivative(*args, **kwargs):
        keywords = {}
        if kwargs or keywords_of or len(args) != len(names):  # bound, defaults filled: then by position
            args, keywords = call_arguments(fn, args, kwargs)
        _check_differentiable(fn, names, wanted, args, {})
        out, columns = _forward_jacobian(fn, args, wanted, keywords)
        container = _is_container(out)
        if container or np.ndim(out) != 0:
            what = (f"a {type(out).__name__} of {len(out)} values" if isinstance(out, (list, tuple, dict))
                    else f"a {type(out).__name__}" if container else f"a value of shape {np.shape(out)}")
            raise TypeError(
                f"grad({fn.__name__}) needs a scalar output, but `{fn.__name__}` returned {what}; use srcgrad.jacobian"
            )
        result = jacobian_from_columns(columns, tuple(args[p] for p in wanted), out)
        grads = tuple(_kind_of(g, args[p]) for p, g in zip(wanted, result))
        gradient = grads if isinstance(positions, tuple) else grads[0]
        return (out, gradient) if mode == "value_and_grad" else gradient

    derivative.__srcgrad_lazy__ = _Built(lambda: _jvp_derivative(fn, wanted, verbose))
    derivative.__srcgrad_program__ = _Built(lambda: nested_program(
        fn, names, keywords_of, wanted, mode, positions, lambda p: _jvp_derivative(fn, (p,)).function)).get
    derivative.__srcgrad_floats__ = wanted  # deeper derivatives push 1.0 through these parameters
    derivative.__srcgrad_nested__ = True
    derivative.__name__ = derivative.__qualname__ = f"{fn.__name__}_{mode}"
    return derivative


def _kind_of(gradient, argument):
    """`gradient` with the type of the scalar `argument` (float, np.float32, ...); as it is
    for an array argument."""
    if type(argument) is float:
        return float(gradient)
    if isinstance(argument, np.generic):
        return type(argument)(gradient)
    return gradient
