"""The public API's contract: wrt forms, types of gradients, errors with file and line."""

import os
import re

import numpy as np
import pytest

import srcgrad
from conftest import numerical_grad

HERE = os.path.abspath(__file__)


def poly(x, y):
    return np.sum(x * x * y)


def test_wrt_index_name_and_tuple():
    x, y = np.array([1.0, 2.0]), np.array([3.0, 4.0])
    np.testing.assert_allclose(srcgrad.grad(poly)(x, y), 2 * x * y)
    np.testing.assert_allclose(srcgrad.grad(poly, wrt="y")(x, y), x * x)
    gx, gy = srcgrad.grad(poly, wrt=(0, "y"))(x, y)
    np.testing.assert_allclose(gx, 2 * x * y)
    np.testing.assert_allclose(gy, x * x)


def test_decorator_with_and_without_arguments():
    @srcgrad.grad
    def f(a):
        return a * a * a

    @srcgrad.grad(wrt=1)
    def g(a, b):
        return a * b * b

    assert f(2.0) == 12.0
    assert g(2.0, 3.0) == 12.0


def test_float_in_float_out_and_dtypes():
    def f(x):
        return np.sum(np.sin(x))

    assert type(srcgrad.grad(f)(0.5)) is float
    g32 = srcgrad.grad(f)(np.ones(3, dtype=np.float32))
    assert g32.dtype == np.float32 and g32.shape == (3,)
    g0 = srcgrad.grad(f)(np.array(0.5))
    assert isinstance(g0, np.ndarray) and g0.shape == ()
    np.testing.assert_allclose(g0, np.cos(0.5))


def test_value_and_grad():
    value, g = srcgrad.value_and_grad(poly, wrt=0)(np.array([1.0]), np.array([2.0]))
    assert value == 2.0
    np.testing.assert_allclose(g, [4.0])


def test_vjp_pullback_gives_one_gradient_per_argument():
    def f(x, W):
        return np.tanh(W @ x)

    x, W = np.array([0.1, 0.2]), np.array([[1.0, 2.0], [3.0, 4.0]])
    out, pullback = srcgrad.vjp(f, x, W)
    np.testing.assert_allclose(out, f(x, W))
    seed = np.array([1.0, -1.0])
    gx, gW = pullback(seed)
    local = seed * (1 - np.tanh(W @ x) ** 2)
    np.testing.assert_allclose(gx, W.T @ local)
    np.testing.assert_allclose(gW, np.outer(local, x))


def test_unused_argument_gets_zero_gradient():
    def f(x, y):
        return np.sum(x)

    g = srcgrad.grad(f, wrt=1)(np.ones(2), np.ones(3))
    np.testing.assert_array_equal(g, np.zeros(3))


def test_source_is_deterministic_and_readable():
    def f(x):
        return np.sin(x) * x

    text = srcgrad.source(srcgrad.grad(f))
    assert text.startswith("import numpy as np\n") and "\n\n\ndef f_grad(x):" in text  # imports, then the def
    assert "x_bar" in text and "zeros_like" not in text
    assert "test_api.py" in text
    assert text == srcgrad.source(srcgrad.grad(f, verbose=False))


def test_live_globals_are_seen():
    def f(x):
        return x * FACTOR

    globals()["FACTOR"] = 2.0
    df = srcgrad.grad(f)
    assert df(1.0) == 2.0
    globals()["FACTOR"] = 5.0
    assert df(1.0) == 5.0


def _line_of(fn, text):
    import inspect

    lines, start = inspect.getsourcelines(fn)
    return start + next(i for i, line in enumerate(lines) if text in line)


def test_unsupported_construct_names_file_and_line():
    def f(x):
        y = np.zeros(2)
        try:
            y[0] = x * 2
        except ValueError:
            return x
        return y[0]

    with pytest.raises(srcgrad.SrcGradError) as info:
        srcgrad.grad(f)
    err = info.value
    assert isinstance(err, SyntaxError)
    assert err.filename == HERE and err.lineno == _line_of(f, "y[0] = x * 2")
    assert "an assignment to an entry or an attribute inside a `try` block" in str(err.msg) and "in `f`" in str(err.msg)


def test_missing_rule_names_function_and_call_site():
    def f(x):
        return np.sum(np.i0(x))

    with pytest.raises(srcgrad.NotDifferentiableError) as info:
        srcgrad.grad(f)
    assert "numpy.i0" in str(info.value.msg)
    assert info.value.lineno == _line_of(f, "np.i0")
    assert "srcgrad.defvjp" in str(info.value.msg)


def test_non_scalar_output_is_a_type_error_naming_the_shape():
    def f(x):
        return x * 2.0

    with pytest.raises(TypeError, match=r"\(3,\)"):
        srcgrad.grad(f)(np.ones(3))


@pytest.mark.parametrize("bad", [1, True, np.arange(3)])
def test_integer_arguments_are_not_differentiable(bad):
    with pytest.raises(TypeError, match="no gradient"):
        srcgrad.grad(poly)(bad, np.ones(3))


def scaled_entry(p):
    return p["x"] * p["i"]


@pytest.mark.parametrize("transform", [srcgrad.grad, srcgrad.value_and_grad])
@pytest.mark.parametrize("bad, path, kind", [
    ({"x": 0.5, "i": 3}, r"p\['i'\]", "int"),
    ({"x": 0.5, "i": np.bool_(True)}, r"p\['i'\]", "bool"),
    ({"x": np.array([0.5, 1.5]), "i": np.arange(2)}, r"p\['i'\]", "array of int64"),
])
def test_integer_leaves_of_a_dict_argument_are_not_differentiable(transform, bad, path, kind):
    """Like an integer argument (API.md section 1): the error names the leaf's path."""
    with pytest.raises(TypeError, match=rf"`scaled_entry` \(.*\) with respect to `{path}`: it is {kind}, which has "
                       rf"no gradient; pass floats .*, or move it out of `p` into an argument that is not differentiated"):
        transform(scaled_entry)(bad)


def test_an_integer_leaf_is_refused_after_a_float_one_of_the_same_signature():
    """The check runs per call for a dict (its leaves, not its type, decide)."""
    df = srcgrad.grad(scaled_entry)
    assert df({"x": 0.5, "i": 3.0}) == {"x": 3.0, "i": 0.5}
    with pytest.raises(TypeError, match=r"p\['i'\]"):
        df({"x": 0.5, "i": 3})
    assert df({"x": 2.0, "i": 4.0}) == {"x": 4.0, "i": 2.0}


def test_a_nested_integer_leaf_and_vjp():
    nested = {"x": 0.5, "i": [1.0, (True,)]}
    with pytest.raises(TypeError, match=r"`p\['i'\]\[1\]\[0\]`: it is bool"):
        srcgrad.grad(lambda p: p["x"] * p["i"][0])(nested)
    with pytest.raises(TypeError, match=r"`p\['i'\]`: it is int.*pass it as an argument of its own"):
        srcgrad.vjp(scaled_entry, {"x": 0.5, "i": 3})
    out, pullback = srcgrad.vjp(lambda a, n: a * n, 0.5, 3)  # a top-level integer: gradient None
    assert out == 1.5 and pullback(1.0) == (3.0, None)


def masked_squares(mask, x):
    return np.sum(np.where(mask, x, 0.0) ** 2)


def weighted_gather(x, idx):
    return np.sum(x[idx] * idx)


def test_vjp_with_a_mask_or_an_index_array_argument():
    """A boolean or integer array argument gets the gradient None, as the docstring says;
    vjp differentiated with respect to it all the same and refused (no derivative rule
    for `np.where`'s condition, for an index), where grad with respect to `x` worked."""
    mask, x, idx = np.array([True, False, True]), np.array([1.0, 2.0, 3.0]), np.array([0, 2])
    out, pullback = srcgrad.vjp(masked_squares, mask, x)
    assert out == 10.0
    for _ in range(2):
        grads = pullback(1.0)
        assert grads[0] is None
        np.testing.assert_array_equal(grads[1], [2.0, 0.0, 6.0])
    out, pullback = srcgrad.vjp(weighted_gather, x, idx)
    assert out == 6.0
    grads = pullback(2.0)
    np.testing.assert_array_equal(grads[0], [0.0, 0.0, 4.0])
    assert grads[1] is None


@pytest.mark.parametrize("wrt", [2, -3, "z", 1.5])
def test_bad_wrt(wrt):
    with pytest.raises(TypeError, match="poly"):
        srcgrad.grad(poly, wrt=wrt)


def test_inputs_are_not_mutated():
    x = np.array([1.0, 2.0, 3.0])
    before = x.copy()
    srcgrad.grad(lambda_free_sum)(x)
    np.testing.assert_array_equal(x, before)


def lambda_free_sum(x):
    y = x
    y = y * 2.0
    return np.sum(y * x)


def _named_parts(x):
    return {"sq": x * x, "neg": -x}


def test_a_pullback_seed_must_have_the_structure_of_a_dict_or_list_output():
    """A float seed for a dict output failed inside the generated code with IndexError."""
    x = np.array([1.0, 2.0])
    _, pullback = srcgrad.vjp(_named_parts, x)
    np.testing.assert_allclose(pullback({"sq": np.ones(2), "neg": np.ones(2)})[0], 2 * x - 1)
    np.testing.assert_allclose(pullback({"sq": np.ones(2)})[0], 2 * x)  # a missing key is a zero seed
    for seed in (1.0, {"zz": 1.0}, [np.ones(2), np.ones(2)]):
        with pytest.raises(TypeError, match="must have the structure of its output, a dict of 2 entries"):
            pullback(seed)


# --- a vjp's pullback: called any number of times, it changes nothing its caller sees ---


def _vjp_twice(fn, x, analytic):
    """The pullback of `vjp(fn, x)` called twice agrees with grad, the analytic gradient
    and central differences, and leaves x and the output as they were."""
    before = x.copy()
    out, pullback = srcgrad.vjp(fn, x)
    out_before = np.copy(out)
    first, second = pullback(1.0)[0], pullback(1.0)[0]
    np.testing.assert_array_equal(x, before)
    np.testing.assert_array_equal(out, out_before)
    np.testing.assert_allclose(out, fn(x), rtol=1e-15)
    np.testing.assert_allclose(first, analytic, rtol=1e-12, atol=1e-14)
    np.testing.assert_array_equal(second, first)
    np.testing.assert_allclose(srcgrad.grad(fn)(x), analytic, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(first, numerical_grad(fn, (x,), 0), rtol=1e-6, atol=1e-8)


def max_of_appended(x):
    vals = []
    for v in x:
        vals.append(v * 2)
    return max(vals)


def max_of_comprehension(x):
    vals = [v * 2 for v in x]
    return max(vals)


def min_of_comprehension(x):
    vals = [v * 2 for v in x]
    return min(vals)


@pytest.mark.parametrize("fn, at", [(max_of_appended, 2), (max_of_comprehension, 2), (min_of_comprehension, 1)])
def test_max_and_min_of_a_list_built_in_a_loop_under_vjp(fn, at):
    """vjp raised NameError (`vals_1`): the pullback renamed its copy of `vals` in nodes
    that the forward pass's `max(vals)` shared with the backward pass's rule call."""
    x = np.array([0.5, -1.0, 2.0])
    _vjp_twice(fn, x, 2.0 * (np.arange(3) == at))


def written_in_place(x):
    y = x.copy()
    y[0] = y[1] * y[2]
    y[1] = np.sin(y[0])
    return np.sum(y ** 2)


def written_each_iteration(x):
    out = 0.0
    for i in range(3):
        y = np.zeros(2)
        y[0] = x[i]
        y[1] = y[0] * x[i]
        out = out + np.sum(y * y)
    return out


def popped_twice(x):
    ys = [x[0], x[1] * 2, x[2] * 3]
    v = ys.pop(0)
    w = ys.pop()
    return v * w + sum(ys) * v


def dict_written(x):
    d = {"a": x[0]}
    d["b"] = x[1] * 2
    d["a"] = d["a"] * d["b"]
    return d["a"] + d["b"] * x[2]


def rows_written(x):
    A = np.zeros((3, 3))
    for i in range(3):
        A[i, :] = x * (i + 1)
        A[i, i] = A[i, i] ** 2
    return np.sum(A @ x)


def _rows_written_grad(x):
    # sum_i (i+1) * sum_{j != i} x_j^2 + (i+1)^2 x_i^3
    return np.array([2 * x[j] * sum(i + 1 for i in range(3) if i != j) + 3 * (j + 1) ** 2 * x[j] ** 2
                     for j in range(3)])


@pytest.mark.parametrize("fn, analytic", [
    (written_in_place, lambda x: np.array([
        0.0,
        x[2] * (2 * x[1] * x[2] + np.sin(2 * x[1] * x[2])),
        x[1] * (2 * x[1] * x[2] + np.sin(2 * x[1] * x[2])) + 2 * x[2],
    ])),
    (written_each_iteration, lambda x: 2 * x + 4 * x ** 3),
    (popped_twice, lambda x: np.array([3 * x[2] + 2 * x[1], 2 * x[0], 3 * x[0]])),
    (dict_written, lambda x: np.array([2 * x[1], 2 * x[0] + 2 * x[2], 2 * x[1]])),
    (rows_written, _rows_written_grad),
])
def test_a_pullback_called_again_gives_the_same_gradient(fn, analytic):
    """The pullback undid the forward pass's in-place writes on the forward pass's own
    arrays (only its tape was copied), so a second call read the undone values: a wrong
    gradient (zeros for the arrays of earlier loop iterations), a KeyError for a dict.
    It now records what each undo overwrites and puts it back when it returns."""
    x = np.array([0.3, -0.5, 0.7])
    _vjp_twice(fn, x, analytic(x))


def returns_written(x):
    y = x.copy()
    y[0] = y[1] * y[2]
    y[1] = np.sin(y[0])
    return y


def test_a_pullback_leaves_the_output_and_seed_as_they_were():
    x = np.array([0.3, 0.5, 0.7])
    out, pullback = srcgrad.vjp(returns_written, x)
    seed = np.array([1.0, 2.0, 3.0])
    (g,) = pullback(seed)
    np.testing.assert_allclose(out, [0.35, np.sin(0.35), 0.7], rtol=1e-15)
    np.testing.assert_array_equal(seed, [1.0, 2.0, 3.0])
    du = 2.0 * np.cos(0.35) + 1.0  # y0 = u = x1 x2 feeds y0 (seed 1) and y1 = sin(u) (seed 2)
    np.testing.assert_allclose(g, [0.0, du * x[2], du * x[1] + 3.0], rtol=1e-12)
    np.testing.assert_array_equal(pullback(seed)[0], g)


def appended_after_the_loop(x):
    out = 0.0
    for i in range(2):
        lst = [x[i], x[i] * 2]
        out = out + lst[0] * lst[1]
    lst.append(x[2] * 5.0)
    return out + sum(lst)


def rebuilt_in_a_branch(x):
    out = 0.0
    lst = [x[0]]
    for i in range(3):
        if x[i] > 0:
            lst = [x[i], x[i] * 3]
        lst.append(x[i] ** 2)
        out = out + lst[-1] * lst[0]
    return out + sum(lst)


def _rebuilt_in_a_branch_grad(x):
    # at x = (0.3, -0.5, 0.7): x0^3 + x1^2 x0 + x2^3 + sum([x2, 3 x2, x2^2])
    return np.array([3 * x[0] ** 2 + x[1] ** 2, 2 * x[1] * x[0], 3 * x[2] ** 2 + 4 + 2 * x[2]])


@pytest.mark.parametrize("fn, analytic", [
    (appended_after_the_loop, lambda x: np.array([4 * x[0], 4 * x[1] + 3, 5.0])),
    (rebuilt_in_a_branch, _rebuilt_in_a_branch_grad),
])
def test_a_list_on_the_tape_changed_in_place_later_under_vjp(fn, analytic):
    """vjp raised "gradients of containers of different lengths (2 and 3)" or IndexError:
    the tape holds the list object itself, and the pullback undid the later append on a
    copy of the list, so the list on the tape kept the entry. The undo now works on the
    list itself, as grad's does, and is put back when the pullback returns."""
    x = np.array([0.3, -0.5, 0.7])
    _vjp_twice(fn, x, analytic(x))


def _and_in_a_branch_not_taken(x):
    if x < 0.0:
        y = x
    elif x > 1.0 and x < 2.0:
        y = x * 3.0
    else:
        y = x * x
    return y


def _chained_after_an_early_return(x):
    if x > 5.0:
        return 2.0 * x
    if 0.0 < x < 1.0:
        x = x * x
    return x


@pytest.mark.parametrize("fn, x, want", [
    (_and_in_a_branch_not_taken, -1.0, 1.0), (_and_in_a_branch_not_taken, 1.5, 3.0), (_and_in_a_branch_not_taken, 2.5, 5.0),
    (_chained_after_an_early_return, 7.0, 2.0), (_chained_after_an_early_return, 0.5, 1.0),
])
def test_a_pullback_after_a_short_circuit_test_that_did_not_run(fn, x, want):
    """The pullback copied the `and`'s saved test (`cond_2 = cond`) where the forward pass
    had not assigned it (a branch not taken): NameError at the pullback's call."""
    out, pullback = srcgrad.vjp(fn, x)
    assert out == fn(x)
    assert pullback(1.0) == (want,) == pullback(1.0)
    assert srcgrad.grad(fn)(x) == want


def total_and_doubled(x):
    return x.sum(), x * 2.0


def test_vjp_of_a_tuple_of_outputs_of_different_shapes():
    """`np.shape` of the output `(a float, an array)` raised NumPy's ValueError (an
    inhomogeneous shape) before vjp returned, and again on the seed."""
    x = np.array([1.0, 2.0, 3.0])
    out, pullback = srcgrad.vjp(total_and_doubled, x)
    assert out[0] == 6.0
    np.testing.assert_array_equal(out[1], 2.0 * x)
    np.testing.assert_array_equal(pullback((1.0, np.ones(3)))[0], [3.0, 3.0, 3.0])
    np.testing.assert_array_equal(pullback((None, np.array([1.0, 0.0, 2.0])))[0], [2.0, 0.0, 4.0])
    with pytest.raises(TypeError, match="must have the structure of its output, a tuple of 2 entries"):
        pullback(1.0)


def outer_square(x):
    return np.outer(x, x)


def test_a_seed_that_broadcasts_against_the_output_is_broadcast_to_its_shape():
    """The pullback of `np.outer(x, x)` raised NumPy's ValueError inside the generated
    code for the seed 1.0 or a row (its rule takes the seed to have the output's shape);
    `x[:, None] * x[None, :]`, the same output, took them. A seed larger than the output
    is the seed of the output broadcast to its shape: summed over the extra axes."""
    x = np.array([0.1, -0.2, 0.3])
    out, pullback = srcgrad.vjp(outer_square, x)
    _, by_broadcasting = srcgrad.vjp(lambda v: v[:, None] * v[None, :], x)
    row = np.array([1.0, 0.0, 2.0])
    for seed, G in ((1.0, np.ones((3, 3))), (row, np.broadcast_to(row, (3, 3))),
                    (row[:, None], np.broadcast_to(row[:, None], (3, 3))),
                    (np.stack([np.eye(3), np.ones((3, 3))]), np.eye(3) + np.ones((3, 3)))):
        (g,) = pullback(seed)
        assert g.shape == (3,) and g.dtype == np.float64
        np.testing.assert_allclose(g, G @ x + G.T @ x, rtol=1e-15)  # d<G, x x^T> = (G + G^T) x
        # to the last bits, not bit for bit: under NumPy 1.26, OpenBLAS sums products of other
        # layouts in other orders (entries of G and x are about 1; one entry cancels to ~1e-16)
        np.testing.assert_allclose(g, pullback(np.array(G))[0], rtol=1e-15, atol=1e-15)
        np.testing.assert_allclose(g, by_broadcasting(seed)[0], rtol=1e-15, atol=1e-15)
        np.testing.assert_allclose(g, numerical_grad(lambda v: np.sum(G * outer_square(v)), (x,), 0), rtol=1e-7, atol=1e-9)
    with pytest.raises(ValueError, match=r"seed of the pullback of `outer_square` .* has shape \(4,\), which does "
                                         r"not broadcast against the output's shape \(3, 3\)"):
        pullback(np.ones(4))


def returns_none(x):
    x * 2.0


def returns_bool(x):
    return x > 0.0


def sum_of_squares(x):
    return np.sum(x ** 2)


def product_of(x, y):
    return np.sum(x * y)


@pytest.mark.parametrize("fn,says", [
    (returns_none, "returned None (is a `return` missing?), which has no gradient"),
    (returns_bool, "returned bool (True), which has no gradient"),
])
def test_grad_of_an_output_that_has_no_gradient_is_a_type_error_not_zero(fn, says):
    # a function returning None had gradient 0.0, a complex one a complex "gradient"
    name = fn.__name__
    for transform in (srcgrad.grad, srcgrad.value_and_grad):
        with pytest.raises(TypeError, match=re.escape(f"grad({name}) needs a real floating-point scalar output, but "
                                                      f"`{name}` {says}")):
            transform(fn)(3.0)


def test_a_complex_argument_is_refused_rather_than_given_a_complex_gradient():
    with pytest.raises(TypeError, match=re.escape("with respect to `x`: it is array of complex128, and srcgrad's rules "
                                                  "are for real numbers; pass its real and imaginary parts (x.real, "
                                                  "x.imag) as real arguments")):
        srcgrad.grad(sum_of_squares)(np.ones(3) * 1j)
    with pytest.raises(TypeError, match="it is complex, and srcgrad's rules are for real numbers"):
        srcgrad.grad(sum_of_squares)(1.0 + 1.0j)
    with pytest.raises(TypeError, match=re.escape("with respect to `x`: it is array of complex128")):
        srcgrad.jvp(sum_of_squares, (np.ones(3) * 1j,), (np.ones(3) * 1j,))


def test_a_call_with_missing_arguments_names_the_derivative_as_python_would():
    with pytest.raises(TypeError, match=r"^product_of_grad\(\) missing 1 required positional argument: 'y'$"):
        srcgrad.grad(product_of)(np.ones(3))
    with pytest.raises(TypeError, match=r"^product_of_value_and_grad\(\) takes 2 positional arguments but 3 were given$"):
        srcgrad.value_and_grad(product_of)(1.0, 2.0, 3.0)
