"""NumPy programs as a demanding user writes them, differentiated whole: einsum in its
forms, fancy indexing with repeated indices, boolean masks, np.where broadcasting,
in-place writes through slices and indices, sorts and the gathers they drive,
numpy.linalg (solve, inv, det, slogdet, cholesky, eigh, svd, qr, norms with ord and
axis), clip/abs/maximum at ties, zeros in products, and small models built of them.

Each is checked by `program_checks.check_program`: the gradient of every float argument
against central differences in float64 and typed like it, the second call,
value_and_grad, vjp and jvp agreeing with it, the arguments unchanged, the Hessian block
of the first argument against differences of the gradient (where it is smooth enough
to check), and float32 arrays keeping float32 gradients.

- `np.linalg.eigh(a).eigenvalues` (and `svd(a).S`, `slogdet(a).logabsdet`, `qr(a).R`):
  forward mode read the field off the rule's plain-tuple tangent (an AttributeError in
  jvp and hessian); jvp of a function returning the namedtuple gives its tangent in
  the namedtuple's class.
- np.einsum's sublist form (`np.einsum(a, [0, 1], b, [1, 2], [0, 2])`) was refused as a
  derivative with respect to the argument `subscripts`: written-out sublists are spelled
  as the subscripts string NumPy reads them as (compiler/einsum_sublists.py).
- The Hessian of `np.linalg.svd(a).S` was refused as a second derivative through the
  singular vectors: reading the field leaves zeros, not None, in the cotangent of U and Vh.
"""

import math

import numpy as np
import pytest

import srcgrad
from program_checks import check_program

rng = np.random.default_rng(20)
V = rng.normal(size=4)
M = rng.normal(size=(3, 3))
A34 = rng.normal(size=(3, 4))
T233 = rng.normal(size=(2, 3, 3))
SPD = M @ M.T + 3.0 * np.eye(3)


# --- einsum ----------------------------------------------------------------------------


def einsum_trace_of_product(a, b):
    return np.einsum("ij,jk->ik", a, b).trace() + np.einsum("ii", a @ b)


def einsum_batched_matmul(a, b):
    return (np.einsum("bij,bjk->bik", a, b) ** 2).sum()


def einsum_ellipsis_and_column_sums(a):
    return np.einsum("...ij->...", a ** 2).sum() + np.einsum("ij->j", a).prod()


def einsum_diagonal_and_frobenius(a):
    return (np.einsum("ii->i", a) ** 2).sum() + np.einsum("ij,ij->", a, a)


def einsum_chain_of_three(a):
    return np.einsum("ij,jk,kl->il", a, a, a).sum()


def einsum_repeated_subscripts(t):
    return np.einsum("ijj->i", t).sum() ** 2 + np.einsum("iij->j", t[:, :2, :2]).sum()


def einsum_optimized_contraction(t, x):
    return np.einsum("ijk,k->ij", t, x, optimize=True).sum() ** 2


def einsum_sublists(a, b):
    return (np.einsum(a, [0, 1], b, [1, 2], [0, 2]) ** 2).sum() + np.einsum(a, (27, 1), b, (1, 0)).sum()


def einsum_sublists_with_ellipsis(t):
    products = np.einsum(t, [Ellipsis, 0, 1], t, [..., 1, 2], [..., 0, 2], optimize=True)
    return (products ** 2).sum() + np.einsum(t, [0, 1, 1]).prod()


# --- indexing, masks, where ------------------------------------------------------------


def gather_with_repeated_indices(x):
    return (x[[0, 0, 1, 3]] * np.arange(1.0, 5.0)).sum() + (x[[2, 2]] ** 2).sum()


def gather_pairs_with_repeats(a):
    return (a[np.array([0, 1, 1, 2]), np.array([2, 0, 0, 1])] ** 3).sum()


def open_mesh_and_broadcast_fancy(a):
    return (a[np.ix_([0, 2], [1, 2])] ** 2).sum() + a[[[0], [1]], [1, 2]].prod()


def slices_mixed_with_lists(a):
    return (a[1:, [0, 2]] ** 3).sum() + (a[..., [0, 0]] * a[:, :2]).sum() + a[None, [0, 1]].sum() ** 2


def boolean_mask_reads(x):
    m = x > 0
    return (x[m] ** 2).sum() - x[~m].sum()


def boolean_mask_writes(x):
    y = x.copy()
    y[y < 0] = 0.0
    y[y > 1] *= 3.0
    return (y ** 2).sum()


def mask_of_a_matrix_and_nonzero(a):
    m = a > 0.2
    return (a[m] ** 2).sum() + a[np.nonzero(m)].sum() + a[np.where(a < 0)].prod()


def where_broadcasting_a_column(a, b):
    return np.where(a > 0, a * b[:, None], b[:, None] ** 2).sum()


def where_with_a_scalar_branch(x, s):
    return np.where(x > 0.1, x, s).sum() + np.where(x < 0, s * x, 0.0).sum()


# --- in-place writes -------------------------------------------------------------------


def slice_augmented_assignments(x, y):
    a = np.zeros(5)
    a[1:3] += y
    a[2:5] *= x[:3]
    a[::2] -= x[0]
    return (a ** 2).sum()


def repeated_index_augmented_write(x):
    a = np.zeros(3)
    a[[0, 0, 2]] += x[:3]  # NumPy adds once per distinct index: the last x for index 0
    return (a * np.array([1.0, 2.0, 3.0])).sum()


def repeated_index_write(x):
    a = np.zeros(3)
    a[[0, 0]] = x[:2]
    return (a ** 2).sum()


def add_at_accumulates(x):
    a = np.zeros(3)
    np.add.at(a, [0, 0, 2], x[:3])
    return (a ** 2).sum()


def overlapping_slice_copy(x):
    a = x.copy()
    a[1:4] = a[0:3]
    return (a * np.arange(1.0, 5.0)).sum()


def row_swap_through_views(a):
    b = a.copy()
    b[0], b[1] = b[1], b[0]  # rows are views: both become the old row 1
    return (b * np.arange(9.0).reshape(3, 3)).sum()


def rows_and_columns_written(a):
    b = np.zeros((3, 3))
    b[[0, 2], [1, 1]] = a[0, :2] ** 2
    b[1] = a[2]
    b[:, 0] += a[:, 1]
    return (b * a).sum()


def put_along_an_axis(x):
    a = np.zeros((2, 4))
    np.put_along_axis(a, np.array([[1], [3]]), x[:, :1] ** 2, axis=1)
    return (a * np.arange(8.0).reshape(2, 4)).sum() + (a * x).sum()


def in_place_recurrence(x):
    a = np.zeros(4)
    for i in range(4):
        a[i] = np.sin(a[i - 1]) + x[i]
    return (a ** 2).sum()


# --- scans, sorts, gathers -------------------------------------------------------------


def cumsum_diff_cumprod(x):
    return (np.diff(np.cumsum(x) * x) ** 2).sum() + np.cumprod(x).sum()


def sorted_gather_and_range(x):
    s = np.sort(x)
    return (x[np.argsort(x)] * np.arange(4.0)).sum() + (s[-1] - s[0]) ** 2


def top_two(x):
    return (x[np.argsort(-x)[:2]] ** 2).sum()


def sorted_rows_gathered(a):
    return (np.take_along_axis(a, np.argsort(a, axis=1), axis=1) * np.arange(3.0)).sum()


def bucket_weights(x):
    w = np.array([0.5, 1.0, 2.0, 4.0])
    return (w[np.searchsorted(np.array([-1.0, 0.0, 1.0]), x)] * x ** 2).sum()


def grouped_sums(x):
    _, inverse = np.unique(np.array([2, 0, 2, 1]), return_inverse=True)
    return (np.bincount(inverse, weights=x ** 2) * np.array([1.0, 2.0, 3.0])).sum()


def padded_in_three_modes(x):
    return ((np.pad(x, 2, mode="reflect") * np.arange(8.0)).sum() + np.pad(x, (1, 2), mode="edge").sum() ** 2
            + np.pad(x, 1, constant_values=x[0]).sum() ** 2)


# --- linalg ----------------------------------------------------------------------------


def solve_and_inverse_trace(a, b):
    return (np.linalg.solve(a, b) ** 2).sum() + np.linalg.inv(a).trace()


def det_and_signed_log_det(a):
    sign, logdet = np.linalg.slogdet(a)
    return np.linalg.det(a) + sign * logdet


def cholesky_log_diagonal(a):
    L = np.linalg.cholesky(a @ a.T + np.eye(3))
    return np.log(np.diag(L)).sum() + L[2, 0]


def eigh_top_value_and_vector(a):
    w, v = np.linalg.eigh(a + a.T)
    return w[-1] + (v[:, 0] ** 4).sum()


def decomposition_fields(a):
    s = a @ a.T + np.eye(3)
    return (np.linalg.eigh(s).eigenvalues.sum() + np.linalg.svd(a).S.sum()
            + np.linalg.slogdet(s).logabsdet + np.abs(np.linalg.qr(a).R[0, 0]))


def batched_solve_det_inv(t, b):
    s = t @ np.swapaxes(t, -1, -2) + np.eye(3)
    return (np.linalg.solve(s, b[..., None]) ** 2).sum() + np.linalg.det(s).sum() + np.linalg.inv(s)[:, 0, 0].sum()


def vector_and_row_norms(x, a):
    return (np.linalg.norm(x) + np.linalg.norm(x, ord=1) + np.linalg.norm(a, axis=1).sum()
            + np.linalg.norm(a, "fro") + np.linalg.norm(x, ord=np.inf))


def matrix_norms(a):
    return np.linalg.norm(a, ord=2) + np.linalg.norm(a, ord="nuc") + np.linalg.norm(a, ord=1) + np.linalg.norm(a, ord=-np.inf)


def norms_with_ord_and_axis(a):
    return (np.linalg.norm(a, ord=1, axis=0).sum() + np.linalg.norm(a, ord=np.inf, axis=1).sum()
            + np.linalg.norm(a, ord=3, axis=1).sum() + np.linalg.norm(a, axis=(0, 1)))


# --- kinks and zeros -------------------------------------------------------------------


def clip_abs_maximum(x):
    return np.clip(x, -0.5, 0.5).sum() + np.abs(x).sum() + np.maximum(x, 0.3).sum()


def maximum_of_a_value_and_itself(x):
    return np.maximum(x, x).sum() + np.minimum(x[0], x[0])


def product_with_zeros(x):
    return np.prod(x) + np.prod(x[1:]) + np.cumprod(x).sum()


def sums_with_where_and_initial(a):
    m = a > 0
    return np.sum(a, where=m) + np.max(a, initial=0.5) + np.mean(a ** 2, where=m)


# --- models ----------------------------------------------------------------------------


def gaussian_process_nll(log_ls, log_sf, x, y):
    ls, sf = np.exp(log_ls), np.exp(log_sf)
    d2 = ((x[:, None, :] - x[None, :, :]) ** 2).sum(-1)
    K = sf ** 2 * np.exp(-0.5 * d2 / ls ** 2) + 0.1 * np.eye(len(y))
    L = np.linalg.cholesky(K)
    alpha = np.linalg.solve(L.T, np.linalg.solve(L, y))
    return 0.5 * y @ alpha + np.log(np.diag(L)).sum() + 0.5 * len(y) * math.log(2 * math.pi)


def causal_attention(q, k, v):
    s = q @ k.T / np.sqrt(q.shape[-1])
    s = np.where(np.triu(np.ones_like(s, dtype=bool), 1), -1e9, s)
    p = np.exp(s - s.max(axis=-1, keepdims=True))
    p = p / p.sum(axis=-1, keepdims=True)
    return ((p @ v) ** 2).sum()


def gaussian_elimination(a, b):
    A, y, n = a.copy(), b.copy(), 3
    for k in range(n):
        for i in range(k + 1, n):
            f = A[i, k] / A[k, k]
            A[i, k:] -= f * A[k, k:]
            y[i] -= f * y[k]
    xs = np.zeros(n)
    for i in range(n - 1, -1, -1):
        xs[i] = (y[i] - A[i, i + 1:] @ xs[i + 1:]) / A[i, i]
    return (xs ** 2).sum()


X53 = rng.normal(size=(5, 3))
PROGRAMS = [
    (einsum_trace_of_product, (A34, rng.normal(size=(4, 3))), {}),
    (einsum_batched_matmul, (rng.normal(size=(2, 2, 3)), rng.normal(size=(2, 3, 2))), {}),
    (einsum_ellipsis_and_column_sums, (A34,), {}),
    (einsum_diagonal_and_frobenius, (M,), {}),
    (einsum_chain_of_three, (M,), {}),
    (einsum_repeated_subscripts, (T233,), {}),
    (einsum_optimized_contraction, (rng.normal(size=(2, 3, 4)), V), {}),
    (einsum_sublists, (A34, rng.normal(size=(4, 3))), {}),
    (einsum_sublists_with_ellipsis, (T233,), {}),
    (gather_with_repeated_indices, (V,), {}),
    (gather_pairs_with_repeats, (M,), {}),
    (open_mesh_and_broadcast_fancy, (M,), {}),
    (slices_mixed_with_lists, (M,), {}),
    (boolean_mask_reads, (V,), {}),
    (boolean_mask_writes, (np.array([-1.0, 0.5, 2.0, 1.5]),), {}),
    (mask_of_a_matrix_and_nonzero, (M,), {}),
    (where_broadcasting_a_column, (A34, V[:3]), {}),
    (where_with_a_scalar_branch, (V, 0.7), {}),
    (slice_augmented_assignments, (V, np.array([0.3, -1.2])), {}),
    (repeated_index_augmented_write, (V,), {}),
    (repeated_index_write, (V,), {}),
    (add_at_accumulates, (V,), {}),
    (overlapping_slice_copy, (V,), {}),
    (row_swap_through_views, (M,), {}),
    (rows_and_columns_written, (M,), {}),
    (put_along_an_axis, (rng.normal(size=(2, 4)),), {}),
    (in_place_recurrence, (V,), {}),
    (cumsum_diff_cumprod, (V,), {}),
    (sorted_gather_and_range, (V,), {}),
    (top_two, (V,), {}),
    (sorted_rows_gathered, (M,), {}),
    (bucket_weights, (V,), {}),
    (grouped_sums, (V,), {}),
    (padded_in_three_modes, (V,), {}),
    (solve_and_inverse_trace, (SPD, V[:3]), {}),
    (det_and_signed_log_det, (M + 2.0 * np.eye(3),), {}),
    (cholesky_log_diagonal, (M,), {}),
    (eigh_top_value_and_vector, (M,), {}),
    (decomposition_fields, (M,), {}),
    (batched_solve_det_inv, (T233, rng.normal(size=(2, 3))), {}),
    (vector_and_row_norms, (V, A34), {}),
    (matrix_norms, (M,), {}),
    (norms_with_ord_and_axis, (A34,), {}),
    (clip_abs_maximum, (np.array([-1.0, 0.2, 0.45, 2.0]),), {}),
    (maximum_of_a_value_and_itself, (V,), dict(hessian=False)),
    (product_with_zeros, (np.array([0.0, 2.0, 3.0, -1.0]),), {}),
    (product_with_zeros, (np.array([1.5, 0.0, 0.0, -1.0]),), {}),
    (sums_with_where_and_initial, (M,), {}),
    (gaussian_process_nll, (0.3, -0.2, X53, rng.normal(size=5)), {}),
    (causal_attention, (rng.normal(size=(4, 3)), rng.normal(size=(4, 3)), rng.normal(size=(4, 2))), {}),
    (gaussian_elimination, (M + 3.0 * np.eye(3), V[:3]), {}),
]


@pytest.mark.parametrize("fn, args, options", PROGRAMS, ids=[f"{p[0].__name__}-{i}" for i, p in enumerate(PROGRAMS)])
def test_program(fn, args, options):
    check_program(fn, args, **options)


def test_exact_gradients_where_numpy_writes_once_per_index():
    # a[[0, 0, 2]] += x[:3] and a[[0, 0]] = x[:2]: the last value for index 0 wins
    np.testing.assert_array_equal(srcgrad.grad(repeated_index_augmented_write)(V), [0.0, 1.0, 3.0, 0.0])
    np.testing.assert_array_equal(srcgrad.grad(repeated_index_write)(V), [0.0, 2.0 * V[1], 0.0, 0.0])
    np.testing.assert_allclose(srcgrad.grad(add_at_accumulates)(V),
                               [2 * (V[0] + V[1]), 2 * (V[0] + V[1]), 2 * V[2], 0.0], rtol=1e-12)
    # both rows become the old row 1: row 0 gets no gradient
    g = srcgrad.grad(row_swap_through_views)(M)
    np.testing.assert_array_equal(g, [[0.0] * 3, [3.0, 5.0, 7.0], [6.0, 7.0, 8.0]])


def test_a_product_s_gradient_at_zeros():
    # prod(x) + prod(x[1:]) + cumprod(x).sum() at x = (0, 2, 3, -1)
    g = srcgrad.grad(product_with_zeros)(np.array([0.0, 2.0, 3.0, -1.0]))
    np.testing.assert_array_equal(g, [-6.0 + 1.0 + 2.0 + 6.0 - 6.0, -3.0, -2.0, 6.0])


def test_hessian_of_the_singular_values_read_as_a_field():
    def singular_value_sum(a):
        return np.linalg.svd(a).S.sum()

    def unpacked(a):
        _, s, _ = np.linalg.svd(a)
        return s.sum()

    np.testing.assert_allclose(srcgrad.hessian(singular_value_sum)(M), srcgrad.hessian(unpacked)(M), rtol=1e-12)


def test_tangent_of_a_decomposition_keeps_its_class():
    def eigh_of_gram(a):
        return np.linalg.eigh(a @ a.T + np.eye(3))

    out, out_dot = srcgrad.jvp(eigh_of_gram, (M,), (np.ones((3, 3)),))
    assert type(out_dot) is type(out) and type(out).__name__ == "EighResult"
    jac = srcgrad.jacobian(lambda a: eigh_of_gram(a).eigenvalues)(M)
    np.testing.assert_allclose(out_dot.eigenvalues, jac.reshape(3, 9) @ np.ones(9), rtol=1e-10)


def test_einsum_sublists_are_the_subscripts_string():
    b = rng.normal(size=(4, 3))

    def spelled(a, b):
        return (np.einsum("ij,jk->ik", a, b) ** 2).sum() + np.einsum("bB,BA", a, b).sum()

    for got, want in zip(srcgrad.grad(einsum_sublists, wrt=(0, 1))(A34, b), srcgrad.grad(spelled, wrt=(0, 1))(A34, b)):
        np.testing.assert_allclose(got, want, rtol=1e-12)
    # the implicit output orders labels as NumPy does: 'A' (0) before 'b' (27)
    np.testing.assert_allclose(srcgrad.grad(einsum_sublists, wrt=1)(A34, b)[0, 0], 2 * (A34 @ b)[:, 0] @ A34[:, 0] + A34[:, 0].sum(),
                               rtol=1e-12)


def test_einsum_sublists_not_written_out_are_refused():
    labels = [0, 1]

    def named_sublist(a):
        return np.einsum(a, labels, a, [1, 2], [0, 2]).sum()

    with pytest.raises(srcgrad.NotDifferentiableError, match="no derivative rule for `np.einsum` with respect to its argument `subscripts`"):
        srcgrad.grad(named_sublist)(M)
