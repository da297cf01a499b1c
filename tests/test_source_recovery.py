"""Source recovery for functions not defined in a module file: exec, notebook cells, the REPL."""

import functools
import linecache
import math
import sys

import numpy as np
import pytest

import srcgrad

CELL = """\
import numpy as np

def energy(x, k):
    return 0.5 * k * np.sum(x * x)
"""


def _exec(text, filename):
    namespace = {}
    exec(compile(text, filename, "exec"), namespace)
    return namespace


def test_exec_without_source_says_how_to_fix_it():
    energy = _exec(CELL, "<string>")["energy"]
    with pytest.raises(srcgrad.SrcGradError) as info:
        srcgrad.grad(energy)
    error = info.value
    assert error.filename == "<string>" and error.lineno == 3
    assert "cannot read the source of `energy`" in error.msg
    assert "srcgrad.grad(energy, source=text)" in error.msg
    assert "define it in a file or notebook cell" in error.msg


def test_exec_with_source_works_in_every_transform():
    energy = _exec(CELL, "<generated energy>")["energy"]
    x = np.array([1.0, -2.0, 3.0])
    np.testing.assert_allclose(srcgrad.grad(energy, source=CELL)(x, 2.0), 2.0 * x)
    value, g = srcgrad.value_and_grad(energy, wrt="k", source=CELL)(x, 2.0)
    assert value == pytest.approx(14.0) and g == pytest.approx(7.0)
    out, pullback = srcgrad.vjp(energy, x, 2.0, source=CELL)
    gx, gk = pullback(1.0)
    np.testing.assert_allclose(gx, 2.0 * x)
    assert gk == pytest.approx(7.0)


def test_source_decorator_form():
    namespace = _exec("def cube(a):\n    return a * a * a\n", "<cube>")
    dcube = srcgrad.grad(source="def cube(a):\n    return a * a * a\n")(namespace["cube"])
    assert dcube(2.0) == 12.0


def test_errors_in_exec_source_point_at_its_lines():
    text = ("def f(x):\n    y = [x * 2.0]\n    try:\n        y[0] = y[0] + 1.0\n    finally:\n"
            "        pass\n    return y[0]\n")
    f = _exec(text, "<exec f>")["f"]
    with pytest.raises(srcgrad.SrcGradError) as info:
        srcgrad.grad(f, source=text)
    assert (info.value.filename, info.value.lineno) == ("<exec f>", 4)
    assert info.value.text.strip() == "y[0] = y[0] + 1.0"


def test_linecache_cells_work_without_source():
    # IPython compiles each cell under a name like <ipython-input-3-...> and puts its
    # text in linecache; inspect reads it back from there.
    filename = "<ipython-input-7-srcgrad-test>"
    linecache.cache[filename] = (len(CELL), None, CELL.splitlines(True), filename)
    try:
        energy = _exec(CELL, filename)["energy"]
        x = np.array([0.5, 1.5])
        np.testing.assert_allclose(srcgrad.grad(energy)(x, 3.0), 3.0 * x)
        assert f"{filename}:3" in srcgrad.source(srcgrad.grad(energy))
    finally:
        del linecache.cache[filename]


def test_a_lambda_differentiates_like_a_def():
    g = srcgrad.grad(lambda x, k=2.0: np.sin(x) * x ** k)
    assert g(0.5) == pytest.approx(np.cos(0.5) * 0.25 + np.sin(0.5) * 2 * 0.5)
    assert "# lambda x, k=2.0: np.sin(x) * x ** k\n" in srcgrad.source(g)
    out, out_dot = srcgrad.jvp(lambda a, b: a * b, (2.0, 3.0), (1.0, 0.0))
    assert (out, out_dot) == (6.0, 3.0)


@pytest.mark.skipif(sys.version_info >= (3, 11), reason="Python 3.11+ records the columns that tell them apart")
def test_two_lambdas_with_the_same_parameters_on_one_line_are_refused_with_the_fix_on_python_3_10():
    with pytest.raises(srcgrad.SrcGradError, match="several lambdas .* Python 3.10 .* define the function with `def`"):
        pair = srcgrad.grad(lambda x: x * 2.0), srcgrad.grad(lambda x: x * 3.0)  # noqa: F841


@pytest.mark.skipif(sys.version_info < (3, 11), reason="Python 3.10 records no columns")
def test_lambdas_with_the_same_parameters_on_one_line_are_told_apart_by_their_columns():
    pair = srcgrad.grad(lambda x: x * 2.0), srcgrad.grad(lambda x: x * 3.0)
    assert (pair[0](1.0), pair[1](1.0)) == (2.0, 3.0)
    assert "# lambda x: x * 3.0\n" in srcgrad.source(pair[1])
    both = ("é→", srcgrad.grad(lambda x, k=2.0: np.sum(x ** k)), srcgrad.grad(lambda x, k=2.0: np.sum(x) ** k))
    x = np.array([1.0, 2.0])
    np.testing.assert_allclose(both[1](x), 2 * x, rtol=1e-15)  # columns count UTF-8 bytes, as Python's do
    np.testing.assert_allclose(both[2](x), [6.0, 6.0], rtol=1e-15)
    spread = (srcgrad.jvp(lambda a: np.sin(a), (0.5,), (1.0,)),
              srcgrad.jvp(lambda a: np.cos(a), (0.5,), (1.0,)))
    assert spread[0][1] == pytest.approx(np.cos(0.5), rel=1e-15)
    assert spread[1][1] == pytest.approx(-np.sin(0.5), rel=1e-15)
    alike = srcgrad.grad(lambda x: x * x), srcgrad.grad(lambda x: x * x)
    assert (alike[0](3.0), alike[1](3.0)) == (6.0, 6.0)


def test_a_lambda_on_a_continuation_line_is_read_whole():
    """Its text was read from its own line to the first line end outside the brackets
    opened there: `np.sum(x ** 2)` alone, the `+ 3.0 * x[0]` after it lost, and the
    gradient [2, 4, 6] where [5, 4, 6] is right, without a word."""
    from program_checks import check_every_transform

    x = np.array([1.0, 2.0, 3.0])
    cut = srcgrad.grad(
        lambda x: np.sum(x ** 2)
        + 3.0 * x[0])
    np.testing.assert_allclose(cut(x), [5.0, 4.0, 6.0], rtol=1e-15)
    trailing = srcgrad.grad(
        lambda x: np.sum(x ** 2) +
        3.0 * x[0])
    np.testing.assert_allclose(trailing(x), [5.0, 4.0, 6.0], rtol=1e-15)
    assert "# lambda x: np.sum(x ** 2) +\n" in srcgrad.source(trailing)
    spread = (
        lambda x: np.sum(np.sin(x) * x)
        + x[0] * x[1] ** 2)
    check_every_transform(spread, x, expected=np.sin(x) + x * np.cos(x) + [x[1] ** 2, 2 * x[0] * x[1], 0.0])
    parameters = srcgrad.grad(lambda w,
                              v: np.sum(w * v * w), wrt=(0, 1))
    gw, gv = parameters(x, x[::-1].copy())
    np.testing.assert_allclose(gw, 2 * x * x[::-1], rtol=1e-15)
    np.testing.assert_allclose(gv, x * x, rtol=1e-15)
    out, out_dot = srcgrad.jvp(
        lambda a: a ** 3
        - a, (2.0,), (1.0,))
    assert (out, out_dot) == (6.0, 11.0)


def test_lambdas_nested_in_one_another_with_the_same_parameters_are_told_apart():
    outer = lambda x: sum(map(lambda x: x * x * x, [x, 2.0 * x]))  # noqa: E731
    if sys.version_info < (3, 11):  # no columns recorded: refused, saying what to write
        with pytest.raises(srcgrad.SrcGradError, match="several lambdas .* Python 3.10 .* define the function with `def`"):
            srcgrad.grad(outer)(2.0)
        return
    assert srcgrad.grad(outer)(2.0) == 108.0  # 9 x ** 2


def test_library_functions_with_rules_are_differentiated_themselves():
    """`grad(np.sin)` was "srcgrad can differentiate Python functions, not ufunc objects",
    and `grad(np.linalg.det)` read NumPy's own source and failed inside it."""
    assert srcgrad.grad(np.sin)(0.5) == pytest.approx(math.cos(0.5), rel=1e-15)
    assert srcgrad.grad(math.exp)(0.5) == pytest.approx(math.exp(0.5), rel=1e-15)
    assert srcgrad.grad(abs)(-0.5) == -1.0
    assert srcgrad.grad(np.maximum, wrt=(0, 1))(0.5, 0.2) == (1.0, 0.0)
    a = np.array([[2.0, 1.0], [0.5, 3.0]])
    np.testing.assert_allclose(srcgrad.grad(np.linalg.det)(a), [[3.0, -0.5], [-1.0, 2.0]], rtol=1e-14)
    np.testing.assert_allclose(srcgrad.grad(np.linalg.norm)(np.array([3.0, 4.0])), [0.6, 0.8], rtol=1e-15)
    np.testing.assert_allclose(srcgrad.grad(np.linalg.norm)(np.array([3.0, -4.0]), 1), [1.0, -1.0])
    assert srcgrad.jvp(np.tanh, (0.5,), (2.0,))[1] == pytest.approx(2.0 / math.cosh(0.5) ** 2, rel=1e-14)
    np.testing.assert_allclose(srcgrad.jacobian(np.sin)(np.array([0.1, 0.2])), np.diag(np.cos([0.1, 0.2])), rtol=1e-15)
    np.testing.assert_allclose(srcgrad.hessian(np.linalg.det)(np.eye(2)).reshape(4, 4), np.fliplr(np.diag([1.0, -1.0, -1.0, 1.0])))
    assert "return np.tanh(x)" in srcgrad.source(srcgrad.grad(np.tanh))


@pytest.mark.parametrize("fn,message", [
    (np.argmax, "`np.argmax` has no derivative"),
    (len, "`len` has no derivative"),
    (np.einsum, "`np.einsum` takes `\\*args`"),
])
def test_library_functions_without_a_gradient_are_refused_by_name(fn, message):
    with pytest.raises(TypeError, match=message):
        srcgrad.grad(fn)


TRICKY = '''\
import numpy as np


def plain(x):
    return np.sum(x * x)
    # a trailing comment as deep as the body


def one_line(x): return np.sum(np.sin(x))


@staticmethod
def decorated(x):
    return np.sum(x ** 3)


def string_at_column_0(x):
    note = """
lines of a string at column 0
"""
    return np.sum(x * x) * len(note)


def bracket_at_column_0(x):
    total = np.sum(
x * x)
    return total


def continued(x):
    y = x * \\
2.0
    return np.sum(y * x)


class Holder:
    def method(self, x):
        return np.sum(np.exp(x))
# a shallower comment ends nothing


def after_class(x):
    return np.sum(np.cos(x))
'''


def test_the_def_block_is_the_one_inspect_finds_or_inspect_is_asked(tmp_path, monkeypatch):
    """frontend._def_block reads a def by indentation; a line that only looks dedented (in
    a string, brackets, after a backslash) makes its block unparsable, and `inspect`
    reads it instead. Either way the gradient is that of the user's function."""
    import importlib
    import inspect

    from srcgrad.compiler import frontend

    (tmp_path / "tricky_module.py").write_text(TRICKY)
    monkeypatch.syspath_prepend(str(tmp_path))
    module = importlib.import_module("tricky_module")
    x = np.array([0.3, -1.2, 2.0])
    cut_inside = {"string_at_column_0", "bracket_at_column_0", "continued"}
    wanted = {
        "plain": 2 * x, "one_line": np.cos(x), "decorated": 3 * x ** 2, "string_at_column_0": 2 * x * 31,
        "bracket_at_column_0": 2 * x, "continued": 4 * x, "method": np.exp(x), "after_class": -np.sin(x),
    }
    fns = {name: module.Holder.method if name == "method" else getattr(module, name) for name in wanted}
    fns["decorated"] = fns["decorated"].__func__ if hasattr(fns["decorated"], "__func__") else fns["decorated"]
    real = {name: inspect.getsourcelines(fn) for name, fn in fns.items()}
    asked = []
    read = inspect.getsourcelines
    def reading(obj):  # a code object (frontend) or a function (rule helpers)
        asked.append(getattr(obj, "co_name", None) or obj.__name__)
        return read(obj)

    monkeypatch.setattr(inspect, "getsourcelines", reading)
    for name, fn in fns.items():
        block = frontend._def_block(fn, fn.__code__)
        if name in cut_inside:
            assert "".join(block[0]) != "".join(real[name][0])  # cut inside a statement
        else:
            assert block == real[name]
        asked.clear()
        args = (None, x) if name == "method" else (x,)
        got = srcgrad.grad(fn, wrt=len(args) - 1)(*args)
        np.testing.assert_allclose(got, wanted[name], rtol=1e-12)
        assert (name in asked) == (name in cut_inside)  # (rule helpers' sources are read too)


def _doubling(fn):
    @functools.wraps(fn)
    def wrapper(x):
        return 2.0 * fn(x)

    return wrapper


def _logging(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        return fn(*args, **kwargs)

    return wrapper


@_doubling
def _doubled_square(x):
    return np.sum(x**2)


@_logging
def _logged_square(x):
    return np.sum(x**2)


def _calls_doubled(x):
    return _doubled_square(x) + 1.0


@functools.lru_cache(maxsize=None)
def _cached_cube(x):
    return x**3


def test_a_decorators_python_wrapper_is_differentiated_as_written():
    # functools.wraps copies the name and sets __wrapped__, but the wrapper may compute
    # something else than what it wraps: differentiating the wrapped function was 2x off
    x = np.array([1.0, -2.0, 0.5])
    np.testing.assert_allclose(srcgrad.grad(_doubled_square)(x), 4.0 * x, rtol=1e-12)
    np.testing.assert_allclose(srcgrad.grad(_calls_doubled)(x), 4.0 * x, rtol=1e-12)
    assert "Gradient of wrapper" in srcgrad.source(srcgrad.grad(_doubled_square))
    # a wrapper taking `*args, **kwargs` is written out per call's arguments and followed into `fn`
    np.testing.assert_allclose(srcgrad.grad(_logged_square)(x), 2.0 * x, rtol=1e-12)
    # what is no Python function (lru_cache) and srcgrad's own wrappers are unwrapped
    assert srcgrad.grad(_cached_cube)(2.0) == 12.0
    assert srcgrad.grad(srcgrad.compile(_doubled_square.__wrapped__))(x).tolist() == (2.0 * x).tolist()


EDITED = """\
import numpy as np
f = lambda x: np.sum(np.sin(x))
g = lambda x: np.sum(x * x)
def h(x):
    return np.sum(np.cos(x))
"""


def test_a_file_edited_since_the_function_was_defined_is_refused_not_misread(tmp_path, monkeypatch):
    """A function's source is read from its file at its line: after an edit that moved
    another function there, that function was differentiated instead (the derivative of
    `g` given for `f`). Text that does not mention a name the code uses is refused; a
    function whose text is still at its line differentiates."""
    import importlib

    path = tmp_path / "edited_module.py"
    path.write_text(EDITED)
    monkeypatch.syspath_prepend(str(tmp_path))
    module = importlib.import_module("edited_module")
    x = np.array([0.3, 0.5])
    path.write_text(EDITED.replace("f = lambda x: np.sum(np.sin(x))\n", "").replace("def h(x):", "\ndef h(x):"))
    linecache.checkcache(str(path))
    with pytest.raises(srcgrad.SrcGradError, match=r"does not match its code \(it uses `sin`.*file changed") as info:
        srcgrad.grad(module.f)(x)
    assert "edited_module.py, line 2" in str(info.value)
    np.testing.assert_allclose(srcgrad.grad(module.h)(x), -np.sin(x))  # still at its line
    try:
        np.testing.assert_allclose(srcgrad.grad(module.g)(x), 2 * x)  # moved a line up: right, or refused
    except srcgrad.SrcGradError:
        pass
