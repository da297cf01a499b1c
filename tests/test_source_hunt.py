"""The text `srcgrad.source` shows runs on its own for every transform (API.md section 2),
the same in every process: saved to a file and imported in a fresh namespace, it computes
what the derivative computes. Regression tests of a hunt over the printed derivatives of
the test corpora (grad, value_and_grad, vjp, jvp, jacobian, hessian, grad of grad):

- second derivatives through a rule's helper (`np.diag`, `x.dot(W)`, `sum` of an array)
  called the forward rules srcgrad derives for the helper, which the text named in a
  comment only (`diag_vjp_jvp_g`): a NameError;
- the `key=` lambda of `sorted`/`min`/`max` and a function defined in the user's function
  (a recursive `def stats(L)`) were named in a comment only: a NameError;
- a default read at the module level of the text (`def rec_pullback(..., scale=_SCALE)`)
  was not imported: a NameError;
- `verbose=True` printed nothing where the derivative had been made before without it.
"""

import ast
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import srcgrad
from test_standalone_source import _load as module_namespace

_SCALE = 1.5
X = np.array([0.5, -1.2, 2.0])
V = np.array([0.3, 0.7, -0.4])


def _load(text, tmp_path):
    """The function that `text`, imported as a new module from a file, defines first."""
    first = next(node.name for node in ast.parse(text).body if isinstance(node, ast.FunctionDef))
    return module_namespace(text, tmp_path)[first]


def _check_text(text):
    """Python 3.10 syntax, and no name left to a comment."""
    ast.parse(text, feature_version=(3, 10))
    assert "cannot be imported" not in text and "define them before calling" not in text


# --- second derivatives through the forward rules of rule helpers ------------------------


def diag_cubes(x):
    return np.sum(np.diag(x) ** 3)


def dot_method(x):
    W = np.array([[1.0, 0.5, 0.0], [0.2, -1.0, 0.3], [0.0, 0.4, 2.0]])
    return np.sum(x.dot(W) ** 2)


def builtin_sum_of_squares(x):
    return sum(x * x * x) + sum(x)


@pytest.mark.parametrize("fn, hessian", [
    (diag_cubes, lambda x: np.diag(6.0 * x)),
    (dot_method, lambda x: 2.0 * np.array([[1.0, 0.5, 0.0], [0.2, -1.0, 0.3], [0.0, 0.4, 2.0]])
     @ np.array([[1.0, 0.5, 0.0], [0.2, -1.0, 0.3], [0.0, 0.4, 2.0]]).T),
    (builtin_sum_of_squares, lambda x: np.diag(6.0 * x)),
], ids=["diag", "dot_method", "builtin_sum"])
def test_hessian_source_through_derived_helper_rules_runs_standalone(fn, hessian, tmp_path):
    text = srcgrad.source(srcgrad.hessian(fn))
    _check_text(text)
    assert "from srcgrad.rules.derived_rules import " in text
    gradient, tangent = _load(text, tmp_path)(X.copy(), V.copy())
    np.testing.assert_allclose(gradient, srcgrad.grad(fn)(X), rtol=1e-12)
    np.testing.assert_allclose(tangent, hessian(X) @ V, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(tangent, srcgrad.hessian(fn)(X) @ V, rtol=1e-12, atol=1e-12)


def test_grad_of_grad_source_through_builtin_max_runs_standalone(tmp_path):
    def fn(a, b):
        return max([a * b, a + 0.5]) ** 2

    a, b = 0.7, 1.3  # a * b = 0.91 > a + 0.5 = 1.2? no: the second is the max
    gg = srcgrad.grad(srcgrad.grad(fn))
    text = srcgrad.source(gg)
    _check_text(text)
    _, second = _load(text, tmp_path)(a, b, 1.0)
    assert second == pytest.approx(2.0) and gg(a, b) == pytest.approx(2.0)


# --- the user's own definitions: key lambdas, functions defined in the function ----------


def sorted_by_key(a, b, c):
    xs = sorted([a, b * 2.0, c], key=lambda t: -t)
    return xs[0] * 3.0 + xs[-1]


def variance_by_recursion(x):
    def stats(L):
        if len(L) == 1:
            return L[0], L[0] ** 2
        s, q = stats(L[1:])
        return s + L[0], q + L[0] ** 2
    s, q = stats(list(x))
    return q - s * s / len(x)


def recursion_with_global_default(x):
    def rec(v, depth, scale=_SCALE):
        if depth == 0:
            return v * scale
        return rec(v * 0.5, depth - 1) + v
    return np.sum(rec(x, 2))


def test_key_lambda_is_defined_in_the_text(tmp_path):
    df = srcgrad.grad(sorted_by_key, wrt=(0, 1, 2))
    text = srcgrad.source(df)
    _check_text(text)
    assert "\nkey_lambda = lambda t: -t\n" in text
    got = _load(text, tmp_path)(0.5, 1.5, -0.2)  # sorted descending: b * 2.0 = 3.0 first, c last
    assert got == (0.0, 6.0, 1.0) and got == df(0.5, 1.5, -0.2)
    assert all(type(g) is float for g in got)


@pytest.mark.parametrize("transform", ["grad", "vjp", "jvp"])
def test_recursive_nested_function_is_defined_in_the_text(transform, tmp_path):
    x = X.copy()
    want = 2.0 * x - 2.0 * np.sum(x) / 3  # the gradient of sum(x ** 2) - sum(x) ** 2 / n
    if transform == "grad":
        text = srcgrad.source(srcgrad.grad(variance_by_recursion))
        got = _load(text, tmp_path)(x)
    elif transform == "vjp":
        out, pullback = srcgrad.vjp(variance_by_recursion, x)
        text = srcgrad.source(pullback)
        got_out, backward = _load(text, tmp_path)(x)
        assert got_out == pytest.approx(out)
        (got,) = backward(1.0)
    else:
        text = srcgrad.source(srcgrad.jacobian(variance_by_recursion, mode="forward"))
        _, tangent = _load(text, tmp_path)(x, V)
        got = tangent  # forward mode pushes tangents through the calls: no primal `stats` to call
        want = want @ V
    _check_text(text)
    assert text.count("\ndef stats(L):\n") == (transform != "jvp")
    np.testing.assert_allclose(got, want, rtol=1e-12)
    np.testing.assert_array_equal(x, X)


def test_default_read_at_module_level_is_imported(tmp_path):
    text = srcgrad.source(srcgrad.grad(recursion_with_global_default))
    _check_text(text)
    assert f"from {__name__} import _SCALE" in text
    assert "def rec_pullback(result_bar, v, depth, scale=_SCALE):" in text
    # rec(x, 2) = x * 0.25 * 1.5 + 0.5 * x + x
    np.testing.assert_allclose(_load(text, tmp_path)(X), np.full(3, 0.375 + 1.5), rtol=1e-12)


# --- verbose ----------------------------------------------------------------------------


def cubic(x):
    return np.sum(x ** 3)


def test_verbose_prints_a_derivative_made_before(capsys):
    srcgrad.grad(cubic)(X)
    capsys.readouterr()
    df = srcgrad.grad(cubic, verbose=True)
    printed = capsys.readouterr().out
    assert printed.strip() == srcgrad.source(df).strip()
    assert "def cubic_grad(x):" in printed


# --- the same text in every process -------------------------------------------------------

_PRINT = textwrap.dedent("""
    import sys
    sys.path.insert(0, {tests!r})
    import numpy as np
    import srcgrad
    import test_source_hunt as t
    first = [t.cubic, t.dot_method] if {reverse} else []
    for fn in first:
        srcgrad.source(srcgrad.hessian(fn))
    for fn in [t.diag_cubes, t.dot_method, t.variance_by_recursion, t.sorted_by_key]:
        print(srcgrad.source(srcgrad.hessian(fn) if fn is not t.sorted_by_key else srcgrad.grad(fn, wrt=(0, 1, 2))))
""")


def test_printed_sources_are_the_same_in_every_process():
    tests = os.path.dirname(os.path.abspath(__file__))
    outs = set()
    for seed, reverse in (("0", False), ("1", True), ("12345", False)):
        env = dict(os.environ, PYTHONHASHSEED=seed)
        env["PYTHONPATH"] = os.pathsep.join(p for p in (os.path.dirname(os.path.dirname(srcgrad.__file__)),
                                                        env.get("PYTHONPATH")) if p)
        run = subprocess.run([sys.executable, "-c", _PRINT.format(tests=tests, reverse=reverse)], env=env,
                             capture_output=True, text=True, timeout=300)
        assert run.returncode == 0, run.stderr
        outs.add(run.stdout)
    assert len(outs) == 1
    assert "derived_rules import" in outs.pop()


# --- dead statements ------------------------------------------------------------------------


def all_then_any(x):
    if all(v > -10 for v in x) and any(v > 0.5 for v in x):
        return np.sum(x ** 3)
    return np.sum(x)


def test_unused_trip_counts_and_zips_are_dropped(tmp_path):
    """The loops over `x` of `all`/`any` have no backward pass: their trip counts
    (`v_1_trips = len(x)`) were left in the printed source, read by nothing."""
    df = srcgrad.grad(all_then_any)
    text = srcgrad.source(df)
    assert "_trips = len(x)" not in text and "zip(" not in text
    np.testing.assert_allclose(_load(text, tmp_path)(X), 3.0 * X ** 2, rtol=1e-12)
    np.testing.assert_allclose(df(X), 3.0 * X ** 2, rtol=1e-12)
