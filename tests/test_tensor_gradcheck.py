"""srcgrad.autograd.gradgradcheck (second derivatives against finite differences of the
gradient function) and srcgrad.testing.assert_close's messages, as PyTorch 2.13 gives them."""

import numpy as np
import pytest

import srcgrad as torch
from srcgrad.autograd import GradcheckError, gradcheck, gradgradcheck
from srcgrad.testing import assert_close


def _x():
    return torch.tensor([0.3, 0.7], dtype=torch.float64, requires_grad=True)


class _WrongSecondDerivative(torch.autograd.Function):
    """x**3 whose backward detaches one factor: right first derivative, half the second."""

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return a**3

    @staticmethod
    def backward(ctx, g):
        (a,) = ctx.saved_tensors
        return g * 3 * a * a.detach()


def test_gradgradcheck_passes_true_second_derivatives():
    x = _x()
    y = torch.tensor([[0.3, 0.1], [0.2, 0.5]], dtype=torch.float64, requires_grad=True)
    assert gradgradcheck(lambda a: (a**3).sum(), (x,))
    assert gradgradcheck(lambda a: a.sin() * a, (x,))
    assert gradgradcheck(lambda a: a**3, (x,), (torch.tensor([1.0, 2.0], dtype=torch.float64),))
    assert gradgradcheck(lambda a, b: (a @ b).tanh(), (y, y.detach().clone().requires_grad_()))
    assert gradcheck(lambda a: (a * 2, a * 3), (x,))
    assert x.grad is None and y.grad is None


def test_gradgradcheck_finds_a_wrong_second_derivative():
    x = _x()
    assert gradcheck(lambda a: _WrongSecondDerivative.apply(a).sum(), (x,))  # first derivatives are right
    assert gradgradcheck(lambda a: _WrongSecondDerivative.apply(a).sum(), (x,), raise_exception=False) is False
    with pytest.raises(GradcheckError, match="^Jacobian mismatch for output 0 with respect to input 0") as info:
        gradgradcheck(lambda a: _WrongSecondDerivative.apply(a).sum(), (x,))
    numbers = [float(v) for v in __import__("re").findall(r"-?\d+\.\d+", str(info.value))]
    numerical, analytical = numbers[:4], numbers[4:]
    assert np.allclose(analytical, np.array(numerical) / 2, atol=1e-4)  # half the true 6 x g


T = torch.tensor


@pytest.mark.parametrize("call,kind,message", [
    (lambda: assert_close(T([1.0, 2.0, 3.0]), T([1.0, 2.5, 3.0])), AssertionError,
     "Tensor-likes are not close!\n\nMismatched elements: 1 / 3 (33.3%)\nGreatest absolute difference: 0.5 at index (1,) "
     "(up to 1e-05 allowed)\nGreatest relative difference: 0.20000000298023224 at index (1,) (up to 1.3e-06 allowed)"),
    (lambda: assert_close(T([1.0, 2.0]), T([1.0, 2.0, 3.0])), AssertionError,
     "The values for attribute 'shape' do not match: srcgrad.Size([2]) != srcgrad.Size([3])."),
    (lambda: assert_close(T([1.0, 2.0]), T([1.0, 2.0], dtype=torch.float64)), AssertionError,
     "The values for attribute 'dtype' do not match: srcgrad.float32 != srcgrad.float64."),
    (lambda: assert_close(1.0, 1.5), AssertionError,
     "Scalars are not close!\n\nExpected 1.5 but got 1.0.\nAbsolute difference: 0.5 (up to 1e-07 allowed)\n"
     "Relative difference: 0.3333333333333333 (up to 1e-07 allowed)"),
    (lambda: assert_close(1, 2), AssertionError,
     "Scalars are not equal!\n\nExpected 2 but got 1.\nAbsolute difference: 1\nRelative difference: 0.5"),
    (lambda: assert_close(T([[1.0, 2.0], [3.0, 4.0]], dtype=torch.float64), T([[1.0, 2.0], [3.0, 4.1]], dtype=torch.float64)),
     AssertionError, "Tensor-likes are not close!\n\nMismatched elements: 1 / 4 (25.0%)\nGreatest absolute difference: "
     "0.09999999999999964 at index (1, 1) (up to 1e-07 allowed)\nGreatest relative difference: 0.02439024390243894 at "
     "index (1, 1) (up to 1e-07 allowed)"),
    (lambda: assert_close(T([1, 2]), T([1, 3])), AssertionError,
     "Tensor-likes are not equal!\n\nMismatched elements: 1 / 2 (50.0%)\nGreatest absolute difference: 1 at index (1,)\n"
     "Greatest relative difference: 0.3333333432674408 at index (1,)"),
    (lambda: assert_close(T([float("nan")]), T([float("nan")])), AssertionError,
     "Tensor-likes are not close!\n\nMismatched elements: 1 / 1 (100.0%)\nGreatest absolute difference: nan at index (0,) "
     "(up to 1e-05 allowed)\nGreatest relative difference: nan at index (0,) (up to 1.3e-06 allowed)"),
    (lambda: assert_close({"a": [T(1.0), T(2.0)]}, {"a": [T(1.0), T(2.5)]}), AssertionError,
     "Scalars are not close!\n\nExpected 2.5 but got 2.0.\nAbsolute difference: 0.5 (up to 1e-05 allowed)\nRelative "
     "difference: 0.2 (up to 1.3e-06 allowed)\n\nThe failure occurred for item ['a'][1]"),
    (lambda: assert_close(T([1.0, 2.0]), T([1.0, 2.1]), rtol=0.1), ValueError,
     "Both 'rtol' and 'atol' must be either specified or omitted, but got no atol."),
    (lambda: assert_close(T([1.0, 2.0]), T([1.0, 2.1]), msg=lambda m: m.splitlines()[0] + "!!"), AssertionError,
     "Tensor-likes are not close!!!"),
    (lambda: assert_close(T([1.0, 2.0]), [1.0, 2.0]), TypeError,
     "No comparison pair was able to handle inputs of type <class 'srcgrad.Tensor'> and <class 'list'>."),
    (lambda: assert_close([1.0, 2.0], [1.0, 2.0, 3.0]), AssertionError, "The length of the sequences mismatch: 2 != 3"),
    (lambda: assert_close({"a": 1.0}, {"b": 1.0}), AssertionError,
     "The keys of the mappings do not match:\nMissing keys in the actual mapping: ['b']\nAdditional keys in the actual "
     "mapping: ['a']"),
    (lambda: assert_close(1, 1.0), AssertionError, "The (d)types do not match: <class 'int'> != <class 'float'>."),
    (lambda: assert_close(True, False), AssertionError, "Booleans mismatch: True is not False"),
    (lambda: assert_close(T([1.0, float("inf")]), T([1.0, float("-inf")])), AssertionError,
     "Tensor-likes are not close!\n\nMismatched elements: 1 / 2 (50.0%)\nGreatest absolute difference: inf at index (1,) "
     "(up to 1e-05 allowed)\nGreatest relative difference: nan at index (1,) (up to 1.3e-06 allowed)"),
    (lambda: assert_close(T([1, 2]), T([1.0, 2.6]), check_dtype=False), AssertionError,
     "Tensor-likes are not close!\n\nMismatched elements: 1 / 2 (50.0%)\nGreatest absolute difference: 0.5999999046325684 "
     "at index (1,) (up to 1e-05 allowed)\nGreatest relative difference: 0.23076920211315155 at index (1,) (up to "
     "1.3e-06 allowed)"),
])
def test_assert_close_messages(call, kind, message):
    with pytest.raises(kind) as info:
        call()
    assert str(info.value) == message


def test_assert_close_passes():
    assert_close(T([float("nan")]), T([float("nan")]), equal_nan=True)
    assert_close(T([1.0, 2.0]), T([1.0, 2.1]), rtol=0.1, atol=0)
    assert_close(T([1.0, 2.0], dtype=torch.float64), T([1.0, 2.00001]), check_dtype=False)
    assert_close((T(1.0),), [T(1.0)])
    assert_close(T([1.0, 2.0], requires_grad=True), T([1.0, 2.0]))
    assert_close(T([0.0]), T([1e-6]))
    assert_close(None, None)
