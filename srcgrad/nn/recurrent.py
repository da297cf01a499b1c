"""`srcgrad.nn`'s recurrent layers, as in `torch.nn`: RNN, LSTM, GRU (layers,
directions, batch_first, dropout between layers) and the cells RNNCell, LSTMCell,
GRUCell. Their equations are PyTorch's (gate order i, f, g, o for the LSTM and r, z, n
for the GRU, whose n reads r * (W_hn h + b_hn)), written step by step over
`F.linear`, sigmoid and tanh, so every derivative comes from those ops' rules; every
weight and bias starts uniform in +-1/sqrt(hidden_size), PyTorch's reset_parameters.
The parameters are named weight_ih_l{k}, weight_hh_l{k}, bias_ih_l{k}, bias_hh_l{k}
(with `_reverse` for the second direction), in PyTorch's order.

A PackedSequence input runs as PyTorch's packed layers do: each step on the rows of
the sequences that have an entry there, a sequence's state leaving the batch at its
last step (the forward direction) or joining at it from the initial state (the
reverse direction), so h_n (and c_n) are taken at each sequence's own length; the
output is a PackedSequence of the same batch_sizes and permutation."""

import math

import numpy as np

from ..tensor import devices, dtypes
from ..tensor.grad_mode import no_grad
from ..tensor.joins import cat, stack
from ..tensor.tensor import Tensor
from . import functional as F
from .modules import Module, Parameter
from .utils.rnn import PackedSequence

__all__ = ["RNNCell", "LSTMCell", "GRUCell", "RNN", "LSTM", "GRU"]

_GATES = {"RNN_TANH": 1, "RNN_RELU": 1, "LSTM": 4, "GRU": 3}


def _rnn_step(x, h, w_ih, w_hh, b_ih, b_hh, relu):
    pre = F.linear(x, w_ih, b_ih) + F.linear(h, w_hh, b_hh)
    return pre.relu() if relu else pre.tanh()


def _lstm_step(x, state, w_ih, w_hh, b_ih, b_hh):
    h, c = state
    i, f, g, o = (F.linear(x, w_ih, b_ih) + F.linear(h, w_hh, b_hh)).chunk(4, -1)
    c = f.sigmoid() * c + i.sigmoid() * g.tanh()
    return o.sigmoid() * c.tanh(), c


def _gru_step(x, h, w_ih, w_hh, b_ih, b_hh):
    xr, xz, xn = F.linear(x, w_ih, b_ih).chunk(3, -1)
    hr, hz, hn = F.linear(h, w_hh, b_hh).chunk(3, -1)
    r, z = (xr + hr).sigmoid(), (xz + hz).sigmoid()
    n = (xn + r * hn).tanh()
    return (1 - z) * n + z * h


def _new_parameter(shape, dtype):
    np_dtype = (dtypes.DEFAULT_FLOAT if dtype is None else dtypes.as_dtype(dtype)).numpy
    return Parameter(Tensor._make(np.empty(shape, dtype=np_dtype)))


def _reset_uniform(module):
    bound = 1.0 / math.sqrt(module.hidden_size) if module.hidden_size > 0 else 0.0
    with no_grad():
        for weight in module.parameters():
            weight.uniform_(-bound, bound)


def _zeros(shape, like):
    return Tensor._make(np.zeros(shape, dtype=like._data.dtype))


def _rows(state, start, stop):
    """Rows start:stop of a state (a Tensor, or the LSTM's (h, c))."""
    return tuple(s[start:stop] for s in state) if isinstance(state, tuple) else state[start:stop]


def _count(state):
    return (state[0] if isinstance(state, tuple) else state)._data.shape[0]


def _joined(states):
    """The states' rows one after another (the state itself where there is one)."""
    if len(states) == 1:
        return states[0]
    if isinstance(states[0], tuple):
        return tuple(cat(parts, 0) for parts in zip(*states))
    return cat(states, 0)


# --- cells -----------------------------------------------------------------------------------


class _Cell(Module):
    _mode = ""

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        devices.allocated_on(device, "empty")
        super().__init__()
        self.input_size, self.hidden_size, self.bias = input_size, hidden_size, bias
        gates = _GATES[self._mode] * hidden_size
        self.weight_ih = _new_parameter((gates, input_size), dtype)
        self.weight_hh = _new_parameter((gates, hidden_size), dtype)
        if bias:
            self.bias_ih = _new_parameter((gates,), dtype)
            self.bias_hh = _new_parameter((gates,), dtype)
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def reset_parameters(self):
        _reset_uniform(self)

    def _batched(self, input):
        if input.dim() not in (1, 2):
            raise ValueError(f"{type(self).__name__}: Expected input to be 1D or 2D, got {input.dim()}D instead")
        return input.dim() == 2

    def _weights(self):
        return self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh

    def extra_repr(self):
        s = f"{self.input_size}, {self.hidden_size}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if getattr(self, "nonlinearity", "tanh") != "tanh":
            s += f", nonlinearity={self.nonlinearity}"
        return s


class RNNCell(_Cell):
    """h' = tanh (or relu) of (W_ih x + b_ih + W_hh h + b_hh)."""

    def __init__(self, input_size, hidden_size, bias=True, nonlinearity="tanh", device=None, dtype=None):
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"Unknown nonlinearity: {nonlinearity}")
        self._mode = "RNN_TANH" if nonlinearity == "tanh" else "RNN_RELU"
        super().__init__(input_size, hidden_size, bias, device, dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input, hx=None):
        batched = self._batched(input)
        x = input if batched else input.unsqueeze(0)
        h = _zeros((x._data.shape[0], self.hidden_size), x) if hx is None else (hx if batched else hx.unsqueeze(0))
        out = _rnn_step(x, h, *self._weights(), self.nonlinearity == "relu")
        return out if batched else out.squeeze(0)


class LSTMCell(_Cell):
    """(h', c'): c' = f c + i g, h' = o tanh(c'), the gates i, f, g, o from W_ih x + b_ih + W_hh h + b_hh."""

    _mode = "LSTM"

    def forward(self, input, hx=None):
        batched = self._batched(input)
        x = input if batched else input.unsqueeze(0)
        if hx is None:
            zeros = _zeros((x._data.shape[0], self.hidden_size), x)
            hx = (zeros, zeros)
        elif not batched:
            hx = (hx[0].unsqueeze(0), hx[1].unsqueeze(0))
        h, c = _lstm_step(x, hx, *self._weights())
        return (h, c) if batched else (h.squeeze(0), c.squeeze(0))


class GRUCell(_Cell):
    """h' = (1 - z) n + z h, n = tanh(W_in x + b_in + r (W_hn h + b_hn))."""

    _mode = "GRU"

    def forward(self, input, hx=None):
        batched = self._batched(input)
        x = input if batched else input.unsqueeze(0)
        h = _zeros((x._data.shape[0], self.hidden_size), x) if hx is None else (hx if batched else hx.unsqueeze(0))
        out = _gru_step(x, h, *self._weights())
        return out if batched else out.squeeze(0)


# --- layers over sequences ---------------------------------------------------------------------


class _RNNBase(Module):
    _mode = ""

    def __init__(self, input_size, hidden_size, num_layers=1, bias=True, batch_first=False, dropout=0.0,
                 bidirectional=False, device=None, dtype=None):
        devices.allocated_on(device, "empty")
        super().__init__()
        if not 0 <= dropout <= 1 or isinstance(dropout, bool):
            raise ValueError("dropout should be a number in range [0, 1] representing the probability of an element "
                             "being zeroed")
        if hidden_size <= 0:
            raise ValueError("hidden_size must be greater than zero")
        if num_layers <= 0:
            raise ValueError("num_layers must be greater than zero")
        self.input_size, self.hidden_size, self.num_layers = input_size, hidden_size, num_layers
        self.bias, self.batch_first, self.dropout = bias, batch_first, float(dropout)
        self.bidirectional, self.proj_size = bidirectional, 0
        gates = _GATES[self._mode] * hidden_size
        directions = 2 if bidirectional else 1
        for layer in range(num_layers):
            for suffix in ("", "_reverse")[:directions]:
                width = input_size if layer == 0 else hidden_size * directions
                setattr(self, f"weight_ih_l{layer}{suffix}", _new_parameter((gates, width), dtype))
                setattr(self, f"weight_hh_l{layer}{suffix}", _new_parameter((gates, hidden_size), dtype))
                if bias:
                    setattr(self, f"bias_ih_l{layer}{suffix}", _new_parameter((gates,), dtype))
                    setattr(self, f"bias_hh_l{layer}{suffix}", _new_parameter((gates,), dtype))
        self.reset_parameters()

    def reset_parameters(self):
        _reset_uniform(self)

    def _weights(self, layer, suffix):
        names = ("weight_ih", "weight_hh", "bias_ih", "bias_hh") if self.bias else ("weight_ih", "weight_hh")
        found = [getattr(self, f"{name}_l{layer}{suffix}") for name in names]
        return found if self.bias else found + [None, None]

    def _step(self, x, state, weights):
        if self._mode == "LSTM":
            return _lstm_step(x, state, *weights)
        if self._mode == "GRU":
            return _gru_step(x, state, *weights)
        return _rnn_step(x, state, *weights, self._mode == "RNN_RELU")

    def _run(self, input, hx):
        """input (T, N, features); hx per layer and direction. The outputs (T, N, D *
        hidden) and the final states, as lists over layers and directions."""
        directions = 2 if self.bidirectional else 1
        finals, layer_input = [], input
        steps = input._data.shape[0]
        for layer in range(self.num_layers):
            outputs = []
            for d, suffix in enumerate(("", "_reverse")[:directions]):
                state = hx[layer * directions + d]
                weights = self._weights(layer, suffix)
                seq = [None] * steps
                for t in (range(steps) if d == 0 else reversed(range(steps))):
                    state = self._step(layer_input[t], state, weights)
                    seq[t] = state[0] if self._mode == "LSTM" else state
                outputs.append(stack(seq) if steps else _zeros((0,) + layer_input._data.shape[1:2] + (self.hidden_size,),
                                                             layer_input))
                finals.append(state)
            layer_input = outputs[0] if directions == 1 else cat(outputs, -1)
            if self.dropout and self.training and layer < self.num_layers - 1:
                layer_input = F.dropout(layer_input, self.dropout, True)
        return layer_input, finals

    def _run_packed(self, data, batch_sizes, hx):
        """data (total entries, features) in packed order; hx per layer and direction
        (batch_sizes[0] rows). The packed outputs and the final states, as `_run`'s."""
        directions = 2 if self.bidirectional else 1
        sizes = [int(n) for n in batch_sizes]
        offsets = np.concatenate([[0], np.cumsum(sizes)]).tolist()
        finals, layer_input = [], data
        for layer in range(self.num_layers):
            outputs = []
            for d, suffix in enumerate(("", "_reverse")[:directions]):
                weights, initial = self._weights(layer, suffix), hx[layer * directions + d]
                seq, left = [None] * len(sizes), []
                state = initial if d == 0 else _rows(initial, 0, sizes[-1])
                for t in (range(len(sizes)) if d == 0 else reversed(range(len(sizes)))):
                    have, n = _count(state), sizes[t]
                    if n < have:  # sequences ending at step t - 1 leave with their final state
                        left.append(_rows(state, n, have))
                        state = _rows(state, 0, n)
                    elif n > have:  # (reverse) sequences ending at step t start from their initial state
                        state = _joined([state, _rows(initial, have, n)])
                    state = self._step(layer_input[offsets[t]:offsets[t + 1]], state, weights)
                    seq[t] = state[0] if self._mode == "LSTM" else state
                outputs.append(cat(seq, 0))
                finals.append(_joined([state] + left[::-1]))
            layer_input = outputs[0] if directions == 1 else cat(outputs, -1)
            if self.dropout and self.training and layer < self.num_layers - 1:
                layer_input = F.dropout(layer_input, self.dropout, True)
        return layer_input, finals

    def _forward_packed(self, packed, hx):
        data, batch_sizes, sorted_indices, unsorted_indices = packed
        if data.dim() != 2:
            raise RuntimeError(f"input must have 2 dimensions, got {data.dim()}")
        if data._data.shape[-1] != self.input_size:
            raise RuntimeError(f"input.size(-1) must be equal to input_size. Expected {self.input_size}, got "
                               f"{data._data.shape[-1]}")
        batch = int(batch_sizes._data[0])
        template = Tensor._make(np.empty((1, batch), dtype=data._data.dtype))
        permuted = (lambda h: h) if sorted_indices is None else (lambda h: h.index_select(1, sorted_indices))
        restored = (lambda h: h) if unsorted_indices is None else (lambda h: h.index_select(1, unsorted_indices))
        if self._mode == "LSTM":
            h0 = self._initial(template, None if hx is None else permuted(hx[0]), True)
            c0 = self._initial(template, None if hx is None else permuted(hx[1]), True)
            output, finals = self._run_packed(data, batch_sizes._data, [(h0[k], c0[k]) for k in range(len(h0))])
            state = (restored(stack([h for h, _ in finals])), restored(stack([c for _, c in finals])))
        else:
            h0 = self._initial(template, None if hx is None else permuted(hx), True)
            output, finals = self._run_packed(data, batch_sizes._data, [h0[k] for k in range(len(h0))])
            state = restored(stack(finals))
        return PackedSequence(output, batch_sizes, sorted_indices, unsorted_indices), state

    def _initial(self, x, hx, batched):
        count = self.num_layers * (2 if self.bidirectional else 1)
        shape = (count, x._data.shape[1], self.hidden_size)
        if hx is None:
            return _zeros(shape, x)
        hx = hx if batched else hx.unsqueeze(1)
        if tuple(hx._data.shape) != shape:
            raise RuntimeError(f"Expected hidden size {tuple(shape)}, got {list(hx._data.shape)}")
        return hx

    def forward(self, input, hx=None):
        if isinstance(input, PackedSequence):
            return self._forward_packed(input, hx)
        if input.dim() not in (2, 3):
            raise ValueError(f"{type(self).__name__}: Expected input to be 2D or 3D, got {input.dim()}D instead")
        if input._data.shape[-1] != self.input_size:
            raise RuntimeError(f"input.size(-1) must be equal to input_size. Expected {self.input_size}, got "
                               f"{input._data.shape[-1]}")
        batched = input.dim() == 3
        x = input if batched else input.unsqueeze(1)
        if batched and self.batch_first:
            x = x.transpose(0, 1)
        if self._mode == "LSTM":
            h0 = self._initial(x, None if hx is None else hx[0], batched)
            c0 = self._initial(x, None if hx is None else hx[1], batched)
            output, finals = self._run(x, [(h0[k], c0[k]) for k in range(h0._data.shape[0])])
            state = (stack([h for h, _ in finals]), stack([c for _, c in finals]))
        else:
            h0 = self._initial(x, hx, batched)
            output, finals = self._run(x, [h0[k] for k in range(h0._data.shape[0])])
            state = stack(finals)
        if batched and self.batch_first:
            output = output.transpose(0, 1)
        if not batched:
            output = output.squeeze(1)
            state = (state[0].squeeze(1), state[1].squeeze(1)) if self._mode == "LSTM" else state.squeeze(1)
        return output, state

    def extra_repr(self):
        s = f"{self.input_size}, {self.hidden_size}"
        if self.num_layers != 1:
            s += f", num_layers={self.num_layers}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if self.batch_first is not False:
            s += f", batch_first={self.batch_first}"
        if self.dropout != 0:
            s += f", dropout={self.dropout}"
        if self.bidirectional is not False:
            s += f", bidirectional={self.bidirectional}"
        return s


class RNN(_RNNBase):
    """h_t = tanh (or relu) of (W_ih x_t + b_ih + W_hh h_(t-1) + b_hh), per layer and direction."""

    def __init__(self, input_size, hidden_size, num_layers=1, nonlinearity="tanh", bias=True, batch_first=False,
                 dropout=0.0, bidirectional=False, device=None, dtype=None):
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"Unknown nonlinearity '{nonlinearity}'. Select from 'tanh' or 'relu'.")
        self._mode = "RNN_TANH" if nonlinearity == "tanh" else "RNN_RELU"
        super().__init__(input_size, hidden_size, num_layers, bias, batch_first, dropout, bidirectional, device, dtype)
        self.nonlinearity = nonlinearity


class LSTM(_RNNBase):
    """Returns output, (h_n, c_n)."""

    _mode = "LSTM"


class GRU(_RNNBase):
    _mode = "GRU"
