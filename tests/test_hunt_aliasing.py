"""Programs that write arrays in place and alias them (views then writes, names bound to
one array, functions changing their arguments, `out=`, repeated indices, overlapping
slices, in-place Gauss elimination, Cholesky, LU and Thomas, time stepping), from a hunt
that ran grad, jvp and hessian on them against float64 central differences. The tests
below each once failed:

- `np.rollaxis` returns a view of its argument, as `np.moveaxis` does, but the may-share
  analysis took it for a function returning a new array: a write into the base read
  through the view afterwards (or into the view, read through the base) was differentiated
  as if the two were apart. So were `np.linalg.matrix_transpose` and `np.linalg.diagonal`
  (NumPy 2), and the functions that return their argument itself for some values of
  another: `np.diff(a, 0)`, `np.linalg.matrix_power(a, 1)` and `np.float64(a)` of a
  float64 array. Each gave a silently wrong gradient (for `t = np.rollaxis(y, 1)`,
  `y[0, 1] = 9 * x[1, 1]`, then `sum(t * W.T)`: d/dx[1, 1] was 0.0, not -7.2); they are
  refused now, naming both lines, while `np.diff(a)`, `np.diff(a, 2)` and
  `matrix_power(a, 3)` stay new arrays;
- a value with leading axes of length 1 assigned into a slice with fewer axes
  (`y[0:2] = x[None, :2]`, which NumPy allows) raised an IndexError in the gradient's
  unbroadcast;
- `getattr(y, "__setitem__")(0, v)` (or another method that changes its receiver,
  named by a string) wrote into `y` out of srcgrad's sight: the gradient was that of the
  program without the write ([-2.4, -2.4, 0.6, 1.6] for [0.0, -4.8, 0.6, 1.6]). It is
  refused, as `setter = y.__setitem__` was;
- a call, as a statement of its own, of a callable srcgrad does not follow and given a
  differentiated value was taken to change nothing: `op(y)` with `np.ndarray.sort` passed
  to (or the default of) the parameter `op` sorted `y` unseen ([0.3, -1.1, 2.0, 0.7] for
  [2.0, 0.3, -1.1, 0.7]), and so did `put(v)` after `put = functools.partial(np.copyto,
  y)`. Both are refused with the reasons a call whose result is used gets;
- `s[()] = v` into a 0-d array read afterwards as a number (`float(s)`) raised a TypeError
  in the gradient (the number's gradient indexed with `()`);
- the pullback of `srcgrad.vjp` read the caller's arrays when it was called: an argument
  changed in place between `vjp` and the pullback (a hand-written backpropagation through
  time that advances its state with `state[...] = new`), or the output changed in place
  (`pred -= y`, the residual, then `pullback(pred)`), gave silently wrong gradients
  (0.437 for 0.235; [0.484, -0.204] for [0.498, 0.465]).
"""

import functools
import inspect

import numpy as np
import pytest

import srcgrad
from conftest import numerical_grad

W4 = np.array([0.3, -1.1, 2.0, 0.7])
W34 = np.arange(12.0).reshape(3, 4) / 5 - 1
W33 = np.arange(9.0).reshape(3, 3) / 4 - 1
X34 = np.array([[0.5, -1.2, 0.3, 0.8],
                [1.1, 0.4, -0.7, 0.2],
                [-0.3, 0.9, 1.5, -0.6]])


def _lines(f, marker):
    lines, first = inspect.getsourcelines(f)
    return [first + k for k, text in enumerate(lines) if text.rstrip().endswith(marker)]


def _assert_refused_naming(f, x):
    """Both transforms refuse `f`, naming the line marked `# shared` and the one marked `# write`."""
    for transform in (lambda: srcgrad.grad(f)(x.copy()), lambda: srcgrad.jvp(f, (x.copy(),), (np.ones_like(x),))):
        with pytest.raises(srcgrad.NotDifferentiableError) as info:
            transform()
        message = str(info.value)
        for marker in ("# shared", "# write"):
            assert any(f"line {n}" in message for n in _lines(f, marker)), message


# --- NumPy functions that return a view of their argument (or the argument itself) -----


def rollaxis_read_after_write(x):
    y = x * 1.0
    t = np.rollaxis(y, 1)  # shared
    y[0, 1] = 9.0 * x[1, 1]  # write
    return np.sum(t * W34.T)


def rollaxis_written_through(x):
    y = x * 1.0
    t = np.rollaxis(y, 1)  # shared
    t[0, 1] = 9.0 * x[1, 1]  # write
    return np.sum(y * W34)


def diff_of_order_zero(x):
    y = x * 1.0
    d = np.diff(y, 0)  # shared
    y[0, 0] = 9.0 * x[1, 1]  # write
    return np.sum(d * W34)


def diff_of_order_zero_by_keyword(x):
    y = x * 1.0
    d = np.diff(y, n=0)  # shared
    d[0, 0] = 9.0 * x[1, 1]  # write
    return np.sum(y * W34)


def first_power(x):
    y = x[:, :3] * 1.0
    p = np.linalg.matrix_power(y, 1)  # shared
    y[0, 0] = 9.0 * x[1, 1]  # write
    return np.sum(p * W33)


def float64_of_an_array(x):
    y = x * 1.0
    r = np.float64(y)  # shared
    y[0, 0] = 9.0 * x[1, 1]  # write
    return np.sum(r * W34)


VIEWS = [rollaxis_read_after_write, rollaxis_written_through, diff_of_order_zero, diff_of_order_zero_by_keyword,
         first_power, float64_of_an_array]


@pytest.mark.parametrize("f", VIEWS, ids=lambda f: f.__name__)
def test_what_may_be_the_argument_itself_is_refused_naming_both_lines(f):
    y = X34 * 1.0
    _assert_refused_naming(f, X34)
    assert np.array_equal(X34, y)  # and the argument is as it was


def test_rollaxis_was_differentiated_as_a_new_array():
    """What the gradient was, and what NumPy computes: the view sees the write."""
    assert np.shares_memory(np.rollaxis(X34, 1), X34)
    fd = numerical_grad(rollaxis_read_after_write, [X34], 0)
    assert fd[1, 1] == pytest.approx(9.0 * W34.T[1, 0], abs=1e-6)  # -7.2, through the view
    assert fd[0, 1] == pytest.approx(0.0, abs=1e-6)  # overwritten
    assert np.allclose(np.delete(fd.ravel(), [1, 5]), np.delete(W34.ravel(), [1, 5]))


@pytest.mark.skipif(not hasattr(np.linalg, "matrix_transpose"), reason="NumPy 2")
def test_the_linalg_views_of_numpy_2_are_refused():
    def transposed(x):
        y = x * 1.0
        t = np.linalg.matrix_transpose(y)  # shared
        y[0, 1] = 9.0 * x[1, 1]  # write
        return np.sum(t * W34.T)

    def diagonal(x):
        y = x[:, :3] * 1.0
        d = np.linalg.diagonal(y)  # shared
        y[1, 1] = 9.0 * x[0, 1]  # write
        return np.sum(d * W4[:3])

    _assert_refused_naming(transposed, X34)
    _assert_refused_naming(diagonal, X34)


def differences_then_write(x):
    """np.diff of order 1 (the default) and 2, and a literal power, make new arrays: the
    writes after them are differentiated, as before."""
    y = x * 1.0
    d1 = np.diff(y)
    d2 = np.diff(y, 2, axis=1)
    p = np.linalg.matrix_power(y[:, :3], 3)
    y[0] = 0.0
    d1[d1 < 0] *= 2.0
    return np.sum(d1 ** 2) + np.sum(d2 * y[:, :2]) + np.sum(p * W33)


def test_new_arrays_of_diff_and_matrix_power_are_still_differentiated():
    g = srcgrad.grad(differences_then_write)(X34.copy())
    np.testing.assert_allclose(g, numerical_grad(differences_then_write, [X34], 0), rtol=1e-6, atol=1e-8)
    _, t = srcgrad.jvp(differences_then_write, (X34.copy(),), (W34,))
    assert t == pytest.approx(np.sum(g * W34), rel=1e-10)


# --- a value with leading axes of length 1 assigned into fewer axes ---------------------


def leading_unit_axes(x):
    y = np.zeros(4)
    y[0:2] = x[None, :2]
    y[2:] = x[None, None, 2:] ** 2
    return np.sum(y * W4)


def leading_unit_axes_added(x):
    Y = np.ones((3, 4))
    Y[1] = Y[1] + x[None] * 2.0
    Y[2:, 1:3] = x[None, None, 1:3]
    return np.sum(Y * Y * W34)


def test_a_value_with_leading_unit_axes_assigned_into_fewer():
    x = np.array([0.5, -1.2, 0.3, 0.8])
    g = srcgrad.grad(leading_unit_axes)(x)
    np.testing.assert_allclose(g, [W4[0], W4[1], 2 * x[2] * W4[2], 2 * x[3] * W4[3]], rtol=1e-12)
    np.testing.assert_allclose(g, numerical_grad(leading_unit_axes, [x], 0), rtol=1e-7)
    assert g.shape == x.shape and g.dtype == x.dtype
    g = srcgrad.grad(leading_unit_axes_added)(x)
    row = 1.0 + 2.0 * x
    want = 2 * row * 2.0 * W34[1]
    want[1:3] += 2 * x[1:3] * W34[2, 1:3]
    np.testing.assert_allclose(g, want, rtol=1e-12)
    np.testing.assert_allclose(g, numerical_grad(leading_unit_axes_added, [x], 0), rtol=1e-7)
    _, t = srcgrad.jvp(leading_unit_axes_added, (x,), (W4,))
    assert t == pytest.approx(g @ W4, rel=1e-12)


# --- the pullback of vjp and the caller's arrays changed in place -----------------------


def cubic_step(s):
    return s - 0.1 * s ** 3


def test_a_state_advanced_in_place_between_vjp_and_its_pullback():
    """Backpropagation through time by hand: each step's pullback kept, the state advanced
    with `state[...] = new`. Each pullback is the Jacobian at the state it was given."""
    s0 = np.array([0.3, -0.2, 1.1])
    state, pullbacks = s0.copy(), []
    for _ in range(5):
        new, pullback = srcgrad.vjp(cubic_step, state)
        pullbacks.append(pullback)
        state[...] = new
    g = np.ones(3)
    for pullback in reversed(pullbacks):
        (g,) = pullback(g)
    want, s = np.ones(3), s0.copy()
    states = []
    for _ in range(5):
        states.append(s)
        s = s - 0.1 * s ** 3
    for s in reversed(states):
        want = want * (1.0 - 0.3 * s ** 2)
    np.testing.assert_allclose(g, want, rtol=1e-12)

    def five_steps(s):
        for _ in range(5):
            s = cubic_step(s)
        return np.sum(s)

    np.testing.assert_allclose(g, numerical_grad(five_steps, [s0], 0), rtol=1e-7)


X32 = np.array([[1.0, 0.5], [0.2, -0.3], [0.7, 0.1]])
Y3 = np.array([1.0, 2.0, 0.5])


def exp_model(w):
    return np.exp(X32 @ w)


def test_an_output_changed_in_place_then_given_as_the_seed():
    """`pred -= y` makes the residual in the output's memory, which exp's derivative reads."""
    w = np.array([0.2, -0.1])
    pred, pullback = srcgrad.vjp(exp_model, w)
    pred -= Y3
    (g,) = pullback(pred)
    e = np.exp(X32 @ w)
    np.testing.assert_allclose(g, X32.T @ (e * (e - Y3)), rtol=1e-12)
    np.testing.assert_allclose(
        g, numerical_grad(lambda v: 0.5 * np.sum((exp_model(v) - Y3) ** 2), [w], 0), rtol=1e-7)


def test_an_argument_changed_after_vjp_leaves_the_pullback_as_it_was():
    x = np.array([0.1, 0.5, 1.0])
    out, pullback = srcgrad.vjp(lambda v: np.sum(np.sin(v) * v), x)
    x *= 3.0
    (g,) = pullback(1.0)
    v = x / 3.0
    np.testing.assert_allclose(g, np.cos(v) * v + np.sin(v), rtol=1e-12)
    assert out == pytest.approx(np.sum(np.sin(v) * v), rel=1e-15)


def test_arrays_in_a_list_argument_are_held_apart_too():
    ws = [np.array([0.2, -0.4]), np.array([1.5])]
    out, pullback = srcgrad.vjp(lambda p: np.sum(p[0] ** 2) * p[1][0], ws)
    ws[0][:] = 10.0
    ws[1][0] = -1.0
    (g,) = pullback(1.0)
    np.testing.assert_allclose(g[0], 2 * np.array([0.2, -0.4]) * 1.5, rtol=1e-12)
    np.testing.assert_allclose(g[1], [0.2 ** 2 + 0.4 ** 2], rtol=1e-12)


# --- the index of enumerate shares no memory -----------------------------------------------


def rows_doubled_then_added(x):
    A = np.outer(x, x)
    for i, row in enumerate(A):
        A[i] = 2.0 * row
        # NumPy adds the row as the line above changed it (a view of A)
        A[i] += row
    return np.sum(A * A)


def rows_scaled_by_position(x):
    A = np.outer(x, x)
    B = np.zeros((4, 4))
    for i, row in enumerate(A):
        B[i] += row * (i + 1.0)
    return np.sum(B * np.arange(16.0).reshape(4, 4))


def test_the_refusal_names_the_row_not_the_position_of_enumerate():
    """It named `i` ("may share memory with `i`"), the position enumerate counts."""
    x = np.array([0.5, -1.2, 0.3, 0.8])
    for transform in (lambda: srcgrad.grad(rows_doubled_then_added)(x), lambda: srcgrad.jvp(rows_doubled_then_added, (x,), (x,))):
        with pytest.raises(srcgrad.NotDifferentiableError, match=r"`A\[i\] \+= row`.* may share memory with `row`"):
            transform()
    g = srcgrad.grad(rows_scaled_by_position)(x)
    weights = np.arange(16.0).reshape(4, 4) * np.arange(1.0, 5.0)[:, None]
    np.testing.assert_allclose(g, (weights + weights.T) @ x, rtol=1e-12)
    np.testing.assert_allclose(g, numerical_grad(rows_scaled_by_position, [x], 0), rtol=1e-7)


# --- callables srcgrad does not follow, called as statements --------------------------


def sorted_by_a_passed_method(x, op):
    y = x.copy()
    op(y)
    return np.sum(y * W4)


def sorted_by_a_default(x, op=np.ndarray.sort):
    y = x.copy()
    op(y)
    return np.sum(y * W4)


def copied_by_a_partial(x):
    y = x.copy()
    put = functools.partial(np.copyto, y)
    put(x[::-1])
    return np.sum(y * W4)


def halve_first(a):
    a[0] = a[0] * 0.5


def test_a_callable_srcgrad_does_not_follow_is_refused_where_it_may_change_its_argument():
    x = np.array([0.5, -1.2, 0.3, 0.8])
    cases = [(sorted_by_a_passed_method, (x, np.ndarray.sort), "calls its parameter `op`, which holds no function"),
             (sorted_by_a_default, (x,), "calls its parameter `op`, which holds no function"),
             (copied_by_a_partial, (x,), "calls its local variable `put`")]
    for f, args, message in cases:
        with pytest.raises(srcgrad.NotDifferentiableError, match=message):
            srcgrad.grad(f)(*args)
        with pytest.raises(srcgrad.NotDifferentiableError, match=message):
            srcgrad.jvp(f, args, (np.ones(4),) + (None,) * (len(args) - 1))
    # a function of the user's passed so is followed: it halves y[0]
    g = srcgrad.grad(sorted_by_a_passed_method)(x, halve_first)
    np.testing.assert_allclose(g, [0.5 * W4[0], W4[1], W4[2], W4[3]], rtol=1e-12)
    np.testing.assert_allclose(g, numerical_grad(lambda v: sorted_by_a_passed_method(v, halve_first), [x], 0), rtol=1e-7)


# --- a method named by a string; a 0-d array written whole -----------------------------


def set_through_getattr(x):
    y = x.copy()
    getattr(y, "__setitem__")(0, x[1])
    return np.sum(y ** 2)


def sort_through_getattr(x):
    y = x * 2.0
    getattr(y, "sort")()
    return np.sum(y * W4)


@pytest.mark.parametrize("f", [set_through_getattr, sort_through_getattr], ids=lambda f: f.__name__)
def test_a_changing_method_named_by_a_string_is_refused(f):
    x = np.array([0.5, -1.2, 0.3, 0.8])
    line = inspect.getsourcelines(f)[1] + 2
    for transform in (lambda: srcgrad.grad(f)(x), lambda: srcgrad.jvp(f, (x,), (x,))):
        with pytest.raises(srcgrad.NotDifferentiableError, match=r"takes the method `\.(__setitem__|sort)` of `y`") as info:
            transform()
        assert info.value.lineno == line


def zero_dimensional_written_whole(x):
    s = np.zeros(())
    s[()] = np.sum(x ** 2)
    return float(s) * 2.0


def test_a_zero_dimensional_array_written_whole_and_read_as_a_number():
    x = np.array([0.5, -1.2, 0.3, 0.8])
    g = srcgrad.grad(zero_dimensional_written_whole)(x)
    np.testing.assert_allclose(g, 4.0 * x, rtol=1e-12)
    np.testing.assert_allclose(g, numerical_grad(zero_dimensional_written_whole, [x], 0), rtol=1e-7)
    _, t = srcgrad.jvp(zero_dimensional_written_whole, (x,), (W4,))
    assert t == pytest.approx(4.0 * x @ W4, rel=1e-12)
