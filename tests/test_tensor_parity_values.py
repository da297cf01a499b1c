"""Values and gradients where the shim and PyTorch 2.13 disagreed (found by
tests/tensor_fuzz.py). The expected numbers were printed by PyTorch once, or follow by
hand, and are written in, so the file needs no PyTorch.
"""

import numpy as np
import pytest

import srcgrad as torch


# --- sign: PyTorch's (0 < x) - (x < 0), so nan gives 0 ---------------------------------


def test_sign_of_nan_is_zero():
    x = torch.tensor([float("nan"), -2.0, 0.0, -0.0, 3.0], requires_grad=True)
    y = x.sign()
    assert y.tolist() == [0.0, -1.0, 0.0, 0.0, 1.0]
    assert type(y.grad_fn).__name__ == "SignBackward0"
    assert torch.sign(torch.tensor(float("nan"), dtype=torch.float64)).item() == 0.0


def test_sign_of_ints_and_bools():
    assert torch.tensor([3, -2, 0]).sign().tolist() == [1, -1, 0]
    b = torch.tensor([True, False]).sign()
    assert b.dtype == torch.bool and b.tolist() == [True, False]


# --- c / x is PyTorch's x.reciprocal() * c ------------------------------------------------


def test_number_over_tensor_is_reciprocal_times_number():
    x = torch.tensor([-2.88, 1.5], requires_grad=True)
    y = 2 / x
    assert type(y.grad_fn).__name__ == "MulBackward0"
    assert [type(f).__name__ if f else None for f, _ in y.grad_fn.next_functions] == ["ReciprocalBackward0", None]
    # rounded twice, as PyTorch: 1/x in float32, then times 3
    a = np.linspace(0.1, 10, 101, dtype=np.float32)
    expected = np.reciprocal(a) * np.float32(3)
    np.testing.assert_array_equal((3 / torch.tensor(a)).numpy(), expected)


def test_number_over_tensor_backward_ignores_writes_through_data():
    # the reciprocal's saved result is its own; a write into y.data does not reach it
    x = torch.tensor([-2.88, 1.5], requires_grad=True)
    y = 2 / x
    y.data += 1
    y.log10().sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [-0.3427, -0.1654], atol=1e-4)


def test_number_over_int_and_bool_tensors():
    assert (2 / torch.tensor([2, -4])).tolist() == [1.0, -0.5]
    y = 1 / torch.tensor([True, False])
    assert y.dtype == torch.float32 and y.tolist() == [1.0, float("inf")]


# --- what a node keeps: the tensors whose later in-place change breaks backward ---------

F = torch.nn.functional
VERSION_ERROR = "modified by an inplace operation"

# ops whose node keeps no copy of the input's values (PyTorch saves indices, the
# condition, sizes or the result): changing the input afterwards does not break backward
KEEPS_NO_INPUT = {
    "remainder": (lambda x: x % 2.0, [1.0, 1.0, 1.0]),
    "relu": (lambda x: x.relu(), [1.0, 0.0, 1.0]),
    "where": (lambda x: x.where(x > 0, torch.zeros(())), [1.0, 0.0, 1.0]),
    "masked_fill": (lambda x: x.masked_fill(x > 0, 0.0), [0.0, 1.0, 0.0]),
    "index_select": (lambda x: x.index_select(0, torch.tensor([0, 0])), [2.0, 0.0, 0.0]),
    "sort": (lambda x: x.sort()[0], [1.0, 1.0, 1.0]),
    "topk": (lambda x: x.topk(1)[0], [0.0, 0.0, 1.0]),
    "trace": (lambda x: x.reshape(1, -1).trace(), [1.0, 0.0, 0.0]),
}
# ops whose node keeps the input and not the result: changing the result does not
# break backward
KEEPS_NO_RESULT = {
    "softplus": (lambda x: F.softplus(x), [0.5744, 0.3318, 0.7685]),
    "logsigmoid": (lambda x: F.logsigmoid(x), [0.4256, 0.6682, 0.2315]),
    "clamp": (lambda x: x.clamp(min=-0.5, max=0.5), [1.0, 0.0, 0.0]),
    "clamp_min": (lambda x: x.clamp(min=0), [1.0, 0.0, 1.0]),
    "var": (lambda x: x.var(), [0.0333, -0.9667, 0.9333]),
}


def _leaf():
    return torch.tensor([0.3, -0.7, 1.2], requires_grad=True)


@pytest.mark.parametrize("name", sorted(KEEPS_NO_INPUT))
def test_changing_the_input_after_an_op_that_keeps_none_of_it(name):
    op, grad = KEEPS_NO_INPUT[name]
    x = _leaf()
    y = op(x)
    with torch.no_grad():
        x.mul_(2)  # an optimizer step between two backward passes
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), grad, atol=1e-4)


@pytest.mark.parametrize("name", sorted(KEEPS_NO_RESULT))
def test_changing_the_result_of_an_op_that_does_not_keep_it(name):
    op, grad = KEEPS_NO_RESULT[name]
    x = _leaf()
    y = op(x)
    with torch.no_grad():
        y.mul_(1)
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), grad, atol=1e-4)


def test_relu_keeps_its_result_and_gather_its_input():
    x = _leaf()
    y = x.relu()
    y.sub_(1.0)
    with pytest.raises(RuntimeError, match=VERSION_ERROR + r".*output 0 of Relu"):
        y.sum().backward()
    x = _leaf()
    y = x.gather(0, torch.tensor([0, 1]))
    with torch.no_grad():
        x.mul_(2)
    with pytest.raises(RuntimeError, match=VERSION_ERROR):
        y.sum().backward()


def test_softplus_and_logsigmoid_gradients_at_infinity():
    x = torch.tensor([float("inf"), float("-inf")], requires_grad=True)
    F.softplus(x).sum().backward()
    assert x.grad.tolist() == [1.0, 0.0]
    x = torch.tensor([float("inf"), float("-inf")], requires_grad=True)
    F.logsigmoid(x).sum().backward()
    assert x.grad.tolist() == [0.0, 1.0]


# --- losses whose kernels need the target in the input's dtype ---------------------------


def test_binary_cross_entropy_refuses_a_target_of_another_dtype():
    p = torch.full((2,), 0.3, dtype=torch.float64, requires_grad=True)
    with pytest.raises(RuntimeError, match="^Found dtype Float but expected Double$"):
        F.binary_cross_entropy(p, torch.full((2,), 0.6))
    with pytest.raises(RuntimeError, match="^Found dtype Double but expected Float$"):
        F.binary_cross_entropy(p.float(), torch.full((2,), 0.6, dtype=torch.float64), reduction="sum")
    # a weight of another dtype is accepted
    F.binary_cross_entropy(p, p.detach(), weight=torch.full((2,), 0.5))


def test_huber_loss_of_two_dtypes_has_the_inputs_dtype_and_refuses_backward():
    x = torch.tensor([0.3, -2.7, 1.1], requires_grad=True)
    t = torch.tensor([0.1, 0.2, 0.35], dtype=torch.float64)
    y = F.huber_loss(x, t, delta=0.5)
    assert y.dtype == torch.float32 and type(y.grad_fn).__name__ == "HuberLossBackward0"
    np.testing.assert_allclose(y.item(), 0.5317, atol=1e-4)
    assert F.huber_loss(x, t, reduction="none").tolist() == pytest.approx([0.02, 2.4, 0.28125])
    with pytest.raises(RuntimeError, match="^Found dtype Double but expected Float$"):
        y.backward()
    y = F.huber_loss(t.requires_grad_(), x.detach(), reduction="sum")
    assert y.dtype == torch.float64
    with pytest.raises(RuntimeError, match="^Found dtype Float but expected Double$"):
        y.backward()


# --- index checks of index_select, gather and advanced-index writes ---------------------


def test_index_select_and_gather_refuse_negative_and_large_indices():
    x = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
    for index in ([-1, -1], [2]):
        with pytest.raises(IndexError, match="^index out of range in self$"):
            x.index_select(0, torch.tensor(index))
    with pytest.raises(RuntimeError, match="^INDICES element is out of DATA bounds, id=-1 axis_dim=2$"):
        x.index_select(1, torch.tensor([-1]))
    with pytest.raises(RuntimeError, match="^index -1 is out of bounds for dimension 0 with size 2$"):
        x.gather(0, torch.tensor([[-1, 0]]))
    y = torch.tensor(5.0, requires_grad=True).index_select(0, torch.tensor([0]))
    assert y.shape == () and type(y.grad_fn).__name__ == "IndexSelectBackward0"


def test_advanced_index_writes_need_the_destinations_dtype():
    message = "^Index put requires the source and destination dtypes match, got Long for the destination and Float"
    x = torch.tensor([1, 2])
    for index, value in (([0], [2.5]), ([0, 0], [2.5, 1.5]), (torch.tensor([0]), [2.5]), (x > 0, [2.5, 1.5])):
        with pytest.raises(RuntimeError, match=message):
            x[index] = torch.tensor(value)
    x = torch.tensor([1.0, 2.0])
    with pytest.raises(RuntimeError, match="got Float for the destination and Double for the source"):
        x[[0, 1]] = torch.tensor(2.5, dtype=torch.float64)
    # basic indexing copies (casting), and a mask with one value is masked_fill_
    x[0] = torch.tensor(3, dtype=torch.int64)
    x[x > 2] = torch.tensor([7.5], dtype=torch.float64)
    assert x.tolist() == [7.5, 2.0]
    with pytest.raises(RuntimeError, match="^shape mismatch"):  # reported before the dtype
        torch.tensor([1, 2])[[0]] = torch.tensor([2.5, 1.5])


# --- remainder's gradient and ignored class targets --------------------------------------


def test_remainder_gradient_uses_the_floor_division():
    # 28.42 / -4.06 rounds to -7.0 in float32, but the floor division is -8 (as x % y's
    # own quotient): the divisor's gradient is -floor_divide(x, y)
    x = torch.tensor([[[-4.06], [-7.0]]], requires_grad=True)
    (x.bmm(x.transpose(1, 2)) % x).sum().backward()
    np.testing.assert_allclose(x.grad.numpy().ravel(), [-9.12, -10.12], atol=1e-4)


def test_an_ignored_target_has_loss_zero_where_its_log_probability_is_infinite():
    x = (1e-3 / torch.arange(5)).requires_grad_()  # inf at class 0
    for reduction in ("none", "sum"):
        y = F.cross_entropy(x, torch.tensor(0), ignore_index=0, reduction=reduction)
        assert y.item() == 0.0 and not np.signbit(y.item())
    x = torch.tensor([[float("-inf"), 1.0], [0.5, 2.0]], requires_grad=True)
    y = F.nll_loss(x, torch.tensor([0, 1]), ignore_index=0, reduction="none")
    assert y.tolist() == [0.0, -2.0] and not np.signbit(y[0].item())
    y.sum().backward()
    assert x.grad.tolist() == [[0.0, 0.0], [0.0, -1.0]]


# --- hardtanh and relu6 -------------------------------------------------------------------


def test_hardtanh_passes_gradient_strictly_inside_and_at_nan():
    x = torch.tensor([-2.0, -1.0, 0.5, 1.0, 7.0, float("nan")], requires_grad=True)
    y = F.hardtanh(x)
    assert type(y.grad_fn).__name__ == "HardtanhBackward0"
    np.testing.assert_array_equal(y.detach().numpy(), [-1.0, -1.0, 0.5, 1.0, 1.0, np.nan])
    y.sum().backward()
    assert x.grad.tolist() == [0.0, 0.0, 1.0, 0.0, 0.0, 1.0]
    assert F.relu6(torch.tensor([-1.0, 3.0, 9.0])).tolist() == [0.0, 3.0, 6.0]
    assert F.hardtanh(torch.tensor([1, -2, 3]), -1.5, 2.5).tolist() == [1, -1, 2]
    with pytest.raises(ValueError, match="min_val cannot be greater than max_val"):
        F.hardtanh(x, 2.0, 1.0)


def test_hardtanh_modules_print_as_pytorch():
    assert repr(torch.nn.Hardtanh()) == "Hardtanh(min_val=-1.0, max_val=1.0)"
    assert repr(torch.nn.Hardtanh(-2, 3)) == "Hardtanh(min_val=-2, max_val=3)"
    assert repr(torch.nn.ReLU6(inplace=True)) == "ReLU6(inplace=True)"
    z = torch.tensor([-3.0, 0.2], requires_grad=True) * 1
    torch.nn.Hardtanh(-0.5, 0.5, inplace=True)(z)
    assert z.tolist() == [-0.5, pytest.approx(0.2)] and type(z.grad_fn).__name__ == "HardtanhBackward0"


def test_remainder_by_a_constant_saves_nothing_and_can_run_backward_again():
    x = torch.full((), 1.5, requires_grad=True)
    for other in (torch.tensor(2), 2.0, torch.tensor(2.0)):
        o = (x % other).sum()
        o.backward()
        o.backward()
    assert x.grad.item() == 6.0
    o = (x % torch.tensor(2.0, requires_grad=True)).sum()
    o.backward()
    with pytest.raises(RuntimeError, match="^Trying to backward through the graph a second time"):
        o.backward()


def test_division_gradient_rounds_as_pytorch():
    # PyTorch: g / y for x, -g * ((x / y) / y) for y; x / x then sums to a rounding
    # residue, which PyTorch shows (values printed by PyTorch 2.13)
    x = torch.tensor([0.88, -0.65, -0.06], requires_grad=True)
    g = np.full(3, 31.17, dtype=np.float32)
    (x / x * torch.tensor(g)).sum().backward()
    assert x.grad.tolist() == [0.0, -3.814697265625e-06, 6.103515625e-05]
    a = x.detach().numpy()
    np.testing.assert_array_equal(x.grad.numpy(), g / a + (-g * ((a / a) / a)))
