"""Source recovery for functions not defined in a module file: exec, notebook cells, the REPL."""

import linecache

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
    text = "def f(x):\n    y = x * 2.0\n    try:\n        y = y + 1.0\n    finally:\n        pass\n    return y\n"
    f = _exec(text, "<exec f>")["f"]
    with pytest.raises(srcgrad.SrcGradError) as info:
        srcgrad.grad(f, source=text)
    assert (info.value.filename, info.value.lineno) == ("<exec f>", 3)
    assert info.value.text.strip() == "try:"


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


def test_two_lambdas_with_the_same_parameters_on_one_line_are_refused_with_the_fix():
    with pytest.raises(srcgrad.SrcGradError, match="several lambdas .* define the function with `def`"):
        pair = srcgrad.grad(lambda x: x * 2.0), srcgrad.grad(lambda x: x * 3.0)  # noqa: F841


def test_a_ufunc_is_not_a_python_function():
    with pytest.raises(TypeError, match="Python functions, not ufunc"):
        srcgrad.grad(np.sin)
