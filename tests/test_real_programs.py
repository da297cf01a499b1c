"""Programs written as scientists and ML engineers write NumPy (integrators, filters,
layers, likelihoods, stencils, small solvers), from a hunt for wrong gradients and
needless refusals; the first tests each once failed, the corpus at the end passed.

- `U = np.zeros(...)`, then `U += v`, then `U[:, 0] += c`: the name still holds the array
  np.zeros made (an in-place add keeps it), so the write into it is not a change of an
  entry the array might share with `v` (it was refused when it ran, `U[:, 0]` being
  an array, not a number).
- A helper that changes its array parameter in place and returns it, called as
  `u = step(u, dt)` in a loop (`u[1:-1] += dt * lap; return u`), is spliced as the same
  call outside a loop is (in a loop it was refused as a change of the caller's `u`), and
  its `u[1:-1] += ...` writes into the array `u` itself, as `u[1:-1] = u[1:-1] + ...`
  would (it was refused when it ran, as a change of an entry another value might hold).
- `rows = list(A)` holds views of A's rows (as `tuple(A)` and `[r for r in A]` do), and
  `np.broadcast_arrays`, `np.meshgrid(copy=False)`, `sliding_window_view`, `as_strided`
  and `np.einsum` of one operand return views: a later write into A, with the views read
  afterwards, or a write into such a view, is refused (the gradient was computed as for
  copies, silently wrong); copies (`[r.copy() for r in A]`), `np.diag` of a vector and
  `np.einsum` of two operands stay exact.
- A ufunc of another library with no rule (`scipy.special.i0`) is named in the refusal
  as the call spells it (`sps.i0`), not as `numpy.i0`.
- `y = rk4_step(rhs, y, t, h)` in a loop, a helper returning a new value made from its
  argument, stays exact (the splice of a helper returning the argument it changed must
  not turn it into `y = y + ...` inside a loop).

Each program is checked against central differences and an independent answer, in
forward mode (the dot-product test), with its arguments left unchanged; the corpus of
real_programs.py (programs that passed) against differences and, where cheap, through
its Hessian.
"""

import math

import numpy as np
import pytest

import srcgrad
import real_programs
from conftest import numerical_grad
from program_checks import check, check_hessian


# --- an array made in the function stays one across `U += v` ---------------------------


def accumulated_grid(x, v):
    U = np.zeros((3, len(v)))
    U += v
    U[:, 0] += x[0]
    return np.sum(U ** 2)


def accumulated_rows(x, v):
    U = np.zeros((3, len(v)))
    U += v
    U[:, 0] += x[0]
    U[1] *= x
    return np.sum(U ** 2)


def test_an_array_made_here_keeps_its_own_memory_across_an_augmented_add():
    x, v = np.array([0.3, -0.5, 1.2, 0.7]), np.array([1.0, 2.0, -1.0, 0.5])
    gx = np.zeros(4)
    gx[0] = 6 * (v[0] + x[0])
    gv = 6 * v
    gv[0] = 6 * (v[0] + x[0])
    check(accumulated_grid, x, v, expected=[gx, gv])
    check(accumulated_rows, x, v)
    check_hessian(accumulated_rows, (x, v), 0)


# --- helpers that change an array in place ----------------------------------------------


def heat_step(u, dt):
    u[1:-1] += dt * (u[2:] - 2 * u[1:-1] + u[:-2])
    return u


def heat_step_in_place(u, dt):
    u[1:-1] += dt * (u[2:] - 2 * u[1:-1] + u[:-2])


def heat_by_returning_helper(u0, dt):
    u = u0.copy()
    for _ in range(4):
        u = heat_step(u, dt)
    return np.sum(u ** 3)


def heat_by_changing_helper(u0, dt):
    u = u0.copy()
    for _ in range(4):
        heat_step_in_place(u, dt)
    return np.sum(u ** 3)


def heat_of_the_argument(u, dt):
    for _ in range(4):
        u = heat_step(u, dt)
    return np.sum(u ** 3)


def _heat_gradients(u0, dt, steps=4):
    """The gradients of sum((M^steps u0)^3), M = I + dt L (L the interior Laplacian)."""
    n = len(u0)
    L = np.zeros((n, n))
    for i in range(1, n - 1):
        L[i, i - 1:i + 2] = [1.0, -2.0, 1.0]
    M = np.eye(n) + dt * L
    P = np.linalg.matrix_power(M, steps)
    u = P @ u0
    w = 3 * u ** 2
    dP = sum(np.linalg.matrix_power(M, k) @ L @ np.linalg.matrix_power(M, steps - 1 - k) for k in range(steps))
    return P.T @ w, float(w @ dP @ u0)


@pytest.mark.parametrize("f", [heat_by_returning_helper, heat_by_changing_helper])
def test_a_helper_changing_its_array_in_place_is_spliced(f):
    u0, dt = np.array([0.3, 1.0, -0.4, 0.8, 0.1, 0.5]), 0.15
    check(f, u0, dt, expected=_heat_gradients(u0, dt))
    check_hessian(f, (u0, dt), 0)


def test_a_helper_changing_the_callers_argument_stays_refused():
    with pytest.raises(srcgrad.NotDifferentiableError, match="changes it in place"):
        srcgrad.grad(heat_of_the_argument)(np.ones(5), 0.1)


# --- a ufunc that is not NumPy's ---------------------------------------------------------


def bessel_weighted(w, X):
    import scipy.special as sps

    return np.sum(sps.i0(X @ w))


def test_a_ufunc_of_another_library_is_named_as_the_call_spells_it():
    pytest.importorskip("scipy")
    with pytest.raises(srcgrad.NotDifferentiableError, match=r"no derivative rule for `sps\.i0`"):
        srcgrad.grad(bessel_weighted)(np.ones(2), np.ones((3, 2)))


# --- a helper returning a new value, in a loop --------------------------------------------


def rk4_step(rhs, y, t, h):
    k1 = rhs(y, t)
    k2 = rhs(y + 0.5 * h * k1, t + 0.5 * h)
    k3 = rhs(y + 0.5 * h * k2, t + 0.5 * h)
    k4 = rhs(y + h * k3, t + h)
    return y + h / 6.0 * (k1 + 2 * k2 + 2 * k3 + k4)


def linear_decay(y, t):
    return -0.5 * y


def rk4_decay(y0):
    y, t = y0, 0.0
    for _ in range(10):
        y = rk4_step(linear_decay, y, t, 0.1)
        t = t + 0.1
    return np.sum(y ** 2)


def test_a_helper_returning_a_new_value_in_a_loop():
    y0 = np.array([1.0, 0.5, -0.3])
    z = -0.05  # h * (-0.5): one RK4 step multiplies y by the Taylor polynomial of exp(z)
    factor = (1 + z + z ** 2 / 2 + z ** 3 / 6 + z ** 4 / 24) ** 10
    check(rk4_decay, y0, expected=[2 * factor ** 2 * y0])


# --- containers of rows and NumPy's other views -------------------------------------------


def rows_before_a_write(x):
    A = x.reshape(2, 2) * 1.0
    rows = list(A)
    A[:, 0] = 5.0 * x[1]
    return sum(np.sum(r * x[:2]) for r in rows)


def copied_rows_before_a_write(x):
    A = x.reshape(2, 2) * 1.0
    rows = [r.copy() for r in A]
    A[:, 0] = 5.0 * x[1]
    return sum(np.sum(r * x[:2]) for r in rows) + np.sum(A)


def windows_before_a_write(u):
    from numpy.lib.stride_tricks import sliding_window_view

    v = u * 1.0
    windows = sliding_window_view(v, 2)
    v[0] = 3.0 * u[1]
    return np.sum(windows[:, 0] * windows[:, 1])


def broadcast_before_a_write(x):
    A = x.reshape(2, 2) * 1.0
    B, _ = np.broadcast_arrays(A, x[:2])
    A[0, 0] = 5.0 * x[1]
    return np.sum(B * x.reshape(2, 2))


def write_into_an_einsum_diagonal(x):
    A = x.reshape(2, 2) * 1.0
    d = np.einsum("ii->i", A)
    d[0] = 5.0 * x[1]
    return np.sum(A * x.reshape(2, 2))


def write_into_new_matrices(x):
    B = np.diag(x * 1.0)
    B[0, 1] = 3.0 * x[2]
    C = np.einsum("ij,jk->ik", B, B)
    C[1, 0] = x[0]
    return np.sum(B ** 2) + np.sum(C)


@pytest.mark.parametrize("f", [rows_before_a_write, windows_before_a_write, broadcast_before_a_write,
                               write_into_an_einsum_diagonal])
def test_containers_of_rows_and_other_views_are_refused_when_written(f):
    with pytest.raises(srcgrad.NotDifferentiableError, match="line"):
        srcgrad.grad(f)(np.array([0.3, 1.0, -2.0, 0.5]))


def test_copies_of_rows_and_new_matrices_stay_exact():
    x = np.array([0.3, 1.0, -2.0, 0.5])
    # rows of the copy: x[:2] . (x0, x1) + x[:2] . (x2, x3); A after the write: 5 x1 twice, x1 and x3
    expected = np.array([2 * x[0] + x[2], 2 * x[1] + x[3] + 10 + 1, x[0], x[1] + 1])
    check(copied_rows_before_a_write, x, expected=[expected])
    check(write_into_new_matrices, x)
    check_hessian(write_into_new_matrices, (x,), 0)


# --- containers holding a changed array --------------------------------------------------


def copied_list_of_the_array(x):
    A = x.reshape(2, 2) * 1.0
    layers = [A, A * 2.0]
    saved = layers.copy()
    A[0, 0] = 5.0 * x[1]
    return np.sum(saved[0] * x.reshape(2, 2)) + np.sum(A)


def sliced_list_of_the_array(x):
    A = x.reshape(2, 2) * 1.0
    layers = [A]
    saved = layers[:]
    A[0, 0] = 5.0 * x[1]
    return np.sum(saved[0] * x.reshape(2, 2))


def dict_entry_by_get(x):
    A = x.reshape(2, 2) * 1.0
    params = {"W": A}
    W = params.get("W")
    A[0, 0] = 5.0 * x[1]
    return np.sum(W * x.reshape(2, 2))


def zipped_with_weights(x):
    A = x.reshape(2, 2) * 1.0
    pairs = list(zip([A], [0.5]))
    A[0, 0] = 5.0 * x[1]
    return np.sum(pairs[0][0] * x.reshape(2, 2)) * pairs[0][1]


def rows_of_lists_read_after_appends(x):
    rows = []
    for i in range(3):
        row = [x[i]]
        row.append(x[i] ** 2 + 0.5)
        rows.append(row)
    saved = rows.copy()
    return sum(r[0] * r[1] for r in saved)


@pytest.mark.parametrize("f", [copied_list_of_the_array, sliced_list_of_the_array, dict_entry_by_get,
                               zipped_with_weights])
def test_a_container_holding_a_changed_array_is_refused_when_read_afterwards(f):
    with pytest.raises(srcgrad.NotDifferentiableError, match="line"):
        srcgrad.grad(f)(np.array([0.3, 1.0, -2.0, 0.5]))


def test_lists_of_lists_built_by_appends_and_copied_stay_exact():
    x = np.array([0.3, 1.0, -2.0])
    check(rows_of_lists_read_after_appends, x, expected=[3 * x ** 2 + 0.5])


# --- functions returning their argument unless told to copy -----------------------------------


def cleaned_in_place_then_written(x):
    A = x.reshape(2, 2) * 1.0
    B = np.nan_to_num(A, copy=False)
    A[0, 0] = 5.0 * x[1]
    return np.sum(B * x.reshape(2, 2))


def cleaned_copy_then_written(x):
    B = np.nan_to_num(x * 1.0)
    B[0] = 3.0 * x[1]
    return np.sum(x * B)


def test_nan_to_num_without_a_copy_is_the_array_itself():
    with pytest.raises(srcgrad.NotDifferentiableError, match="nan_to_num"):
        srcgrad.grad(cleaned_in_place_then_written)(np.array([0.3, 1.0, -2.0, 0.5]))
    x = np.array([0.3, 1.0, -2.0, 0.5])
    expected = 2 * x
    expected[0] = 3.0 * x[1]
    expected[1] += 3.0 * x[0]
    check(cleaned_copy_then_written, x, expected=[expected])


# --- the corpus: programs that passed when they were written ---------------------------------


def _differentiated(args):
    """The positions of the float and float-array arguments (not integer counts or labels)."""
    return [i for i, a in enumerate(args) if isinstance(a, float) or (isinstance(a, np.ndarray) and a.dtype.kind == "f")]


@pytest.mark.parametrize("f, args, hessian", real_programs.CASES, ids=lambda v: getattr(v, "__name__", ""))
def test_the_corpus_of_real_programs(f, args, hessian):
    wrt = _differentiated(args)
    if len(wrt) == len(args):
        check(f, *args)
    else:  # integer arguments stay as they are: differences and jvp over the others
        grads = srcgrad.grad(f, wrt=tuple(wrt))(*args)
        for i, g in zip(wrt, grads):
            np.testing.assert_allclose(g, numerical_grad(f, args, i), rtol=1e-6, atol=1e-7)
    if hessian:
        check_hessian(f, args, wrt[0])
