"""Norms at tiny and huge float32 values, and gradients at nan, where the shim and
PyTorch 2.13 disagreed. The expected numbers were printed by PyTorch once and are
written in, so the file needs no PyTorch.
"""

import numpy as np
import pytest

import srcgrad as torch


# --- a norm over one element is its magnitude: nothing squared to under- or overflow ----

ONE_ELEMENT_NORMS = [
    ((1,), lambda x: x.norm()),
    ((), lambda x: x.norm()),
    ((1, 1), lambda x: torch.norm(x)),
    ((3, 1), lambda x: x.norm(dim=1)),
    ((1, 3), lambda x: x.norm(dim=0, keepdim=True)),
    ((2, 1, 1), lambda x: x.norm(dim=(1, 2))),
    ((3, 1), lambda x: x.norm(3, dim=1)),
    ((1,), lambda x: x.norm(float("inf"))),
    ((3, 1), lambda x: x.norm(4, dim=-1)),
]


@pytest.mark.parametrize("case", range(len(ONE_ELEMENT_NORMS)))
@pytest.mark.parametrize("value", [1e-30, -1e-22, 1e-20, 1e20, -1e30, 3e38])
def test_float32_norm_of_one_element_is_exact(case, value):
    shape, norm = ONE_ELEMENT_NORMS[case]
    x = torch.tensor(np.full(shape, value, np.float32), requires_grad=True)
    y = norm(x)
    assert y.dtype == torch.float32
    assert type(y.grad_fn).__name__ == "LinalgVectorNormBackward0"
    np.testing.assert_array_equal(y.detach().numpy(), np.abs(np.float32(value)))
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.full(shape, np.sign(value), np.float32))


def test_float64_norm_of_one_element_is_exact_and_zero_has_gradient_zero():
    x = torch.tensor([[1e170], [0.0], [-1e-200]], dtype=torch.float64, requires_grad=True)
    y = x.norm(dim=1)
    assert y.tolist() == [1e170, 0.0, 1e-200]
    y.sum().backward()
    assert x.grad.tolist() == [[1.0], [0.0], [-1.0]]


def test_float32_norm_of_many_elements_rounds_as_pytorch():
    # PyTorch 2.13 squares and sums in float32 too: 0 and inf here, as the shim
    x = torch.tensor([[1e-25, 1e-25], [1e20, 1e20]], requires_grad=True)
    assert x.norm(dim=1).tolist() == [0.0, float("inf")]
    assert torch.norm(torch.tensor([3e-20, 4e-20])).item() == pytest.approx(5e-20, rel=1e-4)


# --- at nan: relu passes g (threshold_backward), max/min/median of all give it to the nans --

NAN = float("nan")


def test_relu_gradient_at_nan_is_g_as_threshold_backward():
    x = torch.tensor([NAN, -1.0, 0.0, 2.0], requires_grad=True)
    torch.nn.functional.relu(x).sum().backward()
    assert x.grad.tolist() == [1.0, 0.0, 0.0, 1.0]


@pytest.mark.parametrize("reduce", [lambda x: x.max(), lambda x: x.min(), lambda x: x.median(), torch.max])
def test_max_min_median_of_all_share_the_gradient_between_the_nans(reduce):
    x = torch.tensor([NAN, 1.0, NAN, 2.0], requires_grad=True)
    y = reduce(x)
    assert np.isnan(y.item()) and y.dtype == torch.float32
    (y * 3).backward()
    assert x.grad.tolist() == [1.5, 0.0, 1.5, 0.0]


def test_median_along_a_dim_propagates_nan_at_the_first_nan():
    x = torch.tensor([[NAN, 1.0, 2.0], [1.0, NAN, NAN], [3.0, 1.0, 2.0], [1.0, 2.0, NAN]], requires_grad=True)
    values, indices = x.median(dim=1)
    assert np.isnan(values[:2].detach().numpy()).all() and values[2].item() == 2.0 and np.isnan(values[3].item())
    assert indices.tolist() == [0, 1, 2, 2]
    values.sum().backward()
    assert x.grad.tolist() == [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [0.0, 0.0, 1.0]]
    assert x.T.median(dim=0, keepdim=True).indices.tolist() == [[0, 1, 2, 2]]


# --- nan is the largest value for topk and a descending sort, as in PyTorch ---------------


def test_topk_and_descending_sort_put_nan_first():
    a = np.array([[1.0, NAN, np.inf, 2.0, NAN], [3.0, 1.0, 2.0, NAN, 0.0]], np.float32)
    x = torch.tensor(a, requires_grad=True)
    values, indices = x.topk(3)
    assert indices.tolist() == [[1, 4, 2], [3, 0, 2]]
    assert np.isnan(values.detach().numpy()[:, 0]).all() and values.detach().numpy()[0, 2] == np.inf
    (values * torch.tensor([1.0, 2.0, 3.0])).sum().backward()
    assert x.grad.tolist() == [[0.0, 1.0, 3.0, 0.0, 2.0], [2.0, 0.0, 3.0, 1.0, 0.0]]
    assert x.topk(2, largest=False).indices.tolist() == [[0, 3], [4, 1]]
    assert x.sort(descending=True).indices.tolist() == [[1, 4, 2, 3, 0], [3, 0, 2, 1, 4]]
    assert x.argsort(dim=0, descending=True).tolist() == [[1, 0, 0, 1, 0], [0, 1, 1, 0, 1]]
    assert x.sort().indices.tolist() == [[0, 3, 2, 1, 4], [4, 1, 2, 0, 3]]
    assert torch.tensor([3, 1, 2]).sort(descending=True).values.tolist() == [3, 2, 1]


# --- abs, maximum, minimum and elu at nan and infinite ties: PyTorch's gradients --------


def test_abs_gradient_at_nan_is_zero_as_sgn():
    x = torch.tensor([NAN, -2.0, 0.0, 3.0], requires_grad=True)
    x.abs().sum().backward()
    assert x.grad.tolist() == [0.0, -1.0, 0.0, 1.0]
    x.grad = None
    torch.nn.functional.l1_loss(x, torch.zeros(4), reduction="sum").backward()
    assert x.grad.tolist() == [0.0, -1.0, 0.0, 1.0]


@pytest.mark.parametrize("op", ["maximum", "minimum"])
def test_maximum_minimum_at_nan_give_both_the_gradient_and_split_infinite_ties(op):
    x = torch.tensor([NAN, 1.0, NAN, np.inf, -np.inf, 2.0], requires_grad=True)
    y = torch.tensor([0.0, NAN, NAN, np.inf, -np.inf, 1.0], requires_grad=True)
    getattr(torch, op)(x, y).sum().backward()
    last = [1.0, 0.0] if op == "maximum" else [0.0, 1.0]
    assert x.grad.tolist() == [1.0, 1.0, 1.0, 0.5, 0.5, last[0]]
    assert y.grad.tolist() == [1.0, 1.0, 1.0, 0.5, 0.5, last[1]]


def test_elu_gradient_at_nan_is_g():
    x = torch.tensor([NAN, -1.0, 2.0], requires_grad=True)
    torch.nn.functional.elu(x).sum().backward()
    g = x.grad.tolist()
    assert g[0] == 1.0 and g[1] == pytest.approx(np.exp(-1.0)) and g[2] == 1.0


def test_compiled_numpy_gradients_at_infinite_ties_and_nan():
    import srcgrad

    def f(x, y):
        return np.sum(np.maximum(x, y)) + np.sum(np.abs(x))

    x = np.array([np.inf, -np.inf, 1.0, NAN], np.float32)
    y = np.array([np.inf, -np.inf, 1.0, 0.0], np.float32)
    gx = srcgrad.grad(f)(x, y)
    assert gx.dtype == np.float32
    assert gx.tolist() == [1.5, -0.5, 1.5, 1.0]


def test_two_norm_of_one_nan_has_gradient_nan_as_pytorch():
    x = torch.tensor([[NAN], [0.0], [-2.0]], requires_grad=True)
    y = x.norm(dim=1)
    y.sum().backward()
    g = x.grad.numpy()
    assert np.isnan(g[0, 0]) and g[1:, 0].tolist() == [0.0, -1.0]
    x = torch.tensor([NAN], requires_grad=True)
    x.norm().backward()
    assert np.isnan(x.grad.item())
    x.grad = None
    x.norm(1).backward()
    assert x.grad.item() == 0.0  # PyTorch's 1-norm: sgn(nan) = 0


# --- lerp with a number weight in [0.5, 2]: PyTorch's end - (end - start) (1 - w) ---------


def test_lerp_is_exact_at_weight_one_and_infinite_where_start_is():
    start = torch.tensor([np.inf, 0.1, 1e-8, -np.inf], requires_grad=True)
    end = torch.tensor([0.0, 0.7, 3.0, 2.0], requires_grad=True)
    a, b = torch.tensor([3.0, 0.1]), torch.tensor([1e-8, 0.7])
    assert torch.lerp(a, b, 1.0).tolist() == b.tolist()  # not 3 + (1e-8 - 3) = 0
    y = torch.lerp(start, end, 0.75)
    assert y[0].item() == np.inf and y[3].item() == -np.inf
    y[1:3].sum().backward()
    assert start.grad.tolist() == [0.0, 0.25, 0.25, 0.0] and end.grad.tolist() == [0.0, 0.75, 0.75, 0.0]
    x = torch.tensor([0.0])
    assert torch.lerp(x, torch.tensor([3e38]), -0.7).item() == pytest.approx(-2.1e38, rel=1e-6)


def test_softplus_and_logsigmoid_gradients_far_out_are_not_rounded_to_zero():
    x = torch.tensor([-100.0, 0.0, 100.0], requires_grad=True)
    torch.nn.functional.softplus(x).sum().backward()
    assert x.grad[0].item() == pytest.approx(3.7835e-44, rel=0.1) and x.grad[1:].tolist() == [0.5, 1.0]
    x.grad = None
    torch.nn.functional.logsigmoid(x).sum().backward()
    assert x.grad[2].item() == pytest.approx(3.7835e-44, rel=0.1) and x.grad[:2].tolist() == [1.0, 0.5]
