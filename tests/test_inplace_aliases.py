"""PyTorch's in-place comparisons, cumulative ops and long-named arithmetic in place
(srcgrad/tensor/inplace_aliases.py): values, dtypes, grad_fn names and errors as
PyTorch 2.13's (stored), gradients against central differences."""

import numpy as np
import pytest

import srcgrad as torch

E11 = "a leaf Variable that requires grad is being used in an in-place operation."
A, B = [1.0, 2.0, 3.0], [2.0, 2.0, 2.0]

COMPARISONS = {
    "eq_": [0, 1, 0], "ne_": [1, 0, 1], "not_equal_": [1, 0, 1], "lt_": [1, 0, 0], "less_": [1, 0, 0],
    "le_": [1, 1, 0], "less_equal_": [1, 1, 0], "gt_": [0, 0, 1], "greater_": [0, 0, 1],
    "ge_": [0, 1, 1], "greater_equal_": [0, 1, 1],
}
NODE = {"eq_": "Eq", "ne_": "Ne", "not_equal_": "Ne", "lt_": "Lt", "less_": "Lt", "le_": "Le", "less_equal_": "Le",
        "gt_": "Gt", "greater_": "Gt", "ge_": "Ge", "greater_equal_": "Ge"}


@pytest.mark.parametrize("name", sorted(COMPARISONS))
def test_comparison_in_place_writes_ones_and_zeros_in_self_dtype(name):
    x = torch.tensor(A)
    assert getattr(x, name)(torch.tensor(B)) is x
    assert x.dtype == torch.float32 and x.tolist() == COMPARISONS[name]
    i = torch.tensor([1, 2, 3])
    getattr(i, name)(2)
    assert i.dtype == torch.int64 and i.tolist() == COMPARISONS[name]


@pytest.mark.parametrize("name", sorted(COMPARISONS))
def test_comparison_in_place_recorded_with_zero_gradient(name):
    x = torch.tensor(A, requires_grad=True)
    y = x * 1
    getattr(y, name)(torch.tensor(B))
    assert type(y.grad_fn).__name__ == NODE[name] + "Backward1"
    z = x * 1
    getattr(z, name)(2)
    assert type(z.grad_fn).__name__ == NODE[name] + "Backward0"
    (y.sum() + z.sum()).backward()
    assert x.grad.tolist() == [0.0, 0.0, 0.0]
    with pytest.raises(RuntimeError) as e:
        getattr(x, name)(torch.tensor(B))
    assert str(e.value) == E11


def test_comparison_in_place_errors_as_pytorch():
    with pytest.raises(RuntimeError) as e:
        torch.zeros(3).eq_(torch.zeros(2, 3))
    assert str(e.value) == "output with shape [3] doesn't match the broadcast shape [2, 3]"
    b = torch.tensor([True, False])
    b.lt_(1)
    assert b.tolist() == [False, True]
    x = torch.tensor(A, requires_grad=True) * 1
    x[1:].eq_(2.0)  # into a view: through the base's CopySlices
    assert x.tolist() == [1.0, 1.0, 0.0] and type(x.grad_fn).__name__ == "CopySlices"


ARITHMETIC = [  # method, other, values, grad_fn (tracked, other a tensor)
    ("remainder_", B, [1.0, 0.0, 1.0], "RemainderBackward1"),
    ("atan2_", B, [0.4636, 0.7854, 0.9828], "Atan2Backward0"),
    ("arctan2_", B, [0.4636, 0.7854, 0.9828], "Atan2Backward0"),
    ("floor_divide_", B, [0.0, 1.0, 1.0], "NotImplemented"),
    ("true_divide_", B, [0.5, 1.0, 1.5], "DivBackward0"),
    ("divide_", B, [0.5, 1.0, 1.5], "DivBackward0"),
    ("subtract_", B, [-1.0, 0.0, 1.0], "SubBackward0"),
    ("multiply_", B, [2.0, 4.0, 6.0], "MulBackward0"),
]


@pytest.mark.parametrize("name,other,values,node", ARITHMETIC)
def test_arithmetic_in_place(name, other, values, node):
    x = torch.tensor(A, requires_grad=True)
    y = x * 1
    assert getattr(y, name)(torch.tensor(other)) is y
    assert np.round(y.detach().numpy().astype(float), 4).tolist() == values and type(y.grad_fn).__name__ == node
    plain = torch.tensor(A)
    getattr(plain, name)(torch.tensor(other))
    assert np.round(plain.numpy().astype(float), 4).tolist() == values
    with pytest.raises(RuntimeError) as e:
        getattr(x, name)(torch.tensor(other))
    assert str(e.value) == E11


def test_arithmetic_in_place_casts_and_keywords():
    with pytest.raises(RuntimeError) as e:
        torch.tensor([1, 2, 3]).divide_(2)
    assert str(e.value) == "result type Float can't be cast to the desired output type Long"
    with pytest.raises(TypeError) as e:
        torch.tensor(A).arctan2_(2)
    assert str(e.value) == "arctan2_(): argument 'other' (position 1) must be Tensor, not int"
    assert torch.tensor([1.0, -3.0]).divide_(torch.tensor(2.0), rounding_mode="floor").tolist() == [0.0, -2.0]
    y = torch.tensor([1.0, -3.0], requires_grad=True) * 1
    y.divide_(2, rounding_mode="trunc")
    assert y.tolist() == [0.0, -1.0] and type(y.grad_fn).__name__ == "DivBackward2"
    x = torch.tensor(A, requires_grad=True)
    y = x * 1
    y.subtract_(torch.tensor(B), alpha=2)
    assert y.tolist() == [-3.0, -2.0, -1.0] and type(y.grad_fn).__name__ == "SubBackward0"
    assert torch.tensor([1, 2, 3]).multiply_(2).tolist() == [2, 4, 6]


def test_cumulative_and_triangles_in_place():
    m = [[1.0, 2.0], [3.0, 4.0]]
    cases = [("cumsum_", (0,), [[1.0, 2.0], [4.0, 6.0]], "CumsumBackward0"),
             ("cumprod_", (1,), [[1.0, 2.0], [3.0, 12.0]], "CumprodBackward0"),
             ("tril_", (), [[1.0, 0.0], [3.0, 4.0]], "TrilBackward0"),
             ("triu_", (1,), [[0.0, 2.0], [0.0, 0.0]], "TriuBackward0")]
    for name, args, values, node in cases:
        y = torch.tensor(m, requires_grad=True) * 1
        getattr(y, name)(*args)
        assert y.tolist() == values and type(y.grad_fn).__name__ == node
        i = torch.tensor([[1, 2], [3, 4]])
        getattr(i, name)(*args)
        assert i.dtype == torch.int64 and i.tolist() == [[int(v) for v in r] for r in values]
    with pytest.raises(RuntimeError) as e:
        torch.tensor([1, 2]).cumsum_(0, dtype=torch.float32)
    assert str(e.value) == "Bad in-place call: input tensor dtype long int and output tensor dtype float should match"
    assert torch.tensor([1, 2]).cumsum_(0, dtype=torch.int64).tolist() == [1, 3]


def test_lerp_and_addmm_in_place():
    y = torch.tensor(A, requires_grad=True) * 1
    y.lerp_(torch.tensor(B), 0.25)
    assert y.tolist() == [1.25, 2.0, 2.75] and type(y.grad_fn).__name__ == "LerpBackward0"
    y = torch.ones(2, 2, requires_grad=True) * 1
    y.addmm_(torch.tensor([[1.0, 2.0], [3.0, 4.0]]), torch.tensor([[1.0, 0.0], [2.0, 1.0]]), beta=2, alpha=0.5)
    assert y.tolist() == [[4.5, 3.0], [7.5, 4.0]] and type(y.grad_fn).__name__ == "AddmmBackward0"


def test_in_place_gradients_match_central_differences():
    x0 = np.array([0.3, -1.2, 2.0])
    w = np.array([0.7, -0.4, 1.1])

    def f(x):
        t = torch.tensor(x, dtype=torch.float64, requires_grad=True)
        y = t * 1
        y.cumsum_(0).multiply_(torch.tensor(w)).atan2_(torch.tensor([1.5, 0.5, -2.0], dtype=torch.float64))
        return t, (y * y).sum()

    t, out = f(x0)
    out.backward()
    eps = 1e-6
    numeric = [(f(x0 + eps * e)[1].item() - f(x0 - eps * e)[1].item()) / (2 * eps) for e in np.eye(3)]
    np.testing.assert_allclose(t.grad.numpy(), numeric, rtol=1e-6, atol=1e-8)


def test_against_pytorch():
    real = pytest.importorskip("torch")
    for name in list(COMPARISONS) + [a[0] for a in ARITHMETIC]:
        got, want = torch.tensor(A), real.tensor(A)
        getattr(got, name)(torch.tensor(B))
        getattr(want, name)(real.tensor(B))
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6)  # atan2: within an ulp
        ys = [lib.tensor(A, requires_grad=True) * 1 for lib in (torch, real)]
        for y, lib in zip(ys, (torch, real)):
            getattr(y, name)(lib.tensor(B))
        assert type(ys[0].grad_fn).__name__ == type(ys[1].grad_fn).__name__
