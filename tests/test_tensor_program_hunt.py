"""Regression cases from random autograd programs run under the shim and PyTorch 2.13.

Each case is a program (or the smallest part of one) where the shim's values,
gradients or version counts differed from PyTorch's; the expected numbers were
printed by PyTorch once and are written in, so the file needs no PyTorch.
"""

import math

import numpy as np
import pytest

import srcgrad as torch
from srcgrad.tensor import tie_orders

M = [[1.0, 2.0, 5.0], [3.0, 4.0, 6.0]]


# --- select and narrow with a negative dim count it from the end --------------------


@pytest.mark.parametrize("dim, index, expected", [
    (-1, -1, [5.0, 6.0]),
    (-1, 0, [1.0, 3.0]),
    (-2, -1, [3.0, 4.0, 6.0]),
    (1, -1, [5.0, 6.0]),
])
def test_select_negative_dim(dim, index, expected):
    a = torch.tensor(M, requires_grad=True)
    out = (a * 1).select(dim, index)
    assert out.tolist() == expected
    assert type(out.grad_fn).__name__ == "SelectBackward0"
    out.sum().backward()
    grad = np.zeros((2, 3))
    grad[(slice(None),) * (dim % 2) + (index,)] = 1.0
    assert a.grad.tolist() == grad.tolist()


def test_narrow_negative_dim():
    a = torch.tensor(M, requires_grad=True)
    out = (a * 1).narrow(-1, 1, 2)
    assert out.tolist() == [[2.0, 5.0], [4.0, 6.0]]
    assert type(out.grad_fn).__name__ == "SliceBackward0"
    (out * torch.tensor([[1.0, 2.0], [3.0, 4.0]])).sum().backward()
    assert a.grad.tolist() == [[0.0, 1.0, 2.0], [0.0, 3.0, 4.0]]


# --- x[()] of a 0-d tensor is a view: a write through it reaches x -------------------


def test_empty_tuple_index_of_0d_is_a_view():
    t = torch.tensor(2.0, requires_grad=True)
    s = t * 1
    u = s[()]
    assert u._is_view() and type(u.grad_fn).__name__ == "AliasBackward0"
    u.mul_(3)
    assert s.item() == 6.0 and type(s.grad_fn).__name__ == "CopySlices"
    assert type(u.grad_fn).__name__ == "AsStridedBackward0"
    s.backward()
    assert t.grad.item() == 3.0
    assert s._version == 1 and u._version == 1


# --- _version counts every in-place write, as PyTorch's ------------------------------


@pytest.mark.parametrize("requires_grad", [False, True])
def test_version_counts_writes_into_untracked_tensors(requires_grad):
    c = (torch.ones(2, 3, requires_grad=requires_grad) * 1).clone()
    versions = []
    c[0] = 5.0
    versions.append(c._version)
    c.mul_(2)
    versions.append(c._version)
    c[:, 1] += 1  # a write into the view, then `c[:, 1] = view`: two
    versions.append(c._version)
    row = c[0]
    row.add_(1)
    versions.append((c._version, row._version))
    c.zero_()
    versions.append(c._version)
    assert versions == [1, 2, 4, (5, 5), 6]


def test_version_of_a_plain_tensor_and_of_an_accumulated_grad():
    x = torch.ones(3)
    x[0] = 2
    x.add_(1)
    assert x._version == 2
    w = torch.ones(2, requires_grad=True)
    (w * 2).sum().backward()
    (w * 2).sum().backward()
    assert w.grad._version == 1 and w.grad.tolist() == [4.0, 4.0]


# --- among ties, sort, topk, kthvalue and mode pick PyTorch's CPU entries -------------
# (the gradient goes to the index picked, so a stable order gives wrong gradients)


def test_topk_ties_pick_and_gradient():
    a = torch.tensor([[1.0, 1.0, 1.0, 1.0], [1.4, 1.0, 1.0, 1.0]], requires_grad=True)
    top = a.topk(2, -1)
    assert top.indices.tolist() == [[2, 3], [0, 2]]
    (top.values * torch.tensor([[1.0, 10.0]])).sum().backward()
    assert a.grad.tolist() == [[0.0, 0.0, 1.0, 10.0], [1.0, 0.0, 10.0, 0.0]]
    assert a.topk(3, -1, largest=False, sorted=False).indices.tolist() == [[2, 3, 0], [2, 3, 1]]
    assert torch.tensor([1.0, 1.0, 1.0, 1.414]).topk(1, largest=False).indices.tolist() == [1]


def test_topk_ties_partial_sort_path():
    y = torch.tensor((np.arange(130) % 4 == 1).astype(np.float32))  # k * 64 <= n
    assert y.topk(2).indices.tolist() == [5, 1]
    assert y.topk(2, largest=False).indices.tolist() == [2, 0]


def test_kthvalue_ties_pick():
    assert torch.tensor([1.4, 1.0, 1.0, 1.0]).kthvalue(2).indices.item() == 3
    assert torch.tensor([1.0, 1.0, 1.0, 1.414]).kthvalue(2).indices.item() == 0


def test_sort_ties_beyond_sixteen_entries():
    z = torch.tensor((np.arange(20) % 2).astype(np.float32), requires_grad=True)
    assert z.sort().indices.tolist() == [0, 2, 18, 4, 6, 16, 8, 10, 14, 12, 19, 17, 15, 13, 11, 9, 7, 5, 3, 1]
    assert z.sort(descending=True).indices.tolist() == [1, 19, 17, 15, 13, 11, 9, 7, 5, 3, 8, 6, 10, 12, 4, 14, 16, 2,
                                                        18, 0]
    assert z.argsort().tolist() == z.sort().indices.tolist()
    assert z.sort(stable=True).indices.tolist() == list(range(0, 20, 2)) + list(range(1, 20, 2))
    (z.sort().values * torch.arange(20.0)).sum().backward()
    assert z.grad.tolist() == [0.0, 19.0, 1.0, 18.0, 3.0, 17.0, 4.0, 16.0, 6.0, 15.0, 7.0, 14.0, 9.0, 13.0, 8.0, 12.0,
                               5.0, 11.0, 2.0, 10.0]


def test_mode_ties_beyond_sixteen_entries():
    w = torch.tensor((np.arange(20) % 3 == 0).astype(np.float32))
    assert w.mode().values.item() == 0.0 and w.mode().indices.item() == 1


def test_ties_beyond_the_replayed_entries_keep_the_stable_order():
    """Beyond tie_orders.REPLAYED entries (a Python replay per entry) the stable order
    decides among ties, and mode takes the last occurrence: still a sort, a top-k and a
    mode, with the gradient on one of the equal entries."""
    n = tie_orders.REPLAYED + 4
    data = (np.arange(n) % 3 == 0).astype(np.float32)
    z = torch.tensor(data, requires_grad=True)
    stable = np.argsort(data, kind="stable")
    assert z.sort().indices.tolist() == stable.tolist() == z.argsort().tolist()
    assert z.topk(3, largest=False).indices.tolist() == stable[:3].tolist()
    assert z.kthvalue(5).indices.item() == stable[4]
    assert z.mode().indices.item() == np.flatnonzero(data == 0)[-1]
    (z.sort().values * torch.arange(float(n))).sum().backward()
    np.testing.assert_array_equal(z.grad.numpy()[stable], np.arange(n, dtype=np.float32))
    small = torch.tensor(data[:20])
    assert small.sort().indices.tolist() != np.argsort(data[:20], kind="stable").tolist()  # replayed: libstdc++'s


@pytest.mark.parametrize("call, error, message", [
    (lambda x: x.topk(1), RuntimeError, "topk does not support bool dtypes on CPU"),
    (lambda x: x.kthvalue(1), NotImplementedError, "\"kthvalue_cpu\" not implemented for 'Bool'"),
    (lambda x: x.median(), NotImplementedError, "\"median_cpu\" not implemented for 'Bool'"),
    (lambda x: x.median(0), NotImplementedError, "\"median_out\" not implemented for 'Bool'"),
    (lambda x: x.nanmedian(0), NotImplementedError, "\"median_out\" not implemented for 'Bool'"),
])
def test_bool_selections_refused(call, error, message):
    with pytest.raises(error) as info:
        call(torch.tensor([True, False, True]))
    assert str(info.value) == message


def test_bool_sort_descending():
    assert torch.tensor([True, False, True]).sort(descending=True).indices.tolist() == [0, 2, 1]


# --- cumsum starts from +0: a run of -0 entries sums to +0 ----------------------------


def test_cumsum_of_negative_zeros_is_positive_zero():
    z = torch.tensor([-0.0, -0.0])
    assert [math.copysign(1.0, v) for v in z.cumsum(0).tolist()] == [1.0, 1.0]
    assert math.copysign(1.0, torch.tensor(-0.0).cumsum(0).item()) == -1.0  # 0-d: a copy, as PyTorch
    a = torch.tensor([[-1.0, 0.5, 1.0], [-1.0, 0.5, -0.5], [0.5, -0.5, 0.0]], dtype=torch.float64)
    out = torch.cumsum(a * torch.tensor([-0.0, 1.0, -0.0], dtype=torch.float64), 0).reciprocal()
    assert out.tolist() == [[math.inf, 2.0, math.inf], [math.inf, 1.0, math.inf], [math.inf, 2.0, math.inf]]


# --- addcmul / addcdiv compute in the common dtype, value times tensor1 first ---------


def test_addc_mixed_dtypes_compute_in_the_common_dtype():
    base = torch.tensor([1.3304226398468018], dtype=torch.float64, requires_grad=True)
    a = torch.tensor([0.7996804714202881], requires_grad=True)
    out = base.addcdiv(a, a.abs() + 1, value=2)
    assert out.dtype == torch.float64 and type(out.grad_fn).__name__ == "AddcdivBackward0"
    assert out.item() == 2.219114253852247  # 2.2191142439842224 when a / (|a| + 1) is rounded to float32
    assert base.addcmul(a, a, value=0.3).item() == 1.522269296758094
    out.backward()
    assert base.grad.tolist() == [1.0] and a.grad.dtype == torch.float32


# --- hypot's gradient is x / hypot, nan at the origin, as PyTorch's ---------------------


def test_hypot_gradient_at_the_origin_is_nan():
    a = torch.tensor([0.0, 0.0, 1.0, 3.0], requires_grad=True)
    b = torch.tensor([0.0, 1.0, 0.0, 4.0], requires_grad=True)
    out = torch.hypot(a, b)
    assert out.tolist() == [0.0, 1.0, 1.0, 5.0] and type(out.grad_fn).__name__ == "HypotBackward0"
    out.sum().backward()
    assert math.isnan(a.grad[0].item()) and math.isnan(b.grad[0].item())
    np.testing.assert_allclose(a.grad.numpy()[1:], [0.0, 1.0, 0.6], rtol=1e-7)
    np.testing.assert_allclose(b.grad.numpy()[1:], [1.0, 0.0, 0.8], rtol=1e-7)


# --- a float64 weight keeps binary_cross_entropy's loss in the loss's dtype -----------


def test_bce_weights_of_another_dtype_keep_the_loss_dtype():
    F = torch.nn.functional
    p = torch.tensor([0.3, 0.6], requires_grad=True)
    t = torch.tensor([0.0, 1.0])
    w = torch.tensor([1.0, 2.0], dtype=torch.float64)
    loss = F.binary_cross_entropy(p, t, weight=w, reduction="none")
    assert loss.dtype == torch.float32
    np.testing.assert_allclose(loss.tolist(), [0.3566749691963196, 1.0216511487960815], rtol=1e-6)
    for kwargs, expected in (({"weight": w}, 0.8646655082702637), ({"pos_weight": w}, 0.8646655082702637)):
        out = F.binary_cross_entropy_with_logits(p, t, **kwargs)
        assert out.dtype == torch.float32
        np.testing.assert_allclose(out.item(), expected, rtol=1e-6)
    F.binary_cross_entropy(p, t, weight=w, reduction="sum").backward()
    assert p.grad.dtype == torch.float32


def test_vector_times_matrix_is_at_version_one():
    """PyTorch computes 1-D @ 2-D as `a.unsqueeze(0).mm(b).squeeze_(0)`: version 1."""
    x = torch.ones(3, requires_grad=True)
    w = torch.ones(3, 2, requires_grad=True)
    assert [(torch.ones(s1) @ torch.ones(s2))._version for s1, s2 in
            [((3,), (3,)), ((3,), (3, 2)), ((2, 3), (3,)), ((2, 3), (3, 2)), ((4, 2, 3), (3,))]] == [0, 1, 0, 0, 0]
    out = x @ w
    assert out._version == 1
    out.mul_(2)
    out.sum().backward()
    assert out._version == 2 and x.grad.tolist() == [4.0, 4.0, 4.0]


# --- create_graph through an in-place op on a view that reads its own result ----------
# (the second derivative lost the term through the result: None, or a crash / half of it)


@pytest.mark.parametrize("write, times_a, grad, second", [
    (lambda v: v[-1:].exp_(), False, [1.0, 7.389056205749512], [0.0, 109.19630432128906]),
    (lambda v: v[:].exp_(), False, [0.3678794503211975, 7.389056205749512], [0.2706705927848816, 109.19630432128906]),
    (lambda v: v[:1].tanh_(), False, [0.41997429728507996, 1.0], [0.5373150706291199, 0.0]),
    (lambda v: v[-1:].relu_(), True, [-2.0, 4.0], [-8.0, 16.0]),
    (lambda v: v[-1:].exp_(), True, [-2.0, 22.16716766357422], [-8.0, 1310.3555908203125]),
    (lambda v: v[:1].tanh_(), True, [-1.1815685033798218, 4.0], [-0.4732149839401245, 16.0]),
])
def test_double_backward_through_an_in_place_write_into_a_view(write, times_a, grad, second):
    a = torch.tensor([-1.0, 2.0], requires_grad=True)
    v = a * 1
    write(v)
    out = (v * a).sum() if times_a else v.sum()
    (g,) = torch.autograd.grad(out, (a,), create_graph=True)
    np.testing.assert_allclose(g.tolist(), grad, rtol=2e-6)
    (g * g).sum().backward()
    np.testing.assert_allclose(a.grad.tolist(), second, rtol=2e-6)


def test_mse_loss_of_empty_tensors_differentiates():
    """mean over no entries: nan, and an empty (or zero) gradient, not ZeroDivisionError."""
    F = torch.nn.functional
    a = torch.tensor([[-0.5], [-1.0], [0.0]], requires_grad=True)
    loss = F.mse_loss(a.diff(), a)  # (3, 0) against (3, 1): broadcast to (3, 0)
    assert math.isnan(loss.item())
    loss.backward()
    assert a.grad.tolist() == [[0.0], [0.0], [0.0]]
    b = torch.zeros(0, requires_grad=True)
    F.mse_loss(b, b.detach()).backward()
    assert b.grad.shape == (0,)
