"""nn.utils.rnn (PackedSequence, pack_padded_sequence, pad_packed_sequence,
pad_sequence, pack_sequence, unpad_sequence, unpack_sequence) and the recurrent layers
on packed input: stored layouts, node names and errors as PyTorch 2.13 gives them; a
packed RNN/LSTM/GRU against each sequence run alone on its own length (values and
gradients); compared with PyTorch itself where installed."""

import itertools
import re

import numpy as np
import pytest

import srcgrad as torch
from srcgrad.nn.utils import rnn

nn = torch.nn


def raises(exc, message):
    return pytest.raises(exc, match="^" + re.escape(message) + "$")


def padded(steps, batch, features=1):
    return torch.tensor(np.arange(steps * batch * features, dtype=np.float32).reshape(steps, batch, features),
                        requires_grad=True)


def test_pack_padded_sequence_layout_and_gradient():
    x = padded(4, 3)
    packed = rnn.pack_padded_sequence(x, [4, 2, 1])
    assert packed._fields == ("data", "batch_sizes", "sorted_indices", "unsorted_indices")
    assert packed.data[:, 0].tolist() == [0.0, 1.0, 2.0, 3.0, 4.0, 6.0, 9.0]
    assert packed.batch_sizes.tolist() == [3, 2, 1, 1] and packed.batch_sizes.dtype == torch.int64
    assert packed.sorted_indices is None and packed.unsorted_indices is None
    assert type(packed.data.grad_fn).__name__ == "PackPaddedSequenceBackward0"
    packed.data.backward(torch.arange(1.0, 8.0).unsqueeze(1))
    assert x.grad[:, :, 0].tolist() == [[1.0, 2.0, 3.0], [4.0, 5.0, 0.0], [6.0, 0.0, 0.0], [7.0, 0.0, 0.0]]
    assert repr(rnn.PackedSequence(torch.ones(3), torch.tensor([2, 1]))) == (
        "PackedSequence(data=tensor([1., 1., 1.]), batch_sizes=tensor([2, 1]), sorted_indices=None, "
        "unsorted_indices=None)")


def test_unsorted_lengths_batch_first_and_padding_back():
    x = padded(3, 4).transpose(0, 1)  # (batch, steps, 1)
    lengths = torch.tensor([2, 3, 2, 1])
    packed = rnn.pack_padded_sequence(x, lengths, batch_first=True, enforce_sorted=False)
    assert packed.sorted_indices.tolist() == [1, 0, 2, 3] and packed.unsorted_indices.tolist() == [1, 0, 2, 3]
    assert packed.batch_sizes.tolist() == [4, 3, 1]
    out, lens = rnn.pad_packed_sequence(packed, batch_first=True, padding_value=-1.0, total_length=4)
    assert lens.tolist() == [2, 3, 2, 1] and lens.dtype == torch.int64
    assert out[:, :, 0].tolist() == [[0.0, 4.0, -1.0, -1.0], [1.0, 5.0, 9.0, -1.0], [2.0, 6.0, -1.0, -1.0],
                                     [3.0, -1.0, -1.0, -1.0]]
    assert type(out.grad_fn).__name__ == "IndexSelectBackward0"
    sorted_out, _ = rnn.pad_packed_sequence(rnn.pack_padded_sequence(padded(3, 2), [3, 1]))
    assert type(sorted_out.grad_fn).__name__ == "CopySlices"
    assert rnn.pack_padded_sequence(padded(3, 2), [3, 1]).double().data.dtype == torch.float64
    assert [t.tolist() for t in rnn.unpack_sequence(packed)] == [[[0.0], [4.0]], [[1.0], [5.0], [9.0]],
                                                                 [[2.0], [6.0]], [[3.0]]]


def test_pad_sequence_sides_and_pack_sequence():
    a, b = torch.tensor([1.0, 2.0], requires_grad=True), torch.tensor([3.0, 4.0, 5.0])
    right = rnn.pad_sequence([a, b])
    assert right.tolist() == [[1.0, 3.0], [2.0, 4.0], [0.0, 5.0]] and type(right.grad_fn).__name__ == "CopySlices"
    left = rnn.pad_sequence([a, b], batch_first=True, padding_value=-1, padding_side="left")
    assert left.tolist() == [[-1.0, 1.0, 2.0], [3.0, 4.0, 5.0]]
    left.backward(torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]))
    assert a.grad.tolist() == [2.0, 3.0]
    packed = rnn.pack_sequence([a, b], enforce_sorted=False)
    assert packed.data.tolist() == [3.0, 1.0, 4.0, 2.0, 5.0] and packed.batch_sizes.tolist() == [2, 2, 1]
    assert [t.tolist() for t in rnn.unpad_sequence(rnn.pad_sequence([a, b]), torch.tensor([2, 3]))] == [
        [1.0, 2.0], [3.0, 4.0, 5.0]]


def test_errors():
    x = padded(4, 3)
    with raises(RuntimeError, "`lengths` array must be sorted in decreasing order when `enforce_sorted` is True. You "
                              "can pass `enforce_sorted=False` to pack_padded_sequence and/or pack_sequence to sidestep "
                              "this requirement if you do not need ONNX exportability."):
        rnn.pack_padded_sequence(x, [1, 4, 2])
    with raises(RuntimeError, "Expected `len(lengths)` to be equal to batch_size, but got 2 (batch_size=3)"):
        rnn.pack_padded_sequence(x, [4, 2])
    with raises(RuntimeError, "Length of all samples has to be greater than 0, but found an element in 'lengths' "
                              "that is <= 0"):
        rnn.pack_padded_sequence(x, [4, 2, 0])
    with raises(RuntimeError, "'lengths' argument should be a 1D CPU int64 tensor, but got 2D cpu Long tensor"):
        rnn.pack_padded_sequence(x, torch.tensor([[4, 2, 1]]))
    with raises(RuntimeError, "Cannot pack empty tensors."):
        rnn.pack_padded_sequence(torch.ones(0, 3), [])
    with raises(RuntimeError, "pack_padded_sequence: a length of 5 is longer than the input's 4 steps; each length "
                              "must be at most the padded length"):
        rnn.pack_padded_sequence(x, [5, 2, 1])
    with raises(ValueError, "Expected total_length to be at least the length of the longest sequence in input, but "
                            "got total_length=2 and max sequence length being 4"):
        rnn.pad_packed_sequence(rnn.pack_padded_sequence(x, [4, 2, 1]), total_length=2)
    with raises(RuntimeError, "pad_sequence: Expected iterable for input sequences, but got arg of type: "
                              "<class 'int'>"):
        rnn.pad_sequence(3)
    with raises(RuntimeError, "Expected padding_side to be one of left or right, but got mid."):
        rnn.pad_sequence([torch.ones(2)], padding_side="mid")
    with raises(RuntimeError, "received an empty list of sequences"):
        rnn.pad_sequence([])
    with raises(RuntimeError, "The size of tensor a (3) must match the size of tensor b (2) at non-singleton "
                              "dimension 1"):
        rnn.pad_sequence([torch.ones(2), torch.ones(3, 2)])
    with raises(RuntimeError, "input.size(-1) must be equal to input_size. Expected 2, got 5"):
        nn.LSTM(2, 3)(rnn.PackedSequence(torch.ones(3, 5), torch.tensor([2, 1])))


def _layer(kind, **options):
    torch.manual_seed(0)
    return nn.RNN(3, 4, nonlinearity="relu", **options) if kind == "RNN_relu" else getattr(nn, kind)(3, 4, **options)


@pytest.mark.parametrize("kind, layers, bidirectional, batch_first", [
    (kind, layers, bidirectional, batch_first)
    for kind, layers, bidirectional, batch_first in itertools.product(["RNN", "RNN_relu", "LSTM", "GRU"], [1, 2],
                                                                      [False, True], [False, True])])
def test_packed_layers_equal_each_sequence_run_alone(kind, layers, bidirectional, batch_first):
    """A packed batch gives each sequence the output, final state and gradients of
    that sequence run alone, its padding never read."""
    model = _layer(kind, num_layers=layers, bidirectional=bidirectional, batch_first=batch_first).double()
    rng = np.random.default_rng(layers * 4 + bidirectional * 2 + batch_first)
    lengths, steps, batch = [3, 5, 1, 4], 5, 4
    directions = 2 if bidirectional else 1
    x0 = rng.standard_normal((batch, steps, 3) if batch_first else (steps, batch, 3))
    h0 = rng.standard_normal((layers * directions, batch, 4))
    c0 = rng.standard_normal((layers * directions, batch, 4))
    x, h = torch.tensor(x0, requires_grad=True), torch.tensor(h0, requires_grad=True)
    state = (h, torch.tensor(c0)) if kind == "LSTM" else h
    packed = rnn.pack_padded_sequence(x, lengths, batch_first=batch_first, enforce_sorted=False)
    out, final = model(packed, state)
    assert isinstance(out, rnn.PackedSequence) and out.batch_sizes.tolist() == [4, 3, 3, 2, 1]
    assert type(out.data.grad_fn).__name__ == "CatBackward0"
    padded_out, _ = rnn.pad_packed_sequence(out, batch_first=batch_first)
    h_n = final[0] if kind == "LSTM" else final
    weights = rng.standard_normal(padded_out.shape)
    ((padded_out * torch.tensor(weights)).sum() + (h_n * h_n).sum()).backward()
    for b, length in enumerate(lengths):
        xb = torch.tensor(x0[b:b + 1, :length] if batch_first else x0[:length, b:b + 1], requires_grad=True)
        hb = torch.tensor(h0[:, b:b + 1], requires_grad=True)
        alone_out, alone_final = model(xb, (hb, torch.tensor(c0[:, b:b + 1])) if kind == "LSTM" else hb)
        alone_h = alone_final[0] if kind == "LSTM" else alone_final
        mine = padded_out[b, :length] if batch_first else padded_out[:length, b]
        np.testing.assert_allclose(mine.detach().numpy(), alone_out.detach().numpy()[0 if batch_first else slice(None),
                                   ...].reshape(mine.shape), rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(h_n[:, b].detach().numpy(), alone_h[:, 0].detach().numpy(), rtol=1e-12, atol=1e-12)
        w = weights[b:b + 1, :length] if batch_first else weights[:length, b:b + 1]
        ((alone_out * torch.tensor(w)).sum() + (alone_h * alone_h).sum()).backward()
        gx = x.grad[b, :length] if batch_first else x.grad[:length, b]
        np.testing.assert_allclose(gx.numpy(), xb.grad.numpy().reshape(gx.shape), rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(h.grad[:, b].numpy(), hb.grad[:, 0].numpy(), rtol=1e-10, atol=1e-12)
        padding = x.grad[b, length:] if batch_first else x.grad[length:, b]
        assert not padding.numpy().any()


# --- against PyTorch ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("kind, layers, bidirectional, batch_first, enforce_sorted", list(itertools.product(
    ["RNN", "LSTM", "GRU"], [1, 2], [False, True], [False, True], [False, True])))
def test_against_pytorch(kind, layers, bidirectional, batch_first, enforce_sorted):
    real = pytest.importorskip("torch")
    real.manual_seed(0)
    options = dict(num_layers=layers, bidirectional=bidirectional, batch_first=batch_first)
    theirs, mine = getattr(real.nn, kind)(3, 4, **options), getattr(nn, kind)(3, 4, **options)
    for (name, p), (other, q) in zip(theirs.named_parameters(), mine.named_parameters()):
        assert name == other
        with torch.no_grad():
            q.copy_(torch.tensor(p.detach().numpy()))
    rng = np.random.default_rng(0)
    lengths = [5, 4, 2, 1] if enforce_sorted else [2, 5, 1, 4]
    x0 = rng.standard_normal((4, 5, 3) if batch_first else (5, 4, 3)).astype(np.float32)
    h0 = rng.standard_normal((layers * (2 if bidirectional else 1), 4, 4)).astype(np.float32)
    results = []
    for lib, module, R in ((real, theirs, real.nn.utils.rnn), (torch, mine, rnn)):
        x, h = lib.tensor(x0, requires_grad=True), lib.tensor(h0, requires_grad=True)
        packed = R.pack_padded_sequence(x, lib.tensor(lengths), batch_first=batch_first,
                                        enforce_sorted=enforce_sorted)
        out, final = module(packed, (h, h * 0.5) if kind == "LSTM" else h)
        finals = final if kind == "LSTM" else (final,)
        padded_out, lens = R.pad_packed_sequence(out, batch_first=batch_first, total_length=6)
        (padded_out.sum() + sum((f * f).sum() for f in finals)).backward()
        results.append([out.data, *finals, padded_out, x.grad, h.grad, *(p.grad for p in module.parameters())])
        results.append([type(t.grad_fn).__name__ for t in (out.data, *finals, padded_out)] + [lens.tolist()])
    theirs_values, theirs_meta, mine_values, mine_meta = results
    assert mine_meta == theirs_meta
    for a, b in zip(theirs_values, mine_values):
        a = a.detach().numpy()
        np.testing.assert_allclose(b.detach().numpy(), a, rtol=0, atol=16 * np.finfo(np.float32).eps * np.abs(a).max())
