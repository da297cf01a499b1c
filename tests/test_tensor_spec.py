"""The Tensor shim against tensor-spec.md: surface, dtypes, constructors, attributes,
graph nodes, backward, stopping tracking, and every error message (E1-E12)."""

import builtins
import re

import numpy as np
import pytest

import srcgrad as torch

E7 = (
    "Trying to backward through the graph a second time (or directly access saved tensors after they "
    "have already been freed). Saved intermediate values of the graph are freed when you call "
    ".backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the "
    "graph a second time or if you need to access saved tensors after calling backward."
)


def raises(exc, message):
    return pytest.raises(exc, match="^" + re.escape(message) + "$")


# --- 1. module surface, 2. dtypes ------------------------------------------------------


def test_surface_names_exist():
    for name in ["Tensor", "tensor", "ones", "zeros", "randn", "from_numpy", "matmul", "no_grad",
                 "is_grad_enabled", "Size", "float32", "float", "float64", "double", "int64", "long", "bool"]:
        assert hasattr(torch, name), name
    assert torch.nn.functional.binary_cross_entropy_with_logits is not None


def test_dtype_aliases_are_identical_and_print_with_prefix():
    assert torch.float is torch.float32 and torch.double is torch.float64 and torch.long is torch.int64
    assert repr(torch.float32) == str(torch.float32) == "srcgrad.float32"
    assert [str(d) for d in (torch.float64, torch.int64, torch.bool)] == ["srcgrad.float64", "srcgrad.int64", "srcgrad.bool"]
    assert torch.ones(2).dtype == torch.float32
    assert torch.ones(2).dtype != torch.float64


def test_default_dtype_and_is_floating_point():
    assert torch.get_default_dtype() is torch.float32
    assert torch.is_floating_point(torch.ones(2)) and torch.ones(2, dtype=torch.float16).is_floating_point()
    assert not torch.tensor([1]).is_floating_point() and not torch.is_floating_point(torch.tensor([True]))
    assert not torch.tensor([1j]).is_floating_point()
    with raises(TypeError, "is_floating_point(): argument 'input' (position 1) must be Tensor, not float"):
        torch.is_floating_point(3.0)


def test_builtins_are_intact_after_import():
    assert torch.float is not builtins.float and builtins.float("1.5") == 1.5


def test_size_repr():
    assert repr(torch.ones(2, 2).shape) == "srcgrad.Size([2, 2])"
    assert str(torch.tensor(1.0).size()) == "srcgrad.Size([])"
    assert torch.ones(2, 3).size() == (2, 3) and torch.ones(2, 3).size(1) == 3
    assert isinstance(torch.ones(2).shape, torch.Size)


def test_float32_storage_is_real():
    t = torch.tensor(0.1)
    assert t.item() == 0.10000000149011612
    assert t.numpy().dtype == np.float32


@pytest.mark.parametrize(
    "data, dtype",
    [([1.0, 2.0], "float32"), ([1, 2.5], "float32"), ([1, 2], "int64"), ([True, False], "bool"),
     (np.ones(2), "float64"), (np.ones(2, np.float32), "float32"), (3, "int64"), (2.0, "float32")],
)
def test_tensor_dtype_inference(data, dtype):
    assert torch.tensor(data).dtype.name == dtype


def test_explicit_dtype_converts_python_numbers_directly():
    # never through the inferred float32: -1.2 would become -1.2000000476837158
    assert torch.tensor([-1.2, 0.1], dtype=torch.float64).tolist() == [-1.2, 0.1]
    assert torch.tensor(0.1, dtype=torch.float64).item() == 0.1
    assert torch.tensor([[1, 2]], dtype=torch.float64).dtype == torch.float64
    assert torch.tensor([1.9, -1.9], dtype=torch.int64).tolist() == [1, -1]
    assert torch.tensor([-1.2], dtype=torch.float32).item() == float(np.float32(-1.2))
    assert torch.tensor(np.array([0.1]), dtype=torch.float32).item() == float(np.float32(0.1))
    assert torch.tensor([torch.tensor(0.1, dtype=torch.float64)], dtype=torch.float64).item() == 0.1


def test_promotion():
    f32, f64, i64 = torch.ones(2), torch.ones(2, dtype=torch.float64), torch.tensor([1, 2])
    assert (f32 * 2).dtype == torch.float32 and (f32 + 0.5).dtype == torch.float32
    assert (2 * f32).dtype == torch.float32
    assert (i64 * 0.5).dtype == torch.float32 and (i64 + 1).dtype == torch.int64
    assert (f32 * f64).dtype == torch.float64
    assert (i64 / 2).dtype == torch.float32 and (i64 / 2).tolist() == [0.5, 1.0]
    assert (f32 < 2).dtype == torch.bool and f32.eq(f32).dtype == torch.bool
    assert (torch.ones(3, dtype=torch.float64) * torch.tensor(2.0)).dtype == torch.float64  # 0-d does not widen


def test_float32_arithmetic_digits():
    x = torch.tensor([0.1, 0.2]) * 3
    expected = (np.array([0.1, 0.2], np.float32) * np.float32(3)).tolist()
    assert x.tolist() == expected


def test_only_floating_tensors_require_grad():
    with raises(RuntimeError, "Only Tensors of floating point and complex dtype can require gradients"):
        torch.tensor([1, 2], requires_grad=True)  # E6
    with raises(RuntimeError, "only Tensors of floating point dtype can require gradients"):
        torch.tensor([1, 2]).requires_grad_(True)  # E5
    with raises(RuntimeError, "only Tensors of floating point dtype can require gradients"):
        torch.tensor([True]).requires_grad_()


# --- 3. constructors -------------------------------------------------------------------


def test_constructors():
    assert repr(torch.tensor(1.0)) == "tensor(1.)"
    assert torch.ones(2, 2).shape == (2, 2) and torch.zeros((2, 3)).shape == (2, 3)
    assert torch.ones([4]).shape == (4,)
    assert torch.ones(1, requires_grad=True).shape == (1,)
    assert torch.zeros(2, dtype=torch.float64).dtype == torch.float64
    assert torch.randn(3, 4).dtype == torch.float32 and torch.randn((2, 5)).shape == (2, 5)
    t = torch.randn(2, requires_grad=True)
    assert t.is_leaf and t.grad_fn is None and t.grad is None and t.requires_grad


def test_tensor_copies_its_data():
    a = np.ones(3, np.float32)
    t = torch.tensor(a)
    a[0] = 5
    assert t.tolist() == [1.0, 1.0, 1.0]


def test_from_numpy_shares_memory_both_ways():
    a = 2 * np.ones((2, 2), dtype=np.float32)
    t = torch.from_numpy(a)
    assert not t.requires_grad and t.dtype == torch.float32
    a[0, 0] = 7
    assert t[0, 0].item() == 7.0
    t.data[1, 1] = 9
    assert a[1, 1] == 9
    assert repr(torch.from_numpy(np.ones(2))) == "tensor([1., 1.], dtype=srcgrad.float64)"
    assert repr(torch.from_numpy(2 * np.ones((2, 2), dtype=np.float32)).requires_grad_(True)) == (
        "tensor([[2., 2.],\n        [2., 2.]], requires_grad=True)"
    )


def test_manual_seed_reproduces_randn():
    torch.manual_seed(3)
    a = torch.randn(4)
    torch.manual_seed(3)
    assert torch.randn(4).tolist() == a.tolist()


# --- 4. attributes and methods -----------------------------------------------------------


def test_randint_takes_high_then_size():
    """`randint(high, size)` is PyTorch's short form; the size was read as `high`."""
    torch.manual_seed(0)
    t = torch.randint(5, (300, 2))
    assert t.shape == (300, 2) and t.dtype == torch.int64
    assert t.min().item() == 0 and t.max().item() == 4
    u = torch.randint(2, 5, (300,))
    assert u.shape == (300,) and u.min().item() == 2 and u.max().item() == 4


def test_requires_grad_flag_rules():
    a = torch.randn(2, 2)
    a = (a * 3) / (a - 1)
    assert a.requires_grad is False and a.is_leaf
    assert a.requires_grad_(True) is a and a.requires_grad
    b = a * a
    assert b.requires_grad and not b.is_leaf
    assert b.requires_grad_(True) is b  # the method allows it: b already requires grad
    with raises(RuntimeError, "you can only change requires_grad flags of leaf variables."):
        b.requires_grad = True  # PyTorch's setter refuses any change on a non-leaf, with this shorter text
    e4 = ("you can only change requires_grad flags of leaf variables. If you want to use a computed "
          "variable in a subgraph that doesn't require differentiation use var_no_grad = var.detach().")
    with raises(RuntimeError, e4):
        b.requires_grad = False
    with raises(RuntimeError, e4):
        b.requires_grad_(False)
    a.requires_grad = False
    assert not a.requires_grad


def test_grad_assignment_is_checked_as_in_pytorch():
    x = torch.ones(3, requires_grad=True)
    size = "attempting to assign a gradient of size '[{}]' to a tensor of size '[3]'. Please ensure that the gradient and the tensor are the same size"
    dtype = ("attempting to assign a gradient with dtype '{}' to a tensor with grad_dtype 'Float'. The gradient must "
             "match the tensor's grad_dtype (defaults to the tensor's dtype). You can set the tensor's grad_dtype attribute "
             "with a specific dtype, or None to allow any dtype. Set grad_dtype with caution. Diverging the dtypes of a "
             "tensor and its gradient may break downstream systems that assume they match.")
    for value, exc, message in [(torch.ones(2), RuntimeError, size.format(2)), (torch.ones(1, 3), RuntimeError, size.format("1, 3")),
                                (torch.ones(3, dtype=torch.float64), RuntimeError, dtype.format("double")),
                                (torch.ones(2, dtype=torch.int64), RuntimeError, dtype.format("long int")),
                                (torch.ones(3, dtype=torch.bool), RuntimeError, dtype.format("bool")),
                                (3, TypeError, "assigned grad expected to be a Tensor or None but got grad of type int")]:
        with raises(exc, message):
            x.grad = value
        assert x.grad is None
    g = torch.full((3,), 2.0)
    x.grad = g
    assert x.grad is g
    x.grad = None
    assert x.grad is None


def test_item_assignment_into_a_leaf_that_requires_grad_names_the_view():
    x = torch.ones(3, requires_grad=True)
    with raises(RuntimeError, "a view of a leaf Variable that requires grad is being used in an in-place operation."):
        x[0] = 2.0
    assert x.tolist() == [1.0, 1.0, 1.0]


def test_data_property_shares_storage_and_has_a_setter():
    x = torch.ones(1, requires_grad=True)
    d = x.data
    assert not d.requires_grad and d.grad_fn is None and d.is_leaf
    x.data *= 100
    assert repr(x) == "tensor([100.], requires_grad=True)"
    x.data = torch.tensor([5.0])
    assert x.item() == 5.0 and x.requires_grad


@pytest.mark.parametrize("value, error, message", [  # PyTorch 2.13's errors
    (3, TypeError, "Variable data has to be a tensor, but got int"),
    ([1.0], TypeError, "Variable data has to be a tensor, but got list"),
    (None, TypeError, "Variable data has to be a tensor, but got NoneType"),
    (torch.ones(3, dtype=torch.int64), RuntimeError,
     "data set to a tensor that requires gradients must be floating point or complex dtype"),
])
def test_data_setter_refuses_what_pytorch_refuses(value, error, message):
    x = torch.ones(2, requires_grad=True)
    with raises(error, message):
        x.data = value
    assert x.tolist() == [1.0, 1.0] and x.dtype == torch.float32


@pytest.mark.parametrize("move", [
    lambda t: t.to("cuda"), lambda t: t.to("cuda:0"), lambda t: t.to(torch.device("cuda")), lambda t: t.to(device="cuda"),
    lambda t: t.cuda(), lambda t: torch.nn.Linear(2, 2).to("cuda"),
])
def test_moving_to_cuda_raises_the_cpu_builds_error(move):
    x = torch.ones(2, requires_grad=True)
    with raises(AssertionError, "Torch not compiled with CUDA enabled"):
        move(x)
    assert x.to("cpu") is x and x.to(torch.device("cpu"), torch.float64).dtype == torch.float64


def test_detach_numpy_item():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    d = x.detach()
    assert not d.requires_grad and d.grad_fn is None
    d.numpy()[0] = 3.0
    assert x.tolist() == [3.0, 2.0]
    with raises(RuntimeError, "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead."):
        x.numpy()
    assert x.detach().numpy().dtype == np.float32
    with raises(RuntimeError, "a Tensor with 2 elements cannot be converted to Scalar"):
        x.item()
    assert torch.ones(1, requires_grad=True).item() == 1.0
    assert isinstance(torch.tensor(3).item(), int) and isinstance(torch.tensor(True).item(), bool)
    assert isinstance(torch.tensor(2.5).item(), float)


def test_bool_and_comparisons():
    with raises(RuntimeError, "Boolean value of Tensor with more than one value is ambiguous"):
        bool(torch.ones(2))
    assert bool(torch.tensor([3.0]) < 4)
    assert repr(torch.tensor([1.0, 5.0]) < 2) == "tensor([ True, False])"
    y = torch.randn(3, requires_grad=True)
    assert not (y < 0).requires_grad and not y.eq(y).requires_grad
    assert repr(y.eq(y.detach()).all()) == "tensor(True)"


def test_norm_gradient_is_zero_at_zero():
    for shape in [(3,), (2, 2)]:
        x = torch.zeros(*shape, requires_grad=True)
        x.norm().backward()
        assert x.grad.numpy().tolist() == np.zeros(shape).tolist()
    x = torch.tensor([3.0, 4.0], requires_grad=True)
    x.norm().backward()
    np.testing.assert_allclose(x.grad.numpy(), [0.6, 0.8], rtol=1e-6)


def test_norm_sum_mean_dim_numel():
    assert repr(torch.tensor([3.0, 4.0]).norm()) == "tensor(5.)"
    assert torch.ones(2, 2).norm().item() == 2.0
    assert torch.tensor([1, 2]).sum().dtype == torch.int64
    assert repr(torch.tensor([1, 2]).sum()) == "tensor(3)"
    with raises(RuntimeError, "mean(): could not infer output dtype. Input dtype must be either a floating "
                              "point or complex dtype. Got: Long"):
        torch.tensor([1, 2]).mean()
    t = torch.ones(2, 3)
    assert t.dim() == 2 and t.numel() == 6 and isinstance(t.numel(), int)


def test_in_place_ops_and_leaf_rule():
    e11 = "a leaf Variable that requires grad is being used in an in-place operation."
    x = torch.ones(2, requires_grad=True)
    with raises(RuntimeError, e11):
        x.zero_()
    with raises(RuntimeError, e11):
        x *= 2
    with torch.no_grad():
        x *= 2
    assert x.tolist() == [2.0, 2.0] and x.requires_grad and x.is_leaf
    (x * 3).sum().backward()
    g = x.grad
    assert x.grad.zero_() is g and g.tolist() == [0.0, 0.0]
    assert x.grad.data.zero_().tolist() == [0.0, 0.0]


def test_in_place_on_a_non_leaf_is_recorded():
    x = torch.ones(2, requires_grad=True)
    y = x * 2
    y *= 3
    assert type(y.grad_fn).__name__ == "MulBackward0"
    y.sum().backward()
    assert x.grad.tolist() == [6.0, 6.0]


# --- 5. operations, 6. graph nodes ------------------------------------------------------


def _name(t):
    return type(t.grad_fn).__name__


def test_node_names():
    a = torch.ones(2, 2, requires_grad=True)
    v = torch.ones(2, requires_grad=True)
    cases = {
        "AddBackward0": [a + a, a + 2, 2 + a],
        "SubBackward0": [a - a, a - 1],
        "RsubBackward1": [2 - a],
        "MulBackward0": [a * a, a * 3, 2 * a, 2 / a],
        "DivBackward0": [a / a, a / 2],
        "PowBackward0": [a ** 2],
        "PowBackward1": [a ** a],
        "PowBackward2": [2 ** a],
        "NegBackward0": [-a],
        "SumBackward0": [a.sum()],
        "MeanBackward0": [a.mean()],
        "LinalgVectorNormBackward0": [a.norm()],
        "SqueezeBackward4": [torch.matmul(v, a), v @ a],
        "MmBackward0": [torch.matmul(a, a)],
        "MvBackward0": [torch.matmul(a, v)],
        "DotBackward0": [torch.matmul(v, v)],
    }
    for name, results in cases.items():
        for r in results:
            assert _name(r) == name
            assert r.grad_fn.name() == name
            assert r.requires_grad and not r.is_leaf
    loss = torch.nn.functional.binary_cross_entropy_with_logits(v, torch.zeros(2))
    assert _name(loss) == "BinaryCrossEntropyWithLogitsBackward0"
    for red in ("sum", "none"):
        assert _name(torch.nn.functional.binary_cross_entropy_with_logits(v, torch.zeros(2), reduction=red)) == (
            "BinaryCrossEntropyWithLogitsBackward0")


def test_node_repr_has_no_module_prefix():
    y = torch.ones(2, requires_grad=True) + 2
    text = repr(y.grad_fn)
    assert re.fullmatch(r"<AddBackward0 object at 0x[0-9a-f]+>", text)
    assert str(y.grad_fn) == text and text == "<AddBackward0 object at %#x>" % id(y.grad_fn)


def test_next_functions():
    x = torch.ones(2, requires_grad=True)
    y = x * 2
    (acc, zero), (none, zero2) = y.grad_fn.next_functions
    assert type(acc).__name__ == "AccumulateGrad" and acc.variable is x and none is None
    s = (x + 1).sum()
    assert s.grad_fn.next_functions[0][0] is not None


def test_untracked_ops_give_leaves():
    x = torch.ones(2)
    y = x * 2 + 1
    assert y.is_leaf and y.grad_fn is None and not y.requires_grad
    w = torch.ones(2, requires_grad=True)
    for t in (w.detach(), w.data, w.eq(w), w.all(), w < 1):
        assert t.grad_fn is None and not t.requires_grad


def test_bce_size_mismatch():
    with raises(ValueError, "Target size (srcgrad.Size([2])) must be the same as input size (srcgrad.Size([3]))"):
        torch.nn.functional.binary_cross_entropy_with_logits(torch.ones(3), torch.zeros(2))


def test_typical_expression_prints_add():
    w = torch.ones(5, 3, requires_grad=True)
    b = torch.ones(3, requires_grad=True)
    assert _name(torch.matmul(torch.ones(5), w) + b) == "AddBackward0"


# --- 7. backward -----------------------------------------------------------------------


def test_backward_errors_in_order():
    y = torch.ones(3, requires_grad=True) * 2
    with raises(RuntimeError, "Mismatch in shape: grad_output[0] has a shape of srcgrad.Size([2]) and "
                              "output[0] has a shape of srcgrad.Size([3])."):
        y.backward(torch.ones(2))
    with raises(RuntimeError, "Mismatch in shape: grad_output[0] has a shape of srcgrad.Size([2]) and "
                              "output[0] has a shape of srcgrad.Size([3])."):
        torch.ones(3).backward(torch.ones(2))  # E2 even without grad
    with raises(RuntimeError, "Mismatch in shape: grad_output[0] has a shape of srcgrad.Size([3]) and "
                              "output[0] has a shape of srcgrad.Size([])."):
        torch.ones(2, requires_grad=True).sum().backward(torch.ones(3))
    e3 = "element 0 of tensors does not require grad and does not have a grad_fn"
    with raises(RuntimeError, e3):
        torch.ones(3).backward()  # E3 wins over E1
    with raises(RuntimeError, e3):
        torch.tensor(1.0).backward()
    with raises(RuntimeError, "grad can be implicitly created only for scalar outputs"):
        y.backward()


def test_failed_backward_leaves_graph_intact():
    x = torch.ones(3, requires_grad=True)
    y = x * 2
    with pytest.raises(RuntimeError):
        y.backward()
    assert x.grad is None
    y.backward(torch.tensor([0.1, 1.0, 0.001]))
    assert x.grad.tolist() == (np.array([0.1, 1.0, 0.001], np.float32) * 2).tolist()


def test_numel_one_is_enough_for_implicit_gradient():
    x = torch.ones(1, requires_grad=True)
    (x * 3).backward()
    assert x.grad.tolist() == [3.0]


def test_explicit_gradient_is_cast_to_output_dtype():
    x = torch.ones(2, requires_grad=True)
    (x * 2).backward(torch.ones(2, dtype=torch.float64))
    assert x.grad.dtype == torch.float32


def test_leaf_backward_accumulates_into_itself():
    x = torch.ones(2, requires_grad=True)
    x.backward(torch.tensor([1.0, 2.0]))
    assert x.grad.tolist() == [1.0, 2.0]


def test_same_tensor_by_two_paths():
    x = torch.tensor([3.0], requires_grad=True)
    y = x * 1
    (y * y).backward()
    assert x.grad.tolist() == [6.0]


def test_accumulation_across_calls_keeps_identity():
    x = torch.ones(2, 2, requires_grad=True)
    out = (3 * (x ** 2) ** 2).mean()
    out.backward()
    assert x.grad.tolist() == [[3.0, 3.0], [3.0, 3.0]]
    g = x.grad
    x.sum().backward()
    assert x.grad is g and g.tolist() == [[4.0, 4.0], [4.0, 4.0]]
    x.grad.data.zero_()
    x.sum().backward()
    assert x.grad.tolist() == [[1.0, 1.0], [1.0, 1.0]]
    assert not x.grad.requires_grad and x.grad.grad_fn is None and x.grad.dtype == torch.float32


def test_unreached_leaf_and_non_leaf_have_no_grad():
    x = torch.ones(2, requires_grad=True)
    unused = torch.ones(2, requires_grad=True)
    y = x * 2
    y.sum().backward()
    assert unused.grad is None
    with pytest.warns(UserWarning) as record:
        assert y.grad is None
    assert [str(w.message) for w in record] == [
        "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad attribute won't be "
        "populated during autograd.backward(). If you indeed want the .grad field to be populated for a non-leaf Tensor, "
        "use .retain_grad() on the non-leaf Tensor. If you access the non-leaf Tensor by mistake, make sure you access "
        "the leaf Tensor instead. See github.com/pytorch/pytorch/pull/30531 for more information."
    ]


def test_retain_grad_on_non_leaf():
    x = torch.ones(2, requires_grad=True)
    y = x * 2
    y.retain_grad()
    (y * y).sum().backward()
    assert y.grad.tolist() == [4.0, 4.0]


def test_second_backward_through_nodes_without_saved_tensors_works():
    x = torch.ones(2, requires_grad=True)
    o = (x + 2).sum()
    o.backward()
    o.backward()
    assert x.grad.tolist() == [2.0, 2.0]
    m = (x - 1).mean()
    m.backward()
    m.backward()
    assert x.grad.tolist() == [3.0, 3.0]


@pytest.mark.parametrize("build", [lambda x: (x * x).sum(), lambda x: (x * 2 * 2).sum(),
                                   lambda x: (x * 2).sum(), lambda x: (x / 2).sum(),
                                   lambda x: (x ** 2).sum(), lambda x: x.norm(),
                                   lambda x: torch.matmul(x, torch.ones(2, 2)).sum(),
                                   lambda x: torch.nn.functional.binary_cross_entropy_with_logits(x, torch.zeros(2))])
def test_second_backward_through_saving_nodes_raises_and_changes_nothing(build):
    x = torch.ones(2, requires_grad=True)
    o = build(x)
    o.backward()
    before = x.grad.tolist()
    with raises(RuntimeError, E7):
        o.backward()
    assert x.grad.tolist() == before


def test_retain_graph_allows_a_second_pass():
    x = torch.ones(2, requires_grad=True)
    o = (x * x).sum()
    o.backward(retain_graph=True)
    o.backward(retain_graph=True)
    assert x.grad.tolist() == [4.0, 4.0]
    o.backward()
    with raises(RuntimeError, E7):
        o.backward()


def test_powers_of_two_chain():
    x = torch.tensor([0.5, -0.25, 1.0], requires_grad=True)
    y = x * 2
    for _ in range(10):
        y = y * 2
    v = torch.tensor([0.1, 1.0, 0.001], dtype=torch.float)
    y.backward(v)
    assert repr(x.grad) == "tensor([ 204.8000, 2048.0000,    2.0480])"


# --- 8. stopping tracking --------------------------------------------------------------


def test_no_grad_block_nests_restores_and_keeps_leaf_flags():
    x = torch.ones(2, requires_grad=True)
    assert torch.is_grad_enabled()
    with torch.no_grad():
        assert not (x ** 2).requires_grad and (x ** 2).grad_fn is None
        assert repr(x) == "tensor([1., 1.], requires_grad=True)"
        with torch.no_grad():
            assert not torch.is_grad_enabled()
        assert not torch.is_grad_enabled()
    assert torch.is_grad_enabled() and (x ** 2).requires_grad
    with pytest.raises(ZeroDivisionError):
        with torch.no_grad():
            1 / 0
    assert torch.is_grad_enabled()


def test_no_grad_decorator():
    @torch.no_grad()
    def f(t):
        return t * 2

    assert not f(torch.ones(1, requires_grad=True)).requires_grad
    assert torch.is_grad_enabled()


def test_data_changes_are_not_seen_by_saved_constants():
    x = torch.ones(1, requires_grad=True)
    y = 2 * x
    x.data *= 100
    y.backward()
    assert repr(x) == "tensor([100.], requires_grad=True)" and repr(x.grad) == "tensor([2.])"


# --- dims out of range, and the dims of a 0-d tensor ------------------------------------
# PyTorch wraps a dim into [-n, n - 1], n = max(ndim, 1): a 0-d tensor takes dim 0 and -1
# (its one element); other dims raise IndexError. Expected text from PyTorch 2.13.

_DIM_CASES = [
    (lambda x, y: x.mean(-1), "tensor(3., grad_fn=<MeanBackward1>)"),
    (lambda x, y: x.max(-1)[0], "tensor(3., grad_fn=<MaxBackward0>)"),
    (lambda x, y: x.argmax(0), "tensor(0)"),
    (lambda x, y: x.transpose(0, -1), "tensor(3., grad_fn=<TransposeBackward0>)"),
    (lambda x, y: x.norm(dim=0), "tensor(3., grad_fn=<LinalgVectorNormBackward0>)"),
    (lambda x, y: x.sum(1), "IndexError: Dimension out of range (expected to be in range of [-1, 0], but got 1)"),
    (lambda x, y: x.softmax(1), "IndexError: Dimension out of range (expected to be in range of [-1, 0], but got 1)"),
    (lambda x, y: y.sum(2), "IndexError: Dimension out of range (expected to be in range of [-2, 1], but got 2)"),
    (lambda x, y: y.mean(-3), "IndexError: Dimension out of range (expected to be in range of [-2, 1], but got -3)"),
    (lambda x, y: y.sum((0, 2)), "IndexError: Dimension out of range (expected to be in range of [-2, 1], but got 2)"),
    (lambda x, y: y.max(2), "IndexError: Dimension out of range (expected to be in range of [-2, 1], but got 2)"),
    (lambda x, y: y.argmin(-3), "IndexError: Dimension out of range (expected to be in range of [-2, 1], but got -3)"),
    (lambda x, y: y.transpose(0, 2), "IndexError: Dimension out of range (expected to be in range of [-2, 1], but got 2)"),
    (lambda x, y: y.log_softmax(5), "IndexError: Dimension out of range (expected to be in range of [-2, 1], but got 5)"),
    (lambda x, y: y.norm(dim=2), "IndexError: Dimension out of range (expected to be in range of [-2, 1], but got 2)"),
    (lambda x, y: y.sum((0, -1)), "tensor(6., grad_fn=<SumBackward1>)"),
]


@pytest.mark.parametrize("case, expected", _DIM_CASES)
def test_dims_are_checked_and_wrapped_as_in_pytorch(case, expected):
    x, y = torch.tensor(3.0, requires_grad=True), torch.ones(2, 3, requires_grad=True)
    try:
        got = repr(case(x, y))
    except IndexError as exc:
        got = f"{type(exc).__name__}: {exc}"
    assert got == expected
