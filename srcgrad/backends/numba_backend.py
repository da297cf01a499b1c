"""`grad(f, backend="numba")`: the generated gradient code, compiled by `numba.njit`.

For each kind of call (the types of the arguments, the shape and dtype of arrays) the
first call runs the plain Python derivative, which builds the code specialized to that
signature (`compiler/cache.py`, `shapes.py`), and then compiles that code's source:

1. When every argument is a scalar, tapes become NumPy arrays: `tape = []`,
   `tape.append(v)` and `v = tape.pop()` are rewritten to
   `tape = float_tape(tape_capacity)`, `tape_top = tape_push(tape, tape_top, v)` and
   `tape_top = tape_top - 1; v = tape[tape_top]`, where `tape_capacity` is a parameter
   added to the function (values used as loop bounds or indices, such as trip counts,
   go on an integer tape of their own). A push past the capacity raises `TapeFull`,
   and the call runs again with twice the capacity, which later calls keep. numba's
   own lists work too, but cost about twice as much per push and pop, and so does an
   array tape that grows (numba counts references on the reassigned array).
2. If that does not compile, or an argument is an array (a retried call must not
   have changed it), the source as generated (numba's lists for tapes).
3. If neither compiles, or the compiled code's result differs from the Python
   derivative's on that first call, the signature keeps running the Python derivative,
   and `derivative.__srcgrad_backend__` says why (`describe()`); no warning is issued.

The runtime helpers that scalar and array code calls (`grad_seed`, `zeros_like_grad`,
`unbroadcast` where shapes match) have numba implementations registered here with
`numba.extending.overload`, so the compiled code calls them as the Python code does.
The helpers for containers (`add_grad`, `item_grad`, ...), calls into other
differentiated user functions, and whatever else numba's nopython mode cannot type
(lists, dicts, objects) keep the Python derivative.

The source that was compiled stays printable: `srcgrad.source(df)` prints the general
Python derivative, `df.__srcgrad_backend__.source()` the compiled text.
"""

import ast
import dataclasses
import functools
import itertools
import linecache
import re
import time
import warnings
import weakref

import numpy as np

from .. import runtime
from ..compiler.cache import general_code

try:
    import numba
    from numba.core import types as _nb
    from numba.extending import overload
except ImportError as exc:  # not installed, or an installed numba that refuses this NumPy
    raise ImportError(
        f'srcgrad.grad(..., backend="numba") needs numba, which could not be imported ({exc}); '
        'install it with: pip install "srcgrad[numba]"'
    ) from exc

SIGNATURES = 8  # compiled signatures per derivative; further kinds of call run Python
_TAPE_CAPACITY = 4096  # the first capacity of a tape, in pushes; doubled as needed


class CompiledUnsupported(Exception):
    """Raised inside compiled code for a case the numba helpers do not cover."""


class TapeFull(Exception):
    """Raised inside compiled code when a push finds the tape at its capacity."""


# -- numba versions of the runtime helpers ------------------------------------------

_SCALAR = (_nb.Float, _nb.Integer, _nb.Boolean)


def _is_float_array(t):
    return isinstance(t, _nb.Array) and isinstance(t.dtype, _nb.Float)


@overload(runtime.unbroadcast)
def _unbroadcast(g, x):
    if isinstance(x, _SCALAR):
        if isinstance(g, _SCALAR):
            return lambda g, x: float(g)
        if isinstance(g, _nb.Array):
            return lambda g, x: float(g.sum())
        return None
    if _is_float_array(x):
        if isinstance(g, _nb.Array) and g.ndim == x.ndim:
            same = g.dtype == x.dtype

            def impl(g, x):
                if g.shape != x.shape:
                    raise CompiledUnsupported("unbroadcast over broadcast axes is not compiled")
                return g if same else g.astype(x.dtype)

            return impl
        if isinstance(g, _SCALAR):
            return lambda g, x: np.full(x.shape, g, x.dtype)
    return None


@overload(runtime.zeros_like_grad)
def _zeros_like_grad(x):
    if isinstance(x, _SCALAR):
        return lambda x: 0.0
    if _is_float_array(x):
        return lambda x: np.zeros(x.shape, x.dtype)
    if isinstance(x, _nb.Array):
        return lambda x: np.zeros(x.shape, np.float64)
    return None


@overload(runtime.grad_seed)
def _grad_seed(out, name):
    if isinstance(out, _nb.Float):
        return lambda out, name: 1.0
    return None  # arrays, integers: the Python derivative raises the TypeError first


@numba.njit
def float_tape(capacity):
    return np.empty(capacity, np.float64)


@numba.njit
def int_tape(capacity):
    return np.empty(capacity, np.int64)


@numba.njit
def tape_push(tape, top, value):
    if top == tape.shape[0]:
        raise TapeFull()
    tape[top] = value
    return top + 1


_TAPE_HELPERS = {"float_tape": float_tape, "int_tape": int_tape, "tape_push": tape_push}


# -- tapes as arrays -----------------------------------------------------------------


class _NoRewrite(Exception):
    pass


def array_tapes(text):
    """`text` with its list tapes rewritten as array tapes, or None (and why) if some use
    of a tape is not a plain `T = []`, `T.append(v)` or `target = T.pop()`."""
    try:
        return _array_tapes(text), None
    except _NoRewrite as exc:
        return None, str(exc)


def _array_tapes(text):
    tree = ast.parse(text)
    fn = tree.body[0]
    if not isinstance(fn, ast.FunctionDef):
        raise _NoRewrite("not a function")
    taken = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)} | {a.arg for a in ast.walk(tree) if isinstance(a, ast.arg)}
    if taken & set(_TAPE_HELPERS):
        raise _NoRewrite("the code already uses the tape helpers' names")
    tapes = [
        s.targets[0].id
        for s in fn.body
        if isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], ast.Name)
        and isinstance(s.value, ast.List) and not s.value.elts
    ]
    if not tapes:
        raise _NoRewrite("no tape")
    ints = _integer_names(fn)
    lines = text.splitlines()
    args = fn.args
    if args.vararg or args.kwarg or args.kwonlyargs or args.defaults or fn.lineno != fn.body[0].lineno - 1:
        raise _NoRewrite("the parameters are not plain")
    capacity = _fresh("tape_capacity", taken)
    params = ", ".join([a.arg for a in args.posonlyargs + args.args] + [capacity])
    edits = {fn.lineno - 1: [f"def {fn.name}({params}):"]}  # line index -> replacement lines
    for tape in tapes:
        top, itape, itop = (_fresh(f"{tape}{suffix}", taken) for suffix in ("_top", "_ints", "_ints_top"))
        pushed_ints, popped_ints, uses, definition = set(), set(), 0, None
        for stmt in ast.walk(fn):
            if not isinstance(stmt, ast.stmt) or isinstance(stmt, (ast.FunctionDef, ast.If, ast.For, ast.While)):
                continue
            mentions = [n for n in ast.walk(stmt) if isinstance(n, ast.Name) and n.id == tape]
            if not mentions:
                continue
            if stmt.lineno != stmt.end_lineno or edits.get(stmt.lineno - 1) is not None:
                raise _NoRewrite(f"`{tape}` is used on a line of its own")
            indent = lines[stmt.lineno - 1][: stmt.col_offset]
            value = _call_on(stmt, tape, "append", 1)
            if value is not None:
                is_int = isinstance(value, ast.Name) and value.id in ints
                if is_int:
                    pushed_ints.add(value.id)
                buf, n = (itape, itop) if is_int else (tape, top)
                new = [f"{indent}{n} = tape_push({buf}, {n}, {ast.unparse(value)})"]
            elif (
                isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and _call_on(stmt, tape, "pop", 0) is not None
            ):
                target = stmt.targets[0]
                is_int = isinstance(target, ast.Name) and target.id in ints
                if is_int:
                    popped_ints.add(target.id)
                buf, n = (itape, itop) if is_int else (tape, top)
                new = [f"{indent}{n} = {n} - 1", f"{indent}{ast.unparse(target)} = {buf}[{n}]"]
            elif isinstance(stmt, ast.Assign) and stmt in fn.body and isinstance(stmt.value, ast.List):
                uses -= 1  # the definition
                definition = stmt.lineno - 1
                new = [
                    f"{indent}{tape} = float_tape({capacity})", f"{indent}{top} = 0",
                    f"{indent}{itape} = int_tape({capacity})", f"{indent}{itop} = 0",
                ]
            else:
                raise _NoRewrite(f"`{tape}` is used other than by append and pop: {ast.unparse(stmt)}")
            uses += len(mentions)
            edits[stmt.lineno - 1] = new
        if pushed_ints != popped_ints:
            raise _NoRewrite(f"the integers pushed on `{tape}` ({sorted(pushed_ints)}) are not those popped ({sorted(popped_ints)})")
        if uses != sum(1 for n in ast.walk(fn) if isinstance(n, ast.Name) and n.id == tape) - 1:
            raise _NoRewrite(f"`{tape}` is used other than by append and pop")
        if not pushed_ints:  # no integer tape needed
            edits[definition] = edits[definition][:2]
    out = []
    for k, line in enumerate(lines):
        out.extend(edits.get(k, [line]))
    return "\n".join(out) + "\n"


def _call_on(stmt, tape, method, nargs):
    """The argument of `tape.method(arg)` (or True for no argument) when `stmt` is
    exactly that call, or `target = tape.method()`; None otherwise."""
    call = stmt.value if isinstance(stmt, (ast.Expr, ast.Assign)) else None
    if (
        isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr == method
        and isinstance(call.func.value, ast.Name) and call.func.value.id == tape
        and len(call.args) == nargs and not call.keywords
        and (isinstance(stmt, ast.Expr) == (nargs == 1))
    ):
        if nargs and any(isinstance(n, ast.Name) and n.id == tape for n in ast.walk(call.args[0])):
            return None
        return call.args[0] if nargs else True
    return None


def _integer_names(fn):
    """Names used as `range` arguments or in subscripts: they must stay integers."""
    names = set()
    for node in ast.walk(fn):
        parts = []
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "range":
            parts = node.args
        elif isinstance(node, ast.Subscript):
            parts = [node.slice]
        for part in parts:
            names.update(n.id for n in ast.walk(part) if isinstance(n, ast.Name))
    return names


def _fresh(base, taken):
    for k in itertools.count():
        name = base if k == 0 else f"{base}_{k}"
        if name not in taken:
            taken.add(name)
            return name


# -- compiling and dispatching -------------------------------------------------------


@dataclasses.dataclass
class Signature:
    """How one kind of call runs: compiled ("numba") or not ("python", and why)."""

    runs: str
    source: str = ""  # the text compiled (numba) or the Python derivative's (python)
    reason: str = ""  # why it runs Python; for numba, how tapes are kept
    compile_s: float = 0.0  # numba: compiling and the first compiled call
    function: object = None
    capacity: int = 0  # array tapes: the last parameter of the compiled function


class NumbaBackend:
    """The signatures of one derivative and how each runs. `describe()` tells all."""

    def __init__(self, python, lazy):
        self.python = python
        self.lazy = lazy
        self.signatures = {}
        self.note = ""  # why nothing is compiled at all

    def source(self, key=None):
        """The source compiled for the signature `key` (default: the first compiled one)."""
        for k, sig in self.signatures.items():
            if (key is None and sig.runs == "numba") or k == key:
                return sig.source
        return None

    def describe(self):
        rows = [f"{_show_key(k)}: {s.runs}" + (f" ({s.reason})" if s.reason else "") for k, s in self.signatures.items()]
        return "\n".join(([self.note] if self.note else []) + rows) or "no call yet"

    def build(self, key, args):
        """Run the Python derivative on `args`, compile its code for this signature; the result."""
        expected = self.python(*args)
        if self.note:
            self.signatures[key] = Signature("python", reason=self.note)
            return expected
        if len(self.signatures) >= SIGNATURES:
            self.signatures[key] = Signature("python", reason=f"more than {SIGNATURES} kinds of call")
            return expected
        unsupported = [type(a).__name__ for a in args if not _compilable(a)]
        if unsupported:
            reason = f"arguments of type {', '.join(sorted(set(unsupported)))} are not compiled"
            self.signatures[key] = Signature("python", reason=reason)
            return expected
        generated = _generated_function(self.lazy.get().function, args)
        text = getattr(generated, "__srcgrad_source__", None)
        if text is None or not hasattr(generated, "__code__"):
            self.signatures[key] = Signature("python", reason="no generated source to compile")
            return expected
        done = _TABLES.setdefault(generated, {}).get(key)  # compiled before, by another grad(f)
        if done is not None:
            self.signatures[key] = done
            return expected
        env = _environment(generated)
        if len(args) != generated.__code__.co_argcount:
            self.signatures[key] = Signature("python", reason="calls that leave parameters to their defaults are not compiled")
            return expected
        if any(type(a) is np.ndarray for a in args):
            rewritten, why = None, "an argument is an array"
        else:
            rewritten, why = array_tapes(text)
        attempts = ([("array tapes", rewritten)] if rewritten else []) + [
            ("numba lists for tapes" + (f" ({why})" if why and why != "no tape" else ""), text)
        ]
        failures = []
        for label, source in attempts:
            start = time.perf_counter()
            capacity = _TAPE_CAPACITY if source is rewritten else 0
            try:
                function = _jit(source, generated.__name__, env)
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", numba.NumbaWarning)
                    result, capacity = _call(function, args, capacity)
            except Exception as exc:  # noqa: BLE001 - numba's typing and lowering errors: run Python
                failures.append(f"{label}: {_first_line(exc)}")
                continue
            if not _same(result, expected):
                failures.append(f"{label}: the compiled result differs from the Python derivative's")
                continue
            reason = "" if source is rewritten else label
            sig = Signature("numba", source, reason, time.perf_counter() - start, function, capacity)
            self.signatures[key] = _TABLES[generated][key] = sig
            return expected
        sig = Signature("python", text, "; ".join(failures))
        self.signatures[key] = _TABLES[generated][key] = sig
        return expected


def _call(function, args, capacity):
    """(result, capacity): `function(*args)`, with a tape capacity that suffices."""
    if not capacity:
        return function(*args), 0
    while True:
        try:
            return function(*args, capacity), capacity
        except TapeFull:
            capacity *= 2


def _show_key(key):
    return "(" + ", ".join(f"array{s}:{d}" if isinstance(s, tuple) else s.__name__ for s, d in (
        k if isinstance(k, tuple) else (k, None) for k in key)) + ")"


def _compilable(a):
    t = type(a)
    return t is float or t is int or t is bool or (t is np.ndarray and a.dtype.kind in "biuf")


def _generated_function(dispatch, args):
    """The generated function that ran for `args`: the specialized one if there is one."""
    table = getattr(dispatch, "__srcgrad_specializations__", None) or {}
    key = tuple([a.shape if type(a) is np.ndarray else type(a) for a in args])
    return general_code(table.get(key, dispatch))  # for the dispatcher, the general code


def _environment(fn):
    """The names the generated code sees: its module's globals, then its helpers and cells."""
    env = dict(fn.__globals__)
    for name, cell in zip(fn.__code__.co_freevars, fn.__closure__ or ()):
        try:
            env[name] = cell.cell_contents
        except ValueError:  # an empty cell
            pass
    env.update(_TAPE_HELPERS)
    return env


_COUNTER = itertools.count()


def _jit(source, name, env):
    filename = f"<srcgrad numba {name} #{next(_COUNTER)}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    namespace = dict(env)
    exec(compile(source, filename, "exec"), namespace)  # noqa: S102 - our own generated code
    return numba.njit(namespace[name])


_ANSI = re.compile(r"\x1b\[[0-9;]*m")


def _first_line(exc):
    lines = [line.strip() for line in _ANSI.sub("", str(exc)).splitlines() if line.strip()]
    text = next((line for line in lines if not line.startswith(("Failed in", "During:", "File", "- Resolution"))), "")
    return f"{type(exc).__name__}: {text}"[:300]


def _same(a, b):
    if isinstance(a, tuple) or isinstance(b, tuple):
        return isinstance(a, tuple) and isinstance(b, tuple) and len(a) == len(b) and all(map(_same, a, b))
    try:
        if np.shape(a) != np.shape(b):
            return False
        return bool(np.allclose(a, b, rtol=1e-9, atol=1e-300, equal_nan=True))
    except TypeError:
        return False


_TABLES = weakref.WeakKeyDictionary()  # generated function -> {key: Signature}, shared by grad(f) calls


def compiled(python):
    """The derivative `python` (from grad or value_and_grad), compiled per signature."""
    lazy = getattr(python, "__srcgrad_lazy__", None)
    backend = NumbaBackend(python, lazy)
    if lazy is None or getattr(python, "__srcgrad_nested__", False) or not hasattr(lazy, "fn"):
        backend.note = "derivatives of derivatives run in Python"
    signatures = backend.signatures
    ndarray = np.ndarray

    @functools.wraps(python)
    def derivative(*args, **kwargs):
        if kwargs:
            return python(*args, **kwargs)
        key = tuple([(a.shape, a.dtype) if type(a) is ndarray else type(a) for a in args])
        sig = signatures.get(key)
        if sig is None:
            return backend.build(key, args)
        if sig.runs == "numba":
            capacity = sig.capacity
            try:
                if not capacity:
                    return sig.function(*args)
                return sig.function(*args, capacity)
            except TapeFull:
                result, sig.capacity = _call(sig.function, args, 2 * capacity)
                return result
            except CompiledUnsupported:
                return python(*args)
        return python(*args)

    derivative.__srcgrad_backend__ = backend
    derivative.__srcgrad_lazy__ = lazy
    derivative.__wrapped__ = getattr(python, "__wrapped__", python)
    return derivative
