"""Logical functions, comparisons and predicates (logical.py), the complex-number
functions of real tensors (complex_parts.py), and sgn, fix, nextafter, i0, deg2rad and
rad2deg (pointwise_more.py): values against NumPy and closed forms, dtypes, PyTorch
2.13's node names (written in), gradients against central differences (i0 to third
order), and PyTorch's errors."""

import math
import re

import numpy as np
import pytest

import srcgrad as torch
from tensor_checks import check_against_differences, check_second_against_differences

X = [-1.5, 0.0, -0.0, 2.0, math.inf, -math.inf, math.nan]


def _x(dtype=torch.float32):
    return torch.tensor(X, dtype=dtype)


# --- bool results, never tracked ---------------------------------------------------------------

BOOLS = [
    ("logical_and", lambda T: T.logical_and(T.tensor([1, 0, 2]), T.tensor([1.0, 1, 0])), [True, False, False]),
    ("logical_or method", lambda T: T.tensor([0.0, 1, 0]).logical_or(T.tensor([True, False, False])), [True, True, False]),
    ("logical_xor", lambda T: T.logical_xor(T.tensor([True, False]), T.tensor([True, True])), [False, True]),
    ("logical_not nan", lambda T: T.logical_not(T.tensor([1.0, 0, math.nan])), [False, True, False]),
    ("eq", lambda T: T.eq(T.tensor([1, 2]), 2), [False, True]),
    ("ne", lambda T: T.ne(T.tensor([1, 2]), T.tensor([1.0, 3])), [False, True]),
    ("gt", lambda T: T.gt(T.tensor([1, 2]), 1.5), [False, True]),
    ("greater_equal", lambda T: T.greater_equal(T.tensor([1, 2]), 2), [False, True]),
    ("less method", lambda T: T.tensor([1.0, 3]).less(T.tensor([2.0, 2])), [True, False]),
    ("not_equal method", lambda T: T.tensor([1, 2]).not_equal(1), [False, True]),
    ("signbit", lambda T: T.signbit(T.tensor(X)), [True, False, True, False, False, True, False]),
    ("signbit int", lambda T: T.signbit(T.tensor([1, -2, 0])), [False, True, False]),
    ("isposinf", lambda T: T.isposinf(T.tensor(X)), [False, False, False, False, True, False, False]),
    ("isneginf", lambda T: T.tensor(X).isneginf(), [False, False, False, False, False, True, False]),
    ("isneginf int", lambda T: T.isneginf(T.tensor([1, 2])), [False, False]),
    ("isreal", lambda T: T.isreal(T.tensor(X)), [True] * 7),
]


@pytest.mark.parametrize("label, fn, want", BOOLS, ids=[b[0] for b in BOOLS])
def test_bool_results(label, fn, want):
    out = fn(torch)
    assert out.dtype == torch.bool and out.tolist() == want and not out.requires_grad


@pytest.mark.parametrize("label, fn, want", BOOLS, ids=[b[0] for b in BOOLS])
def test_bool_results_against_pytorch(label, fn, want):
    real_torch = pytest.importorskip("torch")
    assert fn(real_torch).tolist() == want


def test_logical_results_of_tensors_that_require_grad_are_untracked():
    x = torch.tensor([1.0, 0.0], requires_grad=True)
    for out in (torch.logical_not(x), torch.logical_and(x, x), torch.signbit(x), torch.isposinf(x), torch.greater(x, 0)):
        assert not out.requires_grad and out.grad_fn is None


def test_python_bool_predicates():
    assert torch.equal(torch.tensor([1, 2]), torch.tensor([1.0, 2])) is True
    assert torch.equal(torch.tensor([1, 2]), torch.tensor([1, 2, 3])) is False
    assert torch.equal(torch.tensor([1.0, math.nan]), torch.tensor([1.0, math.nan])) is False
    assert torch.is_nonzero(torch.tensor([0.0])) is False and torch.is_nonzero(torch.tensor(math.nan)) is True
    assert torch.is_complex(torch.ones(2)) is False and torch.ones(2).is_complex() is False
    assert torch.is_conj(torch.ones(2)) is False and torch.ones(2).is_neg() is False


def test_real_conj_of_a_real_tensor_are_itself_and_imag_raises():
    x = torch.tensor([1.0, -2.0], requires_grad=True)
    for out in (torch.real(x), x.real, torch.conj(x), x.conj(), torch.conj_physical(x), torch.resolve_conj(x),
                x.resolve_neg()):
        assert out is x
    for call in (lambda: torch.imag(x), lambda: x.imag):
        with pytest.raises(RuntimeError, match="imag is not implemented for tensors with non-complex dtypes."):
            call()


# --- values with zero or simple gradients ---------------------------------------------------------


def test_sgn_fix_and_angle_values_dtypes_and_nodes():
    x = _x()
    assert torch.sgn(x).tolist()[:6] == [-1.0, 0.0, 0.0, 1.0, 1.0, -1.0] and torch.sgn(x)[6].item() == 0.0
    assert torch.sgn(torch.tensor([1, -2, 0])).tolist() == [1, -1, 0]
    fixed = torch.fix(x).tolist()
    assert fixed[:6] == [-1.0, 0.0, -0.0, 2.0, math.inf, -math.inf] and math.copysign(1, fixed[2]) == -1
    assert torch.fix(torch.tensor([1, 2])).dtype == torch.int64
    angles = torch.angle(x).tolist()
    assert angles[:6] == [np.float32(math.pi)] + [0.0] * 4 + [np.float32(math.pi)] and math.isnan(angles[6])
    assert torch.angle(torch.tensor([1, -2, 0])).dtype == torch.float32
    v = torch.tensor([1.5, -2.5, 0.5], dtype=torch.float64, requires_grad=True)
    for fn, node in ((torch.sgn, "SgnBackward0"), (torch.fix, "TruncBackward0"), (torch.angle, "AngleBackward0")):
        out = fn(v)
        assert type(out.grad_fn).__name__ == node
        (g,) = torch.autograd.grad(out.sum(), v)
        assert g.tolist() == [0.0, 0.0, 0.0] and g.dtype == torch.float64
    y = torch.tensor([1.5, -2.5])
    assert y.fix_() is y and y.tolist() == [1.0, -2.0]


def test_nextafter_steps_one_float_and_passes_the_gradient_to_input():
    a = torch.tensor([1.0, 2.0, 0.0], dtype=torch.float64, requires_grad=True)
    b = torch.tensor([math.inf, -math.inf, -1.0], dtype=torch.float64, requires_grad=True)
    out = torch.nextafter(a, b)
    assert out.tolist() == [np.nextafter(1.0, 2.0), np.nextafter(2.0, 0.0), -5e-324]
    assert type(out.grad_fn).__name__ == "NextafterBackward0"
    ga, gb = torch.autograd.grad((out * torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64)).sum(), [a, b],
                                 allow_unused=True)
    assert ga.tolist() == [1.0, 2.0, 3.0] and (gb is None or gb.tolist() == [0.0] * 3)
    f32 = torch.nextafter(torch.tensor([1.0]), torch.tensor([2.0]))
    assert f32.dtype == torch.float32 and f32.item() == float(np.nextafter(np.float32(1), np.float32(2)))
    assert torch.nextafter(torch.tensor([1.0]), torch.tensor([2.0], dtype=torch.float64)).dtype == torch.float64


def test_angle_units_round_as_pytorch():
    x = torch.tensor([3.14159, 1.0, -2.5])
    want = np.array([3.14159, 1.0, -2.5], np.float32) * np.float32(180 / math.pi)
    assert torch.rad2deg(x).numpy().tolist() == want.tolist() and torch.rad2deg(x).dtype == torch.float32
    np.testing.assert_allclose(torch.deg2rad(torch.tensor([180, 90])).numpy(), [math.pi, math.pi / 2], rtol=1e-7)
    v = torch.tensor([30.0, -45.0], dtype=torch.float64, requires_grad=True)
    out = torch.deg2rad(v)
    assert type(out.grad_fn).__name__ == "Deg2RadBackward0"
    out.sum().backward()
    np.testing.assert_allclose(v.grad.numpy(), [math.pi / 180] * 2, rtol=1e-15)
    assert type(v.rad2deg().grad_fn).__name__ == "Rad2DegBackward0"


# --- i0 ------------------------------------------------------------------------------------------

# I0 at 0, 1, -2, 10 and 100, to 16 digits
_I0 = [(0.0, 1.0), (1.0, 1.2660658777520082), (-2.0, 2.2795853023360673), (10.0, 2815.716628466254),
       (100.0, 1.0737517071310738e42)]


def test_i0_at_known_points_and_its_gradient_is_i1():
    x = torch.tensor([p for p, _ in _I0], dtype=torch.float64, requires_grad=True)
    out = torch.i0(x)
    np.testing.assert_allclose(out.detach().numpy(), [v for _, v in _I0], rtol=2e-15)
    assert type(out.grad_fn).__name__ == "I0Backward0"
    np.testing.assert_allclose(torch.i0(torch.tensor(np.linspace(-30, 30, 61))).numpy(), np.i0(np.linspace(-30, 30, 61)),
                               rtol=2e-15)
    (g,) = torch.autograd.grad(out.sum(), x)
    # I1 at the same points
    np.testing.assert_allclose(g.numpy(), [0.0, 0.5651591039924851, -1.5906368546373291, 2670.988303701255,
                                           1.0683693903381625e42], rtol=2e-15)
    assert torch.i0(torch.tensor([1, 2])).dtype == torch.float32 and torch.i0(torch.ones(2)).dtype == torch.float32
    big = torch.i0(torch.tensor([713.0, 714.0, math.inf, -math.inf], dtype=torch.float64)).tolist()
    assert big[:2] == [math.inf, math.inf] and all(math.isnan(v) for v in big[2:])  # PyTorch's values


def test_i0_derivatives_match_central_differences():
    for arrays in ([np.array([-3.0, -0.4, 0.0, 0.7, 2.5])], [np.array([16.5, -17.0])]):  # the series, the integral
        check_against_differences(torch.i0, arrays)
        check_second_against_differences(torch.i0, arrays)

    def second(values, create_graph=False):
        x = torch.tensor(values, requires_grad=True)
        (g,) = torch.autograd.grad(torch.i0(x).sum(), x, create_graph=True)
        (h,) = torch.autograd.grad(g.sum(), x, create_graph=create_graph)
        return x, h

    values = np.array([-3.0, -0.4, 0.0, 0.7, 2.5])
    x, h = second(values, create_graph=True)
    (third,) = torch.autograd.grad(h.sum(), x)
    eps = 1e-5
    numeric = (second(values + eps)[1].numpy() - second(values - eps)[1].numpy()) / (2 * eps)
    np.testing.assert_allclose(third.numpy(), numeric, rtol=1e-6, atol=1e-8)


ERRORS = [
    ("T.logical_or(T.tensor([1, 0, 2]), 0)", TypeError, "logical_or(): argument 'other' (position 2) must be Tensor, not int"),
    ("T.logical_and(T.ones(2), T.ones(3))", RuntimeError, "The size of tensor a (2) must match the size of tensor b (3)"),
    ("T.nextafter(T.tensor([1, 2]), T.tensor([2, 0]))", NotImplementedError, "\"nextafter_cpu\" not implemented for 'Long'"),
    ("T.nextafter(T.tensor([1.0, 2]), 2.0)", TypeError, "nextafter(): argument 'other' (position 2) must be Tensor, not float"),
    ("T.is_nonzero(T.tensor([]))", RuntimeError, "Boolean value of Tensor with no values is ambiguous"),
    ("T.is_nonzero(T.tensor([1, 2]))", RuntimeError, "Boolean value of Tensor with more than one value is ambiguous"),
    ("T.imag(T.ones(2))", RuntimeError, "imag is not implemented for tensors with non-complex dtypes."),
]


@pytest.mark.parametrize("expr, kind, message", ERRORS, ids=[e[0] for e in ERRORS])
def test_bad_input_raises_pytorchs_error(expr, kind, message):
    with pytest.raises(kind, match=re.escape(message)):
        eval(expr, {"T": torch})


@pytest.mark.parametrize("expr, kind, message", ERRORS, ids=[e[0] for e in ERRORS])
def test_errors_are_pytorchs(expr, kind, message):
    real_torch = pytest.importorskip("torch")
    with pytest.raises(kind, match=re.escape(message)):
        eval(expr, {"T": real_torch})


# --- in-place logical methods ------------------------------------------------------------------


@pytest.mark.parametrize("name,numpy_op", [("logical_and_", np.logical_and), ("logical_or_", np.logical_or),
                                           ("logical_xor_", np.logical_xor)])
@pytest.mark.parametrize("dtype", [torch.float32, torch.int64, torch.bool, torch.uint8])
def test_logical_in_place_writes_bools_in_self_dtype(name, numpy_op, dtype):
    a, b = np.array([1, 0, 2, 0, 3]), np.array([True, True, False, False, True])
    t = torch.tensor(a, dtype=dtype)
    out = getattr(t, name)(torch.tensor(b))
    assert out is t and t.dtype == dtype
    np.testing.assert_array_equal(t.numpy(), numpy_op(a, b).astype(t.numpy().dtype))
    s = torch.tensor([2.0, 0.0, math.nan])
    s.logical_and_(torch.tensor(1.0))  # nan is nonzero
    assert s.tolist() == [1.0, 0.0, 1.0]


def test_logical_not_in_place_keeps_grad_fn_views_and_errors():
    x = torch.tensor([1.0, 0.0], requires_grad=True)
    x.logical_not_()  # allowed on a leaf, as in PyTorch: the write has no derivative
    assert x.tolist() == [0.0, 1.0] and x.is_leaf and x.requires_grad
    z = torch.tensor([1.0, 2.0], requires_grad=True)
    y = z * z
    y.logical_not_()
    assert y.tolist() == [0.0, 0.0] and type(y.grad_fn).__name__ == "MulBackward0"
    base = torch.zeros(3)
    base[1:].logical_not_()
    assert base.tolist() == [0.0, 1.0, 1.0]
    e = torch.exp(torch.tensor([1.0], requires_grad=True))
    e.logical_not_()
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        e.sum().backward()
    with pytest.raises(TypeError, match=re.escape("logical_and_(): argument 'other' (position 1) must be Tensor, not float")):
        torch.ones(3).logical_and_(1.0)
    with pytest.raises(RuntimeError, match=re.escape("output with shape [3] doesn't match the broadcast shape [2, 3]")):
        torch.ones(3).logical_or_(torch.ones(2, 3))
