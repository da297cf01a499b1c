"""Selections, splits, rounding, products and the functional Jacobian of the Tensor
shim: gradients against central finite differences in float64, values and node names
as PyTorch gives them (tests/test_tensor_torch.py compares the printed text with
PyTorch itself where it is installed)."""

import re
import warnings

import numpy as np
import pytest

import srcgrad as torch

X = np.array([[1.5, -2.25, 3.0], [4.0, 0.5, -6.5]])
OPS = {  # name -> (op on a tensor, its node name)
    "gather": (lambda t: t.gather(1, torch.tensor([[2, 0, 0], [1, 1, 2]])), "GatherBackward0"),
    "index_select": (lambda t: t.index_select(1, torch.tensor([2, 0, 2])), "IndexSelectBackward0"),
    "masked_fill": (lambda t: t.masked_fill(torch.tensor(X > 2), 0.5), "MaskedFillBackward0"),
    "sort": (lambda t: t.sort(dim=1).values, "SortBackward0"),
    "sort_descending": (lambda t: t.sort(dim=0, descending=True).values, "SortBackward0"),
    "topk": (lambda t: t.topk(2).values, "TopkBackward0"),
    "topk_smallest": (lambda t: t.topk(1, dim=0, largest=False).values, "TopkBackward0"),
    "atan2": (lambda t: torch.atan2(t, t * 0.5 + 1), "Atan2Backward0"),
    "lerp_number": (lambda t: torch.lerp(t, t * t, 0.25), "LerpBackward0"),
    "lerp_tensor": (lambda t: torch.lerp(t, t * 2, t * 0.1), "LerpBackward1"),
    "triu": (lambda t: t.triu(), "TriuBackward0"),
    "tril": (lambda t: t.tril(-1), "TrilBackward0"),
    "trace": (lambda t: t[:, :2].trace(), "TraceBackward0"),
    "outer": (lambda t: torch.outer(t[0], t[1]), "MulBackward0"),
    "addmm": (lambda t: torch.addmm(t[0, :2], t[:, :2], t[:, 1:], beta=0.5, alpha=2.0), "AddmmBackward0"),
    "bmm": (lambda t: torch.bmm(t.reshape(1, 2, 3), t.reshape(1, 3, 2)), "BmmBackward0"),
}


def _numerical_vjp(op, x, seed, eps=1e-6):
    grad = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        values = []
        for step in (eps, -eps):
            moved = x.copy()
            moved[i] += step
            with torch.no_grad():
                values.append(np.sum(op(torch.tensor(moved)).numpy() * seed))
        grad[i] = (values[0] - values[1]) / (2 * eps)
    return grad


@pytest.mark.parametrize("name", sorted(OPS))
def test_gradient_matches_finite_differences(name):
    op, node = OPS[name]
    x = torch.tensor(X.copy(), requires_grad=True)
    out = op(x)
    assert type(out.grad_fn).__name__ == node and out.dtype == torch.float64
    seed = np.random.default_rng(len(name)).standard_normal(out.shape)
    out.backward(torch.tensor(seed))
    np.testing.assert_allclose(x.grad.numpy(), _numerical_vjp(op, X, seed), rtol=1e-6, atol=1e-8)
    assert np.array_equal(x.detach().numpy(), X)  # the input is unchanged


def test_values_and_analytic_gradients():
    x = torch.tensor(X.copy(), requires_grad=True)
    values, indices = x.sort(dim=1)
    assert values.tolist() == [[-2.25, 1.5, 3.0], [-6.5, 0.5, 4.0]] and indices.tolist() == [[1, 0, 2], [2, 1, 0]]
    assert indices.dtype == torch.int64 and x.argsort(dim=1).tolist() == [[1, 0, 2], [2, 1, 0]]
    values.backward(torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]))
    assert x.grad.tolist() == [[2.0, 1.0, 3.0], [6.0, 5.0, 4.0]]  # each entry's gradient follows it back
    x.grad = None
    gathered = x.gather(1, torch.tensor([[0, 0], [2, 2]]))  # a repeated index adds up
    gathered.sum().backward()
    assert gathered.tolist() == [[1.5, 1.5], [-6.5, -6.5]] and x.grad.tolist() == [[2.0, 0.0, 0.0], [0.0, 0.0, 2.0]]
    assert repr(x.topk(1)).startswith("srcgrad.return_types.topk(\nvalues=tensor([[3.],")


@pytest.mark.parametrize("name", ["sign", "floor", "ceil", "trunc", "round"])
def test_rounding_has_zero_gradient_and_pytorchs_node(name):
    x = torch.tensor([[1.5, -2.5], [0.25, 2.5]], requires_grad=True)
    out = getattr(x, name)()
    expected = getattr(np, name)(x.detach().numpy())
    assert out.tolist() == expected.tolist() and out.requires_grad and out.dtype == torch.float32
    assert type(out.grad_fn).__name__ == name.capitalize() + "Backward0"
    (out * 3).sum().backward()
    assert x.grad.tolist() == [[0.0, 0.0], [0.0, 0.0]]
    assert type(x.round(decimals=1).grad_fn).__name__ == "RoundBackward1" and x.round().tolist() == [[2.0, -2.0], [0.0, 2.0]]
    assert [type(r.grad_fn).__name__ for r in (x.round(), torch.round(x, decimals=0))] == ["RoundBackward0", "RoundBackward1"]
    ints = torch.tensor([3, -2])  # an integer is its own rounding, in its dtype (NumPy 1's floor gives floats)
    assert getattr(ints, name)().tolist() == ([1, -1] if name == "sign" else [3, -2])
    assert getattr(ints, name)().dtype == torch.int64
    with torch.no_grad():
        assert not getattr(x, name)().requires_grad


def test_splits_share_the_gradient_out_to_their_pieces():
    x = torch.tensor(X.copy(), requires_grad=True)
    for pieces, shapes, name in [
        (x.split(2, 1), [(2, 2), (2, 1)], "SplitBackward0"),
        (x.split([1, 2], 1), [(2, 1), (2, 2)], "SplitWithSizesBackward0"),
        (x.chunk(2, 1), [(2, 2), (2, 1)], "SplitBackward0"),
        (x.unbind(1), [(2,), (2,), (2,)], "UnbindBackward0"),
    ]:
        x.grad = None
        assert [p.shape for p in pieces] == shapes and {type(p.grad_fn).__name__ for p in pieces} == {name}
        sum(p.sum() * (j + 1) for j, p in enumerate(pieces)).backward()
        weights = np.concatenate([np.full(s[1] if len(s) == 2 else 1, j + 1.0) for j, s in enumerate(shapes)])
        np.testing.assert_array_equal(x.grad.numpy(), np.broadcast_to(weights, (2, 3)))
    with pytest.raises(RuntimeError, match=re.escape("split_with_sizes expects split_sizes to sum exactly to 3")):
        x.split([1, 1], 1)


def test_a_negative_dim_splits_along_that_dim_from_the_end():
    """split, chunk and unbind with dim=-1 of a 2-D tensor: the pieces of the last dim
    (they were taken along dim 0: chunk(3, -1) gave [[0, 1, 2]], [[3, 4, 5]], an empty
    piece, and unbind(-1) raised IndexError)."""
    x = torch.arange(6.0).reshape(2, 3)
    assert [p.tolist() for p in x.chunk(3, -1)] == [[[0.0], [3.0]], [[1.0], [4.0]], [[2.0], [5.0]]]
    assert [p.tolist() for p in torch.split(x, [1, 2], -1)] == [[[0.0], [3.0]], [[1.0, 2.0], [4.0, 5.0]]]
    assert [p.tolist() for p in x.unbind(-1)] == [[0.0, 3.0], [1.0, 4.0], [2.0, 5.0]]
    assert [p.shape for p in x.split(2, -2)] == [(2, 3)]


def test_closeness_inference_mode_and_bare_decorators():
    a = torch.tensor([1.0, float("nan")])
    assert torch.isclose(a, a).tolist() == [True, False] and torch.isclose(a, a, equal_nan=True).tolist() == [True, True]
    assert torch.allclose(torch.ones(2), torch.ones(2) + 1e-6) and not torch.allclose(a, a)
    x = torch.ones(2, requires_grad=True)
    with torch.inference_mode():
        assert not (x * 2).requires_grad and not torch.is_grad_enabled()
    with torch.no_grad(), torch.inference_mode(False):
        assert torch.is_grad_enabled()

    @torch.no_grad
    def doubled(t):
        return t * 2

    @torch.inference_mode
    def tripled(t):
        return t * 3

    assert not doubled(x).requires_grad and not tripled(x).requires_grad and torch.is_grad_enabled()


def test_functional_jacobian_and_gradcheck():
    jacobian = torch.autograd.functional.jacobian
    a, b = torch.tensor([1.0, 2.0]), torch.tensor([3.0, -1.0])
    ja, jb = jacobian(lambda u, v: u * v.sin(), (a, b))
    np.testing.assert_allclose(ja.numpy(), np.diag(np.sin([3.0, -1.0])), rtol=1e-6)
    np.testing.assert_allclose(jb.numpy(), np.diag([1.0, 2.0] * np.cos([3.0, -1.0])), rtol=1e-6)
    doubled, total, constant = jacobian(lambda u: (u * 2, u.sum(), u.detach()), a)
    assert doubled.tolist() == [[2.0, 0.0], [0.0, 2.0]] and total.tolist() == [1.0, 1.0] and constant.tolist() == [[0, 0], [0, 0]]
    assert a.grad is None and not a.requires_grad  # its inputs are left alone
    x64 = torch.tensor([0.3, -1.2, 2.0], dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(lambda t: (t * t.sin()).sum(), (x64,))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # float32 input: PyTorch warns too
        with pytest.raises(torch.autograd.GradcheckError, match="^Jacobian mismatch for output 0 with respect to input 0"):
            torch.autograd.gradcheck(lambda t: (t * t).sum(), (torch.ones(2, requires_grad=True),))
