"""srcgrad.nn.init, srcgrad.nn.utils (clipping, parameters as a vector) and copies of
Parameters, as PyTorch 2.13 gives them."""

import copy
import math
import pickle

import numpy as np
import pytest

import srcgrad as torch
from srcgrad.nn import init
from srcgrad.nn.utils import clip_grad_norm_, clip_grad_value_, parameters_to_vector, vector_to_parameters


def test_gains():
    gains = [init.calculate_gain(n) for n in ["linear", "sigmoid", "tanh", "relu", "leaky_relu", "selu", "conv2d"]]
    assert gains == [1, 1, 5.0 / 3, math.sqrt(2.0), math.sqrt(2.0 / (1 + 0.01**2)), 0.75, 1]
    assert init.calculate_gain("leaky_relu", 0.2) == math.sqrt(2.0 / 1.04)


@pytest.mark.parametrize("fill,bound", [
    (lambda w: init.xavier_uniform_(w), math.sqrt(6.0 / (300 + 200))),
    (lambda w: init.kaiming_uniform_(w, nonlinearity="relu"), math.sqrt(6.0 / 200)),
    (lambda w: init.kaiming_uniform_(w, mode="fan_out"), math.sqrt(3.0) * math.sqrt(2.0) / math.sqrt(300)),
])
def test_uniform_schemes_fill_up_to_their_bound(fill, bound):
    w = torch.empty(300, 200)
    assert fill(w) is w
    values = w.numpy()
    assert w.dtype == torch.float32 and np.abs(values).max() <= bound
    assert np.abs(values).max() > 0.99 * bound  # 60,000 draws reach the edge
    assert abs(values.std() - bound / math.sqrt(3.0)) < 0.02 * bound


@pytest.mark.parametrize("fill,std", [
    (lambda w: init.xavier_normal_(w, gain=2.0), 2.0 * math.sqrt(2.0 / 500)),
    (lambda w: init.kaiming_normal_(w, mode="fan_out", nonlinearity="relu"), math.sqrt(2.0 / 300)),
    (lambda w: init.normal_(w, 1.0, 0.5), 0.5),
])
def test_normal_schemes_have_their_standard_deviation(fill, std):
    w = fill(torch.empty(300, 200, dtype=torch.float64)).numpy()
    assert abs(w.std() - std) < 0.02 * std


def test_fans_of_a_convolution_weight_count_the_receptive_field():
    assert init._calculate_fan_in_and_fan_out(torch.empty(4, 3, 2, 2)) == (12, 16)


def test_constant_eye_orthogonal_and_truncated_normal():
    w = torch.empty(2, 3)
    assert init.eye_(w).tolist() == [[1, 0, 0], [0, 1, 0]]
    assert init.constant_(w, 0.25).tolist() == [[0.25] * 3] * 2
    assert init.zeros_(w).tolist() == [[0.0] * 3] * 2 and init.ones_(w).tolist() == [[1.0] * 3] * 2
    q = init.orthogonal_(torch.empty(3, 5, dtype=torch.float64), gain=2.0).numpy()
    assert np.allclose(q @ q.T, 4.0 * np.eye(3), atol=1e-12)
    q = init.orthogonal_(torch.empty(5, 3, dtype=torch.float64)).numpy()
    assert np.allclose(q.T @ q, np.eye(3), atol=1e-12)
    t = init.trunc_normal_(torch.empty(5000, dtype=torch.float64), std=1.0, a=-0.5, b=1.0).numpy()
    assert t.min() >= -0.5 and t.max() <= 1.0 and t.min() < -0.49 and t.max() > 0.99


def test_init_of_a_parameter_is_outside_the_graph():
    layer = torch.nn.Linear(3, 2)
    init.zeros_(layer.bias)
    init.xavier_uniform_(layer.weight)
    assert layer.bias.is_leaf and layer.bias.requires_grad and layer.bias.grad_fn is None
    assert repr(layer.bias) == "Parameter containing:\ntensor([0., 0.], requires_grad=True)"


def test_init_errors():
    cases = [(lambda: init.calculate_gain("foo"), ValueError, "Unsupported nonlinearity foo"),
             (lambda: init.xavier_uniform_(torch.empty(3)), ValueError,
              "Fan in and fan out can not be computed for tensor with fewer than 2 dimensions"),
             (lambda: init.kaiming_uniform_(torch.empty(3, 2), mode="x"), ValueError,
              "Mode x not supported, please use one of ['fan_in', 'fan_out']"),
             (lambda: init.eye_(torch.empty(3, 2, 1)), ValueError, "Only tensors with 2 dimensions are supported"),
             (lambda: init.calculate_gain("leaky_relu", "a"), ValueError, "negative_slope a not a valid number")]
    for call, kind, message in cases:
        with pytest.raises(kind) as info:
            call()
        assert str(info.value) == message


def _two_parameters():
    p1, p2 = torch.nn.Parameter(torch.tensor([[3.0, 4.0]])), torch.nn.Parameter(torch.tensor([12.0]))
    p1.grad, p2.grad = torch.tensor([[3.0, 4.0]]), torch.tensor([12.0])
    return p1, p2


def test_clip_grad_norm_scales_by_the_joint_norm():
    p1, p2 = _two_parameters()
    total = clip_grad_norm_([p1, p2], 6.5)
    assert repr(total) == "tensor(13.)"
    assert np.allclose(p1.grad.numpy(), [[1.5, 2.0]], rtol=1e-6) and np.allclose(p2.grad.numpy(), [6.0], rtol=1e-6)
    p1, p2 = _two_parameters()
    assert clip_grad_norm_([p1, p2], 100.0).item() == 13.0 and p2.grad.item() == 12.0  # under the limit: unchanged
    p1, p2 = _two_parameters()
    assert clip_grad_norm_([p1, p2], 1.0, norm_type=math.inf).item() == 12.0
    assert np.allclose(p1.grad.numpy(), [[0.25, 1 / 3]], rtol=1e-5)
    p1, p2 = _two_parameters()
    assert clip_grad_norm_((p for p in [p1, p2]), 1.0, norm_type=1).item() == 19.0
    assert repr(clip_grad_norm_([], 1.0)) == "tensor(0.)"
    p2.grad = torch.tensor([float("nan")])
    with pytest.raises(RuntimeError, match="^The total norm of order 2.0 for gradients from `parameters` is non-finite"):
        clip_grad_norm_([p1, p2], 1.0, error_if_nonfinite=True)


def test_clip_grad_value_and_parameters_as_a_vector():
    p1, p2 = _two_parameters()
    clip_grad_value_([p1, p2], 3.5)
    assert p1.grad.tolist() == [[3.0, 3.5]] and p2.grad.tolist() == [3.5]
    v = parameters_to_vector([p1, p2])
    assert v.tolist() == [3.0, 4.0, 12.0] and type(v.grad_fn).__name__ == "CatBackward0"
    (v * torch.tensor([1.0, 2.0, 3.0])).sum().backward()
    assert p1.grad.tolist() == [[4.0, 5.5]]  # accumulated onto the clipped gradients
    vector_to_parameters(torch.tensor([7.0, 8.0, 9.0]), [p1, p2])
    assert p1.tolist() == [[7.0, 8.0]] and p2.tolist() == [9.0] and isinstance(p1, torch.nn.Parameter)
    with pytest.raises(TypeError, match="^expected srcgrad.Tensor, but got: list$"):
        vector_to_parameters([1.0], [p1])


def test_copies_of_parameters_stay_parameters():
    layer = torch.nn.Linear(2, 1)
    layer.weight.grad = torch.ones(1, 2)
    copied = copy.deepcopy(layer)
    assert type(copied.weight) is torch.nn.Parameter and copied.weight is not layer.weight
    assert copied.weight.tolist() == layer.weight.tolist() and copied.weight.grad is None  # as PyTorch's
    unpickled = pickle.loads(pickle.dumps(layer))
    assert type(unpickled.bias) is torch.nn.Parameter and unpickled.bias.tolist() == layer.bias.tolist()
    frozen = torch.nn.Parameter(torch.ones(2), requires_grad=False)
    assert repr(copy.deepcopy(frozen)) == repr(pickle.loads(pickle.dumps(frozen))) == "Parameter containing:\ntensor([1., 1.])"
    shared = torch.nn.Sequential(layer, layer)
    twin = copy.deepcopy(shared)
    assert twin[0].weight is twin[1].weight
