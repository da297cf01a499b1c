"""RNN, LSTM, GRU and their cells, as in PyTorch: outputs and final states against a
NumPy loop of PyTorch's equations, gradients (and second derivatives) against central
differences in float64, parameter names, shapes and initialization bounds, reprs and
errors; compared with PyTorch itself where installed."""

import re

import numpy as np
import pytest

import srcgrad as torch
from tensor_checks import check_against_differences, check_second_against_differences

nn = torch.nn
RNG = np.random.default_rng(0)


def raises(exc, message):
    return pytest.raises(exc, match="^" + re.escape(message) + "$")


def _sigmoid(v):
    return 1 / (1 + np.exp(-v))


def _lstm_loop(x, h, c, w_ih, w_hh, b_ih, b_hh):
    outputs = []
    for x_t in x:
        i, f, g, o = np.split(x_t @ w_ih.T + b_ih + h @ w_hh.T + b_hh, 4, axis=-1)
        c = _sigmoid(f) * c + _sigmoid(i) * np.tanh(g)
        h = _sigmoid(o) * np.tanh(c)
        outputs.append(h)
    return np.stack(outputs), h, c


def _gru_loop(x, h, w_ih, w_hh, b_ih, b_hh):
    outputs = []
    for x_t in x:
        xr, xz, xn = np.split(x_t @ w_ih.T + b_ih, 3, axis=-1)
        hr, hz, hn = np.split(h @ w_hh.T + b_hh, 3, axis=-1)
        r, z = _sigmoid(xr + hr), _sigmoid(xz + hz)
        h = (1 - z) * np.tanh(xn + r * hn) + z * h
        outputs.append(h)
    return np.stack(outputs), h


def _arrays(module):
    return {name: p.detach().numpy() for name, p in module.named_parameters()}


def test_lstm_against_a_numpy_loop_with_both_directions_and_batch_first():
    lstm = nn.LSTM(3, 4, batch_first=True, bidirectional=True).double()
    assert [(n, p.shape) for n, p in lstm.named_parameters()] == [
        ("weight_ih_l0", (16, 3)), ("weight_hh_l0", (16, 4)), ("bias_ih_l0", (16,)), ("bias_hh_l0", (16,)),
        ("weight_ih_l0_reverse", (16, 3)), ("weight_hh_l0_reverse", (16, 4)), ("bias_ih_l0_reverse", (16,)),
        ("bias_hh_l0_reverse", (16,))]
    x = RNG.standard_normal((2, 5, 3))
    out, (h, c) = lstm(torch.tensor(x))
    assert out.shape == (2, 5, 8) and h.shape == (2, 2, 4) and c.shape == (2, 2, 4)
    p, zeros = _arrays(lstm), np.zeros((2, 4))
    seq = x.transpose(1, 0, 2)
    forward = _lstm_loop(seq, zeros, zeros, p["weight_ih_l0"], p["weight_hh_l0"], p["bias_ih_l0"], p["bias_hh_l0"])
    backward = _lstm_loop(seq[::-1], zeros, zeros, p["weight_ih_l0_reverse"], p["weight_hh_l0_reverse"],
                          p["bias_ih_l0_reverse"], p["bias_hh_l0_reverse"])
    expected = np.concatenate([forward[0], backward[0][::-1]], -1).transpose(1, 0, 2)
    np.testing.assert_allclose(out.detach().numpy(), expected, rtol=1e-13, atol=1e-15)
    np.testing.assert_allclose(h.detach().numpy(), np.stack([forward[1], backward[1]]), rtol=1e-13, atol=1e-15)
    np.testing.assert_allclose(c.detach().numpy(), np.stack([forward[2], backward[2]]), rtol=1e-13, atol=1e-15)


def test_gru_and_rnn_layers_against_numpy_and_differences():
    gru = nn.GRU(3, 2, num_layers=2).double()
    x, h0 = RNG.standard_normal((4, 2, 3)), RNG.standard_normal((2, 2, 2))
    out, h = gru(torch.tensor(x), torch.tensor(h0))
    p = _arrays(gru)
    first = _gru_loop(x, h0[0], p["weight_ih_l0"], p["weight_hh_l0"], p["bias_ih_l0"], p["bias_hh_l0"])
    second = _gru_loop(first[0], h0[1], p["weight_ih_l1"], p["weight_hh_l1"], p["bias_ih_l1"], p["bias_hh_l1"])
    np.testing.assert_allclose(out.detach().numpy(), second[0], rtol=1e-13, atol=1e-15)
    np.testing.assert_allclose(h.detach().numpy(), np.stack([first[1], second[1]]), rtol=1e-13, atol=1e-15)
    check_against_differences(lambda t, s: gru(t, s)[0], [x[:3], h0])
    rnn = nn.RNN(3, 2, nonlinearity="relu").double()
    w = _arrays(rnn)
    expected = np.maximum(x[0] @ w["weight_ih_l0"].T + w["bias_ih_l0"] + w["bias_hh_l0"], 0)
    np.testing.assert_allclose(rnn(torch.tensor(x))[0][0].detach().numpy(), expected, rtol=1e-14)


def test_cells_second_derivatives_and_unbatched_input():
    cell = nn.LSTMCell(2, 3).double()
    x, h, c = RNG.standard_normal((2, 2)), RNG.standard_normal((2, 3)), RNG.standard_normal((2, 3))
    check_second_against_differences(lambda *t: cell(t[0], (t[1], t[2]))[1], [x, h, c])
    gru = nn.GRUCell(2, 3, bias=False).double()
    check_second_against_differences(lambda *t: gru(*t), [x, h])
    assert gru(torch.tensor(x[0])).shape == (3,)
    lstm = nn.LSTM(2, 3)
    out, (hn, cn) = lstm(torch.ones(5, 2))
    assert out.shape == (5, 3) and hn.shape == (1, 3) and out.dtype == torch.float32


def test_reprs_initialization_and_errors():
    assert [repr(m) for m in (nn.RNN(3, 4, nonlinearity="relu"), nn.LSTM(3, 4, 2, batch_first=True, bidirectional=True),
                              nn.GRU(3, 4, bias=False, dropout=0.5, num_layers=2), nn.LSTMCell(3, 4),
                              nn.GRUCell(3, 4, bias=False), nn.RNNCell(3, 4, nonlinearity="relu"))] == [
        "RNN(3, 4)", "LSTM(3, 4, num_layers=2, batch_first=True, bidirectional=True)",
        "GRU(3, 4, num_layers=2, bias=False, dropout=0.5)", "LSTMCell(3, 4)", "GRUCell(3, 4, bias=False)",
        "RNNCell(3, 4, nonlinearity=relu)"]
    torch.manual_seed(0)
    weights = np.concatenate([p.detach().numpy().ravel() for p in nn.LSTM(8, 16, 2).parameters()])
    assert np.abs(weights).max() <= 0.25 and np.abs(weights).max() > 0.24
    with raises(RuntimeError, "input.size(-1) must be equal to input_size. Expected 3, got 2"):
        nn.LSTM(3, 4)(torch.ones(5, 2, 2))
    with raises(ValueError, "GRU: Expected input to be 2D or 3D, got 4D instead"):
        nn.GRU(3, 4)(torch.ones(5, 2, 2, 3))


def test_against_pytorch():
    real = pytest.importorskip("torch")
    mine, theirs = nn.LSTM(3, 4, 2, bidirectional=True).double(), real.nn.LSTM(3, 4, 2, bidirectional=True).double()
    with real.no_grad():
        for a, b in zip(mine.parameters(), theirs.parameters()):
            b.copy_(real.tensor(a.detach().numpy()))
    x = RNG.standard_normal((5, 2, 3))
    results = []
    for lib, model in ((torch, mine), (real, theirs)):
        xt = lib.tensor(x, requires_grad=True)
        out, (h, c) = model(xt)
        params = [xt, *model.parameters()]
        grads = lib.autograd.grad((out ** 2).sum() + (h * c).sum(), params, create_graph=True)
        second = lib.autograd.grad(sum((g * g).sum() for g in grads), params)
        results.append([out.detach().numpy(), h.detach().numpy()] + [g.detach().numpy() for g in grads + second])
    for a, b in zip(*results):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)
