"""Meta tensors' strides, storage offsets and contiguity, and PyTorch's device checks and
meta-kernel messages for joins and products (stored expectations from PyTorch 2.13),
with a comparison against PyTorch by script."""

import pytest

import srcgrad


def M(T, *size, **kwargs):
    return T.empty(*size, device="meta", **kwargs)


def C(T, *size):
    return T.ones(*size)


# (make, (shape, stride(), is_contiguous(), storage_offset())) as PyTorch gives them
LAYOUTS = {
    "fresh": (lambda T: M(T, 3, 4, 5), ((3, 4, 5), (20, 5, 1), True, 0)),
    "t": (lambda T: M(T, 3, 4).t(), ((4, 3), (1, 4), False, 0)),
    "transpose": (lambda T: M(T, 2, 3, 4).transpose(0, 2), ((4, 3, 2), (1, 4, 12), False, 0)),
    "permute": (lambda T: M(T, 2, 3, 4).permute(2, 0, 1), ((4, 2, 3), (1, 12, 4), False, 0)),
    "expand": (lambda T: M(T, 3, 1).expand(3, 4), ((3, 4), (1, 0), False, 0)),
    "expand_new_dims": (lambda T: M(T, 4).expand(2, 3, 4), ((2, 3, 4), (0, 0, 1), False, 0)),
    "narrow_cols": (lambda T: M(T, 5, 6).narrow(1, 2, 3), ((5, 3), (6, 1), False, 2)),
    "narrow_rows": (lambda T: M(T, 5, 6).narrow(0, 1, 3), ((3, 6), (6, 1), True, 6)),
    "slice_step": (lambda T: M(T, 10, 4)[::2], ((5, 4), (8, 1), False, 0)),
    "slice_cols": (lambda T: M(T, 10, 4)[:, 1:3], ((10, 2), (4, 1), False, 1)),
    "select": (lambda T: M(T, 3, 4, 5)[1], ((4, 5), (5, 1), True, 20)),
    "select_mid": (lambda T: M(T, 3, 4, 5)[:, 2], ((3, 5), (20, 1), False, 10)),
    "select_all": (lambda T: M(T, 3, 4)[1, 2], ((), (), True, 6)),
    "unsqueeze": (lambda T: M(T, 3, 4).unsqueeze(1), ((3, 1, 4), (4, 4, 1), True, 0)),
    "squeeze": (lambda T: M(T, 3, 1, 4).squeeze(1), ((3, 4), (4, 1), True, 0)),
    "view": (lambda T: M(T, 3, 4).view(2, 6), ((2, 6), (6, 1), True, 0)),
    "reshape_view": (lambda T: M(T, 3, 4).reshape(12), ((12,), (1,), True, 0)),
    "reshape_copy": (lambda T: M(T, 3, 4).t().reshape(12), ((12,), (1,), True, 0)),
    "reshape_of_narrow": (lambda T: M(T, 4, 6).narrow(1, 0, 4).reshape(2, 2, 4), ((2, 2, 4), (12, 6, 1), False, 0)),
    "contiguous": (lambda T: M(T, 3, 4).t().contiguous(), ((4, 3), (3, 1), True, 0)),
    "diagonal": (lambda T: M(T, 4, 4).diagonal(), ((4,), (5,), False, 0)),
    "diagonal_offset": (lambda T: M(T, 4, 5).diagonal(1), ((4,), (6,), False, 1)),
    "unbind": (lambda T: M(T, 3, 4).unbind(1)[1], ((3,), (4,), False, 1)),
    "split": (lambda T: M(T, 6, 4).split(2, dim=1)[1], ((6, 2), (4, 1), False, 2)),
    "chunk": (lambda T: M(T, 6, 4).chunk(2)[1], ((3, 4), (4, 1), True, 12)),
    "movedim": (lambda T: M(T, 2, 3, 4).movedim(0, 2), ((3, 4, 2), (4, 1, 12), False, 0)),
    "mT": (lambda T: M(T, 2, 3, 4).mT, ((2, 4, 3), (12, 1, 4), False, 0)),
    "T": (lambda T: M(T, 3, 4).T, ((4, 3), (1, 4), False, 0)),
    "view_of_view": (lambda T: M(T, 3, 4).t().unsqueeze(0), ((1, 4, 3), (4, 1, 4), False, 0)),
    "int64": (lambda T: M(T, 3, 4, dtype=T.int64).t(), ((4, 3), (1, 4), False, 0)),
    "size_one_dims": (lambda T: M(T, 1, 4).t(), ((4, 1), (1, 4), True, 0)),
    "no_elements": (lambda T: M(T, 0, 3).t(), ((3, 0), (1, 3), True, 0)),
    "zero_dim": (lambda T: M(T, ()), ((), (), True, 0)),
    "matmul": (lambda T: M(T, 3, 4) @ M(T, 4, 5), ((3, 5), (5, 1), True, 0)),
    "sum": (lambda T: M(T, 3, 4).sum(0), ((4,), (1,), True, 0)),
    "flatten_copy": (lambda T: M(T, 3, 4).t().flatten(), ((12,), (1,), True, 0)),
    "advanced_index": (lambda T: M(T, 5, 4)[[0, 2]], ((2, 4), (4, 1), True, 0)),
    "exp_of_expand": (lambda T: M(T, 3, 1).expand(3, 4).exp(), ((3, 4), (4, 1), True, 0)),
    "zeros": (lambda T: T.zeros(2, 3, device="meta"), ((2, 3), (3, 1), True, 0)),
    "empty_strided": (lambda T: T.empty_strided((2, 3), (1, 2), device="meta"), ((2, 3), (1, 2), False, 0)),
    "as_strided": (lambda T: M(T, 12).as_strided((3, 2), (1, 3), 2), ((3, 2), (1, 3), False, 2)),
    "as_strided_unchecked": (lambda T: M(T, 12).as_strided((3, 5), (1, 3)), ((3, 5), (1, 3), False, 0)),
    "as_strided_own_offset": (lambda T: M(T, 12)[3:].as_strided((2,), (1,)), ((2,), (1,), True, 3)),
    "as_strided_of_view": (lambda T: M(T, 3, 4).t().as_strided((2, 2), (1, 1), 1), ((2, 2), (1, 1), False, 1)),
    "elementwise_of_t": (lambda T: M(T, 3, 4).t() + 1, ((4, 3), (1, 4), False, 0)),
    "elementwise_first_operand_decides": (lambda T: M(T, 3, 4).t() + M(T, 4, 3), ((4, 3), (1, 4), False, 0)),
    "elementwise_contiguous_first": (lambda T: M(T, 4, 3) + M(T, 3, 4).t(), ((4, 3), (3, 1), True, 0)),
    "elementwise_broadcast_first": (lambda T: M(T, 3) + M(T, 3, 4).t(), ((4, 3), (1, 4), False, 0)),
    "elementwise_permuted": (lambda T: M(T, 2, 3, 4).permute(2, 0, 1).sigmoid(), ((4, 2, 3), (1, 12, 4), False, 0)),
    "elementwise_size_one": (lambda T: M(T, 1, 4).t() + 1, ((4, 1), (1, 1), True, 0)),
    "elementwise_not_dense": (lambda T: M(T, 3, 4)[:, :2].exp(), ((3, 2), (2, 1), True, 0)),
    "true_divide_of_int": (lambda T: M(T, 3, 4, dtype=T.int64).t() / 2, ((4, 3), (1, 4), False, 0)),
    "to_float64": (lambda T: M(T, 3, 4).t().to(T.float64), ((4, 3), (1, 4), False, 0)),
    "comparison": (lambda T: M(T, 3, 4).t() > 0, ((4, 3), (1, 4), False, 0)),
    "where": (lambda T: T.where(M(T, 3, 4, dtype=T.bool).t(), M(T, 4, 3), 1.0), ((4, 3), (1, 4), False, 0)),
    "clamp": (lambda T: M(T, 3, 4).t().clamp(0, 1), ((4, 3), (1, 4), False, 0)),
    "gelu": (lambda T: T.nn.functional.gelu(M(T, 3, 4).t()), ((4, 3), (1, 4), False, 0)),
    "clone": (lambda T: M(T, 3, 4).t().clone(), ((4, 3), (1, 4), False, 0)),
    "dropout": (lambda T: T.nn.functional.dropout(M(T, 3, 4).t(), 0.5), ((4, 3), (1, 4), False, 0)),
    "contiguous_with_grad": (lambda T: M(T, 3, 4, requires_grad=True).t().contiguous(), ((4, 3), (3, 1), True, 0)),
    "cumsum": (lambda T: M(T, 3, 4).t().cumsum(0), ((4, 3), (3, 1), True, 0)),
    "zeros_like": (lambda T: T.zeros_like(M(T, 3, 4).t()), ((4, 3), (1, 4), False, 0)),
    "empty_like": (lambda T: T.empty_like(M(T, 3, 4).t()), ((4, 3), (1, 4), False, 0)),
    "full_like_float64": (lambda T: T.full_like(M(T, 3, 4).t(), 2.0, dtype=T.float64), ((4, 3), (1, 4), False, 0)),
    "rand_like": (lambda T: T.rand_like(M(T, 3, 4).t()), ((4, 3), (1, 4), False, 0)),
    "randn_like_expanded": (lambda T: T.randn_like(M(T, 3, 1).expand(3, 4)), ((3, 4), (4, 1), True, 0)),
    "flip": (lambda T: M(T, 3, 4).t().flip(0), ((4, 3), (1, 4), False, 0)),
    "argsort": (lambda T: M(T, 3, 4).t().argsort(0), ((4, 3), (1, 4), False, 0)),
    "softmax": (lambda T: M(T, 3, 4).t().softmax(1), ((4, 3), (3, 1), True, 0)),
    "log_softmax": (lambda T: M(T, 3, 4).t().log_softmax(1), ((4, 3), (3, 1), True, 0)),
    "deepcopy": (lambda T: __import__("copy").deepcopy(M(T, 3, 4).t()), ((4, 3), (1, 4), False, 0)),
    "unsqueeze_last": (lambda T: M(T, 3, 4).t().unsqueeze(-1), ((4, 3, 1), (1, 4, 1), False, 0)),
    "index_none": (lambda T: M(T, 3, 4)[None, :, None], ((1, 3, 1, 4), (12, 4, 4, 1), True, 0)),
    "index_none_last": (lambda T: M(T, 3, 4)[..., None], ((3, 4, 1), (4, 1, 1), True, 0)),
    "index_none_numbers": (lambda T: M(T, 2, 3, 4)[None, 1, ..., None, 2], ((1, 3, 1), (24, 4, 4), False, 14)),
    "index_nones": (lambda T: M(T, 3, 4)[None, None], ((1, 1, 3, 4), (12, 12, 4, 1), True, 0)),
    "t_": (lambda T: M(T, 3, 4).t_(), ((4, 3), (1, 4), False, 0)),
    "transpose_": (lambda T: M(T, 2, 3, 4).transpose_(0, 2), ((4, 3, 2), (1, 4, 12), False, 0)),
    "huge_contiguous": (lambda T: M(T, 10**6, 10**6).t().contiguous(), ((10**6, 10**6), (10**6, 1), True, 0)),
    "huge": (lambda T: M(T, 10**6, 10**6).t()[2:, 5], ((999998,), (1,), True, 5000002)),
}


def _layout(t):
    return tuple(t.shape), tuple(t.stride()), t.is_contiguous(), t.storage_offset()


@pytest.mark.parametrize("name", LAYOUTS)
def test_meta_layouts_are_pytorchs(name):
    make, expected = LAYOUTS[name]
    t = make(srcgrad)
    assert t.is_meta and _layout(t) == expected
    dim = len(expected[1]) - 1
    if dim >= 0:
        assert t.stride(dim) == expected[1][dim] and t.stride(-1) == expected[1][-1]


def test_as_strided_of_a_meta_tensor_that_requires_grad_is_refused():
    t = M(srcgrad, 3, requires_grad=True)
    with pytest.raises(NotImplementedError, match="as_strided of a meta tensor that requires grad is not supported"):
        t.as_strided((2,), (1,))
    view = t.detach().as_strided((2,), (1,), 1)
    assert view.is_meta and view._base is not None and view.storage_offset() == 1


# PyTorch 2.13's view() strides of a permuted tensor viewed with size-1 dims, where
# NumPy's no-copy reshape strides the size-1 dims otherwise
VIEWS_WITH_SIZE_ONE_DIMS = [
    ((2, 1), (1, 0), (1, 2), (2, 1)),
    ((1, 4), (1, 0), (2, 1, 1, 2, 1), (2, 2, 2, 1, 4)),
    ((1, 1, 3, 1), (3, 2, 0, 1), (3, 1, 1), (1, 3, 3)),
    ((2, 4, 1), (0, 2, 1), (2, 1, 4), (4, 4, 1)),
    ((1, 4), (1, 0), (2, 2, 1), (2, 1, 4)),
    ((2, 4, 1), (1, 0, 2), (1, 4, 2, 1), (4, 1, 4, 1)),
]


@pytest.mark.parametrize("size, order, shape, strides", VIEWS_WITH_SIZE_ONE_DIMS)
def test_meta_view_strides_are_pytorchs_computed_strides(size, order, shape, strides):
    view = srcgrad.empty(size, device="meta").permute(order).view(shape)
    assert view.shape == shape and view.stride() == strides and view.is_meta


def test_meta_views_keep_no_memory():
    t = M(srcgrad, 10**6, 10**6).t()[:, 3:].unsqueeze(0)
    assert t.nbytes == 4 * 10**6 * (10**6 - 3) and t._data.strides == (0, 0, 0) and t.stride() == (10**6, 1, 10**6) and t.storage_offset() == 3 * 10**6


# (action, error type, message) as PyTorch gives them
ERRORS = {
    "cat_meta_cpu": (lambda T: T.cat([M(T, 2, 3), C(T, 2, 3)]), RuntimeError,
                     "Tensor on device cpu is not on the expected device meta!"),
    "cat_cpu_meta": (lambda T: T.cat([C(T, 2, 3), M(T, 2, 3)]), RuntimeError,
                     "Tensor on device meta is not on the expected device cpu!"),
    "cat_cpu_scalar": (lambda T: T.cat([M(T, 2, 3), T.tensor(1.0)]), RuntimeError,
                       "Tensor on device cpu is not on the expected device meta!"),
    "cat_cpu_empty": (lambda T: T.cat([M(T, 2, 3), C(T, 0)]), RuntimeError,
                      "Tensor on device cpu is not on the expected device meta!"),
    "cat_devices_before_dim": (lambda T: T.cat([M(T, 2, 3), C(T, 2, 3)], dim=2), RuntimeError,
                               "Tensor on device cpu is not on the expected device meta!"),
    "cat_sizes": (lambda T: T.cat([M(T, 2, 3), M(T, 2, 4)]), RuntimeError,
                  "Sizes of tensors must match except in dimension 0. Expected 3 in dimension 1 but got 4 for tensor "
                  "number 1 in the list"),
    "cat_sizes_dim1": (lambda T: T.cat([M(T, 2, 3), M(T, 3, 4)], dim=1), RuntimeError,
                       "Sizes of tensors must match except in dimension 1. Expected 2 in dimension 0 but got 3 for "
                       "tensor number 1 in the list"),
    "cat_sizes_numbered_without_empties": (lambda T: T.cat([M(T, 2, 3), M(T, 0), M(T, 2, 4)]), RuntimeError,
                                           "Sizes of tensors must match except in dimension 0. Expected 3 in "
                                           "dimension 1 but got 4 for tensor number 1 in the list"),
    "cat_ndim": (lambda T: T.cat([M(T, 2, 3), M(T, 3)]), RuntimeError,
                 "Number of dimensions of tensors must match.  Expected 2-D tensors, but got 1-D for tensor number 1 "
                 "in the list"),
    "cat_ndim_numbered_with_empties": (lambda T: T.cat([M(T, 2, 3), M(T, 0), M(T, 3)]), RuntimeError,
                                       "Number of dimensions of tensors must match.  Expected 2-D tensors, but got "
                                       "1-D for tensor number 2 in the list"),
    "cat_zero_dim_first": (lambda T: T.cat([M(T, 2, 3), M(T, 3), M(T, ())]), RuntimeError,
                           "Number of dimensions of tensors must match.  Expected 2-D tensors, but got 0-D for "
                           "tensor number 2 in the list"),
    "cat_zero_dim_reference": (lambda T: T.cat([M(T, ()), M(T, 2, 3)]), RuntimeError,
                               "Number of dimensions of tensors must match.  Expected 0-D tensors, but got 2-D for "
                               "tensor number 1 in the list"),
    "stack_meta_cpu": (lambda T: T.stack([M(T, 2, 3), C(T, 2, 3)]), RuntimeError,
                       "Tensor on device cpu is not on the expected device meta!"),
    "stack_cpu_scalar": (lambda T: T.stack([M(T, ()), T.tensor(1.0)]), RuntimeError,
                         "Tensor on device cpu is not on the expected device meta!"),
    "stack_sizes": (lambda T: T.stack([M(T, 2, 3), M(T, 2, 3), M(T, 3, 3)]), RuntimeError,
                    "stack expects each tensor to be equal size, but got {}.Size([2, 3]) at entry 0 "),
    "where_meta_condition": (lambda T: T.where(M(T, 3, dtype=T.bool), C(T, 3), C(T, 3)), RuntimeError,
                             "Tensor on device cpu is not on the expected device meta!"),
    "where_cpu_condition": (lambda T: T.where(C(T, 3) > 0, M(T, 3), C(T, 3)), RuntimeError,
                            "Tensor on device meta is not on the expected device cpu!"),
    "lerp_meta_cpu": (lambda T: T.lerp(M(T, 3), C(T, 3), 0.5), RuntimeError,
                      "Tensor on device cpu is not on the expected device meta!"),
    "lerp_cpu_meta": (lambda T: T.lerp(C(T, 3), M(T, 3), 0.5), RuntimeError,
                      "Tensor on device meta is not on the expected device cpu!"),
    "lerp_cpu_weight": (lambda T: T.lerp(M(T, 3), M(T, 3), C(T, 3)), RuntimeError,
                        "Tensor on device cpu is not on the expected device meta!"),
    "mm": (lambda T: M(T, 2, 3) @ M(T, 4, 5), RuntimeError,
           "a and b must have same reduction dim, but got [2, 3] X [4, 5]."),
    "mm_function": (lambda T: T.mm(M(T, 2, 3), M(T, 4, 5)), RuntimeError,
                    "a and b must have same reduction dim, but got [2, 3] X [4, 5]."),
    "mm_vector": (lambda T: T.mm(M(T, 3), M(T, 3, 4)), RuntimeError, "a must be 2D"),
    "mm_vector_right": (lambda T: T.mm(M(T, 2, 3), M(T, 3)), RuntimeError, "b must be 2D"),
    "matmul_vector_matrix": (lambda T: T.matmul(M(T, 3), M(T, 4, 5)), RuntimeError,
                             "a and b must have same reduction dim, but got [1, 3] X [4, 5]."),
    "matmul_batch_matrix": (lambda T: T.matmul(M(T, 7, 2, 3), M(T, 4, 5)), RuntimeError,
                            "a and b must have same reduction dim, but got [14, 3] X [4, 5]."),
    "matmul_matrix_batch": (lambda T: T.matmul(M(T, 2, 3), M(T, 7, 4, 5)), RuntimeError,
                            "Expected size for first two dimensions of batch2 tensor to be: [7, 3] but got: [7, 4]."),
    "matmul_grad_vector_batch": (lambda T: T.matmul(M(T, 3, requires_grad=True), M(T, 2, 4, 5)), RuntimeError,
                                 "size mismatch, got input (10x4), vec (3)"),
    "matmul_grad_matrix_batch": (lambda T: T.matmul(M(T, 2, 3, requires_grad=True), M(T, 2, 4, 5)), RuntimeError,
                                 "a and b must have same reduction dim, but got [10, 4] X [3, 2]."),
    "matmul_matrix_vector": (lambda T: T.matmul(M(T, 2, 3), M(T, 4)), RuntimeError,
                             "size mismatch, got input (2x3), vec (4)"),
    "matmul_batch_vector": (lambda T: T.matmul(M(T, 2, 2, 3), M(T, 4)), RuntimeError,
                            "size mismatch, got input (4x3), vec (4)"),
    "matmul_vectors": (lambda T: T.matmul(M(T, 3), M(T, 4)), RuntimeError,
                       "inconsistent tensor size, expected tensor [3] and src [4] to have thesame number of elements, "
                       "but got 3 and 4 elements respectively"),
    "mv": (lambda T: T.mv(M(T, 2, 3), M(T, 4)), RuntimeError, "size mismatch, got input (2x3), vec (4)"),
    "mv_dims": (lambda T: T.mv(M(T, 2, 3), M(T, 4, 1)), RuntimeError, "matrix @ vector expected, got 2, 2"),
    "dot_dtypes": (lambda T: T.dot(M(T, 3), M(T, 3, dtype=T.float64)), RuntimeError,
                   "dot : expected both vectors to have same dtype, but found {0}.float32 and {0}.float64"),
    "addmm": (lambda T: T.addmm(M(T, 2, 4), M(T, 2, 3), M(T, 4, 4)), RuntimeError,
              "a and b must have same reduction dim, but got [2, 3] X [4, 4]."),
    "addmm_vector": (lambda T: T.addmm(M(T, 2, 4), M(T, 3), M(T, 3, 4)), RuntimeError, "a must be 2D"),
    "linear": (lambda T: T.nn.functional.linear(M(T, 2, 3), M(T, 4, 5)), RuntimeError,
               "a and b must have same reduction dim, but got [2, 3] X [5, 4]."),
    "view_of_t": (lambda T: M(T, 3, 4).t().view(-1), RuntimeError,
                  "view size is not compatible with input tensor's size and stride (at least one dimension spans across "
                  "two contiguous subspaces). Use .reshape(...) instead."),
    "bmm_batches": (lambda T: T.bmm(M(T, 2, 2, 3), M(T, 3, 3, 5)), RuntimeError,
                    "Expected size for first two dimensions of batch2 tensor to be: [2, 3] but got: [3, 3]."),
    "bmm_batch_of_one": (lambda T: T.bmm(M(T, 2, 2, 3), M(T, 1, 3, 5)), RuntimeError,
                         "Expected size for first two dimensions of batch2 tensor to be: [2, 3] but got: [1, 3]."),
    "bmm_batch_of_one_cpu": (lambda T: T.bmm(C(T, 2, 2, 3), C(T, 1, 3, 5)), RuntimeError,
                             "Expected size for first two dimensions of batch2 tensor to be: [2, 3] but got: [1, 3]."),
    "bmm_dtypes": (lambda T: T.bmm(M(T, 2, 2, 3), M(T, 2, 3, 4, dtype=T.float64)), RuntimeError,
                   "expected scalar type {0}.float32 but found {0}.float64"),
    "bmm_dtypes_cpu": (lambda T: T.bmm(C(T, 2, 2, 3), C(T, 2, 3, 4).double()), RuntimeError,
                       "expected scalar type Float but found Double"),
}


@pytest.mark.parametrize("name", ERRORS)
def test_meta_errors_are_pytorchs(name):
    action, error, message = ERRORS[name]
    with pytest.raises(error) as raised:
        action(srcgrad)
    assert str(raised.value) == message.format("srcgrad")


@pytest.mark.parametrize("make, shape", [
    (lambda T: T.cat([M(T, 2, 3), M(T, 0)]), (2, 3)),
    (lambda T: T.cat([M(T, 2, 3), M(T, 2, 4)], dim=-1), (2, 7)),
    (lambda T: T.where(M(T, 3, dtype=T.bool), M(T, 3), T.tensor(1.0)), (3,)),
    (lambda T: T.where(T.tensor(True), M(T, 3), M(T, 3)), (3,)),
    (lambda T: T.bmm(M(T, 2, 2, 3), M(T, 2, 3, 5)), (2, 2, 5)),
])
def test_what_pytorch_allows_on_meta(make, shape):
    t = make(srcgrad)
    assert t.is_meta and tuple(t.shape) == shape


def test_against_pytorch():
    torch = pytest.importorskip("torch")
    for name, (make, expected) in LAYOUTS.items():
        assert _layout(make(torch)) == _layout(make(srcgrad)) == expected, name
    for name, (action, error, message) in ERRORS.items():
        with pytest.raises(error) as raised:
            action(torch)
        assert str(raised.value) == message.format("torch"), name


@pytest.mark.parametrize("make, names", [
    (lambda T: M(T, 3, 4, requires_grad=True).reshape(12), ("ViewBackward0", "AccumulateGrad")),
    (lambda T: M(T, 3, 4, requires_grad=True).t().reshape(12), ("UnsafeViewBackward0", "CloneBackward0")),
    (lambda T: M(T, 3, 4, requires_grad=True)[:, :2].reshape(6), ("UnsafeViewBackward0", "CloneBackward0")),
    (lambda T: M(T, 3, 4, requires_grad=True)[1:].reshape(8), ("ViewBackward0", "SliceBackward0")),
    (lambda T: M(T, 3, 4, requires_grad=True).t().reshape(4, 3), ("ViewBackward0", "TBackward0")),
])
def test_meta_reshapes_copy_where_the_layout_needs_it(make, names):
    t = make(srcgrad)
    assert (type(t.grad_fn).__name__, type(t.grad_fn.next_functions[0][0]).__name__) == names


def test_dropout_of_a_meta_tensor_draws_nothing():
    x = M(srcgrad, 3, 4, requires_grad=True)
    srcgrad.manual_seed(0)
    y = srcgrad.nn.functional.dropout(x, 0.5)
    after = srcgrad.rand(2).tolist()
    srcgrad.manual_seed(0)
    assert srcgrad.rand(2).tolist() == after
    assert y.is_meta and type(y.grad_fn).__name__ == "MulBackward0" and tuple(y.shape) == (3, 4)
    assert srcgrad.nn.functional.dropout(M(srcgrad, 2), 1.0).is_meta
