"""Fill values read as PyTorch reads them (full, full_like, new_full, fill_, masked_fill):
the Number argument, its dtype, and the checked conversion to the dtype written in.
Expected values and texts are PyTorch 2.13's."""

import numpy as np
import pytest

import srcgrad as torch

MASK = torch.tensor([True, False])


@pytest.mark.parametrize("value, dtype, values", [
    (np.float64(1.5), torch.float32, [1.5, 1.5]),  # a NumPy scalar is a Python number: the default float
    (np.float16(1.5), torch.float32, [1.5, 1.5]),
    (np.int8(3), torch.int64, [3, 3]),
    (np.uint8(200), torch.int64, [200, 200]),
    (np.bool_(True), torch.float32, [1.0, 1.0]),  # read as a float, as PyTorch's
    (np.complex64(1 + 2j), torch.float32, [1.0, 1.0]),  # its real part
    (np.complex128(1 + 2j), torch.complex64, [1 + 2j, 1 + 2j]),
    (torch.tensor(2.5, dtype=torch.float64), torch.float32, [2.5, 2.5]),  # a 0-d tensor: its item
    (torch.tensor(2, dtype=torch.int8), torch.int64, [2, 2]),
    (torch.tensor(True), torch.bool, [True, True]),
])
def test_full_reads_its_fill_value_as_a_python_number(value, dtype, values):
    out = torch.full((2,), value)
    assert out.dtype == dtype and out.tolist() == values and not out.requires_grad


@pytest.mark.parametrize("value, dtype, values", [
    (-255, torch.uint8, [1, 1]),  # a negative int wraps into an unsigned dtype
    (-0.5, torch.uint8, [0, 0]),
    (2.7, torch.int32, [2, 2]),
    (-2.7, torch.int8, [-2, -2]),
    (2 ** 63, torch.bool, [True, True]),
    (1 + 0j, torch.float32, [1.0, 1.0]),
    (1e39, torch.float64, [1e39, 1e39]),
    (float("inf"), torch.float16, [float("inf")] * 2),
    (65504.0, torch.float16, [65504.0, 65504.0]),
])
def test_a_value_that_fits_is_cast_as_pytorch_casts_it(value, dtype, values):
    assert torch.full((2,), value, dtype=dtype).tolist() == values
    assert torch.zeros(2, dtype=dtype).fill_(value).tolist() == values
    assert torch.zeros(2, dtype=dtype).new_full((2,), value).tolist() == values


@pytest.mark.parametrize("value, dtype, c_type", [
    (300, torch.int8, "int8_t"), (-256, torch.uint8, "uint8_t"), (-2.7, torch.uint8, "uint8_t"),
    (1e10, torch.int32, "int"), (float("nan"), torch.int64, "int64_t"), (float("inf"), torch.int16, "int16_t"),
    (2 ** 63, None, "int64_t"), (70000.0, torch.float16, "c10::Half"), (1e39, torch.float32, "float"),
    (-1e39, torch.float32, "float"), (1 + 2j, torch.float64, "double"), (10 ** 400, torch.float64, "double"),
])
def test_a_value_that_does_not_fit_raises_pytorchs_overflow_error(value, dtype, c_type):
    message = f"value cannot be converted to type {c_type} without overflow"
    base = torch.zeros(2, dtype=torch.int64 if dtype is None else dtype)
    for make in (lambda: torch.full((2,), value, dtype=dtype), lambda: torch.full_like(base, value),
                 lambda: base.new_full((2,), value), lambda: base.fill_(value), lambda: base.masked_fill(MASK, value),
                 lambda: base.masked_fill_(MASK, value)):
        with pytest.raises(RuntimeError) as err:
            make()
        assert str(err.value) == message
    assert base.tolist() == [0, 0]  # nothing was written


def test_masked_fill_checks_a_0_d_value_tensor():
    big = torch.tensor(1e39, dtype=torch.float64)
    with pytest.raises(RuntimeError, match="^value cannot be converted to type float without overflow$"):
        torch.zeros(2).masked_fill(MASK, big)


@pytest.mark.parametrize("value, name", [
    (torch.tensor([1.0, 2.0]), "Tensor"), (torch.tensor(1.0, requires_grad=True), "Tensor"), ("a", "str"),
    (None, "NoneType"), (np.array(2.5), "numpy.ndarray"), ([1.0], "list"),
])
def test_a_fill_value_that_is_no_number_is_refused(value, name):
    for function, make in (("full", lambda: torch.full((2,), value)), ("full_like", lambda: torch.full_like(MASK, value)),
                           ("new_full", lambda: MASK.new_full((2,), value))):
        with pytest.raises(TypeError) as err:
            make()
        assert str(err.value) == f"{function}(): argument 'fill_value' (position 2) must be Number, not {name}"


def test_fill_and_masked_fill_list_both_overloads():
    with pytest.raises(TypeError) as err:
        torch.zeros(2).fill_([1, 2.0])
    assert str(err.value) == (
        "fill_() received an invalid combination of arguments - got (list), but expected one of:\n"
        " * (Tensor value)\n      didn't match because some of the arguments have invalid types: (!list of [int, float]!)\n"
        " * (Number value)\n      didn't match because some of the arguments have invalid types: (!list of [int, float]!)\n")
    with pytest.raises(TypeError) as err:
        torch.zeros(2).masked_fill_(MASK, (1.0,))
    assert str(err.value) == (
        "masked_fill_() received an invalid combination of arguments - got (Tensor, tuple), but expected one of:\n"
        " * (Tensor mask, Tensor value)\n"
        "      didn't match because some of the arguments have invalid types: (Tensor, !tuple of (float,)!)\n"
        " * (Tensor mask, Number value)\n"
        "      didn't match because some of the arguments have invalid types: (Tensor, !tuple of (float,)!)\n")


def test_masked_fill_in_place_passes_the_gradient_to_a_value_tensor():
    value = torch.tensor(2.0, requires_grad=True)
    out = torch.zeros(3).masked_fill_(torch.tensor([True, False, True]), value)  # self needs no grad
    assert out.requires_grad and type(out.grad_fn).__name__ == "MaskedFillBackward1"
    (out * torch.tensor([1.0, 10.0, 100.0])).sum().backward()
    assert value.grad.item() == 101.0  # was None: the value's gradient was dropped


def test_masked_fill_refuses_a_tracked_integer_result():
    with pytest.raises(RuntimeError, match="^Autograd not support dtype: Int$"):
        torch.zeros(2, dtype=torch.int32).masked_fill(MASK, torch.tensor(1.0, requires_grad=True))
    out = torch.zeros(2, dtype=torch.int32).masked_fill_(MASK, torch.tensor(1.0, requires_grad=True))
    assert out.tolist() == [1, 0] and out.requires_grad  # in place PyTorch records it


def test_agrees_with_pytorch():
    real = pytest.importorskip("torch")
    for value in (np.float64(1.5), np.int8(-3), 1 + 0j, -255, 2.7, 1e39):
        for name in ("int8", "uint8", "int32", "float16", "float32", "float64", "complex64"):
            got, want = _outcome(torch, value, name), _outcome(real, value, name)
            assert got == want, (value, name)


def _outcome(lib, value, name):
    try:
        out = lib.full((2,), value, dtype=getattr(lib, name))
    except RuntimeError as e:
        return str(e)
    return str(out.dtype).split(".")[-1], out.tolist()
