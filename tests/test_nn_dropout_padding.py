"""The dropout variants (dropout1d/2d/3d, alpha_dropout, feature_alpha_dropout, rrelu) and
their modules, the padding modules, ParameterDict and Softmax2d, as in PyTorch: masks
whole channels, the scale 1 / (1 - p), alpha dropout's preserved mean and variance,
rrelu's slopes, padding against np.pad, gradients against central differences, reprs,
warnings and errors."""

import re
import warnings

import numpy as np
import pytest

import srcgrad as torch
from tensor_checks import check_against_differences

F, nn = torch.nn.functional, torch.nn
RNG = np.random.default_rng(0)


def raises(exc, message):
    return pytest.raises(exc, match="^" + re.escape(message) + "$")


@pytest.mark.parametrize("function,shape,p", [(F.dropout1d, (400, 50, 3), 0.3), (F.dropout2d, (400, 50, 2, 3), 0.6),
                                              (F.dropout3d, (400, 50, 2, 2, 2), 0.5)])
def test_channel_dropout_zeroes_whole_channels(function, shape, p):
    torch.manual_seed(0)
    x = torch.ones(*shape, dtype=torch.float64, requires_grad=True)
    y = function(x, p)
    assert y.grad_fn.name() == "MulBackward0"
    channels = y.detach().numpy().reshape(400, 50, -1)
    assert np.all(channels == channels[..., :1])
    assert set(np.unique(channels)) == {0.0, 1 / (1 - p)}
    assert abs((channels[..., 0] == 0).mean() - p) < 0.02
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), y.detach().numpy())
    assert function(x, p, training=False) is x
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # dropout2d's warning for a 3-D input
        unbatched = function(torch.ones(*shape[1:]), p)
    assert unbatched.shape == shape[1:]


def test_dropout_warnings_and_errors():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        F.dropout2d(torch.ones(5, 4, 3))
    assert [str(w.message)[:60] for w in caught] == [
        "dropout2d: Received a 3D input to dropout2d and assuming tha"]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        F.dropout3d(torch.ones(5, 4, 3))
    assert str(caught[0].message).startswith("dropout3d: Received a 3-D input to dropout3d, which is deprecated")
    with raises(RuntimeError, "dropout1d: Expected 2D or 3D input, but received a 1D input. Note that dropout1d exists "
                              "to provide channel-wise dropout on inputs with 1 spatial dimension, a channel dimension, "
                              "and an optional batch dimension (i.e. 2D or 3D inputs)."):
        F.dropout1d(torch.ones(5))
    with raises(ValueError, "dropout probability has to be between 0 and 1, but got 1.5"):
        F.alpha_dropout(torch.ones(5, 4), 1.5, True)
    with raises(RuntimeError, "Lower bound should be less than or equal to the upper bound"):
        F.rrelu(torch.ones(5, 4), 0.5, 0.2)


def test_alpha_dropout_keeps_mean_and_variance():
    torch.manual_seed(1)
    y = F.alpha_dropout(torch.randn(200000, dtype=torch.float64), 0.3, True).numpy()
    assert abs(y.mean()) < 0.01 and abs(y.std() - 1) < 0.01
    z = F.feature_alpha_dropout(torch.randn(2000, 100, 3, dtype=torch.float64), 0.3, True).numpy()
    assert abs(z.mean()) < 0.01 and abs(z.std() - 1) < 0.01
    a = 1 / np.sqrt((1.7580993408473766 ** 2 * 0.3 + 1) * 0.7)
    dropped = np.isclose(z, 1.7580993408473766 * a * (0.3 - 1), rtol=0, atol=1e-13)  # whole channels
    assert np.all(dropped == dropped[..., :1])
    assert F.alpha_dropout(torch.ones(3), 0.5) is not None and nn.AlphaDropout(0.2).eval()(torch.ones(3)).tolist() == [
        1.0, 1.0, 1.0]


def test_rrelu_slopes_and_gradient():
    torch.manual_seed(2)
    x = torch.tensor(-np.ones(10000), requires_grad=True)
    y = F.rrelu(x, 0.1, 0.4, training=True)
    assert y.grad_fn.name() == "RreluWithNoiseBackward0"
    values = y.detach().numpy()
    assert values.min() >= -0.4 and values.max() <= -0.1 and abs(values.mean() + 0.25) < 0.01
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), -values)  # the drawn slope is the gradient
    a = RNG.standard_normal((3, 4))
    np.testing.assert_allclose(F.rrelu(torch.tensor(a), 0.1, 0.3).numpy(), np.where(a > 0, a, 0.2 * a), rtol=1e-15)
    check_against_differences(lambda t: F.rrelu(t, 0.1, 0.3), [a])
    assert repr(nn.RReLU(0.1, 0.3, True)) == "RReLU(lower=0.1, upper=0.3, inplace=True)"


@pytest.mark.parametrize("module,mode,widths", [
    (nn.ZeroPad2d((1, 1, 2, 0)), "constant", ((2, 0), (1, 1))), (nn.ReflectionPad1d(2), "reflect", ((2, 2),)),
    (nn.ReplicationPad2d((1, 2, 0, 3)), "edge", ((0, 3), (1, 2))), (nn.CircularPad1d((1, 2)), "wrap", ((1, 2),)),
    (nn.CircularPad2d(1), "wrap", ((1, 1), (1, 1)))])
def test_padding_modules_against_numpy(module, mode, widths):
    x = RNG.standard_normal((2, 3, 4, 5)[:2 + len(widths)])
    y = module(torch.tensor(x))
    np.testing.assert_array_equal(y.numpy(), np.pad(x, ((0, 0),) * 2 + widths, mode=mode))
    check_against_differences(lambda t: module(t), [x[:1, :1]])


def test_padding_modules_print_and_check():
    assert repr(nn.ZeroPad1d(2)) == "ZeroPad1d((2, 2))"
    assert repr(nn.ConstantPad2d(1, -1.0)) == "ConstantPad2d(padding=(1, 1, 1, 1), value=-1.0)"
    assert repr(nn.ReplicationPad1d((1, 2))) == "ReplicationPad1d((1, 2))"
    assert nn.ConstantPad1d((1, 0), 2.5)(torch.zeros(1, 2)).tolist() == [[2.5, 0.0, 0.0]]
    with raises(ValueError, "expected 2D or 3D input (got 4D input)"):
        nn.CircularPad1d(1)(torch.ones(2, 3, 4, 5))


def test_parameter_dict_and_softmax2d():
    d = nn.ParameterDict({"b": nn.Parameter(torch.ones(2, 3)), "a": torch.zeros(4), "c": 3})
    assert list(d.keys()) == ["a", "b", "c"] and type(d["a"]) is nn.Parameter
    assert [n for n, _ in d.named_parameters()] == ["a", "b"]
    assert repr(d) == ("ParameterDict(\n    (a): Parameter containing: [srcgrad.FloatTensor of size 4]\n"
                       "    (b): Parameter containing: [srcgrad.FloatTensor of size 2x3]\n    (c): Object of type: int\n)")
    d.update([("e", torch.ones(1))])
    del d["b"]
    assert list(d) == ["a", "c", "e"] and "e" in d and len(d) == 3 and d.pop("a").shape == (4,)
    assert list(d.state_dict()) == ["e"]
    x = RNG.standard_normal((2, 3, 4, 5))
    y = nn.Softmax2d()(torch.tensor(x))
    np.testing.assert_allclose(y.numpy(), np.exp(x) / np.exp(x).sum(1, keepdims=True), rtol=1e-13)
    with raises(ValueError, "Softmax2d: expected input to be 3D or 4D, got 2D instead"):
        nn.Softmax2d()(torch.ones(5, 4))


def test_module_reprs_and_modes():
    assert [repr(m) for m in (nn.Dropout1d(), nn.Dropout2d(0.3), nn.AlphaDropout(0.2), nn.FeatureAlphaDropout(0.1))] == [
        "Dropout1d(p=0.5, inplace=False)", "Dropout2d(p=0.3, inplace=False)", "AlphaDropout(p=0.2, inplace=False)",
        "FeatureAlphaDropout(p=0.1, inplace=False)"]
    x = torch.ones(2, 3, 4, 5, 2)
    layer = nn.Dropout3d(0.5)
    assert layer.eval()(x) is x and layer.train()(x).shape == x.shape
