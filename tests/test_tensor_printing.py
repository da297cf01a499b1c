"""`repr`/`str` of tensors (spec section 9). Expected strings were printed by PyTorch 2.13
(with `torch.` read as `srcgrad.`)."""

import numpy as np
import pytest

import srcgrad as torch

F = torch.nn.functional

CASES = {
    "torch.tensor([204.8, 2048, 0.2048])": "tensor([2.0480e+02, 2.0480e+03, 2.0480e-01])",
    "torch.tensor([204.8, 2048, 2.048])": "tensor([ 204.8000, 2048.0000,    2.0480])",
    "torch.tensor([1001., 1.])": "tensor([1.0010e+03, 1.0000e+00])",
    "torch.tensor([1e9, 1.])": "tensor([1.0000e+09, 1.0000e+00])",
    "torch.tensor(1e-5)": "tensor(1.0000e-05)",
    "torch.tensor(-0.)": "tensor(-0.)",
    "torch.tensor([float('nan'), 1.5])": "tensor([   nan, 1.5000])",
    "torch.tensor([1000., 1.])": "tensor([1000.,    1.])",
    "torch.tensor([0.6149, 0.9079, -0.9704])": "tensor([ 0.6149,  0.9079, -0.9704])",
    "torch.tensor([-914.8675, 456.0132, 679.7536])": "tensor([-914.8675,  456.0132,  679.7536])",
    "torch.tensor([float('inf'), -2.])": "tensor([inf, -2.])",
    "torch.tensor([0., 0.])": "tensor([0., 0.])",
    "torch.tensor([1, 2, -3])": "tensor([ 1,  2, -3])",
    "torch.tensor([True, False])": "tensor([ True, False])",
    "torch.tensor([])": "tensor([])",
    "torch.zeros(0, 3)": "tensor([], size=(0, 3))",
    "torch.tensor([], dtype=torch.int64)": "tensor([], dtype=srcgrad.int64)",
    "torch.ones(2, dtype=torch.float64)": "tensor([1., 1.], dtype=srcgrad.float64)",
    "torch.ones(2, 2, 2)": "tensor([[[1., 1.],\n         [1., 1.]],\n\n        [[1., 1.],\n         [1., 1.]]])",
    "torch.arange(12.).reshape(3, 4) / 7": (
        "tensor([[0.0000, 0.1429, 0.2857, 0.4286],\n        [0.5714, 0.7143, 0.8571, 1.0000],\n"
        "        [1.1429, 1.2857, 1.4286, 1.5714]])"),
    "torch.arange(30.) * 1.5": (
        "tensor([ 0.0000,  1.5000,  3.0000,  4.5000,  6.0000,  7.5000,  9.0000, 10.5000,\n"
        "        12.0000, 13.5000, 15.0000, 16.5000, 18.0000, 19.5000, 21.0000, 22.5000,\n"
        "        24.0000, 25.5000, 27.0000, 28.5000, 30.0000, 31.5000, 33.0000, 34.5000,\n"
        "        36.0000, 37.5000, 39.0000, 40.5000, 42.0000, 43.5000])"),
    "torch.arange(1200.)": (
        "tensor([0.0000e+00, 1.0000e+00, 2.0000e+00,  ..., 1.1970e+03, 1.1980e+03,\n        1.1990e+03])"),
    "torch.arange(1200.).reshape(30, 40)": (
        "tensor([[0.0000e+00, 1.0000e+00, 2.0000e+00,  ..., 3.7000e+01, 3.8000e+01,\n         3.9000e+01],\n"
        "        [4.0000e+01, 4.1000e+01, 4.2000e+01,  ..., 7.7000e+01, 7.8000e+01,\n         7.9000e+01],\n"
        "        [8.0000e+01, 8.1000e+01, 8.2000e+01,  ..., 1.1700e+02, 1.1800e+02,\n         1.1900e+02],\n"
        "        ...,\n"
        "        [1.0800e+03, 1.0810e+03, 1.0820e+03,  ..., 1.1170e+03, 1.1180e+03,\n         1.1190e+03],\n"
        "        [1.1200e+03, 1.1210e+03, 1.1220e+03,  ..., 1.1570e+03, 1.1580e+03,\n         1.1590e+03],\n"
        "        [1.1600e+03, 1.1610e+03, 1.1620e+03,  ..., 1.1970e+03, 1.1980e+03,\n         1.1990e+03]])"),
    "torch.tensor(0.1)": "tensor(0.1000)",
    "torch.tensor([0.1, 0.2]) * 3": "tensor([0.3000, 0.6000])",
    "torch.tensor([123456789.])": "tensor([1.2346e+08])",
    "torch.tensor([1e-4, 1.])": "tensor([1.0000e-04, 1.0000e+00])",
    "torch.tensor([0.5, 1e-5])": "tensor([5.0000e-01, 1.0000e-05])",
    "torch.tensor([1.5, 2**30])": "tensor([1.5000e+00, 1.0737e+09])",
    "torch.tensor(3)": "tensor(3)",
    "torch.tensor(True)": "tensor(True)",
    "torch.tensor([1, 2], dtype=torch.int32)": "tensor([1, 2], dtype=srcgrad.int32)",
    "torch.tensor([0.4741, 0.3133, 1.1269], requires_grad=True) * 1": (
        "tensor([0.4741, 0.3133, 1.1269], grad_fn=<MulBackward0>)"),
    "torch.tensor([1.,2.,3.,4.,5.,6.,7.], dtype=torch.float64, requires_grad=True) * 1.5": (
        "tensor([ 1.5000,  3.0000,  4.5000,  6.0000,  7.5000,  9.0000, 10.5000],\n"
        "       dtype=srcgrad.float64, grad_fn=<MulBackward0>)"),
    "torch.tensor([[1e-3, 1.], [2., 3.]], dtype=torch.float64, requires_grad=True)": (
        "tensor([[1.0000e-03, 1.0000e+00],\n        [2.0000e+00, 3.0000e+00]], dtype=srcgrad.float64, "
        "requires_grad=True)"),
    "F.binary_cross_entropy_with_logits(torch.tensor([0.0, 0.0, 1.0], requires_grad=True), "
    "torch.zeros(3), reduction='none')": (
        "tensor([0.6931, 0.6931, 1.3133],\n       grad_fn=<BinaryCrossEntropyWithLogitsBackward0>)"),
    "torch.arange(12.).reshape(2, 3, 2).max(1)": (
        "srcgrad.return_types.max(\nvalues=tensor([[ 4.,  5.],\n        [10., 11.]]),\n"
        "indices=tensor([[2, 2],\n        [2, 2]]))"),
    "torch.tensor([[1., 5.], [3., 2.]], requires_grad=True).min(0, keepdim=True)": (
        "srcgrad.return_types.min(\nvalues=tensor([[1., 2.]], grad_fn=<MinBackward0>),\nindices=tensor([[0, 1]]))"),
}


@pytest.mark.parametrize("expression", sorted(CASES))
def test_repr(expression):
    t = eval(expression)
    assert repr(t) == CASES[expression]
    assert str(t) == repr(t)


def test_ratio_is_computed_in_float64_from_float32_values():
    # 2048 / 2.048 in float32 is just under 1000: fixed notation, not scientific.
    assert float(np.float32(2048)) / float(np.float32(2.048)) < 1000
    assert "e+" not in repr(torch.tensor([204.8, 2048, 2.048]))


def test_non_leaf_never_shows_requires_grad():
    y = torch.ones(2, requires_grad=True) * 2
    assert "requires_grad" not in repr(y)
    with torch.no_grad():
        assert repr(torch.ones(2, requires_grad=True) * 2) == "tensor([2., 2.])"


def test_format_of_zero_dim_tensors():
    assert f"{torch.tensor(0.123456):.3f}" == "0.123"
    assert "{}".format(torch.tensor([1.0])) == "tensor([1.])"


def test_suffix_layout_follows_pytorch_not_the_longer_prefix():
    # PyTorch keeps `, dtype=torch.float64)` on the last line (79 columns); srcgrad keeps
    # that layout although its `srcgrad.` prefix makes the line 81 columns long.
    rows = [[-7261711.0, 6717988.0, -11979780.0, 2156031.0], [973549.0, 12141106.0, -7029077.0, 10525835.0]]
    assert repr(torch.tensor(rows, dtype=torch.float64)) == (
        "tensor([[ -7261711.,   6717988., -11979780.,   2156031.],\n"
        "        [   973549.,  12141106.,  -7029077.,  10525835.]], dtype=srcgrad.float64)"
    )
