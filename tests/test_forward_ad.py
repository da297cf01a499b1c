"""srcgrad.autograd.forward_ad (torch.autograd.forward_ad): tangents pushed through the
registry's forward rules, checked against central differences and the reverse-mode
Jacobian in float64; dtypes; PyTorch's errors; the refusals."""

import re
import types

import numpy as np
import pytest

import srcgrad as torch
import srcgrad.autograd.forward_ad as fwAD
import srcgrad.nn.functional as F

RNG = np.random.default_rng(0)
A = RNG.uniform(0.5, 2.0, (3, 4))
B = RNG.uniform(0.5, 2.0, (3, 4))
TA = RNG.standard_normal((3, 4))
TB = RNG.standard_normal((3, 4))
M = RNG.standard_normal((4, 5))
IDX = np.array([2, 0, 1])

# functions of two (3, 4) float64 tensors, smooth near A, B
CASES = {
    "add_broadcast": lambda a, b: a + b[0],
    "sub_number": lambda a, b: 2 - a,
    "mul": lambda a, b: a * b,
    "div": lambda a, b: a / b,
    "pow_tensor": lambda a, b: a ** b,
    "pow_number": lambda a, b: a ** 3,
    "rpow": lambda a, b: 2 ** a,
    "matmul": lambda a, b: a @ torch.tensor(M),
    "matmul_pair": lambda a, b: a @ b.T,
    "sum": lambda a, b: (a * b).sum(),
    "sum_dim": lambda a, b: a.sum(1, keepdim=True),
    "mean": lambda a, b: a.mean(0),
    "exp_log": lambda a, b: a.exp() + b.log(),
    "trig": lambda a, b: a.sin() * b.cos(),
    "tanh_sigmoid": lambda a, b: a.tanh() + b.sigmoid(),
    "relu": lambda a, b: torch.relu(a - 1.01),
    "sqrt": lambda a, b: a.sqrt(),
    "reshape_transpose": lambda a, b: a.reshape(2, 6).T * 3,
    "index": lambda a, b: a[1] + b[:, 2].sum(),
    "fancy_index": lambda a, b: a[torch.tensor(IDX)],
    "view_permute": lambda a, b: a.view(12).unsqueeze(0) + b.permute(1, 0).reshape(1, 12),
    "cat_stack": lambda a, b: torch.cat([a, torch.stack([b, a]).sum(0)], 1),
    "softmax": lambda a, b: torch.softmax(a * b, 1),
    "log_softmax": lambda a, b: torch.log_softmax(a, 0),
    "linear": lambda a, b: F.linear(a, b, b[:, 0]),
    "mse_loss": lambda a, b: F.mse_loss(a, b),
    "cross_entropy": lambda a, b: F.cross_entropy(a * b, torch.tensor(IDX)),
    "clone_contiguous": lambda a, b: a.T.contiguous().clone() * b.T,
    "masked_fill_tensor_value": lambda a, b: a.masked_fill(a > 1.2, b[0, 0]),
}


def _dual_value(f, a, b, ta, tb):
    with fwAD.dual_level():
        out = f(fwAD.make_dual(torch.tensor(a), torch.tensor(ta)), fwAD.make_dual(torch.tensor(b), torch.tensor(tb)))
        primal, tangent = fwAD.unpack_dual(out)
        return primal.numpy().copy(), tangent.numpy().copy(), tangent.dtype


@pytest.mark.parametrize("name", sorted(CASES))
def test_tangent_matches_central_differences(name):
    f = CASES[name]
    primal, tangent, dtype = _dual_value(f, A, B, TA, TB)
    eps = 1e-6
    plus = f(torch.tensor(A + eps * TA), torch.tensor(B + eps * TB)).numpy()
    minus = f(torch.tensor(A - eps * TA), torch.tensor(B - eps * TB)).numpy()
    np.testing.assert_allclose(tangent, (plus - minus) / (2 * eps), rtol=1e-6, atol=1e-7)
    np.testing.assert_array_equal(primal, f(torch.tensor(A), torch.tensor(B)).numpy())
    assert dtype == torch.float64 and tangent.shape == primal.shape


@pytest.mark.parametrize("name", sorted(CASES))
def test_tangent_matches_reverse_mode_jacobian(name):
    f = CASES[name]
    _, tangent, _ = _dual_value(f, A, B, TA, TB)
    ja, jb = torch.func.jacrev(f, argnums=(0, 1))(torch.tensor(A), torch.tensor(B))
    axes = ([-2, -1], [0, 1])
    expected = np.tensordot(ja.numpy(), TA, axes) + np.tensordot(jb.numpy(), TB, axes)
    np.testing.assert_allclose(tangent, expected, rtol=1e-10, atol=1e-12)


def test_inputs_are_not_mutated():
    a, ta = torch.tensor(A), torch.tensor(TA)
    with fwAD.dual_level():
        d = fwAD.make_dual(a, ta)
        (d.exp() * d).sum()
    np.testing.assert_array_equal(a.numpy(), A)
    np.testing.assert_array_equal(ta.numpy(), TA)


def test_dtypes_as_pytorch():
    x = torch.tensor([0.5, 1.0, 2.0], dtype=torch.float64)
    with fwAD.dual_level():
        d = fwAD.make_dual(x, torch.ones(3))  # a float32 tangent is kept as given (PyTorch)
        assert fwAD.unpack_dual(d).tangent.dtype == torch.float32
        assert fwAD.unpack_dual(d.sin()).tangent.dtype == torch.float64  # an op's: its result's dtype
        assert fwAD.unpack_dual(d * torch.arange(3)).tangent.dtype == torch.float64
        f32 = fwAD.make_dual(torch.ones(2), torch.ones(2))
        half = fwAD.unpack_dual((f32 * 0.5).double()).tangent
        assert half.dtype == torch.float64 and half.tolist() == [0.5, 0.5]
        assert fwAD.unpack_dual(d.long()).tangent is None
        assert fwAD.unpack_dual(d > 1).tangent is None
        assert fwAD.unpack_dual(d.argmax()).tangent is None
        assert fwAD.unpack_dual(d.detach()).tangent is None


def test_zero_tangents_of_piecewise_constant_ops():
    with fwAD.dual_level():
        d = fwAD.make_dual(torch.tensor([0.5, 1.5]), torch.tensor([1.0, 2.0]))
        for out in (d.floor(), d.sign(), d.round()):
            assert fwAD.unpack_dual(out).tangent.tolist() == [0.0, 0.0]


def test_levels_and_unpack():
    x = torch.tensor([1.0, 2.0], dtype=torch.float64)
    t = torch.tensor([3.0, 4.0], dtype=torch.float64)
    assert fwAD.unpack_dual(x) == (x, None)
    with fwAD.dual_level() as level:
        assert level == 0
        d = fwAD.make_dual(x, t)
        assert not d.requires_grad and d.grad_fn is None
        unpacked = fwAD.unpack_dual(d)
        assert type(unpacked).__name__ == "UnpackedDualTensor" and unpacked._fields == ("primal", "tangent")
        assert unpacked.tangent.tolist() == [3.0, 4.0]
        assert fwAD.unpack_dual(unpacked.primal).tangent is None
        assert fwAD.unpack_dual(d, level=0).tangent.tolist() == [3.0, 4.0]
        assert fwAD.unpack_dual(x).tangent is None
    assert fwAD.unpack_dual(d).tangent is None  # leaving the level drops every tangent
    assert fwAD.enter_dual_level() == 0
    fwAD.exit_dual_level(level=0)


@pytest.mark.parametrize("call, error, message", [
    (lambda x, t: fwAD.make_dual(x, t), RuntimeError,
     "Trying to create a dual Tensor for forward AD but no level exists, make sure to enter_dual_level() first."),
    (lambda x, t: fwAD.exit_dual_level(), RuntimeError, "Dual level must be a positive number."),
])
def test_errors_outside_a_level(call, error, message):
    x = torch.ones(3, dtype=torch.float64)
    with pytest.raises(error) as info:
        call(x, x)
    assert str(info.value) == message


@pytest.mark.parametrize("call, error, message", [
    (lambda x, t: fwAD.enter_dual_level(), RuntimeError, "Nested forward mode AD is not supported at the moment"),
    (lambda x, t: fwAD.dual_level().__enter__(), RuntimeError, "Nested forward mode AD is not supported at the moment"),
    (lambda x, t: fwAD.make_dual(x, torch.ones(4, dtype=torch.float64)), RuntimeError,
     "Trying to set a forward gradient that has a different size than that of the original Tensor, this is not "
     "supported. Tensor is of size [3] while the given forward gradient is of size [4]."),
    (lambda x, t: fwAD.make_dual(torch.arange(3), t), ValueError,
     "Expected primal to be floating point or complex, but got: srcgrad.int64"),
    (lambda x, t: fwAD.make_dual(x, torch.arange(3)), ValueError,
     "Expected tangent to be floating point or complex, but got: srcgrad.int64"),
    (lambda x, t: fwAD.make_dual(1.0, t), AttributeError, "'float' object has no attribute 'is_floating_point'"),
    (lambda x, t: fwAD.make_dual(fwAD.make_dual(x, t), t), RuntimeError,
     "Making a dual Tensor based on a Tensor that already has a forward gradient at the same level 0 is not supported."),
    (lambda x, t: fwAD.make_dual(x, t, level=5), RuntimeError, "Invalid level given to _make_dual"),
    (lambda x, t: fwAD.unpack_dual(x, level=5), RuntimeError, "Invalid level given to _fw_primal"),
    (lambda x, t: fwAD.exit_dual_level(level=3), RuntimeError,
     "Trying to exit a forward AD level that was not the last one that was created. This is not supported."),
    (lambda x, t: fwAD.make_dual(x, t) // 2, NotImplementedError,
     "Trying to use forward AD with aten::floor_divide that does not support it."),
    (lambda x, t: torch.unique(fwAD.make_dual(x, t)), NotImplementedError,
     "Trying to use forward AD with _unique2 that does not support it."),
    (lambda x, t: torch.linalg.qr(fwAD.make_dual(torch.eye(3, dtype=torch.float64), torch.eye(3, dtype=torch.float64))),
     NotImplementedError, "Trying to use forward AD with linalg_qr that does not support it."),
])
def test_errors_inside_a_level(call, error, message):
    x = torch.tensor([0.5, 1.0, 2.0], dtype=torch.float64)
    t = torch.ones(3, dtype=torch.float64)
    with fwAD.dual_level():
        with pytest.raises(error) as info:
            call(x, t)
    assert str(info.value) == message


def test_custom_function_refused():
    class Double(torch.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            return a * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2

    with fwAD.dual_level():
        d = fwAD.make_dual(torch.ones(2), torch.ones(2))
        with pytest.raises(NotImplementedError, match="You must implement the jvp function for custom autograd.Function"):
            Double.apply(d)
    assert Double.apply(torch.ones(2)).tolist() == [2.0, 2.0]


X2 = np.array([[0.5, -1.5, 2.0], [1.0, 0.25, -0.75]])
T2 = np.array([[1.0, 2.0, 3.0], [-1.0, 0.5, 2.0]])


# tangents as PyTorch 2.13 gives them (and as the out-of-place ops give them)
@pytest.mark.parametrize("write, expected", [
    (lambda d: (d * 1).relu_(), np.where(X2 > 0, T2, 0)),
    (lambda d: (d * 2).add_(d, alpha=3), 5 * T2),
    (lambda d: torch.ones(2, 3, dtype=torch.float64).sub_(d), -T2),
    (lambda d: (d * 1).clamp_(-1, 1), np.where(np.abs(X2) <= 1, T2, 0)),
    (lambda d: (d * 1).zero_(), np.zeros((2, 3))),
    (lambda d: (d * 1).fill_(2.0), np.zeros((2, 3))),
    (lambda d: torch.zeros(2, 3, dtype=torch.float64).copy_(d.sin()), np.cos(X2) * T2),
    (lambda d: torch.zeros(2, 3, dtype=torch.float64).copy_(d[0]), np.broadcast_to(T2[0], (2, 3))),
    (lambda d: (lambda e: (e.__setitem__(0, d[1]), e)[1])(torch.zeros(2, 3, dtype=torch.float64)),
     np.array([T2[1], [0.0, 0.0, 0.0]])),
    (lambda d: (lambda e: (e.__setitem__(d > 0, 0.0), e)[1])(d * 2), np.where(X2 > 0, 0, 2 * T2)),
    (lambda d: (lambda e: (e.__iadd__(d), e)[1])(d + 1), 2 * T2),
    (lambda d: (d * 1).t_(), T2.T),
    (lambda d: (d * 1).pow_(2), 2 * X2 * T2),
    (lambda d: (lambda e: e.mul_(e))(d * 1), 2 * X2 * T2),  # PyTorch reads the written self: [[0.75, 1.5, 18], ...]
    (lambda d: torch.nn.Sequential(torch.nn.Identity(), torch.nn.ReLU(inplace=True))(d * 1), np.where(X2 > 0, T2, 0)),
])
def test_in_place_writes(write, expected):
    with fwAD.dual_level():
        d = fwAD.make_dual(torch.tensor(X2), torch.tensor(T2))
        out = write(d)
        tangent = fwAD.unpack_dual(out).tangent
        assert tangent.dtype == out.dtype
        np.testing.assert_allclose(tangent.numpy(), expected, rtol=1e-15)


def test_in_place_writes_refused_and_guards_removed_after():
    with fwAD.dual_level():
        d = fwAD.make_dual(torch.tensor(X2), torch.tensor(T2))
        e = d * 1
        for write, why in ((lambda: d.mul_(2), "that is a view or has views"),  # a dual of make_dual is a view
                           (lambda: e[0].mul_(2), "that is a view or has views"),
                           (lambda: (e.view(6), e.mul_(2)), "that is a view or has views"),
                           (lambda: (d * 1).apply_(lambda v: v), "(no out-of-place counterpart)")):
            with pytest.raises(NotImplementedError, match=re.escape(why)):
                write()
        plain = torch.ones(2)
        assert plain.mul_(3).tolist() == [3.0, 3.0] and fwAD.unpack_dual(plain).tangent is None
        with pytest.raises(RuntimeError, match="can't be cast to the desired output type Long"):
            torch.zeros(2, 3, dtype=torch.int64).add_(e)
    y = torch.ones(2)
    y.mul_(2)
    assert y.tolist() == [2.0, 2.0] and "guarded" not in type(y).mul_.__qualname__


def test_backward_through_dual_tensors():
    x = np.array([0.3, -0.2, 0.9])
    w = torch.tensor(x, requires_grad=True)
    with fwAD.dual_level():
        dw = fwAD.make_dual(w, torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64))
        assert dw.requires_grad and type(dw.grad_fn).__name__ == "ViewBackward0" and not dw.is_leaf
        y = (dw.sin() * dw).sum()
        tangent = fwAD.unpack_dual(y).tangent.item()
        y.backward()
        # .backward() accumulates the gradient (without tangent, as PyTorch's .grad)
        np.testing.assert_allclose(w.grad.numpy(), np.cos(x) * x + np.sin(x), rtol=1e-12)
        assert fwAD.unpack_dual(w.grad).tangent is None
        # PyTorch's autograd.grad gives a gradient with a tangent (forward-over-reverse): refused
        with pytest.raises(NotImplementedError, match="forward-over-reverse"):
            torch.autograd.grad((dw.sin() * dw).sum(), w)
        # a graph without dual tensors: as usual
        assert torch.autograd.grad((w * w).sum(), w)[0].tolist() == (2 * x).tolist()
    np.testing.assert_allclose(tangent, np.dot(np.cos(x) * x + np.sin(x), [1.0, 2.0, 3.0]), rtol=1e-12)


def test_tangents_flow_with_grad_mode_off():
    with fwAD.dual_level(), torch.no_grad():
        d = fwAD.make_dual(torch.tensor([0.0, 1.0], dtype=torch.float64), torch.tensor([1.0, 1.0], dtype=torch.float64))
        np.testing.assert_allclose(fwAD.unpack_dual(d.sin()).tangent.numpy(), np.cos([0.0, 1.0]), rtol=1e-15)


@pytest.mark.parametrize("name", sorted(CASES))
def test_against_pytorch(name):
    """The same function, its `torch` and `F` read from PyTorch (values checked in 2.13)."""
    real = pytest.importorskip("torch")
    f = CASES[name]
    _, tangent, _ = _dual_value(f, A, B, TA, TB)
    real_f = _rebound(f, {"torch": real, "F": real.nn.functional})
    fw = real.autograd.forward_ad
    with fw.dual_level():
        out = real_f(fw.make_dual(real.tensor(A), real.tensor(TA)), fw.make_dual(real.tensor(B), real.tensor(TB)))
        expected = fw.unpack_dual(out).tangent.detach().numpy()
    np.testing.assert_allclose(tangent, expected, rtol=1e-10, atol=1e-12)


def _rebound(f, names):
    """`f` with the module-level names `torch` and `F` read from `names`."""
    scope = dict(f.__globals__)
    scope.update(names)
    return types.FunctionType(f.__code__, scope, f.__name__, f.__defaults__, f.__closure__)
