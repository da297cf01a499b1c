"""A Python number meets a tensor as PyTorch's wrapped number, under NumPy 1 as under NumPy 2
(NEP 50): the tensor's dtype is kept, an int out of an integer dtype's range wraps into it,
a number a float dtype cannot hold overflows to inf in it
(float32 + 1e39, float16 + 70000.0), an integer tensor divided by 1e39 gives float32 zeros,
and a 0-d tensor keeps its dtype. NumPy 1's value-based casting would widen each of these
(to float64, float32, int64) or compute them in float64 (dtypes.as_weak_number converts the
number where it would). Expected dtypes and values are PyTorch 2.13's."""

import math
import operator

import numpy as np
import pytest

import srcgrad as torch

INF, NAN = math.inf, math.nan
F = [-1.5, 0.1, 3.0]
I = [-3, 5, 7]
C = [1 + 2j, -0.5, 3j]


def T(m, values, dtype):
    """A tensor of module `m` (srcgrad, or torch to check the expectations)."""
    return m.tensor(values, dtype=getattr(m, dtype))


CASES = {
    "float16 * 70000.0": (lambda m: T(m, [1.0, -2.0], "float16") * 70000.0, "float16", [INF, -INF]),
    "70000.0 + float16": (lambda m: 70000.0 + T(m, F, "float16"), "float16", [INF, INF, INF]),
    "float16 + 300": (lambda m: T(m, F, "float16") + 300, "float16", [298.5, 300.0, 303.0]),
    "float32 + 1e39": (lambda m: T(m, F, "float32") + 1e39, "float32", [INF, INF, INF]),
    "1e39 - float32": (lambda m: 1e39 - T(m, F, "float32"), "float32", [INF, INF, INF]),
    "float32 / 1e39": (lambda m: T(m, F, "float32") / 1e39, "float32", [-0.0, 0.0, 0.0]),
    "float32 * 2 ** 31": (lambda m: T(m, F, "float32") * 2 ** 31, "float32",
                          [-3221225472.0, 214748368.0, 6442450944.0]),
    "float32 ** 1e39": (lambda m: T(m, F, "float32") ** 1e39, "float32", [INF, 0.0, INF]),
    "1e300 ** float32": (lambda m: 1e300 ** T(m, F, "float32"), "float32", [0.0, INF, INF]),
    "float32 % 1e39": (lambda m: T(m, F, "float32") % 1e39, "float32", [INF, 0.10000000149011612, 3.0]),
    "float32 // 1e39": (lambda m: T(m, F, "float32") // 1e39, "float32", [-1.0, 0.0, 0.0]),
    "int64 / 1e39": (lambda m: T(m, I, "int64") / 1e39, "float32", [-0.0, 0.0, 0.0]),
    "int32 * 1e39": (lambda m: T(m, I, "int32") * 1e39, "float32", [-INF, INF, INF]),
    "uint8 + 1e300": (lambda m: T(m, [3, 5, 250], "uint8") + 1e300, "float32", [INF, INF, INF]),
    "complex64 * 1e39": (lambda m: T(m, C, "complex64") * 1e39, "complex64",
                         [complex(INF, INF), complex(-INF, NAN), complex(NAN, INF)]),
    "complex64 / 1e39": (lambda m: T(m, C, "complex64") / 1e39, "complex64", [0j, complex(-0.0, 0.0), 0j]),
    "int16 * (1e39+1j)": (lambda m: T(m, I, "int16") * (1e39 + 1j), "complex64",
                          [complex(-INF, NAN), complex(INF, NAN), complex(INF, NAN)]),
    "0-d float32 * 0.1": (lambda m: T(m, 2.5, "float32") * 0.1, "float32", 0.25),
    "0-d float16 + 70000.0": (lambda m: T(m, 2.5, "float16") + 70000.0, "float16", INF),
    "0-d float32 > 0.1": (lambda m: T(m, 0.1, "float32") > 0.1, "bool", False),
    "0-d int16 | 3": (lambda m: T(m, 2, "int16") | 3, "int16", 3),
    "0-d uint8 & 3": (lambda m: T(m, 2, "uint8") & 3, "uint8", 2),
    "clamp(0-d int8, 0, 2)": (lambda m: m.clamp(T(m, -2, "int8"), 0, 2), "int8", 0),
    "add(float32, 1e39, alpha=0.5)": (lambda m: m.add(T(m, F, "float32"), 1e39, alpha=0.5), "float32",
                                      [INF, INF, INF]),
    "remainder(float16, 70000.0)": (lambda m: m.remainder(T(m, F, "float16"), 70000.0), "float16",
                                    [INF, 0.0999755859375, 3.0]),
    "fmod(int32, 1e39)": (lambda m: m.fmod(T(m, I, "int32"), 1e39), "float32", [-3.0, 5.0, 7.0]),
    "copysign(float32, -1e39)": (lambda m: m.copysign(T(m, F, "float32"), -1e39), "float32",
                                 [-1.5, -0.10000000149011612, -3.0]),
    "xlogy(1e39, bool)": (lambda m: m.xlogy(1e39, m.tensor([True, False])), "float32", [NAN, -INF]),
    # a NumPy scalar reads as PyTorch reads it: np.bool_, np.float16/32 and np.complex64 (its real part) as a float
    "int64 + np.bool_(True)": (lambda m: T(m, I, "int64") + np.bool_(True), "float32", [-2.0, 6.0, 8.0]),
    "np.bool_(True) * bool": (lambda m: np.bool_(True) * m.tensor([True, False]), "float32", [1.0, 0.0]),
    "uint8 + np.complex64(1+2j)": (lambda m: T(m, [3, 250], "uint8") + np.complex64(1 + 2j), "float32", [4.0, 251.0]),
    "complex64 * np.complex64(1+2j)": (lambda m: T(m, C, "complex64") * np.complex64(1 + 2j), "complex64", C),
    "int8 * np.complex128(1+2j)": (lambda m: T(m, [1, -2], "int8") * np.complex128(1 + 2j), "complex64",
                                   [1 + 2j, -2 - 4j]),
    "float16 + np.float32(2.5)": (lambda m: T(m, F, "float16") + np.float32(2.5), "float16", [1.0, 2.599609375, 5.5]),
    "0-d int8 + np.int64(-2)": (lambda m: T(m, 3, "int8") + np.int64(-2), "int8", 1),
    "where(c, int32, np.bool_(True))": (
        lambda m: m.where(m.tensor([True, False]), T(m, [5, 6], "int32"), np.bool_(True)), "float32", [5.0, 1.0]),
    # a number first in torch.add, sub, mul, div is PyTorch's wrapped number too
    "mul(2.5, uint8)": (lambda m: m.mul(2.5, T(m, [3, 250], "uint8")), "float32", [7.5, 625.0]),
    "div(2.5, int32)": (lambda m: m.div(2.5, T(m, [2, -4], "int32")), "float32", [1.25, -0.625]),
    "add(1e39, int16)": (lambda m: m.add(1e39, T(m, [2, -4], "int16")), "float32", [INF, INF]),
    "sub(2.5, int64, alpha=2)": (lambda m: m.sub(2.5, T(m, [1, 2], "int64"), alpha=2), "float32", [0.5, -1.5]),
    "add(300, int8)": (lambda m: m.add(300, T(m, [1], "int8")), "int8", [45]),
    "add(2.5, 0-d float16)": (lambda m: m.add(2.5, T(m, 2.0, "float16")), "float16", 4.5),
    "mul(2.5, 3)": (lambda m: m.mul(2.5, 3), "float32", 7.5),
    # an int out of an integer dtype's range wraps into it, as PyTorch casts it
    "int8 + 300": (lambda m: T(m, [3, -5, 100], "int8") + 300, "int8", [47, 39, -112]),
    "uint8 - 2": (lambda m: T(m, [3, 5], "uint8") - 2, "uint8", [1, 3]),
    "int8 // 300": (lambda m: T(m, [3, -5, 100], "int8") // 300, "int8", [0, -1, 2]),
    "int8 % 300": (lambda m: T(m, [3, -5, 100], "int8") % 300, "int8", [3, 39, 12]),
    "int8 < 300": (lambda m: T(m, [3, -5, 100], "int8") < 300, "bool", [True, True, False]),
    "int64 + 2 ** 63": (lambda m: T(m, [1, 2], "int64") + 2 ** 63, "int64",
                        [-9223372036854775807, -9223372036854775806]),
    "300 ** int8": (lambda m: 300 ** T(m, [2], "int8"), "int8", [-112]),
    # the bitwise operators promote as PyTorch (the 0-d tier), a number wrapped
    "int8 & 300": (lambda m: T(m, [3, -5, 100], "int8") & 300, "int8", [0, 40, 36]),
    "int64 ^ True": (lambda m: T(m, [1, 2], "int64") ^ True, "int64", [0, 3]),
    "True | int16": (lambda m: True | T(m, [1, 2], "int16"), "int16", [1, 3]),
    "uint8 & 0-d int64": (lambda m: T(m, [3, 5, 250], "uint8") & m.tensor(2), "uint8", [2, 0, 2]),
    "int8 | 0-d int32": (lambda m: T(m, [-3, 5], "int8") | T(m, 2, "int32"), "int8", [-1, 7]),
}

ERRORS = {
    "int8 + 2 ** 64": (lambda m: T(m, [1], "int8") + 2 ** 64, OverflowError, "int too big to convert"),
    "int8 ** 200": (lambda m: T(m, [2], "int8") ** 200, RuntimeError,
                    "value cannot be converted to type int8_t without overflow"),
    "int16 ** 2 ** 63": (lambda m: T(m, [1], "int16") ** 2 ** 63, RuntimeError,
                         "value cannot be converted to type int64_t without overflow"),
    "uint8 ** -2": (lambda m: T(m, [3], "uint8") ** -2, RuntimeError,
                    "Integers to negative integer powers are not allowed."),
    "float32 & 1": (lambda m: T(m, [1.0], "float32") & 1, NotImplementedError,
                    "\"bitwise_and_cpu\" not implemented for 'Float'"),
    "int64 ^ 1.5": (lambda m: T(m, [1], "int64") ^ 1.5, NotImplementedError,
                    "\"bitwise_xor_cpu\" not implemented for 'Float'"),
    "1 | complex64": (lambda m: 1 | T(m, [1j], "complex64"), NotImplementedError,
                      "\"bitwise_or_cpu\" not implemented for 'ComplexFloat'"),
}

IN_PLACE = {
    "float32 /= 1e39": ("float32", F, lambda t: t.__itruediv__(1e39), [-0.0, 0.0, 0.0]),
    "float16 *= 70000.0": ("float16", [1.0, -2.0], lambda t: t.__imul__(70000.0), [INF, -INF]),
    "0-d float32 += 0.1": ("float32", 2.5, lambda t: t.__iadd__(0.1), 2.5999999046325684),
    "complex64 *= 1e39": ("complex64", C, lambda t: t.__imul__(1e39),
                          [complex(INF, INF), complex(-INF, NAN), complex(NAN, INF)]),
    "complex64.div_(1e39)": ("complex64", C, lambda t: t.div_(1e39), [0j, complex(-0.0, 0.0), 0j]),
    "float32.mul_(1e39)": ("float32", F, lambda t: t.mul_(1e39), [-INF, INF, INF]),
    "uint8 += 300": ("uint8", [3, 5, 250], lambda t: t.__iadd__(300), [47, 49, 38]),
}


def _same(got, dtype, want):
    assert got.dtype is getattr(torch, dtype)
    want = np.array(want, dtype=got.numpy().dtype)
    assert got.shape == want.shape
    # inf against a finite number, the sign of each zero and inf, nan where PyTorch has it
    for part in (np.real, np.imag) if want.dtype.kind == "c" else (np.asarray,):
        a, b = part(got.numpy()), part(want)
        assert np.array_equal(np.isnan(a), np.isnan(b))
        assert np.array_equal(np.where(np.isnan(a), 0, a), np.where(np.isnan(b), 0, b))
        assert np.array_equal(np.signbit(a) & ~np.isnan(a), np.signbit(b) & ~np.isnan(b))


@pytest.mark.parametrize("case", list(CASES))
def test_a_number_keeps_the_tensor_dtype_as_pytorch(case):
    compute, dtype, want = CASES[case]
    _same(compute(torch), dtype, want)


@pytest.mark.parametrize("case", list(ERRORS))
def test_an_operand_pytorch_cannot_take_raises_its_error(case):
    compute, error, message = ERRORS[case]
    with pytest.raises(error) as raised:
        compute(torch)
    assert str(raised.value) == message


@pytest.mark.parametrize("case", list(IN_PLACE))
def test_a_number_in_place_computes_in_the_tensor_dtype(case):
    dtype, values, write, want = IN_PLACE[case]
    t = T(torch, values, dtype)
    assert write(t) is t
    _same(t, dtype, want)


@pytest.mark.parametrize("op", [operator.add, operator.mul, operator.truediv])
def test_a_tracked_op_with_an_out_of_range_number_keeps_its_dtype_and_its_gradient(op):
    x = T(torch, [1.0, -2.0], "float32").requires_grad_()
    y = op(x, 1e39)
    assert y.dtype is torch.float32
    assert np.all(np.isinf(y.detach().numpy())) == (op is not operator.truediv)
    y.sum().backward()
    assert x.grad.dtype is torch.float32
    assert x.grad.tolist() == {operator.add: [1.0, 1.0], operator.mul: [INF, INF], operator.truediv: [0.0, 0.0]}[op]


def test_a_number_with_a_1_d_float_tensor_stays_a_python_number_for_saved_attributes():
    """Only a number NumPy 1 would widen with is converted: an in-range one with a tensor of
    dimensions stays a Python float, which the node answers as PyTorch's wrapped float64."""
    x = T(torch, [1.0, 2.0], "float32").requires_grad_()
    saved = (x * 2.5).grad_fn._saved_other
    assert saved.dtype is torch.float64 and saved.item() == 2.5


@pytest.mark.parametrize("dtype", [np.float16, np.float32])
@pytest.mark.parametrize("shape", [(), (3,)])
def test_compiled_gradients_keep_the_input_dtype(dtype, shape):
    def f(x):
        return np.sum(x * 2.5 + np.sin(x) / 3.0 + np.tanh(x * 3.0))

    x = np.full(shape, 0.4, dtype)
    g = torch.grad(f)(x)
    assert g.dtype == dtype and g.shape == shape
    slope = 2.5 + np.cos(0.4) / 3.0 + 3.0 / np.cosh(1.2) ** 2
    np.testing.assert_allclose(g, slope, rtol=1e-3 if dtype == np.float16 else 1e-6)


@pytest.mark.filterwarnings("ignore:Casting complex values to real")  # PyTorch's reading of np.complex64
@pytest.mark.parametrize("case", list(CASES) + list(IN_PLACE))
def test_the_expectations_are_pytorchs(case):
    real = pytest.importorskip("torch")
    if case in CASES:
        compute, dtype, want = CASES[case]
        got = compute(real)
    else:
        dtype, values, write, want = IN_PLACE[case]
        got = write(T(real, values, dtype))
    assert str(got.dtype) == f"torch.{dtype}"
    np.testing.assert_array_equal(got.numpy(), np.array(want, dtype=got.numpy().dtype))


@pytest.mark.parametrize("case", list(ERRORS))
def test_the_errors_are_pytorchs(case):
    real = pytest.importorskip("torch")
    compute, error, message = ERRORS[case]
    with pytest.raises(error) as raised:
        compute(real)
    assert str(raised.value) == message
