"""The walrus operator in programs with branches and loops: gradients against central
differences (float64) and the analytic answer, jvp against the gradient, Hessians
against differences of the gradient, inputs left as they were; the walruses that stay
refused, with their messages."""

import numpy as np
import pytest

import srcgrad
from program_checks import check, check_hessian


# ------------------------------------------------------------------------------- walrus


def walrus_if_test(x):
    if (n := np.sum(x * x)) > 1.0:
        return n * x[0]
    return n


def walrus_while_test(a, b):
    s, k = 0.0, 0
    while (term := b * a ** k) is not None and k < 4:  # runs 5 times: term is b a^4 after
        s = s + term
        k += 1
    return s * term


def walrus_while_break_continue(x):
    n, total = 0, 0.0
    while (v := x[n] * x[n]) < 2.0:
        n += 1
        if v < 0.05:
            continue
        total = total + v
        if n >= 2:
            break
    return total + v


def walrus_read_before_and_after(a, b):
    return a + (a := b * 2.0) * a  # a + 4 b^2


def walrus_augmented(a, b):
    x = a
    x += (x := b) * 2.0  # a + 2 b
    return x * a


def walrus_index_then_value(x):
    y = np.zeros(4)
    i = 0
    y[i] = (i := i + 1) * x[0]  # the value first: y[1] = x0
    y[i] = (i := i + 2) * x[1]  # y[3] = 3 x1
    return np.sum(y * np.arange(4.0)) + i * x[2]


def walrus_short_circuit(a, b):
    s = 0.0
    if a > 0 and (c := a * b) > 0.1:
        s = c * c
    elif (c := a - b) < 0:
        s = c * 3.0
    return s + a


def walrus_conditional_branch(a, b):
    y = a
    z = (y := b * 2.0) if a > 0 else y * 3.0
    return z * y


def walrus_comprehension_filter(x):
    kept = [v for e in x if (v := e * e + e) > 0.0]
    return sum(kept) * v  # v: the last entry's, kept or not


def walrus_running_sum(x):
    s = 0.0
    sums = [(s := s + e) for e in x]
    return sums[-1] * sums[0] + s


def walrus_dict_display(a, b):
    k = "p"
    d = {k: a, (k := "q"): b}  # key, value, key, value
    return d["p"] * 2.0 + d["q"] * 3.0


def walrus_in_nested_def(a):
    def inner(t):
        if (u := t * t) > 0.2:
            return u * t
        return u

    return inner(a) + (w := a * 3.0) * w


@pytest.mark.parametrize("fn, args, expected", [
    (walrus_if_test, (np.array([1.0, 2.0, 0.5]),), ([7.25, 4.0, 1.0],)),  # n x0: (n + 2 x0^2, 2 x0 x1, 2 x0 x2)
    (walrus_if_test, (np.array([0.1, 0.2, 0.5]),), ([0.2, 0.4, 1.0],)),
    (walrus_while_test, (0.7, 0.3), (0.09 * sum(k * 0.7 ** (k - 1) for k in range(4, 8)),  # b^2 (a^4 + ... + a^7)
                                      0.6 * sum(0.7 ** k for k in range(4, 8)))),
    (walrus_while_break_continue, (np.array([0.1, 1.0, 0.5, 3.0]),), ([0.0, 4.0, 0.0, 0.0],)),
    (walrus_while_break_continue, (np.array([0.5, 1.0, 0.5, 3.0]),), ([1.0, 4.0, 0.0, 0.0],)),
    (walrus_read_before_and_after, (0.7, 0.3), (1.0, 8 * 0.3)),
    (walrus_augmented, (0.7, 0.3), (2 * 0.7 + 2 * 0.3, 2 * 0.7)),
    (walrus_index_then_value, (np.array([1.0, 2.0, 0.5]),), ([1.0, 9.0, 3.0],)),
    (walrus_short_circuit, (0.7, 0.3), (1 + 2 * 0.7 * 0.09, 2 * 0.49 * 0.3)),
    (walrus_short_circuit, (0.2, 0.3), (4.0, -3.0)),  # c = a - b < 0
    (walrus_short_circuit, (-0.2, 0.3), (4.0, -3.0)),  # `a > 0` false: the walrus of the first test never runs
    (walrus_conditional_branch, (0.7, 0.3), (0.0, 8 * 0.3)),
    (walrus_conditional_branch, (-0.7, 0.3), (6 * -0.7, 0.0)),
    (walrus_comprehension_filter, (np.array([1.0, -0.5, 0.5]),), ([3 * 0.75, -0.0 * 0.75, 2 * 0.75 + 2 * 2.75],)),
    (walrus_running_sum, (np.array([1.0, -0.2, 0.5]),), ([1.0 + 1.3 + 1.0, 2.0, 2.0],)),
    (walrus_dict_display, (0.3, 1.2), (2.0, 3.0)),
    (walrus_in_nested_def, (0.7,), (3 * 0.49 + 18 * 0.7,)),
    (walrus_in_nested_def, (0.2,), (0.4 + 18 * 0.2,)),
])
def test_walrus(fn, args, expected):
    check(fn, *args, expected=expected)


def test_walrus_hessians():
    check_hessian(walrus_while_test, (0.7, 0.3), 1, [[2 * sum(0.7 ** k for k in range(4, 8))]])
    check_hessian(walrus_if_test, (np.array([1.0, 2.0, 0.5]),), 0)
    check_hessian(walrus_running_sum, (np.array([1.0, -0.2, 0.5]),), 0)
    check_hessian(walrus_read_before_and_after, (0.7, 0.3), 1, [[8.0]])


def test_walrus_reads_get_python_values_in_generated_code():
    text = srcgrad.source(srcgrad.grad(walrus_read_before_and_after, wrt=(0, 1)))
    assert not [line for line in text.splitlines() if ":=" in line.split("#")[0]]  # only in comments


def walrus_in_lambda(a):
    f = lambda t: (u := t * t) + u  # noqa: E731
    return f(a)


def walrus_in_assert(a):
    assert (b := a * 2.0) > -100.0
    return a * b


def walrus_twice(a):
    return (b := a * 2.0) + (b := a * 3.0)


def walrus_in_fstring(a):
    label = f"{(b := a)}"
    return a * 2.0


@pytest.mark.parametrize("fn, line, message", [
    (walrus_in_lambda, walrus_in_lambda.__code__.co_firstlineno + 1, "the walrus operator `:=` inside a `lambda`"),
    (walrus_in_assert, walrus_in_assert.__code__.co_firstlineno + 1, "the walrus operator `:=` in an `assert`"),
    (walrus_twice, walrus_twice.__code__.co_firstlineno + 1, "two walruses `b := ...` in one statement"),
    (walrus_in_fstring, walrus_in_fstring.__code__.co_firstlineno + 1, "the walrus operator `:=` inside an f-string"),
])
def test_walrus_refused(fn, line, message):
    with pytest.raises(srcgrad.SrcGradError) as info:
        srcgrad.grad(fn)(0.7)
    assert message in str(info.value) and f"(in `{fn.__name__}`)" in str(info.value)
    assert info.value.filename == __file__ and info.value.lineno == line


def walrus_alias_written(x):
    y = x * 1.0
    if (z := y[1:]) is not None:
        z += 1.0  # changes y too
    return np.sum(y * y)


def test_walrus_alias_then_in_place_write_is_refused():
    with pytest.raises(srcgrad.NotDifferentiableError, match="may share memory with `y`"):
        srcgrad.grad(walrus_alias_written)(np.array([1.0, 2.0, 3.0]))
