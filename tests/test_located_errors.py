"""An error raised while a derivative runs names the user's line behind it (compiler/load.py).

The error itself (type, message, traceback) is the one Python or NumPy raised; srcgrad adds a
note (Python 3.11+) naming the generated line it passed and the user's line that line
computes (forward pass) or differentiates (backward pass).
"""

import inspect
import sys
import traceback

import numpy as np
import pytest

import srcgrad
from srcgrad.compiler import load

pytestmark = pytest.mark.skipif(sys.version_info < (3, 11), reason="exception notes are Python 3.11+")

HERE = __file__


def _line(fn, offset):
    return fn.__code__.co_firstlineno + offset


def _dense(a, b):
    return a @ b


def shape_bug(W, x):
    h = np.tanh(_dense(x, W))
    return np.sum(h * h)


def root(x):
    # its derivative 0.01 * y ** -0.99 overflows Python's float power at y = 3e-320
    y = x * 3.0
    return y ** 0.01


def _notes(thunk, error=Exception):
    with pytest.raises(error) as info:
        thunk()
    return info.value, [n for n in getattr(info.value, "__notes__", ()) if n.startswith("srcgrad:")]


SHAPE_MESSAGE = "matmul: Input operand 1 has a mismatch in its core dimension 0"


@pytest.mark.parametrize("call", [
    lambda: srcgrad.grad(shape_bug)(np.ones((3, 4)), np.ones((2, 4))),
    lambda: srcgrad.grad(shape_bug)(W=np.ones((3, 4)), x=np.ones((2, 4))),  # the general code
    lambda: srcgrad.value_and_grad(shape_bug, wrt=(0, 1))(np.ones((3, 4)), np.ones((2, 4))),
    lambda: srcgrad.vjp(shape_bug, np.ones((3, 4)), np.ones((2, 4))),
    lambda: srcgrad.jvp(shape_bug, (np.ones((3, 4)), np.ones((2, 4))), (np.ones((3, 4)), np.ones((2, 4)))),
], ids=["grad", "grad-keywords", "value_and_grad", "vjp", "jvp"])
def test_an_error_in_the_users_forward_code_names_the_users_line(call):
    error, notes = _notes(call, ValueError)
    assert str(error).startswith(SHAPE_MESSAGE)  # the error itself is NumPy's, unchanged
    assert len(notes) == 1, notes
    head, where = notes[0].split("\n")
    assert "the derivative of `shape_bug`, at `" in head and "x @ W" in head  # the generated line, spliced
    assert where == f"  computing `h = np.tanh(_dense(x, W))` ({HERE}, line {_line(shape_bug, 1)})"


def test_an_error_in_the_backward_pass_names_the_line_it_differentiates():
    error, notes = _notes(lambda: srcgrad.grad(root)(1e-320), OverflowError)
    assert error.args[0] == 34  # ERANGE: "Numerical result out of range"
    assert notes[0].startswith("srcgrad: raised in `root_grad`, the derivative of `root`, at `y_bar = ")
    assert notes[0].endswith(f"\n  differentiating `return y ** 0.01` ({HERE}, line {_line(root, 3)})")


def test_an_error_in_a_pullback_names_the_line_it_differentiates():
    out, pullback = srcgrad.vjp(root, 1e-320)
    assert out == root(1e-320)
    _, notes = _notes(lambda: pullback(1.0), OverflowError)
    assert notes[0].startswith("srcgrad: raised in `pullback`, the derivative of `root`, at `y_bar = ")
    assert notes[0].endswith(f"differentiating `return y ** 0.01` ({HERE}, line {_line(root, 3)})")


def vector_out(x):
    y = x * 2.0
    return y


def test_a_non_scalar_output_is_located_at_the_return():
    error, notes = _notes(lambda: srcgrad.grad(vector_out)(np.ones(2)), TypeError)
    assert "needs a scalar output" in str(error)
    assert notes[0].endswith(f"computing `return y` ({HERE}, line {_line(vector_out, 2)})")


def _inverted(x, n):
    if n == 0:
        return np.linalg.inv(x)
    return _inverted(x, n - 1) * 2.0


def nested_calls(x):
    return np.sum(_inverted(x, 3))


def test_the_error_keeps_its_traceback_and_the_generated_lines_show():
    error, notes = _notes(lambda: srcgrad.grad(nested_calls)(np.zeros((2, 2))), np.linalg.LinAlgError)
    assert len(notes) == 1
    assert notes[0].endswith(f"computing `return np.sum(_inverted(x, 3))` ({HERE}, line {_line(nested_calls, 1)})")
    text = "".join(traceback.format_exception(error))
    assert f'File "{HERE}", line {_line(_inverted, 2)}, in _inverted' in text  # the user's frames stay
    assert "<srcgrad nested_calls:grad>" in text and "= _inverted(x, " in text  # the generated line is shown


def underflowing(x):
    y = np.sqrt(x)
    return np.sum(y * y * 0.0 ** (y - 10.0))


@pytest.mark.parametrize("call", [
    lambda x: srcgrad.hessian(underflowing)(x),  # the linearized jvp of the gradient
    lambda x: srcgrad.jacobian(srcgrad.grad(underflowing))(x),
    lambda x: srcgrad.jvp(srcgrad.grad(underflowing), (x,), (x,)),  # the jvp of the gradient itself
], ids=["hessian", "jacobian-of-grad", "jvp-of-grad"])
def test_an_error_in_a_second_derivative_names_the_users_line(call):
    with np.errstate(divide="raise"):
        error, notes = _notes(lambda: call(np.array([1.0, 2.0, 3.0])), FloatingPointError)
    assert len(notes) == 1, notes
    head, where = notes[0].split("\n")
    assert head.startswith("srcgrad: raised in `underflowing_grad_")
    assert "which srcgrad generated from `underflowing`, at `" in head and "0.0 ** " in head  # the generated line
    assert where == f"  computing `return np.sum(y * y * 0.0 ** (y - 10.0))` ({HERE}, line {_line(underflowing, 2)})"


def test_an_error_the_caller_catches_is_the_same_error():
    df = srcgrad.grad(root)
    for _ in range(3):  # the same derivative, called again: one note per error
        try:
            df(1e-320)
        except OverflowError as error:
            assert len(error.__notes__) == 1
    assert df(3.0) == pytest.approx(0.01 * 3.0 * 9.0 ** -0.99)


def test_the_printed_source_has_no_guard():
    text = srcgrad.source(srcgrad.grad(root))
    assert "try:" not in text and "__srcgrad" not in text


def test_a_name_error_is_located_and_a_refusal_is_left_alone():
    def uses_missing(x):
        return np.sum(x) * undefined_name  # noqa: F821

    _, notes = _notes(lambda: srcgrad.grad(uses_missing)(np.ones(2)), NameError)
    assert notes[0].endswith(f"computing `return np.sum(x) * undefined_name  # noqa: F821` ({HERE}, line {_line(uses_missing, 1)})")

    def shared_rows(x):
        y = x * 1.0
        rows = [y, y]
        rows[0] += 1.0
        return np.sum(rows[1] * x)

    error, notes = _notes(lambda: srcgrad.grad(shared_rows)(np.ones(2)), srcgrad.NotDifferentiableError)
    assert "`rows[0] += 1.0`" in str(error) and not notes  # its message names the line already


@pytest.mark.parametrize("text", [
    "def f(x):\n    return x\n",
    'def f(x):\n    """One line."""\n    y = x\n    return y\n',
    'def f(x):\n    """Two\n    lines."""\n    def pullback(g):\n        """Inner."""\n        return g\n    return pullback\n',
])
def test_the_guard_wraps_each_body_after_its_docstring(text):
    guarded, lines = load._guarded(text)
    scope = {}
    exec(compile(guarded, "<test>", "exec"), scope)  # noqa: S102 - fixed text
    expected = None if '"""' not in text else inspect.cleandoc(text.split('"""')[1])
    assert (scope["f"].__doc__ and inspect.cleandoc(scope["f"].__doc__)) == expected  # Python 3.13 dedents docstrings
    source = text.splitlines()
    for k, at in enumerate(lines):  # every line of the result is its line of `text`, shifted, or an added one
        if at is not None:
            assert guarded.splitlines()[k].strip() == source[at - 1].strip()
    assert guarded.count("try:") == text.count("def ")
