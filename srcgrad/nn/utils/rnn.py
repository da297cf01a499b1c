"""`srcgrad.nn.utils.rnn`, as `torch.nn.utils.rnn`: sequences of different lengths as
one PackedSequence, and back.

A PackedSequence holds `data` (the sequences' entries step by step: all sequences'
first entries, then the second entries of those that have one, ...), `batch_sizes`
(how many sequences have an entry at each step, int64), and, where the sequences
were sorted by decreasing length on the way in, `sorted_indices` and
`unsorted_indices` (the permutation and its inverse). The recurrent layers take one
and give one back (recurrent.py). Packing is one PackPaddedSequenceBackward0 node;
padding writes slices of a filled tensor (CopySlices), as PyTorch's kernels do.
"""

import collections
import collections.abc

import numpy as np

from ...tensor import creation, dtypes, ops
from ...tensor.tensor import Tensor

__all__ = ["PackedSequence", "invert_permutation", "pack_padded_sequence", "pad_packed_sequence", "pad_sequence",
           "unpad_sequence", "pack_sequence", "unpack_sequence"]


def _bind(optional, fn):
    return None if optional is None else fn(optional)


class PackedSequence(collections.namedtuple("PackedSequence_", ["data", "batch_sizes", "sorted_indices",
                                                                 "unsorted_indices"])):
    """The packed form of a batch of sequences (made by pack_padded_sequence or
    pack_sequence); `PackedSequence((data, batch_sizes))` also takes the pair."""

    __slots__ = ()

    def __new__(cls, data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
        if unsorted_indices is None:
            unsorted_indices = invert_permutation(sorted_indices)
        if batch_sizes is None:
            if not (isinstance(data, (list, tuple)) and len(data) == 2):
                raise AssertionError("Expected data to be a list or tuple of length 2")
            data, batch_sizes = data
        return super().__new__(cls, data, batch_sizes, sorted_indices, unsorted_indices)

    def __repr__(self):
        return (f"PackedSequence(data={self.data!r}, batch_sizes={self.batch_sizes!r}, "
                f"sorted_indices={self.sorted_indices!r}, unsorted_indices={self.unsorted_indices!r})")

    def to(self, *args, **kwargs):
        """`data.to(...)`; the same PackedSequence where that changes nothing."""
        data = self.data.to(*args, **kwargs)
        if data is self.data:
            return self
        return type(self)(data, self.batch_sizes, self.sorted_indices, self.unsorted_indices)

    def cpu(self, *args, **kwargs):
        return self.to("cpu")

    def cuda(self, *args, **kwargs):
        return self.to("cuda")

    @property
    def is_cuda(self):
        return False

    def is_pinned(self):
        return False


def _converter(dtype_name):
    def convert(self):
        return self.to(dtype=dtypes.as_dtype(dtype_name))
    return convert


for _method, _dtype in (("double", "float64"), ("float", "float32"), ("half", "float16"), ("long", "int64"),
                        ("int", "int32"), ("short", "int16"), ("char", "int8"), ("byte", "uint8")):
    setattr(PackedSequence, _method, _converter(_dtype))


def invert_permutation(permutation):
    """The inverse permutation (None for None)."""
    if permutation is None:
        return None
    inverse = np.empty_like(permutation._data)
    inverse[permutation._data] = np.arange(permutation._data.size)
    return Tensor._make(inverse)


def _lengths_array(lengths):
    """The lengths as an int64 array (a tensor's converted, as PyTorch's `.to(int64)`)."""
    data = lengths._data if isinstance(lengths, Tensor) else lengths
    lengths = np.asarray(data).astype(np.int64)
    if lengths.ndim != 1:
        raise RuntimeError(f"'lengths' argument should be a 1D CPU int64 tensor, but got {lengths.ndim}D cpu Long "
                           "tensor")
    return lengths


def _batch_sizes(lengths, steps, batch):
    """Each step's count of sequences longer than it, with PyTorch's checks."""
    if lengths.shape[0] != batch:
        raise RuntimeError(f"Expected `len(lengths)` to be equal to batch_size, but got {lengths.shape[0]} "
                           f"(batch_size={batch})")
    if lengths[batch - 1] <= 0:
        raise RuntimeError("Length of all samples has to be greater than 0, but found an element in 'lengths' that "
                           "is <= 0")
    if np.any(lengths[1:] > lengths[:-1]):
        raise RuntimeError("`lengths` array must be sorted in decreasing order when `enforce_sorted` is True. You can "
                           "pass `enforce_sorted=False` to pack_padded_sequence and/or pack_sequence to sidestep this "
                           "requirement if you do not need ONNX exportability.")
    if lengths[0] > steps:
        raise RuntimeError(f"pack_padded_sequence: a length of {int(lengths[0])} is longer than the input's "
                           f"{steps} steps; each length must be at most the padded length")
    return (lengths[None, :] > np.arange(lengths[0])[:, None]).sum(axis=1)


def _packed_rows(input, flat_index, batch_first):
    """The entries of padded `input` at `flat_index` of its (steps * batch) rows."""
    if batch_first:
        input = input.transpose(0, 1)
    shape = input._data.shape
    return input.reshape(shape[0] * shape[1], *shape[2:])[Tensor._make(flat_index)]


def pack_padded_sequence(input, lengths, batch_first=False, enforce_sorted=True):
    """Pack a padded batch (steps, batch, *) (or (batch, steps, *) with `batch_first`)
    of sequences of the given `lengths`; unless `enforce_sorted`, the sequences need
    not come longest first (they are sorted, stably, and the permutation kept)."""
    lengths = _lengths_array(lengths)
    sorted_indices = None
    if not enforce_sorted:
        order = np.argsort(-lengths, kind="stable")
        lengths, sorted_indices = lengths[order], Tensor._make(order.astype(np.int64))
        input = input.index_select(0 if batch_first else 1, sorted_indices)
    if input.numel() == 0:
        raise RuntimeError("Cannot pack empty tensors.")
    shape = input._data.shape
    steps, batch = (shape[1], shape[0]) if batch_first else (shape[0], shape[1])
    batch_sizes = _batch_sizes(lengths, steps, batch)
    flat_index = np.concatenate([t * batch + np.arange(n) for t, n in enumerate(batch_sizes)])
    data = ops.composite("PackPaddedSequenceBackward0", _packed_rows, input, flat_index, batch_first)
    return PackedSequence(data, Tensor._make(batch_sizes.astype(np.int64)), sorted_indices, None)


def pad_packed_sequence(sequence, batch_first=False, padding_value=0.0, total_length=None):
    """The padded batch (and the lengths, int64) of a PackedSequence, in the order the
    sequences had before packing; `total_length` pads to that many steps."""
    batch_sizes = sequence.batch_sizes._data.astype(np.int64)
    steps = batch_sizes.shape[0]
    if total_length is not None:
        if total_length < steps:
            raise ValueError("Expected total_length to be at least the length of the longest sequence in input, but "
                             f"got total_length={total_length} and max sequence length being {steps}")
        steps = total_length
    data = sequence.data
    batch = int(batch_sizes[0])
    padded = creation.full((steps, batch, *data._data.shape[1:]), padding_value, dtype=data.dtype)
    offset = 0
    for t, count in enumerate(batch_sizes):
        padded[t, :count].copy_(data[offset:offset + count])
        offset += count
    if batch_first:
        padded = padded.transpose(0, 1)
    lengths = Tensor._make((batch_sizes[None, :] > np.arange(batch)[:, None]).sum(axis=1).astype(np.int64))
    if sequence.unsorted_indices is not None:
        unsorted = sequence.unsorted_indices
        return padded.index_select(0 if batch_first else 1, unsorted), lengths[unsorted]
    return padded, lengths


def pad_sequence(sequences, batch_first=False, padding_value=0.0, padding_side="right"):
    """Stack tensors of shapes (L_i, *) into (max L, batch, *) (or (batch, max L, *)),
    filling with `padding_value` after (`padding_side` "right") or before ("left") them."""
    if not isinstance(sequences, collections.abc.Iterable):
        raise RuntimeError(f"pad_sequence: Expected iterable for input sequences, but got arg of type: "
                           f"{type(sequences)}")
    sequences = tuple(sequences)
    if not sequences:
        raise RuntimeError("received an empty list of sequences")
    if padding_side not in ("left", "right"):
        raise RuntimeError(f"Expected padding_side to be one of left or right, but got {padding_side}.")
    longest = max(s._data.shape[0] for s in sequences)
    trailing = sequences[0]._data.shape[1:]
    shape = (len(sequences), longest, *trailing) if batch_first else (longest, len(sequences), *trailing)
    out = creation.full(shape, padding_value, dtype=sequences[0].dtype)
    for i, seq in enumerate(sequences):
        length = seq._data.shape[0]
        start = longest - length if padding_side == "left" else 0
        if batch_first:
            out[i, start:start + length].copy_(seq)
        else:
            out[start:start + length, i].copy_(seq)
    return out


def unpad_sequence(padded_sequences, lengths, batch_first=False):
    """The list of sequences of a padded batch, each cut to its length (the batch's
    dims 0 and 1 are swapped in place unless `batch_first`, as PyTorch does)."""
    if not batch_first:
        padded_sequences.transpose_(0, 1)
    steps = creation.arange(padded_sequences.shape[1])
    return [seq[steps < length] for seq, length in zip(padded_sequences, lengths, strict=True)]


def pack_sequence(sequences, enforce_sorted=True):
    """pack_padded_sequence of pad_sequence(sequences) with their lengths."""
    lengths = creation.as_tensor([v.size(0) for v in sequences])
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def unpack_sequence(packed_sequences):
    """The list of sequences of a PackedSequence, in their original order."""
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)
