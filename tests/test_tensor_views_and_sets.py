"""unsqueeze_, frac, count_nonzero, unique, diagonal and the matrix transposes (mT, mH,
H, adjoint, T on other than 2 dims), as PyTorch 2.13 gives them: values, dtypes, node
names, reprs, warnings and errors. The expected texts were printed by PyTorch; the
file needs no PyTorch."""

import warnings

import numpy as np
import pytest

import srcgrad as torch
from srcgrad.tensor import shaping

E11 = "a leaf Variable that requires grad is being used in an in-place operation."


def _x():
    return torch.tensor([[1.5, -2.25, 0.0], [3.0, 4.75, -0.5]], requires_grad=True)


# --- unsqueeze_ ----------------------------------------------------------------------------


def test_unsqueeze_in_place_on_a_plain_tensor_returns_self_and_counts_a_version():
    a = torch.tensor([1.0, 2.0])
    alias = a.view(2)
    assert a.unsqueeze_(0) is a
    assert repr(a) == "tensor([[1., 2.]])" and a._version == 1
    assert alias.shape == (2,)  # aliases keep their shape
    assert repr(torch.tensor([1, 2]).unsqueeze_(1)) == "tensor([[1],\n        [2]])"
    assert repr(torch.tensor(3.0).unsqueeze_(0)) == "tensor([3.])"


def test_unsqueeze_in_place_in_a_graph_is_unsqueeze_backward1():
    x = _x()
    y = x * 1
    y.unsqueeze_(-1)
    assert y.shape == (2, 3, 1) and type(y.grad_fn).__name__ == "UnsqueezeBackward1"
    assert type(y.grad_fn.next_functions[0][0]).__name__ == "MulBackward0"
    y.sum().backward()
    assert repr(x.grad) == "tensor([[1., 1., 1.],\n        [1., 1., 1.]])"


def test_unsqueeze_in_place_errors():
    with pytest.raises(RuntimeError, match=E11):
        torch.tensor([1.0, 2.0], requires_grad=True).unsqueeze_(0)
    with pytest.raises(IndexError, match=r"Dimension out of range \(expected to be in range of \[-3, 2\], but got 4\)"):
        torch.ones(2, 3).unsqueeze_(4)
    with torch.no_grad():
        assert repr(torch.tensor([1.0, 2.0], requires_grad=True).unsqueeze_(0)) == "tensor([[1., 2.]], requires_grad=True)"


def test_unsqueeze_in_place_of_a_saved_output_refuses_backward():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    z = x.exp()
    z.unsqueeze_(0)
    with pytest.raises(RuntimeError, match=r"\[srcgrad.FloatTensor \[2\]\], which is output 0 of Exp, is at version 1"):
        z.sum().backward()


# --- frac ----------------------------------------------------------------------------------


def test_frac():
    x = _x()
    y = torch.frac(x)
    assert repr(y) == "tensor([[ 0.5000, -0.2500,  0.0000],\n        [ 0.0000,  0.7500, -0.5000]], grad_fn=<FracBackward0>)"
    assert repr(x.frac()) == repr(y)
    y.sum().backward()
    assert repr(x.grad) == "tensor([[1., 1., 1.],\n        [1., 1., 1.]])"
    # zeros come out +0 (x - trunc(x)), inf gives nan
    assert repr(torch.tensor([float("inf"), -3.0, -0.0, 2.5, -1e10]).frac()) == "tensor([   nan, 0.0000, 0.0000, 0.5000, 0.0000])"
    assert repr(torch.tensor([1.25], dtype=torch.float64).frac()) == "tensor([0.2500], dtype=srcgrad.float64)"


def test_frac_in_place_and_errors():
    assert repr(torch.tensor([1.5, -2.7]).frac_()) == "tensor([ 0.5000, -0.7000])"
    y = torch.tensor([1.0, 2.0], requires_grad=True) * 1.5
    assert repr(y.frac_()) == "tensor([0.5000, 0.0000], grad_fn=<FracBackward0>)"
    with pytest.raises(RuntimeError, match=E11):
        torch.tensor([1.25], requires_grad=True).frac_()
    with pytest.raises(NotImplementedError, match="\"frac_cpu\" not implemented for 'Long'"):
        torch.tensor([1, 2]).frac()
    with pytest.raises(NotImplementedError, match="\"frac_cpu\" not implemented for 'Bool'"):
        torch.tensor([True]).frac()


# --- count_nonzero -------------------------------------------------------------------------


@pytest.mark.parametrize("call, expected", [
    (lambda x: torch.count_nonzero(x), "tensor(5)"),
    (lambda x: torch.count_nonzero(x, dim=1), "tensor([2, 3])"),
    (lambda x: torch.count_nonzero(x, dim=(0, 1)), "tensor(5)"),
    (lambda x: x.count_nonzero(0), "tensor([2, 2, 1])"),
    (lambda x: torch.count_nonzero(x, dim=[0]), "tensor([2, 2, 1])"),
    (lambda x: torch.count_nonzero(x, dim=-1), "tensor([2, 3])"),
    (lambda x: torch.count_nonzero(x, dim=()), "tensor(5)"),
    (lambda x: torch.tensor([True, False, True]).count_nonzero(), "tensor(2)"),
    (lambda x: torch.count_nonzero(torch.tensor(3.0)), "tensor(1)"),
    (lambda x: torch.count_nonzero(torch.tensor(3.0), dim=0), "tensor(1)"),
    (lambda x: torch.count_nonzero(torch.tensor([float("nan"), 0.0, -0.0])), "tensor(1)"),
    (lambda x: torch.count_nonzero(torch.ones(0, 3), dim=0), "tensor([0, 0, 0])"),
])
def test_count_nonzero(call, expected):
    assert repr(call(_x())) == expected


def test_count_nonzero_errors():
    with pytest.raises(RuntimeError, match="dim 0 appears multiple times in the list of dims"):
        torch.count_nonzero(torch.ones(2, 3), dim=(0, -2))
    with pytest.raises(IndexError, match=r"\[-2, 1\], but got 2"):
        torch.count_nonzero(torch.ones(2, 3), dim=2)


# --- unique --------------------------------------------------------------------------------


@pytest.mark.parametrize("call, expected", [
    (lambda: torch.unique(torch.tensor([3, 1, 2, 3, 1])), "tensor([1, 2, 3])"),
    (lambda: torch.unique(torch.tensor([3, 1, 2, 3, 1]), sorted=False), "tensor([1, 2, 3])"),
    (lambda: torch.unique(torch.tensor([3, 1, 2, 3, 1]), return_inverse=True), "(tensor([1, 2, 3]), tensor([2, 0, 1, 2, 0]))"),
    (lambda: torch.unique(torch.tensor([3, 1, 2, 3, 1]), return_counts=True), "(tensor([1, 2, 3]), tensor([2, 1, 2]))"),
    (lambda: torch.unique(torch.tensor([[3, 1], [2, 3]]), return_inverse=True, return_counts=True),
     "(tensor([1, 2, 3]), tensor([[2, 0],\n        [1, 2]]), tensor([1, 1, 2]))"),
    (lambda: torch.tensor([3.0, 1.0, 3.0]).unique(), "tensor([1., 3.])"),
    (lambda: torch.tensor([2, 1, 2]).unique(return_counts=True), "(tensor([1, 2]), tensor([1, 2]))"),
    (lambda: torch.unique(torch.tensor([float("nan"), 1.0, float("nan")])), "tensor([1., nan, nan])"),
    (lambda: torch.unique(torch.tensor([0.0, -0.0, 1.0])), "tensor([0., 1.])"),
    (lambda: torch.unique(torch.tensor([True, False, True])), "tensor([False,  True])"),
    (lambda: torch.unique(torch.tensor([]), return_inverse=True, return_counts=True),
     "(tensor([]), tensor([], dtype=srcgrad.int64), tensor([], dtype=srcgrad.int64))"),
    (lambda: torch.unique(torch.tensor(3.0), return_inverse=True, return_counts=True), "(tensor([3.]), tensor(0), tensor([1]))"),
    (lambda: torch.unique(torch.tensor([2, 1], dtype=torch.int32), return_inverse=True),
     "(tensor([1, 2], dtype=srcgrad.int32), tensor([1, 0]))"),
    (lambda: torch.unique(torch.tensor([[1, 2], [1, 2], [0, 5]]), dim=0, return_inverse=True, return_counts=True),
     "(tensor([[0, 5],\n        [1, 2]]), tensor([1, 1, 0]), tensor([1, 2]))"),
    (lambda: torch.unique(torch.tensor([[1, 2, 1], [1, 2, 1]]), dim=-1, return_inverse=True, return_counts=True),
     "(tensor([[1, 2],\n        [1, 2]]), tensor([0, 1, 0]), tensor([2, 1]))"),
])
def test_unique(call, expected):
    assert repr(call()) == expected


def test_unique_of_a_tensor_that_requires_grad_has_no_derivative():
    x = torch.tensor([[3.0, 1.0], [3.0, 1.0]], requires_grad=True)
    u, inverse, counts = torch.unique(x, return_inverse=True, return_counts=True)
    assert repr(u) == "tensor([1., 3.], grad_fn=<Unique2Backward0>)"
    assert not inverse.requires_grad and not counts.requires_grad
    assert u.grad_fn.next_functions == ((x.sum().grad_fn.next_functions[0][0], 0),)
    with pytest.raises(NotImplementedError, match="the derivative for '_unique2' is not implemented."):
        u.sum().backward()
    rows = torch.unique(x, dim=0)
    assert repr(rows) == "tensor([[3., 1.]], grad_fn=<UniqueDimBackward0>)"
    with pytest.raises(NotImplementedError, match="the derivative for 'unique_dim' is not implemented."):
        rows.sum().backward()
    with torch.no_grad():
        assert repr(torch.unique(x)) == "tensor([1., 3.])"


def test_a_node_without_derivative_raises_before_a_saved_tensor_changed_behind_it():
    # PyTorch runs the node (and raises) before it reads what the nodes after it saved;
    # was: the version error of the norm's saved result, checked first
    v1 = torch.arange(-2, 2, dtype=torch.float64).requires_grad_()
    v2 = v1.norm(1)
    v2.t_()
    with pytest.raises(NotImplementedError, match="the derivative for '_unique2' is not implemented."):
        (v2.unique() * 1.0).pow(2).sum().backward()
    v1 = torch.arange(-2, 2, dtype=torch.float64).requires_grad_()
    v2 = v1.exp()
    v3 = v2 // 2
    v2.add_(1)
    with pytest.raises(RuntimeError, match="^derivative for aten::floor_divide is not implemented$"):
        v3.sum().backward()
    with pytest.raises(RuntimeError, match="which is output 0 of Exp, is at version 1"):
        v2.sum().backward()  # the version error stays where no such node comes first


def test_unique_errors():
    with pytest.raises(IndexError, match=r"\[-2, 1\], but got 2"):
        torch.unique(torch.ones(2, 3), dim=2)
    with pytest.raises(IndexError, match="Dimension specified as 0 but tensor has no dimensions"):
        torch.unique(torch.tensor(3.0), dim=0)


# --- diagonal ------------------------------------------------------------------------------


def test_diagonal_values_and_node():
    x = _x()
    assert repr(torch.diagonal(x)) == "tensor([1.5000, 4.7500], grad_fn=<DiagonalBackward0>)"
    assert repr(x.diagonal(1)) == "tensor([-2.2500, -0.5000], grad_fn=<DiagonalBackward0>)"
    assert repr(x.diagonal(-1)) == "tensor([3.], grad_fn=<DiagonalBackward0>)"
    assert repr(x.diagonal(5)) == "tensor([], grad_fn=<DiagonalBackward0>)"
    assert repr(torch.ones(2, 3).diagonal(offset=-5)) == "tensor([])"
    assert repr(torch.arange(6).reshape(2, 3).diagonal()) == "tensor([0, 4])"
    y = torch.arange(24.0).reshape(2, 3, 4).requires_grad_()
    assert repr(y.diagonal(0, 1, 2)) == "tensor([[ 0.,  5., 10.],\n        [12., 17., 22.]], grad_fn=<DiagonalBackward0>)"
    assert repr(torch.diagonal(y, offset=1, dim1=0, dim2=2)) == (
        "tensor([[ 1., 14.],\n        [ 5., 18.],\n        [ 9., 22.]], grad_fn=<DiagonalBackward0>)"
    )
    assert torch.arange(120.0).reshape(2, 3, 4, 5).diagonal(1, 3, 1).shape == (2, 4, 2)
    y.diagonal(1, 0, 2).sum().backward()
    expected = np.zeros((2, 3, 4), np.float32)
    expected[0, :, 1] = expected[1, :, 2] = 1
    np.testing.assert_array_equal(y.grad.numpy(), expected)


def test_diagonal_is_a_view_that_can_be_written_through():
    a = torch.zeros(3, 3)
    a.diagonal().fill_(1)
    assert repr(a) == "tensor([[1., 0., 0.],\n        [0., 1., 0.],\n        [0., 0., 1.]])"
    b = torch.zeros(2, 3)
    d = b.diagonal(1)
    b[0, 1] = 5
    assert repr(d) == "tensor([5., 0.])"
    d += 2
    assert repr(b) == "tensor([[0., 7., 0.],\n        [0., 0., 2.]])"


def test_diagonal_errors():
    y = torch.ones(2, 3, 4)
    with pytest.raises(RuntimeError, match="diagonal dimensions cannot be identical 1, 1"):
        y.diagonal(0, 1, 1)
    with pytest.raises(RuntimeError, match="diagonal dimensions cannot be identical -1, 2"):
        y.diagonal(0, -1, 2)
    with pytest.raises(IndexError, match=r"\[-3, 2\], but got 3"):
        y.diagonal(0, 1, 3)
    with pytest.raises(IndexError, match=r"\[-1, 0\], but got 1"):
        torch.ones(3).diagonal()
    with pytest.raises(IndexError, match=r"\[-1, 0\], but got 1"):
        torch.tensor(1.0).diagonal()


# --- matrix transposes ---------------------------------------------------------------------


def test_matrix_transposes_of_a_batch():
    y = torch.arange(24.0).reshape(2, 3, 4).requires_grad_()
    for t in (y.mT, y.mH, y.adjoint()):
        assert t.shape == (2, 4, 3) and type(t.grad_fn).__name__ == "TransposeBackward0"
        np.testing.assert_array_equal(t.detach().numpy(), np.swapaxes(y.detach().numpy(), 1, 2))
    assert torch.ones(1, 2, 3, 4, requires_grad=True).mH.shape == (1, 2, 4, 3)
    assert repr(torch.arange(4).reshape(2, 2).mT) == "tensor([[0, 2],\n        [1, 3]])"
    x = _x()
    assert repr(x.H) == "tensor([[ 1.5000,  3.0000],\n        [-2.2500,  4.7500],\n        [ 0.0000, -0.5000]], grad_fn=<TransposeBackward0>)"
    assert repr(x.T) == repr(x.H).replace("TransposeBackward0", "PermuteBackward0")


@pytest.mark.parametrize("name, message", [
    ("mT", "tensor.mT is only supported on matrices or batches of matrices. Got 1-D tensor."),
    ("mH", "tensor.mH is only supported on matrices or batches of matrices. Got 1-D tensor."),
    ("H", "tensor.H is only supported on matrices (2-D tensors). Got 1-D tensor."),
])
def test_matrix_transposes_refuse_a_vector(name, message):
    with pytest.raises(RuntimeError) as e:
        getattr(torch.ones(3), name)
    assert str(e.value) == message


def test_matrix_transpose_errors():
    with pytest.raises(RuntimeError) as e:
        torch.ones(2, 3, 4).H
    assert str(e.value) == (
        "tensor.H is only supported on matrices (2-D tensors). Got 3-D tensor. For batches of matrices, consider using tensor.mH"
    )
    with pytest.raises(RuntimeError) as e:
        torch.ones(3).adjoint()
    assert str(e.value) == "tensor.adjoint() is only supported on matrices or batches of matrices. Got 1-D tensor."


def test_transposes_of_a_0d_tensor_are_itself_and_warn_once(monkeypatch):
    monkeypatch.setattr(shaping, "_WARNED", set())
    x = torch.tensor(2.0, requires_grad=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert x.mT is x and x.mH is x and x.H is x and x.adjoint() is x
        assert x.mT is x  # a second time: no second warning
        t = x.T
    assert repr(t) == "tensor(2., grad_fn=<PermuteBackward0>)"
    assert [str(w.message) for w in caught] == [
        "Tensor.mT is deprecated on 0-D tensors. This function is the identity in these cases.",
        "Tensor.mH is deprecated on 0-D tensors. Consider using x.conj().",
        "Tensor.H is deprecated on 0-D tensors. Consider using x.conj().",
        "adjoint() is deprecated on 0-D tensors. Consider using x.conj().",
        "Tensor.T is deprecated on 0-D tensors. This function is the identity in these cases.",
    ]
    assert all(w.filename == __file__ for w in caught)


def test_t_of_other_than_two_dims_warns_once_and_reverses_the_dims(monkeypatch):
    monkeypatch.setattr(shaping, "_WARNED", set())
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert torch.ones(1, 2, 3, 4, requires_grad=True).T.shape == (4, 3, 2, 1)
        assert repr(torch.ones(3).T) == "tensor([1., 1., 1.])"
        torch.ones(2, 2).T
    assert [str(w.message) for w in caught] == [shaping._T_DEPRECATED]
    assert shaping._T_DEPRECATED.startswith("The use of `x.T` on tensors of dimension other than 2 to reverse their shape")
