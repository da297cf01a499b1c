"""The shim where PyTorch is strict or particular: `mm`, `mv` and `dot` refuse what
`matmul` would take, `-` refuses bool tensors, unsigned sums give int64, a tracked
reduction or scan cast to an integer dtype is refused, `torch.tensor(t)` and `float(t)`
warn, `neg_` negates in place. Expected texts are PyTorch 2's; the last test compares
with PyTorch itself when installed."""

import builtins
import sys
import types
import warnings

import numpy as np
import pytest

import srcgrad as torch

O = torch.ones

ERRORS = [
    (lambda x: torch.mm(O(2, 3), O(3)), RuntimeError, "mat2 must be a matrix"),
    (lambda x: torch.mm(O(3), O(3, 2)), RuntimeError, "self must be a matrix"),
    (lambda x: O(2, 3, 1).mm(O(3, 2)), RuntimeError, "self must be a matrix"),
    (lambda x: torch.mm(O(2, 3), O(4, 2)), RuntimeError, "mat1 and mat2 shapes cannot be multiplied (2x3 and 4x2)"),
    (lambda x: torch.mm(O(2, 3), [1.0]), TypeError, "mm(): argument 'mat2' (position 2) must be Tensor, not list"),
    (lambda x: torch.mv(O(2, 3), O(3, 1)), RuntimeError, "vector + matrix @ vector expected, got 1, 2, 2"),
    (lambda x: O(3).mv(O(3)), RuntimeError, "vector + matrix @ vector expected, got 1, 1, 1"),
    (lambda x: torch.mv(O(2, 3), O(4)), RuntimeError, "size mismatch, got input (2), mat (2x3), vec (4)"),
    (lambda x: torch.mv(O(2, 3), O(3, dtype=torch.float64)), RuntimeError,
     "addmv input tensors must have the same dtype, but got Double, Float, and Double"),
    (lambda x: torch.dot(O(3), O(3, 1)), RuntimeError, "1D tensors expected, but got 1D and 2D tensors"),
    (lambda x: O(()).dot(O(3)), RuntimeError, "1D tensors expected, but got 0D and 1D tensors"),
    (lambda x: torch.dot(O(3), O(4)), RuntimeError,
     "inconsistent tensor size, expected tensor [3] and src [4] to have the same number of elements, but got 3 "
     "and 4 elements respectively"),
    (lambda x: torch.dot(O(3), O(3, dtype=torch.int64)), RuntimeError,
     "dot : expected both vectors to have same dtype, but found Float and Long"),
    (lambda x: torch.dot(O(3), 2), TypeError, "dot(): argument 'tensor' (position 2) must be Tensor, not int"),
    (lambda x: torch.tensor([True]) - torch.tensor([False]), RuntimeError,
     "Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or `logical_xor()` "
     "operator instead."),
    (lambda x: torch.tensor([True]) - True, RuntimeError,
     "Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or `logical_xor()` "
     "operator instead."),
    (lambda x: 1 - torch.tensor([True]), RuntimeError,
     "Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying to invert a mask, use "
     "the `~` or `logical_not()` operator instead."),
    (lambda x: x - torch.tensor([True, False, True]), RuntimeError,
     "Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying to invert a mask, use "
     "the `~` or `logical_not()` operator instead."),
    (lambda x: torch.tensor([True]).__isub__(torch.tensor([True])), RuntimeError,
     "Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or `logical_xor()` "
     "operator instead."),
    (lambda x: -torch.tensor([True]), RuntimeError,
     "Negation, the `-` operator, on a bool tensor is not supported. If you are trying to invert a mask, use the "
     "`~` or `logical_not()` operator instead."),
    (lambda x: torch.tensor([False]).neg_(), RuntimeError,
     "Negation, the `-` operator, on a bool tensor is not supported. If you are trying to invert a mask, use the "
     "`~` or `logical_not()` operator instead."),
    (lambda x: x.prod(dtype=torch.int64), RuntimeError, "Autograd not support dtype: Long"),
    (lambda x: x.cumsum(1, dtype=torch.int32), RuntimeError, "Autograd not support dtype: Int"),
    (lambda x: torch.cumprod(x, 0, dtype=torch.int64), RuntimeError, "Autograd not support dtype: Long"),
    # a leaf that requires grad is refused before the operands are looked at
    (lambda x: x.__isub__(True), RuntimeError, "a leaf Variable that requires grad is being used in an in-place operation."),
    (lambda x: torch.std_mean(torch.tensor([1, 2])), RuntimeError, "std_mean only support floating point and complex dtypes"),
    (lambda x: torch.var_mean(torch.tensor([1, 2])), RuntimeError, "var_mean only support floating point and complex dtypes"),
    (lambda x: torch.std(torch.tensor([1, 2])), RuntimeError, "std and var only support floating point and complex dtypes"),
    (lambda x: torch.atan2(x, -2), TypeError, "atan2(): argument 'other' (position 2) must be Tensor, not int"),
    (lambda x: torch.atan2(2, x), TypeError, "atan2(): argument 'input' (position 1) must be Tensor, not int"),
    (lambda x: x.atan2(2.0), TypeError, "atan2(): argument 'other' (position 1) must be Tensor, not float"),
    (lambda x: x.arctan2(None), TypeError, "arctan2(): argument 'other' (position 1) must be Tensor, not NoneType"),
    # the kernel's name: `lastdim` for the last dim
    (lambda x: torch.arange(3).log_softmax(-1), NotImplementedError,
     '"log_softmax_lastdim_kernel_impl" not implemented for \'Long\''),
    (lambda x: torch.tensor([[1, 2]]).log_softmax(0), NotImplementedError,
     '"log_softmax_kernel_impl" not implemented for \'Long\''),
    (lambda x: torch.tensor([[1], [2]]).softmax(0), NotImplementedError,
     '"softmax_kernel_impl" not implemented for \'Long\''),
    (lambda x: torch.tensor([[1], [2]]).softmax(-1), NotImplementedError,
     '"softmax_lastdim_kernel_impl" not implemented for \'Long\''),
    (lambda x: torch.tensor(True).softmax(0), NotImplementedError,
     '"softmax_lastdim_kernel_impl" not implemented for \'Bool\''),
    (lambda x: torch.nn.functional.cross_entropy(torch.ones(2, 3, dtype=torch.float64), torch.tensor([1, 1]),
                                                 weight=torch.ones(3)), RuntimeError,
     "expected scalar type Double but found Float"),
    (lambda x: torch.nn.functional.nll_loss(x, torch.tensor([1, 1]), weight=torch.ones(3, dtype=torch.int64)),
     RuntimeError, "expected scalar type Float but found Long"),
    (lambda x: torch.nn.functional.binary_cross_entropy(torch.tensor([0.5, float("nan")]), torch.tensor([0.5, 0.5])),
     RuntimeError, "all elements of input should be between 0 and 1"),
    (lambda x: x.max(-1.5), TypeError,
     "max() received an invalid combination of arguments - got (float), but expected one of:\n * ()\n      didn't "
     "match because some of the arguments have invalid types: (!float!)\n * (Tensor other)\n      didn't match "
     "because some of the arguments have invalid types: (!float!)\n * (int dim, bool keepdim = False)\n"),
    (lambda x: torch.min(x, True), TypeError,
     "min() received an invalid combination of arguments - got (Tensor, bool), but expected one of:\n * (Tensor "
     "input, *, Tensor out = None)\n * (Tensor input, Tensor other, *, Tensor out = None)\n * (Tensor input, int "
     "dim, bool keepdim = False, *, tuple of Tensors out = None)\n"),
    (lambda x: x.add(x, alpha=True), RuntimeError, "Boolean alpha only supported for Boolean results."),
    (lambda x: torch.tensor([1, 2]).add(torch.tensor([1, 2]), alpha=0.5), RuntimeError,
     "For integral input tensors, argument alpha must not be a floating point number."),
    (lambda x: torch.lerp(torch.arange(3), torch.zeros(3, dtype=torch.float64), 0.3), RuntimeError,
     "expected dtype long int for `end` but got dtype double"),
    (lambda x: torch.lerp(x, x.double(), torch.tensor(0.5)), RuntimeError,
     "expected dtype float for `end` but got dtype double"),
    (lambda x: x.sub(torch.tensor([True, False, True]), alpha=2), RuntimeError,
     "Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying to invert a mask, use "
     "the `~` or `logical_not()` operator instead."),
    # a write out of bounds said NumPy's "axis"
    (lambda x: torch.zeros(0, 3).__setitem__(0, 1.0), IndexError, "index 0 is out of bounds for dimension 0 with size 0"),
    (lambda x: x.clone().__setitem__((1, 7), 1.0), IndexError, "index 7 is out of bounds for dimension 1 with size 3"),
    (lambda x: O(2, 3).__setitem__((slice(None), [0, 7]), 1.0), IndexError,
     "index 7 is out of bounds for dimension 0 with size 3"),
]


@pytest.mark.parametrize("fn,kind,message", ERRORS, ids=[m[:40] for _, _, m in ERRORS])
def test_errors(fn, kind, message):
    x = torch.ones(2, 3, requires_grad=True)
    with pytest.raises(kind) as info:
        fn(x)
    assert str(info.value) == message


def test_products_give_matmul_values_nodes_and_gradients():
    rng = np.random.default_rng(0)
    a, m, v = rng.standard_normal((2, 3)), rng.standard_normal((3, 4)), rng.standard_normal(3)
    A, M, V = (torch.tensor(d, requires_grad=True) for d in (a, m, v))
    W = torch.tensor(v)
    outs = [torch.mm(A, M), A.mv(V), torch.dot(V, W)]
    assert [type(o.grad_fn).__name__ for o in outs] == ["MmBackward0", "MvBackward0", "DotBackward0"]
    np.testing.assert_allclose(outs[0].detach().numpy(), a @ m, rtol=1e-12)
    np.testing.assert_allclose(outs[1].detach().numpy(), a @ v, rtol=1e-12)
    (outs[0].sum() + outs[1].sum() + 2 * outs[2]).backward()
    np.testing.assert_allclose(A.grad.numpy(), np.ones((2, 4)) @ m.T + np.outer(np.ones(2), v), rtol=1e-12)
    np.testing.assert_allclose(M.grad.numpy(), a.T @ np.ones((2, 4)), rtol=1e-12)
    np.testing.assert_allclose(V.grad.numpy(), a.T @ np.ones(2) + 2 * v, rtol=1e-12)
    assert torch.mm(O(2, 3, dtype=torch.int64), O(3, 2, dtype=torch.int64)).dtype == torch.int64


@pytest.mark.parametrize("dtype", [torch.uint8, torch.int8, torch.int32, torch.bool])
def test_integer_sums_are_int64(dtype):
    t = torch.tensor([[200, 100], [1, 0]]).to(dtype)
    whole, rows = t.sum(), t.sum(1, keepdim=True)
    expected = np.array([[200, 100], [1, 0]]).astype(t.numpy().dtype).astype(np.int64)
    assert (whole.dtype, rows.dtype) == (torch.int64, torch.int64)
    assert whole.item() == expected.sum()
    assert rows.numpy().tolist() == expected.sum(1, keepdims=True).tolist()


def test_bool_operands_take_alpha_as_a_bool():
    b = torch.tensor([True, False])
    assert repr(b.add(b, alpha=2)) == "tensor([ True, False])" and repr(b.add(b, alpha=0)) == "tensor([ True, False])"


def test_alpha_scales_in_the_result_dtype():
    # was: the scaled operand rounded in its own dtype first (int64 * 0.5 in float32):
    # a float64 result of dtype float32 ([-8388607.5, -1.2000000476837158]), float64 sums
    # off by float32 rounding (1.1100000068545341)
    a = torch.tensor(0.3, dtype=torch.float64, requires_grad=True)
    b = torch.tensor([16777217, 3])
    c = torch.tensor([1.1, 2.2], dtype=torch.float32, requires_grad=True)
    d = torch.tensor([1.0, 2.0], dtype=torch.float64, requires_grad=True)
    r, r2, r3 = torch.sub(a, b, alpha=0.5), d.add(c, alpha=0.1), c.sub(a, alpha=3)
    assert (r.dtype, r2.dtype, r3.dtype) == (torch.float64, torch.float64, torch.float32)
    assert r.tolist() == [0.3 - 16777217 * 0.5, 0.3 - 1.5] and type(r.grad_fn).__name__ == "SubBackward0"
    assert r2.tolist() == [1.0 + float(np.float32(1.1)) * 0.1, 2.0 + float(np.float32(2.2)) * 0.1]
    f = np.float32
    assert r3.tolist() == [float(f(1.1) - f(0.3) * f(3)), float(f(2.2) - f(0.3) * f(3))]  # PyTorch: 0.19999998807907104
    (r.sum() + r2.sum() * 2 + r3.sum()).backward()
    assert a.grad.item() == -4.0 and d.grad.tolist() == [2.0, 2.0]
    assert c.grad.dtype == torch.float32 and np.allclose(c.grad.numpy(), 1.2)
    e = torch.tensor([1.0, 2.0], dtype=torch.float64, requires_grad=True).clone()
    e.add_(c, alpha=0.1)
    assert e.tolist() == r2.tolist() and type(e.grad_fn).__name__ == "AddBackward0"


def test_clamp_keeps_an_element_equal_to_its_bound():
    # was: -0.0 clamped at 0.0 gave 0.0 (np.clip takes the bound), so 1 / it was inf, not -inf
    x = torch.tensor([[-0.01, -0.0, 0.0, 2.0]], requires_grad=True)
    r = x.clamp(min=0)
    r2 = torch.clamp(x, torch.tensor([0.0, 0.0, -0.0, 1.0]), torch.tensor(1.5))
    assert (1 / r).tolist() == [[np.inf, -np.inf, np.inf, 0.5]]
    assert (1 / r2).tolist() == [[np.inf, -np.inf, np.inf, float(np.float32(1) / np.float32(1.5))]]
    assert (1 / x.clamp_max(-0.0)).tolist() == [[-100.0, -np.inf, np.inf, -np.inf]]
    y = x.detach().clone()
    y.clamp_(min=0.0)
    assert (1 / y).tolist() == [[np.inf, -np.inf, np.inf, 0.5]]
    (r.sum() + r2.sum()).backward()
    assert x.grad.tolist() == [[0.0, 2.0, 2.0, 1.0]]


@pytest.mark.parametrize("op", [
    lambda x: x.sum(1), lambda x: x.sum(1, keepdim=True), lambda x: x.mean(1), lambda x: x.amax(1), lambda x: x.amin(1),
    lambda x: x.std(1), lambda x: x.var(1), lambda x: x.prod(1), lambda x: x.cumsum(0), lambda x: x.cumprod(1),
    lambda x: x.norm(dim=1), lambda x: x.logsumexp(1), lambda x: x.softmax(1), lambda x: x.log_softmax(1),
    lambda x: (x > 3).any(1), lambda x: (x > 3).all(1), lambda x: x.count_nonzero(1),
])
def test_reductions_and_scans_of_a_permuted_tensor_are_contiguous(op):
    # PyTorch allocates their results contiguous; NumPy kept the input's order, so `.view`
    # of them was refused ("view size is not compatible ...")
    x = torch.arange(24.0, requires_grad=True)
    p = x.reshape(2, 3, 4).permute(2, 0, 1)
    r = op(p)
    expected = op(p.detach().contiguous())
    flat = r.view(-1)
    assert flat.tolist() == expected.reshape(-1).tolist()
    if flat.requires_grad:
        (flat * torch.arange(float(flat.numel()))).sum().backward()
        detached = torch.arange(24.0, requires_grad=True)
        (op(detached.reshape(2, 3, 4).permute(2, 0, 1).contiguous()).reshape(-1) * torch.arange(float(flat.numel()))).sum().backward()
        assert x.grad.tolist() == detached.grad.tolist()


def test_an_elementwise_op_of_a_permuted_tensor_keeps_its_order():
    p = torch.arange(24.0).reshape(2, 3, 4).permute(2, 0, 1)
    with pytest.raises(RuntimeError, match="view size is not compatible"):
        p.exp().view(-1)


def test_neg_in_place_is_tracked_and_counted():
    a = torch.tensor([1.0, -2.0], requires_grad=True)
    b = a * 3
    assert b.neg_() is b
    assert b.tolist() == [-3.0, 6.0] and type(b.grad_fn).__name__ == "NegBackward0"
    (b * torch.tensor([1.0, 2.0])).sum().backward()
    assert a.grad.tolist() == [-3.0, -6.0]
    c = torch.tensor([1, 2])
    assert c.neg_().tolist() == [-1, -2]


def test_copy_construct_from_a_tensor_warns():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    with pytest.warns(UserWarning, match=r"^To copy construct from a tensor, it is recommended to use "
                      r"sourceTensor\.detach\(\)\.clone\(\) or sourceTensor\.detach\(\)\.clone\(\)\.requires_grad_\(True\), "
                      r"rather than torch\.tensor\(sourceTensor\)\.$"):
        y = torch.tensor(x)
    assert y.tolist() == [1.0, 2.0] and not y.requires_grad and y.is_leaf
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        same = torch.as_tensor(x)
        wider = torch.as_tensor(x, dtype=torch.float64)
    assert same is x
    assert wider.dtype == torch.float64 and type(wider.grad_fn).__name__ == "ToCopyBackward0"


def test_float_of_a_tensor_that_requires_grad_warns_once(monkeypatch):
    monkeypatch.setattr(sys.modules["srcgrad.tensor.tensor"], "_SCALAR_WARNING_SHOWN", False)
    x = torch.tensor([1.5, 2.5], requires_grad=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        values = [float(x[0]), float(x[1]), int(x[1]), float(torch.tensor(3.0))]
    assert values == [1.5, 2.5, 2, 3.0]
    assert [str(w.message) for w in caught] == [
        "Converting a tensor with requires_grad=True to a scalar may lead to unexpected behavior.\n"
        "Consider using tensor.detach() first."
    ]


def test_against_pytorch():
    real = pytest.importorskip("torch")
    for fn, kind, message in ERRORS:
        on_pytorch = types.FunctionType(fn.__code__, {"torch": real, "O": real.ones, "__builtins__": builtins})  # the same lambda
        with pytest.raises(kind) as info:
            on_pytorch(real.ones(2, 3, requires_grad=True))
        assert str(info.value) == message


def test_numpy_inside_no_grad_and_numpy_ufuncs_of_tensors():
    """PyTorch refuses `numpy()` of a tensor that requires grad only while grad mode is on
    (plotting inside `no_grad` works), and a NumPy ufunc of tensors gives a tensor that
    records nothing, a bool result as uint8 (the shim gave arrays). Texts printed by
    PyTorch 2.13."""
    x = torch.tensor([1.5, -2.0], requires_grad=True)
    with pytest.raises(RuntimeError, match=r"Can't call numpy\(\) on Tensor that requires grad"):
        x.numpy()
    with pytest.raises(RuntimeError, match=r"Can't call numpy\(\) on Tensor that requires grad"):
        np.exp(x)
    with torch.no_grad():
        a = x.numpy()
        assert a.dtype == np.float32 and a.tolist() == [1.5, -2.0]
        a[0] = 4.0  # shares memory
        assert repr(np.exp(x)) == "tensor([54.5981,  0.1353])"
    assert x.tolist() == [4.0, -2.0]
    z = torch.tensor([1.5, -2.0])
    assert repr(np.exp(z)) == "tensor([4.4817, 0.1353])"
    assert repr(np.add(z, z)) == "tensor([ 3., -4.])"
    assert repr(np.maximum(z, 0.0)) == "tensor([1.5000, 0.0000])"
    assert repr(np.greater(z, 0)) == "tensor([1, 0], dtype=srcgrad.uint8)"
    assert repr(np.exp(torch.tensor(1.0))) == "tensor(2.7183)"
    assert np.exp(z).requires_grad is False and np.exp(z).grad_fn is None


def test_iteration_unbinds_and_reversed_flips():
    """Iterating a tensor gives what `unbind()` gives (UnbindBackward0; SelectBackward0
    before), so `list(x)`, `max(x)` and `sorted(x)` print as in PyTorch; `reversed(t)`
    is `t.flip(0)`, a tensor. Texts printed by PyTorch 2.13."""
    x = torch.tensor([[1.5, -2.0], [3.0, 4.0]], requires_grad=True)
    rows = list(x)
    assert [repr(r) for r in rows] == ["tensor([ 1.5000, -2.0000], grad_fn=<UnbindBackward0>)",
                                       "tensor([3., 4.], grad_fn=<UnbindBackward0>)"]
    assert repr(max(torch.tensor([1.5, -2.0, 3.25], requires_grad=True))) == "tensor(3.2500, grad_fn=<UnbindBackward0>)"
    (rows[0] * 2 + rows[1]).sum().backward()
    assert x.grad.tolist() == [[2.0, 2.0], [1.0, 1.0]]
    assert repr(reversed(x)) == "tensor([[ 3.0000,  4.0000],\n        [ 1.5000, -2.0000]], grad_fn=<FlipBackward0>)"
    assert repr(list(reversed(torch.tensor([1, 2])))) == "[tensor(2), tensor(1)]"
    assert repr(reversed(torch.tensor(2.0))) == "tensor(2.)"
    with pytest.raises(TypeError, match="iteration over a 0-d tensor"):
        iter(torch.tensor(1.0))
