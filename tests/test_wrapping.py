"""The text `srcgrad.source` shows breaks its lines over 100 characters as black would
(compiler/wrapping.py): calls and displays at their brackets, chains of operations in
parentheses before their operators, `def` lines at their parameters, docstrings at
spaces. The text compiled keeps one statement per line. Before, a Hessian printed lines
of up to 600 characters (about 3% of the lines of the corpora's gradients and Hessians)."""

import ast
import sys
import textwrap

import numpy as np
import pytest

import srcgrad
from srcgrad.compiler import wrapping
from test_standalone_source import _load

sys.path.insert(0, __file__.rsplit("/", 1)[0])
import numerics_programs  # noqa: E402

BROKEN = [
    (
        "c_bar = unbroadcast(0.0 * max_a_times_b_bar, c) if pick(max_a_times_b, a_times_b, c) else unbroadcast(max_a_times_b_bar, c)",
        """\
c_bar = (
    unbroadcast(0.0 * max_a_times_b_bar, c)
    if pick(max_a_times_b, a_times_b, c)
    else unbroadcast(max_a_times_b_bar, c)
)""",
    ),
    (
        "L_bar_dot = matmul_vjp_x(L_at_y_bar_dot, None, L_part, y_part) + matmul_vjp_x(L_at_y_bar, None, L_part, y_part_dot) - (a - b)",
        """\
L_bar_dot = (
    matmul_vjp_x(L_at_y_bar_dot, None, L_part, y_part)
    + matmul_vjp_x(L_at_y_bar, None, L_part, y_part_dot)
    - (a - b)
)""",
    ),
    (
        "outer_x_bar_dot = add_grad(average_vjp_x_jvp_g(outer_bar_dot, outer_x_bar, outer_x, (0, 1), None), average_vjp_x_jvp_x(outer_x_dot, outer_x_bar, average_outer_x_bar, average_outer_x, outer_x, (0, 1), None, False, False))",
        """\
outer_x_bar_dot = add_grad(
    average_vjp_x_jvp_g(outer_bar_dot, outer_x_bar, outer_x, (0, 1), None),
    average_vjp_x_jvp_x(
        outer_x_dot,
        outer_x_bar,
        average_outer_x_bar,
        average_outer_x,
        outer_x,
        (0, 1),
        None,
        False,
        False,
    ),
)""",
    ),
    (
        "return (aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa and bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb or not c, (d,))",
        """\
return (
    aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa and bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb or not c,
    (d,),
)""",
    ),
    (
        "return (aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa and bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb or not c,)",
        """\
return (
    (
        (
            aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa
            and bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb
        )
        or not c
    ),
)""",
    ),
    (
        "y = aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa ** (bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb ** c) ** (-d)",
        """\
y = (
    aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa
    ** (bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb ** c) ** (-d)
)""",
    ),
    (
        "total = f(x, key={'aaaaaaaaaaaaaaaaaaaaaaaaaaa': 1, 'bbbbbbbbbbbbbbbbbbbbbbbbbbbbb': [2, 3]}, **options)[0]",
        None,  # a subscript of a call: not broken
    ),
    (
        "def second_vjp_a_jvp(g, ans, a, b, trans, lower, unit_diagonal, overwrite_b, g_dot, ans_dot, a_dot=None):",
        """\
def second_vjp_a_jvp(
    g, ans, a, b, trans, lower, unit_diagonal, overwrite_b, g_dot, ans_dot, a_dot=None
):""",
    ),
    (
        '"""Jacobian-vector product of abs_at_zero (numerics_programs.py:527) with respect to x: returns the output."""',
        '''\
"""Jacobian-vector product of abs_at_zero (numerics_programs.py:527) with respect to x: returns the
output."""''',
    ),
    ("# a comment quoting a user's line is left as it is written, however long it is, like this one here", None),
]


@pytest.mark.parametrize("line, expected", BROKEN)
def test_long_lines_are_broken_as_black_breaks_them(line, expected):
    text = wrapping.wrapped(line + "\n")
    assert text == (line if expected is None else expected) + "\n"
    if expected is not None:
        assert max(len(s) for s in text.splitlines()) <= 100
    if not line.startswith(('"""', "def", "#")):
        assert ast.dump(ast.parse(text)) == ast.dump(ast.parse(line))
        deeper = wrapping.wrapped("            " + line + "\n")  # broken further, the same statement
        assert ast.dump(ast.parse(textwrap.dedent(deeper))) == ast.dump(ast.parse(line))


def _docstrings_joined(tree):
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and isinstance(node.body[0], ast.Expr):
            value = node.body[0].value
            if isinstance(value, ast.Constant) and isinstance(value.value, str):
                value.value = " ".join(value.value.split())
    return ast.dump(tree)


def _def(tree, name):
    return next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == name)


def average_returned(x, w):
    avg, sw = np.average(x, weights=w, returned=True)
    return avg * sw + np.average(np.outer(x, w), axis=(0, 1)) + np.sum(x ** 3 * w)


X = np.array([0.5, -1.2, 2.0])
W = np.array([0.3, 0.7, 1.4])


def test_a_hessian_prints_no_statement_over_100_characters_and_runs_as_compiled(tmp_path):
    """The Hessian of a weighted average printed lines of up to 300 characters (nested
    add_grad calls of the derived rules); its broken text computes the same matrix."""
    h = srcgrad.hessian(average_returned)
    expected = h(X, W)
    text = srcgrad.source(h)
    long = [line for line in text.splitlines() if len(line) > 100 and not line.lstrip().startswith("#")]
    assert long == []
    compiled = h.__srcgrad_lazy__.get()
    name = compiled.name
    assert _docstrings_joined(_def(ast.parse(text), name)) == _docstrings_joined(_def(ast.parse(compiled.source), name))
    assert max(len(line) for line in compiled.source.splitlines()) > 250  # the compiled text keeps its lines
    column = _load(text, tmp_path)[name]
    for i in range(3):
        _, pushed = column(X, W, np.eye(3)[i])
        np.testing.assert_array_equal(pushed, expected[:, i])
    np.testing.assert_allclose(expected, np.diag(6.0 * X * W), rtol=1e-12, atol=1e-12)  # d2/dx2 of sum(x**3 w)


@pytest.mark.parametrize("fn", [numerics_programs.average_returned, numerics_programs.choose_select,
                                numerics_programs.cholesky_logdet, numerics_programs.matrix_norms])
def test_broken_text_holds_the_compiled_statements(fn):
    """The printed gradient and Hessian parse to the compiled ones, statement for statement."""
    args = next(c for c in numerics_programs.CASES if c[1] is fn)[2]
    for made in (srcgrad.grad(fn), srcgrad.hessian(fn)):
        made(*args)
        compiled = made.__srcgrad_lazy__.get()
        text = srcgrad.source(made)
        assert _docstrings_joined(_def(ast.parse(text), compiled.name)) == _docstrings_joined(ast.parse(compiled.source).body[0])
        assert all(len(line) <= 100 or line.lstrip().startswith(("#", "'")) for line in text.splitlines())
