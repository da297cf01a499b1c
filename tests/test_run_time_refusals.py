"""A refusal that only the values can decide (is this array shared? does this slice
assignment change the list's length?) is checked when the derivative runs, and raises the
same located `NotDifferentiableError` a refusal at decoration does: `filename`, `lineno`
and `text` name the user's line, so Python prints it with a caret, as for a
`SyntaxError`. Before, these errors named the line in their message only; their
`filename` and `lineno` were None."""

import traceback

import numpy as np
import pytest

import srcgrad

X = np.array([0.5, -1.5, 2.0])


def _line(fn, marker):
    import inspect
    lines, first = inspect.getsourcelines(fn)
    return next(first + k for k, text in enumerate(lines) if marker in text)


def aliased_then_changed(x):
    b = x * 2.0
    c = b
    c += 1.0  # changed
    return np.sum(b * c)


def _scale_in_place(a, s):
    a *= s  # changed


def argument_changed_by_a_helper(x):
    y = x * 1.0
    _scale_in_place(y, 2.0)
    return np.sum(y)


def slice_grows_a_list(x):
    vals = [x[0], x[1], x[2]]
    vals[0:1] = [x[1] * x[1], x[0]]  # changed
    return vals[0] * vals[3]


def entry_shared_by_two(x):
    rows = [x * 1.0]
    rows.append(rows[0])
    rows[0] += x  # changed
    return np.sum(rows[1] * x)


CASES = [
    (aliased_then_changed, aliased_then_changed, "shares memory with `b`"),
    (argument_changed_by_a_helper, _scale_in_place, "changes the argument `a` in place"),
    (slice_grows_a_list, slice_grows_a_list, "another number of entries than it holds"),
    (entry_shared_by_two, entry_shared_by_two, "entries may share memory with each other"),
]


@pytest.mark.parametrize("fn, located_in, says", CASES, ids=[c[0].__name__ for c in CASES])
def test_a_refusal_checked_when_the_derivative_runs_names_the_users_file_and_line(fn, located_in, says):
    with pytest.raises(srcgrad.NotDifferentiableError, match=says) as info:
        srcgrad.grad(fn)(X.copy())
    error = info.value
    assert error.filename == __file__
    assert error.lineno == _line(located_in, "# changed")
    assert error.text.strip().endswith("# changed")
    assert error.offset == len(error.text) - len(error.text.lstrip()) + 1  # the caret under the statement
    printed = "".join(traceback.format_exception_only(type(error), error))
    assert f'File "{__file__}", line {error.lineno}' in printed


def test_the_check_passes_where_the_values_share_nothing():
    """The same program with a copy: the check lets it run, and the gradient is right
    (d/dx sum(2x * (2x + 1)) = 8x + 2)."""

    def copied_then_changed(x):
        b = x * 2.0
        c = b.copy()
        c += 1.0
        return np.sum(b * c)

    np.testing.assert_allclose(srcgrad.grad(copied_then_changed)(X), 8 * X + 2, rtol=1e-12)
