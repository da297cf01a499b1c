"""Random programs: straight-line code, `if`/`else` on data, loops (`for` over ranges,
bounded `while` on data, `break`/`continue`), early returns, list appends, writes into an
array, calls of a helper, `+=` and swaps, over two floats and a vector, differentiated by
srcgrad and checked against central differences.

Programs come from a small grammar (hypothesis builds the tree, `_Gen` prints it). Values
stay bounded: every assignment squashes its right-hand side (sin, cos, tanh or a 0.5
factor), denominators are at least 0.5 and `exp` only sees a `tanh`. Each program is made
with `exec` under its own file name with its text in `linecache`, so srcgrad recovers the
source as it would for a notebook cell. Branch conditions are also printed into a twin
program that records how far each comparison was from flipping (and each builtin
`max`/`min` from changing its pick), and examples that come closer than finite
differences can tell apart are skipped with `assume`.
"""

import linecache
import math
import re

import numpy as np
import pytest
from hypothesis import HealthCheck, Phase, assume, given, settings
from hypothesis import strategies as st

import srcgrad
from conftest import numerical_grad

FLOAT_ATOMS = ["a", "b", "u", "v", "0.5", "1.3", "x[0]", "x[2]"]
ARRAY_ATOMS = ["x", "z", "a", "u", "np.sum(z) * 0.1"]
UNARY = ["np.sin({})", "np.cos({})", "np.tanh({})", "np.exp(np.tanh({}))"]
SQUASH = ["np.sin({})", "np.tanh({})", "0.5 * ({})", "np.cos({})"]
BINOPS = ["({} + {})", "({} - {})", "({} * {})", "({} / (1.5 + np.sin({})))"]


def _expr(atoms, depth):
    leaf = st.sampled_from(atoms)
    if depth == 0:
        return leaf
    sub = _expr(atoms, depth - 1)
    return st.one_of(
        leaf,
        st.tuples(st.sampled_from(UNARY), sub).map(lambda t: t[0].format(t[1])),
        st.tuples(st.sampled_from(BINOPS), sub, sub).map(lambda t: t[0].format(t[1], t[2])),
    )


FLOAT_EXPR = _expr(FLOAT_ATOMS, 2)
ARRAY_EXPR = _expr(ARRAY_ATOMS, 2)


VARIABLES = re.compile(r"\b[abuvxz]\b")


@st.composite
def _block(draw, depth, loop_vars, constants=False, rich=False, in_loop=False):
    """A list of statements, each a (kind, ...) tuple. Without `constants`, no right-hand
    side is a constant. With `rich`, also `while` loops, `break`/`continue`, early
    `return`s, list `append`, writes into an array, calls of a helper function,
    augmented assignment and swaps."""
    stmts = []
    fexpr = FLOAT_EXPR if constants else FLOAT_EXPR.filter(VARIABLES.search)
    aexpr = ARRAY_EXPR if constants else ARRAY_EXPR.filter(VARIABLES.search)
    for _ in range(draw(st.integers(1, 3))):
        choices = ["float", "float", "array"]
        if depth < 2:
            choices += ["if", "for"]
        if loop_vars:
            choices += ["index"]
        if rich:
            choices += ["append", "setitem", "call", "augmented", "swap", "pair", "inner", "dict", "sequence"]
            choices += ["while"] if depth < 2 else []
            choices += ["jump"] if in_loop else ["return"]
        kind = draw(st.sampled_from(choices))
        if kind in ("append", "setitem", "call", "augmented", "swap", "while", "jump", "return", "pair", "inner",
                    "dict", "sequence"):
            stmts.append(draw(_rich_statement(kind, depth, loop_vars, constants, fexpr)))
            continue
        if kind == "float":
            stmts.append(("assign", draw(st.sampled_from("uv")), draw(st.sampled_from(SQUASH)), draw(fexpr)))
        elif kind == "array":
            stmts.append(("assign", "z", draw(st.sampled_from(SQUASH)), draw(aexpr)))
        elif kind == "index":
            var = draw(st.sampled_from(loop_vars))
            stmts.append(("assign", draw(st.sampled_from("uv")), "np.sin({})", f"u * x[{var}] + v"))
        elif kind == "if":
            cond = draw(st.one_of(FLOAT_EXPR, ARRAY_EXPR.map(lambda e: f"np.sum({e})")))
            threshold = draw(st.sampled_from(["0.0", "0.3", "-0.5"]))
            body = draw(_block(depth + 1, loop_vars, constants, rich, in_loop))
            orelse = draw(st.one_of(st.just([]), _block(depth + 1, loop_vars, constants, rich, in_loop)))
            stmts.append(("if", cond, threshold, body, orelse))
        else:
            var = "ijk"[len(loop_vars)]
            start = draw(st.integers(0, 1))
            stop = draw(st.integers(start + 1, 3))
            body = draw(_block(depth + 1, loop_vars + [var], constants, rich, True))
            stmts.append(("for", var, start, stop, draw(st.booleans()), body))
    return stmts


@st.composite
def _rich_statement(draw, kind, depth, loop_vars, constants, fexpr):
    squash = draw(st.sampled_from(SQUASH))
    if kind == "append":
        return ("line", f"L.append({squash.format(draw(fexpr))})")
    if kind == "setitem":
        where = draw(st.sampled_from(loop_vars + ["0", "2", "1:3"]))
        return ("line", f"w[{where}] = {squash.format(draw(fexpr))}")
    if kind == "call":
        return ("line", f"{draw(st.sampled_from('uv'))} = helper(u, {draw(fexpr)})")
    if kind == "augmented":
        target, op = draw(st.sampled_from("uvz")), draw(st.sampled_from(["+=", "*=", "-="]))
        value = squash.format(draw(fexpr if target != "z" else ARRAY_EXPR.filter(VARIABLES.search)))
        return ("line", f"{target} {op} {value}" if op != "*=" else f"{target} *= np.tanh({value})")
    if kind == "swap":
        return ("line", "u, v = v, u")
    if kind == "pair":
        return ("line", f"u, v = pair(u, {draw(fexpr)})")
    if kind == "inner":
        return ("line", f"{draw(st.sampled_from('uv'))} = inner({draw(fexpr)})")
    if kind == "dict":
        return ("line", f"D['k'] = {squash.format(draw(fexpr))}")
    if kind == "sequence":
        return ("line", draw(st.sampled_from([
            "u = np.tanh(sum([np.sin(t * v) for t in x]))",
            "v = np.tanh(sum(np.sin(p * q) for p, q in zip(x, z)))",
            "u = np.tanh(sum(k * np.cos(p + u) for k, p in enumerate(x)))",
            "v = np.tanh(max(u, v, D['k']) + min([p * v for p in reversed(x)]))",
        ])))
    cond = draw(FLOAT_EXPR)
    threshold = draw(st.sampled_from(["0.0", "0.3", "-0.5"]))
    if kind == "jump":
        return ("jump", cond, threshold, draw(st.sampled_from(["break", "continue"])))
    if kind == "return":
        return ("return", cond, threshold)
    body = draw(_block(depth + 1, loop_vars, constants, True, True))
    return ("while", cond, threshold, draw(st.integers(1, 3)), body)


class _Gen:
    """Prints a statement tree; `twin=True` routes comparisons through `_cmp` (margin log)."""

    def __init__(self, twin):
        self.twin, self.lines = twin, []

    def block(self, stmts, indent):
        pad = "    " * indent
        for s in stmts:
            if s[0] == "assign":
                _, target, squash, expr = s
                self.lines.append(f"{pad}{target} = {squash.format(expr)}")
            elif s[0] == "if":
                _, cond, threshold, body, orelse = s
                test = f"_cmp({cond}, {threshold})" if self.twin else f"{cond} > {threshold}"
                self.lines.append(f"{pad}if {test}:")
                self.block(body, indent + 1)
                if orelse:
                    self.lines.append(f"{pad}else:")
                    self.block(orelse, indent + 1)
            elif s[0] == "line":
                self.lines.append(f"{pad}{s[1]}")
            elif s[0] in ("jump", "return"):
                test = f"_cmp({s[1]}, {s[2]})" if self.twin else f"{s[1]} > {s[2]}"
                self.lines.append(f"{pad}if {test}:")
                self.lines.append(f"{pad}    {s[3] if s[0] == 'jump' else 'return ' + RESULT}")
            elif s[0] == "while":
                _, cond, threshold, limit, body = s
                self.count += 1
                counter = f"n{self.count}"
                test = f"_cmp({cond}, {threshold})" if self.twin else f"{cond} > {threshold}"
                self.lines.append(f"{pad}{counter} = 0")
                self.lines.append(f"{pad}while {counter} < {limit} and {test}:")
                self.lines.append(f"{pad}    {counter} = {counter} + 1")
                self.block(body, indent + 1)
            else:
                _, var, start, stop, backwards, body = s
                rng = f"range({stop - 1}, {start - 1}, -1)" if backwards else f"range({start}, {stop})"
                self.lines.append(f"{pad}for {var} in {rng}:")
                self.block(body, indent + 1)

    def program(self, name, stmts):
        self.count = 0
        self.lines = [
            "def helper(p, q):",
            "    return np.sin(p) * q + 0.5 * p",
            "",
            "",
            "def pair(p, q):",
            "    return np.sin(q), np.cos(p) * q",
            "",
            "",
            f"def {name}(a, b, x):",
            "    u = a * 0.5",
            "    v = np.sin(b)",
            "    z = x * 1.0",
            "    L = []",
            "    w = np.zeros(3)",
            "    D = {'k': 0.0}",
            "",
            "    def inner(t):",
            "        return np.tanh(t * u) + v",
            "",
        ]
        self.block(stmts, 1)
        self.lines.append(f"    return {RESULT}")
        return "\n".join(self.lines) + "\n"


RESULT = "u * v + u + np.sum(z * x) + np.sum(np.sin(z)) + sum(L) + np.sum(w * x) + D['k']"


_counter = [0]


def _make(text, name, extra=None):
    _counter[0] += 1
    filename = f"<srcgrad-random-program-{_counter[0]}>"
    linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
    namespace = {"np": np, "math": math, "__name__": f"random_program_{_counter[0]}"}
    namespace.update(extra or {})
    exec(compile(text, filename, "exec"), namespace)
    return namespace[name]


def _margin(twin_text, args):
    margins = []

    def _cmp(value, threshold):
        margins.append(abs(float(value) - threshold))
        return value > threshold

    def _gap(pick):
        def extreme(*values):  # builtin max/min are kinks too: the two nearest candidates' gap
            items = sorted(float(v) for v in (values[0] if len(values) == 1 else values))
            if len(items) > 1:
                margins.append(abs(items[-1] - items[-2]) if pick is max else abs(items[1] - items[0]))
            return pick(values[0] if len(values) == 1 else values)

        return extreme

    fn = _make(twin_text, "program_twin", {"_cmp": _cmp, "max": _gap(max), "min": _gap(min)})
    fn(*args)
    return min(margins, default=math.inf)


ARGS = st.tuples(
    st.floats(-1.5, 1.5),
    st.floats(-1.5, 1.5),
    st.lists(st.floats(-1.5, 1.5), min_size=3, max_size=3).map(np.array),
)


SETTINGS = settings(
    max_examples=50, deadline=None, derandomize=True, database=None, suppress_health_check=list(HealthCheck)
)


@SETTINGS
@given(stmts=_block(0, []), args=ARGS)
def test_random_program_gradient_matches_finite_differences(stmts, args):
    _check(stmts, args)


@settings(SETTINGS, max_examples=25)
@given(stmts=_block(0, [], constants=True), args=ARGS)
def test_random_programs_with_constant_overwrites(stmts, args):
    _check(stmts, args)


@settings(SETTINGS, max_examples=80)
@given(stmts=_block(0, [], constants=True, rich=True), args=ARGS)
def test_random_programs_with_every_construct(stmts, args):
    """while, break/continue, early returns, append, writes into an array and a dict, calls
    (tuple results, a nested function), comprehensions over zip/enumerate/reversed, `+=`, swaps."""
    _check(stmts, args)


def _check(stmts, args):
    text = _Gen(False).program("program", stmts)
    args = (float(args[0]), float(args[1]), np.asarray(args[2], dtype=np.float64))
    assume(_margin(_Gen(True).program("program_twin", stmts), args) > 1e-4)
    fn = _make(text, "program")
    originals = [np.copy(a) for a in args]
    value, grads = srcgrad.value_and_grad(fn, wrt=(0, 1, 2))(*args)
    assert value == pytest.approx(fn(*args), rel=1e-12, abs=1e-12), text
    for i, (arg, g) in enumerate(zip(args, grads)):
        assert type(g) is type(arg), text
        assert np.shape(g) == np.shape(arg), text
        expected = numerical_grad(fn, args, i)
        np.testing.assert_allclose(g, expected, rtol=1e-5, atol=1e-6, err_msg=f"argument {i} of\n{text}")
    for a, o in zip(args, originals):
        np.testing.assert_array_equal(a, o)


def test_a_generated_program_reads_back_through_linecache():
    text = "def program(a, b, x):\n    if a > 0.0:\n        return a * b + np.sum(x)\n    return a\n"
    fn = _make(text, "program")
    ga, gb, gx = srcgrad.grad(fn, wrt=(0, 1, 2))(0.5, 2.0, np.ones(3))
    assert (ga, gb) == (2.0, 0.5)
    np.testing.assert_array_equal(gx, np.ones(3))
