"""NumPy calls that write into an array they are given (compiler/array_writes.py): `out=`,
a ufunc's output after its inputs, `np.copyto`, `y.fill`, `y.sort`. Each is the write
`y[...] = value` it makes, checked against differences, the analytic answer and forward
mode; the forms whose write is partial or unknown stay refused."""

import numpy as np
import pytest

import srcgrad
from program_checks import check, check_hessian

X = np.array([3.0, 1.0, 2.0])
M = np.array([[0.3, -1.2], [0.8, 0.5], [-0.4, 1.1]])
W = np.array([[0.5, -0.3, 0.2], [0.1, 0.4, -0.6]])


def ufunc_out_keyword(x):
    y = x.copy()
    np.multiply(y, x, out=y)
    np.exp(-y, out=y)
    return np.sum(y * x)


def ufunc_out_positional(x):
    y = np.empty_like(x)
    np.multiply(x, x, y)
    np.sin(y, y)
    return np.sum(y)


def out_tuple_and_result(x):
    y = np.zeros(3)
    z = np.add(x, 1.0, out=(y,))
    return np.sum(z * y) + z[0]


def layer_in_place(M, W):
    h = np.empty((M.shape[0], W.shape[1]))
    np.matmul(M, W, out=h)
    np.tanh(h, out=h)
    return np.sum(h * h)


def clipped(x):
    y = x.copy()
    np.clip(y, 1.5, 2.5, out=y)
    y.clip(1.8, 2.6, out=y)
    return np.sum(y * y)


def reduced_into(M):
    s = np.zeros(2)
    M.sum(axis=0, out=s)
    c = np.zeros(2)
    np.add.reduce(M * M, axis=0, out=c)
    return np.sum(s * c)


def copied_and_filled(x):
    y = np.zeros(3)
    np.copyto(y, x * 2.0)
    z = np.ones(3)
    z.fill(x[0])
    return np.sum(y * z)


def sorted_in_place(x):
    y = x * 1.0
    y.sort()
    return 3.0 * y[0] + y[2]


def rows_sorted(M):
    Y = M.copy()
    Y.sort(axis=0)
    return np.sum(Y[0] * np.array([1.0, 2.0]))


def in_a_loop(x):
    acc = np.zeros(3)
    for k in range(3):
        np.add(acc, x * (k + 1.0), out=acc)
    return np.sum(acc * acc)


def test_ufunc_out_keyword():
    y = np.exp(-X * X)
    check(ufunc_out_keyword, X, expected=[y * (1.0 - 2.0 * X * X)])


def test_ufunc_out_after_inputs():
    check(ufunc_out_positional, X, expected=[2.0 * X * np.cos(X * X)])


def test_out_tuple_and_the_result_bound_to_a_name():
    # z is y: sum((x + 1) ** 2) + x[0] + 1
    check(out_tuple_and_result, X, expected=[2.0 * (X + 1.0) + np.array([1.0, 0.0, 0.0])])


def test_matmul_and_tanh_into_one_buffer():
    h = np.tanh(M @ W)
    dh = 2.0 * h * (1.0 - h * h)
    check(layer_in_place, M, W, expected=[dh @ W.T, M.T @ dh])


def test_clip_function_and_method_with_out():
    y = np.clip(np.clip(X, 1.5, 2.5), 1.8, 2.6)  # [2.5, 1.8, 2.0]: only x[2] passes both
    check(clipped, X, expected=[np.array([0.0, 0.0, 2.0 * y[2]])])


def test_reductions_with_out():
    s, c = M.sum(axis=0), (M * M).sum(axis=0)
    check(reduced_into, M, expected=[c + 2.0 * M * s])


def test_copyto_and_fill():
    # sum(2 x * x[0]) = 2 x[0] (x0 + x1 + x2)
    expected = 2.0 * X[0] * np.ones(3)
    expected[0] += 2.0 * np.sum(X)
    check(copied_and_filled, X, expected=[expected])


def test_sort_in_place():
    check(sorted_in_place, X, expected=[np.array([1.0, 3.0, 0.0])])  # sorted: [x1, x2, x0]
    A = np.array([[3.0, 1.0], [2.0, 5.0]])
    check(rows_sorted, A, expected=[np.array([[0.0, 2.0], [1.0, 0.0]])])


def test_out_in_a_loop_and_its_hessian():
    check(in_a_loop, X, expected=[2.0 * 36.0 * X])
    check_hessian(in_a_loop, (X,), 0, expected=72.0 * np.eye(3))


def test_float32_buffer_keeps_its_dtype():
    def f(x):
        y = np.zeros(3, dtype=np.float32)
        np.multiply(x, x, out=y)
        return np.sum(y)

    x = X.astype(np.float32)
    g = srcgrad.grad(f)(x)
    assert g.dtype == np.float32
    np.testing.assert_allclose(g, 2.0 * x, rtol=1e-6)


def test_generated_code_writes_the_buffer():
    text = srcgrad.source(srcgrad.grad(layer_in_place, wrt=1))
    assert "h_out = np.matmul(M, W)" in text and "check_out_cast(h_out, h_dtype, 'same_kind')" in text
    assert "h[...] = h_out" in text and "# np.tanh(h, out=h)" in text


def _written_argument(x, buf):
    np.multiply(x, x, out=buf)
    return np.sum(buf)


def _written_global(x):
    np.multiply(x, x, out=BUFFER)
    return np.sum(BUFFER)


BUFFER = np.zeros(3)


def _partial_write(x):
    y = np.zeros(3)
    np.multiply(x, x, out=y, where=x > 1.5)
    return np.sum(y)


def _user_out(x):
    y = np.zeros(3)
    _fill_into(x, out=y)
    return np.sum(y * x)


def _fill_into(x, out=None):
    out[...] = x * 3.0
    return out


@pytest.mark.parametrize("fn, args, words", [
    (_written_argument, (X, np.zeros(3)), "changes the argument `buf` in place"),
    (_written_global, (X,), "BUFFER"),
    (_partial_write, (X,), "may change a differentiated value in place"),
])
def test_writes_srcgrad_cannot_make_exact_stay_refused(fn, args, words):
    with pytest.raises(srcgrad.NotDifferentiableError) as info:
        srcgrad.grad(fn)(*args)
    assert words in str(info.value)


def test_a_users_function_with_an_out_parameter_is_not_taken_for_numpy():
    g = srcgrad.grad(_user_out)(X)  # spliced as the function it is: y = 3 x, sum(3 x * x)
    np.testing.assert_allclose(g, 6.0 * X)
