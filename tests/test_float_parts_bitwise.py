"""fmax, fmin, ldexp, frexp, gcd, lcm, positive, logspace, ravel and the bitwise
functions of the Tensor shim: values, dtypes and errors stored from PyTorch 2.13,
gradients against central differences; then a comparison with PyTorch itself where
it is installed."""

import math

import numpy as np
import pytest

import srcgrad as torch
from conftest import numerical_grad
from srcgrad.rules import float_parts

nan, inf = math.nan, math.inf


def central_gradient(f, x):
    """d sum(f(x)) / dx of a float64 array function, by central differences."""
    return numerical_grad(f, (x,), 0)


def grads_of(fn, *arrays):
    ts = [torch.tensor(a, dtype=torch.float64, requires_grad=True) for a in arrays]
    out = fn(*ts)
    out.sum().backward()
    return out, [t.grad.numpy() for t in ts]


# --- fmax, fmin ---------------------------------------------------------------------------


def test_fmax_fmin_values_nodes_and_pytorch_tie_gradients():
    a = [1.0, nan, nan, -2.0, inf]
    b = [1.0, 1.0, nan, 5.0, 2.0]
    out, (ga, gb) = grads_of(torch.fmax, a, b)
    np.testing.assert_array_equal(out.detach().numpy(), [1.0, 1.0, nan, 5.0, inf])
    assert out.grad_fn.name() == "FmaxBackward0"
    np.testing.assert_array_equal(ga, [1.0, 0.0, 1.0, 0.0, 1.0])  # the tie goes to input
    np.testing.assert_array_equal(gb, [0.0, 1.0, 0.0, 1.0, 0.0])
    out, (ga, gb) = grads_of(torch.fmin, a, b)
    np.testing.assert_array_equal(out.detach().numpy(), [1.0, 1.0, nan, -2.0, 2.0])
    assert out.grad_fn.name() == "FminBackward0"
    np.testing.assert_array_equal(ga, [1.0, 0.0, 1.0, 1.0, 0.0])
    np.testing.assert_array_equal(gb, [0.0, 1.0, 0.0, 0.0, 1.0])


def test_fmax_away_from_ties_matches_central_differences_and_broadcasts():
    x = np.array([[0.3], [-1.2], [2.0]])
    y = np.array([0.1, 1.5])
    out, (gx, gy) = grads_of(torch.fmax, x, y)
    assert out.shape == (3, 2)
    np.testing.assert_allclose(gx, central_gradient(lambda v: np.fmax(v, y), x), atol=1e-8)
    np.testing.assert_allclose(gy, central_gradient(lambda v: np.fmax(x, v), y), atol=1e-8)


def test_fmax_dtypes_and_errors():
    assert torch.fmax(torch.tensor([1, 2]), torch.tensor([1.5, 0.0])).dtype == torch.float32
    assert torch.fmax(torch.tensor([True]), torch.tensor([False])).dtype == torch.bool
    assert torch.fmin(torch.tensor([1], dtype=torch.int8), torch.tensor([3])).dtype == torch.int64
    with pytest.raises(TypeError, match=r"^fmax\(\): argument 'other' \(position 2\) must be Tensor, not float$"):
        torch.fmax(torch.tensor([1.0]), 2.0)
    with pytest.raises(TypeError, match=r"^fmin\(\): argument 'other' \(position 1\) must be Tensor, not int$"):
        torch.tensor([1.0]).fmin(2)
    with pytest.raises(RuntimeError, match="The size of tensor a \\(2\\) must match the size of tensor b \\(3\\)"):
        torch.fmax(torch.ones(2), torch.ones(3))


def test_fmax_rules_in_compiled_gradients():
    g = torch.grad(lambda x, y: np.sum(float_parts.fmax(x, y) * np.arange(3.0)))
    np.testing.assert_array_equal(g(np.array([1.0, 5.0, 2.0]), np.array([1.0, 0.0, 3.0])), [0.0, 1.0, 0.0])


# --- ldexp, frexp -------------------------------------------------------------------------


def test_ldexp_values_dtypes_and_gradients():
    out = torch.ldexp(torch.tensor([1.0, 2.5, -3.0]), torch.tensor([1, 2, 3]))
    assert out.dtype == torch.float32 and out.tolist() == [2.0, 10.0, -24.0]
    assert torch.ldexp(torch.tensor([1, 2]), torch.tensor([1, 2])).dtype == torch.float32
    assert torch.ldexp(torch.tensor([1.0], dtype=torch.float64), torch.tensor([3])).dtype == torch.float64
    x, e = np.array([1.0, 2.5, -3.0]), np.array([1.5, -2.0, 0.25])
    out, (gx, ge) = grads_of(torch.ldexp, x, e)
    assert out.grad_fn.name() == "LdexpBackward0"
    np.testing.assert_allclose(out.detach().numpy(), [2.8284271247461903, 0.625, -3.5676213450081633])
    np.testing.assert_allclose(gx, central_gradient(lambda v: v * 2.0 ** e, x), rtol=1e-7)
    np.testing.assert_allclose(ge, central_gradient(lambda v: x * 2.0 ** v, e), rtol=1e-7)
    with pytest.raises(TypeError, match=r"^ldexp\(\): argument 'other' \(position 2\) must be Tensor, not int$"):
        torch.ldexp(torch.tensor([1.0]), 2)
    t = torch.tensor([1.0, 2.0])
    assert t.ldexp_(torch.tensor([1, 2])) is t and t.tolist() == [2.0, 8.0]
    with pytest.raises(RuntimeError, match="^ldexp can't be cast to the desired output type Long$"):
        torch.tensor([1, 2]).ldexp_(torch.tensor([1, 2]))


def test_frexp_named_pair_values_and_mantissa_gradient():
    pair = torch.frexp(torch.tensor([0.0, -3.5, 6.0, inf, nan]))
    assert type(pair).__name__ == "frexp" and pair._fields == ("mantissa", "exponent")
    np.testing.assert_array_equal(pair.mantissa.numpy(), np.array([0.0, -0.875, 0.75, inf, nan], dtype=np.float32))
    assert pair.exponent.dtype == torch.int32 and pair.exponent.tolist() == [0, 2, 3, 0, 0]
    x = np.array([3.0, -5.0, 0.1, 0.0])
    mantissa, (g,) = grads_of(lambda t: torch.frexp(t)[0], x)
    assert mantissa.grad_fn.name() == "FrexpBackward0"
    np.testing.assert_array_equal(g, [0.25, 0.125, 8.0, 1.0])
    np.testing.assert_allclose(g[:3], central_gradient(lambda v: np.frexp(v)[0], x[:3]), rtol=1e-7)
    with pytest.raises(RuntimeError, match=r"^torch.frexp\(\) only supports floating-point dtypes$"):
        torch.frexp(torch.tensor([1, 2]))


# --- gcd, lcm, positive -------------------------------------------------------------------


def test_gcd_lcm_values_dtypes_and_errors():
    assert torch.gcd(torch.tensor([12, -18, 0, 0]), torch.tensor([8, 4, 0, -6])).tolist() == [4, 2, 0, 6]
    assert torch.lcm(torch.tensor([4, -6, 0]), torch.tensor([6, 4, 5])).tolist() == [12, 12, 0]
    assert torch.gcd(torch.tensor([1], dtype=torch.int8), torch.tensor([2])).dtype == torch.int64
    t = torch.tensor([5])
    assert t.gcd_(torch.tensor([15])) is t and t.tolist() == [5]
    with pytest.raises(NotImplementedError, match="^\"gcd_cpu\" not implemented for 'Float'$"):
        torch.gcd(torch.tensor([1.0]), torch.tensor([2.0]))
    with pytest.raises(NotImplementedError, match="^\"lcm_cpu\" not implemented for 'Bool'$"):
        torch.lcm(torch.tensor([True]), torch.tensor([True]))
    with pytest.raises(TypeError, match=r"^gcd\(\): argument 'other' \(position 1\) must be Tensor, not int$"):
        torch.tensor([3]).gcd(3)


def test_positive_is_the_input_and_refuses_bool():
    x = torch.tensor([1.0, -2.0], requires_grad=True)
    assert torch.positive(x) is x and x.positive() is x
    with pytest.raises(RuntimeError, match="^The `\\+` operator, on a bool tensor is not supported.$"):
        torch.positive(torch.tensor([True]))


# --- bitwise ------------------------------------------------------------------------------


def test_bitwise_functions_operators_and_promotion():
    a, b = torch.tensor([5, 3, 12]), torch.tensor([3, 1, 10], dtype=torch.int8)
    assert torch.bitwise_and(a, b).tolist() == [1, 1, 8] and (a & b).dtype == torch.int64
    assert torch.bitwise_or(a, b).tolist() == [7, 3, 14] == (a | b).tolist()
    assert torch.bitwise_xor(a, b).tolist() == [6, 2, 6] == (a ^ b).tolist()
    assert torch.bitwise_not(a).tolist() == [-6, -4, -13] == (~a).tolist()
    assert (~torch.tensor([True, False])).tolist() == [False, True]
    assert (2 & a).tolist() == [0, 2, 0] and (1 << a).tolist() == [32, 8, 4096]
    assert torch.bitwise_and(torch.tensor([True, False]), torch.tensor([True, True])).dtype == torch.bool
    assert (b & 2).dtype == torch.int8  # a Python int keeps the tensor's dtype
    t = torch.tensor([1, 2])
    t &= torch.tensor([3])
    assert t.tolist() == [1, 2]
    assert t.bitwise_xor_(torch.tensor([3, 3])).tolist() == [2, 1]


def test_shifts_follow_pytorch_beyond_the_width():
    x = torch.tensor([1, -8, 5, 100, -1], dtype=torch.int8)
    s = torch.tensor([0, 1, 7, 70, -1], dtype=torch.int8)
    assert torch.bitwise_left_shift(x, s).tolist() == [1, -16, -128, 0, 0]
    assert torch.bitwise_right_shift(x, s).tolist() == [1, -4, 0, 0, -1]
    assert (torch.tensor([-8, 8]) >> torch.tensor([70, 1])).tolist() == [-1, 4]
    assert torch.bitwise_left_shift(torch.tensor([1], dtype=torch.uint8), torch.tensor([9], dtype=torch.uint8)).tolist() == [0]


def test_bitwise_errors():
    with pytest.raises(NotImplementedError, match="^\"bitwise_and_cpu\" not implemented for 'Float'$"):
        torch.tensor([1.0]) & torch.tensor([1.0])
    with pytest.raises(NotImplementedError, match="^\"lshift_cpu\" not implemented for 'Float'$"):
        torch.bitwise_left_shift(torch.tensor([1]), 1.5)
    with pytest.raises(NotImplementedError, match="^\"bitwise_not_cpu\" not implemented for 'Double'$"):
        torch.bitwise_not(torch.tensor([1.0], dtype=torch.float64))
    with pytest.raises(TypeError, match=r"^~ \(operator.invert\) is only implemented on integer and Boolean-type tensors$"):
        ~torch.tensor([1.0])
    with pytest.raises(RuntimeError, match="^result type Long can't be cast to the desired output type Bool$"):
        torch.tensor([True]).bitwise_and_(torch.tensor([1]))


# --- logspace, ravel ----------------------------------------------------------------------


def test_logspace_values_and_dtypes():
    assert torch.logspace(0, 3, 4).tolist() == [1.0, 10.0, 100.0, 1000.0]
    assert torch.logspace(0, 1, 5, base=2.0, dtype=torch.float64).tolist() == [
        1.0, 1.189207115002721, 1.4142135623730951, 1.681792830507429, 2.0]
    assert torch.logspace(-2, 2, 5, dtype=torch.int64).tolist() == [0, 0, 1, 10, 100]
    assert torch.logspace(0, 2, 0).shape == (0,)
    assert torch.logspace(0, 1, 3, requires_grad=True).requires_grad
    with pytest.raises(RuntimeError, match="^number of steps must be non-negative$"):
        torch.logspace(0, 1, -1)


def test_ravel_views_a_contiguous_tensor_and_copies_another():
    x = torch.tensor([[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]], requires_grad=True)
    r = torch.ravel(x)
    assert r.grad_fn.name() == "ViewBackward0" and r._base is x
    c = x.t().ravel()
    assert c.tolist() == [0.0, 3.0, 1.0, 4.0, 2.0, 5.0]
    assert c.grad_fn.name() == "ViewBackward0" and c.grad_fn.next_functions[0][0].name() == "CloneBackward0"
    (c * torch.arange(6.0)).sum().backward()
    assert x.grad.tolist() == [[0.0, 2.0, 4.0], [1.0, 3.0, 5.0]]


# --- against PyTorch ----------------------------------------------------------------------


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_against_torch_floating(dtype):
    real = pytest.importorskip("torch")
    rng = np.random.default_rng(3)
    a, b = rng.normal(size=(4, 5)), rng.normal(size=(5,))
    a[0, 0], b[1] = nan, nan
    b[2] = a[1, 2] = a[2, 2] = 0.5
    for name in ("fmax", "fmin"):
        results = []
        for module in (real, torch):
            x = module.tensor(a, dtype=getattr(module, dtype), requires_grad=True)
            y = module.tensor(b, dtype=getattr(module, dtype), requires_grad=True)
            out = getattr(module, name)(x, y)
            out.sum().backward()
            results.append((out.detach().numpy(), x.grad.numpy(), y.grad.numpy(), out.grad_fn.name()))
        for mine, theirs in zip(results[1], results[0]):
            np.testing.assert_array_equal(mine, theirs)
    for base, (s, e, n) in [(10.0, (-2, 2, 7)), (2.0, (-10, 10, 50)), (10.0, (0.1, 0.9, 33))]:
        expected = real.logspace(s, e, n, base=base, dtype=getattr(real, dtype)).numpy()
        np.testing.assert_array_equal(torch.logspace(s, e, n, base=base, dtype=getattr(torch, dtype)).numpy(), expected)


def test_against_torch_integer_bitwise():
    real = pytest.importorskip("torch")
    values = np.array([5, 3, 0, 127, 1, 64, -7])
    shifts = np.array([3, 1, 7, 1, 9, 2, 63])
    for dt in ("int8", "int16", "int32", "int64", "uint8"):
        x = values.astype(dt)
        for name in ("bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_left_shift", "bitwise_right_shift", "gcd", "lcm"):
            expected = getattr(real, name)(real.tensor(x), real.tensor(shifts))
            mine = getattr(torch, name)(torch.tensor(x), torch.tensor(shifts))
            assert str(mine.dtype) == str(expected.dtype).replace("torch", "srcgrad")
            np.testing.assert_array_equal(mine.numpy(), expected.numpy())


def test_forward_tangents_follow_pytorch_ties():
    fw = torch.autograd.forward_ad
    with fw.dual_level():
        x = fw.make_dual(torch.tensor([1.0, nan, 2.0]), torch.tensor([1.0, 1.0, 1.0]))
        y = fw.make_dual(torch.tensor([1.0, nan, 3.0]), torch.tensor([5.0, 5.0, 5.0]))
        assert fw.unpack_dual(torch.fmin(x, y)).tangent.tolist() == [1.0, 1.0, 1.0]
        assert fw.unpack_dual(torch.fmax(x, y)).tangent.tolist() == [5.0, 1.0, 5.0]  # PyTorch's: a tie to y
        e = fw.make_dual(torch.tensor([1.0, -2.0, 0.5]), torch.tensor([1.0, 1.0, 1.0]))
        tangent = fw.unpack_dual(torch.ldexp(torch.tensor([3.0, 3.0, 3.0]), e)).tangent
        np.testing.assert_allclose(tangent.numpy(), 3.0 * 2.0 ** np.array([1.0, -2.0, 0.5]) * math.log(2.0), rtol=1e-6)
