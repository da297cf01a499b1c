"""nanmean, nanmedian, quantile, nanquantile, aminmax and renorm (statistics.py), and the
searches and counts of binning.py: values against NumPy, dtypes, PyTorch 2.13's node
names (written in), gradients against central differences in float64 (second
derivatives for quantile and renorm), and PyTorch's errors. Where PyTorch is installed,
`test_against_pytorch` compares every case with it too."""

import math
import re

import numpy as np
import pytest

import srcgrad as torch
from tensor_checks import check_against_differences, check_second_against_differences

_rng = np.random.default_rng(9)
NAN = math.nan


def U(*shape):
    return _rng.uniform(-2.0, 2.0, size=shape)


_N = np.array([[1.0, NAN, 3, 2, 0.5], [NAN, NAN, 0, 5, -1]])


def _lower_nanmedian(a, axis):
    s = np.sort(a, axis=axis)
    k = np.sum(~np.isnan(a), axis=axis, keepdims=True)
    return np.take_along_axis(s, np.maximum(k - 1, 0) // 2, axis).squeeze(axis)


def _renorm(a, p, dim, maxnorm):
    others = tuple(d for d in range(a.ndim) if d != dim)
    norms = (np.abs(a) ** p).sum(others, keepdims=True) ** (1 / p)
    return a * np.where(norms > maxnorm, maxnorm / (norms + 1e-7), 1.0)


# (label, expression of T and a0, inputs, NumPy's value, node name, smooth where the inputs are)
CASES = [
    ("nanmean", "T.nanmean(a0, 1)", [_N], lambda a: np.nanmean(a, 1), "DivBackward0", False),
    ("nanmean all", "a0.nanmean()", [U(2, 3)], np.nanmean, "DivBackward0", False),
    ("nanmedian", "T.nanmedian(a0, 1).values", [_N], lambda a: _lower_nanmedian(a, 1), "NanmedianBackward1", False),
    ("nanmedian all", "T.nanmedian(a0)", [_N], lambda a: np.float64(1.0), "NanmedianBackward0", False),
    ("quantile", "T.quantile(a0, 0.3, dim=1)", [U(3, 5)], lambda a: np.quantile(a, 0.3, axis=1), "SqueezeBackward4", True),
    ("quantile all", "T.quantile(a0, 0.4)", [U(7)], lambda a: np.quantile(a, 0.4), "SqueezeBackward4", True),
    ("quantile several", "a0.quantile(T.tensor([0.1, 0.5, 0.99], dtype=a0.dtype), dim=0, keepdim=True)", [U(6, 2)],
     lambda a: np.quantile(a, [0.1, 0.5, 0.99], axis=0, keepdims=True), "SqueezeBackward4", True),
    ("quantile lower", "T.quantile(a0, 0.37, dim=-1, interpolation='lower')", [U(2, 6)],
     lambda a: np.quantile(a, 0.37, axis=-1, method="lower"), "SqueezeBackward4", False),
    ("quantile higher", "T.quantile(a0, 0.37, interpolation='higher')", [U(2, 6)],
     lambda a: np.quantile(a, 0.37, method="higher"), "SqueezeBackward4", False),
    ("quantile nearest", "T.quantile(a0, 0.375, interpolation='nearest')", [U(5)],
     lambda a: np.sort(a)[2], "SqueezeBackward4", False),
    ("quantile midpoint", "T.quantile(a0, 0.37, dim=1, interpolation='midpoint')", [U(2, 6)],
     lambda a: np.quantile(a, 0.37, axis=1, method="midpoint"), "SqueezeBackward4", False),
    ("nanquantile", "T.nanquantile(a0, 0.4, dim=1)", [_N], lambda a: np.nanquantile(a, 0.4, axis=1), "SqueezeBackward4",
     True),
    ("aminmax min", "T.aminmax(a0, dim=1).min", [U(3, 4)], lambda a: a.min(1), "AminmaxBackward0", False),
    ("aminmax max", "a0.aminmax().max", [U(3, 4)], np.max, "AminmaxBackward0", False),
    ("renorm", "T.renorm(a0, 2, 0, 1.5)", [U(3, 4)], lambda a: _renorm(a, 2, 0, 1.5), "RenormBackward0", True),
    ("renorm p1", "a0.renorm(1, 2, 2.0)", [U(2, 3, 4)], lambda a: _renorm(a, 1, 2, 2.0), "RenormBackward0", True),
]
_IDS = [c[0] for c in CASES]
# nan inputs have no central differences: test_nan_entries_get_no_gradient covers them
_FINITE = [c for c in CASES if not any(np.isnan(a).any() for a in c[2])]
_SMOOTH = [c for c in _FINITE if c[5]]


def _call(expr, args, T=torch):
    return eval(expr, {"T": T, **{f"a{i}": a for i, a in enumerate(args)}})


@pytest.mark.parametrize("label, expr, arrays, numpy_value, node, smooth", CASES, ids=_IDS)
def test_values_and_node_names(label, expr, arrays, numpy_value, node, smooth):
    out = _call(expr, [torch.tensor(a, requires_grad=True) for a in arrays])
    want = numpy_value(*arrays)
    assert type(out.grad_fn).__name__ == node
    assert out.dtype == torch.float64 and tuple(out.shape) == np.shape(want)
    np.testing.assert_allclose(out.detach().numpy(), want, rtol=1e-13, atol=1e-13)


@pytest.mark.parametrize("label, expr, arrays, numpy_value, node, smooth", _FINITE, ids=[c[0] for c in _FINITE])
def test_first_derivatives_match_central_differences(label, expr, arrays, numpy_value, node, smooth):
    check_against_differences(lambda *a: _call(expr, a), [np.array(a) for a in arrays])


@pytest.mark.parametrize("label, expr, arrays, numpy_value, node, smooth", _SMOOTH, ids=[c[0] for c in _SMOOTH])
def test_second_derivatives_match_central_differences(label, expr, arrays, numpy_value, node, smooth):
    check_second_against_differences(lambda *a: _call(expr, a), [np.array(a) for a in arrays])


def test_nan_entries_get_no_gradient():
    x = torch.tensor(_N, requires_grad=True)
    torch.nanmean(x, 1).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.where(np.isnan(_N), 0.0, 1.0 / np.array([[4.0], [3.0]])))
    x.grad = None
    torch.nanquantile(x, 0.4, dim=1).sum().backward()
    # row 0: sorted 0.5, 1, 2, 3; rank 1.2 -> 0.8 * 1 + 0.2 * 2; row 1: -1, 0, 5; rank 0.8 -> 0.2 * -1 + 0.8 * 0
    np.testing.assert_allclose(x.grad.numpy(), [[0.8, 0, 0, 0.2, 0], [0, 0, 0.8, 0, 0.2]], atol=1e-15)
    x.grad = None
    torch.nanmedian(x, 1).values.sum().backward()
    assert x.grad.tolist() == [[1.0, 0, 0, 0, 0], [0, 0, 1.0, 0, 0]]


@pytest.mark.parametrize("label, expr, arrays, numpy_value, node, smooth", CASES, ids=_IDS)
def test_float32_stays_float32(label, expr, arrays, numpy_value, node, smooth):
    args = [torch.tensor(a, dtype=torch.float32, requires_grad=True) for a in arrays]
    out = _call(expr, args)
    assert out.dtype == torch.float32
    (g,) = torch.autograd.grad(out.nansum(), args)
    assert g.dtype == torch.float32 and g.shape == args[0].shape


@pytest.mark.parametrize("label, expr, arrays, numpy_value, node, smooth", CASES, ids=_IDS)
def test_against_pytorch(label, expr, arrays, numpy_value, node, smooth):
    real_torch = pytest.importorskip("torch")
    mine_args = [torch.tensor(a, requires_grad=True) for a in arrays]
    mine = _call(expr, mine_args)
    args = [real_torch.tensor(a, requires_grad=True) for a in arrays]
    theirs = _call(expr, args, real_torch)
    assert type(theirs.grad_fn).__name__ == node
    np.testing.assert_allclose(mine.detach().numpy(), theirs.detach().numpy(), rtol=1e-13, atol=1e-13)
    weights = np.arange(1.0, 1.0 + theirs.numel()).reshape(tuple(theirs.shape))
    want = real_torch.autograd.grad((theirs * real_torch.tensor(weights)).nansum(), args)
    got = torch.autograd.grad((mine * torch.tensor(weights)).nansum(), mine_args)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g.numpy(), w.numpy(), rtol=1e-12, atol=1e-13)


# --- results without gradients --------------------------------------------------------------------


def test_integer_and_index_results():
    r = torch.nanmedian(torch.tensor(_N), 1)
    assert r.indices.tolist() == [0, 2] and r.indices.dtype == torch.int64
    assert repr(r).startswith("srcgrad.return_types.nanmedian(\nvalues=")
    assert torch.nanmedian(torch.tensor([1, 5, 2, 4])).item() == 2
    m = torch.aminmax(torch.tensor([[1, 5], [3, 0]]), dim=0)
    assert m.min.tolist() == [1, 0] and m.max.tolist() == [3, 5] and repr(m).startswith("srcgrad.return_types.aminmax(")
    boundaries = torch.tensor([1, 3, 5, 7])
    assert torch.bucketize(torch.tensor([1, 5, 3]), boundaries).tolist() == [0, 2, 1]
    assert torch.bucketize(torch.tensor([1, 5, 3]), boundaries, right=True).tolist() == [1, 3, 2]
    assert torch.bucketize(torch.tensor([1.0]), boundaries, out_int32=True).dtype == torch.int32
    assert torch.bucketize(3, boundaries).tolist() == 1
    assert torch.searchsorted(boundaries, torch.tensor([3, 6, 9])).tolist() == [1, 3, 4]
    assert torch.searchsorted(boundaries, torch.tensor([3, 6, 9]), side="right").tolist() == [2, 3, 4]
    rows = torch.tensor([[1, 3, 5, 7], [2, 4, 6, 8]])
    assert torch.searchsorted(rows, torch.tensor([[3, 6, 9], [3, 6, 9]])).tolist() == [[1, 3, 4], [1, 2, 4]]
    assert torch.searchsorted(torch.tensor([7, 1, 5, 3]), torch.tensor([3, 6]), sorter=torch.tensor([1, 3, 2, 0])).tolist() == [1, 3]
    assert torch.searchsorted(torch.tensor([1.0, 3, NAN]), torch.tensor([NAN, 2.0])).tolist() == [3, 1]


def test_counts():
    x = torch.tensor([1.0, 2, 1, 5])
    assert torch.histc(x, bins=4).tolist() == [2.0, 1.0, 0.0, 1.0] and torch.histc(x, 4).dtype == torch.float32
    assert torch.histc(torch.tensor([1.0, 2, 3]), bins=4, min=0, max=3).tolist() == [0.0, 1.0, 1.0, 1.0]
    assert torch.histc(torch.tensor([1.0, 1.0]), bins=4).tolist() == [0.0, 0.0, 2.0, 0.0]
    h = torch.histogram(torch.tensor([1.0, 2, 1]), bins=4, range=(0.0, 3.0), weight=torch.tensor([1.0, 2, 4]), density=True)
    np.testing.assert_allclose(h.hist.numpy(), [0.0, 0.952381, 0.380952, 0.0], rtol=1e-5)
    assert h.bin_edges.tolist() == [0.0, 0.75, 1.5, 2.25, 3.0]
    assert torch.histogram(torch.tensor([1.0, 1.0]), 4).bin_edges.tolist() == [0.5, 0.75, 1.0, 1.25, 1.5]
    assert torch.bincount(torch.tensor([4, 3, 6, 3, 4]), minlength=8).tolist() == [0, 0, 0, 2, 2, 0, 1, 0]
    weighted = torch.bincount(torch.tensor([1, 1, 2]), weights=torch.tensor([1, 2, 3]))
    assert weighted.tolist() == [0.0, 3.0, 3.0] and weighted.dtype == torch.float64
    u, inverse, counts = torch.unique_consecutive(torch.tensor([1, 1, 2, 2, 3, 1, 1, 2]), return_inverse=True,
                                                  return_counts=True)
    assert u.tolist() == [1, 2, 3, 1, 2] and inverse.tolist() == [0, 0, 1, 1, 2, 3, 3, 4] and counts.tolist() == [2, 2, 1, 2, 1]
    u, counts = torch.tensor([[1, 1], [1, 1], [2, 3], [2, 3]]).unique_consecutive(dim=0, return_counts=True)
    assert u.tolist() == [[1, 1], [2, 3]] and counts.tolist() == [2, 2]
    assert len(torch.unique_consecutive(torch.tensor([1.0, NAN, NAN])).tolist()) == 3
    assert torch.isin(torch.tensor([1, 2, 3, 4]), torch.tensor([2, 4, 6]), invert=True).tolist() == [True, False, True, False]
    assert torch.isin(2, torch.tensor([1, 2])).item() is True


def test_ops_without_a_derivative_raise_pytorchs_error_in_backward():
    w = torch.tensor([1.0, 2.0], requires_grad=True)
    out = torch.bincount(torch.tensor([0, 1]), weights=w)
    assert type(out.grad_fn).__name__ == "NotImplemented"
    with pytest.raises(RuntimeError, match="derivative for aten::bincount is not implemented"):
        out.sum().backward()
    u = torch.unique_consecutive(w)
    assert type(u.grad_fn).__name__ == "UniqueConsecutiveBackward0"
    with pytest.raises(NotImplementedError, match="the derivative for 'unique_consecutive' is not implemented."):
        u.sum().backward()
    assert torch.histc(w, 2).grad_fn is None and not torch.bucketize(w, torch.tensor([1.5])).requires_grad


ERRORS = [
    ("T.nanmean(T.tensor([1, 2]))", RuntimeError, "nanmean(): expected input to have floating point or complex dtype but got Long"),
    ("T.quantile(T.tensor([1, 2]), 0.4)", RuntimeError, "quantile() input tensor must be either float or double dtype"),
    ("T.quantile(T.tensor([1.0, 2]), 1.4)", RuntimeError, "quantile() q must be in the range [0, 1] but got 1.4"),
    ("T.quantile(T.tensor([1.0, 2]), 0.4, interpolation='foo')", RuntimeError,
     "quantile() interpolation must be one of linear, lower, higher, midpoint or nearest, but got foo"),
    ("T.quantile(T.tensor([1.0, 2]), T.tensor([[0.4]]))", RuntimeError, "quantile() q must be a scalar or 1D tensor"),
    ("T.quantile(T.tensor([1.0, 2]), T.tensor([0.4], dtype=T.float64))", RuntimeError,
     "quantile() q tensor must be same dtype as the input tensor"),
    ("T.quantile(T.tensor([]), 0.4)", RuntimeError, "quantile() input tensor must be non-empty"),
    ("T.aminmax(T.tensor([]))", RuntimeError, "aminmax(): cannot compute aminmax over an empty dimension"),
    ("T.bucketize(T.tensor([1, 5]), T.tensor([[1, 3]]))", RuntimeError, "boundaries tensor must be 1 dimension, but got dim(2)"),
    ("T.searchsorted(T.tensor([1, 3]), T.tensor([3]), side='left', right=True)", RuntimeError,
     "side and right can't be set to opposites, got side of left while right was True"),
    ("T.searchsorted(T.tensor([1, 3]), T.tensor([3]), side='foo')", RuntimeError, "side can only be 'left' or 'right' but got foo"),
    ("T.searchsorted(T.tensor([[1, 3, 5, 7], [2, 4, 6, 8]]), T.tensor([3, 6, 9]))", RuntimeError,
     "boundaries tensor should be 1 dimension or the first N-1 dimensions of boundaries tensor and input value tensor must "
     "match, but we got boundaries tensor [2, 4] and input value tensor [3]"),
    ("T.histc(T.tensor([1, 2]), bins=4, min=0, max=3)", NotImplementedError, "\"histogram_cpu\" not implemented for 'Long'"),
    ("T.histc(T.tensor([1.0, 2]), bins=4, min=3, max=0)", RuntimeError, "torch.histc: max must be larger than min"),
    ("T.histc(T.tensor([1.0, 2]), bins=0)", RuntimeError, "torch.histogram(): bins must be > 0, but got 0 for dimension 0"),
    ("T.bincount(T.tensor([-1]))", RuntimeError, "bincount only supports 1-d non-negative integral inputs."),
    ("T.bincount(T.tensor([1.0]))", NotImplementedError, "\"bincount_cpu\" not implemented for 'Float'"),
    ("T.bincount(T.tensor([1, 2]), weights=T.tensor([1.0]))", RuntimeError,
     "weights should be 1-d and have the same length as input"),
    ("T.bincount(T.tensor([1, 2]), minlength=-1)", RuntimeError, "minlength should be >= 0"),
    ("T.renorm(T.tensor([1.0, 2, 2]), 2, 0, 2.5)", RuntimeError, "renorm: input needs at least 2 dimensions, got 1 dimensions"),
    ("T.renorm(T.tensor([[1.0, 2, 2]]), -1, 0, 2.5)", RuntimeError, "renorm: non-positive-norm not supported"),
    ("T.renorm(T.tensor([[1.0, 2, 2]]), 2, 0, -1.0)", RuntimeError, "renorm: expected maxnorm to be >= 0 but got -1"),
]


@pytest.mark.parametrize("expr, kind, message", ERRORS, ids=[e[0] for e in ERRORS])
def test_bad_input_raises_pytorchs_error(expr, kind, message):
    with pytest.raises(kind, match=re.escape(message)):
        _call(expr, [])


@pytest.mark.parametrize("expr, kind, message", ERRORS, ids=[e[0] for e in ERRORS])
def test_errors_are_pytorchs(expr, kind, message):
    real_torch = pytest.importorskip("torch")
    with pytest.raises(kind, match=re.escape(message)):
        _call(expr, [], real_torch)
