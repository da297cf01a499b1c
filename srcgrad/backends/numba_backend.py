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

A later call whose compiled result holds a nan or an infinity runs the Python derivative
again, which raises where Python raises (`10.0 ** 400`), and so does one where a checked
`math` function met a number outside its domain (numba_helpers.py), one where integer
arithmetic would pass int64's range (numba_integers.py: Python's integers have no
bounds), and one where the compiled code raised: the Python derivative's error is
raised, or where it raises none, its result is returned (numba raises ZeroDivisionError
on `np.float64(0.5) / 0.0`, where NumPy gives an infinity, and OverflowError on an
argument of 2 ** 63).

The text compiled is the generated one as numba spells it (numba_helpers.py: numba
versions of the runtime and rule helpers it calls, `np.matmul` as `np_matmul`, and with
float32 arrays only, float literals as float32, which keeps NumPy's float32 arithmetic);
a result is checked against the Python derivative's (structure, shapes, dtypes, values
up to rounding) and given its types (numba returns a scalar as a Python float). The
helpers for containers (`add_grad`, `item_grad`, ...), calls into other differentiated
user functions, and whatever else numba's nopython mode cannot type (lists, dicts,
objects) keep the Python derivative. `@srcgrad.compile(backend="numba")` compiles the
value_and_grad of each kind of call with a scalar output (`compiled_call`).

The source that was compiled stays printable: `srcgrad.source(df)` prints the general
Python derivative, `df.__srcgrad_backend__.source()` the compiled text.
"""

import ast
import dataclasses
import functools
import itertools
import linecache
import math
import re
import time
import warnings
import weakref

import numpy as np

from ..compiler.cache import general_code, signature_of

try:
    import numba
except ImportError as exc:  # not installed, or an installed numba that refuses this NumPy
    raise ImportError(
        f'srcgrad.grad(..., backend="numba") needs numba, which could not be imported ({exc}); '
        'install it with: pip install "srcgrad[numba]"'
    ) from exc

from .numba_helpers import HELPERS, CompiledUnsupported, TapeFull, environment, numba_spelling  # noqa: E402
from .numba_integers import HELPERS as INTEGER_HELPERS, checked_integers, integer_lines  # noqa: E402

SIGNATURES = 8  # compiled signatures per derivative; further kinds of call run Python
_TAPE_CAPACITY = 4096  # the first capacity of a tape, in pushes; doubled as needed


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
    if taken & set(HELPERS):
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
    restore: object = None  # numba: what gives its result the Python derivative's types, if needed
    finite: object = None  # numba: whether a result is finite where it must be (`_finite_check`), or None


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

    def compiled_call(self, python, args):
        """`compiled_call(python, args, self)`: for `@srcgrad.compile(backend="numba")`."""
        return compiled_call(python, args, self)

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
        done = _TABLES.setdefault(generated, {}).get(key)  # compiled before, by another grad(f)
        if done is None:
            done = _TABLES[generated][key] = compile_generated(generated, args, expected)
        self.signatures[key] = done
        return expected


def compile_generated(generated, args, expected):
    """The `Signature` of the generated function `generated` for calls like `args`, on
    which it returned `expected`: numba's compilation of its text, checked against
    `expected`, or Python and why."""
    text = getattr(generated, "__srcgrad_source__", None)
    if text is None or not hasattr(generated, "__code__"):
        return Signature("python", reason="no generated source to compile")
    if len(args) != generated.__code__.co_argcount:
        return Signature("python", reason="calls that leave parameters to their defaults are not compiled")
    env = environment(generated)
    env.update(INTEGER_HELPERS)
    rewritten, why = array_tapes(text)
    if rewritten and any(type(a) is np.ndarray for a in args):
        rewritten, why = None, "an argument is an array"
    floats = {a.dtype for a in args if type(a) is np.ndarray and a.dtype.kind == "f"}
    float32 = floats == {np.dtype(np.float32)}  # float32 arrays only: float32 arithmetic, as in NumPy
    text, rewritten = numba_spelling(text, float32, env), rewritten and numba_spelling(rewritten, float32, env)
    lists = "no tape" if why == "no tape" else "numba lists for tapes" + (f" ({why})" if why else "")
    attempts = ([("array tapes", rewritten)] if rewritten else []) + [(lists, text)]
    failures = []
    for label, source in attempts:
        start = time.perf_counter()
        capacity = _TAPE_CAPACITY if source is rewritten else 0
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", numba.NumbaWarning)
                function = _jit(source, generated.__name__, env)
                result, capacity = _call(function, args, capacity)
                lines = integer_lines(function)
                if lines:  # integer arithmetic that Python does without bounds: checked (numba_integers.py)
                    source = checked_integers(source, lines, env)
                    if source is None:
                        raise _NoRewrite("integer arithmetic on a line that cannot be rewritten to check it")
                    function = _jit(source, generated.__name__, env)
                    result, capacity = _call(function, args, capacity)
        except CompiledUnsupported as exc:
            failures.append(f"{label}: {exc}")
            continue
        except Exception as exc:  # noqa: BLE001 - numba's typing and lowering errors: run Python
            failures.append(f"{label}: {_first_line(exc)}")
            continue
        if not _same(result, expected):
            failures.append(f"{label}: the compiled result differs from the Python derivative's")
            continue
        reason = "" if label in ("array tapes", "no tape") else label  # how tapes are kept, where it matters
        return Signature("numba", source, reason, time.perf_counter() - start, function, capacity,
                         _restorer(result, expected), _finite_check(result, _python_numbers(args, source)))
    return Signature("python", text, "; ".join(failures))


def _restorer(got, expected):
    """None when the compiled result `got` has the types of the Python derivative's
    `expected`, else the function that gives it them: numba returns a scalar as a Python
    float where NumPy gives an np.float32 or np.float64."""
    if type(expected) is tuple:
        parts = [_restorer(g, e) for g, e in zip(got, expected)]
        if not any(parts):
            return None
        if len(parts) == 2 and parts[1] is None:  # (value, gradients): value_and_grad, compile's call
            first = parts[0]
            return lambda result: (first(result[0]), result[1])
        parts = [p or _unchanged for p in parts]
        return lambda result: tuple([p(v) for p, v in zip(parts, result)])
    if type(got) is type(expected):
        return None
    if type(expected) is np.ndarray:
        return functools.partial(np.asarray, dtype=expected.dtype)
    return type(expected)


def _unchanged(v):
    return v


def compiled_call(python, args, report):
    """For one kind of `@srcgrad.compile` call: `python` (the generated value_and_grad
    that kind runs) compiled for calls like `args`, a case the compiled code does not
    cover run by `python`; or `python` itself. `report` (a NumbaBackend) records which, and why."""
    expected = python(*args)
    sig = report.signatures[_key(args)] = compile_generated(python, args, expected)
    if sig.runs != "numba" or sig.capacity:
        return python
    function, restore, finite = sig.function, sig.restore, sig.finite

    def run(*args):
        try:
            result = function(*args)
        except CompiledUnsupported:
            return python(*args)
        except Exception:  # noqa: BLE001 - Python's error, located, or its result
            return _python_after(python, args)
        if finite is not None and not finite(result):
            return python(*args)
        return result if restore is None else restore(result)

    return run


def _python_numbers(args, source):
    """Whether the compiled code may compute with Python numbers: some argument is one, or
    the text makes one (`float(np.sum(x)) ** 200.0` raises OverflowError in Python, where
    NumPy's and numba's float powers give an infinity)."""
    return any(type(a) is not np.ndarray for a in args) or _MAKES_PYTHON_NUMBERS.search(source) is not None


_MAKES_PYTHON_NUMBERS = re.compile(r"\b(?:float|int|round)\(|\.(?:item|tolist)\(|\bmath[._]")


def _finite_check(sample, arrays):
    """The check of every result of one compiled signature, whose types are those of
    `sample`, its first (numba types a signature's result once): whether every float in
    it is finite, looking into float arrays only where `arrays` says; None where there is
    nothing to look at. One expression, built once, not a walk per call.

    Where a float is not finite, the call runs the Python derivative instead: numba's
    arithmetic of Python numbers gives nan or inf where Python's raises (`10.0 ** 400`)
    or makes a complex number (`(-8.0) ** 0.5`). Arithmetic of arrays and of their
    entries follows NumPy's rules in both, so where no Python number is among the
    arguments or made by the code (`_python_numbers`) only the floats of the result are
    looked at."""
    tests = []

    def walk(v, path):
        t = type(v)
        if t is tuple:
            for i, item in enumerate(v):
                walk(item, f"{path}[{i}]")
        elif t is np.ndarray:
            if arrays and v.dtype.kind == "f":
                tests.append(f"isfinite({path}).all()")
        elif t is float or isinstance(v, np.floating):
            tests.append(f"finite_number({path})")

    walk(sample, "result")
    if not tests:
        return None
    scope = {"isfinite": np.isfinite, "finite_number": math.isfinite}
    return eval(f"lambda result: bool({' and '.join(tests)})", scope)  # noqa: S307 - fixed text


def _python_after(python, args):
    """What the Python derivative `python` gives on `args`, where the compiled code raised:
    its error as it raises it (with the note naming the user's line, where numba's
    traceback names only the generated code), not chained to the compiled code's; or its
    result where it does not raise (numba raises ZeroDivisionError on `0.5 / np.float64(0.0)`,
    which NumPy makes an infinity, and OverflowError on an int past int64's range)."""
    try:
        return python(*args)
    except Exception as located:
        located.__suppress_context__ = True
        raise


def _key(args):
    return tuple([(a.shape, a.dtype) if type(a) is np.ndarray else type(a) for a in args])


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
    return general_code(table.get(signature_of(args), dispatch))  # for the dispatcher, the general code


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


_RTOL = {np.dtype(np.float32): 1e-5, np.dtype(np.float16): 1e-2}  # others: 1e-9


def _same(a, b):
    """Whether the compiled result `a` is the Python derivative's `b` up to rounding: the
    same structure, shapes and array dtypes (a scalar may come back as a Python float),
    each value within a relative 1e-9 (1e-5 in float32) of the largest in its array."""
    if isinstance(a, tuple) or isinstance(b, tuple):
        return isinstance(a, tuple) and isinstance(b, tuple) and len(a) == len(b) and all(map(_same, a, b))
    try:
        if np.shape(a) != np.shape(b) or (type(b) is np.ndarray and (type(a) is not np.ndarray or a.dtype != b.dtype)):
            return False
        rtol = _RTOL.get(np.result_type(b), 1e-9)
        scale = float(np.max(np.abs(b), where=np.isfinite(b), initial=0.0))  # NaN and inf compare as themselves
        return bool(np.allclose(a, b, rtol=rtol, atol=max(rtol * scale, 1e-300), equal_nan=True))
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

    @functools.wraps(python)
    def derivative(*args, **kwargs):
        if kwargs:
            return python(*args, **kwargs)
        key = _key(args)
        sig = signatures.get(key)
        if sig is None:
            return backend.build(key, args)
        if sig.runs == "numba":
            capacity = sig.capacity
            try:
                result = sig.function(*args, capacity) if capacity else sig.function(*args)
            except TapeFull:
                result, sig.capacity = _call(sig.function, args, 2 * capacity)
            except CompiledUnsupported:
                return python(*args)
            except Exception:  # noqa: BLE001 - Python's error, located, or its result
                return _python_after(python, args)
            finite = sig.finite
            if finite is not None and not finite(result):
                return python(*args)
            return result if sig.restore is None else sig.restore(result)
        return python(*args)

    derivative.__srcgrad_backend__ = backend
    derivative.__srcgrad_lazy__ = lazy
    derivative.__wrapped__ = getattr(python, "__wrapped__", python)
    return derivative
