"""srcgrad.utils.data as torch.utils.data: datasets, random_split, DataLoader batching and
default_collate (expected values as PyTorch 2.13 gives them)."""

import numpy as np
import pytest

import srcgrad as torch
from srcgrad.utils.data import (ConcatDataset, DataLoader, Dataset, IterableDataset, Subset, TensorDataset,
                                default_collate, random_split)


def _dataset():
    return TensorDataset(torch.arange(14.0).reshape(7, 2), torch.arange(7))


def test_batches_in_order_with_the_last_one_short():
    batches = list(DataLoader(_dataset(), batch_size=3))
    assert [tuple(x.shape) for x, _ in batches] == [(3, 2), (3, 2), (1, 2)]
    assert [y.tolist() for _, y in batches] == [[0, 1, 2], [3, 4, 5], [6]]
    assert batches[0][0].dtype == torch.float32 and batches[0][1].dtype == torch.int64
    assert repr(batches[2]) == "[tensor([[12., 13.]]), tensor([6])]"


@pytest.mark.parametrize("size,drop,count", [(1, False, 7), (2, False, 4), (2, True, 3), (3, True, 2), (7, True, 1),
                                             (8, False, 1), (8, True, 0)])
def test_len_counts_batches(size, drop, count):
    loader = DataLoader(_dataset(), batch_size=size, drop_last=drop)
    assert len(loader) == count == len(list(loader))


def test_shuffle_draws_a_new_permutation_each_pass_from_the_seeded_generator():
    loader = DataLoader(_dataset(), batch_size=7, shuffle=True)
    torch.manual_seed(3)
    first = [next(iter(loader))[1].tolist() for _ in range(3)]
    torch.manual_seed(3)
    again = [next(iter(loader))[1].tolist() for _ in range(3)]
    assert first == again
    assert all(sorted(order) == list(range(7)) for order in first)
    assert len({tuple(order) for order in first}) > 1


def test_default_collate_structures():
    batch = default_collate([{"a": 1.0, "b": (1, 2), "c": "x", "d": np.ones(2, np.float32), "e": True},
                             {"a": 2.0, "b": (3, 4), "c": "y", "d": np.zeros(2, np.float32), "e": False}])
    assert repr(batch) == ("{'a': tensor([1., 2.], dtype=srcgrad.float64), 'b': [tensor([1, 3]), tensor([2, 4])], "
                           "'c': ['x', 'y'], 'd': tensor([[1., 1.],\n        [0., 0.]]), 'e': tensor([ True, False])}")
    assert repr(list(DataLoader([(1, 2.5), (3, 4.5)], batch_size=2))) == (
        "[[tensor([1, 3]), tensor([2.5000, 4.5000], dtype=srcgrad.float64)]]")
    assert list(DataLoader([1, 2, 3], batch_size=None)) == [1, 2, 3]


def test_random_split_lengths_and_disjoint_subsets():
    parts = random_split(range(10), [0.33, 0.33, 0.34])
    assert [len(p) for p in parts] == [4, 3, 3]
    assert sorted(v for p in parts for v in p) == list(range(10))
    assert [len(p) for p in random_split(range(11), [0.5, 0.5])] == [6, 5]
    assert [len(p) for p in random_split(range(5), [2, 3])] == [2, 3]
    with pytest.raises(ValueError, match="^Sum of input lengths does not equal the length of the input dataset!$"):
        random_split(range(10), [3, 3])


def test_subset_concat_and_user_datasets():
    cat = ConcatDataset([range(3), range(10, 12)])
    assert [cat[i] for i in range(-5, 5)] == [0, 1, 2, 10, 11, 0, 1, 2, 10, 11]
    assert list(Subset(range(10, 20), [3, 1])) == [13, 11]

    class Squares(Dataset):
        def __len__(self):
            return 5

        def __getitem__(self, i):
            return torch.tensor([float(i * i)])

    assert torch.cat(list(DataLoader(Squares(), batch_size=2))).view(-1).tolist() == [0.0, 1.0, 4.0, 9.0, 16.0]

    class Stream(IterableDataset):
        def __iter__(self):
            return iter(range(5))

    assert [b.tolist() for b in DataLoader(Stream(), batch_size=2)] == [[0, 1], [2, 3], [4]]
    assert [b.tolist() for b in DataLoader(Stream(), batch_size=2, drop_last=True)] == [[0, 1], [2, 3]]


def test_training_loop_over_a_loader_reaches_the_least_squares_fit():
    torch.manual_seed(0)
    x = torch.randn(64, 2, dtype=torch.float64)
    y = x @ torch.tensor([[2.0], [-1.0]], dtype=torch.float64) + 0.5
    model = torch.nn.Linear(2, 1).double()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for _ in range(60):
        for xb, yb in DataLoader(TensorDataset(x, y), batch_size=16, shuffle=True):
            opt.zero_grad()
            torch.nn.functional.mse_loss(model(xb), yb).backward()
            opt.step()
    assert np.allclose(model.weight.detach().numpy(), [[2.0, -1.0]], atol=1e-6)
    assert np.allclose(model.bias.detach().numpy(), [0.5], atol=1e-6)


def test_bad_arguments_raise_pytorchs_errors():
    with pytest.raises(ValueError, match="^batch_size should be a positive integer value, but got batch_size=0$"):
        DataLoader(_dataset(), batch_size=0)
    with pytest.raises(AssertionError, match="^Size mismatch between tensors$"):
        TensorDataset(torch.zeros(3), torch.zeros(2))
    with pytest.raises(ValueError, match="num_workers=0"):
        DataLoader(_dataset(), num_workers=2)
    with pytest.raises(ValueError, match="^sampler option is mutually exclusive with shuffle$"):
        DataLoader(_dataset(), sampler=[0, 1], shuffle=True)
