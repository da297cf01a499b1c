"""Untracked `+`, `-`, `*`, `/` of a float tensor and a Python float compute with the
number's cached 0-d array (`dtypes.float_operand`): the same values and dtypes, bit for
bit, as NumPy's own conversion of the number, and never a cached zero of the wrong sign."""

import operator

import numpy as np
import pytest

import srcgrad as torch
from srcgrad.tensor import dtypes

NUMBERS = [0.1, -0.1, 1.0, 3.0, 1 / 3, 2.5, 123456.789, 1e-8, 1e-40, 1e-300, 5e-324, 65504.0, 70000.0,
           1e39, 1e300, float("inf"), -float("inf")]
OPS = [operator.add, operator.sub, operator.mul, operator.truediv]
NEP50 = pytest.mark.skipif(not dtypes.WEAK_NUMBERS, reason="NumPy 1 converts Python numbers by value (no NEP 50); "
                           "float_operand gives the number back there")


def _elements(np_dtype):
    rng = np.random.default_rng(0)
    values = np.concatenate([rng.standard_normal(20) * s for s in (1e-6, 1.0, 1e4, 1e30)])
    with np.errstate(over="ignore"):
        return np.concatenate([values, [0.0, -0.0, np.inf, -np.inf, np.nan]]).astype(np_dtype)


@NEP50
@pytest.mark.parametrize("np_dtype", [np.float16, np.float32, np.float64])
def test_the_cached_operand_gives_numpys_results_bit_for_bit(np_dtype):
    a = _elements(np_dtype)
    with np.errstate(all="ignore"):
        for number in NUMBERS:
            operand = dtypes.float_operand(number, a.dtype)
            assert type(operand) is np.ndarray and operand.shape == () and operand.dtype == a.dtype
            assert not operand.flags.writeable
            for op in OPS:
                for want, got in ((op(a, number), op(a, operand)), (op(number, a), op(operand, a))):
                    assert got.dtype == want.dtype
                    assert got.tobytes() == want.tobytes()


def test_zeros_and_nan_are_never_cached():
    f32 = np.dtype(np.float32)
    for number in (0.0, -0.0, float("nan")):
        assert dtypes.float_operand(number, f32) is number
    positive, negative = dtypes.float_operand(0.0, f32), dtypes.float_operand(-0.0, f32)
    assert np.signbit(positive) == False and np.signbit(negative) == True  # noqa: E712


def test_the_cache_stays_bounded():
    f64 = np.dtype(np.float64)
    for k in range(1, 1000):
        dtypes.float_operand(float(k) + 0.5, f64)
    assert len(dtypes._FLOAT_OPERANDS) <= 256
    assert dtypes.float_operand(7.5, f64) == 7.5


@NEP50
@pytest.mark.parametrize("dtype", [torch.float16, torch.float32, torch.float64])
def test_tensor_operators_with_a_python_float_agree_with_numpy(dtype):
    data = _elements(dtype.numpy)
    g = torch.tensor(data, dtype=dtype)
    with np.errstate(all="ignore"):
        for number in NUMBERS + [0.0, -0.0, float("nan")]:
            for got, want in ((g + number, data + number), (g - number, data - number), (number - g, number - data),
                              (g * number, data * number), (number * g, number * data), (g / number, data / number)):
                assert got.dtype == dtype and got.requires_grad is False and got.grad_fn is None
                assert got.numpy().tobytes() == want.tobytes()


def test_tracked_operators_keep_the_number_and_their_gradients():
    a = torch.tensor([1.0, -2.0, 3.0], requires_grad=True)
    out = (a * 0.1 - 2.5) / 4.0
    assert type(out.grad_fn).__name__ == "DivBackward0"
    out.sum().backward()
    assert a.grad.dtype == torch.float32
    assert a.grad.numpy().tobytes() == (np.ones(3, np.float32) / np.float32(4.0) * np.float32(0.1)).tobytes()
    with torch.no_grad():
        b = a * 0.1
    assert b.grad_fn is None and b.numpy().tobytes() == (a.detach().numpy() * 0.1).tobytes()
