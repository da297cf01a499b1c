"""Contractions, differences, take and sample statistics of the Tensor shim
(contractions.py, differences.py, scatters.take, statistics.py): values against NumPy,
dtypes, PyTorch 2.13's node names (written in), first and second derivatives against
central differences in float64, and PyTorch's errors and warnings. Where PyTorch is
installed, `test_against_pytorch` compares every case with it too."""

import re
import warnings

import numpy as np
import pytest

import srcgrad as torch
from tensor_checks import check_against_differences, check_second_against_differences

_rng = np.random.default_rng(5)


def U(*shape):
    return _rng.uniform(-2.0, 2.0, size=shape)


def P(*shape):
    return _rng.uniform(0.5, 2.0, size=shape)


def _trapezoid(y, x=None, dx=1.0, axis=-1):
    y = np.moveaxis(y, axis, -1)
    d = np.diff(x) if x is not None else dx
    return (d * (y[..., 1:] + y[..., :-1]) / 2).sum(-1)


def _cumulative_trapezoid(y, x=None, dx=1.0, axis=-1):
    y = np.moveaxis(y, axis, -1)
    d = np.diff(x) if x is not None else dx
    return np.moveaxis(np.cumsum(d * (y[..., 1:] + y[..., :-1]) / 2, -1), -1, axis)


_FW = np.array([1, 2, 0, 3])

# (label, expression of T and a0, a1, ..., inputs, NumPy's value, node name, linear in each input)
CASES = [
    ("tensordot", "T.tensordot(a0, a1)", [U(2, 3, 4), U(3, 4, 2)], lambda a, b: np.tensordot(a, b), "ViewBackward0", True),
    ("tensordot lists", "T.tensordot(a0, a1, dims=([1, 0], [0, 2]))", [U(2, 3, 4), U(3, 4, 2)],
     lambda a, b: np.tensordot(a, b, ([1, 0], [0, 2])), "ViewBackward0", True),
    ("tensordot outer", "T.tensordot(a0, a1, dims=0)", [U(2), U(3)], np.outer, "ViewBackward0", True),
    ("vdot", "T.vdot(a0, a1)", [U(3), U(3)], np.vdot, "VdotBackward0", True),
    ("addmv", "a0.addmv(a1, a2, beta=0.5, alpha=2)", [U(2), U(2, 3), U(3)], lambda a, m, v: 0.5 * a + 2 * m @ v,
     "AddmvBackward0", True),
    ("addbmm", "T.addbmm(a0, a1, a2, beta=2, alpha=0.5)", [U(2, 2), U(3, 2, 4), U(3, 4, 2)],
     lambda a, b, c: 2 * a + 0.5 * (b @ c).sum(0), "AddbmmBackward0", True),
    ("chain_matmul", "T.chain_matmul(a0, a1, a2)", [U(2, 3), U(3, 4), U(4, 2)], lambda a, b, c: a @ b @ c,
     "ViewBackward0", True),
    ("diff", "a0.diff(n=2, dim=0)", [U(4, 3)], lambda a: np.diff(a, 2, 0), "SubBackward0", True),
    ("diff prepend append", "T.diff(a0, prepend=a1, append=a2)", [U(3), U(2), U(1)],
     lambda a, p, q: np.diff(a, prepend=p, append=q), "SubBackward0", True),
    ("trapezoid dx", "T.trapezoid(a0, dx=0.5, dim=0)", [U(4, 3)], lambda y: _trapezoid(y, dx=0.5, axis=0),
     "MulBackward1", True),
    ("trapezoid x", "T.trapezoid(a0, a1)", [U(2, 4), U(4)], lambda y, x: _trapezoid(y, x), "DivBackward1", False),
    ("trapz", "T.trapz(a0)", [U(2, 5)], _trapezoid, "MulBackward1", True),
    ("cumulative_trapezoid dx", "T.cumulative_trapezoid(a0, dx=3.0, dim=0)", [U(4, 2)],
     lambda y: _cumulative_trapezoid(y, dx=3.0, axis=0), "CumsumBackward0", True),
    ("cumulative_trapezoid x", "T.cumulative_trapezoid(a0, a1)", [U(2, 4), U(4)], _cumulative_trapezoid,
     "DivBackward1", False),
    ("take", "T.take(a0, T.tensor([[0, 5], [-1, 5]]))", [U(2, 3)], lambda a: a.ravel()[[[0, 5], [5, 5]]],
     "TakeBackward0", True),
    ("cov", "T.cov(a0)", [U(3, 5)], np.cov, "SqueezeBackward0", False),
    ("cov vector", "T.cov(a0, correction=0)", [U(5)], lambda a: np.cov(a, ddof=0), "SqueezeBackward0", False),
    ("cov weights", "a0.cov(correction=2, fweights=T.tensor(_FW), aweights=a1)", [U(3, 4), P(4)],
     lambda a, w: np.cov(a, ddof=2, fweights=_FW, aweights=w), "SqueezeBackward0", False),
    ("corrcoef", "T.corrcoef(a0)", [U(3, 5)], np.corrcoef, "ClampBackward1", False),
    ("corrcoef vector", "a0.corrcoef()", [U(5)], lambda a: np.float64(1.0), "DivBackward0", False),
]
_IDS = [c[0] for c in CASES]
_NONLINEAR = [c for c in CASES if not c[5]]


def _call(expr, args, T=torch):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # chain_matmul's deprecation
        return eval(expr, {"T": T, "_FW": _FW, **{f"a{i}": a for i, a in enumerate(args)}})


@pytest.mark.parametrize("label, expr, arrays, numpy_value, node, linear", CASES, ids=_IDS)
def test_values_and_node_names(label, expr, arrays, numpy_value, node, linear):
    out = _call(expr, [torch.tensor(a, requires_grad=True) for a in arrays])
    want = numpy_value(*arrays)
    assert type(out.grad_fn).__name__ == node
    assert out.dtype == torch.float64 and tuple(out.shape) == np.shape(want)
    np.testing.assert_allclose(out.detach().numpy(), want, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("label, expr, arrays, numpy_value, node, linear", CASES, ids=_IDS)
def test_first_derivatives_match_central_differences(label, expr, arrays, numpy_value, node, linear):
    check_against_differences(lambda *a: _call(expr, a), [np.array(a) for a in arrays])


@pytest.mark.parametrize("label, expr, arrays, numpy_value, node, linear", _NONLINEAR, ids=[c[0] for c in _NONLINEAR])
def test_second_derivatives_match_central_differences(label, expr, arrays, numpy_value, node, linear):
    check_second_against_differences(lambda *a: _call(expr, a), [np.array(a) for a in arrays])


@pytest.mark.parametrize("label, expr, arrays, numpy_value, node, linear", CASES, ids=_IDS)
def test_float32_stays_float32_and_inputs_are_not_mutated(label, expr, arrays, numpy_value, node, linear):
    args = [torch.tensor(a, dtype=torch.float32, requires_grad=True) for a in arrays]
    before = [a.detach().numpy().copy() for a in args]
    out = _call(expr, args)
    assert out.dtype == torch.float32
    out.sum().backward()
    for a, b in zip(args, before):
        np.testing.assert_array_equal(a.detach().numpy(), b)
        assert a.grad.dtype == torch.float32 and a.grad.shape == a.shape


@pytest.mark.parametrize("label, expr, arrays, numpy_value, node, linear", CASES, ids=_IDS)
def test_against_pytorch(label, expr, arrays, numpy_value, node, linear):
    real_torch = pytest.importorskip("torch")
    mine_args = [torch.tensor(a, requires_grad=True) for a in arrays]
    mine = _call(expr, mine_args)
    args = [real_torch.tensor(a, requires_grad=True) for a in arrays]
    theirs = _call(expr, args, real_torch)
    assert type(theirs.grad_fn).__name__ == node
    np.testing.assert_allclose(mine.detach().numpy(), theirs.detach().numpy(), rtol=1e-12, atol=1e-12)
    want = real_torch.autograd.grad(theirs.square().sum(), args)
    got = torch.autograd.grad(mine.square().sum(), mine_args)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g.numpy(), w.numpy(), rtol=1e-10, atol=1e-12)


# --- integer and edge cases -----------------------------------------------------------------


def test_integer_inputs_and_edges():
    assert torch.vdot(torch.tensor([1, 2]), torch.tensor([3, 4])).item() == 11
    assert torch.diff(torch.tensor([1, 4, 9])).tolist() == [3, 5]
    assert torch.diff(torch.tensor([True, False, True, True])).tolist() == [True, True, False]
    x = torch.ones(3, requires_grad=True)
    assert type(torch.diff(x, n=0).grad_fn).__name__ == "CopyBackwards"
    assert type(torch.diff(torch.ones(1, requires_grad=True), n=2).grad_fn).__name__ == "SubBackward0"
    assert torch.diff(torch.ones(0, requires_grad=True)).grad_fn is None
    y = torch.trapezoid(torch.tensor([1, 2, 3]), torch.tensor([1, 2, 4]))
    assert y.dtype == torch.float32 and y.item() == 6.5
    assert torch.trapezoid(torch.tensor([1, 2, 3]), dx=2).item() == 8.0
    assert torch.trapezoid(torch.ones(2, 0)).tolist() == [0.0, 0.0]
    assert torch.cumulative_trapezoid(torch.tensor([1, 2, 3])).tolist() == [1.5, 4.0]
    c = torch.cov(torch.tensor([[1, 2, 4], [0, 1, 3]]))
    assert c.dtype == torch.float32
    np.testing.assert_allclose(c.numpy(), np.cov([[1, 2, 4], [0, 1, 3]]), rtol=1e-6)


def test_take_gradient_adds_up_repeated_indices():
    x = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
    torch.take(x, torch.tensor([0, 5, -1, 0, 0])).sum().backward()
    assert x.grad.tolist() == [[3.0, 0.0, 0.0], [0.0, 0.0, 2.0]]


def test_warnings_as_pytorch():
    with pytest.warns(UserWarning, match="degrees of freedom is <= 0"):
        out = torch.cov(torch.ones(2, 3), correction=3)
    assert np.isnan(out.numpy()).all()
    import importlib

    importlib.import_module("srcgrad.tensor.contractions")._CHAIN_MATMUL_WARNED = False
    with pytest.warns(UserWarning, match="torch.chain_matmul is deprecated"):
        torch.chain_matmul(torch.ones(2, 2), torch.ones(2, 2))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # once per process, as PyTorch's
        torch.chain_matmul(torch.ones(2, 2))


ERRORS = [
    ("T.tensordot(T.ones(2, 3), T.ones(4, 3), dims=1)", RuntimeError,
     "contracted dimensions need to match, but first has size 3 in dim -1 and second has size 4 in dim 0"),
    ("T.tensordot(T.ones(2, 3), T.ones(3, 4), dims=-1)", RuntimeError, "tensordot expects dims >= 0, but got dims=-1"),
    ("T.tensordot(T.ones(2, 3), T.ones(3, 4), dims=([1], [0, 1]))", RuntimeError, "both dimension lists should have same length"),
    ("T.tensordot(T.ones(2, 3), T.ones(3, 4, dtype=T.float64))", RuntimeError, "both inputs should have same dtype"),
    ("T.vdot(T.ones(2, 3), T.ones(3))", RuntimeError, "1D tensors expected, but got 2D and 1D tensors"),
    ("T.vdot(T.ones(3), T.ones(4))", RuntimeError, "inconsistent tensor size, expected tensor [3] and src [4]"),
    ("T.vdot(T.ones(3), T.ones(3, dtype=T.float64))", RuntimeError,
     "dot : expected both vectors to have same dtype, but found Float and Double"),
    ("T.addmv(T.ones(2), T.ones(2, 3), T.ones(4))", RuntimeError, "size mismatch, got input (2), mat (2x3), vec (4)"),
    ("T.addmv(T.ones(2), T.ones(2, 3), T.ones(3, dtype=T.float64))", RuntimeError,
     "addmv input tensors must have the same dtype, but got Float, Float, and Double"),
    ("T.addbmm(T.ones(2, 2), T.ones(3, 2, 4), T.ones(3, 5, 2))", RuntimeError, "Incompatible matrix sizes for bmm (2x4 and 5x2)"),
    ("T.addbmm(T.ones(2, 2), T.ones(3, 2, 4), T.ones(2, 4, 2))", RuntimeError,
     "batch1 and batch2 must have same number of batches, got 3 and 2"),
    ("T.chain_matmul()", RuntimeError, "chain_matmul(): Expected one or more matrices"),
    ("T.chain_matmul(T.ones(2, 3), T.ones(2, 3))", RuntimeError,
     "multi_dot(): tensors 0 and 1 with shapes [2, 3] and [2, 3] cannot be multiplied"),
    ("T.diff(T.ones(()))", RuntimeError, "diff expects input to be at least one-dimensional"),
    ("T.diff(T.ones(3), n=-1)", RuntimeError, "order must be non-negative but got -1"),
    ("T.diff(T.ones(2, 3), prepend=T.ones(3))", RuntimeError, "diff expects prepend or append to be the same dimension"),
    ("T.trapezoid(T.ones(3), T.ones(2))", RuntimeError, "trapezoid: There must be one `x` value for each sample point"),
    ("T.trapezoid(T.ones(()))", IndexError, "Dimension specified as -1 but tensor has no dimensions"),
    ("T.trapezoid(T.ones(3), T.ones(3), dx=1.0)", TypeError, "trapezoid() received an invalid combination of arguments"),
    ("T.take(T.ones(2, 3), T.tensor([6]))", IndexError, "out of range: tried to access index 6 on a tensor of 6 elements."),
    ("T.take(T.ones(2, 3), T.tensor([1.0]))", RuntimeError, "take(): Expected a long tensor for index, but got Float"),
    ("T.cov(T.ones(2, 2, 2))", RuntimeError, "cov(): expected input to have two or fewer dimensions but got an input with 3"),
    ("T.cov(T.ones(2, 3), fweights=T.tensor([1.0, 2, 3]))", RuntimeError,
     "cov(): expected fweights to have integral dtype but got fweights with Float dtype"),
    ("T.cov(T.ones(2, 3), fweights=T.tensor([1, -2, 3]))", RuntimeError, "cov(): fweights cannot be negative"),
    ("T.cov(T.ones(2, 3), aweights=T.tensor([1, 2, 3]))", RuntimeError,
     "cov(): expected aweights to have floating point dtype but got aweights with Long dtype"),
    ("T.cov(T.ones(2, 3), fweights=T.tensor([1, 2]))", RuntimeError,
     "cov(): expected fweights to have the same numel as there are observations in the input but got 2 != 3"),
    ("T.corrcoef(T.ones(2, 2, 2))", RuntimeError, "corrcoef(): expected input to have two or fewer dimensions"),
]


@pytest.mark.parametrize("expr, kind, message", ERRORS, ids=[e[0] for e in ERRORS])
def test_bad_input_raises_pytorchs_error(expr, kind, message):
    with pytest.raises(kind, match=re.escape(message)):
        _call(expr, [])


def test_in_place_forms_match_the_functions_and_record_their_nodes():
    a, m, v = U(2), U(2, 3), U(3)
    x = torch.tensor(a, requires_grad=True)
    y = x * 1
    assert y.addmv_(torch.tensor(m), torch.tensor(v), beta=0.5, alpha=2) is y
    np.testing.assert_allclose(y.detach().numpy(), 0.5 * a + 2 * m @ v, rtol=1e-14)
    assert type(y.grad_fn).__name__ == "AddmvBackward0"
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [0.5, 0.5])
    b1, b2 = U(3, 2, 4), U(3, 4, 2)
    z = torch.zeros(2, 2, dtype=torch.float64)
    z.addbmm_(torch.tensor(b1), torch.tensor(b2))
    np.testing.assert_allclose(z.numpy(), (b1 @ b2).sum(0), rtol=1e-14)
    r = torch.tensor([[3.0, 4.0], [0.3, 0.4]])
    r.renorm_(2, 0, 1.0)
    np.testing.assert_allclose(r.numpy(), [[0.6, 0.8], [0.3, 0.4]], rtol=1e-6)
