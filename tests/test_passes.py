"""Passes one by one: the code after a stage (as `verbose="stages"` prints it), source in,
source out, for the passes that rewrite real Python (ANF, iteration, closures, mutation)."""

import math
import re
import textwrap

import numpy as np
import pytest

import corpus_python
from conftest import numerical_grad
import srcgrad
from srcgrad.compiler import cache


def _stages(fn, capsys, **kwargs):
    """{stage name: code after it} for the derivative of `fn` (built now: a derivative
    another test built is cached and prints nothing)."""
    cache.clear()
    srcgrad.grad(fn, verbose="stages", **kwargs)
    text = capsys.readouterr().out
    parts = re.split(r"^--- after (.*) ---$", text, flags=re.M)
    return {name: body.strip("\n") for name, body in zip(parts[1::2], parts[2::2])}


def _body(text):
    """The statements of the printed function, dedented."""
    return textwrap.dedent("\n".join(text.splitlines()[1:]))


def rows(X):
    s = 0.0
    for row in X:
        s = s + np.sum(row)
    return s


def test_iteration_reads_each_row_by_index(capsys):
    assert _body(_stages(rows, capsys)["iteration"]) == textwrap.dedent("""\
        s = 0.0
        for i in range(len(X)):
            row = X[i]
            sum_row = np.sum(row)
            s_plus_sum_row = s + sum_row
            s = s_plus_sum_row
        return s""")


def pairs(x, y):
    s = 0.0
    for k, (a, b) in enumerate(zip(x, y)):
        s = s + k * a * b
    return s


def test_iteration_reads_enumerate_of_zip_by_index(capsys):
    body = _body(_stages(pairs, capsys)["iteration"])
    assert textwrap.dedent("""\
        for i in range(min(len(x), len(y))):
            x_i = x[i]
            y_i = y[i]
            k = i
            item_1 = (x_i, y_i)
            a = item_1[0]
            b = item_1[1]""") in body
    x, y = np.array([1.0, 2.0, 3.0]), np.array([0.5, -1.0, 2.0])
    gx, gy = srcgrad.grad(pairs, wrt=(0, 1))(x, y)
    np.testing.assert_allclose(gx, np.arange(3) * y)
    np.testing.assert_allclose(gy, np.arange(3) * x)


def comprehension(xs):
    return sum([x * x for x in xs if x > 0])


def test_anf_builds_a_comprehension_with_append(capsys):
    body = _body(_stages(comprehension, capsys)["ANF"])
    assert body == textwrap.dedent("""\
        items = []
        for x_1 in xs:
            x_1_gt_0 = x_1 > 0
            if x_1_gt_0:
                x_1_times_x_1 = x_1 * x_1
                items.append(x_1_times_x_1)
        out = sum(items)
        return out""")


def nested(x):
    def twice(v):
        return v * 2.0

    return twice(x) + twice(x * x)


def test_closures_inline_a_nested_function_at_each_call(capsys):
    body = _body(_stages(nested, capsys)["ANF"])
    assert "def twice" not in body and "twice(" not in body
    assert body.count("* 2.0") == 2


def buffer(x):
    y = np.zeros(3)
    y[0] = x[0] * x[1]
    y[1] = np.sin(x[2])
    return np.sum(y * y)


def test_mutation_is_undone_in_the_backward_pass():
    text = srcgrad.source(srcgrad.grad(buffer))
    assert "tape.append(snapshot(y[1]))" in text and "y[1] = tape.pop()" in text
    assert "without_part(y_bar, 1)" in text
    x = np.array([0.3, -0.7, 1.1])
    y = np.array([x[0] * x[1], np.sin(x[2]), 0.0])
    expected = np.array([2 * y[0] * x[1], 2 * y[0] * x[0], 2 * y[1] * np.cos(x[2])])
    np.testing.assert_allclose(srcgrad.grad(buffer)(x), expected, rtol=1e-12)


def view_written(x):
    y = x * 2.0
    head = y[0:2]
    y[0] = 5.0
    return np.sum(head * x[0:2])


def test_a_view_used_after_a_write_into_its_base_is_refused():
    with pytest.raises(srcgrad.NotDifferentiableError, match=r"line \d+ \(`head = y\[0:2\]`\).*changes in place"):
        srcgrad.grad(view_written)


def argument_written(x):
    x[0] = 0.0
    return np.sum(x)


def test_writing_into_an_argument_is_refused_with_the_fix():
    with pytest.raises(srcgrad.NotDifferentiableError, match=r"copy it first \(`x = x.copy\(\)`\)"):
        srcgrad.grad(argument_written)


def aliased_update(x):
    y = x * 1.0
    z = y
    z += 1.0
    return np.sum(y * z)


def test_augmented_assignment_through_an_alias_is_refused_for_arrays_only():
    with pytest.raises(srcgrad.NotDifferentiableError, match="shares memory with `y`"):
        srcgrad.grad(aliased_update)(np.ones(2))
    assert srcgrad.grad(aliased_update)(1.5) == pytest.approx(2 * 1.5 + 1.0)  # floats: `z = z + 1.0`


def test_anf_names_inner_displays_so_each_entry_gets_its_gradient(capsys):
    nested_lists = corpus_python.list_of_lists
    assert "part = [a, b]" in _body(_stages(nested_lists, capsys, wrt=(0, 1))["ANF"])
    assert srcgrad.grad(nested_lists, wrt=(0, 1))(2.0, 3.0) == pytest.approx((2 * 2 + 2 * 6 * 3, 2 * 3 + 2 * 6 * 2))


def built(x):
    y = np.zeros(3)
    y[0] = x[0] * 2.0
    y[1] = y[0] * x[1]
    return y


def test_the_output_of_vjp_survives_its_pullback():
    x = np.array([0.5, 1.5, 2.0])
    out, pullback = srcgrad.vjp(built, x)
    (g,) = pullback(np.ones(3))
    np.testing.assert_allclose(out, [1.0, 1.5, 0.0])  # the backward pass undid the writes on its own copy
    np.testing.assert_allclose(g, [2.0 + 2.0 * x[1], 2.0 * x[0], 0.0])


def scatter_in_place(x):
    y = np.zeros(3)
    np.multiply.at(y, [0, 0, 1], x)  # np.add.at, maximum.at, minimum.at are differentiated (test_scatter_add.py); multiply.at is not
    return np.sum(y * y)


def out_argument(x):
    y = np.zeros(3)
    np.multiply(x, 2.0, out=y, where=x > 0.0)  # a partial write (a full one is y[...] = ...: array_writes.py)
    return np.sum(y)


GLOBAL_BUFFER = np.zeros(3)


def global_written(x):
    GLOBAL_BUFFER[0] = x[0]
    return np.sum(GLOBAL_BUFFER * GLOBAL_BUFFER)


@pytest.mark.parametrize("fn, says", [
    (scatter_in_place, "may change a differentiated value in place"),
    (out_argument, "may change a differentiated value in place"),
    (global_written, "which `global_written` does not make, in place"),
])
def test_in_place_effects_srcgrad_cannot_follow_are_refused(fn, says):
    with pytest.raises(srcgrad.NotDifferentiableError, match=re.escape(says)):
        srcgrad.grad(fn)


def test_writes_into_a_dict_add_keys_and_the_undo_removes_them():
    dict_filled = corpus_python.dict_filled_in_place
    # f = 2ab(a + b)
    assert srcgrad.grad(dict_filled, wrt=(0, 1))(2.0, 3.0) == pytest.approx((42.0, 32.0))
    assert "restore_entry(d, 'u', tape.pop())" in srcgrad.source(srcgrad.grad(dict_filled))


@pytest.mark.parametrize("fn", [scatter_in_place, out_argument])
def test_forward_mode_refuses_the_same_in_place_effects(fn):
    with pytest.raises(srcgrad.NotDifferentiableError, match="may change a differentiated value in place"):
        srcgrad.jvp(fn, (np.ones(3),), (np.ones(3),))


def while_breaks_before_retesting(a, b):
    u = a * 0.5
    v = np.sin(b)
    n = 0
    while n < 3 and (np.sin(u) + np.cos(b)) > 0.0:
        n = n + 1
        if u > -0.5:
            break
        v = u * 1.3
    return u * v


def test_a_while_test_with_statements_is_recomputed_only_on_paths_that_do_not_break():
    a, b = 0.5, 0.3
    ga, gb = srcgrad.grad(while_breaks_before_retesting, wrt=(0, 1))(a, b)
    assert (ga, gb) == pytest.approx((0.5 * np.sin(b), 0.25 * np.cos(b)))


def loop_with_nothing_to_differentiate(a, b):
    u = a * 0.5
    v = np.sin(b)
    if a > 0.0:
        u = np.tanh(v - b)
        for i in range(1, 3):
            if v > -0.5:
                break
    return u * v


def test_a_loop_with_a_break_and_nothing_to_differentiate_keeps_no_trip_count():
    b = 0.3
    u = np.tanh(np.sin(b) - b)
    du = (1 - u * u) * (np.cos(b) - 1)
    assert srcgrad.grad(loop_with_nothing_to_differentiate, wrt=(0, 1))(0.5, b) == pytest.approx(
        (0.0, du * np.sin(b) + u * np.cos(b)))
    assert "trips" not in srcgrad.source(srcgrad.grad(loop_with_nothing_to_differentiate))


def nested_recursion(x, n):
    def power(v, k):
        if k == 0:
            return 1.0
        return v * power(v, k - 1)

    return power(x, n) + np.sin(x)


def test_a_nested_function_that_calls_itself_is_differentiated_through_its_own_pullback():
    assert srcgrad.grad(nested_recursion)(1.5, 3) == pytest.approx(3 * 1.5 ** 2 + np.cos(1.5))
    out, out_dot = srcgrad.jvp(nested_recursion, (1.5, 3), (1.0, None))
    assert out_dot == pytest.approx(3 * 1.5 ** 2 + np.cos(1.5))


def _factored(text, types):
    """The body of `text` after factoring.py, with K = 0.25 and J = -0.25 bound."""
    import gast

    from srcgrad.compiler import factoring
    from srcgrad.compiler.naming import Namer

    tree = gast.parse(textwrap.dedent(text)).body[0]
    namer = Namer()
    namer.helpers.update(K=np.float64(0.25), J=np.float64(-0.25), H=np.float64(0.5))
    factoring.run(tree, namer, types)
    return _body(srcgrad.compiler.printing.unparse(tree)).splitlines()


@pytest.mark.parametrize(
    ("second", "joined"),
    [
        ("v = v + K * s", "v = K * (y + s)"),
        ("v = K * s + v", "v = K * (y + s)"),
        ("v = v + J * s", "v = J * (s - y)"),
        ("v = v + s * J", "v = J * (s - y)"),
        ("v = v + H * s", None),  # different factors
        ("v = v + K * v", None),  # reads v
        ("v = v - K * s", None),  # not a sum
    ],
)
def test_factoring_joins_two_terms_with_one_factor(second, joined):
    text = f"def f(y, s):\n    v = K * y\n    {second}\n    return v\n"
    body = _factored(text, {"y": np.dtype(np.float64), "s": np.dtype(np.float64)})
    assert body == ([joined, "return v"] if joined else ["v = K * y", second, "return v"])


@pytest.mark.parametrize("dtype", [np.bool_, None])
def test_factoring_leaves_boolean_or_unknown_terms_apart(dtype):
    """True + True is 2 as two terms and True (`or`) as one: both must be numbers-proof."""
    types = {} if dtype is None else {"y": np.dtype(dtype), "s": np.dtype(dtype)}
    body = _factored("def f(y, s):\n    v = K * y\n    v = v + K * s\n    return v\n", types)
    assert body == ["v = K * y", "v = v + K * s", "return v"]
    body = _factored("def f(y, s):\n    v = K * y\n    v = v + K * (0.5 * s)\n    return v\n", types)
    assert body == ["v = K * (y + 0.5 * s)", "return v"]


def buffer_in_loop(x):
    y = np.zeros(3)
    s = 0.0
    for i in range(3):
        y[i] = x[i] * x[(i + 1) % 3]
        if s < 1.0:
            s = s + np.sum(y * y)
    return s


def test_each_build_of_a_loop_with_tape_markers_gets_the_gradient():
    """The first build consumes the sweeps made at `srcgrad.grad`, and later builds make
    them again (pipeline._sweeps_for_each_build): saves, restores and undos in a loop,
    which later passes rewrite in place, give the same gradient in the general code
    (built after the specialization) as in the specialized one."""
    x = np.array([0.3, -0.7, 1.1])
    df = srcgrad.grad(buffer_in_loop)
    h, fd = 1e-6, np.zeros(3)
    for k in range(3):
        e = np.eye(3)[k] * h
        fd[k] = (buffer_in_loop(x + e) - buffer_in_loop(x - e)) / (2 * h)
    np.testing.assert_allclose(df(x), fd, rtol=1e-6)  # the specialized code, the first build
    general = srcgrad.source(df)  # the general code, built again from the start
    assert general.count(".pop()") >= 2 and "append" in general  # the tape, lowered
    np.testing.assert_allclose(df(x=x), fd, rtol=1e-6)
    assert srcgrad.source(df) == general


def imports_inside(x, y):
    import numpy as onp
    from math import sin as s
    from numpy.linalg import norm

    if s(y[0]) > 2.0:
        import math

        return math.exp(y[0]) * onp.sum(x)
    return onp.sum(onp.tanh(x) * y) + s(y[0]) + norm(x)


def test_imports_inside_the_function_resolve_like_globals():
    x, y = np.array([0.5, -1.0, 2.0]), np.array([1.5, 0.2, -0.4])
    gx, gy = srcgrad.grad(imports_inside, wrt=(0, 1))(x, y)
    exact_x = (1 - np.tanh(x) ** 2) * y + x / np.linalg.norm(x)
    exact_y = np.tanh(x) + np.array([np.cos(y[0]), 0.0, 0.0])
    np.testing.assert_allclose(gx, exact_x, rtol=1e-13)
    np.testing.assert_allclose(gy, exact_y, rtol=1e-13)
    _, tangent = srcgrad.jvp(imports_inside, (x, y), (np.ones(3), np.zeros(3)))
    assert tangent == pytest.approx(float(np.sum(exact_x)), rel=1e-13)
    H = srcgrad.hessian(imports_inside)(x, y)
    r = np.linalg.norm(x)
    expected = np.diag(-2 * np.tanh(x) * (1 - np.tanh(x) ** 2) * y) + (np.eye(3) - np.outer(x, x) / r ** 2) / r
    np.testing.assert_allclose(H, expected, rtol=1e-12, atol=1e-14)
    text = srcgrad.source(srcgrad.grad(imports_inside, wrt=(0, 1)))
    assert "    import numpy as onp\n" in text and "from numpy.linalg import norm" in text
    assert "Gradient of imports_inside (" in text  # imports are not parameter bindings
    big = np.array([np.pi / 2 + 1.0, 0.0, 0.0])  # sin(y[0]) > 2 never holds: the other return is dead
    assert srcgrad.grad(imports_inside, wrt=1)(x, big)[0] == pytest.approx(np.tanh(x[0]) + np.cos(big[0]), rel=1e-13)


def stop_inside(x):
    import srcgrad

    c = srcgrad.stop_gradient(np.sum(x))
    return np.sum(x * c)


def test_stop_gradient_through_a_module_imported_in_the_function():
    x = np.array([0.5, -1.0, 2.0, 0.25])
    np.testing.assert_allclose(srcgrad.grad(stop_inside)(x), np.full(4, np.sum(x)), rtol=1e-15)


def imports_missing(x):
    import srcgrad_no_such_module

    return srcgrad_no_such_module.f(x)


def test_an_import_that_fails_is_an_error_at_its_line():
    with pytest.raises(srcgrad.SrcGradError) as info:
        srcgrad.grad(imports_missing)
    assert "cannot import in `imports_missing`" in str(info.value) and "srcgrad_no_such_module" in str(info.value)
    assert info.value.text.strip() == "import srcgrad_no_such_module"


def attributes_of_expressions(A):
    return np.sum(np.triu(A).T * A) + np.sum(A[0].T) + np.sum((2 * A).T @ A) + np.sum(A.T.T)


def test_an_attribute_of_an_expression_reads_the_temporary_anf_names():
    """ANF names `np.triu(A)` with a temporary: `.T` on it is an operation on a local
    value, differentiated like `A.T` (it was taken for a global chain like `np.pi`)."""
    A = np.arange(9.0).reshape(3, 3) / 7
    first_row = np.zeros((3, 3))
    first_row[0] = 1.0
    # sum(triu(A).T * A) pairs A[i, j] with A[j, i] for i >= j; sum((2A).T @ A) = 2 sum_k (row sum k)^2
    expected = A.T * (1 + np.eye(3)) + first_row + 4 * A.sum(axis=1)[:, None] + 1.0
    g = srcgrad.grad(attributes_of_expressions)(A)
    np.testing.assert_allclose(g, expected, rtol=1e-13)
    np.testing.assert_allclose(g, numerical_grad(attributes_of_expressions, (A,), 0), rtol=1e-7, atol=1e-8)
    _, tangent = srcgrad.jvp(attributes_of_expressions, (A,), (np.ones((3, 3)),))
    assert tangent == pytest.approx(float(np.sum(expected)), rel=1e-13)


def keeps_in_a_ternary(x):
    r = x * 2
    r = r if x > 0 else x * 3
    return r


def keeps_in_a_branch(x):
    r = x * 2
    if x > 0:
        r = r
    return r * x


def running_max_by_ternary(x):
    r = x[0]
    for k in range(1, len(x)):
        r = r if r > x[k] else x[k] * 1.0
    return r


def keeps_in_a_loop(x):
    r = x
    for i in range(3):
        r = r if i == 1 else r * 2
    return r


@pytest.mark.parametrize("fn, args, expected", [
    (keeps_in_a_ternary, (0.5,), 2.0),
    (keeps_in_a_ternary, (-0.5,), 3.0),
    (keeps_in_a_branch, (0.5,), 4 * 0.5),
    (running_max_by_ternary, (np.array([0.5, 1.7, 1.2]),), np.array([0.0, 1.0, 0.0])),
    (running_max_by_ternary, (np.array([2.5, 1.7, 1.2]),), np.array([1.0, 0.0, 0.0])),
    (keeps_in_a_loop, (0.7,), 4.0),
])
def test_an_assignment_of_a_name_to_itself_in_a_block_keeps_its_gradient(fn, args, expected):
    """`r = r` inside a branch or loop (a ternary's `r if c else ...` too) changes
    nothing; it was differentiated as an assignment reading its own target, doubling
    the adjoint and then dropping it (gradient 0)."""
    g = srcgrad.grad(fn)(*args)
    np.testing.assert_allclose(g, expected, rtol=1e-13)
    np.testing.assert_allclose(g, numerical_grad(fn, args, 0), rtol=1e-6, atol=1e-8)
    _, tangent = srcgrad.jvp(fn, args, (np.ones_like(args[0]) if np.ndim(args[0]) else 1.0,))
    assert tangent == pytest.approx(float(np.sum(expected)), rel=1e-12)


def defined_in_one_branch(x):
    if np.sum(x) > 0:
        z = x ** 2
    if np.sum(x) > 0:
        return np.sum(z)
    return 0.0


def flag_and_value(x):
    if x > 0:
        a = x * 2
        flag = True
    else:
        flag = False
    if flag:
        return a * x
    return x


def last_of_a_loop(x, n):
    s = x
    for i in range(n):
        y = x * i
    if n > 0:
        s = s + y
    return s


def halving(x):
    i = 0
    while x > 1.0:
        y = x / 2
        x = y
        i += 1
    if i > 0:
        return y * 3
    return x


@pytest.mark.parametrize("fn, args, expected", [
    (defined_in_one_branch, (np.ones(3),), 2 * np.ones(3)),
    (defined_in_one_branch, (-np.ones(3),), np.zeros(3)),
    (flag_and_value, (0.5,), 4 * 0.5),
    (flag_and_value, (-0.5,), 1.0),
    (last_of_a_loop, (0.5, 0), 1.0),
    (last_of_a_loop, (0.5, 3), 3.0),
    (halving, (0.5,), 1.0),
    (halving, (3.0,), 0.75),
])
def test_a_variable_a_path_leaves_unassigned_starts_as_none_where_its_zero_gradient_reads_it(fn, args, expected):
    """The backward pass starts an adjoint at `zeros_like_grad(z)` where branches or loop
    iterations disagree on it; on a path that never assigned `z` that raised
    UnboundLocalError. Such a `z` is now None before the forward pass."""
    g = srcgrad.grad(fn)(*args)
    np.testing.assert_allclose(g, expected, rtol=1e-13)
    np.testing.assert_allclose(g, numerical_grad(fn, args, 0), rtol=1e-6, atol=1e-8)
    value, g2 = srcgrad.value_and_grad(fn)(*args)
    assert value == fn(*args) and np.array_equal(g2, g)
    out, pullback = srcgrad.vjp(fn, *args)
    np.testing.assert_allclose(pullback(1.0)[0], expected, rtol=1e-13)


def test_a_variable_every_path_assigns_gets_no_none_start():
    text = srcgrad.source(srcgrad.grad(flag_and_value))
    assert "    a = None\n" in text and "x = None" not in text
    assert "= None" not in srcgrad.source(srcgrad.grad(corpus_python.for_continue_on_data))


def parameter_rebound_in_a_loop(x, y):
    s = np.sum(x * y)
    for i in range(3):
        x = y[i] * 2.0
        s = s + x
    return s


def parameter_replaced_in_a_loop(x):
    s = np.sum(x ** 2)
    for i in range(2):
        x = 3.0 * i
        s = s + x
    return s


def test_a_parameter_assigned_first_thing_in_a_loop_body_keeps_its_value_for_the_backward_pass():
    """Such a parameter was taken for an iteration-local value (pushed at the end of each
    iteration, popped at the start of its backward one), so after the backward loop it
    held the first iteration's value, not the argument: `np.sum(x * y)`'s adjoint read a
    float for x, and the gradient of x was a float for an array argument."""
    x, y = np.array([0.5, 1.0, 2.0]), np.array([1.5, 2.0, 3.0])
    gx, gy = srcgrad.grad(parameter_rebound_in_a_loop, wrt=(0, 1))(x, y)
    np.testing.assert_allclose(gx, y, rtol=1e-13)
    np.testing.assert_allclose(gy, x + 2.0, rtol=1e-13)
    np.testing.assert_allclose(gy, numerical_grad(parameter_rebound_in_a_loop, (x, y), 1), rtol=1e-6)
    g = srcgrad.grad(parameter_replaced_in_a_loop)(x)
    assert type(g) is np.ndarray and g.shape == (3,)
    np.testing.assert_allclose(g, 2 * x, rtol=1e-13)


def loop_variable_assigned_in_an_earlier_loop(x):
    out = 0.0
    for j in range(len(x)):
        c = j + 1.0
        out += c * x[j]
    for c in range(2):
        out += c
    return out


def enumerate_index_reused_later(x):
    out = 0.0
    for i, v in enumerate(x, start=1):
        out += i * v
    for i in range(1):
        out += x[i]
    if x[0] > 0.0:
        for m in range(2):
            pass
    return out


def scale_reused_by_a_loop_with_nothing_to_differentiate(x):
    out = 0.0
    for j in range(len(x)):
        m = j + 1.0
        out += m * x[j]
    for m in range(2):
        pass
    return out


def test_a_loop_variable_that_an_earlier_loop_assigns_is_restored_for_that_loops_backward_pass():
    """The earlier loop's backward pass reads the name's last value (each backward iteration
    restores the one before); a later `for` over the same name did not bring it back where
    the name was only maybe defined before it (assigned in a loop body), nor where the later
    loop had nothing to differentiate: the gradient's last entry was 0, not 3."""
    x = np.array([0.5, -1.5, 2.0])
    for fn, expected in [
        (loop_variable_assigned_in_an_earlier_loop, [1.0, 2.0, 3.0]),
        (enumerate_index_reused_later, [2.0, 2.0, 3.0]),
        (scale_reused_by_a_loop_with_nothing_to_differentiate, [1.0, 2.0, 3.0]),
    ]:
        g = srcgrad.grad(fn)(x)
        np.testing.assert_allclose(g, expected, rtol=1e-13)
        np.testing.assert_allclose(g, numerical_grad(fn, (x,), 0), rtol=1e-7)
        np.testing.assert_allclose(srcgrad.vjp(fn, x)[1](1.0)[0], expected, rtol=1e-13)


def grows_the_list_it_loops_over(a):
    lst = [a]
    for v in lst:
        if len(lst) < 3:
            lst.append(v * a)
    return sum(lst)


def shrinks_the_list_it_loops_over(a, b, c):
    lst = [a, b, c]
    out = 0.0
    for v in enumerate(lst):
        if len(lst) > 1:
            lst.pop()
        out += v[1]
    return out


def grows_the_list_with_an_index(a):
    lst = [a]
    i = 0
    while i < len(lst):
        v = lst[i]
        if len(lst) < 3:
            lst.append(v * a)
        i += 1
    return sum(lst)


def test_a_loop_that_resizes_its_list_is_refused_and_the_index_loop_it_names_differentiates():
    """The loop counted its trips from the list's length when it started: the appended
    entries were never visited (value 0.75 and gradient 2.0 for 0.875 and 2.75), and a
    popping body crashed with an IndexError in the generated code."""
    for fn, args, call, line in [(grows_the_list_it_loops_over, (0.5,), "lst.append", 4),
                                 (shrinks_the_list_it_loops_over, (1.0, 2.0, 3.0), "lst.pop", 5)]:
        with pytest.raises(srcgrad.SrcGradError, match=rf"`{call}\(\.\.\.\)` in a loop over `lst` is not supported") as info:
            srcgrad.value_and_grad(fn, wrt=tuple(range(len(args))))(*args)
        assert info.value.lineno == fn.__code__.co_firstlineno + line and "while i < len(lst):" in str(info.value)
    value, g = srcgrad.value_and_grad(grows_the_list_with_an_index)(0.5)
    assert value == grows_the_list_with_an_index(0.5) == 0.875
    assert g == pytest.approx(1.0 + 2.0 * 0.5 + 3.0 * 0.25, rel=1e-13)
    assert g == pytest.approx(numerical_grad(grows_the_list_with_an_index, (0.5,), 0), rel=1e-7)


def loops_over_itself(x):
    s = 0.0
    for x in x:
        s = s + x ** 2
    return s + x


def enumerates_itself(x):
    s = 0.0
    for i, x in enumerate(x):
        s = s + x * i
    return s


def zips_itself(x, y):
    s = 0.0
    for x, y in zip(x, y):
        s = s + x * y
    return s


def rebinds_its_dict(d):
    s = 0.0
    for k, v in d.items():
        d = {"a": v * 10, "b": v * 10}
        s = s + v
    return s


def rebinds_a_zipped_sequence(x, y):
    pairs = zip(x, y)
    s = 0.0
    for a, b in pairs:
        x = x * 2
        s = s + a * b
    return s


def test_a_loop_reads_the_sequences_its_header_named_when_the_body_or_target_rebinds_them():
    """`for x in x:` indexed the loop's own item (IndexError), and a dict or a zipped
    sequence rebound in the body was read anew in later iterations (wrong value and
    gradient, silently): the loop now reads the objects its header named."""
    x, y = np.array([0.5, 1.0, 2.0]), np.array([1.5, 2.0, 3.0])
    g = srcgrad.grad(loops_over_itself)(x)
    np.testing.assert_allclose(g, 2 * x + np.array([0.0, 0.0, 1.0]), rtol=1e-13)
    np.testing.assert_allclose(srcgrad.grad(enumerates_itself)(x), [0.0, 1.0, 2.0], rtol=1e-13)
    gx, gy = srcgrad.grad(zips_itself, wrt=(0, 1))(x, y)
    np.testing.assert_allclose(gx, y, rtol=1e-13)
    np.testing.assert_allclose(gy, x, rtol=1e-13)
    value, g = srcgrad.value_and_grad(rebinds_its_dict)({"a": 0.5, "b": 1.5})
    assert value == 2.0 and g == {"a": 1.0, "b": 1.0}
    value, (gx, gy) = srcgrad.value_and_grad(rebinds_a_zipped_sequence, wrt=(0, 1))(x, y)
    assert value == rebinds_a_zipped_sequence(x, y)
    np.testing.assert_allclose(gx, y, rtol=1e-13)
    np.testing.assert_allclose(gy, numerical_grad(rebinds_a_zipped_sequence, (x, y), 1), rtol=1e-6)


def zip_iterated_twice(x, y):
    pairs = zip(x, y)
    s = 0.0
    for a, b in pairs:
        s = s + a * b
    for a, b in pairs:  # Python: the iterator ran out, nothing happens
        s = s + a * b
    return s


def reversed_iterated_twice(x):
    r = reversed(x)
    s = 0.0
    for v in r:
        s = s * 0.5 + v
    for v in r:
        s = s * 0.5 + v
    return s


def zipped_sequence_rebound_before_the_loop(x, y, double):
    pairs = zip(x, y)
    if double:
        x = x * 2
    s = 0.0
    for a, b in pairs:
        s = s + a * b
    return s


@pytest.mark.parametrize("fn, says", [
    (zip_iterated_twice, "is iterated again or used elsewhere"),
    (reversed_iterated_twice, "is iterated again or used elsewhere"),
    (zipped_sequence_rebound_before_the_loop, "is iterated after `x` may have been assigned again"),
])
def test_an_iterator_that_reading_by_index_would_not_follow_is_refused(fn, says):
    """These counted the zip twice or read the new `x` (a wrong value and gradient,
    silently), or failed with AttributeError (the second loop over `reversed`)."""
    with pytest.raises(srcgrad.SrcGradError) as info:
        srcgrad.grad(fn)
    assert says in str(info.value) and "in the `for` statement itself" in str(info.value)


def natural_log(x):
    return math.log(x) + math.log(x, 2)


def log_in_base(x, b):
    return math.log(x, b)


def test_a_rule_s_test_of_a_default_it_was_not_given_is_folded_away():
    """math.log(x) has derivative 1 / x: the rule's `base is None` test is settled where
    the default is inlined (no `math.log(2.718281828459045)` left), and a constant base too."""
    text = srcgrad.source(srcgrad.grad(natural_log))
    assert "(1.0 / x)" in text and "1.0 / (x * math.log(2))" in text
    assert "is None" not in text and "2.718281828459045" not in text
    x = 3.0
    assert srcgrad.grad(natural_log)(x) == pytest.approx(1.0 / x + 1.0 / (x * math.log(2.0)), rel=1e-15)
    assert srcgrad.grad(natural_log)(x) == pytest.approx(numerical_grad(natural_log, (x,), 0), rel=1e-8)
    assert srcgrad.jvp(natural_log, (x,), (2.0,))[1] == pytest.approx(2.0 * (1.0 / x + 1.0 / (x * math.log(2.0))))
    # a base the code reads keeps the test, which is False for every base math.log accepts
    assert srcgrad.grad(log_in_base, wrt=(0, 1))(3.0, 2.5) == pytest.approx(
        (1.0 / (3.0 * math.log(2.5)), -math.log(3.0) / (2.5 * math.log(2.5) ** 2)), rel=1e-12)
