"""`Tensor.size(dim)` and `Tensor.stride(dim)` read one dim as PyTorch's: negative dims
count from the end, and a dim out of range, any dim of a 0-d tensor, or a dim that is
not an int gets PyTorch 2.13's error (they raised Python's bare tuple IndexError)."""

import numpy as np
import pytest

import srcgrad as torch


@pytest.mark.parametrize("method", ["size", "stride"])
def test_dims_in_range(method):
    t = torch.ones(2, 1, 4)
    full = tuple(getattr(t, method)())
    for d in range(-3, 3):
        assert getattr(t, method)(d) == full[d]
    assert getattr(t, method)(np.int64(2)) == full[2]
    assert full == ((2, 1, 4) if method == "size" else (4, 4, 1))


@pytest.mark.parametrize("method", ["size", "stride"])
@pytest.mark.parametrize("shape, dim, error, message", [
    ((3,), 1, IndexError, "Dimension out of range (expected to be in range of [-1, 0], but got 1)"),
    ((3,), -2, IndexError, "Dimension out of range (expected to be in range of [-1, 0], but got -2)"),
    ((2, 3), 2, IndexError, "Dimension out of range (expected to be in range of [-2, 1], but got 2)"),
    ((), 0, IndexError, "Dimension specified as 0 but tensor has no dimensions"),
    ((), -1, IndexError, "Dimension specified as -1 but tensor has no dimensions"),
    ((2, 3), True, TypeError, "{}(): argument 'dim' (position 1) must be int, not bool"),
    ((2, 3), 1.0, TypeError, "{}(): argument 'dim' (position 1) must be int, not float"),
    ((2, 3), "a", TypeError, "{}(): argument 'dim' (position 1) must be int, not str"),
])
def test_refusals(method, shape, dim, error, message):
    t = torch.ones(*shape) if shape else torch.tensor(2.0)
    with pytest.raises(error) as err:
        getattr(t, method)(dim)
    assert str(err.value) == message.format(method)
