"""Combining, splitting and matrix-making functions of the Tensor shim (combining.py,
splitting.py, matrix_makers.py, fliplr/flipud): values against NumPy, shapes and dtypes,
PyTorch 2.13's node names (written in), gradients against central differences in
float64, second derivatives where the op is not linear, and PyTorch's errors. Where
PyTorch is installed, `test_against_pytorch` compares every case with it too."""

import re
import warnings

import numpy as np
import pytest

import srcgrad as torch
from tensor_checks import check_against_differences, check_second_against_differences

_rng = np.random.default_rng(11)


def U(*shape):
    return _rng.uniform(-2.0, 2.0, size=shape)


def _flat(out, T=torch):
    """One tensor of every output's entries (several outputs: joined)."""
    if isinstance(out, (tuple, list)):
        return T.cat([o.reshape(-1) for o in out])
    return out


def _np_meshgrid_xy(a, b, c):
    return np.meshgrid(a, b, c, indexing="xy")


def _np_block_diag(*arrays):
    arrays = [np.atleast_2d(a) for a in arrays]
    out = np.zeros((sum(a.shape[0] for a in arrays), sum(a.shape[1] for a in arrays)))
    r = c = 0
    for a in arrays:
        out[r:r + a.shape[0], c:c + a.shape[1]] = a
        r, c = r + a.shape[0], c + a.shape[1]
    return out


def _np_combinations(a, r, replacement=False):
    import itertools

    pick = itertools.combinations_with_replacement if replacement else itertools.combinations
    return np.array([[a[i] for i in rows] for rows in pick(range(len(a)), r)])


def _np_diag_embed(a, offset, dim1, dim2):
    n = a.shape[-1] + abs(offset)
    out = np.zeros(a.shape[:-1] + (n, n))
    rows = np.arange(a.shape[-1]) + max(-offset, 0)
    out[..., rows, rows + offset] = a
    return np.moveaxis(out, (-2, -1), (dim1, dim2))


# (label, expression of T and a0, a1, ..., inputs, NumPy's value (a list for several outputs), node names)
CASES = [
    ("hstack", "T.hstack([a0, a1])", [U(2, 3), U(2, 2)], lambda a, b: np.hstack([a, b]), ["CatBackward0"]),
    ("hstack vectors", "T.hstack([a0, a1])", [U(), U(2)], lambda a, b: np.hstack([a, b]), ["CatBackward0"]),
    ("vstack", "T.vstack([a0, a1])", [U(2, 3), U(3)], lambda a, b: np.vstack([a, b]), ["CatBackward0"]),
    ("row_stack", "T.row_stack([a0, a1])", [U(3), U(3)], lambda a, b: np.vstack([a, b]), ["CatBackward0"]),
    ("dstack", "T.dstack([a0, a1])", [U(2, 3), U(2, 3)], lambda a, b: np.dstack([a, b]), ["CatBackward0"]),
    ("dstack vectors", "T.dstack((a0, a1))", [U(3), U(3)], lambda a, b: np.dstack([a, b]), ["CatBackward0"]),
    ("column_stack", "T.column_stack([a0, a1, a2])", [U(3), U(3, 2), U(3)], lambda a, b, c: np.column_stack([a, b, c]),
     ["CatBackward0"]),
    ("meshgrid ij", "T.meshgrid(a0, a1, indexing='ij')", [U(3), U(2)], lambda a, b: np.meshgrid(a, b, indexing="ij"),
     ["ExpandBackward0"] * 2),
    ("meshgrid xy", "T.meshgrid(a0, a1, a2, indexing='xy')", [U(3), U(2), U(4)], _np_meshgrid_xy, ["ExpandBackward0"] * 3),
    ("broadcast_tensors", "T.broadcast_tensors(a0, a1, a2)", [U(2, 1), U(3), U()],
     lambda a, b, c: np.broadcast_arrays(a, b, c), ["ExpandBackward0"] * 3),
    ("broadcast_to", "a0.broadcast_to((4, -1, 3))", [U(2, 1)], lambda a: np.broadcast_to(a, (4, 2, 3)), ["ExpandBackward0"]),
    ("block_diag", "T.block_diag(a0, a1, a2)", [U(2, 3), U(3), U()], _np_block_diag, ["BlockDiagBackward0"]),
    ("atleast_1d", "T.atleast_1d(a0)", [U()], np.atleast_1d, ["ViewBackward0"]),
    ("atleast_2d", "T.atleast_2d(a0)", [U(3)], np.atleast_2d, ["UnsqueezeBackward0"]),
    ("atleast_3d", "T.atleast_3d(a0, a1, a2)", [U(), U(3), U(2, 3)], lambda *a: np.atleast_3d(*a),
     ["ViewBackward0", "UnsqueezeBackward0", "UnsqueezeBackward0"]),
    ("tensor_split sections", "T.tensor_split(a0, 3, 1)", [U(2, 7)], lambda a: np.array_split(a, 3, 1),
     ["SliceBackward0"] * 3),
    ("tensor_split indices", "a0.tensor_split([1, -1, 2])", [U(5, 2)], lambda a: [a[:1], a[1:-1], a[-1:2], a[2:]],
     ["SliceBackward0"] * 4),
    ("tensor_split tensor", "T.tensor_split(a0, T.tensor([1, 3]))", [U(5)], lambda a: np.split(a, [1, 3]),
     ["SliceBackward0"] * 3),
    ("hsplit", "T.hsplit(a0, 3)", [U(2, 6)], lambda a: np.hsplit(a, 3), ["SliceBackward0"] * 3),
    ("vsplit", "a0.vsplit(2)", [U(4, 3)], lambda a: np.vsplit(a, 2), ["SliceBackward0"] * 2),
    ("dsplit", "a0.dsplit([1])", [U(2, 2, 3)], lambda a: np.dsplit(a, [1]), ["SliceBackward0"] * 2),
    ("cartesian_prod", "T.cartesian_prod(a0, a1)", [U(3), U(2)],
     lambda a, b: np.array([[x, y] for x in a for y in b]), ["StackBackward0"]),
    ("combinations", "T.combinations(a0, 3)", [U(5)], lambda a: _np_combinations(a, 3), ["StackBackward0"]),
    ("combinations replacement", "T.combinations(a0, with_replacement=True)", [U(3)],
     lambda a: _np_combinations(a, 2, True), ["StackBackward0"]),
    ("fliplr", "T.fliplr(a0)", [U(2, 3, 2)], np.fliplr, ["FlipBackward0"]),
    ("flipud", "a0.flipud()", [U(3)], np.flipud, ["FlipBackward0"]),
    ("diag_embed", "T.diag_embed(a0)", [U(2, 3)], lambda a: _np_diag_embed(a, 0, -2, -1), ["DiagEmbedBackward0"]),
    ("diag_embed offset", "a0.diag_embed(-2, 0, 2)", [U(2, 3)], lambda a: _np_diag_embed(a, -2, 0, 2),
     ["DiagEmbedBackward0"]),
    ("diag_embed offset up", "T.diag_embed(a0, 1, -1, 0)", [U(2, 3)], lambda a: _np_diag_embed(a, 1, -1, 0),
     ["DiagEmbedBackward0"]),
    ("diagflat", "a0.diagflat(-1)", [U(2, 2)], lambda a: np.diagflat(a, -1), ["DiagEmbedBackward0"]),
    ("vander", "T.vander(a0, 4)", [np.array([0.0, 1.5, -2.0])], lambda a: np.vander(a, 4), ["FlipBackward0"]),
    ("vander increasing", "T.vander(a0, increasing=True)", [U(3)], lambda a: np.vander(a, increasing=True),
     ["CumprodBackward0"]),
    ("linalg.vander", "T.linalg.vander(a0)", [U(2, 3)], lambda a: np.stack([np.vander(r, increasing=True) for r in a]),
     ["CatBackward0"]),
]
_IDS = [c[0] for c in CASES]
# PyTorch's vander runs an in-place cumulative product that its own backward refuses
_PYTORCH_NO_BACKWARD = {"vander", "vander increasing"}
_NONLINEAR = [c for c in CASES if "vander" in c[0]]


def _call(expr, args, T=torch):
    return eval(expr, {"T": T, **{f"a{i}": a for i, a in enumerate(args)}})


def _outputs(out):
    return list(out) if isinstance(out, (tuple, list)) else [out]


@pytest.mark.parametrize("label, expr, arrays, numpy_value, nodes", CASES, ids=_IDS)
def test_values_shapes_and_node_names(label, expr, arrays, numpy_value, nodes):
    args = [torch.tensor(a, requires_grad=True) for a in arrays]
    outs = _outputs(_call(expr, args))
    wants = _outputs(numpy_value(*arrays))
    assert [type(o.grad_fn).__name__ for o in outs] == nodes
    assert len(outs) == len(wants)
    for out, want in zip(outs, wants):
        assert out.dtype == torch.float64 and tuple(out.shape) == np.shape(want)
        np.testing.assert_allclose(out.detach().numpy(), want, rtol=1e-14, atol=0)


@pytest.mark.parametrize("label, expr, arrays, numpy_value, nodes", CASES, ids=_IDS)
def test_first_derivatives_match_central_differences(label, expr, arrays, numpy_value, nodes):
    check_against_differences(lambda *a: _flat(_call(expr, a)), [np.array(a, dtype=np.float64) for a in arrays])


@pytest.mark.parametrize("label, expr, arrays, numpy_value, nodes", _NONLINEAR, ids=[c[0] for c in _NONLINEAR])
def test_second_derivatives_match_central_differences(label, expr, arrays, numpy_value, nodes):
    check_second_against_differences(lambda *a: _flat(_call(expr, a)), [np.array(a, dtype=np.float64) for a in arrays])


@pytest.mark.parametrize("label, expr, arrays, numpy_value, nodes", CASES, ids=_IDS)
def test_float32_stays_float32_and_inputs_are_not_mutated(label, expr, arrays, numpy_value, nodes):
    args = [torch.tensor(a, dtype=torch.float32, requires_grad=True) for a in arrays]
    before = [a.detach().numpy().copy() for a in args]
    out = _flat(_call(expr, args))
    assert out.dtype == torch.float32
    out.sum().backward()
    for a, b in zip(args, before):
        np.testing.assert_array_equal(a.detach().numpy(), b)
        assert a.grad.dtype == torch.float32 and a.grad.shape == a.shape


@pytest.mark.parametrize("label, expr, arrays, numpy_value, nodes", CASES, ids=_IDS)
def test_against_pytorch(label, expr, arrays, numpy_value, nodes):
    real_torch = pytest.importorskip("torch")
    my_args = [torch.tensor(a, requires_grad=True) for a in arrays]
    mine = _outputs(_call(expr, my_args))
    args = [real_torch.tensor(a, requires_grad=True) for a in arrays]
    theirs = _outputs(_call(expr, args, real_torch))
    assert [type(o.grad_fn).__name__ for o in theirs] == (
        ["CopySlices"] if label == "vander increasing" else nodes)
    for m, t in zip(mine, theirs):
        np.testing.assert_array_equal(m.detach().numpy(), t.detach().numpy())
    if label not in _PYTORCH_NO_BACKWARD:
        want = real_torch.autograd.grad(_flat(theirs, real_torch).square().sum(), args)
        got = torch.autograd.grad(_flat(mine).square().sum(), my_args)
        for g, w in zip(got, want):
            np.testing.assert_allclose(g.numpy(), w.numpy(), rtol=1e-13, atol=1e-13)


# --- exact values without gradients ------------------------------------------------------------


def test_integer_results_and_dtypes():
    assert torch.tril_indices(3, 4, 1).tolist() == [[0, 0, 1, 1, 1, 2, 2, 2, 2], [0, 1, 0, 1, 2, 0, 1, 2, 3]]
    assert torch.triu_indices(3, 4, -1).tolist() == [list(r) for r in np.triu_indices(3, -1, 4)]
    assert torch.tril_indices(3, 3).dtype == torch.int64 and torch.triu_indices(2, 2, dtype=torch.int32).dtype == torch.int32
    assert tuple(torch.tril_indices(0, 3).shape) == (2, 0)
    assert torch.vander(torch.tensor([1, 2, 3])).tolist() == [[1, 1, 1], [4, 2, 1], [9, 3, 1]]
    assert torch.vander(torch.tensor([True, False]), increasing=True).dtype == torch.int64
    assert tuple(torch.vander(torch.tensor([1.0, 2.0]), N=0).shape) == (2, 0)
    assert torch.linalg.vander(torch.tensor([1, 2]), N=4).tolist() == [[1, 1, 1, 1], [1, 2, 4, 8]]
    assert torch.block_diag(torch.ones(2, 2, dtype=torch.int64), torch.ones(1)).dtype == torch.float32
    assert tuple(torch.block_diag().shape) == (1, 0)
    assert torch.diag_embed(torch.tensor([True, False])).tolist() == [[True, False], [False, False]]
    assert tuple(torch.combinations(torch.ones(3), 0).shape) == (0,)
    assert tuple(torch.combinations(torch.ones(3), 4).shape) == (0, 4)
    assert torch.broadcast_shapes((2, 1), (3,), 1) == (2, 3) and repr(torch.broadcast_shapes()) == "srcgrad.Size([])"


def test_views_and_identity_results():
    x = torch.ones(3)
    assert torch.atleast_1d(x) is x and torch.cartesian_prod(x) is x
    a, b = torch.broadcast_tensors(torch.ones(2, 3), x)
    assert tuple(b.shape) == (2, 3)
    pieces = torch.tensor_split(x, 2)
    pieces[0].mul_(5)  # a view: the write reaches x
    assert x.tolist() == [5.0, 5.0, 1.0]


def test_meshgrid_warns_without_indexing_as_pytorch():
    with pytest.warns(UserWarning, match="it will be required to pass the indexing argument"):
        grids = torch.meshgrid(torch.ones(2), torch.ones(3))
    assert [tuple(g.shape) for g in grids] == [(2, 3), (2, 3)]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        torch.meshgrid(torch.ones(2), indexing="ij")


ERRORS = [
    ("T.hstack([])", RuntimeError, "hstack expects a non-empty TensorList"),
    ("T.hstack(T.ones(2))", TypeError, "hstack(): argument 'tensors' (position 1) must be tuple of Tensors, not Tensor"),
    ("T.vstack([T.ones(2), T.ones(3)])", RuntimeError, "Sizes of tensors must match except in dimension 0"),
    ("T.meshgrid(T.ones(2), T.ones(2, 2), indexing='ij')", RuntimeError, "Expected 0D or 1D tensor in the tensor list"),
    ("T.meshgrid(T.ones(2), indexing='foo')", RuntimeError, 'indexing must be one of "xy" or "ij", but received: foo'),
    ("T.meshgrid(T.ones(2), T.ones(2, dtype=T.float64), indexing='ij')", RuntimeError,
     "meshgrid expects all tensors to have the same dtype"),
    ("T.broadcast_to(T.ones(3), (2, 2))", RuntimeError,
     "The expanded size of the tensor (2) must match the existing size (3) at non-singleton dimension 1"),
    ("T.broadcast_shapes((2, 3), (1,), 5)", RuntimeError,
     "Attempting to broadcast a dimension of length 5 at -1! Mismatching argument at index 2 had (5,); but expected "
     "shape should be broadcastable to [2, 3]"),
    ("T.broadcast_tensors(T.ones(2), T.ones(3))", RuntimeError,
     "The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 0"),
    ("T.block_diag(T.ones(2, 2, 2))", RuntimeError, "Input tensors must have 2 or fewer dimensions. Input 0 has 3"),
    ("T.tensor_split(T.ones(3), 0)", RuntimeError, "number of sections must be larger than 0, got 0"),
    ("T.tensor_split(T.ones(()), 2)", RuntimeError, "expected at least a 1-dimensional tensor, but got a tensor with 0"),
    ("T.tensor_split(T.ones(5), T.tensor([[2]]))", RuntimeError, "zero-dimensional or one-dimensional tensor"),
    ("T.tensor_split(T.ones(5), 2.0)", TypeError, "tensor_split() received an invalid combination of arguments"),
    ("T.hsplit(T.ones(2, 3), 2)", RuntimeError,
     "torch.hsplit attempted to split along dimension 1, but the size of the dimension 3 is not divisible by the "
     "split_size 2!"),
    ("T.vsplit(T.ones(3), 2)", RuntimeError, "torch.vsplit requires a tensor with at least 2 dimension, but got a tensor"),
    ("T.dsplit(T.ones(3, 2), 2)", RuntimeError, "torch.dsplit requires a tensor with at least 3 dimension"),
    ("T.combinations(T.ones(2, 2))", RuntimeError, "Expect a 1D vector, but got shape [2, 2]"),
    ("T.combinations(T.ones(3), -1)", RuntimeError, "Expect a non-negative number, but got -1"),
    ("T.cartesian_prod(T.ones(2, 2))", RuntimeError, "Expect a 1D vector, but got shape [2, 2]"),
    ("T.tril_indices(-1, 3)", RuntimeError, "row must be non-negative, got-1"),
    ("T.tril_indices(3, 3, dtype=T.float32)", NotImplementedError, "\"tril_indices\" not implemented for 'Float'"),
    ("T.fliplr(T.ones(3))", RuntimeError, "Input must be >= 2-d."),
    ("T.flipud(T.ones(()))", RuntimeError, "Input must be >= 1-d."),
    ("T.diag_embed(T.ones(2, 3), 0, 1, 1)", RuntimeError, "diagonal dimensions cannot be identical 1, 1"),
    ("T.diag_embed(T.ones(2, 3), 0, 1, 5)", IndexError, "Dimension out of range (expected to be in range of [-3, 2], but got 5)"),
    ("T.vander(T.ones(2, 2))", RuntimeError, "x must be a one-dimensional tensor."),
    ("T.vander(T.ones(2), N=-1)", RuntimeError, "N must be non-negative."),
    ("T.linalg.vander(T.ones(3), N=1)", RuntimeError, "N must be greater than 1."),
    ("T.linalg.vander(T.tensor([True]))", RuntimeError, "linalg.vander supports floating point, complex, and integer"),
    ("T.atleast_1d(1.0)", TypeError, "atleast_1d() received an invalid combination of arguments - got (float)"),
]


@pytest.mark.parametrize("expr, kind, message", ERRORS, ids=[e[0] for e in ERRORS])
def test_bad_input_raises_pytorchs_error(expr, kind, message):
    with pytest.raises(kind, match=re.escape(message)):
        _call(expr, [])
