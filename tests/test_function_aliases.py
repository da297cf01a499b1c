"""PyTorch's other names of existing functions, the dtype questions and the Tensor's
storage facts (srcgrad/tensor/function_aliases.py, tensor_facts.py): values, dtypes,
grad_fn names and error texts as PyTorch 2.13's (stored)."""

import pickle

import numpy as np
import pytest

import srcgrad as torch


def x3():
    return torch.tensor([1.0, 2.0, 3.0], requires_grad=True) * 1


def node(t):
    return type(t.grad_fn).__name__


def test_arithmetic_aliases():
    y = torch.divide(x3(), 2)
    assert y.tolist() == [0.5, 1.0, 1.5] and node(y) == "DivBackward0"
    y = torch.divide(x3(), 2, rounding_mode="floor")
    assert y.tolist() == [0.0, 1.0, 1.0] and node(y) == "DivBackward2"
    assert torch.divide(torch.tensor([1, 2]), 2).dtype == torch.float32
    y = torch.multiply(x3(), torch.tensor(2.0))
    assert y.tolist() == [2.0, 4.0, 6.0] and node(y) == "MulBackward0"
    y = torch.subtract(x3(), 1, alpha=2)
    assert y.tolist() == [-1.0, 0.0, 1.0] and node(y) == "SubBackward0"
    assert node(torch.arctan2(x3(), torch.ones(3))) == "Atan2Backward0"
    assert torch.detach(x3()).requires_grad is False


def test_rsub():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = torch.rsub(x * 1, 2, alpha=2)
    assert y.tolist() == [0.0, -2.0] and node(y) == "RsubBackward1"
    z = torch.rsub(x * 1, torch.tensor(3.0))
    assert z.tolist() == [2.0, 1.0] and node(z) == "RsubBackward0"
    (y.sum() + z.sum()).backward()
    assert x.grad.tolist() == [-3.0, -3.0]
    r = torch.rsub(torch.tensor([1, 2]), 5)
    assert r.tolist() == [4, 3] and r.dtype == torch.int64 and r.grad_fn is None


def test_fill():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    v = torch.tensor(3.0, requires_grad=True)
    a, b = torch.fill(x * 1, 2.0), torch.fill(x * 1, v)
    assert a.tolist() == [2.0, 2.0] and node(a) == "FillBackward0"
    assert b.tolist() == [3.0, 3.0] and node(b) == "FillBackward1"
    (a.sum() + 5 * b.sum()).backward()
    assert x.grad.tolist() == [0.0, 0.0] and v.grad.item() == 10.0
    assert torch.fill(torch.tensor([1, 2]), 7).tolist() == [7, 7]
    with pytest.raises(RuntimeError) as e:
        torch.fill(x, torch.tensor([3.0]))
    assert str(e.value) == "fill_ only supports 0-dimension value tensor but got tensor with 1 dimensions."


def test_empty_and_scalar_makers():
    assert torch.empty_like(x3()).shape == (3,) and torch.empty_like(x3()).requires_grad is False
    assert torch.empty_like(x3(), dtype=torch.int64).dtype == torch.int64
    e = torch.empty_strided((2, 3), (1, 2))
    assert e.shape == (2, 3) and e.stride() == (1, 2) and e.dtype == torch.float32
    with pytest.raises(RuntimeError) as err:
        torch.empty_strided((2, 3), (1,))
    assert str(err.value) == "dimensionality of sizes (2) must match dimensionality of strides (1)"
    n = x3().double().new_empty_strided((2, 2), (1, 2))
    assert n.stride() == (1, 2) and n.dtype == torch.float64 and not n.requires_grad
    assert repr(torch.scalar_tensor(3)) == "tensor(3.)" and repr(torch.scalar_tensor(True)) == "tensor(1.)"
    assert repr(torch.scalar_tensor(2, dtype=torch.int64)) == "tensor(2)"


def test_asarray():
    a = np.array([1, 2])
    t = torch.asarray(a)
    a[0] = 9
    assert t.tolist() == [9, 2] and t.dtype == torch.int64
    x = x3()
    assert torch.asarray(x) is x
    assert node(torch.asarray(x, dtype=torch.float64)) == "ToCopyBackward0"
    c = torch.asarray(x, copy=True)
    assert node(c) == "CloneBackward0" and c is not x
    assert torch.asarray([1, 2.0]).dtype == torch.float32 and torch.asarray(3).dtype == torch.int64


def test_dtype_questions():
    assert torch.result_type(torch.tensor([1]), 1.0) == torch.float32
    assert torch.result_type(torch.tensor([1.0]), torch.tensor(1.0, dtype=torch.float64)) == torch.float32
    assert torch.result_type(torch.tensor([1], dtype=torch.int8), torch.tensor([1], dtype=torch.uint8)) == torch.int16
    with pytest.raises(TypeError) as e:
        torch.result_type(torch.tensor([1]), "a")
    assert str(e.value).splitlines()[0] == (
        "result_type() received an invalid combination of arguments - got (Tensor, str), but expected one of:")
    assert torch.promote_types(torch.int32, torch.float16) == torch.float16
    assert torch.promote_types(torch.bool, torch.uint8) == torch.uint8
    assert torch.promote_types(torch.int8, torch.uint8) == torch.int16
    casts = [(torch.float32, torch.int32), (torch.int32, torch.float32), (torch.complex64, torch.float64),
             (torch.int32, torch.bool), (torch.bool, torch.int8), (torch.float64, torch.float16),
             (torch.uint8, torch.int8)]
    assert [torch.can_cast(a, b) for a, b in casts] == [False, True, False, False, True, True, True]
    assert [torch.zeros(1, dtype=d).is_signed() for d in (torch.float32, torch.uint8, torch.bool, torch.int8)] == [
        True, False, False, True]
    assert torch.is_signed(torch.zeros(1)) and torch.float32.is_signed and not torch.uint8.is_signed
    assert torch.typename(x3()) == "srcgrad.FloatTensor" and torch.typename(torch.tensor([1])) == "srcgrad.LongTensor"
    assert torch.typename(1) == "int" and torch.typename(torch.nn.Linear(1, 1)) == "srcgrad.nn.modules.Linear"


def test_sizes_and_indices():
    assert torch.is_same_size(torch.zeros(2), torch.zeros(2)) is True
    assert torch.is_same_size(torch.zeros(2), torch.zeros(1, 2)) is False
    with pytest.raises(TypeError) as e:
        torch.is_same_size(torch.zeros(2), 2)
    assert str(e.value) == "is_same_size(): argument 'other' (position 2) must be Tensor, not int"
    rows, cols = torch.unravel_index(torch.tensor([4, 1, 6, -1]), (2, 3))
    assert rows.tolist() == [1, 0, 0, 1] and cols.tolist() == [1, 1, 0, 2] and rows.dtype == torch.int64
    assert [t.tolist() for t in torch.unravel_index(torch.tensor([[7, 23]]), (2, 3, 4))] == [[[0, 1]], [[1, 2]], [[3, 3]]]
    with pytest.raises(TypeError) as e:
        torch.unravel_index(torch.tensor([1.0]), (2, 3))
    assert str(e.value) == "expected 'indices' to be integer dtype, but got srcgrad.float32"
    a, b = torch.split_with_sizes(x3(), [1, 2])
    assert a.tolist() == [1.0] and b.tolist() == [2.0, 3.0] and node(b) == "SplitWithSizesBackward0"
    assert [t.shape for t in torch.zeros(2, 3).split_with_sizes([2, 1], -1)] == [(2, 2), (2, 1)]
    with pytest.raises(RuntimeError) as e:
        torch.split_with_sizes(x3(), [1, 1])
    assert str(e.value) == ("split_with_sizes expects split_sizes to sum exactly to 3 (input tensor's size at "
                            "dimension 0), but got split_sizes=[1, 1]")


def test_storage_facts():
    x = x3()
    assert (x.is_cpu, x.is_sparse, x.is_quantized, x.is_meta, x.is_pinned(), x.get_device(), x.name) == (
        True, False, False, False, False, -1, None)
    assert x.layout is torch.strided and repr(torch.strided) == "srcgrad.strided"
    assert pickle.loads(pickle.dumps(torch.strided)) is torch.strided
    assert x.share_memory_() is x
    with pytest.raises(RuntimeError) as e:
        x.pin_memory()
    assert str(e.value) == "Cannot access accelerator device when none is available."


def test_conversions_and_forms():
    x = torch.tensor([1.5, 2.0, 300.0], requires_grad=True)
    assert (x.byte().dtype, x.char().dtype, x.short().dtype) == (torch.uint8, torch.int8, torch.int16)
    assert x.byte()[:2].tolist() == [1, 2] and x.char()[:2].tolist() == [1, 2] and x.short().tolist() == [1, 2, 300]
    assert torch.tensor([1.0]).cfloat().dtype == torch.complex64 and torch.tensor([1.0]).cdouble().dtype == torch.complex128
    with pytest.raises(RuntimeError, match="^srcgrad's Tensor shim does not differentiate complex tensors"):
        x.cfloat()
    with pytest.raises(TypeError, match="bfloat16 is not supported by the shim"):
        x.bfloat16()
    r = (x * 1).reshape(3, 1).expand(3, 2).t().ravel()
    assert r.tolist() == [1.5, 2.0, 300.0, 1.5, 2.0, 300.0] and node(r) == "ViewBackward0"
    assert type(r.grad_fn.next_functions[0][0]).__name__ == "CloneBackward0"
    assert torch.ravel(torch.zeros(2, 2)).shape == (4,)
    assert x.positive() is x and torch.positive(x) is x
    with pytest.raises(RuntimeError) as e:
        torch.tensor([True]).positive()
    assert str(e.value) == "The `+` operator, on a bool tensor is not supported."


def test_against_pytorch():
    real = pytest.importorskip("torch")
    names = ["float16", "float32", "float64", "int8", "uint8", "int16", "int32", "int64", "bool", "complex64",
             "complex128"]
    for a in names:
        for b in names:
            ours, theirs = (getattr(torch, a), getattr(torch, b)), (getattr(real, a), getattr(real, b))
            assert str(torch.promote_types(*ours)).split(".")[1] == str(real.promote_types(*theirs)).split(".")[1]
            assert torch.can_cast(*ours) == real.can_cast(*theirs)
        assert getattr(torch, a).is_signed == getattr(real, a).is_signed
    for idx in ([4, 1, 5, 0, 6, -1, 11], [[3]]):
        for ours, theirs in zip(torch.unravel_index(torch.tensor(idx), (3, 4)),
                                real.unravel_index(real.tensor(idx), (3, 4))):
            assert ours.tolist() == theirs.tolist()
