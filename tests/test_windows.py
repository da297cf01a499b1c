"""hann_window, hamming_window, blackman_window, bartlett_window and kaiser_window of
the Tensor shim: float64 values stored from PyTorch 2.13, dtypes, the periodic flag,
errors; then a comparison with PyTorch where it is installed."""

import numpy as np
import pytest

import srcgrad as torch

STORED = {  # (5 entries periodic, 4 entries symmetric), float64
    "hann_window": ([0.0, 0.3454915028125263, 0.9045084971874737, 0.9045084971874737, 0.3454915028125264],
                    [0.0, 0.7499999999999999, 0.7500000000000002, 0.0]),
    "hamming_window": ([0.08000000000000002, 0.3978521825875242, 0.9121478174124757, 0.912147817412476,
                        0.3978521825875243], [0.08000000000000002, 0.7699999999999999, 0.7700000000000002,
                                              0.08000000000000002]),
    "blackman_window": ([0.0, 0.20077014326253045, 0.8492298567374694, 0.8492298567374696, 0.20077014326253056],
                        [0.0, 0.6299999999999999, 0.6300000000000003, 0.0]),
    "bartlett_window": ([0.0, 0.4, 0.8, 0.7999999999999998, 0.3999999999999999],
                        [0.0, 0.6666666666666666, 0.6666666666666667, 0.0]),
}


@pytest.mark.parametrize("name", sorted(STORED))
def test_stored_float64_values(name):
    periodic, symmetric = STORED[name]
    assert getattr(torch, name)(5, dtype=torch.float64).tolist() == periodic
    assert getattr(torch, name)(4, False, dtype=torch.float64).tolist() == symmetric


def test_kaiser_values_to_an_ulp():
    np.testing.assert_allclose(torch.kaiser_window(5, False, beta=3.0, dtype=torch.float64).numpy(),
                               [0.2048847564012536, 0.7269255302876366, 1.0, 0.7269255302876366, 0.2048847564012536],
                               rtol=4e-16)


@pytest.mark.parametrize("name", ["hann_window", "hamming_window", "blackman_window", "bartlett_window", "kaiser_window"])
def test_lengths_dtypes_and_errors(name):
    window = getattr(torch, name)
    assert window(0).shape == (0,) and window(1).tolist() == [1.0]
    assert window(7).dtype == torch.float32 and window(7, dtype=torch.float64).dtype == torch.float64
    assert window(3, requires_grad=True).requires_grad and window(3).grad_fn is None
    with pytest.raises(RuntimeError, match=f"^{name} requires non-negative window_length, got window_length=-1$"):
        window(-1)
    with pytest.raises(TypeError, match=rf"^{name}\(\): argument 'window_length' \(position 1\) must be int, not float$"):
        window(3.5)
    with pytest.raises(RuntimeError, match=rf"^{name} expects floating point dtypes, got: TensorOptions\(dtype=long int,"):
        window(3, dtype=torch.int64)


def test_hamming_coefficients():
    assert torch.hamming_window(5, False, alpha=0.6, beta=0.3, dtype=torch.float64).numpy() == pytest.approx(
        [0.3, 0.6, 0.9, 0.6, 0.3])


def test_against_torch():
    real = pytest.importorskip("torch")
    for name in ("hann_window", "hamming_window", "blackman_window", "bartlett_window", "kaiser_window"):
        for n in (2, 3, 8, 31, 100):
            for periodic in (True, False):
                for dtype, rtol in (("float32", 5e-7), ("float64", 1e-15)):
                    expected = getattr(real, name)(n, periodic, dtype=getattr(real, dtype)).numpy()
                    mine = getattr(torch, name)(n, periodic, dtype=getattr(torch, dtype)).numpy()
                    assert mine.dtype == expected.dtype
                    np.testing.assert_allclose(mine, expected, rtol=rtol, atol=rtol)
